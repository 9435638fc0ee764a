"""Value numbering: one number per *value*, equal for SSA values that provably hold the same
bits whenever both are defined.

Two SSA values get the same number when

* they are the same SSA value; or
* they are result ``i`` of two ops with the same name, the same properties and attributes
  (after :func:`normalized_properties`: ``fastmath<none>`` and ``overflow<none>`` are the
  absence of flags, as MLIR's parser and printer treat them), the same result types, and
  operands with the same numbers -- for a *pure* op (no memory effect at all, see
  :func:`ttopt.analysis.effects.is_pure`), without regions: such an op's results are a
  function of its operands and attributes; or
* they are constants of the same type and bits: ``arith.constant`` (a ``dense<..>`` splat
  and a ``tt.splat`` of a scalar ``arith.constant`` with the same bits are one number;
  floats compare by their bits: ``0.0`` and ``-0.0`` differ, as do NaN payloads, and a
  scalar NaN constant equals no other: :func:`constant_key`); or
* a commutative *integer* op (``addi muli andi ori xori`` and integer ``max``/``min``) has
  its two operands the other way round.  Integer ops only: a float op with two NaN operands
  may return either payload, so ``a + b`` and ``b + a`` are not bit-identical everywhere; or
* one was declared an alias of the other with :meth:`ValueNumbering.alias` (a pass that knows
  two values are equal, e.g. an ``scf.while`` ``after`` argument and the value
  ``scf.condition`` forwards to it in the same iteration).

Never numbered alike: results of ops with any memory effect (loads included: two loads of
one address may read different memory), of ops with unknown effects or with regions, and
``ub.poison`` (two poisons need not be the same value).  Block arguments are their own
number.  Equal numbers mean equal values *at any point where both are defined*: a value
defined in a loop body is compared with values of the same iteration only, which is all a
pass that walks dominating definitions sees.

Numbers are plain ints, assigned lazily (:meth:`ValueNumbering.number`) with an explicit
stack: an operand chain thousands of ops long does not recurse.  The numbering is valid
while the numbered ops stay as they are; a pass that replaces a value by an equal one
(a merged load by the kept one) may keep using it.

``redundant-reduce`` has its own copy of an older, SSA-keyed numbering; it may adopt this
one (same rules, plus constants, commuted integer operands and normalized flags).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable

from xdsl.dialects.arith import FastMathFlagsAttr, IntegerOverflowAttr
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    FloatData,
    IntAttr,
    IntegerAttr,
    IntegerType,
)
from xdsl.ir import Attribute, Operation, OpResult, SSAValue
from xdsl.traits import Pure

from ..xdsl_compat import unchecked, unchecked_data
from .effects import is_pure

# integer ops whose two operands commute bit-exactly
COMMUTATIVE_INT = frozenset(
    {
        "arith.addi", "arith.muli", "arith.andi", "arith.ori", "arith.xori",
        "arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui",
    }
)
_FLAG_ATTRS = (FastMathFlagsAttr, IntegerOverflowAttr)
# pure ops that still must not be numbered alike
NEVER_EQUAL = frozenset({"ub.poison"})


def _is_empty_flags(attr: Attribute) -> bool:
    """``#arith.fastmath<none>`` / ``#arith.overflow<none>``: flag sets that are empty."""
    return type(attr) in _FLAG_ATTRS and not attr.data


def normalized_properties(op: Operation) -> tuple:
    """``op``'s properties as a sorted tuple, empty fastmath/overflow flag sets left out."""
    return tuple(sorted((k, v) for k, v in op.properties.items() if not _is_empty_flags(v)))


def splat_scalar(attr: Attribute) -> Attribute | None:
    """The scalar element (``IntegerAttr``/``FloatAttr``) of a splat ``dense<..>`` attribute,
    else None."""
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        return None
    hit = _SPLATS.get(id(attr))  # (the reader shares equal constants: one look per object)
    if hit is not None and hit[0] is attr:
        return hit[1]
    found = _splat_scalar(attr)
    if found is None:  # (only splats kept: a large table of constants is not held)
        return None
    if len(_SPLATS) >= 4096:
        _SPLATS.clear()
    _SPLATS[id(attr)] = (attr, found)  # (the attribute kept alive: its id stays its own)
    return found


_SPLATS: dict[int, tuple[Attribute, Attribute]] = {}


def _splat_scalar(attr) -> Attribute | None:
    data = attr.data.data
    n = len(attr)
    if n == 0 or len(data) % n:
        return None
    k = len(data) // n
    if data != data[:k] * n:
        return None
    scalar = _first_element(attr.get_element_type(), data[:k])
    if scalar is not None:
        return scalar
    try:
        return next(iter(attr.iter_attrs()))
    except (NotImplementedError, StopIteration):
        return None


