-- Use after release (issue 10, item 3): every userdata class, finalized by the
-- garbage collector and then reached again from another object's finalizer (a
-- resurrection), raises a clean error from each method and field; so do
-- objects released by __close.  Before, a resurrected machine crashed on m.root.
local perflib = require "perflib"
local C = require "spec.support.compat"
local core = require "perflib.core"

-- An object whose finalizer is fn: a table with a __gc (5.1 and LuaJIT run
-- none for tables: a newproxy userdata there).
local function finalized(fn)
  local newproxy = rawget(_G, "newproxy")
  if newproxy then
    local p = newproxy(true)
    getmetatable(p).__gc = fn
    return p
  end
  return setmetatable({}, { __gc = fn })
end

-- The objects make() returns, after their finalizers ran: an object with a
-- finalizer is collected with them and keeps them in its own finalizer.
local function resurrect(make)
  local kept
  do
    local objs = { make() }
    finalized(function() kept = objs end)
  end
  collectgarbage()
  collectgarbage()
  assert(kept, "the finalizer ran")
  return C.unpack(kept)
end

-- Each call raises an error that says the object was released (or closed).
local function all_refused(calls)
  for name, call in pairs(calls) do
    local ok, err = pcall(call)
    assert.is_false(ok, name .. " did not raise")
    assert.is_truthy(tostring(err):find("released") or tostring(err):find("closed"),
                     name .. ": " .. tostring(err))
  end
end

describe("released objects", function()
  it("a machine resurrected after __gc raises, and so do its countersets", function()
    local m, cs = resurrect(function()
      local m = perflib.machine {}
      return m, m:counterset "Memory"
    end)
    assert.matches("released", tostring(m))
    all_refused {
      root = function() return m.root end,
      user_hz = function() return m.user_hz end,
      page_size = function() return m.page_size end,
      query = function() return m:query() end,
      counterset = function() return m:counterset "Memory" end,
      countersets = function() return m:countersets()() end,
      module_query = function() return perflib.query(m) end,
      sample_from_block = function() return perflib.sample_from_block("", m) end,
      instances = function() return cs:instances() end,
      counter = function() return cs:counter "Available Bytes" end,
      name = function() return cs.name end,
      counters = function() return cs.counters end,
      len = function() return #cs end,
    }
    assert.matches("Memory", tostring(cs))
  end)

  it("a query and its samples resurrected after __gc raise", function()
    local q, s0, s1 = resurrect(function()
      local q = perflib.query()
      q:add "\\Memory\\Available Bytes"
      local s0 = q:collect()
      return q, s0, q:collect()
    end)
    all_refused {
      add = function() return q:add "\\Memory\\Cache Bytes" end,
      add_sets = function() return q:add_sets "Global" end,
      delete = function() return q:delete(1) end,
      specs = function() return q:specs() end,
      collect = function() return q:collect() end,
      len = function() return #q end,
      value = function() return s1:value(1) end,
      format = function() return s1:format(s0, 1) end,
      formatted = function() return s1:formatted(s0) end,
      evaluate = function() return s1:evaluate(s0, 1) end,
      raw = function() return s1:raw() end,
      results = function() return s1:results() end,
      block = function() return s1:block() end,
      values = function() return s1:values(s0, 1) end,
      time = function() return s1.time end,
      seq = function() return s1.seq end,
      slen = function() return #s1 end,
    }
    assert.equal("closed query", perflib.type(q))
    q:close()                                      -- release stays idempotent
    s1:release()
  end)

  it("windows, flap histories and rule banks resurrected after __gc raise", function()
    local w, f, b = resurrect(function()
      local w = core.window(10)
      w:push(1, 1)
      return w, core.flap(4, { true, false }), core.rulebank(2)
    end)
    assert.matches("released", tostring(w))
    assert.matches("released", tostring(f))
    assert.matches("released", tostring(b))
    all_refused {
      push = function() return w:push(2, 2) end,
      append = function() return w:append(2, 2) end,
      reduce = function() return w:reduce("avg", 10, 0, 0) end,
      cook = function() return w:cook(2, 2, "valid", "avg", 10, 0) end,
      export = function() return w:export() end,
      wlen = function() return #w end,
      step = function() return f:step(true, 0.5, 0.3, false) end,
      steady = function() return f:steady(true) end,
      bits = function() return f:bits() end,
      pct = function() return f:pct() end,
      flen = function() return #f end,
      source = function() return b:source "k" end,
      set = function() return b:set(1, {}) end,
      drop = function() return b:drop(1) end,
      off = function() return b:off(1) end,
      bstep = function() return b:step(1, {}, {}, {}) end,
      flagged = function() return b:flagged(1) end,
      result = function() return b:result(1, 1) end,
      quiet = function() return b:quiet(1, 1, 0) end,
      rule = function() return b:rule(1) end,
    }
  end)

  it("a rule bank refuses windows and flap histories released by __close", function()
    local bank = core.rulebank(1)
    local sid = bank:source "k"
    local w, f = core.window(0), core.flap(4)
    local rule = { sid = sid, ver = 1, fn = "last", levels = { { up = true, x = 1 } }, names = { "a" },
                   wins = { w }, latch = { 0 }, mode = { 0 }, flaps = { f }, flapping = { false } }
    bank:set(1, rule)
    local frame, vers = { k = { value = { a = 2 }, status = { a = "valid" } } }, { [sid] = 1 }
    bank:step(1, frame, vers, {})
    bank:step(2, frame, vers, {})                  -- the same list: the bank steps the rule itself
    C.scoped(f, function() end)                    -- released while the bank holds it
    assert.has_error(function() bank:step(3, frame, vers, {}) end,
                     "rulebank: a window or flap history of rule series 1 was released")
    assert.has_error(function() bank:set(1, rule) end, "rulebank: entry 1's perflib.Flap is released")
    rule.flaps = { false }
    bank:set(1, rule)
    C.scoped(w, function() end)
    assert.has_error(function() bank:step(4, frame, vers, {}) end,
                     "rulebank: a window or flap history of rule series 1 was released")
    assert.has_error(function() bank:set(1, rule) end, "rulebank: entry 1's perflib.Window is released")
  end)
end)
