"""``div-chain``: turn chains of floating-point divisions into one division, where that pays.

For ``arith.divf`` on floating-point scalars or tensors (f16, bf16, f32, f64), when each inner
division has exactly one use and is in the outer division's block:

* ``(a / b) / (c / d)  ->  (a * d) / (b * c)``   (case 3: two divisions removed, one left)
* ``(a / b) / c        ->  a / (b * c)``         (case 1)
* ``c / (a / b)        ->  (c * b) / a``         (case 2)

tried in this order on each division.  Applied repeatedly in program order, a chain of
distinct divisors collapses to a single division: ``a/b/c/d -> a/((b*c)*d)``.

**Through splats and broadcasts.**  An inner division may be reached through a chain ``L`` of
``tt.splat`` / ``tt.broadcast`` / ``tt.expand_dims`` ops (a *lift*: it copies elements, never
computes), each of whose results has that one use: ``x / splat(a/b) -> (x * splat(b)) /
splat(a)``, ``broadcast(a/b) / c -> broadcast(a) / (broadcast(b) * c)``; ``L(a/b)`` is
``L(a) / L(b)`` element for element, so the rules above apply unchanged.  A new multiply of two
lifted values is computed **on the smaller tensor**: where the two operands end in the same
lift ops (same op, same operand and result types, same ``axis``), ``L(p) * L(q)`` is built as
``L(p * q)``, so ``(x / splat(b)) / splat(c) -> x / splat(b * c)`` multiplies scalars.  The
lift ops a rewrite leaves without a use are erased; new ones are copies of the old ones (same
types and locations).

**Placement.**  The new division takes the place, the location and the SSA name of the outer
division it replaces.  Each new multiply (and each new lift op) is placed right after the later
of its operands' definitions (at the start of the block for a block argument), so it is never
inside a loop or ``scf.if`` its operands are outside of; its location is the inner division's
(``b*c``, ``c*b``, ``b*c`` of case 3) or the outer one's (``a*d``).  Integer divisions and
``tt.precise_divf`` (``tl.div_rn``, which asks for IEEE rounding) are never touched, nor are
divisions whose fastmath flags differ.

Profitability (the pass only rewrites where the rewrite can make the kernel cheaper):

1. **Same block.**  The inner divisions must be in the same block as the outer one.  Otherwise
   the new division would take the outer division's place: for an inner division before an
   ``scf.for`` and an outer one inside it, one division executed once would become a
   division of a product executed on every iteration.

2. **A reciprocal must be saved.**  On NVIDIA, f32 ``arith.divf`` lowers to ``div.full.f32``
   (f16/bf16 go through f32), which ptxas expands to ``MUFU.RCP`` of the divisor plus
   multiplies; ptxas shares one reciprocal among all divisions by the same value and folds
   the reciprocal of a constant (measured on sm_90 SASS: ``a/t/t`` and ``a/(t*t)`` both have
   one ``MUFU.RCP`` per element; ``a/768/s`` and ``a/(768*s)`` both one; ``a/t/s`` two,
   ``a/(t*s)`` one).  So for these types the cost of a function's divisions is the number of
   *distinct non-constant divisor values* among its ``arith.divf`` ops, and a rewrite is made
   only when it lowers that number.  A divisor is counted by its *root*: the value under its
   lift ops (``broadcast(expand_dims(s))`` counts as ``s``: a lift copies registers, the
   reciprocal of ``s`` serves every copy).  With ``U(v)`` the number of ``arith.divf`` in the
   function whose divisor has the root ``v`` (counted before the rewrite):

   * case 1 ``(a/b)/c``: only when the roots of ``b`` and ``c`` differ, neither is a
     constant, ``U(b) == 1`` and ``U(c) == 1`` (no other division needs their reciprocals).
     ``a/t/t`` is never rewritten (``rcp(t)`` is shared; ``a/(t*t)`` has the same single
     reciprocal behind a longer dependency chain), nor ``(a/b)/c`` when ``c`` (or ``b``) is
     also a divisor elsewhere in the function (its reciprocal is computed anyway);
   * case 2 ``c/(a/b)``: the divisor ``a/b`` disappears and ``a`` becomes one; the rewrite
     is made when ``b`` is not a constant and ``U(b) == 1`` (two reciprocals become one), or
     when ``a`` is a constant or already a divisor elsewhere (``rcp(a)`` costs nothing new).
     ``c/(a/768)`` with a new ``a`` is left alone: ``rcp(a/768)`` would become ``rcp(a)``.
   * case 3 ``(a/b)/(c/d)``: the divisors ``b``, ``d`` and ``c/d`` go, the new product
     ``b*c`` comes: made when that lowers the count (e.g. ``b`` and ``d`` non-constant and
     used once: three reciprocals become one).  Where it does not pay, case 1 and case 2 are
     tried as before.

   f64 ``arith.divf`` lowers to ``div.rn.f64``, a full correctly-rounded sequence per division
   with nothing shared between divisions (``a/t/t``: 17 ``MUFU.RCP64H`` per 16 divisions,
   ``a/(t*t)``: 9), so for f64 every removed division counts and rule 2 does not apply.

   Constants: an ``arith.constant``, or a lift (``tt.splat``, ``tt.broadcast``,
   ``tt.expand_dims``) of one.  The multiply created by a rewrite is never a constant, even
   of two constants.

Numerical contract (why this pass only runs when asked for): the rewrite reassociates.
Rounding changes: ``a/b/c`` rounds twice through division, ``a/(b*c)`` once through a multiply
(0.5 ulp) and once through a division; on NVIDIA f32 ``div.full`` is itself within 2 ulp, so
each rewritten division is within a few ulp of the original (``bench/div_chain_numerics.py``
measures the max relative error against a long-double reference, and how many ulps apart
the two forms are: over 10^6 draws per row with no product out of range, case 1 and case 2
at most 2 ulps apart, ``a/b/c/d`` 3, case 3 4 (f16 in [0.1, 10], f64 from 1e-8 to 1e8), the
bound ``ttopt-opt --validate`` allows a reassociating pass by default).  Lifts change nothing in
the numbers: ``L(p*q)`` is ``L(p)*L(q)`` bit for bit.  Range changes: ``b*c`` (or ``c*b``,
``a*d``) can overflow to inf or underflow to 0 where the divisions do not, e.g. f32 ``b = c =
1e20`` makes ``a/(b*c)`` return 0 while ``a/b/c`` is ``a*1e-40``; f16 overflows already at
``b*c > 65504``.  Use it where operands are known to be moderate (normalisation factors,
variances, counts), not on arbitrary data.

Implementation: the rewrite is :class:`DivChainPattern`, an xDSL ``RewritePattern`` on
``arith.divf``, applied by xDSL's ``PatternRewriteWalker`` (``apply_recursively=False``: one
walk in program order, the ops a rewrite creates are not visited again; an inner division is
always visited, and already collapsed, before the division that uses it).  The divisor-use
counts ``U(v)`` live on the pattern, one table per function, counted once on the function's
first division and then updated in place by each rewrite: linear in the size of the function.
:class:`DivChain` is the ``div-chain`` pass: one walker per ``tt.func``, the divisions each
rewrite removes (one; two for case 3) counted per function by the pattern, statistics handed
to :func:`~ttopt.passes.base.record_stats`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import AnyFloat, Float64Type, ModuleOp, TensorType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from ..dialects.arith import ConstantOp, DivfOp, MulfOp
from ..dialects.tt import BroadcastOp, ExpandDimsOp, FuncOp, SplatOp
from ..xdsl_compat import set_value_name
from .base import PassStats, collect_stats, forget_names, functions, ops_of, record_stats


def _elem(op: Operation):
    typ = op.results[0].type
    return typ.element_type if isinstance(typ, TensorType) else typ


def _is_float(op: Operation) -> bool:
    return isinstance(_elem(op), AnyFloat)


def shares_reciprocals(div: DivfOp) -> bool:
    """True where divisions by one value share one reciprocal (``div.full.f32``: f32, f16,
    bf16); False for f64 (``div.rn.f64``: a full sequence per division)."""
    return not isinstance(_elem(div), Float64Type)


# ------------------------------------------------------------------ lifts
LIFT_OPS = (SplatOp, BroadcastOp, ExpandDimsOp)
"""Ops that only copy elements into a larger (or reshaped) tensor: ``L(f(x)) == f(L(x))``
for any elementwise ``f``, bit for bit."""


def lift_chain(value) -> tuple[SSAValue, tuple[Operation, ...]]:
    """``value`` as ``L(root)``: the root and the lift ops from it up to ``value`` (the root's
    user first; empty when ``value`` is no lift's result)."""
    ops = []
    while isinstance(owner := getattr(value, "owner", None), LIFT_OPS):
        ops.append(owner)
        value = owner.operands[0]
    ops.reverse()
    return value, tuple(ops)


def divisor_key(value):
    """What a divisor is counted as (rule 2): its root under its lift ops."""
    return lift_chain(value)[0]


def is_constant(value) -> bool:
    """An ``arith.constant`` or a lift of one: its reciprocal is folded by ptxas."""
    return isinstance(getattr(divisor_key(value), "owner", None), ConstantOp)


def numel(typ) -> int:
    """Elements of a tensor type (1 for a scalar)."""
    n = 1
    if isinstance(typ, TensorType):
        for d in typ.get_shape():
            n *= d
    return n


def same_lift(p: Operation, q: Operation) -> bool:
    """``p`` and ``q`` lift alike: same op, operand type, result type and properties."""
    return (
        type(p) is type(q)
        and p.operands[0].type == q.operands[0].type
        and p.results[0].type == q.results[0].type
        and p.properties == q.properties
    )


# ------------------------------------------------------------------ placement
def _def_block(value: SSAValue) -> Block | None:
    return value.block if isinstance(value, BlockArgument) else value.op.parent_block()


def _is_before(p: Operation, q: Operation) -> bool:
    """``p`` strictly before ``q`` in their (common) block; searched from ``p`` in both
    directions at once, so the cost is the distance between them."""
    fwd, back = p.next_op, p.prev_op
    while fwd is not None or back is not None:
        if fwd is not None:
            if fwd is q:
                return True
            fwd = fwd.next_op
        if back is not None:
            if back is q:
                return False
            back = back.prev_op
    return False


def later_def(values: Sequence[SSAValue]) -> SSAValue:
    """Of values that all dominate one use, the one defined last (the others dominate it)."""
    latest = values[0]
    for v in values[1:]:
        bl, bv = _def_block(latest), _def_block(v)
        if bl is not bv:
            if bl is not None and bl.is_ancestor(bv):  # v is defined in a region nested deeper
                latest = v
        elif isinstance(v, BlockArgument):
            continue
        elif isinstance(latest, BlockArgument) or _is_before(latest.op, v.op):
            latest = v
    return latest


def after_defs(values: Sequence[SSAValue]) -> InsertPoint:
    """Right after the later of the definitions of ``values`` (the block's start for a block
    argument): never inside a loop or region that the values are outside of."""
    v = later_def(values)
    return InsertPoint.at_start(v.block) if isinstance(v, BlockArgument) else InsertPoint.after(v.op)


def build_like(cls, lhs: SSAValue, rhs: SSAValue, like: Operation, location) -> Operation:
    """A new ``cls`` (``arith.mulf``/``divf``) with ``like``'s fastmath flags.  Built with
    :meth:`Operation.create` (operands, result type, properties, location), which ttopt's and
    xDSL's own arith op classes both accept."""
    props = {}
    if "fastmath" in like.properties:
        props["fastmath"] = like.properties["fastmath"]
    return cls.create(operands=[lhs, rhs], result_types=[lhs.type], properties=props, location=location)


_build = build_like


def relift(value: SSAValue, ops: Sequence[Operation], rewriter: PatternRewriter) -> SSAValue:
    """``L(value)`` for the lift ops ``ops`` (copies of them, without names), each placed
    right after its operand's definition."""
    for template in ops:
        clone = template.clone(value_mapper={template.operands[0]: value}, clone_name_hints=False)
        rewriter.insert(clone, after_defs([value]))
        value = clone.results[0]
    return value


def erase_dead_lifts(values, rewriter: PatternRewriter) -> None:
    """Erase the lift ops among the definitions of ``values`` (and below them) that no longer
    have a use."""
    todo = list(values)
    while todo:
        owner = getattr(todo.pop(), "owner", None)
        if isinstance(owner, LIFT_OPS) and owner.parent_block() is not None and not owner.results[0].uses:
            src = owner.operands[0]
            forget_names(owner)
            rewriter.erase(owner)
            todo.append(src)


@dataclass(frozen=True)
class _Term:
    """``L(base)``: an existing value ``base`` with the lift ops ``ops`` (templates, the
    base's user first) still to apply; ``ops == ()`` is ``base`` itself."""

    base: SSAValue
    ops: tuple[Operation, ...] = ()

    def full(self) -> tuple[Operation, ...]:
        """Every lift op from the root of ``base`` up (the base's own chain, then ``ops``)."""
        return lift_chain(self.base)[1] + self.ops

    def below(self, k: int, rewriter: PatternRewriter) -> SSAValue:
        """The value under the top ``k`` lift ops of :meth:`full`."""
        own = len(self.ops)
        if k <= own:
            return relift(self.base, self.ops[: own - k], rewriter)
        chain = lift_chain(self.base)[1]
        return chain[len(chain) - (k - own)].operands[0]

    def value(self, rewriter: PatternRewriter) -> SSAValue:
        return self.below(0, rewriter)


def _multiply(p: _Term, q: _Term, like: Operation, location, rewriter: PatternRewriter) -> SSAValue:
    """``p * q``, computed under the lift ops the two have in common at the top (on the
    smallest tensor), then lifted; the multiply right after its operands' definitions."""
    fp, fq = p.full(), q.full()
    k = 0
    while k < min(len(fp), len(fq)) and same_lift(fp[len(fp) - 1 - k], fq[len(fq) - 1 - k]):
        k += 1
    lhs, rhs = p.below(k, rewriter), q.below(k, rewriter)
    mul = build_like(MulfOp, lhs, rhs, like, location)
    rewriter.insert(mul, after_defs([lhs, rhs]))
    return relift(mul.results[0], fp[len(fp) - k:], rewriter)


def _single_use_div(value, outer: DivfOp) -> tuple[DivfOp, tuple[Operation, ...]] | None:
    """``value`` as ``L(a/b)``: the inner division and the lift ops from it up to ``value``,
    if the division and each lift op have this one use, and the division is in ``outer``'s
    block with ``outer``'s fastmath flags."""
    root, ops = lift_chain(value)
    inner = getattr(root, "owner", None)
    if (
        isinstance(inner, DivfOp)
        and inner is not outer
        and root.has_one_use()
        and all(op.results[0].has_one_use() for op in ops)
        and inner.parent_block() is not None
        and inner.parent_block() is outer.parent_block()  # rule 1: never into a loop or region
        and inner.properties.get("fastmath") == outer.properties.get("fastmath")
    ):
        return inner, ops
    return None


def saves_reciprocal(uses: Counter, removed: list, added: list) -> bool:
    """Rule 2: does removing the divisions by ``removed`` and adding divisions by ``added``
    (divisor keys, :func:`divisor_key`; ``uses`` counts the function's divisions per key)
    lower the number of distinct non-constant divisors?  ``added`` values that are new
    multiplies are never constants.  Only the touched values can change the count: constant
    time, not a recount of the function's divisors per division (quadratic on long
    functions)."""
    change = Counter(removed)
    change.subtract(added)
    delta = 0
    for v, fewer in change.items():
        if is_constant(v):
            continue
        delta += (uses[v] - fewer > 0) - (uses[v] > 0)
    return delta < 0


def rewrite_division(
    div: DivfOp, uses: Counter | None = None, rewriter: PatternRewriter | None = None
) -> int:
    """Apply case 3, 1 or 2 to ``div`` if one matches and pays; returns the number of
    divisions removed (0: not rewritten; 1 for case 1 and 2; 2 for case 3).

    ``uses`` counts the ``arith.divf`` ops of the enclosing function per divisor key (see
    :func:`divisor_uses`); it is updated in place.  ``None``: counted here.  ``rewriter``: the
    :class:`PatternRewriter` that makes the change (its listeners see the insertions, the
    replacement of ``div`` and the erasures); ``None``: a fresh one with no listeners."""
    if not _is_float(div):
        return 0
    if uses is None:
        uses = divisor_uses(_function_of(div))
    x, y = div.operands
    sharing = shares_reciprocals(div)
    key = divisor_key
    left = _single_use_div(x, div)
    right = _single_use_div(y, div)
    case = None
    if left is not None and right is not None:  # (a/b)/(c/d) -> (a*d)/(b*c)
        b, d = left[0].operands[1], right[0].operands[1]
        if not sharing or saves_reciprocal(uses, [key(b), key(y), key(d)], [_NEW]):
            case = 3
    if case is None and left is not None:  # (a/b)/c -> a/(b*c)
        b = left[0].operands[1]
        if not sharing or (key(b) is not key(y) and saves_reciprocal(uses, [key(b), key(y)], [_NEW])):
            case = 1
    if case is None and right is not None:  # c/(a/b) -> (c*b)/a
        a, b = right[0].operands
        if not sharing or saves_reciprocal(uses, [key(b), key(y)], [key(a)]):
            case = 2
    if case is None:
        return 0
    if rewriter is None:
        rewriter = PatternRewriter(div)
    removed = [y]
    if case in (1, 3):
        inner, lift = left
        a, b = inner.operands
        removed.append(b)
        if case == 1:
            num = _Term(a, lift).value(rewriter)
            den = _multiply(_Term(b, lift), _Term(y), div, inner.location, rewriter)
        else:
            inner2, lift2 = right
            c, d = inner2.operands
            removed.append(d)
            # (the denominator first: where both multiplies go to one place, a*d comes first)
            den = _multiply(_Term(b, lift), _Term(c, lift2), div, inner.location, rewriter)
            num = _multiply(_Term(a, lift), _Term(d, lift2), div, div.location, rewriter)
    else:
        inner, lift = right
        a, b = inner.operands
        removed.append(b)
        num = _multiply(_Term(x), _Term(b, lift), div, inner.location, rewriter)
        den = _Term(a, lift).value(rewriter)
    new_div = build_like(DivfOp, num, den, div, div.location)
    for v in removed:
        uses[key(v)] -= 1
    # The SSA name is kept exactly (``%q_0`` stays ``%q_0``): set directly, as the reader
    # does, not through the ``name_hint`` setter, which strips a ``_N`` suffix.  The new ops
    # are inserted on their own, so that ``replace`` gives them no name either.
    set_value_name(new_div.results[0], div.results[0].name_hint)
    forget_names(div)
    rewriter.replace(div, new_div)
    # what the rewrite left without a use: the old lifts of x and y, the inner divisions,
    # the lifts of their operands (replaced by copies or by the values under them)
    inners = [left[0]] if case == 1 else [right[0]] if case == 2 else [left[0], right[0]]
    erase_dead_lifts([x, y], rewriter)
    below = []
    for inner in inners:
        below += inner.operands
        forget_names(inner)
        rewriter.erase(inner)
    erase_dead_lifts(below, rewriter)
    uses[key(den)] += 1
    return 2 if case == 3 else 1


class _New:
    """Stands for the multiply a case-1 or case-3 rewrite creates: a new, non-constant
    divisor."""

    owner = None


_NEW = _New()


def _function_of(op: Operation):
    cur = op
    while cur is not None and not isinstance(cur, FuncOp):
        cur = cur.parent_op()
    return cur


def divisor_uses(scope: Operation | None) -> Counter:
    """Number of ``arith.divf`` ops under ``scope`` (a function) per divisor key (the
    divisor's root under its lifts, :func:`divisor_key`)."""
    uses: Counter = Counter()
    if scope is None:
        return uses
    for op in scope.walk():
        if isinstance(op, DivfOp):
            uses[divisor_key(op.operands[1])] += 1
    return uses


def has_chain(scope: Operation) -> bool:
    """Is there a division in ``scope`` that a rule may rewrite: an ``arith.divf`` on floats
    with an operand that :func:`_single_use_div` takes for ``L(a/b)``?  Every rewrite needs
    one (:func:`rewrite_division`), and only a rewrite changes the IR, so where there is
    none the walk would rewrite nothing.  (A malformed ``arith.divf``, which the verifier
    refuses, is left to the walk, where the function holds two divisions.)"""
    divisions = ops_of(scope, (DivfOp,))
    if len(divisions) < 2:
        return False
    for op in divisions:
        if len(op.operands) != 2 or len(op.results) != 1:
            return True
        if _is_float(op) and (
            _single_use_div(op.operands[0], op) is not None
            or _single_use_div(op.operands[1], op) is not None
        ):
            return True
    return False


# ------------------------------------------------------------------ the pattern
class DivChainPattern(RewritePattern):
    """``div-chain``'s rewrite as an xDSL pattern on ``arith.divf``.

    Apply it with ``PatternRewriteWalker(DivChainPattern(), apply_recursively=False)`` (what
    :class:`DivChain` does): one walk in program order.  Under ``apply_recursively=True`` the
    walker would also revisit the divisions a rewrite creates, which the pass never does.

    Scope: the divisions inside the ``tt.func`` ops of the outermost module, as the pass
    (a function of a module nested in another, e.g. a file of several modules read without
    ``--split-input-file``, is left alone, as by ttopt's other passes).

    State, per walk (use one pattern object per walk of a given IR): ``uses``, the
    divisor-use table of each function met, counted on the function's first division and
    updated by each rewrite.  ``visits`` (divisions matched) and ``tables`` (functions whose
    divisors were counted, one walk of the function each) say how much work was done;
    ``removed``, the divisions removed so far (what ``--stats`` reports).

    ``defer_errors``: an exception inside the pattern is kept in ``error`` (with a note
    naming the division and its location) and the rest of the walk does nothing; call
    :meth:`raise_error` after the walk.  Without it the exception goes to the walker, which in
    xDSL 0.74 prints the whole module into the exception's notes before re-raising it.
    """

    def __init__(self, defer_errors: bool = False):
        self.defer_errors = defer_errors
        self.uses: dict[FuncOp, Counter] = {}
        self._block_func: dict[Block, FuncOp | None] = {}
        self.visits = 0
        self.tables = 0
        self.removed = 0
        self.error: Exception | None = None

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DivfOp, rewriter: PatternRewriter) -> None:
        if self.error is not None:
            return
        try:
            self.visits += 1
            func = self._function(op)
            if func is None:  # not inside a tt.func: not ttopt's to rewrite
                return
            uses = self.uses.get(func)
            if uses is None:
                uses = self.uses[func] = divisor_uses(func)
                self.tables += 1
            self.removed += rewrite_division(op, uses, rewriter)
        except Exception as e:
            if not self.defer_errors:
                raise
            e.add_note(f"while div-chain rewrote {op.name} at {_where(op)}")
            self.error = e

    def raise_error(self) -> None:
        """Re-raise the exception kept by a walk with ``defer_errors``, if any."""
        if self.error is not None:
            error, self.error = self.error, None
            raise error

    def _function(self, op: Operation) -> FuncOp | None:
        """The ``tt.func`` around ``op`` if it is one of the outermost module's (None
        otherwise: not rewritten); each block is looked up once (deep nesting stays linear)."""
        block = op.parent_block()
        if block is None:
            return None
        cache = self._block_func
        if block in cache:
            return cache[block]
        path: list[Block] = []
        func = None
        while block is not None:
            if block in cache:
                func = cache[block]
                break
            path.append(block)
            parent = block.parent_op()
            if parent is None:
                break
            if isinstance(parent, FuncOp):
                module = parent.parent_op()
                # the pass's scope: the functions of the outermost module (as
                # ttopt.passes.base.functions), not those of a module nested in it
                if isinstance(module, ModuleOp) and module.parent_op() is None:
                    func = parent
                break
            block = parent.parent_block()
        for b in path:
            cache[b] = func
        return func


