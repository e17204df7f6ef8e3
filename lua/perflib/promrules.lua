--- `perflua promrules RULES.lua`: the thresholds of a rules file as Prometheus
-- alerting rules (YAML: groups, rules with alert, expr, for, keep_firing_for,
-- labels, annotations), for users who evaluate in Prometheus over what
-- `perflua serve` exports.  A rule that PromQL cannot express (a Lua function
-- condition, a Lua pattern over instances, the cooked value of a counter whose
-- formula takes several raw values, ...) is listed as skipped with its reason,
-- never left out silently; what is dropped from a rule that is written (the
-- clearing side of a hysteresis) is said too.
-- @module perflib.promrules
local perflib = require "perflib"
local R = require "perflib.rules"
local T = require "perflib.rules.text"
local json = require "perflib.json"
local compat = require "perflib.compat"

local P = {}

--- The label that carries a counter's instance name in the exported series.
P.INSTANCE_LABEL = "instance_name"

-- Counter types whose raw value is cumulative (exported as a counter, `_total`)
-- and the factor that turns their raw value into base units; the rest are gauges.
local CUMULATIVE = {
  PERF_COUNTER_COUNTER = 1, PERF_COUNTER_BULK_COUNT = 1, PERF_COUNTER_DELTA = 1, PERF_COUNTER_LARGE_DELTA = 1,
  PERF_SAMPLE_COUNTER = 1, PERF_COUNTER_TIMER = 1, PERF_COUNTER_TIMER_INV = 1, PERF_100NSEC_TIMER = 1e-7,
  PERF_100NSEC_TIMER_INV = 1e-7, PERF_PRECISION_100NS_TIMER = 1e-7, PERF_100NSEC_MULTI_TIMER = 1e-7,
  PERF_100NSEC_MULTI_TIMER_INV = 1e-7,
}
-- Cumulative types whose cooked value is a function of the per-second rate of the
-- exported series alone (raw x factor): the rate itself, or the share of time in percent.
local function same(r) return r, true end
local COOKED = {
  PERF_COUNTER_COUNTER = same, PERF_COUNTER_BULK_COUNT = same,
  PERF_100NSEC_TIMER = function(r) return "100 * " .. r end,
  PERF_PRECISION_100NS_TIMER = function(r) return "100 * " .. r end,
  PERF_100NSEC_TIMER_INV = function(r) return ("100 * (1 - %s)"):format(r) end,
}

local function words(s)
  return (s:lower():gsub("%%", " percent "):gsub("[^%w]+", "_"):gsub("^_+", ""):gsub("_+$", ""))
end

--- The exported metric of a counter: its name, "counter" or "gauge", and the
-- factor from raw values to base units.  Uses `perflib.metric_name` where the
-- library has it; until then the same rule from the counter type alone:
-- `perflib_<set>_<counter>` lower-cased, '%' -> 'percent', other runs -> '_',
-- '/sec' dropped for cumulative counters, `_seconds` for 100 ns timers, `_total`
-- for cumulative counters.
-- @string set counterset name
-- @tparam table info the counter's info (`name`, `type_name`)
-- @treturn string name
-- @treturn string "counter" or "gauge"
-- @treturn number factor
function P.metric_name(set, info)
  if perflib.metric_name then
    return perflib.metric_name(("\\%s\\%s"):format(set, info.name))
  end
  local factor = CUMULATIVE[info.type_name]
  local name = info.name
  if factor then name = name:gsub("/[Ss]ec$", "") end
  local m = "perflib_" .. words(set) .. "_" .. words(name)
  if factor == 1e-7 and not m:find "_seconds$" then m = m .. "_seconds" end
  if factor and not m:find "_total$" then m = m .. "_total" end
  return m, factor and "counter" or "gauge", factor or 1
end

