"""Pathological inputs: ttopt must answer (accept or reject) in time linear in the input.

    python -m bench.pathological [--out bench/results/pathological.txt]
    python -m bench.pathological --command [--out bench/results/pathological_10mb.txt]

For each shape of input that once hung ttopt or made it super-linear, at several sizes: the
wall time of ttopt's whole pipeline (read, the three passes, print; errors included) and of
Triton 3.6's parse + verify of the same text, and the log-log slope of ttopt's time against
the input size (1.0 = linear; Triton's own parser is super-linear on deep nesting).  The
hardening target: every input under 10 MB answers in under 10 s on the project's 2-core machine.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time

import ttopt
from ttopt.pipeline import run_pipeline

PASSES = ["redundant-load", "redundant-reduce", "div-chain"]


def unterminated(n: int) -> str:
    return f'module {{\n  tt.func public @k() {{\n    tt.print "{"x" * n}\n    tt.return\n  }}\n}}\n'


def dense(n: int) -> str:
    vals = ", ".join(f"{i * 0.25:.2f}" for i in range(n))
    return (f"module {{\n  tt.func public @k() {{\n    %c = arith.constant dense<[{vals}]> : "
            f"tensor<{n}xf32>\n    tt.return\n  }}\n}}\n")


def one_line(n: int) -> str:
    ops = "".join(f" %v{i} = arith.addi %v{i - 1}, %v{i - 1} : i32" for i in range(1, n))
    return "module { tt.func public @k(%v0: i32) {" + ops + " tt.return } }"


def many_lines(n: int) -> str:
    ops = "".join(f"\n    %v{i} = arith.addi %v{i - 1}, %v{i - 1} : i32" for i in range(1, n))
    return "module {\n  tt.func public @k(%v0: i32) {" + ops + "\n    tt.return\n  }\n}\n"


def nested_ifs(n: int) -> str:
    lines = ["module {", "  tt.func public @k(%c: i1) {"]
    lines += ["    scf.if %c {"] * n + ["    }"] * n
    return "\n".join(lines + ["    tt.return", "  }", "}", ""])


def nested_ptr(n: int) -> str:
    t = "!tt.ptr<" * n + "f32" + ">" * n
    return f"module {{\n  tt.func public @k(%p: {t}) {{\n    tt.return\n  }}\n}}\n"


def spaces(n: int) -> str:
    return ("module {\n  tt.func public @k() {\n    %c = arith.constant" + " " * n +
            "1 : i32\n    tt.return\n  }\n}\n")


def cf_blocks(n: int) -> str:
    """One function of ``n`` blocks, each a store and a ``cf.cond_br`` (bench.scaling's)."""
    from bench.scaling import cf_blocks as build

    return build(3 * n + 6)


def or_masks(n: int) -> str:
    """One address loaded ``n`` times, each under the ``ori`` of the mask before and one more
    comparison, a store every 7 loads: ``redundant-load``'s mask implication on a chain."""
    t, p, it = "tensor<128xi1>", "tensor<128x!tt.ptr<f32>>", "tensor<128xi32>"
    out = ["module {", "  tt.func public @k(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>) {",
           f"    %r = tt.make_range {{end = 128 : i32, start = 0 : i32}} : {it}",
           f"    %s = tt.splat %p : !tt.ptr<f32> -> {p}",
           f"    %a = tt.addptr %s, %r : {p}, {it}",
           f"    %t = tt.splat %q : !tt.ptr<f32> -> {p}",
           f"    %b = tt.addptr %t, %r : {p}, {it}",
           f"    %c0 = arith.constant dense<0> : {it}",
           f"    %m0 = arith.cmpi sgt, %r, %c0 : {it}"]
    for i in range(1, n):
        out += [f"    %c{i} = arith.constant dense<{i}> : {it}",
                f"    %k{i} = arith.cmpi slt, %r, %c{i} : {it}",
                f"    %m{i} = arith.ori %m{i - 1}, %k{i} : {t}",
                f"    %l{i} = tt.load %a, %m{i} : {p}"]
        if i % 7 == 0:
            out.append(f"    tt.store %b, %l{i} : {p}")
    return "\n".join(out + ["    tt.return", "  }", "}", ""])


SHAPES = {
    # name: (builder, sizes)
    "unterminated string": (unterminated, [100_000, 1_000_000, 5_000_000]),
    "dense literal": (dense, [10_000, 100_000, 1_000_000]),
    "module on one line": (one_line, [2_000, 8_000, 32_000]),
    "ops, one per line": (many_lines, [2_000, 8_000, 32_000]),
    "nested scf.if": (nested_ifs, [250, 500, 1_000]),
    "nested !tt.ptr": (nested_ptr, [500, 2_000, 8_000]),
    "run of spaces": (spaces, [100_000, 1_000_000, 5_000_000]),
    "cf blocks": (cf_blocks, [5_000, 20_000, 80_000]),
    "ori-chained masks": (or_masks, [1_000, 4_000, 16_000]),
}


def time_ttopt(text: str) -> tuple[float, str]:
    import gc

    gc.collect()  # (the garbage of the inputs before, outside this one's time)
    t0 = time.perf_counter()
    try:
        run_pipeline(text, PASSES, "<bench>")
        outcome = "accepted"
    except ttopt.TTOptError as e:
        outcome = "rejected: " + e.message[:50]
    return time.perf_counter() - t0, outcome


def time_triton(text: str) -> float | None:
    try:
        from ttopt.oracle import _context
        from triton._C.libtriton import ir
    except ImportError:
        return None
    fd, path = tempfile.mkstemp(suffix=".ttir")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    try:
        t0 = time.perf_counter()
        try:
            mod = ir.parse_mlir_module(path, _context())
            mod.context = _context()
            mod.verify()
        except RuntimeError:
            pass
        return time.perf_counter() - t0
    finally:
        os.unlink(path)


def ten_mb(build, size: int, limit: float = 10e6) -> str:
    """The largest input of ``build``'s shape under ``limit`` bytes (sizes scaled from
    ``size``; the nesting shapes stay at the depth Triton takes)."""
    text = build(size)
    n = int(size * limit / len(text))
    while True:
        text = build(n)
        if len(text) < limit:
            return text
        n = int(n * 0.98)


def time_command(text: str) -> tuple[float, int]:
    """Wall time and exit status of ``ttopt-opt`` (the installed command's entry: start-up,
    read, the three passes, print, write) on ``text``."""
    import subprocess

    with tempfile.TemporaryDirectory() as d:
        src, out = os.path.join(d, "in.ttir"), os.path.join(d, "out.ttir")
        with open(src, "w") as f:
            f.write(text)
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-c", "from ttopt.server import entry; entry()", src,
             "-p", ",".join(PASSES), "-o", out], capture_output=True,
        )
        return time.perf_counter() - t0, proc.returncode


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="also write the table to this file")
    ap.add_argument("--passes", default=",".join(PASSES),
                    help="the pipeline (a -p value: 'all' for every pass; default the three)")
    ap.add_argument("--only", action="append", metavar="SHAPE",
                    help="only these shapes (by name; repeatable)")
    ap.add_argument("--command", action="store_true",
                    help="instead: each shape at its largest size under 10 MB, through the "
                    "ttopt-opt command end to end (the hardening target: under 10 s)")
    args = ap.parse_args(argv)
    PASSES[:] = args.passes.split(",")
    shapes = {k: v for k, v in SHAPES.items() if not args.only or k in args.only}
    flags = "".join(f"--only '{k}' " for k in args.only or ()) + (
        f"--passes {args.passes} " if args.passes != "redundant-load,redundant-reduce,div-chain" else "")
    if args.command:
        rows = [f"{'input':22s} {'bytes':>10s} {'ttopt-opt s':>11s}  exit"]
        for name, (build, sizes) in shapes.items():
            big = name.startswith("nested")  # (depth: Triton's own limit, not bytes)
            text = build(sizes[-1]) if big else ten_mb(build, sizes[-1])
            t, rc = time_command(text)
            rows.append(f"{name:22s} {len(text):10d} {t:11.2f}  {rc}")
            print(rows[-1], file=sys.stderr, flush=True)
        return _report(rows, args.out, "--command " + flags)
    rows = [f"{'input':22s} {'size':>9s} {'bytes':>10s} {'ttopt s':>8s} {'triton s':>8s}  outcome"]
    for name, (build, sizes) in shapes.items():
        points = []
        for n in sizes:
            text = build(n)
            t, outcome = time_ttopt(text)
            tri = time_triton(text)
            points.append((len(text), t))
            rows.append(f"{name:22s} {n:9d} {len(text):10d} {t:8.2f} "
                        f"{'-' if tri is None else f'{tri:8.3f}':>8s}  {outcome}")
            print(rows[-1], file=sys.stderr, flush=True)
        (b0, t0), (b1, t1) = points[0], points[-1]
        slope = math.log(max(t1, 1e-6) / max(t0, 1e-6)) / math.log(b1 / b0)
        rows.append(f"{'':22s} log-log slope of ttopt's time against bytes: {slope:.2f}")
    return _report(rows, args.out, flags)


def _report(rows: list[str], out: str | None, flags: str) -> int:
    """Print the table, and write it to ``out`` under the command that made it."""
    table = "\n".join(rows) + "\n"
    print(table)
    if out:
        with open(out, "w") as f:
            f.write(f"$ python -m bench.pathological {flags}--out {out}\n" + table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
