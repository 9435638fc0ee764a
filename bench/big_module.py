"""One large module of ordinary kernels, end to end: ``ttopt-opt`` (read, three passes, print)
against Triton's parse + verify, on the same file.

The module holds N copies of ``corpus/small/looped_softmax.ttir`` (loops, three reductions,
masked loads and stores, locations), each function renamed, up to ``--mb`` megabytes (10 by
default: the hardening issue's "any input under 10 MB answers in under 10 s").

    python -m bench.big_module [--mb 10] [--keep FILE]
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


def _triton_seconds(path: str) -> float:
    code = (
        "import sys, time\n"
        "from triton._C.libtriton import ir\n"
        "ctx = ir.context(); ir.load_dialects(ctx)\n"
        "t = time.perf_counter(); m = ir.parse_mlir_module(sys.argv[1], ctx); m.context = ctx\n"
        "assert m.verify(); print(time.perf_counter() - t)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=10.0)
    ap.add_argument("--keep", help="also write the module here")
    args = ap.parse_args(argv)
    text = build(args.mb)
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "big.ttir")
        Path(src).write_text(text)
        if args.keep:
            Path(args.keep).write_text(text)
        cmd = [
            sys.executable, "-c", "from ttopt.cli import entry; entry()", src,
            "-p", "redundant-load,redundant-reduce,div-chain", "--time-passes",
            "-o", os.path.join(d, "out.ttir"),
        ]
        t = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - t
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return 1
        triton = _triton_seconds(src)
    funcs = text.count("tt.func public")
    print(f"module: {len(text) / 1e6:.1f} MB, {funcs} kernels, {text.count(chr(10))} lines")
    print(f"ttopt-opt end to end (start-up, read, 3 passes, print, write): {wall:.1f} s")
    for line in proc.stderr.splitlines():
        if re.search(r"\d+\.\d+ \(", line):
            print("  " + line.strip())
    print(f"Triton parse + verify: {triton:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
