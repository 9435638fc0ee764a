"""What ptxas makes of division chains, without a GPU: SASS reciprocals (``MUFU.RCP``, f64
``MUFU.RCP64H``), multiplies and instruction counts of small Triton kernels, before and after
the rewrites ``div-chain`` can make.  The evidence behind its profitability rule.

    python -m bench.div_sass [--out bench/results/NAME/div_sass.md]

Each kernel loads a, t, s (1024 elements, 4 warps: 8 per thread) and stores one expression.
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=pathlib.Path)
    args = ap.parse_args(argv)
    md = table()
    print(md)
    if args.out:
        args.out.write_text("Per thread: 8 elements (1024 elements, 4 warps), sm_90a, Triton 3.6 / ptxas 12.8, "
                            "compiled on the CPU by `python -m bench.div_sass`.\n\n" + md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
