"""``scf.for`` / ``scf.if`` / ``scf.while`` with MLIR's custom syntax, as Triton prints them.

Loops and ifs have the memory effects of their bodies (``RecursiveMemoryEffect``).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, i1
from xdsl.ir import Attribute, Dialect, Region
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator, Pure, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from .base import TritonOp, parse_operand_list, parse_type_list, print_types, resolve_all
from .constraints import ExactType, SignlessIntegerOrIndex, same
from .families import TypedReturnOp

I1 = ExactType(i1, "1-bit signless integer")


def _check_types(values, types, what: str) -> None:
    """``values`` (SSA values) have exactly ``types``; ``what`` describes the edge."""
    if len(values) != len(types):
        raise VerifyException(
            f"region control flow edge from {what}: source has {len(values)} operands, but "
            f"target successor needs "
            f"{len(types)}"
        )
    for i, (v, t) in enumerate(zip(values, types)):
        if not same(v.type, t):
            raise VerifyException(
                f"along control flow edge from {what}: source type #{i} '{v.type}' should "
                f"match input type #{i} '{t}'"
            )


def _terminator(region: Region, cls):
    """The terminator of ``region``'s only block if it is a ``cls``, else None."""
    blocks = region.blocks
    if len(blocks) != 1:
        return None
    last = blocks[0].last_op
    return last if isinstance(last, cls) else None


def _ensure_yield(region: Region) -> None:
    for block in region.blocks:
        last = block.last_op
        if last is None or not last.has_trait(IsTerminator):
            block.add_op(YieldOp.build([], []))


def _parse_assignments(parser: Parser):
    """``(%a = %x, %b = %y)``; returns (block args, init operands)."""
    args: list[Parser.UnresolvedArgument] = []
    inits: list[UnresolvedOperand] = []

    def one():
        args.append(parser.parse_argument(expect_type=False))
        parser.parse_punctuation("=")
        inits.append(parser.parse_unresolved_operand())

    parser.parse_comma_separated_list(parser.Delimiter.PAREN, one)
    return args, inits


def _print_assignments(printer: Printer, args, inits) -> None:
    printer.print_string("(")
    for i, (a, v) in enumerate(zip(args, inits)):
        if i:
            printer.print_string(", ")
        printer.print_ssa_value(a)
        printer.print_string(" = ")
        printer.print_ssa_value(v)
    printer.print_string(")")


