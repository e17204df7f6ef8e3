--- perflib.rules.window: (t, value) windows on sample time and their reducers.
-- The windows are `perflib.Window` objects of the C core (src/core/window.c): a ring of
-- samples that doubles when full, the reducer state kept as samples come and go (avg: a
-- compensated running sum; min, max: a monotonic deque; pct: the values kept sorted), and
-- for raw windows the integer values with a reset flag on the sample that went backwards
-- (its interval is never counted: no spike).  The rule bank steps the same objects in bulk.
local core = require "perflib.core"

local W = {}

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

--- cook(w, t, v, status, fn, window, p) as a function: what the engine calls per instance.
W.cook = methods.cook

return W
