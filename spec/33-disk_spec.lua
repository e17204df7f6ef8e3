-- PhysicalDisk, LogicalDisk and Paging File against the spec/fixtures/disk-*
-- trees (run from the repository root), temporary trees rewritten between
-- collections of one query, then on this machine.  Expected values are
-- worked out by hand from the fixture files; the arithmetic is in comments.
-- Units: diskstats ms x 10000 = 100 ns, sectors x 512 = bytes, /proc/swaps
-- KiB x 1024.  disk-vm2 is disk-vm 10 s later.

local perflib = require "perflib"

local FX = "spec/fixtures/"
local MS = 10000
local TOTAL = 0xFFFFFFFE

local function sample(tree, path)
  local q = perflib.query { root = tree }
  local idx = assert(q:add(path))
  return assert(q:collect()), idx, q
end

-- Rate of a counter between two samples `secs` apart, from their raw pairs.
local function rate(type_name, s0, s1, idx, inst, name, secs)
  local v0, b0 = s0:value(idx, inst, name)
  local v1, b1 = s1:value(idx, inst, name)
  assert(v0 and v1, inst .. " " .. name)
  if type_name == "PERF_AVERAGE_TIMER" or type_name == "PERF_AVERAGE_BULK" then
    return perflib.calculate(type_name, { value = v1, base = b1 }, { value = v0, base = b0 })
  end
  local t = secs * 10000000                         -- 100 ns clock
  return perflib.calculate(type_name, { value = v1, time = t }, { value = v0, time = 0 })
end

local function tmpdir()
  local d = os.tmpname()
  os.remove(d)
  assert(os.execute("mkdir -p " .. d .. "/proc " .. d .. "/sys/block/vda/device"))
  return d
end

local write = dofile("spec/support/files.lua").write

