"""Op-coverage kernels of the per-version fixtures: together they make each Triton release
(2.1-3.9) emit as many distinct TTIR/TTGIR ops as it can (issue #12).

Loaded by inenv.py next to kernels.py (the same way: a relative file name,
``tools/versions/kernels_ops.py``, is in the locations).  kernels.py keeps the original seven
kernels byte-stable; everything here may move.

One source for every release.  Where the language differs, the kernel asks what the release
has through the module-level constexprs below (``if HAS_X:`` in a kernel is decided when the
kernel compiles, so a release never meets a call it lacks), and names that a release does not
have are reached through aliases (``_join``...) that are ``None`` there: Triton 2.x resolves
every ``tl.<name>`` of a kernel's body while hashing it, taken branch or not.  Kernels with an
``ARCH`` constexpr get the compute capability (inenv.py adds it): what only some targets
compile (fp8e4nv from sm_89, fp8e4b15 below sm_90, wgmma fp8, griddepcontrol) is asked there.

``SPECS`` as in kernels.py, plus ``options`` (``debug``, ``num_ctas``) and ``arch``.
"""

import inspect

import triton
import triton.language as tl

TV = tuple(int(x) for x in triton.__version__.split(".")[:2])


def _flag(cond):
    return tl.constexpr(bool(cond))


def _tl(name):
    return getattr(tl, name, None)


V3 = _flag(TV >= (3, 0))
HAS_SCOPE = _flag(TV >= (2, 2))  # atomics: scope=
HAS_UMAX = _flag(TV < (2, 2) or TV >= (3, 0))  # 2.2/2.3: tl.maximum of unsigned is broken
HAS_TENSOR_CAS = _flag(TV >= (2, 2))  # 2.1 lowers tt.atomic_cas of scalars only
HAS_DOT_ACC = _flag(TV >= (2, 2))  # tl.dot(a, b, acc)
HAS_INPUT_PRECISION = _flag(TV >= (3, 0))  # tl.dot(..., input_precision=)
HAS_INLINE_ASM = _flag(hasattr(tl, "inline_asm_elementwise"))
HAS_NUM_THREADS = _flag(TV >= (2, 2))
HAS_SORT = _flag(hasattr(tl, "sort"))
HAS_TOPK = _flag(hasattr(tl, "topk"))
HAS_REDUCE_OR = _flag(hasattr(tl, "reduce_or"))
HAS_GATHER = _flag(hasattr(tl, "gather"))
HAS_ASSUME = _flag(hasattr(tl, "assume"))
HAS_MAP = _flag(hasattr(tl, "map_elementwise"))
HAS_LOAD_CV = _flag(TV >= (3, 2))  # load cache_modifier=".cv"
HAS_LOAD_CS = _flag(TV >= (3, 8))  # load cache_modifier=".cs"
# block pointers: 3.9 removed them; 2.1 and 3.0-3.8 rewrite them to pointer arithmetic in make_ttir
# already (their fixtures show no block-pointer op: kernels.py's block_ptr has that case)
BLOCK_PTR_OPS = _flag(TV in ((2, 2), (2, 3)))
HAS_RANGE = _flag(hasattr(tl, "range"))  # tl.range(..., num_stages=)
HAS_UNROLL = _flag(TV >= (3, 2))  # tl.range(..., loop_unroll_factor=)
HAS_FLATTEN = _flag(TV >= (3, 3))  # tl.range(..., flatten=, disallow_acc_multi_buffer=)
HAS_NO_LICM = _flag(TV >= (3, 5))  # tl.range(..., disable_licm=)
HAS_ASSERT_MASK = _flag(TV >= (3, 5))  # tl.device_assert(..., mask=)
HAS_FP8E4NV = _flag(hasattr(tl, "float8e4nv") or hasattr(tl, "float8e4"))  # 2.1: float8e4
HAS_DOT3D = _flag(TV >= (3, 0))
HAS_FP8E4NV_DOT = _flag(hasattr(tl, "float8e4nv") and TV != (2, 3))  # 2.3 sm_90: an assertion fails
HAS_FP8_DOT = _flag(TV >= (2, 2))  # 2.1 sm_90: "invalid element type in packLLEElements"
HAS_GDC = _flag(TV >= (3, 5))  # 3.4's gdc_wait() fails (an extern still taking _builder)
HAS_FDIV_APPROX = _flag(TV >= (3, 9))
HAS_ATOMIC_LS = _flag(hasattr(tl, "atomic_load"))  # 3.9: atomic_load/store/poll
HAS_CONDITION = _flag(hasattr(tl, "condition"))  # while tl.condition(c, disable_licm=...)
HAS_EXPECT_ZERO = _flag(hasattr(tl, "expect_zero"))
HAS_ITEM = _flag(TV >= (3, 5))  # tensor.item(): tt.unsplat
PNAN_ALL = tl.constexpr(tl.PropagateNan.ALL if hasattr(tl, "PropagateNan") else None)

