--- make bench: SQLite logs (issue 15 item 2) of the default "Global" collection
-- of this machine: bytes per sample of the database (after the writer's
-- closing checkpoint, so the WAL is in it) against the raw extended data block
-- (`s:block()`, what a Records DATA row holds), with PDH's CounterDetails and
-- CounterData rows (rows = true, the default) and without them (rows =
-- false), and the cost of writing a sample (one transaction each, WAL,
-- synchronous=NORMAL) as a share of one core at 1 Hz.  BENCH_SAMPLES samples
-- (default 200) are collected back to back and written to a database in a
-- temporary directory (removed at the end).  Reading back is open_log's
-- (bench/blog.lua reads the binary log).
-- Benchmarks report, tests assert: the exit status is 0 even on a MISS.

local perflib = require "perflib"

local N = math.tointeger(tonumber(os.getenv("BENCH_SAMPLES") or "")) or 200
local clock = perflib.clock

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p " .. dir))

local s, q = assert(perflib.collect("Global"))

-- N samples written to a fresh database: bytes of the raw blocks, of the file, write seconds, rows
local function run(rows)
  local path = dir .. (rows and "/rows.db" or "/norows.db")
  local blocks, write_s = 0, 0
  local w = assert(perflib.log_writer(path, { rows = rows }))
  for _ = 1, N do
    s = assert(q:collect(s))                    -- refilled in place: no new sample per round
    blocks = blocks + #s:block()
    local t0 = clock()
    assert(w:write(s))
    write_s = write_s + (clock() - t0)
  end
  assert(w:close())
  local f = assert(io.open(path, "rb"))
  local size = f:seek("end")
  f:close()
  -- CounterData rows a sample (the sqlite3 tool, when there is one)
  local p = io.popen("sqlite3 " .. path .. " 'SELECT count(*) FROM CounterData' 2>/dev/null")
  local nrows = tonumber(p and p:read "a" or "") or 0
  if p then p:close() end
  return blocks, size, write_s, nrows // N
end

for _, rows in ipairs { true, false } do
  local blocks, size, write_s, nrows = run(rows)
  local us = write_s / N * 1e6
  print(("slog: Global, %d results, %d samples, rows %s: raw block %.0f B/sample, database %.0f B/sample "
    .. "(ratio %.2fx; %d CounterData rows/sample)"):format(#s, N, tostring(rows), blocks / N, size / N,
    size / blocks, nrows))
  print(("slog: write %.1f us/sample, %.3f %% of a core at 1 Hz (one transaction per sample)")
    :format(us, us / 1e6 * 100))
end
os.execute("rm -rf " .. dir)
