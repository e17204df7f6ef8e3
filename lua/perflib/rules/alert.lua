--- perflib.rules.alert: the state machine of one alert instance, on sample time.
-- inactive -> pending -> firing -> recovering -> resolved -> inactive, plus unknown (no data,
-- a reset, a vanished instance, a rule error, by policy), with Nagios-style flap detection
-- (a perflib.Flap) that marks the alert flapping and reports its start and end.  Every change
-- is an event appended to the engine's list (`eng.events`); the engine (perflib.rules.engine)
-- decides when an alert steps, this module what a step does.
-- the real string functions: this code also runs inside sandboxed calls, where
-- string methods reach the sandbox's bounded ones (perflib.rules.sandbox)
local sgsub = string.gsub
local R = require "perflib.rules"
local core = require "perflib.core"
local compat = require "perflib.compat"

local A = {}

-- ---------------------------------------------------------------- messages

local function fmt_value(v, f)
  if v == nil then return "?" end
  if f then
    local ok, s = pcall(string.format, f, v)
    if ok then return s end
  end
  if compat.math_type(v) == "integer" or v == math.floor(v) and math.abs(v) < 1e15 then return ("%d"):format(v) end
  return ("%.4g"):format(v)
end

--- Expand {instance} {value} {value:%.1f} {age} {severity} {alertname} and labels.
function A.render(msg, a, t)
  if not msg then return nil end
  return (sgsub(msg, "{([%w_]+):?([^}]*)}", function(key, f)
    if key == "value" then return fmt_value(a.value, f ~= "" and f or nil) end
    if key == "age" then return R.format_duration(a.active_since and (t - a.active_since) or 0) end
    if key == "severity" then return a.severity or "" end
    if key == "instance" and a.instances then return table.concat(a.instances, " ") end
    local l = a.labels[key]
    if l then return l end
  end))
end

-- ---------------------------------------------------------------- alerts and events

local function copy(t)
  if type(t) ~= "table" then return t end
  local o = {}
  for k, v in pairs(t) do o[k] = copy(v) end
  return o
end

local function new_alert(rule, inst)
  local labels = { alertname = rule.name }
  for k, v in pairs(rule.labels) do labels[k] = v end
  if inst and inst ~= "" then labels.instance = inst end
  return { labels = labels, state = "inactive", miss = 0, flapping = false, hist = {},
           flap = rule.flap and core.flap(rule.flap.window) or nil }
end

