-- Units and semantics on every counter, and the exporter's metric names (issue 13,
-- item 1): every built-in counter declares a unit and semantics that agree with its
-- type; counter tables carry them; perflib.metric_name gives Prometheus names,
-- checked by hand against the naming conventions; perflib.define and perflib.derive
-- take them (misuse raising); Prometheus textfile families take them from the
-- metric name's suffix and TYPE; .plugin files from Unit n / Semantics n.
-- Names of sets made here start with U99 / u99_ so that they meet no other spec's.
local perflib = require "perflib"
local files = dofile "spec/support/files.lua"

-- The built-in sets hold the fixed title indexes 1000 .. 28000 (sets defined from Lua
-- by other specs take 900,000,000 and up, plug-ins and textfiles 1,000,000,000 and up).
local function builtin_sets()
  local out = {}
  for cs in perflib.countersets() do
    if cs.index <= 28000 then out[#out + 1] = cs end
  end
  return out
end

-- Types whose formula needs two samples: their raw value must be cumulative.
local TWO = {
  PERF_COUNTER_COUNTER = true, PERF_COUNTER_BULK_COUNT = true, PERF_SAMPLE_COUNTER = true,
  PERF_COUNTER_100NS_QUEUELEN_TYPE = true, PERF_100NSEC_TIMER = true, PERF_100NSEC_TIMER_INV = true,
  PERF_PRECISION_100NS_TIMER = true, PERF_SAMPLE_FRACTION = true, PERF_SAMPLE_BASE = true,
  PERF_AVERAGE_TIMER = true, PERF_AVERAGE_BULK = true, PERF_AVERAGE_BASE = true,
}
-- Types whose raw value is time.
local TIMER = {
  PERF_100NSEC_TIMER = true, PERF_100NSEC_TIMER_INV = true, PERF_PRECISION_100NS_TIMER = true,
  PERF_AVERAGE_TIMER = true, PERF_ELAPSED_TIME = true, PERF_COUNTER_100NS_QUEUELEN_TYPE = true,
}

describe("units of the built-in counters", function()
  it("are declared on every counter of every set and agree with its type", function()
    local sets, n = builtin_sets(), 0
    assert.is_true(#sets >= 28)
    for _, cs in ipairs(sets) do
      for _, c in ipairs(cs.counters) do
        n = n + 1
        local where = cs.name .. "\\" .. c.name .. " (" .. c.type_name .. ")"
        assert.is_true(c.units_declared, where)
        assert.is_not.equals("undeclared", c.unit, where)
        assert.truthy(({ counter = 1, gauge = 1, discrete = 1 })[c.semantics], where)
        assert.is_true(c.unit_scale > 0, where)
        if TWO[c.type_name] then assert.equals("counter", c.semantics, where) end
        if TIMER[c.type_name] then
          assert.equals("seconds", c.unit, where)
          assert.equals(1e-7, c.unit_scale, where)           -- perflib's timers count 100 ns
        end
        if c.type_name:match "RAW_FRACTION$" then assert.is_not.equals("counter", c.semantics, where) end
        assert.equals(cs.name, c.counterset)
      end
    end
    assert.is_true(n >= 491)
  end)

  it("follow each counter's source: KiB, MHz, 100 ns, millikelvin, microwatts, MiB", function()
    local function u(path)
      local set, name = path:match "^(.-)\\(.*)$"
      local c = assert(perflib.counterset(set):counter(name), path)
      return { c.unit, c.unit_scale, c.semantics, c.formatted_unit }
    end
    assert.same({ "bytes", 1, "gauge", "bytes" }, u [[Memory\Available Bytes]])
    assert.same({ "bytes", 1024, "gauge", "KiB" }, u [[Memory\Available KBytes]])
    assert.same({ "bytes", 1048576, "gauge", "MiB" }, u [[Memory\Available MBytes]])
    assert.same({ "bytes", 1, "discrete", "bytes" }, u [[Memory\Total Bytes]])
    assert.same({ "count", 1, "counter", "/s" }, u [[Memory\Page Faults/sec]])
    assert.same({ "seconds", 1e-7, "counter", "percent" }, u [[Processor Information\% Processor Time]])
    assert.same({ "hertz", 1e6, "gauge", "MHz" }, u [[Processor Information\Processor Frequency]])
    assert.same({ "bytes", 1, "counter", "bytes/s" }, u [[PhysicalDisk\Disk Read Bytes/sec]])
    assert.same({ "seconds", 1e-7, "counter", "seconds/op" }, u [[PhysicalDisk\Avg. Disk sec/Read]])
    assert.same({ "bytes", 1, "counter", "bytes/op" }, u [[PhysicalDisk\Avg. Disk Bytes/Read]])
    assert.same({ "bytes", 1048576, "gauge", "MiB" }, u [[LogicalDisk\Free Megabytes]])
    assert.same({ "seconds", 1e-7, "discrete", "seconds" }, u [[System\System Up Time]])
    assert.same({ "kelvin", 1e-3, "gauge", "kelvin" }, u [[Thermal Zone Information\Precise Temperature]])
    -- raw microwatts shown with scale -3: milliwatts
    assert.same({ "watts", 1e-6, "gauge", "mW" }, u [[Battery\Discharge Rate (mW)]])
    -- raw microwatt-hours: 3.6e-3 joules each
    assert.same({ "joules", 3.6e-3, "gauge", "x3.6 joules" }, u [[Battery\Remaining Capacity (mWh)]])
    assert.same({ "percent", 0.01, "gauge", "percent" }, u [[Pressure Stall Information\Some Avg10]])
    assert.same({ "bytes_per_second", 0.125, "discrete", "x0.125 bytes_per_second" },
                u [[Network Interface\Current Bandwidth]])
    local f = perflib.counterset("Network Interface"):counter("Bytes Received/sec").formatted
    assert.same({ unit = "bytes", scale = 1, per = "second" }, f)
  end)
end)

describe("the V1 units table", function()
  it("perflib.collect 'Units 009' gives each counter's units line by its name index", function()
    local t = perflib.collect "Units 009"
    -- Processor Information is index 1000; counter id k is named at 1000 + 2 + 2k
    assert.equals("unit=seconds scale=1e-07 semantics=counter formatted=percent type=counter factor=1e-07 "
      .. "metric=perflib_processor_information_percent_processor_time_inverse_seconds_total", t[1000 + 2 + 2 * 0])
    assert.equals("unit=hertz scale=1000000 semantics=gauge formatted=MHz type=gauge factor=1000000 "
      .. "metric=perflib_processor_information_processor_frequency_hertz", t[1000 + 2 + 2 * 17])
    assert.is_nil(t[1000])      -- a set's own index names no counter
    assert.is_nil(t[1003])      -- nor a help index
    -- one line per counter, the same as each counter's metadata says
    local n = 0
    for cs in perflib.countersets() do
      for _, c in ipairs(cs.counters) do
        n = n + 1
        local line = t[c.index]
        assert.is_string(line, cs.name .. "\\" .. c.name)
        assert.equals(c.unit, line:match "^unit=(%S+)", c.name)
        assert.equals(c.semantics, line:match " semantics=(%S+)", c.name)
      end
    end
    local m = 0
    for _ in pairs(t) do m = m + 1 end
    assert.equals(n, m)
  end)
end)

describe("perflib.metric_name", function()
  it("names representative counters as Prometheus' conventions ask", function()
    local want = {
      { [[\Processor Information(_Total)\% Processor Time]],
        "perflib_processor_information_percent_processor_time_inverse_seconds_total", "counter", 1e-7 },
      { [[\Processor Information(0,0)\Interrupts/sec]], "perflib_processor_information_interrupts_total",
        "counter", 1 },
      { [[\Processor Information(_Total)\Processor Frequency]],
        "perflib_processor_information_processor_frequency_hertz", "gauge", 1e6 },
      { [[\Memory\Available Bytes]], "perflib_memory_available_bytes", "gauge", 1 },
      { [[\Memory\Available KBytes]], "perflib_memory_available_kbytes_bytes", "gauge", 1024 },
      { [[\Memory\Page Faults/sec]], "perflib_memory_page_faults_total", "counter", 1 },
      { [[\Memory\Page-in Bytes/sec]], "perflib_memory_page_in_bytes_total", "counter", 1 },
      { [[\Memory\OOM Kills]], "perflib_memory_oom_kills_total", "counter", 1 },
      { [[\Network Interface(*)\Bytes Received/sec]], "perflib_network_interface_received_bytes_total",
        "counter", 1 },
      { [[\Network Interface(*)\Current Bandwidth]],
        "perflib_network_interface_current_bandwidth_bytes_per_second", "gauge", 0.125 },
      { [[\PhysicalDisk(*)\Avg. Disk sec/Read]], "perflib_physicaldisk_avg_disk_read_seconds_total",
        "counter", 1e-7 },
      { [[\PhysicalDisk(*)\Avg. Disk sec/Read Base]], "perflib_physicaldisk_avg_disk_read_base_total",
        "counter", 1 },
      { [[\LogicalDisk(*)\Free Megabytes]], "perflib_logicaldisk_free_66_bytes", "gauge", 1048576 },
      { [[\LogicalDisk(*)\Free Bytes]], "perflib_logicaldisk_free_bytes", "gauge", 1 },
      { [[\Process(*)\Thread Count]], "perflib_process_threads", "gauge", 1 },
      { [[\System\System Up Time]], "perflib_system_system_up_time_seconds", "gauge", 1e-7 },
      { [[\Process(*)\ID Process]], "perflib_process_id_process", "gauge", 1 },
      { [[\Thermal Zone Information(*)\Temperature]], "perflib_thermal_zone_information_temperature_kelvin",
        "gauge", 1 },
      { [[\Pressure Stall Information(cpu)\Some Avg10]],
        "perflib_pressure_stall_information_some_avg10_percent", "gauge", 0.01 },
      { [[\Battery(*)\Voltage (mV)]], "perflib_battery_voltage_mv_volts", "gauge", 1e-6 },
    }
    for _, w in ipairs(want) do
      local name, ty, factor = perflib.metric_name(w[1])
      assert.equals(w[2], name, w[1])
      assert.equals(w[3], ty, w[1])
      assert.near(w[4], factor, w[4] * 1e-12, w[1])
    end
  end)

  it("takes a counter table as well, and is unique and valid within every set", function()
    local c = perflib.counterset("Memory"):counter "Cache Bytes"
    assert.equals("perflib_memory_cache_bytes", (perflib.metric_name(c)))
    for _, cs in ipairs(builtin_sets()) do
      local seen = {}
      for _, k in ipairs(cs.counters) do
        local name, ty = perflib.metric_name(k)
        assert.matches("^[a-zA-Z_:][a-zA-Z0-9_:]*$", name)
        assert.is_nil(name:find "__", name)
        assert.is_nil(seen[name], cs.name .. ": " .. name)
        seen[name] = k.name
        assert.equals(k.semantics == "counter" and "counter" or "gauge", ty)
        if ty == "counter" then assert.matches("_total$", name) end
      end
    end
  end)

  it("fails for what names no counter and raises on misuse", function()
    local v, msg = perflib.metric_name [[\U99 No Such Set\X]]
    assert.is_nil(v)
    assert.equals("no counterset 'U99 No Such Set'", msg)
    v, msg = perflib.metric_name [[\Memory\U99 Nothing]]
    assert.is_nil(v)
    assert.equals("counterset 'Memory' has no counter 'U99 Nothing'", msg)
    assert.error_matches(function() perflib.metric_name(42) end, "counter path or counter table expected")
    assert.error_matches(function() perflib.metric_name [[\Memory\*]] end, "no wildcards")
    assert.error_matches(function() perflib.metric_name "Memory" end, "not a counter path")
    assert.error_matches(function() perflib.metric_name { name = "Cache Bytes" } end, "needs 'counterset'")
  end)
end)

describe("units declared from Lua", function()
  it("perflib.define takes unit and semantics, derives the rest from the type", function()
    local cs = assert(perflib.define {
      name = "U99 Defined",
      counters = {
        { name = "Queue Bytes", unit = "KiB" },
        { name = "Sent/sec", type = "PERF_COUNTER_BULK_COUNT", unit = "bytes" },
        { name = "Limit", unit = "count", semantics = "discrete" },
        { name = "Plain" },
      },
      collect = function() return {} end,
    })
    local a, b, l, p = cs:counter "Queue Bytes", cs:counter "Sent/sec", cs:counter "Limit", cs:counter "Plain"
    assert.same({ "bytes", 1024, "gauge", true }, { a.unit, a.unit_scale, a.semantics, a.units_declared })
    assert.same({ "bytes", "counter", "bytes/s" }, { b.unit, b.semantics, b.formatted_unit })
    assert.same({ "count", "discrete" }, { l.unit, l.semantics })
    assert.same({ "count", "gauge", false }, { p.unit, p.semantics, p.units_declared })
    assert.equals("perflib_u99_defined_sent_bytes_total", (perflib.metric_name(b)))
  end)

  it("perflib.define raises for an unknown unit or semantics, or one its type contradicts", function()
    local function def(c)
      return function()
        perflib.define { name = "U99 Bad", counters = { c }, collect = function() return {} end }
      end
    end
    assert.error_matches(def { name = "X", unit = "furlongs" }, "unit 'furlongs' is not a unit")
    assert.error_matches(def { name = "X", semantics = "rate" }, "semantics 'rate' is not counter, gauge or discrete")
    assert.error_matches(def { name = "X", unit = 3 }, "a counter's unit must be a string")
    assert.error_matches(def { name = "X/sec", type = "PERF_COUNTER_BULK_COUNT", semantics = "gauge" },
                         "must be cumulative")
    assert.error_matches(def { name = "% X", type = "PERF_100NSEC_TIMER", unit = "bytes" }, "is a timer")
    assert.is_nil(perflib.counterset "U99 Bad")
  end)

  it("perflib.derive declares a unit it knows and keeps any other text in the help", function()
    local cs = assert(perflib.derive {
      name = "U99 Derived",
      counters = {
        { name = "Avail MiB", formula = [[ [\Memory\Available Bytes] / 1048576 ]], unit = "MiB" },
        { name = "Faults", formula = [[ [\Memory\Page Faults/sec] ]], unit = "faults/s" },
        { name = "Up", formula = [[ [\System\System Up Time] ]], unit = "s", semantics = "counter" },
      },
    })
    local m, f, up = cs:counter "Avail MiB", cs:counter "Faults", cs:counter "Up"
    assert.same({ "bytes", 1048576, "gauge" }, { m.unit, m.unit_scale, m.semantics })
    assert.matches("(unit: MiB)", m.help, 1, true)
    assert.same({ "none", "gauge" }, { f.unit, f.semantics })
    assert.matches("(unit: faults/s)", f.help, 1, true)
    assert.same({ "seconds", 1, "counter" }, { up.unit, up.unit_scale, up.semantics })
    assert.error_matches(function()
      perflib.derive { name = "U99 Derived Bad", counters = { { name = "X", formula = "1", semantics = "often" } } }
    end, "semantics 'often'")
  end)
end)

describe("units of Prometheus textfile families", function()
  local dir, remove = files.tempdir()
  setup(function()
    files.write(dir .. "/u99.prom", table.concat({
      "# TYPE u99_moved_bytes_total counter", "u99_moved_bytes_total 10",
      "# TYPE u99_temp_celsius gauge", "u99_temp_celsius 21.5",
      "# TYPE u99_wait_seconds histogram",
      'u99_wait_seconds_bucket{le="1"} 1', 'u99_wait_seconds_bucket{le="+Inf"} 2',
      "u99_wait_seconds_sum 3.5", "u99_wait_seconds_count 2",
      "# TYPE u99_plain gauge", "u99_plain 1", "",
    }, "\n"))
    assert.is_true(perflib.load_textfiles(dir))
  end)
  teardown(remove)

  it("come from the metric name's base-unit suffix and the family's TYPE", function()
    local function u(set, name)
      local c = assert(perflib.counterset(set):counter(name))
      return { c.unit, c.unit_scale, c.semantics }
    end
    assert.same({ "bytes", 1, "counter" }, u("Prometheus u99_moved_bytes_total", "Value"))
    assert.same({ "bytes", 1e-3, "counter" }, u("Prometheus u99_moved_bytes_total", "Value/sec"))
    assert.same({ "celsius", 1, "gauge" }, u("Prometheus u99_temp_celsius", "Value"))
    assert.same({ "none", 1, "gauge" }, u("Prometheus u99_plain", "Value"))
    -- a histogram's buckets and counts are counts; its sum is in the family's unit
    assert.same({ "count", 1, "counter" }, u("Prometheus u99_wait_seconds", "Value"))
    assert.same({ "seconds", 1, "counter" }, u("Prometheus u99_wait_seconds", "Sum"))
    assert.same({ "count", 1, "counter" }, u("Prometheus u99_wait_seconds", "Count"))
    assert.same({ "seconds", 1e-3, "counter" }, u("Prometheus u99_wait_seconds", "Average"))
    -- Value and Value/sec are one cumulative series (the second x 1000): both take their id
    assert.equals("perflib_prometheus_u99_moved_bytes_total_value_0_bytes_total",
                  (perflib.metric_name [[\Prometheus u99_moved_bytes_total({})\Value]]))
    assert.equals("perflib_prometheus_u99_moved_bytes_total_value_bytes_total",   -- the finer of the two
                  (perflib.metric_name [[\Prometheus u99_moved_bytes_total({})\Value/sec]]))
  end)
end)

describe("units of .plugin counters", function()
  local CPATH = os.getenv "PERFLIB_CORE" and "./build/san/?.so" or "./build/?.so"
  local LIB = files.cwd() .. "/build/examples/plugins/libtransferpeer.so"

  -- transferpeer.plugin with these lines in [object Transfer], loaded in a child lua5.4.
  local function child(extra)
    local dir, remove = files.tempdir()
    local conf = files.read("examples/plugins/transferpeer.plugin")
      :gsub("Library = [^\n]+", "Library = " .. LIB)
      :gsub("%[object Transfer%]\n", "[object Transfer]\n" .. extra .. "\n")
    files.write(dir .. "/tp.plugin", conf)
    files.write(dir .. "/case.lua", [[
local perflib = require "perflib"
local p = perflib.plugins()[1]
print("state", p.state, p.error)
local t = perflib.counterset "Transfer"
if t then
  for _, c in ipairs(t.counters) do print(c.name, c.unit, c.unit_scale, c.semantics, c.units_declared) end
end]])
    local out, rc = files.run(("PERFLIB_PLUGIN_DIR=%q LUA_PATH_5_4='./lua/?.lua;./lua/?/init.lua;;' "
      .. "LUA_CPATH_5_4='%s;;' timeout -k 5 60 lua5.4 %s"):format(dir, CPATH, dir .. "/case.lua"))
    remove()
    return out, rc
  end

  it("come from Unit n and Semantics n, the others from their type", function()
    local out, rc = child "Unit 2 = KiB\nSemantics 2 = counter\nUnit 6 = bytes"
    assert.equals(0, rc, out)
    assert.matches("state\trunning", out, 1, true)
    assert.matches("Bytes Sent\tbytes\t1024.0\tcounter\ttrue", out, 1, true)
    assert.matches("Available Bandwidth\tcount\t1.0\tgauge\tfalse", out, 1, true)
    assert.matches("Total Bandwidth\tbytes\t1.0\tgauge\ttrue", out, 1, true)
  end)

  it("refuse a unit perflib does not know, or semantics the type contradicts", function()
    local out = child "Unit 2 = furlongs"
    assert.matches("Unit 2 of object 'Transfer' is 'furlongs', not a unit", out, 1, true)
    out = child "Semantics 4 = counter"
    assert.matches("state\tfailed", out, 1, true)
    assert.matches("'Available Bandwidth' (PERF_RAW_FRACTION) is a one-sample fraction", out, 1, true)
  end)
end)

describe("values printed with their units", function()
  local pretty = require "perflib.pretty"

  it("pretty.quantity puts the unit after the number", function()
    assert.equals("12.5%", pretty.quantity(12.5, "percent"))
    assert.equals("3/s", pretty.quantity(3, "/s"))
    assert.equals("1024 bytes/s", pretty.quantity(1024, "bytes/s"))
    assert.equals("2.0 MHz", pretty.quantity(2.0, "MHz"))
    assert.equals("7", pretty.quantity(7, ""))
    assert.equals("7", pretty.quantity(7))
    assert.equals("-", pretty.quantity(nil, "bytes"))
    assert.equals("1.50G bytes", pretty.quantity(1.5e9, "bytes", "1.50G"))
  end)

  it("pretty.values gives a result's values with units, statuses where not valid", function()
    local q = perflib.query()
    assert(q:add [[\Memory\Available KBytes]])
    assert(q:add [[\Memory\Page Faults/sec]])
    local s0 = assert(q:collect())
    local v = pretty.values(s0, nil, 1)
    local raw = s0:values(nil, 1)["Available KBytes"][""]
    assert.equals(pretty.number(raw) .. " KiB", v["Available KBytes"][""])
    assert.equals("first_sample", pretty.values(s0, nil, 2)["Page Faults/sec"][""])
    local s1 = assert(q:collect())
    assert.matches("^[%d.e+-]+/s$", pretty.values(s1, s0, 2)["Page Faults/sec"][""])
  end)

  it("the monitor's view shows each rule's values with its counter's unit", function()
    local V = require "perflib.view"
    local rule = { name = "U99Mem", source = [[\Memory\Available MBytes]] }
    local raw = { name = "U99Raw", source = [[\Memory\Available MBytes]], value = { fn = "raw" } }
    local eng = { rules = { rule, raw },
                  explain = function(_, name) return { name = name, alerts = {}, instances = {} } end }
    local frame = { [rule.source] = { instances = { "" }, value = { [""] = 512 } } }
    local text = V.render(eng, { seq = 1, interval = 1, path = "x", frame = frame })
    assert.matches("\nU99Mem%s+ok%s+512 MiB\n", text)
    assert.matches("\nU99Raw%s+ok%s+512\n", text)
  end)
end)
