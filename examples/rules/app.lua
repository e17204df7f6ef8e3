-- Rules on the countersets applications publish: the C publisher (examples/publish_counters.c,
-- "Example Requests") and the Lua one (examples/publish.lua, "Example Lua Jobs").  Run them, then
--
--   build/examples/publish_counters 60 & build/perflua examples/publish.lua 60 &
--   build/perflua monitor examples/rules/app.lua
--
-- Their counters are read like built-in ones: Requests/sec and Jobs/sec are rates over the
-- interval, Queue Length and Backlog levels.  Worker n of the C publisher serves 100 n requests a
-- second; queue-a of the Lua one finishes 50 jobs a second and queue-b 200.
local R = require "perflib.rules"

R.rule "WorkerBusy" {                     -- one alert per worker: worker-3 (300/s)
  source = "\\Example Requests(*)\\Requests/sec",
  when = R.above(250):clears_below(200), severity = "warn",
  message = "{instance} serves {value:%.0f} requests/s",
}

R.rule "WorkerQueue" {                    -- the C publisher's queue length runs 0..6
  source = "\\Example Requests(*)\\Queue Length",
  when = R.above(100), severity = "crit",
  message = "{instance} has {value:%.0f} requests waiting",
}

R.rule "QueueFast" {                      -- one alert per queue: queue-b (200/s)
  source = "\\Example Lua Jobs(*)\\Jobs/sec",
  when = R.above(100):clears_below(80), severity = "warn",
  message = "{instance} finishes {value:%.0f} jobs/s",
}

R.rule "QueueBacklog" {                   -- the Lua publisher's backlog runs 0..12
  source = "\\Example Lua Jobs(*)\\Backlog",
  when = R.above(100), severity = "crit",
  message = "{instance} has {value:%.0f} jobs waiting",
}
