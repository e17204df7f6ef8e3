--- The `perflua` command line, defined once: every subcommand, its options,
-- their help and the exit statuses (lua-argparse).  perflua's C host hands
-- its argv here; doc/gen-man.lua reads the same definitions to write
-- perflua(1) and the bash completion, so neither can drift from `--help`.
--
-- Exit statuses of every subcommand: 0 success; 1 a runtime failure (or, for
-- `check`, problems found; for `promrules`, no rule could be written); 2 a
-- bad command line (unknown command or option, a missing or malformed
-- argument) or an input it names that cannot be used (a rules file that does
-- not load, an unreadable recording, an existing `record` file without
-- `--force`).
-- @module perflib.cli
local argparse = require "argparse"

local M = {}

--- The program's name.
M.PROG = "perflua"

--- The Lua interpreter's flags (lua.c's), which the C host parses itself:
-- `{flag, help}` pairs.
-- @table INTERPRETER
M.INTERPRETER = {
  { "-e stat", "execute string 'stat'" },
  { "-i", "enter interactive mode after executing 'script'" },
  { "-l name", "require library 'name' into global 'name'" },
  { "-v, --version", "show version information" },
  { "-h, --help", "show this help" },
  { "-E", "ignore environment variables" },
  { "-W", "turn warnings on" },
  { "--", "stop handling options" },
  { "-", "stop handling options and execute stdin" },
}

--- The subcommands by kind, in the order the overview lists them:
-- `{title, {command, ...}}` pairs (`perflua --help`).
-- @table GROUPS
M.GROUPS = {
  { "Rule tools", { "monitor", "check", "explain", "record", "replay", "promrules" } },
  { "Views", { "top" } },
  { "Counters and logs", { "typeperf", "list", "relog", "plot" } },
  { "Serving", { "serve" } },
}

--- The exit statuses, as perflua(1) and each command's help state them:
-- `{status, meaning}` pairs.
-- @table EXIT
M.EXIT = {
  { "0", "success" },
  { "1", "a runtime failure; `check`: problems found; `promrules`: no rule could be written" },
  { "2", "a bad command line (unknown command or option, a missing or malformed argument), "
    .. "or an input it names that cannot be used (a rules file that does not load, "
    .. "an unreadable recording, an existing record file without --force, "
    .. "an existing typeperf or relog -o file without -y)" },
}

-- Converters name their option, so the message says which one is wrong.
local function positive(name)
  return function(s)
    local v = tonumber(s)
    if not v or v <= 0 then return nil, name .. " needs a positive number" end
    return v
  end
end

local function whole(name, min)
  return function(s)
    local v = math.tointeger(tonumber(s))
    if not v or v < min then return nil, name .. " needs a whole number" end
    return v
  end
end

local function interval(cmd)
  cmd:option("--interval", "Seconds between samples (default 1).")
    :argname("SECONDS"):convert(positive "--interval")
end

local function seconds(cmd, what)
  cmd:option("--seconds", what):argname("N"):convert(positive "--seconds")
end

local function rules_arg(cmd)
  cmd:argument("RULES.lua", "A rules file (Lua, perflib.rules)."):target("rules")
end

-- One definition per subcommand: name -> function(parser) adding it.
local DEFINE = {}

function DEFINE.monitor(p)
  local c = p:command("monitor", "Evaluate a rules file against this machine until TERM or INT "
    .. "(HUP reloads it), printing every alert transition and sending its notifications.")
    :summary("Run a rules file: alerts and notifications.")
  rules_arg(c)
  interval(c)
  seconds(c, "Stop after N seconds (default: run until TERM or INT).")
  c:flag("--view", "A status screen of every rule's values and alerts, redrawn every interval "
    .. "(a plain block per interval when not on a terminal).")
end

function DEFINE.check(p)
  local c = p:command("check", "Load a rules file and check it against this machine's counters: "
    .. "unknown sources, lints and warnings go to stderr, a summary to stdout.")
    :summary("Check a rules file (exit 1 when it has problems).")
  rules_arg(c)
  c:flag("--quiet", "No summary line; only the problems.")
end

function DEFINE.explain(p)
  local c = p:command("explain", "Run a rules file for a few samples and show why RULE is in its state.")
    :summary("Show why a rule is in its state.")
  rules_arg(c)
  c:argument("RULE", "The name of a rule in the file."):target("rule")
  interval(c)
  seconds(c, "Seconds of samples to look at (default 2).")
