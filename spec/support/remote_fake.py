#!/usr/bin/env python3
"""A server that is not perflib's, for spec/99-remote_spec.lua.

remote_fake.py MODE METADATA_FILE PORT_FILE: listens on a free loopback port
(written to PORT_FILE) and answers GET /api/v1/countersets with METADATA_FILE's
bytes (mode "badjson": with text that is not JSON), and POST /api/v1/query
with: "garbage" - 200 and bytes that are no data block; "hang" - nothing,
ever (the client's timeout must end it); "huge" - 200 and a body that never
ends (the client's bound must stop it).
"""
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE, META, PORT_FILE = sys.argv[1], sys.argv[2], sys.argv[3]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, body, ctype="application/octet-stream"):
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if MODE == "badjson":
            self.send(b"{\"countersets\": [{\"name\": 42}", "application/json")
        else:
            with open(META, "rb") as f:
                self.send(f.read(), "application/json")

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if MODE == "hang":
            time.sleep(3600)
        elif MODE == "huge":
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.end_headers()
            chunk = b"\0" * 65536
            try:
                while True:
                    self.wfile.write(chunk)
            except OSError:
                return
        else:
            self.send(b"PERF" + b"\xff" * 60)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(PORT_FILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os
os.rename(PORT_FILE + ".tmp", PORT_FILE)
server.serve_forever()
