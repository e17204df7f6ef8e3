-- A Lua program publishing its own counters with perflib.provider (libperflib-provider
-- underneath), the Lua twin of examples/publish_counters.c:
--
--   build/perflua examples/publish.lua [seconds]
--   LUA_PATH_5_4='./lua/?.lua;./lua/?/init.lua;;' LUA_CPATH_5_4='./build/?.so;;' lua5.4 examples/publish.lua
--
-- publishes "Example Lua Jobs" (one instance per queue) and updates it in a loop: queue-a
-- finishes 50 jobs a second, queue-b 200 (counted against the clock, so the rates hold however
-- the loop is scheduled); its backlog rises and falls.  Read it meanwhile with
--
--   build/perflua -e 'local perflib = require "perflib"; local q = perflib.query(); q:add "\\Example Lua Jobs(*)\\*"
--     local s0 = q:collect(); os.execute "sleep 1"
--     for i, v, st, c in q:collect():formatted(s0) do print(c, i, v, st) end'
--
-- or with the rules of examples/rules/app.lua.
local perflib = require "perflib"

local seconds = tonumber(arg and arg[1]) or 60
local RATES = { ["queue-a"] = 50, ["queue-b"] = 200 }   -- jobs a second

local p <close> = assert(perflib.provider {
  countersets = { {
    name = "Example Lua Jobs", help = "Jobs of the example Lua worker pool", instances = "multiple",
    counters = {
      { id = 0, name = "Jobs/sec", type = "PERF_COUNTER_COUNTER", help = "Jobs finished per second" },
      { id = 1, name = "Backlog", type = "PERF_COUNTER_LARGE_RAWCOUNT", help = "Jobs waiting" },
    },
  } },
})

-- one accessor per counter and queue: the name is resolved once, each update is one call
local queues = {}
for name, rate in pairs(RATES) do
  local w = p:instance("Example Lua Jobs", name)
  queues[#queues + 1] = { rate = rate, done = 0, jobs = w:counter "Jobs/sec", backlog = w:counter "Backlog" }
end

print(("publishing 'Example Lua Jobs' in %s for %g s"):format(p:path(), seconds))
io.stdout:flush()
local t0 = perflib.clock()
local round = 0
while perflib.clock() - t0 < seconds do
  local due = perflib.clock() - t0
  for _, q in ipairs(queues) do
    local total = math.floor(q.rate * due)        -- jobs due by now
    q.jobs:add(total - q.done)
    q.done = total
    q.backlog:set((round + q.rate) % 13)
  end
  round = round + 1
  perflib.sleep(0.01)
end
-- p goes out of scope here: __close stops the provider and removes its segment
