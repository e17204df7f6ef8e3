--- make bench: the cost of one `q:collect()` per counterset through the Lua
-- API, against a C floor (build/bench/floor) that reads and parses the same
-- files in the same run.  Rounds alternate perflib and floor so that drift on
-- a busy machine hits both; the median of the rounds is reported.
-- Benchmarks report, tests assert: the exit status is 0 even on a MISS.
--
-- Environment: BENCH_ROUNDS (default 7), BENCH_SECONDS per set and round
-- (default 0.15), BENCH_FLOOR (default build/bench/floor), BENCH_ONLY (a Lua
-- pattern: only the sets whose label matches, and no Global line), BENCH_ROOT
-- (perflib's queries read below this root instead of "/"; with BENCH_ONLY of
-- sets whose floors read BENCH_ROOT too, as floor_bcache does, to time a set
-- on its fixture tree where this machine lacks the hardware).

local perflib = require "perflib"
local common = dofile((arg[0]:match("^(.*)/") or ".") .. "/common.lua")
local median = common.median

local CMD = "LUA_PATH_5_4='./lua/?.lua;./lua/?/init.lua;;' LUA_CPATH_5_4='./build/?.so;;' "
  .. "lua5.4 bench/collect.lua"
local TARGET = 1.2
local ROUNDS = math.tointeger(tonumber(os.getenv("BENCH_ROUNDS") or "")) or 7
local SECONDS = tonumber(os.getenv("BENCH_SECONDS") or "") or 0.15
local FLOOR = os.getenv("BENCH_FLOOR") or "build/bench/floor"
local clock = perflib.clock
local ROOT = os.getenv("BENCH_ROOT")
local SOURCE = perflib           -- what new_query asks for a query
if ROOT and ROOT ~= "" then
  local m = perflib.machine { root = ROOT }
  SOURCE = { query = function() return m:query() end }
end

-- name in the floor's output, label, counter paths of the query
local SETS = {   -- the sets of build/bench/floor; the families' sets are added below
  { id = "proc_all", label = "Processor Information (*) all",
    paths = { "\\Processor Information(*)\\*" } },
  { id = "proc_time", label = "Processor Information (*) % Processor Time",
    paths = { "\\Processor Information(*)\\% Processor Time" } },
  { id = "memory", label = "Memory all", paths = { "\\Memory\\*" } },
  { id = "system", label = "System all", paths = { "\\System\\*" } },
  { id = "all", label = "all three in one query",
    paths = { "\\Processor Information(*)\\*", "\\Memory\\*", "\\System\\*" } },
}

