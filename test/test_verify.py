"""The verifier (ttopt.ir.verify, run by read_module): for every rule, an input Triton 3.6
rejects, ttopt's exact one-line error for it (FILE:LINE:COL of the offending op), and a valid
neighbour that Triton and ttopt both accept.

Each case is checked four ways: ttopt's error text, Triton's verdict on the same text
(``ttopt.oracle``), xDSL's own ``Operation.verify()`` agreeing with ttopt's walker (for the
op rules; dominance and alias placement are ttopt's own), and the neighbour passing all
three.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from dataclasses import dataclass

import pytest

import ttopt
from ttopt.errors import TTOptError, TTOptInternalError
from ttopt.ir.reader import read_module
from ttopt.ir.verify import verify_module
from ttopt.oracle import triton_accepts

ARGS = (
    "%a: f32, %b: i32, %h: f16, %p: !tt.ptr<f32>, %t: tensor<4xf32>, %ti: tensor<4xi32>, "
    "%th: tensor<4xf16>, %tp: tensor<4x!tt.ptr<f32>>, %m: tensor<4xi1>, %m8: tensor<8xi1>, "
    "%t8: tensor<8xi32>"
)


def kernel(body: str, results: str = "", ret: str = "tt.return", args: str = ARGS) -> str:
    """A module with one function ``@k(ARGS)``: its body starts on line 3."""
    res = f" -> {results}" if results else ""
    lines = textwrap.dedent(body).strip("\n").splitlines()
    inner = "\n".join("    " + line for line in lines)
    return f"module {{\n  tt.func @k({args}){res} {{\n{inner}\n    {ret}\n  }}\n}}\n"


BLOCKED = (
    "#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], "
    "order = [0]}>\n"
    "#blocked1 = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], "
    "order = [0]}>\n"
)
GPU_MODULE = (
    'module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, '
    'ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {'
)


def gpu_kernel(body: str) -> str:
    """A TTGIR module with layouts #blocked, #blocked1; the body starts on line 5."""
    lines = textwrap.dedent(body).strip("\n").splitlines()
    inner = "\n".join("    " + line for line in lines)
    return (
        f"{BLOCKED}{GPU_MODULE}\n  tt.func @k(%t: tensor<128xf32, #blocked>, %a: f32, "
        f"%q: !tt.ptr<f32>) {{\n{inner}\n    tt.return\n  }}\n}}\n"
    )


LOOP = """
%lb = arith.constant 0 : i32
%ub = arith.constant 4 : i32
%st = arith.constant 1 : i32
"""  # lines 3-5 of a kernel() body


def reduce_(srcs: str, types: str, res: str, axis: int, args: str, body: str) -> str:
    return (
        f'%r = "tt.reduce"({srcs}) <{{axis = {axis} : i32}}> ({{\n'
        f"^bb0({args}):\n{body}\n}}) : ({types}) -> {res}"
    )


ADD_F32 = "  %s = arith.addf %x, %y : f32\n  tt.reduce.return %s : f32"


@dataclass
class Case:
    id: str
    bad: str
    error: str  # ttopt's whole message, without "FILE:" ("LINE:COL: error: ...")
    good: str
    suffix: str = ".ttir"
    ours_only: bool = False  # a rule xDSL's verify() does not have (dominance, aliases)
    triton_crashes: bool = False  # Triton 3.6 aborts on `bad` (asked in a process of its own)
    release: str | None = None  # read as this release (`bad` has no sign of one, and an
    # older release accepts it: read as detected, a text of no sign is verified as leniently
    # as its most lenient release)


