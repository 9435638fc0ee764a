"""The CPU interpreter of Triton IR (ttopt.interp): semantics on hand-written kernels with known
results, every fixture kernel, comparisons before/after ttopt's passes, a planted bug."""

import math

import ml_dtypes
import numpy as np
import pytest
from click.testing import CliRunner

import ttopt
from conftest import corpus_id, file_params, fixture_files, small
from ttopt.interp import InitModel, InterpError, compare, run_kernel
from ttopt.interp.cli import main as cli_main

# ------------------------------------------------------------------ kernels

VECTOR_ADD = """module {
  tt.func public @add(%a: !tt.ptr<f32>, %b: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32) {
    %c64 = arith.constant 64 : i32
    %pid = tt.get_program_id x : i32
    %base = arith.muli %pid, %c64 : i32
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %bs = tt.splat %base : i32 -> tensor<64xi32>
    %offs = arith.addi %bs, %r : tensor<64xi32>
    %ns = tt.splat %n : i32 -> tensor<64xi32>
    %m = arith.cmpi slt, %offs, %ns : tensor<64xi32>
    %ap = tt.splat %a : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %ap2 = tt.addptr %ap, %offs : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %bp = tt.splat %b : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %bp2 = tt.addptr %bp, %offs : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %x = tt.load %ap2, %m : tensor<64x!tt.ptr<f32>>
    %y = tt.load %bp2, %m : tensor<64x!tt.ptr<f32>>
    %s = arith.addf %x, %y : tensor<64xf32>
    %op = tt.splat %out : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %op2 = tt.addptr %op, %offs : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    tt.store %op2, %s, %m : tensor<64x!tt.ptr<f32>>
    tt.return
  }
}
"""

REDUCE_SUM = """module {
  tt.func public @rsum(%a: !tt.ptr<f32>, %out: !tt.ptr<f32>) {
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %ap = tt.splat %a : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %ap2 = tt.addptr %ap, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %x = tt.load %ap2 : tensor<128x!tt.ptr<f32>>
    %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%l: f32, %rr: f32):
      %t = arith.addf %l, %rr : f32
      tt.reduce.return %t : f32
    }) : (tensor<128xf32>) -> f32
    %mx = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%l2: f32, %r2: f32):
      %t2 = arith.maxnumf %l2, %r2 : f32
      tt.reduce.return %t2 : f32
    }) : (tensor<128xf32>) -> f32
    tt.store %out, %s : !tt.ptr<f32>
    %c1 = arith.constant 1 : i32
    %o1 = tt.addptr %out, %c1 : !tt.ptr<f32>, i32
    tt.store %o1, %mx : !tt.ptr<f32>
    tt.return
  }
}
"""

MASKED_OTHER = """module {
  tt.func public @masked(%a: !tt.ptr<f32>, %out: !tt.ptr<f32>) {
    %c10 = arith.constant dense<10> : tensor<32xi32>
    %other = arith.constant dense<-7.500000e+00> : tensor<32xf32>
    %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %m = arith.cmpi slt, %r, %c10 : tensor<32xi32>
    %ap = tt.splat %a : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>>
    %ap2 = tt.addptr %ap, %r : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
    %x = tt.load %ap2, %m, %other : tensor<32x!tt.ptr<f32>>
    %op = tt.splat %out : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>>
    %op2 = tt.addptr %op, %r : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
    tt.store %op2, %x : tensor<32x!tt.ptr<f32>>
    %notm = arith.cmpi sge, %r, %c10 : tensor<32xi32>
    %big = arith.constant dense<1000> : tensor<32xi32>
    %op3 = tt.addptr %op2, %big : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
    tt.store %op3, %x, %m : tensor<32x!tt.ptr<f32>>
    tt.return
  }
}
"""

FOR_ACC = """module {
  tt.func public @acc(%a: !tt.ptr<f32>, %out: !tt.ptr<f32>, %k: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c16 = arith.constant 16 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<16xf32>
    %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %ap = tt.splat %a : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %res:2 = scf.for %i = %c0 to %k step %c1 iter_args(%s = %zero, %cnt = %c0) -> (tensor<16xf32>, i32) : i32 {
      %row = arith.muli %i, %c16 : i32
      %rows = tt.splat %row : i32 -> tensor<16xi32>
      %idx = arith.addi %rows, %r : tensor<16xi32>
      %p = tt.addptr %ap, %idx : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
      %x = tt.load %p : tensor<16x!tt.ptr<f32>>
      %s2 = arith.addf %s, %x : tensor<16xf32>
      %cnt2 = arith.addi %cnt, %c1 : i32
      scf.yield %s2, %cnt2 : tensor<16xf32>, i32
    }
    %op = tt.splat %out : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %op2 = tt.addptr %op, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    tt.store %op2, %res#0 : tensor<16x!tt.ptr<f32>>
    %c16p = tt.addptr %out, %c16 : !tt.ptr<f32>, i32
    %cntf = arith.sitofp %res#1 : i32 to f32
    tt.store %c16p, %cntf : !tt.ptr<f32>
    tt.return
  }
}
"""

