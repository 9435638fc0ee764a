"""Semantics of each op: ``HANDLERS[op.name](op, program) -> step(env, rt)``.

Dispatch is on op names only; operands, results and attributes are read generically
(``op.operands``, ``op.results``, ``op.properties``/``op.attributes``), so the interpreter does
not depend on how ttopt's dialect classes are written.  A builder runs once per op when its
function is compiled and returns a closure that runs the op on whole numpy arrays.

Reductions and scans call their combiner region on whole arrays:

* ``tt.reduce``: a pairwise tree along the axis -- with ``n`` elements, ``combine(x[:n/2],
  x[n/2:])`` (element ``i`` with element ``i + n/2``), repeated until one is left (an odd
  leftover is carried to the next round).  This is a butterfly like the GPU's shuffle tree
  but not guaranteed to be the GPU's exact order: two runs of this interpreter always agree,
  which is what comparing a kernel before and after a rewrite needs.  With
  ``reduce_order="gpu"`` (a Program option), Triton's order for the operand's blocked layout
  instead (:func:`_reduce_gpu`, :mod:`ttopt.interp.reduce_order`).
* ``tt.scan``: Hillis-Steele, ``log2(n)`` rounds of ``x[i] = combine(x[i-d], x[i])`` for
  ``d = 1, 2, 4 ...``; ``reverse = true`` flips the axis, scans, and flips back.
"""

from __future__ import annotations

import re

import numpy as np

from . import numerics as N
from .engine import Event, loc_str
from .memory import MemoryError_
from .types import Elem, InterpTypeError, elem_of, type_info
from .reduce_order import plan as reduce_plan
from .values import BlockPtr, Ptr, SharedBuf, TensorDesc, fmap

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)

HANDLERS: dict = {}
TERMINATORS = {"scf.yield", "scf.condition", "tt.return", "tt.reduce.return", "tt.scan.return",
               "tt.map_elementwise.return"}


# Branches between the blocks of a region (``cf``): ``BRANCHES[op.name](op, program, index)``
# (``index``: block -> its position in the region) returns ``choose(values)``, where
# ``values`` are the branch's operands, in order; it gives ``(position of the block to run,
# the values of its arguments)``.  Run by :meth:`ttopt.interp.engine.Program.compile_cfg`.
BRANCHES: dict = {}


def handler(*names):
    def deco(fn):
        for n in names:
            HANDLERS[n] = fn
        return fn

    return deco


def branch(*names):
    def deco(fn):
        for n in names:
            BRANCHES[n] = fn
        return fn

    return deco


# ---------------------------------------------------------------- attribute access
def prop(op, name, default=None):
    a = op.properties.get(name)
    if a is None:
        a = op.attributes.get(name)
    return default if a is None else a


def iprop(op, name, default=None) -> int | None:
    a = prop(op, name)
    if a is None:
        return default
    v = getattr(a, "value", None)
    if v is not None and hasattr(v, "data"):
        return int(v.data)
    if hasattr(a, "data") and isinstance(a.data, (int, bool)):
        return int(a.data)
    text = str(a).split(":")[0].strip()
    if text in ("true", "false"):
        return int(text == "true")
    return int(text)


def bprop(op, name, default=False) -> bool:
    if prop(op, name) is None:
        return default
    try:
        return bool(iprop(op, name))
    except ValueError:  # a unit attribute: present means true
        return True


def sprop(op, name, default=None) -> str | None:
    a = prop(op, name)
    if a is None:
        return default
    return a.data if isinstance(getattr(a, "data", None), str) else str(a)


def aprop(op, name, default=None) -> list[int] | None:
    a = prop(op, name)
    if a is None:
        return default
    if hasattr(a, "get_values"):
        return [int(x) for x in a.get_values()]
    if hasattr(a, "data") and isinstance(a.data, tuple):
        return [int(getattr(x, "value", x).data if hasattr(getattr(x, "value", x), "data") else x) for x in a.data]
    return [int(x) for x in re.findall(r"-?\d+", str(a).split(":", 1)[-1])]


def shape_of(v) -> tuple:
    return type_info(v.type).shape


# ---------------------------------------------------------------- generic builders
def _unary(factory):
    def build(op, P):
        a = op.operands[0]
        r = op.results[0]
        f = factory(elem_of(a.type), elem_of(r.type), op)

        def run(env, rt):
            env[r] = f(env[a])

        return run

    return build


def _binary(factory):
    def build(op, P):
        a, b = op.operands[0], op.operands[1]
        r = op.results[0]
        f = factory(elem_of(a.type), elem_of(r.type), op)

        def run(env, rt):
            env[r] = f(env[a], env[b])

        return run

    return build


def _nary(factory):
    def build(op, P):
        ins = list(op.operands)
        r = op.results[0]
        f = factory([elem_of(v.type) for v in ins], elem_of(r.type), op)

        def run(env, rt):
            env[r] = f(*[env[v] for v in ins])

        return run

    return build


def _reg(names_to_factory: dict, wrap):
    for name, fac in names_to_factory.items():
        HANDLERS[name] = wrap(fac)


# ---------------------------------------------------------------- arith: integers
def _iwrap(fn):
    return lambda e, re_, op: (lambda a, b: N.from_u(fn(N.to_u(a, e), N.to_u(b, e)), e))


def _shift(kind):
    def fac(e, re_, op):
        w = e.width

        def f(a, b):
            bu = N.to_u(b, e)
            ok = bu < w
            if kind == "shl":
                au = N.to_u(a, e)
                s = np.where(ok, bu, 0).astype(au.dtype)
                return N.from_u(np.where(ok, au << s, 0).astype(au.dtype), e)
            if kind == "shru":
                au = N.to_u(a, e)
                s = np.where(ok, bu, 0).astype(au.dtype)
                return N.from_u(np.where(ok, au >> s, 0).astype(au.dtype), e)
            as_ = N.to_s(a, e)
            s = np.where(ok, bu, w - 1).astype(as_.dtype)
            return N.from_s(as_ >> s, e)

        return f

    return fac


def _minmax_int(fn, signed):
    def fac(e, re_, op):
        if signed:
            return lambda a, b: N.from_s(fn(N.to_s(a, e), N.to_s(b, e)), e)
        return lambda a, b: N.from_u(fn(N.to_u(a, e), N.to_u(b, e)), e)

    return fac


def _div(kind):
    def fac(e, re_, op):
        def f(a, b):
            if kind in ("divsi", "remsi", "ceildivsi", "floordivsi"):
                q, r = N.sdiv_trunc(a, b, e)
                if kind == "divsi":
                    return q
                if kind == "remsi":
                    return r
                sa = N.to_s(a, e) < 0
                sb = N.to_s(b, e) < 0
                nz = (N.to_s(r, e) != 0) & (N.to_s(b, e) != 0)
                if kind == "ceildivsi":
                    bump = nz & (sa == sb)
                    return N.from_u(N.to_u(q, e) + bump.astype(N.to_u(q, e).dtype), e)
                bump = nz & (sa != sb)
                return N.from_u(N.to_u(q, e) - bump.astype(N.to_u(q, e).dtype), e)
            q, r = N.udiv(a, b, e)
            if kind == "divui":
                return q
            if kind == "remui":
                return r
            nz = (N.to_u(r, e) != 0) & (N.to_u(b, e) != 0)
            return N.from_u(N.to_u(q, e) + nz.astype(N.to_u(q, e).dtype), e)

        return f

    return fac


_reg(
    {
        "arith.addi": _iwrap(np.add),
        "arith.subi": _iwrap(np.subtract),
        "arith.muli": _iwrap(np.multiply),
        "arith.andi": _iwrap(np.bitwise_and),
        "arith.ori": _iwrap(np.bitwise_or),
        "arith.xori": _iwrap(np.bitwise_xor),
        "arith.shli": _shift("shl"),
        "arith.shrui": _shift("shru"),
        "arith.shrsi": _shift("shrs"),
        "arith.maxsi": _minmax_int(np.maximum, True),
        "arith.minsi": _minmax_int(np.minimum, True),
        "arith.maxui": _minmax_int(np.maximum, False),
        "arith.minui": _minmax_int(np.minimum, False),
        "arith.divsi": _div("divsi"),
        "arith.remsi": _div("remsi"),
        "arith.divui": _div("divui"),
        "arith.remui": _div("remui"),
        "arith.ceildivsi": _div("ceildivsi"),
        "arith.floordivsi": _div("floordivsi"),
        "arith.ceildivui": _div("ceildivui"),
        "tt.mulhiui": lambda e, re_, op: (lambda a, b: N.mulhi_u(a, b, e)),
    },
    _binary,
)

