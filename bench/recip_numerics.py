"""What ``recip-hoist`` does to the numbers: ``x / s  ->  x * (1/s)``.

    python -m bench.recip_numerics [--n 1000000] [--seed 0] [--json OUT] [--md OUT]

For each dtype (f16, bf16, f32, f64) and pair of input ranges, draws x and s (values of the
dtype, random signs) and evaluates both forms as a GPU does under Triton 3.6:

* original ``x / s``: f32/f64 one IEEE division (NVIDIA's ``div.full.f32`` is within 2 ulp of
  it, and ttopt's interpreter, which ``--validate`` runs, uses IEEE division); f16/bf16 the
  f32 division of the widened operands, rounded to the type (Triton divides them in f32);
* rewritten ``x * (1/s)``: ``r = 1/s`` computed as above and rounded to the type, then
  ``x * r`` rounded once (the product of two f16 or bf16 values is exact in f32).

Per row: the samples where the original gives a finite non-zero result; how many ulps (of the
dtype) the two forms are apart at most, and how many samples are more than 4 ulps apart (the
default ``--validate-ulps`` of a reassociating pass); the max relative error of both forms
against long double (x87 80-bit on x86); and how many results only the rewritten form makes
inf, 0 or NaN (``1/s`` overflows for tiny ``s``; subnormal ``1/s`` loses bits for huge ``s``).
"""

from __future__ import annotations

import argparse
import json
import sys

import ml_dtypes
import numpy as np

# (name, log10 range of |x|, log10 range of |s|)
RANGES = [
    ("softmax: x=exp(.) in [1e-6, 1], s=sum in [1, 1e4]", (-6, 0), (0, 4)),
    ("layernorm: |x| in [1e-3, 1e1], s=std in [1e-3, 1e1]", (-3, 1), (-3, 1)),
    ("unit: both in [1e-1, 1e1]", (-1, 1), (-1, 1)),
    ("wide: both in [1e-8, 1e8]", (-8, 8), (-8, 8)),
    ("small divisor: |x| in [1e-3, 1e1], s in [1e-7, 1e-4]", (-3, 1), (-7, -4)),
    ("large divisor: |x| in [1e1, 1e4], s in [1e4, 6.5e4]", (1, 4), (4, 4.81)),
    ("tiny divisor: |x| in [1e-45, 1e-30], s in [1e-45, 1e-38]", (-45, -30), (-45, -38)),
    ("huge divisor: |x| in [1e30, 1e38], s in [1e37, 3e38]", (30, 38), (37, 38.47)),
]

DTYPES = {
    "f16": np.float16,
    "bf16": ml_dtypes.bfloat16,
    "f32": np.float32,
    "f64": np.float64,
}


def draw(rng, n, lo, hi, dtype):
    with np.errstate(all="ignore"):
        mag = 10.0 ** rng.uniform(lo, hi, n)
        return (mag * rng.choice([-1.0, 1.0], n)).astype(dtype)


def divide(x, s, dtype):
    """``x / s`` as Triton computes it: f16/bf16 in f32, rounded once to the type."""
    with np.errstate(all="ignore"):
        if dtype in (np.float32, np.float64):
            return x / s
        return (x.astype(np.float32) / s.astype(np.float32)).astype(dtype)


def multiply(x, r, dtype):
    with np.errstate(all="ignore"):
        if dtype in (np.float32, np.float64):
            return x * r
        return (x.astype(np.float32) * r.astype(np.float32)).astype(dtype)


def ulp_key(v: np.ndarray) -> np.ndarray:
    """Floats -> int64 keys ordered like them (-0 and +0 both 0): key differences are ulps."""
    s = v.view(np.dtype(f"i{v.dtype.itemsize}")).astype(np.int64)
    mag = s & np.int64((1 << (8 * v.dtype.itemsize - 1)) - 1)
    return np.where(s < 0, -mag, mag)


def rel_err(y: np.ndarray, ref: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return (np.abs(y.astype(np.float64).astype(np.longdouble) - ref) / np.abs(ref)).astype(np.float64)


def run(n: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for dname, dtype in DTYPES.items():
        for rname, (xlo, xhi), (slo, shi) in RANGES:
            x, s = draw(rng, n, xlo, xhi, dtype), draw(rng, n, slo, shi, dtype)
            with np.errstate(all="ignore"):
                ref = x.astype(np.float64).astype(np.longdouble) / s.astype(np.float64).astype(np.longdouble)
            y0 = divide(x, s, dtype)
            one = np.ones_like(s)
            y1 = multiply(x, divide(one, s, dtype), dtype)
            f0, f1 = y0.astype(np.float64), y1.astype(np.float64)
            ok0 = np.isfinite(f0) & (f0 != 0) & np.isfinite(ref) & (ref != 0)
            ok1 = np.isfinite(f1) & (f1 != 0)
            both = ok0 & ok1
            apart = np.abs(ulp_key(y0) - ulp_key(y1))[both]
            e0, e1 = rel_err(y0, ref)[ok0], rel_err(y1, ref)[both]
            rows.append({
                "dtype": dname,
                "range": rname,
                "samples": int(ok0.sum()),
                "max_ulps_apart": int(apart.max()) if apart.size else None,
                "differ": int((apart > 0).sum()),
                "over_4_ulps_apart": int((apart > 4).sum()),
                "max_rel_err_original": float(e0.max()) if e0.size else None,
                "max_rel_err_rewritten": float(e1.max()) if e1.size else None,
                "inf_zero_nan_only_after": int((ok0 & ~ok1).sum()),
            })
    return rows


def table(rows: list[dict], n: int) -> str:
    out = [
        f"x / s (original) against x * (1/s) (recip-hoist), {n} draws per row; counted over the "
        "samples where the original is finite and non-zero.  Reference: long double.  "
        "`python -m bench.recip_numerics`.\n",
        "| dtype | inputs | samples | max ulps apart | differ | > 4 ulps apart | max rel err before "
        "| max rel err after | inf/0/NaN only after |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    g = lambda v: "-" if v is None else f"{v:.3g}"  # noqa: E731
    for r in rows:
        out.append(
            f"| {r['dtype']} | {r['range']} | {r['samples']} | {r['max_ulps_apart']} | {r['differ']} "
            f"| {r['over_4_ulps_apart']} | {g(r['max_rel_err_original'])} | {g(r['max_rel_err_rewritten'])} "
            f"| {r['inf_zero_nan_only_after']} |"
        )
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json")
    ap.add_argument("--md")
    args = ap.parse_args(argv)
    rows = run(args.n, args.seed)
    md = table(rows, args.n)
    print(md)
    if args.md:
        with open(args.md, "w") as f:
            f.write(md)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
