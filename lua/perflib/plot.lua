--- `perflua plot`: counters of a log over time as a PNG or SVG chart, drawn by gnuplot.
--
--    perflua plot cpu.rec -o cpu.png
--    perflua plot out.csv '\Processor Information(*)\% Processor Time' -o cpu.svg --rules rules.lua
--
-- A log is read by the first reader of @{READERS} whose `detect` accepts the
-- file's first bytes (content decides, never the name): a perflib recording
-- (`perflua record`) or a typeperf CSV/TSV file (`perflua typeperf`, Windows'
-- typeperf). A reader returns a list of series, `{ path =, counterset =,
-- counter =, instance =, unit =, points = { {t, v}, ... } }`, `t` in Unix
-- seconds and `v` a number or nil (a gap: no valid value then); a new log
-- format plugs in as one more entry of @{READERS}.
--
-- The series are grouped into one panel per unit (the counter's formatted
-- unit on this machine: percent, bytes, bytes/s, MHz, count ...), stacked
-- with one time axis in local time; each series is a line with a legend
-- entry. With rules, the recording goes through `perflib.replay` and the
-- episodes each alert spent pending or firing are shaded across the panels.
-- The points go to a data file and the drawing to a gnuplot script, in a
-- temporary directory (or `--keep DIR`); gnuplot runs as a child process
-- without a shell, with a timeout. Names from the log are untrusted: they
-- reach gnuplot only inside single-quoted strings (@{escape}) and the text
-- is drawn `noenhanced`, so `_`, `^`, `@` and `{}` show as they are.
-- @module perflib.plot
local compat = require "perflib.compat"

local M = {}

--- The command that installs gnuplot on Debian, as the message says it when gnuplot is missing.
M.APT = "apt-get install gnuplot-nox"

--- Seconds gnuplot may take before it is killed (`env.timeout` overrides).
M.TIMEOUT = 60

--- Output formats by the extension of `-o` (lower case): gnuplot's terminal for each.
-- @table TERMINALS
M.TERMINALS = {
  png = "pngcairo size %d,%d noenhanced font 'sans,9' background '#ffffff'",
  svg = "svg size %d,%d dynamic noenhanced font 'sans,10' background '#ffffff'",
}

-- ------------------------------------------------------------------ time ---

-- Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
local function days(y, m, d)
  if m <= 2 then y = y - 1 end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local mp = (m + 9) % 12
  local doy = math.floor((153 * mp + 2) / 5) + d - 1
  local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
end

local function timegm(y, mo, d, h, mi, s)
  return days(y, mo, d) * 86400 + h * 3600 + mi * 60 + s
end

