"""A fast path for the few op shapes that make up most of Triton IR.

Three quarters of the ops in Inductor kernels are one-line ops of a handful of shapes
(``%r = arith.addi %a, %b : T``, ``%r = tt.splat %x : T -> U``, ``%c = arith.constant 0 :
i32`` ...).  For such a line, :func:`try_fast_op` matches the whole line with one regular
expression, looks its operands up among the values already defined, takes its types from the
parser's type cache, and builds the op directly, without tokenizing.  Anything it is not sure
about (an unknown type text, a forward reference, a type mismatch, an attribute it does not
expect, an inline location) makes it return ``None``, and the op goes through the full parser,
which also produces the error messages.  The result is the same op either way; the corpus
round trip and cubin-identity tests hold it to that.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache, partial

from xdsl.dialects.builtin import (
    UNKNOWN_LOC,
    AnyFloat,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
    i1,
    i64,
)
from xdsl.ir import Block
from xdsl.utils.lexer import Span

from ..dialects.arith import CMPF_PREDICATES, CMPI_PREDICATES, CompareOp, ConstantOp, SelectOp
from ..dialects.base import int_attr
from ..dialects.declarative import has_format, variant_active
from ..dialects.families import ArrowOp, BinaryOp, CastOp
from ..dialects.tt import (
    CACHE_MODIFIER,
    EVICTION_POLICY,
    PROGRAM_DIM,
    AddPtrOp,
    StoreOp,
    GetNumProgramsOp,
    GetProgramIdOp,
    LoadOp,
    MakeRangeOp,
    i1_like,
    loaded_type,
    mask_type,
)
from ..dialects.upstream import PositionalBuild
from ..xdsl_compat import fast_create, unchecked, unchecked_data
from ..dialects.versions import current
from .fast_formats import (
    OPERAND,
    SCALAR_TYPES,
    balanced_end,
    plan_for,
    read_with_plan,
    value_of,
)
from .lexer import SKIP

_NAME = r"%(?:[0-9]+|[A-Za-z_$.-][\w$.-]*)"
# (an operand: a value, or one result of a multi-result op, `%x#1`)
_OPERAND = OPERAND
LINE = re.compile(r"(" + _NAME + r") = ([a-z_]+\.[a-z_.]+) ([^\n]*)")
# Only lines this long are tried: a longer one (a whole module on one line) goes to the full
# parser, so that no op scans to the end of a huge line (which made reading quadratic).
MAX_LINE = 4096


def line_end(text: str, start: int) -> int:
    """End of the line starting at ``start`` if within ``MAX_LINE`` characters and the op
    does not go on past it (:func:`continues`), else -1."""
    eol = text.find("\n", start, start + MAX_LINE)
    if eol < 0:
        eol = len(text) if len(text) - start <= MAX_LINE else -1
    elif continues(text, eol):
        return -1
    return eol


# What may start the token after an op: the next op (`%r = ..`, `"gen.op"`, `dialect.op`),
# a block label, a region's `}`, an alias definition, the end.  Anything else after the
# end of an op's line continues the op on the next line (MLIR is not line-based: a
# location, an attribute dictionary, a successor's operands...): the full parser reads it.
_NOT_NEXT_OP = re.compile(r'[^%"^}#A-Za-z]|loc[ \t\n\r]*\(')


def continues(text: str, eol: int) -> bool:
    """Does the op whose line ends at ``eol`` go on after it (the next token, after blanks
    and comments, is no op's start)?  (Two steps: one pattern would let the skip give back
    blanks, or part of a comment, for the test that follows.)"""
    nxt = SKIP.match(text, eol).end()
    return nxt < len(text) and _NOT_NEXT_OP.match(text, nxt) is not None


# Where the next op may start on a long line: blanks, then `%r = ` / `%r, %s = ` / `%r:2 = `,
# a dialect op's name, a region's `}` or a block label.  No op of the fast path's shapes
# holds one of these outside a string, a location or a `<...>`/`{...}` (which make the op
# fail its shape's pattern, or its type the exact-end check: then the full parser reads it).
# (tried only where a run of blanks starts: else each position of a long run would be tried,
# each taking the rest of the run: quadratic)
_NEXT_OP = re.compile(
    r"(?<![ \t])[ \t]+(?=" + _NAME + r"(?::\d+)?(?:[ \t]*,[ \t]*" + _NAME + r"(?::\d+)?)*[ \t]*=[ \t]"
    r"|[a-z_][\w$]*\.[\w$.]+[ \t(<{\n]|[}^])"
)


def op_end(text: str, start: int) -> int:
    """Where the op at ``start`` may end: its line's end (:func:`line_end`); where that is
    more than ``MAX_LINE`` characters away (a whole module on one line), before the next op
    on the line, found within ``MAX_LINE`` characters (else -1: the full parser reads the
    op).  The fast path takes the op only if all of it up to there has its shape, so a wrong
    guess costs only the fall back.  (The ops of a long line's last ``MAX_LINE`` characters
    go to the full parser: a few, once per line; so does an op longer than ``NEXT_OP_WITHIN``,
    which bounds the search where ops are not separated by blanks.)"""
    eol = text.find("\n", start, start + MAX_LINE)
    if eol >= 0:
        return -1 if continues(text, eol) else eol
    if len(text) - start <= MAX_LINE:
        return len(text)
    head = _HEAD.match(text, start)
    if head is None:
        return -1
    m = _NEXT_OP.search(text, head.end(), start + NEXT_OP_WITHIN)
    return -1 if m is None else m.start()


NEXT_OP_WITHIN = 1024


_HEAD = re.compile(_NAME + r" = [a-z_]+\.[a-z_.]+")
_BINARY = re.compile(r"(" + _OPERAND + r"), (" + _OPERAND + r") : (.+)")
_UNARY = re.compile(r"(" + _OPERAND + r") : (.+)")
_ARROW = re.compile(r"(" + _OPERAND + r")(?: \{axis = (\d+) : i32\})? : (.+?) -> (.+)")
_CAST = re.compile(r"(" + _OPERAND + r") : (.+?) to (.+)")
_ADDPTR = re.compile(r"(" + _OPERAND + r"), (" + _OPERAND + r") : (.+)")
_COMPARE = re.compile(r"([a-z]+), (" + _OPERAND + r"), (" + _OPERAND + r") : (.+)")
# (`true`/`false` take no type: `arith.constant true : i1` is an error, the full parser's)
_CONSTANT = re.compile(r"(-?\d+) : (i\d+|index)")
_DENSE = re.compile(r"dense<(-?[0-9][0-9.eE+-]*|-?0x[0-9A-Fa-f]+|true|false)> : (tensor<.+>)")
_LOAD = re.compile(
    r"(" + _OPERAND + r")(?:, (" + _OPERAND + r"))?(?:, (" + _OPERAND + r"))?"
    r"(?: cacheModifier = ([a-z]+))?(?: evictionPolicy = ([a-z_]+))? : (.+)"
)
_RANGE = re.compile(r"\{end = (\d+) : i32, start = (\d+) : i32\} : (.+)")
_SELECT = re.compile(r"(" + _OPERAND + r"), (" + _OPERAND + r"), (" + _OPERAND + r") : (.+)")
_PROGRAM = re.compile(r"([xyz]) : (i32)")

_SCALARS = SCALAR_TYPES  # (fast_formats': the scalar types, one object each)


# Which ops the fast path reads comes from their definitions: an op whose declared syntax
# (its ``assembly_format``) is one of these formats is read by the regular expression of that
# format's kind; any other format, or the same format with something changed, goes to the full
# parser.  (The formats of xDSL's own arith/math ops and of ttopt's ArrowOp family.)
FORMAT_KINDS = {
    "$lhs `,` $rhs attr-dict `:` type($result)": "binary",
    "$lhs `,` $rhs (`overflow` `` $overflowFlags^)? attr-dict `:` type($result)": "binary",
    "$lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($result)": "binary",
    "$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)": "unary",
    "$operand attr-dict `:` type($result)": "unary",
    "$input attr-dict `:` type($input) `to` type($result)": "cast",
    ArrowOp.assembly_format: "arrow",
}


@lru_cache(maxsize=None)
def _kind(cls) -> str | None:
    fmt = getattr(cls, "assembly_format", None)
    if fmt is None and hasattr(cls, "get_irdl_definition"):
        fmt = cls.get_irdl_definition().assembly_format
    if issubclass(cls, PositionalBuild):
        # xDSL's own op classes behind ttopt's adapter (ttopt.dialects.upstream), whose build
        # takes positional arguments and fills in the default properties (`fastmath = none`,
        # `overflowFlags = none`) as xDSL's parser does
        if issubclass(cls, ConstantOp):
            return "constant"
        kind = FORMAT_KINDS.get(fmt)
        return kind if kind in ("binary", "unary", "cast") else None
    if issubclass(cls, ArrowOp):  # (not an op that adds clauses to the family's format)
        return FORMAT_KINDS.get(fmt) if has_format(cls, ArrowOp) else None
    if issubclass(cls, BinaryOp):
        return "binary"
    if issubclass(cls, CastOp):
        plain = cls._parse_middle.__func__ is CastOp._parse_middle.__func__
        return "cast" if plain else None
    if cls is AddPtrOp:
        return "addptr"
    if issubclass(cls, CompareOp):
        return "compare"
    if cls is LoadOp:
        return "load"
    if cls is MakeRangeOp:
        return "make_range"
    if cls is SelectOp:
        return "select"
    if cls in (GetProgramIdOp, GetNumProgramsOp):
        return "program_dim"
    return None


def _split_top(text: str, sep: str = ", ") -> list[str]:
    """Split at `sep` outside <...> brackets."""
    parts, depth, last, i = [], 0, 0, 0
    n, k = len(text), len(sep)
    while i < n:
        c = text[i]
        if c == "<":
            depth += 1
        elif c == ">" and text[i - 1] != "-":
            depth -= 1
        elif depth == 0 and text.startswith(sep, i):
            parts.append(text[last:i])
            i += k
            last = i
            continue
        i += 1
    parts.append(text[last:])
    return parts




def try_fast_op(parser, start: int):
    """Parse the op line at `start` if it has a common shape; None to use the full parser."""
    text = parser.source
    eol = op_end(text, start)
    m = LINE.match(text, start, eol) if eol >= 0 else None
    if m is None:
        return None
    result_name, op_name, tail = m.groups()
    tail = tail.rstrip(" \t")
    end = m.end()  # the end of the line: where the reader keys an op's trailing location
    if "loc(" in tail or '"' in tail:
        return None
    known = parser.fast_kinds.get(op_name)
    if known is None:  # (once per op name and parser: a parser reads one release's syntax)
        cls = parser.ctx.get_optional_op(op_name)
        if cls is None:
            return None
        kind = _kind(cls)
        if kind is not None and _has_variants(cls) and variant_active(cls, current()):
            kind = None  # (another release's format: the plan's)
        known = parser.fast_kinds[op_name] = (cls, kind)
    cls, kind = known
    op = None
    if kind is not None:
        op = _by_kind(parser, cls, kind, op_name, text, m.start(3), tail)
    if op is None:  # (an op whose format is simple enough: read by its plan)
        plan = plan_for(cls)
        if plan is None:
            return None
        op = read_with_plan(parser, cls, plan, text, m.start(3), m.start(3) + len(tail), 1)
        if op is None:
            return None
    parser.define_result(result_name[1:], _item(op.results, 0), start)
    return op, end


def _by_kind(parser, cls, kind: str, op_name: str, text: str, tail_start: int, tail: str):
    """The op of kind ``kind`` written ``tail`` (from ``tail_start``), or None."""
    types = parser.type_cache

    def typ(t: str, rel: int):
        """The type spelled `t` at `tail_start + rel`: from the cache, else parsed there."""
        found = _SCALARS.get(t) or types.get(t)
        if found is not None or not t.startswith(("tensor<", "!")):
            return found
        at = tail_start + rel
        if balanced_end(text, at) != at + len(t):  # (a type the line does not hold whole,
            return None  # `tensor<2x` + newline + `f32>`: the full parser reads the op)
        found = parser.type_at(t)
        if found is not None:
            return found
        parser.resume_from(at)
        parsed = parser.parse_type()
        if parser.current_token.span.start < at + len(t):
            return None
        return parsed

    value = partial(_defined, parser)  # (value(name, expected): no Python frame a call)

    props: dict = {}
    if kind == "binary":
        mm = _BINARY.fullmatch(tail)
        if not mm or not (t := typ(mm.group(3), mm.start(3))):
            return None
        a, b = value(mm.group(1), t), value(mm.group(2), t)
        if a is None or b is None:
            return None
        op = _make(cls, [a, b], [t])
    elif kind == "unary":
        mm = _UNARY.fullmatch(tail)
        if not mm or not (t := typ(mm.group(2), mm.start(2))):
            return None
        if (x := value(mm.group(1), t)) is None:
            return None
        op = _make(cls, [x], [t])
    elif kind in ("arrow", "cast"):
        mm = (_ARROW if kind == "arrow" else _CAST).fullmatch(tail)
        if not mm:
            return None
        if kind == "arrow":
            x_name, axis, t_in, t_out = mm.groups()
            if axis is not None:
                if "axis" not in cls._property_names():
                    return None
                props["axis"] = int_attr(int(axis))
            i_in, i_out = mm.start(3), mm.start(4)
        else:
            x_name, t_in, t_out = mm.groups()
            i_in, i_out = mm.start(2), mm.start(3)
        src_t, res_t = typ(t_in, i_in), typ(t_out, i_out)
        if not src_t or not res_t or (x := value(x_name, src_t)) is None:
            return None
        op = _make(cls, [x], [res_t], props)
    elif kind == "addptr":
        mm = _ADDPTR.fullmatch(tail)
        if not mm:
            return None
        type_texts = _split_top(mm.group(3))
        if len(type_texts) != 2:
            return None
        pt = typ(type_texts[0], mm.start(3))
        ot = typ(type_texts[1], mm.start(3) + len(type_texts[0]) + 2)
        if not pt or not ot:
            return None
        p, o = value(mm.group(1), pt), value(mm.group(2), ot)
        if p is None or o is None:
            return None
        op = _make(cls, [p, o], [pt])
    elif kind == "compare":
        mm = _COMPARE.fullmatch(tail)
        table = CMPI_PREDICATES if op_name == "arith.cmpi" else CMPF_PREDICATES
        if not mm or mm.group(1) not in table or not (t := typ(mm.group(4), mm.start(4))):
            return None
        a, b = value(mm.group(2), t), value(mm.group(3), t)
        if a is None or b is None:
            return None
        op = _make(cls, [a, b], [i1_like(t)], {"predicate": int_attr(table[mm.group(1)], i64)})
    elif kind == "load":
        mm = _LOAD.fullmatch(tail)
        if not mm or not (pt := typ(mm.group(6), mm.start(6))):
            return None
        try:
            rt = loaded_type(pt)
        except ValueError:
            return None
        names = [n for n in mm.group(1, 2, 3) if n is not None]
        values = [value(n, t) for n, t in zip(names, [pt, mask_type(pt), rt])]
        if any(v is None for v in values):
            return None
        if not _cache_evict(mm.group(4), mm.group(5), props):
            return None
        props["operandSegmentSizes"] = _segments(len(values))
        op = _make(cls, values, [rt], props)
    elif kind == "make_range":
        mm = _RANGE.fullmatch(tail)
        if not mm or not (t := typ(mm.group(3), mm.start(3))):
            return None
        op = _make(cls, [], [t], {"end": int_attr(int(mm.group(1))), "start": int_attr(int(mm.group(2)))})
    elif kind == "select":
        mm = _SELECT.fullmatch(tail)
        if not mm:
            return None
        type_texts = _split_top(mm.group(4))
        if len(type_texts) == 1:
            ct, t = i1, typ(type_texts[0], mm.start(4))
        elif len(type_texts) == 2:
            ct = typ(type_texts[0], mm.start(4))
            t = typ(type_texts[1], mm.start(4) + len(type_texts[0]) + 2)
        else:
            return None
        if not ct or not t:
            return None
        vals = [value(mm.group(1), ct), value(mm.group(2), t), value(mm.group(3), t)]
        if any(v is None for v in vals):
            return None
        op = _make(cls, vals, [t])
    elif kind == "program_dim":
        mm = _PROGRAM.fullmatch(tail)
        if not mm:
            return None
        op = _make(cls, [], [_SCALARS["i32"]], {"axis": int_attr(PROGRAM_DIM[mm.group(1)])})
    elif tail.startswith("dense<"):  # constant splat
        mm = _DENSE.fullmatch(tail)
        if not mm or not (t := typ(mm.group(2), mm.start(2))):
            return None
        attr = splat_attr(t, mm.group(1))
        if attr is None:
            return None
        op = _make(cls, [], [t], {"value": attr})
    else:  # constant
        mm = _CONSTANT.fullmatch(tail)
        if not mm:
            return _scalar_constant(cls, tail)
        lit, t = mm.group(1), _SCALARS.get(mm.group(2))
        if t is None or t is i1:  # (i128 and other widths, and i1: the full parser)
            return None
        v = int(lit)
        try:
            attr = int_attr(v, t) if isinstance(t, IntegerType) else IntegerAttr(v, t)
        except Exception:
            return None  # out of range: the full parser reports it
        op = _make(cls, [], [t], {"value": attr})
    return op


def _scalar_constant(cls, tail: str):
    """``arith.constant 1.5e+00 : f32`` (a decimal literal with its point) and
    ``arith.constant true``/``false``, as xDSL's attribute parser builds them (the reader's
    own rules, for hexadecimal bits, integers written for floats and values out of range,
    are the full parser's)."""
    if tail in ("true", "false"):
        t, attr = i1, IntegerAttr(int(tail == "true"), IntegerType(1))
    else:
        mm = _FLOAT_CONSTANT.fullmatch(tail)
        if mm is None:
            return None
        t = _SCALARS[mm.group(2)]
        try:
            value = float(mm.group(1))
            if math.isinf(value):
                return None  # (out of range for a double: the full parser's rules)
            attr = FloatAttr(value, t)
        except Exception:
            return None  # (out of range for the type)
    return _make(cls, [], [t], {"value": attr})


