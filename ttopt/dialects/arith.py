"""``arith`` as Triton uses it.

xDSL's own ``arith`` cannot read Triton's IR: its compares produce scalar ``i1`` only and its
``select`` wants a scalar condition, while Triton writes
``arith.cmpi slt, %a, %b : tensor<1024xi32, #blocked>`` (result ``tensor<1024xi1, #blocked>``)
and ``arith.select %c, %a, %b : tensor<..xi1>, tensor<..xf32>``.  These definitions follow
MLIR's: compares and selects work elementwise on tensors of any encoding; every op is pure.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.arith import FastMathFlagsAttr, IntegerOverflowAttr
from xdsl.dialects.builtin import (
    IntegerAttr,
    IntegerType,
    TensorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Dialect
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Commutative, Pure
from xdsl.utils.exceptions import VerifyException

from .base import TritonOp, enum_name, int_attr, parse_keyword_enum, resolve_all
from .constraints import (
    first as _first,
    BoolLike,
    FloatLike,
    SignlessFixedWidthIntegerLike,
    SignlessIntegerLike,
    bit_width,
    element_type,
    i1_same_shape,
    is_float,
    is_signless_int,
    same,
    shape_of,
    with_element,
)
from .families import BinaryOp, CastOp, UnaryOp, same_type_defs

FLOAT_LIKE = FloatLike()
INT_LIKE = SignlessIntegerLike()

CMPI_PREDICATES = {
    n: i
    for i, n in enumerate(
        ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
    )
}
CMPF_PREDICATES = {
    n: i
    for i, n in enumerate(
        [
            "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
            "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true",
        ]
    )
}


def i1_like(typ: Attribute) -> Attribute:
    """``i1`` with the shape and encoding of ``typ``."""
    return with_element(typ, i1)


@irdl_op_definition
class ConstantOp(TritonOp):
    name = "arith.constant"
    result = result_def()
    value = prop_def()
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        props, attrs = cls.parse_attr_dict(parser)
        value = parser.parse_attribute()
        typ = getattr(value, "type", None)
        if typ is None:
            parser.raise_error("arith.constant needs a typed value")
        props["value"] = value
        return cls.build([], [typ], props, attrs)

    def verify_(self) -> None:
        typ = getattr(self.value, "type", None)
        if typ is not None and not same(typ, _first(self.results).type):
            raise VerifyException("failed to verify that all of {value, result} have same type")

    def print(self, printer: Printer):
        self.print_attr_dict(printer, {"value"})
        printer.print_string(" ")
        printer.print_attribute(self.value)


class _CompareOp(TritonOp):
    TABLE: ClassVar[dict[str, int]] = {}
    lhs = operand_def()
    rhs = operand_def()
    result = result_def(BoolLike())
    predicate = prop_def(IntegerAttr)
    fastmath = opt_prop_def(FastMathFlagsAttr)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        a, b = self._operands
        if a.type is not b.type and a.type != b.type:
            raise VerifyException("failed to verify that all of {lhs, rhs} have same type")
        if not i1_same_shape(a.type, _first(self.results).type):
            raise VerifyException(
                "failed to verify that result type has i1 element type and same shape as operands"
            )

    @classmethod
    def parse(cls, parser: Parser):
        pred = parse_keyword_enum(parser, cls.TABLE, "comparison predicate")
        parser.parse_punctuation(",")
        a = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        b = parser.parse_unresolved_operand()
        props: dict[str, Attribute] = {}
        if parser.parse_optional_keyword("fastmath") is not None:
            props["fastmath"] = FastMathFlagsAttr.new(
                FastMathFlagsAttr.parse_parameter(parser)
            )
        p2, attrs = cls.parse_attr_dict(parser)
        props.update(p2)
        props["predicate"] = int_attr(pred, i64)
        parser.parse_punctuation(":")
        typ = parser.parse_type()
        lhs, rhs = resolve_all(parser, [a, b], [typ, typ])
        return cls.build([lhs, rhs], [i1_like(typ)], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" " + enum_name(self.TABLE, self.predicate.value.data) + ", ")
        printer.print_ssa_value(self.lhs)
        printer.print_string(", ")
        printer.print_ssa_value(self.rhs)
        fm = self.fastmath
        if fm is not None and fm.data:
            printer.print_string(" fastmath")
            fm.print_parameter(printer)
        self.print_attr_dict(printer, {"predicate", "fastmath"})
        printer.print_string(" : ")
        printer.print_attribute(self.lhs.type)


@irdl_op_definition
class CmpiOp(_CompareOp):
    name = "arith.cmpi"
    TABLE: ClassVar[dict[str, int]] = CMPI_PREDICATES
    lhs = operand_def(INT_LIKE)
    rhs = operand_def(INT_LIKE)


@irdl_op_definition
class CmpfOp(_CompareOp):
    name = "arith.cmpf"
    TABLE: ClassVar[dict[str, int]] = CMPF_PREDICATES
    lhs = operand_def(FLOAT_LIKE)
    rhs = operand_def(FLOAT_LIKE)


@irdl_op_definition
class SelectOp(TritonOp):
    """``arith.select %c, %a, %b : T`` or ``: C, T`` (tensor condition)."""

    name = "arith.select"
    condition = operand_def(BoolLike())
    true_value = operand_def()
    false_value = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    def verify_(self) -> None:
        c, a, b = self._operands
        t = _first(self.results).type
        if not (same(a.type, t) and same(b.type, t)):
            raise VerifyException(
                "failed to verify that all of {true_value, false_value, result} have same type"
            )
        ct = c.type
        if isinstance(ct, IntegerType) or i1_same_shape(t, ct):
            return  # (BoolLike: a scalar condition is i1)
        raise VerifyException(
            f"expected condition type to have the same shape as the result type, "
            f"got '{ct}' for result '{t}'"
        )

    @classmethod
    def parse(cls, parser: Parser):
        c = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        a = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        b = parser.parse_unresolved_operand()
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        t1 = parser.parse_type()
        if parser.parse_optional_punctuation(",") is not None:
            cond_type, typ = t1, parser.parse_type()
        else:
            cond_type, typ = IntegerType(1), t1
        values = resolve_all(parser, [c, a, b], [cond_type, typ, typ])
        return cls.build(values, [typ], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_ssa_value)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        if self.condition.type != IntegerType(1):
            printer.print_attribute(self.condition.type)
            printer.print_string(", ")
        printer.print_attribute(self.result.type)


def _binary(op_name: str, *extra_traits):
    kind = FLOAT_LIKE if op_name.endswith("f") else INT_LIKE  # addf, maxnumf / addi, maxsi
    cls = type(
        "".join(p.capitalize() for p in op_name.split(".")) + "Op",
        (BinaryOp,),
        {"name": op_name, "traits": traits_def(Pure(), *extra_traits), **same_type_defs(kind)},
    )
    return irdl_op_definition(cls)


def _unary(op_name: str, base=UnaryOp, **extra):
    cls = type(
        "".join(p.capitalize() for p in op_name.split(".")) + "Op",
        (base,),
        {"name": op_name, "traits": traits_def(Pure()), **extra},
    )
    return irdl_op_definition(cls)


class _ArithCastOp(CastOp):
    """MLIR's arith casts: one value, same shape (and encoding), element types related by
    ``RULE`` (``areCastCompatible``)."""

    def verify_(self) -> None:
        a, r = self._operands[0].type, _first(self.results).type
        a_shape = shape_of(a) if type(a) is TensorType else None
        r_shape = shape_of(r) if type(r) is TensorType else None
        if a_shape != r_shape:
            raise VerifyException(
                "failed to verify that input and output have the same tensor dimensions"
            )
        if (a_shape is not None and not same(a.encoding, r.encoding)) or not self.RULE(
            element_type(a), element_type(r)
        ):
            raise VerifyException(
                f"operand type '{a}' and result type '{r}' are cast incompatible"
            )

    @staticmethod
    def RULE(a: Attribute, r: Attribute) -> bool:  # noqa: N802 - overridden per op
        return True


def _widens(kind):
    return lambda a, r: kind(a) and kind(r) and bit_width(r) > bit_width(a)


def _narrows(kind):
    return lambda a, r: kind(a) and kind(r) and bit_width(r) < bit_width(a)


def _is_index(t: Attribute) -> bool:
    from xdsl.dialects.builtin import IndexType

    return isinstance(t, IndexType)


_FIXED_INT = SignlessFixedWidthIntegerLike()
_CAST_RULES = {
    # name: (operand kind, result kind, element rule)
    "arith.extf": (FLOAT_LIKE, FLOAT_LIKE, _widens(is_float)),
    "arith.truncf": (FLOAT_LIKE, FLOAT_LIKE, _narrows(is_float)),
    "arith.extsi": (_FIXED_INT, _FIXED_INT, _widens(is_signless_int)),
    "arith.extui": (_FIXED_INT, _FIXED_INT, _widens(is_signless_int)),
    "arith.trunci": (_FIXED_INT, _FIXED_INT, _narrows(is_signless_int)),
    "arith.sitofp": (_FIXED_INT, FLOAT_LIKE, lambda a, r: is_signless_int(a) and is_float(r)),
    "arith.uitofp": (_FIXED_INT, FLOAT_LIKE, lambda a, r: is_signless_int(a) and is_float(r)),
    "arith.fptosi": (FLOAT_LIKE, _FIXED_INT, lambda a, r: is_float(a) and is_signless_int(r)),
    "arith.fptoui": (FLOAT_LIKE, _FIXED_INT, lambda a, r: is_float(a) and is_signless_int(r)),
    "arith.bitcast": (
        None, None,
        lambda a, r: bit_width(a) is not None and bit_width(a) == bit_width(r),
    ),
    "arith.index_cast": (
        INT_LIKE, INT_LIKE,
        lambda a, r: (_is_index(a) and is_signless_int(r)) or (is_signless_int(a) and _is_index(r)),
    ),
    "arith.index_castui": (
        INT_LIKE, INT_LIKE,
        lambda a, r: (_is_index(a) and is_signless_int(r)) or (is_signless_int(a) and _is_index(r)),
    ),
}


def _cast(op_name: str):
    src_kind, res_kind, rule = _CAST_RULES[op_name]
    defs = {"RULE": staticmethod(rule)}
    if src_kind is not None:
        defs["src"] = operand_def(src_kind)
        defs["result"] = result_def(res_kind)
    return _unary(op_name, _ArithCastOp, **defs)


# Binary ops, commutative ones marked: redundant-reduce compares combiner regions modulo
# operand order for exactly these.
AddfOp = _binary("arith.addf", Commutative())
SubfOp = _binary("arith.subf")
MulfOp = _binary("arith.mulf", Commutative())
DivfOp = _binary("arith.divf")
RemfOp = _binary("arith.remf")
MaximumfOp = _binary("arith.maximumf", Commutative())
MinimumfOp = _binary("arith.minimumf", Commutative())
MaxnumfOp = _binary("arith.maxnumf", Commutative())
MinnumfOp = _binary("arith.minnumf", Commutative())
AddiOp = _binary("arith.addi", Commutative())
SubiOp = _binary("arith.subi")
MuliOp = _binary("arith.muli", Commutative())
DivsiOp = _binary("arith.divsi")
DivuiOp = _binary("arith.divui")
CeildivsiOp = _binary("arith.ceildivsi")
CeildivuiOp = _binary("arith.ceildivui")
FloordivsiOp = _binary("arith.floordivsi")
RemsiOp = _binary("arith.remsi")
RemuiOp = _binary("arith.remui")
AndiOp = _binary("arith.andi", Commutative())
OriOp = _binary("arith.ori", Commutative())
XoriOp = _binary("arith.xori", Commutative())
ShliOp = _binary("arith.shli")
ShrsiOp = _binary("arith.shrsi")
ShruiOp = _binary("arith.shrui")
MaxsiOp = _binary("arith.maxsi", Commutative())
MinsiOp = _binary("arith.minsi", Commutative())
MaxuiOp = _binary("arith.maxui", Commutative())
MinuiOp = _binary("arith.minui", Commutative())
NegfOp = _unary("arith.negf", **same_type_defs(FLOAT_LIKE))

CASTS = [_cast(n) for n in _CAST_RULES]

BINARY_OPS = [
    AddfOp, SubfOp, MulfOp, DivfOp, RemfOp, MaximumfOp, MinimumfOp, MaxnumfOp,
    MinnumfOp, AddiOp, SubiOp, MuliOp, DivsiOp, DivuiOp, CeildivsiOp, CeildivuiOp,
    FloordivsiOp, RemsiOp, RemuiOp, AndiOp, OriOp, XoriOp, ShliOp, ShrsiOp, ShruiOp,
    MaxsiOp, MinsiOp, MaxuiOp, MinuiOp,
]

Arith = Dialect(
    "arith",
    [ConstantOp, CmpiOp, CmpfOp, SelectOp, NegfOp, *BINARY_OPS, *CASTS],
    [FastMathFlagsAttr, IntegerOverflowAttr],
)
