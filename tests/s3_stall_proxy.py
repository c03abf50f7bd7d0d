#!/usr/bin/env python3
"""tests/s3_stall_proxy.py -- an HTTP/1.1 proxy in front of the real MinIO
that holds back the end of one answer's body, for test_s3_wakeups.

    s3_stall_proxy.py PORT UPSTREAM_PORT MATCH WITHHOLD MODE READY

Every request and answer passes through unchanged (the Host header too, so
SigV4 signatures still hold), except the first answer to a request whose
line contains MATCH: its headers and all but the last WITHHOLD bytes of its
body are sent, then
  - MODE "stall:S": nothing for S seconds, then the rest;
  - MODE "close": the connection is closed (the body stays short).
READY is a file written once the port listens. One thread per connection,
one request at a time on it (the harness does not pipeline); the answer's
length comes from its Content-Length (a HEAD's has no body)."""
import socket
import sys
import threading
import time

port, upstream, match, withhold, mode, ready = (int(sys.argv[1]), int(sys.argv[2]),
                                                sys.argv[3].encode(), int(sys.argv[4]),
                                                sys.argv[5], sys.argv[6])
fired = threading.Lock()  # taken once: the first matching answer is the one held back
MAX_HEAD = 64 << 10


def read_head(sock, buf):
    """(head, rest) once buf plus what sock sends holds a blank line; None at EOF."""
    while b"\r\n\r\n" not in buf:
        if len(buf) > MAX_HEAD:
            return None
        got = sock.recv(65536)
        if not got:
            return None
        buf += got
    i = buf.index(b"\r\n\r\n") + 4
    return buf[:i], buf[i:]


def content_length(head):
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value.strip())
    return 0


def relay(src, dst, n, rest):
    """Send n body bytes from src to dst, those in rest (already read) first;
    what rest held past them is returned."""
    if len(rest) >= n:
        dst.sendall(rest[:n])
        return rest[n:]
    dst.sendall(rest)
    n -= len(rest)
    while n > 0:
        got = src.recv(min(1 << 20, n))
        if not got:
            raise EOFError
        dst.sendall(got)
        n -= len(got)
    return b""


def serve(client):
    up = socket.create_connection(("127.0.0.1", upstream))
    for sock in (client, up):  # no Nagle: a head sent apart from its body is not held back 40 ms
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    cbuf = ubuf = b""
    try:
        while True:
            got = read_head(client, cbuf)
            if got is None:
                return
            head, cbuf = got
            up.sendall(head)
            cbuf = relay(client, up, content_length(head), cbuf)
            got = read_head(up, ubuf)
            if got is None:
                return
            rhead, ubuf = got
            n = 0 if head.startswith(b"HEAD ") else content_length(rhead)
            client.sendall(rhead)
            line = head.split(b"\r\n", 1)[0]
            if match in line and n > withhold and fired.acquire(blocking=False):
                ubuf = relay(up, client, n - withhold, ubuf)
                if mode == "close":
                    sys.stderr.write("s3_stall_proxy: closed with %d bytes held back\n" % withhold)
                    return
                time.sleep(float(mode.split(":", 1)[1]))
                ubuf = relay(up, client, withhold, ubuf)
                sys.stderr.write("s3_stall_proxy: held back %d bytes for %s s\n" % (withhold, mode))
            else:
                ubuf = relay(up, client, n, ubuf)
    except (EOFError, OSError):
        return
    finally:
        client.close()
        up.close()


listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", port))
listener.listen(64)
with open(ready, "w") as f:
    f.write("ready\n")
while True:
    conn, _ = listener.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
