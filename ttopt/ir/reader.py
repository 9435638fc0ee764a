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
* every error becomes a :class:`~ttopt.errors.TTOptError` carrying file, line and column;
* each op's start offset in the input is recorded (``TritonModule.offsets``), so that the
  verifier (:mod:`ttopt.ir.verify`, run by ``read_module`` unless ``verify=False``) reports
  ``FILE:LINE:COL`` of the offending op.
"""

from __future__ import annotations

import bisect
import io
import itertools
import math
import re
import struct
from dataclasses import dataclass, field
from functools import lru_cache

from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    ArrayAttr,
    NoneAttr,
    FileLineColLoc,
    IndexType,
    IntAttr,
    IntegerType,
    TensorType,
    VectorType,
    StringAttr,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
)
from xdsl.dialects.builtin import ComplexType, DenseResourceAttr, NoneType, ShapedType, UnitAttr
from xdsl.dialects.builtin import Float80Type, Float128Type, Signedness, UnknownLoc, UnrankedTensorType
from xdsl.ir import Attribute, Block, BlockArgument, Operation
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from ..dialects import make_context, versions
from ..dialects.syntax import int_attr as integer_attr
from ..dialects.scf import IfOp
from ..dialects.tt_attrs import PointerType, WideDenseArrayAttr
from ..errors import TTOptError, TTOptInternalError, line_col
from ..xdsl_compat import (
    ParserBase,
    TypedStringAttr,
    append_new_op,
    file_line_col,
    function_type,
    set_value_name,
    unchecked,
    unchecked_data,
)
from .fast_ops import (
    balanced_end as _balanced_end,
    MAX_LINE,
    SCALAR_TYPES,
    line_end,
    try_fast_bare,
    try_fast_branch,
    try_fast_for_header,
    try_fast_op,
    try_fast_store,
    try_fast_terminator,
)
from .lexer import BLANKS, SKIP, STRING_LITERAL, FastMLIRLexer
from .locations import (
    LocAliasTable,
    check_top_level_aliases,
    extract_loc_aliases,
    fast_loc,
    int_attr,
    is_location,
    rstripped_length,
    skip_blanks_back,
    wrong_token_offset,
)
from .source import RawMarks, SourceMap, line_starts
from .source import build as build_source_map
from .verify import ParseFacts, forget_types, properties_error, verify_parsed

_bisect_right = bisect.bisect_right


_BLANKS = re.compile(r"[ \t]*")
# types by (text, alias environment), shared by every module read in the process
_SHARED_TYPES: dict[tuple[str, int], Attribute] = {}
_SHARED_TYPES_MAX = 200_000
_ALIAS_ENVS: dict[tuple[str, ...], int] = {}
_ENV_NUMBERS = itertools.count()
_TERMINATORS = ("scf.yield", "tt.reduce.return", "tt.scan.return", "tt.return")


@dataclass
class TritonModule:
    """A parsed module plus what is needed to print it back the way it came.

    ``offsets`` maps each op read from the input to the character offset where it starts
    (its first result name, or its name); ``generic_ops`` holds the ops written in MLIR's
    generic form; ``source`` is the text those offsets index (the input, as read: CRLF
    folded, NUL bytes blanked), for turning an offset into ``LINE:COL`` on an error.  Ops a
    pass creates are in neither.
    """

    op: ModuleOp
    filename: str
    attr_aliases: dict[str, Attribute] = field(default_factory=dict)
    locs: LocAliasTable | None = None
    offsets: dict[Operation, int] = field(default_factory=dict)
    generic_ops: set[Operation] = field(default_factory=set)
    source: str = ""
    source_map: SourceMap | None = None
    """Where each op was read from (:mod:`ttopt.ir.source`): the writer copies what no pass
    changed.  None for a module built in code."""
    triton_version: tuple[int, int] = versions.DEFAULT
    """The Triton release whose syntax the module is written in."""
    triton_span: tuple[tuple[int, int], tuple[int, int]] | None = None
    """The releases the reader took the text to be from (one where it was told which)."""


# ------------------------------------------------------------------ version detection
def _in_comment_or_location(text: str, pos: int) -> bool:
    """Whether ``pos`` is in a ``//`` comment or in a string of a ``loc(...)`` (a file or
    variable name), on its line; a string elsewhere (`"triton_gpu.num-warps"`) counts."""
    i = text.rfind("\n", 0, pos) + 1
    while i < pos:
        c = text[i]
        if c == '"':
            m = STRING_LITERAL.match(text, i)
            if m is None or m.end() > pos:
                return "loc(" in text[text.rfind("\n", 0, pos) + 1 : i]
            i = m.end()
        elif c == "/" and text.startswith("//", i):
            return True
        else:
            i += 1
    return False


def triton_release(text: str, filename: str, given=None) -> versions.Detected:
    """The Triton releases that could have written ``text`` (:mod:`ttopt.dialects.versions`;
    ``.release`` is the one it is read and written as): ``given`` (``"3.5"``, (3, 5)) alone
    if the text's signs allow it, else the range they point to.  A text whose signs exclude
    each other, or exclude ``given``, is an error at the sign."""
    hidden = lambda pos: _in_comment_or_location(text, pos)  # noqa: E731
    try:
        found = versions.detect(text, hidden)
    except versions.VersionConflict as e:
        (a, at_a), (b, at_b) = e.found.low_sign, e.found.high_sign
        first, second = sorted([(at_a, a), (at_b, b)], key=lambda x: x[0])
        ln, col = line_col(text, first[0])
        ln2, col2 = line_col(text, second[0])
        raise TTOptError(
            f"this text has signs of Triton releases that exclude each other: {first[1].what} "
            f"here, and {second[1].what} at {ln2}:{col2}", filename, ln, col
        ) from None
    if given is None:
        return found
    release = versions.parse_release(given) if isinstance(given, str) else tuple(given)
    for bound, sign in ((found.low, found.low_sign), (found.high, found.high_sign)):
        if sign is not None and not (found.low <= release <= found.high):
            if (bound is found.low and release < bound) or (bound is found.high and release > bound):
                ln, col = line_col(text, sign[1])
                raise TTOptError(
                    f"the text is not Triton {versions.show(release)}'s, as --triton-version "
                    f"says: it has {sign[0].what}", filename, ln, col
                )
    return versions.Detected(release, release)


# ------------------------------------------------------------------ the parser
# `loc(...)` with up to two levels of parentheses inside and no newline (strings may hold
# parentheses); anything else is parsed without the cache
_LOC_STR = r'"(?:[^"\\\n]|\\.)*"'
_LOC_TEXT = re.compile(
    r"loc\((?:[^()\"\n]|" + _LOC_STR + r"|\((?:[^()\"\n]|" + _LOC_STR
    + r"|\((?:[^()\"\n]|" + _LOC_STR + r")*\))*\))*\)"
)
# `<{...}>` with no braces or newline inside (but in a plain string: no escape in it) and
# `<...>` at most one level deep
_PLAIN_STR = r'"[^"\\\n]*"'
_PROPS_TEXT = re.compile(r'<\{(?:[^{}<>"\n]|' + _PLAIN_STR + r'|<[^{}<>"\n]*>)*\}>')
_DICT_TEXT = re.compile(r'\{(?:[^{}<>"\n]|' + _PLAIN_STR + r'|<[^{}<>"\n]*>)*\}')
_RESULT_LIST = re.compile(r"%[^=\n]*=[ \t]*")
_LOC_KEYWORD = re.compile(r"loc(?![\w$.])")
# `loc(#name` (blanks and comments between the tokens): a location alias as a location
_LOC_OF_ALIAS = re.compile(r"loc(?:[ \t\n\r]|//[^\n]*)*+\((?:[ \t\n\r]|//[^\n]*)*+(#[\w$.-]+)")
# `%name: type` of a block argument (a scalar type's name, or where another type starts)
_BLOCK_ARG = re.compile(r"(%(?:[0-9]+|[A-Za-z_$.-][\w$.-]*)): ([A-Za-z_][\w.]*(?=[ ,)])|(?=[!t]))")
_BARE_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")  # (the lexer's bare identifier)
_FUNC_ARG = re.compile(r"(%(?:[0-9]+|[A-Za-z_$.-][\w$.-]*)): ")
# `public @name` of a tt.func, up to its `(` (the lexer's bare identifier as the name)
_FUNC_HEAD = re.compile(r"(?:(public|private|nested) )?@([A-Za-z_][A-Za-z0-9_$.]*)(?=\()")
_FUNC_RESERVED = ("sym_name", "function_type", "sym_visibility")  # (tt.FuncOp.parse's)
_LOC_OF_ALIAS_ONLY = re.compile(r"loc\((#(?:[0-9]+|[A-Za-z_$.-][\w$.-]*))\)")
FAST_FUNC_ARGS = True  # (off: every tt.func argument list through xDSL's parse_func_op_like)
FAST_BLOCK_ARGS = True  # (off: every block argument list through xDSL's parser)
FAST_LABELS = True  # (off: every block label through xDSL's parser)
_VALID_NAME = re.compile(r"[A-Za-z_$.-][\w$.-]*")


class TritonParser(ParserBase):
    """xDSL's parser with the fixes Triton IR needs (see module docstring)."""

    def __init__(self, ctx, text: str, name: str, trailing_locs: dict[int, str] | None = None):
        super().__init__(ctx, text, name)
        fast = FastMLIRLexer(self.lexer.input)
        self.install_lexer(fast)
        self._trailing_locs = trailing_locs or {}
        self._fast_refused = -1  # (where parse_block_body's fast path last gave up)
        self.type_cache: dict[str, Attribute] = {}
        # op name -> (its class, the fast path's kind or None): what ttopt.ir.fast_ops looks
        # up per op (the parser lives inside one release's versions.syntax)
        self.fast_kinds: dict[str, tuple] = {}
        self._encodings: dict[str, Attribute] = {}  # (see _fast_type)
        self._loc_cache: dict[str, Attribute] = {}
        self._alias_locs: dict[str, tuple] = {}  # `#locN` -> (its location, "loc(#locN)")
        self._fast_loc_parts: dict = {}  # (fast_loc's cache of file names and file locations)
        self._props_cache: dict[str, dict[str, Attribute]] = {}
        self._dict_cache: dict[str, dict[str, Attribute]] = {}
        self._ftype_cache: dict[str, Attribute] = {}
        self._in_type = False
        self._in_dialect_type = False  # parsing a `!tt.`/`!ttg.` type: no nested lookups
        self.source = text
        self.file_name = name
        self._file_attr: StringAttr | None = None  # (one for every implicit location)
        self._after_loc = -1
        self._line_starts: list[int] | None = None  # (shared with the source map)
        self._content_end: int | None = None
        self.offsets: dict[Operation, int] = {}  # op -> offset of its first token
        # what the verifier learns while parsing (ttopt.ir.verify.verify_parsed); None:
        # no verification
        self.facts: ParseFacts | None = None
        self.generic_ops: set[Operation] = set()
        self.top_level_spans: list[tuple[int, int]] = []  # [start, end) of top-level ops
        self.loc_alias_offsets: dict[str, int] = {}  # `#locN` -> offset of its definition
        self._nested_loc = False
        # id -> (placeholder, alias, offset) of each trailing `loc(#alias)` whose alias is no
        # location alias of the table: an error, reported as MLIR does, after the whole input
        # (_resolve_deferred_locs)
        self._deferred_locs: dict[int, tuple] = {}
        self._first_code: dict[int, int] = {}  # line -> offset of its first non-blank
        self._resolved_refs: list[tuple[str, object]] = []  # (see define_values)
        self._shadowed: dict[int, object] = {}  # references left open there, by id
        self._alias_texts: list[str] = []  # the `#x = ...` / `!x = ...` definitions so far
        self._alias_env: int | None = None  # their number in _ALIAS_ENVS (None: not yet)
        self.marks = RawMarks(starts=self.offsets)  # for the source map (ttopt.ir.source)
        self._fill = versions.filled_properties(versions.current().release)
        self.depth = 0  # regions open around the current op

    # --- SSA names kept exactly (xDSL strips a `_N` suffix from name hints)
    def define_values(self, name, values, span, located: bool | None = None):  # type: ignore[override]
        if name in self.ssa_values or name in self.forward_ssa_references:
            refs = self.forward_ssa_references.get(name)
            pending = None
            if refs:
                # a reference with no use yet was made by an op still being read: this
                # definition is in that op (its region, or its region's arguments), where
                # MLIR does not look for the op's operands (it resolves them after the
                # op's regions; `scf.if` resolves its condition first, and leaves it
                # unlinked): the reference stays open (defined later, above the op: a
                # dominance error; never: an undefined value)
                pending = {i: v for i, v in refs.items() if v.first_use is None}
                if pending:
                    used = {i: v for i, v in refs.items() if v.first_use is not None}
                    if used:
                        self.forward_ssa_references[name] = used
                    else:
                        del self.forward_ssa_references[name]
                    refs = used
                    self._shadowed.update((id(v), v) for v in pending.values())
            if refs and max(refs) >= len(values):
                # `%a#1` used above a definition of fewer results: a name MLIR never defines
                # (`use of undeclared SSA value name`, at the use, after the whole input)
                beyond = {i: v for i, v in refs.items() if i >= len(values)}
                refs = {i: v for i, v in refs.items() if i < len(values)}
                if refs:
                    self.forward_ssa_references[name] = refs
                else:
                    del self.forward_ssa_references[name]
                pending = {**(pending or {}), **beyond}
            if refs:  # (resolved now: an op that takes one later was still being read)
                self._resolved_refs.extend((name, v) for v in refs.values())
                for v in refs.values():
                    if id(v) in self._shadowed:
                        self._unlinked_condition(v)
            if refs and self.facts is not None:  # a use before its definition: a
                # dominance error (ttopt.ir.verify)
                for value in refs.values():
                    self.facts.forward_uses.extend(
                        (use.operation, use.index) for use in value.uses
                    )
            if name in self.ssa_values:  # (MLIR's words; a region's entry arguments: above)
                self.raise_error(f"redefinition of SSA value '%{name}'", span)
            try:
                super().define_values(name, values, span)  # errors, forward uses
            finally:
                if pending:
                    self.forward_ssa_references[name] = pending
        else:
            self.ssa_values[name] = tuple(values)
        names = self.marks.names
        for v in values:  # the exact name, numeric ones too (the writer keeps them)
            set_value_name(v, name)
            names[v] = name
        if located is None:  # (its `loc(...)` was the last thing read)
            located = self._after_loc > span.start and self._after_loc == self.current_token.span.start
        if isinstance(values[0], BlockArgument) and not located:
            # an argument written without `loc(...)`: MLIR locates it at its name (a
            # function's argument gets its own `loc(...)` after this, if it has one)
            values[0].location = self._implicit_loc(span.start)

    def _unlinked_condition(self, ref) -> None:
        """A custom-form ``scf.if`` whose condition's name was defined in its own region (and
        is now defined above it): MLIR resolved the condition before the regions and the
        definition inside replaced it, so the op keeps a dead operand (Triton: "operation's
        operand is unlinked"), whatever comes later; other ops resolve their operands after
        their regions (a dominance error, or a valid use)."""
        for use in ref.uses:
            op = use.operation
            if isinstance(op, IfOp) and use.index == 0 and op not in self.generic_ops:
                at = self.offsets.get(op)
                if at is not None:
                    self.raise_error("operation's operand is unlinked", at, at + 1)

    def define_result(self, name: str, value, start: int) -> None:
        """``%name`` (at ``start``) defined as the one result ``value`` of an op the fast
        path read: :meth:`define_values` in short where the name is new."""
        table = self.__dict__["ssa_values"]
        if name in table or name in self.forward_ssa_references:
            self.define_values(name, (value,), Span(start, start + len(name) + 1, self.lexer.input))
            return
        table[name] = (value,)
        set_value_name(value, name)
        self.marks.names[value] = name

    # --- an op written without `loc(...)` gets the location MLIR gives it: file:line:col of
    #     its first token (so that Triton compiling our output sees the same locations)
    def parse_optional_location(self):  # type: ignore[override]
        # a location's text is looked up first: the same `loc("x"(#loc3))` or
        # `loc(callsite(#loc1 at #loc56))` recurs on every argument of a kernel and every
        # block argument of a reduction (a location alias inside cannot change meaning
        # further down: its definition is fixed, and one used before its definition fails
        # the first time, at the earliest position, and is never cached)
        tok = self.current_token
        m = None
        if tok.kind == MLIRTokenKind.BARE_IDENT and tok.text == "loc":
            m = _LOC_TEXT.match(self.source, tok.span.start)
            if m is not None:
                cached = self._known_location(m.group(), tok.span.start)
                if cached is not None:
                    self.resume_from(m.end())
                    self._after_loc = self.current_token.span.start
                    return cached
        loc = super().parse_optional_location()
        if loc is not None:
            self._after_loc = self.current_token.span.start
            if m is not None and self._after_loc >= m.end() and id(loc) not in self._deferred_locs:
                self._remember_location(m.group(), loc)
        return loc

    def _known_location(self, text: str, at: int):
        """The location written ``text`` (``loc(...)``, at ``at``): read before, or built by
        the fast path (then remembered); None to let xDSL's parser read it."""
        cached = self._loc_cache.get(text)
        if cached is None and FAST_LOCATIONS:
            cached = self._fast_location(text[4:-1], at)
            if cached is None:
                cached = self._alias_location(text)
            if cached is not None:
                self._remember_location(text, cached)
        return cached

    def _remember_location(self, text: str, loc) -> None:
        """What reading the location written ``text`` records: the text, cached; and, for
        the writer, the text ``loc`` was first written as (it prints a location as it was
        written, not as an alias of equal value)."""
        self._loc_cache[text] = loc
        self.marks.loc_texts.setdefault(id(loc), (loc, text))

    def _alias_location(self, written: str):
        """``loc(#name)`` as a whole (an op's or an argument's trailing location) naming a
        location alias, which may be defined further down (MLIR resolves a whole
        ``loc(#alias)`` after reading the input): the alias's location, as xDSL's parser
        reads it (:meth:`parse_location_body`); None for anything else (the parser reads
        it, and reports what is wrong)."""
        m = _LOC_OF_ALIAS_ONLY.fullmatch(written)
        if m is None or m.group(1) not in self.loc_alias_offsets:
            return None
        loc = self.attribute_aliases.get(m.group(1))
        return loc if loc is not None and is_location(loc) else None

    def _fast_location(self, body: str, at: int):
        """The location ``loc(body)`` at offset ``at`` in one of the forms nearly every one
        has (:func:`ttopt.ir.locations.fast_loc`: ``"name"(#alias)``, ``"file":line:col``,
        ``callsite(#a at #b)``), each alias in it defined above ``at``; None for anything
        else (then xDSL's parser reads it, and reports what is wrong)."""
        aliases, offsets = self.attribute_aliases, self.loc_alias_offsets

        def resolve(name: str, _rel: int):
            defined_at = offsets.get(name)
            loc = aliases.get(name)
            if loc is None or defined_at is None or defined_at > at:
                raise _NotFast
            return loc

        try:
            return fast_loc(body, resolve, self._fast_loc_parts)
        except _NotFast:
            return None

    # --- `loc(#alias)` may name an alias defined further down (MLIR resolves it at the
    #     end), but an alias inside a location (`loc("name"(#alias))`, `callsite(..)`)
    #     must already be defined, as MLIR parses it on the spot
    def parse_location_body(self):  # type: ignore[override]
        tok = self.current_token
        nested = self._nested_loc
        if nested and tok.kind == MLIRTokenKind.HASH_IDENT:
            defined_at = self.loc_alias_offsets.get(tok.text)
            if defined_at is None:  # (MLIR: after the name)
                attr = self.attribute_aliases.get(tok.text)
                if attr is None:
                    self.raise_error(f"undefined symbol alias '{tok.text}'", tok.span.end, tok.span.end)
                if not is_location(attr):  # (MLIR's words, its blank missing)
                    self.raise_error(f"expected location attribute, but got{_shown(attr)}",
                                     tok.span.end, tok.span.end)
            if defined_at is not None and defined_at > tok.span.start:
                self.raise_error(
                    f"location alias '{tok.text}' is used inside a location before its "
                    "definition (MLIR resolves only a whole 'loc(#alias)' later)",
                    tok.span,
                )
        elif tok.kind == MLIRTokenKind.HASH_IDENT and tok.text not in self.loc_alias_offsets:
            return self._deferred_location(tok)
        self._nested_loc = True
        try:  # (MLIR's grammar: ranges and fused<metadata> too, which xDSL's lacks)
            from .locations import parse_location

            return parse_location(self)
        finally:
            self._nested_loc = nested

    def _deferred_location(self, tok):
        """A trailing ``loc(#name)`` (an op's, an argument's) where ``#name`` is no location
        alias: an attribute alias defined above is an error now, as MLIR's; any other name
        MLIR resolves after reading the whole input (an error in what follows comes first: a
        malformed ``#name = ...`` definition below the module).  A placeholder until then."""
        attr = self.attribute_aliases.get(tok.text)
        if attr is not None:
            self.raise_error(f"expected location, but found '{_shown(attr)}'", tok.span.start,
                             tok.span.end)
        self.consume_token()
        loc = UnknownLoc()
        self._deferred_locs[id(loc)] = (loc, tok.text, tok.span.start)
        return loc

    def _resolve_deferred_locs(self, ops) -> None:
        """The error of the first trailing ``loc(#name)`` :meth:`_deferred_location` left,
        as MLIR reports it at the end (``OperationParser::finalize``: the ops walked
        post-order, each op's location, then its regions' block arguments')."""
        deferred = self._deferred_locs

        def check(loc) -> None:
            entry = deferred.get(id(loc))
            if entry is not None and entry[0] is loc:
                _, name, at = entry
                attr = self.attribute_aliases.get(name)
                self.raise_error("operation location alias was never defined" if attr is None
                                 else f"expected location, but found '{_shown(attr)}'",
                                 at, at + len(name))

        for top in ops:
            for op in top.walk(region_first=True):
                check(op.location)
                for region in op.regions:
                    for block in region.blocks:
                        for arg in block.args:
                            check(arg.location)
        _, name, at = min(deferred.values(), key=lambda e: e[2])  # (none found: never accepted)
        self.raise_error("operation location alias was never defined", at, at + len(name))

    # --- the parts of a generic op (`"tt.reduce"(%x) <{axis = 0 : i32}> ({...}) : (T) -> U`)
    #     that repeat are looked up by their text: a properties dictionary (copied: the
    #     caller may change it), and a function type that runs to the end of its line
    def parse_optional_properties_dict(self):  # type: ignore[override]
        return self._memo_dict(_PROPS_TEXT, self._props_cache, super().parse_optional_properties_dict, 2)

    def parse_optional_dictionary_attr_dict(self):  # type: ignore[override]
        # (an op's `{...}`; `attributes {noinline = false}`: the method below)
        return self._memo_dict(_DICT_TEXT, self._dict_cache, super().parse_optional_dictionary_attr_dict, 1)

    def parse_optional_attr_dict_with_keyword(  # type: ignore[override]
            self, reserved_attr_names=()):
        """``attributes {...}`` (a function's, a module's): a dictionary of
        :func:`_fast_dict`'s kind (or one this parser has read before) from its text, none of
        ``reserved_attr_names`` in it; anything else xDSL's (its error for a reserved name)."""
        tok = self.current_token
        if FAST_DICTS and tok.kind == MLIRTokenKind.BARE_IDENT and (
                found := self._attributes_at(tok.span.start, reserved_attr_names)) is not None:
            self.resume_from(found[1])
            return found[0]
        return super().parse_optional_attr_dict_with_keyword(reserved_attr_names)

    def _memo_dict(self, pattern, cache: dict, parse, brackets: int):
        """``parse()`` (a dictionary) looked up by the text ``pattern`` matches here; cached
        only when the parse consumed exactly that text.  A copy each time: callers change it.
        A dictionary of integers and booleans only is built from its text (``brackets``:
        the length of its opening bracket, ``{`` or ``<{``)."""
        m = pattern.match(self.source, self.current_token.span.start)
        if m is None:
            return parse()
        cached = self._known_dict(m.group(), cache, brackets)
        if cached is None:
            cached = parse()
            if self.current_token.span.start >= m.end():
                cache[m.group()] = dict(cached)
            return cached
        self.resume_from(m.end())
        return dict(cached)

    def parse_optional_function_type(self):  # type: ignore[override]
        tok = self.current_token
        start = tok.span.start
        if tok.kind != MLIRTokenKind.L_PAREN:
            return None
        eol = line_end(self.source, start)
        if eol < 0:
            return super().parse_optional_function_type()
        key = self.source[start:eol].rstrip(" \t")
        cached = self._ftype_cache.get(key)
        if cached is None and FAST_TYPES:
            cached = self._fast_function_type(start, start + len(key))
            if cached is not None:
                self._ftype_cache[key] = cached
        if cached is not None:
            self.resume_from(start + len(key))
            return cached
        result = super().parse_optional_function_type()
        if result is not None and self.current_token.span.start >= start + len(key):
            self._ftype_cache[key] = result
        return result

    def _fast_function_type(self, start: int, end: int):
        """The function type ``(T, ...) -> R`` or ``-> (R, ...)`` written from ``start`` (its
        ``(``) to ``end`` (the rest of its line), each type read as :meth:`parse_type` would
        take it (:meth:`_argument_type_at`: a scalar, or a text this parser's caches or
        :func:`_fast_type` know), one ``, `` between types; None for anything else (xDSL's
        parser reads it)."""
        text = self.source
        ins, pos = self._type_list_at(start)
        if ins is None or not text.startswith(" -> ", pos):
            return None
        pos += 4
        if text.startswith("(", pos):
            outs, pos = self._type_list_at(pos)
            if outs is None:
                return None
        else:
            found = self._argument_type_at(pos)
            if found is None:
                return None
            outs, pos = [found[0]], found[1]
        if pos != end:
            return None
        return function_type(ins, outs)

    def _type_list_at(self, start: int):
        """``([types], end)`` of ``(T, ...)`` at ``start`` (as :meth:`_fast_function_type`
        reads them), or ``(None, start)``."""
        text = self.source
        pos = start + 1
        types: list = []
        if text.startswith(")", pos):
            return types, pos + 1
        while True:
            found = self._argument_type_at(pos)
            if found is None:
                return None, start
            types.append(found[0])
            pos = found[1]
            if text.startswith(", ", pos):
                pos += 2
            elif text.startswith(")", pos):
                return types, pos + 1
            else:
                return None, start

    def parse_generic_operation(self, op_type):  # type: ignore[override]
        op = super().parse_generic_operation(op_type)
        self.generic_ops.add(op)
        return op

    def parse_block_body(self, block):  # type: ignore[override]
        """xDSL's loop, with a run of ops that the fast path reads (:mod:`ttopt.ir.fast_ops`)
        read one after another from the text: the lexer is moved (one token lexed) only
        where the full parser takes over.  The position after an op is where the lexer would
        put its next token (the same whitespace and comment skipping)."""
        text = self.source
        add = block.add_op
        try_fast = self._try_fast_at
        skip = SKIP.match
        marks = self.marks
        depths, ends, pieces = marks.depths, marks.ends, marks.pieces
        offsets, trailing = self.offsets, self._trailing_locs
        depth = self.depth
        fill = self._fill
        while True:
            pos = self.current_token.span.start
            moved = False
            while True:
                fast = try_fast(pos)
                if fast is None:
                    break
                op, end = fast
                nxt = skip(text, end).end()  # (where the lexer's next token starts)
                # (as _finish_fast and _finish, inline: most ops of a kernel come here)
                offsets[op] = pos
                name = trailing.get(end)
                op.location = (self._alias_loc(name) if name is not None
                               else self._implicit_loc(self._op_name_at(pos)))
                depths[op] = depth
                ends[op] = nxt
                if fill:
                    self._fill_properties(op)
                # the op's text for the source map: its whole line, when it ends at the
                # line's end (on a long line the fast path may stop before the next op; the
                # next token is below) and nothing precedes it there (the line's start looked
                # for within MAX_LINE: on a longer line the op is not first on it)
                if end == len(text) or text[end] == "\n":
                    lo = pos - MAX_LINE if pos > MAX_LINE else 0
                    line_start = text.rfind("\n", lo, pos) + 1
                    if line_start == pos or (line_start or not lo) and text[line_start:pos].isspace():
                        pieces[op] = ((line_start, end),)
                append_new_op(block, op)
                pos, moved = nxt, True
            if moved or self.current_token.span.start != pos:
                self.resume_from(pos)  # (a fast path that gave up may have looked ahead)
            self._fast_refused = pos  # (not tried again there: _parse_operation_at)
            op = self.parse_optional_operation()
            if op is None:
                return
            add(op)

    def _try_fast_at(self, start: int):
        text = self.source
        if text.startswith("%", start):
            return try_fast_op(self, start)
        if text.startswith("tt.store ", start):
            return try_fast_store(self, start)
        if text.startswith(_TERMINATORS, start):
            return try_fast_terminator(self, start)
        if text.startswith("cf.", start):
            return try_fast_branch(self, start)
        return try_fast_bare(self, start)

    def _finish_fast(self, op, start: int, end: int) -> None:
        """An op the fast path read from ``start`` to ``end`` (its line's end): its offset
        and location."""
        self.offsets[op] = start
        name = self._trailing_locs.get(end)
        if name is not None:
            op.location = self._alias_loc(name)
        else:
            op.location = self._implicit_loc(self._op_name_at(start))

    def _finish(self, op, depth: int, end: int) -> None:
        """The source map's marks of ``op`` (``end``: its next token), and the properties an
        older release's op lacks (:func:`ttopt.dialects.versions.filled_properties`)."""
        marks = self.marks
        marks.depths[op] = depth
        marks.ends[op] = end
        if self._fill:
            self._fill_properties(op)

    def _fill_properties(self, op) -> None:
        rules = self._fill.get(op.name)
        if rules:
            props = op.properties
            for prop, value in rules:
                if prop not in props:
                    props[prop] = value(op)
                    self.marks.filled.setdefault(op, set()).add(prop)

    def parse_operation(self):  # type: ignore[override]
        start = self.current_token.span.start
        depth = self.depth
        op = self._parse_operation_at(start)
        self._finish(op, depth, self.current_token.span.start)
        return op

    def note_alias_definition(self, written: str) -> None:
        """Alias definition ``written`` (``#x = ...``, ``!x = ...``) was read: the types this
        parser remembers across modules are keyed by the definitions read so far, since a
        type naming an alias means what they say (``tensor<4x!t>`` where ``!t = i32`` is not
        another text's ``tensor<4x!t>``).  The location table's reader tells it too."""
        self._alias_texts.append(written)
        self._alias_env = None

    def _parse_operation_at(self, start: int):
        kind = self.current_token.kind
        fast = None
        if start == self._fast_refused:
            pass  # (parse_block_body tried the fast paths at this op: they gave up)
        elif kind == MLIRTokenKind.PERCENT_IDENT:
            fast = try_fast_op(self, start)
        elif kind == MLIRTokenKind.BARE_IDENT:
            if self.source.startswith("tt.store ", start):
                fast = try_fast_store(self, start)
            elif self.source.startswith(_TERMINATORS, start):
                fast = try_fast_terminator(self, start)
            elif self.source.startswith("cf.", start):
                fast = try_fast_branch(self, start)
            else:
                fast = try_fast_bare(self, start)
        if fast is None:
            if self.current_token.span.start != start:  # a fast path looked ahead and gave
                self.resume_from(start)                 # up: never lose what it consumed
        else:  # a common one-line op (ttopt.ir.fast_ops)
            op, end = fast
            self.resume_from(end)
            self._finish_fast(op, start, end)
            return op
        op = super().parse_operation()
        self.offsets[op] = start
        if self._trailing_locs:
            eol = self._end_of_line_of_last_token()
            name = self._trailing_locs.get(eol)
            # (the line's trailing `loc(#x)` is the last op's on it: not this op's where
            # another follows on the line)
            if name is not None and self.current_token.span.start >= eol:
                op.location = self._alias_loc(name)
                return op
        if self._after_loc != self.current_token.span.start:
            op.location = self._implicit_loc(self._op_name_at(start))
        return op

    def _implicit_loc(self, at: int):
        """The location MLIR gives what was written without ``loc(...)``: file:line:col of
        ``at`` (the writer prints none for it, as it was read)."""
        starts = self._line_starts
        if starts is None:
            starts = self._starts()
        i = _bisect_right(starts, at) - 1
        name = self._file_attr
        if name is None:
            name = self._file_attr = unchecked_data(StringAttr, self.file_name)
        # (a new object each: the writer knows it by its id)
        loc = file_line_col(name, int_attr(i + 1), int_attr(at - starts[i] + 1))
        self.marks.implicit_locs[id(loc)] = loc
        return loc

    def _alias_loc(self, name: str):
        entry = self._alias_locs.get(name)
        if entry is None:
            loc = self.attribute_aliases[name]
            entry = self._alias_locs[name] = (loc, f"loc({name})")
        loc = entry[0]
        self.marks.loc_texts[id(loc)] = entry  # (the text it was last written as)
        return loc

    # --- where each region's braces are (ttopt.ir.source), and how deep the ops are
    def parse_optional_region(self, arguments=None):  # type: ignore[override]
        tok = self.current_token
        if tok.kind != MLIRTokenKind.L_BRACE:
            return super().parse_optional_region(arguments)
        if arguments and not self.source.startswith("^", SKIP.match(self.source, tok.span.end).end()):
            self._check_entry_arguments(arguments)
        self.depth += 1
        try:
            region = super().parse_optional_region(arguments)
        finally:
            self.depth -= 1
        if region is not None:
            self.marks.regions[region] = (tok.span.start, self.lexer.closing_brace_before(self.current_token))
        return region

    def _check_entry_arguments(self, arguments) -> None:
        """A region's entry arguments (a function's, a loop's) take names not in use, in
        MLIR's words (a label after the ``{`` is reported first, by xDSL's parser, as MLIR
        reports it)."""
        seen = set()
        for arg in arguments:
            name = arg.name.text[1:]
            if name in seen or name in self.ssa_values:
                self.raise_error(f"region entry argument '%{name}' is already in use",
                                 arg.name.start, arg.name.end)
            seen.add(name)

    def parse_block_arguments(self, block):  # type: ignore[override]
        """A block label's arguments; the common shape (``(%a: f32 loc(...), %b: f32
        loc(...))``, every type and location already read once in this module) without
        tokenizing, else xDSL's parser."""
        tok = self.current_token
        if FAST_BLOCK_ARGS and tok.kind == MLIRTokenKind.L_PAREN:
            found = self._fast_block_args(tok.span.start)
            if found is not None:
                args, end = found
                source = self.lexer.input
                for name_at, name, typ, loc in args:
                    arg = block.insert_arg(typ, len(block.args), loc)
                    self.define_values(name, (arg,), Span(name_at, name_at + len(name) + 1, source),
                                       located=loc is not None)
                self.resume_from(end)
                return block
        return super().parse_block_arguments(block)

    def parse_optional_argument(self, expect_type: bool = True):  # type: ignore[override]
        """xDSL's ``%name: type`` (a function's argument), with the common case read from the
        text: ``: `` right after the name, then a scalar type, or a type whose text
        :meth:`type_at` knows (as :meth:`parse_type` would take it, without lexing its
        tokens); anything else is xDSL's."""
        tok = self.current_token
        if expect_type and tok.kind == MLIRTokenKind.PERCENT_IDENT:
            text = self.source
            at = tok.span.end + 2
            if text.startswith(": ", tok.span.end):
                found = self._argument_type_at(at)
                if found is not None:
                    self.resume_from(found[1])
                    return self.Argument(tok.span, found[0])
        return super().parse_optional_argument(expect_type)

    def _argument_type_at(self, at: int):
        """``(type, end)`` of an argument's type at ``at`` where it is read from the text: a
        scalar, or a type whose text :meth:`type_at` knows (as :meth:`parse_type` would take
        it, without lexing its tokens); None for anything else."""
        text = self.source
        if text.startswith(("tensor<", "!t"), at):
            end = _balanced_end(text, at)
            if end is not None:
                typ = self.type_at(text[at:end])
                if typ is not None:
                    return typ, end
        elif (m := _BARE_TOKEN.match(text, at)) is not None:
            # (a bare identifier: parse_type's scalar, or its parser's)
            typ = SCALAR_TYPES.get(m.group())
            if typ is not None:
                return typ, m.end()
        return None

    def fast_function_header(self):
        """A ``tt.func``'s header in the common shape, read from the text: the current token
        is its visibility (``public``, ``private`` or ``nested``) or its ``@name`` (a bare
        identifier), then ``(%a: T {attrs} loc(...), ...)`` (one argument or more, each
        ``%name: T`` with a type :meth:`type_at` knows or a scalar, an attribute dictionary
        of :func:`_fast_dict`'s kind or one read before, a location :meth:`_known_location`
        knows, each optional), no results, then `` {`` or `` attributes {...}``.  Returns
        ``(visibility or None, name, [(Argument, attributes)...], attributes, end)`` with
        nothing consumed, or None (the caller reads it all with xDSL's
        ``parse_func_op_like``).  The caller resumes at ``end``: the body's ``{`` where
        ``attributes`` is the attribute dictionary (one of :func:`_fast_dict`'s kind, or
        one read before, no name of tt.func's own in it), else ``attributes`` (None: the
        caller's parser reads the dictionary).  What it returns is what xDSL's parser makes
        through this parser's own fast paths (the same type, dictionary and location
        caches); ``test/test_fast_path.py`` (the header off) and ``test/test_fast_attrs.py``
        (the types, dictionaries and locations off) compare."""
        tok = self.current_token
        if not FAST_FUNC_ARGS or tok.kind not in (MLIRTokenKind.BARE_IDENT, MLIRTokenKind.AT_IDENT):
            return None
        text = self.source
        head = _FUNC_HEAD.match(text, tok.span.start)
        if head is None:
            return None
        pos = head.end() + 1
        source = self.lexer.input
        pairs = []
        after_loc = None
        while True:
            m = _FUNC_ARG.match(text, pos)
            if m is None:
                return None
            found = self._argument_type_at(m.end())
            if found is None:
                return None
            typ, pos = found
            attrs: dict = {}
            if text.startswith(" {", pos):
                d = _DICT_TEXT.match(text, pos + 1)
                if d is None or (cached := self._known_dict(d.group())) is None:
                    return None
                attrs = dict(cached)
                pos = d.end()
            loc = None
            if text.startswith(" loc(", pos):
                lm = _LOC_TEXT.match(text, pos + 1)
                if lm is None:
                    return None
                if (loc := self._known_location(lm.group(), pos + 1)) is None:
                    return None
                pos = after_loc = lm.end()
            pairs.append((self.Argument(Span(m.start(1), m.end(1), source), typ, loc), attrs))
            if text.startswith(", ", pos):
                pos += 2
            elif text.startswith(")", pos):
                pos += 1
                break
            else:
                return None
        extra = None
        if text.startswith(" attributes {", pos):
            found = self._attributes_at(pos + 1, _FUNC_RESERVED)
            if found is not None and text.startswith(" {", found[1]):
                extra, pos = found[0], found[1] + 1
            # (else the caller reads `attributes {...}` with the parser, from `attributes`)
        elif text.startswith(" {", pos):
            pos += 1
        else:
            return None
        if after_loc is not None:  # (as parse_optional_location leaves it: the token after)
            self._after_loc = after_loc
        return head.group(1), head.group(2), pairs, extra, pos

    def _known_dict(self, written: str, cache: dict | None = None, brackets: int = 1):
        """The dictionary ``written`` (``{...}``; ``<{...}>`` with ``brackets`` 2 and the
        properties' ``cache``) where this parser has read it before or :func:`_fast_dict`
        reads it (not to be changed: callers copy it); else None."""
        if cache is None:
            cache = self._dict_cache
        cached = cache.get(written)
        if cached is None and FAST_DICTS:
            cached = _fast_dict(written[brackets:-brackets])
            if cached is not None:
                cache[written] = cached
        return cached

    def _attributes_at(self, at: int, reserved) -> tuple[DictionaryAttr, int] | None:
        """``(dictionary, end)`` of ``attributes {...}`` at ``at`` where the dictionary is one
        :meth:`_known_dict` knows and holds no name of ``reserved``; else None."""
        text = self.source
        if not text.startswith("attributes {", at):
            return None
        d = _DICT_TEXT.match(text, at + 11)
        cached = self._known_dict(d.group()) if d is not None else None
        if cached is None or any(n in cached for n in reserved):
            return None
        return DictionaryAttr(cached), d.end()

    def _fast_block_args(self, start: int):
        """``([(offset, name, type, location or None)...], end)`` for the argument list at
        ``start`` (its ``(``) if every argument is ``%name: T`` with a scalar type or one of
        this module's cached types, then ``loc(...)`` of a text already read (or none); None
        for anything else (nothing consumed)."""
        text = self.source
        pos = start + 1
        args = []
        if text.startswith(")", pos):
            return args, pos + 1
        while True:
            m = _BLOCK_ARG.match(text, pos)
            if m is None:
                return None
            name, type_text = m.group(1), m.group(2)
            typ = SCALAR_TYPES.get(type_text)
            pos = m.end()
            if typ is None:
                if not text.startswith(("tensor<", "!"), m.start(2)):
                    return None
                end = _balanced_end(text, m.start(2))
                if end is None or (typ := self._known_type(text[m.start(2):end])) is None:
                    return None
                pos = end
            loc = None
            if text.startswith(" loc(", pos):
                lm = _LOC_TEXT.match(text, pos + 1)
                if lm is None or (loc := self._known_location(lm.group(), pos + 1)) is None:
                    return None
                pos = lm.end()
            args.append((m.start(1), name[1:], typ, loc))
            if text.startswith(", ", pos):
                pos += 2
            elif text.startswith(")", pos):
                return args, pos + 1
            else:
                return None

    def parse_dimension_list(self) -> list[int]:  # type: ignore[override]
        """xDSL's, except that an ``x`` after the last dimension is given back where it is:
        xDSL moves back one character before the next token, which loses the ``x`` of
        ``tensor<512x !tt.ptr<f32>>`` (a blank or a NUL after it; MLIR reads that)."""
        accepted = (MLIRTokenKind.INTEGER_LIT, MLIRTokenKind.QUESTION)
        if self.current_token.kind not in accepted:
            return []
        dims = [self.parse_shape_dimension()]
        while True:
            x_at = self.current_token.span.start
            if self.parse_optional_shape_delimiter() is None:
                return dims
            if self.current_token.kind not in accepted:
                self.resume_from(x_at)
                return dims
            dims.append(self.parse_shape_dimension())

    def parse_block(self):  # type: ignore[override]
        tok = self.current_token
        start = tok.span.start
        if tok.kind == MLIRTokenKind.CARET_IDENT:
            # a label defined twice, the first one branched to before it: xDSL 0.74 takes
            # the second for the first's forward reference again (a KeyError)
            name = tok.text[1:]
            known = self.blocks.get(name)
            if known is not None and known[0] in self.marks.labels:
                self.raise_error(f"redefinition of block '{tok.text}'", start, tok.span.end)
            if FAST_LABELS and self.source.startswith(":", tok.span.end) and (
                known is None or known[1] is None
            ):
                # `^name:` (no arguments): xDSL's _parse_block without lexing the label's
                # `:` apart (a label defined already: xDSL's error, through its parser)
                if known is None:
                    block = Block()
                    self.blocks[name] = (block, tok.span)
                else:
                    block = known[0]
                    self.forward_block_references.pop(name)
                if not Block.is_default_block_name(name):
                    block.name_hint = name
                self.marks.labels[block] = start
                self.resume_from(tok.span.end + 1)
                self.parse_block_body(block)
                return block
        block = super().parse_block()
        self.marks.labels[block] = start
        return block

    def parse_fast_for_header(self):
        """The ``scf.for`` header through the fast path (``ttopt.ir.fast_ops``), the parser
        left at its ``{``; None (nothing consumed) to read it token by token."""
        found = try_fast_for_header(self, self.current_token.span.start)
        if found is None:
            return None
        *header, end = found
        self.resume_from(end)
        return tuple(header)

    def _op_name_at(self, start: int) -> int:
        """Where the op starting at ``start`` has its name (after ``%r, %s:2 =``): MLIR
        locates an op there."""
        if self.source.startswith("%", start):
            m = _RESULT_LIST.match(self.source, start)
            if m is not None:
                return m.end()
        return start

    def _end_of_line_of_last_token(self) -> int:
        """End of the line of the last token of the op just parsed; a comment line between
        two ops is skipped (the op's trailing `loc(#x)` was on the op's own last line)."""
        text = self.source
        i = self.current_token.span.start - 1
        starts = self._starts()
        while True:
            # (after a module: every alias, blanked; the text's end of content found once)
            if self._content_end is None:
                self._content_end = rstripped_length(text, " \t\r\n")
            i = (self._content_end if i + 1 >= self._content_end
                 else skip_blanks_back(text, 0, i + 1)) - 1
            if i < 0:
                break
            line = bisect.bisect_right(starts, i) - 1
            first = self._first_code.get(line)
            if first is None:  # (once per line: a line may start with thousands of blanks)
                first = self._first_code[line] = _BLANKS.match(text, starts[line]).end()
            if not text.startswith("//", first):
                break
            i = starts[line] - 1  # a comment line between two ops: look above
        line = bisect.bisect_right(starts, max(i, 0)) - 1
        return starts[line + 1] - 1 if line + 1 < len(starts) else len(text)

    def _starts(self) -> list[int]:
        if self._line_starts is None:
            self._line_starts = line_starts(self.source)
        return self._line_starts

    def _line_col(self, offset: int) -> tuple[int, int]:
        starts = self._starts()
        i = bisect.bisect_right(starts, offset) - 1
        return i + 1, offset - starts[i] + 1

    # --- xDSL's loop, but an input with no operation is an empty module, as in MLIR
    def parse_module(self, allow_implicit_module: bool = True):  # type: ignore[override]
        ops = []
        while self.current_token.kind != MLIRTokenKind.EOF:
            if self.current_token.kind in (
                MLIRTokenKind.HASH_IDENT, MLIRTokenKind.EXCLAMATION_IDENT
            ):
                start = self.current_token.span.start
                self._parse_alias_definition()
                self.note_alias_definition(self.source[start : self.current_token.span.start].strip())
                continue
            if self.current_token.kind == MLIRTokenKind.FILE_METADATA_BEGIN:
                self._parse_file_metadata()
                continue
            start = self.current_token.span.start
            op = self.parse_optional_operation()
            if op is None:
                self.raise_error("expected an operation")
            ops.append(op)
            self.top_level_spans.append((start, self.current_token.span.start))
        if self.forward_ssa_references:
            self._undefined_value_error()
        for name, ref in self._resolved_refs:
            if ref.first_use is not None:  # (see define_values)
                self._undefined_value_error({name: {0: ref}})
        if self._deferred_locs:
            self._resolve_deferred_locs(ops)
        module = ops[0] if len(ops) == 1 and isinstance(ops[0], ModuleOp) else ModuleOp(ops)
        if self._file_metadata:  # (what the writer prints after the module, printed anew)
            module.file_metadata = tuple(self.source[a:b] for a, b in self._file_metadata)
        return module

    def _parse_alias_definition(self) -> None:
        """``#name = ATTRIBUTE`` or ``!name = TYPE`` at the top level (every well-formed
        ``#name = loc(...)`` is in the location table: a head that is not one gets here),
        with MLIR's words for a malformed head, where MLIR reports it: after the token before
        the wrong one (``emitWrongTokenError``)."""
        text = self.source
        eq = SKIP.match(text, self.current_token.span.end).end()
        attribute = self.current_token.kind == MLIRTokenKind.HASH_IDENT
        if not text.startswith("=", eq):
            what = "attribute" if attribute else "type"
            self._wrong_token(f"expected '=' in {what} alias definition", eq)
        if not attribute:
            self.parse_alias_definition()
            return
        value = SKIP.match(text, eq + 1).end()
        keyword = _LOC_KEYWORD.match(text, value)
        if keyword is not None:  # (`#name = loc` and no `(`)
            self._wrong_token("expected '(' in inline location", SKIP.match(text, keyword.end()).end())
        try:
            self.parse_alias_definition()
        except ParseError as e:
            if e.span.start == value and e.msg == "attribute expected":  # (xDSL's words)
                self._wrong_token("expected attribute value", value)
            raise

    def _wrong_token(self, message: str, at: int):
        """MLIR's ``emitWrongTokenError`` about the token at ``at``."""
        ln, col = self._line_col(wrong_token_offset(self.source, at, at >= len(self.source)))
        raise TTOptError(message, self.file_name, ln, col)

    # --- `{-# dialect_resources: {...}, external_resources: {...} #-}` (anywhere between
    #     top-level ops, as often as wanted): checked as MLIR reads it, kept as text
    _file_metadata: tuple = ()

    def _parse_file_metadata(self) -> None:
        start = self.consume_token().span.start
        self._metadata_list(MLIRTokenKind.FILE_METADATA_END, "'#-}'", self._metadata_entry)
        self._file_metadata += ((start, self.consume_token().span.end),)

    def _metadata_list(self, end_kind, end: str, entry) -> None:
        """MLIR's ``parseCommaSeparatedListUntil``: ``entry`` until ``end_kind`` (not
        consumed); an empty list allowed."""
        if self.current_token.kind == end_kind:
            return
        while True:
            entry()
            if self.current_token.kind == MLIRTokenKind.COMMA:
                self.consume_token()
                continue
            if self.current_token.kind != end_kind:
                self.raise_error(f"expected ',' or {end}")
            return

    def _metadata_colon(self) -> None:
        if self.current_token.kind != MLIRTokenKind.COLON:
            self.raise_error("expected ':'")
        self.consume_token()

    def _metadata_entry(self) -> None:
        tok = self.current_token
        if tok.kind != MLIRTokenKind.BARE_IDENT:
            self.raise_error("expected identifier key in file metadata dictionary")
        self.consume_token()
        self._metadata_colon()
        if tok.text == "dialect_resources":
            self._resource_groups(self._dialect_blobs)
        elif tok.text == "external_resources":
            self._resource_groups(self._tool_resources)
        else:
            self.raise_error(f"unknown key '{tok.text}' in file metadata dictionary", tok.span)

    def _resource_groups(self, body) -> None:
        """``{ name: { ... }, ... }``, ``body(name token)`` after each ``name: {``."""
        if self.current_token.kind != MLIRTokenKind.L_BRACE:
            self.raise_error("expected '{'")
        self.consume_token()

        def group():
            tok = self.current_token
            if tok.kind != MLIRTokenKind.BARE_IDENT:
                self.raise_error("expected identifier key for 'resource' entry")
            self.consume_token()
            self._metadata_colon()
            if self.current_token.kind != MLIRTokenKind.L_BRACE:
                self.raise_error("expected '{'")
            self.consume_token()
            body(tok)
            self.consume_token()  # (the `}` the list stopped at)

        self._metadata_list(MLIRTokenKind.R_BRACE, "'}'", group)
        self.consume_token()

    def _resource_key(self, what: str, colon: bool = True) -> str:
        """A resource's key: a bare name, or (Triton 3.3+) a string."""
        strings = versions.current().release >= (3, 3)
        if self.current_token.kind == MLIRTokenKind.STRING_LIT and not strings:
            self.raise_error(f"expected identifier key for '{what}' entry")
        key = self.parse_optional_identifier_or_str_literal()
        if key is None:
            self.raise_error(f"expected identifier key for '{what}' entry")
        if colon:
            self._metadata_colon()
        return key

    def _dialect_blobs(self, dialect) -> None:
        """A dialect's resources: only the builtin dialect's (blobs) have entries in the
        dialects Triton loads; the others take none (MLIR's words for each case)."""
        name = dialect.text
        release = versions.current().release
        if name != "builtin":
            if not any(low <= release <= high for low, high in _RESOURCE_DIALECTS.get(name, ())):
                if name not in _KNOWN_DIALECTS:
                    self.raise_error(f"dialect '{name}' is unknown", dialect.span)
                self.raise_error(f"unexpected 'resource' section for dialect '{name}'")
            if self.current_token.kind != MLIRTokenKind.R_BRACE:
                at = self.current_token.span
                key = self._resource_key("resource")
                self.raise_error(f"unknown 'resource' key '{key}' for dialect '{name}'", at)
            return

        def blob():
            key = self._resource_key("resource")
            tok = self.current_token
            if tok.kind == MLIRTokenKind.EOF:
                self.raise_error("expected a value")
            self.consume_token()
            hex_digits = tok.text[3:-1] if tok.kind == MLIRTokenKind.STRING_LIT else ""
            if (tok.kind != MLIRTokenKind.STRING_LIT or not tok.text.startswith('"0x')
                    or len(hex_digits) % 2 or not _HEX_DIGITS.fullmatch(hex_digits)):
                self.raise_error(f"expected hex string blob for key '{key}'", tok.span)
            if len(hex_digits) < 8:
                self.raise_error(f"expected hex string blob for key '{key}' to encode "
                                 "alignment in first 4 bytes", tok.span)
            align = int.from_bytes(bytes.fromhex(hex_digits[:8]), "little")
            if align & (align - 1) and release > (2, 1):
                self.raise_error(f"expected hex string blob for key '{key}' to encode "
                                 f"alignment in first 4 bytes, but got non-power-of-2 value: "
                                 f"{align}", tok.span)

        self._metadata_list(MLIRTokenKind.R_BRACE, "'}'", blob)

    def _tool_resources(self, owner) -> None:
        """Resources of a tool (``mlir_reproducer``): Triton registers none; MLIR warns and
        skips each value (one token)."""
        def entry():
            self._resource_key("external_resources")
            if self.current_token.kind == MLIRTokenKind.EOF:
                self.raise_error("expected a value")
            self.consume_token()

        self._metadata_list(MLIRTokenKind.R_BRACE, "'}'", entry)

    def _undefined_value_error(self, references=None):
        """A value used and never defined: the error is at its first use, the operand itself
        (as MLIR reports it), not at the first place its name appears in the text."""
        first = None  # (offset of the op, name)
        if references is None:
            references = self.forward_ssa_references
        for name, refs in references.items():
            for value in refs.values():
                for use in value.uses:
                    at = self.offsets.get(use.operation)
                    if at is not None and (first is None or at < first[0]):
                        first = (at, name)
        if first is None:  # (not used by any op read: cannot happen; say it anyway)
            names = ", ".join("%" + n for n in self.forward_ssa_references)
            self.raise_error(f"values used but not defined: [{names}]")
        at, name = first
        eol = self.source.find("\n", at)
        end = len(self.source) if eol < 0 else eol
        name_re = "%" + re.escape(name) + r"(?![\w$.-])"
        # (a use, not the name's definition in the op's own header: `scf.for %i = .. to %i`)
        m = (re.compile(name_re + r"(?![ \t]*=)").search(self.source, at, end)
             or re.compile(name_re).search(self.source, at, end))
        pos = m.start() if m else at
        self.raise_error(f"use of undefined value '%{name}'", pos, pos + len(name) + 1)

    # --- an op's name, looked up as MLIR looks it up (xDSL would also try the names of the
    #     dialects of the ops around it: `splat` in a `tt.func` read as `tt.splat`); unknown
    #     ops: point at the op name, not past it
    def get_op_by_name(self, name: str):  # type: ignore[override]
        ctx = self.ctx
        op_type = ctx.get_optional_op(name)
        if op_type is not None:
            return op_type
        start = self.source.rfind(name, 0, self.current_token.span.start)
        if start < 0:
            start = self.current_token.span.start
        if start and self.source[start - 1] == '"':  # generic form: the name as written
            if "." in name and ctx.get_optional_dialect(name.split(".", 1)[0]) is not None:
                self.raise_error(
                    f"unregistered operation '{name}' found in dialect ('{name.split('.', 1)[0]}') "
                    "that does not allow unknown operations", start - 1, start)
            at = start + len(name) + 1  # (MLIR reports it at the `(` after the name)
            self.raise_error(
                "operation being parsed with an unregistered dialect. If this is intended, "
                "please use -allow-unregistered-dialect with the MLIR tool used", at, at + 1)
        if "." not in name:
            # a name without a dialect: in the default dialect of the op around it, which
            # is `builtin` for a module's body and the top level, none in any op of Triton's
            default = "builtin" if self.dialect_stack[-1] == "builtin" else ""
            op_type = ctx.get_optional_op(f"{default}.{name}") if default else None
            if op_type is not None:
                return op_type
            if default:
                self.raise_error(f"custom op '{name}' is unknown (tried '{default}.{name}' as well)",
                                 start, start + len(name))
            self.raise_error(f"Dialect `' not found for custom op '{name}'  (tried '.{name}' as well)",
                             start, start + len(name))
        prefix = name.split(".", 1)[0]
        if ctx.get_optional_dialect(prefix) is None:
            self.raise_error(f"Dialect `{prefix}' not found for custom op '{name}'", start,
                             start + len(name))
        self.raise_error(f"custom op '{name}' is unknown", start, start + len(name))

    # --- memoised types: `tensor<...>` and `!tt.`/`!ttg.` types are looked up by text, and
    #     each scalar type is one object: equal types are mostly the same object, which the
    #     verifier's comparisons (and the fast path's) take as a short cut
    def parse_optional_type(self):  # type: ignore[override]
        tok = self.current_token  # (xDSL parses a tensor's element type here)
        if tok.kind == MLIRTokenKind.BARE_IDENT:
            scalar = SCALAR_TYPES.get(tok.text)
            if scalar is not None:
                self.consume_token()
                return scalar
            if tok.text == "tensor" and not self._in_type and not self._in_dialect_type:
                return self.parse_type()  # (looked up by its text there)
        elif tok.kind == MLIRTokenKind.EXCLAMATION_IDENT and not self._in_dialect_type:
            start = tok.span.start  # `!tt.ptr<f16>` in a tensor type (not in another `!t`
            text = self.source  # type: a lookup per level of `!tt.ptr<!tt.ptr<...>>` would
            end = _balanced_end(text, start) if text.startswith("!t", start) else None
            if end is not None:  # scan the rest each time, quadratic)
                key = text[start:end]
                cached = self._known_type(key)
                if cached is not None:
                    self.resume_from(end)
                    return cached
                self._in_dialect_type = True
                try:
                    result = super().parse_optional_type()
                finally:
                    self._in_dialect_type = False
                if result is not None and self.current_token.span.start >= end:
                    self._remember_type(key, result)
                return result
        return super().parse_optional_type()

    def type_at(self, key: str):
        """The type spelled ``key`` (a whole type text whose brackets balance on its line,
        starting ``tensor<`` or ``!t``), where :meth:`parse_type` would find it without
        reading: this module's or the shared cache, or :func:`_fast_type` (then remembered,
        as parse_type remembers it); None otherwise (the caller then lets parse_type read
        it).  The lexer is not moved: a fast path that reads a line's types by their text
        spares two tokens a type."""
        if self._in_dialect_type or self._in_type and not key.startswith("!t"):
            return None  # (parse_type hands these to xDSL's parser)
        cached = self._known_type(key)
        if cached is None and FAST_TYPES:
            cached = _fast_type(key, self.attribute_aliases, self._encodings)
            if cached is not None:
                self._remember_type(key, cached)
        return cached

    def _known_type(self, key: str):
        """The type spelled ``key``: this module's cache, else the one shared by every module
        read in this process (types are immutable values; a text naming an alias (``#blocked``)
        is keyed with the alias definitions read so far, since it means what they say)."""
        found = self.type_cache.get(key)
        if found is None:
            found = _SHARED_TYPES.get((key, self._env_of(key)))
            if found is not None:
                self.type_cache[key] = found
        return found

    def _remember_type(self, key: str, typ) -> None:
        self.type_cache[key] = typ
        if _RELEASE_TYPES.search(key):  # (a type some releases cannot read: this module's)
            return
        if len(_SHARED_TYPES) >= _SHARED_TYPES_MAX or len(_ALIAS_ENVS) >= _SHARED_TYPES_MAX:
            clear_shared_types()
        _SHARED_TYPES[(key, self._env_of(key))] = typ

    def _env_of(self, key: str) -> int:
        """-1 where the text alone decides (no `#alias` in it, no `!alias = ...` type alias
        defined so far), else the number of the alias definitions read so far."""
        if "#" not in key and not any(t.startswith("!") for t in self._alias_texts):
            return -1
        if self._alias_env is None:
            env = tuple(self._alias_texts)
            found = _ALIAS_ENVS.get(env)
            if found is None:
                found = _ALIAS_ENVS[env] = next(_ENV_NUMBERS)  # (never reused)
            self._alias_env = found
        return self._alias_env

    def parse_optional_attribute(self):  # type: ignore[override]
        # a type where an attribute may stand (`-> (tensor<..>, ..)` of scf.for, declarative
        # type directives): looked up by its text as in parse_type
        tok = self.current_token
        if tok.kind == MLIRTokenKind.BARE_IDENT and not self._in_type and not self._in_dialect_type:
            if tok.text == "tensor" or tok.text in SCALAR_TYPES:
                return self.parse_optional_type()
            if tok.text == "dense_resource":
                return self._parse_dense_resource()
            if tok.text == "loc":
                return self._parse_location_attribute(tok.span.start)
        elif tok.kind == MLIRTokenKind.EXCLAMATION_IDENT:
            return self.parse_optional_type()
        elif tok.kind == MLIRTokenKind.STRING_LIT and tok.span.start == self._typed_string_at:
            return self._parse_typed_string()
        elif tok.kind == MLIRTokenKind.L_SQUARE:  # (each element may be a typed string)
            return ArrayAttr(self.parse_comma_separated_list(
                self.Delimiter.SQUARE, self._parse_generic_attribute))
        return super().parse_optional_attribute()

    def _parse_location_attribute(self, start: int):
        """``loc(...)`` as an attribute (``{l = loc(#loc1)}``, in an alias definition too):
        MLIR resolves an alias in it on the spot, as any attribute alias (only an op's or an
        argument's trailing location may name one defined further down, or nowhere until the
        input's end): read as a location nested in another."""
        m = _LOC_OF_ALIAS.match(self.source, start)
        if m is not None:
            defined_at = self.loc_alias_offsets.get(m.group(1))
            if defined_at is not None and defined_at > start:  # (MLIR: after the name)
                self.raise_error(f"undefined symbol alias '{m.group(1)}'", m.end(), m.end())
        nested, self._nested_loc = self._nested_loc, True
        try:
            return super().parse_optional_attribute()
        finally:
            self._nested_loc = nested

    _typed_string_at = -1  # (where a typed string may start: see parse_attribute_entry)

    # --- where MLIR reads an attribute with no type expected (a dictionary's or properties'
    #     entry, an array's element), a string may have one: `"x" : i32` (Triton reads it
    #     there in every release; an op's own string, `tt.assert %c, "m" : i1`, takes none)
    def parse_attribute_entry(self):  # type: ignore[override]
        if (name := self.parse_optional_identifier_or_str_literal()) is None:
            self.raise_error("Expected bare-id or string-literal here as part of attribute entry!")
        if self.parse_optional_punctuation("=") is None:
            return name, UnitAttr()
        return name, self._parse_generic_attribute()

    def _parse_generic_attribute(self):
        self._typed_string_at = self.current_token.span.start
        return self.parse_attribute()

    def _parse_typed_string(self):
        self._typed_string_at = -1
        attr = super().parse_optional_attribute()  # (the StringAttr)
        if self.current_token.kind != MLIRTokenKind.COLON:
            return attr
        self.consume_token()
        wide = _WIDE_INT.match(self.source, self.current_token.span.start)
        if wide is not None:
            self._check_int_width(wide.group(1), wide.start(1))
        typ = self.parse_type()
        return attr if isinstance(typ, NoneType) else TypedStringAttr(attr, typ)

    # --- `dense_resource<key> : T`: the key as written (xDSL's builtin dialect renames a
    #     key declared before, in any module read in this process)
    def _parse_dense_resource(self):
        self.consume_token()
        self.parse_punctuation("<", " in dense_resource attribute")
        key = self._resource_key("resource", colon=False)
        self.parse_punctuation(">", " in dense_resource attribute")
        self.parse_punctuation(":", " in dense_resource attribute")
        at = self.current_token.span.start
        typ = self.parse_type()
        if not isinstance(typ, ShapedType | UnrankedTensorType):
            self.raise_error("`dense_resource` expected a shaped type", at, self.pos)
        # (unchecked: xDSL's takes no unranked tensor, which MLIR does)
        return unchecked(DenseResourceAttr, StringAttr(key), typ)

    def parse_type(self):  # type: ignore[override]
        tok = self.current_token
        if tok.kind == MLIRTokenKind.BARE_IDENT:  # i32, f16, index...: one shared object each
            scalar = SCALAR_TYPES.get(tok.text)
            if scalar is not None:
                self.consume_token()
                return scalar
        start = tok.span.start
        text = self.source
        if self._in_dialect_type or not text.startswith("!t", start) and (
            self._in_type or not text.startswith("tensor<", start)
        ):
            return super().parse_type()  # (nested tensors: one lookup for the outermost only;
            # a `!tt.ptr<..>` in a tensor is looked up too: one object for equal pointer types)
        end = _balanced_end(text, start)
        outer, outer_dialect = self._in_type, self._in_dialect_type
        if end is None:  # (a type over several lines, or with a string inside: not looked
            # up; read as one, without coming back here through parse_optional_type)
            self._in_type = True
            self._in_dialect_type = text.startswith("!t", start)
            try:
                return super().parse_type()
            finally:
                self._in_type, self._in_dialect_type = outer, outer_dialect
        key = text[start:end]
        cached = self._known_type(key)
        if cached is not None:
            self.resume_from(end)
            return cached
        if FAST_TYPES:
            fast = _fast_type(key, self.attribute_aliases, self._encodings)
            if fast is None and key.endswith(">>") and not self._in_type:
                self._in_type = True  # (as in a tensor type read by xDSL)
                try:
                    if self._read_encoding(key, start):
                        fast = _fast_type(key, self.attribute_aliases, self._encodings)
                finally:
                    self._in_type = outer
            if fast is not None:
                self.resume_from(end)
                self._remember_type(key, fast)
                return fast
        self._in_type = True
        self._in_dialect_type = text.startswith("!t", start)
        try:
            result = super().parse_type()
        finally:
            self._in_type, self._in_dialect_type = outer, outer_dialect
        if self.current_token.span.start >= end:
            self._remember_type(key, result)
        return result

    def _read_encoding(self, key: str, start: int) -> bool:
        """The layout written out in the tensor type ``key`` (at ``start``), read by xDSL's
        parser alone and kept by its text for :func:`_fast_type` (the tensor type around it
        is what _fast_type checks).  False (the parser back at ``start``) where ``key`` is no
        such type or the layout's text is not all that the parser read; an invalid layout is
        reported where xDSL's reading of the whole type reports it."""
        m = _FAST_TYPE.fullmatch(key)
        if m is None or m.group(5) is None or not m.group(5).endswith(">"):
            return False
        at = start + m.start(5)
        self.resume_from(at)
        encoding = self.parse_attribute()
        if self.current_token.span.start != start + m.end(5):
            self.resume_from(start)
            return False
        self._encodings[m.group(5)] = encoding
        return True

    # --- `array<T: ...>`: MLIR takes any integer or float type whose width is a multiple
    #     of 8 (and i1); xDSL packs only i8 to i64 and f16 to f64 (i128, f80: an internal
    #     error), and took widths MLIR refuses (i7, tf32)
    def parse_dense_array(self):  # type: ignore[override]
        start = self.pos
        self.parse_characters("<", " in dense array")
        pos = self.pos
        elt = self.parse_attribute()
        if isinstance(elt, IntegerType):
            width = elt.width.data
        elif isinstance(elt, AnyFloat):
            width = elt.bitwidth
        else:
            width = None
        if width is not None and width != 1 and width % 8:
            self.raise_error("element type bitwidth must be a multiple of 8", pos, self.pos)
        if not (isinstance(elt, IntegerType) and width not in (1, 8, 16, 32, 64)
                or isinstance(elt, Float80Type | Float128Type)):
            self.resume_from(start)
            return super().parse_dense_array()
        if self.parse_optional_punctuation(">") is not None:
            return WideDenseArrayAttr(elt, StringAttr(""))
        self.parse_characters(":", " in dense array")
        first = self.pos
        if isinstance(elt, IntegerType):
            signed = elt.signedness.data == Signedness.SIGNED
            unsigned = elt.signedness.data == Signedness.UNSIGNED
            low = -(1 << (width - 1)) if not unsigned else 0
            high = (1 << width) - 1 if not signed else (1 << (width - 1)) - 1

            def value() -> None:
                at = self.pos
                if self.source.startswith(("true", "false"), at):  # (MLIR: for i1 alone)
                    self.raise_error("expected i1 type for 'true' or 'false' values", at, at + 1)
                v = self.parse_integer(allow_boolean=False, allow_negative=True)
                if not low <= v <= high:  # (MLIR: after the literal)
                    end = _INT_LITERAL_TOKEN.match(self.source, at).end()
                    self.raise_error("integer constant out of range", end, end + 1)
        else:
            def value() -> None:
                self.parse_float()
        self.parse_comma_separated_list(self.Delimiter.NONE, value)
        last = self.pos
        self.parse_characters(">", " in dense array")
        return WideDenseArrayAttr(elt, StringAttr(self.source[first:last].rstrip()))

    # --- a number whose type is a float type, as MLIR reads it: a decimal integer is no
    #     float (`0 : f32`), a hexadecimal one is its bits and has no sign (`-0x1 : f32`)
    def parse_optional_builtin_int_or_float_attr(self):  # type: ignore[override]
        start = self.current_token.span.start
        m = _INT_LITERAL.match(self.source, start)
        if self.current_token.kind in _NUMBER_START:  # (`1 : i99999999999`: xDSL computes
            wide = _WIDE_INT_TYPE.match(self.source, start)  # the range, without end)
            if wide is not None:
                self._check_int_width(wide.group(1), wide.start(1))
        try:
            attr = super().parse_optional_builtin_int_or_float_attr()
        except OverflowError:  # (xDSL packs the value into the float type's bytes)
            return self._float_out_of_range(start, m)
        if m is not None and isinstance(attr, FloatAttr):
            self._float_from_integer(m.group(1) is not None, m.group(2), m.start(2))
        return attr

    def _check_int_width(self, digits: str, at: int) -> None:
        """MLIR's largest integer type is 2**24 - 1 bits wide (``i16777215``); a width that
        is no 32-bit unsigned number is an invalid one (its words for each; ``at``: where the
        digits start)."""
        if len(digits) > 10 or int(digits) >= 1 << 32:
            self.raise_error("invalid integer width", at - 1, at + len(digits))
        if int(digits) > _MAX_INT_WIDTH:
            self.raise_error(f"integer bitwidth is limited to {_MAX_INT_WIDTH} bits", at - 1,
                             at + len(digits))

    def parse_optional_integer_or_float_type(self):  # type: ignore[override]
        tok = self.current_token
        if tok.kind == MLIRTokenKind.BARE_IDENT:
            m = _INT_TYPE_NAME.fullmatch(tok.text)
            if m is not None and len(m.group(1)) > 7:  # (i16777215 has 8 digits)
                self._check_int_width(m.group(1), tok.span.start + m.start(1))
            elif tok.text in versions.FLOAT_TYPES_SINCE and not versions.current().knows_type(tok.text):
                # (an older MLIR has no such keyword: an identifier where a type must be)
                self._wrong_token("expected non-function type", tok.span.start)
        return super().parse_optional_integer_or_float_type()

    def _float_out_of_range(self, start: int, m) -> FloatAttr:
        """A float literal too large for its type, as MLIR reads it: a decimal one rounds to
        an infinity of its sign (``70000.0 : f16`` is ``0x7C00``), a hexadecimal one (its
        bits) wider than the type is an error."""
        if m is not None and m.group(2)[:2] in ("0x", "0X"):
            at = m.start(2)
            self.raise_error("hexadecimal float constant out of range for type", at,
                             at + len(m.group(2)))
        self.resume_from(start)
        value = self.parse_number()
        self.parse_punctuation(":")
        typ = self.parse_type()
        if not isinstance(typ, AnyFloat) or not isinstance(value, float):
            self.raise_error("number out of range for its type", start)
        return FloatAttr(math.copysign(math.inf, value), typ)

    def _float_from_integer(self, negative: bool, literal: str, at: int) -> None:
        """MLIR's error for the integer literal ``literal`` (at ``at``, after its sign) read
        as a float: a decimal one is refused, a hexadecimal one (its bits) may not be
        negative."""
        if literal[:2] not in ("0x", "0X"):
            self.raise_error("unexpected decimal integer literal for a floating point value",
                             at, at + len(literal))
        if negative:
            self.raise_error("hexadecimal float literal should not have a leading minus",
                             at, at + len(literal))

    # --- the type after `dense<...> :` (xDSL rebuilds an IRDL constraint on every call)
    def parse_dense_literal_type(self):  # type: ignore[override]
        pos = self.pos
        typ = self.parse_type()
        if not isinstance(typ, TensorType | VectorType) or not isinstance(
            typ.element_type, AnyFloat | IntegerType | IndexType
        ) and not (isinstance(typ, TensorType) and isinstance(typ.element_type, ComplexType)):
            self.raise_error("dense literal expects a tensor of integers, floats or complex "
                             "numbers", pos, self.pos)
        return typ

    # --- `(re, im)` in a dense literal: its two parts kept as elements of their own (xDSL
    #     wants both of one kind and converts them as one: `(0x7F800000, 1.0)` is read
    #     here as MLIR reads it, the hexadecimal part as the float's bits); a part may be a
    #     `(..)` itself, whose parts MLIR reads as more numbers (_dense_parts counts them)
    def parse_optional_complex(self):  # type: ignore[override]
        if self.current_token.kind != MLIRTokenKind.L_PAREN:
            return None
        start = self.consume_token().span.start
        parts = []
        for sep, after in ((MLIRTokenKind.COMMA, "expected ',' between complex elements"),
                           (MLIRTokenKind.R_PAREN, "expected ')' after complex elements")):
            if self.current_token.kind == MLIRTokenKind.L_PAREN:
                parts.extend(self.parse_optional_complex()[0])
            else:
                found = self.parse_optional_bool_int_or_float()
                if found is None:
                    self.raise_error("expected element literal of primitive type")
                value, span = found
                parts.append(self.tensor_literal_element(value < 0, value, span))
            if self.current_token.kind != sep:
                self.raise_error(after)
            end = self.consume_token().span.end
        return tuple(parts), Span(start, end, self.current_token.span.input)

    # --- dense literals: hex floats as bits, splats by repetition
    def parse_dense_int_or_fp_elements_attr(self, type):  # type: ignore[override]
        lt = self.current_token.span.start
        try:
            return self._parse_dense(lt, type)
        except NotImplementedError as e:
            # (xDSL stores dense elements packed by `struct`: no integers past 64 bits, no
            # f80 or f128)
            if "Format not implemented" in str(e):
                what = f"{str(e).split()[-1]} (an integer wider than 64 bits)"
            else:  # (xDSL's other format it lacks: f80, f128, e.g. a hex string's)
                eol = self.source.find("\n", lt)
                m = _WIDE_FLOAT.search(self.source, lt, len(self.source) if eol < 0 else eol)
                if m is None:
                    raise
                what = f"{m.group(1)} (a float wider than 64 bits)"
            self.raise_error(f"dense constants of {what} are not supported by ttopt: xDSL "
                             "cannot store them (Triton reads them)", lt, self.pos)

    def _parse_dense(self, lt: int, type):
        self.parse_punctuation("<", " in dense attribute")
        if self.current_token.kind in (MLIRTokenKind.STRING_LIT, MLIRTokenKind.GREATER):
            self.resume_from(lt)
            return super().parse_dense_int_or_fp_elements_attr(type)
        if self.current_token.kind == MLIRTokenKind.L_SQUARE:
            fast = self._parse_dense_list(lt, type)
            if fast is not None:
                return fast
        values, shape = self.parse_tensor_literal()
        self.parse_punctuation(">", " in dense attribute")
        if type is None:
            self.parse_punctuation(":", " in dense attribute")
            type = self.parse_dense_literal_type()
        n = math.prod(type.get_shape())
        if shape and isinstance(type.element_type, ComplexType):
            self._check_dense_shape(type, shape)  # (before the numbers are counted)
        values, elem, splat, keep = self._dense_parts(lt, values, shape, type, n)
        if isinstance(elem, Float80Type | Float128Type):
            self.raise_error(f"dense constants of {elem} (a float wider than 64 bits) are not "
                             "supported by ttopt: xDSL cannot store them (Triton reads them)",
                             lt, self.pos)
        size = elem.compile_time_size
        chunks = []
        for v in values:
            text = v.span.text.lstrip("-")
            if isinstance(elem, AnyFloat):
                lit = _LITERAL_IN.search(v.span.text)
                at = v.span.start + (lit.start() if lit else 0)
                if text in ("true", "false"):
                    self.raise_error("expected floating point literal", at, at + len(text))
                if lit is not None and _INT_LITERAL_TEXT.fullmatch(lit.group()):
                    self._float_from_integer(v.span.text.startswith("-"), lit.group(), at)
            if isinstance(elem, AnyFloat) and text[:2] in ("0x", "0X"):
                bits = int(text, 16)
                if bits >= 1 << (8 * size):
                    self.raise_error("hexadecimal float literal too large", v.span)
                chunks.append(bits.to_bytes(size, "little"))
            else:
                value = v.to_type(self, elem)
                try:
                    one = DenseIntOrFPElementsAttr.from_list(_scalar_tensor(elem), [value])
                except ValueError:  # (xDSL: out of the type's range; MLIR says the same)
                    self.raise_error("integer constant out of range for attribute", v.span)
                except OverflowError:  # a float past the type's largest: MLIR rounds to inf
                    one = DenseIntOrFPElementsAttr.from_list(
                        _scalar_tensor(elem), [math.copysign(math.inf, value)]
                    )
                chunks.append(one.data.data)
        raw = b"".join(chunks[:keep])
        if shape:
            self._check_dense_shape(type, shape)
        if splat:
            raw = raw * n
        return DenseIntOrFPElementsAttr(type, BytesAttr(raw))

    def _check_dense_shape(self, type, shape: list) -> None:
        if list(type.get_shape()) != shape:
            self.raise_error(f"Shape mismatch in dense literal. Expected {list(type.get_shape())} "
                             f"shape from the type, but got {shape} shape.")

    def _dense_parts(self, lt: int, values: list, shape: list, type, n: int):
        """``(numbers, their type, splat, kept)``: the elements of a dense literal as numbers
        of the tensor's scalar type (a complex element is two: its parts), whether the
        literal is one element to repeat, and how many of the numbers it keeps (None: all).
        Where MLIR reads them:
        * a tensor of complex numbers: the numbers of the literal, the parts of each `(..)`
          (nested ones too) and the plain ones, in order, read as pairs, as each release
          counts them (``Syntax.complex_count``);
        * a pair for a tensor of two (real) numbers: its parts are those two numbers
          (`dense<(1.0, 2.0)> : tensor<2xf32>` is `dense<[1.0, 2.0]>`); any other pair aborts
          Triton."""
        elem = type.element_type
        pairs = sum(isinstance(v.value, tuple) for v in values)
        if isinstance(elem, ComplexType):
            numbers = [p for v in values for p in (v.value if isinstance(v.value, tuple) else (v,))]
            count = len(numbers) // 2
            if not versions.current().complex_count and count in (n, 1):  # (3.3 and before:
                # as many pairs as elements, or one to repeat; the rest is read, then dropped)
                return numbers, elem.element_type, count != n, 2 * count
            if len(numbers) != (2 * n if shape else 2):
                whole = f"('{elem}') expected 2" if not shape else f"('{type}') expected {2 * n}"
                at = lt - 5 if self.source.startswith("dense", lt - 5) else lt
                self.raise_error(f"parsed {len(numbers)} elements, but type {whole} elements", at, lt)
            return numbers, elem.element_type, not shape, None
        if not pairs:
            return values, elem, not shape, None
        if not shape and n == 2 and len(values[0].value) == 2:
            return list(values[0].value), elem, False, None
        v = next(v for v in values if isinstance(v.value, tuple))
        self.raise_error(f"a complex element in a dense literal of {elem} (Triton aborts: it "
                         "reads one only as the two elements of a 2-element tensor)", v.span)


    def _parse_dense_list(self, lt: int, type):
        """``dense<[...]>`` in linear time: the bracket skeleton is compared with the type's
        shape as one string and the elements are packed in bulk (xDSL's element-by-element
        path took 48 s for a million elements).  None: not a plain numeric list, xDSL's
        path handles (and reports) it."""
        text = self.source
        m = _DENSE_LIST.match(text, lt + 1)
        if m is None or not text.startswith(">", m.end()):
            return None
        body = m.group()
        self.resume_from(m.end())
        self.parse_punctuation(">", " in dense attribute")
        if type is None:
            self.parse_punctuation(":", " in dense attribute")
            type = self.parse_dense_literal_type()
        if isinstance(type.element_type, ComplexType | Float80Type | Float128Type):
            self.resume_from(lt + 1)  # (a complex's numbers read as pairs: _dense_parts;
            return None  # f80, f128: refused there)
        shape = list(type.get_shape())
        tokens = _DENSE_ELEMENT.findall(body)
        if _DENSE_SKELETON.sub("", body) != _skeleton(shape) or len(tokens) != math.prod(shape):
            self.raise_error(
                f"dense literal does not have the shape {shape} of its type", lt, m.end() + 1
            )
        try:
            raw = _pack_elements(type.element_type, tokens)
        except _ElementError as e:  # (at the element, as MLIR says it)
            at = m.start() + next(itertools.islice(_DENSE_ELEMENT.finditer(body), e.index, None)).start()
            at += len(tokens[e.index]) - len(tokens[e.index].lstrip("-"))
            self.raise_error(e.message, at, at + len(tokens[e.index].lstrip("-")))
        except ValueError as e:
            self.raise_error(f"{e} in dense literal", lt, m.end() + 1)
        return DenseIntOrFPElementsAttr(type, BytesAttr(raw))


