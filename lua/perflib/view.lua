--- The live status view of `perflua monitor --view` (the main job of
-- `make run`): every rule with the state of its alerts and its current
-- values, then the latest transitions.
-- @module perflib.view

local T = require "perflib.rules.text"
local P = require "perflib.pretty"
local compat = require "perflib.compat"

local V = {}

local ORDER = { firing = 1, recovering = 2, pending = 3, unknown = 4 }

local function fmt(v)
  if v == nil then return "-" end
  if compat.math_type(v) == "integer" then return tostring(v) end
  local a = math.abs(v)
  if a >= 1e9 then return ("%.2fG"):format(v / 1e9) end
  if a >= 1e6 then return ("%.2fM"):format(v / 1e6) end
  if a >= 1e4 then return ("%.0f"):format(v) end
  return ("%.2f"):format(v)
end

-- The formatted unit of a rule's source counter ("" when unknown, a wildcard
-- counter, or a raw value), by path; looked up once per path.
local units = {}
local function unit_of(rule)
  local path = rule.source
  if type(path) ~= "string" or (type(rule.value) == "table" and rule.value.fn == "raw") then return "" end
  if units[path] == nil then
    local set, counter = path:match "^\\([^\\(]+)%b()\\([^\\]+)$"
    if not set then set, counter = path:match "^\\([^\\(]+)\\([^\\]+)$" end
    local ok, perflib = pcall(require, "perflib")
    local cs = ok and set and perflib.counterset(set)
    local c = cs and cs:counter(counter)
    units[path] = c and c.formatted_unit or ""
  end
  return units[path]
end

--- The instances a rule looks at in a frame, with their current values.
local function frame_values(rule, frame)
  local f = frame and rule.source and frame[rule.source]
  if not f or not f.instances then return nil end
  local list = {}
  for _, name in ipairs(f.instances) do
    local inc = type(rule.instances) ~= "string" or name:find(rule.instances) ~= nil
    local exc = type(rule.exclude) == "string" and name:find(rule.exclude) ~= nil
    if inc and not exc then list[#list + 1] = { instance = name, value = f.value[name] } end
  end
  return list
end

--- One line per rule: what is active, and the instance values the rule sees.
local function rule_line(eng, rule, frame)
  local x = eng:explain(rule.name)
  if not x then return nil end
  if x.disabled then
    return ("%-18s disabled: %s"):format(rule.name, tostring(x.error))
  end
  local counts, parts = {}, {}
  for _, a in ipairs(x.alerts or {}) do
    if ORDER[a.state] then
      local key = a.state .. (a.severity and a.state ~= "pending" and (" " .. a.severity) or "")
      counts[key] = (counts[key] or 0) + 1
    end
  end
  for key, n in pairs(counts) do parts[#parts + 1] = ("%d %s"):format(n, key) end
  table.sort(parts)
  local vals, shown, unit = {}, 0, unit_of(rule)
  -- the latest sample's values (the rule's own value is computed when it is due)
  local insts = frame_values(rule, frame) or x.instances or {}
  for _, inst in ipairs(insts) do
    if shown < 4 then
      -- the rule's value is computed when the rule is due; until then, the latest sample
      local v = inst.value
      if v == nil and inst.window and #inst.window > 0 then v = inst.window[#inst.window].v end
      vals[#vals + 1] = (inst.instance ~= "" and (inst.instance .. "=") or "") .. P.quantity(v, unit, fmt(v))
      shown = shown + 1
    end
  end
  if #insts > shown then vals[#vals + 1] = ("+%d more"):format(#insts - shown) end
  return ("%-18s %-24s %s"):format(rule.name, #parts > 0 and table.concat(parts, ", ") or "ok",
    table.concat(vals, " "))
end

--- The whole screen as text, every line escaped (perflib.rules.text.escape).
-- @param eng the engine
-- @tparam table info `{ seq =, interval =, path =, recent = {lines...}, frame = the latest frame }`
function V.render(eng, info)
  local out = {}
  out[#out + 1] = ("perflua monitor · %s · sample %d · every %g s · %s · Ctrl-C stops, HUP reloads")
    :format(os.date("%H:%M:%S"), info.seq or 0, info.interval or 1, info.path or "")
  out[#out + 1] = ""
  out[#out + 1] = ("%-18s %-24s %s"):format("rule", "alerts", "values")
  for _, rule in ipairs(eng.rules or {}) do
    local line = rule_line(eng, rule, info.frame)
    if line then out[#out + 1] = line end
  end
  out[#out + 1] = ""
  out[#out + 1] = "recent transitions:"
  local recent = info.recent or {}
  if #recent == 0 then out[#out + 1] = "  (none yet)" end
  for i = math.max(1, #recent - 9), #recent do out[#out + 1] = "  " .. recent[i] end
  -- instance names are other users' text (a process may name itself "\27[2J")
  for i, line in ipairs(out) do out[i] = T.escape(line) end
  return table.concat(out, "\n")
end

return V
