"""Time the CPU interpreter (ttopt.interp) on a sample of corpus kernels.

    python -m bench.interp_speed [--n 50] [--sample-seed 0] [--repeat 3] [--pid 1,0,0]
                                 [--num-programs 4,4,4] [--all] [--json OUT] [--gpu-numerics]

For each kernel of a deterministic sample (``--n`` files drawn with ``--sample-seed`` from the
sorted corpus; ``--all`` for every file): the time to read it (``read_module``), to compile and
run one program instance (``run_kernel`` on the parsed module, first run: compiles), to run
it again (``rerun``: compiled, as ``compare`` does for each seed and program id), and what
``ttopt-opt -p default --validate`` adds to a run (``validate``: the kernel against its
``default`` output, both read and compiled, 3 seeds x 3 program ids, bit for bit); the best of
``--repeat``.  Prints a table and the median / 90th percentile / max of the run times.  No
assertion: a report.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import random
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"


def sample(n: int, seed: int, everything: bool) -> list[pathlib.Path]:
    files = sorted(list(CORPUS.rglob("*.ttir")) + list(CORPUS.rglob("*.ttgir")))
    if everything or n >= len(files):
        return files
    return sorted(random.Random(seed).sample(files, n))


def best_of(fn, repeat: int):
    best = float("inf")
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def _triple(text: str):
    return tuple(int(x) for x in text.split(","))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=50, help="number of corpus kernels to sample")
    ap.add_argument("--sample-seed", type=int, default=0)
    ap.add_argument("--all", action="store_true", help="every corpus file")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--pid", default="1,0,0")
    ap.add_argument("--num-programs", default="4,4,4")
    ap.add_argument("--json", help="write per-kernel results here")
    ap.add_argument("--gpu-numerics", action="store_true", help="fp_contract=True, reduce_order='gpu'")
    args = ap.parse_args(argv)

    import ttopt
    from ttopt.batch import validate
    from ttopt.interp import Program, run_kernel
    from ttopt.ir.reader import read_module

    if not CORPUS.is_dir():
        print(f"no corpus at {CORPUS}", file=sys.stderr)
        return 2
    files = sample(args.n, args.sample_seed, args.all)
    pid, nprog = _triple(args.pid), _triple(args.num_programs)
    rows = []
    print(f"{'kernel':<72} {'ops':>5} {'read ms':>8} {'run ms':>8} {'rerun ms':>8} {'valid. ms':>9} {'written B':>10}")
    for path in files:
        text = path.read_text()
        rel = str(path.relative_to(CORPUS))
        name = rel if len(rel) <= 72 else "..." + rel[-69:]
        try:
            t_read, mod = best_of(lambda: read_module(text, str(path)), args.repeat)
            nops = sum(1 for _ in mod.op.walk())

            model = dict(fp_contract=True, reduce_order="gpu") if args.gpu_numerics else {}

            def first():
                return run_kernel(mod, pids=pid, num_programs=nprog, **model)

            t_run, res = best_of(first, args.repeat)
            prog = Program(mod.op, mod.filename, mod.source, mod.offsets, aliases=mod.attr_aliases, **model)
            run_kernel(prog, pids=pid, num_programs=nprog)
            t_rerun, _ = best_of(lambda: run_kernel(prog, pids=pid, num_programs=nprog), args.repeat)
            written = sum(w.nbytes for w in res.written.values())
            after = ttopt.optimize(text, ["default"], str(path))
            t_val, _ = best_of(lambda: validate(str(path), text, after, 3, 0), args.repeat)
            rows.append({"file": rel, "ops": nops, "read_s": t_read, "run_s": t_run, "rerun_s": t_rerun,
                         "validate_s": t_val, "written": written})
            print(f"{name:<72} {nops:>5} {t_read * 1e3:>8.1f} {t_run * 1e3:>8.1f} {t_rerun * 1e3:>8.1f} "
                  f"{t_val * 1e3:>9.1f} {written:>10}")
        except Exception as e:  # a report, not a test: show the failure and go on
            rows.append({"file": rel, "error": str(e)})
            print(f"{name:<72} ERROR {str(e)[:100]}")
    ok = [r for r in rows if "error" not in r]
    if ok:
        runs = sorted(r["run_s"] for r in ok)
        reruns = sorted(r["rerun_s"] for r in ok)

        def pct(v, q):
            return v[min(len(v) - 1, int(q * len(v)))]

        print()
        print(f"{len(ok)} kernels run, {len(rows) - len(ok)} errors")
        print(f"run (compile + run):  median {statistics.median(runs) * 1e3:.1f} ms, p90 {pct(runs, 0.9) * 1e3:.1f} ms,"
              f" max {runs[-1] * 1e3:.1f} ms, total {sum(runs):.2f} s")
        print(f"rerun (compiled):     median {statistics.median(reruns) * 1e3:.1f} ms, p90 {pct(reruns, 0.9) * 1e3:.1f} ms,"
              f" max {reruns[-1] * 1e3:.1f} ms")
        vals = sorted(r["validate_s"] for r in ok)
        print(f"validate (--validate, 3 seeds x 3 pids): median {statistics.median(vals) * 1e3:.1f} ms, "
              f"p90 {pct(vals, 0.9) * 1e3:.1f} ms, max {vals[-1] * 1e3:.1f} ms; under 1 s: "
              f"{sum(v < 1 for v in vals)} of {len(vals)}")
        print(f"read (parse+verify):  median {statistics.median(r['read_s'] for r in ok) * 1e3:.1f} ms")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0 if len(ok) == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
