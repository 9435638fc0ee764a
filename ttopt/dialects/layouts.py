"""Triton's layout attributes (``#ttg.blocked<{...}>`` ...), checked as each release 2.1 - 3.9
checks them.

ttopt keeps a layout as the text of its body (:class:`~ttopt.dialects.tt_attrs.OpaqueBodyAttr`:
the round trip is exact and no pass looks inside), but it must not accept a layout Triton
rejects.  Two kinds of checks, each written from Triton's sources
(``lib/Dialect/TritonGPU/IR/Dialect.cpp``, ``lib/Dialect/Triton/IR/Traits.cpp``) and confirmed
against every release's own parser and verifier (``test/test_layouts.py`` runs the same texts
through each release's Triton):

* **the attribute itself**, when it is read (:class:`LayoutAttr`, a parse error at the
  position Triton reports): which layout kinds a release has (``#triton_gpu.linear`` is 3.3's),
  the keys each kind takes (``unexpected key: threadsParWarp`` for ``blocked``, ``shared``,
  ``swizzled_shared``, ``nvmma_shared``; ``duplicate or unknown struct parameter name`` for
  ``dot_op`` from 3.0; the other kinds ignore a key they do not know), the type of each
  value (``expected an array for order`` ...), duplicate keys, undefined aliases, and the
  attribute's own ``verify`` (ranks, permutations, powers of two, ``dot_op``'s parent and
  ``kWidth``, ``slice``'s ``dim`` ...).  A key whose absence makes Triton crash (``slice``
  without ``dim``) is an error here.
* **the layout in its module** (:class:`ModuleLayouts`, used by the verifier; Triton's
  ``verifyTensorLayouts``, from 2.2): each tensor operand and result of a ``tt``/``ttg`` op has
  a layout whose rank is the tensor's, whose threads per warp, warps per CTA and CTAs per CGA
  are the module's (``"ttg.threads-per-warp"``, ``"ttg.num-warps"`` or a ``tt.func``'s, and
  ``"ttg.num-ctas"``), and (3.0+) that is not a shared layout.  Which layouts are checked
  grew with the releases: ``blocked`` alone until 3.4, every distributed layout from 3.5.

A body is read by a port of MLIR's own attribute parser (its messages and positions:
``expected '}' in attribute dictionary`` ...), and scanned first as MLIR scans a dialect
attribute's body (``unbalanced '{' character in pretty dialect name``).  A layout a release
crashes on (``slice`` without ``dim``, a ``linear`` layout whose bases do not cover its
output ...) is an error here.

An error is one only if every release the text may come from has it (:class:`Reading`: the
release a text is read as is a guess where its signs allow several).

What is left out (never rejected: a check that cannot be done exactly): the AMD layouts
(``amd_mfma``, ``amd_wmma``, ``amd_rotating_shared``), ``padded_shared``, ``shared_linear``,
``partitioned_shared``, ``generic_linear`` and ``ttng``'s layouts, beyond the releases that
have them; Triton's crashes deep in a layout's conversion to a linear layout (an ``nvidia_mma``
without ``instrShape`` ...); a value a release reads uninitialised (``nvmma_shared`` without
``swizzlingByteWidth``); a tensor shape that is not a power of two (3.5+: Triton prints it in
its own way); ``ttng`` ops' operands and results; attribute syntax the parser here does not
model (types, ``dense<..>``, symbol references: then nothing about that body is checked).

A check costs nothing per op but a dictionary lookup per operand and result: a layout is
analysed once per text, release and aliases it names (in the process), a tensor type once per
module and warp context.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from xdsl.dialects.builtin import IntegerAttr, StringAttr, TensorType
from xdsl.ir import Attribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser

from ..xdsl_compat import peek_token
from .constraints import shape_of
from .versions import current
from .tt_attrs import (OpaqueBodyAttr, blank_before_body, blank_body_error, body_key, scan_body,
                       scanned_body)

Release = tuple[int, int]

# ============================================================================ body syntax
# The part of MLIR's attribute syntax layouts use: integers (typed or not), floats, bools,
# strings, arrays, dictionaries, aliases (`#blocked`), dialect attributes (`#ttg.blocked<..>`)
# and a few others kept as text (`array<i32: 1>`, `dense<..>`, `unit`, types).


@dataclass(frozen=True)
class Int:
    value: int
    sign: str  # "l" signless, "s" signed, "u" unsigned, "x" index
    width: int
    pos: int

    @property
    def is_bool(self) -> bool:
        return self.sign == "l" and self.width == 1


@dataclass(frozen=True)
class Arr:
    items: tuple
    pos: int


@dataclass(frozen=True)
class Dict:
    entries: tuple  # ((key, value, key_pos), ...) in text order
    pos: int
    end: int

    def get(self, key):
        for k, v, _ in self.entries:
            if k == key:
                return v
        return None

    def sorted(self):
        """The entries in the order MLIR's ``DictionaryAttr`` holds them (by name)."""
        return sorted(self.entries, key=lambda e: e[0])


@dataclass(frozen=True)
class Ref:
    name: str  # "#blocked"
    pos: int


@dataclass(frozen=True)
class Sym:
    """A dialect attribute written out: ``#ttg.blocked<{...}>`` (``text`` is all of it)."""

    dialect: str
    kind: str
    text: str
    body: str  # with its brackets, "" for none
    pos: int


@dataclass(frozen=True)
class Other:
    text: str
    what: str  # "float", "string", "unit", "other"
    pos: int


class _Unknown(Exception):
    """Syntax the parser here does not model (a type, `dense<..>` ...): the body is not
    judged."""


# ---------------------------------------------------------------------------- MLIR's lexer
_WS = " \t\n\r\x00"
_INT_TYPE = re.compile(r"(si|ui|i)([0-9]+)|index")
_FLOAT_TYPES = frozenset({"f16", "f32", "f64", "bf16", "f80", "f128", "tf32"})
# one token of MLIR's lexer (blanks and `//` comments before it skipped); `bad`: a character
# that begins none
_TOKEN = re.compile(
    r"(?:[ \t\n\r\x00]+|//[^\n]*)*"
    r"(?:(?P<eof>\Z)"
    r"|(?P<arrow>->)|(?P<minus>-)"
    r"|(?P<punct>[{}\[\]()<>,=:?+*|])"
    r"|(?P<hash>#(?:[A-Za-z_$.-][A-Za-z0-9_$.-]*|[0-9]+))"
    r'|(?P<string>"(?:[^"\\\n]|\\.)*")'
    r"|(?P<number>0x[0-9a-fA-F]+|[0-9]+(?P<frac>\.[0-9]*(?:[eE][+-]?[0-9]+)?)?)"
    r"|(?P<word>[A-Za-z_][A-Za-z0-9_$.]*)"
    r"|(?P<sigil>[!@%^][A-Za-z0-9_$.-]*)"
    r"|(?P<bad>.))",
    re.DOTALL,
)
# bare words that begin an attribute this parser does not model (MLIR parses them)
_BRACKETED = frozenset({"array", "dense", "dense_resource", "affine_map", "affine_set", "sparse",
                        "strided", "distinct"})
_COMPLEX_WORDS = frozenset({
    "array", "dense", "dense_resource", "affine_map", "affine_set", "sparse", "strided",
    "distinct", "loc", "tensor", "memref", "vector", "complex", "tuple", "none", "unit",
    "opaque", "symbol", "type",
})


@dataclass(frozen=True)
class _Tok:
    kind: str  # "punct", "arrow", "minus", "bare", "hash", "string", "int", "float", "eof", other
    start: int
    end: int
    text: str


