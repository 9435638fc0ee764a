"""Three kinds of valid input ttopt refused: dense complex constants, a file's resources
section (``{-# dialect_resources: ... #-}``) with ``dense_resource<...>`` uses, and typed
strings (``"x" : i32``) in attribute dictionaries.  Each is read, verified, written back byte
for byte, printed anew in a form Triton reads (with the same value), kept through the passes,
and refused, with one ``FILE:LINE:COL: error:`` line, where Triton refuses it.

Which releases read what (each release's own parser and verifier, ``tools/versions``; the
``versions`` tests at the end check the table):

* complex constants: ``dense<(re, im)>`` and ``dense<[(re, im), ...]>`` of a tensor of
  ``complex<fN>`` / ``complex<iN>``, a hexadecimal part as a float's bits, ``dense<"0x..">``,
  and a pair for a tensor of two real numbers (its two elements): every release 2.1-3.9.
  Not a vector of complex numbers (no release), not an ``arith.constant (1.0, 2.0) :
  complex<f32>`` (no scalar complex attribute exists).  MLIR reads the numbers of a complex
  literal as one run, the parts of nested ``(..)`` and plain numbers too, paired in order:
  3.4+ count them (2 per element, 2 for one to repeat: ``dense<[((1.0, 2.0), 3.0), 4.0]>``
  is two elements in every release); the releases before read as many pairs as elements, or
  one pair to repeat, the rest dropped (``dense<((1.0, 2.0), 3.0)>``, ``dense<[(1.0, 2.0),
  3.0]>``, ``dense<[1.0, 2.0]>``: 2.1-3.3 only, and ttopt reads them only as those
  releases' text), and abort on any other count (2.2-3.3; 2.1 reads past the numbers, and
  reads ``dense<1.0>`` for complex numbers and any pair for real numbers too, which 2.2+
  abort on: ttopt refuses those, KNOWN_GAPS).
* the resources section (anywhere at the top level, repeated, empty): every release; a key
  written as a string (``"a b": ...``, ``dense_resource<"a b">``): 3.3+; an empty group of
  another dialect: ``ttg``/``ttng`` 3.3+, ``llvm`` up to 3.3, ``triton_gpu`` up to 3.2; a blob
  whose alignment is no power of two: 2.1 only.  ``dense_resource`` of a key with no blob:
  every release.
* typed strings in a dictionary (module, function, argument, op attributes, nested), an array
  or a generic op's attribute dictionary: every release.
"""

from __future__ import annotations

import math
import pathlib
import re
import subprocess
import sys

import pytest

import ttopt
from conftest import ReleaseOracle, release_outputs, since, until
from ttopt.dialects import versions
from ttopt.errors import TTOptError
from ttopt.ir.reader import read_module
from ttopt.ir.writer import write_module
from ttopt.xdsl_compat import TypedStringAttr

ROOT = pathlib.Path(__file__).resolve().parent.parent
RELEASES = versions.RELEASES
ALL = frozenset(RELEASES)
PASSES = (["redundant-load", "redundant-reduce", "div-chain"], ["all"])


def _func(body: str, after: str = "") -> str:
    return "module {\n  tt.func public @k() {\n" + body + "    tt.return\n  }\n}\n" + after


def _const(value: str, type_: str) -> str:
    return _func(f"    %c = arith.constant {value} : {type_}\n")


BLOB = '{-# dialect_resources: { builtin: { blob1: "0x040000000100000002000000" } } #-}\n'
MLIR_BLOB = (  # (as MLIR prints the section)
    "{-#\n  dialect_resources: {\n    builtin: {\n"
    '      blob1: "0x040000000100000002000000",\n      blob2: "0x08000000"\n    }\n  },\n'
    "  external_resources: {\n    mlir_reproducer: {\n"
    '      pipeline: "builtin.module(canonicalize)",\n      disable_threading: false,\n'
    "      verify_each: true\n    }\n  }\n#-}\n"
)


def _resources(section: str, body: str = "") -> str:
    return _func(body, section)


def _attrs(attrs: str) -> str:
    return _func(f"    %c = arith.constant {{{attrs}}} 1 : i32\n")