CASES = [
    # ------------------------------------------------------------------ arith / math
    Case(
        "addf-operand-kind",
        kernel('%0 = "arith.addf"(%a, %b) : (f32, i32) -> f16'),
        "3:10: error: 'arith.addf' op operand #1 must be floating-point-like, but got 'i32'",
        kernel('%0 = "arith.addf"(%a, %a) : (f32, f32) -> f32'),
    ),
    Case(
        "addf-same-type",
        kernel('%0 = "arith.addf"(%a, %a) : (f32, f32) -> f16'),
        "3:10: error: 'arith.addf' op requires the same type for all operands and results",
        kernel('%0 = "arith.addf"(%a, %a) : (f32, f32) -> f32'),
    ),
    Case(
        "addf-on-integers",
        kernel("%0 = arith.addf %b, %b : i32"),
        "3:10: error: 'arith.addf' op operand #0 must be floating-point-like, but got 'i32'",
        kernel("%0 = arith.addf %a, %a : f32"),
    ),
    Case(
        "addi-on-floats",
        kernel("%0 = arith.addi %t, %t : tensor<4xf32>"),
        "3:10: error: 'arith.addi' op operand #0 must be signless-integer-like, but got "
        "'tensor<4xf32>'",
        kernel("%0 = arith.addi %ti, %ti : tensor<4xi32>"),
    ),
    Case(
        "addi-on-pointers",
        kernel("%0 = arith.addi %p, %p : !tt.ptr<f32>"),
        "3:10: error: 'arith.addi' op operand #0 must be signless-integer-like, but got "
        "'!tt.ptr<f32>'",
        kernel("%i = arith.constant 0 : index\n%0 = arith.addi %i, %i : index"),
    ),
    Case(
        "math-float-op-on-integers",
        kernel("%0 = math.exp %b : i32"),
        "3:10: error: 'math.exp' op operand #0 must be floating-point-like, but got 'i32'",
        kernel("%0 = math.exp %a : f32"),
    ),
    Case(
        "math-integer-op-on-floats",
        kernel("%0 = math.absi %a : f32"),
        "3:10: error: 'math.absi' op operand #0 must be signless-integer-like, but got 'f32'",
        kernel("%0 = math.absi %b : i32"),
    ),
    Case(
        "cmpi-result-shape",
        kernel('%0 = "arith.cmpi"(%ti, %ti) <{predicate = 2 : i64}> : '
               "(tensor<4xi32>, tensor<4xi32>) -> i1"),
        "3:10: error: 'arith.cmpi' op failed to verify that result type has i1 element type "
        "and same shape as operands",
        kernel('%0 = "arith.cmpi"(%ti, %ti) <{predicate = 2 : i64}> : '
               "(tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>"),
    ),
    Case(
        "cmpi-result-not-bool",
        kernel('%0 = "arith.cmpi"(%b, %b) <{predicate = 0 : i64}> : (i32, i32) -> i32'),
        "3:10: error: 'arith.cmpi' op result #0 must be bool-like, but got 'i32'",
        kernel('%0 = "arith.cmpi"(%b, %b) <{predicate = 0 : i64}> : (i32, i32) -> i1'),
    ),
    Case(
        "cmpf-on-integers",
        kernel("%0 = arith.cmpf olt, %b, %b : i32"),
        "3:10: error: 'arith.cmpf' op operand #0 must be floating-point-like, but got 'i32'",
        kernel("%0 = arith.cmpf olt, %a, %a : f32"),
    ),
    Case(
        "select-condition-shape",
        kernel("%0 = arith.select %m8, %t, %t : tensor<8xi1>, tensor<4xf32>"),
        "3:10: error: 'arith.select' op expected condition type to have the same shape as the "
        "result type, got 'tensor<8xi1>' for result 'tensor<4xf32>'",
        kernel("%0 = arith.select %m, %t, %t : tensor<4xi1>, tensor<4xf32>"),
    ),
    Case(
        "select-condition-not-bool",
        kernel("%0 = arith.select %b, %a, %a : i32, f32"),
        "3:10: error: 'arith.select' op operand #0 must be bool-like, but got 'i32'",
        kernel("%c = arith.constant true\n%0 = arith.select %c, %t, %t : tensor<4xf32>"),
    ),
    Case(
        "select-value-types",
        kernel('%0 = "arith.select"(%m, %t, %ti) : '
               "(tensor<4xi1>, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>"),
        "3:10: error: 'arith.select' op failed to verify that all of {true_value, false_value, "
        "result} have same type",
        kernel('%0 = "arith.select"(%m, %t, %t) : '
               "(tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>"),
    ),
    Case(
        "constant-type",
        kernel('%0 = "arith.constant"() <{value = 1 : i32}> : () -> i64'),
        "3:10: error: 'arith.constant' op failed to verify that all of {value, result} have "
        "same type",
        kernel('%0 = "arith.constant"() <{value = 1 : i64}> : () -> i64'),
    ),
    Case(
        "extf-narrows",
        kernel("%0 = arith.extf %a : f32 to f16"),
        "3:10: error: 'arith.extf' op operand type 'f32' and result type 'f16' are cast "
        "incompatible",
        kernel("%0 = arith.extf %h : f16 to f32"),
    ),
    Case(
        "trunci-widens",
        kernel("%0 = arith.trunci %b : i32 to i64"),
        "3:10: error: 'arith.trunci' op operand type 'i32' and result type 'i64' are cast "
        "incompatible",
        kernel("%0 = arith.trunci %b : i32 to i8"),
    ),
    Case(
        "cast-shape",
        kernel("%0 = arith.extf %th : tensor<4xf16> to tensor<8xf32>"),
        "3:10: error: 'arith.extf' op failed to verify that input and output have the same "
        "tensor dimensions",
        kernel("%0 = arith.extf %th : tensor<4xf16> to tensor<4xf32>"),
    ),
    Case(
        "sitofp-from-float",
        kernel("%0 = arith.sitofp %a : f32 to f32"),
        "3:10: error: 'arith.sitofp' op operand #0 must be signless-fixed-width-integer-like, "
        "but got 'f32'",
        kernel("%0 = arith.sitofp %b : i32 to f32"),
    ),
    Case(
        "bitcast-width",
        kernel("%0 = arith.bitcast %a : f32 to i64"),
        "3:10: error: 'arith.bitcast' op operand type 'f32' and result type 'i64' are cast "
        "incompatible",
        kernel("%0 = arith.bitcast %a : f32 to i32"),
    ),
    Case(
        "cast-encoding",
        gpu_kernel("%0 = arith.extf %t : tensor<128xf32, #blocked> to tensor<128xf64, #blocked1>"),
        "5:10: error: 'arith.extf' op operand type 'tensor<128xf32, #ttg.blocked<{sizePerThread "
        "= [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>' and result type "
        "'tensor<128xf64, #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA "
        "= [4], order = [0]}>>' are cast incompatible",
        gpu_kernel("%0 = arith.extf %t : tensor<128xf32, #blocked> to tensor<128xf64, #blocked>"),
        ".ttgir",
    ),
    Case(
        "addf-encoding",
        gpu_kernel('%0 = "arith.addf"(%t, %t) : (tensor<128xf32, #blocked>, '
                   "tensor<128xf32, #blocked>) -> tensor<128xf32, #blocked1>"),
        "5:10: error: 'arith.addf' op requires the same type for all operands and results",
        gpu_kernel('%0 = "arith.addf"(%t, %t) : (tensor<128xf32, #blocked>, '
                   "tensor<128xf32, #blocked>) -> tensor<128xf32, #blocked>"),
        ".ttgir",
    ),
    # ------------------------------------------------------------------ tt: memory
    Case(
        "load-result-type",
        kernel('%0 = "tt.load"(%tp) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : '
               "(tensor<4x!tt.ptr<f32>>) -> tensor<4xf16>"),
        "3:10: error: 'tt.load' op failed to verify that result matches ptr type",
        kernel('%0 = "tt.load"(%tp) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : '
               "(tensor<4x!tt.ptr<f32>>) -> tensor<4xf32>"),
    ),
    Case(
        "load-mask-shape",
        kernel('%0 = "tt.load"(%tp, %m8) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : '
               "(tensor<4x!tt.ptr<f32>>, tensor<8xi1>) -> tensor<4xf32>"),
        "3:10: error: 'tt.load' op failed to verify that mask type matches ptr type",
        kernel('%0 = "tt.load"(%tp, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : '
               "(tensor<4x!tt.ptr<f32>>, tensor<4xi1>) -> tensor<4xf32>"),
    ),
    Case(
        "load-other-type",
        kernel('%0 = "tt.load"(%tp, %m, %ti) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : '
               "(tensor<4x!tt.ptr<f32>>, tensor<4xi1>, tensor<4xi32>) -> tensor<4xf32>"),
        "3:10: error: 'tt.load' op failed to verify that other matches ptr type",
        kernel('%0 = "tt.load"(%tp, %m, %t) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : '
               "(tensor<4x!tt.ptr<f32>>, tensor<4xi1>, tensor<4xf32>) -> tensor<4xf32>"),
    ),
    Case(
        "load-not-a-pointer",
        kernel('%0 = "tt.load"(%t) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : '
               "(tensor<4xf32>) -> tensor<4xf32>"),
        "3:10: error: 'tt.load' op operand #0 must be ptr or ranked tensor of ptr values or "
        "ptr, but got 'tensor<4xf32>'",
        kernel("%0 = tt.load %tp : tensor<4x!tt.ptr<f32>>"),
    ),
    Case(
        "store-value-type",
        kernel('"tt.store"(%tp, %ti) : (tensor<4x!tt.ptr<f32>>, tensor<4xi32>) -> ()'),
        "3:5: error: 'tt.store' op failed to verify that value type matches ptr type",
        kernel('"tt.store"(%tp, %t) : (tensor<4x!tt.ptr<f32>>, tensor<4xf32>) -> ()'),
    ),
    Case(
        "store-mask-shape",
        kernel('"tt.store"(%tp, %t, %m8) : '
               "(tensor<4x!tt.ptr<f32>>, tensor<4xf32>, tensor<8xi1>) -> ()"),
        "3:5: error: 'tt.store' op failed to verify that mask type matches ptr type",
        kernel("tt.store %tp, %t, %m : tensor<4x!tt.ptr<f32>>"),
    ),
    Case(
        "addptr-float-offset",
        kernel("%0 = tt.addptr %p, %a : !tt.ptr<f32>, f32"),
        "3:10: error: 'tt.addptr' op operand #1 must be integer or ranked tensor of integer "
        "values, but got 'f32'",
        kernel("%0 = tt.addptr %p, %b : !tt.ptr<f32>, i32"),
    ),
    Case(
        "addptr-shape",
        kernel("%0 = tt.addptr %tp, %t8 : tensor<4x!tt.ptr<f32>>, tensor<8xi32>"),
        "3:10: error: 'tt.addptr' op all non-scalar operands/results must have the same shape "
        "and base type",
        kernel("%0 = tt.addptr %tp, %ti : tensor<4x!tt.ptr<f32>>, tensor<4xi32>"),
    ),
    Case(
        "addptr-scalar-pointer-tensor-offset",
        kernel("%0 = tt.addptr %p, %ti : !tt.ptr<f32>, tensor<4xi32>"),
        "3:10: error: 'tt.addptr' op if an operand is non-scalar, then there must be at least "
        "one non-scalar result",
        kernel("%s = tt.splat %p : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>\n"
               "%0 = tt.addptr %s, %ti : tensor<4x!tt.ptr<f32>>, tensor<4xi32>"),
    ),
    Case(
        "addptr-tensor-pointer-scalar-offset",
        kernel("%0 = tt.addptr %tp, %b : tensor<4x!tt.ptr<f32>>, i32"),
        "3:10: error: 'tt.addptr' op requires the same shape for all operands and results",
        kernel("%s = tt.splat %b : i32 -> tensor<4xi32>\n"
               "%0 = tt.addptr %tp, %s : tensor<4x!tt.ptr<f32>>, tensor<4xi32>"),
    ),
    Case(
        "addptr-result-type",
        kernel('%0 = "tt.addptr"(%tp, %ti) : (tensor<4x!tt.ptr<f32>>, tensor<4xi32>) -> '
               "tensor<4x!tt.ptr<f16>>"),
        "3:10: error: 'tt.addptr' op failed to verify that result type matches ptr type",
        kernel('%0 = "tt.addptr"(%tp, %ti) : (tensor<4x!tt.ptr<f32>>, tensor<4xi32>) -> '
               "tensor<4x!tt.ptr<f32>>"),
    ),
    Case(
        "addptr-encoding",
        gpu_kernel("%p = tt.splat %q : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>, #blocked>\n"
                   "%o = arith.constant dense<1> : tensor<128xi32, #blocked1>\n"
                   "%0 = tt.addptr %p, %o : tensor<128x!tt.ptr<f32>, #blocked>, "
                   "tensor<128xi32, #blocked1>"),
        "7:10: error: 'tt.addptr' op requires the same encoding for all operands",
        gpu_kernel("%p = tt.splat %q : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>, #blocked>\n"
                   "%o = arith.constant dense<1> : tensor<128xi32, #blocked>\n"
                   "%0 = tt.addptr %p, %o : tensor<128x!tt.ptr<f32>, #blocked>, "
                   "tensor<128xi32, #blocked>"),
        ".ttgir",
    ),
    # ------------------------------------------------------------------ tt: shapes
    Case(
        "splat-element-type",
        kernel("%0 = tt.splat %a : f32 -> tensor<4xf16>"),
        "3:10: error: 'tt.splat' op requires the same element type for all operands and "
        "results",
        kernel("%0 = tt.splat %a : f32 -> tensor<4xf32>"),
    ),
    # (complex tensors are constants now: no tt op takes them, nor splats an index or si32)
    Case(
        "splat-of-complex",
        kernel("%0 = tt.splat %x : complex<f32> -> tensor<4xcomplex<f32>>",
               args="%x: complex<f32>, %a: f32"),
        "3:10: error: 'tt.splat' op operand #0 must be floating-point or ranked tensor of "
        "floating-point values or integer or ranked tensor of integer values or ptr or ranked "
        "tensor of ptr values or ptr, but got 'complex<f32>'",
        kernel("%0 = tt.splat %a : f32 -> tensor<4xf32>", args="%x: complex<f32>, %a: f32"),
    ),
    Case(
        "splat-of-index",
        kernel("%0 = tt.splat %i : index -> tensor<4xindex>", args="%i: index, %b: i1"),
        "3:10: error: 'tt.splat' op operand #0 must be floating-point or ranked tensor of "
        "floating-point values or integer or ranked tensor of integer values or ptr or ranked "
        "tensor of ptr values or ptr, but got 'index'",
        kernel("%0 = tt.splat %b : i1 -> tensor<4xi1>", args="%i: index, %b: i1"),
    ),
    Case(
        "reshape-of-complex",
        kernel("%0 = tt.reshape %y : tensor<4xcomplex<f32>> -> tensor<2x2xcomplex<f32>>",
               args="%y: tensor<4xcomplex<f32>>, %t: tensor<4xf32>"),
        "3:10: error: 'tt.reshape' op operand #0 must be ranked tensor of floating-point or "
        "integer or ptr values, but got 'tensor<4xcomplex<f32>>'",
        kernel("%0 = tt.reshape %t : tensor<4xf32> -> tensor<2x2xf32>",
               args="%y: tensor<4xcomplex<f32>>, %t: tensor<4xf32>"),
    ),
    Case(
        "splat-to-scalar",
        kernel("%0 = tt.splat %a : f32 -> f32"),
        "3:10: error: 'tt.splat' op result #0 must be ranked tensor of floating-point or integer or ptr values, but got 'f32'",
        kernel("%0 = tt.splat %p : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>"),
    ),
    Case(
        "broadcast-rank",
        kernel("%0 = tt.broadcast %t : tensor<4xf32> -> tensor<4x4xf32>"),
        "3:10: error: rank of source must be same as rank of result",
        kernel("%e = tt.expand_dims %t {axis = 0 : i32} : tensor<4xf32> -> tensor<1x4xf32>\n"
               "%0 = tt.broadcast %e : tensor<1x4xf32> -> tensor<4x4xf32>"),
    ),
    Case(
        "broadcast-dimension",
        kernel("%e = tt.expand_dims %t {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>\n"
               "%0 = tt.broadcast %e : tensor<4x1xf32> -> tensor<8x4xf32>"),
        "4:10: error: Different dimensions at index 0 between source and "
        "result.  Broadcast requires the source dimension to be 1.",
        kernel("%e = tt.expand_dims %t {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>\n"
               "%0 = tt.broadcast %e : tensor<4x1xf32> -> tensor<4x8xf32>"),
    ),
    Case(
        "broadcast-element-type",
        kernel("%e = tt.expand_dims %t {axis = 0 : i32} : tensor<4xf32> -> tensor<1x4xf32>\n"
               "%0 = tt.broadcast %e : tensor<1x4xf32> -> tensor<4x4xf16>"),
        "4:10: error: 'tt.broadcast' op requires the same element type for all operands and "
        "results",
        kernel("%e = tt.expand_dims %t {axis = 0 : i32} : tensor<4xf32> -> tensor<1x4xf32>\n"
               "%0 = tt.broadcast %e : tensor<1x4xf32> -> tensor<4x4xf32>"),
    ),
    Case(
        "expand-dims-shape",
        kernel("%0 = tt.expand_dims %t {axis = 0 : i32} : tensor<4xf32> -> tensor<4x1xf32>"),
        "3:10: error: 'tt.expand_dims' op inferred type(s) with shape [1, 4] are incompatible "
        "with return type(s) of operation 'tensor<4x1xf32>'",
        kernel("%0 = tt.expand_dims %t {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>"),
    ),
    Case(  # (Triton's inference inserts past the shape: a garbage shape, or a crash at -1)
        "expand-dims-axis-out-of-range",
        kernel("%0 = tt.expand_dims %t {axis = 3 : i32} : tensor<4xf32> -> tensor<4x1xf32>"),
        "3:10: error: 'tt.expand_dims' op axis 3 is out of range for a tensor of rank 1",
        kernel("%0 = tt.expand_dims %t {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>"),
        triton_crashes=True,
    ),
    Case(  # (every integer property of Triton's ops is 32-bit)
        "integer-property-width",
        kernel("%0 = tt.expand_dims %t {axis = 1 : i16} : tensor<4xf32> -> tensor<4x1xf32>"),
        "3:28: error: custom op 'tt.expand_dims' 'tt.expand_dims' op attribute 'axis' failed to "
        "satisfy constraint: 32-bit signless integer attribute",
        kernel("%0 = tt.expand_dims %t {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>"),
    ),
    Case(
        "integer-property-width-generic",
        # (MLIR makes the properties as it reads the op: a value of another kind is refused
        # there; `isVolatile`: every release's, where `evict` is no property of 3.9's)
        kernel('%v = "tt.load"(%p) <{boundaryCheck = array<i32>, cache = 1 : i32, evict = 1 : i32, '
               'isVolatile = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0>}> : (!tt.ptr<f32>) -> f32'),
        "3:10: error: invalid properties {boundaryCheck = array<i32>, cache = 1 : i32, evict = "
        "1 : i32, isVolatile = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0>} for op tt.load: "
        "Invalid attribute `isVolatile` in property conversion: 1 : i32",
        kernel('%v = "tt.load"(%p) <{boundaryCheck = array<i32>, cache = 1 : i32, evict = 1 : i32, '
               'isVolatile = false, operandSegmentSizes = array<i32: 1, 0, 0>}> : (!tt.ptr<f32>) -> f32'),
    ),
    Case(
        "integer-array-property-width",
        kernel('"tt.store"(%p, %a) <{boundaryCheck = array<i1>, cache = 1 : i32, evict = 1 : i32}> : '
               "(!tt.ptr<f32>, f32) -> ()"),
        "3:5: error: invalid properties {boundaryCheck = array<i1>, cache = 1 : i32, evict = 1 : "
        "i32} for op tt.store: Invalid attribute `boundaryCheck` in property conversion: array<i1>",
        kernel('"tt.store"(%p, %a) <{boundaryCheck = array<i32>, cache = 1 : i32, evict = 1 : i32}> : '
               "(!tt.ptr<f32>, f32) -> ()"),
    ),
    Case(
        "inline-asm-packed-element",
        kernel('%o = tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", '
               "packed_element = 3 : i32, pure = true} %ti : tensor<4xi32> -> tensor<4xi32>"),
        "3:10: error: number of input elements 4 must be a "
        "multiple of the op's packed_element attribute, 3",
        kernel('%o = tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", '
               "packed_element = 2 : i32, pure = true} %ti : tensor<4xi32> -> tensor<4xi32>"),
    ),
    Case(  # (Triton reads it unsigned: -1 is 2**32 - 1; a scalar's 0 elements pass)
        "inline-asm-packed-element-negative",
        kernel('%o = tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", '
               "packed_element = -1 : i32, pure = true} %ti : tensor<4xi32> -> tensor<4xi32>"),
        "3:10: error: number of input elements 4 must be a "
        "multiple of the op's packed_element attribute, 4294967295",
        kernel('%o = tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", '
               "packed_element = -1 : i32, pure = true} %b : i32 -> i32"),
    ),
    Case(
        "reshape-element-count",
        kernel("%0 = tt.reshape %t : tensor<4xf32> -> tensor<2x4xf32>"),
        "3:10: error: number of src and dst elements of reshape must be the "
        "same",
        kernel("%0 = tt.reshape %t : tensor<4xf32> -> tensor<2x2xf32>"),
    ),
    Case(
        "trans-shape",
        kernel("%0 = tt.trans %x {order = array<i32: 1, 0>} : tensor<16x8xf16> -> "
               "tensor<16x8xf16>", args="%x: tensor<16x8xf16>"),
        "3:10: error: result shape must match the permutation of the source shape",
        kernel("%0 = tt.trans %x {order = array<i32: 1, 0>} : tensor<16x8xf16> -> "
               "tensor<8x16xf16>", args="%x: tensor<16x8xf16>"),
    ),
    Case(
        "join-operand-types",
        kernel('%0 = "tt.join"(%t, %ti) : (tensor<4xf32>, tensor<4xi32>) -> tensor<4x2xf32>'),
        "3:10: error: 'tt.join' op requires all operands to have the same type",
        kernel("%0 = tt.join %t, %t : tensor<4xf32> -> tensor<4x2xf32>"),
    ),
    Case(
        "make-range-size",
        kernel("%0 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<4xi32>"),
        "3:10: error: 'tt.make_range' op number of elements in returned tensor, 4, must match "
        "size of range [0, 8), which has 8 elements",
        kernel("%0 = tt.make_range {end = 12 : i32, start = 8 : i32} : tensor<4xi32>"),
        release="3.6",  # (2.1 verifies no range; 2.2 - 3.3 not its order)
    ),
    Case(
        "make-range-element-type",
        kernel("%0 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi64>"),
        "3:10: error: 'tt.make_range' op returned tensor must have i32 elements",
        kernel("%0 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>"),
        release="3.6",  # (2.1 verifies no range)
    ),
    Case(
        "make-range-rank",
        kernel("%0 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<2x2xi32>"),
        "3:10: error: 'tt.make_range' op return type must be a 1D tensor",
        kernel("%0 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>"),
        release="3.6",  # (2.1 verifies no range)
    ),
    Case(
        "make-range-empty",
        kernel("%0 = tt.make_range {end = 4 : i32, start = 4 : i32} : tensor<0xi32>"),
        "3:10: error: 'tt.make_range' op start must be less than end",
        kernel("%0 = tt.make_range {end = 5 : i32, start = 4 : i32} : tensor<1xi32>"),
        release="3.6",  # (2.1 verifies no range; 2.2 - 3.3 not its order)
    ),
    Case(
        "make-range-missing-start",
        kernel("%0 = tt.make_range {end = 4 : i32} : tensor<4xi32>"),
        "3:10: error: 'tt.make_range' op requires attribute 'start'",
        kernel("%0 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>"),
    ),
    Case(
        "tensor-size-power-of-two",
        kernel("%0 = tt.splat %a : f32 -> tensor<3xf32>"),
        "3:10: error: 'tt.splat' op number of elements must be power-of-two, but "
        "'tensor<3xf32>' has 3 elements",
        kernel("%c = arith.constant dense<1.0> : tensor<3xf32>\n"
               "%0 = arith.addf %c, %c : tensor<3xf32>"),
    ),
    Case(
        "tensor-size-maximum",
        kernel("%0 = tt.splat %a : f32 -> tensor<2097152xf32>"),
        "3:10: error: 'tt.splat' op maximum allowed number of elements is 1048576, but "
        "'tensor<2097152xf32>' has more than that",
        kernel("%0 = tt.splat %a : f32 -> tensor<1048576xf32>"),
    ),
    Case(
        "program-id-type",
        kernel("%0 = tt.get_program_id x : i64"),
        "3:10: error: 'tt.get_program_id' op result #0 must be 32-bit signless integer, but got "
        "'i64'",
        kernel("%0 = tt.get_program_id z : i32"),
    ),
    Case(
        "mulhiui-on-floats",
        kernel("%0 = tt.mulhiui %a, %a : f32"),
        "3:10: error: 'tt.mulhiui' op operand #0 must be integer or ranked tensor of integer "
        "values, but got 'f32'",
        kernel("%0 = tt.mulhiui %b, %b : i32"),
    ),
    Case(
        "precise-sqrt-on-integers",
        kernel("%0 = tt.precise_sqrt %b : i32"),
        "3:10: error: 'tt.precise_sqrt' op operand #0 must be floating-point or ranked tensor of "
        "floating-point values, but got 'i32'",
        kernel("%0 = tt.precise_sqrt %a : f32"),
    ),
    Case(
        "fp-to-fp-downcast-needs-rounding",
        kernel("%0 = tt.fp_to_fp %t : tensor<4xf32> -> tensor<4xf16>"),
        "3:10: error: Rounding mode is required for FP downcast",
        kernel("%0 = tt.fp_to_fp %t, rounding = rtne : tensor<4xf32> -> tensor<4xf16>"),
    ),
    Case(
        "tt-bitcast-width",
        kernel("%0 = tt.bitcast %t : tensor<4xf32> -> tensor<4xi64>"),
        "3:10: error: Cannot bitcast data-type of size 32 to data-type of size 64",
        kernel("%0 = tt.bitcast %t : tensor<4xf32> -> tensor<4xi32>"),
    ),
    Case(
        "int-to-ptr-from-i32",
        kernel("%0 = tt.int_to_ptr %b : i32 -> !tt.ptr<f32>"),
        "3:10: error: 'tt.int_to_ptr' op operand #0 must be 64-bit signless integer or tensor of "
        "64-bit signless integer values, but got 'i32'",
        kernel("%i = arith.extsi %b : i32 to i64\n%0 = tt.int_to_ptr %i : i64 -> !tt.ptr<f32>"),
    ),
    Case(
        "assert-condition-type",
        kernel('tt.assert %b, "x" : i32'),
        "3:5: error: 'tt.assert' op operand #0 must be 1-bit signless integer or tensor of "
        "1-bit signless integer values, but got 'i32'",
        kernel('tt.assert %m, "x" : tensor<4xi1>'),
    ),
    Case(
        "dot-result-type",
        kernel('%0 = "tt.dot"(%x, %x, %y) <{inputPrecision = 2 : i32, maxNumImpreciseAcc = '
               "0 : i32}> : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> "
               "tensor<16x16xf16>", args="%x: tensor<16x16xf16>, %y: tensor<16x16xf32>"),
        "3:10: error: 'tt.dot' op failed to verify that result's type matches accumulator's type",
        kernel("%0 = tt.dot %x, %x, %y : tensor<16x16xf16> * tensor<16x16xf16> -> "
               "tensor<16x16xf32>", args="%x: tensor<16x16xf16>, %y: tensor<16x16xf32>"),
    ),
    Case(
        "gather-axis",
        kernel("%0 = tt.gather %t[%ti] {axis = 1 : i32} : (tensor<4xf32>, tensor<4xi32>) -> "
               "tensor<4xf32>"),
        "3:10: error: 'tt.gather' op gather dimension must be less than the input rank",
        kernel("%0 = tt.gather %t[%ti] {axis = 0 : i32} : (tensor<4xf32>, tensor<4xi32>) -> "
               "tensor<4xf32>"),
    ),
    Case(
        "convert-layout-shape",
        gpu_kernel("%0 = ttg.convert_layout %t : tensor<128xf32, #blocked> -> "
                   "tensor<256xf32, #blocked1>"),
        "5:10: error: 'ttg.convert_layout' op requires the same shape for all operands and "
        "results",
        gpu_kernel("%0 = ttg.convert_layout %t : tensor<128xf32, #blocked> -> "
                   "tensor<128xf32, #blocked1>"),
        ".ttgir",
    ),
    Case(
        "convert-layout-element-type",
        gpu_kernel("%0 = ttg.convert_layout %t : tensor<128xf32, #blocked> -> "
                   "tensor<128xf16, #blocked1>"),
        "5:10: error: 'ttg.convert_layout' op requires the same element type for all operands "
        "and results",
        gpu_kernel("%0 = ttg.convert_layout %t : tensor<128xf32, #blocked> -> "
                   "tensor<128xf32, #blocked>"),
        ".ttgir",
    ),
    # ------------------------------------------------------------------ tt: reduce / scan
    Case(
        "reduce-combiner-arity",
        kernel(reduce_("%t", "tensor<4xf32>", "f32", 0, "%x: f32", "  tt.reduce.return %x : f32")),
        "3:10: error: 'tt.reduce' op nested block must take 2 arguments, but given block with 1 "
        "arguments",
        kernel(reduce_("%t", "tensor<4xf32>", "f32", 0, "%x: f32, %y: f32", ADD_F32)),
    ),
    Case(
        "reduce-combiner-argument-type",
        kernel(reduce_("%t", "tensor<4xf32>", "f32", 0, "%x: f16, %y: f16",
                       "  tt.reduce.return %x : f16")),
        "3:10: error: 'tt.reduce' op type mismatch on combine operation. Expected argument 0 to "
        "have type 'f32' but got 'f16'",
        kernel(reduce_("%t", "tensor<4xf32>", "f32", 0, "%x: f32, %y: f32", ADD_F32)),
    ),
    Case(
        "reduce-result-element-type",
        kernel(reduce_("%t", "tensor<4xf32>", "f16", 0, "%x: f32, %y: f32", ADD_F32)),
        "3:10: error: 'tt.reduce' op operand types and result types must agree",
        kernel(reduce_("%t", "tensor<4xf32>", "f32", 0, "%x: f32, %y: f32", ADD_F32)),
    ),
    Case(
        "reduce-result-shape",
        kernel(reduce_("%x", "tensor<4x8xf32>", "tensor<4xf32>", 0, "%u: f32, %v: f32",
                       "  tt.reduce.return %u : f32"), args="%x: tensor<4x8xf32>"),
        "3:10: error: 'tt.reduce' op inferred type(s) with shape [8] are incompatible with return "
        "type(s) of operation 'tensor<4xf32>'",
        kernel(reduce_("%x", "tensor<4x8xf32>", "tensor<8xf32>", 0, "%u: f32, %v: f32",
                       "  tt.reduce.return %u : f32"), args="%x: tensor<4x8xf32>"),
    ),
    Case(
        "reduce-combiner-results",
        kernel(reduce_("%t", "tensor<4xf32>", "f32", 0, "%x: f32, %y: f32",
                       "  tt.reduce.return %x, %y : f32, f32")),
        "3:10: error: 'tt.reduce' op expected combine operation to return 1 values but got 2",
        kernel(reduce_("%t", "tensor<4xf32>", "f32", 0, "%x: f32, %y: f32",
                       "  tt.reduce.return %y : f32")),
    ),
    Case(
        "reduce-result-count",
        kernel(reduce_("%t", "tensor<4xf32>", "()", 0, "%x: f32, %y: f32", ADD_F32)
               .replace("%r = ", "")),
        "3:5: error: 'tt.reduce' op must have the same number of inputs as outputs",
        kernel(reduce_("%t", "tensor<4xf32>", "f32", 0, "%x: f32, %y: f32", ADD_F32)),
    ),
    Case(
        "scan-result-shape",
        kernel('%r = "tt.scan"(%t) <{axis = 0 : i32, reverse = false}> ({\n'
               "^bb0(%x: f32, %y: f32):\n  tt.scan.return %x : f32\n"
               "}) : (tensor<4xf32>) -> tensor<8xf32>"),
        "3:10: error: 'tt.scan' op requires the same shape for all operands and results",
        kernel('%r = "tt.scan"(%t) <{axis = 0 : i32, reverse = true}> ({\n'
               "^bb0(%x: f32, %y: f32):\n  tt.scan.return %x : f32\n"
               "}) : (tensor<4xf32>) -> tensor<4xf32>"),
    ),
    # ------------------------------------------------------------------ functions, calls
    Case(
        "return-operand-count",
        kernel("%r = arith.constant 0 : i32", ret="tt.return %r : i32"),
        "4:5: error: 'tt.return' op has 1 operands, but enclosing function (@k) returns 0",
        kernel("%r = arith.constant 0 : i32", results="i32", ret="tt.return %r : i32"),
    ),
    Case(
        "return-operand-type",
        kernel("%r = arith.constant 0 : i64", results="i32", ret="tt.return %r : i64"),
        "4:5: error: type of return operand 0 ('i64') doesn't match function "
        "result type ('i32') in function @k",
        kernel("%r = arith.constant 0 : i64", results="i64", ret="tt.return %r : i64"),
    ),
    Case(
        "block-without-terminator",
        kernel("%r = arith.constant 0 : i32", ret=""),
        "3:10: error: block with no terminator, has 'arith.constant'",
        kernel("%r = arith.constant 0 : i32"),
    ),
    Case(
        "function-inside-function",
        "module {\n  tt.func @f() {\n    tt.func @g() {\n      tt.return\n    }\n"
        "    tt.return\n  }\n}\n",
        "3:5: error: 'tt.func' op expects parent op 'builtin.module'",
        "module {\n  tt.func @f() {\n    tt.return\n  }\n  tt.func @g() {\n    tt.return\n"
        "  }\n}\n",
    ),
    Case(
        "duplicate-function-name",
        "module {\n  tt.func @f() {\n    tt.return\n  }\n  tt.func @f() {\n    tt.return\n"
        "  }\n}\n",
        "5:3: error: redefinition of symbol named 'f'",
        "module {\n  tt.func @f() {\n    tt.return\n  }\n  tt.func @g() {\n    tt.return\n"
        "  }\n}\n",
    ),
    Case(
        "public-declaration",
        "module {\n  tt.func @f()\n}\n",
        "2:3: error: 'tt.func' op symbol declaration cannot have public visibility",
        "module {\n  tt.func private @f()\n}\n",
    ),
    Case(
        "call-unknown-function",
        kernel("tt.call @nope() : () -> ()"),
        "3:5: error: 'tt.call' op 'nope' does not reference a valid function",
        "module {\n  tt.func private @g(%x: i32) -> i32\n  tt.func @k(%a: i32) {\n"
        "    %0 = tt.call @g(%a) : (i32) -> i32\n    tt.return\n  }\n}\n",
    ),
    Case(
        "call-operand-type",
        "module {\n  tt.func private @g(%x: i32) -> i32\n  tt.func @k(%a: f32) {\n"
        "    %0 = tt.call @g(%a) : (f32) -> i32\n    tt.return\n  }\n}\n",
        "4:10: error: 'tt.call' op operand type mismatch: expected operand type 'i32', but "
        "provided 'f32' for operand number 0",
        "module {\n  tt.func private @g(%x: i32) -> i32\n  tt.func @k(%a: i32) {\n"
        "    %0 = tt.call @g(%a) : (i32) -> i32\n    tt.return\n  }\n}\n",
    ),
    # ------------------------------------------------------------------ terminators, parents
    Case(
        "yield-outside-scf",
        kernel("scf.yield"),
        "3:5: error: 'scf.yield' op expects parent op to be one of 'scf.for', 'scf.if', "
        "'scf.execute_region', 'scf.while', 'scf.index_switch'",
        kernel("%c = arith.constant true\nscf.if %c {\n  scf.yield\n}"),
    ),
    Case(
        "reduce-return-outside-reduce",
        kernel("tt.reduce.return %a : f32"),
        "3:5: error: 'tt.reduce.return' op expects parent op 'tt.reduce'",
        kernel(reduce_("%t", "tensor<4xf32>", "f32", 0, "%x: f32, %y: f32", ADD_F32)),
    ),
    Case(
        "condition-outside-while",
        kernel(LOOP + "scf.for %i = %lb to %ub step %st : i32 {\n"
               "  %c = arith.constant true\n  scf.condition(%c)\n}"),
        # (xDSL's scf.for checks its terminator on entry; scf.condition's own parent rule:
        # test_upstream_dialects.py)
        "6:5: error: 'scf.for' op expects regions to end with 'scf.yield', found 'scf.condition'",
        kernel(LOOP + "scf.for %i = %lb to %ub step %st : i32 {\n"
               "  %c = arith.constant true\n}"),
    ),
    Case(
        "terminator-not-last",
        kernel("%c = arith.constant true\nscf.if %c {\n  scf.yield loc(\"k.py\":1:1)\n"
               "  %z = arith.addf %a, %a : f32\n}"),
        "5:7: error: 'scf.yield' op must be the last operation in the parent block",
        kernel("%c = arith.constant true\nscf.if %c {\n  %z = arith.addf %a, %a : f32\n"
               "  scf.yield\n}"),
    ),
    # ------------------------------------------------------------------ scf
    Case(
        "for-yield-type",
        kernel(LOOP + "%r = scf.for %i = %lb to %ub step %st iter_args(%x = %a) -> (f32) "
               ": i32 {\n  %y = arith.sitofp %i : i32 to f16\n  scf.yield %y : f16\n}"),
        "6:10: error: 'scf.for' op along control flow edge from Region #0 to Region #0: source "
        "type #0 'f16' should match input type #0 'f32'",
        kernel(LOOP + "%r = scf.for %i = %lb to %ub step %st iter_args(%x = %a) -> (f32) "
               ": i32 {\n  %y = arith.sitofp %i : i32 to f32\n  scf.yield %y : f32\n}"),
    ),
    Case(
        "for-yield-count",
        kernel(LOOP + "%r = scf.for %i = %lb to %ub step %st iter_args(%x = %a) -> (f32) "
               ": i32 {\n  scf.yield\n}"),
        "6:10: error: 'scf.for' op region control flow edge from Region #0 to Region #0: source "
        "has 0 operands, but target successor needs 1",
        kernel(LOOP + "%r = scf.for %i = %lb to %ub step %st iter_args(%x = %a) -> (f32) "
               ": i32 {\n  scf.yield %x : f32\n}"),
    ),
    Case(
        "for-init-type",
        kernel(LOOP + '%r = "scf.for"(%lb, %ub, %st, %b) ({\n^bb0(%i: i32, %x: f32):\n'
               "  scf.yield %x : f32\n}) : (i32, i32, i32, i32) -> f32"),
        "6:10: error: 'scf.for' op 0-th init and 0-th region iter_arg have different type: "
        "'i32' != 'f32'",
        kernel(LOOP + '%r = "scf.for"(%lb, %ub, %st, %a) ({\n^bb0(%i: i32, %x: f32):\n'
               "  scf.yield %x : f32\n}) : (i32, i32, i32, f32) -> f32"),
    ),
    Case(
        "for-induction-variable-type",
        kernel(LOOP + '"scf.for"(%lb, %ub, %st) ({\n^bb0(%i: i64):\n  scf.yield\n'
               "}) : (i32, i32, i32) -> ()"),
        "6:5: error: 'scf.for' op expected induction variable to be same type as bounds and "
        "step",
        kernel(LOOP + '"scf.for"(%lb, %ub, %st) ({\n^bb0(%i: i32):\n  scf.yield\n'
               "}) : (i32, i32, i32) -> ()"),
    ),
    Case(
        "for-float-bounds",
        kernel("scf.for %i = %a to %a step %a : f32 {\n}"),
        "3:5: error: 'scf.for' op operand #0 must be signless integer or index, but got 'f32'",
        kernel("%i0 = arith.constant 0 : index\nscf.for %i = %i0 to %i0 step %i0 {\n}"),
    ),
    Case(
        "if-results-without-else",
        kernel("%c = arith.constant true\n%r = scf.if %c -> (f32) {\n  scf.yield %a : f32\n}"),
        "4:10: error: 'scf.if' op must have an else block if defining values",
        kernel("%c = arith.constant true\n%r = scf.if %c -> (f32) {\n  scf.yield %a : f32\n"
               "} else {\n  scf.yield %a : f32\n}"),
    ),
    Case(
        "if-yield-type",
        kernel("%c = arith.constant true\n%r = scf.if %c -> (f32) {\n  scf.yield %a : f32\n"
               "} else {\n  scf.yield %b : i32\n}"),
        "4:10: error: 'scf.if' op along control flow edge from Region #1 to parent results: "
        "source type #0 'i32' should match input type #0 'f32'",
        kernel("%c = arith.constant true\n%r = scf.if %c -> (f32) {\n  scf.yield %a : f32\n"
               "} else {\n  scf.yield %a : f32\n}"),
    ),
    Case(
        "while-condition-types",
        kernel("%r = scf.while (%x = %a) : (f32) -> f32 {\n  %c = arith.constant true\n"
               "  scf.condition(%c) %b : i32\n} do {\n^bb0(%y: f32):\n  scf.yield %y : f32\n}"),
        "3:10: error: 'scf.while' op along control flow edge from Region #0 to parent results: "
        "source type #0 'i32' should match input type #0 'f32'",
        kernel("%r = scf.while (%x = %a) : (f32) -> f32 {\n  %c = arith.constant true\n"
               "  scf.condition(%c) %x : f32\n} do {\n^bb0(%y: f32):\n  scf.yield %y : f32\n}"),
    ),
    Case(
        "while-yield-types",
        kernel("%r = scf.while (%x = %a) : (f32) -> f32 {\n  %c = arith.constant true\n"
               "  scf.condition(%c) %x : f32\n} do {\n^bb0(%y: f32):\n  scf.yield %b : i32\n}"),
        "3:10: error: 'scf.while' op along control flow edge from Region #1 to Region #0: "
        "source type #0 'i32' should match input type #0 'f32'",
        kernel("%r = scf.while (%x = %a) : (f32) -> f32 {\n  %c = arith.constant true\n"
               "  scf.condition(%c) %x : f32\n} do {\n^bb0(%y: f32):\n  scf.yield %y : f32\n}"),
    ),
    Case(
        "while-before-terminator",
        kernel("%r = scf.while (%x = %a) : (f32) -> f32 {\n  scf.yield %x : f32\n"
               "} do {\n^bb0(%y: f32):\n  scf.yield %y : f32\n}"),
        "3:10: error: 'scf.while' op expects the 'before' region to terminate with "
        "'scf.condition'",
        kernel("%r = scf.while (%x = %a) : (f32) -> f32 {\n  %c = arith.constant true\n"
               "  scf.condition(%c) %x : f32\n} do {\n^bb0(%y: f32):\n  scf.yield %y : f32\n}"),
    ),
    # ------------------------------------------------------------------ dominance
    Case(
        "use-before-definition",
        kernel("%0 = arith.addf %1, %a : f32\n%1 = arith.addf %a, %a : f32"),
        "3:10: error: operand #0 does not dominate this use",
        kernel("%1 = arith.addf %a, %a : f32\n%0 = arith.addf %1, %a : f32"),
        ours_only=True,
    ),
    Case(
        "use-in-own-region",
        kernel("%c = arith.constant true\n%r = scf.if %c -> (f32) {\n  scf.yield %r : f32\n"
               "} else {\n  scf.yield %a : f32\n}"),
        "5:7: error: operand #0 does not dominate this use",
        kernel("%c = arith.constant true\n%r = scf.if %c -> (f32) {\n  scf.yield %a : f32\n"
               "} else {\n  scf.yield %a : f32\n}"),
        ours_only=True,
    ),
    Case(
        "use-before-definition-from-nested-region",
        kernel("%c = arith.constant true\nscf.if %c {\n  %z = arith.addf %w, %w : f32\n}\n"
               "%w = arith.addf %a, %a : f32"),
        "5:12: error: operand #0 does not dominate this use",
        kernel("%c = arith.constant true\n%w = arith.addf %a, %a : f32\nscf.if %c {\n"
               "  %z = arith.addf %w, %w : f32\n}"),
        ours_only=True,
    ),
    # ------------------------------------------------------------------ location aliases
    Case(
        "loc-alias-inside-function",
        "#loc = loc(\"k.py\":1:0)\nmodule {\n  tt.func @k() {\n#loc1 = loc(\"k.py\":2:0)\n"
        "    tt.return loc(#loc1)\n  } loc(#loc)\n} loc(#loc)\n",
        "4:1: error: location alias definition '#loc1' inside an operation (MLIR reads alias "
        "definitions only at the top level, between operations)",
        "#loc = loc(\"k.py\":1:0)\nmodule {\n  tt.func @k() {\n"
        "    tt.return loc(#loc1)\n  } loc(#loc)\n} loc(#loc)\n#loc1 = loc(\"k.py\":2:0)\n",
        ours_only=True,
    ),
    Case(
        "loc-alias-used-in-alias-above-its-definition",
        "#loc1 = loc(\"name\"(#loc))\nmodule {\n  tt.func @k() {\n    tt.return loc(#loc1)\n"
        "  } loc(#loc)\n} loc(#loc)\n#loc = loc(\"k.py\":1:0)\n",
        "1:20: error: location alias '#loc' is used before its definition (a location alias may "
        "refer only to aliases defined above it)",
        "module {\n  tt.func @k() {\n    tt.return loc(#loc1)\n  } loc(#loc)\n} loc(#loc)\n"
        "#loc = loc(\"k.py\":1:0)\n#loc1 = loc(\"name\"(#loc))\n",
        ours_only=True,
    ),
    Case(
        "loc-alias-used-in-location-above-its-definition",
        "module {\n  tt.func @k(%x: f32 loc(\"x\"(#loc))) {\n    tt.return\n  } loc(#loc)\n"
        "} loc(#loc)\n#loc = loc(\"k.py\":1:0)\n",
        "2:30: error: location alias '#loc' is used inside a location before its definition "
        "(MLIR resolves only a whole 'loc(#alias)' later)",
        "#loc = loc(\"k.py\":1:0)\nmodule {\n  tt.func @k(%x: f32 loc(\"x\"(#loc))) {\n"
        "    tt.return\n  } loc(#loc)\n} loc(#loc)\n",
        ours_only=True,
    ),
]


