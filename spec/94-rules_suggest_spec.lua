-- "Did you mean" for misspelled countersets and counters (Query:add's message, the rules
-- tools), and `perflua check` reporting every mistake of a file in one run: bad constructor
-- arguments, unknown R functions, unknown {fields} in message templates, unknown keys of
-- routes, misspelled counter paths also in rules with other mistakes, and exec programs that
-- are not on this machine (a warning).
local perflib = require "perflib"
local R = require "perflib.rules"
local files = dofile "spec/support/files.lua"

local PERFLUA = "build/perflua"

describe("Query:add suggests a close name", function()
  local q
  before_each(function() q = perflib.query { root = "spec/fixtures/basic" } end)
  after_each(function() q:close() end)

  it("for an unknown counterset", function()
    assert.same({ nil, "no counterset 'Procesor Information' (did you mean 'Processor Information'?)",
                  "no_counterset", 4200 },
                { q:add "\\Procesor Information(*)\\% Processor Time" })
    assert.same({ nil, "no counterset 'Memroy' (did you mean 'Memory'?)", "no_counterset", 4200 },
                { q:add { counterset = "Memroy" } })
  end)

  it("for an unknown counter, among that set's counters", function()
    assert.same({ nil, "no counter 'Availble MBytes' in 'Memory' (did you mean 'Available MBytes'?)", "no_counter",
                  4202 }, { q:add "\\Memory\\Availble MBytes" })
    assert.same({ nil, "no counter '% procesor time' in 'Processor Information' (did you mean '% Processor Time'?)",
                  "no_counter", 4202 },
                { q:add "\\Processor Information(_Total)\\% procesor time" })
  end)

  it("only when a name is close, and never for a pattern", function()
    assert.same({ nil, "no counterset 'Nothing Like It'", "no_counterset", 4200 }, { q:add "\\Nothing Like It\\X" })
    assert.same({ nil, "no counter 'Quux' in 'Memory'", "no_counter", 4202 }, { q:add "\\Memory\\Quux" })
    assert.same({ nil, "no counter 'Availble*' in 'Memory'", "no_counter", 4202 }, { q:add "\\Memory\\Availble*" })
  end)

  it("with the same function the rules use (perflib.suggest)", function()
    assert.equals("pending", perflib.suggest("PENDNG", { "keep", "pending" }))
    assert.equals("Memory", perflib.suggest("memroy", { "System", "Memory" }))
    assert.is_nil(perflib.suggest("zzz", { "keep", "pending" }))
    assert.equals("pending", R.suggest("pendng", { "keep", "pending" }))
    assert.has_error(function() perflib.suggest("x") end)
  end)
end)

local BAD = [[
local R = require "perflib.rules"
R.rule "A" { source = "\\Procesor Information(*)\\% Processor Time", when = R.above(90), pendng = "5m" }
R.rule "B" { source = "\\Memory\\Available MBytes", value = R.avg "5x", when = R.below(100) }
R.rule "C" { source = "\\Memory\\Availble MBytes", when = R.abve(100), message = "{instanse} at {value:%.1f}" }
R.rule "D" { source = "\\Memory\\Available MBytes", when = R.below(100), labels = { area = "mem" },
             message = "{instance} {value} {age} {severity} {alertname} {area}" }
R.route { throtle = 1, group_wait = "bad",
          actions = { R.exec { "/no/such/prog", "{alertname}" }, R.exec { "no-such-program-xyz" }, R.exec { "true" } } }
R.route { actions = { R.exec { "/bin/sh", "-c", "true" } } }
]]

describe("a rules file with many mistakes", function()
  it("loads what is right and lists every mistake, with suggestions", function()
    local set, errs = R.load(BAD)
    assert.same({ "D" }, set.order)
    local text = {}
    for _, e in ipairs(errs) do text[#text + 1] = e.message end
    text = table.concat(text, "\n")
    assert.matches('rule "A": key `pendng`: unknown key (did you mean `pending`?)', text, 1, true)
    assert.matches('rule "B": key `value`: rules:3: R.avg: bad duration "5x"', text, 1, true)
    assert.matches("rules:4: R.abve is not a function of perflib.rules (did you mean R.above?)", text, 1, true)
    assert.matches('rule "C": key `when`: uses an unknown function (reported above)', text, 1, true)
    assert.matches('rule "C": key `message`: unknown field {instanse} (did you mean {instance}?); '
      .. "fields: age, alertname, instance, severity, value", text, 1, true)
    assert.matches("route 1: key `throtle`: unknown key (did you mean `throttle`?)", text, 1, true)
    assert.matches('route 1: key `group_wait`: bad duration "bad"', text, 1, true)
    assert.equals(7, #errs)
    assert.equals(1, #set.routes)          -- the second route; the first had mistakes
  end)

  it("is reported whole by perflua check, counter paths of rejected rules included", function()
    if not io.open(PERFLUA) then pending("build/perflua not built") return end
    local dir, remove = files.tempdir()
    local path = dir .. "/bad.lua"
    files.write(path, BAD)
    local out, code = files.run(PERFLUA .. " check " .. path)
    remove()
    assert.equals(1, code, out)
    assert.matches("did you mean `pending`", out, 1, true)
    assert.matches("R.abve is not a function of perflib.rules (did you mean R.above?)", out, 1, true)
    assert.matches("unknown field {instanse} (did you mean {instance}?)", out, 1, true)
    assert.matches("no counterset 'Procesor Information' (did you mean 'Processor Information'?)", out, 1, true)
    assert.matches("no counter 'Availble MBytes' in 'Memory' (did you mean 'Available MBytes'?)", out, 1, true)
    assert.matches('warning: route 1: action 1: exec program "/no/such/prog": no such file', out, 1, true)
    assert.matches('warning: route 1: action 2: exec program "no-such-program-xyz": not found on PATH', out, 1, true)
    assert.is_nil(out:find('exec program "true"', 1, true))
    assert.is_nil(out:find("/bin/sh", 1, true))
    assert.matches("1 rule%(s%) loaded, 7 error%(s%), 2 source problem%(s%), 0 lint%(s%), 2 warning%(s%)", out)
  end)
end)

describe("perflua check on a file without mistakes", function()
  it("warns about a missing exec program without failing", function()
    if not io.open(PERFLUA) then pending("build/perflua not built") return end
    local dir, remove = files.tempdir()
    local path = dir .. "/ok.lua"
    files.write(path, [[
local R = require "perflib.rules"
R.rule "Low" { source = "\\Memory\\Available MBytes", when = R.below(1), message = "{value:%.0f} MB" }
R.route { actions = { R.exec { "no-such-program-xyz" } } }
]])
    local out, code = files.run(PERFLUA .. " check " .. path)
    remove()
    assert.equals(0, code, out)
    assert.matches("1 rule%(s%) loaded, 0 error%(s%), 0 source problem%(s%), 0 lint%(s%), 1 warning%(s%)", out)
  end)
end)