# renamed or missing: None where the release lacks it (only reached under its flag)
_join, _split, _interleave, _permute, _flip = _tl("join"), _tl("split"), _tl("interleave"), _tl("permute"), _tl("flip")
_clamp, _histogram, _gather, _topk, _reduce_or = _tl("clamp"), _tl("histogram"), _tl("gather"), _tl("topk"), _tl("reduce_or")
_sort, _assume, _map_elementwise, _range = _tl("sort"), _tl("assume"), _tl("map_elementwise"), _tl("range")
_inline_asm = _tl("inline_asm_elementwise")
_atomic_load, _atomic_store, _atomic_poll = _tl("atomic_load"), _tl("atomic_store"), _tl("atomic_poll")
_condition, _expect_zero = _tl("condition"), _tl("expect_zero")
_reshape = tl.view if TV < (2, 2) else tl.reshape  # 2.1: "reshape is not supported yet"
_fp8e4nv = tl.constexpr(getattr(tl, "float8e4nv", getattr(tl, "float8e4", None)))
if TV >= (3, 0):
    from triton.language.extra.cuda import libdevice as LIBDEVICE  # noqa: E402
else:
    LIBDEVICE = tl.math  # 2.x: tl.math is libdevice
import triton.language.extra.cuda as CUDA  # noqa: E402

_gdc_wait, _gdc_launch_dependents = getattr(CUDA, "gdc_wait", None), getattr(CUDA, "gdc_launch_dependents", None)
_tensormap_create2d = getattr(CUDA, "experimental_device_tensormap_create2d", None)
_tensormap_fenceproxy_acquire = getattr(CUDA, "experimental_tensormap_fenceproxy_acquire", None)


# ------------------------------------------------------------------------------ atomics
# (each op's result feeds the next: no glue ops, small files)


@triton.jit
def atomics(f_ptr, i_ptr, u_ptr, h_ptr, n, BLOCK: tl.constexpr):
    """tt.atomic_rmw (fadd add max min umax umin and or xor exch), tt.atomic_cas; masked or
    not, scalar and tensor, every sem and scope the release has."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    fp = f_ptr + offs
    ip = i_ptr + offs
    r = tl.atomic_add(fp, tl.load(fp, mask=m, other=0.0), mask=m)
    r = tl.atomic_max(fp, r, mask=m)
    r = tl.atomic_min(fp, r)
    r = tl.atomic_xchg(fp, r, mask=m, sem="relaxed")
    q = tl.atomic_add(ip, offs)
    q = tl.atomic_max(ip, q, mask=m, sem="acquire")
    q = tl.atomic_min(ip, q, sem="release")
    q = tl.atomic_and(ip, q, mask=m, sem="acq_rel")
    q = tl.atomic_or(ip, q)
    q = tl.atomic_xor(ip, q, mask=m)
    if HAS_TENSOR_CAS:
        q = tl.atomic_cas(ip, offs, q, sem="relaxed")
    q = tl.atomic_max(u_ptr + offs, q.to(tl.uint32), mask=m)
    q = tl.atomic_min(u_ptr + offs, q).to(tl.int32)
    if HAS_SCOPE:
        q = tl.atomic_add(ip, q, sem="relaxed", scope="cta")
        q = tl.atomic_xchg(ip, q, mask=m, scope="sys")
        s = tl.atomic_cas(i_ptr + n, 0, 1, sem="acquire", scope="gpu")
    else:
        s = tl.atomic_cas(i_ptr + n, 0, 1)
    s = tl.atomic_add(i_ptr + n + 1, s)
    if HAS_ATOMIC_LS:
        q = _atomic_load(ip, mask=m, sem="acquire", scope="gpu") + _atomic_load(ip)
        _atomic_store(ip, q, mask=m, sem="release")
        _atomic_poll(i_ptr + n, 1, sem="acquire", scope="sys")
    tl.atomic_add(h_ptr + offs, r.to(tl.float16), mask=m)
    tl.store(fp, r + (q + s).to(tl.float32), mask=m)


# ------------------------------------------------------------------------------ debug, grid


@triton.jit
def debug_ops(x_ptr, n, BLOCK: tl.constexpr):
    """tt.get_program_id and tt.get_num_programs on x, y, z; tt.print, tt.assert (compiled with
    debug=True), the barrier of tl.debug_barrier."""
    pid = tl.program_id(0) + tl.program_id(1) * tl.num_programs(0) + tl.program_id(axis=2) * tl.num_programs(1)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.device_print("pid", pid, tl.num_programs(2))
    tl.device_print("x", x)
    if V3:
        tl.device_print("offs", offs, hex=True)
    tl.device_assert(x == x, "x is nan")
    if HAS_ASSERT_MASK:
        tl.device_assert(x >= 0, "negative", mask=m)
    if HAS_EXPECT_ZERO:
        x = _expect_zero(x, m)
    tl.static_print("no op")
    tl.debug_barrier()
    tl.store(x_ptr + offs, x, mask=m)


# ------------------------------------------------------------------------------ arithmetic


@triton.jit
def _scalar_select(a, b):
    if a > b:
        return a - b
    else:
        return b * 0.5


@triton.jit
def math_ops(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    """math.* (exp exp2 log log2 sin cos sqrt rsqrt absf floor ceil erf fma), precise sqrt/div,
    fdiv, remf, negf, maximum/minimum (NaN-propagating too), clamp, libdevice calls
    (tt.extern_elementwise), f64, tt.map_elementwise."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    y = tl.load(y_ptr + offs, mask=m, other=1.0)
    a = tl.math.log2(tl.log(tl.math.exp2(tl.exp(x))))
    a = tl.math.rsqrt(tl.math.sqrt_rn(tl.sqrt(tl.cos(tl.sin(a)))))
    a = tl.math.erf(tl.math.ceil(tl.math.floor(tl.abs(a))))
    a = tl.fdiv(tl.fdiv(tl.math.div_rn(a, y), y), y, ieee_rounding=True)
    a = -(((a / y) % y - x) * y)
    a = tl.sigmoid(tl.where(a > y, tl.minimum(tl.maximum(tl.math.fma(a, y, x), y), x), y))
    a = LIBDEVICE.fast_expf(LIBDEVICE.pow(LIBDEVICE.tanh(a), y))
    a = LIBDEVICE.isnan(LIBDEVICE.llrint(a).to(tl.float32)).to(tl.float32)
    a = tl.sqrt(a.to(tl.float64) * y.to(tl.float64)).to(tl.float32)
    if V3:
        a = tl.minimum(tl.maximum(a, y, propagate_nan=PNAN_ALL), x, propagate_nan=PNAN_ALL)
        a = _clamp(_clamp(a, -1.0, y), 0.0, 1.0, propagate_nan=PNAN_ALL)
    if HAS_MAP:
        a = _map_elementwise(_scalar_select, a, y)
    if HAS_FDIV_APPROX:
        a = tl.fdiv(a, y, approx=True)
    tl.store(x_ptr + offs, a, mask=m)


