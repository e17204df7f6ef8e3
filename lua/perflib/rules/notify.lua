--- Notifications for rule-based monitors: routes, grouping, repeat, throttle,
-- inhibition, silences and actions (print, jsonl, syslog, exec, call; alertmanager
-- and webhook from perflib.rules.webhook).
--
--    local N = require "perflib.rules.notify"
--    local n = N.new(set, { log = function(msg) end, run = nil })
--    for _, ev in ipairs(eng:feed(t, frame)) do n:event(ev) end
--    local sent = n:tick(t)
--
-- Everything runs on ONE clock: the sample time given to `event` (ev.t) and
-- `tick`.  Nothing here raises into the caller once `new` accepted the set:
-- failing actions are logged and retried (`retries`, `backoff`).  Given the
-- Unix time of the sample too (`tick(t, unix)`), notifications also carry
-- RFC 3339 UTC times (`time`, `active_since_time`, ...).  Everything meant
-- for a person (print, syslog, the log) goes through `N.escape`.
-- @module perflib.rules.notify
local S = require "perflib.rules.sandbox"
local W = require "perflib.rules.webhook"
local D = require "perflib.rules.detail"
local compat = require "perflib.compat"
local N = {}

local T = require "perflib.rules.text"
local json = require "perflib.json"
N.duration, N.rate, N.json, N.escape, N.rfc3339 = T.duration, T.rate, json.encode, T.escape, T.rfc3339

