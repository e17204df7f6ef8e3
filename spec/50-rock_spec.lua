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
end)
