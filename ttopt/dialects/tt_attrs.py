"""Triton's attributes and types, shared by the ``tt``, ``ttg`` and ``ttng`` op definitions.

* **enums**: Triton's I32 enum attributes (``CACHE_MODIFIER``, ``PROGRAM_DIM`` ...), keyword
  -> value.  They are stored as MLIR stores them, ``IntegerAttr`` of ``i32`` (generic form
  ``evict = 3 : i32``); custom syntax prints them by keyword where Triton does
  (:mod:`ttopt.dialects.syntax`).
* **types**: ``!tt.ptr<T>`` (:class:`PointerType`), ``!tt.tensordesc<..>``, and
  :class:`OpaqueBodyAttr`, the attributes and types ttopt keeps as the raw text of their body
  (layouts, memory descriptors);
* **type functions** of Triton's ops: what a load of a pointer produces
  (:func:`loaded_type`), the mask type of a pointer (:func:`mask_type`) ...
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence

from xdsl.dialects.builtin import IntAttr, StringAttr, TensorType, i1
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

from ..xdsl_compat import continue_after, dialect_symbol_body, peek_token
from .constraints import register_pointer_type, same, shape_of, with_element
from .versions import current

# ---------------------------------------------------------------------------- enums
CACHE_MODIFIER = {"none": 1, "ca": 2, "cg": 3, "wb": 4, "cs": 5, "wt": 6, "cv": 7}
EVICTION_POLICY = {"evict_normal": 1, "evict_first": 2, "evict_last": 3}
MEM_SEMANTIC = {"relaxed": 1, "acquire": 2, "release": 3, "acq_rel": 4}
MEM_SYNC_SCOPE = {"gpu": 1, "cta": 2, "sys": 3}
RMW_OP = {
    "and": 1, "or": 2, "xor": 3, "add": 4, "fadd": 5, "max": 6, "min": 7,
    "umax": 8, "umin": 9, "exch": 10,
}
PROGRAM_DIM = {"x": 0, "y": 1, "z": 2}
INPUT_PRECISION = {"tf32": 0, "tf32x3": 1, "ieee": 2, "bf16x3": 3, "bf16x6": 4}
ROUNDING_MODE = {"rtz": 0, "rtne": 1}
PROPAGATE_NAN = {"none": 0, "all": 0xFFFF}
SCALE_DOT_ELEM_TYPE = {
    "e4m3": 0, "e5m2": 1, "e2m3": 2, "e3m2": 3, "e2m1": 4, "bf16": 5, "fp16": 6,
}
DESCRIPTOR_REDUCE_KIND = {
    "add": 1, "min": 2, "max": 3, "inc": 4, "dec": 5, "and": 6, "or": 7, "xor": 8,
}

# ---------------------------------------------------------------------------- types


@irdl_attr_definition
class WideDenseArrayAttr(ParametrizedAttribute):
    """``array<T: v, ...>`` of an element type MLIR takes and xDSL cannot pack (``i128``,
    ``f80``, ``f128``...): the element type and the values as written (printed back so).
    Nothing in Triton uses one; a module may hold one (its reader must not fail on it)."""

    name = "ttopt.wide_dense_array"
    elt_type: Attribute
    values: StringAttr

    def print_as_written(self, printer: Printer) -> None:
        printer.print_string("array<")
        printer.print_attribute(self.elt_type)
        if self.values.data:
            printer.print_string(": " + self.values.data)
        printer.print_string(">")


@irdl_attr_definition
class PointerType(ParametrizedAttribute, TypeAttribute):
    """``!tt.ptr<T>`` / ``!tt.ptr<T, addrspace>``; ``T`` may be a tensor (block pointer)."""

    name = "tt.ptr"
    pointee: Attribute
    address_space: IntAttr

    def __init__(self, pointee: Attribute, address_space: int = 1):
        super().__init__(pointee, IntAttr(address_space))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.pointee)
        if self.address_space.data != 1 or _current_syntax().ptr_space:
            printer.print_string(f", {self.address_space.data}")  # (Triton 2.2, 2.3: always)
        printer.print_string(">")

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        lt = peek_token(parser).span.start
        if getattr(parser, "nul_offsets", None):  # (a NUL byte inside: MLIR's scanner stops)
            check_body(parser, lt)
        parser.parse_punctuation("<")
        pointee = parser.parse_type()
        space = 1
        if parser.parse_optional_punctuation(",") is not None:
            space = parser.parse_integer()
        parser.parse_punctuation(">")
        check_body_follows_name(parser, lt)
        return (pointee, IntAttr(space))


register_pointer_type(PointerType)


def _current_syntax():
    return current()


@irdl_attr_definition
class CachePolicyAttr(ParametrizedAttribute):
    """Triton 3.9's ``#tt.cache_policy<cache_modifier = K, eviction_policy = K>``, the hints
    of a load or store in one attribute (ttopt keeps them as the ``cache``/``evict``
    properties of Triton 3.0 - 3.8; :mod:`ttopt.dialects.versions`)."""

    name = "tt.cache_policy"
    cache_modifier: IntAttr
    eviction_policy: IntAttr

    def print_parameters(self, printer: Printer) -> None:
        cache = next(k for k, v in CACHE_MODIFIER.items() if v == self.cache_modifier.data)
        evict = next(k for k, v in EVICTION_POLICY.items() if v == self.eviction_policy.data)
        printer.print_string(f"<cache_modifier = {cache}, eviction_policy = {evict}>")

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        values = {}
        lt = peek_token(parser).span.start
        parser.parse_punctuation("<")
        for key, table in (("cache_modifier", CACHE_MODIFIER), ("eviction_policy", EVICTION_POLICY)):
            if values:
                parser.parse_punctuation(",")
            pos = parser.pos
            if parser.parse_optional_keyword(key) is None:
                parser.raise_error(f"expected '{key}' in #tt.cache_policy", pos, pos + 1)
            parser.parse_punctuation("=")
            pos = parser.pos
            word = parser.parse_optional_identifier()
            if word not in table:
                parser.raise_error(f"expected one of {', '.join(table)}", pos, parser.pos)
            values[key] = IntAttr(table[word])
        parser.parse_punctuation(">")
        check_body_follows_name(parser, lt)
        return (values["cache_modifier"], values["eviction_policy"])


class OpaqueBodyAttr(ParametrizedAttribute):
    """An attribute or type kept as the raw text of its ``<...>`` body.

    Layouts and memory descriptors are opaque to ttopt's passes; keeping their text makes
    the round trip exact, including alias references such as ``parent = #blocked``.  The
    text is kept with its brackets (``"<{dim = 0, parent = #blocked}>"``), so that an empty
    body (``#ttng.tensor_memory_scales_encoding<>``, which Triton needs) and none
    (``#ttg.shared_memory``, ``!ttg.async.token``) stay different.
    """

    # the one parameter, `body: StringAttr`, is declared by `opaque_attr` on each subclass

    def print_parameters(self, printer: Printer) -> None:
        if self.body.data:
            printer.print_string(_SPELLING.get(self.body.data, self.body.data))

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        # xDSL's own scanner of a dialect attribute's `<...>` body (any xDSL parser,
        # xdsl-opt's too)
        tok = peek_token(parser)
        if tok.text == "<":
            body = body_key("<" + scanned_body(parser, tok.span.start) + ">")
            check_body_follows_name(parser, tok.span.start)
            return (StringAttr(body),)
        return (StringAttr(""),)


def scan_body(text: str, lt: int, nuls: Sequence[int] = ()) -> int | None:
    """MLIR's ``parseDialectSymbolBody``: the end (after its ``>``) of the ``<...>`` body
    opening at ``lt``; None where it does not end as MLIR sees it: then
    :class:`UnbalancedBody` says what MLIR does.  ``nuls``: the sorted offsets of NUL bytes
    of the input that the reader has blanked (MLIR's scanner stops at one: the body is then
    unbalanced)."""
    stack: list[str] = []
    i, n = lt, len(text)
    last_string = None  # (MLIR lexes a string as a token: its error is reported there)
    k = bisect_left(nuls, lt) if nuls else 0
    nul = nuls[k] if k < len(nuls) else -1
    skip = _PLAIN.match
    while i < n:
        if i == nul:
            break
        c = text[i]
        i += 1
        if c not in _SPECIAL:  # (the characters between brackets, at once)
            i = skip(text, i).end()
            if nul != -1 and i > nul:
                i = nul
            continue
        if c in "<[({":
            stack.append(c)
        elif c == "-" and i < n and text[i] == ">":
            i += 1
        elif c in _CLOSERS:
            if not stack or stack[-1] != _CLOSERS[c]:
                raise UnbalancedBody(stack[-1] if stack else c, last_string)
            stack.pop()
            if not stack:
                return i
        elif c == '"':
            j = i
            while j < n and text[j] not in '"\n' and j != nul:
                j += 2 if text[j] == "\\" else 1
            if j >= n or text[j] != '"':  # (MLIR's lexer: at the end of the line)
                raise UnterminatedString(min(j, n - 1))
            last_string = i - 1
            i = j + 1
        elif c == "\x00":  # (the end of the text, for MLIR's scanner)
            break
    if stack:
        raise UnbalancedBody(stack[-1], last_string)
    return None


_CLOSERS = {">": "<", "]": "[", ")": "(", "}": "{"}
_SPECIAL = frozenset('<>[](){}"-\x00')
_PLAIN = re.compile('[^<>\\[\\](){}"\\-\x00]*')


class UnterminatedString(Exception):
    """MLIR's "expected '\"' in string literal" (at the end of the string's line)."""

    message = "expected '\"' in string literal"

    def __init__(self, at: int):
        super().__init__(self.message)
        self.at = at


class UnbalancedBody(Exception):
    """MLIR's "unbalanced '{' character in pretty dialect name" (reported at the ``<``)."""

    def __init__(self, char: str, at: int | None = None):
        super().__init__(f"unbalanced '{char}' character in pretty dialect name")
        self.message = str(self)
        self.at = at  # (where MLIR reports it: its last string token, else the `<`)


def scanned_body(parser, lt: int) -> str:
    """The body between the ``<`` at ``lt`` (the parser's token) and its ``>``, where
    MLIR's scanner finds no error in it (else MLIR's error, at the ``<``); the parser moves
    on past it, as xDSL's scanner would leave it."""
    end = check_body(parser, lt)
    if end is None:
        return dialect_symbol_body(parser)
    # (MLIR's scanner found the body balanced: xDSL's, a loop over its characters, would
    # end at the same `>`, whose brackets and strings it matches alike)
    body = parser.lexer.input.content[lt + 1 : end - 1]
    continue_after(parser, end)
    return body


def check_body(parser, lt: int) -> int | None:
    """MLIR's error for the ``<...>`` body opening at ``lt``, if it has one (unbalanced, or
    a NUL byte inside: the reader's ``parser.nul_offsets``, where it records them); else the
    end of the body (after its ``>``), as :func:`scan_body` finds it."""
    try:
        return scan_body(parser.lexer.input.content, lt, getattr(parser, "nul_offsets", None) or ())
    except UnbalancedBody as e:
        at = lt if e.at is None else e.at
        parser.raise_error(e.message, at, at + 1)
    except UnterminatedString as e:
        parser.raise_error(e.message, e.at, e.at + 1)


def blank_before_body(content: str, lt: int) -> bool:
    """Whether the ``<`` at ``lt`` is a blank (or a NUL byte) away from the name before it.

    MLIR reads a dialect attribute's or type's ``<...>`` body only when the ``<`` follows
    its name immediately; otherwise the dialect's parser reads the body on from the input
    anyway (so its errors come first), and then MLIR resumes *before* the ``<``, which
    nothing can follow (``!tt.ptr <f32>``: "expected '->'", "expected ')'" ... by place)."""
    if lt <= 0 or content[lt - 1] not in _BLANKS:
        return False
    i = lt - 1
    while i >= 0 and content[i] in _BLANKS:
        i -= 1
    # (a name before the blank: a body a custom syntax reads alone, `-> <64x32xf16, ..>`
    # of an elided `!ttg.memdesc`, has none)
    return i >= 0 and (content[i].isalnum() or content[i] in "_$.")


_BLANKS = frozenset(" \t\n\r\x00\x0b\x0c")


def blank_body_error(content: str, lt: int) -> tuple[str, int, int]:
    """The error (message, start, end) for a body ``<`` a blank away from its name."""
    return (
        "unexpected '<' after a blank: a dialect attribute's or type's '<...>' must follow "
        "its name immediately (MLIR parses the body, then stops at this '<')",
        lt,
        lt + 1,
    )


def check_body_follows_name(parser, lt: int) -> None:
    """Raise MLIR's error for a body ``<`` (at ``lt``) a blank away from its name."""
    content = parser.lexer.input.content
    if blank_before_body(content, lt):
        parser.raise_error(*blank_body_error(content, lt))


_SPELLING: dict[str, str] = {}
"""The first spelling read of each body key (:func:`body_key`): what is printed for it."""

_WS = re.compile(r'"(?:[^"\\]|\\.)*"|\s+')
_TIGHT = set(",[]{}()<>=:")
_RUN = re.compile(r"\s+")
# (a run before or after a tight character: a literal replacement, no template to expand)
_TIGHT_RUN = re.compile(r"\s+(?=[,\[\]{}()<>=:])|(?<=[,\[\]{}()<>=:])\s+")


def body_key(text: str) -> str:
    """An opaque body as MLIR tells bodies apart: whitespace between tokens does not count
    (``[1,4]`` is ``[1, 4]``, as Triton's parser reads both into one attribute).  A run of
    whitespace next to punctuation goes, any other becomes one space (it separates two
    tokens); string literals are kept as they are.  The text as first read is what prints."""
    if _RUN.search(text) is None:
        return text
    if '"' not in text:  # (no string: the same without a Python step a run)
        # Triton's spelling: each blank one space after a `,` or around a `=` (a blank the
        # replacements take is next to punctuation: its run goes; none left, all went)
        key = text.replace(" = ", "=").replace(", ", ",")
        if _RUN.search(key) is not None:  # (else two substitutions; a run at either end
            key = _RUN.sub(" ", _TIGHT_RUN.sub("", text)).strip()  # goes, as next to one)
        if key != text:
            _SPELLING.setdefault(key, text)
        return key

    def one(m: re.Match) -> str:
        s = m.group(0)
        if s.startswith('"'):
            return s
        before = text[m.start() - 1] if m.start() else ","
        after = text[m.end()] if m.end() < len(text) else ","
        return "" if before in _TIGHT or after in _TIGHT else " "

    key = _WS.sub(one, text)
    if key != text:
        _SPELLING.setdefault(key, text)
    return key


def opaque_attr(attr_name: str, is_type: bool = False) -> type[OpaqueBodyAttr]:
    """An :class:`OpaqueBodyAttr` class named ``attr_name`` (a type if ``is_type``)."""
    bases = (OpaqueBodyAttr, TypeAttribute) if is_type else (OpaqueBodyAttr,)
    cls_name = "".join(p.capitalize() for p in attr_name.replace(".", "_").split("_"))
    namespace = {"name": attr_name, "__annotations__": {"body": StringAttr}}
    cls = type(cls_name + ("Type" if is_type else "Attr"), bases, namespace)
    return irdl_attr_definition(cls)


TensorDescType = opaque_attr("tt.tensordesc", is_type=True)

# ---------------------------------------------------------------------------- type functions


def i1_like(typ: Attribute) -> Attribute:
    """``i1``, or ``typ`` with ``i1`` elements (a mask of the shape of ``typ``)."""
    return with_element(typ, i1)


def loaded_type(ptr_type: Attribute) -> Attribute:
    """What ``tt.load`` of a pointer (tensor of pointers, block pointer) produces."""
    if isinstance(ptr_type, TensorType) and isinstance(ptr_type.element_type, PointerType):
        return with_element(ptr_type, ptr_type.element_type.pointee)
    if isinstance(ptr_type, PointerType):
        return ptr_type.pointee
    raise ValueError(f"not a pointer type: {ptr_type}")


def mask_type(ptr_type: Attribute) -> Attribute:
    """The type of the mask of a load/store through ``ptr_type``."""
    return i1_like(loaded_type(ptr_type) if isinstance(ptr_type, PointerType) else ptr_type)


def pointee_matches(ptr_type: Attribute, t: Attribute) -> bool:
    """Is ``t`` Triton's ``getPointeeType(ptr_type)`` (what a load of it produces)?"""
    if type(ptr_type) is TensorType or isinstance(ptr_type, TensorType):
        elem = ptr_type.element_type
        return (
            isinstance(elem, PointerType)
            and isinstance(t, TensorType)
            and (t.element_type is elem.pointee or same(t.element_type, elem.pointee))
            and shape_of(t) == shape_of(ptr_type)
            and (t.encoding is ptr_type.encoding or same(t.encoding, ptr_type.encoding))
        )
    if isinstance(ptr_type, PointerType):
        return t is ptr_type.pointee or same(t, ptr_type.pointee)
    return False


__all__ = [
    "WideDenseArrayAttr",
    "CACHE_MODIFIER",
    "EVICTION_POLICY",
    "MEM_SEMANTIC",
    "MEM_SYNC_SCOPE",
    "RMW_OP",
    "PROGRAM_DIM",
    "INPUT_PRECISION",
    "ROUNDING_MODE",
    "PROPAGATE_NAN",
    "SCALE_DOT_ELEM_TYPE",
    "DESCRIPTOR_REDUCE_KIND",
    "PointerType",
    "CachePolicyAttr",
    "OpaqueBodyAttr",
    "blank_before_body",
    "check_body_follows_name",
    "opaque_attr",
    "TensorDescType",
    "i1_like",
    "loaded_type",
    "mask_type",
    "pointee_matches",
]
