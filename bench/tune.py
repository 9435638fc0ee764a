"""``ttopt tune``: keep ttopt's rewrite only on the kernels where it measurably wins.

    python -m bench.tune KERNEL_DIR [KERNEL_DIR ...] [--paper-suite] [--hint-suite] \\
        --pass redundant-load --pass redundant-reduce --pass div-chain \\
        [--candidate evl=redundant-load-evl,redundant-reduce,div-chain] \\
        --out bench/results/NAME [--override-out DIR] [--decisions FILE]

KERNEL_DIR: a folder of Inductor kernel modules (``get_args()``/``call(args)``; the corpus's
``*/kernels``, ``bench.regen_kernels``'s output).  ``--dump-dir DIR`` instead takes a
``TRITON_KERNEL_DUMP`` folder (``<H>/<kernel>.ttir``) and only writes what ttopt would
change (no GPU: no timing, no decision).

On a GPU (``bench.abtest`` does the work): tune + dump every module, rewrite each dumped TTIR,
then time every rewritten kernel interleaved against its baseline and a null override (ttopt's
round trip, no pass), ``--rounds`` rounds; a variant is **kept** only when the lower bound of
its 95% CI is above ``--min-speedup`` (default 1.0) against the baseline *and* against the null
override, its outputs pass the numerics check (bit-identical; or, for a reassociating pass or
a nondeterministic kernel, within the bound / the baseline's own rerun spread), and a second,
independent timing pass (fresh processes, ``--confirm-rounds``) agrees.  Everything else is
rejected.  Writes under ``--out``: ``results.jsonl`` (every row, both passes), ``results.md``,
``speedup.png``, ``decisions.json`` (format: ``ttopt/decisions.py``), ``override/`` (Triton's
override layout ``<H>/<kernel>.ttir`` with the winners only; ``--override-out`` to put it
elsewhere), ``summary.json``.  Use the winners with ``TRITON_KERNEL_OVERRIDE=1
TRITON_OVERRIDE_DIR=<out>/override TRITON_ALWAYS_COMPILE=1`` (a fresh cache).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import sys
import tempfile
import time

from bench import abtest, stats, tune_report
from ttopt.decisions import KEEP, REJECT, Decision, Decisions
from bench.variants import run_variant

ROOT = pathlib.Path(__file__).resolve().parent.parent


def parse_candidates(items: list[str]) -> dict[str, list[str]]:
    out = {}
    for item in items:
        name, _, passes = item.partition("=")
        if not name or not passes or name in ("base", "null", "opt"):
            raise SystemExit(f"--candidate wants NAME=PASS,PASS (NAME not base/null/opt), got {item!r}")
        out[name] = [p for p in passes.split(",") if p]
    return out


def decide(row: dict, confirm_row: dict | None) -> tuple[str | None, str]:
    """(winning variant or None, reason)."""
    if row.get("error"):
        return None, f"error: {row['error'].splitlines()[0][:120]}"
    if row.get("config_pinned") is False:
        return None, "the variants did not all run the baseline's config"
    best, best_lo, why = None, -1.0, []
    for v, res in row.get("variant_results", {}).items():
        if res["verdict"] != stats.WIN:
            why.append(f"{v}: {res['verdict']} {stats.Ratio(*res['speedup_vs_base'])}")
            continue
        if not res["numerics_ok"]:
            why.append(f"{v}: numerics {res['numerics_label']}")
            continue
        if not res.get("override_applied", True):
            why.append(f"{v}: override not applied")
            continue
        c = (confirm_row or {}).get("variant_results", {}).get(v)
        if c is None:
            why.append(f"{v}: not confirmed (no confirmation run)")
            continue
        if c["verdict"] != stats.WIN or not c["numerics_ok"]:
            why.append(f"{v}: confirmation {c['verdict']} {stats.Ratio(*c['speedup_vs_base'])}")
            continue
        lo = min(res["speedup_vs_base"][1], c["speedup_vs_base"][1])
        if lo > best_lo:
            best, best_lo = v, lo
    if best is not None:
        r1 = stats.Ratio(*row["variant_results"][best]["speedup_vs_base"])
        r2 = stats.Ratio(*confirm_row["variant_results"][best]["speedup_vs_base"])
        return best, f"faster: {r1}; confirmed {r2}"
    return None, "; ".join(why) or "no variant"


def dump_only(dump_dir: pathlib.Path, passes: list[str], out: pathlib.Path) -> int:
    """No GPU: what the pipeline changes in a TRITON_KERNEL_DUMP folder."""
    n = 0
    for p in sorted(dump_dir.glob("*/*.ttir")):
        r = run_variant(p.read_text(), passes, str(p))
        if r.changed:
            target = out / "override-untimed" / p.parent.name / p.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(r.text)
            print(f"{p.parent.name}/{p.name}: {r.stats}")
            n += 1
    print(f"{n} kernels changed; untimed overrides under {out / 'override-untimed'} (no decision without a GPU)")
    return 0


def main(argv=None, report_only: bool = False) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.tune" if not report_only else "python -m bench.override",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="*", type=pathlib.Path, help="folders of Inductor kernel modules")
    ap.add_argument("--dump-dir", type=pathlib.Path, help="a TRITON_KERNEL_DUMP folder instead (no GPU, no timing)")
    ap.add_argument("--pass", dest="passes", action="append", default=[], help="ttopt pass (repeatable), in order")
    ap.add_argument("--candidate", action="append", default=[], help="NAME=PASS,PASS: another pipeline to try")
    ap.add_argument("--paper-suite", action="store_true", help="also the paper-pattern suite (bench/paper_suite.py)")
    ap.add_argument("--hint-suite", action="store_true", help="also the eviction-hint suite (bench/hint_suite.py)")
    ap.add_argument("--out", type=pathlib.Path, default=ROOT / "bench" / "results" / "tune")
    ap.add_argument("--override-out", type=pathlib.Path, default=None, help="winners' override dir (default OUT/override)")
    ap.add_argument("--decisions", type=pathlib.Path, default=None, help="decision file (default OUT/decisions.json)")
    ap.add_argument("--work", type=pathlib.Path, default=None, help="scratch folder (default: a temp dir)")
    ap.add_argument("--workers", type=int, default=max(1, min(12, (os.cpu_count() or 2) - 2)))
    ap.add_argument("--rounds", type=int, default=30, help="interleaved rounds per kernel (one sample per variant each)")
    ap.add_argument("--confirm-rounds", type=int, default=30, help="rounds of the confirmation pass (0: none)")
    ap.add_argument("--rep-ms", type=float, default=3.0, help="ms of calls per CUDA-graph replay (one sample)")
    ap.add_argument("--min-speedup", type=float, default=1.0, help="CI lower bound must exceed this")
    ap.add_argument("--limit", type=int, default=0, help="at most N modules per folder (0: all)")
    ap.add_argument("--time-budget", type=float, default=0, help="seconds; stop timing new kernels after this (0: none)")
    ap.add_argument("--runs", type=int, default=None, help=argparse.SUPPRESS)  # old bench.override spelling
    ap.add_argument("--ir", choices=["ttir"], default="ttir", help="stage rewritten (TTIR: every config recompiles from it)")
    args = ap.parse_args(argv)
    if args.runs:
        args.rounds = args.runs
    if not args.passes:
        print(f"{ap.prog}: error: give at least one --pass", file=sys.stderr)
        return 2
    candidates = parse_candidates(args.candidate)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.dump_dir:
        return dump_only(args.dump_dir, args.passes, args.out)

    try:
        import torch
    except ImportError:
        print(f"{ap.prog}: error: needs PyTorch and a CUDA GPU (or --dump-dir)", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print(f"{ap.prog}: error: no CUDA GPU visible (or use --dump-dir)", file=sys.stderr)
        return 2
    import triton

    import ttopt

    t_start = time.time()
    deadline = t_start + args.time_budget if args.time_budget else None
    work = args.work or pathlib.Path(tempfile.mkdtemp(prefix="ttopt-tune-"))
    work.mkdir(parents=True, exist_ok=True)
    log = abtest.log

    dirs = list(args.dirs)
    if args.paper_suite:
        from bench.paper_suite import write_suite

        dirs.append(work / "suites" / "paper-suite")
        write_suite(dirs[-1])
    if args.hint_suite:
        from bench.hint_suite import write_suite as write_hints

        dirs.append(work / "suites" / "hint-suite")
        write_hints(dirs[-1])
    entries = abtest.collect(dirs, work, args.limit)
    log(f"{len(entries)} kernel modules from {len(dirs)} folders; work dir {work}")

    t0 = time.time()
    ok = abtest.tune_and_dump(entries, work, args.workers)
    log(f"tune+dump: {len(ok)}/{len(entries)} ran ({time.time() - t0:.0f}s)")

    t0 = time.time()
    pipes = abtest.Pipelines(args.passes, candidates)
    cands = abtest.rewrite(ok, work, pipes, max(1, (os.cpu_count() or 2) - 1))
    n_ttir = sum(len(e.get("hashes", {})) for e in ok)
    rw_errors = [(e["key"], e["rewrite_errors"]) for e in ok if e.get("rewrite_errors")]
    log(f"rewrite: {n_ttir} dumped TTIR files of {len(ok)} modules; {len(cands)} modules rewritten; "
        f"{len(rw_errors)} with ttopt errors ({time.time() - t0:.0f}s)")

    # measured after the rewrite step (whose process pool forks this process: no CUDA before it)
    ceil = abtest.measure_copy_bandwidth()
    log(f"{ceil['device']}: copy bandwidth {ceil['copy_bw_Bps'] / 1e12:.2f} TB/s (read+write), "
        f"L2 {ceil['l2_bytes'] >> 20} MiB")

    t0 = time.time()
    timings = abtest.time_all(cands, work, "p1", args.rounds, args.rep_ms, deadline) if cands else {}
    rows = [abtest.judge(c, timings[c["key"]], work, "p1", ceil["copy_bw_Bps"], ceil["l2_bytes"], args.min_speedup)
            for c in cands]
    log(f"time (pass 1): {len(cands)} kernels ({time.time() - t0:.0f}s)")

    confirm: dict[str, dict] = {}
    if args.confirm_rounds:
        winners = [c for c, r in zip(cands, rows)
                   if any(res["verdict"] == stats.WIN for res in r.get("variant_results", {}).values())]
        if winners:
            t0 = time.time()
            ctim = abtest.time_all(winners, work, "p2", args.confirm_rounds, args.rep_ms, None)
            for c in winners:
                confirm[c["key"]] = abtest.judge(c, ctim[c["key"]], work, "p2", ceil["copy_bw_Bps"],
                                                 ceil["l2_bytes"], args.min_speedup)
            log(f"time (confirmation pass): {len(winners)} kernels ({time.time() - t0:.0f}s)")

    # decisions
    by_key = {c["key"]: c for c in cands}
    decisions, verdict_cells, kept = [], {}, []
    for r in rows:
        c = by_key[r["key"]]
        win, reason = decide(r, confirm.get(r["key"]))
        r["decision"] = {"keep": win, "reason": reason}
        for v in r.get("variant_results", {}):
            verdict_cells[(r["key"], v)] = "**keep**" if v == win else "reject"
        passes = (args.passes if win == "opt" else candidates.get(win, [])) if win else []
        for h, info in sorted(c.get("hashes", {}).items()):
            decisions.append(Decision(
                kernel=c["kernel"], ttir_digest=info["digest"], decision=KEEP if win else REJECT, passes=passes,
                hashes=[h], model=c["model"], module=c["name"], reason=reason,
                speedup=r["variant_results"][win]["speedup_vs_base"] if win else None,
                rewrites=c.get("rewrites", {}).get(win or "opt", {})))
        if win:
            kept.append((c, win))
    meta = {"device": ceil["device"], "triton": triton.__version__, "torch": torch.__version__,
            "ttopt": getattr(ttopt, "__version__", "0.1.0"), "stage": "ttir",
            "rule": (f"keep iff the 95% CI lower bound of the speedup over the baseline and over the null override "
                     f"is > {args.min_speedup} in both timing passes ({args.rounds} and {args.confirm_rounds} "
                     f"interleaved rounds) and the outputs pass the numerics check"),
            "candidates": {"opt": args.passes, **candidates}}
    dec = Decisions(decisions, args.passes, meta)
    if not report_only:
        dec.write(args.decisions or args.out / "decisions.json")
        override_out = args.override_out or args.out / "override"
        if override_out.exists():
            shutil.rmtree(override_out)
        override_out.mkdir(parents=True)
        for c, win in kept:
            for h in c.get("hashes", {}):
                src = work / "override" / win / h / f"{abtest.file_stem(c['kernel'])}.ttir"
                if src.exists():
                    (override_out / h).mkdir(exist_ok=True)
                    shutil.copy(src, override_out / h / src.name)

    # reports
    all_rows = rows + list(confirm.values())
    tune_report.write_jsonl(all_rows, args.out / "results.jsonl")
    md = tune_report.markdown(rows, confirm, verdict_cells)
    errs = tune_report.errors_table(rows)
    (args.out / "results.md").write_text(md + ("\n### Errors\n\n" + errs if errs else ""))
    tune_report.plot(rows, args.out / "speedup.png",
                     f"ttopt {' + '.join(args.passes)} on {ceil['device']} (interleaved, 95% CI)", confirm,
                     verdict_cells)
    summary = {
        "device": ceil, "triton": triton.__version__, "torch": torch.__version__, "passes": args.passes,
        "candidates": candidates, "modules": len(entries), "ran": len(ok),
        "tune_errors": [(e["key"], e["tune_error"]) for e in entries if e.get("tune_error")][:50],
        "dumped_ttir": n_ttir, "rewritten": len(cands), "rewrite_errors": rw_errors[:50],
        "timed": sum(1 for r in rows if not r.get("error")), "timing_errors": sum(1 for r in rows if r.get("error")),
        "kept": [{"key": c["key"], "variant": w} for c, w in kept],
        "verdicts": {}, "seconds": round(time.time() - t_start, 1),
    }
    for _r, _v, res in tune_report.variant_rows(rows):
        summary["verdicts"][res["verdict"]] = summary["verdicts"].get(res["verdict"], 0) + 1
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1, default=str))
    print(md)
    if errs:
        print(errs)
    log(f"{summary['timed']} timed, verdicts {summary['verdicts']}, kept {len(kept)}: "
        f"{[c['key'] + ':' + w for c, w in kept]} ({summary['seconds']}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
