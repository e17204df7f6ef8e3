-- Remote machines (issue 13, item 3): two real `perflua serve` daemons on loopback, one with a
-- token, the other in a time namespace whose monotonic clock runs a day ahead of ours, so a
-- rate that uses the remote's timestamps is told apart from one that would use ours.  Queries
-- across them from Lua (perflib.machine{host=} and \\host:port paths on the default machine),
-- values against local reads, a rate by hand, a rules file that watches both, a daemon killed
-- mid-run, a server that answers garbage, one that never answers, one that never stops, and
-- wrong tokens.
local files = dofile "spec/support/files.lua"
local serve = dofile "spec/support/serve.lua"
local cjson = require "cjson"
local perflib = require "perflib"

local TOKEN = "remote-t0ken"
local DAY = 86400 * 10000000            -- the second daemon's clock offset, in 100 ns ticks
local COMMIT = "\\Memory\\Commit Limit"

-- Runs cmd without the sanitizer runtime the specs may preload (curl's GnuTLS hangs at exit
-- under it); its output.
local function sh(cmd)
  local p = assert(io.popen("env -u LD_PRELOAD " .. cmd))
  local out = p:read "a"
  p:close()
  return out
end

-- The child of pid (unshare's perflua), or nil.
local function child_of(pid)
  for _ = 1, 100 do
    local c = sh("pgrep -P " .. pid):match "%d+"
    if c then return c end
    os.execute "sleep 0.02"
  end
end

-- Starts remote_fake.py in mode; returns its pid and port.
local function fake(dir, mode)
  local pf = ("%s/%s.port"):format(dir, mode)
  local pid = sh(("python3 spec/support/remote_fake.py %s %s/meta.json %s > /dev/null 2>&1 & echo $!")
    :format(mode, dir, pf)):match "%d+"
  for _ = 1, 300 do
    local port = files.read(pf):match "%d+"
    if port then return pid, tonumber(port) end
    os.execute "sleep 0.02"
  end
  error("remote_fake.py " .. mode .. " did not start")
end

local function local_value(path)
  local q = perflib.query()
  assert(q:add(path))
  local v = q:collect():format(nil, 1)
  q:close()
  return v
end

describe("remote machines", function()
  local dir, remove, pidA, portA, pidB, portB, hostA, hostB

  setup(function()
    dir, remove = files.tempdir()
    os.execute("mkdir -p " .. dir .. "/a " .. dir .. "/b")
    files.write(dir .. "/a/token", TOKEN .. "\n")
    pidA, portA = serve.start(dir .. "/a", "--listen 127.0.0.1:0 --token-file token")
    pidB, portB = serve.start(dir .. "/b", "--listen 127.0.0.1:0",
      "unshare --time --monotonic 86400 --fork --kill-child")
    hostA, hostB = "127.0.0.1:" .. portA, "127.0.0.1:" .. portB
    perflib.remote_tokens[hostA] = TOKEN
  end)

  teardown(function()
    perflib.remote_tokens[hostA] = nil
    if pidA then serve.stop(dir .. "/a", pidA) end
    if pidB then serve.stop(dir .. "/b", pidB) end
    remove()
  end)

  it("a remote machine lists the daemon's countersets with their counters and units", function()
    local m = assert(perflib.machine { host = hostB })
    local meta = cjson.decode(sh(("curl -s -m 5 http://%s/api/v1/countersets"):format(hostB)))
    local names, want = {}, {}
    for cs in m:countersets() do names[#names + 1] = cs.name end
    for _, cs in ipairs(meta.countersets) do want[#want + 1] = cs.name end
    assert.same(want, names)
    local mem = assert(m:counterset "Memory")
    local here = perflib.counterset "Memory"
    assert.equals(here.guid, mem.guid)
    assert.equals(#here.counters, #mem.counters)
    for i, c in ipairs(here.counters) do
      assert.same({ c.name, c.id, c.type, c.unit, c.semantics },
        { mem.counters[i].name, mem.counters[i].id, mem.counters[i].type, mem.counters[i].unit,
          mem.counters[i].semantics })
    end
    assert.equals("\\\\" .. hostB, m.root)
  end)

  it("reads a stable counter as a local read does, from both daemons", function()
    local here = local_value(COMMIT)
    local a = assert(perflib.machine { host = hostA, token = TOKEN })
    for _, m in ipairs { a, assert(perflib.machine { host = hostB }) } do
      local q = m:query()
      assert.equals(1, (q:add(COMMIT)))
      local v, st = q:collect():format(nil, 1)
      assert.equals("valid", st)
      assert.equals(here, v)
    end
  end)

  it("perflib.collect takes a remote machine: Global is the remote's sets that are not costly", function()
    local m = assert(perflib.machine { host = hostB })
    local s = perflib.collect("Global", m)
    local meta = cjson.decode(sh(("curl -s -m 5 http://%s/api/v1/countersets"):format(hostB)))
    local want, got, status = {}, {}, {}
    for _, cs in ipairs(meta.countersets) do
      if not cs.costly then want[#want + 1] = cs.name end
    end
    for _, r in ipairs(s:results()) do
      got[#got + 1] = r.counterset
      status[r.counterset] = r.status
    end
    table.sort(want)
    table.sort(got)
    assert.same(want, got)
    assert.equals("valid", status.Memory)
    assert.equals("valid", status["Processor Information"])
  end)

  it("paths name their machine on the default machine, mixed with local ones in one query", function()
    local q = perflib.query()
    assert.equals(1, (q:add(COMMIT)))
    assert.equals(2, (q:add("\\\\" .. hostA .. COMMIT)))
    assert.equals(3, (q:add("\\\\" .. hostB .. COMMIT)))
    assert.equals(4, (q:add("\\\\" .. hostB .. "\\Processor Information(*)\\% Processor Time")))
    local s = q:collect()
    local here = s:format(nil, 1)
    assert.equals(here, (s:format(nil, 2)))
    assert.equals(here, (s:format(nil, 3)))
    local res = s:results()
    assert.equals("\\\\" .. hostB .. "\\Memory", res[3].counterset)
    assert.truthy(#res[4].instances >= 2)      -- _Total and one a CPU at least
    assert.truthy(perflib.counterset("\\\\" .. hostA .. "\\Memory"))
    q:close()
  end)

  it("computes a rate from the remote sample's own timestamps", function()
    local q = perflib.query()
    local path = "\\\\" .. hostB .. "\\System\\Context Switches/sec"
    assert(q:add(path))
    assert(q:add "\\System\\Context Switches/sec")
    assert(q:add("\\\\" .. hostB .. "\\System\\% File Handles In Use"))
    local s0 = q:collect()
    perflib.sleep(0.2)
    local s1 = q:collect()
    local r0, r1 = s0:results()[1], s1:results()[1]
    -- the remote's clock is a day ahead: these are its timestamps, not ours
    assert.truthy(r1.time - s1:results()[2].time > DAY - 600 * 10000000)
    local v0, v1 = s0:value(1), s1:value(1)
    local want = (v1 - v0) / ((r1.time - r0.time) / 1e7)
    local got, st = s1:format(s0, 1)
    assert.equals("valid", st)
    assert.near(want, got, 1e-9 * math.max(1, want))
    -- a fraction with its base counter: 100 x value / base of the remote's raw pair
    local v, base = s1:value(3)
    assert.truthy(base > 0)
    assert.near(100 * v / base, (s1:format(nil, 3)), 1e-9)
  end)

  it("lets one rules file watch both machines", function()
    local R = require "perflib.rules"
    local E = require "perflib.rules.engine"
    local monitor = require "perflib.monitor"
    local src = ([[
      R.rule "CommitA" { source = "\\\\%s\\Memory\\Commit Limit", when = R.above(0) }
      R.rule "CommitB" { source = "\\\\%s\\Memory\\Commit Limit", when = R.above(0) }
      R.rule "NoneB" { source = "\\\\%s\\Memory\\Commit Limit", when = R.below(0) }
    ]]):format(hostA, hostB, hostB)
    local set = assert(R.load(src))
    local eng = E.new(set)
    local q, index, problems = monitor.build_query(eng)
    assert.same({}, problems)
    local s0 = q:collect()
    local s1 = q:collect()
    eng:feed(0, monitor.frame_of(s1, s0, index))
    assert.equals("firing", (eng:state "CommitA"))
    assert.equals("firing", (eng:state "CommitB"))
    assert.equals("inactive", (eng:state "NoneB"))
  end)

  it("refuses a missing or wrong token with a clear error", function()
    local m, msg, e = perflib.machine { host = hostA }
    assert.is_nil(m)
    assert.matches("HTTP 401: a bearer token is required", msg, 1, true)
    assert.equals(13, e)              -- EACCES
    m, msg, e = perflib.machine { host = hostA, token = "wrong" }
    assert.is_nil(m)
    assert.matches("401", msg, 1, true)
    assert.equals(13, e)
    -- a path with a wrong token in perflib.remote_tokens, on a machine that has not attached
    -- the host's sets yet (the token is read when they are attached)
    local q = perflib.query { root = "/" }
    perflib.remote_tokens[hostA] = "wrong"
    local i, why, status = q:add("\\\\" .. hostA .. "\\System\\Threads")
    perflib.remote_tokens[hostA] = TOKEN
    assert.is_nil(i)
    assert.equals("no_machine", status)
    assert.matches("401", why, 1, true)
  end)

  it("checks its options, naming them", function()
    assert.has_error(function() perflib.machine { host = "a b" } end)
    assert.has_error(function() perflib.machine { host = hostB, timeout = -1 } end,
      "bad argument #1 to 'machine' (timeout must be seconds in (0, 3600])")
    assert.has_error(function() perflib.machine { host = hostB, tls = "yes" } end)
    assert.has_error(function() perflib.machine { host = hostB, root = "/" } end)
    local m, msg, e = perflib.machine { host = "127.0.0.1:1", timeout = 1 }
    assert.is_nil(m)
    assert.matches("127.0.0.1:1", msg, 1, true)
    assert.equals(111, e)             -- ECONNREFUSED
  end)

  describe("a server that is not perflib's", function()
    local pids = {}
    setup(function()
      files.write(dir .. "/meta.json", sh(("curl -s -m 5 http://%s/api/v1/countersets"):format(hostB)))
    end)
    teardown(function()
      for _, p in ipairs(pids) do os.execute("kill " .. p .. " 2>/dev/null") end
    end)

    -- A collect of \Memory\Commit Limit from a fake server in mode: the sample, its first
    -- result's status and error, and the seconds it took.
    local function collect_from(mode, timeout)
      local pid, port = fake(dir, mode)
      pids[#pids + 1] = pid
      local q = assert(perflib.machine { host = "127.0.0.1:" .. port, timeout = timeout }):query()
      assert(q:add(COMMIT))
      local t0 = perflib.clock()
      local s = q:collect()
      return s, select(2, s:format(nil, 1)), s:results()[1].error, perflib.clock() - t0
    end

    it("metadata that is not JSON is refused with a sentence", function()
      local pid, port = fake(dir, "badjson")
      pids[#pids + 1] = pid
      local m, msg, e = perflib.machine { host = "127.0.0.1:" .. port }
      assert.is_nil(m)
      assert.matches("the metadata is not perflib's", msg, 1, true)
      assert.equals(71, e)            -- EPROTO
    end)

    it("a garbage data block gives no_data with a sentence, never a crash", function()
      local s, st, err = collect_from "garbage"
      assert.is_nil((s:format(nil, 1)))
      assert.equals("no_data", st)
      assert.matches("the data block is refused at offset %d+", err)
    end)

    it("a server that never answers gives no_data within the timeout", function()
      local _, st, err, took = collect_from("hang", 0.5)
      assert.truthy(took >= 0.4 and took < 2, "took " .. took)
      assert.equals("no_data", st)
      -- curl counts the 500 ms it waited as 499 at times
      assert.matches("timed out after [45]%d%d milliseconds", err)
    end)

    it("an answer that never ends is cut at its bound", function()
      local _, st, err = collect_from("huge", 20)
      assert.equals("no_data", st)
      assert.matches("larger than 67108864 bytes", err, 1, true)
    end)
  end)

  -- last: it kills the second daemon
  it("a daemon killed mid-run gives no_data with a sentence, then the others go on", function()
    local q = perflib.query()
    assert(q:add("\\\\" .. hostB .. COMMIT))
    assert(q:add("\\\\" .. hostA .. COMMIT))
    assert.equals("valid", select(2, q:collect():format(nil, 1)))
    os.execute("kill -KILL " .. assert(child_of(pidB)))
    serve.stop(dir .. "/b", pidB)
    pidB = nil
    local t0 = perflib.clock()
    local s = q:collect()
    assert.truthy(perflib.clock() - t0 < 5)
    assert.equals("no_data", select(2, s:format(nil, 1)))
    assert.matches(hostB, s:results()[1].error, 1, true)
    assert.matches("[Cc]onnect", s:results()[1].error)
    assert.equals("valid", select(2, s:format(nil, 2)))
  end)
end)
