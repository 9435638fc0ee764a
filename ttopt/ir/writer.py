"""Print a :class:`~ttopt.ir.reader.TritonModule` back as text Triton 3.6 parses.

The output keeps what makes Triton's own dumps readable and what the compiled code depends
on: layout aliases (``#blocked``) re-emitted and referenced by name, SSA names (xDSL keeps
them as name hints), and every location, referenced through the input's ``#loc`` aliases, so
that line info, and thus the cubin, is unchanged by a round trip.
"""

from __future__ import annotations

import io
import math
import re

from xdsl.dialects.builtin import (
    AnyFloat,
    ComplexType,
    DenseResourceAttr,
    DenseIntOrFPElementsAttr,
    FusedLoc,
    IntegerType,
    LocationAttr,
    ModuleOp,
    NoneAttr,
    TensorType,
)
from xdsl.dialects.builtin import UnregisteredOp
from xdsl.ir import Attribute, Block, Operation, OpResult, SSAValue, TypeAttribute
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, IsTerminator

from ..dialects import versions
from ..dialects.declarative import variant_active
from ..dialects.tt import OpaqueBodyAttr, PointerType
from ..dialects.tt_attrs import WideDenseArrayAttr
from ..xdsl_compat import PrinterBase
from .locations import FileLineColRange
from .reader import TritonModule
from .source import KEEP_TEXT, SourceMap



class _Taken(set):
    """The names taken in one function, and where the search for a free ``hint_N`` (or a
    free number) last stopped, per hint."""

    def __init__(self, *args):
        super().__init__(*args)
        self.resume: dict[str, int] = {}

