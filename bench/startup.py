"""``ttopt-opt``'s start-up: how long a process takes before (and besides) the work.

    python -m bench.startup [--runs 15] [--out FILE] [--kernel test/fixtures/small/add.ttir]

Each command runs ``--runs`` times as a fresh process, the commands interleaved (round-robin,
so that a busy moment of the machine hits them all alike); reported: min, median, p90 wall
time.  The commands:

* ``python -c pass``: the interpreter and its ``site`` (with ttopt installed in editable
  mode, site runs setuptools' editable finder): the floor for any Python tool;
* ``import ttopt.cli``: what every ``ttopt-opt`` pays before parsing its arguments;
* ``ttopt-opt --version``, ``--help``: the console script, no xDSL;
* ``ttopt-opt KERNEL --pass redundant-load -o /dev/null``: a small kernel end to end;
  its *start-up* is the wall time less the work ``--time-passes`` reports (read, passes,
  print), i.e. imports and process overhead;
* ``import ttopt.pipeline``: xDSL and ttopt's dialects, passes, reader and writer;
* ``--version`` and the small kernel with ``TTOPT_SERVER=1`` (:mod:`ttopt.server`): the
  client handing the command to a resident server started (in a temporary directory) before
  the first measured run, and stopped at the end.

Then ``-X importtime`` of the end-to-end command (the minimum over ``--runs`` runs per module):
the modules that cost the most, cumulative, by the ttopt module that imports them first.
The issue's target: ``--version`` and the small kernel end to end within 0.3 s of start-up.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from ttopt.server import request

ROOT = pathlib.Path(__file__).resolve().parent.parent
KERNEL = ROOT / "test" / "fixtures" / "small" / "add.ttir"
TARGET_S = 0.3


def _tool() -> list[str]:
    """The console script next to this interpreter (as installed), else ``python -m``."""
    script = pathlib.Path(sys.executable).parent / "ttopt-opt"
    if script.exists():
        return [str(script)]
    found = shutil.which("ttopt-opt")
    return [found] if found else [sys.executable, "-m", "ttopt.cli"]


SERVED = {"TTOPT_SERVER": "1"}


def commands(kernel: pathlib.Path) -> dict[str, tuple[list[str], dict[str, str]]]:
    """name -> (command, what it adds to the environment)."""
    py, tool = sys.executable, _tool()
    plain = {
        "python -c pass": [py, "-c", "pass"],
        "import ttopt.cli": [py, "-c", "import ttopt.cli"],
        "ttopt-opt --version": [*tool, "--version"],
        "ttopt-opt --help": [*tool, "--help"],
        "small kernel end to end": [*tool, str(kernel), "--pass", "redundant-load", "-o", "/dev/null",
                                    "--time-passes"],
        "import ttopt.pipeline": [py, "-c", "import ttopt.pipeline"],
    }
    cmds = {name: (cmd, {}) for name, cmd in plain.items()}
    cmds["ttopt-opt --version, server"] = (plain["ttopt-opt --version"], SERVED)
    cmds["small kernel end to end, server"] = (plain["small kernel end to end"], SERVED)
    return cmds


_TOTAL = re.compile(r"Total Execution Time: ([0-9.]+) seconds")


def _env() -> dict[str, str]:
    """The environment of the measured processes: bytecode caches allowed (an installed
    ttopt has them; with ``PYTHONDONTWRITEBYTECODE`` set, every module edited since its
    ``.pyc`` was written would be compiled again in every run)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def measure(cmds, runs: int, server_dir: str) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Wall times per command, and the work (--time-passes) of each end-to-end run (after
    one unmeasured run of each, which writes the bytecode caches and starts the server)."""
    times: dict[str, list[float]] = {name: [] for name in cmds}
    work: dict[str, list[float]] = {}
    base = _env()
    base.pop("TTOPT_SERVER", None)
    base["TTOPT_SERVER_DIR"] = server_dir
    envs = {name: {**base, **extra} for name, (_cmd, extra) in cmds.items()}
    for name, (cmd, _extra) in cmds.items():
        subprocess.run(cmd, capture_output=True, env=envs[name])
    for _ in range(runs):
        for name, (cmd, _extra) in cmds.items():
            t0 = time.perf_counter()
            r = subprocess.run(cmd, capture_output=True, text=True, env=envs[name])
            times[name].append(time.perf_counter() - t0)
            if r.returncode != 0:
                raise SystemExit(f"{name}: exit {r.returncode}: {r.stderr[-2000:]}")
            m = _TOTAL.search(r.stderr)
            if m:
                work.setdefault(name, []).append(float(m.group(1)))
    return times, work


def _q(values: list[float], q: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]


def import_breakdown(cmd: list[str], runs: int, top: int = 25) -> list[tuple[str, float, float, str]]:
    """(module, cumulative ms, self ms, first ttopt importer) from ``-X importtime``, the
    minimum over ``runs`` runs, the ``top`` most expensive (a module's cumulative time
    includes the modules listed under it)."""
    best: dict[str, tuple[float, float]] = {}
    owner: dict[str, str] = {}
    for _ in range(runs):
        r = subprocess.run([sys.executable, "-X", "importtime", *cmd], capture_output=True, text=True, env=_env())
        stack: list[tuple[int, str]] = []
        rows = []
        for line in r.stderr.splitlines():
            m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
            if m:
                rows.append((m.group(4), int(m.group(1)) / 1000, int(m.group(2)) / 1000, len(m.group(3)) // 2))
        # importtime prints children before their parent: walk backwards to find parents
        for name, self_ms, cum_ms, depth in reversed(rows):
            while stack and stack[-1][0] >= depth:
                stack.pop()
            parent = next((n for _d, n in reversed(stack) if n.startswith("ttopt")), "-")
            owner.setdefault(name, parent)
            stack.append((depth, name))
            old = best.get(name)
            best[name] = (cum_ms, self_ms) if old is None else (min(old[0], cum_ms), min(old[1], self_ms))
    rows = sorted(best.items(), key=lambda kv: -kv[1][0])
    out = []
    for name, (cum, self_ms) in rows:
        if name.startswith(("encodings", "site", "_", "__editable")):
            continue
        out.append((name, cum, self_ms, owner.get(name, "-")))
        if len(out) >= top:
            break
    return out


def report(times: dict[str, list[float]], works: dict[str, list[float]], breakdown, runs: int) -> str:
    lines = [f"ttopt-opt start-up ({runs} runs each, interleaved; wall time)", "",
             "| command | min | median | p90 |", "|---|---|---|---|"]
    for name, ts in times.items():
        lines.append(f"| {name} | {min(ts) * 1000:.0f} ms | {statistics.median(ts) * 1000:.0f} ms "
                     f"| {_q(ts, 0.9) * 1000:.0f} ms |")
    for name, work in works.items():
        startup = [t - w for t, w in zip(times[name], work)]
        label = name.replace("end to end", "").rstrip(", ").replace("kernel ", "kernel")
        lines.append(f"| {label}: start-up (wall less --time-passes work) | {min(startup) * 1000:.0f} ms "
                     f"| {statistics.median(startup) * 1000:.0f} ms | {_q(startup, 0.9) * 1000:.0f} ms |")
        lines.append(f"| {label}: the work itself (read, pass, print) | {min(work) * 1000:.0f} ms "
                     f"| {statistics.median(work) * 1000:.0f} ms | {_q(work, 0.9) * 1000:.0f} ms |")
    lines.append("")
    for name in ("ttopt-opt --version", "ttopt-opt --version, server"):
        med = statistics.median(times[name])
        lines.append(f"target {TARGET_S} s: {name} median {med:.3f} s ({'met' if med <= TARGET_S else 'NOT met'})")
    for name, work in works.items():
        med = statistics.median(t - w for t, w in zip(times[name], work))
        lines.append(f"target {TARGET_S} s: {name.replace('end to end', 'start-up')} median {med:.3f} s "
                     f"({'met' if med <= TARGET_S else 'NOT met'}); end to end median "
                     f"{statistics.median(times[name]):.3f} s")
    if breakdown:
        lines += ["", "Imports of the end-to-end run (-X importtime, min over runs; cumulative includes "
                  "what the module imports first):", "",
                  "| module | cumulative | self | first imported under |", "|---|---|---|---|"]
        for name, cum, self_ms, parent in breakdown:
            lines.append(f"| {name} | {cum:.1f} ms | {self_ms:.1f} ms | {parent} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.startup", description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--kernel", type=pathlib.Path, default=KERNEL)
    ap.add_argument("--no-imports", action="store_true", help="skip the -X importtime breakdown")
    ap.add_argument("--out", type=pathlib.Path, default=None, help="also write the report here")
    args = ap.parse_args(argv)
    cmds = commands(args.kernel)
    with tempfile.TemporaryDirectory(prefix="ttopt-startup-") as server_dir:
        os.chmod(server_dir, 0o700)
        try:
            times, work = measure(cmds, args.runs, server_dir)
        finally:
            for sock in pathlib.Path(server_dir).glob("*.sock"):
                request("stop", str(sock))
    breakdown = None
    if not args.no_imports:
        breakdown = import_breakdown(["-m", "ttopt.cli", str(args.kernel), "--pass", "redundant-load",
                                      "-o", "/dev/null"], max(3, args.runs // 3))
    text = report(times, work, breakdown, args.runs)
    sys.stdout.write(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
