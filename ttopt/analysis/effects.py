"""Memory effects of ops, as the passes need them.

The source of truth is the memory-effect trait each op of :mod:`ttopt.dialects` declares
(``Pure``, ``MemoryReadEffect``, ``MemoryWriteEffect``, attribute-dependent ones such as
volatile loads and non-pure inline asm).  An op that declares nothing has *unknown* effects
and is treated as a writer: when unsure, do not rewrite.
"""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.traits import MemoryEffectKind, get_effects

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
