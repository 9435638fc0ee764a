"""Verify a parsed module as Triton 3.6's verifier does, in one linear walk.

What is checked (the rules themselves live with the ops, in :mod:`ttopt.dialects`):

* **IRDL constraints** of each op definition: operand/result types (``operand_def(FloatLike())``
  ...), required properties and their constraints, single-block regions, and the op's traits
  (``TensorSizeTrait`` of ``tt`` ops, ``tt.call``'s symbol use ...);
* each op's own ``verify_`` (``.td`` rules: same types, shapes, function results, loop-carried
  values ...);
* **structure**: a block ends in a terminator (except in a ``builtin.module``), a terminator is
  the last op of its block, ``HasParent`` traits, unique symbol names in a symbol table;
* **dominance** (xDSL's ``verify()`` does not check it): an operand is defined before its use
  in the same block, or in an enclosing block before the op holding the use, or is an argument
  of such a block; values never cross an ``IsolatedFromAbove`` op (``tt.func``).  The walk
  numbers the blocks it is in and notes each value's block as it passes its definition: one
  dictionary operation per operand and result.  For a module just read
  (:func:`verify_parsed`) there is no such walk: the parser names values in scopes (a value
  of a sibling region or another function is already an error), so what is left are the
  operands it saw *before* their definition, which it records (``ParseFacts``).

xDSL's ``Operation.verify()`` checks the same op rules (it calls each op's ``verify_``, which
``irdl_op_definition`` wraps with the IRDL checks), but it costs about a fifth of the parse
time; this walker runs the IRDL part from a plan compiled once per op class, for ops parsed in
custom form (whose operand/result/region *counts* their parser guarantees), and xDSL's full
``OpDef.verify`` for ops written in generic form (except that a property the op does not
define is not an error: MLIR ignores it, and ttopt does not model every property of Triton's
ops).  Pass ``xdsl=True`` to also run xDSL's own ``verify()`` (the tests do: both must agree).

* **layouts in their module** (Triton's ``verifyTensorLayouts``, 2.2+): each tensor operand
  and result of a ``tt``/``ttg`` op has a layout of its rank, and of the module's threads per
  warp, warps per CTA and CTAs per CGA (:class:`ttopt.dialects.layouts.ModuleLayouts`: one
  dictionary lookup per operand and result, each type judged once).  The layouts themselves
  are checked as they are read (:class:`ttopt.dialects.layouts.LayoutAttr`).

Like MLIR, a dominance error is reported only when nothing else is wrong.  The error names the
op as MLIR does (``'tt.load' op ...``, or without the prefix where MLIR's rule says none:
:class:`~ttopt.dialects.base.PlainVerifyException`) and points at the op's name in the input
(where MLIR locates an op: ``%0 = tt.load`` at ``tt.load``).
"""

from __future__ import annotations

import io
import re
from operator import attrgetter
from collections.abc import Callable
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import (
    ArrayAttr, DenseArrayBase, DictionaryAttr, FloatAttr, IntegerAttr, ModuleOp, StringAttr, UnitAttr, f64,
    i1, i32, i64,
)
from xdsl.ir import Block, BlockArgument, Operation
from xdsl.irdl import IRDLOperation
from xdsl.irdl.constraints import (
    AllOf, AnyAttr, AnyOf, BaseAttr, EqAttrConstraint, ParamAttrConstraint, VarConstraint,
    VerificationContext,
)
from xdsl.irdl.operations import (
    AttrSizedSegments,
    OptionalDef,
    SingleBlockRegionDef,
    VariadicDef,
)
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    NoTerminator,
    OpTrait,
    ReturnLike,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.interfaces import ConditionallySpeculatableInterface, HasFolderInterface
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from ..dialects import versions
from ..dialects.constraints import forget_equalities_and_shapes
from ..dialects.layouts import forget_layout_verdicts
from ..dialects.traits import TensorSizeTrait
from ..dialects.base import OWN_VERIFY, PlainVerifyException
from ..dialects.layouts import ModuleLayouts, Reading, reading_span
from ..xdsl_compat import TypedStringAttr, operand_tuple
from ..dialects.families import SameTypeOp
from ..dialects.tt import segment_sizes
from ..dialects.constraints import I32Cases, I32Enum, InReleases, TypeKind
from ..errors import TTOptError, TTOptInternalError, line_col
from .lexer import SKIP, STRING_LITERAL, string_value

if TYPE_CHECKING:
    from .reader import TritonModule

__all__ = [
    "verify_module", "verify_parsed", "ParseFacts", "VerificationFailure", "properties_error",
    "forget_types",
]


class VerificationFailure(Exception):
    """Internal: unwinds the walk at the first failing op."""

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op = op
        self.message = message


def verify_module(mod: TritonModule, xdsl: bool = False) -> None:
    """Raise :class:`TTOptError` (``FILE:LINE:COL``, the offending op's position in the input)
    if ``mod`` breaks a rule Triton's verifier enforces; ``xdsl=True`` also runs xDSL's own
    ``verify()`` (slow; for tests).  A bug in a rule is a :class:`TTOptInternalError`.

    Every rule is checked, whatever happened to ``mod`` since it was read (a pass may have
    changed it), as Triton ``mod.triton_version`` checks it.  ``read_module`` verifies what
    it reads through :func:`verify_parsed`."""
    release = getattr(mod, "triton_version", None) or versions.current().release
    _guarded(mod, lambda: _verify(mod, xdsl, release=release))


def verify_parsed(mod: TritonModule, parsed: ParseFacts) -> None:
    """``verify_module`` for a module just read, with what the parser learnt on the way:
    the operands it saw before their definition (in Triton's single-block regions, exactly
    the uses their definition does not dominate: no dominance walk needed).  It is called
    while the text is read (the release read is ``versions.current()``)."""
    release = versions.current().release
    _guarded(mod, lambda: _verify(mod, False, parsed, release))


def forget_types() -> None:
    """Forget what the checks keep of types by object (TensorSizeTrait's verdicts, the
    equalities and shapes of ttopt.dialects.constraints, the layouts' verdicts): their
    ids keep them alive, and they are worth keeping only while modules share type objects,
    which ``ttopt.ir.reader.clear_shared_types`` ends.  (Safe at any time: the next check of
    a type works its answer out again.)"""
    TensorSizeTrait.forget_types()
    forget_equalities_and_shapes()
    forget_layout_verdicts()


class ParseFacts:
    """What the reader records for :func:`verify_parsed`: each operand (op, index) that
    named a value before its definition (the parser resolved it when the definition came)."""

    __slots__ = ("forward_uses", "layouts")

    def __init__(self):
        self.forward_uses: list[tuple[Operation, int]] = []
        # the layouts read (ttopt.dialects.layouts.Reading: their analyses, and the releases
        # the text may come from), set by the first layout the parser reads
        self.layouts: Reading | None = None


def _guarded(mod: TritonModule, run: Callable[[], None]) -> None:
    try:
        run()
    except VerificationFailure as f:
        raise _located(mod, f.op, f.message) from None
    except RecursionError:
        raise TTOptError("input nested too deeply", mod.filename) from None
    except TTOptError:
        raise
    except Exception as e:  # a bug in a rule: never a traceback
        raise TTOptInternalError("verifying", e, mod.filename) from e


