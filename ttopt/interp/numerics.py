"""Numeric helpers: integer views and wrap-around, IEEE-exact float ops, erf, bit counts.

Conventions: integer values are stored in numpy's signed ``intN`` (``bool`` for i1); ``to_u`` /
``to_s`` view them as unsigned/signed (i1: 0/1 and 0/-1), ``from_u``/``from_s`` bring a result
back, wrapping at the declared width.  Floats narrower than f32 (f16, bf16, f8) are computed in
f32 and rounded once to the type (exact for + - * / sqrt: f32 has more than twice their
precision); transcendental functions of f16/bf16/f32 are computed in f64 and rounded once to the
type, so a result never depends on whether numpy took a SIMD or a scalar path.

Rounding an f64 value to a narrower type (:func:`round_to`) is correctly rounded for every type:
numpy's f64 -> f32/f16 conversions are, but ``ml_dtypes`` converts f64 to bf16 and the f8 types
through f32 (two roundings: ``1 + 2**-8 + 2**-30`` became bf16 ``1.0``, not ``1 + 2**-7``), so those
go through f32 *rounded to odd*, which makes the second rounding exact.

:func:`fma` is a fused multiply-add, correctly rounded (one rounding) for f16, bf16, f32 and f64:
the product of two f32 (f16, bf16) values is exact in f64 (at most 48 significant bits of 53);
the sum ``p + c`` is then rounded to f64 *to odd* (the exact error of the f64 sum, from TwoSum,
says whether it was exact; if not, an even result is moved one ulp toward the exact sum), and
rounding that to the type is the correctly rounded ``a*b + c``: rounding to odd at 53 bits then to
nearest at p <= 51 bits is the same as rounding to nearest once (Boldo and Melquiond, "Emulation
of FMA and correctly rounded sums: proved algorithms using rounding to odd", IEEE TC 2008).
Plain ``(p + c).astype(f32)`` rounds twice and is wrong when ``p + c`` rounds in f64 onto the
midpoint of two f32 neighbours (e.g. ``a = b = 1 + 2**-12``, ``c = 2**-24 - 2**-60``... see
test_interp_fma.py).  f64: the product is split exactly (Dekker's TwoProduct) and the same
algorithm gives ``RN(th + RO(tl + pl))``; elements where the split could overflow or underflow
are computed exactly with fractions.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .types import Elem

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)


# ---------------------------------------------------------------- integers
def to_u(x, e: Elem) -> np.ndarray:
    x = np.asarray(x)
    if e.width == 1:
        return x.astype(np.uint8)
    return x.view(e.udtype)


def to_s(x, e: Elem) -> np.ndarray:
    x = np.asarray(x)
    if e.width == 1:
        return -(x.astype(np.int8))
    return x


def from_u(y, e: Elem) -> np.ndarray:
    y = np.asarray(y)
    if e.width == 1:
        return (y & 1).astype(np.bool_)
    return y.astype(e.udtype, copy=False).view(e.dtype)


def from_s(y, e: Elem) -> np.ndarray:
    y = np.asarray(y)
    if e.width == 1:
        return (y & 1).astype(np.bool_)
    if y.dtype.kind == "u":
        y = y.view(np.dtype(f"i{y.dtype.itemsize}"))
    return y.astype(e.dtype, copy=False)


def sdiv_trunc(a, b, e: Elem):
    """Signed division rounding toward zero and its remainder (sign of the dividend), at the
    width of ``e``.  Division by zero: quotient -1 (all ones, what NVIDIA hardware gives),
    remainder the dividend; MIN / -1 wraps to MIN, remainder 0."""
    a = to_s(a, e)
    b = to_s(b, e)
    zero = b == 0
    neg1 = b == -1
    bs = np.where(zero | neg1, 1, b).astype(a.dtype)
    qf = np.floor_divide(a, bs)
    r = a - qf * bs
    adj = (r != 0) & ((a < 0) != (bs < 0))
    q = np.where(adj, qf + 1, qf)
    r = np.where(adj, r - bs, r)
    ua = a.view(np.dtype(f"u{a.dtype.itemsize}")) if e.width > 1 else a.astype(np.uint8)
    negq = from_u((np.zeros_like(ua) - ua), e)
    q = np.where(neg1, to_s(negq, e), q)
    r = np.where(neg1, 0, r)
    q = np.where(zero, -1, q)
    r = np.where(zero, a, r)
    return from_s(q, e), from_s(r, e)


def udiv(a, b, e: Elem):
    a = to_u(a, e)
    b = to_u(b, e)
    zero = b == 0
    bs = np.where(zero, 1, b).astype(a.dtype)
    q = a // bs
    r = a - q * bs
    q = np.where(zero, np.array(-1).astype(a.dtype) if e.width > 1 else 1, q)
    r = np.where(zero, a, r)
    return from_u(q, e), from_u(r, e)


def mulhi_u(a, b, e: Elem) -> np.ndarray:
    """High half of the unsigned product (as the unsigned bits)."""
    au = to_u(a, e).astype(np.uint64)
    bu = to_u(b, e).astype(np.uint64)
    if e.width <= 32:
        return from_u((au * bu) >> np.uint64(e.width), e)
    m = np.uint64(0xFFFFFFFF)
    s = np.uint64(32)
    a0, a1 = au & m, au >> s
    b0, b1 = bu & m, bu >> s
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> s) + (p01 & m) + (p10 & m)
    hi = p11 + (p01 >> s) + (p10 >> s) + (mid >> s)
    return from_u(hi, e)


def mulhi_s(a, b, e: Elem) -> np.ndarray:
    hi = to_u(mulhi_u(a, b, e), e).astype(np.uint64)
    sa = to_s(a, e) < 0
    sb = to_s(b, e) < 0
    hi = hi - np.where(sa, to_u(b, e).astype(np.uint64), np.uint64(0))
    hi = hi - np.where(sb, to_u(a, e).astype(np.uint64), np.uint64(0))
    return from_u(hi, e)


def clz(x, e: Elem) -> np.ndarray:
    u = to_u(x, e).astype(np.uint64) << np.uint64(64 - e.width)
    n = np.zeros(u.shape, np.int64)
    zero = to_u(x, e) == 0
    for s in (32, 16, 8, 4, 2, 1):
        m = (u >> np.uint64(64 - s)) == 0
        n = np.where(m, n + s, n)
        u = np.where(m, u << np.uint64(s), u)
    return from_s(np.where(zero, e.width, n), e)


def popcount(x, e: Elem) -> np.ndarray:
    u = to_u(x, e)
    return from_s(np.bitwise_count(u).astype(np.int64), e)


def ctz(x, e: Elem) -> np.ndarray:
    u = to_u(x, e)
    low = (u - np.ones_like(u)) & ~u  # the trailing zeros as ones; all ones for 0 -> width
    return from_s(np.bitwise_count(low).astype(np.int64), e)


# ---------------------------------------------------------------- floats
def compute_dtype(e: Elem) -> np.dtype:
    return e.dtype if e.dtype in (F32, F64) else F32


def float_binop(fn, e: Elem):
    """An exact (IEEE, correctly rounded) elementwise float op of type ``e``."""
    dt = e.dtype
    if dt in (F32, F64):
        return lambda a, b: np.asarray(fn(a, b))
    return lambda a, b: np.asarray(fn(np.asarray(a, F32), np.asarray(b, F32))).astype(dt)


def float_unop(fn, e: Elem):
    dt = e.dtype
    if dt in (F32, F64):
        return lambda a: np.asarray(fn(a))
    return lambda a: np.asarray(fn(np.asarray(a, F32))).astype(dt)


def float_math(fn, e: Elem):
    """A transcendental function: computed in f64, rounded once to the type."""
    dt = e.dtype
    return lambda *xs: round_to(np.asarray(fn(*[np.asarray(x, F64) for x in xs])), dt)


# ---------------------------------------------------------------- correct rounding, fma
_DIRECT = (np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.float16))


def round_odd_f32(x) -> np.ndarray:
    """f64 values rounded to f32 *to odd*: exact values stay, others go to the neighbour whose
    last significand bit is 1 (values beyond the f32 range become inf, as nearest would)."""
    x = np.asarray(x, F64)
    f = x.astype(F32)
    inexact = np.isfinite(f) & (f.astype(F64) != x)
    bits = f.view(np.uint32)
    fix = inexact & ((bits & 1) == 0)
    if np.any(fix):
        up = np.abs(x) > np.abs(f.astype(F64))  # move away from zero, else toward it
        one = np.uint32(1)
        bits = np.where(fix, np.where(up, bits + one, bits - one), bits).astype(np.uint32)
        f = bits.view(F32)
    return f


def round_to(x, dt) -> np.ndarray:
    """f64 (or narrower) values correctly rounded (to nearest even) to ``dt``."""
    x = np.asarray(x)
    dt = np.dtype(dt)
    if x.dtype == dt:
        return x
    if dt in _DIRECT or dt.kind in "iub" or x.dtype.itemsize <= 4:
        return x.astype(dt)
    return round_odd_f32(x).astype(dt)


def two_sum(a, b):
    """``s = fl(a + b)`` and the exact error ``a + b - s`` (Knuth; f64, finite inputs)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def add_round_odd(a, b) -> np.ndarray:
    """``a + b`` (f64) rounded to odd: exact, or the neighbour with an odd last bit."""
    s, err = two_sum(a, b)
    bits = s.view(np.int64)
    fix = (err != 0) & np.isfinite(s) & ((bits & 1) == 0)
    if np.any(fix):
        up = (err > 0) == (s > 0)  # the exact sum is farther from zero than s
        bits = np.where(fix, bits + np.where(up, 1, -1), bits)
        s = bits.view(F64)
    return s


