"""A faster lexer for the tokens that make up most of Triton IR.

xDSL's ``MLIRLexer`` decides each token's kind character by character in Python.  Here one
compiled regular expression recognises, in a single match, whitespace plus the common tokens
(bare identifiers, ``%``/``#``/``!``/``^`` identifiers, ``->`` and single-character
punctuation); anything else (numbers, strings, ``@`` symbols, ``...``, ``{``) falls back to
xDSL's own code, so the token stream is the same.
"""

from __future__ import annotations

import re

from xdsl.utils.lexer import Span, Token
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

_SUFFIX = r"(?:[0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*)"
_FAST = re.compile(
    r"(?:(?://[^\n]*(?:\n)?)|\s+)*"
    r"(?:(?P<bare>[A-Za-z_][A-Za-z0-9_$.]*)"
    r"|(?P<pct>%" + _SUFFIX + r")"
    r"|(?P<hash>\#(?!-\})" + _SUFFIX + r")"
    r"|(?P<excl>!" + _SUFFIX + r")"
    r"|(?P<caret>\^" + _SUFFIX + r")"
    r"|(?P<arrow>->)"
    r"|(?P<punct>[:,()\[\]<>=*}+?|/]))?"
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


class FastMLIRLexer(MLIRLexer):
    def lex(self):  # type: ignore[override]
        m = _FAST.match(self.input.content, self.pos)
        kind_name = m.lastgroup
        if kind_name is None:  # not a common token (or end of input): xDSL's lexer
            self.pos = m.end()
            return super().lex()
        start, end = m.span(kind_name)
        self.pos = end
        kind = _PUNCT[m.group(kind_name)] if kind_name == "punct" else _KIND[kind_name]
        return Token(kind, Span(start, end, self.input))
