-- What the specs need to run on every Lua (5.1, 5.2, 5.3, 5.4, LuaJIT): the
-- facade's shims (perflib.compat) and a stand-in for a `<close>` scope.
local compat = require "perflib.compat"

local S = {
  math_type = compat.math_type, tointeger = compat.tointeger, unpack = compat.unpack, idiv = compat.idiv,
  utf8 = compat.utf8,
  integers = math.type ~= nil,             -- 5.3+: integers and floats are told apart
  pack = table.pack or function(...) return { n = select("#", ...), ... } end,
}

--- f(v) inside `local x <close> = v` on 5.4; elsewhere f(v), then v's __close as that scope would call it.
if _VERSION == "Lua 5.4" then
  S.scoped = assert(load("return function(v, f) local x <close> = v; return f(x) end"))()
else
  function S.scoped(v, f)
    local ok, err = pcall(f, v)
    getmetatable(v).__close(v, not ok and err or nil)
    if not ok then error(err, 0) end
  end
end

--- FNV-1a, 32 bits, of s: the spec's own loop on 5.3+, the same in arithmetic before
-- (the product by 16777619 = 2^24 + 403 taken apart so that it stays below 2^53).
if S.integers then
  S.fnv32 = assert(load([[return function(label)
    local h = 2166136261
    for i = 1, #label do h = ((h ~ label:byte(i)) * 16777619) & 0xFFFFFFFF end
    return h
  end]]))()
else
  function S.fnv32(label)
    local h = 2166136261
    for i = 1, #label do
      local low, b, x, bit = h % 256, label:byte(i), 0, 1
      for _ = 1, 8 do                          -- low byte xor b
        if low % 2 ~= b % 2 then x = x + bit end
        low, b, bit = math.floor(low / 2), math.floor(b / 2), bit * 2
      end
      h = h - h % 256 + x
      h = ((h % 256) * 16777216 + h * 403) % 4294967296
    end
    return h
  end
end

--- The 4 little-endian bytes of v (string.pack("<I4", v) before 5.3).
function S.u32le(v)
  local b = {}
  for i = 1, 4 do b[i] = v % 256; v = (v - b[i]) / 256 end
  return string.char(S.unpack(b))
end

return S
