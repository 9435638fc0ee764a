"""The reader's fast path for ops whose declared syntax is simple, derived from the format.

:mod:`ttopt.ir.fast_ops` reads the few shapes that make up most of an Inductor kernel with
one regular expression each.  Every other op with a declarative ``assembly_format`` (ttopt's
:class:`~ttopt.dialects.declarative.TritonFormatProgram`) went through xDSL's full parser:
the lexer, a directive at a time, about 100 us an op against the fast path's 15-25 us.  Here
the program of such an op (the one of the release being read) is turned, once, into a
:class:`Plan` of string-level steps, and a one-line op is read by running it over the line:

* ``$x`` (an operand at a fixed position) and ``$xs`` (an op's only, variadic, operand):
  ``%name`` / ``%name#N``, comma-separated for the variadic one;
* punctuation and keywords: the text itself, blanks allowed before it;
* ``attr-dict``: read by the parser where there is one (``{...}``, which may span blanks
  but not lines), the op's properties among its entries taken as its properties;
* an optional group: must be absent (its first token not there);
* ``type($x)`` / ``qualified(type($x))`` of a single operand or result, and
  ``functional-type($xs, results)``: the type's text, taken from the reader's type cache or
  parsed where it stands, as :mod:`~ttopt.ir.fast_ops` does.

Operand types the format does not spell are those its constraint fixes (``I32`` indices),
when the program resolves no constraint variables; a value is taken only if it is already
defined with exactly that type.  The op is built as the program builds it (``create`` with
the properties of its attribute dictionary; an op with segment sizes, any attribute or
property in its format, or a directive of another kind gets no plan).  Anything unexpected, and the op goes to the full
parser, which also produces the errors.  ``test/test_fast_path.py`` compares the two readers
on every fixture and on the corpus.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    UNKNOWN_LOC,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    i1,
    i32,
    i64,
)
from xdsl.irdl.constraints import InferenceContext
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    FunctionalTypeDirective,
    KeywordDirective,
    OperandsDirective,
    OperandVariable,
    OptionalGroupDirective,
    OptionalOperandVariable,
    ParsingState,
    PunctuationDirective,
    ResultVariable,
    TypeDirective,
    VariadicOperandVariable,
    VariadicResultVariable,
)
from xdsl.irdl.operations import OptionalDef, VariadicDef
from xdsl.utils.exceptions import ParseError

from ..dialects.declarative import (
    PositionalOperandVariable,
    PositionalTypeDirective,
    SoleVariadicOperandVariable,
    SortedAttrDictDirective,
    StrippedOkTypeDirective,
)
from ..xdsl_compat import fast_create
from .lexer import SKIP

OPERAND = r"%(?:[0-9]+|[A-Za-z_$.-][\w$.-]*)(?:#[0-9]+)?"
_OPERAND = re.compile(OPERAND)
_WORD = re.compile(r"!?[A-Za-z_][\w.$]*")
_KEYWORD_END = re.compile(r"[\w$.]")

# the scalar types, one object each: the full parser returns these too (TritonParser
# .parse_type), so equal scalar types are the same object (the verifier compares by identity
# first)
SCALAR_TYPES = {
    "i1": i1, "i8": IntegerType(8), "i16": IntegerType(16), "i32": i32,
    "i64": i64, "f16": Float16Type(), "bf16": BFloat16Type(), "f32": Float32Type(),
    "f64": Float64Type(), "index": IndexType(),
}


def balanced_end(text: str, start: int) -> int | None:
    """End offset of the type starting at ``start`` (matching ``<...>``), or None (a newline
    or a string first, or no end)."""
    i = text.find("<", start)
    if i < 0 or i - start > 24:
        return None
    depth = 0
    for m in _BRACKETS.finditer(text, i):  # (from one bracket to the next: no char loop)
        c = m.group()
        if c == "<":
            depth += 1
        elif c == ">":
            if text[m.start() - 1] != "-":  # (`->` is no bracket)
                depth -= 1
                if depth == 0:
                    return m.end()
        else:  # a newline or a string
            return None
    return None


_BRACKETS = re.compile(r'[<>\n"]')


# step kinds
(_VALUE, _VALUES, _TEXT, _KEYWORD, _DICT, _GROUP, _TYPE, _FUNCTIONAL, _DELEGATE, _TYPES,
 _OPTIONAL_VALUES) = range(11)


@dataclass(frozen=True)
class Plan:
    """What to read, in order (``(kind, argument)`` steps), and the operand and result types
    the format does not spell (fixed by their constraints; None where a step reads it)."""

    steps: tuple
    operand_types: tuple
    result_types: tuple
    open_end: tuple = ()
    """What, after the line, would go on with the op: the starts of the optional parts its
    format ends with (``tokens``, ``%`` or ``,`` of an operand list, ``{``).  The reader takes
    an op for ended at its line's end where the next line starts like an op (``%x = ..``,
    ``fast_ops.continues``): true of a format that ends in a type, not of one that may end in
    an absent group (``ttg.async_commit_group`` then ``%t0`` below: its operand)."""


def _starts(kind, arg, read: bool) -> list[str]:
    """What could go on with step ``(kind, arg)`` after the line: where it read something
    (``read``), only a list's next item; where it read nothing, its own start."""
    if kind == _DICT:
        return [] if read else ["{"]
    if kind in (_VALUES, _OPTIONAL_VALUES):
        return [","] if read else ["%", ","]
    if kind == _TYPES:
        return [","]
    if kind == _GROUP:
        first, _, then, other, _ = arg
        inner = [t for k, a in then for t in _starts(k, a, False)]
        return inner if read else [first, *inner, *(t for k, a in other for t in _starts(k, a, False))]
    return []


