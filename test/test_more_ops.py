"""``scf.execute_region``, ``scf.for unsigned``, ``cf.assert`` and ``cf.switch``: read, verified,
written back byte for byte and printed anew as the Triton release that wrote the text reads
them, and refused, with MLIR's words where it has some, where that release refuses them.

Which releases read what (checked with each release's own parser and verifier,
``tools/versions/oracle.py check``, see the ``versions`` tests at the end):

* ``scf.execute_region`` (results or none, several blocks, an attribute dictionary,
  ``{no_inline}`` as a plain attribute), ``cf.assert``, ``cf.switch``: every release 2.1-3.9;
* ``scf.for unsigned`` (``<{unsignedCmp}>`` in generic form) and ``scf.execute_region ..
  no_inline``: Triton 3.5+; ``scf.for ... {unsignedCmp}`` (an attribute): every release;
* ``cf.switch`` case values: up to 3.1 a value is taken modulo ``2**N`` (``128`` for an
  ``i8`` flag, ``-2**63`` refused as too large); from 3.2 a value outside the flag's signed
  range aborts Triton (LLVM's APInt assertion), which ttopt refuses, and ``-2**63`` reads.

Triton 3.6 (``ttopt.oracle``, in this process) judges every case that does not crash it.
"""

from __future__ import annotations

import pathlib
import sys

import pytest

import ttopt
from conftest import ReleaseOracle, release_outputs, since, until
from ttopt.analysis.effects import classify
from ttopt.dialects import versions
from ttopt.errors import TTOptError
from ttopt.ir.reader import read_module
from ttopt.ir.writer import write_module

ROOT = pathlib.Path(__file__).resolve().parent.parent
RELEASES = versions.RELEASES
ALL = frozenset(RELEASES)
PASSES = (["redundant-load", "redundant-reduce", "div-chain"], ["all"])


@pytest.fixture(scope="module")
def triton36():
    """Triton 3.6's verdict (``ttopt.oracle.triton_accepts``); the test is skipped without
    Triton."""
    pytest.importorskip("triton")
    from ttopt.oracle import triton_accepts

    return lambda text: triton_accepts(text, ".ttir").ok


def _func(body: str, args: str = "%n: i32") -> str:
    return "module {\n  tt.func public @k(" + args + ") {\n" + body + "    tt.return\n  }\n}\n"


def _switch(flag_type: str, cases: str, pre: str = "", flag: str = "%n", args: str = "%n: i32") -> str:
    return (
        "module {\n  tt.func public @k(" + args + ") {\n" + pre
        + f"    cf.switch {flag} : {flag_type}, [default: ^bb1{cases}]\n"
        "  ^bb1:\n    tt.return\n  }\n}\n"
    )


C01 = "    %c0 = arith.constant 0 : i32\n    %c1 = arith.constant 1 : i32\n"
TRUNC8 = "    %b = arith.trunci %n : i32 to i8\n"
TRUNC1 = "    %b = arith.trunci %n : i32 to i1\n"

