"""A faster, linear-time lexer for the tokens that make up most of Triton IR.

xDSL's ``MLIRLexer`` decides each token's kind character by character in Python.  Here one
compiled regular expression recognises, in a single match, whitespace plus the common tokens
(bare identifiers, ``%``/``#``/``!``/``^`` identifiers, ``->`` and single-character
punctuation); anything else (numbers, ``@`` symbols, ``...``, ``{``) falls back to xDSL's own
code, so the token stream is the same.

String literals are lexed here, as MLIR lexes them (``Lexer::lexString``): escapes ``\\"``,
``\\\\``, ``\\n``, ``\\t`` and two hex digits; a newline, ``\\v``, ``\\f`` or the end of the input
before the closing quote is an error at that point.  xDSL 0.74's own string regex nests two
quantifiers and backtracks exponentially on an unterminated string (a dump cut in the middle of
a path hung for ever); the one here is unrolled (``normal* (escape normal*)*``) and linear.

Strings may hold any bytes (MLIR's ``StringAttr`` is bytes; Triton keeps non-UTF-8 file names in
locations).  The reader decodes input with ``surrogateescape``, so such bytes reach xDSL as lone
surrogates; ``xdsl_compat.patch_string_literal`` makes xDSL's ``StringLiteral`` carry them through
(encode/decode with ``surrogateescape``; for any valid UTF-8 text nothing changes) and the
writer prints them back as the same bytes.
"""

from __future__ import annotations

import re

from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Span, Token
from xdsl.utils.mlir_lexer import MLIRTokenKind, StringLiteral

from ..xdsl_compat import (LexerBase, identity_hashing, keep_exact_value_names, new_token,
                           patch_string_literal)

_SUFFIX = r"(?:[0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*)"
# what is skipped before a token: blanks and `//` comments (the reader's fast path also
# finds the start of the next token with it).  MLIR's blanks are these four: a form feed,
# a vertical tab or a Unicode space (U+00A0...) is an unexpected character (Python's `\s`
# takes them all)
BLANKS = " \t\n\r"
_SKIPPED = r"(?:(?://[^\n]*(?:\n)?)|[ \t\n\r]+)*"
SKIP = re.compile(_SKIPPED)
_FAST = re.compile(
    _SKIPPED +
    r"(?:(?P<bare>[A-Za-z_][A-Za-z0-9_$.]*)"
    r"|(?P<pct>%" + _SUFFIX + r")"
    r"|(?P<hash>\#(?!-\})" + _SUFFIX + r")"
    r"|(?P<excl>!" + _SUFFIX + r")"
    r"|(?P<caret>\^" + _SUFFIX + r")"
    r"|(?P<arrow>->)"
    r"|(?P<punct>[:,()\[\]<>=*}+?|/])"
    r"|(?P<str>\"))?"
)
_KIND = {
    "bare": MLIRTokenKind.BARE_IDENT,
    "pct": MLIRTokenKind.PERCENT_IDENT,
    "hash": MLIRTokenKind.HASH_IDENT,
    "excl": MLIRTokenKind.EXCLAMATION_IDENT,
    "caret": MLIRTokenKind.CARET_IDENT,
    "arrow": MLIRTokenKind.ARROW,
}
_PUNCT = {
    ":": MLIRTokenKind.COLON, ",": MLIRTokenKind.COMMA, "(": MLIRTokenKind.L_PAREN,
    ")": MLIRTokenKind.R_PAREN, "}": MLIRTokenKind.R_BRACE, "[": MLIRTokenKind.L_SQUARE,
    "]": MLIRTokenKind.R_SQUARE, "<": MLIRTokenKind.LESS, ">": MLIRTokenKind.GREATER,
    "=": MLIRTokenKind.EQUAL, "+": MLIRTokenKind.PLUS, "/": MLIRTokenKind.SLASH,
    "*": MLIRTokenKind.STAR, "?": MLIRTokenKind.QUESTION, "|": MLIRTokenKind.VERTICAL_BAR,
}