def _open_end(steps, read=None) -> tuple:
    """:attr:`Plan.open_end` of ``steps``; with ``read`` (per step: did it read text), of
    one run of them: the trailing steps that read nothing, and the last that did."""
    found: list[str] = []
    for n in range(len(steps) - 1, -1, -1):
        kind, arg = steps[n]
        if kind not in (_DICT, _VALUES, _OPTIONAL_VALUES, _TYPES, _GROUP):
            break  # (a part the op must have: the op cannot go on past it unseen)
        did = read is not None and read[n]
        found += _starts(kind, arg, did)
        if did:
            break
    return tuple(dict.fromkeys(found))


def _first_text(stmt) -> str | None:
    """The text an optional group starts with, when that is fixed: its anchor or first
    element is punctuation, a keyword or an operand (``%``)."""
    first = stmt.then_first
    if isinstance(first, PunctuationDirective):
        return first.punctuation
    if isinstance(first, KeywordDirective):
        return first.keyword
    if isinstance(first, OperandVariable | VariadicOperandVariable):
        return "%"
    return None


def _inferred(defs) -> tuple:
    """Per definition: the type its constraint fixes (as one value has it), or None."""
    out = []
    for _, d in defs:
        constr = d.constr  # (a range constraint: the definition's values)
        try:
            fixed = constr.can_infer(set(), length_known=True)
            out.append(constr.infer(InferenceContext(), length=1)[0] if fixed else None)
        except Exception:  # (a constraint that cannot say)
            out.append(None)
    return tuple(out)


class _NoPlan(Exception):
    """Some part of the format is not read here."""


def _attribute_only(stmt) -> bool:
    """An attribute or property variable, or a custom directive of such variables only: run
    by the parser, as the program runs it (it reads no operand, type or region)."""
    if isinstance(stmt, AttributeVariable):
        return True
    if isinstance(stmt, CustomDirective):
        params = type(stmt).parameters
        return bool(params) and all(issubclass(t, AttributeVariable) for t in params.values())
    return False


