-- Alerts to a real Alertmanager (Debian's prometheus-alertmanager 0.25) on a
-- free loopback port, with its own configuration and storage:
--  * `perflua monitor` watches a Prometheus textfile counter; the alert fires,
--    is read back from Alertmanager's API (labels, annotations), then resolves:
--    it leaves the API's active alerts, and Alertmanager's own resolved
--    notification (to a webhook receiver, spec/support/http_sink.py) carries
--    the endsAt perflib sent;
--  * Alertmanager is down when an alert fires, comes up, and the alert arrives
--    on a retry.
local perflib = require "perflib"
local core = require "perflib.core"
local N = require "perflib.rules.notify"
local A = dofile "spec/support/alerting.lua"

local PERFLUA = "build/perflua"

local function write(path, text)
  local f = assert(io.open(path .. ".tmp", "w"))
  f:write(text)
  f:close()
  assert(os.rename(path .. ".tmp", path))
end

-- Alertmanager's notifications to the sink for alertname with this status.
local function am_notes(sink, status)
  local out = {}
  for _, r in ipairs(A.received(sink)) do
    if r.path == "/am" and r.json.status == status then out[#out + 1] = r.json end
  end
  return out
end

describe("alerts to a real Alertmanager", function()
  local dir, sink, am, port
  setup(function()
    if not A.have_am() then return end
    dir = A.tmpdir()
    sink = A.sink(dir, "ok", 120)
    port = A.free_port(dir)
    am = A.alertmanager(dir, port, sink.url)
  end)
  teardown(function()
    if am then A.stop(am.pid) end
    if sink then A.stop(sink.pid) end
    if dir then os.execute("rm -rf " .. dir) end
  end)

  it("perflua monitor fires and resolves an alert that Alertmanager shows and routes", function()
    if not A.have_am() then pending("prometheus-alertmanager is not installed (apt-get install "
      .. "prometheus-alertmanager)") return end
    if not io.open(PERFLUA) then pending("build/perflua not built") return end
    local prom = dir .. "/prom"
    os.execute("mkdir " .. prom)
    write(prom .. "/level.prom", '# TYPE perfalert_level gauge\nperfalert_level{host="db1"} 95\n')
    local rules = dir .. "/rules.lua"
    write(rules, ([==[
      R.rule "PerfAlertLevel" {
        source = [[\Prometheus perfalert_level(*)\Value]],
        when = R.above(50), severity = "crit", labels = { team = "storage" },
        message = "level {value} on {instance}",
      }
      R.route { repeat_interval = "1m",
        actions = { R.alertmanager("%s", { timeout = 2, retries = 3, backoff = 1,
                                           generator_url = "http://perflib.test/rules" }) } }
    ]==]):format(am.url))
    local out = dir .. "/monitor.out"
    local pid = assert(core.spawn({ PERFLUA, "monitor", rules, "--interval", "0.25", "--seconds", "60" },
      { PERFLIB_TEXTFILE_DIR = prom }, { stdout = out, stderr = out }))
    local alerts = A.wait_until(function()
      local list = A.am_alerts(am, "PerfAlertLevel")
      return #list > 0 and list
    end, 20)
    assert.truthy(alerts, A.slurp(out))
    assert.equals(1, #alerts)
    local a = alerts[1]
    assert.same({ alertname = "PerfAlertLevel", instance = "host=db1", severity = "crit", team = "storage" },
      a.labels)
    assert.same({ summary = "level 95 on host=db1", value = "95" }, a.annotations)
    assert.equals("http://perflib.test/rules", a.generatorURL)
    assert.equals("active", a.status.state)
    assert.truthy(A.wait_until(function() return #am_notes(sink, "firing") > 0 end, 10))

    write(prom .. "/level.prom", '# TYPE perfalert_level gauge\nperfalert_level{host="db1"} 10\n')
    assert.truthy(A.wait_until(function() return #A.am_alerts(am, "PerfAlertLevel") == 0 end, 20),
      A.slurp(out))
    local resolved = A.wait_until(function() return am_notes(sink, "resolved")[1] end, 10)
    assert.truthy(resolved)
    local r = resolved.alerts[1]
    assert.equals("resolved", r.status)
    assert.equals("host=db1", r.labels.instance)
    -- the same instant; Alertmanager's API and its notifications write it with 3 or with
    -- the significant fraction digits (".760Z" and ".76Z"): compare without trailing zeros
    local function instant(t) return (t:gsub("(%.%d-)0+Z$", "%1Z"):gsub("%.Z$", "Z")) end
    assert.equals(instant(a.startsAt), instant(r.startsAt))
    assert.not_equals("0001-01-01T00:00:00Z", r.endsAt)
    assert.is_true(r.endsAt > r.startsAt)   -- RFC 3339 UTC of one format: text order is time order
    A.stop(pid)
    local text = A.slurp(out)
    assert.matches("PerfAlertLevel {host=db1} crit: inactive -> firing", text, 1, true)
    assert.matches("PerfAlertLevel {host=db1} crit: firing -> resolved", text, 1, true)
    assert.matches("perflua monitor: stopped", text, 1, true)
    assert.not_matches("failed", text)
  end)

  it("an alert that fires while Alertmanager is down arrives on a retry", function()
    if not A.have_am() then pending("prometheus-alertmanager is not installed") return end
    local down_port = A.free_port(dir)
    local logs = {}
    local n = N.new({ routes = { { actions = { { kind = "alertmanager", url = "http://127.0.0.1:" .. down_port,
      timeout = 2, retries = 30, backoff = 0.5 } } } } }, { log = function(m) logs[#logs + 1] = m end })
    n:event { kind = "transition", rule = "LateArrival", labels = { instance = "eth0", severity = "warn" },
              to = "firing", t = 0, value = 1, message = "late" }
    assert.truthy(A.tick_until(n, 0, function() return #logs >= 1 end, 10))
    assert.matches("action alertmanager for LateArrival firing %(attempt 1/31%) failed: .*onnect.*retry at", logs[1])
    local dir2 = dir .. "/late"
    os.execute("mkdir " .. dir2)
    local late = A.alertmanager(dir2, down_port, sink.url)
    local c0 = perflib.clock()
    local got = A.tick_until(n, perflib.clock() - c0 + 10, function()
      local list = A.am_alerts(late, "LateArrival")
      return #list > 0 and list
    end, 30)
    A.stop(late.pid)
    assert.truthy(got, table.concat(logs, "\n"))
    assert.same({ alertname = "LateArrival", instance = "eth0", severity = "warn" }, got[1].labels)
    assert.equals(0, n.stats.gave_up)
    assert.is_true(n.stats.retried >= 1)
  end)
end)