_CMPI = {
    0: ("s", np.equal), 1: ("s", np.not_equal), 2: ("s", np.less), 3: ("s", np.less_equal),
    4: ("s", np.greater), 5: ("s", np.greater_equal), 6: ("u", np.less), 7: ("u", np.less_equal),
    8: ("u", np.greater), 9: ("u", np.greater_equal),
}
_CMPI_NAMES = {"eq": 0, "ne": 1, "slt": 2, "sle": 3, "sgt": 4, "sge": 5, "ult": 6, "ule": 7, "ugt": 8, "uge": 9}


def _predicate(op, names):
    a = prop(op, "predicate")
    if a is None:
        raise ValueError("no predicate")
    try:
        return iprop(op, "predicate")
    except ValueError:
        return names[str(a).strip()]


@handler("arith.cmpi")
def _cmpi(op, P):
    a, b = op.operands
    r = op.results[0]
    e = elem_of(a.type)
    pred = _predicate(op, _CMPI_NAMES)
    view, fn = _CMPI[pred]
    if e.is_ptr:
        raise ValueError("arith.cmpi on pointers")
    conv = N.to_s if view == "s" else N.to_u

    def run(env, rt):
        env[r] = np.asarray(fn(conv(env[a], e), conv(env[b], e)))

    return run


def _extended(kind):
    def build(op, P):
        a, b = op.operands
        lo_r, hi_r = op.results
        e = elem_of(a.type)

        def run(env, rt):
            x, y = env[a], env[b]
            if kind == "addui":
                s = N.from_u(N.to_u(x, e) + N.to_u(y, e), e)
                env[lo_r] = s
                env[hi_r] = np.asarray(N.to_u(s, e) < N.to_u(x, e))
                return
            env[lo_r] = N.from_u(N.to_u(x, e) * N.to_u(y, e), e)
            env[hi_r] = N.mulhi_u(x, y, e) if kind == "mului" else N.mulhi_s(x, y, e)

        return run

    return build


HANDLERS["arith.addui_extended"] = _extended("addui")
HANDLERS["arith.mului_extended"] = _extended("mului")
HANDLERS["arith.mulsi_extended"] = _extended("mulsi")


# ---------------------------------------------------------------- arith: floats
def _fbin(fn):
    return lambda e, re_, op: N.float_binop(fn, e)


_reg(
    {
        "arith.addf": _fbin(np.add),
        "arith.subf": _fbin(np.subtract),
        "arith.mulf": _fbin(np.multiply),
        "arith.divf": _fbin(np.true_divide),
        "arith.remf": _fbin(np.fmod),
        "arith.maxnumf": _fbin(np.fmax),
        "arith.minnumf": _fbin(np.fmin),
        "arith.maximumf": _fbin(N.maximumf),
        "arith.minimumf": _fbin(N.minimumf),
        "tt.precise_divf": _fbin(np.true_divide),
        "math.copysign": _fbin(np.copysign),
    },
    _binary,
)

HANDLERS["arith.negf"] = _unary(lambda e, re_, op: N.float_unop(np.negative, e))

_CMPF_NAMES = {
    "false": 0, "oeq": 1, "ogt": 2, "oge": 3, "olt": 4, "ole": 5, "one": 6, "ord": 7, "ueq": 8,
    "ugt": 9, "uge": 10, "ult": 11, "ule": 12, "une": 13, "uno": 14, "true": 15,
}


def _cmpf_fn(pred):
    def uno(a, b):
        return np.isnan(a) | np.isnan(b)

    table = {
        0: lambda a, b: np.zeros(np.broadcast(a, b).shape, bool),
        1: np.equal,
        2: np.greater,
        3: np.greater_equal,
        4: np.less,
        5: np.less_equal,
        6: lambda a, b: np.not_equal(a, b) & ~uno(a, b),
        7: lambda a, b: ~uno(a, b),
        8: lambda a, b: np.equal(a, b) | uno(a, b),
        9: lambda a, b: ~np.less_equal(a, b),
        10: lambda a, b: ~np.less(a, b),
        11: lambda a, b: ~np.greater_equal(a, b),
        12: lambda a, b: ~np.greater(a, b),
        13: np.not_equal,
        14: uno,
        15: lambda a, b: np.ones(np.broadcast(a, b).shape, bool),
    }
    return table[pred]


@handler("arith.cmpf")
def _cmpf(op, P):
    a, b = op.operands
    r = op.results[0]
    e = elem_of(a.type)
    fn = _cmpf_fn(_predicate(op, _CMPF_NAMES))
    cdt = N.compute_dtype(e)

    def run(env, rt):
        env[r] = np.asarray(fn(np.asarray(env[a], cdt), np.asarray(env[b], cdt)))

    return run


@handler("arith.select")
def _select(op, P):
    c, a, b = op.operands
    r = op.results[0]

    def run(env, rt):
        cv = env[c]
        x, y = env[a], env[b]
        if isinstance(x, Ptr):
            env[r] = Ptr(np.where(cv, x.base, y.base), np.where(cv, x.off, y.off), x.elem)
        else:
            env[r] = np.asarray(np.where(cv, x, y))

    return run


# ---------------------------------------------------------------- arith: casts
def _astype(e, re_, op):
    dt = re_.dtype
    return lambda x: np.asarray(x).astype(dt)


def _truncf(e, re_, op):
    mode = iprop(op, "roundingmode")
    if mode in (None, 0):
        return _astype(e, re_, op)
    if mode == 3:
        return lambda x: N.to_float_rtz(x, re_.dtype)
    raise ValueError(f"arith.truncf rounding mode {mode} is not supported")


def _int_resize(signed):
    def fac(e, re_, op):
        if re_.width >= e.width:
            if signed:
                return lambda x: N.from_s(N.to_s(x, e), re_)
            return lambda x: N.from_u(N.to_u(x, e).astype(re_.udtype), re_)
        return lambda x: N.from_u(N.to_u(x, e), re_)

    return fac


def _bitcast(e, re_, op):
    if e.size != re_.size or (e.width == 1) != (re_.width == 1):
        raise ValueError(f"bitcast between {e} and {re_} of different widths")
    if e.width == 1:
        return lambda x: np.asarray(x)
    return lambda x: np.asarray(x).view(re_.dtype)


_reg(
    {
        "arith.extf": _astype,
        "arith.truncf": _truncf,
        "arith.sitofp": lambda e, re_, op: (lambda x: N.to_s(x, e).astype(re_.dtype)),
        "arith.uitofp": lambda e, re_, op: (lambda x: N.to_u(x, e).astype(re_.dtype)),
        "arith.fptosi": lambda e, re_, op: (lambda x: N.float_to_int(x, re_, True)),
        "arith.fptoui": lambda e, re_, op: (lambda x: N.float_to_int(x, re_, False)),
        "arith.extsi": _int_resize(True),
        "arith.extui": _int_resize(False),
        "arith.trunci": _int_resize(False),
        "arith.index_cast": _int_resize(True),
        "arith.index_castui": _int_resize(False),
        "arith.bitcast": _bitcast,
    },
    _unary,
)


@handler("arith.constant")
def _constant(op, P):
    r = op.results[0]
    value = const_value(prop(op, "value"), r.type)

    def run(env, rt):
        env[r] = value

    return run


def const_value(attr, typ):
    info = type_info(typ)
    e = info.elem
    if e is None or e.is_ptr:
        raise ValueError(f"constant of type {typ}")
    shape = info.shape
    raw = getattr(getattr(attr, "data", None), "data", None)
    if isinstance(raw, (bytes, bytearray)):
        if e.width == 1:
            flat = np.frombuffer(bytes(raw), np.uint8) != 0
        else:
            flat = np.frombuffer(bytes(raw), e.dtype)
        count = int(np.prod(shape)) if shape else 1
        if flat.size == count:
            return flat.reshape(shape).copy()
        if flat.size == 1:
            return np.full(shape, flat[0], dtype=flat.dtype)
        if e.width == 1 and flat.size * 8 >= count:  # bit-packed i1
            bits = np.unpackbits(np.frombuffer(bytes(raw), np.uint8), bitorder="little")[:count]
            return bits.astype(bool).reshape(shape)
        raise ValueError(f"dense constant with {flat.size} elements for shape {shape}")
    v = getattr(attr, "value", None)
    if v is not None and hasattr(v, "data"):
        x = v.data
        if e.is_float:
            arr = np.asarray(float(x)).astype(e.dtype)
        elif e.width == 1:
            arr = np.asarray(bool(int(x) & 1))
        else:
            arr = np.asarray(int(x) & ((1 << e.width) - 1), dtype=np.uint64).astype(e.udtype).view(e.dtype)
        return np.full(shape, arr, dtype=arr.dtype) if shape else arr
    raise ValueError(f"constant attribute {attr} is not supported")


