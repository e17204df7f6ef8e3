--- Engine frames from samples: what `perflua monitor` feeds the rules engine
-- and what `perflua record` writes.  A frame entry holds one result's
-- instances, the value of its first counter per instance and a status per
-- instance (see perflib.rules.engine).
-- @module perflib.frame

local F = {}

--- The entry of a result that failed as a whole.
function F.failed(err)
  return { instances = {}, value = {}, status = {}, error = err }
end

--- Cooked values (formatted as the monitor sees them: not capped at 100).
function F.cooked(s1, s0, index)
  local v = s1:evaluate(s0, index, { nocap = true })
  local f = { instances = v.instances, value = {}, status = {} }
  local col, st = v[1] or {}, v.status[1] or {}
  for n, name in ipairs(v.instances) do
    f.value[name] = col[n]
    f.status[name] = st[n] or "valid"
  end
  return f
end

--- Raw integers of the first counter, in one pass over the result.
function F.raw(s1, index, first_counter)
  local f = { instances = {}, value = {}, status = {} }
  for name, v, _, counter in s1:raw(index) do
    if counter == first_counter then
      f.instances[#f.instances + 1] = name
      f.value[name] = v
      f.status[name] = v ~= nil and "valid" or "no_data"
    end
  end
  return f
end

--- A whole frame, built in Lua from @{cooked} and @{raw}: the reference the
-- C builder (@{of}) is checked against.
function F.of_lua(s1, s0, index, both)
  local frame, results = {}, s1:results()
  for key, src in pairs(index) do
    local r = results[src.index]
    local raw_key = both and ("raw:" .. key) or nil
    if r.shape == "error" then
      frame[key] = F.failed(r.error or r.status)
      if raw_key then frame[raw_key] = F.failed(r.error or r.status) end
    else
      if src.raw then
        frame[key] = F.raw(s1, src.index, r.counters[1])
      else
        frame[key] = F.cooked(s1, s0, src.index)
      end
      if raw_key then frame[raw_key] = F.raw(s1, src.index, r.counters[1]) end
    end
  end
  return frame
end

local core_frame = require("perflib.core").frame

--- A whole frame. `index[key] = { index = result index, raw = boolean }`;
-- with `both`, every key also gets its raw entry under "raw:" .. key.  Built
-- in one C call (perflib.core.frame): the same tables as @{of_lua}.
function F.of(s1, s0, index, both)
  return core_frame(s1, s0, index, both)
end

return F