_FLOAT_CONSTANT = re.compile(r"(-?[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?) : (f16|bf16|f32|f64)")


@lru_cache(maxsize=None)
def _has_variants(cls) -> bool:
    """Has op class ``cls`` formats of other releases (``SYNTAX_VARIANTS``)?"""
    return bool(getattr(cls, "SYNTAX_VARIANTS", ()))


_item = tuple.__getitem__  # (xDSL's SSAValues.__getitem__ is a Python function)


_DIRECT: dict[type, bool] = {}
FAST_CREATE = True  # (off: every op through ``cls.build``; tests compare the two)


def _make(cls, operands: list, result_types: list, properties: dict | None = None):
    """``cls.build(operands, result_types, properties)`` as the fast path calls it: where that
    is ``create`` (ttopt's ops; upstream ops without segment sizes), made by
    :func:`ttopt.xdsl_compat.fast_create`."""
    direct = _DIRECT.get(cls)
    if direct is None:
        direct = _DIRECT[cls] = not (
            issubclass(cls, PositionalBuild) and cls.get_irdl_definition().options
        )
    if not direct:
        return cls.build(operands, result_types, properties)
    if not FAST_CREATE:
        return cls.create(operands=operands, result_types=result_types,
                          properties=dict(properties or {}), location=UNKNOWN_LOC)
    return fast_create(cls, operands, result_types, {} if properties is None else properties,
                       UNKNOWN_LOC)


