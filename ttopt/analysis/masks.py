"""Implication between ``i1`` masks: is ``b`` false wherever ``a`` is false, lane by lane?

:func:`implies` answers "proven" (True) or "not proven" (False); False is never a claim
that the implication fails.  Masks are compared lane for lane, so both must have the same
type (shape and encoding).  The rules, each exact for ``i1`` values:

* ``b`` and ``a`` have one value number (:mod:`ttopt.analysis.value_numbering`);
* ``a`` is a constant all true; ``b`` is a constant all false; ``b`` absent means all true
  (an unmasked load), so it implies only an all-true ``a`` (or an absent one);
* ``b = x & y``: ``x => a`` or ``y => a``; ``a = x & y``: ``b => x`` and ``b => y``;
  ``a = x | y``: ``b => x`` or ``b => y``; ``b = x | y``: ``x => a`` and ``y => a``
  (``arith.andi``/``arith.ori`` on ``i1``);
* ``b = f(x)`` and ``a = f(y)`` for one lane-moving op ``f`` with the same attributes and
  operand types (``tt.broadcast``, ``tt.expand_dims``, ``tt.splat``, ``tt.trans``,
  ``ttg.convert_layout``; not ``tt.reshape``, which may reorder): each lane of the result is one lane of the
  operand, the same one on both sides, so ``x => y`` suffices;
* comparisons of one value ``v`` (same number) against bounds: ``b = cmpi P v, c`` and
  ``a = cmpi Q v, d`` where ``c`` and ``d`` are integer constants (scalar, splat ``dense``,
  or ``tt.splat`` of one) and every ``v`` with ``v P c`` satisfies ``v Q d`` (decided for the
  predicates ``eq slt sle sgt sge ult ule ugt uge`` by comparing ``c`` and ``d`` in the
  predicate's signedness; ``slt`` against ``sge`` and the like: never); or ``c`` and ``d``
  with one number and ``P`` at least as strict as ``Q`` (``slt => sle``, ``eq => sle``
  ...).  A comparison with the constant on the left is read mirrored
  (``c sgt v`` is ``v slt c``).

The search is bounded (depth 12): a deep mask that would need more is "not proven".

First, in one step whatever their depth: where both masks are made only of comparisons of one
value ``v`` (one number) against integer constants, joined by ``andi``/``ori`` (and constant
masks), each is the set of ``v``'s values it holds for, a union of at most
``MAX_INTERVALS`` intervals, worked out once per mask value (:meth:`MaskImplication.lanes`),
and ``b => a`` is exactly ``set(b) <= set(a)``.  (A chain of thousands of ``ori`` of
comparisons, each mask asked about, took the rules above a search of depth 12 per question.)
"""

from __future__ import annotations

from xdsl.ir import OpResult, SSAValue

from .value_numbering import ValueNumbering, int_constant

MAX_DEPTH = 12

# arith.cmpi predicate numbers (MLIR's CmpIPredicate)
EQ, NE, SLT, SLE, SGT, SGE, ULT, ULE, UGT, UGE = range(10)
_MIRROR = {EQ: EQ, NE: NE, SLT: SGT, SLE: SGE, SGT: SLT, SGE: SLE, ULT: UGT, ULE: UGE, UGT: ULT, UGE: ULE}
_SIGNED = {SLT, SLE, SGT, SGE}
_UNSIGNED = {ULT, ULE, UGT, UGE}
# with one bound value: P implies Q
_STRICTER = {
    (SLT, SLE), (SGT, SGE), (ULT, ULE), (UGT, UGE),
    (EQ, SLE), (EQ, SGE), (EQ, ULE), (EQ, UGE),
}
# (not tt.reshape: with allow_reorder it may put elements in any order)
_LANE_MOVING = frozenset({"tt.broadcast", "tt.expand_dims", "tt.splat", "tt.trans", "ttg.convert_layout"})


def _op(value: SSAValue | None):
    return value.owner if isinstance(value, OpResult) else None


def _all_equal_bool(value: SSAValue) -> bool | None:
    """True/False for an ``i1`` constant whose every lane is true/false, else None."""
    c = int_constant(value)
    if c is None or c[1] != 1:
        return None
    return c[0] != 0


def _holds(pred: int, x: int, y: int) -> bool:
    return {
        EQ: x == y, NE: x != y, SLT: x < y, SLE: x <= y, SGT: x > y, SGE: x >= y,
        ULT: x < y, ULE: x <= y, UGT: x > y, UGE: x >= y,
    }[pred]


def _signed_range(width: int) -> tuple[int, int]:
    """The least and greatest ``width``-bit values in signed form."""
    return -(1 << (width - 1)), (1 << (width - 1)) - 1


def _as_unsigned(v: int, width: int) -> int:
    return v & ((1 << width) - 1)


