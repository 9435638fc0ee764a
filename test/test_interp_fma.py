"""The interpreter's GPU numerics: a correctly rounded fma (one rounding, also where computing
in f64 and rounding again is wrong), the contraction model (which sums the GPU computes as
fused multiply-adds, checked against the PTX Triton 3.6 generates on this machine), Triton's
reduction order from a layout, and the benchmark's argument model (matrix strides)."""

import math
import re
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from bench.interp_gpu import kernel_args, largest_dim, matrix_stride
from conftest import small
from ttopt.interp import compare, run_kernel
from ttopt.interp import numerics as N
from ttopt.interp.contract import mask_kind
from ttopt.interp.reduce_order import Plan, axis_layout, plan
from ttopt.interp.run import as_program, signature

F32, F16, F64 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.float64)
BF16 = np.dtype(ml_dtypes.bfloat16)


def _u(dt):
    return np.dtype(f"u{dt.itemsize}")


def rn(x: Fraction, dt) -> np.ndarray:
    """The exact rational ``x`` rounded to nearest even in ``dt`` (by brute force)."""
    if x == 0:
        return np.zeros((), dt)  # an exact cancellation rounds to +0
    guess = np.array(float(x)).astype(dt) if dt != BF16 else np.array(float(x), F32).astype(dt)
    g = int(guess.view(_u(dt)))
    cands = []
    for d in range(-4, 5):
        if not 0 <= g + d < 1 << (8 * dt.itemsize):
            continue
        v = np.array(g + d, np.uint64).astype(_u(dt)).view(dt)
        if np.isfinite(np.float64(v)):
            cands.append(v)
    return min(cands, key=lambda v: (abs(Fraction(float(v)) - x), int(np.array(v).view(_u(dt))) & 1))


def same_bits(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and np.array_equal(a.view(_u(a.dtype)), b.view(_u(b.dtype)))


# ------------------------------------------------------------------ one rounding


def test_fma_rounds_once_where_f64_then_f32_rounds_twice():
    # (1 + 2**-12)**2 = 1 + 2**-11 + 2**-24 exactly: an f32 midpoint (ties to even: down).
    # Adding 2**-100 puts the exact sum just above it -> rounds up; in f64 the 2**-100 is lost
    # and the second rounding (to f32) goes down.
    a = np.float32(1 + 2**-12)
    c = np.float32(2**-100)
    naive = (np.float64(a) * np.float64(a) + np.float64(c)).astype(F32)
    assert naive == np.float32(1 + 2**-11)
    assert N.fma(a, a, c, F32) == np.float32(1 + 2**-11 + 2**-23)
    # the same below the midpoint: -2**-100 -> rounds down either way, +0 keeps the tie (even)
    assert N.fma(a, a, -c, F32) == np.float32(1 + 2**-11)
    assert N.fma(a, a, np.float32(0), F32) == np.float32(1 + 2**-11)


def test_round_to_is_one_rounding_for_bf16():
    x = np.float64(1 + 2**-8 + 2**-30)  # just above the bf16 midpoint between 1 and 1 + 2**-7
    assert np.array(x).astype(BF16) == BF16.type(1.0)  # ml_dtypes: through f32, twice
    assert N.round_to(x, BF16) == BF16.type(1 + 2**-7)
    assert N.round_to(np.float64(1 + 2**-8), BF16) == BF16.type(1.0)  # an exact tie: even
    assert N.round_to(np.float64(1 + 2**-11 + 2**-40), F16) == np.float16(1 + 2**-10)


@pytest.mark.parametrize("dt", [F32, F16, BF16, F64], ids=["f32", "f16", "bf16", "f64"])
def test_fma_matches_exact_rational_arithmetic(dt):
    rng = np.random.default_rng(1)
    n = 400
    a = (rng.standard_normal(n) * 8).astype(dt)
    b = (rng.standard_normal(n) * 8).astype(dt)
    c = (-(a.astype(F64) * b.astype(F64)) * (1 + rng.standard_normal(n) * 2.0**-10)).astype(dt)  # cancellation
    c[::4] = (2.0 ** rng.integers(-40, 8, len(c[::4]))).astype(dt)  # far below the product
    got = N.fma(a, b, c, dt)
    for i in range(n):
        exact = Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i]))
        assert same_bits(got[i], rn(exact, dt)), (dt, a[i], b[i], c[i], got[i])