INT_WRAP = """module {
  tt.func public @ints(%o8: !tt.ptr<i8>, %o32: !tt.ptr<i32>) {
    %a8 = arith.constant 100 : i8
    %s8 = arith.addi %a8, %a8 : i8
    tt.store %o8, %s8 : !tt.ptr<i8>
    %m8 = arith.muli %a8, %a8 : i8
    %c1 = arith.constant 1 : i32
    %p1 = tt.addptr %o8, %c1 : !tt.ptr<i8>, i32
    tt.store %p1, %m8 : !tt.ptr<i8>
    %big = arith.constant 2147483647 : i32
    %ov = arith.addi %big, %c1 : i32
    tt.store %o32, %ov : !tt.ptr<i32>
    %m7 = arith.constant -7 : i32
    %c2 = arith.constant 2 : i32
    %q = arith.divsi %m7, %c2 : i32
    %q1 = tt.addptr %o32, %c1 : !tt.ptr<i32>, i32
    tt.store %q1, %q : !tt.ptr<i32>
    %rm = arith.remsi %m7, %c2 : i32
    %q2 = tt.addptr %o32, %c2 : !tt.ptr<i32>, i32
    tt.store %q2, %rm : !tt.ptr<i32>
    %sh = arith.shrsi %m7, %c1 : i32
    %c3 = arith.constant 3 : i32
    %q3 = tt.addptr %o32, %c3 : !tt.ptr<i32>, i32
    tt.store %q3, %sh : !tt.ptr<i32>
    %shu = arith.shrui %m7, %c1 : i32
    %c4 = arith.constant 4 : i32
    %q4 = tt.addptr %o32, %c4 : !tt.ptr<i32>, i32
    tt.store %q4, %shu : !tt.ptr<i32>
    %x8 = arith.trunci %m7 : i32 to i8
    %xu = arith.extui %x8 : i8 to i32
    %c5 = arith.constant 5 : i32
    %q5 = tt.addptr %o32, %c5 : !tt.ptr<i32>, i32
    tt.store %q5, %xu : !tt.ptr<i32>
    %xs = arith.extsi %x8 : i8 to i32
    %c6 = arith.constant 6 : i32
    %q6 = tt.addptr %o32, %c6 : !tt.ptr<i32>, i32
    tt.store %q6, %xs : !tt.ptr<i32>
    %min = arith.constant -2147483648 : i32
    %mneg = arith.constant -1 : i32
    %dm = arith.divsi %min, %mneg : i32
    %c7 = arith.constant 7 : i32
    %q7 = tt.addptr %o32, %c7 : !tt.ptr<i32>, i32
    tt.store %q7, %dm : !tt.ptr<i32>
    %uc = arith.cmpi ult, %m7, %c2 : i32
    %ucx = arith.extui %uc : i1 to i32
    %c8 = arith.constant 8 : i32
    %q8 = tt.addptr %o32, %c8 : !tt.ptr<i32>, i32
    tt.store %q8, %ucx : !tt.ptr<i32>
    %hi = tt.mulhiui %mneg, %mneg : i32
    %c9 = arith.constant 9 : i32
    %q9 = tt.addptr %o32, %c9 : !tt.ptr<i32>, i32
    tt.store %q9, %hi : !tt.ptr<i32>
    tt.return
  }
}
"""

NAN_MAX = """module {
  tt.func public @nans(%out: !tt.ptr<f32>) {
    %nan = arith.constant 0x7FC00000 : f32
    %one = arith.constant 1.000000e+00 : f32
    %pz = arith.constant 0.000000e+00 : f32
    %nz = arith.constant -0.000000e+00 : f32
    %a = arith.maxnumf %nan, %one : f32
    %b = arith.maximumf %nan, %one : f32
    %c = arith.minnumf %one, %nan : f32
    %d = arith.minimumf %one, %nan : f32
    %e = arith.minimumf %pz, %nz : f32
    %f = arith.maximumf %nz, %pz : f32
    %ne = arith.cmpf une, %nan, %nan : f32
    %oe = arith.cmpf oeq, %nan, %nan : f32
    %nef = arith.uitofp %ne : i1 to f32
    %oef = arith.uitofp %oe : i1 to f32
    tt.store %out, %a : !tt.ptr<f32>
    %c1 = arith.constant 1 : i32
    %p1 = tt.addptr %out, %c1 : !tt.ptr<f32>, i32
    tt.store %p1, %b : !tt.ptr<f32>
    %p2 = tt.addptr %p1, %c1 : !tt.ptr<f32>, i32
    tt.store %p2, %c : !tt.ptr<f32>
    %p3 = tt.addptr %p2, %c1 : !tt.ptr<f32>, i32
    tt.store %p3, %d : !tt.ptr<f32>
    %p4 = tt.addptr %p3, %c1 : !tt.ptr<f32>, i32
    tt.store %p4, %e : !tt.ptr<f32>
    %p5 = tt.addptr %p4, %c1 : !tt.ptr<f32>, i32
    tt.store %p5, %f : !tt.ptr<f32>
    %p6 = tt.addptr %p5, %c1 : !tt.ptr<f32>, i32
    tt.store %p6, %nef : !tt.ptr<f32>
    %p7 = tt.addptr %p6, %c1 : !tt.ptr<f32>, i32
    tt.store %p7, %oef : !tt.ptr<f32>
    tt.return
  }
}
"""

BF16 = """module {
  tt.func public @bf(%a: !tt.ptr<bf16>, %b: !tt.ptr<f32>, %out: !tt.ptr<bf16>, %out2: !tt.ptr<bf16>) {
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %ap = tt.splat %a : !tt.ptr<bf16> -> tensor<64x!tt.ptr<bf16>>
    %ap2 = tt.addptr %ap, %r : tensor<64x!tt.ptr<bf16>>, tensor<64xi32>
    %x = tt.load %ap2 : tensor<64x!tt.ptr<bf16>>
    %y = arith.mulf %x, %x : tensor<64xbf16>
    %z = arith.addf %y, %x : tensor<64xbf16>
    %op = tt.splat %out : !tt.ptr<bf16> -> tensor<64x!tt.ptr<bf16>>
    %op2 = tt.addptr %op, %r : tensor<64x!tt.ptr<bf16>>, tensor<64xi32>
    tt.store %op2, %z : tensor<64x!tt.ptr<bf16>>
    %bp = tt.splat %b : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %bp2 = tt.addptr %bp, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %w = tt.load %bp2 : tensor<64x!tt.ptr<f32>>
    %wt = arith.truncf %w : tensor<64xf32> to tensor<64xbf16>
    %o2 = tt.splat %out2 : !tt.ptr<bf16> -> tensor<64x!tt.ptr<bf16>>
    %o22 = tt.addptr %o2, %r : tensor<64x!tt.ptr<bf16>>, tensor<64xi32>
    tt.store %o22, %wt : tensor<64x!tt.ptr<bf16>>
    tt.return
  }
}
"""

