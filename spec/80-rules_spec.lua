-- perflib.rules: the DSL, its validation and the engine's semantics (issue 5).
local R = require "perflib.rules"
local E = require "perflib.rules.engine"
local T = require "perflib.rules.test"

local CPU = "processor/busy_pct"

local function one(def, name)
  local set = R.new()
  set:rule(name or "X")(def)
  return set
end

local function messages(errs)
  local out = {}
  for _, e in ipairs(errs or {}) do out[#out + 1] = e.message end
  return table.concat(out, "\n")
end

describe("perflib.rules DSL", function()
  it("parses durations", function()
    assert.equal(90, R.duration "90s")
    assert.equal(300, R.duration "5m")
    assert.equal(5400, R.duration "1h30m")
    assert.equal(0.5, R.duration "500ms")
    assert.equal(12, R.duration(12))
    assert.is_nil((R.duration "5 minutes"))
    assert.is_nil((R.duration(-1)))
  end)

  it("builds a rule as data with defaults", function()
    local set = one { source = CPU, value = R.avg "1m", when = R.above(90):clears_below(75), pending = "5m" }
    assert.same({}, set.errors)
    local r = set.rules.X
    assert.equal("avg", r.value.fn)
    assert.equal(60, r.value.window)
    assert.equal(300, r.pending)
    assert.equal(0, r.keep)
    assert.equal(">", r.levels[1].cond.op)
    assert.equal(75, r.levels[1].cond.clear)
    assert.equal("resolve", r.vanish)
    assert.equal("skip", r.reset)
    assert.same({ as = "unknown", samples = 1 }, r.nodata)
    assert.is_string(r.hash)
  end)

  it("reports unknown keys with a suggestion, naming the rule and the key", function()
    local set = one({ source = CPU, when = R.above(1), pendng = "5m" }, "CoreBusy")
    assert.is_nil(set.rules.CoreBusy)
    local m = messages(set.errors)
    assert.matches('rule "CoreBusy"', m, 1, true)
    assert.matches("key `pendng`", m, 1, true)
    assert.matches("did you mean `pending`?", m, 1, true)
  end)

  it("rejects wrong types, inverted hysteresis and inverted levels", function()
    local cases = {
      { { source = CPU, when = R.above(90):clears_below(95) }, "when", "hysteresis inverted" },
      { { source = CPU, when = R.below(10):clears_above(5) }, "when", "hysteresis inverted" },
      { { source = CPU, levels = { warn = R.above(95), crit = R.above(90) } }, "levels", "levels inverted" },
      { { source = CPU, levels = { wran = R.above(95) } }, "levels", "did you mean `warn`?" },
      { { source = CPU, when = R.above(1), pending = "soon" }, "pending", "bad duration" },
      { { source = CPU, when = 90 }, "when", "must be a condition" },
      { { source = CPU, when = R.above(1), vanish = "resolv" }, "vanish", "did you mean `resolve`?" },
      { { source = CPU, when = R.above(1), labels = { v = "{value}" } }, "labels", "identity" },
      { { source = CPU }, "when", "missing" },
      { { when = R.above(1) }, "source", "missing" },
      { { source = CPU, when = R.above(1), every = "10s", pending = "5s" }, "pending", "shorter than `every`" },
      { { source = CPU, when = R.above(1), nodata = { after = "3 samples", as = "unknwn" } }, "nodata",
        "did you mean `unknown`?" },
    }
    for _, c in ipairs(cases) do
      local set = one(c[1], "Bad")
      assert.is_nil(set.rules.Bad)
      assert.equal(c[2], set.errors[1] and set.errors[1].key)
      assert.matches(c[3], messages(set.errors), 1, true)
    end
  end)

  it("loads a rules file: bad rules are reported and left out, the others load", function()
    local set, errs = R.load [[
      R.defaults { keep = "1m" }
      R.rule "Good" { source = "a", when = R.above(1) }
      R.rule "Bad" { source = "a", when = R.above(1), kep = "2m" }
      R.route { match = { severity = "crit" }, actions = { R.print() }, group_wait = "30s" }
      R.inhibit { source = { alertname = "Good" }, target = { alertname = "Bad" }, equal = { "instance" } }
      R.silence { match = { alertname = "Good" }, why = "test" }
    ]]
    assert.truthy(set.rules.Good)
    assert.equal(60, set.rules.Good.keep)
    assert.is_nil(set.rules.Bad)
    assert.matches("did you mean `keep`?", messages(errs), 1, true)
    assert.equal(30, set.routes[1].group_wait)
    assert.equal("print", set.routes[1].actions[1].kind)
    assert.same({ "instance" }, set.inhibits[1].equal)
    assert.equal("test", set.silences[1].why)
  end)

  it("loads a file that returns its own set, and reports syntax errors and sandbox escapes", function()
    local set = R.load [[
      local R = require "perflib.rules"
      local s = R.new()
      s:rule "A" { source = "a", when = R.above(1) }
      return s
    ]]
    assert.truthy(set.rules.A)
    local none, errs = R.load "R.rule 'A' {"
    assert.is_nil(none)
    assert.matches("syntax", messages(errs))
    none, errs = R.load "local x = os.execute('true')\nR.rule 'A' { source = 'a', when = R.above(1) }"
    assert.is_nil(none)
    assert.matches("os", messages(errs))
    none, errs = R.load "while true do end\n"
    assert.is_nil(none)
    assert.matches("instruction limit", messages(errs))
  end)
end)

local BUSY = [[
R.rule "CoreBusy" {
  source = "processor/busy_pct", value = R.avg "1m",
  when = R.above(90):clears_below(75), severity = "crit",
  pending = "5m", keep = "2m", message = "core {instance} busy {value:%.0f}% for {age}",
}
]]

describe("perflib.rules.engine state machine", function()
  it("goes inactive -> pending -> firing -> recovering -> resolved -> inactive", function()
    local res = T.run { rules = BUSY, input = { [CPU .. "{instance=cpu0}"] = "50*6 95*36 85*6 60*24" } }
    local seq = {}
    for _, ev in ipairs(res:transitions("CoreBusy", { instance = "cpu0" })) do
      seq[#seq + 1] = ("%s>%s@%g"):format(ev.from, ev.to, ev.t)
    end
    assert.same({ "inactive>pending@110", "pending>firing@410", "firing>recovering@500",
                  "recovering>resolved@620", "resolved>inactive@630" }, seq)
    local fire = res:transitions("CoreBusy")[2]
    assert.equal("crit", fire.labels.severity)
    assert.equal("CoreBusy", fire.labels.alertname)
    assert.equal(110, fire.active_since)
    assert.equal(410, fire.fired_at)
    assert.equal("core cpu0 busy 95% for 5m", fire.message)
  end)

  it("pending goes back to inactive when the condition breaks before `pending`", function()
    local res = T.run { rules = BUSY, input = { [CPU .. "{instance=cpu0}"] = "95*20 10*10 95*20" } }
    assert.equal("pending", res:at("2m", "CoreBusy", { instance = "cpu0" }))
    assert.equal("inactive", res:at("4m", "CoreBusy", { instance = "cpu0" }))
    assert.is_true(res:never("CoreBusy", { instance = "cpu0" }))
  end)

  it("a recovering alert returns to firing when the condition comes back during keep", function()
    local res = T.run { rules = BUSY, input = { [CPU .. "{instance=cpu0}"] = "95*40 10*6 95*12 10*30" } }
    assert.equal("recovering", res:at("7m30s", "CoreBusy", { instance = "cpu0" }))
    assert.equal("firing", res:at("8m50s", "CoreBusy", { instance = "cpu0" }))
    assert.equal(2, (res:notifications { alert = "CoreBusy" }))   -- one fire, one resolve
  end)

  it("hysteresis holds: values between the clear and the fire thresholds keep it firing", function()
    local src = [[R.rule "H" { source = "s", when = R.above(90):clears_below(75) }]]
    local res = T.run { rules = src, input = { ["s{instance=a}"] = "95 80 76 89 91 80 74 80 89" } }
    local seq = {}
    for _, ev in ipairs(res:transitions "H") do seq[#seq + 1] = ("%s@%g"):format(ev.to, ev.t) end
    assert.same({ "firing@0", "resolved@60", "inactive@70" }, seq)
    -- without hysteresis the same series flips at every crossing of 90
    res = T.run { rules = [[R.rule "H" { source = "s", when = R.above(90), flap = false }]],
                  input = { ["s{instance=a}"] = "95 80 76 89 91 80 74 80 89" } }
    assert.equal(4, (res:notifications { alert = "H" }))
  end)

  it("multi-level severities escalate and de-escalate with their own hysteresis", function()
    local src = [[R.rule "L" { source = "s", levels = { warn = R.above(80):clears_below(70),
                                                        crit = R.above(90):clears_below(85) } }]]
    local res = T.run { rules = src, input = { ["s"] = "85 95 87 84 75 60" } }
    local sev = {}
    for i = 0, 5 do
      local _, a = res:at(i * 10, "L")
      sev[#sev + 1] = (a and a.state or "inactive") .. ":" .. tostring(a and a.severity)
    end
    assert.same({ "firing:warn", "firing:crit", "firing:crit", "firing:warn", "firing:warn", "resolved:warn" }, sev)
    local esc = res:transitions("L")[2]
    assert.equal("firing", esc.from); assert.equal("firing", esc.to)
    assert.equal("warn", esc.severity_from); assert.equal("crit", esc.labels.severity)
  end)

  it("a sustain ratio tolerates a share of misses during pending", function()
    local src = [[R.rule "S" { source = "s", when = R.above(90), pending = "1m", sustain = R.ratio(0.8) }]]
    local res = T.run { rules = src, input = { s = "95 95 50 95 95 95 95 95" } }
    assert.equal("firing", res:at("60s", "S"))
    res = T.run { rules = [[R.rule "S" { source = "s", when = R.above(90), pending = "1m" }]],
                  input = { s = "95 95 50 95 95 95 95 95 95 95" } }
    assert.equal("inactive", res:at("20s", "S"))
    assert.equal("pending", res:at("60s", "S"))
    assert.equal("firing", res:at("90s", "S"))
  end)

  it("flapping is detected, suppresses notifications and ends with flap_end", function()
    local src = [[R.rule "F" { source = "s", when = R.above(50),
                               flap = R.flap { window = 10, high = 0.5, low = 0.2 } }]]
    local res = T.run { rules = src, input = { s = "10 90 10 90 10 90 10 90 10 90 10 90 90*20" } }
    local kinds = {}
    for _, ev in ipairs(res:transitions "F") do
      if ev.kind ~= "transition" then kinds[#kinds + 1] = ev.kind .. "@" .. ev.t end
    end
    assert.same("flap_start", kinds[1]:match("^[%w_]+"))
    assert.same("flap_end", kinds[2]:match("^[%w_]+"))
    local n, notes = res:notifications { alert = "F" }
    assert.is_true(n < 8)                        -- 6 fire/resolve pairs without flap control
    assert.equal("flap_end", notes[#notes].kind)
    assert.equal("firing", notes[#notes].state)  -- the final state is always reported
  end)

  it("a counter reset is not a spike", function()
    local src = [[R.rule "Rx" { source = "net/rx", value = R.rate "1m", when = R.above(2e5) }]]
    local res = T.run { rules = src, input = { ["net/rx{instance=eth0}"] = "0+1e6*30 ! 0+1e6*30" } }
    assert.is_true(res:never("Rx"))
    assert.equal(1e5, res:value("4m50s", "Rx", { instance = "eth0" }))
    assert.equal(1e5, res:value("5m10s", "Rx", { instance = "eth0" }))   -- the reset interval left out
    assert.equal(1e5, res:value("6m", "Rx", { instance = "eth0" }))
    -- increase is the exact sum of the non-negative deltas, no extrapolation
    res = T.run { rules = [[R.rule "I" { source = "c", value = R.increase "1m", when = R.above(1e9) }]],
                  input = { c = "0+3*30 ! 0+3*3" } }
    assert.is_nil(res:value("5m", "I"))          -- the reset sample itself: unknown, skipped
    assert.equal(15, res:value("5m10s", "I"))    -- 4 deltas before the reset, 1 after
    assert.equal(15, res:value("5m20s", "I"))
  end)

  it("a reset with policy unknown makes that interval unknown", function()
    local src = [[R.rule "Rx" { source = "c", value = R.last(), when = R.above(5), reset = "unknown" }]]
    local res = T.run { rules = src, input = { c = "10*5 ! 10*5" } }
    assert.equal("unknown", res:at("50s", "Rx"))
    assert.equal("firing", res:at("60s", "Rx"))
    assert.equal(1, (res:notifications { alert = "Rx" }))
  end)

  it("a data gap is unknown, not a resolve", function()
    local src = BUSY:gsub('pending = "5m"', 'pending = "5m", nodata = { after = "3 samples" }')
    local res = T.run { rules = src, input = { [CPU .. "{instance=cpu0}"] = "95*40 _*6 95*10" } }
    assert.equal("firing", res:at("6m50s", "CoreBusy", { instance = "cpu0" }))  -- within `after`
    assert.equal("unknown", res:at("7m30s", "CoreBusy", { instance = "cpu0" }))
    assert.equal("firing", res:at("7m40s", "CoreBusy", { instance = "cpu0" }))
    assert.equal(1, (res:notifications { alert = "CoreBusy" }))                  -- no resolve/refire pair
    assert.is_nil(res:value("7m30s", "CoreBusy", { instance = "cpu0" }))
  end)

  it("no-data policies: keep, resolve, alert", function()
    local function run(as)
      return T.run { rules = ([[R.rule "N" { source = "s", when = R.above(5), nodata = "%s" }]]):format(as),
                     input = { s = "9*3 _*3 1" } }
    end
    assert.equal("firing", run("keep"):at("40s", "N"))
    assert.equal("resolved", run("resolve"):at("30s", "N"))
    local r = run("alert")
    assert.equal("firing", r:at("50s", "N"))
    assert.equal("resolved", r:at("60s", "N"))
    assert.equal("unknown", run("unknown"):at("30s", "N"))
  end)

  it("a vanished instance follows its policy: resolve by default, unknown or alert on request", function()
    local input = { ["s{instance=p1}"] = "95*6 ~*4", ["s{instance=p2}"] = "1*10" }
    local res = T.run { rules = [[R.rule "V" { source = "s", when = R.above(90) }]], input = input }
    assert.equal("firing", res:at("50s", "V", { instance = "p1" }))
    local ev = res:transitions("V", { instance = "p1" })[2]
    assert.equal("resolved", ev.to); assert.equal("vanished", ev.reason); assert.equal(60, ev.t)
    res = T.run { rules = [[R.rule "V" { source = "s", when = R.above(90), vanish = "unknown" }]], input = input }
    assert.equal("unknown", res:at("90s", "V", { instance = "p1" }))
    res = T.run { rules = [[R.rule "Gone" { source = "s", when = R.above(1e9), vanish = "alert", pending = "20s" }]],
                  input = input }
    assert.equal("pending", res:at("70s", "Gone", { instance = "p1" }))
    assert.equal("firing", res:at("80s", "Gone", { instance = "p1" }))
    assert.is_true(res:never("Gone", { instance = "p2" }))
  end)

  it("the whole source missing is no data, not a vanish", function()
    local set = one { source = "s", when = R.above(1), nodata = { after = "2 samples", as = "unknown" } }
    local eng = E.new(set)
    eng:feed(0, { s = { instances = { "a" }, value = { a = 5 } } })
    assert.equal("firing", (eng:state("X", { instance = "a" })))
    eng:feed(10, {})
    assert.equal("firing", (eng:state("X", { instance = "a" })))
    eng:feed(20, { s = { error = "ENOENT" } })
    assert.equal("unknown", (eng:state("X", { instance = "a" })))
  end)

  it("instance filters select instances", function()
    local res = T.run { rules = [[R.rule "C" { source = "p", when = R.above(50), instances = "^cpu%d+$" }]],
                        input = { ["p{instance=cpu0}"] = "90", ["p{instance=_Total}"] = "90" } }
    assert.equal("firing", res:at(0, "C", { instance = "cpu0" }))
    assert.is_true(res:never("C", { instance = "_Total" }))
  end)
end)

describe("perflib.rules aggregates", function()
  local input = { ["p{instance=a}"] = "95*3 10*3", ["p{instance=b}"] = "95*6", ["p{instance=c}"] = "10*3 _*3" }
  local function agg(per)
    return T.run { rules = ([[R.rule "A" { source = "p", when = R.above(90), per = %s, flap = false,
                                         message = "{instance} at {value}" }]]):format(per), input = input }
  end

  it("any: one alert listing the matching instances", function()
    local res = agg "R.any()"
    assert.equal("firing", res:at(0, "A"))
    local ev = res:transitions("A")[1]
    assert.same({ "a", "b" }, ev.instances)
    assert.is_nil(ev.labels.instance)             -- instances are not identity
    assert.equal("a b at 95", ev.message)
    assert.equal("firing", res:at(50, "A"))
  end)

  it("all, share and count use three-valued logic: unknown instances are not false", function()
    assert.equal("inactive", agg("R.all()"):at(0, "A"))
    assert.equal("inactive", agg("R.all()"):at(50, "A"))      -- a false decides, whatever c is
    local all = T.run { rules = [[R.rule "A" { source = "p", when = R.above(90), per = R.all() }]],
                        input = { ["p{instance=a}"] = "95*3", ["p{instance=b}"] = "95 _*2" } }
    assert.equal("firing", all:at(0, "A"))
    assert.equal("unknown", all:at(20, "A"))                  -- a true, b unknown: can't tell
    assert.equal("firing", agg("R.share(0.6)"):at(0, "A"))
    assert.equal("unknown", agg("R.share(0.6)"):at(50, "A"))  -- 1 true of 3, 1 unknown: can't tell
    assert.equal("firing", agg('R.count(">=", 2)'):at(0, "A"))
    assert.equal("unknown", agg('R.count(">=", 2)'):at(50, "A"))
    assert.equal("firing", agg('R.count(">=", 1)'):at(50, "A"))
  end)
end)

describe("perflib.rules function conditions", function()
  it("runs sandboxed functions with ctx", function()
    local set = R.new()
    set:rule "Fn" { source = "s", when = function(ctx) return ctx.value > 2 * (ctx:get("n", "") or 1) end }
    set:rule "Glob" { source = "s", when = function() return os ~= nil or io ~= nil end }
    local eng = E.new(set)
    eng:feed(0, { s = { instances = { "x" }, value = { x = 5 } }, n = { instances = { "" }, value = { [""] = 2 } } })
    assert.equal("firing", (eng:state("Fn", { instance = "x" })))
    assert.equal("inactive", (eng:state("Glob", { instance = "x" })))
  end)

  it("a runaway function is stopped by the instruction limit; the rule is disabled, the others go on", function()
    local set = R.new()
    set:rule "Loop" { source = "s", when = function() while true do end end }
    set:rule "Boom" { source = "s", when = function(ctx) return ctx.nothing.here end }
    set:rule "Fine" { source = "s", when = R.above(1) }
    local eng = E.new(set, { limit = 10000 })
    local evs = eng:feed(0, { s = { instances = { "x" }, value = { x = 5 } } })
    local errs = {}
    for _, ev in ipairs(evs) do if ev.kind == "rule_error" then errs[ev.rule] = ev.message end end
    assert.matches("instruction limit", errs.Loop)
    assert.matches("disabled", errs.Loop)
    assert.truthy(errs.Boom)
    assert.equal("firing", (eng:state("Fine", { instance = "x" })))
    eng:feed(10, { s = { instances = { "x" }, value = { x = 0 } } })
    assert.equal("resolved", (eng:state("Fine", { instance = "x" })))
    assert.equal("disabled", (eng:state("Loop", { instance = "x" })))
    assert.is_nil(debug.gethook())
  end)
end)

describe("perflib.rules state across reload", function()
  it("keeps the state of unchanged rules and resets changed ones", function()
    local src = [[
      R.rule "Keep" { source = "s", value = R.avg "1m", when = R.above(90), pending = "1m" }
      R.rule "Change" { source = "s", when = R.above(90), pending = "1m" }
    ]]
    local res = T.run { rules = src, input = { s = "95*10" } }
    assert.equal("firing", res:at("90s", "Keep"))
    local state = res.engine:export_state()
    local src2 = src:gsub('pending = "1m" }\n%s*$', 'pending = "2m" }\n')
    local eng2 = E.new((R.load(src2)))
    assert.same({ "Keep" }, eng2:import_state(state))
    eng2:feed(100, { s = { instances = { "" }, value = { [""] = 95 } } })
    assert.equal("firing", (eng2:state("Keep")))
    assert.equal("pending", (eng2:state("Change")))
    -- the window came along too: the average still covers the samples before the reload
    assert.equal(6, #eng2:explain("Keep").instances[1].window)
  end)

  it("explain says why", function()
    local res = T.run { rules = BUSY, input = { [CPU .. "{instance=cpu0}"] = "95*10" } }
    local x = res.engine:explain "CoreBusy"
    assert.equal("avg", x.value)
    assert.equal(95, x.instances[1].value)
    assert.is_true(x.instances[1].levels[1].on)
    assert.equal(75, x.instances[1].levels[1].clear)
    assert.equal("pending", x.alerts[1].state)
    assert.matches("waiting", x.alerts[1].why)
  end)

  it("lists the sources the rules need, raw ones apart", function()
    local set = R.load [[
      R.rule "A" { source = "x", when = R.above(1) }
      R.rule "B" { source = "y", value = R.rate "1m", when = R.above(1) }
    ]]
    local keys = {}
    for _, s in ipairs(E.new(set):sources()) do keys[#keys + 1] = s.key .. (s.raw and "+raw" or "") end
    table.sort(keys)
    assert.same({ "raw:y+raw", "x" }, keys)
  end)
end)

describe("on_transition hooks", function()
  local function frame(v)
    return { ["\\X(*)\\Y"] = { instances = { "a" }, value = { a = v }, status = { a = "valid" } } }
  end

  it("see every event, sandboxed, and a failing hook is reported and dropped", function()
    local set = R.new()
    set:rule "Hot" { source = "\\X(*)\\Y", when = R.above(10), every = 1 }
    local seen = {}
    set:on_transition(function(ev) seen[#seen + 1] = ev.kind .. ":" .. tostring(ev.to) end)
    set:on_transition(function(ev)
      if ev.to == "firing" then return io.open("/tmp/x") end   -- io is not in the sandbox
    end)
    local eng = E.new(set)
    eng:feed(0, frame(1))
    local evs = eng:feed(1, frame(20))
    assert.same({ "transition:firing" }, seen)
    local last = evs[#evs]
    assert.equals("rule_error", last.kind)
    assert.matches("on_transition hook disabled", last.message)
    -- the rules go on, and the bad hook is not called again
    evs = eng:feed(2, frame(1))
    for _, ev in ipairs(evs) do assert.are_not.equal("rule_error", ev.kind) end
    assert.equals(2, #seen)
    assert.has_error(function() set:on_transition(42) end)
  end)

  it("are available in rules files", function()
    local set, errors = R.load [[
      local R = require "perflib.rules"
      R.rule "Hot" { source = "\\X(*)\\Y", when = R.above(10), every = 1 }
      R.on_transition(function(ev) end)
    ]]
    assert.is_nil(errors)
    assert.equals(1, #set.hooks)
  end)
end)

describe("condition methods", function()
  it("raise on a value or an action, and carry a mistake on to the rule that uses it", function()
    assert.has_error(function() R.avg("5m"):clears_below(80) end,
      "clears_below goes with a condition, not a value")
    assert.has_error(function() R.print():clears_above(1) end)
    local set, errs = R.load('R.rule "X" { source = "s", when = R.abve(90):clears_below(80) }')
    assert.is_nil(set)
    assert.matches("R.abve is not a function of perflib.rules %(did you mean R.above%?%)", errs[1].message)
  end)
end)