# The value already defined as `%name` (or `%name#N`) if it has type `expected`, else None
# (a forward reference or a type mismatch is left to the full parser).
_defined = value_of


def _cache_evict(cache: str | None, evict: str | None, props: dict) -> bool:
    """Put the `cacheModifier` / `evictionPolicy` keywords into `props`; False if unknown."""
    if cache:
        if cache not in CACHE_MODIFIER:
            return False
        props["cache"] = int_attr(CACHE_MODIFIER[cache])
    if evict:
        if evict not in EVICTION_POLICY:
            return False
        props["evict"] = int_attr(EVICTION_POLICY[evict])
    return True


@lru_cache(maxsize=4)
def _segments(n: int):
    from xdsl.dialects.builtin import DenseArrayBase, i32

    return DenseArrayBase.from_list(i32, [1, int(n > 1), int(n > 2)])


@lru_cache(maxsize=4096)
def splat_attr(t, literal: str):
    """``dense<literal> : t`` with every element equal (the reader's rules: hex is bits).
    Memoised: attributes are immutable values, so equal constants may share one."""
    if not isinstance(t, TensorType):
        return None
    elem = t.element_type
    try:  # (i128 and wider: xDSL cannot pack them, the full parser says so)
        size = getattr(elem, "compile_time_size", None)
    except Exception:
        return None
    if size is None:
        return None
    n = 1
    for d in t.get_shape():
        n *= d
    try:
        if literal.lstrip("-")[:2] in ("0x", "0X"):
            if not isinstance(elem, AnyFloat) or literal.startswith("-"):
                return None
            bits = int(literal, 16)
            if bits >= 1 << (8 * size):
                return None
            one = bits.to_bytes(size, "little")
        elif isinstance(elem, AnyFloat):
            if not _FLOAT_LITERAL.fullmatch(literal):
                return None  # (MLIR's float literal has its point: `1e5`, `1` are the parser's)
            one = elem.pack([float(literal)])
        elif isinstance(elem, IntegerType):
            if literal in ("true", "false"):
                if elem.width.data != 1:
                    return None
                v = int(literal == "true")
            elif elem.width.data == 1 or not re.fullmatch(r"-?\d+", literal):
                return None
            else:
                v = int(literal)
            one = elem.pack([elem.get_normalized_value(v)])  # (what from_list packs)
        else:
            return None
    except Exception:
        return None
    if not SPLAT_UNCHECKED:
        return DenseIntOrFPElementsAttr(t, BytesAttr(one * n))
    # (a tensor type of a packable element and exactly its elements' bytes: what the
    # constructor's checks ask; test_fast_attrs rebuilds it with them)
    return unchecked(DenseIntOrFPElementsAttr, t, unchecked_data(BytesAttr, one * n))


