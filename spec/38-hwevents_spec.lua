-- Hardware Events: metadata, CPU enumeration on the hwev-* fixture trees, the
-- error block on any root but "/" (perf_event_open counts this machine, not
-- the tree), then a live smoke test that passes whatever this machine allows:
-- hardware events, software events only (a VM without a PMU), or nothing
-- (perf_event_paranoid > 0 without CAP_PERFMON).  Counting, multiplex scaling
-- and hotplug are tested in C with a fake perf_event_open (spec/c/test_hwevents.c).

local perflib = require "perflib"
local C = require "spec.support.compat"

local FX = "spec/fixtures/"
local TOTAL = 0xFFFFFFFE
local BULK = "PERF_COUNTER_BULK_COUNT"

local RATES = { "Cycles/sec", "Instructions/sec", "Cache References/sec", "Cache Misses/sec",
                "Branch Instructions/sec", "Branch Misses/sec", "Context Switches/sec",
                "CPU Migrations/sec", "Page Faults/sec" }

-- The CPUs of a cpulist such as "0-3,5".
local function cpulist(text)
  local cpus = {}
  for a, b in text:gmatch("(%d+)%-?(%d*)") do
    for c = C.tointeger(a), C.tointeger(b ~= "" and b or a) do cpus[#cpus + 1] = tostring(c) end
  end
  return cpus
end

describe("Hardware Events", function()
  describe("metadata", function()
    local cs = assert(perflib.counterset("Hardware Events"))

    it("is a costly multi-instance set with its GUID and title index", function()
      assert.equal("2d397b95-60ba-5777-8d2d-5ed96c99ccc6", cs.guid)
      assert.equal("multiple", cs.instance_type)
      assert.is_true(cs.costly)
      assert.equal("Hardware Events", perflib.lookup(27000).counterset)
      assert.equal("Cycles/sec", perflib.lookup(27002).text)           -- 27000 + 2 + 2 x id 0
    end)

    it("is in MetadataCostly, not in MetadataGlobal", function()
      local function has(list)
        for _, m in ipairs(list) do if m.name == "Hardware Events" then return true end end
        return false
      end
      assert.is_true(has(perflib.collect "MetadataCostly"))
      assert.is_false(has(perflib.collect "MetadataGlobal"))
    end)

    it("has the counters, types and hidden bases", function()
      local want = {
        { 0, "Cycles/sec", BULK }, { 1, "Instructions/sec", BULK },
        { 2, "Instructions Per Cycle", "PERF_AVERAGE_BULK", "Instructions Per Cycle Base" },
        { 3, "Instructions Per Cycle Base", "PERF_AVERAGE_BASE" },
        { 4, "Cache References/sec", BULK }, { 5, "Cache Misses/sec", BULK },
        { 6, "% Cache Miss Ratio", "PERF_SAMPLE_FRACTION", "Cache Miss Ratio Base" },
        { 7, "Cache Miss Ratio Base", "PERF_SAMPLE_BASE" },
        { 8, "Branch Instructions/sec", BULK }, { 9, "Branch Misses/sec", BULK },
        { 10, "% Branch Miss Ratio", "PERF_SAMPLE_FRACTION", "Branch Miss Ratio Base" },
        { 11, "Branch Miss Ratio Base", "PERF_SAMPLE_BASE" },
        { 12, "Context Switches/sec", BULK }, { 13, "CPU Migrations/sec", BULK },
        { 14, "Page Faults/sec", BULK },
        { 15, "% Counter Active", "PERF_SAMPLE_FRACTION", "Counter Active Base" },
        { 16, "Counter Active Base", "PERF_SAMPLE_BASE" },
      }
      assert.equal(#want, #cs.counters)
      for _, w in ipairs(want) do
        local c = cs:counter(w[1])
        assert.equal(w[2], c.name)
        assert.equal(w[3], c.type_name, w[2])
        assert.equal(w[4], c.base, w[2])
        assert.equal(w[2]:find("Base$") ~= nil, c.hidden, w[2])
      end
      assert.equal("novice", cs:counter("Instructions Per Cycle").detail)
      assert.equal("advanced", cs:counter("% Counter Active").detail)
    end)
  end)

  describe("CPU enumeration on fixtures", function()
    local function instances(tree)
      return perflib.machine({ root = FX .. tree }):counterset("Hardware Events"):instances()
    end

    it("lists the online CPUs and _Total, keyed by CPU number", function()
      assert.same({ { name = "0", id = 0 }, { name = "1", id = 1 }, { name = "_Total", id = TOTAL } },
                  instances("hwev-basic"))                        -- online "0-1"
      assert.same({ { name = "0", id = 0 }, { name = "2", id = 2 }, { name = "3", id = 3 },
                    { name = "_Total", id = TOTAL } }, instances("hwev-sparse"))   -- "0,2-3"
    end)

    it("falls back to the cpuN lines of /proc/stat without sysfs", function()
      local names = {}
      for _, i in ipairs(instances("hwev-nosys")) do names[#names + 1] = i.name end
      assert.same({ "0", "1", "3", "_Total" }, names)             -- cpu0 cpu1 cpu3
    end)

    it("fails with the file's path on broken trees", function()
      local cases = {
        { "hwev-garbage", "hwev%-garbage/sys/devices/system/cpu/online: Invalid argument", 22 },
        { "hwev-empty", "hwev%-empty/sys/devices/system/cpu/online: Invalid argument", 22 },
        { "hwev-huge", "hwev%-huge/sys/devices/system/cpu/online: Invalid argument", 22 },  -- 65536 CPUs
        { "hwev-stat-garbage", "hwev%-stat%-garbage/proc/stat: Invalid argument", 22 },
        { "hwev-missing", "hwev%-missing/proc/stat: No such file or directory", 2 },
      }
      for _, c in ipairs(cases) do
        local r, msg, errno = instances(c[1])
        assert.is_nil(r, c[1])
        assert.matches(c[2], msg)
        assert.equal(c[3], errno, c[1])
      end
    end)

    it("cannot count a machine below another root, and other sets still work", function()
      local q = perflib.query { root = FX .. "hwev-basic", user_hz = 100 }
      local i = assert(q:add("\\Hardware Events(*)\\*"))
      local j = assert(q:add("\\Processor Information(_Total)\\% Busy Time"))
      local s = assert(q:collect())
      local r = s:results()
      assert.equal("error", r[i].shape)
      assert.equal("Hardware Events: Operation not supported", r[i].error)
      assert.equal("no_data", select(2, s:value(i, "0", "Cycles/sec")))
      assert.is_nil(r[j].error)
      assert.equal(24320 * 100000, (s:value(j, "_Total", "% Busy Time")))   -- the basic tree
    end)
  end)

  describe("live machine", function()
    local fh = io.open("/sys/devices/system/cpu/online")
    local online = fh and cpulist(fh:read("*a")) or nil
    if fh then fh:close() end

    local q = perflib.query()
    local idx = assert(q:add("\\Hardware Events(*)\\*"))
    local s0 = assert(q:collect())
    local x = 0
    for k = 1, 2000000 do x = x + k % 7 end                     -- something to count
    perflib.sleep(0.05)
    local s1 = assert(q:collect())
    local r = s1:results()[idx]

    it("counts, or says why not", function()
      if r.error then
        -- not allowed (paranoid, no CAP_PERFMON), or nothing this kernel can count
        print("\n  Hardware Events: " .. r.error)
        assert.equal("error", r.shape)
        assert.is_truthy(r.error:find("perf_event_paranoid: ") or r.error:find("event_source/devices: ")
                         or r.error:find("^Hardware Events: "))
        return
      end
      if online then
        online[#online + 1] = "_Total"
        assert.same(online, r.instances)
      end
      assert.equal("_Total", r.instances[#r.instances])
      assert.equal(13, #r.counters)                             -- 17 less the 4 bases
      local seen = {}
      for inst, v, st, counter in s1:formatted(s0, { index = idx, nocap = true }) do
        -- a value is there or not (no PMU: hardware no_data); a ratio may have no base events
        assert.is_truthy(st == "valid" or st == "no_data" or st == "zero_base", inst .. " " .. counter .. " " .. st)
        if st == "valid" then
          assert.is_true(v >= 0, inst .. " " .. counter)
          seen[counter] = true
          if counter:sub(1, 1) == "%" then assert.is_true(v <= 100 + 1e-9, counter .. " " .. v) end
        end
      end
      local list = {}
      for name in pairs(seen) do list[#list + 1] = name end
      table.sort(list)
      print("\n  Hardware Events valid here: " .. table.concat(list, ", "))
    end)

    it("sums the CPUs into _Total and derives IPC from the raw counts", function()
      if r.error then return end
      for _, name in ipairs(RATES) do
        local total, st = s1:value(idx, "_Total", name)
        if st ~= "no_data" then
          local sum = 0
          for k = 1, #r.instances - 1 do sum = sum + assert((s1:value(idx, r.instances[k], name))) end
          assert.equal(sum, total, name)
          assert.equal("integer", C.math_type(total))
        end
      end
      local i1, c1 = s1:value(idx, "_Total", "Instructions Per Cycle")
      local i0, c0 = s0:value(idx, "_Total", "Instructions Per Cycle")
      if i1 and i0 and c1 > c0 then
        local v, st = s1:format(s0, idx, "_Total", "Instructions Per Cycle")
        assert.equal("valid", st)
        assert.is.near((i1 - i0) / (c1 - c0), v, 1e-9)
        assert.equal(c1, (s1:value(idx, "_Total", "Cycles/sec")))   -- the base is the cycle count
      end
    end)

    it("never goes backwards between samples", function()
      if r.error then return end
      for _, inst in ipairs(r.instances) do
        for _, name in ipairs(RATES) do
          local a, b = s0:value(idx, inst, name), s1:value(idx, inst, name)
          if C.math_type(a) == "integer" and C.math_type(b) == "integer" then
            assert.is_true(b >= a, inst .. " " .. name)
          end
        end
      end
    end)
  end)
end)
