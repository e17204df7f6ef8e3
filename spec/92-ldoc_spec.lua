-- The reference covers every public function (issue 14, item 8): doc/check-doc.lua,
-- which `make doc` and `make test` run, passes on the project and fails, naming
-- the function, when a public function has no doc comment: a fixture module,
-- a copy of a real Lua module and a copy of a C class with one comment removed.
-- Lua 5.4 only (ldoc and the checker's lua5.4 children).

local ENV = "LUA_PATH_5_4='./lua/?.lua;./lua/?/init.lua;;' LUA_CPATH_5_4='./build/?.so;;' "

local function sh_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local files = dofile "spec/support/files.lua"
local read, write = files.slurp, files.write

-- Runs the checker; returns its exit code and output (stdout and stderr).
local function check(args, path)
  local env = path and ("LUA_PATH_5_4=" .. sh_quote(path .. "/?.lua;./lua/?.lua;./lua/?/init.lua;;")
    .. " LUA_CPATH_5_4='./build/?.so;;' ") or ENV
  local out, code = files.run(env .. "lua5.4 doc/check-doc.lua " .. (args or ""))
  return code, out
end

local function lines_matching(out, pat)
  local t = {}
  for line in out:gmatch("[^\n]+") do
    if line:match(pat) then t[#t + 1] = line end
  end
  return t
end

-- the project's config.ld, its file list with `replace[path]` standing in
local function project_config(replace)
  local cfg = {}
  assert(load(read("config.ld"), "config.ld", "t", cfg))()
  local list = {}
  for i, f in ipairs(cfg.file) do
    list[i] = ("%q"):format(replace[f] or (files.cwd() .. "/" .. f))
  end
  return ("file = {%s}\nformat = 'markdown'\nno_space_before_args = true\nmerge = true\n")
    :format(table.concat(list, ",\n"))
end

local tmp, cleanup
before_each(function() tmp, cleanup = files.tempdir() end)
after_each(function() cleanup() end)

describe("doc/check-doc.lua", function()
  it("passes on the project: every public function of the 17 public modules documented", function()
    local code, out = check()
    assert.are.equal(0, code, out)
    local n, mods = out:match("check%-doc: (%d+) public functions of (%d+) modules documented")
    assert.are.equal("17", mods, out)   -- 14 + perflib.backtest + perflib.plot + perflib.relog
    -- at least the 5 Query methods (add, add_sets, delete, specs, collect) and 30 facade functions
    assert.is_true(tonumber(n) > 35, out)
    assert.are.same({}, lines_matching(out, "^undocumented"))
  end)

  it("names a fixture module's undocumented function and skips the _private one", function()
    write(tmp .. "/config.ld", "file = {'docfix.lua'}\n")
    write(tmp .. "/docfix.lua", table.concat({
      "--- A fixture module.",
      "-- @module docfix",
      "local M = {}",
      "--- Documented: one.",
      "-- @treturn number 1",
      "function M.documented() return 1 end",
      "function M.undocumented() return 2 end",
      "function M._private() return 3 end",
      "M.VALUE = 4",
      "return M", "" }, "\n"))
    local code, out = check("--dir " .. sh_quote(tmp) .. " --public docfix", tmp)
    assert.are.equal(1, code, out)
    assert.are.same({ "undocumented: docfix.undocumented" }, lines_matching(out, "^undocumented"))
    assert.truthy(out:find("check-doc: 1 public function(s) without a doc comment", 1, true), out)
  end)

  it("fails on a module that is not in the reference at all", function()
    write(tmp .. "/config.ld", "file = {'docfix.lua'}\n")
    write(tmp .. "/docfix.lua",
      "--- A fixture.\n-- @module docfix\nlocal M = {}\n--- One.\nfunction M.one() end\nreturn M\n")
    local code, out = check("--dir " .. sh_quote(tmp) .. " --public docfix,perflib.pretty", tmp)
    assert.are.equal(1, code, out)
    assert.truthy(out:find("not in the reference: module perflib.pretty", 1, true), out)
    -- perflib.pretty's 5 functions (number, print, quantity, values, write) are all missing
    assert.are.equal(5, #lines_matching(out, "^undocumented: perflib%.pretty%."), out)
  end)

  it("names perflib.pretty.write when a copy of pretty.lua loses that doc comment", function()
    -- drop the comment lines (from the `---` line on) just above `function pretty.write`
    local lines = {}
    for line in (read("lua/perflib/pretty.lua") .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = line end
    local at
    for i, line in ipairs(lines) do
      if line:match("^function pretty%.write%(") then at = i end
    end
    local first = at - 1
    while not lines[first]:match("^%-%-%-") do first = first - 1 end
    for _ = first, at - 1 do table.remove(lines, first) end
    local cut = table.concat(lines, "\n")
    assert.truthy(cut:find("\nfunction pretty.write(", 1, true))
    assert.is_nil(cut:find("Return a readable string for any Lua value", 1, true))
    write(tmp .. "/pretty.lua", cut)
    write(tmp .. "/config.ld", "file = {'pretty.lua'}\nformat = 'markdown'\n")
    local code, out = check("--dir " .. sh_quote(tmp) .. " --public perflib.pretty")
    assert.are.equal(1, code, out)
    assert.are.same({ "undocumented: perflib.pretty.write" }, lines_matching(out, "^undocumented"))
  end)

  it("names perflib.Query:delete when a copy of lquery.c loses that method's comment", function()
    local src = read("src/lua/lquery.c")
    local tag = assert(src:find(" * @function Query:delete\n", 1, true))
    local start = src:sub(1, tag):match(".*()/%*%*%*")
    local stop = select(2, src:find("%*/", tag))
    write(tmp .. "/lquery.c", src:sub(1, start - 1) .. src:sub(stop + 1))
    write(tmp .. "/config.ld", project_config { ["src/lua/lquery.c"] = tmp .. "/lquery.c" })
    local code, out = check("--dir " .. sh_quote(tmp))
    assert.are.equal(1, code, out)
    assert.are.same({ "undocumented: perflib.Query:delete" }, lines_matching(out, "^undocumented"))
  end)

  it("the REPL's help texts cover every method of the public classes, named as help(obj) names them", function()
    -- help(obj) looks up "<metatable __name without perflib.>:method" in perflib.helpdata (make all)
    local help = assert(loadfile("build/gen/lua/perflib/helpdata.lua"))()
    require "perflib"                        -- adds Query:samples and Sample:values
    local core = require "perflib.core"
    local reg = debug.getregistry()
    local checked = 0
    for _, cls in ipairs { "Machine", "CounterSet", "Query", "Sample", "Provider", "ProviderInstance",
                           "ProviderCounter", "Server" } do
      local mt = assert(reg["perflib." .. cls], cls)
      assert.are.equal("perflib." .. cls, mt.__name)
      local methods = type(mt.__index) == "table" and mt.__index or core.methods[cls]
      for name, f in pairs(methods) do
        -- samples and values are written in Lua (init.lua): gen_help reads their comments there too
        if type(f) == "function" and not name:match "^_" then
          assert.truthy(help[cls .. ":" .. name], cls .. ":" .. name)
          checked = checked + 1
        end
      end
    end
    -- Machine 3, CounterSet 2, Query 7, Sample 10, Provider 3, ProviderInstance 5, ProviderCounter 3, Server 3
    assert.is_true(checked >= 3 + 2 + 7 + 10 + 3 + 5 + 3 + 3, tostring(checked))
    assert.is_nil(help["Instance:set"])       -- the old name help(inst) never found
  end)

  it("exits 2 on a bad argument and when ldoc cannot read the directory", function()
    local code, out = check("--bogus")
    assert.are.equal(2, code, out)
    assert.truthy(out:find("usage:", 1, true), out)
    code, out = check("--dir " .. sh_quote(tmp .. "/none"))
    assert.are.equal(2, code, out)
    assert.truthy(out:find("check-doc: ldoc failed", 1, true), out)
  end)
end)
