"""Op families: the few shapes of custom syntax that most Triton, arith and math ops share.

Each family is an abstract ``TritonOp`` with its operands, results and syntax; a concrete op
is then two lines (``name`` and its traits).  The syntax is declarative (``assembly_format``,
inherited by the concrete ops, which :func:`~ttopt.dialects.declarative.irdl_triton_op`
defines) where xDSL 0.74's format language can say it:

* :class:`ArrowOp` ``$src attr-dict : type($src) -> type($result)`` (``tt.splat``,
  ``ttg.convert_layout`` ...);
* :class:`FunctionalTypeOp` ``$ins attr-dict : functional-type($ins, $outs)``.

The others are hand-written, each saying why.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.arith import FastMathFlagsAttr, IntegerOverflowAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    opt_prop_def,
    operand_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from ..xdsl_compat import operand_tuple
from .base import TritonOp
from .constraints import same
from .syntax import parse_operand_list, print_operands, print_types, resolve_all

_at = tuple.__getitem__  # (values[i] of xDSL's SSAValues, without its Python __getitem__)


def _parse_flags(parser: Parser, props: dict[str, Attribute]) -> None:
    """Optional ``fastmath<...>`` / ``overflow<...>`` clauses of arith ops."""
    while True:
        if parser.parse_optional_keyword("fastmath") is not None:
            props["fastmath"] = FastMathFlagsAttr.new(
                FastMathFlagsAttr.parse_parameter(parser)
            )
        elif parser.parse_optional_keyword("overflow") is not None:
            props["overflowFlags"] = IntegerOverflowAttr.new(
                IntegerOverflowAttr.parse_parameter(parser)
            )
        else:
            return



def _print_flags(op: TritonOp, printer: Printer) -> set[str]:
    printed: set[str] = set()
    fm = op.properties.get("fastmath")
    if isinstance(fm, FastMathFlagsAttr) and fm.data:
        printer.print_string(" fastmath")
        fm.print_parameter(printer)
        printed.add("fastmath")
    elif fm is not None:
        printed.add("fastmath")  # `none` is the default and is elided
    of = op.properties.get("overflowFlags")
    if isinstance(of, IntegerOverflowAttr) and of.data:
        printer.print_string(" overflow")
        of.print_parameter(printer)
        printed.add("overflowFlags")
    elif of is not None:
        printed.add("overflowFlags")
    return printed


def same_type_defs(kind) -> dict:
    """Operand/result definitions of a :class:`SameTypeOp` whose element type is constrained
    (``kind``: a :mod:`~ttopt.dialects.constraints` constraint), for ``type(...)``."""
    return {"ins": var_operand_def(kind), "result": result_def(kind)}


class SameTypeOp(TritonOp):
    """``op %a, %b, ... [fastmath<..>] [overflow<..>] attr-dict : T``.

    All operands and the result have the type ``T``.  ``ARITY`` fixes the operand count.
    Concrete ops constrain the element type (``same_type_defs``); ``verify_`` is MLIR's
    ``SameOperandsAndResultType``.

    Hand-written: the operand types are the result's (``SameOperandsAndResultType``), which
    xDSL 0.74's format infers only through a constraint variable (``VarConstraint``), whose
    verifier message is not MLIR's "requires the same type for all operands and results";
    and the ``fastmath<..>``/``overflow<..>`` clauses of arith ops are an oilist.
    """

    ARITY: ClassVar[int] = 2

    ins = var_operand_def()
    result = result_def()
    fastmath = opt_prop_def(FastMathFlagsAttr)
    overflowFlags = opt_prop_def(IntegerOverflowAttr)

    @classmethod
    def parse(cls, parser: Parser):
        start = parser.pos
        operands = parse_operand_list(parser)
        if len(operands) != cls.ARITY:
            parser.raise_error(
                f"'{cls.name}' expects {cls.ARITY} operands, got {len(operands)}",
                start,
                parser.pos,
            )
        props: dict[str, Attribute] = {}
        _parse_flags(parser, props)
        p2, attrs = cls.parse_attr_dict(parser)
        props.update(p2)
        parser.parse_punctuation(":")
        typ = parser.parse_type()
        values = resolve_all(parser, operands, [typ] * len(operands))
        return cls.build(values, [typ], props, attrs)

    def verify_(self) -> None:
        operands = operand_tuple(self)
        if len(operands) != self.ARITY:
            raise VerifyException(f"expected {self.ARITY} operands, but found {len(operands)}")
        t = _at(self.results, 0).type
        for v in operands:
            vt = v.type
            if vt is not t and not same(vt, t):
                raise VerifyException("requires the same type for all operands and results")

    def print(self, printer: Printer):
        printer.print_string(" ")
        print_operands(printer, self.operands)
        printed = _print_flags(self, printer)
        self.print_attr_dict(printer, printed)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


class UnaryOp(SameTypeOp):
    ARITY: ClassVar[int] = 1


class BinaryOp(SameTypeOp):
    ARITY: ClassVar[int] = 2


class TernaryOp(SameTypeOp):
    ARITY: ClassVar[int] = 3


class CastOp(TritonOp):
    """``op %x attr-dict : T to U`` (``KEYWORD = "to"``) or ``: T -> U`` (``"->"``), with
    ``_parse_middle``/``_print_middle`` hooks for clauses before the attr-dict.

    Hand-written for its users, arith's casts, which are defined with plain
    ``irdl_op_definition`` (whose format program verifies while parsing, unlike MLIR); the
    ``->`` ops of ttopt's own dialects are the declarative :class:`ArrowOp`.
    """

    KEYWORD: ClassVar[str] = "to"

    src = operand_def()
    result = result_def()

    @classmethod
    def parse(cls, parser: Parser):
        operand = parser.parse_unresolved_operand()
        props, attrs = cls._parse_middle(parser)
        p2, a2 = cls.parse_attr_dict(parser)
        props.update(p2)
        attrs.update(a2)
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        if cls.KEYWORD == "to":
            parser.parse_keyword("to")
        else:
            parser.parse_punctuation("->")
        res_type = parser.parse_type()
        value = parser.resolve_operand(operand, src_type)
        return cls.build([value], [res_type], props, attrs)

    @classmethod
    def _parse_middle(cls, parser: Parser):
        return {}, {}

    def _print_middle(self, printer: Printer) -> set[str]:
        return set()

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.src)
        printed = self._print_middle(printer)
        self.print_attr_dict(printer, printed)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" to " if self.KEYWORD == "to" else " -> ")
        printer.print_attribute(self.result.type)


class ArrowOp(TritonOp):
    """``op %x attr-dict : T -> U``: Triton's one-value conversions and shape ops.

    Properties go in the attr-dict (``tt.expand_dims %x {axis = 0 : i32} : ...``).  The
    reader's fast path builds the ops of this family that keep this format."""

    src = operand_def()
    result = result_def()
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"

    def __init__(
        self,
        src: SSAValue | Operation,
        result_type: Attribute,
        properties: dict[str, Attribute] | None = None,
    ):
        super().__init__(operands=[src], result_types=[result_type], properties=properties)


