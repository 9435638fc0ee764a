"""Memory effects of ops, as the passes need them.

The source of truth is the memory-effect trait each op of :mod:`ttopt.dialects` declares
(``Pure``, ``MemoryReadEffect``, ``MemoryWriteEffect``, attribute-dependent ones such as
volatile loads and non-pure inline asm, ``RecursiveMemoryEffect`` for ops with regions, which
are as pure as everything inside them).  An op that declares nothing has *unknown* effects and
is treated as a writer: when unsure, do not rewrite.

What the ops of Triton 3.6 declare, in the four classes :func:`classify` names:

* ``pure``: values and views only: shape and arithmetic ops, ``tt.dot``/``tt.dot_scaled``,
  ``tt.make_tensor_descriptor``, the memory-descriptor views (``ttg.memdesc_index`` /
  ``_subslice`` / ``_trans`` / ``_reshape`` / ``_reinterpret``, ``ttng.tmem_subslice``),
  ``ttng.reinterpret_tensor_descriptor``, branches (``cf.br`` / ``cf.cond_br``), terminators;
* ``read``: ``tt.load`` (not volatile), ``tt.descriptor_load`` / ``_gather``,
  ``ttg.local_load``, ``ttng.tmem_load``;
* ``write`` (a write, a free or an allocation of any memory: global, shared, tensor memory,
  an mbarrier): stores and atomics, ``tt.descriptor_store`` / ``_scatter`` / ``_reduce``,
  every TMA copy (``ttng.async_tma_*``), ``ttng.tensormap_create``, every mbarrier op
  (``ttng.init_barrier``, ``barrier_expect``, ``arrive_barrier``, ``wait_barrier`` ...),
  tensor-memory writes and MMAs (``ttng.tmem_store`` / ``_copy`` / ``_alloc``,
  ``tc_gen5_mma`` / ``_scaled`` / ``_commit``), ``warp_group_dot`` (asynchronous), and every
  fence, wait and barrier (``ttng.fence_async_shared``, ``async_tma_store_wait``,
  ``cluster_arrive`` / ``_wait``, ``ttg.local_barrier``, ``ttg.async_wait``): an op that
  orders memory accesses is ordered like a writer;
* ``unknown`` (a writer for the passes): ``tt.call``, ``gpu.barrier`` and
  ``llvm.intr.assume`` (as MLIR declares them: nothing).

``ttg.warp_specialize`` is as pure as everything in its default region and its partitions.
"""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.traits import (
    MemoryAllocEffect,
    MemoryEffect,
    MemoryEffectKind,
    MemoryFreeEffect,
    MemoryReadEffect,
    MemoryWriteEffect,
    NoMemoryEffect,
    RecursiveMemoryEffect,
    get_effects,
)

_WRITE_LIKE = (MemoryEffectKind.WRITE, MemoryEffectKind.FREE, MemoryEffectKind.ALLOC)

# xDSL's effect traits whose ``get_effects`` is the same set for every op (``Pure`` is a
# ``NoMemoryEffect``): the functions themselves, so that a subclass overriding one is not
# taken for constant.
_CONSTANT_EFFECTS = frozenset(
    cls.get_effects.__func__
    for cls in (NoMemoryEffect, MemoryReadEffect, MemoryWriteEffect, MemoryAllocEffect, MemoryFreeEffect)
)
_BY_CLASS: dict[type, tuple[object, list | None]] = {}


def constant_effects(op: Operation) -> list | None:
    """The effects of each of ``op``'s memory-effect traits (a list of sets, ``[]`` for an
    op that declares none), where every one of them is a trait of ``_CONSTANT_EFFECTS``,
    the same for every op of ``op``'s class; None where one may depend on the op (its
    attributes, its regions).  Worked out once per op class (and again if the class's
    traits change: ``add_trait``)."""
    cls = type(op)
    traits = getattr(getattr(cls, "traits", None), "traits", None)  # (the class's frozenset)
    known = _BY_CLASS.get(cls)
    if known is not None and known[0] is traits and traits is not None:
        return known[1]
    found: list | None = []
    for trait in op.get_traits_of_type(MemoryEffect):
        if getattr(type(trait).get_effects, "__func__", None) not in _CONSTANT_EFFECTS:
            found = None
            break
        found.append(trait.get_effects(op))
    _BY_CLASS[cls] = (traits, found)
    return found


def may_write(op: Operation) -> bool:
    """True if ``op`` (including ops nested in its regions) may write memory."""
    constant = constant_effects(op)
    if constant is not None:  # (what get_effects would say, without asking each trait)
        return not constant or any(e.kind in _WRITE_LIKE for effects in constant for e in effects)
    effects = get_effects(op)
    if effects is None:
        return True
    return any(e.kind in _WRITE_LIKE for e in effects)


def is_pure(op: Operation) -> bool:
    constant = constant_effects(op)
    if constant is not None:
        return bool(constant) and not any(constant)
    effects = get_effects(op)
    return effects is not None and not effects


def classify(op: Operation) -> str:
    """``"pure"``, ``"read"`` (reads and nothing else), ``"write"`` (may write, free or
    allocate, :func:`may_write`'s answer) or ``"unknown"`` (declares no effects: a writer for
    the passes), including what ops nested in ``op``'s regions do."""
    effects = get_effects(op)
    if effects is None:
        return "unknown"
    if any(e.kind in _WRITE_LIKE for e in effects):
        return "write"
    return "read" if effects else "pure"


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
        constant = constant_effects(op)
        if constant is not None:  # (what the loop below finds, worked out once per class)
            return not constant or any(e.kind in _WRITE_LIKE for effects in constant for e in effects)
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
