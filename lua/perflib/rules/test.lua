--- perflib.rules.test: a unit-test harness for rules on a virtual clock (usable from busted).
-- Series: "v*n" n samples of v, "a+d*n" a ramp (a, a+d, ... n samples), "v" one sample,
-- "_" or "_*n" a gap (instance there, no data), "~" or "~*n" the instance absent (vanished),
-- "!" a counter reset at the next sample. Input keys: "path{instance=name}" or "path".
-- @module perflib.rules.test

local R = require "perflib.rules"
local E = require "perflib.rules.engine"
local N = require "perflib.rules.notify"
local compat = require "perflib.compat"

local T = {}
T.UNKNOWN = setmetatable({}, { __tostring = function() return "UNKNOWN" end })

local function num(s, whole)
  local v = tonumber(s)
  if v == nil then error(("series: bad number %q in %q"):format(s, whole), 3) end
  return v
end

--- Parse a series into a list of samples { v = number|nil, gap = bool, absent = bool, reset = bool }.
-- @tparam string series e.g. "10*3 10+5*4 _ ~*2 ! 0" (the forms in the module's description)
-- @treturn {table,...} the samples; a bad token raises naming it
function T.parse(series)
  local out, reset = {}, false
  for tok in series:gmatch("%S+") do
    if tok == "!" then
      reset = true
    else
      local head, n = tok:match("^(.-)%*(%d+)$")
      head, n = head or tok, tonumber(n) or 1
      local a, d
      if head == "_" or head == "~" then
        a = head
      elseif tonumber(head) then
        a, d = tonumber(head), 0
      else
        -- a+d or a-d: the sign after the first character that is not part of an exponent
        local i = 2
        while i <= #head do
          local c = head:sub(i, i)
          if (c == "+" or c == "-") and not head:sub(i - 1, i - 1):match("[eE]") then break end
          i = i + 1
        end
        if i > #head then error(("series: bad token %q in %q"):format(tok, series), 2) end
        a, d = num(head:sub(1, i - 1), series), num(head:sub(i), series)
      end
      for k = 0, n - 1 do
        local s
        if a == "_" then s = { gap = true }
        elseif a == "~" then s = { absent = true }
        else s = { v = a + d * k } end
        if reset and s.v then s.reset, reset = true, false end
        out[#out + 1] = s
      end
    end
  end
  return out
end

local function parse_key(key)
  local path, inst = key:match("^(.-){instance=(.*)}$")
  if path then return path, inst end
  return key, ""
end

local function label_key(labels)
  local ks = {}
  for k in pairs(labels) do ks[#ks + 1] = k end
  table.sort(ks)
  for i, k in ipairs(ks) do ks[i] = k .. "=" .. labels[k] end
  return table.concat(ks, ",")
end

local Result = {}
Result.__index = Result

-- An input key whose path no rule reads would be a silent "inactive": raise, naming the close
-- source; a counter path (it starts with "\\") must also name a real counterset and counter.
local function check_input_paths(eng, order)
  local read, list = {}, {}
  for _, src in ipairs(eng:sources()) do
    if not read[src.path] then read[src.path] = true; list[#list + 1] = src.path end
  end
  table.sort(list)
  local q
  for _, path in ipairs(order) do
    if not read[path] then
      local s = R.suggest(path, list)
      error(('input "%s": no rule reads this path%s; the rules read: %s'):format(path,
        s and (' (did you mean "%s"?)'):format(s) or "", table.concat(list, ", ")), 3)
    end
    if path:sub(1, 1) == "\\" then
      q = q or require("perflib").query()
      local i, msg, status = q:add(path)
      if not i and status ~= "duplicate" and status ~= "bad_path" then
        q:close()
        error(('input "%s": %s: not a real counter'):format(path, msg), 3)
      end
    end
  end
  if q then q:close() end
end

-- Input instances that no rule reading their path watches (its `instances` / `exclude`).
local function unwatched(set, paths, order)
  local out, rules = {}, set:list()
  for _, path in ipairs(order) do
    for _, inst in ipairs(paths[path].names) do
      local seen = false
      for _, rule in ipairs(rules) do
        if rule.source == path and E.want(rule, inst) then seen = true end
        for _, p in ipairs(rule.sources or {}) do if p == path then seen = true end end
      end
      if not seen then
        out[#out + 1] = ("input %s{instance=%s}: no rule watches this instance (instances/exclude)"):format(path, inst)
      end
    end
  end
  return out
end

-- The frames of opts.input (series), one every `every` seconds from start: an iterator of k, t, frame.
local function series_frames(paths, order, n, start, every)
  local k = 0
  return function()
    k = k + 1
    if k > n then return nil end
    local frame = {}
    for _, path in ipairs(order) do
      local p = paths[path]
      local cooked = { instances = {}, value = {}, status = {} }
      local raw = { instances = {}, value = {}, status = {} }
      for _, name in ipairs(p.names) do
        local s = p.series[name][k]
        if s and not s.absent then
          cooked.instances[#cooked.instances + 1] = name
          raw.instances[#raw.instances + 1] = name
          if s.gap then
            cooked.status[name], raw.status[name] = "no_data", "no_data"
          elseif s.reset then
            cooked.status[name] = "negative_delta"
            raw.value[name], raw.status[name] = s.v, "reset"
          else
            cooked.value[name], cooked.status[name] = s.v, "valid"
            raw.value[name], raw.status[name] = s.v, "valid"
          end
        end
      end
      frame[path], frame["raw:" .. path] = cooked, raw
    end
    return k, start + (k - 1) * every, frame
  end
end

-- The frames of a log (opts.log): its samples on their own clock, the first at start.
local function log_frames(eng, path, start)
  local header, frames = require("perflib.record").read(path, { paths = eng:sources() })
  if not header then error("log: " .. tostring(frames), 3) end
  local k, t0 = 0, nil
  return function()
    local t, frame = frames()
    if t == nil then return nil end
    k, t0 = k + 1, t0 or t
    return k, start + (t - t0), frame
  end
end

--- Run rules over synthetic input, or over a log. opts: rules (set, source or path), every ("10s"),
-- input, log (a log or JSON-lines recording instead of input: its samples on their own clock, the
-- first at `start`; perflua record, typeperf -f BIN, relog write them), start (0),
-- state (exported engine state to import first), limit (instructions per function call),
-- partial (accept a rule file with errors: what loaded runs).  The events also go through the
-- set's routes, inhibitions and silences (perflib.rules.notify) with the actions captured,
-- never run: `res.sent` lists them (see Result:sent_by).
-- An input key whose path no rule reads, or a counter path ("\\Set(instance)\\Counter") that names
-- no real counterset or counter, raises (with a suggestion); input instances that no rule
-- watches are listed in `res.warnings`.
-- Returns a Result; raises when the rules do not load.
-- @tparam table opts as above: `rules` and `input` (`{[key] = series}`) are needed
-- @treturn table a Result: `events`, `sent`, `warnings`, and the methods below
function T.run(opts)
  local set, errs = opts.rules, nil
  if type(set) == "string" then
    set, errs = R.load(set)
    -- a test of a rule file with an error in it would test less than it says: raise, unless
    -- opts.partial accepts a partial load (res.load_errors lists what was left out)
    if not set or (errs and not opts.partial) then
      local msgs = {}
      for _, e in ipairs(errs) do msgs[#msgs + 1] = e.message end
      error("rules did not load: " .. table.concat(msgs, "; "), 2)
    end
  end
  local every = assert(R.duration(opts.every or "10s"))
  local start = opts.start or 0
  local eng = E.new(set, { limit = opts.limit, bank = opts.bank, interval = every })
  if opts.state then eng:import_state(opts.state) end
  -- path -> { names, series[name] }
  local paths, order, n = {}, {}, 0
  for key, s in pairs(opts.input or {}) do
    local path, inst = parse_key(key)
    local p = paths[path]
    if not p then p = { names = {}, series = {} }; paths[path] = p; order[#order + 1] = path end
    p.names[#p.names + 1] = inst
    p.series[inst] = T.parse(s)
    n = math.max(n, #p.series[inst])
  end
  table.sort(order)
  for _, path in ipairs(order) do table.sort(paths[path].names) end
  check_input_paths(eng, order)
  if opts.log and opts.input then error("bad argument #1 to 'run' (input or log, not both)", 2) end
  local frames = opts.log and log_frames(eng, opts.log, start) or series_frames(paths, order, n, start, every)
  local log = {}
  local notifier = N.new(set, { run = true, log = function(msg) log[#log + 1] = msg end })
  local res = setmetatable({ events = {}, snaps = {}, times = {}, every = every, start = start, engine = eng,
                             load_errors = errs, set = set, sent = {}, log = log, notifier = notifier,
                             warnings = unwatched(set, paths, order) }, Result)
  local last = start
  for k, t, frame in frames do
    last = t
    for _, ev in ipairs(eng:feed(t, frame)) do
      res.events[#res.events + 1] = ev
      notifier:event(ev)
    end
    local before = #notifier.captured
    notifier:tick(t)
    for j = before + 1, #notifier.captured do res.sent[#res.sent + 1] = N.record_of(notifier.captured[j]) end
    eng:sync()
    local snap = {}
    for _, rule in ipairs(eng.rules) do
      local rs, alerts = eng.st[rule.name], {}
      for _, name in ipairs(E.sorted_names(rs.alerts)) do      -- in instance order
        local a = rs.alerts[name]
        alerts[#alerts + 1] = { labels = a.labels, state = a.state, value = a.value, severity = a.severity,
                                flapping = a.flapping }
      end
      snap[rule.name] = { alerts = alerts, disabled = rs.disabled }
    end
    res.snaps[k], res.times[k] = snap, t
  end
  res.stop, res.logged = opts.log and last or start + (n - 1) * every, opts.log ~= nil
  return res
end

local function matches(labels, want)
  for k, v in pairs(want or {}) do
    if k ~= "severity" and labels[k] ~= v then return false end
  end
  return true
end

local function time_of(t)
  local s = R.duration(t)
  if not s then error(("bad time %q"):format(tostring(t)), 3) end
  return s
end

function Result:index(t)
  t = time_of(t)
  if t > self.stop + 1e-9 then
    error(("time %gs is past the end of the input (%gs): no hidden lookback"):format(t, self.stop), 3)
  end
  if t < self.start then return nil end
  if not self.logged then return math.floor((t - self.start) / self.every + 1e-9) + 1 end
  local lo, hi = 1, #self.times              -- a log's samples come when they came: the last at or before t
  while lo < hi do
    local mid = math.floor((lo + hi + 1) / 2)
    if self.times[mid] <= t + 1e-9 then lo = mid else hi = mid - 1 end
  end
  return lo
end

--- State of an alert at time t (as of the last sample at or before t), and its info.
-- @tparam number|string t seconds on the virtual clock, or a duration ("5m"); past the input's
--   end raises
-- @tparam string rule the rule's name (an unknown one raises)
-- @tparam[opt] table labels labels the alert must have (the first match)
-- @treturn string "inactive", "pending", "firing", ..., or "disabled"
-- @treturn ?table the alert (`labels`, `value`, `severity`, ...), when there is one
function Result:at(t, rule, labels)
  local k = self:index(t)
  local snap = k and self.snaps[k][rule]
  if not snap then
    if k and not self.engine.st[rule] then error(("no rule %q"):format(rule), 2) end
    return "inactive"
  end
  for _, a in ipairs(snap.alerts) do
    if matches(a.labels, labels) then return a.state, a end
  end
  return snap.disabled and "disabled" or "inactive"
end

--- The rule's value for an alert at time t (nil: unknown).
-- @tparam number t seconds on the virtual clock
-- @tparam string rule the rule's name
-- @tparam[opt] table labels labels the alert must have
-- @treturn ?number
function Result:value(t, rule, labels)
  local _, a = self:at(t, rule, labels)
  return a and a.value
end

--- True when the alert was never in `state` (default "firing").
-- @tparam string rule the rule's name
-- @tparam[opt] table labels labels the alert must have
-- @tparam[opt="firing"] string state
-- @treturn boolean
function Result:never(rule, labels, state)
  state = state or "firing"
  for _, snap in ipairs(self.snaps) do
    for _, a in ipairs(snap[rule] and snap[rule].alerts or {}) do
      if a.state == state and matches(a.labels, labels) then return false end
    end
  end
  return true
end

--- First time the alert entered `state` (default "firing"), or nil.
-- @tparam string rule the rule's name
-- @tparam[opt] table labels labels the alert must have
-- @tparam[opt="firing"] string state
-- @treturn ?number seconds on the virtual clock
function Result:first(rule, labels, state)
  state = state or "firing"
  for _, ev in ipairs(self.events) do
    if ev.rule == rule and ev.to == state and matches(ev.labels, labels) then return ev.t end
  end
  return nil
end

--- Events of one rule/alert (kind "transition", "flap_start", "flap_end", "rule_error").
-- @tparam[opt] string rule the rule's name (nil: every rule)
-- @tparam[opt] table labels labels the events must have
-- @treturn {table,...} the events, in order
function Result:transitions(rule, labels)
  local out = {}
  for _, ev in ipairs(self.events) do
    if (not rule or ev.rule == rule) and matches(ev.labels or {}, labels) then out[#out + 1] = ev end
  end
  return out
end

--- Is this engine event a notification (as a router would send without routes/throttling)?
-- Fire, resolve, flap start/end; transitions while flapping are suppressed; unknown is no news.
-- @tparam table ev an engine event
-- @treturn boolean
function T.notifiable(ev)
  if ev.kind == "flap_start" or ev.kind == "flap_end" or ev.kind == "rule_error" then return true end
  if ev.kind ~= "transition" or ev.flapping then return false end
  if ev.to == "firing" then return ev.from ~= "recovering" and ev.from ~= "unknown" and ev.from ~= "firing" end
  if ev.to == "resolved" then return true end
  return false
end

--- Count notifications: opts.alert (rule name), opts.labels; returns the count and the events.
-- @tparam[opt] table opts
-- @treturn integer the count
-- @treturn {table,...} the events (those @{notifiable} accepts)
function Result:notifications(opts)
  opts = opts or {}
  local out = {}
  for _, ev in ipairs(self.events) do
    if T.notifiable(ev) and (not opts.alert or ev.rule == opts.alert) and matches(ev.labels or {}, opts.labels) then
      out[#out + 1] = ev
    end
  end
  return #out, out
end

--- Notifications the routes sent (actions captured, not run), one per action: opts.alert
-- (alertname), opts.route (its name, or its number in the file), opts.action ("print",
-- "exec", ...), opts.state ("firing", "resolved"), opts.kind ("alert", "flap_start",
-- "flap_end"), opts.labels, opts.is_repeat.
-- Returns the count and the records (see perflib.rules.notify.record_of).
-- @tparam[opt] table opts
-- @treturn integer the count
-- @treturn {table,...} the records
function Result:sent_by(opts)
  opts = opts or {}
  local out = {}
  local route = compat.math_type(opts.route) == "integer" and ("route %d"):format(opts.route) or opts.route
  for _, n in ipairs(self.sent) do
    if (not opts.alert or n.alertname == opts.alert) and (not route or n.route == route)
       and (not opts.action or n.action == opts.action) and (not opts.state or n.state == opts.state)
       and (not opts.kind or n.kind == opts.kind) and (opts.is_repeat == nil or n.is_repeat == opts.is_repeat)
       and matches(n.labels or {}, opts.labels) then
      out[#out + 1] = n
    end
  end
  return #out, out
end

--- A readable timeline of the events.
-- @treturn string one line per event ("   12.0 cpu{0} pending -> firing (93.5)")
function Result:timeline()
  local lines = {}
  for _, ev in ipairs(self.events) do
    local inst = ev.labels and ev.labels.instance and ("{" .. ev.labels.instance .. "}") or ""
    if ev.kind == "transition" then
      lines[#lines + 1] = ("%7.1f %s%s %s -> %s%s"):format(ev.t, ev.rule, inst, ev.from, ev.to,
        ev.value and (" (" .. ("%.4g"):format(ev.value) .. ")") or "")
    else
      lines[#lines + 1] = ("%7.1f %s%s %s"):format(ev.t, ev.rule, inst, ev.kind)
    end
  end
  return table.concat(lines, "\n")
end

-- ---------------------------------------------------------------- declarative expectations
-- Expectations for @{check} and @{case}'s `expect` list.

--- Expect the alert of `rule` (the one whose labels include `labels`) to be in `state` at time t
-- (as `Result:at` says), and its labels (or `severity`) to hold the values of `extra`.
-- @tparam number t seconds on the virtual clock
-- @tparam string rule the rule's name
-- @tparam[opt] table labels labels the alert must have (`{instance = "sda"}`)
-- @tparam string state "inactive", "pending", "firing", "resolved", "unknown", ...
-- @tparam[opt] table extra `{label = value}` or `{severity = "crit"}` the alert must have then
-- @treturn table the expectation
function T.at(t, rule, labels, state, extra)
  return { what = "at", t = t, rule = rule, labels = labels, state = state, extra = extra }
end
--- Expect the alert never to be in `state` during the run (as `Result:never` says).
-- @tparam string rule the rule's name
-- @tparam[opt] table labels labels the alert must have
-- @tparam[opt="firing"] string state
-- @treturn table the expectation
function T.never(rule, labels, state) return { what = "never", rule = rule, labels = labels, state = state } end
--- Expect the rule's value for the alert at time t to be v (within tol), or unknown
-- when v is `T.UNKNOWN`.
-- @tparam number t seconds on the virtual clock
-- @tparam string rule the rule's name
-- @tparam[opt] table labels labels the alert must have
-- @tparam number v the value, or `T.UNKNOWN`
-- @tparam[opt] number tol the tolerance (default 1e-9 of max(1, |v|))
-- @treturn table the expectation
function T.value_at(t, rule, labels, v, tol)
  return { what = "value", t = t, rule = rule, labels = labels, v = v, tol = tol }
end
--- Expect notifications of the engine's events (as `Result:notifications` counts them).
-- @tparam table o `alert` (a rule name), `labels`, then `count` (exactly) or `max` (at most)
-- @treturn table the expectation
function T.notifications(o) return { what = "notifications", o = o } end
--- Expect notifications the routes sent: o as for Result:sent_by, plus count, min or max.
-- @tparam table o
-- @treturn table the expectation
function T.sent(o) return { what = "sent", o = o } end

--- Check expectations against a result: true, or false and a list of failure messages.
-- @tparam table res a Result of @{run}
-- @tparam {table,...} expect expectations (@{at}, @{never}, @{value_at}, @{notifications}, @{sent})
-- @treturn boolean all met
-- @treturn {string,...} a message per expectation not met
function T.check(res, expect)
  local fails = {}
  local function fail(fmt, ...) fails[#fails + 1] = fmt:format(...) end
  for _, x in ipairs(expect) do
    local lbl = x.labels and label_key(x.labels) or ""
    if x.what == "at" then
      local st, a = res:at(x.t, x.rule, x.labels)
      if st ~= x.state then fail("at %s %s{%s}: expected %s, got %s", x.t, x.rule, lbl, x.state, st) end
      for k, v in pairs(x.extra or {}) do
        local got = a and (k == "severity" and a.severity or a.labels[k])
        if got ~= v then fail("at %s %s{%s}: %s expected %s, got %s", x.t, x.rule, lbl, k, v, tostring(got)) end
      end
    elseif x.what == "never" then
      if not res:never(x.rule, x.labels, x.state) then
        fail("%s{%s} was %s", x.rule, lbl, x.state or "firing")
      end
    elseif x.what == "value" then
      local v = res:value(x.t, x.rule, x.labels)
      if x.v == T.UNKNOWN then
        if v ~= nil then fail("value at %s %s{%s}: expected unknown, got %s", x.t, x.rule, lbl, v) end
      elseif v == nil or math.abs(v - x.v) > (x.tol or 1e-9 * math.max(1, math.abs(x.v))) then
        fail("value at %s %s{%s}: expected %s, got %s", x.t, x.rule, lbl, x.v, tostring(v))
      end
    elseif x.what == "notifications" then
      local c = res:notifications(x.o)
      if x.o.count and c ~= x.o.count then fail("notifications: expected %d, got %d", x.o.count, c) end
      if x.o.max and c > x.o.max then fail("notifications: expected at most %d, got %d", x.o.max, c) end
    elseif x.what == "sent" then
      local c = res:sent_by(x.o)
      if x.o.count and c ~= x.o.count then fail("sent: expected %d, got %d", x.o.count, c) end
      if x.o.min and c < x.o.min then fail("sent: expected at least %d, got %d", x.o.min, c) end
      if x.o.max and c > x.o.max then fail("sent: expected at most %d, got %d", x.o.max, c) end
    end
  end
  return #fails == 0, fails
end

--- Run one case: { rules =, every =, input =, expect = {...} } → ok, failures, result.
-- @tparam table def @{run}'s options and `expect`
-- @treturn boolean all expectations met
-- @treturn {string,...} the failures
-- @treturn table the Result
function T.case(def)
  local res = T.run(def)
  local ok, fails = T.check(res, def.expect or {})
  return ok, fails, res
end

T.Result = Result
return T
