-- The contract of perflib's public Lua modules (rules, rules.notify,
-- rules.test, record, replay, monitor, serve, promrules, pretty, repl, top,
-- cli): for every function each exports and every method of the objects
-- they return, the number and types of the values it returns on success and
-- on failure, and that misuse raises.  The same patterns as the C API's
-- (99-contract_spec): a failure is `nil, message`; the subcommands' entry
-- points return an exit status (0, 1 or 2) and write their messages to the
-- `err` they are given.  A new public function fails the coverage test until
-- its contract is here.
-- luacheck: max line length 150
local perflib = require "perflib"
local files = dofile "spec/support/files.lua"

local K = dofile "spec/support/contract.lua"

local sink = dofile "spec/support/sink.lua"   -- for the commands' out and err

local dir = files.tempdir()
local RULES = dir .. "/rules.lua"
files.write(RULES, [[
local R = require "perflib.rules"
R.rule "Busy" { source = "\\Processor Information(_Total)\\% Processor Time", when = R.above(101), severity = "warn" }
]])
local BAD_RULES = dir .. "/bad.lua"
files.write(BAD_RULES, [[R.rule "X" { sorce = 1 }]])
local REC = dir .. "/cpu.rec"
local BAD_REC = dir .. "/bad.rec"
files.write(BAD_REC, "not json\n")
local FIX = perflib.machine { root = "spec/fixtures/basic" }

local R = require "perflib.rules"
local N = require "perflib.rules.notify"
local T = require "perflib.rules.test"
local record = require "perflib.record"
local replay = require "perflib.replay"
local monitor = require "perflib.monitor"
local serve = require "perflib.serve"
local promrules = require "perflib.promrules"
local pretty = require "perflib.pretty"
local repl = require "perflib.repl"
local top = require "perflib.top"
local cli = require "perflib.cli"
local typeperf = require "perflib.typeperf"
local backtest = require "perflib.backtest"
local plot = require "perflib.plot"

local function set() return assert(R.load(RULES)) end
local function engine() return require("perflib.rules.engine").new(set()) end
local function recording()
  local rec = assert(record.open(REC, { "\\Processor Information(_Total)\\% Processor Time" },
                                 { force = true, machine = { root = "spec/fixtures/basic" } }))
  local s0 = rec.query:collect()
  rec:write(s0)
  rec:write(rec.query:collect(), s0)
  rec:close()
  return REC
end
local function pair()
  local q = FIX:query()
  q:add "\\Processor Information(*)\\% Processor Time"
  local s0 = q:collect()
  return q:collect(), s0
end
local CASE = { rules = [[R.rule "Hot" { source = "t/c", when = R.above(1) }]], every = "10s",
               input = { ["t/c{instance=a}"] = "0 5 5" }, expect = { T.never("Hot", { instance = "a" }, "pending") } }

