"""Pass pipelines that the benchmark can try, ttopt's own and bench-only variants.

``redundant-load-evl`` is ``redundant-load`` with one change to which hints the kept load
carries: when a merged (removed) load had ``evictionPolicy = evict_last`` and the kept one did
not, the kept one gets ``evict_last`` -- unless it has a cache modifier (``.ca``/``.cg``: ptxas
rejects ``evict_last`` with either, checked with Triton 3.6's ptxas 12.8).  It exists here to be
measured before the rule moves into ``ttopt/passes/redundant_load.py`` (see the report in
``bench/results``); ``keep_evict_last`` is the exact code proposed for that file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import ttopt
from ttopt.dialects.base import int_attr
from ttopt.dialects.tt import LoadOp
from ttopt.passes import PASSES, PassStats
from ttopt.passes.redundant_load import RedundantLoad, eligible, load_key

EVICT_LAST = 3
CACHE_NONE = 1


def keep_evict_last(kept: LoadOp, merged: LoadOp) -> None:
    """The kept load asks to stay in cache (``evict_last``) if the merged one did, and the
    kept one has no cache modifier (ptxas rejects ``evict_last`` with ``.ca``/``.cg``)."""
    if (
        merged.eviction_policy == EVICT_LAST
        and kept.eviction_policy != EVICT_LAST
        and kept.cache_modifier == CACHE_NONE
    ):
        kept.properties["evict"] = int_attr(EVICT_LAST)


class _Tracking(dict):
    """The pass's table of available loads, recording each merge (``get`` that finds one)."""

    def __init__(self, data, hits: list):
        super().__init__(data)
        self.hits = hits

    def get(self, key, default=None):
        found = super().get(key, default)
        if found is not None:
            self.hits.append((key, found))
        return found


class RedundantLoadEvictLast(RedundantLoad):
    """ttopt's own ``redundant-load`` (whatever its version), then the hint rule applied to
    each merge: the i-th merge into a key's table entry is the i-th erased load of that key in
    program order, since the pass walks blocks in program order and merges whenever the table
    has an entry."""

    name = "redundant-load-evl"
    summary = "redundant-load, the kept load keeping evict_last when a merged load had it"

    def run(self, module):
        loads = [op for op in module.walk() if isinstance(op, LoadOp) and eligible(op)]
        before = [(op, load_key(op), op.eviction_policy) for op in loads]
        object.__setattr__(self, "_hits", [])  # the pass may be a frozen dataclass
        stats = super().run(module)
        erased: dict = {}
        for op, key, evict in before:
            if op.parent_block() is None:
                erased.setdefault(key, []).append(evict)
        merges: dict = {}
        for key, kept in self._hits:
            merges.setdefault(key, []).append(kept)
        for key, kept_list in merges.items():
            for kept, evict in zip(kept_list, erased.get(key, []), strict=True):
                keep_evict_last(kept, _Hint(evict))
        return stats

    def _block(self, block, available: dict) -> int:
        return super()._block(block, _Tracking(available, self._hits))


class _Hint:
    """The hints of a load that has been erased (read before the pass ran)."""

    def __init__(self, eviction_policy: int):
        self.eviction_policy = eviction_policy


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
