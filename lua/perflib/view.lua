--- The live status view of `perflua monitor --view` (the main job of
-- `make run`): every rule with the state of its alerts and its current
-- values (firing and pending instances first, then the highest values),
-- then the latest transitions.  On a terminal a screen on ncurses
-- (perflib.term, through perflib.screen); otherwise plain blocks of text.
-- @module perflib.view

local T = require "perflib.rules.text"
local P = require "perflib.pretty"
local S = require "perflib.screen"
local compat = require "perflib.compat"

local V = {}

local ORDER = { firing = 1, recovering = 2, pending = 3, unknown = 4 }
-- how urgent an instance is: firing crit first, ok last
local RANK = { crit = 1, warn = 2, info = 3 }
local SEVERITY_STYLE = { crit = "crit", warn = "warn", info = "info" }

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

-- An instance's place: firing (by severity), recovering, pending, the rest.
local function rank(a)
  if not a then return 9 end
  if a.state == "firing" then return RANK[a.severity] or 4 end
  if a.state == "recovering" then return 5 end
  if a.state == "pending" then return 6 end
  return 9
end

local function by_urgency(a, b)
  if a.rank ~= b.rank then return a.rank < b.rank end
  local va, vb = type(a.value) == "number" and a.value, type(b.value) == "number" and b.value
  if va and vb and va ~= vb then return va > vb end
  if (va and true) ~= (vb and true) then return va and true or false end
  return a.instance < b.instance
end

-- The style of a rule or an instance in its state.
local function style_of(state, severity)
  if state == "firing" or state == "recovering" then return SEVERITY_STYLE[severity] or "warn" end
  if state == "pending" then return "pending" end
  if state == "disabled" or state == "unknown" then return "dim" end
  return "ok"
end

--- One rule as data: its alerts summary, state (the most urgent of its
-- alerts), and its instances' values, the most urgent first.
-- @param eng the engine
-- @param rule a rule of the engine
-- @param frame the latest frame (or nil)
-- @treturn table|nil `{ name=, summary=, state=, severity=, style=, values = { {instance=, value=, text=, style=} } }`
function V.rule_model(eng, rule, frame)
  local x = eng:explain(rule.name)
  if not x then return nil end
  if x.disabled then
    return { name = rule.name, state = "disabled", style = "dim", summary = "disabled: " .. tostring(x.error),
             values = {} }
  end
  local counts, parts, by_inst = {}, {}, {}
  local best = { state = "ok", r = 10 }
  for _, a in ipairs(x.alerts or {}) do
    if ORDER[a.state] then
      local key = a.state .. (a.severity and a.state ~= "pending" and (" " .. a.severity) or "")
      counts[key] = (counts[key] or 0) + 1
      local inst = a.labels and a.labels.instance or ""
      if rank(a) < rank(by_inst[inst]) then by_inst[inst] = a end
      local r = a.state == "unknown" and 8 or rank(a)
      if r < best.r then best = { state = a.state, severity = a.severity, r = r } end
    end
  end
  for key, n in pairs(counts) do parts[#parts + 1] = ("%d %s"):format(n, key) end
  table.sort(parts)
  local unit, vals = unit_of(rule), {}
  -- the latest sample's values (the rule's own value is computed when it is due)
  for _, inst in ipairs(frame_values(rule, frame) or x.instances or {}) do
    local v = inst.value
    if v == nil and inst.window and #inst.window > 0 then v = inst.window[#inst.window].v end
    local a = by_inst[inst.instance]
    vals[#vals + 1] = { instance = inst.instance, value = v, rank = rank(a),
      text = (inst.instance ~= "" and (inst.instance .. "=") or "") .. P.quantity(v, unit, fmt(v)),
      style = a and style_of(a.state, a.severity) or "ok" }
  end
  table.sort(vals, by_urgency)
  return { name = rule.name, summary = #parts > 0 and table.concat(parts, ", ") or "ok", state = best.state,
           severity = best.severity, style = style_of(best.state, best.severity), values = vals }
end

