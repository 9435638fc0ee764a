"""Inputs this round's semantic fuzzing (mutations aimed at the verifier: numbers, types,
shapes, operands, op names, layouts, lines moved; ttopt's verdict against Triton 3.6's) found
handled wrongly, each against Triton 3.6."""

from __future__ import annotations

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


def _dot(operands: str) -> str:
    return ("module {\n  tt.func public @f(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, "
            "%c: tensor<16x16xf32>) {\n"
            f"    %d = tt.dot {operands} : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>\n"
            "    tt.return\n  }\n}\n")


# a tt.dot with two operands before `inputPrecision` was read as a dot of two operands, and
# its verifier failed inside ttopt (an internal error, exit 3)
@pytest.mark.parametrize("operands", ["%a, %b, inputPrecision = tf32", "%b, %c, inputPrecision = tf32x3",
                                      "%a, %b, %c, inputPrecision = tf32", "%a, %b, %c"])
def test_a_dot_takes_three_operands_before_its_precision(operands, capfd):
    text = _dot(operands)
    expected = triton_refusal(text, capfd)
    assert ttopt_refusal(text) == expected
    assert (expected is None) == operands.startswith("%a, %b, %c")
