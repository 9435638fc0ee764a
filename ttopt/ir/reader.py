"""Read Triton TTIR/TTGIR text into an xDSL module.

What this adds to xDSL's parser:

* version checks first: IR from other Triton versions gets a clear error naming the version;
* ``#loc`` alias definitions (printed after their uses by Triton) are parsed up front
  (:mod:`ttopt.ir.locations`);
* ``dense<0xFF800000> : tensor<..xf32>`` (how Triton prints -inf) is read as *bits*: xDSL 0.74
  reads it as the integer 4286578688 converted to float, a silent miscompile;
* splat ``dense<..>`` literals are built by repeating the element's bytes (xDSL packs one
  Python float per element);
* types are memoised by their text: a kernel spells the same ``tensor<...>`` hundreds of
  times;
* every error becomes a :class:`~ttopt.errors.TTOptError` carrying file, line and column.
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache

from xdsl.dialects.builtin import (
    AnyFloat,
    FileLineColLoc,
    IndexType,
    IntAttr,
    IntegerType,
    TensorType,
    VectorType,
    StringAttr,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    ModuleOp,
)
from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError
from xdsl.utils.mlir_lexer import MLIRTokenKind

from ..dialects import make_context
from ..errors import TTOptError, line_col
from .fast_ops import try_fast_op, try_fast_store
from .lexer import FastMLIRLexer
from .locations import LocAliasTable, extract_loc_aliases


@dataclass
class TritonModule:
    """A parsed module plus what is needed to print it back the way it came."""

    op: ModuleOp
    filename: str
    attr_alias_lines: list[str] = field(default_factory=list)
    attr_aliases: dict[str, Attribute] = field(default_factory=dict)
    locs: LocAliasTable | None = None


# ------------------------------------------------------------------ version detection
_VERSION_SIGNS = [
    (
        re.compile(r"triton_gpu\."),
        "this looks like Triton 3.0-3.2 IR (dialect prefix 'triton_gpu.'); "
        "ttopt reads Triton 3.3+ IR ('ttg.'), tested with 3.6",
    ),
    (
        re.compile(r"(?<!\")\btt\.(?:load|store) %[^\n]*?(?<!<)\{[^}\n]*\b(?:cache|evict) = \d+ : i32"),
        "this looks like Triton 2.x IR ('{cache = .., evict = .., isVolatile = ..}' on "
        "tt.load/tt.store); ttopt reads Triton 3.3+ IR, tested with 3.6",
    ),
    (
        re.compile(r"(?<!\")\btt\.(?:load|store) %[^\n]*\b(?:cachePolicy|cache_policy|l2CachePolicy)\b"),
        "this looks like Triton 3.9+ IR (cache-policy syntax on tt.load/tt.store); "
        "ttopt reads Triton 3.3-3.6 IR",
    ),
]


def check_version(text: str, filename: str) -> None:
    for pattern, message in _VERSION_SIGNS:
        m = pattern.search(text)
        if m is not None:
            ln, col = line_col(text, m.start())
            raise TTOptError(message, filename, ln, col)


# ------------------------------------------------------------------ the parser
_VALID_NAME = re.compile(r"[A-Za-z_$.-][\w$.-]*")


class TritonParser(Parser):
    """xDSL's parser with the fixes Triton IR needs (see module docstring)."""

    def __init__(self, ctx, text: str, name: str, trailing_locs: dict[int, str] | None = None):
        super().__init__(ctx, text, name)
        fast = FastMLIRLexer(self.lexer.input)
        self._parser_state.lexer = fast
        self._parser_state.current_token = fast.lex()
        self._trailing_locs = trailing_locs or {}
        self._type_cache: dict[str, Attribute] = {}
        self._text = text
        self._name = name
        self._after_loc = -1
        self._line_starts: list[int] | None = None

    # --- SSA names kept exactly (xDSL strips a `_N` suffix from name hints)
    def _register_ssa_definition(self, name, values, span):  # type: ignore[override]
        if name in self.ssa_values or name in self.forward_ssa_references:
            super()._register_ssa_definition(name, values, span)  # errors, forward uses
        else:
            self.ssa_values[name] = tuple(values)
        if _VALID_NAME.fullmatch(name):
            for v in values:
                v._name = name  # noqa: SLF001

    # --- an op written without `loc(...)` gets the location MLIR gives it: file:line:col of
    #     its first token (so that Triton compiling our output sees the same locations)
    def parse_optional_location(self):  # type: ignore[override]
        loc = super().parse_optional_location()
        if loc is not None:
            self._after_loc = self._current_token.span.start
        return loc

    def parse_operation(self):  # type: ignore[override]
        start = self._current_token.span.start
        kind = self._current_token.kind
        fast = None
        if kind == MLIRTokenKind.PERCENT_IDENT:
            fast = try_fast_op(self, start)
        elif kind == MLIRTokenKind.BARE_IDENT and self._text.startswith("tt.store ", start):
            fast = try_fast_store(self, start)
        if fast is not None:  # a common one-line op (ttopt.ir.fast_ops)
            op, end = fast
            self._resume_from(end)
            name = self._trailing_locs.get(end)
            if name is not None:
                op.location = self.attribute_aliases[name]
            else:
                ln, col = self._line_col(start)
                op.location = FileLineColLoc(StringAttr(self._name), IntAttr(ln), IntAttr(col))
            return op
        op = super().parse_operation()
        if self._trailing_locs:
            name = self._trailing_locs.get(self._end_of_line_of_last_token())
            if name is not None:
                op.location = self.attribute_aliases[name]
                return op
        if self._after_loc != self._current_token.span.start:
            ln, col = self._line_col(start)
            op.location = FileLineColLoc(StringAttr(self._name), IntAttr(ln), IntAttr(col))
        return op

    def _end_of_line_of_last_token(self) -> int:
        text = self._text
        i = self._current_token.span.start - 1
        while True:
            while i >= 0 and text[i] in " \t\r\n":
                i -= 1
            first = text.rfind("\n", 0, i + 1) + 1
            while first <= i and text[first] in " \t":
                first += 1
            if i < 0 or not text.startswith("//", first):
                break
            line_start = first
            i = text.rfind("\n", 0, line_start)  # a comment line between two ops: look above
        eol = text.find("\n", i + 1)
        return len(text) if eol < 0 else eol

    def _line_col(self, offset: int) -> tuple[int, int]:
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self._text)]
        i = bisect.bisect_right(self._line_starts, offset) - 1
        return i + 1, offset - self._line_starts[i] + 1

    # --- unknown ops: point at the op name, not past it
    def _get_op_by_name(self, name: str):  # type: ignore[override]
        op_type = self.ctx.get_optional_op(name, dialect_stack=self._parser_state.dialect_stack)
        if op_type is not None:
            return op_type
        start = self._text.rfind(name, 0, self._current_token.span.start)
        if start < 0:
            start = self._current_token.span.start
        self.raise_error(f"operation '{name}' is unknown", start, start + len(name))

    # --- memoised types: `tensor<...>` and `!tt.`/`!ttg.` types are looked up by text
    def parse_type(self):  # type: ignore[override]
        tok = self._current_token
        start = tok.span.start
        text = self._text
        if text.startswith("tensor<", start) or text.startswith("!t", start):
            end = _balanced_end(text, start)
            if end is not None:
                key = text[start:end]
                cached = self._type_cache.get(key)
                if cached is not None:
                    self._resume_from(end)
                    return cached
                result = super().parse_type()
                if self._current_token.span.start >= end:
                    self._type_cache[key] = result
                return result
        return super().parse_type()

    # --- the type after `dense<...> :` (xDSL rebuilds an IRDL constraint on every call)
    def _parse_dense_literal_type(self):  # type: ignore[override]
        pos = self.pos
        typ = self.parse_type()
        if not isinstance(typ, TensorType | VectorType) or not isinstance(
            typ.element_type, AnyFloat | IntegerType | IndexType
        ):
            self.raise_error("dense literal expects a tensor of integers or floats", pos, self.pos)
        return typ

    # --- dense literals: hex floats as bits, splats by repetition
    def parse_dense_int_or_fp_elements_attr(self, type):  # type: ignore[override]
        lt = self._current_token.span.start
        self.parse_punctuation("<", " in dense attribute")
        if self._current_token.kind in (MLIRTokenKind.STRING_LIT, MLIRTokenKind.GREATER):
            self._resume_from(lt)
            return super().parse_dense_int_or_fp_elements_attr(type)
        values, shape = self._parse_tensor_literal()
        self.parse_punctuation(">", " in dense attribute")
        if type is None:
            self.parse_punctuation(":", " in dense attribute")
            type = self._parse_dense_literal_type()
        elem = type.element_type
        n = math.prod(type.get_shape())
        size = elem.compile_time_size
        chunks = []
        for v in values:
            text = v.span.text.lstrip("-")
            if isinstance(elem, AnyFloat) and text[:2] in ("0x", "0X"):
                bits = int(text, 16)
                if bits >= 1 << (8 * size):
                    self.raise_error("hexadecimal float literal too large", v.span)
                chunks.append(bits.to_bytes(size, "little"))
            else:
                one = DenseIntOrFPElementsAttr.from_list(
                    _scalar_tensor(elem), [v.to_type(self, elem)]
                )
                chunks.append(one.data.data)
        raw = b"".join(chunks)
        if shape:
            if list(type.get_shape()) != shape:
                self.raise_error(
                    f"Shape mismatch in dense literal. Expected {list(type.get_shape())} "
                    f"shape from the type, but got {shape} shape."
                )
        else:
            raw = raw * n
        return DenseIntOrFPElementsAttr(type, BytesAttr(raw))