end

function DEFINE.record(p)
  local c = p:command("record", "Record counter paths (and the sources of a rules file) to a log that "
    .. "perflua replay, relog, plot and perflib.open_log read: a binary log, or an SQLite log for "
    .. "OUT.db, .sqlite or .sqlite3; an existing OUT is refused unless --force is given.")
    :summary("Record counter values to a log.")
  c:argument("OUT", "The log to write (OUT.blg; OUT.db for SQLite)."):target("out")
  c:argument("PATH", "Counter paths to record.", nil, nil, "*"):target("paths")
  interval(c)
  seconds(c, "Stop after N seconds (default: run until TERM or INT).")
  c:option("--rules", "Record the sources of this rules file too."):argname("RULES.lua")
  c:option("--max-bytes", "Go on in OUT_001, _002... past this size (as logman's -max)."):argname("BYTES")
    :convert(whole("--max-bytes", 1))
  c:option("--max-seconds", "Go on in a new file for a sample this long after the file's first."):argname("N")
    :convert(whole("--max-seconds", 1))
  c:option("--max-files", "Keep the last N files only: the oldest goes (circular)."):argname("N")
    :convert(whole("--max-files", 1))
  c:flag("--force", "Replace an existing OUT (it is refused unless --force).")
  c:flag("--quiet", "No progress lines on stdout; errors still go to stderr.")
end

function DEFINE.replay(p)
  local c = p:command("replay", "Evaluate a rules file against a recording at full speed (actions captured, "
    .. "never run): every transition and notification, then a backtest per rule: how often it fired and "
    .. "resolved, time in each state, the first and the longest episodes, and how the counts move when "
    .. "its thresholds or pending are moved.")
    :summary("Replay a recording through a rules file; backtest its rules.")
  rules_arg(c)
  c:argument("LOG", "A log (perflua record, typeperf -f BIN, relog) or a JSON-lines recording."):target("recording")
  c:flag("--summary", "Print the backtest only (no timeline, no notifications).")
  c:option("--sweep", "The thresholds' step for the sweep, in percent (default 10; 0: thresholds stay).")
    :argname("PCT"):convert(function(v)
      local n = tonumber(v)
      if not n or n < 0 or n >= 100 then return nil, "--sweep needs a percentage from 0 to below 100" end
      return n
    end)
  c:flag("--no-sweep", "No sweep: the rules as written only."):target("no_sweep")
end

function DEFINE.promrules(p)
  local c = p:command("promrules", "Write a rules file's thresholds as Prometheus alerting rules (YAML); "
    .. "the rules that Prometheus cannot express are listed on stderr.")
    :summary("Convert a rules file to Prometheus alerting rules.")
  rules_arg(c)
  c:option("-o --output", "Write the YAML to FILE instead of stdout."):argname("FILE")
end

function DEFINE.top(p)
  local c = p:command("top", "A live, sortable view of a counterset's instances "
    .. "(a machine summary when no SET is given).")
    :summary("A live top-like view of a counterset.")
  c:argument("SET", "A counterset name, e.g. Process.", nil, nil, "?"):target("set")
  c:option("--sort", "Sort the instances by this counter."):argname("COUNTER")
  c:flag("--reverse", "Reverse the sort order.")
  interval(c)
  c:option("--count", "Stop after N screens."):argname("N"):convert(whole("--count", 1))
  c:flag("--list-countersets", "Print the countersets, one a line (for shell completion).")
    :hidden(true)
end

function DEFINE.serve(p)
  local c = p:command("serve", "Serve this machine's counters over HTTP until SIGINT or SIGTERM "
    .. "(SIGHUP reads the configuration again): /metrics (Prometheus text, or OpenMetrics when asked), "
    .. "/api/v1/countersets, /api/v1/query (POST counter paths, one a line: a V2 data block, "
    .. "?format=v1 a V1 one), /healthz and /readyz.")
    :summary("Serve counters to Prometheus and remote perflib readers.")
  c:option("--listen", "Address to listen on (default 127.0.0.1:9464; port 0: a free one, printed); "
    .. "an address other than loopback needs --token-file or TLS."):argname("ADDR:PORT")
  c:option("--config", "A Lua file returning a table with the same keys (listen, collect, paths, token_file, "
    .. "tls_cert, tls_key, max_clients, max_body, timeout); flags win over it."):argname("FILE")
  c:option("--collect", "A collection string (default \"Global\"); repeats."):argname("STRING"):count("*")
  c:option("--path", "A counter path to serve; repeats."):argname("PATH"):count("*")
  c:option("--token-file", "A file holding the bearer token clients must send."):argname("FILE")
  c:option("--tls-cert", "Serve HTTPS with this certificate (PEM; with --tls-key)."):argname("FILE")
  c:option("--tls-key", "The certificate's private key (PEM)."):argname("FILE")
  c:option("--max-clients", "Connections served at once."):argname("N"):convert(whole("--max-clients", 0))
  c:option("--max-body", "Largest request body accepted."):argname("BYTES"):convert(whole("--max-body", 0))
  c:option("--timeout", "Seconds an idle connection is kept."):argname("SECONDS")
    :convert(whole("--timeout", 0))