# name -> (text, the releases whose Triton reads it); no pointer types: one text for all
# releases (2.2 and 2.3 spell pointers with their address space)
VALID = {
    "er_result": (_func(
        "    %v = scf.execute_region -> i32 {\n      %c = arith.constant 0 : i32\n"
        "      scf.yield %c : i32\n    }\n"), ALL),
    "er_no_results": (_func(
        "    scf.execute_region {\n      %c = arith.constant 0 : i32\n      scf.yield\n    }\n"), ALL),
    "er_two_results": (_func(
        "    %v:2 = scf.execute_region -> (i32, f32) {\n      %c = arith.constant 0 : i32\n"
        "      %f = arith.constant 1.000000e+00 : f32\n      scf.yield %c, %f : i32, f32\n    }\n"), ALL),
    "er_parenthesized": (_func(
        "    %v = scf.execute_region -> (i32) {\n      scf.yield %n : i32\n    }\n"), ALL),
    "er_blocks": (_func(
        "    %v = scf.execute_region -> i32 {\n      %t = arith.constant true\n"
        "      cf.cond_br %t, ^bb1, ^bb2\n    ^bb1:  // pred: ^bb0\n"
        "      %c = arith.constant 0 : i32\n      cf.br ^bb3(%c : i32)\n"
        "    ^bb2:  // pred: ^bb0\n      cf.br ^bb3(%n : i32)\n"
        "    ^bb3(%x: i32):  // 2 preds: ^bb1, ^bb2\n      scf.yield %x : i32\n    }\n"), ALL),
    "er_attr_dict": (_func(
        "    %v = scf.execute_region -> i32 {\n      scf.yield %n : i32\n    } {foo = 1 : i32}\n"), ALL),
    "er_no_inline_attr": (_func(
        "    %v = scf.execute_region -> i32 {\n      scf.yield %n : i32\n    } {no_inline}\n"), ALL),
    "er_generic": (_func(
        '    %v = "scf.execute_region"() ({\n      scf.yield %n : i32\n    }) : () -> i32\n'), ALL),
    "er_in_loop": (_func(
        C01 + "    %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (i32)  : i32 {\n"
        "      %v = scf.execute_region -> i32 {\n        %b = arith.addi %a, %i : i32\n"
        "        scf.yield %b : i32\n      }\n      scf.yield %v : i32\n    }\n"), ALL),
    "er_no_inline": (_func(
        "    %v = scf.execute_region -> i32 no_inline {\n      scf.yield %n : i32\n    }\n"),
        since((3, 5))),
    "er_no_inline_generic": (_func(
        '    %v = "scf.execute_region"() <{no_inline}> ({\n      scf.yield %n : i32\n'
        "    }) : () -> i32\n"), since((3, 5))),
    "for_unsigned": (_func(
        C01 + "    scf.for unsigned %i = %c0 to %c1 step %c1 : i32 {\n    }\n"), since((3, 5))),
    "for_unsigned_as_printed": (_func(  # Triton's own print: two blanks before ':'
        C01 + "    %r = scf.for unsigned %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (i32)  : i32 {\n"
        "      %b = arith.addi %a, %i : i32\n      scf.yield %b : i32\n    }\n"), since((3, 5))),
    "for_unsigned_index": (_func(
        "    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n"
        "    scf.for unsigned %i = %c0 to %c1 step %c1 {\n    }\n"), since((3, 5))),
    "for_unsigned_generic": (_func(
        C01 + '    "scf.for"(%c0, %c1, %c1) <{unsignedCmp}> ({\n    ^bb0(%i: i32):\n'
        "      scf.yield\n    }) : (i32, i32, i32) -> ()\n"), since((3, 5))),
    "for_unsigned_attr": (_func(
        C01 + "    scf.for %i = %c0 to %c1 step %c1 : i32 {\n    } {unsignedCmp}\n"), ALL),
    "assert": (_func('    %t = arith.constant true\n    cf.assert %t, "msg"\n'), ALL),
    "assert_attr_dict": (_func('    %t = arith.constant true\n    cf.assert %t, "msg" {foo}\n'), ALL),
    "assert_escapes": (_func('    %t = arith.constant true\n    cf.assert %t, "a\\22b\\0A\\00"\n'), ALL),
    "assert_generic": (_func(
        '    %t = arith.constant true\n    "cf.assert"(%t) <{msg = "msg"}> : (i1) -> ()\n'), ALL),
    "switch_one_line": (
        "module {\n  tt.func public @k(%n: i32) {\n"
        "    cf.switch %n : i32, [default: ^bb1, 42: ^bb2(%n : i32)]\n"
        "  ^bb1:\n    tt.return\n  ^bb2(%a: i32):\n    tt.return\n  }\n}\n", ALL),
    "switch_as_printed": (
        "module {\n  tt.func public @k(%n: i32) {\n    cf.switch %n : i32, [\n"
        "      default: ^bb1,\n      42: ^bb2(%n : i32),\n      -3: ^bb1\n    ]\n"
        "  ^bb1:  // 2 preds: ^bb0, ^bb0\n    tt.return\n"
        "  ^bb2(%a: i32):  // pred: ^bb0\n    tt.return\n  }\n}\n", ALL),
    "switch_default_only": (
        "module {\n  tt.func public @k(%n: i32) {\n    cf.switch %n : i32, [\n"
        "      default: ^bb1(%n : i32)]\n  ^bb1(%a: i32):  // pred: ^bb0\n    tt.return\n  }\n}\n", ALL),
    "switch_duplicate_cases": (_switch("i32", ", 1: ^bb1, 1: ^bb1, 0x10: ^bb1"), ALL),
    "switch_i64": (_switch("i64", ", 1: ^bb1, -2: ^bb1", args="%n: i64"), ALL),
    "switch_si32": (_switch("si32", ", -3: ^bb1, 5: ^bb1", args="%n: si32"), ALL),
    "switch_i8_bounds": (_switch("i8", ", 127: ^bb1, -128: ^bb1", TRUNC8, "%b"), ALL),
    "switch_i1": (_switch("i1", ", 0: ^bb1, -1: ^bb1", TRUNC1, "%b"), ALL),
    "switch_in_region": (_func(
        "    %v = scf.execute_region -> i32 {\n"
        "      cf.switch %n : i32, [default: ^bb1(%n : i32), 0: ^bb2]\n"
        "    ^bb1(%x: i32):\n      scf.yield %x : i32\n"
        "    ^bb2:\n      %c = arith.constant 7 : i32\n      scf.yield %c : i32\n    }\n"), ALL),
    "switch_generic": (
        "module {\n  tt.func public @k(%n: i32) {\n"
        '    "cf.switch"(%n, %n) [^bb1, ^bb2] <{case_operand_segments = array<i32: 1>, '
        "case_values = dense<42> : vector<1xi32>, operandSegmentSizes = array<i32: 1, 0, 1>}> "
        ": (i32, i32) -> ()\n  ^bb1:\n    tt.return\n  ^bb2(%a: i32):\n    tt.return\n  }\n}\n",
        since((2, 2))),  # (2.1 names the segments `operand_segment_sizes`)
    # case values at the edges of what each release reads
    "switch_i8_wraps": (_switch("i8", ", 128: ^bb1, -129: ^bb1", TRUNC8, "%b"), until((3, 1))),
    "switch_i1_one": (_switch("i1", ", 1: ^bb1", TRUNC1, "%b"), until((3, 1))),
    "switch_u64_max": (_switch("i64", ", 9223372036854775808: ^bb1", args="%n: i64"), until((3, 1))),
    "switch_i64_min": (_switch("i64", ", -9223372036854775808: ^bb1", args="%n: i64"), since((3, 2))),
}
# cases that abort Triton 3.2+ (never given to Triton 3.6 in this process)
CRASHES_FROM_3_2 = {"switch_i8_wraps", "switch_i1_one"}