_MAX_INT_WIDTH = (1 << 24) - 1
_DIGITS_LIMIT = "for integer string conversion"  # (Python's ValueError past 4,300 digits)
_INT_TYPE_NAME = re.compile(r"[su]?i([0-9]+)")
# a float type keyword that not every release has (versions.FLOAT_TYPES_SINCE)
# (in a shape too: `4xf8E3M4`)
_RELEASE_TYPES = re.compile(r"(?:" + "|".join(versions.FLOAT_TYPES_SINCE) + r")(?![\w$.])")
_NUMBER_START = (MLIRTokenKind.INTEGER_LIT, MLIRTokenKind.FLOAT_LIT, MLIRTokenKind.MINUS)
_HEX_DIGITS = re.compile(r"[0-9A-Fa-f]*")
# dialects other than `builtin` a `dialect_resources` section may name, with no entries, and
# the releases that read that (each release's parser asked); the other dialects Triton loads
_RESOURCE_DIALECTS = {
    "llvm": (((2, 1), (3, 3)),),
    "triton_gpu": (((2, 1), (3, 2)),),
    "ttg": (((3, 3), (9, 9)),),
    "ttng": (((3, 3), (9, 9)),),
}
_KNOWN_DIALECTS = frozenset((
    "tt", "ttg", "ttng", "triton_gpu", "triton_nvidia_gpu", "arith", "scf", "math", "cf",
    "gpu", "llvm", "nvvm", "ub", "nvgpu", "nvws", "gluon",
))
# a number or `:` followed by an integer type of 8 digits or more (`1 : i99999999999`)
_WIDE_INT = re.compile(r"[su]?i([0-9]{8,})(?![0-9])")
_WIDE_INT_TYPE = re.compile(r"(?:-[ \t\n]*)?[0-9A-Za-z_.+-]*[ \t\n]*:[ \t\n]*" + _WIDE_INT.pattern)
_DENSE_LIST = re.compile(r"[ \t\n]*\[[\[\] \t\n,0-9A-Za-z.+-]*")
_DENSE_ELEMENT = re.compile(r"[^\s,\[\]]+")
_DENSE_SKELETON = re.compile(r"[^\[\],]+")
_FLOAT_TEXT = re.compile(r"-?[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?")
_MLIR_FLOAT_TEXT = re.compile(r"-?[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?")  # (MLIR's: with its point)
_INT_LITERAL_TEXT = re.compile(r"0[xX][0-9A-Fa-f]+|[0-9]+")  # (MLIR's integer token)
_INT_LITERAL = re.compile(r"(-[ \t\n]*)?(0[xX][0-9A-Fa-f]+|[0-9]+)(?![0-9A-Za-z_.$])")
_LITERAL_IN = re.compile(r"0[xX][0-9A-Fa-f]+|[0-9][0-9.eE+-]*|true|false")
_HEX_TEXT = re.compile(r"0x[0-9A-Fa-f]+")
_INT_TEXT = re.compile(r"-?(?:[0-9]+|0x[0-9A-Fa-f]+)")


