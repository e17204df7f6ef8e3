-- perflua's bash completion (build/perflua.bash, generated from perflib.cli's
-- definitions by doc/gen-man.lua): sourced in bash, its function called with
-- COMP_WORDS/COMP_CWORD as bash would, for subcommands, options and the
-- counterset names `perflua top` takes (a set with no instances included).
local cli = require "perflib.cli"
local perflib = require "perflib"
local files = dofile "spec/support/files.lua"

local SCRIPT = "build/perflua.bash"
local BUILT = io.open(SCRIPT) ~= nil and io.open("build/perflua") ~= nil
local test = BUILT and it or function(desc) pending(desc .. " (make all first)") end

local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

--- COMPREPLY, one entry a line, for the words (the last one is being completed).
local function complete(words)
  local quoted = {}
  for i, w in ipairs(words) do quoted[i] = q(w) end
  local prog = ("PATH=%s/build:$PATH; source %s; COMP_WORDS=(%s); COMP_CWORD=%d; _perflua_sets; "
    .. "printf '%%s\\n' \"${COMPREPLY[@]}\""):format(files.cwd(), SCRIPT, table.concat(quoted, " "), #words - 1)
  local p = assert(io.popen("env -u LD_PRELOAD bash --norc --noprofile -c " .. q(prog) .. " 2>&1"))
  local out = p:read "a"
  p:close()
  local t = {}
  for line in out:gmatch "([^\n]+)\n" do t[#t + 1] = line end
  table.sort(t)
  return t
end

local function set_of(t)
  local s = {}
  for _, v in ipairs(t) do s[v] = true end
  return s
end

local function sorted(t)
  table.sort(t)
  return t
end

describe("perflua's bash completion", function()
  test("is registered for perflua", function()
    local p = assert(io.popen(("env -u LD_PRELOAD bash --norc -c 'source %s; complete -p perflua'"):format(SCRIPT)))
    local out = p:read "a"
    p:close()
    assert.equals("complete -o bashdefault -o default -F _perflua_sets perflua\n", out)
  end)

  test("completes the subcommands", function()
    assert.same(sorted(cli.commands()), complete { "perflua", "" })
    assert.same({ "monitor" }, complete { "perflua", "mon" })
    assert.same({ "record", "relog", "replay" }, complete { "perflua", "re" })
  end)

  test("completes each subcommand's options, without the hidden helper", function()
    for _, c in ipairs(cli.parser()._commands) do
      local want = {}
      for _, o in ipairs(c._options) do
        if not o._hidden then
          for _, alias in ipairs(o._aliases) do
            if alias:sub(1, 2) == "--" then want[#want + 1] = alias end
          end
        end
      end
      assert.same(sorted(want), complete { "perflua", c._name, "--" }, c._name)
    end
    local short = {}
    for _, v in ipairs(complete { "perflua", "promrules", "-" }) do
      if v:sub(2, 2) ~= "-" then short[#short + 1] = v end
    end
    assert.same({ "-h", "-o" }, short)
  end)

  test("offers every counterset after `perflua top`, a set with no instances too", function()
    local names, empty = {}, nil
    for cs in perflib.countersets() do
      names[#names + 1] = (cs.name:gsub(" ", "\\ "))   -- escaped as bash inserts them
      local inst = cs.instance_type == "multiple" and cs:instances()
      if inst and #inst == 0 then empty = empty or cs.name end
    end
    local got = complete { "perflua", "top", "" }
    assert.same(sorted(names), got)
    if not empty then pending("this machine has no counterset without instances") return end
    assert.is_true(set_of(got)[(empty:gsub(" ", "\\ "))], empty)
    assert.same({ (empty:gsub(" ", "\\ ")) }, complete { "perflua", "top", empty:sub(1, #empty - 1) })
  end)

  test("completes a name with spaces escaped, or inside the quote the user opened", function()
    local got = complete { "perflua", "top", "Processor " }
    assert.same({ "Processor\\ Information" }, got)
    -- "Processor" (Windows' name) and "Processor Information" both start so
    assert.same({ "Processor", "Processor\\ Information" }, complete { "perflua", "top", "Processor" })
    assert.same({ '"Processor Information"' }, complete { "perflua", "top", '"Processor I' })
    assert.same({ "'Memory'" }, complete { "perflua", "top", "'Memo" })
    assert.same({}, complete { "perflua", "top", "NoSuchSet" })
  end)

  test("offers no set once one is given, nor as the value of --sort", function()
    assert.same({}, complete { "perflua", "top", "Process", "Mem" })
    assert.same({}, complete { "perflua", "top", "--sort", "Mem" })
    assert.same({ "Memory" }, complete { "perflua", "top", "--count", "3", "--reverse", "Mem" })
  end)
end)
