"""Per-rewrite tables of two bench.beyond_tune runs (bench/results/h100-beyond/README.md).

    python -m bench.beyond_report RUN1 RUN2 [--md OUT.md]

RUN1, RUN2: ``--out`` folders of ``python -m bench.beyond_tune`` (``results.jsonl``, and
``ulps.json`` from ``python -m bench.beyond_ulps``).  One table per rewrite (the variant that
was timed: ``opt`` = ``exact``, ``rh`` = recip-hoist, ``dc`` = div-chain), one row per kernel:
base time, speedup vs the baseline with its 95% CI (pass 1) and the confirmation pass in
each run, the decision of each run, SASS of the chosen config (LDG, MUFU.RCP, instructions,
registers: baseline -> variant), and numerics (bench.tune's label; the largest distance in ulps
of the output type over the compared outputs).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

GROUPS = [
    ("redundant-load, new abilities (SYNTHETIC kernels; variant `exact`)", "opt", lambda k: k.startswith("beyond-suite/") and "hoist" not in k),
    ("hoist-load (SYNTHETIC kernels; variant `exact` = `hoist-load` here)", "opt", lambda k: "bs_hoist" in k),
    ("recip-hoist (real corpus kernels)", "rh", lambda k: not k.startswith("beyond-suite/")),
    ("recip-hoist (SYNTHETIC)", "rh", lambda k: k.startswith("beyond-suite/")),
    ("div-chain, new cases (SYNTHETIC)", "dc", lambda k: k.startswith("beyond-suite/")),
]


def load(run: pathlib.Path) -> tuple[dict, dict, dict]:
    p1, p2 = {}, {}
    for line in (run / "results.jsonl").read_text().splitlines():
        r = json.loads(line)
        (p1 if r.get("pass") == "p1" else p2)[r["key"]] = r
    ulps = {}
    if (run / "ulps.json").exists():
        for r in json.loads((run / "ulps.json").read_text()):
            for v, d in r["variants"].items():
                ulps[(r["pass"], r["entry"], v)] = d
    return p1, p2, ulps


def _ci(x) -> str:
    return f"{x[0]:.3f}x [{x[1]:.3f}, {x[2]:.3f}]"


def _sass(r: dict, v: str, k: str) -> str:
    b = r.get("dump", {}).get("base", {}).get("sass", {}).get(k)
    o = r.get("dump", {}).get(v, {}).get("sass", {}).get(k)
    if b is None or o is None:
        return "?"
    return str(b) if b == o else f"{b}->{o}"


def _entry(key: str) -> str:
    return key.replace("/", "__")


def tables(run1: pathlib.Path, run2: pathlib.Path) -> str:
    a1, c1, u1 = load(run1)
    a2, c2, u2 = load(run2)
    out = []
    for title, v, pick in GROUPS:
        rows = [k for k in sorted(a1) if pick(k) and v in a1[k].get("variant_results", {})]
        if not rows:
            continue
        out += [f"#### {title}", "",
                "| kernel | T base | run 1: pass 1 / confirmation | run 2: pass 1 / confirmation | kept 1 / 2 | LDG | MUFU.RCP | SASS instr. | regs | numerics (max ulps) |",
                "|---|---|---|---|---|---|---|---|---|---|"]
        for k in rows:
            cells = []
            kept = []
            for p1, p2 in ((a1, c1), (a2, c2)):
                r = p1.get(k, {})
                res = r.get("variant_results", {}).get(v)
                if res is None:
                    cells.append("-")
                    kept.append("-")
                    continue
                conf = p2.get(k, {}).get("variant_results", {}).get(v)
                cell = f"{_ci(res['speedup_vs_base'])} {res['verdict']}"
                if not r.get("control_ok", True):
                    cell += f" (control {r['control_base_vs_null'][0]:.3f}x)"
                cell += f" / {_ci(conf['speedup_vs_base']) if conf else '-'}"
                cells.append(cell)
                kept.append("keep" if (r.get("decision") or {}).get("keep") == v else "-")
            r = a1[k]
            res = r["variant_results"][v]
            ul = [u.get((t, _entry(k), v)) for u in (u1, u2) for t in ("p1", "p2")]
            ul = [d["max_ulps"] for d in ul if d]
            num = res["numerics_label"] + (f" ({max(ul)})" if ul else "")
            name = k.split("/", 1)[1]
            model = k.split("/", 1)[0]
            short = name if len(name) <= 60 else name[:28] + "..." + name[-28:]
            out.append(f"| {'' if model == 'beyond-suite' else model + ' '}`{short}` | {r['t_ms']['base'] * 1e3:.1f} us | "
                       f"{cells[0]} | {cells[1]} | {kept[0]} / {kept[1]} | {_sass(r, v, 'LDG')} | "
                       f"{_sass(r, v, 'MUFU.RCP')} | {_sass(r, v, 'total')} | {_sass(r, v, 'regs')} | {num} |")
        out.append("")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.beyond_report", description=__doc__.split("\n")[0])
    ap.add_argument("run1", type=pathlib.Path)
    ap.add_argument("run2", type=pathlib.Path)
    ap.add_argument("--md", type=pathlib.Path)
    args = ap.parse_args(argv)
    md = tables(args.run1, args.run2)
    print(md)
    if args.md:
        args.md.write_text(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
