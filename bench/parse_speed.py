"""Time ttopt's round trip (parse + print) against Triton's C++ parser + verifier + printer.

    python -m bench.parse_speed [--every N] [--repeat R] [--profile] [--json OUT]

For each corpus file (every N-th, sorted), in one process:
  ttopt : ttopt.optimize(text, [])                          (read + xDSL parse + print)
  triton: ir.parse_mlir_module(path) + verify() + str()     (Triton 3.6's own C++)
Each is run R times; the best time per file is kept (warm caches, least noise).  Prints the
ratio of total times, the median and worst per-file ratios, and (with --profile) where
ttopt's time goes.  Target (issue #2): at most 10x Triton's time per file.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pathlib
import pstats
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"


def corpus(every: int) -> list[pathlib.Path]:
    files = sorted(list(CORPUS.rglob("*.ttir")) + list(CORPUS.rglob("*.ttgir")))
    return files[::every]


def cold(fn, *args):
    """``fn(*args)`` with the reader's cross-module type cache emptied first: each file is
    timed as the only one read (as one ``ttopt-opt`` process per file; a batch or the hook
    shares types between kernels, and Triton's context here keeps its types too)."""
    from ttopt.ir.reader import clear_shared_types

    clear_shared_types()
    return fn(*args)


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--every", type=int, default=10, help="take every N-th corpus file")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--profile", action="store_true", help="profile ttopt over the sample")
    ap.add_argument("--json", help="write per-file results here")
    args = ap.parse_args(argv)

    import ttopt
    from triton._C.libtriton import ir, nvidia

    ctx = ir.context()
    ir.load_dialects(ctx)
    nvidia.load_dialects(ctx)

    def triton_round_trip(path: str):
        mod = ir.parse_mlir_module(path, ctx)
        mod.context = ctx
        assert mod.verify()
        return mod.str()

    files = corpus(args.every)
    texts = {p: p.read_text() for p in files}
    ttopt.optimize(texts[files[0]], [])  # warm up imports and caches
    rows = []
    for p in files:
        t_ttopt = best_of(lambda: cold(ttopt.optimize, texts[p], [], str(p)), args.repeat)
        t_triton = best_of(lambda: triton_round_trip(str(p)), args.repeat)
        rows.append(
            {
                "file": str(p.relative_to(CORPUS)),
                "lines": texts[p].count("\n"),
                "ttopt_ms": t_ttopt * 1e3,
                "triton_ms": t_triton * 1e3,
                "ratio": t_ttopt / t_triton,
            }
        )
    ratios = [r["ratio"] for r in rows]
    tot_ttopt = sum(r["ttopt_ms"] for r in rows)
    tot_triton = sum(r["triton_ms"] for r in rows)
    print(f"files: {len(rows)} (every {args.every}th corpus file), {sum(r['lines'] for r in rows)} lines")
    print(f"ttopt  parse+print        : {tot_ttopt:9.1f} ms total, {tot_ttopt / len(rows):6.2f} ms/file")
    print(f"triton parse+verify+print : {tot_triton:9.1f} ms total, {tot_triton / len(rows):6.2f} ms/file")
    print(f"ratio of totals           : {tot_ttopt / tot_triton:.2f}x")
    print(f"per-file ratio            : median {statistics.median(ratios):.2f}x, "
          f"p90 {sorted(ratios)[int(0.9 * len(ratios))]:.2f}x, max {max(ratios):.2f}x")
    over = [r for r in rows if r["ratio"] > 10]
    print(f"files over 10x            : {len(over)} of {len(rows)}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1))
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        for p in files:
            ttopt.optimize(texts[p], [], str(p))
        prof.disable()
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(25)
        print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