class _Parser:
    """MLIR's attribute parser, for the attributes layouts are written with: its messages
    and positions (``emitWrongTokenError``: after the last non-blank before the token),
    aliases resolved (``lookup``) and nested layouts analysed (``nested``) as it goes, in
    the order MLIR parses them."""

    def __init__(self, text: str, lookup=None, nested=None):
        self.s = text
        self.i = 0
        self.lookup = lookup
        self.nested = nested
        self.tok = self._lex()

    # --- lexing
    def _lex(self) -> _Tok:
        s = self.s
        m = _TOKEN.match(s, self.i)
        kind = m.lastgroup
        start, end = m.start(kind), m.end()
        self.i = end
        if kind == "word":
            return _Tok("bare", start, end, m.group(kind))
        if kind == "punct":
            return _Tok("punct", start, end, m.group(kind))
        if kind == "number":
            return _Tok("float" if m.group("frac") is not None else "int", start, end, m.group(kind))
        if kind == "eof":
            return _Tok("eof", start, start, "")
        if kind == "sigil":
            return _Tok(s[start], start, end, m.group(kind))
        if kind == "bad":
            c = s[start]
            if c in "#\"$.":  # (`#` with no name, an unterminated string ...: not modelled)
                raise _Unknown
            raise LayoutError("unexpected character", start)
        return _Tok(kind, start, end, m.group(kind))

    def next(self) -> _Tok:
        t = self.tok
        self.tok = self._lex()
        return t

    def at(self, text: str) -> bool:
        return self.tok.kind == "punct" and self.tok.text == text

    def take(self, text: str) -> bool:
        if self.at(text):
            self.next()
            return True
        return False

    def wrong_token(self, message: str) -> LayoutError:
        """MLIR's ``emitWrongTokenError``: at the end of the text before the token (blanks
        and blank lines skipped back)."""
        i = self.tok.start
        if self.tok.kind == "eof":
            i = max(0, i - 1)
        j = i
        while j > 0 and self.s[j - 1] in " \t\r\n":
            j -= 1
        return LayoutError(message, j if j > 0 else i)

    def expect(self, text: str, message: str) -> None:
        if not self.take(text):
            raise self.wrong_token(message)

    # --- attributes
    def attribute(self):
        t = self.tok
        k = t.kind
        if k == "punct" and t.text == "[":
            self.next()
            items = []
            if not self.take("]"):
                while True:
                    items.append(self.attribute())
                    if self.take(","):
                        continue
                    self.expect("]", "expected ',' or ']'")
                    break
            return Arr(tuple(items), t.start)
        if k == "punct" and t.text == "{":
            return self.dictionary()
        if k == "hash":
            return self.hash_attribute()
        if k == "string":
            self.next()
            return Other(t.text, "string", t.start)
        if k in ("int", "float", "minus"):
            return self.number()
        if k == "bare":
            if t.text in ("true", "false"):
                self.next()
                return Int(int(t.text == "true"), "l", 1, t.start)
            if t.text == "unit":
                self.next()
                return Other("unit", "other", t.start)
            if t.text in _BRACKETED and t.end < len(self.s) and self.s[t.end] == "<":
                # (`array<i32: 1, 2>` ...: an attribute of another kind; what is inside is
                # not judged)
                try:
                    end = scan_body(self.s, t.end)
                except Exception:
                    end = None
                if end is None or t.text in ("dense", "dense_resource", "sparse"):
                    raise _Unknown  # (followed by a type: not modelled)
                self.i = end
                self.tok = self._lex()
                return Other(self.s[t.start : end], "other", t.start)
            if t.text in _COMPLEX_WORDS or t.text in _FLOAT_TYPES or _INT_TYPE.fullmatch(t.text) \
                    or t.text.startswith("f8") or t.text.startswith("f4") or t.text.startswith("f6"):
                raise _Unknown  # (a type, `dense<..>` ...)
            raise self.wrong_token("expected attribute value")
        if k in ("!", "@", "punct") and t.text in ("!", "@", "(") or k in ("!", "@"):
            raise _Unknown  # (a type, a symbol reference)
        raise self.wrong_token("expected attribute value")

    def hash_attribute(self):
        t = self.next()
        name = t.text[1:]
        if "." not in name:  # an alias, which must be defined above
            if self.lookup is not None and self.lookup(t.text) is None:
                raise LayoutError(f"undefined symbol alias id '{name}'", t.end if self.tok.kind == "eof" else self.tok.start)
            return Ref(t.text, t.start)
        dialect, kind = name.split(".", 1)
        body = ""
        if t.end < len(self.s) and self.s[t.end] == "<":
            try:
                end = scan_body(self.s, t.end)
            except Exception:  # (the whole body was scanned before: not here)
                end = None
            if end is None:
                raise _Unknown
            body = self.s[t.end : end]
            self.i = end
            self.tok = self._lex()
        sym = Sym(dialect, kind, self.s[t.start : t.start + len(t.text) + len(body)], body, t.start)
        if self.nested is not None:
            self.nested(sym)
        return sym

    def number(self):
        t = self.tok
        neg = False
        if t.kind == "minus":
            self.next()
            neg = True
            t = self.tok
            if t.kind not in ("int", "float"):
                raise self.wrong_token("expected constant integer or floating point value")
        self.next()
        if t.kind == "float":
            self.type_suffix()
            return Other(("-" if neg else "") + t.text, "float", t.start)
        value = int(t.text, 16) if t.text.startswith("0x") else int(t.text)
        if neg:
            if value == 0 and not t.text.startswith("0x"):
                # (MLIR: a negated zero does not fit a signless integer's range check)
                raise LayoutError("integer constant out of range for attribute", t.start)
            value = -value
        if abs(value) >= 1 << 31:  # (MLIR's range checks per width are not modelled)
            raise _Unknown
        typ = self.type_suffix()
        if typ is None:
            return Int(value, "l", 64, t.start)
        if typ in _FLOAT_TYPES:
            return Other(str(value), "float", t.start)
        tm = _INT_TYPE.fullmatch(typ)
        if tm is None:
            raise _Unknown
        if typ == "index":
            return Int(value, "x", 64, t.start)
        sign = {"si": "s", "ui": "u", "i": "l"}[tm.group(1)]
        width = int(tm.group(2))
        if width < 32 and not (width == 1 and value in (0, 1)):
            raise _Unknown  # (a value that may not fit: not modelled)
        if width == 1:  # `1 : i1` is `true`
            return Int(value, "l", 1, t.start)
        return Int(value, sign, width, t.start)

    def type_suffix(self) -> str | None:
        if not self.at(":"):
            return None
        self.next()
        t = self.tok
        if t.kind == "bare" and (_INT_TYPE.fullmatch(t.text) or t.text in _FLOAT_TYPES):
            self.next()
            return t.text
        if t.kind in ("eof", "int", "float", "string", "minus", "arrow", "hash") or (
            t.kind == "punct" and t.text != "("
        ):
            raise self.wrong_token("expected non-function type")
        raise _Unknown  # (another type: not modelled)

    def dictionary(self) -> Dict:
        """MLIR's ``parseAttributeDict`` (the current token is its ``{``)."""
        start = self.tok.start
        self.next()
        entries = []
        seen: set[str] = set()
        if not self.take("}"):
            while True:
                t = self.tok
                if t.kind == "string":
                    key = t.text[1:-1]
                    if "\\" in key:
                        raise _Unknown
                    if not key:
                        raise LayoutError("expected valid attribute name", t.start)
                elif t.kind == "bare":
                    key = t.text
                else:
                    raise self.wrong_token("expected attribute name")
                if key in seen:
                    raise LayoutError(f"duplicate key '{key}' in dictionary attribute", t.start)
                seen.add(key)
                self.next()
                if self.take("="):
                    value = self.attribute()
                else:
                    value = Other("unit", "other", t.start)
                entries.append((key, value, t.start))
                if self.take(","):
                    continue
                self.expect("}", "expected '}' in attribute dictionary")
                break
        return Dict(tuple(entries), start, self.tok.start)


# ============================================================================ analysis


class LayoutError(Exception):
    """What Triton says of a layout, and where: ``"name"`` (the kind's name, Triton's
    ``getNameLoc``), ``"lt"`` (its ``<``), ``"next"`` (the token after the attribute) or an
    offset into the attribute's text (the ``<...>`` body, brackets included)."""

    def __init__(self, message: str, where="name"):
        super().__init__(message)
        self.message = message
        self.where = where


@dataclass
class LayoutInfo:
    """What the module-context checks need of a layout (None: unknown, not checked)."""

    kind: str
    written: str  # the attribute as written (``text``: as Triton prints it, made when asked)
    distributed: bool | None = None
    shared: bool = False
    rank: int | None = None
    lanes: int | None = None
    warps: int | None = None
    ctas: int | None = None
    mma_major: int | None = None
    error: LayoutError | None = None
    crash: bool = False  # the error is a crash of Triton (no message to compare)
    extra: dict = field(default_factory=dict)
    printer: object = None  # () -> the text as Triton prints it (None: as written)
    _text: str | None = None

    @property
    def text(self) -> str:
        """The layout as Triton prints it in a message (aliases inside written out)."""
        if self._text is None:
            self._text = self.printer() if self.printer is not None else self.written
        return self._text