def _const_implies(p: int, c: int, q: int, d: int, width: int) -> bool:
    """For every ``width``-bit ``v``: ``v p c`` implies ``v q d``?"""
    if p == EQ:  # v is c
        if q in _UNSIGNED:
            return _holds(q, _as_unsigned(c, width), _as_unsigned(d, width))
        return _holds(q, c, d)
    if p in _SIGNED and q in _SIGNED | {EQ, NE}:
        lo, hi = _signed_range(width)
    elif p in _UNSIGNED and q in _UNSIGNED | {EQ, NE}:
        lo, hi = 0, (1 << width) - 1
        c, d = _as_unsigned(c, width), _as_unsigned(d, width)
    else:
        return False
    # the set {v : v p c} as an interval [a, b] of the signedness
    if p in (SLT, ULT):
        a, b = lo, c - 1
    elif p in (SLE, ULE):
        a, b = lo, c
    elif p in (SGT, UGT):
        a, b = c + 1, hi
    elif p in (SGE, UGE):
        a, b = c, hi
    else:
        return False
    if a > b:
        return True  # v p c never holds
    if q == EQ:
        return a == b == d
    if q == NE:
        return d < a or d > b
    if q in (SLT, ULT):
        return b < d
    if q in (SLE, ULE):
        return b <= d
    if q in (SGT, UGT):
        return a > d
    if q in (SGE, UGE):
        return a >= d
    return False


def _compare(value: SSAValue):
    """``(predicate, v, bound)`` for an ``arith.cmpi``, the constant (if any) on the right."""
    op = _op(value)
    if op is None or op.name != "arith.cmpi" or len(op.operands) != 2:
        return None
    pred = op.properties.get("predicate")
    if pred is None:
        return None
    p = pred.value.data
    lhs, rhs = op.operands
    if int_constant(lhs) is not None and int_constant(rhs) is None:
        return _MIRROR.get(p), rhs, lhs
    return p, lhs, rhs


MAX_INTERVALS = 8


def _signed_intervals(p: int, c: int, width: int) -> list[tuple[int, int]] | None:
    """The ``width``-bit values ``v`` (in signed form) with ``v p c`` (``c`` in signed form):
    sorted, disjoint intervals."""
    lo, hi = _signed_range(width)
    if p == EQ:
        return [(c, c)]
    if p == NE:
        return [iv for iv in ((lo, c - 1), (c + 1, hi)) if iv[0] <= iv[1]]
    if p in _SIGNED:
        a, b = {SLT: (lo, c - 1), SLE: (lo, c), SGT: (c + 1, hi), SGE: (c, hi)}[p]
        return [(a, b)] if a <= b else []
    if p in _UNSIGNED:
        top = (1 << width) - 1
        cu = _as_unsigned(c, width)
        a, b = {ULT: (0, cu - 1), ULE: (0, cu), UGT: (cu + 1, top), UGE: (cu, top)}[p]
        if a > b:
            return []
        half = 1 << (width - 1)  # (unsigned values from here are negative in signed form)
        out = []
        if a < half:
            out.append((a, min(b, half - 1)))
        if b >= half:
            out.append((max(a, half) - (1 << width), b - (1 << width)))
        return sorted(out)
    return None


def _union(x: list, y: list) -> list:
    out: list = []
    for a, b in sorted(x + y):
        if out and a <= out[-1][1] + 1:
            if b > out[-1][1]:
                out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def _intersection(x: list, y: list) -> list:
    out = []
    i = j = 0
    while i < len(x) and j < len(y):
        a, b = max(x[i][0], y[j][0]), min(x[i][1], y[j][1])
        if a <= b:
            out.append((a, b))
        if x[i][1] < y[j][1]:
            i += 1
        else:
            j += 1
    return out


def _subset(x: list, y: list) -> bool:
    return _intersection(x, y) == x


_ALL = object()  # (a constant mask: the same for every value)


