"""``arith`` as Triton uses it: xDSL's own ``arith`` op classes, except where Triton differs.

ttopt's context loads ``Arith`` below, a ``Dialect("arith", ...)`` of:

**xDSL's classes** (``xdsl.dialects.arith``), which read and print Triton's text byte for
byte (``fastmath<..>``/``overflow<..>`` clauses, ``arith.constant dense<..>``, ``arith.extf
%x : f16 to f32``, tensors with an opaque ``#blocked`` encoding): ``constant``, ``addi subi
muli divsi divui ceildivsi ceildivui floordivsi remsi remui andi ori xori shli shrsi shrui
maxsi minsi maxui minui addui_extended mului_extended mulsi_extended``, ``addf subf mulf
divf negf maximumf minimumf maxnumf minnumf``, ``extf truncf bitcast``.  Each is registered
behind the adapter of :mod:`ttopt.dialects.upstream` (a subclass with no IRDL definition of
its own, ``isinstance`` of xDSL's class, in ttopt's context only), which gives it MLIR's
constraints (xDSL's ``signlessIntegerLike`` also takes ``si32``), MLIR's parse-time
behaviour (errors from the verifier, at the op) and a ``build`` the reader's fast path can
call.  Some adapters add more, each saying why:

* MLIR's ``Commutative`` trait, which xDSL 0.74 leaves out, on ``addf mulf maximumf minimumf
  maxnumf minnumf maxsi minsi maxui minui`` (``redundant-reduce`` matches combiners whose
  commutative ops have their operands swapped);
* MLIR's ``NoMemoryEffect`` on ``remui`` (xDSL 0.74 gives it no memory-effect trait: ttopt's
  passes would take it for a writer);
* MLIR's cast rule on ``extf`` / ``truncf`` (the result is wider / narrower, same shape and
  encoding) and ``bitcast`` (same bit width, shape and encoding; in place of xDSL's rule):
  xDSL 0.74 accepts what Triton rejects (``arith.extf %x : f32 to f16``);
* on ``constant``, the value/result type rule in MLIR's words (xDSL's is a constraint
  variable).

**ttopt's own definitions**, where xDSL 0.74's cannot read Triton's IR:

* ``cmpi``, ``cmpf``: xDSL's result is a scalar ``i1``; MLIR's (and Triton's) is ``i1`` with
  the operands' shape and encoding (``arith.cmpi slt, %a, %b : tensor<1024xi32, #blocked>``
  gives ``tensor<1024xi1, #blocked>``);
* ``select``: xDSL's wants a scalar ``i1`` condition and only the ``: T`` form; Triton writes
  a same-shape ``i1`` tensor condition, ``arith.select %c, %a, %b : tensor<..xi1>, tensor<..>``;
* ``extsi``, ``extui``, ``trunci``, ``sitofp``, ``uitofp``, ``fptosi``, ``fptoui``,
  ``index_cast``: xDSL's take scalars only (``operand_def(IntegerType)``); Triton casts
  tensors (``arith.extsi %x : tensor<128xi32> to tensor<128xi64>``);
* ``remf``, ``index_castui``: not in xDSL 0.74.  ``remf`` is built on xDSL's own
  ``FloatingPointLikeBinaryOperation`` (the syntax and constraints of the other float ops)
  and registered behind the same adapter.

The module exports each op under the name ttopt has always used (``AddfOp``, ``DivsiOp``,
``ConstantOp`` ...): for an op of xDSL's, that is **xDSL's class itself**, so ``isinstance``
tests (``div-chain``'s ``DivfOp``) hold for ttopt's adapters and for xDSL's own ops alike
(under ``xdsl-opt``, where ``arith`` is xDSL's).  ``ADAPTERS`` maps each class to the adapter
ttopt's context registers.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects import arith as _x
from xdsl.dialects.arith import FastMathFlagsAttr, IntegerOverflowAttr
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation
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
from xdsl.traits import Commutative, NoMemoryEffect, Pure
from xdsl.utils.exceptions import VerifyException

from ..xdsl_compat import operand_tuple
from .base import TritonOp, enum_name, int_attr, parse_keyword_enum, resolve_all
from .constraints import (
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
from .families import CastOp
from .upstream import adapt

_at = tuple.__getitem__  # (values[i] of xDSL's SSAValues, without its Python __getitem__)

FLOAT_LIKE = FloatLike()
INT_LIKE = SignlessIntegerLike()

CMPI_PREDICATES = {n: i for i, n in enumerate(_x.CMPI_COMPARISON_OPERATIONS)}
CMPF_PREDICATES = {n: i for i, n in enumerate(_x.CMPF_COMPARISON_OPERATIONS)}


def i1_like(typ: Attribute) -> Attribute:
    """``i1`` with the shape and encoding of ``typ``."""
    return with_element(typ, i1)


# ------------------------------------------------------------------ ttopt's own: compares
class CompareOp(TritonOp):
    """``arith.cmpi`` / ``arith.cmpf`` with MLIR's types: the result is ``i1`` with the
    operands' shape and encoding (xDSL 0.74's is a scalar ``i1``)."""

    TABLE: ClassVar[dict[str, int]] = {}
    lhs = operand_def()
    rhs = operand_def()
    result = result_def(BoolLike())
    predicate = prop_def(IntegerAttr)
    fastmath = opt_prop_def(FastMathFlagsAttr)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        a, b = operand_tuple(self)
        if a.type is not b.type and not same(a.type, b.type):
            raise VerifyException("failed to verify that all of {lhs, rhs} have same type")
        if not i1_same_shape(a.type, _at(self.results, 0).type):
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
class CmpiOp(CompareOp):
    name = "arith.cmpi"
    TABLE: ClassVar[dict[str, int]] = CMPI_PREDICATES
    lhs = operand_def(INT_LIKE)
    rhs = operand_def(INT_LIKE)


@irdl_op_definition
class CmpfOp(CompareOp):
    name = "arith.cmpf"
    TABLE: ClassVar[dict[str, int]] = CMPF_PREDICATES
    lhs = operand_def(FLOAT_LIKE)
    rhs = operand_def(FLOAT_LIKE)


# ------------------------------------------------------------------ ttopt's own: select
@irdl_op_definition
class SelectOp(TritonOp):
    """``arith.select %c, %a, %b : T`` or ``: C, T`` (a same-shape ``i1`` tensor condition,
    which xDSL 0.74's ``select`` does not take)."""

    name = "arith.select"
    condition = operand_def(BoolLike())
    true_value = operand_def()
    false_value = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    def verify_(self) -> None:
        c, a, b = operand_tuple(self)
        t = _at(self.results, 0).type
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


# ------------------------------------------------------------------ ttopt's own: casts
def _cast_rule(rule):
    """MLIR's ``areCastCompatible`` for a one-value cast: same shape and encoding, element
    types related by ``rule``."""

    def verify(op: Operation) -> None:
        a, r = _at(operand_tuple(op), 0).type, _at(op.results, 0).type
        a_shape = shape_of(a) if type(a) is TensorType else None
        r_shape = shape_of(r) if type(r) is TensorType else None
        if a_shape != r_shape:
            raise VerifyException(
                "failed to verify that input and output have the same tensor dimensions"
            )
        if (a_shape is not None and not same(a.encoding, r.encoding)) or not rule(
            element_type(a), element_type(r)
        ):
            raise VerifyException(
                f"operand type '{a}' and result type '{r}' are cast incompatible"
            )

    return verify


class _ArithCastOp(CastOp):
    """``arith.<cast> %x : T to U`` on scalars and tensors (xDSL 0.74's take scalars only)."""

    def verify_(self) -> None:
        self.CAST_RULE(self)

    @staticmethod
    def CAST_RULE(op) -> None:  # noqa: N802 - set per op
        pass


def _widens(kind):
    return lambda a, r: kind(a) and kind(r) and bit_width(r) > bit_width(a)


def _narrows(kind):
    return lambda a, r: kind(a) and kind(r) and bit_width(r) < bit_width(a)


def _index_int(a: Attribute, r: Attribute) -> bool:
    return (isinstance(a, IndexType) and is_signless_int(r)) or (
        is_signless_int(a) and isinstance(r, IndexType)
    )


_FIXED_INT = SignlessFixedWidthIntegerLike()
_CAST_RULES = {
    # name: (operand kind, result kind, element rule)
    "arith.extsi": (_FIXED_INT, _FIXED_INT, _widens(is_signless_int)),
    "arith.extui": (_FIXED_INT, _FIXED_INT, _widens(is_signless_int)),
    "arith.trunci": (_FIXED_INT, _FIXED_INT, _narrows(is_signless_int)),
    "arith.sitofp": (_FIXED_INT, FLOAT_LIKE, lambda a, r: is_signless_int(a) and is_float(r)),
    "arith.uitofp": (_FIXED_INT, FLOAT_LIKE, lambda a, r: is_signless_int(a) and is_float(r)),
    "arith.fptosi": (FLOAT_LIKE, _FIXED_INT, lambda a, r: is_float(a) and is_signless_int(r)),
    "arith.fptoui": (FLOAT_LIKE, _FIXED_INT, lambda a, r: is_float(a) and is_signless_int(r)),
    "arith.index_cast": (INT_LIKE, INT_LIKE, _index_int),
    "arith.index_castui": (INT_LIKE, INT_LIKE, _index_int),
}


def _cast(op_name: str, class_name: str):
    src_kind, res_kind, rule = _CAST_RULES[op_name]
    cls = type(
        class_name,
        (_ArithCastOp,),
        {
            "__module__": __name__,
            "__doc__": f"``{op_name}``: on tensors too (see module doc).",
            "name": op_name,
            "traits": traits_def(Pure()),
            "src": operand_def(src_kind),
            "result": result_def(res_kind),
            "CAST_RULE": staticmethod(_cast_rule(rule)),
        },
    )
    return irdl_op_definition(cls)


ExtSIOp = _cast("arith.extsi", "ExtSIOp")
ExtUIOp = _cast("arith.extui", "ExtUIOp")
TruncIOp = _cast("arith.trunci", "TruncIOp")
SIToFPOp = _cast("arith.sitofp", "SIToFPOp")
UIToFPOp = _cast("arith.uitofp", "UIToFPOp")
FPToSIOp = _cast("arith.fptosi", "FPToSIOp")
FPToUIOp = _cast("arith.fptoui", "FPToUIOp")
IndexCastOp = _cast("arith.index_cast", "IndexCastOp")
IndexCastUIOp = _cast("arith.index_castui", "IndexCastUIOp")
CASTS = [
    ExtSIOp, ExtUIOp, TruncIOp, SIToFPOp, UIToFPOp, FPToSIOp, FPToUIOp, IndexCastOp, IndexCastUIOp,
]


# ------------------------------------------------------------------ ttopt's own: remf
@irdl_op_definition
class RemFOp(_x.FloatingPointLikeBinaryOperation):
    """``arith.remf`` (not in xDSL 0.74), on xDSL's float binary base: its syntax and
    constraints, ``fastmath`` included; registered behind an adapter, as xDSL's ops."""

    name = "arith.remf"
    traits = traits_def(Pure())


# ------------------------------------------------------------------ xDSL's own
_PLAIN = [
    _x.AddiOp, _x.SubiOp, _x.MuliOp, _x.DivSIOp, _x.DivUIOp, _x.CeilDivSIOp, _x.CeilDivUIOp,
    _x.FloorDivSIOp, _x.RemSIOp, _x.AndIOp, _x.OrIOp, _x.XOrIOp, _x.ShLIOp, _x.ShRSIOp,
    _x.ShRUIOp, _x.SubfOp, _x.DivfOp, _x.NegfOp, _x.AddUIExtendedOp, _x.MulUIExtendedOp,
    _x.MulSIExtendedOp, RemFOp,
]
_COMMUTATIVE = [
    _x.AddfOp, _x.MulfOp, _x.MaximumfOp, _x.MinimumfOp, _x.MaxnumfOp, _x.MinnumfOp,
    _x.MaxSIOp, _x.MinSIOp, _x.MaxUIOp, _x.MinUIOp,
]


def _constant_rule(op: Operation) -> None:
    value = op.properties.get("value")
    typ = getattr(value, "type", None)
    rt = _at(op.results, 0).type
    if typ is not None and typ is not rt and not same(typ, rt):
        raise VerifyException("failed to verify that all of {value, result} have same type")


ADAPTERS: dict[type[Operation], type[Operation]] = {
    _x.ConstantOp: adapt(_x.ConstantOp, rule=_constant_rule),
    **{cls: adapt(cls) for cls in _PLAIN},
    **{
        cls: adapt(
            cls,
            extra_traits=[Commutative()],
            why="MLIR's Commutative trait (xDSL 0.74 leaves it out; redundant-reduce uses it)",
        )
        for cls in _COMMUTATIVE
    },
    _x.RemUIOp: adapt(
        _x.RemUIOp,
        extra_traits=[NoMemoryEffect()],
        why="MLIR's NoMemoryEffect (xDSL 0.74 gives it no memory-effect trait)",
    ),
    _x.ExtFOp: adapt(
        _x.ExtFOp, rule=_cast_rule(_widens(is_float)), why="MLIR's rule: the result is wider"
    ),
    _x.TruncFOp: adapt(
        _x.TruncFOp,
        rule=_cast_rule(_narrows(is_float)),
        why="MLIR's rule: the result is narrower",
    ),
    _x.BitcastOp: adapt(
        _x.BitcastOp,
        rule=_cast_rule(lambda a, r: bit_width(a) is not None and bit_width(a) == bit_width(r)),
        replace_verify=True,
        why="MLIR's rule (same bit width, same shape and encoding; no index) in place of xDSL's",
    ),
}

# ttopt's names for xDSL's classes: the classes themselves, not their adapters
ConstantOp = _x.ConstantOp
AddfOp, SubfOp, MulfOp, DivfOp = _x.AddfOp, _x.SubfOp, _x.MulfOp, _x.DivfOp
RemfOp = RemFOp
NegfOp = _x.NegfOp
MaximumfOp, MinimumfOp = _x.MaximumfOp, _x.MinimumfOp
MaxnumfOp, MinnumfOp = _x.MaxnumfOp, _x.MinnumfOp
AddiOp, SubiOp, MuliOp = _x.AddiOp, _x.SubiOp, _x.MuliOp
DivsiOp, DivuiOp = _x.DivSIOp, _x.DivUIOp
CeildivsiOp, CeildivuiOp, FloordivsiOp = _x.CeilDivSIOp, _x.CeilDivUIOp, _x.FloorDivSIOp
RemsiOp, RemuiOp = _x.RemSIOp, _x.RemUIOp
AndiOp, OriOp, XoriOp = _x.AndIOp, _x.OrIOp, _x.XOrIOp
ShliOp, ShrsiOp, ShruiOp = _x.ShLIOp, _x.ShRSIOp, _x.ShRUIOp
MaxsiOp, MinsiOp, MaxuiOp, MinuiOp = _x.MaxSIOp, _x.MinSIOp, _x.MaxUIOp, _x.MinUIOp
ExtFOp, TruncFOp, BitcastOp = _x.ExtFOp, _x.TruncFOp, _x.BitcastOp

Arith = Dialect(
    "arith",
    [*ADAPTERS.values(), CmpiOp, CmpfOp, SelectOp, *CASTS],
    [FastMathFlagsAttr, IntegerOverflowAttr],
)
