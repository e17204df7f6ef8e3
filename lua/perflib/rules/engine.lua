--- perflib.rules.engine: evaluates a rule set on frames of samples, one clock (sample time).
-- `local eng = E.new(set); local events = eng:feed(t, frame)`.
-- FRAME = { [key] = { instances = {...}, value = { [name] = number }, status = { [name] = "valid"|... } } }
-- where key is the rule's source path (cooked values) or "raw:" .. path (raw integers, for
-- R.rate, R.increase and R.raw()).
-- the real string functions: this code also runs inside sandboxed calls, where
-- string methods reach the sandbox's bounded ones (perflib.rules.sandbox)
local sfind, smatch = string.find, string.match
local R = require "perflib.rules"
local W = require "perflib.rules.window"
local core = require "perflib.core"
local S = require "perflib.rules.sandbox"
local compat = require "perflib.compat"
local bor, band, bit = compat.bor, compat.band, compat.bit

local wcook = W.cook

local E = {}
local Engine = {}
Engine.__index = Engine

E.DEFAULT_LIMIT = S.LIMIT     -- instructions per call of a function condition or hook
E.DEFAULT_MEMORY = S.MEMORY   -- bytes allocated net per such call
E.GAP_FACTOR = 1.5            -- an evaluation interval beyond 1.5 x the expected one is a gap

--- The longest interval between two evaluations of a rule that is not a gap, for a sampling
-- interval (nil: unknown, then only samples without a known condition are gaps).  A rule with
-- `every` is evaluated at the first sample `every` after the last: every whole intervals.
function E.gap_limit(every, interval)
  if type(interval) ~= "number" or interval <= 0 then return nil end
  local expected = interval
  if every and every > interval then expected = interval * math.ceil(every / interval - 1e-9) end
  return E.GAP_FACTOR * expected + 1e-9
end

local function source_key(rule, path)
  return rule.value.raw and ("raw:" .. path) or path
end

-- The name an `instances` pattern "^name$" stands for when it has no magic character.
local function literal_of(pat)
  local body = type(pat) == "string" and smatch(pat, "^%^(.*)%$$")
  if body and not sfind(body, "[%^%$%*%+%?%.%(%)%[%]%%%-]") then return body end
end

-- The levels as the rule bank takes them, or nil when a level is a function (or too many).
local function bank_levels(rule)
  local levels = rule.levels
  if #levels > 16 then return nil end
  local out = {}
  for i, lv in ipairs(levels) do
    local c = lv.cond
    if lv.fn or not c then return nil end
    out[i] = { up = c.op == ">", x = c.x, clear = c.clear, rank = lv.rank or 0 }
  end
  return out
end

-- What eval_rule needs of a rule, worked out once.
local function rule_info(rule)
  local value, levels = rule.value, rule.levels
  local lv1 = levels[1]
  local c1 = lv1.cond
  local single = #levels == 1 and c1 ~= nil and lv1.fn == nil
  local key = rule.source and source_key(rule, rule.source)
  return {
    -- the rule bank (C) takes per-instance rules with threshold levels while their list is steady
    blevels = key and rule.per == "instance" and bank_levels(rule) or nil, fast = false,
    key = key,
    raw = value.raw or false, window = value.window, fn = value.fn, p = value.p,
    filtered = rule.instances ~= nil or rule.exclude ~= nil,
    per_instance = rule.per == "instance",
    up = c1 == nil or c1.op == ">",
    single = single, op = single and c1.op, x = single and c1.x, clear = single and c1.clear or nil,
    sev = single and lv1.severity, every = rule.every, fwin = rule.flap and rule.flap.window or nil,
    fhigh = rule.flap and rule.flap.high, flow = rule.flap and rule.flap.low, keep = rule.keep,
    ver = nil, names = nil, literal = literal_of(rule.instances),    -- the instance list cache (names_of)
  }
end

