-- make crosscheck: perflib's formatted values against independent tools on
-- the same interval (sysstat's mpstat, sar, iostat, pidstat; python3-psutil),
-- with the tolerance that the sampling skew explains.  Not part of make test:
-- it needs a quiet-ish machine and the tools installed (it skips what is
-- missing).  Exit status 1 when a comparison is outside its tolerance.
--   LUA_PATH_5_4='./lua/?.lua;./lua/?/init.lua;;' LUA_CPATH_5_4='./build/?.so;;' lua5.4 bench/crosscheck.lua
local perflib = require "perflib"

local INTERVAL = tonumber(os.getenv "CROSSCHECK_SECONDS") or 3
local rows, failed, skipped = {}, 0, {}

local function have(cmd)
  local p = io.popen("command -v " .. cmd .. " 2>/dev/null")
  local out = p:read "a"
  p:close()
  return out ~= ""
end

-- tolerance: what a skew of `skew` seconds between the two measurements can
-- move a rate of `rate` per second, plus `floor` for rounding in the tool's output
local function check(what, ours, theirs, tol)
  local diff = (ours and theirs) and math.abs(ours - theirs) or math.huge
  local ok = diff <= tol
  if not ok then failed = failed + 1 end
  rows[#rows + 1] = { what, ours, theirs, diff, tol, ok }
end

-- Runs cmd in the background while perflib takes s0 now and s1 when cmd ends.
local function over_interval(q, cmd)
  local p = assert(io.popen("LC_ALL=C " .. cmd .. " 2>/dev/null"))
  local s0 = assert(q:collect())
  local out = p:read "a"
  p:close()
  local s1 = assert(q:collect())
  return s1, s0, out
end

-- a little load so the numbers are not all zero: a CPU burner (its pid is
-- checked against pidstat) and, during the disk check, direct writes
local function start(cmd)
  local p = io.popen(cmd .. " >/dev/null 2>&1 & echo $!")
  local pid = tonumber(p:read "l")
  p:close()
  return pid
end
-- (a Lua loop that stops by itself even if this script dies)
local burner = start(("lua5.4 -e 'local e = os.time() + %d; while os.time() < e do end'")
  :format(4 * INTERVAL + 10))

-- ---- CPU: mpstat -P ALL ----------------------------------------------------
if have "mpstat" then
  local q <close> = perflib.query()
  local i = q:add "\\Processor Information(*)\\*"
  local s1, s0, out = over_interval(q, ("mpstat -P ALL %d 1"):format(INTERVAL))
  local v = s1:evaluate(s0, i, { nocap = true })
  for line in out:gmatch "[^\n]+" do
    -- Average:     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle
    local cpu, usr, nice, sys, iow, irq, soft, steal, _, _, idle = line:match(
      "^Average:%s+(%S+)%s+([%d.]+)%s+([%d.]+)%s+([%d.]+)%s+([%d.]+)%s+([%d.]+)%s+([%d.]+)%s+([%d.]+)"
      .. "%s+([%d.]+)%s+([%d.]+)%s+([%d.]+)")
    if cpu then
      local inst = cpu == "all" and "_Total" or ("0," .. cpu)
      local k = v.index[inst]
      if k then
        local function ours(name) return v[name] and v[name][k] end
        -- mpstat prints 2 decimals; the skew of starting two programs is ~20 ms
        local tol = 100 * 0.05 / INTERVAL + 0.02
        check("CPU " .. inst .. " % User Time (usr+nice)", ours "% User Time", usr + nice, tol)
        check("CPU " .. inst .. " % Privileged Time (sys+irq+soft)", ours "% Privileged Time",
          sys + irq + soft, tol)
        check("CPU " .. inst .. " % Idle Time (idle+iowait)", ours "% Idle Time", idle + iow, tol)
        check("CPU " .. inst .. " % Steal Time", ours "% Steal Time", steal + 0, tol)
      end
    end
  end
else
  skipped[#skipped + 1] = "mpstat (apt-get install sysstat)"
end

-- ---- System: sar -w (cswch/s, proc/s) ----------------------------------------
if have "sar" then
  local q <close> = perflib.query()
  local i = q:add "\\System\\*"
  local s1, s0, out = over_interval(q, ("sar -w %d 1"):format(INTERVAL))
  local v = s1:evaluate(s0, i)
  local procs, cswch = out:match "Average:%s+([%d.]+)%s+([%d.]+)"
  if procs then
    local cs = v["Context Switches/sec"][1]
    -- the tool's own start and exit (a shell and sar: 2 forks, some tens of
    -- switches) fall inside perflib's interval but outside sar's
    check("System Context Switches/sec (sar cswch/s)", cs, tonumber(cswch), cs * 0.05 + 60 / INTERVAL)
    check("System Forks/sec (sar proc/s)", v["Forks/sec"][1], tonumber(procs), 3 / INTERVAL)
  end
else
  skipped[#skipped + 1] = "sar (apt-get install sysstat)"
end

-- ---- Memory: psutil virtual_memory -------------------------------------------
local py = io.popen("/usr/bin/python3 -c 'import psutil; m = psutil.virtual_memory(); " ..
  "print(m.available, m.total, m.free)' 2>/dev/null")
local pyout = py:read "a"
py:close()
local avail, total, free = pyout:match "(%d+) (%d+) (%d+)"
if avail then
  local q <close> = perflib.query()
  local i = q:add "\\Memory\\*"
  local v = q:collect():evaluate(nil, i)
  -- instantaneous values read a few ms apart: allow 0.5 % of total memory
  local tol = tonumber(total) * 0.005
  check("Memory Available Bytes (psutil available)", v["Available Bytes"][1], tonumber(avail), tol)
  check("Memory Total Bytes (psutil total)", v["Total Bytes"][1], tonumber(total), 0)
  check("Memory Free & Zero Page List Bytes (psutil free)", v["Free & Zero Page List Bytes"][1],
    tonumber(free), tol)
else
  skipped[#skipped + 1] = "psutil (apt-get install python3-psutil)"
end

-- ---- Process: pidstat for the burner -------------------------------------------
if have "pidstat" and burner then
  local q <close> = perflib.query()
  local i = q:add { counterset = "Process", instance = "*", instance_id = burner, counter = "% Processor Time" }
  local s1, s0, out = over_interval(q, ("pidstat -u -p %d %d 1"):format(burner, INTERVAL))
  local v = s1:evaluate(s0, i, { nocap = true })
  local usr, sys = out:match("Average:%s+%d+%s+" .. burner .. "%s+([%d.]+)%s+([%d.]+)")
  if usr and v[1][1] then
    check(("Process %d %% Processor Time (pidstat %%usr+%%system)"):format(burner), v[1][1], usr + sys,
      100 * 0.05 / INTERVAL + 1)
  end
end

-- ---- Disks: iostat -dx (when PhysicalDisk exists) ------------------------------
if perflib.counterset "PhysicalDisk" and have "iostat" then
  local tmp = os.tmpname()
  local writer = start(("sh -c 'for i in 1 2 3 4 5 6; do dd if=/dev/zero of=%s bs=1M count=16 "
    .. "oflag=direct conv=fsync; sleep 0.3; done'"):format(tmp))
  local q <close> = perflib.query()
  local i = q:add "\\PhysicalDisk(*)\\*"
  local s1, s0, out = over_interval(q, ("iostat -dkx %d 2"):format(INTERVAL))
  local v = s1:evaluate(s0, i, { nocap = true })
  -- the second report covers the interval; columns by header name
  local reports, header = {}, nil
  for line in out:gmatch "[^\n]+" do
    if line:match "^Device" then
      header = {}
      for w in line:gmatch "%S+" do header[#header + 1] = w end
      reports[#reports + 1] = {}
    elseif header and line:match "^%S" then
      local f, t = {}, {}
      for w in line:gmatch "%S+" do f[#f + 1] = w end
      for n, name in ipairs(header) do t[name] = tonumber(f[n]) end
      reports[#reports][f[1]] = t
    end
  end
  for dev, t in pairs(reports[#reports] or {}) do
    local k = v.index[dev]
    if k and t["r/s"] then
      local tol = 100 * 0.05 / INTERVAL + 0.5
      check("Disk " .. dev .. " Disk Reads/sec (iostat r/s)", v["Disk Reads/sec"][k], t["r/s"], tol)
      check("Disk " .. dev .. " Disk Writes/sec (iostat w/s)", v["Disk Writes/sec"][k], t["w/s"], tol)
      check("Disk " .. dev .. " Disk Read Bytes/sec (iostat rkB/s)", v["Disk Read Bytes/sec"][k],
        t["rkB/s"] * 1024, 1024 * (tol + 1))
      check("Disk " .. dev .. " Disk Write Bytes/sec (iostat wkB/s)", v["Disk Write Bytes/sec"][k],
        t["wkB/s"] * 1024, math.max(1024 * (tol + 1), t["wkB/s"] * 1024 * 0.05 / INTERVAL * 4))
    end
  end
  if writer then os.execute("kill " .. writer .. " 2>/dev/null") end
  os.remove(tmp)
end

-- ---- Network: sar -n DEV (when Network Interface exists) -----------------------
if perflib.counterset "Network Interface" and have "sar" then
  local q <close> = perflib.query()
  local i = q:add "\\Network Interface(*)\\*"
  local s1, s0, out = over_interval(q, ("sar -n DEV %d 1"):format(INTERVAL))
  local v = s1:evaluate(s0, i)
  for line in out:gmatch "[^\n]+" do
    local ifc, rxp, txp, rxk, txk = line:match(
      "^Average:%s+(%S+)%s+([%d.]+)%s+([%d.]+)%s+([%d.]+)%s+([%d.]+)")
    local k = ifc and v.index[ifc]
    if k and v["Packets Received/sec"] then
      local tol = 100 * 0.05 / INTERVAL + 0.5
      check("Net " .. ifc .. " Packets Received/sec (sar rxpck/s)", v["Packets Received/sec"][k],
        tonumber(rxp), tol)
      check("Net " .. ifc .. " Packets Sent/sec (sar txpck/s)", v["Packets Sent/sec"][k], tonumber(txp), tol)
      check("Net " .. ifc .. " Bytes Received/sec (sar rxkB/s)", v["Bytes Received/sec"][k],
        tonumber(rxk) * 1024, 1024 * (tol + 0.1))
      check("Net " .. ifc .. " Bytes Sent/sec (sar txkB/s)", v["Bytes Sent/sec"][k], tonumber(txk) * 1024,
        1024 * (tol + 0.1))
    end
  end
end

if burner then os.execute("kill " .. burner .. " 2>/dev/null") end
print(("# perflib against independent tools over %d s (crosscheck)"):format(INTERVAL))
print(("%-58s %14s %14s %10s %10s  %s"):format("comparison", "perflib", "tool", "diff", "tolerance", "ok"))
for _, r in ipairs(rows) do
  print(("%-58s %14.3f %14.3f %10.3f %10.3f  %s"):format(r[1], r[2] or 0 / 0, r[3] or 0 / 0, r[4], r[5],
    r[6] and "yes" or "NO"))
end
for _, s in ipairs(skipped) do print("# skipped: " .. s) end
print(("%d compared, %d outside tolerance"):format(#rows, failed))
os.exit(failed == 0 and 0 or 1)
