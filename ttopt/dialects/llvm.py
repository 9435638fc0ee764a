"""``llvm.intr.assume``: the one LLVM-dialect op in Triton 3.6's TTIR/TTGIR (``tl.assume``).

``tl.assume(n > 0)`` becomes ``llvm.intr.assume %0 : i1``.  xDSL 0.74's ``llvm`` dialect has
no ``llvm.intr.assume``; this is ttopt's own definition, registered in ttopt's context only (a
dialect named ``llvm`` of ttopt's in xDSL's multiverse would shadow xDSL's, see
:mod:`ttopt.universe`).

Its memory effects are MLIR's: none declared, so *unknown*, and ttopt's analysis treats it
as a writer.  That is on purpose: LLVM models ``llvm.assume`` as writing inaccessible
memory so that it is neither removed nor moved, and an assumption that holds at one point
of the kernel need not hold before it; no pass of ttopt moves or merges anything across it.
(MLIR's op also takes operand bundles, ``llvm.intr.assume %c ["align"(%p, %n : ...)] : i1``;
Triton never emits them, and they are not read here.)
"""

from __future__ import annotations

from xdsl.dialects.builtin import i1
from xdsl.ir import Dialect
from xdsl.irdl import ParsePropInAttrDict, operand_def

from .base import TritonOp
from .constraints import ExactType
from .declarative import irdl_triton_op
from .tt_attrs import opaque_attr

I1 = ExactType(i1, "1-bit signless integer")


@irdl_triton_op
class AssumeOp(TritonOp):
    """``llvm.intr.assume %cond : i1``; unknown effects (module docstring)."""

    name = "llvm.intr.assume"
    cond = operand_def(I1)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$cond attr-dict `:` type($cond)"


LOOP_ATTRS = [
    opaque_attr("llvm." + n)
    for n in ["loop_annotation", "loop_licm", "loop_unroll", "loop_unroll_and_jam",
              "loop_vectorize", "loop_interleave", "loop_distribute", "loop_pipeline",
              "loop_peeled", "loop_unswitch"]
]
"""MLIR's loop metadata (``#llvm.loop_annotation<licm = #llvm.loop_licm<disable = true>>`` on
an ``scf.for``, Triton 3.5+), kept as text."""

LLVM = Dialect("llvm", [AssumeOp], LOOP_ATTRS)

__all__ = ["LLVM", "AssumeOp"]
