--- perflib.json: JSON for perflib, on Debian's lua-dkjson (internal module).
--
-- dkjson writes the structure and escapes strings (`dkjson.encode`,
-- `dkjson.quotestring`) and builds decoded values (`dkjson.decode`). This
-- module adds what dkjson does not do right for counters and untrusted files:
--
-- * numbers exactly: integers digit for digit, floats in the fewest of 15, 16
--   or 17 significant digits that read back as the same double (dkjson writes
--   `tostring`, 14 digits); NaN and infinities are `null`;
-- * object keys sorted, so the same table always gives the same text; a table
--   is an array when its keys are exactly 1..n (holes make it an object with
--   keys "1", "3", ...), `{}` is an object unless marked with `json.array`;
-- * strings repaired: bytes that are not UTF-8 become U+FFFD;
-- * decoding with limits and strict checks: a length and a nesting limit, and
--   a scan that refuses what dkjson lets through (comments, missing commas,
--   raw control characters, bad escapes, lone surrogates, duplicate keys,
--   leading zeros, integers beyond 64 bits), each with the column.
--
-- Integers beyond 2^53 on Lua 5.1, 5.2 and LuaJIT are the decimal strings of
-- perflib's 64-bit convention (README, "64-bit raw counts"): `json.integer`
-- writes them as JSON numbers and `json.decode` reads such numbers back as
-- those strings.
-- @module perflib.json
local dkjson = require "dkjson"
local compat = require "perflib.compat"

local J = {}
-- the real string functions: encoding also runs inside sandboxed calls, where
-- string methods reach the sandbox's bounded ones (perflib.rules.sandbox)
local sfind, sfmt, sbyte, ssub, smatch = string.find, string.format, string.byte, string.sub, string.match
local concat, sort, huge = table.concat, table.sort, math.huge
local mtype, quotestring = compat.math_type, dkjson.quotestring
local native = math.type ~= nil               -- 5.3+: 64-bit integers

