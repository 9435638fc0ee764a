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

from xdsl.dialects.builtin import UNKNOWN_LOC
from xdsl.irdl.constraints import InferenceContext
from xdsl.irdl.declarative_assembly_format import (
    FunctionalTypeDirective,
    KeywordDirective,
    OperandVariable,
    OptionalGroupDirective,
    OptionalOperandVariable,
    PunctuationDirective,
    ResultVariable,
    TypeDirective,
    VariableDirective,
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

OPERAND = r"%(?:[0-9]+|[A-Za-z_$.-][\w$.-]*)(?:#[0-9]+)?"
_OPERAND = re.compile(OPERAND)
_WORD = re.compile(r"!?[A-Za-z_][\w.$]*")
_KEYWORD_END = re.compile(r"[\w$.]")

# step kinds
_VALUE, _VALUES, _TEXT, _KEYWORD, _DICT, _ABSENT, _TYPE, _FUNCTIONAL = range(8)


@dataclass(frozen=True)
class Plan:
    """What to read, in order (``(kind, argument)`` steps), and the operand and result types
    the format does not spell (fixed by their constraints; None where a step reads it)."""

    steps: tuple
    operand_types: tuple
    result_types: tuple


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


def _inferred(defs) -> tuple | None:
    """Per definition: the type its constraint fixes, or None; None for the whole if some
    definition is variadic or optional other than a sole variadic operand."""
    out = []
    for _, d in defs:
        constr = d.constr  # (a range constraint: the definition's values)
        try:
            fixed = constr.can_infer(set(), length_known=True)
            out.append(constr.infer(InferenceContext(), length=1)[0] if fixed else None)
        except Exception:  # (a constraint that cannot say)
            out.append(None)
    return tuple(out)


def make_plan(program, op_def) -> Plan | None:
    """The plan of ``program`` (a TritonFormatProgram) for an op defined by ``op_def``, or
    None where some part of it is not read here."""
    if program.segmented or program.uses_variables:
        return None
    if op_def.regions or op_def.successors or op_def.attributes:
        return None
    sole_result = len(op_def.results) == 1 and isinstance(op_def.results[0][1], VariadicDef)
    if not sole_result and any(isinstance(d, VariadicDef | OptionalDef) for _, d in op_def.results):
        return None
    sole = len(op_def.operands) == 1 and isinstance(op_def.operands[0][1], VariadicDef)
    steps = []
    typed_operands, typed_results = set(), set()
    absent: set[int] = set()  # operands that only an optional group has: none when absent
    for stmt in program.stmts:
        kind = type(stmt)
        if kind is PositionalOperandVariable:
            steps.append((_VALUE, stmt.index))
        elif kind is SoleVariadicOperandVariable:
            steps.append((_VALUES, None))
        elif kind is PunctuationDirective:
            steps.append((_TEXT, stmt.punctuation))
        elif kind is KeywordDirective:
            steps.append((_KEYWORD, stmt.keyword))
        elif kind is SortedAttrDictDirective:
            if stmt.with_keyword:
                return None
            steps.append((_DICT, (frozenset(stmt.reserved_attr_names),
                                  frozenset(stmt.expected_properties))))
        elif kind is OptionalGroupDirective:
            first = _first_text(stmt)
            if first is None:
                return None
            # (absent: a variadic or optional operand it anchors has no values)
            anchor = stmt.anchor
            empty = None
            if isinstance(anchor, VariadicOperandVariable | OptionalOperandVariable):
                empty = anchor.index
                absent.add(empty)
            steps.append((_ABSENT, (first, empty)))
        elif kind in (PositionalTypeDirective, StrippedOkTypeDirective):
            inner = stmt.inner
            if stmt.of_operand:
                if sole:
                    return None
                typed_operands.add(inner.index)
            else:
                typed_results.add(inner.index)
            steps.append((_TYPE, (stmt.of_operand, inner.index)))
        elif kind is FunctionalTypeDirective:
            ins, out = stmt.operand_typeable_directive, stmt.result_typeable_directive
            if not (sole and isinstance(ins, VariadicOperandVariable)):
                return None
            if type(out) is VariadicResultVariable and sole_result:
                typed_results.add(0)
                typed_operands.add(0)
                steps.append((_FUNCTIONAL, None))  # (all the results: the list)
                continue
            if type(out) is not ResultVariable:
                return None
            typed_operands.add(0)
            typed_results.add(out.index)
            steps.append((_FUNCTIONAL, (out.index,)))
        elif isinstance(stmt, VariableDirective | TypeDirective):
            return None  # (an attribute, a property, a region, a type of another kind)
        else:
            return None
    if sole_result and 0 not in typed_results:
        return None
    for i, (_, d) in enumerate(op_def.operands):  # (a variadic one: all values, or none)
        if isinstance(d, VariadicDef | OptionalDef) and not (sole or i in absent):
            return None
    operand_types = _inferred(op_def.operands)
    result_types = _inferred(op_def.results)
    operand_types = tuple(None if i in typed_operands else t for i, t in enumerate(operand_types))
    result_types = tuple(None if i in typed_results else t for i, t in enumerate(result_types))
    # every operand and result type is spelled or fixed
    if any(t is None for i, t in enumerate(operand_types) if i not in typed_operands | absent):
        return None
    if any(t is None for i, t in enumerate(result_types) if i not in typed_results):
        return None
    return Plan(tuple(steps), operand_types, result_types)


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
        from .fast_ops import balanced_end

        k = balanced_end(text, i)
        return -1 if k is None or k > end else k
    return j


def _type_at(parser, text: str, at: int, t_end: int):
    """The type written from ``at`` to ``t_end``: from the caches, else parsed there."""
    from .fast_ops import SCALAR_TYPES

    t = text[at:t_end]
    found = SCALAR_TYPES.get(t) or parser.type_cache.get(t)
    if found is not None or not t.startswith(("tensor<", "!")):
        return found
    parser.resume_from(at)
    try:
        parsed = parser.parse_type()
    except ParseError:
        return None  # (the full parser reports it)
    if parser.current_token.span.start < t_end:
        return None
    return parsed


def value_of(parser, ref: str, expected):
    """The value ``%name`` or ``%name#N`` if already defined with type ``expected``."""
    name, _, index = ref[1:].partition("#")
    vals = parser.__dict__["ssa_values"].get(name)
    if vals is None:
        return None
    if index:
        i = int(index)
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


def _types(parser, text: str, i: int, end: int, close: str):
    """A comma-separated list of types up to ``close`` (consumed): (types, position), or
    None."""
    out = []
    i = _blanks(text, i, end)
    if text.startswith(close, i):
        return out, i + 1
    while True:
        t_end = _type_end(text, i, end)
        if t_end < 0 or (t := _type_at(parser, text, i, t_end)) is None:
            return None
        out.append(t)
        i = _blanks(text, t_end, end)
        if text.startswith(close, i):
            return out, i + 1
        if not text.startswith(",", i):
            return None
        i = _blanks(text, i + 1, end)


def read_with_plan(parser, cls, plan: Plan, text: str, i: int, end: int, n_results: int):
    """Run ``plan`` over ``text[i:end]`` (the op after its name), which names ``n_results``
    results: the op, or None."""
    refs: dict = {}
    props: dict = {}
    attrs: dict = {}
    operand_types = list(plan.operand_types)
    result_types = list(plan.result_types)
    for kind, arg in plan.steps:
        i = _blanks(text, i, end)
        if kind == _VALUE:
            m = _OPERAND.match(text, i, end)
            if m is None:
                return None
            refs[arg] = m.group()
            i = m.end()
        elif kind == _VALUES:
            names = []
            m = _OPERAND.match(text, i, end)
            while m is not None:
                names.append(m.group())
                j = _blanks(text, m.end(), end)
                if not text.startswith(",", j):
                    i = m.end()
                    break
                j = _blanks(text, j + 1, end)
                m = _OPERAND.match(text, j, end)
                if m is None:
                    return None
            refs[0] = names
        elif kind == _TEXT:
            if not text.startswith(arg, i):
                return None
            i += len(arg)
        elif kind == _KEYWORD:
            if not text.startswith(arg, i) or _KEYWORD_END.match(text, i + len(arg), end):
                return None
            i += len(arg)
        elif kind == _DICT:  # (read by the parser, as the program reads it)
            if text.startswith("{", i):
                close = _brace_end(text, i, end)  # (no string in the line: no `}` in one)
                if close < 0:
                    return None
                reserved, expected = arg
                parser.resume_from(i)
                try:
                    attrs = dict(parser.parse_optional_attr_dict())
                except ParseError:
                    return None  # (the full parser reports it)
                if parser.current_token.span.start < close or not reserved.isdisjoint(attrs):
                    return None
                i = close
                for name in [k for k in attrs if k in expected]:
                    props[name] = attrs.pop(name)
        elif kind == _ABSENT:
            if text.startswith(arg[0], i):
                return None
            if arg[1] is not None:
                refs[arg[1]] = []
        elif kind == _TYPE:
            t_end = _type_end(text, i, end)
            if t_end < 0 or (t := _type_at(parser, text, i, t_end)) is None:
                return None
            of_operand, index = arg
            (operand_types if of_operand else result_types)[index] = t
            i = t_end
        else:  # _FUNCTIONAL: `(T, ...) -> R` or `-> (R, ...)`
            if not text.startswith("(", i):
                return None
            found = _types(parser, text, i + 1, end, ")")
            if found is None:
                return None
            ins, i = found
            i = _blanks(text, i, end)
            if not text.startswith("->", i):
                return None
            i = _blanks(text, i + 2, end)
            if text.startswith("(", i):
                found = _types(parser, text, i + 1, end, ")")
                if found is None:
                    return None
                outs, i = found
            else:
                t_end = _type_end(text, i, end)
                if t_end < 0 or (t := _type_at(parser, text, i, t_end)) is None:
                    return None
                outs, i = [t], t_end
            operand_types[0] = ins
            if arg is None:  # (a sole variadic result: as many as the line names)
                result_types = outs
            elif len(outs) != len(arg):
                return None
            else:
                for index, t in zip(arg, outs):
                    result_types[index] = t
    if _blanks(text, i, end) != end:
        return None
    operands = []
    for index, t in enumerate(operand_types):
        ref = refs.get(index)
        if ref is None:
            return None
        if isinstance(ref, list):  # (a variadic operand: one type each)
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
    if len(result_types) != n_results or any(t is None for t in result_types):
        return None
    op = fast_create(cls, operands, result_types, props, UNKNOWN_LOC)
    if attrs:
        op.attributes = attrs  # (the op defines none: no defaults to keep)
    return op
