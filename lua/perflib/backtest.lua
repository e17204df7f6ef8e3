--- perflib.backtest: how rules would have behaved over recorded history, so
-- that thresholds and `pending` are tuned on last week's data instead of
-- guessed.
--
--    local backtest = require "perflib.backtest"
--    local bt = assert(backtest.run("rules.lua", "week.rec"))
--    io.write(backtest.format(bt), "\n")
--
-- Per rule (`bt.rules`, in definition order):
--
-- * `fired`: how many times an alert of the rule went to firing, `resolved`: how
--   many firing alerts resolved, `episodes`: spells from leaving ok (pending or
--   firing) back to ok or resolved (one still open at the end counts), `alerts`:
--   the rule's alert instances that had one;
-- * `states`: seconds spent in each state, summed over the rule's alerts;
-- * `first` and `longest`: the first episode and the one that fired longest,
--   `{ key =, start =, fired_at =, stop =, firing =, open = }` (offsets in seconds
--   from the first frame; `firing` seconds in firing; `open` true when it had not
--   ended when the recording did);
-- * `sweep`: the same rule with its thresholds moved by `-pct` and `+pct` percent
--   (both the firing and the clearing value; conditions written as functions have
--   none) and with `pending` halved and doubled, each `{ label =, fired =,
--   firing = seconds }`, after the unchanged rule (`label = "as written"`).
--
-- One pass over the recording feeds the report's engine (perflib.replay, actions
-- captured) and one single-rule engine per variant of the sweep; nothing of the
-- recording is kept in memory beyond the frame at hand.
-- @module perflib.backtest
local R = require "perflib.rules"
local E = require "perflib.rules.engine"
local T = require "perflib.rules.text"
local replay = require "perflib.replay"

local backtest = {}

local OPEN = { pending = true, firing = true, recovering = true }   -- an episode goes on

