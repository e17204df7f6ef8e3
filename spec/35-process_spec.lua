-- Process and Thread against spec/fixtures/proc-basic and proc-basic2 (run from
-- the repository root), mutation trees in /tmp, then this machine.  proc-basic2
-- is proc-basic 10.00 s later (uptime 699.22 -> 709.22).  Expected values are
-- worked out by hand from the fixture files; the arithmetic is in comments.  At
-- USER_HZ 100 a tick is 100000 (100 ns); pages are 4096 bytes; kB x 1024.

local perflib = require "perflib"
local C = require "spec.support.compat"

local FX = "spec/fixtures/"
local T = 100000
local U = "unset"
local TOTAL_ID = 0xFFFFFFFE

local function sample(tree, path, opts)
  opts = opts or {}
  local q = perflib.query { root = FX .. tree, user_hz = opts.hz or 100, page_size = opts.page or 4096 }
  local idx = assert(q:add(path))
  return assert(q:collect()), idx, q
end

-- every counter, the dear ones (Handle Count, Working Set - Private) too
local ALL = { counterset = "Process", instance = "*", detail = "wizard" }

-- Counters in definition order (the C test uses the same order).
local NAMES = { "% Processor Time", "% User Time", "% Privileged Time", "Virtual Bytes Peak",
  "Virtual Bytes", "Page Faults/sec", "Working Set Peak", "Working Set", "Page File Bytes",
  "Private Bytes", "Thread Count", "Priority Base", "Elapsed Time", "ID Process",
  "Creating Process ID", "Handle Count", "IO Read Operations/sec", "IO Write Operations/sec",
  "IO Data Operations/sec", "IO Other Operations/sec", "IO Read Bytes/sec", "IO Write Bytes/sec",
  "IO Data Bytes/sec", "IO Other Bytes/sec", "Working Set - Private", "Major Page Faults/sec",
  "Disk Read Bytes/sec", "Disk Write Bytes/sec", "Context Switches/sec", "% IO Wait Time",
  "Processor" }

local function check_row(s, idx, inst, want)
  for c, name in ipairs(NAMES) do
    local v, st = s:value(idx, inst, name)
    if want[c] == U then
      assert.is_nil(v, inst .. " " .. name)
      assert.equal("no_data", st, inst .. " " .. name)
    else
      assert.equal(want[c], v, inst .. " " .. name)
      assert.equal("integer", C.math_type(v))
    end
  end
end

local read = dofile("spec/support/files.lua").read

