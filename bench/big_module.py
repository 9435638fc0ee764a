"""One large module of ordinary kernels, end to end: ``ttopt-opt`` (read, three passes, print)
against Triton's parse + verify, on the same file.

The module holds N copies of ``corpus/small/looped_softmax.ttir`` (loops, three reductions,
masked loads and stores, locations), each function renamed, up to ``--mb`` megabytes (10 by
default: the hardening issue's "any input under 10 MB answers in under 10 s").

    python -m bench.big_module [--mb 10] [--jobs N]... [--repeat R] [--keep FILE]

Reports the wall time and the peak RSS of each (Triton 3.6's parse + verify in a process of
its own; ttopt-opt with TTOPT_JOBS=1, then one worker per core: the largest process, and the
PSS summed over ttopt-opt and its workers at one time, sampled every 20 ms in a run of its
own, since sampling slows the run it samples).  Triton's time is the best of three runs,
ttopt's the best of ``--repeat`` (2) unsampled runs, each run shown.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "test" / "fixtures" / "small" / "looped_softmax.ttir"


def build(megabytes: float) -> str:
    """The module text: the kernel's function repeated (renamed) until ``megabytes``."""
    text = KERNEL.read_text()
    start = text.index("module {") + len("module {\n")
    end = text.rindex("\n} loc(")
    head, func, tail = text[:start], text[start:end], text[end:]
    name = re.search(r"tt\.func public @(\w+)", func).group(1)
    copies, size = [], len(head) + len(tail)
    while size < megabytes * 1e6:
        copy = func.replace(f"@{name}(", f"@{name}_{len(copies)}(")
        copies.append(copy)
        size += len(copy) + 1
    return head + "\n".join(copies) + tail


def _pss_kb(pid: int) -> int:
    """The proportional set size of ``pid`` (kB): its private pages plus its share of the
    pages it shares (a forked worker shares its parent's pages: RSS would count them twice)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _tree_pss_kb(root: int) -> int:
    """The summed PSS (kB) of process ``root`` and all its descendants (Linux /proc): the
    memory they use together."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += _pss_kb(pid)
        todo.extend(children.get(pid, []))
    return total


def measured(cmd: list[str], env=None, sample: bool = True) -> tuple[float, float, float, int, str, str]:
    """Run ``cmd``: (wall seconds, peak RSS of its largest process in MB (ru_maxrss of the
    children: the command and any worker processes it waited for), peak of the PSS summed over
    the command and all its descendants at one time in MB (sampled every 20 ms: the memory
    they use together, shared pages counted once; 0 with ``sample=False``), exit status,
    stdout, stderr).

    The sampling is not free: each sample walks the page tables of every process of the
    tree (``smaps_rollup``), in the kernel, taking their memory-map locks, on a core the
    command's workers would use.  On this 2-core machine it added ~3 s to a 9 s run with two
    workers: time a command with ``sample=False`` and sample a run of its own."""
    import resource
    import threading

    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    peak = [0]
    done = threading.Event()

    def sample():
        while not done.wait(0.02):
            peak[0] = max(peak[0], _tree_pss_kb(proc.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    if sample:
        sampler.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    done.set()
    if sample:
        sampler.join()
    largest = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if largest <= before:
        largest = peak[0]  # (an earlier child was larger: ru_maxrss keeps the maximum)
    return wall, largest / 1024, peak[0] / 1024, proc.returncode, out, err


def _triton(path: str) -> tuple[float, float, float]:
    """Triton 3.6's C++ parse + verify of ``path`` in a fresh process: (parse+verify seconds,
    the process's wall seconds, its peak RSS in MB)."""
    code = (
        "import sys, time\n"
        "from triton._C.libtriton import ir\n"
        "ctx = ir.context(); ir.load_dialects(ctx)\n"
        "t = time.perf_counter(); m = ir.parse_mlir_module(sys.argv[1], ctx); m.context = ctx\n"
        "assert m.verify(); print(time.perf_counter() - t)\n"
    )
    wall, rss, _tree, rc, out, err = measured([sys.executable, "-c", code, path], sample=False)
    if rc != 0:
        raise RuntimeError(err)
    return float(out.strip()), wall, rss


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=10.0)
    ap.add_argument("--jobs", type=int, action="append",
                    help="TTOPT_JOBS for ttopt-opt (repeatable; default: 1, then every core)")
    ap.add_argument("--keep", help="also write the module here")
    ap.add_argument("--repeat", type=int, default=2, help="timed runs of ttopt-opt per --jobs (the best is shown)")
    args = ap.parse_args(argv)
    text = build(args.mb)
    funcs = text.count("tt.func public")
    print(f"module: {len(text) / 1e6:.1f} MB, {funcs} kernels, {text.count(chr(10))} lines; "
          f"{os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "big.ttir")
        Path(src).write_text(text)
        if args.keep:
            Path(args.keep).write_text(text)
        t_parse, t_wall, t_rss = min(_triton(src) for _ in range(3))
        print(f"Triton parse + verify: {t_parse:.2f} s (its process: {t_wall:.2f} s, peak RSS {t_rss:.0f} MB)")
        for jobs in args.jobs or [1, os.cpu_count() or 1]:
            cmd = [
                sys.executable, "-c", "from ttopt.server import entry; entry()", src,  # (ttopt-opt)
                "-p", "redundant-load,redundant-reduce,div-chain", "--time-passes",
                "-o", os.path.join(d, "out.ttir"),
            ]
            env = {**os.environ, "TTOPT_JOBS": str(jobs)}
            runs = [measured(cmd, env=env, sample=False) for _ in range(args.repeat)]
            if any(r[3] != 0 for r in runs):
                print(next(r[5] for r in runs if r[3] != 0), file=sys.stderr)
                return 1
            wall, rss, _, _, _out, err = min(runs, key=lambda r: r[0])
            walls = ", ".join(f"{r[0]:.1f}" for r in runs)
            # the memory, in a run of its own (sampling slows the run it samples)
            _, _, tree, rc, _, _ = measured(cmd, env=env)
            if rc != 0:
                return 1
            print(f"ttopt-opt, TTOPT_JOBS={jobs}, end to end (start-up, read, 3 passes, print, write): "
                  f"{wall:.1f} s (best of {args.repeat}: {walls}) = {wall / t_parse:.1f}x Triton's "
                  f"parse + verify; peak RSS (a separate run, sampled): largest "
                  f"process {rss:.0f} MB = {rss / t_rss:.2f}x Triton's; PSS of all its processes at "
                  f"once {tree:.0f} MB = {tree / t_rss:.2f}x")
            for line in err.splitlines():
                if re.search(r"\d+\.\d+ \(", line):
                    print("    " + line.strip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
