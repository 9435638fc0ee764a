"""What ptxas makes of division chains, without a GPU: SASS reciprocals (``MUFU.RCP``, f64
``MUFU.RCP64H``), multiplies and instruction counts of small Triton kernels, before and after
the rewrites ``div-chain`` can make.  The evidence behind its profitability rule.

    python -m bench.div_sass [--out bench/results/NAME/div_sass.md]

Each kernel loads a, t, s (1024 elements, 4 warps: 8 per thread) and stores one expression.

``--recip-hoist CORPUS_DIR`` measures ``recip-hoist`` (``x / broadcast(s) -> x *
broadcast(1/s)``) on real kernels instead: every ``.ttir`` under CORPUS_DIR where the pass
fires is compiled (Triton's TTGIR pipeline, LLVM, ptxas; the config's num_warps, num_stages,
num_ctas and fp fusion from its ``.json``) before and after the rewrite, and the same SASS
counts are reported per kernel, with the totals::

    python -m bench.div_sass --recip-hoist ../shared/corpus/inductor-triton3.6-h200 \
        --workers 16 --arch 90 --out bench/results/NAME/recip_sass.md --json bench/results/NAME/recip_sass.json

(``--pass`` measures another pipeline the same way, e.g. ``--pass all``; ``--limit N`` the
first N kernels only.)  It compiles on the CPU as well; on the GPU machine ``--arch`` defaults
to the device's compute capability.
"""

from __future__ import annotations

import argparse
import importlib.util
import pathlib
import sys
import tempfile

from bench import sass

EXPRESSIONS = [
    ("a/t/t", "a/(t*t)", "same divisor twice"),
    ("a/t/s", "a/(t*s)", "two divisors"),
    ("a/768.0/s", "a/(768.0*s)", "a constant divisor"),
    ("(a/t)/s + t/s", "a/(t*s) + t/s", "s also divides elsewhere"),
    ("s/(a/t)", "(s*t)/a", "case 2"),
]

_SRC = '''
import triton
import triton.language as tl


@triton.jit
def k(a_ptr, t_ptr, s_ptr, o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    t = tl.load(t_ptr + offs)
    s = tl.load(s_ptr + offs)
    tl.store(o_ptr + offs, EXPR)
'''


