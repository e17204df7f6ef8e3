-- Rules on seed 002's example plug-in (examples/plugins): run with
--   PERFLIB_PLUGIN_DIR=examples/plugins perflua monitor examples/rules/transferpeer.lua
-- Its counters are read like any built-in set's; the values are the seed's hard-coded ones.
local R = require "perflib.rules"

R.rule "PeerBusy" {                       -- one alert per peer
  source = "\\Peer(*)\\Bytes Served",
  when = R.above(20), severity = "warn",
  message = "peer {instance} served {value:%.0f} bytes",
}

R.rule "BandwidthLow" {                   -- Available Bandwidth: a fraction of Total Bandwidth, in %
  source = "\\Transfer\\Available Bandwidth",
  when = R.below(50):clears_above(60), severity = "crit",
  message = "available bandwidth {value:%.0f}%",
}
