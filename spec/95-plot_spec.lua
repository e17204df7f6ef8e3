-- perflua plot (perflib.plot): a hand-written recording and a hand-written
-- typeperf CSV drawn by the real gnuplot. The data file's every number is
-- worked out by hand (Unix time, local time in the zone TZ gives, value); the
-- PNG's size is read from its IHDR chunk; the SVG holds the legend names and
-- the unit labels; the alert bands of a rules file sit where the replay puts
-- the transitions. Then bad input: foreign, empty and header-only files, a
-- filter that matches nothing, bad -o, gnuplot missing, failing or hanging,
-- and instance names that gnuplot must show as they are.
local plot = require "perflib.plot"
local files = dofile "spec/support/files.lua"

local PERFLUA = "build/perflua"
local BUILT = io.open(PERFLUA) ~= nil
local HAS_GNUPLOT = os.execute("command -v gnuplot >/dev/null 2>&1") == true
local e2e = (BUILT and HAS_GNUPLOT) and it
  or function(desc) pending(desc .. " (needs build/perflua and gnuplot: make all, apt-get install gnuplot-nox)") end

local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- A zone 2 hours east of UTC (POSIX TZ: the sign is west-positive): local = Unix time + 7200.
local TZ = "XXX-02"

-- perflua plot ARGS in that zone: output (stdout and stderr) and exit status.
local function perflua(args, env)
  local words = {}
  for i, a in ipairs(args) do words[i] = q(a) end
  return files.run(("env TZ=%s %s %s %s"):format(TZ, env or "", q(files.cwd() .. "/" .. PERFLUA),
    table.concat(words, " ")))
end

local CPU = [[\\Processor Information(*)\\% Processor Time]]
-- 4 samples 10 s apart from 1718000000.25 (2024-06-10 06:13:20.25 UTC); 0,1 has no value at the second.
local REC = table.concat({
  '{"format":"perflib-recording","version":1,"interval":10,"sources":[{"path":"' .. CPU .. '"},'
    .. '{"path":"\\\\Memory\\\\Available Bytes"}]}',
  '{"t":0,"ts":1718000000.25,"d":[{"i":["0,0","0,1"],"v":[10.5,20]},{"i":[""],"v":[1000000]}]}',
  '{"t":10,"ts":1718000010.25,"d":[{"i":["0,0","0,1"],"v":[12.5,null]},{"i":[""],"v":[1500000]}]}',
  '{"t":20,"ts":1718000020.25,"d":[{"i":["0,0","0,1"],"v":[30,25]},{"i":[""],"v":[1200000]}]}',
  '{"t":30,"ts":1718000030.25,"d":[{"i":["0,0","0,1"],"v":[40,22.5]},{"i":[""],"v":[1100000]}]}',
}, "\n") .. "\n"

-- Each line: Unix time, local time (+7200), value; NaN where 0,1 had null.
local REC_DATA = [[
# '\Processor Information(0,0)\% Processor Time'
1718000000.25 1718007200.25 10.5
1718000010.25 1718007210.25 12.5
1718000020.25 1718007220.25 30
1718000030.25 1718007230.25 40


# '\Processor Information(0,1)\% Processor Time'
1718000000.25 1718007200.25 20
1718000010.25 1718007210.25 NaN
1718000020.25 1718007220.25 25
1718000030.25 1718007230.25 22.5


# '\Memory\Available Bytes'
1718000000.25 1718007200.25 1000000
1718000010.25 1718007210.25 1500000
1718000020.25 1718007220.25 1200000
1718000030.25 1718007230.25 1100000
]]

-- The same instant in a typeperf CSV written in CET (bias -60: UTC = local - 60 min):
-- 06/10/2024 07:13:20.250 CET is 06:13:20.250 UTC, Unix 1718000000.25.
local CSV = table.concat({
  '"(PDH-CSV 4.0) (CET)(-60)","\\\\box\\Processor Information(_Total)\\% Processor Time",'
    .. '"\\\\box\\Memory\\Available Bytes"',
  '"06/10/2024 07:13:20.250","12.500000","24314982400.000000"',
  '"06/10/2024 07:13:21.250"," ","24314986496.000000"',
  '"06/10/2024 07:13:22.750","50.000000","24314990592.000000"',
}, "\r\n") .. "\r\n"

