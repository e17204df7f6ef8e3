-- Memory counterset against the fixture trees in spec/fixtures (run from the
-- repository root).  Every expected value is worked out by hand from the
-- fixture files; the arithmetic is in the comments.  basic2 is the basic
-- machine 10.00 s later.

local perflib = require "perflib"
local C = require "spec.support.compat"

local FX = "spec/fixtures/"
local KB = 1024

-- One sample of \Memory\* below a fixture root; returns sample, index, query.
local function memory(tree)
  local q = perflib.query { root = FX .. tree, page_size = 4096, user_hz = 100 }
  local idx = assert(q:add("\\Memory\\*"))
  local s = assert(q:collect())
  return s, idx, q
end

local function raw(s, idx, name)
  local v, b = s:value(idx, "", name)
  return v, b
end

-- Rate of a counter between two samples taken `seconds` apart.
local function rate(type_name, s0, s1, idx, name, seconds)
  local v0, b0 = s0:value(idx, "", name)
  local v1, b1 = s1:value(idx, "", name)
  local t = math.floor(seconds * 10 ^ 7)
  if type_name == "PERF_SAMPLE_FRACTION" then
    return perflib.calculate(type_name, { value = v1, base = b1 }, { value = v0, base = b0 })
  end
  return perflib.calculate(type_name, { value = v1, time = t }, { value = v0, time = 0 })
end

