-- Block devices beyond whole disks through the Lua API (issue 17 item 1):
-- dm and md volumes in PhysicalDisk, the Disk Partition set, Rotational,
-- against spec/fixtures/disk-blk (its layouts are cited in
-- spec/c/test_disk_blk.c).  Values are the fixture's diskstats fields worked
-- out by hand: sectors x 512 = bytes, ms x 10000 = 100 ns.

local perflib = require "perflib"

local BLK = "spec/fixtures/disk-blk"

local function sample(path)
  local q = perflib.query { root = BLK }
  local idx = assert(q:add(path))
  return assert(q:collect()), idx
end

describe("PhysicalDisk volumes", function()
  it("lists dm and md volumes by the names users know, outside _Total", function()
    local s, idx = sample("\\PhysicalDisk(*)\\Disk Reads/sec")
    assert.same({ "nvme0n1", "sda", "sdb", "md0", "dm-0 vg0-root", "dm-1", "_Total" },
                s:results()[idx].instances)
    assert.equal(2800, (s:value(idx, "dm-0 vg0-root", "Disk Reads/sec")))
    assert.equal(1350, (s:value(idx, "md0", "Disk Reads/sec")))
    assert.equal(3000 + 1000 + 70, (s:value(idx, "_Total", "Disk Reads/sec")))   -- whole disks only
  end)

  it("takes a volume's name with its space in a counter path", function()
    local s, idx = sample("\\PhysicalDisk(dm-0 vg0-root)\\Disk Read Bytes/sec")
    assert.same({ "dm-0 vg0-root" }, s:results()[idx].instances)
    assert.equal(220000 * 512, (s:value(idx, "dm-0 vg0-root", "Disk Read Bytes/sec")))
  end)

  it("says whether a disk spins", function()
    local s, idx = sample("\\PhysicalDisk(*)\\Rotational")
    assert.equal(1, (s:value(idx, "sdb", "Rotational")))
    assert.equal(0, (s:value(idx, "nvme0n1", "Rotational")))
    assert.is_nil((s:value(idx, "md0", "Rotational")))       -- no queue/rotational
    assert.is_nil((s:value(idx, "_Total", "Rotational")))
  end)
end)

describe("Disk Partition", function()
  local cs = assert(perflib.counterset("Disk Partition"))

  it("has PhysicalDisk's I/O counters at its own index", function()
    assert.equal(37000, cs.index)
    assert.equal(36, #cs.counters)
    assert.equal("% Disk Time", cs:counter(0).name)
    assert.is_nil(cs:counter(42))
  end)

  it("lists partitions of disks, not of loop devices, and sums them in _Total", function()
    local s, idx = sample("\\Disk Partition(*)\\*")
    assert.same({ "nvme0n1p1", "sda1", "sda2", "md0p1", "_Total" }, s:results()[idx].instances)
    -- sda1: 600 reads, 9600 sectors read, 250 + 200 ms read and write time
    assert.equal(600, (s:value(idx, "sda1", "Disk Reads/sec")))
    assert.equal(9600 * 512, (s:value(idx, "sda1", "Disk Read Bytes/sec")))
    assert.equal((250 + 200) * 10000, (s:value(idx, "sda1", "% Disk Time")))
    assert.equal(2900 + 600 + 400 + 1300, (s:value(idx, "_Total", "Disk Reads/sec")))
  end)
end)

describe("MD RAID", function()
  it("gives each array's health from /proc/mdstat (spec/fixtures/md-raid)", function()
    local q = perflib.query { root = "spec/fixtures/md-raid" }
    local idx = assert(q:add "\\MD RAID(*)\\*")
    local s = assert(q:collect())
    assert.same({ "md2", "md0", "md1", "md3", "md4", "md5", "md6" }, s:results()[idx].instances)
    -- md0: raid5 [4/3] with sda2(F), recovery = 8.5% (55456768/651086848)
    assert.equal(1, (s:value(idx, "md0", "Degraded Disks")))
    assert.equal(1, (s:value(idx, "md0", "Failed Disks")))
    assert.equal(2, (s:value(idx, "md0", "Sync Action")))
    assert.same({ 55456768, 651086848 }, { s:value(idx, "md0", "% Sync Completed") })
    assert.equal(0, (s:value(idx, "md1", "State")))                 -- inactive
    assert.is_nil((s:value(idx, "md5", "Degraded Disks")))          -- raid0: no [n/m]
  end)
end)