_FLOAT_LITERAL = re.compile(r"-?[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?")
SPLAT_UNCHECKED = True  # (off: the checking constructor; tests compare the two)


_STORE_LINE = re.compile(
    r"tt\.store (" + _OPERAND + r"), (" + _OPERAND + r")(?:, (" + _OPERAND + r"))?"
    r"(?: cacheModifier = ([a-z]+))?(?: evictionPolicy = ([a-z_]+))? : ([^\n]+)"
)


def try_fast_store(parser, start: int):
    """``tt.store %p, %v(, %m)? ... : T`` on one line; None to use the full parser."""
    text = parser.source
    eol = line_end(text, start)
    m = _STORE_LINE.match(text, start, eol) if eol >= 0 else None
    if m is None or "loc(" in m.group(6):
        return None
    t_text = m.group(6).rstrip(" \t")
    pt = _SCALARS.get(t_text) or parser.type_cache.get(t_text)
    if pt is None:
        return None
    try:
        vt = loaded_type(pt)
    except ValueError:
        return None
    names = [n for n in m.group(1, 2, 3) if n is not None]
    values = [_defined(parser, n, t) for n, t in zip(names, [pt, vt, mask_type(pt)])]
    if any(v is None for v in values):
        return None
    props: dict = {}
    if not _cache_evict(m.group(4), m.group(5), props):
        return None
    return _make(StoreOp, values, [], props), m.end()


