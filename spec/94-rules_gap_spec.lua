-- Time that was not observed never counts toward `pending` or `keep` (issue 10, item 24).
-- A gap: a sample where the rule's condition was not known (no data, a reset, no rate yet,
-- a missing source), or an interval between two evaluations of the rule longer than 1.5 x
-- the expected one.  A gap restarts a running pending or keep clock at the first sample after
-- it.  Every expected time below is worked out by hand in the comments.
local R = require "perflib.rules"
local E = require "perflib.rules.engine"
local T = require "perflib.rules.test"

local function rules(extra)
  return ([[R.rule "Hot" { source = "s", when = R.above(90), flap = false, %s }]]):format(extra)
end

describe("a gap in the data", function()
  it("restarts pending: 2m pending, samples every minute, two samples without data", function()
    -- t=0, 60: 95 (pending since 0); t=120, 180: no data; t=240..420: 95.
    -- Observed: 0..60, then 240 on.  Restarted at 240, the alert fires at 240 + 120 = 360
    -- (before the fix: at 240, the first sample after the gap, as 240 - 0 >= 120).
    for _, nodata in ipairs { '"unknown"', '"keep"', '{ after = "3 samples", as = "unknown" }' } do
      local res = T.run { rules = rules('pending = "2m", nodata = ' .. nodata), every = "1m",
                          input = { s = "95*2 _*2 95*4" } }
      assert.equals(360, res:first("Hot"), nodata .. "\n" .. res:timeline())
      assert.equals("pending", (res:at("5m", "Hot")))
      assert.equals("firing", (res:at("6m", "Hot")))
    end
  end)

  it("restarts pending when a counter reset hides the rate", function()
    -- R.rate "1m" of a counter growing 600 per minute (10/s): t=0 has no rate yet, t=60..120
    -- rate 10 > 5 (pending since 60); t=180 is a reset (skipped: unknown); t=240: 10 again.
    -- Restarted at 240: fires at 240 + 120 = 360 (before the fix: at 240, as 240 - 60 >= 120).
    local res = T.run { rules = [[R.rule "Fast" { source = "c", value = R.rate "1m", when = R.above(5),
                                    pending = "2m", flap = false }]],
                        every = "1m", input = { c = "0+600*3 ! 0+600*5" } }
    assert.equals(60, res:first("Fast", nil, "pending"))
    assert.equals(360, res:first("Fast"), res:timeline())
  end)

  it("restarts pending with a sustain ratio, where the window would otherwise forget the gap", function()
    -- pending 2m, sustain 0.5, every 1m.  t=0: 95 (pending); t=60: 10 (1 false, allowed:
    -- 1 <= 0.5 x 120/60); t=120, 180: no data; t=240: 95.  Before the fix the window (t > 120)
    -- held only t=240, 240 - 0 >= 120, ratio 1/1: fired at 240 on one observed sample.
    -- Restarted at 240: 240, 300, 360 true, fires at 360.
    local res = T.run { rules = rules('pending = "2m", sustain = R.ratio(0.5), nodata = "keep"'), every = "1m",
                        input = { s = "95 10 _*2 95*3" } }
    assert.equals(360, res:first("Hot"), res:timeline())
  end)

  it("restarts keep: a cleared alert resolves only after keep of observed clear time", function()
    -- keep 2m, every 1m.  t=0, 60: 95 (firing at 0); t=120: 10 (recovering, clear since 120);
    -- t=180, 240: no data (kept); t=300..480: 10.  Restarted at 300: resolved at 300 + 120 = 420
    -- (before the fix: at 300, as 300 - 120 >= 120).
    local res = T.run { rules = rules('keep = "2m", nodata = "keep"'), every = "1m",
                        input = { s = "95*2 10 _*2 10*4" } }
    assert.equals(0, res:first("Hot"))
    assert.equals(120, res:first("Hot", nil, "recovering"))
    assert.equals(420, res:first("Hot", nil, "resolved"), res:timeline())
  end)

  it("a first sample after a gap that does not meet the condition ends pending", function()
    -- t=0, 60: 95 (pending 2m); t=120: no data; t=180: 10 -> inactive; never fires.
    local res = T.run { rules = rules('pending = "2m", nodata = "keep"'), every = "1m",
                        input = { s = "95*2 _ 10 95" } }
    assert.equals("inactive", (res:at("3m", "Hot")))
    assert.is_true(res:never("Hot"))
  end)

  it("nodata = \"alert\" counts no data as the condition met: not a gap", function()
    -- pending 2m: t=0, 60: 95; t=120, 180: no data taken as met; fires at 120 (120 - 0 >= 120).
    local res = T.run { rules = rules('pending = "2m", nodata = "alert"'), every = "1m",
                        input = { s = "95*2 _*2 95" } }
    assert.equals(120, res:first("Hot"), res:timeline())
  end)
end)

