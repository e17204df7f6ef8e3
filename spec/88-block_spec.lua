-- Samples as PerfLib V2 data blocks: byte layout, round trips that format exactly like the
-- original, and strict validation of blocks that come from outside.
local perflib = require "perflib"
local pretty = require "perflib.pretty"
local files = dofile "spec/support/files.lua"

local function u32(s, o) return (string.unpack("<I4", s, o + 1)) end
local function i64(s, o) return (string.unpack("<i8", s, o + 1)) end

local SPECS = {
  "\\Processor Information(*)\\*",                       -- counterset
  "\\Memory\\*",                                         -- multiple counters
  "\\Processor Information(_Total)\\% Processor Time",   -- single counter
  "\\Processor Information(*)\\% User Time",             -- multiple instances
  "\\Processor Information(nosuch)\\% Processor Time",   -- error: no instance
  "\\Process(*)\\*",                                     -- keys (start times), many names
  "\\Network Interface(*)\\Bytes Received/sec",
}

local function two_samples()
  local q = perflib.query()
  for _, p in ipairs(SPECS) do assert(q:add(p)) end
  local s0 = q:collect()
  perflib.sleep(0.05)
  local s1 = q:collect()
  return q, s0, s1
end

local function same_sample(a0, a1, b0, b1)
  assert.equal(#a1, #b1)
  for i = 1, #a1 do
    assert.equal(pretty.write(a1:evaluate(a0, i)), pretty.write(b1:evaluate(b0, i)), "result " .. i)
    local ra, rb = {}, {}
    for n, v, st, c, b in a1:raw(i) do ra[#ra + 1] = { n, v, st, c, b } end
    for n, v, st, c, b in b1:raw(i) do rb[#rb + 1] = { n, v, st, c, b } end
    assert.same(ra, rb)
  end
  assert.same(a1:results(), b1:results())
end

describe("Sample:block", function()
  local q, s0, s1 = two_samples()
  local b1 = s1:block()
  local std = s1:block { standard = true }

  it("starts with PERF_DATA_HEADER: sizes, counts and the sample's clocks", function()
    assert.equal(#b1, u32(b1, 0))                         -- dwTotalSize
    assert.equal(0, #b1 % 8)
    assert.equal(#SPECS, u32(b1, 4))                      -- dwNumCounters
    assert.equal(s1.time, i64(b1, 8))                     -- PerfTimeStamp
    assert.equal(s1.freq, i64(b1, 24))                    -- PerfFreq
    local year = string.unpack("<I2", b1, 33)
    assert.equal(tonumber(os.date("!%Y")), year)          -- SystemTime.wYear
  end)

  it("lays the five result shapes out as PerfQueryCounterData does", function()
    local o, shapes = 48, {}
    for k = 1, #SPECS do
      local size, typ = u32(std, o + 8), u32(std, o + 4)
      assert.equal(0, size % 8)
      assert.equal(0, u32(std, o + 12))                   -- Reserved: 0 in the standard form
      shapes[k] = typ
      if k == 2 then
        -- PERF_MULTI_COUNTERS: dwSize, dwCounters, then the ids; one PERF_COUNTER_DATA each
        local n = u32(std, o + 20)
        assert.equal(#s1:results()[2].counters, n)
        local mc = u32(std, o + 16)
        assert.equal(0, mc % 8)
        local d = o + 16 + mc
        assert.equal(8, u32(std, d))                      -- dwDataSize of a 64-bit counter
        assert.equal(16, u32(std, d + 4))                 -- dwSize: 8 + 8
      elseif k == 3 then
        -- one PERF_COUNTER_DATA: the raw value of _Total's % Processor Time
        assert.equal(8, u32(std, o + 16))
        assert.equal((s1:value(3, "_Total", "% Processor Time")), i64(std, o + 24))
      elseif k == 5 then
        assert.equal(4201, u32(std, o))                   -- dwStatus ERROR_WMI_INSTANCE_NOT_FOUND
        assert.equal(16, size)                            -- a bare header
      elseif k == 4 then
        -- PERF_MULTI_INSTANCES, then per instance PERF_INSTANCE_HEADER (UTF-16LE name) + data
        local n = u32(std, o + 20)
        assert.equal(#s1:results()[4].instances, n)
        local ih = o + 24
        local isize, iid = u32(std, ih), u32(std, ih + 4)
        assert.equal(s1:results()[4].ids[1], iid)
        assert.equal(0, isize % 8)
        local name = s1:results()[4].instances[1]
        local utf16 = name:gsub(".", "%0\0") .. "\0\0"
        assert.equal(utf16, std:sub(ih + 9, ih + 8 + #utf16))
      end
      o = o + size
    end
    assert.same({ 6, 2, 1, 4, 0, 6, 4 }, shapes)
    assert.equal(#std, o)                                 -- nothing after the last block
  end)

  it("turns back into a sample that formats exactly like the original", function()
    local d0 = assert(perflib.sample_from_block(s0:block()))
    local d1 = assert(perflib.sample_from_block(b1))
    same_sample(s0, s1, d0, d1)
    same_sample(s0, s1, s0, d1)                          -- pairs with the original, too
    assert.equal(b1, d1:block())                         -- and encodes to the same bytes
    assert.equal(s1.seq, d1.seq)
  end)

  it("round-trips an empty query's sample: a bare header and the sample trailer", function()
    local q0 = perflib.query()
    local e0, e1 = q0:collect(), q0:collect()
    local b = e1:block()
    assert.equal(48 + 24, #b)
    assert.equal(0, u32(b, 4))
    local d = assert(perflib.sample_from_block(b))
    assert.equal(0, #d)
    assert.equal(e1.seq, d.seq)
    assert.equal(48, #e1:block { standard = true })
    assert.is_true(perflib.check_block(b))
    q0:close()
    assert.is_nil(e0:block():find("PLX1", 1, true))
  end)

  it("goes through a file", function()
    local dir, remove = files.tempdir()
    local path = dir .. "/sample.blk"
    files.write(path, b1)
    local f = assert(io.open(path, "rb"))
    local d1 = assert(perflib.sample_from_block(f:read("a")))
    f:close()
    same_sample(s0, s1, s0, d1)
    remove()
  end)

  it("validates both forms", function()
    assert.is_true(perflib.check_block(b1))
    assert.is_true(perflib.check_block(std))
  end)

  it("needs perflib's trailers to become a sample", function()
    local s, msg, e = perflib.sample_from_block(std)
    assert.is_nil(s)
    assert.matches("^block: offset 60: not a perflib block", msg)
    assert.equal(22, e)                                   -- EINVAL
  end)

  q:close()
end)

describe("perflib.sample_from_block on untrusted blocks", function()
  local q = perflib.query()
  q:add "\\Processor Information(*)\\*"
  q:add "\\Memory\\Available Bytes"
  local b = q:collect():block()
  q:close()

  local function put32(s, o, v) return s:sub(1, o) .. string.pack("<I4", v) .. s:sub(o + 5) end

  it("rejects lying sizes with the offset and the rule", function()
    local cases = {
      { put32(b, 0, #b + 8), 0, "dwTotalSize larger than the buffer" },
      { put32(b, 0, 44), 0, "dwTotalSize below 48 or not a multiple of 8" },
      { put32(b, 4, 1000), 4, "dwNumCounters more than dwTotalSize holds" },
      { put32(b, 56, 12), 56, "PERF_COUNTER_HEADER dwSize below 16 or not a multiple of 8" },
      { put32(b, 56, u32(b, 56) + 8), nil, nil },
      { put32(b, 52, 3), 52, "PERF_COUNTER_HEADER dwType is not a result shape (0, 1, 2, 4, 6)" },
      { put32(b, 64, 0xFFFFFFF8), 64, "PERF_MULTI_COUNTERS dwSize below 8, not a multiple of 8 or past its block" },
    }
    for _, c in ipairs(cases) do
      local s, msg = perflib.sample_from_block(c[1])
      assert.is_nil(s)
      if c[2] then
        assert.equal(("block: offset %d: %s"):format(c[2], c[3]), msg)
      else
        assert.matches("^block: offset %d+: ", msg)
      end
      assert.is_nil(perflib.check_block(c[1]))
    end
  end)

  it("rejects an instance name that does not end inside its block", function()
    -- the first instance header: after the header (16), PERF_MULTI_COUNTERS and PERF_MULTI_INSTANCES
    local o = 48 + 16 + u32(b, 64) + 8
    local size = u32(b, o)
    local bad = b:sub(1, o + 8) .. ("A\0"):rep((size - 8) // 2) .. b:sub(o + size + 1)
    local s, msg = perflib.sample_from_block(bad)
    assert.is_nil(s)
    assert.equal(("block: offset %d: instance name not terminated inside its block"):format(o + 8), msg)
  end)

  it("names an unknown counterset", function()
    -- the trailer of the first block starts at its end minus the trailer size
    local size = u32(b, 56)
    local t = 48 + size - u32(b, 48 + size - 8)
    local bad = b:sub(1, t) .. ("\0"):rep(16) .. b:sub(t + 17)
    local s, msg = perflib.sample_from_block(bad)
    assert.is_nil(s)
    assert.equal(("block: offset %d: unknown counterset GUID"):format(t), msg)
  end)

  it("holds the trailer to the block's own shape and counts", function()
    -- the second block (\\Memory\\Available Bytes) is a single counter: its trailer says so too
    local o = 48 + u32(b, 56)
    local size = u32(b, o + 8)
    local t = o + size - u32(b, o + size - 8)
    assert.equal(1, u32(b, t + 24))
    local s, msg = perflib.sample_from_block(put32(b, t + 24, 2))        -- "multiple counters"
    assert.is_nil(s)
    assert.equal(("block: offset %d: trailer shape does not go with the block's dwType"):format(t + 24), msg)
    s, msg = perflib.sample_from_block(put32(b, t + 36, 2))             -- two counters
    assert.is_nil(s)
    assert.matches("^block: offset %d+: ", msg)
  end)

  it("never reads out of bounds: every truncation and 3000 random corruptions are errors or samples", function()
    for n = 0, #b - 1, 7 do
      local s, msg = perflib.sample_from_block(b:sub(1, n))
      assert.is_nil(s)
      assert.matches("^block: offset %d+: ", msg)
    end
    local seed = 7
    local function rnd(n)
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % n
    end
    local errors = 0
    for _ = 1, 3000 do
      local o = rnd(#b)
      local bad = b:sub(1, o) .. string.char(rnd(256)) .. b:sub(o + 2)
      local s, msg = perflib.sample_from_block(bad)
      if not s then
        errors = errors + 1
        assert.matches("^block: offset %d+: ", msg)
      end
    end
    assert.is_true(errors > 100)
  end)

  it("raises for misuse", function()
    assert.has_error(function() perflib.sample_from_block(nil) end)
    assert.has_error(function() perflib.sample_from_block(b, 42) end)
    local q2 = perflib.query()
    q2:add "\\Memory\\*"
    local s = q2:collect()
    assert.has_error(function() s:block { standart = true } end)
    q2:close()
  end)
end)
