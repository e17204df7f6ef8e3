-- SQLite logs (issue 15 item 2): perflib.log_writer with format = "sqlite" (or a .db,
-- .sqlite, .sqlite3 path) and perflua typeperf -f SQL.  The database is read with the
-- sqlite3 command-line tool, as a user's SQL would: PDH's tables (DisplayToID,
-- CounterDetails, CounterData) with the formatted values computed by hand below, and
-- every value and status as the live samples give them; rows = false; misuse raising;
-- foreign and unwritable files failing with nil, message, errno.
local perflib = require "perflib"
local files = dofile "spec/support/files.lua"

local EINVAL, ENOENT = 22, 2
local HAVE_SQLITE3 = os.execute "command -v sqlite3 >/dev/null 2>&1"
local sq_it = HAVE_SQLITE3 and it or function(desc) pending(desc .. " (no sqlite3 command)") end

-- The rows of sql on the database at path, each a list of its fields (NULL as "NULL").
local function sql(path, query)
  local out, code = files.run("sqlite3 -separator '|' -nullvalue NULL " .. path .. " \"" .. query .. "\"")
  assert.equal(0, code, out)
  local rows = {}
  for line in out:gmatch "[^\n]+" do
    local r = {}
    for f in (line .. "|"):gmatch "([^|]*)|" do r[#r + 1] = f end
    rows[#rows + 1] = r
  end
  return rows
end

local function tmpdb()
  local p = os.tmpname()
  os.remove(p)
  return p .. ".db"
end

local function rm(path)
  for _, s in ipairs { "", "-wal", "-shm" } do os.remove(path .. s) end
end

-- A tree whose /proc/stat has two CPUs; stat(c0, c1) rewrites their lines.
local function cpu_tree()
  local dir, remove = files.tempdir()
  os.execute("mkdir -p " .. dir .. "/proc")
  local function stat(c0, c1)
    files.write(dir .. "/proc/stat", "cpu  1 0 1 1 0 0 0 0 0 0\ncpu0 " .. c0 .. "\ncpu1 " .. c1 .. "\n")
  end
  return dir, remove, stat
end

-- Fields: user nice system idle ... (ticks, user_hz 100).
--   s0: cpu0 100 0 100 800, cpu1 200 0 100 700
--   s1: cpu0 160 0 140 900, cpu1 300 0 200 700   (+200 ticks each)
--   s2: cpu0 160 0 140 1100, cpu1 400 0 200 800  (+200 ticks each)
local LINES = {
  { "100 0 100 800 0 0 0 0 0 0", "200 0 100 700 0 0 0 0 0 0" },
  { "160 0 140 900 0 0 0 0 0 0", "300 0 200 700 0 0 0 0 0 0" },
  { "160 0 140 1100 0 0 0 0 0 0", "400 0 200 800 0 0 0 0 0 0" },
}

-- Three samples of % User Time and % Privileged Time written to path with opts.
local function cpu_log(path, opts)
  local dir, remove, stat = cpu_tree()
  local M = perflib.machine { root = dir, user_hz = 100 }
  local q = M:query()
  assert(q:add "\\Processor Information(*)\\% User Time")
  assert(q:add "\\Processor Information(*)\\% Privileged Time")
  rm(path)
  local w = assert(perflib.log_writer(path, opts))
  local live = {}
  for _, c in ipairs(LINES) do
    stat(c[1], c[2])
    live[#live + 1] = assert(q:collect())
    assert.is_true(w:write(live[#live]))
  end
  assert.is_true(w:close())
  remove()
  return live, w
end

describe("SQLite logs", function()
  sq_it("writes PDH's tables: values by hand, raw values, times, one run", function()
    local path = tmpdb()
    local live, w = cpu_log(path)
    assert.matches("^perflib.LogWriter %(closed%)", tostring(w))
    -- % User Time: s1 over s0 cpu0 +60 of 200 ticks, cpu1 +100 of 200, _Total +160 of 400;
    -- s2 over s1 cpu0 +0, cpu1 +100 of 200, _Total +100 of 400; s0 has no rate (NULL).
    -- "0,_Total" is NUMA node 0's total; "_Total" is the machine's, from the tree's "cpu" line,
    -- which stays the same: no time passed for it (zero_interval, NULL)
    local rows = sql(path, "SELECT d.RecordIndex, c.InstanceName, d.CounterValue FROM CounterData d"
      .. " JOIN CounterDetails c USING (CounterID) WHERE c.CounterName = '% User Time'"
      .. " ORDER BY d.RecordIndex, c.InstanceName")
    local want = {
      { "1", "0,0", "NULL" }, { "1", "0,1", "NULL" }, { "1", "0,_Total", "NULL" }, { "1", "_Total", "NULL" },
      { "2", "0,0", 60 / 200 * 100 }, { "2", "0,1", 100 / 200 * 100 }, { "2", "0,_Total", 160 / 400 * 100 },
      { "2", "_Total", "NULL" },
      { "3", "0,0", 0 }, { "3", "0,1", 100 / 200 * 100 }, { "3", "0,_Total", 100 / 400 * 100 },
      { "3", "_Total", "NULL" },
    }
    assert.equal(#want, #rows)
    for k, r in ipairs(want) do
      assert.equal(r[1], rows[k][1])
      assert.equal(r[2], rows[k][2])
      if r[3] == "NULL" then assert.equal("NULL", rows[k][3]) else assert.near(r[3], tonumber(rows[k][3]), 1e-9) end
    end
    -- every value as the live samples format it (a status other than valid: NULL)
    rows = sql(path, "SELECT d.RecordIndex, c.CounterName, c.InstanceName, d.CounterValue FROM CounterData d"
      .. " JOIN CounterDetails c USING (CounterID)")
    assert.equal(3 * 2 * 4, #rows)                     -- 3 samples, 2 counters, 4 instances
    for _, r in ipairs(rows) do
      local k, i = tonumber(r[1]), r[2] == "% User Time" and 1 or 2
      local v, st = live[k]:values(live[k - 1], i)
      if st[r[2]][r[3]] == "valid" then
        assert.near(v[r[2]][r[3]], tonumber(r[4]), 1e-9)
      else
        assert.equal("NULL", r[4])
      end
    end
    -- the raw value's halves: FirstValueA + FirstValueB * 2^32 is the tick count in 100 ns
    -- (cpu0 user 100 ticks at user_hz 100 = 1 s = 10^7)
    rows = sql(path, "SELECT FirstValueA, FirstValueB, MultiCount FROM CounterData d JOIN CounterDetails c"
      .. " USING (CounterID) WHERE c.CounterName = '% User Time' AND c.InstanceName = '0,0' AND RecordIndex = 1")
    assert.equal(100 * 100000, tonumber(rows[1][1]) + tonumber(rows[1][2]) * 2 ^ 32)
    -- CounterDateTime as PDH writes it, UTC, the sample's own time
    rows = sql(path, "SELECT RecordIndex, min(CounterDateTime), max(CounterDateTime) FROM CounterData"
      .. " GROUP BY RecordIndex ORDER BY RecordIndex")
    assert.equal(3, #rows)
    for k, r in ipairs(rows) do
      local t = live[k].timestamp
      local text = os.date("!%Y-%m-%d %H:%M:%S", math.floor(t)) .. (".%03d"):format(math.floor(t % 1 * 1000))
      assert.same({ tostring(k), text, text }, r)
    end
    -- one run, its counts and host; the details
    local host = files.read("/proc/sys/kernel/hostname"):gsub("\n", "")
    rows = sql(path, "SELECT RunID, NumberOfRecords, Host, Perflib, Rows, length(GUID) FROM DisplayToID")
    assert.same({ { "1", "3", host, perflib._VERSION:match "perflib (.*)", "1", "36" } }, rows)
    rows = sql(path, "SELECT DISTINCT MachineName, ObjectName, Unit FROM CounterDetails")
    assert.same({ { "\\\\" .. host, "Processor Information", "percent" } }, rows)
    -- the records: the definitions once, then the three samples
    assert.same({ { "1", "1" }, { "2", "3" } }, sql(path, "SELECT Type, count(*) FROM Records GROUP BY Type"))
    assert.same({ { "1" } }, sql(path, "PRAGMA user_version"))
    rm(path)
  end)

  sq_it("leaves the rows out with rows = false; appends a new run", function()
    local path = tmpdb()
    cpu_log(path, { rows = false })
    assert.same({ { "0", "0", "3" } }, sql(path, "SELECT (SELECT count(*) FROM CounterData),"
      .. " (SELECT count(*) FROM CounterDetails), (SELECT count(*) FROM Records WHERE Type = 2)"))
    local rows = sql(path, "SELECT Rows FROM DisplayToID")
    assert.same({ { "0" } }, rows)
    -- appending: a second run with rows, its own RecordIndex from 1
    local dir, remove, stat = cpu_tree()
    stat(LINES[1][1], LINES[1][2])
    local q = perflib.machine({ root = dir, user_hz = 100 }):query()
    assert(q:add "\\Processor Information(*)\\% User Time")
    local w = assert(perflib.log_writer(path))
    assert.equal("sqlite", w:format())
    assert.is_true(w:write(assert(q:collect())))
    assert.truthy(w:size() > 0)
    assert.equal(path, w:path())
    assert.is_true(w:close())
    assert.is_true(w:close())                            -- idempotent
    remove()
    assert.same({ { "1", "3", "0" }, { "2", "1", "1" } },
      sql(path, "SELECT RunID, NumberOfRecords, Rows FROM DisplayToID ORDER BY RunID"))
    assert.same({ { "1", "4" } }, sql(path, "SELECT max(RecordIndex), count(*) FROM CounterData"))
    rm(path)
  end)

  it("keeps at most max_files files, binary or SQLite (circular, as logman's)", function()
    local dir, remove = files.tempdir()
    local q = perflib.machine { root = "spec/fixtures/basic" }:query()
    assert(q:add "\\Processor Information(*)\\% User Time")
    local function names()
      local out = files.sh("ls " .. dir)
      local list = {}
      for n in out:gmatch("%S+") do list[#list + 1] = n end
      return table.concat(list, " ")
    end
    -- binary: 12 samples, a new file every 60 s of sample time would be slow to wait for,
    -- so by size: a file of 3 samples and 100 bytes to spare (as 95-blog_spec's rotation)
    local probe = assert(perflib.log_writer(dir .. "/probe.blg"))
    for _ = 1, 3 do assert(probe:write(assert(q:collect()))) end
    local three = probe:size()
    assert(probe:close())
    os.remove(dir .. "/probe.blg")
    local w = assert(perflib.log_writer(dir .. "/c.blg", { max_bytes = three + 100, max_files = 2 }))
    for _ = 1, 12 do assert(w:write(assert(q:collect()))) end
    assert.equal(dir .. "/c_003.blg", w:path())
    assert(w:close())
    assert.equal("c_002.blg c_003.blg", names())      -- c.blg went when _002 began, _001 with _003
    os.remove(dir .. "/c_002.blg")
    os.remove(dir .. "/c_003.blg")
    -- SQLite: 64 KiB files; three stay, without the -wal and -shm of those that went
    local sw = assert(perflib.log_writer(dir .. "/s.db", { max_bytes = 65536, max_files = 3, rows = true }))
    local n = 0
    repeat
      assert(sw:write(assert(q:collect())))
      n = n + 1
    until sw:path():match("_00[5-9]%.db$") or n > 400
    local last = sw:path()
    assert(sw:close())
    local k = tonumber(last:match("_(%d+)%.db$"))
    local want = {}
    for i = k - 2, k do want[#want + 1] = ("s_%03d.db"):format(i) end
    assert.equal(table.concat(want, " "), names())
    remove()
  end)

  it("picks the format by option, else by extension", function()
    local base = os.tmpname()
    for _, c in ipairs {
      { ".db", nil, "sqlite" }, { ".sqlite", nil, "sqlite" }, { ".sqlite3", nil, "sqlite" },
      { ".blg", nil, "bin" }, { "", nil, "bin" }, { ".log", "sqlite", "sqlite" }, { ".db", "bin", "bin" },
    } do
      local path = base .. c[1]
      rm(path)
      local w = assert(perflib.log_writer(path, { format = c[2] }))
      assert.equal(c[3], w:format(), path)
      w:close()
      local head = files.read(path) or ""
      if c[3] == "sqlite" then
        assert.equal("SQLite format 3\0", head:sub(1, 16))
      else
        assert.equal("\137PLB", head:sub(1, 4))
      end
      rm(path)
    end
    os.remove(base)
  end)

  it("fails with nil, message, errno for a foreign database or a file it cannot create", function()
    local path = tmpdb()
    rm(path)
    local w, msg, code = perflib.log_writer("/nonexistent/dir/x.db")
    assert.is_nil(w)
    assert.equal("/nonexistent/dir/x.db: No such file or directory", msg)
    assert.equal(ENOENT, code)
    files.write(path, ("not a database at all "):rep(200))
    w, msg, code = perflib.log_writer(path)
    assert.is_nil(w)
    assert.matches("not a perflib SQLite log", msg)
    assert.equal(EINVAL, code)
    rm(path)
    if HAVE_SQLITE3 then
      sql(path, "CREATE TABLE t (x)")
      w, msg, code = perflib.log_writer(path)
      assert.is_nil(w)
      assert.equal(path .. ": an SQLite database that is not a perflib log (application_id 0)", msg)
      assert.equal(EINVAL, code)
      rm(path)
    end
  end)

  it("raises on misuse, naming the argument", function()
    local path = tmpdb()
    assert.error_matches(function() perflib.log_writer(path, { format = "xml" }) end,
      "bad argument #2 to 'log_writer' %(opts.format must be \"sqlite\" or \"bin\"")
    assert.error_matches(function() perflib.log_writer(path, { format = 1 }) end, "opts.format must be")
    assert.error_matches(function() perflib.log_writer(path, { rows = 1 }) end,
      "bad argument #2 to 'log_writer' %(opts.rows must be a boolean")
    assert.error_matches(function() perflib.log_writer(path, { format = "bin", rows = false }) end,
      "opts.rows is an option of the sqlite format")
    assert.error_matches(function() perflib.log_writer(path, { max_bytes = -1 }) end, "opts.max_bytes")
    local w = assert(perflib.log_writer(path))
    assert.error_matches(function() w:write "x" end, "bad argument #1 to 'write'")
    w:close()
    assert.error_matches(function() w:format() end, "closed log writer")
    rm(path)
  end)

  describe("perflua typeperf -f SQL", function()
    local cli = require "perflib.cli"
    local sink = dofile "spec/support/sink.lua"

    local function typeperf(args)
      local dir, remove, stat = cpu_tree()
      stat(LINES[1][1], LINES[1][2])
      local m = perflib.machine { root = dir, user_hz = 100 }
      local out, err = sink(), sink()
      local argv = { "typeperf" }
      for _, a in ipairs(args) do argv[#argv + 1] = a end
      local code = cli.main(argv, out, err, { machine = m, host = "fixhost", wait = function(n)
        if LINES[n + 1] then stat(LINES[n + 1][1], LINES[n + 1][2]) end
        return true
      end })
      remove()
      return code, out:text(), err:text()
    end

    sq_it("writes the collect before the first row and -sc samples; refuses an existing file without -y",
      function()
        local path = tmpdb()
        rm(path)
        local code, out, err = typeperf { "-f", "sql", "-o", path, "-sc", "2",
          "\\Processor Information(*)\\% User Time" }
        assert.equal(0, code, err)
        assert.equal("", out)
        assert.equal("", err)
        local rows = sql(path, "SELECT d.RecordIndex, c.InstanceName, d.CounterValue FROM CounterData d"
          .. " JOIN CounterDetails c USING (CounterID) WHERE RecordIndex > 1 ORDER BY 1, 2")
        -- as above: +60 and +100 user ticks of 200, then +0 and +100 (0,0 0,1 0,_Total _Total)
        local want = { 30, 50, 40, "NULL", 0, 50, 25, "NULL" }
        assert.equal(#want, #rows)
        for k, v in ipairs(want) do
          if v == "NULL" then assert.equal(v, rows[k][3]) else assert.near(v, tonumber(rows[k][3]), 1e-9) end
        end
        code, out, err = typeperf { "-f", "SQL", "-o", path, "-sc", "1", "\\Processor Information(*)\\% User Time" }
        assert.equal(2, code)
        assert.equal("", out)
        assert.equal("perflua typeperf: " .. path .. " exists: not overwritten (-y replaces it)\n", err)
        code = typeperf { "-f", "SQL", "-y", "-o", path, "-sc", "1", "\\Processor Information(*)\\% User Time" }
        assert.equal(0, code)
        assert.same({ { "1", "2" } }, sql(path, "SELECT count(*), max(NumberOfRecords) FROM DisplayToID"))
        rm(path)
      end)

    local e2e = (io.open "build/perflua" and HAVE_SQLITE3) and it
      or function(desc) pending(desc .. " (build/perflua or sqlite3 missing)") end
    e2e("runs in the built binary: this machine's Processes in the database", function()
      local path = tmpdb()
      rm(path)
      local out, code = files.run("build/perflua typeperf -f SQL -o " .. path .. " -sc 2 -si 0.1 '\\System\\Processes'")
      assert.equal(0, code, out)
      local rows = sql(path, "SELECT c.CounterName, c.InstanceName, count(*), min(d.CounterValue) > 0"
        .. " FROM CounterData d JOIN CounterDetails c USING (CounterID)")
      assert.same({ { "Processes", "NULL", "3", "1" } }, rows)
      assert.same({ { "3" } }, sql(path, "SELECT NumberOfRecords FROM DisplayToID"))
      rm(path)
    end)
  end)
end)
