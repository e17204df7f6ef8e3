-- Machine:collect(q1, q2, ...): several queries at one instant, every kernel
-- file read once for all of them (pl_env_begin / pl_env_end), against the
-- net-basic fixture tree (run from the repository root).

local perflib = require "perflib"

local FX = "spec/fixtures/net-basic"

describe("Machine:collect", function()
  it("collects every query in one generation: sets fed by one read share its time", function()
    local m = perflib.machine { root = FX }
    local a, b = m:query(), m:query()
    assert(a:add "\\TCPv4\\Segments/sec")
    assert(b:add "\\UDPv4\\Datagrams/sec")
    local s1, s2 = m:collect(a, b)
    assert.equals("perflib.Sample", getmetatable(s1).__name or "perflib.Sample")
    -- Tcp InSegs 129026 + OutSegs 128604; Udp InDatagrams + OutDatagrams of the fixture
    assert.equals(129026 + 128604, (s1:value(1)))
    assert.equals(s1:results()[1].time, s2:results()[1].time)
    -- each query's own next collect is a new read and a later instant
    local s3, s4 = a:collect(), b:collect()
    assert.is_true(s3:results()[1].time > s1:results()[1].time)
    assert.is_true(s4:results()[1].time > s3:results()[1].time)
    -- and the rates of the pairs are formatted as usual (zero interval aside: no change in a fixture)
    assert.equals(0, (s3:format(s1, 1)))
    -- its samples share the query's names cache: evaluate refills the query's table
    local v1 = s3:evaluate(s1)
    local s5 = m:collect(a)
    assert.equals(v1, s5:evaluate(s3))
  end)

  it("returns one sample per query, in order, and keeps each query's sequence", function()
    local m = perflib.machine { root = FX }
    local q = {}
    for i = 1, 3 do
      q[i] = m:query()
      assert(q[i]:add "\\IPv4\\Datagrams/sec")
    end
    local s = { m:collect(q[1], q[2], q[3]) }
    assert.equals(3, #s)
    for i = 1, 3 do assert.equals(1, s[i].seq) end
    local again = { m:collect(q[3], q[1]) }
    assert.equals(2, again[1].seq)
    assert.equals(2, again[2].seq)
  end)

  it("refuses misuse, naming the argument", function()
    local m = perflib.machine { root = FX }
    local other = perflib.machine { root = FX }
    local a = m:query()
    assert(a:add "\\IPv4\\Datagrams/sec")
    assert.has_error(function() m:collect() end, "bad argument #1 to 'collect' (query expected)")
    -- arguments are numbered after self, as Lua numbers a method's
    assert.error_matches(function() m:collect(a, a) end, "#2 to '[^']*' %(query given twice%)")
    assert.error_matches(function() other:collect(a) end, "#1 to '[^']*' %(query of another machine%)")
    assert.error_matches(function() m:collect(a, 5) end, "#2 to '[^']*'")
    a:close()
    assert.error_matches(function() m:collect(a) end, "attempt to use a closed query")
  end)

  it("after a refused call the machine collects on, each collect a new read", function()
    local m = perflib.machine { root = FX }
    local a = m:query()
    assert(a:add "\\TCPv4\\Segments/sec")
    assert.has_error(function() m:collect(a, {}) end)
    local s1 = assert(a:collect())
    local s2 = assert(a:collect())
    assert.is_true(s2:results()[1].time > s1:results()[1].time)
  end)
end)
