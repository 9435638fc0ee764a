"""Triton's IR text by release, 2.1 to 3.9: which release wrote a text, and the syntax ttopt
reads and writes for it.

ttopt holds one in-memory IR, Triton 3.6's ops and properties, whatever release a kernel came
from; what differs between releases is spelled here, as *syntax features* of a release
(:class:`Syntax`), which the op definitions' parsers and printers consult
(:func:`current`), so that a kernel is written back in its own release's syntax:

==============================  ==============  ====================================================
feature                         releases        text
==============================  ==============  ====================================================
``old_prefix``                  2.1 - 3.2       ``triton_gpu.``/``triton_nvidia_gpu.`` (later ``ttg.``/``ttng.``)
``tt_memdesc``                  3.0 - 3.2       ``!tt.memdesc<..>`` (later ``!ttg.memdesc``)
``ptr_space``                   2.2 - 2.3       ``!tt.ptr<f32, 1>``: the address space always printed
``arrow_parens``                2.1 - 2.3       ``tt.splat %x : (i32) -> tensor<..>`` (later ``i32 -> ..``)
``for_unsigned``                3.5 -           ``scf.for unsigned %i = ..`` (the ``unsignedCmp`` property)
``no_inline``                   3.5 -           ``scf.execute_region -> T no_inline {``
``switch_signed_cases``         3.2 -           ``cf.switch`` case values: signed, within the flag's width
``loc_ranges``                  3.3 -           ``loc("f.py":1:2 to 3:4)``, ``loc("f.py":1:2 to :4)``, ``loc("f.py":1)``
``complex_count``               3.4 -           ``dense<..> : tensor<Nxcomplex<T>>``: exactly 2N numbers (2 for one to repeat)
``knows_type``                  see             MLIR's float type keywords: ``tf32`` 2.2+; ``f8E4M3``, ``f8E3M4``, ``f6E2M3FN``,
                                ``FLOAT_TYPES_  ``f6E3M2FN``, ``f4E2M1FN``, ``f8E8M0FNU`` 3.2+ (before, an identifier that is no
                                SINCE``         type: ``expected non-function type``, wherever a type is written)
``hints``                       ``"dict"`` 2.x  ``tt.load %p {cache = 1 : i32, evict = 3 : i32, isVolatile = false} : T``
                                ``"keywords"``  ``tt.load %p evictionPolicy = evict_last : tensor<..x!tt.ptr<..>>`` (3.0 - 3.8)
                                ``"policy"``    ``{cachePolicy = #tt.cache_policy<cache_modifier = none, eviction_policy = evict_last>}`` (3.9)
==============================  ==============  ====================================================

**Which release.**  :func:`detect` reads the signs of a release in a text (each one narrows
the range of releases that could have written it) and returns the range; the newest release
of it is taken (the syntax is the same for every release of the range as far as the text
shows).  ``--triton-version X.Y`` (``read_module(..., triton_version=...)``) names it where the
text cannot tell (3.0 - 3.4 TTIR is often byte-identical); a text whose signs contradict the
release given is an error naming the sign, never a silently different output.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

RELEASES: tuple[tuple[int, int], ...] = (
    (2, 1), (2, 2), (2, 3), (3, 0), (3, 1), (3, 2), (3, 3), (3, 4), (3, 5), (3, 6), (3, 7),
    (3, 8), (3, 9),
)
OLDEST, NEWEST = RELEASES[0], RELEASES[-1]
DEFAULT = (3, 6)
"""The release of a text with no sign of any other (ttopt's reference release)."""


FLOAT_TYPES_SINCE: dict[str, tuple[int, int]] = {
    "tf32": (2, 2), "f8E4M3": (3, 2), "f8E3M4": (3, 2), "f6E2M3FN": (3, 2), "f6E3M2FN": (3, 2),
    "f4E2M1FN": (3, 2), "f8E8M0FNU": (3, 2),
}
"""MLIR's float type keywords that not every release's MLIR has: each from its first release
(the others, ``bf16`` ... ``f128``, ``f8E5M2``, ``f8E4M3FN``, ``f8E4M3FNUZ``, ``f8E5M2FNUZ``,
``f8E4M3B11FNUZ``, every release has; asked of each release's Triton 2.1 - 3.9)."""


def parse_release(text: str) -> tuple[int, int]:
    """``"3.5"``, ``"3.5.1"`` -> (3, 5); ValueError if it is not a release ttopt knows."""
    m = re.fullmatch(r"\s*(\d+)\.(\d+)(?:\.\d+)?\s*", text)
    if m is None:
        raise ValueError(f"'{text}' is not a Triton release (expected X.Y, e.g. 3.6)")
    v = (int(m.group(1)), int(m.group(2)))
    if v not in RELEASES:
        raise ValueError(
            f"Triton {v[0]}.{v[1]} is not a release ttopt reads (2.1 to 3.9)"
        )
    return v


def show(v: tuple[int, int]) -> str:
    return f"{v[0]}.{v[1]}"


@dataclass(frozen=True)
class Syntax:
    """The text features of one release (see the module docstring)."""

    release: tuple[int, int]

    @property
    def old_prefix(self) -> bool:
        return self.release < (3, 3)

    @property
    def tt_memdesc(self) -> bool:
        return (3, 0) <= self.release < (3, 3)

    @property
    def ptr_space(self) -> bool:
        return (2, 2) <= self.release < (3, 0)

    @property
    def arrow_parens(self) -> bool:
        return self.release < (3, 0)

    @property
    def for_unsigned(self) -> bool:
        """``scf.for unsigned %i = ...`` (MLIR's ``unsignedCmp`` property of ``scf.for``):
        Triton 3.5+; before, ``unsigned`` there is an error (``expected SSA operand``)."""
        return self.release >= (3, 5)

    @property
    def no_inline(self) -> bool:
        """``scf.execute_region -> T no_inline {`` (its ``no_inline`` property): 3.5+."""
        return self.release >= (3, 5)

    @property
    def switch_signed_cases(self) -> bool:
        """How ``cf.switch`` reads a case value (``42: ^bb1``): from Triton 3.2 as a signed
        64-bit integer that must fit the flag's width as a *signed* value (one that does
        not, ``128`` for an ``i8`` flag, ``1`` for ``i1``, aborts Triton: LLVM's APInt
        assertion); before, as the low bits of a 64-bit value up to ``2**64 - 1`` (not
        ``-2**63``), truncated to the flag's width."""
        return self.release >= (3, 2)

    @property
    def loc_ranges(self) -> bool:
        """MLIR's ``FileLineColRange`` locations: ``loc("f.py":1:2 to 3:4)``,
        ``loc("f.py":1:2 to :4)`` and ``loc("f.py":1)`` (a line alone): Triton 3.3+; before,
        ``to`` after a column is an error (``expected ')' in location``), and so is a line
        without its column (``expected ':' in FileLineColLoc``)."""
        return self.release >= (3, 3)

    def knows_type(self, keyword: str) -> bool:
        """Whether this release's MLIR has the builtin type ``keyword`` (``f8E3M4``...:
        :data:`FLOAT_TYPES_SINCE`)."""
        since = FLOAT_TYPES_SINCE.get(keyword)
        return since is None or self.release >= since

    @property
    def complex_count(self) -> bool:
        """MLIR counts the numbers of a dense literal of complex values (``dense<[(1.0, 2.0),
        (3.0, 4.0)]> : tensor<2xcomplex<f32>>``): every ``(..)``'s parts (a nested one's
        too) and every plain number, in order, read as one run of numbers that must be
        2 per element (2 in all for one to repeat): Triton 3.4+.  Before, the run is paired
        as it comes (an odd last number dropped) and read as the elements if there are as
        many pairs as elements, or as one to repeat if there is one pair; any other count
        aborts Triton 2.2 - 3.3 (an assertion) and 2.1 reads past the numbers."""
        return self.release >= (3, 4)

    @property
    def hints(self) -> str:
        if self.release < (3, 0):
            return "dict"
        return "policy" if self.release >= (3, 9) else "keywords"

    def op_name(self, name: str) -> str:
        """An op's name as this release spells it."""
        if self.old_prefix:
            if name.startswith("ttg."):
                return "triton_gpu." + name[4:]
            if name.startswith("ttng."):
                return "triton_nvidia_gpu." + name[5:]
        return name

    def attr_name(self, name: str) -> str:
        """An attribute's or type's name as this release spells it."""
        if self.tt_memdesc and name == "ttg.memdesc":
            return "tt.memdesc"
        return self.op_name(name)


_CURRENT: ContextVar[Syntax] = ContextVar("ttopt_triton_syntax", default=Syntax(DEFAULT))


def current() -> Syntax:
    """The syntax being read or written now (Triton 3.6's outside :func:`syntax`)."""
    return _CURRENT.get()


@contextmanager
def syntax(release: tuple[int, int]):
    """Read and write in ``release``'s syntax for the duration."""
    token = _CURRENT.set(Syntax(release))
    try:
        yield
    finally:
        _CURRENT.reset(token)


def old_names(release: tuple[int, int]) -> dict[str, str]:
    """For the reader's context: the names a release's text uses that are not the 3.6 names
    ttopt registers, -> those names (``triton_gpu.convert_layout`` -> ``ttg.convert_layout``)."""
    return {}


# ------------------------------------------------------------------ properties older releases lack
def _fill_table():
    from xdsl.dialects.builtin import BoolAttr, DenseArrayBase, IntegerAttr, IntegerType, i32

    def signedness(op):
        return DenseArrayBase.from_list(
            i32, [int(isinstance(getattr(v.type, "element_type", v.type), IntegerType)) for v in op.operands]
        )

    return {
        # op: [(property, the releases that leave it out, its value there)]
        "tt.scan": [("reverse", lambda r: r < (3, 0), lambda op: BoolAttr.from_bool(False))],
        "tt.atomic_rmw": [("scope", lambda r: r < (2, 2), lambda op: IntegerAttr(1, i32))],
        "tt.atomic_cas": [("scope", lambda r: r < (2, 2), lambda op: IntegerAttr(1, i32))],
        "tt.print": [
            ("hex", lambda r: r < (3, 0), lambda op: BoolAttr.from_bool(False)),
            ("isSigned", lambda r: r < (3, 2), signedness),
        ],
    }


_FILL: dict | None = None


def filled_properties(release: tuple[int, int]) -> dict[str, list]:
    """For the ops whose 3.6 definition requires a property ``release`` does not have (2.x's
    ``tt.scan`` has no ``reverse``): op name -> [(property, value(op))].  The reader sets
    them on what it reads (the op then means what it meant), the writer leaves them out
    again for that release."""
    global _FILL
    if _FILL is None:
        _FILL = _fill_table()
    out = {}
    for name, rules in _FILL.items():
        applies = [(prop, value) for prop, when, value in rules if when(release)]
        if applies:
            out[name] = applies
    return out


# ------------------------------------------------------------------ ops without properties
# The ops that have no properties (inherent attributes) in Triton's releases up to the one
# given (in every release that has the op, none later, where it has some): MLIR refuses a
# properties dictionary on them, even an empty one (``"tt.return"() <{}> : () -> ()``:
# "invalid properties {} for op tt.return: this operation does not support properties"),
# where an op that has properties ignores the names it does not define.  Asked of each
# release's Triton (``"NAME"() <{}> : () -> ()``; test_op_properties), for the ops of
# ttopt's dialects and of the upstream ones it registers.
NO_PROPERTIES_UNTIL: dict[str, tuple[int, int]] = {
    # tt
    "tt.addptr": NEWEST, "tt.advance": NEWEST, "tt.approx_divf": NEWEST, "tt.bitcast": NEWEST,
    "tt.broadcast": NEWEST, "tt.cat": NEWEST, "tt.descriptor_gather": NEWEST,
    "tt.descriptor_scatter": NEWEST, "tt.descriptor_store": NEWEST,
    "tt.experimental_descriptor_store": NEWEST,
    "tt.experimental_tensormap_fenceproxy_acquire": NEWEST,
    "tt.fp_to_fp": (2, 3),  # (3.0: rounding)
    "tt.grid_dependency_launch_dependents": NEWEST, "tt.grid_dependency_wait": NEWEST,
    "tt.histogram": NEWEST, "tt.int_to_ptr": NEWEST, "tt.join": NEWEST,
    "tt.make_tensor_descriptor": (3, 4),  # (3.5: padding)
    "tt.map_elementwise.return": NEWEST, "tt.mulhiui": NEWEST, "tt.precise_divf": NEWEST,
    "tt.precise_sqrt": NEWEST, "tt.ptr_to_int": NEWEST, "tt.reduce.return": NEWEST,
    "tt.return": NEWEST, "tt.scan.return": NEWEST, "tt.splat": NEWEST, "tt.split": NEWEST,
    "tt.trans": (2, 3),  # (3.0: order)
    "tt.unsplat": NEWEST, "tt.view": NEWEST,
    # ttg
    "ttg.alloc_tensor": NEWEST, "ttg.async_commit_group": NEWEST,
    "ttg.convert_layout": (3, 8),  # (3.9 has some)
    "ttg.local_alloc": (3, 1),  # (3.2: alignment)
    "ttg.local_barrier": NEWEST, "ttg.local_dealloc": NEWEST, "ttg.local_load": NEWEST,
    "ttg.local_store": NEWEST, "ttg.memdesc_index": NEWEST, "ttg.memdesc_reinterpret": NEWEST,
    "ttg.memdesc_reshape": NEWEST, "ttg.memdesc_subview": NEWEST, "ttg.select": NEWEST,
    "ttg.warp_return": NEWEST, "ttg.warp_specialize.partitions": NEWEST,
    "ttg.warp_yield": NEWEST,
    # ttng
    "ttng.async_tma_copy_local_to_global": (3, 8), "ttng.async_tma_gather": (3, 7),
    "ttng.async_tma_scatter": (3, 8), "ttng.cluster_wait": NEWEST,
    "ttng.inval_barrier": NEWEST, "ttng.reinterpret_tensor_descriptor": NEWEST,
    "ttng.tensormap_fenceproxy_acquire": NEWEST, "ttng.tmem_alloc": NEWEST,
    "ttng.tmem_copy": NEWEST,
    "ttng.tmem_load": (3, 6),  # (3.7: a reduction's properties)
    "ttng.tmem_store": NEWEST,
    "ttng.wait_barrier": (3, 2),  # (3.3: operandSegmentSizes)
    # upstream (MLIR's, as each release's LLVM has them)
    "arith.addi": (2, 3), "arith.subi": (2, 3), "arith.muli": (2, 3), "arith.shli": (2, 3),
    "arith.truncf": (2, 3), "arith.extf": (3, 1), "arith.trunci": (3, 4),
    "arith.divsi": (3, 6), "arith.divui": (3, 6), "arith.shrsi": (3, 6), "arith.shrui": (3, 6),
    "arith.extui": (3, 7), "arith.index_castui": (3, 7), "arith.uitofp": (3, 7),
    "arith.addui_extended": NEWEST, "arith.andi": NEWEST, "arith.bitcast": NEWEST,
    "arith.ceildivsi": NEWEST, "arith.ceildivui": NEWEST, "arith.extsi": NEWEST,
    "arith.floordivsi": NEWEST, "arith.fptosi": NEWEST, "arith.fptoui": NEWEST,
    "arith.index_cast": NEWEST, "arith.maxsi": NEWEST, "arith.maxui": NEWEST,
    "arith.minsi": NEWEST, "arith.minui": NEWEST, "arith.mulsi_extended": NEWEST,
    "arith.mului_extended": NEWEST, "arith.ori": NEWEST, "arith.remsi": NEWEST,
    "arith.remui": NEWEST, "arith.select": NEWEST, "arith.sitofp": NEWEST, "arith.xori": NEWEST,
    "math.absi": NEWEST, "math.ctlz": NEWEST, "math.ctpop": NEWEST, "math.cttz": NEWEST,
    "math.ipowi": NEWEST,
    "scf.condition": NEWEST, "scf.if": NEWEST, "scf.while": NEWEST, "scf.yield": NEWEST,
    "scf.for": (3, 4), "scf.execute_region": (3, 4),  # (3.5: unsignedCmp, no_inline)
    "cf.br": NEWEST, "gpu.barrier": (3, 6), "llvm.intr.assume": (3, 1),
}


def no_properties(name: str, span: tuple[tuple[int, int], tuple[int, int]]) -> bool:
    """Whether every release of ``span`` (first, last) refuses a properties dictionary on
    op ``name`` (as ttopt names it: ``ttg.``): none of them has properties for it."""
    until = NO_PROPERTIES_UNTIL.get(name)
    return until is not None and span[1] <= until


def no_properties_reason(release: tuple[int, int]) -> str:
    """How ``release``'s MLIR says an op has no properties (after ``invalid properties
    {..} for op NAME: ``)."""
    if release >= (3, 8):
        return "this operation has empty properties"
    if release < (2, 2):
        return "This operation does not support properties"
    return "this operation does not support properties"


# ------------------------------------------------------------------ the releases being checked
class _Span:
    __slots__ = ("release", "span_of", "span")

    def __init__(self, release, span_of):
        self.release = release
        self.span_of = span_of
        self.span = None


_SPAN: ContextVar[_Span | None] = ContextVar("ttopt_triton_span", default=None)


@contextmanager
def checking(release: tuple[int, int], span_of=None):
    """While a module read as ``release`` is verified: ``span_of()`` (called once, when a
    rule first asks) gives the releases (first, last) its text may come from; a rule of
    some releases only (:func:`taken`) accepts what any of them accepts."""
    token = _SPAN.set(_Span(release, span_of))
    try:
        yield
    finally:
        _SPAN.reset(token)


def checked_release() -> tuple[int, int]:
    """The release being verified (:func:`checking`), else the one being read."""
    s = _SPAN.get()
    return s.release if s is not None else _CURRENT.get().release


def checked_span() -> tuple[tuple[int, int], tuple[int, int]]:
    """The releases the module being verified may come from (:func:`checking`); outside,
    the release being read alone."""
    s = _SPAN.get()
    if s is None:
        r = _CURRENT.get().release
        return (r, r)
    if s.span is None:
        s.span = tuple(s.span_of()) if s.span_of is not None else (s.release, s.release)
    return s.span


def taken(ranges: tuple[tuple[tuple[int, int], tuple[int, int]], ...]) -> bool:
    """Whether a release of :func:`checked_span` is in one of ``ranges`` ((first, last)
    each)."""
    low, high = checked_span()
    return any(a <= high and low <= b for a, b in ranges)


# ------------------------------------------------------------------ detection
@dataclass(frozen=True)
class Sign:
    """A piece of text only some releases write (searched for only where one of ``literals``
    occurs: a substring test is much faster than a search over a large module)."""

    pattern: re.Pattern
    low: tuple[int, int]
    high: tuple[int, int]
    what: str
    literals: tuple[str, ...]
    one_line: bool = True
    """Whether a match of ``pattern`` never holds a newline (test_speed_locs checks it of
    each that says so): then none starts before the line of the text's first literal, and
    :func:`detect` searches from there."""
    # how matches() searches (derived from ``pattern``: :func:`_search_of`)
    bare: re.Pattern = field(init=False, repr=False, compare=False)
    guard: bool | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        bare, guard = _search_of(self.pattern)
        object.__setattr__(self, "bare", bare)
        object.__setattr__(self, "guard", guard)

    def matches(self, text: str, start: int = 0):
        """The offsets where ``pattern`` matches ``text``, in order (found with ``bare``: a
        leading ``\\b`` or ``(?<![\\w.])`` would make the regular expression engine try
        every position of the text); from ``start``, where no match starts before it."""
        bare, guard = self.bare, self.guard
        if guard is None:
            for m in bare.finditer(text, start):
                yield m.start()
            return
        m = bare.search(text, start)
        while m is not None:  # (as finditer would step: past a match, or one character)
            at = m.start()
            if at == 0 or not _word(text[at - 1], guard):
                yield at
                m = bare.search(text, max(m.end(), at + 1))
            else:
                m = bare.search(text, at + 1)


def _word(c: str, dot: bool) -> bool:
    """Whether ``c`` is what ``\\w`` matches (or, with ``dot``, a ``.``)."""
    return c.isalnum() or c == "_" or (dot and c == ".")


# a pattern's start that a leading `\b` may be checked by hand before: a letter, or a group
# of alternatives that each start with one (the match then starts with a word character)
_WORD_START = re.compile(r"(?:[A-Za-z_]|\(\?:[A-Za-z_]\w*(?:\|[A-Za-z_]\w*)*\))")


def _search_of(pattern: re.Pattern) -> tuple[re.Pattern, bool | None]:
    """How :meth:`Sign.matches` finds ``pattern``: the pattern less a leading ``(?<![\\w.])``
    (guard True: no word character or ``.`` before a match) or a leading word boundary before
    a word character (guard False: no word character before); else the pattern itself
    (None)."""
    src = pattern.pattern
    if src.startswith(r"(?<![\w.])"):
        return re.compile(src[len(r"(?<![\w.])"):]), True
    if src.startswith(r"\b") and _WORD_START.match(src, 2):
        return re.compile(src[2:]), False
    return pattern, None


def _sign(pattern: str, low, high, what: str, *literals: str, one_line: bool = True) -> Sign:
    return Sign(re.compile(pattern), low, high, what, literals, one_line)


SIGNS: tuple[Sign, ...] = (
    _sign(r"\b(?:triton_gpu|triton_nvidia_gpu)\.", OLDEST, (3, 2),
          "the dialect prefix 'triton_gpu.' (Triton 3.3 renamed it 'ttg.')", "triton_gpu.", "triton_nvidia_gpu."),
    _sign(r"(?:\b|[#!\"])(?:ttg|ttng)\.", (3, 3), NEWEST,
          "the dialect prefix 'ttg.' (before Triton 3.3: 'triton_gpu.')", "ttg.", "ttng."),
    _sign(r"\btt\.(?:load|store) [^\n{]*\{[^}\n]*\b(?:cache|evict) = \d+ : i32", OLDEST, (2, 3),
          "'{cache = .., evict = ..}' on tt.load/tt.store (Triton 2.x)", "cache = ", "evict = "),
    _sign(r"\b(?:cacheModifier|evictionPolicy) = \w", (3, 0), (3, 8),
          "'cacheModifier = ' / 'evictionPolicy = ' on tt.load/tt.store (Triton 3.0 to 3.8)", "cacheModifier = ", "evictionPolicy = "),
    _sign(r"\bcachePolicy = #tt\.cache_policy<", (3, 9), NEWEST,
          "'cachePolicy = #tt.cache_policy<..>' (Triton 3.9)", "cachePolicy"),
    _sign(r"!tt\.ptr<[^<>\n]*(?:<[^\n]*>)?, 1>", (2, 2), (2, 3),
          "a pointer type with its address space 1 spelled out, '!tt.ptr<.., 1>' (Triton 2.2, 2.3)", ", 1>"),
    _sign(r"= tt\.(?:splat|broadcast|expand_dims|trans|view) "
          r"%[\w#.$-]+(?: \{[^}\n]*\})? : \(", OLDEST, (2, 3),
          "'tt.splat %x : (T) -> U' (Triton 2.x; later 'T -> U')", ": ("),
    _sign(r"= tt\.(?:splat|broadcast|expand_dims) "
          r"%[\w#.$-]+(?: \{[^}\n]*\})? : [^(\s][^\n]* -> ", (3, 0), NEWEST,
          "'tt.splat %x : T -> U' (Triton 3.x; before: '(T) -> U')", " -> "),
    _sign(r"!tt\.memdesc<", (3, 0), (3, 2), "'!tt.memdesc<..>' (Triton 3.0 to 3.2)", "!tt.memdesc<"),
    _sign(r"\bttg\.memdesc_subview\b", (3, 3), (3, 4), "'ttg.memdesc_subview' (Triton 3.3, 3.4)", "memdesc_subview"),
    _sign(r"\bttg\.memdesc_index\b", (3, 5), NEWEST, "'ttg.memdesc_index' (Triton 3.5+)", "memdesc_index"),
    _sign(r"!tt\.tensordesc<tensor<|tt\.make_tensor_descriptor [^\n]*: <[^\n>]*>, <tensor<", (3, 3), (3, 7),
          "'!tt.tensordesc<tensor<..>>' (Triton 3.3 to 3.7)", "tensordesc<tensor<", ", <tensor<"),
    _sign(r"!tt\.tensordesc<(?!tensor<)|tt\.make_tensor_descriptor [^\n]*: <[^\n>]*>, <(?!tensor<)", (3, 8), NEWEST,
          "'!tt.tensordesc<..>' without 'tensor<' (Triton 3.8+)", "tensordesc<", ">, <"),
    _sign(r"\"ttng\.two-ctas\"", (3, 9), NEWEST, "the module attribute \"ttng.two-ctas\" (Triton 3.9)", "two-ctas"),
    _sign(r"\btriton_gpu\.(?:cmpi|cmpf|select)\b", OLDEST, (2, 1),
          "'triton_gpu.cmpi' (Triton 2.1)", "triton_gpu.cmp", "triton_gpu.select"),
    _sign(r"\btt\.experimental_descriptor_(?:load|store)\b", (3, 0), (3, 3),
          "'tt.experimental_descriptor_load' (Triton 3.0 to 3.3)", "experimental_descriptor_"),
    _sign(r"\ballowTF32 = ", OLDEST, (2, 3), "'allowTF32' on tt.dot (Triton 2.x)", "allowTF32"),
    _sign(r"\btt\.assert %[\w#.$-]+, \"(?:[^\"\\\n]|\\.)*\", \"", OLDEST, (3, 1),
          "'tt.assert %c, \"message\", \"file\", ...' (Triton 3.1 and before)", "tt.assert"),
    _sign(r"\btt\.assert %[\w#.$-]+, \"(?:[^\"\\\n]|\\.)*\" :", (3, 2), NEWEST,
          "'tt.assert %c, \"message\" : T' (Triton 3.2+)", "tt.assert"),
    _sign(r"\btt\.print \"[^\n]*\{hex = (?:true|false)\}", (3, 0), (3, 1),
          "'tt.print' with 'hex' but no 'isSigned' (Triton 3.0, 3.1)", "tt.print"),
    _sign(r"\btt\.print \"[^\n]*isSigned = ", (3, 2), NEWEST,
          "'tt.print' with 'isSigned' (Triton 3.2+)", "isSigned"),
    _sign(r"\btt\.dot_scaled %[\w.$-]+, %[\w.$-]+, %[\w.$-]+, %[\w.$-]+ lhs = ", (3, 2), (3, 2),
          "'tt.dot_scaled %a, %a_scale, %b, %c' (Triton 3.2)", "tt.dot_scaled"),
    _sign(r"\btt\.dot_scaled %[\w.$-]+ scale ", (3, 3), NEWEST,
          "'tt.dot_scaled %a scale %s, ...' (Triton 3.3+)", "tt.dot_scaled"),
    _sign(r"\btt\.get_num_programs \{axis = ", OLDEST, (2, 3),
          "'tt.get_num_programs {axis = N : i32}' (Triton 2.x)", "get_num_programs"),
    _sign(r"\"tt\.scan\"\([^\n]*<\{axis = \d+ : i32, reverse = ", (3, 0), NEWEST,
          "'tt.scan' with 'reverse' (Triton 3.x)", "reverse = "),
    _sign(r"\btt\.reshape %[\w.$-]+ \{allow_reorder = ", (2, 2), (3, 1),
          "'tt.reshape %x {allow_reorder = ..}' (Triton 2.2 to 3.1)", "allow_reorder = "),
    _sign(r"\btt\.reshape %[\w.$-]+ (?:allow_reorder|efficient_layout)?\s*:", (3, 2), NEWEST,
          "'tt.reshape %x allow_reorder : ..' (Triton 3.2+)", "tt.reshape", one_line=False),
    _sign(r"\binputPrecision = \w", (3, 0), NEWEST, "'inputPrecision' on tt.dot (Triton 3.x)", "inputPrecision"),
    _sign(r'(?:\bscf\.for unsigned\b|"scf\.for"\([^\n]*<\{[^}\n]*\bunsignedCmp\b)', (3, 5), NEWEST,
          "'scf.for unsigned' (Triton 3.5+)", "scf.for unsigned", "unsignedCmp"),
    _sign(r'(?:\bscf\.execute_region\b[^\n{]*\bno_inline\b'
          r'|"scf\.execute_region"\([^\n]*<\{[^}\n]*\bno_inline\b)', (3, 5), NEWEST,
          "'scf.execute_region .. no_inline' (Triton 3.5+)", "no_inline"),
)


_OP_SIGNS: tuple[Sign, ...] | None = None


def op_signs() -> tuple[Sign, ...]:
    """A sign for each op only some releases have: the legacy ops (:mod:`.legacy`) whose
    names no other release uses, and ops that first appeared after 2.1."""
    global _OP_SIGNS
    if _OP_SIGNS is None:
        from . import EAGER_DIALECTS  # (math, not imported here, has no legacy op's name:
        # test_dialect_defs)
        from .legacy import LEGACY

        # a name another release uses for another definition says nothing
        modern = {op.name for d in EAGER_DIALECTS for op in d.operations}
        counts: dict[str, int] = {}
        for cls, _low, _high in LEGACY:
            counts[getattr(cls, "name", "")] = counts.get(getattr(cls, "name", ""), 0) + 1

        signs = []
        for cls, low, high in LEGACY:
            name = getattr(cls, "name", "")
            if not isinstance(name, str) or "." not in name or not hasattr(cls, "parse"):
                continue
            dialect, rest = name.split(".", 1)
            if dialect == "tt":
                prefixes = ["tt"]
                spelled = r"tt\." + re.escape(rest)
            else:  # as the releases of its range spell the dialect
                old = "triton_gpu" if dialect == "ttg" else "triton_nvidia_gpu"
                prefixes = ([old] if low < (3, 3) else []) + ([dialect] if high >= (3, 3) else [])
                spelled = "(?:" + "|".join(prefixes) + r")\." + re.escape(rest)
            if name in _SHARED_NAMES or name in modern or counts.get(name, 0) > 1:
                continue
            signs.append(Sign(re.compile(rf"(?<![\w.]){spelled}(?![\w.])"), low, high,
                              f"'{rest}' (an op of Triton {show(low)} to {show(high)})",
                              tuple(f"{p}.{rest}" for p in prefixes)))
        for name, low in _FIRST_RELEASE.items():
            dialect, rest = name.split(".", 1)
            signs.append(Sign(re.compile(rf"(?<![\w.]){re.escape(name)}(?![\w.])"), low, NEWEST,
                              f"'{name}' (an op of Triton {show(low)}+)", (name,)))
        _OP_SIGNS = tuple(signs)
    return _OP_SIGNS


# legacy ops whose names later releases reuse for another op (no sign of a release)
_SHARED_NAMES = frozenset({
    "ttg.async_commit_group", "ttg.async_wait", "ttng.async_tma_copy_global_to_local",
    "ttng.async_tma_copy_local_to_global",
})
# ops (as spelled from 3.3 on) and the release that introduced them
_FIRST_RELEASE = {
    "ttng.warp_group_dot": (3, 2),
    "tt.descriptor_load": (3, 4),
    "tt.descriptor_store": (3, 4),
    "ttng.tensormap_create": (3, 4),
}


# ops later than 2.1 that no sign above names: asked only where a rule some releases break
# needs the releases a text may come from (verify's span: a float type of 2.x alone on
# tt.precise_sqrt is refused), not by every read
_LATER_OPS = {
    "tt.elementwise_inline_asm": (2, 2), "tt.extern_elementwise": (2, 2),
    "tt.clampf": (3, 0), "tt.precise_sqrt": (3, 0), "tt.precise_divf": (3, 0),
    "tt.mulhiui": (3, 0), "tt.histogram": (3, 0), "tt.join": (3, 0), "tt.split": (3, 0),
    "tt.gather": (3, 3), "tt.make_tensor_descriptor": (3, 3), "tt.descriptor_gather": (3, 4),
    "tt.descriptor_scatter": (3, 4), "tt.descriptor_reduce": (3, 4), "tt.unsplat": (3, 5),
    "tt.map_elementwise": (3, 5),
}


def narrowed(span: tuple[tuple[int, int], tuple[int, int]], text: str):
    """``span`` (the releases :func:`detect` allows ``text``) less those that lack an op the
    text uses (:data:`_LATER_OPS`; an op in a comment or a string says nothing)."""
    low, high = span
    for name, first in _LATER_OPS.items():
        if first <= low or name not in text:
            continue
        for m in re.finditer(rf"(?<![\w.]){re.escape(name)}(?![\w.])", text):
            line = text[text.rfind("\n", 0, m.start()) + 1 : m.start()]
            if line.endswith('"') and text.startswith('"(', m.end()):
                line = line[:-1]  # (the name of an op in generic form)
            if "//" not in line and line.count('"') % 2 == 0:
                low = first
                break
    return (low, high) if low <= high else span


@dataclass
class Detected:
    low: tuple[int, int]
    high: tuple[int, int]
    low_sign: tuple[Sign, int] | None = None  # the sign that set `low`, and its offset
    high_sign: tuple[Sign, int] | None = None

    @property
    def release(self) -> tuple[int, int]:
        """The release the text is read as: the newest one its signs allow, but never newer
        than 3.6 where nothing says the text is newer (then it reads as 3.6 does)."""
        if self.low <= DEFAULT <= self.high:
            return DEFAULT
        return self.high


# Parts that several literals share: a text without one has none of those literals either, and
# one search for it spares theirs (the dialect prefixes spare every op of their dialect)
_GUARDS = (
    "triton_gpu.", "triton_nvidia_gpu.", "ttg.", "ttng.", "experimental_", "memdesc", "tensordesc<",
    ", <", "extern_elementwise", "tt.atomic_", "tt.grid_dependency_", "tt.descriptor_",
    "unsigned", "cache", "evict", "allow",
)
_GUARDS_OF: dict[str, tuple[str, ...]] | None = None


def _guards_of() -> dict[str, tuple[str, ...]]:
    """Each sign's literal -> the guards (:data:`_GUARDS`) that are part of it (not itself)."""
    global _GUARDS_OF
    if _GUARDS_OF is None:
        _GUARDS_OF = {lit: tuple(g for g in _GUARDS if g in lit and g != lit)
                      for sign in (*SIGNS, *op_signs()) for lit in sign.literals}
    return _GUARDS_OF


def detect(text: str, hidden) -> Detected:
    """The releases that could have written ``text``.  ``hidden(offset)``: whether a match at
    ``offset`` is in a comment or a location string (and so says nothing).  Raises
    ``VersionConflict`` when two signs exclude each other."""
    found = Detected(OLDEST, NEWEST)
    guards_of = _guards_of()
    # a literal's or guard's first offset in the text (-1: not in it), each searched for once
    where: dict[str, int] = {}
    for sign in (*SIGNS, *op_signs()):
        if sign.low <= found.low and found.high <= sign.high:
            continue  # (its releases hold those the text may be from: it would change nothing)
        one_line = sign.one_line
        first = -1  # (the first literal's first offset)
        for lit in sign.literals:  # (a loop, not any(...): a generator per sign costs more)
            at = where.get(lit)
            if at is None:
                for guard in guards_of[lit]:
                    found_at = where.get(guard)
                    if found_at is None:
                        found_at = where[guard] = text.find(guard)
                    if found_at < 0:
                        at = -1
                        break
                else:
                    at = text.find(lit)
                where[lit] = at
            if at >= 0 and (first < 0 or at < first):
                first = at
                if not one_line:
                    break
        if first < 0:
            continue
        # (a match on one line holds a literal: it starts on that literal's line, or later;
        # any other, anywhere)
        for at in sign.matches(text, text.rfind("\n", 0, first) + 1 if one_line else 0):
            if hidden(at):
                continue
            if sign.low > found.low:
                found.low, found.low_sign = sign.low, (sign, at)
            if sign.high < found.high:
                found.high, found.high_sign = sign.high, (sign, at)
            if found.low > found.high:
                raise VersionConflict(found)
            break
    if found.high <= (2, 3) and found.low < (2, 2) and "!tt.ptr<" in text:
        # 2.2 and 2.3 spell the address space of every pointer type: a 2.x text with
        # pointer types and no `, 1>` is 2.1's
        found.high = (2, 1)
    return found


class VersionConflict(Exception):
    def __init__(self, found: Detected):
        super().__init__("conflicting signs of Triton releases")
        self.found = found


__all__ = [
    "DEFAULT",
    "NO_PROPERTIES_UNTIL",
    "RELEASES",
    "Detected",
    "Sign",
    "SIGNS",
    "Syntax",
    "VersionConflict",
    "checked_release",
    "checked_span",
    "checking",
    "current",
    "detect",
    "no_properties",
    "no_properties_reason",
    "narrowed",
    "parse_release",
    "show",
    "syntax",
    "taken",
]
