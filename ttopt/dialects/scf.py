"""``scf`` as Triton uses it: xDSL's own ``scf`` op classes.

xDSL's ``scf.for``, ``scf.if``, ``scf.while``, ``scf.yield`` and ``scf.condition`` (the ``scf``
ops Triton emits) and ``scf.execute_region`` (which every Triton release reads) read and
print Triton's text byte for byte (every ``scf``-bearing file of the corpus and the fixtures
round-trips), take ``i32`` loop bounds as Triton writes them, and have MLIR's memory
effects: ``for``, ``if``, ``while`` and ``execute_region`` carry ``RecursiveMemoryEffect``
(as pure as their bodies, which ttopt's effect analysis relies on), ``yield`` and
``condition`` are ``Pure``.  This module exports xDSL's classes themselves: ttopt's passes
name them, so they see ``scf`` ops under ``xdsl-opt`` too.

* **as it is**: ``YieldOp`` (``scf.yield``).
* **behind the adapter** of :mod:`ttopt.dialects.upstream` (a subclass with no IRDL
  definition of its own, ``isinstance`` of xDSL's class, registered in ttopt's context only;
  MLIR's constraints: ``signless integer or index`` bounds, an ``i1`` condition):

  - ``ConditionOp``: for MLIR's constraint only;
  - ``ForOp``, ``IfOp``, ``WhileOp``: ``verify_`` checks MLIR's rules, in MLIR's words, in
    place of xDSL's own, which accepts what Triton rejects (``scf.for`` results that are not
    its loop-carried types, ``scf.if`` results without an ``else``, ``scf.yield`` values of
    the wrong types, ``scf.while`` edges) and, for ``scf.while``, raises a plain
    ``Exception`` (or an ``IndexError``) on a malformed loop.  ``SingleBlockImplicitTerminator``
    is checked by the rules too, in MLIR's words;
  - ``ForOp.parse``: xDSL's, except that a body ending in another terminator is left to the
    verifier (xDSL's parser raises, and the error pointed at the op after the loop), and
    MLIR's ``scf.for unsigned`` (Triton 3.5+): the ``unsignedCmp`` property, which xDSL 0.74's
    ``scf.for`` lacks (``ForOp.print`` writes it back); a pass that reasons about
    ``lb < ub`` asks :func:`is_unsigned` first;
  - ``ExecuteRegionOp``: MLIR's syntax (xDSL 0.74's drops the attribute dictionary, prints
    ``-> (T)`` and leaves out the ``scf.yield`` of a region without results, which MLIR does
    not make up), ``no_inline`` (Triton 3.5+), MLIR's verifier and its region edges, and
    ``RecursiveMemoryEffect`` (xDSL's declares no effect: a writer for ttopt);
  - ``WhileOp.print``: xDSL 0.74's prints the op's location in the middle of the op
    (``scf.while (%a = %x) : (i32) -> i32 loc(#loc) {``), which Triton rejects.
"""

from __future__ import annotations

from xdsl.dialects import scf as _x
from xdsl.dialects.builtin import FunctionType, IndexType, UnitAttr, i1
from xdsl.dialects.utils import parse_assignment
from xdsl.ir import Dialect, Operation, Region
from xdsl.irdl import OptPropertyDef, base
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.printer import Printer
from xdsl.traits import (
    HasCanonicalizationPatternsTrait,
    IsTerminator,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
)
from xdsl.utils.exceptions import VerifyException

from ..ir.lexer import SKIP
from . import versions
from .constraints import in_releases, same
from .upstream import adapt, register_verify

ForOp = _x.ForOp
IfOp = _x.IfOp
WhileOp = _x.WhileOp
YieldOp = _x.YieldOp
ConditionOp = _x.ConditionOp
ExecuteRegionOp = _x.ExecuteRegionOp

UNSIGNED_CMP = "unsignedCmp"
"""``scf.for``'s MLIR property (a unit attribute): the bounds and the step compare as
unsigned integers (``scf.for unsigned``, Triton 3.5+)."""
NO_INLINE = "no_inline"
"""``scf.execute_region``'s MLIR property (a unit attribute, Triton 3.5+)."""


