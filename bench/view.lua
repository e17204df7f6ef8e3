-- make bench: CPU per frame of the monitor's screen on ncurses against the plain
-- view (issue 14, "Speed and size": the view must not cost more than the plain
-- output at 1 Hz).
--
--   lua5.4 bench/view.lua [FRAMES] [ROUNDS]
--
-- Starts `build/perflua bench/view.lua --child` in a detached tmux pane of 80x24.
-- The child runs the default rules (examples/rules/default.lua) over 20 real
-- sample pairs taken first, then in each of ROUNDS rounds (default 7) draws FRAMES
-- frames (default 300) each way, cycling through those frames:
--   plain   the plain text as the view printed it on a terminal before ncurses
--           (perflib.view.render, with "\27[H\27[2J" in front), written and flushed
--   ncurses the screen (perflib.view.open, frame: model, layout, changed rows drawn)
-- and measures CPU time (os.clock) around each batch: only the drawing differs, the
-- rules are not fed there.  The median round is reported.  What a frame costs does not
-- depend on the rate: this is the cost of a frame at 1 Hz.  Benchmarks report,
-- tests assert: the exit status is 1 only when the child cannot run.

if arg[1] == "--child" then
  local perflib = require "perflib"
  local R = require "perflib.rules"
  local E = require "perflib.rules.engine"
  local M = require "perflib.monitor"
  local V = require "perflib.view"
  local out, frames, rounds = assert(io.open(arg[2], "w")), tonumber(arg[3]), tonumber(arg[4])
  local eng = E.new(assert(R.load "examples/rules/default.lua"), { interval = 1 })
  local q, index = M.build_query(eng)
  local pairs_, s0 = {}, q:collect()
  for _ = 1, 20 do
    perflib.sleep(0.05)
    local s1 = q:collect()
    local frame = M.frame_of(s1, s0, index)
    eng:feed(s1.time / s1.freq, frame)
    pairs_[#pairs_ + 1] = frame
    s0 = s1
  end
  local function info(i)
    return { seq = i, interval = 1, path = "examples/rules/default.lua", frame = pairs_[i % #pairs_ + 1],
              recent = { "2026-01-01T00:00:00Z CpuBusy {0,0} crit: inactive -> pending" } }
  end
  local plain, curses = {}, {}
  for r = 1, rounds do
    local t0 = os.clock()
    for i = 1, frames do
      io.stdout:write("\27[H\27[2J", V.render(eng, info(i)), "\n")
      io.stdout:flush()
    end
    plain[r] = (os.clock() - t0) / frames
    local ui = assert(V.open(), "not a terminal")
    t0 = os.clock()
    for i = 1, frames do ui:frame(eng, info(i)) end
    curses[r] = (os.clock() - t0) / frames
    ui:close()
  end
  table.sort(plain)
  table.sort(curses)
  local m = (rounds + 1) // 2
  out:write(("%.6f %.6f\n"):format(plain[m], curses[m]))
  out:close()
  return
end

local FRAMES = tonumber(arg[1]) or 300
local ROUNDS = tonumber(arg[2]) or 7
local PERFLUA = "./build/perflua"
local files = dofile "spec/support/files.lua"
local sh = files.sh

-- A word for sh, in single quotes.
local function shq(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

if not io.open(PERFLUA) or sh "command -v tmux" == "" then
  print "bench/view.lua: needs build/perflua and tmux"
  os.exit(1)
end
local dir, remove = files.tempdir()
files.write(dir .. "/tmux.conf", "set -g status off\n")
local tmux = ("tmux -L perflib-bench-view-%d -f %s/tmux.conf"):format(os.time(), dir)
local result = dir .. "/result"
sh(("%s new-session -d -s bench -x 80 -y 24 %s"):format(tmux, shq(("%s bench/view.lua --child %s %d %d 2>%s/err"):
  format(PERFLUA, result, FRAMES, ROUNDS, dir))))
local deadline = os.time() + 120
while os.time() < deadline and not files.read(result):find "\n" do sh "sleep 0.2" end
sh(tmux .. " kill-server 2>/dev/null")
local plain, curses = files.read(result):match "^(%S+) (%S+)\n"
local err = files.read(dir .. "/err")
remove()
if not plain then
  print("bench/view.lua: the child did not finish " .. err)
  os.exit(1)
end
plain, curses = tonumber(plain) * 1000, tonumber(curses) * 1000
print(("view: CPU per frame of the monitor's view at 80x24, default rules (median of %d rounds of %d frames):")
  :format(ROUNDS, FRAMES))
print(("  plain text redrawn with escape codes %.3f ms, ncurses screen %.3f ms: ncurses / plain %.2f "
  .. "(target <= 1.00: %s)"):format(plain, curses, curses / plain, curses <= plain and "met" or "missed"))