# which releases have each kind (Triton's TritonGPU / TritonNvidiaGPU attribute definitions)
_ALL = ((2, 1), (9, 9))
KIND_RELEASES: dict[str, tuple[Release, Release] | None] = {
    "blocked": _ALL, "slice": _ALL, "dot_op": _ALL,
    "mma": ((2, 1), (2, 3)), "nvidia_mma": ((3, 0), (9, 9)),
    "amd_mfma": ((3, 0), (9, 9)), "amd_wmma": ((3, 0), (9, 9)),
    "shared": ((2, 1), (3, 2)), "swizzled_shared": ((3, 3), (9, 9)),
    "nvmma_shared": ((3, 3), (9, 9)), "linear": ((3, 3), (9, 9)),
    "amd_rotating_shared": ((3, 4), (9, 9)), "padded_shared": ((3, 5), (9, 9)),
    "shared_linear": ((3, 6), (9, 9)), "shared_memory": ((3, 2), (9, 9)),
    "partitioned_shared": ((3, 8), (9, 9)), "generic_linear": ((3, 8), (9, 9)),
    "mfma": None, "wmma": None,  # (in no release ttopt reads)
    "tensor_memory": ((3, 3), (9, 9)), "tensor_memory_encoding": ((3, 3), (9, 9)),
    "tensor_memory_scales_encoding": ((3, 3), (9, 9)),
}
_NV_KINDS = frozenset({"tensor_memory", "tensor_memory_encoding", "tensor_memory_scales_encoding"})
_DISTRIBUTED = frozenset({"blocked", "slice", "dot_op", "mma", "nvidia_mma", "amd_mfma",
                          "amd_wmma", "linear", "generic_linear"})
_SHARED = frozenset({"shared", "swizzled_shared", "nvmma_shared", "amd_rotating_shared",
                     "padded_shared", "shared_linear", "partitioned_shared"})


def gpu_prefix(release: Release) -> str:
    return "triton_gpu" if release < (3, 3) else "ttg"


def kind_error(kind: str, dialect: str, release: Release) -> LayoutError | None:
    """Triton's error for a layout kind ``release`` does not have (None if it has it)."""
    span = KIND_RELEASES.get(kind, _ALL)
    if span is not None and span[0] <= release <= span[1]:
        return None
    if kind in _NV_KINDS and release < (3, 3):
        if release < (2, 2):
            return LayoutError(
                f'#"{dialect}"<"{kind}"> : \'none\' attribute created with unregistered dialect'
            )
        return LayoutError(f"dialect '{dialect}' provides no attribute parsing hook")
    return LayoutError(f"unknown attribute `{kind}` in dialect `{dialect}`")


class Context:
    """How a layout's body refers to others: ``lookup("#blocked")`` gives the aliased
    attribute (None if undefined), ``memo`` the analyses done so far (by kind and text)."""

    def __init__(self, release: Release, lookup):
        self.release = release
        self.lookup = lookup
        self.memo: dict[tuple[str, str], LayoutInfo] = {}


class Reading:
    """The layouts of one text being read as release ``release``: an analysis context per
    release, and the releases the text may come from (:meth:`span`).

    An error is one only if every release that may have written the text has it: the
    release a text is read as is a guess where its signs allow several (a TTGIR of 3.5 with
    no 3.5-only op reads as 3.6, whose ``blocked`` no longer takes ``CTAsPerCGA``), and ttopt
    never refuses a text a Triton release accepts."""

    def __init__(self, release: Release, lookup, span_of=None):
        self.release = release
        self.lookup = lookup
        self._span_of = span_of  # () -> the span (None: this release alone)
        self._span: tuple[Release, Release] | None = None
        self.contexts: dict[Release, Context] = {}

    def context(self, release: Release | None = None) -> Context:
        release = self.release if release is None else release
        ctx = self.contexts.get(release)
        if ctx is None:
            ctx = self.contexts[release] = Context(release, self.lookup)
        return ctx

    def others(self):
        """The other releases the text may come from."""
        from .versions import RELEASES

        low, high = self.span()
        return [r for r in RELEASES if low <= r <= high and r != self.release]

    def span(self) -> tuple[Release, Release]:
        if self._span is None:
            self._span = (self.release, self.release)
            if self._span_of is not None:
                self._span = self._span_of()
        return self._span


def reading_span(text: str, release: Release) -> tuple[Release, Release]:
    """The releases ``text`` may come from, as the reader detects them (its
    ``triton_release``), when it is read as ``release`` because its signs point there; just
    ``release`` when that was named (the signs point elsewhere) or they conflict."""
    from ..errors import TTOptError
    from ..ir import reader

    try:
        found = reader.triton_release(text, "<layouts>")
    except (TTOptError, ValueError):
        return (release, release)
    if found.release != release or not (found.low <= release <= found.high):
        return (release, release)
    return (found.low, found.high)


def info_of_attr(attr: Attribute, ctx: Context) -> LayoutInfo:
    """The analysis of a layout attribute object (by its kind and stored text)."""
    if isinstance(attr, LayoutAttr):
        return analyze(_kind_of(attr.name, ctx.release), attr.body.data, ctx)
    return LayoutInfo("other", _print_other(attr))


def _print_other(attr: Attribute) -> str:
    if isinstance(attr, IntegerAttr):
        return f"{attr.value.data} : {attr.type}"
    return str(attr)


_ANALYSES: dict[tuple, LayoutInfo] = {}
"""Every analysis of this process, by kind, text, release and what the aliases it names
mean (:func:`_env_of`): a module's layouts are mostly those of the modules before it."""
_ANALYSES_MAX = 50_000
_ALIAS_REF = re.compile(r"#([A-Za-z_$-][\w$-]*)(?![\w$.-])")


def _env_of(text: str, ctx: Context, depth: int = 0) -> tuple | None:
    """What the aliases ``text`` names mean (their kinds and texts, and theirs in turn);
    None where one is not a layout (the analysis is then this module's alone)."""
    if "#" not in text:
        return ()
    out = []
    for m in _ALIAS_REF.finditer(text):
        attr = ctx.lookup("#" + m.group(1))
        if not isinstance(attr, LayoutAttr) or depth >= 8:
            return None
        body = attr.body.data
        sub = _env_of(body, ctx, depth + 1)
        if sub is None:
            return None
        out.append((m.group(1), attr.name, body, sub))
    return tuple(out)


def _referenced(text: str, lookup, depth: int = 0, out: dict | None = None) -> dict:
    """The aliases ``text`` names, and those they name in turn: name -> attribute."""
    out = {} if out is None else out
    if "#" in text and depth < 8:
        for m in _ALIAS_REF.finditer(text):
            name = "#" + m.group(1)
            if name not in out:
                attr = lookup(name)
                if attr is not None:
                    out[name] = attr
                    if isinstance(attr, OpaqueBodyAttr):
                        _referenced(attr.body.data, lookup, depth + 1, out)
    return out


def analyze(kind: str, text: str, ctx: Context) -> LayoutInfo:
    """The analysis of a ``#<prefix>.<kind><text>`` in release ``ctx.release``; an error of
    Triton's is ``info.error`` (its ``where`` an offset into ``text``)."""
    key = (kind, text)
    found = ctx.memo.get(key)
    if found is not None:
        return found
    env = _env_of(text, ctx)
    gkey = (kind, text, ctx.release, env) if env is not None else None
    if gkey is not None:
        found = _ANALYSES.get(gkey)
        if found is not None:
            ctx.memo[key] = found
            return found
    dialect = ("triton_nvidia_gpu" if ctx.release < (3, 3) else "ttng") if kind in _NV_KINDS \
        else gpu_prefix(ctx.release)
    info = LayoutInfo(kind, f"#{dialect}.{kind}{text}")
    aliases = _referenced(text, ctx.lookup)  # (the printer keeps these alone, not the module's)
    release = ctx.release
    info.printer = lambda: f"#{dialect}.{kind}{_printed(text, Context(release, aliases.get), kind)}"
    ctx.memo[key] = info  # (a layout cannot refer to itself; this ends any cycle)
    try:
        err = kind_error(kind, dialect, ctx.release)
        if err is not None:
            raise err
        check = _CHECKS.get(kind)
        if check is not None:
            check(_Body(text, ctx, info), info)
    except LayoutError as e:
        info.error = e
    except _Crash as e:
        info.error = LayoutError(str(e))
        info.crash = True
    except _Unknown:
        info.rank = info.lanes = info.warps = info.ctas = None
    if gkey is not None:
        if len(_ANALYSES) >= _ANALYSES_MAX:
            _ANALYSES.clear()
        _ANALYSES[gkey] = info
    return info


