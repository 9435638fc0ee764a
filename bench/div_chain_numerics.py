"""What ``div-chain`` does to the numbers: max relative error against a float64 reference.

    python -m bench.div_chain_numerics [--n 1000000] [--seed 0] [--json OUT]

For each dtype (f16, bf16 emulated by rounding f32, f32, f64) and each input range, draws
random a, b, c, d and evaluates, rounding to the dtype after every operation as the GPU does:

    original           rewritten by div-chain
    a/b/c              a/(b*c)
    c/(a/b)            (c*b)/a
    a/b/c/d            a/((b*c)*d)
    a/b/b              a/(b*b)
    (a/b)/(c/d)        (a*d)/(b*c)      (case 3: two divisions removed)

(The rewrites through tt.splat / tt.broadcast / tt.expand_dims compute the same elementwise
expressions on copied elements: the same numbers.)

against the value computed in long double (x87 80-bit on x86: 11 more bits than f64).  Reports the max and the 99.99th-percentile relative error of both
forms, how many ulps (of the dtype) the two forms are apart at most and how many samples are
more than 4 ulps apart (the default ``--validate-ulps`` of a reassociating pass), and how
many results became inf/0 only in the rewritten form (overflow/underflow of the product).  IEEE division is used on the CPU; on NVIDIA f32 ``div.full`` adds up to 2 ulp
per division to *both* forms, and the rewritten form has one division fewer.
"""

from __future__ import annotations

import argparse
import json
import sys

import ml_dtypes
import numpy as np

RANGES = {
    # name: (log10 low, log10 high) of |x|; signs random
    "unit [1e-1, 1e1]": (-1, 1),
    "layernorm-like [1e-3, 1e3]": (-3, 3),
    "wide [1e-8, 1e8]": (-8, 8),
    "extreme [1e-19, 1e19]": (-19, 19),
}

EXPRESSIONS = {
    "a/b/c -> a/(b*c)": (lambda a, b, c, d, r: r(r(a / b) / c), lambda a, b, c, d, r: r(a / r(b * c))),
    "c/(a/b) -> (c*b)/a": (lambda a, b, c, d, r: r(c / r(a / b)), lambda a, b, c, d, r: r(r(c * b) / a)),
    "a/b/c/d -> a/((b*c)*d)": (
        lambda a, b, c, d, r: r(r(r(a / b) / c) / d),
        lambda a, b, c, d, r: r(a / r(r(b * c) * d)),
    ),
    "a/b/b -> a/(b*b)": (lambda a, b, c, d, r: r(r(a / b) / b), lambda a, b, c, d, r: r(a / r(b * b))),
    "(a/b)/(c/d) -> (a*d)/(b*c)": (
        lambda a, b, c, d, r: r(r(a / b) / r(c / d)),
        lambda a, b, c, d, r: r(r(a * d) / r(b * c)),
    ),
}


def _round_bf16(x: np.ndarray) -> np.ndarray:
    """Round float32 values to bfloat16 (round to nearest even), kept in float32."""
    bits = x.astype(np.float32).view(np.uint32)
    rounding = ((bits >> 16) & 1) + 0x7FFF
    return ((bits + rounding) & 0xFFFF0000).view(np.float32)


DTYPES = {
    "f16": (np.float16, lambda x: x.astype(np.float16)),
    "bf16": (np.float32, lambda x: _round_bf16(x.astype(np.float32))),
    "f32": (np.float32, lambda x: x.astype(np.float32)),
    "f64": (np.float64, lambda x: x.astype(np.float64)),
}


def ulps_apart(x: np.ndarray, y: np.ndarray, dname: str) -> np.ndarray:
    """|x - y| in ulps of the dtype (bf16 values are kept in f32: compared as bf16)."""
    as_type = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64}[dname]

    def key(v):
        v = np.asarray(v).astype(as_type)
        s = v.view(np.dtype(f"i{v.dtype.itemsize}")).astype(np.int64)
        mag = s & np.int64((1 << (8 * v.dtype.itemsize - 1)) - 1)
        return np.where(s < 0, -mag, mag)

    return np.abs(key(x) - key(y))


def draw(rng, n, lo, hi, dtype, rnd):
    mag = 10.0 ** rng.uniform(lo, hi, n)
    sign = rng.choice([-1.0, 1.0], n)
    return rnd(mag * sign)


def rel_err(x: np.ndarray, ref: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return (np.abs(x.astype(np.longdouble) - ref) / np.abs(ref)).astype(np.float64)


def run(n: int, seed: int):
    rng = np.random.default_rng(seed)
    rows = []
    for dname, (dtype, rnd) in DTYPES.items():
        for rname, (lo, hi) in RANGES.items():
            args = [draw(rng, n, lo, hi, dtype, rnd) for _ in range(4)]
            exact = [x.astype(np.longdouble) for x in args]
            for ename, (orig, new) in EXPRESSIONS.items():
                with np.errstate(all="ignore"):
                    ref = orig(*exact, lambda v: v)
                    y0 = orig(*args, rnd)
                    y1 = new(*args, rnd)
                ok0 = np.isfinite(y0.astype(np.float64)) & (y0 != 0)
                ok1 = np.isfinite(y1.astype(np.float64)) & (y1 != 0)
                # samples where the original computes a finite, non-zero result
                representable = ok0 & np.isfinite(ref) & (ref != 0)
                e0 = rel_err(y0, ref)[representable]
                e1 = rel_err(y1, ref)[representable & ok1]
                broken = int(np.sum(representable & ~ok1))
                apart = ulps_apart(y0, y1, dname)[representable & ok1]
                rows.append(
                    {
                        "dtype": dname,
                        "range": rname,
                        "expression": ename,
                        "samples": int(representable.sum()),
                        "max_rel_err_original": float(np.nanmax(e0)) if e0.size else None,
                        "max_rel_err_rewritten": float(np.nanmax(e1)) if e1.size else None,
                        "p9999_rel_err_rewritten": float(np.nanpercentile(e1, 99.99)) if e1.size else None,
                        "max_ulps_apart": int(apart.max()) if apart.size else None,
                        "over_4_ulps_apart": int((apart > 4).sum()),
                        "inf_or_zero_only_after_rewrite": broken,
                    }
                )
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    rows = run(args.n, args.seed)
    print(f"Samples per row: {args.n} draws; errors over those where the original form gives a "
          "finite non-zero result; last column: of those, how many the rewritten form turns "
          "into inf/0/NaN (overflow/underflow of the product).  Reference: long double.\n")
    print("| dtype | range | expression | max rel err before | max rel err after | 99.99% after "
          "| max ulps apart | > 4 ulps apart | inf/0 only after |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['dtype']} | {r['range']} | {r['expression']} | {r['max_rel_err_original']:.3g} | "
            f"{r['max_rel_err_rewritten']:.3g} | {r['p9999_rel_err_rewritten']:.3g} | "
            f"{r['max_ulps_apart']} | {r['over_4_ulps_apart']} | "
            f"{r['inf_or_zero_only_after_rewrite']} / {r['samples']} |"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
