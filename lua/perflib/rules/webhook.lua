--- Alerts over HTTP for perflib.rules.notify: the `alertmanager` action posts
-- Alertmanager's v2 API payload (`POST /api/v2/alerts`), the `webhook` action
-- posts Alertmanager's webhook JSON (version 4) to any receiver.
--
--    R.route { actions = { { kind = "alertmanager", url = "http://127.0.0.1:9093",
--                            timeout = 5, retries = 3, backoff = "10s" } } }
--
-- Sending never blocks the monitor: a send is started on perflib.http (libcurl's
-- multi interface) and advanced at each tick of the notifier for a few
-- milliseconds at most; its connect and total timeouts bound it.  An HTTP
-- status other than 2xx, a refused connection or a timeout is a failed attempt,
-- retried with the action's backoff like any other action; after the last
-- retry the failure is logged.  A stop waits for sends in flight and logs
-- those it must drop.
-- @module perflib.rules.webhook
-- the real string functions: checks run while a rules file loads in the sandbox,
-- where string methods reach the sandbox's bounded ones (perflib.rules.sandbox)
local sfind, smatch, sgsub, ssub, sfmt = string.find, string.match, string.gsub, string.sub, string.format
local T = require "perflib.rules.text"
local json = require "perflib.json"
local compat = require "perflib.compat"
local W = {}

--- The action kinds of this module.
W.KINDS = { alertmanager = true, webhook = true }