--- Seconds from a number or a string such as "90s", "5m", "1h30m", "250ms"
-- (perflib.rules.text's, as routes read `group_wait` and the like).
-- @function duration
-- @tparam number|string v
-- @treturn[1] number seconds
-- @return[2] nil
-- @treturn[2] string message ("negative duration", "bad duration ...", ...)

--- Events per second from a positive number or "n/duration": "10/h", "3/5m", "1/s"
-- (as a route's `throttle.rate`).
-- @function rate
-- @tparam number|string v
-- @treturn[1] number events per second
-- @return[2] nil
-- @treturn[2] string message ("bad rate ...", "rate must be positive")

--- JSON text of a value (what jsonl lines and webhook bodies are made of).
-- Raises on a value JSON cannot hold (a cycle, a function).
-- @function json
-- @param v a string, number, boolean or table
-- @treturn string

--- Text made safe for a terminal or a log line: control characters, bytes that are not
-- UTF-8 and the bidirectional controls escaped, so the result is one printable line.
-- @function escape
-- @param s a string (other values go through tostring)
-- @treturn string

--- RFC 3339 UTC text of a Unix time, to the millisecond ("2024-05-01T12:00:00.250Z").
-- @function rfc3339
-- @tparam number unix seconds since the epoch
-- @treturn ?string nil for a non-number, NaN or a time beyond 1e12 s
local json_number = json.number

-- Matching --------------------------------------------------------------------------

-- match = { k = "v" | { "v1", "v2" } | function(value) -> bool }
local function matches(match, labels)
  if not match then return true end
  for k, want in pairs(match) do
    local have = labels[k]
    local tw = type(want)
    if tw == "function" then
      if not want(have) then return false end
    elseif tw == "table" then
      local ok = false
      for _, w in ipairs(want) do
        if have ~= nil and tostring(w) == tostring(have) then ok = true break end
      end
      if not ok then return false end
    elseif have == nil or tostring(have) ~= tostring(want) then
      return false
    end
  end
  return true
end
--- Do the labels meet a route's (or silence's) `match`?  Each key's wanted value is a
-- value (compared as strings), a list of values (any one), or a function of the label's value.
-- @tparam ?table match `{label = value | {value, ...} | function}`; nil matches everything
-- @tparam table labels the alert's labels
-- @treturn boolean
-- @function matches
N.matches = matches

local function fingerprint(labels)
  local keys = {}
  for k in pairs(labels) do keys[#keys + 1] = k end
  table.sort(keys)
  for i, k in ipairs(keys) do keys[i] = k .. "=" .. tostring(labels[k]) end
  return table.concat(keys, "\0")
end

local function copy(t)
  local c = {}
  for k, v in pairs(t or {}) do c[k] = v end
  return c
end

local label_text = D.label_text

-- Validation of routes, inhibits, silences and actions ------------------------------

local ROUTE_KEYS = { match = true, actions = true, notify = true, group_by = true, group_wait = true,
  group_interval = true, repeat_interval = true, throttle = true, continue = true, send_resolved = true,
  name = true }
local ACTION_KEYS = {
  print = { to = true },
  jsonl = { path = true },
  syslog = { priority = true, ident = true, socket = true },
  exec = { argv = true, stdout = true, stderr = true, timeout = true },
  call = { fn = true },
  alertmanager = W.KEYS, webhook = W.KEYS,
}
local COMMON_ACTION_KEYS = { kind = true, retries = true, backoff = true, per_alert = true }
local PRIORITIES = { emerg = 1, alert = 1, crit = 1, err = 1, error = 1, warning = 1, warn = 1,
  notice = 1, info = 1, debug = 1 }

local function check_keys(t, allowed, where, extra)
  for k in pairs(t) do
    if not allowed[k] and not (extra and extra[k]) then
      error(("%s: unknown key '%s'"):format(where, tostring(k)), 0)
    end
  end
end

local function need_duration(v, where, default)
  if v == nil then return default end
  if v == false then return math.huge end
  local d, msg = N.duration(v)
  if not d then error(where .. ": " .. msg, 0) end
  return d
end

local function check_action(a, where)
  if type(a) ~= "table" then error(where .. ": an action must be a table", 0) end
  local allowed = ACTION_KEYS[a.kind]
  if not allowed then error(("%s: unknown action kind '%s'"):format(where, tostring(a.kind)), 0) end
  check_keys(a, allowed, where, COMMON_ACTION_KEYS)
  local c = copy(a)
  c.retries = a.retries == nil and 2 or a.retries
  if compat.math_type(c.retries) ~= "integer" or c.retries < 0 then
    error(where .. ": retries must be a non-negative integer", 0)
  end
  c.backoff = need_duration(a.backoff, where .. ".backoff", 10)
  if a.kind == "jsonl" and type(a.path) ~= "string" then error(where .. ": jsonl needs a path", 0) end
  if a.kind == "call" and type(a.fn) ~= "function" then error(where .. ": call needs fn", 0) end
  if a.kind == "syslog" and a.priority ~= nil and not PRIORITIES[a.priority] then
    error(("%s: unknown syslog priority '%s'"):format(where, tostring(a.priority)), 0)
  end
  if a.kind == "syslog" and a.socket ~= nil and type(a.socket) ~= "string" then
    error(where .. ": syslog socket must be a path", 0)
  end
  if W.KINDS[a.kind] then W.check(a, c, where) end
  if a.kind == "exec" then
    c.timeout = need_duration(a.timeout, where .. ".timeout", 30)
    if c.timeout <= 0 then error(where .. ": timeout must be positive", 0) end
    if type(a.argv) ~= "table" or #a.argv == 0 then error(where .. ": exec needs argv (a list)", 0) end
    for i, s in ipairs(a.argv) do
      if type(s) ~= "string" then error(("%s: argv[%d] must be a string"):format(where, i), 0) end
    end
  end
  return c
end

-- A route's identity across a reload: what it matches, how it groups and
-- what it does (not its timing, which a reload may change in place).
-- Functions cannot be compared: any function counts as the same.
local function signature(v)
  local t = type(v)
  if t == "function" then return "fn" end
  if t ~= "table" then return t:sub(1, 1) .. tostring(v) end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys, function(x, y) return tostring(x) < tostring(y) end)
  for n, k in ipairs(keys) do keys[n] = tostring(k) .. "=" .. signature(v[k]) end
  return "{" .. table.concat(keys, ",") .. "}"
end

local function check_route(r, i)
  local where = ("route %d"):format(i)
  if type(r) ~= "table" then error(where .. ": must be a table", 0) end
  check_keys(r, ROUTE_KEYS, where)
  local c = { index = i, name = r.name or where, match = r.match, continue = r.continue and true or false,
    send_resolved = r.send_resolved ~= false, group_by = r.group_by or { "alertname" },
    group_wait = need_duration(r.group_wait, where .. ".group_wait", 0),
    group_interval = need_duration(r.group_interval, where .. ".group_interval", 0),
    repeat_interval = need_duration(r.repeat_interval, where .. ".repeat_interval", 4 * 3600),
    actions = {}, groups = {}, notes = {},
    sig = signature { r.name, r.match, r.group_by, r.continue, r.actions or r.notify } }
  for k, a in ipairs(r.actions or r.notify or { { kind = "print" } }) do
    c.actions[k] = check_action(a, ("%s action %d"):format(where, k))
  end
  if r.throttle then
    local rate, msg = N.rate(r.throttle.rate)
    if not rate then error(where .. ".throttle: " .. msg, 0) end
    local burst = r.throttle.burst or 1
    if type(burst) ~= "number" or burst < 1 then error(where .. ".throttle: burst must be >= 1", 0) end
    c.throttle = { rate = rate, burst = burst, tokens = burst }
  end
  return c
end

local function check_silence(s, where)
  if type(s) ~= "table" or type(s.match) ~= "table" then error(where .. ": needs match = { ... }", 0) end
  if s.expires ~= nil and type(s.expires) ~= "number" then
    error(where .. ": expires must be a sample time (seconds)", 0)
  end
  return { match = s.match, expires = s.expires, starts = s.starts, why = s.why }
end

-- The notifier ----------------------------------------------------------------------

local Notifier = {}
Notifier.__index = Notifier

local function default_log(msg)
  io.stderr:write("perflib.notify: ", msg, "\n")
end

--- A notifier for a rule set.
-- @param set the DSL set (its `routes`, `inhibits`, `silences`) or a plain table with them
-- @tparam[opt] table opts `run` (function(action, alert, detail) or true: capture actions
--   instead of running them; true records them in `n.captured`), `log` (function(msg),
--   default io.stderr), `out` (print destination: a file or function(line), default io.stdout),
--   `perflib` (a table with spawn, wait, kill, syslog, clock and http; default
--   require "perflib.core", where these internal functions live)
-- @treturn table the notifier (its methods below); a bad route, inhibit, silence or action
--   raises with a message naming it ("route 2 action 1: unknown action kind 'x'")
function N.new(set, opts)
  opts = opts or {}
  set = set or {}
  local self = setmetatable({ routes = {}, inhibits = {}, silences = {}, alerts = {}, jobs = {},
    children = {}, sends = {}, captured = {}, now = -math.huge, next_silence = 1,
    stats = { events = 0, sent = 0, throttled = 0, failed = 0, retried = 0, gave_up = 0, unrouted = 0 },
    run = opts.run, log = opts.log or opts.logger or default_log, out = opts.out or io.stdout,
    lib = opts.perflib, call_box = set.call_box }, Notifier)
  local routes = set.routes or {}
  if #routes == 0 then routes = { {} } end           -- default: everything to print
  for i, r in ipairs(routes) do self.routes[i] = check_route(r, i) end
  for i, h in ipairs(set.inhibits or {}) do
    local where = ("inhibit %d"):format(i)
    if type(h) ~= "table" or type(h.source) ~= "table" or type(h.target) ~= "table" then
      error(where .. ": needs source and target matchers", 0)
    end
    self.inhibits[i] = { source = h.source, target = h.target, equal = h.equal or {} }
  end
  for i, s in ipairs(set.silences or {}) do
    self:silence(check_silence(s, ("silence %d"):format(i)))
  end
  self.started = true
  return self
end

function Notifier:_log(msg)
  msg = N.escape(msg)
  local ok = pcall(self.log, msg)
  if not ok then pcall(default_log, msg) end
end

function Notifier:_perflib()
  self.lib = self.lib or require "perflib.core"
  return self.lib
end

--- Adds a silence at run time: { match = {...}, expires = t|nil, why = "..." } → id.
-- @tparam table s the silence (`match`, `starts`, `expires` on the sample clock, `why`); a bad one raises
-- @treturn integer its id, for @{Notifier:unsilence}
function Notifier:silence(s)
  s = check_silence(s, "silence")
  local id = self.next_silence
  self.next_silence = id + 1
  s.id = id
  s.runtime = self.started
  self.silences[id] = s
  return id
end

--- Removes a silence by id (an unknown id does nothing).
-- @tparam integer id what @{Notifier:silence} returned
function Notifier:unsilence(id)
  self.silences[id] = nil
end

--- The active silence matching labels at sample time t (default: the last tick), or nil.
-- @tparam table labels an alert's labels
-- @tparam[opt] number t sample time
-- @treturn ?table the silence
function Notifier:silenced(labels, t)
  t = t or self.now
  for _, s in pairs(self.silences) do
    if (s.expires == nil or t < s.expires) and (s.starts == nil or t >= s.starts)
        and matches(s.match, labels) then
      return s
    end
  end
  return nil
end

--- The labels of a firing alert that inhibits one with these labels, or nil.
-- @tparam table labels an alert's labels
-- @treturn ?table the inhibiting alert's labels
function Notifier:inhibited(labels)
  for _, h in ipairs(self.inhibits) do
    if matches(h.target, labels) then
      for _, src in pairs(self.alerts) do
        if src.state == "firing" and src.labels ~= labels and matches(h.source, src.labels) then
          local same = true
          for _, k in ipairs(h.equal) do
            if src.labels[k] ~= labels[k] then same = false break end
          end
          if same then return src.labels end
        end
      end
    end
  end
  return nil
end

function Notifier:_muted(alert)
  return self:silenced(alert.labels) ~= nil or self:inhibited(alert.labels) ~= nil
end

local FIRING = { firing = true, recovering = true }
local CLEARED = { resolved = true, inactive = true }

local function group_key(route, labels)
  local parts, glabels = {}, {}
  for _, k in ipairs(route.group_by) do
    if k == "..." then return fingerprint(labels), copy(labels) end
    parts[#parts + 1] = k .. "=" .. tostring(labels[k] or "")
    glabels[k] = labels[k]
  end
  return table.concat(parts, "\0"), glabels
end

function Notifier:_routes_for(labels)
  local list = {}
  for _, r in ipairs(self.routes) do
    if matches(r.match, labels) then
      list[#list + 1] = r
      if not r.continue then break end
    end
  end
  return list
end

--- Takes one engine event (a transition, flap_start or flap_end); never raises.
-- What it notifies goes out at the next @{Notifier:tick}.
-- @tparam table ev an event of perflib.rules.engine's `feed`
function Notifier:event(ev)
  local ok, err = pcall(self._event, self, ev)
  if not ok then self:_log("bad event ignored: " .. tostring(err)) end
end

--- Takes a list of events (as @{Notifier:event}, in order).
-- @tparam {table,...} list
function Notifier:events(list)
  for _, ev in ipairs(list or {}) do self:event(ev) end
end

-- Puts a firing alert in its group of route r (made at t), or takes out
-- one that cleared before anyone was told.
local function place(r, a, t)
  local key, glabels = group_key(r, a.labels)
  local g = r.groups[key]
  if a.state == "firing" and not g then
    g = { key = key, labels = glabels, entries = {}, created = t }
    r.groups[key] = g
  end
  if g then
    local e = g.entries[a.fp]
    if a.state == "firing" and not e then
      g.entries[a.fp] = { alert = a }
    elseif e and a.state ~= "firing" and e.notified ~= "firing" then
      g.entries[a.fp] = nil               -- cleared before anyone was told: drop quietly
    end
  end
end

function Notifier:_event(ev)
  if type(ev) ~= "table" or type(ev.labels) ~= "table" then error("event without labels", 0) end
  self.stats.events = self.stats.events + 1
  local labels = copy(ev.labels)
  labels.alertname = labels.alertname or ev.rule
  local fp = fingerprint(labels)
  local a = self.alerts[fp]
  if not a then
    a = { name = labels.alertname, labels = labels, state = "inactive", fp = fp }
    self.alerts[fp] = a
  end
  local t = ev.t or self.now
  a.t, a.rule = t, ev.rule or a.rule
  if ev.kind == "flap_start" or ev.kind == "flap_end" then
    a.flapping = ev.kind == "flap_start"
    local routes = self:_routes_for(labels)
    if #routes == 0 then self.stats.unrouted = self.stats.unrouted + 1 end
    for _, r in ipairs(routes) do r.notes[#r.notes + 1] = { kind = ev.kind, alert = a, t = t } end
    return
  end
  if ev.kind ~= nil and ev.kind ~= "transition" then error("unknown event kind " .. tostring(ev.kind), 0) end
  a.engine_state = ev.to
  a.value = ev.value ~= nil and ev.value or a.value
  a.message = ev.message or a.message
  a.active_since = ev.active_since or a.active_since
  a.fired_at = ev.fired_at or a.fired_at
  if FIRING[ev.to] then
    if a.state ~= "firing" then a.fired_at = ev.fired_at or t end
    a.state = "firing"
  elseif CLEARED[ev.to] and a.state == "firing" then
    a.state = "resolved"
    a.resolved_at = t
  elseif CLEARED[ev.to] or (ev.to == "pending" and a.state ~= "firing") then
    a.state = "inactive"
  end                                     -- unknown (and pending while firing): no change
  local routes = self:_routes_for(labels)
  if #routes == 0 and a.state == "firing" then self.stats.unrouted = self.stats.unrouted + 1 end
  for _, r in ipairs(routes) do place(r, a, t) end
end


-- Notifications ---------------------------------------------------------------------

-- Adds RFC 3339 UTC twins of the sample-clock fields when the offset
-- (Unix time minus sample time) is known.
local function stamp(x, off)
  if off then
    for _, k in ipairs { "active_since", "fired_at", "resolved_at" } do
      if x[k] then x[k .. "_time"] = N.rfc3339(x[k] + off) end
    end
    if x.t then x.time = N.rfc3339(x.t + off) end
  end
  return x
end

-- The wall-clock text of an alert's firing is worked out once per firing (the
-- offset between the clocks moves a little at each tick): every notification of
-- one firing says the same time (Alertmanager's startsAt).
local function fired_text(a, off)
  if not (a.fired_at and off) then return nil end
  if a.fired_for ~= a.fired_at then a.fired_for, a.fired_text = a.fired_at, N.rfc3339(a.fired_at + off) end
  return a.fired_text
end

local function snapshot(a, off)
  local x = stamp({ name = a.name, state = a.state, labels = copy(a.labels), value = a.value, message = a.message,
    active_since = a.active_since, fired_at = a.fired_at, resolved_at = a.resolved_at,
    engine_state = a.engine_state, flapping = a.flapping or false }, off)
  x.fired_at_time = fired_text(a, off) or x.fired_at_time
  return x
end

local function common_labels(alerts)
  local common = copy(alerts[1].labels)
  for i = 2, #alerts do
    for k, v in pairs(common) do
      if alerts[i].labels[k] ~= v then common[k] = nil end
    end
  end
  return common
end

-- A notification looks like one alert (name, state, labels, value, message) and
-- carries the whole group in `alerts`.
local function make_note(kind, route, alerts, t, group, is_repeat, off)
  local firing = 0
  for _, a in ipairs(alerts) do if a.state == "firing" then firing = firing + 1 end end
  local one = alerts[1]
  local msgs = {}
  for _, a in ipairs(alerts) do msgs[#msgs + 1] = a.message or (a.name .. " " .. label_text(a.labels)) end
  return stamp({ kind = kind, route = route.name, group = group and group.labels or copy(one.labels),
    group_key = group and group.key, t = t, is_repeat = is_repeat or false,
    name = one.name, alertname = one.name,
    state = kind == "alert" and (firing > 0 and "firing" or "resolved") or one.state,
    labels = common_labels(alerts), value = #alerts == 1 and one.value or nil,
    message = #alerts == 1 and msgs[1] or (#alerts .. " alerts: " .. table.concat(msgs, "; ")),
    count = #alerts, firing = firing, resolved = #alerts - firing, alerts = alerts,
    active_since = one.active_since, fired_at = one.fired_at, resolved_at = one.resolved_at }, off)
end

local function take_token(route, t)
  local b = route.throttle
  if not b then return true end
  if b.last then b.tokens = math.min(b.burst, b.tokens + (t - b.last) * b.rate) end
  b.last = t
  if b.tokens >= 1 then
    b.tokens = b.tokens - 1
    return true
  end
  return false
end

function Notifier:_flush_group(r, g, t, sent, now)
  local live, changed, any_firing = {}, false, false
  for fp, e in pairs(g.entries) do
    local a = e.alert
    if self:_muted(a) or a.flapping then
      if a.state ~= "firing" and not a.flapping then g.entries[fp] = nil end
    else
      live[#live + 1] = e
      if e.notified ~= a.state then changed = true end
      if a.state == "firing" then any_firing = true end
    end
  end
  local due, is_repeat = false, false
  if changed then
    due = now or g.last_sent == nil and t >= g.created + r.group_wait
      or g.last_sent ~= nil and t >= g.last_sent + r.group_interval
  elseif any_firing and g.last_sent and t >= g.last_sent + r.repeat_interval then
    due, is_repeat = true, true
  end
  if due and not take_token(r, t) then
    self.stats.throttled = self.stats.throttled + 1
    due = false
  end
  if due then
    table.sort(live, function(x, y) return x.alert.fp < y.alert.fp end)
    local alerts = {}
    for _, e in ipairs(live) do
      local a = e.alert
      if a.state == "firing" or (e.notified == "firing" and r.send_resolved) then
        alerts[#alerts + 1] = snapshot(a, self.offset)
      end
      e.notified = a.state
      if a.state ~= "firing" then g.entries[a.fp] = nil end
    end
    if #alerts > 0 then
      g.last_sent = t
      local note = make_note("alert", r, alerts, t, g, is_repeat, self.offset)
      sent[#sent + 1] = note
      self:_dispatch(r, note, t)
    end
  end
  if next(g.entries) == nil then r.groups[g.key] = nil end
end

--- Sends what is due at sample time t: queued flap notices, groups whose
-- group_wait / group_interval / repeat_interval elapsed (subject to silences,
-- inhibition and the route's throttle), retries whose backoff elapsed; reaps
-- finished exec children and stops those past their timeout.  Returns the
-- list of notifications sent.
-- @number t sample time (seconds, the clock of the events)
-- @number[opt] unix the Unix time of the same instant (`s.timestamp` of the
--   sample): from then on notifications carry RFC 3339 UTC times beside the
--   sample-clock ones (`time`, `active_since_time`, `fired_at_time`, `resolved_at_time`)
-- @treturn {table,...} the notifications sent (a failure inside is logged, never raised)
function Notifier:tick(t, unix)
  local sent = {}
  local ok, err = pcall(function()
    if type(t) ~= "number" then error("tick needs a sample time", 0) end
    self.now = t
    if type(unix) == "number" then self.offset = unix - t end
    self:_reap()
    self:_retry(t)
    self:_send(t, sent, false)
  end)
  if not ok then self:_log("tick failed: " .. tostring(err)) end
  self.stats.sent = self.stats.sent + #sent
  return sent
end

-- Sends the queued flap notices and the groups that are due (all groups
-- with news when `now`, as at a stop).
function Notifier:_send(t, sent, now)
  for _, r in ipairs(self.routes) do
    local keep = {}
    for _, note in ipairs(r.notes) do
      if self:_muted(note.alert) then
        self.stats.muted = (self.stats.muted or 0) + 1
      elseif take_token(r, t) then
        local n = make_note(note.kind, r, { snapshot(note.alert, self.offset) }, t, nil, false, self.offset)
        sent[#sent + 1] = n
        self:_dispatch(r, n, t)
      else
        self.stats.throttled = self.stats.throttled + 1
        keep[#keep + 1] = note
      end
    end
    r.notes = keep
    local keys = {}
    for k in pairs(r.groups) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, k in ipairs(keys) do self:_flush_group(r, r.groups[k], t, sent, now) end
  end
end

-- Actions (what each does for a note: perflib.rules.detail) ---------------------------

--- A template with `{label}` and `{field}` of a notification filled in (a label first, then the
-- notification's own field such as `value` or `message`); unknown names and table values stay
-- as written.
-- @function expand
-- @tparam string s the template
-- @tparam table note the notification (its `labels` and fields)
-- @treturn string
N.expand = D.expand

--- A captured action as a flat record: `action` (its kind), `route`, `alertname`, `state`,
-- `kind` ("alert" or "flap_start"/"flap_end"), `labels` (a copy), `value`, `message`, `count`
-- (alerts in the group), `is_repeat`, `detail` (what the action would have done), `t`.
-- @tparam table c an entry of `n.captured` (a notifier made with `run = true`)
-- @treturn table the record
function N.record_of(c)
  local note = c.alert
  return { t = c.t, action = c.action.kind, route = note.route, alertname = note.name, state = note.state,
           kind = note.kind, labels = copy(note.labels), value = note.value, message = note.message,
           count = note.count, is_repeat = note.is_repeat, detail = c.detail }
end

-- Runs one attempt; returns true, "running" (exec or HTTP send started), or nil, message.
function Notifier:_execute(job)
  local action, note = job.action, job.note
  local d = D.of(action, note)
  if self.run then
    if self.run == true then
      self.captured[#self.captured + 1] = { action = action, alert = note, detail = d, t = self.now }
      return true
    end
    local r, msg = self.run(action, note, d)
    if r == false then return nil, msg or "run returned false" end
    return true
  end
  if action.kind == "print" then
    if type(self.out) == "function" then self.out(d.line) else self.out:write(d.line, "\n") end
  elseif action.kind == "jsonl" then
    local f, msg = io.open(d.path, "a")
    if not f then return nil, msg end
    local okw, werr = f:write(d.line, "\n")
    local okc, cerr = f:close()
    if not okw then return nil, werr end
    if not okc then return nil, cerr end
  elseif action.kind == "syslog" then
    -- nobody listening: the message goes to the log (stderr) with the failure
    local ok, msg = self:_perflib().syslog(d.priority, d.message, d.ident or "perflib", d.socket)
    if not ok then return nil, ("%s; the message: %s"):format(msg, d.message) end
  elseif action.kind == "exec" then
    local lib = self:_perflib()
    local pid, msg = lib.spawn(d.argv, d.env, d.opts)
    if not pid then return nil, msg end
    self.children[#self.children + 1] = { pid = pid, job = job, deadline = lib.clock() + action.timeout }
    return "running"
  elseif W.KINDS[action.kind] then
    return W.start(self, job, d)
  elseif action.kind == "call" then
    -- sandboxed like a condition: the rules file's environment, instruction limit, memory budget
    local box = self.call_box or S.box()
    self.call_box = box
    local ok, r, msg = S.call(box, action.fn, note)
    if not ok then return nil, r end
    if r == false then return nil, msg or "call returned false" end
  end
  return true
end

function Notifier:_attempt(job, t)
  job.attempt = job.attempt + 1
  local ok, r, msg = pcall(self._execute, self, job)
  if ok and r then return end                      -- done, or an exec child is running
  self:_failed(job, ok and (msg or "failed") or r, t)
end

function Notifier:_failed(job, msg, t)
  local a = job.action
  self.stats.failed = self.stats.failed + 1
  local total = a.retries + 1
  local what = ("action %s for %s %s (attempt %d/%d) failed: %s"):format(a.kind, job.note.name or "?",
    job.note.kind == "alert" and job.note.state or job.note.kind, job.attempt, total, tostring(msg))
  if job.attempt < total and not self.stopping then
    job.next_t = t + a.backoff * 2 ^ (job.attempt - 1)
    self.jobs[#self.jobs + 1] = job
    local wall = self.offset and N.rfc3339(job.next_t + self.offset)
    self:_log(what .. (", retry at %st=%s"):format(wall and (wall .. ", ") or "", json_number(job.next_t)))
  else
    self.stats.gave_up = self.stats.gave_up + 1
    self:_log(what .. (self.stopping and job.attempt < total and ", giving up: stopping" or ", giving up"))
  end
end

function Notifier:_dispatch(route, note, t)
  for _, action in ipairs(route.actions) do
    local notes = { note }
    if action.per_alert and #note.alerts > 1 then
      notes = {}
      for i, a in ipairs(note.alerts) do
        notes[i] = make_note(note.kind, route, { a }, t, { key = note.group_key, labels = note.group },
          note.is_repeat, self.offset)
      end
    end
    for _, one in ipairs(notes) do self:_attempt({ action = action, note = one, attempt = 0 }, t) end
  end
end

function Notifier:_retry(t)
  local due, keep = {}, {}
  for _, job in ipairs(self.jobs) do
    if job.next_t <= t then due[#due + 1] = job else keep[#keep + 1] = job end
  end
  self.jobs = keep
  for _, job in ipairs(due) do
    self.stats.retried = self.stats.retried + 1
    self:_attempt(job, t)
  end
end

local GRACE = 2          -- seconds between TERM and KILL for an exec past its timeout

-- Reaps exec children: a non-zero exit is a failure; one past its timeout
-- gets TERM, then KILL, on its whole process group, and fails.  With
-- `until_clock` (perflib.clock time) it waits for them, until then.
function Notifier:_reap(until_clock)
  W.poll(self, until_clock)                -- HTTP sends first: each has its own timeout
  if #self.children == 0 then return end
  local lib = self:_perflib()
  repeat
    local keep, now = {}, lib.clock()
    for _, c in ipairs(self.children) do
      local how, code = lib.wait(c.pid, "nohang")
      if how == false then
        if now >= c.deadline + GRACE then
          lib.kill(c.pid, "KILL")
        elseif now >= c.deadline and not c.timed_out then
          c.timed_out = true
          lib.kill(c.pid, "TERM")
        end
        keep[#keep + 1] = c
      elseif how == nil then
        self:_log(("exec pid %d: %s"):format(c.pid, tostring(code)))
      elseif c.timed_out then
        lib.kill(c.pid, "KILL")          -- what it started and left in its group
        self:_failed(c.job, ("%s timed out after %gs"):format(c.job.action.argv[1], c.job.action.timeout),
          self.now)
      elseif not (how == "exited" and code == 0) then
        self:_failed(c.job, ("%s %s %s"):format(c.job.action.argv[1], how, tostring(code)), self.now)
      end
    end
    self.children = keep
    if until_clock and #keep > 0 and now < until_clock then lib.sleep(0.02) end
  until not until_clock or #self.children == 0 or now >= until_clock
end

--- Waits for every running exec child and records failures (retries stay
-- scheduled on the sample clock); a child past its `timeout` is stopped.
-- For shutdown and tests.
-- @number[opt] limit seconds to wait at most (default: until the children's timeouts end them)
-- A failure inside is logged, never raised; nothing is returned.
function Notifier:drain(limit)
  local ok, err = pcall(function()
    self:_reap(limit and self:_perflib().clock() + limit or math.huge)
  end)
  if not ok then self:_log("drain: " .. tostring(err)) end
end

--- After a reload: takes over the queue of `old`, the notifier this one
-- replaces.  A route whose name, matchers, grouping and actions are unchanged
-- keeps its groups (alerts waiting in group_wait, the time of the last
-- notification, so repeats go on) and its throttle; its new timing applies
-- from now.  Firing alerts enter the routes that are new or changed as new
-- alerts (notified after group_wait).  Retries and running exec children
-- carry over with the actions they had, and silences added at run time stay.
-- Firing alerts of rules whose engine state was not kept (a rule removed or
-- changed) are resolved: a changed rule that still holds fires again.
-- @param old the previous notifier
-- @tparam[opt] {string,...} kept names of the rules whose state the engine kept (default: all)
-- @treturn table `{ kept = routes kept, changed = routes new or changed, resolved = alerts resolved }`
function Notifier:adopt(old, kept)
  local keep
  if kept then
    keep = {}
    for _, name in ipairs(kept) do keep[name] = true end
  end
  self.alerts, self.jobs, self.children, self.stats = old.alerts, old.jobs, old.children, old.stats
  self.sends, self.http = old.sends, old.http
  self.now, self.offset, self.lib = old.now, old.offset, self.lib or old.lib
  for _, sl in pairs(old.silences) do
    if sl.runtime then self:silence(sl) end
  end
  local pool, fresh, n = {}, {}, { kept = 0, changed = 0, resolved = 0 }
  for _, r in ipairs(old.routes) do
    pool[r.sig] = pool[r.sig] or {}
    table.insert(pool[r.sig], r)
  end
  for _, r in ipairs(self.routes) do
    local o = pool[r.sig] and table.remove(pool[r.sig], 1)
    if o then
      r.groups, r.notes = o.groups, o.notes
      if r.throttle and o.throttle then
        r.throttle.tokens, r.throttle.last = math.min(o.throttle.tokens, r.throttle.burst), o.throttle.last
      end
      n.kept = n.kept + 1
    else
      fresh[r] = true
      n.changed = n.changed + 1
    end
  end
  for _, a in pairs(self.alerts) do
    if a.state == "firing" and keep and not keep[a.rule or a.name] then
      a.state, a.resolved_at, a.engine_state = "resolved", self.now, "reloaded"
      n.resolved = n.resolved + 1
      for _, r in ipairs(self:_routes_for(a.labels)) do place(r, a, self.now) end
    elseif a.state == "firing" then
      for _, r in ipairs(self:_routes_for(a.labels)) do
        if fresh[r] then place(r, a, self.now) end
      end
    end
  end
  return n
end

--- Stops: sends at once what is waiting (group_wait, group_interval, flap
-- notices; silences, inhibitions and throttles still apply), gives every
-- scheduled retry one last attempt now, waits for running exec children up
-- to `limit` seconds, then kills their process groups, and logs each thing
-- it drops.  Scheduled repeats end.  Returns the notifications sent.
-- @number[opt=10] limit seconds to wait for exec children
-- @treturn {table,...} the notifications sent (a failure inside is logged, never raised)
function Notifier:stop(limit)
  local sent, t = {}, self.now
  local ok, err = pcall(function()
    self:_reap()
    self.stopping = true
    local jobs = self.jobs
    self.jobs = {}
    for _, job in ipairs(jobs) do
      self.stats.retried = self.stats.retried + 1
      self:_attempt(job, t)
    end
    self:_send(t, sent, true)
    if #self.children > 0 or #self.sends > 0 then self:_reap(self:_perflib().clock() + (limit or 10)) end
    self:_dropped()
  end)
  if not ok then self:_log("stop failed: " .. tostring(err)) end
  self.stats.sent = self.stats.sent + #sent
  return sent
end

-- Logs what a stop leaves behind: exec children still running (killed),
-- flap notices and group changes held back by a throttle.
function Notifier:_dropped()
  W.drop(self)
  for _, c in ipairs(self.children) do
    self:_perflib().kill(c.pid, "KILL")
    self:_perflib().wait(c.pid, "nohang")
    self:_log(("dropped at stop: action exec for %s still running (pid %d), killed"):format(
      c.job.note.name or "?", c.pid))
  end
  self.children = {}
  for _, r in ipairs(self.routes) do
    for _, note in ipairs(r.notes) do
      self:_log(("dropped at stop: %s of %s%s (route %s, throttled)"):format(note.kind, note.alert.name or "?",
        label_text(note.alert.labels), r.name))
    end
    for _, g in pairs(r.groups) do
      for _, e in pairs(g.entries) do
        local a = e.alert
        if e.notified ~= a.state and not a.flapping and not self:_muted(a) then
          self:_log(("dropped at stop: %s %s%s (route %s, throttled)"):format(a.state, a.name or "?",
            label_text(a.labels), r.name))
        end
      end
    end
  end
end

--- Number of exec children still running and retries still scheduled.
-- @treturn integer exec children running
-- @treturn integer retries scheduled
function Notifier:pending()
  return #self.children, #self.jobs
end

--- Number of HTTP sends (alertmanager, webhook) in flight.
-- @treturn integer
function Notifier:sending()
  return #self.sends
end

return N