def _verify(mod: TritonModule, xdsl: bool, parsed: ParseFacts | None = None,
            release: tuple[int, int] = versions.DEFAULT) -> None:
    reading = parsed.layouts if parsed is not None else None
    with versions.checking(release, _within(mod, _span_of(mod, release, reading))):
        if mod.generic_ops:
            _generic_properties(mod, release)
        walker = _Walker(mod.generic_ops, dominance=parsed is None,
                         layouts=_layouts(mod, release, reading))
        walker.run(mod.op)
        if parsed is not None and parsed.forward_uses:
            _report_forward_uses(mod, parsed.forward_uses)
        if walker.multi_block:
            _cfg_dominance(walker.multi_block)
        if xdsl:
            _run_xdsl_verify(mod.op)


def _span_of(mod: TritonModule, release: tuple[int, int], reading: Reading | None):
    """How to tell the releases ``mod``'s text may come from (asked only by a rule that
    some of them break): what the reader knew (its layouts' reading), else the signs of
    the text read as ``release`` (:func:`reading_span`), less the releases that lack an op
    it uses (:func:`versions.narrowed`)."""
    source = mod.source
    if reading is not None and reading.release == release:
        of = reading.span
    elif source:
        of = lambda: reading_span(source, release)  # noqa: E731
    else:
        return None
    return (lambda: versions.narrowed(of(), source)) if source else of


def _within(mod: TritonModule, span_of):
    """``span_of`` within the releases the reader took the text to be from (one where it was
    told which: ``--triton-version``); those alone where they share none."""
    told = getattr(mod, "triton_span", None)
    if told is None:
        return span_of

    def span():
        low, high = span_of() if span_of is not None else told
        low, high = max(low, told[0]), min(high, told[1])
        return (low, high) if low <= high else told

    return span


def _layouts(mod: TritonModule, release: tuple[int, int],
             reading: Reading | None = None) -> ModuleLayouts | None:
    """The layout checks of ``mod`` (None: none to do: Triton 2.1, or a TTIR text);
    ``reading``: what the parser learnt of the layouts it read."""
    if not ModuleLayouts.applies(release):
        return None
    source = mod.source
    if source and "#ttg." not in source and "#triton_gpu." not in source:
        return None  # (no layout anywhere: nothing to check)
    if reading is None or reading.release != release:
        # (outside a read, or no layout parsed: the releases the text's signs allow)
        span_of = (lambda: reading_span(source, release)) if source else None
        reading = Reading(release, mod.attr_aliases.get, span_of)
    return ModuleLayouts(mod.op, reading)


def _check_isolation(op: Operation) -> None:
    """MLIR's ``IsolatedFromAbove`` rule on ``op`` (checked once its regions' ops are, as
    MLIR checks a region invariant): each op in one of its regions, the regions of nested
    ops that are not isolated themselves included, takes only values defined in that region
    (MLIR's order: a region's ops, then the regions they hold, last found first).  The
    parser resolves a name defined outside as MLIR's does (a function's region is no
    isolated name scope), so this is where such a use is refused."""
    for region in op.regions:
        inside = {id(a) for block in region.blocks for a in block.args}
        for nested in region.walk():
            inside.update(id(r) for r in nested.results)
            for r in nested.regions:
                inside.update(id(a) for block in r.blocks for a in block.args)
        pending = [region]
        while pending:
            for block in pending.pop().blocks:  # (a function of several blocks; none: a
                for user in block.ops:          # declaration)
                    for value in operand_tuple(user):
                        if id(value) not in inside:
                            raise VerificationFailure(
                                user, f"'{_spelled(user)}' op using value defined outside the region"
                            )
                    if user.regions and not user.has_trait(IsolatedFromAbove):
                        pending.extend(user.regions)


def _report_forward_uses(mod: TritonModule, uses: list[tuple[Operation, int]]) -> None:
    """The first operand (in the input) that the parser saw before its value's definition:
    in a single-block region, a use its definition does not dominate (what MLIR checks
    last, after every other rule)."""
    offsets = mod.offsets
    for op, index in sorted(uses, key=lambda u: (offsets.get(u[0], -1), u[1])):
        if op.parent is None:  # (an op the parser made and dropped)
            continue
        if not _defined_in_multi_block_ancestor(op.operands[index], op):
            raise VerificationFailure(
                op, f"operand #{index} does not dominate this use"
            )


def _run_xdsl_verify(top: Operation) -> None:
    """xDSL's ``Operation.verify()``; its error, with the failing op found again by walking
    (xDSL attaches a print of the whole module, not the op)."""
    try:
        top.verify()
    except VerifyException as e:
        failing = next((o for o in top.walk() if _fails(o)), top)
        raise VerificationFailure(failing, f"'{_spelled(failing)}' op {e.args[0]}") from None


def _fails(op: Operation) -> bool:
    try:
        op.verify(verify_nested_ops=False)
    except Exception:
        return True
    return False


def _located(mod: TritonModule, op: Operation, message: str) -> TTOptError:
    """The error at ``op``'s offset in the input (or its nearest ancestor's: ops a parser
    makes up, such as an implicit ``scf.yield``, have none)."""
    offsets = mod.offsets
    at: Operation | None = op
    while at is not None and at not in offsets:
        at = at.parent_op()
    if at is None or not mod.source:
        return TTOptError(message, mod.filename)
    ln, col = line_col(mod.source, op_name_offset(mod.source, offsets[at]))
    return TTOptError(message, mod.filename, ln, col)


# an op's result list (`%0 = `, `%a, %b = `, `%x:2 = `, blanks and comments between tokens)
_SUFFIX = r"(?:[0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*)"  # (MLIR's suffix-id)
_RESULT_LIST = re.compile(
    rf"%{_SUFFIX}(?:{SKIP.pattern}:{SKIP.pattern}[0-9]+)?"
    rf"(?:{SKIP.pattern},{SKIP.pattern}%{_SUFFIX}(?:{SKIP.pattern}:{SKIP.pattern}[0-9]+)?)*"
    rf"{SKIP.pattern}={SKIP.pattern}"
)


def op_name_offset(text: str, start: int) -> int:
    """The offset of the name of the op that starts at ``start`` in ``text`` (past its result
    list): where MLIR locates the op, so where Triton's verifier reports its errors."""
    if text.startswith("%", start):
        m = _RESULT_LIST.match(text, start)
        if m is not None:
            return m.end()
    return start


# ------------------------------------------------------------- properties in generic form
# MLIR reads an op's properties dictionary (`"tt.splat"(%x) <{...}> : ...`) as it makes the op,
# before any verification: an op that has no properties refuses one, even `<{}>`
# ("invalid properties {} for op tt.splat: this operation does not support properties", at
# the op's name); an op that has some ignores the names it does not define.  Which ops have
# none, in which releases: versions.NO_PROPERTIES_UNTIL.

# the text of a generic op from its first result to its operand list's end: the name's
# offset is group 1's
_GENERIC_HEAD = re.compile(
    r'(?:%[^\s=,:"]+(?::\d+)?\s*(?:,\s*%[^\s=,:"]+(?::\d+)?\s*)*=\s*)?'
    r'("(?:[^"\\\n]|\\.)*")\s*\(\s*(?:%[^\s,()]+\s*(?:,\s*%[^\s,()]+\s*)*)?\)'
)
_HEX = re.compile(r"0x([0-9a-f]+)")
_NAME = re.compile(r"[A-Za-z_][\w$.]*")


