"""The resident ``ttopt-opt`` (``TTOPT_SERVER=1``, ttopt/server.py): a command run through it
behaves as the same command in a fresh process (output, errors, exit status, files, working
directory, environment, umask, signals), and the server never outlives its welcome.

Every server here lives in this test's temporary directory (``TTOPT_SERVER_DIR``) and is
stopped through its own socket at the end; nothing is killed by name."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ttopt import server

ROOT = Path(__file__).resolve().parent.parent
SMALL = ROOT / "test" / "fixtures" / "small"
ADD = SMALL / "add.ttir"
SOFTMAX = SMALL / "looped_softmax.ttir"
TOOL = Path(sys.executable).parent / "ttopt-opt"

pytestmark = pytest.mark.skipif(not TOOL.exists(), reason="ttopt-opt is not installed beside "
                                "this interpreter (pip install -e .)")

# A --load-pass plugin that reports where and how it ran (pid, cwd, an environment variable)
# and, asked to, sleeps: a command that can be watched and signalled mid-run.
PROBE_PASS = '''
import os, time
from dataclasses import dataclass
from typing import ClassVar
from ttopt.passes.base import ModulePass


@dataclass(frozen=True)
class Probe(ModulePass):
    name: ClassVar[str] = "probe"
    summary: ClassVar[str] = "(test) report the process, then sleep on request"

    def apply(self, ctx, op) -> None:
        with open(os.environ["PROBE_OUT"], "w") as f:
            f.write(f"{os.getpid()}\\n{os.getcwd()}\\n{os.environ.get('PROBE_VALUE')}\\n")
        time.sleep(float(os.environ.get("PROBE_SLEEP", "0")))
'''


@pytest.fixture
def sdir(tmp_path):
    """A private server directory; every server started there is stopped afterwards."""
    d = tmp_path / "srv"
    d.mkdir(mode=0o700)
    yield d
    for sock in d.glob("*.sock"):
        server.request("stop", str(sock), timeout=5)
    deadline = time.monotonic() + 20
    while list(d.glob("*.sock*")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not list(d.glob("*.sock*")), "a server did not stop"


def env_for(sdir, on: bool, **extra) -> dict:
    env = dict(os.environ)
    # (an idle limit: a server a failing test could not stop still goes within minutes)
    env.update({"TTOPT_SERVER": "1" if on else "0", "TTOPT_SERVER_DIR": str(sdir),
                "TTOPT_SERVER_IDLE": "120", **extra})
    return env


def tool(args, sdir, on=True, cwd=None, stdin=None, umask=None, **extra):
    def pre():
        if umask is not None:
            os.umask(umask)

    return subprocess.run([str(TOOL), *map(str, args)], env=env_for(sdir, on, **extra), cwd=cwd,
                          input=stdin, capture_output=True, timeout=120, preexec_fn=pre)


def the_server(sdir) -> dict:
    socks = list(sdir.glob("*.sock"))
    assert len(socks) == 1, socks
    reply = server.request("status", str(socks[0]))
    assert reply is not None
    return reply


CASES = {
    "stdout": [ADD, "--pass", "redundant-load"],
    "stats": [SOFTMAX, "--pass", "redundant-load,redundant-reduce,div-chain", "--stats"],
    "time-passes-absent-file": ["nope.ttir", "--time-passes"],
    "usage-error": [ADD, "--bogus"],
    "unknown-pass": [ADD, "--pass", "no-such-pass"],
    "version": ["--version"],
    "help": ["--help"],
    "list-passes": ["--list-passes"],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_as_a_fresh_process(sdir, name):
    args = CASES[name]
    fresh = tool(args, sdir, on=False)
    served = tool(args, sdir, on=True)
    assert (served.returncode, served.stdout, served.stderr) == \
        (fresh.returncode, fresh.stdout, fresh.stderr)
    the_server(sdir)  # it went through a server (the client did not fall back)


def test_stdin_errors_and_relative_paths(sdir, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "k.ttir").write_bytes(SOFTMAX.read_bytes())
    for args, stdin in ((["-", "--pass", "redundant-load"], SOFTMAX.read_bytes()),
                        (["-"], b"%x = garbage\n"),
                        (["k.ttir", "--pass", "div-chain", "-o", "out.ttir"], None)):
        fresh = tool(args, sdir, on=False, cwd=work, stdin=stdin)
        fresh_out = (work / "out.ttir").read_bytes() if (work / "out.ttir").exists() else None
        (work / "out.ttir").unlink(missing_ok=True)
        served = tool(args, sdir, on=True, cwd=work, stdin=stdin)
        served_out = (work / "out.ttir").read_bytes() if (work / "out.ttir").exists() else None
        assert (served.returncode, served.stdout, served.stderr, served_out) == \
            (fresh.returncode, fresh.stdout, fresh.stderr, fresh_out), args
    assert b"error" in tool(["-"], sdir, stdin=b"%x = garbage\n").stderr
    assert served_out is not None and b"arith.divf" in served_out


def test_one_server_serves_successive_commands(sdir, tmp_path):
    assert tool([ADD], sdir).returncode == 0
    first = the_server(sdir)["pid"]
    for _ in range(3):
        assert tool([ADD, "--pass", "redundant-load"], sdir).returncode == 0
    assert the_server(sdir)["pid"] == first


def test_the_command_runs_in_a_child_with_the_clients_cwd_env_and_umask(sdir, tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE_PASS)
    report = tmp_path / "report.txt"
    work = tmp_path / "work"
    work.mkdir()
    for mask, mode in ((0o077, 0o600), (0o022, 0o644)):
        out = work / f"out{mask:o}.ttir"
        res = tool([ADD, "--load-pass", probe, "-p", "probe", "-o", out.name], sdir, cwd=work,
                   umask=mask, PROBE_OUT=str(report), PROBE_VALUE=f"v{mask:o}")
        assert res.returncode == 0, res.stderr
        pid, cwd, value = report.read_text().splitlines()
        assert int(pid) != the_server(sdir)["pid"]  # a child, not the server itself
        assert (cwd, value) == (str(work), f"v{mask:o}")
        assert stat.S_IMODE(out.stat().st_mode) == mode


def test_a_signal_to_the_client_ends_the_child(sdir, tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE_PASS)
    report = tmp_path / "report.txt"
    out = tmp_path / "out.ttir"
    out.write_text("untouched\n")
    proc = subprocess.Popen(
        [str(TOOL), ADD, "--load-pass", probe, "-p", "probe", "-o", out],
        env=env_for(sdir, True, PROBE_OUT=str(report), PROBE_SLEEP="60"),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not report.exists() or not report.read_text().endswith("\n"):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.05)
    child = int(report.read_text().split()[0])
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == -signal.SIGTERM  # as the command itself would end
    deadline = time.monotonic() + 10
    while _alive(child):
        assert time.monotonic() < deadline, "the child outlived its client"
        time.sleep(0.05)
    assert out.read_text() == "untouched\n"
    assert the_server(sdir)["children"] == 0


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_closed_stdout_runs_in_process(sdir):
    res = subprocess.run(f"exec '{TOOL}' '{ADD}' >&-", shell=True, env=env_for(sdir, True),
                         capture_output=True, timeout=120)
    fresh = subprocess.run(f"exec '{TOOL}' '{ADD}' >&-", shell=True, env=env_for(sdir, False),
                           capture_output=True, timeout=120)
    assert (res.returncode, res.stderr) == (fresh.returncode, fresh.stderr) == \
        (1, b"<stdout>: error: standard output is closed\n")
    assert not list(sdir.glob("*.sock"))  # no server was needed


@pytest.mark.parametrize("bad", ["shared", "symlink"])
def test_a_directory_others_can_enter_is_not_used(tmp_path, bad):
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    sdir = tmp_path / "srv"
    if bad == "shared":
        sdir.mkdir()
        sdir.chmod(0o777)
    else:
        sdir.symlink_to(target)
    res = tool([ADD, "--pass", "redundant-load"], sdir)
    assert (res.returncode, res.stdout) == (0, tool([ADD, "--pass", "redundant-load"], sdir,
                                                     on=False).stdout)
    assert not list(target.glob("*")) and not list(tmp_path.glob("srv/*"))


def test_an_idle_server_exits_by_itself(sdir):
    assert tool([ADD], sdir, TTOPT_SERVER_IDLE="0.5").returncode == 0
    deadline = time.monotonic() + 30
    while list(sdir.glob("*.sock*")):
        assert time.monotonic() < deadline, "the idle server is still there"
        time.sleep(0.1)


def test_stop(sdir):
    assert tool([ADD], sdir).returncode == 0
    env = env_for(sdir, True)
    status = subprocess.run([sys.executable, "-m", "ttopt.server", "status"], env=env,
                            capture_output=True, text=True, timeout=60)
    assert status.returncode == 0 and status.stdout.startswith("ttopt server running: pid ")
    stop = subprocess.run([sys.executable, "-m", "ttopt.server", "stop"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert stop.returncode == 0 and stop.stdout.startswith("ttopt server stopping: pid ")
    deadline = time.monotonic() + 20
    while list(sdir.glob("*.sock*")):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    again = subprocess.run([sys.executable, "-m", "ttopt.server", "status"], env=env,
                           capture_output=True, text=True, timeout=60)
    assert again.returncode == 1 and again.stdout.startswith("no ttopt server at ")


def test_an_environment_that_changes_imports_gets_its_own_server():
    base = {"PATH": "/bin"}
    key = server.server_key(base)
    assert server.server_key({**base, "HOME": "/elsewhere"}) == key  # irrelevant to ttopt
    assert server.server_key({**base, "TTOPT_SERVER_IDLE": "5"}) == key
    for var in ("TTOPT_KEEP_TEXT", "TRITON_CACHE_DIR", "PYTHONHASHSEED", "LANG", "LC_ALL"):
        assert server.server_key({**base, var: "0"}) != key, var


def test_changed_code_gets_its_own_server(monkeypatch):
    key = server.server_key({})
    real = server._code_signature
    monkeypatch.setattr(server, "_code_signature", lambda: [*real(), ("edited", 1, 2)])
    assert server.server_key({}) != key


def test_batch_mode_and_worker_processes(sdir, tmp_path):
    """Batch mode's worker processes, started from the server's child, do as they do from a
    fresh process."""
    outs = {}
    for on in (False, True):
        out = tmp_path / f"out{int(on)}"
        res = tool([SMALL, "--output-dir", out, "--jobs", "2", "--pass", "redundant-load,div-chain",
                    "--stats"], sdir, on=on)
        outs[on] = (res.returncode, res.stderr,
                    {p.name: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()})
    assert outs[True] == outs[False]
    assert outs[True][0] == 0 and len(outs[True][2]) >= 10
    the_server(sdir)


# ------------------------------------------------------------------ the review's cases
def _wait(cond, what: str, limit: float = 30.0) -> None:
    deadline = time.monotonic() + limit
    while not cond():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] == "Z"
    except FileNotFoundError:
        return False


def _probe_run(sdir, tmp_path, name: str, sleep: str, out=None, **popen):
    """A client running the probe pass (reports its child's pid, then sleeps)."""
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE_PASS)
    report = tmp_path / f"{name}.report"
    out = out or tmp_path / f"{name}.ttir"
    proc = subprocess.Popen(
        [str(TOOL), ADD, "--load-pass", probe, "-p", "probe", "-o", out],
        env=env_for(sdir, True, PROBE_OUT=str(report), PROBE_SLEEP=sleep),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **popen)
    _wait(lambda: report.exists() and report.read_text().endswith("\n"), f"{name} did not start")
    return proc, int(report.read_text().split()[0]), out