def _error(text: str, suffix: str, release: str | None = None) -> str | None:
    try:
        read_module(text, "t" + suffix, triton_version=release)
    except TTOptError as e:
        return str(e)
    return None


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_rule(case: Case):
    assert _error(case.bad, case.suffix, case.release) == f"t{case.suffix}:{case.error}"
    if case.triton_crashes:  # (refused or aborted: never accepted)
        proc = subprocess.run([sys.executable, "-m", "ttopt.oracle", "-"], input=case.bad,
                              capture_output=True, text=True)
        assert proc.returncode != 0, "Triton 3.6 accepts the invalid input"
    else:
        assert not triton_accepts(case.bad, case.suffix).ok, "Triton 3.6 accepts the invalid input"
    assert _error(case.good, case.suffix) is None
    assert triton_accepts(case.good, case.suffix).ok, "Triton 3.6 rejects the valid neighbour"


@pytest.mark.parametrize(
    "case", [c for c in CASES if not c.ours_only], ids=[c.id for c in CASES if not c.ours_only]
)
def test_xdsl_verify_agrees(case: Case):
    """xDSL's own ``Operation.verify()`` (IRDL constraints + each op's ``verify_``) reaches the
    same verdict as the walker: the rules live with the ops, not in the walker."""
    bad = read_module(case.bad, "t" + case.suffix, verify=False, triton_version=case.release)
    with pytest.raises(TTOptError):
        verify_module(bad, xdsl=True)
    from ttopt.ir.verify import _run_xdsl_verify

    with pytest.raises(Exception):
        _run_xdsl_verify(bad.op)
    good = read_module(case.good, "t" + case.suffix, verify=False)
    verify_module(good, xdsl=True)


