-- Default rule set for `perflua monitor` (issue 5): CPU, memory, swap, disk, network, load, pressure.
-- Counter paths are perflib's; values are cooked by perflib unless the value is R.rate/R.increase/R.raw.
local R = require "perflib.rules"

R.defaults { every = "10s", keep = "1m", nodata = { after = "3 samples", as = "unknown" } }

R.rule "CpuBusy" {                      -- one alert per CPU (`node,cpu` instances; no totals)
  source = "\\Processor Information(*)\\% Processor Time", instances = "^%d+,%d+$",
  value = R.avg "1m", levels = { warn = R.above(90):clears_below(75), crit = R.above(98):clears_below(90) },
  pending = "5m", labels = { area = "cpu" },
  message = "CPU {instance} busy {value:%.0f}% for {age}",
}

R.rule "CpuAllBusy" {
  source = "\\Processor Information(_Total)\\% Processor Time",
  value = R.avg "2m", when = R.above(85):clears_below(70), severity = "crit", pending = "5m",
  labels = { area = "cpu" }, message = "all CPUs busy {value:%.0f}% for {age}",
}

R.rule "IoWait" {
  source = "\\Processor Information(_Total)\\% IO Wait Time",
  value = R.avg "5m", when = R.above(30):clears_below(15), pending = "5m", labels = { area = "cpu" },
  message = "iowait {value:%.0f}% for {age}",
}

R.rule "MemoryLow" {
  source = "\\Memory\\Available MBytes",
  value = R.min "1m", levels = { warn = R.below(512):clears_above(768), crit = R.below(128):clears_above(256) },
  pending = "2m", labels = { area = "memory" }, message = "only {value:%.0f} MB available",
}

R.rule "CommitHigh" {
  source = "\\Memory\\% Committed Bytes In Use",
  value = R.avg "5m", when = R.above(95):clears_below(90), pending = "10m", labels = { area = "memory" },
  message = "commit charge {value:%.0f}% of the limit",
}

R.rule "SwapUsage" {
  source = "\\Paging File(_Total)\\% Usage",
  value = R.last(), levels = { warn = R.above(50):clears_below(40), crit = R.above(80):clears_below(70) },
  pending = "5m", vanish = "resolve", labels = { area = "swap" }, message = "swap {value:%.0f}% used",
}

R.rule "DiskFull" {
  source = "\\LogicalDisk(*)\\% Free Space", exclude = "^_Total$",
  value = R.last(), levels = { warn = R.below(10):clears_above(12), crit = R.below(3):clears_above(5) },
  pending = "1m", labels = { area = "disk" }, message = "{instance}: {value:%.1f}% free",
}

R.rule "DiskBusy" {
  source = "\\PhysicalDisk(*)\\% Disk Utilization", exclude = "^_Total$",
  value = R.avg "5m", when = R.above(90):clears_below(70), pending = "10m", labels = { area = "disk" },
  message = "disk {instance} {value:%.0f}% busy for {age}",
}

R.rule "NetRxErrors" {
  source = "\\Network Interface(*)\\Packets Received Errors", exclude = "^_Total$",
  value = R.increase "5m", when = R.above(100), pending = "0s", keep = "5m", labels = { area = "network" },
  message = "{instance}: {value:%.0f} receive errors in 5m",
}

R.rule "NetDown" {
  source = "\\Network Interface(*)\\Operational Status", exclude = "^_Total$",
  value = R.last(), when = R.below(1), pending = "30s", vanish = "unknown", flap = R.flap { window = 21 },
  labels = { area = "network" }, message = "{instance} is down",
}

R.rule "LoadHigh" {
  source = "\\System\\Load Average 5 min",
  value = R.last(), when = R.above(16):clears_below(12), pending = "10m", labels = { area = "load" },
  message = "load average {value:%.1f}",
}

R.rule "CpuPressure" {
  source = "\\Pressure Stall Information(cpu)\\% Some Stall Time",
  value = R.avg "1m", when = R.above(50):clears_below(30), pending = "5m", labels = { area = "pressure" },
  message = "CPU pressure: tasks stalled {value:%.0f}% of the time",
}

R.rule "MemoryPressure" {
  source = "\\Pressure Stall Information(memory)\\% Full Stall Time",
  value = R.avg "1m", when = R.above(10):clears_below(5), severity = "crit", pending = "2m",
  labels = { area = "pressure" }, message = "memory pressure: all tasks stalled {value:%.0f}% of the time",
}

R.rule "IoPressure" {
  source = "\\Pressure Stall Information(io)\\% Full Stall Time",
  value = R.avg "1m", when = R.above(30):clears_below(15), pending = "5m", labels = { area = "pressure" },
  message = "IO pressure: all tasks stalled {value:%.0f}% of the time",
}
