-- Query handles: specifications with their own statuses, deletion,
-- listing, closing, and misuse.
local perflib = require "perflib"
local C = require "spec.support.compat"

local FIX = "spec/fixtures/basic"

describe("Query", function()
  local q
  before_each(function() q = perflib.query { root = FIX } end)
  after_each(function() q:close() end)

  it("adds paths and tables and returns result indexes", function()
    assert.same({ 1, "ok" }, { q:add "\\Processor Information(*)\\% Processor Time" })
    assert.same({ 2, "ok" }, { q:add "\\Memory\\Available Bytes" })
    assert.same({ 3, "ok" }, { q:add { counterset = "System", counter = "Context Switches/sec" } })
    assert.same({ 4, "ok" }, { q:add { counterset = "Processor Information", instance = "_Total", counter = 8 } })
    assert.same({ 5, "ok" }, { q:add { counterset = "b4fc721a-0378-476f-89ba-a5a79f810b36",
      instance = "*", instance_id = 1 } })
    assert.equals(5, #q)
  end)

  it("takes paths in any case and with blanks around and inside names, as PDH does", function()
    assert.same({ 1, "ok" }, { q:add "  \\memory \\ AVAILABLE   bytes " })
    assert.same({ 2, "ok" }, { q:add "\\Processor  information (_Total)\\% processor time" })
    local s = q:collect()
    -- the fixture's MemAvailable, 23781276 kB = 23781276 x 1024 bytes
    assert.equals(23781276 * 1024, s:values(nil, 1)["Available Bytes"][""])
    local r = s:results()
    assert.equals("Memory", r[1].counterset)
    assert.same({ "_Total" }, r[2].instances)
  end)

  it("gives each refused specification its own status", function()
    local function add(spec) return { q:add(spec) } end
    assert.same({ nil, "no counterset 'Nope'", "no_counterset", 4200 }, add "\\Nope(*)\\x")
    assert.same({ nil, "no counter 'Nope' in 'Memory'", "no_counter", 4202 }, add "\\Memory\\Nope")
    assert.same({ nil, "no counter with id 999 in 'Memory'", "no_counter", 4202 },
      add { counterset = "Memory", counter = 999 })
    assert.same({ nil, "'Memory' has a single instance: give no instance name", "bad_instance", 87 },
      add "\\Memory(x)\\Available Bytes")
    assert.same({ nil, "'Processor Information' has multiple instances: name one, or use '*'",
      "bad_instance", 87 },
      add "\\Processor Information\\% Processor Time")
    assert.equals("bad_path", add("Memory\\Available Bytes")[3])
    -- the message is second, so Lua's assert raises with it
    local ok, err = pcall(function() return _G.assert(q:add "\\Nope(*)\\x") end)
    assert.is_false(ok)
    assert.matches("no counterset 'Nope'$", err)
    -- a path naming a machine reaches it (README, Remote machines): nobody listens on port 1
    assert.equals("no_machine", add("\\\\127.0.0.1:1\\Memory\\Available Bytes")[3])
    assert.equals("bad_path", add("\\\\\\Memory\\Available Bytes")[3])
    assert.equals(0, #q)
    assert.same({ 1, "ok" }, add "\\Memory\\Available Bytes")
    assert.same({ nil, "the query already has this specification", "duplicate", 183 },
      add "\\memory\\available bytes")
    assert.equals(1, #q)
  end)

  it("adds a list and reports per specification", function()
    local r = q:add { "\\Memory\\Available Bytes", "\\Nope\\x", { counterset = "System" } }
    assert.same({ index = 1, status = "ok" }, r[1])
    assert.same({ status = "no_counterset", message = "no counterset 'Nope'", code = 4200 }, r[2])
    assert.same({ index = 2, status = "ok" }, r[3])
  end)

  it("lists specifications with their result index and shape", function()
    q:add "\\Processor Information(_Total)\\% Processor Time"
    q:add "\\Processor Information(_Total)\\*"
    q:add "\\Processor Information(*)\\% Idle Time"
    q:add "\\Processor Information(*)\\% * Time"
    local specs = q:specs()
    assert.equals(4, #specs)
    assert.equals("single_counter", specs[1].shape)
    assert.equals("multiple_counters", specs[2].shape)
    assert.equals("multiple_instances", specs[3].shape)
    assert.equals("counterset", specs[4].shape)
    assert.equals("\\Processor Information(*)\\% Idle Time", specs[3].path)
    assert.same({ "% Idle Time" }, specs[3].counters)
    -- "% * Time" matches the visible % counters, not the hidden base
    for _, name in ipairs(specs[4].counters) do
      assert.matches("^%% .* Time$", name)
    end
    assert.equals(1, specs[1].index)
    assert.equals("_Total", specs[1].instance)
  end)

  it("deletes specifications; later indexes move down", function()
    q:add "\\Memory\\Available Bytes"
    q:add "\\Memory\\Committed Bytes"
    q:add "\\System\\Processes"
    assert.is_true(q:delete(1))
    local specs = q:specs()
    assert.equals(2, #specs)
    assert.equals("\\Memory\\Committed Bytes", specs[1].path)
    assert.equals(1, specs[1].index)
    -- an index the query does not have raises, as every out-of-range index does
    assert.has_error(function() q:delete(7) end, "bad argument #1 to 'delete' (no specification #7)")
    assert.has_error(function() q:delete(0) end, "bad argument #1 to 'delete' (no specification #0)")
    assert.has_error(function() q:delete "x" end)
    -- a deleted spec can be added again
    assert.same({ 3, "ok" }, { q:add "\\Memory\\Available Bytes" })
  end)

  it("closes idempotently and refuses use after close", function()
    q:add "\\Memory\\Available Bytes"
    assert.matches("^perflib.Query %(0x%x+%)$", tostring(q))
    q:close()
    q:close()
    assert.equals("perflib.Query (closed)", tostring(q))
    assert.has_error(function() q:collect() end,
      "calling 'collect' on bad self (attempt to use a closed query)")
    assert.has_error(function() q:add "\\Memory\\Available Bytes" end)
    assert.has_error(function() return #q end)
  end)

  it("closes at the end of a <close> scope", function()
    local saved
    C.scoped(perflib.query { root = FIX }, function(qq) saved = qq end)
    assert.equals("closed query", perflib.type(saved))
  end)

  it("raises on misuse, naming the argument", function()
    assert.has_error(function() q:add() end,
      "bad argument #1 to 'add' (specification must be a counter path or a table)")
    assert.has_error(function() q:add(42) end)
    assert.has_error(function() q:add { counterset = 1 } end,
      "bad argument #1 to 'add' (field 'counterset' must be a string (name or GUID))")
    assert.has_error(function() q:add { counterset = "Memory", bogus = 1 } end, "add: unknown option 'bogus'")
    assert.has_error(function() q:add { counterset = "Memory", counter = true } end)
    assert.has_error(function() q:add { counterset = "Processor Information", instance = "*", instance_id = -1 } end)
    assert.has_error(function() q:add { counterset = "Processor Information", instance = "*", instance_id = 1.5 } end)
    assert.has_error(function() q.add(nil, "\\Memory\\Available Bytes") end,
      "bad argument #1 to 'add' (perflib.Query expected, got nil)")
    assert.has_error(function() perflib.query { rooot = "/" } end, "machine: unknown option 'rooot'")
    assert.has_error(function() perflib.query(5) end)
  end)

  -- The open fds of this process, fd -> "mnt_id:ino", from /proc/self/fdinfo: no child process,
  -- no pipe.  Probing opens one fd at a time; its own number is not listed (the kernel installs
  -- an fd only after the path is resolved).
  local function open_fds()
    local st = assert(io.open "/proc/self/status")
    local size = tonumber(st:read("*a"):match("FDSize:%s*(%d+)"))
    st:close()
    local out = {}
    for fd = 0, size - 1 do
      local f = io.open("/proc/self/fdinfo/" .. fd)
      if f then
        local t = f:read("*a")
        f:close()
        out[fd] = t:match("mnt_id:%s*(%d+)") .. ":" .. t:match("ino:%s*(%d+)")
      end
    end
    return out
  end
  -- The fds in `now` that were not in `base` (new numbers, or numbers now on another file).
  local function added(base, now)
    local out = {}
    for fd, id in pairs(now) do
      if base[fd] ~= id then out[fd] = id end
    end
    return out
  end

  it("keeps its files open between collections instead of reopening", function()
    collectgarbage "collect"
    collectgarbage "stop"              -- no finalizer closes a file while fds are compared
    local base = open_fds()
    local m = perflib.machine { root = "/" }   -- a machine of its own (perflib.machine() is the default, kept)
    local live = m:query()
    live:add "\\Processor Information(*)\\*"
    live:add "\\Memory\\*"
    live:add "\\System\\*"
    live:collect()
    local mine = added(base, open_fds())
    assert.is_not_nil(next(mine), "the query holds files open")
    for _ = 1, 50 do live:collect() end
    assert.same(mine, added(base, open_fds()))
    -- a second query of the machine shares its kernel sources (/proc/stat, meminfo ...):
    -- it opens fewer files than the first did
    local nmine, nsecond = 0, 0
    for _ in pairs(mine) do nmine = nmine + 1 end
    local before = open_fds()
    local second = m:query()
    second:add "\\Processor Information(*)\\*"
    second:add "\\Memory\\*"
    second:add "\\System\\*"
    second:collect()
    for _ in pairs(added(before, open_fds())) do nsecond = nsecond + 1 end
    assert.is_true(nsecond < nmine, ("the second query opened %d files, the first %d"):format(nsecond, nmine))
    second:close()
    live:close()
    -- the machine's shared files close with the machine, the queries' own with them
    live, second, m = nil, nil, nil   -- luacheck: ignore 311 (unreachable now, for the collector)
    collectgarbage "restart"
    collectgarbage "collect"
    collectgarbage "collect"
    local left = added(base, open_fds())
    for fd, id in pairs(mine) do
      assert.is_true(left[fd] ~= id, "closing the query and its machine closes every file")
    end
  end)

  it("survives many queries and garbage collection", function()
    for _ = 1, 200 do
      local qq = perflib.query { root = FIX }
      qq:add "\\Processor Information(*)\\*"
      qq:add "\\Memory\\*"
      qq:collect()
    end
    collectgarbage()
    collectgarbage()
  end)
end)
