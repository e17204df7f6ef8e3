-- perflib.repl (issue 14, item 3): what the perflua REPL adds, without a
-- terminal: Tab completion of names, methods and counter paths inside strings
-- (the offsets are libedit's: the word is line:sub(start + 1, stop)), samples
-- printed as grids with units, and help().  The terminal side (Ctrl-C,
-- history, Tab in a real session) is spec/40-host_spec.lua's.
-- perflib.helpdata is generated into build/gen (make all), as perflua embeds it
package.path = "./build/gen/lua/?.lua;" .. package.path
local perflib = require "perflib"
local R = require "perflib.repl"

-- The completions of the whole line with the cursor at its end, the word
-- starting after the last break character, as libedit splits it.
local BREAKS = " \t\n\"'><=;+-*/%^~#&|{}()[],\\"
local function complete(line)
  local start = 0
  for i = #line, 1, -1 do
    if BREAKS:find(line:sub(i, i), 1, true) then start = i; break end
  end
  return R.complete(line, start, #line), line:sub(start + 1)
end

-- What f writes to io.stdout.
local function captured(f, ...)
  local real, tmp = io.stdout, io.tmpfile()
  io.stdout = tmp          -- luacheck: ignore 122 (perflib.repl writes to io.stdout)
  local ok, err = pcall(f, ...)
  io.stdout = real         -- luacheck: ignore 122
  tmp:seek("set")
  local text = tmp:read("a")
  tmp:close()
  assert(ok, err)
  return text
end

-- this spec's sets live on a machine of its own, which completion and help
-- look at while it runs, so no other spec sees them
local M = perflib.machine { root = "/" }         -- a machine of its own (machine() is the default one)
local odd
setup(function()
  R.machine = M
  -- two sets of this spec's own: instances with a control byte, and none at all
  odd = assert(perflib.define {
    machine = M,
    name = "Repl90 Queues", help = "Queues of the REPL spec.",
    counters = { { name = "Depth", type = "PERF_COUNTER_LARGE_RAWCOUNT", unit = "bytes", semantics = "gauge" },
                 { name = "Items/sec", type = "PERF_COUNTER_BULK_COUNT" } },
    collect = function() return { alpha = { 3072, 10 }, ["al\1pha"] = { 5, 20 } } end,
  })
  assert(perflib.define {
    machine = M,
    name = "Repl90 Empty", counters = { { name = "Depth" } },
    collect = function() return {} end,
  })
end)
teardown(function() R.machine = nil end)

describe("perflib.repl.complete", function()
  it("completes counterset names in a path string, '(' for multi-instance sets, '\\' for single", function()
    local c, word = complete([[x = "\\Repl90 Q]])
    assert.equals("Q", word)
    -- the completion replaces the word, in the string's escaped form
    assert.same({ [[Queues(]] }, c)
    c = complete([[x = "\\Memo]])
    assert.same({ [[Memory\\]] }, c)
    -- case does not matter, as in PDH
    assert.same({ [[Memory\\]] }, (complete([[x = "\\memo]])))
  end)

  it("completes instance names after '(' with '*' first, escaping odd bytes", function()
    local c = complete([[p = "\\Repl90 Queues(]])
    -- after '(' the word is empty: each completion is the instance, ')' and '\\'
    assert.same({ [[*)\\]], [[al\001pha)\\]], [[alpha)\\]] }, c)
    assert.same({ [[alpha)\\]] }, (complete([[p = "\\Repl90 Queues(alp]])))
  end)

  it("offers only '*' for a set with no instances", function()
    assert.same({ [[*)\\]] }, (complete([[p = "\\Repl90 Empty(]])))
  end)

  it("completes counter names after the instance, and inside long brackets unescaped", function()
    assert.same({ [[Depth]] }, (complete([[p = "\\Repl90 Queues(alpha)\\De]])))
    local c = complete([=[p = [[\Repl90 Queues(*)\]=])
    assert.same({ [[*]], [[Depth]], [[Items/sec]] }, c)
    assert.same({ [[Available Bytes]], [[Available KBytes]], [[Available MBytes]] },
      (complete([=[q:add [[\Memory\Avail]=])))
  end)

  it("completes globals, fields and methods outside strings", function()
    _G.repl90_perflib = perflib                 -- the REPL's global perflib, under a name of this spec
    local c = complete("repl90_perflib.counterse")
    assert.same({ "repl90_perflib.counterset", "repl90_perflib.countersets" }, c)
    _G.repl90_perflib = nil
    assert.same({ "string.format" }, (complete("string.form")))
    _G.repl90_q = perflib.query()
    c = complete("repl90_q:coll")
    assert.same({ "repl90_q:collect" }, c)
    _G.repl90_q:close()
    _G.repl90_q = nil
    -- after ':' only functions; an unknown head completes nothing
    assert.same({}, (complete("nosuchglobal.x")))
  end)

  it("gives nothing for a comment, a remote path or a string that is no path", function()
    assert.same({}, (complete([[-- "\\Memo]])))
    assert.same({}, (complete([[x = "\\\\host\\Memo]])))
    assert.same({}, (complete([[x = "Memo]])))
  end)

  it("raises for a line that is not a string", function()
    assert.has_error(function() R.complete(nil, 0, 0) end, "bad argument #1 to 'complete' (string expected)")
  end)
end)

describe("perflib.repl.sample_text", function()
  it("prints raw values in base units and formatted values with their units", function()
    local q = perflib.query(M)
    q:add [[\Repl90 Queues(*)\*]]
    local s0 = q:collect()
    local s1 = q:collect()
    local raw = R.sample_text(s1) .. "\n"      -- rows in the set's order, which a hash decides
    assert.matches("^\\Repl90 Queues%(%*%)  valid  %(raw values; show%(s1, s0%) for rates%)\n", raw)
    -- Depth is declared in bytes: 3072 bytes = 3.0 KiB; Items/sec counts stay plain
    assert.matches("\n  alpha%s+3%.0 KiB%s+10\n", raw)
    -- the instance with a control byte is escaped, never printed raw
    assert.is_nil(raw:find("\1", 1, true))
    assert.matches("\n  al\\x01pha%s+5 bytes%s+20\n", raw)
    local text = R.sample_text(s1, s0) .. "\n"
    -- Items/sec: the same 10 in both samples, so 0 per second
    assert.matches("\n  alpha%s+3%.0 KiB%s+0/s\n", text)
    q:close()
  end)

  it("shows at most 20 instances and says how many more", function()
    assert(perflib.define {
      machine = M,
      name = "Repl90 Many", counters = { { name = "N" } },
      collect = function()
        local t = {}
        for i = 1, 25 do t[("i%02d"):format(i)] = { i } end
        return t
      end,
    })
    local q = perflib.query(M)
    q:add [[\Repl90 Many(*)\N]]
    local text = R.sample_text(q:collect())
    assert.matches("\n  %.%.%. 5 more instances$", text)
    q:close()
  end)

  it("raises for what is not a sample", function()
    assert.has_error(function() R.sample_text({}) end, "bad argument #1 to 'sample_text' (Sample expected)")
    local q = perflib.query()
    q:add [[\Memory\Available Bytes]]
    local s = q:collect()
    assert.has_error(function() R.sample_text(s, 1) end, "bad argument #2 to 'sample_text' (Sample expected)")
    q:close()
  end)
end)

describe("perflib.repl.help", function()
  it("help() gives an overview that names the keys", function()
    local text = captured(R.help)
    assert.matches("help%(perflib%)", text)
    assert.matches("Ctrl%-C cancels the line", text)
  end)

  it("help(counterset) lists its counters with units, help(path) one counter in full", function()
    local text = captured(R.help, odd)
    assert.matches("^Repl90 Queues  %(%x+%-[%x-]+, multiple instances, 2 counters%)\n", text)
    assert.matches("\n  Depth %[bytes%]%s", text)
    assert.matches("\n  Items/sec %[/s%]%s", text)
    text = captured(R.help, [[\Repl90 Queues(*)\Depth]])
    assert.matches("^Repl90 Queues\\Depth  %(id 0, PERF_COUNTER_LARGE_RAWCOUNT%)\n", text)
    assert.matches("\n  unit: bytes, gauge; formatted: bytes\n", text)
    assert.matches("no such counter", captured(R.help, [[\Repl90 Queues(*)\Nope]]))
  end)

  it("help(object) lists a class's methods; help of a function or name its line", function()
    local q = perflib.query()
    local text = captured(R.help, q)
    assert.matches("^Query methods", text)
    assert.matches("\n  Query:add%(spec%)", text)
    assert.matches("\n  Query:collect", text)
    q:close()
    assert.matches("perflib functions", captured(R.help, perflib))
    assert.matches("^nothing called \"zzz\"", captured(R.help, "zzz"))
  end)
end)
