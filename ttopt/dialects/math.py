"""``math`` ops Triton emits (``tl.exp`` and friends, ``math.fma``): all pure, same-typed."""

from __future__ import annotations

from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition, traits_def
from xdsl.traits import Pure

from .constraints import FloatLike, SignlessIntegerLike
from .families import BinaryOp, TernaryOp, UnaryOp, same_type_defs

# the integer ops of MLIR's math dialect; every other op here works on floats
_INTEGER_OPS = {"math.absi", "math.ctlz", "math.cttz", "math.ctpop", "math.ipowi"}


def _op(op_name: str, base):
    kind = SignlessIntegerLike() if op_name in _INTEGER_OPS else FloatLike()
    cls = type(
        "".join(p.capitalize() for p in op_name.split(".")) + "Op",
        (base,),
        {"name": op_name, "traits": traits_def(Pure()), **same_type_defs(kind)},
    )
    return irdl_op_definition(cls)


UNARY = [
    _op("math." + n, UnaryOp)
    for n in [
        "absf", "absi", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cbrt",
        "ceil", "cos", "cosh", "ctlz", "cttz", "ctpop", "erf", "erfc", "exp", "exp2",
        "expm1", "floor", "log", "log10", "log1p", "log2", "round", "roundeven",
        "rsqrt", "sin", "sinh", "sqrt", "tan", "tanh", "trunc",
    ]
]
BINARY = [_op("math." + n, BinaryOp) for n in ["atan2", "copysign", "powf", "ipowi"]]
FmaOp = _op("math.fma", TernaryOp)

Math = Dialect("math", [*UNARY, *BINARY, FmaOp], [])