# name -> (text, the releases whose Triton reads it)
VALID = {
    # --- complex constants
    "c_splat": (_const("dense<(1.0, 2.0)>", "tensor<2xcomplex<f32>>"), ALL),
    "c_list": (_const("dense<[(1.0,2.0),(3.0,4.0)]>", "tensor<2xcomplex<f32>>"), ALL),
    "c_i32": (_const("dense<(1, 2)>", "tensor<2xcomplex<i32>>"), ALL),
    "c_i32_list": (_const("dense<[(1, -2), (3, 4)]>", "tensor<2xcomplex<i32>>"), ALL),
    "c_2d": (_const("dense<[[(1.0,2.0)],[(3.0,4.0)]]>", "tensor<2x1xcomplex<f32>>"), ALL),
    "c_2x3_i16": (_const("dense<[[(1, 2), (3, 4), (5, 6)], [(7, 8), (9, 10), (11, -12)]]>",
                         "tensor<2x3xcomplex<i16>>"), ALL),
    "c_f16": (_const("dense<(1.5, -2.0)>", "tensor<4xcomplex<f16>>"), ALL),
    "c_bf16": (_const("dense<(1.5, 2.0)>", "tensor<2xcomplex<bf16>>"), ALL),
    "c_f64": (_const("dense<(1.5, 2.0)>", "tensor<2x2xcomplex<f64>>"), ALL),
    "c_f8": (_const("dense<(1.0, 2.0)>", "tensor<2xcomplex<f8E5M2>>"), ALL),
    "c_i1": (_const("dense<(true, 1)>", "tensor<2xcomplex<i1>>"), ALL),
    "c_i64": (_const("dense<(1, 2)>", "tensor<2xcomplex<i64>>"), ALL),
    "c_i8_wraps": (_const("dense<(255, -128)>", "tensor<2xcomplex<i8>>"), ALL),
    "c_ui8": (_const("dense<(255, 0)>", "tensor<2xcomplex<ui8>>"), ALL),
    "c_negative": (_const("dense<(- 1.0, -0.0)>", "tensor<2xcomplex<f32>>"), ALL),
    "c_hex_parts": (_const("dense<(0x7F800000, 1.0)>", "tensor<2xcomplex<f32>>"), ALL),
    "c_nan_payloads": (_const("dense<[(0x7F800001, 1.0), (0x7F800001, 1.0), (2.0, 0xFFC00002)]>",
                              "tensor<3xcomplex<f32>>"), ALL),
    "c_hex_string": (_const('dense<"0x0000803F00000040">', "tensor<3x2xcomplex<f32>>"), ALL),
    "c_empty": (_const("dense<>", "tensor<0xcomplex<f32>>"), ALL),
    "c_0d": (_const("dense<(1.0, 2.0)>", "tensor<complex<f32>>"), ALL),
    "c_comment": (_func("    %c = arith.constant dense<(1.0, // re\n      2.0)> : "
                        "tensor<2xcomplex<f32>>\n"), ALL),
    "c_pair_of_reals": (_const("dense<(1.0, 2.0)>", "tensor<2xf32>"), ALL),
    "c_pair_of_ints": (_const("dense<(1, 2)>", "tensor<1x2xi32>"), ALL),
    "c_in_attributes": (_attrs("a = dense<(1.0, 2.0)> : tensor<2xcomplex<f32>>"), ALL),
    "c_generic": (_func('    %c = "arith.constant"() <{value = dense<(1.0, 2.0)> : '
                        "tensor<2xcomplex<f32>>}> : () -> tensor<2xcomplex<f32>>\n"), ALL),
    "c_nested_counted": (_const("dense<[((1.0, 2.0), 3.0), 4.0]>", "tensor<2xcomplex<f32>>"), ALL),
    "c_nested_counted_i": (_const("dense<[1, (2, (3, 4))]>", "tensor<2xcomplex<i32>>"), ALL),
    # (read by 2.1-3.3 only: pairs in the order they come, the rest dropped)
    "c_nested": (_const("dense<((1.0, 2.0), 3.0)>", "tensor<2xcomplex<f32>>"), until((3, 3))),
    "c_mixed_list": (_const("dense<[(1.0, 2.0), 3.0]>", "tensor<2xcomplex<f32>>"), until((3, 3))),
    "c_nested_pairs": (_const("dense<((1.0, 2.0), (3.0, 4.0))>", "tensor<2xcomplex<f32>>"),
                       until((3, 3))),
    "c_list_of_nested": (_const("dense<[((1, 2), 3), (4, 5)]>", "tensor<2xcomplex<i32>>"),
                         until((3, 3))),
    "c_list_of_reals": (_const("dense<[1.0, 2.0]>", "tensor<2xcomplex<f32>>"), until((3, 3))),
    "c_nested_0d": (_const("dense<((0x7F800000, 2.0), 3.0)>", "tensor<complex<f32>>"), until((3, 3))),
    # --- resources
    "r_no_use": (_resources(BLOB), ALL),
    "r_use": (_resources(BLOB, "    %c = arith.constant dense_resource<blob1> : tensor<2xi32>\n"), ALL),
    "r_use_f32": (_resources(BLOB, "    %c = arith.constant dense_resource<blob1> : tensor<2xf32>\n"), ALL),
    "r_use_without_blob": (_func("    %c = arith.constant dense_resource<blob9> : tensor<2xi32>\n"), ALL),
    "r_use_vector": (_func("    %c = arith.constant dense_resource<b> : vector<2xi32>\n"), ALL),
    "r_use_unranked": (_func("    %c = arith.constant dense_resource<b> : tensor<*xi32>\n"), ALL),
    "r_use_pointers": (_func("    %c = arith.constant dense_resource<b> : tensor<2x!tt.ptr<f32>>\n"), ALL),
    "r_use_complex": (_func("    %c = arith.constant dense_resource<b> : tensor<2xcomplex<f32>>\n"), ALL),
    "r_use_in_attributes": (_attrs("a = dense_resource<blob1> : tensor<2xi32>"), ALL),
    "r_mlir_layout": (_resources(MLIR_BLOB), ALL),
    "r_external": (_resources('{-# external_resources: { foo: { a: 1, b: true, c: "x" } } #-}\n'), ALL),
    "r_first": ('{-# dialect_resources: { builtin: { b: "0x04000000" } } #-}\n' + _func(""), ALL),
    "r_twice": (_resources(BLOB + BLOB), ALL),
    "r_duplicate_key": (_resources('{-# dialect_resources: { builtin: { b: "0x04000000", '
                                   'b: "0x08000000" } } #-}\n'), ALL),
    "r_empty": (_resources("{-#\n#-}\n"), ALL),
    "r_empty_groups": (_resources("{-# dialect_resources: {}, external_resources: {} #-}\n"), ALL),
    "r_empty_builtin": (_resources("{-# dialect_resources: { builtin: {} } #-}\n"), ALL),
    "r_align_0": (_resources('{-# dialect_resources: { builtin: { b: "0x00000000" } } #-}\n'), ALL),
    "r_align_3": (_resources('{-# dialect_resources: { builtin: { b: "0x03000000" } } #-}\n'),
                  frozenset({(2, 1)})),
    "r_string_key": (_resources('{-# dialect_resources: { builtin: { "a b": '
                                '"0x040000000100000002000000" } } #-}\n',
                                '    %c = arith.constant dense_resource<"a b"> : tensor<2xi32>\n'),
                     since((3, 3))),
    "r_external_string_key": (_resources('{-# external_resources: { foo: { "a b": 1 } } #-}\n'),
                              since((3, 3))),
    "r_ttg_group": (_resources("{-# dialect_resources: { ttg: {}, ttng: {} } #-}\n"), since((3, 3))),
    "r_llvm_group": (_resources("{-# dialect_resources: { llvm: {} } #-}\n"), until((3, 3))),
    "r_triton_gpu_group": (_resources("{-# dialect_resources: { triton_gpu: {} } #-}\n"),
                           until((3, 2))),
    # --- typed strings
    "s_module": ('module attributes {"ttg.num-warps" = 4 : i32, "tt.foo" = "x" : i32} {\n'
                 "  tt.func public @k() {\n    tt.return\n  }\n}\n", ALL),
    "s_function": ('module {\n  tt.func public @k() attributes {a = "x" : i32} {\n    tt.return\n'
                   "  }\n}\n", ALL),
    "s_argument": ('module {\n  tt.func public @k(%a: i32 {tt.x = "y" : i64}) {\n    tt.return\n'
                   "  }\n}\n", ALL),
    "s_op": (_attrs('a = "x" : i32'), ALL),
    "s_generic_op": (_func('    %c = "arith.constant"() <{value = 1 : i32}> {a = "x" : i32} : '
                           "() -> i32\n"), ALL),
    "s_array": (_attrs('a = ["x" : i32, "y", ["z" : f16]]'), ALL),
    "s_dictionary": (_attrs('a = {b = "x" : f16}'), ALL),
    "s_escapes": (_attrs('a = "a\\"b\\n" : i32'), ALL),
    "s_tensor_type": (_attrs('a = "x" : tensor<2xf32>'), ALL),
    "s_pointer_type": (_attrs('a = "x" : !tt.ptr<f32>'), ALL),
    "s_none_type": (_attrs('a = "x" : none'), ALL),
    "s_blanks": (_attrs('a = "x"\n      :   i32, b = "x"'), ALL),
    "s_target": ('module attributes {"ttg.num-warps" = 4 : i32, "ttg.target" = "cuda:90" : i32, '
                 '"ttg.threads-per-warp" = 32 : i32} {\n  tt.func public @k() {\n    tt.return\n'
                 "  }\n}\n", ALL),
}

