-- perflua relog (perflib.relog, issue 15 item 4): binary logs written here from a
-- perflib.define set on its own machine, with values chosen so every CSV value is
-- worked out by hand: queue q1's Items/sec (PERF_COUNTER_BULK_COUNT) is 120 x k at
-- the k-th collect, so between two logged samples it is 120 x (records apart) / the
-- seconds between the set's reads; Depth (a raw count) is 3 x k; q2 stays 7 and 1.
-- Then each option (-c, -cf, -f, -b/-e, -t, -q, -y, several inputs), the round trip
-- BIN -> BIN with the raw values kept, and bad input.
local relog = require "perflib.relog"
local typeperf = require "perflib.typeperf"
local cli = require "perflib.cli"
local perflib = require "perflib"
local files = dofile "spec/support/files.lua"
local sink = dofile "spec/support/sink.lua"

local SET = "RL95 Queue"

-- A log of n samples (the live samples are returned; spec/support/queue_log.lua).
local function queue_log(path, n)
  return dofile "spec/support/queue_log.lua"(path, n, { set = SET, help = "A queue of the relog spec.",
                                                      memory = true })
end

-- perflua relog ARGS in this process: exit status, stdout, stderr.
local function run(...)
  local out, err = sink(), sink()
  local code = cli.main({ "relog", ... }, out, err)
  return code, out:text(), err:text()
end

-- Seconds between the set's reads in two live samples (result 1: the queue).
local function dt(s0, s1)
  return (s1:results()[1].time - s0:results()[1].time) / s1.freq
end