_BARE_NAME = re.compile(r"[a-z_]+\.[a-z_.]+(?![\w$.])")


def try_fast_bare(parser, start: int):
    """An op without results whose format has a plan (:mod:`.fast_formats`):
    ``ttg.local_dealloc %a : T``, ``ttng.fence_async_shared``; None to use the full
    parser.  (Its name and plan first: most lines that start so, a region op's or a
    function's, have none, and end here.)"""
    text = parser.source
    m = _BARE_NAME.match(text, start)
    if m is None:
        return None
    cls = parser.ctx.get_optional_op(m.group())
    if cls is None or (plan := plan_for(cls)) is None:
        return None
    eol = line_end(text, start)
    if eol < 0:
        return None
    tail = text[m.end():eol].rstrip(" \t")
    if "loc(" in tail or '"' in tail:
        return None
    op = read_with_plan(parser, cls, plan, text, m.end(), m.end() + len(tail), 0)
    return None if op is None else (op, eol)


_TERMINATOR_LINE = re.compile(
    r"(scf\.yield|tt\.reduce\.return|tt\.scan\.return|tt\.return)"
    r"(?: ((?:" + _OPERAND + r")(?:, " + _OPERAND + r")*) : ([^\n]+?))?[ \t]*(?=\n|$)"
)