def _printed(text: str, ctx: Context, kind: str = "") -> str:
    """A layout's body as Triton prints it in a message (as far as ttopt can tell: its
    entries spaced, aliases written out; a ``blocked`` layout's in Triton's order, 2.2 and
    2.3's with its CTA fields, empty where not given), or as written."""
    try:
        rd = _Parser(text)
        if not rd.take("<"):
            return text
        value = rd.attribute()
        if not rd.take(">") or rd.tok.kind != "eof":
            return text
        if kind == "blocked" and isinstance(value, Dict):
            order = ["sizePerThread", "threadsPerWarp", "warpsPerCTA", "order", *_CTA_KEYS, "CGALayout"]
            entries = sorted(value.entries, key=lambda e: order.index(e[0]) if e[0] in order else 99)
            if (2, 2) <= ctx.release < (3, 0):
                have = {k for k, _, _ in entries}
                entries += [(k, Arr((), 0), 0) for k in _CTA_KEYS if k not in have]
            value = Dict(tuple(entries), value.pos, value.end)
        return "<" + _print_value(value, ctx) + ">"
    except (_Unknown, LayoutError):
        return text


def _print_value(v, ctx: Context) -> str:
    if isinstance(v, Int):
        return ("true" if v.value else "false") if v.is_bool else str(v.value)
    if isinstance(v, Arr):
        return "[" + ", ".join(_print_value(x, ctx) for x in v.items) + "]"
    if isinstance(v, Dict):
        return "{" + ", ".join(k if isinstance(x, Other) and x.text == "unit" else f"{k} = {_print_value(x, ctx)}"
                               for k, x, _ in v.entries) + "}"
    if isinstance(v, Ref):
        attr = ctx.lookup(v.name)
        return info_of_attr(attr, ctx).text if attr is not None else v.name
    if isinstance(v, Sym):
        if v.kind in KIND_RELEASES and v.body:
            return analyze(v.kind, v.body, ctx).text
        return v.text
    return v.text


class _Crash(Exception):
    """Triton crashes (an assertion, a null attribute) on this layout: an error here."""


class _Body:
    def __init__(self, text: str, ctx: Context, info: LayoutInfo):
        self.text = text
        self.ctx = ctx
        self.r = ctx.release
        self.info = info

    def parser(self) -> _Parser:
        return _Parser(self.text, self.ctx.lookup, self.nested)

    def nested(self, sym: Sym) -> None:
        """A layout written out inside this one: analysed as MLIR parses it (its error
        first, where it is)."""
        if sym.kind in KIND_RELEASES and sym.dialect in ("ttg", "triton_gpu", "ttng", "triton_nvidia_gpu"):
            info = analyze(sym.kind, sym.body, self.ctx)
            if info.error is not None:
                where = info.error.where
                if isinstance(where, int):
                    where = sym.pos + len(sym.dialect) + 2 + len(sym.kind) + where
                elif where == "lt":
                    where = sym.pos + len(sym.dialect) + 2 + len(sym.kind)
                else:  # (the nested kind's name)
                    where = sym.pos + len(sym.dialect) + 2
                if info.crash:
                    raise _Crash(info.error.message)
                raise LayoutError(info.error.message, where)

    def dictionary(self) -> Dict:
        """``<{...}>`` read as Triton's ``parseLess``, ``parseAttribute(DictionaryAttr&)``,
        ``parseGreater``."""
        rd = self.parser()
        rd.expect("<", "expected '<'")
        if not rd.at("{"):
            value = rd.attribute()
            raise LayoutError("invalid kind of attribute specified", getattr(value, "pos", 1))
        d = rd.dictionary()
        rd.expect(">", "expected '>'")
        return d

    def optional_dictionary(self) -> Dict:
        """``<`` ``{...}``? ``>`` (Triton's ``parseOptionalAttrDict``)."""
        rd = self.parser()
        rd.expect("<", "expected '<'")
        d = rd.dictionary() if rd.at("{") else Dict((), 1, 1)
        rd.expect(">", "expected '>'")
        return d

    def resolve(self, value) -> LayoutInfo:
        """The analysis of a nested layout (an alias or one written out); its error first."""
        if isinstance(value, Ref):
            attr = self.ctx.lookup(value.name)
            info = info_of_attr(attr, self.ctx) if attr is not None else LayoutInfo("other", value.name)
        elif isinstance(value, Sym):
            kind = value.kind
            if kind in KIND_RELEASES or kind in _CHECKS:
                info = analyze(kind, value.body, self.ctx)
                if info.error is not None:  # (reported where the nested attribute is)
                    raise LayoutError(info.error.message, value.pos + value.text.find(kind))
            else:
                info = LayoutInfo("other", value.text)
        elif isinstance(value, Int):
            info = LayoutInfo("other", f"{value.value} : i64" if value.width == 64 and value.sign == "l" else str(value.value))
        else:
            info = LayoutInfo("other", getattr(value, "text", "?"))
        if info.error is not None and info.crash:
            raise _Crash(info.error.message)
        return info


# ----------------------------------------------------------------------------- values
def _uint(value, desc: str) -> int:
    """Triton's ``parseIntAttrValue``: an ``IntegerAttr`` (bools too) whose value is not
    negative, as an ``unsigned``."""
    if not isinstance(value, Int):
        if isinstance(value, Sym | Ref | Dict):
            raise _Unknown  # (an alias to an integer is not modelled)
        raise LayoutError(f"expected an integer type in {desc}")
    v = value.value
    if value.is_bool:
        v = -1 if v else 0  # (`getInt()` sign-extends an i1)
    if value.sign in ("l", "s") and v < 0:
        raise LayoutError(f"expected an unsigned integer value in {desc}")
    return v & 0xFFFFFFFF


def _uint_array(value, desc: str) -> list[int]:
    if not isinstance(value, Arr):
        if isinstance(value, Ref):
            raise _Unknown
        raise LayoutError(f"expected an array for {desc}")
    return [_uint(v, desc) for v in value.items]


def _bool(value, desc: str, r: Release) -> bool:
    if isinstance(value, Int) and value.is_bool:
        return bool(value.value)
    if isinstance(value, Ref):
        raise _Unknown
    article = "an" if r < (3, 4) else "a"
    raise LayoutError(f"expected {article} bool type in {desc}")


def _is_pow2(x: int) -> bool:
    return x > 0 and x & (x - 1) == 0


def _prod(xs) -> int:
    p = 1
    for x in xs:
        p *= x
    return p


def _list(xs) -> str:
    return "[" + ", ".join(str(x) for x in xs) + "]"


# ----------------------------------------------------------------------------- CTA layouts
_CTA_KEYS = ("CTAsPerCGA", "CTASplitNum", "CTAOrder")


def _cta_keys(r: Release) -> tuple[str, ...]:
    return _CTA_KEYS if (2, 2) <= r < (3, 6) else ()


def _cta_finish(b: _Body, cta: dict) -> int:
    """2.2 - 3.5's ``CTAsPerCGA``/``CTASplitNum``/``CTAOrder`` as the parser reads them (all
    or none): the number of CTAs."""
    if not cta:
        return 1
    if len(cta) != 3:
        if b.r < (3, 0):
            raise _Crash("CTAsPerCGA, CTASplitNum, and CTAOrder must all be present or all be "
                         "absent (Triton 2.2 and 2.3 abort here)")
        raise LayoutError("CTAsPerCGA, CTASplitNum, and CTAOrder must all be present or all be absent")
    per, split, order = cta["CTAsPerCGA"], cta["CTASplitNum"], cta["CTAOrder"]
    if len(per) != len(split):
        raise _Crash("CTAsPerCGA and CTASplitNum have different lengths (Triton aborts here)")
    if b.r < (3, 0) and sorted(order) != list(range(len(per))):
        raise _Crash("CTAOrder is not a permutation of 0..(rank-1) (Triton 2.2 and 2.3 abort here)")
    return _prod(per)


class _CtaPart:
    """The CTA keys of a layout's dictionary, as each layout kind reads them: 2.2 - 3.5's
    ``CTAsPerCGA``/``CTASplitNum``/``CTAOrder`` (:attr:`cta`), 3.6+'s ``CGALayout``
    (:attr:`cga`)."""

    def __init__(self, r: Release):
        self.r = r
        self.keys = _cta_keys(r)
        self.cta: dict = {}
        self.cga = None

    def take(self, key: str, value) -> bool:
        """Read ``key`` if it is one of the release's CTA keys; False if not."""
        if key in self.keys:
            self.cta[key] = _uint_array(value, key)
            return True
        if key == "CGALayout" and self.r >= (3, 6):
            self.cga = value
            return True
        return False

    def ctas(self, b: _Body, rank: int | None) -> int:
        """The number of CTAs (``rank``: the layout's, which 3.6+'s ``CGALayout`` must have)."""
        if self.r >= (3, 6):
            return _cga_layout(b, self.cga, rank)
        return _cta_finish(b, self.cta)  # (before 2.2: no CTA keys, one CTA)