class TritonPrinter(PrinterBase):
    """xDSL's printer, printing aliased attributes by alias name.

    With a source map (:mod:`ttopt.ir.source`), an op no pass changed is copied from the
    input text, and values keep the names they were read with."""

    def __init__(self, stream, attr_names: dict[Attribute, str], loc_names,
                 source: SourceMap | None = None):
        super().__init__(stream=stream, print_debuginfo=True)
        self._attr_names = attr_names
        self._loc_names = loc_names
        self._type_text: dict[Attribute, str] | None = {}
        self._by_id: dict[int, tuple[Attribute, str]] = {}
        self._grouped: dict[SSAValue, int] = {}  # results printed `%name#i`
        self._write = stream.write
        self.source = source
        self._taken: dict[Operation, set[str]] = {}  # isolated op -> names live in it
        # per scope's name table (xDSL's printer copies it on entering an isolated op and
        # only adds to it): the table, and where the search for a free `hint_N` stopped
        self._resume: dict[int, tuple[dict, dict[str, int]]] = {}
        syntax = versions.current()
        self._syntax = None if syntax.release == versions.DEFAULT else syntax

    # --- copying what no pass changed (ttopt.ir.source)
    def print_block(self, block: Block, print_block_args: bool = True,
                    print_block_terminator: bool = True) -> None:
        src = self.source
        if src is None:
            super().print_block(block, print_block_args, print_block_terminator)
            return
        if print_block_args:
            label = src.clean_label(block)
            if label is not None:
                self._write("\n" + src.text[label[0] : label[1]])
            else:
                self._print_label(block)
        self._print_ops(block, print_block_terminator)

    # --- a block keeps the name its label had in the input: the labels copied from it name
    #     blocks so, and a branch printed anew must name its successors alike (xDSL numbers
    #     blocks in the order it prints them: `^bb0` for the input's `^bb2`)
    def print_block_name(self, block: Block) -> str:
        self._input_block_name(block)
        return super().print_block_name(block)

    def name_block(self, block: Block) -> None:
        self._input_block_name(block)
        super().name_block(block)

    def _input_block_name(self, block: Block) -> None:
        src = self.source
        if src is not None and not self.has_block_name(block):
            name = src.label_names.get(block)
            if name is not None:
                self.set_block_name(block, name)

    def _print_label(self, block: Block) -> None:
        self.new_line()
        self.name_block(block)
        self.print_block_name(block)
        if block.args:
            with self.in_parens():
                self.print_list(block.args, self.print_block_argument)
        self.print_string(":")

    def _print_ops(self, block: Block, print_block_terminator: bool = True,
                   skip_implicit: bool = False) -> None:
        src = self.source
        text = src.text
        write = self._write
        with self.indented():
            depth = self.indent_level
            for op in block.ops:
                if not print_block_terminator and op.has_trait(IsTerminator, value_if_unregistered=False):
                    continue
                found = src.clean(op, depth)
                if found is not None:
                    pieces = found.pieces
                    if len(pieces) == 1:  # (a leaf op, the most common: _copy in short; a
                        # piece starts a line, so the newline before it is the text's own)
                        start, end = pieces[0]
                        write(text[start - 1 : end] if start else "\n" + text[:end])
                    else:
                        self._copy(op, found)
                    continue
                if skip_implicit and op in src.implicit and op is block.last_op:
                    continue  # (a terminator the input left out, still as the parser made it)
                self.new_line()
                self.print_op(op)

    def _copy(self, op: Operation, found, first: bool = False) -> None:
        """``op`` as it was read: its text, and its regions' blocks one op at a time."""
        text = self.source.text
        pieces = found.pieces
        start, end = pieces[0]
        self._write(text[start:end] if first else "\n" + text[start:end])
        for i, region in enumerate(op.regions):
            for block in region.blocks:
                if block in self.source.labeled or block is not region.blocks.first:
                    self.print_block(block, True)
                else:  # (an entry block whose arguments are in the op's header)
                    self._print_ops(block, skip_implicit=True)
            start, end = pieces[i + 1]
            self._write("\n" + text[start:end])

    def print_string_literal(self, string: str) -> None:
        # non-UTF-8 bytes of the input (kept as lone surrogates) print as the same bytes
        self.print_bytes_literal(string.encode("utf-8", "surrogateescape"))

    def print_string(self, text: str, *, indent: int | None = None) -> None:
        # the common case (no newline) without xDSL's per-call `print(..., file=...)`
        if "\n" not in text:
            self.advance_column(len(text))
            self._write(text)
            return
        super().print_string(text, indent=indent)

    # --- SSA names: the input's names, kept unique within each isolated scope
    def print_ssa_value(self, value: SSAValue) -> str:
        name = self.ssa_value_names.get(value)
        if name is not None:  # (the common case: a use)
            index = self._grouped.get(value)
            self.print_string("%" + name if index is None else f"%{name}#{index}")
            return name
        if self.source is not None:
            return self._print_kept_name(value)
        group = _group_of(value)
        if group is not None:
            base, index = group
            first = value.op.results[0]
            base_name = self.ssa_value_names.get(first)
            if base_name is None:
                base_name = self._fresh(base)
                self._name_group(value.op.results, base_name)
            self.print_string(f"%{base_name}#{index}")
            return base_name
        name = self._fresh(value.name_hint)
        self.ssa_value_names[value] = name
        self.print_string("%" + name)
        return name

    def _print_kept_name(self, value: SSAValue) -> str:
        """With a source map: a value read from the input keeps its name; a new one takes
        its name hint (the name of the value it replaced, carried over by xDSL's
        ``replace_all_uses_with``) when no live value of its function has it, else the
        hint with the first free ``_N`` suffix."""
        src = self.source
        name = src.names.get(value)
        if name is not None:
            self.ssa_value_names[value] = name
            if isinstance(value, OpResult) and len(value.op.results) > 1 and all(
                src.names.get(r) == name for r in value.op.results
            ):
                self._grouped[value] = value.index
                self.print_string(f"%{name}#{value.index}")
            else:
                self.print_string("%" + name)
            return name
        group = _group_of(value)
        taken = self._taken_names(value)
        if group is not None:  # a new op's results, named as one group
            base = self._fresh_kept(group[0], taken)
            self._name_group(value.op.results, base)
            self.print_string(f"%{base}#{group[1]}")
            return base
        name = self._fresh_kept(value.name_hint, taken)
        self.ssa_value_names[value] = name
        self.print_string("%" + name)
        return name

    @staticmethod
    def _fresh_kept(hint: str | None, taken: set[str]) -> str:
        """``hint`` if no live value has it, else a name of the same kind that none has: a
        numeric one for a numeric hint (MLIR's ``%3_1`` is not a name: a name that starts
        with a digit is all digits), ``hint_N`` otherwise."""
        # (names are only ever added to `taken`, so the search for a hint goes on from where
        # it last stopped: the same name as a search from 0, without a quadratic walk)
        resume = taken.resume if isinstance(taken, _Taken) else {}
        if hint and not hint.isdigit():
            candidate, k = hint, resume.get(hint, 0)
            if k:
                candidate = f"{hint}_{k}"
            while candidate in taken:
                k += 1
                candidate = f"{hint}_{k}"
            resume[hint] = k
        elif hint and hint not in taken:
            candidate = hint
        else:
            k = resume.get("", 0)
            while str(k) in taken:
                k += 1
            candidate = str(k)
            resume[""] = k
        taken.add(candidate)
        return candidate

    def _taken_names(self, value: SSAValue) -> set[str]:
        """The names of the values read from the input that are still in the isolated op
        (a function) around ``value``, plus those given to new values there so far."""
        owner = value.op if isinstance(value, OpResult) else value.owner.parent_op()
        scope = owner
        while scope is not None and not scope.get_traits_of_type(IsolatedFromAbove):
            scope = scope.parent_op()
        if scope is None:
            scope = owner
            while scope is not None and scope.parent_op() is not None:
                scope = scope.parent_op()
        taken = self._taken.get(scope)
        if taken is None:
            names = self.source.names
            taken = _Taken()
            for op in scope.walk():
                for r in op.results:
                    n = names.get(r)
                    if n is not None:
                        taken.add(n)
                for region in op.regions:
                    for block in region.blocks:
                        for a in block.args:
                            n = names.get(a)
                            if n is not None:
                                taken.add(n)
            self._taken[scope] = taken
        return taken

    def _name_group(self, results, name: str) -> None:
        """``%name:N``: result i is printed ``%name#i``."""
        for r in results:
            self.ssa_value_names[r] = name
            self._grouped[r] = r.index

    def _fresh(self, hint: str | None) -> str:
        used = self.ssa_names
        if hint and hint.isdigit() and hint not in used:
            candidate = hint
        elif hint and not hint.isdigit():
            # (names are only ever added to a scope's table, so the search for a hint goes
            # on from where it last stopped: the name a search from 0 finds, without a
            # quadratic walk when many values share a hint)
            entry = self._resume.get(id(used))
            if entry is None or entry[0] is not used:
                entry = self._resume[id(used)] = (used, {})  # (the table kept: its id stays)
            resume = entry[1]
            k = resume.get(hint, 0)
            candidate = f"{hint}_{k}" if k else hint
            while candidate in used:
                k += 1
                candidate = f"{hint}_{k}"
            resume[hint] = k
        else:  # (no hint, or a number taken: `%4_1` is not an MLIR name, a fresh number is)
            candidate = self.new_value_name()
            while candidate in used:
                candidate = self.new_value_name()
        used[candidate] = 1
        return candidate

    def print_results(self, op: Operation) -> None:
        results = op.results
        if not results:
            return
        if len(results) > 1 and _is_group(op):
            src = self.source
            if src is not None:
                name = src.names.get(results[0])
                if name is None or any(src.names.get(r) != name for r in results):
                    name = self._fresh_kept(results[0].name_hint, self._taken_names(results[0]))
            else:
                name = self._fresh(results[0].name_hint)
            self._name_group(results, name)
            self.print_string(f"%{name}:{len(results)} = ")
            return
        self.print_list(results, self.print_ssa_value)
        self.print_string(" = ")

    def print_op(self, op: Operation) -> None:
        src = self.source
        if src is not None and src.filled:
            filled = src.filled.get(op)
            if filled:  # properties the input's release does not write: left out again
                saved = {k: op.properties.pop(k) for k in filled if k in op.properties}
                try:
                    self._print_op(op)
                finally:
                    op.properties.update(saved)
                return
        self._print_op(op)

    def _print_op(self, op: Operation) -> None:
        # xDSL's print_op, with what it asks of each op's class (isolated scope? custom
        # format?) decided once per class: 15% of the printing time went to those questions
        how = _HOW.get(type(op))
        if how is None:
            how = _HOW[type(op)] = (
                bool(op.get_traits_of_type(IsolatedFromAbove)),
                not isinstance(op, UnregisteredOp) and Operation.print is not type(op).print,
                _fast_printer(type(op)),
            )
        scope, custom, fast = how
        if not custom or self.print_generic_format or self.diagnostic.op_messages:
            super().print_op(op)
            return
        if fast is not None and self._syntax is not None and (
            variant_active(type(op), self._syntax) or self._syntax.op_name(op.name) != op.name
        ):
            fast = None  # (another release's syntax or name: the op's own printer)
        if fast is not None and FAST_PRINT and not op.attributes and _plain(op, fast[1]):
            if op.results:
                self.print_results(op)
            fast[0](self, op)
            self._print_op_location(op.location)
            return
        if op.results:
            self.print_results(op)
        if scope:
            self.enter_scope()
        self.print_string(op.name if self._syntax is None else self._syntax.op_name(op.name))
        op.print(self)
        self._print_op_location(op.location)
        if scope:
            self.exit_scope()

    def _print_op_location(self, loc: Attribute) -> None:
        src = self.source
        if src is not None and (id(loc) in src.implicit_locs or not src.loc_texts):
            return  # written without one (MLIR gives it the same location again), or a
            # module written without locations (a new op's `loc(unknown)` too)
        self.print_string(" ")
        self.print_attribute(loc)

    # (printing an attribute: a fused location's metadata, an attribute dictionary's value;
    # MLIR resolves a location alias there on the spot, as any attribute alias)
    _in_attribute = False

    def _print_fused(self, loc: FusedLoc) -> None:
        """``fused<METADATA>[...]``: the metadata is an attribute, printed as one (a location
        in it as ``loc(...)``, not as the location being printed around it)."""
        with self.in_location():
            self.print_string("fused<")
            inside, self.printing_location = self.printing_location, False
            meta, self._in_attribute = self._in_attribute, True
            try:
                self.print_attribute(loc.metadata)
            finally:
                self.printing_location, self._in_attribute = inside, meta
            self.print_string(">")
            self.print_attribute(loc.locations)

    def print_attr_dict(self, attr_dict) -> None:
        # (every attribute dictionary: an op's attributes and properties, an argument's, a
        # dictionary attribute's, the module's)
        inside, self._in_attribute = self._in_attribute, True
        try:
            super().print_attr_dict(attr_dict)
        finally:
            self._in_attribute = inside

    def print_block_argument(self, arg, print_type: bool = True) -> None:
        self.print_ssa_value(arg)
        if print_type:
            self.print_string(": ")
            self.print_attribute(arg.type)
            self._print_op_location(arg.location)

    def print_attribute(self, attribute: Attribute) -> None:
        # The text of a type and the alias name of a location are found by the attribute's
        # identity first (the reader makes equal types one object, and ops carry the alias
        # table's own location objects): hashing a type or a location hashes all its
        # parameters, recursively, and was a fifth of the printing time.  `_by_id` keeps each
        # attribute it keys alive, so an id is never reused for another attribute.
        hit = self._by_id.get(id(attribute))
        if hit is not None and not self.printing_location and not self._in_attribute:
            self.print_string(hit[1])
            return
        kind = _KINDS.get(type(attribute))
        if kind is None:
            kind = _KINDS[type(attribute)] = _attribute_kind(attribute)
        if kind == "type" and self._type_text is not None:
            # types repeat hundreds of times per kernel: print each once (only the outermost:
            # hashing every level of a deeply nested type costs depth squared)
            text = self._type_text.get(attribute)
            if text is None:
                sub = TritonPrinter(io.StringIO(), self._attr_names, self._loc_names)
                sub._type_text = None  # noqa: SLF001
                Printer.print_attribute(sub, attribute)
                text = self._type_text[attribute] = sub.stream.getvalue()
            self._by_id[id(attribute)] = (attribute, text)
            self.print_string(text)
            return
        if kind == "type":
            Printer.print_attribute(self, attribute)
            return
        if kind == "loc":
            src = self.source
            if src is not None and not self.printing_location:
                written = src.loc_texts.get(id(attribute))
                if written is not None:  # as the input wrote it
                    self.print_string(written[1])
                    return
            name = self._loc_names.get(attribute)
            if name is not None and (self.printing_location or self._in_attribute):
                # inside a location (or an attribute: a fused location's metadata, an
                # attribute dictionary) MLIR resolves an alias on the spot: only one defined
                # above the module may be named there
                early = getattr(self._loc_names, "early", None)
                if early is not None and name not in early:
                    name = None
            if name is not None:
                if not self.printing_location and not self._in_attribute:
                    self._by_id[id(attribute)] = (attribute, f"loc({name})")
                if self.printing_location:
                    self.print_string(name)
                else:
                    self.print_string(f"loc({name})")
                return
            if isinstance(attribute, FusedLoc) and not isinstance(attribute.metadata, NoneAttr):
                self._print_fused(attribute)
                return
        elif kind == "layout":
            name = self._attr_names.get(attribute)
            if name is not None:
                self.print_string(name)
                return
            if self._syntax is not None:  # (a release that spells it `#triton_gpu.blocked` ...)
                spelled = self._syntax.attr_name(attribute.name)
                if spelled != attribute.name:
                    self.print_string(("!" if isinstance(attribute, TypeAttribute) else "#") + spelled)
                    attribute.print_parameters(self)
                    return
        elif kind == "dense":
            if _print_splat(self, attribute) or _print_complex(self, attribute):
                return
        elif kind == "wide array":
            attribute.print_as_written(self)
            return
        elif kind == "resource":  # (the key as MLIR prints it: a bare name or a string)
            key = attribute.resource_handle.data
            self.print_string("dense_resource<")
            if _BARE_KEY.fullmatch(key):
                self.print_string(key)
            else:
                self.print_string_literal(key)
            self.print_string("> : ")
            self.print_attribute(attribute.type)
            return
        super().print_attribute(attribute)


