-- perflua top (issue 14 item 2) without a terminal: the columns of a set, the
-- sort (highest first, reversed, _Total pinned, no value last), the pure
-- layout at 80x24, 200x50 and 10x5, escaping, scrolling, the machine
-- summary, top.run's plain frames (like top -b) and its bad input.
local perflib = require "perflib"
local top = require "perflib.top"
local files = dofile "spec/support/files.lua"

local COLUMNS = { { name = "% Processor Time", title = "%CPU", unit = "percent" },
                  { name = "Working Set", title = "RSS", unit = "bytes" } }

local function model(opts)
  local values = { ["% Processor Time"] = { x = 10.0, y = 30.0, _Total = 40.0 },
                   ["Working Set"] = { x = 1536, y = 512, z = 3 * 1048576, _Total = 4 * 1048576 } }
  opts = opts or {}
  opts.set, opts.seq, opts.time, opts.interval = "Process", 3, "12:00:00", 1
  return top.set_model(COLUMNS, values, { "x", "y", "z", "_Total" }, opts)
end

local function names(m)
  local out = {}
  for _, r in ipairs(m.rows) do out[#out + 1] = r.name end
  return out
end

local check = dofile "spec/support/tui_check.lua"
local function check_fits(rows, w, h) return check(assert, rows, w, h, false) end

describe("perflib.top", function()
  it("takes the main counters of Process, and the first novice counters of other sets", function()
    local cols = top.columns(perflib.counterset "Process")
    assert.same({ name = "% Processor Time", title = "%CPU", unit = "percent" }, cols[1])
    assert.same({ name = "Working Set", title = "RSS", unit = "bytes" }, cols[2])
    assert.equals(8, #cols)
    local psi = perflib.counterset "Pressure Stall Information"
    local novice = {}
    for _, c in ipairs(psi.counters) do
      if not c.hidden and c.detail == "novice" and #novice < 8 then novice[#novice + 1] = c.name end
    end
    local got = {}
    for _, c in ipairs(top.columns(psi)) do got[#got + 1] = c.name end
    assert.same(novice, got)
    -- titles without spaces, "/sec" as "/s", "% X" as "%X"
    local thread = top.columns(perflib.counterset "Thread")
    assert.same({ name = "% Processor Time", title = "%ProcessorTime", unit = "percent" }, thread[1])
    for _, c in ipairs(thread) do
      if c.name == "Context Switches/sec" then assert.equals("ContextSwitches/s", c.title) end
    end
  end)

  it("sorts highest first, _Total pinned first, no value last; reversed lowest first", function()
    assert.same({ "_Total", "y", "x", "z" }, names(model()))                   -- z has no %CPU
    assert.same({ "_Total", "x", "y", "z" }, names(model { reverse = true }))
    assert.same({ "_Total", "z", "x", "y" }, names(model { sort = 2 }))        -- 3 MiB, 1536, 512
    assert.same({ "_Total", "y", "x", "z" }, names(model { sort = 2, reverse = true }))
  end)

  it("lays out 80x24: status line, titles with the sort mark, values with units", function()
    local rows, page = top.layout(model(), 24, 80)
    check_fits(rows, 80, 24)
    assert.equals(22, page)
    -- cut at 80 columns (the middle dots are one column each)
    assert.equals("perflua top · Process · 4 instances · sort %CPU v · 12:00:00 · sample 3 · every ", rows[1].text)
    assert.equals(80, utf8.len(rows[1].text))
    assert.equals("status", rows[1].style)
    -- a name column of 80 - 2 * 11 = 58, then columns of 10 and a space
    assert.equals(("instance"):rep(1) .. (" "):rep(50) .. "    %CPU v " .. "       RSS ", rows[2].text)
    assert.equals("_Total" .. (" "):rep(52) .. "     40.0% " .. "  4.00 MiB ", rows[3].text)
    assert.equals("y" .. (" "):rep(57) .. "     30.0% " .. "     512 B ", rows[4].text)
    assert.equals("x" .. (" "):rep(57) .. "     10.0% " .. "  1.50 KiB ", rows[5].text)
    assert.equals("z" .. (" "):rep(57) .. "         - " .. "  3.00 MiB ", rows[6].text)
    assert.equals(6, #rows)
    -- reversed: the mark turns
    assert.matches("%%CPU %^ ", top.layout(model { reverse = true }, 24, 80)[2].text)
  end)

  it("at 200x50 all 8 columns of Process fit; at 80 columns five", function()
    local cols = top.columns(perflib.counterset "Process")
    local m = top.set_model(cols, {}, { "a" }, { set = "Process" })
    local wide = top.layout(m, 50, 200)
    check_fits(wide, 200, 50)
    assert.matches("PID $", wide[2].text)
    local narrow = top.layout(m, 24, 80)
    assert.matches("Faults/s $", narrow[2].text)                -- (80 - 16) // 11 = 5 columns
    assert.is_nil(narrow[2].text:find "Threads")
  end)

  it("at 10x5 (and smaller) every row is cut, no crash", function()
    local rows = top.layout(model(), 5, 10)
    check_fits(rows, 10, 5)
    assert.equals("perflua to", rows[1].text)
    assert.equals("instance  ", rows[2].text)                   -- no column fits: names only
    assert.equals("_Total    ", rows[3].text)
    check_fits(top.layout(model(), 1, 1), 1, 1)
    check_fits(top.layout(model(), 2, 0), 0, 2)
  end)

  it("escapes odd bytes in instance names", function()
    local m = top.set_model(COLUMNS, { ["Working Set"] = { ["\27[2Jevil\n"] = 1 } }, { "\27[2Jevil\n" },
      { set = "Process", sort = 2 })
    local rows = top.layout(m, 24, 80)
    check_fits(rows, 80, 24)
    assert.matches("^\\x1b%[2Jevil\\n ", rows[3].text)
  end)

  it("scrolls: rows from st.top on, a page of h - 2", function()
    local insts, ws = {}, {}
    for i = 1, 40 do insts[i] = ("p%02d"):format(i) ws[insts[i]] = i end
    local m = top.set_model(COLUMNS, { ["Working Set"] = ws }, insts, { set = "Process", sort = 2 })
    local rows, page = top.layout(m, 10, 80, { top = 5 })
    assert.equals(8, page)
    assert.matches("^p36 ", rows[3].text)                       -- 40, 39, 38, 37 above
    assert.matches("^p29 ", rows[10].text)
    rows = top.layout(m, 10, 80, { top = 99 })
    assert.matches("^p08 ", rows[3].text)                       -- the last page: 8 .. 1
  end)

  it("shows the keys", function()
    local rows = top.layout(model(), 24, 80, { help = true })
    local text = {}
    for _, r in ipairs(rows) do text[#text + 1] = r.text end
    text = table.concat(text, "\n")
    assert.matches("\n  r%s+reverse the order", text)
    assert.matches("\n  s%s+sort by the next column", text)
    assert.matches("\n  q%s+quit", text)
  end)

  it("puts a note under the status line", function()
    local m = model()
    m.note = "Process IO counters: only your own processes"
    local rows = top.layout(m, 24, 80)
    assert.equals("note: Process IO counters: only your own processes", rows[2].text)
    assert.equals("warn", rows[2].style)
    assert.matches("^instance", rows[3].text)
  end)
end)

describe("perflib.top.run", function()
  local function run(opts)
    local path = os.tmpname()
    local out, err = assert(io.open(path, "w")), assert(io.open(path .. ".err", "w"))
    opts.out, opts.err = out, err
    local code = top.run(opts)
    out:close()
    err:close()
    local o, e = files.read(path), files.read(path .. ".err")
    os.remove(path)
    os.remove(path .. ".err")
    return code, o, e
  end

  it("prints `count` plain frames of a set, one block per interval", function()
    local code, out = run { set = "Process", count = 2, interval = 0.2, sort = "Working Set" }
    assert.equals(0, code)
    local _, frames = out:gsub("perflua top · Process · %d+ instances · sort RSS v · ", "")
    assert.equals(2, frames)
    assert.matches("sample 1 ·", out)
    assert.matches("sample 2 ·", out)
    assert.matches("\ninstance +%%CPU +RSS v +Private", out)
    assert.matches("\n_Total +[%d.]+%% +[%d.]+ [KMG]iB ", out)   -- the second frame has rates
    assert.is_nil(out:find("\27", 1, true))
  end)

  it("shows a single-instance set as counter rows, and the machine summary by default", function()
    local code, out = run { set = "Memory", count = 1 }
    assert.equals(0, code)
    assert.matches("\ncounter +value\n", out)
    assert.matches("\nAvailable Bytes +[%d.]+ [KMG]i?B\n", out)
    code, out = run { count = 1 }
    assert.equals(0, code)
    assert.matches("^perflua top · machine summary · ", out)
    assert.matches("\nMemory total +[%d.]+ [KMG]iB\n", out)
    assert.matches("\nLoad 1 min +[%d.]+\n", out)
    assert.matches("\nCPU busy +%-\n", out)                     -- one sample: no rate yet
  end)

  it("answers bad input: an unknown set or counter is exit 2 with a message; misuse raises", function()
    local code, _, err = run { set = "Processs", count = 1 }
    assert.equals(2, code)
    assert.matches("perflua top: no counterset 'Processs'", err)
    code, _, err = run { set = "Process", sort = "Nope", count = 1 }
    assert.equals(2, code)
    assert.matches("counterset 'Process' has no counter 'Nope'", err)
    code, _, err = run { sort = "Working Set", count = 1 }
    assert.equals(2, code)
    assert.matches("%-%-sort needs a counterset", err)
    assert.has_error(function() top.run "Process" end, "bad argument #1 to 'run' (table expected, got string)")
    assert.has_error(function() top.run { interval = 0 } end,
      "bad argument #1 to 'run' (opts.interval: seconds expected, more than 0 and at most 86400)")
    assert.has_error(function() top.run { count = 1.5 } end,
      "bad argument #1 to 'run' (opts.count: positive integer expected)")
    assert.has_error(function() top.run { set = 3 } end,
      "bad argument #1 to 'run' (opts.set: counterset name expected)")
    assert.has_error(function() top.run { reverse = "yes" } end,
      "bad argument #1 to 'run' (opts.reverse: boolean expected)")
  end)

  it("perflua top runs through perflua's command line (exit 2 on a bad argument)", function()
    if not io.open "build/perflua" then pending "build/perflua not built" return end
    local out = files.sh "build/perflua top Memory --count 1 --interval 0.1; echo rc=$?"
    assert.matches("^perflua top · Memory · ", out)
    assert.matches("rc=0\n$", out)
    out = files.sh "build/perflua top --count x 2>&1; echo rc=$?"
    assert.matches("^perflua top: %-%-count needs a whole number\nusage: perflua top ", out)
    assert.matches("rc=2\n$", out)
    out = files.sh "build/perflua top Memory --bogus 2>&1; echo rc=$?"
    assert.matches("^perflua top: unexpected %-%-bogus: no such option\nusage: ", out)
    assert.matches("rc=2\n$", out)
  end)
end)

describe("the live views as a non-root user", function()
  -- run as nobody with setpriv (util-linux): only when the suite runs as root
  local function as_nobody(cmd)
    return files.sh("setpriv --reuid=65534 --regid=65534 --clear-groups " .. cmd .. " 2>&1")
  end
  local function can()
    if not io.open "build/perflua" then return nil, "build/perflua not built" end
    if files.sh "id -u" ~= "0\n" or files.sh "command -v setpriv" == "" then return nil, "needs root and setpriv" end
    return true
  end

  it("perflua top says why Process IO and Hardware Events are empty", function()
    local ok, why = can()
    if not ok then pending(why) return end
    local out = as_nobody "build/perflua top Process --count 1"
    assert.matches("^perflua top · Process · [^\n]+\nnote: Process IO counters: only your own processes have them "
      .. "%(/proc/PID/io is readable by its owner and root%); run as root for all\ninstance ", out)
    local level = tonumber(files.read "/proc/sys/kernel/perf_event_paranoid")
    out = as_nobody "build/perflua top 'Hardware Events' --count 1"
    if level and level > 0 then
      assert.matches(("\nnote: Hardware Events: empty as a non%%-root user while kernel.perf_event_paranoid is %d "
        .. "%%(needs 0 or less, or root%%)\n"):format(level), out)
    else
      assert.is_nil(out:find("\nnote:", 1, true))
    end
    -- as root, no note
    assert.is_nil(files.sh("build/perflua top Process --count 1"):find("\nnote:", 1, true))
  end)

  it("the monitor's view says it for rules on Process", function()
    local ok, why = can()
    if not ok then pending(why) return end
    local dir, remove = files.tempdir()
    files.write(dir .. "/rules.lua", [[
local R = require "perflib.rules"
R.rule "Io" { source = "\\Process(*)\\IO Data Bytes/sec", when = R.above(1e12) }
]])
    os.execute("chmod 755 " .. dir)
    local out = as_nobody(("build/perflua monitor %s/rules.lua --view --seconds 1"):format(dir))
    remove()
    assert.matches("\nnote: Process IO counters: only your own processes have them", out)
    assert.matches("\nIo +[^\n]*_Total=", out)
  end)
end)