-- Seconds local time is ahead of UTC at Unix time ts (this machine's zone: the
-- bias typeperf's header states, negated), by quarter hour: zones change their
-- offset on quarter hours, and os.date is slow.
local offsets = {}
local function utc_offset(ts)
  local q = math.floor(ts / 900)
  local off = offsets[q]
  if not off then
    local _, bias = require("perflib.typeperf").zone(q * 900)
    off = -bias * 60
    offsets[q] = off
  end
  return off
end

-- Numbers in the fewest digits that read back the same (the data file is exact: JSON's
-- number text, perflib.json); the readers keep only finite values, a gap is NaN.
local shortest = require("perflib.json").number
local function num(x)
  if x == nil or x ~= x then return "NaN" end
  return shortest(x)
end

-- ------------------------------------------------------------ paths, units ---

-- `\\host\Set(inst)\Counter` or `\Set\Counter` -> set, instance ("" for none), counter.
local function split_path(p)
  p = p:gsub("^\\\\[^\\]*", "")
  local head, counter = p:match("^\\(.*)\\([^\\]*)$")
  if not head then return nil end
  local set, inst = head:match("^([^(]*)%((.*)%)$")
  if not set then return head, "", counter end
  return set, inst, counter
end

local path_of = require("perflib.typeperf").path

-- The unit a panel is labelled with: the counter's formatted unit on this machine, or on
-- machine (a binary log's: its own definitions) when given.
local function unit_of(perflib, set, counter, machine)
  local cs = set and (machine and machine:counterset(set) or not machine and perflib.counterset(set))
  local c = cs and counter and cs:counter(counter)
  if not c then return "value" end
  local f = c.formatted_unit or ""
  if f == "" then return c.unit ~= "none" and c.unit or "value" end
  if f:sub(1, 1) == "/" then return (c.unit ~= "none" and c.unit or "") .. f end
  return f
end

-- A counter path with * and ? as a matcher of paths (case aside, host dropped).
local function glob(pattern)
  local pat = pattern:gsub("^\\\\[^\\]*", ""):lower():gsub("[%^%$%(%)%%%.%[%]%+%-]", "%%%0")
  pat = "^" .. pat:gsub("%*", ".*"):gsub("%?", ".") .. "$"
  return function(p) return p:lower():find(pat) ~= nil end
end

-- ----------------------------------------------------------------- readers ---

local function new_series(perflib, set, inst, counter, machine)
  return { path = path_of(set, inst, counter), counterset = set, counter = counter, instance = inst,
           unit = unit_of(perflib, set, counter, machine), points = {} }
end

-- The series of a recording and a clock for the replay's events (ts, or the
-- header's `created` plus the sample seconds when the recording has no ts).
local function read_recording(path, perflib)
  local record = require "perflib.record"
  local header, frames = record.load(path)
  if not header then return nil, frames end
  local t0 = frames[1] and frames[1].t
  local created = type(header.created) == "number" and header.created or 0
  local function time_of(t, ts) return ts or (created + t - t0) end
  local names = {}                  -- per source: its set and (first) counter
  for k, src in ipairs(header.sources) do
    local set, _, counter = split_path(src.path)
    local cs = type(src.counters) == "table" and src.counters[1]
    names[k] = { type(src.counterset) == "string" and src.counterset or set or src.path,
                 cs and type(cs.name) == "string" and cs.name or counter or "" }
  end
  local list, by, at = {}, {}, {}   -- by[source path] = { of = { [instance] = series }, all = list };
  for n, fr in ipairs(frames) do     -- at[series] = the last frame with its instance
    local when = time_of(fr.t, fr.ts)
    for k, src in ipairs(header.sources) do
      local e = fr.frame[src.path]
      local mine = by[src.path] or { of = {}, all = {} }
      by[src.path] = mine
      for _, inst in ipairs(e.instances) do
        local s = mine.of[inst]
        if not s then
          s = new_series(perflib, names[k][1], inst, names[k][2])
          mine.of[inst], list[#list + 1], mine.all[#mine.all + 1] = s, s, s
        end
        at[s] = n
        local v = e.value[inst]
        if e.status[inst] ~= "valid" or v ~= v or v == math.huge or v == -math.huge then v = nil end
        s.points[#s.points + 1] = { when, v }
      end
      for _, s in ipairs(mine.all) do   -- an instance gone from this frame: a gap
        if at[s] ~= n then s.points[#s.points + 1] = { when, nil } end
      end
    end
  end
  return list, { frames = #frames, time_of = time_of }
end

-- The fields of one CSV/TSV line ("" doubles a quote inside quotes).
local function fields(line, sep)
  local out, i, n = {}, 1, #line
  while i <= n + 1 do
    if line:sub(i, i) == '"' then
      local buf, j = {}, i + 1
      while true do
        local q = line:find('"', j, true)
        if not q then return nil, "an unterminated quote" end
        buf[#buf + 1] = line:sub(j, q - 1)
        if line:sub(q + 1, q + 1) == '"' then
          buf[#buf + 1], j = '"', q + 2
        else
          i = q + 1
          break
        end
      end
      out[#out + 1] = table.concat(buf)
      if i <= n and line:sub(i, i) ~= sep then return nil, "text after a closing quote" end
    else
      local e = line:find(sep, i, true) or n + 1
      out[#out + 1] = line:sub(i, e - 1)
      i = e
    end
    i = i + 1
  end
  return out
end

-- "MM/DD/YYYY HH:MM:SS.mmm" (local time of the writer, bias minutes: UTC = local + bias) -> Unix time.
local function csv_time(s, bias)
  local mo, d, y, h, mi, sec = s:match("^(%d%d?)/(%d%d?)/(%d%d%d%d) (%d%d?):(%d%d):(%d%d%.?%d*)$")
  if not mo then return nil end
  local whole = math.floor(tonumber(sec))
  local t = timegm(tonumber(y), tonumber(mo), tonumber(d), tonumber(h), tonumber(mi), whole)
  if bias then return t + bias * 60 + (tonumber(sec) - whole) end
  return t - utc_offset(t) + (tonumber(sec) - whole)      -- no bias in the header: this machine's zone
end

local function read_delimited(path, perflib, sep)
  local f, ferr = io.open(path, "rb")
  if not f then return nil, ("cannot read %s: %s"):format(path, tostring(ferr)) end
  local list, bias, n, ncol = {}, nil, 0, nil
  local function fail(msg) f:close() return nil, ("%s:%d: %s"):format(path, n, msg) end
  for line in f:lines() do
    n = n + 1
    line = line:gsub("\r$", "")
    if n == 1 then line = line:gsub("^\239\187\191", "") end
    if line:find("%S") then
      local row, perr = fields(line, sep)
      if not row then return fail(perr) end
      if not ncol then
        ncol = #row
        bias = tonumber(row[1]:match("%((%-?%d+)%)%s*$"))
        for k = 2, ncol do
          local set, inst, counter = split_path(row[k])
          if not set then return fail(("column %d: %q is not a counter path"):format(k, row[k])) end
          list[k - 1] = new_series(perflib, set, inst, counter)
        end
      else
        if #row ~= ncol then return fail(("%d fields, the header has %d"):format(#row, ncol)) end
        local t = csv_time(row[1], bias)
        if not t then return fail(("%q is not a time MM/DD/YYYY HH:MM:SS.mmm"):format(row[1])) end
        for k = 2, ncol do
          local cell = row[k]:match("^%s*(.-)%s*$")
          local v = tonumber(cell)
          if cell ~= "" and not v then return fail(("column %d: %q is not a number"):format(k, row[k])) end
          if v and (v ~= v or v == math.huge or v == -math.huge) then v = nil end   -- 1e999: no value
          local pts = list[k - 1].points
          pts[#pts + 1] = { t, v }
        end
      end
    end
  end
  f:close()
  return list, { frames = ncol and n - 1 or 0 }
end

--- Series a binary log gives without PATHs when it holds more than this many values (a Global
-- log holds thousands): each counterset's first counter then, its `_Total` instance where it has one
-- (a set without `_Total` and with more than 8 instances, such as Process, is left out).
M.MAX_DEFAULT = 40

-- The series of a binary log (perflib.plot_binlog: through perflib.open_log).
local function read_binlog(path, perflib, paths)
  return require("perflib.plot_binlog").read(path, perflib, paths, { new_series = new_series, glob = glob,
    split_path = split_path, max = M.MAX_DEFAULT })
end

--- The readers of logs, tried in order:
-- `{ name =, detect = function(head), read = function(path, perflib, paths) }`.
-- `detect` gets the file's first bytes (up to 64 KiB) and says whether the file is its format;
-- `read` (paths: the PATH filters, or nil) returns the list of series and a table (`frames`:
-- samples read; `time_of(t, ts)`: Unix time of a recording's sample clock, for the replay's
-- events; `warning`, `note`: said on stderr), or nil and a message.
-- A new log format plugs in here.
-- @table READERS
M.READERS = {
  { name = "recording", detect = function(head) return head:find("^%s*{") ~= nil end, read = read_recording },
  { name = "typeperf CSV", detect = function(head) return head:find('^\239?\187?\191?"%(PDH%-CSV 4%.0%)') ~= nil end,
    read = function(path, perflib) return read_delimited(path, perflib, ",") end },
  { name = "typeperf TSV", detect = function(head) return head:find('^\239?\187?\191?"%(PDH%-TSV 4%.0%)') ~= nil end,
    read = function(path, perflib) return read_delimited(path, perflib, "\t") end },
  { name = "binary log", detect = function(head) return head:sub(1, 8) == "\137PLB\r\n\26\n" end,
    read = read_binlog },
  { name = "SQLite log", detect = function(head) return head:sub(1, 16) == "SQLite format 3\0" end,
    read = read_binlog },                -- open_log reads both
}

--- Reads a log of any known format (detected by its content).
-- @tparam string path the file
-- @tparam[opt] {string,...} paths the counter paths wanted (a reader may read only those; the
--   series are filtered by them afterwards anyway)
-- @treturn[1] {table,...} the series (see the module's description)
-- @treturn[1] table what the reader adds: `kind` (the reader's name), `frames`, `time_of`
-- @return[2] nil
-- @treturn[2] string message naming the file
function M.read(path, paths)
  if type(path) ~= "string" then error("bad argument #1 to 'read' (a file name expected)", 2) end
  local f, err = io.open(path, "rb")
  if not f then return nil, ("cannot read %s: %s"):format(path, tostring(err)) end
  local head = f:read(65536) or ""
  f:close()
  if head == "" then return nil, ("%s is empty: not a recording or a typeperf CSV"):format(path) end
  for _, r in ipairs(M.READERS) do
    if r.detect(head) then
      local list, info = r.read(path, require "perflib", paths)
      if not list then return nil, info end
      info.kind = r.name
      return list, info
    end
  end
  return nil, ("%s is neither a perflib recording, a binary or SQLite log nor a typeperf CSV/TSV file")
    :format(path)
end

-- ------------------------------------------------------------------ gnuplot ---

local CTRL = { ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }

--- A text as a gnuplot string literal that shows it as it is: single quotes
-- (backslashes mean nothing there; a quote is doubled), control characters
-- as `\n`, `\t`, `\xHH`, bytes that are not UTF-8 as `\xHH`.
-- @tparam string s
-- @treturn string the literal, quotes included
function M.escape(s)
  if type(s) ~= "string" then error("bad argument #1 to 'escape' (a string expected)", 2) end
  if not compat.utf8.len(s) then
    s = s:gsub("[\128-\255]", function(c) return ("\\x%02X"):format(c:byte()) end)
  end
  s = s:gsub("%c", function(c) return CTRL[c] or ("\\x%02X"):format(c:byte()) end)
  return "'" .. s:gsub("'", "''") .. "'"
end

-- A legend entry of at most max characters (a longer name is cut in the middle with "...":
-- the end tells apart names that share a long start, "% Some Stall Time (cpu)" and "(io)").
local function cut(text, max)
  if #text > max then
    local tail = math.min(12, math.floor(max / 3))
    text = text:sub(1, max - 3 - tail) .. "..." .. text:sub(-tail)
  end
  return M.escape(text)
end

-- A series' legend entry: its instance, or its counter and instance when the panel has
-- several counters, its set's name first when they come from several sets (UDPv4, UDPv6 ...).
local function label(s, several, sets, max)
  local head = sets and (s.counterset .. ": ") or ""
  return cut(head .. (several and (s.counter .. (s.instance ~= "" and (" (" .. s.instance .. ")") or ""))
    or (s.instance ~= "" and s.instance or s.counter)), max)
end

-- The series grouped by unit, in order of first appearance; a panel's title
-- names its counter when it has one.
local function panels(list)
  local out, by = {}, {}
  for _, s in ipairs(list) do
    local p = by[s.unit]
    if not p then
      p = { unit = s.unit, series = {}, counters = {}, ncounters = 0, sets = {}, nsets = 0 }
      by[s.unit], out[#out + 1] = p, p
    end
    p.series[#p.series + 1] = s
    for _, pt in ipairs(s.points) do
      if pt[2] and math.abs(pt[2]) > (p.max or 0) then p.max = math.abs(pt[2]) end
    end
    local c = path_of(s.counterset, "", s.counter)
    if not p.counters[c] then p.counters[c], p.ncounters, p.counter = true, p.ncounters + 1, c end
    if not p.sets[s.counterset] then p.sets[s.counterset], p.nsets = true, p.nsets + 1 end
  end
  return out
end

-- Writes the data file: one block per series (blank lines between), each line
-- `unix_time local_time value` (local time: Unix time plus this zone's offset,
-- what gnuplot's time axis shows; NaN where the series has a gap).
local function write_data(file, list)
  local f, err = io.open(file, "wb")
  if not f then return nil, ("cannot write %s: %s"):format(file, tostring(err)) end
  for i, s in ipairs(list) do
    if i > 1 then f:write("\n\n") end
    f:write("# ", M.escape(s.path), "\n")
    for _, p in ipairs(s.points) do
      f:write(num(p[1]), " ", num(p[1] + utc_offset(p[1])), " ", num(p[2]), "\n")
    end
  end
  local ok, werr = f:close()
  if not ok then return nil, ("cannot write %s: %s"):format(file, tostring(werr)) end
  return true
end

-- Steps of the time axis' tics, in seconds: whole seconds, minutes, hours, days.
local TICS = { 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
               172800, 604800, 2592000 }

-- The time range of the chart (local seconds) and the axis format for its span.
local function x_axis(list, max_tics)
  local lo, hi = math.huge, -math.huge
  for _, s in ipairs(list) do
    for _, p in ipairs(s.points) do
      local t = p[1] + utc_offset(p[1])
      if t < lo then lo = t end
      if t > hi then hi = t end
    end
  end
  if hi - lo < 1 then lo, hi = lo - 30, hi + 30 end
  local span = hi - lo
  local fmt = span <= 3600 and "%H:%M:%S" or span <= 2 * 86400 and "%H:%M" or "%m-%d %H:%M"
  local step = TICS[#TICS]
  for _, t in ipairs(TICS) do
    if span / t <= max_tics then step = t break end
  end
  return lo, hi, fmt, step
end

local BAND_COLOURS = { "#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf" }
-- Pending hatched, firing filled: the states stay apart where episodes overlap.
local BAND_FILL = { pending = "fs transparent pattern 5", firing = "fs transparent solid 0.25" }

-- The rule's shaded rectangles of one panel.
local function band_lines(g, bands)
  for i, b in ipairs(bands) do
    g[#g + 1] = ("set object %d rect from %s, graph 0 to %s, graph 1 behind fc rgb '%s' %s noborder")
      :format(i, num(b.x0), num(b.x1), b.colour, BAND_FILL[b.state])
  end
end

-- The power of 1000 a panel's values are shown in (1e6: "1.5" for 1500000).
local function scale_of(max)
  local sc, e = 1, 0
  while max / sc >= 1e4 and e < 18 do sc, e = sc * 1000, e + 3 end
  return sc, e
end

-- The plot command of one panel; the first also carries the bands' legend.
local function plot_line(p, data, index, legend, max)
  local items = {}
  for _, s in ipairs(p.series) do
    local style = #s.points <= 60 and "linespoints pt 7 ps 0.5" or "lines"
    local y = p.scale > 1 and ("($3/%s)"):format(num(p.scale)) or "3"
    items[#items + 1] = ("%s index %d using 2:%s with %s lw 1.5 title %s"):format(M.escape(data), index[s], y, style,
      label(s, p.ncounters > 1, p.nsets > 1, max))
  end
  for _, l in ipairs(legend or {}) do
    items[#items + 1] = ("NaN with boxes %s noborder fc rgb '%s' title %s"):format(BAND_FILL[l.state],
      l.colour, M.escape(l.rule .. " " .. l.state))
  end
  return "plot " .. table.concat(items, ", \\\n     ")
end

-- The lines of panel k of n: its place, axis labels, legend, bands and plot command.
local function panel_lines(g, p, k, n, c)
  local h = c.h
  g[#g + 1] = ("set tmargin at screen %.4f"):format(c.top - (k - 1) * c.step)
  g[#g + 1] = ("set bmargin at screen %.4f"):format(c.top - k * c.step + 18 / h)
  local e
  p.scale, e = scale_of(p.max or 0)
  g[#g + 1] = "set ylabel " .. M.escape(p.unit .. (e > 0 and (" (×1e%d)"):format(e) or ""))
  g[#g + 1] = ("set key title %s left at screen %.4f, graph 1 left top"):format(
    cut(p.ncounters == 1 and p.counter or (p.ncounters .. " counters"), c.chars), 1 - (c.key_w - 15) / c.w)
  if k == n then
    g[#g + 1] = "set xlabel " .. M.escape(os.date("!local time, %Y-%m-%d", math.floor(c.lo)) .. " (" .. c.zone .. ")")
    g[#g + 1] = ("set format x '%s' timedate"):format(c.fmt)
  else
    g[#g + 1] = "unset xlabel"
    g[#g + 1] = "set format x ''"                 -- one time axis: its labels under the last panel only
  end
  band_lines(g, c.bands)
  g[#g + 1] = plot_line(p, c.data, c.index, k == 1 and c.legend or nil, c.chars - 4)
  g[#g + 1] = "unset object"
end

-- "UTC+02:00" for an offset in seconds.
local function zone_name(off)
  return ("UTC%s%02d:%02d"):format(off < 0 and "-" or "+", math.floor(math.abs(off) / 3600),
    math.floor(math.abs(off) % 3600 / 60))
end

-- The gnuplot script: one panel per unit, stacked, one time axis.
local function script(list, opts)
  local ps, index = panels(list), {}
  for i, s in ipairs(list) do index[s] = i - 1 end
  local w, h = opts.width, opts.height
  local key_w = math.min(320, math.floor(w * 0.35))           -- the legends' column, right of the panels
  local lo, hi, fmt, step_x = x_axis(list, math.max(2, math.floor((w - key_w - 90) / 90)))
  local top, bottom = 1 - 44 / h, 56 / h
  local c = { w = w, h = h, key_w = key_w, chars = math.floor((key_w - 30) / 6.5), lo = lo, fmt = fmt,
              top = top, step = (top - bottom) / #ps, zone = zone_name(utc_offset(lo)), bands = opts.bands or {},
              data = opts.data, index = index, legend = opts.legend }
  local g = {
    "set terminal " .. M.TERMINALS[opts.ext]:format(w, h),
    "set output " .. M.escape(opts.chart),
    "set xdata time", "set timefmt '%s'",
    ("set xrange [%s:%s]"):format(num(lo), num(hi)),
    ("set xtics %s, %d"):format(num(math.ceil(lo / step_x) * step_x), step_x),
    "set grid", "set key vertical Left reverse samplen 2 spacing 1.1", "set offsets 0, 0, graph 0.05, graph 0.05",
    ("set lmargin at screen %.4f"):format(90 / w), ("set rmargin at screen %.4f"):format(1 - key_w / w),
    "set multiplot title " .. M.escape(opts.title),
  }
  for k, p in ipairs(ps) do panel_lines(g, p, k, #ps, c) end
  g[#g + 1] = "unset multiplot"
  return table.concat(g, "\n") .. "\n"
end

-- ------------------------------------------------------------------- rules ---

local function identity(labels)
  local keys = {}
  for k, v in pairs(labels or {}) do
    if k ~= "severity" then keys[#keys + 1] = k .. "=" .. tostring(v) end
  end
  table.sort(keys)
  return table.concat(keys, ",")
end

-- Episodes pending and firing of every alert, in local seconds, and the legend (one per rule and state).
local function bands(report, time_of)
  local open, out, legend, colour, nrules = {}, {}, {}, {}, 0
  local function local_time(t, ts)
    local u = time_of(t, ts)
    return u + utc_offset(u)
  end
  local function close(o, x1)
    if not colour[o.rule] then
      nrules = nrules + 1
      colour[o.rule] = BAND_COLOURS[(nrules - 1) % #BAND_COLOURS + 1]
    end
    out[#out + 1] = { x0 = o.x0, x1 = x1, state = o.state, colour = colour[o.rule], rule = o.rule }
    local lk = o.rule .. "\0" .. o.state
    if not legend[lk] then
      legend[lk] = true
      legend[#legend + 1] = { rule = o.rule, state = o.state, colour = colour[o.rule] }
    end
  end
  for _, ev in ipairs(report.timeline) do
    if ev.kind == "transition" and ev.from ~= ev.to then
      local key = ev.rule .. "{" .. identity(ev.labels) .. "}"
      local x = local_time(ev.t, ev.ts)
      if open[key] then close(open[key], x) end
      open[key] = (ev.to == "pending" or ev.to == "firing") and { rule = ev.rule, state = ev.to, x0 = x } or nil
    end
  end
  local keys = {}
  for key in pairs(open) do keys[#keys + 1] = key end
  table.sort(keys)
  for _, key in ipairs(keys) do close(open[key], local_time(report.t1, report.ts1)) end
  return out, legend
end

-- ------------------------------------------------------------------- running ---

local function say(err, fmt, ...)
  err:write("perflua plot: ", fmt:format(...), "\n")
end

-- A directory for the files: --keep DIR (made when missing, kept), or a new private one (removed after).
local function workdir(core, keep)
  if keep and keep:find("%c") then
    return nil, ("--keep %s: a directory name with control characters"):format(M.escape(keep)), 2
  end
  local dir = keep
  if not dir then
    dir = os.tmpname()
    os.remove(dir)
  end
  local pid, msg = core.spawn(keep and { "mkdir", "-p", "--", dir } or { "mkdir", "-m", "700", "--", dir })
  if not pid then return nil, msg end
  local how, code = core.wait(pid)
  if how ~= "exited" or code ~= 0 then return nil, ("cannot make the directory %s"):format(M.escape(dir)) end
  return dir
end

local function slurp(path, max)
  local f = io.open(path, "rb")
  if not f then return "" end
  local s = f:read(max or 4096) or ""   -- max "a": all of it
  f:close()
  return s
end

local function copy_file(from, to)
  local data = slurp(from, "a")
  local f, err = io.open(to, "wb")
  if not f then return nil, err end
  local ok, werr = f:write(data)
  if ok then ok, werr = f:close() else f:close() end
  return ok, werr
end

-- The gnuplot program: a path, or the name looked up on PATH (nil when no such file is there).
local function find_gnuplot(env)
  local prog = env.gnuplot or "gnuplot"
  if prog:find("/", 1, true) then return prog end
  for d in (os.getenv "PATH" or ""):gmatch("[^:]+") do
    local f = io.open(d .. "/" .. prog, "rb")
    if f then
      f:close()
      return d .. "/" .. prog
    end
  end
  return nil
end

local NO_GNUPLOT = "gnuplot is not installed (or not on PATH): " .. M.APT

-- Runs gnuplot on the script; true, or nil, a message and the exit status to give.
local function gnuplot(core, perflib, dir, prog, env)
  local errfile = dir .. "/gnuplot.err"
  local pid, msg, errno = core.spawn({ prog, dir .. "/plot.gp" }, nil,
    { stdout = dir .. "/gnuplot.out", stderr = errfile })
  if not pid then
    if errno == 2 then return nil, NO_GNUPLOT, 2 end
    return nil, tostring(msg), 1
  end
  local limit = env.timeout or M.TIMEOUT
  local due = perflib.clock() + limit
  while true do
    local how, code = core.wait(pid, "nohang")
    if how == "exited" and code == 0 then return true end
    if how then
      local text = slurp(errfile):gsub("%s+$", "")
      return nil, ("gnuplot %s %d%s"):format(how == "exited" and "exited with status" or "died of signal", code,
        text ~= "" and (": " .. text) or ""), 1
    end
    if how == nil then return nil, "gnuplot: " .. tostring(code), 1 end
    if perflib.clock() > due then
      core.kill(pid, "KILL")
      core.wait(pid)
      return nil, ("gnuplot did not finish in %g s: killed"):format(limit), 1
    end
    perflib.sleep(0.01)
  end
end

-- The series the PATH filters keep (all without filters).
local function filtered(list, paths)
  if #paths == 0 then return list end
  local ms = {}
  for i, p in ipairs(paths) do ms[i] = glob(p) end
  local out = {}
  for _, s in ipairs(list) do
    for _, m in ipairs(ms) do
      if m(s.path) then out[#out + 1] = s break end
    end
  end
  return out
end

local function has_value(list)
  for _, s in ipairs(list) do
    for _, p in ipairs(s.points) do if p[2] ~= nil then return true end end
  end
  return false
end

--- The converter of the size option: "WxH" in pixels (each 100 to 10000) to a table `{ w, h }`,
-- or nil and a message.
-- @tparam string s
-- @treturn[1] table `{ width, height }`
-- @return[2] nil
-- @treturn[2] string message
function M.size(s)
  local w, h = tostring(s):match("^(%d+)[xX](%d+)$")
  w, h = tonumber(w), tonumber(h)
  if not w or w < 100 or h < 100 or w > 10000 or h > 10000 then
    return nil, "--size needs WIDTHxHEIGHT in pixels, each from 100 to 10000 (e.g. 1000x600)"
  end
  return { w, h }
end

-- Checks -o: its format, and that it can be written (without leaving a file behind).
local function check_output(o)
  local ext = o:match("%.([%w]+)$")
  ext = ext and ext:lower()
  if not ext or not M.TERMINALS[ext] then
    return nil, ("-o %s: the chart's name must end in .png or .svg"):format(o)
  end
  if o:find("%c") then return nil, ("-o %s: a file name with control characters"):format(M.escape(o)) end
  local existed = os.rename(o, o)
  local f, err = io.open(o, "ab")
  if not f then return nil, ("cannot write %s"):format(tostring(err)) end
  f:close()
  if not existed then os.remove(o) end
  return ext
end

-- The log, filtered and checked: series and the reader's info, or nil, message, status.
local function load(a)
  local list, info = M.read(a.log, a.paths)
  if not list then return nil, info, 2 end
  if #list == 0 or info.frames == 0 then return nil, ("%s holds no samples: nothing to plot"):format(a.log), 1 end
  list = filtered(list, a.paths or {})
  if #list == 0 then
    return nil, ("no counter of %s matches %s"):format(a.log, table.concat(a.paths, " ")), 1
  end
  if not has_value(list) then return nil, ("%s has no valid value to plot"):format(a.log), 1 end
  return list, info
end

-- The alert bands of --rules over the recording: bands, legend, or nil, message.
local function rule_bands(a, info)
  if not a.rules then return {}, {} end
  if not info.time_of then return nil, ("--rules needs a recording (%s is a %s)"):format(a.log, info.kind) end
  local report, err = require("perflib.replay").run(a.rules, a.log)
  if not report then return nil, ("--rules %s: %s"):format(a.rules, tostring(err)) end
  return bands(report, info.time_of)
end

local function cleanup(dir, keep)
  if keep then return end
  for _, f in ipairs { "plot.dat", "plot.gp", "gnuplot.out", "gnuplot.err", "chart.png", "chart.svg" } do
    os.remove(dir .. "/" .. f)
  end
  os.remove(dir)
end

-- Writes the files, runs gnuplot and copies the chart to -o: true, or nil, message, status.
local function draw(a, ext, list, bs, legend, env)
  local core, perflib = require "perflib.core", require "perflib"
  local prog = find_gnuplot(env)
  if not prog then return nil, NO_GNUPLOT, 2 end
  local dir, derr, dstatus = workdir(core, a.keep)
  if not dir then return nil, tostring(derr), dstatus or 1 end
  local chart = dir .. "/chart." .. ext
  local npanels = #panels(list)
  local opts = { ext = ext, chart = chart, data = dir .. "/plot.dat", bands = bs, legend = legend,
                 width = a.size and a.size[1] or 1000, height = a.size and a.size[2] or (100 + 230 * npanels),
                 title = a.title or ("perflua plot: " .. (a.log:match("[^/]*$"))) }
  local ok, err, status = write_data(opts.data, list)
  if ok then
    local f
    f, err = io.open(dir .. "/plot.gp", "wb")
    ok = f and f:write(script(list, opts)) and f:close()
    if not ok then err = ("cannot write %s/plot.gp: %s"):format(dir, tostring(err)) end
  end
  if ok then ok, err, status = gnuplot(core, perflib, dir, prog, env) end
  if ok then
    ok, err = copy_file(chart, a.output)
    if not ok then err = ("cannot write %s: %s"):format(a.output, tostring(err)) end
  end
  cleanup(dir, a.keep)
  if not ok then return nil, err, status or 1 end
  return true
end

--- Runs `perflua plot` with parsed arguments; returns the exit status.
-- @tparam table a `log`, `paths` (filters), `output`, `rules`, `title`, `size` (`{ w, h }`), `keep`
-- @param out standard output (a line naming the chart)
-- @param err standard error
-- @tparam[opt] table env `gnuplot` (the program, default "gnuplot" on PATH), `timeout` (seconds)
-- @treturn integer 0; 1 nothing to plot (no samples, no valid value, no counter matches), gnuplot
--   failed or timed out; 2 a bad argument, a log that cannot be read or is of no known format,
--   rules that do not load, an output that cannot be written, gnuplot missing
function M.run(a, out, err, env)
  env = env or {}
  if not a.output then err:write(require("perflib.cli").usage "plot") return 2 end
  local ext, oerr = check_output(a.output)
  if not ext then say(err, "%s", oerr) return 2 end
  local list, info, status = load(a)
  if not list then say(err, "%s", info) return status end
  if info.warning then say(err, "%s", info.warning) end
  if info.note then say(err, "%s", info.note) end
  local bs, legend = rule_bands(a, info)
  if not bs then say(err, "%s", legend) return 2 end
  local ok, derr, dstatus = draw(a, ext, list, bs, legend, env)
  if not ok then say(err, "%s", derr) return dstatus end
  local np = #panels(list)
  out:write(("%s: %d series in %d panel%s\n"):format(a.output, #list, np, np == 1 and "" or "s"))
  return 0
end

return M