class MaskImplication:
    """``implies(b, a)`` with memoised answers, for one :class:`ValueNumbering`."""

    def __init__(self, numbering: ValueNumbering):
        self.numbering = numbering
        self._memo: dict[tuple[int, int], bool] = {}
        self._constant: dict[SSAValue, bool | None] = {}
        self._lanes: dict[SSAValue, tuple | None] = {}

    def implies(self, b: SSAValue | None, a: SSAValue | None) -> bool:
        """Every lane where ``b`` is true has ``a`` true (``None``: no mask, all true)."""
        if a is None:
            return True
        if b is None:
            return _all_equal_bool(a) is True
        if b.type != a.type:
            return False
        lb, la = self.lanes(b), self.lanes(a)
        if lb is not None and la is not None:
            (vb, wb, sb), (va, wa, sa) = lb, la
            if vb is _ALL and va is _ALL:  # (constants)
                return not sb or sa
            if vb is _ALL:  # (a constant: all values or none)
                sb = [_signed_range(wa)] if sb else []
                vb, wb = va, wa
            elif va is _ALL:
                sa = [_signed_range(wb)] if sa else []
                va, wa = vb, wb
            if vb == va and wb == wa:
                return _subset(sb, sa)  # (exact: nothing the rules know is left out)
        return self._implies(b, a, 0)

    def lanes(self, value: SSAValue):
        """``(number of v, width, intervals)``: ``value`` is true exactly where ``v`` is in
        the intervals (signed form); ``(_ALL, None, True/False)`` for a constant mask; None
        where ``value`` is not made only of comparisons of one value against constants,
        ``andi``, ``ori`` and constants.  Worked out once per value, without recursion (a
        chain of masks may be thousands long)."""
        memo = self._lanes
        if value in memo:
            return memo[value]
        stack = [value]
        while stack:
            v = stack[-1]
            if v in memo:
                stack.pop()
                continue
            op = _op(v)
            parts = tuple(op.operands) if op is not None and op.name in ("arith.andi", "arith.ori") else ()
            missing = [x for x in parts if x not in memo]
            if missing:
                stack.extend(missing)
                continue
            memo[v] = self._lanes_of(v, op, parts)
            stack.pop()
        return memo[value]

    def _lanes_of(self, v: SSAValue, op, parts):
        const = self._all_equal(v)
        if const is not None:
            return (_ALL, None, const)
        if op is None:
            return None
        if parts:
            x, y = (self._lanes[p] for p in parts)
            if x is None or y is None:
                return None
            ori = op.name == "arith.ori"
            if x[0] is _ALL or y[0] is _ALL:
                c, other = (x, y) if x[0] is _ALL else (y, x)
                if other[0] is _ALL:
                    return (_ALL, None, (c[2] or other[2]) if ori else (c[2] and other[2]))
                if c[2] == ori:  # (true | m, false & m: the constant)
                    return c
                return other
            if x[0] != y[0] or x[1] != y[1]:
                return None
            found = (_union if ori else _intersection)(x[2], y[2])
            return (x[0], x[1], found) if len(found) <= MAX_INTERVALS else None
        cmp = _compare(v)
        if cmp is None or cmp[0] is None:
            return None
        p, x, c = cmp
        kc = int_constant(c)
        if kc is None:
            return None
        found = _signed_intervals(p, kc[0], kc[1])
        if found is None:
            return None
        return (self.numbering.number(x), kc[1], found)

    def _implies(self, b: SSAValue, a: SSAValue, depth: int) -> bool:
        nb, na = self.numbering.number(b), self.numbering.number(a)
        if nb == na:
            return True
        key = (nb, na)
        known = self._memo.get(key)
        if known is not None:
            return known
        result = depth < MAX_DEPTH and self._rules(b, a, depth + 1)
        self._memo[key] = result
        return result

    def _all_equal(self, value: SSAValue) -> bool | None:
        """:func:`_all_equal_bool`, once per value (whether a value is a constant does not
        change while a pass replaces loads)."""
        try:
            return self._constant[value]
        except KeyError:
            found = self._constant[value] = _all_equal_bool(value)
            return found

    def _rules(self, b: SSAValue, a: SSAValue, depth: int) -> bool:
        if self._all_equal(a) is True or self._all_equal(b) is False:
            return True
        ob, oa = _op(b), _op(a)
        if ob is not None and ob.name == "arith.andi":
            if any(self._implies(x, a, depth) for x in ob.operands):
                return True
        if oa is not None and oa.name == "arith.andi":
            if all(self._implies(b, y, depth) for y in oa.operands):
                return True
        if oa is not None and oa.name == "arith.ori":
            if any(self._implies(b, y, depth) for y in oa.operands):
                return True
        if ob is not None and ob.name == "arith.ori":
            if all(self._implies(x, a, depth) for x in ob.operands):
                return True
        if (
            ob is not None
            and oa is not None
            and ob.name == oa.name
            and ob.name in _LANE_MOVING
            and len(ob.operands) == 1 == len(oa.operands)
            and ob.operands[0].type == oa.operands[0].type
            and dict(ob.properties) == dict(oa.properties)
            and dict(ob.attributes) == dict(oa.attributes)
        ):
            return self._implies(ob.operands[0], oa.operands[0], depth)
        return self._compares(b, a)

    def _compares(self, b: SSAValue, a: SSAValue) -> bool:
        cb = _compare(b)
        if cb is None or cb[0] is None:
            return False
        ca = _compare(a)
        if ca is None or ca[0] is None:
            return False
        p, vb, c = cb
        q, va, d = ca
        if vb.type != va.type or not self.numbering.same(vb, va):
            return False
        if self.numbering.same(c, d):
            return p == q or (p, q) in _STRICTER
        kc, kd = int_constant(c), int_constant(d)
        if kc is None or kd is None or kc[1] != kd[1]:
            return False
        return _const_implies(p, kc[0], q, kd[0], kc[1])


__all__ = ["MaskImplication"]
