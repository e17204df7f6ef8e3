-- The contract of the public API: what `require "perflib"` exports (exactly
-- the documented names: nothing by accident), and for every public function
-- and every method of its classes, the number and types of the values it
-- returns on success and on failure.  The patterns (README, "Errors"):
--   success       the documented values
--   lookup miss   nil, message
--   environment   nil, message, errno
--   q:add         nil, message, status, code
--   misuse        raises "bad argument #n to 'name' (...)"
-- A new public function fails the coverage test until its contract is here.
-- (Misuse calls are `return (f())`, not tail calls, so LuaJIT names the
-- function in its message as the other interpreters do.)
-- luacheck: max line length 150
local perflib = require "perflib"
local core = require "perflib.core"

local FIX = "spec/fixtures/basic"
local PUBLIC = {
  "_VERSION", "calculate", "check_block", "clock", "collect", "collect_block", "collect_sets", "counter_names",
  "counter_units", "counterset", "countersets", "define", "derive", "help_texts", "index_of", "info", "load_plugins",
  "load_textfiles", "log_writer", "lookup", "machine", "metadata", "metric_name", "open_log", "plugins", "provider",
  "query",
  "read_log", "remote_tokens", "reset_plugin", "sample_from_block", "serve", "signalled", "sleep", "statistics", "suggest",
  "trap", "trapped", "type", "types",
}

local K = dofile "spec/support/contract.lua"

local M = perflib.machine { root = FIX }           -- values by hand in the fixture specs; here only shapes
local unique = 0
local function name(prefix)                          -- sets defined here never clash with each other
  unique = unique + 1
  return ("%s %d"):format(prefix, unique)
end
local function sample()
  local q = M:query()
  assert(q:add "\\Processor Information(*)\\% Processor Time")
  return q:collect(), q
end
local last_set, made = nil, {}
-- Providers publish to every process (a segment file): each is stopped after
-- its test.  Their sets stay in this process's catalog (a title index is never
-- reused), so this spec runs after those that compare the catalog with
-- another process's (96-regapi_examples).
local logs = {}                                     -- binary logs made here, removed after each test
local function stop_made()
  for i = #made, 1, -1 do made[i]:stop(); made[i] = nil end
  for i = #logs, 1, -1 do os.remove(logs[i]); logs[i] = nil end