def test_generic_form_may_carry_properties_ttopt_does_not_model():
    """MLIR ignores a property an op does not define (the op having properties): so does
    ttopt, in generic form (``tt.reduce``'s ``foo``, ``tt.extern_elementwise``'s ``libname``
    that ttopt keeps as a plain attribute)."""
    texts = [
        kernel('%r = "tt.reduce"(%t) <{axis = 0 : i32, foo = 1 : i32}> ({\n'
               "^bb0(%x: f32, %y: f32):\n  tt.reduce.return %x : f32\n"
               "}) : (tensor<4xf32>) -> f32"),
        kernel('%0 = "tt.extern_elementwise"(%a) <{libname = "", libpath = "", pure = true, '
               'symbol = "foo"}> : (f32) -> f32'),
        kernel('%0 = "tt.dot"(%x, %x, %y) <{inputPrecision = 2 : i32, maxNumImpreciseAcc = '
               "0 : i32}> : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> "
               "tensor<16x16xf32>", args="%x: tensor<16x16xf16>, %y: tensor<16x16xf32>"),
    ]
    for text in texts:
        assert triton_accepts(text, ".ttir").ok
        assert _error(text, ".ttir") is None


def test_what_triton_does_not_check_is_not_rejected():
    """Rules one might expect but Triton 3.6's verifier does not enforce: ttopt accepts what
    Triton accepts (a reduction axis past the rank; a block with only a `tt.return`)."""
    texts = [
        kernel(reduce_("%t", "tensor<4xf32>", "f32", 1, "%x: f32, %y: f32", ADD_F32)),
        kernel('%r = "tt.scan"(%t) <{axis = 3 : i32, reverse = false}> ({\n'
               "^bb0(%x: f32, %y: f32):\n  tt.scan.return %x : f32\n"
               "}) : (tensor<4xf32>) -> tensor<4xf32>"),
        kernel("%c = arith.constant dense<1.0> : tensor<3xf32>"),  # (only tt ops: powers of 2)
    ]
    for text in texts:
        assert triton_accepts(text, ".ttir").ok
        assert _error(text, ".ttir") is None


