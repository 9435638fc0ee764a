"""``div-chain``: turn chains of floating-point divisions into one division, where that pays.

For ``arith.divf`` on floating-point scalars or tensors (f16, bf16, f32, f64), when the inner
division has exactly one use:

* ``(a / b) / c  ->  a / (b * c)``   (case 1)
* ``c / (a / b)  ->  (c * b) / a``   (case 2)

Applied repeatedly in program order, a chain of distinct divisors collapses to a single
division: ``a/b/c/d -> a/((b*c)*d)``.  The new division takes the location (and SSA name) of
the outer division it replaces; the new multiply takes the location of the inner division.
Integer divisions and ``tt.precise_divf`` (``tl.div_rn``, which asks for IEEE rounding) are
never touched, nor are divisions whose fastmath flags differ.

Profitability (the pass only rewrites where the rewrite can make the kernel cheaper):

1. **Same block.**  The inner division must be in the same block as the outer one.  Otherwise
   the multiply and the new division would be placed in the outer division's block: for an
   inner division before an ``scf.for`` and an outer one inside it, one division executed once
   would become a multiply executed on every iteration.

2. **A reciprocal must be saved.**  On NVIDIA, f32 ``arith.divf`` lowers to ``div.full.f32``
   (f16/bf16 go through f32), which ptxas expands to ``MUFU.RCP`` of the divisor plus
   multiplies; ptxas shares one reciprocal among all divisions by the same value and folds
   the reciprocal of a constant (measured on sm_90 SASS: ``a/t/t`` and ``a/(t*t)`` both have
   one ``MUFU.RCP`` per element; ``a/768/s`` and ``a/(768*s)`` both one; ``a/t/s`` two,
   ``a/(t*s)`` one).  So for these types the cost of a function's divisions is the number of
   *distinct non-constant divisor values* among its ``arith.divf`` ops, and a rewrite is made
   only when it lowers that number.  With ``U(v)`` the number of ``arith.divf`` in the
   function that divide by ``v`` (counted before the rewrite):

   * case 1 ``(a/b)/c``: only when ``b`` and ``c`` are different values, neither is a
     constant, ``U(b) == 1`` and ``U(c) == 1`` (no other division needs their reciprocals).
     ``a/t/t`` is never rewritten (``rcp(t)`` is shared; ``a/(t*t)`` has the same single
     reciprocal behind a longer dependency chain), nor ``(a/b)/c`` when ``c`` (or ``b``) is
     also a divisor elsewhere in the function (its reciprocal is computed anyway);
   * case 2 ``c/(a/b)``: the divisor ``a/b`` disappears and ``a`` becomes one; the rewrite
     is made when ``b`` is not a constant and ``U(b) == 1`` (two reciprocals become one), or
     when ``a`` is a constant or already a divisor elsewhere (``rcp(a)`` costs nothing new).
     ``c/(a/768)`` with a new ``a`` is left alone: ``rcp(a/768)`` would become ``rcp(a)``.

   f64 ``arith.divf`` lowers to ``div.rn.f64``, a full correctly-rounded sequence per division
   with nothing shared between divisions (``a/t/t``: 17 ``MUFU.RCP64H`` per 16 divisions,
   ``a/(t*t)``: 9), so for f64 every removed division counts and rule 2 does not apply.

   Constants: an ``arith.constant`` or a ``tt.splat`` of one.  The multiply created by a
   rewrite is never a constant, even of two constants.

Numerical contract (why this pass only runs when asked for): the rewrite reassociates.
Rounding changes: ``a/b/c`` rounds twice through division, ``a/(b*c)`` once through a multiply
(0.5 ulp) and once through a division; on NVIDIA f32 ``div.full`` is itself within 2 ulp, so
each rewritten division is within a few ulp of the original (``bench/div_chain_numerics.py``
measures the max relative error against float64 over typical ranges).  Range changes: ``b*c``
(or ``c*b``) can overflow to inf or underflow to 0 where ``a/b/c`` does not, e.g. f32
``b = c = 1e20`` makes ``a/(b*c)`` return 0 while ``a/b/c`` is ``a*1e-40``; f16 overflows
already at ``b*c > 65504``.  Use it where operands are known to be moderate (normalisation
factors, variances, counts), not on arbitrary data.

Implementation: the rewrite is :class:`DivChainPattern`, an xDSL ``RewritePattern`` on
``arith.divf``, applied by xDSL's ``PatternRewriteWalker`` (``apply_recursively=False``: one
walk in program order, the ops a rewrite creates are not visited again; an inner division is
always visited, and already collapsed, before the division that uses it).  The divisor-use
counts ``U(v)`` live on the pattern, one table per function, counted once on the function's
first division and then updated in place by each rewrite: linear in the size of the function.
:class:`DivChain` is the ``div-chain`` pass: one walker per ``tt.func``, rewrites counted per
function by a rewriter listener (``operation_replacement_handler``: each rewrite replaces one
``arith.divf``), statistics handed to :func:`~ttopt.passes.base.record_stats`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import AnyFloat, Float64Type, ModuleOp, TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriterListener,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from ..dialects.arith import ConstantOp, DivfOp, MulfOp
from ..dialects.tt import FuncOp, SplatOp
from ..xdsl_compat import set_value_name
from .base import PassStats, collect_stats, functions, record_stats


def _elem(op: Operation):
    typ = op.results[0].type
    return typ.element_type if isinstance(typ, TensorType) else typ


def _is_float(op: Operation) -> bool:
    return isinstance(_elem(op), AnyFloat)


def shares_reciprocals(div: DivfOp) -> bool:
    """True where divisions by one value share one reciprocal (``div.full.f32``: f32, f16,
    bf16); False for f64 (``div.rn.f64``: a full sequence per division)."""
    return not isinstance(_elem(div), Float64Type)


def is_constant(value) -> bool:
    """An ``arith.constant`` or a ``tt.splat`` of one: its reciprocal is folded by ptxas."""
    owner = getattr(value, "owner", None)
    if isinstance(owner, SplatOp):
        owner = getattr(owner.operands[0], "owner", None)
    return isinstance(owner, ConstantOp)


def _single_use_div(value, outer: DivfOp) -> DivfOp | None:
    inner = value.owner if hasattr(value, "owner") else None
    if (
        isinstance(inner, DivfOp)
        and inner is not outer
        and value.has_one_use()
        and inner.parent_block() is not None
        and inner.parent_block() is outer.parent_block()  # rule 1: never into a loop or region
        and inner.properties.get("fastmath") == outer.properties.get("fastmath")
    ):
        return inner
    return None


def saves_reciprocal(uses: Counter, removed: list, added: list) -> bool:
    """Rule 2: does removing the divisions by ``removed`` and adding divisions by ``added``
    (values; ``uses`` counts the function's divisions per divisor) lower the number of
    distinct non-constant divisors?  ``added`` values that are new multiplies are never
    constants.  Only the touched values can change the count: constant time, not a recount
    of the function's divisors per division (quadratic on long functions)."""
    change = Counter(removed)
    change.subtract(added)
    delta = 0
    for v, fewer in change.items():
        if is_constant(v):
            continue
        delta += (uses[v] - fewer > 0) - (uses[v] > 0)
    return delta < 0


def _build(cls, lhs: SSAValue, rhs: SSAValue, like: Operation, location) -> Operation:
    """A new ``cls`` (``arith.mulf``/``divf``) with ``like``'s fastmath flags.  Built with
    :meth:`Operation.create` (operands, result type, properties, location), which ttopt's and
    xDSL's own arith op classes both accept."""
    props = {}
    if "fastmath" in like.properties:
        props["fastmath"] = like.properties["fastmath"]
    return cls.create(operands=[lhs, rhs], result_types=[lhs.type], properties=props, location=location)


def rewrite_division(
    div: DivfOp, uses: Counter | None = None, rewriter: PatternRewriter | None = None
) -> bool:
    """Apply case 1 or case 2 to ``div`` if one matches and pays; True if rewritten.

    ``uses`` counts the ``arith.divf`` ops of the enclosing function per divisor value (see
    :func:`divisor_uses`); it is updated in place.  ``None``: counted here.  ``rewriter``: the
    :class:`PatternRewriter` that makes the change (its listeners see the insertion of the
    multiply, the replacement of ``div`` and the erasure of the inner division); ``None``: a
    fresh one with no listeners."""
    if not _is_float(div):
        return False
    if uses is None:
        uses = divisor_uses(_function_of(div))
    x, y = div.operands
    sharing = shares_reciprocals(div)
    inner = _single_use_div(x, div)
    case = None
    if inner is not None:  # (a/b)/c -> a/(b*c)
        a, b = inner.operands
        if not sharing or (b is not y and saves_reciprocal(uses, [b, y], [_NEW])):
            case = 1
    if case is None:
        inner = _single_use_div(y, div)
        if inner is None:
            return False
        a, b = inner.operands  # c/(a/b) -> (c*b)/a
        if sharing and not saves_reciprocal(uses, [b, y], [a]):
            return False
        case = 2
    if case == 1:
        mul = _build(MulfOp, b, y, div, inner.location)
        new_div = _build(DivfOp, a, mul.results[0], div, div.location)
    else:
        mul = _build(MulfOp, x, b, div, inner.location)
        new_div = _build(DivfOp, mul.results[0], a, div, div.location)
    uses[b] -= 1  # the inner division's divisor
    uses[y] -= 1  # the outer division's divisor
    if rewriter is None:
        rewriter = PatternRewriter(div)
    # The SSA name is kept exactly (``%q_0`` stays ``%q_0``): set directly, as the reader
    # does, not through the ``name_hint`` setter, which strips a ``_N`` suffix.  The multiply
    # is inserted on its own, so that ``replace`` gives it no name either.
    set_value_name(new_div.results[0], div.results[0].name_hint)
    rewriter.insert(mul, InsertPoint.before(div))
    rewriter.replace(div, new_div)
    rewriter.erase(inner)
    uses[new_div.operands[1]] += 1
    return True


class _New:
    """Stands for the multiply a case-1 rewrite creates: a new, non-constant divisor."""

    owner = None


_NEW = _New()


def _function_of(op: Operation):
    cur = op
    while cur is not None and not isinstance(cur, FuncOp):
        cur = cur.parent_op()
    return cur


def divisor_uses(scope: Operation | None) -> Counter:
    """Number of ``arith.divf`` ops under ``scope`` (a function) per divisor value."""
    uses: Counter = Counter()
    if scope is None:
        return uses
    for op in scope.walk():
        if isinstance(op, DivfOp):
            uses[op.operands[1]] += 1
    return uses


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
    divisors were counted, one walk of the function each) say how much work was done.

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
            rewrite_division(op, uses, rewriter)
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
        "a/b/c -> a/(b*c) and c/(a/b) -> (c*b)/a where a reciprocal is saved, same block only "
        "(reassociates: changes rounding; opt-in)"
    )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        """Walk each ``tt.func`` of the module with :class:`DivChainPattern`; record the
        rewrites per function (:func:`~ttopt.passes.base.record_stats`)."""
        stats = PassStats(self.name)
        pattern = DivChainPattern(defer_errors=True)
        current: list[str] = []

        def replaced(old: Operation, _new: Sequence[SSAValue | None]) -> None:
            if isinstance(old, DivfOp):
                stats.per_function[current[-1]] += 1

        walker = PatternRewriteWalker(
            pattern,
            apply_recursively=False,
            listener=PatternRewriterListener(operation_replacement_handler=[replaced]),
        )
        for func in functions(op):
            current.append(func.sym_name.data)
            walker.rewrite_region(func.body)
            pattern.raise_error()
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