-- The rows of a CSV text as lists of fields (no quote inside the fields here).
local function csv(text)
  local rows = {}
  for line in text:gmatch("([^\n]*)\n") do
    local row = {}
    for f in (line:sub(2, -2) .. '","'):gmatch('(.-)","') do row[#row + 1] = f end
    rows[#rows + 1] = row
  end
  return rows
end

local function stamp(ts)
  local sec = math.floor(ts)
  return os.date("%m/%d/%Y %H:%M:%S", sec) .. (".%03d"):format(math.floor((ts - sec) * 1000))
end

local function all(m, path)
  local q = m:query()
  assert(q:add(path))
  local got = {}
  while true do
    local s = q:collect()
    if not s then return got end
    got[#got + 1] = s
  end
end

describe("perflua relog", function()
  local dir, remove, a, live
  setup(function()
    dir, remove = files.tempdir()
    a = dir .. "/a.blg"
    live = queue_log(a, 5)
    live.host = assert(perflib.open_log(a)):log().host
  end)
  teardown(function() remove() end)

  it("writes typeperf's CSV: the first record is the rates' base, then one row per record", function()
    local out = dir .. "/q.csv"
    local code, text, err = run(a, "-c", "\\\\elsewhere\\" .. SET .. "(*)\\Items/sec", "\\" .. SET .. "(q1)\\Depth",
      "-o", out)
    assert.equal(0, code, err)
    assert.equal("", err)
    assert.equal(out .. ": 4 records (CSV) from 5 samples\n", text)           -- 5 samples, the 1st a base
    local rows = csv(files.read(out))
    assert.equal(5, #rows)                                                   -- the header and 4 rows
    local zone, bias = typeperf.zone(live[1].timestamp)
    local h = "\\\\" .. live.host .. "\\" .. SET
    assert.equal(("(PDH-CSV 4.0) (%s)(%d)"):format(zone, bias), rows[1][1])
    local col = {}                                 -- a wildcard's instances come in the sample's order
    for i = 2, #rows[1] do col[rows[1][i]] = i end
    assert.equal(4, #rows[1])
    local q2, q1, depth = col[h .. "(q2)\\Items/sec"], col[h .. "(q1)\\Items/sec"], col[h .. "(q1)\\Depth"]
    assert.equal(4, depth)                         -- the paths' order: -c's
    for i = 2, 5 do
      local row = rows[i]
      assert.equal(stamp(live[i].timestamp), row[1])
      assert.equal("0.000000", row[q2])                                      -- q2: 7 then 7
      local want = 120 / dt(live[i - 1], live[i])                           -- 120 x i - 120 x (i - 1)
      assert.near(want, tonumber(row[q1]), 1e-6 + want * 1e-9)
      assert.equal(("%.6f"):format(3 * i), row[depth])                       -- Depth 3 x i
    end
  end)

  it("keeps every N-th record (-t) and cuts a time range (-b/-e, @UNIX)", function()
    local out = dir .. "/t.csv"
    local code, _, err = run(a, "-c", "\\" .. SET .. "(q1)\\Items/sec", "-t", "2", "-o", out)
    assert.equal(0, code, err)
    local rows = csv(files.read(out))
    assert.equal(3, #rows)                         -- records 1, 3, 5 kept: the 1st a base, rows at 3 and 5
    for r, i in ipairs { 3, 5 } do
      -- 120 x i - 120 x (i - 2) = 240 over the seconds from record i - 2 to record i
      local want = 240 / dt(live[i - 2], live[i])
      assert.equal(stamp(live[i].timestamp), rows[r + 1][1])
      assert.near(want, tonumber(rows[r + 1][2]), 1e-6 + want * 1e-9)
    end
    out = dir .. "/be.csv"
    code, _, err = run(a, "-c", "\\" .. SET .. "(q1)\\Depth", "-b", ("@%.6f"):format(live[2].timestamp - 0.001),
      "-e", ("@%.6f"):format(live[4].timestamp + 0.001), "-o", out)
    assert.equal(0, code, err)
    rows = csv(files.read(out))
    assert.equal(3, #rows)                         -- records 2..4: the 2nd a base, rows 3 and 4
    assert.same({ stamp(live[3].timestamp), "9.000000" }, rows[2])
    assert.same({ stamp(live[4].timestamp), "12.000000" }, rows[3])
    -- a range with no sample: nothing written, exit 1
    code, _, err = run(a, "-b", "@1000", "-e", "@2000", "-o", dir .. "/none.csv")
    assert.equal(1, code)
    assert.equal("perflua relog: no sample in the time range: " .. dir .. "/none.csv not written\n", err)
    assert.is_nil(files.slurp(dir .. "/none.csv"))
  end)

  it("reads -b/-e as relog's M/d/yyyy h:mm:ss[AM|PM], ISO yyyy-mm-dd[Thh:mm:ss] (local) or @UNIX", function()
    local t = os.time { year = 2026, month = 11, day = 24, hour = 17, min = 49, sec = 29 }
    assert.equal(t, relog.time "11/24/2026 5:49:29PM")
    assert.equal(t, relog.time "11/24/2026 5:49:29 pm")
    assert.equal(t, relog.time "11/24/2026 17:49:29")
    assert.equal(t, relog.time "2026-11-24T17:49:29")
    assert.equal(t, relog.time "2026-11-24 17:49:29")
    assert.equal(t - 29, relog.time "2026-11-24T17:49")
    assert.equal(t + 0.5, relog.time "2026-11-24T17:49:29.5")
    local midnight = os.time { year = 2026, month = 11, day = 24, hour = 0, min = 0, sec = 0 }
    assert.equal(midnight, relog.time "2026-11-24")
    assert.equal(midnight, relog.time "11/24/2026")
    assert.equal(midnight, relog.time "11/24/2026 12:00:00AM")              -- 12 AM is midnight
    assert.equal(midnight + 12 * 3600 + 1800, relog.time "11/24/2026 12:30:00PM")
    assert.equal(os.time { year = 2024, month = 2, day = 29, hour = 0 }, relog.time "2/29/2024")
    assert.equal(12.5, relog.time "@12.5")
    for _, bad in ipairs { "13/1/2020", "2/30/2024", "2/29/2023", "2026-11-24T25:00", "2026-11-24T10:60",
                           "1/1/2020 0:00:00PM", "1/1/2020 13:00PM", "yesterday", "@-5", "2026-11-24X10:00", "" } do
      local v, msg = relog.time(bad, "-e")
      assert.is_nil(v, bad)
      assert.equal("-e " .. bad .. ": needs M/d/yyyy h:mm:ss[AM|PM] or yyyy-mm-dd[Thh:mm:ss] (local time), "
        .. "or @UNIX-SECONDS", msg)
    end
    local code, _, err = run(a, "-b", "2/30/2024", "-o", dir .. "/x.csv")
    assert.equal(2, code)
    assert.matches("^perflua relog: %-b 2/30/2024: needs M/d/yyyy", err)
    code, _, err = run(a, "-b", "@20", "-e", "@10", "-o", dir .. "/x.csv")
    assert.equal(2, code)
    assert.equal("perflua relog: -b is after -e: an empty time range\n", err)
    assert.same({ nil, "-t needs a whole number N >= 1 (every N-th record)" }, { relog.step "0" })
    assert.equal(3, relog.step "3")
    code, _, err = run(a, "-t", "0", "-o", dir .. "/x.csv")
    assert.equal(2, code)
    assert.matches("-t needs a whole number N >= 1", err, 1, true)
    assert.is_nil(files.slurp(dir .. "/x.csv"))
  end)

  it("keeps the raw samples BIN -> BIN: the same values, times and rates read back", function()
    local out = dir .. "/copy.blg"
    local code, text, err = run(a, "-o", out)                               -- every counter (the default)
    assert.equal(0, code, err)
    assert.equal(out .. ": 5 records (BIN) from 5 samples\n", text)
    local m0, m1 = assert(perflib.open_log(a)), assert(perflib.open_log(out))
    assert.equal(5, m1:log().samples)
    assert.equal(m0:log().host, m1:log().host)
    for _, path in ipairs { "\\" .. SET .. "(*)\\*", "\\Memory\\Available Bytes" } do
      local s0, s1 = all(m0, path), all(m1, path)
      assert.equal(5, #s1)
      for i = 1, 5 do
        assert.equal(s0[i].timestamp, s1[i].timestamp)
        assert.same(s0[i]:values(nil, 1), s1[i]:values(nil, 1))
        if i > 1 then
          local v0, st0 = s0[i]:values(s0[i - 1], 1)
          local v1, st1 = s1[i]:values(s1[i - 1], 1)
          assert.same(v0, v1)                                               -- rates exactly the same
          assert.same(st0, st1)
        end
      end
    end
    local got = all(m1, "\\" .. SET .. "(q1)\\Depth")
    assert.equal(15, got[5]:values(nil, 1).Depth.q1)                        -- 3 x 5, raw
    -- -t 2 and -c on a binary output: records 1, 3, 5 of the queue only
    out = dir .. "/step.blg"
    code, text, err = run(a, "-c", "\\" .. SET .. "(q1)\\*", "-t", "2", "-f", "bin", "-o", out)
    assert.equal(0, code, err)
    assert.equal(out .. ": 3 records (BIN) from 5 samples\n", text)
    local m2 = assert(perflib.open_log(out))
    assert.is_nil(m2:counterset "Memory")                                   -- the filter drops the set
    got = all(m2, "\\" .. SET .. "(q1)\\*")
    assert.same({ live[1].timestamp, live[3].timestamp, live[5].timestamp },
      { got[1].timestamp, got[2].timestamp, got[3].timestamp })
    local v = got[2]:values(got[1], 1)
    local want = 240 / dt(live[1], live[3])                                 -- 360 - 120 over records 1 to 3
    assert.near(want, v["Items/sec"].q1, want * 1e-9)
  end)

  it("writes TSV and JSON lines, takes paths from -cf, and the format from -o's extension", function()
    local cf = dir .. "/paths.txt"
    files.write(cf, "# the queue's depth\n\n  \\" .. SET .. "(q1)\\Depth  \n")
    local out = dir .. "/d.tsv"
    local code, _, err = run(a, "-cf", cf, "-o", out)
    assert.equal(0, code, err)
    local lines = {}
    for l in files.read(out):gmatch("[^\n]+") do lines[#lines + 1] = l end
    assert.equal(5, #lines)
    assert.matches('^"%(PDH%-TSV 4%.0%) %(.-%)%(%-?%d+%)"\t"\\\\.-\\RL95 Queue%(q1%)\\Depth"$', lines[1])
    assert.equal('"' .. stamp(live[2].timestamp) .. '"\t"6.000000"', lines[2])
    out = dir .. "/d.json"
    code, _, err = run(a, "-cf", cf, "-f", "JSON", "-o", out)
    assert.equal(0, code, err)
    local first = files.read(out):match("^[^\n]+")
    assert.matches('"values":{"\\\\\\\\.-\\\\RL95 Queue%(q1%)\\\\Depth":6},"statuses":{}}$', first)
    code, _, err = run(a, "-cf", dir .. "/missing.txt", "-o", dir .. "/m.csv")
    assert.equal(2, code)
    assert.matches("^perflua relog: %-cf .-missing.txt: cannot read:", err)
  end)

  it("merges several logs given in time order, and refuses them out of order", function()
    local b = dir .. "/b.blg"
    local lb = queue_log(b, 2)
    local out = dir .. "/ab.csv"
    local code, text, err = run(a, b, "-c", "\\" .. SET .. "(q2)\\Depth", "-o", out)
    assert.equal(0, code, err)
    assert.equal(out .. ": 6 records (CSV) from 7 samples\n", text)
    local rows = csv(files.read(out))
    assert.equal(7, #rows)
    assert.equal(stamp(lb[2].timestamp), rows[7][1])
    code, text, err = run(b, a, "-o", dir .. "/ba.csv")
    assert.equal(2, code)
    assert.equal("", text)
    assert.equal(("perflua relog: %s starts (%s) before %s ends (%s): give the logs in time order\n"):format(a,
      os.date("%m/%d/%Y %H:%M:%S", math.floor(live[1].timestamp)), b,
      os.date("%m/%d/%Y %H:%M:%S", math.floor(lb[2].timestamp))), err)
    assert.is_nil(files.slurp(dir .. "/ba.csv"))
  end)

  it("-q says what the input holds: host, time range, samples, each set with its counters", function()
    local code, text, err = run(a, "-q")
    assert.equal(0, code, err)
    local info = assert(perflib.open_log(a)):log()
    assert.matches("^Files:      1: " .. a:gsub("%p", "%%%0") .. "\n", text)
    assert.truthy(text:find("Host:       " .. info.host .. " (perflib " .. info.perflib .. ")\n", 1, true))
    assert.truthy(text:find(("Begin:      %s (@%.3f)\n"):format(os.date("%m/%d/%Y %H:%M:%S",
      math.floor(info.first)), info.first), 1, true))
    assert.truthy(text:find("Samples:    5\n", 1, true))
    assert.truthy(text:find("\n" .. SET .. " (multiple: ", 1, true))
    assert.truthy(text:find("  \\\\" .. info.host .. "\\" .. SET .. "(*)\\Items/sec\n", 1, true))
    assert.truthy(text:find("  \\\\" .. info.host .. "\\Memory\\Available Bytes\n", 1, true))
    assert.falsy(text:find("Base", 1, true))                                -- hidden counters are not listed
  end)

  it("refuses bad input: no log, a torn one (warned, whole records kept), unknown paths, OUT", function()
    local junk = dir .. "/junk.blg"
    files.write(junk, "timestamp,value\n1,2\n")
    local code, _, err = run(junk, "-o", dir .. "/j.csv")
    assert.equal(2, code)
    assert.equal("perflua relog: open_log: " .. junk .. ": offset 0: not a perflib binary log (bad magic)\n", err)
    code, _, err = run(dir .. "/none.blg", "-o", dir .. "/j.csv")
    assert.equal(2, code)
    assert.matches("No such file", err)
    -- a torn last record: said, and the whole records converted
    local torn = dir .. "/torn.blg"
    local bytes = files.read(a)
    files.write(torn, bytes:sub(1, #bytes - 3))
    code, _, err = run(torn, "-c", "\\" .. SET .. "(q1)\\Depth", "-o", dir .. "/torn.csv")
    assert.equal(0, code, err)
    assert.matches("^perflua relog: .-torn%.blg: offset %d+: torn last record ignored", err)
    assert.equal(4, #csv(files.read(dir .. "/torn.csv")))                   -- 4 records: a header and 3 rows
    -- an unknown path is said and left out; none left: exit 2
    code, _, err = run(a, "-c", "\\No Such Set\\X", "\\" .. SET .. "(q1)\\Depth", "-o", dir .. "/u.csv")
    assert.equal(0, code)
    assert.equal("perflua relog: \\No Such Set\\X: no counterset 'No Such Set' (left out)\n", err)
    code, _, err = run(a, "-c", "\\No Such Set\\X", "-o", dir .. "/u2.csv")
    assert.equal(2, code)
    assert.matches("no counter of the log matches\n$", err)
    -- an instance never logged: its column, empty (" ") in every row, as typeperf
    code, _, err = run(a, "-c", "\\" .. SET .. "(zz)\\Depth", "-o", dir .. "/u3.csv")
    assert.equal(0, code, err)
    local rows = csv(files.read(dir .. "/u3.csv"))
    assert.equal(5, #rows)
    for i = 2, 5 do assert.equal(" ", rows[i][2]) end
    -- an existing OUT: refused without -y (untouched), replaced with it; OUT an input: refused
    files.write(dir .. "/keep.csv", "mine\n")
    code, _, err = run(a, "-o", dir .. "/keep.csv")
    assert.equal(2, code)
    assert.equal("perflua relog: " .. dir .. "/keep.csv exists: not overwritten (-y replaces it)\n", err)
    assert.equal("mine\n", files.read(dir .. "/keep.csv"))
    code = run(a, "-c", "\\" .. SET .. "(q1)\\Depth", "-o", dir .. "/keep.csv", "-y")
    assert.equal(0, code)
    assert.matches("^\"%(PDH%-CSV", files.read(dir .. "/keep.csv"))
    code, _, err = run(a, "-o", a, "-y")
    assert.equal(2, code)
    assert.equal("perflua relog: -o " .. a .. " is an input: write elsewhere\n", err)
    -- no -o, no input: the usage; a bad -f
    code, _, err = run(a)
    assert.equal(2, code)
    assert.matches("^usage: perflua relog", err)
    code, _, err = run(a, "-f", "XML", "-o", dir .. "/x.xml")
    assert.equal(2, code)
    assert.matches("-f needs CSV, TSV, JSON, BIN or SQL", err, 1, true)
  end)

  it("-f SQL goes to log_writer's SQLite format, or fails with log_writer's own message", function()
    local out = dir .. "/s.db"
    local code, text, err = run(a, "-f", "SQL", "-o", out)
    if code == 0 then                       -- the SQLite log is there: it reads back
      assert.equal(out .. ": 5 records (SQL) from 5 samples\n", text)
      assert.equal(5, assert(perflib.open_log(out)):log().samples)
    else
      assert.equal(2, code)
      assert.equal("perflua relog: -f SQL: log_writer: unknown option 'format'\n", err)
      assert.is_nil(files.slurp(out))
    end
  end)

  it("--help says the options and the exit statuses", function()
    local code, text = run("--help")
    assert.equal(0, code)
    for _, o in ipairs { "-c PATH", "-cf FILE", "-f FMT", "-o FILE", "-b TIME", "-e TIME", "-t N", "-y", "-q",
                         "Exit status:" } do
      assert.truthy(text:find(o, 1, true), o)
    end
  end)
end)
