-- Application providers (issue 12, items 1-3) from Lua: a C program publishes
-- "MyApp Requests" with libperflib-provider (build/test-providers/appseg-pub) and a
-- child lua5.4 reads it by path, rates over two collects, and sees the set fail with
-- a sentence once the publisher is killed.  Each case runs in a child with its own PERFLIB_APPSEG_DIR,
-- so that application sets never join the suite's own process.
local files = dofile "spec/support/files.lua"
local write, run = files.write, files.run

local CPATH = os.getenv "PERFLIB_CORE" and "./build/san/?.so" or "./build/?.so"
local PUB = "build/test-providers/appseg-pub"

-- Lua code that starts the publisher (its commands on stdin, its answers in a file)
-- and waits until it answered n lines.
local PRELUDE = [[
local perflib = require "perflib"
local dir = os.getenv "PERFLIB_APPSEG_DIR"
local answers = dir .. "/answers.txt"
local pub = assert(io.popen("exec ]] .. PUB .. [[ > " .. answers, "w"))
local function answered(n)
  for _ = 1, 500 do
    local f = io.open(answers)
    local text = f and f:read "a" or ""
    if f then f:close() end
    local lines = select(2, text:gsub("\n", ""))
    if lines >= n then return end
    os.execute "sleep 0.01"
  end
  error("the publisher did not answer")
end
local function tell(line, n) pub:write(line .. "\n"); pub:flush(); answered(n) end
answered(1)
]]

-- Runs PRELUDE .. code in a child with a segment directory of its own.
local function child(code)
  local tmp, remove = files.tempdir()
  write(tmp .. "/case.lua", PRELUDE .. code)
  local out, rc = run(("PERFLIB_APPSEG_DIR=%q LUA_PATH_5_4='./lua/?.lua;./lua/?/init.lua;;' "
    .. "LUA_CPATH_5_4='%s;;' timeout -k 5 60 lua5.4 %s"):format(tmp, CPATH, tmp .. "/case.lua"))
  remove()
  return out, rc
end

describe("a counterset an application publishes", function()
  it("is read by path like a built-in one, with its instances and help", function()
    local out, rc = child [[
local cs = assert(perflib.counterset "MyApp Requests")
print(cs.name, cs.instance_type, cs.help)
for _, c in ipairs(cs.counters) do print(c.id, c.name, c.type_name) end
for _, i in ipairs(cs:instances()) do print("instance", i.name, i.id) end
local q = perflib.query()
q:add "\\MyApp Requests(worker-2)\\Active"
local s = assert(q:collect())
for inst, v, _, counter in s:raw() do print("raw", counter, inst, v) end
pub:close()
]]
    assert.equals(0, rc, out)
    assert.matches("MyApp Requests\tmultiple\trequests of the spec's publisher", out, 1, true)
    assert.matches("1\tRequests/sec\tPERF_COUNTER_COUNTER", out, 1, true)
    assert.matches("2\tActive\tPERF_COUNTER_RAWCOUNT", out, 1, true)
    assert.matches("instance\tworker-1\t1\ninstance\tworker-2\t2\n", out, 1, true)
    assert.matches("raw\tActive\tworker-2\t5", out, 1, true)
  end)

  it("gives Requests/sec over two collects: the increment over the time between the reads", function()
    local out, rc = child [[
local q = perflib.query()
q:add "\\MyApp Requests(worker-1)\\Requests/sec"
local s0 = assert(q:collect())
tell("add 250", 2)
local s1 = assert(q:collect())
local dt = (s1:results()[1].time - s0:results()[1].time) / s1.freq
for inst, v, st in s1:formatted(s0) do
  print(inst, st, string.format("%.6f", v / (250 / dt)))
end
pub:close()
]]
    assert.equals(0, rc, out)
    -- the rate is 250 requests over the seconds between the two reads: the ratio is 1
    assert.matches("worker-1\tvalid\t1.000000", out, 1, true)
  end)

  it("fails with a sentence once its provider is killed, never with its last numbers", function()
    local out, rc = child [[
local q = perflib.query()
q:add "\\MyApp Requests(*)\\Active"
local s = assert(q:collect())
print("before", #s:results()[1].instances)
local f = assert(io.open(answers))
local pid = assert(f:read("l"):match "^ready (%d+)$")
f:close()
os.execute("kill -KILL " .. pid)   -- the shell's own kill: nothing under the suite's LD_PRELOAD
os.execute "sleep 0.1"
s = assert(q:collect())
local r = s:results()[1]
print("after", r.status, #r.instances, r.error)
pub:close()
]]
    assert.equals(0, rc, out)
    assert.matches("before\t2", out, 1, true)
    assert.matches("after\tno_data\t0\tMyApp Requests: the provider of 'MyApp Requests' %(pid %d+%) has exited; "
      .. "its segment ", out)
  end)
end)
