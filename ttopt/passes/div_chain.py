"""``div-chain``: turn chains of floating-point divisions into one division.

On NVIDIA GPUs ``arith.divf`` on f32 lowers to ``div.full.f32`` (a reciprocal plus fix-ups);
a multiply is far cheaper.  For ``arith.divf`` on floating-point scalars or tensors (f16, bf16,
f32, f64), when the inner division has exactly one use:

* ``(a / b) / c  ->  a / (b * c)``   (case 1)
* ``c / (a / b)  ->  (c * b) / a``   (case 2)

Applied repeatedly in program order, a chain of any length collapses to a single division:
``a/b/c/d -> a/((b*c)*d)``, ``a/b/b -> a/(b*b)``.  The new division takes the location (and SSA
name) of the outer division it replaces; the new multiply takes the location of the inner
division.  Integer divisions and ``tt.precise_divf`` (``tl.div_rn``, which asks for IEEE
rounding) are never touched, nor are divisions whose fastmath flags differ.

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

from xdsl.dialects.builtin import AnyFloat, ModuleOp, TensorType
from xdsl.ir import Operation

from ..dialects.arith import DivfOp, MulfOp
from .base import ModulePass, PassStats, enclosing_function_name, erase_op


def _is_float(op: Operation) -> bool:
    typ = op.results[0].type
    elem = typ.element_type if isinstance(typ, TensorType) else typ
    return isinstance(elem, AnyFloat)


def _single_use_div(value, outer: DivfOp) -> DivfOp | None:
    inner = value.owner if hasattr(value, "owner") else None
    if (
        isinstance(inner, DivfOp)
        and inner is not outer
        and value.has_one_use()
        and inner.parent_block() is not None
        and inner.properties.get("fastmath") == outer.properties.get("fastmath")
    ):
        return inner
    return None


def _build(cls, lhs, rhs, like: Operation, location):
    props = {}
    if "fastmath" in like.properties:
        props["fastmath"] = like.properties["fastmath"]
    new = cls.build([lhs, rhs], [lhs.type], props)
    new.location = location
    return new


def rewrite_division(div: DivfOp) -> bool:
    """Apply case 1 or case 2 to ``div`` if one of them matches; True if rewritten."""
    if not _is_float(div):
        return False
    x, y = div.operands
    inner = _single_use_div(x, div)
    if inner is not None:  # (a/b)/c -> a/(b*c)
        a, b = inner.operands
        mul = _build(MulfOp, b, y, div, inner.location)
        new_div = _build(DivfOp, a, mul.results[0], div, div.location)
    else:
        inner = _single_use_div(y, div)
        if inner is None:
            return False
        a, b = inner.operands  # c/(a/b) -> (c*b)/a
        mul = _build(MulfOp, x, b, div, inner.location)
        new_div = _build(DivfOp, mul.results[0], a, div, div.location)
    block = div.parent_block()
    block.insert_ops_before([mul, new_div], div)
    new_div.results[0]._name = div.results[0].name_hint  # noqa: SLF001 (keep the SSA name)
    div.results[0].replace_all_uses_with(new_div.results[0])
    erase_op(div)
    erase_op(inner)
    return True


class DivChain(ModulePass):
    name = "div-chain"
    summary = "a/b/c -> a/(b*c) and c/(a/b) -> (c*b)/a (reassociates: changes rounding; opt-in)"

    def run(self, module: ModuleOp) -> PassStats:
        """One walk in program order suffices: an inner division is always visited (and
        already collapsed) before the division that uses it."""
        stats = PassStats(self.name)
        for div in [op for op in module.walk() if isinstance(op, DivfOp)]:
            if div.parent_block() is None:  # erased as the inner part of an earlier rewrite
                continue
            name = enclosing_function_name(div)
            if rewrite_division(div):
                stats.per_function[name] += 1
        return stats
