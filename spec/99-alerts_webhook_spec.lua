-- Alerts over HTTP without Alertmanager: core.http against a real HTTP
-- server on loopback (spec/support/http_sink.py), the alertmanager and webhook
-- actions' validation and payloads, retries, timeouts, bounded bodies, stop
-- and reload with sends in flight.
local perflib = require "perflib"
local core = require "perflib.core"
local N = require "perflib.rules.notify"
local R = require "perflib.rules"
local A = dofile "spec/support/alerting.lua"
local cjson = A.json

local function notifier(actions, logs)
  return N.new({ routes = { { actions = actions } } }, { log = function(m) logs[#logs + 1] = m end })
end

local function fire(n, t, labels, to, value, message)
  n:event { kind = "transition", rule = "DiskFull", labels = labels, to = to or "firing", t = t,
            value = value or 97.5, message = message or "disk full" }
end

describe("perflib.http", function()
  local dir
  setup(function() dir = A.tmpdir() end)
  teardown(function() os.execute("rm -rf " .. dir) end)

  it("raises on misuse, naming the argument or option", function()
    local h <close> = core.http()
    assert.error_matches(function() h:post({}, "x") end, "bad argument #1 to 'post'")
    assert.error_matches(function() h:post("http://127.0.0.1:1/", nil) end, "bad argument #2 to 'post'")
    assert.error_matches(function() h:post("http://127.0.0.1:1/", "x", { timeout = -1 }) end,
      "bad option 'timeout'")
    assert.error_matches(function() h:post("http://127.0.0.1:1/", "x", { timeout = "soon" }) end,
      "bad option 'timeout'")
    assert.error_matches(function() h:get("http://127.0.0.1:1/", { headers = { "X: a\r\nY: b" } }) end,
      "bad header 1")
    assert.error_matches(function() h:get("http://127.0.0.1:1/", { max_body = 2 ^ 21 }) end, "max_body")
    assert.error_matches(function() h:get("http://127.0.0.1:1/", { speed = 1 }) end, "speed")
    assert.error_matches(function() h:poll(-1) end, "bad argument #1 to 'poll'")
    assert.equals(0, h:pending())
    h:close()
    h:close()                                  -- idempotent
    assert.equals(0, h:pending())
    assert.error_matches(function() h:get("http://127.0.0.1:1/") end, "HTTP client is closed")
  end)

  it("bounds the transfers in flight; close frees those still running", function()
    local h = core.http()
    for i = 1, 256 do assert.equals(i, h:post("http://127.0.0.1:1/", "{}")) end
    local id, msg, errno = h:post("http://127.0.0.1:1/", "{}")
    assert.is_nil(id)
    assert.equals("too many HTTP transfers in flight (256)", msg)
    assert.equals(11, errno)                 -- EAGAIN
    assert.equals(256, h:pending())
    assert.is_true(h:cancel(7))
    assert.is_false(h:cancel(7))
    assert.equals(255, h:pending())
    h:close()
    assert.equals(0, h:pending())
  end)

  it("reports a refused connection as an error, not a raise", function()
    local port = A.free_port(dir)
    local h <close> = core.http()
    local id = assert(h:post("http://127.0.0.1:" .. port .. "/x", "{}", { timeout = 2 }))
    local r = h:poll(3)
    assert.equals(1, #r)
    assert.equals(id, r[1].id)
    assert.equals(0, r[1].status)
    assert.matches("onnect", r[1].error)
    assert.equals(0, h:pending())
  end)

  it("keeps an HTTP error status and its body", function()
    local s = A.sink(dir, "503")
    local h <close> = core.http()
    h:post(s.url .. "/hook", '{"a":1}', { headers = { "X-Test: yes" } })
    local r = h:poll(5)[1]
    A.stop(s.pid)
    assert.equals(503, r.status)
    assert.is_nil(r.error)
    assert.equals("receiver down for maintenance\n", r.body)
    local got = A.received(s)[1]
    assert.equals("/hook", got.path)
    assert.equals("yes", got.headers["x-test"])
    assert.same({ a = 1 }, got.json)
  end)

  it("reads a response body up to its bound and stops there", function()
    local s = A.sink(dir, "huge")
    local h <close> = core.http()
    h:post(s.url, "{}", { max_body = 1000, timeout = 5 })
    local r = h:poll(5)[1]
    A.stop(s.pid)
    assert.equals(200, r.status)
    assert.is_nil(r.error)
    assert.is_true(r.truncated)
    assert.equals(("x"):rep(1000), r.body)
  end)

  it("never blocks: a receiver that does not answer times out on its own clock", function()
    local s = A.sink(dir, "silent")
    local h <close> = core.http()
    h:post(s.url, "{}", { timeout = 0.5 })
    local c0 = perflib.clock()
    assert.same({}, h:poll())                -- one step, no waiting
    assert.is_true(perflib.clock() - c0 < 0.1)
    local r = A.wait_until(function() return h:poll(0.05)[1] end, 5)
    A.stop(s.pid)
    assert.matches("timed out", r.error)
    local took = perflib.clock() - c0
    assert.is_true(took >= 0.45 and took < 3, "took " .. took)
  end)
end)

describe("alertmanager and webhook actions", function()
  local dir
  setup(function() dir = A.tmpdir() end)
  teardown(function() os.execute("rm -rf " .. dir) end)

  it("refuses a bad action at load, naming the route and the action", function()
    local set, errs = R.load [==[
      R.rule "X" { source = [[\Processor(_Total)\% Processor Time]], when = R.above(1) }
      R.route { actions = { R.print(), R.alertmanager "ftp://am:9093" } }
      R.route { actions = { { kind = "webhook", url = "http://hook/x", headers = { ["Bad Name"] = "v" } } } }
    ]==]
    assert.truthy(set)
    assert.equals(2, #errs)
    assert.equals('route 1: key `actions`: action 2 (alertmanager): url "ftp://am:9093": scheme ftp is not '
      .. "http or https", errs[1].message)
    assert.equals("route 2: key `actions`: action 1: bad header name Bad Name", errs[2].message)
    local bad = {
      { { kind = "alertmanager" }, "route 1 action 1 %(alertmanager%): url must be a string" },
      { { kind = "webhook", url = "/relative" }, "is not absolute" },
      { { kind = "webhook", url = "http://:80/" }, "has no host" },
      { { kind = "webhook", url = "http://h:99999/" }, "bad port" },
      { { kind = "webhook", url = "http://h/a b" }, "spaces or control characters" },
      { { kind = "webhook", url = "http://h/", timeout = 0 }, "route 1 action 1.timeout: must be more than 0" },
      { { kind = "webhook", url = "http://h/", token = "a\nb" }, "action 1.token: header values" },
      { { kind = "webhook", url = "http://h/", max_body = -1 }, "max_body must be an integer" },
      { { kind = "webhook", url = "http://h/", method = "PUT" }, "unknown key 'method'" },
    }
    for _, case in ipairs(bad) do
      assert.error_matches(function() notifier({ case[1] }, {}) end, case[2])
    end
  end)

  it("the README's example loads, and its actions are checked as written", function()
    local text = assert(io.open "README.md"):read "a"
    local code = assert(text:match "### Alerts to Alertmanager.-```lua\n(.-)```", "no example")
    local set, errs = R.load([==[R.rule "X" { source = [[\Memory\Available Bytes]], when = R.below(1) }
]==] .. code)
    assert.is_nil(errs)
    local n = N.new(set, { run = true })
    assert.equals("http://127.0.0.1:9093/api/v2/alerts", n.routes[1].actions[1].endpoint)
    assert.same({ "Content-Type: application/json", "X-Team: ops", "Authorization: Bearer s3cret" },
      n.routes[2].actions[1].header_list)
    assert.equals(5, n.routes[1].actions[1].timeout)
    assert.equals(3, n.routes[1].actions[1].retries)
    assert.equals(10, n.routes[1].actions[1].backoff)
  end)

  it("posts Alertmanager's v2 payload: labels, annotations, startsAt, endsAt when resolved", function()
    local n = N.new({ routes = { { actions = { { kind = "alertmanager", url = "http://am.example:9093/",
      generator_url = "http://host/rules" } } } } }, { run = true })
    -- an instance name as /proc may give it: a quote, a backslash, a newline and a byte that is not UTF-8
    local inst = 'dm"0\\x\n\255'
    fire(n, 100, { instance = inst, severity = "crit", ["team-name"] = "ops", empty = "" })
    n:tick(100, 1700000000.0004)             -- sample t = 100 is Unix 1700000000.0004
    fire(n, 130, { instance = inst, severity = "crit", ["team-name"] = "ops", empty = "" }, "resolved", 12)
    -- the clocks moved apart by 0.7 ms: t = 130 is Unix 1700000030.0011, yet t = 100 stays .000 in startsAt
    n:tick(130, 1700000030.0011)
    assert.equals(2, #n.captured)
    local d1, d2 = n.captured[1].detail, n.captured[2].detail
    assert.equals("http://am.example:9093/api/v2/alerts", d1.url)
    -- 1700000000 is 2023-11-14T22:13:20Z (.0004 rounds to .000); resolved at 1700000030.0011 (.001)
    local labels = { alertname = "DiskFull", instance = 'dm"0\\x\n\u{FFFD}', severity = "crit", team_name = "ops" }
    assert.same({ { labels = labels, annotations = { summary = "disk full", value = "97.5" },
      startsAt = "2023-11-14T22:13:20.000Z", generatorURL = "http://host/rules" } }, cjson.decode(d1.body))
    assert.same({ { labels = labels, annotations = { summary = "disk full", value = "12" },
      startsAt = "2023-11-14T22:13:20.000Z", endsAt = "2023-11-14T22:13:50.001Z",
      generatorURL = "http://host/rules" } }, cjson.decode(d2.body))
    assert.matches('"instance":"dm\\"0\\\\x\\n\u{FFFD}"', d1.body, 1, true)
    local same = N.new({ routes = { { actions = { R.alertmanager "http://am:9093/api/v2/alerts" } } } })
    assert.equals("http://am:9093/api/v2/alerts", same.routes[1].actions[1].endpoint)
  end)

  it("posts Alertmanager's webhook message to any receiver", function()
    local n = N.new({ routes = { { name = "ops", group_by = { "alertname" }, group_wait = 5,
      actions = { { kind = "webhook", url = "http://hook.example/in" } } } } }, { run = true })
    fire(n, 10, { instance = "sda" })
    fire(n, 10, { instance = "sdb" }, "firing", 99)
    n:tick(15, 1700000000)                   -- t = 10 is Unix 1699999995
    local msg = cjson.decode(n.captured[1].detail.body)
    assert.equals("4", msg.version)
    assert.equals("firing", msg.status)
    assert.equals("ops", msg.receiver)
    assert.same({ alertname = "DiskFull" }, msg.groupLabels)
    assert.same({ alertname = "DiskFull" }, msg.commonLabels)
    assert.same({}, msg.commonAnnotations)
    assert.equals(0, msg.truncatedAlerts)
    assert.equals(2, #msg.alerts)
    local a = msg.alerts[1]
    assert.equals("firing", a.status)
    assert.equals("2023-11-14T22:13:15.000Z", a.startsAt)
    assert.equals("0001-01-01T00:00:00Z", a.endsAt)
    assert.same({ alertname = "DiskFull", instance = "sda" }, a.labels)
    assert.equals(16, #a.fingerprint)
    assert.not_equals(a.fingerprint, msg.alerts[2].fingerprint)
    assert.equals("99", msg.alerts[2].annotations.value)
  end)

  it("sends with its headers and token; a 503 is retried with backoff, then logged as given up", function()
    local ok, down = A.sink(dir, "ok"), A.sink(dir, "503")
    local logs = {}
    local n = notifier({
      { kind = "webhook", url = ok.url .. "/hook", token = "s3cret", headers = { ["X-Org"] = "42" } },
      { kind = "alertmanager", url = down.url, retries = 1, backoff = 1 } }, logs)
    fire(n, 0, { instance = "sda" })
    n:tick(0, 1700000000)
    A.tick_until(n, 0, function() return #A.received(down) >= 2 and n:sending() == 0 end, 10)
    A.stop(ok.pid)
    A.stop(down.pid)
    local got = A.received(ok)
    assert.equals(1, #got)
    assert.equals("/hook", got[1].path)
    assert.equals("Bearer s3cret", got[1].headers.authorization)
    assert.equals("42", got[1].headers["x-org"])
    assert.equals("application/json", got[1].headers["content-type"])
    assert.equals("firing", got[1].json.status)
    local tries = A.received(down)
    assert.equals(2, #tries)                 -- the attempt and its one retry
    assert.equals("/api/v2/alerts", tries[1].path)
    assert.equals(2, #logs)
    assert.matches("action alertmanager for DiskFull firing %(attempt 1/2%) failed: " .. down.url:gsub("%p", "%%%0")
      .. "/api/v2/alerts: HTTP 503: receiver down for maintenance, retry at", logs[1])
    assert.matches("%(attempt 2/2%) failed: .*HTTP 503.*, giving up$", logs[2])
    assert.equals(1, n.stats.gave_up)
  end)

  it("a refused connection is retried until the last retry, then logged", function()
    local port = A.free_port(dir)
    local logs = {}
    local n = notifier({ { kind = "alertmanager", url = "http://127.0.0.1:" .. port, retries = 2, backoff = 0.2 } },
      logs)
    fire(n, 0, { instance = "sda" })
    A.tick_until(n, 0, function() return n.stats.gave_up == 1 end, 10)
    assert.equals(3, #logs)
    assert.matches("attempt 1/3%) failed: .*onnect.*retry at", logs[1])
    assert.matches("attempt 2/3%) failed", logs[2])
    assert.matches("attempt 3/3%) failed: .*giving up$", logs[3])
  end)

  it("a tick never waits on a silent receiver; stop reports the send it drops", function()
    local s = A.sink(dir, "silent")
    local logs = {}
    local n = notifier({ { kind = "webhook", url = s.url, timeout = 30 } }, logs)
    fire(n, 0, { instance = "sda" })
    local c0 = perflib.clock()
    n:tick(0, 1700000000)
    for i = 1, 5 do n:tick(i, 1700000000 + i) end
    assert.is_true(perflib.clock() - c0 < 0.2, "ticks took " .. (perflib.clock() - c0))
    assert.same({ 0, 0 }, { n:pending() })
    assert.equals(1, n:sending())
    n:stop(0.3)
    A.stop(s.pid)
    assert.same({ 0, 0 }, { n:pending() })
    assert.equals(0, n:sending())
    assert.equals(1, #logs)
    assert.equals(("dropped at stop: action webhook for DiskFull still sending to %s, cancelled"):format(s.url),
      logs[1])
  end)

  it("a reload keeps sends in flight; a stop gives a waiting retry its last attempt", function()
    local s = A.sink(dir, "ok")
    local port = A.free_port(dir)
    local logs = {}
    local old = notifier({ { kind = "webhook", url = s.url } }, logs)
    fire(old, 0, { instance = "sda" })
    old:tick(0, 1700000000)
    local fresh = notifier({ { kind = "webhook", url = s.url } }, logs)
    fresh:adopt(old)
    A.tick_until(fresh, 0, function() return #A.received(s) == 1 and fresh:sending() == 0 end, 5)
    assert.equals(1, #A.received(s))
    A.stop(s.pid)
    -- a retry scheduled 60 s later: the stop tries it once more at once, and says it gave up
    local n = notifier({ { kind = "alertmanager", url = "http://127.0.0.1:" .. port, retries = 3, backoff = 60 } },
      logs)
    fire(n, 0, { instance = "sdb" })
    A.tick_until(n, 0, function() return select(2, n:pending()) == 1 end, 5)
    n:stop(5)
    assert.same({ 0, 0 }, { n:pending() })
    assert.equals(0, n:sending())
    assert.matches("attempt 2/4%) failed: .*, giving up: stopping$", logs[#logs])
  end)
end)
