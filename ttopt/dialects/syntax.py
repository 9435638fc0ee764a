"""Syntax pieces shared by the ops' custom forms.

* **custom directives** for declarative formats (``assembly_format``): Triton's I32 enum
  attributes printed by keyword (``tt.get_program_id x``, ``tt.atomic_rmw fadd, acq_rel,
  gpu, ...``) while stored as MLIR stores them, ``IntegerAttr`` of ``i32``
  (:func:`i32_enum_directive`);
* **helpers for the hand-written** ``parse``/``print`` methods, which remain where xDSL
  0.74's declarative format cannot say what Triton prints (oilist clauses, types inferred
  from other types, unqualified types, regions): operand and type lists, keyword enums,
  the ``cacheModifier = ..`` / ``evictionPolicy = ..`` clauses, ``[%a, %b]`` operand groups.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, IntegerType, i32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    irdl_custom_directive,
)
from xdsl.irdl.operations import IRDLOperation
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer

from ..xdsl_compat import peek_token
from .tt_attrs import CACHE_MODIFIER, EVICTION_POLICY

# ------------------------------------------------------------------- values


@lru_cache(maxsize=4096)
def int_attr(value: int, typ: IntegerType = i32) -> IntegerAttr:
    """A (cached: attributes are immutable) ``IntegerAttr``."""
    return IntegerAttr(value, typ)


def i32_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i32, list(values))


def get_int(op: Operation, name: str, default: int | None = None) -> int | None:
    """The value of an integer property or attribute of ``op``; ``default`` if absent."""
    attr = op.properties.get(name) or op.attributes.get(name)
    if attr is None:
        return default
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    return default


def enum_name(table: Mapping[str, int], value: int) -> str:
    for k, v in table.items():
        if v == value:
            return k
    raise ValueError(f"no enum case for {value}")


# ------------------------------------------------------------------- custom directives


class I32EnumKeyword(CustomDirective):
    """``custom<Name>($attr)``: an I32 enum attribute printed as its keyword.

    Subclasses (one per enum, made by :func:`i32_enum_directive`) set ``TABLE`` (keyword ->
    value) and ``WHAT`` (its name in the parse error).  Anchorable in an optional group:
    present when the op has the attribute."""

    TABLE: ClassVar[Mapping[str, int]]
    WHAT: ClassVar[str]
    attr: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        self.attr.set(state, int_attr(parse_keyword_enum(parser, self.TABLE, self.WHAT)))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_string(enum_name(self.TABLE, self.attr.get(op).value.data))

    def is_present(self, op: IRDLOperation) -> bool:
        return self.attr.is_present(op)

    def is_anchorable(self) -> bool:
        return True


def i32_enum_directive(name: str, table: Mapping[str, int], what: str) -> type[I32EnumKeyword]:
    """The custom directive ``custom<name>($attr)`` for the enum ``table``."""
    cls = type(
        name,
        (I32EnumKeyword,),
        {"TABLE": table, "WHAT": what, "__annotations__": {"attr": AttributeVariable}},
    )
    return irdl_custom_directive(cls)


@irdl_custom_directive
class I32List(CustomDirective):
    """``custom<I32List>($attr)``: a ``DenseI32ArrayAttr`` printed as its bare values
    (``ttg.memdesc_subslice %m[64, 0]`` writes ``offsets = array<i32: 64, 0>`` so)."""

    attr: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        def value() -> int:
            at = peek_token(parser).span
            v = parser.parse_integer()
            if not -(1 << 31) <= v < (1 << 31):  # (MLIR's words, at the value)
                parser.raise_error("integer value too large", at)
            return v

        values = parser.parse_comma_separated_list(parser.Delimiter.NONE, value)
        self.attr.set(state, i32_array(values))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        attr = self.attr.get(op)
        values = attr.get_values() if isinstance(attr, DenseArrayBase) else ()
        printer.print_string(", ".join(str(v) for v in values))


# ------------------------------------------------------------------- parse helpers
def parse_operand_list(parser: Parser) -> list[UnresolvedOperand]:
    """Zero or more comma-separated operands (no delimiters)."""
    first = parser.parse_optional_unresolved_operand()
    if first is None:
        return []
    ops = [first]
    while parser.parse_optional_punctuation(",") is not None:
        ops.append(parser.parse_unresolved_operand())
    return ops


def parse_type_list(parser: Parser) -> list[Attribute]:
    types = [parser.parse_type()]
    while parser.parse_optional_punctuation(",") is not None:
        types.append(parser.parse_type())
    return types


def resolve_all(
    parser: Parser, operands: Sequence[UnresolvedOperand], types: Sequence[Attribute]
) -> list[SSAValue]:
    if len(operands) != len(types):
        parser.raise_error(
            f"expected {len(operands)} types for {len(operands)} operands, "
            f"got {len(types)}"
        )
    return [parser.resolve_operand(o, t) for o, t in zip(operands, types)]


def parse_functional_type(parser: Parser) -> tuple[list[Attribute], list[Attribute]]:
    ft = parser.parse_function_type()
    return list(ft.inputs.data), list(ft.outputs.data)


def parse_keyword_enum(parser: Parser, table: Mapping[str, int], what: str) -> int:
    pos = parser.pos
    kw = parser.parse_optional_identifier()
    if kw is None or kw not in table:
        parser.raise_error(
            f"expected {what} (one of {', '.join(table)})", pos, parser.pos
        )
    return table[kw]


def parse_bracket_operands(parser: Parser) -> list[UnresolvedOperand]:
    """``[%a, %b]``."""
    return parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, parser.parse_unresolved_operand
    )


def parse_maybe_unqualified(parser: Parser, cls):
    """A type printed with or without its ``!dialect.name`` prefix (MLIR prints a dialect's
    own type unqualified in a ``type(...)`` directive)."""
    if peek_token(parser).text == "<":
        return cls.new(cls.parse_parameters(parser))
    return parser.parse_type()


def parse_cache_evict(parser: Parser, props: dict[str, Attribute]) -> None:
    """The oilist ``cacheModifier = X`` / ``evictionPolicy = Y``, in either order."""
    while True:
        if parser.parse_optional_keyword("cacheModifier") is not None:
            parser.parse_punctuation("=")
            props["cache"] = int_attr(parse_keyword_enum(parser, CACHE_MODIFIER, "cache modifier"))
        elif parser.parse_optional_keyword("evictionPolicy") is not None:
            parser.parse_punctuation("=")
            props["evict"] = int_attr(parse_keyword_enum(parser, EVICTION_POLICY, "eviction policy"))
        else:
            return


# ------------------------------------------------------------------- print helpers
def print_operands(printer: Printer, operands: Sequence[SSAValue]) -> None:
    printer.print_list(operands, printer.print_ssa_value)


def print_types(printer: Printer, types: Iterable[Attribute]) -> None:
    printer.print_list(types, printer.print_attribute)


def print_bracket_operands(printer: Printer, values: Sequence[SSAValue]) -> None:
    """``[%a, %b]``."""
    printer.print_string("[")
    printer.print_list(values, printer.print_ssa_value)
    printer.print_string("]")


def print_cache_evict(op: Operation, printer: Printer) -> None:
    """The ``cacheModifier`` / ``evictionPolicy`` clauses that are not the default."""
    cache = get_int(op, "cache", 1)
    evict = get_int(op, "evict", 1)
    if cache != 1:
        printer.print_string(" cacheModifier = " + enum_name(CACHE_MODIFIER, cache))
    if evict != 1:
        printer.print_string(" evictionPolicy = " + enum_name(EVICTION_POLICY, evict))


__all__ = [
    "int_attr",
    "i32_array",
    "get_int",
    "enum_name",
    "I32EnumKeyword",
    "i32_enum_directive",
    "I32List",
    "parse_operand_list",
    "parse_type_list",
    "resolve_all",
    "parse_functional_type",
    "parse_keyword_enum",
    "parse_bracket_operands",
    "parse_maybe_unqualified",
    "parse_cache_evict",
    "print_operands",
    "print_types",
    "print_bracket_operands",
    "print_cache_evict",
]
