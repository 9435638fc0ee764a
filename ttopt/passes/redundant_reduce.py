"""``redundant-reduce``: remove a ``tt.reduce`` / ``tt.scan`` that repeats an earlier one.

A later reduction B is replaced by an earlier reduction A when A dominates B and they have the
same operands (multi-operand reductions such as argmax's value + index included), the same
``axis`` (and ``reverse`` for scans), the same result types, and combiner regions that compute
the same thing: isomorphic after renaming block arguments and values, locations ignored, with
the two operands of commutative ops (``addf mulf maxnumf minnumf maximumf minimumf addi muli
andi ori xori`` and integer ``max``/``min``) allowed in either order.

"Same operands" means the same SSA values, or values computed by equivalent pure ops from the
same values (value numbering): once ``redundant-load`` has merged two loads, the two
reductions typically read two separate but identical ``arith.extf`` casts of the one load.

Only reductions whose combiners have no memory effect at all are merged: Triton accepts
combiners that load, store, do atomics or print, and merging such reductions would drop (or
move) those effects.  A pure reduction needs no other memory condition.  Triton's CSE already
merges reductions that are identical op for op; this pass adds commuted combiners and runs
after ``redundant-load``, whose merges are what make two reductions' operands the same.

Why not xDSL's CSE pieces (``KnownOps``/``OperationInfo`` of
``xdsl.transforms.common_subexpression_elimination``): they key an op by its exact operands
and compare regions with ``is_structurally_equivalent``, which is what Triton's CSE does
already; this pass exists for what they cannot express (operands equal by value numbering,
combiners equal up to commuted operands).  ``cse`` itself runs on ttopt's IR (``-p cse``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.ir import Block, Operation, OpResult, Region, SSAValue
from xdsl.traits import Commutative

from ..analysis.effects import is_pure
from ..dialects.scf import ForOp, IfOp, WhileOp
from ..dialects.tt import ReduceOp, ScanOp
from .base import FunctionWalkPass, erase_op

_REDUCTIONS = (ReduceOp, ScanOp)
_INHERITS = (IfOp, ForOp, WhileOp, ReduceOp, ScanOp)  # pure reuse is fine inside loops too


class ValueNumbering:
    """Keys equal for values computed by equivalent pure, region-free ops from equal values."""

    MAX_DEPTH = 64

    def __init__(self):
        self.memo: dict[SSAValue, object] = {}

    def key(self, value: SSAValue, depth: int = 0):
        k = self.memo.get(value)
        if k is not None:
            return k
        op = value.owner if isinstance(value, OpResult) else None
        if op is None or op.regions or depth > self.MAX_DEPTH or not is_pure(op):
            k = value
        else:
            k = (
                op.name,
                tuple(sorted(op.properties.items())),
                tuple(sorted(op.attributes.items())),
                tuple(op.result_types),
                tuple(self.key(o, depth + 1) for o in op.operands),
                value.index,
            )
        self.memo[value] = k
        return k


def reduction_key(op: Operation, numbering: ValueNumbering):
    return (
        op.name,
        tuple(numbering.key(v) for v in op.operands),
        op.properties.get("axis"),
        op.properties.get("reverse"),
        tuple(op.result_types),
    )


def _same_attrs(a: Operation, b: Operation) -> bool:
    return dict(a.properties) == dict(b.properties) and dict(a.attributes) == dict(b.attributes)


def regions_equivalent(ra: Region, rb: Region, outer: dict | None = None) -> bool:
    """Structural equivalence of two single-block regions (``outer``: enclosing mapping)."""
    if len(ra.blocks) != 1 or len(rb.blocks) != 1:
        return False
    ba, bb = ra.block, rb.block
    if len(ba.args) != len(bb.args):
        return False
    mapping: dict[SSAValue, SSAValue] = dict(outer or {})
    for x, y in zip(ba.args, bb.args):
        if x.type != y.type:
            return False
        mapping[x] = y
    return _blocks_equivalent(ba, bb, mapping)


def _blocks_equivalent(ba: Block, bb: Block, mapping: dict[SSAValue, SSAValue]) -> bool:
    ops_a, ops_b = list(ba.ops), list(bb.ops)
    if len(ops_a) != len(ops_b):
        return False
    for oa, ob in zip(ops_a, ops_b):
        if not _ops_equivalent(oa, ob, mapping):
            return False
        for ra, rb in zip(oa.results, ob.results):
            mapping[ra] = rb
    return True


def _ops_equivalent(oa: Operation, ob: Operation, mapping) -> bool:
    if (
        oa.name != ob.name
        or len(oa.operands) != len(ob.operands)
        or oa.result_types != ob.result_types
        or len(oa.regions) != len(ob.regions)
        or not _same_attrs(oa, ob)
    ):
        return False

    def same(x: SSAValue, y: SSAValue) -> bool:
        return mapping.get(x, x) is y

    pairs = list(zip(oa.operands, ob.operands))
    if not all(same(x, y) for x, y in pairs):
        if not (
            len(pairs) == 2
            and oa.has_trait(Commutative)
            and same(oa.operands[0], ob.operands[1])
            and same(oa.operands[1], ob.operands[0])
        ):
            return False
    for ra, rb in zip(oa.regions, ob.regions):
        if not regions_equivalent(ra, rb, mapping):
            return False
    return True


@dataclass(frozen=True)
class RedundantReduce(FunctionWalkPass):
    name: ClassVar[str] = "redundant-reduce"
    summary: ClassVar[str] = "replace a tt.reduce/tt.scan by an earlier one with the same operands, axis and an equivalent combiner"

    def begin_function(self, func) -> None:
        self.set_state(numbering=ValueNumbering())

    def _block(self, block: Block, available: dict[tuple, list[Operation]]) -> int:
        removed = 0
        for op in list(block.ops):
            if isinstance(op, _REDUCTIONS) and is_pure(op):
                key = reduction_key(op, self.numbering)
                candidates = available.setdefault(key, [])
                match = next(
                    (a for a in candidates if regions_equivalent(a.regions[0], op.regions[0])),
                    None,
                )
                if match is not None:
                    for old, new in zip(op.results, match.results):
                        old.replace_all_uses_with(new)
                    erase_op(op)
                    removed += 1
                    continue
                candidates.append(op)
            if op.regions:
                inherited = available if isinstance(op, _INHERITS) else {}
                for region in op.regions:
                    for i, inner in enumerate(region.blocks):
                        copy = {k: list(v) for k, v in inherited.items()} if i == 0 else {}
                        removed += self._block(inner, copy)
        return removed
