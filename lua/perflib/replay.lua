--- perflib.replay: recorded samples through rules, actions captured and never run.
--
--    local replay = require "perflib.replay"
--    local report = assert(replay.run("rules.lua", "incident.blg"))   -- a log, or a JSON-lines recording
--    replay.print(report)              -- or replay.format(report) for the text
--
-- Every frame of the recording goes, on its own sample time, to a fresh
-- engine (`perflib.rules.engine`) and a notifier in capture mode
-- (`perflib.rules.notify` with `run = true`): routes, grouping, repeats,
-- throttles, inhibitions and silences apply as in `perflua monitor`, but the
-- actions (print, jsonl, syslog, exec, call) are recorded with what they
-- would have done, not done.
--
-- The report:
--
-- * `timeline`: every engine event in order, `{ t =, offset =, ts =, kind =, rule =, key =, labels =,
--   from =, to =, value =, severity =, why =, message = }` (`offset`: seconds since the first frame,
--   `ts`: the Unix time recorded with the frame); kinds are "transition", "flap_start",
--   "flap_end" and "rule_error";
-- * `notifications`: the captured actions, `{ t =, offset =, ts =, action =, route =, alertname =,
--   state =, labels =, value =, message =, count =, detail = }` where `detail` is the concrete
--   work (`argv` and `env` of an exec, `line` of print and jsonl, `path`, syslog `priority`);
-- * `alerts`: per alert instance (rule and labels, severity aside), sorted by `key`:
--   `{ key =, rule =, labels =, states = { [state] = seconds }, transitions =, first_fire = }`;
--   time in state runs from the first frame to the last, and an alert is `inactive` until its
--   first transition;
-- * `time_in_state[key]` (the `states` tables) and `first_fire[key] = { t =, offset =, ts =,
--   latency = }`, latency being the seconds from the start of the episode that fired (the
--   condition first held) to the firing;
-- * `frames`, `t0`, `t1`, `duration`, `ts0` (Unix time of the first frame, when recorded),
--   `header` (of the recording), `rules` (count), `errors` (rules disabled on error), `missing`
--   (sources the rules need that the recording lacks), `log` (notifier messages), `load_errors`
--   (rules that did not load).
--
-- @module perflib.replay
local R = require "perflib.rules"
local E = require "perflib.rules.engine"
local N = require "perflib.rules.notify"
local T = require "perflib.rules.text"
local record = require "perflib.record"
local compat = require "perflib.compat"

local replay = {}

local function copy(t)
  local o = {}
  for k, v in pairs(t or {}) do o[k] = v end
  return o
end

