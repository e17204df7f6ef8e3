-- perflib.json: exact numbers, sorted keys, repaired strings on top of dkjson,
-- and a strict, bounded decoder for untrusted text. Runs on every Lua: 64-bit
-- integers beyond 2^53 are decimal strings before 5.3 (README, "64-bit raw counts").
local C = require "spec.support.compat"
local json = require "perflib.json"
local record = require "perflib.record"
local files = dofile "spec/support/files.lua"

-- the decoded value, or a failure naming the text
local function dec(s, opts)
  local v, err = json.decode(s, opts)
  assert(err == nil, ("%q: %s"):format(s, tostring(err)))
  return v
end

-- the decoder's message for s (it must fail, and return nothing else)
local function fails(s, opts)
  local v, err, extra = json.decode(s, opts)
  assert.is_nil(v)
  assert.is_nil(extra)
  assert.is_string(err)
  return err
end

describe("perflib.json numbers", function()
  it("writes integers digit for digit and reads them back as integers", function()
    assert.equals("0", json.encode(0))
    assert.equals("-1", json.encode(-1))
    assert.equals("[0,-1,42]", json.encode { 0, -1, 42 })
    assert.equals(0, dec "0")
    assert.equals(-1, dec "-1")
    assert.equals("integer", C.math_type(dec "-1"))
    if C.integers then assert.equals("float", C.math_type(dec "3.0")) end
    -- 2^53 = 9007199254740992 is the last integer every Lua holds exactly
    assert.equals("9007199254740992", json.number(2 ^ 53))
    assert.equals(2 ^ 53, dec "9007199254740992")
  end)

  it("keeps 2^53+1 and 2^63-1 exact: integers on 5.3+, decimal strings before", function()
    local p53, max = "9007199254740993", "9223372036854775807"      -- 2^53 + 1, 2^63 - 1
    if C.integers then
      local i53 = dec "9007199254740992" + 1
      assert.equals(p53, json.number(i53))
      assert.equals(p53, json.integer(i53))
      assert.equals(i53, dec(p53))
      assert.equals("integer", C.math_type(dec(p53)))
      assert.equals(max, json.encode(dec(max)))
      assert.equals(dec "9223372036854775806" + 1, dec(max))
      assert.equals("-9223372036854775808", json.number(dec "-9223372036854775807" - 1))
      assert.is_false(json.wide(p53))                  -- on 5.3+ a string stays a string
    else
      assert.equals(p53, dec(p53))                     -- the decimal string
      assert.equals(max, dec(max))
      assert.equals("-9223372036854775808", dec "-9223372036854775808")
      assert.is_true(json.wide(p53))
      assert.equals(p53, json.integer(p53))           -- written as a JSON number again
      assert.equals("[" .. max .. "]", "[" .. json.integer(dec(max)) .. "]")
    end
    assert.equals('"' .. p53 .. '"', json.encode(p53))  -- json.encode writes a string as a string
    assert.is_false(json.wide "12")                   -- a number holds it: never the string form
    assert.is_false(json.wide "9007199254740992")
    assert.is_false(json.wide "9223372036854775808")  -- 2^63: beyond the signed 64 bits
  end)

  it("writes floats in the fewest of 15-17 digits that read back the same", function()
    assert.equals("0.1", json.encode(0.1))
    -- 15 digits of 1/3 (0.333333333333333) miss it by 3.3e-16, more than half its
    -- spacing (2^-54 = 5.6e-17 / 2): 16 are needed
    assert.equals("0.3333333333333333", json.encode(1 / 3))
    assert.equals("1e+300", json.encode(1e300))
    assert.equals("4.94065645841247e-324", json.encode(5e-324))     -- the smallest double, 2^-1074
    -- 1732456789.123456 has 16 significant digits; 15 give 1732456789.12346
    assert.equals("1732456789.123456", json.encode(1732456789.123456))
    for _, x in ipairs { 0.1, 1 / 3, 1e300, 5e-324, 1732456789.123456, -2.5e-7 } do
      local back = dec(json.encode(x))
      assert.equals(x, back)
      if C.integers then assert.equals("float", C.math_type(back)) end
    end
  end)

  it("writes NaN and the infinities as null", function()
    assert.equals("null", json.number(0 / 0))
    assert.equals("[null,null,null]", json.encode { 0 / 0, math.huge, -math.huge })
    assert.equals("column 1: number out of range: 1e400", fails "1e400")
    assert.equals("column 2: number out of range: -1e400", fails "[-1e400]")
  end)

  it("raises on a value that is not a number, naming it", function()
    assert.has_error(function() json.number "1" end, "json.number: x must be a number, got string")
    assert.has_error(function() json.string(1) end, "json.string: s must be a string, got number")
  end)
end)

