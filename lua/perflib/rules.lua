--- perflib.rules: alert rules as data (issue 5).
-- `local R = require "perflib.rules"; local set = R.new(); set:rule "Name" { ... }`
-- or `R.load(path_or_source)` for a rules file run in a sandbox.
-- Durations are seconds (numbers) or strings "90s", "5m", "2h", "1h30m", "500ms".
-- @module perflib.rules

-- the real string functions: this code also runs inside sandboxed calls, where
-- string methods reach the sandbox's bounded ones (perflib.rules.sandbox)
local sfind, sgmatch, sgsub, smatch = string.find, string.gmatch, string.gsub, string.match
local R = {}
local compat = require "perflib.compat"

local S = require "perflib.rules.sandbox"
local W = require "perflib.rules.webhook"
local unpack = compat.unpack

-- ---------------------------------------------------------------- helpers

local UNITS = { ms = 0.001, s = 1, m = 60, h = 3600, d = 86400, w = 604800 }

--- Parse a duration: number of seconds or "1h30m"; returns seconds or nil, message.
-- Units: ms, s, m, h, d, w, each after a number ("1h30m", "1.5s"); spaces are ignored.
-- @tparam number|string d
-- @treturn[1] number seconds (a float)
-- @return[2] nil
-- @treturn[2] string message (a negative, infinite or NaN number, an empty or bad string)
function R.duration(d)
  if type(d) == "number" then
    if d ~= d or d < 0 or d == math.huge then return nil, "duration must be a finite number >= 0" end
    return d + 0.0
  end
  if type(d) ~= "string" then return nil, "duration must be a number of seconds or a string like \"5m\"" end
  local s, total, pos = sgsub(d, "%s", ""), 0.0, 1
  if s == "" then return nil, "empty duration" end
  while pos <= #s do
    local num, unit, nxt = smatch(s, "^(%d+%.?%d*)(%a+)()", pos)
    if not num or not UNITS[unit] then
      return nil, ("bad duration %q (use e.g. \"90s\", \"5m\", \"1h30m\")"):format(d)
    end
    total, pos = total + tonumber(num) * UNITS[unit], nxt
  end
  return total
end