-- Episodes of every alert from a replay report's timeline: key -> list.
local function episodes_of(report)
  local by_key, t_end = {}, report.duration or 0
  for _, e in ipairs(report.timeline) do
    if e.kind == "transition" and e.from ~= e.to then
      local list = by_key[e.key] or {}
      by_key[e.key] = list
      local cur = list[#list]
      if OPEN[e.to] and not (cur and cur.open) then
        cur = { key = e.key, rule = e.rule, start = e.offset, open = true, firing = 0 }
        list[#list + 1] = cur
      end
      if cur and cur.open then
        if cur.since_firing then
          cur.firing = cur.firing + e.offset - cur.since_firing
          cur.since_firing = nil
        end
        if e.to == "firing" then
          cur.fired_at = cur.fired_at or e.offset
          cur.since_firing = e.offset
        end
        if not OPEN[e.to] and e.to ~= "unknown" then
          cur.stop, cur.open = e.offset, false
        end
      end
    end
  end
  for _, list in pairs(by_key) do
    local cur = list[#list]
    if cur and cur.open then
      cur.stop = t_end
      if cur.since_firing then cur.firing = cur.firing + t_end - cur.since_firing end
    end
    for _, ep in ipairs(list) do ep.since_firing = nil end
  end
  return by_key
end

-- The per-rule counts of a replay report.
local function summarize(report, names)
  local out, by_name = {}, {}
  for i, name in ipairs(names) do
    out[i] = { rule = name, fired = 0, resolved = 0, episodes = 0, alerts = 0, states = {}, sweep = {} }
    by_name[name] = out[i]
  end
  for _, e in ipairs(report.timeline) do
    local r = by_name[e.rule]
    if r and e.kind == "transition" and e.from ~= e.to then
      if e.to == "firing" then r.fired = r.fired + 1 end
      if e.to == "resolved" and (e.from == "firing" or e.from == "recovering") then r.resolved = r.resolved + 1 end
    end
  end
  for _, a in ipairs(report.alerts) do
    local r = by_name[a.rule]
    if r then
      for s, secs in pairs(a.states) do r.states[s] = (r.states[s] or 0) + secs end
    end
  end
  for _, list in pairs(episodes_of(report)) do
    local r = list[1] and by_name[list[1].rule]      -- (an alert whose only change was to unknown has none)
    if r then
      r.alerts = r.alerts + 1
      for _, ep in ipairs(list) do
        r.episodes = r.episodes + 1
        if not r.first or ep.start < r.first.start or (ep.start == r.first.start and ep.key < r.first.key) then
          r.first = ep
        end
        if ep.fired_at and (not r.longest or ep.firing > r.longest.firing
                            or (ep.firing == r.longest.firing and ep.start < r.longest.start)) then
          r.longest = ep
        end
      end
    end
  end
  return out
end

-- A copy of a normalized rule with its thresholds scaled by f and pending by p.
local function variant(rule, f, p)
  local v = {}
  for k, x in pairs(rule) do v[k] = x end
  v.levels = {}
  for i, lv in ipairs(rule.levels) do
    local l = {}
    for k, x in pairs(lv) do l[k] = x end
    if lv.cond and f ~= 1 then
      local c = setmetatable({}, getmetatable(lv.cond))
      for k, x in pairs(lv.cond) do c[k] = x end
      if type(c.x) == "number" then c.x = c.x * f end
      if type(c.clear) == "number" then c.clear = c.clear * f end
      l.cond = c
    end
    v.levels[i] = l
  end
  v.pending = rule.pending * p
  return v
end

local function has_threshold(rule)
  for _, lv in ipairs(rule.levels) do
    if lv.cond and type(lv.cond.x) == "number" then return true end
  end
  return false
end

-- The sweep's engine: every variant of every rule as a rule of one engine (named
-- "rule#k": one engine shares each frame's sources among them, where an engine
-- per variant went over the frame again for each), with a tally per variant of
-- its fires and seconds firing as the frames come.
local function sweep_engine(tallies, interval)
  local set, by_name = R.new(), {}
  for _, list in ipairs(tallies) do
    for k, c in ipairs(list) do
      local name = c.rule.name .. "#" .. k
      local v = {}
      for key, x in pairs(c.rule) do v[key] = x end
      v.name = name
      set.rules[name], set.order[#set.order + 1] = v, name
      by_name[name], c.fired, c.firing, c.since = c, 0, 0, {}
    end
  end
  local eng = E.new(set, { interval = interval })
  local last
  local function feed(t, frame)
    for _, ev in ipairs(eng:feed(t, frame)) do
      local c = by_name[ev.rule]
      if c and ev.kind == "transition" and ev.from ~= ev.to then
        local key = replay.alert_key(ev.rule, ev.labels)
        if c.since[key] then c.firing, c.since[key] = c.firing + t - c.since[key], nil end
        if ev.to == "firing" then c.fired, c.since[key] = c.fired + 1, t end
      end
    end
    last = t
  end
  local function finish()
    for _, list in ipairs(tallies) do
      for _, c in ipairs(list) do
        for _, since in pairs(c.since) do c.firing = c.firing + last - since end
        c.since = {}
      end
    end
  end
  return feed, finish, function() return last end
end

-- The sweep's variants of a rule: { label, threshold factor, pending factor }, the rule
-- as written first (none when nothing can move).
local function variants_of(rule, pct)
  local v = {}
  if pct > 0 and has_threshold(rule) then
    v[#v + 1] = { ("thresholds -%g%%"):format(pct), 1 - pct / 100, 1 }
    v[#v + 1] = { ("thresholds +%g%%"):format(pct), 1 + pct / 100, 1 }
  end
  if rule.pending > 0 then
    v[#v + 1] = { ("pending %s"):format(R.format_duration(rule.pending / 2)), 1, 0.5 }
    v[#v + 1] = { ("pending %s"):format(R.format_duration(rule.pending * 2)), 1, 2 }
  end
  if #v > 0 then table.insert(v, 1, { "as written", 1, 1 }) end
  return v
end

--- Backtests rules over a recording, in one pass over it: the replay (the
-- report, actions captured) and every variant of the sweep are fed the same
-- frames as they are read.
-- @param rules a rule set, a rules file path or Lua source (as perflib.replay.run)
-- @tparam string recording_path a recording (perflib.record's format)
-- @tparam[opt] table opts `pct` (the threshold sweep's step in percent, default 10;
--   0: no threshold sweep), `sweep` (false: no sweep at all), `from`, `to`, `limit`
--   (as perflib.replay.run)
-- @treturn[1] table `{ report = the replay report, rules = { per rule, see above } }`
-- @return[2] nil
-- @treturn[2] string message (rules that do not load, a malformed recording)
function backtest.run(rules, recording_path, opts)
  opts = opts or {}
  local pct = opts.pct or 10
  if type(pct) ~= "number" or pct < 0 or pct >= 100 then
    error("bad argument #3 to 'run' (opts.pct must be a percentage in [0, 100))", 2)
  end
  local set, msg = replay.load_rules(rules)
  if not set then return nil, msg end
  local list, tallies = set:list(), {}
  local feed, finish, last
  local ropts = { from = opts.from, to = opts.to, limit = opts.limit }
  if opts.sweep ~= false then
    ropts.on_start = function(header)      -- the recording's interval, for the variants' gap limits
      for i, rule in ipairs(list) do
        tallies[i] = {}
        for k, v in ipairs(variants_of(rule, pct)) do
          tallies[i][k] = { rule = k == 1 and rule or variant(rule, v[2], v[3]), label = v[1] }
        end
      end
      feed, finish, last = sweep_engine(tallies, header.interval)
    end
    ropts.on_frame = function(t, frame) feed(t, frame) end
  end
  local report
  report, msg = replay.run(set, recording_path, ropts)
  if not report then return nil, msg end
  local names = {}
  for i, rule in ipairs(list) do names[i] = rule.name end
  local out = { report = report, rules = summarize(report, names), pct = pct }
  if finish and last() then finish() end
  for i, cs in ipairs(tallies) do
    for _, c in ipairs(cs) do
      out.rules[i].sweep[#out.rules[i].sweep + 1] = { label = c.label, fired = c.fired, firing = c.firing }
    end
  end
  return out
end

local dur = replay.seconds

local STATES = { "pending", "firing", "recovering", "unknown", "inactive", "resolved" }

--- The backtest as text: one block per rule (escaped: recorded names are other
-- users' text).
-- @tparam table bt what @{run} returned
-- @treturn string the text (no final newline)
function backtest.format(bt)
  local lines = {}
  local function add(fmt, ...) lines[#lines + 1] = T.escape(fmt:format(...)) end
  local rep = bt.report
  add("backtest of %d rule(s) over %s (%d frame(s))", #bt.rules, dur(rep.duration), rep.frames)
  for _, r in ipairs(bt.rules) do
    add("")
    add("%s: fired %d, resolved %d, %d episode(s) of %d alert(s)", r.rule, r.fired, r.resolved, r.episodes,
      r.alerts)
    local parts = {}
    for _, s in ipairs(STATES) do
      if r.states[s] and r.states[s] > 0 and s ~= "inactive" then
        parts[#parts + 1] = ("%s %s"):format(s, dur(r.states[s]))
      end
    end
    if #parts > 0 then add("  time in state: %s", table.concat(parts, ", ")) end
    local function episode(what, ep)
      if not ep then return end
      add("  %s: %s from %+.0fs%s to %+.0fs%s, firing %s", what, ep.key, ep.start,
        ep.fired_at and (", firing at %+.0fs"):format(ep.fired_at) or " (never fired)",
        ep.stop, ep.open and " (still open)" or "", dur(ep.firing))
    end
    episode("first episode", r.first)
    episode("longest firing", r.longest)
    if #r.sweep > 0 then
      local cells = {}
      for _, v in ipairs(r.sweep) do cells[#cells + 1] = ("%s: %d (%s)"):format(v.label, v.fired, dur(v.firing)) end
      add("  sweep, fired (time firing): %s", table.concat(cells, "; "))
    end
  end
  return table.concat(lines, "\n")
end

return backtest
