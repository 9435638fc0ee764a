"""Rules Triton's verifiers report with MLIR's ``emitError`` / ``emitOptionalError``: the
message alone, no ``'NAME' op`` prefix (ttopt raises ``PlainVerifyException``).  Each case:
ttopt's refusal (line, column, words) is Triton 3.6's."""

import re

import pytest

from conftest import ttopt_refusal


def triton_refusal(text: str, capfd) -> tuple[int, int, str] | None:
    pytest.importorskip("triton")
    from ttopt.oracle import triton_accepts

    capfd.readouterr()
    if triton_accepts(text, ".ttir").ok:
        return None
    err = capfd.readouterr().err
    m = re.search(r'loc\("[^"]*":(\d+):(\d+)\): error: (.*)', err)
    assert m is not None, err
    return int(m[1]), int(m[2]), m[3]


def kernel(body: str) -> str:
    return ("module {\n  tt.func public @f(%b: tensor<4x8xf32>, %c: tensor<16xf32>, "
            "%h: tensor<16xf16>, %x: f32) {\n" + body + "    tt.return\n  }\n}\n")


CASES = {
    "broadcast-rank": (kernel("    %r = tt.broadcast %c : tensor<16xf32> -> tensor<4x16xf32>\n"),
                       "rank of source must be same as rank of result"),
    "broadcast-dimension": (
        kernel("    %r = tt.broadcast %b : tensor<4x8xf32> -> tensor<4x16xf32>\n"),
        "Different dimensions at index 1 between source and result.  Broadcast requires the "
        "source dimension to be 1."),
    "reshape-element-count": (kernel("    %r = tt.reshape %c : tensor<16xf32> -> tensor<4x8xf32>\n"),
                              "number of src and dst elements of reshape must be the same"),
    "trans-order-size": (
        kernel("    %r = tt.trans %b {order = array<i32: 0>} : tensor<4x8xf32> -> tensor<8x4xf32>\n"),
        "order must have the same size as the rank of the operand and result"),
    "trans-order-permutation": (
        kernel("    %r = tt.trans %b {order = array<i32: 0, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>\n"),
        "order must be a permutation of [0, ..., rank - 1]"),
    "trans-shape": (
        kernel("    %r = tt.trans %b {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<4x8xf32>\n"),
        "result shape must match the permutation of the source shape"),
    "inline-asm-packed-element": (
        kernel('    %r = tt.elementwise_inline_asm "mov" {constraints = "=r,r", packed_element = 3 : i32, '
               "pure = true} %c : tensor<16xf32> -> tensor<16xf32>\n"),
        "number of input elements 16 must be a multiple of the op's packed_element attribute, 3"),
    "fp-to-fp-rounding": (kernel("    %r = tt.fp_to_fp %c : tensor<16xf32> -> tensor<16xf16>\n"),
                          "Rounding mode is required for FP downcast"),
    "bitcast-width": (kernel("    %r = tt.bitcast %c : tensor<16xf32> -> tensor<16xf16>\n"),
                      "Cannot bitcast data-type of size 32 to data-type of size 16"),
    "split-last-dimension": (
        kernel("    %r, %s = tt.split %b : tensor<4x8xf32> -> tensor<4xf32>\n"),
        "last dimension of input tensor must be 2"),
    "dot-operand-bit-width": (
        kernel("    %w = tt.bitcast %h : tensor<16xf16> -> tensor<16xi16>\n"
               "    %q = tt.reshape %w : tensor<16xi16> -> tensor<4x4xi16>\n"
               "    %a = tt.splat %x : f32 -> tensor<4x4xf32>\n"
               "    %d = tt.dot %a, %q, %a : tensor<4x4xf32> * tensor<4x4xi16> -> tensor<4x4xf32>\n"),
        "element types of operands A and B must have same bit width"),
    "return-operand-type": (
        "module {\n  tt.func public @f(%x: f32) -> i32 {\n    tt.return %x : f32\n  }\n}\n",
        "type of return operand 0 ('f32') doesn't match function result type ('i32') in function @f"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_plain_message_is_tritons(name, capfd):
    text, words = CASES[name]
    got = ttopt_refusal(text)
    assert got is not None and got[2] == words, got
    assert got == triton_refusal(text, capfd)


# rules whose words are the same in every release that has them; Triton 3.0, 3.1 have no
# BroadcastOp::verify, 3.0 - 3.3 no bit-width rule for tt.bitcast (they accept those texts);
# 3.0 - 3.2 find a transpose's wrong shape by the type inference ('tt.trans' op inferred type(s)...);
# 2.2, 2.3 no packing rule for tt.elementwise_inline_asm
OLDER = ["broadcast-rank", "broadcast-dimension", "bitcast-width", "trans-order-size",
         "trans-order-permutation", "trans-shape", "inline-asm-packed-element", "fp-to-fp-rounding",
         "split-last-dimension", "return-operand-type"]

OLDER_2 = ["inline-asm-packed-element", "fp-to-fp-rounding", "return-operand-type"]


@pytest.mark.parametrize("version", ["2.2.0", "2.3.1", "3.0.0", "3.1.0", "3.2.0", "3.3.1", "3.4.0",
                                     "3.9.0"])
def test_plain_messages_of_other_releases(version, tmp_path):
    from conftest import triton_refusals
    from ttopt.dialects import versions

    release = versions.parse_release(version)
    names = OLDER if release >= (3, 0) else OLDER_2  # (2.x: another syntax of most ops)
    texts = {name: CASES[name][0] for name in names}
    tritons = triton_refusals(release, tmp_path, texts)
    assert {name: ttopt_refusal(text, release) for name, text in texts.items()} == tritons


RESHAPE_ENCODING = """\
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @f(%c: tensor<128xf32, #blocked>) {
    %r = tt.reshape %c : tensor<128xf32, #blocked> -> tensor<128xf32>
    tt.return
  }
}
"""


def test_reshape_encodings_message_is_tritons(capfd):
    pytest.importorskip("triton")
    from ttopt.errors import TTOptError
    from ttopt.ir.reader import read_module
    from ttopt.oracle import triton_accepts

    with pytest.raises(TTOptError) as e:
        read_module(RESHAPE_ENCODING, "k.ttgir")
    words = "Op requires that either (a) src and dst both have encodings, or (b) neither does."
    assert (e.value.line, e.value.col, e.value.message) == (4, 10, words)
    capfd.readouterr()
    assert not triton_accepts(RESHAPE_ENCODING, ".ttgir").ok
    assert f":4:10): error: {words}\n" in capfd.readouterr().err
