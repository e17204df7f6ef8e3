--- perflib: Linux performance counters, the Windows PerfLib way, for Lua 5.4.
--
-- This facade re-exports the C core (`perflib.core`) and adds what is best
-- written in Lua: interval sampling without busy waiting, and views.
-- Errors: misuse raises; environment failures return `nil, message, errno`.
-- @module perflib

local core = require "perflib.core"
local compat = require "perflib.compat"

-- The public API, by name: what `require "perflib.core"` has beyond these
-- (spawn, wait, kill, syslog, isatty, sandbox, sandbox_lib, window, rulebank,
-- flap, http, term, methods) serves perflib's own modules and may change.
local PUBLIC = {
  "_VERSION", "types", "remote_tokens",
  "sleep", "clock", "type", "machine", "countersets", "counterset", "info", "query",
  "collect", "collect_sets", "collect_block", "metadata", "counter_names", "help_texts", "counter_units",
  "lookup", "index_of", "calculate", "statistics", "metric_name", "suggest",
  "sample_from_block", "check_block", "plugins", "load_plugins", "reset_plugin", "load_textfiles",
  "define", "derive", "provider", "serve", "trap", "trapped", "signalled", "log_writer", "read_log", "open_log",
}
local M = {}
for _, k in ipairs(PUBLIC) do
  M[k] = core[k]
  if M[k] == nil then error("perflib: the core has no " .. k, 0) end
end

local clock, sleep = core.clock, core.sleep

--- Samples a query every `interval` seconds, on a fixed schedule (no drift).
-- `for s1, s0 in q:samples(1, 10) do ... end`: s0 is the previous sample
-- (nil on the first round), so `s1:formatted(s0)` gives rates.
-- @function Query:samples
-- @tparam number interval seconds between samples (> 0)
-- @tparam[opt] integer count number of samples (default: forever)
-- @return iterator yielding newer, older samples
function core.methods.Query.samples(q, interval, count)
  if compat.math_type(interval) == nil or interval <= 0 then
    error("bad argument #1 to 'samples' (positive number of seconds expected)", 2)
  end
  if count ~= nil and compat.math_type(count) ~= "integer" then
    error("bad argument #2 to 'samples' (integer expected)", 2)
  end
  local n, prev, due = 0, nil, nil
  return function()
    if count and n >= count then return nil end
    if due then
      local wait = due - clock()
      while wait > 0 do
        sleep(wait)          -- a signal may cut it short: sleep the rest
        wait = due - clock()
      end
      due = due + interval
      local now = clock()
      if due < now then due = now + interval end   -- fell behind: skip, don't burst
    else
      due = clock() + interval
    end
    local s, err, errno = q:collect()
    if not s then error(("samples: %s (errno %d)"):format(err, errno), 2) end
    n = n + 1
    local older = prev
    prev = s
    return s, older
  end
end

--- Formatted values of a sample pair as a table:
-- `t[counter][instance] = value` for one result index (default 1), statuses
-- in a second table of the same shape.
-- @function Sample:values
-- @tparam[opt] Sample older
-- @tparam[opt] integer index result index (default 1)
-- @treturn table values
-- @treturn table statuses
function core.methods.Sample.values(s1, s0, index)
  local values, statuses = {}, {}
  index = index or 1
  local n = #s1                 -- the number of results (__len), no table built
  if type(index) ~= "number" or index ~= math.floor(index) or index < 1 or index > n then
    error(("bad argument #2 to 'values' (no such result index: %s of %d)"):format(tostring(index), n), 2)
  end
  for inst, v, st, ctr in s1:formatted(s0, { index = index }) do
    local vc = values[ctr]
    if not vc then
      vc = {}
      values[ctr], statuses[ctr] = vc, {}
    end
    vc[inst] = v
    statuses[ctr][inst] = st
  end
  return values, statuses
end

-- The pretty printer, perflib.pretty (write(v), print(...)), loads on first use.
-- perflib.pretty (the pretty printer) and perflib.rules (rule-based
-- monitors) load on first use.
local lazy = { pretty = "perflib.pretty", rules = "perflib.rules" }
setmetatable(M, {
  __index = function(t, k)
    if lazy[k] then
      local p = require(lazy[k])
      rawset(t, k, p)
      return p
    end
  end,
})

return M
