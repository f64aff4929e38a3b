#!/usr/bin/env python3
"""test/daemon/ecd_raw.py HOST PORT: send stdin, raw, to a lincoll-ecd
daemon, close the sending side, print all it answers (the daemon test
scripts' hostile client)."""
import socket
import sys

s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=60)
s.sendall(sys.stdin.buffer.read())
s.shutdown(socket.SHUT_WR)
out = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    out += b
sys.stdout.write(out.decode(errors="replace"))
