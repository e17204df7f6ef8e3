-- Thermal Zone Information, Hardware Sensors, Battery, NUMA Node Memory and
-- Pressure Stall Information against the fixture trees in spec/fixtures
-- (run from the repository root), then on this machine.  Every expected
-- value is worked out by hand from the fixture files; the arithmetic is in the
-- comments.  sensors-laptop2 is sensors-laptop 10.00 s later, sensors-alt2 is
-- sensors-alt 10.00 s later.  Temperatures: m°C + 273150 = mK.

local perflib = require "perflib"

local FX = "spec/fixtures/"
local TEN_S = 100000000                           -- 10 s in 100 ns
local SETS = { thermal = "Thermal Zone Information", hwmon = "Hardware Sensors",
               battery = "Battery", numa = "NUMA Node Memory", psi = "Pressure Stall Information" }

-- One sample of \Set(*)\* below a fixture root; returns sample and index.
local function sample(tree, set)
  local q = perflib.query { root = FX .. tree }
  local idx = assert(q:add("\\" .. SETS[set] .. "(*)\\*"))
  return assert(q:collect()), idx
end

local function names(s, idx)
  local t = {}
  for inst in s:raw(idx) do
    if t[#t] ~= inst then t[#t + 1] = inst end
  end
  return t
end

-- Raw values of one instance, checked against `want` (nil = unset); every
-- visible counter of the set must be in `want` or in `unset`.
local function check_inst(s, idx, inst, want, unset)
  local seen = 0
  for i, v, _, counter in s:raw(idx) do
    if i == inst then
      seen = seen + 1
      if want[counter] ~= nil then
        assert.equal(want[counter], v, inst .. " " .. counter)
      else
        assert.is_true(unset == "rest" or (unset and unset[counter]), inst .. " " .. counter .. " unexpected")
        assert.is_nil(v, inst .. " " .. counter)
      end
    end
  end
  assert.is_true(seen > 0, "no instance " .. inst)
end

-- Rate or % between two raw values 10 s apart.
local function between(type_name, v0, v1, opts)
  return perflib.calculate(type_name, { value = v1, time = TEN_S }, { value = v0, time = 0 }, opts)
end

describe("sensor countersets", function()
  describe("metadata", function()
    it("has the title indexes, UUIDv5 GUIDs and multiple instances", function()
      local want = {
        thermal = { 17000, "cace5e07-63dd-55a6-b896-bed4217be40b", 3 },
        numa = { 18000, "df7d9d95-28c0-5132-87e8-d28cc08ca565", 51 },
        psi = { 19000, "0fc9bc92-5314-5798-aad1-c50cf22593be", 8 },
        hwmon = { 21000, "7989ac46-caeb-581d-a0d0-5885c8ba6509", 40 },
        battery = { 22000, "4a338c0c-2a93-5c18-abcd-b1b745704a48", 13 },
      }
      for key, w in pairs(want) do
        local cs = assert(perflib.counterset(SETS[key]))
        assert.equal(w[1], cs.index)
        assert.equal(w[2], cs.guid)
        assert.equal(w[3], #cs.counters)
        assert.equal("multiple", cs.instance_type)
        assert.is_false(cs.costly)
        for i, c in ipairs(cs.counters) do
          assert.equal(i - 1, c.id)                 -- ids are the table order
          assert.is_true(#c.help > 20 and c.help:sub(-1) == ".", c.name)
          if c.name:find("/sec") then assert.equal("PERF_COUNTER_BULK_COUNT", c.type_name) end
          if c.hidden then assert.equal(i - 2, cs.counters[i - 1].id) end
        end
      end
    end)

    it("declares the types and scales", function()
      local th = perflib.counterset(SETS.thermal)
      assert.equal("PERF_COUNTER_RAWCOUNT", th:counter("Temperature").type_name)
      assert.equal(-3, th:counter("Precise Temperature").scale)
      local psi = perflib.counterset(SETS.psi)
      assert.equal("PERF_100NSEC_TIMER", psi:counter("% Some Stall Time").type_name)
      assert.equal(-2, psi:counter("Some Avg10").scale)
      local hw = perflib.counterset(SETS.hwmon)
      assert.equal(-3, hw:counter("Temperature (K)").scale)
      assert.equal("PERF_COUNTER_BULK_COUNT", hw:counter("Energy Rate (mW)").type_name)
      local bat = perflib.counterset(SETS.battery)
      assert.equal("PERF_LARGE_RAW_FRACTION", bat:counter("% Charge").type_name)
      assert.is_true(bat:counter("% Charge Base").hidden)
      local numa = perflib.counterset(SETS.numa)
      assert.equal("PERF_SAMPLE_FRACTION", numa:counter("% Local Allocations").type_name)
    end)

    it("lists instances without reading values", function()
      local m = perflib.machine { root = FX .. "sensors-laptop" }
      local t = assert(perflib.counterset(SETS.hwmon, m):instances())
      assert.equal(13, #t)                                   -- 12 sensors and thinkpad/pwm1
      assert.equal("acpitz/temp1", t[1].name)
      assert.equal(1, t[1].id)       -- 0 << 16 | 0 << 12 | 1: hwmon0, temp, 1
      assert.equal("nvme#1/Composite", t[10].name)
      assert.equal(262145, t[10].id)  -- 4 << 16 | 0 << 12 | 1
      t = assert(perflib.counterset(SETS.numa, m):instances())
      assert.same({ "0", "1", "_Total" }, { t[1].name, t[2].name, t[3].name })
      t = assert(perflib.counterset(SETS.psi, m):instances())
      assert.equal(4, #t)
      t = assert(perflib.counterset(SETS.battery, m):instances())
      assert.same({ "BAT0", "BAT1", "hidpp_battery_0" }, { t[1].name, t[2].name, t[3].name })
      t = assert(perflib.counterset(SETS.thermal, m):instances())
      assert.equal(5, #t)
      assert.equal(10, t[5].id)
    end)
  end)

  describe("Thermal Zone Information", function()
    local s, idx = sample("sensors-laptop", "thermal")

    it("names zones by type, duplicates with #k, in numeric zone order", function()
      assert.same({ "acpitz", "acpitz#1", "x86_pkg_temp", "B0D4", "iwlwifi_1" }, names(s, idx))
    end)

    it("gives kelvin, tenths of kelvin and exact millikelvin", function()
      -- 27800 + 273150 = 300950 mK: 300.95 K -> 301, 3009.5 -> 3010
      check_inst(s, idx, "acpitz", { Temperature = 301, ["High Precision Temperature"] = 3010,
                                     ["Precise Temperature"] = 300950 })
      -- 29800 -> 302950 mK: 303 K, 3029.5 -> 3030
      check_inst(s, idx, "acpitz#1", { Temperature = 303, ["High Precision Temperature"] = 3030,
                                       ["Precise Temperature"] = 302950 })
      -- 45000 -> 318150 mK: 318.15 -> 318, 3181.5 -> 3182
      check_inst(s, idx, "x86_pkg_temp", { Temperature = 318, ["High Precision Temperature"] = 3182,
                                           ["Precise Temperature"] = 318150 })
      -- 52125 -> 325275 mK: 325.275 -> 325, 3252.75 -> 3253
      check_inst(s, idx, "B0D4", { Temperature = 325, ["High Precision Temperature"] = 3253,
                                   ["Precise Temperature"] = 325275 })
      -- empty temp (an iwlwifi zone answers ENODATA while the radio is off)
      check_inst(s, idx, "iwlwifi_1", {}, "rest")
      assert.is.near(325.275, (s:format(nil, idx, "B0D4", "Precise Temperature")), 1e-9)
      assert.equal(3253, (s:format(nil, idx, "B0D4", "High Precision Temperature")))
    end)

    it("follows the zone 10 s later", function()
      local s1, i1 = sample("sensors-laptop2", "thermal")
      assert.equal(302, (s1:value(i1, "acpitz", "Temperature")))        -- 28800 -> 301.95
      assert.equal(325, (s1:value(i1, "x86_pkg_temp", "Temperature")))  -- 52000 -> 325.15
    end)

    it("survives broken zones", function()
      local b, bi = sample("sensors-broken", "thermal")
      -- zone0 "abc", zone1 no type, zone2 no newline, zone3 below 0 K, zone4 no temp,
      -- zone5 a type with '\' and a temp with junk; thermal_zoneX is not a zone
      assert.same({ "acpitz", "thermal_zone1", "acpitz#1", "acpitz#2", "pch_skylake", "a_b" },
                  names(b, bi))
      check_inst(b, bi, "acpitz", {}, "rest")
      -- -5000 -> 268150 mK: 268.15 -> 268, 2681.5 -> 2682
      check_inst(b, bi, "thermal_zone1", { Temperature = 268, ["High Precision Temperature"] = 2682,
                                           ["Precise Temperature"] = 268150 })
      assert.equal(301, (b:value(bi, "acpitz#1", "Temperature")))
      for _, z in ipairs { "acpitz#2", "pch_skylake", "a_b" } do check_inst(b, bi, z, {}, "rest") end
    end)
  end)

  describe("Hardware Sensors", function()
    local s, idx = sample("sensors-laptop", "hwmon")

    it("names sensors <chip>/<label or file>, chips in hwmon order", function()
      assert.same({ "acpitz/temp1", "BAT0/in0", "BAT0/curr1", "coretemp/Package id 0", "coretemp/Core 0",
                    "coretemp/Core 1", "nvme/Composite", "nvme/Sensor 1", "nvme/Sensor 2",
                    "nvme#1/Composite", "thinkpad/fan1", "thinkpad/pwm1", "iwlwifi_1/temp1" },
                  names(s, idx))
    end)

    it("gives each sensor its own kind's counters only", function()
      check_inst(s, idx, "acpitz/temp1", { ["Temperature (K)"] = 300950,     -- 27800 + 273150
                                           ["Temperature Crit (K)"] = 392150 }, "rest")  -- 119000
      check_inst(s, idx, "BAT0/in0", { ["Voltage (mV)"] = 12386 }, "rest")
      check_inst(s, idx, "BAT0/curr1", { ["Current (mA)"] = 1520 }, "rest")
      -- coretemp: max and crit 100000 m°C + 273150 = 373150 mK, crit_alarm 0
      local core = { ["Temperature Max (K)"] = 373150, ["Temperature Crit (K)"] = 373150,
                     ["Crit Alarm"] = 0 }
      local function with(t, reading)
        local r = { ["Temperature (K)"] = reading }
        for k, v in pairs(t) do r[k] = v end
        return r
      end
      check_inst(s, idx, "coretemp/Package id 0", with(core, 318150), "rest")  -- 45000
      check_inst(s, idx, "coretemp/Core 0", with(core, 316150), "rest")        -- 43000
      check_inst(s, idx, "coretemp/Core 1", with(core, 317150), "rest")        -- 44000
      -- nvme: max 65261850 m°C = 65535 K exactly (the drive's "none"); min -273150 = 0 K
      local nvme = { ["Temperature Max (K)"] = 65261850 + 273150, ["Temperature Min (K)"] = 0 }
      check_inst(s, idx, "nvme/Composite", with(nvme, 312000), "rest")         -- 38850
      check_inst(s, idx, "nvme/Sensor 2", with(nvme, 315000), "rest")          -- 41850
      check_inst(s, idx, "nvme#1/Composite", { ["Temperature (K)"] = 309000 }, "rest")       -- 35850
      check_inst(s, idx, "thinkpad/fan1", { ["Fan Speed (RPM)"] = 2950 }, "rest")
      check_inst(s, idx, "thinkpad/pwm1", { ["Fan PWM (%)"] = 128, ["Fan Control Mode"] = 2 }, "rest")
      assert.equal(255, select(2, s:value(idx, "thinkpad/pwm1", "Fan PWM (%)")))   -- the base
      assert.is.near(100 * 128 / 255, (s:format(nil, idx, "thinkpad/pwm1", "Fan PWM (%)")), 1e-9)
      check_inst(s, idx, "iwlwifi_1/temp1", {}, "rest")                                      -- empty
      assert.is.near(312.0, (s:format(nil, idx, "nvme/Composite", "Temperature (K)")), 1e-9)
    end)

    -- within a chip: temp, in, fan, power, curr, energy, humidity, then the number
    it("covers power, energy, humidity, old layouts and duplicate labels (sensors-alt)", function()
      local a, ai = sample("sensors-alt", "hwmon")
      assert.same({ "w83627hf/temp1", "w83627hf/in0", "w83627hf/in1", "w83627hf/fan1",
                    "power_meter/power1", "amd_energy/Ecore000", "amd_energy/Esocket0",
                    "sht3x/temp1", "sht3x/humidity1", "ina3221/VDD_IN", "ina3221/power1",
                    "ina3221/VDD_IN#1", "hwmon5/temp1" }, names(a, ai))
      check_inst(a, ai, "w83627hf/temp1", { ["Temperature (K)"] = 310150 }, "rest")   -- device/ layout
      check_inst(a, ai, "w83627hf/in1", { ["Voltage (mV)"] = 3344 }, "rest")
      check_inst(a, ai, "w83627hf/fan1", { ["Fan Speed (RPM)"] = 2343 }, "rest")
      check_inst(a, ai, "power_meter/power1", { ["Power (mW)"] = 245000000 }, "rest") -- uW
      assert.equal(245000, (a:format(nil, ai, "power_meter/power1", "Power (mW)")))  -- 245 W
      check_inst(a, ai, "amd_energy/Ecore000", { ["Energy Rate (mW)"] = 1234567890,
                                                 ["Energy (J)"] = 1234567890 }, "rest")
      assert.is.near(1234.56789, (a:format(nil, ai, "amd_energy/Ecore000", "Energy (J)")), 1e-9)
      check_inst(a, ai, "sht3x/temp1", { ["Temperature (K)"] = 296606 }, "rest")      -- 23456
      check_inst(a, ai, "sht3x/humidity1", { ["Relative Humidity (%)"] = 45250 }, "rest")
      assert.is.near(45.25, (a:format(nil, ai, "sht3x/humidity1", "Relative Humidity (%)")), 1e-12)
      check_inst(a, ai, "ina3221/VDD_IN", { ["Voltage (mV)"] = 5104 }, "rest")
      check_inst(a, ai, "ina3221/VDD_IN#1", {}, "rest")           -- curr1 -120 mA: negative, unset
      check_inst(a, ai, "ina3221/power1", { ["Power (mW)"] = 612000 }, "rest")        -- _input over _average
      check_inst(a, ai, "hwmon5/temp1", { ["Temperature (K)"] = 323150 }, "rest")     -- no name file
    end)

    it("computes energy rates and power over 10 s", function()
      local a, ai = sample("sensors-alt", "hwmon")
      local b = sample("sensors-alt2", "hwmon")
      local function r(inst)
        return between("PERF_COUNTER_BULK_COUNT", (a:value(ai, inst, "Energy Rate (mW)")),
                       (b:value(ai, inst, "Energy Rate (mW)")), { scale = -3 })
      end
      assert.is.near(3500, r("amd_energy/Ecore000"), 1e-9)      -- 35000000 uJ / 10 s = 3.5 W
      assert.is.near(125000, r("amd_energy/Esocket0"), 1e-9)    -- 1250000000 uJ / 10 s = 125 W
      assert.equal(251500000, (b:value(ai, "power_meter/power1", "Power (mW)")))
    end)

    it("leaves garbage unset", function()
      local b, bi = sample("sensors-broken", "hwmon")
      -- temp1 garbage, temp2 empty, temp3 past 2^64, temp4 45000, temp5 "12" (no newline),
      -- temp6 -1000, fan1 -1, in0 a second line; hwmonx is not a chip
      assert.same({ "coretemp/temp1", "coretemp/temp2", "coretemp/temp3", "coretemp/temp4",
                    "coretemp/temp5", "coretemp/temp6", "coretemp/in0", "coretemp/fan1" }, names(b, bi))
      for _, i in ipairs { "temp1", "temp2", "temp3", "in0", "fan1" } do
        check_inst(b, bi, "coretemp/" .. i, {}, "rest")
      end
      assert.equal(318150, (b:value(bi, "coretemp/temp4", "Temperature (K)")))
      assert.equal(273162, (b:value(bi, "coretemp/temp5", "Temperature (K)")))   -- 12 + 273150
      assert.equal(272150, (b:value(bi, "coretemp/temp6", "Temperature (K)")))   -- -1000 + 273150
    end)
  end)

  describe("Battery", function()
    local s, idx = sample("sensors-laptop", "battery")

    it("lists Battery supplies only, in name order", function()
      assert.same({ "BAT0", "BAT1", "hidpp_battery_0" }, names(s, idx))   -- not AC, not ucsi (USB)
    end)

    it("reads energy_* batteries", function()
      check_inst(s, idx, "BAT0", {
        ["% Charge"] = 44140000,                  -- energy_now uWh
        ["Discharge Rate (mW)"] = 9817000,        -- power_now uW
        ["Remaining Capacity (mWh)"] = 44140000,
        Status = 2,                               -- Discharging
        ["Mains Online"] = 0,                     -- AC online 0
        ["Full Charge Capacity (mWh)"] = 56590000,
        ["Design Capacity (mWh)"] = 57020000,
        ["Voltage (mV)"] = 12386000,
        ["Cycle Count"] = 143,
      }, { ["Remaining Charge (mAh)"] = true, ["Full Charge (mAh)"] = true, ["Design Charge (mAh)"] = true })
      local v, b = s:value(idx, "BAT0", "% Charge")
      assert.equal(44140000, v)
      assert.equal(56590000, b)                   -- energy_full
      assert.is.near(100 * 44140000 / 56590000, (s:format(nil, idx, "BAT0", "% Charge")), 1e-9)  -- 77.9997
      assert.is.near(9817, (s:format(nil, idx, "BAT0", "Discharge Rate (mW)")), 1e-9)
      assert.is.near(44140, (s:format(nil, idx, "BAT0", "Remaining Capacity (mWh)")), 1e-9)
    end)

    it("reads charge_* batteries", function()
      check_inst(s, idx, "BAT1", {
        ["% Charge"] = 2080000,                   -- charge_now uAh
        ["Discharge Rate (mW)"] = 15325200,       -- 1290000 uA x 11880000 uV / 10^6 = 15325200 uW
        Status = 1,                               -- Charging
        ["Mains Online"] = 0,
        ["Remaining Charge (mAh)"] = 2080000,
        ["Full Charge (mAh)"] = 3980000,
        ["Design Charge (mAh)"] = 4400000,
        ["Voltage (mV)"] = 11880000,
        ["Cycle Count"] = 0,
      }, { ["Remaining Capacity (mWh)"] = true, ["Full Charge Capacity (mWh)"] = true,
           ["Design Capacity (mWh)"] = true })
      assert.equal(3980000, select(2, s:value(idx, "BAT1", "% Charge")))   -- charge_full
      assert.is.near(100 * 2080000 / 3980000, (s:format(nil, idx, "BAT1", "% Charge")), 1e-9)  -- 52.26
      assert.is.near(15325.2, (s:format(nil, idx, "BAT1", "Discharge Rate (mW)")), 1e-9)
    end)

    it("falls back to capacity for device batteries", function()
      check_inst(s, idx, "hidpp_battery_0", { ["% Charge"] = 55, Status = 2, ["Mains Online"] = 0 }, "rest")
      assert.equal(100, select(2, s:value(idx, "hidpp_battery_0", "% Charge")))
      assert.equal(55, (s:format(nil, idx, "hidpp_battery_0", "% Charge")))
    end)

    it("leaves garbage unset", function()
      local b, bi = sample("sensors-broken", "battery")
      -- energy_full 0: falls through to capacity 78 / 100; status Bogus; power_now abc and
      -- no current_now; voltage_now 12386000x; cycle_count -1; energy_full_design empty;
      -- AC online 1 wins over ADP2's "x"
      check_inst(b, bi, "BAT0", { ["% Charge"] = 78, ["Remaining Capacity (mWh)"] = 44140000,
                                  ["Mains Online"] = 1, ["Full Charge Capacity (mWh)"] = 0 }, "rest")
      assert.equal(100, select(2, b:value(bi, "BAT0", "% Charge")))
    end)
  end)

  describe("NUMA Node Memory", function()
    local s, idx = sample("sensors-laptop", "numa")
    local s1 = sample("sensors-laptop2", "numa")

    it("has the online nodes and _Total", function()
      assert.same({ "0", "1", "_Total" }, names(s, idx))
    end)

    -- The other node meminfo lines (ids 16 and up), kB of node0 and node1
    -- as the fixture files give them; bytes = kB x 1024, _Total the sum.
    local KB = 1024
    local lines = {
      ["Used Bytes"] = { 6406876, 2232820 }, ["Swap Cached Bytes"] = { 0, 0 },
      ["Active Bytes"] = { 2345672, 812340 }, ["Inactive Bytes"] = { 3012464, 1100568 },
      ["Active Anon Bytes"] = { 1012340, 402116 }, ["Inactive Anon Bytes"] = { 230112, 80212 },
      ["Active File Bytes"] = { 1333332, 410224 }, ["Unevictable Bytes"] = { 17152, 0 },
      ["Mlocked Bytes"] = { 15484, 0 }, ["Writeback Bytes"] = { 0, 0 },
      ["Mapped Bytes"] = { 412300, 80120 }, ["Shared Bytes"] = { 54320, 1520 },
      ["Kernel Stack Bytes"] = { 18320, 9872 }, ["Page Table Bytes"] = { 24880, 8120 },
      ["Secondary Page Table Bytes"] = { 0, 0 }, ["NFS Unstable Bytes"] = { 0, 0 },
      ["Bounce Bytes"] = { 0, 0 }, ["Writeback Temp Bytes"] = { 0, 0 },
      ["Kernel Reclaimable Bytes"] = { 310744, 120352 },
      ["Slab Reclaimable Bytes"] = { 310744, 120352 }, ["Slab Unreclaimable Bytes"] = { 109372, 50160 },
      ["Anon Huge Pages Bytes"] = { 43008, 0 }, ["Shmem Huge Pages Bytes"] = { 0, 0 },
      ["Shmem Pmd Mapped Bytes"] = { 0, 0 }, ["File Huge Pages Bytes"] = { 0, 0 },
      ["File Pmd Mapped Bytes"] = { 0, 0 },
    }
    local counts = { "Total Huge Pages", "Free Huge Pages", "Surplus Huge Pages" }  -- 0 pages each
    -- highmem, ShadowCallStack and Unaccepted: no such lines on this kernel
    local absent = { ["High Total Bytes"] = true, ["High Free Bytes"] = true,
                     ["Low Total Bytes"] = true, ["Low Free Bytes"] = true,
                     ["Shadow Call Stack Bytes"] = true, ["Unaccepted Bytes"] = true }
    local function with_lines(node, t)
      for name, kb in pairs(lines) do
        t[name] = node and kb[node] * KB or (kb[1] + kb[2]) * KB
      end
      for _, name in ipairs(counts) do t[name] = 0 end
      return t
    end

    it("converts node meminfo and numastat", function()
      assert.equal(6406876 * KB, (s:value(idx, "0", "Used Bytes")))        -- 6560641024
      assert.equal((6406876 + 2232820) * KB, (s:value(idx, "_Total", "Used Bytes")))  -- 8846028800
      check_inst(s, idx, "0", with_lines(1, {
        ["Total MBytes"] = 15900,                 -- 16281996 kB / 1024 = 15900.4
        ["Free & Zero Page List MBytes"] = 9643,  -- 9875120 / 1024 = 9643.7
        ["Available MBytes"] = 12664,             -- 9875120 + 2782352 + 310744 = 12968216 / 1024 = 12664.3
        ["Standby List MBytes"] = 2717,           -- Inactive(file) 2782352 / 1024 = 2717.1
        ["File MBytes"] = 4072,                   -- 4170532 / 1024 = 4072.8
        ["Anon MBytes"] = 1199,                   -- 1228440 / 1024 = 1199.6
        ["Slab MBytes"] = 410,                    -- 420116 / 1024 = 410.3
        ["Dirty MBytes"] = 2,                     -- 2148 / 1024 = 2.1
        ["Local Allocations/sec"] = 98190012,
        ["Remote Allocations/sec"] = 24648,
        ["NUMA Hits/sec"] = 98213456,
        ["NUMA Misses/sec"] = 1204,
        ["NUMA Foreign/sec"] = 3311,
        ["Interleave Hits/sec"] = 26543,
        ["% Local Allocations"] = 98190012,
      }), absent)
      check_inst(s, idx, "1", with_lines(2, {
        ["Total MBytes"] = 16126,                 -- 16513232 / 1024 = 16126.2
        ["Free & Zero Page List MBytes"] = 13945, -- 14280412 / 1024 = 13945.7
        ["Available MBytes"] = 15059,             -- 14280412 + 1020356 + 120352 = 15421120 / 1024 = 15059.7
        ["Standby List MBytes"] = 996,            -- 1020356 / 1024 = 996.4
        ["File MBytes"] = 1398, ["Anon MBytes"] = 471, ["Slab MBytes"] = 166, ["Dirty MBytes"] = 0,
        ["Local Allocations/sec"] = 40101234, ["Remote Allocations/sec"] = 23064,
        ["NUMA Hits/sec"] = 40120987, ["NUMA Misses/sec"] = 3311, ["NUMA Foreign/sec"] = 1204,
        ["Interleave Hits/sec"] = 26601, ["% Local Allocations"] = 40101234,
      }), absent)
      -- _Total sums kB before dividing: 16281996 + 16513232 = 32795228 / 1024 = 32026.6
      check_inst(s, idx, "_Total", with_lines(nil, {
        ["Total MBytes"] = 32026,
        ["Free & Zero Page List MBytes"] = 23589, -- 24155532 / 1024 = 23589.4
        ["Available MBytes"] = 27723,             -- 12968216 + 15421120 = 28389336 / 1024 = 27723.9
        ["Standby List MBytes"] = 3713,           -- 3802708 / 1024 = 3713.6
        ["File MBytes"] = 5471,                   -- 5602632 / 1024 = 5471.3
        ["Anon MBytes"] = 1670,                   -- 1710768 / 1024 = 1670.7
        ["Slab MBytes"] = 576,                    -- 590628 / 1024 = 576.8
        ["Dirty MBytes"] = 2,                     -- 2244 / 1024
        ["Local Allocations/sec"] = 98190012 + 40101234, ["Remote Allocations/sec"] = 24648 + 23064,
        ["NUMA Hits/sec"] = 98213456 + 40120987, ["NUMA Misses/sec"] = 1204 + 3311,
        ["NUMA Foreign/sec"] = 3311 + 1204, ["Interleave Hits/sec"] = 26543 + 26601,
        ["% Local Allocations"] = 98190012 + 40101234,
      }), absent)
      assert.equal(98190012 + 24648, select(2, s:value(idx, "0", "% Local Allocations")))
    end)

    it("computes allocation rates and % local over 10 s", function()
      local bulk = "PERF_COUNTER_BULK_COUNT"
      local function r(inst, c)
        return between(bulk, (s:value(idx, inst, c)), (s1:value(idx, inst, c)))
      end
      assert.is.near(9400, r("0", "Local Allocations/sec"), 1e-9)    -- 94000 / 10
      assert.is.near(110, r("0", "Remote Allocations/sec"), 1e-9)    -- 1100 / 10
      assert.is.near(9500, r("0", "NUMA Hits/sec"), 1e-9)            -- 95000 / 10
      assert.is.near(10, r("0", "NUMA Misses/sec"), 1e-9)            -- 100 / 10
      assert.is.near(10, r("1", "NUMA Foreign/sec"), 1e-9)
      assert.is.near(1, r("1", "Interleave Hits/sec"), 1e-9)
      assert.is.near(12350, r("_Total", "Local Allocations/sec"), 1e-9)  -- (94000 + 29500) / 10
      local v0, b0 = s:value(idx, "0", "% Local Allocations")
      local v1, b1 = s1:value(idx, "0", "% Local Allocations")
      local pct = perflib.calculate("PERF_SAMPLE_FRACTION", { value = v1, base = b1 }, { value = v0, base = b0 })
      assert.is.near(100 * 94000 / 95100, pct, 1e-9)                  -- 98.84 %
      assert.equal(4, (s1:value(idx, "0", "Dirty MBytes")))            -- 4196 / 1024
    end)

    it("handles sparse nodes, garbage and a bad online list", function()
      local a, ai = sample("sensors-alt", "numa")
      assert.same({ "0", "2", "_Total" }, names(a, ai))             -- online "0,2"
      assert.equal(64512, (a:value(ai, "2", "Total MBytes")))        -- 66060288 / 1024
      assert.equal(63722, (a:value(ai, "2", "Available MBytes")))    -- 65252000 / 1024 = 63722.7
      local b, bi = sample("sensors-broken", "numa")
      assert.same({ "0", "1", "_Total" }, names(b, bi))
      -- node0: MemFree 98x5120, FilePages -4170532, SReclaimable cut off, numa_hit 12x45
      check_inst(b, bi, "0", { ["Total MBytes"] = 15900, ["Standby List MBytes"] = 2717,
                               ["Dirty MBytes"] = 2, ["Local Allocations/sec"] = 98190012,
                               ["Remote Allocations/sec"] = 24648, ["NUMA Misses/sec"] = 0,
                               ["% Local Allocations"] = 98190012,
                               -- the last line, without '\n', is whole (pl_file_read)
                               ["Slab Reclaimable Bytes"] = 3107 * KB }, "rest")
      check_inst(b, bi, "1", {}, "rest")                             -- no files at all
      check_inst(b, bi, "_Total", {}, "rest")                        -- node1 has nothing to add
      local e, ei = sample("sensors-badonline", "numa")
      local r = e:results()[ei]
      assert.equal("error", r.shape)
      assert.matches("sys/devices/system/node/online: Invalid argument", r.error)
    end)
  end)

  describe("Pressure Stall Information", function()
    local s, idx = sample("sensors-laptop", "psi")
    local s1 = sample("sensors-laptop2", "psi")

    it("has cpu, io, memory and irq", function()
      assert.same({ "cpu", "io", "memory", "irq" }, names(s, idx))
    end)

    it("keeps totals in 100 ns and averages in hundredths", function()
      check_inst(s, idx, "cpu", { ["% Some Stall Time"] = 217988630,   -- 21798863 us x 10
                                  ["% Full Stall Time"] = 0, ["Some Avg10"] = 41, ["Some Avg60"] = 233,
                                  ["Some Avg300"] = 267, ["Full Avg10"] = 0, ["Full Avg60"] = 0,
                                  ["Full Avg300"] = 0 })
      check_inst(s, idx, "io", { ["% Some Stall Time"] = 49391310, ["% Full Stall Time"] = 43703500,
                                 ["Some Avg10"] = 0, ["Some Avg60"] = 4, ["Some Avg300"] = 21,
                                 ["Full Avg10"] = 0, ["Full Avg60"] = 4, ["Full Avg300"] = 17 })
      -- irq has a full line only
      check_inst(s, idx, "irq", { ["% Full Stall Time"] = 12345670, ["Full Avg10"] = 12,
                                  ["Full Avg60"] = 5, ["Full Avg300"] = 1 }, "rest")
      assert.is.near(2.33, (s:format(nil, idx, "cpu", "Some Avg60")), 1e-12)
    end)

    it("gives % stalled over 10 s", function()
      local t100 = "PERF_100NSEC_TIMER"
      local function pct(inst, c)
        return between(t100, (s:value(idx, inst, c)), (s1:value(idx, inst, c)))
      end
      assert.is.near(2.5, pct("cpu", "% Some Stall Time"), 1e-9)   -- 250000 us of 10 s
      assert.is.near(0, pct("cpu", "% Full Stall Time"), 1e-9)
      assert.is.near(1, pct("io", "% Some Stall Time"), 1e-9)      -- 100000 us
      assert.is.near(0.5, pct("io", "% Full Stall Time"), 1e-9)    -- 50000 us
      assert.is.near(0.2, pct("irq", "% Full Stall Time"), 1e-9)   -- 20000 us
      assert.equal(250, (s1:value(idx, "cpu", "Some Avg10")))
    end)

    it("leaves the cpu full line of old kernels and garbage unset", function()
      local a, ai = sample("sensors-alt", "psi")
      assert.same({ "cpu", "io", "memory" }, names(a, ai))           -- no irq before 6.1
      check_inst(a, ai, "cpu", { ["% Some Stall Time"] = 9876543210, ["Some Avg10"] = 1208,
                                 ["Some Avg60"] = 987, ["Some Avg300"] = 750 }, "rest")
      local b, bi = sample("sensors-broken", "psi")
      assert.same({ "cpu", "io", "memory" }, names(b, bi))
      -- avg60=zz; the full line ends in "tot" without a newline: its averages count
      check_inst(b, bi, "cpu", { ["% Some Stall Time"] = 217988630, ["Some Avg10"] = 41,
                                 ["Some Avg300"] = 267, ["Full Avg10"] = 0, ["Full Avg60"] = 0,
                                 ["Full Avg300"] = 0 }, "rest")
      check_inst(b, bi, "io", {}, "rest")                            -- empty file
      check_inst(b, bi, "memory", {}, "rest")                        -- "garbage"
    end)
  end)

  describe("a machine without the sources", function()
    it("gives zero instances, not errors, and leaves other sets alone", function()
      local q = perflib.query { root = FX .. "sensors-none" }
      local idx = {}
      for key, name in pairs(SETS) do idx[key] = assert(q:add("\\" .. name .. "(*)\\*")) end
      local s = assert(q:collect())
      for key, i in pairs(idx) do
        local r = s:results()[i]
        assert.are_not.equal("error", r.shape, key)
        assert.same({}, names(s, i))
      end
      local m = perflib.machine { root = FX .. "sensors-none" }
      for _, name in pairs(SETS) do
        assert.same({}, assert(perflib.counterset(name, m):instances()))
      end
    end)

    it("keeps the other sets of a query when NUMA fails", function()
      local q = perflib.query { root = FX .. "sensors-badonline" }
      local n = assert(q:add("\\NUMA Node Memory(*)\\*"))
      local p = assert(q:add("\\Pressure Stall Information(cpu)\\Some Avg10"))
      local s = assert(q:collect())
      assert.equal("error", s:results()[n].shape)
      assert.equal(41, (s:value(p, "cpu", "Some Avg10")))
    end)
  end)

  describe("live machine", function()
    it("collects every set twice without errors", function()
      local q = perflib.query()
      local idx = {}
      for key, name in pairs(SETS) do idx[key] = assert(q:add("\\" .. name .. "(*)\\*")) end
      local s0 = assert(q:collect())
      perflib.sleep(0.1)
      local s1 = assert(q:collect())
      for key, i in pairs(idx) do
        assert.are_not.equal("error", s1:results()[i].shape, key)
      end
      for inst, v, st, counter in s1:formatted(s0, { index = idx.psi }) do
        if counter:sub(1, 1) == "%" and v then
          assert.equal("valid", st, inst .. " " .. counter)
          assert.is_true(v >= 0 and v <= 100, inst .. " " .. counter)
        end
      end
      for inst, v, _, counter in s1:raw(idx.thermal) do
        if v and counter == "Temperature" then
          assert.is_true(v > 200 and v < 400, inst)   -- kelvin of a working machine
        end
      end
    end)

    it("lists NUMA nodes matching sysfs", function()
      local fh = io.open("/sys/devices/system/node/online")
      local t = assert(perflib.counterset(SETS.numa):instances())
      if not fh then
        assert.same({}, t)
        return
      end
      fh:close()
      assert.equal("_Total", t[#t].name)
      assert.equal("0", t[1].name)
    end)
  end)
end)