local function new_engine(set, opts)
  opts = opts or {}
  -- opts.interval: the sampling interval (seconds), for telling gaps (see E.gap_limit)
  local self = setmetatable({ set = set, rules = set:list(), st = {}, limit = opts.limit or E.DEFAULT_LIMIT,
                              t = nil, errors = {}, recs = {}, srcs = {}, stamp = 0, hook_off = {},
                              todo = {}, vers = {}, bkeys = {}, flagbuf = {} }, Engine)
  self.memory, self.hook_boxes = opts.memory or E.DEFAULT_MEMORY, {}     -- for the sandbox
  -- opts.bank = false: every rule through the Lua path (the specs compare both)
  if opts.bank ~= false then self.bank = core.rulebank(#self.rules) end
  for i, rule in ipairs(self.rules) do
    -- the rule's state, with what eval_rule needs of its definition worked out once
    local rs = rule_info(rule)
    rs.series, rs.alerts, rs.disabled, rs.last_eval = {}, {}, false, nil
    rs.gap = E.gap_limit(rule.every, opts.interval)
    self.st[rule.name], self.recs[i] = rs, rs
  end
  return self
end

--- The sources the rules need: list of { key =, path =, raw = bool }.
function Engine:sources()
  local seen, out = {}, {}
  local function add(rule, path)
    local key = source_key(rule, path)
    if not seen[key] then
      seen[key] = true
      out[#out + 1] = { key = key, path = path, raw = rule.value.raw or false }
    end
  end
  for _, rule in ipairs(self.rules) do
    if rule.source then add(rule, rule.source) end
    for _, p in ipairs(rule.sources or {}) do
      if not seen[p] then seen[p] = true; out[#out + 1] = { key = p, path = p, raw = false } end
    end
  end
  return out
end

-- ---------------------------------------------------------------- sandboxed function conditions

-- fn(arg) in the box; a stop signal (TERM, INT) is not the rule's fault: it is raised as
-- { interrupted = message } and the engine stops without disabling anything.
local function call_limited(box, fn, arg)
  local ok, res, kind = S.call(box, fn, arg)
  if not ok and kind == "signal" then error({ interrupted = res }, 0) end
  return ok, res
end

local A = require "perflib.rules.alert"
local copy, new_alert, outcome, enter_unknown = A.copy, A.new_alert, A.outcome, A.enter_unknown
E.render = A.render           -- message templates: {instance} {value:%.1f} {age} {severity} and labels

-- ---------------------------------------------------------------- per-instance evaluation

-- Condition of one level given the value and the latched side; returns the new latch.
local function level_on(cond, v, latched)
  if cond.op == ">" then
    if latched then
      if cond.clear then return v >= cond.clear end
      return v > cond.x
    end
    return v > cond.x
  else
    if latched then
      if cond.clear then return v <= cond.clear end
      return v < cond.x
    end
    return v < cond.x
  end
end

-- Push the sample into the series and cook the rule's value (in C, as the rule bank does):
-- returns value or nil, why.  A value that is not a number counts as none.
local function cook(ri, ser, name, fs, t)
  local vt, st = fs.value, fs.status
  local v, status = vt and vt[name], st and st[name]
  if type(v) ~= "number" then v = nil end
  status = status or (v ~= nil and "valid" or "no_data")
  ser.status = status
  return wcook(ser.win, t, v, status, ri.fn, ri.window, ri.p)
end

-- Evaluate one instance: returns cond (true/false/nil), why, value, severity; updates its series.
local function eval_instance(self, rule, ri, ser, name, fs, t)
  local value, why
  if ri.key then value, why = cook(ri, ser, name, fs, t) end
  ser.value = value
  if why then ser.why = why; return nil, why end
  ser.why = nil
  if ri.single then
    -- one threshold level (level_on inlined); its latch is ser.l1
    local on
    if ri.op == ">" then
      if ser.l1 and ri.clear then on = value >= ri.clear else on = value > ri.x end
    else
      if ser.l1 and ri.clear then on = value <= ri.clear else on = value < ri.x end
    end
    ser.l1 = on
    if on then return true, nil, value, ri.sev end
    return false, nil, value, nil
  end
  local sev, rank, any = nil, 0, false
  ser.latch = ser.latch or {}
  for i, lv in ipairs(rule.levels) do
    local on
    if lv.fn then
      local ctx = { value = value, instance = name, t = t, active = ser.latch[i] or false, frame = self.frame,
                    get = function(_, path, inst)
                      local s = self.frame[path]
                      return s and s.value and s.value[inst or ""] end }
      local ok, res = call_limited(ri.box, lv.fn, ctx)
      if not ok then error({ rule_error = tostring(res) }) end
      if res ~= nil and type(res) ~= "boolean" then
        error({ rule_error = "the function must return true, false or nil, not " .. type(res) })
      end
      if res == nil then ser.why = "function_unknown"; return nil, "no_data", value end
      on = res
    else
      on = level_on(lv.cond, value, ser.latch[i])
    end
    ser.latch[i] = on
    if on then any = true; if lv.rank >= rank then sev, rank = lv.severity, lv.rank end end
  end
  return any, nil, value, sev
end

--- Does the rule watch an instance of this name (its `instances` and `exclude` patterns)?
local function want(rule, name)
  if rule.instances and not sfind(name, rule.instances) then return false end
  if rule.exclude and sfind(name, rule.exclude) then return false end
  return true
end
E.want = want

local CMPF = {
  [">="] = function(a, b) return a >= b end, [">"] = function(a, b) return a > b end,
  ["<="] = function(a, b) return a <= b end, ["<"] = function(a, b) return a < b end,
  ["=="] = function(a, b) return a == b end,
}

-- Three-valued aggregate: true / false / nil from the numbers of true, unknown and all instances.
local function aggregate(per, trues, unknowns, total)
  if total == 0 then return nil end
  local lo, hi
  if per.agg == "all" then
    if trues == total then return true end
    if trues + unknowns < total then return false end
    return nil
  elseif per.agg == "share" then
    lo, hi = trues / total >= per.p, (trues + unknowns) / total >= per.p
  else
    local f = CMPF[per.op]
    lo, hi = f(trues, per.n), f(trues + unknowns, per.n)
    if per.op == "<=" or per.op == "<" then lo, hi = hi, lo end
  end
  if lo and hi then return true end
  if not lo and not hi then return false end
  return nil
end

-- ---------------------------------------------------------------- instance lists, once per source and frame

local NO_NAMES = {}
local NOSRC_NAMES, NOSRC_FS = { "" }, { instances = { "" }, value = {}, status = { [""] = "valid" } }

-- The instance list of source `key` in this frame: { list =, ver = } where ver changes
-- only when the list does (compared once per source and frame, not once per rule).
local function source_list(self, key, fs)
  local sc = self.srcs[key]
  if sc and sc.stamp == self.stamp then return sc end
  if not sc then sc = { list = NO_NAMES, ver = 0 }; self.srcs[key] = sc end
  sc.stamp = self.stamp
  local insts, list = fs.instances or NO_NAMES, sc.list
  local same, n = sc.ver > 0, 0
  while true do                                  -- as ipairs: up to the first nil
    local name = insts[n + 1]
    if name == nil then break end
    n = n + 1
    if same and list[n] ~= name then same = false end
  end
  if same and list[n + 1] ~= nil then same = false end
  if not same then
    sc.list = compat.move(insts, 1, n, 1, {})     -- a new table: rules may hold the old one
    sc.ver, sc.count = sc.ver + 1, nil
  end
  return sc
end

-- How many times each name occurs in the source's list (for "^name$" filters).
local function counts_of(sc)
  local c = sc.count
  if c then return c end
  c = {}
  for _, n in ipairs(sc.list) do
    if type(n) ~= "string" then c = false; break end
    c[n] = (c[n] or 0) + 1
  end
  sc.count = c
  return c
end

-- The instances a rule watches in this frame, in frame order: worked out again only when
-- the source's list changes.  A filter "^name$" without magic characters is a look-up.
local function names_of(rule, ri, sc)
  if ri.ver == sc.ver then return ri.names end
  local names
  if not ri.filtered then
    names = sc.list
  else
    local counts = ri.literal and counts_of(sc)
    if counts then
      names = {}
      local lit = ri.literal
      local k = counts[lit] or 0
      if k > 0 and rule.exclude and sfind(lit, rule.exclude) then k = 0 end
      for i = 1, k do names[i] = lit end
    else
      names = {}
      for _, n in ipairs(sc.list) do
        if want(rule, n) then names[#names + 1] = n end
      end
    end
  end
  ri.ver, ri.names = sc.ver, names
  return names
end

-- ---------------------------------------------------------------- the rule bank (fast path in C)

-- What the bank may do on its own for an alert, given its last condition c and level lvl:
-- 1 while inactive and the condition stays false, 2 while firing and it stays true at the
-- same level, 3 while recovering and it stays false within `keep`, 0 nothing (the Lua
-- path steps it).  The bank also steps the flap history,
-- and hands the alert back when a push would start or end flapping.
local function quiet_mode(a, c, lvl)
  if a.reason ~= nil or a.miss ~= 0 or a.unseen then return 0, -1 end
  if c == false and a.state == "inactive" then return 1, -1 end
  if c == true and lvl and a.state == "firing" and a.severity == a.last_severity then return 2, lvl - 1 end
  if c == false and a.state == "recovering" then return 3, -1, a.clear_since end
  return 0, -1
end

-- Hand rule i to the bank: its instances `names` (none twice), windows, latches.
local function register(self, i, rs, names)
  local series, alerts, fwin = rs.series, rs.alerts, rs.fwin
  local seen, wins, latch, mode, flaps, flapping = {}, {}, {}, {}, {}, {}
  for k = 1, #names do
    local name = names[k]
    if seen[name] then return end        -- one series for two entries: the Lua path keeps it
    seen[name] = true
    local ser, a = series[name], alerts[name]
    wins[k] = ser.win
    local l = 0
    if ser.latch then
      for j, on in pairs(ser.latch) do if on then l = bor(l, bit(j)) end end
    elseif ser.l1 then
      l = 1
    end
    latch[k], mode[k] = l, a.state == "inactive" and quiet_mode(a, ser.lastc) or 0
    flaps[k], flapping[k] = a.flap or false, a.flapping
  end
  local sid = rs.sid
  if not sid then
    sid = self.bank:source(rs.key)
    rs.sid, self.bkeys[sid] = sid, rs.key
  end
  self.bank:set(i, { sid = sid, ver = rs.ver, every = rs.every or 0, last = rs.last_eval, fn = rs.fn,
                     window = rs.window or 0, p = rs.p or 0, levels = rs.blevels, names = names, wins = wins,
                     latch = latch, mode = mode, flaps = flaps, flapping = flapping, keep = rs.keep, gap = rs.gap,
                     high = fwin and rs.fhigh, low = fwin and rs.flow })
  rs.fast, rs.fnames = true, names
end

-- Bring rule i's series and alerts up to date with the bank (values, statuses, latches).
local function sync_rule(self, i, rs)
  local last, stepped = self.bank:rule(i)
  rs.last_eval = last
  if not stepped then return end
  local series, alerts, single, result = rs.series, rs.alerts, rs.single, self.bank.result
  for k, name in ipairs(rs.fnames) do
    local c, why, value, _, status, latch = result(self.bank, i, k)
    local ser = series[name]
    ser.value, ser.why, ser.status, ser.lastc = value, why, status, c
    if single then
      ser.l1 = band(latch, 1) ~= 0
    else
      local l = {}
      for j = 1, #rs.blevels do l[j] = band(latch, bit(j)) ~= 0 end
      ser.latch = l
    end
    local a = alerts[name]
    a.value = value
    if a.flap then a.flap_pct = a.flap:pct() end
  end
end

-- Rule i left the fast path (its list changed): the Lua path takes over with its state, and
-- the bank lets go of the old windows and flap histories.
local function leave_fast(self, i, rs)
  sync_rule(self, i, rs)
  self.bank:drop(i)
  rs.fast = false
end

-- A fast rule with flagged alerts: the state machine for those, with the values the bank cooked
-- (their series learn them at the next sync).
local function finish_fast(self, rule, rs, t, _, i)
  local bank, buf = self.bank, self.flagbuf
  local cnt, dt = bank:flagged(i, buf)
  local alerts, names, levels = rs.alerts, rs.fnames, rule.levels
  for j = 0, 5 * (cnt - 1), 5 do
    local k, c, why, value, lvl = buf[j + 1], buf[j + 2], buf[j + 3], buf[j + 4], buf[j + 5]
    local a = alerts[names[k]]
    a.value = value
    if lvl then a.severity = levels[lvl].severity end
    outcome(self, rule, a, t, c, why, dt)
    local m, l, since = quiet_mode(a, c, lvl)
    bank:quiet(i, k, m, l, a.flapping, since)
  end
end

-- The keys of t (not in `except`), sorted.
local function sorted_names(t, except)
  local out = {}
  for name in pairs(t) do
    if not (except and except[name]) then out[#out + 1] = name end
  end
  table.sort(out)
  return out
end

local function eval_rule(self, rule, rs, t, frame, i)
  local ri = rs
  local last = rs.last_eval
  local dt = last and (t - last) or nil
  local every = rs.every
  if every and last and t - last < every - 1e-9 then return end
  rs.last_eval = t
  local fs, names
  if not ri.key then
    names, fs = NOSRC_NAMES, NOSRC_FS
  else
    fs = frame[ri.key]
    if fs and not fs.error then names = names_of(rule, ri, source_list(self, ri.key, fs)) end
  end
  local per_instance = ri.per_instance
  local series, alerts = rs.series, rs.alerts
  -- clean: after the last evaluation the series (and alerts) were exactly these names,
  -- so none is new and none vanished
  local clean = names ~= nil and rs.clean == names
  if clean and per_instance then
    local fwin, n1 = rs.fwin, rs.n1
    for k = 1, n1 and 1 or #names do
      local name, ser, a = n1, rs.ser1, rs.a1
      if not n1 then name = names[k]; ser, a = series[name], alerts[name] end
      local c, why, value, s = eval_instance(self, rule, ri, ser, name, fs, t)
      ser.lastc = c
      a.value, a.severity = value, s or a.severity
      if c == false and a.state == "inactive" and not a.flapping
         and (not fwin or a.flap:steady(false)) then
        -- what outcome() does for a quiet alert that stays quiet, flap history steady
        a.miss, a.miss_since, a.reason, a.unseen = 0, nil, nil, nil
        if fwin then a.flap_pct = 0.0 end
      else
        outcome(self, rule, a, t, c, why, dt)
      end
    end
    return
  end
  rs.clean, rs.n1, rs.ser1, rs.a1 = nil, nil, nil, nil
  local present = not clean and {} or nil
  local trues, unknowns, total, worst, sev, rank, insts = 0, 0, 0, nil, nil, 0, {}
  local up = ri.up
  for _, name in ipairs(names or NO_NAMES) do
    local ser
    if present then
      present[name] = true
      ser = series[name]
      if not ser then
        ser = { win = W.new(ri.window, ri.raw, ri.fn) }
        series[name] = ser
      end
    else
      ser = series[name]
    end
    local c, why, value, s = eval_instance(self, rule, ri, ser, name, fs, t)
    ser.lastc = c
    if per_instance then
      local a = alerts[name]
      if not a then a = new_alert(rule, name); alerts[name] = a end
      a.value, a.severity = value, s or a.severity
      outcome(self, rule, a, t, c, why, dt)
    else
      total = total + 1
      if c == nil then unknowns = unknowns + 1
      elseif c then
        trues = trues + 1
        insts[#insts + 1] = name
        if s and R.SEVERITY[s] >= rank then sev, rank = s, R.SEVERITY[s] end
      end
      if value and (worst == nil or (up and value > worst) or (not up and value < worst)) then worst = value end
    end
  end
  local tidy = names ~= nil
  if present then
    if not names then
      -- the whole source is missing: no data for every known instance (in name order, so
      -- that the events come in the same order whatever the hash tables did)
      for name in pairs(series) do present[name] = true end
      if per_instance then
        for _, name in ipairs(sorted_names(alerts)) do outcome(self, rule, alerts[name], t, nil, "no_data", dt) end
      end
    end
    -- vanished instances: their window goes, their alert follows the `vanish` policy
    for name in pairs(series) do
      if not present[name] then series[name] = nil end
    end
    if per_instance then
      for _, name in ipairs(sorted_names(alerts, present)) do
        local a = alerts[name]
        a.value = nil
        outcome(self, rule, a, t, nil, "vanished", dt)
        if rule.vanish == "resolve" then alerts[name] = nil else tidy = false end
      end
    end
  end
  if tidy then
    rs.clean = names
    if per_instance and #names == 1 then   -- one instance: its series and alert at hand
      local n1 = names[1]
      rs.n1, rs.ser1, rs.a1 = n1, series[n1], alerts[n1]
    end
    if per_instance and rs.blevels and self.bank then register(self, i, rs, names) end
  end
  if not per_instance then
    local a = alerts[""]
    if not a then a = new_alert(rule, nil); alerts[""] = a end
    local c = nil
    if names then c = aggregate(rule.per, trues, unknowns, total) end
    a.value, a.severity, a.instances = worst, sev or a.severity, insts
    outcome(self, rule, a, t, c, c == nil and "no_data" or nil, dt)
  end
end

--- Evaluate every rule at sample time t on `frame`; returns the list of events.
-- Run fn (eval_rule or finish_fast) for rule i; a rule that raises is reported and disabled.
local function run(self, fn, rule, rs, t, frame, i)
  local ok, err = pcall(fn, self, rule, rs, t, frame, i)
  if ok then return end
  if type(err) == "table" and err.interrupted then self.interrupted = err.interrupted; return end
  local msg = type(err) == "table" and err.rule_error or tostring(err)
  if rs.fast then leave_fast(self, i, rs) end
  if self.bank then self.bank:off(i) end
  rs.disabled, rs.error = true, msg
  local e = { rule = rule.name, t = t, message = ("rule %q disabled: %s"):format(rule.name, msg) }
  self.errors[#self.errors + 1] = e
  self.events[#self.events + 1] = { kind = "rule_error", rule = rule.name, t = t, message = e.message,
                                    labels = { alertname = rule.name } }
  for _, name in ipairs(sorted_names(rs.alerts)) do enter_unknown(self, rule, rs.alerts[name], t, "rule_error") end
end

--- Evaluate every rule at sample time t on `frame`; returns the list of events.
function Engine:feed(t, frame)
  if self.t and t < self.t then error(("feed: time went backwards (%g < %g)"):format(t, self.t), 2) end
  self.t, self.frame, self.events, self.interrupted = t, frame, {}, nil
  self.stamp = self.stamp + 1
  local recs, rules, bank = self.recs, self.rules, self.bank
  if bank then
    -- the bank cooks the fast rules and lists, in rule order, what the Lua path must do
    local vers, bkeys, todo = self.vers, self.bkeys, self.todo
    for sid = 1, #bkeys do
      local key = bkeys[sid]
      local fs = frame[key]
      vers[sid] = type(fs) == "table" and not fs.error and source_list(self, key, fs).ver or -1
    end
    for k = 1, bank:step(t, frame, vers, todo) do
      local i = todo[k]
      if i > 0 then
        local rs = recs[i]
        if rs.fast then leave_fast(self, i, rs) end
        run(self, eval_rule, rules[i], rs, t, frame, i)
      else
        run(self, finish_fast, rules[-i], recs[-i], t, frame, -i)
      end
    end
  else
    for i, rule in ipairs(rules) do
      local rs = recs[i]
      if not rs.disabled then run(self, eval_rule, rule, rs, t, frame, i) end
    end
  end
  local evs = self.events
  self.events, self.frame = nil, nil
  -- on_transition hooks see every event; a failing hook is reported and dropped
  local hooks = self.set.hooks
  if hooks and #evs > 0 and not self.interrupted then
    local n = #evs
    for h = #hooks, 1, -1 do
      local fn = hooks[h]
      if not self.hook_off[fn] then
        for k = 1, n do
          local ok, err, kind = S.call(self.hook_boxes[h], fn, evs[k])
          if kind == "signal" then self.interrupted = err; return evs end
          if not ok then
            self.hook_off[fn] = true
            evs[#evs + 1] = { kind = "rule_error", rule = "on_transition", t = t,
                              labels = { alertname = "on_transition" },
                              message = "on_transition hook disabled: " .. tostring(err) }
            break
          end
        end
      end
    end
  end
  return evs
end

-- Sandbox the function conditions and hooks once: each rule (all its levels) and each hook
-- in an environment of its own, made here and not per call.
local function prepare(self, hooks)
  for i, rule in ipairs(self.rules) do
    for _, lv in ipairs(rule.levels) do
      if lv.fn then
        local rs = self.recs[i]
        rs.box = rs.box or S.box(nil, rule.limit or self.limit, self.memory)
        S.bind(lv.fn, rs.box.env)
      end
    end
  end
  for h, fn in ipairs(hooks or {}) do
    self.hook_boxes[h] = S.box(nil, self.limit, self.memory)
    S.bind(fn, self.hook_boxes[h].env)
  end
end
--- A new engine for a rule set (as built by perflib.rules).  opts: `limit` (instructions per
-- call of a function condition or hook), `memory` (bytes per call), `bank` (false: no rule bank).
-- After a feed that a trapped TERM or INT cut short, `eng.interrupted` says so.
function E.new(set, opts)
  local self = new_engine(set, opts)
  prepare(self, set.hooks)
  return self
end

-- A series' latched sides (single-level rules keep theirs in ser.l1).
local function latch_of(ser)
  if ser.latch then return copy(ser.latch) end
  if ser.l1 ~= nil then return { ser.l1 } end
end

local function find_alert(self, rule_name, labels)
  local rs = self.st[rule_name]
  if not rs then return nil end
  for _, name in ipairs(sorted_names(rs.alerts)) do       -- the first in instance order
    local a = rs.alerts[name]
    local ok = true
    for k, v in pairs(labels or {}) do
      if k ~= "severity" and a.labels[k] ~= v then ok = false; break end
    end
    if ok then return a, rs end
  end
  return nil, rs
end

--- Bring the engine's tables (values, statuses, latches of the alerts and series) up to date
-- with the rule bank.  state, explain and export_state do it themselves.
function Engine:sync()
  if not self.bank then return end
  for i, rs in ipairs(self.recs) do
    if rs.fast then sync_rule(self, i, rs) end
  end
end

--- State of one alert instance: state string and an info table (nil when never seen).
function Engine:state(rule_name, labels)
  self:sync()
  local a, rs = find_alert(self, rule_name, labels)
  if not rs then return nil, "no rule " .. tostring(rule_name) end
  if rs.disabled and not a then return "disabled", { error = rs.error } end
  if not a then return "inactive" end
  return a.state, { labels = copy(a.labels), value = a.value, severity = a.severity, active_since = a.active_since,
                    fired_at = a.fired_at, flapping = a.flapping, reason = a.reason, prior = a.prior,
                    why = a.why, disabled = rs.disabled or nil, error = rs.error, instances = a.instances }
end

--- Why each alert instance of a rule is in its state: window, cooked value, threshold side.
function Engine:explain(rule_name)
  self:sync()
  local rs = self.st[rule_name]
  if not rs then return nil, "no rule " .. tostring(rule_name) end
  local rule = self.set.rules[rule_name]
  local out = { rule = rule_name, t = self.t, disabled = rs.disabled, error = rs.error, value = rule.value.fn,
                window = rule.value.window, instances = {} }
  for name, ser in pairs(rs.series) do
    local sides = {}
    for i, lv in ipairs(rule.levels) do
      local c = lv.cond
      local latch = latch_of(ser)
      sides[#sides + 1] = { severity = lv.severity, on = latch and latch[i] or false,
        threshold = c and c.x, clear = c and (c.clear or c.x), op = c and c.op or "function" }
    end
    out.instances[#out.instances + 1] = { instance = name, window = W.entries(ser.win), value = ser.value,
      status = ser.status, unknown = ser.why, levels = sides }
  end
  table.sort(out.instances, function(a, b) return a.instance < b.instance end)
  out.alerts = {}
  for _, name in ipairs(sorted_names(rs.alerts)) do       -- in instance order, like the series
    local a = rs.alerts[name]
    out.alerts[#out.alerts + 1] = { labels = copy(a.labels), state = a.state, why = a.why, value = a.value,
      severity = a.severity, flapping = a.flapping, flap_pct = a.flap_pct, active_since = a.active_since }
  end
  return out
end

--- Plain data of every rule's state (windows and alerts), keyed by rule name with its hash.
function Engine:export_state()
  self:sync()
  local out = { version = 1, t = self.t, rules = {} }
  for _, rule in ipairs(self.rules) do
    local rs = self.st[rule.name]
    local series = {}
    for name, ser in pairs(rs.series) do
      series[name] = { win = ser.win:export(), latch = latch_of(ser) }
    end
    local alerts = {}
    for name, a in pairs(rs.alerts) do
      -- plain data: the flap history as its bits
      local h = a.flap
      a.flap = nil
      alerts[name] = copy(a)
      a.flap = h
      if h then alerts[name].flaps = h:bits() end
    end
    out.rules[rule.name] = { hash = rule.hash, series = series, alerts = alerts,
                             last_eval = rs.last_eval }
  end
  return out
end

--- Take over the state of rules whose definition hash is unchanged; returns the kept rule names.
function Engine:import_state(st)
  local kept = {}
  if type(st) ~= "table" or st.version ~= 1 then return kept end
  for i, rule in ipairs(self.rules) do
    local r = st.rules[rule.name]
    if r and r.hash == rule.hash then
      local rs = self.st[rule.name]
      if rs.fast then self.bank:drop(i); rs.fast = false end
      for name, s in pairs(r.series) do
        local ser = { win = W.from(s.win, rule.value.fn), latch = copy(s.latch) }
        if rs.single then ser.l1, ser.latch = s.latch and s.latch[1], nil end
        rs.series[name] = ser
      end
      rs.alerts = copy(r.alerts)
      for _, a in pairs(rs.alerts) do
        if rule.flap then a.flap = core.flap(rule.flap.window, a.flaps) end
        a.flaps = nil
      end
      rs.clean, rs.n1, rs.ser1, rs.a1 = nil, nil, nil, nil
      rs.last_eval = r.last_eval
      kept[#kept + 1] = rule.name
    end
  end
  if st.t and (not self.t or st.t > self.t) then self.t = st.t end
  table.sort(kept)
  return kept
end

E.ACTIVE = A.ACTIVE
E.sorted_names = sorted_names
return E