def _skeleton(shape: list[int]) -> str:
    """The brackets and commas of a dense literal of ``shape``: [2, 3] -> '[[,,],[,,]]'."""
    inner = ""
    for n in reversed(shape):
        inner = "[" + ",".join([inner] * n) + "]"
    return inner


class _ElementError(ValueError):
    """MLIR's error for element ``index`` of a dense literal (reported at that element)."""

    def __init__(self, message: str, index: int):
        super().__init__(message)
        self.message, self.index = message, index


def _float_element_error(tokens: list[str]) -> _ElementError | None:
    """What MLIR says of the first element of ``tokens`` that is no float literal: a decimal
    integer, a negative hexadecimal one, ``true``/``false``; None if there is none."""
    for i, t in enumerate(tokens):
        body = t.lstrip("-")
        if body in ("true", "false"):
            return _ElementError("expected floating point literal", i)
        if _INT_LITERAL_TEXT.fullmatch(body):
            if body[:2] not in ("0x", "0X"):
                return _ElementError("unexpected decimal integer literal for a floating point value", i)
            if t.startswith("-"):
                return _ElementError("hexadecimal float literal should not have a leading minus", i)
    return None


def _pack_elements(elem, tokens: list[str]) -> bytes:
    """Little-endian element bytes for ``tokens`` (MLIR literal texts), as xDSL stores them;
    hexadecimal floats are bit patterns.  ValueError for a literal the type cannot hold
    (:class:`_ElementError` where MLIR names the element)."""
    size = elem.compile_time_size
    if isinstance(elem, AnyFloat):
        if all(_MLIR_FLOAT_TEXT.fullmatch(t) for t in tokens):
            try:
                return elem.pack([float(t) for t in tokens])
            except (OverflowError, struct.error) as e:
                raise ValueError(f"float literal out of range for {elem}") from e
        error = _float_element_error(tokens)
        if error is not None:
            raise error
        chunks = []
        for t in tokens:
            if _HEX_TEXT.fullmatch(t):
                bits = int(t, 16)
                if bits >= 1 << (8 * size):
                    raise ValueError("hexadecimal float literal too large")
                chunks.append(bits.to_bytes(size, "little"))
            elif _MLIR_FLOAT_TEXT.fullmatch(t):
                try:
                    chunks.append(elem.pack([float(t)]))
                except (OverflowError, struct.error) as e:
                    raise ValueError(f"float literal out of range for {elem}") from e
            else:
                raise ValueError(f"invalid float literal '{t}'")
        return b"".join(chunks)
    if isinstance(elem, IntegerType | IndexType):
        width = 64 if isinstance(elem, IndexType) else elem.width.data
        values = []
        for t in tokens:
            if t in ("true", "false"):
                if width != 1:
                    raise ValueError(f"boolean literal '{t}' for {elem}")
                values.append(-1 if t == "true" else 0)  # i1 true is all ones, as xDSL keeps it
                continue
            if not _INT_TEXT.fullmatch(t):
                raise ValueError(f"invalid integer literal '{t}'")
            v = int(t, 0) if "x" in t else int(t)
            if not -(1 << (width - 1)) <= v < (1 << width):
                raise ValueError(f"integer literal {t} out of range for {elem}")
            values.append(v - (1 << width) if v >= (1 << (width - 1)) else v)
        fmt = {1: "b", 2: "h", 4: "i", 8: "q"}[size]
        return struct.pack(f"<{len(values)}{fmt}", *values)
    raise ValueError(f"unsupported element type {elem}")


