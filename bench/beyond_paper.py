"""Where the rewrites beyond the paper fire (issue 14): counts per rewrite, per source, on the CPU.

    python -m bench.beyond_paper [--corpus DIR | --no-corpus] [--suites] [--synthetic] \\
        [--extra NAME=DIR ...] [--jobs 2] [--json OUT.json] [--md OUT.md] [--write-fired DIR] \\
        [--sass VARIANT,... --sass-md OUT.md]

Sources: every ``.ttir`` and ``.ttgir`` under ``--corpus`` (default ``../shared/corpus``,
grouped by model folder and stage), the paper suite and the hint suite (``--suites``: their
``@triton.jit`` kernels compiled to TTIR on the CPU for sm_90, as ``bench.rl_regs`` does),
the SYNTHETIC suite of ``bench/beyond_suite.py`` (``--synthetic``, compiled the same way), and any
``--extra NAME=DIR`` folder of ``.ttir``/``.ttgir`` files (e.g. TTIR dumped on the GPU).

Each file is parsed once; every variant below runs on a clone of the module, and ``--stats``'
per-pass counts (ttopt's statistics sink) are summed.  The redundant-load variants isolate its
new abilities: ``rl-paper`` has all four off (value numbering, mask implication, disjoint
stores, joins: the paper's SSA-identity rule), ``rl+X`` turns one on, ``rl`` is the default
(all on).  ``paper3`` is the paper's three passes as the paper had them (``rl-paper``,
``redundant-reduce``, ``div-chain``; the last two are today's versions: redundant-reduce's
commutation and div-chain's new cases have no switch), ``exact`` and ``all`` are the aliases.

Also printed (and in the JSON rows): whether ``exact`` and the paper's exact passes
(``rl-paper,redundant-reduce``) print the same text, on every file where either rewrites.
``--sass V,...``: every ``.ttir`` where variant V fires is compiled before and after V on the
CPU (sm_90, Triton's ptxas; options from the config's ``.json``) and its SASS counted.

``--write-fired DIR``: the TTIR files where a new rewrite fires, as ``DIR/<source>/<hash>/<file>``
(what the GPU run times); ``--json`` has one row per file with any count.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import sys
import tempfile
from collections import defaultdict

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"

RL_OFF = "value-numbering=false implied-masks=false disjoint-stores=false joins=false"
RL_PAPER = f"redundant-load{{{RL_OFF}}}"


def _rl_only(opt: str) -> str:
    return "redundant-load{" + " ".join(
        f"{o}={'true' if o == opt else 'false'}" for o in ("value-numbering", "implied-masks", "disjoint-stores", "joins")
    ) + "}"


# name -> (pipeline spec, the pass whose count is reported in the table)
VARIANTS: dict[str, str] = {
    "rl-paper": RL_PAPER,
    "rl+value-numbering": _rl_only("value-numbering"),
    "rl+implied-masks": _rl_only("implied-masks"),
    "rl+disjoint-stores": _rl_only("disjoint-stores"),
    "rl+joins": _rl_only("joins"),
    "rl": "redundant-load",
    "hoist-load": "hoist-load",
    "redundant-reduce": "redundant-reduce",
    "div-chain": "div-chain",
    "recip-hoist": "recip-hoist",
    "paper3": f"{RL_PAPER},redundant-reduce,div-chain",
    "exact": "exact",
    "all": "all",
}


# ------------------------------------------------------------------ sources
def corpus_files(corpus: pathlib.Path) -> list[tuple[str, pathlib.Path]]:
    out = []
    for p in sorted(corpus.rglob("*")):
        if p.suffix not in (".ttir", ".ttgir") or not p.is_file():
            continue
        rel = p.relative_to(corpus).parts
        if rel[0] == "small":
            src = f"small{p.suffix}"
        else:  # inductor-triton3.6-h200/<model>/triton/<hash>/<kernel>.ttir
            src = f"{rel[1]}{p.suffix}"
        out.append((src, p))
    return out


def _suite_ttir(module_src: str, fn_name: str, signature: dict, constexprs: dict, num_warps: int) -> str:
    import importlib.util

    import triton
    from triton.backends.compiler import GPUTarget

    with tempfile.TemporaryDirectory() as d:
        p = pathlib.Path(d) / f"{fn_name}.py"
        p.write_text(module_src)
        spec = importlib.util.spec_from_file_location(fn_name, p)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        src = triton.compiler.ASTSource(fn=getattr(mod, fn_name), signature=signature, constexprs=constexprs)
        return triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": num_warps}).asm["ttir"]


def suite_ttirs(folder: pathlib.Path) -> list[tuple[str, pathlib.Path]]:
    """The paper suite's and the hint suite's kernels as TTIR (sm_90, Triton on the CPU)."""
    from bench import hint_suite, paper_suite

    out = []
    for name, src in paper_suite.suite_modules().items():
        if name.startswith("t3_"):
            block = int(re.search(r"BLOCK=(\d+)", src).group(1))
            sig = {"x_ptr": "*fp16", "y_ptr": "*fp32", "N": "i32", "BLOCK": "constexpr"}
            text = _suite_ttir(src, name, sig, {"BLOCK": block}, 4)
        else:
            ops = re.search(r"def \w+\(([^)]*)\)", src).group(1).split(", ")
            sig = {a: "*fp32" for a in ops if a.endswith("_ptr")}
            sig.update({"numel": "i64" if "numel = " in src and int(re.search(r"numel = (\d+)", src).group(1)) >= 2**31 else "i32",
                        "BLOCK": "constexpr"})
            text = _suite_ttir(src, name, sig, {"BLOCK": 1024}, 4)
        p = folder / "paper-suite" / f"{name}.ttir"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        out.append(("paper-suite", p))
    for name, src in hint_suite.suite_modules().items():
        block = int(re.search(r"BLOCK=(\d+)", src).group(1))
        sig = {"x_ptr": "*fp16", "y_ptr": "*fp16", "N": "i32", "BLOCK": "constexpr"}
        p = folder / "hint-suite" / f"{name}.ttir"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(_suite_ttir(src, name, sig, {"BLOCK": block}, 8))
        out.append(("hint-suite", p))
    return out


def synthetic_ttirs(folder: pathlib.Path) -> list[tuple[str, pathlib.Path]]:
    """The SYNTHETIC suite's kernels (bench/beyond_suite.py) as TTIR (sm_90, Triton on the CPU)."""
    from bench import beyond_suite

    out = []
    for case in beyond_suite.CASES:
        p = folder / "beyond-suite" / f"{case.name}.ttir"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(beyond_suite.ttir_of(case))
        out.append(("beyond-suite (synthetic)", p))
    return out