# (loc-alias cases fail in the reader; a custom-form op's refused attribute is the custom
# parser's error in MLIR, "custom op 'NAME' ..." at the dictionary: read_module's alone, where
# the verifier's walk, after a pass, has no prefix)
WALKED = [c for c in CASES if not c.id.startswith("loc-alias") and "error: custom op" not in c.error]


@pytest.mark.parametrize("case", WALKED, ids=[c.id for c in WALKED])
def test_verify_module_walks_what_read_module_checked_while_parsing(case: Case):
    """``verify_module`` (the whole walk, dominance included) on a module read unverified
    gives read_module's error: the parser's record of forward references (what read_module
    uses for dominance) and the walk agree."""
    mod = read_module(case.bad, "t" + case.suffix, verify=False, triton_version=case.release)
    with pytest.raises(TTOptError) as e:
        verify_module(mod)
    assert str(e.value) == f"t{case.suffix}:{case.error}"


def test_verify_module_catches_what_a_pass_breaks():
    """After a (buggy) rewrite moves an op above the definition of its operand, the public
    ``verify_module`` walks the dominance again (no stale record from the reader)."""
    text = kernel("%x = arith.addf %a, %a : f32\n%y = arith.mulf %x, %a : f32")
    mod = read_module(text, "t.ttir")
    ops = list(mod.op.walk())
    x = next(o for o in ops if o.name == "arith.addf")
    y = next(o for o in ops if o.name == "arith.mulf")
    y.detach()
    x.parent.insert_op_before(y, x)
    with pytest.raises(TTOptError) as e:
        verify_module(mod)
    assert str(e.value) == "t.ttir:4:10: error: operand #0 does not dominate this use"