def _scalar_tensor(elem):
    from xdsl.dialects.builtin import TensorType

    return TensorType(elem, [1])


# ------------------------------------------------------------------ dictionaries, fast
FAST_DICTS = True  # (off: every attribute dictionary through xDSL's parser)
_DICT_KEY = r'(?:[A-Za-z_][A-Za-z0-9_$.]*|"[^"\\\n\v\f]*")'  # (MLIR's bare-id, ASCII; a plain string)
_DICT_ENTRY = re.compile(
    rf"({_DICT_KEY}) = (?:(-?(?:0|[1-9]\d{{0,17}})) : (i8|i16|i32|i64)|(true|false)"
    r'|"([^"\\\n\v\f]*)")(?:, |$)'
)
_I1 = IntegerType(1)


def _fast_dict(body: str) -> dict | None:
    """The dictionary ``{body}`` when every entry is ``key = N : iW`` (W 8 to 64), ``key =
    true/false`` or ``key = "text"`` (a string without escapes), keys bare or quoted without
    escapes, none twice; else None (xDSL's parser reads it)."""
    out: dict = {}
    pos, n = 0, len(body)
    if not n:
        return None
    while pos < n:
        m = _DICT_ENTRY.match(body, pos)
        if m is None:
            return None
        key, num, width, flag, string = m.groups()
        if key[0] == '"':
            key = key[1:-1]
        if key in out:
            return None
        if string is not None:
            out[key] = StringAttr(string)
        elif flag is not None:
            out[key] = integer_attr(int(flag == "true"), _I1)
        else:
            try:
                out[key] = integer_attr(int(num), SCALAR_TYPES[width])
            except Exception:  # (out of range: the parser reports it)
                return None
        pos = m.end()
    return out if body[-2:] != ", " else None


