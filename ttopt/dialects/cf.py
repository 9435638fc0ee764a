"""``cf`` as Triton emits it: ``cf.br`` and ``cf.cond_br``, xDSL's own op classes, and the
``cf.assert`` and ``cf.switch`` that every Triton release (2.1 to 3.9) reads.

An early ``return`` in a Triton kernel (``if pid >= n: return``) cannot be an ``scf.if``
(a ``tt.return`` must end the function's block): Triton's code generator splits the
function body into blocks and branches between them::

    cf.cond_br %3, ^bb1, ^bb2
  ^bb1:  // pred: ^bb0
    tt.return
  ^bb2:  // pred: ^bb0
    ...
    cf.br ^bb5(%v : i32)

xDSL's ``cf.br`` and ``cf.cond_br`` read and print exactly that text (their declarative
formats are MLIR's), so ttopt's ``cf`` dialect is xDSL's classes, each behind the adapter
of :mod:`ttopt.dialects.upstream` (MLIR's constraints: an ``i1`` condition; MLIR's
parse-time behaviour), with what MLIR has and xDSL 0.74 leaves out:

* **memory effects**: MLIR's branches and ``cf.switch`` are ``Pure`` (they only pass values
  to a block); xDSL's ``cf.br``/``cf.cond_br`` declare none, which ttopt's analysis would
  take for an unknown writer.  ``cf.assert`` *writes* (MLIR's ``AssertOp::getEffects``:
  ``MemoryEffects::Write``, "program termination", in Triton 3.2+'s MLIR; 2.1-3.1's
  declares nothing, which is a writer too): no load is merged or hoisted across it;
* **the successor operand rule** of MLIR's ``BranchOpInterface``: each successor gets as
  many values as its block has arguments, of the same types (``branch has 1 operands for
  successor #0, but target block has 0``);
* ``cf.switch``: MLIR's ``AnyInteger`` flag (``si32`` too, never ``index``: xDSL's takes
  ``index`` and not ``si32``), MLIR's verifier (case values of the flag's type, one per
  case destination, ``case_operand_segments`` adding up), and a hand-written syntax:
  xDSL's custom directive asserts on a non-integer flag, and how a case value reads
  depends on the release (:attr:`ttopt.dialects.versions.Syntax.switch_signed_cases`:
  from Triton 3.2 a value outside the flag's signed range aborts Triton, and ttopt
  refuses it).  Case values are printed signed (``-3: ^bb1``), which every release reads
  as the same bits; MLIR prints them unsigned (``4294967293``), which Triton 3.2+ cannot
  read back.  Flags wider than 64 bits with case values are not supported (xDSL cannot
  store their dense values; Triton reads them).
"""

from __future__ import annotations

import struct

from xdsl.dialects import cf as _x
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IntegerType,
    VectorType,
)
from xdsl.ir import Dialect, Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from . import versions
from .constraints import TypeOfClass, same
from .syntax import i32_array
from .upstream import adapt

BranchOp = _x.BranchOp
ConditionalBranchOp = _x.ConditionalBranchOp
AssertOp = _x.AssertOp
SwitchOp = _x.SwitchOp


def _case_sizes(op: Operation) -> list[int]:
    """A ``cf.switch``'s ``case_operand_segments``: the operand count of each case."""
    segments = op.properties.get("case_operand_segments")
    return list(segments.get_values()) if segments is not None else []


def switch_cases(op: Operation) -> list[tuple[int, object, tuple]]:
    """``(case value, destination, its operands)`` of a ``cf.switch``, in order (the values
    as stored: see :func:`_signed` for how they print)."""
    values = op.properties.get("case_values")
    sizes = _case_sizes(op)
    numbers = list(values.get_values()) if values is not None else []
    operands = tuple(op.case_operands)
    out, at = [], 0
    for i, block in enumerate(op.case_blocks):
        n = sizes[i] if i < len(sizes) else 0
        value = numbers[i] if i < len(numbers) else None
        out.append((value, block, operands[at : at + n]))
        at += n
    return out


