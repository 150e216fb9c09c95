#!/usr/bin/env python3
"""Opens many TCP connections that say nothing, for test_huddle_foreign_flood.py.

  idle_flood.py HOST SECONDS PORT:COUNT [PORT:COUNT ...]

For each PORT it opens COUNT connections to HOST, one after another (a refused or reset one is counted and the
next tried), then says for each port how many the other side has not closed after 2 s ("held PORT N of COUNT"),
keeps them SECONDS and exits. It raises its own descriptor limit to fit them.
"""

import resource
import select
import socket
import sys
import time

host, seconds = sys.argv[1], float(sys.argv[2])
targets = [tuple(int(x) for x in arg.split(":")) for arg in sys.argv[3:]]
need = sum(count for _, count in targets) + 64
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if soft < need:
    resource.setrlimit(resource.RLIMIT_NOFILE, (need, max(hard, need)))

opened: dict[int, list[socket.socket]] = {}
for port, count in targets:
    sockets = []
    for _ in range(count):
        s = socket.socket()
        s.settimeout(5)
        try:
            s.connect((host, port))
            sockets.append(s)
        except OSError:
            s.close()
    opened[port] = sockets
    print("opened", port, len(sockets), flush=True)

time.sleep(2)
for port, sockets in opened.items():
    held = 0
    for s in sockets:
        # Closed by the other side: readable with nothing to read (or an error).
        poller = select.poll()
        poller.register(s, select.POLLIN)
        if not poller.poll(0):
            held += 1
            continue
        try:
            s.setblocking(False)
            if s.recv(1, socket.MSG_PEEK):
                held += 1
        except BlockingIOError:
            held += 1
        except OSError:
            pass
    print("held", port, held, "of", len(sockets), flush=True)
deadline = time.monotonic() + seconds
while time.monotonic() < deadline:
    time.sleep(0.2)
print("done", flush=True)