--- The whole screen as data: `{ seq=, interval=, path=, time=, rules = {rule models}, recent = {lines},
-- notes = {lines}, firing=, pending=, worst = style }`.
-- @param eng the engine
-- @tparam table info `{ seq =, interval =, path =, recent = {lines...}, frame = the latest frame, notes = }`
function V.model(eng, info)
  local m = { seq = info.seq or 0, interval = info.interval or 1, path = info.path or "",
              time = info.time or os.date("%H:%M:%S"), rules = {}, recent = info.recent or {},
              notes = info.notes or {}, firing = 0, pending = 0, worst = "ok" }
  local worst = 10
  for _, rule in ipairs(eng.rules or {}) do
    local r = V.rule_model(eng, rule, info.frame)
    if r then
      m.rules[#m.rules + 1] = r
      if r.state == "firing" or r.state == "recovering" then m.firing = m.firing + 1 end
      if r.state == "pending" then m.pending = m.pending + 1 end
      local k = r.state == "pending" and 6 or r.state == "firing" and (RANK[r.severity] or 4) or 10
      if k < worst then worst, m.worst = k, r.style end
    end
  end
  return m
end

-- The values of a rule that fit in `w` columns (all when w is nil: at most
-- four then, as the plain view always showed), then "+N more".
local function values_text(vals, w)
  local out, used, n = {}, 0, #vals
  local limit = w and n or math.min(4, n)
  local reserve = #tostring(n) + 7           -- room for " +N more" (N has no more digits than n)
  for i = 1, limit do
    local piece = T.escape(vals[i].text)
    local c = S.cols(piece)
    if w and i > 1 and used + c + 1 + (i < n and reserve or 0) > w then break end
    out[#out + 1] = piece
    used = used + c + 1
  end
  if n > #out then out[#out + 1] = ("+%d more"):format(n - #out) end
  return table.concat(out, " ")
end

-- Below 80 columns the name and alerts columns narrow, so values still show.
local function rule_text(r, w)
  local nw, aw = 18, 24
  if w and w < 80 then nw, aw = 14, 12 end
  local head = S.pad(T.escape(r.name), nw) .. " " .. S.pad(T.escape(r.summary), aw) .. " "
  if not w then head = ("%-18s %-24s "):format(T.escape(r.name), T.escape(r.summary)) end
  return head .. values_text(r.values, w and math.max(0, w - S.cols(head)))
end

local function header(m)
  return ("perflua monitor · %s · sample %d · every %g s · %s"):format(m.time, m.seq, m.interval, m.path)
end

--- The whole screen as text, every line escaped (perflib.rules.text.escape).
-- @param eng the engine
-- @tparam table info `{ seq =, interval =, path =, recent = {lines...}, frame = the latest frame }`
function V.render(eng, info)
  if not info.notes then info.notes = V.notes(eng) end
  local m = V.model(eng, info)
  local out = { header(m) .. " · Ctrl-C stops, HUP reloads", "", ("%-18s %-24s %s"):format("rule", "alerts", "values") }
  for _, r in ipairs(m.rules) do out[#out + 1] = rule_text(r) end
  for _, n in ipairs(m.notes) do out[#out + 1] = "note: " .. n end
  out[#out + 1] = ""
  out[#out + 1] = "recent transitions:"
  local recent = m.recent
  if #recent == 0 then out[#out + 1] = "  (none yet)" end
  for i = math.max(1, #recent - 9), #recent do out[#out + 1] = "  " .. recent[i] end
  -- instance names are other users' text (a process may name itself "\27[2J")
  for i, line in ipairs(out) do out[i] = T.escape(line) end
  return table.concat(out, "\n")
end

V.KEYS = {
  { "q", "quit" }, { "?", "these keys (any key returns)" }, { "up/down j/k", "scroll one rule" },
  { "PgUp/PgDn", "scroll one page" }, { "Home/End", "first / last rule" },
}
V.LEGEND = {
  { "ok: no alert", "ok" }, { "pending: the condition holds, not yet for its pending time", "pending" },
  { "firing info", "info" }, { "firing warn", "warn" }, { "firing crit", "crit" },
  { "disabled or no data", "dim" },
}

--- The screen as rows for a terminal of `h` rows and `w` columns: row 1
-- the status line (in the colour of the worst state), row 2 the column
-- titles, then the rules from `top` on, the notes and the latest
-- transitions.  Every row fits in `w` columns.
-- @tparam table m a model (V.model)
-- @tparam integer h rows
-- @tparam integer w columns
-- @tparam[opt] table st `{ top = first rule shown, help = show the keys }`
-- @treturn table rows `{ {text=, style=}, ... }`, at most h
-- @treturn integer rules shown per page
function V.layout(m, h, w, st)
  st = st or {}
  if st.help then return S.help_rows("perflua monitor: keys", V.KEYS, V.LEGEND, w, h), 1 end
  local rows = {}
  local function add(text, style)
    rows[#rows + 1] = { text = text == "" and "" or S.fit(T.escape(text), w), style = style }
  end
  local state = m.firing > 0 and ("%d firing"):format(m.firing) or m.pending > 0 and "" or "all ok"
  if m.pending > 0 then state = state .. (state ~= "" and ", " or "") .. ("%d pending"):format(m.pending) end
  add(("perflua monitor · %s · %s · sample %d · every %g s · ? keys, q quits · %s"):format(m.time, state, m.seq,
    m.interval, m.path), "status_" .. (m.worst == "dim" and "ok" or m.worst))
  if h < 2 then return rows, 0 end
  -- the transitions take the last rows when there is room: a title and 5 lines (2 on a
  -- small screen), always the same rows so that the rules do not move when one comes
  local nrecent = h >= 18 and 5 or h >= 12 and 2 or 0
  local nnotes = h >= 12 and #m.notes or 0
  local page = math.max(0, h - 2 - nnotes - (nrecent > 0 and nrecent + 1 or 0))
  local first = math.max(1, math.min(st.top or 1, #m.rules - page + 1))
  local title = w < 80 and ("%-14s %-12s %s"):format("rule", "alerts", "values")
    or ("%-18s %-24s %s"):format("rule", "alerts", "values")
  if #m.rules > page and w >= 32 then      -- where the page is, when there is room to say it
    local pos = ("[%d-%d of %d]"):format(first, math.min(#m.rules, first + page - 1), #m.rules)
    title = S.pad(title, math.max(0, w - #pos - 1)) .. " " .. pos
  end
  add(title, "title")
  for i = first, math.min(#m.rules, first + page - 1) do
    local r = m.rules[i]
    rows[#rows + 1] = { text = S.fit(rule_text(r, w), w), style = r.style }
  end
  for _ = #rows + 1, 2 + page do add("", "normal") end
  for i = 1, nnotes do add("note: " .. m.notes[i], "warn") end
  if nrecent > 0 then
    add("recent transitions:", "title")
    if #m.recent == 0 then add("  (none yet)", "dim") end
    for i = math.max(1, #m.recent - nrecent + 1), #m.recent do add("  " .. m.recent[i], "normal") end
  end
  while #rows < h do add("", "normal") end
  return rows, page
end

--- Why rules show nothing for this user: a note for each set of the
-- engine's sources that needs root (perflib.screen.note); once per engine.
local noted = setmetatable({}, { __mode = "k" })
function V.notes(eng)
  if noted[eng] then return noted[eng] end
  local paths = {}
  for _, src in ipairs(eng.sources and eng:sources() or {}) do paths[#paths + 1] = src.path end
  local out = {}
  for _, set in ipairs(S.sets_of(paths)) do
    local n = S.note(set)
    if n then out[#out + 1] = n end
  end
  noted[eng] = out
  return out
end

-- A file-like sink for what the monitor says while the screen is up: its
-- lines join the transitions on the screen; errors are written out again
-- when the screen is gone.
local Sink = {}
Sink.__index = Sink
function Sink:write(...)
  self.buf = self.buf .. table.concat({ ... })
  for line in self.buf:gmatch "(.-)\n" do
    self.lines[#self.lines + 1] = line
    if #self.lines > 50 then table.remove(self.lines, 1) end
    if self.keep then self.keep[#self.keep + 1] = line end
  end
  self.buf = self.buf:match "[^\n]*$"
  return self
end
function Sink:flush() return self end

--- The monitor's screen on this terminal, or nil when standard output is
-- not one.  `screen.out` and `screen.err` stand for the monitor's output
-- while the screen is up; `screen:frame(eng, info)` draws a frame,
-- `screen:wait(due)` handles keys until then (perflib.screen), and
-- `screen:close(err)` gives the terminal back and writes the errors to err.
function V.open()
  local lines = {}
  local ui
  ui = S.live(function(live, h, w)
    if not live.model then return {} end
    local rows, page = V.layout(live.model, h, w, live)
    live.page, live.n = math.max(1, page), #live.model.rules
    return rows
  end)
  if not ui then return nil end
  ui.out = setmetatable({ buf = "", lines = lines }, Sink)
  ui.err = setmetatable({ buf = "", lines = lines, keep = {} }, Sink)
  function ui.frame(self, eng, info)
    -- what the monitor said joins its transitions, in the order they came
    local recent = info.recent or {}
    for i, l in ipairs(lines) do
      recent[#recent + 1] = l
      lines[i] = nil
    end
    while #recent > 50 do table.remove(recent, 1) end
    info.recent, info.notes = recent, V.notes(eng)
    self.model = V.model(eng, info)
    self:draw()
  end
  local close = ui.close
  function ui.close(self, err)
    close(self)
    if err then
      for _, l in ipairs(self.err.keep) do err:write(l, "\n") end
      self.err.keep = {}
      err:flush()
    end
  end
  return ui
end

return V
