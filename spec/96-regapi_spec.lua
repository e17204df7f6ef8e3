-- The registry-style collection from Lua (issue 11, item 2): perflib.collect(what, {v1 = true})
-- gives the PERF_DATA_BLOCK RegQueryValueEx would, and "Counter <lang>" / "Help <lang>" answer
-- the English tables for every language, as the C API (perflib_v1.h) does.
local perflib = require "perflib"

local FIX = "spec/fixtures/basic"
local function u32(s, o) return (string.unpack("<I4", s, o + 1)) end
local function i32(s, o) return (string.unpack("<i4", s, o + 1)) end

local function objects(b)
  local o, list = u32(b, 24), {}
  for _ = 1, u32(b, 28) do
    list[#list + 1] = { index = u32(b, o + 12), ninst = i32(b, o + 40) }
    o = o + u32(b, o)
  end
  return list
end

describe("perflib.collect with opts.v1", function()
  it("returns the Global collection as a V1 block, with the query for the next one", function()
    local b, q, unknown = perflib.collect("Global", { v1 = true })
    assert.is_string(b)
    assert.equals("P\0E\0R\0F\0", b:sub(1, 8))
    assert.equals(#b, u32(b, 20))
    assert.is_true(perflib.check_block(b))
    assert.same({}, unknown)
    local s = perflib.sample_from_block(b)
    assert.is_truthy(s)
    for _, o in ipairs(objects(b)) do assert.is_false(perflib.lookup(o.index).costly or false) end
    assert.is_truthy(q:collect())                     -- the same sets again, for rates
  end)

  it("takes a machine and opts together, and index lists with their unknown indexes", function()
    local m = perflib.machine { root = FIX }
    local b, _, unknown = perflib.collect("2000 1000 77777", m, { v1 = true, system = "fixture" })
    local list = objects(b)
    assert.equals(2, #list)
    local idx = { list[1].index, list[2].index }
    table.sort(idx)
    assert.same({ 1000, 2000 }, idx)
    assert.same({ 77777 }, unknown)
    -- the same selection as a Sample reads back with the same values
    local s = perflib.sample_from_block(b, m)
    local direct = perflib.collect("2000", m)
    local k
    for i, r in ipairs(s:results()) do if r.counterset == "Memory" then k = i end end
    assert.equals(direct:value(1, nil, "Available Bytes"), s:value(k, nil, "Available Bytes"))
  end)

  it("returns the metadata-only form for Metadata* collections", function()
    local b = perflib.collect("MetadataGlobal", { v1 = true })
    assert.is_true(perflib.check_block(b))
    local list = objects(b)
    assert.is_true(#list > 0)
    for _, o in ipairs(list) do assert.is_true(o.ninst == -2 or o.ninst == -3) end
    assert.is_table(perflib.collect "MetadataGlobal")  -- without the option: the tables as before
  end)

  it("refuses opts.v1 for the name tables and a non-table opts", function()
    assert.has_error(function() perflib.collect("Counter 009", { v1 = true }) end,
      "collect: opts.v1 is for data and metadata collections, not name tables")
    assert.has_error(function() perflib.collect("Global", nil, 5) end)
  end)

  it("checks opts.system before collecting, by the rules of s:block", function()
    local ok, err = pcall(perflib.collect, "2000", { v1 = true, system = {} })
    assert.is_false(ok)
    assert.matches("opts.system must be a string", err)
    ok, err = pcall(perflib.collect, "2000", { system = "x" })
    assert.is_false(ok)
    assert.matches("opts.system needs opts.v1", err)
  end)
end)

describe("name tables in other languages", function()
  it("answer English for every language id, as Windows falls back to 009", function()
    local en = perflib.collect "Counter 009"
    assert.same(en, perflib.collect "Counter 007")
    assert.same(en, perflib.collect "counter 407")
    assert.same(en, perflib.collect "Counter")
    assert.same(perflib.collect "Help 009", perflib.collect "Help 011")
    assert.equals("Processor Information", perflib.collect("Counter 007")[1000])
  end)

  it("still reject what is no language id", function()
    assert.has_error(function() perflib.collect "Counter 0x7" end,
      "bad argument #1 to 'collect' (not a registry query string: 'Counter 0x7')")
    assert.has_error(function() perflib.collect "Counter 12345" end)
    assert.has_error(function() perflib.collect "Counters" end)
  end)
end)
