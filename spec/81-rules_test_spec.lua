-- perflib.rules.test: the harness itself, and the CoreBusy example of the alerting reference §4.6.
local T = require "perflib.rules.test"

local BUSY = [[
R.rule "CoreBusy" {
  source = "processor/busy_pct", value = R.avg "1m",
  when = R.above(90):clears_below(75), severity = "crit",
  pending = "5m", keep = "2m", message = "core {instance} busy {value:%.0f}% for {age}",
}
]]

describe("perflib.rules.test series", function()
  it("parses steady values, ramps, gaps, absences and resets", function()
    local s = T.parse "5*2 0+1e6*3 10-2*2 _ ~*2 ! 7"
    local vals = {}
    for i, x in ipairs(s) do
      vals[i] = x.v or (x.gap and "_") or (x.absent and "~")
    end
    assert.same({ 5, 5, 0, 1e6, 2e6, 10, 8, "_", "~", "~", 7 }, vals)
    assert.is_true(s[11].reset)
    assert.has_error(function() T.parse "abc" end)
  end)
end)

describe("perflib.rules.test results", function()
  local res = T.run { rules = BUSY, every = "10s", input = {
    ["processor/busy_pct{instance=cpu0}"] = "50*6 95*36 85*6 60*24",
    ["processor/busy_pct{instance=cpu1}"] = "10*72",
  } }

  it("runs the CoreBusy example of §4.6 with its exact timeline", function()
    -- samples at 0, 10, ... 710 s; avg 1m = the 6 samples in (t-60, t]
    -- 95 from 60 s: avg > 90 only when all 6 are 95, at 110 s → pending; 110 + 5m = 410 s → firing;
    -- 85 from 420 s, 60 from 480 s: avg 80.8 at 480 (still above the clear 75), 76.7 at 490, 72.5 at 500 →
    -- recovering at 500 s; clear for keep 2m → resolved at 620 s, inactive from 630 s.
    local ok, fails = T.check(res, {
      T.at("1m", "CoreBusy", { instance = "cpu0" }, "inactive"),
      T.at("3m", "CoreBusy", { instance = "cpu0" }, "pending"),
      T.at("7m", "CoreBusy", { instance = "cpu0" }, "firing", { severity = "crit" }),
      T.at("8m", "CoreBusy", { instance = "cpu0" }, "firing"),
      T.at("9m", "CoreBusy", { instance = "cpu0" }, "recovering"),
      T.at("11m", "CoreBusy", { instance = "cpu0" }, "inactive"),
      T.never("CoreBusy", { instance = "cpu1" }),
      T.notifications { alert = "CoreBusy", count = 2 },
      T.value_at("8m", "CoreBusy", { instance = "cpu0" }, 485 / 6),
    })
    assert.is_true(ok, table.concat(fails, "\n"))
    assert.equal(110, res:first("CoreBusy", { instance = "cpu0" }, "pending"))
    assert.equal(410, res:first("CoreBusy", { instance = "cpu0" }))
    assert.equal(500, res:first("CoreBusy", { instance = "cpu0" }, "recovering"))
    assert.equal(620, res:first("CoreBusy", { instance = "cpu0" }, "resolved"))
  end)

  it("reports failed expectations", function()
    local ok, fails = T.check(res, {
      T.at("3m", "CoreBusy", { instance = "cpu0" }, "firing"),
      T.never("CoreBusy", { instance = "cpu0" }),
      T.notifications { alert = "CoreBusy", max = 1 },
    })
    assert.is_false(ok)
    assert.equal(3, #fails)
    assert.matches("expected firing, got pending", fails[1], 1, true)
  end)

  it("refuses a time past the end of the input (no hidden lookback)", function()
    assert.has_error(function() res:at("12m", "CoreBusy", { instance = "cpu0" }) end)
    assert.equal("inactive", res:at("11m50s", "CoreBusy", { instance = "cpu0" }))
  end)

  it("prints a timeline", function()
    assert.matches("410.0 CoreBusy{cpu0} pending -> firing", res:timeline(), 1, true)
  end)

  it("runs a case in one call", function()
    local ok, fails = T.case {
      rules = BUSY,
      input = { ["processor/busy_pct{instance=cpu0}"] = "95*40 _*6 95*10" },
      expect = { T.at("7m30s", "CoreBusy", { instance = "cpu0" }, "unknown"), T.notifications { count = 1 } },
    }
    assert.is_true(ok, table.concat(fails or {}, "\n"))
  end)

  it("raises when the rules do not load", function()
    assert.has_error(function() T.run { rules = "R.rule 'X' { sorce = 'a' }", input = {} } end)
  end)
end)

describe("perflib.rules.test through notification routes", function()
  -- three disks over 20 minutes at 1 sample a minute: b and c fill up, a has a blip
  local RULES = [[
R.rule "Full" { source = "disk/free", when = R.below(10):clears_above(20), severity = "crit",
                labels = { team = "storage" }, message = "{instance} {value}% free" }
R.rule "Low" { source = "disk/free", when = R.below(30):clears_above(40), labels = { team = "storage" } }
R.route { match = { severity = "crit" }, group_by = { "alertname" }, repeat_interval = "5m",
          actions = { R.exec { "/bin/notify-pager" }, R.print() } }
R.route { match = { team = "storage" }, group_by = { "alertname", "instance" }, throttle = { rate = 1 / 600 },
          actions = { R.jsonl "/tmp/never-written.jsonl" } }
R.inhibit { source = { alertname = "Full" }, target = { alertname = "Low" }, equal = { "instance" } }
]]
  local input = {
    ["disk/free{instance=a}"] = "50*5 25 50*14",
    ["disk/free{instance=b}"] = "50*3 25*3 5*10 50*4",
    ["disk/free{instance=c}"] = "50*8 5*8 50*4",
  }

  it("counts what the routes sent, with repeats, grouping, throttling and inhibition", function()
    local res = T.run { rules = RULES, every = "1m", input = input }
    -- Full goes to the crit route only (the first match wins), grouped by alertname: b fires at
    -- 6m, c joins the group at 8m (sent again, two alerts), a repeat 5m later at 13m, both
    -- resolve at 16m; two actions each, captured and never run
    assert.equal(4, (res:sent_by { alert = "Full", route = 1, action = "exec" }))
    assert.equal(0, (res:sent_by { alert = "Full", route = 2 }))
    assert.equal(1, (res:sent_by { alert = "Full", action = "exec", is_repeat = true }))
    local _, pages = res:sent_by { alert = "Full", action = "exec", state = "firing" }
    assert.same({ "/bin/notify-pager" }, pages[1].detail.argv)
    assert.equal("b 5% free", pages[1].message)
    assert.equal(2, pages[2].count)
    -- the storage route, one group per instance: Low{b} fires at 3m and resolves at 16m;
    -- Low{a} fires at 5m inside the throttle's 10 minutes: held back; Low{c} fires with
    -- Full{c}, which inhibits it
    local ok, fails = T.check(res, {
      T.sent { alert = "Low", labels = { instance = "b" }, count = 2 },
      T.sent { alert = "Low", labels = { instance = "b" }, state = "firing", count = 1 },
      T.sent { alert = "Low", labels = { instance = "a" }, count = 0 },
      T.sent { alert = "Low", labels = { instance = "c" }, count = 0 },
      T.sent { action = "print", count = 4 },
    })
    assert.is_true(ok, table.concat(fails or {}, "\n"))
    assert.equal(1, res.notifier.stats.throttled)
    assert.equal("firing", res:at("5m", "Low", { instance = "a" }))
    assert.equal("firing", res:at("8m", "Low", { instance = "c" }))
    -- nothing ran: no file was written
    assert.is_nil(io.open("/tmp/never-written.jsonl"))
  end)

  it("raises on a rule file with errors unless a partial load is asked for", function()
    local bad = RULES .. "\nR.route { match = { team = 'x' }, throtle = {} }\n"
    assert.has_error(function() T.run { rules = bad, every = "1m", input = input } end,
      "rules did not load: route 3: key `throtle`: unknown key (did you mean `throttle`?)")
    local res = T.run { rules = bad, every = "1m", input = input, partial = true }
    assert.equal(1, #res.load_errors)
    assert.equal(4, (res:sent_by { alert = "Full", action = "exec" }))
  end)

  it("reports a failed expectation on what was sent", function()
    local res = T.run { rules = RULES, every = "1m", input = input }
    local ok, fails = T.check(res, { T.sent { alert = "Full", action = "exec", count = 7 } })
    assert.is_false(ok)
    assert.equal("sent: expected 7, got 4", fails[1])
  end)
end)

describe("examples/rules/default.lua", function()
  it("loads without errors and names counters this machine has", function()
    local R = require "perflib.rules"
    local E = require "perflib.rules.engine"
    local perflib = require "perflib"
    local set, errs = R.load "examples/rules/default.lua"
    assert.is_nil(errs)
    assert.is_true(#set.order >= 10)
    local q = perflib.query()
    for _, s in ipairs(E.new(set):sources()) do
      local idx, status = q:add(s.path)
      assert.is_number(idx, s.path .. ": " .. tostring(status))
    end
  end)

  it("runs through the harness on a synthetic busy CPU", function()
    local res = T.run { rules = "examples/rules/default.lua", every = "10s", input = {
      ["\\Processor Information(*)\\% Processor Time{instance=0,0}"] = "99*60",
      ["\\Processor Information(*)\\% Processor Time{instance=0,_Total}"] = "99*60",
    } }
    assert.equal("firing", res:at("9m", "CpuBusy", { instance = "0,0" }))
    assert.equal("crit", select(2, res:at("9m", "CpuBusy", { instance = "0,0" })).severity)
    assert.is_true(res:never("CpuBusy", { instance = "0,_Total" }))
  end)
end)

describe("perflib.rules.test input keys", function()
  local RULE = [[R.rule "Free" { source = "\\LogicalDisk(*)\\% Free Space", exclude = "^_Total$",
                                 when = R.below(5) }]]

  it("raise when no rule reads the path, naming the close one", function()
    local ok, err = pcall(T.run, { rules = RULE, input = { ["\\LogicalDisk(*)\\% Free Spce{instance=/}"] = "50" } })
    assert.is_false(ok)
    assert.matches('input "\\LogicalDisk(*)\\% Free Spce": no rule reads this path '
      .. '(did you mean "\\LogicalDisk(*)\\% Free Space"?)', err, 1, true)
    ok, err = pcall(T.run, { rules = RULE, input = { ["disk/free{instance=b}"] = "50" } })
    assert.is_false(ok)
    assert.matches("the rules read: \\LogicalDisk(*)\\% Free Space", err, 1, true)
  end)

  it("raise when a counter path names no real counter, even when a rule reads it", function()
    local ok, err = pcall(T.run, { rules = [[R.rule "X" { source = "\\Memroy\\Available MBytes", when = R.below(1) }]],
                                   input = { ["\\Memroy\\Available MBytes"] = "50" } })
    assert.is_false(ok)
    assert.matches("no counterset 'Memroy' (did you mean 'Memory'?): not a real counter", err, 1, true)
  end)

  it("list instances that no rule watches", function()
    local res = T.run { rules = RULE, input = { ["\\LogicalDisk(*)\\% Free Space{instance=_Total}"] = "1",
                                                ["\\LogicalDisk(*)\\% Free Space{instance=/}"] = "1" } }
    assert.same({ "input \\LogicalDisk(*)\\% Free Space{instance=_Total}: no rule watches this instance "
      .. "(instances/exclude)" }, res.warnings)
  end)
end)

describe("perflib.rules.test over a log", function()
  it("runs the rules over a log's samples on their own clock", function()
    local perflib = require "perflib"
    local files = dofile "spec/support/files.lua"
    local dir, remove = files.tempdir()
    -- a defined set whose value is 10 x the collect's number: 10, 20, 30, 40, 50
    local m = perflib.machine { root = "spec/fixtures/basic" }
    local k = 0
    assert(perflib.define { name = "RT81 Level", machine = m, counters = { { name = "Level" } },
                            collect = function() k = k + 1; return { a = { 10 * k } } end })
    local q = m:query()
    assert(q:add "\\RT81 Level(*)\\Level")
    local w = assert(perflib.log_writer(dir .. "/l.blg"))
    local times = {}
    for i = 1, 5 do
      local s = assert(q:collect())
      times[i] = s.time / s.freq
      assert(w:write(s))
      perflib.sleep(0.02)
    end
    assert(w:close())
    local rules = [[R.rule "High" { source = "\\RT81 Level(*)\\Level", when = R.above(35) }]]
    local res = T.run { rules = rules, log = dir .. "/l.blg", start = 100 }
    remove()
    -- 40 (the 4th sample) is the first above 35: firing at its time on the log's clock
    assert.near(100 + times[4] - times[1], res:first("High", { instance = "a" }), 1e-9)
    assert.equals("inactive", res:at(100 + times[3] - times[1], "High", { instance = "a" }))
    assert.equals("firing", res:at(100 + times[5] - times[1], "High", { instance = "a" }))
    assert.equals(50, res:value(res.stop, "High", { instance = "a" }))
    assert.has_error(function() T.run { rules = rules, log = dir .. "/none.blg" } end)
    assert.has_error(function() T.run { rules = rules, log = "x", input = {} } end,
      "bad argument #1 to 'run' (input or log, not both)")
  end)
end)
