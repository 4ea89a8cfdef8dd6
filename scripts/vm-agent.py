#!/usr/bin/python3
"""Command agent of the uring-spawn persistent VM, and its client.

  vm-agent.py serve --port P --token-file F       (in the guest, by vm-init.sh)
  vm-agent.py exec --port P --token-file F --cwd DIR [--timeout S]
              [--env VAR=VALUE]... -- CMD ARGS...  (on the host, by vm.sh exec)
  vm-agent.py ping|poweroff --port P --token-file F

The host reaches the guest's port 7000 through QEMU's user-mode network
(127.0.0.1:P forwarded; the guest has no other network).  A connection
carries one request:

  client -> agent  one JSON line: {"token", "op", "argv", "cwd", "env"}
                   then frames of stdin (type 0; an empty one is EOF)
  agent -> client  frames: 5 accepted (first, before anything runs),
                   1 stdout data, 2 stderr data, 3 exit status
                   (decimal text), 4 an error message from the agent
A client whose connection breaks before "accepted" may safely retry:
nothing ran.

A frame is a type byte, a 4-byte big-endian length, and the data.  The
agent forks a handler per connection, so requests run concurrently; the
command runs in its own session and is killed (SIGKILL to its process
group) if the client goes away.  An exit status is the command's, or
128+N when signal N killed it, as a shell reports it; 127 when CMD is
not found, 126 when it cannot be run.
"""

import argparse
import hmac
import json
import os
import selectors
import signal
import socket
import socketserver
import struct
import subprocess
import sys
import threading
import time

STDIN, STDOUT, STDERR, EXIT, ERROR, ACCEPTED = 0, 1, 2, 3, 4, 5
HDR = struct.Struct(">BI")


def send_frame(sock, kind, data=b""):
    sock.sendall(HDR.pack(kind, len(data)) + data)


def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def recv_frame(sock):
    hdr = recv_exact(sock, HDR.size)
    if hdr is None:
        return None, None
    kind, length = HDR.unpack(hdr)
    data = recv_exact(sock, length) if length else b""
    if data is None:
        return None, None
    return kind, data


def read_token(path):
    with open(path) as f:
        return f.read().strip()


# ---------------------------------------------------------------- agent


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        sock = self.request
        sock.settimeout(30)
        line = b""
        while not line.endswith(b"\n"):
            c = sock.recv(1)
            if not c:
                return
            line += c
            if len(line) > 1 << 20:
                return
        req = json.loads(line)
        if not hmac.compare_digest(str(req.get("token", "")), self.server.token):
            send_frame(sock, ERROR, b"vm-agent: bad token\n")
            send_frame(sock, EXIT, b"125")
            return
        sock.settimeout(None)
        send_frame(sock, ACCEPTED)
        op = req.get("op")
        if op == "ping":
            send_frame(sock, EXIT, b"0")
        elif op == "poweroff":
            send_frame(sock, EXIT, b"0")
            os.kill(os.getppid(), signal.SIGTERM)
        elif op == "exec":
            self.run(sock, req)
        else:
            send_frame(sock, ERROR, b"vm-agent: unknown op\n")
            send_frame(sock, EXIT, b"125")

    def run(self, sock, req):
        argv, cwd, env = req["argv"], req.get("cwd") or "/", req.get("env") or {}
        try:
            proc = subprocess.Popen(
                argv, cwd=cwd, env=env, stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True, close_fds=True)
        except FileNotFoundError as e:
            what = argv[0] if e.filename in (None, argv[0]) else e.filename
            send_frame(sock, STDERR, f"vm exec: {what}: {e.strerror}\n".encode())
            send_frame(sock, EXIT, b"127")
            return
        except OSError as e:
            send_frame(sock, STDERR, f"vm exec: {argv[0]}: {e.strerror}\n".encode())
            send_frame(sock, EXIT, b"126")
            return

        def kill_group():
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass

        # stdin: written by a thread so that a command that does not read
        # cannot stall its output.
        stdin_q = []
        stdin_cv = threading.Condition()

        def stdin_writer():
            while True:
                with stdin_cv:
                    while not stdin_q:
                        stdin_cv.wait()
                    data = stdin_q.pop(0)
                if data is None:
                    break
                try:
                    proc.stdin.write(data)
                    proc.stdin.flush()
                except OSError:
                    break
            try:
                proc.stdin.close()
            except OSError:
                pass

        threading.Thread(target=stdin_writer, daemon=True).start()

        sel = selectors.DefaultSelector()
        sel.register(sock, selectors.EVENT_READ, "sock")
        sel.register(proc.stdout, selectors.EVENT_READ, STDOUT)
        sel.register(proc.stderr, selectors.EVENT_READ, STDERR)
        open_pipes = 2
        inbuf = b""
        stdin_done = False
        exited_at = None
        while open_pipes:
            if exited_at is None and proc.poll() is not None:
                exited_at = time.monotonic()
            # A command that exited but left a background process holding
            # its output open: give that 2 s, then report the exit.
            if exited_at is not None and time.monotonic() - exited_at > 2:
                break
            for key, _ in sel.select(timeout=0.2):
                if key.data == "sock":
                    chunk = sock.recv(65536)
                    if not chunk:
                        kill_group()  # the client went away
                        return
                    inbuf += chunk
                    while len(inbuf) >= HDR.size:
                        kind, length = HDR.unpack(inbuf[:HDR.size])
                        if len(inbuf) < HDR.size + length:
                            break
                        data = inbuf[HDR.size:HDR.size + length]
                        inbuf = inbuf[HDR.size + length:]
                        if kind == STDIN and not stdin_done:
                            with stdin_cv:
                                stdin_q.append(data if data else None)
                                stdin_cv.notify()
                            stdin_done = not data
                else:
                    data = os.read(key.fileobj.fileno(), 65536)
                    if data:
                        send_frame(sock, key.data, data)
                    else:
                        sel.unregister(key.fileobj)
                        open_pipes -= 1
        rc = proc.wait()
        if not stdin_done:
            with stdin_cv:
                stdin_q.append(None)
                stdin_cv.notify()
        status = 128 - rc if rc < 0 else rc
        send_frame(sock, EXIT, str(status).encode())