# two loads of one address with a store to it between them
LOAD_STORE_LOAD = """module {
  tt.func public @lsl(%p: !tt.ptr<f32>, %out: !tt.ptr<f32>) {
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %two = arith.constant dense<2.000000e+00> : tensor<64xf32>
    %pp = tt.splat %p : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %pp2 = tt.addptr %pp, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %x = tt.load %pp2 : tensor<64x!tt.ptr<f32>>
    %x2 = arith.mulf %x, %two : tensor<64xf32>
    tt.store %pp2, %x2 : tensor<64x!tt.ptr<f32>>
    %y = tt.load %pp2 : tensor<64x!tt.ptr<f32>>
    %s = arith.addf %x, %y : tensor<64xf32>
    %op = tt.splat %out : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %op2 = tt.addptr %op, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    tt.store %op2, %s : tensor<64x!tt.ptr<f32>> loc("lsl.py":12:4)
    tt.return
  }
}
"""

DIV3 = """module {
  tt.func public @div3(%a: !tt.ptr<f32>, %b: !tt.ptr<f32>, %c: !tt.ptr<f32>, %out: !tt.ptr<f32>) {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %ap = tt.splat %a : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %ap2 = tt.addptr %ap, %r : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %bp = tt.splat %b : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %bp2 = tt.addptr %bp, %r : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %cp = tt.splat %c : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %cp2 = tt.addptr %cp, %r : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %x = tt.load %ap2 : tensor<1024x!tt.ptr<f32>>
    %y = tt.load %bp2 : tensor<1024x!tt.ptr<f32>>
    %z = tt.load %cp2 : tensor<1024x!tt.ptr<f32>>
    %d1 = arith.divf %x, %y : tensor<1024xf32>
    %d2 = arith.divf %d1, %z : tensor<1024xf32>
    %op = tt.splat %out : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %op2 = tt.addptr %op, %r : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    tt.store %op2, %d2 : tensor<1024x!tt.ptr<f32>>
    tt.return
  }
}
"""

SCAN_ATOMIC = """module {
  tt.func public @scanat(%a: !tt.ptr<i32>, %out: !tt.ptr<i32>, %cnt: !tt.ptr<i32>) {
    %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %ap = tt.splat %a : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
    %ap2 = tt.addptr %ap, %r : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
    %x = tt.load %ap2 : tensor<16x!tt.ptr<i32>>
    %fw = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%l: i32, %rr: i32):
      %t = arith.addi %l, %rr : i32
      tt.scan.return %t : i32
    }) : (tensor<16xi32>) -> tensor<16xi32>
    %bw = "tt.scan"(%x) <{axis = 0 : i32, reverse = true}> ({
    ^bb0(%l2: i32, %r2: i32):
      %t2 = arith.addi %l2, %r2 : i32
      tt.scan.return %t2 : i32
    }) : (tensor<16xi32>) -> tensor<16xi32>
    %op = tt.splat %out : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
    %op2 = tt.addptr %op, %r : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
    tt.store %op2, %fw : tensor<16x!tt.ptr<i32>>
    %c16 = arith.constant dense<16> : tensor<16xi32>
    %op3 = tt.addptr %op2, %c16 : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
    tt.store %op3, %bw : tensor<16x!tt.ptr<i32>>
    %cp = tt.splat %cnt : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
    %ones = arith.constant dense<1> : tensor<16xi32>
    %mask = arith.constant dense<true> : tensor<16xi1>
    %old = tt.atomic_rmw add, relaxed, gpu, %cp, %ones, %mask : (tensor<16x!tt.ptr<i32>>, tensor<16xi32>, tensor<16xi1>) -> tensor<16xi32>
    %c1 = arith.constant 1 : i32
    %cp1 = tt.addptr %cnt, %c1 : !tt.ptr<i32>, i32
    %opold = tt.addptr %op3, %c16 : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
    tt.store %opold, %old : tensor<16x!tt.ptr<i32>>
    tt.return
  }
}
"""

BLOCKPTR = """module {
  tt.func public @bp(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %d: !tt.ptr<f32>, %o2: !tt.ptr<f32>) {
    %c10 = arith.constant 10 : i64
    %c8 = arith.constant 8 : i64
    %c1 = arith.constant 1 : i64
    %c4 = arith.constant 4 : i32
    %c0 = arith.constant 0 : i32
    %c2 = arith.constant 2 : i32
    %p = tt.make_tensor_ptr %x, [%c10, %c8], [%c8, %c1], [%c4, %c0] {order = array<i32: 1, 0>} : <tensor<8x8xf32>>
    %v = tt.load %p {boundaryCheck = array<i32: 0>, padding = 1 : i32} : !tt.ptr<tensor<8x8xf32>>
    %q = tt.make_tensor_ptr %out, [%c10, %c8], [%c8, %c1], [%c0, %c0] {order = array<i32: 1, 0>} : <tensor<8x8xf32>>
    %q2 = tt.advance %q, [%c4, %c0] : <tensor<8x8xf32>>
    tt.store %q2, %v {boundaryCheck = array<i32: 0>} : !tt.ptr<tensor<8x8xf32>>
    %c10i = arith.constant 10 : i32
    %c8i = arith.constant 8 : i32
    %desc = tt.make_tensor_descriptor %d, [%c10i, %c8i], [%c8, %c1] : !tt.ptr<f32>, !tt.tensordesc<tensor<8x8xf32>>
    %w = tt.descriptor_load %desc[%c4, %c2] : !tt.tensordesc<tensor<8x8xf32>> -> tensor<8x8xf32>
    %desc2 = tt.make_tensor_descriptor %o2, [%c10i, %c8i], [%c8, %c1] : !tt.ptr<f32>, !tt.tensordesc<tensor<8x8xf32>>
    tt.descriptor_store %desc2[%c4, %c2], %w : !tt.tensordesc<tensor<8x8xf32>>, tensor<8x8xf32>
    tt.return
  }
}
"""