def extra_files(spec: str) -> list[tuple[str, pathlib.Path]]:
    name, _, d = spec.partition("=")
    return [(f"{name}{p.suffix}", p) for p in sorted(pathlib.Path(d).rglob("*")) if p.suffix in (".ttir", ".ttgir")]


# ------------------------------------------------------------------ counting
def count_file(path: str) -> dict:
    """Every variant on one file: {variant: {pass: rewrites}} (or an error)."""
    from xdsl.passes import PassPipeline

    import ttopt
    from ttopt.ir.reader import read_module
    from ttopt.passes.base import collect_stats, default_context
    from ttopt.pipeline import run_deep

    def work():
        text = pathlib.Path(path).read_text()
        module = read_module(text, path)
        ctx = default_context()
        out = {}
        for name, spec in VARIANTS.items():
            try:  # on a clone of the parsed module (parsing is most of the time)
                clone = module.op.clone()
                with collect_stats() as st:
                    PassPipeline(tuple(ttopt.parse_pipeline(spec)), lambda *_: None).apply(ctx, clone)
            except ValueError:
                # xDSL's clone re-validates SSA name hints (`%0` is refused, when cloning or
                # when erasing a cloned op): run on a fresh parse, as ttopt-opt does
                with collect_stats() as st:
                    PassPipeline(tuple(ttopt.parse_pipeline(spec)), lambda *_: None).apply(ctx, read_module(text, path).op)
            counts: dict[str, int] = {}
            for s in st:
                counts[s.name] = counts.get(s.name, 0) + s.total
            out[name] = counts
        return out

    try:
        return {"path": path, "variants": run_deep(work)}
    except Exception as e:  # noqa: BLE001 (report, go on)
        return {"path": path, "error": f"{type(e).__name__}: {e}"[:300]}


def kernel_of(path: pathlib.Path) -> str:
    return path.stem


def summarize(files: list[tuple[str, pathlib.Path]], results: dict[str, dict]) -> dict:
    """source -> variant -> {files, kernels, rewrites}; plus per-source file and kernel totals."""
    summ: dict = defaultdict(lambda: {"files": 0, "kernels": set(), "errors": 0,
                                      "v": defaultdict(lambda: {"files": 0, "kernels": set(), "rewrites": 0})})
    for src, p in files:
        r = results[str(p)]
        s = summ[src]
        s["files"] += 1
        s["kernels"].add(kernel_of(p))
        if "error" in r:
            s["errors"] += 1
            continue
        for v, counts in r["variants"].items():
            n = sum(counts.values())
            if n:
                cell = s["v"][v]
                cell["files"] += 1
                cell["kernels"].add(kernel_of(p))
                cell["rewrites"] += n
    out = {}
    for src, s in summ.items():
        out[src] = {"files": s["files"], "kernels": len(s["kernels"]), "errors": s["errors"],
                    "variants": {v: {"files": c["files"], "kernels": len(c["kernels"]), "rewrites": c["rewrites"],
                                     "kernel_names": sorted(c["kernels"])}
                                 for v, c in s["v"].items()}}
    return out


