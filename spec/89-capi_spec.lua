-- The PerfLib V2 C API from outside: seed 000's CpuPerfCounters consumer, ported to C, against
-- /proc/stat; and the installed library with its pkg-config file.
local files = dofile "spec/support/files.lua"

-- the commands run without the sanitizer pass's preloads: they are plain programs
local ENV = "env -u LD_PRELOAD -u ASAN_OPTIONS -u UBSAN_OPTIONS "

local function cpu0()
  for line in io.lines("/proc/stat") do
    local f = {}
    for x in line:gmatch("%d+") do f[#f + 1] = tonumber(x) end
    if line:match("^cpu0 ") then
      -- cpu0 user nice system idle iowait irq softirq steal: f[1] is the "0" of "cpu0"
      local total = 0
      for k = 2, 9 do total = total + f[k] end
      return total, f[5] + f[6]
    end
  end
end

-- The seed's output: "ReadDataN used=U, status=S" and "  name/name = percent".
local function parse(out)
  local reads, values = {}, {}
  for line in out:gmatch("[^\n]+") do
    local n, used, status = line:match("^ReadData(%d+) used=(%d+), status=(%d+)$")
    if n then
      reads[#reads + 1] = { n = tonumber(n), used = tonumber(used), status = tonumber(status) }
    else
      local a, b, v = line:match("^  ([^/]+)/([^ ]+) = (%-?[%d.]+)$")
      assert(a, "unexpected line: " .. line)
      assert.equal(a, b)
      values[#values + 1] = { name = a, v = tonumber(v) }
    end
  end
  return reads, values
end

describe("examples/cpu_perf_counters (seed 000 ported to C)", function()
  it("prints plausible % Processor Time of the first instance against /proc/stat", function()
    local total0, idle0 = cpu0()
    local out, code = files.run(ENV .. "build/examples/cpu_perf_counters 5 400")
    local total1, idle1 = cpu0()
    assert.equal(0, code, out)
    local reads, values = parse(out)
    assert.equal(5, #reads)
    for k, r in ipairs(reads) do
      assert.equal(k - 1, r.n)
      assert.equal(0, r.status)
      assert.is_true(r.used >= 2)             -- CPUs, a node and _Total
    end
    assert.equal(4, #values)
    local mean = 0
    for _, x in ipairs(values) do
      assert.equal("0,0", x.name)             -- instance #0 is CPU 0 here
      -- the Windows formula is not capped: a tick of jitter may cross 0 or 100
      assert.is_true(x.v >= -3 and x.v <= 103, tostring(x.v))
      mean = mean + x.v / #values
    end
    -- the same CPU over the same time from /proc/stat, within a few ticks per interval
    local busy = 100 * (1 - (idle1 - idle0) / (total1 - total0))
    assert.near(busy, mean, 12)
  end)
end)

describe("make install", function()
  it("installs the headers, the library and a pkg-config file a C program builds with", function()
    local dir, remove = files.tempdir()
    local out, code = files.run(ENV .. "make -s install DESTDIR=" .. dir .. " PREFIX=/usr")
    assert.equal(0, code, out)
    for _, f in ipairs { "/usr/include/perflib/perflib_v2.h", "/usr/include/perflib/perflib_wintypes.h",
                         "/usr/lib/libperflib.so.0", "/usr/lib/libperflib.a", "/usr/lib/pkgconfig/perflib.pc",
                         "/usr/bin/perflua", "/usr/lib/lua/5.4/perflib/core.so",
                         "/usr/share/lua/5.4/perflib/init.lua", "/usr/share/lua/5.4/perflib/rules/engine.lua" } do
      assert.is_true(files.read(dir .. f) ~= "", f)
    end
    -- a program outside the tree, built only from what pkg-config says
    local pc = ("PKG_CONFIG_PATH=%s/usr/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=%s "):format(dir, dir)
    local flags = files.run(ENV .. pc .. "pkg-config --cflags --libs perflib")
    assert.matches("%-I" .. dir:gsub("%p", "%%%0") .. "/usr/include/perflib", flags)
    local cc = ("cc -std=c11 -o %s/cpc examples/cpu_perf_counters.c %s"):format(dir, (flags:gsub("\n", "")))
    out, code = files.run(ENV .. cc)
    assert.equal(0, code, out)
    out, code = files.run(ENV .. ("LD_LIBRARY_PATH=%s/usr/lib %s/cpc 2 100"):format(dir, dir))
    assert.equal(0, code, out)
    local reads, values = parse(out)
    assert.equal(2, #reads)
    assert.equal(1, #values)
    -- the shared library it ran with is the installed one
    out = files.run(ENV .. ("LD_LIBRARY_PATH=%s/usr/lib ldd %s/cpc"):format(dir, dir))
    assert.matches(dir:gsub("%p", "%%%0") .. "/usr/lib/libperflib.so.0", out)
    remove()
  end)
end)
