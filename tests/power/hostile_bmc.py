#!/usr/bin/env python3
"""hostile_bmc.py -- a Redfish BMC that names another origin, and the thief
listening there, for tests/integration/test_power_redfish.sh.

Two HTTPS servers in one process, on 127.0.0.1 with the same certificate:
the BMC (--port) and the thief (--thief-port). Both serve the mockup tree
(--mockup, DMTF's layout: PATH/index.json) and accept any credentials, so a
client that follows the BMC's pointers gets answers that look right and goes
on sending what it has. Every request either server receives is logged as
one JSON line to --log: which server, the mode, method, path, all headers
and the body; the test reads the thief's lines for credentials.

What the BMC names is set per request by the mode in --mode-file (the test
writes it before each run, so one server process serves every case):
  honest     everything on the BMC: sessions with a relative Location, and
             /redfish/v1/Chassis redirected (308) to itself with a slash;
  sessions   the service root's Links.Sessions is the thief's URL: the
             client's login POST (UserName, Password) would go there;
  odata      no sessions; the root's Chassis @odata.id is the thief's URL,
             so HTTP basic credentials would go there;
  location   a session on the BMC, whose Location header is on the thief:
             the DELETE at the end, with X-Auth-Token, would go there;
  redirect   a session on the BMC, and /redfish/v1/Chassis answered with a
             307 to the thief: a client following it takes the token along.
"""
import argparse
import json
import os
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--thief-port", type=int, required=True)
    ap.add_argument("--mockup", required=True)
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--mode-file", required=True)
    a = ap.parse_args()
    thief = "https://127.0.0.1:%d" % a.thief_port
    mockup = os.path.realpath(a.mockup)

    def mode():
        try:
            with open(a.mode_file) as f:
                return f.read().strip()
        except OSError:
            return "honest"

    def resource(path):
        """The mockup's JSON for a path, confined to the mockup tree."""
        rel = path.split("?")[0].split("#")[0].strip("/")
        p = os.path.realpath(os.path.join(mockup, rel.removeprefix("redfish/v1").strip("/"), "index.json"))
        if not p.startswith(mockup + os.sep) or not os.path.isfile(p):
            return None
        with open(p) as f:
            return json.load(f)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_name_ = "bmc"

        def log_message(self, *args):
            pass

        def answer(self, code, obj=None, headers=()):
            body = json.dumps(obj).encode() if obj is not None else b""
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for k, v in headers:
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def handle_any(self):
            n = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(n).decode("utf-8", "replace") if n else ""
            m = mode()
            with LOCK, open(a.log, "a") as f:
                f.write(json.dumps({"server": self.server_name_, "mode": m, "method": self.command,
                                    "path": self.path, "headers": dict(self.headers.items()),
                                    "body": body}) + "\n")
            path = self.path.split("?")[0]
            bmc = self.server_name_ == "bmc"
            if self.command == "POST" and path.rstrip("/").endswith("/Sessions"):
                loc = "/redfish/v1/SessionService/Sessions/1"
                if bmc and m == "location":
                    loc = thief + loc
                return self.answer(201, {"Id": "1"}, [("X-Auth-Token", "tok-" + self.server_name_),
                                                      ("Location", loc)])
            if self.command == "DELETE":
                return self.answer(204)
            if self.command != "GET":
                return self.answer(405, {"error": "method"})
            if bmc and path == "/redfish/v1/Chassis" and m in ("honest", "redirect"):
                to = "/redfish/v1/Chassis/" if m == "honest" else thief + "/redfish/v1/Chassis"
                return self.answer(308 if m == "honest" else 307, None, [("Location", to)])
            j = resource(path)
            if j is None:
                return self.answer(404, {"error": "not found"})
            if bmc and path.rstrip("/") == "/redfish/v1":
                if m == "sessions":
                    j["Links"]["Sessions"]["@odata.id"] = thief + "/redfish/v1/SessionService/Sessions"
                elif m == "odata":
                    del j["Links"]
                    j["Chassis"]["@odata.id"] = thief + "/redfish/v1/Chassis"
            return self.answer(200, j)

        do_GET = do_POST = do_DELETE = do_PATCH = handle_any

    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(a.cert, a.key)
    servers = []
    for name, port in (("bmc", a.port), ("thief", a.thief_port)):
        h = type("H_" + name, (Handler,), {"server_name_": name})
        s = ThreadingHTTPServer(("127.0.0.1", port), h)
        s.daemon_threads = True
        s.socket = ctx.wrap_socket(s.socket, server_side=True)
        servers.append(s)
    threading.Thread(target=servers[1].serve_forever, daemon=True).start()
    servers[0].serve_forever()


if __name__ == "__main__":
    main()