def _successor_operands(op: Operation) -> list[tuple]:
    """(successor block, the values passed to it) of a ``cf`` branch."""
    if isinstance(op, ConditionalBranchOp):
        # (from the operands and the segment sizes directly: xDSL's accessors decode the
        # sizes again for each; the sizes were checked before this rule runs)
        sizes = op.properties.get("operandSegmentSizes")
        data = sizes.data.data if sizes is not None else b""
        then_block, else_block = op.successors
        if len(data) == 12:
            _, n_then, n_else = struct.unpack("<3i", data)
            operands = tuple(op.operands)
            if 1 + n_then + n_else == len(operands) and n_then >= 0 and n_else >= 0:
                return [(then_block, operands[1 : 1 + n_then]),
                        (else_block, operands[1 + n_then :])]
        return [(then_block, op.then_arguments), (else_block, op.else_arguments)]
    if isinstance(op, SwitchOp):
        return [(op.default_block, op.default_operands)] + [
            (block, values) for _, block, values in switch_cases(op)
        ]
    return [(op.successor, op.arguments)]


def _branch_rule(op: Operation) -> None:
    """MLIR's ``verifyBranchSuccessorOperands`` (``BranchOpInterface``)."""
    for n, (block, values) in enumerate(_successor_operands(op)):
        args = block.args
        if len(values) != len(args):
            raise VerifyException(
                f"branch has {len(values)} operands for successor #{n}, but target block "
                f"has {len(args)}"
            )
        for i, (v, a) in enumerate(zip(values, args)):
            if not same(v.type, a.type):
                raise VerifyException(f"type mismatch for bb argument #{i} of successor #{n}")


# ----------------------------------------------------------------------------- cf.switch
def _switch_rule(op: Operation) -> None:
    """MLIR's ``cf.switch`` rules, in Triton 3.6's words: ``case_operand_segments`` adds up
    to the case operands (ODS), ``SwitchOp::verify`` (case values of the flag's type, one
    per case destination), then the successor operands.  Two cases Triton crashes on
    (case destinations without case values; fewer segments than case destinations) are
    errors, in the first one's MLIR wording."""
    sizes = _case_sizes(op)
    if sum(sizes) != len(op.case_operands):
        raise VerifyException(
            f"caseOperands count ({len(op.case_operands)}) does not match with the total "
            f"size ({sum(sizes)}) specified in attribute 'case_operand_segments'"
        )
    values = op.properties.get("case_values")
    destinations = len(op.case_blocks)
    if values is not None or destinations:
        count = 0
        if values is not None:
            element = values.get_type().element_type
            if not same(element, op.flag.type):
                raise VerifyException(
                    f"'flag' type ('{op.flag.type}') should match case value type "
                    f"('{element}')"
                )
            count = len(values.get_values())
        if count != destinations:
            raise VerifyException(
                f"number of case values ({count}) should match number of case destinations "
                f"({destinations})"
            )
        if len(sizes) < destinations:
            raise VerifyException(
                f"'case_operand_segments' has {len(sizes)} entries for {destinations} case "
                "destinations"
            )
    _branch_rule(op)


def _successor_and_uses(parser: Parser):
    """``^bb (`(` %a, ... `:` T, ... `)`)?``: the block and its resolved operands."""
    block = parser.parse_successor()
    if parser.parse_optional_punctuation("(") is None:
        return block, []
    at = parser.pos
    names = parser.parse_comma_separated_list(
        Parser.Delimiter.NONE, parser.parse_unresolved_operand
    )
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    return block, list(parser.resolve_operands(names, types, at))


def _case_value(parser: Parser, flag: IntegerType) -> int:
    """One case value, read as the text's release reads it (module docstring), stored as
    xDSL stores a value of the flag's type."""
    at = parser.pos
    value = parser.parse_optional_integer(allow_boolean=False, allow_negative=True)
    if value is None:
        parser.raise_error("expected integer value", at)
    width = flag.bitwidth
    if versions.current().switch_signed_cases:
        if not -(2**63) <= value < 2**63:
            parser.raise_error("integer value too large", at, parser.pos)
        if width < 64 and not -(2 ** (width - 1)) <= value < 2 ** (width - 1):
            parser.raise_error(
                f"case value {value} does not fit the flag type '{flag}' as a signed "
                f"integer (Triton 3.2+ aborts on it)", at, parser.pos,
            )
    else:  # the low 64 bits, truncated to the flag's width
        if not -(2**63 - 1) <= value < 2**64:
            parser.raise_error("integer value too large", at, parser.pos)
        value %= 2**64
    if width == 0 or width > 64:
        parser.raise_error(
            f"cf.switch case values of {flag} (not a 1- to 64-bit integer) are not supported "
            "by ttopt: xDSL cannot store them", at, parser.pos,
        )
    return flag.normalized_value(value, truncate_bits=True)


