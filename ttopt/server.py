"""A resident ``ttopt-opt`` (opt-in): start-up without the imports.

``ttopt-opt`` spends most of a small kernel's run importing xDSL and defining ttopt's dialects
(about 0.8 s on a 2-core machine; the work itself takes 50 ms).  With ``TTOPT_SERVER=1`` in the
environment, ``ttopt-opt`` becomes a thin client: it hands its command line, working directory,
environment, umask and its standard input, output and error (the file descriptors themselves)
to a resident process that has everything imported, and that process forks a child to run
the command.  The child is the command as a fresh process would run it (same code, same
arguments, writing to the same descriptors); the client exits with the child's status.

    TTOPT_SERVER=1 ttopt-opt kernel.ttir --pass redundant-load -o out.ttir
    python -m ttopt.server status|stop|start

The first call starts the server (and waits for it, about a second); it exits after
``TTOPT_SERVER_IDLE`` seconds without a request (300 by default), or when ttopt's code on disk
changes.  One server per Python interpreter, ttopt code, and environment that could change
what ttopt does at import (``TTOPT_*``, ``TRITON_*``, ``PYTHON*``, locale): a different one
gets a server of its own.  Its socket lives in a private directory, ``TTOPT_SERVER_DIR`` or
``$XDG_RUNTIME_DIR/ttopt-UID`` (else ``$TMPDIR`` or ``/tmp``), mode 0700 and owned by the
user; anything else there (another owner, a wider mode, a symlink) and the client runs the
command in its own process, as it does whenever the server cannot be reached or started or a
standard descriptor is closed.  Signals (interrupt, terminate, hang-up, quit) sent to the
client go to the child; a client that disappears takes its child with it.

What differs from a fresh process: resource limits and the process id are the server's, and
the caches of the read (types, constants) may hold what an earlier command read (they are
caches: the output is the same).

This module imports only the standard library until it serves: the client costs the
interpreter's start-up and a few milliseconds.
"""

from __future__ import annotations

import hashlib
import json
import os
import select
import signal
import socket
import struct
import sys
import time

ENV_ON = "TTOPT_SERVER"
ENV_DIR = "TTOPT_SERVER_DIR"
ENV_IDLE = "TTOPT_SERVER_IDLE"
DEFAULT_IDLE_S = 300.0
START_TIMEOUT_S = 60.0
FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
_HEADER = struct.Struct("!I")
_STATUS = struct.Struct("!i")
_PACKAGE = os.path.dirname(os.path.abspath(__file__))


# ------------------------------------------------------------------ where, and which server
def server_dir() -> str:
    """The directory of this user's sockets (not created here)."""
    given = os.environ.get(ENV_DIR)
    if given:
        return given
    base = os.environ.get("XDG_RUNTIME_DIR") or os.environ.get("TMPDIR") or "/tmp"
    return os.path.join(base, f"ttopt-{os.getuid()}")


