"""``hoist-load``: move a loop-invariant ``tt.load`` out of its loop.

A load L directly in the body of an ``scf.for`` (or in the ``before`` region of an
``scf.while``; in its ``after`` region under condition 3b only) is moved to just before the
loop when all of these hold:

1. **Invariant address.**  L's pointer, mask and ``other`` are defined outside the loop, or
   by ops of the same body block that are pure, have no regions, cannot trap (integer
   division and remainder only by a non-zero constant; no inline asm) and are themselves
   invariant by this rule; those ops move out with L, in their order.  L is not volatile
   and not ``cacheModifier = cv``.
2. **Invariant memory.**  Nothing in the loop may write L's bytes: the loop has no writer at
   all, or (option ``disjoint-stores``, default true) its only writers are ``tt.store``\\ s
   that :func:`ttopt.analysis.addresses.disjoint` proves miss every byte L reads.  Then every
   iteration's L reads what the hoisted load reads (its operands are the same values, and
   between the hoisted position and L's place in any iteration only the loop's own ops run).
3. **No new fault.**  The hoisted load runs once, before the loop, even when the loop would
   not have run L at all; it must not touch memory the original kernel never touches:

   a. an ``scf.for`` whose trip count is provably at least one (constant bounds, ``lb < ub``;
      a loop marked ``unsignedCmp`` is never hoisted from), or the ``before`` region of an
      ``scf.while`` (it runs at least once whenever the loop op runs): L would have run, with
      the same operands, in the first iteration;
   b. or a load of the same address (value-numbered pointer, same result type) whose mask
      covers L's (L's mask implies it, :mod:`ttopt.analysis.masks`; an unmasked one covers
      everything) and, for block pointers, whose ``boundaryCheck`` dimensions are among L's
      (a checked load skips the out-of-bounds elements an unchecked L would touch) dominates
      the loop: it ran before, touching every byte L touches (writes in between change
      contents, not which addresses are valid);
   c. otherwise, for an ``scf.for`` only (option ``guard``, default true), the hoisted load
      gets the mask ``mask & splat(lb < ub)`` (``lb < ub`` for an unmasked load): the form
      Triton's own ``triton-licm`` uses.  When the loop runs (``lb < ub``, MLIR's ``scf.for``
      runs at least one iteration exactly then, its step being positive), the mask is L's,
      lane for lane: the same load.  When it does not, every lane is masked off: a masked-off
      lane of ``tt.load`` performs no memory access (Triton lowers it to a predicated
      ``ld.global``), so nothing is touched, and the value, only used inside the loop, is
      never used.  Block-pointer loads (no mask operand) are not hoisted this way.

   A masked load is *not* safe to hoist out of a possibly zero-trip loop by itself: its
   masked-on lanes would be accessed although the loop never runs, and they may address
   memory the kernel never touches (for example ``ptr + r`` with ``r`` past the end of a
   buffer that only a non-empty loop implies is long enough).  So 3c adds the trip-count
   bit even to masked loads, and nothing else is hoisted.

Loops are processed innermost first, so a load hoisted out of an inner loop (with the pure
ops it needs, its guard included) can leave the outer loop too.  Statistics: loads hoisted
per function (``--stats``), and per kind (``per_kind``: ``trip-count``, ``while-before``,
``dominated``, ``guarded``).  The pass only moves loads; run ``redundant-load`` after it to
merge a hoisted load with an equal one before the loop.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, IntegerType, ModuleOp, TensorType, i1, i32, i64
from xdsl.ir import Block, Operation, OpResult, SSAValue

from ..analysis.addresses import AddressAnalysis
from ..analysis.effects import WriteCache, is_pure
from ..analysis.masks import MaskImplication
from ..analysis.value_numbering import ValueNumbering, int_constant
from ..analysis.writers import stores_only
from ..dialects.arith import AndiOp, CmpiOp
from ..dialects.base import int_attr
from ..dialects.scf import ForOp, WhileOp, is_unsigned
from ..dialects.tt import LoadOp, SplatOp, StoreOp
from ..dialects.tt_attrs import PointerType, mask_type
from ..xdsl_compat import set_value_name
from .base import ModulePass, functions, record_stats, replace_value
from .redundant_load import LoadStats, eligible

SLT = 2  # arith.cmpi slt
_DIVISIONS = frozenset(
    {
        "arith.divsi", "arith.divui", "arith.remsi", "arith.remui",
        "arith.ceildivsi", "arith.ceildivui", "arith.floordivsi",
    }
)
_MOVABLE_TT = frozenset(
    {
        "tt.splat", "tt.broadcast", "tt.expand_dims", "tt.addptr", "tt.make_range",
        "tt.reshape", "tt.trans", "tt.bitcast", "tt.int_to_ptr", "tt.ptr_to_int",
        "tt.fp_to_fp", "tt.get_program_id", "tt.get_num_programs", "tt.join", "tt.cat",
        "tt.split", "ttg.convert_layout",
    }
)
MAX_SLICE_DEPTH = 64


def _movable(op: Operation) -> bool:
    """Pure, region-free, and cannot trap when run where it would not have run."""
    if op.regions or not is_pure(op):
        return False
    name = op.name
    if name in _DIVISIONS:
        c = int_constant(op.operands[1])
        return c is not None and c[0] not in (0, -1)
    return name.startswith(("arith.", "math.")) or name in _MOVABLE_TT


def _inside(value: SSAValue, op: Operation) -> bool:
    """Is ``value`` defined inside ``op``'s regions?"""
    owner = value.owner
    cur = owner if isinstance(owner, Operation) else owner.parent_op()
    while cur is not None:
        if cur is op:
            return True
        cur = cur.parent_op()
    return False