MAPEW = """module {
  tt.func public @me(%x: !tt.ptr<f32>, %q: !tt.ptr<i8>, %out: !tt.ptr<f32>, %o2: !tt.ptr<bf16>) {
    %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %xp = tt.splat %x : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %xp2 = tt.addptr %xp, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    %v = tt.load %xp2 : tensor<16x!tt.ptr<f32>>
    %m = "tt.map_elementwise"(%v) <{pack = 1 : i32}> ({
    ^bb0(%a: f32):
      %two = arith.constant 2.000000e+00 : f32
      %b = arith.mulf %a, %two : f32
      tt.map_elementwise.return %b : f32
    }) : (tensor<16xf32>) -> tensor<16xf32>
    %op = tt.splat %out : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %op2 = tt.addptr %op, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    tt.store %op2, %m : tensor<16x!tt.ptr<f32>>
    %r8 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %qp = tt.splat %q : !tt.ptr<i8> -> tensor<8x!tt.ptr<i8>>
    %qp2 = tt.addptr %qp, %r8 : tensor<8x!tt.ptr<i8>>, tensor<8xi32>
    %qv = tt.load %qp2 : tensor<8x!tt.ptr<i8>>
    %f = ttg.fp4_to_fp %qv {axis = 0 : i32} : tensor<8xi8> -> tensor<16xbf16>
    %o2p = tt.splat %o2 : !tt.ptr<bf16> -> tensor<16x!tt.ptr<bf16>>
    %o2p2 = tt.addptr %o2p, %r : tensor<16x!tt.ptr<bf16>>, tensor<16xi32>
    tt.store %o2p2, %f : tensor<16x!tt.ptr<bf16>>
    tt.return
  }
}
"""


# ------------------------------------------------------------------ semantics

CONTROL_FLOW = """module {
  tt.func public @cf(%out: !tt.ptr<i32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c3 = arith.constant 3 : i32
    %w:2 = scf.while (%i = %c0, %acc = %c0) : (i32, i32) -> (i32, i32) {
      %cond = arith.cmpi slt, %i, %n : i32
      scf.condition(%cond) %i, %acc : i32, i32
    } do {
    ^bb0(%i2: i32, %acc2: i32):
      %i3 = arith.addi %i2, %c1 : i32
      %acc3 = arith.addi %acc2, %i2 : i32
      scf.yield %i3, %acc3 : i32, i32
    }
    tt.store %out, %w#1 : !tt.ptr<i32>
    %big = arith.cmpi sgt, %n, %c3 : i32
    %r = scf.if %big -> (i32) {
      %x = arith.muli %n, %c3 : i32
      scf.yield %x : i32
    } else {
      scf.yield %c1 : i32
    }
    %p1 = tt.addptr %out, %c1 : !tt.ptr<i32>, i32
    tt.store %p1, %r : !tt.ptr<i32>
    scf.if %big {
      %p2 = tt.addptr %out, %c3 : !tt.ptr<i32>, i32
      tt.store %p2, %n : !tt.ptr<i32>
    }
    tt.return
  }
}
"""


def test_vector_add_matches_numpy():
    r = run_kernel(VECTOR_ADD, pids=(1, 0, 0), num_programs=(2, 1, 1), args={"n": 100}, seed=5)
    # program 1 covers 64..127, the mask keeps 64..99
    assert r.written_elements("out").tolist() == list(range(64, 100))
    a = r.initial("a", 64, 36)
    b = r.initial("b", 64, 36)
    assert a.dtype == np.float32 and np.all(np.abs(a) <= 2) and len(set(a.tolist())) > 30
    np.testing.assert_array_equal(r.read("out", 64, 36), a + b)
    assert r.overlay["out"].nbytes == 36 * 4
    assert r.args["n"] == 100
    # another seed, other inputs; the same seed, the same bytes
    assert not np.array_equal(run_kernel(VECTOR_ADD, seed=6, args={"n": 100}).initial("a", 0, 8), r.initial("a", 0, 8))
    again = run_kernel(VECTOR_ADD, pids=(1, 0, 0), num_programs=(2, 1, 1), args={"n": 100}, seed=5)
    assert again.overlay["out"].checksum() == r.overlay["out"].checksum()


def test_reduction_tree_order_and_max():
    r = run_kernel(REDUCE_SUM, seed=3)
    x = r.initial("a", 0, 128)
    # the documented order: pairwise halving, in f32
    t = x.copy()
    while t.shape[0] > 1:
        h = t.shape[0] // 2
        t = (t[:h] + t[h:]).astype(np.float32)
    got = r.read("out", 0, 2)
    assert got[0] == t[0]
    assert abs(float(got[0]) - float(np.sum(x, dtype=np.float64))) < 1e-4
    assert got[1] == x.max()