def _scalar_tensor(elem):
    from xdsl.dialects.builtin import TensorType

    return TensorType(elem, [1])


def _balanced_end(text: str, start: int) -> int | None:
    """End offset of the type starting at ``start`` (matching ``<...>``), or None."""
    i = text.find("<", start)
    if i < 0 or i - start > 24:
        return None
    depth = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "<":
            depth += 1
        elif c == ">":
            if text[i - 1] != "-":
                depth -= 1
                if depth == 0:
                    return i + 1
        elif c == "\n" or c == '"':
            return None
        i += 1
    return None


# ------------------------------------------------------------------ entry point
_ATTR_ALIAS_LINE = re.compile(r"^([#!][\w$.-]+)[ \t]*=[ \t]*(.*?)[ \t]*$", re.MULTILINE)


def read_module(text: str, filename: str = "<input>") -> TritonModule:
    """Parse Triton IR text.  Raises :class:`TTOptError` on any problem with the input."""
    if "\x00" in text:
        ln, col = line_col(text, text.index("\x00"))
        raise TTOptError("input contains NUL bytes (not MLIR text)", filename, ln, col)
    check_version(text, filename)
    stripped, locs = extract_loc_aliases(text, filename)
    attr_alias_lines = [m.group(0).rstrip() for m in _ATTR_ALIAS_LINE.finditer(stripped)]

    stripped, trailing = _strip_trailing_locs(stripped, locs.values)
    parser = TritonParser(_context(), stripped, filename, trailing)
    parser.attribute_aliases.update(locs.values)
    try:
        module = parser.parse_module()
    except ParseError as e:
        raise _convert(e, filename) from None
    except TTOptError:
        raise
    except Exception as e:  # a definition's parse hook failed in an unexpected way
        pos = parser._current_token.span.start  # noqa: SLF001
        ln, col = line_col(stripped, pos)
        raise TTOptError(f"cannot parse: {e}", filename, ln, col) from None
    if not isinstance(module, ModuleOp):
        raise TTOptError("expected a module", filename, 1, 1)

    aliases = {
        k: v for k, v in parser.attribute_aliases.items() if k not in locs.values
    }
    return TritonModule(module, filename, attr_alias_lines, aliases, locs)