local function identity(labels)
  local keys = {}
  for k in pairs(labels or {}) do
    if k ~= "severity" and k ~= "alertname" then keys[#keys + 1] = k end
  end
  table.sort(keys)
  for i, k in ipairs(keys) do keys[i] = k .. "=" .. tostring(labels[k]) end
  return "{" .. table.concat(keys, ",") .. "}"
end

local function alert_key(rule, labels) return rule .. identity(labels) end

--- The key of an alert in a report: the rule's name and its labels but
-- severity and alertname, sorted (`CpuBusy{instance=0,0}`).
-- @tparam string rule the rule's name
-- @tparam table labels the alert's labels
-- @treturn string
replay.alert_key = alert_key

--- A rule set from what replay.run and perflib.backtest take: a set as it is,
-- or a rules file's path or Lua source loaded (the set and the messages of the
-- rules that did not load).
-- @param rules a rule set, a path or Lua source
-- @treturn[1] table the set
-- @treturn[1] {string,...} messages of rules left out
-- @return[2] nil
-- @treturn[2] string message ("rules did not load: ...")
function replay.load_rules(rules)
  if type(rules) == "table" and type(rules.list) == "function" then return rules, nil end
  if type(rules) ~= "string" then return nil, "replay: rules must be a rule set, a path or Lua source" end
  local set, errors = R.load(rules)
  local msgs = {}
  for _, e in ipairs(errors or {}) do msgs[#msgs + 1] = type(e) == "table" and e.message or tostring(e) end
  if not set then
    return nil, ("rules did not load: %s"):format(#msgs > 0 and table.concat(msgs, "; ") or "no rules")
  end
  return set, msgs
end
local load_set = replay.load_rules

--- Replay a recording through rules.
-- @param rules a rule set (from perflib.rules), a rules file path, or Lua source
-- @param recording_path a recording written by perflib.record (or by hand in its format)
-- @tparam[opt] table opts `from`, `to` (seconds since the first frame: frames outside are not
--   fed), `limit` (instructions per call of a function condition), `on_start` (a function
--   called with the recording's header before the first frame), `on_frame` (a function
--   called with `t, frame, ts` after each frame is fed: more engines on the same single pass)
-- @return the report, or nil and a message (rules that do not load, a malformed recording:
--   the message names the file and line)
function replay.run(rules, recording_path, opts)
  opts = opts or {}
  local set, load_errors = load_set(rules)
  if not set then return nil, load_errors end
  -- a log gives the frames of the rules' own paths (a recording has its own)
  local header, frames = record.read(recording_path, { paths = E.new(set):sources(), files = opts.files })
  if not header then return nil, frames end
  if opts.on_start then opts.on_start(header) end
  local eng = E.new(set, { limit = opts.limit, interval = header.interval })
  local log = {}
  local okn, notifier = pcall(N.new, set, { run = true, log = function(msg) log[#log + 1] = msg end })
  if not okn then return nil, "notifications: " .. tostring(notifier) end

  local report = { rules = #set.order, recording = recording_path, header = header, frames = 0,
                   timeline = {}, notifications = {}, alerts = {}, time_in_state = {}, first_fire = {},
                   errors = {}, missing = {}, log = log, load_errors = load_errors or {} }
  local recorded = {}
  for _, p in ipairs(header.paths) do recorded[p] = true end
  for _, src in ipairs(eng:sources()) do
    if not recorded[src.path] then
      report.missing[#report.missing + 1] = src.path
    end
  end

  local alerts = {}                      -- key -> { rule, labels, state, since, states, transitions }
  local function alert_of(rule, labels, t0)
    local key = alert_key(rule, labels)
    local a = alerts[key]
    if not a then
      local l = copy(labels)
      l.severity = nil
      a = { key = key, rule = rule, labels = l, state = "inactive", since = t0, states = {}, transitions = 0 }
      alerts[key] = a
    end
    return a
  end
  local function spend(a, t)
    a.states[a.state] = (a.states[a.state] or 0) + (t - a.since)
    a.since = t
  end

  local t0, t1, ts_of = nil, nil, nil
  local ok, err = pcall(function()
    for t, frame, ts in frames do
      t0 = t0 or t
      local offset = t - t0
      if (not opts.from or offset >= opts.from - 1e-9) and (not opts.to or offset <= opts.to + 1e-9) then
        report.frames = report.frames + 1
        if not report.t0 then report.t0, report.ts0 = t, ts end
        t1, ts_of = t, ts
        local events = eng:feed(t, frame)
        if opts.on_frame then opts.on_frame(t, frame, ts) end
        for _, ev in ipairs(events) do
          local entry = { t = t, offset = t - report.t0, ts = ts, kind = ev.kind, rule = ev.rule,
                          key = ev.rule and alert_key(ev.rule, ev.labels),
                          labels = copy(ev.labels), from = ev.from, to = ev.to, value = ev.value,
                          severity = ev.labels and ev.labels.severity, why = ev.why, message = ev.message,
                          flapping = ev.flapping }
          report.timeline[#report.timeline + 1] = entry
          if ev.kind == "rule_error" then
            report.errors[#report.errors + 1] = { t = t, rule = ev.rule, message = ev.message }
          elseif ev.kind == "transition" and ev.from ~= ev.to then
            local a = alert_of(ev.rule, ev.labels, report.t0)
            spend(a, t)
            a.state, a.transitions = ev.to, a.transitions + 1
            if ev.to == "firing" and not a.first_fire then
              a.first_fire = { t = t, offset = t - report.t0, ts = ts,
                               latency = ev.active_since and (t - ev.active_since) or 0 }
            end
          end
          notifier:event(ev)
        end
        local before = #notifier.captured
        notifier:tick(t, ts)           -- the recording's Unix time: RFC 3339 times in the actions
        for k = before + 1, #notifier.captured do
          local rec = N.record_of(notifier.captured[k])
          rec.t, rec.offset, rec.ts = t, t - report.t0, ts
          report.notifications[#report.notifications + 1] = rec
        end
      end
    end
  end)
  if not ok then return nil, tostring(err) end
  report.t1 = t1
  report.ts1 = ts_of
  report.duration = t1 and (t1 - report.t0) or 0
  -- alerts the engine knows that never changed state: inactive throughout
  for _, rule in ipairs(eng.rules) do
    for _, a in pairs(eng.st[rule.name].alerts) do alert_of(rule.name, a.labels, report.t0 or 0) end
  end
  local keys = {}
  for key, a in pairs(alerts) do
    if t1 then spend(a, t1) end
    keys[#keys + 1] = key
  end
  table.sort(keys)
  for _, key in ipairs(keys) do
    local a = alerts[key]
    local entry = { key = key, rule = a.rule, labels = a.labels, states = a.states, state = a.state,
                    transitions = a.transitions, first_fire = a.first_fire }
    report.alerts[#report.alerts + 1] = entry
    report.time_in_state[key] = a.states
    report.first_fire[key] = a.first_fire
  end
  return report
end

-- ---------------------------------------------------------------- text

local ORDER = { "inactive", "pending", "firing", "recovering", "resolved", "unknown" }

--- A duration as the reports write it: under a minute with its tenths
-- ("12.5s"), else as perflib.rules.format_duration ("1h30m"); nil -> "?".
-- @tparam ?number s seconds
-- @treturn string
function replay.seconds(s)
  if s == nil then return "?" end
  if s < 60 and s ~= math.floor(s) then return ("%.1fs"):format(s) end
  return R.format_duration(s)
end
local dur = replay.seconds

local function clock(ts)
  if not ts then return "" end
  return T.rfc3339(ts) .. " "
end

local function value_text(v)
  if v == nil then return "" end
  if compat.math_type(v) == "integer" or v == math.floor(v) and math.abs(v) < 1e15 then
    return (" (%d)"):format(math.floor(v))
  end
  return (" (%.4g)"):format(v)
end

--- The report as text (a list of lines joined by "\n"), each line escaped
-- (perflib.rules.text.escape): recorded instance names are other users' text.
-- @tparam table report what @{run} returned
-- @treturn string the text (no final newline)
function replay.format(report)
  local lines = {}
  local function add(fmt, ...) lines[#lines + 1] = T.escape(fmt:format(...)) end
  local h = report.header or {}
  add("replay of %s (host %s, %d frame(s) over %s) through %d rule(s)", tostring(report.recording),
    tostring(h.host or "?"), report.frames, dur(report.duration), report.rules)
  if report.ts0 then add("  starting %s", T.rfc3339(report.ts0)) end
  for _, m in ipairs(report.load_errors or {}) do add("  rules: %s", m) end
  for _, p in ipairs(report.missing or {}) do add("  not in the recording (no data for its rules): %s", p) end
  add("")
  add("timeline (%d event(s)):", #report.timeline)
  for _, e in ipairs(report.timeline) do
    local who = e.rule .. (e.labels and e.labels.instance and ("{" .. e.labels.instance .. "}") or "")
    if e.kind == "transition" then
      add("  %+8.1fs %s%s %s -> %s%s%s%s", e.offset, clock(e.ts), who, e.from, e.to, value_text(e.value),
        e.severity and (" " .. e.severity) or "", e.why and (" - " .. e.why) or "")
    else
      add("  %+8.1fs %s%s %s%s", e.offset, clock(e.ts), who, e.kind, e.message and (": " .. e.message) or "")
    end
  end
  add("")
  add("notifications (%d captured, none run):", #report.notifications)
  for _, n in ipairs(report.notifications) do
    local what = n.kind == "alert" and n.state:upper() or n.kind:upper()
    local d = n.detail or {}
    local detail = d.argv and ("argv: " .. table.concat(d.argv, " ")) or d.path and ("to " .. d.path)
      or d.priority and ("syslog " .. d.priority) or ""
    add("  %+8.1fs %s%s %s %s%s [%s%s]", n.offset, clock(n.ts), n.action, what, tostring(n.alertname),
      n.count and n.count > 1 and (" (" .. n.count .. " alerts)") or "", n.route or "?",
      detail ~= "" and ("; " .. detail) or "")
    if n.message then add("            %s", n.message) end
  end
  add("")
  add("time in state:")
  local quiet = 0
  for _, a in ipairs(report.alerts) do
    if a.transitions == 0 then
      quiet = quiet + 1
    else
      local parts = {}
      local total = report.duration > 0 and report.duration or 1
      for _, s in ipairs(ORDER) do
        local v = a.states[s]
        if v and v > 0 then parts[#parts + 1] = ("%s %s (%.0f%%)"):format(s, dur(v), 100 * v / total) end
      end
      add("  %s: %s", a.key, #parts > 0 and table.concat(parts, ", ") or "-")
    end
  end
  if quiet > 0 then add("  %d other alert(s) inactive throughout", quiet) end
  add("")
  add("first fire:")
  local any = false
  for _, a in ipairs(report.alerts) do
    local f = a.first_fire
    if f then
      any = true
      add("  %s: at %+.1fs %s- %s after its condition first held", a.key, f.offset, clock(f.ts), dur(f.latency))
    end
  end
  if not any then add("  none fired") end
  for _, e in ipairs(report.errors) do add("rule error at %+.1fs: %s", e.t - (report.t0 or e.t), e.message) end
  for _, m in ipairs(report.log) do add("notifier: %s", m) end
  return table.concat(lines, "\n")
end

--- Print the report (to `out`, a file, default io.stdout).
-- @tparam table report what @{run} returned
-- @tparam[opt=io.stdout] file out
function replay.print(report, out)
  out = out or io.stdout
  out:write(replay.format(report), "\n")
  out:flush()
end

--- `perflua replay RULES.lua REC`: prints the report and the backtest
-- (perflib.backtest); returns the exit status (0, or 2 when the rules or the
-- recording cannot be read).
-- @tparam {string,...} pos the positional arguments: RULES.lua and REC
-- @tparam table opts `from`, `to` (as @{run}'s), `summary` (the backtest only), `pct` and
--   `sweep` (as perflib.backtest.run's)
-- @tparam file out where the report goes
-- @tparam file err where problems and the usage go
-- @treturn integer the exit status
function replay.main(pos, opts, out, err)
  if not pos[1] or not pos[2] or pos[3] then
    err:write(require("perflib.cli").usage "replay")
    return 2
  end
  local bt, msg = require("perflib.backtest").run(pos[1], pos[2],
    { from = opts.from, to = opts.to, pct = opts.pct, sweep = opts.sweep })
  if not bt then
    err:write(("perflua: %s\n"):format(msg))
    return 2
  end
  if not opts.summary then out:write(replay.format(bt.report), "\n\n") end
  out:write(require("perflib.backtest").format(bt), "\n")
  out:flush()
  return 0
end

return replay
