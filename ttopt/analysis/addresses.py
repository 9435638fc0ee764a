"""Which bytes a ``tt.load``/``tt.store`` may touch, enough to prove two accesses disjoint.

An access through a pointer ``ptr`` (a scalar pointer or a tensor of pointers) is described
(:class:`Access`) when ``ptr`` is

* ``tt.addptr P, off`` where ``P`` is *uniform* -- a scalar pointer, or ``tt.splat`` of one
  (through ``tt.broadcast``/``tt.expand_dims``/``ttg.convert_layout``): every lane is the
  same pointer ``p`` -- and ``off`` is an integer (tensor) of width ``w`` whose lanes are, mod
  ``2**w``, ``U + l`` with ``U = sum(c_i * s_i)`` the same for all lanes (``s_i`` scalar
  values, by value number) and ``l`` a lane's integer in an interval ``[lo, hi]``; or
* ``P`` itself, uniform (offset 0).

Offsets are analysed (:meth:`AddressAnalysis.linear`) through ``tt.make_range`` (``[start,
end - 1]``), integer constants (a non-splat ``dense`` by its min and max), ``tt.splat``,
``tt.broadcast``, ``tt.expand_dims``, ``tt.trans``, ``tt.reshape``, ``ttg.convert_layout``
(they move lanes: the *set* of lane values is kept, which is all that is used), ``arith.addi``,
``arith.subi``, ``arith.muli`` by a constant and ``arith.shli`` by a constant below ``w``;
any other scalar integer is a symbol ``s_i`` of its own, and a lane-wise ``arith`` op of
uniform operands is a uniform symbol.  Anything else (a loaded index, ``remsi``, a cast of a
tensor, nested ``tt.addptr``) is not described: such accesses are never proven disjoint.

Why ``mod 2**w`` is the right model: ``addi``/``subi``/``muli``/``shli`` wrap, and wrapping
is arithmetic mod ``2**w``, so the interval (computed over the integers) holds a
representative of each lane's offset.  ``tt.addptr`` turns the ``w``-bit offset into an
address ``p + ext(off) * S`` (``S`` the byte size of the pointee; Triton extends an ``i32``
offset by sign, and any extension keeps distinct ``w``-bit values distinct).

:func:`disjoint` proves two accesses touch no common byte when: the same ``p`` (one value
number), the same pointee size ``S``, the same offset width ``w`` (or one side is ``p``
itself), the same uniform part ``U`` (coefficients equal mod ``2**w``, so it cancels), and
lane intervals that do not intersect, with everything within a span ``< 2**(w-1)`` and
``span * S < 2**62``.  Then two lanes' offsets differ mod ``2**w`` (their difference is a
non-zero integer of magnitude below ``2**w``), their element indices differ, so the ``S``-byte
elements they address are disjoint (and no 64-bit address arithmetic wraps).  Masks are
ignored: a masked-off lane touches nothing, so counting every lane is conservative.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerType, TensorType
from xdsl.ir import OpResult, SSAValue

from ..dialects.tt_attrs import PointerType
from .value_numbering import ValueNumbering, constant_attr, int_constant

_LANE_MOVING = frozenset(
    {"tt.splat", "tt.broadcast", "tt.expand_dims", "tt.trans", "tt.reshape", "ttg.convert_layout"}
)
_UNIFORM_PTR = frozenset({"tt.splat", "tt.broadcast", "tt.expand_dims", "ttg.convert_layout"})


@dataclass(frozen=True)
class Linear:
    """Lanes ``sum(c * s for s, c in terms) + l``, ``l`` in ``[lo, hi]`` (mod ``2**width``)."""

    terms: tuple[tuple[int, int], ...]
    lo: int
    hi: int
    width: int

    @property
    def uniform(self) -> bool:
        return self.lo == self.hi


@dataclass(frozen=True)
class Access:
    """An access to ``base`` (the value number of a scalar pointer) at the offsets
    ``offset`` (None: ``base`` itself), elements of ``size`` bytes."""

    base: int
    offset: Linear | None
    size: int


def _owner(value: SSAValue):
    return value.owner if isinstance(value, OpResult) else None


def _int_width(typ) -> int | None:
    elem = typ.element_type if isinstance(typ, TensorType) else typ
    return elem.width.data if isinstance(elem, IntegerType) else None


def _byte_size(typ) -> int | None:
    if isinstance(typ, PointerType):
        return 8
    if isinstance(typ, IntegerType):
        return max(1, (typ.width.data + 7) // 8)
    width = getattr(typ, "bitwidth", None)
    if isinstance(width, int) and width % 8 == 0:
        return width // 8
    return None


def _terms(d: dict[int, int], width: int) -> tuple[tuple[int, int], ...]:
    mod = 1 << width
    return tuple(sorted((s, c % mod) for s, c in d.items() if c % mod))


class AddressAnalysis:
    """:meth:`access` and :meth:`disjoint` for one :class:`ValueNumbering`, memoised."""

    def __init__(self, numbering: ValueNumbering):
        self.numbering = numbering
        self._linear: dict[SSAValue, Linear | None] = {}
        self._access: dict[SSAValue, Access | None] = {}
        self._base: dict[SSAValue, tuple[int, int] | None] = {}

    # ------------------------------------------------------------------ pointers
    def uniform_base(self, ptr: SSAValue, depth: int = 0) -> int | None:
        """The value number of ``p`` when every lane of ``ptr`` is the scalar pointer ``p``."""
        if isinstance(ptr.type, PointerType):
            return self.numbering.number(ptr)
        op = _owner(ptr)
        if op is None or op.name not in _UNIFORM_PTR or len(op.operands) != 1 or depth > 16:
            return None
        return self.uniform_base(op.operands[0], depth + 1)

    def access(self, ptr: SSAValue) -> Access | None:
        if ptr in self._access:
            return self._access[ptr]
        result = self._compute_access(ptr)
        self._access[ptr] = result
        return result

    def base_and_size(self, ptr: SSAValue) -> tuple[int, int] | None:
        """The ``(base, size)`` that :meth:`access` gives ``ptr`` (None where it gives None
        for want of them), without its offset: cheap, and two accesses with other bases or
        sizes are never proven disjoint."""
        if ptr in self._base:
            return self._base[ptr]
        typ = ptr.type
        elem = typ.element_type if isinstance(typ, TensorType) else typ
        found = None
        if isinstance(elem, PointerType):
            size = _byte_size(elem.pointee)
            if size is not None:
                op = _owner(ptr)
                if op is not None and op.name == "tt.addptr" and len(op.operands) == 2:
                    base = self.uniform_base(op.operands[0])
                else:
                    base = self.uniform_base(ptr)
                if base is not None:
                    found = (base, size)
        self._base[ptr] = found
        return found

    def _compute_access(self, ptr: SSAValue) -> Access | None:
        found = self.base_and_size(ptr)
        if found is None:
            return None
        base, size = found
        op = _owner(ptr)
        if op is not None and op.name == "tt.addptr" and len(op.operands) == 2:
            offset = self.linear(op.operands[1])
            if offset is None:
                return None
            return Access(base, offset, size)
        return Access(base, None, size)

    # ------------------------------------------------------------------ offsets
    def linear(self, value: SSAValue) -> Linear | None:
        """``value``'s lanes as a :class:`Linear`, or None.  Iterative over operand chains
        (each value once, memoised)."""
        if value in self._linear:
            return self._linear[value]
        stack = [value]
        seen: set[SSAValue] = set()
        while stack:
            v = stack[-1]
            if v in self._linear:
                stack.pop()
                continue
            deps = self._deps(v)
            pending = [d for d in deps if d not in self._linear]
            if pending and v not in seen:
                seen.add(v)
                stack.extend(pending)
                continue
            stack.pop()
            self._linear[v] = self._compute_linear(v)
        return self._linear[value]

    def _deps(self, v: SSAValue) -> list[SSAValue]:
        op = _owner(v)
        if op is None or int_constant(v) is not None:
            return []
        if op.name in _LANE_MOVING or op.name.startswith("arith."):
            return list(op.operands)
        return []

    def _compute_linear(self, v: SSAValue) -> Linear | None:
        width = _int_width(v.type)
        if width is None:
            return None
        c = int_constant(v)
        if c is not None:
            return Linear((), c[0], c[0], width)
        attr = constant_attr(v)
        if isinstance(attr, DenseIntOrFPElementsAttr):
            try:
                values = [a.value.data for a in attr.iter_attrs()]
            except (NotImplementedError, AttributeError):
                return None
            values = [x - (1 << width) if x >= 1 << (width - 1) else x for x in (x & ((1 << width) - 1) for x in values)]
            return Linear((), min(values), max(values), width) if values else None
        op = _owner(v)
        scalar = not isinstance(v.type, TensorType)
        if op is not None:
            name = op.name
            got = [self._linear.get(o) for o in op.operands]
            if name == "tt.make_range":
                start, end = op.properties.get("start"), op.properties.get("end")
                shape = v.type.get_shape() if not scalar else ()
                # (only a range as long as its tensor: Triton 2.1 verifies neither)
                if (start is not None and end is not None and end.value.data > start.value.data
                        and tuple(shape) == (end.value.data - start.value.data,)):
                    return Linear((), start.value.data, end.value.data - 1, width)
                return None
            if name in _LANE_MOVING and len(got) == 1 and got[0] is not None and got[0].width == width:
                return got[0]
            if name in ("arith.addi", "arith.subi") and len(got) == 2 and None not in got:
                a, b = got
                if a.width != width or b.width != width:
                    return None
                sign = 1 if name == "arith.addi" else -1
                terms = dict(a.terms)
                for s, k in b.terms:
                    terms[s] = terms.get(s, 0) + sign * k
                lo, hi = (a.lo + b.lo, a.hi + b.hi) if sign == 1 else (a.lo - b.hi, a.hi - b.lo)
                return Linear(_terms(terms, width), lo, hi, width)
            if name in ("arith.muli", "arith.shli") and len(got) == 2 and None not in got:
                a, b = got
                factor = None
                if name == "arith.muli":
                    if not b.terms and b.uniform:
                        factor = b.lo
                    elif not a.terms and a.uniform:
                        a, factor = b, a.lo
                elif not b.terms and b.uniform and 0 <= b.lo < width:
                    factor = 1 << b.lo
                if factor is not None and a.width == width:
                    ends = (a.lo * factor, a.hi * factor)
                    terms = _terms({s: k * factor for s, k in a.terms}, width)
                    return Linear(terms, min(ends), max(ends), width)
            if (
                name.startswith("arith.")
                and op.operands
                and all(g is not None and g.uniform for g in got)
            ):
                return Linear(((self.numbering.number(v), 1),), 0, 0, width)  # uniform lanes
        if scalar:
            return Linear(((self.numbering.number(v), 1),), 0, 0, width)
        return None

    # ------------------------------------------------------------------ the question
    def disjoint(self, p: SSAValue, q: SSAValue) -> bool:
        """Proven: no byte is touched by both an access through ``p`` and one through ``q``."""
        base_p = self.base_and_size(p)
        if base_p is None or base_p != self.base_and_size(q):
            return False  # (what `disjoint` says of such accesses, without their offsets)
        a, b = self.access(p), self.access(q)
        return a is not None and b is not None and disjoint(a, b)


def disjoint(a: Access, b: Access) -> bool:
    """See the module docstring."""
    if a.base != b.base or a.size != b.size:
        return False
    oa, ob = a.offset, b.offset
    if oa is None and ob is None:
        return False  # one address
    width = (oa or ob).width
    if oa is None:
        oa = Linear((), 0, 0, width)
    if ob is None:
        ob = Linear((), 0, 0, width)
    if oa.width != ob.width or oa.terms != ob.terms:
        return False
    if oa.lo <= ob.hi and ob.lo <= oa.hi:
        return False  # the lane intervals meet
    span = max(oa.hi, ob.hi) - min(oa.lo, ob.lo)
    return span < (1 << (width - 1)) and span * a.size < (1 << 62)


__all__ = ["Access", "AddressAnalysis", "Linear", "disjoint"]