def _cga_layout(b: _Body, value, rank: int) -> int:
    """3.6+'s ``CGALayout = [[..], ..]`` (Triton's ``parseCGAAttr``): the number of CTAs."""
    if value is None:
        return 1
    if not isinstance(value, Arr):
        if isinstance(value, Ref):
            raise _Unknown
        raise LayoutError("expected array value for 'CGALayout'")
    vectors = []
    for basis in value.items:
        vals = _uint_array(basis, "CGALayout entry")
        if len(vals) != rank:
            raise LayoutError(f"'CGALayout' entry length does not match rank {rank}")
        vectors.append(vals)
    # CGAEncodingAttr::verify: each output dimension is the power of two above its bases
    # (NextPowerOf2); the bases but the zero ones a permutation matrix of it
    bits = [max((v[i] for v in vectors), default=0).bit_length() for i in range(rank)]
    nonzero = [v for v in vectors if any(v)]
    shift = [sum(bits[:i]) for i in range(rank)]
    # (3.6, 3.7: a basis may repeat; 3.8+: not)
    if any(sum(1 for x in v if x) != 1 or not _is_pow2(max(v)) for v in nonzero) or \
            (b.r >= (3, 8) and len(nonzero) != sum(bits)) or \
            _gf2_rank([sum(v[i] << shift[i] for i in range(rank)) for v in nonzero]) != sum(bits):
        raise LayoutError("After removing broadcast bases the CGA encoding must be a permutation matrix")
    return 1 << len(value.items)


# ----------------------------------------------------------------------------- blocked
_BLOCKED = {
    "sizePerThread": "number of elements per thread",
    "threadsPerWarp": "number of threads per warp",
    "warpsPerCTA": "number of warps per CTA",
    "order": "order",
}


def _blocked(b: _Body, info: LayoutInfo) -> None:
    d = b.dictionary()
    r = b.r
    vals = {k: [] for k in _BLOCKED}
    part = _CtaPart(r)
    for key, value, _ in d.sorted():  # (in the order of MLIR's DictionaryAttr: by name)
        if key in _BLOCKED:
            vals[key] = _uint_array(value, _BLOCKED[key])
        elif not part.take(key, value):
            raise LayoutError(f"unexpected key: {key}")
    size, threads, warps, order = (vals[k] for k in _BLOCKED)
    ctas = part.ctas(b, len(size))
    cta = part.cta
    if r >= (2, 2):  # BlockedEncodingAttr::verify
        if not (len(size) == len(threads) == len(warps) == len(order)):
            raise LayoutError("sizePerThread, threadsPerWarp, warpsPerCTA, and order must all "
                              "have the same rank.")
        if r >= (3, 5):
            for name, xs in (("sizePerThread", size), ("threadsPerWarp", threads),
                             ("warpsPerCTA", warps)):
                if not all(_is_pow2(x) for x in xs):
                    raise LayoutError(f"Every element in {name} must be a power of two.")
        if cta and len(cta["CTAsPerCGA"]) != len(order):
            raise LayoutError("BlockedEncodingAttr and CTALayout's fields must have the same rank.")
        if sorted(order) != list(range(len(order))):
            raise LayoutError(f"order must be a permutation of 0..(rank-1), but was {_list(order)}")
    info.distributed = True
    info.rank = len(threads)
    info.lanes = _prod(threads)
    info.warps = _prod(warps)
    info.ctas = ctas
    info.extra["cta"] = bool(cta)  # (2.2, 2.3 check the CTAs only of a layout that has them)


# ----------------------------------------------------------------------------- mma
def _mma(b: _Body, info: LayoutInfo) -> None:
    d = b.dictionary()
    r = b.r
    major = minor = 0
    warps: list[int] = []
    part = _CtaPart(r)
    for key, value, _ in d.sorted():  # (a key it does not know is ignored)
        if key == "versionMajor":
            major = _uint(value, "versionMajor")
        elif key == "versionMinor":
            minor = _uint(value, "versionMinor")
        elif key == "warpsPerCTA":
            warps = _uint_array(value, "warpsPerCTA")
        elif key == "instrShape" and r >= (2, 2):
            _uint_array(value, "instrShape")
        else:
            part.take(key, value)
    ctas = part.ctas(b, len(warps))
    if r >= (3, 9):
        if major == 1:
            raise LayoutError("Volta (versionMajor = 1) is deprecated and no longer supported")
        if major not in (2, 3):
            raise LayoutError(f"versionMajor must be 2 (Ampere) or 3 (Hopper), got {major}")
    info.distributed = True
    info.mma_major = major
    info.extra["minor"] = minor
    if major in (2, 3):  # (Volta's and others' layouts in a module: not modelled)
        info.rank = len(warps)
        info.lanes = 32
        info.warps = _prod(warps)
        info.ctas = ctas


# ----------------------------------------------------------------------------- shared
_SWIZZLED = ("vec", "perPhase", "maxPhase")


def _swizzled(b: _Body, info: LayoutInfo) -> None:
    d = b.dictionary()
    r = b.r
    order: list[int] = []
    part = _CtaPart(r)
    for key, value, _ in d.sorted():
        if key in _SWIZZLED:
            _uint(value, key)
        elif key == "order":
            order = _uint_array(value, "order")
        elif key == "hasLeadingOffset" and (2, 2) <= r < (3, 3) and info.kind == "shared":
            _bool(value, "hasLeadingOffset", r)
        elif not part.take(key, value):
            raise LayoutError(f"unexpected key: {key}")

    ctas = part.ctas(b, len(order))
    cta = part.cta
    if (3, 4) <= r < (3, 6) and cta and len(cta["CTAsPerCGA"]) != len(order):
        n = len(cta["CTAsPerCGA"])
        raise LayoutError(f"order size ({len(order)}) must match CTALayout rank ({n})")
    if r >= (3, 4) and sorted(order) != list(range(len(order))):
        raise LayoutError(f"order must be a permutation of 0..(rank-1), but was {_list(order)}")
    info.distributed = False
    info.shared = True
    info.rank = len(order) if not cta else len(cta["CTAsPerCGA"])
    info.ctas = ctas


def _nvmma(b: _Body, info: LayoutInfo) -> None:
    d = b.dictionary()
    r = b.r
    swizzle = None
    width = None
    rank = None
    part = _CtaPart(r)
    for key, value, _ in d.sorted():
        if key == "swizzlingByteWidth":
            swizzle = _uint(value, key)
        elif key == "transposed":
            _bool(value, key, r)
        elif key == "elementBitWidth":
            width = _uint(value, key)
        elif key == "fp4Padded":
            _bool(value, key, r)
        elif key == "rank" and r >= (3, 6):
            rank = _uint(value, key)
        elif not part.take(key, value):
            raise LayoutError(f"unexpected key: {key}")
    cga, cta = part.cga, part.cta
    if r >= (3, 6) and rank is None:
        rank = 2
        if isinstance(cga, Arr) and cga.items and isinstance(cga.items[0], Arr):
            rank = len(cga.items[0].items)
    elif r < (3, 6):
        rank = len(cta["CTAsPerCGA"]) if cta else None  # (none given: not modelled)
    ctas = part.ctas(b, rank)
    # (3.7+: a missing swizzlingByteWidth / elementBitWidth is read uninitialised: not judged)
    if r >= (3, 7) and width == 0:
        raise LayoutError("elementBitWidth must be non-zero")
    if r >= (3, 7) and swizzle is not None and swizzle not in (0, 32, 64, 128):
        raise LayoutError("swizzlingByteWidth must be 0, 32, 64, or 128")
    info.distributed = False
    info.shared = True
    info.rank = rank
    info.ctas = ctas if rank is not None else None


# ----------------------------------------------------------------------------- slice
def _slice(b: _Body, info: LayoutInfo) -> None:
    d = b.optional_dictionary()  # (a key it does not know is ignored)
    r = b.r
    dim_v = d.get("dim")
    if not isinstance(dim_v, Int):
        if isinstance(dim_v, Ref):
            raise _Unknown
        raise _Crash("#slice needs an integer 'dim' (Triton crashes without one)")
    dim = dim_v.value if not dim_v.is_bool else -dim_v.value
    dim &= 0xFFFFFFFF
    parent_v = d.get("parent")
    parent = b.resolve(parent_v) if parent_v is not None else None
    if r >= (3, 3):
        if parent is None:
            raise _Crash("#slice needs a 'parent' (Triton 3.3+ crashes without one)")
        if parent.distributed is None and parent.kind not in ("other",):
            raise _Unknown
        if not parent.distributed:
            raise LayoutError("expected a distributed encoding trait")
    info.distributed = True
    info.extra["dim"] = dim
    if parent is None or parent.rank is None:
        info.rank = None
        if r >= (3, 5) and parent is not None:
            raise _Unknown
        return
    if r >= (3, 5):
        if parent.rank <= 1:
            raise LayoutError("parent layout must have at least rank >= 2")
        if dim >= parent.rank:
            raise LayoutError(f"slice dim={dim} must be less than the parent rank={parent.rank}")
    if dim >= parent.rank:
        return  # (not modelled)
    info.rank = parent.rank - 1
    info.lanes, info.warps = parent.lanes, parent.warps
    info.ctas = 1 if parent.ctas == 1 else None


