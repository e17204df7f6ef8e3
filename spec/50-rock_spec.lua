-- The rockspec builds offline with Debian's luarocks and the result loads.
-- Run in the plain pass only (not again under the sanitizers).
describe("perflib-scm-1.rockspec", function()
  local it_plain = os.getenv "PERFLIB_CORE" and pending or it
  it_plain("builds with luarocks --lua-version=5.4 make --tree=... and loads", function()
    local ok = os.execute "make -s rock > build/rock.log 2>&1"
    assert.is_true(ok, "make rock failed: see build/rock.log")
    local p = assert(io.popen(
      "LUA_PATH_5_4='build/rocktree/share/lua/5.4/?.lua;build/rocktree/share/lua/5.4/?/init.lua' " ..
      "LUA_CPATH_5_4='build/rocktree/lib/lua/5.4/?.so' lua5.4 -e '" ..
      "local p = require \"perflib\"; local q = p.query(); " ..
      "print(p._VERSION, (q:add \"\\\\Memory\\\\Available Bytes\"), " ..
      "package.searchpath(\"perflib.core\", package.cpath))' 2>&1"))
    local out = p:read "a"
    p:close()
    assert.equals("perflib 0.1.0\t1\tbuild/rocktree/lib/lua/5.4/perflib/core.so\n", out)
  end)

  it_plain("installs perflua, and its packed rock installs it again into another tree", function()
    -- after the build above (make rock): build/rocktree and the rock luarocks pack wrote
    local function sh(cmd)
      local p = assert(io.popen("env -u LD_PRELOAD sh -c '" .. cmd .. "' 2>&1"))
      local out = p:read "a"
      local ok, _, code = p:close()
      return ok and 0 or code, out
    end
    local code, out = sh "build/rocktree/bin/perflua --version"
    assert.equals(0, code, out)
    assert.matches("^perflua %(perflib %d+%.%d+%.%d+%) on Lua 5%.4", out)
    code, out = sh "cd / && perflua_bin=$OLDPWD/build/rocktree/bin/perflua && $perflua_bin check --help"
    assert.equals(0, code, out)
    assert.matches("^usage: perflua check", out)
    local rock = select(2, sh "ls build/perflib-scm-1.*.rock"):match "^(%S+)\n$"
    assert.is_truthy(rock, "make rock packed no rock")
    code, out = sh("rm -rf build/rocktree2 && luarocks --lua-version=5.4 --tree=build/rocktree2 install " .. rock)
    assert.equals(0, code, out)
    code, out = sh "build/rocktree2/bin/perflua -e \"print(require(\\\"perflib\\\")._VERSION)\""
    assert.equals(0, code, out)
    assert.equals("perflib 0.1.0\n", out)
    assert.is_truthy(io.open "build/rocktree2/lib/lua/5.4/perflib/core.so")
    assert.is_truthy(io.open "build/rocktree2/share/lua/5.4/perflib/cli.lua")
    sh "rm -rf build/rocktree2"
  end)
end)