def _generic_properties(mod: TritonModule, release: tuple[int, int]) -> None:
    """The first op (in the text) written in generic form with a properties dictionary that
    MLIR cannot make the op's properties of (its parse error): where no release the text may
    come from gives its op properties, or with a value of another kind than its property's
    (:func:`_converts`)."""
    first = None
    offsets = mod.offsets
    span = None
    for op in mod.generic_ops:
        if op not in offsets or op.parent is None:
            continue  # (op.parent: an op a pass has taken out)
        until = versions.NO_PROPERTIES_UNTIL.get(op.name)
        if until is None or release > until:
            none = False
        else:
            if span is None:
                span = versions.checked_span()
            none = versions.no_properties(op.name, span)
        if not none and not op.properties:
            continue
        if first is not None and offsets[op] > first[0]:
            continue
        found = _properties_written(mod.source, offsets[op])
        if found is None or (first is not None and found[0] >= first[0]):
            continue
        if none:
            first = (*found, op, versions.no_properties_reason(release))
            continue
        why = _unconverted(op, _written_names(mod.source, found[2]))
        if why is not None:
            first = (*found, op, why)
    if first is not None:
        at, name, start, op, why = first
        # (the names written: the reader may have given the op a default of its own)
        written = {k: op.properties[k] for k in _written_names(mod.source, start)
                   if k in op.properties}
        ln, col = line_col(mod.source, at)
        raise TTOptError(f"invalid properties {_dict_text(written)} for op {name}: {why}",
                         mod.filename, ln, col)


def properties_error(offsets: dict, generic_ops: set, source: str, filename: str,
                     found) -> TTOptError | None:
    """For a read that failed: the error of the first generic op read whose properties MLIR
    cannot make (:func:`_generic_properties`), which MLIR reports as it makes the op, before
    anything later in the text (``found``: the releases the reader took the text to be
    from); None if none."""
    from types import SimpleNamespace

    mod = SimpleNamespace(offsets=offsets, generic_ops=generic_ops, source=source,
                          filename=filename)
    with versions.checking(found.release, lambda: (found.low, found.high)):
        try:
            _generic_properties(mod, found.release)
        except TTOptError as e:
            return e
    return None


def _unconverted(op: Operation, names: list[str]) -> str | None:
    """MLIR's reason to refuse ``op``'s properties dictionary (its ``names``, in generic
    form): the first name (in order) whose value is not of its property's kind."""
    definition = _plan(type(op)).op_def
    if definition is None:
        return None
    defs = definition.properties
    # (a property the oldest release of the text lacks is a name its MLIR ignores; the
    # releases are asked only for an op some release lacks a property of)
    lacking = (versions.filled_properties(versions.checked_span()[0]).get(op.name, ())
               if op.name in _filled_ops() else ())
    for name in sorted(names):
        if any(name == prop for prop, _ in lacking):
            continue
        d = defs.get(name)
        value = op.properties.get(name)
        if d is not None and value is not None and not _converts(d.constr, value):
            return (f"Invalid attribute `{name}` in property conversion: "
                    f"{_dict_text({'x': value})[5:-1]}")  # (`{x = VALUE}`)
    return None


def _converts(c, v) -> bool:
    """Is ``v`` of the kind of a property of constraint ``c`` (MLIR's ``dyn_cast`` to the
    property's storage class as it makes the properties; a value of that kind that breaks
    the constraint is the verifier's)?  An ``I32EnumAttr``'s, a ``BoolAttr``'s and a dense
    array's class test their integer type (and the enum its cases); the others are one
    attribute class (``I32Attr``: any ``IntegerAttr``)."""
    if isinstance(c, InReleases):
        low, high = versions.checked_span()
        if not (c.first <= low and high <= c.last):
            return True  # (a plain attribute in some release)
        c = c.constr
    if isinstance(v, TypedStringAttr):  # (a StringAttr of MLIR's)
        v = v.value
    kind = _CONVERSIONS.get(id(c))
    if kind is None:
        if isinstance(c, (I32Cases, I32Enum)) or (
            isinstance(c, ParamAttrConstraint) and (
                c.base_attr is DenseArrayBase
                or (c.base_attr is IntegerAttr and _ok(c, IntegerAttr(1, i1))))
        ):
            kind = (c, True, None)  # (the constraint itself tells)
        else:
            bases = c.get_bases()
            kind = (c, False, None if bases is None else tuple(bases))
        _CONVERSIONS[id(c)] = kind
    _, by_constraint, bases = kind
    if by_constraint:
        return _ok(c, v)
    return bases is None or isinstance(v, bases)


# id(constraint) -> (the constraint, kept: its id stays its own; whether it tells itself;
# else the classes of its kind, None for any): what _converts finds of a property's
# constraint, once (the constraints are those of the op definitions)
_CONVERSIONS: dict[int, tuple] = {}


def _filled_ops() -> frozenset[str]:
    """The ops some release lacks a required property of (``versions.filled_properties``
    of any release names them; of the others, none)."""
    global _FILLED_OPS
    if _FILLED_OPS is None:
        _FILLED_OPS = frozenset(
            name for r in versions.RELEASES for name in versions.filled_properties(r)
        )
    return _FILLED_OPS


_FILLED_OPS: frozenset[str] | None = None


def _written_names(text: str, start: int) -> list[str]:
    """The names of the properties dictionary ``<{...}>`` at ``start`` in ``text`` (its
    entries at the top level: each name before its ``=``, ``,`` or the closing brace)."""
    names = []
    i = text.index("{", start) + 1
    n = len(text)
    expect_name = True
    depth = 0
    while i < n:
        c = text[i]
        if c == '"':
            m = STRING_LITERAL.match(text, i)
            end = m.end() if m else i + 1
            if expect_name and depth == 0:
                names.append(string_value(text[i + 1:end - 1]) if m else "")
                expect_name = False
            i = end
            continue
        if depth == 0 and expect_name and (c.isalpha() or c == "_"):
            m = _NAME.match(text, i)
            names.append(m.group())
            expect_name = False
            i = m.end()
            continue
        if c in "{[(<":
            depth += 1
        elif c == ">" and text[i - 1] == "-":
            pass  # (a function type's arrow)
        elif c in "}])>":
            if depth == 0:
                break
            depth -= 1
        elif c == "," and depth == 0:
            expect_name = True
        i += 1
    return names


def _properties_written(text: str, start: int) -> tuple[int, str, int] | None:
    """(the offset of the name, the name, the offset of the ``<`` of its properties) of the
    generic op at ``start`` in ``text`` if it has a properties dictionary (``<{...}>`` after
    its operands and successors)."""
    m = _GENERIC_HEAD.match(text, start)
    if m is None:
        return None
    at = SKIP.match(text, m.end()).end()
    if text.startswith("[", at):  # successors: `[^bb1(%a : i32), ^bb2]`
        depth = 0
        for i in range(at, len(text)):
            c = text[i]
            if c == "[":
                depth += 1
            elif c == "]":
                depth -= 1
                if depth == 0:
                    at = SKIP.match(text, i + 1).end()
                    break
        else:
            return None
    if not text.startswith("<", at):
        return None
    name = m.group(1)[1:-1]
    return m.start(1), name, at


