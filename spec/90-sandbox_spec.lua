-- The rule sandbox (issue 10, items 5 and 6): an instruction limit that pcall and xpcall
-- cannot beat, a memory budget, the string metatable kept inside, pattern functions bounded,
-- TERM stopping a monitor whatever a rule does, and an environment of its own per rule.
-- Cases that would hang without the sandbox run in a child process under `timeout`, so a
-- regression fails here instead of wedging the suite.
local perflib = require "perflib"
local R = require "perflib.rules"
local E = require "perflib.rules.engine"

local files = dofile "spec/support/files.lua"
local write, read, run = files.write, files.read, files.run

local PERFLUA = "build/perflua"
-- the module under test (build/san/..., build/lua5.1/...: run-all.sh) and its interpreter
local CPATH = os.getenv "PERFLIB_CORE" and os.getenv("PERFLIB_CORE"):gsub("perflib/core%.so$", "?.so") or "./build/?.so"
local LUA = os.getenv "PERFLIB_LUA" or "lua5.4"

-- Runs Lua code in a child LUA (TERM after `secs` seconds, KILL 5 s later: a child may
-- trap TERM); its output and exit code.
local function child(code, secs)
  local dir, remove = files.tempdir()
  write(dir .. "/case.lua", code)
  local out, rc = run(("LUA_PATH_5_4='./lua/?.lua;./lua/?/init.lua;;' LUA_CPATH_5_4='%s;;' "
    .. "LUA_PATH='./lua/?.lua;./lua/?/init.lua;;' LUA_CPATH='%s;;' timeout -k 5 %d %s %s")
    :format(CPATH, CPATH, secs or 20, LUA, dir .. "/case.lua"))
  remove()
  return out, rc
end

-- A child that loads `rules` as a rules file, feeds one frame where s{x} = 5 and prints the
-- events, one a line: "kind rule message".
local function feed_child(rules, engine_opts)
  return child(([==[
local R = require "perflib.rules"
local E = require "perflib.rules.engine"
local set, errs = R.load(%q)
if not set then print("load failed: " .. errs[1].message) return end
local eng = E.new(set, %s)
for _, ev in ipairs(eng:feed(0, { s = { instances = { "x" }, value = { x = 5 } } })) do
  print(ev.kind, ev.rule, ev.message)
end
print("done", tostring(debug.gethook()), tostring(getmetatable("").__index == string))
]==]):format(rules, engine_opts or "nil"))
end

local SPIN = "function() while true do pcall(function() while true do end end) end end"

describe("the sandbox's instruction limit", function()
  it("stops a condition that loops inside pcall; the limit is sticky", function()
    local out, rc = feed_child(('R.rule "Spin" { source = "s", when = %s }\n'
      .. 'R.rule "Fine" { source = "s", when = R.above(1) }'):format(SPIN))
    assert.equals(0, rc, out)
    assert.matches("rule_error\tSpin\trule \"Spin\" disabled: instruction limit %(100000%) exceeded", out)
    assert.matches("transition\tFine", out)
    assert.matches("done\tnil\ttrue", out)           -- hook and string metatable put back
  end)

  it("stops an on_transition hook that loops inside pcall", function()
    local out, rc = feed_child(('R.rule "Hot" { source = "s", when = R.above(1) }\n'
      .. 'R.on_transition(%s)'):format(SPIN))
    assert.equals(0, rc, out)
    assert.matches("on_transition hook disabled: instruction limit", out)
  end)

  it("stops a rules file that loops inside pcall while it loads", function()
    local out, rc = child(([==[
local R = require "perflib.rules"
local set, errs = R.load("while true do pcall(function() while true do end end) end\n", { limit = 1000000 })
print(set, errs[1].message)
]==]))
    assert.equals(0, rc, out)
    assert.matches("nil\trules: error while loading: instruction limit %(1000000%) exceeded", out)
  end)

  it("stops an R.call action that loops inside pcall", function()
    local out, rc = child(([==[
local R = require "perflib.rules"
local E = require "perflib.rules.engine"
local N = require "perflib.rules.notify"
local set = assert(R.load [[
R.rule "Hot" { source = "s", when = R.above(1) }
R.route { actions = { R.call(%s, { retries = 0 }) } }
]])
local n = N.new(set, { log = function(m) print("log", m) end })
for _, ev in ipairs(E.new(set):feed(0, { s = { instances = { "x" }, value = { x = 5 } } })) do n:event(ev) end
n:tick(0)
print("done")
]==]):format(SPIN))
    assert.equals(0, rc, out)
    assert.matches("log\taction call for Hot firing %(attempt 1/1%) failed: instruction limit", out)
    assert.matches("done", out)
  end)

  it("is not beaten by an xpcall message handler that loops", function()
    -- xpcall is not in a rules file's environment; a function given in Lua reaches it
    local out, rc = child([==[
local R = require "perflib.rules"
local E = require "perflib.rules.engine"
local xp = xpcall
local set = R.new()
set:rule "Handler" { source = "s", when = function()
  while true do xp(function() error("x") end, function() while true do end end) end
end }
set:rule "Both" { source = "s", when = function()
  while true do xp(function() while true do end end, function() while true do end end) end
end }
for _, ev in ipairs(E.new(set):feed(0, { s = { instances = { "x" }, value = { x = 5 } } })) do
  print(ev.kind, ev.rule, ev.message)
end
]==])
    assert.equals(0, rc, out)
    assert.matches("rule_error\tHandler\t[^\n]*instruction limit", out)
    assert.matches("rule_error\tBoth\t[^\n]*instruction limit", out)
  end)
end)