_KINDS: dict[type, str] = {}
_HOW: dict[type, tuple] = {}

FAST_PRINT = True
"""Print the common one-line ops (those whose declarative format is one of a few shapes,
with no attribute and every property at its default) straight to the stream instead of
through xDSL's format program; the text is the same (test/test_fast_path.py compares both
ways over the corpus).  False: always the op's own printer."""


def _fast_printer(cls):
    """``(print, defaults)`` for ops of ``cls`` in a plain state, or None: ``print`` writes
    the op from its name to its last type; ``defaults`` are the properties it may carry (at
    exactly these values: anything else is printed by the op's own printer)."""
    from ..dialects.families import ArrowOp
    from .fast_ops import FORMAT_KINDS

    fmt = getattr(cls, "assembly_format", None)
    if fmt is None and hasattr(cls, "get_irdl_definition"):
        fmt = cls.get_irdl_definition().assembly_format
    if fmt is None:
        return None
    kind = FORMAT_KINDS.get(fmt)
    if kind is None or (kind == "arrow" and not issubclass(cls, ArrowOp)):
        return None
    props = cls.get_irdl_definition().properties
    defaults = {name: getattr(d, "default_value", None) for name, d in props.items()}
    if any(v is None for v in defaults.values()):
        return None  # a property printed in the attribute dictionary (`{axis = 1 : i32}`)
    return _FAST_KINDS[kind], defaults


