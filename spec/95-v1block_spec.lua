-- Samples as PerfLib V1 PERF_DATA_BLOCKs (issue 11, item 1): s:block{v1 = true}, its layout as
-- winperf.h has it, round trips through perflib.sample_from_block that format exactly like the
-- original, the metadata form, and strict validation of V1 blocks from outside.
local perflib = require "perflib"
local pretty = require "perflib.pretty"

local FIX = "spec/fixtures/basic"
local function u32(s, o) return (string.unpack("<I4", s, o + 1)) end
local function i32(s, o) return (string.unpack("<i4", s, o + 1)) end
local function i64(s, o) return (string.unpack("<i8", s, o + 1)) end

-- The objects of a V1 block: offset, title index, counters, instances.
local function objects(b)
  local o, list = u32(b, 24), {}
  for _ = 1, u32(b, 28) do
    list[#list + 1] = { off = o, index = u32(b, o + 12), ncounters = u32(b, o + 32), ninst = i32(b, o + 40) }
    o = o + u32(b, o)
  end
  return list, o
end

-- Results that have data, in order: what the V1 block carries.
local function data_results(s)
  local out = {}
  for i, r in ipairs(s:results()) do
    if not r.error then out[#out + 1] = i end
  end
  return out
end

-- evaluate's table without _layout, its cache key (it mixes in the result id, which V1 does not carry)
local function values(s1, s0, i)
  local t = s1:evaluate(s0, i)
  t._layout = nil
  return pretty.write(t)
end

local function same_values(a0, a1, b0, b1)
  local idx = data_results(a1)
  assert.equal(#idx, #b1)
  for k, i in ipairs(idx) do
    assert.equal(values(a1, a0, i), values(b1, b0, k), "result " .. i)
  end
end

describe("Sample:block{v1 = true}", function()
  local q = perflib.query { root = FIX }
  q:add_sets("Global")
  local s0 = q:collect()
  local s1 = q:collect()
  local b1 = s1:block { v1 = true, system = "fixture" }

  it("starts with PERF_DATA_BLOCK: signature, version, sizes, system name and the sample's clocks", function()
    assert.equal("P\0E\0R\0F\0", b1:sub(1, 8))
    assert.same({ 1, 1, 1 }, { u32(b1, 8), u32(b1, 12), u32(b1, 16) })  -- LittleEndian, Version, Revision
    assert.equal(#b1, u32(b1, 20))                        -- TotalByteLength
    assert.equal(0, #b1 % 8)
    assert.equal(88 + 16, u32(b1, 24))                    -- HeaderLength: 88 + "fixture\0" in UTF-16
    assert.equal(#data_results(s1), u32(b1, 28))          -- NumObjectTypes
    assert.equal(tonumber(os.date("!%Y")), (string.unpack("<I2", b1, 37)))   -- SystemTime.wYear
    assert.equal(s1.time, i64(b1, 56))                    -- PerfTime
    assert.equal(s1.freq, i64(b1, 64))                    -- PerfFreq
    assert.same({ 16, 88 }, { u32(b1, 80), u32(b1, 84) }) -- SystemNameLength, SystemNameOffset
    assert.equal("f\0i\0x\0t\0u\0r\0e\0\0\0", b1:sub(89, 104))
  end)

  it("has one PERF_OBJECT_TYPE per result with data, named by the counterset's title index", function()
    local objs, stop = objects(b1)
    assert.equal(#b1, stop)
    local res = s1:results()
    for k, i in ipairs(data_results(s1)) do
      local o, cs = objs[k], perflib.counterset(res[i].counterset)
      assert.equal(cs.index, o.index)
      assert.equal(o.index + 1, u32(b1, o.off + 20))      -- ObjectHelpTitleIndex
      assert.equal(64, u32(b1, o.off + 8))                -- HeaderLength
      assert.equal(64 + 40 * o.ncounters, u32(b1, o.off + 4))   -- DefinitionLength
      assert.equal(0, u32(b1, o.off) % 8)
      if cs.instance_type == "single" then assert.equal(-1, o.ninst) else assert.equal(#res[i].instances, o.ninst) end
      -- counter definitions: title indexes of the counter (even) and its help (odd); values inside the block
      local d, blen = o.off + 64, nil
      for _ = 1, o.ncounters do
        assert.equal(40, u32(b1, d))
        assert.equal(u32(b1, d + 4) + 1, u32(b1, d + 12))
        local size, off = u32(b1, d + 32), u32(b1, d + 36)
        assert.is_true(size == 4 or size == 8)
        assert.equal(0, off % size)                       -- 8-byte values 8-aligned
        blen = math.max(blen or 0, off + size)
        d = d + 40
      end
    end
  end)

  it("reads back with perflib.sample_from_block, formatting exactly like the original", function()
    local r0 = assert(perflib.sample_from_block(s0:block { v1 = true }))
    local r1 = assert(perflib.sample_from_block(b1))
    same_values(s0, s1, r0, r1)
    same_values(nil, s1, nil, r1)
    assert.is_true(perflib.check_block(b1))
  end)

  it("gives the definitions only with metadata = true", function()
    local m = s1:block { v1 = true, metadata = true }
    assert.is_true(perflib.check_block(m))
    for _, o in ipairs((objects(m))) do
      assert.is_true(o.ninst == -2 or o.ninst == -3)      -- PERF_METADATA_MULTIPLE_INSTANCES / _NO_INSTANCES
      assert.equal(u32(m, o.off + 4), u32(m, o.off))      -- nothing after the definitions
    end
    local r, err, code = perflib.sample_from_block(m)
    assert.is_nil(r)
    assert.matches("metadata%-only", err)
    assert.equal(22, code)
  end)

  it("names the system after this host by default", function()
    local b = s1:block { v1 = true }
    assert.is_true(u32(b, 80) >= 2)
    assert.is_true(perflib.check_block(b))
  end)

  it("raises on misused options, naming them", function()
    assert.has_error(function() s1:block { metadata = true } end,
      "block: opts.metadata needs opts.v1 (V2 blocks have no metadata form)")
    assert.has_error(function() s1:block { v1 = true, system = {} } end, "block: opts.system must be a string")
  end)
end)

describe("V1 blocks on the live machine", function()
  it("round-trip a Global collection two samples apart", function()
    local q = perflib.query()
    q:add_sets("Global")
    local s0 = q:collect()
    perflib.sleep(0.05)
    local s1 = q:collect()
    local r0 = assert(perflib.sample_from_block(s0:block { v1 = true }))
    local r1 = assert(perflib.sample_from_block(s1:block { v1 = true }))
    same_values(s0, s1, r0, r1)
  end)
end)

describe("V1 blocks from outside", function()
  local q = perflib.query { root = FIX }
  q:add("\\Memory\\*")
  local b = q:collect():block { v1 = true, system = "x" }   -- header 88 + 4 -> 96

  local function patch(s, off, v) return s:sub(1, off) .. string.pack("<I4", v) .. s:sub(off + 5) end

  it("are checked: lying sizes, odd alignment and offsets past their block are errors with the offset", function()
    local cases = {
      { patch(b, 20, #b + 8), "block: offset 20: TotalByteLength not a multiple of 8 or larger than the buffer" },
      { patch(b, 96, u32(b, 96) + 4), "block: offset 96: PERF_OBJECT_TYPE TotalByteLength below 64, " ..
        "not a multiple of 8 or past the block" },
      { patch(b, 96 + 64 + 36, 4096), "block: offset 196: CounterOffset + CounterSize past its PERF_COUNTER_BLOCK" },
      { b:sub(1, 90), "block: offset 20: TotalByteLength not a multiple of 8 or larger than the buffer" },
    }
    for _, c in ipairs(cases) do
      local ok, err, code = perflib.check_block(c[1])
      assert.is_nil(ok)
      assert.equal(c[2], err)
      assert.equal(22, code)
      local s, err2 = perflib.sample_from_block(c[1])
      assert.is_nil(s)
      assert.equal(c[2], err2)
    end
  end)

  it("read when their objects are this machine's countersets, else say which object is unknown", function()
    assert.is_truthy(perflib.sample_from_block(b))
    local other = patch(b, 96 + 12, 123456)
    assert.is_true(perflib.check_block(other))
    local s, err = perflib.sample_from_block(other)
    assert.is_nil(s)
    assert.equal("block: offset 108: ObjectNameTitleIndex names no registered counterset", err)
  end)
end)