# ---------------------------------------------------------------- math
_MATH_F64 = {
    "math.exp": np.exp, "math.exp2": np.exp2, "math.expm1": np.expm1, "math.log": np.log,
    "math.log2": np.log2, "math.log10": np.log10, "math.log1p": np.log1p, "math.sin": np.sin,
    "math.cos": np.cos, "math.tan": np.tan, "math.asin": np.arcsin, "math.acos": np.arccos,
    "math.atan": np.arctan, "math.sinh": np.sinh, "math.cosh": np.cosh, "math.tanh": np.tanh,
    "math.asinh": np.arcsinh, "math.acosh": np.arccosh, "math.atanh": np.arctanh,
    "math.erf": N.erf, "math.erfc": N.erfc, "math.cbrt": np.cbrt,
    "math.rsqrt": lambda x: 1.0 / np.sqrt(x),
}
_MATH_EXACT = {
    "math.sqrt": np.sqrt, "math.absf": np.abs, "math.floor": np.floor, "math.ceil": np.ceil,
    "math.trunc": np.trunc, "math.round": N.round_half_away, "math.roundeven": np.rint,
    "tt.precise_sqrt": np.sqrt,
}
for _n, _f in _MATH_F64.items():
    HANDLERS[_n] = _unary(lambda e, re_, op, _f=_f: N.float_math(_f, e))
for _n, _f in _MATH_EXACT.items():
    HANDLERS[_n] = _unary(lambda e, re_, op, _f=_f: N.float_unop(_f, e))
HANDLERS["math.atan2"] = _binary(lambda e, re_, op: N.float_math(np.arctan2, e))
HANDLERS["math.powf"] = _binary(lambda e, re_, op: N.float_math(np.power, e))
HANDLERS["math.absi"] = _unary(lambda e, re_, op: (lambda x: N.from_s(np.abs(N.to_s(x, e)), e)))
HANDLERS["math.ctlz"] = _unary(lambda e, re_, op: (lambda x: N.clz(x, e)))
HANDLERS["math.cttz"] = _unary(lambda e, re_, op: (lambda x: N.ctz(x, e)))
HANDLERS["math.ctpop"] = _unary(lambda e, re_, op: (lambda x: N.popcount(x, e)))
for _n, _f in {"math.isnan": np.isnan, "math.isinf": np.isinf, "math.isfinite": np.isfinite}.items():
    HANDLERS[_n] = _unary(lambda e, re_, op, _f=_f: (lambda x: np.asarray(_f(np.asarray(x, F64)))))


def _fma_fac(es, re_, op):
    dt = es[0].dtype
    # one rounding (numerics.fma: exact product, sum rounded to odd in f64, then to the type)
    return lambda a, b, c: np.asarray(N.fma(a, b, c, dt))


HANDLERS["math.fma"] = _nary(_fma_fac)


def _fpowi(es, re_, op):
    return lambda x, n: N.round_to(np.asarray(x, F64) ** N.to_s(n, es[1]).astype(F64), re_.dtype)


def _ipowi(es, re_, op):
    e = es[0]

    def f(x, n):
        base = N.to_u(x, e).copy()
        exp = N.to_s(n, es[1]).astype(np.int64)
        result = np.ones(np.broadcast(base, exp).shape, base.dtype)
        base = np.broadcast_to(base, result.shape).copy()
        exp = np.broadcast_to(exp, result.shape).copy()
        neg = exp < 0
        exp = np.where(neg, 0, exp)
        while np.any(exp > 0):
            odd = (exp & 1).astype(bool)
            result = np.where(odd, result * base, result)
            base = base * base
            exp = exp >> 1
        # negative exponent: 1/x in integers (1 for x = 1, -1 alternating for x = -1, else 0)
        xs = N.to_s(x, e)
        negres = np.where(xs == 1, 1, np.where(xs == -1, np.where(N.to_s(n, es[1]) % 2 == 0, 1, -1), 0))
        return N.from_u(np.where(neg, N.to_u(N.from_s(negres, e), e), result), e)

    return f


HANDLERS["math.fpowi"] = _nary(_fpowi)
HANDLERS["math.ipowi"] = _nary(_ipowi)

# libdevice / ocml names of tt.extern_elementwise (f32 names end in "f"; computed in f64)
_LIB_FLOAT = {
    "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: np.power(10.0, x), "expm1": np.expm1,
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1.0 / np.sqrt(x), "cbrt": np.cbrt, "rcbrt": lambda x: 1.0 / np.cbrt(x),
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": np.arctanh, "erf": N.erf, "erfc": N.erfc,
    "sinpi": lambda x: np.sin(np.pi * x), "cospi": lambda x: np.cos(np.pi * x),
    "fabs": np.abs, "abs": np.abs, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
    "round": N.round_half_away, "rint": np.rint, "nearbyint": np.rint, "pow": np.power,
    "powi": np.power, "fmax": np.fmax, "fmin": np.fmin, "max": np.fmax, "min": np.fmin,
    "fmod": np.fmod, "remainder": lambda x, y: x - np.rint(x / y) * y, "atan2": np.arctan2,
    "hypot": np.hypot, "copysign": np.copysign, "fdim": lambda x, y: np.maximum(x - y, 0.0),
    "fma": None, "div_rn": np.true_divide, "fdiv_rn": np.true_divide,
    "sqrt_rn": np.sqrt, "rcp": lambda x: 1.0 / x, "frcp_rn": lambda x: 1.0 / x,
    "ldexp": lambda x, n: np.ldexp(x, n.astype(np.int32)), "saturate": lambda x: np.clip(x, 0.0, 1.0),
}
_LIB_PRED = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite, "finite": np.isfinite,
             "signbit": np.signbit}
_LIB_INT = {
    "abs": lambda e: (lambda x: N.from_s(np.abs(N.to_s(x, e)), e)),
    "llabs": lambda e: (lambda x: N.from_s(np.abs(N.to_s(x, e)), e)),
    "min": lambda e: (lambda x, y: N.from_s(np.minimum(N.to_s(x, e), N.to_s(y, e)), e)),
    "max": lambda e: (lambda x, y: N.from_s(np.maximum(N.to_s(x, e), N.to_s(y, e)), e)),
    "llmin": lambda e: (lambda x, y: N.from_s(np.minimum(N.to_s(x, e), N.to_s(y, e)), e)),
    "llmax": lambda e: (lambda x, y: N.from_s(np.maximum(N.to_s(x, e), N.to_s(y, e)), e)),
    "umin": lambda e: (lambda x, y: N.from_u(np.minimum(N.to_u(x, e), N.to_u(y, e)), e)),
    "umax": lambda e: (lambda x, y: N.from_u(np.maximum(N.to_u(x, e), N.to_u(y, e)), e)),
    "ullmin": lambda e: (lambda x, y: N.from_u(np.minimum(N.to_u(x, e), N.to_u(y, e)), e)),
    "ullmax": lambda e: (lambda x, y: N.from_u(np.maximum(N.to_u(x, e), N.to_u(y, e)), e)),
    "mulhi": lambda e: (lambda x, y: N.mulhi_s(x, y, e)),
    "umulhi": lambda e: (lambda x, y: N.mulhi_u(x, y, e)),
    "mul64hi": lambda e: (lambda x, y: N.mulhi_s(x, y, e)),
    "umul64hi": lambda e: (lambda x, y: N.mulhi_u(x, y, e)),
    "popc": lambda e: (lambda x: N.popcount(x, e)),
    "popcll": lambda e: (lambda x: N.popcount(x, e)),
    "clz": lambda e: (lambda x: N.clz(x, e)),
    "clzll": lambda e: (lambda x: N.clz(x, e)),
}


def libdevice_function(symbol: str, ins: list[Elem], re_: Elem):
    """The numpy function for an extern_elementwise symbol, or None."""
    name = symbol
    for pre in ("__nv_fast_", "__nv_", "__ocml_"):
        if name.startswith(pre):
            name = name[len(pre):]
            break
    name = re.sub(r"_f(16|32|64)$", "", name)
    if ins and all(e.is_int for e in ins) and re_.is_int:
        fac = _LIB_INT.get(name)
        return fac(ins[0]) if fac else None
    for cand in (name, name[:-1] if name.endswith("f") else None):
        if cand in _LIB_PRED:
            f = _LIB_PRED[cand]
            return lambda x: N.from_s(np.asarray(f(np.asarray(x, F64))).astype(np.int64), re_) if re_.is_int else None
        if cand in _LIB_FLOAT and re_.is_float:
            f = _LIB_FLOAT[cand]
            dt = re_.dtype
            if f is None:  # fma: rounded once
                return lambda a, b, c: np.asarray(N.fma(a, b, c, dt))
            return lambda *xs: N.round_to(np.asarray(
                f(*[np.asarray(x, F64) if (ie.is_float) else N.to_s(x, ie) for x, ie in zip(xs, ins)])
            ), dt)
    return None