# name -> (text, ttopt's error, Triton 3.6's first error or None where Triton crashes)
INVALID = {
    "er_no_terminator": (_func(
        "    %v = scf.execute_region -> i32 {\n      %c = arith.constant 0 : i32\n    }\n"),
        "4:12: error: block with no terminator, has 'arith.constant'", "block with no terminator"),
    "er_no_terminator_no_results": (_func(
        "    scf.execute_region {\n      %c = arith.constant 0 : i32\n    }\n"),
        "4:12: error: block with no terminator, has 'arith.constant'", "block with no terminator"),
    "er_yield_type": (_func(
        "    %v = scf.execute_region -> i32 {\n      %c = arith.constant 0.0 : f32\n"
        "      scf.yield %c : f32\n    }\n"),
        "3:10: error: 'scf.execute_region' op along control flow edge from Region #0 to parent "
        "results: source type #0 'f32' should match input type #0 'i32'",
        "source type #0 'f32' should match input type #0 'i32'"),
    "er_yield_count": (_func(
        "    %v = scf.execute_region -> i32 {\n      scf.yield %n, %n : i32, i32\n    }\n"),
        "3:10: error: 'scf.execute_region' op region control flow edge from Region #0 to parent "
        "results: source has 2 operands, but target successor needs 1",
        "source has 2 operands, but target successor needs 1"),
    "er_yields_disagree": (_func(
        "    %v = scf.execute_region -> i32 {\n      %t = arith.constant true\n"
        "      cf.cond_br %t, ^bb1, ^bb2\n    ^bb1:\n      scf.yield %n : i32\n"
        "    ^bb2:\n      %f = arith.constant 1.0 : f32\n      scf.yield %f : f32\n    }\n"),
        "3:10: error: 'scf.execute_region' op along control flow edgefrom Region #0 to parent "
        "results operands mismatch between return-like terminators",
        "operands mismatch between return-like terminators"),
    "er_empty": (_func("    %v = scf.execute_region -> i32 {\n    }\n"),
        "3:10: error: 'scf.execute_region' op region needs to have at least one block",
        "region needs to have at least one block"),
    "er_arguments": (_func(
        '    %v = "scf.execute_region"() ({\n    ^bb0(%a: i32):\n      scf.yield %a : i32\n'
        "    }) : () -> i32\n"),
        "3:10: error: 'scf.execute_region' op region cannot have any arguments",
        "region cannot have any arguments"),
    "er_return_inside": (_func("    scf.execute_region {\n      tt.return\n    }\n"),
        "4:7: error: 'tt.return' op expects parent op 'tt.func'", "expects parent op 'tt.func'"),
    "er_two_types_no_parens": (_func(
        "    %v = scf.execute_region -> i32, i32 {\n      scf.yield %n, %n : i32, i32\n    }\n"),
        "3:35: error: Expected region!", "expected '{' to begin a region"),
    "for_unsigned_twice": (_func(
        C01 + "    scf.for unsigned %i = %c0 to %c1 step %c1 : i32 {\n    } {unsignedCmp}\n"),
        "5:5: error: custom op 'scf.for' attribute 'unsignedCmp' occurs more than once in the "
        "attribute list", "5:5): error: custom op 'scf.for' attribute 'unsignedCmp' occurs more than once"),
    "for_unsigned_after_step": (_func(
        C01 + "    scf.for %i = %c0 to %c1 step %c1 unsigned : i32 {\n    }\n"),
        "5:18: error: operand is used with type index, but has been previously used or "
        "defined with type i32", "expected '{' to begin a region"),
    "for_unsigned_not_unit": (_func(
        C01 + '    "scf.for"(%c0, %c1, %c1) <{unsignedCmp = false}> ({\n    ^bb0(%i: i32):\n'
        "      scf.yield\n    }) : (i32, i32, i32) -> ()\n"),
        "5:5: error: invalid properties {unsignedCmp = false} for op scf.for: Invalid attribute "
        "`unsignedCmp` in property conversion: false",
        "5:5): error: invalid properties {unsignedCmp = false} for op scf.for: Invalid attribute "
        "`unsignedCmp` in property conversion: false"),
    "assert_i32": (_func('    cf.assert %n, "msg"\n'),
        "3:15: error: operand is used with type i1, but has been previously used or defined "
        "with type i32", "expects different type than prior uses: 'i1' vs 'i32'"),
    "assert_tensor": (_func(
        '    %t = arith.constant dense<true> : tensor<4xi1>\n    cf.assert %t, "msg"\n'),
        "4:15: error: operand is used with type i1, but has been previously used or defined "
        "with type tensor<4xi1>", "expects different type than prior uses"),
    "assert_generic_i32": (_func('    "cf.assert"(%n) <{msg = "m"}> : (i32) -> ()\n'),
        "3:5: error: 'cf.assert' op operand #0 must be 1-bit signless integer, but got 'i32'",
        "operand #0 must be 1-bit signless integer, but got 'i32'"),
    "assert_no_message": (_func('    %t = arith.constant true\n    "cf.assert"(%t) : (i1) -> ()\n'),
        "4:5: error: 'cf.assert' op requires attribute 'msg'", "requires attribute 'msg'"),
    "assert_message_not_a_string": (_func("    %t = arith.constant true\n    cf.assert %t, 1\n"),
        "4:5: error: 'cf.assert' op attribute 'msg' failed to satisfy constraint: string "
        "attribute", "integer literal not valid for specified type"),
    "switch_case_type": (
        "module {\n  tt.func public @k(%n: i32) {\n"
        '    "cf.switch"(%n, %n) [^bb1, ^bb2] <{case_operand_segments = array<i32: 1>, '
        "case_values = dense<42> : vector<1xi64>, operandSegmentSizes = array<i32: 1, 0, 1>}> "
        ": (i32, i32) -> ()\n  ^bb1:\n    tt.return\n  ^bb2(%a: i32):\n    tt.return\n  }\n}\n",
        "3:5: error: 'cf.switch' op 'flag' type ('i32') should match case value type ('i64')",
        "'flag' type ('i32') should match case value type ('i64')"),
    "switch_case_count": (
        "module {\n  tt.func public @k(%n: i32) {\n"
        '    "cf.switch"(%n) [^bb1, ^bb1, ^bb1] <{case_operand_segments = array<i32: 0, 0>, '
        "case_values = dense<42> : vector<1xi32>, operandSegmentSizes = array<i32: 1, 0, 0>}> "
        ": (i32) -> ()\n  ^bb1:\n    tt.return\n  }\n}\n",
        "3:5: error: 'cf.switch' op number of case values (1) should match number of case "
        "destinations (2)", "number of case values (1) should match number of case destinations (2)"),
    "switch_segments_sum": (
        "module {\n  tt.func public @k(%n: i32) {\n"
        '    "cf.switch"(%n, %n) [^bb1, ^bb1] <{case_operand_segments = array<i32: 0>, '
        "case_values = dense<42> : vector<1xi32>, operandSegmentSizes = array<i32: 1, 0, 1>}> "
        ": (i32, i32) -> ()\n  ^bb1:\n    tt.return\n  }\n}\n",
        "3:5: error: 'cf.switch' op caseOperands count (1) does not match with the total size "
        "(0) specified in attribute 'case_operand_segments'", "caseOperands count (1)"),
    "switch_index_flag": (
        "module {\n  tt.func public @k(%n: i32) {\n    %i = arith.index_cast %n : i32 to index\n"
        '    "cf.switch"(%i) [^bb1] <{case_operand_segments = array<i32>, operandSegmentSizes = '
        "array<i32: 1, 0, 0>}> : (index) -> ()\n  ^bb1:\n    tt.return\n  }\n}\n",
        "4:5: error: 'cf.switch' op operand #0 must be integer, but got 'index'",
        "operand #0 must be integer, but got 'index'"),
    "switch_float_flag": (_switch("f32", "", "    %f = arith.constant 1.0 : f32\n", "%f"),
        "4:20: error: invalid kind of type specified: expected builtin.integer, but found 'f32'",
        "expected builtin.integer, but found 'f32'"),
    "switch_missing_operands": (
        "module {\n  tt.func public @k(%n: i32) {\n    cf.switch %n : i32, [default: ^bb1, 42: ^bb2]\n"
        "  ^bb1:\n    tt.return\n  ^bb2(%a: i32):\n    tt.return\n  }\n}\n",
        "3:5: error: 'cf.switch' op branch has 0 operands for successor #1, but target block has 1",
        "branch has 0 operands for successor #1, but target block has 1"),
    "switch_operand_type": (
        "module {\n  tt.func public @k(%n: i32) {\n    %f = arith.constant 1.0 : f32\n"
        "    cf.switch %n : i32, [default: ^bb1, 42: ^bb2(%f : f32)]\n"
        "  ^bb1:\n    tt.return\n  ^bb2(%a: i32):\n    tt.return\n  }\n}\n",
        "4:5: error: 'cf.switch' op type mismatch for bb argument #0 of successor #1",
        "type mismatch for bb argument #0 of successor #1"),
    "switch_not_last": (
        "module {\n  tt.func public @k(%n: i32) {\n    cf.switch %n : i32, [default: ^bb1]\n"
        "    %c = arith.constant 0 : i32\n  ^bb1:\n    tt.return\n  }\n}\n",
        "3:5: error: 'cf.switch' op must be the last operation in the parent block",
        "must terminate its parent block"),
    "switch_trailing_comma": (_switch("i32", ", 1: ^bb1,"),
        "3:49: error: expected integer value", "expected integer value"),
    "switch_u64_max": (VALID["switch_u64_max"][0],  # (read up to 3.1)
        "3:41: error: integer value too large", "integer value too large"),
    "switch_i8_wraps": (VALID["switch_i8_wraps"][0],
        "4:40: error: case value 128 does not fit the flag type 'i8' as a signed integer "
        "(Triton 3.2+ aborts on it)", None),
    "switch_i1_one": (VALID["switch_i1_one"][0],
        "4:40: error: case value 1 does not fit the flag type 'i1' as a signed integer "
        "(Triton 3.2+ aborts on it)", None),
}