def _plain(op: Operation, defaults: dict) -> bool:
    props = op.properties
    if not props:
        return True
    for name, value in props.items():
        default = defaults.get(name)
        if default is None or value != default:
            return False
    return True


def _print_binary(p: "TritonPrinter", op: Operation) -> None:
    a, b = op.operands
    p.print_string(op.name + " ")
    p.print_ssa_value(a)
    p.print_string(", ")
    p.print_ssa_value(b)
    p.print_string(" : ")
    p.print_attribute(op.results[0].type)


def _print_unary(p: "TritonPrinter", op: Operation) -> None:
    p.print_string(op.name + " ")
    p.print_ssa_value(op.operands[0])
    p.print_string(" : ")
    p.print_attribute(op.results[0].type)


def _print_conversion(sep: str):
    def print_(p: "TritonPrinter", op: Operation) -> None:
        x = op.operands[0]
        p.print_string(op.name + " ")
        p.print_ssa_value(x)
        p.print_string(" : ")
        p.print_attribute(x.type)
        p.print_string(sep)
        p.print_attribute(op.results[0].type)

    return print_


_FAST_KINDS = {
    "binary": _print_binary,
    "unary": _print_unary,
    "cast": _print_conversion(" to "),
    "arrow": _print_conversion(" -> "),
}


