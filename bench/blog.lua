--- make bench: logs of the default "Global" collection of this machine (issue
-- 15, "Speed and size").
--
-- 1. Recording: BENCH_SAMPLES samples (default 200) collected back to back and
--    appended to a binary log; the CPU time of a collect and a write per
--    sample, as a share of one core when recording at 1 Hz (target < 0.2 %).
-- 2. Bytes per sample of each format against the raw extended data block
--    (`s:block()`, what a DATA record holds): the binary log (target within
--    2x, the definitions and header counted in), and typeperf's CSV, TSV and
--    JSON lines of the same counters (`perflua typeperf`, every value of every
--    instance a column).  The SQLite log has its own bench (bench/slog.lua).
-- 3. Reading back: BENCH_HISTORY samples (default 3,600: an hour) of Global on
--    a 1 s clock (build/bench/mklog), read through perflib.open_log with every
--    value formatted (`Sample:evaluate` of each result against the sample
--    before), as a multiple of real time (target >= 1,000x: a day in 86 s).
-- Benchmarks report, tests assert: the exit status is 0 even on a MISS.

local perflib = require "perflib"

local N = math.tointeger(tonumber(os.getenv("BENCH_SAMPLES") or "")) or 200
local HISTORY = math.tointeger(tonumber(os.getenv("BENCH_HISTORY") or "")) or 3600
local clock = perflib.clock

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p " .. dir))
local function size_of(path)
  local f = io.open(path, "rb")
  if not f then return 0 end
  local n = f:seek("end")
  f:close()
  return n
end
local function verdict(ok) return ok and "OK" or "MISS" end

-- 1. recording Global at 1 Hz
local path = dir .. "/global.blg"
local s, q = assert(perflib.collect("Global"))
local blocks, ok = 0, nil
local w = assert(perflib.log_writer(path))
local cpu_collect, cpu_write = 0, 0
for _ = 1, N do
  local c0 = os.clock()
  s = assert(q:collect(s))                      -- refilled in place: no new sample per round
  local c1 = os.clock()
  ok = assert(w:write(s))
  cpu_collect, cpu_write = cpu_collect + (c1 - c0), cpu_write + (os.clock() - c1)
  blocks = blocks + #s:block()
end
assert(ok and w:close())
local per = (cpu_collect + cpu_write) / N
print(("record: Global (%d results) at 1 Hz: collect %.0f us + write %.0f us of CPU a sample = %.3f %% of a core "
  .. "(target < 0.2 %%) %s"):format(#s, cpu_collect / N * 1e6, cpu_write / N * 1e6, per * 100,
  verdict(per < 0.002)))

-- 2. bytes per sample of each format
local size = size_of(path)
local m = assert(perflib.open_log(path))
local info = m:log()
print(("size: binary log %.0f B/sample against the raw block %.0f B/sample (header and %d definitions "
  .. "records in): %.3fx (target < 2x) %s"):format(size / N, blocks / N, info.records - info.samples,
  size / blocks, verdict(size / blocks < 2)))
local list = dir .. "/paths.txt"
local f = assert(io.open(list, "w"))
for _, sp in ipairs(q:specs()) do f:write(sp.path, "\n") end
f:close()
local TP = 20
for _, fmt in ipairs { "CSV", "TSV", "JSON" } do
  local out = dir .. "/global." .. fmt:lower()
  local h1 = dir .. "/one." .. fmt:lower()
  assert(os.execute(("build/perflua typeperf -cf %s -si 0.05 -sc %d -f %s -o %s >/dev/null 2>&1")
    :format(list, TP, fmt, out)))
  assert(os.execute(("build/perflua typeperf -cf %s -si 0.05 -sc 1 -f %s -o %s >/dev/null 2>&1")
    :format(list, fmt, h1)))
  -- (TP samples - 1 sample) / (TP - 1): the header, written once, left out
  local bytes = (size_of(out) - size_of(h1)) / (TP - 1)
  print(("size: typeperf %s %.0f B/sample (%.2fx the raw block)"):format(fmt, bytes, bytes / (blocks / N)))
end

-- 3. reading back a day's worth through open_log, every value formatted
local hist = dir .. "/hour.blg"
assert(os.execute(("build/bench/mklog %s %d %s >/dev/null"):format(hist, HISTORY, list)))
local t0 = clock()
local lm = assert(perflib.open_log(hist))
local lq = lm:query()
for _, sp in ipairs(q:specs()) do assert(lq:add(sp.path)) end
local prev, n, values, into = nil, 0, 0, {}
while true do
  local s1 = lq:collect()
  if not s1 then break end
  for i = 1, #s1 do
    local v = s1:evaluate(prev, i, { into = into[i] })
    into[i] = v
    values = values + v.valid
  end
  prev, n = s1, n + 1
end
local read_s = clock() - t0
local x = n / read_s
print(("read: %d samples of Global (%.0f MB) through open_log, every value formatted: %.0f us/sample, "
  .. "%.0f valid values/sample, %.0fx real time at 1 Hz (target >= 1000x) %s"):format(n, size_of(hist) / 1e6,
  read_s / n * 1e6, values / math.max(n - 1, 1), x, verdict(x >= 1000)))
os.execute("rm -rf " .. dir)