describe("perflib.json strings", function()
  it("escapes control characters, quotes, backslashes and NUL", function()
    assert.equals('"\\u0001\\u001f\\b\\f\\n\\r\\t"', json.encode "\1\31\b\f\n\r\t")
    assert.equals('"a\\"b\\\\c"', json.encode 'a"b\\c')
    assert.equals('"x\\u0000y"', json.encode "x\0y")
    assert.equals('"\\u2028\\u2029"', json.encode "\226\128\168\226\128\169")   -- JavaScript's line ends
    local s = "q\"\0\r\n\127 \226\128\168 \\"
    assert.equals(s, dec(json.encode(s)))
  end)

  it("keeps UTF-8 and writes each byte that is not UTF-8 as U+FFFD", function()
    local good = "\195\169\226\130\172\240\159\152\128"           -- é € U+1F600
    assert.equals('"' .. good .. '"', json.encode(good))
    local R = "\239\191\189"                          -- U+FFFD, written as it is (as before dkjson)
    assert.equals('"' .. R .. '"', json.encode "\255")
    -- a truncated sequence: E2 82 wants one more byte, so E2 and 82 each become U+FFFD
    assert.equals('"' .. R .. R .. 'x"', json.encode "\226\130x")
    assert.equals('"a' .. R:rep(3) .. '"', json.encode "a\240\159\152")   -- cut at the end: F0 9F 98
    assert.equals('"' .. R:rep(2) .. '"', json.encode "\192\128")         -- overlong NUL
    assert.equals('"' .. R:rep(3) .. '"', json.encode "\237\160\128")    -- a surrogate, U+D800
    assert.equals('"' .. R:rep(4) .. '"', json.encode "\244\144\128\128") -- U+110000
    -- a bad byte before a sequence dkjson escapes: each handled on its own
    assert.equals('"' .. R .. '\\u2028"', json.encode "\240\226\128\168")
    assert.equals(json.string "\255", json.encode "\255")
    assert.equals(R .. "x", dec(json.encode "\255x"))
    -- keys are repaired before dkjson escapes them, so their U+FFFD is written \ufffd
    assert.equals('{"\\ufffdk":1}', json.encode { ["\255k"] = 1 })
    assert.equals(R .. "k", next(dec(json.encode { ["\255k"] = 1 })))
  end)
end)