-- module -> function -> { ok = { shape, f }, fail = { shape, f } | reason, bad = { message, f } }
local C = {}
C["perflib.rules"] = { mod = R, fns = {
  duration = { ok = { "number", function() return R.duration "1h30m" end }, fail = { "nil,string", function() return R.duration "soon" end } },
  format_duration = { ok = { "string", function() return R.format_duration(5400) end }, fail = "formats any number" },
  suggest = { ok = { "string", function() return R.suggest("pendign", { "pending", "keep" }) end },
              fail = { "nil,string", function() return R.suggest("zzzz", { "pending" }) end } },
  last = { ok = { "table", R.last }, fail = "a constructor" },
  raw = { ok = { "table", R.raw }, fail = "a constructor" },
  avg = { ok = { "table", function() return R.avg "1m" end }, fail = "a constructor", bad = { "avg", function() return (R.avg "soon") end } },
  min = { ok = { "table", function() return R.min "1m" end }, fail = "a constructor", bad = { "min", function() return (R.min "soon") end } },
  max = { ok = { "table", function() return R.max "1m" end }, fail = "a constructor", bad = { "max", function() return (R.max "soon") end } },
  pct = { ok = { "table", function() return R.pct(95, "5m") end },
    fail = "a constructor", bad = { "pct", function() return (R.pct(200, "5m")) end } },
  rate = { ok = { "table", function() return R.rate "1m" end }, fail = "a constructor", bad = { "rate", function() return (R.rate "soon") end } },
  increase = { ok = { "table", function() return R.increase "1m" end }, fail = "a constructor" },
  above = { ok = { "table", function() return R.above(5) end }, fail = "a bad threshold is the rule's error when the rules load" },
  below = { ok = { "table", function() return R.below(5) end }, fail = "a bad threshold is the rule's error when the rules load" },
  is = { ok = { "boolean", function() return R.is(R.above(5), "cond") end }, fail = "true or false" },
  any = { ok = { "table", R.any }, fail = "a constructor" },
  all = { ok = { "table", R.all }, fail = "a constructor" },
  share = { ok = { "table", function() return R.share(0.5) end }, fail = "a constructor", bad = { "share", function() return (R.share(5)) end } },
  count = { ok = { "table", function() return R.count(">=", 2) end },
    fail = "a constructor", bad = { "count", function() return (R.count("~", 2)) end } },
  flap = { ok = { "table", function() return R.flap { window = 10, high = 0.5, low = 0.25 } end }, fail = "a constructor" },
  ratio = { ok = { "table", function() return R.ratio(0.8) end }, fail = "a constructor", bad = { "ratio", function() return (R.ratio(3)) end } },
  print = { ok = { "table", R.print }, fail = "an action, checked when the rules load" },
  jsonl = { ok = { "table", function() return R.jsonl "/tmp/x.jsonl" end }, fail = "an action, checked when the rules load" },
  syslog = { ok = { "table", R.syslog }, fail = "an action, checked when the rules load" },
  exec = { ok = { "table", function() return R.exec { "/bin/true" } end }, fail = "an action, checked when the rules load" },
  call = { ok = { "table", function() return R.call(function() end) end }, fail = "an action, checked when the rules load" },
  alertmanager = { ok = { "table", function() return R.alertmanager "http://127.0.0.1:9093/" end }, fail = "an action, checked when the rules load" },
  webhook = { ok = { "table", function() return R.webhook "http://127.0.0.1:9/" end }, fail = "an action, checked when the rules load" },
  validate = { ok = { "table", function() return R.validate("A", { source = "\\Memory\\Available Bytes", when = R.below(1) }) end },
               fail = { "nil,table", function() return R.validate("A", { sorce = "x" }) end } },
  template_errors = { ok = { "nil", function() return R.template_errors("{instance} at {value}", {}) end },
                      fail = { "string", function() return R.template_errors("{instnace}", {}) end } },
  new = { ok = { "table", R.new }, fail = "an empty set" },
  safe_env = { ok = { "table", R.safe_env }, fail = "a fresh table" },
  load = { ok = { "table,nil", function() return R.load(RULES) end }, fail = { "nil,table", function() return R.load(BAD_RULES) end } },
  unpack = { ok = { "number,number", function() return R.unpack({ 1, 2 }) end }, fail = "table.unpack" },
} }
C["perflib.rules.notify"] = { mod = N, fns = {
  new = { ok = { "table", function() return N.new({}, { run = true }) end }, fail = "raises on bad routes",
          bad = { "route 1", function() return (N.new({ routes = { { actions = { { kind = "nope" } } } } })) end } },
  duration = { ok = { "number", function() return N.duration "90s" end }, fail = { "nil,string", function() return N.duration(-1) end } },
  rate = { ok = { "number", function() return N.rate "5/1m" end }, fail = { "nil,string", function() return N.rate "fast" end } },
  json = { ok = { "string", function() return N.json { a = 1 } end }, fail = "raises on a cycle",
           bad = { "cycle", function() local t = {}; t.t = t; return (N.json(t)) end } },
  escape = { ok = { "string", function() return N.escape "a\27b" end }, fail = "escapes any string" },
  rfc3339 = { ok = { "string", function() return N.rfc3339(0) end }, fail = "formats any time" },
  expand = { ok = { "string", function() return N.expand("{instance} {value}", { labels = { instance = "a" }, value = 1 }) end },
             fail = "unknown fields stay as written" },
  matches = { ok = { "boolean", function() return N.matches({ a = "1" }, { a = "1" }) end }, fail = "true or false" },
  record_of = { ok = { "table", function() return N.record_of { action = { kind = "print" }, alert = { labels = {} }, t = 0 } end },
    fail = "flattens" },
} }
C["perflib.rules.test"] = { mod = T, fns = {
  parse = { ok = { "table", function() return T.parse "1 2 _ 3*4" end }, fail = "raises on a bad series",
            bad = { "series", function() return (T.parse "1 x") end } },
  run = { ok = { "table", function() return T.run(CASE) end }, fail = "raises when the rules do not load",
          bad = { "rules", function() return (T.run { rules = "R.rule 'X' { sorce = 'a' }", input = {} }) end } },
  case = { ok = { "boolean,table,table", function() return T.case(CASE) end },
           fail = { "boolean,table,table", function()
             local c = {}
             for k, v in pairs(CASE) do c[k] = v end
             c.expect = { T.never("Hot", { instance = "a" }, "firing") }
             return T.case(c) end } },
  check = { ok = { "boolean,table", function() return T.check(T.run(CASE), CASE.expect) end },
            fail = { "boolean,table", function() return T.check(T.run(CASE), { T.never("Hot", { instance = "a" }, "firing") }) end } },
  notifiable = { ok = { "boolean", function() return T.notifiable { kind = "transition", to = "firing" } end }, fail = "true or false" },
  at = { ok = { "table", function() return T.at("10s", "Hot", {}, "ok") end }, fail = "an expectation" },
  never = { ok = { "table", function() return T.never("Hot") end }, fail = "an expectation" },
  value_at = { ok = { "table", function() return T.value_at("10s", "Hot", {}, 5) end }, fail = "an expectation" },
  notifications = { ok = { "table", function() return T.notifications { count = 1 } end }, fail = "an expectation" },
  sent = { ok = { "table", function() return T.sent { count = 1 } end }, fail = "an expectation" },
} }
C["perflib.record"] = { mod = record, fns = {
  open = { ok = { "table", function()
             local r = record.open(REC, { "\\Memory\\Available Bytes" }, { force = true }); r:close(); return r end },
           fail = { "nil,string", function() return record.open(dir .. "/no/such/dir/x.rec", { "\\Memory\\Available Bytes" }) end } },
  read = { ok = { "table,function", function() return record.read(recording()) end },
           fail = { "nil,string", function() return record.read(BAD_REC) end } },
  load = { ok = { "table,table", function() return record.load(recording()) end },
           fail = { "nil,string", function() return record.load(BAD_REC) end } },
  is_log = { ok = { "boolean", function() return record.is_log(recording()) end }, fail = "false for any other file" },
  format_of = { ok = { "string", function() return record.format_of "x.db" end }, fail = "bin for any other name" },
  decode = { ok = { "table", function() return record.decode '{"a":[1,2]}' end },
             fail = { "nil,string", function() return record.decode '{"a":' end } },
  frame = { ok = { "table",
      function() local s1, s0 = pair(); return record.frame(s1, s0, { ["\\Processor Information(*)\\% Processor Time"] = 1 }) end },
            fail = "a source's failure is in its frame entry" },
  main = { ok = { "number",
      function() return record.main({ REC, "\\Memory\\Available Bytes" }, { seconds = 0.01, interval = 0.01, force = true }, sink(), sink()) end },
           fail = { "number", function() return record.main({}, {}, sink(), sink()) end } },
} }
C["perflib.backtest"] = { mod = backtest, fns = {
  run = { ok = { "table", function() return backtest.run(RULES, recording()) end },
          fail = { "nil,string", function() return backtest.run(RULES, BAD_REC) end },
          bad = { "opts.pct", function() return (backtest.run(RULES, REC, { pct = -1 })) end } },
  format = { ok = { "string", function() return backtest.format(backtest.run(RULES, recording())) end }, fail = "formats a backtest" },
} }
C["perflib.replay"] = { mod = replay, fns = {
  seconds = { ok = { "string", function() return replay.seconds(12.5) end }, fail = "any number; nil is \"?\"" },
  load_rules = { ok = { "table,table", function() return replay.load_rules(RULES) end },
                 fail = { "nil,string", function() return replay.load_rules(BAD_RULES) end } },
  alert_key = { ok = { "string", function() return replay.alert_key("Busy", { instance = "a", severity = "warn" }) end },
                fail = "a key for any labels" },
  run = { ok = { "table", function() return replay.run(RULES, recording()) end },
          fail = { "nil,string", function() return replay.run(RULES, BAD_REC) end } },
  format = { ok = { "string", function() return replay.format(replay.run(RULES, recording())) end }, fail = "formats a report" },
  print = { ok = { "", function() return replay.print(replay.run(RULES, recording()), sink()) end }, fail = "writes a report" },
  main = { ok = { "number", function() return replay.main({ RULES, recording() }, {}, sink(), sink()) end },
           fail = { "number", function() return replay.main({ RULES, BAD_REC }, {}, sink(), sink()) end } },
} }
C["perflib.monitor"] = { mod = monitor, fns = {
  build_query = { ok = { "perflib.Query,table,table", function() return monitor.build_query(engine(), FIX) end }, fail = "problems are listed" },
  frame_of = { ok = { "table", function() local s1, s0 = pair(); return monitor.frame_of(s1, s0, {}) end }, fail = "statuses per source" },
  find_program = { ok = { "string", function() return monitor.find_program "sh" end },
                   fail = { "nil,string", function() return monitor.find_program "no-such-program-perflib" end } },
  warnings = { ok = { "table", function() return monitor.warnings(set()) end }, fail = "a list" },
  lint = { ok = { "table", function() return monitor.lint(set(), FIX) end }, fail = "a list" },
  check = { ok = { "number", function() return monitor.check(RULES, sink(), sink()) end },
            fail = { "number", function() return monitor.check(BAD_RULES, sink(), sink()) end } },
  monitor = { ok = { "number", function() return monitor.monitor(RULES, { interval = 0.01, seconds = 0.03 }, sink(), sink()) end },
              fail = { "number", function() return monitor.monitor(BAD_RULES, { interval = 0.01, seconds = 0.03 }, sink(), sink()) end } },
  explain = { ok = { "number", function() return monitor.explain(RULES, "Busy", { interval = 0.01, seconds = 0.03 }, sink(), sink()) end },
              fail = { "number", function() return monitor.explain(RULES, "Nope", { interval = 0.01, seconds = 0.03 }, sink(), sink()) end } },
  is_tty = { ok = "true on a terminal (93-tui_tmux_spec)", fail = { "boolean,string,number", monitor.is_tty } },
  main = { ok = { "number", function() return monitor.main("check", { RULES }, sink(), sink()) end },
           fail = { "number", function() return monitor.main("check", { BAD_RULES }, sink(), sink()) end } },
} }
C["perflib.serve"] = { mod = serve, fns = {
  load = { ok = { "table", function() return serve.load { listen = "127.0.0.1:0" } end },
           fail = { "nil,string", function() return serve.load { config = dir .. "/none.lua" } end } },
  run = { ok = "serves until a signal (99-serve_spec runs it in a child)",
          fail = { "number", function() return serve.run({ config = dir .. "/none.lua" }, sink(), sink()) end } },
  main = { ok = "serves until a signal (99-serve_spec)",
           fail = { "number", function() return serve.main({ "--no-such-flag" }, sink(), sink()) end } },
} }
C["perflib.promrules"] = { mod = promrules, fns = {
  duration = { ok = { "string", function() return promrules.duration(90) end }, fail = "formats any number" },
  metric_name = { ok = { "string,string,number",
      function() return promrules.metric_name("Memory", perflib.counterset("Memory"):counter "Available Bytes") end },
                  fail = "every counter has one" },
  convert = { ok = { "string,table,table", function() return promrules.convert(set()) end }, fail = "skipped rules are listed" },
  run = { ok = { "number", function() return promrules.run(RULES, nil, sink(), sink()) end },
          fail = { "number", function() return promrules.run(BAD_RULES, nil, sink(), sink()) end } },
  main = { ok = { "number", function() return promrules.main({ RULES }, sink(), sink()) end },
           fail = { "number", function() return promrules.main({ BAD_RULES }, sink(), sink()) end } },
} }
C["perflib.pretty"] = { mod = pretty, fns = {
  number = { ok = { "string", function() return pretty.number(0.1) end }, fail = "writes any number" },
  write = { ok = { "string", function() return pretty.write { a = 1 } end }, fail = "writes any value" },
  print = { ok = { "", function() local o = io.output(); io.output(dir .. "/p"); pretty.print(1); io.output():close(); io.output(o) end },
    fail = "prints" },
  quantity = { ok = { "string", function() return pretty.quantity(12.5, "percent") end }, fail = "writes any number" },
  values = { ok = { "table", function() local s1, s0 = pair(); return pretty.values(s1, s0, 1, FIX) end }, fail = "statuses per value" },
} }
C["perflib.repl"] = { mod = repl, fns = {
  complete = { ok = { "table", function() return repl.complete("perflib.coll", 0, 12) end }, fail = "an empty list" },
  access_hint = { ok = { "string", function() return repl.access_hint("Process IO", "/proc/1/io") end }, fail = "a sentence" },
  sample_text = { ok = { "string", function() local s1, s0 = pair(); return repl.sample_text(s1, s0, FIX) end }, fail = "statuses in the text" },
  show = { ok = { "", function()
    local o = io.output(); io.output(dir .. "/s"); local s1, s0 = pair(); repl.show(s1, s0); io.output():close(); io.output(o) end },
    fail = "prints" },
  print = { ok = { "", function() local o = io.output(); io.output(dir .. "/r"); repl.print(1); io.output():close(); io.output(o) end },
    fail = "prints" },
  help = { ok = { "", function() local o = io.output(); io.output(dir .. "/h"); repl.help(perflib.query); io.output():close(); io.output(o) end },
           fail = "prints help on anything" },
  install = { ok = { "",
      function() local h, s = rawget(_G, "help"), rawget(_G, "show"); repl.install(); rawset(_G, "help", h); rawset(_G, "show", s) end },
              fail = "sets two globals" },
} }
C["perflib.top"] = { mod = top, fns = {
  columns = { ok = { "table", function() return top.columns(FIX:counterset "Processor Information") end }, fail = "a list" },
  set_model = { ok = { "table", function() return top.set_model(top.columns(FIX:counterset "Memory"), {}, {}, {}) end }, fail = "a model" },
  sort = { ok = { "table", function() return top.sort(top.set_model(top.columns(FIX:counterset "Memory"), {}, {}, {})) end },
    fail = "sorts in place" },
  layout = { ok = { "table,number", function() return top.layout(top.set_model(top.columns(FIX:counterset "Memory"), {}, {}, {}), 24, 80) end },
    fail = "rows" },
  summary_model = { ok = { "table", function() return top.summary_model({}, {}, {}) end }, fail = "a model" },
  run = { ok = "draws until q or a signal (93-tui_top_spec drives it in tmux)",
          fail = { "number", function() return top.run { set = "No Such Set", out = sink(), err = sink() } end } },
} }
C["perflib.typeperf"] = { mod = typeperf, fns = {
  format = { ok = { "string", function() return typeperf.format "csv" end }, fail = { "nil,string", function() return typeperf.format "XML" end } },
  interval = { ok = { "number", function() return typeperf.interval "01:30" end },
               fail = { "nil,string", function() return typeperf.interval "soon" end } },
  count = { ok = { "number", function() return typeperf.count "3" end }, fail = { "nil,string", function() return typeperf.count "0" end } },
  zone = { ok = { "string,number", function() return typeperf.zone(0) end }, fail = "every time has a zone" },
  path = { ok = { "string", function() return typeperf.path("Memory", nil, "Available Bytes") end }, fail = "any names" },
  query = { ok = { "boolean", function() return typeperf.query("Memory", false, sink(), { machine = FIX }) end },
            fail = { "nil,string", function() return typeperf.query("No Such Set", false, sink(), { machine = FIX }) end } },
  list = { ok = { "number", function() return typeperf.list("available", sink(), { machine = FIX }) end }, fail = "a count, 0 for none" },
  run = { ok = { "number", function()
            return typeperf.run({ counters = { "\\Memory\\Available Bytes" }, count = 1 }, sink(), sink(),
                                { machine = FIX, wait = function() return true end }) end },
          fail = { "number", function() return typeperf.run({ counters = {}, format = "SQL" }, sink(), sink()) end } },
  run_list = { ok = { "number", function() return typeperf.run_list({ pattern = "available" }, sink(), sink(), { machine = FIX }) end },
               fail = { "number", function() return typeperf.run_list({ pattern = "zzzz-none" }, sink(), sink(), { machine = FIX }) end } },
} }
local CSV = dir .. "/out.csv"
files.write(CSV, '"(PDH-CSV 4.0) (UTC)(0)","\\\\h\\Memory\\Available Bytes"\n"06/10/2024 06:13:20.250","1.000000"\n')
C["perflib.plot"] = { mod = plot, fns = {
  read = { ok = { "table,table", function() return plot.read(CSV) end },
           fail = { "nil,string", function() return plot.read(BAD_REC) end },
           bad = { "bad argument #1 to 'read' (a file name expected)", function() return (plot.read(1)) end } },
  escape = { ok = { "string", function() return plot.escape "a'b" end }, fail = "every string has a literal",
             bad = { "bad argument #1 to 'escape' (a string expected)", function() return (plot.escape(nil)) end } },
  size = { ok = { "table", function() return plot.size "800x600" end },
           fail = { "nil,string", function() return plot.size "800" end } },
  run = { ok = "exit 0 draws with gnuplot (95-plot_spec)",
          fail = { "number", function() return plot.run({ log = BAD_REC, paths = {}, output = dir .. "/c.png" }, sink(), sink()) end } },
} }
C["perflib.cli"] = { mod = cli, fns = {
  parser = { ok = { "table", function() return cli.parser(function() end) end }, fail = "a parser" },
  commands = { ok = { "table", cli.commands }, fail = "a list" },
  help = { ok = { "string", function() return cli.help(cli.parser()._commands[1]) end }, fail = "the help of a parser" },
  usage = { ok = { "string", function() return cli.usage "check" end }, fail = "a name that is no subcommand is misuse",
            bad = { "bad argument #1 to 'usage' (no command 'nope')", function() return (cli.usage "nope") end } },
  overview = { ok = { "string", cli.overview }, fail = "text" },
  main = { ok = { "number", function() return cli.main({ "check", RULES }, sink(), sink()) end },
           fail = { "number", function() return cli.main({ "nope" }, sink(), sink()) end } },
} }