_TRAILING_LOC = re.compile(r"[ \t]loc\((#[\w$.-]+)\)(?=[ \t]*$)", re.MULTILINE)


def _strip_trailing_locs(text: str, aliases: dict) -> tuple[str, dict[int, str]]:
    """Blank each op's trailing ``loc(#locN)`` (same length: offsets are kept) and return
    {offset of that line's end: alias}.  The parser then attaches the location itself,
    which spares the lexer four tokens per op (about a fifth of all tokens)."""
    trailing: dict[int, str] = {}
    pieces: list[str] = []
    last = 0
    for m in _TRAILING_LOC.finditer(text):
        name = m.group(1)
        if name not in aliases:
            continue  # left in place: the parser reports the undefined alias
        eol = text.find("\n", m.end())
        trailing[len(text) if eol < 0 else eol] = name
        pieces.append(text[last : m.start()])
        pieces.append(" " * (m.end() - m.start()))
        last = m.end()
    pieces.append(text[last:])
    return "".join(pieces), trailing


@lru_cache(maxsize=1)
def _context():
    return make_context()


def _convert(e: ParseError, filename: str) -> TTOptError:
    span = e.span
    text = span.input.content
    ln, col = line_col(text, span.start)
    msg = e.msg.strip().splitlines()[0] if e.msg else "syntax error"
    undefined = re.match(r"values used but not defined: \[(%[^,\]]+)", msg)
    if undefined:
        name = undefined.group(1)
        m = re.search(re.escape(name) + r"(?![\w$.-])", text)
        ln, col = line_col(text, m.start()) if m else (ln, col)
        return TTOptError(f"use of undefined value '{name}'", filename, ln, col)
    if not text[span.start :].strip():
        msg = "unexpected end of input (truncated file?)"
    elif msg == "Could not parse entire input!":
        msg = "expected an operation"
    msg = msg.replace("Operation ", "operation '", 1).replace(" is not registered", "' is unknown") \
        if "is not registered" in msg else msg
    return TTOptError(msg, filename, ln, col)
