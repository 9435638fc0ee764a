"""``redundant-reduce``: remove a ``tt.reduce`` / ``tt.scan`` that repeats an earlier one.

**The rewrite.**  A later reduction B is replaced by an earlier reduction A (B's results by
A's, B erased) when all of these hold:

1. A dominates B (A comes first in B's block or in a block enclosing it; blocks are entered
   through ``scf.if``/``scf.for``/``scf.while`` and reduction regions only);
2. A and B have the same op name, ``axis`` (and ``reverse`` for scans) and result types;
3. their operands are pairwise *the same value* in the sense of :class:`ValueNumbering`
   (below), in the same order (multi-operand reductions such as argmax included);
4. their combiner regions are *equivalent* (:func:`regions_equivalent`): one block each, the
   same argument types, and op for op the same op name, result types, properties and
   attributes (``fastmath`` flags included: different flags never match; locations ignored),
   with operands mapped positionally (A's ``i``-th block argument to B's ``i``-th, A's results
   to B's), except that the two operands of a *commuting* op (below) may be matched the other
   way round;
5. A and B have no memory effect at all (Triton accepts combiners that load, store, do atomics
   or print; merging such reductions would drop or move those effects).

Why this is exact, bit for bit.  Triton fixes the order in which a reduction combines
elements (the tree depends on axis, shape and layout only, which are equal).  By 4, each op of
B's combiner computes the same bits as its counterpart in A's from the same inputs, so the two
combiners are the same function of ``(lhs, rhs)`` and every node of the tree computes the same
bits.  Note that the block arguments are *never* swapped: ``subf %a, %b`` and ``subf %b, %a``
(or any combiner not symmetric in its arguments) never match; only single commuting ops inside
the combiner may have their own two operands swapped.

**Commuting ops** (operands compared modulo order):

* ops with the ``Commutative`` trait and exactly two operands: xDSL gives it to ``addi muli
  andi ori xori``; ttopt's context adds MLIR's trait to ``addf mulf maxnumf minnumf maximumf
  minimumf maxsi minsi maxui minui`` (:mod:`ttopt.dialects.arith`).  ``subf``/``divf``/
  ``subi``/... have no such trait and are compared in order;
* ``arith.cmpi``/``arith.cmpf``: ``cmp p, a, b`` equals ``cmp swap(p), b, a``, where ``swap``
  keeps the symmetric predicates (``eq ne``; ``false oeq one ord ueq une uno true``) and
  exchanges ``lt``/``gt`` and ``le``/``ge`` (``slt/sgt sle/sge ult/ugt ule/uge``;
  ``olt/ogt ole/oge ult/ugt ule/uge``).  Exact: the result is an ``i1``, and ordered /
  unordered predicates treat a NaN in either operand the same way.

Float commutation and NaN payloads: IEEE 754 leaves which payload ``NaN + NaN'`` returns to
the implementation, and LLVM (which Triton lowers to) declares NaN payloads nondeterministic
and commutes ``fadd``/``fmul``/``maxnum``... itself.  On the GPU the results are bitwise
commutative: measured on an H100 (``add``/``mul``/``max``/``min``/``max.NaN``/``min.NaN`` in
``f32``, ``f16``, ``bf16`` and ``add``/``mul``/``max``/``min`` in ``f64``, every pair of 13 to 19
special inputs: several NaN payloads of both signs, signalling NaNs, +-0, +-inf, subnormals),
``op(a, b)`` and ``op(b, a)`` had the same bits in every case; ``f32``/``f16``/``bf16`` NaN
results are always the canonical ``0x7fffffff``/``0x7fff``, and ``max``/``min`` order ``-0 <
+0`` whichever operand comes first.  So commuted float ops are bit-identical there.  ttopt's
CPU interpreter (numpy on x86) is not in two corners: with two NaN operands ``+``/``*`` return
the first operand's payload, and ``maxnumf``/``minnumf`` (``np.fmax``/``np.fmin``) return the
first operand for ``+0``/``-0``; ``--validate``'s inputs are finite and seldom signed zeros, so
it rarely meets them.

**Value numbering** (:class:`ValueNumbering`): two SSA values get the same number when they
provably hold the same bits whenever both are defined:

* the same SSA value;
* result ``i`` of two pure ops (no memory effect at all; ``ub.poison`` excluded) without
  regions, with the same name, properties and attributes (``fastmath`` included; a compare's
  predicate as above) and result types, whose operands have the same numbers, in order or,
  for a commuting op, the other way round (``sum(x + y)`` and ``sum(y + x)`` merge;
  ``sum(x - y)`` and ``sum(y - x)`` do not);
* result ``i`` of two ``scf.if`` ops with the same condition number whose ``then`` yields and
  ``else`` yields ``i`` have the same numbers (the same branch runs for both; its yielded
  values are equal);
* results ``i`` and ``j`` of one ``scf.for`` whose loop-carried values are *congruent*: the
  largest partition of the iter_args such that, within a class, the initial values have the
  same number and, assuming the block arguments of each class equal, the yielded values have
  the same number (computed by refinement from "equal initial values" until stable).  By
  induction over the iterations the arguments of a class hold the same bits in every
  iteration, and so do the results (also when the loop runs zero times).  This is how
  Inductor's ``var(x + y)`` and ``std(y + x)`` in one looped kernel (two identical Welford
  accumulators) end in one reduction.

Everything else (block arguments, loads and other ops with effects, ``scf.while`` results,
results of reductions) is numbered by identity.  Numbers are interned ints, so comparing and
hashing them costs the same at any depth (a chain ``v = v * v`` 40 deep once took forever).
Triton's own CSE already merges reductions that are identical op for op, and MLIR's CSE
merges elementwise ``x + y`` / ``y + x``; this pass adds what they do not: commuted
combiners, commuted or predicate-swapped compares, operands that become equal only after
``redundant-load`` merged two loads (it runs after it), and congruent loop-carried values.

Why not xDSL's CSE pieces (``KnownOps``/``OperationInfo`` of
``xdsl.transforms.common_subexpression_elimination``): they key an op by its exact operands
and compare regions with ``is_structurally_equivalent``, which is what Triton's CSE does
already; this pass exists for what they cannot express (operands equal by value numbering,
combiners equal up to commuted operands).  ``cse`` itself runs on ttopt's IR (``-p cse``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.arith import CMPF_COMPARISON_OPERATIONS, CMPI_COMPARISON_OPERATIONS
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.traits import Commutative

from ..analysis.effects import is_pure
from ..dialects.scf import ForOp, IfOp, WhileOp
from ..dialects.tt import ReduceOp, ScanOp
from .base import FunctionWalkPass, erase_op, ops_of, replace_value

_REDUCTIONS = (ReduceOp, ScanOp)
_INHERITS = (IfOp, ForOp, WhileOp, ReduceOp, ScanOp)  # pure reuse is fine inside loops too
_NEVER_EQUAL = frozenset({"ub.poison"})  # pure, but two poisons need not be one value


def _swapped_predicate(name: str) -> str:
    """The predicate ``q`` with ``cmp p, a, b == cmp q, b, a`` (``slt`` -> ``sgt``, ``eq`` -> ``eq``)."""
    for a, b in (("lt", "gt"), ("gt", "lt"), ("le", "ge"), ("ge", "le")):
        if name.endswith(a):
            return name[: -len(a)] + b
    return name


def _swap_table(names) -> tuple[int, ...]:
    index = {n: i for i, n in enumerate(names)}
    return tuple(index[_swapped_predicate(n)] for n in names)


PREDICATE_SWAP = {
    "arith.cmpi": _swap_table(CMPI_COMPARISON_OPERATIONS),
    "arith.cmpf": _swap_table(CMPF_COMPARISON_OPERATIONS),
}


def _predicate(op: Operation) -> int | None:
    """The predicate of a compare whose operands may be exchanged (with the predicate swapped)."""
    table = PREDICATE_SWAP.get(op.name)
    if table is None or len(op.operands) != 2:
        return None
    p = op.properties.get("predicate")
    if isinstance(p, IntegerAttr) and 0 <= p.value.data < len(table):
        return p.value.data
    return None


def operand_forms(op: Operation) -> list[tuple[int | None, tuple[SSAValue, ...]]]:
    """The (predicate, operands) forms that compute the same as ``op``: itself and, for a
    commuting op, its two operands exchanged (a compare's predicate swapped with them).  The
    forms of two ops are equal sets or disjoint (exchanging twice is the identity)."""
    ops = tuple(op.operands)
    p = _predicate(op)
    if p is not None:
        return [(p, ops), (PREDICATE_SWAP[op.name][p], (ops[1], ops[0]))]
    if len(ops) == 2 and op.has_trait(Commutative):
        return [(None, ops), (None, (ops[1], ops[0]))]
    return [(None, ops)]


def _attrs_key(op: Operation) -> tuple:
    """Properties (a compare's predicate left out: it goes with the operands) and attributes."""
    skip = "predicate" if _predicate(op) is not None else None
    return (
        tuple(sorted((k, v) for k, v in op.properties.items() if k != skip)),
        tuple(sorted(op.attributes.items())),
    )


class ValueNumbering:
    """Numbers equal for values that hold the same bits whenever both are defined (see the
    module docstring for the rules).  ``key(value)`` is an int.

    A numbering made for one ``scf.for`` (``scope``) numbers the values inside that loop under
    an assumption (``alias``: a loop-carried block argument -> the argument standing for its
    class) and hands every other value to its ``parent``; all share one table of numbers."""

    MAX_DEPTH = 64

    def __init__(self, parent: ValueNumbering | None = None, scope: Operation | None = None,
                 alias: dict[SSAValue, SSAValue] | None = None):
        self.parent = parent
        self.scope = scope
        self.alias = alias or {}
        self.table: dict[tuple, int] = parent.table if parent is not None else {}
        self.memo: dict[SSAValue, int] = {}
        self.loop_classes: dict[Operation, list[int]] = {}

    def _intern(self, structure: tuple) -> int:
        n = self.table.get(structure)
        if n is None:
            n = self.table[structure] = len(self.table)
        return n

    def _opaque(self, value: SSAValue) -> int:
        return self._intern(("value", value))

    def _outside_scope(self, value: SSAValue) -> bool:
        if self.scope is None:
            return False
        if isinstance(value, OpResult):
            return value.owner is self.scope or not self.scope.is_ancestor(value.owner)
        return not self.scope.is_ancestor(value.block)

    def key(self, value: SSAValue, depth: int = 0) -> int:
        if self.parent is not None and self._outside_scope(value):
            return self.parent.key(value, depth)
        k = self.memo.get(value)
        if k is None:
            k = self.memo[value] = self._compute(value, depth)
        return k

    def _compute(self, value: SSAValue, depth: int) -> int:
        if isinstance(value, BlockArgument):
            return self._opaque(self.alias.get(value, value))
        op = value.owner
        if not isinstance(op, Operation) or depth > self.MAX_DEPTH:
            return self._opaque(value)
        if isinstance(op, IfOp):
            return self._if_result(op, value, depth)
        if isinstance(op, ForOp):
            return self._for_result(op, value, depth)
        if op.regions or op.name in _NEVER_EQUAL or not is_pure(op):
            return self._opaque(value)
        forms = min(
            (-1 if p is None else p, tuple(self.key(v, depth + 1) for v in operands))
            for p, operands in operand_forms(op)
        )
        return self._intern((op.name, _attrs_key(op), tuple(op.result_types), forms, value.index))

    def _if_result(self, op: IfOp, value: OpResult, depth: int) -> int:
        if len(op.true_region.blocks) != 1 or len(op.false_region.blocks) != 1:
            return self._opaque(value)
        yields = []
        for region in (op.true_region, op.false_region):
            term = region.block.last_op
            if term is None or len(term.operands) != len(op.results):
                return self._opaque(value)
            yields.append(self.key(term.operands[value.index], depth + 1))
        return self._intern(("scf.if", self.key(op.cond, depth + 1), *yields, value.type))

    def _for_result(self, op: ForOp, value: OpResult, depth: int) -> int:
        reps = self.loop_classes.get(op)
        if reps is None:
            reps = self.loop_classes[op] = self._congruence(op, depth)
        if reps is None:
            return self._opaque(value)
        return self._opaque(op.results[reps[value.index]])

    def _congruence(self, op: ForOp, depth: int) -> list[int] | None:
        """For each loop-carried value, the first one congruent to it (module docstring)."""
        if len(op.body.blocks) != 1:
            return None
        body = op.body.block
        args = body.args[1:]
        inits = op.iter_args
        term = body.last_op
        if term is None or not (len(args) == len(inits) == len(term.operands) == len(op.results)):
            return None
        n = len(args)
        start = [(a.type, self.key(v, depth + 1)) for a, v in zip(args, inits)]
        reps = [next(j for j in range(n) if start[j] == start[k]) for k in range(n)]
        while True:
            alias = {args[k]: args[reps[k]] for k in range(n) if reps[k] != k}
            if not alias:
                return reps
            inner = ValueNumbering(parent=self, scope=op, alias=alias)
            ends = [inner.key(v) for v in term.operands]
            refined = [next(j for j in range(n) if reps[j] == reps[k] and ends[j] == ends[k]) for k in range(n)]
            if refined == reps:
                return reps
            reps = refined


def reduction_key(op: Operation, numbering: ValueNumbering):
    return (
        op.name,
        tuple(numbering.key(v) for v in op.operands),
        op.properties.get("axis"),
        op.properties.get("reverse"),
        tuple(op.result_types),
    )


SHALLOW_DEPTH = 3
MAX_PAIRED = 32  # (RedundantReduce.may_rewrite: larger groups are not compared pair by pair)


def shallow_key(op: Operation) -> tuple:
    """What :func:`reduction_key` gives ``op`` with each operand's number coarsened to its
    :func:`shape_of` (to :data:`SHALLOW_DEPTH`): reductions with different shallow keys
    never have one reduction key."""
    return (
        op.name,
        tuple(shape_of(v, SHALLOW_DEPTH) for v in op.operands),
        op.properties.get("axis"),
        op.properties.get("reverse"),
        tuple(op.result_types),
    )


def shape_of(value: SSAValue, depth: int):
    """A coarse form of ``value``'s number in a function's :class:`ValueNumbering`: values
    with one number have one shape (for any ``depth``).  Follows :meth:`ValueNumbering.
    _compute` case by case: a value numbered by itself is itself; any result of one
    ``scf.for`` (its loop-carried values may be congruent) is that loop; every ``scf.if``
    result is one shape (two ``scf.if`` results may be numbered alike); a result numbered
    by its op is the op's name, the result's index and its operands' shapes, depth - 1 down
    (two operands as a set: those of a commuting op may be exchanged, :func:`operand_forms`),
    or, past ``depth``, one shape for all.  A number that is the value's own (the depth
    limit of the numbering was passed) is only that value's, whose shape is its own."""
    if depth == 0:
        return ()
    if isinstance(value, BlockArgument):
        return value
    op = value.owner
    if not isinstance(op, Operation):
        return value
    if isinstance(op, IfOp):
        return "scf.if"
    if isinstance(op, ForOp):
        return op
    if op.regions or op.name in _NEVER_EQUAL or not is_pure(op):
        return value
    operands = tuple(shape_of(v, depth - 1) for v in op.operands)
    if len(operands) == 2:  # (any two operands as a set: commuting or not, coarser is sound)
        return (op.name, value.index, frozenset(operands))
    return (op.name, value.index, operands)


def regions_equivalent(ra: Region, rb: Region, outer: dict | None = None) -> bool:
    """Structural equivalence of two single-block regions (``outer``: enclosing mapping):
    block arguments mapped in order, ops in order, commuting ops' operands in either order."""
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
        or _attrs_key(oa) != _attrs_key(ob)
    ):
        return False
    pb, operands_b = operand_forms(ob)[0]
    if not any(
        pa == pb and all(mapping.get(x, x) is y for x, y in zip(operands_a, operands_b))
        for pa, operands_a in operand_forms(oa)
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

    NEEDS_TWO: ClassVar[tuple[type, ...]] = _REDUCTIONS  # (one merged into the other)

    def may_rewrite(self, func) -> bool:
        """Are there two reductions in ``func`` that could be merged?  Not where no two of
        its pure reductions have one :func:`shallow_key` and equivalent combiners (either
        way round): every merge needs two such (their full keys equal, the later one's
        combiner equivalent to the earlier one's), and only a merge changes the IR, so
        where the first merge is impossible there is none.  Each function is walked once
        for this (as ``holds_two`` would), without numbering anything.  (A group of more
        than :data:`MAX_PAIRED` reductions with one shallow key is left to the walk: the
        combiners are compared pair by pair.)"""
        reductions = ops_of(func, _REDUCTIONS)
        if len(reductions) < 2:
            return False
        groups: dict[tuple, list[Operation]] = {}
        for op in reductions:
            groups.setdefault(shallow_key(op), []).append(op)
        for group in groups.values():
            if len(group) < 2:
                continue
            group = [op for op in group if is_pure(op)]
            if len(group) > MAX_PAIRED:
                return True
            for i, a in enumerate(group):
                for b in group[i + 1:]:
                    if not a.regions or not b.regions:
                        return True  # (not a valid reduction: left to the walk)
                    if regions_equivalent(a.regions[0], b.regions[0]) or regions_equivalent(
                        b.regions[0], a.regions[0]
                    ):
                        return True
        return False

    def begin_function(self, func) -> None:
        self.set_state(numbering=ValueNumbering())

    def _block(self, block: Block, available: _Available | dict) -> int:
        if not isinstance(available, _Available):  # (a function's body: nothing yet)
            available = _Available()
        removed = 0
        for op in list(block.ops):
            if isinstance(op, _REDUCTIONS) and is_pure(op):
                key = reduction_key(op, self.numbering)
                match = next(
                    (a for a in available.candidates(key)
                     if regions_equivalent(a.regions[0], op.regions[0])),
                    None,
                )
                if match is not None:
                    for old, new in zip(op.results, match.results):
                        replace_value(old, new)
                    erase_op(op)
                    removed += 1
                    continue
                available.add(key, op)
            if op.regions:
                inherits = isinstance(op, _INHERITS)
                for region in op.regions:
                    for i, inner in enumerate(region.blocks):
                        # only the entry block is dominated by what precedes the op
                        outer = available if inherits and i == 0 else None
                        removed += self._block(inner, _Available(outer))
        return removed


class _Available:
    """The reductions available in a block: its own, by key, after those of the blocks that
    enclose it (read through ``parent``, never copied: copying the table for every nested
    block, e.g. each combiner region, made the pass quadratic in the number of reductions)."""

    __slots__ = ("own", "parent")

    def __init__(self, parent: _Available | None = None) -> None:
        self.own: dict[tuple, list[Operation]] = {}
        self.parent = parent

    def candidates(self, key: tuple):
        """Earlier reductions of this key, outermost (earliest) first."""
        if self.parent is not None:
            yield from self.parent.candidates(key)
        yield from self.own.get(key, ())

    def add(self, key: tuple, op: Operation) -> None:
        self.own.setdefault(key, []).append(op)
