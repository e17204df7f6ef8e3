-- perflib.provider (issue 12, items 4 and 6): countersets published from Lua through
-- libperflib-provider, read back by path from another process with a rate checked by
-- arithmetic; misuse raising with the argument named; stop, __close and collection removing
-- the set's data; and perflua monitor running examples/rules/app.lua over the C publisher
-- (examples/publish_counters.c) and the Lua one (examples/publish.lua).  Every case runs in
-- children with a segment directory of their own, so that no set joins the suite's process.
local files = dofile "spec/support/files.lua"
local write, run = files.write, files.run

local CPATH = os.getenv "PERFLIB_CORE" and "./build/san/?.so" or "./build/?.so"
local ENV = "LUA_PATH_5_4='./lua/?.lua;./lua/?/init.lua;;' LUA_CPATH_5_4='" .. CPATH .. ";;' "

-- A Lua publisher: "LuaProv Requests" with worker-1 and worker-2.  Each line on stdin
-- "add <n>" adds n to worker-1's Requests/sec, "delete" deletes worker-2, "stop" stops the
-- provider; each is answered with a line.  It prints "ready <segment path>" when published.
local PUBLISHER = [[
local perflib = require "perflib"
local p <close> = assert(perflib.provider { countersets = { {
  name = "LuaProv Requests", help = "requests of the spec's Lua publisher",
  counters = {
    { name = "Requests/sec", type = "PERF_COUNTER_COUNTER", help = "requests served" },
    { id = 5, name = "Active", type = perflib.types.PERF_COUNTER_RAWCOUNT, size = 4 },
  } } } })
local w1, w2 = p:instance("LuaProv Requests", "worker-1"), p:instance("LuaProv Requests", "worker-2")
w1:set("Active", 3)
w2:set(5, 5)
local requests = w1:counter "Requests/sec"
print("ready " .. p:path())
io.stdout:flush()
for line in io.lines() do
  local n = line:match "^add (%d+)$"
  if n then requests:add(math.tointeger(n)) end
  if line == "delete" then w2:delete() end
  if line == "stop" then p:stop() end
  print("ok")
  io.stdout:flush()
end
]]

-- Lua code that starts the publisher (its commands on stdin, its answers in a file) and
-- waits until it answered n lines.
local PRELUDE = [[
local perflib = require "perflib"
local dir = os.getenv "PERFLIB_APPSEG_DIR"
local answers = dir .. "/answers.txt"
local pub = assert(io.popen("exec lua5.4 " .. dir .. "/pub.lua > " .. answers, "w"))
local function answered(n)
  for _ = 1, 1000 do
    local f = io.open(answers)
    local text = f and f:read "a" or ""
    if f then f:close() end
    if select(2, text:gsub("\n", "")) >= n then return text end
    os.execute "sleep 0.01"
  end
  error("the publisher did not answer")
end
local function tell(line, n) pub:write(line .. "\n"); pub:flush(); return answered(n) end
local segment = answered(1):match "^ready (%S+)"
]]

-- (an argument error names the function as Lua finds it: 'perflib.provider' or
-- 'perflib.core.provider', hence "provider' (" in the expected messages)

-- Runs code in a child lua5.4 with a segment directory of its own (with the publisher
-- script and PRELUDE when publisher is set); its output and exit code.
local function child(code, publisher, appseg_dir)
  local tmp, remove = files.tempdir()
  write(tmp .. "/pub.lua", PUBLISHER)
  write(tmp .. "/case.lua", (publisher and PRELUDE or "local perflib = require 'perflib'\n") .. code)
  local out, rc = run(("PERFLIB_APPSEG_DIR=%q %s timeout -k 5 60 lua5.4 %s")
    :format(appseg_dir or tmp, ENV, tmp .. "/case.lua"))
  remove()
  return out, rc
end

