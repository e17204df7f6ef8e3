-- perflua's one command line (perflib.cli on lua-argparse): every subcommand
-- answers --help with the options it defines, misuse exits 2 with a message
-- naming the command and the option, --version, and perflua(1) rendered by
-- groff without warnings listing every command and option --help shows (both
-- checked by walking the parser's definitions, so a new option is covered).
local cli = require "perflib.cli"
local files = dofile "spec/support/files.lua"

local PERFLUA = "build/perflua"
local BUILT = io.open(PERFLUA) ~= nil

local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

--- Runs a shell command without the suite's preloaded sanitizers; exit code, stdout, stderr.
local function sh(cmd)
  local errfile = os.tmpname()
  local p = assert(io.popen("env -u LD_PRELOAD sh -c " .. q(cmd) .. " </dev/null 2>" .. errfile))
  local out = p:read "a"
  local ok, _, code = p:close()
  local err = files.read(errfile)
  os.remove(errfile)
  return ok and 0 or code, out, err
end

local function perflua(args) return sh(PERFLUA .. " " .. args) end

local test = BUILT and it or function(desc) pending(desc .. " (build/perflua not built)") end

-- every public alias of every option a command shows, and its arguments' names
local function shown(c)
  local names = {}
  for _, o in ipairs(c._options) do
    if not o._hidden then
      for _, alias in ipairs(o._public_aliases) do names[#names + 1] = alias end
    end
  end
  for _, a in ipairs(c._arguments) do names[#names + 1] = a._name end
  return names
end

local function commands() return cli.parser()._commands end

describe("perflua's command line", function()
  it("defines the subcommands, each with its options", function()
    local names = {}
    for _, c in ipairs(commands()) do names[#names + 1] = c._name end
    assert.same({ "monitor", "check", "explain", "record", "replay", "top", "serve", "promrules", "typeperf",
      "list", "relog", "plot" }, names)
    assert.same(names, cli.commands())
    local by = {}
    for _, c in ipairs(commands()) do by[c._name] = table.concat(shown(c), " ") end
    assert.equals("--interval --seconds --view -h --help RULES.lua", by.monitor)
    assert.equals("--sort --reverse --interval --count -h --help SET", by.top)
    assert.equals("-o --output -h --help RULES.lua", by.promrules)
    assert.equals("--interval --seconds --rules --max-bytes --max-seconds --max-files --force --quiet "
      .. "-h --help OUT PATH", by.record)
    assert.equals("-o --output --rules --title --size --keep -h --help LOG PATH", by.plot)
    assert.equals("-c -cf -f -o -b -e -t -y -q -h --help IN", by.relog)
  end)

  test("perflua --help lists every subcommand and the interpreter's flags", function()
    local code, out, err = perflua "--help"
    assert.equals(0, code, err)
    assert.matches("^usage: perflua %[options%] %[script %[args%]%]\n", out)
    for _, f in ipairs(cli.INTERPRETER) do assert.matches("\n  " .. f[1], out, 1, true) end
    for _, c in ipairs(commands()) do
      assert.matches("\n  " .. c._name .. " +" .. c._summary:gsub("%p", "%%%0") .. "\n", out)
    end
    assert.equals("", err)
    local code2, out2 = perflua "-h"
    assert.equals(0, code2)
    assert.equals(out, out2)
  end)

  test("perflua --version names perflib's version and Lua's", function()
    local version = files.read("src/core/perflib.h"):match '#define PL_VERSION "([^"]+)"'
    local code, out = perflua "--version"
    assert.equals(0, code)
    assert.matches("^perflua %(perflib " .. version:gsub("%.", "%%.") .. "%) on Lua 5%.4%.%d+\n$", out)
  end)

  test("every subcommand's --help and -h exit 0 and show its options and arguments", function()
    for _, c in ipairs(commands()) do
      local code, out, err = perflua(c._name .. " --help")
      assert.equals(0, code, c._name .. ": " .. err)
      assert.equals("", err)
      assert.matches("^usage: perflua " .. c._name .. " ", out)
      for _, name in ipairs(shown(c)) do
        assert.is_truthy(out:find(name, 1, true), c._name .. " --help lacks " .. name)
      end
      assert.matches("Exit status:\n   0 success\n", out, 1, true)
      local code2, out2 = perflua(c._name .. " -h")
      assert.equals(0, code2)
      assert.equals(out, out2)
    end
  end)

  test("perflua top --help shows its options (perflib.top runs it when present)", function()
    local code, out = perflua "top --help"
    assert.equals(0, code)
    assert.matches("usage: perflua top [--sort COUNTER] [--reverse] [--interval SECONDS] [--count N] [-h] [<SET>]",
      (out:gsub("\n%s+", " ")), 1, true)
    assert.is_nil(out:find("--list-countersets", 1, true))   -- the completion's helper is hidden
  end)

  test("an unknown subcommand is a message on stderr and exit 2", function()
    local code, out, err = perflua "frobnicate"
    assert.equals(2, code)
    assert.equals("", out)
    assert.equals("perflua: unknown command 'frobnicate' (perflua --help lists the commands)\n", err)
  end)

  test("an unknown option of any subcommand names the command and the option, exit 2", function()
    for _, c in ipairs(commands()) do
      local code, out, err = perflua(c._name .. " --frobnicate")
      assert.equals(2, code, c._name)
      assert.equals("", out)
      assert.matches("^perflua " .. c._name .. ": unexpected %-%-frobnicate: no such option\nusage: perflua "
        .. c._name, err)
    end
  end)

  test("missing and malformed arguments name themselves, exit 2", function()
    local cases = {
      { "explain rules.lua", "perflua explain: missing argument 'RULE'" },
      { "replay", "perflua replay: missing argument 'RULES.lua'" },
      { "monitor r.lua --interval 0", "perflua monitor: --interval needs a positive number" },
      { "monitor r.lua --interval -0.5", "perflua monitor: --interval needs a positive number" },
      { "monitor r.lua --seconds soon", "perflua monitor: --seconds needs a positive number" },
      { "monitor r.lua --interval", "perflua monitor: option '--interval' requires an argument" },
      { "top --count 0", "perflua top: --count needs a whole number" },
      { "top --count 1.5", "perflua top: --count needs a whole number" },
      { "serve --max-clients -3", "perflua serve: --max-clients needs a whole number" },
      { "serve --timeout x", "perflua serve: --timeout needs a whole number" },
      { "promrules a.lua b.lua", "perflua promrules: too many arguments" },
    }
    for _, case in ipairs(cases) do
      local code, out, err = perflua(case[1])
      assert.equals(2, code, case[1] .. ": " .. err)
      assert.equals("", out)
      assert.equals(case[2], err:match "^[^\n]*", case[1])
    end
  end)

  test("record and replay print the command line's usage when given nothing to do", function()
    local code, out, err = perflua "record /nonexistent/x.blg"
    assert.equals(2, code)
    assert.equals("", out)
    local _, help = perflua "record --help"
    local usage = help:match "^(usage: .-)\n\n"
    assert.equals(usage .. "\nRecord counter paths (and the sources of a rules file) to a log that perflua\n"
      .. "replay, relog, plot and perflib.open_log read: a binary log, or an SQLite log\n"
      .. "for OUT.db, .sqlite or .sqlite3; an existing OUT is refused unless --force is\n"
      .. "given.\n", err)
    assert.matches("^usage: perflua replay %[%-%-summary%] %[%-%-sweep PCT%] %[%-%-no%-sweep%] %[%-h%]\n"
      .. "       <RULES%.lua> <LOG>\n", cli.usage "replay")
    assert.has_error(function() cli.usage "nope" end, "bad argument #1 to 'usage' (no command 'nope')")
  end)

  test("a bare word that is no command but a file runs as a script", function()
    local dir, remove = files.tempdir()
    files.write(dir .. "/hello", "print('hello from', arg[0], ...)\n")
    local code, out, err = sh("cd " .. q(dir) .. " && " .. files.cwd() .. "/" .. PERFLUA .. " hello a b")
    remove()
    assert.equals(0, code, err)
    assert.equals("hello from\thello\ta\tb\n", out)
  end)

  test("check --quiet drops the summary; record --quiet its progress lines", function()
    local code, out, err = perflua "check --quiet examples/rules/default.lua"
    assert.equals(0, code, err)
    assert.equals("", out)
    local dir, remove = files.tempdir()
    code, out, err = perflua(("record %s/m.blg --quiet --interval 0.1 --seconds 0.25 '\\Memory\\Available Bytes'")
      :format(dir))
    local rec = files.read(dir .. "/m.blg")
    remove()
    assert.equals(0, code, err)
    assert.equals("", out)
    assert.equals("\137PLB\r\n\26\n", rec:sub(1, 8))           -- a binary log
  end)

  test("promrules writes the same file with -o (the old spelling) and --output", function()
    local dir, remove = files.tempdir()
    local c1, _, e1 = perflua(("promrules examples/rules/default.lua -o %s/a.yml"):format(dir))
    local c2, _, e2 = perflua(("promrules examples/rules/default.lua --output=%s/b.yml"):format(dir))
    local a, b = files.read(dir .. "/a.yml"), files.read(dir .. "/b.yml")
    remove()
    assert.equals(0, c1, e1)
    assert.equals(0, c2, e2)
    assert.matches("^# perflua promrules: Prometheus alerting rules", a)
    assert.equals(a, b)
  end)

  test("the old entry points parse through the same command line", function()
    local out, err = {}, {}
    local w = function(t) return { write = function(self, ...) for _, s in ipairs { ... } do t[#t + 1] = s end
      return self end, flush = function() end } end
    assert.equals(2, require("perflib.monitor").main("monitor", { "--bogus" }, w(out), w(err)))
    assert.matches("^perflua monitor: unexpected %-%-bogus: no such option\n", table.concat(err))
    assert.equals(0, require("perflib.serve").main({ "--help" }, w(out), w(err)))
    assert.matches("^usage: perflua serve ", table.concat(out))
  end)
end)

describe("perflua(1) and perflib(7)", function()
  local function render(page)
    return sh("groff -man -Tutf8 -ww -P-cbou " .. page)
  end

  -- the rendered text with groff's Unicode hyphens and minus signs made ASCII
  local function text(s)
    return (s:gsub("\226\128\144", "-"):gsub("\226\136\146", "-"):gsub("\u{2010}", "-"))
  end

  it("render without a groff warning", function()
    for _, page in ipairs { "build/man/perflua.1", "build/man/perflib.7" } do
      assert.is_truthy(io.open(page), page .. " not built (make all)")
      local code, out, err = render(page)
      assert.equals(0, code, err)
      assert.equals("", err, page)
      assert.is_true(#out > 2000, page)
    end
  end)

  it("perflua(1) lists every subcommand, option and argument that --help shows, and the exit statuses", function()
    local _, out = render "build/man/perflua.1"
    out = text(out)
    for _, f in ipairs(cli.INTERPRETER) do
      assert.is_truthy(out:find(f[1]:match "^%S+", 1, true), "flag " .. f[1])
    end
    for _, c in ipairs(commands()) do
      assert.matches("\n   " .. c._name .. "\n       perflua%s+" .. c._name .. "%s", out)
      local section = out:match("\n   " .. c._name .. "\n(.-)\n   %l") or out:match("\n   " .. c._name .. "\n(.*)")
      for _, name in ipairs(shown(c)) do
        assert.is_truthy(section:find(name, 1, true), "perflua(1) " .. c._name .. " lacks " .. name)
      end
    end
    assert.is_nil(out:find("list-countersets", 1, true))
    assert.matches("EXIT STATUS", out)
    for _, e in ipairs(cli.EXIT) do assert.matches("\n       " .. e[1] .. "  ", out, 1, true) end
    assert.matches("/share/perflib/rules/default.lua", out, 1, true)   -- under make all's PREFIX
  end)
end)