def test_f64_fma_at_the_edges_of_the_range():
    cases = [(2.0**1000, 2.0**20, -(2.0**1020)), (2.0**-600, 2.0**-500, 2.0**-1074), (3.0, 1.0 / 3.0, -1.0),
             (1e300, 1e10, -1e308), (0.0, -1.0, -0.0), (-0.0, 5.0, 0.0), (2.0**-537, 2.0**-537, -(2.0**-1074))]
    for a, b, c in cases:
        got = float(N.fma(np.float64(a), np.float64(b), np.float64(c), F64))
        exact = Fraction(a) * Fraction(b) + Fraction(c)
        if exact == 0:
            assert got == 0.0
            continue
        try:
            want = float(exact)  # correctly rounded
        except OverflowError:
            want = math.inf if exact > 0 else -math.inf
        assert got == want, (a, b, c)
    assert math.copysign(1.0, float(N.fma(np.float64(-0.0), np.float64(5.0), np.float64(-0.0), F64))) < 0
    assert math.copysign(1.0, float(N.fma(np.float64(-0.0), np.float64(5.0), np.float64(0.0), F64))) > 0


MATH_FMA = """module {
  tt.func public @k(%out: !tt.ptr<f32>) {
    %a = arith.constant 1.000244140625 : f32
    %c = arith.constant 7.88860905E-31 : f32
    %r = math.fma %a, %a, %c : f32
    tt.store %out, %r : !tt.ptr<f32>
    tt.return
  }
}
"""


def test_math_fma_op_is_rounded_once():
    assert np.float32(7.88860905e-31) == np.float32(2**-100)
    r = run_kernel(MATH_FMA)
    assert r.read("out", 0, 1)[0] == np.float32(1 + 2**-11 + 2**-23)


# ------------------------------------------------------------------ contraction
# a = b = 1 + 2**-12, c = -(1 + 2**-11): a*b + c is 2**-24 exactly (fused), but a*b rounds to
# 1 + 2**-11 first, so the unfused sum is 0.
A, C = "1.000244140625", "-1.00048828125"

ELEMENTWISE = """module {
  tt.func public @k(%out: !tt.ptr<f32>, %n: i32) {
    %a = arith.constant dense<A> : tensor<4xf32>
    %c = arith.constant dense<C> : tensor<4xf32>
    %sa = arith.constant A : f32
    %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %p = tt.splat %out : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %m = arith.mulf %a, %a : tensor<4xf32>
    BODY
    tt.return
  }
}
"""


def _store(val: str, k: int) -> str:
    return (f"%o{k} = arith.constant dense<{4 * k}> : tensor<4xi32>\n"
            f"    %i{k} = arith.addi %r, %o{k} : tensor<4xi32>\n"
            f"    %q{k} = tt.addptr %p, %i{k} : tensor<4x!tt.ptr<f32>>, tensor<4xi32>\n"
            f"    tt.store %q{k}, {val} : tensor<4x!tt.ptr<f32>>\n    ")


def _kernel(body: str, stores: list[str]) -> str:
    text = body + "\n    " + "".join(_store(v, k) for k, v in enumerate(stores))
    return ELEMENTWISE.replace("BODY", text).replace("A", A).replace("C", C)


def _results(text: str, contract: bool, n: int):
    r = run_kernel(text, fp_contract=contract, args={"n": 3})
    return r.read("out", 0, 4 * n).reshape(n, 4)[:, 0]


