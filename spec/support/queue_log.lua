-- A log of a perflib.define set on a machine of its own, for the log specs
-- (local queue_log = dofile "spec/support/queue_log.lua"): n samples, one
-- every `sleep` seconds, of "\<set>(*)\*" (and \Memory\Available Bytes with
-- `memory`), to path (a binary log; an SQLite log for .db).  Values chosen so
-- a spec works them out by hand: at the k-th collect instance q1's Items/sec
-- (PERF_COUNTER_BULK_COUNT) is 120 x k and its Depth (a raw count) 3 x k; q2's
-- stay 7 and 1.  Returns the live samples, in order.
local perflib = require "perflib"

return function(path, n, o)
  local m = perflib.machine { root = "spec/fixtures/basic" }
  local k = 0
  assert(perflib.define {
    name = o.set, machine = m, help = o.help,
    counters = { { name = "Items/sec", type = "PERF_COUNTER_BULK_COUNT", help = o.help and "Items a second." },
                 { name = "Depth", type = "PERF_COUNTER_LARGE_RAWCOUNT" } },
    collect = function() k = k + 1; return { q1 = { 120 * k, 3 * k }, q2 = { 7, 1 } } end,
  })
  local q = m:query()
  assert(q:add("\\" .. o.set .. "(*)\\*"))
  if o.memory then assert(q:add "\\Memory\\Available Bytes") end
  os.remove(path)
  local w = assert(perflib.log_writer(path))
  local live = {}
  for i = 1, n do
    live[i] = assert(q:collect())
    assert(w:write(live[i]))
    perflib.sleep(o.sleep or 0.01)
  end
  assert(w:close())
  q:close()
  return live
end
