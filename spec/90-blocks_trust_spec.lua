-- Samples compared with samples from elsewhere (issue 10, items 1, 2, 4 and 16):
-- results pair only by definition, never by ids another process also uses;
-- `into` tables are checked; extreme clocks from a block are defined; and
-- each result carries the instant its own counterset was read.
local perflib = require "perflib"

local function tmpname() return os.tmpname() end

-- Runs Lua code in a new process (query ids start at 1 there, as in any
-- other process), with this process's module paths; returns its output.
local function child(code)
  local f = tmpname()
  local h = assert(io.open(f, "w"))
  h:write(code)
  h:close()
  local p = assert(io.popen(("LUA_PATH_5_4=%q LUA_CPATH_5_4=%q lua5.4 %s 2>&1")
    :format(package.path, package.cpath, f)))
  local out = p:read "a"
  p:close()
  os.remove(f)
  return out
end

local SAVE = [[
local perflib = require "perflib"
local q = perflib.query()
assert(q:add(%q))
local h = assert(io.open(%q, "wb"))
h:write(q:collect():block())
h:close()
]]

describe("samples from blocks of another process", function()
  local file
  before_each(function() file = tmpname() end)
  after_each(function() os.remove(file) end)

  it("refuses a block whose result is another definition, and reads nothing past it", function()
    assert.equal("", child(SAVE:format("\\Memory\\Available Bytes", file)))
    -- process B: the same query id (1) and result id (1), another counter list
    local out = child(([[
local perflib = require "perflib"
local q = perflib.query()
assert(q:add "\\Memory\\*")
local s0 = q:collect()
local s = q:collect()
local old = assert(perflib.sample_from_block(assert(io.open(%q, "rb")):read "a"))
for name, call in pairs {
  evaluate = function() return s:evaluate(old, 1).valid end,
  format = function() return s:format(old, 1, nil, "Page Faults/sec") end,
  formatted = function() return s:formatted(old)() end,
  values = function() return next(s:values(old, 1)) end,
} do
  local ok, err = pcall(call)
  print(name, ok and "accepted" or err)
end
]]):format(file))
    for _, name in ipairs { "evaluate", "format", "formatted", "values" } do
      assert.matches(name .. "\t[^\n]*no result in the other sample pairs with result #1 %(Memory, %d+ counters%)",
                     out)
    end
    assert.is_nil(out:find "accepted")
  end)

  it("compares a block of the same definition with a live sample, on each result's own clock", function()
    assert.equal("", child(SAVE:format("\\Memory\\*", file)))
    perflib.sleep(0.02)
    local out = child(([[
local perflib = require "perflib"
local q = perflib.query()
assert(q:add "\\Memory\\*")
local s = q:collect()
local old = assert(perflib.sample_from_block(assert(io.open(%q, "rb")):read "a"))
local v = s:evaluate(old, 1)
local c = "Page Faults/sec"
local v1, v0 = s:value(1, nil, c), old:value(1, nil, c)
local unpaired = 0           -- values that found no older value
for _, col in pairs(v.status) do
  for _, st in pairs(col) do unpaired = unpaired + ((st == "first_sample" or st == "no_instance") and 1 or 0) end
end
print(unpaired, v.valid, v[c][1], v1 - v0, s:results()[1].time - old:results()[1].time, s.freq)
]]):format(file))
    local unpaired, valid, rate, dv, dt, freq = out:match "^(%d+)\t(%d+)\t(%S+)\t(%d+)\t(%d+)\t(%d+)\n$"
    assert.is_truthy(valid, out)
    assert.equal("0", unpaired)                     -- every value paired with its own
    assert.is_true(tonumber(valid) > 40)
    -- by hand: the raw delta over the results' own interval
    assert.near(tonumber(dv) / (tonumber(dt) / tonumber(freq)), tonumber(rate), 1e-9 * tonumber(rate) + 1e-12)
  end)
end)