@irdl_op_definition
class ForOp(TritonOp):
    name = "scf.for"
    lb = operand_def(SignlessIntegerOrIndex())
    ub = operand_def(SignlessIntegerOrIndex())
    step = operand_def(SignlessIntegerOrIndex())
    iter_args = var_operand_def()
    res = var_result_def()
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())

    def verify_(self) -> None:
        operands = self.operands
        bound = operands[0].type
        if not (same(operands[1].type, bound) and same(operands[2].type, bound)):
            raise VerifyException(
                "failed to verify that all of {lowerBound, upperBound, step} have same type"
            )
        inits, results = operands[3:], self.results
        if len(inits) != len(results):
            raise VerifyException("mismatch in number of loop-carried values and defined values")
        blocks = self.body.blocks
        if len(blocks) != 1:
            return  # (the region constraint reports it)
        args = blocks[0].args
        if not args or not same(args[0].type, bound):
            raise VerifyException(
                "expected induction variable to be same type as bounds and step"
            )
        if len(args) != 1 + len(results):
            raise VerifyException(
                f"expected {1 + len(results)} region arguments (the induction variable and "
                f"the loop-carried values), got {len(args)}"
            )
        for i, (init, arg, r) in enumerate(zip(inits, args[1:], results)):
            if not same(init.type, arg.type):
                raise VerifyException(
                    f"{i}-th init and {i}-th region iter_arg have different type: "
                    f"'{init.type}' != '{arg.type}'"
                )
            if not same(r.type, arg.type):
                raise VerifyException(
                    f"{i}-th region iter_arg and {i}-th result have different type: "
                    f"'{arg.type}' != '{r.type}'"
                )
        term = _terminator(self.body, YieldOp)
        if term is not None:
            _check_types(term.operands, [a.type for a in args[1:]], "Region #0 to Region #0")

    @classmethod
    def parse(cls, parser: Parser):
        indvar = parser.parse_argument(expect_type=False)
        parser.parse_punctuation("=")
        lb = parser.parse_unresolved_operand()
        parser.parse_keyword("to")
        ub = parser.parse_unresolved_operand()
        parser.parse_keyword("step")
        step = parser.parse_unresolved_operand()
        args, inits, types = [], [], []
        if parser.parse_optional_keyword("iter_args") is not None:
            args, inits = _parse_assignments(parser)
            parser.parse_punctuation("->")
            types = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_type
            )
        init_values = resolve_all(parser, inits, types)
        ivtype = parser.parse_type() if parser.parse_optional_punctuation(":") else IndexType()
        bounds = resolve_all(parser, [lb, ub, step], [ivtype] * 3)
        body = parser.parse_region(
            [indvar.resolve(ivtype), *(a.resolve(t) for a, t in zip(args, types))]
        )
        _ensure_yield(body)
        props, attrs = cls.parse_attr_dict(parser)
        return cls.build([*bounds, *init_values], types, props, attrs, [body])

    def print(self, printer: Printer):
        block = self.body.block
        indvar, *args = block.args
        printer.print_string(" ")
        printer.print_ssa_value(indvar)
        printer.print_string(" = ")
        printer.print_ssa_value(self.lb)
        printer.print_string(" to ")
        printer.print_ssa_value(self.ub)
        printer.print_string(" step ")
        printer.print_ssa_value(self.step)
        if args:
            printer.print_string(" iter_args")
            _print_assignments(printer, args, self.iter_args)
            printer.print_string(" -> (")
            print_types(printer, (a.type for a in args))
            printer.print_string(")")
        if not isinstance(indvar.type, IndexType):
            printer.print_string(" : ")
            printer.print_attribute(indvar.type)
        printer.print_string(" ")
        printer.print_region(
            self.body, print_entry_block_args=False, print_block_terminators=bool(args)
        )
        self.print_attr_dict(printer)


@irdl_op_definition
class IfOp(TritonOp):
    name = "scf.if"
    cond = operand_def(I1)
    output = var_result_def()
    true_region = region_def()
    false_region = region_def()
    traits = traits_def(RecursiveMemoryEffect())

    def verify_(self) -> None:
        types = [r.type for r in self.results]
        for i, region in enumerate(self.regions):
            if len(region.blocks) > 1:
                raise VerifyException(f"expects region #{i} to have 0 or 1 blocks")
        if types and not self.false_region.blocks:
            raise VerifyException("must have an else block if defining values")
        for i, region in enumerate(self.regions):
            term = _terminator(region, YieldOp)
            if term is not None:
                _check_types(term.operands, types, f"Region #{i} to parent results")

    @classmethod
    def parse(cls, parser: Parser):
        c = parser.parse_unresolved_operand()
        types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            types = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_type
            )
        cond = parser.resolve_operand(c, i1)
        then = parser.parse_region()
        _ensure_yield(then)
        other = Region()
        if parser.parse_optional_keyword("else") is not None:
            other = parser.parse_region()
            _ensure_yield(other)
        props, attrs = cls.parse_attr_dict(parser)
        return cls.build([cond], types, props, attrs, [then, other])

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.cond)
        if self.results:
            printer.print_string(" -> (")
            print_types(printer, self.result_types)
            printer.print_string(")")
        printer.print_string(" ")
        has_results = bool(self.results)
        printer.print_region(
            self.true_region, print_entry_block_args=False,
            print_block_terminators=has_results,
        )
        if self.false_region.blocks:
            printer.print_string(" else ")
            printer.print_region(
                self.false_region, print_entry_block_args=False,
                print_block_terminators=has_results,
            )
        self.print_attr_dict(printer)


