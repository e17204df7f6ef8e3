--- Process, Thread, Task States and the costly GPU sets at the speed floor: the cost of one `q:collect()` with
-- 1000 extra sleeping processes, against bench/floor_process over the same
-- processes in the same run.  The benchmark starts the sleepers itself, in
-- their own session (one process group), and kills the group at the end,
-- on error and on Ctrl-C too; they would end by themselves after 600 s.
--
--   LUA_PATH_5_4='./lua/?.lua;./lua/?/init.lua;;' LUA_CPATH_5_4='./build/?.so;;' \
--     lua5.4 bench/process.lua        (after make all build/bench/floor_process)
--
-- Environment: BENCH_PROCS (default 1000), BENCH_ROUNDS (default 7),
-- BENCH_SECONDS per case and round (default 0.3), BENCH_FLOOR (default
-- build/bench/floor_process).  Rounds alternate perflib and floor so that
-- drift hits both; medians are reported.  Exit status 0 even on a MISS.

local perflib = require "perflib"
local common = dofile((arg[0]:match("^(.*)/") or ".") .. "/common.lua")
local median = common.median

local TARGET = 1.3
local NPROCS = math.tointeger(tonumber(os.getenv("BENCH_PROCS") or "")) or 1000
local ROUNDS = math.tointeger(tonumber(os.getenv("BENCH_ROUNDS") or "")) or 7
local SECONDS = tonumber(os.getenv("BENCH_SECONDS") or "") or 0.3
local FLOOR = os.getenv("BENCH_FLOOR") or "build/bench/floor_process"
local GPU_FLOOR = "build/bench/floor_gpu_fdinfo"
local clock = perflib.clock

-- Counters that come from /proc/[pid]/stat alone (NOVICE detail).
local STAT_COUNTERS = { "% Processor Time", "% User Time", "% Privileged Time", "Virtual Bytes",
  "Page Faults/sec", "Working Set", "Thread Count", "Priority Base", "Elapsed Time", "ID Process",
  "Creating Process ID" }

local function paths(set, counters)
  local t = {}
  for i, c in ipairs(counters) do t[i] = ("\\%s(*)\\%s"):format(set, c) end
  return t
end

-- label, floor set, counter paths of the query
local CASES = {
  { label = "Process(*)\\* detail=wizard (stat status io fd smaps)", floor = "Process",
    paths = { { counterset = "Process", instance = "*", detail = "wizard" } } },
  { label = "Process(*)\\% Processor Time (stat)", floor = "process_stat",
    paths = { "\\Process(*)\\% Processor Time" } },
  { label = "Process(*) 11 stat counters, 11 specs", floor = "process_stat",
    paths = paths("Process", STAT_COUNTERS) },
  -- sizes only: statm and comm once kept, against the floor of those files;
  -- the same sizes with one stat counter take the stat path (for comparison)
  { label = "Process(*) WS, Virtual Bytes (statm, comm)", floor = "process_statm",
    paths = paths("Process", { "Working Set", "Virtual Bytes" }) },
  { label = "Process(*) WS, Virtual, Threads (stat)", floor = "process_stat",
    paths = paths("Process", { "Working Set", "Virtual Bytes", "Thread Count" }) },
  { label = "Thread(*)\\* (task stat, status)", floor = "Thread",
    paths = { "\\Thread(*)\\*" } },
  -- processes by state: the same listing and stat reads, counted instead of named
  { label = "Task States\\* (stat)", floor = "process_stat",
    paths = { "\\Task States\\*" } },
  -- three queries of one machine, each a stat counter, against ONE walk's floor:
  -- collected together (m:collect) they share the listing, the stat reads and the fds
  { label = "3 Process(*) queries, m:collect(q1, q2, q3)", floor = "process_stat", target = 1.15,
    group = { { "\\Process(*)\\% Processor Time" }, { "\\Process(*)\\Working Set" },
              { "\\Process(*)\\Thread Count" } } },
  { label = "3 Process(*) queries, one collect each", floor = "process_stat", target = 3.45, apart = true,
    group = { { "\\Process(*)\\% Processor Time" }, { "\\Process(*)\\Working Set" },
              { "\\Process(*)\\Thread Count" } } },
  -- the costly GPU sets: every process's fd/ walked, DRM fds' fdinfo read
  -- (against their own floor, which walks the same way)
  { label = "GPU Engine(*)\\* (fd/ walk, fdinfo)", floor = "GPU Engine", prog = GPU_FLOOR,
    paths = { "\\GPU Engine(*)\\*" } },
  { label = "GPU Process Memory(*)\\* (fd/ walk, fdinfo)", floor = "GPU Process Memory",
    prog = GPU_FLOOR, paths = { "\\GPU Process Memory(*)\\*" } },
}

