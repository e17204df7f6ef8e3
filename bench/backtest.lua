--- make bench: a backtest of the default rules (examples/rules/default.lua)
-- over a day of 1 Hz history (issue 15, "Speed and size": under 10 s).
--
-- The history is a binary log of this machine's samples of the default rules'
-- sources: build/bench/mklog collects 120 real samples and writes them again
-- and again on a 1 s clock, BENCH_FRAMES of them (default 86,400: a day), so
-- the log has real instances and values.  Then perflib.backtest.run reads it
-- in one pass through perflib.open_log (the rules' frames computed from the
-- logged raw samples, as perflua monitor computes them live): the replay
-- report and every variant of the sweep.  Benchmarks report, tests assert:
-- the exit status is 0 even on a MISS.  Environment: BENCH_FRAMES.
local perflib = require "perflib"
local R = require "perflib.rules"
local E = require "perflib.rules.engine"
local backtest = require "perflib.backtest"

local FRAMES = math.tointeger(tonumber(os.getenv("BENCH_FRAMES") or "")) or 86400
local TARGET = 10.0           -- seconds for a day
local RULES = "examples/rules/default.lua"

print("# reproduce: make bench   (or, after make all build/bench/mklog:)")
print("#   LUA_PATH_5_4='./lua/?.lua;./lua/?/init.lua;;' LUA_CPATH_5_4='./build/?.so;;' lua5.4 bench/backtest.lua")

local set = assert(R.load(RULES))
local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p " .. dir))
local path, list = dir .. "/day.blg", dir .. "/paths.txt"
local f = assert(io.open(list, "w"))
local sources = E.new(set):sources()
for _, src in ipairs(sources) do f:write(src.path, "\n") end
f:close()
local w0 = perflib.clock()
assert(os.execute(("build/bench/mklog %s %d %s >/dev/null"):format(path, FRAMES, list)))
f = assert(io.open(path, "rb"))
local bytes = f:seek("end")
f:close()
print(("history: %d samples of %d sources, %.1f MB binary log, made in %.1f s"):format(FRAMES, #sources,
  bytes / 1e6, perflib.clock() - w0))

local c0, t0 = os.clock(), perflib.clock()
local bt = assert(backtest.run(set, path))
local wall, cpu = perflib.clock() - t0, os.clock() - c0
local variants = 0
for _, r in ipairs(bt.rules) do variants = variants + #r.sweep end
print(("backtest: %d rules (%d sweep variants) over %d frames: %.2f s wall, %.2f s CPU, %.0fx real time"):format(
  #bt.rules, variants, bt.report.frames, wall, cpu, FRAMES / wall))
print(("%s backtest of a day of 1 Hz history (scaled from %d frames): %.2f s (target < %.0f s)"):format(
  wall * 86400 / FRAMES < TARGET and "PASS" or "MISS", FRAMES, wall * 86400 / FRAMES, TARGET))
os.execute("rm -rf " .. dir)
