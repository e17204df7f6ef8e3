-- Backtests (perflib.backtest, `perflua replay`): per rule how often it fired
-- and resolved, time in each state, the first and the longest episodes, and
-- the sweep (thresholds and pending moved), on a hand-written recording whose
-- numbers are worked out below.
local backtest = require "perflib.backtest"
local files = dofile "spec/support/files.lua"


-- one sample every 10 s, t = 0 .. 110
local VALUES = { 10, 95, 95, 95, 95, 50, 50, 95, 95, 50, 50, 50 }
local RULES = [[
R.rule "Hot" { source = "\\Processor Information(_Total)\\% Busy Time",
               when = R.above(90):clears_below(75), pending = "20s" }
R.rule "Cold" { source = "\\Processor Information(_Total)\\% Busy Time", when = R.below(0) }
]]

local function recording(dir, values)
  local lines = { [[{"format":"perflib-recording","version":1,"host":"test","interval":10,]] ..
                  [["sources":[{"path":"\\Processor Information(_Total)\\% Busy Time"}]}]] }
  for k, v in ipairs(values) do
    local t = (k - 1) * 10
    lines[#lines + 1] = ('{"t":%d,"ts":%d,"d":[{"i":["_Total"],"v":[%d]}]}'):format(t, 1700000000 + t, v)
  end
  local path = dir .. "/hot.rec"
  files.write(path, table.concat(lines, "\n") .. "\n")
  return path
end

describe("perflib.backtest", function()
  local dir, remove, rec
  before_each(function() dir, remove = files.tempdir(); rec = recording(dir, VALUES) end)
  after_each(function() remove() end)

  it("counts fires, resolutions, episodes and time in state per rule", function()
    local bt = assert(backtest.run(RULES, rec))
    local hot, cold = bt.rules[1], bt.rules[2]
    assert.equals("Hot", hot.rule)
    -- 95 > 90 from t=10: pending; held 20 s at t=30: firing; 50 < 75 at t=50: resolved.
    -- 95 again at t=70: pending; 50 at t=90 before 20 s: back to inactive, never fired.
    assert.equals(1, hot.fired)
    assert.equals(1, hot.resolved)
    assert.equals(2, hot.episodes)
    assert.equals(1, hot.alerts)
    assert.equals(40, hot.states.pending)          -- (30 - 10) + (90 - 70)
    assert.equals(20, hot.states.firing)           -- 50 - 30
    assert.same({ key = "Hot{instance=_Total}", rule = "Hot", start = 10, fired_at = 30, stop = 50,
                  firing = 20, open = false }, hot.first)
    assert.equals(hot.first, hot.longest)          -- the second episode never fired
    assert.same({ fired = 0, resolved = 0, episodes = 0, alerts = 0 },
                { fired = cold.fired, resolved = cold.resolved, episodes = cold.episodes, alerts = cold.alerts })
    assert.is_nil(cold.first)
  end)

  it("sweeps thresholds and pending, each variant over the same frames", function()
    local bt = assert(backtest.run(RULES, rec))
    local sweep = {}
    for _, v in ipairs(bt.rules[1].sweep) do sweep[#sweep + 1] = { v.label, v.fired, v.firing } end
    assert.same({
      { "as written", 1, 20 },
      { "thresholds -10%", 1, 20 },   -- above 81, clears below 67.5: 95 and 50 fall the same way
      { "thresholds +10%", 0, 0 },    -- above 99: never
      { "pending 10s", 2, 40 },       -- fires at t=20 (until 50) and t=80 (until 90): 30 + 10 s
      { "pending 40s", 0, 0 },        -- 95 holds 40 s from t=10 only until t=40: never
    }, sweep)
    -- Cold has no pending to move and its threshold is 0: -10% and +10% of 0 are both 0
    local cold = {}
    for _, v in ipairs(bt.rules[2].sweep) do cold[#cold + 1] = { v.label, v.fired } end
    assert.same({ { "as written", 0 }, { "thresholds -10%", 0 }, { "thresholds +10%", 0 } }, cold)
    bt = assert(backtest.run(RULES, rec, { pct = 0 }))
    assert.equals(3, #bt.rules[1].sweep)                    -- as written and the two pendings
    bt = assert(backtest.run(RULES, rec, { sweep = false }))
    assert.same({}, bt.rules[1].sweep)
  end)

  it("tells the longest firing from the first episode", function()
    -- 95 from t=10: pending, firing at t=30, 50 at t=40: resolved (10 s firing);
    -- 95 from t=60: pending, firing at t=80, 50 at t=110: resolved (30 s firing)
    rec = recording(dir, { 10, 95, 95, 95, 50, 50, 95, 95, 95, 95, 95, 50 })
    local hot = assert(backtest.run(RULES, rec, { sweep = false })).rules[1]
    assert.same({ 2, 2, 2 }, { hot.fired, hot.resolved, hot.episodes })
    assert.equals(40, hot.states.firing)                     -- 10 + 30
    assert.equals(40, hot.states.pending)                    -- (30 - 10) + (80 - 60)
    assert.same({ key = "Hot{instance=_Total}", rule = "Hot", start = 10, fired_at = 30, stop = 40,
                  firing = 10, open = false }, hot.first)
    assert.same({ key = "Hot{instance=_Total}", rule = "Hot", start = 60, fired_at = 80, stop = 110,
                  firing = 30, open = false }, hot.longest)
  end)

  it("keeps an episode open at the end of the recording", function()
    rec = recording(dir, { 10, 95, 95, 95, 95 })           -- firing from t=30 to the end, t=40
    local hot = assert(backtest.run(RULES, rec)).rules[1]
    assert.equals(1, hot.fired)
    assert.equals(0, hot.resolved)
    assert.same({ key = "Hot{instance=_Total}", rule = "Hot", start = 10, fired_at = 30, stop = 40,
                  firing = 10, open = true }, hot.first)
  end)

  it("formats the report, one block per rule", function()
    local text = backtest.format(assert(backtest.run(RULES, rec)))
    assert.matches("backtest of 2 rule%(s%) over 1m50s %(12 frame%(s%)%)", text)
    assert.matches("\nHot: fired 1, resolved 1, 2 episode%(s%) of 1 alert%(s%)\n", text)
    assert.matches("  first episode: Hot{instance=_Total} from %+10s, firing at %+30s to %+50s, firing 20s\n", text)
    assert.matches("  sweep, fired %(time firing%): as written: 1 %(20s%); thresholds %-10%%: 1 %(20s%); "
      .. "thresholds %+10%%: 0 %(0s%); pending 10s: 2 %(40s%); pending 40s: 0 %(0s%)", text)
  end)

  it("refuses a bad step and reports rules or recordings that cannot be read", function()
    assert.has_error(function() backtest.run(RULES, rec, { pct = 100 }) end,
      "bad argument #3 to 'run' (opts.pct must be a percentage in [0, 100))")
    local bt, msg = backtest.run("R.rule 'X' { sorce = 1 }", rec)
    assert.is_nil(bt)
    assert.matches("rules did not load", msg)
    bt, msg = backtest.run(RULES, dir .. "/none.rec")
    assert.is_nil(bt)
    assert.matches("none.rec", msg)
  end)
end)

describe("perflua replay's backtest", function()
  local dir, remove, rec, rules
  before_each(function()
    dir, remove = files.tempdir()
    rec = recording(dir, VALUES)
    rules = dir .. "/hot.lua"
    files.write(rules, "local R = require 'perflib.rules'\n" .. RULES)
  end)
  after_each(function() remove() end)

  it("prints the backtest after the report, or alone with --summary #lua54", function()
    local out, code = files.run("build/perflua replay " .. rules .. " " .. rec)
    assert.equals(0, code, out)
    assert.matches("timeline %(6 event%(s%)%)", out)
    assert.matches("Hot: fired 1, resolved 1", out)
    out, code = files.run("build/perflua replay --summary --sweep 20 " .. rules .. " " .. rec)
    assert.equals(0, code, out)
    assert.is_nil(out:find("timeline", 1, true))
    assert.matches("^backtest of 2 rule", out)
    assert.matches("thresholds %-20%%: 1 %(20s%)", out)     -- above 72, clears below 60: the same
    out, code = files.run("build/perflua replay --summary --no-sweep " .. rules .. " " .. rec)
    assert.equals(0, code, out)
    assert.is_nil(out:find("sweep", 1, true))
    out, code = files.run("build/perflua replay --sweep 100 " .. rules .. " " .. rec)
    assert.equals(2, code)
    assert.matches("%-%-sweep needs a percentage", out)
  end)
end)
