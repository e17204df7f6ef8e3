--- make bench: what one counter update costs from Lua (perflib.provider, issue 12, item 4).
--
-- Times N back-to-back updates of one counter of one published instance, per form:
--   w:set("Requests", n)   the counter by name (a look-up in the set's name table each call)
--   w:set(0, n)            the counter by id
--   c:set(n)               an accessor from w:counter "Requests" (the name resolved once)
--   c:add(1)               the accessor's atomic add
-- against the floor a Lua program pays for any store: t.requests = n into a plain table,
-- and a call of an empty Lua function with the same arguments (a method call's floor).
-- ns per call, median of BENCH_ROUNDS rounds (default 7) of BENCH_N calls (default
-- 2,000,000).  The segment goes to a temporary directory.  Benchmarks report, tests assert:
-- the exit status is 0 whatever the numbers.
local perflib = require "perflib"
local common = dofile((arg[0]:match("^(.*)/") or ".") .. "/common.lua")
local clock = perflib.clock

local N = tonumber(os.getenv "BENCH_N") or 2000000
local ROUNDS = tonumber(os.getenv "BENCH_ROUNDS") or 7

local p <close> = assert(perflib.provider { countersets = { {
  name = "Bench Lua Requests", counters = {
    { id = 0, name = "Requests", type = "PERF_COUNTER_BULK_COUNT" },
    { id = 1, name = "Active", type = "PERF_COUNTER_RAWCOUNT" } } } } })
local w = p:instance("Bench Lua Requests", "worker-1")
local c = w:counter "Requests"
local t = {}
local obj = { set = function() end }

local forms = {
  { "t.requests = n (plain table store)", function() for n = 1, N do t.requests = n end end },
  { "o:set(k, n) (empty Lua method)", function() for n = 1, N do obj:set("Requests", n) end end },
  { 'w:set("Requests", n)', function() for n = 1, N do w:set("Requests", n) end end },
  { "w:set(0, n)", function() for n = 1, N do w:set(0, n) end end },
  { "c:set(n) (accessor)", function() for n = 1, N do c:set(n) end end },
  { "c:add(1) (accessor)", function() for _ = 1, N do c:add(1) end end },
}

local times = {}
for r = 1, ROUNDS do
  for i, f in ipairs(forms) do
    local t0 = clock()
    f[2]()
    times[i] = times[i] or {}
    times[i][r] = (clock() - t0) / N * 1e9
  end
end
assert(t.requests == N and w:get "Requests" == 2 * N, "the floor and the updates did not all run")
assert(c:get() == 2 * N, "the last round: c:set to N, then N adds of 1")
print(("perflib.provider: ns per update from Lua (median of %d rounds of %d calls)"):format(ROUNDS, N))
local floor = common.median(times[1])
for i, f in ipairs(forms) do
  local ns = common.median(times[i])
  print(("  %-40s %7.1f ns  %5.1fx the table store"):format(f[1], ns, ns / floor))
end
