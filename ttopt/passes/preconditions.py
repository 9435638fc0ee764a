"""Cheap necessary conditions on a module's text for ttopt's own passes to rewrite anything.

Used by the in-process hook (:mod:`ttopt.triton_hook`): when no pass of the pipeline can
rewrite anything in a module Triton printed, the module is not even read.  Written for
Triton's own printing (a comment after an op or other spacing can make a condition miss a
rewrite), so ``ttopt.run_pipeline`` does not use them.  A condition is false only where it is
sure; a wrong False could only miss a rewrite, never change what a kernel computes
(``test/test_triton_hook.py`` runs every fixture kernel and lit case of each pass and checks
that the condition holds wherever the pass rewrites).  Each is linear in the text (tests in
``test/test_hardening.py``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_LOAD_LINE = re.compile(r"^.*\btt\.load\b.*$", re.MULTILINE)
_LOAD_POINTER = re.compile(r"\btt\.load (%[^\s,:]+)")
_LOC_ALIAS = re.compile(r" loc\(#loc[0-9]*\)$")
# (`[^\S\n]*`: blanks other than a newline, \f and \r included, as the lexer skips them;
# never `\s*`, which runs on over the following lines from every line start: quadratic)
_FUNC_LINE = re.compile(r"^[^\S\n]*tt\.func\b.*$", re.MULTILINE)
_FUNC_ARG = re.compile(r"(%[^\s:,()]+): ")
# `%r = OP operands...` or `%r = "OP"(operands) ...`: one single-result op per line
_DEF = re.compile(r'^[^\S\n]*(%[^\s:=#,]+) = (?:"([\w.]+)"\(([^)\n]*)\)|([\w.]+)\b(.*))$', re.MULTILINE)
_OPERAND = re.compile(r"%[^\s,:()\[\]{}<>]+")
_CUTS = (" : ", " {", " <{", " loc(", " (")
_REDUCTION = re.compile(r'^[^\S\n]*%[^\s:=#,]+(?::[0-9]+)? = "tt\.(reduce|scan)"\(([^)\n]*)\)', re.MULTILINE)
_REDUCTION_NAME = re.compile(r"tt\.(?:reduce|scan)(?!\.return)")
# ops whose result has one value number with another only if their first operands have
# (none of them commutes: its operands are not interchangeable)
_POINTER_OPS = frozenset({"tt.addptr", "tt.splat", "tt.broadcast", "tt.expand_dims", "tt.reshape",
                          "tt.trans", "tt.advance", "tt.make_tensor_ptr", "ttg.convert_layout"})
_CONSTANT_LIKE = frozenset({"arith.constant", "tt.splat"})  # a splat of a constant == a dense constant
_REGION_OPS = frozenset({"tt.reduce", "tt.scan", "scf.if", "scf.for", "scf.while", "scf.execute_region",
                         "tt.map_elementwise"})
_DEPTH = 8


class _Text:
    """A module's text with what the preconditions read from it, each part computed once:
    the function's arguments and, per SSA value defined by a one-line single-result op, that
    op's name and operands (as printed, before the first `` : ``, attribute dictionary or
    location).  ``None`` for ``args``/``defs`` when the text has not exactly one function
    (SSA names are per function)."""

    def __init__(self, text: str):
        self.text = text
        self._parsed = False
        self.args: set[str] | None = None
        self.defs: dict[str, tuple[str, list[str]]] | None = None

    @staticmethod
    def of(text) -> "_Text":
        return text if isinstance(text, _Text) else _Text(text)

    def parse(self) -> bool:
        if not self._parsed:
            self._parsed = True
            funcs = _FUNC_LINE.findall(self.text)
            if len(funcs) == 1:
                self.args = set(_FUNC_ARG.findall(funcs[0]))
                self.defs = {}
                for name, generic, generic_operands, op, rest in _DEF.findall(self.text):
                    if generic:
                        self.defs[name] = (generic, _OPERAND.findall(generic_operands))
                        continue
                    cut = len(rest)
                    for c in _CUTS:
                        i = rest.find(c)
                        if 0 <= i < cut:
                            cut = i
                    self.defs[name] = (op, _OPERAND.findall(rest[:cut]))
        return self.defs is not None

    def shape(self, value: str, depth: int = _DEPTH, memo: dict | None = None):
        """What ``value`` is made of, as far as value numbering can tell values apart: a
        function argument or a ``tt.load`` is itself; a constant (or splat) matches any
        constant; an op its name and its operands' shapes; ``None`` (matches anything) for
        a block argument, a region op's or multi-result op's result, or past ``depth``."""
        memo = {} if memo is None else memo
        key = (value, depth)
        if key in memo:
            return memo[key]
        if value in self.args:
            shape = ("arg", value)
        elif depth == 0 or value not in self.defs:
            shape = None
        else:
            op, operands = self.defs[value]
            if op in _CONSTANT_LIKE:
                shape = ("const",)
            elif op == "tt.load":
                shape = ("value", value)  # loads are never numbered alike
            elif op in _REGION_OPS:
                shape = None
            else:
                shape = (op, tuple(self.shape(o, depth - 1, memo) for o in operands))
        memo[key] = shape
        return shape


def _alike(a, b) -> bool:
    """Whether two shapes may be values of one number (two-operand ops: in either order)."""
    if a is None or b is None:
        return True
    if a[0] != b[0]:
        return False
    if a[0] in ("arg", "value"):
        return a[1] == b[1]
    if a[0] == "const":
        return True
    x, y = a[1], b[1]
    if len(x) != len(y):
        return False
    if len(x) == 2 and _alike(x[0], y[1]) and _alike(x[1], y[0]):
        return True
    return all(_alike(p, q) for p, q in zip(x, y))


def _two_loads_of_one_pointer(text) -> bool:
    """Two ``tt.load`` that may read one address: the same printed type (the type after the
    last `` : `` of the op's line, its ``loc(#locN)`` aside), and the same *root* pointer or
    one of the roots unknown.

    Why this holds for any two loads ``redundant-load`` merges: they read one address, that
    is, pointers with one value number, so one type, printed the same way.  Two values have
    one value number only if they are one value, or results of the same op whose operands
    have one number in order (or swapped, for a commuting op); so following the first
    operand through ``tt.addptr``, ``tt.splat``, ``tt.broadcast`` ... (ops that do not
    commute) from both pointers reaches, at each step, values of one number.  Where both
    chains end at a function argument (the *root*), the two must be the same argument (an
    argument's number is its own).  A chain that ends anywhere else (a block argument, a
    load, an op not listed, a generic-form op) has an unknown root, which matches any.
    Anything unexpected in the text (several functions, ``tt.load`` elsewhere than as an
    op's name, a location that is not an alias) answers True."""
    t = _Text.of(text)
    count = t.text.count("tt.load")
    if count < 2:
        return False
    if '"tt.load"' in t.text:  # generic form: another spelling of the same type
        return True
    lines = _LOAD_LINE.findall(t.text)
    if len(lines) != count:  # "tt.load" twice on a line, or inside a string: cannot tell
        return True
    loads = []
    for line in lines:
        pointer = _LOAD_POINTER.search(line)
        line = _LOC_ALIAS.sub("", line)
        if pointer is None or "loc(" in line or " : " not in line:
            return True
        loads.append((line.rsplit(" : ", 1)[1], pointer.group(1)))
    if len({typ for typ, _ in loads}) == count:
        return False  # no two of one type
    if not t.parse():
        return True

    root_of: dict[str, str | None] = {}  # (memoised along each chain: linear in the text)

    def root(value: str) -> str | None:
        path = []
        for _ in range(len(t.defs) + 1):
            if value in root_of:
                found = root_of[value]
                break
            path.append(value)
            op, operands = t.defs.get(value, (None, ()))
            if op not in _POINTER_OPS or not operands:
                found = value if value in t.args else None
                break
            value = operands[0]
        else:
            found = value if value in t.args else None
        for v in path:
            root_of[v] = found
        return found

    seen: dict[str, set] = {}
    for typ, pointer in loads:
        r = root(pointer)
        roots = seen.setdefault(typ, set())
        if roots and (r is None or None in roots or r in roots):
            return True
        roots.add(r)
    return False


def _two_reductions_alike(text) -> bool:
    """Two ``tt.reduce`` (or two ``tt.scan``) whose operands may have one value number,
    operand by operand (:meth:`_Text.shape`, :func:`_alike`).  ``redundant-reduce`` merges
    only reductions whose operands have one number each, and two values have one number only
    if they are one value, constants of the same bits, or results of the same op from
    operands of one number (in order, or swapped for a two-operand op).  (When this is
    false for every pass, no earlier pass changes the module: loads stay the values they
    are.)"""
    t = _Text.of(text)
    count = len(_REDUCTION_NAME.findall(t.text))
    if count < 2:
        return False
    starts = _REDUCTION.findall(t.text)
    if len(starts) != count or not t.parse():
        return True
    memo: dict = {}
    seen: list[tuple[str, list]] = []
    for kind, operands in starts:
        shapes = [t.shape(o, _DEPTH, memo) for o in _OPERAND.findall(operands)]
        for other_kind, other in seen:
            if other_kind == kind and len(other) == len(shapes) and all(map(_alike, other, shapes)):
                return True
        seen.append((kind, shapes))
    return False


def _division_of_a_division(text) -> bool:
    """An ``arith.divf`` with an operand that is, through ops of one operand (``tt.splat``,
    ``tt.broadcast``, ``tt.expand_dims`` ... and any other), another ``arith.divf``: every
    rewrite of ``div-chain`` replaces such a pair (case 1 ``(a/b)/c``, case 2 ``c/(a/b)``,
    case 3 ``(a/b)/(c/d)``, the inner division reached through lift ops)."""
    t = _Text.of(text)
    count = t.text.count("arith.divf")
    if count < 2:
        return False
    if not t.parse():
        return True
    divisions = [operands for op, operands in t.defs.values() if op == "arith.divf"]
    if len(divisions) != count:  # a division on a line of its own kind, or in a string
        return True
    seen: set[str] = set()  # values already followed, none reaching a division
    for operands in divisions:
        for value in operands:
            for _ in range(len(t.defs) + 1):
                if value in seen:  # (each value followed once: linear in the text)
                    break
                op, inner = t.defs.get(value, (None, ()))
                if op == "arith.divf":
                    return True
                seen.add(value)
                if len(inner) != 1:
                    break
                value = inner[0]
    return False


PRECONDITIONS = {
    "redundant-load": _two_loads_of_one_pointer,
    "redundant-reduce": _two_reductions_alike,
    "div-chain": _division_of_a_division,
    "recip-hoist": lambda text: "arith.divf" in _Text.of(text).text,
}
"""For ttopt's own passes: a condition on the module's text without which the pass rewrites
nothing (false only when it can be sure; each takes the text or a :class:`_Text`).  Counting
an op's name in the text counts every op of that name (MLIR prints each op's full name, in
custom and generic form), and possibly more (the name inside a string): never fewer.  A
wrong False could only make the hook miss a rewrite, never change what a kernel computes;
``test/test_triton_hook.py`` checks every fixture kernel and lit case of each pass."""


def may_rewrite(pipeline: Sequence, text: str) -> bool:
    """False only if no pass of ``pipeline`` (pass instances) can rewrite anything in the
    module ``text``: every pass is ttopt's own class (not a subclass, not a replacement) with
    a precondition in :data:`PRECONDITIONS`, and each precondition is false."""
    from . import PASSES

    t = _Text(text)
    for p in pipeline:
        name = getattr(p, "name", None)
        check = PRECONDITIONS.get(name)
        if check is None or type(p) is not PASSES.get(name) or check(t):
            return True
    return False