def _where(op: Operation) -> str:
    """``op``'s location, short (never the module)."""
    try:
        text = str(op.location)
    except Exception:  # pragma: no cover - a location that does not print
        text = "?"
    return text if len(text) <= 200 else text[:200] + "..."


# ------------------------------------------------------------------ the pass
@dataclass(frozen=True)
class DivChain(ModulePass):
    name: ClassVar[str] = "div-chain"
    summary: ClassVar[str] = (
        "a/b/c -> a/(b*c), c/(a/b) -> (c*b)/a, (a/b)/(c/d) -> (a*d)/(b*c), also through "
        "splat/broadcast/expand_dims, where a reciprocal is saved, same block only "
        "(reassociates: changes rounding; opt-in)"
    )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        """Walk each ``tt.func`` of the module with :class:`DivChainPattern`; record the
        divisions removed per function (:func:`~ttopt.passes.base.record_stats`)."""
        stats = PassStats(self.name)
        pattern = DivChainPattern(defer_errors=True)
        walker = PatternRewriteWalker(pattern, apply_recursively=False)
        for func in functions(op):
            if not has_chain(func):  # (no division a rule applies to: nothing to walk)
                continue
            before = pattern.removed
            walker.rewrite_region(func.body)
            pattern.raise_error()
            if pattern.removed > before:
                stats.per_function[func.sym_name.data] += pattern.removed - before
        record_stats(stats)

    def run(self, module: ModuleOp) -> PassStats:
        """Apply the pass to ``module`` and return its statistics (what ttopt's passes offer
        besides ``apply``)."""
        from .base import default_context

        with collect_stats() as sink:
            self.apply(default_context(), module)
        merged = PassStats(self.name)
        for s in sink:
            merged.per_function.update(s.per_function)
        return merged
