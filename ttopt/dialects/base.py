"""Shared machinery for the Triton dialect definitions.

Every op of ttopt's dialects derives from :class:`TritonOp`.  It adds three things to xDSL's
``IRDLOperation``:

* **attr-dict handling as MLIR does it with properties**: in custom form, inherent attributes
  (properties) and discardable attributes share one ``{...}`` dictionary; when parsing, names
  that are declared properties of the op go to ``op.properties``, the rest to
  ``op.attributes``; when printing, both are merged and sorted, minus those the format
  already printed.
* **building**: ``build(operands, result_types, properties, attributes, regions)`` with
  flat lists makes the op directly (the parsers and the reader's fast path); xDSL's keyword
  form (one list per operand definition) goes through ``IRDLOperation.build``.
* **its own rules** (``OWN_VERIFY``): the class's ``verify_``, for ttopt's verifier.

The syntax helpers (operand lists, keyword enums ...) live in :mod:`ttopt.dialects.syntax`
and the declarative-format support in :mod:`ttopt.dialects.declarative`; the names below
re-export the helpers that used to live here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from xdsl.dialects.builtin import UNKNOWN_LOC, DenseArrayBase
from xdsl.ir import Attribute, Operation
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException

from .syntax import (  # re-exported: the other dialect modules import them from here
    enum_name,
    get_int,
    i32_array,
    int_attr,
    parse_functional_type,
    parse_keyword_enum,
    parse_operand_list,
    parse_type_list,
    print_operands,
    print_types,
    resolve_all,
)

# An op class's own ``verify_`` (the rules of its ``.td`` definition), as written in the class
# body.  xDSL's ``irdl_op_definition`` replaces ``verify_`` by "IRDL checks, then the class's
# ``verify_``"; ttopt's verifier (ttopt.ir.verify) runs the IRDL part its own, faster way and
# then calls this one.  None: the class adds no rule of its own.
OWN_VERIFY: dict[type[Operation], Callable[[Operation], None] | None] = {}


class PlainVerifyException(VerifyException):
    """A rule's error that MLIR reports with ``emitError``: at the op, without the
    ``'NAME' op`` prefix of ``emitOpError`` (ttopt's verifier adds it to any other)."""


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
    def property_names(cls) -> frozenset[str]:
        """The names of the properties the op defines (memoised per class)."""
        names = cls.__dict__.get("_ttopt_prop_names")
        if names is None:
            names = frozenset(cls.get_irdl_definition().properties)
            setattr(cls, "_ttopt_prop_names", names)
        return names

    _property_names = property_names  # (the name the reader's fast path uses)

    @classmethod
    def split_attr_dict(
        cls, attrs: Mapping[str, Attribute]
    ) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
        """Split a parsed ``{...}`` dictionary into (properties, attributes)."""
        props_names = cls.property_names()
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
        operands: Sequence = (),
        result_types: Sequence = (),
        properties: Mapping[str, Attribute] | None = None,
        attributes: Mapping[str, Attribute] | None = None,
        regions: Sequence = (),
        successors: Sequence | None = None,
    ):
        """The op with these flat operands and result types, unverified (what the parsers
        and the reader's fast path make).  Given ``successors`` (xDSL's declarative parser
        always passes them), this is ``IRDLOperation.build``: one entry per definition,
        a list for a variadic one, segment sizes computed."""
        if successors is not None:
            return IRDLOperation.build.__func__(
                cls,
                operands=operands,
                result_types=result_types,
                properties=properties,
                attributes=attributes,
                regions=regions,
                successors=successors,
            )
        return cls.create(
            operands=operands,
            result_types=result_types,
            properties=dict(properties or {}),
            attributes=dict(attributes or {}),
            regions=regions,
            location=UNKNOWN_LOC,  # (what create gives, without its import per call)
        )


def segment_sizes(attr: DenseArrayBase) -> tuple[int, ...]:
    """``operandSegmentSizes`` as a tuple (memoised by its bytes: a handful of values)."""
    raw = attr.data.data
    sizes = _SEGMENTS.get(raw)
    if sizes is None:
        sizes = _SEGMENTS[raw] = tuple(attr.get_values())
    return sizes


_SEGMENTS: dict[bytes, tuple[int, ...]] = {}


__all__ = [
    "TritonOp",
    "OWN_VERIFY",
    "segment_sizes",
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
