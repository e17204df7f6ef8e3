--- perflib.rules.window: (t, value) windows on sample time and their reducers.
-- A cooked window keeps valid values; a raw window keeps raw counter values with a reset
-- flag on the sample that went backwards (its interval is never counted: no spike).
local W = {}
W.__index = W

--- A new window keeping `span` seconds (raw windows keep one sample more for deltas).
function W.new(span, raw)
  return setmetatable({ span = span or 0, raw = raw or false, t = {}, v = {}, r = {}, lo = 1, hi = 0 }, W)
end

--- Rebuild a window from exported data.
function W.from(d)
  local w = W.new(d.span, d.raw)
  for i = 1, #d.t do w.hi = i; w.t[i], w.v[i], w.r[i] = d.t[i], d.v[i], d.r[i] or false end
  return w
end

function W:export()
  local d = { span = self.span, raw = self.raw, t = {}, v = {}, r = {} }
  for i = self.lo, self.hi do
    local j = i - self.lo + 1
    d.t[j], d.v[j], d.r[j] = self.t[i], self.v[i], self.r[i]
  end
  return d
end

local function compact(self)
  local n = 0
  for i = self.lo, self.hi do
    n = n + 1
    self.t[n], self.v[n], self.r[n] = self.t[i], self.v[i], self.r[i]
  end
  for i = n + 1, self.hi do self.t[i], self.v[i], self.r[i] = nil, nil, nil end
  self.lo, self.hi = 1, n
end

--- Drop what is older than the span at time `now`.
function W:prune(now)
  local keep_from = now - self.span
  local raw = self.raw
  while self.lo <= self.hi and (self.t[self.lo] < keep_from or (not raw and self.t[self.lo] <= keep_from
                                                                 and self.lo < self.hi)) do
    self.t[self.lo], self.v[self.lo], self.r[self.lo] = nil, nil, nil
    self.lo = self.lo + 1
  end
  if self.lo > 64 then compact(self) end
end

--- Latest raw value and time, or nil.
function W:latest()
  if self.hi >= self.lo then return self.v[self.hi], self.t[self.hi] end
end

--- Is `v` below `prev` (a counter reset)? Integers compare unsigned (values >= 2^63 read negative).
function W.decreased(v, prev)
  if math.type(v) == "integer" and math.type(prev) == "integer" then return math.ult(v, prev) end
  return v < prev
end

--- Push a sample. For raw windows `reset` marks a counter reset at this sample.
-- Returns true when the sample is a reset (raw: the value went backwards or was flagged).
function W:push(t, v, reset)
  local was_reset = false
  if self.raw and self.hi >= self.lo then
    local prev = self.v[self.hi]
    was_reset = reset or W.decreased(v, prev)
  elseif self.raw then
    was_reset = false
  end
  if self.hi >= self.lo and self.t[self.hi] >= t then
    -- the same or an older timestamp: replace the last sample (one clock, never backwards)
    self.v[self.hi], self.r[self.hi] = v, was_reset
  else
    self.hi = self.hi + 1
    self.t[self.hi], self.v[self.hi], self.r[self.hi] = t, v, was_reset
  end
  self:prune(t)
  return was_reset
end

--- Entries as a list of { t, v } (for explain).
function W:entries()
  local out = {}
  for i = self.lo, self.hi do out[#out + 1] = { t = self.t[i], v = self.v[i], reset = self.r[i] or nil } end
  return out
end

local function pct(vals, p)
  table.sort(vals)
  local n = #vals
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
  local fn = spec.fn
  if self.hi < self.lo then return nil end
  if fn == "last" or fn == "raw" then return self.v[self.hi] + 0.0 end
  if fn == "rate" or fn == "increase" then
    local from = now - spec.window
    local sum, dt, pairs_ = 0.0, 0.0, 0
    for i = self.lo + 1, self.hi do
      if self.t[i - 1] >= from and not self.r[i] then
        local d = self.v[i] - self.v[i - 1]
        d = d + 0.0
        sum, dt, pairs_ = sum + d, dt + (self.t[i] - self.t[i - 1]), pairs_ + 1
      end
    end
    if pairs_ == 0 then return nil end
    if fn == "increase" then return sum end
    if dt <= 0 then return nil end
    return sum / dt
  end
  local from = now - spec.window
  local n, sum, mn, mx, vals = 0, 0.0, math.huge, -math.huge, nil
  if fn == "pct" then vals = {} end
  for i = self.lo, self.hi do
    if self.t[i] > from then
      local v = self.v[i]
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
  elseif fn == "pct" then return pct(vals, spec.p) + 0.0
  end
  error("unknown value function " .. tostring(fn))
end

return W
