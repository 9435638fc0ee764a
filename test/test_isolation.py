"""MLIR's IsolatedFromAbove rule: an op in a function (or in a ``ttg.warp_specialize``
partition) takes no value defined outside it.  The parser resolves such a name as MLIR's does
(a function body is no isolated name scope), and Triton's verifier refuses the use: "'OP' op
using value defined outside the region", at the using op.  ttopt accepted a module-level
constant used in a function until the semantic fuzzing of this round found it (a line moved
out of a function).  Each case asks Triton 3.6."""

from __future__ import annotations

import pathlib
import re

import pytest

from conftest import ttopt_refusal
from conftest import triton_refusal as _triton_refusal

FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures"


def triton_refusal(text: str, capfd):
    return _triton_refusal(text, capfd, ".ttgir")


def _module(top: str, body: str, bottom: str = "") -> str:
    return ("module {\n" + top + "  tt.func public @f(%n: i32, %p: !tt.ptr<i32>) {\n" + body
            + "    tt.return\n  }\n" + bottom + "}\n")


CONST = "  %c = arith.constant 1 : i32\n"

REFUSED = {
    # a module-level constant, above or below the function, used by an op without results
    "constant above, store": _module(CONST, "    tt.store %p, %c : !tt.ptr<i32>\n"),
    "constant below, store": _module("", "    tt.store %p, %c : !tt.ptr<i32>\n", CONST),
    # the first such use in MLIR's order: the function's ops, then the regions they hold
    "first of two uses": _module(
        CONST,
        "    scf.if %b {\n      tt.store %p, %c : !tt.ptr<i32>\n    }\n"
        "    tt.store %p, %c : !tt.ptr<i32>\n",
    ).replace("tt.func public @f(%n: i32, %p: !tt.ptr<i32>)",
              "tt.func public @f(%n: i32, %p: !tt.ptr<i32>, %b: i1)"),
    # a use inside a region of the function (scf.for's body)
    "in a loop": _module(
        CONST,
        "    scf.for %i = %n to %n step %n  : i32 {\n      tt.store %p, %c : !tt.ptr<i32>\n    }\n",
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_value_from_outside_a_function_is_refused_as_triton_refuses_it(name, capfd):
    text = REFUSED[name]
    expected = triton_refusal(text, capfd)
    assert expected is not None and expected[2].endswith("op using value defined outside the region")
    assert ttopt_refusal(text) == expected


def test_an_op_with_results_is_refused_at_its_name_with_tritons_words(capfd):
    text = _module(CONST, "    %x = arith.addi %n, %c : i32\n")
    expected = triton_refusal(text, capfd)
    assert ttopt_refusal(text) == expected == (
        4, 10, "'arith.addi' op using value defined outside the region")


ACCEPTED = {
    # a module-level value nobody inside uses
    "unused constant": _module(CONST, "    tt.store %p, %n : !tt.ptr<i32>\n"),
    # values of the function used in nested regions that are not isolated
    "function values in a loop": _module(
        "", "    scf.for %i = %n to %n step %n  : i32 {\n      tt.store %p, %i : !tt.ptr<i32>\n    }\n",
    ),
    "function value in a combiner": _module(
        "",
        "    %t = tt.splat %n : i32 -> tensor<4xi32>\n"
        "    %r = \"tt.reduce\"(%t) <{axis = 0 : i32}> ({\n"
        "    ^bb0(%a: i32, %b: i32):\n"
        "      %s = arith.addi %a, %n : i32\n"
        "      tt.reduce.return %s : i32\n"
        "    }) : (tensor<4xi32>) -> i32\n",
    ),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_values_inside_what_is_not_isolated_are_accepted_as_triton_accepts_them(name, capfd):
    text = ACCEPTED[name]
    assert triton_refusal(text, capfd) is None
    assert ttopt_refusal(text) is None


def _partition_case() -> str:
    """A warp-specialized kernel whose first partition reads ``%c0_i32``, a constant of the
    function, in place of its own ``%c0_i32_13``."""
    text = (FIXTURES / "ops36" / "matmul_warp_specialize.sm90.ttgir").read_text()
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("partition0("))
    use = next(i for i in range(start, len(lines))
               if "%c0_i32_13" in lines[i] and "%c0_i32_13 =" not in lines[i])
    lines[use] = re.sub(r"%c0_i32_13\b", "%c0_i32", lines[use], count=1)
    return "\n".join(lines)


def test_a_partition_takes_no_value_of_its_function(capfd):
    text = _partition_case()
    base = (FIXTURES / "ops36" / "matmul_warp_specialize.sm90.ttgir").read_text()
    assert triton_refusal(base, capfd) is None and ttopt_refusal(base) is None
    expected = triton_refusal(text, capfd)
    assert expected is not None  # (Triton reports it at the op's location alias: its words)
    assert expected[2] == "'scf.for' op using value defined outside the region"
    got = ttopt_refusal(text)
    assert got is not None and got[2] == expected[2]
    assert " = scf.for " in text.split("\n")[got[0] - 1] and "%c0_i32 " in text.split("\n")[got[0] - 1]


# ------------------------------------------------------------------ names defined twice
# MLIR's words (xDSL said "SSA value %x is already defined"): a region's entry argument (a
# function's, a loop's, a partition's) whose name is in use, and any other definition of a
# name in use.  A partition is read in its function's name scope, as Triton reads it.
_REDEFINED = {
    "result": "    %x = arith.addi %n, %n : i32\n    %x = arith.addi %n, %n : i32\n",
    "loop variable": "    scf.for %n = %n to %n step %n : i32 {\n    }\n",
    "block label argument": "    cf.br ^bb1(%n : i32)\n  ^bb1(%n: i32):\n",
    "combiner argument": (
        "    %t = tt.splat %n : i32 -> tensor<4xi32>\n"
        '    %r = "tt.reduce"(%t) <{axis = 0 : i32}> ({\n'
        "    ^bb0(%n: i32, %b: i32):\n      %s = arith.addi %n, %b : i32\n"
        "      tt.reduce.return %s : i32\n    }) : (tensor<4xi32>) -> i32\n"
    ),
    "combiner result": (
        "    %t = tt.splat %n : i32 -> tensor<4xi32>\n"
        '    %r = "tt.reduce"(%t) <{axis = 0 : i32}> ({\n'
        "    ^bb0(%a: i32, %b: i32):\n      %n = arith.addi %a, %b : i32\n"
        "      tt.reduce.return %n : i32\n    }) : (tensor<4xi32>) -> i32\n"
    ),
}
REDEFINED = {name: _module("", body) for name, body in _REDEFINED.items()}
REDEFINED["function argument"] = _module("", "").replace("%p: !tt.ptr<i32>", "%n: i32")


@pytest.mark.parametrize("name", sorted(REDEFINED))
def test_a_name_defined_twice_is_refused_in_tritons_words(name, capfd):
    text = REDEFINED[name]
    expected = triton_refusal(text, capfd)
    assert expected is not None and re.search(r"(redefinition of SSA value|region entry argument) '%[nx]'", expected[2])
    assert ttopt_refusal(text) == expected


# a module whose body defines a value, with a function declaration (an empty region) and a
# function of several blocks: the isolation check walked `region.ops` (one block only) and
# failed inside ttopt (exit 3) on both
_BLOCKS = (
    "module {\n  %c = arith.constant 1 : i32\n  tt.func private @decl(%n: i32)\n"
    "  tt.func public @f(%n: i32, %p: !tt.ptr<i32>) {\n    cf.br ^bb1\n  ^bb1:\n"
    "    tt.store %p, USE : !tt.ptr<i32>\n    tt.return\n  }\n}\n"
)


@pytest.mark.parametrize("use", ["%n", "%c"])
def test_isolation_in_functions_of_several_blocks_and_declarations(use, capfd):
    text = _BLOCKS.replace("USE", use)
    expected = triton_refusal(text, capfd)
    assert ttopt_refusal(text) == expected
    assert (expected is None) == (use == "%n")