class _Planner:
    """The steps of one format program (and of its optional groups)."""

    def __init__(self, op_def):
        self.op_def = op_def
        self.sole = len(op_def.operands) == 1 and isinstance(op_def.operands[0][1], VariadicDef)
        self.sole_result = (len(op_def.results) == 1
                            and isinstance(op_def.results[0][1], VariadicDef))
        self.typed_operands: set[int] = set()
        self.typed_results: set[int] = set()
        self.optional: set[int] = set()  # operands an optional group has: none when absent

    def steps(self, stmts) -> tuple:
        return tuple(self.step(s) for s in stmts)

    def step(self, stmt):
        kind = type(stmt)
        if kind is PositionalOperandVariable:
            return (_VALUE, stmt.index)
        if kind in (OptionalOperandVariable, VariadicOperandVariable):
            return (_OPTIONAL_VALUES, stmt.index)  # (in a group it anchors: make_plan checks)
        if kind is SoleVariadicOperandVariable:
            return (_VALUES, stmt.index)
        if kind is PunctuationDirective:
            return (_TEXT, stmt.punctuation)
        if kind is KeywordDirective:
            return (_KEYWORD, stmt.keyword)
        if kind is SortedAttrDictDirective:
            if stmt.with_keyword:
                raise _NoPlan
            return (_DICT, (frozenset(stmt.reserved_attr_names),
                            frozenset(stmt.expected_properties)))
        if kind is OptionalGroupDirective:
            return self.group(stmt)
        if kind in (PositionalTypeDirective, StrippedOkTypeDirective):
            inner = stmt.inner
            if stmt.of_operand:
                if self.sole:
                    raise _NoPlan
                self.typed_operands.add(inner.index)
            else:
                self.typed_results.add(inner.index)
            return (_TYPE, (stmt.of_operand, inner.index))
        if kind is TypeDirective and type(stmt.inner) in (OptionalOperandVariable,
                                                          VariadicOperandVariable):
            self.typed_operands.add(stmt.inner.index)  # (`type($deps)` in a group)
            return (_TYPES, stmt.inner.index)
        if kind is FunctionalTypeDirective:
            return self.functional(stmt)
        if _attribute_only(stmt):
            return (_DELEGATE, stmt)
        raise _NoPlan  # (a region, a successor, an operand or type of another kind ...)

    def group(self, stmt):
        first = _first_text(stmt)
        if first is None:
            raise _NoPlan
        anchor = stmt.anchor
        empty = None
        if isinstance(anchor, VariadicOperandVariable | OptionalOperandVariable):
            empty = anchor.index
            self.optional.add(empty)
        then = self.steps((stmt.then_first, *stmt.then_elements))
        other = self.steps(stmt.else_elements)
        keyword = isinstance(stmt.then_first, KeywordDirective)
        return (_GROUP, (first, keyword, then, other, empty))

    def functional(self, stmt):
        ins, out = stmt.operand_typeable_directive, stmt.result_typeable_directive
        if isinstance(ins, OperandsDirective) and type(out) is ResultVariable:
            # (`functional-type(operands, $result)`: the types of all operands, in order)
            self.typed_operands.update(range(len(self.op_def.operands)))
            self.typed_results.add(out.index)
            return (_FUNCTIONAL, ("all", out.index))
        if not (self.sole and isinstance(ins, VariadicOperandVariable)):
            raise _NoPlan
        if type(out) is VariadicResultVariable and self.sole_result:
            self.typed_results.add(0)
            self.typed_operands.add(0)
            return (_FUNCTIONAL, None)  # (all the results: the list)
        if type(out) is not ResultVariable:
            raise _NoPlan
        self.typed_operands.add(0)
        self.typed_results.add(out.index)
        return (_FUNCTIONAL, (out.index,))


def make_plan(program, op_def) -> Plan | None:
    """The plan of ``program`` (a TritonFormatProgram) for an op defined by ``op_def``, or
    None where some part of it is not read here."""
    if program.segmented or program.uses_variables:
        return None
    if op_def.regions or op_def.successors or op_def.attributes:
        return None
    planner = _Planner(op_def)
    if not planner.sole_result and any(
        isinstance(d, VariadicDef | OptionalDef) for _, d in op_def.results
    ):
        return None
    try:
        steps = planner.steps(program.stmts)
    except _NoPlan:
        return None
    typed_operands, typed_results = planner.typed_operands, planner.typed_results
    optional = planner.optional
    if planner.sole_result and 0 not in typed_results:
        return None
    for i, (_, d) in enumerate(op_def.operands):  # (a variadic one: all values, or none)
        if isinstance(d, VariadicDef | OptionalDef) and not (planner.sole or i in optional):
            return None
    operand_types = _inferred(op_def.operands)
    result_types = _inferred(op_def.results)
    operand_types = tuple(None if i in typed_operands else t for i, t in enumerate(operand_types))
    result_types = tuple(None if i in typed_results else t for i, t in enumerate(result_types))
    # every operand and result type is spelled or fixed (an optional operand's: or it has
    # none, when absent)
    if any(t is None for i, t in enumerate(operand_types) if i not in typed_operands | optional):
        return None
    if any(t is None for i, t in enumerate(result_types) if i not in typed_results):
        return None
    return Plan(steps, operand_types, result_types, _open_end(steps))