def test_masked_load_reads_other_and_masked_store_writes_nothing():
    r = run_kernel(MASKED_OTHER, seed=1)
    got = r.read("out", 0, 32)
    np.testing.assert_array_equal(got[:10], r.initial("a", 0, 10))
    assert np.all(got[10:] == -7.5)
    # the second store: only the 10 unmasked lanes, at element 1000..1009
    assert r.written_elements("out").tolist() == list(range(32)) + list(range(1000, 1010))


def test_for_loop_accumulates():
    r = run_kernel(FOR_ACC, args={"k": 5}, seed=2)
    a = r.initial("a", 0, 80).reshape(5, 16)
    expect = np.zeros(16, np.float32)
    for i in range(5):
        expect = (expect + a[i]).astype(np.float32)
    np.testing.assert_array_equal(r.read("out", 0, 16), expect)
    assert r.read("out", 16, 1)[0] == 5.0
    # a trip count drawn from the seed (a scalar named k is a size: small by default)
    r2 = run_kernel(FOR_ACC, seed=9)
    assert 64 <= r2.args["k"] < 4097


def test_integer_wrap_around_and_division():
    r = run_kernel(INT_WRAP)
    assert r.read("o8", 0, 2).tolist() == [-56, np.int8(np.uint8((100 * 100) % 256).view(np.int8))]
    got = r.read("o32", 0, 10).tolist()
    assert got[0] == -2147483648  # i32 max + 1 wraps
    assert got[1] == -3  # divsi truncates toward zero
    assert got[2] == -1  # remsi takes the dividend's sign
    assert got[3] == -4  # shrsi: arithmetic
    assert got[4] == (2**32 - 7) >> 1  # shrui: logical
    assert got[5] == 249  # extui of i8 -7
    assert got[6] == -7  # extsi of i8 -7
    assert got[7] == -2147483648  # MIN / -1 wraps
    assert got[8] == 0  # -7 is huge unsigned: not ult 2
    assert got[9] == -2  # mulhiui(0xffffffff, 0xffffffff) = 0xfffffffe


def test_maxnumf_ignores_nan_maximumf_propagates_it():
    r = run_kernel(NAN_MAX)
    got = r.read("out", 0, 8)
    assert got[0] == 1.0
    assert math.isnan(got[1])
    assert got[2] == 1.0
    assert math.isnan(got[3])
    assert got[4] == 0.0 and np.signbit(got[4])  # minimumf(+0, -0) = -0
    assert got[5] == 0.0 and not np.signbit(got[5])  # maximumf(-0, +0) = +0
    assert got[6] == 1.0 and got[7] == 0.0  # une NaN NaN true, oeq false


def test_bf16_arithmetic_and_truncf():
    r = run_kernel(BF16, seed=4)
    x = r.initial("a", 0, 64)
    assert x.dtype == ml_dtypes.bfloat16
    f32 = np.float32
    y = (x.astype(f32) * x.astype(f32)).astype(ml_dtypes.bfloat16)
    z = (y.astype(f32) + x.astype(f32)).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(r.read("out", 0, 64).view(np.uint16), z.view(np.uint16))
    w = r.initial("b", 0, 64)
    np.testing.assert_array_equal(r.read("out2", 0, 64).view(np.uint16), w.astype(ml_dtypes.bfloat16).view(np.uint16))


def test_scans_and_atomics():
    r = run_kernel(SCAN_ATOMIC, seed=7)
    x = r.initial("a", 0, 16).astype(np.int64)
    got = r.read("out", 0, 48).astype(np.int64)
    np.testing.assert_array_equal(got[:16], np.cumsum(x))
    np.testing.assert_array_equal(got[16:32], np.cumsum(x[::-1])[::-1])
    # 16 lanes add 1 to one address, one after another: the old values count up
    c0 = int(r.initial("cnt", 0, 1)[0])
    np.testing.assert_array_equal(got[32:48], c0 + np.arange(16))
    assert int(r.read("cnt", 0, 1)[0]) == c0 + 16


def test_pseudo_random_model_is_configurable():
    model = InitModel(float_range=(10.0, 11.0))
    r = run_kernel(VECTOR_ADD, args={"n": 64}, model=model)
    a = r.initial("a", 0, 64)
    assert np.all((a >= 10) & (a <= 11))


def test_unknown_op_is_a_clear_error():
    # an op the reader knows and the interpreter does not: an error at the op, never skipped
    text = """module {
  tt.func public @k(%p: !tt.ptr<f32>) {
    %c0 = arith.constant 0 : i32
    %x = builtin.unrealized_conversion_cast %c0 : i32 to i64
    tt.return
  }
}
"""
    with pytest.raises(InterpError, match=r"^<input>:4:5: error: unsupported op 'builtin.unrealized_conversion_cast'"):
        run_kernel(text)


def test_scf_while_and_if():
    r = run_kernel(CONTROL_FLOW, args={"n": 10})
    assert r.read("out", 0, 2).tolist() == [45, 30]
    assert r.written_elements("out").tolist() == [0, 1, 3] and r.read("out", 3, 1)[0] == 10
    r = run_kernel(CONTROL_FLOW, args={"n": 2})
    assert r.read("out", 0, 2).tolist() == [1, 1]
    assert r.written_elements("out").tolist() == [0, 1]


def test_block_pointers_and_tensor_descriptors():
    r = run_kernel(BLOCKPTR)
    x = r.initial("x", 0, 80).reshape(10, 8)
    # rows 4..11 of a 10-row tensor: rows 10, 11 are out of bounds (not stored)
    assert r.written_elements("out").tolist() == list(range(32, 80))
    np.testing.assert_array_equal(r.read("out", 32, 48).reshape(6, 8), x[4:10])
    d = r.initial("d", 0, 80).reshape(10, 8)
    assert r.written_elements("o2").tolist() == [8 * i + j for i in range(4, 10) for j in range(2, 8)]
    np.testing.assert_array_equal(r.read("o2", 0, 80).reshape(10, 8)[4:10, 2:8], d[4:10, 2:8])


