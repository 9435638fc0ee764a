"""Override-and-benchmark: ttopt's passes re-injected into real Triton, checked, timed.

    python -m bench.override KERNEL_DIR [KERNEL_DIR ...] --pass redundant-load --pass ... \\
        [--paper-suite] [--ir ttir|ttgir] [--out bench/results/NAME]

KERNEL_DIR holds Inductor kernel modules (``get_args()`` and ``call(args)``, as in
``../shared/corpus/*/kernels``); the model name is its parent folder's name.  On a GPU:

1. tune: each module runs once; Inductor autotunes; the chosen config is recorded.
2. dump (baseline, fresh TRITON_CACHE_DIR, TRITON_KERNEL_DUMP=1): the chosen config only,
   fixed-seed inputs (``torch.manual_seed(0)`` before ``get_args()``), outputs saved
   (Inductor kernels write in place: the outputs are the argument tensors after the call).
3. optimize (CPU): ttopt runs the passes on each dumped ``.ttir`` (default) and writes the
   changed ones to ``TRITON_OVERRIDE_DIR/<H>/<kernel>.ttir``.
4. time, baseline and optimized, each in its own process with a fresh cache dir; the
   optimized one with ``TRITON_KERNEL_OVERRIDE=1``.  Each checks its outputs against step 2,
   and the optimized one checks that the override applied (its own dump must carry the
   rewritten op counts, and its PTX fewer ``ld.global``/``div`` than the baseline's).
   Times: CUDA-graph replays with CUDA events (``triton.testing.do_bench_cudagraph``),
   median; 50 paired runs for the paper's Eq. 1.
5. report under ``--out``: ``results.jsonl``, ``results.md``, ``speedup.png``.

Why TTIR by default: Inductor autotunes over configs that differ in num_warps/num_stages, and
all of them share one override file (the override hash ignores those options).  A TTIR
override is compiled by Triton's full TTGIR pipeline for whichever config is launched; a TTGIR
override fixes ``ttg.num-warps`` and would be wrong for the other configs.  ``--ir ttgir`` is
supported: the config is pinned to the one that was dumped, so the TTGIR matches it.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from bench.layout import build_override_dir
from bench.report import markdown_table, plot, speedups, write_jsonl

ROOT = pathlib.Path(__file__).resolve().parent.parent


def log(msg: str) -> None:
    print(f"[bench.override {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def model_name(kernel_dir: pathlib.Path) -> str:
    return kernel_dir.parent.name if kernel_dir.name == "kernels" else kernel_dir.name


def run_phase(phase: str, entries: list[dict], work: pathlib.Path, env, tag: str,
              workers: int = 1, runs: int = 50, rep_ms: float = 20.0) -> dict:
    """Run `bench.runner PHASE` over `entries` in `workers` processes, with a progress bar;
    merge their results."""
    shards = [entries[i::workers] for i in range(workers)] if workers > 1 else [entries]
    shards = [s for s in shards if s]
    procs = []
    for i, shard in enumerate(shards):
        spec = work / f"{tag}.{i}.spec.json"
        result = work / f"{tag}.{i}.result.json"
        spec.write_text(json.dumps({"kernels": shard, "work": str(work), "result": str(result),
                                    "runs": runs, "rep_ms": rep_ms}))
        proc_env = dict(os.environ, **(env(i) if callable(env) else env))
        proc_env["PYTHONPATH"] = str(ROOT) + os.pathsep + proc_env.get("PYTHONPATH", "")
        logf = open(work / f"{tag}.{i}.log", "w")
        procs.append((subprocess.Popen([sys.executable, "-m", "bench.runner", phase, str(spec)],
                                       env=proc_env, stdout=logf, stderr=subprocess.STDOUT, cwd=ROOT),
                      logf, result, work / f"{tag}.{i}.log"))
    bar = _progress(len(entries), tag)
    done = 0
    while any(p.poll() is None for p, *_ in procs):
        time.sleep(0.5)
        now = sum(path.read_text(errors="replace").count(f"[{phase}] ") for *_, path in procs)
        bar(now - done)
        done = now
    bar(None)
    merged: dict = {}
    for p, logf, result, _ in procs:
        logf.close()
        if result.exists():
            merged.update(json.loads(result.read_text()))
    return merged


def _progress(total: int, tag: str):
    """A tqdm bar on stderr when tqdm is there, else a line every 10%."""
    try:
        from tqdm import tqdm

        bar = tqdm(total=total, desc=tag, file=sys.stderr, leave=True)

        def update(n):
            if n is None:
                bar.close()
            elif n:
                bar.update(n)

        return update
    except ImportError:
        state = {"done": 0, "shown": -1}

        def update(n):
            if n is None:
                return
            state["done"] += n
            pct = 100 * state["done"] // max(total, 1)
            if pct // 10 != state["shown"] // 10:
                state["shown"] = pct
                print(f"[{tag}] {state['done']}/{total}", file=sys.stderr, flush=True)

        return update


def _count(pattern: str, path: pathlib.Path) -> int:
    return len(re.findall(pattern, path.read_text())) if path.exists() else -1


OP_PATTERNS = {"tt.load": r"\btt\.load\b", "arith.divf": r"\barith\.divf\b", "tt.reduce": r"\"tt\.reduce\""}
PTX_PATTERNS = {"ld.global": r"\bld\.global", "div.f32": r"\bdiv\.(?:full|rn|approx)\.f32"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="override-and-benchmark ttopt's passes on a GPU")
    ap.add_argument("dirs", nargs="*", type=pathlib.Path, help="folders of Inductor kernel modules")
    ap.add_argument("--pass", dest="passes", action="append", default=[], help="ttopt pass (repeatable)")
    ap.add_argument("--paper-suite", action="store_true", help="also run the paper-pattern suite (bench/paper_suite.py)")
    ap.add_argument("--ir", choices=["ttir", "ttgir"], default="ttir")
    ap.add_argument("--out", type=pathlib.Path, default=ROOT / "bench" / "results" / "override")
    ap.add_argument("--work", type=pathlib.Path, default=None, help="scratch folder (default: a temp dir)")
    ap.add_argument("--workers", type=int, default=max(1, min(12, (os.cpu_count() or 2) - 2)))
    ap.add_argument("--runs", type=int, default=50, help="paired timing runs (Eq. 1)")
    ap.add_argument("--rep-ms", type=float, default=10.0, help="ms of replays per timing run")
    ap.add_argument("--limit", type=int, default=0, help="at most N kernels per folder (0: all)")
    args = ap.parse_args(argv)

    try:
        import torch
    except ImportError:
        print("bench.override: error: needs PyTorch and a CUDA GPU", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("bench.override: error: no CUDA GPU visible (this benchmark runs on a GPU machine)", file=sys.stderr)
        return 2
    if not args.passes:
        print("bench.override: error: give at least one --pass", file=sys.stderr)
        return 2
    import triton

    work = args.work or pathlib.Path(tempfile.mkdtemp(prefix="ttopt-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    args.out.mkdir(parents=True, exist_ok=True)

    # -- collect kernel modules (copied: Inductor writes .best_config files beside them)
    entries: list[dict] = []
    dirs = list(args.dirs)
    if args.paper_suite:
        from bench.paper_suite import write_suite

        suite_dir = work / "paper-suite"
        write_suite(suite_dir)
        dirs.append(suite_dir)
    for d in dirs:
        model = model_name(d)
        dst = work / "modules" / model
        dst.mkdir(parents=True, exist_ok=True)
        files = sorted(d.glob("*.py"))
        if args.limit:
            files = files[: args.limit]
        for f in files:
            shutil.copy(f, dst / f.name)
            entries.append({"model": model, "name": f.stem, "path": str(dst / f.name)})
    log(f"{len(entries)} kernel modules from {len(dirs)} folders; work dir {work}")

    # -- 1. tune
    t0 = time.time()
    tuned = run_phase("tune", entries, work,
                      lambda i: {"TRITON_CACHE_DIR": str(work / f"cache-tune-{i}"),
                                 "TORCHINDUCTOR_CACHE_DIR": str(work / f"inductor-tune-{i}")},
                      "tune", workers=args.workers)
    for e in entries:
        rec = tuned.get(f"{e['model']}/{e['name']}", {})
        e["config"] = rec.get("config")
        e["tune_ok"] = rec.get("ok", False)
    entries = [e for e in entries if e["tune_ok"]]
    log(f"tune: {len(entries)} ran ({time.time() - t0:.0f}s)")

    # -- 2. dump (baseline IR of the chosen config, reference outputs), one dump dir per model
    t0 = time.time()
    by_model: dict[str, list[dict]] = {}
    for e in entries:
        by_model.setdefault(e["model"], []).append(e)
    dumped: dict = {}
    for model, es in by_model.items():
        dumped.update(run_phase(
            "dump", es, work,
            lambda i, m=model: {"TRITON_CACHE_DIR": str(work / f"cache-dump-{m}-{i}"),
                                "TORCHINDUCTOR_CACHE_DIR": str(work / f"inductor-dump-{m}-{i}"),
                                "TRITON_KERNEL_DUMP": "1", "TRITON_ALWAYS_COMPILE": "1",
                                "TRITON_DUMP_DIR": str(work / "dump-base" / m)},
            f"dump-{model}", workers=args.workers))
    log(f"dump: done ({time.time() - t0:.0f}s)")

    # -- 3. optimize with ttopt (CPU)
    override_dir = work / "override"
    changed: list[dict] = []
    for model, es in by_model.items():
        names = {e["name"] for e in es if dumped.get(f"{model}/{e['name']}", {}).get("ok")}
        for rw in build_override_dir(work / "dump-base" / model, override_dir, args.passes, args.ir, names):
            e = next(x for x in es if x["name"] == rw.kernel)
            changed.append(dict(e, rewrites=rw.stats, hash_dir=rw.hash_dir, override=rw.target))
    log(f"optimize: {len(changed)} kernels rewritten by {args.passes} ({args.ir})")
    if not changed:
        log("nothing to time")
        return 0

    # -- 4. time: baseline, then optimized (fresh caches; override only in the second)
    t0 = time.time()
    base = run_phase("time", changed, work,
                     {"TRITON_CACHE_DIR": str(work / "cache-time-base"),
                      "TORCHINDUCTOR_CACHE_DIR": str(work / "inductor-time-base"),
                      "TRITON_ALWAYS_COMPILE": "1"},
                     "time-base", runs=args.runs, rep_ms=args.rep_ms)
    opt = run_phase("time", changed, work,
                    {"TRITON_CACHE_DIR": str(work / "cache-time-opt"),
                     "TORCHINDUCTOR_CACHE_DIR": str(work / "inductor-time-opt"),
                     "TRITON_ALWAYS_COMPILE": "1", "TRITON_KERNEL_OVERRIDE": "1",
                     "TRITON_OVERRIDE_DIR": str(override_dir),
                     "TRITON_KERNEL_DUMP": "1", "TRITON_DUMP_DIR": str(work / "dump-opt")},
                    "time-opt", runs=args.runs, rep_ms=args.rep_ms)
    log(f"time: done ({time.time() - t0:.0f}s)")

    # -- 5. report
    gpu = torch.cuda.get_device_name(0)
    rows, failures = [], []
    for e in changed:
        key = f"{e['model']}/{e['name']}"
        b, o = base.get(key, {}), opt.get(key, {})
        if not (b.get("ok") and o.get("ok")):
            failures.append({"kernel": key, "baseline": b.get("error"), "optimized": o.get("error")})
            continue
        base_dump = work / "dump-base" / e["model"] / e["hash_dir"]
        opt_dump = work / "dump-opt" / e["hash_dir"]
        stage = args.ir
        applied = {k: (_count(p, pathlib.Path(e["override"])), _count(p, opt_dump / f"{e['name']}.{stage}"))
                   for k, p in OP_PATTERNS.items()}
        ptx = {k: (_count(p, base_dump / f"{e['name']}.ptx"), _count(p, opt_dump / f"{e['name']}.ptx"))
               for k, p in PTX_PATTERNS.items()}
        override_applied = all(a == b2 for a, b2 in applied.values()) and (opt_dump / f"{e['name']}.{stage}").exists()
        med, eq1 = speedups(b["times_ms"], o["times_ms"])
        rows.append({
            "model": e["model"], "kernel": e["name"], "passes": args.passes, "rewrites": e["rewrites"],
            "t_before_ms": statistics.median(b["times_ms"]), "t_after_ms": statistics.median(o["times_ms"]),
            "speedup_median": med, "speedup_eq1": eq1,
            "max_rel_err": max(o["max_rel_err"], b["max_rel_err"]),
            "max_rel_err_baseline_rerun": b["max_rel_err"],
            "gpu": gpu, "triton": triton.__version__, "torch": torch.__version__,
            "ir": args.ir, "config": e.get("config"), "override_applied": override_applied,
            "ops_override_vs_dump": applied, "ptx_before_after": ptx,
        })
    rows.sort(key=lambda r: (r["model"], r["kernel"]))
    write_jsonl(rows, args.out / "results.jsonl")
    md = markdown_table(rows)
    (args.out / "results.md").write_text(md)
    (args.out / "failures.json").write_text(json.dumps(failures, indent=1))
    if rows:
        plot(rows, args.out / "speedup.png", f"ttopt {' + '.join(args.passes)} on {gpu} ({args.ir} override)")
    print(md)
    not_applied = [r["kernel"] for r in rows if not r["override_applied"]]
    too_far = [r["kernel"] for r in rows if r["max_rel_err"] > 1e-4]
    log(f"{len(rows)} kernels reported, {len(failures)} failed, override not applied: {not_applied}, "
        f"max rel err > 1e-4: {too_far}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
