"""The Triton kernels of the per-version fixtures (test/fixtures/versions/), for Triton 2.1-3.9.

Imported by inenv.py inside each version's environment, with a relative file name
(``tools/versions/kernels.py``) so that the locations in the IR do not name the checkout.
Only the language every version shares is used, except ``tensor_desc``, which exists where
the version has tensor descriptors, in that version's spelling.  Keep the line numbers of
existing kernels stable: they are in every fixture's locations.

``SPECS``: per kernel, the arguments (name, type, divisible by 16?) the JIT would have given
for aligned tensors and sizes that are multiples of 16, the constexprs, num_warps and
num_stages.
"""

import triton
import triton.language as tl


@triton.jit
def elementwise(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * y + 1.0, mask=mask)


@triton.jit
def looped_reduction(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    # the same address loaded twice, differing only in the eviction hint (as Inductor does)
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    acc2 = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        a = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0, eviction_policy="evict_last")
        b = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0, eviction_policy="evict_first")
        acc += a
        acc2 += b * b
    tl.store(out_ptr + row, tl.sum(acc, axis=0) + tl.sum(acc2, axis=0))


@triton.jit
def div_chain(a_ptr, b_ptr, c_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    c = tl.load(c_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a / b / c, mask=mask)


@triton.jit
def argmax(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=float("-inf"))
    tl.store(out_ptr + row, tl.argmax(x, axis=0))


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs, mask=offs_k[None, :] + k < K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] + k < K, other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def block_ptr(x_ptr, out_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    x_bp = tl.make_block_ptr(base=x_ptr, shape=(M, N), strides=(stride_m, 1), offsets=(pid * BM, 0),
                             block_shape=(BM, BN), order=(1, 0))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for n in range(0, N, BN):
        acc += tl.load(x_bp, boundary_check=(0, 1), padding_option="zero")
        x_bp = tl.advance(x_bp, (0, BN))
    o_bp = tl.make_block_ptr(base=out_ptr, shape=(M, BN), strides=(BN, 1), offsets=(pid * BM, 0),
                             block_shape=(BM, BN), order=(1, 0))
    tl.store(o_bp, acc, boundary_check=(0, 1))


# tensor descriptors: 3.4+ tl.make_tensor_descriptor; 3.3 its experimental name; 3.0-3.2 only
# loads and stores through a TMA descriptor made on the host (an i8 pointer); before: none
if hasattr(tl, "make_tensor_descriptor"):
    DESC_API = "tl.make_tensor_descriptor"

    @triton.jit
    def tensor_desc(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
        pid = tl.program_id(0)
        xd = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
        od = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
        x = xd.load([pid * BM, 0])
        od.store([pid * BM, 0], x * 2.0)

elif hasattr(tl, "_experimental_make_tensor_descriptor"):
    DESC_API = "tl._experimental_make_tensor_descriptor"

    @triton.jit
    def tensor_desc(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
        pid = tl.program_id(0)
        xd = tl._experimental_make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
        od = tl._experimental_make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
        x = xd.load([pid * BM, 0])
        od.store([pid * BM, 0], x * 2.0)

elif hasattr(tl, "_experimental_descriptor_load"):
    DESC_API = "tl._experimental_descriptor_load/store"

    @triton.jit
    def tensor_desc(x_desc, out_desc, M, N, BM: tl.constexpr, BN: tl.constexpr):
        pid = tl.program_id(0)
        x = tl._experimental_descriptor_load(x_desc, [pid * BM, 0], [BM, BN], tl.float32)
        tl._experimental_descriptor_store(out_desc, x * 2.0, [pid * BM, 0])

else:
    DESC_API = None
    tensor_desc = None


def _spec(fn, args, constexprs, num_warps=4, num_stages=3):
    return {"fn": fn, "args": args, "constexprs": constexprs, "num_warps": num_warps, "num_stages": num_stages}


F32P, F16P = ("*fp32", True), ("*fp16", True)
I32 = ("i32", True)  # sizes and strides: multiples of 16, as the JIT specialises them

SPECS = {
    "elementwise": _spec(elementwise, [("x_ptr",) + F32P, ("y_ptr",) + F32P, ("out_ptr",) + F32P, ("n",) + I32],
                         {"BLOCK": 1024}),
    "looped_reduction": _spec(looped_reduction, [("x_ptr",) + F32P, ("out_ptr",) + F32P, ("n_cols",) + I32],
                              {"BLOCK": 128}),
    "div_chain": _spec(div_chain, [("a_ptr",) + F32P, ("b_ptr",) + F32P, ("c_ptr",) + F32P, ("out_ptr",) + F32P,
                                   ("n",) + I32], {"BLOCK": 1024}),
    "argmax": _spec(argmax, [("x_ptr",) + F32P, ("out_ptr", "*i32", True), ("n_cols",) + I32], {"BLOCK": 256}),
    "matmul": _spec(matmul, [("a_ptr",) + F16P, ("b_ptr",) + F16P, ("c_ptr",) + F16P, ("M",) + I32, ("N",) + I32,
                             ("K",) + I32, ("stride_am",) + I32, ("stride_bk",) + I32, ("stride_cm",) + I32],
                    {"BM": 64, "BN": 64, "BK": 32}, num_stages=3),
    "block_ptr": _spec(block_ptr, [("x_ptr",) + F32P, ("out_ptr",) + F32P, ("M",) + I32, ("N",) + I32,
                                   ("stride_m",) + I32], {"BM": 32, "BN": 64}),
}
if tensor_desc is not None:
    _desc = ("*i8", True) if DESC_API.endswith("load/store") else F32P
    SPECS["tensor_desc"] = _spec(tensor_desc, [("x_ptr" if _desc is F32P else "x_desc",) + _desc,
                                               ("out_ptr" if _desc is F32P else "out_desc",) + _desc,
                                               ("M",) + I32, ("N",) + I32], {"BM": 32, "BN": 64})