def _attribute_kind(attribute: Attribute) -> str:
    """How the printer treats attributes of this class (decided once per class)."""
    if isinstance(attribute, TensorType | PointerType):
        return "type"
    if isinstance(attribute, LocationAttr | FileLineColRange):
        return "loc"
    if isinstance(attribute, OpaqueBodyAttr):
        return "layout"
    if isinstance(attribute, DenseIntOrFPElementsAttr):
        return "dense"
    if isinstance(attribute, DenseResourceAttr):
        return "resource"
    if isinstance(attribute, WideDenseArrayAttr):
        return "wide array"
    return "other"


def _is_group(op: Operation) -> bool:
    """Results that the input named as one group (``%r:3 = ...``): same name on all."""
    hint = op.results[0].name_hint
    return hint is not None and all(r.name_hint == hint for r in op.results)


def _group_of(value: SSAValue) -> tuple[str, int] | None:
    if isinstance(value, OpResult) and len(value.op.results) > 1 and _is_group(value.op):
        return value.name_hint, value.index
    return None


def _print_splat(printer: Printer, attr: DenseIntOrFPElementsAttr) -> bool:
    """Print ``dense<x> : T`` when every element has the same *bits* (NaN-safe)."""
    elem = attr.get_element_type()
    if not isinstance(elem, AnyFloat | IntegerType):
        return False
    size = elem.compile_time_size
    data = attr.data.data
    n = len(data) // size
    if n == 0 or data != data[:size] * n:
        return False
    printer.print_string("dense<")
    if isinstance(elem, AnyFloat):
        (value,) = elem.unpack(data[:size], 1)
        if value != value or value in (float("inf"), float("-inf")):
            printer.print_string("0x" + data[:size][::-1].hex().upper())
        else:
            printer.print_float(value, elem)
    else:
        (value,) = elem.unpack(data[:size], 1)
        printer.print_int(value, elem)
    printer.print_string("> : ")
    printer.print_attribute(attr.get_type())
    return True


