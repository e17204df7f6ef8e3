-- Task States and Container through the Lua API: a temporary v2 container
-- tree (cgroup namespace: "0::/", cgroup2 on /sys/fs/cgroup) with the
-- arithmetic in the comments, a /proc of four processes, and this machine.

local perflib = require "perflib"

local function put(root, rel, text)
  local dir = (root .. "/" .. rel):match("^(.*)/[^/]*$")
  assert(os.execute("mkdir -p '" .. dir .. "'"))
  local f = assert(io.open(root .. "/" .. rel, "w"))
  f:write(text)
  f:close()
end

local function tmpdir()
  local p = assert(io.popen("mktemp -d /tmp/pl-spec-ct-XXXXXX"))
  local d = p:read("*l")
  p:close()
  return d
end

describe("Container", function()
  local root
  before_each(function()
    root = tmpdir()
    put(root, "proc/self/cgroup", "0::/\n")
    put(root, "proc/self/mountinfo", "30 25 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n")
    put(root, "proc/meminfo", "MemTotal:  8000000 kB\n")
    put(root, "sys/devices/system/cpu/online", "0-3\n")
    put(root, "sys/fs/cgroup/cpu.max", "50000 100000\n")
    put(root, "sys/fs/cgroup/cpu.stat", "usage_usec 1000000\nuser_usec 600000\nsystem_usec 400000\n")
    put(root, "sys/fs/cgroup/memory.current", "300000000\n")
    put(root, "sys/fs/cgroup/memory.max", "1000000000\n")
    put(root, "sys/fs/cgroup/memory.stat", "inactive_file 100000000\n")
  end)
  after_each(function() os.execute("rm -rf '" .. root .. "'") end)

  it("re-bases CPU time on the quota and memory on the limit", function()
    local q = perflib.query { root = root }
    local idx = assert(q:add("\\Container\\*"))
    local s0 = assert(q:collect())
    -- 0.5 CPU (50000 / 100000) in thousandths; the machine's 4 CPUs would be 4000
    assert.equal(500, (s0:value(idx, nil, "Processor Limit")))
    -- working set 300000000 - 100000000 = 200000000 of 1000000000: 20 %
    assert.equal(20, (s0:format(nil, idx, nil, "% Memory Used")))
    assert.equal(800000000, (s0:value(idx, nil, "Available Bytes")))
    -- 0.25 s more CPU: over an interval the sample clocks give, the rate is
    -- 100 x 0.25 s / (dt x 0.5 CPU); checked against the same formula
    put(root, "sys/fs/cgroup/cpu.stat", "usage_usec 1250000\nuser_usec 700000\nsystem_usec 550000\n")
    local s1 = assert(q:collect())
    local v, st = s1:format(s0, idx, nil, "% Processor Time", { nocap = true })
    assert.equal("valid", st)
    local dt = (s1:results()[idx].time - s0:results()[idx].time) / s1.freq
    assert.near(100 * 0.25 / (dt * 0.5), v, 1e-6 * v)
  end)

  it("fails with the file when there is no cgroup", function()
    os.remove(root .. "/proc/self/cgroup")
    local q = perflib.query { root = root }
    local idx = assert(q:add("\\Container\\*"))
    local s = assert(q:collect())
    local r = s:results()[idx]
    assert.matches("proc/self/cgroup", r.error)
  end)

  it("gives this machine's own group", function()
    local q = perflib.query()
    local idx = assert(q:add("\\Container\\Processor Limit"))
    local v = q:collect():value(idx)
    assert.is_true(v >= 1)
  end)
end)

describe("Task States", function()
  it("is costly and counts processes by state", function()
    assert.is_true(perflib.counterset("Task States").costly)
    local root = tmpdir()
    local function stat(pid, state, threads)
      put(root, ("proc/%d/stat"):format(pid),
        ("%d (p%d) %s 1 1 1 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 %d 0 %d 1000 10\n")
          :format(pid, pid, state, threads, 100 + pid))
    end
    put(root, "proc/uptime", "100.00 100.00\n")
    stat(1, "S", 1); stat(7, "R", 3); stat(8, "D", 1); stat(9, "Z", 1)
    local q = perflib.query { root = root }
    local idx = assert(q:add("\\Task States\\*"))
    local s = assert(q:collect())
    assert.equal(4, (s:value(idx, nil, "Processes")))
    assert.equal(1, (s:value(idx, nil, "Running")))
    assert.equal(1, (s:value(idx, nil, "Disk Sleep")))
    assert.equal(1, (s:value(idx, nil, "Zombie")))
    assert.equal(6, (s:value(idx, nil, "Threads")))     -- 1 + 3 + 1 + 1
    os.execute("rm -rf '" .. root .. "'")
  end)
end)
