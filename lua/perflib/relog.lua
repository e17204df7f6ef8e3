--- `perflua relog`: logs converted like Windows' relog: binary logs (and any
-- log `perflib.open_log` reads) to a binary or SQLite log, or to typeperf's
-- CSV, TSV or JSON lines; counters filtered, a time range cut, every n-th
-- record kept, several logs merged in time order into one.
--
--    perflua relog day.blg -f CSV -o day.csv
--    perflua relog mon.blg tue.blg -c '\Processor Information(*)\% Processor Time' -t 60 -o cpu.blg
--    perflua relog day.blg -q
--
-- The input is read through `perflib.open_log`, so rates and statuses are the
-- log's own definitions at work.  BIN and SQL outputs get the raw samples
-- (`LogWriter:write` of each kept sample: formulas stay exact); CSV, TSV and
-- JSON get the formatted values exactly as `perflua typeperf` writes them,
-- and like typeperf the first kept record is the base of the first row's
-- rates (it gets no row of its own).
-- @module perflib.relog
local typeperf = require "perflib.typeperf"

local M = {}

--- The formats `-f` takes (case aside): typeperf's.
M.FORMATS = typeperf.FORMATS

--- The format an `-o` name implies when `-f` is not given, by its extension (lower case);
-- any other name is BIN.
-- @table BY_EXTENSION
M.BY_EXTENSION = { csv = "CSV", tsv = "TSV", json = "JSON", jsonl = "JSON", db = "SQL", sqlite = "SQL",
  sqlite3 = "SQL" }

