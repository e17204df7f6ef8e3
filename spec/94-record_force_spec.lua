-- `perflua record` and perflib.record.open never replace an existing file
-- unless told to (--force / opts.force): a typo in the output name must not
-- destroy an earlier recording.
local record = require "perflib.record"

local files = dofile "spec/support/files.lua"
local write, run, slurp = files.write, files.run, files.slurp

local PERFLUA = "build/perflua"
local PATH = "\\Memory\\Available Bytes"

describe("recording over an existing file", function()
  local dir, remove
  before_each(function() dir, remove = files.tempdir() end)
  after_each(function() remove() end)

  it("record.open refuses an existing path and leaves it as it was", function()
    local path = dir .. "/old.rec"
    write(path, "precious\n")
    local rec, err = record.open(path, { PATH })
    assert.is_nil(rec)
    assert.matches("old%.rec exists: not overwritten %(%-%-force replaces it%)", err)
    assert.equals("precious\n", slurp(path))
    -- also when the file cannot be read: it is still there
    os.execute("chmod 000 " .. path)
    assert.is_nil((record.open(path, { PATH })))
    os.execute("chmod 600 " .. path)
    rec = assert(record.open(path, { PATH }, { force = true }))
    assert.is_true(rec:close())
    assert.equals("\137PLB\r\n\26\n", slurp(path):sub(1, 8))     -- a binary log
  end)

  it("perflua record rotates (--max-bytes) and keeps the last --max-files files", function()
    if not io.open(PERFLUA) then pending("build/perflua not built") return end
    -- 1 byte: every sample starts a file of its own (a file without samples takes any)
    local out, code = run(("%s record %s/r.blg --interval 0.05 --seconds 0.4 --max-bytes 1 --max-files 2 '%s'")
      :format(PERFLUA, dir, PATH))
    assert.equals(0, code, out)
    local n = tonumber(out:match("(%d+) sample%(s%) written"))
    assert.truthy(n and n >= 3, out)
    local ls = run("ls " .. dir)
    assert.equals(("r_%03d.blg\nr_%03d.blg\n"):format(n - 2, n - 1), ls)
  end)

  it("perflua record exits 2 without --force, replaces with it, and says so in its usage", function()
    if not io.open(PERFLUA) then pending("build/perflua not built") return end
    local path = dir .. "/old.rec"
    write(path, "precious\n")
    local out, code = run(("%s record %s --seconds 0.1 '%s'"):format(PERFLUA, path, PATH))
    assert.equals(2, code, out)
    assert.matches("old%.rec exists: not overwritten %(%-%-force replaces it%)", out)
    assert.equals("precious\n", slurp(path))
    out, code = run(("%s record %s --force --interval 0.1 --seconds 0.1 '%s'"):format(PERFLUA, path, PATH))
    assert.equals(0, code, out)
    assert.matches("sample%(s%) written to", out)
    assert.is_truthy(record.load(path))
    out, code = run(("%s record --help"):format(PERFLUA))
    assert.equals(0, code, out)
    assert.matches("%[%-%-force%]", out)
    assert.matches("refused unless %-%-force", out)
    out = run(("%s record %s"):format(PERFLUA, path))
    assert.matches("refused unless %-%-force", out)
  end)
end)
