-- perflib.info and Machine:info: the text facts of a counterset's instances
-- (the info op), against spec/fixtures/cpu-full (its cpufreq, cpuidle,
-- isolated and vulnerabilities files), then on this machine.
local perflib = require "perflib"

local FX = "spec/fixtures/cpu-full"
local PI = "Processor Information"

local function count(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n
end

describe("perflib.info", function()
  local M = perflib.machine { root = FX, user_hz = 100 }

  it("gives one CPU's cpufreq facts", function()
    local f = assert(perflib.info(PI, "0,1", M))
    assert.same({ governor = "powersave", driver = "intel_pstate",
                  energy_performance_preference = "balance_performance" }, f)
  end)

  it("gives the machine's facts on _Total, one key per vulnerability file", function()
    local f = assert(M:info(PI, "_Total"))
    assert.equal(8, count(f))
    assert.equal("1", f.isolated)
    assert.equal("", f.nohz_full)                    -- "(null)" in the file: no list
    assert.equal("intel_idle", f.cpuidle_driver)
    assert.equal("menu", f.cpuidle_governor)
    assert.equal("Not affected", f.vulnerability_meltdown)
    assert.equal("Vulnerable", f.vulnerability_spec_store_bypass)
    assert.equal("Vulnerable: Clear CPU buffers attempted, no microcode; SMT vulnerable", f.vulnerability_mds)
    assert.equal("Mitigation: Retpolines; STIBP: disabled; RSB filling", f.vulnerability_spectre_v2)
  end)

  it("gives every instance's facts by instance without an instance, those without facts left out", function()
    local all = assert(M:info(PI))
    assert.same({ "0,0", "0,1", "_Total" }, (function()
      local k = {}
      for name in pairs(all) do k[#k + 1] = name end
      table.sort(k)
      return k
    end)())
    assert.equal("powersave", all["0,0"].governor)
    assert.equal("Vulnerable", all._Total.vulnerability_spec_store_bypass)
    assert.same(assert(M:info("processor information", "0,0")), all["0,0"])   -- names case-insensitive
    assert.same({}, assert(M:info(PI, "0,_Total")))                           -- a node total: none
  end)

  it("finds the same facts under Processor's V1 names", function()
    assert.equal("intel_pstate", assert(M:info("Processor", "1")).driver)
  end)

  it("matches Vulnerable's count with the facts", function()
    local f = assert(M:info(PI, "_Total"))
    local n = 0
    for k, v in pairs(f) do
      if k:match("^vulnerability_") and v:match("^Vulnerable") then n = n + 1 end
    end
    local q = M:query()
    local i = assert(q:add("\\Processor Information(_Total)\\Vulnerable"))
    assert.equal(2, n)
    assert.equal(n, (q:collect():value(i, "_Total")))
    q:close()
  end)

  it("says what is missing: a set, an instance, a set without facts, an unreadable machine", function()
    local v, msg = M:info("No Such Set")
    assert.is_nil(v)
    assert.equal("no counterset 'No Such Set'", msg)
    local e
    v, msg, e = M:info(PI, "7,7")
    assert.is_nil(v)
    assert.equal("no instance '7,7' in 'Processor Information'", msg)
    assert.equal(2, e)                                -- ENOENT
    v, msg, e = M:info("Memory")
    assert.is_nil(v)
    assert.equal("counterset 'Memory' has no text facts", msg)
    assert.is_number(e)                               -- ENOTSUP
    v, msg, e = perflib.machine({ root = "/nonexistent" }):info(PI)
    assert.is_nil(v)
    assert.matches("^Processor Information: ", msg)
    assert.equal(2, e)
  end)

  it("raises on misuse, naming the argument", function()
    assert.has_error(function() return (perflib.info({})) end,
                     "bad argument #1 to 'info' (string expected, got table)")
    assert.has_error(function() return (perflib.info(PI, {})) end,
                     "bad argument #2 to 'info' (string expected, got table)")
    assert.has_error(function() return (perflib.info(PI, nil, 42)) end)
    assert.has_error(function() return (M:info("Memory", "x")) end,
                     "bad argument #2 to 'info' (a single-instance set has no instance names)")
    assert.has_error(function() return (M.info(42, PI)) end)
  end)

  it("takes the default machine when only the set is given", function()
    local all = assert(perflib.info(PI))            -- every instance's facts
    assert.is_table(all["_Total"])
    local p = io.popen("uname -r")
    local release = p:read("*l")
    p:close()
    local sys = assert(perflib.info("System"))    -- a single-instance set
    assert.equal(release, sys.kernel_release)
  end)

  it("reads this machine's facts: every vulnerability file is a key", function()
    local files = 0
    local p = io.popen("ls /sys/devices/system/cpu/vulnerabilities 2>/dev/null")
    for _ in p:lines() do files = files + 1 end
    p:close()
    local f = assert(perflib.info(PI, "_Total"))
    local keys = 0
    for k in pairs(f) do
      if k:match("^vulnerability_") then keys = keys + 1 end
    end
    assert.equal(files, keys)
  end)
end)
