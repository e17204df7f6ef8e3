-- The codes q:add returns with each refusal: the Win32 status PerfAddCounters
-- would write (README, Queries), mapped from the core's own statuses at the
-- edge (src/capi/pl_codes.h).  Every status Lua can see, with its message,
-- in the single and the list form.
local perflib = require "perflib"

local FIX = "spec/fixtures/basic"

describe("q:add's codes", function()
  local q
  before_each(function() q = perflib.query { root = FIX } end)
  after_each(function() q:close() end)

  local function add(spec) return { q:add(spec) } end

  it("gives every refusal its status and Win32 code", function()
    -- ERROR_WMI_GUID_NOT_FOUND 4200, ERROR_WMI_ITEMID_NOT_FOUND 4202,
    -- ERROR_INVALID_PARAMETER 87, ERROR_ALREADY_EXISTS 183, ERROR_BAD_NETPATH 53
    assert.same({ nil, "no counterset 'Nope'", "no_counterset", 4200 }, add "\\Nope(*)\\x")
    assert.same({ nil, "no counter 'Zz*' in 'Memory'", "no_counter", 4202 }, add "\\Memory\\Zz*")
    assert.same({ nil, "'Memory' has a single instance: give no instance name", "bad_instance", 87 },
      add { counterset = "Memory", instance = "x", counter = "Available Bytes" })
    assert.same({ nil, "bad counter path 'Memory\\Available Bytes': expected \\Counterset(instance)\\Counter",
      "bad_path", 87 }, add "Memory\\Available Bytes")
    local r = add "\\\\127.0.0.1:1\\Memory\\Available Bytes"     -- nobody listens on port 1
    assert.is_nil(r[1])
    assert.matches("^machine '127%.0%.0%.1:1': ", r[2])
    assert.same({ "no_machine", 53 }, { r[3], r[4] })
    assert.equals(0, #q)
    assert.same({ 1, "ok" }, add "\\Memory\\Available Bytes")
    assert.same({ nil, "the query already has this specification", "duplicate", 183 },
      add "\\Memory\\Available Bytes")
    assert.equals(1, #q)
  end)

  it("gives the same codes per specification in a list", function()
    local r = q:add { "\\Memory\\Available Bytes", "\\Memory\\Available Bytes", "\\Nope\\x", "\\Memory\\Nope",
      "Memory", "\\Processor Information\\% Processor Time" }
    assert.equals(6, #r)
    assert.same({ 1, "ok", nil }, { r[1].index, r[1].status, r[1].code })
    local want = { { "duplicate", 183 }, { "no_counterset", 4200 }, { "no_counter", 4202 }, { "bad_path", 87 },
      { "bad_instance", 87 } }
    for i, w in ipairs(want) do
      assert.is_nil(r[i + 1].index)
      assert.same(w, { r[i + 1].status, r[i + 1].code })
      assert.is_string(r[i + 1].message)
    end
    assert.equals(1, #q)
  end)
end)