@handler("tt.extern_elementwise")
def _extern(op, P):
    ins = list(op.operands)
    r = op.results[0]
    symbol = sprop(op, "symbol", "")
    f = libdevice_function(symbol, [elem_of(v.type) for v in ins], elem_of(r.type))
    if f is None:
        raise P.error(op, f"unsupported extern_elementwise symbol '{symbol}'")

    def run(env, rt):
        env[r] = f(*[env[v] for v in ins])

    return run


_ASM_IDENTITY = re.compile(r"\s*mov\.(b|u|s|f)(16|32|64)\s+\$0\s*,\s*\$1\s*;?\s*")


@handler("tt.elementwise_inline_asm")
def _inline_asm(op, P):
    asm = sprop(op, "asm_string", "")
    if not (_ASM_IDENTITY.fullmatch(asm) and len(op.operands) == 1 and len(op.results) == 1):
        raise P.error(op, f"unsupported inline asm {asm!r} (only an identity 'mov' is understood)")
    a, r = op.operands[0], op.results[0]
    e, re_ = elem_of(a.type), elem_of(r.type)
    f = _bitcast(e, re_, op) if e != re_ else (lambda x: x)

    def run(env, rt):
        env[r] = f(env[a])

    return run


# ---------------------------------------------------------------- scf
@handler("scf.for")
def _for(op, P):
    lb, ub, st = op.operands[:3]
    inits = list(op.operands[3:])
    res = list(op.results)
    cb = P.compile_region(op.regions[0])
    e = elem_of(lb.type)
    unsigned = bprop(op, "unsignedCmp")
    conv = N.to_u if unsigned else N.to_s

    def run(env, rt):
        lo = int(conv(env[lb], e))
        hi = int(conv(env[ub], e))
        step = int(conv(env[st], e))
        vals = [env[v] for v in inits]
        if lo < hi and step <= 0:
            raise P.error(op, f"loop from {lo} to {hi} with step {step} never ends")
        if lo < hi and (hi - lo + step - 1) // step > rt.max_loop_iters:
            raise P.error(op, f"loop of {(hi - lo + step - 1) // step} iterations is over the limit "
                              f"({rt.max_loop_iters}; max_loop_iters)")
        i = lo
        while i < hi:
            iv = N.from_s(np.asarray(i, np.int64), e) if not unsigned else N.from_u(np.asarray(i, np.uint64), e)
            vals = P.run_block(cb, env, rt, [iv] + vals)
            i += step
        for r, v in zip(res, vals):
            env[r] = v

    return run


@handler("scf.if")
def _if(op, P):
    c = op.operands[0]
    then_cb = P.compile_region(op.regions[0])
    else_cb = P.compile_region(op.regions[1]) if len(op.regions) > 1 else None
    res = list(op.results)

    def run(env, rt):
        cb = then_cb if bool(env[c]) else else_cb
        vals = P.run_block(cb, env, rt, []) if cb is not None else []
        for r, v in zip(res, vals):
            env[r] = v

    return run


@handler("scf.while")
def _while(op, P):
    inits = list(op.operands)
    before = P.compile_region(op.regions[0])
    after = P.compile_region(op.regions[1])
    res = list(op.results)

    def run(env, rt):
        vals = [env[v] for v in inits]
        n = 0
        while True:
            out = P.run_block(before, env, rt, vals)
            if not bool(out[0]):
                vals = out[1:]
                break
            n += 1
            if n > rt.max_loop_iters:
                raise P.error(op, f"while loop over the limit of {rt.max_loop_iters} iterations")
            vals = P.run_block(after, env, rt, out[1:])
        for r, v in zip(res, vals):
            env[r] = v

    return run


# ---------------------------------------------------------------- cf: branches between blocks
# Triton's control flow is per program instance: a ``cf.cond_br`` condition or a ``cf.switch``
# flag is one scalar value for the whole program (as ``scf.if``'s condition above).
def _segments(op, P, count: int) -> list[int]:
    """``operandSegmentSizes`` of a ``cf.cond_br``/``cf.switch``: ``count`` groups adding up
    to its operands, the first one the condition/flag alone."""
    sizes = aprop(op, "operandSegmentSizes")
    if sizes is None or len(sizes) != count or sizes[0] != 1 or min(sizes) < 0 \
            or sum(sizes) != len(op.operands):
        raise P.error(op, f"malformed operandSegmentSizes {sizes} for {len(op.operands)} operands")
    return sizes


def _scalar_condition(op, P, what: str):
    info = type_info(op.operands[0].type)
    if info.kind != "scalar":
        raise P.error(op, f"the {what} must be a scalar, not {op.operands[0].type}")


@branch("cf.br")
def _br(op, P, index):
    dest = index[op.successors[0]]

    def choose(vals):
        return dest, vals

    return choose


@branch("cf.cond_br")
def _cond_br(op, P, index):
    """``cf.cond_br %c, ^t(then operands), ^f(else operands)``."""
    _scalar_condition(op, P, "condition")
    n_then = _segments(op, P, 3)[1]
    split = 1 + n_then
    then_dest, else_dest = (index[b] for b in op.successors)

    def choose(vals):
        try:
            taken = bool(vals[0])
        except ValueError:  # several values (a region run on whole tensors): not Triton's
            raise P.error(op, "the condition has several values (only scalar control flow is "
                              "supported)") from None
        if taken:
            return then_dest, vals[1:split]
        return else_dest, vals[split:]

    return choose


@branch("cf.switch")
def _switch(op, P, index):
    """``cf.switch %flag : T, [default: ^d(operands), v0: ^b0(operands), ...]``: the first
    case whose value equals the flag (as bits of the flag's width: a case value reads the
    same signed or unsigned), else the default.  Operands: the flag, the default's, then the
    cases' one after another (``case_operand_segments``); successors: the default, then the
    cases; ``case_values``: one per case."""
    _scalar_condition(op, P, "flag")
    _, n_default, n_cases = _segments(op, P, 3)
    e = elem_of(op.operands[0].type)
    if e.kind != "int":
        raise P.error(op, f"the flag must be an integer, not {op.operands[0].type}")
    mask = (1 << e.width) - 1
    a = prop(op, "case_values")
    values = [int(v) for v in a.get_values()] if a is not None else []
    sizes = aprop(op, "case_operand_segments", [])
    dests = [index[b] for b in op.successors]
    if not (len(values) == len(sizes) == len(dests) - 1) or sum(sizes) != n_cases or min(sizes, default=0) < 0:
        raise P.error(op, f"malformed cf.switch: {len(values)} case values, {len(dests) - 1} case "
                          f"destinations, case_operand_segments {sizes} for {n_cases} case operands")
    table = {}
    at = 1 + n_default
    for v, d, n in zip(values, dests[1:], sizes):
        table.setdefault(v & mask, (d, at, at + n))  # the first case of a value wins
        at += n
    default = (dests[0], 1, 1 + n_default)

    def choose(vals):
        d, lo, hi = table.get(int(vals[0]) & mask, default)
        return d, vals[lo:hi]

    return choose


@handler("scf.execute_region")
def _execute_region(op, P):
    cb = P.compile_region(op.regions[0])
    res = list(op.results)

    def run(env, rt):
        for r, v in zip(res, P.run_block(cb, env, rt, [])):
            env[r] = v

    return run


# ---------------------------------------------------------------- tt: program, shapes
@handler("tt.get_program_id")
def _pid(op, P):
    axis = iprop(op, "axis", 0)
    r = op.results[0]
    dt = elem_of(r.type).dtype

    def run(env, rt):
        env[r] = np.asarray(rt.pids[axis], dtype=dt)

    return run


@handler("tt.get_num_programs")
def _nprog(op, P):
    axis = iprop(op, "axis", 0)
    r = op.results[0]
    dt = elem_of(r.type).dtype

    def run(env, rt):
        env[r] = np.asarray(rt.num_programs[axis], dtype=dt)

    return run


@handler("tt.make_range")
def _make_range(op, P):
    r = op.results[0]
    value = np.arange(iprop(op, "start"), iprop(op, "end")).astype(elem_of(r.type).dtype)
    if value.shape != tuple(r.type.get_shape()):  # (Triton 2.1 verifies no range: what
        # its code computes then is not modelled)
        raise InterpTypeError(f"tt.make_range of [{iprop(op, 'start')}, {iprop(op, 'end')}) "
                              f"gives no tensor of shape {list(r.type.get_shape())}")

    def run(env, rt):
        env[r] = value

    return run