# ------------------------------------------------------------------------------ Triton 3.6
VALID_36 = [n for n, (_, ok) in VALID.items() if (3, 6) in ok]


@pytest.mark.parametrize("name", VALID_36)
def test_read_and_written_back_byte_for_byte(name, triton36):
    text = VALID[name][0]
    assert triton36(text), name
    assert ttopt.optimize(text, [], "k.ttir") == text
    for passes in PASSES:  # (nothing to rewrite here: the text stays)
        out = ttopt.optimize(text, passes, "k.ttir")
        assert out == text and triton36(out)


@pytest.mark.parametrize("name", VALID_36)
def test_printed_anew_triton_reads_it_and_ttopt_reads_it_back(name, triton36):
    """Every op printed by its class (what a pass's rewrite prints): Triton 3.6 reads it,
    and it reads back into the same text."""
    out = write_module(read_module(VALID[name][0], "k.ttir"), keep_text=False)
    assert triton36(out), out
    assert write_module(read_module(out, "k.ttir"), keep_text=False) == out


def test_printed_anew_as_mlir_prints_them():
    def anew(name):
        text = write_module(read_module(VALID[name][0], "k.ttir"), keep_text=False)
        return [ln.split(" loc(")[0] for ln in text.splitlines()]

    assert "    %v = scf.execute_region -> i32 {" in anew("er_result")
    assert "    %v:2 = scf.execute_region -> (i32, f32) {" in anew("er_two_results")
    assert "      scf.yield" in anew("er_no_results")  # (no implicit terminator to leave out)
    assert "    } {foo = 1 : i32}" in anew("er_attr_dict")
    assert "    %v = scf.execute_region -> i32 no_inline {" in anew("er_no_inline_generic")
    assert "    scf.for unsigned %i = %c0 to %c1 step %c1 : i32 {" in anew("for_unsigned_generic")
    assert '    cf.assert %t, "msg"' in anew("assert_generic")
    lines = anew("switch_as_printed")
    at = lines.index("    cf.switch %n : i32, [")
    # signed case values: MLIR prints -3 as 4294967293, which Triton 3.2+ cannot read back
    assert lines[at + 1 : at + 5] == [
        "      default: ^bb1,", "      42: ^bb2(%n : i32),", "      -3: ^bb1", "    ]"
    ]
    lines = anew("switch_default_only")
    at = lines.index("    cf.switch %n : i32, [")
    assert lines[at + 1] == "      default: ^bb1(%n : i32)]"


