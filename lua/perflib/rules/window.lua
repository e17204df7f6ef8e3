--- perflib.rules.window: (t, value) windows on sample time and their reducers.
-- The windows are `perflib.Window` objects of the C core (src/core/window.c): a ring of
-- samples that doubles when full, the reducer state kept as samples come and go (avg: a
-- compensated running sum; min, max: a monotonic deque; pct: the values kept sorted), and
-- for raw windows the integer values with a reset flag on the sample that went backwards
-- (its interval is never counted: no spike).  The rule bank steps the same objects in bulk.
local core = require "perflib.core"

local W = {}

local mtype, ult = math.type, math.ult
local new = core.window
local methods = getmetatable(new(0)).__index

--- A new window keeping `span` seconds (raw windows keep one sample more for deltas).
-- `fn`: the reducer this window will be reduced with (its state is kept incrementally).
function W.new(span, raw, fn)
  return new(span or 0, raw or false, fn)
end

--- Rebuild a window from exported data (`fn` as for W.new).
function W.from(d, fn)
  local w = W.new(d.span, d.raw, fn)
  for i = 1, #d.t do w:append(d.t[i], d.v[i], d.r[i]) end
  return w
end

--- The samples of window w as a list of `{ t =, v =, reset = true|nil }` (for explain).
function W.entries(w)
  local d, out = w:export(), {}
  for i = 1, #d.t do out[i] = { t = d.t[i], v = d.v[i], reset = d.r[i] or nil } end
  return out
end

--- Is `v` below `prev` (a counter reset)? Integers compare unsigned (values >= 2^63 read negative).
function W.decreased(v, prev)
  if mtype(v) == "integer" and mtype(prev) == "integer" then return ult(v, prev) end
  return v < prev
end

--- The methods as functions: push(w, t, v, reset), prune(w, t), reduce_by(w, fn, window, p, now),
-- cook(w, t, v, status, fn, window, p).
W.push, W.prune, W.reduce_by, W.cook = methods.push, methods.prune, methods.reduce, methods.cook

return W
