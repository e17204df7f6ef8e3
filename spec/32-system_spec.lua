-- System counterset against the fixture trees in spec/fixtures (run from the
-- repository root).  Every expected value is worked out by hand from the
-- fixture files; the arithmetic is in the comments.  basic2 is the basic
-- machine 10.00 s later.

local perflib = require "perflib"
local C = require "spec.support.compat"

local FX = "spec/fixtures/"

local function system(tree)
  local q = perflib.query { root = FX .. tree, page_size = 4096, user_hz = 100 }
  local idx = assert(q:add("\\System\\*"))
  local s = assert(q:collect())
  return s, idx, q
end

local function raw(s, idx, name)
  local v, b = s:value(idx, "", name)
  return v, b
end

local function no_data(s, idx, name)
  local v, st = s:value(idx, "", name)
  assert.is_nil(v, name)
  assert.equal("no_data", st, name)
end

describe("System", function()
  describe("basic (reference VM files)", function()
    local s, idx = system("basic")

    local expected = {
      ["Context Switches/sec"] = 2472631,           -- /proc/stat ctxt
      ["Forks/sec"] = 25420,                        -- processes
      ["Processor Queue Length"] = 3 - 1,           -- loadavg 3/102: running less the reader
      ["Processes Blocked"] = 0,                    -- procs_blocked
      ["Processes"] = 5,                            -- proc/1 2 3 512 25423
      ["Threads"] = 102,                            -- loadavg 3/102
      ["System Up Time"] = 0,                       -- boot; the clock is the object time
      ["Load Average 1 min"] = 38,                  -- 0.38 x 100
      ["Load Average 5 min"] = 44,                  -- 0.44 x 100
      ["Load Average 15 min"] = 24,                 -- 0.24 x 100
      ["File Handles Allocated"] = 677,             -- file-nr field 1
      ["File Handles Max"] = 2466177,               -- file-nr field 3
      ["% File Handles In Use"] = 677,              -- numerator
      ["Entropy Available Bits"] = 256,
      ["Max Processes"] = 4194304,                  -- pid_max
      ["Max Threads"] = 191795,                     -- threads-max
    }

    it("reports every visible counter as an exact integer", function()
      local seen = 0
      for inst, v, _, counter in s:raw() do
        assert.equal("", inst)
        assert.is_not_nil(expected[counter], "unexpected counter " .. counter)
        assert.equal("integer", C.math_type(v), counter)
        assert.equal(expected[counter], v, counter)
        seen = seen + 1
      end
      assert.equal(16, seen)                        -- 17 less the hidden base
    end)

    it("has no System Calls/sec on Linux", function()
      local q = perflib.query { root = FX .. "basic" }
      local i, _, status = q:add("\\System\\System Calls/sec")
      assert.is_nil(i)
      assert.equal("no_counter", status)
    end)

    it("formats single-sample counters", function()
      local cases = {
        { "System Up Time", 699.22 },               -- (6992200000 - 0) / 10^7
        { "Load Average 1 min", 0.38 },             -- 38 x 10^-2
        { "Load Average 5 min", 0.44 },
        { "Load Average 15 min", 0.24 },
        { "% File Handles In Use", 100 * 677 / 2466177 },   -- 0.02745 %
        { "Processor Queue Length", 2 },
        { "Processes", 5 },
        { "Threads", 102 },
      }
      for _, c in ipairs(cases) do
        local v, st = s:format(nil, idx, "", c[1])
        assert.equal("valid", st, c[1])
        assert.is.near(c[2], v, 1e-9)
      end
    end)

    it("carries the uptime clock and the file handle base", function()
      local v, b = raw(s, idx, "System Up Time")
      assert.equal(0, v)
      assert.equal(6992200000, b)                   -- 699.22 s x 10^7
      v, b = raw(s, idx, "% File Handles In Use")
      assert.equal(677, v)
      assert.equal(2466177, b)
    end)

    it("needs two samples for the rates", function()
      local v, st = s:format(nil, idx, "", "Context Switches/sec")
      assert.is_nil(v)
      assert.equal("first_sample", st)
    end)
  end)

  describe("rates from basic to basic2 (10 s)", function()
    local s0, idx = system("basic")
    local s1 = system("basic2")
    local bulk = "PERF_COUNTER_BULK_COUNT"
    local T = 10 * 10000000                        -- 10 s in 100 ns ticks

    it("computes Context Switches/sec and Forks/sec", function()
      local v, st = perflib.calculate(bulk, { value = raw(s1, idx, "Context Switches/sec"), time = T },
                                      { value = raw(s0, idx, "Context Switches/sec"), time = 0 })
      assert.equal("valid", st)
      assert.is.near(2500, v, 1e-9)                 -- (2497631 - 2472631) / 10
      v = perflib.calculate(bulk, { value = raw(s1, idx, "Forks/sec"), time = T },
                            { value = raw(s0, idx, "Forks/sec"), time = 0 })
      assert.is.near(4, v, 1e-12)                   -- (25460 - 25420) / 10
    end)

    it("moves the gauges", function()
      assert.equal(2 - 1, raw(s1, idx, "Processor Queue Length"))   -- 2/105
      assert.equal(105, raw(s1, idx, "Threads"))
      assert.equal(1, raw(s1, idx, "Processes Blocked"))
      assert.equal(6, raw(s1, idx, "Processes"))    -- 1 2 3 512 25431 25432
      assert.equal(704, raw(s1, idx, "File Handles Allocated"))
      assert.is.near(709.22, (s1:format(nil, idx, "", "System Up Time")), 1e-9)
      assert.is.near(0.47, (s1:format(nil, idx, "", "Load Average 5 min")), 1e-12)
    end)
  end)

  describe("broken fixtures", function()
    it("garbage fields leave only their own counters unset", function()
      local s, idx = system("broken-garbage")
      no_data(s, idx, "Context Switches/sec")       -- ctxt 24x2631
      assert.equal(25420, raw(s, idx, "Forks/sec"))
      no_data(s, idx, "Processes Blocked")          -- -1
      assert.equal(38, raw(s, idx, "Load Average 1 min"))
      no_data(s, idx, "Load Average 5 min")         -- zz
      assert.equal(24, raw(s, idx, "Load Average 15 min"))
      assert.equal(3 - 1, raw(s, idx, "Processor Queue Length"))   -- 3/1x2
      no_data(s, idx, "Threads")
      no_data(s, idx, "System Up Time")             -- abc
      assert.equal(677, raw(s, idx, "File Handles Allocated"))
      no_data(s, idx, "File Handles Max")           -- lots
      no_data(s, idx, "% File Handles In Use")
      no_data(s, idx, "Entropy Available Bits")     -- "2 5 6"
      no_data(s, idx, "Max Processes")              -- empty line
      assert.equal(191795, raw(s, idx, "Max Threads"))
      local _, st = s:format(nil, idx, "", "System Up Time")
      assert.equal("no_data", st)
    end)

    it("truncated /proc/stat: lines after the end are absent", function()
      local s, idx = system("broken-truncated")
      assert.equal(2472631, raw(s, idx, "Context Switches/sec"))
      no_data(s, idx, "Forks/sec")
      no_data(s, idx, "Processes Blocked")
    end)

    it("a missing loadavg or /proc/sys only unsets its own counters", function()
      local s, idx = system("broken-missing")
      no_data(s, idx, "Threads")
      assert.equal(2472631, raw(s, idx, "Context Switches/sec"))
      assert.is_nil(s:results()[idx].error)
      local q0 = perflib.query { root = FX .. "broken-missing" }
      local k = assert(q0:add("\\System\\Threads"))
      local s0 = assert(q0:collect())
      assert.matches("broken%-missing/proc/loadavg: No such file or directory",
                     s0:results()[k].error)

      local q = perflib.query { root = FX .. "broken-missing" }
      local i = assert(q:add("\\System\\Context Switches/sec"))
      local j = assert(q:add("\\System\\Max Threads"))
      local s1 = assert(q:collect())
      assert.equal(2472631, (s1:value(i, "", "Context Switches/sec")))
      no_data(s1, j, "Max Threads")                 -- no proc/sys in this tree
      assert.is_nil(s1:results()[i].error)
    end)

    it("an empty loadavg unsets its counters; alone it fails", function()
      local s, idx = system("broken-empty")
      no_data(s, idx, "Load Average 1 min")
      assert.equal(2472631, raw(s, idx, "Context Switches/sec"))
      local q0 = perflib.query { root = FX .. "broken-empty" }
      local k = assert(q0:add("\\System\\Load Average 1 min"))
      local s0 = assert(q0:collect())
      assert.matches("proc/loadavg: Invalid argument", s0:results()[k].error)
    end)
  end)

  describe("live machine", function()
    it("gives plausible values", function()
      local q = perflib.query()
      local idx = assert(q:add("\\System\\*"))
      local s = assert(q:collect())
      assert.is_true(raw(s, idx, "Processes") > 0)
      assert.is_true(raw(s, idx, "Threads") > 0)
      assert.is_true(raw(s, idx, "Context Switches/sec") > 0)
      local up, st = s:format(nil, idx, "", "System Up Time")
      assert.equal("valid", st)
      assert.is_true(up > 0)
      local load = s:format(nil, idx, "", "Load Average 1 min")
      assert.is_true(load >= 0)
      local pid_max = raw(s, idx, "Max Processes")  -- nil if a sandbox hides /proc/sys
      assert.is_true(pid_max == nil or pid_max >= 301)
    end)
  end)
end)
