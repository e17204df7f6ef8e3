-- perflib.define (issue 12, item 4): countersets whose instances and values come from
-- a Lua function, on one machine only, read like any other set: by path, through
-- Query:add, in perflib.collect strings and data blocks; rates over two collects;
-- the statuses of bad callbacks (an error, a wrong shape, a non-number, a timeout, a
-- callback that reads its own set) that fail that set only; the rounding of floats for
-- integer types; misuse raising; the callback released with its machine.
local perflib = require "perflib"

local function counters(list)
  local out = {}
  for i, c in ipairs(list) do out[i] = { name = c[1], type = c[2] } end
  return out
end

-- A query of these paths on machine m (nil: the default one); its next sample.
local function sample(m, paths, older)
  local q = perflib.query(m)
  for _, p in ipairs(paths) do assert(q:add(p)) end
  return q, assert(q:collect()), older
end

local function elapsed(s1, s0, i)
  return (s1:results()[i].time - s0:results()[i].time) / s1.freq
end

describe("perflib.define", function()
  it("publishes instances and values by position and by name, rates over two collects", function()
    local n = 0
    local cs = assert(perflib.define {
      name = "Def98 Queue", help = "Queues of this test.",
      counters = counters { { "Depth", "PERF_COUNTER_LARGE_RAWCOUNT" }, { "Items/sec", "PERF_COUNTER_BULK_COUNT" } },
      collect = function()
        n = n + 1
        return { q1 = { 3, 120 * n }, q2 = { Depth = 5, ["Items/sec"] = 200 * n } }
      end,
    })
    assert.equals("Def98 Queue", cs.name)
    assert.equals("multiple", cs.instance_type)
    local q, s0 = sample(nil, { [[\Def98 Queue(*)\*]], [[\Def98 Queue(q2)\Depth]] })
    local s1 = assert(q:collect())
    local v, st = s1:values(s0, 1)
    assert.equals(3, v.Depth.q1)
    assert.equals(5, v.Depth.q2)
    assert.equals("valid", st["Items/sec"].q1)
    -- q1: 120 -> 240, q2: 200 -> 400, over the time between the two reads of the set
    assert.near(120 / elapsed(s1, s0, 1), v["Items/sec"].q1, 1e-6)
    assert.near(200 / elapsed(s1, s0, 1), v["Items/sec"].q2, 1e-6)
    assert.equals(5, s1:values(s0, 2).Depth.q2)
    assert.equals(2, n)                                  -- one call per collect of the set (two results)
  end)

  it("takes a single-instance set's row, is found by title index and survives a data block", function()
    local cs = assert(perflib.define {
      name = "Def98 Single", instances = "single",
      counters = { { name = "Temp", type = "PERF_DOUBLE_RAW" }, { name = "Count" } },
      collect = function() return { -3.25, 7 } end,
    })
    assert.equals("single", cs.instance_type)
    local _, s = sample(nil, { [[\Def98 Single\Temp]], [[\Def98 Single\Count]] })
    assert.equals(-3.25, s:values(nil, 1).Temp[""])
    assert.equals(7, s:values(nil, 2).Count[""])
    -- a registry query string by the set's title index
    local s2 = assert(perflib.collect(tostring(cs.index)))
    local r = s2:results()
    assert.equals(1, #r)
    assert.equals("Def98 Single", r[1].counterset)
    assert.equals(7, s2:values(nil, 1).Count[""])
    -- and through a V2 block and back
    local back = assert(perflib.sample_from_block(s:block()))
    assert.equals(-3.25, back:values(nil, 1).Temp[""])
  end)

  it("takes a base-type counter as the base of the counter before it", function()
    assert(perflib.define { name = "Def98 Fraction", instances = "single",
                            counters = { { name = "Used %", type = "PERF_RAW_FRACTION" },
                                         { name = "Used Base", type = "PERF_RAW_BASE" } },
                            collect = function() return { 25, 200 } end })
    local cs = perflib.counterset "Def98 Fraction"
    assert.equals("Used Base", cs:counter("Used %").base)
    local _, s = sample(nil, { [[\Def98 Fraction\*]] })
    local v = s:values(nil, 1)
    assert.equals(12.5, v["Used %"][""])                 -- 100 x 25 / 200
    assert.is_nil(v["Used Base"])                         -- a base is left out of "*"
  end)

  it("rounds floats for integer types half away from zero, and refuses what they cannot hold", function()
    local row = { 2.5, 2.4999, 1e300, 0 / 0, math.huge, -1, -0.4, "12", 2 ^ 32, 2 ^ 32 - 1, true, 2 ^ 53 }
    local list = {}
    for i = 1, #row do list[i] = { name = "C" .. i, type = "PERF_COUNTER_RAWCOUNT" } end
    list[12].type = "PERF_COUNTER_LARGE_RAWCOUNT"
    assert(perflib.define { name = "Def98 Round", instances = "single", counters = list,
                            collect = function() return row end })
    local _, s = sample(nil, { [[\Def98 Round\*]] })
    local v, st = s:values(nil, 1)
    assert.equals(3, v.C1[""])                            -- 2.5 -> 3
    assert.equals(2, v.C2[""])
    for _, k in ipairs { "C3", "C4", "C5", "C6", "C8", "C9", "C11" } do
      assert.equals("no_data", st[k][""], k)              -- too big, NaN, inf, negative, a string, 2^32, a boolean
    end
    assert.equals(0, v.C7[""])                            -- -0.4 rounds to 0
    assert.equals(4294967295, v.C10[""])                  -- the largest 4-byte value
    assert.equals(2 ^ 53, v.C12[""])
  end)

  it("fails only its own set for an error, a wrong shape, a timeout or a call of itself", function()
    local q, inner
    local cases = {
      { "Def98 Err", function() error("boom") end, "collect of 'Def98 Err' failed: .*boom" },
      { "Def98 Shape", function() return 42 end, "collect of 'Def98 Shape' returned a number, not a table" },
      { "Def98 Rows", function() return { q1 = 5 } end, "must return instance names" },
      { "Def98 Loop", function() while true do end end, "collect ran longer than" },
      { "Def98 CoLoop", function() return coroutine.wrap(function() while true do end end)() end,
        "collect ran longer than" },
      -- a callback that reads its own set (through another query) gets that read failed
      { "Def98 Self", function() error(inner:collect():results()[1].error, 0) end,
        "collect of 'Def98 Self' called itself" },
    }
    for _, c in ipairs(cases) do
      assert(perflib.define { name = c[1], counters = { { name = "V" } }, collect = c[2], timeout = 0.05 })
    end
    local good = assert(perflib.define { name = "Def98 Good", counters = { { name = "V" } },
                                         collect = function() return { a = { "x" }, b = { 4 } } end })
    inner = perflib.query()
    assert(inner:add [[\Def98 Self(*)\V]])
    q = perflib.query()
    for _, c in ipairs(cases) do assert(q:add("\\" .. c[1] .. "(*)\\V")) end
    assert(q:add("\\" .. good.name .. "(*)\\V"))
    local s = assert(q:collect())
    local r = s:results()
    for i, c in ipairs(cases) do
      assert.equals("no_data", r[i].status, c[1])
      assert.matches(c[3], r[i].error, 1, false)
    end
    local v, st = s:values(nil, #cases + 1)
    assert.equals("valid", r[#cases + 1].status)
    assert.equals(4, v.V.b)
    assert.equals("no_data", st.V.a)                      -- a string is no number: absent
    -- the sets that failed work again next time (the thread is reusable after an error)
    assert(q:collect())
    -- the timeout's hook is armed only while a callback runs: LuaJIT has one hook for the
    -- whole VM, and one left behind would slow and disturb everything after
    assert.is_nil(debug.gethook())
  end)

  it("keeps a callback from changing or closing the query that runs it", function()
    local q
    assert(perflib.define { name = "Def98 Del", counters = { { name = "V" } },
                            collect = function() q:delete(1); return { a = { 1 } } end })
    assert(perflib.define { name = "Def98 Close", counters = { { name = "V" } },
                            collect = function() q:close(); return { a = { 1 } } end })
    q = perflib.query()
    assert(q:add [[\Def98 Del(*)\V]])
    local s = assert(q:collect())
    assert.equals("no_data", s:results()[1].status)
    assert.matches("attempt to use a query while it collects", s:results()[1].error)
    assert.equals(1, #q)                                  -- nothing deleted under the collect
    assert(q:add [[\Def98 Close(*)\V]])
    local ok, msg, e = q:collect()                        -- closed by its callback: released after it
    assert.is_nil(ok)
    assert.matches("collect", msg)
    assert.equals(125, e)                                 -- ECANCELED
    assert.equals("closed query", perflib.type(q))
  end)

  it("fails Machine:collect when a callback closes one of its queries, and the machine collects on", function()
    local m = perflib.machine { root = "spec/fixtures/basic" }
    local b
    assert(perflib.define { name = "Def98 GroupClose", machine = m, counters = { { name = "V" } },
                            collect = function() b:close(); return { a = { 1 } } end })
    local a = m:query()
    assert(a:add [[\Memory\Available Bytes]])
    b = m:query()
    assert(b:add [[\Def98 GroupClose(*)\V]])
    local ok, msg, e = m:collect(a, b)                    -- all or nothing
    assert.is_nil(ok)
    assert.matches("collect", msg)
    assert.equals(125, e)                                 -- ECANCELED
    assert.equals("closed query", perflib.type(b))
    local s1, s2 = m:collect(a)                           -- the generation ended with the failure
    assert.equals("sample", perflib.type(s1))
    assert.is_nil(s2)
  end)

  it("belongs to one machine, refuses a taken name, and raises for misuse naming the argument", function()
    local m = perflib.machine { root = "spec/fixtures/basic" }
    assert(perflib.define { name = "Def98 Local", machine = m, counters = { { name = "V" } },
                            collect = function() return { a = { 1 } } end })
    assert.is_nil(perflib.counterset "Def98 Local")      -- not on the default machine
    assert.equals("Def98 Local", m:counterset("Def98 Local").name)
    local ok, msg, e = perflib.define { name = "def98 local", machine = m, counters = { { name = "V" } },
                                        collect = function() end }
    assert.is_nil(ok)
    assert.matches("taken", msg)
    assert.equals(17, e)                                  -- EEXIST
    assert.is_nil((perflib.define { name = "Processor Information", counters = { { name = "V" } }, collect = print }))
    local function raises(opts, pat)
      local okk, err = pcall(perflib.define, opts)
      assert.is_false(okk)
      assert.matches(pat, err)
    end
    raises({ name = "Def98 X", counters = { { name = "V" } } }, "bad argument #1.*'collect' must be a function")
    raises({ name = "Def98 X", counters = {}, collect = print }, "'counters' must be a non%-empty list")
    raises({ name = "Def98 X", counters = { { name = "V", type = "PERF_NOPE" } }, collect = print },
           "unknown counter type 'PERF_NOPE'")
    raises({ name = "Def98 X", counters = { { name = "V" }, { name = "v" } }, collect = print }, "defined twice")
    raises({ name = "Def98 X", counters = { { name = "V" } }, collect = print, colect = 1 }, "unknown option 'colect'")
    raises({ name = "Def98 X", counters = { { name = "V" } }, collect = print, instances = "many" }, "'instances'")
    raises({ name = "Def98 X", counters = { { name = "V" } }, collect = print, guid = "nope" }, "GUID")
  end)

  it("gives a name-derived UUIDv8 unless a GUID is given", function()
    local a = assert(perflib.define { name = "Def98 Guid", counters = { { name = "V" } }, collect = print })
    assert.matches("^%x+%-%x+%-8%x+%-[89ab]%x+%-%x+$", a.guid)
    local b = assert(perflib.define { name = "Def98 Guid2", guid = "{12345678-1234-1234-1234-123456789abc}",
                                      counters = { { name = "V" } }, collect = print })
    assert.matches("12345678%-1234%-1234%-1234%-123456789abc", b.guid:lower())
  end)

  it("frees a definition only after the queries that read it, whatever the finalizers' order", function()
    do
      local m = perflib.machine { root = "spec/fixtures/basic" }
      local q = perflib.query(m)                          -- made before the sets: finalized after them
      assert(perflib.define { name = "Def98 Order", machine = m, counters = { { name = "V" } },
                              collect = function() return { a = { 1 } } end })
      assert(perflib.derive { name = "Def98 Order2", machine = m,
                              counters = { { name = "W", formula = [[ [\Def98 Order(*)\V] * 2 ]] } } })
      assert(q:add [[\Def98 Order2(*)\W]])
      assert(q:add [[\Def98 Order(*)\V]])
      local s = assert(q:collect())
      assert.equals(2, s:values(nil, 1).W.a)
      assert.equals(1, s:values(nil, 2).V.a)
    end
    collectgarbage()                                      -- machine, query and sets die in one cycle
    collectgarbage()
  end)

  it("keeps the callback while its machine lives and lets it go with the machine", function()
    local weak = setmetatable({}, { __mode = "v" })
    do
      local m = perflib.machine { root = "spec/fixtures/basic" }
      do
        local fn = function() return { a = { m and 1 } } end   -- refers to its machine
        weak.fn = fn
        assert(perflib.define { name = "Def98 Gc", machine = m, counters = { { name = "V" } }, collect = fn })
      end
      collectgarbage(); collectgarbage()
      assert.is_function(weak.fn)                         -- the machine lives: so does the callback
      local q = perflib.query(m)
      assert(q:add [[\Def98 Gc(*)\V]])
      assert.equals(1, assert(q:collect()):values(nil, 1).V.a)
    end
    for _ = 1, 4 do collectgarbage() end
    assert.is_nil(weak.fn)                                -- gone with the machine, no leak through a cycle
  end)
end)
