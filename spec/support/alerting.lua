-- Helpers of the alert specs (99-alerts_*): real receivers on loopback
-- (spec/support/http_sink.py, a real prometheus-alertmanager), reading them
-- back with core.http and lua-cjson.
local perflib = require "perflib"
local core = require "perflib.core"
local cjson = require "cjson"

local A = {}

local function slurp(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read "a"
  f:close()
  return s
end
A.slurp = slurp

function A.tmpdir()
  local p = os.tmpname()
  os.remove(p)
  assert(os.execute("mkdir -m 700 " .. p))
  return p
end

--- Calls fn every 50 ms until it returns a true value or secs pass; returns that value.
function A.wait_until(fn, secs)
  local deadline = perflib.clock() + (secs or 10)
  repeat
    local v = fn()
    if v then return v end
    perflib.sleep(0.05)
  until perflib.clock() > deadline
  return fn()
end

--- A free loopback TCP port (bound and released by python3).
function A.free_port(dir)
  local out = dir .. "/port"
  os.remove(out)                             -- spawn appends
  local pid = assert(core.spawn({ "python3", "-c",
    "import socket;s=socket.socket();s.bind(('127.0.0.1',0));print(s.getsockname()[1])" }, nil,
    { stdout = out }))
  core.wait(pid)
  return assert(tonumber(slurp(out)))
end

--- Starts spec/support/http_sink.py in mode ("ok", "503", "huge", "silent"):
-- { pid, port, url, out } (out: its JSON lines).
function A.sink(dir, mode, idle)
  local tag = mode .. "-" .. tostring(perflib.clock()):gsub("%.", "")
  local pf, out = dir .. "/sink-" .. tag .. ".port", dir .. "/sink-" .. tag .. ".jsonl"
  local pid = assert(core.spawn { "python3", "spec/support/http_sink.py", pf, out, mode, tostring(idle or 30) })
  local port = A.wait_until(function() return tonumber(slurp(pf) or "") end, 10)
  assert(port, "http_sink.py did not start")
  return { pid = pid, port = port, url = ("http://127.0.0.1:%d"):format(port), out = out }
end

--- The requests a sink received: list of { path, headers, body, json }.
function A.received(sink)
  local list = {}
  for line in (slurp(sink.out) or ""):gmatch "[^\n]+" do
    local r = cjson.decode(line)
    r.json = cjson.decode(r.body)
    list[#list + 1] = r
  end
  return list
end

function A.stop(pid)
  core.kill(pid, "TERM")
  local deadline = perflib.clock() + 5
  while core.wait(pid, "nohang") == false do
    if perflib.clock() > deadline then core.kill(pid, "KILL") end
    perflib.sleep(0.02)
  end
end

A.AM = "/usr/bin/prometheus-alertmanager"
function A.have_am()
  local f = io.open(A.AM, "rb")
  if f then f:close() end
  return f ~= nil
end

--- Starts a real Alertmanager on port (its webhook receiver: receiver_url) with its own
-- storage in dir; waits until it answers.  Returns { pid, url }.
function A.alertmanager(dir, port, receiver_url)
  local conf = dir .. "/am.yml"
  local f = assert(io.open(conf, "w"))
  f:write(([[
route:
  receiver: sink
  group_by: [alertname]
  group_wait: 0s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: sink
    webhook_configs:
      - url: %s/am
        send_resolved: true
]]):format(receiver_url))
  f:close()
  local pid = assert(core.spawn({ A.AM, "--config.file=" .. conf, "--storage.path=" .. dir .. "/am-data",
    "--web.listen-address=127.0.0.1:" .. port, "--cluster.listen-address=" }, nil,
    { stdout = dir .. "/am.log", stderr = dir .. "/am.log" }))
  local url = "http://127.0.0.1:" .. port
  local ready = A.wait_until(function() return A.get(url .. "/-/ready", 1).status == 200 end, 20)
  assert(ready, "alertmanager did not come up: " .. (slurp(dir .. "/am.log") or ""))
  return { pid = pid, url = url }
end

--- A GET with core.http, waited for: { status, body, error }.
function A.get(url, timeout)
  local h <close> = core.http()
  assert(h:get(url, { timeout = timeout or 5, max_body = 1048576 }))
  local r = h:poll(timeout or 5)
  return r[1] or { status = 0, error = "no answer" }
end

--- Alertmanager's active alerts named alertname (GET /api/v2/alerts), decoded.
function A.am_alerts(am, alertname)
  local r = A.get(am.url .. "/api/v2/alerts?filter=" .. ("alertname=%q"):format(alertname):gsub("[^%w]",
    function(c) return ("%%%02X"):format(c:byte()) end))
  assert(r.status == 200, r.error or r.body)
  return cjson.decode(r.body)
end

--- Ticks notifier n on a sample clock that follows the real one (t0 + elapsed),
-- until fn() is true or secs pass.
function A.tick_until(n, t0, fn, secs)
  local c0 = perflib.clock()
  return A.wait_until(function()
    local now = perflib.clock() - c0
    n:tick(t0 + now, os.time())
    return fn()
  end, secs)
end

A.json = cjson
return A