@irdl_op_definition
class WhileOp(TritonOp):
    """``scf.while (%a = %x) : (T) -> (U) { before } do { after }``."""

    name = "scf.while"
    inits = var_operand_def()
    res = var_result_def()
    before_region = region_def()
    after_region = region_def()
    traits = traits_def(RecursiveMemoryEffect())

    def verify_(self) -> None:
        init_types = [v.type for v in self.operands]
        result_types = [r.type for r in self.results]
        before, after = self.before_region, self.after_region
        for i, region in enumerate((before, after)):
            if len(region.blocks) != 1:
                raise VerifyException(f"expects region #{i} to have 1 block")
        _check_types(
            before.blocks[0].args, init_types, "parent operands to Region #0"
        )
        cond = _terminator(before, ConditionOp)
        if cond is None:
            raise VerifyException("expects the 'before' region to terminate with 'scf.condition'")
        _check_types(cond.operands[1:], result_types, "Region #0 to parent results")
        _check_types(
            cond.operands[1:], [a.type for a in after.blocks[0].args], "Region #0 to Region #1"
        )
        term = _terminator(after, YieldOp)
        if term is not None:
            _check_types(term.operands, init_types, "Region #1 to Region #0")

    @classmethod
    def parse(cls, parser: Parser):
        args, inits = [], []
        if parser._current_token.text == "(":  # noqa: SLF001 (peek)
            args, inits = _parse_assignments(parser)
        parser.parse_punctuation(":")
        ft = parser.parse_function_type()
        in_types, out_types = list(ft.inputs.data), list(ft.outputs.data)
        init_values = resolve_all(parser, inits, in_types)
        before = parser.parse_region([a.resolve(t) for a, t in zip(args, in_types)])
        parser.parse_keyword("do")
        after = parser.parse_region()
        props, attrs = cls.parse_optional_attr_dict_with_keyword(parser)
        return cls.build(init_values, out_types, props, attrs, [before, after])

    @classmethod
    def parse_optional_attr_dict_with_keyword(cls, parser: Parser):
        if parser.parse_optional_keyword("attributes") is None:
            return {}, {}
        return cls.parse_attr_dict(parser)

    def print(self, printer: Printer):
        printer.print_string(" ")
        _print_assignments(printer, self.before_region.block.args, self.inits)
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)
        printer.print_string(" ")
        printer.print_region(self.before_region, print_entry_block_args=False)
        printer.print_string(" do ")
        printer.print_region(self.after_region)
        merged = {**self.properties, **self.attributes}
        if merged:
            printer.print_string(" attributes")
            self.print_attr_dict(printer)


# the terminators come after the ops they may end (their HasParent names them)
@irdl_op_definition
class YieldOp(TypedReturnOp):
    name = "scf.yield"
    traits = traits_def(Pure(), IsTerminator(), HasParent(ForOp, IfOp, WhileOp))


@irdl_op_definition
class ConditionOp(TritonOp):
    """``scf.condition(%c) %args : types``."""

    name = "scf.condition"
    condition = operand_def(I1)
    args = var_operand_def()
    traits = traits_def(Pure(), IsTerminator(), HasParent(WhileOp))

    @classmethod
    def parse(cls, parser: Parser):
        parser.parse_punctuation("(")
        c = parser.parse_unresolved_operand()
        parser.parse_punctuation(")")
        props, attrs = cls.parse_attr_dict(parser)
        operands = parse_operand_list(parser)
        types: list[Attribute] = []
        if operands:
            parser.parse_punctuation(":")
            types = parse_type_list(parser)
        values = resolve_all(parser, [c, *operands], [i1, *types])
        return cls.build(values, [], props, attrs)

    def print(self, printer: Printer):
        printer.print_string("(")
        printer.print_ssa_value(self.condition)
        printer.print_string(")")
        self.print_attr_dict(printer)
        if self.args:
            printer.print_string(" ")
            printer.print_list(self.args, printer.print_ssa_value)
            printer.print_string(" : ")
            print_types(printer, (a.type for a in self.args))


SCF = Dialect("scf", [ForOp, IfOp, WhileOp, YieldOp, ConditionOp], [])
