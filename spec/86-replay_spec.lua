-- Recordings (perflib.record) and replay through rules (perflib.replay):
-- live samples read back as identical frames, malformed recordings give
-- clear errors naming the line, a hand-written CPU ramp replayed through a
-- rule gives the expected timeline with its actions captured and NOT run,
-- and `perflua record` / `perflua replay` end to end.
local C = require "spec.support.compat"
local perflib = require "perflib"
local record = require "perflib.record"
local replay = require "perflib.replay"
local R = require "perflib.rules"

local files = dofile "spec/support/files.lua"
local write, run = files.write, files.run

local PERFLUA = "build/perflua"
local CPU = "\\Processor Information(_Total)\\% Busy Time"


local function exists(path)
  local f = io.open(path)
  if f then f:close() end
  return f ~= nil
end


-- Deep equality that also tells integers from floats.
local function same(a, b, where)
  where = where or "frame"
  if type(a) ~= type(b) then return false, ("%s: %s vs %s"):format(where, type(a), type(b)) end
  if type(a) == "number" then
    if C.math_type(a) ~= C.math_type(b) or not (a == b or a ~= a and b ~= b) then
      return false, ("%s: %s (%s) vs %s (%s)"):format(where, a, C.math_type(a), b, C.math_type(b))
    end
  elseif type(a) == "table" then
    for k, v in pairs(a) do
      local ok, msg = same(v, b[k], where .. "." .. tostring(k))
      if not ok then return false, msg end
    end
    for k in pairs(b) do
      if a[k] == nil then return false, ("%s: extra key %s"):format(where, tostring(k)) end
    end
  elseif a ~= b then
    return false, ("%s: %s vs %s"):format(where, tostring(a), tostring(b))
  end
  return true
end