def _dict_text(props) -> str:
    """A properties dictionary as MLIR prints it in a diagnostic (names sorted, a unit
    value by its name alone, ``i64`` and ``f64`` left out in an array)."""
    out = io.StringIO()
    printer = Printer(stream=out)

    def value(a, in_array: bool) -> None:
        if isinstance(a, ArrayAttr):
            out.write("[")
            for i, x in enumerate(a.data):
                if i:
                    out.write(", ")
                value(x, True)
            out.write("]")
        elif isinstance(a, DictionaryAttr):
            entries(a.data)
        elif in_array and isinstance(a, IntegerAttr) and a.type == i64:
            out.write(str(a.value.data))
        elif isinstance(a, FloatAttr):
            text = io.StringIO()
            Printer(stream=text).print_float(a.value.data, a.type)
            # (a NaN or an infinity in hexadecimal, as MLIR writes it: upper case)
            out.write(_HEX.sub(lambda m: "0x" + m.group(1).upper(), text.getvalue()))
            if not (in_array and a.type == f64):
                out.write(" : ")
                printer.print_attribute(a.type)
        else:
            printer.print_attribute(a)

    def entries(d) -> None:
        out.write("{")
        for i, (k, v) in enumerate(sorted(d.items())):
            if i:
                out.write(", ")
            printer.print_identifier_or_string_literal(k)
            if not isinstance(v, UnitAttr):
                out.write(" = ")
                value(v, False)
        out.write("}")

    entries(props)
    return out.getvalue()


# ----------------------------------------------------------------------------- op plans

# checked by the walker itself (with MLIR's wording, in linear time), or by construction in
# custom form (a terminator's parser gives it no results); generic form runs them all
_WALKER_TRAITS = (
    IsolatedFromAbove, IsTerminator, HasParent, SymbolTable, NoTerminator, ReturnLike,
)
# xDSL's traits of its op interfaces (HasFolderInterface, ConditionallySpeculatableInterface),
# whose verify checks nothing (``return``: test_speed_verify): no step
_NO_CHECK_TRAITS = tuple(
    type(t) for c in (HasFolderInterface, ConditionallySpeculatableInterface) for t in c.traits
)


class _Plan:
    """What the walker checks for one op class (compiled once from its IRDL definition).

    ``steps``: for an op in custom form, functions that raise ``VerifyException``: the IRDL
    checks its parser does not guarantee (value constraints, properties, single-block
    regions, traits), then the op's own ``verify_``."""

    __slots__ = (
        "steps", "op_def", "own", "terminator", "parents", "isolated", "no_terminator",
        "symbol_table", "symbol", "simple", "layouts",
    )

    def __init__(self, cls: type[Operation]):
        self.op_def = cls.get_irdl_definition() if issubclass(cls, IRDLOperation) else None
        self.own = OWN_VERIFY.get(cls)
        self.terminator = cls.has_trait(IsTerminator)
        parents = cls.get_traits_of_type(HasParent)
        self.parents = tuple(t for p in parents for t in p.op_types) if parents else None
        self.isolated = cls.has_trait(IsolatedFromAbove)
        self.no_terminator = cls.has_trait(NoTerminator)
        self.symbol_table = cls.has_trait(SymbolTable)
        self.symbol = cls.has_trait(SymbolOpInterface)
        self.steps = _compile_steps(cls, self.op_def, self.own)
        # Triton's VerifyTensorLayoutsTrait: every op of its `tt`, `ttg` and `ttng` dialects
        name = getattr(cls, "name", "")
        self.layouts = isinstance(name, str) and name.startswith(("tt.", "ttg.", "ttng."))
        # no parent constraint, not a terminator, no regions: only the steps to run
        self.simple = (
            self.parents is None
            and not self.terminator
            and not (self.op_def.regions if self.op_def is not None else True)
        )


def _constraint(range_constr):
    """The per-value ``AttrConstraint`` inside an operand/result definition, or None when it
    accepts anything."""
    c = range_constr
    for _ in range(3):  # RangeLengthConstraint(RangeOf(c)) / RangeOf(c) / SingleOf(c)
        inner = getattr(c, "constraint", None) or getattr(c, "constr", None)
        if inner is None:
            break
        c = inner
    if c is range_constr or isinstance(c, AnyAttr):
        return None
    return c


def _value_checks(defs, what: str, values_of, segments: str | None = None):
    """A step checking the constraints of operand or result definitions ``defs`` on
    ``values_of(op)``; None when nothing is constrained."""
    n = len(defs)
    variadic = [i for i, (_, d) in enumerate(defs) if isinstance(d, VariadicDef)]
    constrs = [_constraint(d.constr) for _, d in defs]
    if not any(c is not None for c in constrs):
        return None

    def fail(i: int, c, t, of_variadic: bool = False):
        message = _message(c, t)
        if of_variadic:  # (MLIR's summary of a `Variadic<T>`)
            message = message.replace("must be ", "must be variadic of ", 1)
        raise VerifyException(f"{what} #{i} {message}")

    if len(variadic) > 1:
        # (MLIR's `Variadic<T>`s among them: "must be variadic of T"; not an `Optional<T>`)
        listed = {i for i in variadic if not isinstance(defs[i][1], OptionalDef)}
        names = [name for name, _ in defs]
        oks = [_ok_fn(c) if c is not None else None for c in constrs]

        layouts: dict[tuple, tuple] = {}

        def by_segments(op):
            """AttrSizedOperandSegments: the property gives each group's size."""
            values = values_of(op)
            sizes = segment_sizes(op.properties[segments])
            layout = layouts.get(sizes)
            if layout is None:
                layout = layouts[sizes] = tuple(
                    (c, ok)
                    for size, c, ok in zip(sizes, constrs, oks)
                    for _ in range(size)
                )
            if len(layout) != len(values):  # (generic form: xDSL's checks report it)
                raise VerifyException("operand count does not match the segment sizes")
            for i, (v, (c, ok)) in enumerate(zip(values, layout)):
                if ok is not None and not ok(v.type):
                    group, end = 0, sizes[0]
                    while end <= i:
                        group += 1
                        end += sizes[group]
                    fail(i, c, v.type, group in listed)

        def by_accessor(op):
            i = 0
            for k, (name, c, ok) in enumerate(zip(names, constrs, oks)):
                got = getattr(op, name)
                group = () if got is None else (got if isinstance(got, tuple) else (got,))
                for v in group:
                    if ok is not None and not ok(v.type):
                        fail(i, c, v.type, k in listed)
                    i += 1

        return by_segments if segments else by_accessor
    v = variadic[0] if variadic else None
    if v is None:  # a fixed number of values: one layout
        layout = tuple(_ok_fn(c) if c is not None else None for c in constrs)

        def fixed_positions(op):
            last = None
            for value, ok in zip(values_of(op), layout):  # (iterating: no __getitem__)
                if ok is not None:
                    t = value.type
                    if t is not last and not ok(t):  # (`%a, %a`: one check)
                        i = list(values_of(op)).index(value)
                        fail(i, constrs[i], t)
                    last = t

        return fixed_positions
    by_length: dict[int, tuple] = {}

    def layout(count: int) -> tuple:
        """(constraint, predicate) or None for each of ``count`` values."""
        if v is None:
            cs = constrs
        else:
            cs = constrs[:v] + [constrs[v]] * (count - n + 1) + constrs[v + 1 :]
        return tuple((c, _ok_fn(c)) if c is not None else None for c in cs)

    def positional(op):
        values = values_of(op)
        checks = by_length.get(len(values))
        if checks is None:
            checks = by_length[len(values)] = layout(len(values))
        for i, (value, check) in enumerate(zip(values, checks)):
            if check is not None and not check[1](value.type):
                fail(i, check[0], value.type)  # (one variadic: ttopt's families', `ins`)

    return positional


