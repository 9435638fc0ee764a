"""xDSL's declarative assembly format (``assembly_format``) with MLIR's parse-time behaviour.

An op class of ttopt's dialects states its custom syntax as xDSL does, in
``assembly_format`` (MLIR's format language, parsed by xDSL's ``FormatParser`` into xDSL's
directives), and is defined with :func:`irdl_triton_op` instead of ``irdl_op_definition``.
The directives, and thus the syntax, are xDSL's; what differs is the program that runs them,
:class:`TritonFormatProgram`, in two ways that keep ttopt's output and diagnostics Triton's,
and one that keeps printing as fast as the hand-written printers were:

* **no verification while parsing**: xDSL's ``FormatProgram.parse`` checks every parsed
  type and property against its constraint and raises a ``VerifyException`` from inside the
  parser.  MLIR's generated parsers check nothing: the op is built and the verifier reports
  (``'tt.splat' op result #0 must be ranked tensor, but got 'f32'``, at the op).  Constraints
  are used here only to *infer* types the format does not spell (``ExactType(i32)`` indices);
* **one sorted attribute dictionary**: MLIR prints inherent attributes (properties) and
  discardable ones merged in one ``{...}``, sorted by name (a ``DictionaryAttr``); xDSL's
  ``attr-dict`` prints the discardable ones first.  Properties the op does not define (kept
  from a generic-form input) are printed there too, as MLIR ignores-but-keeps them;
* **values by position**: ``$x`` and ``type($x)`` of an operand or result at a fixed position
  are printed from ``op.operands[i]``, not through xDSL's IRDL accessor, which works out
  variadic offsets on every access (same text; printing an op of the ``ArrowOp`` family went
  from 43 to 24 us).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition
from xdsl.irdl.declarative_assembly_format import (
    AttrDictDirective,
    FormatDirective,
    FormatProgram,
    OperandVariable,
    OptionalGroupDirective,
    ParsingState,
    PrintingState,
    ResultVariable,
    TypeDirective,
    VariadicOperandVariable,
)
from xdsl.irdl.operations import AttrSizedSegments, OpDef, OptionalDef, VariadicDef
from xdsl.parser import Parser
from xdsl.printer import Printer

from ..xdsl_compat import operand_tuple

_SEGMENT_NAMES = frozenset({"operandSegmentSizes", "resultSegmentSizes"})


@dataclass(frozen=True)
class SortedAttrDictDirective(AttrDictDirective):
    """``attr-dict`` printed as MLIR prints it (see the module docstring); parsed as xDSL
    parses it (names of properties the format does not spell go to the properties)."""

    printed_elsewhere: frozenset[str] = field(default=frozenset())
    """Properties the format prints itself (``$callee``, ``custom<X>($axis)``)."""

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        props, attrs = op.properties, op.attributes
        if not props and not attrs:  # (most ops)
            return
        skip = self.printed_elsewhere
        reserved = self.reserved_attr_names
        merged = [(k, v) for k, v in props.items() if k not in skip and k not in _SEGMENT_NAMES]
        merged.extend((k, v) for k, v in attrs.items() if k not in reserved)
        if not merged:
            return
        if self.with_keyword:
            printer.print_string(" attributes")
        printer.print_string(" ")
        printer.print_attr_dict(dict(sorted(merged)))
        state.last_was_punctuation = False
        state.should_emit_space = True


@dataclass(frozen=True)
class PositionalOperandVariable(OperandVariable):
    """``$x`` for an operand that is the op's ``index``-th (every operand definition before
    it is a single value): printed from its position, not through the IRDL accessor (which
    works out variadic offsets on each access: a fifth of an op's printing time)."""

    def get(self, op: IRDLOperation) -> SSAValue:
        return operand_tuple(op)[self.index]

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_ssa_value(operand_tuple(op)[self.index])


@dataclass(frozen=True)
class PositionalTypeDirective(TypeDirective):
    """``type($x)`` of a single operand or result at a fixed position (as above)."""

    of_operand: bool = True

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        index = self.inner.index
        value = operand_tuple(op)[index] if self.of_operand else op.results[index]
        state.print_whitespace(printer)
        printer.print_attribute(value.type)


@dataclass(frozen=True)
class SoleVariadicOperandVariable(VariadicOperandVariable):
    """``$xs`` of an op whose only operand definition is this variadic one: all operands."""

    def get(self, op: IRDLOperation):
        return operand_tuple(op)

    def get_types(self, op: IRDLOperation) -> Sequence[Attribute]:
        return [v.type for v in operand_tuple(op)]

    def is_present(self, op: IRDLOperation) -> bool:
        return bool(operand_tuple(op))


def _single_prefix(defs) -> int:
    """How many definitions, from the first, are single values (no variadic, no optional)."""
    n = 0
    for _, d in defs:
        if isinstance(d, VariadicDef | OptionalDef):
            break
        n += 1
    return n


def _ttopt_directive(stmt: FormatDirective, op_def: OpDef) -> FormatDirective:
    """``stmt``, or the directive of the same meaning that prints as MLIR does or faster."""
    if isinstance(stmt, AttrDictDirective):
        elsewhere = frozenset(op_def.properties) - stmt.expected_properties
        return SortedAttrDictDirective(
            stmt.with_keyword, stmt.reserved_attr_names, stmt.expected_properties, elsewhere
        )
    if type(stmt) is OperandVariable and stmt.index < _single_prefix(op_def.operands):
        return PositionalOperandVariable(stmt.name, stmt.index)
    sole = len(op_def.operands) == 1 and isinstance(op_def.operands[0][1], VariadicDef)
    if type(stmt) is VariadicOperandVariable and sole:
        return SoleVariadicOperandVariable(stmt.name, stmt.index)
    if type(stmt) is TypeDirective:
        inner = stmt.inner
        if type(inner) is OperandVariable and inner.index < _single_prefix(op_def.operands):
            return PositionalTypeDirective(inner, True)
        if type(inner) is ResultVariable and inner.index < _single_prefix(op_def.results):
            return PositionalTypeDirective(inner, False)
        if type(inner) is VariadicOperandVariable and sole:
            return TypeDirective(SoleVariadicOperandVariable(inner.name, inner.index))
    if type(stmt) is OptionalGroupDirective and sole:  # (`($srcs^ : type($srcs))?`)
        return OptionalGroupDirective(
            _ttopt_directive(stmt.anchor, op_def),
            stmt.then_whitespace,
            _ttopt_directive(stmt.then_first, op_def),
            tuple(_ttopt_directive(e, op_def) for e in stmt.then_elements),
            tuple(_ttopt_directive(e, op_def) for e in stmt.else_elements),
        )
    return stmt


@dataclass(frozen=True)
class TritonFormatProgram(FormatProgram):
    """xDSL's ``FormatProgram``: same directives, MLIR's parse-time behaviour (module
    docstring)."""

    uses_variables: bool = False
    """Some constraint has variables: they are resolved (and thus checked) while parsing,
    as xDSL does, to infer the types they fix."""
    segmented: bool = False
    """The op has ``AttrSized*Segments``: built through ``IRDLOperation.build``."""

    @staticmethod
    def for_op(op_def: OpDef) -> TritonFormatProgram:
        assert op_def.assembly_format is not None
        stmts = FormatProgram.from_str(op_def.assembly_format, op_def).stmts
        stmts = tuple(_ttopt_directive(s, op_def) for s in stmts)
        assert not any(
            isinstance(s, OptionalGroupDirective)
            and any(isinstance(e, AttrDictDirective) for e in (s.then_first, *s.then_elements))
            for s in stmts
        ), "attr-dict inside an optional group"
        defs = (
            *(d for _, d in op_def.operands),
            *(d for _, d in op_def.results),
            *op_def.properties.values(),
            *op_def.attributes.values(),
        )
        return TritonFormatProgram(
            stmts,
            uses_variables=any(d.constr.variables() for d in defs),
            segmented=any(isinstance(o, AttrSizedSegments) for o in op_def.options),
        )

    def parse(self, parser: Parser, op_type: type[IRDLOperation]) -> IRDLOperation:
        op_def = op_type.get_irdl_definition()
        state = ParsingState(op_type)
        for stmt in self.stmts:
            stmt.parse(parser, state)
        operand_types: Sequence = state.operand_types
        result_types: Sequence = state.result_types
        if None in operand_types or None in result_types:  # some types are inferred
            if self.uses_variables:
                self.resolve_constraint_variables(state, op_def)
            operand_types = self.resolve_operand_types(state, op_def)
            result_types = self.resolve_result_types(state, op_def)
        pos = parser.pos
        if not self.segmented:  # one flat list each: the op directly
            operands = [
                v
                for uo, ot in zip(state.operands, operand_types, strict=True)
                for v in parser.resolve_operands(uo, ot, pos)
            ]
            return op_type.create(
                operands=operands,
                result_types=[t for ts in result_types for t in ts],
                properties=state.properties,
                attributes=state.attributes,
                regions=[r for rs in state.regions for r in rs],
                successors=[s for ss in state.successors for s in ss],
            )
        return IRDLOperation.build.__func__(
            op_type,
            operands=[
                parser.resolve_operands(uo, ot, pos)
                for uo, ot in zip(state.operands, operand_types, strict=True)
            ],
            result_types=result_types,
            properties=state.properties,
            attributes=state.attributes,
            regions=state.regions,
            successors=state.successors,
        )


def irdl_triton_op(cls: type[IRDLOperation]) -> type[IRDLOperation]:
    """``irdl_op_definition``; an ``assembly_format`` (the class's or inherited from an
    abstract base) is run by a :class:`TritonFormatProgram`."""
    cls = irdl_op_definition(cls)
    op_def = cls.get_irdl_definition()
    if op_def.assembly_format is not None:
        program = TritonFormatProgram.for_op(op_def)

        def parse(c, parser: Parser):
            return program.parse(parser, c)

        def print_(self, printer: Printer) -> None:
            program.print(printer, self)

        cls.parse = classmethod(parse)
        cls.print = print_
        cls.format_program = program
    return cls


def has_format(cls: type, base: type) -> bool:
    """Does op class ``cls`` use the ``assembly_format`` of family ``base`` unchanged?"""
    return issubclass(cls, base) and cls.assembly_format == base.assembly_format


__all__ = [
    "SortedAttrDictDirective",
    "TritonFormatProgram",
    "irdl_triton_op",
    "has_format",
]