def test_the_users_directory_is_not_on_the_import_path(sdir, tmp_path):
    """A module in the working directory is importable by the command exactly when it is in
    a fresh process (there: not, sys.path[0] is the script's directory), whatever the
    server imported before."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "k.ttir").write_bytes(ADD.read_bytes())
    planted = tmp_path / "planted"
    (work / "ttopt_planted_module.py").write_text(f"open({str(planted)!r}, 'a').write('x')\n")
    plugin = tmp_path / "plugin.py"
    plugin.write_text(PROBE_PASS.replace(
        "    def apply(self, ctx, op) -> None:\n",
        "    def apply(self, ctx, op) -> None:\n"
        "        try:\n            import ttopt_planted_module  # noqa: F401\n"
        "        except ImportError:\n            pass\n"))
    args = ["k.ttir", "--load-pass", plugin, "-p", "probe", "-o", "out.ttir"]
    fresh = tool(args, sdir, on=False, cwd=work, PROBE_OUT=str(tmp_path / "r1"))
    assert fresh.returncode == 0 and not planted.exists()
    served = tool(args, sdir, cwd=work, PROBE_OUT=str(tmp_path / "r2"))
    assert served.returncode == 0, served.stderr
    assert not planted.exists()
    the_server(sdir)


def test_a_signal_and_a_childs_end_in_one_round_do_not_stop_the_server(sdir, tmp_path):
    """One client's forwarded signal arriving with its child's exit (the server stopped in
    between): the server carries on, and another client's command finishes."""
    victim, _, victim_out = _probe_run(sdir, tmp_path, "victim", "4")
    server = the_server(sdir)["pid"]
    quick, quick_child, _ = _probe_run(sdir, tmp_path, "quick", "0.5")
    os.kill(server, signal.SIGSTOP)
    try:
        _wait(lambda: _zombie(quick_child), "the quick child did not end")
        quick.send_signal(signal.SIGTERM)  # forwarded: a byte waiting for the stopped server
        time.sleep(0.3)
    finally:
        os.kill(server, signal.SIGCONT)
    quick.wait(timeout=30)
    assert victim.wait(timeout=60) == 0, victim.stderr.read()
    assert b"tt.func" in victim_out.read_bytes()
    assert the_server(sdir)["pid"] == server


