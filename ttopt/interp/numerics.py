"""Numeric helpers: integer views and wrap-around, IEEE-exact float ops, erf, bit counts.

Conventions: integer values are stored in numpy's signed ``intN`` (``bool`` for i1); ``to_u`` /
``to_s`` view them as unsigned/signed (i1: 0/1 and 0/-1), ``from_u``/``from_s`` bring a result
back, wrapping at the declared width.  Floats narrower than f32 (f16, bf16, f8) are computed in
f32 and rounded once to the type (exact for + - * / sqrt: f32 has more than twice their
precision); transcendental functions of f16/bf16/f32 are computed in f64 and rounded once to the
type, so a result never depends on whether numpy took a SIMD or a scalar path.
"""

from __future__ import annotations

import math

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
    return lambda *xs: np.asarray(fn(*[np.asarray(x, F64) for x in xs])).astype(dt)


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
