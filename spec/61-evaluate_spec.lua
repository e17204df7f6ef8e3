-- Bulk evaluation (s1:evaluate), statistics over raw series, and the
-- formatting options on samples.
local perflib = require "perflib"
local C = require "spec.support.compat"

local FIX = "spec/fixtures/"

-- one query, two trees: copy basic, collect, copy basic2 over it, collect
local function pair(spec)
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute(("cp -r %sbasic %s"):format(FIX, dir)))
  local q = perflib.query { root = dir }
  q:add(spec)
  local s0 = q:collect()
  assert(os.execute(("cp %sbasic2/proc/stat %s/proc/stat"):format(FIX, dir)))
  local s1 = q:collect()
  os.execute("rm -rf " .. dir)
  return s1, s0, q
end

describe("Sample:evaluate", function()
  it("formats a whole result in one call, by counter and instance", function()
    local s1, s0 = pair "\\Processor Information(*)\\% Busy Time"
    local v = s1:evaluate(s0)
    assert.same({ "0,0", "0,1", "0,_Total", "_Total" }, v.instances)
    assert.same({ 0, 1, 0xFFFF0000, 0xFFFFFFFE }, v.ids)
    assert.same({ "% Busy Time" }, v.counters)
    assert.equals(v[1], v["% Busy Time"])
    -- basic -> basic2, cpu0: 1000 ticks, idle +500, iowait +20: 100*(1000-520)/1000
    assert.near(48.0, v[1][1], 1e-9)
    -- cpu1: idle +350, iowait +10: 100*(1000-360)/1000
    assert.near(64.0, v[1][2], 1e-9)
    -- _Total: 2000 ticks, idle+iowait +880
    assert.near(56.0, v[1][v.index._Total], 1e-9)
    if C.integers then assert.equals("float", C.math_type(v[1][1])) end
    assert.equals(4, v.valid)
    assert.same({}, v.status)
  end)

  it("agrees with the value-by-value iterator", function()
    local s1, s0 = pair "\\Processor Information(*)\\*"
    local v = s1:evaluate(s0, 1, { nocap = true })
    local cix = {}
    for c, name in ipairs(v.counters) do cix[name] = c end
    local n, bad = 0, 0
    for inst, value, status, counter in s1:formatted(s0, { nocap = true }) do
      local i, c = v.index[inst], cix[counter]
      assert.equals(value, v[c][i])
      if status == "valid" then
        assert.is_nil(v.status[c] and v.status[c][i])
      else
        assert.equals(status, v.status[c][i])
        bad = bad + 1
      end
      n = n + 1
    end
    assert.is_true(bad > 0)      -- basic has no C-state files: those are no_data
    assert.equals(#v.instances * #v.counters, n)
  end)

  it("puts statuses where values are missing", function()
    local q = perflib.query { root = FIX .. "basic" }
    q:add "\\Processor Information(*)\\% Busy Time"
    local v = q:collect():evaluate()
    assert.equals(0, v.valid)
    assert.is_nil(v[1][1])
    assert.equals("first_sample", v.status[1][1])
    assert.equals("first_sample", v.status[1][4])
  end)

  it("reports a failed result", function()
    local q = perflib.query { root = FIX .. "basic" }
    q:add "\\Processor Information(7,7)\\% Busy Time"
    local v = q:collect():evaluate()
    assert.equals("no_instance", v.error)
    assert.same({}, v.instances)
  end)

  it("rejects bad arguments", function()
    local s1, s0 = pair "\\Processor Information(*)\\% Busy Time"
    assert.has_error(function() s1:evaluate(s0, 2) end, "bad argument #2 to 'evaluate' (no such result index)")
    assert.has_error(function() s0:evaluate(s1) end)
    assert.has_error(function() s1:evaluate(s0, 1, { scale = 11 }) end)
    assert.has_error(function() s1:evaluate(s0, 1, { bogus = 1 }) end, "evaluate: unknown option 'bogus'")
  end)
end)

describe("formatting options on samples", function()
  it("overrides each counter's default scale", function()
    local q = perflib.query { root = FIX .. "basic" }
    local la = q:add "\\System\\Load Average 1 min"
    local s = q:collect()
    -- raw 38 hundredths, default scale -2
    assert.near(0.38, (s:format(nil, la)), 1e-12)
    assert.equals(38.0, (s:format(nil, la, nil, nil, { noscale = true })))
    assert.near(3.8, (s:format(nil, la, nil, nil, { scale = -1 })), 1e-12)
    assert.near(380.0, (s:format(nil, la, nil, nil, { x1000 = true })), 1e-9)
    for _, v in s:formatted(nil, { scale = 0 }) do assert.equals(38.0, v) end
  end)
end)

describe("perflib.statistics", function()
  local B = "PERF_COUNTER_BULK_COUNT"
  it("gives min, max and mean of a one-sample series", function()
    -- 2, 4, 9 -> min 2, max 9, mean 15/3
    local st = perflib.statistics("PERF_COUNTER_LARGE_RAWCOUNT", { 2, 4, 9 })
    assert.same({ min = 2.0, max = 9.0, mean = 5.0, count = 3 }, st)
  end)

  it("formats rates pair by pair, from a ring buffer", function()
    -- oldest at index 2: (0, 0 s), (10, 1 s), (40, 2 s), then (100, 3 s) at index 1
    -- rates 10, 30, 60 per second
    local raws = { { value = 100, time = 30000000 }, { value = 0, time = 0 },
                   { value = 10, time = 10000000 }, { value = 40, time = 20000000 } }
    local st = perflib.statistics(B, raws, { first = 2 })
    assert.near(10, st.min, 1e-9)
    assert.near(60, st.max, 1e-9)
    assert.near(100 / 3, st.mean, 1e-9)
    assert.equals(3, st.count)
    assert.equals("integer", C.math_type(st.count))
  end)

  it("leaves out values that are not valid, and says why when none is", function()
    -- a reset between the first two: only 10 -> 30 over 1 s counts
    local st = perflib.statistics(B, { { value = 50, time = 0 }, { value = 10, time = 10000000 },
                                       { value = 30, time = 20000000 } })
    assert.equals(1, st.count)
    assert.near(20, st.mean, 1e-9)
    assert.same({ nil, "first_sample" }, { perflib.statistics(B, { 5 }) })
    assert.same({ nil, "unsupported_type" }, { perflib.statistics("PERF_COUNTER_TEXT", { 1, 2 }) })
  end)

  it("rejects bad input", function()
    assert.has_error(function() perflib.statistics(B, {}) end)
    assert.has_error(function() perflib.statistics(B, { 1.5 }) end)
    assert.has_error(function() perflib.statistics(B, { 1, "x" }) end)
    assert.has_error(function() perflib.statistics(B, { 1, 2 }, { first = 3 }) end)
    assert.has_error(function() perflib.statistics(B, { 1, 2 }, { bogus = 1 }) end,
      "statistics: unknown option 'bogus'")
    assert.has_error(function() perflib.statistics("NOPE", { 1 }) end)
  end)
end)

describe("Sample:evaluate into", function()
  it("refills the same tables when instances and counters are unchanged", function()
    local s1, s0, q = pair "\\Processor Information(*)\\% Busy Time"
    local v = s1:evaluate(s0)
    local col = v[1]
    local s2 = q:collect()
    local w = s2:evaluate(s1, 1, { into = v })
    assert.equals(v, w)
    assert.equals(col, w[1])
    -- the same files again: no ticks passed on the private clock
    assert.is_nil(w[1][1])
    assert.equals("zero_interval", w.status[1][1])
    assert.equals(0, w.valid)
    -- a table of another result is not reused
    local q2 = perflib.query { root = FIX .. "basic" }
    q2:add "\\Memory\\Available Bytes"
    local m = q2:collect():evaluate(nil, 1, { into = v })
    assert.are_not.equal(v, m)
    assert.has_error(function() s2:evaluate(s1, 1, { into = 5 }) end)
    q:close()
  end)
end)