describe("PhysicalDisk", function()
  local cs = assert(perflib.counterset("PhysicalDisk"))

  it("has its GUID, title index and Windows counter names", function()
    assert.equal("b10a5961-b496-5a61-bff6-389c222afe60", cs.guid)
    assert.equal("multiple", cs.instance_type)
    assert.equal("% Disk Time", cs:counter(0).name)
    assert.equal("Avg. Disk sec/Read", cs:counter(8).name)
    assert.equal("Avg. Disk sec/Read Base", cs:counter(8).base)
    assert.is_true(cs:counter(9).hidden)
    assert.equal("PERF_100NSEC_TIMER_INV", cs:counter("% Idle Time").type_name)
    assert.equal("PERF_COUNTER_100NS_QUEUELEN_TYPE", cs:counter("Avg. Disk Queue Length").type_name)
    assert.equal("PERF_AVERAGE_BULK", cs:counter("Avg. Disk Bytes/Read").type_name)
    assert.equal("Rotational", cs:counter(42).name)
    assert.equal(37, #cs.counters)                 -- 36 I/O counters and Rotational
  end)

  describe("disk-vm (20 fields)", function()
    local s, idx = sample(FX .. "disk-vm", "\\PhysicalDisk(*)\\*")

    it("keeps whole physical disks only, keyed by major:minor", function()
      local r = s:results()[idx]
      -- vdb1/vdb2 partitions, loop*, zram0 left out; dm-0 (no device link, a dm/
      -- directory) named with its /dev/mapper name
      assert.same({ "vda", "vdb", "dm-0 vg0-data", "_Total" }, r.instances)
      assert.same({ 266338304, 266338320, 265289728, TOTAL }, r.ids)  -- 254 << 20, | 16, 253 << 20
    end)

    -- vda 93914 16267 4712914 72881 19084 16014 3786160 12662 0 11560 86447 6143 41 1445096 783 2804 119
    local vda = {
      ["% Disk Time"] = (72881 + 12662) * MS, ["Avg. Disk Queue Length"] = 86447 * MS,
      ["% Disk Read Time"] = 72881 * MS, ["Avg. Disk Read Queue Length"] = 72881 * MS,
      ["% Disk Write Time"] = 12662 * MS, ["Avg. Disk Write Queue Length"] = 12662 * MS,
      ["Avg. Disk sec/Transfer"] = { (72881 + 12662) * MS, 93914 + 19084 },
      ["Avg. Disk sec/Read"] = { 72881 * MS, 93914 }, ["Avg. Disk sec/Write"] = { 12662 * MS, 19084 },
      ["Disk Transfers/sec"] = 112998, ["Disk Reads/sec"] = 93914, ["Disk Writes/sec"] = 19084,
      ["Disk Bytes/sec"] = 4351525888,               -- (4712914 + 3786160) x 512
      ["Disk Read Bytes/sec"] = 2413011968, ["Disk Write Bytes/sec"] = 1938513920,
      ["Avg. Disk Bytes/Transfer"] = { 4351525888, 112998 },
      ["Avg. Disk Bytes/Read"] = { 2413011968, 93914 }, ["Avg. Disk Bytes/Write"] = { 1938513920, 19084 },
      ["% Idle Time"] = 11560 * MS, ["% Disk Utilization"] = 11560 * MS,
      ["Current Disk Queue Length"] = 0, ["Merged Reads/sec"] = 16267, ["Merged Writes/sec"] = 16014,
      ["Discards/sec"] = 6143, ["Discard Bytes/sec"] = 1445096 * 512,
      ["Avg. Disk sec/Discard"] = { 783 * MS, 6143 }, ["Flushes/sec"] = 2804,
      ["Avg. Disk sec/Flush"] = { 119 * MS, 2804 },
    }

    it("gives every counter of vda", function()
      local n = 0
      for name, want in pairs(vda) do
        local v, b = s:value(idx, "vda", name)
        if type(want) == "table" then
          assert.same(want, { v, b }, name)
        else
          assert.equal(want, v, name)
        end
        n = n + 1
      end
      assert.equal(28, n)                          -- every visible counter
    end)

    it("sums vda and vdb in _Total", function()
      -- vdb 5000 100 80000 4000 3000 200 64000 6000 2 7000 10500 10 0 800 20 30 60
      assert.equal(98914, (s:value(idx, "_Total", "Disk Reads/sec")))
      assert.equal((76881 + 18662) * MS, (s:value(idx, "_Total", "% Disk Time")))
      assert.equal(2, (s:value(idx, "_Total", "Current Disk Queue Length")))
      assert.equal(179 * MS, (s:value(idx, TOTAL, "Avg. Disk sec/Flush")))
    end)
  end)

  describe("disk-vm -> disk-vm2 (10 s)", function()
    local s0, idx = sample(FX .. "disk-vm", "\\PhysicalDisk(*)\\*")
    local s1 = sample(FX .. "disk-vm2", "\\PhysicalDisk(*)\\*")
    -- vda: rd +1000 rds +80000 rdms +500 wr +500 wrs +40000 wrms +1500 ioms +1000 wms +2000
    local want = {
      { "PERF_COUNTER_BULK_COUNT", "Disk Reads/sec", 100 },
      { "PERF_COUNTER_BULK_COUNT", "Disk Bytes/sec", 6144000 },       -- 120000 x 512 / 10
      { "PERF_AVERAGE_BULK", "Avg. Disk Bytes/Read", 40960 },         -- 80000 x 512 / 1000
      { "PERF_AVERAGE_TIMER", "Avg. Disk sec/Write", 0.003 },         -- 1500 ms / 500
      { "PERF_100NSEC_TIMER", "% Disk Time", 20 },                    -- 2000 ms in 10 s
      { "PERF_COUNTER_100NS_QUEUELEN_TYPE", "Avg. Disk Queue Length", 0.2 },
      { "PERF_100NSEC_TIMER_INV", "% Idle Time", 90 },                -- 1000 ms busy
      { "PERF_AVERAGE_TIMER", "Avg. Disk sec/Flush", 0.002 },         -- 40 ms / 20
    }
    it("rates vda and _Total", function()
      for _, inst in ipairs { "vda", "_Total" } do
        for _, w in ipairs(want) do
          local v, st = rate(w[1], s0, s1, idx, inst, w[2], 10)
          assert.equal("valid", st, inst .. " " .. w[2])
          assert.is.near(w[3], v, 1e-9)
        end
      end
      assert.equal(3, (s1:value(idx, "vda", "Current Disk Queue Length")))
    end)
  end)

  it("reads 14- and 18-field kernels, skipping 7-field partition lines", function()
    local s, idx = sample(FX .. "disk-k414", "\\PhysicalDisk(*)\\*")
    assert.same({ "sda", "_Total" }, s:results()[idx].instances)
    assert.equal(1000, (s:value(idx, "sda", "Disk Reads/sec")))
    assert.equal(7000 * MS, (s:value(idx, "sda", "Avg. Disk Queue Length")))
    assert.equal("no_data", select(2, s:value(idx, "sda", "Discards/sec")))
    assert.equal("no_data", select(2, s:value(idx, "_Total", "Flushes/sec")))
    s, idx = sample(FX .. "disk-k418", "\\PhysicalDisk(*)\\*")
    assert.equal(50, (s:value(idx, "sda", "Discards/sec")))
    assert.equal(4000 * 512, (s:value(idx, "sda", "Discard Bytes/sec")))
    assert.equal("no_data", select(2, s:value(idx, "sda", "Flushes/sec")))
  end)

  it("leaves garbage and cut-off lines unset and clamps a bogus queue", function()
    local s, idx = sample(FX .. "disk-broken", "\\PhysicalDisk(*)\\*")
    assert.same({ "vda", "vdb", "vdc", "_Total" }, s:results()[idx].instances)
    assert.equal("no_data", select(2, s:value(idx, "vda", "Disk Reads/sec")))
    assert.equal("no_data", select(2, s:value(idx, "vdc", "Disk Reads/sec")))
    assert.equal("no_data", select(2, s:value(idx, "_Total", "Disk Reads/sec")))
    assert.equal(0, (s:value(idx, "vdb", "Current Disk Queue Length")))   -- 4294967295
  end)

  it("unwraps 32-bit ms fields and takes a re-registered disk as a reset", function()
    local d = tmpdir()
    local function line(rd, rdms) return (" 254 0 vda %d 0 %d %d 0 0 0 0 0 0 0\n"):format(rd, 8 * rd, rdms) end
    write(d .. "/proc/diskstats", line(100, 4294967000))
    local q = perflib.query { root = d }
    local idx = assert(q:add("\\PhysicalDisk(vda)\\% Disk Read Time"))
    local s0 = assert(q:collect())
    write(d .. "/proc/diskstats", line(200, 704))                 -- 296 to 2^32, then 704: +1000
    local s1 = assert(q:collect())
    assert.equal((4294967000 + 1000) * MS, (s1:value(idx, "vda", "% Disk Read Time")))
    assert.equal("valid", select(2, s1:format(s0, idx, "vda", "% Disk Read Time")))
    write(d .. "/proc/diskstats", line(5, 3))                     -- every count fell
    local s2 = assert(q:collect())
    assert.equal(3 * MS, (s2:value(idx, "vda", "% Disk Read Time")))
    assert.equal("negative_delta", select(2, s2:format(s1, idx, "vda", "% Disk Read Time")))
    os.execute("rm -rf " .. d)
  end)

  it("fails with a message without /sys/block", function()
    local q = perflib.query { root = FX .. "basic" }
    assert(q:add("\\PhysicalDisk(*)\\*"))
    local r = assert(q:collect()):results()[1]
    assert.equal("error", r.shape)
    assert.matches("sys/block: No such file", r.error)
  end)
end)

describe("LogicalDisk", function()
  local s, idx = sample(FX .. "disk-vm", "\\LogicalDisk(*)\\*")

  it("lists real mounts by mount ID with unescaped names", function()
    local r = s:results()[idx]
    -- proc, sysfs, devtmpfs, overlay left out; mount 25 lies under 30
    assert.same({ "/", "/dev/shm", "/boot", "/mnt/my disk", "/srv", "/mnt/nfs", "/data",
                  "/media/cd\\x", "_Total" }, r.instances)
    assert.same({ 27, 30, 40, 41, 42, 43, 45, 46, TOTAL }, r.ids)
  end)

  it("gives space and inodes from the statvfs fixture files", function()
    -- 27: 4096 66053016 20978800 20901464 16777216 16362008
    local v, b = s:value(idx, "/", "% Free Space")
    assert.equal(20901464 * 4096, v)
    assert.equal(66053016 * 4096, b)
    assert.equal(81646, (s:value(idx, "/", "Free Megabytes")))    -- 20901464 / 256 = 81646.3
    assert.equal(258019, (s:value(idx, "/", "Total Megabytes")))   -- 66053016 / 256 = 258019.6
    assert.equal((66053016 - 20978800) * 4096, (s:value(idx, "/", "Used Bytes")))
    assert.equal(16362008, (s:value(idx, "/", "Free Inodes")))
    assert.equal(16777216, (s:value(idx, "/", "Total Inodes")))
    assert.is.near(100 * 274000 / 500000, (s:format(nil, idx, "/boot", "% Free Space")), 1e-9)
    assert.equal("no_data", select(2, s:value(idx, "/data", "Free Inodes")))    -- btrfs f_files 0
    assert.equal("no_data", select(2, s:value(idx, "/mnt/nfs", "% Free Space"))) -- remote: skipped
    assert.equal(1, (s:value(idx, "/mnt/my disk", "Read Only")))
    assert.equal(1, (s:value(idx, "/media/cd\\x", "Read Only")))
    assert.equal(0, (s:value(idx, "/", "Read Only")))
  end)

  it("maps I/O through major:minor and counts each filesystem once in _Total", function()
    assert.equal(93914, (s:value(idx, "/", "Disk Reads/sec")))    -- vda 254:0
    assert.equal(4000, (s:value(idx, "/boot", "Disk Reads/sec"))) -- vdb1 254:17
    assert.equal(4000, (s:value(idx, "/srv", "Disk Reads/sec")))  -- bind mount of vdb1
    assert.equal(900, (s:value(idx, "/mnt/my disk", "Disk Reads/sec")))
    assert.equal("no_data", select(2, s:value(idx, "/dev/shm", "Disk Reads/sec")))
    assert.equal(93914 + 4000 + 900, (s:value(idx, "_Total", "Disk Reads/sec")))
    -- sizes: / + /dev/shm + /boot + /mnt/my disk + /data + /media/cd\x, /srv and nfs not
    assert.equal(275174490112, (s:value(idx, "_Total", "Total Bytes")))
  end)

  it("skips broken mountinfo lines and garbage statvfs figures", function()
    local sb, ib = sample(FX .. "disk-broken", "\\LogicalDisk(*)\\*")
    -- /cut, the last line, has no newline: it counts as written
    assert.same({ "/", "/cut", "_Total" }, sb:results()[ib].instances)
    assert.equal("no_data", select(2, sb:value(ib, "/", "% Free Space")))
    assert.equal("no_data", select(2, sb:value(ib, "_Total", "% Free Space")))
  end)
end)

describe("Paging File", function()
  it("lists swap areas with unescaped names and sizes in bytes", function()
    local s, idx = sample(FX .. "disk-vm", "\\Paging File(*)\\*")
    local r = s:results()[idx]
    assert.same({ "/dev/vdb3", "/swap file", "_Total" }, r.instances)
    assert.same({ 0, 1, TOTAL }, r.ids)
    local v, b = s:value(idx, "/dev/vdb3", "% Usage")
    assert.equal(65536 * 1024, v)
    assert.equal(2097148 * 1024, b)
    assert.equal(-2, (s:format(nil, idx, "/dev/vdb3", "Priority")))
    assert.equal(5, (s:format(nil, idx, "/swap file", "Priority")))
    assert.equal((2097148 + 1048572) * 1024, (s:value(idx, "_Total", "Size Bytes")))
    assert.equal((65536 + 1024) * 1024, (s:value(idx, "_Total", "% Usage Peak")))
  end)

  it("keeps _Total with no swap, and without /proc/swaps leaves it empty", function()
    local s, idx = sample(FX .. "disk-k418", "\\Paging File(*)\\*")
    assert.same({ "_Total" }, s:results()[idx].instances)
    assert.equal(0, (s:value(idx, "_Total", "Size Bytes")))
    assert.equal("zero_base", select(2, s:format(nil, idx, "_Total", "% Usage")))
    s, idx = sample(FX .. "disk-k414", "\\Paging File(*)\\*")
    assert.same({ "_Total" }, s:results()[idx].instances)
    assert.equal("no_data", select(2, s:value(idx, "_Total", "Size Bytes")))
  end)
end)

describe("disk sets on this machine", function()
  it("collect and rate without errors", function()
    local q = perflib.query()
    local ids = {}
    for _, set in ipairs { "PhysicalDisk", "LogicalDisk", "Paging File" } do
      ids[set] = assert(q:add("\\" .. set .. "(*)\\*"))
    end
    local s0 = assert(q:collect())
    perflib.sleep(0.1)
    local s1 = assert(q:collect())
    for set, idx in pairs(ids) do
      local r = s1:results()[idx]
      assert.equal("_Total", r.instances[#r.instances], set)
    end
    local v, st = s1:format(s0, ids.PhysicalDisk, "_Total", "% Idle Time")
    assert.equal("valid", st)
    assert.is_true(v >= 0 and v <= 100)
    local f, fst = s1:format(nil, ids.LogicalDisk, "/", "% Free Space")
    if fst == "valid" then assert.is_true(f >= 0 and f <= 100) end
  end)
end)
