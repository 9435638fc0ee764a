"""Number literals as MLIR (and so every Triton release) reads them: a decimal integer is no
float literal (``0 : f32``, ``dense<0> : tensor<4xf32>``), a hexadecimal one is the float's
bits and takes no minus sign, ``true``/``false`` are no floats; each refused at the literal,
with MLIR's message, on every path of the reader (scalar constants, splat ``dense<..>``,
``dense<[...]>`` lists).  Triton 3.6 judges each case here too: what it refuses, ttopt
refuses at the same line and column; what it reads, ttopt reads and writes back unchanged.

Dense constants of integers wider than 64 bits (Triton reads them) cannot be stored by xDSL:
an input error that says so, never an internal error."""

from __future__ import annotations

import pytest

import ttopt
from ttopt.errors import TTOptInternalError
from ttopt.oracle import triton_accepts

DECIMAL = "unexpected decimal integer literal for a floating point value"
MINUS_HEX = "hexadecimal float literal should not have a leading minus"

# (op line, expected error or None, column of the error on line 3)
CASES = [
    ("%c = arith.constant dense<0> : tensor<4xf32>", DECIMAL, 31),
    ("%c = arith.constant dense<-1> : tensor<4xf32>", DECIMAL, 32),
    ("%c = arith.constant dense<-0x1> : tensor<4xf32>", MINUS_HEX, 32),
    ("%c = arith.constant dense<[0, 1, 2, 3]> : tensor<4xf32>", DECIMAL, 32),
    ("%c = arith.constant dense<[0.0, 1.0, 2, 3.0]> : tensor<4xf32>", DECIMAL, 42),
    ("%c = arith.constant dense<[0.0, 1.0, -0x2, 3.0]> : tensor<4xf16>", MINUS_HEX, 43),
    ("%c = arith.constant dense<true> : tensor<4xf32>", "expected floating point literal", 31),
    ("%c = arith.constant 0 : f32", DECIMAL, 25),
    ("%c = arith.constant -7 : f16", DECIMAL, 26),
    ("%c = arith.constant -0x3F800000 : f32", MINUS_HEX, 26),
    # near misses: read by both
    ("%c = arith.constant dense<0.000000e+00> : tensor<4xf32>", None, 0),
    ("%c = arith.constant dense<-1.5> : tensor<4xf32>", None, 0),
    ("%c = arith.constant dense<0xFF800000> : tensor<4xf32>", None, 0),
    ("%c = arith.constant dense<[0.0, 1.5e3, -2.0, 0x7FC0]> : tensor<4xf16>", None, 0),
    ("%c = arith.constant dense<[0, -1, 2, 0x3]> : tensor<4xi32>", None, 0),
    ("%c = arith.constant dense<-1> : tensor<4xi32>", None, 0),
    ("%c = arith.constant 0.000000e+00 : f32", None, 0),
    ("%c = arith.constant -1.000000e+00 : f32", None, 0),
    ("%c = arith.constant 0x3F800000 : f32", None, 0),
    ("%c = arith.constant -7 : i32", None, 0),
    ("%c = arith.constant 1 : i128", None, 0),
]


def _module(line: str) -> str:
    return "module {\n  tt.func public @k() {\n    " + line + "\n    tt.return\n  }\n}\n"


@pytest.mark.parametrize("line,error,col", CASES, ids=[c[0][20:] for c in CASES])
def test_number_literals_as_mlir_reads_them(line, error, col):
    text = _module(line)
    assert triton_accepts(text, ".ttir").ok == (error is None)
    if error is None:
        assert ttopt.optimize(text, ["redundant-load", "redundant-reduce", "div-chain"], "k.ttir") == text
        return
    with pytest.raises(ttopt.TTOptError) as info:
        ttopt.optimize(text, [], "k.ttir")
    assert not isinstance(info.value, TTOptInternalError)
    assert (info.value.line, info.value.col) == (3, col)
    assert str(info.value) == f"k.ttir:3:{col}: error: {error}"


def test_long_dense_lists_say_which_element(monkeypatch):
    """A dense list long enough for the bulk reader: the error names the element itself."""
    values = ", ".join(["1.0"] * 300 + ["7"] + ["2.0"] * 211)
    text = _module(f"%c = arith.constant dense<[{values}]> : tensor<512xf32>")
    with pytest.raises(ttopt.TTOptError) as info:
        ttopt.optimize(text, [], "k.ttir")
    col = text.splitlines()[2].index(", 7,") + 3
    assert (info.value.line, info.value.col, info.value.message) == (3, col, DECIMAL)


@pytest.mark.parametrize("width", [65, 128, 256])
@pytest.mark.parametrize("literal", ["1", "[1, 0, 1, 0]"])
def test_wide_integer_dense_constants_are_an_input_error(width, literal):
    text = _module(f"%c = arith.constant dense<{literal}> : tensor<4xi{width}>")
    assert triton_accepts(text, ".ttir").ok
    with pytest.raises(ttopt.TTOptError) as info:
        ttopt.optimize(text, [], "k.ttir")
    assert not isinstance(info.value, TTOptInternalError)
    assert (info.value.line, info.value.col) == (3, 30)
    assert f"dense constants of i{width} (an integer wider than 64 bits) are not supported" in str(info.value)


def test_wide_integer_scalars_round_trip():
    text = _module("%c = arith.constant 1 : i128\n    %d = arith.addi %c, %c : i128")
    assert triton_accepts(text, ".ttir").ok
    assert ttopt.optimize(text, ["redundant-load", "redundant-reduce", "div-chain"]) == text