end

-- typeperf's own option names (-cf, -si, -sc, -qx) are single-dash words:
-- each has a hidden long name, which main() puts in its place before argparse
-- (argparse would split a single-dash word into letters).
function DEFINE.typeperf(p)
  local c = p:command("typeperf", "Write counter values like Windows' typeperf: CSV with the (PDH-CSV 4.0) "
    .. "header (TSV, JSON lines), one row per interval with every value quoted and \" \" where a value "
    .. "is missing, or a binary or SQLite log (-f BIN, -f SQL); -q/-qx list the counters. Collects once before "
    .. "the first row, so rates are in every row.")
    :summary("Counters to CSV, TSV, JSON lines or a log, as typeperf.")
  local tp = function(k) return function(s) return require("perflib.typeperf")[k](s) end end
  local function opt(name, long, help, argname)
    return c:option(name, help):hidden_name(long):target((long:sub(3):gsub("%-", "_"))):argname(argname)
  end
  c:argument("COUNTER", "Counter paths, e.g. '\\Processor Information(_Total)\\% Processor Time'; "
    .. "a wildcard gives one column per instance at the first sample.", nil, nil, "*"):target("counters")
  opt("-cf", "--counter-file", "Counter paths from FILE, one a line (# starts a comment line).", "FILE")
  opt("-si", "--interval", "Time between samples (default 1 s).", "[[hh:]mm:]ss"):convert(tp "interval")
  opt("-sc", "--count", "Samples to write (default: until TERM or INT).", "N"):convert(tp "count")
  opt("-f", "--format", "CSV (default), TSV, JSON (JSON lines), BIN (binary log) or SQL (SQLite log, "
    .. "PDH's SQL schema); BIN and SQL with -o.", "FMT")
    :convert(tp "format")
  opt("-o", "--output", "Write to FILE instead of stdout (an existing FILE needs -y).", "FILE")
  opt("-q", "--query", "List the counters (of SET), one path a line, (*) for sets with instances.", "SET")
    :args("?")
  opt("-qx", "--query-instances", "List the counters (of SET) with each current instance.", "SET"):args("?")
  c:flag("-y", "Overwrite an existing -o FILE."):hidden_name("--force"):target("force")
end

-- relog's own option names: -cf is a single-dash word (a hidden long name, as typeperf's).
function DEFINE.relog(p)
  local c = p:command("relog", "Convert logs like Windows' relog: binary logs (several are merged, given "
    .. "in time order) to a binary log (BIN, the raw samples), an SQLite log (SQL) or typeperf's CSV, TSV or "
    .. "JSON lines (the first record kept is the base of the first row's rates); -c/-cf filter the counters "
    .. "(default every counter of the log), -b/-e cut a time range, -t keeps every N-th record; -q says "
    .. "what the input holds.")
    :summary("Convert, filter, cut and merge logs, as relog.")
  local rl = function(k, name) return function(s) return require("perflib.relog")[k](s, name) end end
  c:argument("IN", "Binary logs, in time order.", nil, nil, "+"):target("inputs")
  c:option("-c", "Counter paths to keep (* and ? as the query takes them); repeats.", nil, nil, "+", "*")
    :argname("PATH"):target("counters")
  c:option("-cf", "Counter paths to keep from FILE, one a line (# starts a comment line).")
    :hidden_name("--counter-file"):target("counter_file"):argname("FILE")
  c:option("-f", "BIN (default; by -o's extension: .csv CSV, .tsv TSV, .json JSON, .db SQL), SQL, CSV, TSV "
    .. "or JSON (JSON lines).") :argname("FMT"):target("format"):convert(rl "format")
  c:option("-o", "The output file (an existing FILE needs -y).")
    :argname("FILE"):target("output")
  c:option("-b", "Begin at TIME: M/d/yyyy h:mm:ss[AM|PM], yyyy-mm-dd[Thh:mm:ss] (local time) or @UNIX.")
    :argname("TIME"):target("begin"):convert(rl("time", "-b"))
  c:option("-e", "End at TIME (same forms as -b).")
    :argname("TIME"):target("end"):convert(rl("time", "-e"))
  c:option("-t", "Keep every N-th record (default 1: all).")
    :argname("N"):target("step"):convert(rl "step")
  c:flag("-y", "Overwrite an existing -o FILE."):target("force")
  c:flag("-q", "Say what the input holds (files, host, time range, samples, counters) instead of converting.")
    :target("query")
