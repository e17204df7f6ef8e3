-- perflua typeperf (perflib.typeperf): typeperf's CSV, TSV and JSON lines of a
-- fixture machine whose files change between collects, so every value is worked
-- out by hand from the fixture files (the arithmetic is in the comments); -q and
-- -qx; option errors; -o and -y; then the built perflua end to end on this machine.
local tp = require "perflib.typeperf"
local cli = require "perflib.cli"
local perflib = require "perflib"
local files = dofile "spec/support/files.lua"

local FX = "spec/fixtures/"
local PERFLUA = "build/perflua"
local BUILT = io.open(PERFLUA) ~= nil
local e2e = BUILT and it or function(desc) pending(desc .. " (build/perflua not built)") end

local sink = dofile "spec/support/sink.lua"

-- A copy of the basic tree, the function that puts one of its files, and the cleanup.
local function tree()
  local dir, cleanup = files.tempdir()
  assert(os.execute(("cp -r %sbasic/. %s"):format(FX, dir)))
  return dir, function(rel, text) files.write(dir .. "/" .. rel, text) end, cleanup
end

-- The stat lines of basic2 after its cpu lines.
local STAT2 = files.read(FX .. "basic2/proc/stat")
local STAT_REST = STAT2:gsub("^cpu .-\ncpu0 .-\ncpu1 .-\n", "")
local MEM2 = files.read(FX .. "basic2/proc/meminfo")

-- The tree before row n (the collect before row 1 reads basic itself):
-- 1: basic2.  basic -> basic2, cpu0: 1000 ticks, idle +500, iowait +20:
--    100 * (1000 - 520) / 1000 = 48; cpu1: idle +350, iowait +10: 100 * (1000 - 360) / 1000 = 64;
--    MemAvailable 23745100 kB * 1024 = 24314982400 bytes.
-- 2: cpu1 gone (offline, no stat line); cpu0 user +300, system +100, idle +100:
--    100 * (500 - 100) / 500 = 80.
-- 3: cpu1 back (a new instance: first_sample); cpu0 user +50, idle +50: 100 * 50 / 100 = 50;
--    MemAvailable 1000000 kB * 1024 = 1024000000 bytes.
local function states(put)
  return {
    function() put("proc/stat", STAT2); put("proc/meminfo", MEM2) end,
    function()
      put("proc/stat", "cpu  14773 11 10808 114536 603 0 202 46 0 0\ncpu0 5156 0 5496 59811 121 0 78 27 0 0\n"
        .. STAT_REST)
      put("sys/devices/system/cpu/online", "0\n")
    end,
    function()
      put("proc/stat", "cpu  14823 11 10808 114586 603 0 202 46 0 0\ncpu0 5206 0 5496 59861 121 0 78 27 0 0\n"
        .. "cpu1 9617 11 5312 54725 482 0 123 19 0 0\n" .. STAT_REST)
      put("sys/devices/system/cpu/online", "0-1\n")
      put("proc/meminfo", (MEM2:gsub("MemAvailable: +%d+", "MemAvailable:   1000000")))
    end,
  }
end

local PATHS = { "\\Processor Information(0,?)\\% Busy Time", "\\Processor Information(7,7)\\% Busy Time",
                "\\Nope\\x", "\\Memory\\Available Bytes" }