class _NotFast(Exception):
    """A location the fast path does not build (an alias not defined above it)."""


# ------------------------------------------------------------------ the common types, fast
FAST_TYPES = True  # (off: every type through xDSL's parser; test_fast_attrs compares the two)
FAST_LOCATIONS = True  # (the same for inline locations)
_SCALAR_ALT = "|".join(sorted(map(re.escape, SCALAR_TYPES), key=len, reverse=True))
_DIM = r"(?:0|[1-9]\d{0,8})"
_FAST_TYPE = re.compile(
    rf"tensor<((?:{_DIM}x)+)(?:({_SCALAR_ALT})|!tt\.ptr<({_SCALAR_ALT})(?:, ({_DIM}))?>)"
    rf"(?:, (#[A-Za-z_][\w$.-]*(?:<.*>)?))?>"
    rf"|!tt\.ptr<({_SCALAR_ALT})(?:, ({_DIM}))?>"
)
_NONE = NoneAttr()


def _fast_type(key: str, aliases: dict, encodings: dict):
    """The type spelled ``key`` where it is one of the shapes nearly every type of a kernel
    has (a ranked tensor of a scalar or scalar pointer, with or without a layout alias or a
    layout written out that ``encodings`` holds; a scalar pointer), built without xDSL's
    parser and checks (the pattern is what they check); None for anything else (then xDSL's
    parser reads it).  ``encodings``: the layouts written out (``#ttg.slice<{dim = 0, parent
    = #blocked}>``) in tensor types this module's parser has read, by their text."""
    m = _FAST_TYPE.fullmatch(key)
    if m is None:
        return None
    dims, scalar, pointee, space, enc, ptr_pointee, ptr_space = m.groups()
    if ptr_pointee is not None:
        return unchecked(PointerType, SCALAR_TYPES[ptr_pointee], int_attr(int(ptr_space or 1)))
    encoding = _NONE
    if enc is not None:
        # (an alias not defined above, or a layout not read yet: the parser reads it)
        encoding = encodings.get(enc) if enc.endswith(">") else aliases.get(enc)
        if encoding is None:
            return None
    elem = SCALAR_TYPES[scalar] if scalar is not None else unchecked(
        PointerType, SCALAR_TYPES[pointee], int_attr(int(space or 1))
    )
    shape = unchecked_data(ArrayAttr, tuple(int_attr(int(d)) for d in dims[:-1].split("x")))
    return unchecked(TensorType, shape, elem, encoding)