end

function DEFINE.list(p)
  local c = p:command("list", "List counter paths whose path or help text holds PATTERN (a plain substring, "
    .. "case aside), each with the first sentence of its help, like pminfo -t; all of them without PATTERN.")
    :summary("Search counters and their help texts.")
  c:argument("PATTERN", "A plain substring, case aside.", nil, nil, "?"):target("pattern")
  c:option("--info", "Instead, the text facts of counterset SET (perflib.info: a CPU's governor, the "
    .. "vulnerabilities ...), one `instance<TAB>key<TAB>value` line each, of the instance PATTERN when given.")
    :argname("SET")
end

function DEFINE.plot(p)
  local c = p:command("plot", "Draw the counters of a binary log, a recording or a typeperf CSV/TSV file over "
    .. "time with gnuplot: one panel per unit, each instance a line, alert episodes of --rules shaded; "
    .. "-o's extension picks PNG or SVG.")
    :summary("Chart a binary log, recording or typeperf CSV (PNG, SVG).")
  c:argument("LOG", "A binary log, a recording (perflua record) or a typeperf CSV/TSV file, told apart by "
    .. "content.")
    :target("log")
  c:argument("PATH", "Counter paths to draw (* and ? as wildcards); default every counter (a binary log of "
    .. "more than 40 values: each set's first counter).", nil, nil, "*")
    :target("paths")
  c:option("-o --output", "The chart to write: FILE.png or FILE.svg (needed).")
    :argname("FILE")
  c:option("--rules", "Shade the episodes each alert of this rules file spends pending and firing "
    .. "(a binary log or a recording)."):argname("RULES.lua")
  c:option("--title", "The chart's title (default: the log's name)."):argname("TEXT")
  c:option("--size", "Width and height in pixels (default 1000 wide, 230 per panel)."):argname("WxH")
    :convert(function(s) return require("perflib.plot").size(s) end)
  c:option("--keep", "Write the data and gnuplot script into DIR and keep them."):argname("DIR")
end

local ORDER = { "monitor", "check", "explain", "record", "replay", "top", "serve", "promrules", "typeperf",
  "list", "relog", "plot" }

--- The parser of the whole command line (lua-argparse), every subcommand defined.
-- A subcommand's `-h` or `--help` calls `on_help(cmd)` rather than printing.
-- @tparam[opt] function on_help called with the (sub)parser whose help was asked
-- @return an argparse parser
function M.parser(on_help)
  local p = argparse(M.PROG, "Linux performance counters, the Windows PerfLib way: "
    .. "rule tools, views and a server on perflib.")
    :add_help(false):help_max_width(79):command_target("command")
  for _, name in ipairs(ORDER) do DEFINE[name](p) end
  for _, c in ipairs(p._commands) do
    c:add_help { action = function() if on_help then on_help(c) end end }
    c:help_max_width(79):help_description_margin(28)
  end
  return p
end

--- The subcommands' names, in the order of the definitions.
-- @treturn {string,...} a new list of the names
function M.commands()
  local t = {}
  for i, n in ipairs(ORDER) do t[i] = n end
  return t
end

local function lower_usage(s)
  return (s:gsub("^Usage: ", "usage: "))
end

