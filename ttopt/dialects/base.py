"""Shared machinery for the Triton dialect definitions.

Every op of ttopt's dialects derives from :class:`TritonOp`.  It adds three things to xDSL's
``IRDLOperation``:

* **attr-dict handling as MLIR does it with properties**: in custom form, inherent attributes
  (properties) and discardable attributes share one ``{...}`` dictionary; when parsing, names
  that are declared properties of the op go to ``op.properties``, the rest to
  ``op.attributes``; when printing, both are merged and sorted, minus those the format
  already printed.
* **format helpers** for the few shapes of custom syntax Triton uses (``$a, $b : T``,
  ``$x : T -> U``, ``$x : T to U``, functional types, keyword enums).
* **memory effects**: each op declares one of ``Pure``, ``MemoryReadEffect``,
  ``MemoryWriteEffect``, ... (xDSL traits); ops whose effects depend on their attributes
  (volatile loads, non-pure inline asm) implement their own trait.  Ops that declare nothing
  have *unknown* effects, and the passes treat them as writers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache

from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError

# An op class's own ``verify_`` (the rules of its ``.td`` definition), as written in the class
# body.  xDSL's ``irdl_op_definition`` replaces ``verify_`` by "IRDL checks, then the class's
# ``verify_``"; ttopt's verifier (ttopt.ir.verify) runs the IRDL part its own, faster way and
# then calls this one.  None: the class adds no rule of its own.
OWN_VERIFY: dict[type[Operation], Callable[[Operation], None] | None] = {}


class TritonOp(IRDLOperation):
    """Base class of every op defined by ttopt.

    **Verification**: operand/result types are constrained in ``operand_def``/``result_def``
    (:mod:`ttopt.dialects.constraints`); the relations between them (same type, shapes, the
    function's result types...) are checked by the class's ``verify_``, which raises
    ``VerifyException`` with MLIR's wording (without the ``'op.name' op`` prefix, which the
    verifier adds).  Structural rules (terminators, parents) are xDSL traits.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        own = getattr(cls, "verify_", None)  # before irdl_op_definition wraps it
        OWN_VERIFY[cls] = None if own is Operation.verify_ else own

    # ---------------------------------------------------------------- attr-dict
    @classmethod
    def _property_names(cls) -> frozenset[str]:
        names = cls.__dict__.get("_ttopt_prop_names")
        if names is None:
            names = frozenset(cls.get_irdl_definition().properties)
            setattr(cls, "_ttopt_prop_names", names)
        return names

    @classmethod
    def split_attr_dict(
        cls, attrs: Mapping[str, Attribute]
    ) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
        """Split a parsed ``{...}`` dictionary into (properties, attributes)."""
        props_names = cls._property_names()
        props: dict[str, Attribute] = {}
        other: dict[str, Attribute] = {}
        for k, v in attrs.items():
            (props if k in props_names else other)[k] = v
        return props, other

    @classmethod
    def parse_attr_dict(
        cls, parser: Parser
    ) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
        return cls.split_attr_dict(parser.parse_optional_attr_dict())

    def print_attr_dict(self, printer: Printer, elide: Iterable[str] = ()) -> None:
        """Print properties and attributes merged into one sorted ``{...}``."""
        skip = set(elide)
        skip.add("operandSegmentSizes")
        skip.add("resultSegmentSizes")
        merged = {
            k: v
            for k, v in (*self.properties.items(), *self.attributes.items())
            if k not in skip
        }
        if merged:
            printer.print_string(" ")
            printer.print_attr_dict(dict(sorted(merged.items())))

    # ---------------------------------------------------------------- building
    @classmethod
    def build(
        cls,
        operands: Sequence[SSAValue] = (),
        result_types: Sequence[Attribute] = (),
        properties: Mapping[str, Attribute] | None = None,
        attributes: Mapping[str, Attribute] | None = None,
        regions: Sequence = (),
    ):
        return cls.create(
            operands=operands,
            result_types=result_types,
            properties=dict(properties or {}),
            attributes=dict(attributes or {}),
            regions=regions,
        )


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


@lru_cache(maxsize=4096)
def int_attr(value: int, typ: IntegerType = i32) -> IntegerAttr:
    """A (cached: attributes are immutable) ``IntegerAttr``."""
    return IntegerAttr(value, typ)


def i32_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i32, list(values))


# ------------------------------------------------------------------- print helpers
def print_operands(printer: Printer, operands: Sequence[SSAValue]) -> None:
    printer.print_list(operands, printer.print_ssa_value)


def print_types(printer: Printer, types: Iterable[Attribute]) -> None:
    printer.print_list(types, printer.print_attribute)


def enum_name(table: Mapping[str, int], value: int) -> str:
    for k, v in table.items():
        if v == value:
            return k
    raise ValueError(f"no enum case for {value}")


def get_int(op: Operation, name: str, default: int | None = None) -> int | None:
    attr = op.properties.get(name) or op.attributes.get(name)
    if attr is None:
        return default
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    return default


__all__ = [
    "TritonOp",
    "ParseError",
    "parse_operand_list",
    "parse_type_list",
    "resolve_all",
    "parse_functional_type",
    "parse_keyword_enum",
    "int_attr",
    "i32_array",
    "print_operands",
    "print_types",
    "enum_name",
    "get_int",
]
