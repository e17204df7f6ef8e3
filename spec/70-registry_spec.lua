-- The registry interface: title indexes, Global / Costly / index lists,
-- metadata-only collection and the name tables.
local perflib = require "perflib"

local FIX = "spec/fixtures/basic"

describe("title indexes", function()
  it("gives every counterset and counter name a stable number, both ways", function()
    local cs = perflib.counterset "Processor Information"
    assert.equals(1000, cs.index)
    assert.equals(2000, perflib.counterset("Memory").index)
    assert.equals(3000, perflib.counterset("System").index)
    -- counter id n of a set at index X is X + 2 + 2n; its help is one more
    assert.equals(1002, cs:counter("% Processor Time").index)
    assert.equals(1018, cs:counter("% Idle Time").index)       -- id 8
    assert.equals(1018, perflib.index_of("Processor Information", "% Idle Time"))
    assert.equals(1018, perflib.index_of("Processor Information", 8))
    assert.equals(1000, perflib.index_of "processor information")
    assert.is_nil(perflib.index_of "Nope")
    assert.is_nil(perflib.index_of("Memory", "Nope"))
    assert.same({ index = 1018, counterset = "Processor Information", counter = "% Idle Time",
                  help = false, text = "% Idle Time" }, perflib.lookup(1018))
    local h = perflib.lookup(1019)
    assert.is_true(h.help)
    assert.equals(cs:counter("% Idle Time").help, h.text)
    assert.same({ index = 2000, counterset = "Memory", help = false, text = "Memory" }, perflib.lookup(2000))
    assert.is_nil(perflib.lookup(1998))    -- below Memory, past Processor Information's ids
    assert.is_nil(perflib.lookup(7))
    assert.is_nil(perflib.lookup(-1))
  end)

  it("keeps every index unique and every counter inside its set's span", function()
    local seen = {}
    for cs in perflib.countersets() do
      assert.equals(0, cs.index % 1000)
      assert.is_nil(seen[cs.index], cs.name)
      seen[cs.index] = cs.name
      for _, c in ipairs(cs.counters) do
        assert.is_true(c.index > cs.index and c.index < cs.index + 1000)
        assert.is_nil(seen[c.index])
        seen[c.index] = c.name
      end
    end
  end)
end)