# MLIR's string literal, unrolled so that no two quantifiers compete (linear time)
_NORMAL = r'[^"\\\n\v\f]*'
STRING_LITERAL = re.compile(r'"' + _NORMAL + r'(?:\\(?:["nt\\]|[0-9A-Fa-f]{2})' + _NORMAL + r')*"')
_STRING_STOP = re.compile(r'["\\\n\v\f]')


def string_literal_error(text: str, start: int) -> tuple[int, str]:
    """Where and why the string literal starting at ``start`` (its quote) is malformed."""
    pos = start + 1
    while True:
        m = _STRING_STOP.search(text, pos)
        if m is None:
            return len(text), "expected '\"' in string literal (end of input reached)"
        c = m.group()
        if c == '"':  # cannot happen for a literal the regex refused; keep the loop total
            return m.start(), "malformed string literal"
        if c != "\\":
            return m.start(), "expected '\"' in string literal (end of line reached)"
        nxt = text[m.start() + 1 : m.start() + 3]
        if nxt[:1] in ('"', "n", "t", "\\"):
            pos = m.start() + 2
        elif len(nxt) == 2 and all(ch in "0123456789abcdefABCDEF" for ch in nxt):
            pos = m.start() + 3
        else:
            return m.start(), "unknown escape in string literal"


class FastMLIRLexer(LexerBase):
    # the offsets of the last two `}` lexed (the source map wants a region's closing brace,
    # which the parser has consumed, with one more token lexed, when the region is done)
    _brace = -1
    _brace_before = -1

    def lex(self):  # type: ignore[override]
        m = _FAST.match(self.input.content, self.pos)
        kind_name = m.lastgroup
        if kind_name is None:  # not a common token (or end of input): xDSL's lexer
            self.pos = m.end()
            return super().lex()
        start, end = m.span(kind_name)
        if kind_name == "str":
            return self.lex_string_literal(start)
        self.pos = end
        if kind_name == "punct":
            text = m.group(kind_name)
            if text == "}":
                self._brace_before, self._brace = self._brace, start
            return new_token(_PUNCT[text], start, end, self.input)
        return new_token(_KIND[kind_name], start, end, self.input)

    def closing_brace_before(self, token) -> int:
        """The offset of the last ``}`` lexed before ``token`` (the token after it)."""
        return self._brace_before if token.span.start == self._brace else self._brace

    def lex_string_literal(self, start_pos):  # type: ignore[override]
        text = self.input.content
        m = STRING_LITERAL.match(text, start_pos)
        if m is None:
            pos, msg = string_literal_error(text, start_pos)
            raise ParseError(Span(pos, pos + 1, self.input), msg)
        self.pos = m.end()
        # always a string (MLIR's StringAttr holds bytes; see the module docstring)
        return Token(MLIRTokenKind.STRING_LIT, StringLiteral(start_pos, self.pos, self.input))


_ESCAPES = {'"': b'"', "n": b"\n", "t": b"\t", "\\": b"\\"}


def unescape(body: str) -> bytes:
    """The bytes of a string literal's body (between the quotes) that
    :data:`STRING_LITERAL` accepted: escapes resolved, lone surrogates back to their bytes."""
    if "\\" not in body:
        return body.encode("utf-8", "surrogateescape")
    out = bytearray()
    i, n = 0, len(body)
    while i < n:
        j = body.find("\\", i)
        if j < 0:
            j = n
        out += body[i:j].encode("utf-8", "surrogateescape")
        if j == n:
            break
        simple = _ESCAPES.get(body[j + 1 : j + 2])
        if simple is not None:
            out += simple
            i = j + 2
        else:
            out.append(int(body[j + 1 : j + 3], 16))
            i = j + 3
    return bytes(out)


def string_value(body: str) -> str:
    """:func:`unescape`, as the ``str`` xDSL's ``StringAttr`` holds (non-UTF-8 bytes kept as
    lone surrogates)."""
    return unescape(body).decode("utf-8", "surrogateescape")


patch_string_literal(unescape, string_value)
keep_exact_value_names()
identity_hashing()
