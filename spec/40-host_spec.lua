-- build/perflua: the host executable, driven as a child process.
-- Every test is pending when build/perflua has not been built (make build/perflua),
-- and the REPL tests are pending when tmux is not installed.

local function sh_quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

local function readfile(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

local function writefile(path, text)
  local f = assert(io.open(path, "wb"))
  assert(f:write(text))
  assert(f:close())
end

local function shell_ok(cmd)
  return os.execute(cmd .. " >/dev/null 2>&1") == true
end

local PWD = assert(io.popen("pwd")):read("l")
-- PERFLUA_BIN points the specs at another binary (e.g. a sanitizer build).
local PERFLUA = os.getenv("PERFLUA_BIN") or PWD .. "/build/perflua"
local BUILT = shell_ok("test -x " .. sh_quote(PERFLUA))
local HAS_TMUX = shell_ok("command -v tmux")

local function mktemp_dir()
  local p = assert(io.popen("mktemp -d /tmp/perflua-spec.XXXXXX"))
  local dir = p:read("l")
  p:close()
  return dir
end

--- Run perflua with `args` (a shell fragment); returns exit code, stdout, stderr.
-- opts.stdin: text for stdin (default: /dev/null); opts.cwd; opts.env: shell prefix.
local function run(args, opts)
  opts = opts or {}
  local errfile, infile = os.tmpname(), nil
  local cmd = sh_quote(PERFLUA) .. " " .. (args or "")
  if opts.env then cmd = opts.env .. " " .. cmd end
  if opts.cwd then cmd = "cd " .. sh_quote(opts.cwd) .. " && " .. cmd end
  if opts.stdin then
    infile = os.tmpname()
    writefile(infile, opts.stdin)
    cmd = "(" .. cmd .. ") <" .. sh_quote(infile)
  else
    cmd = "(" .. cmd .. ") </dev/null"
  end
  local p = assert(io.popen(cmd .. " 2>" .. sh_quote(errfile)))
  local out = p:read("a")
  local _, how, code = p:close()
  local err = readfile(errfile) or ""
  os.remove(errfile)
  if infile then os.remove(infile) end
  assert.equal("exit", how)
  return code, out, err
end

-- Pending instead of failing when there is nothing to test.
local test = BUILT and it or function(desc)
  pending(desc .. " (build/perflua not built: make build/perflua)")
end

describe("perflua #host", function()
  local tmp

  setup(function() tmp = mktemp_dir() end)
  teardown(function() if tmp then os.execute("rm -rf " .. sh_quote(tmp)) end end)

  describe("options", function()
    test("-v prints the version and exits 0", function()
      local code, out = run("-v")
      assert.equal(0, code)
      assert.matches("^perflua %(perflib %d+%.%d+%.%d+%) on Lua 5%.4", out)
    end)

    test("-h prints the usage on stdout and exits 0", function()
      local code, out = run("-h")
      assert.equal(0, code)
      assert.matches("^usage: perflua %[options%] %[script %[args%]%]", out)
      assert.matches("%-e stat", out)
    end)

    test("an unknown option prints the usage on stderr and exits 1", function()
      local code, out, err = run("-Z")
      assert.equal(1, code)
      assert.equal("", out)
      assert.matches("^perflua: unrecognized option '%-Z'", err)
      assert.matches("usage: perflua", err)
    end)

    test("-e runs a string; several run in order", function()
      local code, out = run("-e 'x = 6' -e 'print(x * 7)'")
      assert.equal(0, code)
      assert.equal("42\n", out)
    end)

    test("-e without its argument is an error", function()
      local code, _, err = run("-e")
      assert.equal(1, code)
      assert.matches("'%-e' needs argument", err)
    end)

    test("an error in -e exits 1 with message and traceback", function()
      local code, _, err = run("-e 'error(\"bad\")'")
      assert.equal(1, code)
      assert.matches("^perflua: %(command line%):1: bad\nstack traceback:\n", err)
    end)

    test("-l mod and -l g=mod require into globals", function()
      local code, out = run("-l pp=perflib.pretty -e 'pp.print({1, x = 2.0})'")
      assert.equal(0, code)
      assert.equal("{ 1, x = 2.0 }\n", out)
    end)
  end)

  describe("scripts", function()
    test("runs a script with arguments in ... and the arg table", function()
      local script = tmp .. "/args.lua"
      writefile(script, [[
        print(select("#", ...), ...)
        print(arg[0] == ]] .. string.format("%q", script) .. [[, #arg, arg[1], arg[2], arg[3])
        print(arg[-1] ~= nil, arg[-2])
      ]])
      local code, out, err = run(sh_quote(script) .. " one 'two words' ''")
      assert.equal("", err)
      assert.equal(0, code)
      assert.equal("3\tone\ttwo words\t\ntrue\t3\tone\ttwo words\t\ntrue\tnil\n", out)
    end)

    test("a script gets no perflib global, but require works", function()
      local code, out = run("-e 'print(perflib, type(require \"perflib\"))'")
      assert.equal(0, code)
      assert.equal("nil\ttable\n", out)
    end)

    test("a failing script exits 1 with 'perflua: message' and a traceback", function()
      local script = tmp .. "/boom.lua"
      writefile(script, "local function inner() error('boom') end\ninner()\n")
      local code, out, err = run(sh_quote(script))
      assert.equal(1, code)
      assert.equal("", out)
      assert.equal(1, select(2, err:gsub("^perflua: [^\n]*boom.lua:1: boom\n", "")))
      assert.matches("stack traceback:", err)
      assert.matches("in local 'inner'", err)
    end)

    test("a non-string error object is reported", function()
      local code, _, err = run("-e 'error({})'")
      assert.equal(1, code)
      assert.matches("^perflua: %(error object is a table value%)", err)
    end)

    test("a missing script exits 1", function()
      local code, _, err = run(sh_quote(tmp .. "/nope.lua"))
      assert.equal(1, code)
      assert.matches("^perflua: cannot open .*nope%.lua", err)
    end)

    test("a syntax error exits 1", function()
      local script = tmp .. "/syntax.lua"
      writefile(script, "x = = 1\n")
      local code, _, err = run(sh_quote(script))
      assert.equal(1, code)
      assert.matches("^perflua: .*syntax%.lua:1:", err)
    end)

    test("os.exit sets the exit status", function()
      assert.equal(3, (run("-e 'os.exit(3)'")))
      assert.equal(0, (run("-e 'os.exit(true)'")))
      assert.equal(1, (run("-e 'os.exit(false)'")))
      assert.equal(0, (run("-e 'io.write(\"x\") os.exit(0, true)'")))
    end)

    test("'-' reads the script from stdin, arguments follow", function()
      local code, out = run("- a b", { stdin = "print(arg[0], ...)\n" })
      assert.equal(0, code)
      assert.equal("-\ta\tb\n", out)
    end)

    test("with no script and stdin not a terminal, stdin is the script", function()
      local code, out = run("", { stdin = "print('from stdin', 1 + 1)\n" })
      assert.equal(0, code)
      assert.equal("from stdin\t2\n", out)
      local code2, _, err = run("", { stdin = "error('in stdin')\n" })
      assert.equal(1, code2)
      assert.matches("^perflua: stdin:1: in stdin", err)
    end)

    test("runs examples/hello.lua", function()
      local code, out, err = run(sh_quote(PWD .. "/examples/hello.lua"))
      assert.equal("", err)
      assert.equal(0, code)
      assert.truthy(#out > 0)
    end)
  end)

  describe("embedded modules", function()
    local env = "env -u LUA_PATH -u LUA_PATH_5_4 -u LUA_CPATH -u LUA_CPATH_5_4"
      .. " -u LUA_INIT -u LUA_INIT_5_4"

    test("require 'perflib' works from any directory with no LUA_PATH", function()
      local code, out, err = run([[-e 'local p = require "perflib"
        print(type(p), type(require "perflib.core"), type(require "perflib.pretty"))
        print(package.preload["perflib.core"] ~= nil, package.preload["perflib"] ~= nil)']],
        { cwd = tmp, env = env })
      assert.equal("", err)
      assert.equal(0, code)
      assert.equal("table\ttable\ttable\ntrue\ttrue\n", out)
    end)

    test("embedded chunks are named after their source files", function()
      local code, out = run(
        [[-e 'print(debug.getinfo(require("perflib.pretty").write, "S").source)']],
        { cwd = tmp, env = env })
      assert.equal(0, code)
      assert.equal("@lua/perflib/pretty.lua\n", out)
    end)

    test("still honours LUA_PATH_5_4 for user modules, and -E ignores it", function()
      writefile(tmp .. "/usermod.lua", "return { answer = 42 }\n")
      local path = "LUA_PATH_5_4=" .. sh_quote(tmp .. "/?.lua;;")
      local code, out = run("-e 'print(require(\"usermod\").answer)'", { env = path })
      assert.equal(0, code)
      assert.equal("42\n", out)
      local code2, _, err = run("-E -e 'require(\"usermod\")'", { env = path, cwd = "/" })
      assert.equal(1, code2)
      assert.matches("module 'usermod' not found", err)
    end)

    test("honours LUA_INIT like lua5.4", function()
      local code, out = run("-e 'print(INIT)'", { env = "LUA_INIT_5_4='INIT = 7'" })
      assert.equal(0, code)
      assert.equal("7\n", out)
    end)
  end)
end)

-- ---- the REPL, through a private tmux server -------------------------------

local repl_test = (BUILT and HAS_TMUX) and it or function(desc)
  pending(desc .. (BUILT and " (tmux not installed)" or " (build/perflua not built)"))
end

describe("perflua REPL #host #repl", function()
  local sock = ("perflua-spec-%d-%d"):format(os.time(), math.random(1, 1e6))
  local home
  local function tmux(args) return "tmux -L " .. sock .. " " .. args end

  local function screen()
    local p = assert(io.popen(tmux("capture-pane -p -J -S - -t repl 2>/dev/null")))
    local s = p:read("a")
    p:close()
    return s
  end

  -- Poll the pane until `pattern` shows up (5 s at most); return the pane.
  local function wait_for(pattern, plain)
    local s
    for _ = 1, 50 do
      s = screen()
      if s:find(pattern, 1, plain) then return s end
      os.execute("sleep 0.1")
    end
    error("timed out waiting for " .. pattern .. " in:\n" .. s, 2)
  end

  local function send(line)
    assert(shell_ok(tmux("send-keys -t repl -l " .. sh_quote(line))))
    assert(shell_ok(tmux("send-keys -t repl Enter")))
  end

  setup(function()
    if not (BUILT and HAS_TMUX) then return end
    home = mktemp_dir()
    assert(shell_ok(tmux("new-session -d -s repl -x 150 -y 50 "
      .. sh_quote("env HOME=" .. sh_quote(home) .. " " .. sh_quote(PERFLUA)
        .. "; echo PERFLUA-EXIT=$?; sleep 60"))))
  end)

  teardown(function()
    if not (BUILT and HAS_TMUX) then return end
    os.execute(tmux("kill-server") .. " >/dev/null 2>&1")
    if home then os.execute("rm -rf " .. sh_quote(home)) end
  end)

  repl_test("greets with the banner", function()
    wait_for("perflib %d+%.%d+%.%d+ on Lua 5%.4 \u{2014} perflib is preloaded as `perflib`\n> ")
  end)

  repl_test("echoes expressions: 1+1 prints 2", function()
    send("1+1")
    wait_for("\n> 1+1\n2\n> ", true)
  end)

  repl_test("has the perflib global", function()
    send("type(perflib)")
    wait_for('\n> type(perflib)\n"table"\n> ', true)
  end)

  repl_test("continues an unfinished statement over several lines", function()
    send("function f()")
    wait_for("\n> function f()\n>> ", true)
    send("  return 40 + 2")
    send("end")
    send("f()")
    wait_for("\n>>   return 40 + 2\n>> end\n> f()\n42\n> ", true)
  end)

  repl_test("pretty-prints tables and several results", function()
    send('{1, 2.5, x = "y", t = {a = 1}}, nil, 0.1')
    -- tmux turns the tabs between results into spaces
    wait_for('\n{ 1, 2%.5, t = { a = 1 }, x = "y" } +nil +0%.1\n> ')
  end)

  repl_test("reports errors and keeps going", function()
    send('error("oops")')
    wait_for("\nstdin:1: oops\nstack traceback:\n", true)
    send("'alive'")
    wait_for("\n> 'alive'\n\"alive\"\n> ", true)
  end)

  repl_test("Ctrl-C interrupts a running loop", function()
    send("while true do end")
    os.execute("sleep 0.3")
    assert(shell_ok(tmux("send-keys -t repl C-c")))
    wait_for("interrupted!", true)
    send("'after'")
    wait_for("\n> 'after'\n\"after\"\n> ", true)
  end)

  repl_test("exits on Ctrl-D with status 0 and saves the history", function()
    assert(shell_ok(tmux("send-keys -t repl C-d")))
    wait_for("PERFLUA-EXIT=0", true)
    local hist = readfile(home .. "/.perflua_history")
    assert.is_string(hist)
    assert.truthy(hist:find("1+1", 1, true))
  end)
end)
