"""Pass pipelines that the benchmark can try, ttopt's own and bench-only variants.

``redundant-load-evl`` was ``redundant-load`` with one change to which hints the kept load
carries (it takes ``evict_last`` when a merged load had it, unless it has ``.ca``/``.cg``),
measured here before the rule moved into ``ttopt/passes/redundant_load.py``
(bench/results/h100-tune).  Since then it is an alias of ``redundant-load``, kept so that the
committed commands (bench/results/h100-tune/commands.sh) still run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import ttopt
from ttopt.passes import PASSES, PassStats
from ttopt.passes.redundant_load import RedundantLoad


class RedundantLoadEvictLast(RedundantLoad):
    """``redundant-load-evl``: now exactly ``redundant-load`` (see the module docstring)."""

    name = "redundant-load-evl"
    summary = "alias of redundant-load (its evict_last rule was measured under this name)"


BENCH_PASSES = {RedundantLoadEvictLast.name: RedundantLoadEvictLast}


@dataclass
class VariantResult:
    text: str
    stats: dict[str, int] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return any(self.stats.values())


def run_variant(text: str, passes: Sequence[str], filename: str = "<input>") -> VariantResult:
    """Run ``passes`` (ttopt's or BENCH_PASSES) on ``text``; empty ``passes``: a round trip."""
    if all(p in PASSES for p in passes):
        result = ttopt.run_pipeline(text, list(passes), filename)
        return VariantResult(result.text, {s.name: s.total for s in result.stats})
    from ttopt.ir.reader import read_module
    from ttopt.ir.writer import write_module

    unknown = [p for p in passes if p not in PASSES and p not in BENCH_PASSES]
    if unknown:
        raise ValueError(f"unknown pass {unknown[0]!r} (known: {', '.join([*PASSES, *BENCH_PASSES])})")
    module = read_module(text, filename)
    stats: list[PassStats] = []
    for name in passes:
        cls = PASSES.get(name) or BENCH_PASSES[name]
        stats.append(cls().run(module.op))
    return VariantResult(write_module(module), {s.name: s.total for s in stats})
