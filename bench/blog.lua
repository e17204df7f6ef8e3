--- make bench: binary logs (issue 15 item 2) of the default "Global" collection
-- of this machine: bytes per sample in the log against the raw extended data
-- block (`s:block()`, what a DATA record holds), with the header and the
-- METADATA records counted in, and the cost of writing and reading back.
-- Target: the log within 2x of the raw block.  BENCH_SAMPLES samples (default
-- 200) are collected back to back and written to a log in a temporary
-- directory (removed at the end), then read back and each sample formatted
-- against the one before.
-- Benchmarks report, tests assert: the exit status is 0 even on a MISS.

local perflib = require "perflib"

local N = math.tointeger(tonumber(os.getenv("BENCH_SAMPLES") or "")) or 200
local TARGET = 2
local clock = perflib.clock

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p " .. dir))
local path = dir .. "/global.blg"

local s, q = assert(perflib.collect("Global"))
local blocks, write_s, ok = 0, 0, nil
local w = assert(perflib.log_writer(path))
for _ = 1, N do
  s = assert(q:collect(s))                      -- refilled in place: no new sample per round
  blocks = blocks + #s:block()
  local t0 = clock()
  ok = assert(w:write(s))
  write_s = write_s + (clock() - t0)
end
assert(ok and w:close())
local f = assert(io.open(path, "rb"))
local size = f:seek("end")
f:close()

local t0, n, values = clock(), 0, 0
local it, log = assert(perflib.read_log(path))
local prev
for s1 in it do
  for i = 1, #s1 do
    local v = s1:values(prev, i)
    for _, inst in pairs(v) do for _ in pairs(inst) do values = values + 1 end end
  end
  prev, n = s1, n + 1
end
local read_s = clock() - t0
local info = log:info()
log:close()
os.execute("rm -rf " .. dir)

local ratio = size / blocks
print(("blog: Global, %d results, %d samples: raw block %.0f B/sample, log %.0f B/sample "
  .. "(header and %d metadata records in), ratio %.3fx (target < %dx) %s")
  :format(#s, N, blocks / N, size / N, info.records - info.samples, ratio, TARGET,
    ratio < TARGET and "OK" or "MISS"))
print(("blog: write %.1f us/sample (fdatasync on close); read back and format %.1f us/sample "
  .. "(%d values/sample)"):format(write_s / N * 1e6, read_s / n * 1e6, values // math.max(n, 1)))
