-- Every Lua (issue 14, item 7): the module and the facade on Lua 5.1, 5.2, 5.3, 5.4 and
-- LuaJIT 2.1.  spec/support/run-all.sh runs this file under each of them, with that
-- interpreter's build/<lua>/perflib/core.so (PERFLIB_CORE) and its name in PERFLIB_LUA.
--
-- 64-bit raw counts: 5.3 and 5.4 show them as integers (the signed 64 bits: 2^64-1 is -1);
-- 5.1, 5.2 and LuaJIT, whose numbers are doubles, as a number when |v| <= 2^53 and
-- otherwise as the decimal string of the same signed value, taken back where a raw count
-- is expected (lcompat.h: lpl_pushint64, lpl_toint64).
local perflib = require "perflib"
local core = require "perflib.core"
local compat = require "perflib.compat"
local files = dofile "spec/support/files.lua"

local INTS = math.type ~= nil                       -- 5.3, 5.4
local LUA = os.getenv "PERFLIB_LUA" or "lua5.4"
local CPATH = (os.getenv "PERFLIB_CORE" or "build/perflib/core.so"):gsub("perflib/core%.so$", "?.so")

-- Raw counts at the edges: how 5.3/5.4 show them (int) and how the others do (old).
-- On 5.1 the integer literals below parse as doubles; only 5.3+ reads `int`.
local EDGES = {
  { name = "2^53", int = 9007199254740992, old = 9007199254740992 },
  { name = "2^53 + 1", int = 9007199254740993, old = "9007199254740993" },
  { name = "2^63 - 1", int = 9223372036854775807, old = "9223372036854775807" },
  { name = "-(2^53 + 1)", int = -9007199254740993, old = "-9007199254740993" },
  { name = "-2^63", int = math.mininteger, old = "-9223372036854775808" },
  { name = "2^64 - 1", int = -1, old = -1 },      -- the same 64 bits as -1, on every Lua
}
local function shown(e) if INTS then return e.int end return e.old end