-- A hand-written recording: a CPU ramp up and down, one sample every 10 s.
local RAMP_VALUES = { 10, 30, 50, 70, 90, 95, 95, 95, 90, 70, 50, 30 }
local function ramp_text()
  local lines = {
    [[{"format":"perflib-recording","version":1,"host":"test","interval":10,]] ..
    [["sources":[{"path":"\\Processor Information(_Total)\\% Busy Time"}]}]] }
  for k, v in ipairs(RAMP_VALUES) do
    local t = (k - 1) * 10
    lines[#lines + 1] = ('{"t":%d,"ts":%d,"d":[{"i":["_Total"],"v":[%d]}]}'):format(t, 1700000000 + t, v)
  end
  return table.concat(lines, "\n") .. "\n"
end

local HEADER = [[{"format":"perflib-recording","version":1,"sources":[{"path":"\\Memory\\Available Bytes"}]}]]

describe("perflib.record", function()
  local dir, remove
  before_each(function() dir, remove = files.tempdir() end)
  after_each(function() remove() end)

  it("reads back live samples of this machine as identical frames", function()
    local path = dir .. "/live.rec"
    local paths = { "\\Processor Information(*)\\% Busy Time", "\\Memory\\Available Bytes",
                    "\\System\\Context Switches/sec", "\\Process(no such process)\\% Processor Time" }
    local rec = assert(record.open(path, paths, { interval = 0.1 }))
    assert.same({}, rec.problems)
    local written, s0 = {}, nil
    for k = 1, 3 do
      local s1 = assert(rec.query:collect())
      written[k] = { t = s1.time / s1.freq, ts = s1.timestamp, frame = assert(rec:write(s1, s0)) }
      s0 = s1
      perflib.sleep(0.1)
    end
    assert.is_true(rec:close())
    local header, frames = assert(record.load(path, { paths = paths }))
    assert.equals("perflib log", header.format)
    assert.equals(2, header.version)
    assert.same(paths, header.paths)
    assert.equals("PERF_PRECISION_100NS_TIMER", header.sources[1].counters[1].type_name)
    assert.equals(3, #frames)
    for k = 1, 3 do
      assert.equals(written[k].t, frames[k].t)
      assert.equals(written[k].ts, frames[k].ts)
      assert.is_true(same(written[k].frame, frames[k].frame))
    end
    -- what the engine consumes: cooked floats, raw integers, statuses, failed sources
    local f2 = frames[2].frame
    if C.integers then assert.equals("float", C.math_type(f2[CPU:gsub("_Total", "*")].value._Total)) end
    assert.equals("valid", f2[CPU:gsub("_Total", "*")].status._Total)
    assert.equals("integer", C.math_type(f2["raw:\\Memory\\Available Bytes"].value[""]))
    assert.equals("first_sample", frames[1].frame["\\System\\Context Switches/sec"].status[""])
    assert.equals("no_instance", f2["\\Process(no such process)\\% Processor Time"].error)
  end)

  it("builds the same frames as perflua monitor", function()
    local M = require "perflib.monitor"
    if type(M.frame_of) ~= "function" then pending("perflib.monitor does not export frame_of") return end
    local q = perflib.query()
    local paths = { CPU, "\\System\\Context Switches/sec" }
    local index, mindex = {}, {}
    for _, p in ipairs(paths) do
      index[p] = assert(q:add(p))
      mindex[p] = { index = index[p], raw = false }
      mindex["raw:" .. p] = { index = index[p], raw = true }
    end
    local s0 = assert(q:collect())
    perflib.sleep(0.05)
    local s1 = assert(q:collect())
    assert.is_true(same(M.frame_of(s1, s0, mindex), record.frame(s1, s0, index)))
    q:close()
  end)

  it("builds frames in C exactly as the Lua reference does (cooked, raw, failed results)", function()
    local F = require "perflib.frame"
    local q = perflib.query()
    local paths = { "\\Processor Information(*)\\% Processor Time", "\\Memory\\Available Bytes",
                    "\\System\\Context Switches/sec", "\\Process(no such process)\\% Processor Time",
                    "\\Processor Information(*)\\*" }
    local plain, keyed = {}, {}
    for _, p in ipairs(paths) do
      local i = assert(q:add(p))
      plain[p] = { index = i }
      keyed[p] = { index = i, raw = false }
      keyed["raw:" .. p] = { index = i, raw = true }
    end
    local s0 = assert(q:collect())
    perflib.sleep(0.05)
    local s1 = assert(q:collect())
    for _, older in ipairs { false, true } do
      local o = older and s0 or nil
      assert.is_true(same(F.of_lua(s1, o, plain, true), F.of(s1, o, plain, true)))
      assert.is_true(same(F.of_lua(s1, o, keyed, false), F.of(s1, o, keyed, false)))
    end
    local f = F.of(s1, s0, plain, true)
    assert.equals("no_instance", f["\\Process(no such process)\\% Processor Time"].error)
    assert.equals("valid", f["\\System\\Context Switches/sec"].status[""])
    q:close()
  end)

  it("reports paths it cannot record and goes on with the others", function()
    local rec = assert(record.open(dir .. "/x.rec", { "\\Memory\\Available Bytes", "\\No Such Set\\X" }))
    assert.same({ "\\Memory\\Available Bytes" }, rec.paths)
    assert.equals("no_counterset", rec.problems[1].status)
    rec:close()
    local ok, err = record.open(dir .. "/no/such/dir.rec", { "\\Memory\\Available Bytes" })
    assert.is_nil(ok)
    assert.matches("cannot write", err)
  end)

  it("accepts hand-written recordings with defaults for the optional parts", function()
    local path = dir .. "/hand.rec"
    write(path, HEADER .. "\n\n" .. '{"t":1,"d":[{"i":["","x"],"v":[5,null],"r":[7,null]}]}\r\n'
      .. '{"t":2,"d":[{"e":"no_data"}]}')          -- no newline at the end
    local h, frames = assert(record.load(path))
    assert.equals(2, #frames)
    local f = frames[1].frame["\\Memory\\Available Bytes"]
    assert.same({ "", "x" }, f.instances)
    assert.equals(5.0, f.value[""])
    if C.integers then assert.equals("float", C.math_type(f.value[""])) end
    assert.same({ [""] = "valid", x = "no_data" }, f.status)
    assert.equals("integer", C.math_type(frames[1].frame["raw:\\Memory\\Available Bytes"].value[""]))
    assert.equals("no_data", frames[2].frame["\\Memory\\Available Bytes"].error)
    assert.equals("no_data", frames[2].frame["raw:\\Memory\\Available Bytes"].error)
    assert.is_nil(h.host)
    -- a line longer than the reader's chunks
    local names, vals = {}, {}
    for k = 1, 8000 do names[k], vals[k] = ('"instance %d"'):format(k), tostring(k) end
    write(path, HEADER .. '\n{"t":1,"d":[{"i":[' .. table.concat(names, ",") .. '],"v":['
      .. table.concat(vals, ",") .. ']}]}\n')
    frames = select(2, assert(record.load(path)))
    assert.equals(8000, #frames[1].frame["\\Memory\\Available Bytes"].instances)
    assert.equals(7999.0, frames[1].frame["\\Memory\\Available Bytes"].value["instance 7999"])
  end)

  describe("malformed recordings give clear errors naming the line", function()
    local function load_text(text, opts)
      local path = dir .. "/bad.rec"
      write(path, text)
      local h, err = record.load(path, opts)
      assert.is_nil(h)
      assert.is_string(err)
      return err
    end
    local GOOD = '{"t":1,"d":[{"i":[""],"v":[5]}]}\n'

    it("a truncated line", function()
      local err = load_text(HEADER .. "\n" .. GOOD .. '{"t":2,"d":[{"i":[""],"v":[5')
      assert.matches("bad%.rec:3: column %d+: unexpected end of line in an array %(truncated%?%)", err)
    end)

    it("garbage", function()
      assert.matches("bad%.rec:2: column 1: unexpected character \"h\"",
        load_text(HEADER .. "\nhello world\n"))
      assert.matches("bad%.rec:3: column 5: unexpected text after the value",
        load_text(HEADER .. "\n" .. GOOD .. "{}  x\n"))
      assert.matches("bad%.rec:2: a sample line must be a JSON object", load_text(HEADER .. "\n[1,2]\n"))
      assert.matches("bad%.rec:1: bad header: column 1", load_text("\0\1\2binary\255\n"))
      assert.matches("bad%.rec:2: column %d+: nesting deeper than 16",
        load_text(HEADER .. "\n" .. ("["):rep(100000) .. "\n"))
      assert.matches("bad%.rec:2: line longer than 200 bytes",
        load_text(HEADER .. "\n" .. ("x"):rep(300) .. "\n", { max_line = 200 }))
      assert.matches("bad%.rec:2: line longer than 200 bytes",
        load_text(HEADER .. "\n" .. ("x"):rep(300), { max_line = 200 }))
      assert.matches("bad%.rec:2: column %d+: lone surrogate", load_text(HEADER .. '\n"\\ud800"\n'))
    end)

    it("a wrong version, format or header", function()
      assert.matches("bad%.rec:1: unsupported recording version 2 %(this perflib reads version 1%)",
        load_text((HEADER:gsub('"version":1', '"version":2')) .. "\n" .. GOOD))
      assert.matches("bad%.rec:1: not a perflib recording %(format missing",
        load_text('{"version":1,"sources":[]}\n'))
      assert.matches("bad%.rec:1: `version` must be an integer",
        load_text((HEADER:gsub('"version":1', '"version":"1"')) .. "\n"))
      assert.matches("bad%.rec:1: sources%[1%] needs a `path` string",
        load_text('{"format":"perflib-recording","version":1,"sources":[{}]}\n'))
      assert.matches("empty recording", load_text(""))
      assert.matches("cannot read recording", select(2, record.load(dir .. "/missing.rec")))
    end)

    it("samples that do not fit the header", function()
      assert.matches("bad%.rec:3: `t` goes backwards",
        load_text(HEADER .. "\n" .. GOOD .. '{"t":0.5,"d":[{"i":[""],"v":[5]}]}\n'))
      assert.matches("bad%.rec:2: `d` must be a list of 1 entries",
        load_text(HEADER .. '\n{"t":1,"d":[]}\n'))
      assert.matches("bad%.rec:2: d%[1%] %(\\Memory\\Available Bytes%): `v` must be a list of 2 values",
        load_text(HEADER .. '\n{"t":1,"d":[{"i":["a","b"],"v":[1]}]}\n'))
      assert.matches("bad%.rec:2: d%[1%] .-: `r`%[1%] must be an integer",
        load_text(HEADER .. '\n{"t":1,"d":[{"i":["a"],"v":[1],"r":[1.5]}]}\n'))
      assert.matches("bad%.rec:2: d%[1%] .-: instance \"a\" twice",
        load_text(HEADER .. '\n{"t":1,"d":[{"i":["a","a"],"v":[1,2]}]}\n'))
      assert.matches("bad%.rec:2: sample: unknown key \"tt\"",
        load_text(HEADER .. '\n{"tt":1,"t":1,"d":[{"i":[""],"v":[1]}]}\n'))
      assert.matches("bad%.rec:2: `t` %(sample time in seconds%) must be a finite number",
        load_text(HEADER .. '\n{"d":[{"i":[""],"v":[1]}]}\n'))
    end)

    it("never crashes on mutated recordings", function()
      local text = HEADER .. "\n" .. GOOD .. '{"t":2,"ts":1.5,"d":[{"i":["a\\u00e9"],"v":[1e3],"s":["valid"],'
        .. '"r":[-3],"rs":["valid"]}]}\n'
      math.randomseed(86)
      local path = dir .. "/fuzz.rec"
      for _ = 1, 400 do
        local s = text
        for _ = 1, math.random(1, 3) do
          local at = math.random(1, #s)
          local op = math.random(1, 3)
          if op == 1 then s = s:sub(1, at - 1) .. s:sub(at + 1)
          elseif op == 2 then s = s:sub(1, at - 1) .. string.char(math.random(0, 255)) .. s:sub(at + 1)
          else s = s:sub(1, at) end
        end
        write(path, s)
        local ok, h, err = pcall(record.load, path)
        assert.is_true(ok, h)
        if not h then assert.matches("fuzz%.rec", err) end
      end
    end)
  end)
end)

describe("perflib.replay", function()
  local dir, remove
  before_each(function() dir, remove = files.tempdir() end)
  after_each(function() remove() end)

  it("writes durations with tenths under a minute, as format_duration above", function()
    assert.same({ "12.5s", "45s", "1m30s", "1h30m", "?" },
      { replay.seconds(12.5), replay.seconds(45), replay.seconds(90), replay.seconds(5400), replay.seconds(nil) })
  end)

  local function ramp_set(marker, called)
    local set = R.new()
    set:rule "CpuHigh" {
      source = CPU, value = R.last(), when = R.above(80):clears_below(60), pending = "20s", keep = "0s",
      severity = "crit", message = "cpu {value:%.0f}%",
    }
    set:route { actions = { R.exec { "/usr/bin/touch", marker }, R.call(function() called.n = called.n + 1 end) } }
    return set
  end

  it("replays a CPU ramp: timeline, captured notifications, time in state, first-fire latency", function()
    local rec, marker, called = dir .. "/ramp.rec", dir .. "/MARKER", { n = 0 }
    write(rec, ramp_text())
    local report = assert(replay.run(ramp_set(marker, called), rec))
    assert.equals(12, report.frames)
    assert.equals(110, report.duration)
    local got = {}
    for _, e in ipairs(report.timeline) do
      got[#got + 1] = { e.t, e.rule, e.labels.instance, e.from, e.to, e.value }
    end
    assert.same({
      { 40, "CpuHigh", "_Total", "inactive", "pending", 90 },
      { 60, "CpuHigh", "_Total", "pending", "firing", 95 },
      { 100, "CpuHigh", "_Total", "firing", "resolved", 50 },
      { 110, "CpuHigh", "_Total", "resolved", "inactive", 30 },
    }, got)
    -- two notifications, two actions each, captured: the exec did not run, the function was not called
    assert.equals(4, #report.notifications)
    local n1, n3 = report.notifications[1], report.notifications[3]
    assert.equals(60, n1.t)
    assert.equals("exec", n1.action)
    assert.equals("firing", n1.state)
    assert.same({ "/usr/bin/touch", marker }, n1.detail.argv)
    assert.equals("firing", n1.detail.env.PERFLIB_ALERT_STATE)
    assert.equals("cpu 95%", n1.message)
    assert.equals("call", report.notifications[2].action)
    assert.equals(100, n3.t)
    assert.equals("resolved", n3.state)
    assert.is_false(exists(marker))
    assert.equals(0, called.n)
    -- time in state and first-fire latency
    local key = "CpuHigh{instance=_Total}"
    assert.same({ inactive = 40, pending = 20, firing = 40, resolved = 10 }, report.time_in_state[key])
    assert.same({ t = 60, offset = 60, ts = 1700000060, latency = 20 }, report.first_fire[key])
    assert.equals(1, #report.alerts)
    -- the printed report
    local text = replay.format(report)
    assert.matches("timeline %(4 event%(s%)%)", text)
    assert.matches("%+60%.0s 2023%-11%-14T22:14:20%.000Z CpuHigh{_Total} pending %-> firing %(95%) crit", text)
    assert.matches("notifications %(4 captured, none run%)", text)
    assert.matches("exec FIRING CpuHigh %[route 1; argv: /usr/bin/touch .-MARKER%]", text)
    assert.matches("CpuHigh{instance=_Total}: inactive 40s %(36%%%), pending 20s %(18%%%), firing 40s", text)
    assert.matches("at %+60%.0s .- 20s after its condition first held", text)
  end)

  it("feeds only the frames between from and to", function()
    local rec = dir .. "/ramp.rec"
    write(rec, ramp_text())
    local report = assert(replay.run(ramp_set(dir .. "/M", { n = 0 }), rec, { from = 30, to = 70 }))
    assert.equals(5, report.frames)
    assert.equals(2, #report.timeline)
    assert.equals("firing", report.timeline[2].to)
    assert.equals(30, report.t0)
    assert.same({ t = 60, offset = 30, ts = 1700000060, latency = 20 }, report.first_fire["CpuHigh{instance=_Total}"])
  end)

  it("names what the recording lacks, and fails cleanly on bad input", function()
    local rec = dir .. "/ramp.rec"
    write(rec, ramp_text())
    local set = R.new()
    set:rule "Mem" { source = "\\Memory\\Available Bytes", when = R.below(1) }
    local report = assert(replay.run(set, rec))
    assert.same({ "\\Memory\\Available Bytes" }, report.missing)
    assert.matches("not in the recording", replay.format(report))
    write(dir .. "/bad.rec", ramp_text() .. "garbage\n")
    local r, err = replay.run(set, dir .. "/bad.rec")
    assert.is_nil(r)
    assert.matches("bad%.rec:14: column 1", err)
    r, err = replay.run("R.rule 'X' {", rec)
    assert.is_nil(r)
    assert.matches("rules did not load", err)
  end)
end)

describe("perflua record and replay", function()
  local dir, remove
  before_each(function() dir, remove = files.tempdir() end)
  after_each(function() remove() end)

  it("records counter paths and the sources of a rules file", function()
    if not io.open(PERFLUA) then pending("build/perflua not built") return end
    local rec = dir .. "/live.blg"
    local out, code = run(("%s record %s --interval 0.25 --seconds 0.5 '%s' '\\System\\Processes'")
      :format(PERFLUA, rec, CPU))
    assert.equals(0, code, out)
    assert.matches("perflua record: %d+ sample%(s%) written to", out)
    local h, frames = assert(record.load(rec, { paths = { CPU, "\\System\\Processes" } }))
    assert.same({ CPU, "\\System\\Processes" }, h.paths)
    assert.near(0.25, h.interval, 0.05)                 -- the logged samples' mean spacing
    assert.is_true(#frames >= 2, out)
    assert.equals("valid", frames[2].frame[CPU].status._Total)
    local rules = dir .. "/rules.lua"
    write(rules, [[
local R = require "perflib.rules"
R.rule "Busy" { source = "\\Processor Information(_Total)\\% Busy Time", when = R.above(1000) }
R.rule "Forks" { source = "\\System\\Processes", value = R.rate "10s", when = R.above(1e9) }
]])
    out, code = run(("%s record %s --force --interval 0.25 --seconds 0.25 --rules %s"):format(PERFLUA, rec, rules))
    assert.equals(0, code, out)
    h = assert(record.load(rec))                         -- every counter the log holds
    local every = {}
    for _, p in ipairs(h.paths) do every[p] = true end
    assert.is_true(every["\\Processor Information(*)\\% Busy Time"] and every["\\System\\Processes"])
    out, code = run(("%s replay %s %s"):format(PERFLUA, rules, rec))
    assert.equals(0, code, out)
    assert.matches("through 2 rule%(s%)", out)
    assert.matches("none fired", out)
  end)

  it("replays a recording with actions captured, not run", function()
    if not io.open(PERFLUA) then pending("build/perflua not built") return end
    local rec, rules, marker = dir .. "/ramp.rec", dir .. "/rules.lua", dir .. "/MARKER"
    write(rec, ramp_text())
    write(rules, ([[
local R = require "perflib.rules"
R.rule "CpuHigh" {
  source = "\\Processor Information(_Total)\\% Busy Time",
  value = R.last(), when = R.above(80):clears_below(60), pending = "20s", keep = "0s", severity = "crit",
}
R.route { actions = { R.exec { "/usr/bin/touch", "MARKER" } } }
]]):gsub("MARKER", marker))
    local out, code = run(("%s replay %s %s"):format(PERFLUA, rules, rec))
    assert.equals(0, code, out)
    assert.matches("CpuHigh{_Total} inactive %-> pending %(90%)", out)
    assert.matches("exec FIRING CpuHigh", out)
    assert.matches("exec RESOLVED CpuHigh", out)
    assert.is_false(exists(marker))
  end)

  it("exits 2 with a clear message on bad recordings and command lines #lua52", function()
    if not io.open(PERFLUA) then pending("build/perflua not built") return end
    local rec, rules = dir .. "/bad.rec", dir .. "/rules.lua"
    write(rules, 'local R = require "perflib.rules"\nR.rule "X" { source = "\\\\Memory\\\\Available Bytes", '
      .. 'when = R.below(1) }\n')
    write(rec, HEADER .. '\n{"t":1,"d":[{"i":[""],"v":[1')
    local out, code = run(("%s replay %s %s"):format(PERFLUA, rules, rec))
    assert.equals(2, code, out)
    assert.matches("bad%.rec:2: column %d+: unexpected end of line", out)
    out, code = run(("%s replay %s"):format(PERFLUA, rules))
    assert.equals(2, code, out)
    assert.matches("usage: perflua replay", out)
    out, code = run(("%s record %s/x.rec"):format(PERFLUA, dir))
    assert.equals(2, code, out)
    assert.matches("usage: perflua record", out)
    out, code = run(("%s record %s/x.rec '\\No Such\\X'"):format(PERFLUA, dir))
    assert.equals(2, code, out)
    assert.matches("not recorded: \\No Such\\X", out, 1, true)
  end)
end)