-- A case's collect: one query, or a group of queries of one machine.
local function collector(c)
  if not c.group then
    local q = common.new_query(perflib, c.paths)
    return function() return q:collect() end, function() q:close() end, q
  end
  local m = perflib.machine()
  local qs = {}
  for i, ps in ipairs(c.group) do
    qs[i] = m:query()
    for _, path in ipairs(ps) do assert(qs[i]:add(path)) end
  end
  local fn
  if c.apart then
    fn = function()
      for _, q in ipairs(qs) do if not q:collect() then return nil end end
      return true
    end
  else
    fn = function() return m:collect(qs[1], qs[2], qs[3]) end
  end
  return fn, function() for _, q in ipairs(qs) do q:close() end end, qs[1]
end

local function sh_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function read_file(path)
  local f = io.open(path)
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

-- Instances of \Process(*)\ID Process named sleep or sleep#N.
local function count_sleepers()
  local q = perflib.query()
  assert(q:add("\\Process(sleep*)\\ID Process"))
  local s = assert(q:collect())
  local n = #s:results()[1].instances
  q:close()
  return n
end

--- Starts n `sleep 600` in a new session; returns its process group id.
local function start_sleepers(n, tmp, before)
  local script = ("echo $$ > %s; i=0; while [ $i -lt %d ]; do sleep 600 & i=$((i+1)); done; "
    .. "echo ok > %s; wait"):format(sh_quote(tmp .. ".pid"), n, sh_quote(tmp .. ".ready"))
  assert(os.execute(("setsid sh -c %s </dev/null >/dev/null 2>&1 &"):format(sh_quote(script))))
  local t0, pgid = clock(), nil
  while clock() - t0 < 60 do
    pgid = pgid or math.tointeger(tonumber((read_file(tmp .. ".pid") or ""):match("%d+") or ""))
    -- forks done and exec'd: the sleepers answer to their name
    if pgid and read_file(tmp .. ".ready") and count_sleepers() >= before + n then
      return pgid
    end
    perflib.sleep(0.05)
  end
  error(("the %d sleepers did not start within 60 s (process group %s)"):format(n, tostring(pgid)))
end

