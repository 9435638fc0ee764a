"""A resident ``ttopt-opt`` (opt-in): start-up without the imports.

``ttopt-opt`` spends most of a small kernel's run importing xDSL and defining ttopt's dialects
(about 0.8 s on a 2-core machine; the work itself takes 50 ms).  With ``TTOPT_SERVER=1`` in the
environment, ``ttopt-opt`` becomes a thin client: it hands its command line, working directory,
environment, umask, ``sys.path``, the signals it ignores and its inheritable file descriptors
(standard input, output and error, and any other it was given: ``<(...)``, ``3<file``) to a
resident process that has everything imported, and that process forks a child to run the
command.  The child is the command as a fresh process would run it (same code, same arguments,
the same descriptors at the same numbers); the client exits with the child's status.

    TTOPT_SERVER=1 ttopt-opt kernel.ttir --pass redundant-load -o out.ttir
    python -m ttopt.server status|stop|start

The first call starts the server (and waits for it, about a second); it exits after
``TTOPT_SERVER_IDLE`` seconds without a request (300 by default), or when ttopt's code or the
installed packages change.  One server per Python interpreter, ttopt code, installed packages,
process attributes that a child inherits and cannot be given afterwards (resource limits, CPU
affinity, user and group ids, scheduling priority, control group) and environment that could
change what ttopt does at import (``TTOPT_*``, ``TRITON_*``, ``PYTHON*``, locale): a client
that differs in any gets a server of its own.  Its socket lives in a private directory,
``TTOPT_SERVER_DIR`` or ``$XDG_RUNTIME_DIR/ttopt-UID`` (else ``$TMPDIR`` or ``/tmp``), mode
0700 and owned by the user; anything else there (another owner, a wider mode, a symlink) and
the client runs the command in its own process, as it does whenever the server cannot be
reached or started in time, a standard descriptor is closed, or the command names the
controlling terminal (``/dev/tty``, which the server's children do not have).  Signals
(interrupt, terminate, hang-up, quit) sent to the client go to the child, unless the client
ignores them (``nohup``): then the child ignores them too; a client that disappears takes
its child with it.

What differs from a fresh process: the process id and parent, and the caches of the read
(types, constants) may hold what an earlier command read (they are caches: the output is the
same).

This module imports only ``os`` and ``sys`` unless ``TTOPT_SERVER`` is on: the client costs
the interpreter's start-up and a few milliseconds.
"""

from __future__ import annotations

import os
import sys

ENV_ON = "TTOPT_SERVER"
ENV_DIR = "TTOPT_SERVER_DIR"
ENV_IDLE = "TTOPT_SERVER_IDLE"
DEFAULT_IDLE_S = 300.0
START_TIMEOUT_S = 60.0  # a server that started takes ~1 s to be ready
BUSY_WAIT_S = 15.0  # another server is starting (or stopping) there: how long to wait for it
REQUEST_TIMEOUT_S = 10.0
ACK_TIMEOUT_S = 10.0  # a server that does not start a command in this time: run it here
MAX_FDS = 200  # descriptors passed with a request (SCM_RIGHTS takes up to 253)
_FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")
_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_READY, _BUSY, _ACK = b"R", b"B", b"A"


# ------------------------------------------------------------------ where, and which server
def server_dir() -> str:
    """The directory of this user's sockets (not created here)."""
    given = os.environ.get(ENV_DIR)
    if given:
        return os.path.abspath(given)
    base = os.environ.get("XDG_RUNTIME_DIR") or os.environ.get("TMPDIR") or "/tmp"
    return os.path.join(os.path.abspath(base), f"ttopt-{os.getuid()}")


def _private_dir(path: str, create: bool) -> bool:
    """True if ``path`` is a directory of this user's that nobody else can enter (made so if
    absent and ``create``)."""
    import stat

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
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077


def _code_signature() -> list:
    """What identifies the code a command runs: each module of ttopt (path, size,
    modification time), each directory of ``sys.path`` (installing, upgrading or removing a
    package changes its entries: its modification time), and xDSL's and Triton's packages."""
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
    for entry in sys.path[1:]:
        try:
            sig.append((entry, os.stat(entry or ".").st_mtime_ns))
        except OSError:
            sig.append((entry, None))
    import importlib.util

    for dist in ("xdsl", "triton"):
        try:
            spec = importlib.util.find_spec(dist)
        except (ImportError, ValueError):
            spec = None
        origin = spec.origin if spec is not None else None
        if origin:
            try:
                sig.append((origin, os.stat(os.path.dirname(origin)).st_mtime_ns,
                            os.stat(origin).st_mtime_ns))
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