def _private_dir(path: str, create: bool) -> bool:
    """True if ``path`` is a directory of this user's that nobody else can enter (made so if
    absent and ``create``)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        if not create:
            return False
        try:
            os.mkdir(path, 0o700)
            st = os.lstat(path)
        except OSError:
            return False
    except OSError:
        return False
    import stat

    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077


def _code_signature() -> list:
    """What identifies ttopt's code and its dependencies on disk: each module of ttopt (name,
    size, modification time) and the packages xDSL and Triton (where installed)."""
    sig = []
    for root, dirs, files in os.walk(_PACKAGE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(root, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                sig.append((path, st.st_size, st.st_mtime_ns))
    import importlib.util

    for dist in ("xdsl", "triton"):
        try:
            spec = importlib.util.find_spec(dist)
        except (ImportError, ValueError):
            spec = None
        origin = spec.origin if spec is not None else None
        if origin:
            try:
                st = os.stat(os.path.dirname(origin))
                sig.append((origin, st.st_mtime_ns, os.stat(origin).st_mtime_ns))
            except OSError:
                pass
    return sig


def _import_env(env) -> list:
    """The environment that may change what ttopt, xDSL, Triton or Python do when imported."""
    return sorted(
        (k, v) for k, v in env.items()
        if (k.startswith(("TTOPT_", "TRITON_", "PYTHON", "LC_")) or k in ("LANG", "LANGUAGE"))
        and not k.startswith("TTOPT_SERVER")
    )


def server_key(env=None) -> str:
    """The name of the server that may run a command of this interpreter, code and
    environment."""
    data = repr((os.path.realpath(sys.executable), sys.prefix, sys.version, sys.flags,
                 sys.path[1:], _code_signature(),
                 _import_env(os.environ if env is None else env)))
    return hashlib.sha256(data.encode("utf-8", "surrogateescape")).hexdigest()[:20]


def socket_path(env=None) -> str:
    return os.path.join(server_dir(), server_key(env) + ".sock")


# ------------------------------------------------------------------ messages
def _send(sock: socket.socket, obj, fds=()) -> None:
    data = json.dumps(obj).encode("utf-8", "surrogateescape")
    data = _HEADER.pack(len(data)) + data
    sent = socket.send_fds(sock, [data], list(fds)) if fds else sock.send(data)
    if sent < len(data):
        sock.sendall(data[sent:])


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(n - got)
        if not chunk:
            raise ConnectionError("connection closed")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _recv(sock: socket.socket, maxfds: int = 0):
    """One message and the descriptors sent with it."""
    fds: list[int] = []
    if maxfds:
        first, fds, _flags, _addr = socket.recv_fds(sock, _HEADER.size, maxfds)
        if not first:
            raise ConnectionError("connection closed")
        head = first + _recv_exact(sock, _HEADER.size - len(first))
    else:
        head = _recv_exact(sock, _HEADER.size)
    (n,) = _HEADER.unpack(head)
    if n > 64 << 20:
        raise ConnectionError("message too large")
    return json.loads(_recv_exact(sock, n).decode("utf-8", "surrogateescape")), fds


def _connect(path: str, timeout: float | None = None) -> socket.socket | None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(path)
        sock.settimeout(None)
        return sock
    except OSError:
        sock.close()
        return None


def request(cmd: str, path: str | None = None, timeout: float = 10.0):
    """Ask the server at ``path`` (this environment's by default) for ``status`` (its pid) or
    to ``stop``; None if no server answers there."""
    sock = _connect(path or socket_path(), timeout)
    if sock is None:
        return None
    try:
        sock.settimeout(timeout)
        _send(sock, {"cmd": cmd})
        return _recv(sock)[0]
    except (OSError, ValueError):
        return None
    finally:
        sock.close()


# ------------------------------------------------------------------ the client
def _std_fds_open() -> bool:
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            return False
    return True


def _start(path: str) -> socket.socket | None:
    """Start a server for ``path`` and connect to it (None if that fails)."""
    import subprocess

    directory = os.path.dirname(path)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-c", "import ttopt.server as s, sys; s.serve(sys.argv[1])", path],
            cwd=directory, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True,
        )
    except OSError:
        return None
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        sock = _connect(path)
        if sock is not None:
            return sock
        if proc.poll() is not None:  # it gave way to another server starting: wait for that
            sock = _connect(path)
            if sock is not None:
                return sock
            if not os.path.exists(path + ".lock"):
                return None
        time.sleep(0.01)
    return None


def run_through_server(argv: list[str]) -> int | None:
    """Run ``argv`` in a child of the server; its exit status (negative: the signal that
    ended it), or None where the command must run in this process instead."""
    if not _std_fds_open():
        return None
    directory = server_dir()
    if not _private_dir(directory, create=True):
        return None
    try:
        cwd = os.getcwd()
    except OSError:
        return None
    path = os.path.join(directory, server_key() + ".sock")
    if len(path.encode()) > 100:  # AF_UNIX's limit on a socket's name
        return None
    sock = _connect(path) or _start(path)
    if sock is None:
        return None
    umask = os.umask(0o022)
    os.umask(umask)
    message = {"cmd": "run", "argv": argv, "cwd": cwd, "env": dict(os.environ), "umask": umask}
    try:
        _send(sock, message, fds=(0, 1, 2))
    except OSError:
        sock.close()
        return None  # nothing ran: run here

    def forward(signum, _frame):
        try:
            sock.send(bytes([signum]))
        except OSError:
            pass

    for signum in FORWARDED_SIGNALS:
        signal.signal(signum, forward)
    try:
        (status,) = _STATUS.unpack(_recv_exact(sock, _STATUS.size))
    except (OSError, ConnectionError):
        sys.stderr.write("ttopt-opt: internal error: the ttopt server went away during the run\n")
        return 3
    finally:
        sock.close()
    return status


def entry() -> None:
    """The ``ttopt-opt`` command: through the server where ``TTOPT_SERVER=1``, else (and
    wherever the server cannot serve) :func:`ttopt.cli.entry` in this process."""
    if os.environ.get(ENV_ON, "") not in ("", "0"):
        status = run_through_server(sys.argv)
        if status is not None:
            if status < 0:  # the child died of a signal: so does the client
                signal.signal(-status, signal.SIG_DFL)
                os.kill(os.getpid(), -status)
                status = 128 - status
            sys.exit(status)
    from ttopt.cli import entry as cli_entry

    cli_entry()


# ------------------------------------------------------------------ the server
_WARM_UP = """\
module {
  tt.func public @k(%p: !tt.ptr<f32>, %n: i32) {
    %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %s = tt.splat %p : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %a = tt.addptr %s, %r : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    %x = tt.load %a : tensor<4x!tt.ptr<f32>>
    %y = tt.load %a evictionPolicy = evict_last : tensor<4x!tt.ptr<f32>>
    %z = arith.divf %x, %y : tensor<4xf32>
    %m = "tt.reduce"(%z) <{axis = 0 : i32}> ({
    ^bb0(%u: f32, %v: f32):
      %w = arith.addf %u, %v : f32
      tt.reduce.return %w : f32
    }) : (tensor<4xf32>) -> f32
    tt.store %a, %z : tensor<4x!tt.ptr<f32>>
    tt.return
  }
}
"""


def _warm_up() -> None:
    """Import what a command needs and run one through the pipeline (in this thread: the
    children must not inherit a worker thread mid-job)."""
    import ttopt.batch  # noqa: F401
    import ttopt.cli
    from ttopt import pipeline

    ttopt.cli.version_text()
    pipeline._run_pipeline(_WARM_UP, ["redundant-load", "redundant-reduce", "div-chain"],
                           "<warm-up>", None)


def _reset_std_streams() -> None:
    """The child's ``sys.stdin/stdout/stderr`` over descriptors 0-2 (the client's), made as
    Python makes them at start-up: the server's encoding and errors (the same locale
    environment, see :func:`server_key`), stdout line-buffered on a terminal, stderr always."""
    import io

    def stream(fd: int, old, mode: str, line: bool):
        encoding = getattr(old, "encoding", None) or "utf-8"
        errors = getattr(old, "errors", None) or "strict"
        raw = io.open(fd, mode + "b", closefd=False)
        return io.TextIOWrapper(raw, encoding=encoding, errors=errors, line_buffering=line)

    sys.stdin = sys.__stdin__ = stream(0, sys.__stdin__, "r", False)
    sys.stdout = sys.__stdout__ = stream(1, sys.__stdout__, "w", os.isatty(1))
    sys.stderr = sys.__stderr__ = stream(2, sys.__stderr__, "w", True)


def _exit_code(code) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(f"{code}\n")
    except Exception:
        pass
    return 1


def _child(message: dict, fds: list[int]) -> int:
    """In the forked child: become the client's command and run it; its exit status."""
    for i, fd in enumerate(fds):
        if fd != i:
            os.dup2(fd, i)
            os.close(fd)
    try:
        os.chdir(message["cwd"])
    except OSError as e:
        os.write(2, f"ttopt-opt: error: cannot enter {message['cwd']}: {e.strerror}\n".encode())
        return 1
    os.umask(message["umask"])
    os.environ.clear()
    os.environ.update(message["env"])
    _reset_std_streams()
    sys.argv = list(message["argv"])
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGCHLD):
        signal.signal(signum, signal.SIG_DFL)
    try:
        from ttopt.cli import entry as cli_entry

        cli_entry()
        code = 0
    except SystemExit as e:
        code = _exit_code(e.code)
    except KeyboardInterrupt:
        import traceback

        traceback.print_exc()
        _flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        code = 130
    except BaseException:  # as an uncaught exception ends Python
        sys.excepthook(*sys.exc_info())
        code = 1
    import atexit

    atexit._run_exitfuncs()
    if not _flush():
        code = 120  # as Python's exit does when flushing stdout fails
    return code