def is_unsigned(loop: Operation) -> bool:
    """Does ``loop`` (an ``scf.for``) compare its bounds as unsigned integers?  The property
    (``scf.for unsigned``, ``<{unsignedCmp}>``) or, in a text of any release, the attribute
    ``{unsignedCmp}`` (what Triton 3.5+ reads as the property; before, a discardable
    attribute that changes nothing: taking it as unsigned is the cautious side)."""
    return UNSIGNED_CMP in loop.properties or UNSIGNED_CMP in loop.attributes


def _check_types(values, types, what: str) -> None:
    """``values`` (SSA values) have exactly ``types``; ``what`` describes the edge."""
    if len(values) != len(types):
        raise VerifyException(
            f"region control flow edge from {what}: source has {len(values)} operands, but "
            f"target successor needs {len(types)}"
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


def _yield_terminated(op: Operation) -> None:
    """MLIR's ``SingleBlockImplicitTerminator<"scf::YieldOp">``: a block that ends in a
    terminator ends in ``scf.yield`` (a block without one is the walker's to report)."""
    for region in op.regions:
        for block in region.blocks:
            last = block.last_op
            if (
                last is not None
                and not isinstance(last, YieldOp)
                and last.has_trait(IsTerminator)
            ):
                raise VerifyException(
                    f"expects regions to end with 'scf.yield', found '{last.name}'"
                )


def _for_rule(op: Operation) -> None:
    """MLIR's ``scf.for`` verifier."""
    _yield_terminated(op)
    operands = op.operands
    bound = operands[0].type
    if not (same(operands[1].type, bound) and same(operands[2].type, bound)):
        raise VerifyException(
            "failed to verify that all of {lowerBound, upperBound, step} have same type"
        )
    inits, results = operands[3:], op.results
    if len(inits) != len(results):
        raise VerifyException("mismatch in number of loop-carried values and defined values")
    blocks = op.regions[0].blocks
    if len(blocks) != 1:
        return  # (the region constraint reports it)
    args = blocks[0].args
    if not args or not same(args[0].type, bound):
        raise VerifyException("expected induction variable to be same type as bounds and step")
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
    term = _terminator(op.regions[0], YieldOp)
    if term is not None:
        _check_types(term.operands, [a.type for a in args[1:]], "Region #0 to Region #0")


def _if_rule(op: Operation) -> None:
    """MLIR's ``scf.if`` verifier."""
    types = [r.type for r in op.results]
    _yield_terminated(op)
    for i, region in enumerate(op.regions):
        if len(region.blocks) > 1:
            raise VerifyException(f"expects region #{i} to have 0 or 1 blocks")
    if types and not op.regions[1].blocks:
        raise VerifyException("must have an else block if defining values")
    for i, region in enumerate(op.regions):
        term = _terminator(region, YieldOp)
        if term is not None:
            _check_types(term.operands, types, f"Region #{i} to parent results")


def _while_rule(op: Operation) -> None:
    """MLIR's ``scf.while`` verifier (``RegionBranchOpInterface`` edges)."""
    init_types = [v.type for v in op.operands]
    result_types = [r.type for r in op.results]
    before, after = op.regions
    for i, region in enumerate((before, after)):
        if len(region.blocks) != 1:
            raise VerifyException(f"expects region #{i} to have 1 block")
    _check_types(before.blocks[0].args, init_types, "parent operands to Region #0")
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


def _parse_for_header(parser: Parser):
    """``%i = %lb to %ub step %s (iter_args(%a = %x, ...) -> (T, ...))? (: T)?``, as xDSL's
    ``ForOp.parse`` reads it."""
    unresolved_indvar = parser.parse_argument(expect_type=False)
    parser.parse_punctuation("=")
    lb = parser.parse_unresolved_operand()
    parser.parse_keyword("to")
    ub = parser.parse_unresolved_operand()
    parser.parse_keyword("step")
    step = parser.parse_unresolved_operand()

    pos = parser.pos
    unresolved_iter_args: list[Parser.UnresolvedArgument] = []
    iter_arg_unresolved_operands: list[UnresolvedOperand] = []
    iter_arg_types = []
    if parser.parse_optional_keyword("iter_args"):
        for iter_arg, iter_arg_operand in parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, lambda: parse_assignment(parser)
        ):
            unresolved_iter_args.append(iter_arg)
            iter_arg_unresolved_operands.append(iter_arg_operand)
        parser.parse_punctuation("->")
        iter_arg_types = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, parser.parse_attribute
        )

    iter_arg_operands = parser.resolve_operands(iter_arg_unresolved_operands, iter_arg_types, pos)
    iter_args = [arg.resolve(typ) for arg, typ in zip(unresolved_iter_args, iter_arg_types)]
    indvar_type = parser.parse_type() if parser.parse_optional_punctuation(":") else IndexType()
    resolved_lb = parser.resolve_operand(lb, indvar_type)
    resolved_ub = parser.resolve_operand(ub, indvar_type)
    resolved_step = parser.resolve_operand(step, indvar_type)
    indvar = unresolved_indvar.resolve(indvar_type)
    return indvar, resolved_lb, resolved_ub, resolved_step, iter_arg_operands, iter_args