describe("perflib.json tables", function()
  it("sorts object keys at every level", function()
    assert.equals('{"a":2,"b":1,"c":{"y":2,"z":1}}', json.encode { c = { z = 1, y = 2 }, b = 1, a = 2 })
    -- dkjson alone takes a table with a numeric `n` for an array of n elements
    assert.equals('{"m":1,"n":5}', json.encode { n = 5, m = 1 })
    assert.equals('{"a":null,"b":false}', json.encode { b = false, a = json.null })
  end)

  it("writes {} as an object, a marked empty list as [], and holes as an object", function()
    assert.equals("{}", json.encode {})
    assert.equals("[]", json.encode(json.array {}))
    assert.equals('{"1":"a","3":"b"}', json.encode { [1] = "a", [3] = "b" })
    assert.equals('{"1":"a","x":true}', json.encode { "a", x = true })
    assert.equals('[{},[]]', json.encode { dec "{}", dec "[]" })          -- decoded {} stays an object
    assert.equals("null", json.encode(print))                            -- functions and nil as null
  end)

  it("raises on cycles and on two keys written the same", function()
    local cyc = {}
    cyc.list = { cyc }
    assert.has_error(function() json.encode(cyc) end, "json: cycle in table")
    local shared = { 1 }
    assert.equals('{"a":[1],"b":[1]}', json.encode { a = shared, b = shared })   -- shared, not a cycle
    assert.has_error(function() json.encode { [1] = "a", ["1"] = "b" } end,
      'json: two keys are written "1"')
    assert.has_error(function() json.encode { ["\255"] = 1, ["\254"] = 2 } end,
      'json: two keys are written "\239\191\189"')
  end)
end)

describe("perflib.json decoding", function()
  it("reads values, escapes and surrogate pairs", function()
    local v = dec ' {"a": [1, 2.5, "x\\n\\/\\u00e9", true, false, null], "b": {}} '
    assert.same({ 1, 2.5, "x\n/\195\169", true, false, json.null }, v.a)
    assert.equals("\240\159\152\128", dec '"\\ud83d\\ude00"')             -- U+1F600
    assert.equals(false, dec("[null]", { null = false })[1])
  end)

  it("refuses nesting deeper than the limit, without a crash", function()
    assert.equals(64, json.MAX_DEPTH)
    assert.is_table(dec(("["):rep(64) .. ("]"):rep(64)))
    assert.equals("column 65: nesting deeper than 64", fails(("["):rep(65) .. ("]"):rep(65)))
    assert.equals("column 65: nesting deeper than 64", fails(("["):rep(200000)))
    assert.equals("column 7: nesting deeper than 2", fails('[{"a":[1]}]', { max_depth = 2 }))   -- the third level
  end)

  it("refuses text longer than the limit", function()
    assert.equals(12345, dec("12345", { max_length = 5 }))
    assert.equals("column 1: text longer than 5 bytes", fails("123456", { max_length = 5 }))
  end)

  it("refuses trailing garbage and what dkjson alone lets through", function()
    assert.equals("column 5: unexpected text after the value", fails "[1] x")
    assert.equals("column 3: unexpected text after the value", fails "{}{}")
    assert.equals("column 4: expected ',' or ']'", fails "[1 2]")               -- dkjson: {1, 2}
    assert.equals("column 8: expected ',' or '}'", fails '{"a":1 "b":2}')
    assert.equals("column 5: expected ',' or ']'", fails '["a":1]')
    assert.equals("column 6: expected ':'", fails '{"a" 1}')
    assert.equals("column 2: expected a key string", fails "{1:2}")
    assert.equals('column 4: unexpected character "]"', fails "[1,]")
    assert.equals('column 1: unexpected character "/"', fails "/* c */ 1")
    assert.equals("column 1: bad number (leading zero)", fails "01")
    assert.equals("column 2: bad number", fails "1.e5")
    assert.equals("column 2: control character in a string", fails '"\9"')
    assert.equals("column 3: control character in a string", fails '"a\0b"')
    assert.equals("column 2: bad escape \\x", fails '"\\x41"')
    assert.equals("column 2: bad \\u escape", fails '"\\u12"')
    assert.equals("column 3: unexpected end of line in a value (truncated?)", fails "  ")
    assert.equals("column 6: unexpected end of line in a string (truncated?)", fails '["abc')
    assert.equals("column 7: unexpected end of line in an object (truncated?)", fails '{"a":1')
  end)

  it("refuses lone surrogates", function()
    assert.equals("column 2: lone surrogate in \\u escape", fails '"\\ud800"')
    assert.equals("column 2: lone surrogate in \\u escape", fails '"\\udc00"')
    assert.equals("column 3: lone surrogate in \\u escape", fails '"x\\ud800\\u0041"')
  end)

  it("refuses duplicate keys in one object, not the same key in two", function()
    assert.equals('column 8: duplicate key "a"', fails '{"a":1,"a":2}')
    assert.equals('column 13: duplicate key "k"', fails '{"x":{"k":1,"k":null}}')
    -- the same key written two ways: found by the count, named without its column
    assert.equals("column 1: duplicate key in an object", fails '{"a":1,"\\u0061":2}')
    assert.same({ { a = 1 }, { a = 2 } }, dec '[{"a":1},{"a":2}]')
  end)

  it("refuses integers beyond 64 bits (2^64-1 in text)", function()
    assert.equals("column 1: integer out of the 64-bit range: 18446744073709551615", fails "18446744073709551615")
    assert.equals("column 6: integer out of the 64-bit range: 9223372036854775808",
      fails '{"r":9223372036854775808}')                               -- 2^63
    assert.equals("column 1: integer out of the 64-bit range: -9223372036854775809", fails "-9223372036854775809")
    assert.equals(1.8446744073709552e19, dec "18446744073709551615.0")  -- a float may be that large
  end)

  it("raises on misuse, naming the argument", function()
    assert.has_error(function() json.decode(nil) end, "json.decode: s must be a string, got nil")
    assert.has_error(function() json.decode("1", 5) end, "json.decode: opts must be a table")
  end)
end)