describe("64-bit raw counts", function()
  it("stay exact through perflib.calculate: 2^53 + 1 - 2^53 = 1 and (2^64 - 1) - (2^64 - 2) = 1", function()
    -- PERF_COUNTER_LARGE_DELTA is the difference of the two raw values: a double could not
    -- tell 2^53 + 1 from 2^53 (both 9007199254740992.0), nor 2^64 - 1 from 2^64 - 2
    local a53 = INTS and 9007199254740993 or "9007199254740993"
    local b53 = 9007199254740992
    assert.equals(1, (perflib.calculate("PERF_COUNTER_LARGE_DELTA", a53, b53)))
    -- 2^64 - 1 and 2^64 - 2: -1 and -2 on 5.4; before 5.3 their unsigned decimal strings work too
    local a64 = INTS and -1 or "18446744073709551615"
    local b64 = INTS and -2 or "18446744073709551614"
    assert.equals(1, (perflib.calculate("PERF_COUNTER_LARGE_DELTA", a64, b64)))
    assert.equals(1, (perflib.calculate("PERF_COUNTER_LARGE_DELTA", -1, -2)))
  end)

  it("round-trip through a set perflib.define publishes and Sample:value / Sample:raw", function()
    local m = perflib.machine { root = "spec/fixtures/basic" }
    local vals = { a = shown(EDGES[1]), b = shown(EDGES[2]), c = shown(EDGES[3]) }
    assert(perflib.define { name = "Compat91 Big", machine = m, instances = "multiple",
                            counters = { { name = "V", type = "PERF_COUNTER_LARGE_RAWCOUNT" } },
                            collect = function() return { a = { vals.a }, b = { vals.b }, c = { vals.c } } end })
    local q = perflib.query(m)
    local idx = assert(q:add [[\Compat91 Big(*)\V]])
    local s = assert(q:collect())
    assert.equals(shown(EDGES[1]), (s:value(idx, "a")))
    assert.equals(shown(EDGES[2]), (s:value(idx, "b")))
    assert.equals(shown(EDGES[3]), (s:value(idx, "c")))
    local seen = {}
    for inst, v in s:raw(idx) do seen[inst] = v end
    assert.same({ a = shown(EDGES[1]), b = shown(EDGES[2]), c = shown(EDGES[3]) }, seen)
  end)

  it("round-trip through perflib.provider at 2^53 + 1 and 2^64 - 1 (a child " .. LUA .. ")", function()
    local dir, remove = files.tempdir()
    local inputs = {}
    for i, e in ipairs(EDGES) do
      -- what the child sets: 5.3+ its integer, before its text (2^64 - 1 as "18446744073709551615")
      local v = INTS and ("%d"):format(e.int) or (e.name == "2^64 - 1" and '"18446744073709551615"')
                or (type(e.old) == "string" and ("%q"):format(e.old) or ("%.0f"):format(e.old))
      if INTS and e.int == math.mininteger then v = "math.mininteger" end
      inputs[i] = v
    end
    files.write(dir .. "/case.lua", ([[
local perflib = require "perflib"
local p = assert(perflib.provider { countersets = { { name = "Compat91 Pub", instances = "single",
  counters = { { name = "V", type = "PERF_COUNTER_LARGE_RAWCOUNT" } } } } })
local w = p:instance("Compat91 Pub")
local q = perflib.query()
local idx = assert(q:add "\\Compat91 Pub\\V")
local function show(v)          -- every digit: 5.3+ prints integers so, the others need %%.0f
  if type(v) == "number" and not math.type then return ("%%.0f"):format(v) end
  return tostring(v)
end
for _, v in ipairs { %s } do
  w:set("V", v)
  local got, raw = w:get "V", (assert(q:collect()):value(idx))
  print(type(got), show(got), type(raw), show(raw))
end
print("string below 2^53:", pcall(w.set, w, "V", "12"))
print("fraction:", pcall(w.set, w, "V", 2.5))
p:stop()
]]):format(table.concat(inputs, ", ")))
    local out, rc = files.run(("PERFLIB_APPSEG_DIR=%q LUA_PATH='./lua/?.lua;./lua/?/init.lua;;' "
      .. "LUA_CPATH='%s;;' LUA_PATH_5_4='./lua/?.lua;./lua/?/init.lua;;' LUA_CPATH_5_4='%s;;' timeout 60 %s %s")
      :format(dir, CPATH, CPATH, LUA, dir .. "/case.lua"))
    remove()
    assert.equals(0, rc, out)
    local lines = {}
    for line in out:gmatch "[^\n]+" do lines[#lines + 1] = line end
    for i, e in ipairs(EDGES) do
      local want = shown(e)
      local t = type(want)
      local text = t == "string" and want or (INTS and ("%d"):format(want) or ("%.0f"):format(want))
      assert.equals(("%s\t%s\t%s\t%s"):format(t, text, t, text), lines[i], e.name)
    end
    -- a string is a raw count only in the form these Luas show one: beyond 2^53, before 5.3
    assert.matches("string below 2^53:\tfalse\t.*integer expected, got string", lines[#EDGES + 1])
    assert.matches("fraction:\tfalse\t.*number has no integer representation", lines[#EDGES + 2])
  end)

  it("keep their 64 bits in a rule window: a counter near 2^63 increases by 10", function()
    local w = core.window(100, true)
    -- 2^63 - 5 then 2^63 + 5 (as a signed value -(2^63) + 5): the counter went up by 10
    w:push(0, INTS and 9223372036854775803 or "9223372036854775803")
    w:push(10, INTS and math.mininteger + 5 or "-9223372036854775803")
    assert.equals(10.0, w:reduce("increase", 100, 0, 10))
    assert.same(INTS and { 9223372036854775803, math.mininteger + 5 } or { "9223372036854775803",
                "-9223372036854775803" }, w:export().v)
  end)
end)

describe("the binding on every Lua", function()
  it("formats %I in messages (5.1 and 5.2 have no %I in lua_pushfstring)", function()
    local ok, err = pcall(perflib.provider, { countersets = { { name = "Compat91 Scale",
      counters = { { name = "V", type = "PERF_COUNTER_RAWCOUNT", scale = 11 } } } } })
    assert.is_false(ok)
    assert.matches("scale must be an integer from %-10 to 10", err)
    local okc, msg, kind = core.sandbox(1000, 1048576, nil, function() while true do end end)
    assert.same({ false, "instruction limit (1000) exceeded", "instructions" }, { okc, msg, kind })
  end)

  it("refuses a fractional integer argument as 5.3 does, naming the argument", function()
    local ok, err = pcall(function() core.flap(3.5) end)
    assert.is_false(ok)
    assert.matches("bad argument #1 to '[%w.]*flap' %(number has no integer representation%)", err)
    ok, err = pcall(function() core.flap "x" end)
    assert.is_false(ok)
    assert.matches("bad argument #1 to '[%w.]*flap' %(number expected, got string%)", err)
  end)

  it("raises a type error in 5.4's words", function()
    local ok, err = pcall(function() perflib.metric_name(42) end)
    assert.is_false(ok)
    assert.matches("bad argument #1 to '[%w.]*metric_name' %(counter path or counter table expected, got number%)",
                   err)
  end)
end)

describe("data blocks on every Lua (luaL_Buffer through compat-5.3 before 5.3)", function()
  it("encode a sample and decode it to the same values and the same bytes", function()
    local q = perflib.query { root = "spec/fixtures/basic" }
    local idx = assert(q:add [[\Memory\Available Bytes]])
    local s = assert(q:collect())
    local blk = s:block()
    assert.is_true(perflib.check_block(blk))
    local d = assert(perflib.sample_from_block(blk))
    assert.equals((s:value(idx)), (d:value(idx)))
    assert.is_number((d:value(idx)))
    assert.equals(blk, d:block())
    q:close()
  end)
end)

describe("perflib.compat", function()
  it("hashes with FNV-1a 64 as 5.4's integers do (the published test vectors)", function()
    assert.equals("cbf29ce484222325", compat.fnv1a "")
    assert.equals("af63dc4c8601ec8c", compat.fnv1a "a")
    assert.equals("85944171f73967e8", compat.fnv1a "foobar")
  end)

  it("divides, masks and tells integers as the version can", function()
    assert.equals(3, compat.idiv(7, 2))
    assert.equals(-4, compat.idiv(-7, 2))
    assert.equals(5, compat.bor(compat.bit(1), compat.bit(3)))       -- 1 | 4
    assert.equals(4, compat.band(6, compat.bit(3)))                  -- 6 & 4
    assert.equals(0, compat.band(3, compat.bit(3)))                  -- 3 & 4
    assert.equals("integer", compat.math_type(3))
    assert.equals("float", compat.math_type(3.5))
    assert.is_nil(compat.math_type "3")
    -- 3.0: a float on 5.3+; before, a number with an integral value counts as an integer
    assert.equals(INTS and "float" or "integer", compat.math_type(3.0))
    assert.equals(12, compat.tointeger "12")
    assert.is_nil(compat.tointeger(2.5))
  end)

  it("loads text with an environment and refuses a binary chunk in mode 't'", function()
    assert.equals(4, compat.load("return x", "=t", "t", { x = 4 })())
    local f, err = compat.load(string.dump(function() end), "=bin", "t", {})
    assert.is_nil(f)
    assert.matches("binary", err)
  end)

  it("quotes as 5.4's %q: control bytes as decimal escapes, 3 digits before a digit", function()
    assert.equals('"\\0\\0131"', compat.quote "\0\r1")
    assert.equals('"a\\\nb\\"\\\\"', compat.quote 'a\nb"\\')
  end)

  it("has utf8 len, char, codepoint and codes", function()
    local u = compat.utf8
    assert.equals(2, u.len "h\195\169")
    assert.same({ nil, 1 }, { u.len "\255" })
    assert.equals("\226\130\172", u.char(0x20AC))                   -- U+20AC, the euro sign
    assert.equals(0x20AC, u.codepoint "\226\130\172")
    local cps = {}
    for _, c in u.codes "a\195\169" do cps[#cps + 1] = c end
    assert.same({ 0x61, 0xE9 }, cps)
  end)

  it("lets every facade module load on " .. _VERSION .. (rawget(_G, "jit") and " (LuaJIT)" or ""), function()
    for _, name in ipairs { "perflib", "perflib.compat", "perflib.frame", "perflib.monitor", "perflib.pretty",
        "perflib.promrules", "perflib.record", "perflib.replay", "perflib.rules", "perflib.serve",
        "perflib.view", "perflib.rules.alert", "perflib.rules.detail", "perflib.rules.engine",
        "perflib.rules.notify", "perflib.rules.sandbox", "perflib.rules.test", "perflib.rules.text",
        "perflib.rules.webhook", "perflib.rules.window" } do
      assert.is_table(require(name), name)
    end
  end)
end)