def _first_element(elem: Attribute, one: bytes) -> Attribute | None:
    """What ``next(iter(attr.iter_attrs()))`` builds from a dense attribute's first element
    (its bytes ``one``), for integers of 1, 8, 16, 32 or 64 bits and f16/f32/f64, by the
    steps of xDSL's ``iter_unpack`` and constructors (``struct`` with the type's format; an
    ``i1``'s value normalized) without their checks (:func:`unchecked`): 2 us instead of 8
    per distinct constant (``test_fast_attrs.test_splat_scalars_equal_xdsls`` compares the
    two).  None: any other element type, or an ``i1`` out of range, left to xDSL."""
    is_int = type(elem) is IntegerType
    if not (elem.width.data in _FAST_WIDTHS if is_int else type(elem) in _FAST_FLOATS):
        return None
    fmt = elem.format
    if len(one) != struct.calcsize(fmt):  # (bytes of another length: xDSL's error)
        return None
    value = struct.unpack(fmt, one)[0]
    if not is_int:
        # (FloatAttr rounds the value through its type's format: for a value unpacked from
        # that format this changes nothing, as the test checks against xDSL's)
        return unchecked(FloatAttr, unchecked_data(FloatData, value), elem)
    if elem.width.data == 1:  # (wider: a value of the type's own format is already normalized)
        value = elem.normalized_value(value)
        if value is None:
            return None
    return unchecked(IntegerAttr, unchecked_data(IntAttr, value), elem)


_FAST_WIDTHS = frozenset({1, 8, 16, 32, 64})
_FAST_FLOATS = frozenset({Float16Type, Float32Type, Float64Type})  # (struct's formats)


def constant_key(value_attr: Attribute, typ: Attribute):
    """The key of a constant of type ``typ`` with value ``value_attr`` (scalar attribute, or
    ``dense<..>``): a splat is keyed by its element.  None: a scalar NaN, equal to no other
    constant.  A ``FloatAttr`` holds a Python float, in which an f16 NaN's payload and an
    f32 NaN's signalling bit do not survive (``0x7F800001`` and ``0x7FC00001`` read as one
    value): so a NaN splat is keyed by its ``dense`` bytes, which are exact, and a scalar NaN
    by nothing."""
    scalar = splat_scalar(value_attr)
    if scalar is not None and _is_nan(scalar):
        scalar = None  # (the dense attribute itself: its bytes)
    elif scalar is None and _is_nan(value_attr):
        return None
    return ("const", typ, scalar if scalar is not None else value_attr)


def _is_nan(attr: Attribute) -> bool:
    if not isinstance(attr, FloatAttr):
        return False
    value = attr.value.data
    return value != value


def constant_attr(value: SSAValue) -> Attribute | None:
    """The value attribute of an ``arith.constant`` defining ``value``, or of the scalar
    constant a ``tt.splat`` defining it splats (its scalar attribute); else None."""
    op = value.owner if isinstance(value, OpResult) else None
    if op is None:
        return None
    if op.name == "arith.constant":
        return op.properties.get("value")
    if op.name == "tt.splat" and len(op.operands) == 1:
        inner = op.operands[0]
        inner_op = inner.owner if isinstance(inner, OpResult) else None
        if inner_op is not None and inner_op.name == "arith.constant":
            return inner_op.properties.get("value")
    return None


def int_constant(value: SSAValue) -> tuple[int, int] | None:
    """``(v, width)`` when ``value`` is an integer constant (scalar, splat ``dense``, or a
    ``tt.splat`` of a scalar constant) whose every element is ``v``; ``v`` in signed form
    (``i1`` true is -1).  Else None."""
    attr = constant_attr(value)
    if attr is None:
        return None
    scalar = attr if isinstance(attr, IntegerAttr) else splat_scalar(attr)
    if not isinstance(scalar, IntegerAttr):
        return None
    typ = scalar.type
    if not isinstance(typ, IntegerType):
        return None
    width = typ.width.data
    v = scalar.value.data & ((1 << width) - 1)
    if v >= 1 << (width - 1):
        v -= 1 << width
    return v, width


def _numberable(op: Operation) -> bool:
    return not op.regions and op.name not in NEVER_EQUAL and is_pure(op)