J.MAX_DEPTH = 64                          -- default nesting limit of json.decode
J.MAX_LENGTH = 16 * 1024 * 1024           -- default length limit of json.decode, bytes
--- The value JSON null decodes to by default (dkjson's null: it encodes as `null`).
J.null = dkjson.null

-- Strings --------------------------------------------------------------------

-- The well-formed UTF-8 sequences that start with a byte from 0xC2 (RFC 3629):
-- no overlong forms, no surrogates, nothing above U+10FFFF.
local UTF8 = { "^[\194-\223][\128-\191]", "^\224[\160-\191][\128-\191]",
               "^[\225-\236\238\239][\128-\191][\128-\191]", "^\237[\128-\159][\128-\191]",
               "^\240[\144-\191][\128-\191][\128-\191]", "^[\241-\243][\128-\191][\128-\191][\128-\191]",
               "^\244[\128-\143][\128-\191][\128-\191]" }

-- s with every byte that does not belong to a well-formed sequence as U+FFFD
local function repair(s)
  local i = sfind(s, "[\128-\255]")
  if not i then return s end
  local out, from = {}, 1
  while i do
    local e
    for k = 1, #UTF8 do
      e = select(2, sfind(s, UTF8[k], i))
      if e then break end
    end
    if not e then
      out[#out + 1] = ssub(s, from, i - 1)
      out[#out + 1] = "\239\191\189"
      e, from = i, i + 1
    end
    i = sfind(s, "[\128-\255]", e + 1)
  end
  if from == 1 then return s end
  out[#out + 1] = ssub(s, from)
  return concat(out)
end

--- The JSON text of a string: dkjson's escaping (control characters, quotes,
-- backslashes, and the code points JavaScript mistakes for line ends), bytes
-- that are not UTF-8 replaced by U+FFFD. The replacement comes after the
-- escaping (dkjson's escapes are ASCII, and it matches whole UTF-8 sequences
-- only, so the result is the same but for U+FFFD itself, which stays as it is
-- rather than dkjson's `\ufffd`).
-- @string s
-- @treturn string
function J.string(s)
  if type(s) ~= "string" then error("json.string: s must be a string, got " .. type(s), 2) end
  return repair(quotestring(s))
end

-- Numbers --------------------------------------------------------------------

--- The JSON text of a number: integers exactly, floats in the fewest of 15–17
-- significant digits that read back the same, `null` for NaN and infinities.
-- @number x
-- @treturn string
function J.number(x)
  if type(x) ~= "number" then error("json.number: x must be a number, got " .. type(x), 2) end
  if x ~= x or x == huge or x == -huge then return "null" end
  if mtype(x) == "integer" then return sfmt("%d", x) end
  for p = 15, 16 do
    local s = sfmt("%." .. p .. "g", x)
    if tonumber(s) == x then return s end
  end
  return sfmt("%.17g", x)
end

-- digits (no sign) beyond 2^53, within 2^63 (neg: within -2^63)
local function wide_digits(d, neg)
  local n = #d
  if n < 16 or n > 19 or (n == 16 and d <= "9007199254740992") then return false end
  return n < 19 or d <= (neg and "9223372036854775808" or "9223372036854775807")
end

--- Whether v is perflib's decimal string of an integer beyond 2^53 (Lua 5.1,
-- 5.2 and LuaJIT only: `"9007199254740993"` for 2^53+1).
-- @param v any value
-- @treturn boolean
function J.wide(v)
  if native or type(v) ~= "string" then return false end
  local neg, d = smatch(v, "^(%-?)([1-9]%d*)$")
  return d ~= nil and wide_digits(d, neg == "-")
end

--- The JSON text of a 64-bit integer: a number (as `json.number`), or the
-- decimal string perflib uses beyond 2^53 before Lua 5.3, written as a number.
-- @param v a number or such a string
-- @treturn string
function J.integer(v)
  if J.wide(v) then return v end
  return J.number(v)
end

-- Encoding -------------------------------------------------------------------

local TEXT = { __tojson = function(self) return self[1] end }     -- a number's or a string's JSON text
local ARRAY = { __jsontype = "array" }

--- Mark a table as a JSON array, so that it is written `[]` when empty.
-- @tab t
-- @treturn table t
function J.array(t) return setmetatable(t, ARRAY) end

local function is_array(t)
  local n = #t
  if n == 0 then return getmetatable(t) == ARRAY end
  local count = 0
  for k in pairs(t) do
    if mtype(k) ~= "integer" or k < 1 or k > n then return false end
    count = count + 1
  end
  return count == n
end

-- v as dkjson should see it: numbers as their exact text (every number: dkjson
-- takes a table with a numeric `n` for an array), strings as json.string's text,
-- objects with their sorted keys as `__jsonorder` (keys repaired before dkjson
-- escapes them: a U+FFFD in a key is written `\ufffd`), functions and userdata as null.
local function prepare(v, seen)
  local ty = type(v)
  if ty == "string" then return setmetatable({ J.string(v) }, TEXT) end
  if ty == "number" then return setmetatable({ J.number(v) }, TEXT) end
  if ty == "boolean" or v == J.null then return v end
  if ty ~= "table" then return J.null end
  if seen[v] then error("json: cycle in table", 0) end
  seen[v] = true
  local out
  if is_array(v) then
    out = setmetatable({}, ARRAY)
    for i = 1, #v do out[i] = prepare(v[i], seen) end
  else
    local keys, byname = {}, {}
    for k, x in pairs(v) do
      local name = repair(tostring(k))       -- 1 and "1", or two keys bad bytes made equal
      if byname[name] ~= nil then error(sfmt("json: two keys are written %q", name), 0) end
      keys[#keys + 1], byname[name] = name, x
    end
    sort(keys)
    out = setmetatable({}, { __jsontype = "object", __jsonorder = keys })
    for _, name in ipairs(keys) do out[name] = prepare(byname[name], seen) end
  end
  seen[v] = nil
  return out
end

--- JSON text of a value: strings (as `json.string`), numbers (as
-- `json.number`), booleans, tables (a sequence 1..n, or a table marked by
-- `json.array`, is an array; anything else an object with sorted keys),
-- `json.null`; nil, functions and userdata as null. Raises on cycles.
-- @param v the value
-- @treturn string
function J.encode(v)
  return dkjson.encode(prepare(v, {}))
end

-- Decoding -------------------------------------------------------------------

local function fail(at, msg) error({ col = at, msg = msg }, 0) end

local ESCAPES = { [34] = true, [92] = true, [47] = true, [98] = true, [102] = true, [110] = true,
                  [114] = true, [116] = true }

-- the end of the string that starts at pos, checked: escapes, surrogate pairs
local function string_end(s, pos)
  local i = pos + 1
  while true do
    local j = sfind(s, '["\\%z\1-\31]', i)
    if not j then fail(#s + 1, "unexpected end of line in a string (truncated?)") end
    local c = sbyte(s, j)
    if c == 34 then return j + 1 end
    if c ~= 92 then fail(j, "control character in a string") end
    local e = sbyte(s, j + 1)
    if e == 117 then
      local hex = smatch(s, "^%x%x%x%x", j + 2)
      if not hex then fail(j, "bad \\u escape") end
      local cp = tonumber(hex, 16)
      if cp >= 0xDC00 and cp <= 0xDFFF then fail(j, "lone surrogate in \\u escape") end
      i = j + 6
      if cp >= 0xD800 and cp <= 0xDBFF then
        if not sfind(s, "^\\u[dD][c-fC-F]%x%x", i) then fail(j, "lone surrogate in \\u escape") end
        i = i + 6
      end
    elseif ESCAPES[e] then
      i = j + 2
    elseif not e then
      fail(#s + 1, "unexpected end of line in a string (truncated?)")
    else
      fail(j, "bad escape \\" .. string.char(e))
    end
  end
end

-- a float's fraction and exponent after the digits that end at e: its end, or nil
local function float_end(s, e)
  local c = sbyte(s, e + 1)
  if c == 46 then
    local _, f = sfind(s, "^%d+", e + 2)
    if not f then fail(e + 1, "bad number") end
    e, c = f, sbyte(s, f + 1)
  end
  if c == 101 or c == 69 then
    local _, x = sfind(s, "^[-+]?%d+", e + 2)
    if not x then fail(e + 1, "bad number") end
    return x, true
  end
  return e, false
end

-- the end of the number at pos; wide: an integer to read as its decimal string
local function number_end(s, pos)
  local _, e = sfind(s, "^-?[1-9]%d*", pos)
  if not e then
    _, e = sfind(s, "^-?0", pos)
    if not e then fail(pos, sfmt("unexpected character %q", ssub(s, pos, pos))) end
    if sfind(s, "^%d", e + 1) then fail(pos, "bad number (leading zero)") end
  end
  local c = sbyte(s, e + 1)
  if c == 46 or c == 101 or c == 69 then
    local f, exp = float_end(s, e)
    local v = exp and tonumber(ssub(s, pos, f))
    if v == huge or v == -huge then fail(pos, "number out of range: " .. ssub(s, pos, f)) end
    return f + 1, false
  end
  if e - pos < 15 then return e + 1, false end
  local text, neg = ssub(s, pos, e), sbyte(s, pos) == 45
  local d = neg and ssub(text, 2) or text
  local in_range, wide
  if native then
    in_range = mtype(tonumber(text)) == "integer"
  else
    wide = wide_digits(d, neg)
    in_range = wide or #d < 16 or (#d == 16 and d <= "9007199254740992")
  end
  if not in_range then fail(pos, "integer out of the 64-bit range: " .. text) end
  return e + 1, wide
end

local VALUE, VALUE_OR_CLOSE, KEY, KEY_OR_CLOSE, COLON, AFTER = 1, 2, 3, 4, 5, 6

-- One value (a container opens, a scalar is skipped): the next position and state.
local function scan_value(s, pos, c, st)
  if c == 123 or c == 91 then
    if st.depth >= st.max_depth then fail(pos, "nesting deeper than " .. st.max_depth) end
    st.depth = st.depth + 1
    st.stack[st.depth] = c == 123
    if st.keys then st.keys[st.depth] = {} end
    return pos + 1, c == 123 and KEY_OR_CLOSE or VALUE_OR_CLOSE
  end
  if c == 34 then return string_end(s, pos), AFTER end
  local _, e = sfind(s, "^true", pos)
  if not e then _, e = sfind(s, "^false", pos) end
  if not e then _, e = sfind(s, "^null", pos) end
  if e then return e + 1, AFTER end
  local nxt, wide = number_end(s, pos)
  if wide then st.wide[#st.wide + 1], st.wide[#st.wide + 2] = pos, nxt - 1 end
  return nxt, AFTER
end

-- Check s against the JSON grammar without building anything: the number of
-- object members and the spans of wide integers; raises { col =, msg = }.
-- With find_dup it names the first key that an object repeats as written.
local function scan(s, max_depth, find_dup)
  local st = { depth = 0, max_depth = max_depth, stack = {}, wide = {}, keys = find_dup and {} }
  local pos, state, members = 1, VALUE, 0
  while true do
    pos = sfind(s, "[^ \t\r\n]", pos)
    if not pos then break end
    local c = sbyte(s, pos)
    local obj = st.stack[st.depth]
    if state == AFTER then
      if st.depth == 0 then fail(pos, "unexpected text after the value") end
      if c == 44 then
        pos, state = pos + 1, obj and KEY or VALUE
      elseif c == (obj and 125 or 93) then
        pos, st.depth = pos + 1, st.depth - 1
      else
        fail(pos, sfmt("expected ',' or '%s'", obj and "}" or "]"))
      end
    elseif state == COLON then
      if c ~= 58 then fail(pos, "expected ':'") end
      pos, state = pos + 1, VALUE
    elseif (state == KEY_OR_CLOSE and c == 125) or (state == VALUE_OR_CLOSE and c == 93) then
      pos, st.depth, state = pos + 1, st.depth - 1, AFTER
    elseif state == KEY or state == KEY_OR_CLOSE then
      if c ~= 34 then fail(pos, "expected a key string") end
      local e = string_end(s, pos)
      if find_dup then
        local set, key = st.keys[st.depth], ssub(s, pos + 1, e - 2)
        if set[key] then fail(pos, sfmt("duplicate key %q", key)) end
        set[key] = true
      end
      pos, state, members = e, COLON, members + 1
    else
      pos, state = scan_value(s, pos, c, st)
    end
  end
  if state ~= AFTER or st.depth > 0 then
    local what = st.depth == 0 and "a value" or st.stack[st.depth] and "an object" or "an array"
    fail(#s + 1, "unexpected end of line in " .. what .. " (truncated?)")
  end
  return members, st.wide
end

-- s with the wide integers as JSON strings, for dkjson to keep them exact
local function quote_wide(s, wide)
  local out, from = {}, 1
  for k = 1, #wide, 2 do
    out[#out + 1] = ssub(s, from, wide[k] - 1)
    out[#out + 1] = '"' .. ssub(s, wide[k], wide[k + 1]) .. '"'
    from = wide[k + 1] + 1
  end
  out[#out + 1] = ssub(s, from)
  return concat(out)
end

-- Decoded objects: dkjson assigns each member, so counting the first
-- assignments of keys finds a duplicate (the second one assigns silently).
local fresh = 0
local OBJECT = { __jsontype = "object", __newindex = function(t, k, v)
  fresh = fresh + 1
  rawset(t, k, v)
end }

local function decode(s, opts)
  local max_len = opts.max_length or J.MAX_LENGTH
  if #s > max_len then fail(1, ("text longer than %d bytes"):format(max_len)) end
  local members, wide = scan(s, opts.max_depth or J.MAX_DEPTH)
  fresh = 0
  local null = opts.null
  if null == nil then null = J.null end
  local v, pos, err = dkjson.decode(#wide > 0 and quote_wide(s, wide) or s, 1, null, OBJECT, ARRAY)
  if err then fail(pos, err) end
  if fresh ~= members then
    scan(s, math.huge, true)           -- the key as written, if it is repeated so
    fail(1, "duplicate key in an object")
  end
  return v
end

--- Parse JSON text strictly, within limits.
-- Integers without fraction or exponent are Lua integers (beyond 2^53 before
-- 5.3, their decimal strings), other numbers floats; objects and arrays carry
-- a metatable that marks them (so `{}` and `[]` encode back the same).
-- @string s the text (one JSON value, whitespace around it allowed)
-- @tparam[opt] table opts `max_depth` (nesting, default `json.MAX_DEPTH`),
--   `max_length` (bytes, default `json.MAX_LENGTH`), `null` (what JSON null
--   becomes, default `json.null`)
-- @return the value, or nil and a message "column N: what is wrong"
function J.decode(s, opts)
  if type(s) ~= "string" then error("json.decode: s must be a string, got " .. type(s), 2) end
  if opts ~= nil and type(opts) ~= "table" then error("json.decode: opts must be a table", 2) end
  local ok, v = pcall(decode, s, opts or {})
  if ok then return v end
  if type(v) == "table" then return nil, ("column %d: %s"):format(v.col, v.msg) end
  return nil, tostring(v)
end

return J
