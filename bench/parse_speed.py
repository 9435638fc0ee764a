"""Time ttopt's parse + passes + print against Triton's C++ parser + verifier + printer.

    python -m bench.parse_speed [--every N] [--repeat R] [--passes P,Q] [--extra GLOB]...
                                [--profile] [--json OUT] [--clock wall|cpu]
                                [--triton-context fresh|shared]

For each corpus file (every N-th, sorted), and each file of the ``--extra`` globs (kernels
not in the corpus), in one process:
  ttopt : ttopt.optimize(text, PASSES)   (read + verify + the passes + print; by default the
                                          paper's three: redundant-load, redundant-reduce,
                                          div-chain; --passes '' for a round trip)
  triton: ir.parse_mlir_module(path) + verify() + str()     (Triton 3.6's own C++)
Each is run R times; the best time per file is kept (warm caches, least noise); before each
run, outside its time, the garbage of earlier runs is collected and ttopt's shared type
cache emptied (each file timed as if it were the only one read: see ``cold``).  Triton's
runs are alike (``--triton-context fresh``, the default): each parses into a context of its
own, made (its dialects loaded) outside the time, as ``triton-opt`` does for a file and
``triton.compile`` for a kernel; ``--triton-context shared`` parses every file into one
context, which keeps the types and attributes of every file read before (Triton warm,
ttopt cold: the protocol until 2026-11-27, ~15-20% less time for Triton).  Prints, per
group (corpus, extra), the ratio of total times and the per-file distribution of ratios, and
(with --profile) where ttopt's time goes.  Target (the speed issue): at most 5x Triton's time,
on the total and the median.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
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


def cold() -> None:
    """Before each timed run, outside its time: the reader's cross-module type cache
    emptied, so each file is timed as the only one read (as one ``ttopt-opt`` process per
    file; a batch or the hook shares types between kernels, and Triton's context here keeps
    its types too), and the garbage of the runs before collected (a previous file's module
    is cyclic garbage: collecting it is not this file's work; a single-file process never
    does it, a batch does, between files)."""
    from ttopt.ir.reader import clear_shared_types

    clear_shared_types()
    gc.collect()


CLOCK = time.perf_counter
"""What a run is timed with: wall time, or (``--clock cpu``) the process's CPU time, which
other jobs on a shared machine move less (both sides are timed alike)."""


def triton_context():
    """A new context of Triton's, its dialects (and NVIDIA's) loaded."""
    from triton._C.libtriton import ir, nvidia

    ctx = ir.context()
    ir.load_dialects(ctx)
    nvidia.load_dialects(ctx)
    return ctx


def triton_round_trip(ir, path: str, ctx) -> str:
    """Triton's parse + verify + print of the file at ``path`` in ``ctx`` (``ir``: Triton's
    ``triton._C.libtriton.ir``, imported by the caller: nothing but the work in the time)."""
    mod = ir.parse_mlir_module(path, ctx)
    mod.context = ctx
    assert mod.verify()
    return mod.str()


def best_of(fn, repeat: int, setup=cold) -> float:
    best = float("inf")
    clock = CLOCK
    for _ in range(repeat):
        setup()
        t = clock()
        fn()
        best = min(best, clock() - t)
    return best


def report(group: str, rows: list[dict], every: int) -> None:
    ratios = sorted(r["ratio"] for r in rows)
    tot_ttopt = sum(r["ttopt_ms"] for r in rows)
    tot_triton = sum(r["triton_ms"] for r in rows)
    q = lambda f: ratios[min(len(ratios) - 1, int(f * len(ratios)))]  # noqa: E731
    label = f"every {every}th corpus file" if group == "corpus" else "--extra files"
    print(f"[{group}] files: {len(rows)} ({label}), {sum(r['lines'] for r in rows)} lines")
    print(f"  ttopt                   : {tot_ttopt:9.1f} ms total, {tot_ttopt / len(rows):6.2f} ms/file")
    print(f"  triton parse+verify+print: {tot_triton:9.1f} ms total, {tot_triton / len(rows):6.2f} ms/file")
    print(f"  ratio of totals         : {tot_ttopt / tot_triton:.2f}x")
    print(f"  per-file ratio          : min {ratios[0]:.2f}x, p10 {q(0.1):.2f}x, median "
          f"{statistics.median(ratios):.2f}x, p90 {q(0.9):.2f}x, max {ratios[-1]:.2f}x")
    print(f"  files over 5x           : {sum(r > 5 for r in ratios)} of {len(rows)}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--every", type=int, default=10, help="take every N-th corpus file")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--profile", action="store_true", help="profile ttopt over the sample")
    ap.add_argument("--json", help="write per-file results here")
    ap.add_argument("--passes", default="redundant-load,redundant-reduce,div-chain",
                    help="comma-separated passes ('' for a round trip)")
    ap.add_argument("--extra", action="append", default=[], metavar="GLOB",
                    help="also these files (relative to the repository), reported apart")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="time with the wall clock (default) or the process's CPU time")
    ap.add_argument("--triton-context", choices=("fresh", "shared"), default="fresh",
                    help="each Triton run in a new context (default), or every file in one")
    args = ap.parse_args(argv)
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    passes = [p for p in args.passes.split(",") if p]

    import ttopt
    from triton._C.libtriton import ir

    triton = {"ctx": triton_context()}

    def triton_setup() -> None:
        """Before each Triton run, outside its time: the garbage collected, as for ttopt's
        runs, and (``--triton-context fresh``) a new context, the last one freed."""
        if args.triton_context == "fresh":
            triton["ctx"] = None
            triton["ctx"] = triton_context()
        gc.collect()

    groups = {"corpus": [(p, str(p.relative_to(CORPUS))) for p in corpus(args.every)]}
    extra = sorted({p for g in args.extra for p in ROOT.glob(g) if p.is_file()})
    if extra:
        groups["extra"] = [(p, str(p.relative_to(ROOT))) for p in extra]
    groups = {g: files for g, files in groups.items() if files}  # (no corpus beside: none)
    if not groups:
        ap.error(f"no files: no corpus at {CORPUS} and no --extra file")
    texts = {p: p.read_text() for files in groups.values() for p, _ in files}
    first = next(iter(texts))
    ttopt.optimize(texts[first], passes)  # warm up imports and caches
    gc.collect()
    gc.freeze()  # (what is there now stays: each collection before a run walks that run's objects only)
    rows = []
    what = "+".join(["parse+verify", *passes, "print"]) if passes else "parse+verify+print"
    print(f"ttopt: {what}; triton: parse+verify+print (best of {args.repeat} each, "
          f"{args.clock} time; Triton: {args.triton_context} context)")
    for group, files in groups.items():
        group_rows = []
        for p, name in files:
            t_ttopt = best_of(lambda: ttopt.optimize(texts[p], passes, str(p)), args.repeat)
            t_triton = best_of(lambda: triton_round_trip(ir, str(p), triton["ctx"]), args.repeat,
                               triton_setup)
            group_rows.append(
                {
                    "group": group,
                    "file": name,
                    "lines": texts[p].count("\n"),
                    "ttopt_ms": t_ttopt * 1e3,
                    "triton_ms": t_triton * 1e3,
                    "ratio": t_ttopt / t_triton,
                }
            )
        report(group, group_rows, args.every)
        rows.extend(group_rows)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1))
    if args.profile:
        from ttopt import pipeline

        # (the work runs on the pipeline's worker thread, which cProfile does not see: run
        # it on this thread, as a call from that thread would, for the profile)
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
        pipeline._tls.deep = True  # noqa: SLF001
        prof = cProfile.Profile()
        prof.enable()
        try:
            for p in texts:
                ttopt.optimize(texts[p], passes, str(p))
        finally:
            prof.disable()
            pipeline._tls.deep = False  # noqa: SLF001
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(25)
        print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
