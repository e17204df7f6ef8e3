-- perflib.trap / perflib.trapped: signals recorded for long-running scripts.
local perflib = require "perflib"

local function pid()
  local f = assert(io.open "/proc/self/stat")
  local n = f:read("*n")
  f:close()
  return n
end

describe("signals", function()
  it("records trapped signals and cuts a sleep short", function()
    assert.is_true(perflib.trap("USR1", "USR2"))
    local me = pid()
    -- a child sends USR2 to us in 0.1 s while we sleep 2 s
    os.execute(("(sleep 0.1; kill -USR2 %d) &"):format(me))
    local t0 = perflib.clock()
    local ok, msg, errno = perflib.sleep(2)
    local dt = perflib.clock() - t0
    assert.is_nil(ok)
    assert.equals("sleep: Interrupted system call", msg)
    assert.equals(4, errno)                     -- EINTR
    assert.is_true(dt < 1.5, "slept " .. dt)
    assert.same({ "USR2" }, perflib.trapped())
    assert.same({}, perflib.trapped())          -- each arrival reported once
    os.execute(("kill -USR1 %d"):format(me))
    assert.same({ "USR1" }, perflib.trapped())
  end)

  it("rejects unknown names before installing anything", function()
    assert.has_error(function() perflib.trap("USR1", "NOPE") end)
    assert.has_error(function() perflib.trap() end)
    assert.has_error(function() perflib.trap(9) end)
  end)
end)
