-- perflua serve (issue 13, item 2): a real server on a free loopback port, driven with curl and
-- raw sockets: /metrics passes promtool check metrics, content negotiation gives OpenMetrics,
-- the token is required, bad requests get clean answers (401, 404, 405, 413, 400 for a path
-- that names nothing and for malformed HTTP), a slow client is cut off while others are
-- served, the query endpoint's block reads back with the values of this machine, SIGHUP
-- reloads the configuration and SIGTERM ends with status 0.
local files = dofile "spec/support/files.lua"
local cjson = require "cjson"
local perflib = require "perflib"

local serve = dofile "spec/support/serve.lua"
local PERFLUA = serve.PERFLUA
local run = files.run

local sh = files.sh

local start, stop = serve.start, serve.stop

-- curl: status, content type, body (in a file of dir).
local function curl(dir, port, path, opts)
  local out = dir .. "/body"
  local line = sh(("curl -s -m 10 %s -o %s -w '%%{http_code} %%{content_type}' 'http://127.0.0.1:%d%s'")
    :format(opts or "", out, port, path))
  local code, ctype = line:match "^(%d+) ?(.*)$"
  return tonumber(code), ctype, files.read(out)
end

local AUTH = "-H 'Authorization: Bearer s3cret-token'"

describe("perflua serve", function()
  local dir, remove, pid, port

  setup(function()
    dir, remove = files.tempdir()
    files.write(dir .. "/token", "s3cret-token\n")
    pid, port = start(dir, "--listen 127.0.0.1:0 --token-file token --timeout 1 --max-body 4096")
  end)

  teardown(function()
    if pid then stop(dir, pid) end
    remove()
  end)

  it("answers Prometheus' text format that promtool check metrics passes", function()
    local code, ctype, body = curl(dir, port, "/metrics", AUTH)
    assert.equals(200, code)
    assert.equals("text/plain; version=0.0.4; charset=utf-8", ctype)
    assert.matches("\n# TYPE perflib_memory_available_bytes gauge\nperflib_memory_available_bytes %d+\n", body)
    assert.matches('perflib_counterset_up{counterset="Memory"} 1\n', body, 1, true)
    assert.matches("\nprocess_cpu_seconds_total [%d.]+\n", body)
    assert.is_nil(body:find "# EOF", 1, true)
    local rc = os.execute(("env -u LD_PRELOAD promtool check metrics < %s/body > %s/lint 2>&1"):format(dir, dir))
    assert.is_true(rc, files.read(dir .. "/lint"))
  end)

  it("answers OpenMetrics when the Accept header asks for it", function()
    local code, ctype, body = curl(dir, port, "/metrics",
      AUTH .. " -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;q=0.5'")
    assert.equals(200, code)
    assert.equals("application/openmetrics-text; version=1.0.0; charset=utf-8", ctype)
    assert.equals("# EOF\n", body:sub(-6))
    -- a counter family is named without _total, its samples with it
    assert.matches("\n# TYPE process_cpu_seconds counter\nprocess_cpu_seconds_total ", body)
  end)

  it("requires the token on every path, compares it whole", function()
    for _, path in ipairs { "/metrics", "/healthz", "/api/v1/countersets" } do
      assert.equals(401, (curl(dir, port, path)))
      assert.equals(401, (curl(dir, port, path, "-H 'Authorization: Bearer s3cret-toke'")))
      assert.equals(401, (curl(dir, port, path, "-H 'Authorization: Bearer s3cret-token2'")))
    end
    assert.equals(401, (curl(dir, port, "/api/v1/query", "--data-binary x")))
  end)

  it("answers probes, unknown paths and methods cleanly", function()
    assert.same({ 200, "ok\n" }, { (curl(dir, port, "/healthz", AUTH)), select(3, curl(dir, port, "/healthz", AUTH)) })
    assert.equals(200, (curl(dir, port, "/readyz", AUTH)))     -- a scrape has succeeded
    assert.equals(404, (curl(dir, port, "/nope", AUTH)))
    assert.equals(405, (curl(dir, port, "/metrics", AUTH .. " -X DELETE")))
    assert.equals(405, (curl(dir, port, "/api/v1/query", AUTH)))   -- GET there
    assert.equals(404, (curl(dir, port, "/metrics", AUTH .. " --data-binary x")))   -- POST there
  end)

  it("describes its countersets in JSON with units", function()
    local code, ctype, body = curl(dir, port, "/api/v1/countersets", AUTH)
    assert.equals(200, code)
    assert.equals("application/json", ctype)
    local meta = cjson.decode(body)
    local mem
    for _, cs in ipairs(meta.countersets) do
      if cs.name == "Memory" then mem = cs end
    end
    assert.is_table(mem)
    assert.equals("single", mem.instance_type)
    local avail
    for _, c in ipairs(mem.counters) do
      if c.name == "Available Bytes" then avail = c end
    end
    assert.same({ "bytes", "gauge", perflib.types.PERF_COUNTER_LARGE_RAWCOUNT },
      { avail.unit, avail.semantics, avail.type })
  end)

  it("returns a data block for posted paths that reads back as this machine's sample", function()
    files.write(dir .. "/paths", "\\Memory\\Commit Limit\n\\Processor Information(*)\\% Processor Time\n")
    local code, ctype, body = curl(dir, port, "/api/v1/query", AUTH .. " --data-binary @" .. dir .. "/paths")
    assert.equals(200, code)
    assert.equals("application/octet-stream", ctype)
    assert.is_true(perflib.check_block(body))
    local s = assert(perflib.sample_from_block(body))
    local r = s:results()
    assert.equals(2, #r)
    -- the commit limit is a kernel setting: the remote value equals a local read
    local q = perflib.query()
    q:add "\\Memory\\Commit Limit"
    local here = q:collect():results()[1].instances[1].raw
    assert.equals(here, r[1].instances[1].raw)
    assert.is_true(#r[2].instances >= 2)                      -- each CPU and _Total
    code = curl(dir, port, "/api/v1/query?format=v1", AUTH .. " --data-binary @" .. dir .. "/paths")
    assert.equals(200, code)
    assert.is_true(perflib.check_block(files.read(dir .. "/body")))
  end)

  it("refuses a path that names nothing, a body past max_body, an unknown format", function()
    files.write(dir .. "/bad", "\\Memory\\Available Bytes\n\\No Such Set\\X\n")
    local code, _, body = curl(dir, port, "/api/v1/query", AUTH .. " --data-binary @" .. dir .. "/bad")
    assert.equals(400, code)
    assert.matches("line 2: '\\No Such Set\\X' names no counter", body, 1, true)
    -- the status is the Win32 code PerfAddCounters would write (src/capi/pl_codes.h)
    assert.matches("names no counter here (status 4200)", body, 1, true)
    files.write(dir .. "/bad", "\\Memory\\Available Bytes\n\\Memory\\Available Bytes\nnot a path\n")
    code, _, body = curl(dir, port, "/api/v1/query", AUTH .. " --data-binary @" .. dir .. "/bad")
    assert.equals(400, code)                                   -- a duplicate line is fine, a bad path is not
    assert.matches("line 3: 'not a path' names no counter here (status 87)", body, 1, true)
    files.write(dir .. "/big", ("\\Memory\\Available Bytes\n"):rep(400))   -- 9.6 KB > 4096
    assert.equals(413, (curl(dir, port, "/api/v1/query", AUTH .. " --data-binary @" .. dir .. "/big")))
    assert.equals(400, (curl(dir, port, "/api/v1/query?format=v9", AUTH .. " --data-binary x")))
    assert.equals(400, (curl(dir, port, "/api/v1/query", AUTH .. " --data-binary ''")))
  end)

  it("answers malformed HTTP with 400 and cuts off a client that stalls, serving others meanwhile", function()
    local function raw(req)
      return sh(("printf '%s' | timeout 5 python3 -c \"import socket,sys; "
        .. "s=socket.create_connection(('127.0.0.1',%d)); s.sendall(sys.stdin.buffer.read()); "
        .. "print(s.recv(100).decode(errors='replace').split(chr(13))[0])\""):format(req, port))
    end
    assert.matches("^HTTP/1%.1 400", raw "GET /metrics HTTP/1.1\\r\\nHost: x\\r\\nNo colon here\\r\\n\\r\\n")
    assert.matches("^HTTP/1%.1 505", raw "GET /metrics HTTP/9.9\\r\\nHost: x\\r\\n\\r\\n")
    assert.equals("\n", raw "GARBAGE\\r\\n\\r\\n")                  -- no request line: closed unanswered
    -- a slowloris: half a request line, then nothing; the server closes it after --timeout 1
    local slow = sh(("timeout 8 python3 -c \"import socket,time; s=socket.create_connection(('127.0.0.1',%d)); "
      .. "s.sendall(b'GET /metr'); t=time.time(); d=s.recv(100); print('closed', round(time.time()-t))\"")
      :format(port))
    assert.matches("^closed [12]", slow)
    assert.equals(200, (curl(dir, port, "/healthz", AUTH)))
  end)

  it("serves others while a scraper never reads its answer, and lets it go after the timeout", function()
    -- ten scrapes asked on one connection with a tiny receive buffer, nothing read for 3 s
    local code = ([[
import socket, time, subprocess
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(('127.0.0.1', %d))
s.sendall(b'GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret-token\r\n\r\n' * 10)
t = time.time()
others = subprocess.run(['curl', '-s', '-m', '5', '-o', '/dev/null', '-w', '%%{http_code}',
  '-H', 'Authorization: Bearer s3cret-token', 'http://127.0.0.1:%d/metrics'], capture_output=True).stdout.decode()
waited = time.time() - t
time.sleep(3)
state = 'closed'
s.settimeout(5)
try:
    while s.recv(1 << 16): pass
except socket.timeout:
    state = 'open'
except OSError:
    pass
print(others, round(waited, 1) < 2, state)
]]):format(port, port)
    files.write(dir .. "/never.py", code)
    local out = sh("timeout 20 python3 " .. dir .. "/never.py")
    assert.equals("200 True closed\n", out)
    assert.equals(200, (curl(dir, port, "/healthz", AUTH)))
  end)

  it("reloads its configuration on SIGHUP and ends with status 0 on SIGTERM", function()
    local d2, rm2 = files.tempdir()
    files.write(d2 .. "/serve.lua", 'return { listen = "127.0.0.1:0", paths = { [[\\Memory\\Available Bytes]] } }')
    local p2, port2 = start(d2, "--config serve.lua")
    local _, _, body = curl(d2, port2, "/metrics")
    assert.matches("perflib_memory_available_bytes", body, 1, true)
    assert.is_nil(body:find("perflib_system_processes", 1, true))
    files.write(d2 .. "/serve.lua", 'return { listen = "127.0.0.1:0", paths = { [[\\System\\Processes]] } }')
    files.write(d2 .. "/out.txt", "")
    os.execute("kill -HUP " .. p2)
    local port3
    for _ = 1, 200 do
      port3 = tonumber(files.read(d2 .. "/out.txt"):match "listening on [^:]+:(%d+)")
      if port3 then break end
      os.execute "sleep 0.02"
    end
    assert.is_number(port3)
    _, _, body = curl(d2, port3, "/metrics")
    assert.matches("perflib_system_processes", body, 1, true)
    assert.is_nil(body:find("perflib_memory_available_bytes", 1, true))
    assert.equals(0, stop(d2, p2))
    rm2()
  end)

  it("refuses a non-loopback address without a token or TLS, and bad flags", function()
    local out, rc = run("env -u LD_PRELOAD " .. PERFLUA .. " serve --listen 0.0.0.0:0")
    assert.equals(1, rc)
    assert.matches("non%-loopback listen address needs a token or TLS", out)
    out, rc = run(PERFLUA .. " serve --max-body lots")
    assert.equals(2, rc)
    assert.matches("--max-body needs a whole number", out, 1, true)
    out, rc = run(PERFLUA .. " serve --help")
    assert.equals(0, rc)
    assert.matches("usage: perflua serve", out, 1, true)
  end)

  it("serves HTTPS with a certificate", function()
    local d3, rm3 = files.tempdir()
    assert.is_true(os.execute(("cd %s && env -u LD_PRELOAD openssl req -x509 -newkey rsa:2048 -nodes "
      .. "-keyout key.pem -out cert.pem "
      .. "-subj /CN=localhost -addext subjectAltName=DNS:localhost -days 1 >/dev/null 2>&1"):format(d3)))
    local p3, port3 = start(d3, "--listen 127.0.0.1:0 --tls-cert cert.pem --tls-key key.pem")
    local line = sh(("curl -s -m 10 --cacert %s/cert.pem --resolve localhost:%d:127.0.0.1 "
      .. "-w ' %%{http_code}' https://localhost:%d/healthz"):format(d3, port3, port3))
    assert.equals("ok\n 200", line)
    assert.equals(0, stop(d3, p3))
    rm3()
  end)
end)