def test_map_elementwise_and_fp4():
    r = run_kernel(MAPEW)
    np.testing.assert_array_equal(r.read("out", 0, 16), r.initial("x", 0, 16) * 2)
    q = r.initial("q", 0, 8).view(np.uint8)
    e2m1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]
    expect = [e2m1[b & 15] if k == 0 else e2m1[b >> 4] for b in q for k in (0, 1)]
    assert r.read("o2", 0, 16).astype(np.float32).tolist() == expect


def test_print_and_assert_are_recorded():
    r = run_kernel(small("probe_misc.ttir").read_text(), num_programs=(2, 1, 1), pids=(1, 0, 0))
    kinds = [e.kind for e in r.events]
    assert "print" in kinds
    printed = [e for e in r.events if e.kind == "print"][0]
    assert printed.values[0].item() == 1  # it prints the program id


# ------------------------------------------------------------------ every fixture


@pytest.mark.parametrize("path", file_params(fixture_files(), what="fixtures"), ids=corpus_id)
def test_every_fixture_runs(path):
    r = run_kernel(path.read_text(), filename=str(path), num_programs=(4, 4, 4), pids=(0, 0, 0))
    assert r.written, "a kernel that writes nothing"


@pytest.mark.parametrize("path", file_params(fixture_files(), what="fixtures"), ids=corpus_id)
def test_redundant_passes_are_bit_exact(path):
    text = path.read_text()
    after = ttopt.optimize(text, ["redundant-load", "redundant-reduce"], filename=str(path))
    result = compare(text, after, seeds=(0, 1))
    assert result.ok, result.message
    assert result.bytes_compared > 0


# ------------------------------------------------------------------ the validator can fail


def test_planted_bug_is_caught():
    # merge the second load into the first by hand: wrong, a store to that address is between them
    bad = LOAD_STORE_LOAD.replace("    %y = tt.load %pp2 : tensor<64x!tt.ptr<f32>>\n", "").replace(
        "%s = arith.addf %x, %y", "%s = arith.addf %x, %x")
    assert bad != LOAD_STORE_LOAD
    result = compare(LOAD_STORE_LOAD, bad)
    assert not result.ok
    mm = result.mismatch
    assert mm.arg == "out" and mm.kind == "value" and mm.element == 0 and mm.offset == 0
    assert 'loc("lsl.py":12:4)' in mm.before_loc and 'loc("lsl.py":12:4)' in mm.after_loc
    assert "out[0] (byte offset 0) differs" in result.message
    # and ttopt's own redundant-load pass does not make that merge
    assert compare(LOAD_STORE_LOAD, ttopt.optimize(LOAD_STORE_LOAD, ["redundant-load"])).ok


def test_div_chain_within_4_ulps_not_bit_exact():
    after = ttopt.optimize(DIV3, ["div-chain"])
    assert after.count("arith.divf") == 1  # rewritten: a / (b * c)
    assert compare(DIV3, after, ulps=4).ok
    exact = compare(DIV3, after, ulps=0)
    assert not exact.ok  # reassociation changes the rounding of some elements
    assert exact.mismatch.arg == "out" and exact.mismatch.ulps is not None and 1 <= exact.mismatch.ulps <= 4


def test_compare_reports_signature_mismatch():
    other = VECTOR_ADD.replace("%n: i32)", "%n: i32, %extra: i32)")
    with pytest.raises(InterpError, match="signatures differ"):
        compare(VECTOR_ADD, other)


# ------------------------------------------------------------------ CLI


