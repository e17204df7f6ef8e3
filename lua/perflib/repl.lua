--- What the `perflua` REPL adds to a Lua session: `help()`, Tab completion
-- of names, methods and counter paths, and results printed with their units.
-- perflua (src/host/repl.c) calls `complete` on Tab and `print` for every
-- result; `install` puts `help` and `show` in the globals. All of it works
-- without a terminal, so it is tested in busted.
-- @module perflib.repl

local perflib = require "perflib"
local P = require "perflib.pretty"
local T = require "perflib.rules.text"

local R = {}

--- The Machine that completion, help and the grids look at (nil: this one).
R.machine = nil

local ok_data, helpdata = pcall(require, "perflib.helpdata")   -- generated; embedded in perflua
if not ok_data or type(helpdata) ~= "table" then helpdata = {} end

local function out(s) io.stdout:write(s, "\n") end

local WIDTH = 79                      -- help lines fit an 80-column terminal

local function pad(s, w, right)
  local fill = (" "):rep(math.max(0, w - #s))
  return right and fill .. s or s .. fill
end

--- Words of s in lines of at most w columns, each indented by two spaces.
local function wrap(s, w)
  local lines, line = {}, ""
  for word in s:gmatch("%S+") do
    if #line > 0 and #line + 1 + #word > w - 2 then
      lines[#lines + 1] = "  " .. line
      line = word
    else
      line = #line > 0 and (line .. " " .. word) or word
    end
  end
  if #line > 0 then lines[#lines + 1] = "  " .. line end
  return table.concat(lines, "\n")
end

local function cut(s, w)
  if #s <= w then return s end
  return s:sub(1, math.max(0, w - 3)) .. "..."
end

-- {=============================================== completion

--- Where an unterminated string literal starts in `s` (the text before the
-- cursor): the index of its first content byte and its quote (`"`, `'` or
-- the closing long bracket); nil outside a string.
local function open_string(s)
  local i, n = 1, #s
  while i <= n do
    local c = s:sub(i, i)
    if c == '"' or c == "'" then
      local j = i + 1
      while j <= n do
        local d = s:sub(j, j)
        if d == "\\" then j = j + 2
        elseif d == c then break
        else j = j + 1 end
      end
      if j > n then return i + 1, c end
      i = j + 1
    elseif c == "[" and s:match("^%[=*%[", i) then
      local open = s:match("^%[=*%[", i)
      local close = "]" .. open:sub(2, -2) .. "]"
      local e = s:find(close, i + #open, true)
      if not e then return i + #open, close end
      i = e + #close
    elseif c == "-" and s:sub(i, i + 1) == "--" then
      return nil                      -- a comment: nothing to complete
    else
      i = i + 1
    end
  end
  return nil
end

local function unescape(s, quote)
  if #quote > 1 then return s end
  return (s:gsub("\\(.)", function(c) return c end))
end

local function escape(s, quote)
  if #quote > 1 then return s end
  return (s:gsub("[\\\"'%c]", function(c)
    if c == "\\" or c == quote then return "\\" .. c end
    if c:match("%c") then return ("\\%03d"):format(c:byte()) end
    return c
  end))
end

local function starts(s, prefix)
  return s:sub(1, #prefix):lower() == prefix:lower()
end

local function sorted_names(list)
  table.sort(list)
  return list
end

--- Every counter path that can follow `text` (unescaped string content).
local function path_candidates(text)
  if text:sub(1, 1) ~= "\\" or text:sub(1, 2) == "\\\\" then return {} end
  local rest = text:sub(2)
  local cands = {}
  local set, after = rest:match("^([^\\(]*)(.*)$")
  if after == "" then                                   -- \Proc
    for cs in perflib.countersets(R.machine) do
      if starts(cs.name, set) then
        cands[#cands + 1] = "\\" .. cs.name .. (cs.instance_type == "single" and "\\" or "(")
      end
    end
    return sorted_names(cands)
  end
  local cs = perflib.counterset(set, R.machine)
  if not cs then return {} end
  local head = "\\" .. cs.name
  local inst_part = after:match("^%((.*)$")
  if inst_part and not inst_part:find(")", 1, true) then  -- \Set(in
    local seen, names = {}, { "*" }
    for _, inst in ipairs(cs:instances() or {}) do names[#names + 1] = inst.name end
    for _, name in ipairs(names) do
      if not seen[name] and starts(name, inst_part) then
        seen[name] = true
        cands[#cands + 1] = head .. "(" .. name .. ")\\"
      end
    end
    return sorted_names(cands)
  end
  local prefix, counter = after:match("^(.*\\)([^\\]*)$")   -- \Set(x)\Cou or \Set\Cou
  if not prefix then return {} end
  local base = after:sub(1, 1) == "(" and head .. prefix or head .. "\\"
  for _, c in ipairs(cs.counters) do
    if starts(c.name, counter) then cands[#cands + 1] = base .. c.name end
  end
  if starts("*", counter) then cands[#cands + 1] = base .. "*" end
  return sorted_names(cands)
end

--- The keys of a table or of a userdata's methods, and of its __index chain.
local function keys_of(v, prefix, into)
  local seen = {}
  for _ = 1, 8 do
    if type(v) == "table" then
      for k in pairs(v) do
        if type(k) == "string" and k:sub(1, #prefix) == prefix and not seen[k] then
          seen[k] = true
          into[#into + 1] = k
        end
      end
    end
    local mt = getmetatable(v)
    if type(mt) ~= "table" then break end
    local idx = rawget(mt, "__index")
    if type(idx) == "function" then idx = rawget(mt, "methods") end
    if type(idx) ~= "table" then break end
    v = idx
  end
  return into
end

--- Completions of a word `a.b:c` among globals, fields and methods.
local function name_candidates(word)
  local scope, rest, sep = _G, word, ""
  local walked = ""
  while true do
    local head, s, tail = rest:match("^([%w_]+)([.:])(.*)$")
    if not head then break end
    local ok, v = pcall(function() return scope[head] end)
    if not ok or (type(v) ~= "table" and type(v) ~= "userdata") then return {} end
    scope, walked, sep, rest = v, walked .. head .. s, s, tail
  end
  local names = keys_of(scope, rest, {})
  local cands = {}
  for _, k in ipairs(names) do
    if k:match("^[%a_][%w_]*$") then
      local ok, v = pcall(function() return scope[k] end)
      -- after ':', only methods
      if sep ~= ":" or (ok and type(v) == "function") then cands[#cands + 1] = walked .. k end
    end
  end
  return sorted_names(cands)
end

--- What Tab offers: each completion replaces the word (bytes `start`+1 ..
-- `stop` of `line`; `start` and `stop` count from 0 as libedit's do).
-- Inside a string that holds a counter path it completes counterset names,
-- instance names (`"\\Processor Information(` -> `0,0)\\`, ...) and counter
-- names; elsewhere globals, fields and methods (`perflib.cou`, `q:co`).
-- @tparam string line the whole line
-- @tparam integer start where the word starts
-- @tparam integer stop where the cursor is
-- @treturn table the completions, sorted
function R.complete(line, start, stop)
  if type(line) ~= "string" then error("bad argument #1 to 'complete' (string expected)", 2) end
  start = math.max(0, math.floor(tonumber(start) or 0))
  stop = math.min(#line, math.max(start, math.floor(tonumber(stop) or #line)))
  local before = line:sub(1, stop)
  local word = line:sub(start + 1, stop)
  local first, quote = open_string(before)
  if not first then return name_candidates(word) end
  if first > start + 1 then return {} end            -- the word starts before the string
  local typed = before:sub(first)
  local keep = #typed - #word
  local result = {}
  for _, c in ipairs(path_candidates(unescape(typed, quote))) do
    local esc = escape(c, quote)
    if starts(esc, typed) then result[#result + 1] = esc:sub(keep + 1) end
  end
  return result
end

-- }===============================================

-- {=============================================== printing with units

local MAX_ROWS = 20

--- A number short enough for a grid: integers whole, others to 4 digits.
local function short(v)
  if v ~= v or v == math.huge or v == -math.huge then return tostring(v) end
  if v == math.floor(v) and math.abs(v) < 2 ^ 53 then return ("%d"):format(v) end
  if math.abs(v) >= 100 then return ("%.1f"):format(v) end
  return ("%.4g"):format(v)
end

local BYTES = { "bytes", "KiB", "MiB", "GiB", "TiB", "PiB" }

--- A value with its unit: bytes in binary multiples, the rest as pretty.quantity.
local function value_text(x, unit)
  local base, per = (unit or ""):match("^(bytes)(.*)$")
  if base then
    local k = 1
    while math.abs(x) >= 1024 and k < #BYTES do x, k = x / 1024, k + 1 end
    return (k == 1 and short(x) or ("%.1f"):format(x)) .. " " .. BYTES[k] .. per
  end
  return P.quantity(x, unit, short(x))
end

--- A counter's raw value in its base unit, with the unit ("12.5 MiB" style
-- for bytes, seconds for timers); counts stay plain.
local function raw_text(v, c)
  if type(v) ~= "number" then return tostring(v) end
  local unit, scale = c and c.unit, c and c.unit_scale or 1
  if not unit or unit == "none" or unit == "count" or unit == "undeclared" then return P.number(v) end
  return value_text(v * scale, unit)
end

--- One result of a sample as a grid: instances down, counters across.
local function grid(s1, s0, r, machine)
  local cs = perflib.counterset(r.counterset, machine or R.machine)
  local cols, rows, cells = {}, {}, {}
  local function cell(inst, ctr, text)
    if not cells[inst] then cells[inst] = {}; rows[#rows + 1] = inst end
    if not cols[ctr] then cols[ctr] = true; cols[#cols + 1] = ctr end
    cells[inst][ctr] = text
  end
  local denied = r.status == "no_access"
  if s0 then
    for inst, v, st, ctr in s1:formatted(s0, { index = r.index }) do
      denied = denied or st == "no_access"
      local c = cs and cs:counter(ctr)
      local unit = c and c.formatted_unit
      -- a KiB or MHz counter's formatted value is in those units already
      if unit and unit:match("^[KMG]iB") then v, unit = v * (c.unit_scale or 1), "bytes" .. unit:sub(4) end
      cell(inst or "", ctr or "?", st == "valid" and value_text(v, unit) or st)
    end
  else
    for inst, v, st, ctr in s1:raw(r.index) do
      if st == "no_access" then denied = true end
      cell(inst or "", ctr or "?", v == nil and st or raw_text(v, cs and cs:counter(ctr)))
    end
  end
  local where = (r.filter == nil or r.filter == "") and "" or ("(" .. T.escape(r.filter) .. ")")
  local lines = { ("\\%s%s  %s%s"):format(r.counterset, where, r.status,
    s0 and "" or "  (raw values; show(s1, s0) for rates)") }
  if denied then lines[#lines + 1] = "  " .. R.access_hint(r.counterset, r.err_path) end
  if #rows == 0 then return lines end
  local widths = { 0 }
  for i, inst in ipairs(rows) do
    if i > MAX_ROWS then break end
    widths[1] = math.max(widths[1], #T.escape(inst))
  end
  for j, ctr in ipairs(cols) do
    widths[j + 1] = #ctr
    for i, inst in ipairs(rows) do
      if i > MAX_ROWS then break end
      widths[j + 1] = math.max(widths[j + 1], #(cells[inst][ctr] or "-"))
    end
  end
  local head = { pad("", widths[1]) }
  for j, ctr in ipairs(cols) do head[#head + 1] = pad(ctr, widths[j + 1], true) end
  lines[#lines + 1] = "  " .. table.concat(head, "  ")
  for i, inst in ipairs(rows) do
    if i > MAX_ROWS then
      lines[#lines + 1] = ("  ... %d more instances"):format(#rows - MAX_ROWS)
      break
    end
    local row = { pad(T.escape(inst), widths[1]) }
    for j, ctr in ipairs(cols) do row[#row + 1] = pad(cells[inst][ctr] or "-", widths[j + 1], true) end
    lines[#lines + 1] = "  " .. table.concat(row, "  ")
  end
  return lines
end

-- Why a user sees no_access, by counterset; others get the general sentence.
local ACCESS_HINTS = {
  Process = "a process this user may not inspect (another user's, or not dumpable): "
    .. "its io, fd/ and smaps_rollup need root or CAP_SYS_PTRACE",
  Thread = "a process this user may not inspect (another user's, or not dumpable): "
    .. "its io, fd/ and smaps_rollup need root or CAP_SYS_PTRACE",
  ["Hardware Events"] = "perf_event_paranoid (/proc/sys/kernel/perf_event_paranoid) forbids this user "
    .. "these events: run as root, or lower it (1 lets a user count its own processes only)",
}

--- The sentence that says why values of a counterset are no_access.
-- @tparam string counterset its name
-- @tparam[opt] string err_path the file that failed (a result's `err_path`)
-- @treturn string
function R.access_hint(counterset, err_path)
  local hint = ACCESS_HINTS[counterset]
  if hint then return "no_access: " .. hint end
  return "no_access: this user may not read " .. (err_path and ("/" .. err_path) or "the source")
end

local function is_class(v, name)
  local mt = (type(v) == "userdata") and getmetatable(v)
  return type(mt) == "table" and rawget(mt, "__name") == name
end

--- A sample as text: each result a grid of values with their units, the
-- formatted values when `s0` (the older sample) is given, else the raw
-- values in base units.
-- @param s1 a Sample
-- @param[opt] s0 the older Sample
-- @param[opt] machine the Machine the sample is from (default: `R.machine`, else this one)
-- @treturn string
function R.sample_text(s1, s0, machine)
  if not is_class(s1, "perflib.Sample") then error("bad argument #1 to 'sample_text' (Sample expected)", 2) end
  if s0 ~= nil and not is_class(s0, "perflib.Sample") then
    error("bad argument #2 to 'sample_text' (Sample expected)", 2)
  end
  local lines = {}
  for _, r in ipairs(s1:results()) do
    for _, l in ipairs(grid(s1, s0, r, machine)) do lines[#lines + 1] = l end
  end
  return table.concat(lines, "\n")
end

--- Prints a sample pair's values with units (the REPL's global `show`).
-- @param s1 the newer Sample
-- @param[opt] s0 the older Sample
-- Writes to io.stdout; returns nothing.
function R.show(s1, s0)
  out(R.sample_text(s1, s0))
end

--- The REPL's printer: samples as grids with units, other values through
-- perflib.pretty.
-- @param ... the values of an expression; one line of them, tab-separated, goes to io.stdout
function R.print(...)
  local n = select("#", ...)
  local parts = {}
  for i = 1, n do
    local v = (select(i, ...))
    parts[i] = is_class(v, "perflib.Sample") and R.sample_text(v) or P.write(v)
  end
  out(table.concat(parts, "\t"))
end

-- }===============================================

-- {=============================================== help

local OVERVIEW = [==[
perflib: Linux performance counters, the Windows PerfLib way.
  cs = perflib.counterset "Memory"          a counterset (help(cs): its counters)
  q = perflib.query(); q:add [[\Processor Information(_Total)\% Processor Time]]
  s0 = q:collect(); s1 = q:collect()        raw samples; show(s1, s0): values with units
  for inst, v, st in s1:formatted(s0) do print(inst, v, st) end
  perflib.collect "Global"                  every counterset at once
  for s1, s0 in q:samples(1, 5) do show(s1, s0) end
help(perflib)            the module's functions     help(q), help(s1)   a class's methods
help "Memory"            a counterset's counters    help [[\Memory\Available Bytes]]  one counter
help "collect"           one function               Tab completes names and "\Counter paths"
Ctrl-C cancels the line (twice on an empty line exits); Ctrl-D exits.]==]

local function doc_line(name)
  local d = helpdata[name]
  if not d then return "  " .. name end
  return cut(("  %-28s %s"):format(d[2], d[1]), WIDTH)
end

local function help_functions(tbl, title)
  local names = {}
  for k, v in pairs(tbl) do
    if type(k) == "string" and type(v) == "function" and not k:match("^_") then names[#names + 1] = k end
  end
  table.sort(names)
  out(title)
  for _, k in ipairs(names) do out(doc_line(k)) end
end

local function help_class(v)
  local mt = getmetatable(v)
  local cls = rawget(mt, "__name"):gsub("^perflib%.", "")
  local methods = keys_of(v, "", {})
  table.sort(methods)
  out(("%s methods (help \"%s:name\" for one):"):format(cls, cls))
  for _, m in ipairs(methods) do
    if not m:match("^_") then out(doc_line(cls .. ":" .. m)) end
  end
end

local function help_counter(c)
  out(("%s\\%s  (id %d, %s)"):format(c.counterset or "?", c.name, c.id or -1, c.type_name or "?"))
  out(("  unit: %s%s, %s; formatted: %s"):format(c.unit or "?",
    (c.unit_scale and c.unit_scale ~= 1) and (" x" .. P.number(c.unit_scale)) or "",
    c.semantics or "?", (c.formatted_unit and c.formatted_unit ~= "") and c.formatted_unit or "a number"))
  out(wrap(c.help or "", WIDTH))
end

local function help_counterset(cs)
  out(("%s  (%s, %s instances, %d counters)"):format(cs.name, cs.guid or "", cs.instance_type or "?",
    #cs.counters))
  if cs.help and cs.help ~= "" then out(cut("  " .. cs.help, WIDTH)) end
  for _, c in ipairs(cs.counters) do
    local unit = (c.formatted_unit and c.formatted_unit ~= "") and (" [" .. c.formatted_unit .. "]") or ""
    out(cut(("  %-36s %s"):format(c.name .. unit, c.help or ""), WIDTH))
  end
  out(("help [[\\%s%s\\Counter]] for one counter in full"):format(cs.name,
    cs.instance_type == "single" and "" or "(*)"))
end

--- Help on anything: `help()` (an overview), `help(perflib)` (the module's
-- functions), a class instance (its methods), a counterset or its name, a
-- counter path or counter table (its unit, type and help), a function of
-- the module or its name (`help "collect"`, `help "Query:add"`).
-- @param[opt] x what to explain
-- Writes to io.stdout; returns nothing ("no such counter: ..." and the like for a miss).
function R.help(x)
  if x == nil then out(OVERVIEW); return end
  if x == perflib then help_functions(perflib, "perflib functions (help \"name\" for one):"); return end
  if type(x) == "userdata" and is_class(x, "perflib.CounterSet") then help_counterset(x); return end
  if type(x) == "userdata" and type(getmetatable(x)) == "table" and rawget(getmetatable(x), "__name") then
    help_class(x)
    return
  end
  if type(x) == "table" and x.name and x.type_name then help_counter(x); return end
  if type(x) == "function" then
    for k, v in pairs(perflib) do
      if v == x then out(doc_line(k)); return end
    end
    out("a function perflib does not document")
    return
  end
  if type(x) == "string" then
    if helpdata[x] then out(doc_line(x)); return end
    if x:sub(1, 1) == "\\" then
      local set, ctr = x:match("^\\([^\\(]+)%b()\\([^\\]+)$")
      if not set then set, ctr = x:match("^\\([^\\(]+)\\([^\\]+)$") end
      local cs = set and perflib.counterset(set, R.machine)
      local c = cs and cs:counter(ctr)
      if c then help_counter(c); return end
      out("no such counter: " .. T.escape(x))
      return
    end
    local cs = perflib.counterset(x, R.machine)
    if cs then help_counterset(cs); return end
    out(("nothing called %q: help() lists what there is"):format(x))
    return
  end
  out(P.write(x))
end

--- Puts `help` and `show` in the globals (perflua's REPL calls this).
-- Returns nothing.
function R.install()
  _G.help = R.help
  _G.show = R.show
end

-- }===============================================

return R
