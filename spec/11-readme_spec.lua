-- The README's first example runs as written, in perflua and in lua5.4.
local perflib = require "perflib"
local function first_example()
  local text = assert(io.open "README.md"):read "a"
  return assert(text:match "```lua\n(.-)```", "README has no lua example")
end

local function run(cmd, code)
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(code)
  f:close()
  local p = assert(io.popen(cmd .. " " .. path .. " 2>&1"))
  local out = p:read "a"
  local ok = p:close()
  os.remove(path)
  return ok, out
end

local function check(out)
  assert.matches("Processor Information\tb4fc721a%-0378%-476f%-89ba%-a5a79f810b36\tmultiple\n", out)
  assert.matches("Memory\t146c2676%-5548%-53f3%-b7e0%-d4bd5161f27f\tsingle\n", out)
  -- one line per instance: name, a percentage, "valid"
  local n = 0
  for inst, v in out:gmatch "\n([%d,_Total]+)\t([%d.]+)\tvalid" do
    n = n + 1
    assert.is_true(tonumber(v) >= 0 and tonumber(v) <= 100, inst .. " " .. v)
  end
  assert.is_true(n >= 2, out)
  assert.matches("\n_Total\t[%d.]+\tvalid\n", out)
end

describe("README example", function()
  it("runs in perflua", function()
    local ok, out = run("build/perflua", first_example())
    assert.is_true(ok, out)
    check(out)
  end)

  it("runs in lua5.4 with the module paths", function()
    local ok, out = run("LUA_PATH_5_4='./lua/?.lua;./lua/?/init.lua;;' LUA_CPATH_5_4='./build/?.so;;' lua5.4",
      first_example())
    assert.is_true(ok, out)
    check(out)
  end)
end)

describe("README rules example", function()
  it("loads without errors and its sources exist on this machine", function()
    local text = assert(io.open "README.md"):read "a"
    local code = assert(text:match "### Rule%-based monitors.-```lua\n(.-)```", "no rules example")
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write(code)
    f:close()
    local set, errors = require("perflib.rules").load(path)
    os.remove(path)
    assert.is_table(set)
    assert.is_nil(errors and errors[1])
    assert.equals(1, #set.order)
    local q <close> = perflib.query()
    for _, name in ipairs(set.order) do
      local rule = set.rules[name]
      assert.is_truthy(q:add(rule.source or rule.sources[1]))
    end
  end)
end)

describe("README perflib.rules.test example", function()
  local files = dofile "spec/support/files.lua"

  local function examples()
    local text = assert(io.open "README.md"):read "a"
    local rules = assert(text:match "### Rule%-based monitors.-```lua\n(.-)```", "no rules example")
    local test = assert(text:match "`perflib%.rules%.test` runs rules.-```lua\n(.-)```", "no rules.test example")
    return rules, test
  end

  it("runs as written against the rules example, and its input key is a source of those rules", function()
    local rules, test = examples()
    local dir, remove = files.tempdir()
    files.write(dir .. "/rules.lua", rules)
    local chunk = assert(load((test:gsub('"rules%.lua"', ("%q"):format(dir .. "/rules.lua")))))
    local ok, err = pcall(chunk)
    remove()
    assert.is_true(ok, tostring(err))
  end)

  it("would not pass silently with a key no rule reads", function()
    local rules, test = examples()
    local dir, remove = files.tempdir()
    files.write(dir .. "/rules.lua", rules)
    test = test:gsub('"rules%.lua"', ("%q"):format(dir .. "/rules.lua")):gsub("%% Processor Time{", "%% Procesor Time{")
    local ok, err = pcall(assert(load(test)))
    remove()
    assert.is_false(ok)
    assert.matches("no rule reads this path (did you mean", tostring(err), 1, true)
  end)
end)

-- The table in "## The countersets" says what the definitions say: every
-- built-in set once, with its title index, its instance kind and, for costly
-- sets, "(costly)"; and the count above it.
describe("README counterset table", function()
  it("matches the built-in definitions", function()
    local text = assert(io.open "README.md"):read "a"
    local section = assert(text:match "\n## The countersets\n(.-)\n## ", "no countersets section")
    local rows = {}
    for idx, names, rest in section:gmatch "\n| ([%d, ]+) | ([^|]-) | ([^\n]*)" do
      local i = 0
      local list = {}
      for ix in idx:gmatch "%d+" do list[#list + 1] = { index = tonumber(ix) } end
      for name in (names:gsub("%b()", "") .. ","):gmatch "%s*(.-)%s*," do
        i = i + 1
        if list[i] then list[i].name, list[i].costly = name, names:find("(costly)", 1, true) ~= nil end
      end
      assert.equals(#list, i, "one index per name in: " .. names)
      for _, r in ipairs(list) do
        r.single = rest:match "^single |" ~= nil
        rows[#rows + 1] = r
      end
    end
    local by_name = {}
    for _, r in ipairs(rows) do
      assert.is_nil(by_name[r.name], "twice in the table: " .. r.name)
      by_name[r.name] = r
    end
    local builtin = 0
    local m = perflib.machine()
    for cs in m:countersets() do
      if cs.index < 1000000 then         -- built-in sets have fixed indexes below the assigned range
        builtin = builtin + 1
        local r = by_name[cs.name]
        assert.is_not_nil(r, "not in the README table: " .. cs.name)
        assert.equals(cs.index, r.index, cs.name)
        assert.equals(cs.costly, r.costly, cs.name .. " costly")
        assert.equals(cs.instance_type == "single", r.single, cs.name .. " instances")
      end
    end
    assert.equals(builtin, #rows)
    assert.matches("\n" .. builtin .. " countersets;", section)
  end)
end)
