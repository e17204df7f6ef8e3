-- perflib.open_log (issue 15 item 3): a binary log as a machine. Its sets are the
-- log's own definitions (read in another process that never defined them), its
-- queries return the logged samples in order with their logged timestamps, so
-- rates are the live ones (worked out here from the raw values and times) and
-- statuses say what was not logged; the end of the log; time ranges; several
-- files; Machine:log(); bad files and misuse.
local perflib = require "perflib"
local files = dofile "spec/support/files.lua"

local ENODATA, EINVAL, ENOENT = 61, 22, 2

-- A log of n samples of a defined set on its own machine (spec/support/queue_log.lua):
-- instance q1's Items/sec raw value is 120 x n at the n-th collect, Depth 3 x n.
local function queue_log(path, n)
  return dofile "spec/support/queue_log.lua"(path, n, { set = "OL95 Queue", help = "A queue of this test.",
                                                      memory = true, sleep = 0.005 })
end

local function all_samples(q)
  local got = {}
  while true do
    local s, msg, code = q:collect()
    if not s then return got, msg, code end
    got[#got + 1] = s
  end
end

describe("perflib.open_log", function()
  local dir, remove
  setup(function() dir, remove = files.tempdir() end)
  teardown(function() remove() end)

  it("reads the logged samples in order with their times, rates as live, then says the end", function()
    local path = dir .. "/q.blg"
    local live = queue_log(path, 4)
    local m = assert(perflib.open_log(path))
    assert.equal("machine", perflib.type(m))
    assert.equal("perflib.Machine (" .. path .. ")", tostring(m))
    local cs = assert(m:counterset "OL95 Queue")
    assert.equal("A queue of this test.", cs.help)
    assert.is_nil(m:counterset "Processor Information")            -- only what the log holds
    local q = m:query()
    assert(q:add "\\OL95 Queue(*)\\Items/sec")
    assert(q:add "\\OL95 Queue(q1)\\Depth")
    local got, msg, code = all_samples(q)
    assert.equal(4, #got)
    assert.equal("collect: end of the log", msg)
    assert.equal(ENODATA, code)
    for i = 1, 4 do
      assert.equal(live[i].timestamp, got[i].timestamp)
      assert.equal(live[i].time, got[i].time)
    end
    -- q1: 120 x i; the rate between the 3rd and 4th: 120 / the interval of the set's reads
    local r3, r4 = got[3]:results()[1], got[4]:results()[1]
    local want = 120 / ((r4.time - r3.time) / got[4].freq)
    local v, st = got[4]:values(got[3], 1)
    assert.near(want, v["Items/sec"].q1, want * 1e-9)
    assert.equal("valid", st["Items/sec"].q1)
    assert.equal(0, v["Items/sec"].q2)                             -- 7 then 7
    assert.same(live[4]:values(live[3], 1)["Items/sec"], v["Items/sec"])
    assert.equal(12, got[4]:values(nil, 2).Depth.q1)               -- 3 x 4
    local first = got[1]:values(nil, 1)
    assert.same({}, first["Items/sec"])                           -- a rate needs two samples
    -- a second query starts at the beginning
    local q2 = m:query()
    assert(q2:add "\\Memory\\Available Bytes")
    assert.equal(live[1].timestamp, assert(q2:collect()).timestamp)
    local info = m:log()
    assert.equal(4, info.samples)
    assert.equal(5, info.records)                                  -- definitions once, four samples
    assert.equal(1, info.files)
    assert.is_nil(info.warning)
    assert.near(live[1].timestamp, info.first, 1e-6)
    assert.near(live[4].timestamp, info.last, 1e-6)
    assert.is_nil(perflib.machine():log())
  end)

  it("reads an SQLite log the same way, and a binary and an SQLite log as one", function()
    local blg, db = dir .. "/mix.blg", dir .. "/mix.db"
    local live = queue_log(blg, 2)
    local m0 = perflib.machine { root = "spec/fixtures/basic" }
    local k = 0
    assert(perflib.define { name = "OL95 Queue", machine = m0, help = "A queue of this test.",
      counters = { { name = "Items/sec", type = "PERF_COUNTER_BULK_COUNT", help = "Items a second." },
                   { name = "Depth", type = "PERF_COUNTER_LARGE_RAWCOUNT" } },
      collect = function() k = k + 1; return { q1 = { 1000 + 120 * k, 3 * k }, q2 = { 7, 1 } } end })
    local q0 = m0:query()
    assert(q0:add "\\OL95 Queue(*)\\*")
    os.remove(db)
    local w = assert(perflib.log_writer(db))
    assert.equal("sqlite", w:format())
    local sl = {}
    for i = 1, 3 do sl[i] = assert(q0:collect()); assert(w:write(sl[i])); perflib.sleep(0.005) end
    assert(w:close())
    local m = assert(perflib.open_log(db))
    assert.equal(3, m:log().samples)
    -- a log written on after it was opened: its queries read what was there at open (whose
    -- definitions the machine has), a binary log and an SQLite log alike
    local mb = assert(perflib.open_log(blg))
    for _, path in ipairs { db, blg } do
      local more = assert(perflib.log_writer(path))
      assert(more:write(assert(q0:collect())))
      assert(more:close())
    end
    local q = m:query()
    assert(q:add "\\OL95 Queue(q1)\\Items/sec")
    local qb = mb:query()
    assert(qb:add "\\OL95 Queue(q1)\\Depth")
    assert.equal(2, #all_samples(qb))
    local got = all_samples(q)
    assert.equal(3, #got)
    for i = 1, 3 do assert.equal(sl[i].timestamp, got[i].timestamp) end
    -- 120 more each collect, over the interval of the set's reads
    local want = 120 / ((got[3]:results()[1].time - got[2]:results()[1].time) / got[3].freq)
    assert.near(want, got[3]:values(got[2], 1)["Items/sec"].q1, want * 1e-9)
    -- the two logs in order, each with the sample written after: seven samples
    local mm = assert(perflib.open_log { blg, db })
    local qq = mm:query()
    assert(qq:add "\\OL95 Queue(q1)\\Depth")
    got = all_samples(qq)
    assert.equal(7, #got)
    assert.equal(live[1].timestamp, got[1].timestamp)
    assert.equal(sl[1].timestamp, got[4].timestamp)
    assert.equal(sl[3].timestamp, got[6].timestamp)
    -- a database that is no perflib log
    local other = dir .. "/other.db"
    files.sh("sqlite3 " .. other .. " 'CREATE TABLE t(x)'")
    local none, msg, code = perflib.open_log(other)
    assert.is_nil(none)
    assert.matches("an SQLite database that is not a perflib log", msg)
    assert.equal(EINVAL, code)
  end)

  it("reads in another process that never defined the set", function()
    local path = dir .. "/other.blg"
    local live = queue_log(path, 2)
    local want = live[2]:values(live[1], 1)["Items/sec"].q1
    local script = dir .. "/read.lua"
    files.write(script, [[
      package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
      local perflib = require "perflib"
      local m = assert(perflib.open_log(arg[1]))
      local q = m:query()
      assert(q:add "\\OL95 Queue(q1)\\Items/sec")
      local s0, s1 = assert(q:collect()), assert(q:collect())
      io.write(string.format("%.17g", s1:values(s0, 1)["Items/sec"].q1))
    ]])
    -- Lua 5.4's module (whatever Lua runs this spec), without the sanitizers' preload
    local out = files.sh(("LUA_CPATH='./build/?.so;;' lua5.4 %s %s"):format(script, path))
    assert.near(want, tonumber(out), want * 1e-12)
  end)

  it("takes a time range, several files in order, and says what a sample did not log", function()
    local a, b = dir .. "/a.blg", dir .. "/b.blg"
    local la = queue_log(a, 3)
    local lb = queue_log(b, 2)
    -- a sample's own timestamps as the bounds select it (half a microsecond of slack:
    -- a double holds them to about 0.2 us)
    local m = assert(perflib.open_log(a, { from = la[2].timestamp, to = la[3].timestamp }))
    local q = m:query()
    assert(q:add "\\OL95 Queue(q2)\\Depth")
    local got = all_samples(q)
    assert.equal(2, #got)
    assert.equal(la[2].timestamp, got[1].timestamp)
    local mm = assert(perflib.open_log { a, b })
    assert.equal(2, mm:log().files)
    local qq = mm:query()
    assert(qq:add "\\OL95 Queue(q1)\\Depth")
    assert(qq:add "\\OL95 Queue(q9)\\Depth")                       -- never logged
    assert(qq:add "\\Memory\\Committed Bytes")                     -- its set logged, not this counter
    got = all_samples(qq)
    assert.equal(5, #got)
    assert.equal(lb[2].timestamp, got[5].timestamp)
    local _, st = got[5]:values(got[4], 1)
    assert.equal("valid", st.Depth.q1)
    local r = got[5]:results()
    assert.equal("no_instance", r[2].status)
    local _, st3 = got[5]:values(got[4], 3)
    assert.equal("no_data", st3["Committed Bytes"][""])
  end)

  it("replays on a clock that never goes back when the samples' clock steps back #lua53", function()
    -- four samples; the 3rd and 4th get a monotonic clock stepped back (a reboot between two
    -- files): the replay clock goes on by their wall-clock gap there, then by their own clock.
    -- The step is half the clock's value at the 3rd (1000 s would go below 0 on a machine up
    -- for less than that, and the unsigned pack fails)
    local m = perflib.machine { root = "spec/fixtures/basic" }
    assert(perflib.define { name = "OL95 Step", machine = m, counters = { { name = "V" } },
                            collect = function() return { a = { 1 } } end })
    local q = m:query()
    assert(q:add "\\OL95 Step(*)\\V")
    local path = dir .. "/step.blg"
    os.remove(path)
    local w = assert(perflib.log_writer(path))
    local t, ts, back = {}, {}, nil
    for k = 1, 4 do
      local block = assert(q:collect()):block()
      if k >= 3 then                                -- PerfTimeStamp: the i64 at offset 8
        local lo, hi = string.unpack("<I4I4", block, 9)
        back = back or math.floor((lo + hi * 4294967296) / 2)
        local v = lo + hi * 4294967296 - back
        block = block:sub(1, 8) .. string.pack("<I4I4", v % 4294967296, math.floor(v / 4294967296)) .. block:sub(17)
      end
      local s = assert(perflib.sample_from_block(block, m))
      t[k], ts[k] = s.time / s.freq, s.timestamp
      assert(w:write(s))
      perflib.sleep(0.02)
    end
    assert(w:close())
    assert.truthy(t[3] < t[2])
    local _, frames = assert(require("perflib.record").load(path, { paths = { "\\OL95 Step(*)\\V" } }))
    assert.equal(4, #frames)
    assert.equal(t[1], frames[1].t)
    assert.equal(t[2], frames[2].t)
    assert.near(t[2] + (ts[3] - ts[2]), frames[3].t, 1e-9)
    assert.near(frames[3].t + (t[4] - t[3]), frames[4].t, 1e-9)
    for k = 2, 4 do assert.truthy(frames[k].t > frames[k - 1].t) end
  end)

  it("refuses what is not a readable log, leaves out a torn tail, and raises for misuse", function()
    local junk = dir .. "/junk.blg"
    files.write(junk, "timestamp,value\n1,2\n")
    local m, msg, code = perflib.open_log(junk)
    assert.is_nil(m)
    assert.equal("open_log: " .. junk .. ": offset 0: not a perflib binary log (bad magic)", msg)
    assert.equal(EINVAL, code)
    m, msg, code = perflib.open_log(dir .. "/none.blg")
    assert.is_nil(m)
    assert.matches("No such file", msg)
    assert.equal(ENOENT, code)
    -- a version 1 log (no definitions): read_log reads it
    m, msg = perflib.open_log "fuzz/corpus/blog/cpu-two"
    assert.is_nil(m)
    assert.matches("a version 1 log has no counter definitions: read it with perflib.read_log", msg, 1, true)
    -- a torn last record: the whole ones, and a warning
    local path = dir .. "/torn.blg"
    queue_log(path, 3)
    local bytes = files.read(path)
    files.write(path, bytes:sub(1, #bytes - 3))
    m = assert(perflib.open_log(path))
    assert.matches("torn.blg: offset %d+: torn last record ignored %(", m:log().warning)
    local q = m:query()
    assert(q:add "\\OL95 Queue(q1)\\Depth")
    assert.equal(2, #all_samples(q))
    local function raises(pat, ...)
      local ok, err = pcall(perflib.open_log, ...)
      assert.is_false(ok)
      assert.matches(pat, err)
    end
    raises("bad argument #1 to '[^']*' %(string or table of strings expected", 42)
    raises("bad argument #1 to '[^']*' %(a path or a non%-empty list", {})
    raises("bad argument #1 to '[^']*' %(a list of paths must hold strings", { 1 })
    raises("unknown option 'form'", path, { form = 1 })
    raises("opts.from must be a number", path, { from = "yesterday" })
  end)
end)