# ----------------------------------------------------------------------------- dot_op
def _dot_op(b: _Body, info: LayoutInfo) -> None:
    if b.r < (3, 0):
        return _dot_op_2x(b, info)
    # 3.0+: the declarative `struct(params)` format
    prefix = gpu_prefix(b.r)
    rd = b.parser()
    rd.expect("<", "expected '<'")
    rd.expect("{", "expected '{'")
    params: dict = {}
    while True:
        t = rd.tok
        if t.kind != "bare":  # (parseKeyword)
            raise LayoutError("expected valid keyword", t.start)
        name = t.text
        rd.next()
        rd.expect("=", "expected '='")
        if name not in ("opIdx", "parent", "kWidth") or name in params:
            raise LayoutError(f"duplicate or unknown struct parameter name: {name}", rd.tok.start)
        if name == "parent":
            params[name] = rd.attribute()
        else:  # FieldParser<unsigned>: an integer (`true` is 1 bit of ones), as 32 bits
            neg = False
            if rd.tok.kind == "minus":
                rd.next()
                neg = True
            t = rd.tok
            if t.kind == "int":
                v = int(t.text, 16) if t.text.startswith("0x") else int(t.text)
                if v >= 1 << 32:
                    raise _Unknown
            elif t.kind == "bare" and t.text in ("true", "false"):
                v = -1 if t.text == "true" else 0
            else:
                raise _Unknown  # ("failed to parse ... parameter": not modelled)
            rd.next()
            params[name] = (-v if neg else v) & 0xFFFFFFFF
        if rd.take(","):
            continue
        break
    for required in ("opIdx", "parent"):
        if required not in params:
            raise LayoutError(f"struct is missing required parameter: {required}", rd.tok.start)
    rd.expect("}", "expected '}'")
    rd.expect(">", "expected '>'")
    parent = b.resolve(params["parent"])
    op_idx, kwidth = params["opIdx"], params.get("kWidth", 0)
    name = f"{prefix}.dot_op"
    if op_idx not in (0, 1):
        word = "paramenter" if b.r < (3, 3) else "parameter"
        raise LayoutError(f"{name} opIdx {word} can be 0 or 1, got: {op_idx}", "lt")
    if parent.kind == "nvidia_mma":
        major = parent.mma_major
        if b.r < (3, 3):
            ok, what = major == 2, "Ampere"
        else:
            ok, what = major in (2, 3), "Ampere or Hopper"
        if kwidth != 0 and not ok:
            raise LayoutError(f"{name} kWidth parameter can only be non-zero for {what} MMA parent", "lt")
        if kwidth == 0 and ok:
            raise LayoutError(f"{name} kWidth parameter is mandatory for {what} MMA parent", "lt")
        if b.r >= (3, 3) and op_idx != 0 and major == 3:
            raise LayoutError(f"{name} opIdx parameter must be 0 for Hopper MMA parent, since "
                              "Hopper WGMMA only allows first operand to be in registers", "lt")
    elif parent.kind == "blocked":
        if kwidth != 0:
            raise LayoutError(f"{name} kWidth parameter is not supported when the parent is a "
                              "blocked layout", "lt")
    elif parent.kind in ("slice", "dot_op", "other") or parent.shared:
        if parent.kind == "other" and not parent.text.startswith(("#", "1", "0")) and not isinstance(params["parent"], Int):
            raise _Unknown
        raise LayoutError(f"{name} unexpected parent layout: {parent.text}", "lt")
    else:
        raise _Unknown  # (AMD and linear parents: not modelled)
    _dot_op_counts(info, parent, op_idx)


def _dot_op_2x(b: _Body, info: LayoutInfo) -> None:
    d = b.optional_dictionary()
    op_v, parent_v, kwidth_v = d.get("opIdx"), d.get("parent"), d.get("kWidth")
    if not isinstance(op_v, Int):
        if isinstance(op_v, Ref):
            raise _Unknown
        raise _Crash("#dot_op needs an integer 'opIdx' (Triton 2.x crashes without one)")
    if parent_v is None:
        raise _Crash("#dot_op needs a 'parent' (Triton 2.x crashes without one)")
    parent = b.resolve(parent_v)
    if kwidth_v is not None:
        if parent.kind != "mma" or parent.mma_major is None or parent.mma_major == 1:
            if parent.kind == "mma" and parent.mma_major is None:
                raise _Unknown
            raise LayoutError("kWidth only supported for MMAv2+ parent")
        if not isinstance(kwidth_v, Int):
            if isinstance(kwidth_v, Ref):
                raise _Unknown
            raise _Crash("#dot_op's 'kWidth' must be an integer (Triton 2.x crashes otherwise)")
    _dot_op_counts(info, parent, op_v.value)


def _dot_op_counts(info: LayoutInfo, parent: LayoutInfo, op_idx: int) -> None:
    info.distributed = True
    if parent.kind in ("blocked", "nvidia_mma", "mma") and parent.rank is not None:
        info.rank = parent.rank
        info.lanes, info.warps = parent.lanes, parent.warps
        info.ctas = 1 if parent.ctas == 1 else None


# ----------------------------------------------------------------------------- linear
_BASES = ("register", "lane", "warp", "block")


def _linear(b: _Body, info: LayoutInfo) -> None:
    d = b.dictionary()  # (a key it does not know is ignored)
    sizes = {}
    rank = None
    for name in _BASES:
        value = d.get(name)
        if value is None:
            if b.r < (3, 6):
                raise _Crash(f"Expected basis of '{name}' not found (Triton 3.3 - 3.5 abort here)")
            raise LayoutError(f"Expected basis of '{name}' not found", "next")
        if not isinstance(value, Arr):
            if isinstance(value, Ref):
                raise _Unknown
            raise LayoutError(f"Expected array of arrays for basis of '{name}'", "next")
        for basis in value.items:
            if not isinstance(basis, Arr):
                if isinstance(basis, Ref):
                    raise _Unknown
                raise LayoutError(f"Expected array of integers in basis for '{name}'", "next")
            for x in basis.items:
                if not isinstance(x, Int):
                    if isinstance(x, Ref):
                        raise _Unknown
                    raise LayoutError(f"Expected integer in basis for '{name}'", "next")
            if rank is None:
                rank = len(basis.items)
        sizes[name] = len(value.items)
    bases = [b for name in _BASES for b in d.get(name).items]
    if rank is None:
        raise LayoutError("Empty Layout not supported", "next")
    vectors = []
    for basis in bases:
        xs = [x.value for x in basis.items]
        if len(xs) != rank or any(x < 0 or x >= 1 << 30 for x in xs):
            raise _Crash("a basis of another rank, or a negative one (Triton aborts here)")
        vectors.append(xs)
    # LinearLayout's constructor: each output dimension is the smallest power of two above
    # its bases, and covered (the bases span it over GF(2)); else Triton aborts
    bits = [max((v[i] for v in vectors), default=0).bit_length() for i in range(rank)]
    shift = [sum(bits[:i]) for i in range(rank)]
    packed = [sum(v[i] << shift[i] for i in range(rank)) for v in vectors]
    if _gf2_rank(packed) != sum(bits):
        raise _Crash("the layout's bases do not cover its output (Triton aborts here)")
    nonzero = [v for v in vectors if any(v)]
    if b.r < (3, 8):
        if any(sum(1 for x in v if x) > 1 for v in nonzero):
            raise LayoutError("In a distributed layout, each base must move in at most one dimension.")
        if b.r >= (3, 7) and len(nonzero) != sum(bits):
            raise LayoutError("After removing the zero bases the layout must be bijective")
    elif any(sum(1 for x in v if x) != 1 or not _is_pow2(max(v)) for v in nonzero) \
            or len(nonzero) != sum(bits):
        raise LayoutError("LinearEncodingAttr requires a permutation matrix layout after removing "
                          "broadcast bases")
    info.distributed = True
    info.rank = rank
    info.lanes = 1 << sizes["lane"]
    info.warps = 1 << sizes["warp"]
    info.ctas = 1 << sizes["block"]
    if rank is None:
        info.rank = info.lanes = info.warps = info.ctas = None


def _gf2_rank(vectors: list[int]) -> int:
    """The rank over GF(2) of bit vectors."""
    basis: list[int] = []
    for v in vectors:
        for b in basis:
            v = min(v, v ^ b)
        if v:
            basis.append(v)
    return len(basis)


