-- perflua promrules: a rules file's thresholds as Prometheus alerting rules,
-- checked by Prometheus' own promtool (Debian's prometheus 2.42).
local perflib = require "perflib"
local core = require "perflib.core"
local P = require "perflib.promrules"
local A = dofile "spec/support/alerting.lua"

local PERFLUA = "build/perflua"
local PROMTOOL = "/usr/bin/promtool"

local function run(argv, dir)
  local out, err = dir .. "/out", dir .. "/err"
  os.remove(out)
  os.remove(err)
  local pid = assert(core.spawn(argv, nil, { stdout = out, stderr = err }))
  local _, code = core.wait(pid)
  return code, A.slurp(out) or "", A.slurp(err) or ""
end

local RULES = [==[
R.defaults { every = "10s" }
R.rule "CpuBusy" {
  source = [[\Processor Information(_Total)\% Processor Time]], value = R.avg "1m",
  when = R.above(90):clears_below(75), pending = "5m", keep = "90s", labels = { team = "ops" },
  message = "cpu {instance} busy {value:%.0f}%",
}
R.rule "CpuTicks" {
  source = [[\Processor Information(_Total)\% Processor Time]], value = R.rate "5m", when = R.above(5e6),
}
R.rule "NetRx" {
  source = [[\Network Interface(eth*)\Bytes Received/sec]], levels = { warn = R.above(1e6), crit = R.above(1e8) },
}
R.rule "MemLow" {
  source = [[\Memory\Available Bytes]], value = R.min "5m", when = R.below(1e8), every = "30s",
}
R.rule "ByFunction" { sources = { [[\Memory\Available Bytes]] }, when = function() return false end }
R.rule "ByPattern" {
  source = [[\Processor Information(*)\% Processor Time]], instances = "^%d+,%d+$", when = R.above(1),
}
]==]

