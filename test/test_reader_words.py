"""The reader's words where xDSL's differ from MLIR's, compared with Triton's (line, column and
message; every release 2.1-3.9 says the same: the ``versions`` test asks each):

* ``%x#5`` where ``%x`` has fewer results: ``reference to invalid result number``, at the
  operand (xDSL: "SSA value tuple index out of bounds ..."); used above a definition of
  fewer results, MLIR never defines the name: an undefined value, at the use, after the
  whole input (xDSL reported the definition);
* an inherent attribute of a custom-form op, written in its attribute dictionary, that its
  constraint refuses: MLIR refuses it as it parses the op, at the dictionary, ``custom op
  'NAME'`` before the verifier's words (the constraint's own words are the verifier's: Triton
  gives TableGen's summary, "32-bit signless integer attribute", ttopt xDSL's).
"""

from __future__ import annotations

import re

import pytest

from conftest import ReleaseOracle, ttopt_refusal
from ttopt.dialects import versions

RELEASES = versions.RELEASES
SPLIT = "    %a:2 = tt.split %t : tensor<4x2xf32> -> tensor<4xf32>\n"  # (3.0+)


def _kernel(body: str, args: str = "%x: i32") -> str:
    return f"module {{\n  tt.func public @k({args}) {{\n{body}    tt.return\n  }}\n}}\n"


_T = "%t: tensor<4x2xf32>"
# name: (text, Triton's error, ttopt's where its words differ); None: both read it
RESULT_NUMBERS = {
    "one_result": (_kernel("    %a = arith.addi %x, %x : i32\n    %b = arith.addi %a#1, %x : i32\n"),
                   (4, 21, "reference to invalid result number"), None),
    "a_group": (_kernel(SPLIT + "    %b = arith.addf %a#5, %a#0 : tensor<4xf32>\n", _T),
                (4, 21, "reference to invalid result number"), None),
    "generic_form": (_kernel('    %a = arith.addi %x, %x : i32\n    %b = "arith.addi"(%a#1, %x) : '
                             "(i32, i32) -> i32\n"), (4, 23, "reference to invalid result number"), None),
    "an_argument": (_kernel("    %b = arith.addi %x#1, %x : i32\n"),
                    (3, 21, "reference to invalid result number"), None),
    "a_store": (_kernel(SPLIT + "    tt.store %p, %a#2 : tensor<4x!tt.ptr<f32>>\n",
                        _T + ", %p: tensor<4x!tt.ptr<f32>>"), (4, 18, "reference to invalid result number"), None),
    "used_above_its_definition": (_kernel("    %b = arith.addi %a#1, %x : i32\n    %a = arith.addi %x, %x : i32\n"),
                                  (3, 21, "use of undeclared SSA value name"),
                                  (3, 21, "use of undefined value '%a'")),
    # (the valid neighbours)
    "in_range": (_kernel(SPLIT + "    %b = arith.addf %a#1, %a#0 : tensor<4xf32>\n", _T), None, None),
    "result_zero": (_kernel("    %a = arith.addi %x, %x : i32\n    %b = arith.addi %a#0, %x : i32\n"), None, None),
    "used_above_in_range": (_kernel(
        "    cf.br ^bb2\n  ^bb1:\n    %b = arith.addf %a#1, %a#0 : tensor<4xf32>\n    tt.return\n"
        "  ^bb2:\n" + SPLIT + "    cf.br ^bb1\n  ^bb3:\n", _T), None, None),
}
# name: (text, Triton's (line, column, words up to the constraint's own)); ttopt's: the same
_OPS = "%p: tensor<4x!tt.ptr<f32>>, %v: tensor<4xf32>"
CUSTOM_ATTRIBUTES = {
    "make_range": (_kernel("    %a = tt.make_range {end = 4 : i64, start = 0 : i32} : tensor<4xi32>\n", ""),
                   (3, 24, "custom op 'tt.make_range' 'tt.make_range' op attribute 'end' failed to "
                           "satisfy constraint: ")),
    "expand_dims": (_kernel("    %a = tt.expand_dims %v {axis = 0 : i64} : tensor<4xf32> -> tensor<1x4xf32>\n", _OPS),
                    (3, 28, "custom op 'tt.expand_dims' 'tt.expand_dims' op attribute 'axis' failed to "
                            "satisfy constraint: ")),
    "second_entry": (_kernel("    %a = tt.make_range {start = 0 : i32, end = 4 : i64} : tensor<4xi32>\n", ""),
                     (3, 24, "custom op 'tt.make_range' 'tt.make_range' op attribute 'end' failed to "
                             "satisfy constraint: ")),
}
# generic form: the verifier's error, no `custom op`; Triton's (line, column, words)
GENERIC_ATTRIBUTES = {
    "make_range": (_kernel('    %a = "tt.make_range"() <{end = 4 : i64, start = 0 : i32}> : () -> tensor<4xi32>\n', ""),
                   (3, 10, "'tt.make_range' op attribute 'end' failed to satisfy constraint: 32-bit "
                           "signless integer attribute")),
}
_TRITON_ERROR = re.compile(r'loc\("[^"]*":(\d+):(\d+)\): error: (.*)')


