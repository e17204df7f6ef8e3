-- Windows' plug-in guards end to end (issue 11, item 4): a plug-in that loads properly and then
-- hangs, crashes, writes past its buffer, lies about its sizes, returns what it was not asked
-- for or asks for more memory forever (spec/c/plugins/flaky.c).  Each failure is counted and
-- shown on its counterset's result, Failure Limit failures in a row disable the plug-in, the
-- Perflib switches change that, and the rest of the query goes on.  Children only: plug-in sets
-- never join the suite's process.
local files = dofile "spec/support/files.lua"
local write, run = files.write, files.run

local CPATH = os.getenv "PERFLIB_CORE" and "./build/san/?.so" or "./build/?.so"

local cwd = files.cwd
local LIB = cwd() .. "/build/test-plugins/flaky.so"

-- A plug-in directory with flaky.plugin in `mode` (extra [plugin] lines, a perflib.conf).
local function flaky(mode, extra, perflib_conf, marker)
  local dir, remove = files.tempdir()
  write(dir .. "/flaky.plugin", ("[plugin]\nLibrary = %s\nOpen = FlakyOpen\nCollect = FlakyCollect\n"
    .. "Close = FlakyClose\nExport = %s\n%s%s\n[object Flaky]\nOffset = 0\nHelp = misbehaves\n"
    .. "Counter 2 = Calls\nHelp 2 = data queries this host answered\n")
    :format(LIB, mode, marker and ("Export = " .. marker .. "\n") or "", extra or ""))
  if perflib_conf then write(dir .. "/perflib.conf", "[perflib]\n" .. perflib_conf .. "\n") end
  return dir, remove
end

-- Runs `n` collects of Flaky's counter and Memory's in one query in a child; per collect a
-- line "<seconds> <Flaky status> <Flaky value or error> | <Memory status>", then the plug-in.
local function collects(dir, n, after)
  local tmp, remove = files.tempdir()
  write(tmp .. "/case.lua", ([[
local perflib = require "perflib"
local q = perflib.query()
q:add "\\Flaky\\Calls"
q:add "\\Memory\\Available Bytes"
for _ = 1, %d do
  local t0 = perflib.clock()
  local s = assert(q:collect())
  local r = s:results()
  local _, v = s:raw()()
  print(("%%.2f"):format(perflib.clock() - t0), r[1].status, r[1].error or v, "|", r[2].status)
end
local p = perflib.plugins()[1]
print("plugin", p.state, p.failures, p.total_failures, p.failure_limit)
%s
]]):format(n, after or ""))
  local out, rc = run(("PERFLIB_PLUGIN_DIR=%q LUA_PATH_5_4='./lua/?.lua;./lua/?/init.lua;;' LUA_CPATH_5_4='%s;;' "
    .. "timeout -k 5 60 lua5.4 %s"):format(dir, CPATH, tmp .. "/case.lua"))
  remove()
  return out, rc
end

