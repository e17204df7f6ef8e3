--- `perflua typeperf` and `perflua list`: counters to CSV, TSV or JSON lines
-- the way Windows' typeperf writes them, typeperf's `-q`/`-qx` listings, and a
-- `pminfo -t`-like search of counter names and help texts.
--
-- The values are perflib's own (`Sample:formatted`, the C formulas); this
-- module only lays them out.  Like typeperf it collects once before the first
-- row, so every row, the first included, holds rates; the columns are fixed
-- at that first collect (a wildcard gives one column per instance then), a
-- vanished instance leaves empty fields and a new one gets no column.
-- @module perflib.typeperf


local M = {}

--- The formats `-f` takes (case aside).  BIN is perflib's binary log and SQL its
-- SQLite log (`perflib.log_writer`), to the file -o names only.
M.FORMATS = { "CSV", "TSV", "JSON", "BIN", "SQL" }

-- The logs: the format perflib.log_writer takes for each.
local LOGS = { BIN = "bin", SQL = "sqlite" }

--- What typeperf writes for a value that has no valid status.
M.MISSING = " "

--- `-f`'s converter: the format's name in capitals, or nil and a message.
-- @tparam string s
function M.format(s)
  local f = tostring(s):upper()
  for _, name in ipairs(M.FORMATS) do
    if f == name then return f end
  end
  return nil, "-f needs CSV, TSV, JSON, BIN or SQL"
end