FUSED = np.float32(2**-24)
CASES = {
    # name: (body, stored values, expected with fp_contract: True = fused, False = not)
    "mul_add": ("%x = arith.addf %m, %c : tensor<4xf32>", ["%x"], [True]),
    "add_mul": ("%x = arith.addf %c, %m : tensor<4xf32>", ["%x"], [True]),
    "mul_sub": ("%nc = arith.negf %c : tensor<4xf32>\n    %x = arith.subf %m, %nc : tensor<4xf32>", ["%x"], [True]),
    "sub_mul": ("%nm = arith.negf %a : tensor<4xf32>\n    %m2 = arith.mulf %nm, %a : tensor<4xf32>\n"
                "    %x = arith.subf %c, %m2 : tensor<4xf32>", ["%x"], [True]),
    "splat": ("%ms = arith.mulf %sa, %sa : f32\n    %mt = tt.splat %ms : f32 -> tensor<4xf32>\n"
              "    %x = arith.addf %mt, %c : tensor<4xf32>", ["%x"], [True]),
    "select_between": ("%t = arith.constant dense<true> : tensor<4xi1>\n"
                       "    %z = arith.constant dense<0.0> : tensor<4xf32>\n"
                       "    %s = arith.select %t, %m, %z : tensor<4xi1>, tensor<4xf32>\n"
                       "    %x = arith.addf %s, %c : tensor<4xf32>", ["%x"], [False]),
    "other_uses_too": ("%x = arith.addf %m, %c : tensor<4xf32>\n    %y = arith.addf %c, %m : tensor<4xf32>",
                       ["%x", "%y", "%m"], [True, True, None]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_contraction_changes_exactly_the_fused_sums(name):
    body, stores, fused = CASES[name]
    text = _kernel(body, stores)
    on, off = _results(text, True, len(stores)), _results(text, False, len(stores))
    for k, f in enumerate(fused):
        if f is None:
            assert on[k] == off[k]
            continue
        assert off[k] == 0.0 or stores[k] == "%m"
        assert on[k] == (FUSED if f else 0.0), (name, k, on[k])


LOOPS = """module {
  tt.func public @k(%out: !tt.ptr<f32>, %pa: !tt.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %a = arith.constant A : f32
    %c = arith.constant C : f32
    %z = arith.constant 0.0 : f32
    %la = tt.load %pa : !tt.ptr<f32>
    BODY
    tt.return
  }
}
"""


def test_contraction_follows_llvm_blocks():
    # the same sum, once per block structure; only the first and the last are fused
    body = """%m0 = arith.mulf %a, %a : f32
    %x0 = arith.addf %m0, %c : f32
    tt.store %out, %x0 : !tt.ptr<f32>
    %x1 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) : i32 {
      %t0 = arith.addf %acc, %c : f32
      %t = arith.addf %m0, %t0 : f32
      scf.yield %t : f32
    }
    %o1 = tt.addptr %out, %c1 : !tt.ptr<f32>, i32
    tt.store %o1, %x1 : !tt.ptr<f32>
    %x2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) : i32 {
      %m2 = arith.mulf %a, %a : f32
      %t2 = arith.addf %acc, %m2 : f32
      %t3 = arith.addf %t2, %c : f32
      scf.yield %t3 : f32
    }
    %c2 = arith.constant 2 : i32
    %o2 = tt.addptr %out, %c2 : !tt.ptr<f32>, i32
    tt.store %o2, %x2 : !tt.ptr<f32>
    %m4 = arith.mulf %a, %a : f32
    %cnd = arith.cmpi sgt, %n, %c0 : i32
    %x4 = scf.if %cnd -> (f32) {
      %t4 = arith.addf %m4, %c : f32
      scf.yield %t4 : f32
    } else {
      scf.yield %z : f32
    }
    %c3 = arith.constant 3 : i32
    %o3 = tt.addptr %out, %c3 : !tt.ptr<f32>, i32
    tt.store %o3, %x4 : !tt.ptr<f32>"""
    text = LOOPS.replace("BODY", body).replace("A", A).replace("C", C)
    prog = as_program(text, fp_contract=True)
    fused = {op.results[0].name_hint for op in prog.contraction.fused}
    # x0: one block; t: the product is outside the loop; t2: the product has invariant operands,
    # LICM hoists it out of the loop; t4: the product is used only in the if, and sunk into it
    # (a sum of invariant values in the loop would be hoisted with its product, and fused)
    assert fused == {"x0", "t4"}, fused
    r = run_kernel(prog, args={"n": 1})
    assert list(r.read("out", 0, 4)) == [FUSED, 0.0, 0.0, FUSED]


def test_both_products_the_left_one_or_the_one_with_fewer_uses():
    text = _kernel("%m2 = arith.mulf %a, %a : tensor<4xf32>\n"
                   "    %nc = arith.negf %m2 : tensor<4xf32>\n"
                   "    %x = arith.addf %m, %nc : tensor<4xf32>", ["%x", "%m2"])
    prog = as_program(text, fp_contract=True)
    (f,) = prog.contraction.fused.values()
    assert f.prod.mul.results[0].name_hint == "m"  # a tie: the left one (m2 is also stored)
    # m is used twice: the later sum (visited first) fuses it, then the tie goes left again
    text = _kernel("%m2 = arith.mulf %c, %c : tensor<4xf32>\n"
                   "    %x = arith.addf %m, %m2 : tensor<4xf32>\n"
                   "    %y = arith.addf %m, %c : tensor<4xf32>", ["%x", "%y"])
    got = {op.results[0].name_hint: f.prod.mul.results[0].name_hint
           for op, f in as_program(text, fp_contract=True).contraction.fused.items()}
    assert got == {"x": "m", "y": "m"}
    text = _kernel("%m2 = arith.mulf %c, %c : tensor<4xf32>\n"
                   "    %y = arith.addf %m, %c : tensor<4xf32>\n"
                   "    %x = arith.addf %m, %m2 : tensor<4xf32>", ["%x", "%y"])
    got = {op.results[0].name_hint: f.prod.mul.results[0].name_hint
           for op, f in as_program(text, fp_contract=True).contraction.fused.items()}
    assert got == {"x": "m2", "y": "m"}  # x first: m has two uses, m2 one


def test_compare_uses_one_model_on_both_sides():
    text = _kernel("%x = arith.addf %m, %c : tensor<4xf32>", ["%x"])
    assert compare(text, text, fp_contract=True, num_programs=(1, 1, 1)).ok
    # moving the product into a loop changes what the GPU computes: seen with contraction on
    moved = LOOPS.replace("BODY", """%m = arith.mulf %la, %a : f32
    %x = arith.addf %m, %c : f32
    tt.store %out, %x : !tt.ptr<f32>""")
    loop = LOOPS.replace("BODY", """%m = arith.mulf %la, %a : f32
    %x = scf.for %i = %c0 to %c1 step %c1 iter_args(%acc = %c) -> (f32) : i32 {
      %t = arith.addf %m, %acc : f32
      scf.yield %t : f32
    }
    tt.store %out, %x : !tt.ptr<f32>""")
    moved, loop = (t.replace("A", A).replace("C", C) for t in (moved, loop))
    assert compare(moved, loop, num_programs=(1, 1, 1)).ok
    res = compare(moved, loop, num_programs=(1, 1, 1), fp_contract=True, seeds=range(20))
    assert not res.ok and res.mismatch.arg == "out"


# ------------------------------------------------------------------ against Triton's PTX
PROBE_HDR = """#blocked = #ttg.blocked<{sizePerThread = [SPT], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%pa: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %pb: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %pc: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %po: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) attributes {noinline = false} {
    %r = tt.make_range {end = N : i32, start = 0 : i32} : tensor<Nxi32, #blocked>
    %ns = tt.splat %n : i32 -> tensor<Nxi32, #blocked>
    %mask = arith.cmpi slt, %r, %ns : tensor<Nxi32, #blocked>
    %z = arith.constant dense<0.0> : tensor<NxT>
"""
PROBE_LOADS = "".join(f"""    %{x}s = tt.splat %p{x} : !tt.ptr<f32> -> tensor<Nx!tt.ptr<f32>, #blocked>
    %{x}p = tt.addptr %{x}s, %r : tensor<Nx!tt.ptr<f32>, #blocked>, tensor<Nxi32, #blocked>
    %{x} = tt.load %{x}p : tensor<Nx!tt.ptr<f32>, #blocked>
""" for x in "abc")
PROBE_STORE = """    %os = tt.splat %po : !tt.ptr<f32> -> tensor<Nx!tt.ptr<f32>, #blocked>
    %op = tt.addptr %os, %r : tensor<Nx!tt.ptr<f32>, #blocked>, tensor<Nxi32, #blocked>
    tt.store %op, %x : tensor<Nx!tt.ptr<f32>, #blocked>
    tt.return
  }
}
"""
PROBE_RED = """    %s = "tt.reduce"(%v) <{axis = 0 : i32}> ({
    ^bb0(%l: f32, %rr: f32):
      %t = arith.addf %l, %rr : f32
      tt.reduce.return %t : f32
    }) : (tensor<NxT>) -> f32
    tt.store %po, %s : !tt.ptr<f32>
    tt.return
  }
}
"""
PROBES = {
    # name: (body, reduce?, expected fma.rn in the PTX per thread, sizePerThread)
    "mul_add": ("%m = arith.mulf %a, %b : tensor<NxT>\n    %x = arith.addf %m, %c : tensor<NxT>", False, 1, 1),
    "sub_mul": ("%m = arith.mulf %a, %b : tensor<NxT>\n    %x = arith.subf %c, %m : tensor<NxT>", False, 1, 1),
    "two_uses": ("%m = arith.mulf %a, %b : tensor<NxT>\n    %y = arith.addf %m, %c : tensor<NxT>\n"
                 "    %x = arith.addf %m, %y : tensor<NxT>", False, 2, 1),
    "select": ("%m = arith.mulf %a, %b : tensor<NxT>\n"
               "    %q = arith.select %mask, %m, %z : tensor<Nxi1, #blocked>, tensor<NxT>\n"
               "    %x = arith.addf %q, %c : tensor<NxT>", False, 0, 1),
    "in_loop_invariant": ("%c0 = arith.constant 0 : i32\n    %c1 = arith.constant 1 : i32\n"
                          "    %x = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<NxT>) : i32 {\n"
                          "      %m = arith.mulf %a, %b : tensor<NxT>\n      %t = arith.addf %acc, %m : tensor<NxT>\n"
                          "      scf.yield %t : tensor<NxT>\n    }", False, 0, 1),
    "reduce_products": ("%v = arith.mulf %a, %b : tensor<NxT>", True, 3, 4),
    "reduce_select_varying": ("%m = arith.mulf %a, %b : tensor<NxT>\n"
                              "    %v = arith.select %mask, %m, %z : tensor<Nxi1, #blocked>, tensor<NxT>", True, 0, 4),
    "reduce_select_uniform": ("%m = arith.mulf %a, %b : tensor<NxT>\n    %c0i = arith.constant 0 : i32\n    %t1 = arith.cmpi sgt, %n, %c0i : i32\n"
                              "    %u = tt.splat %t1 : i1 -> tensor<Nxi1, #blocked>\n"
                              "    %v = arith.select %u, %m, %z : tensor<Nxi1, #blocked>, tensor<NxT>", True, 3, 4),
}


def _probe(name: str) -> str:
    body, red, _, spt = PROBES[name]
    text = PROBE_HDR + PROBE_LOADS + "    " + body + "\n" + (PROBE_RED if red else PROBE_STORE)
    return text.replace("NxT", "Nxf32, #blocked").replace("SPT", str(spt)).replace("Nx", f"{32 * spt}x") \
        .replace("end = N ", f"end = {32 * spt} ")


@pytest.mark.parametrize("name", list(PROBES))
def test_model_predicts_the_fmas_in_tritons_ptx(name, tmp_path, monkeypatch):
    """Triton 3.6 compiles the probe for sm_90 (on the CPU): its PTX has as many fma.rn per
    thread as the model fuses."""
    pytest.importorskip("triton")
    import triton
    from triton.backends.compiler import GPUTarget

    from bench.interp_gpu import ptx_check

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / f"{name}.ttgir"
    path.write_text(_probe(name))
    expected = PROBES[name][2]
    k = triton.compile(str(path), target=GPUTarget("cuda", 90, 32))
    assert len(re.findall(r"^\s*fma\.rn\.f32\s", k.asm["ptx"], re.M)) == expected
    row = ptx_check(str(path))
    assert row["model"] == expected and row["ptx"] == expected


# ------------------------------------------------------------------ reduction order


def test_reduce_plan_from_layouts():
    assert axis_layout("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], "
                       "order = [1, 0]}>", 1) == (8, 8, 1)
    sl = "#ttg.slice<{dim = 0, parent = #blocked1}>"
    aliases = {"#blocked1": "#ttg.blocked<{sizePerThread = [2, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], "
                            "order = [1, 0]}>"}
    assert axis_layout(sl, 0, aliases) == (4, 16, 1)
    assert axis_layout(sl, 0) is None  # the alias unknown: no plan (the pairwise tree)
    assert axis_layout("#ttg.nvidia_mma<{versionMajor = 3}>", 0) is None
    prog = as_program(REDUCE_512)
    red = next(op for op in prog.module.walk() if op.name == "tt.reduce")
    assert plan(red.operands[0].type, 0) == Plan(R=2, W=4, T=32, S=2)


REDUCE_512 = """#blocked = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%pa: !tt.ptr<f32>, %po: !tt.ptr<f32>) {
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %s = tt.splat %pa : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %p = tt.addptr %s, %r : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %x = tt.load %p : tensor<512x!tt.ptr<f32>, #blocked>
    %sum = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%l: f32, %rr: f32):
      %t = arith.addf %l, %rr : f32
      tt.reduce.return %t : f32
    }) : (tensor<512xf32, #blocked>) -> f32
    tt.store %po, %sum : !tt.ptr<f32>
    tt.return
  }
}
"""


def _tree(v):
    while len(v) > 1:
        h = len(v) // 2
        v = (v[:h] + v[h:]).astype(F32)
    return v[0]


def test_gpu_reduce_order_is_tritons():
    # x = s + 2*(t + 32*(w + 4*r)): each thread folds its 4 elements in x order (r, then s),
    # then lanes (t) and warps (w) in butterflies
    found = False
    for seed in range(20):
        gpu = run_kernel(REDUCE_512, seed=seed, reduce_order="gpu")
        x = gpu.initial("pa", 0, 512)
        v = x.reshape(2, 4, 32, 2)  # (r, w, t, s)
        acc = v[0, :, :, 0]
        for r, s in [(0, 1), (1, 0), (1, 1)]:
            acc = (acc + v[r, :, :, s]).astype(F32)
        want = _tree(_tree_rows(acc))
        assert gpu.read("po", 0, 1)[0] == want
        tree = run_kernel(REDUCE_512, seed=seed).read("po", 0, 1)[0]
        assert tree == _tree(x)
        found |= bool(tree != want)
    assert found, "the two orders never differed"


def _tree_rows(acc):
    """Butterfly over lanes (the last axis) for each warp: (W, T) -> (W,)."""
    while acc.shape[-1] > 1:
        h = acc.shape[-1] // 2
        acc = (acc[:, :h] + acc[:, h:]).astype(F32)
    return acc[:, 0]


def test_gpu_order_reduction_of_products_is_fused_in_each_thread():
    text = REDUCE_512.replace("%x = tt.load %p : tensor<512x!tt.ptr<f32>, #blocked>",
                              "%x0 = tt.load %p : tensor<512x!tt.ptr<f32>, #blocked>\n"
                              "    %x = arith.mulf %x0, %x0 : tensor<512xf32, #blocked>")
    differ = False
    for seed in range(10):
        r = run_kernel(text, seed=seed, reduce_order="gpu", fp_contract=True)
        x = r.initial("pa", 0, 512).reshape(2, 4, 32, 2)
        p = x.astype(F64) ** 2
        acc = N.fma(x[0, :, :, 0], x[0, :, :, 0], (x[0, :, :, 1] * x[0, :, :, 1]).astype(F32), F32)
        for rr, s in [(1, 0), (1, 1)]:
            acc = N.fma(x[rr, :, :, s], x[rr, :, :, s], acc, F32)
        assert r.read("po", 0, 1)[0] == _tree(_tree_rows(acc))
        plain = run_kernel(text, seed=seed, reduce_order="gpu").read("po", 0, 1)[0]
        differ |= bool(plain != r.read("po", 0, 1)[0])
        assert abs(float(plain) - float(p.sum())) < 1e-3
    assert differ


def test_mask_kinds():
    prog = as_program(_probe("reduce_select_uniform"))
    sel = next(op for op in prog.module.walk() if op.name == "arith.select")
    assert mask_kind(sel.operands[0], 0) == "uniform"
    prog = as_program(_probe("reduce_select_varying"))
    sel = next(op for op in prog.module.walk() if op.name == "arith.select")
    assert mask_kind(sel.operands[0], 0) == "opaque"  # an index against a runtime bound


# ------------------------------------------------------------------ the benchmark's arguments


def test_matrix_strides_are_named_consistently():
    assert [matrix_stride(n, 64) for n in ("stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm",
                                            "stride_cn", "sam", "sak", "sbk", "sbn", "scm", "scn")] == \
        [64, 1, 64, 1, 64, 1, 64, 1, 64, 1, 64, 1]
    assert matrix_stride("xnumel", 64) is None and matrix_stride("s", 64) is None
    assert matrix_stride("seed", 64) is None and matrix_stride("stride", 64) is None


@pytest.mark.parametrize("name", ["matmul", "probe_mmp90"])
def test_matmul_arguments_make_every_store_distinct(name):
    path = small(f"{name}.ttgir")
    prog = as_program(path.read_text(), str(path))
    _, _, sig = signature(prog, None)
    assert largest_dim(prog) == 128
    given = kernel_args(sig, 64, tile=largest_dim(prog))
    assert set(given.values()) == {128}  # M = N = K = 128, row strides 128 (the unit ones are implicit)
    r = run_kernel(prog, args=given)
    assert r.overlay["c_ptr"].nbytes == 128 * 128 * 2  # every element of C once
    # the old model (sizes 64, strides drawn): lanes of the unmasked 128 x 128 store collide
    old = run_kernel(prog, args={k: v for k, v in kernel_args(sig, 64).items() if matrix_stride(k, 1) is None})
    assert old.overlay["c_ptr"].nbytes < 128 * 128 * 2


def test_ttopt_run_numeric_model_flags(tmp_path):
    from click.testing import CliRunner

    from ttopt.interp.cli import main as cli_main

    k = tmp_path / "k.ttir"
    k.write_text(_kernel("%x = arith.addf %m, %c : tensor<4xf32>", ["%x"]))
    runner = CliRunner()
    plain = runner.invoke(cli_main, [str(k), "--arg", "n=1", "--show", "out"])
    fused = runner.invoke(cli_main, [str(k), "--arg", "n=1", "--show", "out", "--fp-contract"])
    both = runner.invoke(cli_main, [str(k), "--arg", "n=1", "--show", "out", "--gpu-numerics"])
    assert plain.exit_code == fused.exit_code == both.exit_code == 0, (plain.output, fused.output)
    assert "out[0, 1, 2, 3] = [0. 0. 0. 0.]" in plain.output
    assert "5.9604645e-08" in fused.output and "fp-contract=on reduce-order=tree" in fused.output
    assert "fp-contract=on reduce-order=gpu" in both.output
    same = runner.invoke(cli_main, ["--compare", str(k), str(k), "--gpu-numerics", "--num-programs", "1,1,1"])
    assert same.exit_code == 0 and same.output.startswith("equal")
    bad = runner.invoke(cli_main, [str(k), "--reduce-order", "warp"])
    assert bad.exit_code == 2
