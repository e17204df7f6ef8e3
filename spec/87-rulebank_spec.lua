-- The rule bank (C fast path) against the Lua engine alone: the same rules over the same
-- frames give the same events, states and exported state, whatever the instances do
-- (gaps, resets, vanishing, new ones, a missing source, first samples).
local C = require "spec.support.compat"
local R = require "perflib.rules"
local E = require "perflib.rules.engine"
local core = require "perflib.core"

local seed
local function rnd()
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
end

-- Rules of every kind the bank takes, and some it does not (aggregates, functions, duplicates).
local function rule_set()
  local set = R.new()
  local P = "\\Set(*)\\C"
  local kinds = {
    { value = R.last(), when = R.above(70):clears_below(50) },
    { value = R.avg "30s", when = R.above(60):clears_below(55), pending = "20s" },
    { value = R.min "20s", when = R.below(30):clears_above(40), keep = "30s" },
    { value = R.max "40s", when = R.above(90) },
    { value = R.pct(90, "30s"), when = R.above(80):clears_below(70), pending = "10s", keep = "10s" },
    { value = R.avg "1m", levels = { warn = R.above(50):clears_below(40), crit = R.above(75):clears_below(65) } },
    { value = R.last(), levels = { warn = R.below(40), crit = R.below(20):clears_above(25) }, keep = "20s" },
    { value = R.avg "30s", when = R.below(45), sustain = R.ratio(0.6), pending = "30s" },
    { value = R.rate "30s", when = R.above(4):clears_below(2), reset = "unknown" },
    { value = R.increase "20s", when = R.above(50) },
    { value = R.raw(), when = R.above(5000) },
    { value = R.last(), when = R.above(60), flap = R.flap { window = 5, high = 0.5, low = 0.3 } },
    { value = R.last(), when = R.above(65), flap = false, nodata = "resolve", vanish = "keep" },
    { value = R.last(), when = R.above(55), nodata = { after = "2 samples", as = "alert" }, vanish = "unknown" },
    { value = R.max "20s", when = R.above(80), nodata = "keep", vanish = "alert", every = "20s" },
    { value = R.last(), when = R.above(60), instances = "^i0[0-3]$" },
    { value = R.last(), when = R.above(50), instances = "^i02$" },
    { value = R.last(), when = R.above(50), exclude = "^i01$" },
    { value = R.avg "20s", when = R.above(60), per = R.any() },
    { value = R.last(), when = R.above(50), per = R.share(0.5) },
    { value = R.last(), when = function(ctx) return ctx.value > 60 end },
  }
  for k, def in ipairs(kinds) do
    def.source = P
    def.message = "{instance} {value:%.2f} {severity}"
    assert(set:rule(("K%02d"):format(k))(def))
  end
  return set
end

