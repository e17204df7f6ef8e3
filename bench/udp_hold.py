"""make bench: runs a command with BENCH_UDP_SOCKETS (default 1000) extra UDP
sockets open on 127.0.0.1, each with one datagram queued, so that the costly
UDP Queues set (a walk of /proc/net/udp) is measured against its floor at a
realistic table size.  Usage: python3 bench/udp_hold.py CMD ARGS..."""
import os
import socket
import subprocess
import sys

n = int(os.environ.get("BENCH_UDP_SOCKETS", "1000"))
socks = []
for i in range(n):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    socks.append(s)
tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for s in socks:
    tx.sendto(b"x", s.getsockname())
print("# udp_hold: %d UDP sockets open" % n, flush=True)
sys.exit(subprocess.call(sys.argv[1:]))