# refused, but Triton's first error is elsewhere (a parse error later on the line: 5:37
# "expected '{' to begin a region", 4:19 "integer literal not valid for specified type")
POSITION_GAPS = {"for_unsigned_after_step", "assert_message_not_a_string"}


@pytest.mark.parametrize("name", list(INVALID))
def test_refused_as_triton_refuses(name, triton36):
    text, error, triton_error = INVALID[name]
    with pytest.raises(TTOptError) as info:
        read_module(text, "k.ttir")
    assert str(info.value) == "k.ttir:" + error
    assert "\n" not in str(info.value)
    if triton_error is None:
        return  # (Triton 3.2+ aborts on it: never run in this process)
    import os
    import tempfile

    from ttopt.oracle import triton_accepts

    # Triton's diagnostic goes to fd 2
    with tempfile.TemporaryFile() as captured:
        saved = os.dup(2)
        os.dup2(captured.fileno(), 2)
        try:
            ok = triton_accepts(text, ".ttir").ok
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        captured.seek(0)
        said = captured.read().decode("utf-8", "replace")
    assert not ok
    assert triton_error in said, said
    if name not in POSITION_GAPS:  # (and at Triton's line and column)
        assert f":{error.split(': error')[0]}): error: " in said, said


def test_the_cli_reads_the_fuzzers_reproducers(tmp_path):
    import subprocess

    for name in ("er_result", "for_unsigned", "assert", "switch_as_printed"):
        path = tmp_path / f"{name}.ttir"
        path.write_text(VALID[name][0])
        r = subprocess.run([sys.executable, "-m", "ttopt.cli", str(path)], capture_output=True, text=True,
                           cwd=ROOT)
        assert r.returncode == 0 and r.stdout == VALID[name][0], r.stderr
    path = tmp_path / "bad.ttir"
    path.write_text(INVALID["er_yield_type"][0])
    r = subprocess.run([sys.executable, "-m", "ttopt.cli", str(path)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == f"{path}:{INVALID['er_yield_type'][1]}\n"


# ------------------------------------------------------------------------------ each release
# Triton 2.1 names the segment sizes of the generic form `operand_segment_sizes`; ttopt reads
# every release's generic `operandSegmentSizes` (cf.cond_br too): a reader matter, not these ops'
KNOWN_GAPS = {("switch_generic", (2, 1))}


def _reads(text: str, release) -> bool:
    try:
        read_module(text, "k.ttir", triton_version=versions.show(release))
    except TTOptError:
        return False
    return True


@pytest.mark.parametrize("release", RELEASES, ids=versions.show)
def test_each_release_reads_exactly_what_its_triton_reads(release):
    """ttopt with ``--triton-version R`` reads a case iff Triton R does (the table above,
    which the ``versions`` tests below check against each release), and writes it back
    byte for byte as R's text."""
    for name, (text, accepted) in VALID.items():
        if (name, release) in KNOWN_GAPS:
            continue
        assert _reads(text, release) == (release in accepted), (name, release)
        if release in accepted:
            assert ttopt.optimize(text, [], "k.ttir", triton_version=versions.show(release)) == text
    for name, (text, _, _) in INVALID.items():
        if name in VALID and release in VALID[name][1]:
            continue
        assert not _reads(text, release), (name, release)


def test_the_release_of_a_text_with_a_newer_syntax_is_35_or_later():
    for name in ("for_unsigned", "for_unsigned_generic", "er_no_inline", "er_no_inline_generic"):
        mod = read_module(VALID[name][0], "k.ttir")
        assert mod.triton_version >= (3, 5), name
        with pytest.raises(TTOptError) as info:
            read_module(VALID[name][0], "k.ttir", triton_version="3.4")
        assert "the text is not Triton 3.4's, as --triton-version says: it has '" in str(info.value)
    # the attribute spelling is every release's
    assert read_module(VALID["for_unsigned_attr"][0], "k.ttir", triton_version="2.1")


def test_an_unsigned_loop_keeps_its_property():
    for name in ("for_unsigned", "for_unsigned_generic", "for_unsigned_as_printed"):
        loop = next(o for o in read_module(VALID[name][0], "k.ttir").op.walk() if o.name == "scf.for")
        assert "unsignedCmp" in loop.properties and "unsignedCmp" not in loop.attributes
    # 3.5+ reads `{unsignedCmp}` as the property (Triton 3.6 prints it `scf.for unsigned`)
    loop = next(o for o in read_module(VALID["for_unsigned_attr"][0], "k.ttir").op.walk()
                if o.name == "scf.for")
    assert "unsignedCmp" in loop.properties
    # before 3.5 it is an attribute without a meaning in MLIR (the passes still take it as unsigned)
    old = read_module(VALID["for_unsigned_attr"][0], "k.ttir", triton_version="3.4")
    loop = next(o for o in old.op.walk() if o.name == "scf.for")
    assert "unsignedCmp" in loop.attributes and "unsignedCmp" not in loop.properties
    from ttopt.dialects.scf import is_unsigned

    assert is_unsigned(loop)


def test_case_values_up_to_31_are_truncated_to_the_flag():
    """Triton 3.1 reads ``128`` for an ``i8`` flag as -128 (its APInt truncates): printed anew,
    the same bits, signed, which every release reads."""
    mod = read_module(VALID["switch_i8_wraps"][0], "k.ttir", triton_version="3.1")
    out = write_module(mod, keep_text=False)
    assert "      -128: ^bb1," in out and "      127: ^bb1" in out


# ------------------------------------------------------------------------------ the passes
P = "%p: !tt.ptr<f32>, %q: !tt.ptr<f32>"


def _loads(text: str) -> int:
    return sum(1 for ln in text.splitlines() if " = tt.load " in ln)


def test_memory_effects_are_mlirs():
    text = _func(
        "    %t = arith.constant true\n"
        '    cf.assert %t, "m"\n'
        "    %v = scf.execute_region -> f32 {\n      %x = tt.load %p : !tt.ptr<f32>\n"
        "      scf.yield %x : f32\n    }\n"
        "    scf.execute_region {\n      tt.store %q, %v : !tt.ptr<f32>\n      scf.yield\n    }\n"
        "    cf.switch %n : i32, [default: ^bb1]\n  ^bb1:\n", f"{P}, %n: i32")
    kinds = [(op.name, classify(op)) for op in read_module(text, "k.ttir").op.walk()
             if op.name in ("cf.assert", "scf.execute_region", "cf.switch")]
    assert kinds == [("cf.assert", "write"), ("scf.execute_region", "read"),
                     ("scf.execute_region", "write"), ("cf.switch", "pure")]


def _pair(between: str) -> str:
    return _func(
        "    %a = tt.load %p evictionPolicy = evict_last : !tt.ptr<f32>\n" + between
        + "    %b = tt.load %p evictionPolicy = evict_first : !tt.ptr<f32>\n"
        "    %s = arith.addf %a, %b : f32\n    tt.store %q, %s : !tt.ptr<f32>\n", f"{P}, %c: i1")


@pytest.mark.parametrize("between,merged", [
    ('    cf.assert %c, "m"\n', False),  # MLIR: MemoryEffects::Write ("program termination")
    ("    scf.execute_region {\n      tt.store %p, %a : !tt.ptr<f32>\n      scf.yield\n    }\n", False),
    ("    %v = scf.execute_region -> f32 {\n      %x = tt.load %q : !tt.ptr<f32>\n"
     "      scf.yield %x : f32\n    }\n", True),  # RecursiveMemoryEffect: reads only
    ("", True),
], ids=["assert", "region-that-stores", "region-that-reads", "nothing"])
def test_redundant_load_across_the_new_ops(between, merged, triton36):
    text = _pair(between)
    for passes in PASSES:
        out = ttopt.optimize(text, passes, "k.ttir")
        assert _loads(out) == _loads(text) - (1 if merged else 0), out
        assert triton36(out), out


def test_loads_merge_inside_an_execute_region_and_across_a_switch(triton36):
    text = _func(
        "    %v = scf.execute_region -> f32 {\n"
        "      %x = tt.load %p evictionPolicy = evict_last : !tt.ptr<f32>\n"
        "      %y = tt.load %p evictionPolicy = evict_first : !tt.ptr<f32>\n"
        "      %z = arith.addf %x, %y : f32\n      scf.yield %z : f32\n    }\n"
        "    cf.switch %n : i32, [default: ^bb1(%v : f32), 1: ^bb2]\n"
        "  ^bb1(%w: f32):\n    %u = arith.divf %w, %w : f32\n    %d = arith.divf %u, %w : f32\n"
        "    tt.store %q, %d : !tt.ptr<f32>\n    tt.return\n  ^bb2:\n", f"{P}, %n: i32")
    for passes in PASSES:
        out = ttopt.optimize(text, passes, "k.ttir")
        assert _loads(out) == 1 and "cf.switch %n : i32, [default: ^bb1(%v : f32), 1: ^bb2]" in out
        assert triton36(out), out


def _loop(header: str, pre: str = "") -> str:
    return _func(
        "    %c0 = arith.constant 0 : i32\n    %c1 = arith.constant 1 : i32\n"
        "    %c4 = arith.constant 4 : i32\n    %m1 = arith.constant -1 : i32\n"
        "    %f0 = arith.constant 0.000000e+00 : f32\n" + pre
        + f"    %r = scf.for {header} iter_args(%acc = %f0) -> (f32)  : i32 {{\n"
        "      %l = tt.load %p : !tt.ptr<f32>\n      %s = arith.addf %acc, %l : f32\n"
        "      scf.yield %s : f32\n    }\n    tt.store %q, %r : !tt.ptr<f32>\n", f"{P}, %n: i32")


@pytest.mark.parametrize("header,hoisted", [
    ("%i = %c0 to %c4 step %c1", True),  # signed, constant 0 < 4: runs
    ("%i = %c0 to %n step %c1", True),  # signed: guarded by 0 < n
    ("unsigned %i = %c0 to %c4 step %c1", False),
    ("unsigned %i = %c0 to %n step %c1", False),  # `slt` would be the wrong guard
    ("unsigned %i = %m1 to %c4 step %c1", False),  # -1 < 4 signed, but 2**32-1 > 4 unsigned
])
def test_hoist_load_leaves_an_unsigned_loop_alone(header, hoisted, triton36):
    """hoist-load reasons about ``lb < ub`` as signed integers (its trip-count rule and its
    ``arith.cmpi slt`` guard): wrong for ``scf.for unsigned``, whose loads stay."""
    text = _loop(header)
    out = ttopt.optimize(text, ["hoist-load"], "k.ttir")
    body = out.split("scf.for", 1)[1]
    assert ("tt.load" not in body) == hoisted, out
    assert triton36(out), out
    for passes in PASSES:
        assert triton36(ttopt.optimize(text, passes, "k.ttir"))


def test_hoist_load_from_an_unsigned_loop_when_a_load_before_it_covers_it(triton36):
    """Condition 3b does not depend on the trip count: a load of the same address before
    the loop already touched those bytes."""
    text = _loop("unsigned %i = %c0 to %n step %c1",
                 "    %first = tt.load %p : !tt.ptr<f32>\n    tt.store %q, %first : !tt.ptr<f32>\n")
    out = ttopt.optimize(text, ["hoist-load"], "k.ttir")
    assert "tt.load" not in out.split("scf.for", 1)[1]
    assert "scf.for unsigned %i" in out and triton36(out)


def test_canonicalize_leaves_an_unsigned_loop_alone(triton36):
    """xDSL's scf.for patterns compare the bounds as signed integers: `4 to -1` would be a loop
    that never runs and be erased, where unsigned it runs 2**32 - 5 times."""
    text = _func(
        "    %c0 = arith.constant 0 : i32\n    %c1 = arith.constant 1 : i32\n"
        "    %c4 = arith.constant 4 : i32\n    %m1 = arith.constant -1 : i32\n"
        "    %r = scf.for unsigned %i = %c4 to %m1 step %c1 iter_args(%a = %c0) -> (i32)  : i32 {\n"
        "      %b = arith.addi %a, %c1 : i32\n      scf.yield %b : i32\n    }\n"
        "    %s = scf.for %i = %c4 to %m1 step %c1 iter_args(%a = %c0) -> (i32)  : i32 {\n"
        "      %b = arith.addi %a, %c1 : i32\n      scf.yield %b : i32\n    }\n"
        "    tt.store %p, %r : !tt.ptr<i32>\n    tt.store %p, %s : !tt.ptr<i32>\n",
        "%p: !tt.ptr<i32>")
    out = ttopt.optimize(text, list(ttopt.parse_pipeline("canonicalize")), "k.ttir")
    assert out.count("scf.for") == 1 and "scf.for unsigned %i = %c4 to %m1" in out  # the signed one: gone
    assert "tt.store %p, %c0 : !tt.ptr<i32>" in out and triton36(out)


def test_a_switch_printed_anew_names_the_blocks_as_their_labels(triton36):
    """(An op printed anew named blocks by the printer's own count while the labels copied
    from the input kept their names: `default: ^bb0(..)`, an undefined block.)"""
    text = (
        "module {\n  tt.func public @k(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>, %n: i32) {\n"
        "    %a = tt.load %p evictionPolicy = evict_last : !tt.ptr<f32>\n"
        "    %b = tt.load %p evictionPolicy = evict_first : !tt.ptr<f32>\n"
        "    cf.switch %n : i32, [default: ^bb2(%b : f32), 1: ^bb1]\n"
        "  ^bb1:  // pred: ^bb0\n    tt.return\n"
        "  ^bb2(%x: f32):  // pred: ^bb0\n    tt.store %q, %x : !tt.ptr<f32>\n"
        "    tt.store %q, %a : !tt.ptr<f32>\n    tt.return\n  }\n}\n")
    out = ttopt.optimize(text, ["redundant-load"], "k.ttir")
    assert "default: ^bb2(%a : f32)," in out and triton36(out), out


# ------------------------------------------------------------------------------ versions
# Each release's own parser and verifier (tools/versions/oracle.py; the environments of
# tools/versions/make_envs.py, ~/.cache/ttopt-triton-envs; skipped without them).
@pytest.mark.versions
@pytest.mark.parametrize("release", RELEASES, ids=versions.show)
def test_each_release_judges_the_cases_as_the_table_says(release, tmp_path):
    """Triton R reads exactly the cases the table gives it, refuses every invalid case, and
    reads what ttopt writes for R (printed anew, and after the passes)."""
    oracle = ReleaseOracle(release, tmp_path)
    crashes = release >= (3, 2)
    for name, (text, accepted) in VALID.items():
        if crashes and name in CRASHES_FROM_3_2:
            continue
        oracle.add(name, text, release in accepted)
        if release in accepted:
            for i, out in enumerate(release_outputs(text, release, PASSES)):
                oracle.add(f"{name}.out{i}", out, True)
    for name, (text, _, _) in INVALID.items():
        if name in VALID:
            continue
        oracle.add(f"bad_{name}", text, False)
    oracle.check()


@pytest.mark.versions
@pytest.mark.parametrize("release", [(3, 1), (3, 2), (3, 9)], ids=versions.show)
def test_case_values_outside_the_signed_range_abort_triton_32_and_later(release, tmp_path):
    oracle = ReleaseOracle(release, tmp_path)
    for name in sorted(CRASHES_FROM_3_2):
        path = tmp_path / f"{name}.ttir"
        path.write_text(VALID[name][0])
        try:
            (result,) = oracle.oracle.check(oracle.version, [path])
            accepted = result["ok"]
        except oracle.oracle.OracleError:  # Triton aborted (LLVM's APInt assertion)
            accepted = False
        assert accepted == (release < (3, 2)), name
        assert _reads(VALID[name][0], release) == accepted


@pytest.mark.parametrize("results, yields", [("f32", "%f : f32"), ("(f32)", "%f : f32"),
                                             ("(f32, i32)", "%f, %g : f32, i32"), ("()", "")])
def test_scf_if_results_with_or_without_parentheses(results, yields, triton36):
    """MLIR's result list: `-> f32` as well as `-> (f32)` (xDSL 0.74 took the second only:
    `'(' expected` on a kernel Triton reads)."""
    n = 0 if results == "()" else results.count(",") + 1
    bind = "" if n == 0 else ("%r = " if n == 1 else f"%r:{n} = ")
    y = f"scf.yield {yields}" if yields else "scf.yield"
    text = (f"module {{\n  tt.func public @k(%t: i1, %f: f32, %g: i32) {{\n    {bind}scf.if %t -> {results} {{\n"
            f"      {y}\n    }} else {{\n      {y}\n    }}\n    tt.return\n  }}\n}}\n")
    assert triton36(text)
    assert ttopt.optimize(text, []) == text
    printed = write_module(read_module(text, "k.ttir"), keep_text=False)
    assert triton36(printed)