# name -> (text, ttopt's error (3.6), the releases whose Triton reads it all the same)
INVALID = {
    # --- complex constants
    "c_one_part": (_const("dense<(1.0)>", "tensor<2xcomplex<f32>>"),
                   "3:35: error: expected ',' between complex elements", frozenset()),
    "c_three_parts": (_const("dense<(1.0, 2.0, 3.0)>", "tensor<2xcomplex<f32>>"),
                      "3:40: error: expected ')' after complex elements", frozenset()),
    "c_real_splat": (_const("dense<1.0>", "tensor<2xcomplex<f32>>"),
                     "3:25: error: parsed 1 elements, but type ('complex<f32>') expected 2 "
                     "elements", frozenset({(2, 1)})),
    "c_nested_out_of_range": (_const("dense<((1, 2), 300)>", "tensor<2xcomplex<i8>>"),
                              "3:25: error: parsed 3 elements, but type ('complex<i8>') expected 2 "
                              "elements", frozenset()),
    "c_nested_list_shape": (_const("dense<[(1.0, 2.0), 3.0]>", "tensor<4xcomplex<f32>>"),
                            "4:5: error: Shape mismatch in dense literal. Expected [4] shape from "
                            "the type, but got [2] shape.", frozenset()),
    "c_pairs_short": (_const("dense<[(1.0, 2.0), 3.0, 4.0]>", "tensor<3xcomplex<f32>>"),
                      "3:25: error: parsed 4 elements, but type ('tensor<3xcomplex<f32>>') "
                      "expected 6 elements", frozenset({(2, 1)})),
    "c_reals_short": (_const("dense<[1.0, 2.0, 3.0, 4.0]>", "tensor<4xcomplex<f32>>"),
                      "3:25: error: parsed 4 elements, but type ('tensor<4xcomplex<f32>>') "
                      "expected 8 elements", frozenset({(2, 1)})),
    "c_int_for_float": (_const("dense<(1, 2)>", "tensor<2xcomplex<f32>>"),
                        "3:32: error: unexpected decimal integer literal for a floating point "
                        "value", frozenset()),
    "c_mixed_parts": (_const("dense<(1.0, 2)>", "tensor<2xcomplex<f32>>"),
                      "3:37: error: unexpected decimal integer literal for a floating point "
                      "value", frozenset()),
    "c_float_for_int": (_const("dense<(1.0, 2.0)>", "tensor<2xcomplex<i32>>"),
                        "3:32: error: Expected integer value", frozenset()),
    "c_bool_for_float": (_const("dense<(true, false)>", "tensor<2xcomplex<f32>>"),
                         "3:32: error: expected floating point literal", frozenset()),
    "c_out_of_range": (_const("dense<(300, 2)>", "tensor<2xcomplex<i8>>"),
                       "3:32: error: integer constant out of range for attribute", frozenset()),
    "c_negative_unsigned": (_const("dense<(-1, 0)>", "tensor<2xcomplex<ui8>>"),
                            "3:32: error: Expected non-negative integer values", frozenset()),
    "c_negative_hex": (_const("dense<(-0x3F800000, 2.0)>", "tensor<2xcomplex<f32>>"),
                       "3:33: error: hexadecimal float literal should not have a leading minus",
                       frozenset()),
    "c_hex_too_wide": (_const("dense<(0x1FFFFFFFF, 2.0)>", "tensor<2xcomplex<f32>>"),
                       "3:32: error: hexadecimal float literal too large", frozenset()),
    "c_vector": (_const("dense<(1.0, 2.0)>", "vector<2xcomplex<f32>>"),
                 "3:45: error: dense literal expects a tensor of integers, floats or complex "
                 "numbers", frozenset()),
    "c_index": (_const("dense<(1, 2)>", "tensor<2xcomplex<index>>"),
                "3:63: error: Complex type must be parameterized by an integer or float type!",
                frozenset()),
    "c_scalar": (_const("(1.0, 2.0)", "complex<f32>"), "3:26: error: type expected", frozenset()),
    "c_list_shape": (_const("dense<[(1.0,2.0)]>", "tensor<2xcomplex<f32>>"),
                     "4:5: error: Shape mismatch in dense literal. Expected [2] shape from the "
                     "type, but got [1] shape.", frozenset()),
    "c_real_pair_shape": (_const("dense<[(1.0, 2.0), (3.0, 4.0)]>", "tensor<4xf32>"),
                          "3:32: error: a complex element in a dense literal of f32 (Triton "
                          "aborts: it reads one only as the two elements of a 2-element tensor)",
                          frozenset()),
    # --- resources
    "r_not_hex": (_resources('{-# dialect_resources: { builtin: { b: "0x0400zz00" } } #-}\n'),
                  "6:40: error: expected hex string blob for key 'b'", frozenset()),
    "r_not_string": (_resources("{-# dialect_resources: { builtin: { b: true } } #-}\n"),
                     "6:40: error: expected hex string blob for key 'b'", frozenset()),
    "r_no_0x": (_resources('{-# dialect_resources: { builtin: { b: "04000000" } } #-}\n'),
                "6:40: error: expected hex string blob for key 'b'", frozenset()),
    "r_upper_0X": (_resources('{-# dialect_resources: { builtin: { b: "0X04000000" } } #-}\n'),
                   "6:40: error: expected hex string blob for key 'b'", frozenset()),
    "r_odd_digits": (_resources('{-# dialect_resources: { builtin: { b: "0x040000001" } } #-}\n'),
                     "6:40: error: expected hex string blob for key 'b'", frozenset()),
    "r_short": (_resources('{-# dialect_resources: { builtin: { b: "0x0400" } } #-}\n'),
                "6:40: error: expected hex string blob for key 'b' to encode alignment in first "
                "4 bytes", frozenset()),
    "r_unclosed": (_resources('{-# dialect_resources: { builtin: { b: "0x04000000" } }\n'),
                   "7:1: error: unexpected end of input (truncated file?)", frozenset()),
    "r_unknown_dialect": (_resources('{-# dialect_resources: { foo: { b: "0x04000000" } } #-}\n'),
                          "6:26: error: dialect 'foo' is unknown", frozenset()),
    "r_tt_group": (_resources('{-# dialect_resources: { tt: { b: "0x04000000" } } #-}\n'),
                   "6:32: error: unexpected 'resource' section for dialect 'tt'", frozenset()),
    "r_ttg_entry": (_resources('{-# dialect_resources: { ttg: { k: "0x04000000" } } #-}\n'),
                    "6:33: error: unknown 'resource' key 'k' for dialect 'ttg'", frozenset()),
    "r_unknown_key": (_resources("{-# foo_resources: { } #-}\n"),
                      "6:5: error: unknown key 'foo_resources' in file metadata dictionary",
                      frozenset()),
    "r_trailing_comma": (_resources('{-# dialect_resources: { builtin: { b: "0x04000000", } } #-}\n'),
                         "6:54: error: expected identifier key for 'resource' entry", frozenset()),
    "r_string_group": (_resources('{-# external_resources: { "foo": { a: 1 } } #-}\n'),
                       "6:27: error: expected identifier key for 'resource' entry", frozenset()),
    "r_external_no_value": (_resources("{-# external_resources: { foo: { a: } } #-}\n"),
                            "6:41: error: expected ',' or '}'", frozenset()),
    "r_use_number": (_func("    %c = arith.constant dense_resource<1> : tensor<2xi32>\n"),
                     "3:40: error: expected identifier key for 'resource' entry", frozenset()),
    "r_use_not_shaped": (_func("    %c = arith.constant dense_resource<b> : i32\n"),
                         "3:45: error: `dense_resource` expected a shaped type", frozenset()),
    # --- typed strings
    "s_no_type": (_attrs('a = "x" : '), "3:36: error: type expected", frozenset()),
    "s_number_for_type": (_attrs('a = "x" : 5'), "3:36: error: type expected", frozenset()),
    "s_two_types": (_attrs('a = "x" : i32 : i32'), "3:40: error: '}' expected", frozenset()),
    "s_too_wide": (_attrs('a = "x" : i99999999999'), "3:36: error: invalid integer width",
                   frozenset()),
    "s_as_constant": (_func('    %c = arith.constant "x" : i32\n'),
                      "3:29: error: Unexpected attribute \"x\"", frozenset()),
    "i_too_wide": (_attrs("a = 1 : i99999999999"), "3:34: error: invalid integer width", frozenset()),
    # (a width of thousands of digits: an internal error, Python's int() limit; a type's
    # width was not checked: `tensor<2xi16777216>`, `%x: i99999999999` read)
    "i_digits": (_attrs("a = 1 : i" + "9" * 5000), "3:34: error: invalid integer width", frozenset()),
    "i_limit": (_attrs("a = 1 : i16777216"),
                "3:34: error: integer bitwidth is limited to 16777215 bits", frozenset()),
    "t_too_wide": (_func("    %c = arith.constant dense<1> : tensor<2xi16777216>\n"),
                   "3:45: error: integer bitwidth is limited to 16777215 bits", frozenset()),
}

