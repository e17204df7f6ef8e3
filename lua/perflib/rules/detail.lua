--- What each action of perflib.rules.notify does for one notification (its
-- "detail": the line printed, the JSON line written, the syslog message, the
-- argv and environment of a program, the URL and body of an HTTP send), kept
-- apart from the notifier's queueing: the notifier runs a detail, a dry run
-- (replay, the test harness) captures it.
-- @module perflib.rules.detail
-- the real string functions: this code also runs inside sandboxed calls, where
-- string methods reach the sandbox's bounded ones (perflib.rules.sandbox)
local sgsub = string.gsub
local T = require "perflib.rules.text"
local W = require "perflib.rules.webhook"
local json = require "perflib.json"
local json_number = json.number
local D = {}

--- Labels as text for people: `{k1=v1,k2=v2}`, sorted by name.
function D.label_text(labels)
  local keys = {}
  for k in pairs(labels) do keys[#keys + 1] = k end
  table.sort(keys)
  for i, k in ipairs(keys) do keys[i] = k .. "=" .. tostring(labels[k]) end
  return "{" .. table.concat(keys, ",") .. "}"
end
local label_text = D.label_text

--- A template with {label} and {field} of a note filled in (unknown ones kept).
function D.expand(s, note)
  return (sgsub(s, "{([%w_]+)}", function(k)
    local v = note.labels[k]
    if v == nil and k ~= "labels" and k ~= "alerts" and k ~= "group" then v = note[k] end
    if v == nil or type(v) == "table" then return nil end
    return tostring(v)
  end))
end

local function note_record(note)
  return { kind = note.kind, alertname = note.name, state = note.state, labels = note.labels,
    value = note.value, message = note.message, t = note.t, route = note.route, group = note.group,
    is_repeat = note.is_repeat, count = note.count, alerts = note.alerts,
    active_since = note.active_since, fired_at = note.fired_at, resolved_at = note.resolved_at,
    time = note.time, active_since_time = note.active_since_time, fired_at_time = note.fired_at_time,
    resolved_at_time = note.resolved_at_time }
end

-- One line for people (print, syslog): escaped, stamped with the wall clock when known.
local function note_line(note)
  local state = note.kind == "alert" and note.state:upper() or note.kind:upper()
  local v = note.value ~= nil and (" value=" .. tostring(note.value)) or ""
  return T.escape(("[%s] %s %s%s%s: %s"):format(note.time or json_number(note.t or 0), state,
    note.name or "?", label_text(note.labels), v, note.message or ""))
end

local SYSLOG_BY_SEVERITY = { crit = "crit", critical = "crit", warn = "warning", warning = "warning",
  info = "info", page = "crit" }

--- The concrete work of an action for a note: { kind=..., argv/env/path/line/priority/message/url/body }.
function D.of(action, note)
  local d = { kind = action.kind }
  if action.kind == "print" then
    d.line = note_line(note)
  elseif action.kind == "jsonl" then
    d.path = D.expand(action.path, note)
    d.line = json.encode(note_record(note))
  elseif action.kind == "syslog" then
    d.priority = action.priority or (note.state == "resolved" and "notice")
      or SYSLOG_BY_SEVERITY[note.labels.severity] or "warning"
    d.message = note_line(note)
    d.ident, d.socket = action.ident, action.socket
  elseif action.kind == "exec" then
    d.argv = {}
    for i, s in ipairs(action.argv) do d.argv[i] = D.expand(s, note) end
    d.env = { PERFLIB_ALERT_NAME = note.name or "", PERFLIB_ALERT_STATE = note.state or "",
      PERFLIB_ALERT_KIND = note.kind, PERFLIB_ALERT_VALUE = note.value ~= nil and tostring(note.value) or "",
      PERFLIB_ALERT_MESSAGE = note.message or "", PERFLIB_ALERT_LABELS = json.encode(note.labels),
      PERFLIB_ALERT_T = json_number(note.t or 0), PERFLIB_ALERT_COUNT = tostring(note.count or 1),
      PERFLIB_ALERT_ACTIVE_SINCE = note.active_since and json_number(note.active_since) or "",
      PERFLIB_ALERT_FIRED_AT = note.fired_at and json_number(note.fired_at) or "",
      PERFLIB_ALERT_TIME = note.time or "", PERFLIB_ALERT_ACTIVE_SINCE_TIME = note.active_since_time or "",
      PERFLIB_ALERT_FIRED_AT_TIME = note.fired_at_time or "",
      PERFLIB_ALERT_REPEAT = note.is_repeat and "1" or "0",
      PERFLIB_ALERTS = json.encode(note.alerts) }
    if action.stdout or action.stderr then d.opts = { stdout = action.stdout, stderr = action.stderr } end
  elseif W.KINDS[action.kind] then
    d = W.detail(action, note)
  end
  return d
end

return D