-- Instance i's value at step n: a wave with noise; a counter for the raw source.
local function scenario(steps)
  local frames = {}
  local present, counter = {}, {}
  for i = 1, 8 do present[i], counter[i] = true, 1000 * i end
  for n = 1, steps do
    local cooked = { instances = {}, value = {}, status = {} }
    local raw = { instances = {}, value = {}, status = {} }
    -- now and then an instance vanishes or comes (back)
    if rnd() < 0.05 then local i = 1 + math.floor(rnd() * 8); present[i] = not present[i] end
    for i = 1, 8 do
      if present[i] then
        local name = ("i%02d"):format(i)
        cooked.instances[#cooked.instances + 1] = name
        raw.instances[#raw.instances + 1] = name
        local r = rnd()
        local v = 50 + 40 * math.sin((n + 5 * i) / (3 + i)) + (rnd() - 0.5) * 20
        counter[i] = counter[i] + math.floor(rnd() * 100)
        if r < 0.04 then
          cooked.status[name], raw.status[name] = "no_data", "no_data"
        elseif r < 0.06 then
          counter[i] = math.floor(rnd() * 50)
          cooked.status[name] = "negative_delta"
          raw.value[name], raw.status[name] = counter[i], "reset"
        elseif r < 0.07 then
          cooked.status[name] = "first_sample"
          raw.value[name], raw.status[name] = counter[i], "valid"
        else
          cooked.value[name], cooked.status[name] = v, "valid"
          raw.value[name], raw.status[name] = counter[i], "valid"
        end
      end
    end
    local frame = {}
    if rnd() > 0.03 then frame["\\Set(*)\\C"] = cooked end     -- now and then the source is missing
    frame["raw:\\Set(*)\\C"] = raw
    frames[n] = frame
  end
  return frames
end

local function strip(evs)
  for _, ev in ipairs(evs) do ev.t = ev.t + 0.0 end
  return evs
end

describe("perflib.rules rule bank", function()
  for _, s in ipairs { 1, 7, 42, 99 } do
    it(("gives what the Lua engine gives (seed %d)"):format(s), function()
      seed = s
      local frames = scenario(400)
      local set = rule_set()
      local fast, slow = E.new(set), E.new(set, { bank = false })
      assert.is_nil(slow.bank)
      local took, kinds = {}, {}
      for n, frame in ipairs(frames) do
        local t = (n - 1) * 5.0
        local a, b = strip(fast:feed(t, frame)), strip(slow:feed(t, frame))
        assert.same(b, a)
        for _, ev in ipairs(a) do
          local k = ev.kind == "transition" and (ev.from .. ">" .. ev.to) or ev.kind
          kinds[k] = (kinds[k] or 0) + 1
        end
        for i, rs in ipairs(fast.recs) do if rs.fast then took[i] = true end end
        if n % 50 == 0 then assert.same(slow:export_state(), fast:export_state()) end
      end
      assert.same(slow:export_state(), fast:export_state())
      for _, rule in ipairs(set:list()) do
        assert.same({ slow:explain(rule.name) }, { fast:explain(rule.name) })
      end
      -- the bank took the per-instance threshold rules (and only those)
      local n = 0
      for i in pairs(took) do
        n = n + 1
        local rule = set:list()[i]
        assert.equal("instance", rule.per)
        assert.is_nil(rule.levels[1].fn)
      end
      assert.is_true(n >= 15, "the bank took " .. n .. " rules")
      -- and the run went through the whole state machine
      for _, k in ipairs { "inactive>pending", "pending>firing", "inactive>firing", "firing>recovering",
                           "recovering>firing", "recovering>resolved", "firing>resolved", "resolved>inactive",
                           "inactive>unknown", "unknown>inactive", "firing>firing", "flap_start", "flap_end" } do
        assert.is_true((kinds[k] or 0) > 0, "no " .. k .. " events")
      end
    end)
  end

  for _, s in ipairs { 3, 11 } do
    it(("gives what the Lua engine gives with late samples, gaps restarting pending and keep (seed %d)")
      :format(s), function()
      seed = s
      local frames = scenario(400)
      local set = rule_set()
      local fast, slow = E.new(set, { interval = 5 }), E.new(set, { bank = false, interval = 5 })
      local t, gaps = 0.0, 0
      for _, frame in ipairs(frames) do
        -- mostly every 5 s; now and then a late sample (10 to 25 s: a gap beyond 1.5 x 5 s)
        local late = rnd() < 0.08
        t = t + (late and 5.0 * (2 + math.floor(rnd() * 4)) or 5.0)
        if late then gaps = gaps + 1 end
        assert.same(strip(slow:feed(t, frame)), strip(fast:feed(t, frame)))
      end
      assert.is_true(gaps > 10)
      assert.same(slow:export_state(), fast:export_state())
    end)
  end

  it("keeps rules that flip between the paths exact across a reload", function()
    seed = 5
    local frames = scenario(120)
    local set = rule_set()
    local fast, slow = E.new(set), E.new(set, { bank = false })
    for n = 1, 60 do fast:feed(n * 5.0, frames[n]); slow:feed(n * 5.0, frames[n]) end
    local fast2, slow2 = E.new(set), E.new(set, { bank = false })
    assert.same(slow2:import_state(slow:export_state()), fast2:import_state(fast:export_state()))
    for n = 61, 120 do
      assert.same(strip(slow2:feed(n * 5.0, frames[n])), strip(fast2:feed(n * 5.0, frames[n])))
    end
    assert.same(slow2:export_state(), fast2:export_state())
  end)
end)

describe("perflib.RuleBank misuse", function()
  it("raises for out-of-range rules and malformed registrations", function()
    local bank = core.rulebank(2)
    assert.has_error(function() core.rulebank(-1) end, "bad argument #1 to 'rulebank' (rule count out of range)")
    assert.has_error(function() bank:drop(3) end, "bad argument #1 to 'drop' (rule index out of range)")
    assert.has_error(function() bank:set(1, { sid = 1 }) end, "rulebank: bad source id")
    local sid = bank:source "k"
    assert.equal(sid, bank:source "k")                    -- one id per key
    local ok = { sid = sid, fn = "last", levels = { { up = true, x = 1 } }, names = { "a" },
                 wins = { core.window(0) }, latch = { 0 }, mode = { 0 }, flaps = { false }, flapping = { false } }
    bank:set(1, ok)
    local bad = {}
    for k, v in pairs(ok) do bad[k] = v end
    bad.fn = "median"
    assert.has_error(function() bank:set(1, bad) end, "rulebank: bad value function")
    bad.fn, bad.levels = "last", {}
    assert.has_error(function() bank:set(1, bad) end, "rulebank: 1 to 16 levels")
    bad.levels, bad.wins = ok.levels, { "not a window" }
    assert.has_error(function() bank:set(1, bad) end, "rulebank: entry 1 needs a name and a perflib.Window")
    bad.wins, bad.latch = ok.wins, {}
    assert.has_error(function() bank:set(1, bad) end, "rulebank: field 'latch' must be a list of 1")
    assert.has_error(function() bank:quiet(1, 2, 0) end, "bad argument #2 to 'quiet' (entry index out of range)")
    assert.has_error(function() bank:quiet(1, 1, 5) end, "bad argument #3 to 'quiet' (mode must be 0 to 3)")
  end)
end)

describe("perflib.Window", function()
  it("reduces as the formulas say", function()
    local w = core.window(30, false, "avg")
    for t = 0, 60, 10 do w:push(t, C.idiv(t, 10)) end         -- 0..6; keeps (30, 60]: 4 5 6
    assert.equal(3, #w)
    assert.equal(5.0, w:reduce("avg", 30, 0, 60))
    assert.equal(4.0, w:reduce("min", 30, 0, 60))
    assert.equal(6.0, w:reduce("max", 30, 0, 60))
    assert.equal(6.0, w:reduce("last", 0, 0, 60))
    assert.near(5.8, w:reduce("pct", 30, 90, 60), 1e-12)  -- position 0.9 * 2 + 1 = 2.8
    assert.is_nil(w:reduce("avg", 30, 0, 200))          -- nothing after 170
  end)

  it("never counts the interval of a reset, and keeps 64-bit counters exact #lua53", function()
    local w = core.window(100, true)
    assert.is_false(w:push(0, 100))
    assert.is_false(w:push(10, 200))
    assert.is_true(w:push(20, 50))                      -- went backwards
    assert.is_false(w:push(30, 150))
    assert.equal(200.0, w:reduce("increase", 100, 0, 30))  -- 100 + 100, the reset left out
    assert.equal(10.0, w:reduce("rate", 100, 0, 30))
    local big = core.window(100, true)
    big:push(0, math.maxinteger - 5)
    big:push(10, math.mininteger + 4)                   -- unsigned: up by 10, not a reset
    assert.equal(10.0, big:reduce("increase", 100, 0, 10))
    local e = big:export()
    assert.same({ math.maxinteger - 5, math.mininteger + 4 }, e.v)
    assert.equal("integer", C.math_type(e.v[2]))
  end)

  it("cooks: statuses and gaps become reasons, not numbers", function()
    local w = core.window(60, false, "avg")
    assert.same({ 5.0 }, { w:cook(0, 5, "valid", "avg", 60, 0) })
    assert.same({ nil, "no_data" }, { w:cook(10, nil, "no_data", "avg", 60, 0) })
    assert.same({ nil, "reset" }, { w:cook(20, nil, "negative_delta", "avg", 60, 0) })
    assert.same({ nil, "first_sample" }, { w:cook(30, nil, "first_sample", "avg", 60, 0) })
    assert.same({ 6.0 }, { w:cook(40, 7, nil, "avg", 60, 0) })
    local r = core.window(60, true)
    assert.same({ nil, "first_sample" }, { r:cook(0, 10, "valid", "rate", 60, 0) })
    assert.same({ 1.0 }, { r:cook(10, 20, "valid", "rate", 60, 0) })
    assert.same({ nil, "reset" }, { r:cook(20, 5, "valid", "rate", 60, 0) })
  end)

  it("rejects misuse by argument", function()
    local w = core.window(10)
    assert.has_error(function() w:reduce("median", 10, 0, 0) end,
      "bad argument #1 to 'reduce' (unknown value function 'median')")
    assert.has_error(function() w:push(0, "x") end)
    assert.has_error(function() core.window(10, false, "nope") end)
  end)
end)

describe("perflib.Flap", function()
  it("weighs changes from 0.8 (oldest) to 1.2 (newest) over window - 1", function()
    local f = core.flap(5)
    assert.same({}, { f:step(true, 0.5, 0.3, false) })   -- one bit: no share yet
    local pct = f:step(false, 0.5, 0.3, false)          -- one change, newest position 3 of 4
    assert.near((0.8 + 0.4 * (3 / 3)) / 4, pct, 1e-12)
    local p2, change = f:step(true, 0.5, 0.3, false)
    assert.near(((0.8 + 0.4 * 2 / 3) + (0.8 + 0.4 * 3 / 3)) / 4, p2, 1e-12)
    assert.equal("start", change)
    assert.same({ true, false, true }, f:bits())
    for _ = 1, 5 do f:step(true, 0.5, 0.3, true) end
    assert.is_true(f:steady(true))
    assert.equal(0.0, f:pct())
    assert.same({ true, true, true, true, true }, core.flap(5, f:bits()):bits())
    assert.has_error(function() core.flap(1) end)
  end)
end)
