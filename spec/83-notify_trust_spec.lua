-- perflib.rules.notify under hostile input and at the edges of its life:
-- escaped text for people (issue 10 #8), the queue across a reload and a stop
-- (#9), exec timeouts and a syslog nobody reads (#10), wall-clock times (#22).
local C = require "spec.support.compat"
local N = require "perflib.rules.notify"
local T = require "perflib.rules.test"
local perflib = require "perflib"
local core = require "perflib.core"
local files = dofile "spec/support/files.lua"
local slurp = files.slurp

local tr = dofile "spec/support/alert_events.lua"

-- No byte a terminal or a line-based log would act on.
local function assert_inert(s)
  assert.is_nil(s:find("[%z\1-\31\127]"), ("control byte in %q"):format(s))
  assert.is_truthy(C.utf8.len(s), ("invalid UTF-8 in %q"):format(s))
  for _, c in C.utf8.codes(s) do
    assert.is_false(c >= 0x80 and c <= 0x9F, ("C1 control in %q"):format(s))
  end
end

describe("notify: text for people", function()
  it("escapes C0, DEL, C1, invalid UTF-8, separators and bidi controls; keeps the rest", function()
    local e = N.escape
    assert.equals("\\x1b[31mPWN", e "\27[31mPWN")
    assert.equals("PWN\\nFAKE CRIT", e "PWN\nFAKE CRIT")
    assert.equals("a\\rb\\tc\\x00d\\x7f", e "a\rb\tc\0d\127")
    assert.equals("\\u{009B}31m", e "\194\15531m")                 -- C1 CSI, well-formed UTF-8
    assert.equals("\\x9b31m", e "\15531m")                        -- the same byte alone: not UTF-8
    assert.equals("\\xff\\xc0\\xafx", e "\255\192\175x")          -- invalid and overlong
    assert.equals("\\u{2028}\\u{202E}\\u{2066}", e "\226\128\168\226\128\174\226\129\166")
    assert.equals("café ✓ \\Processor(_Total)\\% Time", e "café ✓ \\Processor(_Total)\\% Time")
    assert.equals("42", e(42))
    local nasty = "\27]0;x\7\r\n\194\133\254\226\128\169"
    assert.equals(e(nasty), e(e(nasty)))                          -- escaping twice changes nothing
    assert_inert(e(nasty))
  end)

  it("print, syslog and the log get escaped lines; JSON and argv keep the real name", function()
    local rules = [[
local R = require "perflib.rules"
R.rule "Mem" { source = "\\Process(*)\\Working Set", value = R.last(), when = R.above(0), pending = "0s",
  message = "{instance} uses {value}" }
R.route { group_by = { "..." },
  actions = { R.print(), R.syslog(), R.jsonl "/x/{instance}.jsonl", R.exec { "/bin/true", "{instance}" } } }
]]
    local res = T.run { rules = rules, every = "10s", input = {
      ["\\Process(*)\\Working Set{instance=\27[31mPWN}"] = "5*2",
      ["\\Process(*)\\Working Set{instance=PWN\nFAKE CRIT}"] = "5*2",
    } }
    local seen = {}
    for _, c in ipairs(res.sent) do
      local d = c.detail
      if d.kind == "print" then assert_inert(d.line); seen[#seen + 1] = d.line end
      if d.kind == "syslog" then assert_inert(d.message); seen[#seen + 1] = d.message end
      if d.kind == "exec" then seen[#seen + 1] = d.argv[2] end
      if d.kind == "jsonl" then seen[#seen + 1] = d.line end
    end
    local all = table.concat(seen, "\n")
    assert.matches("FIRING Mem{alertname=Mem,instance=\\x1b[31mPWN,severity=warn}", all, 1, true)
    assert.matches(": PWN\\nFAKE CRIT uses 5", all, 1, true)
    assert.matches("\n\27[31mPWN\n", all, 1, true)                  -- argv: the name itself
    assert.matches('"instance":"PWN\\nFAKE CRIT"', all, 1, true)     -- JSON: escaped by JSON
    -- a failing action's message reaches the log escaped too
    local logged = {}
    local n = N.new({ routes = { { actions = { { kind = "call", retries = 0,
      fn = function(a) return false, "refused " .. a.labels.instance end } } } } },
      { log = function(m) logged[#logged + 1] = m end })
    n:event(tr(0, "X", { instance = "PWN\nFAKE CRIT\27[2J" }, "firing"))
    n:tick(0)
    assert.equals(1, #logged)
    assert_inert(logged[1])
    assert.matches("refused PWN\\nFAKE CRIT\\x1b[2J", logged[1], 1, true)
  end)
end)

describe("notify: wall-clock time", function()
  it("carries RFC 3339 UTC times beside the sample clock in JSON, print, exec and the retry log", function()
    assert.equals("2023-11-14T22:13:20.000Z", N.rfc3339(1700000000))
    assert.equals("2023-11-14T22:13:20.250Z", N.rfc3339(1700000000.2504))
    assert.equals("2023-11-14T22:13:21.000Z", N.rfc3339(1700000000.9996))
    local seen, logged = {}, {}
    local n = N.new({ routes = { { actions = { { kind = "print" }, { kind = "jsonl", path = "/x" },
      { kind = "exec", argv = { "/bin/true" } }, { kind = "call", backoff = 10, fn = function() end } } } } },
      { run = function(a, _, d)
          seen[a.kind] = d
          if a.kind == "call" then return false, "no" end
        end, log = function(m) logged[#logged + 1] = m end })
    -- the sample clock reads 1000 s since boot when the Unix clock reads 1700000000.5
    n:event(tr(990, "X", {}, "firing", { active_since = 980, fired_at = 990 }))
    n:tick(1000, 1700000000.5)
    assert.equals("[2023-11-14T22:13:20.500Z] FIRING X{alertname=X} value=95.5: X ", seen.print.line)
    local rec = seen.jsonl.line
    assert.matches('"t":1000,', rec, 1, true)                                   -- kept for compatibility
    assert.matches('"time":"2023-11-14T22:13:20.500Z"', rec, 1, true)
    assert.matches('"active_since":980,"active_since_time":"2023-11-14T22:13:00.500Z"', rec, 1, true)
    assert.matches('"fired_at":990,"fired_at_time":"2023-11-14T22:13:10.500Z"', rec, 1, true)
    assert.equals("2023-11-14T22:13:20.500Z", seen.exec.env.PERFLIB_ALERT_TIME)
    assert.equals("2023-11-14T22:13:00.500Z", seen.exec.env.PERFLIB_ALERT_ACTIVE_SINCE_TIME)
    assert.equals("2023-11-14T22:13:10.500Z", seen.exec.env.PERFLIB_ALERT_FIRED_AT_TIME)
    assert.equals("1000", seen.exec.env.PERFLIB_ALERT_T)
    assert.matches("retry at 2023-11-14T22:13:30.500Z, t=1010", logged[1], 1, true)
  end)
end)

describe("notify: reload and stop", function()
  local function set(extra)
    local r = { group_wait = 30, repeat_interval = 100, actions = { { kind = "call", fn = function() end } } }
    for k, v in pairs(extra or {}) do r[k] = v end
    return { routes = { r } }
  end
  local function sent_names(notes)
    local out = {}
    for i, x in ipairs(notes) do out[i] = x.name .. ":" .. x.state .. (x.is_repeat and ":repeat" or "") end
    return out
  end

  it("a reload keeps what waits in group_wait and the repeat schedule of an unchanged route", function()
    local old = N.new(set(), { run = true })
    old:event(tr(0, "A", {}, "firing"))
    old:event(tr(0, "B", {}, "firing"))
    old:tick(0)
    old:tick(30)                                     -- both sent at group_wait
    old:event(tr(40, "C", {}, "firing"))             -- C waits in group_wait until 70
    old:tick(40)
    local new = N.new(set { group_wait = 30 }, { run = true })
    assert.same({ kept = 1, changed = 0, resolved = 0 }, new:adopt(old, { "A", "B", "C" }))
    assert.same({}, sent_names(new:tick(69)))
    assert.same({ "C:firing" }, sent_names(new:tick(70)))
    assert.same({ "A:firing:repeat", "B:firing:repeat" }, sent_names(new:tick(130)))  -- last sent at 30
  end)

  it("a changed route gets the firing alerts anew; alerts of changed or removed rules resolve", function()
    local old = N.new(set(), { run = true })
    old:event(tr(0, "A", {}, "firing"))
    old:event(tr(0, "B", {}, "firing"))
    old:tick(30)
    local new = N.new(set { match = { alertname = { "A", "B" } } }, { run = true })
    assert.same({ kept = 0, changed = 1, resolved = 1 }, new:adopt(old, { "A" }))  -- B's rule changed
    assert.same({}, sent_names(new:tick(35)))
    assert.same({ "A:firing" }, sent_names(new:tick(65)))           -- group_wait after the reload
    -- B's resolution goes out through a kept route
    local old2 = N.new(set(), { run = true })
    old2:event(tr(0, "B", {}, "firing"))
    old2:tick(30)
    local new2 = N.new(set(), { run = true })
    assert.same({ kept = 1, changed = 0, resolved = 1 }, new2:adopt(old2, {}))
    assert.same({ "B:resolved" }, sent_names(new2:tick(31)))
  end)

  it("a stop sends what waits at once, tries retries a last time and logs what it drops", function()
    local calls, logged = 0, {}
    local n = N.new({ routes = {
      { match = { alertname = "A" }, group_wait = 30, actions = { { kind = "call", fn = function() end } } },
      { match = { alertname = "R" }, actions = { { kind = "call", backoff = 60,
        fn = function() calls = calls + 1; return false, "down" end } } },
      { match = { alertname = "T" }, throttle = { rate = "1/h" },
        actions = { { kind = "call", fn = function() end } } },
    } }, { log = function(m) logged[#logged + 1] = m end })
    n:event(tr(0, "R", {}, "firing"))
    n:event(tr(0, "T", { instance = "1" }, "firing"))
    n:tick(0)                                          -- R fails (retry at 60), T takes the one token
    n:event(tr(5, "A", {}, "firing"))
    n:event(tr(5, "T", { instance = "1" }, "resolved"))
    n:tick(5)
    assert.equals(1, calls)
    local sent = n:stop()
    assert.same({ "A:firing" }, sent_names(sent))      -- did not wait for group_wait
    assert.equals(2, calls)                            -- the retry, now, once
    assert.matches("attempt 2/3%) failed: down, giving up: stopping", logged[#logged - 1])
    assert.equals("dropped at stop: resolved T{alertname=T,instance=1} (route route 3, throttled)",
      logged[#logged])
  end)
end)

describe("notify: exec timeout and syslog delivery", function()
  local dir, remove
  before_each(function() dir, remove = files.tempdir() end)
  after_each(function() remove() end)

  it("an exec past its timeout is stopped with its process group, reaped and failed", function()
    local logged = {}
    local script = ("echo $$ > %s/pid; sleep 60 & echo $! > %s/grandchild; wait"):format(dir, dir)
    local n = N.new({ routes = { { actions = { { kind = "exec", argv = { "/bin/sh", "-c", script },
      timeout = "300ms", retries = 0 } } } } }, { log = function(m) logged[#logged + 1] = m end })
    n:event(tr(0, "Hung", {}, "firing"))
    local t0 = perflib.clock()
    n:tick(0)
    n:drain()
    local took = perflib.clock() - t0
    assert.is_true(took >= 0.3 and took < 2.5, "took " .. took)
    assert.same({ 0, 0 }, { n:pending() })
    assert.equals(1, #logged)
    assert.matches("action exec for Hung firing %(attempt 1/1%) failed: /bin/sh timed out after 0.3s, giving up",
      logged[1])
    local gc = tonumber(slurp(dir .. "/grandchild"))
    perflib.sleep(0.1)
    local stat = slurp("/proc/" .. gc .. "/stat") or ""
    assert.is_true(stat == "" or stat:match "^%d+ %(.-%) Z" ~= nil, "grandchild alive: " .. stat)
  end)

  it("rejects a timeout that is not a positive duration", function()
    assert.has_error(function()
      N.new { routes = { { actions = { { kind = "exec", argv = { "x" }, timeout = 0 } } } } }
    end, "route 1 action 1: timeout must be positive")
  end)

  it("syslog with no daemon listening fails, is retried, and the message reaches the log", function()
    local logged = {}
    local n = N.new({ routes = { { actions = { { kind = "syslog", socket = dir .. "/none", backoff = 5 } } } } },
      { log = function(m) logged[#logged + 1] = m end })
    n:event(tr(0, "Lost", { instance = "x\27[1m" }, "firing"))
    n:tick(0)
    assert.equals(1, n.stats.failed)
    assert.equals(1, #logged)
    assert.matches("action syslog for Lost firing (attempt 1/3) failed: syslog " .. dir
      .. "/none: No such file or directory; the message: [0] FIRING Lost{alertname=Lost,instance=x\\x1b[1m}",
      logged[1], 1, true)
    assert.matches("retry at t=5", logged[1], 1, true)
    local ok, msg, errno = core.syslog("info", "x", "perflib", dir .. "/none")
    assert.is_nil(ok)
    assert.equals("syslog " .. dir .. "/none: No such file or directory", msg)
    assert.equals(2, errno)
  end)
end)