@triton.jit
def int_ops(a_ptr, f_ptr, n, BLOCK: tl.constexpr):
    """arith on integers (signed and unsigned div/rem/shift/compare/max/min), absi, umulhi,
    casts (sitofp uitofp fptosi fptoui extsi extui trunci, bitcast), float compares, pointer
    <-> int casts and pointer bitcasts, i64 offsets."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m, other=1)
    f = tl.load(f_ptr + offs.to(tl.int64) * n, mask=m, other=0.0)
    r = -(~((((((((((a + n) - a) * a) // n) % a) & n) | a) ^ n) << 3) >> a))
    u = r.to(tl.uint32)
    nu = n.to(tl.uint32)
    u = tl.umulhi(((u // nu) % nu) >> 2, u)
    if HAS_UMAX:
        u = tl.minimum(tl.maximum(u, nu), 7)
    r = tl.cdiv(tl.abs(tl.minimum(tl.maximum(u.to(tl.int32), a), n)), 16)
    c = (((r < a) & (r <= n)) | ((r > a) ^ (r >= n))) | ((r == a) & (r != n))
    c = c & (((u < 3) | (u >= 4)) ^ ((u > 5) & (u <= 6)))
    r = tl.where(c, r, a)
    r = ((r.to(tl.int64) * n).to(tl.int16).to(tl.int32) + n).to(tl.uint8).to(tl.int32)
    g = (r.to(tl.float32) + u.to(tl.float32)).to(tl.int8).to(tl.float32)
    g = (g.to(tl.int32) + g.to(tl.uint32).to(tl.int32)).to(tl.float32, bitcast=True)
    c = (g < f) | (g <= 1.0) | (g > f) | (g >= 2.0) | (g == f) | (g != f)
    r = tl.where(c, g.to(tl.int32, bitcast=True), r)
    ip = (((a_ptr + offs).to(tl.int64) | 4).to(tl.pointer_type(tl.int32)))  # tt.ptr_to_int, tt.int_to_ptr
    r += tl.load(ip, mask=m, other=0)
    tl.store(a_ptr.to(tl.pointer_type(tl.uint32)) + offs, r, mask=m)  # pointer bitcast


@triton.jit
def fp_convert(x_ptr, h_ptr, b_ptr, d_ptr, n, BLOCK: tl.constexpr, ARCH: tl.constexpr):
    """Float conversions: extf/truncf (f16 bf16 f64), tt.fp_to_fp (fp8: e5m2, e4m3 from sm_89;
    rounding modes), half-precision arithmetic.  sm_80: only fp8e4b15 (below sm_90 only); the
    rest would be sm_90's text again."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    if ARCH < 90:
        tl.store(x_ptr + offs, x.to(tl.float8e4b15).to(tl.float32), mask=m)
    else:
        h = tl.load(h_ptr + offs, mask=m, other=0.0)
        b = tl.load(b_ptr + offs, mask=m, other=0.0)
        d = tl.load(d_ptr + offs, mask=m, other=0.0)
        h = (h + h).to(tl.float8e5).to(tl.float16).to(tl.int16, bitcast=True)
        b = (b * b).to(tl.float32).to(tl.float16).to(tl.bfloat16)
        x = (x + d.to(tl.float32)).to(tl.float16).to(tl.float32).to(tl.bfloat16).to(tl.float32)
        x = x.to(tl.float8e5).to(tl.float32).to(tl.float64).to(tl.float32) + h.to(tl.float32) + b.to(tl.float32)
        if HAS_FP8E4NV:
            x = x.to(_fp8e4nv).to(tl.float16).to(_fp8e4nv).to(tl.bfloat16).to(_fp8e4nv).to(tl.float32)
        if V3:
            x = x.to(tl.float16, fp_downcast_rounding="rtz").to(tl.float32)
            x = x.to(tl.float8e5, fp_downcast_rounding="rtz").to(tl.float32)
        tl.store(x_ptr + offs, x, mask=m)
        tl.store(h_ptr + offs, x.to(tl.float16), mask=m)
        tl.store(b_ptr + offs, x.to(tl.bfloat16), mask=m)
        tl.store(d_ptr + offs, x.to(tl.float64) * d, mask=m)