def _process_attributes() -> list:
    """What a forked child inherits from the server and is not given per command: resource
    limits, CPU affinity, ids, priority, control group."""
    import resource

    out: list = [os.geteuid(), os.getgid(), os.getegid(), sorted(os.getgroups())]
    for name in sorted(n for n in dir(resource) if n.startswith("RLIMIT_")):
        try:
            out.append((name, resource.getrlimit(getattr(resource, name))))
        except (OSError, ValueError):
            pass
    for probe in (lambda: sorted(os.sched_getaffinity(0)),
                  lambda: os.getpriority(os.PRIO_PROCESS, 0)):
        try:
            out.append(probe())
        except (AttributeError, OSError):
            out.append(None)
    try:
        with open("/proc/self/cgroup") as f:
            out.append(f.read())
    except OSError:
        out.append(None)
    return out


def server_key(env=None) -> str:
    """The name of the server that may run a command of this interpreter, code, process and
    environment."""
    import hashlib

    data = repr((os.path.realpath(sys.executable), sys.prefix, sys.version, sys.flags,
                 sys.warnoptions, getattr(sys, "_xoptions", {}),
                 sys.path[1:], _code_signature(), _process_attributes(),
                 _import_env(os.environ if env is None else env)))
    return hashlib.sha256(data.encode("utf-8", "surrogateescape")).hexdigest()[:20]


def socket_path(env=None) -> str:
    return os.path.join(server_dir(), server_key(env) + ".sock")


# ------------------------------------------------------------------ messages
def _encode(obj) -> bytes:
    import json
    import struct

    data = json.dumps(obj).encode("utf-8", "surrogateescape")
    return struct.pack("!I", len(data)) + data


def _send(sock, obj, fds=()) -> None:
    import socket

    data = _encode(obj)
    sent = socket.send_fds(sock, [data], list(fds)) if fds else sock.send(data)
    if sent < len(data):
        sock.sendall(data[sent:])


