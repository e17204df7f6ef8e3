-- Formatted values into Lua at near-zero cost (issue 16 item 6): shared,
-- interned name tables, results refilled in place by default, `fresh`, the
-- columns form, and the iterators on the query's names.  Runs on 5.1 too.
local perflib = require "perflib"

local FIX = "spec/fixtures/"

-- /proc/stat states of a copy of the basic tree, written in place (the
-- provider keeps the file open: same inode).  basic and basic2 are the
-- fixtures' own lines; third adds, to basic2, cpu0 user +100 idle +100 and
-- cpu1 user +150 idle +50 (the "cpu" line the sums); fourth adds a cpu2.
local BASIC2 = {
  "cpu  14473 11 10708 114436 603 0 202 46 0 0",
  "cpu0 4856 0 5396 59711 121 0 78 27 0 0",
  "cpu1 9617 11 5312 54725 482 0 123 19 0 0",
}
local THIRD = {
  "cpu  14723 11 10708 114586 603 0 202 46 0 0",
  "cpu0 4956 0 5396 59811 121 0 78 27 0 0",
  "cpu1 9767 11 5312 54775 482 0 123 19 0 0",
}
local FOURTH = {
  "cpu  14823 11 10708 114686 603 0 202 46 0 0",
  "cpu0 4956 0 5396 59811 121 0 78 27 0 0",
  "cpu1 9767 11 5312 54775 482 0 123 19 0 0",
  "cpu2 100 0 0 100 0 0 0 0 0 0",
}
local TAIL = "intr 785324 0\nctxt 2497631\nbtime 1795303633\nprocesses 25460\nprocs_running 3\n"
  .. "procs_blocked 1\nsoftirq 409483 0 34352 4 132496 79686 0 2 79990 0 82953\n"

local function tree()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute(("cp -r %sbasic %s"):format(FIX, dir)))
  return dir
end

local function write_stat(dir, lines)
  local f = assert(io.open(dir .. "/proc/stat", "w"))
  f:write(table.concat(lines, "\n"), "\n", TAIL)
  f:close()
end

-- a query on a basic tree with specs; returns the query and the tree
local function query(specs)
  local dir = tree()
  local q = perflib.query { root = dir }
  for _, p in ipairs(specs) do assert(q:add(p)) end
  return q, dir
end

-- the query, its tree, and a sample of basic then one of basic2
local function pair(specs)
  local q, dir = query(specs)
  local s0 = q:collect()
  write_stat(dir, BASIC2)
  return q, dir, s0, q:collect()
end

local function done(q, dir)
  q:close()
  os.execute("rm -rf " .. dir)
end

local BUSY = "\\Processor Information(*)\\% Busy Time"
local IDLE = "\\Processor Information(*)\\% Idle Time"

describe("shared name tables", function()
  it("results of the same instance list share instances, ids and index, across collects", function()
    local q, dir, s0, s1 = pair { BUSY, IDLE }
    local a, b = s1:evaluate(s0, 1), s1:evaluate(s0, 2)
    assert.is_true(rawequal(a.instances, b.instances))
    assert.is_true(rawequal(a.ids, b.ids))
    assert.is_true(rawequal(a.index, b.index))
    assert.is_false(rawequal(a, b))
    assert.same({ "0,0", "0,1", "0,_Total", "_Total" }, a.instances)
    -- basic -> basic2, cpu0: 1000 ticks, idle +500 iowait +20: busy 100*480/1000, idle 100*520/1000
    assert.near(48.0, a[1][1], 1e-9)
    assert.near(52.0, b[1][1], 1e-9)
    assert.equals("% Busy Time", a.counters[1])
    assert.equals("% Idle Time", b.counters[1])
    -- the next collect: the same lists, the same tables
    write_stat(dir, THIRD)
    local s2 = q:collect()
    local c = s2:evaluate(s1, 2)
    assert.is_true(rawequal(a.instances, c.instances))
    local _, _, _, insts, ctrs = s2:columns(s1, 1)
    assert.is_true(rawequal(a.instances, insts))
    assert.same({ "% Busy Time" }, ctrs)
    done(q, dir)
  end)
end)