def test_cli_run_and_compare(tmp_path):
    k = tmp_path / "k.ttir"
    k.write_text(VECTOR_ADD)
    runner = CliRunner()
    res = runner.invoke(cli_main, [str(k), "--arg", "n=100", "--pid", "1,0,0", "--num-programs", "2,1,1"])
    assert res.exit_code == 0, res.output
    assert "out: !tt.ptr<f32>: 144 bytes written in [256, 400)" in res.output
    good = tmp_path / "good.ttir"
    good.write_text(LOAD_STORE_LOAD)
    bad = tmp_path / "bad.ttir"
    bad.write_text(LOAD_STORE_LOAD.replace("    %y = tt.load %pp2 : tensor<64x!tt.ptr<f32>>\n", "").replace(
        "%s = arith.addf %x, %y", "%s = arith.addf %x, %x"))
    res = runner.invoke(cli_main, ["--compare", str(good), str(good), "--seeds", "2"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(cli_main, ["--compare", str(good), str(bad)])
    assert res.exit_code == 1
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "out[0]" in lines[0]
    res = runner.invoke(cli_main, [str(tmp_path / "missing.ttir")])
    assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1 and "Traceback" not in res.output


# ------------------------------------------------------------------ op-by-op smoke tests

UNARY_KERNEL = """module {
  tt.func public @u(%x: !tt.ptr<T>, %out: !tt.ptr<R>) {
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %xp = tt.splat %x : !tt.ptr<T> -> tensor<64x!tt.ptr<T>>
    %xp2 = tt.addptr %xp, %r : tensor<64x!tt.ptr<T>>, tensor<64xi32>
    %v = tt.load %xp2 : tensor<64x!tt.ptr<T>>
    %y = OP %v : tensor<64xT>SUFFIX
    %op = tt.splat %out : !tt.ptr<R> -> tensor<64x!tt.ptr<R>>
    %op2 = tt.addptr %op, %r : tensor<64x!tt.ptr<R>>, tensor<64xi32>
    tt.store %op2, %y : tensor<64x!tt.ptr<R>>
    tt.return
  }
}
"""

_F64_REF = {
    "math.exp": np.exp, "math.exp2": np.exp2, "math.expm1": np.expm1, "math.log": np.log,
    "math.log2": np.log2, "math.log10": np.log10, "math.log1p": np.log1p, "math.sin": np.sin,
    "math.cos": np.cos, "math.tan": np.tan, "math.asin": np.arcsin, "math.acos": np.arccos,
    "math.atan": np.arctan, "math.sinh": np.sinh, "math.cosh": np.cosh, "math.tanh": np.tanh,
    "math.asinh": np.arcsinh, "math.acosh": np.arccosh, "math.atanh": np.arctanh,
    "math.cbrt": np.cbrt, "math.rsqrt": lambda v: 1 / np.sqrt(v), "math.sqrt": np.sqrt,
    "math.absf": np.abs, "math.floor": np.floor, "math.ceil": np.ceil, "math.trunc": np.trunc,
    "math.roundeven": np.rint, "math.round": lambda v: np.copysign(np.floor(np.abs(v) + 0.5), v),
    "math.erf": np.vectorize(math.erf), "math.erfc": np.vectorize(math.erfc), "arith.negf": np.negative,
}


@pytest.mark.parametrize("name", sorted(_F64_REF))
def test_unary_float_ops(name):
    text = UNARY_KERNEL.replace("OP", name).replace("SUFFIX", "").replace("T", "f32").replace("R", "f32")
    r = run_kernel(text, seed=11)
    x = r.initial("x", 0, 64)
    with np.errstate(all="ignore"):
        expect = _F64_REF[name](x.astype(np.float64)).astype(np.float32)
    got = r.read("out", 0, 64)
    if name in ("math.erf", "math.erfc"):  # ours is a series, math's libm: within 1 f32 ulp
        np.testing.assert_array_max_ulp(got, expect, maxulp=1)
    else:
        np.testing.assert_array_equal(got, expect)


@pytest.mark.parametrize("op,src,dst,ref", [
    ("arith.extf", "f16", "f32", lambda x: x.astype(np.float32)),
    ("arith.truncf", "f32", "f16", lambda x: x.astype(np.float16)),
    ("arith.truncf", "f32", "bf16", lambda x: x.astype(ml_dtypes.bfloat16)),
    ("arith.fptosi", "f32", "i32", lambda x: np.trunc(x).astype(np.int32)),
    ("arith.fptoui", "f32", "i8", lambda x: np.clip(np.trunc(x), 0, 255).astype(np.uint8).view(np.int8)),
    ("arith.sitofp", "i32", "f32", lambda x: x.astype(np.float32)),
    ("arith.uitofp", "i8", "f16", lambda x: x.view(np.uint8).astype(np.float16)),
    ("arith.extsi", "i8", "i64", lambda x: x.astype(np.int64)),
    ("arith.extui", "i8", "i32", lambda x: x.view(np.uint8).astype(np.int32)),
    ("arith.trunci", "i32", "i8", lambda x: x.astype(np.int8)),
    ("arith.bitcast", "f32", "i32", lambda x: x.view(np.int32)),
    ("tt.bitcast", "i16", "f16", lambda x: x.view(np.float16)),
    ("tt.fp_to_fp", "f16", "f32", lambda x: x.astype(np.float32)),
])
def test_casts(op, src, dst, ref):
    text = UNARY_KERNEL.replace("OP", op).replace("SUFFIX", " to tensor<64xR>" if op.startswith("arith") else "")
    if op.startswith("tt."):
        text = text.replace(f"%y = {op} %v : tensor<64xT>", f"%y = {op} %v : tensor<64xT> -> tensor<64xR>")
    text = text.replace("T", src).replace("R", dst)
    r = run_kernel(text, seed=12, model=InitModel(float_range=(-300.0, 300.0), int_range=(-200, 200)))
    x = r.initial("x", 0, 64)
    got = r.read("out", 0, 64)
    np.testing.assert_array_equal(np.asarray(got).view(np.uint8), np.asarray(ref(x)).view(np.uint8))


BINARY_KERNEL = """module {
  tt.func public @b(%x: !tt.ptr<T>, %y: !tt.ptr<T>, %out: !tt.ptr<R>) {
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %xp = tt.splat %x : !tt.ptr<T> -> tensor<256x!tt.ptr<T>>
    %xp2 = tt.addptr %xp, %r : tensor<256x!tt.ptr<T>>, tensor<256xi32>
    %a = tt.load %xp2 : tensor<256x!tt.ptr<T>>
    %yp = tt.splat %y : !tt.ptr<T> -> tensor<256x!tt.ptr<T>>
    %yp2 = tt.addptr %yp, %r : tensor<256x!tt.ptr<T>>, tensor<256xi32>
    %b = tt.load %yp2 : tensor<256x!tt.ptr<T>>
    %v = OP %a, %b : tensor<256xT>
    %op = tt.splat %out : !tt.ptr<R> -> tensor<256x!tt.ptr<R>>
    %op2 = tt.addptr %op, %r : tensor<256x!tt.ptr<R>>, tensor<256xi32>
    tt.store %op2, %v : tensor<256x!tt.ptr<R>>
    tt.return
  }
}
"""


def _u(x):
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


@pytest.mark.parametrize("op,t,ref", [
    ("arith.addf", "f16", lambda a, b: a + b),
    ("arith.subf", "f32", lambda a, b: a - b),
    ("arith.mulf", "f64", lambda a, b: a * b),
    ("arith.divf", "f32", lambda a, b: a / b),
    ("arith.remf", "f32", np.fmod),
    ("tt.precise_divf", "f32", lambda a, b: a / b),
    ("arith.maxnumf", "f32", np.fmax),
    ("arith.minimumf", "f16", np.minimum),
    ("math.copysign", "f32", np.copysign),
    ("math.powf", "f32", lambda a, b: np.power(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)),
    ("arith.addi", "i8", lambda a, b: a + b),
    ("arith.muli", "i16", lambda a, b: a * b),
    ("arith.subi", "i64", lambda a, b: a - b),
    ("arith.xori", "i32", np.bitwise_xor),
    ("arith.maxsi", "i32", np.maximum),
    ("arith.minui", "i8", lambda a, b: np.minimum(_u(a), _u(b)).view(np.int8)),
    ("arith.shli", "i32", lambda a, b: np.where((b >= 0) & (b < 32), np.left_shift(a, np.clip(b, 0, 31)), 0)),
])
def test_binary_ops(op, t, ref):
    text = BINARY_KERNEL.replace("OP", op).replace("T", t).replace("R", t)
    r = run_kernel(text, seed=13)
    a, b = r.initial("x", 0, 256), r.initial("y", 0, 256)
    with np.errstate(all="ignore"):
        expect = np.asarray(ref(a, b)).astype(a.dtype)
    np.testing.assert_array_equal(_u(r.read("out", 0, 256)), _u(expect))


CMPF_KERNEL = """module {
  tt.func public @c(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>, %out: !tt.ptr<i1>) {
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %c64 = arith.constant dense<64> : tensor<256xi32>
    %c128 = arith.constant dense<128> : tensor<256xi32>
    %c192 = arith.constant dense<192> : tensor<256xi32>
    %nan = arith.constant dense<0x7FC00000> : tensor<256xf32>
    %xp = tt.splat %x : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %xp2 = tt.addptr %xp, %r : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %a = tt.load %xp2 : tensor<256x!tt.ptr<f32>>
    %yp = tt.splat %y : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %yp2 = tt.addptr %yp, %r : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %b = tt.load %yp2 : tensor<256x!tt.ptr<f32>>
    %lo = arith.cmpi slt, %r, %c64 : tensor<256xi32>
    %a2 = arith.select %lo, %nan, %a : tensor<256xi1>, tensor<256xf32>
    %hi = arith.cmpi sge, %r, %c192 : tensor<256xi32>
    %b2 = arith.select %hi, %nan, %b : tensor<256xi1>, tensor<256xf32>
    %mid = arith.cmpi sge, %r, %c128 : tensor<256xi32>
    %b3 = arith.select %mid, %a2, %b2 : tensor<256xi1>, tensor<256xf32>
    %v = arith.cmpf PRED, %a2, %b3 : tensor<256xf32>
    %op = tt.splat %out : !tt.ptr<i1> -> tensor<256x!tt.ptr<i1>>
    %op2 = tt.addptr %op, %r : tensor<256x!tt.ptr<i1>>, tensor<256xi32>
    tt.store %op2, %v : tensor<256x!tt.ptr<i1>>
    tt.return
  }
}
"""


@pytest.mark.parametrize("pred", ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge",
                                  "ult", "ule", "une", "uno", "true"])
def test_cmpf_predicates_with_nan(pred):
    r = run_kernel(CMPF_KERNEL.replace("PRED", pred), seed=14)
    a, b = r.initial("x", 0, 256).astype(np.float64), r.initial("y", 0, 256).astype(np.float64)
    a[:64] = np.nan  # lanes 0..63: a is NaN; 128..255: b = a (equal pairs)
    b[128:] = a[128:]
    uno = np.isnan(a) | np.isnan(b)
    base = {"eq": a == b, "gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b, "ne": a != b}
    expect = {"false": np.zeros(256, bool), "true": np.ones(256, bool), "ord": ~uno, "uno": uno}.get(pred)
    if expect is None:
        expect = base[pred[1:]] & ~uno if pred[0] == "o" else base[pred[1:]] | uno
    np.testing.assert_array_equal(r.read("out", 0, 256), expect)


REINTERPRET = """module {
  tt.func public @ri(%p: !tt.ptr<f32>, %out: !tt.ptr<i32>, %out16: !tt.ptr<i16>) {
    %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %q = tt.bitcast %p : !tt.ptr<f32> -> !tt.ptr<i32>
    %qs = tt.splat %q : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %qs2 = tt.addptr %qs, %r : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    %v = tt.load %qs2 : tensor<8x!tt.ptr<i32>>
    %os = tt.splat %out : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %os2 = tt.addptr %os, %r : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    tt.store %os2, %v : tensor<8x!tt.ptr<i32>>
    %h = tt.bitcast %p : !tt.ptr<f32> -> !tt.ptr<i16>
    %c1 = arith.constant 1 : i32
    %h1 = tt.addptr %h, %c1 : !tt.ptr<i16>, i32
    %hs = tt.splat %h1 : !tt.ptr<i16> -> tensor<8x!tt.ptr<i16>>
    %hs2 = tt.addptr %hs, %r : tensor<8x!tt.ptr<i16>>, tensor<8xi32>
    %w = tt.load %hs2 : tensor<8x!tt.ptr<i16>>
    %o16 = tt.splat %out16 : !tt.ptr<i16> -> tensor<8x!tt.ptr<i16>>
    %o162 = tt.addptr %o16, %r : tensor<8x!tt.ptr<i16>>, tensor<8xi32>
    tt.store %o162, %w : tensor<8x!tt.ptr<i16>>
    tt.return
  }
}
"""


def test_memory_read_through_another_type_is_the_same_bytes():
    r = run_kernel(REINTERPRET, seed=21)
    f = r.initial("p", 0, 8)
    np.testing.assert_array_equal(r.read("out", 0, 8), f.view(np.int32))
    # 16-bit halves starting at byte 2: the high half of element 0, the low half of element 1 ...
    np.testing.assert_array_equal(r.read("out16", 0, 8), f.view(np.int16)[1:9])