def test_a_server_told_to_stop_finishes_the_commands_it_runs(sdir, tmp_path):
    victim, _, victim_out = _probe_run(sdir, tmp_path, "victim", "2")
    server = the_server(sdir)["pid"]
    os.kill(server, signal.SIGTERM)
    assert victim.wait(timeout=60) == 0, victim.stderr.read()
    assert b"tt.func" in victim_out.read_bytes()
    _wait(lambda: not _alive(server), "the server did not stop")
    assert tool([ADD], sdir).returncode == 0  # a new one starts


def test_ignored_signals_stay_ignored(sdir, tmp_path):
    """`nohup`: a hang-up the client ignores does not end the command."""
    def ignore_hup():
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    proc, _, out = _probe_run(sdir, tmp_path, "nohup", "1.5", preexec_fn=ignore_hup)
    proc.send_signal(signal.SIGHUP)
    assert proc.wait(timeout=60) == 0, proc.stderr.read()
    assert b"tt.func" in out.read_bytes()


def test_other_limits_get_another_server(sdir):
    """Resource limits are inherited from the server, so a client with other limits gets a
    server of its own (started under its limits)."""
    import resource

    def lower():
        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 30, hard))

    assert tool([ADD], sdir).returncode == 0
    limited = subprocess.run([str(TOOL), ADD], env=env_for(sdir, True), capture_output=True,
                             timeout=120, preexec_fn=lower)
    assert limited.returncode == 0
    assert len(list(sdir.glob("*.sock"))) == 2


