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
from xdsl.irdl import IRDLOperation
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
from xdsl.irdl.operations import (
    AttrSizedSegments,
    OpDef,
    OptionalDef,
    VariadicDef,
    get_accessors_from_op_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

from ..xdsl_compat import operand_tuple, peek_token

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


@dataclass(frozen=True)
class StrippedOkTypeDirective(PositionalTypeDirective):
    """``type($x)`` of a single operand or result whose constraint is one type class
    (``TypeOfClass``): also reads the type without its ``!dialect.name`` prefix
    (``<1xi64, #shared, mutable>`` for a ``!ttg.memdesc``), as MLIR's generated parsers do and
    Triton 3.0 - 3.2 print it; printed qualified (which those releases read too)."""

    cls: type = object

    def parse(self, parser: Parser, state: ParsingState) -> None:
        if peek_token(parser).text == "<":
            typ = self.cls.new(self.cls.parse_parameters(parser))
            index = self.inner.index
            if self.of_operand:
                state.operand_types[index] = (typ,)
            else:
                state.result_types[index] = (typ,)
            return
        super().parse(parser, state)


@dataclass(frozen=True)
class StrippedOkAnyTypeDirective(TypeDirective):
    """:class:`StrippedOkTypeDirective` for a single operand after a variadic one."""

    cls: type = object
    of_operand: bool = True

    def parse(self, parser: Parser, state: ParsingState) -> None:
        if peek_token(parser).text == "<":
            typ = self.cls.new(self.cls.parse_parameters(parser))
            if self.of_operand:
                state.operand_types[self.inner.index] = (typ,)
            else:
                state.result_types[self.inner.index] = (typ,)
            return
        super().parse(parser, state)


def _type_class(constr) -> type | None:
    """The one type class ``constr`` (an operand's or result's, as IRDL wraps it) allows."""
    from xdsl.irdl.constraints import RangeLengthConstraint, RangeOf

    from .constraints import TypeOfClass

    if isinstance(constr, RangeLengthConstraint):
        constr = constr.constraint
    if isinstance(constr, RangeOf):
        constr = constr.constr
    return constr.cls if isinstance(constr, TypeOfClass) else None


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
            cls = _type_class(op_def.operands[inner.index][1].constr)
            if cls is not None:
                return StrippedOkTypeDirective(inner, True, cls)
            return PositionalTypeDirective(inner, True)
        if type(inner) is ResultVariable and inner.index < _single_prefix(op_def.results):
            cls = _type_class(op_def.results[inner.index][1].constr)
            if cls is not None:
                return StrippedOkTypeDirective(inner, False, cls)
            return PositionalTypeDirective(inner, False)
        if type(inner) is OperandVariable:
            cls = _type_class(op_def.operands[inner.index][1].constr)
            if cls is not None:
                return StrippedOkAnyTypeDirective(inner, cls, True)
        if type(inner) is ResultVariable:
            cls = _type_class(op_def.results[inner.index][1].constr)
            if cls is not None:
                return StrippedOkAnyTypeDirective(inner, cls, False)
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


class LazyProgram:
    """A format program built on first use (then kept): an op class's format is parsed when
    a text first has the op (or the writer first prints it), not when ttopt is imported;
    parsing every format of every dialect took about a quarter of ``ttopt-opt``'s start-up.
    On the class, ``cls.format_program`` is the program (a descriptor); a format that does
    not parse fails there (``test_dialect_defs`` builds every one, :attr:`ALL`)."""

    __slots__ = ("_build", "_program")

    ALL: list[LazyProgram] = []
    """Every one made (the test that builds them all)."""

    def __init__(self, build):
        self._build = build
        self._program = None
        LazyProgram.ALL.append(self)

    def get(self):
        program = self._program
        if program is None:
            program = self._program = self._build()
        return program

    def __get__(self, obj, objtype=None):
        return self.get()


def op_definition_unformatted(cls: type[IRDLOperation]) -> type[IRDLOperation]:
    """``irdl_op_definition`` without the format program xDSL builds for its ``parse`` and
    ``print`` (the caller puts its own in their place, built lazily): xDSL's decorator is
    its two public steps, the definition and the accessors, with the format hidden from the
    second."""
    op_def = OpDef.from_pyrdl(cls)
    fmt, op_def.assembly_format = op_def.assembly_format, None
    try:
        accessors = get_accessors_from_op_def(op_def, getattr(cls, "verify_", None))
    finally:
        op_def.assembly_format = fmt
    for name, value in accessors.items():
        setattr(cls, name, value)
    return cls


def irdl_triton_op(cls: type[IRDLOperation]) -> type[IRDLOperation]:
    """``irdl_op_definition``; an ``assembly_format`` (the class's or inherited from an
    abstract base) is run by a :class:`TritonFormatProgram`, built on first use
    (:class:`LazyProgram`).

    ``SYNTAX_VARIANTS`` (a class attribute, may be inherited): ``((when, format), ...)``, the
    format of the op in the Triton releases whose :class:`~ttopt.dialects.versions.Syntax`
    ``when`` accepts (``lambda s: s.arrow_parens``), in place of ``assembly_format``; the
    first that applies is used, for reading and for writing."""
    cls = op_definition_unformatted(cls)
    op_def = cls.get_irdl_definition()
    if op_def.assembly_format is None:
        return cls
    lazy = LazyProgram(lambda: TritonFormatProgram.for_op(op_def))
    variants = tuple(getattr(cls, "SYNTAX_VARIANTS", ()))
    if not variants:
        def parse(c, parser: Parser):
            return lazy.get().parse(parser, c)

        def print_(self, printer: Printer) -> None:
            lazy.get().print(printer, self)
    else:
        from .versions import current

        compiled: dict[str, TritonFormatProgram] = {}

        def program_for(syntax) -> TritonFormatProgram:
            for when, fmt in variants:
                if when(syntax):
                    found = compiled.get(fmt)
                    if found is None:
                        base = lazy.get()
                        stmts = FormatProgram.from_str(fmt, op_def).stmts
                        found = compiled[fmt] = TritonFormatProgram(
                            tuple(_ttopt_directive(st, op_def) for st in stmts),
                            uses_variables=base.uses_variables, segmented=base.segmented,
                        )
                    return found
            return lazy.get()

        def parse(c, parser: Parser):
            return program_for(current()).parse(parser, c)

        def print_(self, printer: Printer) -> None:
            program_for(current()).print(printer, self)

        cls.format_program_for = staticmethod(program_for)

    cls.parse = classmethod(parse)
    cls.print = print_
    cls.format_program = lazy
    return cls


def variant_active(cls, syntax) -> bool:
    """Does op class ``cls`` print in another format than its ``assembly_format`` in
    ``syntax``'s release?"""
    return any(when(syntax) for when, _ in getattr(cls, "SYNTAX_VARIANTS", ()))


def has_format(cls: type, base: type) -> bool:
    """Does op class ``cls`` use the ``assembly_format`` of family ``base`` unchanged?"""
    return issubclass(cls, base) and cls.assembly_format == base.assembly_format


__all__ = [
    "variant_active",
    "SortedAttrDictDirective",
    "TritonFormatProgram",
    "irdl_triton_op",
    "has_format",
]