class ValueNumbering:
    """Numbers for SSA values (see the module docstring).  ``pure_ops=False`` turns the
    numbering into SSA identity (each value its own number), for a pass's option that asks
    for the plain behaviour."""

    def __init__(self, pure_ops: bool = True):
        self.pure_ops = pure_ops
        self._num: dict[SSAValue, int] = {}
        self._table: dict[object, int] = {}
        self._count = 0
        # attributes as small ints: by object first (the reader shares type objects), then
        # by value (hashing a tensor type with its encoding is slow; once per object)
        self._by_id: dict[int, tuple[Attribute, int]] = {}
        self._by_value: dict[Attribute, int] = {}
        self._pure_class: dict[type, bool] = {}

    # ------------------------------------------------------------------ queries
    def number(self, value: SSAValue) -> int:
        n = self._num.get(value)
        if n is not None:
            return n
        if not self.pure_ops:
            return self._fresh(value)
        self._number_iteratively(value)
        return self._num[value]

    def same(self, a: SSAValue | None, b: SSAValue | None) -> bool:
        """Both absent, or both present with one number."""
        if a is None or b is None:
            return a is b
        return a is b or self.number(a) == self.number(b)

    def numbers(self, values: Iterable[SSAValue]) -> tuple[int, ...]:
        return tuple(self.number(v) for v in values)

    def constant_number(self, value_attr: Attribute, typ: Attribute) -> int:
        """The number an ``arith.constant`` of type ``typ`` and value ``value_attr`` has (or
        would have: no op needs to exist)."""
        key = self._const_key(value_attr, typ)
        return self._unique() if key is None else self._intern(key)  # (None: a scalar NaN)

    def attribute(self, attr: Attribute) -> int:
        """A small int per attribute value: one int for equal attributes, different ints
        for different ones (each attribute object hashed once: a tensor type with its
        encoding is slow to hash)."""
        return self._attr(attr)

    def structural(self, op: Operation) -> bool:
        """Are ``op``'s results numbered by their key (``op``'s name, properties and
        attributes, result types, operand numbers)?  If not, each has a number of its own
        (or, declared with :meth:`alias`, another value's)."""
        return self.pure_ops and self._numberable(op)

    # ------------------------------------------------------------------ facts
    def alias(self, value: SSAValue, like: SSAValue) -> bool:
        """Declare ``value`` equal to ``like`` wherever a pass compares them (the caller's
        proof).  Only for a value not numbered yet (returns False and does nothing
        otherwise)."""
        if value in self._num:
            return False
        self._num[value] = self.number(like)
        return True

    # ------------------------------------------------------------------ internals
    def _unique(self) -> int:
        self._count += 1
        return -self._count  # negative: unique, never equal to a key's number

    def _fresh(self, value: SSAValue) -> int:
        n = self._num[value] = self._unique()
        return n

    def _intern(self, key) -> int:
        n = self._table.get(key)
        if n is None:
            n = self._table[key] = len(self._table) + 1
        return n

    def _attr(self, attr: Attribute) -> int:
        """A small int per attribute value."""
        known = self._by_id.get(id(attr))
        if known is not None:
            return known[1]
        n = self._by_value.get(attr)
        if n is None:
            n = self._by_value[attr] = len(self._by_value) + 1
        self._by_id[id(attr)] = (attr, n)  # (the object kept alive: its id stays its own)
        return n

    def _const_key(self, value_attr: Attribute, typ: Attribute):
        key = constant_key(value_attr, typ)
        if key is None:
            return None
        _, t, v = key
        return ("const", self._attr(t), self._attr(v))

    def _key(self, op: Operation, index: int):
        if op.name == "arith.constant" and "value" in op.properties:
            return self._const_key(op.properties["value"], op.results[index].type)
        if op.name == "tt.splat":
            attr = constant_attr(op.results[0])
            if attr is not None and not isinstance(attr, DenseIntOrFPElementsAttr):
                return self._const_key(attr, op.results[0].type)
        operands = [self._num[o] for o in op.operands]
        if len(operands) == 2 and op.name in COMMUTATIVE_INT:
            operands.sort()
        a = self._attr
        return (
            op.name,
            tuple((k, a(v)) for k, v in normalized_properties(op)) if op.properties else (),
            tuple((k, a(v)) for k, v in sorted(op.attributes.items())) if op.attributes else (),
            tuple(a(r.type) for r in op.results),
            tuple(operands),
            index,
        )

    def _numberable(self, op: Operation) -> bool:
        cls = type(op)
        static = self._pure_class.get(cls)
        if static is None:
            static = self._pure_class[cls] = cls.has_trait(Pure) and op.name not in NEVER_EQUAL
        if static:
            return not op.regions
        return _numberable(op)

    def _number_iteratively(self, root: SSAValue) -> None:
        """Number ``root`` and the values it is computed from, operands first.  Each value is
        visited at most twice: once to push its unnumbered operands, once to number it (if
        an operand is still unnumbered then, the IR has a cycle -- invalid IR only -- and
        the value gets a number of its own)."""
        num = self._num
        stack: list[SSAValue] = [root]
        expanded: set[SSAValue] = set()
        while stack:
            value = stack[-1]
            if value in num:
                stack.pop()
                continue
            op = value.op if isinstance(value, OpResult) else None
            if op is None or not self._numberable(op):
                self._fresh(value)
                stack.pop()
                continue
            if value not in expanded:
                expanded.add(value)
                pending = [o for o in op.operands if o not in num]
                if pending:
                    stack.extend(pending)
                    continue
            stack.pop()
            if any(o not in num for o in op.operands):
                self._fresh(value)  # a cycle
                continue
            try:
                key = self._key(op, value.index)
                hash(key)
            except TypeError:  # an attribute that cannot be hashed: no equal values
                self._fresh(value)
                continue
            if key is None:  # (a scalar NaN constant: no equal values)
                self._fresh(value)
                continue
            num[value] = self._intern(key)


__all__ = [
    "COMMUTATIVE_INT",
    "ValueNumbering",
    "constant_attr",
    "constant_key",
    "int_constant",
    "normalized_properties",
    "splat_scalar",
]