# Triton 2.2-3.3 abort on these (the check 3.4 added stood after the assertion)
CRASHES_2_2_TO_3_3 = {"c_real_splat", "c_pairs_short", "c_reals_short"}

# Triton aborts on these (an assertion: the literal's count against the type's): asked in a
# process of its own.  Triton 2.1 (no assertion) reads them (KNOWN_GAPS).
CRASHES = {
    "c_pair_for_four": (_const("dense<(1.0, 2.0)>", "tensor<4xf32>"), "3:31"),
    "c_pair_for_one": (_const("dense<(1.0, 2.0)>", "tensor<1xf32>"), "3:31"),
    "c_pair_for_0d": (_const("dense<(1.0, 2.0)>", "tensor<f32>"), "3:31"),
    "c_pairs_for_two": (_const("dense<[(1.0, 2.0), (3.0, 4.0)]>", "tensor<2xf32>"), "3:32"),
    "c_pair_in_list": (_const("dense<[(1.0, 2.0), 3.0]>", "tensor<2xf32>"), "3:32"),
}


@pytest.fixture(scope="module")
def triton36():
    pytest.importorskip("triton")
    from ttopt.oracle import triton_accepts

    return lambda text: triton_accepts(text, ".ttir").ok


@pytest.fixture(scope="module")
def triton36_text():
    pytest.importorskip("triton")
    from ttopt.oracle import triton_module_text

    return lambda text: triton_module_text(text, ".ttir")


