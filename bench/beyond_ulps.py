"""Errors in ulps of every timed variant's outputs against the baseline's, from a bench.tune
work folder (``WORK/outputs/<pass>/<variant>/<model>__<module>/run1.pt``, saved by
``bench.worker``: whole tensors when small, else a strided sample plus a bit digest).

    python -m bench.beyond_ulps WORK [--json OUT.json] [--md OUT.md]

Per kernel and variant, over all its float outputs: elements compared, elements that differ,
the largest distance in ulps of the output's own type (f32, f16, bf16: adjacent floats are 1
apart; computed on the ordered integer view of the bits), the largest relative difference
``|a - b| / |b|`` element-wise, and the same for the baseline against its own rerun (``run2``,
the nondeterminism floor).  A reassociating rewrite (recip-hoist, div-chain) on f16 outputs can
flip an f16 rounding: 1 ulp of f16 is up to 9.8e-4 relative, above bench.tune's 1e-4 bound,
which is why this reads ulps.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys


def ordered_ints(bits, width: int):
    """numpy int64 array: the float bit patterns ``bits`` (integers of ``width`` bits, as
    stored) mapped so that adjacent floats are adjacent integers (+0 and -0 both 0)."""
    import numpy as np

    b = np.asarray(bits).astype(np.int64) & ((1 << width) - 1)
    sign = 1 << (width - 1)
    return np.where(b & sign, -(b & (sign - 1)), b)


def ulp_stats(bits_a, bits_b, vals_a, vals_b, width: int) -> tuple[int, int, float]:
    """(elements that differ, max ulps, max element-wise relative difference); NaN == NaN."""
    import numpy as np

    ia, ib = ordered_ints(bits_a, width), ordered_ints(bits_b, width)
    va, vb = np.asarray(vals_a, dtype=np.float64), np.asarray(vals_b, dtype=np.float64)
    d = np.abs(ia - ib)
    d[np.isnan(va) & np.isnan(vb)] = 0
    diff = d != 0
    n = int(diff.sum())
    if not n:
        return 0, 0, 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.abs(va - vb)[diff] / np.maximum(np.abs(vb[diff]), 1e-30)
    return n, int(d.max()), float(np.nanmax(rel)) if rel.size else 0.0


def ulp_distance(a, b) -> tuple[int, int, float]:
    """:func:`ulp_stats` of two torch float tensors of one dtype."""
    import torch

    if a.dtype != b.dtype or a.shape != b.shape or not torch.is_floating_point(a):
        return 0, 0, 0.0
    size = a.element_size()
    it = {2: torch.int16, 4: torch.int32, 8: torch.int64}[size]
    bits = lambda t: t.contiguous().reshape(-1).view(it).numpy()  # noqa: E731
    vals = lambda t: t.contiguous().reshape(-1).double().numpy()  # noqa: E731
    return ulp_stats(bits(a), bits(b), vals(a), vals(b), 8 * size)


def compare_files(pa: pathlib.Path, pb: pathlib.Path) -> dict | None:
    import torch

    if not pa.exists() or not pb.exists():
        return None
    a = torch.load(pa, map_location="cpu", weights_only=False)
    b = torch.load(pb, map_location="cpu", weights_only=False)
    out = {"full": bool(a.get("full")), "compared": 0, "n_diff": 0, "max_ulps": 0, "max_rel": 0.0, "dtypes": {}}
    for x, y in zip(a["tensors"], b["tensors"]):
        if not torch.is_floating_point(x):
            continue
        n, u, r = ulp_distance(x, y)
        out["compared"] += x.numel()
        out["n_diff"] += n
        out["max_ulps"] = max(out["max_ulps"], u)
        out["max_rel"] = max(out["max_rel"], r)
        dt = str(x.dtype).replace("torch.", "")
        cell = out["dtypes"].setdefault(dt, {"compared": 0, "n_diff": 0, "max_ulps": 0})
        cell["compared"] += x.numel()
        cell["n_diff"] += n
        cell["max_ulps"] = max(cell["max_ulps"], u)
    return out


def scan(work: pathlib.Path) -> list[dict]:
    rows = []
    for tag_dir in sorted((work / "outputs").glob("*")):
        base_dir = tag_dir / "base"
        for entry in sorted(base_dir.glob("*")) if base_dir.exists() else []:
            row = {"pass": tag_dir.name, "entry": entry.name,
                   "base_rerun": compare_files(entry / "run2.pt", entry / "run1.pt"), "variants": {}}
            for vdir in sorted(tag_dir.glob("*")):
                if vdir.name == "base":
                    continue
                r = compare_files(vdir / entry.name / "run1.pt", entry / "run1.pt")
                if r is not None:
                    row["variants"][vdir.name] = r
            rows.append(row)
    return rows


def markdown(rows: list[dict]) -> str:
    lines = ["| pass | kernel | variant | outputs compared (full?) | differ | max ulps (per dtype) | max rel | base rerun differ |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        rr = r["base_rerun"] or {}
        for v, d in r["variants"].items():
            per = ", ".join(f"{k} {c['max_ulps']}" for k, c in d["dtypes"].items())
            lines.append(f"| {r['pass']} | `{r['entry'][-70:]}` | {v} | {d['compared']} ({'full' if d['full'] else 'sample'}) | "
                         f"{d['n_diff']} | {d['max_ulps']} ({per}) | {d['max_rel']:.2e} | {rr.get('n_diff', '?')} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.beyond_ulps", description=__doc__.split("\n")[0])
    ap.add_argument("work", type=pathlib.Path)
    ap.add_argument("--json", type=pathlib.Path)
    ap.add_argument("--md", type=pathlib.Path)
    args = ap.parse_args(argv)
    rows = scan(args.work)
    md = markdown(rows)
    print(md)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    if args.md:
        args.md.write_text(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