def _shape_op(fn_factory):
    def build(op, P):
        a = op.operands[0]
        r = op.results[0]
        fn = fn_factory(op, shape_of(r))

        def run(env, rt):
            env[r] = fmap(fn, env[a])

        return run

    return build


HANDLERS["tt.splat"] = _shape_op(lambda op, shape: (lambda x: np.broadcast_to(np.asarray(x), shape).copy()))
HANDLERS["tt.broadcast"] = _shape_op(lambda op, shape: (lambda x: np.broadcast_to(np.asarray(x), shape).copy()))
HANDLERS["tt.reshape"] = _shape_op(lambda op, shape: (lambda x: np.reshape(x, shape)))
HANDLERS["tt.unsplat"] = _shape_op(lambda op, shape: (lambda x: np.reshape(x, ())))
HANDLERS["tt.expand_dims"] = _shape_op(lambda op, shape: (lambda x, ax=iprop(op, "axis"): np.expand_dims(x, ax)))
HANDLERS["tt.trans"] = _shape_op(
    lambda op, shape: (lambda x, o=tuple(aprop(op, "order")): np.array(np.transpose(x, o), order="C")))


def _identity(op, P):
    a, r = op.operands[0], op.results[0]

    def run(env, rt):
        env[r] = env[a]

    return run


HANDLERS["ttg.convert_layout"] = _identity


@handler("tt.cat")
def _cat(op, P):
    a, b = op.operands
    r = op.results[0]

    def run(env, rt):
        x, y = env[a], env[b]
        if isinstance(x, Ptr):
            env[r] = Ptr(np.concatenate([x.base, y.base]), np.concatenate([x.off, y.off]), x.elem)
        else:
            env[r] = np.concatenate([x, y])

    return run


@handler("tt.join")
def _join(op, P):
    a, b = op.operands
    r = op.results[0]

    def run(env, rt):
        x, y = env[a], env[b]
        if isinstance(x, Ptr):
            env[r] = Ptr(np.stack([x.base, y.base], -1), np.stack([x.off, y.off], -1), x.elem)
        else:
            env[r] = np.stack([np.asarray(x), np.asarray(y)], -1)

    return run


@handler("tt.split")
def _split(op, P):
    a = op.operands[0]
    lo, hi = op.results

    def run(env, rt):
        x = env[a]
        env[lo] = fmap(lambda v: np.array(v[..., 0], order="C"), x)
        env[hi] = fmap(lambda v: np.array(v[..., 1], order="C"), x)

    return run


@handler("tt.gather")
def _gather(op, P):
    src, idx = op.operands[:2]
    r = op.results[0]
    axis = iprop(op, "axis", 0)
    ie = elem_of(idx.type)

    def run(env, rt):
        s = np.asarray(env[src])
        i = N.to_s(env[idx], ie).astype(np.int64)
        i = np.clip(i, 0, s.shape[axis] - 1)  # out of range: undefined on the GPU; clamped here
        env[r] = np.take_along_axis(s, i, axis)

    return run


@handler("tt.histogram")
def _histogram(op, P):
    src = op.operands[0]
    mask = op.operands[1] if len(op.operands) > 1 else None
    r = op.results[0]
    bins = shape_of(r)[0]
    e, re_ = elem_of(src.type), elem_of(r.type)

    def run(env, rt):
        x = N.to_s(env[src], e).astype(np.int64).reshape(-1)
        valid = (x >= 0) & (x < bins)
        if mask is not None:
            valid &= np.broadcast_to(np.asarray(env[mask], bool), np.shape(env[src])).reshape(-1)
        counts = np.bincount(x[valid], minlength=bins)[:bins]
        env[r] = N.from_s(counts, re_)

    return run


@handler("tt.bitcast")
def _tt_bitcast(op, P):
    a, r = op.operands[0], op.results[0]
    e, re_ = elem_of(a.type), elem_of(r.type)
    if e.is_ptr and re_.is_ptr:
        def run(env, rt):
            p = env[a]
            env[r] = Ptr(p.base, p.off, re_.pointee)

        return run
    f = _bitcast(e, re_, op)

    def run2(env, rt):
        env[r] = f(env[a])

    return run2


@handler("tt.int_to_ptr")
def _int_to_ptr(op, P):
    a, r = op.operands[0], op.results[0]
    e, re_ = elem_of(a.type), elem_of(r.type)

    def run(env, rt):
        env[r] = Ptr.from_int(N.to_s(env[a], e).astype(np.int64), re_.pointee)

    return run


@handler("tt.ptr_to_int")
def _ptr_to_int(op, P):
    a, r = op.operands[0], op.results[0]
    re_ = elem_of(r.type)

    def run(env, rt):
        env[r] = N.from_s(env[a].to_int(), re_)

    return run


@handler("tt.fp_to_fp")
def _fp_to_fp(op, P):
    a, r = op.operands[0], op.results[0]
    e, re_ = elem_of(a.type), elem_of(r.type)
    rounding = iprop(op, "rounding")
    if re_.size < e.size and rounding == 0:
        f = lambda x: N.to_float_rtz(x, re_.dtype)  # noqa: E731
    else:
        f = lambda x: np.asarray(x).astype(re_.dtype)  # noqa: E731

    def run(env, rt):
        env[r] = f(env[a])

    return run


@handler("tt.clampf")
def _clampf(op, P):
    x, lo, hi = op.operands[:3]
    r = op.results[0]
    e = elem_of(x.type)
    prop_nan = iprop(op, "propagateNan", 0)
    mx, mn = (N.maximumf, N.minimumf) if prop_nan else (np.fmax, np.fmin)
    f = N.float_binop(mx, e)
    g = N.float_binop(mn, e)

    def run(env, rt):
        env[r] = g(f(env[x], env[lo]), env[hi])

    return run


@handler("tt.addptr")
def _addptr(op, P):
    p, o = op.operands
    r = op.results[0]
    oe = elem_of(o.type)
    size = elem_of(r.type).pointee.size

    def run(env, rt):
        ptr = env[p]
        off = N.to_s(env[o], oe).astype(np.int64)
        env[r] = Ptr(ptr.base, ptr.off + off * size, ptr.elem)

    return run


# ---------------------------------------------------------------- tt: dot
def _dot_arrays(a, b, c, re_: Elem, ea: Elem):
    if re_.is_float:
        # einsum: numpy's own single-threaded loop (BLAS threads are slow on a loaded machine)
        acc = np.einsum("...ik,...kj->...ij", np.asarray(a, F64), np.asarray(b, F64))
        if c is not None:
            acc = acc + np.asarray(c, F64)
        return N.round_to(acc, re_.dtype)
    acc = np.einsum("...ik,...kj->...ij", N.to_s(a, ea).astype(np.int64), N.to_s(b, ea).astype(np.int64))
    if c is not None:
        acc = acc + N.to_s(c, re_).astype(np.int64)
    return N.from_s(acc, re_)


def _arr(v):
    return v.arr if isinstance(v, SharedBuf) else np.asarray(v)


@handler("tt.dot", "ttng.warp_group_dot")
def _dot(op, P):
    a, b, c = op.operands[:3]
    use_c = op.operands[3] if len(op.operands) > 3 else None
    r = op.results[0]
    re_ = elem_of(r.type)
    ea = elem_of(a.type)

    def run(env, rt):
        cv = env[c]
        if use_c is not None and not bool(env[use_c]):
            cv = None
        env[r] = _dot_arrays(_arr(env[a]), _arr(env[b]), cv, re_, ea)

    return run


@handler("ttng.warp_group_dot_wait")
def _dot_wait(op, P):
    ins, outs = list(op.operands), list(op.results)

    def run(env, rt):
        for i, o in zip(ins, outs):
            env[o] = env[i]

    return run


# ---------------------------------------------------------------- tt: reduce / scan
def _sl(x, axis, a, b):
    return x[(slice(None),) * axis + (slice(a, b),)]


def _combiner(op, P):
    cb = P.compile_region(op.regions[0])
    if cb is None:
        raise P.error(op, "no combiner region")

    def combine(env, rt, lhs, rhs):
        out = P.run_block(cb, env, rt, lhs + rhs)
        shape = lhs[0].shape
        return [np.broadcast_to(np.asarray(v), shape) for v in out]

    return combine


def _combiner_addf(op):
    """For a one-operand ``tt.reduce`` whose combiner is one ``arith.addf`` of its two
    arguments: True when it is ``addf(acc, other)``, False for ``addf(other, acc)``; else None."""
    region = op.regions[0]
    blocks = list(region.blocks)
    if len(op.operands) != 1 or len(blocks) != 1:
        return None
    args = list(blocks[0].args)
    body = list(blocks[0].ops)
    if len(args) != 2 or len(body) != 2 or body[0].name != "arith.addf":
        return None
    add, ret = body
    if list(ret.operands) != [add.results[0]]:
        return None
    if list(add.operands) == args:
        return True
    if list(add.operands) == args[::-1]:
        return False
    return None