def _ok_fn(c) -> Callable[[object], bool]:
    """A fast predicate for constraint ``c``: ttopt's own kinds have one."""
    if isinstance(c, TypeKind):
        return c.ok
    return lambda t: _ok(c, t)


_CTX = VerificationContext


def _ok(c, t) -> bool:
    if isinstance(c, TypeKind):
        return c.ok(t)
    try:
        c.verify(t, _CTX())
    except VerifyException:
        return False
    return True


def _message(c, t) -> str:
    if isinstance(c, TypeKind):
        return c.message(t)
    try:
        c.verify(t, _CTX())
    except VerifyException as e:
        return f"does not verify: {e}"
    return "does not verify"


def _attr_check(c):
    """A function ``(name, attr)`` raising when ``attr`` breaks property constraint ``c``
    (None when ``c`` accepts anything); a plain base-class constraint is one isinstance."""
    if isinstance(c, AnyAttr):
        return None
    summary = _summary(c)

    def fail(name, e):
        raise VerifyException(
            f"attribute '{name}' failed to satisfy constraint: {summary or e}") from None

    if type(c) is BaseAttr:
        base = c.attr

        def base_check(name, v):
            if not isinstance(v, base):
                try:
                    c.verify(v, _CTX())
                except VerifyException as e:
                    fail(name, e)

        return base_check
    shared = None if c.variables() else _CTX()  # (a context only holds constraint variables)
    passes = _passes(c)

    def check(name, v):
        if passes is not None and passes(v):
            return
        try:
            c.verify(v, shared if shared is not None else _CTX())
        except VerifyException as e:
            fail(name, e)

    return check


def _quick_tests(c) -> tuple:
    """(a class, the quick predicate) that :func:`_attr_check`'s function for property
    constraint ``c`` tries first: a value of the class (a plain base-class constraint's) or
    that the predicate accepts passes; ``()`` (no class) and None where it has none."""
    if isinstance(c, AnyAttr):
        return (), None
    if type(c) is BaseAttr:
        return c.attr, None
    return (), _passes(c)


def _passes(c, bound: frozenset = frozenset()):
    """A predicate true of an attribute only if constraint ``c`` accepts it (verified with a
    context of no variable bound), made of identity, class and equality tests; where it is
    false, ``c`` itself decides (and says why).  None: ``c`` is not made of the constraints
    it knows (xDSL's ``verify`` of each is what the predicate tests).  ``bound``: the
    variables an enclosing conjunction may have bound before ``c`` is checked (a variable
    seen again compares two values: ``c`` decides)."""
    return _passes_bound(c, bound)[0]


def _passes_bound(c, bound: frozenset):
    """(:func:`_passes` of ``c``, the variables bound once ``c`` is checked)."""
    kind = type(c)
    if kind is AnyAttr:  # (verifies anything)
        return _ANYTHING, bound
    if kind is BaseAttr:  # (isinstance)
        base = c.attr
        return (lambda a: isinstance(a, base)), bound
    if kind is EqAttrConstraint:  # (==)
        want = c.attr
        return (lambda a: a is want or a == want), bound
    if kind is VarConstraint:  # (the first binding of its name: its constraint's check)
        if c.name in bound:
            return None, bound
        return _passes_bound(c.constraint, bound | {c.name})
    if kind is AllOf:  # (each)
        parts = []
        for x in c.attr_constrs:
            part, bound = _passes_bound(x, bound)
            if part is None:
                return None, bound
            if part is not _ANYTHING:
                parts.append(part)
        return _all_of(parts), bound
    if kind is ParamAttrConstraint:  # (isinstance, and each parameter)
        base = c.base_attr
        try:
            names = [name for name, _ in base.get_irdl_definition().parameters]
        except Exception:  # (an abstract base: no definition of its own)
            return None, bound
        if len(names) != len(c.param_constrs):
            return None, bound
        params = []
        for name, x in zip(names, c.param_constrs):
            part, bound = _passes_bound(x, bound)
            if part is None:
                return None, bound
            if part is not _ANYTHING:
                params.append((attrgetter(name), part))

        def parametrized(a) -> bool:
            # (an instance of the class itself: its parameters are the definition's)
            if type(a) is not base:
                return False
            for get, part in params:
                if not part(get(a)):
                    return False
            return True

        return parametrized, bound
    if kind is AnyOf:  # (the alternative of the attribute's class; none: c decides)
        by_class = {}
        after = bound
        for x in c.attr_constrs:
            bases = x.get_bases()
            if bases is None:
                continue  # (the abstract alternative: c decides)
            part, seen = _passes_bound(x, bound)
            if part is None:
                return None, bound
            after = after | seen
            for cls in bases:
                by_class[cls] = part

        def one_of(a) -> bool:
            part = by_class.get(type(a))
            return part is not None and part(a)

        return one_of, after
    if kind is InReleases:  # (its constraint accepts: so does every release)
        return _passes_bound(c.constr, bound)
    if kind is I32Enum:  # (its kind, and a case of every release)
        width, bound = _passes_bound(c.width, bound)
        if width is None:
            return None, bound
        every = frozenset.intersection(*(cases for _, _, cases in c.cases))
        return (lambda a: width(a) and a.value.data in every), bound
    return None, bound


def _anything(a) -> bool:
    return True


def _all_of(parts: list):
    """A predicate true where each of ``parts`` is."""
    if not parts:
        return _ANYTHING
    if len(parts) == 1:
        return parts[0]

    def all_of(a) -> bool:
        for part in parts:
            if not part(a):
                return False
        return True

    return all_of


_ANYTHING = _anything


_SUMMARIES = {StringAttr: "string attribute", UnitAttr: "unit attribute"}
_INTEGER_SUMMARIES = {i1: "bool attribute", i32: "32-bit signless integer attribute",
                      i64: "64-bit signless integer attribute"}


def _summary(c) -> str | None:
    """MLIR's words for a property constraint of ODS's (its summary: ``StrAttr``, ``UnitAttr``,
    ``BoolAttr``, ``I32Attr``, ``I64Attr``, ``DenseI32ArrayAttr``); None: the constraint's
    own message (ttopt's constraints already say MLIR's)."""
    if isinstance(c, InReleases):
        c = c.constr
    if type(c) is BaseAttr:
        return _SUMMARIES.get(c.attr)
    if isinstance(c, ParamAttrConstraint) and len(c.param_constrs) == 2:
        kind = c.param_constrs[1] if c.base_attr is IntegerAttr else c.param_constrs[0]
        if isinstance(kind, AllOf):  # (xDSL's i1: `BaseAttr(IntegerType) & i1`)
            kind = kind.attr_constrs[-1]
        if not isinstance(kind, EqAttrConstraint):
            return None
        if c.base_attr is IntegerAttr:
            return _INTEGER_SUMMARIES.get(kind.attr)
        if c.base_attr is DenseArrayBase and kind.attr == i32:
            return "i32 dense array attribute"
    return None


