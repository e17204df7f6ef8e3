# An HTTP receiver for the alert specs (a real server, on loopback): writes
# the port it listens on to argv[1], appends each POST as one JSON line
# {"path":..., "headers":{...}, "body":...} to argv[2], answers as argv[3]
# says, and quits after argv[4] seconds without a request.
#   ok       204 No Content
#   503      that status, with a short body
#   huge     200 with a 64 MiB body (a receiver that never stops talking)
#   silent   accepts connections and never answers
import json
import socket
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port_file, out, mode, idle = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])


def publish(port):
    with open(port_file + ".tmp", "w") as f:
        f.write(str(port))
    import os
    os.rename(port_file + ".tmp", port_file)


if mode == "silent":
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    publish(s.getsockname()[1])
    time.sleep(idle)
    sys.exit(0)


class Sink(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n).decode("utf-8", "replace")
        rec = {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
        with open(out, "a") as f:
            f.write(json.dumps(rec) + "\n")
        if mode == "ok":
            self.send_response(204)
            self.end_headers()
        elif mode == "huge":
            self.send_response(200)
            self.send_header("Content-Length", str(64 << 20))
            self.end_headers()
            chunk = b"x" * 65536
            try:
                for _ in range(1024):
                    self.wfile.write(chunk)
            except OSError:
                pass
        else:
            msg = b"receiver down for maintenance\n"
            self.send_response(int(mode))
            self.send_header("Content-Length", str(len(msg)))
            self.end_headers()
            self.wfile.write(msg)


srv = ThreadingHTTPServer(("127.0.0.1", 0), Sink)
srv.timeout = idle
publish(srv.server_address[1])
while True:
    before = time.monotonic()
    srv.handle_request()
    if time.monotonic() - before >= idle:
        break