def _product_value(P, prod, e: Elem):
    """A function ``env -> ExactProduct`` for a :class:`~ttopt.interp.contract.ProductRef`."""
    a, b = prod.mul.operands
    dt = e.dtype
    fns = []
    for sop in prod.chain:
        shape = shape_of(sop.results[0])
        if sop.name == "tt.expand_dims":
            fns.append(lambda x, ax=iprop(sop, "axis"): np.expand_dims(x, ax))
        else:  # splat, broadcast
            fns.append(lambda x, shape=shape: np.broadcast_to(x, shape))
    neg = prod.neg

    def value(env):
        p = N.ExactProduct.of(env[a], env[b], dt)
        for fn in fns:
            p = p.map(fn)
        return p.neg() if neg else p

    return value


def fused_builder(f):
    """The builder of an addf/subf that the GPU computes as a fused multiply-add
    (:class:`~ttopt.interp.contract.Fused`)."""

    def build(op, P):
        r = op.results[0]
        e = elem_of(r.type)
        dt = e.dtype
        product = _product_value(P, f.prod, e)
        c = f.c
        neg_c = f.neg_c

        def run(env, rt):
            cv = env[c]
            if neg_c:
                cv = np.negative(np.asarray(cv))
            env[r] = np.asarray(N.fma_round(product(env), cv, dt))

        return run

    return build


@handler("tt.reduce")
def _reduce(op, P):
    ins, outs = list(op.operands), list(op.results)
    axis = iprop(op, "axis", 0)
    combine = _combiner(op, P)
    gplan = reduce_plan(ins[0].type, axis, P.aliases) if P.reduce_order == "gpu" else None
    if gplan is not None:
        product = selected = None
        acc_first = _combiner_addf(op) if P.fp_contract else None
        if acc_first is not None:
            from .contract import selected_product

            e = elem_of(ins[0].type)
            ref = P.contraction.product(ins[0], P.contraction.home(op))
            if ref is not None:
                product = _product_value(P, ref, e)
            else:
                selected = selected_product(P.contraction, op, axis)
                if selected is not None:
                    product = _product_value(P, selected.prod, e)
        return _reduce_gpu(ins, outs, axis, gplan, combine, product, acc_first, selected)

    def run(env, rt):
        xs = [np.asarray(env[v]) for v in ins]
        n = xs[0].shape[axis]
        while n > 1:
            h = n // 2
            res = combine(env, rt, [_sl(x, axis, 0, h) for x in xs], [_sl(x, axis, h, 2 * h) for x in xs])
            if n % 2:
                res = [np.concatenate([rr, _sl(x, axis, 2 * h, n)], axis) for rr, x in zip(res, xs)]
            xs = res
            n = xs[0].shape[axis]
        for o, x in zip(outs, xs):
            env[o] = np.array(np.take(x, 0, axis=axis), order="C")

    return run


def _reduce_gpu(ins, outs, axis, plan, combine, product, acc_first, selected):
    """``tt.reduce`` in Triton's order (:mod:`ttopt.interp.reduce_order`): fold each thread's
    registers left to right, then butterflies over lanes and over warps.

    With ``product`` (the operand is a product, and the GPU contracts the within-thread
    sums): ``acc = fma(a_i, b_i, acc)`` there, the first step fusing the left operand of the
    combiner's ``addf`` (both are products, with as many uses).  With ``selected`` (the
    operand is ``select(c, product, constant)``, :class:`~ttopt.interp.contract.SelectedProduct`):
    while an element's condition is the first element's one LLVM value, the sum stays
    ``select(c0, fused sum of products, sum of constants)``; from the first element on
    another condition on, plain sums of the selected values."""
    R, W, T, S = plan.R, plan.W, plan.T, plan.S
    dt = elem_of(ins[0].type).dtype
    order = [(r, s) for r in range(R) for s in range(S)]

    def split(x):
        x = np.moveaxis(np.asarray(x), axis, -1)
        return x.reshape(x.shape[:-1] + (R, W, T, S))

    def run(env, rt):
        xs = [split(env[v]) for v in ins]
        if product is None or len(order) == 1:
            acc = None
            for r, s in order:
                cur = [x[..., r, :, :, s] for x in xs]
                acc = cur if acc is None else combine(env, rt, acc, cur)
        elif selected is None:
            acc = [_fold_products(product(env).map(split), xs[0], order, acc_first, dt)]
        else:
            acc = [_fold_selected(env, rt, selected, product(env).map(split), xs[0], split, order, acc_first, dt,
                                  combine, axis)]
        for n, sl in ((T, lambda a, i, j: a[..., i:j]), (W, lambda a, i, j: a[..., i:j, :])):
            while n > 1:
                h = n // 2
                acc = combine(env, rt, [sl(a, 0, h) for a in acc], [sl(a, h, n) for a in acc])
                n = h
        for o, a in zip(outs, acc):
            env[o] = np.array(a[..., 0, 0], order="C")

    return run


def _at(r, s):
    return lambda h: h[..., r, :, :, s]


def _fold_products(p, x, order, acc_first, dt):
    """Within-thread sums of products, every one fused: ``x`` holds the rounded products."""
    (r0, s0), (r1, s1) = order[0], order[1]
    if acc_first:  # fadd(p0, p1): both products; the left one (the accumulator) is fused
        acc = np.asarray(N.fma_round(p.map(_at(r0, s0)), x[..., r1, :, :, s1], dt))
    else:
        acc = np.asarray(N.fma_round(p.map(_at(r1, s1)), x[..., r0, :, :, s0], dt))
    for r, s in order[2:]:
        acc = np.asarray(N.fma_round(p.map(_at(r, s)), acc, dt))
    return acc


def _fold_selected(env, rt, sel, p, x, split, order, acc_first, dt, combine, axis):
    """Within-thread sums of ``select(c, product, constant)`` values (see _reduce_gpu)."""
    shape = np.shape(env[sel.select.results[0]])
    cond = split(np.broadcast_to(np.asarray(env[sel.cond]), shape))
    const = split(np.broadcast_to(np.asarray(env[sel.const]), shape))
    arm_value = sel.select.operands[1] if sel.prod_is_true else sel.select.operands[2]
    arm = split(np.broadcast_to(np.asarray(env[arm_value]), shape))  # the rounded products
    (r0, s0) = order[0]
    c0 = cond[..., r0, :, :, s0]
    acc = x[..., r0, :, :, s0]  # the selected value
    prod_acc = arm[..., r0, :, :, s0]  # the product arm's sum so far (fused)
    const_acc = const[..., r0, :, :, s0]
    still = np.ones(c0.shape[:-2], bool)
    for k, (r, s) in enumerate(order[1:], 1):
        if sel.mode == "uniform":
            same = still
        else:
            same = still & np.all(cond[..., r, :, :, s] == c0, axis=(-2, -1))
        if k == 1 and acc_first:
            prod_acc = np.asarray(N.fma_round(p.map(_at(r0, s0)), arm[..., r, :, :, s], dt))
        else:
            prod_acc = np.asarray(N.fma_round(p.map(_at(r, s)), prod_acc, dt))
        const_acc = combine(env, rt, [const_acc], [const[..., r, :, :, s]])[0]
        merged = np.where(c0, prod_acc, const_acc) if sel.prod_is_true else np.where(c0, const_acc, prod_acc)
        plain = combine(env, rt, [acc], [x[..., r, :, :, s]])[0]
        acc = np.where(same[..., None, None], merged, plain).astype(plain.dtype)
        still = same
    return acc


@handler("tt.scan")
def _scan(op, P):
    ins, outs = list(op.operands), list(op.results)
    axis = iprop(op, "axis", 0)
    reverse = bprop(op, "reverse")
    combine = _combiner(op, P)

    def run(env, rt):
        xs = [np.asarray(env[v]) for v in ins]
        if reverse:
            xs = [np.flip(x, axis) for x in xs]
        n = xs[0].shape[axis]
        d = 1
        while d < n:
            res = combine(env, rt, [_sl(x, axis, 0, n - d) for x in xs], [_sl(x, axis, d, n) for x in xs])
            xs = [np.concatenate([_sl(x, axis, 0, d), rr.astype(x.dtype)], axis) for x, rr in zip(xs, res)]
            d *= 2
        if reverse:
            xs = [np.flip(x, axis) for x in xs]
        for o, x in zip(outs, xs):
            env[o] = np.array(x, order="C")

    return run


