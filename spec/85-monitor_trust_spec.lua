-- perflua monitor end to end against what a hostile or unlucky world does:
-- processes named with escape sequences and newlines (issue 10 #8), HUP and
-- TERM while notifications wait (#9), the terminal of --view going away
-- (#11), and alerts stamped with the wall clock (#22).
local perflib = require "perflib"
local files = dofile "spec/support/files.lua"
local write, read, run = files.write, files.read, files.run

local PERFLUA = "build/perflua"

local function gone(pid)
  local stat = read("/proc/" .. pid .. "/stat")
  return stat == "" or stat:match("^%d+ %(.-%) Z") ~= nil
end

-- Starts a process whose comm (what Process(*) names it by) is `name`: a Lua
-- that writes its own /proc/self/comm in one write, then waits `secs`.
local function named_process(name, secs)
  local code = ('local f = io.open("/proc/self/comm", "w") f:setvbuf "full" f:write(%q) f:close() '
    .. 'os.execute "sleep %d"'):format(name, secs):gsub("\n", "n")
  local p = io.popen(("lua5.4 -e '%s' >/dev/null 2>&1 & echo $!"):format(code))
  local pid = tonumber(p:read "l")
  p:close()
  return pid
end

-- Waits up to `secs` for test() to hold; its last result.
local function await(secs, test)
  local t0 = perflib.clock()
  while true do
    local ok = test()
    if ok or perflib.clock() - t0 > secs then return ok end
    perflib.sleep(0.1)
  end
end

local function background(cmd)
  local p = io.popen(cmd .. " & echo $!")
  local pid = tonumber(p:read "l")
  p:close()
  return pid
end

describe("perflua monitor against hostile process names", function()
  local dir, remove
  before_each(function() dir, remove = files.tempdir() end)
  after_each(function() remove() end)

  it("escapes them in transition lines, the print action, the --view screen and explain", function()
    if not io.open(PERFLUA) then pending("build/perflua not built") return end
    local p1, p2 = named_process("\27[31mPWN", 12), named_process("PWN\nFAKE CRIT", 12)
    perflib.sleep(0.3)
    assert.equals("PWN\nFAKE CRIT\n", read("/proc/" .. p2 .. "/comm"))
    local rules = dir .. "/rules.lua"
    write(rules, [[
local R = require "perflib.rules"
R.rule "Named" { source = "\\Process(*)\\Working Set", instances = "PWN", value = R.last(),
  when = R.above(0), pending = "0s", every = "1s", message = "{instance} is here" }
R.route { group_by = { "..." }, actions = { R.print() } }
]])
    local outs = {}
    outs[1] = run(("%s monitor %s --seconds 2.5"):format(PERFLUA, rules))
    outs[2] = run(("%s monitor %s --seconds 2.5 --view"):format(PERFLUA, rules))
    outs[3] = run(("%s explain %s Named --seconds 1"):format(PERFLUA, rules))
    os.execute(("kill %d %d"):format(p1, p2))
    for i, out in ipairs(outs) do
      assert.is_nil(out:find("[%z\1-\8\11-\31\127]"), ("control byte in output %d: %q"):format(i, out))
      assert.is_nil(out:find("\nFAKE CRIT"), ("forged line in output %d: %q"):format(i, out))
      assert.matches("PWN\\nFAKE CRIT", out, 1, true)
      -- explain prints Lua values (%q): ESC is \27 there
      assert.matches(i == 3 and "\\27[31mPWN" or "\\x1b[31mPWN", out, 1, true)
    end
    -- transition lines and print lines, one each per process
    assert.matches("Z Named {\\x1b[31mPWN} warn: inactive -> firing - \\x1b[31mPWN is here\n", outs[1], 1, true)
    assert.matches("Z%] FIRING Named{alertname=Named,instance=PWN\\nFAKE CRIT,severity=warn} value=[%d.]+: "
      .. "PWN\\nFAKE CRIT is here\n", outs[1])
  end)
end)

describe("perflua monitor: notifications across HUP and TERM", function()
  local dir, remove
  before_each(function() dir, remove = files.tempdir() end)
  after_each(function() remove() end)

  -- A monitor of a rule that always fires, its route writing to a.jsonl: its
  -- pid, and the paths of the JSON lines and of its output.
  local function start(group_wait, repeat_interval)
    local rules, jsonl, log = dir .. "/rules.lua", dir .. "/a.jsonl", dir .. "/out.log"
    write(rules, ([[
local R = require "perflib.rules"
R.rule "Always" { source = "\\Memory\\Available Bytes", value = R.last(), when = R.above(1), pending = "0s",
  every = "1s", message = "always" }
R.route { group_wait = "%s", repeat_interval = "%s", actions = { R.jsonl "%s" } }
]]):format(group_wait, repeat_interval, jsonl))
    return background(("%s monitor %s > %s 2>&1"):format(PERFLUA, rules, log)), jsonl, log
  end

  local function lines(path)
    local out = {}
    for l in read(path):gmatch "[^\n]+" do out[#out + 1] = l end
    return out
  end

  it("a HUP keeps what waits in group_wait and the repeats of a still-firing alert", function()
    if not io.open(PERFLUA) then pending("build/perflua not built") return end
    local pid, jsonl, log = start("4s", "5s")
    assert.is_truthy(await(10, function() return read(log):find("inactive -> firing", 1, true) end), read(log))
    assert.equals(0, #lines(jsonl))                  -- the firing waits in group_wait
    os.execute("kill -HUP " .. pid)
    assert.is_true(await(10, function() return #lines(jsonl) == 1 end), read(log))  -- sent after all
    os.execute("kill -HUP " .. pid)                  -- and the repeat schedule goes on
    assert.is_true(await(15, function() return #lines(jsonl) == 2 end), read(log))
    os.execute("kill -TERM " .. pid)
    await(5, function() return gone(pid) end)
    local got = lines(jsonl)
    assert.equals(2, #got, read(log))
    assert.matches('"is_repeat":true', got[2])
    assert.matches("notifications: 1 route%(s%) kept, 0 new or changed, 0 alert%(s%) of changed rules resolved",
      read(log))
    -- wall-clock times beside the sample clock
    local now = os.time()
    local y, mo, d, h, mi, s = got[1]:match '"time":"(%d%d%d%d)%-(%d%d)%-(%d%d)T(%d%d):(%d%d):(%d%d)%.%d%d%dZ"'
    assert.is_truthy(y, got[1])
    local t = os.time { year = y, month = mo, day = d, hour = h, min = mi, sec = s, isdst = false }
    local utc_offset = os.time(os.date("!*t", now)) - now
    assert.is_true(math.abs(t - utc_offset - now) < 30, got[1])
    assert.matches('"fired_at_time":"%d+%-%d+%-%d+T', got[1])
    assert.matches('"t":%d', got[1])
    assert.is_true(gone(pid))
  end)

  it("a TERM sends what waits in group_wait instead of dropping it", function()
    if not io.open(PERFLUA) then pending("build/perflua not built") return end
    local pid, jsonl, log = start("1h", "4h")
    assert.is_truthy(await(10, function() return read(log):find("inactive -> firing", 1, true) end), read(log))
    os.execute("kill -TERM " .. pid)
    await(10, function() return gone(pid) end)
    assert.equals(1, #lines(jsonl), read(log))
    assert.matches('"state":"firing"', read(jsonl))
    assert.matches("perflua monitor: stopped", read(log))
    assert.is_true(gone(pid))
  end)
end)

describe("perflua monitor --view on a terminal", function()
  it("stops when the terminal goes away (a HUP with the terminal still there reloads)", function()
    if not io.open(PERFLUA) then pending("build/perflua not built") return end
    if not os.execute "command -v tmux >/dev/null" then pending("tmux not installed") return end
    local sock = "perflib-spec-" .. os.time() .. "-" .. math.random(1e6)
    local tmux = "tmux -L " .. sock
    local dir, remove = files.tempdir()
    local log = dir .. "/err.log"
    assert(os.execute(("%s new-session -d -s view -x 120 -y 40 'exec %s monitor examples/rules/default.lua "
      .. "--view 2>%s'"):format(tmux, PERFLUA, log)))
    local p = io.popen(tmux .. " list-panes -t view -F '#{pane_pid}'")
    local pid = tonumber(p:read "l")
    p:close()
    assert.is_truthy(pid)
    assert.is_truthy(await(10, function()
      return io.popen(tmux .. " capture-pane -p -t view"):read("a"):find("perflua monitor ·", 1, true)
    end))
    os.execute("kill -HUP " .. pid)                    -- terminal still there: a reload, not a stop
    perflib.sleep(1.5)
    assert.is_false(gone(pid), read(log))
    os.execute(tmux .. " kill-server")                 -- the terminal goes away
    local t0 = perflib.clock()
    while not gone(pid) and perflib.clock() - t0 < 5 do perflib.sleep(0.1) end
    local stopped = gone(pid)
    if not stopped then os.execute("kill -KILL " .. pid) end
    local err = read(log)
    remove()
    assert.is_true(stopped, "still running after the terminal closed: " .. err)
    assert.matches("the terminal is gone", err)
  end)
end)