def _for_parse(cls, parser: Parser):
    """xDSL's ``ForOp.parse``, ending as MLIR's parser does (``ensureTerminator``): a body
    block that does not end in a terminator gets an ``scf.yield``, one that ends in another
    terminator is left to the verifier (xDSL's raises from inside the parser, which reported
    the error at the op *after* the loop).  Also MLIR's ``unsigned`` keyword before the
    induction variable (Triton 3.5+, the ``unsignedCmp`` property), which xDSL 0.74 lacks;
    a 3.5+ text's ``{unsignedCmp}`` after the body is that property too, as MLIR reads it."""
    at = parser.pos
    unsigned = parser.parse_optional_keyword("unsigned") is not None
    if unsigned and not versions.current().for_unsigned:  # (MLIR before 3.5: not a value)
        parser.raise_error("expected SSA operand", at, parser.pos)
    # ttopt's reader matches the common one-line header directly (ttopt.ir.fast_ops)
    fast = getattr(parser, "parse_fast_for_header", None)
    header = (fast() if fast is not None else None) or _parse_for_header(parser)
    indvar, resolved_lb, resolved_ub, resolved_step, iter_arg_operands, iter_args = header
    body = parser.parse_region((indvar, *iter_args))
    attrs = parser.parse_optional_attr_dict()

    # (ForOp's constructor, as the generic form makes it: the same op in half the time)
    for_op = cls.create(operands=[resolved_lb, resolved_ub, resolved_step, *iter_arg_operands],
                        result_types=[v.type for v in iter_arg_operands], regions=[body])
    if UNSIGNED_CMP in attrs and versions.current().for_unsigned:
        if unsigned:
            _duplicate(parser, "scf.for", UNSIGNED_CMP, at)
        attrs = dict(attrs)
        for_op.properties[UNSIGNED_CMP] = attrs.pop(UNSIGNED_CMP)
    if unsigned:
        for_op.properties[UNSIGNED_CMP] = UnitAttr()
    for_op.attributes |= attrs
    for block in for_op.body.blocks:  # MLIR's ensureTerminator (an `scf.yield` of no value
        last = block.last_op          # where the loop carries some: the verifier's to refuse)
        if last is None or not last.has_trait(IsTerminator, value_if_unregistered=False):
            block.add_op(YieldOp.create())
    return for_op


def _duplicate(parser: Parser, name: str, prop: str, after_name: int) -> None:
    """MLIR's parse error for a unit property given both by its keyword and in the attribute
    dictionary, at the op (its name ``name``; ``after_name``: its next token's offset)."""
    text = parser.lexer.input.content
    at = i = after_name
    while (i := text.rfind(name, 0, i)) >= 0:  # (only blanks and comments in between)
        line = text.rfind("\n", 0, i) + 1
        if SKIP.match(text, i + len(name)).end() == after_name and "//" not in text[line:i]:
            at = i
            break
    parser.raise_error(f"custom op '{name}' attribute '{prop}' occurs more than once in the "
                       "attribute list", at, at + len(name))


