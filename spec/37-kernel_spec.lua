-- SoftIRQ, Interrupts, NFS Client and Control Group against the fixture
-- trees spec/fixtures/kern-* (run from the repository root), then on this
-- machine.  Every expected value is worked out by hand from the fixture
-- files; the arithmetic is in the comments.  kern-basic2 is kern-basic 10 s
-- later.  Units: cgroup usec x 10 and ns / 100 = 100 ns; mountstats ms x 10000.

local perflib = require "perflib"
local C = require "spec.support.compat"

local FX = "spec/fixtures/"
local TOTAL_ID = 0xFFFFFFFE

-- One sample of \Set(*)\* below a root; returns sample, index, result, query.
local function sample(tree, set)
  local q = perflib.query { root = tree == "/" and "/" or FX .. tree, user_hz = 100 }
  local idx = assert(q:add("\\" .. set .. "(*)\\*"))
  local s = assert(q:collect())
  return s, idx, s:results()[idx], q
end

local fnv = C.fnv32     -- FNV-1a, 32 bits

-- Inode of a path (coreutils stat), for the cgroup identity.
local function inode(path)
  local f = assert(io.popen("stat -c %i '" .. path .. "'"))
  local n = C.tointeger(tonumber(f:read("*l")))
  f:close()
  return n
end

-- Per-second rate of a BULK counter between two samples 10 s apart.
local function rate10(s0, s1, idx, inst, name)
  local v0 = assert((s0:value(idx, inst, name)), inst .. " " .. name)
  local v1 = assert((s1:value(idx, inst, name)), inst .. " " .. name)
  return perflib.calculate("PERF_COUNTER_BULK_COUNT", { value = v1, time = 100000000 },
    { value = v0, time = 0 })
end

local function check_all(s, idx, want)
  for inst, counters in pairs(want) do
    for name, v in pairs(counters) do
      if v == false then
        local got, st = s:value(idx, inst, name)
        assert.is_nil(got, inst .. " " .. name)
        assert.equal("no_data", st, inst .. " " .. name)
      else
        assert.equal(v, (s:value(idx, inst, name)), inst .. " " .. name)
      end
    end
  end
end