def triton_error(text: str, capfd) -> tuple[int, int, str] | None:
    """Triton 3.6's first error about ``text`` (None: it reads it)."""
    pytest.importorskip("triton")
    from ttopt.oracle import triton_accepts

    capfd.readouterr()
    if triton_accepts(text, ".ttir").ok:
        return None
    m = _TRITON_ERROR.search(capfd.readouterr().err)
    return int(m[1]), int(m[2]), m[3]


@pytest.mark.parametrize("name", sorted(RESULT_NUMBERS))
def test_a_result_number_out_of_range_is_refused_in_mlir_s_words(name, capfd):
    text, theirs, ours = RESULT_NUMBERS[name]
    assert ttopt_refusal(text) == (ours or theirs)
    assert triton_error(text, capfd) == theirs


@pytest.mark.parametrize("name", sorted(CUSTOM_ATTRIBUTES))
def test_a_custom_form_attribute_error_is_the_parser_s(name, capfd):
    text, (line, col, words) = CUSTOM_ATTRIBUTES[name]
    ours = ttopt_refusal(text)
    assert ours[:2] == (line, col) and ours[2].startswith(words), ours
    theirs = triton_error(text, capfd)
    assert theirs[:2] == (line, col) and theirs[2].startswith(words), theirs


@pytest.mark.parametrize("name", sorted(GENERIC_ATTRIBUTES))
def test_a_generic_form_attribute_error_is_the_verifier_s(name, capfd):
    text, theirs = GENERIC_ATTRIBUTES[name]
    ours = ttopt_refusal(text)
    assert ours[0] == theirs[0] and ours[2].startswith("'tt.make_range' op attribute 'end' "), ours
    assert triton_error(text, capfd) == theirs


@pytest.mark.parametrize("release", RELEASES, ids=versions.show)
def test_each_release_s_reading_of_the_cases(release):
    """As each release's text: the same errors (``tt.split`` and ``T -> U``: 3.0+)."""
    for name, (text, theirs, ours) in RESULT_NUMBERS.items():
        if "tt.split" in text and release < (3, 0):
            continue
        assert ttopt_refusal(text, release) == (ours or theirs), name
    for name, (text, (line, col, words)) in CUSTOM_ATTRIBUTES.items():
        if "->" in text and release < (3, 0):  # (`(T) -> U` before 3.0)
            continue
        ours = ttopt_refusal(text, release)
        assert ours[:2] == (line, col) and ours[2].startswith(words), (name, ours)


@pytest.mark.versions
@pytest.mark.parametrize("release", RELEASES, ids=versions.show)
def test_each_release_judges_the_cases(release, tmp_path):
    oracle = ReleaseOracle(release, tmp_path)
    for name, (text, theirs, _) in RESULT_NUMBERS.items():
        if "tt.split" in text and release < (3, 0):
            continue
        oracle.add(name, text, theirs is None)
    for name, (text, _) in CUSTOM_ATTRIBUTES.items():
        oracle.add(f"custom_{name}", text, False)
    oracle.check()