-- text in lines of at most 79 columns, the first after indent, the others after cont
local function wrap(text, indent, cont)
  local lines, line = {}, indent
  for word in text:gmatch "%S+" do
    if #line + #word + 1 > 79 and line:match "%S" then
      lines[#lines + 1] = line
      line = cont
    end
    line = line .. (line:match "%S" and " " or "") .. word
  end
  lines[#lines + 1] = line
  return table.concat(lines, "\n")
end

--- The help text of one subcommand: its usage, options and arguments, then
-- the exit statuses, as `perflua CMD --help` prints it.
-- @param cmd a subcommand's argparse parser (as @{parser} passes to `on_help`)
-- @treturn string the text, ending in a newline
function M.help(cmd)
  local exit = {}
  for _, e in ipairs(M.EXIT) do exit[#exit + 1] = wrap(e[1] .. "  " .. e[2], "   ", "      ") end
  return lower_usage(cmd:get_help()) .. "\n\nExit status:\n" .. table.concat(exit, "\n") .. "\n"
end

local function command_of(p, name)
  for _, c in ipairs(p._commands) do if c._name == name then return c end end
end

-- A command's single-dash words (typeperf's -cf, -si, -sc, -qx) and their hidden long names.
local function dash_words(cmd)
  local long = {}
  for _, o in ipairs(cmd and cmd._options or {}) do
    for _, alias in ipairs(o._aliases) do
      if alias:match "^%-%w%w" then long[alias] = o._aliases[#o._aliases] end
    end
  end
  return long
end

-- `--interval -1` as `--interval=-1`: argparse takes a word starting with '-'
-- for an option, the value is then checked (and refused) by its converter.
-- A single-dash word becomes its long name (argparse would split it in letters).
local function join_negative(p, args)
  local cmd = command_of(p, args[1])
  local takes, long = {}, dash_words(cmd)
  for _, o in ipairs(cmd and cmd._options or {}) do
    for _, alias in ipairs(o._aliases) do takes[alias] = o._maxargs > 0 end
  end
  local out, i = {}, 1
  while i <= #args do
    local a, v = long[args[i]] or args[i], args[i + 1]
    if takes[a] and v and v:match "^%-[%d.]" then
      out[#out + 1], i = a .. "=" .. v, i + 2
    else
      out[#out + 1], i = a, i + 1
    end
  end
  return out
end

--- One subcommand's usage line(s) and description: what its module prints when
-- the arguments, though well-formed, give it nothing to do.
-- @tparam string name a subcommand
-- @treturn string
function M.usage(name)
  for _, c in ipairs(M.parser()._commands) do
    if c._name == name then return lower_usage(c:get_usage()) .. "\n" .. wrap(c._description, "", "") .. "\n" end
  end
  error(("bad argument #1 to 'usage' (no command '%s')"):format(tostring(name)), 2)
end

--- The overview of the command line: the interpreter's flags, then the
-- subcommands by group, then the exit statuses (what `perflua --help` prints).
-- @treturn string the text, ending in a newline
function M.overview()
  local p = M.parser()
  local by = {}
  for _, c in ipairs(p._commands) do by[c._name] = c end
  local lines = { ("usage: %s [options] [script [args]]"):format(M.PROG),
    ("       %s COMMAND [options] [args]    (%s COMMAND --help for each)"):format(M.PROG, M.PROG),
    "Available options are:" }
  for _, f in ipairs(M.INTERPRETER) do lines[#lines + 1] = ("  %-13s %s"):format(f[1], f[2]) end
  lines[#lines + 1] = "With no script and no -e: an interactive session on a terminal"
  lines[#lines + 1] = "(help() for help), otherwise the script is read from stdin."
  lines[#lines + 1] = "Scripts, -e and the session see the global 'perflib';"
  lines[#lines + 1] = "require \"perflib\" needs no LUA_PATH."
  for _, g in ipairs(M.GROUPS) do
    lines[#lines + 1] = ("%s: %s %s"):format(g[1], M.PROG, table.concat(g[2], "|"))
    for _, n in ipairs(g[2]) do lines[#lines + 1] = ("  %-10s %s"):format(n, by[n]._summary) end
  end
  lines[#lines + 1] = "Exit status of the commands: 0 success, 1 runtime failure (check: problems found),"
  lines[#lines + 1] = "2 bad command line or unusable input file."
  return table.concat(lines, "\n") .. "\n"
end

-- A writer that drops everything (--quiet).
local SINK = { write = function(self) return self end, flush = function() return true end }

local function list_countersets(out)
  local names = {}
  for cs in require("perflib").countersets() do names[#names + 1] = cs.name end
  table.sort(names)
  for _, n in ipairs(names) do out:write(n, "\n") end
  return 0
end

local function run_top(a, out, err)
  if a.list_countersets then return list_countersets(out) end
  local ok, top = pcall(require, "perflib.top")
  if not ok then
    err:write(("perflua top: perflib.top is not available (%s)\n"):format((tostring(top):match "^[^\n]*")))
    return 1
  end
  local r = top.run { set = a.set, sort = a.sort, reverse = a.reverse or false, interval = a.interval,
    count = a.count, out = out, err = err }
  if math.type(r) == "integer" then return r end
  return (r == false) and 1 or 0
end

local function run_serve(a, out, err)
  local flags = { listen = a.listen, config = a.config, token_file = a.token_file, tls_cert = a.tls_cert,
    tls_key = a.tls_key, max_clients = a.max_clients, max_body = a.max_body, timeout = a.timeout }
  if #a.collect > 0 then flags.collect = a.collect end
  if #a.path > 0 then flags.paths = a.path end
  return require("perflib.serve").run(flags, out, err)
end

-- The parsed arguments to the modules that do the work; returns the exit status.
local RUN = {
  monitor = function(a, out, err)
    return require("perflib.monitor").monitor(a.rules, { interval = a.interval, seconds = a.seconds,
      view = a.view }, out, err)
  end,
  check = function(a, out, err) return require("perflib.monitor").check(a.rules, a.quiet and SINK or out, err) end,
  explain = function(a, out, err)
    return require("perflib.monitor").explain(a.rules, a.rule, { interval = a.interval, seconds = a.seconds },
      out, err)
  end,
  record = function(a, out, err)
    local pos = { a.out }
    for _, p in ipairs(a.paths) do pos[#pos + 1] = p end
    return require("perflib.record").main(pos, { interval = a.interval, seconds = a.seconds, rules = a.rules,
      force = a.force, max_bytes = a.max_bytes, max_seconds = a.max_seconds, max_files = a.max_files },
      a.quiet and SINK or out, err)
  end,
  replay = function(a, out, err)
    return require("perflib.replay").main({ a.rules, a.recording },
      { summary = a.summary, pct = a.sweep, sweep = not a.no_sweep }, out, err)
  end,
  promrules = function(a, out, err) return require("perflib.promrules").run(a.rules, a.output, out, err) end,
  top = run_top,
  serve = run_serve,
  typeperf = function(a, out, err, env) return require("perflib.typeperf").run(a, out, err, env) end,
  list = function(a, out, err, env) return require("perflib.typeperf").run_list(a, out, err, env) end,
  relog = function(a, out, err) return require("perflib.relog").run(a, out, err) end,
  plot = function(a, out, err, env) return require("perflib.plot").run(a, out, err, env) end,
}

-- argparse's messages, made to name the command and point at --help.
local function usage_error(p, args, msg, err)
  local cmd = command_of(p, args[1])
  local name = M.PROG .. (cmd and (" " .. cmd._name) or "")
  msg = msg:gsub("^unknown option '(.-)'", "unexpected %1: no such option")
  for word, long in pairs(dash_words(cmd)) do         -- the option as it was typed
    msg = msg:gsub("'" .. long:gsub("%p", "%%%0") .. "'", "'" .. word .. "'")
  end
  err:write(("%s: %s\n%s\n(%s --help for more)\n"):format(name, msg, lower_usage((cmd or p):get_usage()), name))
  return 2
end

--- Runs `perflua ARGS...` (args[1] is the subcommand); returns the exit
-- status, or nil when args[1] is no command but names a file (a script to run).
-- @tparam {string,...} args the arguments after the program's name
-- @tparam[opt=io.stdout] file out
-- @tparam[opt=io.stderr] file err
-- @tparam[opt] table env what the command's module takes besides its arguments
--   (`typeperf` and `list`: `machine`, a perflib.machine; specs pass fixture trees)
-- @treturn ?integer the exit status
function M.main(args, out, err, env)
  out, err = out or io.stdout, err or io.stderr
  if not RUN[args[1]] then
    local f = args[1] and io.open(args[1])
    if f then f:close() return nil end
    err:write(("%s: unknown command '%s' (%s --help lists the commands)\n"):format(M.PROG,
      tostring(args[1]), M.PROG))
    return 2
  end
  local help_of
  local p = M.parser(function(c) help_of = help_of or c end)
  local ok, a = p:pparse(join_negative(p, args))
  if help_of then
    out:write(M.help(help_of))
    return 0
  end
  if not ok then return usage_error(p, args, a, err) end
  return RUN[a.command](a, out, err, env)
end

return M
