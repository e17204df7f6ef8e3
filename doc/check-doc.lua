-- Fails when a public function has no doc comment: `make doc` and `make test`
-- run it after ldoc.  It loads each public module from the build tree, lists
-- every function-valued field (and every method of every class the C module
-- registers), and looks each up among the items LDoc parsed (LDoc's own model,
-- through doc/ldoc_names.lua), so whatever is exported at the time is checked.
--
--   LUA_PATH='./lua/?.lua;./lua/?/init.lua;;' LUA_CPATH='./build/?.so;;' \
--     lua5.4 doc/check-doc.lua [--dir DIR] [--public mod1,mod2,...]
--
-- DIR holds the config.ld to check (default "."); --public names the modules
-- that must be in the reference (default: perflib's public modules).  Prints
-- each missing `module.function` (`module.Class:method`) and exits 1; exits 2
-- when ldoc or a module cannot be run at all.

local PUBLIC = {
  "perflib", "perflib.pretty", "perflib.rules", "perflib.rules.notify", "perflib.rules.test",
  "perflib.monitor", "perflib.record", "perflib.replay", "perflib.cli", "perflib.repl",
  "perflib.top", "perflib.serve", "perflib.promrules", "perflib.typeperf", "perflib.backtest",
  "perflib.plot", "perflib.relog",
}

-- Exported but deliberately not in the reference, each with its reason.
-- (Names with a leading `_` are skipped too.)
local INTERNAL = {
  -- none today: `require "perflib"` exports its documented list only (init.lua's PUBLIC);
  -- perflib.core's internal functions (spawn, wait, sandbox, window, http, ...) are not in it
}
-- Classes only the internal functions above make: their methods are internal.
local INTERNAL_CLASS = {
  Window = "made by perflib.core.window only (rules engine)",
  RuleBank = "made by perflib.core.rulebank only (rules engine)",
  Flap = "made by perflib.core.flap only (rules engine)",
  HttpClient = "made by perflib.core.http only (webhook sender)",
  Term = "made by perflib.core.term only (the views' terminal layer)",
}

local dir, public = ".", PUBLIC
local i = 1
while arg[i] do
  if arg[i] == "--dir" and arg[i + 1] then
    dir, i = arg[i + 1], i + 2
  elseif arg[i] == "--public" and arg[i + 1] then
    public = {}
    for name in arg[i + 1]:gmatch("[^,]+") do public[#public + 1] = name end
    i = i + 2
  else
    io.stderr:write("usage: lua5.4 doc/check-doc.lua [--dir DIR] [--public mod1,mod2,...]\n")
    os.exit(2)
  end
end

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- The items LDoc parsed: documented["perflib.Query:add"] = true, modules[name] = true.
local pwd = io.popen("cd " .. quote(arg[0]:match("^(.*)/[^/]*$") or ".") .. " && pwd")
local here = pwd:read("l")
pwd:close()
local cmd = ("cd %s && LUA_PATH=%s ldoc --filter ldoc_names.list . 2>&1"):format(
  quote(dir), quote(here .. "/?.lua;;"))
local pipe = assert(io.popen(cmd, "r"))
local documented, modules, chatter = {}, {}, {}
for line in pipe:lines() do
  local mod, _, _, name = line:match("^DOC\t([^\t]*)\t([^\t]*)\t([^\t]*)\t([^\t]*)$")
  if mod then
    modules[mod] = true
    -- LDoc keeps a `local R = {}` module table's prefix (R.load): the field is `load`
    local field = name:match("^[%a_][%w_]*%.([%a_][%w_]*)$") or name
    if name ~= "" then documented[mod .. "." .. field] = true end
  else
    chatter[#chatter + 1] = line
  end
end
local ok = pipe:close()
if not ok or not next(modules) then
  io.stderr:write("check-doc: ldoc failed in ", dir, ":\n", table.concat(chatter, "\n"), "\n")
  os.exit(2)
end

-- What the modules export.
local exported = {}
local function add_fields(mod, tbl, sep, prefix)
  for k, v in pairs(tbl) do
    if type(k) == "string" and type(v) == "function" and not k:match("^_") then
      exported[#exported + 1] = mod .. "." .. (prefix or "") .. (sep or "") .. k
    end
  end
end

local function add_classes()
  local core = require "perflib.core"
  local seen = {}
  local function class(name, methods)
    if seen[name] or INTERNAL_CLASS[name] then return end
    seen[name] = true
    add_fields("perflib", methods, ":", name)
  end
  for name, methods in pairs(core.methods or {}) do class(name, methods) end
  -- every class the binding registers (perflib.X metatables), found or not in core.methods
  for key, mt in pairs(debug.getregistry()) do
    local name = type(key) == "string" and key:match("^perflib%.([%a_][%w_]*)$")
    if name and type(mt) == "table" and type(rawget(mt, "__index")) == "table" then
      class(name, rawget(mt, "__index"))
    end
  end
end

local missing_module = false
for _, mod in ipairs(public) do
  local loaded, M = pcall(require, mod)
  if not loaded or type(M) ~= "table" then
    io.stderr:write("check-doc: cannot load ", mod, ": ", tostring(M), "\n")
    os.exit(2)
  end
  if not modules[mod] then
    print("not in the reference: module " .. mod)
    missing_module = true
  end
  add_fields(mod, M)
  if mod == "perflib" then add_classes() end
end

table.sort(exported)
local missing = 0
for _, name in ipairs(exported) do
  if not documented[name] and not INTERNAL[name] then
    print("undocumented: " .. name)
    missing = missing + 1
  end
end
if missing > 0 or missing_module then
  print(("check-doc: %d public function(s) without a doc comment"):format(missing))
  os.exit(1)
end
print(("check-doc: %d public functions of %d modules documented"):format(#exported, #public))
