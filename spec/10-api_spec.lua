-- The module table, countersets, machines and the calculator.
local perflib = require "perflib"
local C = require "spec.support.compat"

local FIX = "spec/fixtures/basic"

describe("perflib module", function()
  it("loads the C core under the facade and sets no globals", function()
    assert.equals("perflib 0.1.0", perflib._VERSION)
    assert.is_function(perflib.query)
    assert.is_nil(rawget(_G, "perflib"))
    assert.is_nil(rawget(_G, "perflib.core"))
    assert.equals(require "perflib.core".query, perflib.query)
  end)

  it("is the build under test (plain or sanitized)", function()
    local path = package.searchpath("perflib.core", package.cpath):gsub("^%./", "")
    assert.equals(os.getenv "PERFLIB_CORE" or "build/perflib/core.so", path)
  end)

  it("enumerates the countersets with name, GUID and instance type", function()
    local seen = {}
    for cs in perflib.countersets() do
      assert.equals("counterset", perflib.type(cs))
      assert.matches("^%x+%-%x+%-%x+%-%x+%-%x+$", cs.guid)
      assert.is_true(cs.instance_type == "single" or cs.instance_type == "multiple")
      assert.is_boolean(cs.costly)
      assert.is_string(cs.help)
      seen[cs.name] = cs
    end
    assert.equals("b4fc721a-0378-476f-89ba-a5a79f810b36", seen["Processor Information"].guid)
    assert.equals("multiple", seen["Processor Information"].instance_type)
    -- UUIDv5 of the name in the perflib namespace (see src/providers/providers.h)
    assert.equals("146c2676-5548-53f3-b7e0-d4bd5161f27f", seen.Memory.guid)
    assert.equals("5823c5ba-7886-523b-9e1b-85b4b1272744", seen.System.guid)
    assert.equals("single", seen.Memory.instance_type)
  end)

  it("finds a counterset by name, case-insensitively, or by GUID", function()
    local a = perflib.counterset "processor information"
    local b = perflib.counterset "{B4FC721A-0378-476F-89BA-A5A79F810B36}"
    assert.equals(a, b)
    assert.equals("perflib.CounterSet (Processor Information)", tostring(a))
    local none, msg = perflib.counterset "Nope"
    assert.is_nil(none)
    assert.equals("no counterset 'Nope'", msg)
    assert.has_error(function() perflib.counterset() end,
      "bad argument #1 to 'counterset' (string expected, got no value)")
  end)

  it("answers a lookup that misses with nil and a message, never a bare nil", function()
    local cs = perflib.counterset "Memory"
    assert.same({ nil, "no counter 'Nope' in 'Memory'" }, { cs:counter "Nope" })
    assert.same({ nil, "no counter with id 999 in 'Memory'" }, { cs:counter(999) })
    assert.same({ nil, "no counterset 'Nope'" }, { perflib.counterset "Nope" })
    assert.same({ nil, "no counterset 'Nope'" }, { perflib.index_of "Nope" })
    assert.same({ nil, "no counter 'Nope' in 'Memory'" }, { perflib.index_of("Memory", "Nope") })
    assert.same({ nil, "no counter with id 999 in 'Memory'" }, { perflib.index_of("Memory", 999) })
    -- 3 is no counterset's index (they start at 1000) and, odd, no counter's name
    assert.same({ nil, "no counterset or counter has title index 3" }, { perflib.lookup(3) })
    -- each message works with assert
    assert.has_error(function() _G.assert(cs:counter "Nope") end)
  end)

  it("describes each counter with its winperf.h type", function()
    local cs = perflib.counterset "Processor Information"
    local by = {}
    for _, c in ipairs(cs.counters) do by[c.name] = c end
    assert.equals(#cs.counters, #cs)
    -- ids of the Windows set (seed 000) where Linux has the quantity
    assert.equals(0, by["% Processor Time"].id)
    assert.equals(1, by["% User Time"].id)
    assert.equals(2, by["% Privileged Time"].id)
    assert.equals(8, by["% Idle Time"].id)
    -- counter 0 is Windows' own: idle time against the 100 ns clock
    assert.equals(0x21510500, by["% Processor Time"].type)
    assert.equals("PERF_100NSEC_TIMER_INV", by["% Processor Time"].type_name)
    assert.is_nil(by["% Processor Time"].base)
    -- its tick-share twin, as mpstat counts, on the hidden tick base
    assert.equals(38, by["% Busy Time"].id)
    assert.equals(0x20570500, by["% Busy Time"].type)
    assert.equals("PERF_PRECISION_100NS_TIMER", by["% Busy Time"].type_name)
    assert.equals("Processor Time Base", by["% Busy Time"].base)
    assert.is_true(by["Processor Time Base"].hidden)
    assert.equals(perflib.types.PERF_PRECISION_TIMESTAMP, by["Processor Time Base"].type)
    assert.equals(0x10410500, by["Interrupts/sec"].type)
    assert.equals("novice", by["% Processor Time"].detail)
    assert.same(by["% Idle Time"], cs:counter(8))
    assert.same(by["% Idle Time"], cs:counter "% idle time")
    assert.is_nil(cs:counter "nope")
    assert.is_nil(cs:counter(1000))
  end)

  it("lists current instances without collecting values", function()
    local m = perflib.machine { root = FIX }
    local cs = m:counterset "Processor Information"
    local names = {}
    for _, inst in ipairs(cs:instances()) do names[#names + 1] = inst.name .. "=" .. inst.id end
    assert.same({ "0,0=0", "0,1=1", "0,_Total=" .. 0xFFFF0000, "_Total=" .. 0xFFFFFFFE }, names)
    assert.same({ { name = "", id = 0 } }, m:counterset("Memory"):instances())
  end)

  it("returns nil, message, errno when instances cannot be read", function()
    local m = perflib.machine { root = "spec/fixtures/does-not-exist" }
    local r, msg, errno = m:counterset("Processor Information"):instances()
    assert.is_nil(r)
    assert.equals("spec/fixtures/does-not-exist/proc/stat: No such file or directory", msg)
    assert.equals(2, errno)
  end)

  it("makes machines from options and rejects unknown ones", function()
    local m = perflib.machine { root = FIX, user_hz = 250, page_size = 16384 }
    assert.equals("machine", perflib.type(m))
    assert.equals(FIX, m.root)
    assert.equals(250, m.user_hz)
    assert.equals(16384, m.page_size)
    assert.equals("perflib.Machine (" .. FIX .. ")", tostring(m))
    assert.equals("/", perflib.machine().root)
    assert.has_error(function() perflib.machine { rot = "/" } end, "machine: unknown option 'rot'")
    assert.has_error(function() perflib.machine { user_hz = 0 } end)
    assert.has_error(function() perflib.machine { page_size = 1000 } end)
    assert.has_error(function() perflib.machine { root = "" } end)
    assert.has_error(function() perflib.machine "x" end)
  end)

  it("sleeps without busy-waiting and measures with a monotonic clock", function()
    local t0, c0 = perflib.clock(), os.clock()
    assert.is_true(perflib.sleep(0.2))
    local dt = perflib.clock() - t0
    assert.is_true(dt >= 0.2 and dt < 1.0, "slept " .. dt)
    assert.is_true(os.clock() - c0 < 0.05, "sleep used CPU time")
    if C.integers then assert.equals("float", C.math_type(perflib.clock())) end
    assert.has_error(function() perflib.sleep(-1) end)
    assert.has_error(function() perflib.sleep "x" end)
    assert.has_error(function() perflib.sleep(0 / 0) end)
  end)

  it("types values", function()
    assert.is_nil(perflib.type {})
    assert.is_nil(perflib.type(nil))
    local q = perflib.query()
    assert.equals("query", perflib.type(q))
    q:close()
    assert.equals("closed query", perflib.type(q))
  end)
end)

describe("perflib.calculate", function()
  local calc = perflib.calculate
  it("formats a rate from two raw values, newer first", function()
    -- 25000 context switches in 2.5 s (25e6 ticks at 1e7/s) = 10000/s
    local v, st = calc("PERF_COUNTER_BULK_COUNT", { value = 2497631, time = 25000000 },
      { value = 2472631, time = 0 })
    assert.equals("valid", st)
    if C.integers then assert.equals("float", C.math_type(v)) end
    assert.near(10000, v, 1e-9)
    v, st = calc(0x10410500, { value = 10, time = 20 }, { value = 0, time = 0 }, { freq = 10 })
    assert.equals("valid", st)
    assert.near(5, v, 1e-12)
  end)

  it("reports statuses instead of wrong numbers", function()
    local B = "PERF_COUNTER_BULK_COUNT"
    assert.same({ nil, "first_sample" }, { calc(B, { value = 5, time = 10 }) })
    assert.same({ nil, "negative_delta" }, { calc(B, { value = 4, time = 10 }, { value = 5, time = 0 }) })
    assert.same({ nil, "zero_interval" }, { calc(B, { value = 6, time = 0 }, { value = 5, time = 0 }) })
    assert.same({ nil, "negative_interval" }, { calc(B, { value = 6, time = 0 }, { value = 5, time = 9 }) })
    assert.same({ nil, "zero_base" }, { calc("PERF_LARGE_RAW_FRACTION", { value = 1, base = 0 }) })
    assert.same({ nil, "unsupported_type" }, { calc("PERF_LARGE_RAW_BASE", 7) })
  end)

  it("applies scale, caps percentages unless asked not to", function()
    assert.near(0.38, (calc("PERF_COUNTER_LARGE_RAWCOUNT", 38, nil, { scale = -2 })), 1e-15)
    assert.equals(100.0, (calc("PERF_100NSEC_TIMER", { value = 15, time = 10 }, { value = 0, time = 0 })))
    assert.equals(150.0, (calc("PERF_100NSEC_TIMER", { value = 15, time = 10 }, { value = 0, time = 0 },
      { nocap = true })))
    assert.equals(38000.0, (calc("PERF_COUNTER_LARGE_RAWCOUNT", 38, nil, { x1000 = true })))
  end)

  it("unwraps 32-bit values", function()
    local v = calc("PERF_COUNTER_COUNTER", { value = 5, time = 10000000, size = 4 },
      { value = 4294967290, time = 0, size = 4 })
    assert.near(11, v, 1e-12)
  end)

  it("rejects bad input with an error naming the argument", function()
    assert.has_error(function() perflib.calculate("PERF_NOPE", 1) end,
      "bad argument #1 to 'calculate' (unknown counter type 'PERF_NOPE')")
    assert.has_error(function() calc(0x12345678, 1) end)
    assert.has_error(function() calc("PERF_COUNTER_RAWCOUNT", 1.5) end)
    assert.has_error(function() calc("PERF_COUNTER_RAWCOUNT", { value = 1.5 }) end)
    assert.has_error(function() calc("PERF_COUNTER_RAWCOUNT", { valeu = 1 }) end,
      "calculate: unknown option 'valeu'")
    assert.has_error(function() calc("PERF_COUNTER_RAWCOUNT", 1, nil, { freq = 0 }) end)
    assert.has_error(function() calc("PERF_COUNTER_RAWCOUNT", 1, nil, { bogus = 1 }) end)
    assert.has_error(function() calc("PERF_COUNTER_RAWCOUNT", { value = 1, size = 2 }) end)
  end)
end)