# ---------------------------------------------------------------- tt: memory
def _lanes(p: Ptr, mask):
    """Flat base/offset arrays of the active lanes, and their flat indices (None: all)."""
    base = p.base.reshape(-1)
    off = p.off.reshape(-1)
    if mask is None:
        return base, off, None
    m = np.broadcast_to(np.asarray(mask, bool), p.shape).reshape(-1)
    if m.all():
        return base, off, None
    idx = np.nonzero(m)[0]
    return base[idx], off[idx], idx


def do_load(rt, p: Ptr, mask, other, elem: Elem):
    if not isinstance(p, Ptr):
        raise MemoryError_("load from a value that is not a pointer")
    base, off, idx = _lanes(p, mask)
    vals = rt.memory.read(base, off, elem)
    if idx is None:
        out = vals.reshape(p.shape)
    else:
        flat = np.zeros(int(np.prod(p.shape)) if p.shape else 1, elem.dtype)
        flat[idx] = vals
        out = flat.reshape(p.shape)
        if other is not None:
            m = np.broadcast_to(np.asarray(mask, bool), p.shape)
            out = np.where(m, out, np.asarray(other)).astype(elem.dtype)
    return out


def do_store(rt, p: Ptr, value, mask, wid: int):
    if not isinstance(p, Ptr):
        raise MemoryError_("store to a value that is not a pointer")
    elem = p.elem
    base, off, idx = _lanes(p, mask)
    v = np.broadcast_to(np.asarray(value), p.shape).reshape(-1)
    if idx is not None:
        v = v[idx]
    rt.memory.write(base, off, elem, np.asarray(v).astype(elem.dtype), wid)


def _block_load(rt, bp: BlockPtr, check, padding, elem: Elem):
    p, mask = bp.lanes(check)
    other = None
    if mask is not None:
        other = np.asarray(np.nan if padding == 2 else 0).astype(elem.dtype)
    return do_load(rt, p, mask, other, elem)


@handler("tt.load")
def _load(op, P):
    ops = list(op.operands)
    ptr = ops[0]
    mask = ops[1] if len(ops) > 1 else None
    other = ops[2] if len(ops) > 2 else None
    r = op.results[0]
    elem = elem_of(r.type)
    if type_info(ptr.type).kind == "blockptr":
        check = set(aprop(op, "boundaryCheck", []) or [])
        padding = iprop(op, "padding", 1)

        def run_block_ptr(env, rt):
            env[r] = _block_load(rt, env[ptr], check, padding, elem)

        return run_block_ptr

    def run(env, rt):
        env[r] = do_load(rt, env[ptr], env[mask] if mask is not None else None,
                         env[other] if other is not None else None, elem)

    return run


@handler("tt.store")
def _store(op, P):
    ops = list(op.operands)
    ptr, val = ops[0], ops[1]
    mask = ops[2] if len(ops) > 2 else None
    wid = P.writer_id(op)
    if type_info(ptr.type).kind == "blockptr":
        check = set(aprop(op, "boundaryCheck", []) or [])

        def run_block_ptr(env, rt):
            p, m = env[ptr].lanes(check)
            do_store(rt, p, env[val], m, wid)

        return run_block_ptr

    def run(env, rt):
        do_store(rt, env[ptr], env[val], env[mask] if mask is not None else None, wid)

    return run


def _int_list(env, vals):
    return [int(N.to_s(env[v], elem_of(v.type))) for v in vals]


@handler("tt.make_tensor_ptr")
def _make_tensor_ptr(op, P):
    ops = list(op.operands)
    base = ops[0]
    n = (len(ops) - 1) // 3
    shape, strides, offsets = ops[1:1 + n], ops[1 + n:1 + 2 * n], ops[1 + 2 * n:]
    r = op.results[0]
    info = type_info(r.type)

    def run(env, rt):
        env[r] = BlockPtr(env[base], _int_list(env, shape), _int_list(env, strides), _int_list(env, offsets),
                          info.shape, info.elem)

    return run


@handler("tt.advance")
def _advance(op, P):
    ptr = op.operands[0]
    deltas = list(op.operands[1:])
    r = op.results[0]

    def run(env, rt):
        env[r] = env[ptr].advanced(_int_list(env, deltas))

    return run


@handler("tt.make_tensor_descriptor")
def _make_desc(op, P):
    ops = list(op.operands)
    base = ops[0]
    n = (len(ops) - 1) // 2
    shape, strides = ops[1:1 + n], ops[1 + n:]
    r = op.results[0]
    info = type_info(r.type)

    def run(env, rt):
        env[r] = TensorDesc(env[base], _int_list(env, shape), _int_list(env, strides), info.shape, info.elem)

    return run


@handler("tt.descriptor_load")
def _desc_load(op, P):
    desc = op.operands[0]
    idx = list(op.operands[1:])
    r = op.results[0]
    rinfo = type_info(r.type)

    def run(env, rt):
        d = env[desc]
        bp = d.at(_int_list(env, idx))
        vals = _block_load(rt, bp, set(range(len(bp.block))), 1, d.elem)
        env[r] = vals.reshape(rinfo.shape).astype(rinfo.elem.dtype)

    return run


@handler("tt.descriptor_store")
def _desc_store(op, P):
    desc, src = op.operands[0], op.operands[1]
    idx = list(op.operands[2:])
    wid = P.writer_id(op)

    def run(env, rt):
        d = env[desc]
        bp = d.at(_int_list(env, idx))
        p, m = bp.lanes(set(range(len(bp.block))))
        do_store(rt, p, np.asarray(env[src]).reshape(bp.block), m, wid)

    return run


def _atomic(rt, p: Ptr, mask, elem: Elem, compute, operands, wid):
    """Apply ``compute(old, *operands) -> new`` lane by lane in lane order: lanes hitting one
    address are applied one after another (in rounds, each round vectorised over distinct
    addresses).  Returns the old values (0 in masked-off lanes)."""
    shape = p.shape
    n = int(np.prod(shape)) if shape else 1
    base, off, idx = _lanes(p, mask)
    vals = [np.broadcast_to(np.asarray(v), shape).reshape(-1) for v in operands]
    if idx is not None:
        vals = [v[idx] for v in vals]
    m = off.shape[0]
    olds = np.zeros(m, elem.dtype)
    if m > 1:
        order = np.lexsort((np.arange(m), off, base))
        bs, os_ = base[order], off[order]
        new = np.ones(m, bool)
        new[1:] = (bs[1:] != bs[:-1]) | (os_[1:] != os_[:-1])
        start = np.maximum.accumulate(np.where(new, np.arange(m), 0))
        rank = np.empty(m, np.int64)
        rank[order] = np.arange(m) - start
        rounds = int(rank.max()) + 1
    else:
        rank = np.zeros(m, np.int64)
        rounds = 1 if m else 0
    for k in range(rounds):
        sel = np.nonzero(rank == k)[0] if rounds > 1 else slice(None)
        b, o = base[sel], off[sel]
        old = rt.memory.read(b, o, elem)
        newv = np.asarray(compute(old, *[v[sel] for v in vals])).astype(elem.dtype)
        rt.memory.write(b, o, elem, newv, wid)
        olds[sel] = old
    if idx is None:
        return olds.reshape(shape)
    out = np.zeros(n, elem.dtype)
    out[idx] = olds
    return out.reshape(shape)


def _rmw_compute(code: int, e: Elem):
    if code == 10:
        return lambda old, v: v
    if code in (1, 2, 3):
        f = {1: np.bitwise_and, 2: np.bitwise_or, 3: np.bitwise_xor}[code]
        return lambda old, v: f(old, v)
    if e.is_float:
        f = {4: np.add, 5: np.add, 6: N.maximumf, 7: N.minimumf, 8: N.maximumf, 9: N.minimumf}[code]
        return N.float_binop(f, e)
    if code in (4, 5):
        return lambda old, v: N.from_u(N.to_u(old, e) + N.to_u(v, e), e)
    if code in (6, 7):
        f = np.maximum if code == 6 else np.minimum
        return lambda old, v: N.from_s(f(N.to_s(old, e), N.to_s(v, e)), e)
    f = np.maximum if code == 8 else np.minimum
    return lambda old, v: N.from_u(f(N.to_u(old, e), N.to_u(v, e)), e)


_RMW_NAMES = {"and": 1, "or": 2, "xor": 3, "add": 4, "fadd": 5, "max": 6, "min": 7, "umax": 8, "umin": 9,
              "exch": 10}


@handler("tt.atomic_rmw")
def _atomic_rmw(op, P):
    ops = list(op.operands)
    ptr, val = ops[0], ops[1]
    mask = ops[2] if len(ops) > 2 else None
    r = op.results[0]
    e = elem_of(val.type)
    try:
        code = iprop(op, "atomic_rmw_op")
    except ValueError:
        code = _RMW_NAMES[str(prop(op, "atomic_rmw_op")).strip()]
    compute = _rmw_compute(code, e)
    wid = P.writer_id(op)

    def run(env, rt):
        env[r] = _atomic(rt, env[ptr], env[mask] if mask is not None else None, e, compute, [env[val]], wid)

    return run


