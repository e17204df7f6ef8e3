-- The monitor's screen and perflua top checked as a person would (issue 14
-- items 1 and 2): build/perflua in a detached tmux session at 80x24 and
-- 200x50, the screen captured and asserted (status line on row 1, nothing
-- wrapped, colours by state, rule names), keys sent (? shows keys, q quits
-- with exit 0), resizes redrawn, down to 10 columns; and perflib.core.term's
-- methods on a real terminal.  perflua is not the sanitizer build: tmux (and
-- so perflua) runs without the suite's LD_PRELOAD (files.sh).
local perflib = require "perflib"
local files = dofile "spec/support/files.lua"

local PERFLUA = "build/perflua"

local function have()
  if not io.open(PERFLUA) then return nil, "build/perflua not built" end
  if files.sh("command -v tmux") == "" then return nil, "tmux not installed" end
  return true
end

-- A word for sh, in single quotes.
local function shq(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- A detached tmux session running cmd at w x h; its exit code goes to a file.
local function session(w, h, cmd)
  local dir, remove = files.tempdir()
  local s = { tmux = ("tmux -L perflib-93-%d-%d"):format(os.time(), math.random(1e6)), dir = dir, rc = dir .. "/rc" }
  -- no status bar: the pane is the whole window
  files.write(dir .. "/tmux.conf", "set -g status off\n")
  s.tmux = s.tmux .. " -f " .. dir .. "/tmux.conf"
  files.sh(("%s new-session -d -s main -x %d -y %d %s"):format(s.tmux, w, h,
    shq(("%s; echo rc=$? > %s; sleep 60"):format(cmd, s.rc))))
  function s.screen(escapes)
    return files.sh(("%s capture-pane -p %s -t main"):format(s.tmux, escapes and "-e" or ""))
  end
  function s.lines()
    local out = {}
    for l in s.screen():gmatch "([^\n]*)\n" do out[#out + 1] = l end
    return out
  end
  function s.keys(...)
    for _, k in ipairs { ... } do files.sh(("%s send-keys -t main %q"):format(s.tmux, k)) end
  end
  function s.resize(x, y) files.sh(("%s resize-window -t main -x %d -y %d"):format(s.tmux, x, y)) end
  -- waits until the screen matches the pattern (plain find when plain); the screen
  function s.await(pat, plain, secs)
    local t0 = perflib.clock()
    repeat
      local text = s.screen()
      if text:find(pat, 1, plain) then return text end
      perflib.sleep(0.1)
    until perflib.clock() - t0 > (secs or 10)
    error(("screen never showed %q:\n%s"):format(pat, s.screen()), 2)
  end
  function s.exit_code(secs)
    local t0 = perflib.clock()
    while perflib.clock() - t0 < (secs or 5) do
      local rc = files.slurp(s.rc)
      if rc and rc ~= "" then return tonumber(rc:match "rc=(%d+)") end
      perflib.sleep(0.1)
    end
  end
  function s.close()
    files.sh(s.tmux .. " kill-server 2>/dev/null")
    remove()
  end
  return s
end

-- Runs fn(session) in a tmux session (pending without perflua or tmux); the
-- session goes whatever fn does.
local function in_tmux(w, h, cmd, fn)
  local ok, why = have()
  if not ok then pending(why) return end
  local s = session(w, h, cmd)
  local done, err = pcall(fn, s)
  s.close()
  assert(done, err)
end

local function assert_fits(s, w, h)
  local lines = s.lines()
  assert.is_true(#lines <= h, ("%d lines on a screen of %d"):format(#lines, h))
  for i, l in ipairs(lines) do
    assert.is_true((utf8.len(l) or #l) <= w, ("line %d is wider than %d: %q"):format(i, w, l))
  end
  return lines
end

describe("perflua monitor --view in tmux", function()
  it("at 80x24: status line on row 1, the rules in colour, ? keys, resizes, q exits 0", function()
    in_tmux(80, 24, PERFLUA .. " monitor examples/rules/default.lua --view", function(s)
      s.await("sample 2 ", true)
      local lines = assert_fits(s, 80, 24)
      assert.matches("^perflua monitor · %d%d:%d%d:%d%d · [%w ,]+ · sample 2 · every 1 s · %? keys, q quits", lines[1])
      assert.matches("^rule%s+alerts%s+values", lines[2])
      assert.matches("^CpuBusy%s+", lines[3])
      local text = table.concat(lines, "\n")
      for _, r in ipairs { "CpuAllBusy", "MemoryLow", "LoadHigh", "IoPressure" } do
        assert.matches("\n" .. r .. " ", text)
      end
      assert.equals("recent transitions:", lines[19])
      assert.matches("\n[%w]+%s+[%w ,]+%s+.- MiB", text)        -- MemoryLow's value with its unit
      -- colours: the status line reversed, rules in the colour of their state (green when ok)
      local esc = s.screen(true)
      assert.matches("^\27%[7m", esc)
      local pre = esc:match "\n([^\n]-)CpuBusy "
      assert.is_truthy(pre and pre:find "[%[;]3[1-6]m", pre)
      s.keys("?")
      s.await("scroll one page", true)
      assert.matches("firing crit", s.screen())
      s.keys("x")                                                  -- any key: back
      s.await("\nCpuBusy ")
      s.resize(200, 50)
      s.await("q quits · examples/rules/default.lua", true)
      local wide = assert_fits(s, 200, 50)
      assert.equals(50, #wide)
      assert.equals("recent transitions:", wide[45])
      s.resize(10, 5)
      s.await("\nCpuBusy\n")                                  -- (tmux drops trailing blanks)
      local tiny = assert_fits(s, 10, 5)
      assert.equals("perflua mo", tiny[1])
      assert.equals("rule", tiny[2])
      s.resize(80, 24)
      s.await("\nrecent transitions:")
      s.keys("q")
      assert.equals(0, s.exit_code())
      assert.matches("perflua monitor: stopped", s.screen())      -- after the alternate screen
    end)
  end)

  it("scrolls the rules with j/k and the arrows on a short screen", function()
    in_tmux(80, 12, PERFLUA .. " monitor examples/rules/default.lua --view", function(s)
      -- 12 rows: status, titles, 7 rules, "recent transitions:" and 2 lines
      local text = s.await("%[1%-7 of %d+%]")
      assert.matches("\nCpuBusy ", text)
      s.keys("j", "j")
      text = s.await("%[3%-9 of %d+%]")
      assert.is_nil(text:find("\nCpuBusy ", 1, true))
      assert.matches("\nIoWait ", text)
      s.keys("Up")
      s.await("%[2%-8 of %d+%]")
      s.keys("End")
      s.await("%[%d+%-(%d+) of %1%]")
      s.keys("Home")
      s.await("\nCpuBusy ")
      s.keys("q")
      assert.equals(0, s.exit_code())
    end)
  end)
end)

describe("perflua monitor --view colours", function()
  it("firing crit red, pending cyan, ok green; the status line in the worst colour", function()
    local dir, remove = files.tempdir()
    files.write(dir .. "/rules.lua", [[
local R = require "perflib.rules"
local MB = "\\Memory\\Available MBytes"
R.rule "AlwaysCrit" { source = MB, value = R.last(), when = R.above(0), severity = "crit", pending = "0s",
  every = "1s" }
R.rule "AlwaysPending" { source = MB, value = R.last(), when = R.above(0), pending = "1h", every = "1s" }
R.rule "Never" { source = MB, value = R.last(), when = R.below(0), every = "1s" }
]])
    in_tmux(80, 24, ("%s monitor %s/rules.lua --view"):format(PERFLUA, dir), function(s)
      s.await("1 firing, 1 pending", true)
      local esc = s.screen(true)
      -- the SGR codes in front of each row's text (tmux writes what changes from the row before)
      local function sgr(text) return assert(esc:match("([^\n]-)" .. text), text) end
      local status = sgr "perflua monitor"
      assert.is_truthy(status:find "[%[;]7[;m]" and status:find "[%[;]31m", status)   -- reversed red
      assert.matches("[%[;]31m", sgr "AlwaysCrit ")
      assert.matches("[%[;]36m", sgr "AlwaysPending ")
      assert.matches("[%[;]32m", sgr "Never ")
      s.keys("q")
      assert.equals(0, s.exit_code())
    end)
    remove()
  end)
end)

describe("perflua top in tmux", function()
  it("Process at 80x24: sortable with > and r, ? keys, 200x50 shows every column, q exits 0", function()
    in_tmux(80, 24, PERFLUA .. " top Process", function(s)
      s.await("sample 2 ", true)
      local lines = assert_fits(s, 80, 24)
      assert.matches("^perflua top · Process · %d+ instances · sort %%CPU v · ", lines[1])
      assert.matches("^instance +%%CPU v +RSS +Private +IO/s +Faults/s$", lines[2])
      assert.matches("^_Total +[%d.]+%% +[%d.]+ [KMG]iB ", lines[3])
      assert.equals(24, #lines)
      s.keys(">")
      s.await("\ninstance +%%CPU +RSS v ")
      -- RSS highest first after _Total; a capture may fall in the middle of a redraw,
      -- so one of three captures must be in order
      local function rss_sorted()
        local rss = {}
        for v, u in s.screen():gmatch "\n[^\n]-%%%s+([%d.]+) ([KMG]?i?B) " do
          rss[#rss + 1] = tonumber(v) * (({ B = 1, KiB = 1024, MiB = 1048576, GiB = 1073741824 })[u])
        end
        for i = 3, #rss do
          if rss[i - 1] < rss[i] then return false, table.concat(rss, " ") end
        end
        return #rss > 5, table.concat(rss, " ")
      end
      local sorted, seen
      for _ = 1, 3 do
        sorted, seen = rss_sorted()
        if sorted then break end
        perflib.sleep(0.3)
      end
      assert.is_true(sorted, "RSS not descending: " .. seen)
      s.keys("r")
      s.await("\ninstance +%%CPU +RSS %^ ")
      s.keys("?")
      s.await("reverse the order", true)
      s.keys("x")
      s.resize(200, 50)
      s.await("\ninstance +%%CPU +RSS %^ +Private +IO/s +Faults/s +Threads +Age +PID\n")
      assert_fits(s, 200, 50)
      s.keys("q")
      assert.equals(0, s.exit_code())
    end)
  end)

  it("the machine summary by default", function()
    in_tmux(80, 24, PERFLUA .. " top", function(s)
      local text = s.await("sample 2 ", true)
      assert.matches("^perflua top · machine summary · ", text)
      assert.matches("\nCPU busy +[%d.]+%%\n", text)
      assert.matches("\nMemory available +[%d.]+ [KMG]iB\n", text)
      assert_fits(s, 80, 24)
      s.keys("q")
      assert.equals(0, s.exit_code())
    end)
  end)
end)

describe("perflua top when its terminal goes away", function()
  it("stops (no process left behind)", function()
    in_tmux(80, 24, PERFLUA .. " top Process", function(s)
      s.await("sample 2 ", true)
      local shell = tonumber(files.sh(s.tmux .. " list-panes -t main -F '#{pane_pid}'"))
      local pid = tonumber(files.sh("pgrep -P " .. shell .. " perflua"))
      assert.is_truthy(pid)
      files.sh(s.tmux .. " kill-server")
      local t0 = perflib.clock()
      local stat
      repeat
        perflib.sleep(0.1)
        stat = files.read("/proc/" .. pid .. "/stat")
      until stat == "" or stat:match "^%d+ %(.-%) Z" or perflib.clock() - t0 > 5
      if not (stat == "" or stat:match "^%d+ %(.-%) Z") then os.execute("kill -KILL " .. pid) end
      assert.is_true(stat == "" or stat:match "^%d+ %(.-%) Z" ~= nil, "still running: " .. stat)
    end)
  end)
end)

describe("an error in a live view", function()
  it("gives the terminal back before the error is shown", function()
    local dir, remove = files.tempdir()
    local script = dir .. "/boom.lua"
    files.write(script, [[
local top = require "perflib.top"
local layout, n = top.layout, 0
top.layout = function(...)
  n = n + 1
  if n == 3 then error("boom in frame " .. n) end
  return layout(...)
end
top.run { set = "Memory", interval = 0.2 }
]])
    in_tmux(80, 24, PERFLUA .. " " .. script, function(s)
      local text = s.await("boom in frame 3", true)
      assert.is_nil(text:find("perflua top · Memory", 1, true))     -- the view's screen is gone
      assert.equals("0\n", files.sh(s.tmux .. " display -p -t main '#{alternate_on}'"))
      assert.equals(1, s.exit_code())
    end)
    remove()
  end)
end)

describe("perflib.term on a terminal", function()
  it("draws rows clipped to the width, reads keys, refuses misuse, releases once", function()
    local ok, why = have()
    if not ok then pending(why) return end
    local dir, remove = files.tempdir()
    local script, log = dir .. "/term.lua", dir .. "/log"
    files.write(script, ([[
local core = require "perflib.core"
local out = assert(io.open(%q, "w"))
out:setvbuf "line"
local t = assert(core.term.open())
local h, w = t:size()
out:write("size ", h, " ", w, "\n")
local _, msg, e = core.term.open()
out:write("again ", msg, " ", e, "\n")
t:draw(1, "hello · world", "status_crit")
t:draw(2, ("x"):rep(300), "ok")
t:draw(3, "caf\xff!", "pending")
out:write("below ", tostring(t:draw(h + 1, "x")), "\n")
local function e(f) return (select(2, pcall(f)):gsub("^[^:]+:%%d+: ", "")) end
out:write("badstyle ", e(function() return t:draw(1, "x", "blinky") end), "\n")
out:write("badrow ", e(function() return t:draw(0, "x") end), "\n")
out:write("badtimeout ", e(function() return t:getkey(-1) end), "\n")
t:refresh()
out:write("nokey ", tostring(t:getkey(0)), "\n")
out:write("got ", tostring(t:getkey(10)), "\n")
out:write("got ", tostring(t:getkey(10)), "\n")
t:close()
t:close()
out:write("closed ", e(function() return t:size() end), "\n")
local t2 = assert(core.term.open())
t2 = nil
collectgarbage()
collectgarbage()
local t3 = core.term.open()
out:write("reopen ", tostring(t3 ~= nil), "\n")
t3:close()
out:close()
]]):format(log))
    -- in the sanitizer pass, the sanitizer build of the module under lua5.4 (perflua is not one)
    local cmd = PERFLUA .. " " .. script
    if os.getenv "LD_PRELOAD" and os.getenv "PERFLIB_CORE" then
      cmd = ("env LD_PRELOAD=%s ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1 "
        .. "LUA_PATH='./lua/?.lua;./lua/?/init.lua;;' LUA_CPATH='./build/san/?.so;;' lua5.4 %s")
        :format(os.getenv "LD_PRELOAD", script)
    end
    local s = session(80, 24, cmd)
    local done, err = pcall(function()
      local t0 = perflib.clock()
      while not files.read(log):find("nokey", 1, true) and perflib.clock() - t0 < 10 do perflib.sleep(0.1) end
      local lines = s.lines()
      assert.equals("hello · world", lines[1]:match "^(.-)%s*$")
      assert.equals(("x"):rep(80), lines[2])
      assert.equals("caf?!", lines[3]:match "^(.-)%s*$")        -- not UTF-8: '?'
      local esc = s.screen(true)
      local sgr = esc:match "^(.-)hello"                           -- reversed, bold, red
      assert.is_truthy(sgr:find "[%[;]7[;m]" and sgr:find "[%[;]1[;m]" and sgr:find "[%[;]31m", sgr)
      s.keys("z")
      perflib.sleep(0.3)
      s.keys("Up")
      assert.equals(0, s.exit_code())
      assert.equals(table.concat({
        "size 24 80",
        "again term.open: a terminal is already open: Device or resource busy 16",
        "below false",
        "badstyle bad argument #3 to 'draw' (unknown style 'blinky')",
        "badrow bad argument #1 to 'draw' (row must be 1 or more)",
        "badtimeout bad argument #1 to 'getkey' (timeout must be 0 to 86400 seconds)",
        "nokey nil",
        "got z",
        "got up",
        "closed calling 'size' on bad self (attempt to use a closed terminal)",
        "reopen true", "" }, "\n"), files.read(log))
    end)
    s.close()
    remove()
    assert(done, err)
  end)
end)