def test_descriptors_beyond_the_standard_three(sdir, tmp_path):
    """`ttopt-opt /dev/fd/3 3<k.ttir`, `<(...)`: the child has the client's descriptors at
    their numbers."""
    outs = []
    for on in (False, True):
        cmd = f"exec '{TOOL}' /dev/fd/3 --pass redundant-load 3<'{SOFTMAX}'"
        res = subprocess.run(["bash", "-c", cmd], env=env_for(sdir, on), capture_output=True,
                             timeout=120)
        outs.append((res.returncode, res.stdout, res.stderr))
    assert outs[0] == outs[1] and outs[0][0] == 0
    the_server(sdir)
    assert server._names_the_terminal(["ttopt-opt", "/dev/tty"])
    assert server._names_the_terminal(["ttopt-opt", "k.ttir", "--output=/dev/tty"])
    assert not server._names_the_terminal(["ttopt-opt", "k.ttir"])


def test_a_relative_directory_and_an_odd_idle_value(tmp_path):
    (tmp_path / "srv").mkdir(mode=0o700)
    res = tool([ADD], "srv", cwd=tmp_path, TTOPT_SERVER_IDLE="5m")
    assert res.returncode == 0, res.stderr
    socks = list((tmp_path / "srv").glob("*.sock"))
    assert len(socks) == 1
    assert server.request("stop", str(socks[0])) is not None


def test_bad_and_silent_connections_do_not_stop_the_server(sdir):
    import socket

    assert tool([ADD], sdir).returncode == 0
    sock_path = str(next(sdir.glob("*.sock")))
    pid = the_server(sdir)["pid"]
    silent = socket.socket(socket.AF_UNIX)
    silent.connect(sock_path)  # says nothing
    for junk in (server._encode([]), server._encode({"cmd": "run", "argv": 3}), b"\xff" * 8):
        bad = socket.socket(socket.AF_UNIX)
        bad.connect(sock_path)
        bad.sendall(junk)
        bad.close()
    t0 = time.monotonic()
    assert tool([ADD], sdir).returncode == 0
    assert time.monotonic() - t0 < 5  # not held up by the silent one
    assert the_server(sdir)["pid"] == pid
    silent.close()