describe("perflib.json in recordings", function()
  local dir, remove
  before_each(function() dir, remove = files.tempdir() end)
  after_each(function() remove() end)

  it("reads raw 2^53+1 and cooked NaN/inf exactly from a recording", function()
    -- perflib no longer writes JSON-lines recordings (perflua record writes logs);
    -- it still reads them, hand-written ones included
    local MEM = "\\Memory\\Available Bytes"
    local path = dir .. "/x.rec"
    local big = C.integers and dec "9007199254740993" or "9007199254740993"
    files.write(path, '{"format":"perflib-recording","version":1,'
      .. '"sources":[{"path":"\\\\Memory\\\\Available Bytes"}]}\n'
      .. '{"t":1.5,"ts":1732456789.123456,"seq":7,"d":[{"i":["","b"],"v":["nan","-inf"],'
      .. '"s":["valid","valid"],"r":[9007199254740993,-1],"rs":["valid","valid"]}]}\n')
    local _, frames = assert(record.load(path))
    local raw = frames[1].frame["raw:" .. MEM].value
    assert.equals(big, raw[""])
    assert.equals(-1, raw.b)
    local cooked = frames[1].frame[MEM].value
    assert.is_true(cooked[""] ~= cooked[""])
    assert.equals(-math.huge, cooked.b)
    assert.equals(1732456789.123456, frames[1].ts)
    assert.equals(7, frames[1].seq)
  end)

  it("reports a malformed line with the file, the line and the column", function()
    local path = dir .. "/bad.rec"
    local header = '{"format":"perflib-recording","version":1,"sources":[{"path":"\\\\Memory\\\\Available Bytes"}]}'
    files.write(path, header .. '\n{"t":1,"t":2,"d":[{"i":[""],"v":[5]}]}\n')
    assert.equals(path .. ':2: column 8: duplicate key "t"', select(2, record.load(path)))
    files.write(path, header .. '\n{"t":1,"d":[{"i":[""],"v":[5],"r":[18446744073709551615]}]}\n')
    assert.equals(path .. ":2: column 36: integer out of the 64-bit range: 18446744073709551615",
      select(2, record.load(path)))
    assert.same({ a = 1 }, record.decode '{"a":1}')
    assert.equals(record.NULL, record.decode "null")
    assert.equals('column 8: duplicate key "a"', select(2, record.decode '{"a":1,"a":2}'))
  end)
end)