describe("evaluate refills in place by default", function()
  it("returns the same table with new values, and new tables when the instances change", function()
    local q, dir = query { BUSY }
    local s0 = q:collect()
    local v0 = s0:evaluate()
    assert.equals(0, v0.valid)
    assert.equals("first_sample", v0.status[1][1])
    write_stat(dir, BASIC2)
    local s1 = q:collect()
    local v = s1:evaluate(s0)
    assert.is_true(rawequal(v0, v))            -- the first sample's table, refilled
    assert.is_nil(v.status[1])                 -- no stale status: every value is valid now
    assert.equals(4, v.valid)
    local col = v[1]
    assert.near(48.0, v[1][1], 1e-9)
    assert.near(64.0, v[1][2], 1e-9)           -- cpu1: idle +350 iowait +10 of 1000
    write_stat(dir, THIRD)
    local s2 = q:collect(s0)                   -- s0's memory reused: s1 stays
    local w = s2:evaluate(s1)
    assert.is_true(rawequal(v, w))
    assert.is_true(rawequal(col, w[1]))
    assert.is_true(rawequal(col, w["% Busy Time"]))
    -- cpu0: user +100 idle +100: 100*100/200; cpu1: user +150 idle +50: 100*150/200
    assert.near(50.0, w[1][1], 1e-9)
    assert.near(75.0, w[1][2], 1e-9)
    -- _Total: user +250, idle +150 of 400: 100*250/400
    assert.near(62.5, w[1][w.index._Total], 1e-9)
    assert.equals(4, w.valid)
    -- a new CPU: new tables, old ones untouched
    local old_instances = w.instances
    write_stat(dir, FOURTH)
    local s3 = q:collect()
    local x = s3:evaluate(s2)
    assert.is_false(rawequal(w, x))
    assert.is_false(rawequal(old_instances, x.instances))
    assert.same({ "0,0", "0,1", "0,_Total", "_Total" }, old_instances)
    assert.same({ "0,0", "0,1", "0,2", "0,_Total", "_Total" }, x.instances)
    assert.equals(3, x.index["0,2"])
    assert.equals(2, x.ids[3])
    assert.is_nil(x[1][3])
    assert.equals("first_sample", x.status[1][3])  -- cpu2 has no older value yet
    -- cpu0 and cpu1 did not move: no ticks, zero interval
    assert.equals("zero_interval", x.status[1][1])
    -- the old table kept its last values
    assert.near(50.0, w[1][1], 1e-9)
    -- and x is the table refilled from now on
    local s4 = q:collect()
    assert.is_true(rawequal(x, s4:evaluate(s3)))
    done(q, dir)
  end)

  it("keeps a table with fresh = true, and keeps tables apart per formatting options", function()
    local q, dir, s0, s1 = pair { BUSY }
    local v = s1:evaluate(s0)
    local kept = s1:evaluate(s0, 1, { fresh = true })
    assert.is_false(rawequal(v, kept))
    assert.same(v, kept)
    local nocap = s1:evaluate(s0, 1, { nocap = true })
    assert.is_false(rawequal(v, nocap))
    assert.is_true(rawequal(nocap, s1:evaluate(s0, 1, { nocap = true })))
    write_stat(dir, THIRD)
    local s2 = q:collect()
    assert.is_true(rawequal(v, s2:evaluate(s1)))
    assert.near(50.0, v[1][1], 1e-9)
    assert.near(48.0, kept[1][1], 1e-9)        -- fresh: no later call changed it
    assert.near(48.0, nocap[1][1], 1e-9)       -- its own slot: not refilled by the default call
    -- a column the caller replaced: a new table, the caller's left alone
    v[1] = "mine"
    local y = s2:evaluate(s1)
    assert.is_false(rawequal(v, y))
    assert.equals("mine", v[1])
    assert.near(50.0, y[1][1], 1e-9)
    -- into still refills the table it is given
    assert.is_true(rawequal(kept, s2:evaluate(s1, 1, { into = kept })))
    assert.near(50.0, kept[1][1], 1e-9)
    done(q, dir)
  end)

  it("gives a sample read from a block its own tables", function()
    local q, dir, s0, s1 = pair { BUSY }
    local b1 = assert(perflib.sample_from_block(s1:block()))
    local v = s1:evaluate(s0)
    local u = b1:evaluate(s0)
    assert.is_false(rawequal(v, u))
    assert.same(v, u)
    assert.is_true(rawequal(u, b1:evaluate(s0)))
    done(q, dir)
  end)
end)