def _recv_exact(sock, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(n - got)
        if not chunk:
            raise ConnectionError("connection closed")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _decode(buf: bytes):
    """(message, bytes used) from the start of ``buf``, or None if it is not all there."""
    import json
    import struct

    if len(buf) < 4:
        return None
    (n,) = struct.unpack("!I", buf[:4])
    if n > 64 << 20:
        raise ValueError("message too large")
    if len(buf) < 4 + n:
        return None
    return json.loads(buf[4:4 + n].decode("utf-8", "surrogateescape")), 4 + n


def _recv(sock):
    buf = b""
    while True:
        found = _decode(buf)
        if found is not None:
            return found[0]
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("connection closed")
        buf += chunk


def _connect(path: str, timeout: float | None = None):
    import socket

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
        return _recv(sock)
    except (OSError, ValueError):
        return None
    finally:
        sock.close()


# ------------------------------------------------------------------ the client
def _open_fds() -> list[int]:
    """This process's open descriptors (from /proc, else by probing each possible one)."""
    try:
        return sorted(int(n) for n in os.listdir("/proc/self/fd"))
    except (OSError, ValueError):
        pass
    try:
        limit = min(os.sysconf("SC_OPEN_MAX"), 1 << 16)
    except (OSError, ValueError):
        limit = 1024
    found = []
    for fd in range(limit):
        try:
            os.fstat(fd)
        except OSError:
            continue
        found.append(fd)
    return found


def _passable_fds() -> list[int] | None:
    """The descriptors a fresh process would inherit (inheritable ones; 0-2 must be open),
    or None where they cannot be passed."""
    listed = _open_fds()
    fds = []
    for fd in listed:
        try:
            os.fstat(fd)
            if fd > 2 and not os.get_inheritable(fd):
                continue
        except OSError:
            if fd <= 2:
                return None
            continue
        fds.append(fd)
    if fds[:3] != [0, 1, 2] or len(fds) > MAX_FDS:
        return None
    return fds


def _start(path: str):
    """Start a server for ``path`` and connect to it (None: run in this process)."""
    import select
    import subprocess
    import time

    directory = os.path.dirname(path)
    try:
        # -c with the private directory as the working directory: the server's sys.path[0]
        # is that directory (serve() drops it), never the user's
        flags = subprocess._args_from_interpreter_flags()  # (-O, -W, -X...: the client's)
        proc = subprocess.Popen(
            [sys.executable, *flags, "-c", "import ttopt.server as s, sys; s.serve(sys.argv[1])",
             path],
            cwd=directory, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True,
        )
    except OSError:
        return None
    try:
        ready, _, _ = select.select([proc.stdout], [], [], START_TIMEOUT_S)
        word = os.read(proc.stdout.fileno(), 1) if ready else b""
    except OSError:
        word = b""
    finally:
        proc.stdout.close()
    if word == _READY:
        return _connect(path)
    if word == _BUSY:  # another server holds the lock: it is starting, or stopping
        deadline = time.monotonic() + BUSY_WAIT_S
        while time.monotonic() < deadline:
            sock = _connect(path)
            if sock is not None:
                return sock
            time.sleep(0.02)
    return None  # it failed, or took too long: run here


def _names_the_terminal(argv: list[str]) -> bool:
    """Does an argument (or an option's value: ``--output=X``, ``-oX``) name the controlling
    terminal, whatever the spelling (``/dev/./tty``, a link, ``tty`` in /dev)?"""
    try:
        tty = os.stat("/dev/tty").st_rdev
    except OSError:
        return False
    import stat

    for arg in argv[1:]:
        candidates = [arg]
        if arg.startswith("-"):
            candidates += [arg.partition("=")[2], arg[2:]]
        for c in candidates:
            if not c or "tty" not in c:
                continue
            try:
                st = os.stat(c)
            except (OSError, ValueError):
                continue
            if stat.S_ISCHR(st.st_mode) and st.st_rdev == tty:
                return True
    return False


def run_through_server(argv: list[str]) -> int | None:
    """Run ``argv`` in a child of the server; its exit status (negative: the signal that
    ended it), or None where the command must run in this process instead (nothing ran)."""
    import signal

    # (what this process inherited, before it opens anything of its own: None if a standard
    # descriptor is closed, which a fresh process would see closed)
    fds = _passable_fds()
    if fds is None or _names_the_terminal(argv):
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
    signums = [getattr(signal, n) for n in _FORWARDED]
    ignored = [s for s in signums if signal.getsignal(s) == signal.SIG_IGN]
    forwarded = [s for s in signums if s not in ignored]
    message = {"cmd": "run", "argv": argv, "cwd": cwd, "env": dict(os.environ),
               "umask": umask, "path": sys.path, "fds": fds, "ignored": ignored}
    # held back until the handlers that forward them are in place (after the
    # acknowledgement): none is lost, none ends the client alone
    signal.pthread_sigmask(signal.SIG_BLOCK, forwarded)
    try:
        _send(sock, message, fds=fds)
        # the child's acknowledgement: the command runs.  None (the server stopped first,
        # or does not answer): nothing runs there, run it here (a server that reads the
        # request later sees this client gone and does not run it)
        sock.settimeout(ACK_TIMEOUT_S)
        if _recv_exact(sock, 1) != _ACK:
            raise ConnectionError("no acknowledgement")
        sock.settimeout(None)
    except (OSError, ConnectionError):
        sock.close()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, forwarded)
        return None

    def forward(signum, _frame):
        try:
            sock.send(bytes([signum]))
        except OSError:
            pass

    for signum in forwarded:
        signal.signal(signum, forward)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, forwarded)
    try:
        import struct

        (status,) = struct.unpack("!i", _recv_exact(sock, 4))
    except (OSError, ConnectionError):
        # (the command's child holds this connection too: it has ended by now)
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
                import signal

                signal.signal(-status, signal.SIG_DFL)
                os.kill(os.getpid(), -status)
                status = 128 - status
            sys.exit(status)
    os._exit(run_command())


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
    import concurrent.futures  # noqa: F401  (batch mode's and the large-module workers')
    import multiprocessing  # noqa: F401

    import ttopt.batch  # noqa: F401
    import ttopt.cli
    from ttopt import pipeline

    ttopt.cli.version_text()
    pipeline._run_pipeline(_WARM_UP, ["redundant-load", "redundant-reduce", "div-chain"],
                           "<warm-up>", None)