def try_fast_terminator(parser, start: int):
    """``scf.yield %a, %b : T, U`` / ``tt.reduce.return`` / ``tt.scan.return`` /
    ``tt.return`` (with or without values) on one line; None to use the full parser."""
    text = parser.source
    eol = line_end(text, start)
    m = _TERMINATOR_LINE.match(text, start, eol) if eol >= 0 else None
    if m is None:
        return None
    cls = parser.ctx.get_optional_op(m.group(1))
    if cls is None:
        return None
    values = []
    if m.group(2) is not None:
        names = m.group(2).split(", ")
        type_texts = _split_top(m.group(3))
        if len(names) != len(type_texts) or "loc(" in m.group(3):
            return None
        for name, t_text in zip(names, type_texts):
            t = _SCALARS.get(t_text) or parser.type_cache.get(t_text)
            if t is None or (v := _defined(parser, name, t)) is None:
                return None
            values.append(v)
    elif m.group(1) not in ("scf.yield", "tt.return"):  # (the others need `: type`)
        return None
    return _make(cls, values, [], {}), m.end()


_FOR_HEADER = re.compile(
    r"(" + _NAME + r") = (" + _NAME + r") to (" + _NAME + r") step (" + _NAME + r")"
    r"(?: iter_args\(((?:" + _NAME + r") = (?:" + _NAME + r")(?:, (?:" + _NAME + r") = (?:"
    + _NAME + r"))*)\) -> \(([^\n{}]*)\))?[ \t]*: ([a-z0-9]+)[ \t]*(?=\{)"
)


