"""``redundant-load``: remove a ``tt.load`` that repeats an earlier one.

Inductor emits loads of one address that differ only in ``evictionPolicy`` (or
``cacheModifier``); MLIR's CSE compares all attributes and keeps both, so both reach the PTX
as separate ``ld.global``.  This pass replaces the later load B by the earlier load A when:

* same pointer value, same mask, same ``other`` (or both absent), same result type, same
  ``boundaryCheck`` and ``padding``; neither load is volatile; neither uses
  ``cacheModifier = cv`` (which asks to re-fetch every time);
* A dominates B: same block, or B inside regions nested in A's block after A;
* nothing that may write memory can run between A and B: stores, atomics, volatile loads,
  calls, non-pure inline asm / extern calls, ``tt.print``/``tt.assert``, barriers, any op with
  unknown effects, including such ops nested in regions between them (a region op is as pure
  as everything inside it: a ``tt.reduce`` whose combiner stores is a writer).  A writer
  through any pointer blocks (pointers may alias).  If B is inside a region that runs many
  times (``scf.for``/``scf.while`` bodies, and the combiners of ``tt.reduce``/``tt.scan`` and
  the body of ``tt.map_elementwise``, invoked once per element pair) that does not contain A,
  a writer anywhere in that op blocks it, since a later invocation runs after the writer.

With the option ``respect-hints=true``, A and B must also have the same ``cacheModifier`` and
``evictionPolicy``.

Kept attributes: A keeps its own ``cacheModifier`` and ``evictionPolicy``, with one change:
if B asked for ``evict_last`` and A did not, A gets ``evict_last``, unless A has a cache
modifier (ptxas rejects ``evict_last`` with ``.ca``/``.cg``).  Triton lowers ``evict_last`` to
an L1 hint plus an L2 ``evict_last`` policy: the line a later pass re-reads keeps its L2
priority.  Measured on an H100 (bench/results/h100-tune, the hint suite): keeping A's
``evict_first`` was 0.94x-0.98x of the unmerged kernel, giving A ``evict_last`` 1.017x-1.032x;
registers and SASS otherwise identical.  Merging never caused spills (registers drop or stay:
bench/results/h100-tune/rl_regs.md).

Why not xDSL's CSE pieces: its ``KnownOps`` keys an op by all its properties, the hints
included, which are the very difference this pass looks through; the key here
(:func:`load_key`) leaves them out, and the writer rules above reach into nested regions.  Both passes and xDSL's ``cse`` see one memory model: the effects each ttopt op
declares (:mod:`ttopt.analysis.effects`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.ir import Block, Operation

from ..analysis.effects import WriteCache
from ..dialects.base import int_attr
from ..dialects.scf import ForOp, IfOp, WhileOp
from ..dialects.tt import LoadOp, MapElementwiseOp, ReduceOp, ScanOp
from .base import FunctionWalkPass, erase_op

CACHE_NONE = 1
CACHE_CV = 7
EVICT_LAST = 3

# Ops whose regions run at most once per execution of the op: what is available before the
# op is available at the start of each region.
_RUN_ONCE = (IfOp,)
# Ops whose regions may run many times: loops, and combiners/bodies run per element.
_REPEATED = (ForOp, WhileOp, ReduceOp, ScanOp, MapElementwiseOp)


def load_key(op: LoadOp):
    """What makes two loads read the same values (attributes that only steer caching aside)."""
    boundary = op.properties.get("boundaryCheck")
    if boundary is not None and not boundary.get_values():
        boundary = None  # `array<i32>` (generic form) is the default, as absent
    return (op.ptr, op.mask, op.other, op.result.type, boundary, op.properties.get("padding"))


def eligible(op: LoadOp) -> bool:
    return not op.is_volatile and op.cache_modifier != CACHE_CV


def keep_evict_last(kept: LoadOp, merged: LoadOp) -> None:
    """The kept load asks to stay in cache (``evict_last``) if the merged one did, unless it
    has a cache modifier (ptxas rejects ``evict_last`` with ``.ca``/``.cg``)."""
    if (
        merged.eviction_policy == EVICT_LAST
        and kept.eviction_policy != EVICT_LAST
        and kept.cache_modifier == CACHE_NONE
    ):
        kept.properties["evict"] = int_attr(EVICT_LAST)


@dataclass(frozen=True)
class RedundantLoad(FunctionWalkPass):
    """The pass; option ``respect-hints`` (default false): merge only loads whose
    ``cacheModifier`` and ``evictionPolicy`` are equal too, for kernels whose hints are
    deliberate (``-p 'redundant-load{respect-hints=true}'``)."""

    name: ClassVar[str] = "redundant-load"
    summary: ClassVar[str] = "replace a tt.load by an earlier identical one (eviction/cache hints aside) when no write can happen in between"

    respect_hints: bool = False

    def begin_function(self, func) -> None:
        self.set_state(writes=WriteCache())  # merging loads removes no writer: valid for the function

    def _block(self, block: Block, available: dict) -> int:
        removed = 0
        for op in list(block.ops):
            if isinstance(op, LoadOp) and eligible(op):
                key = load_key(op)
                if self.respect_hints:
                    key = (key, op.cache_modifier, op.eviction_policy)
                earlier = available.get(key)
                if earlier is not None:
                    keep_evict_last(earlier, op)
                    op.result.replace_all_uses_with(earlier.result)
                    erase_op(op)
                    removed += 1
                    continue
                available[key] = op
                continue
            if op.regions:
                removed += self._regions(op, available)
            if self.writes.may_write(op):
                available.clear()
        return removed

    def _regions(self, op: Operation, available: dict) -> int:
        if isinstance(op, _RUN_ONCE):
            inherited = available
        elif isinstance(op, _REPEATED) and not self.writes.may_write(op):
            inherited = available
        else:
            inherited = {}
        removed = 0
        for region in op.regions:
            for i, block in enumerate(region.blocks):
                # only the entry block is dominated by what precedes the op
                removed += self._block(block, dict(inherited) if i == 0 else {})
        return removed