--- Kills the whole group (dash's kill takes no "--") and waits for it to go.
local function stop_sleepers(pgid, tmp, before)
  pgid = pgid or math.tointeger(tonumber((read_file(tmp .. ".pid") or ""):match("%d+") or ""))
  if pgid then os.execute(("kill -KILL -%d 2>/dev/null"):format(pgid)) end
  os.remove(tmp .. ".pid")
  os.remove(tmp .. ".ready")
  local t0 = clock()
  while pgid and before and count_sleepers() > before and clock() - t0 < 10 do
    perflib.sleep(0.05)
  end
end

--- Mean ns per collect over about SECONDS; samples are dropped at once and
-- the GC runs at its own pace.  A collect takes milliseconds here, so the
-- clock is read after each one.
local function time_collect(collect)
  local n, t0 = 0, clock()
  local t
  repeat
    if not collect() then error("collect failed during timing") end
    n = n + 1
    t = clock()
  until t - t0 >= SECONDS
  return (t - t0) * 1e9 / n, n
end

local function run_floor(sets, prog)
  local quoted = {}
  for i, set in ipairs(sets) do quoted[i] = sh_quote(set) end
  local cmd = ("%s -t %g -r 1 %s"):format(prog or FLOOR, SECONDS, table.concat(quoted, " "))
  local f = assert(io.popen(cmd, "r"))
  local out, info = {}, nil
  for line in f:lines() do
    local id, ns = line:match("^floor (.+) (%d+) %d+ %d+ %d+$")
    if id then
      out[id] = tonumber(ns)
    elseif line:match("^# warning") then
      io.stderr:write(line, "\n")
    elseif not info then
      info = line:match("^# floor: (.*)")
    end
  end
  local ok, how, code = f:close()
  if not ok then error(("%s failed (%s %s)"):format(cmd, tostring(how), tostring(code))) end
  return out, info
end

local function bench()
  local sets, seen = {}, {}          -- by floor program
  for _, c in ipairs(CASES) do
    local prog = c.prog or FLOOR
    sets[prog] = sets[prog] or {}
    if not seen[c.floor] then table.insert(sets[prog], c.floor); seen[c.floor] = true end
  end
  local collects, closers, pl_ns, fl_ns = {}, {}, {}, {}
  local first
  for i, c in ipairs(CASES) do
    local q
    collects[i], closers[i], q = collector(c)
    first = first or q
    pl_ns[i], fl_ns[i] = {}, {}
    for _ = 1, 5 do collects[i]() end        -- warm-up: fds opened, buffers grown
  end
  local s = assert(first:collect())
  local ninst = #s:results()[1].instances
  local info
  local t_start = clock()
  for r = 1, ROUNDS do
    for i in ipairs(CASES) do pl_ns[i][r] = time_collect(collects[i]) end
    local fl = {}
    for prog, names in pairs(sets) do
      local out, i = run_floor(names, prog)
      for k, v in pairs(out) do fl[k] = v end
      if prog == FLOOR then info = i end
    end
    for i, c in ipairs(CASES) do
      fl_ns[i][r] = fl[c.floor] or error("floor printed no figure for " .. c.floor)
    end
  end
  for _, close in ipairs(closers) do close() end
  print(("# %d Process instances (_Total included); floor: %s"):format(ninst, info or "?"))
  print(("%-44s %12s %12s %7s %7s  %s"):format("case", "perflib ns", "floor ns", "ratio", "target",
    "result"))
  local misses = 0
  for i, c in ipairs(CASES) do
    local p, f = median(pl_ns[i]), median(fl_ns[i])
    local target = c.target or TARGET
    local ok = p / f <= target
    if not ok then misses = misses + 1 end
    print(("%-44s %12.0f %12.0f %6.2fx %6.2fx  %s"):format(c.label, p, f, p / f, target,
      ok and "PASS" or "MISS"))
  end
  print(("# %d of %d cases within target; %d rounds; %.1f s"):format(#CASES - misses, #CASES,
    ROUNDS, clock() - t_start))
  print("# the two 3-query lines: one walk's floor (process_stat); apart, each collect walks again (3 x 1.15)")
end

-- Kept fds: perflib keeps at most half the soft limit, the floor all of them;
-- rerun under the hard limit when the soft one cannot hold the processes.
local function fd_limit()
  local f = io.popen("ulimit -Sn; ulimit -Hn")
  local soft, hard = f:read("l", "l")
  f:close()
  return tonumber(soft) or math.huge, tonumber(hard) or math.huge
end

local soft, hard = fd_limit()
local want_fds = (NPROCS + 400) * 12
if soft < want_fds and hard > soft and not os.getenv("BENCH_PROCESS_REEXEC") then
  local argv0 = arg and arg[-1] or "lua5.4"
  local cmd = ("ulimit -Sn %s && BENCH_PROCESS_REEXEC=1 exec %s %s"):format(
    hard == math.huge and "unlimited" or math.tointeger(hard), sh_quote(argv0), sh_quote(arg[0]))
  local ok, _, code = os.execute(cmd)
  os.exit(ok and 0 or code or 1)
end

print("# reproduce: LUA_PATH_5_4='./lua/?.lua;./lua/?/init.lua;;' LUA_CPATH_5_4='./build/?.so;;' "
  .. "lua5.4 bench/process.lua")
print(("# %d sleeping processes; %d rounds x %.2f s per case and side; median ns per collect")
  :format(NPROCS, ROUNDS, SECONDS))
local tmp = os.tmpname()
local pgid
local before = count_sleepers()
local ok, err = xpcall(function()
  pgid = start_sleepers(NPROCS, tmp, before)
  bench()
end, debug.traceback)
stop_sleepers(pgid, tmp, before)
os.remove(tmp)
if not ok then
  io.stderr:write("bench/process.lua: ", tostring(err), "\n")
  os.exit(1)
end
os.exit(0)