_PLANS: dict = {}  # (class, id(program)) -> plan or None: the classes with release variants
_STATIC: dict = {}  # class -> plan or None: the others


def plan_for(cls) -> Plan | None:
    """The plan of op class ``cls`` in the release being read (None: it has none)."""
    found = _STATIC.get(cls, False)
    if found is not False:
        return found
    program_for = getattr(cls, "format_program_for", None)
    if program_for is None:
        # (its format program, if its parse is the one irdl_triton_op gave it)
        owner = next((c for c in cls.__mro__ if "parse" in c.__dict__), None)
        found = None
        if owner is not None and "format_program" in owner.__dict__:
            found = make_plan(cls.format_program, cls.get_irdl_definition())
        _STATIC[cls] = found
        return found
    from ..dialects.versions import current

    program = program_for(current())
    key = (cls, id(program))  # (the programs are kept by the class: ids stay theirs)
    found = _PLANS.get(key, False)
    if found is False:
        found = _PLANS[key] = make_plan(program, cls.get_irdl_definition())
    return found


def _blanks(text: str, i: int, end: int) -> int:
    while i < end and text[i] == " ":
        i += 1
    return i


def _brace_end(text: str, i: int, end: int) -> int:
    """After the ``}`` that closes the ``{`` at ``i`` (-1: not before ``end``)."""
    depth = 0
    for j in range(i, end):
        c = text[j]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return j + 1
    return -1


def _type_end(text: str, i: int, end: int) -> int:
    """Where the type whose text starts at ``i`` ends (-1: not a type read here)."""
    m = _WORD.match(text, i, end)
    if m is None:
        return -1
    j = m.end()
    if j < end and text[j] == "<":
        k = balanced_end(text, i)
        return -1 if k is None or k > end else k
    return j


def _type_at(parser, text: str, at: int, t_end: int):
    """The type written from ``at`` to ``t_end``: from the caches, else parsed there."""
    t = text[at:t_end]
    found = SCALAR_TYPES.get(t) or parser.type_cache.get(t)
    if found is not None or not t.startswith(("tensor<", "!")):
        return found
    if t.startswith(("tensor<", "!t")) and balanced_end(text, at) == t_end:
        found = parser.type_at(t)  # (cached or built from its text: no token read)
        if found is not None:
            return found
    parser.resume_from(at)
    try:
        parsed = parser.parse_type()
    except ParseError:
        return None  # (the full parser reports it)
    if parser.current_token.span.start < t_end:
        return None
    return parsed


def _type(parser, text: str, i: int, end: int):
    """``(type, its end)`` for the type written from ``i``, or None."""
    t_end = _type_end(text, i, end)
    if t_end < 0 or (t := _type_at(parser, text, i, t_end)) is None:
        return None
    return t, t_end


def value_of(parser, ref: str, expected):
    """The value ``%name`` or ``%name#N`` if already defined with type ``expected``."""
    hash_at = ref.find("#")
    name = ref[1:] if hash_at < 0 else ref[1:hash_at]
    vals = parser.__dict__["ssa_values"].get(name)
    if vals is None:
        return None
    if hash_at >= 0:
        i = int(ref[hash_at + 1:])
        if i >= len(vals):
            return None
        v = vals[i]
    elif len(vals) != 1:
        return None
    else:
        v = vals[0]
    t = v.type
    if t is not expected and t != expected:
        return None
    return v


