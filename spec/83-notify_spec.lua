-- perflib.rules.notify: routes, grouping, repeat, throttle, inhibit, silences, actions.
-- Events are hand-made (the shape the engine emits); everything runs on sample time.
local C = require "spec.support.compat"
local N = require "perflib.rules.notify"

-- A small strict JSON decoder, to read back what the notifier wrote.
local function json_decode(s)
  local i = 1
  local function ws() i = s:find("[^ \t\r\n]", i) or #s + 1 end
  local value
  local function str()
    local out = {}
    i = i + 1
    while true do
      local c = s:sub(i, i)
      if c == "" then error "unterminated string" end
      if c == '"' then i = i + 1 break end
      if c:byte() < 0x20 then error("raw control character at " .. i) end
      if c == "\\" then
        local e = s:sub(i + 1, i + 1)
        local map = { b = "\b", f = "\f", n = "\n", r = "\r", t = "\t", ['"'] = '"', ["\\"] = "\\", ["/"] = "/" }
        if map[e] then out[#out + 1] = map[e]; i = i + 2
        elseif e == "u" then
          out[#out + 1] = C.utf8.char(tonumber(assert(s:sub(i + 2, i + 5):match "^%x%x%x%x$"), 16))
          i = i + 6
        else error("bad escape at " .. i) end
      else
        out[#out + 1] = c
        i = i + 1
      end
    end
    return table.concat(out)
  end
  function value()
    ws()
    local c = s:sub(i, i)
    if c == "{" then
      local t = {}
      i = i + 1; ws()
      if s:sub(i, i) == "}" then i = i + 1 return t end
      while true do
        ws()
        assert(s:sub(i, i) == '"', "key expected")
        local k = str()
        ws(); assert(s:sub(i, i) == ":", "colon expected"); i = i + 1
        t[k] = value()
        ws()
        local d = s:sub(i, i); i = i + 1
        if d == "}" then return t end
        assert(d == ",", "comma expected")
      end
    elseif c == "[" then
      local t = {}
      i = i + 1; ws()
      if s:sub(i, i) == "]" then i = i + 1 return t end
      while true do
        t[#t + 1] = value()
        ws()
        local d = s:sub(i, i); i = i + 1
        if d == "]" then return t end
        assert(d == ",", "comma expected")
      end
    elseif c == '"' then return str()
    elseif s:sub(i, i + 3) == "true" then i = i + 4 return true
    elseif s:sub(i, i + 4) == "false" then i = i + 5 return false
    elseif s:sub(i, i + 3) == "null" then i = i + 4 return nil
    else
      local num = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", i)
      assert(num and num ~= "", "value expected at " .. i)
      i = i + #num
      return C.tointeger(tonumber(num)) or tonumber(num)
    end
  end
  local v = value()
  ws()
  assert(i > #s, "trailing text")
  return v
end

local tr = dofile "spec/support/alert_events.lua"

local function capture(set, opts)
  opts = opts or {}
  opts.run = true
  opts.log = opts.log or function() end
  return N.new(set, opts)
end

local files = dofile "spec/support/files.lua"
local slurp = files.slurp
local syslogd = dofile "spec/support/syslogd.lua"

local function names(notes)
  local out = {}
  for i, n in ipairs(notes) do
    local inst = {}
    for _, a in ipairs(n.alerts) do inst[#inst + 1] = (a.labels.instance or "") .. ":" .. a.state end
    out[i] = n.kind .. " " .. n.name .. " " .. table.concat(inst, ",")
  end
  return out
end

describe("notify: durations and JSON", function()
  it("parses durations and rates", function()
    assert.equals(90, N.duration "90s")
    assert.equals(5400, N.duration "1h30m")
    assert.equals(0.25, N.duration "250ms")
    assert.equals(12, N.duration(12))
    assert.is_nil(N.duration "5 parsecs")
    assert.is_nil(N.duration "m5")
    assert.equals(10 / 3600, N.rate "10/h")
    assert.equals(3 / 300, N.rate "3/5m")
    assert.equals(2, N.rate(2))
    assert.is_nil(N.rate "fast")
  end)

  it("encodes strings, numbers, booleans and nested tables as valid JSON", function()
    assert.equals('"a\\"b\\\\c\\n\\t\\u0001\\u001f"', N.json 'a"b\\c\n\t\1\31')
    assert.equals("[1,2.5,true,false]", N.json { 1, 2.5, true, false })
    assert.equals('{"a":{"b":[1,{"c":"d"}]},"z":null}', N.json { z = 0 / 0, a = { b = { 1, { c = "d" } } } })
    assert.equals("{}", N.json {})
    assert.equals('"h\\u00e9"', N.json "h\195\169":gsub("\195\169", "\\u00e9"))   -- UTF-8 passes through
    assert.equals('"\239\191\189x"', N.json "\255x")                                 -- invalid byte replaced
    assert.equals(0.1, json_decode(N.json(0.1)))
    assert.equals(1 / 3, json_decode(N.json(1 / 3)))
    if C.integers then assert.equals(math.maxinteger, json_decode(N.json(math.maxinteger))) end
    local t = { s = "q\"\0\r\n\127 é", n = -1.5e-7, i = 42, b = false, list = { "x", { y = true } } }
    assert.same(t, json_decode(N.json(t)))
    local cyc = {}
    cyc.self = cyc
    assert.has_error(function() N.json(cyc) end)
  end)
end)

describe("notify: grouping and timing", function()
  local set = { routes = { { group_by = { "alertname" }, group_wait = "30s", repeat_interval = "2m",
                             actions = { { kind = "print" } } } } }

  it("waits group_wait and sends alerts that arrived meanwhile in one notification", function()
    local n = capture(set)
    n:event(tr(0, "CoreBusy", { instance = "0" }, "firing"))
    assert.same({}, n:tick(0))
    n:event(tr(10, "CoreBusy", { instance = "1" }, "firing"))
    assert.same({}, n:tick(10))
    assert.same({}, n:tick(20))
    local sent = n:tick(30)
    assert.same({ "alert CoreBusy 0:firing,1:firing" }, names(sent))
    assert.equals("firing", sent[1].state)
    assert.equals(2, sent[1].count)
    assert.same({ alertname = "CoreBusy" }, sent[1].labels)       -- common labels
    assert.equals(1, #n.captured)
    assert.equals("print", n.captured[1].detail.kind)
    -- a change after the first send goes out at the next tick (group_interval 0)
    n:event(tr(40, "CoreBusy", { instance = "0" }, "resolved", { from = "recovering" }))
    sent = n:tick(40)
    assert.same({ "alert CoreBusy 0:resolved,1:firing" }, names(sent))
    assert.equals(1, sent[1].resolved)
    assert.same({}, n:tick(50))
  end)

  it("repeats a still-firing group every repeat_interval and stops once resolved", function()
    local n = capture(set)
    n:event(tr(0, "CoreBusy", { instance = "0" }, "firing"))
    assert.equals(1, #n:tick(30))
    assert.same({}, n:tick(120))
    local sent = n:tick(150)
    assert.equals(1, #sent)
    assert.is_true(sent[1].is_repeat)
    assert.same({}, n:tick(200))
    assert.equals(1, #n:tick(270))
    n:event(tr(280, "CoreBusy", { instance = "0" }, "inactive", { from = "recovering" }))
    sent = n:tick(280)
    assert.same({ "alert CoreBusy 0:resolved" }, names(sent))
    assert.same({}, n:tick(1000))
  end)

  it("keeps separate groups per group_by value and per alert with '...'", function()
    local n = capture { routes = { { group_by = { "..." } } } }
    n:event(tr(0, "A", { instance = "0" }, "firing"))
    n:event(tr(0, "A", { instance = "1" }, "firing"))
    n:event(tr(0, "B", { instance = "0" }, "firing"))
    assert.equals(3, #n:tick(0))
  end)

  it("sends nothing for an alert that resolves before group_wait, and honours send_resolved = false", function()
    local n = capture(set)
    n:event(tr(0, "CoreBusy", { instance = "0" }, "firing"))
    n:event(tr(20, "CoreBusy", { instance = "0" }, "resolved"))
    assert.same({}, n:tick(30))
    assert.same({}, n:tick(300))
    n = capture { routes = { { send_resolved = false } } }
    n:event(tr(0, "X", {}, "firing"))
    assert.equals(1, #n:tick(0))
    n:event(tr(10, "X", {}, "resolved"))
    assert.same({}, n:tick(10))
    n:event(tr(20, "X", {}, "firing"))
    assert.equals(1, #n:tick(20))
  end)

  it("does not notify pending, unknown or recovering as changes", function()
    local n = capture { routes = { {} } }
    n:event(tr(0, "X", {}, "pending", { from = "inactive" }))
    n:event(tr(5, "X", {}, "inactive", { from = "pending" }))
    assert.same({}, n:tick(5))
    n:event(tr(10, "X", {}, "firing"))
    assert.equals(1, #n:tick(10))
    n:event(tr(20, "X", {}, "unknown", { from = "firing" }))
    n:event(tr(20, "X", {}, "recovering", { from = "unknown" }))
    assert.same({}, n:tick(20))
  end)
end)

describe("notify: routes", function()
  it("take the first match and go on only with continue", function()
    local n = capture { routes = {
      { name = "crit", match = { severity = "crit" }, continue = true },
      { name = "ops", match = { team = "ops" } },
      { name = "multi", match = { team = { "db", "web" } } },
      { name = "rest" },
    } }
    n:event(tr(0, "A", { severity = "crit", team = "ops" }, "firing"))
    n:event(tr(0, "B", { severity = "warn", team = "ops" }, "firing"))
    n:event(tr(0, "C", { team = "web" }, "firing"))
    n:event(tr(0, "D", {}, "firing"))
    local got = {}
    for _, s in ipairs(n:tick(0)) do got[#got + 1] = s.route .. ":" .. s.name end
    table.sort(got)
    assert.same({ "crit:A", "multi:C", "ops:A", "ops:B", "rest:D" }, got)
  end)

  it("accepts a DSL set object (fields routes/inhibits/silences) and a set without routes", function()
    local dsl = setmetatable({ routes = { { match = { alertname = "A" } } }, inhibits = {}, silences = {} },
      { __index = { rule = function() end } })
    local n = capture(dsl)
    n:event(tr(0, "A", {}, "firing"))
    n:event(tr(0, "B", {}, "firing"))
    assert.equals(1, #n:tick(0))
    assert.equals(1, n.stats.unrouted)
    n = capture {}
    n:event(tr(0, "B", {}, "firing"))
    assert.equals(1, #n:tick(0))                                  -- default route: print
  end)

  it("raise on a bad set naming the route and key", function()
    assert.has_error(function() N.new { routes = { { mach = {} } } } end, "route 1: unknown key 'mach'")
    assert.has_error(function() N.new { routes = { {}, { actions = { { kind = "mail" } } } } } end,
      "route 2 action 1: unknown action kind 'mail'")
    assert.has_error(function() N.new { routes = { { actions = { { kind = "exec", argv = "x" } } } } } end)
    assert.has_error(function() N.new { routes = { { group_wait = "soon" } } } end)
    assert.has_error(function() N.new { routes = { { throttle = { rate = "lots" } } } } end)
    assert.has_error(function() N.new { silences = { { match = {}, expires = "tomorrow" } } } end)
    assert.has_error(function() N.new { inhibits = { { source = {} } } } end)
  end)

  it("log and ignore malformed events instead of raising", function()
    local logged = {}
    local n = N.new({}, { run = true, log = function(m) logged[#logged + 1] = m end })
    n:event(nil)
    n:event { kind = "transition" }
    n:event { kind = "weird", labels = { alertname = "X" } }
    assert.equals(3, #logged)
    assert.same({}, n:tick(0))
  end)
end)

describe("notify: throttle", function()
  it("is a token bucket per route on the sample clock; throttled groups wait, not vanish", function()
    local n = capture { routes = { { group_by = { "..." }, throttle = { rate = "1/m", burst = 2 } } } }
    for i = 1, 4 do n:event(tr(0, "A", { instance = tostring(i) }, "firing")) end
    assert.equals(2, #n:tick(0))
    assert.same({}, n:tick(30))
    assert.equals(1, #n:tick(60))
    assert.same({}, n:tick(90))
    assert.equals(1, #n:tick(120))
    assert.same({}, n:tick(600))                                  -- everything sent once
    assert.is_true(n.stats.throttled >= 3)
  end)
end)

describe("notify: inhibition", function()
  it("a firing source with equal labels suppresses targets until it resolves", function()
    local n = capture { inhibits = { { source = { alertname = "HostDown" }, target = { severity = "warn" },
                                       equal = { "host" } } },
                        routes = { { group_by = { "..." } } } }
    n:event(tr(0, "HostDown", { host = "h1" }, "firing"))
    n:event(tr(0, "CoreBusy", { host = "h1", severity = "warn" }, "firing"))
    n:event(tr(0, "CoreBusy", { host = "h2", severity = "warn" }, "firing"))
    local got = {}
    for _, s in ipairs(n:tick(0)) do got[#got + 1] = s.name .. "@" .. s.labels.host end
    table.sort(got)
    assert.same({ "CoreBusy@h2", "HostDown@h1" }, got)
    assert.same({ alertname = "HostDown", host = "h1" },
      n:inhibited { alertname = "CoreBusy", host = "h1", severity = "warn" })
    assert.is_nil(n:inhibited { alertname = "CoreBusy", host = "h1", severity = "crit" })
    n:event(tr(10, "HostDown", { host = "h1" }, "resolved"))
    got = {}
    for _, s in ipairs(n:tick(10)) do got[#got + 1] = s.name .. "@" .. s.labels.host .. ":" .. s.state end
    table.sort(got)
    assert.same({ "CoreBusy@h1:firing", "HostDown@h1:resolved" }, got)
  end)
end)

describe("notify: silences", function()
  it("mute matching alerts until they expire on the sample clock", function()
    local n = capture { silences = { { match = { alertname = "CoreBusy", instance = "3" }, expires = 100,
                                       why = "bad core" } } }
    n:event(tr(0, "CoreBusy", { instance = "3" }, "firing"))
    n:event(tr(0, "CoreBusy", { instance = "4" }, "firing"))
    local sent = n:tick(0)
    assert.same({ "alert CoreBusy 4:firing" }, names(sent))
    assert.equals("bad core", n:silenced({ alertname = "CoreBusy", instance = "3" }, 50).why)
    assert.same({}, n:tick(50))
    assert.same({}, n:tick(99))
    sent = n:tick(100)                                            -- expired: now it is told
    assert.same({ "alert CoreBusy 3:firing,4:firing" }, names(sent))
  end)

  it("can be added and removed at run time; a silenced resolve is dropped", function()
    local n = capture {}
    n:event(tr(0, "X", {}, "firing"))
    assert.equals(1, #n:tick(0))
    local id = n:silence { match = { alertname = "X" } }
    n:event(tr(10, "X", {}, "resolved"))
    assert.same({}, n:tick(10))
    n:unsilence(id)
    assert.same({}, n:tick(20))
    n:event(tr(30, "Y", {}, "firing"))
    id = n:silence { match = { alertname = "Y" }, expires = 1e9 }
    assert.same({}, n:tick(30))
    n:unsilence(id)
    assert.equals(1, #n:tick(40))
  end)
end)

describe("notify: flapping", function()
  it("suppresses per-change notifications, sends flap_start/flap_end and the final state", function()
    local n = capture {}
    n:event(tr(0, "F", {}, "firing"))
    assert.equals(1, #n:tick(0))
    n:event(tr(10, "F", {}, "resolved"))
    n:event { kind = "flap_start", rule = "F", labels = { alertname = "F" }, t = 10 }
    assert.same({ "flap_start F :resolved" }, names(n:tick(10)))
    for t = 20, 60, 10 do
      n:event(tr(t, "F", {}, t % 20 == 0 and "firing" or "resolved"))
      assert.same({}, n:tick(t))
    end
    n:event(tr(70, "F", {}, "resolved"))
    n:event { kind = "flap_end", rule = "F", labels = { alertname = "F" }, t = 70 }
    local sent = n:tick(70)
    assert.same({ "flap_end F :resolved", "alert F :resolved" }, names(sent))
    assert.same({}, n:tick(80))
  end)
end)

describe("notify: actions for real", function()
  local dir
  local remove
  before_each(function() dir, remove = files.tempdir() end)
  after_each(function() remove() end)

  it("print writes one line per notification", function()
    local lines = {}
    local n = N.new({ routes = { { actions = { { kind = "print" } } } } },
      { out = function(l) lines[#lines + 1] = l end })
    n:event(tr(12, "CoreBusy", { instance = "0,1", severity = "crit" }, "firing"))
    n:tick(12)
    assert.same({ "[12] FIRING CoreBusy{alertname=CoreBusy,instance=0,1,severity=crit} value=95.5: CoreBusy 0,1" },
      lines)
  end)

  it("jsonl appends one parseable JSON object per line", function()
    local path = dir .. "/alerts.ndjson"
    local n = N.new { routes = { { actions = { { kind = "jsonl", path = path } } } } }
    n:event(tr(1, "CoreBusy", { instance = "0" }, "firing", { message = 'say "hi"\n\1\ttab é' }))
    n:tick(1)
    n:event(tr(2, "CoreBusy", { instance = "0" }, "resolved"))
    n:tick(2)
    local recs = {}
    for line in slurp(path):gmatch "([^\n]*)\n" do recs[#recs + 1] = json_decode(line) end
    assert.equals(2, #recs)
    assert.equals("firing", recs[1].state)
    assert.equals("CoreBusy", recs[1].alertname)
    assert.equals('say "hi"\n\1\ttab é', recs[1].message)
    assert.same({ alertname = "CoreBusy", instance = "0" }, recs[1].labels)
    assert.equals(95.5, recs[1].value)
    assert.equals(1, recs[1].t)
    assert.equals("resolved", recs[2].state)
    assert.equals("resolved", recs[2].alerts[1].state)
  end)

  it("syslog is sent with a priority from the action or the severity", function()
    local sock = syslogd.start(dir)
    assert(sock, "the syslog listener did not start (python3 is a test dependency)")
    local logged = {}
    local n = N.new({ routes = { { actions = { { kind = "syslog", socket = sock }, { kind = "syslog",
      priority = "info", ident = "perflib-spec", socket = sock } } } } },
      { log = function(m) logged[#logged + 1] = m end })
    n:event(tr(0, "SpecOnly", { severity = "warn" }, "firing", { message = "perflib notify spec, ignore" }))
    assert.equals(1, #n:tick(0))
    assert.same({}, logged)
    assert.equals(0, n.stats.failed)
    local recs = syslogd.records(2)
    assert.equals(2, #recs)
    assert.matches("^<12>%a+ +%d+ %d%d:%d%d:%d%d perflib%[%d+%]: %[0%] FIRING SpecOnly", recs[1])  -- user.warning
    assert.matches("^<14>.- perflib%-spec%[%d+%]: .-perflib notify spec, ignore$", recs[2])     -- user.info
  end)

  it("exec runs argv with {label} templates, never a shell, alert in the environment", function()
    local script = dir .. "/hook"
    local f = assert(io.open(script, "w"))
    f:write("#!/bin/sh\nout=\"$(dirname \"$0\")/out\"\n",
            "for a in \"$@\"; do printf '%s\\n' \"$a\" >> \"$out\"; done\n",
            "env | grep '^PERFLIB_' | sort > \"$(dirname \"$0\")/env\"\n")
    f:close()
    os.execute("chmod +x '" .. script .. "'")
    local n = N.new { routes = { { actions = { { kind = "exec",
      argv = { script, "{alertname}", "core {instance}", "$(touch " .. dir .. "/pwned); `id` {nolabel}" } } } } } }
    n:event(tr(5, "CoreBusy", { instance = "0,1", severity = "crit" }, "firing"))
    n:tick(5)
    n:drain()
    assert.equals("CoreBusy\ncore 0,1\n$(touch " .. dir .. "/pwned); `id` {nolabel}\n", slurp(dir .. "/out"))
    assert.is_nil(slurp(dir .. "/pwned"))
    local env = {}
    for k, v in slurp(dir .. "/env"):gmatch "(PERFLIB_[%w_]+)=([^\n]*)" do env[k] = v end
    assert.equals("CoreBusy", env.PERFLIB_ALERT_NAME)
    assert.equals("firing", env.PERFLIB_ALERT_STATE)
    assert.equals("95.5", env.PERFLIB_ALERT_VALUE)
    assert.equals("5", env.PERFLIB_ALERT_T)
    assert.same({ alertname = "CoreBusy", instance = "0,1", severity = "crit" }, json_decode(env.PERFLIB_ALERT_LABELS))
    assert.equals(1, #json_decode(env.PERFLIB_ALERTS))
    assert.equals(0, n.stats.failed)
  end)

  it("a failing exec is logged and retried with backoff on the sample clock, then given up", function()
    local script = dir .. "/fail"
    local f = assert(io.open(script, "w"))
    f:write("#!/bin/sh\necho run >> \"$(dirname \"$0\")/runs\"\nexit 3\n")
    f:close()
    os.execute("chmod +x '" .. script .. "'")
    local logged = {}
    local n = N.new({ routes = { { actions = { { kind = "exec", argv = { script }, retries = 2, backoff = 10 } } } } },
      { log = function(m) logged[#logged + 1] = m end })
    n:event(tr(0, "X", {}, "firing"))
    n:tick(0)
    n:drain()
    assert.equals(1, #logged)
    assert.matches("attempt 1/3", logged[1])
    assert.matches("exited 3", logged[1])
    n:tick(9)
    n:drain()
    assert.equals("run\n", slurp(dir .. "/runs"))
    n:tick(10)                                          -- first retry after backoff
    n:drain()
    n:tick(29)
    n:drain()
    assert.equals("run\nrun\n", slurp(dir .. "/runs"))
    n:tick(30)                                          -- second retry after 2 * backoff
    n:drain()
    assert.equals("run\nrun\nrun\n", slurp(dir .. "/runs"))
    assert.matches("giving up", logged[#logged])
    n:tick(1000)
    n:drain()
    assert.equals(3, #logged)
    assert.equals(1, n.stats.gave_up)
  end)

  it("a missing program is a logged failure, not an error", function()
    local logged = {}
    local n = N.new({ routes = { { actions = { { kind = "exec", argv = { dir .. "/nope" }, retries = 0 } } } } },
      { log = function(m) logged[#logged + 1] = m end })
    n:event(tr(0, "X", {}, "firing"))
    assert.equals(1, #n:tick(0))
    assert.equals(1, #logged)
    assert.matches("nope", logged[1])
    assert.matches("giving up", logged[1])
  end)

  it("call is pcall'd; a failing action is isolated from the others and retried", function()
    local calls, logged, later = 0, {}, {}
    local n = N.new({ routes = { { actions = {
      { kind = "call", retries = 1, backoff = "5s", fn = function()
          calls = calls + 1
          if calls == 1 then error "boom" end
        end },
      { kind = "call", retries = 0, fn = function() return false, "said no" end },
      { kind = "call", fn = function(alert) later[#later + 1] = alert.name .. ":" .. alert.state end },
    } } } }, { log = function(m) logged[#logged + 1] = m end })
    n:event(tr(0, "X", {}, "firing"))
    assert.has_no.errors(function() n:tick(0) end)
    assert.equals(1, calls)
    assert.same({ "X:firing" }, later)
    assert.equals(2, #logged)
    assert.matches("boom", logged[1])
    assert.matches("said no", logged[2])
    n:tick(4)
    assert.equals(1, calls)
    n:tick(5)
    assert.equals(2, calls)
    assert.equals(2, #logged)
    assert.equals(1, n.stats.retried)
  end)

  it("capture mode records actions with their expanded detail instead of running them", function()
    local seen = {}
    local n = N.new({ routes = { { actions = {
      { kind = "exec", argv = { "/nonexistent/page", "{alertname}", "{instance}" } },
      { kind = "jsonl", path = "/nonexistent/dir/x.ndjson" },
    } } } }, { run = function(action, alert, detail) seen[#seen + 1] = { action.kind, alert.name, detail } end,
               log = function(m) error("unexpected log: " .. m) end })
    n:event(tr(0, "CoreBusy", { instance = "7" }, "firing"))
    n:tick(0)
    assert.equals(2, #seen)
    assert.same({ "/nonexistent/page", "CoreBusy", "7" }, seen[1][3].argv)
    assert.equals("CoreBusy", seen[1][3].env.PERFLIB_ALERT_NAME)
    assert.equals("CoreBusy", json_decode(seen[2][3].line).alertname)
    assert.equals(0, n.stats.failed)
  end)

  it("per_alert runs an action once per alert of a grouped notification", function()
    local got = {}
    local n = N.new({ routes = { { group_wait = 10, actions = { { kind = "call", per_alert = true,
      fn = function() end } } } } }, { run = function(_, alert) got[#got + 1] = alert.labels.instance end })
    n:event(tr(0, "A", { instance = "0" }, "firing"))
    n:event(tr(0, "A", { instance = "1" }, "firing"))
    assert.equals(1, #n:tick(10))
    assert.same({ "0", "1" }, got)
  end)
end)
