-- perflib.derive (issue 12, item 4): derived counters, formulas over other counters
-- evaluated in C, on temporary /proc trees rewritten between collects so that every
-- value is worked out by hand here: bytes per I/O from two PhysicalDisk rates (the time
-- cancels), a share against a fixed instance, a nested derived set, a Lua-defined set
-- under a formula, instances joined by name, statuses (first sample, zero base, missing
-- instance), a rule on a derived counter, perflib.collect strings and data blocks.
local perflib = require "perflib"
local R = require "perflib.rules"
local E = require "perflib.rules.engine"
local monitor = require "perflib.monitor"
local write = dofile("spec/support/files.lua").write

-- A tree with disks vda and vdb; diskstats as (reads, sectors read, writes, sectors written).
local function tree()
  local d = os.tmpname()
  os.remove(d)
  assert(os.execute("mkdir -p " .. d .. "/proc " .. d .. "/sys/block/vda/device " .. d .. "/sys/block/vdb/device"))
  return d
end

local function disks(d, a, b)
  local function line(name, t)
    return (" 254 %d %s %d 0 %d 0 %d 0 %d 0 0 0 0\n"):format(name == "vda" and 0 or 16, name, t[1], t[2], t[3], t[4])
  end
  write(d .. "/proc/diskstats", line("vda", a) .. line("vdb", b))
end

local BYTES_IO = [[[\PhysicalDisk(*)\Disk Bytes/sec] / [\PhysicalDisk(*)\Disk Transfers/sec] ]]