local function lines(out)
  local t = {}
  for l in out:gmatch "[^\n]+" do t[#t + 1] = l end
  return t
end

describe("a plug-in that misbehaves after it loaded", function()
  it("works as a control: the Calls counter counts the data queries", function()
    local dir, remove = flaky "ok"
    local out, rc = collects(dir, 3)
    remove()
    assert.equals(0, rc, out)
    local l = lines(out)
    assert.matches("\tvalid\t1\t|\tvalid", l[1], 1, true)
    assert.matches("\tvalid\t3\t|\tvalid", l[3], 1, true)
    assert.matches("plugin\trunning\t0\t0\t3", l[4], 1, true)
  end)

  it("hangs: each Collect is abandoned at its timeout, the second failure disables it, and it can be enabled again",
    function()
    local dir, remove = flaky("hang", "Collect Timeout = 300\nFailure Limit = 2")
    local out, rc = collects(dir, 3, [[
print(perflib.reset_plugin "flaky", perflib.plugins()[1].state)
print(perflib.reset_plugin "flaky")
print(perflib.reset_plugin "nosuch")]])
    remove()
    assert.equals(0, rc, out)
    local l = lines(out)
    for i = 1, 2 do
      local secs = tonumber(l[i]:match "^[%d.]+")
      assert.is_true(secs >= 0.25 and secs < 5, l[i])        -- the timeout, not forever
      assert.matches("|\tvalid", l[i], 1, true)                -- Memory goes on
    end
    assert.matches("no_data\tFlaky: plug%-in flaky: [^\t]*300 ms[^\t]*%(failure 1 of 2%)", l[1])
    assert.matches("no_data\tFlaky: plug-in flaky disabled after 2 failures in a row; the last: ", l[2], 1, true)
    assert.is_true(tonumber(l[3]:match "^[%d.]+") < 0.2, l[3])   -- disabled: not called
    assert.matches("no_data\tFlaky: plug-in flaky is disabled: ", l[3], 1, true)
    assert.matches("plugin\tdisabled\t2\t2\t2", l[4], 1, true)
    assert.matches("true\trunning", l[5], 1, true)
    assert.matches("nil\tflaky: not disabled\t22", l[6], 1, true)
    assert.matches("nil\tnosuch: no such plug-in\t2", l[7], 1, true)
  end)

  it("crashes once: the failure is counted, a fresh host answers the next collect", function()
    local tmp, rm = files.tempdir()
    local dir, remove = flaky("crashonce", nil, nil, tmp .. "/crashed")
    local out, rc = collects(dir, 2)
    remove()
    rm()
    assert.equals(0, rc, out)
    local l = lines(out)
    assert.matches("no_data\tFlaky: plug%-in flaky: [^\t]*Segmentation fault[^\t]*%(failure 1 of 3%)", l[1])
    assert.matches("\tvalid\t1\t|\tvalid", l[2], 1, true)       -- a new host: its first data query
    assert.matches("plugin\trunning\t0\t1\t3", l[3], 1, true)  -- consecutive failures reset, the total kept
  end)

  it("refuses what would be a wrong number or an overrun, naming the fault", function()
    local cases = {
      { "overrun", "past its buffer" },
      { "lie", "malformed" },
      { "foreign", "not asked for" },
      { "unaligned", "8" },
      { "moredata", "ERROR_MORE_DATA" },
    }
    for _, c in ipairs(cases) do
      local dir, remove = flaky(c[1], "Max Buffer = 65536")
      local out, rc = collects(dir, 1)
      remove()
      assert.equals(0, rc, out)
      local l = lines(out)
      assert.matches("no_data\tFlaky: plug-in flaky: ", l[1], 1, true)
      assert.matches(c[2], l[1], 1, true)
      assert.matches("|\tvalid", l[1], 1, true)
      assert.matches("plugin\trunning\t1\t1\t3", l[2], 1, true)
    end
  end)
end)

describe("a costly plug-in object", function()
  it("is learned from the Costly answer and left out of Global collections", function()
    local dir, remove = flaky("costly", "Collect Supports Metadata = 1")
    local conf = files.read(dir .. "/flaky.plugin"):gsub("Help = misbehaves", "Help = misbehaves\nCostly = 1")
    write(dir .. "/flaky.plugin", conf)
    local out, rc = collects(dir, 1, [[
local cs = perflib.counterset "Flaky"
print("costly", cs.costly)
local g = perflib.collect "MetadataGlobal"
local c = perflib.collect "MetadataCostly"
local function has(list) for _, t in ipairs(list) do if t.name == "Flaky" then return true end end return false end
print("global", has(g), "costly", has(c))]])
    remove()
    assert.equals(0, rc, out)
    local l = lines(out)
    assert.matches("\tvalid\t1\t|\tvalid", l[1], 1, true)
    assert.matches("plugin\trunning\t0\t0\t3", l[2], 1, true)
    assert.matches("costly\ttrue", out, 1, true)
    assert.matches("global\tfalse\tcostly\ttrue", out, 1, true)
  end)
end)

describe("the Perflib key's switches", function()
  it("Never Disable (Configuration Flags 0x2): failures are reported, the plug-in stays", function()
    local dir, remove = flaky("hang", "Collect Timeout = 200\nFailure Limit = 1", "Configuration Flags = 0x2")
    local out, rc = collects(dir, 2)
    remove()
    assert.equals(0, rc, out)
    local l = lines(out)
    assert.matches("(failure 2; never disabled)", l[2], 1, true)
    assert.matches("plugin\trunning\t2\t2\t0", l[3], 1, true)
  end)

  it("Skip Alignment Test (Configuration Flags 0x1): an unaligned answer is read", function()
    local dir, remove = flaky("unaligned", nil, "Skip Alignment Test = 1")
    local out, rc = collects(dir, 1)
    remove()
    assert.equals(0, rc, out)
    assert.matches("\tvalid\t1\t|\tvalid", lines(out)[1], 1, true)
  end)

  it("Disable Performance Counters in the plug-in's file: listed as off", function()
    local dir, remove = flaky("ok", "Disable Performance Counters = 1")
    local out = collects(dir, 0)
    remove()
    assert.matches("plugin\toff\t0\t0\t3", out, 1, true)
  end)
end)