describe("samples from blocks in one process", function()
  it("pair by definition when result ids differ, and refuse what does not match", function()
    local q = perflib.query()
    assert(q:add "\\Memory\\Available Bytes")
    assert(q:add "\\Memory\\*")
    local s0 = q:collect()
    local qb = perflib.query()
    assert(qb:add "\\Memory\\*")                    -- result 1 here, result 2 there
    perflib.sleep(0.01)
    local s1 = qb:collect()
    local old = assert(perflib.sample_from_block(s0:block()))
    local v = s1:evaluate(old, 1)
    for c = 1, #v.counters do
      local st = v.status[c] and v.status[c][1]
      assert.is_true(st ~= "first_sample" and st ~= "no_instance", v.counters[c])
    end
    assert.is_true(v.valid > 40)
    -- the same old values as the live sample they came from, under its result #2
    local direct = s1:evaluate(assert(perflib.sample_from_block(s0:block())), 1)
    assert.same(v, direct)
    -- a live sample of another query is still refused as such
    assert.has_error(function() s1:evaluate(s0, 1) end, "bad argument #1 to 'evaluate' (sample from another query)")
    -- a block of a query with no such result
    local qa = perflib.query()
    assert(qa:add "\\Memory\\Cache Bytes")
    local lone = assert(perflib.sample_from_block(qa:collect():block()))
    assert.has_error(function() s1:evaluate(lone, 1) end)
    assert.has_error(function() lone:evaluate(s1, 1) end)
  end)

  it("round trips each result's own time, and formats exactly like the original", function()
    local q = perflib.query()
    assert(q:add "\\Memory\\*")
    assert(q:add "\\Processor Information(*)\\*")
    local s0 = q:collect()
    perflib.sleep(0.01)
    local s1 = q:collect()
    local again = assert(perflib.sample_from_block(s1:block()))
    for k, r in ipairs(s1:results()) do
      assert.equal("integer", math.type(r.time))
      assert.equal(r.time, again:results()[k].time)
      assert.same(s1:evaluate(s0, k), again:evaluate(s0, k))
    end
    -- the sets were read one after the other, each inside the sample's reads
    local r = s1:results()
    assert.is_true(r[1].time <= r[2].time)
  end)
end)

describe("evaluate into", function()
  it("checks every column of the table it refills", function()
    local q = perflib.query()
    assert(q:add "\\Memory\\*")
    local s0 = q:collect()
    local s1 = q:collect()
    local v = s1:evaluate(s0, 1)
    assert.equal(v, s1:evaluate(s0, 1, { into = v }))       -- intact: refilled in place
    v[1] = 12345
    local w = s1:evaluate(s0, 1, { into = v })
    assert.are_not.equal(v, w)
    assert.equal(12345, v[1])
    assert.equal("table", type(w[1]))
    local x = s1:evaluate(s0, 1, { into = { _layout = w._layout } })
    assert.equal("table", type(x[1]))
    assert.same(w, x)
  end)
end)

describe("extreme clocks", function()
  local MAX, MIN = math.maxinteger, math.mininteger

  it("are defined in every formula that subtracts times", function()
    local v, st = perflib.calculate("PERF_COUNTER_BULK_COUNT", { value = 0, time = MAX }, { value = 0, time = MIN })
    assert.equal("valid", st)
    assert.equal(0, v)
    v, st = perflib.calculate("PERF_100NSEC_TIMER", { value = 0, time = MAX }, { value = 0, time = MIN })
    assert.equal("valid", st)
    assert.equal(0, v)
    v, st = perflib.calculate("PERF_ELAPSED_TIME", { value = MIN, time = MAX })
    assert.equal("valid", st)
    assert.near(2 ^ 64 / 1e7, v, 1)
  end)

  -- a block with its header time and every result's own time set to t
  local function at_time(blk, t)
    local parts = { blk:sub(1, 8), string.pack("<i8", t), blk:sub(17) }
    local b = table.concat(parts)
    local o, n = 48, string.unpack("<I4", b, 5)
    for _ = 1, n do
      local size = string.unpack("<I4", b, o + 9)
      local e = o + size
      local ts = string.unpack("<I4", b, e - 7)
      local t0 = e - ts
      local nc, ni, fl = string.unpack("<I4I4I4", b, t0 + 37)
      local el, nl = string.unpack("<I4I4", b, t0 + 65)
      local nv = nc * ni
      local need = 72 + (4 * nc + 7) // 8 * 8 + 16 * ni + 8 * nv + (nv + fl + el + nl + 7) // 8 * 8 + 8
      if ts == need + 8 then                      -- the result's own time, before the tail
        b = b:sub(1, e - 16) .. string.pack("<i8", t) .. b:sub(e - 7)
      end
      o = e
    end
    return b
  end

  it("from blocks give statuses, never undefined arithmetic", function()
    local q = perflib.query()
    assert(q:add "\\Processor Information(*)\\*")
    assert(q:add "\\Memory\\*")
    assert(q:add "\\System\\*")
    local s0 = q:collect()
    local s1 = q:collect()
    for _, t in ipairs { { MIN, MAX }, { MAX, MIN }, { MIN, MIN + 1 }, { MAX - 1, MAX }, { -1, MAX } } do
      local a = assert(perflib.sample_from_block(at_time(s0:block(), t[1])))
      local b = assert(perflib.sample_from_block(at_time(s1:block(), t[2])))
      for k = 1, #b do
        local v = b:evaluate(a, k)
        for c = 1, #v.counters do
          for i = 1, #v.instances do
            assert.is_true(v[c][i] ~= nil or v.status[c][i] ~= nil)
          end
        end
        for _, value in b:formatted(a, { index = k }) do
          assert.is_true(value == nil or value == value)
        end
      end
      assert.is_number(b.timestamp)
    end
  end)
end)