def _shared_kind(b: _Body, info: LayoutInfo) -> None:
    info.distributed = False
    info.shared = True


def _distributed_kind(b: _Body, info: LayoutInfo) -> None:
    info.distributed = True


_CHECKS = {
    "blocked": _blocked,
    "mma": _mma,
    "nvidia_mma": _mma,
    "shared": _swizzled,
    "swizzled_shared": _swizzled,
    "nvmma_shared": _nvmma,
    "slice": _slice,
    "dot_op": _dot_op,
    "linear": _linear,
    "amd_mfma": _distributed_kind,
    "amd_wmma": _distributed_kind,
    "generic_linear": _distributed_kind,
    "amd_rotating_shared": _shared_kind,
    "padded_shared": _shared_kind,
    "shared_linear": _shared_kind,
    "partitioned_shared": _shared_kind,
}


# ============================================================================ the attribute


class LayoutAttr(OpaqueBodyAttr):
    """A layout attribute kept as text (:class:`OpaqueBodyAttr`), checked as it is read."""

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        tok = peek_token(parser)
        lt = tok.span.start
        raw = "<" + scanned_body(parser, lt) + ">" if tok.text == "<" else ""
        reading = _parser_reading(parser)
        kind = _kind_of(cls.name, reading.release)
        content = parser.lexer.input.content
        info = analyze(kind, raw, reading.context())
        if info.error is not None and not _accepted_elsewhere(cls.name, raw, reading, content, lt - len(kind)):
            _raise(parser, info.error, content, lt, kind, raw)
        if raw and blank_before_body(content, lt):
            parser.raise_error(*blank_body_error(content, lt))
        stored = body_key(raw)
        if stored != raw and info.error is None:  # (the verifier looks the text up as stored)
            reading.context().memo.setdefault((kind, stored), info)
        return (StringAttr(stored),)


def _accepted_elsewhere(attr_name: str, raw: str, reading: Reading, content: str, name_pos: int) -> bool:
    """Whether a release the text may come from accepts a layout its release rejects.

    Triton 2.1 reports an error in a layout written out in a tensor type, but goes on (the
    tensor has no layout then): it accepts the text."""
    inline = not _is_alias_definition(content, name_pos)
    for r in (reading.release, *reading.others()):
        if r == (2, 1) and inline:
            return True
        if r != reading.release and analyze(_kind_of(attr_name, r), raw, reading.context(r)).error is None:
            return True
    return False


_ALIAS_DEF = re.compile(r"[ \t]*#[\w$.-]+[ \t]*=[ \t]*#[\w$.-]*$")


def _is_alias_definition(content: str, name_pos: int) -> bool:
    """Whether the attribute whose kind's name is at ``name_pos`` is the value of an alias
    definition (``#blocked = #ttg.blocked<..>`` on its line), not written out in a type."""
    line_start = content.rfind("\n", 0, name_pos) + 1
    return _ALIAS_DEF.match(content, line_start, name_pos) is not None


def _kind_of(attr_name: str, release: Release) -> str:
    """The kind of a layout class (as the text names it: the class ``ttg.mma`` is 2.x's
    ``#triton_gpu.mma``, ``ttg.nvidia_mma`` 3.0's ``#triton_gpu.nvidia_mma``)."""
    return attr_name.split(".", 1)[1]


def _raise(parser, err: LayoutError, content: str, lt: int, kind: str, raw: str):
    where = err.where
    if where == "name" or where == "attr":
        i = lt
        while i > 0 and content[i - 1] in _WS:
            i -= 1
        pos = max(0, i - len(kind))
        if where == "attr":
            j = content.rfind("#", 0, pos)
            pos = j if j >= 0 else pos
    elif where == "lt":
        pos = lt
    elif where == "next":  # (the token after the attribute, MLIR's current location)
        pos = lt + len(raw)
        n = len(content)
        while pos < n and content[pos] in " \t\r\x00":
            pos += 1
        while pos < n and content[pos] == "\n":
            end = content.find("\n", pos + 1)
            line = content[pos + 1 : n if end < 0 else end]
            if line and not line.strip(" "):  # (a `#loc` definition the reader blanked)
                pos += 1
                break
            pos += 1
            while pos < n and content[pos] in " \t\r\x00":
                pos += 1
    else:
        pos = lt + int(where)
    parser.raise_error(err.message, pos, pos + 1)


def _parser_reading(parser) -> Reading:
    """The layouts of the text ``parser`` reads (made once per parser and release; handed
    to the verifier through the reader's ``ParseFacts``)."""
    release = current().release
    reading = getattr(parser, "_ttopt_layouts", None)
    if reading is None or reading.release != release:
        reading = Reading(release, parser.attribute_aliases.get, lambda: _parser_span(parser, release))
        try:
            parser._ttopt_layouts = reading  # noqa: SLF001
        except AttributeError:  # (a parser class with slots: analysed again each time)
            pass
        facts = getattr(parser, "facts", None)
        if facts is not None and hasattr(facts, "layouts"):
            facts.layouts = reading
    return reading


def _parser_span(parser, release: Release) -> tuple[Release, Release]:
    """The releases the text ``parser`` reads may come from: those its signs allow
    (:func:`reading_span`), unless the release was named (``--triton-version``).

    The reader can say which (``parser.triton_span``, the releases it read the text for);
    until it does, the reader's context tells: it makes the parser's for the named release
    alone, not for the span."""
    span = getattr(parser, "triton_span", None)
    if span is not None:
        return tuple(span)
    low, high = reading_span(parser.lexer.input.content, release)
    if low == high:
        return (low, high)
    from ..ir import reader

    contexts = getattr(reader, "_context", None)  # (the reader's cache of contexts)
    if contexts is not None and parser.ctx is not contexts(release, low, high):
        return (release, release)
    return (low, high)


def layout_attr(attr_name: str) -> type[LayoutAttr]:
    """A :class:`LayoutAttr` class named ``attr_name``."""
    cls_name = "".join(p.capitalize() for p in attr_name.replace(".", "_").split("_"))
    namespace = {"name": attr_name, "__annotations__": {"body": StringAttr}}
    return irdl_attr_definition(type(cls_name + "Attr", (LayoutAttr,), namespace))


# ============================================================================ in a module