describe("perflib.provider", function()
  it("publishes a set another process reads by path, a rate over two collects by arithmetic", function()
    local out, rc = child([[
local cs = assert(perflib.counterset "LuaProv Requests")
print(cs.name, cs.instance_type, cs.help)
for _, c in ipairs(cs.counters) do print(c.id, c.name, c.type_name) end
local q = perflib.query()
q:add "\\LuaProv Requests(worker-1)\\Requests/sec"
q:add "\\LuaProv Requests(*)\\Active"
local s0 = assert(q:collect())
tell("add 250", 2)
local s1 = assert(q:collect())
local dt = (s1:results()[1].time - s0:results()[1].time) / s1.freq
for inst, v, st, counter in s1:formatted(s0) do
  if counter == "Requests/sec" then print(inst, st, string.format("%.6f", v / (250 / dt))) end
  if counter == "Active" then print("active", inst, st, v) end
end
pub:close()
]], true)
    assert.equals(0, rc, out)
    assert.matches("LuaProv Requests\tmultiple\trequests of the spec's Lua publisher", out, 1, true)
    assert.matches("0\tRequests/sec\tPERF_COUNTER_COUNTER", out, 1, true)
    assert.matches("5\tActive\tPERF_COUNTER_RAWCOUNT", out, 1, true)
    -- 250 requests over the seconds between the two reads: the ratio to 250 / dt is 1
    assert.matches("worker-1\tvalid\t1.000000", out, 1, true)
    assert.matches("active\tworker-1\tvalid\t3.0", out, 1, true)
    assert.matches("active\tworker-2\tvalid\t5.0", out, 1, true)
  end)

  it("deletes an instance and stops: the reader sees it gone, then the provider stopped", function()
    local out, rc = child([[
local q = perflib.query()
q:add "\\LuaProv Requests(*)\\Active"
print("before", #assert(q:collect()):results()[1].instances)
tell("delete", 2)
local r = assert(q:collect()):results()[1]
print("deleted", #r.instances, r.instances[1])
tell("stop", 3)
print("segment", io.open(segment) == nil)
r = assert(q:collect()):results()[1]
print("stopped", r.status, #r.instances, r.error)
pub:close()
]], true)
    assert.equals(0, rc, out)
    assert.matches("before\t2", out, 1, true)
    assert.matches("deleted\t1\tworker-1", out, 1, true)
    assert.matches("segment\ttrue", out, 1, true)
    assert.matches("stopped\tno_data\t0\tLuaProv Requests: the provider of 'LuaProv Requests' has stopped", out, 1,
      true)
  end)

  it("stops at __close and at collection, removing the segment; stop twice does nothing", function()
    local out, rc = child [[
local decl = { countersets = { { name = "LuaProv Scoped", instances = "single",
  counters = { { name = "Level", type = "PERF_COUNTER_LARGE_RAWCOUNT" } } } } }
local q = perflib.query()
local path
do
  local p <close> = assert(perflib.provider(decl))
  path = p:path()
  p:instance("LuaProv Scoped"):set("Level", 42)
  q:add "\\LuaProv Scoped\\Level"
  for inst, v, st in assert(q:collect()):formatted() do print("open", inst, v, st) end
end
print("closed", io.open(path) == nil)
local r = assert(q:collect()):results()[1]
print("after", r.status, r.error)
local p = assert(perflib.provider(decl))
path = p:path()
print("again", io.open(path) ~= nil, p:stop(), p:stop(), p:path(), tostring(p))
p = assert(perflib.provider(decl))
path = p:path()
p = nil           -- luacheck: ignore
collectgarbage()
collectgarbage()
print("collected", io.open(path) == nil)
]]
    assert.equals(0, rc, out)
    assert.matches("open\t\t42.0\tvalid", out, 1, true)
    assert.matches("closed\ttrue", out, 1, true)
    assert.matches("after\tno_data\tLuaProv Scoped: the provider of 'LuaProv Scoped' has stopped", out, 1, true)
    assert.matches("again\ttrue\ttrue\ttrue\tnil\tperflib.Provider (stopped)", out, 1, true)
    assert.matches("collected\ttrue", out, 1, true)
  end)

  it("takes integers: a float with an integral value, negative deltas, 4-byte wrap-around", function()
    local out, rc = child [[
local p <close> = assert(perflib.provider { countersets = { { name = "LuaProv Values", counters = {
  { name = "Big", type = "PERF_COUNTER_LARGE_RAWCOUNT" },
  { name = "Small", type = "PERF_COUNTER_RAWCOUNT", size = 4 } } } } })
local w = p:instance("LuaProv Values", "v")
w:set("Big", 3.0); print("float", w:get "Big", math.type(w:get "Big"))
w:add("Big", -5); print("minus", w:get "Big")
w:add "Big"; print("one", w:get(0))
w:set("Small", 1 << 32 | 7); print("low32", w:get "Small")
w:set("Small", 0); w:add("Small", -1); print("wrap", w:get "Small")
print("same", p:instance("LuaProv Values", "v") == w)
]]
    assert.equals(0, rc, out)
    assert.matches("float\t3\tinteger", out, 1, true)
    assert.matches("minus\t-2", out, 1, true)
    assert.matches("one\t-1", out, 1, true)
    assert.matches("low32\t7", out, 1, true)
    assert.matches("wrap\t4294967295", out, 1, true)
    assert.matches("same\ttrue", out, 1, true)
  end)

  it("raises for misuse, naming the argument", function()
    local out, rc = child [[
local function try(f, ...) print((select(2, pcall(f, ...)):gsub("^[^:]*:%d+: ", ""))) end
local function set(counters) return { countersets = { { name = "LuaProv Bad", counters = counters } } } end
local ok = { { name = "A", type = "PERF_COUNTER_RAWCOUNT" } }
try(perflib.provider, set { { name = "A", type = "PERF_NO_SUCH_TYPE" } })
try(perflib.provider, set { { name = "A", type = 1, id = 3 }, { name = "B", type = 1, id = 3 } })
try(perflib.provider, set { { name = "A", type = 1 }, { name = "A", type = 1 } })
try(perflib.provider, set { { name = "A", type = 1, id = 499 } })
try(perflib.provider, set { { type = 1 } })
try(perflib.provider, set {})
try(perflib.provider, { countersets = { { name = "X", guid = "not-a-guid", counters = ok } } })
try(perflib.provider, { countersets = { { name = "X", counters = ok, colour = 1 } } })
try(perflib.provider, { countersets = { { name = "X", counters = ok }, { name = "X", counters = ok } } })
try(perflib.provider, "x")
local p = assert(perflib.provider(set(ok)))
try(function() p:instance("No Such Set", "i") end)
try(function() p:instance "LuaProv Bad" end)
local w = p:instance("LuaProv Bad", "i")
try(function() w:set("Nope", 1) end)
try(function() w:set(7, 1) end)
try(function() w:set("A", 2.5) end)
try(function() w:set("A", "5") end)
try(function() w:add({}, 1) end)
local c = w:counter "A"
w:delete()
w:delete()
try(function() w:set("A", 1) end)
try(function() c:add(1) end)
print(tostring(w))
p:stop()
try(function() p:instance("LuaProv Bad", "j") end)
]]
    assert.equals(0, rc, out)
    for _, expected in ipairs {
      "provider' (countersets[1].counters[1]: unknown counter type 'PERF_NO_SUCH_TYPE')",
      "(countersets[1].counters[2]: id 3 is taken by counter 1)",
      "(countersets[1].counters[2]: name 'A' is taken by another counter)",
      "(countersets[1].counters[1]: id must be an integer from 0 to 498)",
      "(countersets[1].counters[1]: name is required)",
      "(countersets[1]: counters must list 1 to 256 counters)",
      "(countersets[1]: guid 'not-a-guid' is not xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)",
      "perflib.provider: countersets[1]: unknown option 'colour'",
      "(countersets[2]: name 'X' is taken by countersets[1])",
      "provider' (table expected, got string)",
      "bad argument #1 to 'instance' (no counterset 'No Such Set' in this provider)",
      "bad argument #2 to 'instance' (string expected, got no value)",
      "bad argument #1 to 'set' (no counter 'Nope' in 'LuaProv Bad')",
      "bad argument #1 to 'set' (no counter id 7 in 'LuaProv Bad')",
      "bad argument #2 to 'set' (number has no integer representation)",
      "bad argument #2 to 'set' (integer expected, got string)",
      "bad argument #1 to 'add' (counter name or id expected, got table)",
      "calling 'set' on bad self (instance 'i' was deleted)",
      "calling 'add' on bad self (instance 'i' was deleted)",
      "perflib.ProviderInstance (LuaProv Bad(i), deleted)",
      "calling 'instance' on bad self (the provider is stopped)",
    } do
      assert.matches(expected, out, 1, true)
    end
  end)

  it("declares units and semantics that readers see; an unknown or contradicted one raises", function()
    local out, rc = child [[
local function try(f, ...) print((select(2, pcall(f, ...)):gsub("^[^:]*:%d+: ", ""))) end
local function set(counters) return { countersets = { { name = "LuaProv Units", counters = counters } } } end
try(perflib.provider, set { { name = "A", type = "PERF_COUNTER_RAWCOUNT", unit = "furlongs" } })
try(perflib.provider, set { { name = "A", type = "PERF_COUNTER_RAWCOUNT", semantics = "sometimes" } })
try(perflib.provider, set { { name = "A", type = "PERF_COUNTER_BULK_COUNT", semantics = "gauge" } })
local p = assert(perflib.provider(set {
  { name = "Queue", type = "PERF_COUNTER_LARGE_RAWCOUNT", unit = "KiB", semantics = "gauge" },
  { name = "Waited/sec", type = "PERF_COUNTER_BULK_COUNT", unit = "ms" },
  { name = "Plain", type = "PERF_COUNTER_RAWCOUNT" } }))
p:instance("LuaProv Units", "i")
local cs = assert(perflib.counterset "LuaProv Units")
for _, name in ipairs { "Queue", "Waited/sec", "Plain" } do
  local c = cs:counter(name)
  print(name, c.unit, c.unit_scale, c.semantics, c.units_declared, (perflib.metric_name(c)))
end
p:stop()
]]
    assert.equals(0, rc, out)
    for _, expected in ipairs {
      "(countersets[1].counters[1]: unit 'furlongs' is not one perflib knows)",
      "(countersets[1].counters[1]: semantics must be counter, gauge or discrete, not 'sometimes')",
      "must be cumulative",
      "Queue\tbytes\t1024.0\tgauge\ttrue\tperflib_luaprov_units_queue_bytes\n",
      "Waited/sec\tseconds\t0.001\tcounter\ttrue\tperflib_luaprov_units_waited_seconds_total\n",
      "Plain\tcount\t1.0\tgauge\tfalse\tperflib_luaprov_units_plain\n",
    } do
      assert.matches(expected, out, 1, true)
    end
  end)

  it("returns nil, message, errno when there is no segment directory", function()
    local tmp, remove = files.tempdir()
    write(tmp .. "/file", "")
    local out, rc = child([[
print(perflib.provider { countersets = { { name = "X", counters = { { name = "A", type = 1 } } } } })
]], false, tmp .. "/file/segments")
    remove()
    assert.equals(0, rc, out)
    assert.matches("^nil\tperflib.provider: no segment in .-/file/segments: Not a directory\t20\n$", out)
  end)
end)

describe("examples/rules/app.lua", function()
  it("fires on both the C publisher's set and the Lua publisher's under perflua monitor", function()
    local tmp, remove = files.tempdir()
    local out = run(([[
export PERFLIB_APPSEG_DIR=%s
build/examples/publish_counters 20 > %s/c.out 2>&1 & C=$!
%s lua5.4 examples/publish.lua 20 > %s/l.out 2>&1 & L=$!
for i in $(seq 200); do grep -q publishing %s/c.out && grep -q publishing %s/l.out && break; sleep 0.05; done
timeout -k 5 30 build/perflua monitor examples/rules/app.lua --interval 0.2 --seconds 2
{ kill $C $L; wait $C $L; } 2>/dev/null
build/perflua examples/publish.lua 0.2 && echo "perflua publisher: done"]])
      :format(tmp, tmp, ENV, tmp, tmp, tmp))
    remove()
    assert.matches("4 rule%(s%) from examples/rules/app.lua", out)
    -- worker n serves 100 n requests a second: only worker-3 is above 250
    assert.matches("WorkerBusy {worker%-3} warn: inactive %-> firing %- worker%-3 serves %d+ requests/s", out)
    assert.not_matches("WorkerBusy {worker%-[12]}", out)
    -- queue-a finishes 50 jobs a second, queue-b 200: only queue-b is above 100
    assert.matches("QueueFast {queue%-b} warn: inactive %-> firing %- queue%-b finishes %d+ jobs/s", out)
    assert.not_matches("QueueFast {queue-a}", out, 1, true)
    -- the levels stay under their thresholds
    assert.not_matches("WorkerQueue {", out, 1, true)
    assert.not_matches("QueueBacklog {", out, 1, true)
    assert.matches("publishing 'Example Lua Jobs' in .-%.seg for 0.2 s\nperflua publisher: done", out)
  end)
end)