def test_verify_false_skips_the_verifier():
    case = next(c for c in CASES if c.id == "use-before-definition")
    read_module(case.bad, "t.ttir", verify=False)  # no error
    with pytest.raises(TTOptError):
        read_module(case.bad, "t.ttir")


def test_error_points_at_the_op_in_the_input_with_crlf_and_comments():
    text = kernel("// a comment\n%0 = arith.addf %b, %b : i32").replace("\n", "\r\n")
    assert _error(text, ".ttir") == (
        "t.ttir:4:10: error: 'arith.addf' op operand #0 must be floating-point-like, but got 'i32'"
    )


def test_every_op_of_the_fixtures_is_verified_and_accepted(fixture_texts):
    """The fixtures (real Triton IR) pass, through the walker and through xDSL's verify()."""
    for name, text in fixture_texts:
        mod = read_module(text, name)
        verify_module(mod, xdsl=True)


@pytest.fixture(scope="module")
def fixture_texts():
    from conftest import fixture_files

    return [(str(p), p.read_text()) for p in fixture_files()]


# ---------------------------------------------------------------- --no-verify, --verify-each
_ILL_TYPED = """module {
  tt.func public @k(%a: f32, %b: i32) {
    %c = "arith.addf"(%a, %b) : (f32, i32) -> f32
    tt.return
  }
}
"""


