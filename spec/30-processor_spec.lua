-- Processor Information against the fixture trees in spec/fixtures (run from
-- the repository root), then on this machine.  Expected values are worked out
-- by hand from the fixture files; the arithmetic is in the comments.  basic2
-- is the basic machine 10.00 s later.  Fields of a /proc/stat cpu line:
-- us ni sy id wa hi si st gu gn; at USER_HZ 100 a tick is 100000 (100 ns).

local perflib = require "perflib"
local C = require "spec.support.compat"

local FX = "spec/fixtures/"
local T = 100000                                  -- 100 ns units per tick
local PT100 = "PERF_PRECISION_100NS_TIMER"

local PCT = { "% Busy Time", "% User Time", "% Privileged Time", "% DPC Time", "% Interrupt Time",
              "% Idle Time", "% Nice Time", "% IO Wait Time", "% Steal Time", "% Guest Time" }

-- One sample of \Processor Information(*)\* below a fixture root.
local function processor(tree, hz)
  local q = perflib.query { root = FX .. tree, user_hz = hz or 100 }
  local idx = assert(q:add("\\Processor Information(*)\\*"))
  return assert(q:collect()), idx, q
end

-- Formatted % between two samples of different queries, from their raw pairs.
local function pct(s0, s1, idx, inst, name)
  local v0, b0 = s0:value(idx, inst, name)
  local v1, b1 = s1:value(idx, inst, name)
  assert(v0 and v1, inst .. " " .. name)
  return perflib.calculate(PT100, { value = v1, base = b1 }, { value = v0, base = b0 })
end

-- The aggregate cpu line of a /proc/stat: its first 8 fields summed.
local function stat_ticks()
  local fh = assert(io.open("/proc/stat"))
  local line = fh:read("*l")
  fh:close()
  local sum, n = 0, 0
  for f in line:gmatch("%d+") do
    n = n + 1
    if n <= 8 then sum = sum + C.tointeger(f) end
  end
  return sum
end