class _SignedLoopsOnly(RewritePattern):
    """One of xDSL's ``scf.for`` canonicalization patterns, on loops that compare signed
    only: xDSL 0.74's reason about the bounds as signed integers (``SimplifyTrivialLoops``
    erased ``scf.for unsigned %i = %c4 to %m1``, which runs 2**32 - 5 times)."""

    def __init__(self, pattern: RewritePattern):
        self.pattern = pattern

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not is_unsigned(op):
            self.pattern.match_and_rewrite(op, rewriter)


class _ForCanonicalization(HasCanonicalizationPatternsTrait):
    """xDSL's ``scf.for`` patterns (``xdsl-opt``'s and ``ttopt-opt -p canonicalize``'s), never
    on an unsigned loop."""

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        xdsl = _x.ForOpHasCanonicalizationPatternsTrait.get_canonicalization_patterns()
        return tuple(_SignedLoopsOnly(p) for p in xdsl)


def _for_print(self, printer: Printer) -> None:
    """xDSL's ``ForOp.print``, with MLIR's ``unsigned`` keyword for the ``unsignedCmp``
    property (xDSL 0.74's has no such property: it would drop it)."""
    if UNSIGNED_CMP in self.properties:
        printer.print_string(" unsigned")
    _x.ForOp.print(self, printer)


# ----------------------------------------------------------------------------- execute_region
def _execute_region_rule(op: Operation) -> None:
    """MLIR's ``scf.execute_region`` verifier and its ``RegionBranchOpInterface`` edges from
    each ``scf.yield`` to the op's results, in Triton 3.6's words."""
    region = op.regions[0]
    blocks = region.blocks
    if not blocks:
        raise VerifyException("region needs to have at least one block")
    if blocks.first.args:
        raise VerifyException("region cannot have any arguments")
    yields = [b.last_op for b in blocks if isinstance(b.last_op, YieldOp)]
    if not yields:
        return
    first = [v.type for v in yields[0].operands]
    for other in yields[1:]:
        types = [v.type for v in other.operands]
        if len(types) != len(first) or not all(same(a, b) for a, b in zip(first, types)):
            raise VerifyException(
                "along control flow edgefrom Region #0 to parent results operands mismatch "
                "between return-like terminators"
            )
    _check_types(yields[0].operands, [r.type for r in op.results], "Region #0 to parent results")


def _execute_region_parse(cls, parser: Parser):
    """MLIR's ``ExecuteRegionOp::parse``: ``(-> type-list)? no_inline? region attr-dict``.
    xDSL 0.74's drops the attribute dictionary and knows no ``no_inline``.  No terminator
    is made up: MLIR's op has no implicit one (a block without ``scf.yield`` is an error)."""
    types: list = []
    after_name = parser.pos
    if parser.parse_optional_punctuation("->") is not None:
        listed = parser.parse_optional_comma_separated_list(
            Parser.Delimiter.PAREN, parser.parse_type
        )
        types = list(listed) if listed is not None else [parser.parse_type()]
    props: dict = {}
    at = parser.pos
    if parser.parse_optional_keyword(NO_INLINE) is not None:
        if not versions.current().no_inline:  # (MLIR before 3.5: the region must follow)
            parser.raise_error("expected '{' to begin a region", at, parser.pos)
        props[NO_INLINE] = UnitAttr()
    region = parser.parse_region()
    attrs = dict(parser.parse_optional_attr_dict())
    if NO_INLINE in attrs and versions.current().no_inline:
        if props:
            _duplicate(parser, "scf.execute_region", NO_INLINE, after_name)
        props[NO_INLINE] = attrs.pop(NO_INLINE)
    return cls.build(result_types=types, properties=props, attributes=attrs, regions=[region])