-- Runs `perflua typeperf ARGS` on a fresh copy of basic through perflib.cli; status, stdout, stderr.
local function typeperf(args)
  local dir, put, cleanup = tree()
  local out, err = sink(), sink()
  local step = states(put)
  local m = perflib.machine { root = dir }
  local argv = { "typeperf" }
  for _, a in ipairs(args) do argv[#argv + 1] = a end
  local code = cli.main(argv, out, err, { machine = m, host = "fixhost",
    wait = function(n) if step[n] then step[n]() end return true end })
  cleanup()
  return code, out:text(), err:text()
end

local function args_with(paths, ...)
  local a = { ... }
  for _, p in ipairs(paths) do a[#a + 1] = p end
  return a
end

-- typeperf's row stamp, and the zone and bias (UTC = local + bias) this process runs in.
local STAMP = '"%d%d/%d%d/%d%d%d%d %d%d:%d%d:%d%d%.%d%d%d"'
local function zone()
  local sign, hh, mm = os.date("%z"):match("^([+-])(%d%d)(%d%d)$")
  local east = tonumber(hh) * 60 + tonumber(mm)
  return os.date("%Z"), sign == "-" and east or -east
end

describe("perflua typeperf", function()
  it("writes typeperf's CSV: the PDH-CSV header, quoted values, \" \" where a value is missing", function()
    local code, out, err = typeperf(args_with(PATHS, "-sc", "3"))
    assert.equals(0, code, err)
    -- a path that names nothing is reported and left out; the others are written
    assert.equals("perflua typeperf: \\Nope\\x: no counterset 'Nope'\n", err)
    local lines = {}
    for l in out:gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
    assert.equals(4, #lines)
    local z, bias = zone()
    assert.equals(('"(PDH-CSV 4.0) (%s)(%d)",'):format(z, bias)
      .. '"\\\\fixhost\\Processor Information(0,0)\\% Busy Time",'
      .. '"\\\\fixhost\\Processor Information(0,1)\\% Busy Time",'
      .. '"\\\\fixhost\\Processor Information(7,7)\\% Busy Time",'
      .. '"\\\\fixhost\\Memory\\Available Bytes"', lines[1])
    for i = 2, 4 do assert.matches("^" .. STAMP .. ",", lines[i]) end
    local rows = {}
    for i = 2, 4 do rows[i - 1] = lines[i]:gsub("^" .. STAMP .. ",", "") end
    -- (7,7) never exists: no_instance, " " in every row
    assert.equals('"48.000000","64.000000"," ","24314982400.000000"', rows[1])
    assert.equals('"80.000000"," "," ","24314982400.000000"', rows[2])      -- cpu1 gone: no_instance
    assert.equals('"50.000000"," "," ","1024000000.000000"', rows[3])       -- cpu1 back: first_sample
    assert.equals(os.date("%Y"), lines[2]:match('^"%d%d/%d%d/(%d%d%d%d)'))
  end)

  it("keeps the columns of the first collect: an instance that appears later gets none", function()
    local dir, put, cleanup = tree()
    local m = perflib.machine { root = dir }
    local out, err = sink(), sink()
    local code = tp.run({ counters = { "\\Processor Information(0,?)\\% Busy Time" }, count = 1 }, out, err,
      { machine = m, host = "fixhost", wait = function()
        -- basic2's ticks, and a cpu2 that was not there: 600 ticks, 150 idle
        put("proc/stat", STAT2:gsub("\nintr", "\ncpu2 300 0 150 150 0 0 0 0 0 0\nintr"))
        put("sys/devices/system/cpu/online", "0-2\n")
        return true
      end })
    assert.equals(0, code, err:text())
    -- cpu2 is there now: a new query shows it as the third instance
    local q = m:query()
    q:add "\\Processor Information(0,?)\\% Busy Time"
    local names = {}
    for inst in q:collect():formatted() do names[#names + 1] = inst end
    cleanup()
    assert.same({ "0,0", "0,1", "0,2" }, names)
    local head, row = out:text():match("^([^\n]*)\n([^\n]*)\n$")
    assert.matches('^"%(PDH%-CSV 4%.0%) [^,]*,"\\\\fixhost\\Processor Information%(0,0%)\\%% Busy Time",'
      .. '"\\\\fixhost\\Processor Information%(0,1%)\\%% Busy Time"$', head)
    assert.matches("^" .. STAMP .. ',"48%.000000","64%.000000"$', row)
  end)

  it("writes TSV with the PDH-TSV header and tabs between the quoted fields", function()
    local code, out, err = typeperf { "-sc", "1", "-f", "tsv", "\\Processor Information(0,0)\\% Busy Time",
      "\\Memory\\Available Bytes" }
    assert.equals(0, code, err)
    local z, bias = zone()
    local head, row = out:match("^([^\n]*)\n([^\n]*)\n$")
    assert.equals(('"(PDH-TSV 4.0) (%s)(%d)"\t"\\\\fixhost\\Processor Information(0,0)\\%% Busy Time"\t'
      .. '"\\\\fixhost\\Memory\\Available Bytes"'):format(z, bias), head)
    assert.matches("^" .. STAMP .. '\t"48.000000"\t"24314982400.000000"$', row)
  end)

  it("writes JSON lines with the status of every missing value (no_instance, first_sample)", function()
    local code, out, err = typeperf(args_with(PATHS, "-sc", "3", "-f", "JSON"))
    assert.equals(0, code, err)
    local P0 = '"\\\\\\\\fixhost\\\\Processor Information(0,0)\\\\% Busy Time"'
    local P1 = '"\\\\\\\\fixhost\\\\Processor Information(0,1)\\\\% Busy Time"'
    local P7 = '"\\\\\\\\fixhost\\\\Processor Information(7,7)\\\\% Busy Time"'
    local PM = '"\\\\\\\\fixhost\\\\Memory\\\\Available Bytes"'
    local want = {
      ("%s:48,%s:64,%s:null,%s:24314982400},\"statuses\":{%s:\"no_instance\"}}"):format(P0, P1, P7, PM, P7),
      ("%s:80,%s:null,%s:null,%s:24314982400},\"statuses\":{%s:\"no_instance\",%s:\"no_instance\"}}")
        :format(P0, P1, P7, PM, P1, P7),
      ("%s:50,%s:null,%s:null,%s:1024000000},\"statuses\":{%s:\"first_sample\",%s:\"no_instance\"}}")
        :format(P0, P1, P7, PM, P1, P7),
    }
    local n = 0
    for line in out:gmatch("([^\n]*)\n") do
      n = n + 1
      local iso, sec, ms, rest = line:match('^{"time":"(%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%d%.%d%d%dZ)",'
        .. '"timestamp":(%d+)%.(%d%d%d),"values":{(.*)$')
      assert.is_truthy(iso, line)
      -- the two stamps are one instant: UTC date and time, then the milliseconds
      assert.equals(os.date("!%Y-%m-%dT%H:%M:%S", tonumber(sec)) .. "." .. ms .. "Z", iso)
      assert.equals(want[n], rest)
    end
    assert.equals(3, n)
  end)

  it("gives a wildcard counter one column per counter, each instance's counters together", function()
    local code, out, err = typeperf { "-sc", "1", "\\Processor Information(0,?)\\*" }
    assert.equals(0, code, err)
    local head = out:match("^[^\n]*")
    local cols = {}
    for c in head:gmatch('"([^"]*)"') do cols[#cols + 1] = c end
    -- 46 counters, 5 of them hidden bases: 41 a CPU (% Busy Time the 31st), 2 CPUs,
    -- and the header's first field
    assert.equals(1 + 2 * 41, #cols)
    assert.equals("\\\\fixhost\\Processor Information(0,0)\\% Processor Time", cols[2])
    assert.equals("\\\\fixhost\\Processor Information(0,0)\\% Busy Time", cols[1 + 31])
    assert.equals("\\\\fixhost\\Processor Information(0,1)\\% Processor Time", cols[1 + 41 + 1])
    local row = out:match("\n([^\n]*)\n$")
    local vals = {}
    for v in row:gmatch('"([^"]*)"') do vals[#vals + 1] = v end
    assert.equals(#cols, #vals)
    assert.equals("48.000000", vals[1 + 31])
    assert.equals("64.000000", vals[1 + 41 + 31])
  end)

  it("reads counter paths from -cf FILE, skipping blank and # lines", function()
    local dir, cleanup = files.tempdir()
    files.write(dir .. "/c.txt",
      "# counters\n\n  \\Memory\\Available Bytes  \n\\Processor Information(0,1)\\% Busy Time\n")
    local code, out, err = typeperf { "-cf", dir .. "/c.txt", "-sc", "1" }
    cleanup()
    assert.equals(0, code, err)
    assert.matches('"\\\\fixhost\\Memory\\Available Bytes","\\\\fixhost\\Processor Information(0,1)\\% Busy Time"\n',
      out, 1, true)
    assert.matches(',"24314982400.000000","64.000000"\n$', out)
  end)

  describe("-o and -y", function()
    it("writes -o FILE, refuses an existing one without -y (exit 2, untouched), replaces it with -y", function()
      local dir, cleanup = files.tempdir()
      local f = dir .. "/out.csv"
      local code, out, err = typeperf { "-o", f, "-sc", "1", "\\Memory\\Available Bytes" }
      assert.equals(0, code, err)
      assert.equals("", out)
      assert.matches('^"%(PDH%-CSV 4%.0%) [^\n]*\n' .. STAMP .. ',"24314982400%.000000"\n$', files.read(f))
      files.write(f, "keep me\n")
      code, out, err = typeperf { "-o", f, "-sc", "1", "\\Memory\\Available Bytes" }
      assert.equals(2, code)
      assert.equals("", out)
      assert.equals("perflua typeperf: " .. f .. " exists: not overwritten (-y replaces it)\n", err)
      assert.equals("keep me\n", files.read(f))
      code, out, err = typeperf { "-o", f, "-y", "-sc", "1", "-f", "JSON", "\\Memory\\Available Bytes" }
      assert.equals("", out)
      assert.equals(0, code, err)
      assert.matches(':24314982400},"statuses":{}}\n$', files.read(f))
      code, out, err = typeperf { "-o", dir .. "/no/such/dir.csv", "-sc", "1", "\\Memory\\Available Bytes" }
      assert.equals("", out)
      assert.equals(2, code)
      assert.matches("^perflua typeperf: cannot write " .. dir:gsub("%p", "%%%0") .. "/no/such/dir%.csv: ", err)
      cleanup()
    end)
  end)

  it("stops with exit 1 and says why when the output cannot take the text (a full disk)", function()
    local code, out, err = typeperf { "-o", "/dev/full", "-y", "-sc", "3", "\\Memory\\Available Bytes" }
    assert.equals(1, code)
    assert.equals("", out)
    assert.equals("perflua typeperf: write: No space left on device\n", err)
  end)

  describe("-q and -qx", function()
    it("-q SET lists its counters, (*) for a set with instances, no hidden base", function()
      local code, out, err = typeperf { "-q", "Processor Information" }
      assert.equals(0, code, err)
      local lines = {}
      for l in out:gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
      assert.equals(41, #lines)                            -- 46 counters less 5 hidden bases
      assert.equals("\\Processor Information(*)\\% Processor Time", lines[1])
      assert.equals("\\Processor Information(*)\\% Busy Time", lines[31])
      assert.equals("\\Processor Information(*)\\% Package Throttled", lines[41])
      assert.is_nil(out:find("Base", 1, true))
      code, out = typeperf { "-q", "memory" }               -- names as PDH compares them
      assert.equals(0, code)
      assert.equals("\\Memory\\Available Bytes\n\\Memory\\Available KBytes\n", out:sub(1, 49))
    end)

    it("-qx SET lists every instance's counters, instance by instance", function()
      local code, out, err = typeperf { "-qx", "Processor Information" }
      assert.equals(0, code, err)
      local lines = {}
      for l in out:gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
      assert.equals(4 * 41, #lines)                         -- 0,0 0,1 0,_Total _Total
      assert.equals("\\Processor Information(0,0)\\% Processor Time", lines[1])
      assert.equals("\\Processor Information(0,0)\\% Busy Time", lines[31])
      assert.equals("\\Processor Information(0,1)\\% Processor Time", lines[42])
      assert.equals("\\Processor Information(_Total)\\% Busy Time", lines[3 * 41 + 31])
      code, out = typeperf { "-qx", "Memory" }
      assert.equals(0, code)
      assert.equals("\\Memory\\Available Bytes\n", out:sub(1, 24))
    end)

    it("-q with no set lists every set; its lines are paths typeperf takes back", function()
      local code, out = typeperf { "-q" }
      assert.equals(0, code)
      local n, sets = 0, {}
      for l in out:gmatch("([^\n]*)\n") do
        n = n + 1
        sets[l:match("^\\([^\\(]+)")] = true
      end
      local want = 0
      for cs in perflib.countersets() do
        for _, c in ipairs(cs.counters) do if not c.hidden then want = want + 1 end end
        assert.is_true(sets[cs.name], cs.name)
      end
      assert.equals(want, n)
      local line = out:match("\\Processor Information%(%*%)\\Interrupts/sec")
      assert.is_truthy(perflib.query():add(line))
    end)

    it("writes the listing to -o FILE, which -y lets it replace", function()
      local dir, cleanup = files.tempdir()
      local f = dir .. "/counters.txt"
      local code, out, err = typeperf { "-q", "Memory", "-o", f }
      assert.equals(0, code, err)
      assert.equals("", out)
      assert.equals("\\Memory\\Available Bytes\n", files.read(f):match("^[^\n]*\n"))
      code, out, err = typeperf { "-qx", "Memory", "-o", f }
      assert.equals(2, code)
      assert.equals("", out)
      assert.equals("perflua typeperf: " .. f .. " exists: not overwritten (-y replaces it)\n", err)
      code, out, err = typeperf { "-qx", "Processor Information", "-o", f, "-y" }
      assert.equals("", out)
      assert.equals(0, code, err)
      assert.equals("\\Processor Information(0,0)\\% Processor Time\n", files.read(f):match("^[^\n]*\n"))
      -- the listing is a counter file: -cf takes it back, one column per line
      code, out, err = typeperf { "-cf", f, "-sc", "1" }
      cleanup()
      assert.equals(0, code, err)
      local n = 0
      for _ in out:match("^[^\n]*"):gmatch('","') do n = n + 1 end
      assert.equals(4 * 41, n)                              -- 164 columns after the zone's field
    end)

    it("refuses an unknown set, counter paths with -q, and -q with -qx (exit 2)", function()
      local code, out, err = typeperf { "-q", "Nope" }
      assert.equals(2, code)
      assert.equals("", out)
      assert.equals("perflua typeperf: -q Nope: no counterset 'Nope'\n", err)
      code, out, err = typeperf { "-qx", "Nope" }
      assert.equals("", out)
      assert.equals(2, code)
      assert.equals("perflua typeperf: -qx Nope: no counterset 'Nope'\n", err)
      code, out, err = typeperf { "-q", "Memory", "\\Memory\\Available Bytes" }
      assert.equals("", out)
      assert.equals(2, code)
      assert.equals("perflua typeperf: -q and -qx list counters: no counter paths with them\n", err)
      code, out, err = typeperf { "-q", "-qx" }
      assert.equals("", out)
      assert.equals(2, code)
      assert.equals("perflua typeperf: -q and -qx do not mix\n", err)
    end)
  end)

  describe("bad input", function()
    it("converts -si [[hh:]mm:]ss, -sc and -f, naming the option when they are wrong", function()
      assert.equals(1, tp.interval "1")
      assert.equals(0.5, tp.interval "0.5")
      assert.equals(90, tp.interval "90")
      assert.equals(1 * 60 + 30, tp.interval "1:30")
      assert.equals(1 * 3600 + 2 * 60 + 3, tp.interval "01:02:03")
      for _, bad in ipairs { "0", "0:00", "-1", "soon", "1:60", "1:2:3:4", "", "1.5:00", ":5", "1e3" } do
        local v, msg = tp.interval(bad)
        assert.is_nil(v, bad)
        assert.equals("-si needs an interval [[hh:]mm:]ss greater than 0", msg)
      end
      assert.equals(3, tp.count "3")
      for _, bad in ipairs { "0", "-3", "1.5", "x", "" } do
        local v, msg = tp.count(bad)
        assert.is_nil(v, bad)
        assert.equals("-sc needs a whole number of samples, at least 1", msg)
      end
      assert.equals("CSV", tp.format "csv")
      assert.equals("JSON", tp.format "Json")
      assert.same({ nil, "-f needs CSV, TSV, JSON, BIN or SQL" }, { tp.format "xml" })
    end)

    it("exits 2 with a message naming the option on a bad command line", function()
      local cases = {
        { { "-sc", "0" }, "perflua typeperf: -sc needs a whole number of samples, at least 1" },
        { { "-sc", "-3" }, "perflua typeperf: -sc needs a whole number of samples, at least 1" },
        { { "-sc", "many" }, "perflua typeperf: -sc needs a whole number of samples, at least 1" },
        { { "-si", "soon" }, "perflua typeperf: -si needs an interval [[hh:]mm:]ss greater than 0" },
        { { "-si", "-1" }, "perflua typeperf: -si needs an interval [[hh:]mm:]ss greater than 0" },
        { { "-si", "0" }, "perflua typeperf: -si needs an interval [[hh:]mm:]ss greater than 0" },
        { { "-f", "XML" }, "perflua typeperf: -f needs CSV, TSV, JSON, BIN or SQL" },
        { { "-sc" }, "perflua typeperf: option '-sc' requires an argument" },
        { { "-zz" }, "perflua typeperf: unexpected -z: no such option" },
      }
      for _, case in ipairs(cases) do
        local argv = { "\\Memory\\Available Bytes" }
        for _, a in ipairs(case[1]) do argv[#argv + 1] = a end
        local code, out, err = typeperf(argv)
        assert.equals(2, code, table.concat(case[1], " "))
        assert.equals("", out)
        assert.equals(case[2], err:match("^[^\n]*"), table.concat(case[1], " "))
      end
    end)

    it("refuses -f SQL and -f BIN without -o (exit 2, nothing written)", function()
      local code, out, err = typeperf { "-f", "sql", "-sc", "1", "\\Memory\\Available Bytes" }
      assert.equals(2, code)
      assert.equals("", out)
      assert.equals("perflua typeperf: -f SQL needs -o FILE: an SQLite log is not written to standard output\n",
        err)
      code, out, err = typeperf { "-f", "BIN", "\\Memory\\Available Bytes" }
      assert.equals(2, code)
      assert.equals("", out)
      assert.equals("perflua typeperf: -f BIN needs -o FILE: a binary log is not written to standard output\n", err)
    end)

    it("exits 2 when no path is valid, none is given, or -cf cannot be read", function()
      local code, out, err = typeperf { "\\Nope\\x", "\\Memory\\Nope", "Memory" }
      assert.equals(2, code)
      assert.equals("", out)
      assert.equals("perflua typeperf: \\Nope\\x: no counterset 'Nope'\n"
        .. "perflua typeperf: \\Memory\\Nope: no counter 'Nope' in 'Memory'\n"
        .. "perflua typeperf: Memory: bad counter path 'Memory': expected \\Counterset(instance)\\Counter\n"
        .. "perflua typeperf: no valid counters\n", err)
      code, out, err = typeperf {}
      assert.equals(2, code)
      assert.equals("", out)
      assert.matches("^usage: perflua typeperf ", err)
      code, out, err = typeperf { "-cf", "/nonexistent/c.txt" }
      assert.equals("", out)
      assert.equals(2, code)
      assert.matches("^perflua typeperf: %-cf /nonexistent/c%.txt: cannot read: ", err)
    end)

    it("a wildcard that matches no instance gives no column and says so", function()
      local code, out, err = typeperf { "-sc", "1", "\\Battery(*)\\% Charge", "\\Memory\\Available Bytes" }
      assert.equals(0, code, err)
      assert.equals("perflua typeperf: \\Battery(*)\\% Charge: no instance or counter matches (valid)\n", err)
      assert.matches('^"%(PDH%-CSV 4%.0%) %([^)]*%)%(%-?%d+%)","\\\\fixhost\\Memory\\Available Bytes"\n', out)
    end)
  end)
end)

describe("perflua typeperf, the built binary on this machine", function()
  local function sh(cmd) return files.sh(cmd .. " 2>&1; echo \"exit $?\"") end

  e2e("writes the header with the zone TZ names and this host, and MemTotal in bytes", function()
    local out = sh("TZ=XYZ-2 " .. PERFLUA .. " typeperf -sc 1 -si 0.2 '\\Memory\\Total Bytes'")
    local host = files.read("/proc/sys/kernel/hostname"):match("[^\n]+")
    -- XYZ-2 is 2 hours east of UTC: UTC = local - 120 minutes
    local head, row = out:match("^([^\n]*)\n([^\n]*)\nexit 0\n$")
    assert.equals('"(PDH-CSV 4.0) (XYZ)(-120)","\\\\' .. host .. '\\Memory\\Total Bytes"', head, out)
    local kb = tonumber(files.read("/proc/meminfo"):match("MemTotal:%s+(%d+) kB"))
    assert.equals(("%.6f"):format(kb * 1024), row:match('^' .. STAMP .. ',"([^"]+)"$'))
    -- the stamp is local time in that zone: two hours after UTC
    local hh = tonumber(row:match('^"%d%d/%d%d/%d%d%d%d (%d%d)'))
    assert.is_true(hh == (tonumber(os.date("!%H")) + 2) % 24 or hh == (tonumber(os.date("!%H")) + 3) % 24)
  end)

  e2e("refuses -o over a file without -y, and -f SQL without -o, with exit 2", function()
    local dir, cleanup = files.tempdir()
    files.write(dir .. "/x.csv", "old\n")
    local out = sh(PERFLUA .. " typeperf -o " .. dir .. "/x.csv -sc 1 '\\Memory\\Total Bytes'")
    assert.equals("perflua typeperf: " .. dir .. "/x.csv exists: not overwritten (-y replaces it)\nexit 2\n", out)
    out = sh(PERFLUA .. " typeperf -o " .. dir .. "/x.csv -y -sc 2 -si 0.1 -f tsv '\\System\\Processes'")
    assert.equals("exit 0\n", out)
    local text = files.read(dir .. "/x.csv")
    assert.matches('^"%(PDH%-TSV 4%.0%) [^\n]*\n' .. STAMP .. '\t"%d+%.000000"\n' .. STAMP .. '\t"%d+%.000000"\n$',
      text)
    out = sh(PERFLUA .. " typeperf -f SQL '\\System\\Processes'")
    assert.equals("perflua typeperf: -f SQL needs -o FILE: an SQLite log is not written to standard output\n"
      .. "exit 2\n", out)
    cleanup()
  end)

  e2e("without -sc it runs until INT, which ends the file after a whole row (exit 0)", function()
    local dir, cleanup = files.tempdir()
    local out = sh(PERFLUA .. " typeperf -si 0.2 -o " .. dir .. "/i.csv '\\System\\Processes' & pid=$!; "
      .. "sleep 1; kill -INT $pid; wait $pid")
    assert.equals("exit 0\n", out)
    local text = files.read(dir .. "/i.csv")
    cleanup()
    local rows = 0
    for line in text:gmatch("([^\n]*)\n") do
      rows = rows + 1
      if rows > 1 then assert.matches("^" .. STAMP .. ',"%d+%.000000"$', line) end
    end
    assert.is_true(rows >= 3, text)                 -- the header and about 5 rows in 1 s at 0.2 s
    assert.equals("\n", text:sub(-1))
  end)

  e2e("-qx lists this machine's instances; every line is a path it takes back", function()
    local out = sh(PERFLUA .. " typeperf -qx 'Processor Information'")
    assert.matches("\\Processor Information%(_Total%)\\%% Processor Time\n", out)
    local first = out:match("^[^\n]+")
    out = sh(PERFLUA .. " typeperf -sc 1 -si 0.1 '" .. first .. "'")
    assert.matches("^[^\n]*\n" .. STAMP .. ',"%d+%.%d%d%d%d%d%d"\nexit 0\n$', out)
  end)
end)