def test_no_verify_skips_the_checks(tmp_path):
    import subprocess
    import sys

    from conftest import ROOT

    f = tmp_path / "k.ttir"
    f.write_text(_ILL_TYPED)
    run = lambda *a: subprocess.run([sys.executable, "-m", "ttopt.cli", str(f), *a],  # noqa: E731
                                    capture_output=True, text=True, cwd=ROOT, timeout=120)
    checked = run()
    assert checked.returncode == 1
    assert checked.stderr.strip() == (
        f"{f}:3:10: error: 'arith.addf' op operand #1 must be floating-point-like, but got 'i32'"
    )
    unchecked = run("--no-verify")
    assert unchecked.returncode == 0, unchecked.stderr
    assert unchecked.stdout == _ILL_TYPED  # written back as it was read


def test_verify_each_blames_the_pass_that_broke_the_ir():
    """A planted bug: a pass that drops every terminator.  Without --verify-each its output is
    printed; with it, the run is an internal error naming the pass."""
    from xdsl.passes import ModulePass

    from ttopt.dialects.tt import ReturnOp

    @dataclass(frozen=True)
    class DropReturns(ModulePass):
        name = "drop-returns"

        def apply(self, ctx, op):
            for ret in [o for o in op.walk() if isinstance(o, ReturnOp)]:
                ret.detach()
                ret.erase()

    text = _ILL_TYPED.replace('"arith.addf"(%a, %b) : (f32, i32) -> f32', "arith.addf %a, %a : f32")
    out = ttopt.run_pipeline(text, [DropReturns()]).text
    assert "tt.return" not in out
    with pytest.raises(TTOptInternalError, match=r"in pass 'drop-returns' \(its output does not verify\)"):
        ttopt.run_pipeline(text, [DropReturns()], verify_each=True)
    assert ttopt.run_pipeline(text, ["redundant-load"], verify_each=True).text == ttopt.optimize(text, [])


# An op's operand named by a value defined inside the op itself (in its region, or as its
# region's argument): MLIR resolves an op's operands after its regions (`scf.if` its
# condition before them, and then leaves it unlinked), so such a definition never serves:
# the name is undefined, or, defined later above the op, does not dominate the use.
# (xDSL's custom parsers resolved it from inside the region: accepted, or an internal error
# printing an op whose operand stayed a placeholder.)  Each with its valid neighbour: the
# value defined before the op.
FOR_HEAD = "%c1 = arith.constant 1 : i32\n%c4 = arith.constant 4 : i32\n"  # lines 3-4
C0 = "%c0 = arith.constant 0 : i32\n"
REDUCE_X = (
    '%r = "tt.reduce"(%x) <{axis = 0 : i32}> ({\n^bb0(%u: f32, %v: f32):\nINNER'
    "  %s = arith.addf %u, %v : f32\n  tt.reduce.return %s : f32\n}) : (tensor<4xf32>) -> f32"
)
X = "%x = arith.constant dense<1.0> : tensor<4xf32>\n"
OWN_REGION = [
    ("for-bound-in-body",
     FOR_HEAD + "scf.for %i = %c0 to %c4 step %c1 : i32 {\n  " + C0 + "}",
     "5:18: error: use of undefined value '%c0'",
     FOR_HEAD + C0 + "scf.for %i = %c0 to %c4 step %c1 : i32 {\n  %c0_1 = arith.constant 0 : i32\n}"),
    ("for-bound-is-its-induction-variable",
     FOR_HEAD + "scf.for %i = %c1 to %i step %c1 : i32 {\n}",
     "5:25: error: use of undefined value '%i'",
     FOR_HEAD + "%i = arith.constant 2 : i32\nscf.for %j = %c1 to %i step %c1 : i32 {\n}"),
    ("for-bound-in-body-used-there-first",
     FOR_HEAD + "scf.for %i = %c0 to %c4 step %c1 : i32 {\n  %y = arith.addi %c0, %c1 : i32\n"
     "  " + C0 + "}",
     "5:18: error: use of undefined value '%c0'",
     FOR_HEAD + C0 + "scf.for %i = %c0 to %c4 step %c1 : i32 {\n  %y = arith.addi %c0, %c1 : i32\n}"),
    ("if-condition-in-then",
     "scf.if %c {\n  %c = arith.constant true\n}",
     "3:12: error: use of undefined value '%c'",
     "%c = arith.constant true\nscf.if %c {\n  %d = arith.constant true\n}"),
    ("reduce-operand-in-combiner",
     REDUCE_X.replace("INNER", "  " + X),
     "3:22: error: use of undefined value '%x'",
     X + REDUCE_X.replace("INNER", "")),
    ("for-bound-in-body-and-below",
     FOR_HEAD + "scf.for %i = %c0 to %c4 step %c1 : i32 {\n  " + C0 + "}\n" + C0,
     "5:5: error: operand #0 does not dominate this use",
     FOR_HEAD + C0 + "scf.for %i = %c0 to %c4 step %c1 : i32 {\n  %c0_1 = arith.constant 0 : i32\n}"),
    ("if-condition-in-then-and-in-a-dominating-block",  # (MLIR resolved it before the region)
     "cf.br ^bb1\n^bb2:\nscf.if %c {\n  %c = arith.constant true\n}\ntt.return\n^bb1:\n"
     "%c = arith.constant false\ncf.cond_br %c, ^bb2, ^bb3\n^bb3:",
     "5:5: error: operation's operand is unlinked",
     "cf.br ^bb1\n^bb2:\nscf.if %c {\n  %d = arith.constant true\n}\ntt.return\n^bb1:\n"
     "%c = arith.constant false\ncf.cond_br %c, ^bb2, ^bb3\n^bb3:"),
    ("if-condition-in-then-and-below",
     "scf.if %c {\n  %c = arith.constant true\n}\n%c = arith.constant false",
     "3:5: error: operation's operand is unlinked",
     "%c = arith.constant false\nscf.if %c {\n  %d = arith.constant true\n}"),
]


@pytest.mark.parametrize("case", OWN_REGION, ids=[c[0] for c in OWN_REGION])
def test_an_operand_defined_inside_its_own_op_is_not_defined(case):
    _, body, error, good_body = case
    bad, good = kernel(body), kernel(good_body)
    assert _error(bad, ".ttir") == f"t.ttir:{error}"
    assert not triton_accepts(bad, ".ttir").ok
    for passes in (["hoist-load"], ["redundant-load", "redundant-reduce", "div-chain"]):
        with pytest.raises(TTOptError) as e:  # (a pass printed it: an internal error)
            ttopt.optimize(bad, passes, "t.ttir")
        assert not isinstance(e.value, TTOptInternalError)
    assert _error(good, ".ttir") is None, good
    assert triton_accepts(good, ".ttir").ok, good