_BARE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")


def _print_complex(printer: Printer, attr: DenseIntOrFPElementsAttr) -> bool:
    """``dense<(re,im)>`` / ``dense<[(re,im), ...]>`` of a tensor of complex numbers, each
    part from its bits (a NaN's payload kept: hexadecimal, as MLIR prints it); more than 100
    elements as their bytes in hexadecimal, as xDSL prints them (MLIR reads both)."""
    elem = attr.get_element_type()
    if not isinstance(elem, ComplexType):
        return False
    part = elem.element_type
    size = part.compile_time_size
    data = attr.data.data
    n = len(data) // (2 * size)
    splat = n > 0 and data == data[: 2 * size] * n
    printer.print_string("dense<")
    if n > 100 and not splat:
        printer.print_string('"0x' + data.hex().upper() + '"')
    elif n:
        sub = TritonPrinter(io.StringIO(), {}, {})
        floats = isinstance(part, AnyFloat)
        values = part.unpack(data[: 2 * size] if splat else data, 2 if splat else 2 * n)
        texts = []
        for i, value in enumerate(values):
            if floats and (value != value or value in (math.inf, -math.inf)):
                texts.append("0x" + data[i * size : (i + 1) * size][::-1].hex().upper())
                continue
            at = sub.stream.tell()
            if floats:
                sub.print_float(value, part)
            else:
                sub.print_int(value, part)
            texts.append(sub.stream.getvalue()[at:])
        items = [f"({texts[i]},{texts[i + 1]})" for i in range(0, len(texts), 2)]
        if splat:
            printer.print_string(items[0])
        else:
            for dim in reversed(list(attr.get_type().get_shape())[1:]):
                items = ["[" + ", ".join(items[j : j + dim]) + "]" for j in range(0, len(items), dim)]
            printer.print_string("[" + ", ".join(items) + "]")
    printer.print_string("> : ")
    printer.print_attribute(attr.get_type())
    return True