describe("perflua promrules", function()
  local dir
  setup(function() dir = A.tmpdir() end)
  teardown(function() os.execute("rm -rf " .. dir) end)

  it("names metrics by the exporter's rule, behind one function", function()
    local function name(set, counter)
      return { P.metric_name(set, perflib.counterset(set):counter(counter)) }
    end
    if perflib.metric_name then      -- the library's own naming, once it has it
      assert.same({ perflib.metric_name [[\Memory\Available Bytes]] }, name("Memory", "Available Bytes"))
      return
    end
    assert.same({ "perflib_memory_available_bytes", "gauge", 1 }, name("Memory", "Available Bytes"))
    assert.same({ "perflib_network_interface_bytes_received_total", "counter", 1 },
      name("Network Interface", "Bytes Received/sec"))
    -- raw 100 ns ticks: seconds are raw x 1e-7
    assert.same({ "perflib_processor_information_percent_processor_time_seconds_total", "counter", 1e-7 },
      name("Processor Information", "% Processor Time"))
  end)

  it("writes alert, expr, for, keep_firing_for, labels and annotations; lists what it skips", function()
    local rules = dir .. "/rules.lua"
    local f = assert(io.open(rules, "w"))
    f:write(RULES)
    f:close()
    local code, yaml, err = run({ PERFLUA, "promrules", rules }, dir)
    assert.equals(0, code, err)
    local cpu = P.metric_name("Processor Information",
      perflib.counterset("Processor Information"):counter("% Processor Time"))
    local net = P.metric_name("Network Interface",
      perflib.counterset("Network Interface"):counter("Bytes Received/sec"))
    local mem = P.metric_name("Memory", perflib.counterset("Memory"):counter("Available Bytes"))
    -- CpuTicks: 5e6 ticks of 100 ns per second is 5e6 x 1e-7 = 0.5 s per second
    local want = ([[
# perflua promrules: Prometheus alerting rules from a perflib rules file
groups:
  - name: "perflib_10s"
    interval: 10s
    rules:
      - alert: "CpuBusy"
        expr: "100 * (1 - rate(CPU{instance_name=\"_Total\"}[1m])) > 90"
        for: 5m
        keep_firing_for: 1m30s
        labels:
          severity: "warn"
          team: "ops"
        annotations:
          perflib_source: "\\Processor Information(_Total)\\% Processor Time"
          summary: "cpu {{ $labels.instance_name }} busy {{ printf \"%.0f\" $value }}%"
      - alert: "CpuTicks"
        expr: "rate(CPU{instance_name=\"_Total\"}[5m]) > 0.5"
        labels:
          severity: "warn"
        annotations:
          perflib_source: "\\Processor Information(_Total)\\% Processor Time"
          summary: "CpuTicks on {{ $labels.instance_name }}: {{ $value }}"
      - alert: "NetRx"
        expr: "rate(NET{instance_name=~\"eth.*\"}[1m]) > 1000000"
        labels:
          severity: "warn"
        annotations:
          perflib_source: "\\Network Interface(eth*)\\Bytes Received/sec"
          summary: "NetRx on {{ $labels.instance_name }}: {{ $value }}"
      - alert: "NetRx"
        expr: "rate(NET{instance_name=~\"eth.*\"}[1m]) > 100000000"
        labels:
          severity: "crit"
        annotations:
          perflib_source: "\\Network Interface(eth*)\\Bytes Received/sec"
          summary: "NetRx on {{ $labels.instance_name }}: {{ $value }}"
  - name: "perflib_30s"
    interval: 30s
    rules:
      - alert: "MemLow"
        expr: "min_over_time(MEM[5m]) < 100000000"
        labels:
          severity: "warn"
        annotations:
          perflib_source: "\\Memory\\Available Bytes"
          summary: "MemLow on {{ $labels.instance_name }}: {{ $value }}"
]]):gsub("CPU", cpu):gsub("NET", net):gsub("MEM", mem)
    assert.equals(want, yaml)
    assert.equals(table.concat({
      'perflua promrules: skipped rule "ByFunction": a Lua function condition',
      'perflua promrules: skipped rule "ByPattern": `instances` is a Lua pattern ("^%d+,%d+$"): only "^name$" '
        .. "has a PromQL form",
      "perflua promrules: note: rule CpuBusy warn: hysteresis (clears at 75) dropped: Prometheus has none",
      "perflua promrules: 4 rule(s) written, 2 skipped", "" }, "\n"), err)
    if not io.open(PROMTOOL) then pending("promtool is not installed (apt-get install prometheus)") return end
    local out = dir .. "/rules.yml"
    assert.equals(0, (run({ PERFLUA, "promrules", rules, "-o", out }, dir)))
    assert.equals(want, A.slurp(out))
    local pc, pout, perr = run({ PROMTOOL, "check", "rules", out }, dir)
    assert.equals(0, pc, pout .. perr)
    assert.matches("SUCCESS: 5 rules found", pout .. perr, 1, true)
  end)

  it("says why a rule cannot be written, and fails a file that does not load", function()
    local only = dir .. "/only.lua"
    local f = assert(io.open(only, "w"))
    f:write([==[R.rule "G" { source = [[\Memory\Available Bytes]], value = R.rate "1m", when = R.above(1) }]==])
    f:close()
    local code, yaml, err = run({ PERFLUA, "promrules", only }, dir)
    assert.equals(1, code)
    assert.equals("# perflua promrules: Prometheus alerting rules from a perflib rules file\ngroups: []\n", yaml)
    assert.matches('skipped rule "G": R.rate of a gauge (PERF_COUNTER_LARGE_RAWCOUNT): Prometheus\' rate is for '
      .. "counters", err, 1, true)
    local bad = dir .. "/bad.lua"
    f = assert(io.open(bad, "w"))
    f:write("R.rule 'X' { when = R.above(1) ")
    f:close()
    code, yaml, err = run({ PERFLUA, "promrules", bad }, dir)
    assert.equals(2, code)
    assert.equals("", yaml)
    assert.matches("syntax", err)
    code, yaml, err = run({ PERFLUA, "promrules" }, dir)
    assert.equals(2, code)
    assert.matches("missing argument 'RULES.lua'\nusage: perflua promrules [-o FILE] [-h] <RULES.lua>\n", err, 1, true)
    assert.equals("", yaml)
    code, yaml, err = run({ PERFLUA, "promrules", only, "--frobnicate" }, dir)
    assert.equals("", yaml)
    assert.equals(2, code)
    assert.matches("unexpected --frobnicate", err, 1, true)
  end)

  it("is in perflua's list of rule tools", function()
    local code, out = run({ PERFLUA, "-h" }, dir)
    assert.equals(0, code)
    assert.matches("Rule tools: perflua monitor|check|explain|record|replay|promrules", out, 1, true)
    code, out = run({ PERFLUA, "promrules", "--help" }, dir)
    assert.equals(0, code)
    assert.matches("^usage: perflua promrules %[%-o FILE%] %[%-h%] <RULES%.lua>\n", out)
    assert.matches("-o FILE,%s+Write the YAML to FILE", out)
    assert.matches("--output FILE", out, 1, true)
  end)
end)
