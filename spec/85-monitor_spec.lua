-- perflua monitor / check / explain, end to end on this machine: a rule that
-- must fire (a CPU burner the spec starts) and one that must not, signals
-- (TERM stops cleanly, HUP reloads keeping state), and the checker.
local perflib = require "perflib"

local files = dofile "spec/support/files.lua"
local write, read, run = files.write, files.read, files.run

local PERFLUA = "build/perflua"




local RULES = [[
local R = require "perflib.rules"
R.defaults { every = "1s", keep = "0s" }
R.rule "Busy" {
  source = "\\Processor Information(_Total)\\% Processor Time",
  value = R.last(), when = R.above(30):clears_below(20), pending = "0s", severity = "crit",
  message = "busy {value:%.0f}%",
}
R.rule "Never" {
  source = "\\Memory\\Available Bytes", value = R.last(), when = R.below(1), message = "never",
}
R.route { actions = { R.jsonl "OUTFILE" } }
]]

describe("perflua monitor", function()
  local dir, remove
  before_each(function() dir, remove = files.tempdir() end)
  after_each(function() remove() end)

  it("fires a rule that must fire and not one that must not", function()
    if not io.open(PERFLUA) then pending("build/perflua not built") return end
    local rules, jsonl = dir .. "/rules.lua", dir .. "/alerts.jsonl"
    write(rules, (RULES:gsub("OUTFILE", jsonl)))
    -- one CPU of the two kept busy for 8 s: _Total near 50 %
    os.execute("lua5.4 -e 'local e = os.time() + 8; while os.time() < e do end' >/dev/null 2>&1 &")
    local out, code = run(("%s monitor %s --seconds 4"):format(PERFLUA, rules))
    assert.equals(0, code, out)
    assert.matches("Busy {_Total} crit: inactive %-> firing %- busy %d+%%", out)
    assert.is_nil(out:find("Never", 1, true))
    assert.matches("perflua monitor: stopped", out)
    local alerts = read(jsonl)
    assert.matches('"name":"Busy"', alerts)
    assert.matches('"state":"firing"', alerts)
  end)

  it("stops cleanly on TERM and reloads on HUP keeping state", function()
    if not io.open(PERFLUA) then pending("build/perflua not built") return end
    local rules, log = dir .. "/rules.lua", dir .. "/out.log"
    write(rules, (RULES:gsub("OUTFILE", dir .. "/a.jsonl")))
    local p = io.popen(("%s monitor %s > %s 2>&1 & echo $!"):format(PERFLUA, rules, log))
    local pid = tonumber(p:read "l")
    p:close()
    perflib.sleep(1.5)
    write(rules, (RULES:gsub("OUTFILE", dir .. "/a.jsonl")) .. '\nR.rule "Extra" { source = "\\\\System\\\\Processes", '
      .. 'when = R.above(1e9) }\n')
    os.execute("kill -HUP " .. pid)
    perflib.sleep(1.5)
    os.execute("kill -TERM " .. pid)
    perflib.sleep(1.0)
    local out = read(log)
    assert.matches("reloaded .-, state kept for %d+ rule%(s%)", out)
    assert.matches("perflua monitor: stopped", out)
    -- gone, or a zombie waiting for a parent that does not reap (pid 1 here)
    local stat = read("/proc/" .. pid .. "/stat")
    assert.is_true(stat == "" or stat:match("^%d+ %(.-%) Z") ~= nil, stat)
  end)
end)

describe("perflua monitor --view", function()
  it("prints a status block per interval when not on a terminal", function()
    if not io.open(PERFLUA) then pending("build/perflua not built") return end
    local p = assert(io.popen(PERFLUA .. " monitor examples/rules/default.lua --view --seconds 2 2>&1"))
    local out = p:read "a"
    p:close()
    assert.matches("perflua monitor · %d%d:%d%d:%d%d · sample 1 ·", out)
    assert.matches("\nrule%s+alerts%s+values\n", out)
    -- the alerts column depends on the load; % Processor Time against the clock, uncapped in
    -- monitor frames, may read a tick below 0 on an idle CPU
    assert.matches("\nCpuBusy [^\n]- 0,0=%-?[%d.]+", out)
    assert.matches("\nMemoryLow [^\n]- %d+", out)
    assert.matches("recent transitions:", out)
    assert.is_nil(out:find("\27[2J", 1, true))   -- no screen clearing into a pipe
  end)
end)

describe("perflua check", function()
  it("accepts the default rule set on this machine", function()
    if not io.open(PERFLUA) then pending("build/perflua not built") return end
    local out, code = run(PERFLUA .. " check examples/rules/default.lua")
    assert.equals(0, code, out)
    assert.matches("0 error%(s%), 0 source problem%(s%), 0 lint%(s%)", out)
  end)

  it("names the rule and the key of a mistake, and unknown counters", function()
    if not io.open(PERFLUA) then pending("build/perflua not built") return end
    local path = os.tmpname()
    write(path, [[
local R = require "perflib.rules"
R.rule "Typo" { source = "\\Memory\\Available Bytes", when = R.below(1), pendng = "1m" }
R.rule "Ghost" { source = "\\Memory\\No Such Counter", when = R.below(1) }
R.rule "Fine" { source = "\\Memory\\Available Bytes", when = R.below(1) }
]])
    local out, code = run(PERFLUA .. " check " .. path)
    os.remove(path)
    assert.equals(1, code, out)
    assert.matches('rule "Typo": key `pendng`: unknown key %(did you mean `pending`%?%)', out)
    assert.matches("unknown on this machine: \\Memory\\No Such Counter", out, 1, true)
    assert.matches("2 rule%(s%) loaded, 1 error%(s%), 1 source problem%(s%), 0 lint%(s%)", out)
  end)

  it("lints windows shorter than two evaluations and raw cumulative counters", function()
    if not io.open(PERFLUA) then pending("build/perflua not built") return end
    local path = os.tmpname()
    write(path, [[
local R = require "perflib.rules"
R.rule "Short" { source = "\\Memory\\Available Bytes", every = "30s", value = R.avg "40s",
  when = R.below(1) }
R.rule "RawRate" { source = "\\System\\Context Switches/sec", value = R.raw(), when = R.above(1e12) }
]])
    local out, code = run(PERFLUA .. " check " .. path)
    os.remove(path)
    assert.equals(1, code, out)
    assert.matches('rule "Short": window 40s holds fewer than 2 evaluations %(every 30s%)', out)
    assert.matches('rule "RawRate": threshold on the raw value of the cumulative counter '
      .. '"Context Switches/sec": use R.rate or R.increase', out)
    assert.matches("2 lint%(s%)", out)
  end)

  it("prints usage for bad command lines", function()
    if not io.open(PERFLUA) then pending("build/perflua not built") return end
    local out, code = run(PERFLUA .. " monitor")
    assert.equals(2, code)
    assert.matches("usage: perflua monitor", out)
    out, code = run(PERFLUA .. " monitor x.lua --interval -1")
    assert.equals(2, code)
    assert.matches("needs a positive number", out)
  end)
end)

describe("perflua explain", function()
  it("shows why a rule is in its state", function()
    if not io.open(PERFLUA) then pending("build/perflua not built") return end
    local path = os.tmpname()
    write(path, (RULES:gsub("OUTFILE", "/dev/null")))
    local out, code = run(("%s explain %s Never --seconds 1"):format(PERFLUA, path))
    os.remove(path)
    assert.equals(0, code, out)
    assert.matches("Never", out)
  end)
end)
