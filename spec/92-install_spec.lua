-- make install into a DESTDIR: the files it puts there (libraries, perflua,
-- the Lua module, the default rules, the man pages, bash completion, the
-- systemd unit), what they say, and make uninstall leaving none of them.
-- Plain pass only: it runs make, which the sanitizer pass need not repeat.
local files = dofile "spec/support/files.lua"

local it_plain = os.getenv "PERFLIB_CORE" and pending or it

local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function sh(cmd)
  local p = assert(io.popen("env -u LD_PRELOAD sh -c " .. q(cmd) .. " 2>&1"))
  local out = p:read "a"
  local ok, _, code = p:close()
  return ok and 0 or code, out
end

-- every file and symbolic link below dir, relative to it, sorted
local function tree(dir)
  local _, out = sh("cd " .. q(dir) .. " && find . \\( -type f -o -type l \\) | sed 's|^\\./||' | sort")
  local t = {}
  for line in out:gmatch "([^\n]+)\n" do t[#t + 1] = line end
  return t
end

-- the repository's files matching a glob, by their names
local function names(glob)
  local _, out = sh("for f in " .. glob .. "; do basename \"$f\"; done")
  local t = {}
  for line in out:gmatch "([^\n]+)\n" do t[#t + 1] = line end
  return t
end

-- the other Luas make install serves: those whose pkg-config package is installed
local function other_luas()
  local t = {}
  for _, v in ipairs { "5.1", "5.2", "5.3" } do
    if sh("pkg-config --exists lua" .. v) == 0 then t[#t + 1] = v end
  end
  return t
end

local function expected()
  local P = "usr/local/"
  local t = { P .. "bin/perflua", P .. "libexec/perflib/perflib-plugin-host", P .. "lib/lua/5.4/perflib/core.so",
    P .. "share/man/man1/perflua.1", P .. "share/man/man7/perflib.7",
    P .. "share/bash-completion/completions/perflua", P .. "lib/systemd/system/perflua-monitor.service",
    P .. "lib/pkgconfig/perflib.pc", P .. "lib/pkgconfig/perflib-provider.pc" }
  for _, l in ipairs { "libperflib", "libperflib-provider" } do
    for _, ext in ipairs { ".a", ".so", ".so.0" } do t[#t + 1] = P .. "lib/" .. l .. ext end
  end
  for _, h in ipairs { "perflib_v2.h", "perflib_v1.h", "perflib_wintypes.h", "pl_winperf.h", "perflib_provider.h" } do
    t[#t + 1] = P .. "include/perflib/" .. h
  end
  for _, n in ipairs(names "lua/perflib/*.lua") do t[#t + 1] = P .. "share/lua/5.4/perflib/" .. n end
  for _, n in ipairs(names "lua/perflib/rules/*.lua") do t[#t + 1] = P .. "share/lua/5.4/perflib/rules/" .. n end
  for _, n in ipairs(names "examples/rules/*.lua") do t[#t + 1] = P .. "share/perflib/rules/" .. n end
  for _, v in ipairs(other_luas()) do          -- the module for each other Lua whose headers are here
    t[#t + 1] = P .. "lib/lua/" .. v .. "/perflib/core.so"
    for _, n in ipairs(names "lua/perflib/*.lua") do t[#t + 1] = P .. "share/lua/" .. v .. "/perflib/" .. n end
    for _, n in ipairs(names "lua/perflib/rules/*.lua") do
      t[#t + 1] = P .. "share/lua/" .. v .. "/perflib/rules/" .. n
    end
  end
  table.sort(t)
  return t
end

-- key = value lines of a unit file, by section
local function unit_keys(text)
  local keys, section = {}, nil
  for line in text:gmatch "([^\n]*)\n" do
    local s = line:match "^%[(.+)%]$"
    if s then section = s; keys[s] = keys[s] or {} end
    local k, v = line:match "^(%w+)=(.*)$"
    if k and section then keys[section][k] = v end
  end
  return keys
end

describe("make install and make uninstall", function()
  local dir, remove
  before_each(function() dir, remove = files.tempdir() end)
  after_each(function() remove() end)

  it_plain("install exactly the listed files under DESTDIR and uninstall removes them all", function()
    local code, out = sh("make -s install DESTDIR=" .. q(dir) .. " PREFIX=/usr/local")
    assert.equals(0, code, out)
    assert.same(expected(), tree(dir))
    local share = dir .. "/usr/local/share/"
    assert.equals(files.read "examples/rules/default.lua", files.read(share .. "perflib/rules/default.lua"))
    local _, link = sh("readlink " .. q(dir .. "/usr/local/lib/libperflib.so"))
    assert.equals("libperflib.so.0\n", link)
    -- the installed perflua runs from anywhere: its facade and argparse are built in
    local c2, help = sh("cd / && " .. q(dir .. "/usr/local/bin/perflua") .. " check --help")
    assert.equals(0, c2, help)
    assert.matches("^usage: perflua check", help)
    -- the completion and man pages are the generated ones
    assert.equals(files.read "build/perflua.bash", files.read(share .. "bash-completion/completions/perflua"))
    assert.matches("/usr/local/share/perflib/rules/default.lua", files.read(share .. "man/man1/perflua.1"), 1, true)
    code, out = sh("make -s uninstall DESTDIR=" .. q(dir) .. " PREFIX=/usr/local")
    assert.equals(0, code, out)
    assert.same({}, tree(dir))
    local _, left = sh("cd " .. q(dir) .. " && find . -name '*perflib*'")
    assert.equals("", left)          -- perflib's own directories went too
  end)

  it_plain("install the module for every Lua: lua5.1's loads in LuaJIT too, with define's timeout working", function()
    local code, out = sh("make -s install DESTDIR=" .. q(dir) .. " PREFIX=/usr/local")
    assert.equals(0, code, out)
    local script = [[
local perflib = require "perflib"
local q = perflib.query()
assert(q:add "\\Memory\\Available Bytes")
local s = assert(q:collect())
local v = assert(s:value(1))
assert(perflib.define { name = "Installed Loop", counters = { { name = "V" } }, timeout = 0.05,
                        collect = function() while true do end end })
local q2 = perflib.query()
assert(q2:add "\\Installed Loop(*)\\V")
local r = assert(q2:collect()):results()[1]
print(_VERSION, type(v), r.status, r.error)
]]
    files.write(dir .. "/t.lua", script)
    local runs = { ["5.4"] = { "lua5.4" } }
    for _, v in ipairs(other_luas()) do runs[v] = { "lua" .. v } end
    if runs["5.1"] then runs["5.1"][2] = "luajit" end
    local n = 0
    for v, luas in pairs(runs) do
      local env = ("LUA_PATH=%s LUA_CPATH=%s "):format(q(dir .. "/usr/local/share/lua/" .. v .. "/?.lua;" .. dir ..
        "/usr/local/share/lua/" .. v .. "/?/init.lua;;"), q(dir .. "/usr/local/lib/lua/" .. v .. "/?.so;;"))
      for _, lua in ipairs(luas) do
        local c, o = sh("cd / && " .. env .. lua .. " " .. q(dir .. "/t.lua"))
        assert.equals(0, c, lua .. ": " .. o)
        -- a runaway callback is stopped by its timeout (LuaJIT: kept out of the JIT)
        assert.matches("\tnumber\tno_data\tInstalled Loop: collect of 'Installed Loop' failed: .*collect ran longer", o)
        n = n + 1
      end
    end
    assert.is_true(n >= 1)
  end)

  it_plain("install a systemd unit that runs perflua monitor on the default rules", function()
    local code, out = sh("make -s install DESTDIR=" .. q(dir) .. " PREFIX=/usr/local")
    assert.equals(0, code, out)
    local unit = files.read(dir .. "/usr/local/lib/systemd/system/perflua-monitor.service")
    local keys = unit_keys(unit)
    assert.equals("simple", keys.Service.Type)
    assert.equals("/usr/local/bin/perflua monitor /usr/local/share/perflib/rules/default.lua", keys.Service.ExecStart)
    assert.equals("journal", keys.Service.StandardOutput)
    assert.equals("multi-user.target", keys.Install.WantedBy)
    assert.is_nil(keys.Service.ExecStart:find("--view", 1, true))   -- plain lines for journald
    if sh("command -v systemd-analyze") ~= 0 then return end
    -- verified against the installed files: the paths moved under DESTDIR
    local copy = dir .. "/perflua-monitor.service"
    files.write(copy, (unit:gsub("/usr/local/", dir .. "/usr/local/")))
    code, out = sh("systemd-analyze verify --man=no " .. q(copy))
    assert.equals(0, code, out)
    assert.equals("", out)
    files.write(copy, (unit:gsub("Type=", "Typo=")))
    local _, bad = sh("systemd-analyze verify --man=no " .. q(copy))
    assert.matches("Unknown key 'Typo'", bad, 1, true)   -- the check does look at the keys
  end)

  it_plain("the installed unit's command runs: perflua monitor on the installed rules, no terminal codes", function()
    local code, out = sh("make -s install DESTDIR=" .. q(dir) .. " PREFIX=/usr/local")
    assert.equals(0, code, out)
    local bin, rules = dir .. "/usr/local/bin/perflua", dir .. "/usr/local/share/perflib/rules/default.lua"
    code, out = sh(("TERM=dumb %s monitor %s --interval 0.2 --seconds 0.5 </dev/null"):format(q(bin), q(rules)))
    assert.equals(0, code, out)
    assert.matches("perflua monitor: %d+ rule%(s%) from", out)
    assert.matches("perflua monitor: stopped\n$", out)
    assert.is_nil(out:find("\27", 1, true))
  end)

  it("the README's LUA_PATH/LUA_CPATH line runs the build tree from stock lua5.4", function()
    local install = files.read("README.md"):match "\n## Install\n(.-)\n## "
    local line = assert(install:match "```sh\n(LUA_PATH_5_4=.-)```", "no LUA_PATH example under ## Install")
    local code, out = sh(line)
    assert.equals(0, code, out)
    assert.equals("perflib 0.1.0\tperflua\n", out)
  end)
end)