# ------------------------------------------------------------------ entry point
def clear_shared_types() -> None:
    """Forget the types shared between modules (each module then parses its type texts
    again, as in a fresh process), and what the verifier's checks keep of types by object
    (:func:`ttopt.ir.verify.forget_types`: kept only while types are shared)."""
    _SHARED_TYPES.clear()
    _ALIAS_ENVS.clear()
    forget_types()


def read_module(text: str, filename: str = "<input>", verify: bool = True,
                triton_version=None) -> TritonModule:
    """Parse Triton IR text and (unless ``verify=False``) verify it as Triton's verifier
    does (:func:`ttopt.ir.verify.verify_module`).  Raises :class:`TTOptError` on any problem
    with the input and :class:`TTOptInternalError` for a bug in ttopt; nothing else.

    ``triton_version`` (``"3.5"``): the Triton release that wrote the text, where the text
    itself cannot tell (:func:`triton_release`); the module is written back in that
    release's syntax."""
    try:
        found = triton_release(text, filename, triton_version)
    except ValueError as e:  # (a release ttopt does not know)
        raise TTOptError(str(e), filename) from None
    with versions.syntax(found.release):
        mod = _read_module(text, filename, verify, found)
    mod.triton_version = found.release
    return mod


def _read_module(text: str, filename: str, verify: bool, found) -> TritonModule:
    if text.startswith("\ufeff"):
        raise TTOptError(
            "unexpected byte-order mark (U+FEFF) at the start of the input "
            "(MLIR text has none; Triton rejects it too)", filename, 1, 1
        )
    crlf = False
    if "\r" in text:  # CRLF: MLIR takes \r as whitespace; line numbers count \n alone
        crlf = text.count("\r\n") == text.count("\n")  # (written back with CRLF)
        text = text.replace("\r\n", "\n")
    nuls: list[int] = []
    if "\x00" in text:  # MLIR skips a NUL between tokens (and keeps one inside a string)
        # (but its scanner of a dialect attribute's or type's `<...>` body stops at one:
        # the offsets are kept for it, tt_attrs.check_body)
        nuls = [m.start() for m in _NUL_OUTSIDE_STRINGS.finditer(text) if m.group(1) is None]
        text = _NUL_OUTSIDE_STRINGS.sub(lambda m: m.group(1) or " ", text)
    as_read = text  # (what the writer copies unchanged ops from: same offsets as below)
    stripped, locs = extract_loc_aliases(text, filename)
    stripped, trailing = _strip_trailing_locs(stripped, locs.values)
    parser = None
    try:
        parser = TritonParser(_context(found.release, found.low, found.high), stripped, filename, trailing)
        parser.nul_offsets = nuls
        parser.triton_span = (found.low, found.high)  # (the releases the text may be from)
        if verify:
            parser.facts = ParseFacts()
        parser.attribute_aliases.update(locs.values)
        parser.loc_alias_offsets = locs.offsets
        module = parser.parse_module()
        check_top_level_aliases(locs, stripped, parser.top_level_spans, filename)
    except ParseError as e:
        # (MLIR refuses a generic op's properties as it makes the op: before what it reads
        # after it)
        earlier = parser is not None and parser.generic_ops and properties_error(
            parser.offsets, parser.generic_ops, stripped, filename, found)
        raise earlier or _convert(e, filename) from None
    except TTOptError:
        raise
    except (VerifyException, RecursionError) as e:
        # an attribute that refused its parameters, or nesting deeper than the stack
        pos = parser.current_token.span.start if parser is not None else 0
        ln, col = line_col(stripped, pos)
        msg = "input nested too deeply" if isinstance(e, RecursionError) else _first_line(e)
        raise TTOptError(msg, filename, ln, col) from None
    except ValueError as e:
        if _DIGITS_LIMIT not in str(e):
            raise TTOptInternalError("reading", e, filename) from e
        # an integer literal of thousands of digits (Python's int() reads at most 4,300:
        # converting longer ones takes time quadratic in their length); MLIR refuses such a
        # literal wherever it stands (out of range)
        pos = parser.current_token.span.start if parser is not None else 0
        ln, col = line_col(stripped, pos)
        raise TTOptError("integer literal out of range (more than 4300 digits)", filename, ln,
                         col) from None
    except Exception as e:  # anything else is a bug in ttopt (or in xDSL under it)
        raise TTOptInternalError("reading", e, filename) from e
    if not isinstance(module, ModuleOp):
        raise TTOptError("expected a module", filename, 1, 1)

    aliases = {
        k: v for k, v in parser.attribute_aliases.items() if k not in locs.values
    }
    mod = TritonModule(
        module, filename, aliases, locs,
        parser.offsets, parser.generic_ops, stripped,
    )
    try:
        mod.source_map = build_source_map(as_read, stripped, crlf, module, parser.marks,
                                          parser._line_starts)
        mod.source_map.aliases = dict(aliases)
    except Exception as e:  # a bug in ttopt
        raise TTOptInternalError("reading", e, filename) from e
    mod.triton_span = parser.triton_span
    if verify:
        try:
            verify_parsed(mod, parser.facts)
        except TTOptError as e:
            raise _custom_attribute_error(mod, e) from None
    return mod