class ModuleLayouts:
    """Triton's ``verifyTensorLayouts`` for one module (2.2+; none in 2.1), for the verifier:
    each tensor operand and result of a ``tt``/``ttg`` op has a layout that fits its tensor
    and the module (see the module docstring).  A type is judged once per warp context:
    :attr:`verdicts` maps ``id(type)`` to True or Triton's complaint about its layout (the
    verifier looks each operand and result up there, and calls :meth:`judge` for a type it
    has not seen)."""

    def __init__(self, module, reading: Reading):
        self.reading = reading
        self.module = module
        self._facts: dict[Release, tuple] = {}
        self.warps_override: int | None = None  # (a tt.func's ttg.num-warps, 3.3+)
        self.partition_warps: int | None = None  # (a warp-specialized partition's)
        self._tables: dict[tuple, tuple] = {}  # warp context -> (verdicts, by layout, shared)
        self._types: list = []  # (the types whose ids are keys, kept alive)
        self._by_layout: dict[tuple, object] = {}
        self._shared: dict[int, tuple] = {}
        self.verdicts = self._table()

    @staticmethod
    def applies(release: Release) -> bool:
        return release >= (2, 2)

    def _facts_of(self, release: Release) -> tuple:
        """(threads per warp, the module's warps per CTA or None, CTAs per CGA, prefix)."""
        f = self._facts.get(release)
        if f is None:
            p = gpu_prefix(release)
            attrs = self.module.attributes
            threads = _int_attr(attrs.get(f"{p}.threads-per-warp"))
            ctas = _int_attr(attrs.get(f"{p}.num-ctas"))
            warps = _int_attr(attrs.get(f"{p}.num-warps"))
            f = self._facts[release] = (32 if threads is None else threads, warps,
                                        1 if ctas is None else ctas, p)
        return f

    def _table(self) -> dict[int, object]:
        """The verdicts of the warp context now (made the first time it is entered), and
        with them (as :attr:`_by_layout` and :attr:`_shared`) the context's verdicts by
        layout and shape, and the types of :data:`_VERDICTS` found fine in it."""
        key = (self.warps_override, self.partition_warps)
        t = self._tables.get(key)
        if t is None:
            release = self.reading.release
            context = (release, self._facts_of(release), *key)
            shared = _VERDICTS.get(context)
            if shared is None:
                if len(_VERDICTS) >= 1000:
                    _VERDICTS.clear()
                shared = _VERDICTS[context] = {}
            t = self._tables[key] = ({}, {}, shared)
        self._by_layout, self._shared = t[1], t[2]
        return t[0]

    # --- the warp context (maybeLookupNumWarps: the op's tt.func, or its partition)
    def enter(self, op, region_index: int):
        """Before the verifier walks region ``region_index`` of ``op``: its warp context;
        returns what :meth:`leave` restores."""
        saved = (self.warps_override, self.partition_warps, self.verdicts, self._by_layout,
                 self._shared)
        name = op.name
        if name == "tt.func":
            own = op.attributes.get("ttg.num-warps")
            if own is None:
                own = op.properties.get("ttg.num-warps")
            self.warps_override = _int_attr(own)
        elif name == "ttg.warp_specialize.partitions":
            parent = op.parent_op()
            counts = parent.properties.get("partitionNumWarps") if parent is not None else None
            try:
                self.partition_warps = int(list(counts.get_values())[region_index])
            except Exception:  # (malformed: its own verifier says so)
                self.partition_warps = -1
        else:
            return saved
        self.verdicts = self._table()
        return saved

    def leave(self, saved) -> None:
        (self.warps_override, self.partition_warps, self.verdicts, self._by_layout,
         self._shared) = saved

    # --- judging
    def judge(self, op, operands, results) -> str | None:
        """Judge the types of ``op``'s operands and results (into :attr:`verdicts`); the
        message of the first one Triton rejects, None if none."""
        verdicts = self.verdicts
        for i, v in enumerate(operands):
            verdict = self.lookup(verdicts, v.type)
            if isinstance(verdict, _Plain):
                return str(verdict)
            if verdict is not True:
                return f"Operand {i} ({_value_name(v)}) has an invalid layout: {verdict}"
        n = len(results)
        for i, v in enumerate(results):
            verdict = self.lookup(verdicts, v.type)
            if isinstance(verdict, _Plain):
                return str(verdict)
            if verdict is not True:
                what = "Result" if n == 1 else f"Result {i}"
                return f"{what} has an invalid layout: {verdict}"
        return None

    def lookup(self, verdicts, t) -> object:
        """The verdict on type ``t`` in the warp context now (True: fine; ``verdicts``: its
        table, :attr:`verdicts`), judged the first time it is asked (:meth:`judge` words
        a complaint)."""
        verdict = verdicts.get(id(t))
        if verdict is None:
            release = self.reading.release
            # (a type is one object in every module the reader reads it in (with the same
            # aliases): its verdict for the same release, module and warp context too)
            shared = self._shared  # (verdicts is the context's table: this is its share)
            found = shared.get(id(t))
            if found is not None and found[0] is t:
                verdict = True
            else:
                verdict = self._verdict(t, release)
                if verdict is True:
                    if len(shared) >= _VERDICTS_MAX:
                        shared.clear()
                    shared[id(t)] = (t,)
                else:
                    for r in self.reading.others():  # (some release of the text's accepts it)
                        if self._verdict(t, r) is True:
                            verdict = True
                            break
            verdicts[id(t)] = verdict
            self._types.append(t)
        return verdict

    def _warps(self, release: Release) -> int | None:
        """The warps per CTA of the context (-1: unknown, not checked)."""
        if self.partition_warps is not None and release >= (3, 3):
            return self.partition_warps
        if self.warps_override is not None and release >= (3, 3):
            return self.warps_override
        return self._facts_of(release)[1]

    def _verdict(self, t, r: Release) -> object:
        """True, or Triton ``r``'s complaint about the layout of type ``t`` (in the warp
        context now): a function of its layout and shape, judged once per context."""
        if not (type(t) is TensorType or isinstance(t, TensorType)):
            return True
        enc = t.encoding
        layout = _IS_LAYOUT.get(type(enc))
        if layout is None:
            layout = _IS_LAYOUT[type(enc)] = isinstance(enc, LayoutAttr)
        if not layout:
            return True
        shape = shape_of(t)  # (t.get_shape(), memoised: the op's rules ask too)
        key = (id(enc), shape, r)  # (the encoding is kept alive by its type, in _types)
        verdict = self._by_layout.get(key)
        if verdict is None:
            verdict = self._by_layout[key] = self._layout_verdict(enc, shape, r)
        return verdict

    def _layout_verdict(self, enc, shape: tuple[int, ...], r: Release) -> object:
        """:meth:`_verdict` of a tensor of ``shape`` with layout ``enc``."""
        # (info_of_attr of a layout attribute)
        info = analyze(_kind_of(enc.name, r), enc.body.data, self.reading.context(r))
        if info.error is not None:
            # (a type read for another release, and shared by the reader's cache of types:
            # its layout was not parsed again; its error, at the op)
            return _Plain(info.error.message)
        threads, _, ctas, prefix = self._facts_of(r)
        warps = self._warps(r)
        rank = len(shape)
        if r < (3, 5):
            if info.shared and r >= (3, 0):
                return "Shared layout is not allowed on tensor type."
            if info.kind != "blocked" or info.rank is None:
                return True
            if info.rank != rank:
                return (f"{info.text}. Layout has rank {info.rank}, but the tensor it's attached to "
                        f"has rank {rank}.")
            if info.lanes != threads:
                return (f"{info.text}. Layout has a total of {info.lanes} threads per warp, but the "
                        f"module specifies {threads} threads per warp.")
            if warps == -1:
                return True
            if warps is None:
                if r < (3, 3):
                    return (f"Could not determine the number of warps per CTA: the module has "
                            f"no '{prefix}.num-warps' attribute (Triton {r[0]}.{r[1]} aborts "
                            "here).")
                return ("Could not determine the number of warps per CTA. Operation is not in "
                        "a context with `ttg.num-warps`.")
            if info.warps != warps:
                where = "the context requires" if r >= (3, 3) else "the module specifies"
                return (f"{info.text}. Layout has a total of {info.warps} warps per CTA, but {where} "
                        f"{warps} warps per CTA.")
            if info.ctas is not None and info.ctas != ctas and (r >= (3, 0) or info.extra.get("cta")):
                return (f"{info.text}. Layout has a total of {info.ctas} CTAs per CGA, but the "
                        f"module specifies {ctas} CTAs per CGA.")
            return True
        # 3.5+: every layout, through its linear layout
        if info.distributed is False and r < (3, 8):  # (3.5 - 3.7: no rank, no CTAs asked)
            return "Non-distributed layout is not allowed in tensor type."
        if info.rank is None:
            return True
        if info.rank != rank:
            return f"Layout has rank {info.rank}, but the tensor it's attached to has rank {rank}."
        if info.ctas is not None and info.ctas != ctas:
            return (f"{info.text}. Layout has {info.ctas} CTAs per CGA, but the context requires "
                    f"{ctas} CTAs per CGA.")
        if info.distributed is False:
            return "Non-distributed layout is not allowed in tensor type."
        if info.ctas is None:
            return True
        if not info.distributed or info.lanes is None:
            return True
        for s in shape:
            if not _is_pow2(s):
                return True  # (Triton prints the shape its own way: not modelled)
        if info.lanes != threads:
            return (f"{info.text}. Layout has {info.lanes} threads per warp, but the module specifies "
                    f"{threads} threads per warp.")
        if warps == -1:
            return True
        if warps is None:
            return ("Could not determine the number of warps per CTA. Operation is not in a "
                    "context with `ttg.num-warps`.")
        if info.warps != warps:
            return (f"{info.text}. Layout has {info.warps} warps per CTA, but the context requires "
                    f"{warps} warps per CTA.")
        return True


_VERDICTS: dict[tuple, dict[int, tuple]] = {}
"""The tensor types found fine in this process: for each release, module facts and warp
context, ``id(type) -> (type,)`` (kept alive here)."""
_VERDICTS_MAX = 100_000

_IS_LAYOUT: dict[type, bool] = {}  # attribute class -> whether a LayoutAttr (isinstance, once)


def forget_layout_verdicts() -> None:
    """Empty :data:`_VERDICTS` (ttopt.ir.verify.forget_types)."""
    _VERDICTS.clear()


class _Plain(str):
    """A verdict that is the layout's own error (reported as it is)."""


def _int_attr(a) -> int | None:
    if isinstance(a, IntegerAttr):
        return a.value.data
    return None


def _value_name(v) -> str:
    name = getattr(v, "name_hint", None)
    return f"%{name}" if name else "%<value>"


__all__ = [
    "KIND_RELEASES",
    "LayoutAttr",
    "LayoutError",
    "LayoutInfo",
    "ModuleLayouts",
    "Reading",
    "analyze",
    "layout_attr",
]