describe("SoftIRQ", function()
  it("has its GUID, index and one BULK counter", function()
    local cs = assert(perflib.counterset("SoftIRQ"))
    assert.equal("9a6a50a6-c3a5-57a7-bba1-8d30ebad7a26", cs.guid)
    assert.equal("multiple", cs.instance_type)
    assert.is_false(cs.costly)
    assert.equal(1, #cs.counters)
    assert.equal("PERF_COUNTER_BULK_COUNT", cs:counter(0).type_name)
    assert.equal("Softirqs/sec", cs:counter(0).name)
  end)

  it("sums each vector over the CPUs (reference VM)", function()
    local s, idx, r = sample("kern-basic", "SoftIRQ")
    assert.same({ "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED",
                  "HRTIMER", "RCU", "_Total" }, r.instances)
    assert.same({ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, TOTAL_ID }, r.ids)
    local c = "Softirqs/sec"
    check_all(s, idx, {
      HI = { [c] = 0 }, TIMER = { [c] = 16032 + 16325 }, NET_TX = { [c] = 4 },
      NET_RX = { [c] = 99220 + 32276 }, BLOCK = { [c] = 79686 }, IRQ_POLL = { [c] = 0 },
      TASKLET = { [c] = 2 }, SCHED = { [c] = 41792 + 36705 }, HRTIMER = { [c] = 0 },
      RCU = { [c] = 39848 + 41626 },
      -- 32357 + 4 + 131496 + 79686 + 2 + 78497 + 81474
      _Total = { [c] = 403516 },
    })
  end)

  it("gives per-second rates over 10 s", function()
    local s0, idx = sample("kern-basic", "SoftIRQ")
    local s1 = sample("kern-basic2", "SoftIRQ")
    assert.equal(200, rate10(s0, s1, idx, "TIMER", "Softirqs/sec"))   -- +1000 +1000
    assert.equal(60, rate10(s0, s1, idx, "NET_RX", "Softirqs/sec"))   -- +500 +100
    assert.equal(0, rate10(s0, s1, idx, "HI", "Softirqs/sec"))
    -- 2000 + 600 + 200 + 1000 + 1000 = 4800 in 10 s
    assert.equal(480, rate10(s0, s1, idx, "_Total", "Softirqs/sec"))
  end)

  it("leaves malformed rows without a value and reads a last line without newline", function()
    local s, idx, r = sample("kern-broken", "SoftIRQ")
    assert.same({ "HI", "TIMER", "NET_RX", "BLOCK", "SCHED", "RCU", "_Total" }, r.instances)
    check_all(s, idx, {
      TIMER = { ["Softirqs/sec"] = false },     -- "abc"
      NET_RX = { ["Softirqs/sec"] = false },    -- one cell for two CPUs
      BLOCK = { ["Softirqs/sec"] = false },     -- over 2^32 - 1
      SCHED = { ["Softirqs/sec"] = 30 },
      RCU = { ["Softirqs/sec"] = 5 + 6 },       -- no newline
      _Total = { ["Softirqs/sec"] = 30 + 11 },
    })
  end)

  it("reports an empty or missing file as that set's error only", function()
    for _, tree in ipairs { "kern-empty", "basic" } do
      local q = perflib.query { root = FX .. tree }
      local i1 = assert(q:add("\\SoftIRQ(*)\\*"))
      local i2 = assert(q:add("\\NFS Client(*)\\*"))
      local s = assert(q:collect())
      local r = s:results()
      assert.equal("no_data", r[i1].status, tree)
      assert.truthy(r[i1].error:find("softirqs", 1, true))
      if tree == "kern-empty" then assert.equal("valid", r[i2].status) end
    end
  end)

  it("unwraps 32-bit cells one by one across collections", function()
    local dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p '" .. dir .. "/proc'"))
    local function write(text)
      local f = assert(io.open(dir .. "/proc/softirqs", "w"))
      f:write(text)
      f:close()
    end
    write("   CPU0       CPU1\n  TIMER: 4294967000        100\n")
    local q = perflib.query { root = dir }
    local idx = assert(q:add("\\SoftIRQ(TIMER)\\Softirqs/sec"))
    local s0 = assert(q:collect())
    assert.equal(4294967100, (s0:value(idx, "TIMER", "Softirqs/sec")))
    write("   CPU0       CPU1\n  TIMER:        704        150\n")   -- +296 +704, +50
    local s1 = assert(q:collect())
    assert.equal(4294967100 + 1050, (s1:value(idx, "TIMER", "Softirqs/sec")))
    q:close()
    os.execute("rm -rf '" .. dir .. "'")
  end)
end)

describe("Interrupts", function()
  it("has its GUID and index", function()
    local cs = assert(perflib.counterset("Interrupts"))
    assert.equal("978e99b8-6c1a-5957-856c-f469eed1adfb", cs.guid)
    assert.is_false(cs.costly)
    assert.equal("Interrupts/sec", cs:counter(0).name)
  end)

  it("names rows by label; IRQ numbers are their ids", function()
    local s, idx, r = sample("kern-basic", "Interrupts")
    assert.same({ "24", "25", "26", "28", "36", "LOC", "RES", "CAL", "TLB", "HYP", "ERR", "MIS",
                  "_Total" }, r.instances)
    assert.equal(24, r.ids[1])
    assert.equal(36, r.ids[5])
    assert.equal(0x80000000 + fnv("LOC") % 0x40000000, r.ids[6])
    assert.equal(TOTAL_ID, r.ids[13])
    local c = "Interrupts/sec"
    check_all(s, idx, {
      ["24"] = { [c] = 1 }, ["25"] = { [c] = 1 }, ["26"] = { [c] = 20 }, ["28"] = { [c] = 0 },
      ["36"] = { [c] = 42144 }, LOC = { [c] = 350167 + 411953 }, RES = { [c] = 42532 + 40586 },
      CAL = { [c] = 369536 + 360600 }, TLB = { [c] = 8862 + 8883 }, HYP = { [c] = 37 + 75 },
      ERR = { [c] = 3 }, MIS = { [c] = 0 },    -- one machine-wide count each
      -- 1+1+20+0+42144+762120+83118+730136+17745+112, ERR and MIS left out
      _Total = { [c] = 1635397 },
    })
    assert.equal(762120, (s:value(idx, 0x80000000 + fnv("LOC") % 0x40000000, c)))
  end)

  it("gives per-second rates over 10 s", function()
    local s0, idx = sample("kern-basic", "Interrupts")
    local s1 = sample("kern-basic2", "Interrupts")
    assert.equal(200, rate10(s0, s1, idx, "LOC", "Interrupts/sec"))
    assert.equal(100, rate10(s0, s1, idx, "36", "Interrupts/sec"))
    assert.equal(0.2, rate10(s0, s1, idx, "ERR", "Interrupts/sec"))
    assert.equal(320, rate10(s0, s1, idx, "_Total", "Interrupts/sec"))   -- 2000+200+1000
  end)

  it("handles short and garbage rows, and a last row without newline", function()
    local s, idx, r = sample("kern-broken", "Interrupts")
    assert.same({ "24", "25", "LOC", "ERR", "MIS", "RES", "_Total" }, r.instances)
    check_all(s, idx, {
      ["24"] = { ["Interrupts/sec"] = 1 }, ["25"] = { ["Interrupts/sec"] = false },
      LOC = { ["Interrupts/sec"] = false }, ERR = { ["Interrupts/sec"] = 4 },
      MIS = { ["Interrupts/sec"] = false }, RES = { ["Interrupts/sec"] = 1 + 2 },
      _Total = { ["Interrupts/sec"] = 1 + 3 },                  -- 24 and RES; ERR is wide
    })
  end)
end)

describe("NFS Client", function()
  local M = "/home/shared data"

  it("has its GUID, index and AVERAGE_TIMER counters on hidden bases", function()
    local cs = assert(perflib.counterset("NFS Client"))
    assert.equal("f91a3fe3-1a22-5d25-a3e3-bf25a35dd0ad", cs.guid)
    for _, n in ipairs { "Avg. sec/Read (RTT)", "Avg. sec/Read (Execute)", "Avg. sec/Write (RTT)",
                         "Avg. sec/Write (Execute)" } do
      assert.equal("PERF_AVERAGE_TIMER", cs:counter(n).type_name)
      assert.equal(n .. " Base", cs:counter(n).base)
      assert.is_true(cs:counter(n .. " Base").hidden)
    end
  end)

  it("lists NFS mounts only, by mount point", function()
    local s, idx, r = sample("kern-basic", "NFS Client")
    assert.same({ M, "/mnt/backup" }, r.instances)   -- \040 decoded; nfsd, tmpfs left out
    assert.equal(fnv(M) % 0x80000000, r.ids[1])
    check_all(s, idx, {
      [M] = {
        ["Read Bytes/sec"] = 10485760 + 1048576, ["Write Bytes/sec"] = 2097152,
        ["Server Read Bytes/sec"] = 11534336, ["Server Write Bytes/sec"] = 2097152,
        ["Read Operations/sec"] = 2800, ["Write Operations/sec"] = 512,
        ["Operations/sec"] = 1 + 2800 + 512 + 20 + 300 + 900,
        ["Avg. sec/Read (RTT)"] = 8400 * 10000, ["Avg. sec/Read (Execute)"] = 8820 * 10000,
        ["Avg. sec/Write (RTT)"] = 3072 * 10000, ["Avg. sec/Write (Execute)"] = 3200 * 10000,
        ["Retransmissions/sec"] = 3 + 1,     -- READ 2803-2800, GETATTR 901-900
        ["Timeouts"] = 1, ["Errors"] = 2 + 1,
      },
      ["/mnt/backup"] = {
        ["Read Bytes/sec"] = 4096, ["Write Bytes/sec"] = 0, ["Server Read Bytes/sec"] = 4096,
        ["Server Write Bytes/sec"] = 0, ["Read Operations/sec"] = 1, ["Write Operations/sec"] = 0,
        ["Operations/sec"] = 11, ["Avg. sec/Read (RTT)"] = 20000, ["Avg. sec/Read (Execute)"] = 20000,
        ["Avg. sec/Write (RTT)"] = 0, ["Avg. sec/Write (Execute)"] = 0,
        ["Retransmissions/sec"] = 0, ["Timeouts"] = 0, ["Errors"] = 0,
      },
    })
    local v, b = s:value(idx, M, "Avg. sec/Read (RTT)")
    assert.equal(84000000, v)
    assert.equal(2800, b)
  end)

  it("gives latencies and rates over 10 s", function()
    local s0, idx = sample("kern-basic", "NFS Client")
    local s1 = sample("kern-basic2", "NFS Client")
    local function avg(name)
      local v0, b0 = s0:value(idx, M, name)
      local v1, b1 = s1:value(idx, M, name)
      return perflib.calculate("PERF_AVERAGE_TIMER", { value = v1, base = b1 }, { value = v0, base = b0 })
    end
    assert.near(0.004, avg("Avg. sec/Read (RTT)"), 1e-12)       -- 5120 ms / 1280 reads
    assert.near(0.0045, avg("Avg. sec/Read (Execute)"), 1e-12)  -- 5760 ms / 1280
    assert.equal(128, rate10(s0, s1, idx, M, "Read Operations/sec"))
    assert.equal(524288, rate10(s0, s1, idx, M, "Read Bytes/sec"))   -- 5 MiB in 10 s
    assert.equal(0, rate10(s0, s1, idx, M, "Retransmissions/sec"))
  end)

  it("never reports a partial number", function()
    local s, idx, r = sample("kern-broken", "NFS Client")
    assert.same({ "/mnt/a", "/mnt/nostats", "/mnt/a#1", "/mnt/cut" }, r.instances)
    check_all(s, idx, {
      ["/mnt/a"] = { ["Read Bytes/sec"] = false, ["Read Operations/sec"] = false,
                     ["Operations/sec"] = false, ["Write Operations/sec"] = 4 },
      ["/mnt/nostats"] = { ["Read Bytes/sec"] = false },
      ["/mnt/a#1"] = { ["Operations/sec"] = 14, ["Errors"] = false },   -- statvers 1.0
      -- WRITE's line ends the file without a newline: it counts as written
      ["/mnt/cut"] = { ["Read Operations/sec"] = 10, ["Write Operations/sec"] = 4,
                       ["Operations/sec"] = 10 + 4 },
    })
  end)

  it("has zero instances without NFS mounts", function()
    local _, _, r = sample("kern-empty", "NFS Client")
    assert.equal("valid", r.status)
    assert.same({}, r.instances)
  end)
end)

describe("Control Group", function()
  it("is costly, with its GUID and index", function()
    local cs = assert(perflib.counterset("Control Group"))
    assert.equal("ac22ede2-0c80-50b0-9ed2-88651a63bc6d", cs.guid)
    assert.is_true(cs.costly)
    assert.equal("PERF_100NSEC_TIMER", cs:counter("% CPU Usage").type_name)
    assert.equal("% Memory Limit Used Base", cs:counter("% Memory Limit Used").base)
    assert.equal("PERF_SAMPLE_FRACTION", cs:counter("% Throttled Periods").type_name)
  end)

  describe("unified (v2)", function()
    local s, idx, r = sample("kern-basic", "Control Group")
    local S, SSH = "/system.slice", "/system.slice/ssh.service"

    it("names groups by path; id and key from the directory's inode", function()
      assert.same({ "/", S, SSH, "/user.slice" }, r.instances)
      local ino = inode(FX .. "kern-basic/sys/fs/cgroup/system.slice/ssh.service")
      assert.equal(ino % 0x100000000, r.ids[3])
    end)

    it("reads every counter", function()
      check_all(s, idx, {
        ["/"] = {
          ["% CPU Usage"] = 243130745 * 10, ["% User Time"] = 137806018 * 10,
          ["% System Time"] = 105324727 * 10, ["Throttled Periods/sec"] = false,
          ["Memory Current Bytes"] = false, ["Memory Limit Bytes"] = false,
          ["Anonymous Bytes"] = 145809408, ["File Bytes"] = 616296448,
          ["Page Faults/sec"] = 4567890, ["Major Page Faults/sec"] = 3210,
          ["IO Read Bytes/sec"] = 2413011968 + 4096, ["IO Write Bytes/sec"] = 1937273856,
          ["IO Read Operations/sec"] = 93914 + 1, ["IO Write Operations/sec"] = 19084,
          ["IO Discard Bytes/sec"] = 8192, ["Tasks"] = false,
          ["% Some CPU Stall Time"] = 217988630, ["% Full CPU Stall Time"] = 0,
          ["% Some Memory Stall Time"] = 0, ["% Full Memory Stall Time"] = 0,
          ["% Some IO Stall Time"] = 49391310, ["% Full IO Stall Time"] = 43703500,
        },
        [S] = {
          ["% CPU Usage"] = 1000000000, ["Throttled Periods/sec"] = 0, ["Periods/sec"] = 0,
          ["% Throttled Periods"] = 0, ["% Throttled Time"] = 0, ["% CPU Quota"] = false,
          ["Memory Current Bytes"] = 536870912, ["Memory Limit Bytes"] = false,
          ["% Memory Limit Used"] = false, ["Swap Current Bytes"] = 1048576,
          ["Anonymous Bytes"] = 209715200, ["File Bytes"] = 314572800, ["OOM Kills"] = 0,
          ["IO Read Bytes/sec"] = 1073741824, ["IO Discard Bytes/sec"] = 0,
          ["Tasks"] = 42, ["Tasks Limit"] = false, ["% Some Memory Stall Time"] = 20000,
          ["% Full Memory Stall Time"] = 10000, ["% Some IO Stall Time"] = 3000000,
        },
        [SSH] = {
          ["% CPU Usage"] = 300000000, ["% User Time"] = 180000000, ["% System Time"] = 120000000,
          ["Throttled Periods/sec"] = 40, ["Periods/sec"] = 1000, ["% Throttled Periods"] = 40,
          ["% Throttled Time"] = 25000000, ["% CPU Quota"] = 50000,
          ["Memory Current Bytes"] = 5242880, ["Memory Limit Bytes"] = 268435456,
          ["% Memory Limit Used"] = 5242880, ["Swap Current Bytes"] = 0,
          ["Anonymous Bytes"] = 3145728, ["File Bytes"] = 2097152, ["Page Faults/sec"] = 15000,
          ["Major Page Faults/sec"] = 12, ["OOM Kills"] = 1,
          ["IO Read Bytes/sec"] = 1048576 + 4096, ["IO Write Bytes/sec"] = 8192,
          ["IO Read Operations/sec"] = 256 + 1, ["IO Write Operations/sec"] = 2,
          ["Tasks"] = 3, ["Tasks Limit"] = 64, ["% Some CPU Stall Time"] = 1000000,
          ["% Full CPU Stall Time"] = 500000, ["% Some IO Stall Time"] = 100,
        },
        ["/user.slice"] = { ["Memory Current Bytes"] = 104857600, ["% CPU Usage"] = false },
      })
      local v, b = s:value(idx, SSH, "% CPU Quota")
      assert.equal(50000, v)
      assert.equal(100000, b)
      assert.equal(50, perflib.calculate("PERF_LARGE_RAW_FRACTION", { value = v, base = b }))
    end)

    it("gives rates and percentages over 10 s", function()
      local s1 = sample("kern-basic2", "Control Group")
      local function t100(inst, name)
        local v0 = s:value(idx, inst, name)
        local v1 = s1:value(idx, inst, name)
        return perflib.calculate("PERF_100NSEC_TIMER", { value = v1, time = 100000000 },
          { value = v0, time = 0 })
      end
      assert.near(50, t100(SSH, "% CPU Usage"), 1e-9)        -- 5 s of CPU in 10 s
      assert.near(10, t100(SSH, "% Throttled Time"), 1e-9)   -- 1 s held back
      assert.near(20, t100("/", "% CPU Usage"), 1e-9)        -- 2 s in 10 s
      assert.near(1, t100("/", "% Some CPU Stall Time"), 1e-9)     -- 100 ms in 10 s
      local v0, b0 = s:value(idx, SSH, "% Throttled Periods")
      local v1, b1 = s1:value(idx, SSH, "% Throttled Periods")
      assert.near(25, perflib.calculate("PERF_SAMPLE_FRACTION", { value = v1, base = b1 },
        { value = v0, base = b0 }), 1e-9)                     -- 25 of 100 periods
      assert.equal(209715.2, rate10(s, s1, idx, SSH, "IO Read Bytes/sec"))   -- 2 MiB / 10 s
      assert.equal(50, rate10(s, s1, idx, SSH, "Page Faults/sec"))
    end)
  end)

  it("reads a hybrid machine: unified cpu.stat and pressure, v1 memory", function()
    local s, idx, r = sample("kern-cg-hybrid", "Control Group")
    local PA, G = "/process_api", "/process_api/5ccae4f13c3a5291751ac578f36973f3"
    assert.same({ "/", PA, G }, r.instances)
    assert.equal(inode(FX .. "kern-cg-hybrid/sys/fs/cgroup/cpuacct/process_api") % 0x100000000, r.ids[2])
    check_all(s, idx, {
      ["/"] = { ["% CPU Usage"] = 2431307450, ["Memory Current Bytes"] = 1442181120,
                ["Memory Limit Bytes"] = false, ["Anonymous Bytes"] = 150000000,
                ["File Bytes"] = 620000000, ["Page Faults/sec"] = 4600000,
                ["Major Page Faults/sec"] = 3300, ["OOM Kills"] = 0,
                ["IO Read Bytes/sec"] = 2413011968 + 4096, ["IO Write Bytes/sec"] = 1937273856,
                ["IO Discard Bytes/sec"] = 4096, ["IO Read Operations/sec"] = 93915,
                ["IO Write Operations/sec"] = 19084, ["Tasks"] = false,
                ["% Some CPU Stall Time"] = 217988630 },
      [PA] = { ["% CPU Usage"] = 12345678,           -- cpuacct.usage 1234567800 ns / 100
               ["% User Time"] = 70 * 100000, ["% System Time"] = 50 * 100000,
               ["Memory Current Bytes"] = 62914560, ["Tasks"] = 4, ["Tasks Limit"] = false },
      [G] = { ["% CPU Usage"] = false, ["Memory Limit Bytes"] = 1073741824,
              ["% Memory Limit Used"] = 52428800, ["OOM Kills"] = 2, ["Anonymous Bytes"] = 41943040 },
    })
  end)

  it("reads a legacy v1 machine with cpu,cpuacct co-mounted", function()
    local s, idx, r = sample("kern-cg-legacy", "Control Group")
    local SS, CR = "/system.slice", "/system.slice/cron.service"
    assert.same({ "/", SS, CR }, r.instances)
    check_all(s, idx, {
      ["/"] = { ["% CPU Usage"] = 5000000000, ["% User Time"] = 3000000000,
                ["% System Time"] = 2000000000, ["Memory Current Bytes"] = 2147483648,
                ["Memory Limit Bytes"] = false, ["OOM Kills"] = false, ["IO Read Bytes/sec"] = 0 },
      [SS] = { ["% CPU Usage"] = 1200000000, ["Memory Limit Bytes"] = false,
               ["IO Read Bytes/sec"] = 1000, ["IO Write Bytes/sec"] = 2000,
               ["IO Read Operations/sec"] = 10, ["IO Write Operations/sec"] = 20,
               ["Tasks"] = 25, ["Tasks Limit"] = false },
      [CR] = { ["% CPU Usage"] = 25000000, ["% User Time"] = 15000000,
               ["Memory Current Bytes"] = 3145728, ["Memory Limit Bytes"] = 134217728,
               ["% Memory Limit Used"] = 3145728, ["File Bytes"] = 1048576,
               ["Tasks"] = 1, ["Tasks Limit"] = 128, ["Swap Current Bytes"] = false,
               ["% Some IO Stall Time"] = false },
    })
  end)

  it("walks at most 8 levels", function()
    local _, _, r = sample("kern-cg-deep", "Control Group")
    assert.equal(9, #r.instances)
    assert.equal("/l1/l2/l3/l4/l5/l6/l7/l8", r.instances[9])
  end)

  it("leaves garbage, cut-off and overflowing values unset", function()
    local s, idx = sample("kern-broken", "Control Group")
    check_all(s, idx, {
      -- cpu.stat and io.stat end without a newline: their last lines count
      ["/"] = { ["% CPU Usage"] = 123450, ["% User Time"] = 990, ["IO Read Bytes/sec"] = 105,
                ["% Some CPU Stall Time"] = false, ["% Full CPU Stall Time"] = 70 },
      ["/bad"] = { ["Memory Current Bytes"] = false, ["Tasks"] = false, ["% CPU Quota"] = false,
                   ["Anonymous Bytes"] = 5, ["File Bytes"] = false, ["Page Faults/sec"] = false,
                   ["IO Read Bytes/sec"] = false },
    })
  end)

  it("has zero instances without a cgroup filesystem", function()
    local _, _, r = sample("kern-empty", "Control Group")
    assert.equal("valid", r.status)
    assert.same({}, r.instances)
  end)
end)

describe("live machine", function()
  it("lists softirq vectors and interrupts with growing counts", function()
    local q = perflib.query()
    local i1 = assert(q:add("\\SoftIRQ(*)\\*"))
    local i2 = assert(q:add("\\Interrupts(*)\\*"))
    local s0 = assert(q:collect())
    local s1 = assert(q:collect())
    local r = s1:results()
    assert.equal("valid", r[i1].status)
    assert.equal("_Total", r[i1].instances[#r[i1].instances])
    assert.truthy(#r[i1].instances >= 2)
    assert.truthy(#r[i2].instances >= 2)
    for _, idx in ipairs { i1, i2 } do
      local c = idx == i1 and "Softirqs/sec" or "Interrupts/sec"
      local v0 = assert((s0:value(idx, "_Total", c)))
      local v1 = assert((s1:value(idx, "_Total", c)))
      assert.is_true(v0 > 0 and v1 >= v0)
    end
  end)

  it("collects NFS mounts, or none", function()
    local _, _, r = sample("/", "NFS Client")
    assert.equal("valid", r.status)
  end)

  it("finds the root control group with its CPU time", function()
    local s, idx, r = sample("/", "Control Group")
    assert.equal("valid", r.status)
    local f = io.open("/sys/fs/cgroup")
    if not f then return end                 -- no cgroup filesystem: zero instances
    f:close()
    assert.equal("/", r.instances[1])
    local cpu = s:value(idx, "/", "% CPU Usage")
    assert.is_true(cpu == nil or cpu > 0)
    for i, name in ipairs(r.instances) do
      assert.equal("/", name:sub(1, 1))
      assert.equal("integer", C.math_type(r.ids[i]))
    end
  end)
end)