def _unsigned(loop: Operation) -> bool:
    """An ``scf.for unsigned`` (``unsignedCmp``, Triton 3.5+): its bounds compare unsigned,
    so ``lb < ub`` as signed integers says nothing about whether it runs (``0 to -1``
    runs 2**32 - 1 times, ``-1 to 0`` not at all): neither 3a nor 3c applies."""
    return is_unsigned(loop)


def _trip_count_positive(loop: ForOp) -> bool:
    lb, ub = int_constant(loop.lb), int_constant(loop.ub)
    if lb is None or ub is None or _unsigned(loop):
        return False
    return lb[0] < ub[0]


@dataclass(frozen=True)
class HoistLoad(ModulePass):
    """The pass (see the module docstring); options ``guard`` and ``disjoint-stores``."""

    name: ClassVar[str] = "hoist-load"
    summary: ClassVar[str] = (
        "move a loop-invariant tt.load out of a loop that does not write its bytes, only where "
        "it cannot fault (trip count >= 1, dominated by the same load, or masked by lb < ub)"
    )

    guard: bool = True
    disjoint_stores: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        stats = LoadStats(self.name)
        for func in functions(op):
            numbering = ValueNumbering()
            self.set_state(
                writes=WriteCache(),
                numbering=numbering,
                masks=MaskImplication(numbering),
                addresses=AddressAnalysis(numbering),
                kinds=Counter(),
                guards={},
            )
            loops = [o for o in func.walk() if isinstance(o, (ForOp, WhileOp))]
            hoisted = sum(self._loop(loop) for loop in reversed(loops))  # innermost first
            if hoisted:
                stats.per_function[func.sym_name.data] += hoisted
            stats.per_kind.update(self.kinds)
        record_stats(stats)

    # ------------------------------------------------------------------ one loop
    def _loop(self, loop: Operation) -> int:
        stores = self._stores_in(loop)
        if stores is None:
            return 0
        if isinstance(loop, ForOp):
            bodies = [(loop.body.block, None)] if len(loop.body.blocks) == 1 else []
        else:
            before, after = loop.regions
            bodies = []
            if len(before.blocks) == 1:
                bodies.append((before.block, "while-before"))
            if len(after.blocks) == 1:
                bodies.append((after.block, "after"))
        hoisted = 0
        for block, where in bodies:
            for load in [o for o in block.ops if isinstance(o, LoadOp) and eligible(o)]:
                if stores and not all(self.addresses.disjoint(load.ptr, s.ptr) for s in stores):
                    continue
                slice_ = self._invariant_slice(load, loop, block)
                if slice_ is None:
                    continue
                kind = self._safety(load, loop, where)
                if kind is None:
                    continue
                self._hoist(load, loop, slice_, kind)
                self.kinds[kind] += 1
                hoisted += 1
        return hoisted

    def _stores_in(self, loop: Operation) -> list[StoreOp] | None:
        """The loop's writers if they are all ``tt.store`` (``[]``: it writes nothing), else None."""
        if not self.disjoint_stores:
            return None if self.writes.may_write(loop) else []
        return stores_only(loop, self.writes)

    def _invariant_slice(self, load: LoadOp, loop: Operation, block: Block) -> list[Operation] | None:
        """The ops of ``block`` that ``load``'s operands need (to move out with it), in
        program order; None if an operand is not invariant."""
        needed: dict[Operation, bool] = {}

        def invariant(value: SSAValue, depth: int) -> bool:
            if not _inside(value, loop):
                return True
            if not isinstance(value, OpResult):
                return False  # a block argument of the loop
            op = value.owner
            if op.parent_block() is not block or depth > MAX_SLICE_DEPTH:
                return False
            known = needed.get(op)
            if known is not None:
                return known
            ok = _movable(op) and all(invariant(o, depth + 1) for o in op.operands)
            needed[op] = ok
            return ok

        if not all(invariant(v, 0) for v in load.operands):
            return None
        ops = {op for op, ok in needed.items() if ok}
        return [op for op in block.ops if op in ops]

    # ------------------------------------------------------------------ condition 3
    def _safety(self, load: LoadOp, loop: Operation, where: str | None) -> str | None:
        if where == "while-before":
            return "while-before"
        if isinstance(loop, ForOp) and _trip_count_positive(loop):
            return "trip-count"
        if self._dominated(load, loop):
            return "dominated"
        if (
            where is None
            and isinstance(loop, ForOp)
            and self.guard
            and not _unsigned(loop)
            and isinstance(loop.lb.type, IntegerType)
            and not _is_block_ptr(load)
        ):
            return "guarded"
        return None

    def _dominated(self, load: LoadOp, loop: Operation) -> bool:
        """A load of the same address covering ``load``'s lanes runs before ``loop``, in a
        block that encloses it (only ops before the loop's ancestor in that block)."""
        target = self.numbering.number(load.ptr)
        cur: Operation | None = loop
        while cur is not None:
            block = cur.parent_block()
            if block is None:
                return False
            for op in block.ops:
                if op is cur:
                    break
                if (
                    isinstance(op, LoadOp)
                    and op.result.type == load.result.type
                    and self.numbering.number(op.ptr) == target
                    and self.masks.implies(load.mask, op.mask)
                    and _checked_dims(op) <= _checked_dims(load)
                ):
                    return True
            cur = block.parent_op()
        return False

    # ------------------------------------------------------------------ the move
    def _hoist(self, load: LoadOp, loop: Operation, slice_: list[Operation], kind: str) -> None:
        parent = loop.parent_block()
        for op in slice_:
            op.detach()
            parent.insert_op_before(op, loop)
        load.detach()
        if kind != "guarded":
            parent.insert_op_before(load, loop)
            return
        guard = self._guard(loop, load)
        mask = guard
        if load.mask is not None:
            andi = AndiOp.create(operands=[load.mask, guard], result_types=[guard.type], location=load.location)
            parent.insert_op_before(andi, loop)
            mask = andi.results[0]
        other = load.other
        operands = [load.ptr, mask] + ([other] if other is not None else [])
        props = dict(load.properties)
        props["operandSegmentSizes"] = DenseArrayBase.from_list(i32, [1, 1, int(other is not None)])
        new = LoadOp.create(
            operands=operands,
            result_types=[load.result.type],
            properties=props,
            attributes=dict(load.attributes),
            location=load.location,
        )
        parent.insert_op_before(new, loop)
        set_value_name(new.results[0], load.result.name_hint)  # exactly: `%7`, `%x_1` stay
        replace_value(load.result, new.results[0])
        load.erase()

    def _guard(self, loop: ForOp, load: LoadOp) -> SSAValue:
        """``lb < ub`` (one per loop), splat to the load's mask type (one per type)."""
        parent = loop.parent_block()
        key = (loop, None)
        cond = self.guards.get(key)
        if cond is None:
            cmp = CmpiOp.create(
                operands=[loop.lb, loop.ub],
                result_types=[i1],
                properties={"predicate": int_attr(SLT, i64)},
                location=loop.location,
            )
            parent.insert_op_before(cmp, loop)
            cond = self.guards[key] = cmp.results[0]
        ptr_type = load.ptr.type
        if not isinstance(ptr_type, TensorType):
            return cond
        mtype = mask_type(ptr_type)
        key = (loop, mtype)
        splat = self.guards.get(key)
        if splat is None:
            op = SplatOp.create(operands=[cond], result_types=[mtype], location=loop.location)
            parent.insert_op_before(op, loop)
            splat = self.guards[key] = op.results[0]
        return splat


def _checked_dims(load: LoadOp) -> frozenset[int]:
    """The dimensions a block-pointer load checks against the tensor's bounds
    (``boundaryCheck``; empty for any other load).  A load checking a dimension touches no
    element out of bounds there; so an earlier load covers ``load``'s bytes only where it
    checks no dimension that ``load`` does not check too."""
    boundary = load.properties.get("boundaryCheck")
    if boundary is None:
        return frozenset()
    return frozenset(int(v) for v in boundary.get_values())


def _is_block_ptr(load: LoadOp) -> bool:
    """A load through a block pointer (``!tt.ptr<tensor<..>>``): it takes no mask."""
    t = load.ptr.type
    return isinstance(t, PointerType) and isinstance(t.pointee, TensorType)