def new_rl_fires(r: dict) -> bool:
    v = r.get("variants", {})
    return sum(v.get("rl", {}).values()) > sum(v.get("rl-paper", {}).values())


def fired_new(r: dict) -> list[str]:
    """The new rewrites that fire on this file."""
    v = r.get("variants", {})
    tags = []
    if new_rl_fires(r):
        tags.append("rl-new")
    for name in ("hoist-load", "recip-hoist", "div-chain"):
        if sum(v.get(name, {}).values()):
            tags.append(name)
    return tags


# ------------------------------------------------------------------ SASS, on the CPU
SASS_KEYS = ("LDG", "STG", "MUFU.RCP", "FMUL", "FFMA", "BAR", "total", "regs")


def _options_for(path: pathlib.Path) -> dict:
    meta = path.with_suffix(".json")
    if meta.exists():
        data = json.loads(meta.read_text())
        return {k: data[k] for k in ("num_warps", "num_stages", "num_ctas", "enable_fp_fusion") if data.get(k) is not None}
    try:
        from bench import beyond_suite, hint_suite

        for c in beyond_suite.CASES:
            if c.name == path.stem:
                return {"num_warps": c.num_warps}
        if path.stem in hint_suite.suite_modules():
            return {"num_warps": 8}
    except ImportError:
        pass
    return {"num_warps": 4}


def sass_row(job: tuple[str, str, str]) -> dict:
    """Compile one TTIR before and after a variant (sm_90, Triton's ptxas on the CPU)."""
    import os

    import triton
    from triton.backends.compiler import GPUTarget

    import ttopt
    from bench import sass

    path_s, variant, spec = job
    path = pathlib.Path(path_s)
    row = {"path": path_s, "kernel": path.stem, "variant": variant}
    try:
        text = path.read_text()
        after = ttopt.run_pipeline(text, ttopt.parse_pipeline(spec), path_s).text
        opts = _options_for(path)
        row["options"] = opts
        for tag, t in (("before", text), ("after", after)):
            with tempfile.TemporaryDirectory() as d:
                os.environ["TRITON_CACHE_DIR"] = d
                f = pathlib.Path(d) / path.name
                f.write_text(t)
                k = triton.compile(str(f), target=GPUTarget("cuda", 90, 32), options=opts)
                row[tag] = sass.analyze_cubin(k.asm["cubin"])
                row[tag]["ptx_ld.global"] = k.asm["ptx"].count("ld.global")
    except Exception as e:  # noqa: BLE001
        row["error"] = f"{type(e).__name__}: {e}"[:300]
    return row


def sass_table(rows: list[dict]) -> str:
    keys = SASS_KEYS + ("ptx_ld.global",)
    lines = ["| kernel | variant | " + " | ".join(keys) + " |", "|---|---|" + "---|" * len(keys)]
    for r in rows:
        if "error" in r:
            lines.append(f"| `{r['kernel']}` | {r['variant']} | error: {r['error']} |" + " |" * (len(keys) - 1))
            continue
        b, a = r["before"], r["after"]
        lines.append(f"| `{r['kernel'][-70:]}` | {r['variant']} | "
                     + " | ".join(f"{b.get(k, 0)} -> {a.get(k, 0)}" if b.get(k, 0) != a.get(k, 0) else f"{b.get(k, 0)}"
                                  for k in keys) + " |")
    return "\n".join(lines) + "\n"


