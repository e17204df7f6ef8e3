# A syslog daemon stand-in for the specs: binds a datagram socket at argv[1],
# appends every record received to argv[2] (one per line), quits after
# argv[3] seconds without a record.
import socket
import sys

path, out, idle = sys.argv[1], sys.argv[2], float(sys.argv[3])
# the output file exists before the socket: the specs wait for the socket,
# then open the file (made after the bind, a busy machine showed it missing)
with open(out, "ab") as f:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    s.settimeout(idle)
    while True:
        try:
            data = s.recv(65536)
        except socket.timeout:
            break
        f.write(data + b"\n")
        f.flush()
