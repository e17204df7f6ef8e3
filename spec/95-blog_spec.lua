-- Binary logs (issue 15 item 2): perflib.log_writer and perflib.read_log.  Samples of a
-- fixture tree written and read back format as the live ones (values by hand below),
-- with the same timestamps and statuses; metadata once and again for a set defined
-- later; time ranges; a torn tail left out with a warning; a bit flipped in every byte
-- (refused, or the same values); foreign files; a file that cannot grow (the write
-- fails, the file stays readable); misuse raising; perflua typeperf -f BIN.
local perflib = require "perflib"
local files = dofile "spec/support/files.lua"

local EINVAL, ENOSPC = 22, 28

-- A tree whose /proc/stat has two CPUs; stat(c0, c1) rewrites their lines.
local function cpu_tree()
  local dir, remove = files.tempdir()
  os.execute("mkdir -p " .. dir .. "/proc")
  local function stat(c0, c1)
    files.write(dir .. "/proc/stat", "cpu  1 0 1 1 0 0 0 0 0 0\ncpu0 " .. c0 .. "\ncpu1 " .. c1 .. "\n")
  end
  return dir, remove, stat
end

-- Three samples of % User Time and % Privileged Time, written to a log at path.
-- Fields: user nice system idle ... (ticks, user_hz 100).
--   s0: cpu0 100 0 100 800, cpu1 200 0 100 700
--   s1: cpu0 160 0 140 900, cpu1 300 0 200 700   (+200 ticks each)
--   s2: cpu0 160 0 140 1100, cpu1 400 0 200 800  (+200 ticks each)
local function cpu_log(path)
  local dir, remove, stat = cpu_tree()
  local M = perflib.machine { root = dir, user_hz = 100 }
  local q = M:query()
  assert(q:add "\\Processor Information(*)\\% User Time")
  assert(q:add "\\Processor Information(*)\\% Privileged Time")
  os.remove(path)
  local w = assert(perflib.log_writer(path))
  local live = {}
  for _, c in ipairs {
    { "100 0 100 800 0 0 0 0 0 0", "200 0 100 700 0 0 0 0 0 0" },
    { "160 0 140 900 0 0 0 0 0 0", "300 0 200 700 0 0 0 0 0 0" },
    { "160 0 140 1100 0 0 0 0 0 0", "400 0 200 800 0 0 0 0 0 0" },
  } do
    stat(c[1], c[2])
    live[#live + 1] = assert(q:collect())
    assert.is_true(w:write(live[#live]))
  end
  assert.is_true(w:close())
  return M, live, remove
end

local function read_all(path, opts)
  local it, log, code = perflib.read_log(path, opts)
  if not it then return nil, log, code end
  local out = {}
  for s in it do out[#out + 1] = s end
  return out, log
end

local function tmpfile()
  local p = os.tmpname()
  os.remove(p)
  return p .. ".blg"
end

describe("binary logs", function()
  it("reads back samples that format as the live ones, with their times and statuses", function()
    local path = tmpfile()
    local M, live, remove = cpu_log(path)
    local got, log = read_all(path, { machine = M })
    assert.equal(3, #got)
    assert.is_nil(log:warning())
    local info = log:info()
    assert.equal(4, info.records)                       -- one METADATA, three DATA
    assert.equal(3, info.samples)
    assert.equal(2, info.version)
    assert.equal(perflib._VERSION:match "perflib (.*)", info.perflib)
    assert.equal(files.read("/proc/sys/kernel/hostname"):gsub("\n", ""), info.host)
    assert.truthy(math.abs(info.created - os.time()) < 60)
    for k = 1, 3 do
      assert.equal(live[k].timestamp, got[k].timestamp)
      assert.equal(live[k].time, got[k].time)
    end
    -- s1 over s0: cpu0 user +60, system +40 of 200; cpu1 user +100, system +100 of 200
    local u, ust = got[2]:values(got[1], 1)
    u = u["% User Time"]
    assert.near(60 / 200 * 100, u["0,0"], 1e-9)          -- 30
    assert.near(100 / 200 * 100, u["0,1"], 1e-9)         -- 50
    assert.near(160 / 400 * 100, u["0,_Total"], 1e-9)    -- 40
    assert.equal("valid", ust["% User Time"]["0,0"])
    local p = got[2]:values(got[1], 2)["% Privileged Time"]
    assert.near(40 / 200 * 100, p["0,0"], 1e-9)          -- 20
    assert.near(100 / 200 * 100, p["0,1"], 1e-9)         -- 50
    assert.near(140 / 400 * 100, p["0,_Total"], 1e-9)    -- 35
    -- s2 over s1: cpu0 idle only (0 %), cpu1 user +100 of 200 (50 %)
    u = got[3]:values(got[2], 1)["% User Time"]
    assert.near(0, u["0,0"], 1e-9)
    assert.near(50, u["0,1"], 1e-9)
    assert.near(100 / 400 * 100, u["0,_Total"], 1e-9)   -- 25
    -- and every value and status as the live pair gives them
    for k = 2, 3 do
      for i = 1, 2 do
        local a, ast = live[k]:values(live[k - 1], i)
        local b, bst = got[k]:values(got[k - 1], i)
        assert.same(a, b)
        assert.same(ast, bst)
      end
    end
    -- the first sample alone: no rate yet, the same status either way
    local _, st1 = got[1]:values(nil, 1)
    local _, lst1 = live[1]:values(nil, 1)
    assert.same(lst1, st1)
    log:close()
    log:close()                                         -- idempotent
    assert.matches("^perflib.LogReader %(", tostring(log))
    os.remove(path)
    remove()
  end)

  it("reads back samples of spec/fixtures/basic with the fixture's values", function()
    local M = perflib.machine { root = "spec/fixtures/basic" }
    local q = M:query()
    assert(q:add "\\Memory\\Available Bytes")
    assert(q:add "\\Memory\\Available MBytes")
    local path = tmpfile()
    local w = assert(perflib.log_writer(path))
    local live = { assert(q:collect()), assert(q:collect()) }
    for _, s in ipairs(live) do assert(w:write(s)) end
    assert(w:close())
    local got = read_all(path, { machine = M })
    assert.equal(2, #got)
    -- MemAvailable 23781276 kB: 23781276 x 1024 = 24352026624 bytes; / 1024 = 23223.9 MB, truncated
    local v, st = got[2]:values(got[1], 1)
    assert.equal(24352026624, v["Available Bytes"][""])
    assert.equal("valid", st["Available Bytes"][""])
    assert.equal(23223, got[2]:values(got[1], 2)["Available MBytes"][""])
    assert.equal(23781276 * 1024, (got[1]:value(1, "", "Available Bytes")))
    assert.equal(live[2].timestamp, got[2].timestamp)
    os.remove(path)
  end)

  it("gives the samples of a time range (from, to in Unix seconds)", function()
    local path = tmpfile()
    local M, live, remove = cpu_log(path)
    local t2 = live[2].timestamp
    local got = read_all(path, { machine = M, from = t2 - 1e-4, to = t2 + 1e-4 })
    assert.equal(1, #got)
    assert.equal(t2, got[1].timestamp)
    got = read_all(path, { machine = M, from = t2 - 1e-4 })
    assert.equal(2, #got)
    got = read_all(path, { machine = M, to = live[1].timestamp + 1e-4 })
    assert.equal(1, #got)
    assert.equal(0, #read_all(path, { machine = M, from = live[3].timestamp + 1 }))
    os.remove(path)
    remove()
  end)

  it("writes metadata again only for a set the log has not described (defined later)", function()
    -- the sets are defined on a machine of this test only: the default machine's catalog
    -- stays as the specs that compare it with another process's expect it
    local M = perflib.machine { root = "spec/fixtures/basic" }
    local n = 0
    assert(perflib.define { machine = M, name = "Blog95 First", instances = "single",
      counters = { { name = "Level" } }, collect = function() n = n + 1 return { 10 * n } end })
    local path = tmpfile()
    local w = assert(perflib.log_writer(path))
    local q = M:query()
    assert(q:add "\\Blog95 First\\Level")
    assert(w:write(assert(q:collect())))                 -- Level 10: METADATA + DATA
    assert(w:write(assert(q:collect())))                 -- Level 20: DATA
    assert(perflib.define { machine = M, name = "Blog95 Later", instances = "multiple",
      counters = { { name = "Depth" } }, collect = function() return { a = { 7 }, b = { 9 } } end })
    local q2 = M:query()
    assert(q2:add "\\Blog95 First\\Level")
    assert(q2:add "\\Blog95 Later(*)\\Depth")
    assert(w:write(assert(q2:collect())))                -- Level 30, a new set: METADATA + DATA
    assert(w:write(assert(q2:collect())))                -- Level 40: DATA
    assert(w:write(assert(q:collect())))                 -- Later gone, Level 50: DATA
    assert(w:close())
    local got, log = read_all(path, { machine = M })
    assert.equal(7, log:info().records)                  -- 2 METADATA + 5 DATA
    assert.equal(5, #got)
    local levels = {}
    for k, s in ipairs(got) do levels[k] = s:values(nil, 1).Level[""] end
    assert.same({ 10, 20, 30, 40, 50 }, levels)
    assert.same({ a = 7, b = 9 }, got[3]:values(nil, 2).Depth)
    assert.equal(1, #got[5]:results())
    -- the default machine has no such sets: the iterator says which block it cannot read
    local it = assert(perflib.read_log(path))
    local ok, err = pcall(it)
    assert.is_false(ok)
    assert.matches("read_log: " .. path:gsub("%p", "%%%0") .. ": offset %d+: ", err)
    os.remove(path)
  end)

  it("leaves a torn last record out, says so, and appends after cutting it off", function()
    local path = tmpfile()
    local M, live, remove = cpu_log(path)
    local bytes = files.read(path)
    files.write(path, bytes:sub(1, #bytes - 3))
    local got, log = read_all(path, { machine = M })
    assert.equal(2, #got)
    assert.equal(live[2].timestamp, got[2].timestamp)
    assert.matches("offset %d+: torn last record ignored %(last record runs past the end of the file%)",
      log:warning())
    -- a writer cuts it off and appends
    local q = M:query()
    assert(q:add "\\Processor Information(*)\\% User Time")
    local w = assert(perflib.log_writer(path))
    assert(w:write(assert(q:collect())))
    assert(w:close())
    got, log = read_all(path, { machine = M })
    assert.equal(3, #got)
    assert.is_nil(log:warning())
    assert.equal(5, log:info().records)    -- METADATA + 2 DATA, then the new session: METADATA + DATA
    os.remove(path)
    remove()
  end)

  it("never reads a wrong value when any byte is flipped: refused, torn, or the same", function()
    local path = tmpfile()
    local M, live, remove = cpu_log(path)
    local bytes = files.read(path)
    local want = {}
    for k = 2, 3 do want[k] = live[k]:values(live[k - 1], 1) end
    local flipped = path .. ".flip"
    local refused, same, torn = 0, 0, 0
    for i = 1, #bytes do
      local b = bytes:byte(i)
      local x = b < 128 and b + 128 or b - 128         -- the top bit (5.1 has no bit operators)
      files.write(flipped, bytes:sub(1, i - 1) .. string.char(x) .. bytes:sub(i + 1))
      local ok, got, log, code = pcall(read_all, flipped, { machine = M })
      assert.is_true(ok, got)                           -- never raises
      if not got then
        assert.equal(EINVAL, code)
        assert.matches("offset %d+: ", log)
        refused = refused + 1
      else
        if log:warning() then torn = torn + 1 else same = same + 1 end
        for k = 2, #got do assert.same(want[k], got[k]:values(got[k - 1], 1)) end
      end
    end
    assert.equal(#bytes, refused + same + torn)
    assert.truthy(refused > 0 and torn > 0)
    os.remove(flipped)
    os.remove(path)
    remove()
  end)

  it("refuses foreign files: empty, text, a JSON-lines recording, a short header", function()
    local path = tmpfile()
    local cases = {
      { "", "offset 0: empty file" },
      { "timestamp,value\n1,2\n", "offset 0: not a perflib binary log" },
      { '{"t":1795535397.5,"v":{"\\\\Memory\\\\Available Bytes":1}}\n', "offset 0: not a perflib binary log" },
      { "\137PLB\r\n\26\n\1\0", "offset 10: file header truncated" },
    }
    for _, c in ipairs(cases) do
      files.write(path, c[1])
      local it, msg, code = perflib.read_log(path)
      assert.is_nil(it)
      assert.equal(EINVAL, code)
      assert.truthy(msg:find(c[2], 1, true), msg)
      local w, wmsg, wcode = perflib.log_writer(path)
      if #c[1] == 0 then                                 -- an empty file becomes a log
        assert.is_not_nil(w, wmsg)
        w:close()
      else
        assert.is_nil(w)
        assert.equal(EINVAL, wcode)
        assert.truthy(wmsg:find(path, 1, true), wmsg)
      end
    end
    local it, msg, code = perflib.read_log(path .. ".missing")
    assert.is_nil(it)
    assert.equal(2, code)
    assert.matches("No such file", msg)
    os.remove(path)
  end)

  it("fails a write that does not fit with nil, message, errno; the file stays readable", function()
    local w, msg, code = perflib.log_writer "/dev/full"
    assert.is_nil(w)
    assert.equal(ENOSPC, code)
    assert.matches("/dev/full: No space left on device", msg)
    -- a child whose files may not pass 64 KiB (ulimit -f; SIGXFSZ ignored): EFBIG
    local path = tmpfile()
    local script = path .. ".lua"
    files.write(script, ([[
      package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
      package.cpath = "./build/?.so;" .. package.cpath
      local perflib = require "perflib"
      local q = perflib.machine { root = "spec/fixtures/basic" }:query()
      assert(q:add "\\Processor Information(*)\\*")
      local w = assert(perflib.log_writer(%q))
      local n = 0
      while true do
        local ok, msg, code = w:write(assert(q:collect()))
        if not ok then print(n, code, msg) break end
        n = n + 1
      end
      assert(w:close())
    ]]):format(path))
    local out = files.run("bash -c \"trap '' XFSZ; ulimit -f 64; lua5.4 " .. script .. "\"")
    local n, errno = out:match "^(%d+)\t(%d+)\t"
    assert.is_not_nil(n, out)
    assert.equal(27, tonumber(errno))                   -- EFBIG
    assert.truthy(out:find("File too large", 1, true), out)
    local size = #files.read(path)
    assert.truthy(size <= 65536)
    local got, log = read_all(path)
    assert.equal(tonumber(n), #got)
    assert.is_nil(log:warning())
    os.remove(script)
    os.remove(path)
  end)

  it("rotates to name_001.blg past max_bytes", function()
    local dir, remove = files.tempdir()
    local q = perflib.machine { root = "spec/fixtures/basic" }:query()
    assert(q:add "\\Processor Information(*)\\% User Time")
    -- a file of three samples (header, definitions, three DATA records; the
    -- layout is checked byte by byte in spec/c/test_blog.c), with 100 bytes
    -- to spare: a fourth DATA record (16 + 472 bytes) does not fit
    local probe = assert(perflib.log_writer(dir .. "/probe.blg"))
    for _ = 1, 3 do assert(probe:write(assert(q:collect()))) end
    local three = probe:size()
    assert(probe:close())
    local w = assert(perflib.log_writer(dir .. "/r.blg", { max_bytes = three + 100, sync_every = 2 }))
    for _ = 1, 9 do assert(w:write(assert(q:collect()))) end
    assert.equal(dir .. "/r_002.blg", w:path())
    assert.truthy(w:size() <= three + 100)
    assert.equal("perflib.LogWriter (" .. dir .. "/r_002.blg)", tostring(w))
    assert(w:close())
    local total = 0
    for _, name in ipairs { "r.blg", "r_001.blg", "r_002.blg" } do
      local got = read_all(dir .. "/" .. name)
      total = total + #got
    end
    assert.equal(9, total)
    -- by time: a sample 60 s or more after a file's first starts the next file
    local q2 = perflib.machine { root = "spec/fixtures/basic" }:query()
    assert(q2:add "\\Processor Information(*)\\% User Time")
    local tw = assert(perflib.log_writer(dir .. "/t.blg", { max_seconds = 1 }))
    assert(tw:write(assert(q2:collect())))
    assert(tw:write(assert(q2:collect())))              -- well within 1 s of the first
    assert.equal(dir .. "/t.blg", tw:path())
    perflib.sleep(1.05)
    assert(tw:write(assert(q2:collect())))              -- more than 1 s after it
    assert.equal(dir .. "/t_001.blg", tw:path())
    assert(tw:close())
    assert.equal(2, #read_all(dir .. "/t.blg"))
    assert.equal(1, #read_all(dir .. "/t_001.blg"))
    -- the three files as one log, in order
    local all = { dir .. "/r.blg", dir .. "/r_001.blg", dir .. "/r_002.blg" }
    local got, log = read_all(all)
    assert.equal(9, #got)
    for k = 2, 9 do assert.truthy(got[k].timestamp > got[k - 1].timestamp) end
    assert.equal(3, log:info().files)
    assert.equal(9, log:info().samples)
    assert.equal(12, log:info().records)                -- a METADATA record in each file
    assert.equal("perflib.LogReader (" .. all[1] .. " and 2 more)", tostring(log))
    assert.is_nil(log:warning())
    -- a torn tail in the second: its whole records, then the third's
    local bytes = files.read(all[2])
    files.write(all[2], bytes:sub(1, #bytes - 1))
    got, log = read_all(all)
    assert.equal(8, #got)
    assert.matches("^" .. all[2]:gsub("%p", "%%%0") .. ": offset %d+: torn last record ignored", log:warning())
    -- one that cannot be read fails the whole call, naming it
    local it, msg, code = perflib.read_log { all[1], dir .. "/r_009.blg" }
    assert.is_nil(it)
    assert.equal(2, code)
    assert.truthy(msg:find(dir .. "/r_009.blg", 1, true), msg)
    remove()
  end)

  it("raises on misuse, naming the argument", function()
    assert.has_error(function() return (perflib.log_writer()) end,
      "bad argument #1 to 'log_writer' (string expected, got no value)")
    assert.has_error(function() return (perflib.log_writer("x", { nope = 1 })) end)
    assert.error_matches(function() return (perflib.log_writer("x", { max_bytes = -1 })) end, "opts.max_bytes")
    assert.error_matches(function() return (perflib.read_log("x", { from = "soon" })) end, "opts.from must be a number")
    assert.error_matches(function() return (perflib.read_log()) end, "bad argument #1 to 'read_log'")
    assert.error_matches(function() return (perflib.read_log {}) end, "a path or a list of paths expected")
    assert.error_matches(function() return (perflib.read_log { "a", 5 }) end, "a list of paths must hold strings")
    local path = tmpfile()
    local w = assert(perflib.log_writer(path))
    assert.error_matches(function() return (w:write "not a sample") end, "bad argument #1")
    assert.is_true(w:close())
    assert.is_true(w:close())                           -- idempotent
    assert.equal("perflib.LogWriter (closed)", tostring(w))
    assert.error_matches(function() return (w:write(nil)) end, "closed log writer")
    os.remove(path)
  end)

  describe("perflua typeperf -f BIN", function()
    local cli = require "perflib.cli"
    local sink = dofile "spec/support/sink.lua"

    -- typeperf on the cpu tree: stat lines set before each collect (n = 1 is the
    -- collect before the first row, as typeperf does)
    local function typeperf(args, lines)
      local dir, remove, stat = cpu_tree()
      stat(lines[1][1], lines[1][2])
      local m = perflib.machine { root = dir, user_hz = 100 }
      local out, err = sink(), sink()
      local argv = { "typeperf" }
      for _, a in ipairs(args) do argv[#argv + 1] = a end
      local code = cli.main(argv, out, err, { machine = m, host = "fixhost", wait = function(n)
        if lines[n + 1] then stat(lines[n + 1][1], lines[n + 1][2]) end
        return true
      end })
      remove()                                          -- the samples read back need m's sets only
      return code, out:text(), err:text(), m
    end

    it("writes the collect before the first row and -sc samples to -o", function()
      local path = tmpfile()
      local code, out, err, m = typeperf({ "-f", "bin", "-o", path, "-sc", "2",
        "\\Processor Information(*)\\% User Time" }, {
        { "100 0 100 800 0 0 0 0 0 0", "200 0 100 700 0 0 0 0 0 0" },
        { "160 0 140 900 0 0 0 0 0 0", "300 0 200 700 0 0 0 0 0 0" },
        { "160 0 140 1100 0 0 0 0 0 0", "400 0 200 800 0 0 0 0 0 0" },
      })
      assert.equal(0, code, err)
      assert.equal("", out)
      assert.equal("", err)
      local got = read_all(path, { machine = m })
      assert.equal(3, #got)
      -- as in the first test: +60 and +100 user ticks of 200, then +0 and +100
      local u = got[2]:values(got[1], 1)["% User Time"]
      assert.near(30, u["0,0"], 1e-9)
      assert.near(50, u["0,1"], 1e-9)
      assert.near(40, u["0,_Total"], 1e-9)
      u = got[3]:values(got[2], 1)["% User Time"]
      assert.near(0, u["0,0"], 1e-9)
      assert.near(25, u["0,_Total"], 1e-9)
      -- the file exists: refused without -y (exit 2), replaced with it
      local lines = { { "1 0 1 8 0 0 0 0 0 0", "1 0 1 8 0 0 0 0 0 0" } }
      code, out, err = typeperf({ "-f", "BIN", "-o", path, "-sc", "1", "\\Processor Information(*)\\% User Time" },
        lines)
      assert.equal(2, code)
      assert.equal("", out)
      assert.equal("perflua typeperf: " .. path .. " exists: not overwritten (-y replaces it)\n", err)
      code = typeperf({ "-f", "BIN", "-y", "-o", path, "-sc", "1", "\\Processor Information(*)\\% User Time" },
        lines)
      assert.equal(0, code)
      assert.equal(2, #read_all(path, { machine = m }))
      os.remove(path)
    end)

    it("refuses standard output (no -o) and a file it cannot write, with exit 2", function()
      local lines = { { "1 0 1 8 0 0 0 0 0 0", "1 0 1 8 0 0 0 0 0 0" } }
      local code, out, err = typeperf({ "-f", "BIN", "-sc", "1", "\\Processor Information(*)\\% User Time" },
        lines)
      assert.equal(2, code)
      assert.equal("", out)
      assert.equal("perflua typeperf: -f BIN needs -o FILE: a binary log is not written to standard output\n", err)
      code, out, err = typeperf({ "-f", "BIN", "-o", "/nonexistent/dir/x.blg", "-sc", "1",
        "\\Processor Information(*)\\% User Time" }, lines)
      assert.equal(2, code)
      assert.equal("", out)
      assert.equal("perflua typeperf: /nonexistent/dir/x.blg: No such file or directory\n", err)
    end)

    local e2e = io.open "build/perflua" and it or function(desc) pending(desc .. " (build/perflua not built)") end
    e2e("runs in the built binary: a log of this machine read back", function()
      local path = tmpfile()
      local out, code = files.run("build/perflua typeperf -f BIN -o " .. path .. " -sc 2 -si 0.1 '\\System\\Processes'")
      assert.equal(0, code, out)
      local got, log = read_all(path)
      assert.equal(3, #got)
      assert.equal(4, log:info().records)
      local v = got[3]:values(got[2], 1).Processes[""]
      assert.truthy(v > 0)
      os.remove(path)
    end)
  end)
end)