def write_module(mod: TritonModule, keep_text: bool | None = None) -> str:
    """``mod`` as text, in the syntax of the Triton release it was read as.

    ``keep_text`` (default: on, ``TTOPT_KEEP_TEXT=0`` turns it off): what no pass changed is
    copied from the input (:mod:`ttopt.ir.source`); off, every op is printed (what the
    printer makes of an op is then all there is: the tests of the printer use this)."""
    with versions.syntax(mod.triton_version):
        return _write_module(mod, KEEP_TEXT if keep_text is None else keep_text)


class _NamesByValue:
    """``{value: name}`` of the first name of each value in ``items`` (name, value), made on
    the first lookup: hashing every location alias's value (nested locations, hashed field
    by field) cost ~2% of a run, and a module copied as read looks up none."""

    early: set[str] | None = None
    """The names that a location nested in another may use (aliases defined above the
    module); None: every name."""

    def __init__(self, items):
        self._items = items
        self._map: dict[Attribute, str] | None = None

    def get(self, key, default=None):
        if self._map is None:
            found: dict[Attribute, str] = {}
            for name, value in self._items:
                found.setdefault(value, name)
            self._map = found
        return self._map.get(key, default)


def _write_module(mod: TritonModule, keep_text: bool) -> str:
    locs = mod.locs
    loc_names = _NamesByValue(list(locs.values.items()) if locs is not None else [])
    if locs is not None and len(locs.offsets) == len(locs.lines):  # (the same definitions, in order)
        loc_names.early = {name for name, (_, before) in zip(locs.offsets, locs.lines) if before}
    attr_names: dict[Attribute, str] = {}
    for name, value in mod.attr_aliases.items():
        attr_names.setdefault(value, name)

    out = io.StringIO()
    src = mod.source_map if keep_text else None
    if src is not None and src.prologue is not None and src.aliases == mod.attr_aliases:
        found = src.clean(mod.op, 0)
        if found is not None:  # the module as read, but for what the passes changed
            out.write(src.prologue)
            printer = TritonPrinter(out, attr_names, loc_names, src)
            printer._copy(mod.op, found, first=True)  # noqa: SLF001
            out.write(src.epilogue)
            text = out.getvalue()
            return text.replace("\n", "\r\n") if src.crlf else text
    # an alias's own value, not its name; a location in it too (the definitions come first,
    # above every location alias)
    plain = TritonPrinter(out, {}, _NamesByValue([]))
    for name, value in mod.attr_aliases.items():
        out.write(f"{name} = ")
        plain.print_attribute(value)
        out.write("\n")
    if locs is not None:
        for line, before in locs.lines:
            if before:
                out.write(line + "\n")
    printer = TritonPrinter(out, attr_names, loc_names, src)
    _print_module_op(printer, mod.op)
    out.write("\n")
    if locs is not None:
        for line, before in locs.lines:
            if not before:
                out.write(line + "\n")
    for text in getattr(mod.op, "file_metadata", ()):  # (`{-# dialect_resources: .. #-}`)
        out.write(text + "\n")
    return out.getvalue()


def _print_module_op(printer: TritonPrinter, op: ModuleOp) -> None:
    printer.print_string("module")
    if op.sym_name is not None:
        printer.print_string(" ")
        printer.print_symbol_name(op.sym_name.data)
    attrs = {k: v for k, v in op.attributes.items() if k != "sym_name"}
    if attrs:
        printer.print_string(" attributes ")
        printer.print_attr_dict(attrs)
    printer.print_string(" ")
    printer.print_region(op.body, print_entry_block_args=False, print_empty_block=False)
    printer.print_string(" ")
    printer.print_attribute(op.location)