@handler("tt.atomic_cas")
def _atomic_cas(op, P):
    ptr, cmp, val = op.operands[:3]
    r = op.results[0]
    e = elem_of(val.type)
    wid = P.writer_id(op)

    def compute(old, c, v):
        ob = np.asarray(old).view(np.dtype(f"u{e.size}")) if e.width > 1 else old
        cb = np.asarray(c).astype(e.dtype).view(np.dtype(f"u{e.size}")) if e.width > 1 else c
        return np.where(ob == cb, v, old)

    def run(env, rt):
        env[r] = _atomic(rt, env[ptr], None, e, compute, [env[cmp], env[val]], wid)

    return run


# ---------------------------------------------------------------- tt: calls, debug
@handler("tt.call")
def _call(op, P):
    callee = prop(op, "callee")
    name = callee.root_reference.data if hasattr(callee, "root_reference") else str(callee).lstrip("@")
    ins, outs = list(op.operands), list(op.results)
    if name not in P.funcs:
        raise P.error(op, f"call to unknown function @{name}")

    def run(env, rt):
        res = P.call(name, [env[v] for v in ins], rt)
        for o, v in zip(outs, res):
            env[o] = v

    return run


@handler("tt.print")
def _print(op, P):
    prefix = sprop(op, "prefix", "")
    ins = list(op.operands)
    loc = loc_str(op)

    def run(env, rt):
        vals = []
        for v in ins:
            x = env[v]
            vals.append(x.to_int() if isinstance(x, Ptr) else np.array(x, copy=True))
        rt.events.append(Event("print", prefix, loc, rt.pids, vals))

    return run


@handler("tt.assert", "cf.assert")
def _assert(op, P):
    """A failing ``tt.assert`` (some lane false) is an ``"assert"`` event with its message and
    the flat indices of the false lanes; the run goes on (the GPU stops the kernel: what was
    written before and after is compared all the same).  ``cf.assert %c, "msg"`` (MLIR's: a
    scalar ``i1``, "program termination" on failure) is the same: a false condition is the
    event a scalar ``tt.assert`` with that message gives (lane 0), so a rewrite between the
    two compares equal; a true one does nothing."""
    c = op.operands[0]
    msg = sprop(op, "message" if op.name == "tt.assert" else "msg", "")
    loc = loc_str(op)

    def run(env, rt):
        cv = np.asarray(env[c]).reshape(-1)
        bad = np.nonzero(~cv.astype(bool))[0]
        if bad.shape[0]:
            rt.events.append(Event("assert", msg, loc, rt.pids, [bad]))

    return run


@handler("tt.map_elementwise")
def _map_elementwise(op, P):
    pack = iprop(op, "pack", 1)
    if pack != 1:
        raise P.error(op, f"tt.map_elementwise with pack = {pack} is not supported (only 1)")
    cb = P.compile_region(op.regions[0])
    ins, outs = list(op.operands), list(op.results)
    shapes = [type_info(o.type).shape for o in outs]

    def run(env, rt):
        res = P.run_block(cb, env, rt, [env[v] for v in ins])
        for o, v, shp in zip(outs, res, shapes):
            env[o] = np.array(np.broadcast_to(np.asarray(v), shp))

    return run


_FP4_E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0])


@handler("ttg.fp4_to_fp")
def _fp4_to_fp(op, P):
    a, r = op.operands[0], op.results[0]
    axis = iprop(op, "axis", 0)
    rinfo = type_info(r.type)
    e = elem_of(a.type)

    def run(env, rt):
        u = N.to_u(env[a], e).astype(np.uint8)
        lo = _FP4_E2M1[u & 0xF]
        hi = _FP4_E2M1[u >> 4]
        both = np.stack([lo, hi], axis=axis + 1)  # the low nibble first along the axis
        env[r] = both.reshape(rinfo.shape).astype(rinfo.elem.dtype)

    return run


def _nothing(op, P):
    return None


for _n in ("gpu.barrier", "ttg.barrier", "ttng.fence_async_shared", "ttg.local_dealloc", "llvm.intr.assume",
           "tt.assume"):
    HANDLERS[_n] = _nothing


@handler("ub.poison")
def _poison(op, P):
    r = op.results[0]
    info = type_info(r.type)
    if info.elem is not None and info.elem.is_ptr:
        value = Ptr(np.full(info.shape, -1), np.zeros(info.shape, np.int64), info.elem.pointee)
    elif info.kind == "token":
        value = None
    else:
        value = np.zeros(info.shape, info.elem.dtype)

    def run(env, rt):
        env[r] = value

    return run


# ---------------------------------------------------------------- ttg: shared memory, async copies
@handler("ttg.local_alloc")
def _local_alloc(op, P):
    r = op.results[0]
    info = type_info(r.type)
    src = op.operands[0] if op.operands else None

    def run(env, rt):
        arr = np.zeros(info.shape, info.elem.dtype)
        if src is not None:
            arr[...] = np.asarray(env[src]).reshape(info.shape)
        env[r] = SharedBuf(arr)

    return run


@handler("ttg.local_load")
def _local_load(op, P):
    a, r = op.operands[0], op.results[0]

    def run(env, rt):
        env[r] = np.array(env[a].arr, copy=True)

    return run


@handler("ttg.local_store")
def _local_store(op, P):
    src, dst = op.operands[:2]

    def run(env, rt):
        buf = env[dst]
        buf.arr[...] = np.asarray(env[src]).reshape(buf.arr.shape)

    return run


@handler("ttg.memdesc_index")
def _memdesc_index(op, P):
    a, i = op.operands[:2]
    ie = elem_of(i.type)
    r = op.results[0]

    def run(env, rt):
        env[r] = SharedBuf(env[a].arr[int(N.to_s(env[i], ie))])

    return run


@handler("ttg.memdesc_subslice", "ttg.memdesc_subview")
def _memdesc_subslice(op, P):
    a = op.operands[0]
    r = op.results[0]
    shape = type_info(r.type).shape
    offsets = aprop(op, "offsets")
    if offsets is None:
        raise ValueError("memdesc_subslice without static offsets")

    def run(env, rt):
        arr = env[a].arr
        lead = arr.ndim - len(shape)
        sl = tuple(slice(o, o + (shape[k - lead] if k >= lead else 1)) for k, o in enumerate(offsets))
        env[r] = SharedBuf(arr[sl].reshape(shape))

    return run


@handler("ttg.memdesc_trans")
def _memdesc_trans(op, P):
    a, r = op.operands[0], op.results[0]
    order = tuple(aprop(op, "order"))

    def run(env, rt):
        env[r] = SharedBuf(np.transpose(env[a].arr, order))

    return run


@handler("ttg.memdesc_reshape")
def _memdesc_reshape(op, P):
    a, r = op.operands[0], op.results[0]
    shape = type_info(r.type).shape

    def run(env, rt):
        env[r] = SharedBuf(env[a].arr.reshape(shape))

    return run


@handler("ttg.memdesc_reinterpret")
def _memdesc_reinterpret(op, P):
    a, r = op.operands[0], op.results[0]
    info = type_info(r.type)

    def run(env, rt):
        arr = env[a].arr
        if not arr.flags.c_contiguous:
            raise MemoryError_("memdesc_reinterpret of a non-contiguous view")
        env[r] = SharedBuf(arr.reshape(-1).view(info.elem.dtype).reshape(info.shape))

    return run


@handler("ttg.async_copy_global_to_local")
def _async_copy(op, P):
    ops = list(op.operands)
    seg = aprop(op, "operandSegmentSizes")
    src, dst = ops[0], ops[1]
    mask = other = None
    if seg is not None and len(seg) >= 4:
        k = 2
        if seg[2]:
            mask = ops[k]
            k += 1
        if seg[3]:
            other = ops[k]
    else:
        mask = ops[2] if len(ops) > 2 else None
        other = ops[3] if len(ops) > 3 else None
    res = list(op.results)

    def run(env, rt):
        p = env[src]
        buf = env[dst]
        vals = do_load(rt, p, env[mask] if mask is not None else None,
                       env[other] if other is not None else None, p.elem)
        buf.arr[...] = vals.reshape(buf.arr.shape)
        for r in res:
            env[r] = None

    return run


def _tokens(op, P):
    res = list(op.results)

    def run(env, rt):
        for r in res:
            env[r] = None

    return run


for _n in ("ttg.async_commit_group", "ttg.async_wait"):
    HANDLERS[_n] = _tokens


SUPPORTED_OPS = sorted(set(HANDLERS) | TERMINATORS | set(BRANCHES))
