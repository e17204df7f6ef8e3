-- perflib.pretty: the REPL's printer. Pure Lua, no build needed.
local C = require "spec.support.compat"
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path

local pretty = require "perflib.pretty"
local write = pretty.write

describe("perflib.pretty.write", function()
  describe("numbers", function()
    it("prints integers with %d, including the extremes #lua53", function()
      assert.equal("42", write(42))
      assert.equal("-7", write(-7))
      assert.equal("9223372036854775807", write(math.maxinteger))
      assert.equal("-9223372036854775808", write(math.mininteger))
    end)

    it("keeps floats visibly floats #lua53", function()
      assert.equal("1.0", write(1.0))
      assert.equal("-3.0", write(-3.0))
      assert.equal("-0.0", write(-0.0))
      assert.equal("1e+100", write(1e100))
    end)

    it("uses the short form when it reads back exactly", function()
      assert.equal("0.1", write(0.1))
      assert.equal("2.5", write(2.5))
      assert.equal("0.30000000000000004", write(0.1 + 0.2))
      assert.equal(1 / 3, tonumber(write(1 / 3)))
    end)

    it("prints 2^63 so that it reads back as the same float", function()
      local s = write(2 ^ 63)
      assert.equal(2 ^ 63, tonumber(s))
      if C.integers then assert.equal("float", C.math_type(tonumber(s))) end
      assert.equal(2 ^ 53 + 2, tonumber(write(2 ^ 53 + 2)))
    end)

    it("prints infinities and NaN", function()
      assert.equal("inf", write(math.huge))
      assert.equal("-inf", write(-math.huge))
      assert.equal("nan", write(0 / 0))
      assert.equal("nan", write(-(0 / 0)))
    end)

    it("round-trips a spread of floats", function()
      for _, x in ipairs({ 1e-300, 123456.789, 2 ^ -1074, 1.7976931348623157e308, 0.1 * 3 }) do
        assert.equal(x, tonumber(write(x)))
      end
    end)
  end)

  describe("scalars", function()
    it("quotes strings with %q, newlines as \\n", function()
      assert.equal('"hi"', write("hi"))
      assert.equal('"a\\nb"', write("a\nb"))
      assert.equal('"q\\"\\\\"', write('q"\\'))
      assert.equal('"\\0"', write("\0"))
      assert.equal('"x\\\\\\n"', write("x\\\n"))
    end)

    it("prints nil, booleans and functions like tostring", function()
      assert.equal("nil", write(nil))
      assert.equal("true", write(true))
      assert.equal("false", write(false))
      assert.matches("^function: ", write(print))
    end)

    it("prints userdata through __tostring", function()
      assert.matches("^file %(0x%x+%)$", write(io.stdout))
    end)

    it("survives a __tostring that raises", function()
      local t = setmetatable({}, { __tostring = function() error("no") end })
      assert.equal("<table: __tostring failed>", write(t))
    end)
  end)

  describe("tables", function()
    it("prints empty and short tables inline #lua53", function()
      assert.equal("{}", write({}))
      assert.equal("{ 1, 2, 3 }", write({ 1, 2, 3 }))
      assert.equal('{ 1, "two", 3.0 }', write({ 1, "two", 3.0 }))
    end)

    it("sorts keys: sequence first, other numbers, then strings, booleans", function()
      local t = { "a", "b", [10] = 1, [-1] = 2, [1.5] = 3, z = 4, y = 5, [true] = 6, [false] = 7 }
      assert.equal('{ "a", "b", [-1] = 2, [1.5] = 3, [10] = 1, y = 5, z = 4, '
        .. '[false] = 7, [true] = 6 }',
        write(t, { width = 200 }))
    end)

    it("brackets keys that are not identifiers", function()
      assert.equal('{ ["a b"] = 1, ["end"] = 2, ok_1 = 3 }',
        write({ ["a b"] = 1, ["end"] = 2, ok_1 = 3 }))
    end)

    it("indents nested tables that do not fit on a line", function()
      local t = { name = string.rep("x", 60), sub = { a = 1, b = { c = string.rep("y", 70) } } }
      local expected = table.concat({
        "{",
        '  name = "' .. string.rep("x", 60) .. '",',
        "  sub = {",
        "    a = 1,",
        "    b = {",
        '      c = "' .. string.rep("y", 70) .. '"',
        "    }",
        "  }",
        "}",
      }, "\n")
      assert.equal(expected, write(t))
    end)

    it("honours the indent option", function()
      local out = write({ s = string.rep("z", 80) }, { indent = "\t" })
      assert.equal('{\n\ts = "' .. string.rep("z", 80) .. '"\n}', out)
    end)

    it("shows cycles as <cycle>", function()
      local t = { name = "t" }
      t.self = t
      t.list = { t }
      assert.equal('{ list = { <cycle> }, name = "t", self = <cycle> }', write(t))
    end)

    it("prints a shared (non-cyclic) table each time it appears", function()
      local s = { 1 }
      assert.equal("{ { 1 }, { 1 } }", write({ s, s }))
    end)

    it("stops at the depth limit (default 6)", function()
      local t = { 1, { 2, { 3, { 4, { 5, { 6, { 7 } } } } } } }
      assert.equal("{ 1, { 2, { 3, { 4, { 5, { 6, {...} } } } } } }", write(t))
      assert.equal("{ 1, {...} }", write(t, { depth = 1 }))
      assert.equal("{...}", write(t, { depth = 0 }))
    end)

    it("elides long arrays after max_items (default 50)", function()
      local t = {}
      for i = 1, 60 do t[i] = i end
      local out = write(t)
      assert.matches("%.%.%. %(10 more%)", out)
      assert.matches(" 50, %.%.%.", out)
      assert.is_nil(out:find("51", 1, true))
      assert.equal("{ 1, 2, ... (58 more) }", write(t, { max_items = 2 }))
    end)

    it("counts keyed entries in the elision too", function()
      assert.equal("{ 1, a = 1, ... (1 more) }", write({ 1, a = 1, b = 2 }, { max_items = 2 }))
    end)

    it("packs long arrays of scalars into rows within the width", function()
      local t = {}
      for i = 1, 40 do t[i] = i end
      local out = write(t)
      for line in out:gmatch("[^\n]+") do assert.is_true(#line <= 78) end
      assert.equal("{", out:match("^[^\n]+"))
      assert.truthy(select(2, out:gsub("\n", "")) <= 4)
    end)

    it("uses __tostring of tables that have one", function()
      local obj = setmetatable({}, { __tostring = function() return "perflib.Thing (x)" end })
      assert.equal("{ perflib.Thing (x) }", write({ obj }))
    end)

    it("ignores __index and __pairs", function()
      local t = setmetatable({ 1 }, {
        __index = function(_, k) return k == 2 and "ghost" or nil end,
        __pairs = function() error("must not be called") end,
      })
      assert.equal("{ 1 }", write(t))
    end)
  end)

  describe("options", function()
    it("rejects unknown options and wrong types", function()
      assert.has_error(function() write(1, { bogus = 1 }) end,
        "bad argument #2 to 'write' (unknown option 'bogus')")
      assert.has_error(function() write(1, { depth = "2" }) end,
        "bad argument #2 to 'write' (option 'depth' must be a number)")
      assert.has_error(function() write(1, 5) end,
        "bad argument #2 to 'write' (table expected, got number)")
    end)
  end)
end)

describe("perflib.pretty.print", function()
  local function capture(...)
    local name = os.tmpname()
    local f = assert(io.open(name, "w"))
    local real = io.stdout
    -- pretty.print writes to io.stdout; swap it for a file for the call.
    rawset(io, "stdout", f)
    local ok, err = pcall(pretty.print, ...)
    rawset(io, "stdout", real)
    f:close()
    local text = assert(io.open(name)):read("*a")
    os.remove(name)
    assert(ok, err)
    return text
  end

  it("writes arguments tab-separated with a newline, nils included", function()
    assert.equal('1\t"a"\tnil\t{ 2 }\tnil\n', capture(1, "a", nil, { 2 }, nil))
  end)

  it("writes just a newline with no arguments", function()
    assert.equal("\n", capture())
  end)
end)
