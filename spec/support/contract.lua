-- What the two contract specs share (99-contract, 99-contract_modules): the
-- shape of a call's results ("nil,string,number"; a userdata by its class)
-- and the tests of one contract.  busted's `it` and `assert` are passed in
-- (a dofile'd chunk does not see the spec's environment).
local K = {}

function K.kind(v)
  if type(v) == "userdata" then
    local mt = getmetatable(v)
    return type(mt) == "table" and mt.__name or "userdata"
  end
  return type(v)
end

function K.shape(...)
  local out = {}
  for i = 1, select("#", ...) do out[i] = K.kind((select(i, ...))) end
  return table.concat(out, ",")
end

-- c = { ok = { shape, f } | reason, fail = { shape, f } | reason, bad = { message, f } }:
-- each f is called with make()'s values (none without make); a reason says
-- why that case cannot happen.  `bad` must raise with the message in it.
function K.tests(it, assert, c, make)
  make = make or function() end
  if type(c.ok) == "table" then
    it("succeeds as " .. (c.ok[1] == "" and "nothing" or c.ok[1]), function()
      assert.equals(c.ok[1], K.shape(c.ok[2](make())))
    end)
  end
  if type(c.fail) == "table" then
    it("fails as " .. c.fail[1], function() assert.equals(c.fail[1], K.shape(c.fail[2](make()))) end)
  end
  if c.bad then
    it("raises on misuse", function()
      local ok, err = pcall(c.bad[2], make())
      assert.is_false(ok)
      assert.matches(c.bad[1], tostring(err), 1, true)
    end)
  end
end

return K