describe("Sample:columns", function()
  it("gives evaluate's values and statuses as arrays, refilled in place", function()
    local q, dir = query { BUSY, IDLE }
    local s0 = q:collect()
    local vals, sts, n = s0:columns()
    assert.equals(0, n)
    assert.is_nil(vals[1][1])
    assert.equals("first_sample", sts[1][1])
    assert.equals("first_sample", sts[1][4])
    write_stat(dir, BASIC2)
    local s1 = q:collect()
    local vals1, sts1, n1, insts = s1:columns(s0)
    assert.is_true(rawequal(vals, vals1))
    assert.is_true(rawequal(sts, sts1))
    assert.is_nil(sts1[1])                     -- cleared: all valid
    assert.equals(4, n1)
    local v = s1:evaluate(s0, 1)
    for i = 1, #insts do assert.equals(v[1][i], vals1[1][i]) end
    assert.near(48.0, vals1[1][1], 1e-9)
    assert.near(56.0, vals1[1][v.index._Total], 1e-9)   -- 2000 ticks, idle+iowait +880
    local idle = s1:columns(s0, 2)
    assert.is_false(rawequal(vals1, idle))
    assert.near(52.0, idle[1][1], 1e-9)
    write_stat(dir, THIRD)
    local s2 = q:collect()
    local col = vals1[1]
    local vals2 = s2:columns(s1, 1)
    assert.is_true(rawequal(vals1, vals2))
    assert.is_true(rawequal(col, vals2[1]))
    assert.near(50.0, vals2[1][1], 1e-9)
    assert.near(75.0, vals2[1][2], 1e-9)
    local mine = s2:columns(s1, 1, { fresh = true })
    assert.is_false(rawequal(vals2, mine))
    assert.same(vals2, mine)
    done(q, dir)
  end)

  it("reports a failed result in statuses.error", function()
    local q = perflib.query { root = FIX .. "basic" }
    q:add "\\Processor Information(7,7)\\% Busy Time"
    local vals, sts, n, insts, ctrs = q:collect():columns()
    assert.equals("no_instance", sts.error)
    assert.same({ {} }, vals)
    assert.equals(0, n)
    assert.same({}, insts)
    assert.same({ "% Busy Time" }, ctrs)
    q:close()
  end)

  it("raises naming the argument", function()
    local q, dir = query { BUSY }
    local s0 = q:collect()
    local s1 = q:collect()
    assert.has_error(function() s1:columns(s0, 2) end, "bad argument #2 to 'columns' (no such result index)")
    assert.has_error(function() s1:columns(s0, 1, { bogus = 1 }) end, "columns: unknown option 'bogus'")
    assert.has_error(function() s1:columns(s0, 1, { fresh = 1 }) end,
      "bad argument #3 to 'columns' ('fresh' must be a boolean)")
    assert.has_error(function() s1:columns(s0, 1, { into = {} }) end,
      "bad argument #3 to 'columns' ('into' is evaluate's: columns refills by itself)")
    assert.has_error(function() s1:evaluate(s0, 1, { fresh = "yes" }) end,
      "bad argument #3 to 'evaluate' ('fresh' must be a boolean)")
    assert.has_error(function() s0:columns(s1) end)
    local other = perflib.query { root = FIX .. "basic" }
    assert(other:add(BUSY))
    assert.has_error(function() s1:columns(other:collect()) end,
      "bad argument #1 to 'columns' (sample from another query)")
    s1:release()
    assert.has_error(function() s1:columns(s0) end,
      "calling 'columns' on bad self (attempt to use a released sample)")
    other:close()
    done(q, dir)
  end)
end)

