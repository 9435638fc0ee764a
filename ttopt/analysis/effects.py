"""Memory effects of ops, as the passes need them.

The source of truth is the memory-effect trait each op of :mod:`ttopt.dialects` declares
(``Pure``, ``MemoryReadEffect``, ``MemoryWriteEffect``, attribute-dependent ones such as
volatile loads and non-pure inline asm, ``RecursiveMemoryEffect`` for ops with regions, which
are as pure as everything inside them).  An op that declares nothing has *unknown* effects and
is treated as a writer: when unsure, do not rewrite.
"""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.traits import MemoryEffect, MemoryEffectKind, RecursiveMemoryEffect, get_effects

_WRITE_LIKE = (MemoryEffectKind.WRITE, MemoryEffectKind.FREE, MemoryEffectKind.ALLOC)


def may_write(op: Operation) -> bool:
    """True if ``op`` (including ops nested in its regions) may write memory."""
    effects = get_effects(op)
    if effects is None:
        return True
    return any(e.kind in _WRITE_LIKE for e in effects)


def is_pure(op: Operation) -> bool:
    effects = get_effects(op)
    return effects is not None and not effects


class WriteCache:
    """:func:`may_write`, memoised: each op's answer is computed once, from its children's.

    Without it, asking at every level of a deep nest costs depth squared (2,000 nested
    ``scf.if`` took 35 s).  Valid while no writer is added or removed (a pass that only erases
    non-writing ops, such as loads it merges, may keep using it)."""

    def __init__(self):
        self._memo: dict[Operation, bool] = {}

    def may_write(self, op: Operation) -> bool:
        known = self._memo.get(op)
        if known is None:
            known = self._memo[op] = self._compute(op)
        return known

    def _compute(self, op: Operation) -> bool:
        traits = op.get_traits_of_type(MemoryEffect)
        if not traits:
            return True
        for trait in traits:
            if isinstance(trait, RecursiveMemoryEffect):
                if any(self.may_write(child) for r in op.regions for b in r.blocks for child in b.ops):
                    return True
                continue
            effects = trait.get_effects(op)
            if effects is None or any(e.kind in _WRITE_LIKE for e in effects):
                return True
        return False
