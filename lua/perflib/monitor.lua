--- The monitor daemon and its tools: `perflua monitor rules.lua`,
-- `perflua check rules.lua`, `perflua explain rules.lua RULE`.
-- They run the same engine as the unit-test harness: samples are taken
-- for what the rules need, cooked by perflib, fed to the engine on the
-- sample clock, and the engine's events go to the notifier.
-- @module perflib.monitor

local perflib = require "perflib"
local core = require "perflib.core"       -- spawn, wait, isatty: not public
local compat = require "perflib.compat"
local R = require "perflib.rules"
local E = require "perflib.rules.engine"
local N = require "perflib.rules.notify"
local T = require "perflib.rules.text"

local M = {}

-- Every line for people goes through T.escape: instance names come from
-- other users' processes (a comm can hold escape sequences and newlines).
local function say(out, fmt, ...)
  out:write(T.escape(fmt:format(...)), "\n")
  return out:flush()
end

local function load_rules(path, err)
  local set, errors = R.load(path)
  for _, e in ipairs(errors or {}) do
    say(err, "perflua: %s: %s", path, type(e) == "table" and e.message or tostring(e))
  end
  return set, errors or {}
end

--- A query holding every source of an engine: source key -> result index.
-- A source perflib does not know is a problem, not an error.
-- @param eng a rules engine (perflib.rules.engine's `E.new(set)`)
-- @tparam[opt] Machine machine default: this machine
-- @treturn Query the query
-- @treturn table index: `index[source key] = {index = result index, raw = bool}`
-- @treturn {string,...} problems: "path: message" per source the query refused
function M.build_query(eng, machine)
  local q = perflib.query(machine)
  local index, problems = {}, {}
  for _, src in ipairs(eng:sources()) do
    local i, msg, status = q:add(src.path)
    if i or status == "duplicate" then
      if not i then
        for _, spec in ipairs(q:specs()) do
          if spec.path == src.path then i = spec.index end
        end
      end
      index[src.key] = { index = i, raw = src.raw }
    else
      problems[#problems + 1] = ("%s: %s"):format(src.path, msg or status)
    end
  end
  return q, index, problems
end

--- One frame for the engine from a sample pair: cooked values per source
-- (column 1 of the result), raw integers for "raw:" sources.
-- @tparam Sample s1 the newer sample
-- @tparam[opt] Sample s0 the older one (nil on the first round: only raw sources have values)
-- @tparam table index the index @{build_query} returned
-- @treturn table the frame: `frame[source key] = {instances = {name,...}, value = {[name] = v},
--   status = {[name] = status}}` (and `error` for a result that failed as a whole)
function M.frame_of(s1, s0, index)
  return require("perflib.frame").of(s1, s0, index)
end

local build_query, frame_of = M.build_query, M.frame_of

local function describe(ev)
  if ev.kind == "transition" then
    return ("%s %s%s: %s -> %s%s"):format(ev.rule, ev.labels and ev.labels.instance and
      ("{" .. ev.labels.instance .. "} ") or "", ev.labels and ev.labels.severity or "",
      ev.from, ev.to, ev.message and (" - " .. ev.message) or "")
  end
  return ("%s %s%s"):format(ev.rule or "?", ev.kind, ev.message and (": " .. ev.message) or "")
end

-- The sources of the rules that did not load (set.rejected): a rule with a mistake still
-- gets its counter paths checked, so one run reports every mistake of the file.
local function rejected_problems(set)
  local out = {}
  local q = perflib.query()
  for _, r in ipairs(set.rejected or {}) do
    local d = type(r.def) == "table" and r.def or {}
    local paths = type(d.sources) == "table" and d.sources or {}
    if type(d.source) == "string" then paths = { d.source, compat.unpack(paths) } end
    for _, p in ipairs(paths) do
      local i, msg, status = q:add(p)
      if not i and status ~= "duplicate" then out[#out + 1] = ("%s: %s"):format(p, msg or status) end
    end
  end
  q:close()
  return out
end

--- Is there an executable file at path?  (test -x, run without a shell)
local function executable(path)
  local pid = core.spawn { "test", "-x", path }
  if not pid then return false end
  local how, code = core.wait(pid)
  return how == "exited" and code == 0
end

--- Where an exec action's program is: its path, or nil and why not.
-- A name without `/` is looked up on `PATH`; the test is `test -x`, run without a shell.
-- @tparam string prog a program name or path
-- @treturn[1] string the path of the executable
-- @return[2] nil
-- @treturn[2] string "no program", "not executable", "no such file" or "not found on PATH"
function M.find_program(prog)
  if type(prog) ~= "string" or prog == "" then return nil, "no program" end
  if prog:find("/", 1, true) then
    if executable(prog) then return prog end
    return nil, os.rename(prog, prog) and "not executable" or "no such file"
  end
  for dir in (os.getenv "PATH" or ""):gmatch("[^:]+") do
    local p = dir .. "/" .. prog
    if executable(p) then return p end
  end
  return nil, "not found on PATH"
end

--- Warnings that depend on this machine and need not be mistakes elsewhere: exec actions
-- whose program is not here.
-- @param set a rule set (@{perflib.rules.load})
-- @treturn {string,...} one message per warning (empty when none)
function M.warnings(set)
  local out, routes = {}, {}
  for n, r in ipairs(set.routes) do routes[#routes + 1] = { name = "route " .. n, actions = r.actions } end
  for _, r in ipairs(set.rejected or {}) do     -- routes with mistakes too
    if r.route and type(r.def.actions) == "table" then
      routes[#routes + 1] = { name = r.route, actions = r.def.actions }
    end
  end
  for _, r in ipairs(routes) do
    for k, a in ipairs(r.actions or {}) do
      local prog = type(a) == "table" and a.kind == "exec" and type(a.argv) == "table" and a.argv[1]
      if prog then
        local found, why = M.find_program(prog)
        if not found then
          out[#out + 1] = ("%s: action %d: exec program %q: %s"):format(r.name, k, tostring(prog), why)
        end
      end
    end
  end
  return out
end

--- Checks a rules file, `perflua check`: load, validate, and check every source against
-- this machine's catalog (with a suggestion for a misspelled counterset or
-- counter), also the sources of rules with other mistakes.  Every mistake of
-- the file is reported in one run.
-- @tparam string path the rules file
-- @tparam file out where the summary line goes
-- @tparam file err where each problem goes
-- @treturn integer the exit status: 0 no problem, 1 problems found, 2 the file does not load
function M.check(path, out, err)
  local set, errors = load_rules(path, err)
  if not set then return 2 end
  local eng = E.new(set)
  local _, _, problems = build_query(eng)
  for _, p in ipairs(rejected_problems(set)) do problems[#problems + 1] = p end
  for _, p in ipairs(problems) do say(err, "perflua: %s: unknown on this machine: %s", path, p) end
  local lints = M.lint(set)
  for _, l in ipairs(lints) do say(err, "perflua: %s: %s", path, l) end
  local warns = M.warnings(set)
  for _, w in ipairs(warns) do say(err, "perflua: %s: warning: %s", path, w) end
  local n = #set.order
  say(out, "%s: %d rule(s) loaded, %d error(s), %d source problem(s), %d lint(s), %d warning(s)", path, n,
    #errors, #problems, #lints, #warns)
  return (#errors == 0 and #problems == 0 and #lints == 0) and 0 or 1
end

-- Counter types whose raw values are cumulative counts: a threshold on them
-- needs a rate or an increase (perflib's cooked value is already a rate).
local CUMULATIVE = {
  PERF_COUNTER_COUNTER = true, PERF_COUNTER_BULK_COUNT = true, PERF_COUNTER_DELTA = true,
  PERF_COUNTER_LARGE_DELTA = true, PERF_SAMPLE_COUNTER = true,
}

--- Lints that need the catalog: windows shorter than two evaluations, and
-- thresholds on the raw value of a cumulative counter.
-- @param set a rule set (@{perflib.rules.load})
-- @tparam[opt] Machine machine default: this machine
-- @treturn {string,...} one message per lint (empty when none)
function M.lint(set, machine)
  local out = {}
  local q = perflib.query(machine)
  for _, name in ipairs(set.order) do
    local rule = set.rules[name]
    local win, every = rule.value and rule.value.window, rule.every
    if win and win > 0 and every and win < 2 * every then
      out[#out + 1] = ('rule "%s": window %gs holds fewer than 2 evaluations (every %gs)'):format(name, win,
        every)
    end
    if rule.source and rule.value and rule.value.fn == "raw" then
      local i = q:add(rule.source)
      local spec = i and q:specs()[i]
      local cs = spec and perflib.counterset(spec.counterset, machine)
      local c = cs and spec.counters[1] and cs:counter(spec.counters[1])
      if c and CUMULATIVE[c.type_name] then
        out[#out + 1] = ('rule "%s": threshold on the raw value of the cumulative counter "%s": '
          .. "use R.rate or R.increase"):format(name, c.name)
      end
    end
  end
  q:close()
  return out
end

-- The notifier of a monitor: its log goes to err.
local function notifier_for(set, out, err)
  return N.new(set, { out = out, log = function(msg) say(err, "perflua: %s", msg) end })
end

-- HUP: a fresh engine and notifier from the rules file, taking over the
-- state of unchanged rules and the queue of unchanged routes.  Returns the
-- new engine, notifier, query and index, or nothing when the file is bad.
local function reload(path, opts, eng, notifier, q, out, err)
  local fresh = load_rules(path, err)
  if not fresh then
    say(err, "perflua monitor: reload of %s failed; the old rules go on", path)
    return
  end
  local state = eng:export_state()
  eng = E.new(fresh, { interval = opts.interval or 1 })
  local kept = eng:import_state(state) or {}
  local n = notifier_for(fresh, out, err)
  local carried = n:adopt(notifier, kept)
  q:close()
  local index, problems
  q, index, problems = build_query(eng, opts.machine)
  for _, prob in ipairs(problems) do say(err, "perflua: %s: %s", path, prob) end
  say(out, "perflua monitor: reloaded %s, state kept for %d rule(s); notifications: %d route(s) kept, "
    .. "%d new or changed, %d alert(s) of changed rules resolved", path, #kept, carried.kept, carried.changed,
    carried.resolved)
  return eng, n, q, index
end

-- With --view on a terminal: is it still there?  After a hangup (window
-- closed, ssh gone) every request on it fails with EIO; HUP alone means reload.
local function tty_gone(tty, err)
  if not tty then return false end
  local ok, msg = core.isatty(1)
  if ok then return false end
  say(err, "perflua monitor: the terminal is gone (%s); stopping", msg)
  return true
end

-- The monitor's loop; with ui (the screen of --view on a terminal) its
-- output goes to the screen.
local function monitor(path, opts, out, err, ui)
  if ui then out, err = ui.out, ui.err end   -- the screen shows what the monitor says
  local set = load_rules(path, err)
  if not set then return 2 end
  local eng = E.new(set, { interval = opts.interval or 1 })
  local notifier = notifier_for(set, out, err)
  local q, index, problems = build_query(eng, opts.machine)
  for _, p in ipairs(problems) do say(err, "perflua: %s: %s", path, p) end
  local interval = opts.interval or 1
  local deadline = opts.seconds and perflib.clock() + opts.seconds
  perflib.trap("HUP", "TERM", "INT")
  say(out, "perflua monitor: %d rule(s) from %s, every %g s%s", #set.order, path, interval,
    opts.seconds and (", for " .. opts.seconds .. " s") or ", until TERM or INT; HUP reloads")
  local s0, due = nil, perflib.clock()
  local recent, tty = {}, opts.view and M.is_tty()
  while true do
    local s1 = assert(q:collect())
    local t = s1.time / s1.freq
    local frame = frame_of(s1, s0, index)
    local events = eng:feed(t, frame)
    for _, ev in ipairs(events) do
      local line = ("%s %s"):format(T.rfc3339(s1.timestamp), describe(ev))
      if opts.view then
        recent[#recent + 1] = line            -- view.render escapes every line it draws
        if #recent > 50 then table.remove(recent, 1) end
      else
        say(out, "%s", line)
      end
      notifier:event(ev)
    end
    notifier:tick(t, s1.timestamp)
    if ui then
      ui:frame(eng, { seq = s1.seq, interval = interval, path = path, recent = recent, frame = frame })
    elseif opts.view then
      local screen = require("perflib.view").render(eng, { seq = s1.seq, interval = interval,
        path = path, recent = recent, frame = frame })
      out:write(tty and "\27[H\27[2J" or "", screen, "\n", tty and "" or "\n")
      out:flush()
    end
    s0 = s1
    due = due + interval
    if deadline and perflib.clock() >= deadline then break end
    local stop = tty_gone(tty, err)
    while not stop do                   -- at least once: signals are looked at even when late
      local wait = due - perflib.clock()
      if ui then                        -- keys until due: q quits, a closed terminal stops
        local why = ui:wait(due)
        if why == "quit" then stop = true end
        if why == "gone" then
          say(err, "perflua monitor: the terminal is gone (%s); stopping", ui.gone)
          stop = true
        end
      elseif wait > 0 and not perflib.signalled() then
        perflib.sleep(wait)
      end
      for _, sig in ipairs(perflib.trapped()) do
        if sig ~= "HUP" then
          stop = true
        elseif not stop and not tty_gone(tty, err) then
          local e2, n2, q2, i2 = reload(path, opts, eng, notifier, q, out, err)
          if e2 then eng, notifier, q, index, s0 = e2, n2, q2, i2, nil end
        else
          stop = true
        end
      end
      if due - perflib.clock() <= 0 then break end
    end
    if stop then break end
  end
  q:close()
  notifier:stop()
  say(out, "perflua monitor: stopped")
  return 0
end

--- Runs the monitor, `perflua monitor`: the rules of a file on every
-- sample until `opts.seconds` passed or TERM or INT arrives (HUP reloads the
-- file).  With `opts.view`, a status screen (every rule's alerts and values, the latest
-- transitions) is redrawn every interval on a terminal (perflib.view, on
-- ncurses: q quits, ? shows the keys), or printed as a block per interval
-- otherwise; this is the main job of `make run`.
-- On TERM or INT the notifier sends what waits and says what it drops.
-- @tparam string path the rules file
-- @tparam table opts `interval` (seconds between samples, default 1), `seconds` (stop after;
--   default: until a signal), `view` (the status screen), `machine` (default: this one)
-- @tparam file out where transitions and progress go (`io.stdout`)
-- @tparam file err where problems go (`io.stderr`)
-- @treturn integer the exit status: 0 stopped, 2 the rules file does not load
function M.monitor(path, opts, out, err)
  local ui = opts.view and M.is_tty() and require("perflib.view").open()
  if not ui then return monitor(path, opts, out, err) end
  -- the terminal is given back whatever happens, before an error is shown
  local ok, code = xpcall(monitor, debug.traceback, path, opts, out, err, ui)
  ui:close(err)
  if not ok then error(code, 0) end
  if code == 0 then say(out, "perflua monitor: stopped") end
  return code
end

--- Explains a rule, `perflua explain`: runs the rules for a few samples and
-- writes why the rule is in its state (the engine's explanation, pretty-printed).
-- @tparam string path the rules file
-- @tparam string rule the rule's name
-- @tparam table opts `interval` (default 1), `seconds` (default 2: at least two samples), `machine`
-- @tparam file out where the explanation goes
-- @tparam file err where problems go
-- @treturn integer the exit status: 0, or 2 when the file does not load or has no such rule
function M.explain(path, rule, opts, out, err)
  local set = load_rules(path, err)
  if not set then return 2 end
  if not set.rules[rule] then
    say(err, "perflua: %s: no rule '%s'", path, tostring(rule))
    return 2
  end
  local eng = E.new(set)
  local q, index = build_query(eng, opts.machine)
  local s0
  for _ = 1, math.max(2, math.floor((opts.seconds or 2) / (opts.interval or 1)) + 1) do
    local s1 = assert(q:collect())
    eng:feed(s1.time / s1.freq, frame_of(s1, s0, index))
    s0 = s1
    perflib.sleep(opts.interval or 1)
  end
  q:close()
  for line in (perflib.pretty.write(eng:explain(rule)) .. "\n"):gmatch "(.-)\n" do say(out, "%s", line) end
  return 0
end

--- Is standard output a terminal?  (The view redraws in place only there.)
-- False when `TERM` is unset or "dumb".
-- @treturn boolean
-- @treturn[opt] string why not, when descriptor 1 is no terminal (not when `TERM` says so)
-- @treturn[opt] int errno, then
function M.is_tty()
  if os.getenv "TERM" == nil or os.getenv "TERM" == "dumb" then return false end
  return core.isatty(1)
end

--- Entry point kept for callers of the old interface: `perflua CMD ARGS...` through
-- perflib.cli, which parses every subcommand.
-- @tparam string cmd the subcommand ("monitor", "check", "explain", ...)
-- @tparam {string,...} args its arguments
-- @tparam[opt] file out default `io.stdout`
-- @tparam[opt] file err default `io.stderr`
-- @treturn integer the exit status (2 when cmd is no subcommand)
function M.main(cmd, args, out, err)
  local argv = { cmd }
  for k = 1, #args do argv[k + 1] = args[k] end
  return require("perflib.cli").main(argv, out, err) or 2
end

return M
