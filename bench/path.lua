--- make bench: the whole path a user pays for, per workload: a collect
-- alone, and a collect plus every formatted value in Lua (through evaluate,
-- the columns form and the formatted iterator), against the C floor that
-- reads the same files and formats every value (the floors' "_fmt" sets) in
-- the same run.  Target: collect + formatted values <= 2x the floor.  With
-- python3-psutil installed, CPU % is also compared with
-- psutil.cpu_percent(percpu=True) (target: perflib 3x faster).
--
-- Rounds take turns (every workload's paths, then the floors, then psutil)
-- so that drift on a busy machine hits all sides; medians of the rounds.
-- Before anything is timed, each workload's evaluate, columns and formatted
-- values must agree exactly on one sample pair.  Benchmarks report, tests
-- assert: the exit status is 0 even on a MISS.
--
-- Environment: BENCH_ROUNDS (default 7), BENCH_SECONDS per path and round
-- (default 0.15).

local perflib = require "perflib"
local common = dofile((arg[0]:match("^(.*)/") or ".") .. "/common.lua")
local median = common.median

local CMD = "LUA_PATH_5_4='./lua/?.lua;./lua/?/init.lua;;' LUA_CPATH_5_4='./build/?.so;;' "
  .. "lua5.4 bench/path.lua"
local TARGET, PSUTIL_TARGET = 2.0, 3.0
local ROUNDS = math.tointeger(tonumber(os.getenv("BENCH_ROUNDS") or "")) or 7
local SECONDS = tonumber(os.getenv("BENCH_SECONDS") or "") or 0.15
local clock = perflib.clock

-- floors: program and set; a workload's floor is the sum of its sets'
local WORKLOADS = {
  { label = "CPU %", paths = { "\\Processor Information(*)\\% Processor Time" },
    floors = { { "build/bench/floor", "proc_time_fmt" } } },
  { label = "Memory", paths = { "\\Memory\\*" }, floors = { { "build/bench/floor", "memory_fmt" } } },
  { label = "disk + network rates", paths = { "\\PhysicalDisk(*)\\*", "\\Network Interface(*)\\*" },
    floors = { { "build/bench/floor_disk", "PhysicalDisk_fmt" }, { "build/bench/floor_net", "netif_fmt" } } },
}

-- what this core has (the bench also runs against an older build, for before/after figures)
local methods = require("perflib.core").methods.Sample
local HAVE_COLUMNS = methods.columns ~= nil
local FRESH = { fresh = true }

-- One step: the next sample into the older one's memory (nothing allocated per collect).
local function step(w)
  w.s0, w.s1 = w.s1, w.q:collect(w.s0)
end

-- body: the formatted values of w.s1 against w.s0 (nil: none); each path is
-- timed with a collect before it, and its body alone on one sample pair
local PATHS = {
  { id = "collect", label = "collect alone" },
  { id = "evaluate", label = "+ evaluate (default)", fmt = true, body = function(w)
      for k = 1, w.n do w.s1:evaluate(w.s0, k) end
    end },
  { id = "columns", label = "+ columns", fmt = true, need = HAVE_COLUMNS, body = function(w)
      for k = 1, w.n do w.s1:columns(w.s0, k) end
    end },
  { id = "formatted", label = "+ formatted iterator", fmt = true, body = function(w)
      for _ in w.s1:formatted(w.s0) do end
    end },
  { id = "fresh", label = "+ evaluate, fresh tables", need = HAVE_COLUMNS, body = function(w)
      for k = 1, w.n do w.s1:evaluate(w.s0, k, FRESH) end
    end },
}
for _, p in ipairs(PATHS) do
  local body = p.body
  p.fn = body and function(w) step(w); body(w) end or step
end

--- Every value of s1 against s0 the same through evaluate, columns and formatted.
local function check(w)
  local s0, s1 = w.s0, w.s1
  local seen = 0
  local rows = {}
  for inst, v, st, ctr, k in s1:formatted(s0) do rows[#rows + 1] = { inst, v, st, ctr, k } end
  local r = 0
  for k = 1, w.n do
    local v = s1:evaluate(s0, k)
    local vals, sts = v, v.status
    if HAVE_COLUMNS then vals, sts = s1:columns(s0, k) end
    if v.error then
      r = r + #v.counters
    else
      for i, inst in ipairs(v.instances) do
        for c, ctr in ipairs(v.counters) do
          r = r + 1
          local row = rows[r]
          local st = (sts[c] and sts[c][i]) or "valid"
          if not row or row[1] ~= inst or row[4] ~= ctr or row[5] ~= k or row[3] ~= st
            or (v.status[c] and v.status[c][i] or "valid") ~= st
            or row[2] ~= v[c][i] or vals[c][i] ~= v[c][i] then
            error(("%s: %s / %s of result %d: formatted %s (%s), evaluate %s, columns %s (%s)")
              :format(w.label, inst, ctr, k, tostring(row and row[2]), tostring(row and row[3]),
                      tostring(v[c][i]), tostring(vals[c][i]), st))
          end
          if st == "valid" then seen = seen + 1 end
        end
      end
    end
  end
  if r ~= #rows then error(("%s: formatted gave %d values, evaluate %d"):format(w.label, #rows, r)) end
  w.values, w.valid = r, seen
end

local function time_path(w, fn)
  local n, t0 = 0, clock()
  local t
  repeat
    for _ = 1, 16 do fn(w) end
    n = n + 16
    t = clock()
  until t - t0 >= SECONDS
  return (t - t0) * 1e9 / n
end

local function run_floor(prog, set)
  local f = assert(io.popen(("%s -t %g -r 1 %s"):format(prog, SECONDS, set), "r"))
  local ns
  for line in f:lines() do
    ns = ns or tonumber(line:match("^floor " .. set:gsub("%p", "%%%0") .. " (%d+) "))
  end
  local ok, how, code = f:close()
  if not ok or not ns then error(("%s %s failed (%s %s)"):format(prog, set, tostring(how), tostring(code))) end
  return ns
end

-- psutil.cpu_percent(percpu=True): ns per call over about SECONDS, or nil without psutil
local PSUTIL = "/usr/bin/python3 -c 'import time, psutil\n"
  .. "psutil.cpu_percent(percpu=True)\nn, t0 = 0, time.perf_counter()\n"
  .. "while time.perf_counter() - t0 < %g:\n"
  .. "    for _ in range(16): psutil.cpu_percent(percpu=True)\n    n += 16\n"
  .. "print(int((time.perf_counter() - t0) * 1e9 / n))' 2>/dev/null"
local function run_psutil()
  local f = io.popen(PSUTIL:format(SECONDS), "r")
  local ns = f and tonumber(f:read("l") or "")
  if f then f:close() end
  return ns
end

print("# reproduce: make bench   (or, after make all and the floors in build/bench:)")
print("#   " .. CMD)
local has_psutil = run_psutil() ~= nil
for _, w in ipairs(WORKLOADS) do
  w.q = common.new_query(perflib, w.paths)
  w.n = #w.q
  w.s0 = assert(w.q:collect())
  perflib.sleep(0.05)
  w.s1 = assert(w.q:collect())
  check(w)
  w.ns, w.alone, w.floor = {}, {}, {}
  for _, p in ipairs(PATHS) do w.ns[p.id], w.alone[p.id] = {}, {} end
  for _ = 1, 50 do step(w) end              -- warm-up: files open, buffers and tables grown
end
local ps = {}

local t_start = clock()
for r = 1, ROUNDS do
  for _, w in ipairs(WORKLOADS) do
    for _, p in ipairs(PATHS) do
      if p.need ~= false then
        w.ns[p.id][r] = time_path(w, p.fn)
        if p.body then w.alone[p.id][r] = time_path(w, p.body) end
      end
    end
  end
  for _, w in ipairs(WORKLOADS) do
    local sum = 0
    for _, fl in ipairs(w.floors) do sum = sum + run_floor(fl[1], fl[2]) end
    w.floor[r] = sum
  end
  if has_psutil then ps[r] = run_psutil() end
end

print(("# %d rounds x %.2f s per path; median ns per collect (and its values); floor = the C floor "
  .. "reading the same files and formatting every value"):format(ROUNDS, SECONDS))
print(("%-22s %-32s %10s %10s %7s %7s  %s"):format("workload", "path", "ns", "floor ns", "ratio", "target",
  "result"))
local misses, checked = 0, 0
for _, w in ipairs(WORKLOADS) do
  local f = median(w.floor)
  for _, p in ipairs(PATHS) do
    if p.need ~= false then
      local ns = median(w.ns[p.id])
      local ratio = ns / f
      local verdict = "-"
      if p.fmt then
        checked = checked + 1
        verdict = ratio <= TARGET and "PASS" or "MISS"
        if ratio > TARGET then misses = misses + 1 end
      end
      print(("%-22s %-32s %10.0f %10.0f %6.2fx %6s  %s"):format(w.label, p.label, ns, f, ratio,
        p.fmt and ("%.1fx"):format(TARGET) or "", verdict))
      w[p.id] = ns
    end
  end
  print(("#   %s: %d results, %d values per collect (%d valid in the checked pair), %s"):format(w.label, w.n,
    w.values, w.valid, table.concat(w.paths, " + ")))
end
print("# the formatted values alone, on one sample pair (no collect): ns per collect's worth")
print(("%-22s %-32s %10s %10s"):format("workload", "path", "ns", "ns/value"))
for _, w in ipairs(WORKLOADS) do
  for _, p in ipairs(PATHS) do
    if p.body and p.need ~= false then
      local ns = median(w.alone[p.id])
      print(("%-22s %-32s %10.0f %10.1f"):format(w.label, p.label:gsub("^%+ ", ""), ns, ns / w.values))
    end
  end
end
if has_psutil then
  local p = median(ps)
  local x = p / WORKLOADS[1].evaluate
  print(("%-22s %-32s %10.0f %10s %6.2fx %6s  %s"):format("CPU %", "psutil.cpu_percent(percpu=True)", p, "",
    x, ("%.1fx"):format(PSUTIL_TARGET), x >= PSUTIL_TARGET and "PASS" or "MISS"))
  print("#   the ratio: psutil's ns per call over perflib's collect + evaluate (how many times faster perflib is)")
else
  print("# psutil: not installed (apt-get install python3-psutil), no comparison")
end
print(("# evaluate, columns and formatted agree on every value; %d of %d within %.1fx; %.1f s")
  :format(checked - misses, checked, TARGET, clock() - t_start))
for _, w in ipairs(WORKLOADS) do w.q:close() end
os.exit(0)
