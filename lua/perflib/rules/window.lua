--- perflib.rules.window: (t, value) windows on sample time and their reducers.
-- A cooked window keeps valid values; a raw window keeps raw counter values with a reset
-- flag on the sample that went backwards (its interval is never counted: no spike).
--
-- Samples live in a ring (times and values side by side in one table; the reset flags of
-- raw windows in another) that doubles when full: pushing and pruning allocate nothing.
-- Samples are numbered lo..hi for ever; sample i sits in slot (i - 1) & mask.
--
-- A cooked window made for one reducer (`W.new(span, false, fn)`, fn avg, min, max or pct)
-- keeps that reducer's state as samples come and go, so `reduce` costs O(1) (avg: a
-- compensated running sum; min, max: a monotonic deque) or O(log n) (pct: the values
-- kept sorted) instead of a pass over the window.  A window holding a non-finite value,
-- and any other reducer, make the pass.
local W = {}
W.__index = W

local huge = math.huge
local tinsert, tremove = table.insert, table.remove
local mtype, ult = math.type, math.ult

local AGG = { avg = true, min = true, max = true, pct = true }

--- A new window keeping `span` seconds (raw windows keep one sample more for deltas).
-- `fn`: the reducer this window will be reduced with (its state is kept incrementally).
function W.new(span, raw, fn)
  local w = setmetatable({ span = span or 0, raw = raw or false, b = {}, lo = 1, hi = 0, mask = 3 }, W)
  if raw then w.r = {} end
  if fn and AGG[fn] and not raw then w.agg, w.ok = fn, false end
  return w
end

-- Double the ring, keeping the samples' numbers.
local function grow(self)
  local b, r, mask = self.b, self.r, self.mask
  local nb, nr, nmask = {}, r and {}, mask * 2 + 1
  for i = self.lo, self.hi do
    local p, q = (i - 1) & mask, (i - 1) & nmask
    nb[2 * q + 1], nb[2 * q + 2] = b[2 * p + 1], b[2 * p + 2]
    if r then nr[q + 1] = r[p + 1] end
  end
  self.b, self.r, self.mask = nb, nr, nmask
  self.ok = false                       -- the deque's ring follows at the next reduce
end

-- Append sample hi + 1 (no reducer state).
local function append(self, t, v, reset)
  local hi = self.hi + 1
  if hi - self.lo > self.mask then grow(self) end
  self.hi = hi
  local p = (hi - 1) & self.mask
  local b = self.b
  b[2 * p + 1], b[2 * p + 2] = t, v
  if self.r then self.r[p + 1] = reset or false end
  return hi, p
end

--- Rebuild a window from exported data (`fn` as for W.new).
function W.from(d, fn)
  local w = W.new(d.span, d.raw, fn)
  for i = 1, #d.t do append(w, d.t[i], d.v[i], d.r[i]) end
  return w
end

-- Time, value and reset flag of sample i.
local function at(self, i)
  local p = (i - 1) & self.mask
  local r = self.r
  return self.b[2 * p + 1], self.b[2 * p + 2], r and r[p + 1] or false
end

function W:export()
  local d = { span = self.span, raw = self.raw, t = {}, v = {}, r = {} }
  for i = self.lo, self.hi do
    local j = i - self.lo + 1
    d.t[j], d.v[j], d.r[j] = at(self, i)
  end
  return d
end

-- ---------------------------------------------------------------- incremental reducer state
-- ok: the state matches samples lo..hi.  nf: how many of them are not finite (left out of
-- the state).  avg: sum + c (Neumaier).  min, max: a ring dq of (sample number, value)
-- pairs at dlo..dhi with the ring's mask.  pct: the values, sorted.

local function finite(v) return v == v and v ~= huge and v ~= -huge end

-- Lowest position in sorted s[1..n] whose value is >= v (or > v when `after`).
local function bsearch(s, n, v, after)
  local a, b = 1, n + 1
  while a < b do
    local m = (a + b) // 2
    local x = s[m]
    if x < v or (after and x == v) then a = m + 1 else b = m end
  end
  return a