-- Frames of one instance "a" of source "s".
local function frame(v)
  return { s = { instances = { "a" }, value = { a = v }, status = { a = "valid" } } }
end

local function feed_all(eng, steps)
  local fired, resolved
  for _, st in ipairs(steps) do
    for _, ev in ipairs(eng:feed(st[1], frame(st[2]))) do
      if ev.to == "firing" and not fired then fired = ev.t end
      if ev.to == "resolved" and not resolved then resolved = ev.t end
    end
  end
  return fired, resolved
end

describe("a gap in time (a late sample)", function()
  it("is an evaluation interval beyond 1.5 x the expected one", function()
    assert.is_nil(E.gap_limit(nil, nil))
    assert.near(15, E.gap_limit(nil, 10), 1e-6)          -- every sample: 1.5 x 10
    assert.near(27, E.gap_limit(10, 9), 1e-6)            -- every 10s on 9s samples: every 18s, 1.5 x 18
    assert.near(90, E.gap_limit(60, 10), 1e-6)           -- every 60s on 10s samples: 1.5 x 60
    assert.near(15, E.gap_limit(5, 10), 1e-6)            -- every shorter than the interval: each sample
  end)

  for _, bank in ipairs { true, false } do
    it(("restarts pending (%s)"):format(bank and "rule bank" or "Lua path"), function()
      -- interval 10s, pending 30s: 95 at 0, 10, 20 (pending since 0); the next sample at 60
      -- (40s later: > 15, a gap).  Restarted at 60, fires at 90 (before: at 60, 60 - 0 >= 30).
      local set = assert(R.load(rules 'pending = "30s"'))
      local eng = E.new(set, { interval = 10, bank = bank })
      local fired = feed_all(eng, { { 0, 95 }, { 10, 95 }, { 20, 95 }, { 60, 95 }, { 70, 95 }, { 80, 95 },
                                    { 90, 95 } })
      assert.equals(90, fired)
      -- without a known interval only samples without data are gaps: fires at 60
      eng = E.new(set, { bank = bank })
      fired = feed_all(eng, { { 0, 95 }, { 10, 95 }, { 20, 95 }, { 60, 95 } })
      assert.equals(60, fired)
    end)

    it(("restarts keep (%s)"):format(bank and "rule bank" or "Lua path"), function()
      -- interval 10s, keep 60s: 95 at 0 (firing); 50 at 10 (recovering, clear since 10), 20;
      -- the next sample at 50 (30s later, a gap): clear since 50; resolved at 110 (before: at 70).
      local set = assert(R.load(rules 'keep = "60s"'))
      local eng = E.new(set, { interval = 10, bank = bank })
      local steps = { { 0, 95 }, { 10, 50 }, { 20, 50 }, { 50, 50 } }
      for t = 60, 120, 10 do steps[#steps + 1] = { t, 50 } end
      local fired, resolved = feed_all(eng, steps)
      assert.equals(0, fired)
      assert.equals(110, resolved)
      if bank then assert.is_true(eng.recs[1].fast, "the rule bank took the rule") end
    end)
  end
end)
