-- perflib.core.spawn / wait / syslog / kill: child processes without a shell
-- (internal: for the monitor's actions; not in require "perflib").
local perflib = require "perflib"
local core = require "perflib.core"

local files = dofile "spec/support/files.lua"
local slurp = files.slurp
local syslogd = dofile "spec/support/syslogd.lua"

local function run(argv, env, opts)
  local pid, msg = core.spawn(argv, env, opts)
  assert(pid, msg)
  return core.wait(pid)
end

describe("perflib.core.spawn", function()
  local dir
  local remove
  before_each(function() dir, remove = files.tempdir() end)
  after_each(function() remove() end)

  it("passes arguments literally: spaces and shell metacharacters mean nothing", function()
    local out = dir .. "/out"
    local args = { "a b", "$HOME", "`id`", "$(id)", "x;y", "'q'", '"d"', "*", "|", "&&", "\\n", "" }
    local argv = { "/bin/echo" }
    for _, a in ipairs(args) do argv[#argv + 1] = a end
    local how, code = run(argv, nil, { stdout = out })
    assert.equals("exited", how)
    assert.equals(0, code)
    assert.equals(table.concat(args, " ") .. "\n", slurp(out))
  end)

  it("looks the program up in PATH when argv[1] has no slash", function()
    local out = dir .. "/out"
    assert.same({ "exited", 0 }, { run({ "echo", "hi" }, nil, { stdout = out }) })
    assert.equals("hi\n", slurp(out))
  end)

  it("adds env to the inherited environment, or replaces it with inherit = false", function()
    local out = dir .. "/env"
    assert.same({ "exited", 0 },
      { run({ "/usr/bin/env" }, { "PERFLIB_A=x y", PERFLIB_B = "$q;", PERFLIB_N = 42 }, { stdout = out }) })
    local env = slurp(out)
    assert.matches("\nPERFLIB_A=x y\n", "\n" .. env)
    assert.matches("\nPERFLIB_B=%$q;\n", "\n" .. env)
    assert.matches("\nPERFLIB_N=42\n", "\n" .. env)
    assert.matches("\nPATH=", "\n" .. env)                -- inherited
    os.remove(out)
    assert.same({ "exited", 0 }, { run({ "/usr/bin/env" }, { "ONLY=1" }, { inherit = false, stdout = out }) })
    assert.equals("ONLY=1\n", slurp(out))
  end)

  it("overrides an inherited variable of the same name", function()
    local out = dir .. "/env"
    run({ "/usr/bin/env" }, { PATH = "/nowhere" }, { stdout = out })
    local n = 0
    for line in slurp(out):gmatch "[^\n]+" do
      if line:match "^PATH=" then n = n + 1; assert.equals("PATH=/nowhere", line) end
    end
    assert.equals(1, n)
  end)

  it("gives the child /dev/null as stdin and appends stderr to a file", function()
    local out, err = dir .. "/out", dir .. "/err"
    assert.same({ "exited", 0 }, { run({ "/bin/cat" }, nil, { stdout = out }) })
    assert.equals("", slurp(out))
    assert.same({ "exited", 2 }, { run({ "/bin/ls", dir .. "/missing" }, nil, { stderr = err }) })
    assert.matches("missing", slurp(err))
  end)

  it("reports exit codes", function()
    assert.same({ "exited", 0 }, { run { "/bin/true" } })
    assert.same({ "exited", 1 }, { run { "/bin/false" } })
    assert.same({ "exited", 7 }, { run { "/bin/sh", "-c", "exit 7" } })   -- the test's own shell
  end)

  it("reports signals", function()
    assert.same({ "signaled", 15 }, { run { "/bin/sh", "-c", "kill -TERM $$" } })
    assert.same({ "signaled", 9 }, { run { "/bin/sh", "-c", "kill -KILL $$" } })
  end)

  it("returns nil, message, errno for a missing or non-executable program", function()
    local pid, msg, e = core.spawn { "/nonexistent/prog", "x" }
    assert.is_nil(pid)
    assert.matches("/nonexistent/prog", msg)
    assert.equals(2, e)                                       -- ENOENT
    pid, msg, e = core.spawn { "no-such-program-perflib" }
    assert.is_nil(pid)
    assert.matches("no%-such%-program%-perflib", msg)
    assert.equals(2, e)
    local f = assert(io.open(dir .. "/script", "w"))
    f:write "echo not executable\n"
    f:close()
    pid, msg, e = core.spawn { dir .. "/script" }
    assert.is_nil(pid)
    assert.matches("script", msg)
    assert.equals(13, e)                                      -- EACCES, and never a shell fallback
  end)

  it("does not run a script without #! through a shell", function()
    local f = assert(io.open(dir .. "/noshebang", "w"))
    f:write("echo ran > '" .. dir .. "/ran'\n")
    f:close()
    os.execute("chmod +x '" .. dir .. "/noshebang'")
    local pid, _, e = core.spawn { dir .. "/noshebang" }
    if pid then core.wait(pid) end
    assert.is_nil(pid)
    assert.equals(8, e)                                       -- ENOEXEC
    assert.is_nil(slurp(dir .. "/ran"))
  end)

  it("raises on bad arguments, naming the argument", function()
    local function err(f)
      local ok, msg = pcall(f)
      assert.is_false(ok)
      return msg
    end
    assert.matches("#1", err(function() core.spawn "/bin/true" end))
    assert.matches("argv must name a program", err(function() core.spawn {} end))
    assert.matches("argv%[2%] must be a string", err(function() core.spawn { "/bin/echo", {} } end))
    assert.matches("argv%[1%] must be a string", err(function() core.spawn { 1 } end))
    assert.matches("NUL", err(function() core.spawn { "/bin/echo", "a\0b" } end))
    assert.matches("empty", err(function() core.spawn { "" } end))
    assert.matches("#2", err(function() core.spawn({ "/bin/true" }, "X=1") end))
    assert.matches("NAME=value", err(function() core.spawn({ "/bin/true" }, { "X" }) end))
    assert.matches("bad env name", err(function() core.spawn({ "/bin/true" }, { ["A=B"] = "1" }) end))
    assert.matches("#2", err(function() core.spawn({ "/bin/true" }, { X = {} }) end))
    assert.matches("unknown option 'shell'", err(function() core.spawn({ "/bin/true" }, nil, { shell = true }) end))
    assert.matches("#3", err(function() core.spawn({ "/bin/true" }, nil, { stdout = 1 }) end))
  end)
end)

describe("perflib.core.wait", function()
  it("returns false with nohang while the child runs, then its status", function()
    local pid = assert(core.spawn { "/bin/sleep", "0.3" })
    assert.is_false(core.wait(pid, "nohang"))
    assert.is_false(core.wait(pid, true))
    local how, code
    for _ = 1, 100 do
      how, code = core.wait(pid, "nohang")
      if how then break end
      perflib.sleep(0.02)
    end
    assert.equals("exited", how)
    assert.equals(0, code)
  end)

  it("returns nil, message, ECHILD for a pid that is not a child (or already reaped)", function()
    local pid = assert(core.spawn { "/bin/true" })
    assert.equals("exited", core.wait(pid))
    local r, msg, e = core.wait(pid)
    assert.is_nil(r)
    assert.matches("^wait: ", msg)
    assert.equals(10, e)                                      -- ECHILD
  end)

  it("raises on bad arguments", function()
    assert.has_error(function() core.wait() end)
    assert.has_error(function() core.wait(0) end)
    assert.has_error(function() core.wait(-1) end)
    assert.has_error(function() core.wait(1.5) end)
    assert.has_error(function() core.wait(1, "hang") end)
  end)
end)

describe("perflib.core.syslog", function()
  it("logs with every priority name and an ident, to a daemon that is listening", function()
    local dir, remove = files.tempdir()
    local sock = syslogd.start(dir)
    assert(sock, "the syslog listener did not start (python3 is a test dependency)")
    for _, p in ipairs { "crit", "err", "error", "warning", "warn", "notice", "info", "debug" } do
      assert.is_true(core.syslog(p, "perflib spec: " .. p .. " %s %n", nil, sock))
    end
    assert.is_true(core.syslog("info", "perflib spec with ident", "perflib-spec", sock))
    assert.is_true(core.syslog("debug", "back to the default ident", nil, sock))
    local want = syslogd.records(10)
    remove()
    assert.equals(10, #want)
    local pri = {}
    for i, line in ipairs(want) do pri[i] = tonumber(line:match "^<(%d+)>") end
    assert.same({ 10, 11, 11, 12, 12, 13, 14, 15, 14, 15 }, pri)     -- facility user (8) + level
    assert.matches("^<10>%a+ +%d+ %d%d:%d%d:%d%d perflib%[%d+%]: perflib spec: crit %%s %%n$", want[1])
    assert.matches(" perflib%-spec%[%d+%]: perflib spec with ident$", want[9])
    assert.matches(" perflib%[%d+%]: back to the default ident$", want[10])
  end)

  it("says so when no daemon takes the message", function()
    local ok, msg, e = core.syslog("info", "x", nil, "/nonexistent/log")
    assert.is_nil(ok)
    assert.equals("syslog /nonexistent/log: No such file or directory", msg)
    assert.equals(2, e)                                       -- ENOENT
  end)

  it("raises on a bad priority, message or ident", function()
    local ok, msg = pcall(core.syslog, "loud", "x")
    assert.is_false(ok)
    assert.matches("#1", msg)
    assert.has_error(function() core.syslog("info") end)
    assert.has_error(function() core.syslog("info", {}) end)
    assert.has_error(function() core.syslog("info", "x", "") end)
    assert.has_error(function() core.syslog("info", "x", ("i"):rep(64)) end)
  end)
end)

describe("misuse of the process and log helpers names the argument", function()
  it("syslog refuses an ident a log line could not carry, a long socket path, a NUL in the message", function()
    for _, ident in ipairs { "a b", "a:b", "a[1]", "a\nb" } do
      local ok, err = pcall(core.syslog, "info", "x", ident)
      assert.is_false(ok)
      assert.matches("bad argument #3", err)
    end
    local ok, err = pcall(core.syslog, "info", "x", "perflib", ("/tmp/" .. ("s"):rep(200)))
    assert.is_false(ok)
    assert.matches("socket path too long", err)
    ok, err = pcall(core.syslog, "info", "a\0b")
    assert.is_false(ok)
    assert.matches("message contains a NUL byte", err)
  end)

  it("kill refuses pids that are no child's (0, 1, negatives: whole groups or init)", function()
    for _, pid in ipairs { 0, 1, -1, -12345 } do
      local ok, err = pcall(core.kill, pid, "TERM")
      assert.is_false(ok)
      assert.matches("pid must be a child's process id", err)
    end
  end)

  it("sandbox refuses a limit or a budget out of range", function()
    local ok, err = pcall(core.sandbox, 0, 1024, nil, function() end)
    assert.is_false(ok)
    assert.matches("positive instruction limit expected", err)
    ok, err = pcall(core.sandbox, 1000, 0, nil, function() end)
    assert.is_false(ok)
    assert.matches("memory budget out of range", err)
  end)
end)