def _error(text: str, release=None) -> str | None:
    try:
        read_module(text, "t.ttir", triton_version=release and versions.show(release))
    except TTOptError as e:
        return str(e)
    return None


V36 = [n for n, (_, r) in VALID.items() if versions.DEFAULT in r]


# ------------------------------------------------------------------------------ Triton 3.6
@pytest.mark.parametrize("name", V36)
def test_valid_is_read_and_written_back(name, triton36):
    text = VALID[name][0]
    assert triton36(text), "Triton 3.6 rejects the case"
    assert ttopt.optimize(text, [], "k.ttir") == text
    anew = write_module(read_module(text, "k.ttir"), keep_text=False)
    assert triton36(anew), anew
    assert ttopt.optimize(anew, [], "k.ttir") == anew  # (what ttopt prints, ttopt reads)
    for passes in PASSES:
        out = ttopt.optimize(text, passes, "k.ttir")
        assert out == text and triton36(out), passes


_LOC = re.compile(r" loc\([^)]*\)")
# (Triton's one context renames a resource key declared again, by an earlier case: `blob1_3`)
_RENAMED = re.compile(r"_[0-9]+(?=\"?[>:])")


@pytest.mark.parametrize("name", [n for n in V36 if not n.startswith("r_")])
def test_printed_anew_it_means_what_the_input_means(name, triton36_text):
    """Triton's own print of ttopt's output is its print of the input: the same values."""
    text = VALID[name][0]
    anew = write_module(read_module(text, "k.ttir"), keep_text=False)
    assert triton36_text(anew) == triton36_text(text), anew


