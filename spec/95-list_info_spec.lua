-- perflua list --info SET [INSTANCE]: a counterset's text facts (perflib.info)
-- as sorted `instance<TAB>key<TAB>value` lines, on spec/fixtures/cpu-full (its
-- cpufreq, cpuidle, isolated and vulnerabilities files).
local cli = require "perflib.cli"
local perflib = require "perflib"

local sink = dofile "spec/support/sink.lua"
local machine = perflib.machine { root = "spec/fixtures/cpu-full", user_hz = 100 }

local function list(...)
  local out, err = sink(), sink()
  local code = cli.main({ "list", ... }, out, err, { machine = machine })
  return code, out:text(), err:text()
end

describe("perflua list --info", function()
  it("prints one instance's facts, sorted by key", function()
    local code, out, err = list("--info", "Processor Information", "0,1")
    assert.equal(0, code)
    assert.equal("", err)
    assert.equal("0,1\tdriver\tintel_pstate\n"
              .. "0,1\tenergy_performance_preference\tbalance_performance\n"
              .. "0,1\tgovernor\tpowersave\n", out)
  end)

  it("prints every instance's facts without an instance, instances sorted", function()
    local code, out = list("--info", "processor information")
    assert.equal(0, code)
    local n, first, last = 0, nil, nil
    for line in out:gmatch("([^\n]*)\n") do
      n = n + 1
      first = first or line
      last = line
    end
    assert.equal(3 + 3 + 8, n)                       -- 0,0 and 0,1: 3 each; _Total: 8
    assert.equal("0,0\tdriver\tintel_pstate", first)
    assert.equal("_Total\tvulnerability_spectre_v2\tMitigation: Retpolines; STIBP: disabled; RSB filling", last)
    assert.truthy(out:find("_Total\tvulnerability_spec_store_bypass\tVulnerable\n", 1, true))
  end)

  it("fails with a message for an unknown set, an unknown instance, a set without facts", function()
    local code, out, err, _ = list("--info", "No Such Set")
    assert.equal(1, code)
    assert.equal("", out)
    assert.equal("perflua list: no counterset 'No Such Set'\n", err)
    code, _, err = list("--info", "Processor Information", "5,5")
    assert.equal(1, code)
    assert.equal("perflua list: no instance '5,5' in 'Processor Information'\n", err)
    code, _, err = list("--info", "Memory")
    assert.equal(1, code)
    assert.equal("perflua list: counterset 'Memory' has no text facts\n", err)
    code, _, err = list("--info", "Processor Information", "0,_Total")
    assert.equal(1, code)
    assert.equal("perflua list: 'Processor Information' has no text facts here\n", err)
  end)
end)
