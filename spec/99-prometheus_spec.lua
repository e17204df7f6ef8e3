-- perflua serve with the real Prometheus (issue 13, item 5): Debian's prometheus scrapes a
-- perflua serve on loopback every 2 s; after the scrapes, Prometheus' rate() of a network
-- counter (loopback traffic this spec makes at a steady pace) and of a CPU's idle time agree
-- with perflib's own formatted values over the same window, read by this process meanwhile.
local files = dofile "spec/support/files.lua"
local cjson = require "cjson"
local perflib = require "perflib"

local PERFLUA = os.getenv("PWD") .. "/build/perflua"

local sh = files.sh

local free_port = files.free_port

local function wait_for(what, f, seconds)
  for _ = 1, (seconds or 20) * 10 do
    local v = f()
    if v then return v end
    os.execute "sleep 0.1"
  end
  error("timed out waiting for " .. what)
end

-- Prometheus' HTTP API: the result of an instant query at time t (seconds).
local function promql(pport, expr, t)
  local body = sh(("curl -s -m 10 -G 'http://127.0.0.1:%d/api/v1/query' --data-urlencode %q "
    .. "--data-urlencode 'time=%.3f'")
    :format(pport, "query=" .. expr, t))
  local ok, r = pcall(cjson.decode, body)
  assert(ok and r.status == "success", body)
  return r.data.result
end

describe("perflua serve scraped by the real Prometheus", function()
  local dir, remove, serve_pid, prom_pid, traffic_pid

  setup(function() dir, remove = files.tempdir() end)

  teardown(function()
    for _, pid in ipairs { traffic_pid, prom_pid, serve_pid } do
      if pid then os.execute("kill " .. pid .. " 2>/dev/null") end
    end
    os.execute "sleep 0.3"
    remove()
  end)

  it("gives rate() values that agree with perflib's formatted values over the same window", function()
    -- without the suite's preloaded sanitizers (GnuTLS' p11-kit destructor deadlocks under them)
    serve_pid = sh(("cd %s && env -u LD_PRELOAD %s serve --listen 127.0.0.1:0 > serve.txt 2>&1 & echo $!")
      :format(dir, PERFLUA))
      :match "%d+"
    local port = wait_for("perflua serve", function()
      return tonumber(files.read(dir .. "/serve.txt"):match "listening on [^:]+:(%d+)")
    end)
    local pport = free_port()
    files.write(dir .. "/prometheus.yml", ([[
global:
  scrape_interval: 2s
  evaluation_interval: 2s
scrape_configs:
  - job_name: perflib
    static_configs:
      - targets: ['127.0.0.1:%d']
]]):format(port))
    prom_pid = sh(("cd %s && env -u LD_PRELOAD prometheus --config.file=prometheus.yml --storage.tsdb.path=data "
      .. "--web.listen-address=127.0.0.1:%d > prom.txt 2>&1 & echo $!"):format(dir, pport)):match "%d+"
    wait_for("prometheus ready", function()
      return sh(("curl -s -o /dev/null -w '%%{http_code}' http://127.0.0.1:%d/-/ready"):format(pport)) == "200"
    end, 30)
    -- its first scrape of perflua serve is in, so the 10 s window below holds its 2 s scrapes
    -- (on a busy machine the first one came late and the window held only 2)
    wait_for("prometheus' first scrape", function()
      local m = promql(pport, 'up{job="perflib"}', os.time() + 0.0)
      return #m == 1 and m[1].value[2] == "1"
    end, 30)
    -- steady loopback traffic: 256 KiB every 50 ms, about 5 MiB/s, for 20 s
    traffic_pid = sh([[env -u LD_PRELOAD python3 -c "
import socket, threading, time
srv = socket.socket(); srv.bind(('127.0.0.1', 0)); srv.listen(1)
def sink():
    c, _ = srv.accept()
    while c.recv(1 << 20): pass
threading.Thread(target=sink, daemon=True).start()
cl = socket.create_connection(srv.getsockname()); chunk = b'x' * 262144; end = time.time() + 20
while time.time() < end:
    cl.sendall(chunk); time.sleep(0.05)
" > /dev/null 2>&1 & echo $!]]):match "%d+"
    -- perflib's own reads, every 0.25 s, each with its wall time
    local q = perflib.query()
    q:add "\\Network Interface(lo)\\Bytes Received/sec"
    q:add "\\Processor Information(0,0)\\% Idle Time"
    local samples = {}
    local until_ = os.time() + 12
    while os.time() < until_ do
      samples[#samples + 1] = q:collect()
      os.execute "sleep 0.25"
    end
    -- wall time of a read, in Unix seconds with its fraction
    local function wall(smp) return smp.time100ns / 1e7 - 11644473600 end
    -- the window: from Prometheus' first to its last scrape in the 10 s before perflib's
    -- last read but one; rate() over exactly that span, perflib's reads nearest its ends
    local t_last = wall(samples[#samples - 1])
    local m = promql(pport, 'perflib_network_interface_received_bytes_total{instance_name="lo"}[10s]', t_last)
    assert.is_true(#m == 1 and #m[1].values >= 3, cjson.encode(m))
    local a, b = m[1].values[1][1], m[1].values[#m[1].values][1]
    local span = ("%dms"):format(math.floor((b - a) * 1000) + 1)
    local function nearest(t)
      local best
      for _, smp in ipairs(samples) do
        if not best or math.abs(wall(smp) - t) < math.abs(wall(best) - t) then best = smp end
      end
      return best
    end
    local s0, s1 = nearest(a), nearest(b)
    local net = assert(s1:format(s0, 1, "lo", "Bytes Received/sec"))
    local idle = assert(s1:format(s0, 2, "0,0", "% Idle Time"))
    -- Prometheus' rate() over it: bytes per second, and idle seconds per second (x 100 = %)
    local r = promql(pport, ('rate(perflib_network_interface_received_bytes_total{instance_name="lo"}[%s])')
      :format(span), b)
    local prom_net = tonumber(r[1].value[2])
    r = promql(pport, ('rate(perflib_processor_information_percent_idle_time_seconds_total{instance_name="0,0"}[%s])')
      :format(span), b)
    local prom_idle = 100 * tonumber(r[1].value[2])
    -- the sampling tolerance: perflib's reads are within 0.125 s of the scrapes' times
    assert.is_true(net > 3e6, "the spec's traffic: " .. net)
    assert.is_true(math.abs(prom_net - net) <= 0.15 * net, ("rate %.0f B/s, perflib %.0f B/s"):format(prom_net, net))
    assert.is_true(math.abs(prom_idle - idle) <= 10, ("rate %.1f %%, perflib %.1f %%"):format(prom_idle, idle))
  end)
end)