@pytest.mark.parametrize("name", [n for n in V36 if n.startswith("r_")])
def test_resources_are_kept_printed_anew(name, triton36_text):
    text = VALID[name][0]
    anew = write_module(read_module(text, "k.ttir"), keep_text=False)
    for section in re.findall(r"\{-#.*?#-\}", text, re.S):
        assert section in anew
    uses = re.findall(r"dense_resource<[^>]*> : [^ \n]*", text)
    assert uses == re.findall(r"dense_resource<[^>]*> : [^ \n]*", anew)
    said = lambda t: _RENAMED.sub("", triton36_text(t))  # noqa: E731
    assert said(anew) == said(text)


def test_values_read():
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, DenseResourceAttr

    def value(name):
        mod = read_module(VALID[name][0], "k.ttir")
        return next(o for o in mod.op.walk() if o.name == "arith.constant").properties["value"]

    v = value("c_list")
    assert isinstance(v, DenseIntOrFPElementsAttr) and v.get_values() == ((1.0, 2.0), (3.0, 4.0))
    assert value("c_splat").get_values() == ((1.0, 2.0), (1.0, 2.0))
    assert value("c_i8_wraps").get_values() == ((-1, -128), (-1, -128))
    assert value("c_pair_of_reals").get_values() == (1.0, 2.0)
    assert value("c_hex_parts").data.data[:8] == bytes.fromhex("0000807F0000803F")
    r = value("r_use")
    assert isinstance(r, DenseResourceAttr) and r.resource_handle.data == "blob1"
    # a key read again keeps its name (xDSL's builtin dialect renames one declared before)
    assert value("r_use").resource_handle.data == "blob1"
    mod = read_module(VALID["s_module"][0], "k.ttir")
    foo = mod.op.attributes["tt.foo"]
    assert isinstance(foo, TypedStringAttr) and foo.data == "x" and str(foo.type) == "i32"
    # `: none` is a plain string, as in MLIR
    from xdsl.dialects.builtin import StringAttr

    c = next(o for o in read_module(VALID["s_none_type"][0], "k.ttir").op.walk()
             if o.name == "arith.constant")
    assert type(c.attributes["a"]) is StringAttr