local CSV_DATA = [[
# '\Processor Information(_Total)\% Processor Time'
1718000000.25 1718007200.25 12.5
1718000001.25 1718007201.25 NaN
1718000002.75 1718007202.75 50


# '\Memory\Available Bytes'
1718000000.25 1718007200.25 24314982400
1718000001.25 1718007201.25 24314986496
1718000002.75 1718007202.75 24314990592
]]

-- The width and height of a PNG, from its IHDR chunk (big-endian, bytes 17-24).
local function png_size(path)
  local s = files.read(path)
  assert.equals("\137PNG\r\n\26\n", s:sub(1, 8))
  assert.equals("IHDR", s:sub(13, 16))
  return string.unpack(">I4I4", s, 17)
end

-- Asserts that text holds each of the strings, as they are.
local function holds(text, list)
  for _, want in ipairs(list) do assert.truthy(text:find(want, 1, true), want) end
end

local sink = dofile "spec/support/sink.lua"   -- for the commands' out and err

describe("perflua plot", function()
  local dir, cleanup
  before_each(function()
    dir, cleanup = files.tempdir()
    files.write(dir .. "/cpu.rec", REC)
    files.write(dir .. "/out.csv", CSV)
  end)
  after_each(function() cleanup() end)

  e2e("draws a recording as a PNG of the asked size whose data file holds the recorded points", function()
    local out, code = perflua { "plot", dir .. "/cpu.rec", "-o", dir .. "/c.png", "--size", "640x480",
                                "--keep", dir .. "/k" }
    assert.equals(0, code, out)
    assert.equals(dir .. "/c.png: 3 series in 2 panels\n", out)
    local w, h = png_size(dir .. "/c.png")
    assert.equals(640, w)
    assert.equals(480, h)
    assert.equals(REC_DATA, files.read(dir .. "/k/plot.dat"))
    local gp = files.read(dir .. "/k/plot.gp")
    -- one panel per unit: percent, then bytes shown in thousands (1500000 / 1000 = 1500 < 10^4)
    -- the time axis: 1718007200.25 .. 1718007230.25 local seconds; 2024-06-10 in UTC+02:00
    holds(gp, { "set ylabel 'percent'\n", "set ylabel 'bytes (×1e3)'\n", "index 2 using 2:($3/1000)",
                "set xrange [1718007200.25:1718007230.25]\n", "set xlabel 'local time, 2024-06-10 (UTC+02:00)'\n",
                "noenhanced" })
  end)

  e2e("draws an SVG whose text holds the legend names and the unit labels", function()
    local out, code = perflua { "plot", dir .. "/cpu.rec", "-o", dir .. "/c.svg", "--title", "CPU <& memory>" }
    assert.equals(0, code, out)
    local svg = files.read(dir .. "/c.svg")
    assert.truthy(svg:find("^<%?xml"))
    holds(svg, { "<text>0,0</text>", "<text>0,1</text>", "<text>Available Bytes</text>",
                 "<text>percent</text>", "<text>bytes (×1e3)</text>",
                 "<text>\\Processor Information\\% Processor Time</text>", "<text>CPU &lt;&amp; memory></text>" })
  end)

  e2e("reads a typeperf CSV: times from its zone's bias, \" \" as a gap, counters by path", function()
    local out, code = perflua { "plot", dir .. "/out.csv", "-o", dir .. "/c.png", "--keep", dir .. "/k" }
    assert.equals(0, code, out)
    assert.equals(CSV_DATA, files.read(dir .. "/k/plot.dat"))
    local gp = files.read(dir .. "/k/plot.gp")
    -- 24314990592 / 10^6 = 24314.99 >= 10^4, / 10^9 = 24.3: billions
    assert.truthy(gp:find("set ylabel 'bytes (×1e9)'\n", 1, true))
    assert.truthy(gp:find("title '_Total'", 1, true))
  end)

  e2e("keeps the series that PATH filters match (wildcards, case aside, a host dropped)", function()
    local out, code = perflua { "plot", dir .. "/cpu.rec", [[\\box\processor information(*)\%*]], "-o",
                                dir .. "/c.png", "--keep", dir .. "/k" }
    assert.equals(0, code, out)
    assert.equals(dir .. "/c.png: 2 series in 1 panel\n", out)
    local data = files.read(dir .. "/k/plot.dat")
    assert.truthy(data:find("(0,1)", 1, true))
    assert.falsy(data:find("Memory", 1, true))
    out, code = perflua { "plot", dir .. "/cpu.rec", [[\Processor Information(0,?)\% Processor Time]],
                          [[\Memory\Available Bytes]], "-o", dir .. "/c.png" }
    assert.equals(0, code, out)
    assert.equals(dir .. "/c.png: 3 series in 2 panels\n", out)
  end)

  e2e("shades the episodes of --rules where the replay puts the transitions", function()
    -- Hot (0,0 above 11 for 10 s): 12.5 at +10 s pending, 30 at +20 s firing, to the end (+30 s);
    -- Full (memory above 1100000): 1500000 at +10 s firing, 1100000 at +30 s resolved.
    files.write(dir .. "/rules.lua", [[
local R = require "perflib.rules"
R.rule "Hot" { source = "\\Processor Information(*)\\% Processor Time", instances = "^0,0$",
               when = R.above(11), pending = "10s" }
R.rule "Full" { source = "\\Memory\\Available Bytes", when = R.above(1100000) }
]])
    local out, code = perflua { "plot", dir .. "/cpu.rec", "-o", dir .. "/c.png", "--rules", dir .. "/rules.lua",
                                "--keep", dir .. "/k" }
    assert.equals(0, code, out)
    local gp = files.read(dir .. "/k/plot.gp")
    local rects = {}
    for x0, x1, colour, fill in gp:gmatch("set object %d+ rect from ([%d.]+), graph 0 to ([%d.]+), graph 1 behind "
                                         .. "fc rgb '(#%x+)' fs transparent (%a+)") do
      rects[#rects + 1] = table.concat({ x0, x1, colour, fill }, " ")
    end
    -- the same three bands in each of the 2 panels (local time = Unix + 7200)
    local three = { "1718007210.25 1718007220.25 #d62728 pattern", "1718007210.25 1718007230.25 #ff7f0e solid",
                    "1718007220.25 1718007230.25 #d62728 solid" }
    assert.same({ three[1], three[2], three[3], three[1], three[2], three[3] }, rects)
    holds(gp, { "title 'Hot pending'", "title 'Hot firing'", "title 'Full firing'" })
    assert.falsy(gp:find("Full pending", 1, true))
  end)

  e2e("draws instance names with quotes, newlines, {}, _, ^ and @ as they are", function()
    files.write(dir .. "/odd.rec", table.concat({
      '{"format":"perflib-recording","version":1,"sources":[{"path":"' .. CPU .. '"}]}',
      [[{"t":0,"ts":1718000000,"d":[{"i":["a'b\"c\n{x}_y^z@w"],"v":[1]}]}]],
      [[{"t":1,"ts":1718000001,"d":[{"i":["a'b\"c\n{x}_y^z@w"],"v":[2]}]}]] }, "\n") .. "\n")
    local out, code = perflua { "plot", dir .. "/odd.rec", "-o", dir .. "/c.svg", "--keep", dir .. "/k" }
    assert.equals(0, code, out)
    -- the newline shows as \n; the quote doubled in the script, single in the picture
    assert.truthy(files.read(dir .. "/k/plot.gp"):find([[title 'a''b"c\n{x}_y^z@w']], 1, true))
    assert.truthy(files.read(dir .. "/c.svg"):find([[<text>a'b"c\n{x}_y^z@w</text>]], 1, true))
  end)

  e2e("draws a recording of one frame as points", function()
    files.write(dir .. "/one.rec", REC:match("^[^\n]*\n[^\n]*\n"))
    local out, code = perflua { "plot", dir .. "/one.rec", "-o", dir .. "/c.png", "--keep", dir .. "/k" }
    assert.equals(0, code, out)
    local gp = files.read(dir .. "/k/plot.gp")
    -- one instant: 30 s either side of it
    assert.truthy(gp:find("set xrange [1718007170.25:1718007230.25]", 1, true))
    assert.truthy(gp:find("with linespoints", 1, true))
    local w, h = png_size(dir .. "/c.png")
    assert.equals(1000, w)                  -- the default: 1000 wide, 100 + 230 per panel high
    assert.equals(100 + 2 * 230, h)
  end)

  describe("bad input", function()
    local function fails(args, want_code, want_msg, env)
      local out, code = perflua(args, env)
      assert.equals(want_code, code, out)
      assert.truthy(out:find(want_msg, 1, true), out)
      return out
    end

    e2e("a file that is neither a recording nor a CSV, an empty one, a missing one: exit 2", function()
      files.write(dir .. "/x.txt", "time,value\n1,2\n")
      fails({ "plot", dir .. "/x.txt", "-o", dir .. "/c.png" }, 2,
        "perflua plot: " .. dir .. "/x.txt is neither a perflib recording, a binary or SQLite log nor a typeperf "
        .. "CSV/TSV file")
      files.write(dir .. "/empty", "")
      fails({ "plot", dir .. "/empty", "-o", dir .. "/c.png" }, 2, "empty: not a recording or a typeperf CSV")
      fails({ "plot", dir .. "/none.rec", "-o", dir .. "/c.png" }, 2, "cannot read " .. dir .. "/none.rec")
      files.write(dir .. "/bad.rec", REC .. "{\"t\":40,\n")
      fails({ "plot", dir .. "/bad.rec", "-o", dir .. "/c.png" }, 2, dir .. "/bad.rec:6:")
      files.write(dir .. "/bad.csv", CSV .. '"06/10/2024 07:13:23.000","1"\r\n')
      fails({ "plot", dir .. "/bad.csv", "-o", dir .. "/c.png" }, 2, dir .. "/bad.csv:5: 2 fields, the header has 3")
      files.write(dir .. "/bad2.csv", CSV .. '"06/10/2024 07:13:23.000","x1","2"\r\n')
      fails({ "plot", dir .. "/bad2.csv", "-o", dir .. "/c.png" }, 2, 'column 2: "x1" is not a number')
      assert.is_nil(io.open(dir .. "/c.png"))
    end)

    e2e("a recording without samples, a CSV with only its header, no valid value: exit 1", function()
      files.write(dir .. "/head.rec", REC:match("^[^\n]*\n"))
      fails({ "plot", dir .. "/head.rec", "-o", dir .. "/c.png" }, 1, "holds no samples: nothing to plot")
      files.write(dir .. "/head.csv", CSV:match("^[^\n]*\n"))
      fails({ "plot", dir .. "/head.csv", "-o", dir .. "/c.png" }, 1, "holds no samples: nothing to plot")
      files.write(dir .. "/nulls.rec", REC:match("^[^\n]*\n") ..
        '{"t":0,"d":[{"i":["0,0"],"v":[null]},{"i":[""],"v":[null]}]}\n')
      fails({ "plot", dir .. "/nulls.rec", "-o", dir .. "/c.png" }, 1, "has no valid value to plot")
      assert.is_nil(io.open(dir .. "/c.png"))
    end)

    e2e("a PATH filter that matches nothing: exit 1, naming it", function()
      fails({ "plot", dir .. "/cpu.rec", [[\Disk(*)\Reads/sec]], "-o", dir .. "/c.png" }, 1,
        "no counter of " .. dir .. [[/cpu.rec matches \Disk(*)\Reads/sec]])
    end)

    e2e("-o missing, of an unknown kind, or not writable; a bad --size: exit 2", function()
      fails({ "plot", dir .. "/cpu.rec" }, 2, "usage: perflua plot")
      fails({ "plot", dir .. "/cpu.rec", "-o", dir .. "/c.jpg" }, 2, "c.jpg: the chart's name must end in .png or .svg")
      fails({ "plot", dir .. "/cpu.rec", "-o", dir .. "/no/such/dir/c.png" }, 2,
        "cannot write " .. dir .. "/no/such/dir/c.png: No such file or directory")
      fails({ "plot", dir .. "/cpu.rec", "-o", dir .. "/c.png", "--size", "640" }, 2, "--size needs WIDTHxHEIGHT")
      fails({ "plot", dir .. "/cpu.rec", "-o", dir .. "/c.png", "--size", "50x50" }, 2, "each from 100 to 10000")
      assert.is_nil(io.open(dir .. "/c.png"))
    end)

    e2e("--rules with a CSV, or rules that do not load: exit 2", function()
      files.write(dir .. "/rules.lua", "R.rule 'X' { sorce = 1 }")
      fails({ "plot", dir .. "/out.csv", "-o", dir .. "/c.png", "--rules", dir .. "/rules.lua" }, 2,
        "--rules needs a recording (" .. dir .. "/out.csv is a typeperf CSV)")
      fails({ "plot", dir .. "/cpu.rec", "-o", dir .. "/c.png", "--rules", dir .. "/rules.lua" }, 2,
        "--rules " .. dir .. "/rules.lua: rules did not load")
    end)

    e2e("gnuplot missing from PATH: exit 2 with the apt-get line, no chart", function()
      fails({ "plot", dir .. "/cpu.rec", "-o", dir .. "/c.png" }, 2,
        "perflua plot: gnuplot is not installed (or not on PATH): apt-get install gnuplot-nox", "PATH=/nonexistent")
      assert.is_nil(io.open(dir .. "/c.png"))
    end)
  end)

  describe("gnuplot's failures (plot.run with another program)", function()
    local function run(env)
      local out, err = sink(), sink()
      local code = plot.run({ log = dir .. "/cpu.rec", paths = {}, output = dir .. "/c.png" }, out, err, env)
      return code, err.text()
    end

    it("refuses a --keep directory whose name has control characters, escaped in the message", function()
      local out, err = sink(), sink()
      local code = plot.run({ log = dir .. "/cpu.rec", paths = {}, output = dir .. "/c.png", keep = dir .. "/k\27[2J" },
        out, err)
      assert.equals(2, code)
      assert.matches("--keep .*k\\x1B%[2J.*: a directory name with control characters", err.text())
      assert.is_nil(err.text():find("\27", 1, true))
      assert.is_nil(io.open(dir .. "/c.png"))
    end)

    e2e("a non-zero exit is exit 1 with gnuplot's stderr", function()
      files.write(dir .. "/fail.sh", "#!/bin/sh\necho 'line 3: unknown terminal' >&2\nexit 3\n")
      os.execute("chmod +x " .. q(dir .. "/fail.sh"))
      local code, err = run { gnuplot = dir .. "/fail.sh" }
      assert.equals(1, code)
      assert.equals("perflua plot: gnuplot exited with status 3: line 3: unknown terminal\n", err)
      assert.is_nil(io.open(dir .. "/c.png"))
    end)

    e2e("a gnuplot that does not finish is killed at the timeout: exit 1", function()
      files.write(dir .. "/hang.sh", "#!/bin/sh\nexec sleep 30\n")
      os.execute("chmod +x " .. q(dir .. "/hang.sh"))
      local t0 = os.time()
      local code, err = run { gnuplot = dir .. "/hang.sh", timeout = 0.3 }
      assert.equals(1, code)
      assert.equals("perflua plot: gnuplot did not finish in 0.3 s: killed\n", err)
      assert.is_true(os.time() - t0 < 10)
    end)
  end)
end)

-- A log of n samples of "PL95 Queue" (spec/support/queue_log.lua): their timestamps.
local function queue_log(path, n)
  local ts = {}
  for i, s in ipairs(dofile "spec/support/queue_log.lua"(path, n, { set = "PL95 Queue" })) do ts[i] = s.timestamp end
  return ts
end

describe("perflua plot on a binary log", function()
  local dir, cleanup, ts
  local num = require("perflib.json").number
  before_each(function()
    dir, cleanup = files.tempdir()
    ts = queue_log(dir .. "/q.blg", 3)
  end)
  after_each(function() cleanup() end)

  it("reads an SQLite log the same way", function()
    local sts = queue_log(dir .. "/q.db", 3)
    local list, info = assert(plot.read(dir .. "/q.db"))
    assert.equal("SQLite log", info.kind)
    local by = {}
    for _, s in ipairs(list) do by[s.path] = s end
    assert.same({ { sts[1], 3 }, { sts[2], 6 }, { sts[3], 9 } }, by["\\PL95 Queue(q1)\\Depth"].points)
  end)

  it("reads the series through open_log: instances, the log's units, a gap where no rate yet", function()
    local list, info = assert(plot.read(dir .. "/q.blg"))
    assert.equal("binary log", info.kind)
    assert.equal(3, info.frames)
    local by = {}
    for _, s in ipairs(list) do by[s.path] = s end
    local d = assert(by["\\PL95 Queue(q1)\\Depth"])
    assert.equal("count", d.unit)
    assert.same({ { ts[1], 3 }, { ts[2], 6 }, { ts[3], 9 } }, d.points)
    local r = assert(by["\\PL95 Queue(q1)\\Items/sec"])
    assert.equal("count/s", r.unit)                  -- this machine has no such set: the log's definitions
    assert.is_nil(r.points[1][2])                    -- a rate needs two samples: a gap
    assert.is_true(r.points[2][2] > 0)
    assert.equal(0, by["\\PL95 Queue(q2)\\Items/sec"].points[3][2])   -- 7 then 7
    -- more values than MAX_DEFAULT and no PATH: each set's first counter, said in a note
    local max = plot.MAX_DEFAULT
    plot.MAX_DEFAULT = 3                             -- the log holds 4: 2 instances x 2 counters
    local ok, few, finfo = pcall(plot.read, dir .. "/q.blg")
    plot.MAX_DEFAULT = max
    assert.is_true(ok, few)
    local paths = {}
    for i, s in ipairs(few) do paths[i] = s.path end
    table.sort(paths)
    assert.same({ "\\PL95 Queue(q1)\\Items/sec", "\\PL95 Queue(q2)\\Items/sec" }, paths)
    assert.matches("^4 values in .-q%.blg: drawing each counterset's first counter", finfo.note)
  end)

  e2e("draws a PNG of the asked size whose data file holds the logged points", function()
    local out, code = perflua { "plot", dir .. "/q.blg", "\\PL95 Queue(*)\\Depth", "-o", dir .. "/c.png",
                                "--size", "640x480", "--keep", dir .. "/k" }
    assert.equals(0, code, out)
    assert.equals(dir .. "/c.png: 2 series in 1 panel\n", out)
    local w, h = png_size(dir .. "/c.png")
    assert.equals(640, w)
    assert.equals(480, h)
    -- each line: Unix time, local time (+7200 in TZ), Depth (q1: 3 x k; q2: 1); the instances in
    -- the order the log's first sample has them
    local want = {}
    for _, inst in ipairs { "q1", "q2" } do
      local lines = { "# '\\PL95 Queue(" .. inst .. ")\\Depth'" }
      for k = 1, 3 do
        lines[#lines + 1] = ("%s %s %s"):format(num(ts[k]), num(ts[k] + 7200), inst == "q1" and 3 * k or 1)
      end
      want[inst] = table.concat(lines, "\n") .. "\n"
    end
    local data = files.read(dir .. "/k/plot.dat")
    assert.truthy(data == want.q1 .. "\n\n" .. want.q2 or data == want.q2 .. "\n\n" .. want.q1, data)
    assert.truthy(files.read(dir .. "/k/plot.gp"):find("set ylabel 'count'\n", 1, true))
  end)

  e2e("--rules shades what the replay of the binary log finds", function()
    files.write(dir .. "/rules.lua", [[
local R = require "perflib.rules"
R.rule "Deep" { source = "\\PL95 Queue(*)\\Depth", when = R.above(4) }
]])
    local out, code = perflua { "plot", dir .. "/q.blg", "-o", dir .. "/c.png", "--rules", dir .. "/rules.lua",
                                "--keep", dir .. "/k" }
    assert.equals(0, code, out)
    -- Depth of q1 is 3 x k: above 4 from the second sample on, so Deep{q1} fires there
    assert.truthy(files.read(dir .. "/k/plot.gp"):find("title 'Deep firing'", 1, true))
  end)
end)

describe("perflib.plot", function()
  it("escapes text as a gnuplot single-quoted string that shows it as it is", function()
    assert.equals("'plain'", plot.escape "plain")
    assert.equals("'it''s'", plot.escape "it's")
    assert.equals([['a\b "c" {x}_y^z@w $1 %s']], plot.escape [[a\b "c" {x}_y^z@w $1 %s]])
    assert.equals([['one\ntwo\tthree\x01\x7F']], plot.escape "one\ntwo\tthree\1\127")
    assert.equals([['bad \xFF byte']], plot.escape "bad \255 byte")
    assert.equals("'Zürich'", plot.escape "Zürich")
    assert.has_error(function() plot.escape(nil) end, "bad argument #1 to 'escape' (a string expected)")
  end)

  it("reads --size as WIDTHxHEIGHT", function()
    assert.same({ 800, 600 }, plot.size "800x600")
    assert.same({ 100, 10000 }, plot.size "100X10000")
    for _, bad in ipairs { "800", "99x600", "800x10001", "x600", "-800x600", "8e2x600" } do
      local v, msg = plot.size(bad)
      assert.is_nil(v, bad)
      assert.equals("--size needs WIDTHxHEIGHT in pixels, each from 100 to 10000 (e.g. 1000x600)", msg)
    end
  end)

  it("reads a recording and a CSV into series, telling them apart by content", function()
    local dir, cleanup = files.tempdir()
    files.write(dir .. "/a.log", REC)          -- names say nothing: the content does
    files.write(dir .. "/b.rec", CSV)
    local list, info = plot.read(dir .. "/a.log")
    assert.equals("recording", info.kind)
    assert.equals(4, info.frames)
    assert.equals(3, #list)
    assert.same({ path = [[\Processor Information(0,1)\% Processor Time]], counterset = "Processor Information",
                  counter = "% Processor Time", instance = "0,1", unit = "percent",
                  points = { { 1718000000.25, 20 }, { 1718000010.25 }, { 1718000020.25, 25 },
                             { 1718000030.25, 22.5 } } },
                { path = list[2].path, counterset = list[2].counterset, counter = list[2].counter,
                  instance = list[2].instance, unit = list[2].unit, points = list[2].points })
    assert.equals("bytes", list[3].unit)
    assert.equals("", list[3].instance)
    list, info = plot.read(dir .. "/b.rec")
    assert.equals("typeperf CSV", info.kind)
    assert.equals(2, #list)
    assert.equals("_Total", list[1].instance)
    assert.same({ { 1718000000.25, 12.5 }, { 1718000001.25 }, { 1718000002.75, 50 } }, list[1].points)
    -- TSV: the same with tabs
    files.write(dir .. "/c.tsv", (CSV:gsub('","', '"\t"'):gsub("PDH%-CSV", "PDH-TSV")))
    list, info = plot.read(dir .. "/c.tsv")
    assert.equals("typeperf TSV", info.kind)
    assert.same({ { 1718000000.25, 24314982400 }, { 1718000001.25, 24314986496 }, { 1718000002.75, 24314990592 } },
                list[2].points)
    -- an instance gone from a frame and back: a gap there; one that comes later starts then
    files.write(dir .. "/gone.rec", table.concat({
      '{"format":"perflib-recording","version":1,"created":1000,"sources":[{"path":"' .. CPU .. '"}]}',
      '{"t":5,"d":[{"i":["a","b"],"v":[1,2]}]}', '{"t":6,"d":[{"i":["a"],"v":[3]}]}',
      '{"t":7,"d":[{"i":["a","b","c"],"v":[4,5,6]}]}' }, "\n") .. "\n")
    list = plot.read(dir .. "/gone.rec")
    -- no ts: created (1000) + seconds since the first frame
    assert.same({ { 1000, 1 }, { 1001, 3 }, { 1002, 4 } }, list[1].points)
    assert.same({ { 1000, 2 }, { 1001 }, { 1002, 5 } }, list[2].points)
    assert.same({ { 1002, 6 } }, list[3].points)
    local none, msg = plot.read(dir .. "/nope")
    assert.is_nil(none)
    assert.equals("cannot read " .. dir .. "/nope: " .. dir .. "/nope: No such file or directory", msg)
    assert.has_error(function() plot.read(42) end, "bad argument #1 to 'read' (a file name expected)")
    cleanup()
  end)
end)
