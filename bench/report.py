"""Reports of an override benchmark: JSON lines, a Markdown table, a speedup plot."""

from __future__ import annotations

import json
import pathlib
import statistics

FIELDS = [
    "model", "kernel", "passes", "rewrites", "t_before_ms", "t_after_ms", "speedup_median",
    "speedup_eq1", "max_rel_err", "gpu", "triton", "torch",
]


def speedups(before: list[float], after: list[float]) -> tuple[float, float]:
    """(ratio of medians, the paper's Eq. 1: mean over paired runs of T_before / T_after)."""
    med = statistics.median(before) / statistics.median(after)
    eq1 = statistics.fmean(b / a for b, a in zip(before, after))
    return med, eq1


def write_jsonl(rows: list[dict], path: pathlib.Path) -> None:
    path.write_text("".join(json.dumps({k: r.get(k) for k in FIELDS} | r, sort_keys=False) + "\n" for r in rows))


def markdown_table(rows: list[dict]) -> str:
    lines = [
        "| model | kernel | rewrites | T before (ms) | T after (ms) | speedup (median) | speedup (Eq. 1) | max rel err |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        rewrites = ", ".join(f"{k} {v}" for k, v in r["rewrites"].items() if v)
        name = r["kernel"] if len(r["kernel"]) <= 60 else r["kernel"][:57] + "..."
        lines.append(
            f"| {r['model']} | `{name}` | {rewrites} | {r['t_before_ms']:.4f} | {r['t_after_ms']:.4f} | "
            f"{r['speedup_median']:.3f}x | {r['speedup_eq1']:.3f}x | {r['max_rel_err']:.2e} |"
        )
    if rows:
        lines.append(
            f"| **mean** | {len(rows)} kernels | | | | {statistics.fmean(r['speedup_median'] for r in rows):.3f}x | "
            f"{statistics.fmean(r['speedup_eq1'] for r in rows):.3f}x | {max(r['max_rel_err'] for r in rows):.2e} |"
        )
    return "\n".join(lines) + "\n"


def plot(rows: list[dict], path: pathlib.Path, title: str) -> None:
    """Bar chart of speedup (Eq. 1) per kernel, as the paper's Figures 4 and 5."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [f"{r['model']}:{r['kernel'][-40:]}" for r in rows]
    values = [r["speedup_eq1"] for r in rows]
    fig, ax = plt.subplots(figsize=(max(6, 0.35 * len(rows) + 2), 4.5))
    ax.bar(range(len(rows)), values, color=["tab:green" if v >= 1 else "tab:red" for v in values])
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(labels, rotation=80, fontsize=6)
    ax.set_ylabel("speedup T_before / T_after (Eq. 1)")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def relative_error(out, ref) -> float:
    """max |out - ref| / max |ref| over a tensor (exact comparison for bool/int)."""
    import torch

    if not torch.is_floating_point(ref):
        return 0.0 if torch.equal(out, ref) else float("inf")
    out64, ref64 = out.double(), ref.double()
    both_nan = torch.isnan(out64) & torch.isnan(ref64)
    same = both_nan | (out64 == ref64)  # includes equal infinities
    diff = torch.where(same, torch.zeros_like(out64), (out64 - ref64).abs())
    if torch.isnan(diff).any():
        return float("inf")
    finite = ref64[torch.isfinite(ref64)]
    scale = finite.abs().max().item() if finite.numel() else 0.0
    m = diff.max().item() if diff.numel() else 0.0
    return m / scale if scale > 0 else (0.0 if m == 0 else float("inf"))
