"""Reports of ``bench.tune`` / ``bench.override``: a Markdown table with confidence intervals,
SASS counts and roofline class per kernel, and a plot of every speedup with its interval."""

from __future__ import annotations

import json
import pathlib


def _ci(x) -> str:
    if not x:
        return "-"
    v, lo, hi = x
    return f"{v:.3f}x [{lo:.3f}, {hi:.3f}]"


def _short(name: str, n: int = 48) -> str:
    return name if len(name) <= n else name[: n - 3] + "..."


def _arrow(a, b) -> str:
    if a is None and b is None:
        return "-"
    return str(a) if a == b else f"{a}->{b}"


def _rewrites(r: dict, v: str) -> str:
    rw = r.get("rewrites", {}).get(v, {})
    abbrev = {"redundant-load": "RL", "redundant-reduce": "RR", "div-chain": "DC", "redundant-load-evl": "RLe"}
    return " ".join(f"{abbrev.get(k, k)}{n}" for k, n in rw.items() if n) or "-"


def variant_rows(rows: list[dict]):
    """(row, variant, result) for every optimized variant of every timed row."""
    for r in rows:
        for v, res in (r.get("variant_results") or {}).items():
            yield r, v, res


def markdown(rows: list[dict], confirm: dict[str, dict] | None = None, decisions: dict[str, str] | None = None) -> str:
    """The per-kernel table.  ``confirm``: key -> the confirmation pass's row."""
    confirm = confirm or {}
    decisions = decisions or {}
    head = ("| model | kernel | variant | rewrites | T base (us) | control base/null [95% CI] | speedup vs base [95% CI] "
            "| vs null [95% CI] | confirm vs base [95% CI] | verdict | numerics (vs base; base rerun) "
            "| LDG (EL) b->o | MUFU.RCP b->o | FFMA b->o | regs b->o | spill STL/LDL b->o | base GB/s (frac copy) class | decision |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r, v, res in variant_rows(rows):
        sb = r["dump"]["base"].get("sass", {})
        so = r["dump"][v].get("sass", {})
        c = confirm.get(r["key"], {}).get("variant_results", {}).get(v, {})
        rerun = r.get("numerics_base_rerun") or {}
        num = res.get("numerics") or {}
        num_txt = (f"{res.get('numerics_label')}: {num.get('n_diff', '?')} diff, {num.get('max_rel', 0):.1e}; "
                   f"rerun {'=' if rerun.get('equal') else (str(rerun.get('n_diff')) + ' diff')}")
        roof = r.get("roofline", {}).get("base", {})
        lines.append(
            f"| {r['model']} | `{_short(r['kernel'])}` | {v} | {_rewrites(r, v)} | {r['t_ms']['base'] * 1e3:.2f} "
            f"| {_ci(r.get('control_base_vs_null'))} | {_ci(res.get('speedup_vs_base'))} | {_ci(res.get('speedup_vs_null'))} "
            f"| {_ci(c.get('speedup_vs_base'))} | {res.get('verdict')}{' / ' + c['verdict'] if c.get('verdict') else ''} "
            f"| {num_txt} "
            f"| {_arrow(sb.get('LDG'), so.get('LDG'))} ({_arrow(sb.get('LDG.EL'), so.get('LDG.EL'))}) "
            f"| {_arrow(sb.get('MUFU.RCP'), so.get('MUFU.RCP'))} | {_arrow(sb.get('FFMA'), so.get('FFMA'))} "
            f"| {_arrow(sb.get('regs'), so.get('regs'))} "
            f"| {_arrow(sb.get('STL', 0) + sb.get('LDL', 0) if sb else None, so.get('STL', 0) + so.get('LDL', 0) if so else None)} "
            f"| {roof.get('bw_GBps', 0):.0f} ({roof.get('frac', 0):.2f}) {roof.get('class', '')} "
            f"| {decisions.get((r['key'], v), '-')} |"
        )
    return "\n".join(lines) + "\n"


def errors_table(rows: list[dict]) -> str:
    bad = [r for r in rows if r.get("error")]
    if not bad:
        return ""
    lines = ["| model | kernel | error |", "|---|---|---|"]
    for r in bad:
        lines.append(f"| {r['model']} | `{_short(r['kernel'])}` | {r['error'].splitlines()[0][:200]} |")
    return "\n".join(lines) + "\n"


def plot(rows: list[dict], path: pathlib.Path, title: str, confirm: dict[str, dict] | None = None,
         decisions: dict | None = None) -> None:
    """Speedup over the baseline with its 95% CI per kernel and variant, the confirmation pass
    beside it (square) and the null-override control (black bar).  Colour: kept (green),
    faster in pass 1 but not kept (olive), slower (red), no change (grey)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    items = list(variant_rows(rows))
    if not items:
        return
    decisions = decisions or {}
    fig, ax = plt.subplots(figsize=(10, max(3, 0.32 * len(items) + 2)))
    for i, (r, v, res) in enumerate(items):
        val, lo, hi = res["speedup_vs_base"]
        if "keep" in str(decisions.get((r["key"], v), "")):
            col = "tab:green"
        elif res["verdict"] == "faster":
            col = "olive"
        elif res["verdict"] == "slower":
            col = "tab:red"
        else:
            col = "tab:grey"
        ax.errorbar([val], [i], xerr=[[val - lo], [hi - val]], fmt="o", color=col, capsize=3, markersize=4)
        cv, clo, chi = r["control_base_vs_null"]
        ax.errorbar([cv], [i + 0.3], xerr=[[cv - clo], [chi - cv]], fmt="|", color="black", alpha=0.5, capsize=2)
        c = (confirm or {}).get(r["key"], {}).get("variant_results", {}).get(v)
        if c:
            cv2, clo2, chi2 = c["speedup_vs_base"]
            ax.errorbar([cv2], [i - 0.3], xerr=[[cv2 - clo2], [chi2 - cv2]], fmt="s", color=col, alpha=0.6,
                        capsize=2, markersize=3)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(items)))
    ax.set_yticklabels([f"{r['model'][:18]}:{r['kernel'][-38:]} [{v}]" for r, v, _ in items], fontsize=6)
    ax.set_xlabel("speedup T_base / T_variant: median and 95% CI\n"
                  "circle: pass 1; square: confirmation pass; black bar: base/null-override control\n"
                  "green: kept; olive: faster in pass 1 only; red: slower; grey: no change", fontsize=7)
    ax.set_title(title, fontsize=8)
    ax.invert_yaxis()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_jsonl(rows: list[dict], path: pathlib.Path) -> None:
    path.write_text("".join(json.dumps(r, default=sorted) + "\n" for r in rows))


# ---- rebuilding a run's reports, comparing two runs ---------------------------------------------


def load_run(run_dir: pathlib.Path) -> tuple[list[dict], dict[str, dict]]:
    """(pass-1 rows, key -> confirmation row) of a ``bench.tune`` output folder.  Rows written
    before the "not rewritten (chosen config)" verdict existed get it here, from the same
    evidence: the override was not applied and the variant's own dump has the baseline's ops."""
    rows, confirm = [], {}
    for line in (pathlib.Path(run_dir) / "results.jsonl").read_text().splitlines():
        r = json.loads(line)
        for v, res in (r.get("variant_results") or {}).items():
            if "rewritten_in_chosen_config" not in res:
                same = res.get("ops_in_dump") == r["dump"]["base"].get("ops")
                res["rewritten_in_chosen_config"] = bool(res.get("override_applied")) or not same
                if not res["rewritten_in_chosen_config"]:
                    res["verdict"] = "not rewritten (chosen config)"
        (confirm.__setitem__(r["key"], r) if r.get("pass") == "p2" else rows.append(r))
    return rows, confirm


def reverdict(row: dict, min_speedup: float) -> dict:
    """The row with its variants' verdicts recomputed for another ``--min-speedup``."""
    from bench import stats

    out = json.loads(json.dumps(row))
    control = stats.Ratio(*row["control_base_vs_null"]) if row.get("control_base_vs_null") else None
    for res in (out.get("variant_results") or {}).values():
        if res["verdict"].startswith("not rewritten") or not res.get("speedup_vs_base"):
            continue
        v = stats.verdict(stats.Ratio(*res["speedup_vs_base"]), stats.Ratio(*res["speedup_vs_null"]),
                          min_speedup, control)
        if not row.get("control_ok", True) and v != stats.NO_CHANGE:
            v = stats.NO_CHANGE + " (control failed)"
        res["verdict"] = v
    return out


def decisions_of(rows: list[dict], confirm: dict[str, dict], min_speedup: float | None = None) -> dict:
    """(key, variant) -> "**keep**" / "reject", by ``bench.tune.decide`` (verdicts recomputed
    when ``min_speedup`` is given)."""
    from bench.tune import decide

    out = {}
    for r in rows:
        rr = reverdict(r, min_speedup) if min_speedup is not None else r
        cc = confirm.get(r["key"])
        if min_speedup is not None and cc is not None:
            cc = reverdict(cc, min_speedup)
        win, _ = decide(rr, cc)
        for v in r.get("variant_results") or {}:
            out[(r["key"], v)] = "**keep**" if v == win else "reject"
    return out


def compare(a_dir: pathlib.Path, b_dir: pathlib.Path, min_speedups=(1.0, 1.01)) -> str:
    """Markdown: each kernel's speedup and decision in two runs, and the decisions for other
    ``--min-speedup`` thresholds, recomputed from the recorded intervals."""
    ra, ca = load_run(a_dir)
    rb, cb = load_run(b_dir)
    da = {m: decisions_of(ra, ca, m) for m in min_speedups}
    db = {m: decisions_of(rb, cb, m) for m in min_speedups}
    byb = {(r["key"], v): (r, res) for r, v, res in variant_rows(rb)}
    head = ["model", "kernel", "variant", "run A vs base [95% CI]", "A verdict", "run B vs base [95% CI]", "B verdict"]
    head += [f"kept A / B (min {m})" for m in min_speedups]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    agree = {m: [0, 0] for m in min_speedups}
    for r, v, res in variant_rows(ra):
        k = (r["key"], v)
        rbv, resb = byb.get(k, (None, {}))
        cells = [r["model"], f"`{_short(r['kernel'])}`", v, _ci(res.get("speedup_vs_base")), res["verdict"],
                 _ci(resb.get("speedup_vs_base")), resb.get("verdict", "-")]
        for m in min_speedups:
            a, b = da[m].get(k, "-"), db[m].get(k, "-")
            cells.append(f"{'keep' if 'keep' in a else '-'} / {'keep' if 'keep' in b else '-'}")
            agree[m][0] += a == b
            agree[m][1] += 1
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for m in min_speedups:
        kept_a = sorted(k for k, d in da[m].items() if "keep" in d)
        kept_b = sorted(k for k, d in db[m].items() if "keep" in d)
        lines.append(f"min-speedup {m}: kept {len(kept_a)} in A, {len(kept_b)} in B, {len(set(kept_a) & set(kept_b))} in "
                     f"both; same decision for {agree[m][0]} of {agree[m][1]} kernel variants.")
    return "\n".join(lines) + "\n"


def rebuild(run_dir: pathlib.Path, title: str) -> None:
    """results.md and speedup.png of a run, from its results.jsonl."""
    rows, confirm = load_run(run_dir)
    dec = decisions_of(rows, confirm)
    md = markdown(rows, confirm, dec)
    errs = errors_table(rows)
    (pathlib.Path(run_dir) / "results.md").write_text(md + ("\n### Errors\n\n" + errs if errs else ""))
    plot(rows, pathlib.Path(run_dir) / "speedup.png", title, confirm, dec)


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="rebuild a bench.tune run's reports; compare two runs")
    ap.add_argument("run", type=pathlib.Path)
    ap.add_argument("--compare", type=pathlib.Path, help="a second run of the same kernels")
    ap.add_argument("--title", default="ttopt tune")
    ap.add_argument("--rebuild", action="store_true", help="rewrite results.md and speedup.png")
    args = ap.parse_args(argv)
    if args.rebuild:
        rebuild(args.run, args.title)
    if args.compare:
        print(compare(args.run, args.compare))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