def _reset_std_streams() -> None:
    """The child's ``sys.stdin/stdout/stderr`` over descriptors 0-2 (the client's), made as
    Python makes them at start-up: the server's encoding and errors (the same locale
    environment and flags, see :func:`server_key`); unbuffered under ``-u`` /
    ``PYTHONUNBUFFERED``, else stdout line-buffered on a terminal and stderr always."""
    import io

    # (-u / PYTHONUNBUFFERED made the server's own stdout unbuffered: a raw FileIO; the
    # environment is part of the server's key, so it is the client's setting too)
    unbuffered = isinstance(getattr(sys.__stdout__, "buffer", None), io.FileIO)

    def stream(fd: int, old, mode: str, line: bool):
        encoding = getattr(old, "encoding", None) or "utf-8"
        errors = getattr(old, "errors", None) or "strict"
        raw = io.FileIO(fd, mode, closefd=False)
        raw.name = getattr(old, "name", fd)  # ('<stdout>'...)
        if mode == "w" and unbuffered:
            new = io.TextIOWrapper(raw, encoding=encoding, errors=errors, newline="\n",
                                   write_through=True)
        else:
            buffered = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
            new = io.TextIOWrapper(buffered, encoding=encoding, errors=errors, newline="\n",
                                   line_buffering=line)
        new.mode = mode
        return new

    # the server's own streams stay referenced: freed, they would close descriptors 0-2,
    # which are the client's now
    _OLD_STREAMS.extend([sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__,
                         sys.__stderr__])
    sys.stdin = sys.__stdin__ = stream(0, sys.__stdin__, "r", False)
    sys.stdout = sys.__stdout__ = stream(1, sys.__stdout__, "w", os.isatty(1))
    sys.stderr = sys.__stderr__ = stream(2, sys.__stderr__, "w", True)


_OLD_STREAMS: list = []


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


def _place_fds(received: list[int], numbers: list[int], hold: int) -> int:
    """Put each received descriptor at the number it had in the client, keep ``hold`` (the
    client's connection: its new number, close-on-exec), and close every other descriptor of
    the server's (it was forked: nothing else of it is this command's)."""
    import fcntl

    top = max([*received, *numbers, hold, 2]) + 1
    moved = [fcntl.fcntl(fd, fcntl.F_DUPFD, top) for fd in received]  # out of the way
    held = fcntl.fcntl(hold, fcntl.F_DUPFD_CLOEXEC, top)
    keep = {*moved, held}
    _close_all(fd for fd in _open_fds() if fd not in keep)
    for src, dst in zip(moved, numbers):
        os.dup2(src, dst, inheritable=True)
    _close_all(moved)
    return held


def _child(message: dict, fds: list[int], conn_fd: int) -> int:
    """In the forked child: become the client's command and run it; its exit status.  The
    child keeps a copy of the client's connection until it ends: a client whose server dies
    sees the connection close only once the command has ended too."""
    import signal

    _place_fds(fds, message["fds"], conn_fd)
    try:
        os.chdir(message["cwd"])
    except OSError as e:
        os.write(2, f"ttopt-opt: error: cannot enter {message['cwd']}: {e.strerror}\n".encode())
        return 1
    os.umask(message["umask"])
    os.environ.clear()
    os.environ.update(message["env"])
    sys.path[:] = message["path"]
    _reset_std_streams()
    sys.argv = list(message["argv"])
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for name in ("SIGTERM", "SIGHUP", "SIGQUIT", "SIGCHLD"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)
    for signum in message["ignored"]:
        signal.signal(signum, signal.SIG_IGN)
    return run_command()


def run_command() -> int:
    """:func:`ttopt.cli.entry` as Python would run it as a program: its exit status, with
    what Python does at exit done (an uncaught exception reported, the ``atexit`` handlers
    run, stdout and stderr flushed), but not the freeing of every object: the caller ends
    the process with ``os._exit`` (a 10 MB module is millions of objects, about 2 s to free
    one by one)."""
    import signal

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


def _valid_run(message) -> bool:
    return (
        isinstance(message, dict)
        and isinstance(message.get("argv"), list) and all(isinstance(a, str) for a in message["argv"])
        and isinstance(message.get("cwd"), str)
        and isinstance(message.get("env"), dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in message["env"].items())
        and isinstance(message.get("umask"), int)
        and isinstance(message.get("path"), list) and all(isinstance(p, str) for p in message["path"])
        and isinstance(message.get("fds"), list) and all(isinstance(f, int) and f >= 0 for f in message["fds"])
        and isinstance(message.get("ignored"), list) and all(isinstance(s, int) for s in message["ignored"])
    )