describe("Process", function()
  describe("metadata", function()
    local cs = assert(perflib.counterset("Process"))

    it("is a multi-instance set at title index 14000, not costly", function()
      assert.equal("7f6354f6-b0e1-5efd-aea3-5222ce8af8c5", cs.guid)
      assert.equal("multiple", cs.instance_type)
      assert.is_false(cs.costly)
      assert.equal(14000, cs.index)
      assert.equal(#NAMES, #cs.counters)
      for i, name in ipairs(NAMES) do assert.equal(name, cs.counters[i].name) end
    end)

    it("keeps the Windows ids and types, and marks the costly reads wizard", function()
      assert.equal("Working Set", cs:counter(7).name)
      assert.equal("Handle Count", cs:counter(18).name)
      assert.equal("Working Set - Private", cs:counter(27).name)
      assert.is_nil(cs:counter(8))                 -- Page File Bytes Peak: no Linux source
      assert.equal("PERF_100NSEC_TIMER", cs:counter("% Processor Time").type_name)
      assert.equal("PERF_ELAPSED_TIME", cs:counter("Elapsed Time").type_name)
      assert.equal("PERF_COUNTER_BULK_COUNT", cs:counter("IO Read Bytes/sec").type_name)
      assert.equal("PERF_COUNTER_LARGE_RAWCOUNT", cs:counter("Private Bytes").type_name)
      assert.equal("wizard", cs:counter("Handle Count").detail)
      assert.equal("wizard", cs:counter("Working Set - Private").detail)
      assert.equal("novice", cs:counter("% Processor Time").detail)
      assert.equal("advanced", cs:counter("Context Switches/sec").detail)
      for _, c in ipairs(cs.counters) do assert.is_false(c.hidden) end
    end)
  end)

  describe("proc-basic", function()
    local s, idx = sample("proc-basic", ALL)

    it("leaves the wizard-level counters out of a plain wildcard", function()
      local q = perflib.query { root = FX .. "proc-basic" }
      local i = assert(q:add "\\Process(*)\\*")
      local names = {}
      for _, n in ipairs(q:specs()[i].counters) do names[n] = true end
      assert.is_nil(names["Handle Count"])
      assert.is_nil(names["Working Set - Private"])
      assert.is_true(names["Working Set"])
      assert.equal(#NAMES - 2, #q:specs()[i].counters)
    end)

    it("names instances by comm, duplicates #1 in pid order, ids are pids", function()
      local r = s:results()[idx]
      -- 512 has no stat (exited before the read), 30900's stat is garbage: left out
      assert.same({ "process_api", "kthreadd", "bash", "we ird) (x", "cat", "bash#1", "_Total#1",
        "trunc", "_Total" }, r.instances)
      assert.same({ 1, 2, 1162, 20259, 25423, 30473, 30700, 30800, TOTAL_ID }, r.ids)
      assert.equal(#NAMES, #r.counters)
    end)

    it("reads every counter of every process", function()
      -- 1: utime 940 stime 1210, VmPeak 45616 kB, minflt 79978 + majflt 12, VmHWM 16792 kB,
      -- rss 3998 pages, RssAnon 10560 + VmSwap 0 kB, start 7, 5 fds, io garbage (stands for
      -- EACCES): all IO unset; smaps (68 + 112 + 0) kB; 400 + 83 switches
      check_row(s, idx, "process_api", { 2150 * T, 940 * T, 1210 * T, 46710784, 44343296, 79990,
        17195008, 16375808, 0, 10813440, 3, 120, 7 * T, 1, 0, 5, U, U, U, U, U, U, U, U, 184320,
        12, U, U, 483, 0, 1 })
      -- kernel thread: no Vm lines, no fd/ here, smaps_rollup not read, io all zero
      check_row(s, idx, "kthreadd", { 3 * T, 0, 3 * T, U, 0, 0, U, 0, U, U, 1, 120, 0, 2, 0, U,
        0, 0, 0, 0, 0, 0, 0, 0, U, 0, 0, 0, 125, 0, 0 })
      -- nice 5: priority 25 + 100; RssAnon 1800 + VmSwap 200 kB; smaps 100 + 1700 kB with no
      -- Private_Hugetlb line; syscr 300 + syscw 40; rchar 10^6 + wchar 20000; blkio 4
      check_row(s, idx, "bash", { 20 * T, 12 * T, 8 * T, 9216000, 8916992, 756, 5427200, 5242880,
        204800, 2048000, 1, 125, 2015 * T, 1162, 1161, 4, 300, 40, 340, 0, 1000000, 20000,
        1020000, 0, 1843200, 1, 4096, 8192, 157, 4 * T, 0 })
      -- the reference's hostile comm, stat alone: rss 419 x 4096
      check_row(s, idx, "we ird) (x", { 0, 0, 0, U, 2990080, 140, U, 1716224, U, U, 1, 120,
        48180 * T, 20259, 1, U, U, U, U, U, U, U, U, U, U, 0, U, U, U, 0, 0 })
      -- the reference's cat: rss 394 pages, io rchar 6976 syscr 10
      check_row(s, idx, "cat", { 0, 0, 0, 3133440, 3133440, 101, 1830912, 1613824, 0, 118784, 1,
        120, 69922 * T, 25423, 25416, 4, 10, 0, 10, 0, 6976, 0, 6976, 0, 184320, 0, 0, 0, 0, 0, 1 })
      check_row(s, idx, "bash#1", { 225 * T, 150 * T, 75 * T, 9420800, 9117696, 2103, 5734400,
        5734400, 0, 2048000, 2, 120, 250000 * T, 30473, 30471, 4, 1200, 800, 2000, 0, 500000,
        250000, 750000, 0, 2068480, 3, 0, 4096, 930, 2 * T, 1 })
      -- SCHED_FIFO 50: stat 18 is -51, on the 0-139 scale 49
      check_row(s, idx, "_Total#1", { 16 * T, 7 * T, 9 * T, U, 3133440, 5, U, 1613824, U, U, 1,
        49, 300000 * T, 30700, 1, U, U, U, U, U, U, U, U, U, U, 0, U, U, U, 0, 1 })
      -- cut after "rss 12" without a newline: rss and the later fields unset
      check_row(s, idx, "trunc", { 8 * T, 5 * T, 3 * T, U, 1234567, 10, U, U, U, U, 1, 120,
        6000 * T, 30800, 1, U, U, U, U, U, U, U, U, U, U, 0, U, U, U, U, U })
    end)

    it("sums _Total over every process, or gives no value", function()
      -- ticks 2150+3+20+0+0+225+16+8; virtual 44343296+0+8916992+2990080+3133440+9117696
      -- +3133440+1234567; threads and major faults; peaks, priority, ids, times not summed.
      -- No value where a listed process lacks one: trunc's stat is cut before rss (Working
      -- Set, % IO Wait Time); three have no status, fd/ or smaps_rollup, kthreadd no fd/;
      -- process_api's io is unreadable.  A kernel thread's missing Vm lines do not count.
      check_row(s, idx, "_Total", { 2422 * T, 1114 * T, 1308 * T, U, 72869511, 83105, U, U,
        U, U, 11, U, U, U, U, U, U, U, U, U, U, U, U, U, U, 16, U, U, U, U, U })
    end)

    it("lists the same instances without collecting", function()
      local m = perflib.machine { root = FX .. "proc-basic" }
      local names, ids = {}, {}
      for i, inst in ipairs(m:counterset("Process"):instances()) do
        names[i], ids[i] = inst.name, inst.id
      end
      assert.same(s:results()[idx].instances, names)
      assert.same(s:results()[idx].ids, ids)
    end)

    it("gives Elapsed Time on the boot clock of /proc/uptime", function()
      local v, b = s:value(idx, "bash", "Elapsed Time")
      assert.equal(6992200000, b)                    -- 699.22 s in 100 ns
      -- 699.22 - 20.15 s (start 2015 ticks)
      assert.near(679.07, perflib.calculate("PERF_ELAPSED_TIME", { value = v, time = b }), 1e-9)
    end)

    it("looks processes up by pid", function()
      assert.equal(30471, (s:value(idx, 30473, "Creating Process ID")))
      assert.equal(20259, (s:value(idx, 20259, "ID Process")))
    end)
  end)

  describe("overrides", function()
    it("converts ticks at USER_HZ 250 and pages of 16 KiB", function()
      local s, idx = sample("proc-basic", ALL, { hz = 250, page = 16384 })
      assert.equal(2150 * 40000, (s:value(idx, "process_api", "% Processor Time")))
      assert.equal(7 * 40000, (s:value(idx, "process_api", "Elapsed Time")))
      assert.equal(3998 * 16384, (s:value(idx, "process_api", "Working Set")))
      assert.equal(10813440, (s:value(idx, "process_api", "Private Bytes")))     -- kB, not pages
    end)
  end)

  describe("proc-basic -> proc-basic2 (10 s)", function()
    local s0, idx0 = sample("proc-basic", ALL)
    local s1, idx1 = sample("proc-basic2", ALL)

    local function rate(ctype, inst, name)
      local v0 = s0:value(idx0, inst, name)
      local v1 = s1:value(idx1, inst, name)
      assert(v0 and v1, inst .. " " .. name)
      -- the fixture clock: uptime in 100 ns, as the two trees differ by 10.00 s
      local _, t0 = s0:value(idx0, "bash", "Elapsed Time")
      local _, t1 = s1:value(idx1, "bash", "Elapsed Time")
      return perflib.calculate(ctype, { value = v1, time = t1 }, { value = v0, time = t0 })
    end

    it("gives % times and rates", function()
      -- 1162: 150 ticks of 1000 in 10 s; user 100, kernel 50
      assert.near(15, rate("PERF_100NSEC_TIMER", "bash", "% Processor Time"), 1e-9)
      assert.near(10, rate("PERF_100NSEC_TIMER", "bash", "% User Time"), 1e-9)
      assert.near(5, rate("PERF_100NSEC_TIMER", "bash", "% Privileged Time"), 1e-9)
      -- faults (955 + 2) - (755 + 1) = 201; majflt 1; rchar +100000; syscr +300
      assert.near(20.1, rate("PERF_COUNTER_BULK_COUNT", "bash", "Page Faults/sec"), 1e-9)
      assert.near(0.1, rate("PERF_COUNTER_BULK_COUNT", "bash", "Major Page Faults/sec"), 1e-9)
      assert.near(10000, rate("PERF_COUNTER_BULK_COUNT", "bash", "IO Read Bytes/sec"), 1e-9)
      assert.near(30, rate("PERF_COUNTER_BULK_COUNT", "bash", "IO Read Operations/sec"), 1e-9)
      assert.near(30, rate("PERF_COUNTER_BULK_COUNT", "bash", "IO Data Operations/sec"), 1e-9)
      -- switches (250 + 17) - (150 + 7) = 110
      assert.near(11, rate("PERF_COUNTER_BULK_COUNT", "bash", "Context Switches/sec"), 1e-9)
      -- 30473: blkio 2 -> 12 ticks; write_bytes +4096000; wchar +50000; syscw +100
      assert.near(1, rate("PERF_100NSEC_TIMER", "bash#1", "% IO Wait Time"), 1e-9)
      assert.near(409600, rate("PERF_COUNTER_BULK_COUNT", "bash#1", "Disk Write Bytes/sec"), 1e-9)
      assert.near(5000, rate("PERF_COUNTER_BULK_COUNT", "bash#1", "IO Write Bytes/sec"), 1e-9)
      assert.near(10, rate("PERF_COUNTER_BULK_COUNT", "bash#1", "IO Write Operations/sec"), 1e-9)
      -- 1: (990 + 1230) - (940 + 1210) = 70 ticks; the kernel thread 2: 10 ticks
      assert.near(7, rate("PERF_100NSEC_TIMER", "process_api", "% Processor Time"), 1e-9)
      assert.near(1, rate("PERF_100NSEC_TIMER", "kthreadd", "% Privileged Time"), 1e-9)
    end)

    it("sees pid 25423 reused: another start time, so another identity", function()
      assert.equal(69922 * T, (s0:value(idx0, "cat", "Elapsed Time")))
      assert.equal(70500 * T, (s1:value(idx1, "cat", "Elapsed Time")))
      assert.equal(30473, (s1:value(idx1, "cat", "Creating Process ID")))
    end)
  end)

  describe("mutations of one tree (one query)", function()
    local dir

    -- fixed-width fields, so rewriting in place keeps the length (the fd stays open)
    local function put_stat(pid, comm, utime, start)
      local p = ("%s/proc/%d"):format(dir, pid)
      os.execute("mkdir -p " .. p)
      local f = io.open(p .. "/stat", "r+") or assert(io.open(p .. "/stat", "w"))
      f:write(("%d (%s) S 1 1 1 0 -1 4194304 100 0 0 0 %06d 000000 0 0 20 0 1 0 %06d 409600 10\n")
        :format(pid, comm, utime, start))
      f:close()
    end

    before_each(function()
      dir = os.tmpname()
      os.remove(dir)
      assert(os.execute("mkdir -p " .. dir .. "/proc"))
    end)
    after_each(function() os.execute("rm -rf " .. dir) end)

    it("restarts rates of a reused pid, drops exited processes, keeps _Total rising", function()
      put_stat(100, "a", 10, 1000)
      put_stat(200, "b", 20, 2000)
      put_stat(300, "b", 30, 3000)
      local q = perflib.query { root = dir, user_hz = 100 }
      local idx = assert(q:add("\\Process(*)\\% Processor Time"))
      local s0 = assert(q:collect())
      assert.same({ "a", "b", "b#1", "_Total" }, s0:results()[idx].instances)
      put_stat(100, "a", 15, 1000)
      put_stat(200, "b", 1, 2500)              -- pid 200 reused by another b
      put_stat(300, "b", 40, 3000)
      local s1 = assert(q:collect())
      local _, st = s1:format(s0, idx, 200)
      assert.equal("first_sample", st)
      _, st = s1:format(s0, idx, 100)
      assert.equal("valid", st)
      -- alive 15 + 1 + 40 ticks, plus 20 from the 200 that exited
      assert.equal(76 * T, (s1:value(idx, "_Total")))
      _, st = s1:format(s0, idx, "_Total")
      assert.equal("valid", st)
      os.remove(dir .. "/proc/300/stat")
      os.remove(dir .. "/proc/300")
      local s2 = assert(q:collect())
      assert.same({ "a", "b", "_Total" }, s2:results()[idx].instances)
      assert.equal(76 * T, (s2:value(idx, "_Total")))
      q:close()
    end)
  end)

  describe("this machine", function()
    local mypid = C.tointeger(tonumber(read("/proc/self/stat"):match("^(%d+)")))

    it("lists this process with its own values", function()
      local q = perflib.query()
      local idx = assert(q:add(ALL))
      local s0 = assert(q:collect())
      local x = 0
      for i = 1, 2e6 do x = x + i end
      assert(x > 0)
      local s1 = assert(q:collect())
      assert.equal(mypid, (s1:value(idx, mypid, "ID Process")))
      assert.is_true(s1:value(idx, mypid, "Working Set") > 0)
      assert.is_true(s1:value(idx, mypid, "Thread Count") >= 1)
      assert.is_true(s1:value(idx, mypid, "Handle Count") >= 3)
      assert.is_true(s1:value(idx, "_Total", "Thread Count") >= 1)
      local v, st = s1:format(s0, idx, mypid, "% Processor Time", { nocap = true })
      assert.equal("valid", st)
      assert.is_true(v >= 0)
      local e = s1:format(nil, idx, mypid, "Elapsed Time")
      assert.is_true(e >= 0 and e < 1e6)
      q:close()
    end)

    it("keeps its descriptors from one collect to the next", function()
      local function nfds()
        local p = io.popen("ls /proc/" .. mypid .. "/fd | wc -l")
        local n = tonumber(p:read("*l"))
        p:close()
        return n
      end
      local q = perflib.query()
      assert(q:add("\\Process(*)\\% Processor Time"))
      assert(q:collect())
      local n1 = nfds()
      for _ = 1, 5 do assert(q:collect()) end
      -- processes may come and go meanwhile: no growth per collect
      assert.is_true(nfds() <= n1 + 5)
      q:close()
    end)
  end)
end)

describe("Thread", function()
  it("is costly, at title index 15000", function()
    local cs = assert(perflib.counterset("Thread"))
    assert.equal("0adf2b76-b505-59cc-bbdd-c87466a19b03", cs.guid)
    assert.is_true(cs.costly)
    assert.equal(15000, cs.index)
    assert.equal(12, #cs.counters)
  end)

  it("names threads process/tid and reads task stat and status", function()
    local s, idx = sample("proc-basic", "\\Thread(*)\\*")
    local r = s:results()[idx]
    -- 30473's leader task is missing: its thread names itself
    assert.same({ "process_api/1", "process_api/45", "process_api/46", "kthreadd/2", "bash/1162",
      "cat/25423", "bashthr/30480" }, r.instances)
    assert.same({ 1, 45, 46, 2, 1162, 25423, 30480 }, r.ids)
    local function v(inst, name) return (s:value(idx, inst, name)) end
    assert.equal(1200 * T, v("process_api/1", "% Processor Time"))    -- 500 + 700 ticks
    assert.equal(110, v("process_api/1", "Context Switches/sec"))     -- 100 + 10
    assert.equal(230, v("process_api/45", "Context Switches/sec"))
    assert.is_nil(v("process_api/46", "Context Switches/sec"))        -- no task status
    -- D, SCHED_FIFO rtprio 10: stat 18 -11 -> 89; base 99 - 10
    assert.equal(89, v("process_api/46", "Priority Current"))
    assert.equal(89, v("process_api/46", "Priority Base"))
    assert.equal(5, v("process_api/46", "Thread State"))
    assert.equal(2, v("process_api/46", "Thread Wait Reason"))
    assert.equal(125, v("bash/1162", "Priority Base"))                  -- 120 + nice 5
    assert.equal(2, v("cat/25423", "Thread State"))                     -- R
    assert.equal(4, v("bashthr/30480", "Thread State"))                 -- Z
    assert.equal(30473, v("bashthr/30480", "ID Process"))
    assert.equal(30480, v("bashthr/30480", "ID Thread"))
    assert.equal(130 * T, v("process_api/46", "Elapsed Time"))
  end)

  it("gives thread rates between the two trees", function()
    local s0, i0 = sample("proc-basic", "\\Thread(*)\\*")
    local s1, i1 = sample("proc-basic2", "\\Thread(*)\\*")
    local v0, t0 = s0:value(i0, "process_api/1", "Elapsed Time")
    local v1, t1 = s1:value(i1, "process_api/1", "Elapsed Time")
    assert.equal(v0, v1)
    local function rate(ctype, inst, name)
      return perflib.calculate(ctype, { value = (s1:value(i1, inst, name)), time = t1 },
        { value = (s0:value(i0, inst, name)), time = t0 })
    end
    -- utime 500 -> 530: 30 ticks in 10 s; stime of 45: 400 -> 420
    assert.near(3, rate("PERF_100NSEC_TIMER", "process_api/1", "% User Time"), 1e-9)
    assert.near(2, rate("PERF_100NSEC_TIMER", "process_api/45", "% Privileged Time"), 1e-9)
    assert.near(1, rate("PERF_COUNTER_BULK_COUNT", "process_api/1", "Context Switches/sec"), 1e-9)
  end)

  it("lists this machine's threads, this one among them", function()
    local mypid = C.tointeger(tonumber(read("/proc/self/stat"):match("^(%d+)")))
    local q = perflib.query()
    local idx = assert(q:add("\\Thread(*)\\*"))
    local s = assert(q:collect())
    assert.equal(mypid, (s:value(idx, mypid, "ID Process")))
    assert.equal(mypid, (s:value(idx, mypid, "ID Thread")))
    q:close()
  end)
end)