local function fmt_duration(s)
  if not s then return "?" end
  s = math.floor(s + 0.5)
  if s < 60 then return s .. "s" end
  local out = {}
  for _, u in ipairs { { "d", 86400 }, { "h", 3600 }, { "m", 60 }, { "s", 1 } } do
    local n = compat.idiv(s, u[2])
    if n > 0 then out[#out + 1] = n .. u[1]; s = s - n * u[2] end
  end
  return table.concat(out)
end
--- A duration for people, rounded to whole seconds: 45 -> "45s",
-- 5400 -> "1h30m", 90061 -> "1d1h1m1s"; nil -> "?".
-- @function format_duration
-- @tparam ?number s seconds
-- @treturn string
R.format_duration = fmt_duration

--- The closest name in `names` (a list) to `word`, or nil when none is close: perflib's
-- own "did you mean" (perflib.suggest, the one `Query:add` uses for counterset and counter names).
-- @param word the misspelled name (tostring'd)
-- @tparam {string,...} names the candidates
-- @treturn ?string the closest name
function R.suggest(word, names)
  return require("perflib.core").suggest(tostring(word), names)
end

local function sorted_keys(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  table.sort(ks)
  return ks
end

-- ---------------------------------------------------------------- constructors
-- Every constructed object is a table with a `kind` and a metatable.

local Obj = {}
Obj.__index = Obj
local function obj(kind, t)
  t.kind = kind
  return setmetatable(t, Obj)
end
local function is_obj(x, kind) return getmetatable(x) == Obj and (kind == nil or x.kind == kind) end
--- Is x an object the rule constructors made (a value, a per, a flap, a ratio; not
-- a condition of @{above} or @{below}), of the given kind if one is named?
-- @function is
-- @param x anything
-- @tparam[opt] string kind "value", "per", "flap", "ratio" (or "invalid": a rules file's mistake)
-- @treturn boolean
R.is = is_obj

-- What a constructor of a rules file gives for a mistake (bad arguments, an unknown function):
-- the message travels to the rule or route that uses it, so that loading goes on and every
-- mistake of the file is reported in one run.  `reported`: already in the set's errors.
local function invalid(msg, reported) return obj("invalid", { message = msg, reported = reported }) end
local function invalid_message(v)
  if v.reported then return "uses an unknown function (reported above)" end
  return v.message
end
-- A condition method on a mistake is the mistake (R.abve(90):clears_below(80)); on anything
-- else that is not a condition it is misuse.
local function not_a_condition(self, method)
  if self.kind ~= "invalid" then error(("%s goes with a condition, not a %s"):format(method, self.kind), 3) end
  return self
end
function Obj:clears_below() return not_a_condition(self, "clears_below") end
function Obj:clears_above() return not_a_condition(self, "clears_above") end

local function window_of(w, fname)
  local s, err = R.duration(w)
  if not s then error(("R.%s: %s"):format(fname, err), 3) end
  return s
end

-- Values: how a window of samples reduces to the rule's value.  A bad
-- window raises (R.duration's message, naming the function).

--- The rule's value is the latest cooked sample (the default value).
-- @treturn table a value object (kind "value")
function R.last() return obj("value", { fn = "last", window = 0 }) end
--- The rule's value is the latest raw counter value (no cooking).
-- @treturn table a value object
function R.raw() return obj("value", { fn = "raw", window = 0, raw = true }) end
--- The mean of the cooked samples in the window.
-- @tparam number|string w the window: seconds or a duration ("5m")
-- @treturn table a value object
function R.avg(w) return obj("value", { fn = "avg", window = window_of(w, "avg") }) end
--- The smallest cooked sample in the window.
-- @tparam number|string w the window: seconds or a duration ("5m")
-- @treturn table a value object
function R.min(w) return obj("value", { fn = "min", window = window_of(w, "min") }) end
--- The largest cooked sample in the window.
-- @tparam number|string w the window: seconds or a duration ("5m")
-- @treturn table a value object
function R.max(w) return obj("value", { fn = "max", window = window_of(w, "max") }) end
--- The p-th percentile of the cooked samples in the window.
-- @tparam number p the percentile, 0..100 (else raises)
-- @tparam number|string w the window: seconds or a duration ("5m")
-- @treturn table a value object
function R.pct(p, w)
  if type(p) ~= "number" or p < 0 or p > 100 then error("R.pct: percentile must be a number in 0..100", 2) end
  return obj("value", { fn = "pct", p = p, window = window_of(w, "pct") })
end
--- Per-second rate over the window from raw counter values (reset-aware, no extrapolation).
-- @tparam number|string w the window: seconds or a duration ("1m")
-- @treturn table a value object
function R.rate(w) return obj("value", { fn = "rate", window = window_of(w, "rate"), raw = true }) end
--- Exact sum of the non-negative deltas over the window (raw counter values).
-- @tparam number|string w the window: seconds or a duration ("1h")
-- @treturn table a value object
function R.increase(w) return obj("value", { fn = "increase", window = window_of(w, "increase"), raw = true }) end

-- Conditions with hysteresis.
local Cond = {}
Cond.__index = Cond
setmetatable(Cond, { __index = Obj })
local function cond(op, x)
  return setmetatable({ kind = "cond", op = op, x = x }, Cond)
end
function Cond:clears_below(y)
  if self.op ~= ">" then error("clears_below goes with R.above", 2) end
  self.clear = y
  return self
end
function Cond:clears_above(y)
  if self.op ~= "<" then error("clears_above goes with R.below", 2) end
  self.clear = y
  return self
end
--- The condition value > x; `R.above(90):clears_below(80)` stays true until the
-- value drops below 80 (hysteresis).
-- @tparam number x the threshold
-- @treturn table a condition (kind "cond", with `clears_below(y)`)
function R.above(x) return cond(">", x) end
--- The condition value < x; `R.below(10):clears_above(20)` stays true until the
-- value rises above 20.
-- @tparam number x the threshold
-- @treturn table a condition (kind "cond", with `clears_above(y)`)
function R.below(x) return cond("<", x) end
local function is_cond(x) return getmetatable(x) == Cond end

-- Aggregates over instances (`per =`: one alert for the rule instead of one per instance).

--- The rule fires when any instance meets the condition.
-- @treturn table a per object (kind "per")
function R.any() return obj("per", { agg = "count", op = ">=", n = 1, name = "any" }) end
--- The rule fires when every instance meets the condition.
-- @treturn table a per object
function R.all() return obj("per", { agg = "all", name = "all" }) end
--- The rule fires when at least the fraction p of the instances meets the condition.
-- @tparam number p a fraction in (0, 1] (else raises)
-- @treturn table a per object
function R.share(p)
  if type(p) ~= "number" or p <= 0 or p > 1 then error("R.share: a fraction in (0, 1]", 2) end
  return obj("per", { agg = "share", p = p, name = "share" })
end
local CMP = { [">="] = true, [">"] = true, ["<="] = true, ["<"] = true, ["=="] = true }
--- The rule fires when the number of instances meeting the condition compares
-- to n as op says: `R.count(">=", 3)`.
-- @tparam string op ">=", ">", "<=", "<" or "==" (else raises)
-- @tparam integer n a count >= 0 (else raises)
-- @treturn table a per object
function R.count(op, n)
  if not CMP[op] then error("R.count: operator must be one of >=, >, <=, <, ==", 2) end
  if compat.math_type(n) ~= "integer" or n < 0 then error("R.count: count must be an integer >= 0", 2) end
  return obj("per", { agg = "count", op = op, n = n, name = "count" })
end

--- Flap detection (Nagios-style weighted state changes over the last `window` samples):
-- flapping starts above `high` and ends below `low`.  Unknown keys and bad values raise.
-- @tparam[opt] table t `window` (an integer >= 3, default 21), `high` (default 0.30),
--   `low` (default 0.25), with 0 < low <= high <= 1
-- @treturn table a flap object (kind "flap")
function R.flap(t)
  t = t or {}
  local f = obj("flap", { window = t.window or 21, high = t.high or 0.30, low = t.low or 0.25 })
  for k in pairs(t) do
    if f[k] == nil then error(("R.flap: unknown key %q"):format(tostring(k)), 2) end
  end
  if compat.math_type(f.window) ~= "integer" or f.window < 3 then error("R.flap: window must be an integer >= 3", 2) end
  if not (f.low > 0 and f.low <= f.high and f.high <= 1) then
    error("R.flap: need 0 < low <= high <= 1", 2)
  end
  return f
end

--- Sustain: share of samples during `pending` that must meet the condition.
-- @tparam number r a fraction in (0, 1] (else raises)
-- @treturn table a ratio object (kind "ratio")
function R.ratio(r)
  if type(r) ~= "number" or r <= 0 or r > 1 then error("R.ratio: a fraction in (0, 1]", 2) end
  return obj("ratio", { r = r })
end

-- Action constructors (data for perflib.rules.notify, which checks them when
-- the rule set's routes are read).  Every action also takes `retries`,
-- `backoff` and `per_alert`; each fills in `t` (a new table when nil) and returns it.

--- An action that prints each notification as a line, on the notifier's output
-- (the monitor's standard output).
-- @tparam[opt] table t options (the common ones; a `to` key is accepted but not used)
-- @treturn table the action (kind "print")
function R.print(t) t = t or {}; t.kind = "print"; return t end
--- An action that appends each notification to a file as one JSON object a line.
-- @tparam string path the file
-- @tparam[opt] table t options (the common ones)
-- @treturn table the action (kind "jsonl")
function R.jsonl(path, t) t = t or {}; t.kind = "jsonl"; t.path = path; return t end
--- An action that sends each notification to syslog.
-- @tparam[opt] table t options: `priority` ("warning", "err", ...), `ident`, `socket`
-- @treturn table the action (kind "syslog")
function R.syslog(t) t = t or {}; t.kind = "syslog"; return t end
--- An action that runs a program per notification (no shell: argv as is).
-- @tparam {string,...} argv the program and its arguments
-- @tparam[opt] table t options: `stdout`, `stderr`, `timeout`
-- @treturn table the action (kind "exec")
function R.exec(argv, t) t = t or {}; t.kind = "exec"; t.argv = argv; return t end
--- An action that calls a Lua function with each notification.
-- @tparam function fn called with the notification record
-- @tparam[opt] table t options (the common ones)
-- @treturn table the action (kind "call")
function R.call(fn, t) t = t or {}; t.kind = "call"; t.fn = fn; return t end
--- An action that posts alerts to an Alertmanager (`POST /api/v2/alerts`).
-- @tparam string url the Alertmanager's base URL
-- @tparam[opt] table t options: `timeout`, `connect_timeout`, `headers`, `token`,
--   `generator_url`, `max_body`
-- @treturn table the action (kind "alertmanager")
function R.alertmanager(url, t) t = t or {}; t.kind = "alertmanager"; t.url = url; return t end
--- An action that posts each notification to any receiver as Alertmanager's
-- webhook JSON (version 4).
-- @tparam string url where to post
-- @tparam[opt] table t options as @{alertmanager}'s
-- @treturn table the action (kind "webhook")
function R.webhook(url, t) t = t or {}; t.kind = "webhook"; t.url = url; return t end

-- ---------------------------------------------------------------- severities

R.SEVERITY = { info = 1, notice = 2, warn = 3, warning = 3, error = 4, crit = 5, critical = 5, page = 6, emerg = 7 }
local SEV_NAMES = sorted_keys(R.SEVERITY)

-- ---------------------------------------------------------------- validation

local POLICY = {
  nodata = { unknown = true, keep = true, resolve = true, alert = true },
  vanish = { resolve = true, keep = true, unknown = true, alert = true },
  reset = { skip = true, unknown = true },
}

local function check_duration(v)
  local s, err = R.duration(v)
  if not s then return nil, err end
  return s
end

local function check_string(v)
  if type(v) ~= "string" or v == "" then return nil, "must be a non-empty string" end
  return v
end

local function check_cond(v)
  if is_obj(v, "invalid") then return nil, invalid_message(v) end
  if not is_cond(v) then
    return nil, "must be a condition like R.above(90):clears_below(75)" ..
      (type(v) == "function" and "" or " (or a function(ctx))")
  end
  if type(v.x) ~= "number" then return nil, "threshold must be a number" end
  if v.clear ~= nil and type(v.clear) ~= "number" then return nil, "clear threshold must be a number" end
  if v.clear and v.op == ">" and v.clear > v.x then
    return nil, ("hysteresis inverted: clears_below(%g) is above above(%g)"):format(v.clear, v.x)
  end
  if v.clear and v.op == "<" and v.clear < v.x then
    return nil, ("hysteresis inverted: clears_above(%g) is below below(%g)"):format(v.clear, v.x)
  end
  return v
end

local function check_policy(which)
  return function(v)
    local names = sorted_keys(POLICY[which])
    local t = v
    if which == "nodata" then
      if type(v) == "string" then t = { as = v } end
      if type(t) ~= "table" then return nil, "must be a policy name or { after = ..., as = ... }" end
      for k in pairs(t) do
        if k ~= "after" and k ~= "as" then
          local s = R.suggest(tostring(k), { "after", "as" })
          return nil, ("unknown key %q%s"):format(tostring(k), s and (" (did you mean `" .. s .. "`?)") or "")
        end
      end
      local as = t.as or "unknown"
      if not POLICY.nodata[as] then
        local s = R.suggest(tostring(as), names)
        return nil, ("unknown policy %q (one of %s)%s"):format(tostring(as), table.concat(names, ", "),
          s and (", did you mean `" .. s .. "`?") or "")
      end
      local out = { as = as, samples = 1 }
      if t.after ~= nil then
        local n = type(t.after) == "string" and smatch(t.after, "^%s*(%d+)%s*samples?%s*$")
        if n then out.samples = tonumber(n)
        else
          local s, err = R.duration(t.after)
          if not s then return nil, "after: " .. err .. " (or \"N samples\")" end
          out.samples, out.seconds = nil, s
        end
      end
      return out
    end
    if type(v) ~= "string" or not POLICY[which][v] then
      local s = type(v) == "string" and R.suggest(v, names)
      return nil, ("must be one of %s%s"):format(table.concat(names, ", "),
        s and (" (did you mean `" .. s .. "`?)") or "")
    end
    return v
  end
end

local function check_labels(v)
  if type(v) ~= "table" then return nil, "must be a table of string labels" end
  for k, x in pairs(v) do
    if type(k) ~= "string" or type(x) ~= "string" then return nil, "labels are string = string" end
    if k == "severity" then return nil, "severity is not a label (use `severity` or `levels`)" end
    if sfind(x, "{value", 1, true) or sfind(x, "{age}", 1, true) then
      return nil, ("label %q holds {value}/{age}: labels are the alert's identity, use `message`"):format(k)
    end
  end
  return v
end

local function check_source(v)
  if type(v) == "string" and v ~= "" then return v end
  return nil, "must be a counter path like \"\\\\Processor Information(*)\\\\% Processor Time\""
end

local function check_pattern(v)
  if type(v) ~= "string" then return nil, "must be a Lua pattern string" end
  local ok, err = pcall(string.find, "", v)
  if not ok then return nil, "bad pattern: " .. tostring(err) end
  return v
end

local SCHEMA = {
  source = check_source,
  sources = function(v)
    if type(v) ~= "table" then return nil, "must be a list of counter paths" end
    for i, p in ipairs(v) do
      if not check_source(p) then return nil, ("entry %d is not a counter path"):format(i) end
    end
    return v
  end,
  instances = check_pattern,
  exclude = check_pattern,
  value = function(v)
    if not is_obj(v, "value") then return nil, "must be a value like R.last(), R.avg \"1m\", R.rate \"1m\"" end
    return v
  end,
  when = function(v)
    if type(v) == "function" then return v end
    return check_cond(v)
  end,
  levels = function(v)
    if type(v) ~= "table" then return nil, "must be a table like { warn = R.above(80), crit = R.above(90) }" end
    local out, n = {}, 0
    for sev, c in pairs(v) do
      if not R.SEVERITY[sev] then
        local s = R.suggest(tostring(sev), SEV_NAMES)
        return nil, ("unknown severity %q%s"):format(tostring(sev), s and (" (did you mean `" .. s .. "`?)") or "")
      end
      local cc, err = check_cond(c)
      if not cc then return nil, sev .. ": " .. err end
      out[#out + 1] = { severity = sev, cond = cc, rank = R.SEVERITY[sev] }
      n = n + 1
    end
    if n == 0 then return nil, "needs at least one level" end
    table.sort(out, function(a, b) return a.rank < b.rank end)
    for i = 2, #out do
      local lo, hi = out[i - 1], out[i]
      if lo.cond.op ~= hi.cond.op then return nil, "levels mix above and below" end
      if (lo.cond.op == ">" and lo.cond.x > hi.cond.x) or (lo.cond.op == "<" and lo.cond.x < hi.cond.x) then
        return nil, ("%s (%g) is beyond %s (%g): levels inverted"):format(lo.severity, lo.cond.x,
          hi.severity, hi.cond.x)
      end
    end
    return out
  end,
  severity = function(v)
    if type(v) == "string" and R.SEVERITY[v] then return v end
    local s = type(v) == "string" and R.suggest(v, SEV_NAMES)
    return nil, ("must be one of %s%s"):format(table.concat(SEV_NAMES, ", "),
      s and (" (did you mean `" .. s .. "`?)") or "")
  end,
  pending = check_duration,
  keep = check_duration,
  every = check_duration,
  sustain = function(v)
    if type(v) == "number" and v > 0 and v <= 1 then return R.ratio(v) end
    if is_obj(v, "ratio") then return v end
    return nil, "must be R.ratio(r) with 0 < r <= 1"
  end,
  per = function(v)
    if v == "instance" or is_obj(v, "per") then return v end
    return nil, "must be \"instance\", R.any(), R.all(), R.share(p) or R.count(op, n)"
  end,
  nodata = check_policy("nodata"),
  vanish = check_policy("vanish"),
  reset = check_policy("reset"),
  flap = function(v)
    if v == false or is_obj(v, "flap") then return v end
    return nil, "must be R.flap { window =, high =, low = } or false"
  end,
  labels = check_labels,
  message = check_string,
  limit = function(v)
    if compat.math_type(v) == "integer" and v > 0 then return v end
    return nil, "must be a positive integer (instructions)"
  end,
}
local SCHEMA_KEYS = sorted_keys(SCHEMA)
R.RULE_KEYS = SCHEMA_KEYS

local DEFAULTABLE = { every = true, pending = true, keep = true, nodata = true, vanish = true, reset = true,
  flap = true, labels = true, sustain = true, severity = true, value = true, limit = true }

-- Errors name the rule, or the part of the file that is not a rule: part("route", 2).
local function part(kind, n) return { part = n and ("%s %d"):format(kind, n) or kind } end

local function err_obj(rule, key, msg)
  local where = type(rule) == "table" and rule.part or rule and ("rule %q"):format(rule) or "rules"
  if type(rule) == "table" then rule = nil end
  return { rule = rule, key = key,
           message = key and ("%s: key `%s`: %s"):format(where, key, msg) or ("%s: %s"):format(where, msg) }
end

local function unknown_key(rule, k, keys)
  local s = type(k) == "string" and R.suggest(k, keys)
  return err_obj(rule, tostring(k), "unknown key" .. (s and (" (did you mean `" .. s .. "`?)") or ""))
end

-- Canonical text of a definition (for the definition hash).
local function canon(v, seen)
  local tv = type(v)
  if tv == "table" then
    seen = seen or {}
    if seen[v] then return "<cycle>" end
    seen[v] = true
    local parts = {}
    for _, k in ipairs((function()
      local ks = {}
      for k in pairs(v) do ks[#ks + 1] = k end
      table.sort(ks, function(a, b) return tostring(a) < tostring(b) end)
      return ks
    end)()) do
      parts[#parts + 1] = tostring(k) .. "=" .. canon(v[k], seen)
    end
    seen[v] = nil
    return "{" .. table.concat(parts, ",") .. "}"
  elseif tv == "function" then
    local ok, d = pcall(string.dump, v, true)
    return ok and ("fn:" .. d) or "fn:?"
  elseif tv == "string" then
    return ("%q"):format(v)
  end
  return tostring(v)
end

local fnv1a = compat.fnv1a

--- Validate one rule definition; returns the normalized rule or nil, list of errors.
-- @tparam string name the rule's name (a word of `[%w_:.-]`)
-- @tparam table def the definition (`source`, `value`, `when` or `levels`, `pending`, ...)
-- @tparam[opt] table defaults a set's defaults (`set:defaults{...}`, already checked)
-- @treturn[1] table the normalized rule
-- @return[2] nil
-- @treturn[2] {table,...} errors: each `{rule =, key =, message =}`, the key nil for an error of
--   the whole rule; the message names the rule and key (rule "X": key `when`: ...)
function R.validate(name, def, defaults)
  local errs = {}
  if type(name) ~= "string" or name == "" or not smatch(name, "^[%w_:%.%-]+$") then
    return nil, { err_obj(tostring(name), nil, "rule name must be a word ([%w_:.-]+)") }
  end
  if type(def) ~= "table" then
    return nil, { err_obj(name, nil, "the definition must be a table: rule \"Name\" { ... }") }
  end
  local rule = { name = name }
  for k, v in pairs(def) do
    local chk = SCHEMA[k]
    if not chk then
      errs[#errs + 1] = unknown_key(name, k, SCHEMA_KEYS)
    elseif is_obj(v, "invalid") then
      errs[#errs + 1] = err_obj(name, k, invalid_message(v))
    else
      local nv, e = chk(v)
      if nv == nil then errs[#errs + 1] = err_obj(name, k, e) else rule[k] = nv end
    end
  end
  defaults = defaults or {}
  for k, v in pairs(defaults) do
    if rule[k] == nil and def[k] == nil then rule[k] = v end
  end
  if #errs == 0 then
    if rule.when == nil and rule.levels == nil then
      errs[#errs + 1] = err_obj(name, "when", "missing: a rule needs `when` or `levels`")
    elseif rule.when ~= nil and rule.levels ~= nil then
      errs[#errs + 1] = err_obj(name, "levels", "give either `when` or `levels`, not both")
    end
    if rule.levels and rule.severity and def.severity then
      errs[#errs + 1] = err_obj(name, "severity", "`levels` names the severities; drop `severity`")
    end
    if rule.source == nil and rule.sources == nil then
      errs[#errs + 1] = err_obj(name, "source", "missing: a counter path to watch")
    end
    if type(rule.when) ~= "function" and rule.source == nil and rule.sources then
      errs[#errs + 1] = err_obj(name, "source", "a threshold rule needs `source` (`sources` is for functions)")
    end
    if rule.every and rule.pending and rule.pending > 0 and rule.pending < rule.every then
      errs[#errs + 1] = err_obj(name, "pending", ("shorter than `every` (%gs < %gs)"):format(rule.pending, rule.every))
    end
    if rule.sustain and not rule.pending then
      errs[#errs + 1] = err_obj(name, "sustain", "a sustain ratio needs `pending`")
    end
  end
  local bad = rule.message and R.template_errors(rule.message, rule.labels)
  if bad then errs[#errs + 1] = err_obj(name, "message", bad) end
  if #errs > 0 then return nil, errs end
  rule.value = rule.value or R.last()
  rule.per = rule.per or "instance"
  rule.pending = rule.pending or 0
  rule.keep = rule.keep or 0
  rule.nodata = rule.nodata or { as = "unknown", samples = 1 }
  rule.vanish = rule.vanish or "resolve"
  rule.reset = rule.reset or "skip"
  rule.labels = rule.labels or {}
  rule.sustain = rule.sustain and rule.sustain.r or 1.0
  if rule.flap == nil then rule.flap = R.flap() end
  if not rule.levels then
    local sev = rule.severity or "warn"
    local fn = type(rule.when) == "function" and rule.when or nil
    rule.levels = { { severity = sev, fn = fn, cond = not fn and rule.when or nil, rank = R.SEVERITY[sev] } }
  end
  rule.hash = fnv1a(canon(def) .. canon(defaults))
  return rule
end

--- The fields a message template may name besides the rule's labels ({value:%.1f} takes a format).
R.TEMPLATE_FIELDS = { "age", "alertname", "instance", "severity", "value" }

--- Unknown {fields} in a message template: nil, or a message naming each with a suggestion.
-- @tparam string msg the template ("{instance} at {value:%.1f}%")
-- @tparam[opt] table labels the rule's labels, whose names the template may use too
-- @treturn ?string nil when every field is known, else one message naming them all
function R.template_errors(msg, labels)
  local known, names = {}, {}
  for _, f in ipairs(R.TEMPLATE_FIELDS) do known[f] = true; names[#names + 1] = f end
  for k in pairs(labels or {}) do
    if not known[k] then known[k] = true; names[#names + 1] = k end
  end
  table.sort(names)
  local out = {}
  for f in sgmatch(msg, "{([%w_]+):?[^}]*}") do
    if not known[f] then
      local s = R.suggest(f, names)
      out[#out + 1] = ("unknown field {%s}%s"):format(f, s and (" (did you mean {" .. s .. "}?)") or "")
    end
  end
  if #out == 0 then return nil end
  return table.concat(out, ", ") .. "; fields: " .. table.concat(names, ", ")
end

-- ---------------------------------------------------------------- sets

local Set = {}
Set.__index = Set

--- A new, empty rule set: add rules with `set:rule "Name" {...}`.
-- @treturn table the set (`rules`, `order`, `routes`, `errors`, ...)
function R.new()
  return setmetatable({ rules = {}, order = {}, routes = {}, inhibits = {}, silences = {}, errors = {},
                        defaults_ = {}, rejected = {} }, Set)
end

local function add_errs(set, errs)
  for _, e in ipairs(errs) do set.errors[#set.errors + 1] = e end
end

-- A definition the set refused: nil and the errors it added to set.errors since n0.
local function refused(set, n0)
  local errs = {}
  for i = n0 + 1, #set.errors do errs[#errs + 1] = set.errors[i] end
  return nil, errs
end

--- `set:rule "Name" { ... }`: validates; a bad rule is recorded in set.errors and left out.
-- Each definition method returns what it added, or nil and its errors (also
-- in set.errors, so that loading goes on and reports every mistake).
-- @tparam string name the rule's name
-- @treturn function taking the definition table and returning the normalized rule, or nil and
--   the errors (a name defined twice included)
function Set:rule(name)
  return function(def)
    if self.rules[name] then
      local n0 = #self.errors
      add_errs(self, { err_obj(name, nil, "defined twice (the first definition is kept)") })
      return refused(self, n0)
    end
    local rule, errs = R.validate(name, def, self.defaults_)
    if not rule then
      -- kept so that `perflua check` can still check the sources of a rule with errors
      self.rejected[#self.rejected + 1] = { name = name, def = def }
      add_errs(self, errs)
      return nil, errs
    end
    self.rules[name] = rule
    self.order[#self.order + 1] = name
    return rule
  end
end

function Set:defaults(t)
  local n0 = #self.errors
  if type(t) ~= "table" then
    add_errs(self, { err_obj(nil, "defaults", "must be a table") })
    return refused(self, n0)
  end
  local keys = sorted_keys(DEFAULTABLE)
  for k, v in pairs(t) do
    if not DEFAULTABLE[k] then
      add_errs(self, { unknown_key(part("defaults"), k, keys) })
    elseif is_obj(v, "invalid") then
      add_errs(self, { err_obj(part("defaults"), k, invalid_message(v)) })
    else
      local nv, e = SCHEMA[k](v)
      if nv == nil then add_errs(self, { err_obj(part("defaults"), k, e) }) else self.defaults_[k] = nv end
    end
  end
  if #self.errors > n0 then return refused(self, n0) end
  return self.defaults_
end

local function match_table(what, v)
  if v == nil then return {} end
  if type(v) ~= "table" then return nil, what .. " must be a table of label = value" end
  for k, x in pairs(v) do
    if type(k) ~= "string" or type(x) ~= "string" then return nil, what .. ": labels are string = string" end
  end
  return v
end

-- Record one error of a route, inhibition or silence, and go on with its other keys.
local function fail(set, e)
  add_errs(set, { e })
  return true
end

local ROUTE_KEYS = { "match", "actions", "group_by", "group_wait", "repeat_interval", "throttle", "continue" }
function Set:route(t)
  self.nroutes = (self.nroutes or 0) + 1      -- a rejected route counts: errors name routes as written
  local where = part("route", self.nroutes)
  local r, bad, n0 = {}, false, #self.errors
  for k, v in pairs(t) do
    if k == "match" then
      local m, e = match_table("match", v)
      if not m then bad = fail(self, err_obj(where, k, e)) end
      r.match = m
    elseif k == "group_wait" or k == "repeat_interval" then
      local s, e = R.duration(v)
      if not s then bad = fail(self, err_obj(where, k, e)) end
      r[k] = s
    elseif k == "actions" or k == "group_by" then
      if type(v) ~= "table" then bad = fail(self, err_obj(where, k, "must be a list")) end
      r[k] = v
    elseif k == "throttle" then
      if type(v) ~= "table" or type(v.rate) ~= "number" then
        bad = fail(self, err_obj(where, k, "must be { rate = per_second, burst = n }"))
      end
      r[k] = v
    elseif k == "continue" then
      r[k] = not not v
    else
      bad = fail(self, unknown_key(where, k, ROUTE_KEYS))
    end
  end
  for i, a in ipairs(r.actions or {}) do
    if is_obj(a, "invalid") then
      bad = fail(self, err_obj(where, "actions", ("entry %d: %s"):format(i, invalid_message(a))))
    elseif type(a) == "table" and W.KINDS[a.kind] then     -- a bad URL fails the load, not a send
      local ok, e = pcall(W.check, a, {}, ("action %d"):format(i))
      if not ok then bad = fail(self, err_obj(where, "actions", e)) end
    end
  end
  if bad then
    self.rejected[#self.rejected + 1] = { route = where.part, def = t }  -- its actions still get checked
    return refused(self, n0)
  end
  r.match = r.match or {}
  r.actions = r.actions or {}
  self.routes[#self.routes + 1] = r
  return r
end

function Set:inhibit(t)
  local where = part("inhibit", #self.inhibits + 1)
  local r, bad, n0 = {}, false, #self.errors
  for k, v in pairs(t) do
    if k == "source" or k == "target" then
      local m, e = match_table(k, v)
      if not m then bad = fail(self, err_obj(where, k, e)) end
      r[k] = m
    elseif k == "equal" then
      if type(v) ~= "table" then bad = fail(self, err_obj(where, k, "must be a list of label names")) end
      r[k] = v
    else
      bad = fail(self, unknown_key(where, k, { "source", "target", "equal" }))
    end
  end
  if bad then return refused(self, n0) end
  r.source, r.target, r.equal = r.source or {}, r.target or {}, r.equal or {}
  self.inhibits[#self.inhibits + 1] = r
  return r
end

function Set:silence(t)
  local where = part("silence", #self.silences + 1)
  local r, bad, n0 = {}, false, #self.errors
  for k, v in pairs(t) do
    if k == "match" then
      local m, e = match_table(k, v)
      if not m then bad = fail(self, err_obj(where, k, e)) end
      r.match = m
    elseif k == "expires" then
      if type(v) ~= "number" then
        bad = fail(self, err_obj(where, k, "must be a sample time (seconds)"))
      end
      r.expires = v
    elseif k == "why" then
      r.why = tostring(v)
    else
      bad = fail(self, unknown_key(where, k, { "match", "expires", "why" }))
    end
  end
  if bad then return refused(self, n0) end
  r.match = r.match or {}
  self.silences[#self.silences + 1] = r
  return r
end

--- A function called with every event the engine produces (transitions,
-- flap start and end, rule errors), after the rules of a sample are
-- evaluated: custom side effects that rules as data cannot express.  It runs
-- sandboxed and instruction-limited; an error is reported as an event and
-- disables that hook, never the rules.
-- @tparam function fn called with each event (a non-function raises)
-- @treturn function fn
function Set:on_transition(fn)
  if type(fn) ~= "function" then
    error("on_transition: a function expected, got " .. type(fn), 2)
  end
  self.hooks = self.hooks or {}
  self.hooks[#self.hooks + 1] = fn
  return fn
end

--- Rules in definition order.
-- @treturn {table,...} the normalized rules
function Set:list()
  local out = {}
  for i, n in ipairs(self.order) do out[i] = self.rules[n] end
  return out
end

-- ---------------------------------------------------------------- sandbox and load

--- A fresh safe environment for rules files and function conditions: no io, os, load, debug,
-- require; its own copies of math, string, table and utf8 (see perflib.rules.sandbox).
-- @tparam[opt] table extra more globals to put in it
-- @treturn table the environment
function R.safe_env(extra)
  return S.env(extra)
end

-- The DSL bound to one set: `R.rule "X" {...}` in a rules file adds to that set.
-- The constructors that raise on bad arguments; in a rules file they give an invalid object
-- instead, reported by the rule or route that uses it (every mistake of a file in one run).
local RAISING = { "avg", "min", "max", "pct", "rate", "increase", "share", "count", "flap", "ratio" }

-- "file:line: " of the rules file line that called a DSL function (level 3 from here).
local function caller_line()
  local info = debug.getinfo(3, "Sl")
  if info and info.currentline and info.currentline > 0 then
    return ("%s:%d: "):format(info.short_src, info.currentline)
  end
  return ""
end

-- `R.abve(90)` in a rules file: an error with a suggestion, and an invalid object.
local function unknown_function(set, k)
  local names = {}
  for name, v in pairs(R) do
    if type(v) == "function" and type(name) == "string" then names[#names + 1] = name end
  end
  table.sort(names)
  return function()
    local s = R.suggest(k, names)
    local msg = ("%sR.%s is not a function of perflib.rules%s"):format(caller_line(), k,
      s and (" (did you mean R." .. s .. "?)") or "")
    add_errs(set, { err_obj(nil, nil, msg) })
    return invalid(msg, true)
  end
end

local function bound_dsl(set)
  local B = setmetatable({}, { __index = function(_, k)
    local v = R[k]
    if v == nil and type(k) == "string" then return unknown_function(set, k) end
    return v
  end })
  for _, k in ipairs(RAISING) do
    local f = R[k]
    B[k] = function(...)
      local ok, v = pcall(f, ...)
      if ok then return v end
      return invalid(caller_line() .. tostring(v))
    end
  end
  function B.rule(name) return set:rule(name) end
  function B.route(t) return set:route(t) end
  function B.inhibit(t) return set:inhibit(t) end
  function B.silence(t) return set:silence(t) end
  function B.defaults(t) return set:defaults(t) end
  function B.on_transition(fn) return set:on_transition(fn) end
  return B
end

--- Load rules from a file path or Lua source, run in the sandbox (perflib.rules.sandbox):
-- opts.limit instructions (default 10,000,000), opts.memory bytes (default 64 MiB).
-- Returns the set (good rules) and a list of errors or nil; nil, errors when nothing loads.
-- A string with no newline and none of `({=` is a path.
-- @tparam string src a path or Lua source
-- @tparam[opt] table opts `limit` (instructions), `memory` (bytes)
-- @treturn[1] table the set
-- @treturn[1] ?{table,...} the errors of the rules left out (as @{validate}'s), or nil
-- @return[2] nil (unreadable file, syntax error, an error while loading, or no good rule)
-- @treturn[2] {table,...} the errors
function R.load(src, opts)
  opts = opts or {}
  local name, text = "=rules", src
  if type(src) ~= "string" then return nil, { err_obj(nil, nil, "R.load needs a path or Lua source") } end
  if not sfind(src, "\n", 1, true) and not sfind(src, "[%(%{=]") then
    local f, e = io.open(src, "r")
    if not f then return nil, { err_obj(nil, nil, "cannot read rules: " .. tostring(e)) } end
    text = f:read("*a"); f:close()
    name = "@" .. src
  end
  local set = R.new()
  local B = bound_dsl(set)
  local env = R.safe_env { R = B }
  env.require = function(m)
    if m == "perflib.rules" or m == "rules" then return B end
    error(("require %q is not available in a rules file"):format(tostring(m)), 2)
  end
  local chunk, cerr = compat.load(text, name, "t", env)
  if not chunk then return nil, { err_obj(nil, nil, "syntax: " .. tostring(cerr)) } end
  S.interpreted(chunk)
  local ok, ret = S.call(S.box(env, opts.limit or S.LOAD_LIMIT, opts.memory or S.LOAD_MEMORY), chunk)
  if not ok then
    add_errs(set, { err_obj(nil, nil, "error while loading: " .. tostring(ret)) })
    return nil, set.errors
  end
  if getmetatable(ret) == Set and ret ~= set then
    for _, e in ipairs(set.errors) do ret.errors[#ret.errors + 1] = e end
    set = ret
  end
  set.call_box = S.box(env)     -- where its call actions run (perflib.rules.notify)
  if #set.order == 0 and #set.errors > 0 then return nil, set.errors end
  return set, (#set.errors > 0) and set.errors or nil
end

R.Set = Set
--- `table.unpack` on every Lua (`unpack` on 5.1), for rules files and function conditions.
-- @function unpack
-- @tparam table t
-- @tparam[opt=1] integer i
-- @tparam[opt=#t] integer j
-- @return t[i], ..., t[j]
R.unpack = unpack
return R