# the verifier's words for an inherent attribute (a property) its constraint refuses
_ATTRIBUTE_REFUSED = re.compile(r"'([\w$.]+)' op attribute '([^']+)' failed to satisfy constraint: ")


def _custom_attribute_error(mod: TritonModule, e: TTOptError) -> TTOptError:
    """MLIR checks an op's inherent attributes written in its custom form's attribute
    dictionary as it parses the op (``verifyInherentAttrs``): the error is the parser's, at
    the dictionary, ``custom op 'NAME' `` before the verifier's words (as every release of
    Triton says it).  Any other error: ``e``."""
    m = _ATTRIBUTE_REFUSED.match(e.message)
    if m is None or e.line is None or not mod.source:
        return e
    name, attr = m.groups()
    text = mod.source
    starts = line_starts(text)
    if e.line > len(starts):
        return e
    line_start = starts[e.line - 1]
    line_end = text.find("\n", line_start)
    line_end = len(text) if line_end < 0 else line_end
    for op, at in mod.offsets.items():  # (the op the error is at: its line's, of that name)
        if not line_start <= at < line_end or op in mod.generic_ops:
            continue
        head = re.compile(r"(?:%[^=\n]*=[ \t]*)?" + re.escape(name) + r"(?![\w$.])").match(text, at)
        if head is None:
            continue
        found = re.compile(r"\{[^{}\n]*?(?<![\w$.-])\"?" + re.escape(attr) + r"\"?[ \t]*=").search(
            text, head.end(), line_end)
        if found is None:
            return e
        ln, col = line_col(text, found.start())
        return TTOptError(f"custom op '{name}' {e.message}", e.filename, ln, col)
    return e