--- `-si`'s converter: `[[hh:]mm:]ss` (seconds may have a fraction) to seconds,
-- or nil and a message.  Minutes and seconds after a colon are below 60.
-- @tparam string s
function M.interval(s)
  local bad = "-si needs an interval [[hh:]mm:]ss greater than 0"
  local parts = {}
  for p in (tostring(s) .. ":"):gmatch("([^:]*):") do parts[#parts + 1] = p end
  if #parts > 3 then return nil, bad end
  local total = 0
  for i, p in ipairs(parts) do
    local ok = p:match("^%d+$") or (i == #parts and p:match("^%d*%.%d+$"))
    local v = ok and tonumber(p)
    if not v or (i > 1 and v >= 60) then return nil, bad end
    total = total * 60 + v
  end
  if total <= 0 then return nil, bad end
  return total
end

--- `-sc`'s converter: a whole number of samples, at least 1.
-- @tparam string s
function M.count(s)
  local v = tostring(s):match("^%d+$") and tonumber(s)
  if not v or v < 1 then return nil, "-sc needs a whole number of samples, at least 1" end
  return v
end

-- The one-line help of a counter: its first sentence, blanks collapsed.
local function one_line(help)
  local h = tostring(help or ""):gsub("%s+", " ")
  h = h:match("^(.-%.) ") or h
  return (h:gsub("^ ", ""):gsub("%.? ?$", ""))
end

--- A counter path as typeperf writes it: `\Set\Counter` (no instance, or ""),
-- `\Set(inst)\Counter`.
-- @tparam string set
-- @tparam ?string inst
-- @tparam string counter
-- @treturn string
function M.path(set, inst, counter)
  if inst == nil or inst == "" then return "\\" .. set .. "\\" .. counter end
  return "\\" .. set .. "(" .. inst .. ")\\" .. counter
end
local path = M.path

-- The countersets of a machine (or this one), sorted by name.
local function sets(perflib, machine)
  local list = {}
  for cs in (machine or perflib).countersets(machine) do list[#list + 1] = cs end
  table.sort(list, function(a, b) return a.name < b.name end)
  return list
end

--- The countersets of a machine (a log's too, `perflib.open_log`), sorted by name.
-- @param machine a perflib.machine, or nil for this one
-- @treturn {Counterset,...}
function M.sets(machine) return sets(require "perflib", machine) end

-- The counterset named by -q/-qx, or all of them; nil and a message for a name that is no set.
local function chosen_sets(perflib, machine, name)
  if not name then return sets(perflib, machine) end
  local cs = (machine or perflib).counterset(machine or name, machine and name or nil)
  if not cs then return nil, ("no counterset '%s'"):format(name) end
  return { cs }
end

--- `perflua typeperf -q [SET]` (paths with `(*)` for sets with instances, so each
-- line is a path typeperf takes back) or `-qx [SET]` (one line per instance).
-- @tparam[opt] string set a counterset's name
-- @tparam boolean instances -qx
-- @param out where the lines go
-- @tparam[opt] table env `machine`
-- @return true, or nil and a message
function M.query(set, instances, out, env)
  local perflib = require "perflib"
  local machine = env and env.machine
  local list, msg = chosen_sets(perflib, machine, set)
  if not list then return nil, msg end
  for _, cs in ipairs(list) do
    local insts = { "" }
    if cs.instance_type ~= "single" then
      insts = {}
      if instances then
        for k, i in ipairs(cs:instances()) do insts[k] = i.name end
      else
        insts[1] = "*"
      end
    end
    for _, inst in ipairs(insts) do          -- each instance's counters, as the columns go
      for _, c in ipairs(cs.counters) do
        if not c.hidden then out:write(path(cs.name, inst, c.name), "\n") end
      end
    end
  end
  return true
end

--- `perflua list [PATTERN]`: every counter whose path or help text holds
-- PATTERN (a plain substring, case aside), as `\Set(*)\Counter [help]`.
-- @tparam[opt] string pattern
-- @param out where the lines go
-- @tparam[opt] table env `machine`
-- @treturn integer how many counters were listed
function M.list(pattern, out, env)
  local perflib = require "perflib"
  local want = pattern and pattern:lower()
  local n = 0
  for _, cs in ipairs(sets(perflib, env and env.machine)) do
    local inst = cs.instance_type ~= "single" and "*" or ""
    for _, c in ipairs(cs.counters) do
      local p = path(cs.name, inst, c.name)
      if not c.hidden and (not want or p:lower():find(want, 1, true)
          or tostring(c.help or ""):lower():find(want, 1, true)) then
        out:write(p, " [", one_line(c.help), "]\n")
        n = n + 1
      end
    end
  end
  return n
end

-- ---------------------------------------------------------------- output ---

local function csv_quote(s) return '"' .. s:gsub('"', '""') .. '"' end

-- JSON lines through perflib.json (dkjson's escaping; bytes that are not UTF-8 become U+FFFD)
local json = require "perflib.json"
local json_string, json_number = json.string, json.number

-- "MM/DD/YYYY HH:MM:SS.mmm" in local time, as typeperf stamps rows.
local function stamp(ts)
  local sec = math.floor(ts)
  return os.date("%m/%d/%Y %H:%M:%S", sec) .. (".%03d"):format(math.floor((ts - sec) * 1000))
end

-- ISO 8601 in UTC with milliseconds, for JSON lines.
local function iso(ts)
  local sec = math.floor(ts)
  return os.date("!%Y-%m-%dT%H:%M:%S", sec) .. (".%03dZ"):format(math.floor((ts - sec) * 1000))
end

--- The zone typeperf's header names and its bias in minutes (UTC = local + bias), at Unix time ts.
-- @tparam number ts
-- @treturn string the zone's abbreviation
-- @treturn integer the bias
function M.zone(ts)
  local sec = math.floor(ts)
  local sign, hh, mm = os.date("%z", sec):match("^([+-])(%d%d)(%d%d)$")
  local east = sign and (tonumber(hh) * 60 + tonumber(mm)) or 0
  if sign == "-" then east = -east end
  return os.date("%Z", sec), -east
end

-- Writers by format: header(cols, ts) and row(ts, cells, statuses) give the text of a line.
local function delimited(tag, sep)
  local joint = '"' .. sep .. '"'
  return {
    header = function(cols, ts)
      local zone, bias = M.zone(ts)
      local cells = { csv_quote(("(PDH-%s 4.0) (%s)(%d)"):format(tag, zone, bias)) }
      for i, c in ipairs(cols) do cells[i + 1] = csv_quote(c.path) end
      return table.concat(cells, sep) .. "\n"
    end,
    row = function(ts, cells)
      return '"' .. stamp(ts) .. joint .. table.concat(cells, joint) .. '"\n'
    end,
    value = function(v) return ("%.6f"):format(v) end,
  }
end

-- JSON lines: the keys are made once, at the header; the buffers are kept from row to row.
local function json_writer()
  local keys, vals, bad = {}, {}, {}
  return {
    header = function(cols)
      for i, c in ipairs(cols) do keys[i] = json_string(c.path) end
      return nil
    end,
    row = function(ts, cells, statuses)
      local nb = 0
      for i, key in ipairs(keys) do
        vals[i] = key .. ":" .. (statuses[i] and "null" or cells[i])
        if statuses[i] then
          nb = nb + 1
          bad[nb] = key .. ":" .. json_string(statuses[i])
        end
      end
      local sec = math.floor(ts)
      return ('{"time":%s,"timestamp":%d.%03d,"values":{%s},"statuses":{%s}}\n'):format(json_string(iso(ts)),
        sec, math.floor((ts - sec) * 1000), table.concat(vals, ","), table.concat(bad, ",", 1, nb))
    end,
    value = json_number,
  }
end

-- A writer per run (JSON keeps its keys and buffers).
local WRITERS = {
  CSV = function() return delimited("CSV", ",") end,
  TSV = function() return delimited("TSV", "\t") end,
  JSON = json_writer,
}

-- -------------------------------------------------------------- sampling ---

local function has_wildcard(s) return s:find("[*?]") ~= nil end

-- The columns of the first collect: { path=, k=, counter=, instance= } in typeperf's
-- order (each result's instances, each instance's counters), and map[k][counter][instance].
local function columns(q, s, host, warn)
  local cols, map, specs = {}, {}, q:specs()
  for k, r in ipairs(s:results()) do
    local sp = specs[k]
    local insts = r.instances or {}
    if #insts == 0 and not has_wildcard(sp.instance or "") then insts = { sp.instance or "" } end
    local counters = r.counters or {}
    if #insts == 0 or #counters == 0 then
      warn(("%s: no instance or counter matches (%s)"):format(sp.path, tostring(r.status)))
    end
    map[k] = {}
    for _, name in ipairs(counters) do map[k][name] = {} end
    for _, inst in ipairs(insts) do
      for _, name in ipairs(counters) do
        cols[#cols + 1] = { path = "\\\\" .. host .. path(sp.counterset, inst, name), k = k,
                            counter = name, instance = inst }
        map[k][name][inst] = #cols
      end
    end
  end
  return cols, map
end

-- Fills cells (text) and statuses (nil where valid) of one row from a sample pair.
local function fill(cells, statuses, cols, map, s1, s0, value)
  for i = 1, #cols do cells[i], statuses[i] = M.MISSING, "no_instance" end
  for inst, v, st, counter, k in s1:formatted(s0) do
    local byc = map[k] and map[k][counter]
    local i = byc and byc[inst]
    if i then
      if st == "valid" and v == v and v ~= math.huge and v ~= -math.huge then
        cells[i], statuses[i] = value(v), nil
      else
        statuses[i] = st == "valid" and "invalid_data" or st
      end
    end
  end
end

local function hostname(env)
  if env.host then return env.host end
  local f = io.open("/proc/sys/kernel/hostname")
  local h = f and f:read("*l")
  if f then f:close() end
  return (h and h ~= "") and h or "localhost"
end

--- The counter paths of the command line and of -cf FILE (one a line; blank
-- lines and lines starting with # are skipped); nil and a message when FILE cannot be read.
-- @tparam table a `counters` (paths), `counter_file`
-- @treturn[1] {string,...}
-- @return[2] nil
-- @treturn[2] string
function M.paths(a)
  local paths = {}
  for _, p in ipairs(a.counters or {}) do paths[#paths + 1] = p end
  if a.counter_file then
    local f, msg = io.open(a.counter_file)
    if not f then return nil, ("-cf %s: cannot read: %s"):format(a.counter_file, tostring(msg)) end
    for line in f:lines() do
      line = line:gsub("^%s+", ""):gsub("%s+$", "")
      if line ~= "" and line:sub(1, 1) ~= "#" then paths[#paths + 1] = line end
    end
    f:close()
  end
  return paths
end

-- nil, or a message when -o names a file that exists and -y was not given.
local function refused(a)
  -- renaming a path onto itself succeeds exactly when something is there
  if not a.force and os.rename(a.output, a.output) then
    return ("%s exists: not overwritten (-y replaces it)"):format(a.output)
  end
end

-- The output: the file -o names (refused when it exists, unless -y) or out.
local function open_output(a, out)
  if not a.output then return out end
  local no = refused(a)
  if no then return nil, no end
  local f, msg = io.open(a.output, "w")
  if not f then return nil, ("cannot write %s: %s"):format(a.output, tostring(msg)) end
  return f, nil, true
end

-- A waiter on a fixed schedule: returns false when TERM or INT came.
local function schedule(perflib, interval)
  perflib.trap("TERM", "INT")
  local due = perflib.clock()
  return function()
    due = due + interval
    repeat
      local wait = due - perflib.clock()
      if wait > 0 then perflib.sleep(wait) end
      if #perflib.trapped() > 0 then return false end
    until due - perflib.clock() <= 0
    if perflib.clock() > due + interval then due = perflib.clock() end   -- fell behind: no burst
    return true
  end
end

-- Collects and writes rows until -sc rows are written, the waiter says stop, or a failure.
local function sample_loop(q, s0, cols, map, w, dest, a, wait)
  local cells, statuses, s1 = {}, {}, nil
  local n, count = 0, a.count
  while not count or n < count do
    if not wait(n + 1) then break end
    local s, cerr = q:collect(s1)
    if not s then return nil, "collect: " .. tostring(cerr) end
    s1 = s
    fill(cells, statuses, cols, map, s1, s0, w.value)
    local ok, werr = dest:write(w.row(s1.timestamp, cells, statuses))
    if ok then ok, werr = dest:flush() end             -- a full disk shows here
    if not ok then return nil, "write: " .. tostring(werr) end
    s0, s1 = s1, s0
    n = n + 1
  end
  return n
end

local function say(err, fmt, ...)
  err:write("perflua typeperf: ", fmt:format(...), "\n")
end

-- -f BIN and -f SQL: s0 and then -sc samples (so the log gives -sc rows of
-- rates) to the binary or SQLite log -o names; 0, 1 (a failure while
-- sampling) or 2 (the file refused).
local function run_log(perflib, q, s0, a, err, wait)
  local no = refused(a)
  if no then say(err, "%s", no) return 2 end
  if a.force then
    for _, suffix in ipairs { "", "-wal", "-shm" } do os.remove(a.output .. suffix) end
  end
  local w, werr = perflib.log_writer(a.output, { format = LOGS[a.format] })
  if not w then say(err, "%s", werr) return 2 end
  local ok, lerr = w:write(s0)
  local n, s1 = 0, nil
  while ok and (not a.count or n < a.count) and wait(n + 1) do
    s1, lerr = q:collect(s1)
    if not s1 then lerr = "collect: " .. tostring(lerr) break end
    ok, lerr = w:write(s1)
    s0, s1 = s1, s0
    n = n + 1
  end
  local cok, cerr = w:close()
  if not lerr and not cok then lerr = cerr end
  if lerr then say(err, "%s", tostring(lerr)) return 1 end
  return 0
end

-- -q/-qx: the listing, to -o or out.
local function run_query(a, out, err, env)
  if #(a.counters or {}) > 0 or a.counter_file then
    say(err, "-q and -qx list counters: no counter paths with them")
    return 2
  end
  local dest, oerr, own = open_output(a, out)
  if not dest then say(err, "%s", oerr) return 2 end
  local set = (a.query or a.query_instances)[1]
  local ok, msg = M.query(set, a.query_instances ~= nil, dest, env)
  if own then dest:close() end
  if not ok then say(err, "-q%s %s: %s", a.query_instances and "x" or "", set, msg) return 2 end
  return 0
end

-- The query of the valid paths; the others are reported and left out.
local function build_query(perflib, paths, err, env)
  local q = env.machine and env.machine:query() or perflib.query()
  local n = 0
  for _, p in ipairs(paths) do
    local i, msg = q:add(p)
    if i then n = n + 1 else say(err, "%s: %s", p, tostring(msg)) end
  end
  return q, n
end

--- Rows of formatted values for another writer of typeperf's formats (`perflua relog`): the
-- columns are fixed at q's sample s0, as typeperf fixes them at its first collect.
-- @tparam string fmt CSV, TSV or JSON
-- @param q the query (of any machine: a log's too)
-- @param s0 its first sample
-- @tparam string host the machine name of the header's paths
-- @tparam function warn called with a message for each path that matches nothing in s0
-- @treturn table `ncols`; `header()`: the header's text (nil for JSON); `row(s1, s0)`: the text
--   of the row of s1's values (rates against s0)
function M.writer(fmt, q, s0, host, warn)
  local w = WRITERS[fmt] and WRITERS[fmt]()
  if not w then error(("bad argument #1 to 'writer' (CSV, TSV or JSON expected, got %s)"):format(tostring(fmt)), 2) end
  local cols, map = columns(q, s0, host, warn)
  local cells, statuses = {}, {}
  return {
    ncols = #cols,
    header = function() return w.header(cols, s0.timestamp) end,
    row = function(s1, prev)
      fill(cells, statuses, cols, map, s1, prev, w.value)
      return w.row(s1.timestamp, cells, statuses)
    end,
  }
end

--- Runs `perflua typeperf` with parsed arguments; returns the exit status.
-- @tparam table a `counters`, `counter_file`, `interval`, `count`, `format`, `output`, `force`,
--   `query`/`query_instances` (lists: the set, or empty)
-- @param out standard output
-- @param err standard error
-- @tparam[opt] table env `machine` (a perflib.machine), `host` (the header's machine name),
--   `wait(n)` (called before the n-th row's collect instead of sleeping; false stops)
-- @treturn integer 0, 1 (a failure while sampling) or 2 (bad arguments or inputs)
function M.run(a, out, err, env)
  env = env or {}
  if a.query and a.query_instances then say(err, "-q and -qx do not mix") return 2 end
  if a.query or a.query_instances then return run_query(a, out, err, env) end
  local fmt = a.format or "CSV"
  if LOGS[fmt] and not a.output then
    say(err, "-f %s needs -o FILE: %s log is not written to standard output", fmt,
      fmt == "BIN" and "a binary" or "an SQLite")
    return 2
  end
  local paths, perr = M.paths(a)
  if not paths then say(err, "%s", perr) return 2 end
  if #paths == 0 then err:write(require("perflib.cli").usage "typeperf") return 2 end
  local perflib = require "perflib"
  local q, valid = build_query(perflib, paths, err, env)
  local s0, cols, map = nil, {}, {}
  if valid > 0 then
    local cerr
    s0, cerr = q:collect()
    if not s0 then say(err, "collect: %s", tostring(cerr)) q:close() return 1 end
    cols, map = columns(q, s0, hostname(env), function(m) say(err, "%s", m) end)
  end
  if #cols == 0 then say(err, "no valid counters") q:close() return 2 end
  if LOGS[fmt] then
    local code = run_log(perflib, q, s0, a, err, env.wait or schedule(perflib, a.interval or 1))
    q:close()
    return code
  end
  local dest, oerr, own = open_output(a, out)
  if not dest then say(err, "%s", oerr) q:close() return 2 end
  local w = WRITERS[fmt]()
  local head = w.header(cols, s0.timestamp)
  local n, lerr = true, nil
  if head then n, lerr = dest:write(head) end
  if n then n, lerr = dest:flush() end
  if n then
    n, lerr = sample_loop(q, s0, cols, map, w, dest, a, env.wait or schedule(perflib, a.interval or 1))
  else
    lerr = "write: " .. tostring(lerr)
  end
  if own then dest:close() end
  q:close()
  if not n then say(err, "%s", lerr) return 1 end
  return 0
end

-- `perflua list --info SET [INSTANCE]`: the set's text facts, one
-- `instance<TAB>key<TAB>value` line each, sorted (a tab sorts before any
-- character of a name: by instance, then key); 1 with a message when there
-- are none.
local function list_info(set, instance, out, err, env)
  local perflib = require "perflib"
  local m = env and env.machine or perflib.machine()
  local facts, msg = m:info(set, instance)
  if not facts then
    err:write("perflua list: ", msg, "\n")
    return 1
  end
  local by = instance and { [instance] = facts } or facts
  if perflib.counterset(set, m).instance_type == "single" then by = { [""] = facts } end
  local lines = {}
  for inst, kv in pairs(by) do
    for key, value in pairs(kv) do lines[#lines + 1] = inst .. "\t" .. key .. "\t" .. value .. "\n" end
  end
  if #lines == 0 then
    err:write(("perflua list: '%s' has no text facts here\n"):format(set))
    return 1
  end
  table.sort(lines)
  out:write(table.concat(lines))
  return 0
end

--- Runs `perflua list [PATTERN]` with parsed arguments; returns the exit status
-- (1 when nothing matches); with `info`, the text facts of that set
-- (of the instance `pattern` when given) instead.
-- @tparam table a `pattern`, `info`
-- @param out
-- @param err
-- @tparam[opt] table env `machine`
function M.run_list(a, out, err, env)
  if a.info then return list_info(a.info, a.pattern, out, err, env) end
  local n = M.list(a.pattern, out, env)
  if n == 0 then
    err:write(("perflua list: no counter matches '%s'\n"):format(tostring(a.pattern)))
    return 1
  end
  return 0
end

return M
