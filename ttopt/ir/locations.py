"""Location aliases (``#loc12 = loc(...)``), read before the module is parsed.

Triton prints most ``#loc`` alias definitions *after* the module that uses them; MLIR allows
that, xDSL does not.  So the reader takes every alias definition line out of the text (the line
is blanked, keeping line numbers for error messages), parses the definitions here, in
dependency order, and hands the parser a ready table.  This small parser is also much faster
than running xDSL's on thousands of one-line definitions.

What MLIR rejects is rejected here too: an alias used *inside* another alias's location
(``#loc21 = loc("offsets"(#loc4))``) must be defined above it (MLIR defers only a whole
``loc(#alias)`` after an op), and a definition must be at the top level, between operations,
not inside one (:func:`check_top_level_aliases`, once the module is parsed).

The forms of MLIR's location grammar that xDSL 0.74 lacks are read here too, in alias
definitions (:class:`_LocParser`) and inline (:func:`parse_location`, the reader's parser
calls it for every ``loc(...)`` body it does not find in its cache): ranges,
``"f.py":1:2 to 3:4`` / ``to :4`` / ``"f.py":1`` (:class:`FileLineColRange`, Triton 3.3+
only: ``Syntax.loc_ranges``), and fused locations with metadata, ``fused<ATTR>[...]`` (every
release; the metadata is any attribute, read by the reader's attribute parser).
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass, field

from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    IntAttr,
    LocationAttr,
    NameLoc,
    NoneAttr,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, BuiltinAttribute, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition, param_def
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.mlir_lexer import MLIRTokenKind

from ..dialects import versions
from ..errors import TTOptError, line_col
from ..xdsl_compat import call_site_loc, file_line_col, name_loc, unchecked, unchecked_data
from .lexer import SKIP, STRING_LITERAL, string_literal_error, string_value


# ------------------------------------------------------------------ FileLineColRange
@irdl_attr_definition
class FileLineColRange(ParametrizedAttribute, BuiltinAttribute):
    """MLIR's ``FileLineColRange`` location (Triton 3.3+, :attr:`Syntax.loc_ranges`), which
    xDSL 0.74 has no class for, in the three forms MLIR's parser reads:

    * ``"f.py":3`` (a line alone): ``start_column``, ``end_line``, ``end_column`` are None;
    * ``"f.py":3:4 to :9`` (the same line): ``end_line`` is None;
    * ``"f.py":3:4 to 5:6``: every field set.

    (``"f.py":3:4`` alone is xDSL's ``FileLineColLoc``.)  The form is kept as written, so
    that equal text is an equal attribute and an op printed anew prints it back exactly
    (``to 3:9`` on line 3 is not folded into ``to :9``, nor ``to 3:4`` into no range: MLIR
    reads each back as it reads the input)."""

    name = "ttopt.file_line_col_range"

    filename: StringAttr = param_def()
    start_line: IntAttr = param_def()
    start_column: IntAttr | NoneAttr = param_def()
    end_line: IntAttr | NoneAttr = param_def()
    end_column: IntAttr | NoneAttr = param_def()

    def verify(self) -> None:
        if isinstance(self.start_column, NoneAttr):
            if not (isinstance(self.end_line, NoneAttr) and isinstance(self.end_column, NoneAttr)):
                raise VerifyException("a location range without a start column has no end")
        elif isinstance(self.end_column, NoneAttr):
            raise VerifyException("a location range with a start column needs an end column "
                                  "(without one it is a FileLineColLoc)")

    def print_builtin(self, printer) -> None:
        with printer.in_location():
            printer.print_string_literal(self.filename.data)
            printer.print_string(range_suffix(self))


def range_suffix(loc: FileLineColRange) -> str:
    """What follows the file name: ``:3``, ``:3:4 to :9`` or ``:3:4 to 5:6``."""
    text = f":{loc.start_line.data}"
    if isinstance(loc.start_column, NoneAttr):
        return text
    text += f":{loc.start_column.data} to "
    if not isinstance(loc.end_line, NoneAttr):
        text += str(loc.end_line.data)
    return text + f":{loc.end_column.data}"


def is_location(attr: Attribute) -> bool:
    """Whether ``attr`` is a location (xDSL's ``LocationAttr`` or a range)."""
    return isinstance(attr, LocationAttr | FileLineColRange)


def make_range(filename: StringAttr, line: int, col: int | None = None,
               end_line: int | None = None, end_col: int | None = None) -> FileLineColRange:
    none = NoneAttr()
    return FileLineColRange(
        filename, IntAttr(line), none if col is None else IntAttr(col),
        none if end_line is None else IntAttr(end_line), none if end_col is None else IntAttr(end_col),
    )


def _ranges_refused() -> str | None:
    """Why the release being read has no location ranges (None: it has them)."""
    syntax = versions.current()
    if syntax.loc_ranges:
        return None
    return f"needs Triton 3.3 or later (this text is read as Triton {versions.show(syntax.release)}'s)"


def container(cls, *params):
    """``cls(*params)`` for a location that holds locations (CallSiteLoc, NameLoc, FusedLoc):
    built unchecked where one of them is a range (xDSL's location constraint knows only its
    own location classes)."""
    if any(isinstance(p, FileLineColRange) for p in params) or (
        cls is FusedLoc and any(isinstance(p, FileLineColRange) for p in params[0])
    ):
        if cls is FusedLoc:
            return unchecked(FusedLoc, unchecked_data(ArrayAttr, tuple(params[0])), params[1])
        return unchecked(cls, *params)
    if cls is FusedLoc:
        return FusedLoc(tuple(params[0]), params[1])
    return cls(*params)

# A location alias definition `#locN = loc(BODY)` (any alias name: `#l = loc(..)` too), anywhere
# outside a string literal (Triton
# prints one per line; a hand-joined or one-line module has them beside other statements).
# BODY: no parentheses, or one level of them (`"name"(#loc3)`, `callsite(#a at #b)`); deeper
# nesting, and a body over several lines or with a `//` comment, is scanned by `_body_end`.
# (The reader matches it in parts: _LOC_ALIAS_START, then _PLAIN_BODY or _BODY; test_locations
# holds the parts to this whole pattern, which is the one-line form.)
_STR = STRING_LITERAL.pattern
_FLAT = r'(?:[^()"\n/]|/(?!/)|' + _STR + r")*"  # (not a `//` comment: its `)` closes nothing)
LOC_ALIAS = re.compile(
    r"(?<![\w$.#-])(#[\w$.-]+)[ \t]*=[ \t]*loc\((" + _FLAT + r"(?:\(" + _FLAT + r"\)" + _FLAT + r")*)\)"
)
# BODY `)` of LOC_ALIAS, after its `loc(`; _PLAIN_BODY: the forms nearly every alias has (a
# string without escapes, then `:L:C` or `(#alias)`; a callsite; unknown), matched without
# trying the alternatives of _FLAT at each character (they end where _BODY ends)
_BODY = re.compile(_FLAT + r"(?:\(" + _FLAT + r"\)" + _FLAT + r")*\)")
_PLAIN_BODY = re.compile(
    r'(?:"[^"\\\n\v\f]*"(?::\d+:\d+|\(#[\w$.-]+\))|callsite\(#[\w$.-]+ at #[\w$.-]+\)|unknown)\)'
)
# The head `#name = loc(`: group 2 where it is written as Triton prints it (nearly every one;
# `m.lastindex == 2`), else where it may be a head of another form, which _LOC_ALIAS_HEAD then
# reads whole: between its tokens, blanks, newlines and `//` comments, as MLIR's lexer skips
# them (`#loc1 =\n  loc(`).  (Not _LOC_ALIAS_HEAD at every `#name`: one in a comment would
# scan the comment to its line's end, each of many on a line the same: quadratic.)
# (no look-behind here: a pattern that starts with a literal is searched for with a fast
# scan; the character before the match is checked by hand, `_NAME_CHAR`; possessive: no
# backtracking into a name or blanks at the many `#name` that are no definition)
_LOC_ALIAS_START = re.compile(r"(#[\w$.-]++)(?:( = loc\()|[ \t]*+(?=[=\n\r/]))")
# _LOC_ALIAS_START, and where the head is Triton's (group 2), the body in one of _PLAIN_BODY's
# forms or Triton's fused location (`fused[#a, #b]`) with its parts if it is one of them (the
# scan's one search per definition): the string (3) and line (4) and column (5), or the
# string and the child alias (6); the two aliases of a callsite (7, 8); the aliases of a
# fused location (9); `unknown` sets none of them.  Its matches start where
# _LOC_ALIAS_START's do, and its body ends where _PLAIN_BODY's (or, fused, _BODY's) does
# (test_speed_locs).
_LOC_ALIAS_DEF = re.compile(
    r'(#[\w$.-]++)(?:( = loc\()'
    r'(?:(?:"([^"\\\n\v\f]*)"(?::(\d+):(\d+)|\((#[\w$.-]+)\))'
    r'|callsite\((#[\w$.-]+) at (#[\w$.-]+)\)|fused\[((?:#[\w$.-]+, )*#[\w$.-]+)\]|unknown)\))?'
    r'|[ \t]*+(?=[=\n\r/]))'
)
# (the same, for a text all ASCII: its word and digit classes as ASCII ranges, which the
# regular expression engine checks faster than Unicode's categories, and which match
# exactly what those match in such a text)
_LOC_ALIAS_DEF_ASCII = re.compile(
    _LOC_ALIAS_DEF.pattern.replace(r"[\w$.-]", "[0-9A-Za-z_$.-]").replace(r"\d", "[0-9]")
)
assert "\\w" not in _LOC_ALIAS_DEF_ASCII.pattern and "\\d" not in _LOC_ALIAS_DEF_ASCII.pattern
_GAP = r"(?:[ \t\n\r]|//[^\n]*)*+"
_LOC_ALIAS_HEAD = re.compile(r"#[\w$.-]++" + _GAP + "=" + _GAP + r"loc" + _GAP + r"\(")
_NAME_CHAR = re.compile(r"[\w$.#-]")


_PREFIX_TOKENS = re.compile(_STR + r'|//|"')


class _HiddenScanner:
    """``scanner(pos)``: True if ``pos`` is inside a string literal or a ``//`` comment
    (neither spans lines).  For positions asked in increasing order each line is scanned
    once (scanning from the line's start for each position took time quadratic in the
    length of a line, e.g. a whole module written on one line)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.last = 0  # the previous position asked for
        self.line_start = 0
        self.line_end = -1  # (unknown until asked on this line)
        self.scan_at = 0  # tokens of the line before here are read
        self.open_from: int | None = None  # hidden after here (a `//` or an unclosed `"`)

    def __call__(self, pos: int) -> bool:
        text = self.text
        if pos < self.last:  # (not in order: start over)
            self.__init__(text)
        newline = text.rfind("\n", self.last, pos)
        if newline >= 0 or self.line_end < 0:
            self.line_start = newline + 1 if newline >= 0 else text.rfind("\n", 0, pos) + 1
            end = text.find("\n", pos)
            self.line_end = len(text) if end < 0 else end
            self.scan_at, self.open_from = self.line_start, None
        self.last = pos
        if self.open_from is not None:
            return self.open_from < pos
        while True:
            m = _PREFIX_TOKENS.search(text, self.scan_at, self.line_end)
            if m is None or m.start() >= pos:
                return False
            if m.group() in ("//", '"'):  # a comment, or a string never closed on the line
                # (hidden after its first character: between the two slashes is not yet
                # a comment)
                self.open_from = m.start() + len(m.group()) - 1
                return self.open_from < pos
            if m.end() > pos:  # inside this string literal
                return True
            self.scan_at = m.end()


_BODY_STOP = re.compile(r'[()"]|//')


def _body_end(text: str, start: int) -> int | None:
    """Offset of the `)` closing the `loc(` whose body starts at ``start``, as MLIR's lexer
    reads on (over lines; a `//` comment to its line's end, a string literal whole); None
    where none closes it (the text ends, or a string in it is malformed: the body's parse
    says what MLIR says, :meth:`_LocParser.expect_close`)."""
    depth, i = 1, start
    while True:
        m = _BODY_STOP.search(text, i)
        if m is None:
            return None
        c = m.group()
        if c == '"':
            s = STRING_LITERAL.match(text, m.start())
            if s is None:
                return None
            i = s.end()
        elif c == "//":
            i = text.find("\n", m.end())
            if i < 0:
                return None
        elif c == "(":
            depth += 1
            i = m.end()
        else:
            depth -= 1
            if depth == 0:
                return m.start()
            i = m.end()


_TOKEN = re.compile(
    r"""(?:[ \t\n\r]|//[^\n]*)*+(?:
        (?P<str>""" + STRING_LITERAL.pattern + r""")
      | (?P<quote>")
      | (?P<alias>\#[\w$.-]+)
      | (?P<int>0x[0-9A-Fa-f]+|\d+)
      | (?P<ident>[A-Za-z_][\w$.]*)
      | (?P<punct>[()\[\],:<>])
      | (?P<other>[%^@!][\w$.-]*|->|[{}=*+?|-])  # (MLIR tokens no location starts with)
    )""",
    re.VERBOSE,
)


@dataclass
class LocAliasTable:
    """Location aliases of one input: name -> attribute, plus the original lines."""

    values: dict[str, LocationAttr]
    lines: list[tuple[str, bool]]  # (original line text, came before the module)
    offsets: dict[str, int] = field(default_factory=dict)  # name -> offset of `#name = `


class _LocParser:
    """A location alias's body (``#locN = loc(BODY)``), read token by token (each token
    lexed when it is reached: a fused location's metadata is any attribute, read by the
    full attribute parser, :meth:`metadata`)."""

    def __init__(self, text: str, resolve, where, cache: dict, metadata=None, wrong_token=None,
                 closed: bool = True):
        self.cache = cache
        self.text = text
        self.pos = 0  # where the next token is lexed from
        self.tok = None  # (kind, value, start, end) of the current token, once lexed
        self.end = len(text)
        self.resolve = resolve
        self.where = where
        self.parse_metadata = metadata  # (text, offset) -> (attribute, end offset)
        # (message, offset, at the input's end) -> the error MLIR gives about an unexpected
        # token (at the end of the text before it); None: at the token
        self.wrong_token = wrong_token
        self.closed = closed  # the text ends at the `)` closing the body (else: at the input's end)

    def _lex(self):
        text, pos = self.text, self.pos
        m = _TOKEN.match(text, pos)
        if m is None:
            if SKIP.match(text, pos).end() == self.end:  # (once, at the end: linear)
                return (None, None, self.end, self.end)
            raise self.where(f"unexpected text in location: {text[pos:pos + 20]!r}", pos)
        kind = m.lastgroup
        if kind == "quote":  # a string literal STRING_LITERAL refused
            at, msg = string_literal_error(text, m.start(kind))
            raise self.where(msg, at)
        return (kind, m.group(kind), m.start(kind), m.end())

    def _str(self, s: str) -> StringAttr:
        attr = self.cache.get(s)
        if attr is None:
            attr = self.cache[s] = StringAttr(s)
        return attr

    def peek(self):
        if self.tok is None:
            self.tok = self._lex()
        return self.tok[:2]

    def shown(self) -> str:
        """The current token, for a message: the body's `)` (or the input's end) when none
        is left."""
        val = self.peek()[1]
        if val is None:
            return "')'" if self.closed else "end of input"
        return repr(val if len(val) <= 40 else val[:40] + "...")

    def error(self, msg: str) -> TTOptError:
        """An error about the current token, where MLIR reports it (``emitWrongTokenError``:
        after the token before it, when ``wrong_token`` is given; else at it)."""
        self.peek()
        at = self.tok[2]
        if self.wrong_token is None:
            return self.where(msg, at)
        return self.wrong_token(msg, at, self.tok[0] is None and not self.closed)

    def expect_close(self) -> None:
        """After the location: the end of the text (the body, up to the `)` that closes
        it) or, where no `)` was found (the text runs on to the input's end), a `)`.
        Anything else is MLIR's ``expected ')' in inline location``."""
        try:
            tok = self.peek()
        except TTOptError:  # (something no location token starts with: no `)` either)
            tok = ("bad", None)
            self.tok = (None, None, SKIP.match(self.text, self.pos).end(), self.end)
            self.closed = True  # (not the input's end)
        if (tok[0] is None) if self.closed else (tok == ("punct", ")")):
            return
        raise self.error("expected ')' in inline location")

    def take(self, value=None, why: str | None = None):
        """The current token (which must be ``value``, if given: else the error ``why``, or
        one that says what was found)."""
        tok = self.peek()
        if tok[0] is None or (value is not None and tok[1] != value):
            raise self.error(why or f"expected '{value}' in location, got {self.shown()}")
        self.pos = self.tok[3]
        self.tok = None
        return tok

    def integer(self, what: str) -> int:
        """An unsigned 32-bit line or column number, decimal or hexadecimal (as MLIR reads)."""
        kind, val = self.peek()
        value = -1
        if kind == "int" and len(val) <= 12:  # (longer: out of range; and Python's int()
            # refuses more than 4,300 digits)
            value = int(val, 16) if val.startswith("0x") else int(val)
        if not 0 <= value < 1 << 32:
            msg = f"expected integer {what} in location, got {self.shown()}"
            # (on the line of the token before, at the token, as ttopt has always put it;
            # MLIR puts it after that token, as the others)
            if self.wrong_token is not None and "\n" not in self.text[self.pos : self.tok[2]]:
                raise self.where(msg, self.tok[2])
            raise self.error(msg)
        self.take()
        return value

    def metadata(self) -> Attribute:
        """A fused location's ``<attribute>``, after ``fused`` (the ``<`` is current)."""
        self.take("<")
        if self.parse_metadata is None:
            raise self.error("fused location metadata cannot be read here")
        attr, end = self.parse_metadata(self.text, self.pos)
        self.pos, self.tok = end, None
        self.take(">", "expected '>' after fused location metadata")
        return attr

    def loc(self) -> Attribute:
        kind, val = self.peek()
        if kind == "ident" and val == "unknown":
            self.take()
            return UnknownLoc()
        if kind == "alias":
            at = self.tok[2]
            self.take()
            return self.resolve(val, at)
        if kind == "ident" and val == "callsite":
            self.take()
            self.take("(", "expected '(' in callsite location")
            callee = self.loc()
            self.take("at", "expected 'at' in callsite location")
            caller = self.loc()
            self.take(")", "expected ')' in callsite location")
            return container(CallSiteLoc, callee, caller)
        if kind == "ident" and val == "fused":
            self.take()
            meta = NoneAttr()
            if self.peek()[1] == "<":
                meta = self.metadata()
            self.take("[", "expected '[' in fused location")
            locs = []
            if self.peek()[1] != "]":
                locs.append(self.loc())
                while self.peek()[1] == ",":
                    self.take()
                    locs.append(self.loc())
            self.take("]", "expected ']' in fused location")
            return container(FusedLoc, locs, meta)
        if kind == "str":
            self.take()
            name = string_value(val[1:-1])
            if self.peek()[1] == ":":
                self.take()
                line = self.integer("line number")
                if self.peek()[1] != ":":  # `"f.py":3`: a range of a line
                    self._check_ranges("a location with a line and no column")
                    return make_range(self._str(name), line)
                self.take(":")
                col = self.integer("column number")
                if self.peek() == ("ident", "to"):
                    self._check_ranges("a location range ('to')")
                    self.take()
                    end_line = None
                    if self.peek()[0] == "int":
                        end_line = self.integer("end line number")
                    if self.peek()[1] != ":":
                        raise self.error(
                            f"expected an integer or ':' after 'to' in a location range, got {self.shown()}"
                            if end_line is None else
                            f"expected ':' after the end line of a location range, got {self.shown()}"
                        )
                    self.take(":")
                    end_col = self.integer("end column number")
                    return make_range(self._str(name), line, col, end_line, end_col)
                key = (name, line, col)
                loc = self.cache.get(key)
                if loc is None:
                    loc = self.cache[key] = FileLineColLoc(self._str(name), IntAttr(line), IntAttr(col))
                return loc
            if self.peek()[1] == "(":
                self.take()
                child = self.loc()
                self.take(")", "expected ')' after child location of NameLoc")
                return container(NameLoc, self._str(name), child)
            return NameLoc(self._str(name), NoneAttr())
        raise self.error("expected location instance")

    def _check_ranges(self, what: str) -> None:
        why = _ranges_refused()
        if why is not None:  # (ttopt's own refusal: at the form it refuses)
            self.peek()
            raise self.where(f"{what} {why}", self.tok[2])


def extract_loc_aliases(text: str, filename: str) -> tuple[str, LocAliasTable]:
    """Blank every ``#loc.. = loc(...)`` definition of ``text`` and parse them all.

    A definition may span lines as MLIR reads it (MLIR is not line-based): between the tokens
    of ``#name = loc(`` and in the body, blanks, newlines and ``//`` comments.  Nearly every
    definition is one line, found by the patterns (``_PLAIN_BODY``, ``_BODY``); any other
    body is scanned to its ``)`` (:func:`_body_end`).  A body no ``)`` closes runs to the
    input's end (everything after it is inside it, as far as MLIR reads): the scan stops
    there, and its parse says what MLIR says (``expected ')' in inline location``...)."""
    # name -> (body, offset of the body); the match of a definition in a plain form
    # (_LOC_ALIAS_DEF's parts) until its text is needed (see below)
    raw: dict[str, tuple[str, int] | re.Match] = {}
    starts: dict[str, int] = {}
    lines: list[tuple[str, bool]] = []
    unclosed: str | None = None  # the definition that no `)` closes (the last one found)
    module_start = _module_start(text)
    hidden = _HiddenScanner(text)
    pieces: list[str] = []
    last = 0
    pos = 0
    search = (_LOC_ALIAS_DEF_ASCII if text.isascii() else _LOC_ALIAS_DEF).search
    while True:
        m = search(text, pos)
        if m is None:
            break
        at, end = m.span()
        head_end = m.end(2)  # after ` = loc(`, where the head is written as Triton prints it
        if at and text[at - 1] != "\n":
            if _NAME_CHAR.match(text, at - 1):  # (`x#loc1 = ...`)
                pos = at + 1
                continue
            # (at the start of a line, as Triton prints them, a definition is never inside a
            # string or a comment: neither spans lines)
            if hidden(at):
                pos = head_end if head_end >= 0 else end  # (where _LOC_ALIAS_START ends)
                continue
        if end > head_end >= 0:  # `#name = loc(BODY)`, BODY in a plain form (nearly every one)
            name = m.group(1)
            if name in raw:
                ln, col = line_col(text, at)
                raise TTOptError(f"redefinition of location alias '{name}'", filename, ln, col)
            raw[name] = m
            starts[name] = at
            lines.append((m.group(), at < module_start))
            pieces.append(text[last:at])
            pieces.append(" " * (end - at))  # every offset stays where it was
            last = pos = end
            continue
        # (LOC_ALIAS at `at`: its head is what _LOC_ALIAS_START matched, the character
        # before was checked above)
        fast = head_end >= 0
        if fast:
            body_start = head_end
        else:  # (another head, or none)
            head = _LOC_ALIAS_HEAD.match(text, at)
            if head is None:
                pos = m.end()
                continue
            body_start = head.end()
        name = m.group(1)
        if name in raw:
            ln, col = line_col(text, at)
            raise TTOptError(f"redefinition of location alias '{name}'", filename, ln, col)
        full = _PLAIN_BODY.match(text, body_start) or _BODY.match(text, body_start)
        if full is not None and fast:  # `#name = loc(BODY)` on one line
            end = full.end()
            raw[name] = (text[body_start : end - 1], body_start)
            blank = " " * (end - at)
        else:  # (over lines, with a comment, nested deeper, or not closed)
            close = full.end() - 1 if full is not None else _body_end(text, body_start)
            end = len(text) if close is None else close + 1
            raw[name] = (text[body_start : end if close is None else close], body_start)
            blank = _blanked(text, at, end)
            if close is None:
                unclosed = name  # (and the scan ends: end is the input's end)
        starts[name] = at
        lines.append((text[at:end], at < module_start))
        pieces.append(text[last:at])
        pieces.append(blank)  # every offset stays where it was
        last = pos = end
    pieces.append(text[last:])
    stripped = "".join(pieces)

    values: dict[str, LocationAttr] = {}
    in_progress: set[str] = set()
    cache: dict = {}  # file names and file:line:col locations repeat a lot

    def resolve(name: str, use_offset: int | None = None, user: int = -1) -> LocationAttr:
        """The location of alias ``name``; ``user``: where the definition that refers to it
        starts (it must come after ``name``'s, as MLIR reads them in order)."""
        if name in raw and user >= 0 and raw[name][1] >= user:
            ln, col = line_col(text, use_offset if use_offset is not None else user)
            raise TTOptError(
                f"location alias '{name}' is used before its definition (a location alias "
                "may refer only to aliases defined above it)", filename, ln, col,
            )
        if name in values:
            return values[name]
        if name not in raw:
            off = use_offset if use_offset is not None else 0
            ln, col = line_col(text, off)
            raise TTOptError(f"undefined location alias '{name}'", filename, ln, col)
        if name in in_progress:
            ln, col = line_col(text, raw[name][1])
            raise TTOptError(f"cyclic location alias '{name}'", filename, ln, col)
        in_progress.add(name)
        body, offset = raw[name]
        loc = fast_loc(body, lambda n, at: resolve(n, offset + at, offset), cache)
        if loc is not None:  # (one not closed too, where the input ends after it: see below)
            in_progress.discard(name)
            values[name] = loc
            return loc

        def where(msg: str, at: int = 0, _off=offset):
            ln, col = line_col(text, _off + at)
            return TTOptError(msg, filename, ln, col)

        def wrong_token(msg: str, at: int, at_end: bool, _off=offset):
            ln, col = line_col(text, wrong_token_offset(text, _off + at, at_end))
            return TTOptError(msg, filename, ln, col)

        def metadata(body_text: str, pos: int, _w=where, _off=offset):
            reader = cache.get(_MetadataReader)  # (one for the text, made when first needed)
            if reader is None:
                reader = cache[_MetadataReader] = _MetadataReader(text, stripped, filename, raw, resolve)
            return reader.read(_off, body_text, pos, _w)

        closed = name != unclosed
        p = _LocParser(body, lambda n, at: resolve(n, offset + at, offset), where, cache, metadata,
                       wrong_token, closed)
        loc = p.loc()
        p.expect_close()
        if not closed:  # (a `)` the scan did not find: cannot be, but never accept it)
            raise where("unterminated location ('loc(' without its ')')", -1)
        in_progress.discard(name)
        values[name] = loc
        return loc

    # the first definitions, as long as each is in a plain form, in order (each names only
    # aliases above it, which are in `values` then: resolve() would find the same), up to one
    # that may be an error or needs the parser (a line or column of 10 digits or more)
    for name, m in raw.items():
        if isinstance(m, tuple):
            break
        loc = _plain_location(m, values, cache)
        if loc is None:
            break
        values[name] = loc
    if len(values) < len(raw):  # resolve() reads the rest, from their text
        for name, m in raw.items():
            if not isinstance(m, tuple):
                raw[name] = (text[m.end(2) : m.end() - 1], m.end(2))
        for name in itertools.islice(raw, len(values), None):
            resolve(name)
    if unclosed is not None:  # (read by fast_loc: the input ends right after its body)
        ln, col = line_col(text, wrong_token_offset(text, len(text), True))
        raise TTOptError("expected ')' in inline location", filename, ln, col)
    return stripped, LocAliasTable(values, lines, starts)


def _plain_location(m: re.Match, values: dict, cache: dict) -> LocationAttr | None:
    """The location of a definition ``m`` of :data:`_LOC_ALIAS_DEF` in a plain form, as
    :func:`fast_loc` (or, fused, :class:`_LocParser`) builds it (same ``cache``), its aliases
    taken from ``values``; None where one is not there (undefined, or not above it) or a
    number has 10 digits or more (then resolve() says what is wrong, or the parser reads
    it)."""
    form = m.lastindex  # (the group that closed last: which form it is)
    if form == 5:  # "file":line:col
        string, line, col = m.group(3, 4, 5)
        if len(line) >= 10 or len(col) >= 10:
            return None
        key = (string, _int_of(line), _int_of(col))
        loc = cache.get(key)
        if loc is None:
            loc = cache[key] = file_line_col(_cached_str(cache, string), int_attr(key[1]),
                                             int_attr(key[2]))
        return loc
    if form == 6:  # "name"(#child)
        string, child = m.group(3, 6)
        child_loc = values.get(child)
        if child_loc is None:
            return None
        return name_loc(_cached_str(cache, string), child_loc)
    if form == 8:  # callsite(#callee at #caller)
        callee_loc, caller_loc = values.get(m.group(7)), values.get(m.group(8))
        if callee_loc is None or caller_loc is None:
            return None
        return call_site_loc(callee_loc, caller_loc)
    if form == 9:  # fused[#a, #b, ...], as _LocParser builds it
        locs = [values.get(name) for name in m.group(9).split(", ")]
        if None in locs:
            return None
        return container(FusedLoc, locs, NoneAttr())
    return unchecked(UnknownLoc)  # (`unknown`; a new object each, equal to what fast_loc makes)


_NOT_NEWLINE = re.compile(r"[^\n]+")


def _blanked(text: str, start: int, end: int) -> str:
    """``text[start:end]`` as blanks, its newlines kept (the lines stay where they were)."""
    if text.find("\n", start, end) < 0:
        return " " * (end - start)
    return _NOT_NEWLINE.sub(lambda m: " " * len(m.group()), text[start:end])


def wrong_token_offset(text: str, pos: int, at_end: bool = False) -> int:
    """Where MLIR reports an unexpected token at ``pos`` (``emitWrongTokenError``): at the
    end of the text before it, blank lines skipped back, and on each line skipped to, the
    part from its first ``//`` (a comment; MLIR looks for the first ``//`` of the line, in a
    string literal too).  At the input's end (``at_end``), one character back first."""
    if at_end:
        pos = max(pos - 1, 0)
    end = pos
    while True:
        while end > 0 and text[end - 1] in " \t":
            end -= 1
        if end == 0:
            return pos
        if text[end - 1] not in "\n\r":
            return end
        end -= 1
        line_start = max(text.rfind("\n", 0, end), text.rfind("\r", 0, end), 0)
        comment = text.find("//", line_start, end)
        if comment >= 0:
            end = comment


class _AliasesAbove(dict):
    """The aliases an attribute parser may name, each looked up when first named:
    ``lookup(name)`` is its value, or None where it is not defined (above)."""

    def __init__(self, lookup) -> None:
        super().__init__()
        self.lookup = lookup

    def __missing__(self, name: str):
        value = self.lookup(name)
        if value is None:
            raise KeyError(name)
        self[name] = value
        return value

    def __contains__(self, name) -> bool:
        return self.get(name) is not None

    def get(self, name, default=None):
        try:
            return self[name]
        except KeyError:
            return default


# `#name =` / `!name =` outside a string or a comment, in a text whose location alias
# definitions are blanked: an attribute or type alias definition (as _LOC_ALIAS_START, where
# another line or a comment may follow the name: then read whole by _ALIAS_DEF_HEAD)
_ALIAS_DEF_START = re.compile(r"([#!][\w$.-]++)[ \t]*+(?:=|(?=[\n\r/]))")
_ALIAS_DEF_HEAD = re.compile(r"[#!][\w$.-]++" + _GAP + "=")


class _AliasDefinitions:
    """The attribute and type alias definitions (``#a = {x = 1 : i32}``, ``!t = i32``) of a
    text whose location alias definitions are blanked, found when first asked and read in
    order, as far as asked, by the reader's parser in the context of the release being read
    (each knowing the aliases above it; ``location_above(name, offset)``: location alias
    ``name`` where it is defined above ``offset``, else None)."""

    def __init__(self, text: str, filename: str, location_above) -> None:
        self.text = text
        self.filename = filename
        self.heads: list[tuple[int, str]] | None = None  # (offset, name) of each definition
        self.read = 0  # definitions read (heads[:read])
        self.offsets: list[int] = []
        self.texts: list[str] = []  # each as written (the reader keys its types with them)
        self.defined: dict[str, tuple[int, Attribute]] = {}
        self.location_above = location_above
        self.parser = None
        self.current = 0  # the offset of the definition being read

    def _find(self) -> list[tuple[int, str]]:
        text, heads = self.text, []
        hidden = _HiddenScanner(text)
        for m in _ALIAS_DEF_START.finditer(text):
            at = m.start()
            if at and text[at - 1] != "\n" and (_NAME_CHAR.match(text, at - 1) or hidden(at)):
                continue
            if m.group().endswith("=") or _ALIAS_DEF_HEAD.match(text, at):
                heads.append((at, m.group(1)))
        return heads

    def _advance(self, limit: int) -> None:
        """Read every definition that starts before ``limit``."""
        if self.heads is None:
            self.heads = self._find()
        while self.read < len(self.heads) and self.heads[self.read][0] < limit:
            at, name = self.heads[self.read]
            self.read += 1
            parser = self._parser()
            self.current = at
            parser.resume_from(at)
            try:
                parser.parse_alias_definition()
            except ParseError as e:
                ln, col = line_col(self.text, e.span.start)
                raise TTOptError(_first_line(e.msg, "syntax error"), self.filename, ln, col) from None
            except VerifyException as e:
                ln, col = line_col(self.text, at)
                raise TTOptError(_first_line(str(e), "invalid attribute"), self.filename, ln, col) from None
            except ValueError as e:
                ln, col = line_col(self.text, parser.current_token.span.start)
                raise TTOptError(_digits_error(e), self.filename, ln, col) from None
            written = self.text[at : parser.current_token.span.start].strip()
            self.offsets.append(at)
            self.texts.append(written)
            _note_alias_definition(parser, written)
            self.defined.setdefault(name, (at, parser.attribute_aliases[name]))

    def _parser(self):
        if self.parser is None:
            self.parser = _reader_parser(self.text, self.filename)
            self.parser.attribute_aliases = _AliasesAbove(
                lambda n: self.location_above(n, self.current))
        return self.parser

    def value_above(self, name: str, offset: int) -> Attribute | None:
        """Alias ``name``'s value where it is defined above ``offset``, else None."""
        self._advance(offset)
        found = self.defined.get(name)
        return found[1] if found is not None and found[0] < offset else None

    def count_above(self, offset: int) -> int:
        """How many definitions start above ``offset`` (the first ones of ``texts``)."""
        self._advance(offset)
        return bisect.bisect_left(self.offsets, offset)


class _MetadataReader:
    """The metadata of the fused locations in one text's location alias definitions
    (``fused<ATTR>[...]``), each read by one reader parser over the text (made when first
    needed), in the context of the release being read.  An alias it names must be defined
    above the definition, as MLIR reads alias definitions in order: a location alias
    (``resolve(name, offset, user)`` refuses one defined below), an attribute or type alias
    (``#a = {x = 1 : i32}``, ``!t = i32``: :class:`_AliasDefinitions`, in the ``stripped``
    text), each looked up when the parser meets it."""

    def __init__(self, text: str, stripped: str, filename: str, raw: dict, resolve) -> None:
        self.text = text
        self.filename = filename
        self.raw = raw
        self.resolve = resolve
        self.definitions = _AliasDefinitions(stripped, filename, self._location_above)
        self.parser = None
        self.noted = 0  # definitions the parser was told of (the first ones)

    def _location_above(self, name: str, offset: int) -> LocationAttr | None:
        raw = self.raw
        return self.resolve(name) if name in raw and raw[name][1] < offset else None

    def read(self, offset: int, body: str, pos: int, where) -> tuple[Attribute, int]:
        """The attribute at ``body[pos:]`` (the body of the definition at ``offset`` of the
        text) and the offset in ``body`` of the token after it; an error: ``where(message,
        offset in body)``."""
        raw, resolve = self.raw, self.resolve
        refs = _alias_refs(body, pos, len(body))  # (where each is first named: linear)
        first: dict[str, int] = {}

        def lookup(name: str):
            if name in raw:
                while name not in first:
                    ref = next(refs, None)
                    if ref is None:
                        first[name] = pos
                        break
                    first.setdefault(ref[1], ref[0])
                return resolve(name, offset + first[name], offset)
            return self.definitions.value_above(name, offset)

        parser = self.parser
        if any(n not in raw for _, n in _alias_refs(body, pos, len(body))):
            # (one that may name an attribute or type alias: the parser is told of the
            # definitions above, as the reader's parser is at that point: it keys the types
            # it remembers across modules with them)
            above = self.definitions.count_above(offset)
            if parser is not None and above < self.noted:  # (not in the text's order: a new one)
                parser = None
            if parser is None:
                parser = _reader_parser(self.text, self.filename)
                self.noted = 0
            for written in self.definitions.texts[self.noted : above]:
                _note_alias_definition(parser, written)
            self.noted = max(self.noted, above)
        elif parser is None:
            parser = _reader_parser(self.text, self.filename)
            self.noted = 0
        self.parser = parser
        parser.attribute_aliases = _AliasesAbove(lookup)
        try:
            parser.resume_from(offset + pos)
            attr = _untyped_attribute(parser)
            return attr, parser.current_token.span.start - offset
        except ParseError as e:
            raise where(_first_line(e.msg, "syntax error"), e.span.start - offset) from None
        except VerifyException as e:
            raise where(_first_line(str(e), "invalid attribute"), pos) from None
        except ValueError as e:
            raise where(_digits_error(e), parser.current_token.span.start - offset) from None


def _first_line(msg: str | None, default: str) -> str:
    lines = msg.strip().splitlines() if msg else []
    return lines[0] if lines else default


def _digits_error(e: ValueError) -> str:
    """The message of an integer literal of more than 4,300 digits (Python's int() refuses
    it; MLIR refuses it wherever it stands, out of range), as the reader gives it; any other
    ValueError is raised again (a bug)."""
    if "for integer string conversion" not in str(e):
        raise e
    return "integer literal out of range (more than 4300 digits)"


def _reader_parser(text: str, filename: str):
    """The reader's parser over ``text``, in the context of the release being read."""
    from ..dialects import make_context
    from .reader import TritonParser  # (the reader imports this module)

    release = versions.current().release
    return TritonParser(make_context(release, (release, release)), text, filename)


def _note_alias_definition(parser, written: str) -> None:
    """Tell the reader's ``parser`` that alias definition ``written`` was read, as its
    top-level loop does: it keys the types it remembers (across modules) with the
    definitions read so far, since a type naming an alias means what they say (without
    this, ``tensor<4x!t>`` read where ``!t = i32`` would be taken for another text's
    ``tensor<4x!t>``, whatever its ``!t``)."""
    parser.note_alias_definition(written)


def check_top_level_aliases(
    table: LocAliasTable, text: str, spans: list[tuple[int, int]], filename: str
) -> None:
    """A location alias definition must lie between top-level operations (MLIR parses
    ``#name = ...`` only there: inside a body it expects an operation).  ``spans``: each
    top-level op's [first token, next token) in ``text``."""
    if not spans or not table.offsets:
        return
    starts = list(table.offsets.values())  # (found in text order)
    for start, after in spans:  # (linear: one binary search per top-level op)
        end = _end_of_code(text, start, after)
        i = bisect.bisect_right(starts, start)
        if i < len(starts) and starts[i] < end:
            at, name = starts[i], list(table.offsets)[i]
            ln, col = line_col(text, at)
            raise TTOptError(
                f"location alias definition '{name}' inside an operation (MLIR reads "
                "alias definitions only at the top level, between operations)",
                filename, ln, col,
            )


def _end_of_code(text: str, start: int, after: int) -> int:
    """End of the last token before offset ``after`` (not before ``start``): whitespace
    (blanked alias definitions included) and ``//`` comments skipped backwards."""
    i = after
    while i > start:
        i = skip_blanks_back(text, start, i)
        line_start = text.rfind("\n", 0, i) + 1
        comment = _comment_start(text, line_start, i)
        if comment is None:
            break
        i = comment
    return i


# the characters other than blanks (" \t\r\n") that `str.rstrip()` strips in an ASCII text
# (a form feed, a vertical tab, the separators \x1c - \x1f)
_OTHER_ASCII_SPACE = tuple(c for c in map(chr, range(128)) if c.isspace() and c not in " \t\r\n")


def rstripped_length(text: str, blanks: str = " \t\r\n\x00") -> int:
    """``len(text.rstrip(blanks))``, ``blanks`` being ``" \\t\\r\\n"`` and maybe NUL, fast: where
    ``text`` is ASCII without other whitespace, ``rstrip()`` strips the same whitespace
    several times as fast (it looks each character up in a table, ``rstrip(blanks)``
    searches ``blanks`` for it), and ``rstrip(blanks)`` then strips any NULs from there."""
    if text.isascii() and not _has_any(text, _OTHER_ASCII_SPACE):
        return len(text.rstrip().rstrip(blanks))
    return len(text.rstrip(blanks))


def _has_any(text: str, chars: tuple[str, ...]) -> bool:
    for c in chars:  # (a search for one character is a memchr: fast)
        if c in text:
            return True
    return False


def skip_blanks_back(text: str, start: int, i: int) -> int:
    """``i`` moved back over blanks (``" \\t\\r\\n"``, or NULs, which the reader puts in place of
    those outside strings; not before ``start``), in growing windows: the blanked alias
    lines after a module are thousands of characters, each looked at once."""
    window = 256
    while True:
        lo = max(start, i - window)
        kept = rstripped_length(text[lo:i])
        if kept or lo == start:
            return lo + kept
        i, window = lo, window * 2


def _comment_start(text: str, line_start: int, end: int) -> int | None:
    """Offset of a `//` comment running to ``end`` on the line from ``line_start``."""
    line = text[line_start:end]
    if "//" not in line:
        return None
    for m in _PREFIX_TOKENS.finditer(line):
        if m.group() == "//":
            return line_start + m.start()
        if m.group() == '"':  # an unterminated string: no comment after it
            return None
    return None


# (a string as MLIR's lexer takes it, without escapes: no quote, backslash, newline, \v, \f)
_FILE_LOC = re.compile(r'"([^"\\\n\v\f]*)":(\d+):(\d+)')
_NAME_LOC = re.compile(r'"([^"\\\n\v\f]*)"\((#[\w$.-]+)\)')
_CALLSITE = re.compile(r"callsite\((#[\w$.-]+) at (#[\w$.-]+)\)")


def fast_loc(body: str, resolve, cache: dict):
    """The four forms nearly every alias has, without tokenizing; None for anything else."""
    # (the attributes are built unchecked: the patterns matched what their checks ask, a
    # string without escapes, integers, locations)
    m = _FILE_LOC.fullmatch(body)
    if m and len(m.group(2)) < 10 and len(m.group(3)) < 10:  # longer: the full parser checks
        key = (m.group(1), int(m.group(2)), int(m.group(3)))
        loc = cache.get(key)
        if loc is None:
            loc = cache[key] = unchecked(
                FileLineColLoc, _cached_str(cache, key[0]), int_attr(key[1]), int_attr(key[2])
            )
        return loc
    m = _NAME_LOC.fullmatch(body)
    if m:
        return name_loc(_cached_str(cache, m.group(1)), resolve(m.group(2), m.start(2)))
    m = _CALLSITE.fullmatch(body)
    if m:
        return call_site_loc(resolve(m.group(1), m.start(1)), resolve(m.group(2), m.start(2)))
    if body == "unknown":
        return UnknownLoc()  # (a new object each: the writer keys a location's text by its id)
    return None


_INTS: dict[int, IntAttr] = {}


def int_attr(n: int) -> IntAttr:
    """``IntAttr(n)``, one shared object per value (attributes are immutable values)."""
    attr = _INTS.get(n)
    if attr is None:
        if len(_INTS) >= 65536:
            _INTS.clear()
        attr = _INTS[n] = unchecked_data(IntAttr, n)
    return attr


_INT_VALUES: dict[str, int] = {}


def _int_of(digits: str) -> int:
    """``int(digits)`` (a line or column number as written), remembered: a lookup costs less
    than reading the digits again."""
    n = _INT_VALUES.get(digits)
    if n is None:
        if len(_INT_VALUES) >= 65536:
            _INT_VALUES.clear()
        n = _INT_VALUES[digits] = int(digits)
    return n


def _cached_str(cache: dict, s: str) -> StringAttr:
    attr = cache.get(s)
    if attr is None:
        attr = cache[s] = unchecked_data(StringAttr, s)
    return attr


_MODULE_RE = re.compile(r"^\s*(module|\"builtin\.module\"|builtin\.module|tt\.func)\b", re.MULTILINE)
# (the same after a newline: a search for it jumps from newline to newline, where one for
# _MODULE_RE tries `^` at every character)
_MODULE_AFTER_NEWLINE = re.compile(
    r"\n\s*(?:module|\"builtin\.module\"|builtin\.module|tt\.func)\b"
)


def _module_start(text: str) -> int:
    """Where _MODULE_RE first matches (the text's length if nowhere): at the start, or
    after the first newline where it matches."""
    if _MODULE_RE.match(text):
        return 0
    m = _MODULE_AFTER_NEWLINE.search(text)
    return m.start() + 1 if m else len(text)


# ------------------------------------------------------------------ inline locations
def parse_location(p) -> Attribute:
    """What is inside ``loc(...)`` (and each location nested in it), read by the reader's
    parser ``p`` (ttopt's public parser API: ``current_token``, ``consume_token``...), as
    MLIR's location parser reads it: xDSL 0.74's reads neither ranges nor fused locations
    with metadata.  Nested locations are read by ``p.parse_location_body()`` (the reader
    checks the aliases in them); the messages of the forms xDSL reads are xDSL's."""
    tok = p.current_token
    kind = tok.kind
    if kind == MLIRTokenKind.BARE_IDENT:
        word = tok.text
        if word == "unknown":
            p.consume_token()
            return UnknownLoc()
        if word == "callsite":
            p.consume_token()
            p.parse_punctuation("(")
            callee = p.parse_location_body()
            p.parse_keyword("at")
            caller = p.parse_location_body()
            p.parse_punctuation(")")
            return container(CallSiteLoc, callee, caller)
        if word == "fused":
            p.consume_token()
            meta = NoneAttr()
            if p.current_token.kind == MLIRTokenKind.LESS:
                p.consume_token()
                start = p.current_token.span.start
                meta = _untyped_attribute(p)
                _check_metadata_aliases(p, start, p.current_token.span.start)
                if p.current_token.kind != MLIRTokenKind.GREATER:
                    p.raise_error("expected '>' after fused location metadata")
                p.consume_token()
            if p.current_token.kind != MLIRTokenKind.L_SQUARE:
                p.raise_error("expected '[' in fused location")
            locs = p.parse_comma_separated_list(p.Delimiter.SQUARE, p.parse_location_body)
            return container(FusedLoc, locs, meta)
        p.raise_error("Unsupported location type.")
    if kind == MLIRTokenKind.STRING_LIT:
        name = StringAttr(p.parse_optional_str_literal())
        if p.current_token.kind == MLIRTokenKind.COLON:
            p.consume_token()
            line = _parse_u32(p, "line number")
            if p.current_token.kind != MLIRTokenKind.COLON:  # `"f.py":3`: a range of a line
                _check_ranges_at(p, "a location with a line and no column")
                return make_range(name, line)
            p.consume_token()
            col = _parse_u32(p, "column number")
            tok = p.current_token
            if tok.kind == MLIRTokenKind.BARE_IDENT and tok.text == "to":
                _check_ranges_at(p, "a location range ('to')")
                p.consume_token()
                end_line = None
                if p.current_token.kind == MLIRTokenKind.INTEGER_LIT:
                    end_line = _parse_u32(p, "end line number")
                if p.current_token.kind != MLIRTokenKind.COLON:
                    p.raise_error("expected an integer or ':' after 'to' in a location range"
                                  if end_line is None else
                                  "expected ':' after the end line of a location range")
                p.consume_token()
                end_col = _parse_u32(p, "end column number")
                return make_range(name, line, col, end_line, end_col)
            return FileLineColLoc(name, IntAttr(line), IntAttr(col))
        if p.current_token.kind == MLIRTokenKind.L_PAREN:
            p.consume_token()
            child = p.parse_location_body()
            p.parse_punctuation(")")
            return container(NameLoc, name, child)
        return NameLoc(name, NoneAttr())
    if kind == MLIRTokenKind.HASH_IDENT:
        attr = p.parse_attribute()
        if is_location(attr):
            return attr
        p.raise_error("Expected location alias.")
    p.raise_error("Unexpected location syntax.")


_ALIAS_REFS = re.compile(STRING_LITERAL.pattern + r"|//[^\n]*|[#!][\w$.-]+")


def _alias_refs(text: str, start: int, end: int):
    """(offset, name) of each ``#name`` and ``!name`` in ``text[start:end]`` outside string
    literals and ``//`` comments."""
    for m in _ALIAS_REFS.finditer(text, start, end):
        if m.group()[0] in "#!":
            yield m.start(), m.group()


def _check_metadata_aliases(p, start: int, end: int) -> None:
    """A fused location's metadata is an attribute: MLIR resolves a location alias in it
    on the spot (not at the end, as a whole ``loc(#alias)``), so it must be defined above."""
    offsets = getattr(p, "loc_alias_offsets", None)
    if not offsets:
        return
    source = p.lexer.input.content
    for at, name in _alias_refs(source, start, end):
        defined_at = offsets.get(name)
        if defined_at is not None and defined_at > at:
            p.raise_error(f"undefined symbol alias '{name}' (a location alias in a fused "
                          "location's metadata must be defined above it)",
                          p.current_token.span)


def _untyped_attribute(p) -> Attribute:
    """An attribute where MLIR expects no particular type (``parseAttribute()``): a string
    there may have one, ``"m" : i32`` (the reader's parser reads it so in a dictionary's
    entry or an array's element; xDSL's ``parse_attribute`` where it has no such method)."""
    parse = getattr(p, "_parse_generic_attribute", None)
    return parse() if parse is not None else p.parse_attribute()


def _parse_u32(p, what: str) -> int:
    """A line or column number: an unsigned 32-bit integer, decimal or hexadecimal."""
    tok = p.current_token
    if tok.kind != MLIRTokenKind.INTEGER_LIT:
        p.raise_error(f"expected integer {what} in location")
    value = p.parse_integer(False, False)
    if not 0 <= value < 1 << 32:
        p.raise_error(f"expected integer {what} in location, got '{tok.text}'", tok.span)
    return value


def _check_ranges_at(p, what: str) -> None:
    why = _ranges_refused()
    if why is not None:
        p.raise_error(f"{what} {why}")