def test_unbuffered_output_to_a_reader_that_leaves(sdir, tmp_path):
    """PYTHONUNBUFFERED: stdout is a raw file, whose write may take part of the output; a
    reader that stops early is a broken pipe in both modes, never a silent cut."""
    sys.path.insert(0, str(ROOT))
    try:
        from bench.big_module import build
    finally:
        sys.path.remove(str(ROOT))
    big = tmp_path / "big.ttir"
    big.write_text(build(0.3))
    codes = []
    for on in (False, True):
        cmd = f"'{TOOL}' '{big}' | head -c 100 > /dev/null; echo ${{PIPESTATUS[0]}}"
        res = subprocess.run(["bash", "-c", cmd], env=env_for(sdir, on, PYTHONUNBUFFERED="1"),
                             capture_output=True, text=True, timeout=300)
        codes.append(res.stdout.strip())
    assert codes == ["1", "1"]


def test_a_server_killed_mid_run_is_reported_once_the_command_has_ended(sdir, tmp_path):
    """The child holds the client's connection too: the client learns the server is gone
    only when the command has ended (not while it still writes its output)."""
    victim, child, out = _probe_run(sdir, tmp_path, "victim", "1.5")
    os.kill(the_server(sdir)["pid"], signal.SIGKILL)
    assert victim.wait(timeout=60) == 3
    assert not _alive(child) or _zombie(child)
    assert b"went away" in victim.stderr.read()
    assert b"tt.func" in out.read_bytes()
    for left in sdir.glob("*.sock*"):  # (a killed server leaves its socket and lock)
        left.unlink()


def test_a_server_that_does_not_answer_is_not_waited_for_and_runs_nothing_twice(sdir, tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE_PASS.replace('"w") as f', '"a") as f'))
    log = tmp_path / "runs.log"
    assert tool([ADD], sdir).returncode == 0
    pid = the_server(sdir)["pid"]
    os.kill(pid, signal.SIGSTOP)
    out, err = tmp_path / "out", tmp_path / "err"
    try:
        # (to files: descriptors queued in a stopped server's socket keep pipes open)
        with open(out, "wb") as o, open(err, "wb") as e:
            t0 = time.monotonic()
            code = subprocess.run([str(TOOL), ADD, "--load-pass", probe, "-p", "probe"],
                                  env=env_for(sdir, True, PROBE_OUT=str(log)), stdout=o,
                                  stderr=e, timeout=120).returncode
            waited = time.monotonic() - t0
    finally:
        os.kill(pid, signal.SIGCONT)
    assert code == 0 and b"tt.func" in out.read_bytes(), err.read_bytes()
    assert server.ACK_TIMEOUT_S <= waited < server.ACK_TIMEOUT_S + 30
    time.sleep(1.0)  # the server, running again, reads the abandoned request
    assert len(log.read_text().splitlines()) == 3  # one run (three lines), in the client
    assert the_server(sdir)["pid"] == pid


def test_interpreter_options_are_part_of_the_key(monkeypatch):
    key = server.server_key({})
    monkeypatch.setattr(sys, "warnoptions", ["error"])
    assert server.server_key({}) != key


def test_the_terminal_in_any_spelling():
    if not os.path.exists("/dev/tty"):
        pytest.skip("no /dev/tty on this machine")
    for argv in (["/dev/tty"], ["-o/dev/tty"], ["--output=/dev/tty"], ["/dev/./tty"],
                 ["k.ttir", "-o", "/dev/../dev/tty"]):
        assert server._names_the_terminal(["ttopt-opt", *argv]), argv
    assert not server._names_the_terminal(["ttopt-opt", "k.ttir", "-o", "/dev/null"])


def test_open_descriptors_without_proc(monkeypatch):
    """No /proc (some containers): the descriptors are found by probing each one."""
    real = server._open_fds()
    def no_proc(path):
        raise FileNotFoundError(path)
    monkeypatch.setattr(os, "listdir", no_proc)
    probed = server._open_fds()
    # (listing /proc opens one descriptor of its own while it lists)
    assert len(set(real) - set(probed)) <= 1 and set(probed) <= set(real)
    assert probed[:3] == [0, 1, 2]
