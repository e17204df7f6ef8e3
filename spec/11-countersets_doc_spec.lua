-- doc/countersets.md, the counter reference (an LDoc topic too), is made
local perflib = require "perflib"
-- from the definitions by doc/gen-countersets.lua: it must be what the
-- generator writes now, so a counter changed without `make countersets-doc`
-- fails here, naming the first line that differs.
describe("doc/countersets.md", function()
  local function generated()
    return assert(loadfile "doc/gen-countersets.lua")("--render")()
  end

  local function lines(s)
    local t = {}
    for l in (s .. "\n"):gmatch "(.-)\n" do t[#t + 1] = l end
    return t
  end

  it("is what doc/gen-countersets.lua writes from the definitions", function()
    local want = lines(generated())
    local have = lines(assert(io.open "doc/countersets.md"):read "a")
    for i = 1, math.max(#want, #have) do
      assert.equals(want[i], have[i], "doc/countersets.md line " .. i .. " is stale: run make countersets-doc")
    end
  end)

  it("lists every built-in counter once, at its title index", function()
    local text = generated()
    local seen, n = {}, 0
    for idx in text:gmatch "%(id %d+, index (%d+)%)" do
      assert.is_nil(seen[idx], "index " .. idx .. " twice")
      seen[idx], n = true, n + 1
    end
    local total = 0
    for cs in perflib.machine():countersets() do
      if cs.index < 1000000 then
        total = total + #cs.counters
        for _, c in ipairs(cs.counters) do
          assert.is_true(seen[tostring(c.index)], cs.name .. "\\" .. c.name)
          -- the title-index rule: a counter of id n in a set at X is X + 2 + 2n
          assert.equals(cs.index + 2 + 2 * c.id, c.index, cs.name .. "\\" .. c.name)
        end
      end
    end
    assert.equals(total, n)
    assert.matches("countersets, " .. total .. " counters%.", text)
  end)

  it("is linked from the README's countersets section", function()
    local readme = assert(io.open "README.md"):read "a"
    local section = assert(readme:match "\n## The countersets\n(.-)\n## ")
    assert.truthy(section:find("doc/countersets.md", 1, true))
  end)
end)