describe("the sandbox's library bounds", function()
  it("refuses a pattern whose worst-case backtracking exceeds the limit left", function()
    local out, rc = feed_child([[
R.rule "Backtrack" { source = "s", when = function() return ("a"):rep(60):find(".-.-.-.-.-.-.-.-.-b") ~= nil end }
R.rule "Ordinary" { source = "s", when = function(ctx)
  local n = 0
  for _ in ("cpu0 cpu1 cpu2"):gmatch("cpu%d") do n = n + 1 end
  return n == 3 and ("a=1"):match("^(%w+)=(%d+)$") == "a" and ("x"):rep(3):gsub("x", "y") == "yyy"
end }
]])
    assert.equals(0, rc, out)
    assert.matches("rule_error\tBacktrack\t[^\n]*find: worst case [%d.e+]+ steps exceeds the %d+ left", out)
    assert.matches("transition\tOrdinary", out)
  end)

  it("holds a one-instruction allocation and a growing table to the memory budget", function()
    local out, rc = feed_child([[
R.rule "Rep" { source = "s", when = function() return #("x"):rep(1073741824) > 0 end }  -- 1 << 30
R.rule "Grow" { source = "s", limit = 1099511627776, when = function()                 -- 1 << 40
  local t = {}
  for i = 1, 1099511627776 do t[i] = i end
end }
R.rule "Caught" { source = "s", limit = 1099511627776, when = function()
  while true do pcall(function() local t = {} for i = 1, 1099511627776 do t[i] = i end end) end
end }
]])
    assert.equals(0, rc, out)
    assert.matches("rule_error\tRep\t[^\n]*memory budget %(8388608 bytes%) exceeded", out)
    assert.matches("rule_error\tGrow\t[^\n]*memory budget %(8388608 bytes%) exceeded", out)
    assert.matches("rule_error\tCaught\t[^\n]*memory budget %(8388608 bytes%) exceeded", out)
  end)

  it("shows strings the rule's own string table, and puts the real one back", function()
    local set = R.new()
    set:rule "Mine" { source = "s", when = function()
      string.upper = function() return "mine" end   -- luacheck: ignore 122
      return ("a"):upper() == "mine"
    end }
    set:rule "Other" { source = "s", when = function() return ("a"):upper() == "A" end }
    set:rule "Fails" { source = "s", when = function() return ("a"):nothing() end }
    local evs = E.new(set):feed(0, { s = { instances = { "x" }, value = { x = 5 } } })
    local fired = {}
    for _, ev in ipairs(evs) do if ev.to == "firing" then fired[#fired + 1] = ev.rule end end
    table.sort(fired)
    assert.same({ "Mine", "Other" }, fired)
    assert.equals(string, getmetatable("").__index)
    assert.equals("A", ("a"):upper())
    assert.equals(11, "10" + 1)
  end)
end)

describe("environments", function()
  local frame = { s = { instances = { "x" }, value = { x = 5 } } }
  local function state(eng, rule) return (eng:state(rule, { instance = "x" })) end

  it("are one per rule: redefining math.max in one rule leaves another alone", function()
    local set = assert(R.load [[
      R.rule "Vandal" { source = "s", when = function() math.max = function() return -1 end; return false end }
      R.rule "Victim" { source = "s", when = function(ctx) return math.max(ctx.value, 0) > 2 end }
    ]])
    local eng = E.new(set)
    eng:feed(0, frame)
    assert.equals("firing", state(eng, "Victim"))
    assert.equals(math.max, require("math").max)
  end)

  it("are fresh after a reload, and each hook has its own", function()
    local src = [[
      R.rule "Count" { source = "s", when = function() seen = (seen or 0) + 1; return seen > 1 end }
      R.on_transition(function() hooked = (hooked or 0) + 1; if hooked > 1 then error("shared") end end)
      R.on_transition(function() hooked = (hooked or 0) + 1; if hooked > 1 then error("shared") end end)
    ]]
    for _ = 1, 2 do                                  -- the second load is the reload
      local eng = E.new(assert(R.load(src)))
      eng:feed(0, frame)
      assert.equals("inactive", state(eng, "Count"))
      local evs = eng:feed(1, frame)
      assert.equals("firing", state(eng, "Count"))
      assert.equals(1, #evs)                         -- the transition, and no hook failed
    end
  end)
end)

describe("a stop signal", function()
  it("ends a spinning condition without disabling the rule, and stays to be reported", function()
    local out, rc = child(([==[
local perflib = require "perflib"
local R = require "perflib.rules"
local E = require "perflib.rules.engine"
local set = R.new()
set:rule "Spin" { source = "s", limit = math.maxinteger, when = %s }
perflib.trap("TERM")
local f = assert(io.open "/proc/self/stat")
local pid = f:read("*n")
f:close()
os.execute("kill -TERM " .. pid)
local eng = E.new(set)
local evs = eng:feed(0, { s = { instances = { "x" }, value = { x = 5 } } })
print(#evs, eng.interrupted, perflib.signalled(), (eng:state("Spin", { instance = "x" })))
print(table.concat(perflib.trapped(), ","), perflib.signalled())
]==]):format(SPIN))
    assert.equals(0, rc, out)
    assert.equals("0\tstopped by SIGTERM\ttrue\tinactive\nTERM\tfalse\n", out)
  end)
end)

describe("perflua monitor and a rule that never returns", function()
  local dir, remove
  before_each(function() dir, remove = files.tempdir() end)
  after_each(function() remove() end)

  -- starts the monitor in the background; its pid
  local function start(rules, log)
    local p = io.popen(("%s monitor %s > %s 2>&1 & echo $!"):format(PERFLUA, rules, log))
    local pid = tonumber(p:read("*l"))
    p:close()
    return pid
  end
  local function gone(pid)
    local stat = read("/proc/" .. pid .. "/stat")
    return stat == "" or stat:match("^%d+ %(.-%) Z") ~= nil
  end
  local function wait_gone(pid, secs)
    local t0 = perflib.clock()
    while perflib.clock() - t0 < secs do
      if gone(pid) then return true end
      perflib.sleep(0.1)
    end
    os.execute("kill -KILL " .. pid .. " 2>/dev/null")
    return false
  end

  it("stops on TERM within seconds while a condition spins", function()
    if not io.open(PERFLUA) then pending("build/perflua not built") return end
    local rules, log = dir .. "/rules.lua", dir .. "/out.log"
    write(rules, ('R.rule "Spin" { source = "\\\\Memory\\\\Available Bytes", limit = math.maxinteger, when = %s }\n')
      :format(SPIN))
    local pid = start(rules, log)
    perflib.sleep(2.5)
    os.execute("kill -TERM " .. pid)
    assert.is_true(wait_gone(pid, 5), "still running 5 s after TERM: " .. read(log))
    assert.matches("perflua monitor: stopped", read(log))
  end)

  it("survives a reload of a rules file that spins while it loads", function()
    if not io.open(PERFLUA) then pending("build/perflua not built") return end
    local rules, log = dir .. "/rules.lua", dir .. "/out.log"
    write(rules, 'R.rule "Never" { source = "\\\\Memory\\\\Available Bytes", when = R.below(1) }\n')
    local pid = start(rules, log)
    perflib.sleep(1.5)
    write(rules, "while true do pcall(function() while true do end end) end\n")
    os.execute("kill -HUP " .. pid)
    local t0 = perflib.clock()
    while perflib.clock() - t0 < 10 and not read(log):find("reload of", 1, true) do perflib.sleep(0.1) end
    os.execute("kill -TERM " .. pid)
    assert.is_true(wait_gone(pid, 5), "still running 5 s after TERM: " .. read(log))
    local out = read(log)
    assert.matches("instruction limit", out)
    assert.matches("reload of .- failed; the old rules go on", out)
    assert.matches("perflua monitor: stopped", out)
  end)
end)

describe("perflib's own rules code inside the sandbox", function()
  -- The DSL, the renderer and the notifier run inside sandboxed calls (a file being loaded, a
  -- hook, a call action); they use the real string functions, so a long message or a long
  -- instance name is not charged as a sandboxed pattern would be (the default rules once
  -- failed to load: their templates' {field} check was charged 1.9e6 steps).
  it("loads a file with long message templates and renders them", function()
    local long = ("x"):rep(4000)
    local set, errs = R.load(('R.rule "Long" { source = "s", when = R.above(1), message = %q }')
      :format(long .. " {instance} {value:%.1f} " .. long))
    assert.is_nil(errs)
    local eng = E.new(set)
    local evs = eng:feed(0, { s = { instances = { "x" }, value = { x = 5 } } })
    assert.equals(long .. " x 5.0 " .. long, evs[1].message)
  end)

  it("loads the default rules within the load limit", function()
    local set, errs = R.load("examples/rules/default.lua")
    assert.is_nil(errs)
    assert.truthy(#set.order > 10)
  end)
end)