PARENS_BEFORE_3 = (
    (lambda s: s.arrow_parens, "$src attr-dict `:` functional-type($src, $result)"),
)
"""``SYNTAX_VARIANTS`` of the ``ArrowOp`` ops Triton 2.x printed ``op %x : (T) -> U`` (splat,
broadcast, expand_dims, trans, convert_layout; not bitcast, fp_to_fp ...)."""


class FunctionalTypeOp(TritonOp):
    """``op %a, %b attr-dict : (A, B) -> R`` (variadic operands and results)."""

    ins = var_operand_def()
    outs = var_result_def()
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$ins attr-dict `:` functional-type($ins, $outs)"


class TypedReturnOp(TritonOp):
    """``op attr-dict ($vals^ : types)?``, the terminators (``scf.yield``...); also reads
    ``op $vals attr-dict : types``.

    Hand-written for ``scf``, whose ops are defined with plain ``irdl_op_definition``; the
    ``tt`` terminators have their own declarative formats."""

    vals = var_operand_def()

    @classmethod
    def parse(cls, parser: Parser):
        props, attrs = cls.parse_attr_dict(parser)
        operands = parse_operand_list(parser)
        values = []
        if operands:
            p2, a2 = cls.parse_attr_dict(parser)  # `$vals attr-dict : types` (reduce.return)
            props.update(p2)
            attrs.update(a2)
            parser.parse_punctuation(":")
            types = [parser.parse_type()]
            while parser.parse_optional_punctuation(",") is not None:
                types.append(parser.parse_type())
            values = resolve_all(parser, operands, types)
        return cls.build(values, [], props, attrs)

    def print(self, printer: Printer):
        self.print_attr_dict(printer)
        if self.operands:
            printer.print_string(" ")
            print_operands(printer, self.operands)
            printer.print_string(" : ")
            print_types(printer, self.operand_types)