def _untyped_string(op: Operation, name: str, v, check) -> bool:
    """MLIR's typed string (``"x" : i32``) is a ``StringAttr``: where property ``name`` takes
    a string, it is the string (MLIR keeps the type, which only its generic print shows).
    True: ``v`` was such a string, now the property's value."""
    if not isinstance(v, TypedStringAttr):
        return False
    try:
        check(name, v.value)
    except VerifyException:
        return False
    op.properties[name] = v.value
    return True


def _dropped_hint(op: Operation, name: str, v) -> bool:
    """Triton 2.1 - 2.3 read a ``tt.store``'s ``{cache = .., evict = ..}`` hint that no case
    names, of any kind (``9 : i32``, ``1 : i64``, ``"x"``), without an error in custom form:
    the store keeps its default hint (asked of each release; the generic form and
    ``tt.load`` are refused).  True: ``v`` is such a hint, in a text that may be of those
    releases."""
    return (op.name == "tt.store" and name in ("cache", "evict")
            and versions.taken(((versions.OLDEST, (2, 3)),)))


def _fixed_values(op_def, operands, results):
    """The ``fixed_positions`` steps of the operands and of the results of ``op_def`` (no
    variadic definition) in one step: each constraint checked as they check it, where one
    fails, the group's step says so."""
    op_layout = tuple(_ok_fn(c) if c is not None else None
                      for c in (_constraint(d.constr) for _, d in op_def.operands))
    res_layout = tuple(_ok_fn(c) if c is not None else None
                       for c in (_constraint(d.constr) for _, d in op_def.results))

    def fixed_values(op):
        last = None
        for value, ok in zip(operand_tuple(op), op_layout):  # (iterating: no __getitem__)
            if ok is not None:
                t = value.type
                if t is not last and not ok(t):  # (`%a, %a`: one check)
                    operands(op)  # (raises)
                last = t
        last = None
        for value, ok in zip(op.results, res_layout):
            if ok is not None:
                t = value.type
                if t is not last and not ok(t):
                    results(op)  # (raises)
                last = t

    return fixed_values


_operands_of = operand_tuple
_results_of = attrgetter("results")  # (op.results, without a Python call)


def _compile_steps(cls, op_def, own) -> tuple:
    """The checks of an op of class ``cls`` in custom form (see :class:`_Plan`)."""
    if op_def is None:
        return (own,) if own is not None else ()
    segments = {
        type(o).__name__: o.attribute_name
        for o in op_def.options
        if isinstance(o, AttrSizedSegments) and o.as_property
    }
    operands = _value_checks(
        op_def.operands, "operand", _operands_of, segments.get("AttrSizedOperandSegments")
    )
    results = _value_checks(
        op_def.results, "result", _results_of, segments.get("AttrSizedResultSegments")
    )
    steps: list = []  # (MLIR's order: the properties, then operands and results, ...)
    props = [
        (name, _attr_check(d.constr), not isinstance(d, OptionalDef), *_quick_tests(d.constr))
        for name, d in op_def.properties.items()
    ]
    props = [p for p in props if p[1] is not None or p[2]]
    if props:
        required_names = [name for name, _, required, _, _ in props if required]

        def check_props(op: Operation) -> None:
            p = op.properties
            if not p:  # (most ops: no property given)
                if required_names:
                    raise VerifyException(f"requires attribute '{required_names[0]}'")
                return
            for name, c, required, base, passes in props:
                v = p.get(name)
                if v is None:
                    if required:
                        raise VerifyException(f"requires attribute '{name}'")
                elif c is not None and not isinstance(v, base) and not (
                    passes is not None and passes(v)
                ):  # (what c tests first, without the call)
                    try:
                        c(name, v)
                    except VerifyException:
                        if not _untyped_string(op, name, v, c) and not _dropped_hint(op, name, v):
                            raise

        steps.append(check_props)
    if issubclass(cls, SameTypeOp) and own is not None:
        # the common case in one step: every operand has the result's type (the object the
        # parser built once), so one constraint check covers them all
        kind = _constraint(dict(op_def.results)["result"].constr)
        kind_ok = _ok_fn(kind) if kind is not None else None

        general = tuple(s for s in (operands, results, own) if s is not None)

        def same_type(op: Operation) -> None:
            t = _tuple_item(op.results, 0).type
            for v in operand_tuple(op):
                if v.type is not t:
                    break
            else:
                if kind_ok is not None and not kind_ok(t):
                    raise VerifyException(f"operand #0 {_message(kind, t)}")
                return
            for step in general:
                step(op)

        steps.append(same_type)
        operands = results = own = None
    if operands is not None and results is not None and not any(
        isinstance(d, VariadicDef) for _, d in (*op_def.operands, *op_def.results)
    ):
        # (both fixed_positions: one step, each group in turn)
        steps.append(_fixed_values(op_def, operands, results))
    else:
        steps.extend(s for s in (operands, results) if s is not None)
    single_block = [
        i for i, (_, d) in enumerate(op_def.regions) if isinstance(d, SingleBlockRegionDef)
    ]
    if single_block:

        def check_regions(op: Operation) -> None:
            regions = op.regions
            for i in single_block:
                if i < len(regions) and len(regions[i].blocks) != 1:
                    raise VerifyException(
                        f"region #{i} failed to verify constraint: region with 1 blocks"
                    )

        steps.append(check_regions)
    steps.extend(
        t.verify
        for t in op_def.traits
        if type(t).verify is not OpTrait.verify
        and not isinstance(t, _WALKER_TRAITS + _NO_CHECK_TRAITS)
    )
    if own is not None:
        steps.append(own)
    return tuple(steps)


_PLANS: dict[type, _Plan] = {}
_tuple_item = tuple.__getitem__  # (xDSL's SSAValues.__getitem__ is a Python function)
_UNDEFINED_PROPERTY = "is not defined by the operation"  # (xDSL's OpDef.verify wording)


def _plan(cls: type[Operation]) -> _Plan:
    p = _PLANS.get(cls)
    if p is None:
        p = _PLANS[cls] = _Plan(cls)
    return p


# ----------------------------------------------------------------------------- the walk