def _flush() -> bool:
    ok = True
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except Exception:
            ok = ok and stream is not sys.stdout
    return ok


class _Server:
    def __init__(self, path: str) -> None:
        self.path = path
        self.idle_s = float(os.environ.get(ENV_IDLE) or DEFAULT_IDLE_S)
        self.signature = _code_signature()
        self.children: dict[int, socket.socket] = {}  # pid -> its client's connection
        self.stopping = False

    def bind(self) -> bool:
        """Take the lock of ``path`` (one server per socket) and listen there."""
        import fcntl

        self.lock = os.open(self.path + ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # another server holds it
        try:
            os.unlink(self.path)  # a dead server's socket (the lock says none is alive)
        except FileNotFoundError:
            pass
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(64)
        self.inode = os.stat(self.path).st_ino
        return True

    def serve(self) -> None:
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_r, False)
        os.set_blocking(wake_w, False)
        self.wake_r, self.wake_w = wake_r, wake_w
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        for signum in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, self._stop_signal)
        last = time.monotonic()
        while not (self.stopping and not self.children):
            timeout = None
            if not self.children and not self.stopping:
                timeout = max(0.0, min(30.0, self.idle_s - (time.monotonic() - last)))
            watched = [wake_r, *(c for c in self.children.values() if not isinstance(c, _Closed))]
            if not self.stopping:
                watched.append(self.listener)
            try:
                ready, _, _ = select.select(watched, [], [], timeout)
            except InterruptedError:
                ready = []
            if wake_r in ready:
                try:
                    while os.read(wake_r, 512):
                        pass
                except BlockingIOError:
                    pass
            self._reap()
            for sock in ready:
                if sock is wake_r:
                    continue
                if sock is getattr(self, "listener", None):
                    self._accept()
                else:
                    self._from_client(sock)
            if self.children or ready:
                last = time.monotonic()
            elif time.monotonic() - last >= self.idle_s or _code_signature() != self.signature:
                self.stop()

    def _stop_signal(self, *_):
        self.stop()

    def stop(self) -> None:
        if not self.stopping:
            self.stopping = True
            self._unlink()
            self.listener.close()

    def _unlink(self) -> None:
        try:
            if os.stat(self.path).st_ino == self.inode:
                os.unlink(self.path)
        except OSError:
            pass

    def close(self) -> None:
        self._unlink()
        try:
            os.unlink(self.path + ".lock")
        except OSError:
            pass
        os.close(self.lock)

    def _accept(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        fds: list[int] = []
        try:
            conn.settimeout(10.0)
            message, fds = _recv(conn, maxfds=3)
            conn.settimeout(None)
            cmd = message.get("cmd")
            if cmd == "status":
                _send(conn, {"pid": os.getpid(), "children": len(self.children)})
            elif cmd == "stop":
                _send(conn, {"pid": os.getpid(), "stopping": True})
                self.stop()
            elif cmd == "run" and len(fds) == 3:
                self._fork(conn, message, fds)
                conn = None  # kept until the child ends
        except (OSError, ValueError, ConnectionError, KeyError, TypeError):
            pass
        finally:
            for fd in fds:
                try:
                    os.close(fd)
                except OSError:
                    pass
            if conn is not None:
                conn.close()

    def _fork(self, conn: socket.socket, message: dict, fds: list[int]) -> None:
        pid = os.fork()
        if pid == 0:  # the child
            code = 1
            try:
                signal.set_wakeup_fd(-1)
                os.close(self.wake_r)
                os.close(self.wake_w)
                os.close(self.lock)
                self.listener.close()
                for other in self.children.values():
                    other.close()
                conn.close()
                code = _child(message, fds)
            except BaseException as e:  # a bug here: say so where the client sees it
                code = 3
                try:
                    os.write(2, f"ttopt-opt: internal error: the server's child: {e!r}\n".encode())
                except OSError:
                    pass
            finally:
                os._exit(code)
        self.children[pid] = conn

    def _from_client(self, conn: socket.socket) -> None:
        """A signal to forward (one byte each), or the client gone: its child goes too."""
        pid = next(p for p, c in self.children.items() if c is conn)
        try:
            data = conn.recv(64)
        except OSError:
            data = b""
        signals = list(data) if data else [signal.SIGKILL]
        for signum in signals:
            try:
                os.kill(pid, signum)
            except OSError:
                pass
        if not data:  # nobody to answer: forget the connection, the reaper forgets the pid
            self.children[pid] = _Closed()
            conn.close()

    def _reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.children.pop(pid, None)
            if conn is None or isinstance(conn, _Closed):
                continue
            try:
                conn.sendall(_STATUS.pack(os.waitstatus_to_exitcode(status)))
            except OSError:
                pass
            conn.close()


class _Closed:
    """The connection of a client that went away (its child is being killed)."""

    def fileno(self) -> int:
        return -1

    def close(self) -> None:
        pass


def serve(path: str) -> None:
    """The server's process: import, warm up, serve ``path`` until idle or stopped."""
    import gc

    gc.disable()  # as ttopt-opt's own process (ttopt.cli.entry)
    server = _Server(path)
    if not server.bind():
        return
    try:
        _warm_up()
        gc.collect()
        gc.freeze()  # the children share these pages: no collection may write to them
        server.serve()
    finally:
        server.stop()
        server.close()


def main(argv: list[str] | None = None) -> int:
    """``python -m ttopt.server status|stop|start``: this environment's server."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0] not in ("status", "stop", "start"):
        sys.stderr.write("usage: python -m ttopt.server status|stop|start\n")
        return 2
    path = socket_path()
    if args[0] == "start":
        if not _private_dir(os.path.dirname(path), create=True):
            sys.stderr.write(f"ttopt server: error: {os.path.dirname(path)} is not a private "
                             "directory of this user's\n")
            return 1
        sock = _connect(path) or _start(path)
        if sock is None:
            sys.stderr.write("ttopt server: error: could not start\n")
            return 1
        sock.close()
    reply = request("status" if args[0] != "stop" else "stop", path)
    if reply is None:
        print(f"no ttopt server at {path}")
        return 1 if args[0] != "stop" else 0
    verb = "stopping" if args[0] == "stop" else "running"
    print(f"ttopt server {verb}: pid {reply['pid']}, {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
