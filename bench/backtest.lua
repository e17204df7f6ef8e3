--- make bench: a backtest of the default rules (examples/rules/default.lua)
-- over a day of 1 Hz history (issue 15, "Speed and size": under 10 s).
--
-- The history is this machine's: 120 real samples of the default rules'
-- sources, recorded with perflib.record and repeated on a 1 s clock for
-- BENCH_FRAMES frames (default 8,640: 2.4 hours, scaled to a day in the
-- verdict), so the frames have real instances and values.  Then
-- perflib.backtest.run reads it in one pass: the replay report and every variant
-- of the sweep.  Benchmarks report, tests assert: the exit status is 0 even on
-- a MISS.  Environment: BENCH_FRAMES (default 8640; 86400 for a whole day).
local perflib = require "perflib"
local R = require "perflib.rules"
local E = require "perflib.rules.engine"
local record = require "perflib.record"
local backtest = require "perflib.backtest"

local FRAMES = math.tointeger(tonumber(os.getenv("BENCH_FRAMES") or "")) or 8640
local TARGET = 10.0           -- seconds for a day
local RULES = "examples/rules/default.lua"

print("# reproduce: make bench   (or, after make all:)")
print("#   LUA_PATH_5_4='./lua/?.lua;./lua/?/init.lua;;' LUA_CPATH_5_4='./build/?.so;;' lua5.4 bench/backtest.lua")

local set = assert(R.load(RULES))
local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p " .. dir))
local path = dir .. "/day.rec"
local rec = assert(record.open(path, E.new(set):sources(), { force = true, interval = 1 }))
local real, s0 = {}, nil
for k = 1, 120 do
  local s1 = assert(rec.query:collect())
  if s0 then real[#real + 1] = record.frame(s1, s0, rec.index) end
  s0 = s1
  if k < 120 then perflib.sleep(0.01) end
end
local w0 = perflib.clock()
local ts0 = os.time()
for k = 1, FRAMES do
  assert(rec:write_frame(k - 1, real[(k - 1) % #real + 1], ts0 + k - 1, k))
end
rec:close()
local f = assert(io.open(path))
local bytes = f:seek("end")
f:close()
print(("history: %d frames of %d sources, %.1f MB, written in %.1f s"):format(FRAMES, #rec.paths, bytes / 1e6,
  perflib.clock() - w0))

local c0, t0 = os.clock(), perflib.clock()
local bt = assert(backtest.run(set, path))
local wall, cpu = perflib.clock() - t0, os.clock() - c0
local variants = 0
for _, r in ipairs(bt.rules) do variants = variants + #r.sweep end
print(("backtest: %d rules (%d sweep variants) over %d frames: %.2f s wall, %.2f s CPU, %.0fx real time"):format(
  #bt.rules, variants, bt.report.frames, wall, cpu, FRAMES / wall))
print(("%s backtest of a day of 1 Hz history (scaled from %d frames): %.2f s (target < %.0f s)"):format(
  wall * 86400 / FRAMES < TARGET and "PASS" or "MISS", FRAMES, wall * 86400 / FRAMES, TARGET))
os.remove(path)
os.remove(dir)
