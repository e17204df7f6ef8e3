-- Seed 004's three registry consumers ported to C (issue 11, item 3): built by `make` against
-- libperflib and perflib_v1.h only, run here, their output checked against perflib's own names,
-- instances and formatted values (the same two V1 blocks read back by perflib.sample_from_block).
local perflib = require "perflib"

local BIN = "build/examples/"

local function run(cmd)
  local h = assert(io.popen(cmd .. " 2>&1"))
  local out = h:read("*a")
  local ok, _, code = h:close()
  return out, ok, code
end

local function slurp(path)
  local h = assert(io.open(path, "rb"))
  local s = h:read("*a")
  h:close()
  return s
end

describe("reg_counter_names (retrieving counter names and help text)", function()
  it("prints every name of the Counter table with the help text at index + 1", function()
    local out, ok = run(BIN .. "reg_counter_names")
    assert.is_true(ok)
    local names, help = perflib.collect "Counter 009", perflib.collect "Help 009"
    local seen, count = {}, 0
    for idx, name, text in out:gmatch "(%d+)\t([^\t\n]*)\t([^\n]*)\n" do
      idx = tonumber(idx)
      assert.equals(names[idx], name)
      assert.equals(help[idx + 1], text)
      assert.is_nil(seen[idx])
      seen[idx] = true
      count = count + 1
    end
    -- the table's first pair, 1 -> the highest index, is no name: the program skips it
    local want, highest = 0, 0
    for idx in pairs(names) do
      if idx ~= 1 then want, highest = want + 1, math.max(highest, idx) end
    end
    assert.equals(tostring(highest), names[1])
    assert.equals(want, count)
    assert.is_true(seen[1000] and seen[1002])
  end)
end)

describe("reg_object_names (displaying object, instance and counter names)", function()
  it("walks the V1 block: objects, counters and instances as perflib has them", function()
    local out, ok = run(BIN .. "reg_object_names '1000 2000'")
    assert.is_true(ok)
    local objects, cur = {}, nil
    for line in out:gmatch "[^\n]+" do
      local oi, oname = line:match "^Object (%d+) (.*)$"
      if oi then
        cur = { index = tonumber(oi), name = oname, counters = {}, instances = {} }
        objects[#objects + 1] = cur
      else
        local ci, cname = line:match "^  Counter (%d+) (.*)$"
        if ci then cur.counters[cname] = tonumber(ci)
        else cur.instances[#cur.instances + 1] = assert(line:match "^  Instance (.*)$") end
      end
    end
    assert.equals(2, #objects)
    local s = perflib.collect "1000 2000"
    for _, o in ipairs(objects) do
      local cs = perflib.counterset(o.name)
      assert.equals(cs.index, o.index)
      local want = {}
      for _, c in ipairs(cs.counters) do want[c.name] = perflib.index_of(o.name, c.name) end
      assert.same(want, o.counters)
      for _, r in ipairs(s:results()) do
        if r.counterset == o.name and cs.instance_type == "multiple" then
          assert.same(r.instances, o.instances)
        elseif r.counterset == o.name then
          assert.same({}, o.instances)             -- PERF_NO_INSTANCES: no instance definitions
        end
      end
    end
  end)

  it("gets Process along with Thread, as the registry interface does", function()
    local out, ok = run(BIN .. "reg_object_names " .. perflib.counterset("Thread").index)
    assert.is_true(ok)
    assert.truthy(out:match "^Object %d+ Thread\n")
    assert.truthy(out:match "\nObject %d+ Process\n")
  end)

  it("shows each thread's parent process by its 0-based instance in the Process object", function()
    local out, ok = run(BIN .. "reg_object_names " .. perflib.counterset("Thread").index)
    assert.is_true(ok)
    local procs = {}
    for name in (out:match "\nObject %d+ Process\n(.*)$" or ""):gmatch "\n  Instance ([^\n]*)" do
      procs[#procs + 1] = name
    end
    assert.is_true(#procs > 0)
    local parented = 0
    for n, name in out:gmatch "\n  Instance [^\n]- %(parent Process #(%d+) ([^\n]*)%)" do
      assert.equals(procs[tonumber(n) + 1], name)
      parented = parented + 1
    end
    assert.is_true(parented > 0)
    -- this very program: its thread (comm/tid) names its process
    assert.truthy(out:match "\n  Instance reg_object_name/%d+ %(parent Process #%d+ reg_object_name[^\n]*%)\n")
  end)
end)

describe("reg_counter_values (retrieving counter data and calculating counter values)", function()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. dir))
  teardown(function() os.execute("rm -rf " .. dir) end)

  -- The example's value, and perflib's formatted value for the same two blocks.
  local function both(set, counter, instance)
    local out, ok = run(string.format("%sreg_counter_values '%s' '%s' '%s' 200 %s", BIN, set, counter, instance, dir))
    assert.is_true(ok, out)
    local v = tonumber(out:match "= (%-?[%d.]+)\n")
    local s0 = assert(perflib.sample_from_block(slurp(dir .. "/block0.v1")))
    local s1 = assert(perflib.sample_from_block(slurp(dir .. "/block1.v1")))
    local want, status = s1:format(s0, 1, instance ~= "" and instance or nil, counter, { nocap = true })
    assert.equals("valid", status)
    return v, want
  end

  it("computes % Processor Time (PERF_100NSEC_TIMER_INV) as perflib does", function()
    local v, want = both("Processor Information", "% Processor Time", "_Total")
    assert.near(want, v, 1e-5)
  end)

  it("computes a rate (PERF_COUNTER_BULK_COUNT) and a precision timer with its base", function()
    local v, want = both("Processor Information", "Interrupts/sec", "_Total")
    assert.near(want, v, 1e-5 * math.max(1, math.abs(want)))
    v, want = both("Processor Information", "% User Time", "0,0")
    assert.near(want, v, 1e-5)
  end)

  it("reads a single-instance object's raw count", function()
    local v, want = both("Memory", "Available Bytes", "")
    assert.equals(want, v)
  end)
end)