def try_fast_for_header(parser, start: int):
    """The header of ``scf.for %i = %lb to %ub step %s iter_args(%a = %x, ...) -> (T, ...) :
    T {`` on one line, from ``%i`` at ``start`` to just before ``{``: ``(indvar, lb, ub,
    step, iter operands, iter args, end)`` with the arguments as the parser's
    ``Argument`` objects; None to use the full parser (an unknown type text, a value not yet
    defined or of another type)."""
    from xdsl.parser import Parser

    text = parser.source
    eol = line_end(text, start)
    m = _FOR_HEADER.match(text, start, eol) if eol >= 0 else None
    if m is None:
        return None
    iv_type = _SCALARS.get(m.group(7))
    if iv_type is None:
        return None
    bounds = [_defined(parser, m.group(i), iv_type) for i in (2, 3, 4)]
    if any(b is None for b in bounds):
        return None
    inp = parser.lexer.input
    operands, args = [], []
    if m.group(5) is not None:
        pairs = m.group(5).split(", ")
        type_texts = _split_top(m.group(6))
        if len(pairs) != len(type_texts):
            return None
        at = m.start(5)
        for pair, t_text in zip(pairs, type_texts):
            t = _SCALARS.get(t_text) or parser.type_cache.get(t_text)
            arg_name, _, init = pair.partition(" = ")
            if t is None or (v := _defined(parser, init, t)) is None:
                return None
            operands.append(v)
            args.append(Parser.Argument(Span(at, at + len(arg_name), inp), t))
            at += len(pair) + 2
    indvar = Parser.Argument(Span(m.start(1), m.end(1), inp), iv_type)
    return indvar, *bounds, operands, args, m.end()