describe("perflib.derive", function()
  local d, m
  setup(function()
    d = tree()
    disks(d, { 100, 800, 50, 400 }, { 10, 80, 0, 0 })
    m = perflib.machine { root = d }
    assert(perflib.derive {
      name = "Drv98 Disk", machine = m, help = "Per-I/O figures of the disks.",
      counters = {
        { name = "Bytes/IO", formula = BYTES_IO, unit = "bytes", help = "Bytes moved per transfer." },
        { name = "Share of vda", formula = [[100 * [\PhysicalDisk(*)\Disk Transfers/sec] /
                                             [\PhysicalDisk(vda)\Disk Transfers/sec] ]] },
      },
    })
    assert(perflib.derive {
      name = "Drv98 Nested", machine = m,
      counters = {
        { name = "KiB/IO", formula = [[ [\Drv98 Disk(*)\Bytes/IO] / 1024 ]], unit = "KiB" },
        { name = "Capped", formula = [[ min(max([\Drv98 Disk(*)\Bytes/IO], 1), -(-4096)) ]] },
      },
    })
  end)
  teardown(function() os.execute("rm -rf " .. d) end)

  it("has PERF_DOUBLE_RAW counters with their help and unit, and a name-derived GUID", function()
    local cs = assert(m:counterset "Drv98 Disk")
    assert.equals("multiple", cs.instance_type)
    local c = cs:counter "Bytes/IO"
    assert.equals("PERF_DOUBLE_RAW", c.type_name)
    assert.equals("Bytes moved per transfer. (unit: bytes)", c.help)
    assert.matches("^%x+%-%x+%-8%x+%-[89ab]%x+%-%x+$", cs.guid)
    assert.is_nil(perflib.counterset "Drv98 Disk")       -- that machine's only
  end)

  it("computes bytes per I/O and a share over two collects, nested sets after them", function()
    local q = perflib.query(m)
    assert(q:add [[\Drv98 Disk(*)\*]])
    assert(q:add [[\Drv98 Nested(*)\*]])
    local s0 = assert(q:collect())
    local v, st = s0:values(nil, 1)
    assert.equals("no_data", st["Bytes/IO"].vda)         -- a rate with one sample: no value yet
    assert.is_nil(v["Bytes/IO"].vda)
    -- vda: +100 reads, +1000 sectors read, +100 writes, +3000 sectors written; vdb: idle
    disks(d, { 200, 1800, 150, 3400 }, { 10, 80, 0, 0 })
    local s1 = assert(q:collect())
    v, st = s1:values(s0, 1)
    assert.same({ "vda", "vdb", "_Total" }, s1:results()[1].instances)
    -- (1000 + 3000) x 512 bytes / (100 + 100) transfers = 10240, whatever the interval
    assert.near(10240, v["Bytes/IO"].vda, 1e-9)
    assert.near(10240, v["Bytes/IO"]._Total, 1e-9)
    assert.equals("no_data", st["Bytes/IO"].vdb)         -- 0 bytes / 0 transfers: no value, never NaN
    assert.near(100, v["Share of vda"].vda, 1e-9)        -- the fixed instance for every instance
    assert.near(0, v["Share of vda"].vdb, 1e-9)          -- 0 / 200
    assert.near(100, v["Share of vda"]._Total, 1e-9)
    local n = s1:values(s0, 2)
    assert.near(10, n["KiB/IO"].vda, 1e-9)               -- 10240 / 1024
    assert.near(4096, n.Capped.vda, 1e-9)                -- min(max(10240, 1), 4096)
    assert.is_nil(n["KiB/IO"].vdb)
  end)

  it("joins instances by name, and gives no value where an operand lacks the instance", function()
    local depth = { a = 3, b = 4 }
    assert(perflib.define { name = "Drv98 Q", machine = m, counters = { { name = "Depth" } },
                            collect = function() return { a = { depth.a }, b = { depth.b } } end })
    assert(perflib.define { name = "Drv98 P", machine = m, counters = { { name = "Depth" } },
                            collect = function() return { b = { 8 } } end })
    assert(perflib.derive { name = "Drv98 QP", machine = m, counters = {
      { name = "Ratio", formula = [[ [\Drv98 Q(*)\Depth] / [\Drv98 P(*)\Depth] ]] },
      { name = "A over B", formula = [[ [\Drv98 Q(a)\Depth] / [\Drv98 Q(b)\Depth] ]] },
    } })
    assert(perflib.derive { name = "Drv98 Fixed", machine = m, counters = {
      { name = "A over B", formula = [[ [\Drv98 Q(a)\Depth] / [\Drv98 Q(b)\Depth] ]] },
    } })
    local q = perflib.query(m)
    assert(q:add [[\Drv98 QP(*)\*]])
    assert(q:add [[\Drv98 Fixed\A over B]])
    local s = assert(q:collect())
    local v, st = s:values(nil, 1)
    assert.near(0.5, v.Ratio.b, 1e-12)                   -- 4 / 8
    assert.equals("no_data", st.Ratio.a)                 -- P has no instance a
    assert.near(0.75, v["A over B"].a, 1e-12)            -- 3 / 4 for every instance
    assert.near(0.75, v["A over B"].b, 1e-12)
    assert.equals("single", m:counterset("Drv98 Fixed").instance_type)
    assert.near(0.75, s:values(nil, 2)["A over B"][""], 1e-12)
    depth.b = 0
    assert.equals("no_data", select(2, assert(q:collect()):values(nil, 2))["A over B"][""])   -- 3 / 0
  end)

  it("fails with a sentence when the path that gives its instances fails", function()
    local fail = false
    assert(perflib.define { name = "Drv98 Flaky", machine = m, counters = { { name = "N" } },
                            collect = function() if fail then error("gone", 0) end return { x = { 6 } } end })
    assert(perflib.derive { name = "Drv98 OnFlaky", machine = m,
                            counters = { { name = "Half", formula = [[ [\Drv98 Flaky(*)\N] / 2 ]] } } })
    local q = perflib.query(m)
    assert(q:add [[\Drv98 OnFlaky(*)\Half]])
    assert.equals(3, assert(q:collect()):values(nil, 1).Half.x)
    fail = true
    local r = assert(q:collect()):results()[1]
    assert.equals("no_data", r.status)
    assert.matches("'Drv98 OnFlaky' takes its instances from \\Drv98 Flaky%(%*%)\\N, which failed: " ..
                   "collect of 'Drv98 Flaky' failed: gone", r.error)
  end)

  it("feeds a rule, a perflib.collect string and a data block like any other counter", function()
    local set = R.new()
    local src = [[\Drv98 Disk(*)\Bytes/IO]]
    set:rule "BigIO" { source = src, when = R.above(8192) }
    local eng = E.new(set)
    local q, index, problems = monitor.build_query(eng, m)
    assert.same({}, problems)
    disks(d, { 0, 0, 0, 0 }, { 0, 0, 0, 0 })
    local s0 = assert(q:collect())
    disks(d, { 10, 160, 0, 0 }, { 10, 8, 0, 0 })         -- vda 160 x 512 / 10 = 8192; vdb 8 x 512 / 10 = 409.6
    local s1 = assert(q:collect())
    eng:feed(1, monitor.frame_of(s1, s0, index))
    assert.equals("inactive", (eng:state("BigIO", { instance = "vda" })))   -- 8192 is not above 8192
    disks(d, { 20, 480, 0, 0 }, { 20, 16, 0, 0 })        -- vda 320 x 512 / 10 = 16384
    local s2 = assert(q:collect())
    eng:feed(2, monitor.frame_of(s2, s1, index))
    assert.equals("firing", (eng:state("BigIO", { instance = "vda" })))
    assert.equals("inactive", (eng:state("BigIO", { instance = "vdb" })))
    local cs = m:counterset "Drv98 Disk"
    local c = assert(perflib.collect(tostring(cs.index), m))
    assert.equals("Drv98 Disk", c:results()[1].counterset)
    local back = assert(perflib.sample_from_block(s2:block(), m))
    local v = back:values(assert(perflib.sample_from_block(s1:block(), m)), index[src].index)
    assert.near(16384, v["Bytes/IO"].vda, 1e-9)
  end)

  it("raises for a formula that does not compile, fails for a path the machine lacks", function()
    local ok, err = pcall(perflib.derive, { name = "Drv98 Bad", machine = m,
                                           counters = { { name = "X", formula = "1 + * 2" } } })
    assert.is_false(ok)
    assert.matches("counter 'X': formula at offset 4: '%*' where an operand is expected", err)
    ok, err = pcall(perflib.derive, { name = "Drv98 Bad", machine = m,
                                     counters = { { name = "X", formula = [[ [\PhysicalDisk(*)\*] ]] } } })
    assert.is_false(ok)
    assert.matches("must name one counter", err)
    local r, msg, e = perflib.derive { name = "Drv98 Bad", machine = m,
                                       counters = { { name = "X", formula = [[ [\NoSuchSet(*)\X] ]] } } }
    assert.is_nil(r)
    assert.matches("names no counter of this machine %(no such counterset%)", msg)
    assert.equals(2, e)                                  -- ENOENT
    r, msg, e = perflib.derive { name = "Drv98 Disk", machine = m, counters = { { name = "X", formula = "1" } } }
    assert.is_nil(r)
    assert.matches("taken", msg)
    assert.equals(17, e)
    -- a set cannot name itself: it does not exist while its formulas are checked
    r = perflib.derive { name = "Drv98 Self", machine = m,
                         counters = { { name = "X", formula = [[ [\Drv98 Self\X] ]] } } }
    assert.is_nil(r)
  end)
end)
