--- perflib.record: recordings for replay through rules.
--
-- `perflua record` and @{open} write a log of raw samples: a binary log
-- (`perflib.log_writer`; .db/.sqlite/.sqlite3 an SQLite log) of the query of
-- the recorded paths, so the values keep their exact formulas and any tool
-- that reads logs reads it (`perflib.open_log`, `perflua relog`, `perflua
-- plot`, `typeperf`'s formats through relog).  @{read} turns any log into the
-- frames the rules engine consumes, for the paths asked (`opts.paths`; the
-- rules' sources when `perflua replay` reads), computing each path's cooked
-- values from the logged raw ones with the same code as `perflua monitor`.
--
-- The JSON-lines recordings earlier perflib wrote are still read (and are the
-- easiest way to write a rule test by hand); nothing writes them any more.
-- Such a file is UTF-8 JSON lines ("\n" line ends; blank lines ignored):
--
-- Line 1, the header:
--
--    {"format":"perflib-recording","version":1,"host":"box","created":1718000000,
--     "interval":1,"perflib":"perflib 0.1.0",
--     "sources":[{"path":"\\Processor Information(*)\\% Processor Time"}]}
--
-- `format`, `version` (version 1) and `sources` (each with its `path`) are
-- required; the rest is information.  Every later line is one sample:
--
--    {"t":5968.37,"ts":1718000000.25,"seq":2,
--     "d":[{"i":["0,0","_Total"],"v":[12.5,null],"s":["valid","zero_base"],
--           "r":[16779100000,16779200000],"rs":["valid","valid"]}]}
--
-- `t` is the sample clock in seconds (it never goes backwards), `ts` the Unix
-- time of the sample, `seq` its number.  `d` has one entry per header source,
-- in header order: `i` the instance names, `v` the COOKED value of each
-- instance (the formatted value of the path's first counter; null when
-- unknown), `s` their statuses, `r` the RAW integer values, `rs` their
-- statuses.  A source that failed as a whole is `{"e":"no_instance"}`.
-- `ts`, `seq`, `s` (a number is "valid", null "no_data"), `r` and `rs` may be
-- left out.  Cooked values that are not finite are the strings "inf", "-inf"
-- and "nan".  Nothing in a recording is ever run as code: it is parsed as
-- JSON with bounded line length and nesting, and every malformed line is an
-- error naming the file and the line number.
--
-- Reading gives the engine's frame per sample:
-- `frame[path] = { instances =, value = { [name] = float }, status = { [name] = "..." } }`,
-- `frame["raw:" .. path]` the same with raw integers, and `error = ...` on
-- both for a failed source.
--
--    local record = require "perflib.record"
--    local rec = assert(record.open("cpu.blg", { "\\Processor Information(*)\\% Processor Time" }))
--    local s0
--    for _ = 1, 10 do local s1 = rec.query:collect(); rec:write(s1, s0); s0 = s1; perflib.sleep(1) end
--    rec:close()
--    local header, frames = assert(record.read("cpu.blg", { paths = rec.paths }))
--    for t, frame, ts in frames do ... end
--
-- @module perflib.record
local record = {}
local compat = require "perflib.compat"

record.FORMAT = "perflib-recording"
record.VERSION = 1
record.MAX_LINE = 16 * 1024 * 1024     -- bytes per line the reader accepts
record.MAX_DEPTH = 16                  -- JSON nesting the reader accepts

local json = require "perflib.json"

-- ---------------------------------------------------------------- JSON in

--- JSON null in what `record.decode` returns (`perflib.json`'s null).
record.NULL = json.null
local NULL = json.null

--- Parse one line of JSON (perflib.json's strict decoder): value, or nil and a
-- message with the column. JSON null is `record.NULL`; integers without fraction or
-- exponent are Lua integers.
-- @tparam string s the JSON text
-- @tparam[opt] integer max_depth nesting allowed (default `record.MAX_DEPTH`)
-- @return[1] the value
-- @return[2] nil
-- @treturn[2] string message ("column N: ...")
function record.decode(s, max_depth)
  return json.decode(s, { max_depth = max_depth or record.MAX_DEPTH, max_length = record.MAX_LINE })
end

-- ---------------------------------------------------------------- frames

--- The engine frame of a sample pair for an index `{ [path] = result index }`:
-- `frame[path]` the cooked values of the result's first counter (as `perflua
-- monitor` cooks them: `nocap`), `frame["raw:" .. path]` its raw integers.
-- @tparam Sample s1 the newer sample
-- @tparam[opt] Sample s0 the older one (nil for the first)
-- @tparam table index `{[path] = result index}`
-- @treturn table the frame (entries `{instances =, value =, status =}`, as perflib.monitor's)
function record.frame(s1, s0, index)
  local src = {}
  for path, i in pairs(index) do src[path] = { index = i } end
  return require("perflib.frame").of(s1, s0, src, true)
end

-- ---------------------------------------------------------------- writer

local Recorder = {}
Recorder.__index = Recorder

-- The sources of the paths of query q, as the header of a recording lists them:
-- `{path, counterset, instance, shape, counters = {{name, type, type_name, base, scale}}}`.
local function sources_of(q, paths, index, machine)
  local specs, out = q:specs(), {}
  for _, cp in ipairs(paths) do
    local sp = specs[index[cp]] or {}
    local cs = sp.counterset and machine:counterset(sp.counterset)
    local counters = {}
    for k, name in ipairs(sp.counters or {}) do
      local c = cs and cs:counter(name)
      counters[k] = { name = name, type = c and c.type, type_name = c and c.type_name, base = c and c.base,
                      scale = c and c.scale }
    end
    out[#out + 1] = { path = cp, counterset = sp.counterset, instance = sp.instance, shape = sp.shape,
                      counters = counters }
  end
  return out
end

-- Adds each path to q once: paths added, their result index, and the problems.
local function add_paths(q, paths)
  local added, index, problems, specs = {}, {}, {}, nil
  for _, p in ipairs(paths) do
    local cp = type(p) == "table" and p.path or p
    if type(cp) ~= "string" then error("record: a path must be a string", 3) end
    if not index[cp] then
      local i, msg, status = q:add(cp)
      if not i and status == "duplicate" then
        specs = specs or q:specs()
        for _, sp in ipairs(specs) do if sp.path == cp then i = sp.index end end
      end
      if i then
        added[#added + 1], index[cp] = cp, i
      else
        problems[#problems + 1] = { path = cp, status = status, message = msg or status }
      end
    end
  end
  return added, index, problems
end

-- The machine opts.machine names (a Machine, or options of one), else this one.
local function machine_of(perflib, m)
  if perflib.type(m) == "machine" then return m end
  if type(m) == "table" then return perflib.machine(m) end
  return perflib.machine()
end

--- The log format a file name asks for: "sqlite" for .db, .sqlite and .sqlite3, else "bin".
-- @tparam string path
-- @treturn string
function record.format_of(path)
  local ext = tostring(path):lower():match("%.([%w]+)$")
  return (ext == "db" or ext == "sqlite" or ext == "sqlite3") and "sqlite" or "bin"
end

--- Start a recording: a log of the query of `paths` (a binary log, or an
-- SQLite log for .db/.sqlite/.sqlite3 or `opts.format = "sqlite"`).
-- @param path the file to write
-- @param paths a list of counter paths, or of sources `{ path = ... }` (as from `eng:sources()`)
-- @tparam[opt] table opts `query` (an existing query to add the paths to; samples passed to
--   `write` must come from it), `machine` (options of a new `perflib.query`), `interval`
--   (information), `format` ("bin" or "sqlite"), `force` (replace an existing file: without it
--   an existing `path` is refused, so a recording is never lost to a typo), and the log
--   writer's `max_bytes`, `max_seconds`, `max_files`, `sync_every`
-- @return[1] a recorder (`rec.query`, `rec.paths`, `rec.index`, `rec.problems`: paths not
--   recorded with why, `rec.count`, `rec.header`)
-- @return[2] nil
-- @treturn[2] string message (an existing file without `force`, a file that cannot be opened)
function record.open(path, paths, opts)
  opts = opts or {}
  local perflib = require "perflib"
  if type(paths) ~= "table" then error("record.open: paths must be a list", 2) end
  local q = opts.query or perflib.query(opts.machine)
  local self = setmetatable({ query = q, own = not opts.query, count = 0, file_path = path }, Recorder)
  self.paths, self.index, self.problems = add_paths(q, paths)
  local function fail(msg)
    if self.own then q:close() end
    return nil, msg
  end
  -- renaming a path onto itself succeeds exactly when something is there (even unreadable)
  if os.rename(path, path) then
    if not opts.force then return fail(("%s exists: not overwritten (--force replaces it)"):format(path)) end
    local ok, rerr = os.remove(path)
    if not ok then return fail(("cannot replace %s: %s"):format(path, tostring(rerr))) end
  end
  local format = opts.format or record.format_of(path)
  local wopts = { max_bytes = opts.max_bytes, max_seconds = opts.max_seconds, max_files = opts.max_files,
                  sync_every = opts.sync_every }
  if format == "sqlite" then wopts.format = "sqlite" end
  local w, werr = perflib.log_writer(path, wopts)
  if not w then return fail(("cannot write %s: %s"):format(path, tostring(werr))) end
  self.writer = w
  self.header = { format = format, interval = opts.interval, perflib = perflib._VERSION, paths = self.paths,
                  sources = sources_of(q, self.paths, self.index, machine_of(perflib, opts.machine)) }
  return self
end

--- Append the sample s1 to the log; the frame of its recorded paths (cooked
-- against the older sample s0, nil for the first) is what the engine would
-- get.  A closed recorder raises.
-- @tparam Sample s1 a sample of `rec.query`
-- @tparam[opt] Sample s0 the older sample
-- @return[1] the frame (the engine's shape)
-- @return[2] nil
-- @treturn[2] string message (the disk is full: the log ends at its last whole sample)
-- @treturn[2] integer errno
function Recorder:write(s1, s0)
  if not self.writer then error("attempt to use a closed recorder", 2) end
  local ok, err, code = self.writer:write(s1)
  if not ok then return nil, err, code end
  self.count = self.count + 1
  return record.frame(s1, s0, self.index)
end

--- Close the log (and the query when the recorder made it); true or nil, message.
-- Idempotent (also `__close`).
-- @treturn[1] boolean true
-- @return[2] nil
-- @treturn[2] string message
function Recorder:close()
  local w = self.writer
  self.writer = nil
  if self.own and self.query then self.query:close() end
  self.query = self.own and nil or self.query
  if w then return w:close() end
  return true
end
Recorder.__close = Recorder.close
Recorder.__gc = function(self) if self.writer then pcall(self.writer.close, self.writer) end end

-- ---------------------------------------------------------------- reader

-- Lines of a file with a length bound: returns a function giving line, number or nil at the end.
local function lines_of(f, max)
  local buf, start, lineno, eof = "", 1, 0, false
  local CHUNK = 65536
  return function()
    local parts, len = nil, 0
    while true do
      local nl = buf:find("\n", start, true)
      if nl then
        local piece = buf:sub(start, nl - 1)
        start = nl + 1
        lineno = lineno + 1
        if len + #piece > max then return nil, lineno, "line longer than " .. max .. " bytes" end
        local line = parts and (table.concat(parts) .. piece) or piece
        return (line:gsub("\r$", "")), lineno
      end
      local rest = buf:sub(start)
      if #rest > 0 then
        parts = parts or {}
        parts[#parts + 1], len = rest, len + #rest
        if len > max then return nil, lineno + 1, "line longer than " .. max .. " bytes" end
      end
      buf, start = "", 1
      if eof then
        if parts then
          lineno = lineno + 1
          return (table.concat(parts):gsub("\r$", "")), lineno, nil, true
        end
        return nil
      end
      local chunk = f:read(CHUNK)
      if not chunk then eof = true else buf = chunk end
    end
  end
end

local function is_list(t)
  if type(t) ~= "table" or t == NULL then return false end
  local n = #t
  for k in pairs(t) do
    if compat.math_type(k) ~= "integer" or k < 1 or k > n then return false end
  end
  return true
end

local SAMPLE_KEYS = { t = true, ts = true, seq = true, d = true }
local ENTRY_KEYS = { i = true, v = true, s = true, ri = true, r = true, rs = true, e = true }
local SPECIAL = { nan = 0 / 0, inf = math.huge, ["-inf"] = -math.huge }

local function bad(fmt, ...) error(fmt:format(...), 0) end

local function check_keys(t, allowed, where)
  for k in pairs(t) do
    if not allowed[k] then bad("%s: unknown key %q", where, tostring(k)) end
  end
end

local function strings(t, n, where, what)
  if not is_list(t) or (n and #t ~= n) then
    bad("%s: `%s` must be a list of %s strings", where, what, n and tostring(n) or "")
  end
  for j = 1, #t do
    if type(t[j]) ~= "string" then bad("%s: `%s`[%d] must be a string", where, what, j) end
  end
  return t
end

-- One source of a sample line -> cooked and raw frame parts.
local function entry_frames(e, where)
  if type(e) ~= "table" or e == NULL or is_list(e) and #e > 0 then bad("%s must be an object", where) end
  check_keys(e, ENTRY_KEYS, where)
  if e.e ~= nil then
    if type(e.e) ~= "string" then bad("%s: `e` must be a string", where) end
    for k in pairs(e) do
      if k ~= "e" then bad("%s: a failed source has `e` alone, not `%s`", where, k) end
    end
    return { instances = {}, value = {}, status = {}, error = e.e },
           { instances = {}, value = {}, status = {}, error = e.e }
  end
  local inst = strings(e.i, nil, where, "i")
  local seen = {}
  for _, name in ipairs(inst) do
    if seen[name] then bad("%s: instance %q twice", where, name) end
    seen[name] = true
  end
  local function part(names, vals, sts, vkey, skey, raw)
    local f = { instances = {}, value = {}, status = {} }
    local n = #names
    if not is_list(vals) or #vals ~= n then bad("%s: `%s` must be a list of %d values", where, vkey, n) end
    if sts ~= nil then strings(sts, n, where, skey) end
    for j, name in ipairs(names) do
      f.instances[j] = name
      local v = vals[j]
      if v == NULL or v == nil then
        v = nil
      elseif type(v) == "string" and SPECIAL[v] and not raw then
        v = SPECIAL[v]
      elseif type(v) ~= "number" then
        -- beyond 2^53 before Lua 5.3, a raw count is the decimal string perflib.json decodes
        if not (raw and json.wide(v)) then bad("%s: `%s`[%d] must be a number or null", where, vkey, j) end
      elseif raw then
        local iv = compat.tointeger(v)
        if not iv then bad("%s: `%s`[%d] must be an integer", where, vkey, j) end
        v = iv
      else
        v = v + 0.0
      end
      f.value[name] = v
      f.status[name] = sts and sts[j] or (v ~= nil and "valid" or "no_data")
    end
    return f
  end
  if e.v == nil then bad("%s: `v` (the cooked values) is missing", where) end
  local cooked = part(inst, e.v, e.s, "v", "s", false)
  local raw
  if e.r ~= nil then
    local rnames = e.ri ~= nil and strings(e.ri, nil, where, "ri") or inst
    raw = part(rnames, e.r, e.rs, "r", "rs", true)
  elseif e.rs ~= nil or e.ri ~= nil then
    bad("%s: `rs` and `ri` go with `r`", where)
  end
  return cooked, raw
end

local function finite(x) return type(x) == "number" and x == x and x ~= math.huge and x ~= -math.huge end

local function parse_header(h)
  if type(h) ~= "table" or is_list(h) and #h > 0 then return nil, "the header must be a JSON object" end
  if h.format ~= record.FORMAT then
    return nil, ("not a perflib recording (format %s, expected %q)"):format(
      h.format == nil and "missing" or ("%q"):format(tostring(h.format)), record.FORMAT)
  end
  if compat.math_type(h.version) ~= "integer" then return nil, "`version` must be an integer" end
  if h.version ~= record.VERSION then
    return nil, ("unsupported recording version %d (this perflib reads version %d)"):format(h.version,
      record.VERSION)
  end
  if not is_list(h.sources) then return nil, "`sources` must be a list" end
  local seen = {}
  for k, src in ipairs(h.sources) do
    if type(src) ~= "table" or type(src.path) ~= "string" then
      return nil, ("sources[%d] needs a `path` string"):format(k)
    end
    if seen[src.path] then return nil, ("sources[%d]: %q twice"):format(k, src.path) end
    seen[src.path] = true
  end
  return h
end

local function read_recording(path, opts)
  opts = opts or {}
  local f, err = io.open(path, "rb")
  if not f then return nil, ("cannot read recording: %s"):format(tostring(err)) end
  local max = opts.max_line or record.MAX_LINE
  local next_line = lines_of(f, max)
  local function where(n) return ("%s:%d"):format(path, n) end
  local line, n, lerr
  repeat line, n, lerr = next_line() until line == nil or line:find("%S")
  if lerr then f:close(); return nil, ("%s: %s"):format(where(n), lerr) end
  if not line then f:close(); return nil, ("%s: empty recording (no header line)"):format(path) end
  local limits = { max_depth = record.MAX_DEPTH, max_length = max }
  local h, derr = json.decode(line, limits)
  if h == nil then f:close(); return nil, ("%s: bad header: %s"):format(where(n), derr) end
  local herr
  h, herr = parse_header(h)
  if not h then f:close(); return nil, ("%s: %s"):format(where(n), herr) end
  local paths = {}
  for k, src in ipairs(h.sources) do paths[k] = src.path end
  h.paths = paths
  local last_t, closed = nil, false
  local function close() if not closed then closed = true; f:close() end end
  local function step()
    if closed then return nil end
    local ln, no, e
    repeat ln, no, e = next_line() until ln == nil or ln:find("%S")
    if e then close(); error(("%s: %s"):format(where(no), e), 0) end
    if not ln then close(); return nil end
    local ok, t, frame, ts, seq = pcall(function()
      local s, m = json.decode(ln, limits)
      if s == nil then bad("%s", m) end
      if type(s) ~= "table" or is_list(s) and #s > 0 then bad("a sample line must be a JSON object") end
      check_keys(s, SAMPLE_KEYS, "sample")
      if not finite(s.t) then bad("`t` (sample time in seconds) must be a finite number") end
      if last_t and s.t < last_t then bad("`t` goes backwards (%.17g after %.17g)", s.t, last_t) end
      if s.ts ~= nil and not finite(s.ts) then bad("`ts` must be a finite number") end
      if s.seq ~= nil and compat.math_type(s.seq) ~= "integer" then bad("`seq` must be an integer") end
      if not is_list(s.d) or #s.d ~= #paths then
        bad("`d` must be a list of %d entries, one per header source", #paths)
      end
      local fr = {}
      for k, p in ipairs(paths) do
        local cooked, raw = entry_frames(s.d[k], ("d[%d] (%s)"):format(k, p))
        fr[p] = cooked
        if raw then fr["raw:" .. p] = raw end
      end
      return s.t + 0.0, fr, s.ts, s.seq
    end)
    if not ok then close(); error(("%s: %s"):format(where(no), tostring(t)), 0) end
    last_t = t
    return t, frame, ts, seq
  end
  return h, step
end

-- The magic numbers of the logs open_log reads.
local LOG_MAGIC = { "\137PLB\r\n\26\n", "SQLite format 3\0" }

--- Whether the file at path is a log `perflib.open_log` reads (by its first bytes), not a
-- JSON-lines recording.
-- @tparam string path
-- @treturn boolean
function record.is_log(path)
  local f = io.open(path, "rb")
  local head = f and f:read(16) or ""
  if f then f:close() end
  for _, m in ipairs(LOG_MAGIC) do
    if head:sub(1, #m) == m then return true end
  end
  return false
end

-- Every counter of every set of log machine m as a path (the default of a log's frames).
local function every_counter(m)
  local paths = {}
  for cs in m:countersets() do
    local multi = cs.instance_type ~= "single"
    for _, c in ipairs(cs.counters) do
      if not c.hidden then paths[#paths + 1] = "\\" .. cs.name .. (multi and "(*)" or "") .. "\\" .. c.name end
    end
  end
  return paths
end

-- A log as the header and frame iterator of read_recording.  The replay clock
-- t runs on the samples' own clock, and where that steps back (a reboot
-- between two files) on their wall-clock time, so it never goes backwards.
local function read_log(path, opts)
  local perflib = require "perflib"
  local m, err = perflib.open_log(opts.files or path, { from = opts.from, to = opts.to })
  if not m then return nil, err end
  local q = m:query()
  local wanted = opts.paths or every_counter(m)
  local paths, index, problems = add_paths(q, wanted)
  -- the engine's sources (key, raw) get the one entry each rule reads, as perflua
  -- monitor builds them; plain paths get both, cooked and raw
  local fidx, both = {}, false
  for _, p in ipairs(wanted) do
    local cp = type(p) == "table" and p.path or p
    if index[cp] then
      if type(p) == "table" and p.key then
        fidx[p.key] = { index = index[cp], raw = p.raw or false }
      else
        fidx[cp], both = { index = index[cp] }, true
      end
    end
  end
  local F = require "perflib.frame"
  local info = m:log()
  local span = info.samples > 1 and (info.last - info.first) / (info.samples - 1) or nil
  local h = { format = "perflib log", version = 2, host = info.host, created = info.created,
              perflib = info.perflib, interval = span and math.floor(span * 1000 + 0.5) / 1000,
              paths = paths, problems = problems, samples = info.samples, warning = info.warning,
              sources = sources_of(q, paths, index, m) }
  local s0, t, off, done = nil, nil, 0, false
  local function step()
    if done then return nil end
    local s1, cerr, code = q:collect()
    if not s1 then
      done = true
      q:close()
      if code == 61 then return nil end                -- ENODATA: the end of the log
      error(("%s: %s"):format(path, tostring(cerr)), 0)
    end
    local raw = s1.time / s1.freq
    if s0 and raw + off <= t then                   -- the sample clock stepped back: wall-clock time
      local dt = s1.timestamp - s0.timestamp
      off = t + (dt > 0 and dt or 0) - raw
    end
    t = raw + off
    local frame = F.of(s1, s0, fidx, both)
    s0 = s1
    return t, frame, s1.timestamp, s1.seq
  end
  return h, step
end

--- Read a recording: a log (binary or SQLite: the paths' frames computed from
-- the logged samples) or a JSON-lines recording.
-- @param path the file
-- @tparam[opt] table opts `paths` (a log: the counter paths whose frames to build, or
--   sources `{path=}`; default every counter of the log), `files` (a log: the list of
--   its files, read as one), `from`, `to` (a log: Unix seconds), `max_line` (a
--   JSON-lines recording: bytes, default `record.MAX_LINE`)
-- @return the header (a table; `header.paths` lists the source paths; a log's
--   `header.problems` the paths it cannot give) and an iterator
--   giving `t, frame, ts, seq` per sample, or nil and a message (file, header).
--   The iterator raises an error "FILE:LINE: message" on a malformed line (a log:
--   "FILE: message" on a record that fails its checks); the file closes at the end
--   or on an error (or when collected, if iteration stops early).
function record.read(path, opts)
  opts = opts or {}
  if record.is_log(path) then return read_log(path, opts) end
  return read_recording(path, opts)
end

--- Read a whole recording: header and a list of `{ t =, frame =, ts =, seq = }`,
-- or nil and a message (the first problem, with its line number).
-- @tparam string path the file
-- @tparam[opt] table opts as @{read}'s
-- @treturn[1] table the header
-- @treturn[1] {table,...} the samples
-- @return[2] nil
-- @treturn[2] string message
function record.load(path, opts)
  local h, iter = record.read(path, opts)
  if not h then return nil, iter end
  local frames = {}
  local ok, err = pcall(function()
    for t, frame, ts, seq in iter do frames[#frames + 1] = { t = t, frame = frame, ts = ts, seq = seq } end
  end)
  if not ok then return nil, tostring(err) end
  return h, frames
end

-- ---------------------------------------------------------------- perflua record

local function say(out, fmt, ...)
  out:write(fmt:format(...), "\n")
  out:flush()
end

--- Records counters to a file, `perflua record OUT PATH...`: the paths
-- (and the sources of the rules of `opts.rules`) every interval until
-- `opts.seconds` passed or TERM or INT arrives.  An existing OUT is
-- refused unless `opts.force`.
-- @tparam {string,...} pos the positional arguments: OUT, then the counter paths
-- @tparam table opts `interval` (seconds, default 1), `seconds` (default: until a signal),
--   `rules` (a rules file whose sources are recorded too), `machine`, `force`, and the
--   rotation's `max_bytes`, `max_seconds`, `max_files`
-- @tparam file out where progress goes
-- @tparam file err where problems go
-- @treturn integer the exit status: 0 recorded, 1 a collect or write failed, 2 bad arguments,
--   a rules file that does not load, a file that cannot be opened, or nothing to record
function record.main(pos, opts, out, err)
  local perflib = require "perflib"
  local target = pos[1]
  local paths = {}
  for k = 2, #pos do paths[#paths + 1] = pos[k] end
  if opts.rules then
    local R, E = require "perflib.rules", require "perflib.rules.engine"
    local set, errors = R.load(opts.rules)
    for _, e in ipairs(errors or {}) do
      say(err, "perflua: %s: %s", opts.rules, type(e) == "table" and e.message or tostring(e))
    end
    if not set then return 2 end
    for _, src in ipairs(E.new(set):sources()) do paths[#paths + 1] = src.path end
  end
  if not target or #paths == 0 then
    err:write(require("perflib.cli").usage "record")
    return 2
  end
  local interval = opts.interval or 1
  local rec, oerr = record.open(target, paths, { machine = opts.machine, interval = interval,
                                                force = opts.force, max_bytes = opts.max_bytes,
                                                max_seconds = opts.max_seconds, max_files = opts.max_files })
  if not rec then say(err, "perflua: %s", oerr); return 2 end
  for _, p in ipairs(rec.problems) do say(err, "perflua: not recorded: %s: %s", p.path, p.message) end
  if #rec.paths == 0 then
    rec:close()
    say(err, "perflua: nothing to record")
    return 2
  end
  say(out, "perflua record: %d path(s) to %s, every %g s%s", #rec.paths, target, interval,
    opts.seconds and (", for " .. opts.seconds .. " s") or ", until TERM or INT")
  perflib.trap("TERM", "INT")
  local deadline = opts.seconds and perflib.clock() + opts.seconds
  local s0, due, status = nil, perflib.clock(), 0
  while true do
    local s1, cerr = rec.query:collect()
    if not s1 then say(err, "perflua: collect: %s", tostring(cerr)); status = 1; break end
    local ok, werr = rec:write(s1, s0)
    if not ok then say(err, "perflua: %s", werr); status = 1; break end
    s0 = s1
    due = due + interval
    if deadline and perflib.clock() >= deadline then break end
    local stop = false
    repeat
      local wait = due - perflib.clock()
      if wait > 0 then perflib.sleep(wait) end
      if #perflib.trapped() > 0 then stop = true end
    until stop or due - perflib.clock() <= 0
    if stop then break end
  end
  local n = rec.count
  rec:close()
  say(out, "perflua record: %d sample(s) written to %s", n, target)
  return status
end

return record