end

local function kahan(self, x)
  local s = self.sum
  local t = s + x
  if (s >= 0 and s or -s) >= (x >= 0 and x or -x) then self.c = self.c + ((s - t) + x)
  else self.c = self.c + ((x - t) + s) end
  self.sum = t
end

local function agg_add(self, i, v)
  if v ~= v or v == huge or v == -huge then self.nf = self.nf + 1; return end
  local fn = self.agg
  if fn == "avg" then
    kahan(self, v + 0.0)
  elseif fn == "pct" then
    local s = self.sorted
    tinsert(s, bsearch(s, #s, v, true), v)
  else
    local dq, mask = self.dq, self.mask
    local dlo, dhi = self.dlo, self.dhi
    if fn == "min" then
      while dhi >= dlo and dq[2 * ((dhi - 1) & mask) + 2] >= v do dhi = dhi - 1 end
    else
      while dhi >= dlo and dq[2 * ((dhi - 1) & mask) + 2] <= v do dhi = dhi - 1 end
    end
    dhi = dhi + 1
    local p = (dhi - 1) & mask
    dq[2 * p + 1], dq[2 * p + 2] = i, v
    self.dhi = dhi
  end
end

local function agg_drop(self, i, v)
  if v ~= v or v == huge or v == -huge then self.nf = self.nf - 1; return end
  local fn = self.agg
  if fn == "avg" then
    kahan(self, -(v + 0.0))
  elseif fn == "pct" then
    local s = self.sorted
    local p = bsearch(s, #s, v, false)
    if s[p] ~= v then self.ok = false; return end    -- cannot happen with finite values
    tremove(s, p)
  else
    local dlo = self.dlo
    if self.dhi >= dlo and self.dq[2 * ((dlo - 1) & self.mask) + 1] == i then self.dlo = dlo + 1 end
  end
end

local function agg_rebuild(self)
  self.ok, self.nf, self.sum, self.c = true, 0, 0.0, 0.0
  local fn = self.agg
  if fn == "avg" then
    -- the same pass as the reducer's: the running sum starts again from the exact figure
    local sum, nf = 0.0, 0
    for i = self.lo, self.hi do
      local _, v = at(self, i)
      if finite(v) then sum = sum + v else nf = nf + 1 end
    end
    self.sum, self.nf, self.since = sum, nf, 0
  elseif fn == "pct" then
    local s, n, nf = {}, 0, 0
    for i = self.lo, self.hi do
      local _, v = at(self, i)
      if finite(v) then n = n + 1; s[n] = v else nf = nf + 1 end
    end
    table.sort(s)
    self.sorted, self.nf = s, nf
  else
    self.dq, self.dlo, self.dhi = {}, 1, 0
    for i = self.lo, self.hi do
      local _, v = at(self, i)
      agg_add(self, i, v)
    end
  end
end

--- Drop what is older than the span at time `now`.
local function prune(self, now)
  local keep_from = now - self.span
  local raw, b, mask = self.raw, self.b, self.mask
  local lo, hi = self.lo, self.hi
  while lo <= hi do
    local p = (lo - 1) & mask
    local t = b[2 * p + 1]
    if t < keep_from or (not raw and t <= keep_from and lo < hi) then
      if self.ok then agg_drop(self, lo, b[2 * p + 2]) end
      lo = lo + 1
    else
      break
    end
  end
  self.lo = lo
  if self.agg == "avg" and self.ok then
    -- now and then the running sum starts afresh: no drift however long it runs
    local since = (self.since or 0) + 1
    self.since = since
    if since > 64 and since > hi - lo then agg_rebuild(self) end
  end
end
W.prune = prune

--- Latest raw value and time, or nil.
function W:latest()
  if self.hi >= self.lo then
    local t, v = at(self, self.hi)
    return v, t
  end
end

--- Is `v` below `prev` (a counter reset)? Integers compare unsigned (values >= 2^63 read negative).
function W.decreased(v, prev)
  if mtype(v) == "integer" and mtype(prev) == "integer" then return ult(v, prev) end
  return v < prev
end

--- Push a sample. For raw windows `reset` marks a counter reset at this sample.
-- Returns true when the sample is a reset (raw: the value went backwards or was flagged).
function W:push(t, v, reset)
  local was_reset = false
  local hi = self.hi
  local nonempty = hi >= self.lo
  local p = (hi - 1) & self.mask
  if self.raw and nonempty then
    was_reset = reset or W.decreased(v, self.b[2 * p + 2])
  end
  if nonempty and self.b[2 * p + 1] >= t then
    -- the same or an older timestamp: replace the last sample (one clock, never backwards)
    self.b[2 * p + 2] = v
    if self.r then self.r[p + 1] = was_reset end
    self.ok = false
  else
    hi = append(self, t, v, was_reset)
    if self.ok then agg_add(self, hi, v) end
  end
  prune(self, t)
  return was_reset
end

--- Entries as a list of { t, v } (for explain).
function W:entries()
  local out = {}
  for i = self.lo, self.hi do
    local t, v, r = at(self, i)
    out[#out + 1] = { t = t, v = v, reset = r or nil }
  end
  return out
end

-- The p-th percentile of sorted vals[1..n] (linear interpolation).
local function pct_sorted(vals, n, p)
  if n == 1 then return vals[1] end
  local pos = (p / 100) * (n - 1) + 1
  local i = math.floor(pos)
  local f = pos - i
  if i >= n then return vals[n] end
  return vals[i] + f * (vals[i + 1] - vals[i])
end

--- Reduce the window at time `now` with the value spec `spec` ({fn=, window=, p=}).
-- Returns the value or nil (unknown: no usable samples or intervals).
function W:reduce(spec, now)
  return W.reduce_by(self, spec.fn, spec.window, spec.p, now)
end

--- The same with the spec's fields as arguments.
function W.reduce_by(self, fn, window, p_, now)
  local lo, hi = self.lo, self.hi
  if hi < lo then return nil end
  local b, mask = self.b, self.mask
  if fn == "last" or fn == "raw" then return b[2 * ((hi - 1) & mask) + 2] + 0.0 end
  local from = now - window
  if fn == self.agg and b[2 * ((lo - 1) & mask) + 1] > from then
    -- every sample of the window counts: the kept state answers
    if not self.ok then agg_rebuild(self) end
    if self.nf == 0 then
      if fn == "avg" then return (self.sum + self.c) / (hi - lo + 1)
      elseif fn == "pct" then
        local s = self.sorted
        return pct_sorted(s, #s, p_) + 0.0
      else
        return self.dq[2 * ((self.dlo - 1) & self.mask) + 2] + 0.0
      end
    end
  end
  if fn == "rate" or fn == "increase" then
    local sum, dt, pairs_ = 0.0, 0.0, 0
    local pt, pv = at(self, lo)
    for i = lo + 1, hi do
      local t, v, r = at(self, i)
      if pt >= from and not r then
        local d = v - pv
        d = d + 0.0
        sum, dt, pairs_ = sum + d, dt + (t - pt), pairs_ + 1
      end
      pt, pv = t, v
    end
    if pairs_ == 0 then return nil end
    if fn == "increase" then return sum end
    if dt <= 0 then return nil end
    return sum / dt
  end
  local n, sum, mn, mx, vals = 0, 0.0, huge, -huge, nil
  if fn == "pct" then vals = {} end
  for i = lo, hi do
    local p = (i - 1) & mask
    if b[2 * p + 1] > from then
      local v = b[2 * p + 2]
      n, sum = n + 1, sum + v
      if v < mn then mn = v end
      if v > mx then mx = v end
      if vals then vals[#vals + 1] = v end
    end
  end
  if n == 0 then return nil end
  if fn == "avg" then return sum / n
  elseif fn == "min" then return mn + 0.0
  elseif fn == "max" then return mx + 0.0
  elseif fn == "pct" then
    table.sort(vals)
    return pct_sorted(vals, #vals, p_) + 0.0
  end
  error("unknown value function " .. tostring(fn))
end

return W