--- `-f`'s converter: the format's name in capitals, or nil and a message (typeperf's).
-- @tparam string s
function M.format(s) return typeperf.format(s) end

--- `-t`'s converter: keep every N-th record, N a whole number from 1.
-- @tparam string s
function M.step(s)
  local v = tostring(s):match("^%d+$") and tonumber(s)
  if not v or v < 1 then return nil, "-t needs a whole number N >= 1 (every N-th record)" end
  return v
end

local function days_in(y, m)
  if m == 2 then return (y % 4 == 0 and (y % 100 ~= 0 or y % 400 == 0)) and 29 or 28 end
  return (m == 4 or m == 6 or m == 9 or m == 11) and 30 or 31
end

-- "h:mm[:ss[.fff]]" -> hour, minute, seconds (nil when malformed)
local function clock(s)
  local h, mi, sec = s:match("^(%d%d?):(%d%d)$")
  if not h then h, mi, sec = s:match("^(%d%d?):(%d%d):(%d%d%.?%d*)$") end
  if not h then return nil end
  return tonumber(h), tonumber(mi), tonumber(sec or 0)
end

-- The Unix time of a local date and time, or nil when a field is out of range.
local function local_time(y, mo, d, h, mi, sec)
  if not (y and mo and d and h and mi and sec) then return nil end
  if mo < 1 or mo > 12 or d < 1 or d > days_in(y, mo) or h > 23 or mi > 59 or sec >= 60 then return nil end
  local whole = math.floor(sec)
  local t = os.time { year = y, month = mo, day = d, hour = h, min = mi, sec = whole }
  return t and t + (sec - whole)
end

-- A date with an optional time of day: relog's "M/d/yyyy[ h:mm[:ss]][AM|PM]" (us) or ISO
-- "yyyy-mm-dd[Thh:mm[:ss]]" (a space for the T too).
local function date_time(s, us)
  local a, b, c, rest = s:match(us and "^(%d%d?)/(%d%d?)/(%d%d%d%d)(.*)$" or "^(%d%d%d%d)%-(%d%d)%-(%d%d)(.*)$")
  if not a then return nil end
  local y, mo, d = tonumber(a), tonumber(b), tonumber(c)
  if us then y, mo, d = tonumber(c), tonumber(a), tonumber(b) end
  local h, mi, sec = 0, 0, 0
  if rest ~= "" then
    local hm, ap = rest:match(us and "^%s+([%d:.]+)%s*([AaPp][Mm])$" or "^$")
    hm = hm or rest:match(us and "^%s+([%d:.]+)$" or "^[T ]([%d:.]+)$")
    if not hm then return nil end
    h, mi, sec = clock(hm)
    if ap and h then
      if h < 1 or h > 12 then return nil end
      h = h % 12 + (ap:upper() == "PM" and 12 or 0)
    end
  end
  return local_time(y, mo, d, h, mi, sec)
end

--- `-b`/`-e`'s converter: relog's `M/d/yyyy h:mm:ss[AM|PM]`, ISO `yyyy-mm-dd[Thh:mm[:ss]]`
-- (both in local time; the time of day may be left out: midnight) or `@UNIX` seconds, to
-- Unix seconds; nil and a message naming the option otherwise.
-- @tparam string s
-- @tparam[opt="-b"] string name the option, for the message
-- @treturn[1] number
-- @return[2] nil
-- @treturn[2] string
function M.time(s, name)
  s = tostring(s):gsub("^%s+", ""):gsub("%s+$", "")
  local u = s:match("^@(%d+%.?%d*)$")
  local t = (u and tonumber(u)) or date_time(s, true) or date_time(s, false)
  if not t then
    return nil, ("%s %s: needs M/d/yyyy h:mm:ss[AM|PM] or yyyy-mm-dd[Thh:mm:ss] (local time), or @UNIX-SECONDS")
      :format(name or "-b", s)
  end
  return t
end

local function say(err, fmt, ...)
  err:write("perflua relog: ", fmt:format(...), "\n")
end

local sets = typeperf.sets

-- "MM/DD/YYYY HH:MM:SS" local time, as typeperf stamps its rows.
local function stamp(ts)
  return ts and os.date("%m/%d/%Y %H:%M:%S", math.floor(ts)) or "-"
end

--- `perflua relog -q`: what the log holds, as lines: the files, host, time range, samples,
-- then each counterset (its name, kind and instances) with its counters as paths.
-- @param m a machine of `perflib.open_log`
-- @tparam {string,...} inputs the files' names
-- @param out where the lines go
function M.describe(m, inputs, out)
  local info = m:log()
  if not info then error("bad argument #1 to 'describe' (a machine of perflib.open_log expected)", 2) end
  out:write("Files:      ", tostring(info.files), ": ", table.concat(inputs, " "), "\n")
  out:write("Host:       ", tostring(info.host), " (perflib ", tostring(info.perflib), ")\n")
  out:write(("Begin:      %s (@%.3f)\n"):format(stamp(info.first), info.first or 0))
  out:write(("End:        %s (@%.3f)\n"):format(stamp(info.last), info.last or 0))
  out:write("Samples:    ", tostring(info.samples), "\n")
  if info.warning then out:write("Warning:    ", info.warning, "\n") end
  for _, cs in ipairs(sets(m)) do
    local insts = {}
    if cs.instance_type ~= "single" then
      for k, i in ipairs(cs:instances() or {}) do insts[k] = i.name end
    end
    out:write("\n", cs.name, " (", cs.instance_type,
      #insts > 0 and (": " .. table.concat(insts, ", ")) or "", ")\n")
    local inst = cs.instance_type ~= "single" and "*" or ""
    for _, c in ipairs(cs.counters) do
      if not c.hidden then out:write("  \\\\", tostring(info.host), typeperf.path(cs.name, inst, c.name), "\n") end
    end
  end
end

-- The counter paths: -c (each a list), -cf FILE (one a line, # comments), or every
-- counter of every set of the log; a leading \\machine is dropped (the log is the machine).
local function gather(a, m)
  local flat = {}
  for _, c in ipairs(a.counters or {}) do
    for _, p in ipairs(type(c) == "table" and c or { c }) do flat[#flat + 1] = p end
  end
  local paths, msg = typeperf.paths { counters = flat, counter_file = a.counter_file }
  if not paths then return nil, msg end
  local default = #paths == 0
  if default then
    for _, cs in ipairs(sets(m)) do
      paths[#paths + 1] = typeperf.path(cs.name, cs.instance_type ~= "single" and "*" or "", "*")
    end
  end
  for i, p in ipairs(paths) do paths[i] = p:gsub("^\\\\[^\\]*", "") end
  return paths, nil, default
end

-- Several inputs must follow each other in time: nil, or a message naming the two that do not.
local function out_of_order(inputs)
  local last, prev
  for _, p in ipairs(inputs) do
    local m, msg = require("perflib").open_log(p)
    if not m then return msg end
    local info = m:log()
    if last and info.first and info.first < last then
      return ("%s starts (%s) before %s ends (%s): give the logs in time order"):format(p, stamp(info.first),
        prev, stamp(last))
    end
    last, prev = info.last or last, p
  end
end

-- The output's writer: log_writer for BIN/SQL, typeperf's rows for the others.
local function open_writer(fmt, a, q, s0, host, err, quiet)
  if fmt == "BIN" or fmt == "SQL" then
    if a.force then os.remove(a.output) end
    -- format only for SQL: a log_writer without SQLite logs raises for the option (said, exit 2)
    local ok, w, msg = pcall(require("perflib").log_writer, a.output, fmt == "SQL" and { format = "sqlite" } or nil)
    if not ok then return nil, ("-f %s: %s"):format(fmt, tostring(w):gsub("^[^:]*:%d+: ", "")) end
    if not w then return nil, msg end
    return { write = function(s) return w:write(s) end, close = function() return w:close() end }
  end
  local f, msg = io.open(a.output, "w")
  if not f then return nil, ("cannot write %s: %s"):format(a.output, tostring(msg)) end
  local rows = typeperf.writer(fmt, q, s0, host, function(m) if not quiet then say(err, "%s", m) end end)
  if rows.ncols == 0 then
    f:close()
    os.remove(a.output)
    return nil, "no counter of the log matches: no column to write"
  end
  local prev = s0
  local function put(text)
    if not text then return true end
    local ok, werr = f:write(text)
    if not ok then return nil, "write: " .. tostring(werr) end
    return true
  end
  local ok, herr = put(rows.header())
  if not ok then f:close() return nil, herr end
  return {
    base = true,                                  -- s0 is the rates' base: no row
    write = function(s)
      local r, werr = put(rows.row(s, prev))
      prev = s
      return r, werr
    end,
    close = function() return f:close() end,
  }
end

-- Reads every kept sample (every step-th in range) into the writer opened at the first:
-- rows written, samples read and a failure's message (or nil); nil, message when the output
-- cannot be made.
local function convert(q, fmt, a, host, err, quiet)
  local w, prev, spare, n, rows, fail = nil, nil, nil, 0, 0, nil
  local step = a.step or 1
  while true do
    local s, msg, code = q:collect(spare)     -- spare is never prev: the rates' base stays
    if not s then
      if code ~= 61 then fail = tostring(msg) end
      break
    end
    n = n + 1
    if (n - 1) % step ~= 0 then
      spare = s
    else
      local first = not w
      if first then
        local werr
        w, werr = open_writer(fmt, a, q, s, host, err, quiet)
        if not w then return nil, werr end
      end
      if not (first and w.base) then
        local ok, werr = w.write(s)
        if not ok then fail = tostring(werr) break end
        rows = rows + 1
      end
      spare, prev = prev, s
    end
  end
  if w then
    local ok, cerr = w.close()
    if not ok and not fail then fail = "close: " .. tostring(cerr) end
  end
  return rows, n, fail
end

-- The query of the paths that the log has; the others are said and left out.
local function build_query(m, paths, err)
  local q, n = m:query(), 0
  for _, p in ipairs(paths) do
    local i, msg = q:add(p)
    if i then n = n + 1 else say(err, "%s: %s (left out)", p, tostring(msg)) end
  end
  return q, n
end

local function refused(a)
  if not a.force and os.rename(a.output, a.output) then
    return ("%s exists: not overwritten (-y replaces it)"):format(a.output)
  end
  for _, p in ipairs(a.inputs) do
    if p == a.output then return ("-o %s is an input: write elsewhere"):format(p) end
  end
end

-- The machine of the inputs in [-b, -e], or nil, a message.
local function open_inputs(a)
  if a.begin and a["end"] and a.begin > a["end"] then return nil, "-b is after -e: an empty time range" end
  if #a.inputs > 1 then
    local bad = out_of_order(a.inputs)
    if bad then return nil, bad end
  end
  return require("perflib").open_log(#a.inputs == 1 and a.inputs[1] or a.inputs, { from = a.begin, to = a["end"] })
end

-- -q: the description, to -o (refused when it exists, unless -y) or out.
local function run_query(m, a, out, err)
  local dest = out
  if a.output then
    local no = refused(a)
    if no then say(err, "%s", no) return 2 end
    local f, msg = io.open(a.output, "w")
    if not f then say(err, "cannot write %s: %s", a.output, tostring(msg)) return 2 end
    dest = f
  end
  M.describe(m, a.inputs, dest)
  if dest ~= out then dest:close() end
  return 0
end

--- Runs `perflua relog` with parsed arguments; returns the exit status.
-- @tparam table a `inputs`, `counters` (paths, or lists of paths), `counter_file`, `format`,
--   `output`, `begin`, `end` (Unix seconds), `step`, `force`, `query`
-- @param out standard output (a line saying what was written, or the -q description)
-- @param err standard error
-- @treturn integer 0; 1 a failure while converting (a read or write error, no sample in the
--   range); 2 a bad command line, an input that is not a readable log or not in time order,
--   no counter of the log matching, an existing OUT without -y, an output that cannot be made
function M.run(a, out, err)
  if #(a.inputs or {}) == 0 or (not a.output and not a.query) then
    err:write(require("perflib.cli").usage "relog")
    return 2
  end
  local m, merr = open_inputs(a)
  if not m then say(err, "%s", tostring(merr)) return 2 end
  local info = m:log()
  if info.warning then say(err, "%s", info.warning) end
  if a.query then return run_query(m, a, out, err) end
  local fmt = a.format or M.BY_EXTENSION[(a.output:match("%.(%w+)$") or ""):lower()] or "BIN"
  local no = refused(a)
  if no then say(err, "%s", no) return 2 end
  local paths, perr, default = gather(a, m)
  if not paths then say(err, "%s", perr) return 2 end
  local q, valid = build_query(m, paths, err)
  if valid == 0 then say(err, "no counter of the log matches") q:close() return 2 end
  local rows, n, fail = convert(q, fmt, a, info.host or "localhost", err, default)   -- default: sets without
  -- instances in the first sample get no column and no warning
  q:close()
  if not rows then say(err, "%s", tostring(n)) return 2 end
  if fail then say(err, "%s", fail) return 1 end
  if n == 0 then say(err, "no sample in the time range: %s not written", a.output) return 1 end
  out:write(("%s: %d record%s (%s) from %d sample%s\n"):format(a.output, rows, rows == 1 and "" or "s", fmt, n,
    n == 1 and "" or "s"))
  return 0
end

return M
