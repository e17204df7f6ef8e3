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

-- Available memory as a share of the machine's memory (MemAvailable / MemTotal): a fixed number
-- of MB is too late on a large host and always below on a small VM.  Below 10 %, clear above
-- 12 % (memory PSI and OOM kills below are the critical signs).
local TOTAL = "\\Memory\\Total Bytes"
local function available_below(pct, clear)
  return function(ctx)
    local total = ctx:get(TOTAL)
    if not total or total <= 0 then return nil end
    local share = ctx.value * 1048576 / total * 100
    if ctx.active then return share < clear end
    return share < pct
  end
end
R.rule "MemoryLow" {
  source = "\\Memory\\Available MBytes", sources = { TOTAL },
  value = R.min "1m", when = available_below(10, 12),
  pending = "2m", labels = { area = "memory" }, message = "only {value:%.0f} MB available",
}

-- Not "% Committed Bytes In Use": the commit limit is only enforced with vm.overcommit_memory=2;
-- under the default heuristic overcommit (0) the commit charge passes it on healthy hosts.  What
-- shows real memory distress: the kernel killing processes (here) and memory PSI (below).
R.rule "OomKill" {
  source = "\\Memory\\OOM Kills",
  value = R.increase "5m", when = R.above(0), severity = "crit", keep = "10m", flap = false,
  labels = { area = "memory" }, message = "the kernel killed {value:%.0f} process(es) for memory in 5m",
}

-- Swap holding cold pages is normal; nearly full swap leaves no room for the next spike.
R.rule "SwapUsage" {
  source = "\\Paging File(_Total)\\% Usage",
  value = R.last(), levels = { warn = R.above(80):clears_below(70), crit = R.above(95):clears_below(90) },
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

-- Operational Status is RFC 2863 ifOperStatus: 1 up, 2 down, 3 testing, 4 unknown (lo, tun),
-- 5 dormant, 6 notPresent, 7 lowerLayerDown.  Down is 2 or 7, on wired NICs (en*, eth*; not
-- lo, bridges, veth, ifb) that had a carrier since boot (Carrier Changes >= 2: off at probe,
-- then on): a NIC never cabled or never brought up is not news.
local CARRIER = "\\Network Interface(*)\\Carrier Changes"
R.rule "NetDown" {
  source = "\\Network Interface(*)\\Operational Status", sources = { CARRIER }, instances = "^e[nt]",
  value = R.last(), when = function(ctx)
    return (ctx.value == 2 or ctx.value == 7) and (ctx:get(CARRIER, ctx.instance) or 0) >= 2
  end,
  pending = "30s", vanish = "unknown", flap = R.flap { window = 21 },
  labels = { area = "network" }, message = "{instance} is down",
}

-- Load average per CPU (the 5-minute average over the CPUs of Processor Information): above 2
-- runnable or waiting tasks per CPU, clear below 1.5.  A fixed load is idle on a big host and
-- overload on a small one.
local CPUS = "\\Processor Information(*)\\% Processor Time"
local function per_cpu(ctx)
  local n = 0
  local s = ctx.frame[CPUS]
  for _, name in ipairs(s and s.instances or {}) do
    if name:find("^%d+,%d+$") then n = n + 1 end
  end
  if n == 0 then return nil end
  return ctx.value / n
end
R.rule "LoadHigh" {
  source = "\\System\\Load Average 5 min", sources = { CPUS },
  value = R.last(), when = function(ctx)
    local l = per_cpu(ctx)
    if l == nil then return nil end
    if ctx.active then return l >= 1.5 end
    return l > 2
  end,
  pending = "10m", labels = { area = "load" }, message = "load average {value:%.1f}",
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