describe("the iterators on the query's names", function()
  it("format each pair's values in loops nested, broken off, and over samples refilled in place", function()
    local q, dir, s0, s1 = pair { BUSY, IDLE }
    local n = 0
    for _, v in s1:formatted(s0) do             -- broken off after the first value
      n = n + 1
      assert.near(48.0, v, 1e-9)
      if n == 1 then break end
    end
    local outer, inner = {}, {}
    for inst, v, _, _, k in s1:formatted(s0) do
      outer[#outer + 1] = ("%d%s=%g"):format(k, inst, v)
      if #outer == 1 then
        for inst2, v2 in s1:formatted(s0, { index = 2 }) do inner[#inner + 1] = ("%s=%g"):format(inst2, v2) end
      end
    end
    -- busy 48, 64, 56 (2000 ticks, idle+iowait +880), 56; idle 100 minus those
    assert.same({ "10,0=48", "10,1=64", "10,_Total=56", "1_Total=56",
                  "20,0=52", "20,1=36", "20,_Total=44", "2_Total=44" }, outer)
    assert.same({ "0,0=52", "0,1=36", "0,_Total=44", "_Total=44" }, inner)
    -- refilled in place: the older sample's memory now holds the third state
    write_stat(dir, THIRD)
    local s2 = q:collect(s0)
    local got = {}
    for inst, v, _, _, k in s2:formatted(s1) do got[#got + 1] = ("%d%s=%g"):format(k, inst, v) end
    -- busy 50, 75, 62.5 (user +250 of 400), 62.5; idle 100 minus those
    assert.same({ "10,0=50", "10,1=75", "10,_Total=62.5", "1_Total=62.5",
                  "20,0=50", "20,1=25", "20,_Total=37.5", "2_Total=37.5" }, got)
    done(q, dir)
  end)

  it("formatted and raw agree with evaluate and with each other, result by result", function()
    local q, dir, s0, s1 = pair { BUSY, IDLE, "\\Processor Information(7,7)\\% Busy Time" }
    local rows = {}
    for inst, v, st, ctr, k in s1:formatted(s0) do rows[#rows + 1] = { inst, v, st, ctr, k } end
    assert.equals(4 + 4 + 1, #rows)
    assert.same({ "0,0", 48.0, "valid", "% Busy Time", 1 }, rows[1])
    assert.equals("% Idle Time", rows[5][4])
    assert.near(52.0, rows[5][2], 1e-9)
    assert.same({ "7,7", nil, "no_instance", "% Busy Time", 3 }, rows[9])
    for k = 1, 2 do
      local v = s1:evaluate(s0, k)
      for i, name in ipairs(v.instances) do
        local r = rows[(k - 1) * 4 + i]
        assert.equals(name, r[1])
        assert.equals(v[1][i], r[2])
      end
    end
    local raw = {}
    for inst, v, st, ctr, k in s1:raw(1) do raw[#raw + 1] = { inst, v, st, ctr, k } end
    assert.equals(4, #raw)
    assert.equals("0,1", raw[2][1])
    assert.equals("valid", raw[2][3])
    assert.equals("% Busy Time", raw[2][4])
    -- values: by name, the same numbers
    local values, statuses = s1:values(s0, 1)
    assert.near(48.0, values["% Busy Time"]["0,0"], 1e-9)
    assert.equals("valid", statuses["% Busy Time"]["_Total"])
    done(q, dir)
  end)
end)