describe("perflib.collect", function()
  it("collects every counterset not marked costly for Global", function()
    local m = perflib.machine { root = FIX }
    local s, q, unknown = perflib.collect("Global", m)
    assert.equals("sample", perflib.type(s))
    assert.equals("query", perflib.type(q))
    assert.same({}, unknown)
    local names = {}
    for _, r in ipairs(s:results()) do names[#names + 1] = r.counterset end
    for cs in m:countersets() do
      local listed = false
      for _, n in ipairs(names) do listed = listed or n == cs.name end
      assert.equals(not cs.costly, listed, cs.name)
    end
    -- the query goes on: a second sample gives rates
    local s1 = q:collect()
    assert.equals(2, s1.seq)
  end)

  it("collects the costly sets for Costly", function()
    local s = perflib.collect("Costly", perflib.machine { root = FIX })
    for _, r in ipairs(s:results()) do
      assert.is_true(perflib.counterset(r.counterset).costly)
    end
  end)

  it("collects a list of indexes and reports the ones that name nothing", function()
    local s, _, unknown = perflib.collect("3000 1000 999", perflib.machine { root = FIX })
    local r = s:results()
    assert.equals("System", r[1].counterset)
    assert.equals("Processor Information", r[2].counterset)
    assert.same({ 999 }, unknown)
  end)

  it("returns definitions only for MetadataGlobal, without I/O", function()
    local md = perflib.collect("MetadataGlobal", perflib.machine { root = "spec/fixtures/does-not-exist" })
    assert.is_true(#md >= 3)
    assert.equals("Processor Information", md[1].name)
    assert.equals("multiple", md[1].instance_type)
    assert.equals(1001, md[1].help_index)
    assert.equals("% Processor Time", md[1].counters[1].name)
    for _, cs in ipairs(md) do assert.is_false(cs.costly) end
    for _, cs in ipairs(perflib.collect "MetadataCostly") do assert.is_true(cs.costly) end
  end)

  it("returns the name and help tables", function()
    local names, help = perflib.collect "Counter 009", perflib.collect "help"
    assert.equals("Processor Information", names[1000])
    assert.equals("% Processor Time", names[1002])
    assert.equals(perflib.counterset("Memory").help, help[2001])
    assert.same(names, perflib.collect "Counter 007")   -- English for every language (96-regapi_spec)
  end)

  it("rejects what is not a query string", function()
    assert.has_error(function() perflib.collect "Globl" end,
      "bad argument #1 to 'collect' (not a registry query string: 'Globl')")
    assert.has_error(function() perflib.collect "12 x" end)
    assert.has_error(function() perflib.collect() end)
  end)
end)

describe("collect's jobs, one function each", function()
  local function counterset_names(s)
    local out = {}
    for _, r in ipairs(s:results()) do out[#out + 1] = r.counterset end
    return out
  end

  it("collect_sets: the sets collect's data strings name, a query and the unknown indexes", function()
    local m = perflib.machine { root = FIX }
    for _, what in ipairs { "Global", "Costly", "3000 1000 999" } do
      local s, q, unknown = perflib.collect_sets(what, m)
      local s_old, _, unknown_old = perflib.collect(what, m)
      assert.same(counterset_names(s_old), counterset_names(s), what)
      assert.same(unknown_old, unknown, what)
      assert.equals(2, q:collect().seq, what)           -- the same query again, for rates
    end
    local s, _, unknown = perflib.collect_sets("3000 1000 999", m)
    assert.same({ "System", "Processor Information" }, counterset_names(s))
    assert.same({ 999 }, unknown)
  end)

  it("collect_block: the V1 block collect{v1 = true} returns, data or definitions only", function()
    local m = perflib.machine { root = FIX }
    local blk, q, unknown = perflib.collect_block("1000 999", m, { system = "box" })
    assert.equals("query", perflib.type(q))
    assert.same({ 999 }, unknown)
    local s = assert(perflib.sample_from_block(blk))
    assert.same({ "Processor Information" }, counterset_names(s))
    -- the same bytes as collect's, but for the times and the sample number in the header
    local old = perflib.collect("1000", m, { v1 = true, system = "box" })
    assert.equals(#old, #blk)
    local md = perflib.collect_block("Global", m, { metadata = true })
    assert.equals(#perflib.collect("MetadataGlobal", m, { v1 = true }), #md)
    assert.equals(#md, #perflib.collect_block("MetadataGlobal", m))
    assert.is_true(#md < #perflib.collect_block("Global", m))   -- no instance data
    assert.has_error(function() perflib.collect_block("1000", m, { v1 = true }) end,
      "collect_block: unknown option 'v1'")
    local ok, err = pcall(perflib.collect_block, "1000", m, { system = {} })
    assert.is_false(ok)
    assert.matches("opts.system must be a string", err)
  end)

  it("metadata: the definitions MetadataGlobal gives, for any selection, without I/O", function()
    local m = perflib.machine { root = "spec/fixtures/does-not-exist" }
    assert.same(perflib.collect("MetadataGlobal", m), perflib.metadata("Global", m))
    assert.same(perflib.collect("MetadataCostly", m), perflib.metadata("MetadataCostly", m))
    local two = perflib.metadata("3000 1000", m)
    assert.equals(2, #two)
    assert.equals("System", two[1].name)
    assert.equals(1001, two[2].help_index)
  end)

  it("counter_names, help_texts and counter_units: the three title tables", function()
    assert.same(perflib.collect "Counter 009", perflib.counter_names())
    assert.same(perflib.collect "Help 009", perflib.help_texts())
    assert.same(perflib.collect "Units 009", perflib.counter_units())
    assert.equals("% Processor Time", perflib.counter_names()[1002])   -- 1000 + 2 + 2 x id 0
    assert.equals(perflib.counterset("Memory").help, perflib.help_texts()[2001])
  end)

  it("each refuses the strings of the others' jobs, naming the one to use", function()
    assert.has_error(function() perflib.collect_sets "Counter 009" end,
      "bad argument #1 to 'collect_sets' ('Counter 009' is not for collect_sets: use perflib.counter_names)")
    assert.has_error(function() perflib.collect_sets "MetadataGlobal" end,
      "bad argument #1 to 'collect_sets' ('MetadataGlobal' is not for collect_sets: use perflib.metadata)")
    assert.has_error(function() perflib.metadata "Units 009" end,
      "bad argument #1 to 'metadata' ('Units 009' is not for metadata: use perflib.counter_units)")
    assert.has_error(function() perflib.collect_block "Help 009" end,
      "bad argument #1 to 'collect_block' ('Help 009' is not for collect_block: use perflib.help_texts)")
    assert.has_error(function() perflib.collect_sets "Globl" end,
      "bad argument #1 to 'collect_sets' (not a registry query string: 'Globl')")
  end)
end)

describe("Query:add_sets", function()
  it("adds whole sets to a query, once", function()
    local q = perflib.query { root = FIX }
    q:add "\\Memory\\Available Bytes"
    assert.same({ 2, 2, {} }, { q:add_sets "1000 3000" })
    assert.same({ 4, 0, {} }, { q:add_sets "1000" })
    assert.same({ 4, 0, { 5 } }, { q:add_sets "5" })
    assert.equals("\\Processor Information(*)\\*", q:specs()[2].path)
    assert.equals("\\System\\*", q:specs()[3].path)
    assert.has_error(function() q:add_sets "MetadataGlobal" end)
    assert.has_error(function() q:add_sets "x" end)
  end)
end)