def _execute_region_print(self, printer: Printer) -> None:
    """MLIR's ``ExecuteRegionOp::print``: ``-> T`` (``-> (T, U)`` for several results),
    ``no_inline``, the region with every terminator (xDSL 0.74's leaves the ``scf.yield``
    of a result-less region out, and MLIR makes none up), the attribute dictionary."""
    types = self.result_types
    if types:
        printer.print_string(" -> ")
        if len(types) == 1 and not isinstance(types[0], FunctionType):
            printer.print_attribute(types[0])
        else:
            printer.print_string("(")
            printer.print_list(types, printer.print_attribute)
            printer.print_string(")")
    if NO_INLINE in self.properties:
        printer.print_string(" " + NO_INLINE)
    printer.print_string(" ")
    printer.print_region(self.regions[0], print_entry_block_args=False, print_block_terminators=True)
    if self.attributes:
        printer.print_op_attributes(self.attributes)


def _if_parse(cls, parser: Parser):
    """xDSL's, with MLIR's result list: ``-> f32`` as well as ``-> (f32, i32)`` (xDSL 0.74
    takes the parenthesized form only; Triton reads both)."""
    cond = parser.parse_operand(i1)
    return_types = []
    if parser.parse_optional_punctuation("->"):
        found = parser.parse_optional_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        return_types = [parser.parse_type()] if found is None else found
    then_region = _x.IfOp.parse_region_with_yield(parser)
    else_region = (_x.IfOp.parse_region_with_yield(parser)
                   if parser.parse_optional_keyword("else") else Region())
    attr_dict = parser.parse_optional_attr_dict()
    return cls(cond, return_types, then_region, else_region, attr_dict)


def _while_print(self, printer: Printer) -> None:
    """xDSL's ``WhileOp.print``, with the function type printed as one: xDSL's prints it
    with ``print_operation_type``, which adds the op's location when locations are printed
    (``scf.while (%a = %x) : (i32) -> i32 loc(#loc) {``, which Triton rejects)."""
    printer.print_string(" (")

    def assignment(pair) -> None:
        printer.print_ssa_value(pair[0])
        printer.print_string(" = ")
        printer.print_ssa_value(pair[1])

    printer.print_list(zip(self.before_region.block.args, self.arguments, strict=True), assignment)
    printer.print_string(") : ")
    printer.print_function_type(self.operand_types, self.result_types)
    printer.print_string(" ")
    printer.print_region(self.before_region, print_entry_block_args=False)
    printer.print_string(" do ")
    printer.print_region(self.after_region)
    if self.attributes:
        printer.print_op_attributes(self.attributes, print_keyword=True)


_WHY = "MLIR's verifier in place of xDSL's (see module doc)"
ADAPTERS = {
    ForOp: adapt(
        ForOp,
        rule=_for_rule,
        replace_verify=True,
        parse=classmethod(_for_parse),
        print_=_for_print,
        verify_without=(SingleBlockImplicitTerminator,),
        properties={UNSIGNED_CMP: OptPropertyDef(in_releases(UnitAttr, (3, 5)))},
        extra_traits=(_ForCanonicalization(),),
        drop_traits=(_x.ForOpHasCanonicalizationPatternsTrait,),
        why=_WHY + "; MLIR's parse-time terminator; MLIR's `unsigned` (unsignedCmp)",
    ),
    IfOp: adapt(
        IfOp,
        rule=_if_rule,
        parse=classmethod(_if_parse),
        replace_verify=True,
        verify_without=(SingleBlockImplicitTerminator,),
        why=_WHY,
    ),
    WhileOp: adapt(
        WhileOp,
        rule=_while_rule,
        replace_verify=True,
        print_=_while_print,
        why=_WHY + "; a print Triton reads (no location inside)",
    ),
    ConditionOp: adapt(ConditionOp),
    ExecuteRegionOp: adapt(
        ExecuteRegionOp,
        extra_traits=(RecursiveMemoryEffect(),),
        rule=_execute_region_rule,
        replace_verify=True,
        parse=classmethod(_execute_region_parse),
        print_=_execute_region_print,
        properties={NO_INLINE: OptPropertyDef(base(UnitAttr))},
        why="MLIR's syntax (attribute dictionary, no_inline, terminators), verifier and "
        "RecursiveMemoryEffect",
    ),
}
register_verify(YieldOp)

SCF = Dialect("scf", [*ADAPTERS.values(), YieldOp], [])
