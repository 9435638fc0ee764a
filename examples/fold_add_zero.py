"""Example ttopt pass, an xDSL RewritePattern + ModulePass: ``arith.addi %x, 0 -> %x`` (either
operand; scalars, and tensors of an all-zero constant).  Exact: integer addition wraps, x + 0 == x
for every x of every width.  Floats are left alone (-0.0 + 0.0 is +0.0, not -0.0).
Run: ``ttopt-opt --load-pass examples/fold_add_zero.py -p fold-add-zero kernel.ttir``"""

from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerAttr
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern

from ttopt.dialects.arith import AddiOp, ConstantOp
from ttopt.passes.base import ModulePass


def is_zero(value) -> bool:
    const = getattr(value, "owner", None)
    if not isinstance(const, ConstantOp):
        return False
    if isinstance(const.value, IntegerAttr):
        return const.value.value.data == 0
    return isinstance(const.value, DenseIntOrFPElementsAttr) and not any(const.value.data.data)


class AddZero(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AddiOp, rewriter: PatternRewriter):
        x, y = op.operands
        if (keep := x if is_zero(y) else y if is_zero(x) else None) is not None:
            rewriter.replace(op, [], [keep])


@dataclass(frozen=True)
class FoldAddZero(ModulePass):
    name: ClassVar[str] = "fold-add-zero"
    summary: ClassVar[str] = "(example) arith.addi %x, 0 -> %x"

    def apply(self, ctx, op) -> None:
        PatternRewriteWalker(AddZero()).rewrite_module(op)