def markdown(summary: dict) -> str:
    cols = list(VARIANTS)
    lines = [
        "Cells: files (configs) where the variant rewrites anything / distinct kernels, and the "
        "rewrites made (loads removed, reductions removed, divisions removed or rewritten, loads hoisted).",
        "",
        "| source | files / kernels | " + " | ".join(f"`{c}`" for c in cols) + " |",
        "|---|---|" + "---|" * len(cols),
    ]
    for src in sorted(summary):
        s = summary[src]
        cells = []
        for c in cols:
            d = s["variants"].get(c)
            cells.append(f"{d['files']}/{d['kernels']} ({d['rewrites']})" if d else "0")
        err = f", {s['errors']} errors" if s["errors"] else ""
        lines.append(f"| {src} | {s['files']} / {s['kernels']}{err} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.beyond_paper", description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=pathlib.Path, default=CORPUS)
    ap.add_argument("--no-corpus", action="store_true")
    ap.add_argument("--suites", action="store_true", help="also the paper and hint suites (compiled on the CPU)")
    ap.add_argument("--synthetic", action="store_true", help="also the SYNTHETIC suite (bench/beyond_suite.py)")
    ap.add_argument("--extra", action="append", default=[], help="NAME=DIR: more .ttir/.ttgir files")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", type=pathlib.Path)
    ap.add_argument("--md", type=pathlib.Path)
    ap.add_argument("--write-fired", type=pathlib.Path, help="copy the TTIR files where a new rewrite fires here")
    ap.add_argument("--sass", default="", help="VARIANT,...: compile every .ttir where it fires before/after (sm_90, CPU)")
    ap.add_argument("--sass-md", type=pathlib.Path, help="write the SASS table here")
    ap.add_argument("--suite-dir", type=pathlib.Path, help="where the suites' TTIR go (default: a temp dir)")
    args = ap.parse_args(argv)

    files: list[tuple[str, pathlib.Path]] = []
    if not args.no_corpus:
        files += corpus_files(args.corpus)
    if args.suites:
        files += suite_ttirs(args.suite_dir or pathlib.Path(tempfile.mkdtemp(prefix="beyond-suites-")))
    if args.synthetic:
        files += synthetic_ttirs(args.suite_dir or pathlib.Path(tempfile.mkdtemp(prefix="beyond-synth-")))
    for e in args.extra:
        files += extra_files(e)
    paths = [str(p) for _, p in files]
    print(f"{len(paths)} files, {len(VARIANTS)} variants each", file=sys.stderr)
    if args.jobs > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
            res = pool.map(count_file, paths, chunksize=8)
    else:
        res = [count_file(p) for p in paths]
    results = {r["path"]: r for r in res}
    summary = summarize(files, results)
    md = markdown(summary)
    print(md)
    rows = [{"source": src, "path": str(p), **{k: v for k, v in results[str(p)].items() if k != "path"},
             "new": fired_new(results[str(p)])}
            for src, p in files
            if "error" in results[str(p)] or any(sum(c.values()) for c in results[str(p)]["variants"].values())]
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"variants": VARIANTS, "summary": summary, "rows": rows}, indent=1))
    if args.md:
        args.md.parent.mkdir(parents=True, exist_ok=True)
        args.md.write_text(md)
    # exact vs the paper's exact passes (rl-paper, redundant-reduce): the same output text?
    paper_exact = f"{RL_PAPER},redundant-reduce"
    for row in rows:
        if "error" in row or not any(sum(row["variants"].get(v, {}).values()) for v in ("exact", "rl-paper")):
            continue
        import ttopt

        text = pathlib.Path(row["path"]).read_text()
        a = ttopt.run_pipeline(text, ttopt.parse_pipeline("exact"), row["path"]).text
        b = ttopt.run_pipeline(text, ttopt.parse_pipeline(paper_exact), row["path"]).text
        row["exact_same_text_as_paper_exact"] = a == b
    same = [r for r in rows if "exact_same_text_as_paper_exact" in r]
    print(f"exact vs {paper_exact}: same output text in {sum(r['exact_same_text_as_paper_exact'] for r in same)} "
          f"of {len(same)} files where either rewrites")
    if args.json:
        data = json.loads(args.json.read_text())
        data["rows"] = rows
        args.json.write_text(json.dumps(data, indent=1))
    if args.sass:
        jobs = []
        for row in rows:
            if "error" in row or not row["path"].endswith(".ttir"):
                continue
            for v in args.sass.split(","):
                if sum(row["variants"].get(v, {}).values()):
                    jobs.append((row["path"], v, VARIANTS[v]))
        if args.jobs > 1:
            import multiprocessing

            with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
                srows = pool.map(sass_row, jobs)
        else:
            srows = [sass_row(j) for j in jobs]
        st = sass_table(srows)
        print(st)
        if args.sass_md:
            args.sass_md.write_text("SASS per thread-block program on sm_90 (Triton 3.6's ptxas, on the CPU), before -> after "
                                    "(a single number: unchanged).\n\n" + st)
        if args.json:
            data = json.loads(args.json.read_text())
            data["sass"] = srows
            args.json.write_text(json.dumps(data, indent=1))
    if args.write_fired:
        for row in rows:
            if row.get("new") and row["path"].endswith(".ttir"):
                p = pathlib.Path(row["path"])
                t = args.write_fired / row["source"].split(".")[0] / p.parent.name / p.name
                t.parent.mkdir(parents=True, exist_ok=True)
                t.write_bytes(p.read_bytes())
    return 0


if __name__ == "__main__":
    sys.exit(main())