class Server(socketserver.ForkingMixIn, socketserver.TCPServer):
    allow_reuse_address = True
    request_queue_size = 256
    max_children = 1000


def serve(args):
    server = Server(("0.0.0.0", args.port), Handler)
    server.token = read_token(args.token_file)

    def stop(signum, frame):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    print(f"vm-agent: listening on port {args.port}", flush=True)
    try:
        server.serve_forever(poll_interval=0.5)
    except SystemExit:
        pass
    print("vm-agent: stopping", flush=True)
    return 0


# --------------------------------------------------------------- client


def connect(args):
    try:
        sock = socket.create_connection(("127.0.0.1", args.port), timeout=10)
    except OSError as e:
        print(f"vm exec: cannot reach the VM agent on port {args.port}: {e}",
              file=sys.stderr)
        sys.exit(125)
    sock.settimeout(None)
    return sock


def request(args, op, attempts=8, **kw):
    """Connect and send the request; return the socket once the agent has
    accepted it.  Retried while nothing can have run yet."""
    req = json.dumps(dict(token=read_token(args.token_file), op=op, **kw))
    delay = 0.2
    for attempt in range(attempts):
        sock = connect(args)
        try:
            sock.settimeout(60)
            sock.sendall(req.encode() + b"\n")
            kind, data = recv_frame(sock)
            if kind == ACCEPTED:
                sock.settimeout(None)
                return sock
            if kind is not None:  # bad token and the like
                sys.stderr.buffer.write(data if kind == ERROR else b"")
                sys.exit(125)
        except OSError:
            pass
        sock.close()
        time.sleep(delay)
        delay = min(delay * 2, 5)
    print(f"vm exec: the VM agent on port {args.port} does not accept requests",
          file=sys.stderr)
    sys.exit(125)


def simple(args, op):
    # ping is polled while the VM boots: one attempt each.
    sock = request(args, op, attempts=1 if op == "ping" else 8)
    sock.settimeout(10)
    try:
        kind, data = recv_frame(sock)
    except OSError:
        return 125
    return int(data) if kind == EXIT else 125


def client_exec(args):
    env = {}
    for kv in args.env:
        k, sep, v = kv.partition("=")
        if not sep:
            print(f"vm exec: bad --env {kv!r}", file=sys.stderr)
            return 2
        env[k] = v
    sock = request(args, "exec", argv=args.cmd, cwd=args.cwd, env=env)
    lock = threading.Lock()

    def pump_stdin():
        try:
            while True:
                data = os.read(0, 65536)
                with lock:
                    send_frame(sock, STDIN, data)
                if not data:
                    break
        except OSError:
            try:
                with lock:
                    send_frame(sock, STDIN, b"")
            except OSError:
                pass

    threading.Thread(target=pump_stdin, daemon=True).start()
    deadline = time.monotonic() + args.timeout if args.timeout > 0 else None
    while True:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                print(f"vm exec: timed out after {args.timeout}s: {' '.join(args.cmd)}",
                      file=sys.stderr)
                sock.close()  # the agent kills the command
                return 124
            sock.settimeout(left)
        try:
            kind, data = recv_frame(sock)
        except socket.timeout:
            continue
        except OSError as e:
            print(f"vm exec: connection to the VM lost: {e}", file=sys.stderr)
            return 125
        if kind is None:
            print("vm exec: the VM closed the connection before the command ended",
                  file=sys.stderr)
            return 125
        if kind in (STDOUT, STDERR):
            fd = 1 if kind == STDOUT else 2
            while data:
                n = os.write(fd, data)
                data = data[n:]
        elif kind == ERROR:
            sys.stderr.buffer.write(data)
            sys.stderr.flush()
        elif kind == EXIT:
            return int(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("op", choices=["serve", "exec", "ping", "poweroff"])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--token-file", required=True)
    ap.add_argument("--cwd", default=os.getcwd())
    ap.add_argument("--timeout", type=float, default=0)
    ap.add_argument("--env", action="append", default=[])
    argv = sys.argv[1:]
    cmd = []
    if "--" in argv:  # everything after the first "--" is the command
        i = argv.index("--")
        argv, cmd = argv[:i], argv[i + 1:]
    args = ap.parse_args(argv)
    args.cmd = cmd
    if args.op == "serve":
        return serve(args)
    if args.op in ("ping", "poweroff"):
        return simple(args, args.op)
    if not args.cmd:
        ap.error("exec needs a command")
    return client_exec(args)


if __name__ == "__main__":
    sys.exit(main())