describe("Memory", function()
  describe("basic (Debian 12, kernel 6.x, 24 GiB, 2 GiB swap)", function()
    local s, idx = memory("basic")

    -- Every visible counter, raw, as the fixture files give it.
    local expected = {
      ["Available Bytes"] = 23781276 * KB,            -- MemAvailable 23781276 kB = 24352026624
      ["Available KBytes"] = 23781276,                -- 24352026624 / 1024
      ["Available MBytes"] = 23223,                   -- 23781276 / 1024 = 23223.9, truncated
      ["Committed Bytes"] = 612936 * KB,              -- Committed_AS = 627646464
      ["Commit Limit"] = 14422810 * KB,               -- CommitLimit = 14768957440
      ["% Committed Bytes In Use"] = 612936 * KB,     -- numerator: Committed_AS bytes
      ["Free & Zero Page List Bytes"] = 23340156 * KB, -- MemFree = 23900319744
      ["Cache Bytes"] = 601852 * KB,                  -- Cached = 616296448
      ["Modified Page List Bytes"] = (124 + 16) * KB, -- Dirty + Writeback = 143360
      ["Pool Nonpaged Bytes"] = 53716 * KB,           -- SUnreclaim = 55005184
      ["Pool Paged Bytes"] = 48932 * KB,              -- SReclaimable = 50106368
      ["Total Bytes"] = 24684092 * KB,                -- MemTotal = 25276510208
      ["Buffers Bytes"] = 21480 * KB,                 -- 21995520
      ["Shared Bytes"] = 4964 * KB,                   -- Shmem = 5083136
      ["Active Bytes"] = 253180 * KB,                 -- 141112 anon + 112068 file
      ["Inactive Bytes"] = 512404 * KB,               -- 9472 anon + 502932 file
      ["Active Anon Bytes"] = 141112 * KB,
      ["Inactive Anon Bytes"] = 9472 * KB,
      ["Active File Bytes"] = 112068 * KB,
      ["Inactive File Bytes"] = 502932 * KB,
      ["Anonymous Bytes"] = 142396 * KB,              -- AnonPages
      ["Mapped Bytes"] = 118944 * KB,
      ["Slab Bytes"] = 102648 * KB,                   -- 48932 + 53716
      ["Slab Reclaimable Bytes"] = 48932 * KB,
      ["Slab Unreclaimable Bytes"] = 53716 * KB,
      ["Kernel Stack Bytes"] = 3296 * KB,
      ["Page Table Bytes"] = 3512 * KB,
      ["Mlocked Bytes"] = 3072 * KB,
      ["Unevictable Bytes"] = 3072 * KB,
      ["Percpu Bytes"] = 1536 * KB,
      ["Anon Huge Pages Bytes"] = 36864 * KB,
      ["Huge Pages Total Bytes"] = 16 * 2048 * KB,    -- HugePages_Total x Hugepagesize = 33554432
      ["Huge Pages Free Bytes"] = 12 * 2048 * KB,     -- 25165824
      ["Swap Total Bytes"] = 2097148 * KB,            -- 2147479552
      ["Swap Free Bytes"] = 2031612 * KB,             -- 2080370688
      ["Swap Cached Bytes"] = 1840 * KB,
      ["Zswap Bytes"] = 5120 * KB,
      ["Zswapped Bytes"] = 18432 * KB,
      ["Page Faults/sec"] = 4567890,                  -- vmstat pgfault
      ["Page Reads/sec"] = 3210,                      -- pgmajfault
      ["Pages Input/sec"] = 1200,                     -- pswpin
      ["Pages Output/sec"] = 16384,                   -- pswpout
      ["Pages/sec"] = 1200 + 16384,                   -- 17584
      ["Page-in Bytes/sec"] = 2356457 * KB,           -- pgpgin counts KiB: 2413011968
      ["Page-out Bytes/sec"] = 1893080 * KB,          -- pgpgout: 1938513920
      ["Pages Freed/sec"] = 8123456,                  -- pgfree
      ["Pages Scanned kswapd/sec"] = 50000,
      ["Pages Scanned Direct/sec"] = 4000,            -- pgscan_direct_throttle 7 is not added
      ["Pages Stolen/sec"] = 40000 + 2000,            -- kswapd + direct; pgsteal_anon/file not added
      ["% Reclaim Efficiency"] = 42000,               -- numerator: pages stolen
      ["Allocation Stalls/sec"] = 0 + 0 + 12 + 30 + 0, -- allocstall_{dma,dma32,normal,movable,device}
      ["Working Set Refaults/sec"] = 150 + 2300,      -- workingset_refault_anon + _file
      ["OOM Kills"] = 1,
      -- the other meminfo fields (ids 55 and up); basic lacks highmem, CMA, Balloon ...
      ["Dirty Bytes"] = 124 * KB,                     -- apart from Writeback: 126976
      ["Writeback Bytes"] = 16 * KB,                  -- 16384
      ["Writeback Temp Bytes"] = 0,
      ["NFS Unstable Bytes"] = 0,
      ["Bounce Bytes"] = 0,
      ["Kernel Reclaimable Bytes"] = 48932 * KB,      -- KReclaimable = 50106368
      ["Secondary Page Table Bytes"] = 0,
      ["Vmalloc Total Bytes"] = 34359738367 * KB,     -- 35184372087808
      ["Vmalloc Used Bytes"] = 12876 * KB,            -- 13185024
      ["Vmalloc Chunk Bytes"] = 0,
      ["Hardware Corrupted Bytes"] = 0,
      ["Shmem Huge Pages Bytes"] = 0,
      ["Shmem Pmd Mapped Bytes"] = 0,
      ["File Huge Pages Bytes"] = 0,
      ["File Pmd Mapped Bytes"] = 0,
      ["Unaccepted Bytes"] = 0,
      ["Total Huge Pages"] = 16,                      -- HugePages_Total, a count
      ["Free Huge Pages"] = 12,
      ["Reserved Huge Pages"] = 0,
      ["Surplus Huge Pages"] = 0,
      ["Huge Page Size Bytes"] = 2048 * KB,           -- 2097152
      ["Hugetlb Bytes"] = 32768 * KB,                 -- 16 x 2048 kB = 33554432
      ["Direct Map 4k Bytes"] = 100216 * KB,          -- 102621184
      ["Direct Map 2M Bytes"] = 6191104 * KB,         -- 6339690496
      ["Direct Map 1G Bytes"] = 19922944 * KB,        -- 20401094656
    }

    it("reports every visible counter as an exact integer", function()
      -- lines this x86-64 kernel does not print: no_data, never 0
      local absent = { ["High Total Bytes"] = true, ["High Free Bytes"] = true,
        ["Low Total Bytes"] = true, ["Low Free Bytes"] = true, ["Mmap Copy Bytes"] = true,
        ["Shadow Call Stack Bytes"] = true, ["CMA Total Bytes"] = true, ["CMA Free Bytes"] = true,
        ["Balloon Bytes"] = true, ["Direct Map 4M Bytes"] = true }
      local seen, none = 0, 0
      for inst, v, _, counter, index in s:raw() do
        assert.equal("", inst)
        assert.equal(idx, index)
        if v == nil then
          assert.is_true(absent[counter], "no value for " .. counter)
          none = none + 1
        else
          assert.is_not_nil(expected[counter], "unexpected counter " .. counter)
          assert.equal("integer", C.math_type(v), counter)
          assert.equal(expected[counter], v, counter)
          seen = seen + 1
        end
      end
      local n = 0
      for _ in pairs(expected) do n = n + 1 end
      assert.equal(n, seen)                         -- 78 visible: 90 less 2 hidden bases
      assert.equal(78, seen)                        -- less the 10 lines basic's kernel lacks
      assert.equal(10, none)
    end)

    it("carries the hidden bases with their fractions", function()
      local v, b = raw(s, idx, "% Committed Bytes In Use")
      assert.equal(612936 * KB, v)
      assert.equal(14422810 * KB, b)                -- CommitLimit bytes
      v, b = raw(s, idx, "% Reclaim Efficiency")
      assert.equal(42000, v)
      assert.equal(50000 + 4000, b)                 -- pgscan_kswapd + pgscan_direct
    end)

    it("formats single-sample counters", function()
      local v, st = s:format(nil, idx, "", "% Committed Bytes In Use")
      assert.equal("valid", st)
      assert.is.near(100 * 612936 / 14422810, v, 1e-9)   -- 4.2498 %
      v, st = s:format(nil, idx, "", "Available MBytes")
      assert.equal("valid", st)
      assert.equal(23223, v)
      v, st = s:format(nil, idx, "", "Page Faults/sec")
      assert.is_nil(v)
      assert.equal("first_sample", st)
    end)

    it("adds hidden bases only by name", function()
      local q = perflib.query { root = FX .. "basic" }
      local i = assert(q:add("\\Memory\\% Committed Bytes In Use Base"))
      local s1 = assert(q:collect())
      assert.equal(14422810 * KB, (s1:value(i, "", "% Committed Bytes In Use Base")))
      local ok = pcall(s.value, s, idx, "", "% Committed Bytes In Use Base")
      assert.is_false(ok)                           -- not part of \Memory\*
    end)
  end)

  describe("rates from basic to basic2 (10 s)", function()
    local s0, idx = memory("basic")
    local s1 = memory("basic2")
    local bulk = "PERF_COUNTER_BULK_COUNT"

    it("changes the gauges", function()
      assert.equal(23745100 * KB, raw(s1, idx, "Available Bytes"))
      assert.equal((2048 + 0) * KB, raw(s1, idx, "Modified Page List Bytes"))
      assert.equal(640112 * KB, raw(s1, idx, "Committed Bytes"))
      assert.equal(2, raw(s1, idx, "OOM Kills"))
    end)

    it("computes the /sec counters", function()
      local cases = {
        { "Page Faults/sec", 12345 },               -- (4691340 - 4567890) / 10
        { "Page Reads/sec", 7 },                    -- (3280 - 3210) / 10
        { "Pages Input/sec", 5 },                   -- (1250 - 1200) / 10
        { "Pages Output/sec", 15 },                 -- (16534 - 16384) / 10
        { "Pages/sec", 20 },                        -- (17784 - 17584) / 10
        { "Page-in Bytes/sec", 524288 },            -- 5120 KiB x 1024 / 10
        { "Page-out Bytes/sec", 1048576 },          -- 10240 KiB x 1024 / 10
        { "Pages Freed/sec", 8000 },                -- 80000 / 10
        { "Pages Scanned kswapd/sec", 300 },        -- 3000 / 10
        { "Pages Scanned Direct/sec", 100 },        -- 1000 / 10
        { "Pages Stolen/sec", 360 },                -- (2700 + 900) / 10
        { "Allocation Stalls/sec", 0.5 },           -- (3 + 2) / 10
        { "Working Set Refaults/sec", 20 },         -- (20 + 180) / 10
      }
      for _, c in ipairs(cases) do
        local v, st = rate(bulk, s0, s1, idx, c[1], 10)
        assert.equal("valid", st, c[1])
        assert.is.near(c[2], v, 1e-9)
      end
    end)

    it("computes % Reclaim Efficiency over the interval", function()
      local v, st = rate("PERF_SAMPLE_FRACTION", s0, s1, idx, "% Reclaim Efficiency", 10)
      assert.equal("valid", st)
      assert.is.near(90, v, 1e-9)                   -- 3600 stolen / 4000 scanned
    end)

    it("gives a valid rate from two real samples of one query", function()
      local q = perflib.query { root = FX .. "basic" }
      local i = assert(q:add("\\Memory\\Page Faults/sec"))
      local a = assert(q:collect())
      local b = assert(q:collect())
      local v, st = b:format(a, i, "", "Page Faults/sec")
      assert.equal("valid", st)
      assert.equal(0, v)                            -- same files: no change
    end)
  end)

  describe("estimated Available Bytes", function()
    it("uses zoneinfo when MemAvailable is missing (old kernel)", function()
      local s, idx = memory("old-kernel")
      -- low watermarks 8 + 1525 + 2507 = 4040 pages x 4096 = 16160 kB
      -- MemFree 5123456 - 16160                                   = 5107296
      -- file LRU 851256 + 1076400 = 1927656, less min(963828, 16160) = 1911496
      -- SReclaimable 200000, less min(100000, 16160)              = 183840
      -- sum 7202632 kB = 7375495168 bytes
      assert.equal(7375495168, raw(s, idx, "Available Bytes"))
      assert.equal(7202632, raw(s, idx, "Available KBytes"))
      assert.equal(7033, raw(s, idx, "Available MBytes"))   -- 7202632 / 1024 = 7033.8
    end)

    it("falls back to MemFree + Cached when MemAvailable is 0 and zoneinfo is absent", function()
      local s, idx = memory("avail-zero")
      assert.equal((23340156 + 601852) * KB, raw(s, idx, "Available Bytes"))  -- 24516616192
      assert.equal(23380, raw(s, idx, "Available MBytes"))  -- 23942008 / 1024 = 23380.9
    end)

    it("sums per-zone reclaim counters of old kernels", function()
      local s, idx = memory("old-kernel")
      assert.equal(0 + 400 + 1100 + 0, raw(s, idx, "Pages Scanned kswapd/sec"))
      assert.equal(0 + 50 + 150 + 0, raw(s, idx, "Pages Scanned Direct/sec"))  -- not _throttle 5
      assert.equal(300 + 700 + 20 + 80, raw(s, idx, "Pages Stolen/sec"))
      assert.equal(6, raw(s, idx, "Allocation Stalls/sec"))  -- the single "allocstall"
      assert.equal(0, raw(s, idx, "Huge Pages Total Bytes"))  -- a real 0: 0 x 2048 kB
    end)

    it("reports no_data for fields the old kernel does not have", function()
      local s, idx = memory("old-kernel")
      for _, name in ipairs { "Zswap Bytes", "Zswapped Bytes", "Percpu Bytes",
                              "Working Set Refaults/sec", "OOM Kills" } do
        local v, st = s:value(idx, "", name)
        assert.is_nil(v, name)
        assert.equal("no_data", st)
        v, st = s:format(nil, idx, "", name)        -- no_data wins over first_sample
        assert.is_nil(v)
        assert.equal("no_data", st, name)
      end
    end)
  end)

  describe("broken fixtures", function()
    local function no_data(s, idx, name)
      local v, st = s:value(idx, "", name)
      assert.is_nil(v, name)
      assert.equal("no_data", st, name)
    end

    it("files without a final newline: the last line counts as written", function()
      local s, idx = memory("broken-truncated")
      assert.equal(24684092 * KB, raw(s, idx, "Total Bytes"))
      assert.equal(23781276 * KB, raw(s, idx, "Available Bytes"))
      assert.equal(21480 * KB, raw(s, idx, "Buffers Bytes"))
      assert.equal(601 * KB, raw(s, idx, "Cache Bytes"))   -- "Cached:           601", no newline
      no_data(s, idx, "Committed Bytes")
      no_data(s, idx, "Swap Total Bytes")
      assert.equal(1200, raw(s, idx, "Pages Input/sec"))
      assert.equal(45, raw(s, idx, "Page Faults/sec"))     -- "pgfault 45", no newline
      no_data(s, idx, "OOM Kills")
    end)

    it("garbage numbers leave only their own counters unset", function()
      local s, idx = memory("broken-garbage")
      no_data(s, idx, "Free & Zero Page List Bytes")   -- 2334x156
      no_data(s, idx, "Cache Bytes")                   -- -852
      no_data(s, idx, "Modified Page List Bytes")      -- Dirty above 2^64
      no_data(s, idx, "Committed Bytes")               -- no digits
      no_data(s, idx, "% Committed Bytes In Use")
      no_data(s, idx, "Swap Total Bytes")              -- "MB"
      no_data(s, idx, "Page Faults/sec")               -- abc
      no_data(s, idx, "Pages Input/sec")               -- 2^64
      no_data(s, idx, "Pages/sec")
      no_data(s, idx, "Allocation Stalls/sec")         -- allocstall_dma32 1.5
      assert.equal(2031612 * KB, raw(s, idx, "Swap Free Bytes"))
      assert.equal(23781276 * KB, raw(s, idx, "Available Bytes"))
      assert.equal(16384, raw(s, idx, "Pages Output/sec"))
      assert.equal(3210, raw(s, idx, "Page Reads/sec"))
    end)

    it("an empty meminfo fails the set with its path", function()
      local s, idx = memory("broken-empty")
      no_data(s, idx, "Available Bytes")
      local r = s:results()[idx]
      assert.equal("error", r.shape)
      assert.matches("broken%-empty/proc/meminfo: Invalid argument", r.error)
    end)

    it("a missing vmstat unsets only its own counters", function()
      local s, idx = memory("broken-missing")
      assert.equal(23781276 * KB, raw(s, idx, "Available Bytes"))
      no_data(s, idx, "Page Faults/sec")
      assert.is_nil(s:results()[idx].error)
      local q0 = perflib.query { root = FX .. "broken-missing" }
      local k = assert(q0:add("\\Memory\\Page Faults/sec"))
      local s0 = assert(q0:collect())
      assert.matches("proc/vmstat: No such file or directory", s0:results()[k].error)

      local q = perflib.query { root = FX .. "broken-missing" }
      local i = assert(q:add("\\Memory\\Available Bytes"))
      local j = assert(q:add("\\Memory\\Commit Limit"))
      local s1 = assert(q:collect())
      assert.equal(23781276 * KB, (s1:value(i, "", "Available Bytes")))
      assert.equal(14422810 * KB, (s1:value(j, "", "Commit Limit")))
      assert.is_nil(s1:results()[i].error)
    end)
  end)

  describe("live machine", function()
    it("gives plausible values", function()
      local q = perflib.query()
      local idx = assert(q:add("\\Memory\\*"))
      local s = assert(q:collect())
      local total = raw(s, idx, "Total Bytes")
      local avail = raw(s, idx, "Available Bytes")
      assert.equal("integer", C.math_type(total))
      assert.is_true(total > 0)
      assert.is_true(avail > 0 and avail <= total)
      assert.is_true(raw(s, idx, "Free & Zero Page List Bytes") <= total)
      assert.equal(raw(s, idx, "Available KBytes"), C.idiv(avail, 1024))
      assert.is_true(raw(s, idx, "Page Faults/sec") > 0)
      local pct, st = s:format(nil, idx, "", "% Committed Bytes In Use", { nocap = true })
      assert.equal("valid", st)
      assert.is_true(pct > 0)
    end)
  end)
end)