def _types(parser, text: str, i: int, end: int, close: str | None):
    """A comma-separated list of types up to ``close`` (consumed): (types, position), or
    None.  Without ``close``: one type or more, as long as a comma follows (MLIR's type
    list)."""
    out = []
    i = _blanks(text, i, end)
    if close is not None and text.startswith(close, i):
        return out, i + 1
    while True:
        found = _type(parser, text, i, end)
        if found is None:
            return None
        t, t_end = found
        out.append(t)
        i = _blanks(text, t_end, end)
        if close is not None and text.startswith(close, i):
            return out, i + 1
        if not text.startswith(",", i):
            return (out, t_end) if close is None else None
        i = _blanks(text, i + 1, end)


def read_with_plan(parser, cls, plan: Plan, text: str, i: int, end: int, n_results: int):
    """Run ``plan`` over ``text[i:end]`` (the op after its name), which names ``n_results``
    results: the op, or None."""
    run = _Run(parser, cls, text, end, plan)
    i = run.steps(plan.steps, i, top=True)
    if i < 0 or _blanks(text, i, end) != end:
        return None
    if plan.open_end:  # (the op may go on past its line: the full parser sees where it ends)
        open_end = _open_end(plan.steps, run.read)
        nxt = SKIP.match(text, end).end()
        if open_end and nxt < len(text) and text.startswith(open_end, nxt):
            return None
    if run.all_operand_types is not None and not run.share_out_operand_types():
        return None
    operands = []
    for index, t in enumerate(run.operand_types):
        ref = run.refs.get(index)
        if ref is None:
            return None
        if isinstance(ref, list):  # (a variadic or optional operand: one type each)
            if not ref:
                continue
            if t is not None and not isinstance(t, list):
                t = [t] * len(ref)  # (fixed by the constraint)
            if t is None or len(t) != len(ref):
                return None
            for r, rt in zip(ref, t):
                if (v := value_of(parser, r, rt)) is None:
                    return None
                operands.append(v)
        elif t is None or (v := value_of(parser, ref, t)) is None:
            return None
        else:
            operands.append(v)
    result_types = run.result_types
    if len(result_types) != n_results or any(t is None for t in result_types):
        return None
    op = fast_create(cls, operands, result_types, run.props, UNKNOWN_LOC)
    if run.attrs:
        op.attributes = run.attrs  # (the op defines none: no defaults to keep)
    return op