class _Walker:
    """One pass over the module: every op's checks, block structure, dominance."""

    def __init__(self, generic_ops: set[Operation], dominance: bool = True,
                 layouts: ModuleLayouts | None = None):
        self.generic = {id(op) for op in generic_ops}
        self.layouts = layouts
        self.check_dominance = dominance  # False: the parser's forward references tell
        self.defined: dict[int, int] = {}  # id(value) -> serial of the block defining it
        self.active: set[int] = set()  # blocks whose values are visible here
        self.serial = 0
        self.dominance: VerificationFailure | None = None  # reported if nothing else is
        self.multi_block: list[Operation] = []  # ops with a region of several blocks
        self.sees_values: dict = {}  # block or region -> bool (see _sees_values)

    def run(self, top: Operation) -> None:
        plan = _plan(type(top))
        self.checks(top, plan, None)
        if top.regions:
            self.regions(top, plan)
        if self.dominance is not None:
            raise self.dominance

    def checks(self, op: Operation, plan: _Plan, parent: Operation | None) -> None:
        """Everything about ``op`` itself (not its regions)."""
        if isinstance(op, ModuleOp):  # (ModuleOp::verify: its discardable attributes)
            for name in sorted(op.attributes):
                if "." not in name:
                    _fail(op, f"can only contain attributes with dialect-prefixed names, found: '{name}'")
        if plan.parents is not None and parent is not None and not isinstance(
            parent, plan.parents
        ):
            names = ", ".join(f"'{p.name}'" for p in plan.parents)
            one_of = "to be one of " if len(plan.parents) > 1 else ""
            _fail(op, f"expects parent op {one_of}{names}")
        if plan.terminator and op.next_op is not None:
            _fail(op, "must be the last operation in the parent block")
        if id(op) in self.generic:
            self.generic_checks(op, plan)
            return
        try:
            for step in plan.steps:
                step(op)
        except VerifyException as e:
            _fail(op, e)

    def generic_checks(self, op: Operation, plan: _Plan) -> None:
        """An op in generic form: xDSL's whole IRDL verification (counts included), then
        the op's own ``verify_``; a failing type constraint is reported as the custom-form
        checks say it."""
        if plan.op_def is not None:
            for name, v in op.properties.items():  # (never in the texts Triton writes)
                if isinstance(v, TypedStringAttr) and name in plan.op_def.properties:
                    check = _attr_check(plan.op_def.properties[name].constr)
                    if check is not None:
                        _untyped_string(op, name, v, check)
            try:
                plan.op_def.verify(op)
            except VerifyException as e:
                if _UNDEFINED_PROPERTY in str(e):
                    # MLIR ignores a property its op does not define (when the op has any),
                    # and ttopt does not model every property Triton's ops have: never
                    # rejected.  The checks xDSL had left (traits) are in the steps.
                    self.steps(op, plan)
                    return
                msg = None
                try:
                    for step in plan.steps:
                        if step is not plan.own:
                            step(op)
                except VerifyException as nicer:
                    msg = nicer
                except Exception:  # the counts are wrong: the steps cannot tell
                    msg = None
                _fail(op, msg or " ".join(str(e).split()))
        if plan.own is not None:
            try:
                plan.own(op)
            except VerifyException as e:
                _fail(op, e)

    def steps(self, op: Operation, plan: _Plan) -> None:
        try:
            for step in plan.steps:
                step(op)
        except VerifyException as e:
            _fail(op, e)

    def regions(self, op: Operation, plan: _Plan) -> None:
        saved = None
        if plan.isolated:  # nothing defined outside is visible inside
            saved, self.active = self.active, set()
        needs_terminator = not plan.no_terminator
        layouts = self.layouts
        regions = op.regions
        # (before any of its regions is walked: the list stays outermost first, so one walk
        # from each outermost op covers those nested in it; an empty region is no CFG)
        if any(len(region.blocks) > 1 for region in regions):
            self.multi_block.append(op)
        for region in regions:  # (MLIR: after the op's own checks, before its regions')
            entry = region.first_block
            if entry is not None and entry.first_use is not None:  # (a branch to it)
                raise VerificationFailure(op, "entry block of region may not have predecessors")
        for index, region in enumerate(regions):
            blocks = region.blocks
            single = len(blocks) == 1
            context = layouts.enter(op, index) if layouts is not None else None
            for block in blocks:
                self.block(block, op, plan.symbol_table)
                if needs_terminator or not single:
                    last = block.last_op
                    if last is None:
                        raise VerificationFailure(
                            op, f"'{_spelled(op)}' op empty block: expect at least a terminator"
                        )
                    if not _plan(type(last)).terminator:
                        raise VerificationFailure(
                            last, f"block with no terminator, has '{_spelled(last)}'"
                        )
            if context is not None:
                layouts.leave(context)
        if saved is not None:
            self.active = saved
            if op.parent is not None and self._sees_values(op.parent):
                _check_isolation(op)

    def _sees_values(self, block: Block) -> bool:
        """Whether an op in ``block`` could name a value defined outside it: ``block`` or a
        block around it has arguments or an op with results (a function's module: mostly
        not; known per block, once)."""
        known = self.sees_values.get(block)
        if known is None:
            parent = block.parent_op()
            region = block.parent
            # (every block of the region: one that dominates ``block`` defines what it sees;
            # known per region, once: a region of many blocks is walked once)
            here = self.sees_values.get(region) if region is not None else None
            if here is None:
                blocks = region.blocks if region is not None else (block,)
                here = any(b.args or any(o.results for o in b.ops) for b in blocks)
                if region is not None:
                    self.sees_values[region] = here
            known = here or (
                parent is not None and parent.parent is not None
                and self._sees_values(parent.parent)
            )
            self.sees_values[block] = known
        return known

    def block(self, block: Block, parent: Operation, symbol_table: bool) -> None:
        """The ops of ``block`` in order: dominance of their operands, their checks, their
        regions; then their results become visible."""
        self.serial += 1
        serial = self.serial
        defined = self.defined
        active = self.active
        generic = self.generic
        plans = _PLANS
        for arg in block.args:
            defined[id(arg)] = serial
        active.add(serial)
        symbols: set[str] | None = set() if symbol_table else None
        dominance = self.check_dominance
        layouts = self.layouts
        verdicts = layouts.verdicts if layouts is not None else None
        op = block.first_op
        while op is not None:
            if dominance:
                for v in operand_tuple(op):
                    b = defined.get(id(v))
                    if (b is None or b not in active) and self.dominance is None:
                        self.not_dominated(op, v)
            plan = plans.get(type(op)) or _plan(type(op))
            if plan.simple and (not generic or id(op) not in generic):
                try:
                    for step in plan.steps:
                        step(op)
                except VerifyException as e:
                    _fail(op, e)
                nested = False
            else:
                self.checks(op, plan, parent)
                nested = True
            if verdicts is not None and plan.layouts:  # (a lookup per operand and result)
                # (a type not judged yet in this context is judged here; an op with a type
                # whose verdict is not True is judged whole, for the words of the first)
                for v in operand_tuple(op):
                    t = v.type
                    if verdicts.get(id(t)) is not True and layouts.lookup(verdicts, t) is not True:
                        self.tensor_layouts(op)
                        break
                else:
                    for v in op.results:
                        t = v.type
                        if verdicts.get(id(t)) is not True and layouts.lookup(verdicts, t) is not True:
                            self.tensor_layouts(op)
                            break
            if nested and op.regions:
                self.regions(op, plan)
            if dominance:
                for r in op.results:
                    defined[id(r)] = serial
            if symbols is not None and plan.symbol:
                sym = op.properties.get("sym_name") or op.attributes.get("sym_name")
                name = getattr(sym, "data", None)
                if name is not None:
                    if name in symbols:
                        raise VerificationFailure(op, f"redefinition of symbol named '{name}'")
                    symbols.add(name)
            op = op.next_op
        active.discard(serial)

    def tensor_layouts(self, op: Operation) -> None:
        """Triton's ``verifyTensorLayouts`` on ``op``, one of whose operands or results has
        a type not judged yet in this warp context (:class:`ModuleLayouts`)."""
        message = self.layouts.judge(op, operand_tuple(op), op.results)
        if message is not None:
            raise VerificationFailure(op, message)

    def not_dominated(self, op: Operation, value) -> None:
        if _defined_in_multi_block_ancestor(value, op):
            return
        i = list(operand_tuple(op)).index(value)
        self.dominance = VerificationFailure(
            op, f"operand #{i} does not dominate this use"
        )


def _fail(op: Operation, message: str | VerifyException):
    """``message`` at ``op``, after the op's name as MLIR's ``emitOpError`` writes it (not
    for a :class:`~ttopt.dialects.base.PlainVerifyException`: MLIR's ``emitError`` or
    ``emitOptionalError`` at the op's location, its words alone)."""
    if isinstance(message, PlainVerifyException):
        raise VerificationFailure(op, str(message))
    raise VerificationFailure(op, f"'{_spelled(op)}' op {message}")


