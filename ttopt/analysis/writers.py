"""The writers inside an op, when they are all ``tt.store``: what a pass needs to let a load
through a loop (or an ``scf.if``) that stores only to bytes the load does not read.

:func:`stores_only` walks the op's regions with :class:`ttopt.analysis.effects.WriteCache`:
ops that cannot write are skipped, a ``tt.store`` is collected, an op with regions is looked
into when it declares no write of its own (``RecursiveMemoryEffect`` aside), and anything
else that may write (an atomic, a call, a barrier, a volatile load, an op with unknown
effects) makes the answer None.
"""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.traits import MemoryEffect, MemoryEffectKind, RecursiveMemoryEffect

from ..dialects.tt import StoreOp
from .effects import WriteCache

_WRITE_LIKE = (MemoryEffectKind.WRITE, MemoryEffectKind.FREE, MemoryEffectKind.ALLOC)


def own_effect_writes(op: Operation) -> bool:
    """Does ``op`` itself (its regions aside) declare a write, or declare nothing at all?"""
    traits = op.get_traits_of_type(MemoryEffect)
    if not traits:
        return True
    for trait in traits:
        if isinstance(trait, RecursiveMemoryEffect):
            continue
        effects = trait.get_effects(op)
        if effects is None or any(e.kind in _WRITE_LIKE for e in effects):
            return True
    return False


def stores_only(op: Operation, writes: WriteCache) -> list[StoreOp] | None:
    """The ``tt.store`` ops in ``op`` (itself included) if they are its only possible writers
    (``[]``: it writes nothing); None if anything else in it may write."""
    if not writes.may_write(op):
        return []
    stores: list[StoreOp] = []
    stack = [op]
    while stack:
        cur = stack.pop()
        if not writes.may_write(cur):
            continue
        if isinstance(cur, StoreOp):
            stores.append(cur)
            continue
        if not cur.regions or own_effect_writes(cur):
            return None
        stack.extend(child for r in cur.regions for b in r.blocks for child in b.ops)
    return stores


__all__ = ["own_effect_writes", "stores_only"]
