--- The binary-log reader of `perflua plot` (`perflib.plot`'s READERS): the series of a log
-- read through `perflib.open_log`, so units are the log's own definitions, rates and
-- statuses its samples'; a value that is not valid is a gap, and so is an instance a
-- sample lacks.  Without PATHs a log of more than `kit.max` values (a Global log holds
-- thousands) gives each counterset's first counter, `_Total` where the set has it (a set
-- without `_Total` and more than 8 instances, such as Process, is left out).
-- @module perflib.plot_binlog
local typeperf = require "perflib.typeperf"
local path_of = typeperf.path

local M = {}

local function first_counter(cs)
  for _, c in ipairs(cs.counters) do if not c.hidden then return c.name end end
end

-- The query paths: each set whose name a PATH's set part matches (the filter then keeps
-- the series it names), every set without PATHs, or (small) each set's first counter.
local function log_paths(m, paths, small, kit)
  local out, wants = {}, {}
  for i, p in ipairs(paths or {}) do wants[i] = kit.glob("\\" .. (kit.split_path(p) or p) .. "\\x") end
  for _, cs in ipairs(typeperf.sets(m)) do
    local multi = cs.instance_type ~= "single"
    local take = #wants == 0
    for _, w in ipairs(wants) do take = take or w("\\" .. cs.name .. "\\x") end
    if small then
      local c, inst = first_counter(cs), multi and "*" or ""
      local insts = multi and cs:instances() or {}
      for _, i in ipairs(insts) do if i.name == "_Total" then inst = "_Total" end end
      if c and (inst ~= "*" or #insts <= 8) then out[#out + 1] = path_of(cs.name, inst, c) end
    elseif take then
      out[#out + 1] = path_of(cs.name, multi and "*" or "", "*")
    end
  end
  return out
end

-- Adds one sample's formatted values (rates against s0) to the series, a gap for each
-- series the sample lacks; new instances get new series.
local function add_sample(st, s1, s0, n)
  local t = s1.timestamp
  for inst, v, status, counter, k in s1:formatted(s0) do
    local byc = st.map[k] or {}
    st.map[k] = byc
    local byi = byc[counter] or {}
    byc[counter] = byi
    local s = byi[inst]
    if not s then
      s = st.kit.new_series(st.perflib, st.specs[k].counterset, inst, counter, st.m)
      byi[inst], st.list[#st.list + 1] = s, s
    end
    st.at[s] = n
    if status ~= "valid" or v ~= v or v == math.huge or v == -math.huge then v = nil end
    s.points[#s.points + 1] = { t, v }
  end
  for _, s in ipairs(st.list) do
    if st.at[s] ~= n then s.points[#s.points + 1] = { t, nil } end
  end
end

--- The series of a binary log, as `perflib.plot`'s READERS return them.
-- @tparam string path
-- @param perflib the module
-- @tparam ?{string,...} paths PATH filters (nil or empty: the default selection)
-- @tparam table kit plot's `new_series`, `glob`, `split_path` and `max` (MAX_DEFAULT)
-- @return the series and the reader's info, or nil and a message
function M.read(path, perflib, paths, kit)
  local m, msg = perflib.open_log(path)
  if not m then return nil, msg end
  local info = { frames = 0, time_of = function(t, ts) return ts or t end, warning = m:log().warning }
  local function query(small)
    local q = m:query()
    for _, p in ipairs(log_paths(m, paths, small, kit)) do q:add(p) end
    return q
  end
  local q = query(false)
  local s0 = q:collect()
  if s0 and #(paths or {}) == 0 then
    local n = 0                                   -- the values logged (not a set's unlogged counters)
    for _, _, status in s0:formatted() do if status ~= "no_data" then n = n + 1 end end
    if n > kit.max then
      q:close()
      q = query(true)
      s0 = q:collect()
      info.note = ("%d values in %s: drawing each counterset's first counter (_Total where there is one); "
        .. "name PATHs for others (perflua relog %s -q lists them)"):format(n, path, path)
    end
  end
  local st = { kit = kit, perflib = perflib, m = m, specs = q:specs(), map = {}, list = {}, at = {} }
  local prev, spare
  local s1 = s0
  while s1 do
    info.frames = info.frames + 1
    add_sample(st, s1, prev, info.frames)
    spare, prev = prev, s1
    s1 = q:collect(spare)
  end
  q:close()
  if #(paths or {}) > 0 then return st.list, info end
  local kept = {}                                 -- without PATHs: only series that have a value
  for _, s in ipairs(st.list) do
    for _, pt in ipairs(s.points) do
      if pt[2] then kept[#kept + 1] = s break end
    end
  end
  return kept, info
end

return M