class _Pending:
    """A connection whose request is still arriving (read as it comes, never waited for)."""

    def __init__(self, conn, deadline: float) -> None:
        self.conn, self.deadline = conn, deadline
        self.buf = b""
        self.fds: list[int] = []

    def close(self) -> None:
        _close_all(self.fds)
        self.fds = []
        self.conn.close()


def _close_all(fds) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def _idle_seconds() -> float:
    try:
        value = float(os.environ.get(ENV_IDLE) or DEFAULT_IDLE_S)
    except ValueError:
        return DEFAULT_IDLE_S
    return value if value >= 0 and value == value else DEFAULT_IDLE_S


class _Server:
    def __init__(self, path: str) -> None:
        self.path = path
        self.idle_s = _idle_seconds()
        self.signature = _code_signature()
        self.children: dict[int, object] = {}  # pid -> its client's connection (None: gone)
        self.by_conn: dict[object, int] = {}  # connection -> pid
        self.pending: dict[object, _Pending] = {}
        self.stopping = False
        self.stop_requested = False
        self.listener = None
        self.lock = None

    # --- one server per socket: the lock file
    def bind(self) -> bool:
        """Take the lock of ``path`` and listen there; False if another server holds it."""
        import fcntl
        import socket

        lock_path = self.path + ".lock"
        while True:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                return False
            try:  # the file locked is still the one at the path (a stopping server unlinks it)
                if os.stat(lock_path).st_ino == os.fstat(fd).st_ino:
                    break
            except FileNotFoundError:
                pass
            os.close(fd)
        self.lock = fd
        try:
            os.unlink(self.path)  # a dead server's socket (the lock says none is alive)
        except FileNotFoundError:
            pass
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(64)
        self.listener.setblocking(False)
        self.inode = os.stat(self.path).st_ino
        return True

    def stop(self) -> None:
        """Accept nothing more: the socket and the lock go now (a new server may start while
        the children still run); the loop ends when the last child has."""
        if self.stopping:
            return
        self.stopping = True
        try:
            if os.stat(self.path).st_ino == self.inode:
                os.unlink(self.path)
        except OSError:
            pass
        if self.listener is not None:
            self.listener.close()  # (queued clients see the connection close: they run alone)
        for p in list(self.pending.values()):
            p.close()
        self.pending.clear()
        if self.lock is not None:
            try:
                os.unlink(self.path + ".lock")  # (still holding it: see bind)
            except OSError:
                pass
            os.close(self.lock)
            self.lock = None

    # --- the loop
    def serve(self) -> None:
        import select
        import signal
        import time

        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_r, False)
        os.set_blocking(wake_w, False)
        self.wake_r, self.wake_w = wake_r, wake_w
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)

        def stop_signal(*_):
            self.stop_requested = True  # (the loop stops: nothing is closed in a handler)

        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(signum, stop_signal)
        last = time.monotonic()
        while not (self.stopping and not self.children):
            if self.stop_requested:
                self.stop_requested = False
                self.stop()
                continue
            now = time.monotonic()
            timeout = None
            if self.pending:
                timeout = max(0.0, min(p.deadline for p in self.pending.values()) - now)
            if not self.children and not self.pending and not self.stopping:
                timeout = max(0.0, min(30.0, self.idle_s - (now - last)))
            watched = [wake_r, *self.by_conn, *self.pending]
            if not self.stopping:
                watched.append(self.listener)
            try:
                ready, _, _ = select.select(watched, [], [], timeout)
            except (InterruptedError, OSError, ValueError):
                ready = []
            for item in ready:
                try:
                    if item == wake_r:
                        self._drain_wakeups()
                    elif item is self.listener:
                        self._accept()
                    elif item in self.pending:
                        self._read_request(self.pending[item])
                    elif item in self.by_conn:
                        self._from_client(item)
                except Exception:  # one bad event never ends the server
                    pass
            self._reap()
            now = time.monotonic()
            for p in [p for p in self.pending.values() if p.deadline <= now]:
                del self.pending[p.conn]
                p.close()
            if self.children or self.pending or ready:
                last = now
            elif not self.stopping and (now - last >= self.idle_s
                                        or _code_signature() != self.signature):
                self.stop()

    def _drain_wakeups(self) -> None:
        try:
            while os.read(self.wake_r, 512):
                pass
        except BlockingIOError:
            pass

    def _accept(self) -> None:
        import time

        while True:
            try:
                conn, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return
            conn.setblocking(False)
            self.pending[conn] = _Pending(conn, time.monotonic() + REQUEST_TIMEOUT_S)

    def _read_request(self, p: _Pending) -> None:
        import socket

        try:
            data, fds, _flags, _addr = socket.recv_fds(p.conn, 1 << 16, MAX_FDS + 3)
        except BlockingIOError:
            return
        except OSError:
            data, fds = b"", []
        p.fds.extend(fds)
        if not data:
            del self.pending[p.conn]
            p.close()
            return
        p.buf += data
        try:
            found = _decode(p.buf)
        except ValueError:
            found = ("bad", 0)
        if found is None:
            return
        del self.pending[p.conn]
        message = found[0]
        conn = p.conn
        try:  # a client that gave up waiting (and runs the command itself): not run here
            if conn.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                p.close()
                return
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            p.close()
            return
        try:
            conn.setblocking(True)
            conn.settimeout(REQUEST_TIMEOUT_S)
            cmd = message.get("cmd") if isinstance(message, dict) else None
            if cmd == "status":
                _send(conn, {"pid": os.getpid(), "children": len(self.children)})
            elif cmd == "stop":
                _send(conn, {"pid": os.getpid(), "stopping": True})
                self.stop()
            elif cmd == "run" and not self.stopping and _valid_run(message) \
                    and len(p.fds) == len(message["fds"]):
                conn.settimeout(None)
                self._fork(conn, message, p.fds)
                conn = None  # kept until the child ends
        finally:
            _close_all(p.fds)
            p.fds = []
            if conn is not None:
                conn.close()

    def _fork(self, conn, message: dict, fds: list[int]) -> None:
        pid = os.fork()
        if pid == 0:  # the child
            code = 3
            try:
                import signal

                signal.set_wakeup_fd(-1)
                conn_fd = conn.detach()  # (the socket object must not close it later)
                os.write(conn_fd, _ACK)  # the command runs: from here on, never twice
                code = _child(message, fds, conn_fd)  # (closes the server's descriptors)
            except BaseException as e:  # a bug here: say so where the client sees it
                try:
                    os.write(2, f"ttopt-opt: internal error: the server's child: {e!r}\n".encode())
                except OSError:
                    pass
            finally:
                os._exit(code)
        self.children[pid] = conn
        self.by_conn[conn] = pid

    def _client_gone(self, conn) -> None:
        import signal

        pid = self.by_conn.pop(conn, None)
        conn.close()
        if pid is not None:
            self.children[pid] = None
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def _from_client(self, conn) -> None:
        """A signal to forward (one byte each), or the client gone: its child goes too."""
        pid = self.by_conn.get(conn)
        if pid is None:
            return
        try:
            data = conn.recv(64)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._client_gone(conn)
            return
        for signum in data:
            try:
                os.kill(pid, signum)
            except OSError:
                pass

    def _reap(self) -> None:
        import struct

        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.children.pop(pid, None)
            if conn is None:
                continue
            self.by_conn.pop(conn, None)
            try:
                conn.setblocking(True)
                conn.settimeout(REQUEST_TIMEOUT_S)
                conn.sendall(struct.pack("!i", os.waitstatus_to_exitcode(status)))
            except OSError:
                pass
            conn.close()


def serve(path: str) -> None:
    """The server's process: take the lock, import, warm up, tell the starting client (its
    standard output: ``R`` ready, ``B`` another server holds the lock), serve ``path`` until
    idle or stopped."""
    import gc

    gc.disable()  # as ttopt-opt's own process (ttopt.cli.entry)
    if sys.path and sys.path[0] in ("", os.getcwd()):
        del sys.path[0]  # (-c put the working directory first; each child sets the client's)
    server = _Server(path)

    def tell(word: bytes) -> None:
        try:
            os.write(1, word)
        except OSError:
            pass
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)

    if not server.bind():
        tell(_BUSY)
        return
    try:
        _warm_up()
        gc.collect()
        gc.freeze()  # the children share these pages: no collection may write to them
        tell(_READY)
        server.serve()
    finally:
        server.stop()


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
