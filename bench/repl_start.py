#!/usr/bin/env python3
"""make bench: how long perflua's REPL takes from exec to its first prompt on
a terminal (a pty), against stock lua5.4's interactive prompt in the same run.
Target: under 20 ms (issue 14).  Median of 21 starts each; HOME is a fresh
directory, so no history file is read."""
import os, pty, select, statistics, sys, tempfile, time

def start(argv, home):
    t0 = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["HOME"] = home
        os.execvp(argv[0], argv)
    buf = b""
    while b"> " not in buf.split(b"\n")[-1]:
        r, _, _ = select.select([fd], [], [], 5)
        if not r:
            sys.exit("no prompt from " + argv[0])
        buf += os.read(fd, 4096)
    t1 = time.perf_counter()
    os.write(fd, b"\x04")
    os.waitpid(pid, 0)
    os.close(fd)
    return (t1 - t0) * 1000

with tempfile.TemporaryDirectory() as home:
    p = statistics.median(start(["build/perflua"], home) for _ in range(21))
    l = statistics.median(start(["lua5.4", "-i"], home) for _ in range(21))
print("REPL start to first prompt (median of 21): perflua %.1f ms, lua5.4 -i %.1f ms, ratio %.2fx;"
      " target < 20 ms: %s" % (p, l, p / l, "ok" if p < 20 else "MISS"))