local function event(self, rule, a, t, from, to, extra)
  local labels = copy(a.labels)
  labels.severity = a.severity or rule.levels[#rule.levels].severity
  local ev = { kind = "transition", rule = rule.name, labels = labels, from = from, to = to, t = t,
               value = a.value, active_since = a.active_since, fired_at = a.fired_at,
               flapping = a.flapping or nil, reason = a.reason, instances = a.instances and copy(a.instances) }
  if extra then for k, v in pairs(extra) do ev[k] = v end end
  ev.message = A.render(rule.message, { labels = labels, value = a.value, active_since = a.active_since,
                                         severity = labels.severity, instances = a.instances }, t)
  self.events[#self.events + 1] = ev
  a.changed_at = t
  return ev
end

local function set_state(self, rule, a, t, to, extra)
  local from = a.state
  if from == to then return end
  a.state = to
  a.why = extra and extra.why or a.why
  event(self, rule, a, t, from, to, extra)
end

-- Nagios-style flap detection on the alert's condition bit; the history is a perflib.Flap
-- (C), which the rule bank steps too.
local function flap_step(self, rule, a, t, bit)
  local f = rule.flap
  if not f then return end
  local pct, change = a.flap:step(bit, f.high, f.low, a.flapping)
  if pct then a.flap_pct = pct end
  if change then
    a.flapping = change == "start"
    local ev = event(self, rule, a, t, a.state, a.state)
    ev.kind, ev.from, ev.to, ev.state, ev.pct = "flap_" .. change, nil, nil, a.state, pct
  end
end

local ACTIVE = { pending = true, firing = true, recovering = true }

-- Resolve now (policy "resolve" for no data or a vanished instance).
local function force_resolve(self, rule, a, t, why)
  if a.state == "unknown" then a.state = a.prior or "inactive"; a.prior = nil end
  if a.state == "pending" then
    set_state(self, rule, a, t, "inactive", { why = why })
  elseif a.state == "firing" or a.state == "recovering" then
    a.reason = why
    set_state(self, rule, a, t, "resolved", { why = why })
  end
  a.active_since, a.hist = nil, nil
end

local function enter_unknown(self, rule, a, t, why)
  if a.state == "unknown" then return end
  a.prior = (a.state == "resolved") and "inactive" or a.state
  a.reason = why
  set_state(self, rule, a, t, "unknown", { why = why })
end

-- The pending history of an alert that starts pending at t.
local function fresh_hist(t)
  return { ts = { t }, cs = { true }, lo = 1, hi = 1, trues = 1, falses = 0 }
end

-- After a gap (time in which the condition was not observed) a pending or keep clock that was
-- running starts again at t: unobserved time never counts toward `pending` or `keep`.
-- Returns true when the gap decided the step.
local function restart_after_gap(self, rule, a, t, c)
  if a.state == "pending" then
    if c then
      a.active_since, a.hist = t, fresh_hist(t)
      a.why = "condition met after a gap in the data, waiting " .. R.format_duration(rule.pending) .. " again"
    else
      a.active_since, a.hist = nil, nil
      set_state(self, rule, a, t, "inactive", { why = "condition not met after a gap in the data" })
    end
    return true
  elseif a.state == "recovering" and not c then
    a.clear_since = t
    a.why = "clear after a gap in the data, keeping " .. R.format_duration(rule.keep) .. " again"
    return true
  end
  return false
end

-- One step of the state machine with a known condition `c` (boolean); `gap`: the condition
-- was not observed for a while before this step.
local function step(self, rule, a, t, c, dt, gap)
  if a.state == "unknown" then
    local prior = a.prior or "inactive"
    a.prior, a.reason = nil, nil
    set_state(self, rule, a, t, prior, { why = "data is back" })
  end
  a.reason = nil
  flap_step(self, rule, a, t, c)
  local s = a.state
  if s == "resolved" then
    set_state(self, rule, a, t, "inactive", { why = "resolved" })
    s = "inactive"
  end
  if gap and restart_after_gap(self, rule, a, t, c) then return end
  if s == "inactive" then
    if c then
      -- the pending history: times and conditions at lo..hi, with their counts
      a.active_since, a.hist, a.fired_at = t, fresh_hist(t), nil
      if rule.pending <= 0 then
        a.fired_at = t
        set_state(self, rule, a, t, "firing", { why = "condition met" })
      else
        set_state(self, rule, a, t, "pending", { why = "condition met, waiting " .. R.format_duration(rule.pending) })
      end
    end
  elseif s == "pending" then
    local h = a.hist
    local ts, cs, lo, hi = h.ts, h.cs, h.lo, h.hi + 1
    local trues, falses = h.trues, h.falses
    ts[hi], cs[hi] = t, c
    if c then trues = trues + 1 else falses = falses + 1 end
    if t - a.active_since > rule.pending then
      local edge = t - rule.pending - 1e-9
      while lo <= hi and ts[lo] <= edge do
        if cs[lo] then trues = trues - 1 else falses = falses - 1 end
        ts[lo], cs[lo] = nil, nil
        lo = lo + 1
      end
    end
    h.lo, h.hi, h.trues, h.falses = lo, hi, trues, falses
    local expected = (dt and dt > 0) and math.max(rule.pending / dt, 1) or (trues + falses)
    if not c and falses > (1 - rule.sustain) * expected + 1e-9 then
      a.active_since = nil
      set_state(self, rule, a, t, "inactive", { why = "condition no longer met" })
    elseif t - a.active_since >= rule.pending - 1e-9 and trues / (trues + falses) >= rule.sustain - 1e-9 then
      a.fired_at = t
      set_state(self, rule, a, t, "firing",
        { why = ("condition held %s"):format(R.format_duration(t - a.active_since)) })
    end
  elseif s == "firing" then
    if not c then
      if rule.keep <= 0 then
        set_state(self, rule, a, t, "resolved", { why = "cleared" })
        a.active_since = nil
      else
        a.clear_since = t
        set_state(self, rule, a, t, "recovering", { why = "cleared, keeping " .. R.format_duration(rule.keep) })
      end
    elseif a.severity ~= a.last_severity and a.last_severity then
      event(self, rule, a, t, "firing", "firing", { severity_from = a.last_severity, why = "severity changed" })
    end
  elseif s == "recovering" then
    if c then
      a.clear_since = nil
      set_state(self, rule, a, t, "firing", { why = "condition back during keep" })
    elseif t - a.clear_since >= rule.keep - 1e-9 then
      a.clear_since = nil
      set_state(self, rule, a, t, "resolved", { why = "clear for " .. R.format_duration(rule.keep) })
      a.active_since = nil
    end
  end
  if a.state == "firing" then a.last_severity = a.severity end
end

-- Apply the no-data / reset / vanish policies, then step with a known condition.  A gap before
-- a known condition: a sample since the last step where the condition was unknown (no data, a
-- reset, no rate yet, a vanished instance), or `dt` (the time since the rule's last evaluation)
-- beyond the rule's gap limit (its state's `gap`, from E.gap_limit in perflib.rules.engine).
local function outcome(self, rule, a, t, c, why, dt)
  if c ~= nil then
    a.miss, a.miss_since = 0, nil
    local lim = self.st[rule.name] and self.st[rule.name].gap
    local gap = a.unseen or (lim ~= nil and dt ~= nil and dt > lim)
    a.unseen = nil
    return step(self, rule, a, t, c, dt, gap)
  end
  a.unseen = true
  local policy
  if why == "first_sample" then return end     -- a new instance has no rate yet: not news
  if why == "reset" then
    if rule.reset == "skip" then return end
    return enter_unknown(self, rule, a, t, "reset")
  elseif why == "vanished" then
    policy = rule.vanish
  else
    a.miss = a.miss + 1
    a.miss_since = a.miss_since or t
    local nd = rule.nodata
    if nd.samples and a.miss < nd.samples then return end
    if nd.seconds and t - a.miss_since < nd.seconds - 1e-9 then return end
    policy = nd.as
  end
  if policy == "keep" then return
  elseif policy == "unknown" then return enter_unknown(self, rule, a, t, why)
  elseif policy == "resolve" then return force_resolve(self, rule, a, t, why)
  elseif policy == "alert" then
    -- no data counts as the condition met: observed by policy, not a gap
    a.reason, a.unseen = why, nil
    return step(self, rule, a, t, true, dt, false)
  end
end


A.copy, A.new_alert, A.event, A.enter_unknown, A.outcome, A.ACTIVE =
  copy, new_alert, event, enter_unknown, outcome, ACTIVE
return A