# ------------------------------------------------------------------------------ scans, reductions


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def _mul_max(a, b):
    return tl.maximum(a, b) * 1.0


@triton.jit
def _pair_min(v0, i0, v1, i1):
    lt = v0 < v1
    return tl.where(lt, v0, v1), tl.where(lt, i0, i1)


@triton.jit
def scan_reduce(x_ptr, i_ptr, out_ptr, iout_ptr, R: tl.constexpr, C: tl.constexpr):
    """tt.scan (cumsum, cumprod; 3.x: reverse, two operands), tt.reduce (builtin, custom,
    multi-operand, argmax), reduce_or, tt.histogram, tt.gather."""
    rows = tl.arange(0, R)[:, None]
    cols = tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + rows * C + cols)
    iv = tl.load(i_ptr + rows * C + cols)
    s = tl.cumprod(tl.cumsum(x, axis=1), axis=0)
    red = tl.reduce(x, 1, _mul_max) + tl.sum(tl.sum(x, 1), 0)
    rv, ri = tl.reduce((x, iv), 1, _pair_min)
    ired = tl.argmax(rv, 0) + ri
    if V3:
        s += tl.associative_scan(x, 0, _add, reverse=True)
        sv, si = tl.associative_scan((x, iv), 1, _pair_min)
        s += sv + si.to(tl.float32)
        hist = _histogram(tl.ravel(iv) & 31, 32)
        tl.store(iout_ptr + R + tl.arange(0, 32), hist)
    if HAS_REDUCE_OR:
        ired += _reduce_or(iv, 1)
    if HAS_GATHER:
        s += _gather(x, iv & (C - 1), 1)
    tl.store(out_ptr + rows * C + cols, s)
    tl.store(out_ptr + R * C + tl.arange(0, R), red)
    tl.store(iout_ptr + tl.arange(0, R), ired)


@triton.jit
def sort_ops(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    """tl.sort, tl.flip: what the standard library builds from reshapes, xor_sum reductions
    and bitcasts (small: they unroll; tl.topk is the same ops again)."""
    tl.static_assert(HAS_SORT, "no tl.sort in this release")
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + offs)
    s = _sort(x, descending=True)
    if V3:
        s = _flip(s, 1)
    tl.store(out_ptr + offs, s)


# ------------------------------------------------------------------------------ shapes


