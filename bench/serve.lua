-- make bench: perflua serve against Debian's prometheus-node-exporter on this machine, in one
-- run (issue 13, "Speed and scale").
--
--   lua5.4 bench/serve.lua [SCRAPES] [SOAK_SECONDS]
--
-- 1. CPU time per scrape and bytes per scrape: each server is scraped SCRAPES times
--    one after another by curl; its CPU time (utime + stime of /proc/<pid>/stat) over
--    them, divided by SCRAPES (default 200).  perflua serve answers the Global collection, and (a second
--    server) the sets whose families node_exporter's default collectors also export;
--    node_exporter its default collectors.  Goal: >= 10x less CPU per scrape than
--    node_exporter for the same families.
-- 2. 50 concurrent scrapers for SOAK_SECONDS (default 60) against perflua serve: requests,
--    errors, and its resident memory at the start and the end (goal: no error, flat memory).
-- Benchmarks report, tests assert: the exit status is 1 only when a server cannot start.
local SCRAPES = tonumber(arg[1]) or 200
local SOAK = tonumber(arg[2]) or tonumber(os.getenv "SERVE_SOAK_SECONDS") or 60
local PERFLUA = "./build/perflua"

local files = dofile "spec/support/files.lua"    -- the specs' shell helpers
local sh, free_port = files.sh, files.free_port

local function read(path)
  local f = io.open(path)
  if not f then return "" end
  local s = f:read "a"
  f:close()
  return s
end

local TICK = tonumber(sh "getconf CLK_TCK") or 100

local function cpu_seconds(pid)
  local stat = read("/proc/" .. pid .. "/stat")
  local rest = stat:match "%) (.*)"
  if not rest then return nil end
  local f = {}
  for w in rest:gmatch "%S+" do f[#f + 1] = w end
  return (tonumber(f[12]) + tonumber(f[13])) / TICK      -- utime, stime: fields 14, 15
end

local function rss_kib(pid)
  return tonumber(read("/proc/" .. pid .. "/status"):match "VmRSS:%s*(%d+)") or 0
end

local function wait_port(port)
  for _ = 1, 200 do
    if sh(("curl -s -o /dev/null -w '%%{http_code}' http://127.0.0.1:%d/metrics"):format(port)) == "200" then
      return true
    end
    os.execute "sleep 0.05"
  end
  return false
end

-- CPU seconds and bytes per scrape of the server at port (pid).
local function per_scrape(pid, port)
  sh(("curl -s -o /dev/null http://127.0.0.1:%d/metrics"):format(port))     -- warm
  local c0 = cpu_seconds(pid)
  local bytes = sh(("for i in $(seq %d); do curl -s -o /dev/null -w '%%{size_download}\\n' "
    .. "http://127.0.0.1:%d/metrics; done"):format(SCRAPES, port))
  local c1 = cpu_seconds(pid)
  local total, n = 0, 0
  for b in bytes:gmatch "%d+" do total, n = total + tonumber(b), n + 1 end
  return (c1 - c0) / SCRAPES, n > 0 and total / n or 0, n
end

-- the countersets whose families node_exporter's default collectors also export (cpu, stat,
-- meminfo, vmstat, loadavg, diskstats, filesystem, netdev, netstat, sockstat, pressure,
-- thermal_zone, hwmon, powersupplyclass, nfs); not Process, Thread, Control Group, Interrupts,
-- SoftIRQ, NUMA or Hardware Events, which it does not collect by default
local SAME = { "Processor Information", "Memory", "System", "PhysicalDisk", "LogicalDisk", "Paging File",
  "Network Interface", "IPv4", "IPv6", "TCPv4", "TCPv6", "UDPv4", "UDPv6", "ICMP", "ICMPv6", "Sockets",
  "Pressure Stall Information", "Thermal Zone Information", "Hardware Sensors", "Battery", "NFS Client" }

local function start_serve(args)
  local port = free_port()
  local pid = sh(("env -u LD_PRELOAD %s serve --listen 127.0.0.1:%d %s > /dev/null 2>&1 & echo $!")
    :format(PERFLUA, port, args)):match "%d+"
  return pid, port
end

local tmp = sh("mktemp -d /tmp/perflib-bench-serve.XXXXXX"):gsub("%s+$", "")
local same = {}
for _, set in ipairs(SAME) do same[#same + 1] = ("--path '\\%s(*)\\*'"):format(set) end
local ppid, pport = start_serve("")
local spid, sport = start_serve(table.concat(same, " "))
local nport = free_port()
local npid = sh(("prometheus-node-exporter --web.listen-address=127.0.0.1:%d > %s/ne.txt 2>&1 & echo $!")
  :format(nport, tmp)):match "%d+"
local status = 0
if not (wait_port(pport) and wait_port(nport) and wait_port(sport)) then
  io.stderr:write("serve bench: a server did not start\n")
  status = 1
else
  local pc, pb, pn = per_scrape(ppid, pport)
  local sc, sb, sn = per_scrape(spid, sport)
  local nc, nb, nn = per_scrape(npid, nport)
  local families = function(port)
    return tonumber(sh(("curl -s http://127.0.0.1:%d/metrics | grep -c '^# TYPE'"):format(port)))
  end
  print(("serve scrape, %d scrapes each (CPU ms per scrape of the server process, bytes served):"):format(SCRAPES))
  print(("  perflua serve (Global)        %7.3f ms  %8.0f bytes  %d families  (%d answered)")
    :format(pc * 1e3, pb, families(pport), pn))
  print(("  perflua serve (the same sets)  %7.3f ms  %8.0f bytes  %d families  (%d answered)")
    :format(sc * 1e3, sb, families(sport), sn))
  print(("  prometheus-node-exporter      %7.3f ms  %8.0f bytes  %d families  (%d answered)")
    :format(nc * 1e3, nb, families(nport), nn))
  local ratio = sc > 0 and nc / sc or math.huge
  print(("  node_exporter / perflua (the same sets) CPU per scrape: %.1fx   %s (goal >= 10x)"):format(ratio,
    ratio >= 10 and "ok" or "MISS"))
  -- the soak: 50 scrapers in parallel
  if SOAK > 0 then
    local r0 = rss_kib(ppid)
    sh(("for w in $(seq 50); do (end=$(( $(date +%%s) + %d )); n=0; e=0; while [ $(date +%%s) -lt $end ]; do "
      .. "c=$(curl -s -m 10 -o /dev/null -w '%%{http_code}' http://127.0.0.1:%d/metrics); n=$((n+1)); "
      .. "[ \"$c\" = 200 ] || e=$((e+1)); done; echo \"$n $e\" > %s/soak.$w) & done; wait")
      :format(SOAK, pport, tmp))
    local reqs, errs = 0, 0
    for w = 1, 50 do
      local n, e = read(("%s/soak.%d"):format(tmp, w)):match "(%d+) (%d+)"
      reqs, errs = reqs + (tonumber(n) or 0), errs + (tonumber(e) or 0)
    end
    local r1 = rss_kib(ppid)
    print(("serve soak, 50 concurrent scrapers for %d s: %d requests, %d errors; RSS %d KiB -> %d KiB   %s")
      :format(SOAK, reqs, errs, r0, r1, (errs == 0 and r1 <= r0 * 1.2 + 1024) and "ok" or "MISS"))
  end
end
os.execute(("kill %s %s %s 2>/dev/null; rm -rf %s"):format(ppid or "", spid or "", npid or "", tmp))
os.exit(status)