-- Durations as Prometheus writes them: 1h30m, 90s -> 1m30s, 0.5 -> 500ms.
local function prom_duration(s)
  local ms = math.floor(s * 1000 + 0.5)
  if ms == 0 then return "0s" end
  local out = {}
  for _, u in ipairs { { "h", 3600000 }, { "m", 60000 }, { "s", 1000 }, { "ms", 1 } } do
    local n = compat.idiv(ms, u[2])
    if n > 0 then out[#out + 1] = ("%d%s"):format(n, u[1]) end
    ms = ms % u[2]
  end
  return table.concat(out)
end
--- A duration as Prometheus writes it, rounded to milliseconds: 5400 -> "1h30m",
-- 90 -> "1m30s", 0.5 -> "500ms", 0 -> "0s".
-- @function duration
-- @tparam number s seconds (not negative)
-- @treturn string
P.duration = prom_duration

local function num(x) return json.number(x) end

-- Label matchers from the path's instance part and the rule's literal filters.
local function matchers(rule, spec)
  local m = {}
  local inst = spec.instance
  if inst and inst ~= "*" and inst ~= "" then
    if inst:find "[*?]" then
      local re = inst:gsub("[%^%$%(%)%.%[%]%+%-{}|\\]", "\\%0"):gsub("%*", ".*"):gsub("%?", ".")
      m[#m + 1] = ("%s=~%s"):format(P.INSTANCE_LABEL, json.string(re))
    else
      m[#m + 1] = ("%s=%s"):format(P.INSTANCE_LABEL, json.string(inst))
    end
  end
  for key, op in pairs { instances = "=", exclude = "!=" } do
    local pat = rule[key]
    if pat then
      local lit = pat:match "^%^([%w_%-:]*)%$$"
      if not lit then return nil, ("`%s` is a Lua pattern (%q): only \"^name$\" has a PromQL form"):format(key, pat) end
      m[#m + 1] = ("%s%s%s"):format(P.INSTANCE_LABEL, op, json.string(lit))
    end
  end
  table.sort(m)
  return #m > 0 and ("{" .. table.concat(m, ",") .. "}") or ""
end

local OVER_TIME = { avg = "avg_over_time", min = "min_over_time", max = "max_over_time" }

-- The PromQL of the rule's value over series sel, and the factor thresholds take; or nil, why.
local function value_expr(rule, sel, kind, factor, type_name)
  local v = rule.value
  local w = v.window and v.window > 0 and prom_duration(v.window)
  local over = OVER_TIME[v.fn]
  if v.fn == "pct" then over = ("quantile_over_time(%s, "):format(num(v.p / 100)) end
  if kind == "gauge" then
    if v.fn == "last" or v.fn == "raw" then return sel, 1 end
    if v.fn == "rate" or v.fn == "increase" then
      return nil, ("R.%s of a gauge (%s): Prometheus' %s is for counters"):format(v.fn, type_name, v.fn)
    end
    if v.fn == "pct" then return over .. sel .. "[" .. w .. "])", 1 end
    return ("%s(%s[%s])"):format(over, sel, w), 1
  end
  -- cumulative: exported in base units (raw x factor); thresholds on raw values scale alike
  if v.fn == "rate" or v.fn == "increase" then return ("%s(%s[%s])"):format(v.fn, sel, w), factor end
  if v.fn == "raw" then return sel, factor end
  local cook = COOKED[type_name]
  if not cook then
    return nil, ("the cooked value of a %s counter is a formula over several raw values; use R.rate or R.raw"
      .. " to export the rule"):format(type_name)
  end
  -- a plain rate is in base units (thresholds scale by factor); a share of time is in percent
  local e, is_rate = cook(("rate(%s[%s])"):format(sel, v.fn == "avg" and w or "1m"))  -- 1m: two scrapes at least
  local scale = is_rate and factor or 1
  if v.fn == "last" or v.fn == "avg" then return e, scale end
  if v.fn == "pct" then return over .. e .. "[" .. w .. ":])", scale end
  return ("%s(%s[%s:])"):format(over, e, w), scale
end

-- {value}, {value:%.1f}, {instance} and {label} in a message, as Go templates.
local function template(msg)
  return (msg:gsub("{([%w_]+):?([^}]*)}", function(k, fmt)
    if k == "value" then
      return fmt ~= "" and ('{{ printf "%s" $value }}'):format(fmt) or "{{ $value }}"
    elseif k == "instance" then
      return ("{{ $labels.%s }}"):format(P.INSTANCE_LABEL)
    elseif k == "age" then
      return "{{ $labels.alertname }} active"
    end
    return ("{{ $labels.%s }}"):format(k)
  end))
end

local AGG = {
  any = function(c) return ("count(%s) >= 1"):format(c) end,
  all = function(c, e) return ("count(%s) == count(%s)"):format(c, e) end,
  share = function(c, e, per) return ("count(%s) / count(%s) >= %s"):format(c, e, num(per.p)) end,
  count = function(c, _, per)
    if per.op == ">=" or per.op == ">" then return ("count(%s) %s %d"):format(c, per.op, per.n) end
  end,
}

-- The Prometheus rules of one perflib rule (one per level), or nil, why; and notes.
local function convert(rule)
  if type(rule.when) == "function" or not rule.source then return nil, "a Lua function condition" end
  local q = perflib.query()
  local i, msg, status = q:add(rule.source)
  local spec = i and q:specs()[i]
  q:close()
  if not spec then return nil, ("source %s: %s"):format(rule.source, msg or status) end
  local cs = perflib.counterset(spec.counterset)
  local info = cs and spec.counters[1] and cs:counter(spec.counters[1])
  if not info or #spec.counters ~= 1 then
    return nil, ("source %s: not one counter of this machine"):format(rule.source)
  end
  local metric, kind, factor = P.metric_name(spec.counterset, info)
  local sel, why = matchers(rule, spec)
  if not sel then return nil, why end
  local expr, scale = value_expr(rule, metric .. sel, kind, factor, info.type_name)
  if not expr then return nil, scale end
  local out, notes = {}, {}
  for _, lv in ipairs(rule.levels) do
    local c = lv.cond
    local cond = ("%s %s %s"):format(expr, c.op, num(c.x * scale))
    if c.clear then
      notes[#notes + 1] = ("%s: hysteresis (clears at %s) dropped: Prometheus has none"):format(lv.severity,
        num(c.clear))
    end
    local per = type(rule.per) == "table" and rule.per or nil
    if per then
      cond = AGG[per.name] and AGG[per.name](cond, expr, per)
      if not cond then return nil, ("per = R.count(%q, %d) has no PromQL form (count of nothing is no value)")
        :format(per.op, per.n) end
    end
    local labels = { severity = lv.severity }
    for k, v in pairs(rule.labels or {}) do labels[k] = tostring(v) end
    out[#out + 1] = { alert = rule.name, expr = cond, ["for"] = rule.pending > 0 and prom_duration(rule.pending),
      keep_firing_for = rule.keep > 0 and prom_duration(rule.keep), labels = labels,
      annotations = { summary = template(rule.message or (rule.name .. " on {instance}: {value}")),
                      perflib_source = rule.source } }
  end
  return out, nil, notes
end

local function yaml_map(lines, indent, t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do lines[#lines + 1] = ("%s%s: %s"):format(indent, k, json.string(t[k])) end
end

--- The YAML text of a rule set and the list of skipped rules ({ name, why }) and notes.
-- @param set a loaded rule set (perflib.rules)
-- @treturn string YAML
-- @treturn table skipped
-- @treturn table notes
function P.convert(set)
  local groups, order, skipped, notes = {}, {}, {}, {}
  for _, name in ipairs(set.order) do
    local rule = set.rules[name]
    local list, why, n = convert(rule)
    if not list then
      skipped[#skipped + 1] = { name = name, why = why }
    else
      for _, note in ipairs(n) do notes[#notes + 1] = ("%s %s"):format(name, note) end
      local every = rule.every and prom_duration(rule.every) or "default"
      if not groups[every] then groups[every] = {}; order[#order + 1] = every end
      for _, r in ipairs(list) do table.insert(groups[every], r) end
    end
  end
  local lines = { "# perflua promrules: Prometheus alerting rules from a perflib rules file", "groups:" }
  if #order == 0 then lines[2] = "groups: []" end
  for _, every in ipairs(order) do
    lines[#lines + 1] = ("  - name: %s"):format(json.string("perflib_" .. every))
    if every ~= "default" then lines[#lines + 1] = ("    interval: %s"):format(every) end
    lines[#lines + 1] = "    rules:"
    for _, r in ipairs(groups[every]) do
      lines[#lines + 1] = ("      - alert: %s"):format(json.string(r.alert))
      lines[#lines + 1] = ("        expr: %s"):format(json.string(r.expr))
      if r["for"] then lines[#lines + 1] = ("        for: %s"):format(r["for"]) end
      if r.keep_firing_for then lines[#lines + 1] = ("        keep_firing_for: %s"):format(r.keep_firing_for) end
      lines[#lines + 1] = "        labels:"
      yaml_map(lines, "          ", r.labels)
      lines[#lines + 1] = "        annotations:"
      yaml_map(lines, "          ", r.annotations)
    end
  end
  return table.concat(lines, "\n") .. "\n", skipped, notes
end

--- Entry point kept for callers of the old interface (perflua promrules ARGS, parsed by
-- perflib.cli): returns the exit status.
-- @tparam {string,...} args the arguments after `promrules`
-- @tparam[opt] file out default `io.stdout`
-- @tparam[opt] file err default `io.stderr`
-- @treturn integer the exit status
function P.main(args, out, err)
  local argv = { "promrules" }
  for k = 1, #args do argv[k + 1] = args[k] end
  return require("perflib.cli").main(argv, out, err)
end

--- `perflua promrules RULES.lua [-o FILE]`: writes the YAML to out (or to the file dest),
-- the skipped rules and notes to err; returns the exit status (0, 1 when no rule could be
-- written, 2 for a rules file that does not load or an output file that cannot be written).
-- @tparam string path the rules file
-- @tparam[opt] string dest a file to write the YAML to (nil: out)
-- @tparam[opt=io.stdout] file out
-- @tparam[opt=io.stderr] file err
-- @treturn integer the exit status
function P.run(path, dest, out, err)
  out, err = out or io.stdout, err or io.stderr
  local set, errors = R.load(path)
  for _, e in ipairs(errors or {}) do
    err:write(T.escape(("perflua: %s: %s"):format(path, type(e) == "table" and e.message or tostring(e))), "\n")
  end
  if not set then return 2 end
  local yaml, skipped, notes = P.convert(set)
  for _, s in ipairs(skipped) do
    err:write(T.escape(("perflua promrules: skipped rule %q: %s"):format(s.name, s.why)), "\n")
  end
  for _, n in ipairs(notes) do err:write(T.escape("perflua promrules: note: rule " .. n), "\n") end
  if dest then
    local f, msg = io.open(dest, "w")
    if not f then err:write(("perflua: promrules: %s\n"):format(msg)) return 2 end
    f:write(yaml)
    f:close()
  else
    out:write(yaml)
  end
  local written = #set.order - #skipped
  err:write(("perflua promrules: %d rule(s) written, %d skipped\n"):format(written, #skipped))
  return written > 0 and 0 or 1
end

return P