describe("Processor Information", function()
  describe("metadata", function()
    local cs = assert(perflib.counterset("Processor Information"))

    it("has the Windows GUID and multiple instances", function()
      assert.equal("b4fc721a-0378-476f-89ba-a5a79f810b36", cs.guid)
      assert.equal("multiple", cs.instance_type)
      assert.is_false(cs.costly)
      assert.equal(cs, perflib.counterset("{b4fc721a-0378-476f-89ba-a5a79f810b36}"))
    end)

    it("keeps the Windows counter ids", function()
      assert.equal("% Processor Time", cs:counter(0).name)
      assert.equal("PERF_100NSEC_TIMER_INV", cs:counter(0).type_name)   -- as in seed 000
      assert.equal("% Busy Time", cs:counter(38).name)
      assert.equal("% User Time", cs:counter(1).name)
      assert.equal("% Privileged Time", cs:counter(2).name)
      assert.equal("% Idle Time", cs:counter(8).name)
      assert.equal("Interrupts/sec", cs:counter(3).name)
      assert.equal("DPCs Queued/sec", cs:counter(6).name)
      assert.equal("DPC Rate", cs:counter(7).name)
      assert.is_nil(cs:counter(16))                -- Parking Status: no Linux counterpart
      assert.equal(46, #cs.counters)              -- the Windows ids Linux has, and its extras
    end)

    it("puts the % counters on the hidden tick base", function()
      for _, name in ipairs(PCT) do
        local c = cs:counter(name)
        assert.equal(PT100, c.type_name, name)
        assert.equal("Processor Time Base", c.base, name)
        assert.equal(32, c.base_id, name)
      end
      assert.is_true(cs:counter(32).hidden)
      assert.is_true(cs:counter("Maximum Frequency").hidden)
      assert.equal("Maximum Frequency", cs:counter("% of Maximum Frequency").base)
      assert.equal("PERF_COUNTER_BULK_COUNT", cs:counter("Interrupts/sec").type_name)
    end)
  end)

  describe("basic (the reference VM, 2 CPUs, one node)", function()
    local s, idx = processor("basic")

    it("lists the CPUs, the node and the machine, keyed by CPU number", function()
      local r = s:results()[idx]
      assert.same({ "0,0", "0,1", "0,_Total", "_Total" }, r.instances)
      assert.same({ 0, 1, 0xFFFF0000, 0xFFFFFFFE }, r.ids)
      assert.equal(41, #r.counters)               -- 46 less the five hidden bases
    end)

    -- instance -> counter -> ticks
    local expected = {
      -- cpu0 4556 0 5246 59211 101 0 68 7 0 0: base 69189, idle 59312
      ["0,0"] = { ["% Busy Time"] = 9877, ["% User Time"] = 4556, ["% Privileged Time"] = 5314,
                  ["% Idle Time"] = 59312, ["% Nice Time"] = 0, ["% IO Wait Time"] = 101,
                  ["% Interrupt Time"] = 0, ["% DPC Time"] = 68, ["% Steal Time"] = 7, ["% Guest Time"] = 0,
                  base = 69189 },
      -- cpu1 9217 1 5112 54375 472 0 103 9 0 0: base 69289, idle 54847
      ["0,1"] = { ["% Busy Time"] = 14442, ["% User Time"] = 9218, ["% Privileged Time"] = 5215,
                  ["% Idle Time"] = 54847, ["% Nice Time"] = 1, ["% IO Wait Time"] = 472,
                  ["% Interrupt Time"] = 0, ["% DPC Time"] = 103, ["% Steal Time"] = 9, ["% Guest Time"] = 0,
                  base = 69289 },
      -- node 0 = cpu0 + cpu1: softirq 68 + 103 = 171
      ["0,_Total"] = { ["% Busy Time"] = 24319, ["% User Time"] = 13774, ["% Privileged Time"] = 10529,
                       ["% Idle Time"] = 114159, ["% DPC Time"] = 171, ["% Steal Time"] = 16,
                       base = 138478 },
      -- the aggregate line 13773 1 10358 113586 573 0 172 16 0 0 says softirq 172
      ["_Total"] = { ["% Busy Time"] = 24320, ["% User Time"] = 13774, ["% Privileged Time"] = 10530,
                     ["% Idle Time"] = 114159, ["% DPC Time"] = 172, ["% IO Wait Time"] = 573,
                     base = 138479 },
    }

    it("gives raw times as integer 100 ns with the tick base", function()
      for inst, want in pairs(expected) do
        for name, ticks in pairs(want) do
          if name ~= "base" then
            local v, b = s:value(idx, inst, name)
            assert.equal("integer", C.math_type(v), inst .. " " .. name)
            assert.equal(ticks * T, v, inst .. " " .. name)
            assert.equal(want.base * T, b, inst .. " " .. name)
          end
        end
      end
      local v, b = s:value(idx, "0,0", "% User Time")
      assert.equal(455600000, v)
      assert.equal(6918900000, b)
    end)

    it("looks instances up by id as well as by name", function()
      assert.equal(14442 * T, (s:value(idx, 1, "% Busy Time")))
      assert.equal(24319 * T, (s:value(idx, 0xFFFF0000, "% Busy Time")))
      assert.equal(24320 * T, (s:value(idx, 0xFFFFFFFE, "% Busy Time")))
    end)

    it("has no per-CPU interrupt counts without /proc/interrupts", function()
      local v, st = s:value(idx, "0,0", "Interrupts/sec")
      assert.is_nil(v)
      assert.equal("no_data", st)
      assert.is_nil((s:value(idx, "0,_Total", "Interrupts/sec")))
      assert.is_nil((s:value(idx, "0,1", "DPCs Queued/sec")))
      assert.equal(773324, (s:value(idx, "_Total", "Interrupts/sec")))     -- /proc/stat intr
      assert.equal(403483, (s:value(idx, "_Total", "DPCs Queued/sec")))    -- /proc/stat softirq
    end)

    it("has no idle states or frequency without sysfs or cpuinfo", function()
      for _, name in ipairs { "% C1 Time", "C1 Transitions/sec", "Processor Frequency",
                              "% of Maximum Frequency" } do
        assert.equal("no_data", select(2, s:value(idx, "0,0", name)), name)
        assert.equal("no_data", select(2, s:value(idx, "_Total", name)), name)
      end
    end)
  end)

  describe("basic -> basic2 (10 s)", function()
    local s0, idx = processor("basic")
    local s1 = processor("basic2")

    -- deltas in ticks:
    --   cpu0  us 300 ni 0  sy 150 id 500 wa 20 hi 0 si 10 st 20   base 1000
    --   cpu1  us 400 ni 10 sy 200 id 350 wa 10 hi 0 si 20 st 10   base 1000
    --   node and _Total: 700 10 350 850 30 0 30 30                 base 2000
    local expected = {
      ["0,0"] = { ["% Busy Time"] = 48.0, ["% User Time"] = 30.0, ["% Privileged Time"] = 16.0,
                  ["% Idle Time"] = 52.0, ["% Nice Time"] = 0.0, ["% IO Wait Time"] = 2.0,
                  ["% Interrupt Time"] = 0.0, ["% DPC Time"] = 1.0, ["% Steal Time"] = 2.0,
                  ["% Guest Time"] = 0.0 },
      ["0,1"] = { ["% Busy Time"] = 64.0, ["% User Time"] = 41.0, ["% Privileged Time"] = 22.0,
                  ["% Idle Time"] = 36.0, ["% Nice Time"] = 1.0, ["% IO Wait Time"] = 1.0,
                  ["% Interrupt Time"] = 0.0, ["% DPC Time"] = 2.0, ["% Steal Time"] = 1.0,
                  ["% Guest Time"] = 0.0 },
      ["0,_Total"] = { ["% Busy Time"] = 56.0, ["% User Time"] = 35.5, ["% Privileged Time"] = 19.0,
                       ["% Idle Time"] = 44.0, ["% Nice Time"] = 0.5, ["% IO Wait Time"] = 1.5,
                       ["% Interrupt Time"] = 0.0, ["% DPC Time"] = 1.5, ["% Steal Time"] = 1.5,
                       ["% Guest Time"] = 0.0 },
    }
    expected["_Total"] = expected["0,_Total"]

    it("computes every % counter of every instance", function()
      for inst, want in pairs(expected) do
        for name, p in pairs(want) do
          local v, st = pct(s0, s1, idx, inst, name)
          assert.equal("valid", st, inst .. " " .. name)
          if C.integers then assert.equal("float", C.math_type(v), inst .. " " .. name) end
          assert.is.near(p, v, 1e-9)
        end
      end
      -- cpu0 % Busy Time: 100 * (1000 - 500 - 20) / 1000
      assert.equal(48.0, (pct(s0, s1, idx, "0,0", "% Busy Time")))
    end)

    it("adds % Busy Time and % Idle Time up to exactly 100", function()
      for inst in pairs(expected) do
        local p = pct(s0, s1, idx, inst, "% Busy Time")
        local i = pct(s0, s1, idx, inst, "% Idle Time")
        assert.equal(100, p + i, inst)
      end
    end)

    it("rates the machine-wide interrupt and softirq counts", function()
      local bulk = "PERF_COUNTER_BULK_COUNT"
      local i0, i1 = s0:value(idx, "_Total", "Interrupts/sec"), s1:value(idx, "_Total", "Interrupts/sec")
      local v, st = perflib.calculate(bulk, { value = i1, time = 100000000 }, { value = i0, time = 0 })
      assert.equal("valid", st)
      assert.is.near(1200, v, 1e-9)                -- (785324 - 773324) / 10
      local d0, d1 = s0:value(idx, "_Total", "DPCs Queued/sec"), s1:value(idx, "_Total", "DPCs Queued/sec")
      v = perflib.calculate(bulk, { value = d1, time = 100000000 }, { value = d0, time = 0 })
      assert.is.near(600, v, 1e-9)                 -- (409483 - 403483) / 10
    end)

    it("gives raw values as integers and formatted ones as floats", function()
      for _, v in s1:raw(idx) do
        if v ~= nil then assert.equal("integer", C.math_type(v)) end
      end
      local q = perflib.query { root = FX .. "basic", user_hz = 100 }
      local i = assert(q:add("\\Processor Information(*)\\*"))
      local a = assert(q:collect())
      local b = assert(q:collect())
      local n = 0
      for inst, v, st, counter in b:formatted(a, { index = i }) do
        if st == "valid" then
          if C.integers then assert.equal("float", C.math_type(v), inst .. " " .. counter) end
          n = n + 1
        else
          -- the same files twice: no tick passed, and a missing source stays missing
          assert.is_true(st == "zero_interval" or st == "no_data", st)
        end
      end
      assert.is_true(n > 0)                        -- rates over real time are valid
    end)
  end)

  describe("cpu-full (every source present)", function()
    local s, idx = processor("cpu-full")

    it("reads interrupts, softirqs, idle states and cpufreq", function()
      -- CPU0 column: 10+0+100+1+5000+300+70+5; ERR 7 and MIS 3 are not CPU0's
      assert.equal(5486, (s:value(idx, "0,0", "Interrupts/sec")))
      assert.equal(5486 + 6697, (s:value(idx, "0,_Total", "Interrupts/sec")))
      assert.equal(3661, (s:value(idx, "0,0", "DPCs Queued/sec")))
      assert.equal(10000000, (s:value(idx, "0,0", "% C1 Time")))             -- 1000000 us x 10
      assert.equal(353, (s:value(idx, "0,1", "C3 Transitions/sec")))
      assert.equal(32500015, (s:value(idx, "_Total", "% C3 Time")))         -- mean of 2 CPUs
      assert.equal(653, (s:value(idx, "_Total", "C3 Transitions/sec")))     -- sum of 2 CPUs
    end)

    it("formats the one-sample frequency counters", function()
      local v, st = s:format(nil, idx, "0,0", "Processor Frequency")
      assert.equal("valid", st)
      assert.equal(2400.0, v)                      -- 2400000 kHz
      v = s:format(nil, idx, "0,0", "% of Maximum Frequency")
      assert.is.near(80, v, 1e-12)                 -- 2400 / 3000
      v = s:format(nil, idx, "0,1", "% of Maximum Frequency")
      assert.is.near(40, v, 1e-12)                 -- 1200 / 3000
      v = s:format(nil, idx, "_Total", "% of Maximum Frequency")
      assert.is.near(60, v, 1e-12)                 -- mean 1800 / 3000
      local raw, base = s:value(idx, "0,0", "% of Maximum Frequency")
      assert.equal(2400, raw)
      assert.equal(3000, base)
    end)

    it("subtracts guest time from user time", function()
      -- cpu0 us 1000 ni 20 gu 100 gn 5: (1000-100) + (20-5) = 915; guest 105
      assert.equal(915 * T, (s:value(idx, "0,0", "% User Time")))
      assert.equal(105 * T, (s:value(idx, "0,0", "% Guest Time")))
      assert.equal(6390 * T, select(2, s:value(idx, "0,0", "% Guest Time")))  -- base without guest
    end)

    it("converts ticks with the machine's user_hz", function()
      local s4, i4 = processor("cpu-full", 250)
      local v, b = s4:value(i4, "0,0", "% Busy Time")
      assert.equal(1350 * 40000, v)                -- 10^7 / 250 per tick
      assert.equal(6390 * 40000, b)
      assert.equal(2400, (s4:value(i4, "0,0", "Processor Frequency")))   -- not a tick count
    end)
  end)

  describe("other trees", function()
    it("gives each NUMA node its total", function()
      local s, idx = processor("cpu-numa")
      local r = s:results()[idx]
      assert.same({ "0,0", "0,1", "0,_Total", "1,2", "1,3", "1,_Total", "_Total" }, r.instances)
      assert.same({ 0, 1, 0xFFFF0000, 2, 3, 0xFFFF0001, 0xFFFFFFFE }, r.ids)
      -- node 1 = cpu2 + cpu3: 700 10 150 1100 70 3 35 0, base 2068, processor 898
      local v, b = s:value(idx, "1,_Total", "% Busy Time")
      assert.equal(898 * T, v)
      assert.equal(2068 * T, b)
      assert.equal(3300 + 4400, (s:value(idx, "1,_Total", "Interrupts/sec")))
      assert.equal(33 + 44, (s:value(idx, "1,_Total", "DPCs Queued/sec")))
      -- a filter on a node's instances
      local q = perflib.query { root = FX .. "cpu-numa", user_hz = 100 }
      local i = assert(q:add("\\Processor Information(1,*)\\% Busy Time"))
      assert.same({ "1,2", "1,3", "1,_Total" }, assert(q:collect()):results()[i].instances)
    end)

    it("serves Windows' Processor object: CPU numbers and _Total, no node totals", function()
      local q = perflib.query { root = FX .. "cpu-numa", user_hz = 100 }
      local i = assert(q:add("\\Processor(*)\\*"))
      local s = assert(q:collect())
      local r = s:results()[i]
      assert.same({ "0", "1", "2", "3", "_Total" }, r.instances)
      assert.same({ 0, 1, 2, 3, 0xFFFFFFFE }, r.ids)
      -- cpu3: us 400 ni 5 sy 80 id 500 wa 40 hi 2 si 20 st 0
      -- busy = 400 + 5 + 80 + 2 + 20 + 0 = 507 ticks, base = 507 + 500 + 40 = 1047
      local v, b = s:value(i, "3", "% Busy Time")
      assert.equal(507 * T, v)
      assert.equal(1047 * T, b)
      -- _Total, the aggregate line: busy 1000 + 10 + 260 + 3 + 50 + 0 = 1323, base 1323 + 2600 + 100
      v, b = s:value(i, "_Total", "% Busy Time")
      assert.equal(1323 * T, v)
      assert.equal(4023 * T, b)
      -- the same numbers as Processor Information's, counter by counter
      local s2, i2 = processor("cpu-numa")
      for _, pair in ipairs { { "2", "1,2" }, { "_Total", "_Total" } } do
        for _, c in ipairs { "% Busy Time", "% User Time", "Interrupts/sec", "DPCs Queued/sec" } do
          assert.equal((s2:value(i2, pair[2], c)), (s:value(i, pair[1], c)), pair[1] .. " " .. c)
        end
      end
      local cs = perflib.counterset "processor"
      assert.equal("76a7cc68-6a91-517c-ade7-e0eba866a94f", cs.guid)   -- UUIDv5(perflib namespace, "Processor")
      assert.is_true(cs.costly)                    -- Global has the same numbers as Processor Information
      assert.equal("% Processor Time", cs:counter(0).name)
      assert.equal(#perflib.counterset("Processor Information").counters, #cs.counters)
    end)

    it("gives % Processor Utility: busy ticks x current / nominal frequency, over all ticks", function()
      local files = dofile "spec/support/files.lua"
      local dir, remove = files.tempdir()
      local function put(rel, text)
        os.execute("mkdir -p " .. (dir .. "/" .. rel):match("^(.*)/"))
        files.write(dir .. "/" .. rel, text)
      end
      local function stat(c0, c1)
        put("proc/stat", "cpu  1 0 1 1 0 0 0 0 0 0\ncpu0 " .. c0 .. "\ncpu1 " .. c1 .. "\n")
      end
      local F = "sys/devices/system/cpu/cpu%d/cpufreq/"
      -- cpu0 has base_frequency (2000 MHz, nominal); cpu1 only cpuinfo_max_freq (2000 MHz)
      put(F:format(0) .. "base_frequency", "2000000\n")
      put(F:format(0) .. "cpuinfo_max_freq", "4000000\n")
      put(F:format(1) .. "cpuinfo_max_freq", "2000000\n")
      put(F:format(0) .. "scaling_cur_freq", "2000000\n")
      put(F:format(1) .. "scaling_cur_freq", "2000000\n")
      -- first collect: cpu0 busy 100 + 100 = 200 of 1000 ticks, cpu1 300 of 1000
      stat("100 0 100 800 0 0 0 0 0 0", "200 0 100 700 0 0 0 0 0 0")
      local q = perflib.query { root = dir, user_hz = 100 }
      local i = assert(q:add "\\Processor Information(*)\\% Processor Utility")
      local s0 = assert(q:collect())
      -- second: cpu0 busy 160 + 140 = 300 (+100) of 1200 (+200) at 3000 MHz;
      --         cpu1 busy 300 + 200 = 500 (+200) of 1200 (+200) at 1000 MHz
      stat("160 0 140 900 0 0 0 0 0 0", "300 0 200 700 0 0 0 0 0 0")
      put(F:format(0) .. "scaling_cur_freq", "3000000\n")
      put(F:format(1) .. "scaling_cur_freq", "1000000\n")
      -- the nominal frequency is read once (it does not change): this rewrite is not seen
      put(F:format(0) .. "base_frequency", "1000000\n")
      local s1 = assert(q:collect())
      local v = s1:values(s0, i)["% Processor Utility"]
      -- cpu0: 100 x 100 x 3000 / 2000 = 15000 over 200 ticks = 75 (50 % busy at 1.5x nominal)
      assert.near(75, v["0,0"], 1e-9)
      -- cpu1: 200 x 100 x 1000 / 2000 = 10000 over 200 ticks = 50 (100 % busy at half)
      assert.near(50, v["0,1"], 1e-9)
      -- the node and the machine weigh CPUs by ticks: (15000 + 10000) / (200 + 200) = 62.5
      assert.near(62.5, v["0,_Total"], 1e-9)
      assert.near(62.5, v._Total, 1e-9)
      local raw, base = s1:value(i, "0,0", "% Processor Utility")
      assert.equal(15000, raw)
      assert.equal(1200 - 1000, base)
      q:close()
      remove()
      -- without cpufreq (the basic tree) there is no nominal frequency: no value
      local qb = perflib.query { root = FX .. "basic", user_hz = 100 }
      i = assert(qb:add "\\Processor Information(*)\\% Processor Utility")
      s0 = assert(qb:collect())
      local _, st = assert(qb:collect()):values(s0, i)
      assert.equal("no_data", st["% Processor Utility"]["0,0"])
      assert.equal("no_data", st["% Processor Utility"]._Total)
      qb:close()
    end)

    it("copes with node numbers above the CPU count", function()
      local s, idx = processor("cpu-node-sparse")
      assert.same({ "1,0", "1,_Total", "3,1", "3,_Total", "_Total" }, s:results()[idx].instances)
      assert.equal(240 * T, select(2, s:value(idx, "3,_Total", "% Busy Time")))
    end)

    it("falls back to /proc/cpuinfo for the frequency", function()
      local s, idx = processor("cpu-cpuinfo")
      assert.equal(2394, (s:value(idx, "0,0", "Processor Frequency")))     -- 2394.456
      assert.equal(2395, (s:value(idx, "0,1", "Processor Frequency")))     -- 2394.500
      assert.equal("no_data", select(2, s:value(idx, "0,0", "% of Maximum Frequency")))
    end)

    it("fails the set on a malformed or missing /proc/stat", function()
      local s, idx = processor("cpu-bad-short")
      local r = s:results()[idx]
      assert.equal("error", r.shape)
      assert.matches("cpu%-bad%-short/proc/stat: Invalid argument", r.error)
      assert.equal("no_data", select(2, s:value(idx, "0,0", "% Busy Time")))
      s, idx = processor("cpu-huge")
      assert.matches("cpu%-huge/proc/stat: Invalid argument", s:results()[idx].error)
      s, idx = processor("no-such-tree")
      assert.matches("no%-such%-tree/proc/stat: No such file or directory", s:results()[idx].error)
      local cs = perflib.counterset("Processor Information", perflib.machine { root = FX .. "no-such-tree" })
      local t, msg = cs:instances()
      assert.is_nil(t)
      assert.matches("proc/stat", msg)
    end)
  end)

  describe("live machine", function()
    -- % counters whose sources only some machines have: cpufreq, the
    -- APERF/MPERF MSRs (root, the msr module), x86 thermal_throttle
    local NEEDS_HW = { ["% of Maximum Frequency"] = true, ["% Processor Utility"] = true,
                       ["% Privileged Utility"] = true, ["% Processor Performance"] = true,
                       ["% Performance Limit"] = true, ["% Core Throttled"] = true,
                       ["% Package Throttled"] = true }

    it("gives valid percentages between two samples", function()
      local q = perflib.query()
      local idx = assert(q:add("\\Processor Information(*)\\*"))
      local s0 = assert(q:collect())
      perflib.sleep(0.2)
      local s1 = assert(q:collect())
      local seen = {}
      for inst, v, st, counter in s1:formatted(s0, { index = idx }) do
        if counter == "% Busy Time" then
          assert.equal("valid", st, inst)
          if C.integers then assert.equal("float", C.math_type(v)) end
          assert.is_true(v >= 0 and v <= 100, inst .. " " .. v)
          seen[#seen + 1] = inst
        elseif counter:sub(1, 1) == "%" and not counter:find("C%d") and not NEEDS_HW[counter] then
          assert.equal("valid", st, inst .. " " .. counter)
        elseif NEEDS_HW[counter] and st ~= "valid" then     -- no_data where the source is absent
          assert.equal("no_data", st, inst .. " " .. counter)
        end
      end
      assert.equal("_Total", seen[#seen])
      assert.is_true(#seen >= 3)                   -- a CPU, its node and the machine
      for inst in pairs(s1:values(s0, idx)["% Busy Time"]) do
        local p = s1:format(s0, idx, inst, "% Busy Time", { nocap = true })
        local i = s1:format(s0, idx, inst, "% Idle Time", { nocap = true })
        assert.is.near(100, p + i, 1e-9)
      end
    end)

    it("agrees with the aggregate line of /proc/stat", function()
      local hz = perflib.machine().user_hz
      local q = perflib.query()
      local idx = assert(q:add("\\Processor Information(_Total)\\% Busy Time"))
      local before = stat_ticks()
      local s = assert(q:collect())
      local after = stat_ticks()
      local _, base = s:value(idx, "_Total", "% Busy Time")
      assert.equal("integer", C.math_type(base))
      local ticks = C.idiv(base, C.idiv(10000000, hz))
      -- read between two reads of the file: within their range, give or take
      -- a few ticks of iowait held back
      assert.is_true(ticks >= before - 50 and ticks <= after + 50,
                     ("%d ticks, /proc/stat %d..%d"):format(ticks, before, after))
    end)
  end)
end)
