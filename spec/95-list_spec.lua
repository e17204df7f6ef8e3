-- perflua list [PATTERN] (perflib.typeperf.list): counter paths whose path or
-- help text holds PATTERN, a plain substring with case aside, each with the
-- first sentence of its help, as pminfo -t; on a fixture machine and through
-- the built perflua.
local tp = require "perflib.typeperf"
local cli = require "perflib.cli"
local perflib = require "perflib"
local files = dofile "spec/support/files.lua"

local PERFLUA = "build/perflua"
local BUILT = io.open(PERFLUA) ~= nil
local e2e = BUILT and it or function(desc) pending(desc .. " (build/perflua not built)") end

local sink = dofile "spec/support/sink.lua"

local machine = perflib.machine { root = "spec/fixtures/basic" }

-- `perflua list ARGS` through perflib.cli on the fixture machine: status, stdout, stderr.
local function list(...)
  local out, err = sink(), sink()
  local code = cli.main({ "list", ... }, out, err, { machine = machine })
  return code, out:text(), err:text()
end

local function lines(s)
  local t = {}
  for l in s:gmatch("([^\n]*)\n") do t[#t + 1] = l end
  return t
end

describe("perflua list", function()
  it("lists the paths that hold the pattern, case aside, each with its help's first sentence", function()
    local code, out, err = list "available kbytes"
    assert.equals(0, code, err)
    assert.equals("\\Memory\\Available KBytes [Available Bytes divided by 1024]\n", out)
    assert.equals("", err)
    code, out = list "AVAILABLE KBYTES"
    assert.equals(0, code)
    assert.equals("\\Memory\\Available KBytes [Available Bytes divided by 1024]\n", out)
  end)

  it("keeps only the first sentence of a longer help, on one line", function()
    local _, out = list "Processor Information(*)\\% Processor Time"
    -- the help's second sentence ("The raw value is the idle time ...") is left out
    assert.equals("\\Processor Information(*)\\% Processor Time [Share of wall-clock time the CPU was not idle: "
      .. "100 - idle and iowait time (/proc/stat) over elapsed time]\n", out)
  end)

  it("matches help texts too, and takes the pattern as plain text, not a Lua pattern", function()
    -- MemAvailable is in Available Bytes' help only, not in any path
    local _, out = list "memavailable"
    local got = lines(out)
    assert.is_true(#got >= 1)
    assert.equals("\\Memory\\Available Bytes [", got[1]:sub(1, 25))
    for _, l in ipairs(got) do
      local p = l:match("^(.-) %[")
      assert.is_nil(p:lower():find("memavailable", 1, true))
    end
    -- "(*)" would be a bad Lua pattern; as text it is in every path of a set with instances
    local code, out2, err = list "(*)\\% busy"
    assert.equals(0, code, err)
    assert.same({ "\\Processor(*)\\% Busy Time", "\\Processor Information(*)\\% Busy Time" },
      (function() local t = {} for _, l in ipairs(lines(out2)) do t[#t + 1] = l:match("^(.-) %[") end return t end)())
  end)

  it("lists every visible counter without a pattern, sets by name, one line each", function()
    local n = tp.list(nil, sink(), { machine = machine })
    local want, names = 0, {}
    for cs in machine:countersets() do
      names[#names + 1] = cs.name
      for _, c in ipairs(cs.counters) do if not c.hidden then want = want + 1 end end
    end
    assert.equals(want, n)
    local _, out = list()
    local got = lines(out)
    assert.equals(want, #got)
    table.sort(names)
    assert.equals("\\" .. names[1], got[1]:sub(1, #names[1] + 1))
    for _, l in ipairs(got) do
      assert.matches("^\\[^\n]+ %[[^\n]*%]$", l)
    end
    assert.is_nil(out:find("\\Processor Time Base [", 1, true))   -- a hidden base counter
  end)

  it("exits 1 with a message when nothing matches", function()
    local code, out, err = list "no such counter anywhere"
    assert.equals(1, code)
    assert.equals("", out)
    assert.equals("perflua list: no counter matches 'no such counter anywhere'\n", err)
  end)

  it("takes one pattern at most (exit 2)", function()
    local code, out, err = list("a", "b")
    assert.equals(2, code)
    assert.equals("", out)
    assert.equals("perflua list: too many arguments", err:match("^[^\n]*"))
  end)

  e2e("runs in the built perflua on this machine", function()
    local out = files.sh(PERFLUA .. " list 'available kbytes'; echo \"exit $?\"")
    assert.equals("\\Memory\\Available KBytes [Available Bytes divided by 1024]\nexit 0\n", out)
    out = files.sh(PERFLUA .. " list zzzqqq 2>&1; echo \"exit $?\"")
    assert.equals("perflua list: no counter matches 'zzzqqq'\nexit 1\n", out)
  end)
end)
