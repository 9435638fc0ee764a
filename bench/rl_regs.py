"""What merging loads does to the compiled kernel, without a GPU: registers, local memory
(spills), SASS loads and their eviction hints, for the baseline, ``redundant-load`` (the kept
load keeps its own hints) and ``redundant-load-evl`` (the kept load takes ``evict_last`` when a
merged one had it).  Compiled on the CPU for sm_90 with Triton 3.6's ptxas.

    python -m bench.rl_regs FILE.ttir [...] [--corpus] [--suites] [--json OUT.json]

``--corpus``: every corpus TTIR that redundant-load changes (num_warps/num_stages from the
cache entry's ``.json``); ``--suites``: the paper suite's Table III kernels and the hint suite.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys
import tempfile

from bench import sass
from bench.variants import run_variant

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "inductor-triton3.6-h200"
VARIANTS = {"base": [], "redundant-load": ["redundant-load"], "redundant-load-evl": ["redundant-load-evl"]}


def compile_ttir(text: str, name: str, num_warps: int, num_stages: int) -> dict:
    import triton
    from triton.backends.compiler import GPUTarget

    with tempfile.TemporaryDirectory() as d:
        p = pathlib.Path(d) / f"{name}.ttir"
        p.write_text(text)
        k = triton.compile(str(p), target=GPUTarget("cuda", 90, 32),
                           options={"num_warps": num_warps, "num_stages": num_stages})
    ptx = k.asm["ptx"]
    out = sass.analyze_cubin(k.asm["cubin"])
    out["ptx_ld.global"] = len(re.findall(r"\bld\.global", ptx))
    out["ptx_L2::cache_hint"] = len(re.findall(r"L2::cache_hint", ptx))
    out["ptx_evict_last"] = len(re.findall(r"L1::evict_last", ptx))
    out["ptx_evict_first"] = len(re.findall(r"L1::evict_first", ptx))
    return out


def analyze(text: str, name: str, num_warps: int, num_stages: int) -> dict:
    row = {"kernel": name, "num_warps": num_warps, "num_stages": num_stages, "variants": {}}
    texts = {}
    for v, passes in VARIANTS.items():
        r = run_variant(text, passes)
        if passes and not r.changed:
            return {}
        texts[v] = r.text
        row["variants"][v] = {"rewrites": r.stats}
    row["evl_differs"] = texts["redundant-load"] != texts["redundant-load-evl"]
    with tempfile.TemporaryDirectory():
        for v in VARIANTS:
            if v == "redundant-load-evl" and not row["evl_differs"]:
                row["variants"][v].update(row["variants"]["redundant-load"])
                continue
            row["variants"][v].update(compile_ttir(texts[v], name, num_warps, num_stages))
    return row


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


def suite_inputs():
    from bench import hint_suite, paper_suite

    for name, src in paper_suite.suite_modules().items():
        if name.startswith("t3_"):
            block = int(re.search(r"BLOCK=(\d+)", src).group(1))
            sig = {"x_ptr": "*fp16", "y_ptr": "*fp32", "N": "i32", "BLOCK": "constexpr"}
            yield name, _suite_ttir(src, name, sig, {"BLOCK": block}, 4), 4, 3
    for name, src in hint_suite.suite_modules().items():
        block = int(re.search(r"BLOCK=(\d+)", src).group(1))
        sig = {"x_ptr": "*fp16", "y_ptr": "*fp16", "N": "i32", "BLOCK": "constexpr"}
        yield name, _suite_ttir(src, name, sig, {"BLOCK": block}, 8), 8, 3


def corpus_inputs():
    for p in sorted(CORPUS.glob("*/triton/*/*.ttir")):
        text = p.read_text()
        if "evictionPolicy" not in text and "cacheModifier" not in text:
            continue
        meta = json.loads(p.with_suffix(".json").read_text()) if p.with_suffix(".json").exists() else {}
        yield f"{p.parent.parent.parent.name}:{p.stem}", text, meta.get("num_warps", 4), meta.get("num_stages", 3)


def table(rows: list[dict]) -> str:
    keys = ["regs", "local_bytes", "STL", "LDL", "LDG", "LDG.EL", "LDG.EF", "ptx_ld.global", "ptx_L2::cache_hint", "total"]
    lines = ["| kernel | warps | variant | " + " | ".join(keys) + " |", "|" + "---|" * (len(keys) + 3)]
    for r in rows:
        for v, d in r["variants"].items():
            lines.append(f"| `{r['kernel'][-60:]}` | {r['num_warps']} | {v} | " + " | ".join(str(d.get(k, "")) for k in keys) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", type=pathlib.Path)
    ap.add_argument("--num-warps", type=int, default=4)
    ap.add_argument("--num-stages", type=int, default=3)
    ap.add_argument("--corpus", action="store_true")
    ap.add_argument("--suites", action="store_true")
    ap.add_argument("--json", type=pathlib.Path)
    args = ap.parse_args(argv)
    inputs = [(f.stem, f.read_text(), args.num_warps, args.num_stages) for f in args.files]
    if args.corpus:
        inputs += list(corpus_inputs())
    if args.suites:
        inputs += list(suite_inputs())
    rows = []
    for name, text, nw, ns in inputs:
        row = analyze(text, name, nw, ns)
        if row:
            rows.append(row)
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