-- The provider families' floors (build/bench/floor_<family>): each prints
-- "floor <counterset name> <ns> ..." for its sets; perflib collects the same
-- set as \Set(*)\* (or \Set\* for single-instance sets).
local FAMILY = {}
-- short set ids some floors print, by counterset name
local IDS = {
  netif = "Network Interface", ipv4 = "IPv4", ipv6 = "IPv6", tcpv4 = "TCPv4", tcpv6 = "TCPv6",
  udpv4 = "UDPv4", udpv6 = "UDPv6", icmp = "ICMP", icmpv6 = "ICMPv6", sockets = "Sockets",
  softirq = "SoftIRQ", interrupts = "Interrupts", nfs = "NFS Client", cgroup = "Control Group",
  thermal = "Thermal Zone Information", hwmon = "Hardware Sensors", battery = "Battery",
  numa = "NUMA Node Memory", psi = "Pressure Stall Information",
}
do
  local p = io.popen("ls build/bench/floor_* 2>/dev/null")
  for prog in p:lines() do
    if not prog:match "%.%a+$" then FAMILY[#FAMILY + 1] = prog end
  end
  p:close()
  for _, prog in ipairs(FAMILY) do
    local f = assert(io.popen(prog .. " -t 0.01 -r 1"))
    for line in f:lines() do
      local name = line:match "^floor (.+) %d+ %d+ %d+ %d+$"
      local cs = name and perflib.counterset(IDS[name] or name)
      if cs and cs.name ~= "Process" then   -- Process has its own bench (bench/process.lua)
        local path = cs.instance_type == "single" and ("\\%s\\*"):format(cs.name)
          or ("\\%s(*)\\*"):format(cs.name)
        SETS[#SETS + 1] = { id = name, label = cs.name .. " all", paths = { path }, floor = prog }
      end
    end
    f:close()
  end
end

local ONLY = os.getenv("BENCH_ONLY")
if ONLY then
  local kept = {}
  for _, set in ipairs(SETS) do
    if set.label:match(ONLY) then kept[#kept + 1] = set end
  end
  if #kept == 0 then error("BENCH_ONLY matches no set: " .. ONLY) end
  SETS = kept
end

-- "Global": one query of every set above that a Global collection takes (not
-- costly), against the sum of those sets' own floors in the same round: the
-- sets share their kernel reads (one /proc/stat, one /proc/net/snmp ...),
-- where the floors each read their files alone.
local GLOBAL_TARGET = 0.8
if not ONLY then
  local paths, members = {}, {}
  for i, set in ipairs(SETS) do
    local name = set.paths[1]:match "^\\([^\\(]+)"
    local cs = #set.paths == 1 and set.id ~= "proc_time" and perflib.counterset(name)
    if cs and not cs.costly then
      paths[#paths + 1], members[#members + 1] = set.paths[1], i
    end
  end
  SETS[#SETS + 1] = { id = "global", label = ("Global: %d sets in one query"):format(#members), paths = paths,
                      members = members, target = GLOBAL_TARGET }
end

local function new_query(set)
  local q = common.new_query(SOURCE, set.paths)
  local s, err = q:collect()
  if not s then error(("collect %s: %s"):format(set.id, tostring(err))) end
  return q
end

--- Mean ns per collect over about SECONDS; samples are dropped at once and
-- the GC runs as it normally would (no collectgarbage calls).
--- The same with q:collect(older): the sample's memory refilled in place.
local function time_collect_reuse(q)
  local n, t0 = 0, clock()
  local s0, s1 = q:collect(), q:collect()
  local t
  repeat
    for _ = 1, 16 do s0, s1 = s1, q:collect(s0) end
    n = n + 16
    t = clock()
  until t - t0 >= SECONDS
  return (t - t0) * 1e9 / n
end

local function time_collect(q)
  local n, t0 = 0, clock()
  local t
  repeat
    for _ = 1, 16 do
      local s = q:collect()
      if not s then error("collect failed during timing") end
    end
    n = n + 16
    t = clock()
  until t - t0 >= SECONDS
  return (t - t0) * 1e9 / n, n
end

local function run_one_floor(cmd, out)
  local f = assert(io.popen(cmd, "r"))
  local info
  for line in f:lines() do
    local id, ns = line:match("^floor (.+) (%d+) %d+ %d+ %d+$")
    if id then
      out[id] = tonumber(ns)
    elseif not info then
      info = line:match("^# floor: (.-),? %d+ round")
    end
  end
  local ok, how, code = f:close()
  if not ok then error(("%s failed (%s %s)"):format(cmd, tostring(how), tostring(code))) end
  return info
end

local function run_floor()
  local ids, progs, out, info = {}, {}, {}, nil
  for _, set in ipairs(SETS) do
    if set.floor then progs[set.floor] = true
    elseif not set.members then ids[#ids + 1] = set.id end
  end
  if #ids > 0 then
    info = run_one_floor(("%s -t %g -r 1 %s"):format(FLOOR, SECONDS, table.concat(ids, " ")), out)
  end
  for _, prog in ipairs(FAMILY) do      -- in a fixed order; with BENCH_ONLY only the needed ones
    if progs[prog] then run_one_floor(("%s -t %g -r 1"):format(prog, SECONDS), out) end
  end
  return out, info
end

print("# reproduce: make bench   (or, after make all build/bench/floor:)")
print("#   " .. CMD)
print(("# %d rounds x %.2f s per set and side; median ns per collect"):format(ROUNDS, SECONDS))

local pl_ns, fl_ns, re_ns, iters = {}, {}, {}, {}
for i in ipairs(SETS) do pl_ns[i], fl_ns[i], re_ns[i] = {}, {}, {} end

-- Each round opens its queries, warms them up, times them and closes them
-- before the floors run: an open Hardware Events query would otherwise keep
-- the floor's perf events off the PMU and make the floor look cheap.
local floor_info
local t_start = clock()
for r = 1, ROUNDS do
  for i, set in ipairs(SETS) do
    local q = new_query(set)
    for _ = 1, 50 do q:collect() end          -- warm-up: files open, buffers grown
    pl_ns[i][r], iters[i] = time_collect(q)
    re_ns[i][r] = time_collect_reuse(q)
    q:close()
  end
  local fl
  fl, floor_info = run_floor()
  for i, set in ipairs(SETS) do
    if set.members then          -- the sum of its sets' floors
      local sum = 0
      for _, m in ipairs(set.members) do sum = sum + fl_ns[m][r] end
      fl_ns[i][r] = sum
    else
      fl_ns[i][r] = fl[set.id] or error("floor printed no figure for " .. set.id)
    end
  end
end

if floor_info then print("# machine: " .. floor_info) end
print(("%-44s %12s %12s %7s %7s  %-6s %8s"):format("set", "perflib ns", "floor ns", "ratio", "target", "result",
  "reuse"))
local misses = 0
for i, set in ipairs(SETS) do
  local p, f = median(pl_ns[i]), median(fl_ns[i])
  local ratio = p / f
  local target = set.target or TARGET
  local ok = ratio <= target
  if not ok then misses = misses + 1 end
  print(("%-44s %12.0f %12.0f %6.2fx %6.1fx  %-6s %7.2fx"):format(set.label, p, f, ratio, target,
    ok and "PASS" or "MISS", median(re_ns[i]) / f))
end
print("# reuse: the ratio with s0, s1 = s1, q:collect(s0) (no sample allocated per collect)")
print(("# Global: its floor is the sum of its sets' floors above (target %.1fx: shared reads)")
  :format(GLOBAL_TARGET))
print(("# %d of %d lines within target; %d collects per perflib measurement; %.1f s")
  :format(#SETS - misses, #SETS, iters[1], clock() - t_start))
os.exit(0)
