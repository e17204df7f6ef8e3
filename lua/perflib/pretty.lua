--- A small pretty printer for Lua values, used by the `perflua` REPL.
--
-- It exists because the usual choices do not work on Debian 12 with Lua 5.4:
-- lua-inspect has no 5.4 build, and Penlight 1.13.1's `pl.pretty.write`
-- crashes on floats such as `2^63` (Penlight #455).
--
-- Integers print with `%d` and floats with the shortest of `%.14g` ..
-- `%.17g` that reads back to the same value, so `0.1` stays `0.1` while
-- `2^63` keeps every digit. Floats that look integral get a `.0` so the two
-- subtypes stay apart, as in Lua itself.
--
-- Dependencies: none.
-- @module perflib.pretty

local compat = require "perflib.compat"
local math_type, compat_quote, huge = compat.math_type, compat.quote, math.huge
local format, rep, concat = string.format, string.rep, table.concat
local sort = table.sort
local tostring, tonumber, type, next, pcall = tostring, tonumber, type, next, pcall
local getmetatable, select, rawget, pairs, ipairs = getmetatable, select, rawget, pairs, ipairs
local io = io

local pretty = {}

local DEFAULTS = { depth = 6, max_items = 50, indent = "  ", width = 78 }

local KEYWORDS = {}
for w in ([[and break do else elseif end false for function goto if in
  local nil not or repeat return then true until while]]):gmatch("%a+") do
  KEYWORDS[w] = true
end

--- Format a number: integers exactly, floats as short as round-tripping allows.
local function number(x)
  if math_type(x) == "integer" then return format("%d", x) end
  if x ~= x then return "nan" end             -- glibc would say "-nan" for 0/0
  if x == huge then return "inf" end
  if x == -huge then return "-inf" end
  local s
  for prec = 14, 17 do
    s = format("%." .. prec .. "g", x)
    if tonumber(s) == x then break end
  end
  if s:find("^%-?%d+$") then s = s .. ".0" end -- keep floats visibly floats
  return s
end

--- Quote a string with %q, but keep newlines as `\n` so output stays one line.
local function quote(s)
  return (compat_quote(s):gsub("\\\n", "\\n"))
end

--- tostring that never raises: a broken __tostring must not break the REPL.
local function safe_tostring(v)
  local ok, s = pcall(tostring, v)
  if ok and type(s) == "string" then return s end
  return "<" .. type(v) .. ": __tostring failed>"
end

local function scalar(v)
  local t = type(v)
  if t == "number" then return number(v) end
  if t == "string" then return quote(v) end
  return safe_tostring(v)
end

local function key_text(k)
  if type(k) == "string" and k:find("^[%a_][%w_]*$") and not KEYWORDS[k] then
    return k
  end
  return "[" .. scalar(k) .. "]"
end

-- Keys sort numbers first (numerically), then strings, booleans, the rest.
local RANK = { number = 1, string = 2, boolean = 3 }

local function key_less(a, b)
  local ta, tb = type(a), type(b)
  local ra, rb = RANK[ta] or 4, RANK[tb] or 4
  if ra ~= rb then return ra < rb end
  if ta == "number" or ta == "string" then
    if ta == tb then return a < b end
  elseif ta == "boolean" and tb == "boolean" then
    return (not a) and b                      -- false before true
  end
  return safe_tostring(a) < safe_tostring(b)
end

local function has_tostring(t)
  local mt = getmetatable(t)
  return type(mt) == "table" and rawget(mt, "__tostring") ~= nil
end

local function check_opts(opts)
  local o = {}
  for k, v in pairs(DEFAULTS) do o[k] = v end
  if opts == nil then return o end
  if type(opts) ~= "table" then
    error("bad argument #2 to 'write' (table expected, got " .. type(opts) .. ")", 3)
  end
  for k, v in pairs(opts) do
    if DEFAULTS[k] == nil then
      error("bad argument #2 to 'write' (unknown option '" .. tostring(k) .. "')", 3)
    end
    if type(v) ~= type(DEFAULTS[k]) then
      error(format("bad argument #2 to 'write' (option '%s' must be a %s)",
        k, type(DEFAULTS[k])), 3)
    end
    o[k] = v
  end
  return o
end

local render

--- Render table `t` at nesting `level` (1 for the outermost table).
local function render_table(t, o, level, path)
  if path[t] then return "<cycle>" end
  if has_tostring(t) then return safe_tostring(t) end
  if level > o.depth then return "{...}" end
  if next(t) == nil then return "{}" end
  path[t] = true

  local n = 0                                 -- length of the 1..n sequence
  while rawget(t, n + 1) ~= nil do n = n + 1 end
  local keys = {}
  for k in next, t do
    if not (math_type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  sort(keys, key_less)

  local items, total, limit = {}, n + #keys, o.max_items
  for i = 1, n do
    if #items >= limit then break end
    items[#items + 1] = render(rawget(t, i), o, level + 1, path)
  end
  for _, k in ipairs(keys) do
    if #items >= limit then break end
    items[#items + 1] = key_text(k) .. " = " .. render(rawget(t, k), o, level + 1, path)
  end
  if total > #items then items[#items + 1] = format("... (%d more)", total - #items) end
  path[t] = nil

  local one = "{ " .. concat(items, ", ") .. " }"
  if #one + #o.indent * (level - 1) <= o.width and not one:find("\n", 1, true) then
    return one
  end
  -- Multi-line: pack short one-line items (long arrays of numbers) into
  -- rows that fit the width; anything multi-line gets a row of its own.
  local pad = rep(o.indent, level)
  local rows, row = {}, nil
  for i, item in ipairs(items) do
    local text = item .. (i < #items and "," or "")
    if row and not item:find("\n", 1, true) and i <= n
        and #pad + #row + 1 + #text <= o.width then
      row = row .. " " .. text
    else
      if row then rows[#rows + 1] = row end
      row = text
    end
    if i > n or item:find("\n", 1, true) then rows[#rows + 1] = row; row = nil end
  end
  if row then rows[#rows + 1] = row end
  return "{\n" .. pad .. concat(rows, "\n" .. pad) .. "\n" .. rep(o.indent, level - 1) .. "}"
end

render = function(v, o, level, path)
  if type(v) == "table" then return render_table(v, o, level, path) end
  return scalar(v)
end

--- Return a readable string for any Lua value.
-- @param v the value
-- @tparam[opt] table opts `depth` (tables nested deeper show as `{...}`, default 6),
--   `max_items` (entries shown per table, default 50), `indent` (default two spaces),
--   `width` (tables that fit on one line this wide stay inline, default 78)
-- @treturn string
function pretty.write(v, opts)
  return render(v, check_opts(opts), 1, {})
end

--- Like `print`, but each argument goes through `pretty.write`.
-- @param ... any values: written to io.stdout, tab-separated, on one line
function pretty.print(...)
  local n, out = select("#", ...), {}
  for i = 1, n do out[i] = pretty.write((select(i, ...))) end
  io.stdout:write(concat(out, "\t"), "\n")
end

--- Formats a number: integers exactly, floats as short as round-tripping
-- allows (and always with a point or exponent), "nan", "inf" and "-inf".
-- @function number
-- @tparam number x
-- @treturn string
pretty.number = number

--- A value with its unit: "12.5%", "1024 bytes/s", "3/s", "2.5 MHz"; the
-- unit text is a counter's `formatted_unit` ("" or nil: the number alone).
-- @tparam number|nil v the value (nil prints as "-")
-- @tparam[opt] string unit
-- @tparam[opt] string text the number already formatted (default: `pretty.number(v)`)
-- @treturn string
function pretty.quantity(v, unit, text)
  text = text or (v == nil and "-" or number(v))
  if v == nil or unit == nil or unit == "" then return text end
  if unit == "percent" then return text .. "%" end
  if unit:sub(1, 1) == "/" then return text .. unit end
  return text .. " " .. unit
end

--- The formatted values of one result of a sample, each with its unit, for
-- the REPL: `{ [counter] = { [instance] = "12.5%" } }`, a status in place of
-- a value that is not valid.
-- @param s1 the newer Sample
-- @param[opt] s0 the older Sample (two-sample counters need it)
-- @tparam[opt] integer index result index (default 1)
-- @tparam[opt] Machine machine whose counters the result names (default: this one)
-- @treturn table
function pretty.values(s1, s0, index, machine)
  index = index or 1
  local perflib = require "perflib"
  local r = s1:results()[index]
  local cs = r and perflib.counterset(r.counterset, machine)
  local out = {}
  for inst, v, st, ctr in s1:formatted(s0, { index = index }) do
    local c = cs and cs:counter(ctr)
    out[ctr] = out[ctr] or {}
    out[ctr][inst] = st == "valid" and pretty.quantity(v, c and c.formatted_unit) or st
  end
  return out
end

return pretty