def _switch_parse(cls, parser: Parser):
    """MLIR's ``cf.switch %flag : T, [default: ^bb(..), 42: ^bb(..), ...] attr-dict``."""
    flag_name = parser.parse_unresolved_operand()
    parser.parse_punctuation(":")
    at = parser.pos
    flag_type = parser.parse_type()
    if not isinstance(flag_type, IntegerType):
        parser.raise_error(
            "invalid kind of type specified: expected builtin.integer, but found "
            f"'{flag_type}'", at, parser.pos,
        )
    flag = parser.resolve_operand(flag_name, flag_type)
    parser.parse_punctuation(",")
    parser.parse_punctuation("[")
    parser.parse_keyword("default")
    parser.parse_punctuation(":")
    default_block, default_operands = _successor_and_uses(parser)
    values, blocks, operands, sizes = [], [], [], []
    while parser.parse_optional_punctuation(",") is not None:
        values.append(_case_value(parser, flag_type))
        parser.parse_punctuation(":")
        block, uses = _successor_and_uses(parser)
        blocks.append(block)
        operands.extend(uses)
        sizes.append(len(uses))
    parser.parse_punctuation("]")
    attrs = parser.parse_optional_attr_dict()
    props = {"case_operand_segments": i32_array(sizes)}
    if values:
        props["case_values"] = DenseIntOrFPElementsAttr.from_list(
            VectorType(flag_type, [len(values)]), values
        )
    return cls.build(
        operands=[flag, default_operands, operands],
        result_types=[],
        properties=props,
        attributes=attrs,
        successors=[default_block, blocks],
    )


def _signed(value: int, flag) -> int:
    """A case value as the release being written reads back the same bits: signed (up to
    64 bits), except ``-2**63``, which Triton 3.1 and before read only as ``2**63``."""
    width = getattr(flag, "bitwidth", 64)
    if 0 < width <= 64 and value >= 2 ** (width - 1):
        value -= 2**width
    if value == -(2**63) and not versions.current().switch_signed_cases:
        return 2**63
    return value


def _print_successor(printer: Printer, block, values) -> None:
    printer.print_block_name(block)
    if values:
        printer.print_string("(")
        printer.print_list(values, printer.print_operand)
        printer.print_string(" : ")
        printer.print_list([v.type for v in values], printer.print_attribute)
        printer.print_string(")")


def _switch_print(self, printer: Printer) -> None:
    """MLIR's layout (one case per line, ``]`` on its own line after cases), with the case
    values signed (module docstring)."""
    printer.print_string(" ")
    printer.print_operand(self.flag)
    printer.print_string(" : ")
    printer.print_attribute(self.flag.type)
    printer.print_string(", [")
    cases = switch_cases(self)
    with printer.indented():
        printer.print_string("\n")
        printer.print_string("default: ")
        _print_successor(printer, self.default_block, self.default_operands)
        for value, block, values in cases:
            printer.print_string(",\n")
            printer.print_string(f"{_signed(value, self.flag.type)}: ")
            _print_successor(printer, block, values)
    if cases:
        printer.print_string("\n")
    printer.print_string("]")
    if self.attributes:
        printer.print_op_attributes(self.attributes)


_WHY = "MLIR's Pure and successor operand rule (see ttopt.dialects.cf)"
ADAPTERS = {
    cls: adapt(cls, extra_traits=(Pure(),), rule=_branch_rule, why=_WHY)
    for cls in (BranchOp, ConditionalBranchOp)
}
ADAPTERS[AssertOp] = adapt(
    AssertOp,
    extra_traits=(MemoryWriteEffect(),),
    why="MLIR's write effect (see ttopt.dialects.cf)",
)
ADAPTERS[SwitchOp] = adapt(
    SwitchOp,
    rule=_switch_rule,
    replace_verify=True,  # (xDSL's wants one-dimensional case values; MLIR takes any shape)
    parse=classmethod(_switch_parse),
    print_=_switch_print,
    operands={"flag": TypeOfClass(IntegerType, "integer")},
    why="MLIR's AnyInteger flag, verifier, syntax and case values (see ttopt.dialects.cf)",
)

CF = Dialect("cf", list(ADAPTERS.values()), [])

__all__ = [
    "CF", "BranchOp", "ConditionalBranchOp", "AssertOp", "SwitchOp", "ADAPTERS",
    "switch_cases",
]
