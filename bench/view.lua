-- make bench: CPU per frame of the monitor's screen on ncurses against the plain
-- view (issue 14, "Speed and size": the view must not cost more than the plain
-- output at 1 Hz).
--
--   lua5.4 bench/view.lua [SECONDS] [INTERVAL]
--
-- build/perflua monitor examples/rules/default.lua --view runs in a detached tmux pane
-- of 80x24 with a frame every INTERVAL (default 0.05 s; what a frame costs does not
-- depend on the rate, so this stands for 1 Hz), as
--   plain  with TERM=dumb: the plain blocks printed to the terminal
--   curses the ncurses screen
-- each twice: for 2 s and for SECONDS (default 10).  The CPU time of a run is the
-- shell's cutime + cstime after perflua exits; the difference between the two runs
-- over the difference in frames is the CPU of one frame (sampling, the rules and the
-- drawing; the start-up, ncurses' included, drops out), and what is left the start-up.
-- Benchmarks report, tests assert: the exit status is 1 only when a run cannot start.
local SECONDS = tonumber(arg[1]) or 10
local INTERVAL = tonumber(arg[2]) or 0.05
local PERFLUA = "./build/perflua"

local files = dofile "spec/support/files.lua"
local sh = files.sh

local TICK = tonumber(sh "getconf CLK_TCK") or 100

-- A word for sh, in single quotes.
local function shq(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- CPU seconds of the reaped children of the shell whose /proc stat is in text.
local function children_cpu(text)
  local rest = text:match "%) (.*)"
  if not rest then return nil end
  local f = {}
  for w in rest:gmatch "%S+" do f[#f + 1] = w end
  return (tonumber(f[14]) + tonumber(f[15])) / TICK     -- cutime, cstime: fields 16, 17
end

local dir, remove = files.tempdir()
files.write(dir .. "/tmux.conf", "set -g status off\n")
local tmux = ("tmux -L perflib-bench-view-%d -f %s/tmux.conf"):format(os.time(), dir)

local function run(name, env, seconds)
  local stat = ("%s/%s.stat"):format(dir, name)
  local cmd = ("%s %s monitor examples/rules/default.lua --interval %g --seconds %g --view >/dev/tty 2>&1; "
    .. "cat /proc/$$/stat > %s; sleep 30"):format(env, PERFLUA, INTERVAL, seconds, stat)
  sh(("%s new-session -d -s %s -x 80 -y 24 %s"):format(tmux, name, shq(cmd)))
  local deadline = os.time() + seconds + 20
  while os.time() < deadline do
    local s = files.read(stat)
    if s:find "%)" then
      sh(("%s kill-session -t %s"):format(tmux, name))
      return children_cpu(s)
    end
    sh "sleep 0.2"
  end
  sh(("%s kill-session -t %s"):format(tmux, name))
  return nil
end

if not io.open(PERFLUA) or sh "command -v tmux" == "" then
  print "bench/view.lua: needs build/perflua and tmux"
  remove()
  os.exit(1)
end

local short, long = 2, math.max(SECONDS, 4)
local n1, n2 = math.floor(short / INTERVAL + 0.5), math.floor(long / INTERVAL + 0.5)
local res = {}
for _, kind in ipairs { "plain", "curses" } do
  local env = kind == "plain" and "TERM=dumb" or ""
  local a, b = run(kind .. "1", env, short), run(kind .. "2", env, long)
  if not (a and b) then
    print("bench/view.lua: a run did not finish: " .. kind)
    sh(tmux .. " kill-server 2>/dev/null")
    remove()
    os.exit(1)
  end
  local per = (b - a) / (n2 - n1)
  res[kind] = { per = per, start = a - per * n1 }
end
sh(tmux .. " kill-server 2>/dev/null")
remove()
print(("view: CPU of perflua monitor --view per frame at 80x24 (%d and %d frames, every %g s), "
  .. "sampling and rules included:"):format(n1, n2, INTERVAL))
for _, kind in ipairs { "plain", "curses" } do
  print(("  %-7s %.3f ms per frame, start-up %.0f ms"):format(kind == "plain" and "plain" or "ncurses",
    res[kind].per * 1000, res[kind].start * 1000))
end
print(("  ncurses / plain per frame: %.2f (target <= 1.00: %s; the clock ticks every %.0f ms)"):format(
  res.curses.per / res.plain.per, res.curses.per <= res.plain.per and "met" or "missed", 1000 / TICK))