def _spelled(op: Operation) -> str:
    """``op``'s name as the release being verified spells it (``triton_gpu.local_alloc``
    for 3.2: MLIR's messages name the op as the text does)."""
    return versions.Syntax(versions.checked_release()).op_name(op.name)


def _cfg_dominance(ops: list[Operation]) -> None:
    """MLIR's dominance rule in regions of several blocks (a function with ``cf`` branches):
    a value defined in block D of such a region and used in (an op nested in) block U of it
    must have D dominate U in the region's control flow graph, or, D = U, be defined before
    the use's op in the block; a use in a block unreachable from the entry block is never
    wrong (MLIR's rule).  ``ops``: the ops that have such a region, outermost first; one walk
    over each outermost one covers those nested in it (linear)."""
    done: set[int] = set()
    for op in ops:
        if id(op) not in done:
            _CfgWalk(done).op(op)


class _CfgWalk:
    """One walk for :func:`_cfg_dominance`: for each multi-block region open around the op
    visited, the block and the position within it of the op's ancestor there."""

    def __init__(self, done: set[int]):
        self.done = done
        self.frames: dict[int, list] = {}  # id(block) -> its region's frame (below)
        self.position: dict[int, int] = {}  # id(op) -> its index in its block (such blocks)

    def op(self, op: Operation) -> None:
        self.done.add(id(op))
        position = self.position
        for region in op.regions:
            blocks = list(region.blocks)
            frame = None
            if len(blocks) > 1:  # (a block graph: its dominator tree, and positions kept)
                index = {id(b): i for i, b in enumerate(blocks)}
                tin, tout, reachable = _dominators(blocks, index)
                frame = [index, tin, tout, reachable, 0, 0]  # (.., current block, position)
                for b in blocks:
                    self.frames[id(b)] = frame
            for i, block in enumerate(blocks):
                if frame is not None:
                    frame[4] = i
                for p, inner in enumerate(block.ops):
                    if frame is not None:
                        frame[5] = p
                        position[id(inner)] = p
                    self.check(inner)
                    if inner.regions:
                        self.op(inner)

    def check(self, op: Operation) -> None:
        frames = self.frames
        if not frames:
            return
        for i, v in enumerate(operand_tuple(op)):
            if isinstance(v, BlockArgument):
                block, at = v.owner, -1
            else:
                owner = getattr(v, "op", None)
                block = owner.parent if owner is not None else None
                at = None
            frame = frames.get(id(block)) if block is not None else None
            if frame is None:
                continue  # (defined in a single-block region: the other checks)
            index, tin, tout, reachable, current, position = frame
            d = index[id(block)]
            if current not in reachable:
                continue
            if d == current:
                if at is None:
                    at = self.position.get(id(owner))
                ok = at is not None and at < position
            else:
                ok = tin[d] <= tin[current] and tout[current] <= tout[d]
            if not ok:
                raise VerificationFailure(
                    op, f"operand #{i} does not dominate this use"
                )


def _dominators(blocks: list[Block], index: dict[int, int]) -> tuple[list[int], list[int], set[int]]:
    """The dominator tree of a region's blocks (the entry block is 0; edges: the successors
    of each block's last op), as each block's entry and exit times in a walk of the tree
    (``d`` dominates ``u`` iff ``tin[d] <= tin[u]`` and ``tout[u] <= tout[d]``: O(1) a
    query), and the blocks reachable from the entry.  Lengauer and Tarjan's algorithm with
    path compression, O(E log V), without recursion (Cooper, Harvey and Kennedy's simpler
    iterative one is quadratic on a chain of blocks that all branch to one exit)."""
    succ = []
    for b in blocks:
        last = b.last_op
        succ.append([index[id(s)] for s in (last.successors if last is not None else ())
                     if id(s) in index])
    return dominator_intervals(succ)


def dominator_intervals(succ: list[list[int]]) -> tuple[list[int], list[int], set[int]]:
    """:func:`_dominators` of the graph ``succ`` (node i's successors; the entry is 0)."""
    n = len(succ)
    # depth-first numbering from the entry: num[block] (1..m; 0 unreached), vertex[k]
    num = [0] * n
    vertex = [0]  # (1-based)
    parent = [0]  # (by number)
    num[0] = 1
    vertex.append(0)
    parent.append(0)
    stack = [(0, iter(succ[0]))]
    while stack:
        b, it = stack[-1]
        for t in it:
            if not num[t]:
                vertex.append(t)
                num[t] = len(vertex) - 1
                parent.append(num[b])
                stack.append((t, iter(succ[t])))
                break
        else:
            stack.pop()
    m = len(vertex) - 1
    preds: list[list[int]] = [[] for _ in range(m + 1)]  # (by number, reached only)
    for b in range(n):
        if num[b]:
            for t in succ[b]:
                preds[num[t]].append(num[b])
    semi = list(range(m + 1))
    label = list(range(m + 1))
    ancestor = [0] * (m + 1)
    idom = [0] * (m + 1)
    bucket: list[list[int]] = [[] for _ in range(m + 1)]

    def evaluate(v: int) -> int:
        if not ancestor[v]:
            return v
        path = []
        x = v
        while ancestor[ancestor[x]]:
            path.append(x)
            x = ancestor[x]
        for x in reversed(path):  # (compressed from the top down)
            a = ancestor[x]
            if semi[label[a]] < semi[label[x]]:
                label[x] = label[a]
            ancestor[x] = ancestor[a]
        return label[v]

    for w in range(m, 1, -1):
        for v in preds[w]:
            u = evaluate(v)
            if semi[u] < semi[w]:
                semi[w] = semi[u]
        bucket[semi[w]].append(w)
        ancestor[w] = parent[w]  # (link)
        for v in bucket[parent[w]]:
            u = evaluate(v)
            idom[v] = u if semi[u] < semi[v] else parent[w]
        bucket[parent[w]] = []
    for w in range(2, m + 1):
        if idom[w] != semi[w]:
            idom[w] = idom[idom[w]]
    children: list[list[int]] = [[] for _ in range(m + 1)]
    for w in range(2, m + 1):
        children[idom[w]].append(w)
    tin, tout = [0] * n, [0] * n
    clock = 0
    walk = [(1, iter(children[1]))]
    while walk:
        w, it = walk[-1]
        for c in it:
            clock += 1
            tin[vertex[c]] = clock
            walk.append((c, iter(children[c])))
            break
        else:
            walk.pop()
            clock += 1
            tout[vertex[w]] = clock
    return tin, tout, {vertex[k] for k in range(1, m + 1)}


def _defined_in_multi_block_ancestor(value, use: Operation) -> bool:
    """A value defined in another block of a multi-block region enclosing ``use``: its
    dominance depends on the control flow between the blocks, which is not checked here
    (never rejected).  Triton IR has single-block regions only."""
    owner = value.owner
    block = owner if isinstance(owner, Block) else owner.parent
    region = block.parent if block is not None else None
    if region is None or len(region.blocks) < 2:
        return False
    at: Operation | None = use
    while at is not None:
        b = at.parent
        if b is not None and b.parent is region:
            return True
        at = at.parent_op()
    return False

