"""Triton's type rules of ``tt.atomic_rmw`` / ``tt.atomic_cas`` (TT_PtrLike, TT_Type,
TT_BoolLike, the TypesMatchWith pairs, SameOperandsAndResultShape, then
SameOperandsAndResultEncoding): ttopt had none, and accepted an atomic whose result had
another shape than its operands (found by this round's semantic fuzzing).  Each case asks
Triton 3.6: the verdict, the line and the words."""

from __future__ import annotations


import pytest

from conftest import triton_refusal, ttopt_refusal

HEAD = (
    '#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>\n'
    '#blocked1 = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>\n'
    'module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", '
    '"ttg.threads-per-warp" = 32 : i32} {\n'
    "  tt.func public @f(%p: !tt.ptr<f32>, %pi: !tt.ptr<i32>, %v: f32, %vi: i32, %m: i1, "
    "%tp: tensor<128x!tt.ptr<f32>, #blocked>, %tv: tensor<128xf32, #blocked>, "
    "%tm: tensor<128xi1, #blocked>, %tv1: tensor<128xf32, #blocked1>, %tv64: tensor<64xf32, #blocked>) {\n"
)


def _module(line: str) -> str:
    return HEAD + "    " + line + "\n    tt.return\n  }\n}\n"


T = "tensor<128x!tt.ptr<f32>, #blocked>"
V = "tensor<128xf32, #blocked>"
M = "tensor<128xi1, #blocked>"
CASES = {
    "scalar": "%r = tt.atomic_rmw fadd, relaxed, gpu, %p, %v, %m : (!tt.ptr<f32>, f32, i1) -> f32",
    "tensor": f"%r = tt.atomic_rmw fadd, relaxed, gpu, %tp, %tv, %tm : ({T}, {V}, {M}) -> {V}",
    "tensor without mask": f"%r = tt.atomic_rmw fadd, relaxed, gpu, %tp, %tv : ({T}, {V}) -> {V}",
    "result of another shape": (
        f"%r = tt.atomic_rmw fadd, relaxed, gpu, %tp, %tv, %tm : ({T}, {V}, {M}) -> tensor<64xf32, #blocked>"),
    "scalar result of a tensor": f"%r = tt.atomic_rmw fadd, relaxed, gpu, %tp, %tv : ({T}, {V}) -> f32",
    "result of another encoding": (
        f"%r = tt.atomic_rmw fadd, relaxed, gpu, %tp, %tv : ({T}, {V}) -> tensor<128xf32, #blocked1>"),
    "value of another element type": "%r = tt.atomic_rmw add, relaxed, gpu, %p, %vi : (!tt.ptr<f32>, i32) -> i32",
    "value of another shape": (
        f"%r = tt.atomic_rmw fadd, relaxed, gpu, %tp, %tv64 : ({T}, tensor<64xf32, #blocked>) -> {V}"),
    "mask of another shape": f"%r = tt.atomic_rmw fadd, relaxed, gpu, %tp, %tv, %m : ({T}, {V}, i1) -> {V}",
    "mask not i1": "%r = tt.atomic_rmw fadd, relaxed, gpu, %p, %v, %v : (!tt.ptr<f32>, f32, f32) -> f32",
    "pointer not a pointer": "%r = tt.atomic_rmw fadd, relaxed, gpu, %v, %v : (f32, f32) -> f32",
    "cas": "%r = tt.atomic_cas acq_rel, gpu, %pi, %vi, %vi : (!tt.ptr<i32>, i32, i32) -> i32",
    "cas tensor": f"%r = tt.atomic_cas acq_rel, gpu, %tp, %tv, %tv : ({T}, {V}, {V}) -> {V}",
    "cas compare of another type": "%r = tt.atomic_cas acq_rel, gpu, %pi, %v, %vi : (!tt.ptr<i32>, f32, i32) -> i32",
    "cas value of another type": "%r = tt.atomic_cas acq_rel, gpu, %pi, %vi, %v : (!tt.ptr<i32>, i32, f32) -> i32",
    "cas result of another shape": (
        f"%r = tt.atomic_cas acq_rel, gpu, %tp, %tv, %tv : ({T}, {V}, {V}) -> tensor<64xf32, #blocked>"),
    "cas result of another encoding": (
        f"%r = tt.atomic_cas acq_rel, gpu, %tp, %tv, %tv : ({T}, {V}, {V}) -> tensor<128xf32, #blocked1>"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_atomics_take_the_types_triton_takes(name, capfd):
    text = _module(CASES[name])
    expected = triton_refusal(text, capfd, ".ttgir")
    got = ttopt_refusal(text, (3, 6))
    assert (got is None) == (expected is None)
    if got is not None:
        assert (got[0], got[2]) == (expected[0], expected[2])