_SPLIT = 134217729.0  # 2**27 + 1 (Veltkamp)


def _two_prod(a, b):
    p = a * b
    ca, cb = _SPLIT * a, _SPLIT * b
    ah = ca - (ca - a)
    bh = cb - (cb - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


class ExactProduct:
    """The exact product ``a*b`` of two floats of one type, as f64 arrays: ``hi`` (exact for
    types narrower than f64) plus, for f64, ``lo`` (``hi + lo = a*b``, Dekker's TwoProduct)
    and the factors (for the elements the split cannot represent).  :meth:`map` applies a
    shape function (broadcast, expand_dims ...) to every part; :meth:`neg` negates."""

    __slots__ = ("hi", "lo", "a", "b")

    def __init__(self, hi, lo=None, a=None, b=None):
        self.hi, self.lo, self.a, self.b = hi, lo, a, b

    @classmethod
    def of(cls, a, b, dt) -> "ExactProduct":
        a64 = np.asarray(a, F64)
        b64 = np.asarray(b, F64)
        if np.dtype(dt) != F64:
            return cls(a64 * b64)
        a64, b64 = np.broadcast_arrays(a64, b64)
        with np.errstate(all="ignore"):  # a split that overflows is redone with fractions
            hi, lo = _two_prod(a64, b64)
        ok = (np.abs(a64) < 2.0**995) & (np.abs(b64) < 2.0**995) & (np.abs(hi) > 2.0**-960) & np.isfinite(hi)
        zero = ((a64 == 0) | (b64 == 0)) & np.isfinite(hi)
        lo = np.where(zero, 0.0, np.where(ok, lo, np.nan))  # NaN: computed with fractions
        return cls(hi, lo, a64, b64)

    def map(self, fn) -> "ExactProduct":
        if self.lo is None:
            return ExactProduct(fn(self.hi))
        return ExactProduct(fn(self.hi), fn(self.lo), fn(self.a), fn(self.b))

    def neg(self) -> "ExactProduct":
        if self.lo is None:
            return ExactProduct(-self.hi)
        return ExactProduct(-self.hi, -self.lo, -self.a, self.b)


def fma_round(p: ExactProduct, c, dt) -> np.ndarray:
    """``p + c`` (``p`` an exact product) correctly rounded, once, to type ``dt``."""
    dt = np.dtype(dt)
    c64 = np.asarray(c, F64)
    if p.lo is None:
        hi, c64 = np.broadcast_arrays(np.asarray(p.hi, F64), c64)
        s = add_round_odd(hi, c64)
        special = ~(np.isfinite(hi) & np.isfinite(c64))
        if np.any(special):
            s = np.where(special, hi + c64, s)
        return round_to(s, dt)
    hi, lo, a64, b64, c64 = np.broadcast_arrays(p.hi, p.lo, p.a, p.b, c64)
    th, tl = two_sum(c64, hi)
    z = th + add_round_odd(tl, lo)  # RN(th + RO(tl + lo))
    z = np.where((hi == 0) & (lo == 0), c64 + hi, z)  # a zero product: c + (±0), signs of zero as IEEE
    bad = ~(np.isfinite(lo) & np.isfinite(c64) & np.isfinite(z) & np.isfinite(th) & np.isfinite(tl))
    if np.any(bad):
        z = np.array(z, copy=True)
        for i in map(tuple, np.argwhere(bad)):
            z[i] = _fma_exact_scalar(float(a64[i]), float(b64[i]), float(c64[i]))
    return z


def _fma_exact_scalar(a: float, b: float, c: float) -> float:
    """One f64 fma from exact rational arithmetic (IEEE signs of zero; inf/NaN as IEEE)."""
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return a * b + c  # inf/NaN operands: the product's inf/NaN decides, as in an fma
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        if (a == 0 or b == 0) and c == 0:
            negp = math.copysign(1.0, a) * math.copysign(1.0, b) < 0
            return -0.0 if negp and math.copysign(1.0, c) < 0 else 0.0
        return 0.0
    try:
        return float(exact)  # correctly rounded
    except OverflowError:
        return math.inf if exact > 0 else -math.inf


def fma(a, b, c, dt) -> np.ndarray:
    """Fused multiply-add ``a*b + c`` rounded once to ``dt`` (f16, bf16, f32, f64)."""
    with np.errstate(all="ignore"):
        return fma_round(ExactProduct.of(a, b, dt), c, dt)


def maximumf(a, b):
    """IEEE maximum: NaN-propagating, +0 > -0."""
    r = np.maximum(a, b)
    z = (a == 0) & (b == 0)
    if np.any(z):
        r = np.where(z, np.where(np.signbit(a), b, a), r)
    return r


def minimumf(a, b):
    r = np.minimum(a, b)
    z = (a == 0) & (b == 0)
    if np.any(z):
        r = np.where(z, np.where(np.signbit(a), a, b), r)
    return r


_SQRT_PI_INV2 = 2.0 / math.sqrt(math.pi)


def erf(x):
    """erf in f64 (relative error ~1e-15 for |x| < 6; +-1 beyond, where erfc < 2e-17):
    the series ``2/sqrt(pi) e^{-x^2} sum x^{2n+1} 2^n / (2n+1)!!`` (all terms positive)."""
    x = np.asarray(x, F64)
    ax = np.minimum(np.abs(x), 6.0)
    ax = np.where(np.isnan(x), 0.0, ax)
    x2 = ax * ax
    term = ax.copy()
    total = ax.copy()
    for n in range(1, 160):
        term = term * (2.0 * x2) / (2 * n + 1)
        total = total + term
    r = _SQRT_PI_INV2 * np.exp(-x2) * total
    r = np.minimum(r, 1.0)
    r = np.where(np.abs(x) >= 6.0, 1.0, r)
    r = np.where(np.isnan(x), np.nan, r)
    return np.copysign(r, x)


def erfc(x):
    x = np.asarray(x, F64)
    # for x > 2 use the continued fraction (Lentz) to keep relative accuracy in the tail
    r = 1.0 - erf(x)
    big = x > 2.0
    if np.any(big):
        xb = np.where(big, x, 1.0)
        # erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + 1/2/(x + 1/(x + 3/2/(x + 2/(x + ...)))))
        f = xb.copy()
        for k in range(80, 0, -1):
            f = xb + (k / 2.0) / f
        tail = np.exp(-xb * xb) / math.sqrt(math.pi) / f
        r = np.where(big, tail, r)
    return r


def round_half_away(x):
    return np.copysign(np.floor(np.abs(x) + 0.5), x)


def to_float_rtz(x, dst: np.dtype) -> np.ndarray:
    """Convert floats to ``dst`` rounding toward zero."""
    x64 = np.asarray(x, F64)
    r = x64.astype(dst)
    back = r.astype(F64)
    too_big = np.isfinite(x64) & (np.abs(back) > np.abs(x64))
    if np.any(too_big):
        bits = np.asarray(r).view(np.dtype(f"u{dst.itemsize}"))
        one = np.ones_like(bits)
        bits = np.where(too_big, bits - one, bits)
        r = bits.view(dst)
    return r


def float_to_int(x, e: Elem, signed: bool) -> np.ndarray:
    """fptosi/fptoui: truncate toward zero, saturating (NaN -> 0), as NVIDIA's cvt.rzi does."""
    x = np.asarray(x, F64)
    t = np.trunc(np.where(np.isnan(x), 0.0, x))
    if e.width == 1:
        return t != 0
    w = e.width
    if signed:
        lo, hi, dt = -(2 ** (w - 1)), 2 ** (w - 1) - 1, e.dtype
        inside = (t >= -(2.0 ** (w - 1))) & (t < 2.0 ** (w - 1))
    else:
        lo, hi, dt = 0, 2**w - 1, e.udtype
        inside = (t >= 0) & (t < 2.0**w)
    safe = np.where(inside, t, 0.0).astype(dt)
    r = np.where(t >= 0, np.array(hi).astype(dt), np.array(lo).astype(dt))
    r = np.where(inside, safe, r).astype(dt)
    return r if signed else r.view(e.dtype)


def ulp_key(values: np.ndarray) -> np.ndarray:
    """Map floats to int64 keys ordered like the floats (-0 and +0 both 0), so that the
    difference of two keys is their distance in ulps."""
    v = np.asarray(values)
    s = v.view(np.dtype(f"i{v.dtype.itemsize}")).astype(np.int64)
    mag = s & np.int64((1 << (8 * v.dtype.itemsize - 1)) - 1)
    return np.where(s < 0, -mag, mag)
