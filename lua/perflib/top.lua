--- `perflua top [SET]`: a live, sortable, top-like view of a counterset
-- (its instances as rows, its main counters as columns, with units), or
-- with no set a summary of the machine (CPU, memory, disk, network, load).
-- On a terminal a screen on ncurses (perflib.term, through perflib.screen);
-- otherwise plain frames, one block per interval (like `top -b`).
-- @module perflib.top

local T = require "perflib.rules.text"
local S = require "perflib.screen"

local top = {}

-- The main counters of well-known sets, with short column titles; other
-- sets show their first novice counters.
local MAIN = {
  ["Process"] = { { "% Processor Time", "%CPU" }, { "Working Set", "RSS" }, { "Private Bytes", "Private" },
    { "IO Data Bytes/sec", "IO/s" }, { "Page Faults/sec", "Faults/s" }, { "Thread Count", "Threads" },
    { "Elapsed Time", "Age" }, { "ID Process", "PID" } },
  ["Processor Information"] = { { "% Processor Time", "%Proc" }, { "% User Time", "%User" },
    { "% Privileged Time", "%Sys" }, { "% IO Wait Time", "%IOwait" }, { "% Idle Time", "%Idle" },
    { "Interrupts/sec", "Intr/s" }, { "Processor Frequency", "Freq" } },
  ["PhysicalDisk"] = { { "% Disk Time", "%Busy" }, { "Disk Read Bytes/sec", "Read/s" },
    { "Disk Write Bytes/sec", "Write/s" }, { "Disk Transfers/sec", "IOPS" },
    { "Avg. Disk sec/Transfer", "Latency" }, { "Current Disk Queue Length", "Queue" } },
  ["Hardware Events"] = { { "Cycles/sec", "Cycles/s" }, { "Instructions/sec", "Instr/s" },
    { "Instructions Per Cycle", "IPC" }, { "% Cache Miss Ratio", "%CacheMiss" }, { "% Branch Miss Ratio", "%BrMiss" },
    { "Context Switches/sec", "CtxSw/s" }, { "Page Faults/sec", "Faults/s" } },
  ["Network Interface"] = { { "Bytes Received/sec", "Rx/s" }, { "Bytes Sent/sec", "Tx/s" },
    { "Packets Received/sec", "RxPk/s" }, { "Packets Sent/sec", "TxPk/s" },
    { "Packets Received Errors", "RxErr" }, { "Packets Outbound Errors", "TxErr" } },
}
local MAX_COLUMNS = 8

-- The machine summary: a label, a counter path, the row's group.
local SUMMARY = {
  { "CPU busy", "\\Processor Information(_Total)\\% Processor Time" },
  { "CPU user", "\\Processor Information(_Total)\\% User Time" },
  { "CPU system", "\\Processor Information(_Total)\\% Privileged Time" },
  { "CPU iowait", "\\Processor Information(_Total)\\% IO Wait Time" },
  { "Memory total", "\\Memory\\Total Bytes" },
  { "Memory available", "\\Memory\\Available Bytes" },
  { "Memory cache", "\\Memory\\Cache Bytes" },
  { "Memory committed", "\\Memory\\% Committed Bytes In Use" },
  { "Swap used", "\\Paging File(_Total)\\% Usage" },
  { "Disk busy", "\\PhysicalDisk(_Total)\\% Disk Time" },
  { "Disk read", "\\PhysicalDisk(_Total)\\Disk Read Bytes/sec" },
  { "Disk write", "\\PhysicalDisk(_Total)\\Disk Write Bytes/sec" },
  { "Network received", "\\Network Interface(_Total)\\Bytes Received/sec" },
  { "Network sent", "\\Network Interface(_Total)\\Bytes Sent/sec" },
  { "Load 1 min", "\\System\\Load Average 1 min" },
  { "Load 5 min", "\\System\\Load Average 5 min" },
  { "Load 15 min", "\\System\\Load Average 15 min" },
  { "Processes", "\\System\\Processes" },
  { "Threads", "\\System\\Threads" },
  { "Context switches", "\\System\\Context Switches/sec" },
  { "Up", "\\System\\System Up Time" },
}
top.SUMMARY = SUMMARY