class _Run:
    """One run of a plan over a line: what it has read so far."""

    def __init__(self, parser, cls, text: str, end: int, plan: Plan):
        self.parser, self.cls, self.text, self.end = parser, cls, text, end
        self.refs: dict = {}
        self.props: dict = {}
        self.attrs: dict = {}
        self.operand_types = list(plan.operand_types)
        self.result_types = list(plan.result_types)
        self.all_operand_types = None  # (`functional-type(operands, ...)`: the list)
        self.read: list = []  # (per step of the plan: did it read text)

    def steps(self, steps, i: int, top: bool = False) -> int:
        """Run ``steps`` from ``i``: where they stopped, or -1.  (``top``: the plan's own
        steps, for each of which :attr:`read` says whether it read text.)"""
        text, end, parser = self.text, self.end, self.parser
        for kind, arg in steps:
            i = start = _blanks(text, i, end)
            if kind == _VALUE:
                m = _OPERAND.match(text, i, end)
                if m is None:
                    return -1
                self.refs[arg] = m.group()
                i = m.end()
            elif kind == _VALUES or kind == _OPTIONAL_VALUES:
                names = []
                m = _OPERAND.match(text, i, end)
                while m is not None:
                    names.append(m.group())
                    i = m.end()
                    j = _blanks(text, i, end)
                    if not text.startswith(",", j) or kind == _OPTIONAL_VALUES:
                        break  # (an optional operand: one value)
                    j = _blanks(text, j + 1, end)
                    m = _OPERAND.match(text, j, end)
                    if m is None:
                        return -1
                if kind == _OPTIONAL_VALUES and not names:
                    return -1
                self.refs[arg] = names
            elif kind == _TEXT:
                if not text.startswith(arg, i):
                    return -1
                i += len(arg)
            elif kind == _KEYWORD:
                if not text.startswith(arg, i) or _KEYWORD_END.match(text, i + len(arg), end):
                    return -1
                i += len(arg)
            elif kind == _DICT:  # (read by the parser, as the program reads it)
                if text.startswith("{", i):
                    i = self.dictionary(i, *arg)
            elif kind == _GROUP:
                first, keyword, then, other, empty = arg
                present = text.startswith(first, i) and not (
                    keyword and _KEYWORD_END.match(text, i + len(first), end))
                if present:
                    i = self.steps(then, i)
                else:
                    if empty is not None:
                        self.refs[empty] = []
                    i = self.steps(other, i)
            elif kind == _TYPE:
                found = _type(parser, text, i, end)
                if found is None:
                    return -1
                of_operand, index = arg
                (self.operand_types if of_operand else self.result_types)[index], i = found
            elif kind == _TYPES:  # (of a variadic or optional operand)
                found = _types(parser, text, i, end, None)
                if found is None:
                    return -1
                self.operand_types[arg], i = found
            elif kind == _DELEGATE:
                i = self.delegate(arg, i)
            else:  # _FUNCTIONAL: `(T, ...) -> R` or `-> (R, ...)`
                i = self.functional(arg, i)
            if i < 0:
                return -1
            if top:
                self.read.append(i > start)
        return i

    def share_out_operand_types(self) -> bool:
        """The operands' types, written all in one list, given out to the definitions in
        order: one each, as many as an optional or variadic one has values."""
        types = self.all_operand_types
        k = 0
        for index in range(len(self.operand_types)):
            ref = self.refs.get(index)
            if ref is None:
                return False
            n = len(ref) if isinstance(ref, list) else 1
            if isinstance(ref, list):
                self.operand_types[index] = types[k:k + n]
            else:
                self.operand_types[index] = types[k] if k < len(types) else None
            k += n
        return k == len(types)

    def dictionary(self, i: int, reserved, expected) -> int:
        text, parser = self.text, self.parser
        close = _brace_end(text, i, self.end)  # (no string in the line: no `}` in one)
        if close < 0:
            return -1
        parser.resume_from(i)
        try:
            attrs = dict(parser.parse_optional_attr_dict())
        except ParseError:
            return -1  # (the full parser reports it)
        if parser.current_token.span.start < close or not reserved.isdisjoint(attrs):
            return -1
        for name in [k for k in attrs if k in expected]:
            self.props[name] = attrs.pop(name)
        self.attrs.update(attrs)
        return close

    def delegate(self, stmt, i: int) -> int:
        """An attribute or property directive, run by the parser from ``i``."""
        parser, text, end = self.parser, self.text, self.end
        parser.resume_from(i)
        state = ParsingState(self.cls)
        try:
            stmt.parse(parser, state)
        except Exception:  # (ParseError, a value it refuses ...: the full parser reports it)
            return -1
        nxt = parser.current_token.span.start
        if nxt > end:  # (it read to the line's end: only blanks, or comments, after)
            if SKIP.match(text, end).end() != nxt:
                return -1
            nxt = end
        self.props.update(state.properties)
        self.attrs.update(state.attributes)
        return nxt

    def functional(self, arg, i: int) -> int:
        text, end, parser = self.text, self.end, self.parser
        if not text.startswith("(", i):
            return -1
        found = _types(parser, text, i + 1, end, ")")
        if found is None:
            return -1
        ins, i = found
        i = _blanks(text, i, end)
        if not text.startswith("->", i):
            return -1
        i = _blanks(text, i + 2, end)
        if text.startswith("(", i):
            found = _types(parser, text, i + 1, end, ")")
            if found is None:
                return -1
            outs, i = found
        else:
            found = _type(parser, text, i, end)
            if found is None:
                return -1
            outs, i = [found[0]], found[1]
        if arg is not None and arg[0] == "all":  # (every operand's, in order: see below)
            if len(outs) != 1:
                return -1
            self.all_operand_types = ins
            self.result_types[arg[1]] = outs[0]
            return i
        self.operand_types[0] = ins
        if arg is None:  # (a sole variadic result: as many as the line names)
            self.result_types = outs
        elif len(outs) != len(arg):
            return -1
        else:
            for index, t in zip(arg, outs):
                self.result_types[index] = t
        return i