# a successor: `^label` or `^label(%a, %b : T, U)` (MLIR's suffix-id: ASCII only)
_LABEL = r"\^((?:[0-9]+|[A-Za-z_$.-][A-Za-z0-9_$.-]*))"
_SUCCESSOR = _LABEL + r"(?:\(((?:" + _NAME + r")(?:, " + _NAME + r")*) : ([^()\n]+)\))?"
_BRANCH_LINE = re.compile(
    r"cf\.(?:br " + _SUCCESSOR + r"|cond_br (" + _NAME + r"), " + _SUCCESSOR + r", "
    + _SUCCESSOR + r")[ \t]*(?=\n|$)"
)


def try_fast_branch(parser, start: int):
    """``cf.br ^bb(%a : T)`` / ``cf.cond_br %c, ^bb1, ^bb2(%a, %b : T, U)`` on one line (a
    successor's arguments optional); None to use the full parser (a value not yet defined or
    of another type, an attribute dictionary, an inline location).  A label not yet defined
    is a forward reference, recorded as the parser's ``parse_optional_successor`` records
    it, so that a label never defined is the same error."""
    text = parser.source
    eol = line_end(text, start)
    m = _BRANCH_LINE.match(text, start, eol) if eol >= 0 else None
    if m is None:
        return None
    if m.group(1) is not None:  # cf.br
        cls = parser.ctx.get_optional_op("cf.br")
        groups = (1,)
        operands = _successor_operands(parser, m, 1)
        properties: dict = {}
    else:
        cls = parser.ctx.get_optional_op("cf.cond_br")
        groups = (5, 8)
        cond = _defined(parser, m.group(4), i1)
        then, other = _successor_operands(parser, m, 5), _successor_operands(parser, m, 8)
        if cond is None or then is None or other is None:
            return None
        operands = [cond, *then, *other]
        properties = {"operandSegmentSizes": _segment_sizes(len(then), len(other))}
    if cls is None or operands is None:
        return None
    op = fast_create(cls, operands, [], properties, UNKNOWN_LOC)
    op.successors = [_successor_block(parser, m, g) for g in groups]  # (links the uses)
    return op, m.end()


def _successor_operands(parser, m, group: int):
    """The operands passed to the successor whose label is ``m.group(group)`` (their names
    and types: the next two groups); None if one is not a value defined already with that
    type, or a type text is not a known type."""
    names, type_texts = m.group(group + 1), m.group(group + 2)
    if names is None:
        return []
    names, type_texts = names.split(", "), _split_top(type_texts)
    if len(names) != len(type_texts) or "loc(" in m.group(group + 2):
        return None
    values = []
    for name, t_text in zip(names, type_texts):
        t = _SCALARS.get(t_text) or parser.type_cache.get(t_text)
        if t is None or (v := _defined(parser, name, t)) is None:
            return None
        values.append(v)
    return values


def _successor_block(parser, m, group: int):
    """The block of the label ``m.group(group)`` as xDSL's ``parse_optional_successor``
    finds or makes it (a forward reference: a new block, its span recorded)."""
    name = m.group(group)
    known = parser.blocks.get(name)
    if known is not None:
        return known[0]
    parser.forward_block_references[name].append(Span(m.start(group) - 1, m.end(group), parser.lexer.input))
    block = Block()
    if not Block.is_default_block_name(name):
        block.name_hint = name
    parser.blocks[name] = (block, None)
    return block


@lru_cache(maxsize=64)
def _segment_sizes(then: int, other: int):
    from xdsl.dialects.builtin import DenseArrayBase, i32

    return DenseArrayBase.from_list(i32, [1, then, other])
