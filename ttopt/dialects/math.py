"""``math`` as Triton uses it (``tl.exp`` and friends, ``math.fma``): xDSL's own ``math``.

Every op of xDSL 0.74's ``math`` dialect: the same syntax as Triton's (``math.exp %x :
tensor<128xf32, #blocked>``, ``fastmath<..>`` clauses), all ``Pure``.  Each is registered
behind the adapter of :mod:`ttopt.dialects.upstream` (a subclass with no IRDL definition of
its own, ``isinstance`` of xDSL's class) for MLIR's constraints and MLIR's parse-time
behaviour, nothing else.  This module exports xDSL's classes themselves.

One op of ttopt's own: ``math.erfc``, which xDSL 0.74 does not have; it is built on xDSL's
``FloatingPointLikeUnaryMathOperation`` (the syntax, constraints and traits of
``math.erf``), behind the same adapter.
"""

from __future__ import annotations

from xdsl.dialects import math as _x
from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition, traits_def
from xdsl.traits import Pure, SameOperandsAndResultType

from .constraints import FloatLike, SignlessIntegerLike
from .upstream import MLIR_CONSTRAINTS, adapt

# (xDSL's math constraints -> MLIR's, as arith's: upstream.MLIR_CONSTRAINTS)
MLIR_CONSTRAINTS.extend([(_x.floatingPointLike, FloatLike()),
                         (_x.signlessIntegerLike, SignlessIntegerLike())])


@irdl_op_definition
class ErfcOp(_x.FloatingPointLikeUnaryMathOperation):
    """``math.erfc`` (not in xDSL 0.74)."""

    name = "math.erfc"
    traits = traits_def(Pure(), SameOperandsAndResultType())


ADAPTERS = {cls: adapt(cls) for cls in [*_x.Math.operations, ErfcOp]}

ExpOp, Exp2Op, LogOp, Log2Op = _x.ExpOp, _x.Exp2Op, _x.LogOp, _x.Log2Op
SqrtOp, RsqrtOp, FmaOp = _x.SqrtOp, _x.RsqrtOp, _x.FmaOp

Math = Dialect("math", list(ADAPTERS.values()), [])
