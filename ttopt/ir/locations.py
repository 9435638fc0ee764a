"""Location aliases (``#loc12 = loc(...)``), read before the module is parsed.

Triton prints most ``#loc`` alias definitions *after* the module that uses them; MLIR allows
that, xDSL does not.  So the reader takes every alias definition line out of the text (the line
is blanked, keeping line numbers for error messages), parses the definitions here, in
dependency order, and hands the parser a ready table.  This small parser is also much faster
than running xDSL's on thousands of one-line definitions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl.dialects.builtin import (
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

from ..errors import TTOptError, line_col

# A whole line `#locN = loc(...)` (possibly with trailing spaces).
LOC_ALIAS_LINE = re.compile(r"^(#loc[\w$.-]*)[ \t]*=[ \t]*loc\((.*)\)[ \t]*$", re.MULTILINE)

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<str>"(?:[^"\\]|\\.)*")
      | (?P<alias>\#[\w$.-]+)
      | (?P<int>\d+)
      | (?P<ident>[A-Za-z_][\w$.]*)
      | (?P<punct>[()\[\],:<>])
    )""",
    re.VERBOSE,
)


@dataclass
class LocAliasTable:
    """Location aliases of one input: name -> attribute, plus the original lines."""

    values: dict[str, LocationAttr]
    lines: list[tuple[str, bool]]  # (original line text, came before the module)


def _unescape(s: str) -> str:
    body = s[1:-1]
    if "\\" not in body:
        return body
    return bytes(body, "utf-8").decode("unicode_escape")


class _LocParser:
    def __init__(self, text: str, resolve, where, cache: dict):
        self.cache = cache
        self.tokens = []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if m is None:
                raise where(f"unexpected text in location: {text[pos:pos + 20]!r}")
            kind = m.lastgroup
            self.tokens.append((kind, m.group(kind)))
            pos = m.end()
        self.i = 0
        self.resolve = resolve
        self.where = where

    def _str(self, s: str) -> StringAttr:
        attr = self.cache.get(s)
        if attr is None:
            attr = self.cache[s] = StringAttr(s)
        return attr

    def peek(self):
        return self.tokens[self.i] if self.i < len(self.tokens) else (None, None)

    def take(self, value=None):
        tok = self.peek()
        if tok[0] is None or (value is not None and tok[1] != value):
            raise self.where(f"expected '{value}' in location, got {tok[1]!r}")
        self.i += 1
        return tok

    def loc(self) -> LocationAttr:
        kind, val = self.peek()
        if kind == "ident" and val == "unknown":
            self.take()
            return UnknownLoc()
        if kind == "alias":
            self.take()
            return self.resolve(val)
        if kind == "ident" and val == "callsite":
            self.take()
            self.take("(")
            callee = self.loc()
            self.take("at")
            caller = self.loc()
            self.take(")")
            return CallSiteLoc(callee, caller)
        if kind == "ident" and val == "fused":
            self.take()
            meta = NoneAttr()
            if self.peek()[1] == "<":
                raise self.where("fused locations with metadata are not supported")
            self.take("[")
            locs = [self.loc()]
            while self.peek()[1] == ",":
                self.take()
                locs.append(self.loc())
            self.take("]")
            return FusedLoc(tuple(locs), meta)
        if kind == "str":
            self.take()
            name = _unescape(val)
            if self.peek()[1] == ":":
                self.take()
                line = int(self.take()[1])
                self.take(":")
                col = int(self.take()[1])
                if self.peek()[1] == "to":
                    raise self.where("location ranges ('to') are not supported")
                key = (name, line, col)
                loc = self.cache.get(key)
                if loc is None:
                    loc = self.cache[key] = FileLineColLoc(self._str(name), IntAttr(line), IntAttr(col))
                return loc
            if self.peek()[1] == "(":
                self.take()
                child = self.loc()
                self.take(")")
                return NameLoc(self._str(name), child)
            return NameLoc(self._str(name), NoneAttr())
        raise self.where(f"unexpected {val!r} in location")


def extract_loc_aliases(text: str, filename: str) -> tuple[str, LocAliasTable]:
    """Blank every ``#loc.. = loc(...)`` line of ``text`` and parse them all."""
    raw: dict[str, tuple[str, int]] = {}
    lines: list[tuple[str, bool]] = []
    module_start = _module_start(text)
    pieces: list[str] = []
    last = 0
    for m in LOC_ALIAS_LINE.finditer(text):
        name = m.group(1)
        if name in raw:
            ln, col = line_col(text, m.start())
            raise TTOptError(f"redefinition of location alias '{name}'", filename, ln, col)
        raw[name] = (m.group(2), m.start())
        lines.append((m.group(0).rstrip(), m.start() < module_start))
        pieces.append(text[last : m.start()])
        last = m.end()
    pieces.append(text[last:])
    stripped = "".join(pieces)

    values: dict[str, LocationAttr] = {}
    in_progress: set[str] = set()
    cache: dict = {}  # file names and file:line:col locations repeat a lot

    def resolve(name: str, use_offset: int | None = None) -> LocationAttr:
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
        loc = _fast_loc(body, lambda n: resolve(n, offset), cache)
        if loc is not None:
            in_progress.discard(name)
            values[name] = loc
            return loc

        def where(msg: str, _off=offset):
            ln, col = line_col(text, _off)
            return TTOptError(msg, filename, ln, col)

        p = _LocParser(body, lambda n: resolve(n, offset), where, cache)
        loc = p.loc()
        if p.peek()[0] is not None:
            raise where(f"unexpected {p.peek()[1]!r} after location")
        in_progress.discard(name)
        values[name] = loc
        return loc

    for name in raw:
        resolve(name)
    return stripped, LocAliasTable(values, lines)


_FILE_LOC = re.compile(r'"([^"\\]*)":(\d+):(\d+)')
_NAME_LOC = re.compile(r'"([^"\\]*)"\((#[\w$.-]+)\)')
_CALLSITE = re.compile(r"callsite\((#[\w$.-]+) at (#[\w$.-]+)\)")


def _fast_loc(body: str, resolve, cache: dict):
    """The four forms nearly every alias has, without tokenizing; None for anything else."""
    m = _FILE_LOC.fullmatch(body)
    if m:
        key = (m.group(1), int(m.group(2)), int(m.group(3)))
        loc = cache.get(key)
        if loc is None:
            loc = cache[key] = FileLineColLoc(_cached_str(cache, key[0]), IntAttr(key[1]), IntAttr(key[2]))
        return loc
    m = _NAME_LOC.fullmatch(body)
    if m:
        return NameLoc(_cached_str(cache, m.group(1)), resolve(m.group(2)))
    m = _CALLSITE.fullmatch(body)
    if m:
        return CallSiteLoc(resolve(m.group(1)), resolve(m.group(2)))
    if body == "unknown":
        return UnknownLoc()
    return None


def _cached_str(cache: dict, s: str) -> StringAttr:
    attr = cache.get(s)
    if attr is None:
        attr = cache[s] = StringAttr(s)
    return attr


_MODULE_RE = re.compile(r"^\s*(module|\"builtin\.module\"|builtin\.module|tt\.func)\b", re.MULTILINE)


def _module_start(text: str) -> int:
    m = _MODULE_RE.search(text)
    return m.start() if m else len(text)