@triton.jit
def shape_ops(x_ptr, y_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    """tt.trans, tt.reshape (and allow_reorder), tt.expand_dims, tt.broadcast, tt.splat,
    tt.cat, tt.join, tt.split, interleave, permute (3D trans)."""
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    y = tl.load(y_ptr + tl.arange(0, M * N))
    rs = _reshape(y, (M, N))
    v = tl.view(y, (M, N))
    b = tl.broadcast_to(tl.expand_dims(tl.sum(x, 1), 1), (M, N))
    z = tl.zeros((M, N), dtype=tl.float32) + tl.full((M, N), 2.0, tl.float32) + tl.zeros_like(x)
    out = x + rs + v * b + z
    cat = tl.cat(tl.ravel(x), y, can_reorder=True)
    tl.store(out_ptr + 2 * M * N + tl.arange(0, 2 * M * N), cat)
    t = tl.trans(x)
    tl.store(out_ptr + M * N + c[:, None] * M + r[None, :], t)
    if V3:
        j = _join(x, rs)
        tl.store(out_ptr + 4 * M * N + (r[:, None] * N + c[None, :])[:, :, None] * 2 + tl.arange(0, 2)[None, None, :], j)
        lo, hi = _split(tl.reshape(y, (M, N // 2, 2)))
        out += tl.reshape(_interleave(hi, lo), (M, N))  # (lo, hi) would fold away: join(split(y))
        if HAS_ITEM:
            out = out * tl.sum(tl.reshape(x, (M * N,)) * (tl.arange(0, M * N) == 0), 0, keep_dims=True).item()
        p = _permute(tl.reshape(x, (2, M // 2, N)), 2, 0, 1)
        out += tl.reshape(p, (M, N), can_reorder=True) + tl.trans(tl.trans(x, 1, 0), 1, 0)
    tl.store(out_ptr + r[:, None] * N + c[None, :], out)


# ------------------------------------------------------------------------------ dots


@triton.jit
def dot_ops(a_ptr, b_ptr, c_ptr, M: tl.constexpr, ARCH: tl.constexpr):
    """tt.dot: fp16 (transposed operand, fp16 accumulator), bf16, fp32 (ieee, tf32, tf32x3),
    int8 -> int32, fp8 (sm_89+: e5m2, e4m3 with max_num_imprecise_acc), 3D (batched).  One
    M x M tile: the operands of every dot are conversions of the two loaded ones."""
    offs = tl.arange(0, M)[:, None] * M + tl.arange(0, M)[None, :]
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    acc = tl.dot(a.to(tl.bfloat16), b.to(tl.bfloat16))
    if HAS_DOT_ACC:
        acc = tl.dot(a, tl.trans(b), acc)
    else:
        acc += tl.dot(a, tl.trans(b))
    fa = a.to(tl.float32)
    fb = b.to(tl.float32)
    if HAS_INPUT_PRECISION:
        acc += tl.dot(fa, fb, input_precision="ieee") + tl.dot(fa, fb, input_precision="tf32")
        acc += tl.dot(fa, fb, input_precision="tf32x3")
    else:
        acc += tl.dot(fa, fb, allow_tf32=False) + tl.dot(fa, fb)
    if ARCH >= 89 and HAS_FP8_DOT:
        acc += tl.dot(a.to(tl.float8e5), b.to(tl.float8e5))
        if HAS_FP8E4NV_DOT:
            acc += tl.dot(a.to(_fp8e4nv), b.to(_fp8e4nv), max_num_imprecise_acc=16)
    acc += tl.dot(a, b, out_dtype=tl.float16).to(tl.float32)
    acc += tl.dot(a.to(tl.int8), b.to(tl.int8), out_dtype=tl.int32).to(tl.float32)
    if HAS_DOT3D:
        c3 = tl.dot(tl.reshape(a, (4, M // 4, M)), tl.reshape(b, (4, M, M // 4)))
        acc += tl.sum(tl.reshape(c3, (M, M // 4)), 1)[:, None]
    tl.store(c_ptr + offs, acc)


if hasattr(tl, "dot_scaled"):
    if TV >= (3, 3):

        @triton.jit
        def dot_scaled(a_ptr, as_ptr, b_ptr, bs_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                       ARCH: tl.constexpr):
            """tt.dot_scaled: mxfp4 x mxfp4, mxfp8 (e4m3, sm_89+) x mxfp4 with scales on both sides."""
            ka = tl.arange(0, K // 2)
            ks = tl.arange(0, K // 32)
            m = tl.arange(0, M)
            n = tl.arange(0, N)
            a = tl.load(a_ptr + m[:, None] * (K // 2) + ka[None, :])
            a8 = tl.load(a_ptr + m[:, None] * K + tl.arange(0, K)[None, :])
            b = tl.load(b_ptr + ka[:, None] * N + n[None, :])
            sa = tl.load(as_ptr + m[:, None] * (K // 32) + ks[None, :])
            sb = tl.load(bs_ptr + n[:, None] * (K // 32) + ks[None, :])
            c = tl.dot_scaled(a, sa, "e2m1", b, sb, "e2m1")
            if ARCH >= 89:
                c += tl.dot_scaled(a8, sa, "e4m3", b, sb, "e2m1")
            tl.store(c_ptr + m[:, None] * N + n[None, :], c)

    else:

        @triton.jit
        def dot_scaled(a_ptr, as_ptr, b_ptr, bs_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                       ARCH: tl.constexpr):
            """tt.dot_scaled (3.2: lhs scaled e2m1/e4m3, rhs e4m3/e5m2 without scale; e4m3 from sm_89)."""
            ka = tl.arange(0, K // 2)
            ks = tl.arange(0, K // 32)
            m = tl.arange(0, M)
            n = tl.arange(0, N)
            a = tl.load(a_ptr + m[:, None] * (K // 2) + ka[None, :])
            a8 = tl.load(a_ptr + m[:, None] * K + tl.arange(0, K)[None, :])
            b = tl.load(b_ptr + tl.arange(0, K)[:, None] * N + n[None, :])
            sa = tl.load(as_ptr + m[:, None] * (K // 32) + ks[None, :])
            c = tl.dot_scaled(a, sa, "e2m1", b, None, "e5m2")
            if ARCH >= 89:
                c += tl.dot_scaled(a8, sa, "e4m3", b, None, "e4m3")
            tl.store(c_ptr + m[:, None] * N + n[None, :], c)

else:
    dot_scaled = None


# ------------------------------------------------------------------------------ inline asm, cuda extras


@triton.jit
def inline_asm(x_ptr, c_ptr, out_ptr, n, BLOCK: tl.constexpr, ARCH: tl.constexpr):
    """tt.elementwise_inline_asm (pure or not, packed int8, several results); the
    tl.extra.cuda helpers (2.1: extern calls into cuda.bc; later inline asm); griddepcontrol."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    c = tl.load(c_ptr + offs, mask=m, other=0)
    r = x + CUDA.smid().to(tl.float32) + CUDA.globaltimer().to(tl.float32)
    if HAS_NUM_THREADS:
        r += CUDA.num_threads()
    if HAS_INLINE_ASM:
        r += _inline_asm("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1)
        r += _inline_asm("mov.b32 $0, $1;", "=r,r", [r], dtype=tl.float32, is_pure=False, pack=1)
        p = _inline_asm("and.b32 $0, $1, 0x1F1F1F1F;", "=r,r", [c], dtype=tl.uint8, is_pure=True, pack=4)
        tl.store(c_ptr + offs, p, mask=m)
    if V3:
        o1, o2 = _inline_asm("mov.b32 $0, $2;\n\tmov.b32 $1, $3;", "=r,=r,r,r", [x, r],
                             dtype=(tl.float32, tl.float32), is_pure=True, pack=1)
        r += o1 * o2
    if HAS_GDC:
        if ARCH >= 90:
            _gdc_wait()
            _gdc_launch_dependents()
    tl.store(out_ptr + offs, r, mask=m)


# ------------------------------------------------------------------------------ memory


@triton.jit
def memory_ops(x_ptr, y_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """tt.load/tt.store with every cache modifier and eviction policy the release accepts,
    volatile, other, masks, scalars, i1 pointers; hints (multiple_of, max_contiguous,
    max_constancy); 2.2/2.3: 1D block pointers with boundary checks, padding, hints (the
    releases whose TTIR keeps block-pointer ops)."""
    pid = tl.program_id(0)
    offs = tl.max_contiguous(tl.multiple_of(pid * BLOCK + tl.arange(0, BLOCK), BLOCK), BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0, cache_modifier=".ca")
    x += tl.load(x_ptr + offs + n, mask=m, other=1.0, cache_modifier=".cg")
    x += tl.load(x_ptr + offs + 6 * n, mask=m, other=1.0, eviction_policy="evict_first")
    x += tl.load(x_ptr + offs + 2 * n, eviction_policy="evict_last")
    x += tl.load(x_ptr + offs + 3 * n, mask=m, volatile=True)
    if HAS_LOAD_CV:
        x += tl.load(x_ptr + offs + 4 * n, mask=m, cache_modifier=".cv")
    if HAS_LOAD_CS:
        x += tl.load(x_ptr + offs + 5 * n, mask=m, cache_modifier=".cs")
    s = tl.load(y_ptr) + tl.load(y_ptr + 1, cache_modifier=".cg")
    k = tl.max_constancy(offs // BLOCK, BLOCK)
    x += tl.load(y_ptr + k, mask=m, other=0.0)
    bl = tl.load(b_ptr + offs, mask=m, other=0)
    x = tl.where(bl, x, s)
    tl.store(out_ptr + offs, x, mask=m, cache_modifier=".wb")
    tl.store(out_ptr + offs + n, x, cache_modifier=".cg")
    tl.store(out_ptr + offs + 4 * n, x, eviction_policy="evict_last")
    tl.store(out_ptr + offs + 2 * n, x, mask=m, cache_modifier=".cs")
    tl.store(out_ptr + offs + 3 * n, x, mask=m, cache_modifier=".wt")
    tl.store(out_ptr + offs + 5 * n, x, mask=m, eviction_policy="evict_first")
    tl.store(y_ptr + 2, s)
    tl.store(b_ptr + offs, x > 0, mask=m)
    if BLOCK_PTR_OPS:
        bp = tl.make_block_ptr(x_ptr, shape=(n,), strides=(1,), offsets=(pid * BLOCK,), block_shape=(BLOCK,),
                               order=(0,))
        v = tl.load(bp, boundary_check=(0,), padding_option="nan", cache_modifier=".cg")
        bp = tl.advance(bp, (BLOCK,))
        v += tl.load(bp, boundary_check=(0,), padding_option="zero", eviction_policy="evict_last")
        v += tl.load(bp)
        ob = tl.make_block_ptr(out_ptr, shape=(n,), strides=(1,), offsets=(pid * BLOCK,), block_shape=(BLOCK,),
                               order=(0,))
        tl.store(ob, v, boundary_check=(0,), cache_modifier=".wt")
        tl.store(tl.advance(ob, (n,)), v)


# ------------------------------------------------------------------------------ control flow


@triton.jit(noinline=True)
def _scale_noinline(x, y):
    return x * y + 1.5


@triton.jit(noinline=True)
def _pair_noinline(x, n):
    return x + n, x - n


@triton.jit(noinline=True)
def _store_noinline(ptr, x):
    tl.store(ptr, x)


@triton.jit
def control_flow(x_ptr, out_ptr, n, k, BLOCK: tl.constexpr):
    """Early return (cf.cond_br/cf.br), scf.if with and without results, scf.while, nested
    scf.for, tl.static_range, tl.range attributes (num_stages, unroll, flatten, ...), tt.call
    of noinline functions (results: none, one, two), tl.assume."""
    pid = tl.program_id(0)
    if HAS_ASSUME:
        _assume(n > 0)
        _assume(k >= 0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    if k > 4:
        y = x * 2.0
    else:
        y = x - 1.0
    if n > 1024:
        tl.store(out_ptr + offs, y, mask=m)
    i = 0
    while i < k:
        x = x * 0.5
        i += 1
    if HAS_CONDITION:
        while _condition(i < n, disable_licm=True):
            x = x + 0.5
            i += 2
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for a in range(0, k):
        for b in range(a, k, 2):
            acc += x * b
    for s in tl.static_range(3):
        acc += x * s
    if HAS_RANGE:
        for j in _range(0, k, num_stages=2):
            acc += tl.load(x_ptr + offs + j * n, mask=m, other=0.0)
    if HAS_UNROLL:
        for j in _range(0, k, 1, loop_unroll_factor=2):
            acc = acc * 0.5 + j
    if HAS_FLATTEN:
        for j in _range(0, k, flatten=True, disallow_acc_multi_buffer=True):
            for jj in range(0, n):
                acc += jj
    if HAS_NO_LICM:
        for j in _range(0, k, disable_licm=True):
            acc += y * 2.0
    z = _scale_noinline(tl.sum(acc, 0), tl.max(y, 0))
    p, q = _pair_noinline(z, n)
    tl.store(out_ptr + offs, acc + p * q, mask=m)
    if pid == 0:
        _store_noinline(out_ptr + n, z)


# ------------------------------------------------------------------------------ descriptors in a loop


if hasattr(tl, "make_tensor_descriptor"):
    DESC_MATMUL = "host tensordesc arguments + tl.make_tensor_descriptor"

    @triton.jit
    def desc_matmul(a_desc, b_desc, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        """A matmul through descriptors (TMA and wgmma on sm_90, pointers below), the result
        stored and reduced (tt.descriptor_reduce) through a descriptor made on the device."""
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in tl.range(0, K, BK, num_stages=3):
            a = a_desc.load([pid_m * BM, k])
            b = b_desc.load([k, pid_n * BN])
            acc = tl.dot(a, b, acc)
        c_desc.store([pid_m * BM, pid_n * BN], acc)
        c_desc.atomic_add([pid_m * BM, pid_n * BN], acc)

elif hasattr(tl, "_experimental_make_tensor_descriptor"):
    DESC_MATMUL = "tl._experimental_make_tensor_descriptor"

    @triton.jit
    def desc_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        """A matmul through descriptors made on the device (3.3, sm_90)."""
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        a_desc = tl._experimental_make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
        b_desc = tl._experimental_make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
        c_desc = tl._experimental_make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in tl.range(0, K, BK, num_stages=3):
            a = a_desc.load([pid_m * BM, k])
            b = b_desc.load([k, pid_n * BN])
            acc = tl.dot(a, b, acc)
        c_desc.store([pid_m * BM, pid_n * BN], acc)

elif hasattr(tl, "_experimental_descriptor_load"):
    DESC_MATMUL = "tl._experimental_descriptor_load/store (+ device tensormap creation from 3.2)"
    HAS_TENSORMAP_CREATE = _flag(_tensormap_create2d is not None)

    @triton.jit
    def desc_matmul(a_desc, b_desc, c_ptr, ws_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        """A matmul through host-made TMA descriptors (3.0-3.2, sm_90); 3.2: the output's
        descriptor made on the device (tt.experimental_tensormap_create, fenceproxy)."""
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = tl._experimental_descriptor_load(a_desc, [pid_m * BM, k], [BM, BK], tl.float16)
            b = tl._experimental_descriptor_load(b_desc, [k, pid_n * BN], [BK, BN], tl.float16)
            acc = tl.dot(a, b, acc)
        if HAS_TENSORMAP_CREATE:
            _tensormap_create2d(desc_ptr=ws_ptr, global_address=c_ptr, load_size=[BM, BN], global_size=[M, N],
                                element_ty=c_ptr.dtype.element_ty)
            _tensormap_fenceproxy_acquire(ws_ptr)
            tl._experimental_descriptor_store(ws_ptr, acc, [pid_m * BM, pid_n * BN])
        else:
            rm = pid_m * BM + tl.arange(0, BM)
            rn = pid_n * BN + tl.arange(0, BN)
            tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)

else:
    DESC_MATMUL = None
    desc_matmul = None


if _range is not None and "warp_specialize" in inspect.signature(_range.__init__).parameters:

    @triton.jit
    def warp_specialized(a_desc, b_desc, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        """tl.range(..., warp_specialize=True): ttg.warp_specialize and its partitions (sm_90)."""
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in tl.range(0, K, BK, warp_specialize=True):
            a = a_desc.load([pid_m * BM, k])
            b = b_desc.load([k, pid_n * BN])
            acc = tl.dot(a, b, acc)
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)

else:
    warp_specialized = None


@triton.jit
def cluster_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    """A dot compiled with num_ctas=2 (a cluster of 2 CTAs on sm_90: CTA layouts)."""
    pid = tl.program_id(0)
    rm = pid * M + tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


# ------------------------------------------------------------------------------ specs


def _spec(fn, args, constexprs, num_warps=4, num_stages=3, options=None, arch=False, archs=None):
    spec = {"fn": fn, "args": args, "constexprs": constexprs, "num_warps": num_warps, "num_stages": num_stages,
            "options": options or {}, "arch": arch}
    if archs is not None:
        spec["archs"] = tuple(archs)
    return spec


# Kernels whose TTIR and TTGIR do not depend on the target (sm_80's text differs from sm_90's
# only in the module's target attribute) are compiled for sm_90 alone: the same text twice
# would only double the fixtures' size.
SM90 = (90,)


def _args(text):
    """'x_ptr:*fp32 n:i32 k:i32-' -> [(name, type, divisible by 16)]: '-' = not divisible."""
    out = []
    for item in text.split():
        name, ty = item.split(":", 1)
        div = not ty.endswith("-")
        out.append((name, ty.rstrip("-"), div if not ty.startswith("tensordesc") else False))
    return out


SPECS = {
    "atomics": _spec(atomics, _args("f_ptr:*fp32 i_ptr:*i32 u_ptr:*u32 h_ptr:*fp16 n:i32"), {"BLOCK": 64},
                     archs=SM90),
    "debug_ops": _spec(debug_ops, _args("x_ptr:*fp32 n:i32"), {"BLOCK": 64}, options={"debug": True}, archs=SM90),
    "math_ops": _spec(math_ops, _args("x_ptr:*fp32 y_ptr:*fp32 n:i32"), {"BLOCK": 64}, archs=SM90),
    "int_ops": _spec(int_ops, _args("a_ptr:*i32 f_ptr:*fp32 n:i32"), {"BLOCK": 64}, archs=SM90),
    "fp_convert": _spec(fp_convert, _args("x_ptr:*fp32 h_ptr:*fp16 b_ptr:*bf16 d_ptr:*fp64 n:i32"),
                        {"BLOCK": 512}, arch=True),  # fp8 casts: 4 elements a thread
    "scan_reduce": _spec(scan_reduce, _args("x_ptr:*fp32 i_ptr:*i32 out_ptr:*fp32 iout_ptr:*i32"),
                         {"R": 8, "C": 32}, archs=SM90),
    "sort_ops": _spec(sort_ops, _args("x_ptr:*fp32 out_ptr:*fp32"), {"R": 2, "C": 2}, archs=SM90),
    "shape_ops": _spec(shape_ops, _args("x_ptr:*fp32 y_ptr:*fp32 out_ptr:*fp32"), {"M": 8, "N": 32}, archs=SM90),
    "dot_ops": _spec(dot_ops, _args("a_ptr:*fp16 b_ptr:*fp16 c_ptr:*fp32"), {"M": 64}, arch=True),
    # pack=4: 4 elements a thread; sm_90: griddepcontrol (3.5+) is sm_90's, the rest is the same on sm_80
    "inline_asm": _spec(inline_asm, _args("x_ptr:*fp32 c_ptr:*u8 out_ptr:*fp32 n:i32"), {"BLOCK": 512},
                        arch=True, archs=SM90),
    "memory_ops": _spec(memory_ops, _args("x_ptr:*fp32 y_ptr:*fp32 b_ptr:*i1 out_ptr:*fp32 n:i32"), {"BLOCK": 64},
                        archs=SM90),
    "control_flow": _spec(control_flow, _args("x_ptr:*fp32 out_ptr:*fp32 n:i32 k:i32-"), {"BLOCK": 64},
                          archs=SM90),
    # a cluster of CTAs is sm_90's (below, releases refuse num_ctas > 1 or crash)
    "cluster_dot": _spec(cluster_dot, _args("a_ptr:*fp16 b_ptr:*fp16 c_ptr:*fp32"), {"M": 64, "N": 64, "K": 32},
                         options={"num_ctas": 2}, archs=SM90),
}
if dot_scaled is not None:
    SPECS["dot_scaled"] = _spec(dot_scaled, _args("a_ptr:*u8 as_ptr:*u8 b_ptr:*u8 bs_ptr:*u8 c_ptr:*fp32"),
                                {"M": 32, "N": 32, "K": 64}, arch=True)
_MM = {"BM": 64, "BN": 64, "BK": 32}
# desc_matmul is sm_90's: 3.0-3.3 lower descriptors for sm_90 only (kernels.py's tensor_desc
# records their refusal on sm_80); 3.4+ rewrite them to pointers for sm_80 in make_ttir
# already (tensor_desc shows it).  Not here: tt.descriptor_gather/scatter, which need sm_100
# (sm_80's TTIR has pointers instead; sm_90's ptxas refuses TMA gather4).
if DESC_MATMUL is not None:
    if DESC_MATMUL.startswith("host tensordesc"):
        SPECS["desc_matmul"] = _spec(desc_matmul, _args("a_desc:tensordesc<fp16[64,32]> b_desc:tensordesc<fp16[32,64]> "
                                                        "c_ptr:*fp32 M:i32 N:i32 K:i32"), _MM, archs=SM90)
    elif DESC_MATMUL.startswith("tl._experimental_make"):
        SPECS["desc_matmul"] = _spec(desc_matmul, _args("a_ptr:*fp16 b_ptr:*fp16 c_ptr:*fp32 M:i32 N:i32 K:i32"), _MM,
                                     archs=SM90)
    else:
        SPECS["desc_matmul"] = _spec(desc_matmul, _args("a_desc:*i8 b_desc:*i8 c_ptr:*fp32 ws_ptr:*i8 M:i32 N:i32 "
                                                        "K:i32"), _MM, archs=SM90)
if warp_specialized is not None:
    SPECS["warp_specialized"] = _spec(warp_specialized, _args("a_desc:tensordesc<fp16[64,32]> "
                                                              "b_desc:tensordesc<fp16[32,64]> c_ptr:*fp32 K:i32"),
                                      _MM, archs=SM90)
