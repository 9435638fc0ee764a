"""Every use of xDSL's private API in ttopt, in one place.

ttopt is built on xDSL's public API (op and attribute definitions, ``Parser``/``Printer``
methods, passes, rewriters), pinned to one release (:data:`XDSL_VERSION`, see
``pyproject.toml``).  Where it must go further, it does so here and only here (a test,
``test/test_xdsl_compat.py``, fails on a private xDSL name used anywhere else):

* :class:`ParserBase`: xDSL's ``Parser`` with its protected state reached under public names
  (the current token, resuming at an offset, the lexer) and its protected hooks forwarded to
  public methods a subclass overrides (``define_values`` for ``_register_ssa_definition``
  ...).  ttopt's reader (:mod:`ttopt.ir.reader`) subclasses it.
* :class:`PrinterBase`: the same for xDSL's ``Printer`` (the SSA name table, the column
  count, the result list).
* :class:`LexerBase`: xDSL's ``MLIRLexer`` with its string-literal hook public.
* :func:`peek_token`, :func:`dialect_symbol_body`: the same for any xDSL parser (the one a
  dialect's ``parse``/``parse_parameters`` gets, ``xdsl-opt``'s included).
* :func:`set_value_name`, :func:`operand_tuple`: an SSA value's exact name (xDSL's setter
  strips a ``_N`` suffix that Triton's names carry) and an op's operand tuple without the
  view object (the verifier's hot loop).
* :func:`rename_in_context`: a context that knows ops, attributes and types by a Triton
  release's old names (``triton_gpu.``).
* :func:`own_verify`: the ``verify_`` an op class defines, without the IRDL checks
  ``irdl_op_definition`` wraps around it (read from the wrapper's closure).
* :func:`patch_string_literal`: xDSL's ``StringLiteral`` made to carry non-UTF-8 bytes.
* :func:`keep_exact_value_names`: xDSL's ``name_hint`` setter made to keep MLIR's names as
  they are (``%12``, ``%x_3``).
* :func:`identity_hashing`: the identity ``__hash__``/``__eq__`` of xDSL's IR objects
  (``_IRNode``, the base of ops, blocks and regions; values; uses) as ``object``'s C slots.

When xDSL changes, this module (and the test) is what to update.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from xdsl.dialects.builtin import ArrayAttr, CallSiteLoc, FileLineColLoc, FunctionType, NameLoc
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation, OpResult, SSAValue, SSAValues, Use
from xdsl.ir import Attribute, BuiltinAttribute, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.lexer import Span, Token
from xdsl.utils.mlir_lexer import KIND_BY_PUNCTUATION_SPELLING, MLIRLexer, StringLiteral

XDSL_VERSION = "0.74.0"
"""The xDSL release this module was written against (``pyproject.toml`` pins it)."""


_MISSING = object()


class _Checkpoint:
    """What :meth:`ScopedValues.copy` returns: the table and how many definitions it had."""

    __slots__ = ("owner", "mark")

    def __init__(self, owner: "ScopedValues", mark: int):
        self.owner, self.mark = owner, mark


class ScopedValues(dict):
    """The parser's SSA name table, with a journal of its definitions, so that leaving a
    region undoes the region's definitions instead of restoring a copy of the whole table.

    xDSL 0.74's ``parse_optional_region`` saves ``self.ssa_values.copy()`` on entering a
    region and assigns it back on leaving: a copy of every name defined so far, per region, so
    a function with n reductions (each with its combiner region) costs O(n^2) to read.  Here
    ``copy()`` is a checkpoint (the journal's length), and :class:`ParserBase`'s
    ``ssa_values`` setter, given a checkpoint, takes the definitions made since out again
    (restoring any value a definition replaced): the same table, in time proportional to the
    region."""

    __slots__ = ("journal",)

    def __init__(self, *args):
        super().__init__(*args)
        self.journal: list = []

    def __setitem__(self, key, value) -> None:
        self.journal.append((key, dict.get(self, key, _MISSING)))
        dict.__setitem__(self, key, value)

    def copy(self):  # type: ignore[override]
        return _Checkpoint(self, len(self.journal))

    def rollback(self, mark: int) -> None:
        journal = self.journal
        while len(journal) > mark:
            key, old = journal.pop()
            if old is _MISSING:
                dict.pop(self, key, None)
            else:
                dict.__setitem__(self, key, old)


class ParserBase(Parser):
    """xDSL's parser with public names for what ttopt's reader uses of its internals."""

    # --- the SSA name table: scoped by a journal (see ScopedValues)
    @property
    def ssa_values(self) -> ScopedValues:
        return self.__dict__["ssa_values"]

    @ssa_values.setter
    def ssa_values(self, table) -> None:
        if isinstance(table, _Checkpoint):  # leaving a region: undo its definitions
            table.owner.rollback(table.mark)
            table = table.owner
        elif not isinstance(table, ScopedValues):
            table = ScopedValues(table)
        self.__dict__["ssa_values"] = table

    # --- state
    @property
    def current_token(self):
        """The token the parser is at (not consumed yet)."""
        return self._current_token

    def resume_from(self, pos: int) -> None:
        """Continue parsing at character offset ``pos`` (lexing anew from there)."""
        self._resume_from(pos)

    def consume_token(self, kind=None):
        """Consume the current token (which must be of ``kind``, if given) and return it."""
        return self._consume_token(kind)

    # --- xDSL's token steps, the same without their layers of calls (every token of an op
    # that the reader's fast paths do not take passes here: about a tenth of reading time)
    def _consume_token(self, expected_kind=None):  # type: ignore[override]
        state = self._parser_state
        token = state.current_token
        assert expected_kind is None or token.kind == expected_kind, (
            f"Unexpected token {token}, expected {expected_kind}"
        )
        state.current_token = state.lexer.lex()
        return token

    def _parse_optional_token(self, expected_kind):  # type: ignore[override]
        state = self._parser_state
        token = state.current_token
        if token.kind == expected_kind:
            state.current_token = state.lexer.lex()
            return token
        return None

    def parse_optional_punctuation(self, punctuation):  # type: ignore[override]
        kind = KIND_BY_PUNCTUATION_SPELLING.get(punctuation)
        if kind is None:  # (not a punctuation: xDSL's assertion)
            return Parser.parse_optional_punctuation(self, punctuation)
        state = self._parser_state
        if state.current_token.kind == kind:
            state.current_token = state.lexer.lex()
            return punctuation
        return None

    def parse_punctuation(self, punctuation, context_msg: str = ""):  # type: ignore[override]
        if self.parse_optional_punctuation(punctuation) is None:
            return Parser.parse_punctuation(self, punctuation, context_msg)  # (its error)
        return punctuation

    def install_lexer(self, lexer) -> None:
        """Lex with ``lexer`` (over this parser's input) from its position on."""
        self._parser_state.lexer = lexer
        self._parser_state.current_token = lexer.lex()

    @property
    def dialect_stack(self):
        return self._parser_state.dialect_stack

    # --- protected parsing steps, callable under public names
    def parse_alias_definition(self) -> None:
        """``#name = ...`` / ``!name = ...`` at the top level."""
        self._parse_alias_def()

    def parse_tensor_literal(self):
        """The ``[...]`` or scalar of a ``dense<...>``: (elements, shape)."""
        return self._parse_tensor_literal()

    def parse_optional_shape_delimiter(self) -> str | None:
        """The ``x`` after a dimension (``x4xf32``: the ``x`` alone), or None."""
        return self._parse_optional_shape_delimiter()

    def parse_dialect_symbol_body(self) -> str:
        """The ``<...>`` body of a dialect attribute or type, as text."""
        return self._parse_dialect_symbol_body()

    # --- protected hooks, forwarded to public methods (override those)
    def _register_ssa_definition(self, name, values, span):  # type: ignore[override]
        self.define_values(name, values, span)

    def define_values(self, name: str, values, span) -> None:
        """``%name`` (a result group or block argument) is defined as ``values``."""
        Parser._register_ssa_definition(self, name, values, span)

    def _parse_location(self):  # type: ignore[override]
        return self.parse_location_body()

    def parse_location_body(self):
        """What is inside ``loc(...)`` (and nested locations)."""
        return Parser._parse_location(self)

    def _parse_generic_operation(self, op_type):  # type: ignore[override]
        return self.parse_generic_operation(op_type)

    def parse_generic_operation(self, op_type) -> Operation:
        """An op in MLIR's generic form, after its name."""
        return Parser._parse_generic_operation(self, op_type)

    def _parse_block(self):  # type: ignore[override]
        return self.parse_block()

    def _parse_optional_block_arg_list(self, block):  # type: ignore[override]
        return self.parse_block_arguments(block)

    def parse_block_arguments(self, block):
        """A block label's ``(%a: T loc(..), ...)``, if there is one, added to ``block``."""
        return Parser._parse_optional_block_arg_list(self, block)

    def _parse_block_body(self, block):  # type: ignore[override]
        return self.parse_block_body(block)

    def parse_block_body(self, block):
        """The ops of a block (until a token that cannot start one), added to ``block``."""
        return Parser._parse_block_body(self, block)

    def parse_block(self):
        """A labelled block (``^bb0(...):`` and its ops)."""
        return Parser._parse_block(self)

    def _get_op_by_name(self, name: str):  # type: ignore[override]
        return self.get_op_by_name(name)

    def get_op_by_name(self, name: str):
        """The op class of ``name`` (an error if there is none)."""
        return Parser._get_op_by_name(self, name)

    def _parse_builtin_densearray_attr(self):  # type: ignore[override]
        return self.parse_dense_array()

    def parse_dense_array(self):
        """The ``<T: v, ...>`` of a dense array (``array<...>``), after ``array``."""
        return Parser._parse_builtin_densearray_attr(self)

    def _parse_dense_literal_type(self):  # type: ignore[override]
        return self.parse_dense_literal_type()

    def parse_dense_literal_type(self):
        """The type after ``dense<...> :``."""
        return Parser._parse_dense_literal_type(self)

    # --- a builtin scalar type
    def _parse_optional_integer_or_float_type(self):  # type: ignore[override]
        return self.parse_optional_integer_or_float_type()

    def parse_optional_integer_or_float_type(self):
        """``index``, ``i32``/``si8``/``ui1``..., ``f16``...: the type, or None."""
        return Parser._parse_optional_integer_or_float_type(self)

    # --- a complex element `(re, im)` of a tensor literal, and its parts
    def _parse_optional_complex(self):  # type: ignore[override]
        return self.parse_optional_complex()

    def parse_optional_complex(self):
        """``(re, im)`` in a ``dense<...>`` literal: ``(value, span)``, or None."""
        return Parser._parse_optional_complex(self)

    def parse_optional_bool_int_or_float(self):
        """``true``, ``false``, an integer or a float, with its ``-``: ``(value, span)`` (the
        sign applied), or None (the parser back where it was)."""
        return self._parse_optional_bool_int_or_float()

    @staticmethod
    def tensor_literal_element(is_negative: bool, value, span):
        """An element of a tensor literal, as :meth:`parse_tensor_literal` gives them."""
        return Parser._TensorLiteralElement(is_negative, value, span)

    # --- one `name = attribute` of an attribute or properties dictionary
    def _parse_attribute_entry(self):  # type: ignore[override]
        return self.parse_attribute_entry()

    def parse_attribute_entry(self):
        """``name = attribute`` (or ``name`` alone, a unit attribute) in ``{...}``."""
        return Parser._parse_attribute_entry(self)


class PrinterBase(Printer):
    """xDSL's printer with public names for what ttopt's writer uses of its internals."""

    @property
    def ssa_value_names(self) -> dict[SSAValue, str]:
        """The name each SSA value printed so far got (without ``%``)."""
        return self._ssa_values

    def advance_column(self, n: int) -> None:
        """``n`` characters were written on the current line."""
        self._current_column += n

    def new_value_name(self) -> str:
        """The next unused numeric SSA name of the current scope (``0``, ``1`` ...)."""
        return self._get_new_valid_name_id()

    def new_line(self) -> None:
        """A newline and the current indentation."""
        self._print_new_line()

    @property
    def indent_level(self) -> int:
        return self._indent

    def name_block(self, block) -> None:
        """Give ``block`` its printed name if it has none yet (as ``print_block`` does)."""
        if block not in self._blocks:
            self._populate_block_name(block)

    def has_block_name(self, block) -> bool:
        return block in self._blocks

    def set_block_name(self, block, name: str) -> None:
        """Print ``block`` as ``^name`` (a label's name as the input wrote it)."""
        self._blocks[block] = name

    def _print_results(self, op: Operation) -> None:  # type: ignore[override]
        self.print_results(op)

    def print_results(self, op: Operation) -> None:
        """``%a, %b = `` before an op (nothing for an op without results)."""
        Printer._print_results(self, op)


class LexerBase(MLIRLexer):
    """xDSL's MLIR lexer with its string-literal step overridable under a public name, and
    MLIR's blanks (space, tab, newline, carriage return: xDSL's ``\\s`` also skips a form
    feed and a vertical tab, which MLIR takes for unexpected characters)."""

    _whitespace_regex = re.compile(r"((//[^\n]*(\n)?)|([ \t\n\r]+))*")

    def _lex_string_literal(self, start_pos):  # type: ignore[override]
        return self.lex_string_literal(start_pos)

    def lex_string_literal(self, start_pos):
        return MLIRLexer._lex_string_literal(self, start_pos)


def rename_in_context(ctx, op_name: Callable[[str], str | None],
                      attr_name: Callable[[str], str | None]) -> None:
    """Make ``ctx`` know each op by ``op_name(name)`` and each attribute and type by
    ``attr_name(name)`` instead of its name (a Triton release's spelling of ops ttopt defines
    once: ``triton_gpu.convert_layout``), or not at all where that is None; the classes keep
    their own names."""
    tables = ((ctx._loaded_ops, op_name), (ctx._loaded_attrs, attr_name), (ctx._loaded_types, attr_name))  # noqa: SLF001
    for table, rename in tables:
        renamed = {}
        for name in list(table):
            new = rename(name)
            if new != name:
                cls = table.pop(name)
                if new is not None:
                    renamed[new] = cls
        table.update(renamed)


def peek_token(parser):
    """The token any xDSL parser is at (not consumed)."""
    return parser._current_token  # noqa: SLF001


def dialect_symbol_body(parser) -> str:
    """The ``<...>`` body of a dialect attribute or type, as text, from any xDSL parser."""
    return parser._parse_dialect_symbol_body()  # noqa: SLF001


def continue_after(parser, pos: int) -> None:
    """Move any xDSL parser on to offset ``pos``, as its own scan of a dialect symbol's
    ``<...>`` body leaves it (``_parse_dialect_symbol_body``: the lexer there, the next token
    lexed), for a body whose end is known."""
    parser.lexer.pos = pos
    parser._parser_state.current_token = parser.lexer.lex()  # noqa: SLF001


def own_verify(cls):
    """The ``verify_`` that ``cls``'s own source defines (None: it defines none), without the
    IRDL checks that xDSL 0.74's ``irdl_op_definition`` wraps around it (its wrapper's
    closure holds ``op_def`` and ``custom_verify``)."""
    fn = cls.verify_
    closure = getattr(fn, "__closure__", None) or ()
    env = dict(zip(fn.__code__.co_freevars, (c.cell_contents for c in closure)))
    own = env.get("custom_verify") if "op_def" in env else fn  # (xDSL's wrapper, or not)
    return None if own is None or own is Operation.verify_ else own


def set_value_name(value: SSAValue, name: str) -> None:
    """Name ``value`` exactly ``name`` (xDSL's ``name_hint`` setter turns ``x_1`` into
    ``x``; Triton's printed names carry such suffixes and ttopt keeps them)."""
    value._name = name  # noqa: SLF001


def append_new_op(block, op: Operation) -> None:
    """``block.add_op(op)`` for an op just made (no parent, no regions: nothing to check),
    as the reader's fast path appends the ops it builds: the same links."""
    op.parent = block
    last = block._last_op  # noqa: SLF001
    if last is None:
        block._first_op = op  # noqa: SLF001
    else:
        last._next_op = op  # noqa: SLF001
        op._prev_op = last  # noqa: SLF001
    block._last_op = op  # noqa: SLF001


def op_parts(op: Operation) -> tuple:
    """``op``'s (operands, successors, regions) as the tuples it holds: xDSL replaces such a
    tuple whenever one of them changes, so comparing the tuples by identity tells whether
    they changed."""
    return op._operands, op._successors, op.regions  # noqa: SLF001


def operand_tuple(op: Operation) -> tuple:
    """``op``'s operands as the tuple the op holds (``op.operands`` builds a view object per
    call)."""
    return op._operands  # noqa: SLF001


_EXACT_NAME = None


def keep_exact_value_names() -> None:
    """Make xDSL's ``name_hint`` setter keep a value's name as it is, MLIR's ``%12`` and
    ``%x_3`` included (xDSL 0.74 refuses numeric names, so ``clone`` and
    ``replace_all_uses_with`` fail on them, and strips a ``_N`` suffix).  ttopt's reader
    names values exactly as the input does and its writer keeps those names
    (:mod:`ttopt.ir.source`); a value that replaces another takes over its name.  A name that
    is not an MLIR SSA name is still refused.  Idempotent."""
    global _EXACT_NAME
    if _EXACT_NAME is not None:
        return
    import re

    from xdsl.ir.core import IRWithName

    _EXACT_NAME = re.compile(r"[0-9]+|[A-Za-z_$.-][\w$.-]*")
    original = IRWithName.name_hint

    def setter(self, name):
        if name is None or _EXACT_NAME.fullmatch(name):
            self._name = name  # noqa: SLF001
        else:
            original.fset(self, name)  # (xDSL's error)

    IRWithName.name_hint = property(original.fget, setter)


def identity_hashing() -> None:
    """Give xDSL's IR objects (ops, blocks, regions, SSA values, uses) the C ``__hash__``
    and ``__eq__`` of ``object`` in place of xDSL 0.74's Python ``return id(self)`` / ``return
    self is other``: the same identity semantics (equal only to itself; a hash fixed for the
    object's life), at C speed.  ttopt keys dicts and sets by op and value everywhere (the
    source map, the SSA table, the verifier, the passes): each lookup called a Python
    function.  Only a class whose methods are still exactly those is changed, so a later
    xDSL that redefines them is left alone.  Idempotent."""
    from xdsl.dialects.arith import SignlessIntegerBinaryOperation
    import xdsl.ir.core as core
    from xdsl.irdl.operations import IRDLOperation

    ir_node = core._IRNode  # noqa: SLF001 (Operation, Block and Region's base)
    for cls in (core.SSAValue, core.Use, ir_node, IRDLOperation, SignlessIntegerBinaryOperation):
        own_hash = cls.__dict__.get("__hash__")
        if own_hash is object.__hash__:
            continue  # (done)
        code = getattr(own_hash, "__code__", None)
        if code is None or code.co_names != ("id",) or code.co_argcount != 1:
            continue
        own_eq = cls.__dict__.get("__eq__")
        if own_eq is not None:
            eq_code = own_eq.__code__
            if eq_code.co_names or eq_code.co_argcount != 2:  # (`return self is other`)
                continue
            cls.__eq__ = object.__eq__
        cls.__hash__ = object.__hash__


def patch_string_literal(bytes_of: Callable[[str], bytes], text_of: Callable[[str], str]) -> None:
    """Make xDSL's ``StringLiteral`` decode its body with ``bytes_of``/``text_of`` (given the
    text between the quotes): ttopt keeps non-UTF-8 bytes of the input as lone surrogates
    (see :mod:`ttopt.ir.lexer`).  Idempotent."""
    if getattr(StringLiteral, "_ttopt_patched", False):
        return
    StringLiteral.bytes_contents = property(lambda self: bytes_of(self.text[1:-1]))  # type: ignore[assignment]
    StringLiteral.string_contents = property(lambda self: text_of(self.text[1:-1]))  # type: ignore[assignment]
    StringLiteral._ttopt_patched = True  # type: ignore[attr-defined]


_FIELDS: dict[type, tuple[str, ...]] = {}


def unchecked(cls, *params):
    """``cls`` (a ``ParametrizedAttribute``) with ``params`` as its parameters, in the order
    of its definition, without the parameter constraints and ``verify`` that xDSL 0.74 runs
    in ``__post_init__`` (and without the class's own ``__init__``).  For parameters the
    caller has checked already (a regular expression matched the text they come from), where
    the checks cost 5-20 us an attribute; the result equals what ``cls.new(params)`` builds
    (``test/test_fast_attrs.py`` compares them)."""
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = tuple(f for f, _ in cls.get_irdl_definition().parameters)
    attr = object.__new__(cls)
    for f, p in zip(fields, params, strict=True):
        object.__setattr__(attr, f, p)
    return attr


def unchecked_data(cls, data):
    """``cls(data)`` for an xDSL ``Data`` attribute (``IntAttr``, ``StringAttr``,
    ``ArrayAttr``...) without its ``__post_init__`` checks: ``data`` must already be what the
    class holds (an ``int``, a ``str``, a tuple of attributes)."""
    attr = object.__new__(cls)
    object.__setattr__(attr, "data", data)
    return attr


def file_line_col(filename, line, column):
    """``FileLineColLoc(filename, line, column)`` (a ``StringAttr`` and two ``IntAttr``) as
    :func:`unchecked` makes it, in one step: the location the reader gives every op written
    without ``loc(...)``."""
    loc = object.__new__(FileLineColLoc)
    object.__setattr__(loc, "filename", filename)
    object.__setattr__(loc, "line", line)
    object.__setattr__(loc, "column", column)
    return loc


def name_loc(desc, location):
    """``NameLoc(desc, location)`` as :func:`unchecked` makes it, in one step (a location
    alias of Inductor's kernels is often one)."""
    loc = object.__new__(NameLoc)
    object.__setattr__(loc, "desc", desc)
    object.__setattr__(loc, "location", location)
    return loc


def call_site_loc(callee, caller):
    """``CallSiteLoc(callee, caller)`` as :func:`unchecked` makes it, in one step."""
    loc = object.__new__(CallSiteLoc)
    object.__setattr__(loc, "callee", callee)
    object.__setattr__(loc, "caller", caller)
    return loc


def function_type(inputs, outputs):
    """``FunctionType.from_lists(inputs, outputs)`` as :func:`unchecked` makes it (the two
    ``ArrayAttr`` too): for types a parser made (each a type attribute already), where
    xDSL's checks cost more than the rest of a function's header."""
    ft = object.__new__(FunctionType)
    object.__setattr__(ft, "inputs", unchecked_data(ArrayAttr, tuple(inputs)))
    object.__setattr__(ft, "outputs", unchecked_data(ArrayAttr, tuple(outputs)))
    return ft


def new_token(kind, start: int, end: int, input_) -> Token:
    """``Token(kind, Span(start, end, input_))``, built without the frozen ``Span``'s generated
    ``__init__`` (an ``object.__setattr__`` call per field): its fields set as one dict, as
    that ``__init__`` leaves them (``line_offset`` 0).  Half the cost, for each token the
    reader's lexer makes (``test/test_fast_attrs.py`` compares the two)."""
    span = object.__new__(Span)
    object.__setattr__(span, "__dict__", {"start": start, "end": end, "input": input_,
                                          "line_offset": 0})
    token = object.__new__(Token)
    token.kind = kind
    token.span = span
    return token


_DEFAULTS: dict[type, tuple[tuple, tuple]] = {}


def _defaults(cls) -> tuple[tuple, tuple]:
    """The default properties and attributes that ``IRDLOperation.__post_init__`` fills in
    for ``cls``: ((name, value), ...) each."""
    found = _DEFAULTS.get(cls)
    if found is None:
        from xdsl.irdl import OptionalDef

        op_def = cls.get_irdl_definition()
        found = _DEFAULTS[cls] = tuple(
            tuple((name, d.default_value) for name, d in defs.items()
                  if not isinstance(d, OptionalDef) and d.default_value is not None)
            for defs in (op_def.properties, op_def.attributes)
        )
    return found


def fast_create(cls, operands: list, result_types: list, properties: dict, location):
    """``cls.create(operands=..., result_types=..., properties=..., location=...)`` (no
    attributes, regions or successors) without xDSL's generic constructor: the same object,
    field for field (operand uses linked first in the values' use lists, results, default
    properties and attributes filled in; ``test/test_fast_attrs.py`` compares the ops of
    every fixture and corpus sample read both ways), in a third of the time.  For the reader's fast path,
    which makes most ops of a kernel.  ``properties`` is taken, not copied."""
    op = object.__new__(cls)
    uses = []
    for i, value in enumerate(operands):
        use = Use(op, i)
        first = value.first_use
        use._next_use = first
        if first is not None:
            first._prev_use = use
        value.first_use = use
        uses.append(use)
    op._operands = SSAValues(operands)
    op._operand_uses = tuple(uses)
    op.results = SSAValues([OpResult(t, op, i) for i, t in enumerate(result_types)])
    prop_defaults, attr_defaults = _DEFAULTS.get(cls) or _defaults(cls)
    for name, value in prop_defaults:
        if name not in properties:
            properties[name] = value
    op.properties = properties
    op.attributes = dict(attr_defaults)
    op.location = location
    op._successors = ()
    op._successor_uses = ()
    op.regions = ()
    return op  # (parent, _next_op, _prev_op: the class's None, as create leaves them)


# ------------------------------------------------------------------ a string with a type
# MLIR's StringAttr may carry a type (`"x" : i32`); xDSL's has none, and is final.


@irdl_attr_definition
class TypedStringAttr(ParametrizedAttribute, BuiltinAttribute):
    """MLIR's ``"text" : type`` (a ``StringAttr`` with a type other than ``none``), as an
    attribute dictionary, an array or a properties dictionary holds it (Triton reads it there
    in every release).  ``value.data`` is the text; printed as MLIR prints it."""

    name = "ttopt.typed_string"

    value: StringAttr
    type: Attribute

    def print_builtin(self, printer) -> None:
        printer.print_string_literal(self.value.data)
        printer.print_string(" : ")
        printer.print_attribute(self.type)

    @property
    def data(self) -> str:
        """The text, as a ``StringAttr``'s ``data``."""
        return self.value.data
