-- Issue 16: Query:collect's fixed cost in Lua.  Its checks compare
-- metatables it keeps (no registry lookup by name per call), a new sample is
-- finished with the kept metatable, and the collector frees samples through
-- a __gc closure over it: the same behaviour, checked here, at less cost.
local perflib = require "perflib"

local FIX = "spec/fixtures/basic"

local function threads_query()
  local q = perflib.query { root = FIX }
  assert.equals(1, q:add "\\System\\Threads")
  return q
end

describe("Query:collect's fast path", function()
  it("makes samples of the Sample class with the machine's values", function()
    local q = threads_query()
    local s = q:collect()
    assert.equals("sample", perflib.type(s))
    assert.equals(102, (s:value(1)))         -- loadavg 3/102: nr_threads
    assert.equals(1, s.seq)
    assert.matches("^perflib.Sample %(#1, 1 results?%)$", tostring(s))
    -- the query's names cache and machine come along: formatted values work
    local s2 = q:collect()
    assert.same({ 102 }, { (s2:format(s, 1)) })
  end)

  it("refills a sample in place and returns the same object", function()
    local q = threads_query()
    local s0, s1 = q:collect(), q:collect()
    local r = q:collect(s0)
    assert.is_true(rawequal(r, s0))
    assert.equals(3, r.seq)                   -- new contents: the third collect
    assert.equals(102, (r:value(1)))
    assert.equals(2, s1.seq)                  -- the other one untouched
    -- a released sample is refilled as well (its memory is still there)
    s1:release()
    assert.is_true(rawequal(q:collect(s1), s1))
    assert.equals(4, s1.seq)
    assert.equals(102, (s1:value(1)))
  end)

  it("raises for a bad reuse argument, naming it", function()
    -- a method call: Lua counts the reuse argument as #1 (self is not counted)
    local q, other = threads_query(), threads_query()
    local theirs = other:collect()
    assert.has_error(function() q:collect({}) end, "bad argument #1 to 'collect' (sample expected)")
    assert.has_error(function() q:collect(42) end, "bad argument #1 to 'collect' (sample expected)")
    assert.has_error(function() q:collect(q) end, "bad argument #1 to 'collect' (sample expected)")
    assert.has_error(function() q:collect(theirs) end,
                     "bad argument #1 to 'collect' (sample from another query)")
    -- nothing was collected by the refused calls
    assert.equals(1, q:collect().seq)
  end)

  it("raises for a closed query and for something that is not a query", function()
    local q = threads_query()
    local collect = q.collect
    q:close()
    assert.has_error(function() q:collect() end, "calling 'collect' on bad self (attempt to use a closed query)")
    local s = threads_query():collect()
    assert.has_error(function() collect(s) end)
    assert.has_error(function() collect({}) end)
    assert.has_error(function() collect() end)
  end)

  it("has a __gc that releases a sample and leaves anything else alone", function()
    local s = threads_query():collect()
    local gc = getmetatable(s).__gc
    assert.is_function(gc)
    gc(42)
    gc({})
    gc(nil)
    assert.equals(102, (s:value(1)))          -- untouched by the calls above
    gc(s)
    assert.has_error(function() s:value(1) end)
    gc(s)                                     -- idempotent
  end)

  it("collects many samples that the collector frees", function()
    local q = threads_query()
    for _ = 1, 2000 do
      local s = q:collect()
      assert(s.seq > 0)
    end
    collectgarbage()
    collectgarbage()
    assert.equals(2001, q:collect().seq)
  end)
end)