# Dominance in a region of several blocks (a function with `cf` branches): the block that
# defines a value must dominate the block of its use, in the branches' graph (a use in a
# block the entry does not reach is never wrong); in one block, the definition comes first.
# Each: the body (the function's arguments %p, %t, %f) and the error, or None: valid.
_CF_T = "tt.store %p, %c : !tt.ptr<f32>"
CFG = [
    ("entry-to-both-branches", "%c = arith.constant 1.0 : f32\ncf.cond_br %t, ^bb1, ^bb2\n"
     f"^bb1:\n{_CF_T}\ntt.return\n^bb2:\n{_CF_T}\ntt.return", None),
    ("block-argument-to-dominated-block", "cf.br ^bb1(%f : f32)\n^bb1(%x: f32):\n"
     "cf.cond_br %t, ^bb2, ^bb3\n^bb2:\ntt.store %p, %x : !tt.ptr<f32>\ntt.return\n^bb3:\ntt.return", None),
    ("loop-header-to-body", "cf.br ^bb1\n^bb1:\n%c = arith.constant 1.0 : f32\ncf.br ^bb2\n"
     f"^bb2:\n{_CF_T}\ncf.cond_br %t, ^bb1, ^bb3\n^bb3:\ntt.return", None),
    ("loop-body-to-header", "cf.br ^bb1\n^bb1:\n" + _CF_T + "\ncf.br ^bb2\n^bb2:\n"
     "%c = arith.constant 1.0 : f32\ncf.cond_br %t, ^bb1, ^bb3\n^bb3:\ntt.return",
     "5:5: error: operand #1 does not dominate this use"),
    ("use-in-unreachable-block", "cf.cond_br %t, ^bb1, ^bb2\n^bb1:\n%c = arith.constant 1.0 : f32\n"
     f"tt.return\n^bb2:\ntt.return\n^bb3:\n{_CF_T}\ntt.return", None),
    ("forward-in-a-later-block", f"cf.br ^bb1\n^bb1:\n{_CF_T}\n%c = arith.constant 1.0 : f32\ntt.return",
     "5:5: error: operand #1 does not dominate this use"),
    ("forward-in-the-entry-block", f"{_CF_T}\n%c = arith.constant 1.0 : f32\ncf.br ^bb1\n^bb1:\ntt.return",
     "3:5: error: operand #1 does not dominate this use"),
    ("sibling-branch-into-nested-region", "cf.cond_br %t, ^bb1, ^bb2\n^bb1:\n"
     "%c = arith.constant 1.0 : f32\ntt.return\n^bb2:\nscf.if %t {\n  " + _CF_T + "\n}\ntt.return",
     "9:7: error: operand #1 does not dominate this use"),
    ("entry-into-nested-region", "%c = arith.constant 1.0 : f32\ncf.cond_br %t, ^bb1, ^bb2\n"
     "^bb1:\ntt.return\n^bb2:\nscf.if %t {\n  " + _CF_T + "\n}\ntt.return", None),
    ("one-side-of-a-diamond", "cf.cond_br %t, ^bb1, ^bb2\n^bb1:\n%c = arith.constant 1.0 : f32\n"
     f"cf.br ^bb3\n^bb2:\ncf.br ^bb3\n^bb3:\n{_CF_T}\ntt.return",
     "10:5: error: operand #1 does not dominate this use"),
    ("from-a-sibling-branch", "cf.cond_br %t, ^bb1, ^bb2\n^bb1:\n%c = arith.constant 1.0 : f32\n"
     f"tt.return\n^bb2:\n{_CF_T}\ntt.return",
     "8:5: error: operand #1 does not dominate this use"),
]


@pytest.mark.parametrize("case", CFG, ids=[c[0] for c in CFG])
def test_dominance_across_blocks_is_mlirs(case):
    """(Was never checked: a value of one branch used in the other was accepted.)"""
    _, body, error = case
    text = kernel(body, args="%p: !tt.ptr<f32>, %t: i1, %f: f32", ret="")
    expected = None if error is None else f"t.ttir:{error}"
    assert _error(text, ".ttir") == expected
    assert triton_accepts(text, ".ttir").ok == (error is None)
    # verify_module (after a pass) has the rule too
    mod = read_module(text, "t.ttir", verify=False)
    if error is None:
        verify_module(mod, xdsl=True)
    else:
        with pytest.raises(TTOptError, match="does not dominate this use"):
            verify_module(mod)


def test_dominator_tree_equals_the_definition_on_random_graphs():
    """``dominator_intervals`` (Lengauer-Tarjan) against the definition: d dominates u iff
    every path from the entry to u passes d (u is unreachable once d is removed)."""
    import random

    from ttopt.ir.verify import dominator_intervals

    def reach(succ, skip):
        seen, stack = ({0} if skip != 0 else set()), ([0] if skip != 0 else [])
        while stack:
            for t in succ[stack.pop()]:
                if t != skip and t not in seen:
                    seen.add(t)
                    stack.append(t)
        return seen

    rng = random.Random(7)
    for _ in range(400):
        n = rng.randint(1, 12)
        succ = [rng.sample(range(n), rng.randint(0, min(3, n))) for _ in range(n)]
        tin, tout, reachable = dominator_intervals(succ)
        assert reachable == reach(succ, -1)
        for d in reachable:
            without = reach(succ, d)
            for u in reachable:
                dominates = tin[d] <= tin[u] and tout[u] <= tout[d]
                assert dominates == (u == d or u not in without), (succ, d, u)


@pytest.mark.parametrize("outer_cfg", [False, True])
def test_the_block_graph_walk_is_linear_in_the_nesting(monkeypatch, outer_cfg):
    """Nested ``scf.if`` (an empty else region each) took a dominance walk from every level:
    the empty region counted as a region of several blocks, and the walks came innermost
    first, so none was skipped (1,000 levels: 3.6 s, quadratic).  Now an op is walked once,
    only where a region has several blocks.  With the nest in a function of two blocks, a
    use deep inside it of a value from the other branch is still an error."""
    from ttopt.ir import verify
    from ttopt.pipeline import run_deep

    walks = []
    real = verify._CfgWalk.op
    monkeypatch.setattr(verify._CfgWalk, "op", lambda self, op: (walks.append(op), real(self, op))[1])
    depth = 300
    nest = "scf.if %t {\n" * depth + _CF_T + "\n" + "}\n" * depth
    if outer_cfg:
        body = ("cf.cond_br %t, ^bb1, ^bb2\n^bb1:\n%c = arith.constant 1.0 : f32\ntt.return\n"
                "^bb2:\n" + nest + "tt.return")
    else:
        body = "%c = arith.constant 1.0 : f32\n" + nest + "tt.return"
    text = kernel(body, args="%p: !tt.ptr<f32>, %t: i1, %f: f32", ret="")
    error = run_deep(_error, text, ".ttir")  # (the nesting needs the deep stack)
    if outer_cfg:
        assert error == f"t.ttir:{8 + depth}:5: error: operand #1 does not dominate this use"
        # each op with regions once, up to the error (the function, the 300 scf.if)
        assert len({id(op) for op in walks}) == len(walks) <= depth + 5
    else:
        assert error is None
        assert walks == []  # (no region of several blocks: no walk)


# Triton's TT_Float / TT_Int element types (tt.splat's operand, TT_Tensor's elements): what
# Triton 3.6 takes.  f8E4M3B11FNUZ only Triton 2.1-2.3 take: these kernels are 3.x texts (by
# their syntax), which every 3.x release refuses it in, so ttopt does too (the releases a text
# may come from decide: test_element_types.py has the 2.x cases)
_ELEMENT_TYPES = ["i1", "i2", "i4", "i7", "i8", "i16", "i32", "i64", "i128", "index", "bf16", "f16",
                  "f32", "f64", "tf32", "f80", "f8E4M3FN", "f8E4M3FNUZ", "f8E5M2", "f8E5M2FNUZ",
                  "f8E4M3B11FNUZ", "f8E4M3", "f8E3M4", "f6E2M3FN", "f8E8M0FNU", "f4E2M1FN"]
_OLDER_RELEASES_ONLY = {"f8E4M3B11FNUZ"}


@pytest.mark.parametrize("op", ["splat", "broadcast"])
@pytest.mark.parametrize("t", _ELEMENT_TYPES)
def test_triton_element_types_are_triton_s(op, t):
    if op == "splat":
        text = kernel(f"%s = tt.splat %x : {t} -> tensor<4x{t}>", args=f"%x: {t}")
    else:
        text = kernel(f"%s = tt.broadcast %x : tensor<1x{t}> -> tensor<4x{t}>", args=f"%x: tensor<1x{t}>")
    ours = _error(text, ".ttir")
    if t in _OLDER_RELEASES_ONLY:
        assert ours is not None and "operand #0 must be" in ours and f"{t}" in ours, ours
        assert not triton_accepts(text, ".ttir").ok
        return
    assert (ours is None) == triton_accepts(text, ".ttir").ok, ours
    if ours is not None:
        assert "operand #0 must be" in ours, ours