--- The keys each kind takes (besides notify's kind, retries, backoff, per_alert).
W.KEYS = { url = true, timeout = true, connect_timeout = true, headers = true, token = true,
  generator_url = true, max_body = true }

local BUDGET = 0.01        -- seconds a tick spends on sends at most
local ZERO_TIME = "0001-01-01T00:00:00Z"   -- Go's zero time, as Alertmanager writes "not set"
local API_PATH = "/api/v2/alerts"

-- Validation --------------------------------------------------------------------

--- Checks a URL: http:// or https://, a host, no spaces or control characters.
-- @string url
-- @return url or nil, message
function W.check_url(url)
  if type(url) ~= "string" then return nil, "url must be a string" end
  if #url > 2048 then return nil, "url longer than 2048 bytes" end
  if sfind(url, "[%c%s]") then return nil, sfmt("url %q has spaces or control characters", url) end
  local scheme, host = smatch(url, "^(%a[%w+.-]*)://([^/?#]*)")
  if not scheme then return nil, sfmt("url %q is not absolute (http://host:port/...)", url) end
  scheme = scheme:lower()
  if scheme ~= "http" and scheme ~= "https" then
    return nil, sfmt("url %q: scheme %s is not http or https", url, scheme)
  end
  local hostport = sgsub(host, "^.*@", "")
  if hostport == "" or smatch(hostport, "^:") then return nil, sfmt("url %q has no host", url) end
  local port = smatch(hostport, ":(%d*)$")
  if port and (port == "" or tonumber(port) < 1 or tonumber(port) > 65535) then
    return nil, sfmt("url %q: bad port", url)
  end
  return url
end

local function seconds(v, where, default)
  if v == nil then return default end
  local d, msg = T.duration(v)
  if not d then error(where .. ": " .. msg, 0) end
  if d <= 0 or d > 86400 then error(where .. ": must be more than 0 and at most a day", 0) end
  return d
end

local function header_text(s, where)
  if type(s) ~= "string" or sfind(s, "[\r\n%z]") then
    error(where .. ": header values must be strings without CR, LF or NUL", 0)
  end
  return s
end

--- Checks a webhook or alertmanager action `a` and completes its copy `c`
-- (`endpoint`, `timeout`, `connect_timeout`, `header_list`, `max_body`); raises
-- `where: ...` for a mistake.
-- @tparam table a the action as written
-- @tparam table c notify's checked copy
-- @string where "route N action M"
function W.check(a, c, where)
  local url, msg = W.check_url(a.url)
  if not url then error(sfmt("%s (%s): %s", where, a.kind, msg), 0) end
  c.endpoint = url
  if a.kind == "alertmanager" and not sfind(url, API_PATH, 1, true) then
    c.endpoint = sgsub(url, "/+$", "") .. API_PATH
  end
  c.timeout = seconds(a.timeout, where .. ".timeout", 10)
  c.connect_timeout = math.min(seconds(a.connect_timeout, where .. ".connect_timeout", 5), c.timeout)
  local list = { "Content-Type: application/json" }
  if a.headers ~= nil then
    if type(a.headers) ~= "table" then error(where .. ": headers must be a table of name = value", 0) end
    local names = {}
    for k in pairs(a.headers) do
      if type(k) ~= "string" or not smatch(k, "^[%w!#$%%&'*+.^_`|~-]+$") then
        error(sfmt("%s: bad header name %s", where, tostring(k)), 0)
      end
      names[#names + 1] = k
    end
    table.sort(names)
    for _, k in ipairs(names) do list[#list + 1] = k .. ": " .. header_text(a.headers[k], where) end
  end
  if a.token ~= nil then
    if type(a.token) ~= "string" or a.token == "" then error(where .. ": token must be a non-empty string", 0) end
    list[#list + 1] = "Authorization: Bearer " .. header_text(a.token, where .. ".token")
  end
  c.header_list = list
  if a.generator_url ~= nil and type(a.generator_url) ~= "string" then
    error(where .. ": generator_url must be a string", 0)
  end
  c.max_body = a.max_body == nil and 4096 or a.max_body
  if compat.math_type(c.max_body) ~= "integer" or c.max_body < 0 or c.max_body > 1048576 then
    error(where .. ": max_body must be an integer 0 .. 1048576 (bytes)", 0)
  end
  return c
end

-- Payloads ----------------------------------------------------------------------

-- Alertmanager's label names are [a-zA-Z_][a-zA-Z0-9_]*; values are strings.
local function label_set(labels)
  local out = {}
  for k, v in pairs(labels or {}) do
    local name = sgsub(sgsub(tostring(k), "[^%w_]", "_"), "^(%d)", "_%1")
    local text = tostring(v)
    if text ~= "" then out[name] = text end      -- an empty value is no label (Prometheus' model)
  end
  return out
end

local function annotations(a, flap)
  local out = { summary = a.message or (a.name or "?") }
  if a.value ~= nil then out.value = type(a.value) == "number" and json.number(a.value) or tostring(a.value) end
  if flap then out.flapping = flap == "flap_start" and "true" or "false" end
  return out
end

local function fingerprint(labels)
  local keys = {}
  for k in pairs(labels) do keys[#keys + 1] = k end
  table.sort(keys)
  local parts = {}
  for _, k in ipairs(keys) do
    parts[#parts + 1] = k .. "\255" .. labels[k] .. "\255"
  end
  return compat.fnv1a(table.concat(parts))
end

-- One alert of a notification: times from the sample clock's RFC 3339 twins.
local function one_alert(a, note, action)
  local labels = label_set(a.labels)
  labels.alertname = labels.alertname or a.name
  local resolved = a.state ~= "firing"
  return {
    labels = labels, annotations = annotations(a, note.kind ~= "alert" and note.kind),
    startsAt = a.fired_at_time or a.active_since_time,
    endsAt = resolved and (a.resolved_at_time or note.time or T.rfc3339(os.time())) or nil,
    generatorURL = action.generator_url, status = resolved and "resolved" or "firing",
    fingerprint = fingerprint(labels),
  }
end

--- The body an action posts for a notification: for `alertmanager` the list
-- of postable alerts (labels incl. alertname, annotations summary and value,
-- startsAt, endsAt when resolved, generatorURL), for `webhook` Alertmanager's
-- webhook message (version 4: status, receiver, groupLabels, commonLabels,
-- commonAnnotations, externalURL, alerts).  Strings are JSON-escaped; bytes
-- that are not UTF-8 (names from /proc) become U+FFFD.
-- @tparam table action a checked action
-- @tparam table note a notification of perflib.rules.notify
-- @treturn string JSON text
function W.payload(action, note)
  local alerts = {}
  for i, a in ipairs(note.alerts or { note }) do alerts[i] = one_alert(a, note, action) end
  if action.kind == "alertmanager" then
    for _, x in ipairs(alerts) do x.status, x.fingerprint = nil, nil end
    return json.encode(alerts)
  end
  local common_ann = annotations(note, note.kind ~= "alert" and note.kind)
  if #alerts > 1 then common_ann = {} end
  for _, x in ipairs(alerts) do
    x.startsAt = x.startsAt or ZERO_TIME
    x.endsAt = x.endsAt or ZERO_TIME
    x.generatorURL = x.generatorURL or ""
  end
  return json.encode {
    version = "4", groupKey = note.group_key or fingerprint(label_set(note.group)),
    truncatedAlerts = 0, status = note.state == "firing" and "firing" or "resolved",
    receiver = note.route or "", groupLabels = label_set(note.group), commonLabels = label_set(note.labels),
    commonAnnotations = common_ann, externalURL = action.generator_url or "", alerts = alerts,
  }
end

--- What an action would do for a note (what a dry run captures): kind, url, body.
-- Headers are left out (a token is a secret).
function W.detail(action, note)
  return { kind = action.kind, url = action.endpoint, body = W.payload(action, note) }
end

-- Sending -----------------------------------------------------------------------

--- Starts one attempt of job (its action and note) on the notifier's HTTP
-- client; the result comes in a later `poll`.
-- @return "running" or nil, message
function W.start(n, job, detail)
  local a = job.action
  if not n.http then
    local h, msg = n:_perflib().http()
    if not h then return nil, msg end
    n.http = h
  end
  local id, msg = n.http:post(detail.url, detail.body, { headers = a.header_list, timeout = a.timeout,
    connect_timeout = a.connect_timeout, max_body = a.max_body })
  if not id then return nil, msg end
  n.sends[#n.sends + 1] = { id = id, job = job, url = detail.url }
  return "running"
end

-- The failure of a finished transfer, or nil for a 2xx answer.
local function failure(r, url)
  if r.error then return sfmt("%s: %s", url, r.error) end
  if r.status >= 200 and r.status < 300 then return nil end
  local body = T.escape((sgsub(ssub(r.body, 1, 200), "%s+$", "")))
  return sfmt("%s: HTTP %d%s", url, r.status, body ~= "" and (": " .. body) or "")
end

--- Advances the sends in flight and reports the failed ones to the notifier
-- (retried with backoff, or logged after the last retry).  Without
-- `until_clock` it spends a few milliseconds at most; with it (perflib.clock
-- time) it waits for every send until then.
function W.poll(n, until_clock)
  if #n.sends == 0 then return end
  local clock = n:_perflib().clock
  repeat
    local wait = until_clock and math.max(0, math.min(until_clock - clock(), 60)) or BUDGET
    for _, r in ipairs(n.http:poll(wait)) do
      for i, s in ipairs(n.sends) do
        if s.id == r.id then
          table.remove(n.sends, i)
          local msg = failure(r, s.url)
          if msg then n:_failed(s.job, msg, n.now) end
          break
        end
      end
    end
  until not until_clock or #n.sends == 0 or clock() >= until_clock
end

--- At a stop: cancels the sends still in flight and logs each.
function W.drop(n)
  for _, s in ipairs(n.sends) do
    if n.http then n.http:cancel(s.id) end
    n.stats.gave_up = n.stats.gave_up + 1
    n:_log(sfmt("dropped at stop: action %s for %s still sending to %s, cancelled", s.job.action.kind,
      s.job.note.name or "?", s.url))
  end
  n.sends = {}
end

return W
