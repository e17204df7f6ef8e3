-- Values a user may not read say so (issue 14, item 5): as an unprivileged
-- user (setpriv to nobody), another user's process's IO counters are
-- no_access, not no_data, and so is _Total (a sum of the readable part is no
-- total); the user's own process reads; the REPL's grid says why.
local files = dofile "spec/support/files.lua"

local function can_drop()
  return files.sh("id -u"):match("^0") and files.sh("command -v setpriv") ~= ""
end

-- Runs Lua code as nobody against a world-readable copy of the module.
local function as_nobody(code)
  local dir, remove = files.tempdir()
  local cwd = files.cwd()
  assert(os.execute(("chmod 755 %s && mkdir -p %s/perflib %s/lua && cp %s/build/perflib/core.so %s/perflib/ "
    .. "&& cp -r %s/lua/perflib %s/lua/ && chmod -R a+rX %s"):format(dir, dir, dir, cwd, dir, cwd, dir, dir)))
  files.write(dir .. "/run.lua", code)
  os.execute("chmod a+r " .. dir .. "/run.lua")
  local out = files.sh(("cd / && LUA_PATH='%s/lua/?.lua;%s/lua/?/init.lua;;' LUA_CPATH='%s/?.so;;' "
    .. "setpriv --reuid=65534 --regid=65534 --clear-groups lua5.4 %s/run.lua 2>&1"):format(dir, dir, dir, dir))
  remove()
  return out
end

describe("values this user may not read", function()
  local test = can_drop() and it or pending

  test("are no_access for another user's process, and for _Total; the own process reads", function()
    local out = as_nobody [==[
      local perflib = require "perflib"
      local q = perflib.query()
      q:add [[\Process(*)\IO Read Bytes/sec]]
      q:add [[\Process(*)\ID Process]]
      local s0 = q:collect()
      local s1 = q:collect()
      -- pid 1 is root's; this process is nobody's own
      local f = io.open("/proc/self/stat")
      local pid = tonumber(f:read("a"):match("^%d+"))
      f:close()
      local init, me
      for inst, v in s1:raw(2) do
        if v == 1 then init = inst end
        if v == pid then me = inst end
      end
      local _, st_init = s1:value(1, init, "IO Read Bytes/sec")
      local _, st_total = s1:value(1, "_Total", "IO Read Bytes/sec")
      local v_me = s1:value(1, me, "IO Read Bytes/sec")
      local st_fmt
      for inst, _, st in s1:formatted(s0, { index = 1 }) do
        if inst == init then st_fmt = st end
      end
      print("init", st_init, st_fmt)
      print("total", st_total)
      print("me", math.type(v_me))
      print(require("perflib.repl").sample_text(s1, s0))
    ]==]
    assert.matches("init\tno_access\tno_access\n", out)
    assert.matches("total\tno_access\n", out)
    assert.matches("me\tinteger\n", out)
    assert.matches("no_access: a process this user may not inspect", out, 1, true)
  end)
end)