_NUL_OUTSIDE_STRINGS = re.compile("(" + STRING_LITERAL.pattern + ")|\x00")


_WIDE_FLOAT = re.compile(r"(?:\bx?|(?<=\dx))(f80|f128)\b")
_INT_LITERAL_TOKEN = re.compile(r"-?\s*(?:0x[0-9a-fA-F]+|[0-9]+)")


def _shown(attr: Attribute) -> str:
    """``attr`` as Triton prints it (in a message)."""
    from .writer import TritonPrinter  # (the writer imports the reader)

    out = io.StringIO()
    TritonPrinter(out, {}, {}).print_attribute(attr)
    return out.getvalue()


def _first_line(e: Exception) -> str:
    lines = str(e).strip().splitlines()
    return lines[0] if lines else type(e).__name__


# `loc(#alias)` at the end of a line, after a blank (checked by hand: a pattern that starts
# with the literal `loc(` is searched for with a fast scan, `[ \t]loc(` is tried at every
# position)
# (not where another location follows on the next lines: an op has one, and the parser
# reports the second, as MLIR does)
# Group 1 (empty) is set where one blank and a character that may end an op (not one of
# _IN_ATTRIBUTE's) go before `loc(`, nearly every time: then the checks by hand hold;
# group 2: the alias; group 3 (empty): the end of the line (where `$` matches).
_TRAILING_LOC = re.compile(
    r"loc\((?:(?<=[^ \t\n=,\[({<][ \t]loc\()()|)(#[\w$.-]+)\)(?=[ \t]*+()$)"
    r"(?![ \t\r\n]*+loc[ \t\r\n]*+\()", re.MULTILINE
)
# (the same for a text all ASCII: the alias's word class as ASCII ranges, checked faster)
_TRAILING_LOC_ASCII = re.compile(_TRAILING_LOC.pattern.replace(r"[\w$.-]", "[0-9A-Za-z_$.-]"),
                                 re.MULTILINE)


_IN_ATTRIBUTE = frozenset("=,[({<")  # (what goes before an attribute's value: no op's end)


def _strip_trailing_locs(text: str, aliases: dict) -> tuple[str, dict[int, str]]:
    """Blank each op's trailing ``loc(#locN)`` (same length: offsets are kept) and return
    {offset of that line's end: alias}.  The parser then attaches the location itself,
    which spares the lexer four tokens per op (about a fifth of all tokens)."""
    trailing: dict[int, str] = {}
    pieces: list[str] = []
    last = 0
    # (not into the whitespace the text ends with, where the location aliases defined after
    # the module are blanked: up to the end of the line of its last other character; the
    # pattern sees there what it sees in the whole text, whitespace after, and its look-ahead
    # does not read all of it again from that line)
    end = text.find("\n", len(text.rstrip()))
    pattern = _TRAILING_LOC_ASCII if text.isascii() else _TRAILING_LOC
    for m in pattern.finditer(text, 0, len(text) if end < 0 else end):
        start = m.start() - 1  # (the blank before `loc(`)
        if m.start(1) < 0:  # (else group 1 says what the checks below would find)
            if start < last or text[start] not in " \t":
                continue
            line_start = text.rfind("\n", 0, m.start()) + 1  # (one match a line at most: linear)
            before = text[line_start : m.start()].rstrip(" \t")
            if not before:
                continue  # alone on its line: the location of the op on the lines above
            if before[-1] in _IN_ATTRIBUTE:
                continue  # an attribute's value (`{l = loc(#a)` on the line): no op ends so
        name = m.group(2)
        if name not in aliases:
            continue  # left in place: the parser reports the undefined alias
        trailing[m.start(3)] = name  # (the line's `\n`, or the text's end)
        end = m.end()
        pieces.append(text[last:start])
        pieces.append(" " * (end - start))
        last = end
    pieces.append(text[last:])
    return "".join(pieces), trailing


@lru_cache(maxsize=None)
def _context(release: tuple[int, int], low: tuple[int, int], high: tuple[int, int]):
    """The context of a Triton release's ops and names (:func:`ttopt.dialects.make_context`),
    with the ops of the other releases the text may come from."""
    return make_context(release, (low, high))


_GLUED = re.compile(r"^(Expected '[^']*')([A-Za-z].*)$")
# xDSL messages with a placeholder its authors forgot to format ("... after {first_char}")
_PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")


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
    bad = text[span.start : span.start + 1]
    if "\udc80" <= bad <= "\udcff":  # a byte that is not UTF-8, outside any string literal
        return TTOptError(
            f"input is not UTF-8 text (byte 0x{ord(bad) - 0xDC00:02x})", filename, ln, col
        )
    msg = _PLACEHOLDER.sub(lambda m: repr(bad) if bad else "end of input", msg)
    if msg.startswith("SSA value tuple index out of bounds."):  # (`%x#5`, %x of fewer results)
        msg = "reference to invalid result number"
    if msg.startswith("Unexpected character") and bad and (bad.isspace() or not bad.isprintable()):
        msg = f"Unexpected character: {ascii(bad)[1:-1]}"  # (a blank MLIR does not skip,
        # U+00A0, a form feed: shown, not dropped as the message's trailing blank)
    if not text[span.start :].strip(BLANKS):  # (a form feed there is a bad character)
        msg = "unexpected end of input (truncated file?)"
    elif _GLUED.match(msg):  # (xDSL's "Expected ':'" + a context without its blank)
        msg = _GLUED.sub(r"\1 (\2)", msg)
    elif msg in ("Could not parse entire input!", "in block definition"):
        msg = "expected an operation"  # (the second: xDSL's message for a token that is
        # neither an op nor a block label, without its start)
    if "is not registered" in msg:
        if msg.startswith("Operation "):
            msg = msg.replace("Operation ", "operation '", 1).replace(" is not registered", "' is unknown")
        else:
            msg = msg.replace(" is not registered", " is unknown")
    return TTOptError(msg, filename, ln, col)