# the values Triton 2.1-3.3 read from the literals only they read (each release's own print
# of the module, asked with tools/versions' environments): pairs in order, the rest dropped,
# one pair repeated
OLD_VALUES = {
    "c_nested": ((1.0, 2.0), (1.0, 2.0)),
    "c_mixed_list": ((1.0, 2.0), (1.0, 2.0)),
    "c_nested_pairs": ((1.0, 2.0), (3.0, 4.0)),
    "c_list_of_nested": ((1, 2), (3, 4)),
    "c_list_of_reals": ((1.0, 2.0), (1.0, 2.0)),
    "c_nested_0d": ((math.inf, 2.0),),
    "c_nested_counted": ((1.0, 2.0), (3.0, 4.0)),
    "c_nested_counted_i": ((1, 2), (3, 4)),
}


@pytest.mark.parametrize("release", sorted(until((3, 3))), ids=versions.show)
def test_the_complex_literals_only_2x_to_3_3_read_have_their_values(release):
    for name, expected in OLD_VALUES.items():
        mod = read_module(VALID[name][0], "k.ttir", triton_version=versions.show(release))
        c = next(o for o in mod.op.walk() if o.name == "arith.constant")
        assert c.properties["value"].get_values() == expected, name
    # read as 3.4+'s text, they are refused as 3.4+ refuse them (Triton 3.6's words)
    assert _error(VALID["c_nested"][0]) == (
        "t.ttir:3:25: error: parsed 3 elements, but type ('complex<f32>') expected 2 elements")
    assert _error(VALID["c_list_of_reals"][0]) == (
        "t.ttir:3:25: error: parsed 2 elements, but type ('tensor<2xcomplex<f32>>') expected 4 elements")


def test_a_miscounted_complex_literal_gets_triton_s_words(capfd):
    """Triton 3.6's message and place for the literals 3.4+ count and refuse."""
    pytest.importorskip("triton")
    from ttopt.oracle import triton_accepts

    for name in ("c_nested", "c_mixed_list", "c_list_of_reals", "c_nested_pairs"):
        text = VALID[name][0]
        capfd.readouterr()
        assert not triton_accepts(text, ".ttir").ok, name
        m = re.search(r'loc\("[^"]*":(\d+:\d+)\): error: (.*)', capfd.readouterr().err)
        assert _error(text) == f"t.ttir:{m[1]}: error: {m[2]}", name


def test_printed_anew():
    def anew(name):
        return write_module(read_module(VALID[name][0], "k.ttir"), keep_text=False)

    assert "dense<(1.000000e+00,2.000000e+00)> : tensor<2xcomplex<f32>>" in anew("c_splat")
    assert ("dense<[(0x7F800001,1.000000e+00), (0x7F800001,1.000000e+00), "
            "(2.000000e+00,0xFFC00002)]> : tensor<3xcomplex<f32>>") in anew("c_nan_payloads")
    assert "dense<[[(1,2), (3,4), (5,6)], [(7,8), (9,10), (11,-12)]]>" in anew("c_2x3_i16")
    assert 'dense_resource<"a b"> : tensor<2xi32>' in anew("r_string_key")
    assert '{a = ["x" : i32, "y", ["z" : f16]]}' in anew("s_array")
    assert '{a = "a\\22b\\0A" : i32}' in anew("s_escapes")
    assert '{a = "x"}' in anew("s_none_type")
    assert anew("r_mlir_layout").endswith("} loc(\"k.ttir\":1:1)\n" + MLIR_BLOB)


def test_an_op_string_takes_no_type():
    """``tt.assert %c, "m" : i1``: the op's own string is followed by the op's type."""
    text = ("module {\n  tt.func public @k(%c: i1) {\n    tt.assert %c, \"m\" : i1\n"
            "    tt.return\n  }\n}\n")
    assert ttopt.optimize(text, [], "k.ttir") == text