--- The columns of a counterset: `{ {name=, title=, unit=}, ... }` (at most 8).
-- @param cs a CounterSet
-- @treturn table
function top.columns(cs)
  local out, byname = {}, {}
  for _, c in ipairs(cs.counters) do byname[c.name] = c end
  for _, m in ipairs(MAIN[cs.name] or {}) do
    local c = byname[m[1]]
    if c then out[#out + 1] = { name = c.name, title = m[2], unit = c.formatted_unit } end
  end
  if #out == 0 then
    for _, c in ipairs(cs.counters) do
      if not c.hidden and c.detail == "novice" and #out < MAX_COLUMNS then
        -- a shorter title: "Cache Misses/sec" -> "CacheMisses/s"
        local title = c.name:gsub("/sec$", "/s"):gsub("^%% ", "%%"):gsub(" ", "")
        out[#out + 1] = { name = c.name, title = title, unit = c.formatted_unit }
      end
    end
  end
  return out
end

--- Sorts the rows of a model by its sort column (highest first, or lowest
-- when reversed); `_Total` stays first, rows with no value go last, ties by
-- instance name.
-- @tparam table m a model (@{set_model}'s)
-- @treturn table m, its rows sorted in place
function top.sort(m)
  local k, rev = m.sort, m.reverse
  table.sort(m.rows, function(a, b)
    if (a.name == "_Total") ~= (b.name == "_Total") then return a.name == "_Total" end
    local va, vb = a.values[k], b.values[k]
    if type(va) ~= "number" then va = nil end
    if type(vb) ~= "number" then vb = nil end
    if va and vb and va ~= vb then
      if rev then return va < vb end
      return va > vb
    end
    if (va ~= nil) ~= (vb ~= nil) then return va ~= nil end
    return a.name < b.name
  end)
  return m
end

--- The model of a counterset's frame: `{ set=, columns=, rows = { {name=, values = {[col]=v}} }, sort=,
-- reverse=, seq=, time=, interval=, note= }`.
-- @tparam table columns from top.columns
-- @tparam table values `[counter][instance] = value` (Sample:values)
-- @tparam table instances instance names
-- @tparam table opts `{ set=, sort = column index, reverse=, seq=, time=, interval=, note= }`
-- @treturn table the model, its rows sorted (@{sort})
function top.set_model(columns, values, instances, opts)
  local m = { set = opts.set, columns = columns, rows = {}, sort = opts.sort or 1, reverse = opts.reverse,
              seq = opts.seq or 0, time = opts.time or os.date("%H:%M:%S"), interval = opts.interval or 1,
              note = opts.note }
  for _, inst in ipairs(instances) do
    local row = { name = inst, values = {} }
    for i, c in ipairs(columns) do row.values[i] = values[c.name] and values[c.name][inst] end
    m.rows[#m.rows + 1] = row
  end
  return top.sort(m)
end

local COLW = 11

local function status_line(m)
  local what = m.set or "machine summary"
  local sort = m.columns and m.columns[m.sort] and (" · sort %s %s"):format(m.columns[m.sort].title,
    m.reverse and "^" or "v") or ""
  local count = m.columns and (" · %d instances"):format(#m.rows) or ""
  return ("perflua top · %s%s%s · %s · sample %d · every %g s · ? keys, q quits"):format(what, count, sort,
    m.time, m.seq, m.interval)
end

-- The columns that fit next to a name column of at least 16 (all when w is nil).
local function fitting(m, w)
  if not w then return #m.columns end
  return math.max(0, math.min(#m.columns, math.floor((w - 16) / COLW)))
end

local function table_rows(m, w)
  local n = fitting(m, w)
  local namew = w and math.max(1, w - n * COLW) or 24
  local rows = {}
  local head = { S.pad("instance", namew) }
  for i = 1, n do
    local t = m.columns[i].title .. (i == m.sort and (m.reverse and " ^" or " v") or "")
    head[#head + 1] = S.pad(T.escape(t), COLW - 1, true) .. " "
  end
  rows[1] = { text = table.concat(head), style = "title" }
  for _, r in ipairs(m.rows) do
    local line = { S.pad(T.escape(r.name), namew) }
    for i = 1, n do
      line[#line + 1] = S.pad(S.human(r.values[i], m.columns[i].unit), COLW - 1, true) .. " "
    end
    rows[#rows + 1] = { text = table.concat(line), style = "normal" }
  end
  return rows
end

local function summary_rows(m)
  local nw = m.set and 32 or 20
  local rows = { { text = S.pad(m.set and "counter" or "what", nw) .. " value", style = "title" } }
  for _, r in ipairs(m.rows) do
    rows[#rows + 1] = { text = S.pad(r.name, nw) .. " " .. S.human(r.value, r.unit), style = "normal" }
  end
  return rows
end

top.KEYS = {
  { "q", "quit" }, { "?", "these keys (any key returns)" }, { "< >  left/right", "sort by the column before / after" },
  { "s", "sort by the next column" }, { "r", "reverse the order" }, { "up/down j/k", "scroll one row" },
  { "PgUp/PgDn", "scroll one page" }, { "Home/End", "first / last row" },
}

--- The screen as rows for `h` rows and `w` columns (all rows and the full
-- width when h and w are nil: the plain frames): row 1 the status line,
-- row 2 the column titles (the sort column marked v, or ^ when reversed),
-- then the rows from `st.top` on.
-- @tparam table m a model (top.set_model or top.summary_model)
-- @tparam[opt] integer h
-- @tparam[opt] integer w
-- @tparam[opt] table st `{ top =, help = }`
-- @treturn table rows `{ {text=, style=} }`
-- @treturn integer data rows per page
function top.layout(m, h, w, st)
  st = st or {}
  if st.help and h and w then return S.help_rows("perflua top: keys", top.KEYS, nil, w, h), 1 end
  local body = m.columns and table_rows(m, w) or summary_rows(m)
  local rows = { { text = status_line(m), style = "status" } }
  if m.note then rows[#rows + 1] = { text = "note: " .. m.note, style = "warn" } end
  if m.columns and #m.rows == 0 then body[#body + 1] = { text = "(no instances)", style = "dim" } end
  rows[#rows + 1] = body[1]
  local page = h and math.max(0, h - #rows) or #body - 1
  local first = math.max(1, math.min(st.top or 1, #body - page))
  for i = first + 1, math.min(#body, first + page) do rows[#rows + 1] = body[i] end
  while h and #rows > h do rows[#rows] = nil end
  if w then
    for _, r in ipairs(rows) do r.text = S.fit(r.text, w) end
  end
  return rows, page
end

--- The machine summary's model from a sample pair of the SUMMARY query.
-- @tparam table values `values[i]` the value of `top.SUMMARY[i]` (nil when unknown)
-- @tparam table units `units[i]` its formatted unit ("" for none)
-- @tparam table opts `{ seq=, time=, interval= }`
-- @treturn table the model: `{ rows = { {name=, value=, unit=} }, seq=, time=, interval= }`
function top.summary_model(values, units, opts)
  local m = { rows = {}, seq = opts.seq or 0, time = opts.time or os.date("%H:%M:%S"),
              interval = opts.interval or 1 }
  for i, s in ipairs(SUMMARY) do
    local v = values[i]
    m.rows[#m.rows + 1] = { name = s[1], value = v, unit = units[i] }
  end
  return m
end

-- ---- running -------------------------------------------------------------------

local function check_opts(opts)
  if type(opts) ~= "table" then error("bad argument #1 to 'run' (table expected, got " .. type(opts) .. ")", 3) end
  local function bad(k, what) error(("bad argument #1 to 'run' (opts.%s: %s)"):format(k, what), 4) end
  if opts.set ~= nil and (type(opts.set) ~= "string" or opts.set == "") then bad("set", "counterset name expected") end
  if opts.sort ~= nil and type(opts.sort) ~= "string" then bad("sort", "counter name expected") end
  if opts.reverse ~= nil and type(opts.reverse) ~= "boolean" then bad("reverse", "boolean expected") end
  local iv = opts.interval
  if iv ~= nil and (type(iv) ~= "number" or iv ~= iv or iv <= 0 or iv > 86400) then
    bad("interval", "seconds expected, more than 0 and at most 86400")
  end
  local n = opts.count
  if n ~= nil and (type(n) ~= "number" or n % 1 ~= 0 or n < 1) then bad("count", "positive integer expected") end
end

-- The query and a function giving the model of a sample pair; or nil, message.
local function prepare(perflib, opts)
  local q = perflib.query()
  if not opts.set then
    local units, idx, where = {}, {}, {}
    for i, s in ipairs(SUMMARY) do
      local set, inst, ctr = s[2]:match "^\\([^\\(]+)%(?([^)]*)%)?\\([^\\]+)$"
      idx[i], where[i] = q:add(s[2]), { inst = inst, ctr = ctr }
      local cs = perflib.counterset(set)
      local c = cs and cs:counter(ctr)
      units[i] = c and c.formatted_unit or ""
    end
    return q, function(s1, s0, info)
      local values = {}
      for i = 1, #SUMMARY do
        local r = idx[i] and s1:values(s0, idx[i])
        local w = where[i]
        values[i] = r and r[w.ctr] and r[w.ctr][w.inst]
      end
      return top.summary_model(values, units, info)
    end
  end
  local cs = perflib.counterset(opts.set)
  if not cs then
    local hint = perflib.suggest and perflib.suggest(opts.set, (function()
      local names = {}
      for c in perflib.countersets() do names[#names + 1] = c.name end
      return names
    end)())
    return nil, ("no counterset '%s'%s"):format(opts.set, hint and (" (did you mean '%s'?)"):format(hint) or "")
  end
  local columns = top.columns(cs)
  local sort = 1
  if opts.sort then
    sort = nil
    for i, c in ipairs(columns) do
      if c.name:lower() == opts.sort:lower() or c.title:lower() == opts.sort:lower() then sort = i end
    end
    if not sort then
      local c = cs:counter(opts.sort)
      if not c then return nil, ("counterset '%s' has no counter '%s'"):format(cs.name, opts.sort) end
      table.insert(columns, 1, { name = c.name, title = c.name, unit = c.formatted_unit })
      sort = 1
    end
  end
  local multi = cs.instance_type == "multiple"
  assert(q:add(("\\%s%s\\*"):format(cs.name, multi and "(*)" or "")))
  local note = S.note(cs.name)
  if not multi then                     -- one instance: its counters as rows
    return q, function(s1, s0, info)
      local values = s1:values(s0, 1)
      local m = { set = cs.name, note = note, rows = {}, seq = info.seq, time = info.time,
                  interval = info.interval }
      for _, c in ipairs(cs.counters) do
        if not c.hidden then
          m.rows[#m.rows + 1] = { name = c.name, value = values[c.name] and values[c.name][""],
                                  unit = c.formatted_unit }
        end
      end
      return m
    end
  end
  return q, function(s1, s0, info, m0)
    local values = s1:values(s0, 1)
    local r = s1:results()[1]
    info.set, info.note = cs.name, note
    info.sort, info.reverse = m0 and m0.sort or sort, (m0 and m0.reverse) or (not m0 and opts.reverse)
    return top.set_model(columns, values, r and r.instances or {}, info)
  end
end

local function plain_frame(out, m)
  local rows = top.layout(m)
  for _, r in ipairs(rows) do out:write(r.text, "\n") end
  out:write("\n")
  out:flush()
end

-- The set view's own keys: the sort column and its order.
local function sort_key(live, key)
  local m = live.model
  if not m or not m.columns or #m.columns == 0 then return false end
  if key == "<" or key == "left" then m.sort = (m.sort - 2) % #m.columns + 1
  elseif key == ">" or key == "right" or key == "s" then m.sort = m.sort % #m.columns + 1
  elseif key == "r" then m.reverse = not m.reverse
  else return false end
  top.sort(m)
  return true
end

--- Runs the view until `q`, a signal (INT, TERM, HUP) or `count` frames.
-- @tparam table opts `{ set = counterset name or nil (the machine summary), sort = counter name,
-- reverse = boolean, interval = seconds (default 1), count = frames (default: forever),
-- out =, err = file handles (default io.stdout, io.stderr) }`
-- @treturn integer exit code: 0 ok, 1 runtime error, 2 usage (an unknown counterset or counter)
function top.run(opts)
  check_opts(opts)
  local perflib = require "perflib"
  local out, err = opts.out or io.stdout, opts.err or io.stderr
  if opts.sort and not opts.set then
    err:write("perflua top: --sort needs a counterset (perflua top SET --sort COUNTER)\n")
    return 2
  end
  local q, model_of = prepare(perflib, opts)
  if not q then
    err:write("perflua top: ", T.escape(model_of), "\n")
    return 2
  end
  local interval = opts.interval or 1
  perflib.trap("INT", "TERM", "HUP")
  local tty = require("perflib.monitor").is_tty()
  local live = tty and S.live(function(l, h, w)
    if not l.model then return {} end
    local rows, page = top.layout(l.model, h, w, l)
    l.page, l.n = math.max(1, page), #l.model.rows
    return rows
  end, sort_key)
  local ok, code, why = xpcall(function()
    local s0, due, frames = nil, perflib.clock(), 0
    while true do
      local s1, msg = q:collect()
      if not s1 then return 1, msg end            -- said once the terminal is back
      frames = frames + 1
      local m = model_of(s1, s0, { seq = s1.seq, interval = interval,
        time = os.date("%H:%M:%S", math.floor(s1.timestamp)) }, live and live.model)
      if live then
        live.model = m
        live:draw()
      else
        plain_frame(out, m)
      end
      if opts.count and frames >= opts.count then return 0 end
      s0, due = s1, due + interval
      if live then
        local why = live:wait(due)
        if why == "quit" then return 0 end
        if why == "gone" then return 0, "the terminal is gone (" .. live.gone .. ")" end
      else
        while due - perflib.clock() > 0 and not perflib.signalled() do perflib.sleep(due - perflib.clock()) end
      end
      if #perflib.trapped() > 0 then return 0 end
    end
  end, debug.traceback)
  if live then live:close() end
  q:close()
  if not ok then error(code, 0) end
  if why then err:write("perflua top: ", T.escape(why), "\n") end
  return code
end

return top
