"""``recip-hoist``: a division by a splat or broadcast becomes a multiply by the splat or
broadcast of one reciprocal, computed on the smaller tensor (reassociates: opt-in).

The rewrite.  For ``q = arith.divf x, y`` on a floating-point tensor (f16, bf16, f32, f64)
whose divisor ``y`` is a *lift* ``L(s)`` of a smaller value ``s``:

* ``y`` is the result of a chain ``L`` of ``tt.splat`` / ``tt.broadcast`` / ``tt.expand_dims``
  ops (ops that only copy elements), ``s`` the value under the whole chain (its *root*);
* ``s`` has fewer elements than ``q`` (a scalar splat, a row statistic broadcast along a
  dimension: a chain of ``tt.expand_dims`` alone copies nothing and is left alone);
* ``s`` is not a constant (an ``arith.constant`` or a lift of one): ptxas folds the reciprocal
  of a constant divisor already (and Triton 3.9 rewrites ``x / constant`` itself), and
  ``x * (1/c)`` would only change the rounding;

``q = x / L(s)`` becomes::

    %one = arith.constant 1.0 : type(s)          // dense<1.0> for a tensor
    %r   = arith.divf %one, %s                    // the division's fastmath flags
    %R   = L(%r)                                  // copies of the lift ops (types, locations)
    %q   = arith.mulf %x, %R                      // flags, SSA name and location of the division

**A factor folded in.**  Where ``x`` is ``x0 * L(z)`` (an ``arith.mulf`` used only by this
division, with its fastmath flags, one of whose operands is a lift of ``z`` by the same lift
ops as the divisor: same ops, types and ``axis``), ``z`` goes into the small tensor's
division instead of ``1``: ``(x0 * L(z)) / L(s) -> x0 * L(z / s)`` (one small division, one
multiply per element, in place of a multiply and a division per element).  This is what
``div-chain``'s ``x / splat(a/b) -> (x * splat(b)) / splat(a)`` leaves: the two passes (the
alias ``all``) make ``x * splat(b / a)`` of it.  ``z / s`` is made per division (not
shared), in the block of the later of ``z`` and ``s``, right before the op holding the
division.

``%one`` and ``%r`` are made once per ``s`` (and fastmath flags): every division by a lift of
``s`` shares them.  They are placed in the block that defines ``s``, right before the op of
that block that holds the first division they serve (the division itself, or the ``scf.for``
/ ``scf.if`` around it): outside every loop and region that ``s`` is outside of, and no
earlier than needed (placed right after ``s`` instead, it would be live beside ``s`` across
everything in between; Triton's own scheduling may still move it).  The copies of the lift
ops follow ``%r`` (once per divisor value ``y``); the multiply takes the division's place.
So a division inside a loop by the broadcast of a value computed before the loop becomes a
multiply in the loop and one reciprocal before it.  The old lift ops are erased where no use
is left.  Integer divisions and ``tt.precise_divf`` are never touched.

Why: Triton 3.6 and 3.9 lower each element of ``x / broadcast(s)`` to a ``div.full.f32``
(f16/bf16 through f32, f64 to a full ``div.rn.f64`` sequence): a reciprocal plus range
handling per element, for a divisor that takes one value per row (softmax's ``exp(x - m) /
sum``, LayerNorm's ``(x - mean) / std``).  After the rewrite the row's reciprocal is computed
once per element of ``s`` and each element of ``x`` costs a multiply.  (``bench/div_sass.py
--recip-hoist`` counts ``MUFU.RCP`` and instructions before and after on the corpus kernels
where it fires.)

Numerical contract (why it runs only when asked for, like ``div-chain``): ``x * rn(1/s)``
rounds twice where ``x / s`` rounds once (the folded form ``x0 * rn(z/s)`` twice, as
``rn(x0 * z) / s`` did, within 2 ulps of it; ``z / s`` may overflow where ``x0 * z`` did not,
or the reverse).  Where ``1/s`` and the quotient are normal numbers
the result is within 1.5 ulp of the exact quotient: at most 1 ulp from the IEEE ``x / s``
(ttopt's interpreter, which ``--validate`` runs; on the GPU the original is ``div.full.f32``,
itself within 2 ulp).  ``python -m bench.recip_numerics`` (10^6 draws per row) measures at
most 1 ulp apart in every dtype for softmax-like (sums in [1, 1e4]) and LayerNorm-like
(standard deviations in [1e-3, 10]) divisors, and up to 1e8 (f32, bf16, f64); ``--validate``
allows a reassociating pass 4.  Range: ``1/s`` overflows where ``|s|`` is below 1/max (f16:
1.5e-5; f32 and bf16: 2.9e-39, a subnormal ``s``): then ``x * (1/s)`` is inf, or NaN for
``x = 0``, where ``x / s`` is finite (f16 divisors in [1e-7, 1e-4]: 60% of the results); and
``1/s`` is subnormal, losing bits, where ``|s|`` is above 1/min-normal (f16: 16384; f32 and
bf16: 8.5e37): up to 4 ulps apart (f16 divisors in [1e4, 6.5e4], f32 in [1e37, 3e38]).  f64:
1 ulp at most everywhere measured.  A softmax's sum (at least 1) and a standard deviation with
an epsilon are far from both ends; f16 divisors outside [1.5e-5, 16384] are real hazards.
Where the quotients are then added to or subtracted from other values, cancellation magnifies
the difference of one stored element (the corpus kernels it fires on: up to 1259 ulps of an
element, at most 3.64 ulps of the largest element written: test/test_divisions_corpus.py).

Implementation: :class:`RecipHoistPattern`, an xDSL ``RewritePattern`` on ``arith.divf``
under xDSL's ``PatternRewriteWalker`` (``apply_recursively=False``: one walk in program order;
the ops a rewrite creates are never visited).  :class:`RecipHoist` is the pass: one walk per
``tt.func`` of the module, the divisions rewritten counted per function.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import AnyFloat, FloatAttr, ModuleOp, TensorType
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from ..dialects.arith import ConstantOp, DivfOp, MulfOp
from ..ir.fast_ops import splat_attr
from ..xdsl_compat import set_value_name
from .base import PassStats, collect_stats, forget_names, functions, record_stats
from .div_chain import build_like, erase_dead_lifts, is_constant, later_def, lift_chain, numel, relift, same_lift


def _float_tensor(value: SSAValue) -> bool:
    typ = value.type
    return isinstance(typ, TensorType) and isinstance(typ.element_type, AnyFloat)


def hoistable(div: DivfOp) -> tuple[SSAValue, tuple[Operation, ...]] | None:
    """The divisor of ``div`` as ``(s, L)`` with ``divisor == L(s)``, if the rewrite applies
    (a float tensor division by a lift of a smaller, non-constant value); None otherwise."""
    if not _float_tensor(div.results[0]):
        return None
    y = div.operands[1]
    root, ops = lift_chain(y)
    if not ops or numel(root.type) >= numel(y.type) or is_constant(root):
        return None
    return root, ops


class RecipHoistPattern(RewritePattern):
    """``recip-hoist``'s rewrite as an xDSL pattern on ``arith.divf``.

    Apply it with ``PatternRewriteWalker(RecipHoistPattern(), apply_recursively=False)`` on a
    function's body (what :class:`RecipHoist` does).  State, per walk (one pattern object per
    walk of a given IR): the reciprocals made, per root and fastmath flags, and their lifts,
    per divisor value (shared by every division they serve); ``rewritten``, the divisions
    turned into multiplies so far; ``defer_errors`` as in
    :class:`~ttopt.passes.div_chain.DivChainPattern` (an exception is kept in ``error`` and
    re-raised by :meth:`raise_error`, never printed with the whole module)."""

    def __init__(self, defer_errors: bool = False):
        self.defer_errors = defer_errors
        self.recips: dict = {}
        self.lifted: dict = {}
        self.rewritten = 0
        self.error: Exception | None = None

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DivfOp, rewriter: PatternRewriter) -> None:
        if self.error is not None:
            return
        try:
            if self._rewrite(op, rewriter):
                self.rewritten += 1
        except Exception as e:
            if not self.defer_errors:
                raise
            e.add_note(f"while recip-hoist rewrote {op.name} at {_where(op)}")
            self.error = e

    def raise_error(self) -> None:
        if self.error is not None:
            error, self.error = self.error, None
            raise error

    def _rewrite(self, div: DivfOp, rewriter: PatternRewriter) -> bool:
        found = hoistable(div)
        if found is None:
            return False
        s, lift = found
        x, y = div.operands
        flags = div.properties.get("fastmath")
        folded = fold_factor(x, lift, div)
        if folded is not None:  # (x0 * L(z)) / L(s) -> x0 * L(z / s)
            x0, z, product = folded
            quotient = build_like(DivfOp, z, s, div, div.location)
            rewriter.insert(quotient, _before_holder(later_def([z, s]), div))
            mul = build_like(MulfOp, x0, relift(quotient.results[0], lift, rewriter), div, div.location)
            set_value_name(mul.results[0], div.results[0].name_hint)
            forget_names(div)
            rewriter.replace(div, mul)
            factor = [v for v in product.operands if v is not x0] or [x0]
            forget_names(product)
            rewriter.erase(product)
            erase_dead_lifts([y, *factor], rewriter)
            return True
        lifted = self.lifted.get((y, flags))
        if lifted is not None and lifted.owner.parent_block() is None:
            lifted = None  # erased since: its only user was folded into a later division
        if lifted is None:
            recip = self.recips.get((s, flags))
            if recip is None:
                recip = self.recips[(s, flags)] = self._reciprocal(s, div, rewriter)
            lifted = self.lifted[(y, flags)] = relift(recip, lift, rewriter)
        mul = build_like(MulfOp, x, lifted, div, div.location)
        # the division's SSA name, exactly (see div_chain.rewrite_division)
        set_value_name(mul.results[0], div.results[0].name_hint)
        forget_names(div)
        rewriter.replace(div, mul)
        erase_dead_lifts([y], rewriter)
        return True

    @staticmethod
    def _reciprocal(s: SSAValue, div: DivfOp, rewriter: PatternRewriter) -> SSAValue:
        """``1 / s`` (the constant just before it) in the block that defines ``s``, right
        before the op of that block that holds ``div``."""
        typ = s.type
        one = ConstantOp(splat_attr(typ, "1.0") if isinstance(typ, TensorType) else FloatAttr(1.0, typ))
        one.location = div.location
        recip = build_like(DivfOp, one.results[0], s, div, div.location)
        rewriter.insert(recip, _before_holder(s, div))
        rewriter.insert(one, InsertPoint.before(recip))
        return recip.results[0]


def _before_holder(value: SSAValue, op: Operation) -> InsertPoint:
    """In the block that defines ``value``, right before the op of that block that holds
    ``op`` (``op`` itself, or the loop or ``scf.if`` around it)."""
    block = value.block if isinstance(value, BlockArgument) else value.op.parent_block()
    return InsertPoint.before(block.find_ancestor_op_in_block(op))


def fold_factor(x: SSAValue, lift: tuple[Operation, ...], div: DivfOp):
    """``x`` as ``x0 * L(z)`` with ``L`` the divisor's lift ops (same ops, types and
    ``axis``), the product used only by ``div`` and with its fastmath flags:
    ``(x0, z, product op)``, else None."""
    product = getattr(x, "owner", None)
    if not (
        isinstance(product, MulfOp)
        and x.has_one_use()
        and product.properties.get("fastmath") == div.properties.get("fastmath")
    ):
        return None
    lhs, rhs = product.operands
    for factor, other in ((lhs, rhs), (rhs, lhs)):
        root, ops = lift_chain(factor)
        if len(ops) == len(lift) and all(same_lift(p, q) for p, q in zip(ops, lift)):
            return other, root, product
    return None


def _where(op: Operation) -> str:
    try:
        text = str(op.location)
    except Exception:  # pragma: no cover - a location that does not print
        text = "?"
    return text if len(text) <= 200 else text[:200] + "..."


@dataclass(frozen=True)
class RecipHoist(ModulePass):
    name: ClassVar[str] = "recip-hoist"
    summary: ClassVar[str] = (
        "x / broadcast(s) -> x * broadcast(1/s): one reciprocal on the smaller tensor, placed "
        "after s (reassociates: changes rounding; opt-in)"
    )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        """Walk each ``tt.func`` of the module with :class:`RecipHoistPattern`; record the
        divisions rewritten per function (:func:`~ttopt.passes.base.record_stats`)."""
        stats = PassStats(self.name)
        for func in functions(op):
            pattern = RecipHoistPattern(defer_errors=True)
            PatternRewriteWalker(pattern, apply_recursively=False).rewrite_region(func.body)
            pattern.raise_error()
            if pattern.rewritten:
                stats.per_function[func.sym_name.data] += pattern.rewritten
        record_stats(stats)

    def run(self, module: ModuleOp) -> PassStats:
        """Apply the pass to ``module`` and return its statistics."""
        from .base import default_context

        with collect_stats() as sink:
            self.apply(default_context(), module)
        merged = PassStats(self.name)
        for s in sink:
            merged.per_function.update(s.per_function)
        return merged
