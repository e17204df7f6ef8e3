--- What the facade needs from Lua 5.3/5.4 on Lua 5.1, 5.2 and LuaJIT 2.1.
-- On 5.3 and later each name is the standard function (or the operator, compiled
-- here with `load` so that the files that use it parse on 5.1); below 5.3 it is
-- a small equivalent. There numbers are doubles: a number with an integral
-- value counts as an integer (`math_type(3.0)` is "integer" there, "float" on 5.4).
-- @module perflib.compat
local C = {}

local native = math.type ~= nil            -- 5.3, 5.4: integers and the bitwise operators
local floor = math.floor

C.unpack = table.unpack or unpack          -- luacheck: ignore 113 (unpack: 5.1's global)

--- `load(text, name, mode, env)` on every version: 5.1 and LuaJIT (whose `_VERSION`
-- is "Lua 5.1") use loadstring and setfenv, and refuse a binary chunk in mode "t".
-- @function load
if _VERSION ~= "Lua 5.1" then
  C.load = load
else
  C.load = function(text, name, mode, env)
    if type(text) == "string" and mode == "t" and text:byte(1) == 27 then
      return nil, "attempt to load a binary chunk (mode is 't')"
    end
    local f, err = (type(text) == "string" and loadstring or load)(text, name)  -- luacheck: ignore 113
    if f and env then setfenv(f, env) end                                      -- luacheck: ignore 113
    return f, err
  end
end

local function ops(src)
  return assert(load(src, "=perflib.compat", "t", { math = math }))()
end

if native then
  C.math_type, C.tointeger = math.type, math.tointeger
  C.idiv, C.bor, C.band, C.bit, C.fnv1a = ops [[
    local function fnv1a(s)
      local h = 0xcbf29ce484222325
      for i = 1, #s do h = (h ~ s:byte(i)) * 0x100000001b3 end
      return ("%016x"):format(h)
    end
    return function(a, b) return a // b end, function(a, b) return a | b end,
           function(a, b) return a & b end, function(j) return 1 << (j - 1) end, fnv1a
  ]]
else
  local MAXI = 2 ^ 63
  local function isint(x) return type(x) == "number" and x == floor(x) and x >= -MAXI and x < MAXI end
  --- "integer" for a number with an integral value below 2^63, "float" for another, nil otherwise.
  function C.math_type(x)
    if type(x) ~= "number" then return nil end
    return isint(x) and "integer" or "float"
  end
  --- The number if it is integral (or a string of one), else nil (5.4's math.tointeger).
  function C.tointeger(x)
    if type(x) == "string" then x = tonumber(x) end
    return isint(x) and x or nil
  end
  --- Floor division (`a // b`).
  function C.idiv(a, b) return floor(a / b) end
  -- bit j (1 = lowest) of x, for the small latch masks
  local function has(x, b) return floor(x / b) % 2 == 1 end
  --- `a | b` for non-negative integers below 2^53.
  function C.bor(a, b)
    local r, bit = 0, 1
    while a > 0 or b > 0 do
      if a % 2 == 1 or b % 2 == 1 then r = r + bit end
      a, b, bit = floor(a / 2), floor(b / 2), bit * 2
    end
    return r
  end
  --- `a & b` where b is one bit (C.bit(j)).
  function C.band(a, b) return has(a, b) and b or 0 end
  --- `1 << (j - 1)`.
  function C.bit(j) return 2 ^ (j - 1) end
  -- xor of two bytes
  local function bxor8(a, b)
    local r, bit = 0, 1
    for _ = 1, 8 do
      if a % 2 ~= b % 2 then r = r + bit end
      a, b, bit = floor(a / 2), floor(b / 2), bit * 2
    end
    return r
  end
  --- FNV-1a (64 bits) of s as 16 hex digits: the hash in two 32-bit halves,
  -- multiplied by the prime 2^40 + 435 as (h * 435 + h * 2^40) mod 2^64.
  function C.fnv1a(s)
    local hi, lo = 0xcbf29ce4, 0x84222325
    local M = 2 ^ 32
    for i = 1, #s do
      local l8 = lo % 256
      lo = lo - l8 + bxor8(l8, s:byte(i))
      local p = lo * 435
      local nlo = p % M
      hi = (hi * 435 + floor(p / M) + (lo % 2 ^ 24) * 256) % M
      lo = nlo
    end
    return ("%08x%08x"):format(hi, lo)
  end
end

--- `("%q"):format(s)` as Lua 5.4 writes it (5.1 writes "\000" for "\0", "\r" for
-- "\13" and other control bytes as they are; 5.2 and 5.3 as 5.4).
if _VERSION ~= "Lua 5.1" then
  function C.quote(s) return ("%q"):format(s) end
else
  local function esc(c, d)
    if c == '"' or c == "\\" or c == "\n" then return "\\" .. c .. d end
    return (d ~= "" and "\\%03d" or "\\%d"):format(c:byte()) .. d
  end
  function C.quote(s) return '"' .. s:gsub('([%c"\\])(%d?)', esc) .. '"' end
end

--- utf8.len, utf8.char, utf8.codepoint (5.3+), or the same in Lua.
C.utf8 = rawget(_G, "utf8")
if not C.utf8 then
  local u = {}
  -- the length of the sequence that starts with byte c, its payload bits, its lowest code point
  local function lead(c)
    if c < 0x80 then return 1, c, 0 end
    if c >= 0xC2 and c < 0xE0 then return 2, c - 0xC0, 0x80 end
    if c >= 0xE0 and c < 0xF0 then return 3, c - 0xE0, 0x800 end
    if c >= 0xF0 and c < 0xF5 then return 4, c - 0xF0, 0x10000 end
  end
  -- the code point at byte i of s and the next position, or nil
  local function decode(s, i)
    local n, cp, low = lead(s:byte(i))
    if not n or i + n - 1 > #s then return nil end
    for k = i + 1, i + n - 1 do
      local c = s:byte(k)
      if c < 0x80 or c > 0xBF then return nil end
      cp = cp * 64 + (c - 0x80)
    end
    if cp < low or cp > 0x10FFFF or (cp >= 0xD800 and cp <= 0xDFFF) then return nil end
    return cp, i + n
  end
  --- The number of code points in s, or nil and the position of the first bad byte.
  function u.len(s)
    local i, n = 1, 0
    while i <= #s do
      local cp, nxt = decode(s, i)
      if not cp then return nil, i end
      i, n = nxt, n + 1
    end
    return n
  end
  --- The code point at byte i (default 1).
  function u.codepoint(s, i)
    local cp = decode(s, i or 1)
    if not cp then error("invalid UTF-8 code", 2) end
    return cp
  end
  --- Iterates over the code points of s: position, code point; raises on invalid UTF-8.
  function u.codes(s)
    local i = 1
    return function()
      if i > #s then return nil end
      local cp, nxt = decode(s, i)
      if not cp then error("invalid UTF-8 code", 2) end
      local at = i
      i = nxt
      return at, cp
    end
  end
  --- The UTF-8 bytes of code point cp.
  function u.char(cp)
    if cp < 0x80 then return string.char(cp) end
    if cp < 0x800 then return string.char(0xC0 + floor(cp / 64), 0x80 + cp % 64) end
    if cp < 0x10000 then
      return string.char(0xE0 + floor(cp / 4096), 0x80 + floor(cp / 64) % 64, 0x80 + cp % 64)
    end
    return string.char(0xF0 + floor(cp / 262144), 0x80 + floor(cp / 4096) % 64, 0x80 + floor(cp / 64) % 64,
                       0x80 + cp % 64)
  end
  C.utf8 = u
end

--- table.move(a, f, e, t, b) (5.3+), or the same in Lua.
C.move = table.move or function(a, f, e, t, b)
  b = b or a
  for k = 0, e - f do b[t + k] = a[f + k] end
  return b
end

return C
