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
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import AnyFloat, Float64Type, ModuleOp, TensorType
from xdsl.ir import Operation

from ..dialects.arith import ConstantOp, DivfOp, MulfOp
from ..dialects.tt import FuncOp, SplatOp
from .base import ModulePass, PassStats, erase_op, functions


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


def _build(cls, lhs, rhs, like: Operation, location):
    props = {}
    if "fastmath" in like.properties:
        props["fastmath"] = like.properties["fastmath"]
    new = cls.build([lhs, rhs], [lhs.type], props)
    new.location = location
    return new


def rewrite_division(div: DivfOp, uses: Counter | None = None) -> bool:
    """Apply case 1 or case 2 to ``div`` if one matches and pays; True if rewritten.

    ``uses`` counts the ``arith.divf`` ops of the enclosing function per divisor value (see
    :func:`divisor_uses`); it is updated in place.  ``None``: counted here."""
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
    block = div.parent_block()
    block.insert_ops_before([mul, new_div], div)
    new_div.results[0]._name = div.results[0].name_hint  # noqa: SLF001 (keep the SSA name)
    div.results[0].replace_all_uses_with(new_div.results[0])
    erase_op(div)
    erase_op(inner)
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


@dataclass(frozen=True)
class DivChain(ModulePass):
    name: ClassVar[str] = "div-chain"
    summary: ClassVar[str] = (
        "a/b/c -> a/(b*c) and c/(a/b) -> (c*b)/a where a reciprocal is saved, same block only "
        "(reassociates: changes rounding; opt-in)"
    )

    def run(self, module: ModuleOp) -> PassStats:
        """One walk per function in program order suffices: an inner division is always
        visited (and already collapsed) before the division that uses it."""
        stats = PassStats(self.name)
        for func in functions(module):
            uses = divisor_uses(func)
            for div in [op for op in func.walk() if isinstance(op, DivfOp)]:
                if div.parent_block() is None:  # erased as the inner part of an earlier rewrite
                    continue
                if rewrite_division(div, uses):
                    stats.per_function[func.sym_name.data] += 1
        return stats