end
local function log_path()
  logs[#logs + 1] = os.tmpname()
  return logs[#logs]
end
local function log_of_one_sample()
  local p = log_path()
  local w = assert(perflib.log_writer(p))
  assert(w:write((sample())))
  assert(w:close())
  return p
end
local function provider()
  last_set = name "Contract Provider"
  local p = perflib.provider { countersets = { { name = last_set, help = "h",
    instances = "multiple", counters = { { id = 0, name = "Depth", type = "PERF_COUNTER_RAWCOUNT", help = "d" } } } } }
  assert.is_not_nil(p)             -- (busted's assert returns more than its first value)
  made[#made + 1] = p
  return p
end

-- name = { ok = { shape, f }, fail = { shape, f } | reason it cannot fail, bad = { message pattern, f } }
local F = {
  machine = { ok = { "perflib.Machine", function() return perflib.machine { root = FIX } end },
              fail = { "nil,string,number", function() return perflib.machine { host = "127.0.0.1:1" } end },
              bad = { "machine: unknown option 'nope'", function() return (perflib.machine { nope = 1 }) end } },
  countersets = { ok = { "function", function() return perflib.countersets(M) end },
                  fail = "an iterator over what the machine has: nothing to miss",
                  bad = { "bad argument #1", function() return (perflib.countersets(42)) end } },
  info = { ok = { "table", function() return perflib.info("Processor Information", "_Total", M) end },
           fail = { "nil,string,number", function() return perflib.info("Memory", nil, M) end },
           bad = { "bad argument #1 to 'info'", function() return (perflib.info {}) end } },
  counterset = { ok = { "perflib.CounterSet", function() return perflib.counterset("Memory", M) end },
                 fail = { "nil,string", function() return perflib.counterset("No Such Set", M) end },
                 bad = { "bad argument #1 to 'counterset'", function() return (perflib.counterset {}) end } },
  query = { ok = { "perflib.Query", function() return perflib.query(M) end },
            fail = { "nil,string,number", function() return perflib.query { host = "127.0.0.1:1" } end },
            bad = { "bad argument #1", function() return (perflib.query "x") end } },
  collect = { ok = { "perflib.Sample,perflib.Query,table", function() return perflib.collect("1000", M) end },
              fail = "per-value problems are statuses (a set whose files are gone is no_data); only memory can run out",
              bad = { "bad argument #1 to 'collect'", function() return (perflib.collect("Nonsense", M)) end } },
  collect_sets = { ok = { "perflib.Sample,perflib.Query,table", function() return perflib.collect_sets("1000 77000", M) end },
                   fail = "collects with per-value statuses; a query that cannot be made is a raise",
                   bad = { "is not for collect_sets: use perflib.counter_names", function() return (perflib.collect_sets("Counter 009", M)) end } },
  collect_block = { ok = { "string,perflib.Query,table", function() return perflib.collect_block("1000", M) end },
                    fail = "as collect_sets",
                    bad = { "unknown option 'v1'", function() return (perflib.collect_block("1000", M, { v1 = true })) end } },
  metadata = { ok = { "table", function() return perflib.metadata("Global", M) end },
               fail = "definitions only: no I/O",
               bad = { "is not for metadata: use perflib.help_texts", function() return (perflib.metadata("Help 009", M)) end } },
  counter_names = { ok = { "table", function() return perflib.counter_names(M) end }, fail = "no I/O",
                    bad = { "bad argument #1", function() return (perflib.counter_names "x") end } },
  help_texts = { ok = { "table", function() return perflib.help_texts(M) end }, fail = "no I/O",
                 bad = { "bad argument #1", function() return (perflib.help_texts "x") end } },
  counter_units = { ok = { "table", function() return perflib.counter_units(M) end }, fail = "no I/O",
                    bad = { "bad argument #1", function() return (perflib.counter_units "x") end } },
  lookup = { ok = { "table", function() return perflib.lookup(1002, M) end },
             fail = { "nil,string", function() return perflib.lookup(5, M) end },
             bad = { "bad argument #1 to 'lookup'", function() return (perflib.lookup "x") end } },
  index_of = { ok = { "number", function() return perflib.index_of("Memory", nil, M) end },
               fail = { "nil,string", function() return perflib.index_of("Memory", "No Such Counter", M) end },
               bad = { "bad argument #1 to 'index_of'", function() return (perflib.index_of {}) end } },
  calculate = { ok = { "number,string", function()
                  return perflib.calculate("PERF_COUNTER_BULK_COUNT", { value = 2497631, time = 25000000 },
                                           { value = 2472631, time = 0 }) end },
                fail = { "nil,string", function()
                  return perflib.calculate("PERF_COUNTER_BULK_COUNT", { value = 2497631, time = 25000000 }) end },
                bad = { "bad argument #1 to 'calculate'", function() return (perflib.calculate("NO_SUCH_TYPE", { value = 1 })) end } },
  statistics = { ok = { "table", function() return perflib.statistics("PERF_COUNTER_RAWCOUNT", { 1, 2, 3 }) end },
                 fail = { "nil,string", function()
                   return perflib.statistics("PERF_COUNTER_BULK_COUNT", { { value = 1, time = 1 } }) end },
                 bad = { "bad argument #2 to 'statistics'", function() return (perflib.statistics("PERF_COUNTER_RAWCOUNT", 5)) end } },
  metric_name = { ok = { "string,string,number", function() return perflib.metric_name "\\Memory\\Available Bytes" end },
                  fail = { "nil,string", function() return perflib.metric_name "\\No Such Set\\X" end },
                  bad = { "bad argument #1 to 'metric_name'", function() return (perflib.metric_name {}) end } },
  suggest = { ok = { "string", function() return perflib.suggest("Memroy", { "Memory", "Disk" }) end },
              fail = { "nil,string", function() return perflib.suggest("zzzz", { "Memory", "Disk" }) end },
              bad = { "bad argument #2 to 'suggest'", function() return (perflib.suggest("x", "y")) end } },
  sample_from_block = { ok = { "perflib.Sample", function() return perflib.sample_from_block((sample():block())) end },
                        fail = { "nil,string,number", function() return perflib.sample_from_block "xx" end },
                        bad = { "bad argument #1 to 'sample_from_block'", function() return (perflib.sample_from_block {}) end } },
  log_writer = { ok = { "perflib.LogWriter", function() return perflib.log_writer(log_path()) end },
                 fail = { "nil,string,number", function() return perflib.log_writer "/nonexistent/dir/x.blg" end },
                 bad = { "bad argument #1 to 'log_writer'", function() return (perflib.log_writer {}) end } },
  open_log = { ok = { "perflib.Machine", function() return perflib.open_log(log_of_one_sample()) end },
               fail = { "nil,string,number", function() return perflib.open_log "/nonexistent/x.blg" end },
               bad = { "bad argument #2 to 'open_log'",
                       function() return (perflib.open_log("x", { from = "x" })) end } },
  read_log = { ok = { "function,perflib.LogReader,nil,perflib.LogReader", function()
                 return perflib.read_log(log_of_one_sample(), { machine = M }) end },
               fail = { "nil,string,number", function() return perflib.read_log "/nonexistent/x.blg" end },
               bad = { "bad argument #2 to 'read_log'", function() return (perflib.read_log("x", { from = "x" })) end } },
  check_block = { ok = { "boolean", function() return perflib.check_block((sample():block())) end },
                  fail = { "nil,string,number", function() return perflib.check_block "xx" end },
                  bad = { "bad argument #1 to 'check_block'", function() return (perflib.check_block {}) end } },
  plugins = { ok = { "table", function() return perflib.plugins() end }, fail = "lists what is loaded" },
  load_plugins = { ok = { "boolean", function() return perflib.load_plugins "spec/fixtures" end },
                   fail = { "nil,string,number", function() return perflib.load_plugins "/nonexistent" end },
                   bad = { "bad argument #1 to 'load_plugins'", function() return (perflib.load_plugins {}) end } },
  reset_plugin = { ok = false,
                   fail = { "nil,string,number", function() return perflib.reset_plugin "no such plug-in" end },
                   bad = { "bad argument #1 to 'reset_plugin'", function() return (perflib.reset_plugin {}) end } },
  load_textfiles = { ok = { "boolean", function() return perflib.load_textfiles "spec/fixtures" end },
                     fail = { "nil,string,number", function() return perflib.load_textfiles "/nonexistent" end },
                     bad = { "bad argument #1 to 'load_textfiles'", function() return (perflib.load_textfiles "") end } },
  define = { ok = { "perflib.CounterSet", function()
               return perflib.define { name = name "Contract Define", help = "x", machine = M,
                 counters = { { name = "Depth", type = "PERF_COUNTER_LARGE_RAWCOUNT" } },
                 collect = function() return {} end } end },
             fail = "a set that cannot be made is misuse (raises); its callback's failures are statuses",
             bad = { "define", function() return (perflib.define {}) end } },
  derive = { ok = { "perflib.CounterSet", function()
               return perflib.derive { name = name "Contract Derive", machine = M, counters = { { name = "X", formula = "1" } } } end },
             fail = "a formula that cannot be read is misuse (raises); per-value problems are statuses",
             bad = { "derive", function() return (perflib.derive {}) end } },
  provider = { ok = { "perflib.Provider", provider },
               fail = "the segment directory is the process's own (failures raise as misuse or return as below)",
               bad = { "provider", function() return (perflib.provider {}) end } },
  serve = { ok = { "perflib.Server", function() local s = perflib.serve { listen = "127.0.0.1:0" }; s:close(); return s end },
            fail = { "nil,string,number", function()
              return perflib.serve { listen = "127.0.0.1:0", tls_cert = "/nonexistent", tls_key = "/nonexistent" } end },
            bad = { "serve", function() return (perflib.serve { nope = 1 }) end } },
  sleep = { ok = { "boolean", function() return perflib.sleep(0) end }, fail = "a signal cuts it short, still true",
            bad = { "bad argument #1 to 'sleep'", function() return (perflib.sleep "x") end } },
  clock = { ok = { "number", perflib.clock }, fail = "CLOCK_MONOTONIC cannot fail" },
  type = { ok = { "string", function() return perflib.type(M) end },         -- each class: the test of the classes
           fail = { "nil", function() return perflib.type {} end } },
  trap = { ok = { "boolean", function() return perflib.trap "USR2" end }, fail = "sigaction on a known signal",
           bad = { "bad argument #2 to 'trap'", function() return (perflib.trap("USR2", "NOPE")) end } },
  trapped = { ok = { "table", perflib.trapped }, fail = "reads a bitmask" },
  signalled = { ok = { "boolean", perflib.signalled }, fail = "reads a bitmask" },
}

-- class = { method = { ok =, fail =, bad = } }, each f taking a fresh object
local CLASSES = {
  ["perflib.Query"] = { make = function() return M:query() end, methods = {
    add = { ok = { "number,string", function(q) return q:add "\\Memory\\Available Bytes" end },
            fail = { "nil,string,string,number", function(q) return q:add "\\No Such Set\\X" end },
            bad = { "bad argument #1 to 'add'", function(q) return (q:add(42)) end } },
    add_sets = { ok = { "number,number,table", function(q) return q:add_sets "1000 77000" end },
                 fail = "a string that names nothing adds nothing and lists it",
                 bad = { "bad argument #1 to 'add_sets'", function(q) return (q:add_sets "Counter 009") end } },
    collect = { ok = { "perflib.Sample", function(q) q:add "\\Memory\\Available Bytes"; return q:collect() end },
                fail = "per-value problems are statuses",
                bad = { "closed query", function(q) q:close(); return (q:collect()) end } },
    delete = { ok = { "boolean", function(q) q:add "\\Memory\\Available Bytes"; return q:delete(1) end },
               fail = "an index out of range raises",
               bad = { "bad argument #1 to 'delete' (no specification #1)", function(q) return (q:delete(1)) end } },
    specs = { ok = { "table", function(q) return q:specs() end }, fail = "lists what was added" },
    close = { ok = { "", function(q) return q:close() end }, fail = "idempotent" },
    samples = { ok = { "function", function(q) return q:samples(1, 1) end }, fail = "an iterator",
                bad = { "bad argument #1 to 'samples'", function(q) return (q:samples(0)) end } },
  } },
  ["perflib.Sample"] = { make = sample, methods = {
    formatted = { ok = { "function", function(s) return s:formatted() end }, fail = "statuses per value",
                  bad = { "bad argument #2 to 'formatted'", function(s) return (s:formatted(nil, { index = 9 })) end } },
    raw = { ok = { "function", function(s) return s:raw() end }, fail = "statuses per value",
            bad = { "bad argument", function(s) return (s:raw(9)) end } },
    value = { ok = { "number,number", function(s) return s:value(1, "_Total") end },
              fail = { "nil,string", function(s) return s:value(1, "no such instance") end },
              bad = { "bad argument #1 to 'value'", function(s) return (s:value(9)) end } },
    values = { ok = { "table,table", function(s) return s:values() end }, fail = "statuses per value",
               bad = { "bad argument #2 to 'values'", function(s) return (s:values(nil, 9)) end } },
    results = { ok = { "table", function(s) return s:results() end }, fail = "describes the sample" },
    evaluate = { ok = { "table", function(s) return s:evaluate() end }, fail = "statuses per value",
                 bad = { "bad argument #2 to 'evaluate'", function(s) return (s:evaluate(nil, 9)) end } },
    columns = { ok = { "table,table,number,table,table", function(s) return s:columns() end }, fail = "statuses per value",
                bad = { "bad argument #2 to 'columns'", function(s) return (s:columns(nil, 9)) end } },
    format = { ok = { "number,string", function(s, q) return q:collect():format(s, 1, "_Total", nil, { nocap = true }) end },
               fail = { "nil,string", function(s) return s:format(nil, 1, "_Total") end },
               bad = { "bad argument #2 to 'format'", function(s) return (s:format(nil, 9)) end } },
    block = { ok = { "string", function(s) return s:block() end }, fail = "made in memory",
              bad = { "unknown option 'nope'", function(s) return (s:block { nope = 1 }) end } },
    release = { ok = { "", function(s) return s:release() end }, fail = "idempotent" },
  } },
  ["perflib.Machine"] = { make = function() return perflib.machine { root = FIX } end, methods = {
    counterset = { ok = { "perflib.CounterSet", function(m) return m:counterset "Memory" end },
                   fail = { "nil,string", function(m) return m:counterset "No Such Set" end },
                   bad = { "bad argument #1 to 'counterset'", function(m) return (m:counterset {}) end } },
    countersets = { ok = { "function", function(m) return m:countersets() end }, fail = "an iterator" },
    info = { ok = { "table", function(m) return m:info("Processor Information", "_Total") end },
             fail = { "nil,string,number", function(m) return m:info("Processor Information", "9,9") end },
             bad = { "bad argument #1 to 'info'", function(m) return (m:info {}) end } },
    query = { ok = { "perflib.Query", function(m) return m:query() end }, fail = "no I/O" },
    log = { ok = { "nil", function(m) return m:log() end }, fail = "nil is the answer for a live machine" },
    collect = { ok = { "perflib.Sample,perflib.Sample", function(m)
                  local a, b = m:query(), m:query()
                  assert(a:add "\\Memory\\*")
                  assert(b:add "\\System\\*")
                  return m:collect(a, b) end },
                fail = { "nil,string,number", function()
                  local m = perflib.open_log(log_of_one_sample())
                  local q = m:query()
                  assert(q:add "\\Processor Information(*)\\% Processor Time")   -- what the log holds
                  assert(m:collect(q))
                  return m:collect(q) end },
                bad = { "bad argument #1 to 'collect'", function(m) return (m:collect()) end } },
  } },
  ["perflib.CounterSet"] = { make = function() return M:counterset "Processor Information" end, methods = {
    counter = { ok = { "table", function(cs) return cs:counter "% Processor Time" end },
                fail = { "nil,string", function(cs) return cs:counter "No Such Counter" end },
                bad = { "bad argument #1 to 'counter'", function(cs) return (cs:counter {}) end } },
    instances = { ok = { "table", function(cs) return cs:instances() end },
                  fail = { "nil,string,number", function()
                    return perflib.machine({ root = "/nonexistent" }):counterset("Processor Information"):instances() end } },
  } },
  ["perflib.Provider"] = { make = provider, methods = {
    instance = { ok = { "perflib.ProviderInstance", function(p) return p:instance(last_set, "a") end },
                 fail = "an instance that cannot be made raises",
                 bad = { "bad argument #1 to 'instance'", function(p) return (p:instance("No Such Set", "a")) end } },
    path = { ok = { "string", function(p) return p:path() end }, fail = "the segment's path" },
    stop = { ok = { "boolean", function(p) return p:stop() end }, fail = "idempotent" },
  } },
  ["perflib.ProviderInstance"] = { make = function() return provider():instance(last_set, "a") end, methods = {
    set = { ok = { "", function(w) return w:set("Depth", 3) end }, fail = "writes the segment",
            bad = { "bad argument #1 to 'set'", function(w) return (w:set("No Such Counter", 3)) end } },
    add = { ok = { "", function(w) return w:add("Depth", 1) end }, fail = "writes the segment",
            bad = { "bad argument #1 to 'add'", function(w) return (w:add("No Such Counter", 1)) end } },
    get = { ok = { "number", function(w) return w:get "Depth" end }, fail = "reads the segment",
            bad = { "bad argument #1 to 'get'", function(w) return (w:get "No Such Counter") end } },
    counter = { ok = { "perflib.ProviderCounter", function(w) return w:counter "Depth" end }, fail = "resolves a name",
                bad = { "bad argument #1 to 'counter'", function(w) return (w:counter "No Such Counter") end } },
    delete = { ok = { "", function(w) return w:delete() end }, fail = "idempotent" },
  } },
  ["perflib.ProviderCounter"] = { make = function() return provider():instance(last_set, "a"):counter "Depth" end,
    methods = {
      set = { ok = { "", function(c) return c:set(3) end }, fail = "writes the segment",
              bad = { "bad argument #1 to 'set'", function(c) return (c:set "x") end } },
      add = { ok = { "", function(c) return c:add() end }, fail = "writes the segment",
              bad = { "bad argument #1 to 'add'", function(c) return (c:add "x") end } },
      get = { ok = { "number", function(c) return c:get() end }, fail = "reads the segment" },
  } },
  ["perflib.LogWriter"] = { make = function() return assert(perflib.log_writer(log_path())) end, methods = {
    write = { ok = { "boolean", function(w) return w:write((sample())) end },
              fail = "a full disk: spec/95-blog_spec.lua writes past ulimit -f in a child",
              bad = { "bad argument #1 to 'write'", function(w) return (w:write "x") end } },
    path = { ok = { "string", function(w) return w:path() end }, fail = "the file's name" },
    size = { ok = { "number", function(w) return w:size() end }, fail = "a count it keeps" },
    format = { ok = { "string", function(w) return w:format() end }, fail = "chosen at open",
               bad = { "closed log writer", function(w) w:close(); return (w:format()) end } },
    close = { ok = { "boolean", function(w) return w:close() end },
              fail = "fdatasync or close failing: an I/O error of the disk; idempotent" },
  } },
  ["perflib.LogReader"] = { make = function()
      return select(2, assert(perflib.read_log(log_of_one_sample(), { machine = M }))) end, methods = {
    warning = { ok = { "nil", function(l) return l:warning() end }, fail = "a whole log has none (95-blog: a torn one's)",
                bad = { "closed log reader", function(l) l:close(); return (l:warning()) end } },
    info = { ok = { "table", function(l) return l:info() end }, fail = "the header read at open" },
    close = { ok = { "", function(l) return l:close() end }, fail = "idempotent" },
  } },
  ["perflib.Server"] = { make = function() return assert(perflib.serve { listen = "127.0.0.1:0" }) end, methods = {
    port = { ok = { "number", function(sv) local p = sv:port(); sv:close(); return p end }, fail = "a bound socket" },
    stats = { ok = { "table", function(sv) local t = sv:stats(); sv:close(); return t end }, fail = "counters" },
    close = { ok = { "", function(sv) return sv:close() end }, fail = "idempotent" },
  } },
}

-- the classes whose methods live in their metatable's __index, not core.methods
local OTHER = { ["perflib.Provider"] = true, ["perflib.ProviderInstance"] = true, ["perflib.ProviderCounter"] = true,
                ["perflib.Server"] = true, ["perflib.LogWriter"] = true, ["perflib.LogReader"] = true }

describe("the public API", function()
  after_each(stop_made)
  it("exports exactly the documented names, and on first use pretty and rules", function()
    local names = {}
    for k in pairs(perflib) do names[#names + 1] = k end
    table.sort(names)
    assert.same(PUBLIC, names)
    assert.is_table(perflib.pretty)
    assert.is_table(perflib.rules)
    for _, k in ipairs { "spawn", "wait", "kill", "syslog", "isatty", "sandbox", "sandbox_lib", "window",
                         "rulebank", "flap", "http", "term", "methods", "frame" } do
      assert.is_nil(perflib[k], k)
      assert.is_not_nil(core[k], k)                 -- still there for perflib's own modules
    end
  end)

  it("has a contract here for every public function", function()
    for _, k in ipairs(PUBLIC) do
      if type(perflib[k]) == "function" then assert.is_table(F[k], "no contract for perflib." .. k) end
    end
  end)

  for fname, c in pairs(F) do
    describe("perflib." .. fname, function() K.tests(it, assert, c) end)
  end
end)

describe("the public classes", function()
  after_each(stop_made)
  it("have a contract here for every method", function()
    for class, methods in pairs(core.methods) do
      local reg = CLASSES["perflib." .. class]
      assert.is_table(reg, "no contracts for " .. class)
      for m in pairs(methods) do assert.is_table(reg.methods[m], "no contract for " .. class .. ":" .. m) end
    end
    for class in pairs(OTHER) do
      local o = CLASSES[class].make()
      local index = getmetatable(o).__index
      for m in pairs(index) do assert.is_table(CLASSES[class].methods[m], "no contract for " .. class .. ":" .. m) end
    end
  end)

  it("follow one pattern: perflib.type names each, tostring says `perflib.Class (what)`", function()
    local types = { ["perflib.Query"] = "query", ["perflib.Sample"] = "sample", ["perflib.Machine"] = "machine",
                    ["perflib.CounterSet"] = "counterset", ["perflib.Provider"] = "provider",
                    ["perflib.ProviderInstance"] = "provider instance", ["perflib.ProviderCounter"] = "provider counter",
                    ["perflib.Server"] = "server", ["perflib.LogWriter"] = "log writer",
                    ["perflib.LogReader"] = "log reader" }
    for class, reg in pairs(CLASSES) do
      local o = reg.make()
      assert.equals(types[class], perflib.type(o), class)
      assert.matches("^" .. class:gsub("%.", "%%.") .. " %(.+%)$", tostring(o))
      if class == "perflib.Server" then o:close() end
    end
    assert.is_nil(perflib.type(io.stdout))
  end)

  for class, reg in pairs(CLASSES) do
    for mname, c in pairs(reg.methods) do
      describe(class .. ":" .. mname, function() K.tests(it, assert, c, reg.make) end)
    end
  end
end)
