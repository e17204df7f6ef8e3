-- The monitor's screen (issue 14 item 1) without a terminal: the pure layout
-- of perflib.view at 80x24, 200x50 and 10x5 (rows, firing first, units,
-- escaping, scrolling, the keys screen), the plain render's instance order,
-- perflib.screen's helpers (widths, values with units, notes for non-root
-- users, scrolling), and perflib.core.term refusing a stdout that is no terminal.
local V = require "perflib.view"
local S = require "perflib.screen"
local files = dofile "spec/support/files.lua"

-- An engine as the view sees it: rules, and explain() with alerts per instance.
local function engine(rules)
  local by = {}
  for _, r in ipairs(rules) do by[r.name] = r end
  local list = {}
  for _, r in ipairs(rules) do list[#list + 1] = { name = r.name, source = r.source } end
  return {
    rules = list,
    explain = function(_, name)
      local r = by[name]
      if r.disabled then return { disabled = true, error = r.disabled } end
      local insts = {}
      for _, i in ipairs(r.insts or {}) do insts[#insts + 1] = { instance = i[1], value = i[2] } end
      return { alerts = r.alerts or {}, instances = insts }
    end,
  }
end

local function alert(inst, state, severity)
  return { labels = { instance = inst, severity = severity }, state = state, severity = severity }
end

-- Six instances: e fires crit, c is pending, the rest by value (d 70, f 60, b 50, a 1).
local BUSY = { name = "Busy", source = [[\Processor Information(*)\% Processor Time]],
  insts = { { "a", 1.0 }, { "b", 50.0 }, { "c", 5.0 }, { "d", 70.0 }, { "e", 2.0 }, { "f", 60.0 } },
  alerts = { alert("c", "pending"), alert("e", "firing", "crit") } }
local MEM = { name = "Mem", source = [[\Memory\Available MBytes]], insts = { { "", 512 } } }

local function info(recent)
  return { seq = 7, interval = 1, path = "rules.lua", recent = recent or {}, time = "12:00:00", notes = {} }
end

local check = dofile "spec/support/tui_check.lua"
local function check_fits(rows, w, h) return check(assert, rows, w, h, true) end

describe("perflib.view layout", function()
  it("at 80x24: the status line first, firing and pending instances before the highest values, units", function()
    local m = V.model(engine { BUSY, MEM }, info { "t1 Busy {e} crit: inactive -> firing" })
    assert.equals(1, m.firing)
    assert.equals("crit", m.worst)
    local rows, page = V.layout(m, 24, 80)
    check_fits(rows, 80, 24)
    assert.equals(24, #rows)
    -- 24 rows: status, titles, 16 for rules, "recent transitions:" and 5 transition lines
    assert.equals(24 - 2 - 6, page)
    assert.matches("^perflua monitor · 12:00:00 · 1 firing · sample 7 · every 1 s · %? keys, q quits", rows[1].text)
    assert.equals("status_crit", rows[1].style)
    assert.matches("^rule%s+alerts%s+values$", rows[2].text)
    assert.equals("title", rows[2].style)
    -- e (firing crit), c (pending), then d 70, f 60, b 50, a 1; 36 columns for values:
    -- "e=2.00% c=5.00% d=70.00%" is 24, " f=60.00%" (9) and " +2 more" (8) would make 41
    assert.equals("Busy               1 firing crit, 1 pending e=2.00% c=5.00% d=70.00% +3 more", rows[3].text)
    assert.equals("crit", rows[3].style)
    local order = {}
    local wide = V.layout(m, 24, 200)
    for inst in wide[3].text:gmatch "(%a)=" do order[#order + 1] = inst end
    assert.same({ "e", "c", "d", "f", "b", "a" }, order)
    -- the counter's unit: Available MBytes is in MiB
    assert.matches("^Mem%s+ok%s+512 MiB$", rows[4].text)
    assert.equals("ok", rows[4].style)
    assert.equals("recent transitions:", rows[19].text)
    assert.equals("  t1 Busy {e} crit: inactive -> firing", rows[20].text)
  end)

  it("at 80x24 the values that do not fit become '+N more'", function()
    local many = { name = "Many", source = [[\Process(*)\Working Set]], insts = {} }
    for i = 1, 40 do many.insts[i] = { ("proc%02d"):format(i), i * 1.0 } end
    local rows = V.layout(V.model(engine { many }, info()), 24, 80)
    check_fits(rows, 80, 24)
    -- highest first; 36 columns are left for values: "proc40=40.00 bytes" (18) and " +39 more"
    assert.equals("Many               ok                       proc40=40.00 bytes +39 more", rows[3].text)
    local shown = 1
    -- 200 columns show more of them
    local wide = V.layout(V.model(engine { many }, info()), 50, 200)
    check_fits(wide, 200, 50)
    assert.is_true(select(2, wide[3].text:gsub("proc%d%d=", "")) > shown)
  end)

  it("at 200x50 the whole path is on the status line and nothing wraps", function()
    local rows = V.layout(V.model(engine { BUSY, MEM }, info()), 50, 200)
    check_fits(rows, 200, 50)
    assert.equals(50, #rows)
    assert.matches("· rules%.lua$", rows[1].text)
    assert.matches("a=1%.00%%$", rows[3].text)          -- all six values, no "+N more"
  end)

  it("at 10x5: no transitions, every row cut to 10 columns", function()
    local rows = V.layout(V.model(engine { BUSY, MEM }, info { "x" }), 5, 10)
    check_fits(rows, 10, 5)
    assert.equals("perflua mo", rows[1].text)
    assert.equals("rule      ", rows[2].text:sub(1, 10))
    assert.equals("Busy      ", rows[3].text)
    -- and smaller still
    check_fits(V.layout(V.model(engine { BUSY }, info()), 1, 1), 1, 1)
    check_fits(V.layout(V.model(engine { BUSY }, info()), 3, 0), 0, 3)
  end)

  it("escapes odd bytes in instance names", function()
    local evil = { name = "Evil", source = [[\Process(*)\Working Set]],
      insts = { { "\27[2JPWN\nFAKE", 1 }, { "caf\xe9", 2 } } }
    local rows = V.layout(V.model(engine { evil }, info { "x \27[31m" }), 24, 200)
    check_fits(rows, 200, 24)
    assert.matches("caf\\xe9=2 bytes \\x1b[2JPWN\\nFAKE=1 bytes", rows[3].text, 1, true)
    assert.equals("  x \\x1b[31m", rows[20].text)
  end)

  it("scrolls when the rules do not fit, and says which are shown", function()
    local rules = {}
    for i = 1, 30 do rules[i] = { name = ("R%02d"):format(i), source = [[\Memory\Available MBytes]],
                                 insts = { { "", i } } } end
    local m = V.model(engine(rules), info())
    local rows, page = V.layout(m, 24, 80, { top = 10 })
    check_fits(rows, 80, 24)
    assert.equals(16, page)
    assert.matches("%[10%-25 of 30%]$", rows[2].text)
    assert.matches("^R10 ", rows[3].text)
    assert.matches("^R25 ", rows[18].text)
    -- past the end: the last page
    rows = V.layout(m, 24, 80, { top = 100 })
    assert.matches("%[15%-30 of 30%]$", rows[2].text)
    assert.matches("^R15 ", rows[3].text)
  end)

  it("shows the keys and what the colours mean", function()
    local rows = V.layout(V.model(engine { BUSY }, info()), 24, 80, { help = true })
    check_fits(rows, 80, 24)
    local text, styles = {}, {}
    for _, r in ipairs(rows) do text[#text + 1] = r.text styles[r.style] = r.text end
    text = table.concat(text, "\n")
    assert.matches("\n  q%s+quit\n", text)
    assert.matches("\n  PgUp/PgDn%s+scroll one page\n", text)
    assert.matches("firing crit", styles.crit)
    assert.matches("pending", styles.pending)
  end)

  it("a disabled rule is dim and says why", function()
    local rows = V.layout(V.model(engine { { name = "Broken", disabled = "boom" } }, info()), 24, 80)
    assert.matches("^Broken%s+disabled: boom", rows[3].text)
    assert.equals("dim", rows[3].style)
  end)

  it("shows notes for non-root users above the transitions", function()
    local i = info()
    i.notes = { "Process IO counters: only your own processes" }
    local rows = V.layout(V.model(engine { MEM }, i), 24, 80)
    assert.equals("note: Process IO counters: only your own processes", rows[18].text)
    assert.equals("warn", rows[18].style)
  end)
end)

describe("perflib.view plain render", function()
  it("shows the firing and pending instances first, then the highest values, four at most", function()
    local text = V.render(engine { BUSY }, info())
    assert.matches("\nBusy%s+1 firing crit, 1 pending%s+e=2%.00%% c=5%.00%% d=70%.00%% f=60%.00%% %+2 more\n",
      text)
  end)
end)

describe("perflib.screen", function()
  it("fits text by columns, UTF-8 aware", function()
    assert.equals("a·", S.fit("a·b", 2))
    assert.equals("", S.fit("abc", 0))
    assert.equals("  ab", S.pad("ab", 4, true))
    assert.equals("ab  ", S.pad("ab", 4))
    assert.equals("\xff\xfe", S.fit("\xff\xfe\xfd", 2))   -- not UTF-8: bytes
  end)

  it("gives values with units for people", function()
    assert.equals("512 B", S.human(512, "bytes"))
    assert.equals("1.50 KiB", S.human(1536, "bytes"))                 -- 1536 / 1024
    assert.equals("3.00 MiB/s", S.human(3 * 1048576, "bytes/s"))
    assert.equals("23.11 GiB", S.human(23669, "MiB"))                 -- 23669 / 1024 = 23.114
    assert.equals("12.3%", S.human(12.345, "percent"))
    assert.equals("120/s", S.human(120, "/s"))
    assert.equals("1:02:05", S.human(3725, "seconds"))                -- 3600 + 2*60 + 5
    assert.equals("1d01h", S.human(90061, "seconds"))                 -- 86400 + 3600 + 61
    assert.equals("0.50 s", S.human(0.5, "seconds"))
    assert.equals("123.5k", S.human(123456.0, ""))
    assert.equals("42", S.human(42, ""))
    assert.equals("0.25", S.human(0.25, ""))
    assert.equals("-", S.human(nil, "bytes"))
  end)

  it("tells a non-root user why Process IO and Hardware Events are empty", function()
    assert.matches("/proc/PID/io", S.note("Process", false))
    assert.matches("perf_event_paranoid is 2", S.note("Hardware Events", false, 2))
    assert.is_nil(S.note("Hardware Events", false, 0))
    assert.is_nil(S.note("Process", true))
    assert.is_nil(S.note("Hardware Events", true, 2))
    assert.is_nil(S.note("Memory", false))
    assert.same({ "Process", "Memory" },
      S.sets_of { [[\Process(*)\Working Set]], [[\Memory\Available Bytes]], [[\Process(x)\ID Process]] })
  end)

  it("scrolls by keys within the list", function()
    assert.equals(2, S.scroll("down", 1, 10, 30))
    assert.equals(2, S.scroll("j", 1, 10, 30))
    assert.equals(1, S.scroll("up", 1, 10, 30))
    assert.equals(21, S.scroll("end", 1, 10, 30))       -- 30 - 10 + 1
    assert.equals(10, S.scroll("pgdn", 1, 10, 30))      -- a page less one line: 1 + 9
    assert.equals(21, S.scroll("pgdn", 15, 10, 30))
    assert.equals(1, S.scroll("pgup", 5, 10, 30))
    assert.equals(1, S.scroll("down", 1, 10, 5))        -- all fit: nowhere to go
    assert.is_nil(S.scroll("x", 1, 10, 30))
  end)
end)

describe("perflib.core.term", function()
  it("refuses a standard output that is not a terminal: nil, message, ENOTTY", function()
    local out = files.sh([[LUA_PATH='./lua/?.lua;./lua/?/init.lua;;' LUA_CPATH='./build/?.so;;' TERM=xterm ]]
      .. [[lua5.4 -e 'local t = require "perflib.core".term print(select("#", t.open()), t.open())' </dev/null]])
    assert.matches("^3\tnil\tterm.open: [^\t]+\t25\n$", out)
  end)

  it("lists its styles", function()
    local core = require "perflib.core"
    assert.same({ "normal", "title", "dim", "ok", "pending", "info", "warn", "crit", "status", "status_ok",
                  "status_pending", "status_info", "status_warn", "status_crit" }, core.term.styles)
  end)
end)
