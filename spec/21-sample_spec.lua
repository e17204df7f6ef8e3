-- Samples: timestamps, raw values, formatted values with statuses, the
-- result shapes, and the checks on sample pairs.
local perflib = require "perflib"
local C = require "spec.support.compat"

local FIX = "spec/fixtures/basic"

describe("Sample", function()
  it("carries timestamps like PERF_DATA_HEADER", function()
    local q = perflib.query { root = FIX }
    local t0 = os.time()
    local s1 = q:collect()
    local s2 = q:collect()
    assert.equals(1, s1.seq)
    assert.equals(2, s2.seq)
    assert.equals(10000000, s1.freq)
    assert.equals("integer", C.math_type(s1.time))
    assert.is_true(s2.time >= s1.time)
    -- 100 ns units since 1601: 11644473600 s before the Unix epoch
    assert.equals("integer", C.math_type(s1.time100ns))
    assert.is_true(math.abs(s1.time100ns / 1e7 - 11644473600 - t0) < 5)
    assert.is_true(math.abs(s1.timestamp - t0) < 5)
    assert.equals("perflib.Sample (#1, 0 results)", tostring(s1))
    assert.equals(0, #s1)
  end)

  it("returns raw values as integers, with bases", function()
    local q = perflib.query { root = FIX }
    local i = q:add "\\Processor Information(*)\\% Busy Time"
    local s = q:collect()
    -- cpu0: 4556 0 5246 59211 101 0 68 7 -> base 69189 ticks, busy 69189-59211-101 = 9877
    local v, b = s:value(i, "0,0")
    assert.equals(9877 * 100000, v)
    assert.equals(69189 * 100000, b)
    assert.equals("integer", C.math_type(v))
    -- by instance id, and by counter id
    assert.equals(v, (s:value(i, 0, 38)))
    assert.same({ nil, "no_instance" }, { s:value(i, "9,9") })
    assert.has_error(function() s:value(i, "0,0", "% Idle Time") end)
    assert.has_error(function() s:value(2, "0,0") end, "bad argument #1 to 'value' (no such result index)")
    local rows = {}
    -- raw yields in formatted's order (instance, value, status, counter, index), the base last
    for inst, val, st, ctr, idx, base in s:raw() do
      rows[#rows + 1] = { inst, val, st, ctr, idx, base }
    end
    assert.equals(4, #rows)
    assert.same({ "0,0", 9877 * 100000, "valid", "% Busy Time", 1, 69189 * 100000 }, rows[1])
    assert.equals("_Total", rows[4][1])
  end)

  it("formats single-sample types from one sample and rates from two", function()
    local q = perflib.query { root = FIX }
    local up = q:add "\\System\\System Up Time"
    local la = q:add "\\System\\Load Average 1 min"
    local cs = q:add "\\System\\Context Switches/sec"
    local s0 = q:collect()
    local v, st = s0:format(nil, up)
    assert.equals("valid", st)
    assert.near(699.22, v, 1e-9)           -- /proc/uptime 699.22
    v = s0:format(nil, la)
    assert.near(0.38, v, 1e-12)            -- /proc/loadavg 0.38, kept as 38 with scale -2
    assert.same({ nil, "first_sample" }, { s0:format(nil, cs) })
    perflib.sleep(0.01)
    local s1 = q:collect()
    -- the same fixture file twice: no context switches in a real interval
    v, st = s1:format(s0, cs)
    assert.equals("valid", st)
    assert.equals(0.0, v)
    if C.integers then assert.equals("float", C.math_type(v)) end
  end)

  it("iterates over formatted values in result order", function()
    local q = perflib.query { root = FIX }
    q:add "\\Processor Information(*)\\% Busy Time"
    q:add "\\Memory\\Available Bytes"
    local s0 = q:collect()
    local s1 = q:collect()
    local got = {}
    for instance, value, status, counter, index in s1:formatted(s0) do
      got[#got + 1] = table.concat({ instance, tostring(value), status, counter, index }, "|")
    end
    assert.same({
      -- same files twice: the private time base did not move
      "0,0|nil|zero_interval|% Busy Time|1",
      "0,1|nil|zero_interval|% Busy Time|1",
      "0,_Total|nil|zero_interval|% Busy Time|1",
      "_Total|nil|zero_interval|% Busy Time|1",
      -- MemAvailable 23781276 kB x 1024
      "|" .. tostring(23781276 * 1024.0) .. "|valid|Available Bytes|2",
    }, got)
    -- one result only
    local n = 0
    for _ in s1:formatted(s0, { index = 2 }) do n = n + 1 end
    assert.equals(1, n)
    local vals, sts = s1:values(s0, 1)
    assert.equals("zero_interval", sts["% Busy Time"]["_Total"])
    assert.is_nil(vals["% Busy Time"]["_Total"])
  end)

  it("reports failed results with their instance filter and status", function()
    local q = perflib.query { root = FIX }
    q:add "\\Processor Information(5,5)\\% Busy Time"
    local s = q:collect()
    local rows = {}
    for inst, v, st, ctr in s:formatted() do rows[#rows + 1] = { inst, v, st, ctr } end
    assert.same({ { "5,5", nil, "no_instance", "% Busy Time" } }, rows)
    -- raw yields the same, in the same order
    rows = {}
    for inst, v, st, ctr, idx in s:raw() do rows[#rows + 1] = { inst, v, st, ctr, idx } end
    assert.same({ { "5,5", nil, "no_instance", "% Busy Time", 1 } }, rows)
    local r = s:results()[1]
    assert.equals("error", r.shape)
    assert.equals("no_instance", r.status)
    assert.same({}, r.instances)
    -- a wildcard that matches nothing is an empty result, not an error
    q:add "\\Processor Information(9,*)\\% Busy Time"
    s = q:collect()
    r = s:results()[2]
    assert.equals("multiple_instances", r.shape)
    assert.equals("valid", r.status)
    assert.same({}, r.instances)
  end)

  it("raises for a result index it does not have, whichever method is asked", function()
    local q = perflib.query { root = FIX }
    q:add "\\Memory\\Available Bytes"
    local s0, s1 = q:collect(), q:collect()
    assert.has_error(function() s1:raw(2) end, "bad argument #1 to 'raw' (no such result index)")
    assert.has_error(function() s1:formatted(s0, { index = 2 }) end,
      "bad argument #2 to 'formatted' (opts.index: no such result index)")
    assert.has_error(function() s1:evaluate(s0, 2) end, "bad argument #2 to 'evaluate' (no such result index)")
    assert.has_error(function() s1:format(s0, 2, "", "Available Bytes") end,
      "bad argument #2 to 'format' (no such result index)")
    assert.has_error(function() s1:value(0, "", "Available Bytes") end,
      "bad argument #1 to 'value' (no such result index)")
    local ok, err = pcall(s1.values, s1, s0, 2)
    assert.is_false(ok)
    assert.matches("bad argument #2 to 'values' %(no such result index: 2 of 1%)", err)
    assert.has_error(function() q:delete(2) end, "bad argument #1 to 'delete' (no specification #2)")
    q:close()
  end)

  it("keeps other countersets working when one set's files are broken", function()
    local q = perflib.query { root = "spec/fixtures/broken-missing" }
    q:add "\\Memory\\Page Faults/sec"        -- its only file, vmstat, is missing
    q:add "\\Processor Information(_Total)\\% Busy Time"
    local s = q:collect()
    local r = s:results()
    assert.equals("error", r[1].shape)
    assert.equals("no_data", r[1].status)
    assert.equals("spec/fixtures/broken-missing/proc/vmstat: No such file or directory", r[1].error)
    assert.equals("single_counter", r[2].shape)
    local v, b = s:value(2, "_Total")
    assert.equals("integer", C.math_type(v))
    assert.is_true(b > v)
  end)

  it("refuses pairs from different queries or in the wrong order", function()
    local q1 = perflib.query { root = FIX }
    local q2 = perflib.query { root = FIX }
    q1:add "\\Memory\\Available Bytes"
    q2:add "\\Memory\\Available Bytes"
    local a0, a1, b0 = q1:collect(), q1:collect(), q2:collect()
    assert.has_error(function() a1:formatted(b0) end, "bad argument #1 to 'formatted' (sample from another query)")
    assert.has_error(function() a0:formatted(a1) end,
      "bad argument #1 to 'formatted' (older sample expected (#2 is not older than #1))")
    assert.has_error(function() a1:format(a1, 1) end)
    assert.has_error(function() a1:formatted(a0, { bogus = true }) end, "formatted: unknown option 'bogus'")
    assert.has_error(function() a1:formatted(42) end)
  end)

  it("matches instances by id and name when the instance set changes", function()
    -- a spec deleted between samples: its results vanish, others still pair up
    local q = perflib.query { root = FIX }
    q:add "\\System\\Processes"
    q:add "\\System\\Context Switches/sec"
    local s0 = q:collect()
    q:delete(1)
    local s1 = q:collect()
    local v, st = s1:format(s0, 1)
    assert.equals("valid", st)
    assert.equals(0.0, v)
  end)

  it("releases memory idempotently", function()
    local q = perflib.query { root = FIX }
    q:add "\\Memory\\*"
    local s = q:collect()
    s:release()
    s:release()
    assert.equals("perflib.Sample (released)", tostring(s))
    assert.has_error(function() s:raw() end)
    C.scoped(q:collect(), function(s2) assert.equals(2, s2.seq) end)
  end)

  it("samples on a schedule without drift", function()
    local q = perflib.query { root = FIX }
    q:add "\\System\\Processes"
    local t0 = perflib.clock()
    local n, last_older = 0, false
    for s1, s0 in q:samples(0.05, 4) do
      n = n + 1
      if n == 1 then assert.is_nil(s0) else assert.equals(s1.seq - 1, s0.seq) end
      last_older = s0 ~= nil
    end
    local dt = perflib.clock() - t0
    assert.equals(4, n)
    assert.is_true(last_older)
    assert.is_true(dt >= 0.15 and dt < 0.5, "took " .. dt)
    assert.has_error(function() q:samples(0) end)
    assert.has_error(function() q:samples(1, 1.5) end)
  end)
end)

describe("Sample on the live system", function()
  it("gives valid rates for every counterset", function()
    local q = perflib.query()
    q:add "\\Processor Information(*)\\*"
    q:add "\\Memory\\*"
    q:add "\\System\\*"
    local s0 = q:collect()
    perflib.sleep(0.25)
    local s1 = q:collect()
    local counts = {}
    for _, value, status, counter in s1:formatted(s0) do
      counts[status] = (counts[status] or 0) + 1
      if status == "valid" then
        if C.integers then assert.equals("float", C.math_type(value)) end
        if counter:match "^%%" then
          assert.is_true(value >= 0 and value <= 100, counter .. " = " .. value)
        end
      end
    end
    assert.is_true(counts.valid > 50)
    assert.is_nil(counts.first_sample)
    assert.is_nil(counts.negative_delta)
  end)
end)

describe("Query:collect into an older sample", function()
  it("refills the sample's memory and returns the same object", function()
    local q = perflib.query { root = FIX }
    q:add "\\Processor Information(*)\\% Busy Time"
    local s0, s1 = q:collect(), q:collect()
    local s2 = q:collect(s0)
    assert.is_true(rawequal(s0, s2))
    assert.equals(3, s2.seq)
    -- now s1 is the older one
    local v, st = s2:format(s1, 1, "_Total")
    assert.equals("zero_interval", st)     -- same fixture files: no ticks passed
    assert.is_nil(v)
    -- alternating keeps working, and the values are the fixture's
    local a, b = s1, s2
    for _ = 1, 5 do a, b = b, q:collect(a) end
    assert.equals(8, b.seq)
    assert.equals(69289 * 100000, select(2, b:value(1, "0,1")))
  end)

  it("falls back to a new sample when the old one is too small or malloc'd", function()
    local q = perflib.query { root = FIX }
    q:add "\\Memory\\Available Bytes"
    local small = q:collect()
    q:add "\\Processor Information(*)\\*"
    local big = q:collect(small)
    assert.is_false(rawequal(small, big))
    assert.equals(2, #big)
  end)

  it("refuses what is not a sample of this query", function()
    local q1 = perflib.query { root = FIX }
    local q2 = perflib.query { root = FIX }
    q1:add "\\Memory\\Available Bytes"
    q2:add "\\Memory\\Available Bytes"
    local other = q2:collect()
    assert.has_error(function() q1:collect(other) end,
      "bad argument #1 to 'collect' (sample from another query)")
    assert.has_error(function() q1:collect {} end, "bad argument #1 to 'collect' (sample expected)")
  end)
end)
