-- Prometheus textfiles (issue 12, item 5): *.prom files written into a temporary
-- directory, loaded with perflib.load_textfiles, their families queried by path as
-- "Prometheus <family>" countersets: counter rates per second, gauges as floats, and
-- the statuses of malformed files (bad escapes, duplicate series, NaN, huge numbers,
-- a truncated line, binary garbage).  Family names start with tf98_ so that they never
-- meet the C tests' or another spec's.
local perflib = require "perflib"
local files = dofile "spec/support/files.lua"

local dir, remove_dir = files.tempdir()

-- Writes name atomically, as the textfile convention asks (a temporary file renamed).
local function put(name, text)
  local tmp = dir .. "/." .. name .. ".tmp"
  files.write(tmp, text)
  assert(os.rename(tmp, dir .. "/" .. name))
end

-- One sample of these paths; the sample and the query.
local function query(paths)
  local q = perflib.query()
  for _, p in ipairs(paths) do assert(q:add(p)) end
  return q
end

local function elapsed(s1, s0, i)
  return (s1:results()[i].time - s0:results()[i].time) / s1.freq
end

describe("Prometheus textfiles", function()
  setup(function()
    put("jobs.prom", table.concat({
      "# HELP tf98_jobs_bytes_total Bytes the job moved.",
      "# TYPE tf98_jobs_bytes_total counter",
      'tf98_jobs_bytes_total{job="backup",disk="sda"} 100',
      "# TYPE tf98_temp_celsius gauge",
      "tf98_temp_celsius -3.25",
      'tf98_temp_celsius{zone="a,b(c)"} 21.5 1700000000000',
      "",
    }, "\n"))
    assert.is_true(perflib.load_textfiles(dir))
  end)
  teardown(remove_dir)

  it("makes each family a counterset, its type mapped and its HELP line its help", function()
    local cs = assert(perflib.counterset "Prometheus tf98_jobs_bytes_total")
    assert.equals("multiple", cs.instance_type)
    assert.equals("Bytes the job moved.", cs.help)
    assert.same({ "Value", "Value/sec" }, { cs.counters[1].name, cs.counters[2].name })
    assert.equals("PERF_DOUBLE_RAW", cs.counters[1].type_name)
    assert.equals("PERF_COUNTER_BULK_COUNT", cs.counters[2].type_name)
    assert.equals(-3, cs.counters[2].scale)
    local g = assert(perflib.counterset "Prometheus tf98_temp_celsius")
    assert.equals(1, #g.counters)
    local names = {}
    for _, i in ipairs(g:instances()) do names[#names + 1] = i.name end
    table.sort(names)
    assert.same({ "zone=a%2Cb%28c%29", "{}" }, names)
  end)

  it("gives a counter's rate per second and a gauge's float, queried by path", function()
    local q = query {
      [[\Prometheus tf98_jobs_bytes_total(disk=sda,job=backup)\Value/sec]],
      [[\Prometheus tf98_temp_celsius({})\Value]],
      [[\Prometheus tf98_temp_celsius(zone=a%2Cb%28c%29)\Value]],
    }
    local s0 = assert(q:collect())
    perflib.sleep(0.2)
    put("jobs.prom", (files.read(dir .. "/jobs.prom"):gsub("} 100\n", "} 250\n")))
    local s1 = assert(q:collect())
    local v, st = s1:values(s0, 1)
    assert.equals("valid", st["Value/sec"]["disk=sda,job=backup"])
    -- 100 -> 250 over the interval between the two reads of the set
    assert.near(150 / elapsed(s1, s0, 1), v["Value/sec"]["disk=sda,job=backup"], 1e-9)
    v = s1:values(s0, 2)
    assert.equals(-3.25, v.Value["{}"])
    v = s1:values(s0, 3)
    assert.equals(21.5, v.Value["zone=a%2Cb%28c%29"])
  end)

  it("gives statuses for duplicate series, NaN, huge numbers and negative counters", function()
    put("values.prom", table.concat({
      "# TYPE tf98_values_total counter",
      'tf98_values_total{s="dup"} 1',
      'tf98_values_total{s="dup"} 2',
      'tf98_values_total{s="nan"} NaN',
      'tf98_values_total{s="huge"} 1e300',
      'tf98_values_total{s="neg"} -4',
      'tf98_values_total{s="ok"} 7',
      "",
    }, "\n"))
    local q = query { [[\Prometheus tf98_values_total(*)\*]] }
    local s0 = assert(q:collect())
    local s1 = assert(q:collect())
    local v, st = s1:values(s0, 1)
    assert.equals("invalid_data", st.Value["s=dup"])
    assert.equals("invalid_data", st.Value["s=nan"])
    assert.equals("invalid_data", st.Value["s=neg"])
    assert.equals("valid", st.Value["s=huge"])
    assert.equals(1e300, v.Value["s=huge"])
    assert.equals(7, v.Value["s=ok"])
    for _, i in ipairs { "s=dup", "s=nan", "s=huge", "s=neg" } do
      assert.equals("no_data", st["Value/sec"][i], i)
    end
    assert.equals("valid", st["Value/sec"]["s=ok"])
    assert.equals(0, v["Value/sec"]["s=ok"])
  end)

  it("fails a malformed family with a sentence naming its file and line", function()
    put("escape.prom", 'tf98_escape{a="fine"} 1\ntf98_escape{a="bad \\q escape"} 2\n')
    put("over.prom", "tf98_over 1e999\n")
    put("cut.prom", "# TYPE tf98_cut gauge\ntf98_cut 12")
    put("garbage.prom", "tf98_garbage 1\n\0\1\2\255\254 binary\n")
    put("other.prom", "tf98_other 5\n")
    local cases = {
      { "tf98_escape", "escape.prom: line 2: a label value has an escape other than" },
      { "tf98_over", "over.prom: line 1: the value is not a number" },
      { "tf98_cut", "cut.prom: line 2: the last line has no newline: the file was cut short" },
      { "tf98_garbage", "garbage.prom: line 2: no metric name" },
    }
    local paths = { [[\Prometheus tf98_other(*)\Value]] }
    for _, c in ipairs(cases) do paths[#paths + 1] = [[\Prometheus ]] .. c[1] .. [[(*)\Value]] end
    local s = assert(query(paths):collect())
    local r = s:results()
    assert.equals("valid", r[1].status)
    assert.equals(5, s:values(nil, 1).Value["{}"])            -- a good file beside bad ones
    for k, c in ipairs(cases) do
      assert.equals("no_data", r[k + 1].status, c[1])
      assert.matches(c[2], r[k + 1].error, 1, true)
      assert.equals(0, #r[k + 1].instances)
    end
  end)

  it("sees a new file within one collect, and a family whose file is gone has no data", function()
    put("late.prom", "# TYPE tf98_late gauge\ntf98_late 9\n")
    local q = query { [[\Prometheus tf98_late(*)\Value]] }
    local s = assert(q:collect())
    assert.equals(9, s:values(nil, 1).Value["{}"])
    os.remove(dir .. "/late.prom")
    s = assert(q:collect())
    assert.equals("no_data", s:results()[1].status)
    assert.matches("no *.prom file defines tf98_late now", s:results()[1].error, 1, true)
  end)

  it("reaches the C library too: libperflib reads $PERFLIB_TEXTFILE_DIR (V1 registry API)", function()
    local out, rc = files.run(("PERFLIB_TEXTFILE_DIR=%q build/examples/reg_object_names Global"):format(dir))
    assert.equals(0, rc, out)
    assert.matches("Object %d+ Prometheus tf98_jobs_bytes_total\n  Counter %d+ Value\n  Counter %d+ Value/sec\n"
      .. "  Instance disk=sda,job=backup\n", out)
  end)

  it("takes a directory from Lua, and says why one cannot be read", function()
    local ok, msg, errno = perflib.load_textfiles "/nonexistent/textfiles"
    assert.is_nil(ok)
    assert.matches("/nonexistent/textfiles: No such file or directory", msg, 1, true)
    assert.equals(2, errno)
    assert.has_error(function() perflib.load_textfiles() end)
    assert.has_error(function() perflib.load_textfiles "" end)
  end)
end)