-- the objects the modules return: class -> { make = f, methods = { name = contract } }; each f gets a fresh object
local NOTE = { kind = "transition", rule = "Hot", labels = { alertname = "Hot", instance = "a" }, from = "pending",
               to = "firing", t = 10, value = 5 }
local O = {
  ["perflib.rules Set"] = { make = R.new, methods = {
    rule = { ok = { "table", function(st) return st:rule "A" { source = "\\Memory\\Available Bytes", when = R.below(1) } end },
             fail = { "nil,table", function(st) return st:rule "A" { sorce = "x" } end } },
    defaults = { ok = { "table", function(st) return st:defaults { severity = "warn" } end },
                 fail = { "nil,table", function(st) return st:defaults { nope = 1 } end } },
    route = { ok = { "table", function(st) return st:route { match = { severity = "warn" } } end },
              fail = { "nil,table", function(st) return st:route { nope = 1 } end } },
    inhibit = { ok = { "table", function(st) return st:inhibit { source = { a = "1" }, target = { b = "2" } } end },
                fail = { "nil,table", function(st) return st:inhibit { nope = 1 } end } },
    silence = { ok = { "table", function(st) return st:silence { match = { a = "1" } } end },
                fail = { "nil,table", function(st) return st:silence { expires = "soon" } end } },
    on_transition = { ok = { "function", function(st) return st:on_transition(function() end) end }, fail = "misuse raises",
                      bad = { "on_transition: a function expected", function(st) return (st:on_transition(1)) end } },
    list = { ok = { "table", function(st) return st:list() end }, fail = "a list" },
  } },
  ["perflib.rules.notify Notifier"] = { make = function() return N.new({}, { run = true, log = function() end }) end, methods = {
    silence = { ok = { "number", function(n) return n:silence { match = { a = "1" } } end }, fail = "a bad silence is misuse",
                bad = { "silence", function(n) return (n:silence { expires = "soon" }) end } },
    unsilence = { ok = { "", function(n) return n:unsilence(n:silence { match = {} }) end }, fail = "an unknown id is no silence" },
    silenced = { ok = { "table", function(n) n:silence { match = { a = "1" } }; return n:silenced { a = "1" } end },
                 fail = { "nil", function(n) return n:silenced { a = "2" } end } },
    inhibited = { ok = "the labels of the inhibiting alert (83-notify_spec)", fail = { "nil", function(n) return n:inhibited { a = "1" } end } },
    event = { ok = { "", function(n) return n:event(NOTE) end }, fail = "never raises: a bad event is logged" },
    events = { ok = { "", function(n) return n:events { NOTE } end }, fail = "never raises" },
    tick = { ok = { "table", function(n) n:event(NOTE); return n:tick(10) end }, fail = "never raises" },
    drain = { ok = { "", function(n) return n:drain(0) end }, fail = "never raises" },
    adopt = { ok = { "table", function(n) return n:adopt(N.new({}, { run = true })) end }, fail = "takes what it can" },
    stop = { ok = { "table", function(n) return n:stop(0) end }, fail = "logs what it drops" },
    pending = { ok = { "number,number", function(n) return n:pending() end }, fail = "counts" },
    sending = { ok = { "number", function(n) return n:sending() end }, fail = "counts" },
  } },
  ["perflib.rules.test Result"] = { make = function() return T.run(CASE) end, methods = {
    at = { ok = { "string,table", function(r) return r:at("20s", "Hot", { instance = "a" }) end },
           fail = { "string", function(r) return r:at("20s", "Hot", { instance = "b" }) end } },
    value = { ok = { "number", function(r) return r:value("20s", "Hot", { instance = "a" }) end },
              fail = { "nil", function(r) return r:value("20s", "Hot", { instance = "b" }) end } },
    never = { ok = { "boolean", function(r) return r:never("Hot", { instance = "a" }) end }, fail = "true or false" },
    first = { ok = { "number", function(r) return r:first("Hot", { instance = "a" }) end },
              fail = { "nil", function(r) return r:first("Hot", { instance = "b" }) end } },
    transitions = { ok = { "table", function(r) return r:transitions("Hot", { instance = "a" }) end }, fail = "a list" },
    notifications = { ok = { "number,table", function(r) return r:notifications { alert = "Hot" } end }, fail = "a count" },
    sent_by = { ok = { "number,table", function(r) return r:sent_by { alert = "Hot" } end }, fail = "a count" },
    timeline = { ok = { "string", function(r) return r:timeline() end }, fail = "text" },
    index = { ok = { "number", function(r) return r:index "20s" end }, fail = "the sample at or before t" },
  } },
  ["perflib.record Recorder"] = { make = function()
      return assert(record.open(REC, { "\\Memory\\Available Bytes" }, { force = true, machine = { root = "spec/fixtures/basic" } })) end,
    methods = {
      write = { ok = { "table", function(r) return r:write(r.query:collect()) end },
                fail = "nil, message, errno when the disk is full (the log writer's; record.open fails first on /dev/full)" },
      close = { ok = { "boolean", function(r) return r:close() end }, fail = "true or nil, message" },
  } },
}

describe("the public Lua modules", function()
  it("have a contract here for every function they export", function()
    for mname, m in pairs(C) do
      for k, v in pairs(m.mod) do
        if type(v) == "function" and k:sub(1, 1) ~= "_" then
          assert.is_not_nil(m.fns[k], "no contract for " .. mname .. "." .. k)
        end
      end
    end
  end)

  it("have a contract here for every method of the objects they return", function()
    for cname, o in pairs(O) do
      local x = o.make()
      local mt = getmetatable(x)
      local index = mt and (type(mt.__index) == "table" and mt.__index or mt) or {}
      for k, v in pairs(index) do
        if type(v) == "function" and k:sub(1, 1) ~= "_" then
          assert.is_not_nil(o.methods[k], "no contract for " .. cname .. ":" .. k)
        end
      end
    end
  end)

  for cname, o in pairs(O) do
    for mname, c in pairs(o.methods) do
      describe(cname .. ":" .. mname, function() K.tests(it, assert, c, o.make) end)
    end
  end

  for mname, m in pairs(C) do
    for fname, c in pairs(m.fns) do
      describe(mname .. "." .. fname, function() K.tests(it, assert, c) end)
    end
  end
end)