def counts(expr: str, dtype: str) -> dict:
    import triton
    from triton.backends.compiler import GPUTarget

    with tempfile.TemporaryDirectory() as d:
        p = pathlib.Path(d) / "kdiv.py"
        p.write_text(_SRC.replace("EXPR", expr))
        spec = importlib.util.spec_from_file_location("kdiv", p)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        sig = {"a_ptr": f"*{dtype}", "t_ptr": f"*{dtype}", "s_ptr": f"*{dtype}", "o_ptr": f"*{dtype}", "BLOCK": "constexpr"}
        k = triton.compile(triton.compiler.ASTSource(fn=mod.k, signature=sig, constexprs={"BLOCK": 1024}),
                           target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
    return sass.analyze_cubin(k.asm["cubin"]) | {"ptx_div": k.asm["ptx"].count("div.")}


def table(dtypes=("fp32", "fp16", "fp64")) -> str:
    lines = ["| dtype | case | before | after | MUFU.RCP (f64: RCP64H) before -> after | FMUL+FFMA before -> after "
             "| SASS instructions before -> after | registers before -> after |", "|---|---|---|---|---|---|---|---|"]
    # f64: DMUL/DFMA are not in bench.sass.REPORTED; the FMUL+FFMA column counts f32 work only
    for dt in dtypes:
        for before, after, what in EXPRESSIONS:
            b, a = counts(before, dt), counts(after, dt)
            rcp = "MUFU.RCP64H" if dt == "fp64" else "MUFU.RCP"
            lines.append(
                f"| {dt} | {what} | `{before}` | `{after}` | {b[rcp]} -> {a[rcp]} "
                f"| {b.get('FMUL', 0) + b['FFMA']} -> {a.get('FMUL', 0) + a['FFMA']} | {b['total']} -> {a['total']} "
                f"| {b['regs']} -> {a['regs']} |"
            )
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ recip-hoist on real kernels
COMPILE_OPTIONS = ("num_warps", "num_stages", "num_ctas", "enable_fp_fusion", "maxnreg")


def _options(path: pathlib.Path) -> dict:
    """The compile options of a corpus config (its ``.json``), else 4 warps."""
    import json

    meta = path.with_suffix(".json")
    if not meta.exists():
        return {"num_warps": 4}
    data = json.loads(meta.read_text())
    return {k: data[k] for k in COMPILE_OPTIONS if data.get(k) is not None}


def _compile_ttir(text: str, name: str, options: dict, arch: int) -> dict:
    import triton
    from triton.backends.compiler import GPUTarget

    with tempfile.TemporaryDirectory() as d:
        p = pathlib.Path(d) / name
        p.write_text(text)
        k = triton.compile(str(p), target=GPUTarget("cuda", arch, 32), options=options)
        return sass.analyze_cubin(k.asm["cubin"]) | {"ptx_div_full": k.asm["ptx"].count("div.full.f32"),
                                                    "ptx_div_rn": k.asm["ptx"].count("div.rn.")}


def measure_kernel(job: tuple[str, list[str], int]) -> dict:
    """One corpus ``.ttir``: the pipeline's rewrites and the SASS counts before and after
    (``error`` instead when something fails).  A process pool's unit of work."""
    import os

    import ttopt

    path_s, passes, arch = job
    path = pathlib.Path(path_s)
    row = {"file": path_s, "kernel": path.stem, "model": path.parts[-4] if len(path.parts) >= 4 else ""}
    try:
        text = path.read_text()
        result = ttopt.run_pipeline(text, passes, path_s)
        row["rewrites"] = {s.name: s.total for s in result.stats if s.total}
        if not row["rewrites"]:
            return row
        opts = _options(path)
        row["options"] = opts
        with tempfile.TemporaryDirectory() as cache:  # never a cached cubin of the other version
            os.environ["TRITON_CACHE_DIR"] = cache
            row["before"] = _compile_ttir(text, path.name, opts, arch)
            row["after"] = _compile_ttir(result.text, path.name, opts, arch)
    except Exception as e:  # one kernel's failure is reported in its row, not fatal
        row["error"] = f"{type(e).__name__}: {e}"[:300]
    return row


def corpus_rows(root: pathlib.Path, passes: list[str], arch: int, workers: int, limit: int | None) -> list[dict]:
    """Rows for every ``.ttir`` under ``root`` where ``passes`` rewrite something."""
    from concurrent.futures import ProcessPoolExecutor

    import ttopt

    files = []
    for p in sorted(root.rglob("*.ttir")):
        text = p.read_text(errors="replace")
        if "arith.divf" in text and ttopt.run_pipeline(text, passes, str(p)).changed:
            files.append(str(p))
    jobs = [(f, passes, arch) for f in files[:limit]]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            return list(pool.map(measure_kernel, jobs))
    return [measure_kernel(job) for job in jobs]


CORPUS_COLUMNS = ("MUFU.RCP", "FMUL", "FFMA", "total", "regs")


def corpus_table(rows: list[dict], passes: list[str], arch: int) -> str:
    head = (f"`{','.join(passes)}` on the corpus kernels where it fires: SASS per kernel (sm_{arch}), before -> after. "
            f"`python -m bench.div_sass --recip-hoist`.\n\n")
    lines = ["| model | kernel | config | rewrites | PTX div.full.f32 | " + " | ".join(CORPUS_COLUMNS) + " |",
             "|---|---|---|---|---|" + "---|" * len(CORPUS_COLUMNS)]
    sums = {k: [0, 0] for k in ("ptx_div_full", *CORPUS_COLUMNS)}
    ok = 0
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['model']} | `{r['kernel']}` | {_config(r)} | error: {r['error']} |"
                         + " |" * (len(CORPUS_COLUMNS) + 1))
            continue
        ok += 1
        b, a = r["before"], r["after"]
        cells = [f"{b.get(k, 0)} -> {a.get(k, 0)}" for k in ("ptx_div_full", *CORPUS_COLUMNS)]
        for k in sums:
            sums[k][0] += b.get(k, 0)
            sums[k][1] += a.get(k, 0)
        rw = ", ".join(f"{k} {v}" for k, v in r["rewrites"].items())
        lines.append(f"| {r['model']} | `{r['kernel']}` | {_config(r)} | {rw} | " + " | ".join(cells) + " |")
    lines.append(f"| **total** | {ok} kernels | | | " + " | ".join(f"{b} -> {a}" for b, a in sums.values()) + " |")
    return head + "\n".join(lines) + "\n"


def _config(row: dict) -> str:
    """The config's cache-key prefix and warps (a kernel has one row per compiled config)."""
    parts = pathlib.Path(row["file"]).parts
    warps = row.get("options", {}).get("num_warps", "?")
    return f"{parts[-2][:8] if len(parts) >= 2 else ''} w{warps}"


def _default_arch() -> int:
    try:
        import torch

        if torch.cuda.is_available():
            major, minor = torch.cuda.get_device_capability()
            return major * 10 + minor
    except Exception:
        pass
    return 90


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=pathlib.Path)
    ap.add_argument("--recip-hoist", type=pathlib.Path, metavar="CORPUS_DIR",
                    help="measure recip-hoist (or --pass) on the .ttir kernels under CORPUS_DIR")
    ap.add_argument("--pass", dest="passes", default="recip-hoist",
                    help="with --recip-hoist: the passes (comma-separated; aliases allowed)")
    ap.add_argument("--arch", type=int, default=None, help="compute capability (default: the GPU's, else 90)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--json", type=pathlib.Path)
    args = ap.parse_args(argv)
    if args.recip_hoist is not None:
        import json

        arch = args.arch or _default_arch()
        passes = [p for p in args.passes.split(",") if p]
        rows = corpus_rows(args.recip_hoist, passes, arch, args.workers, args.limit)
        md = corpus_table(rows, passes, arch)
        print(md)
        if args.out:
            args.out.write_text(md)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1))
        return 1 if any("error" in r for r in rows) else 0
    md = table()
    print(md)
    if args.out:
        args.out.write_text("Per thread: 8 elements (1024 elements, 4 warps), sm_90a, Triton 3.6 / ptxas 12.8, "
                            "compiled on the CPU by `python -m bench.div_sass`.\n\n" + md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