@pytest.mark.parametrize("name", list(INVALID))
def test_invalid_is_refused(name, triton36):
    text, error, _ = INVALID[name]
    assert _error(text) == f"t.ttir:{error}"
    assert not triton36(text), "Triton 3.6 accepts the invalid input"


@pytest.mark.parametrize("name", list(CRASHES))
def test_what_aborts_triton_is_refused(name):
    text, at = CRASHES[name]
    error = _error(text)
    assert error is not None and error.startswith(f"t.ttir:{at}: error: a complex element in a "
                                                  "dense literal of"), error
    proc = subprocess.run([sys.executable, "-m", "ttopt.oracle", "-"], input=text,
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode != 0, "Triton 3.6 accepts the input"


@pytest.mark.parametrize("name", ["c_one_part", "r_not_hex", "r_unclosed", "s_no_type",
                                  "i_too_wide", "c_pairs_short"])
def test_the_cli_says_one_line(name, tmp_path):
    text, error, _ = INVALID[name]
    path = tmp_path / "k.ttir"
    path.write_text(text)
    r = subprocess.run([sys.executable, "-m", "ttopt.cli", str(path)], capture_output=True,
                       text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == f"{path}:{error}\n"


def test_the_cli_writes_back_byte_for_byte(tmp_path):
    for name in ("c_list", "r_mlir_layout", "s_module"):
        path = tmp_path / f"{name}.ttir"
        path.write_text(VALID[name][0])
        r = subprocess.run([sys.executable, "-m", "ttopt.cli", str(path), "-p", "all"],
                           capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert r.returncode == 0 and r.stdout == VALID[name][0], r.stderr


def test_parsing_stays_linear():
    import time

    def seconds(n):
        text = _const("dense<[" + ", ".join(["(1.0, 2.0)"] * n) + "]>",
                      f"tensor<{n}xcomplex<f32>>")
        t = time.perf_counter()
        read_module(text, "k.ttir")
        return time.perf_counter() - t

    small, big = seconds(2000), seconds(20000)
    assert big < 25 * max(small, 0.01), (small, big)
    attrs = ", ".join(f'a{i} = "x" : i32' for i in range(5000))
    t = time.perf_counter()
    read_module(_attrs(attrs), "k.ttir")
    assert time.perf_counter() - t < 20


# ------------------------------------------------------------------------------ each release
# refused by ttopt though that release reads it: 2.1 reads a complex literal of other counts
# past the values it was given (2.2-3.3 abort on them)
KNOWN_GAPS = {(name, r) for name, (_, _, rs) in INVALID.items() for r in rs}
KNOWN_GAPS |= {(name, (2, 1)) for name in CRASHES}


# the releases ttopt reads a case as, where they are fewer than Triton's: a `ttg.` attribute
# name is a sign of a 3.3+ text to ttopt (Triton 2.1-3.2 take it as any other name)
TTOPT_READS = {"s_module": since((3, 3)), "s_target": since((3, 3))}


@pytest.mark.parametrize("release", RELEASES, ids=versions.show)
def test_each_release_reads_exactly_what_its_triton_reads(release):
    for name, (text, accepted) in VALID.items():
        accepted = TTOPT_READS.get(name, accepted)
        error = _error(text, release)
        assert (error is None) == (release in accepted), (name, release, error)
        if release in accepted:
            v = versions.show(release)
            assert ttopt.optimize(text, [], "k.ttir", triton_version=v) == text
    for name, (text, _, _) in INVALID.items():
        assert _error(text, release) is not None, (name, release)
    for name, (text, _) in CRASHES.items():
        assert _error(text, release) is not None, (name, release)


# ------------------------------------------------------------------------------ versions
@pytest.mark.versions
@pytest.mark.parametrize("release", RELEASES, ids=versions.show)
def test_each_release_judges_the_cases_as_the_table_says(release, tmp_path):
    """Triton R reads exactly the cases the table gives it and reads what ttopt writes for R
    (printed anew, and after the passes); it refuses the invalid cases (but the known gaps)."""
    oracle = ReleaseOracle(release, tmp_path)
    for name, (text, accepted) in VALID.items():
        oracle.add(name, text, release in accepted)
        if release in TTOPT_READS.get(name, accepted):
            for i, out in enumerate(release_outputs(text, release, PASSES)):
                oracle.add(f"{name}.out{i}", out, True)
    for name, (text, _, gap) in INVALID.items():
        if name in CRASHES_2_2_TO_3_3 and (2, 2) <= release <= (3, 3):
            continue
        oracle.add(f"bad_{name}", text, release in gap)
    oracle.check()
