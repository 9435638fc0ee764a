"""Where and in which words the verifier refuses, as Triton does (the hardening issue's
verifier-side gaps).

* **The column of an op:** MLIR locates an op at its name (``    %0 = tt.foo`` -> column 10,
  ``"tt.foo"(...)`` -> its quote), not at its first result; an op the parser makes up (the
  implicit ``scf.yield`` of an ``scf.for``) is reported at the op that holds it.
* **A unit property twice** (``scf.for unsigned ... {unsignedCmp}``, ``scf.execute_region
  no_inline ... {no_inline}``): MLIR's custom parser refuses it at the op.
* **A branch to a region's entry block** (an explicit label): "entry block of region may
  not have predecessors", at the op that holds the region, after the op's own checks.
* **``scf.for`` without ``scf.yield`` where it carries values:** MLIR's parser gives every
  ``scf.for`` body its ``scf.yield`` (of no value), which the verifier then refuses.

Each refusal is compared with Triton's own (message, line and column: ``tools/versions/
oracle.py``, skipped without the release's environment); the offline tests keep ttopt's
side where no environment is.
"""

from __future__ import annotations

import pytest

from conftest import since, triton_refusals, ttopt_refusal
from ttopt.dialects import versions


def _func(body: str, args: str = "%c: i1, %a: i32, %b: f32") -> str:
    return f"module {{\n  tt.func public @k({args}) {{\n{body}    tt.return\n  }}\n}}\n"


_IF2 = (" = scf.if %c -> (i32, i32) {\n      scf.yield %a, %a : i32, i32\n    } else {\n"
        "      scf.yield %a : i32\n    }\n")
_IF2_ERROR = ("'scf.if' op region control flow edge from Region #1 to parent results: source has 1 "
              "operands, but target successor needs 2")
_ADDF_ERROR = "'arith.addf' op operand #0 must be floating-point-like, but got 'i32'"

# name -> (text, ttopt's refusal (LINE, COL, MESSAGE) = Triton 3.6's)
COLUMNS = {
    "custom form": (_func("    %0 = arith.addf %a, %a : i32\n"), (3, 10, _ADDF_ERROR)),
    "generic form": (_func('    %0 = "arith.addf"(%a, %a) : (i32, i32) -> i32\n'), (3, 10, _ADDF_ERROR)),
    "no result": (_func('    "tt.return"(%a) : (i32) -> ()\n'),
                  (3, 5, "'tt.return' op must be the last operation in the parent block")),
    "two results": (_func("    %r, %s" + _IF2), (3, 14, _IF2_ERROR)),
    "a result pack": (_func("    %r:2" + _IF2), (3, 12, _IF2_ERROR)),
    "blanks in the list": (_func("    %r , %s:1" + _IF2), (3, 17, _IF2_ERROR)),
    "blanks in a pack": (_func("    %r : 2" + _IF2), (3, 14, _IF2_ERROR)),
    "a list over lines": (_func("    %r, // the first\n      %s =\n        scf.if" + _IF2[9:]),
                          (5, 9, _IF2_ERROR)),
    "nested in a region": (_func("    scf.if %c {\n      %0 = arith.addf %a, %a : i32\n    }\n"),
                           (4, 12, _ADDF_ERROR)),
    "second op of a line": (_func("    %0 = arith.constant 1 : i32 %1 = arith.addf %0, %0 : i32\n"),
                            (3, 38, _ADDF_ERROR)),
    "implicit scf.yield": (_func(
        "    %r = scf.for %i = %a to %a step %a iter_args(%s = %a) -> (i32) : i32 {\n"
        "      %q = arith.addi %s, %i : i32\n    }\n"),
        (3, 10, "'scf.for' op region control flow edge from Region #0 to Region #0: source has 0 "
                "operands, but target successor needs 1")),
}

# the valid neighbours: what the refusals above must not reach
VALID = {
    "for without yield or values": _func(
        "    scf.for %i = %a to %a step %a : i32 {\n      %q = arith.addi %a, %i : i32\n    }\n"),
    "for with its yield": _func(
        "    %r = scf.for %i = %a to %a step %a iter_args(%s = %a) -> (i32) : i32 {\n"
        "      %q = arith.addi %s, %i : i32\n      scf.yield %q : i32\n    }\n"),
    "two results": _func("    %r, %s = scf.if %c -> (i32, i32) {\n      scf.yield %a, %a : i32, i32\n"
                         "    } else {\n      scf.yield %a, %a : i32, i32\n    }\n"),
    "a loop of blocks, not to the entry": _func(
        "    %v = scf.execute_region -> i32 {\n    ^bb0:\n      cf.br ^bb1\n    ^bb1:\n"
        "      cf.cond_br %c, ^bb1, ^bb2\n    ^bb2:\n      scf.yield %a : i32\n    }\n"),
    "an entry label, no branch to it": _func(
        "    %v = scf.execute_region -> i32 {\n    ^bb0:\n      cf.br ^bb1\n    ^bb1:\n"
        "      scf.yield %a : i32\n    }\n"),
}

_ENTRY = "entry block of region may not have predecessors"
ENTRY = {
    "execute_region": (_func(
        "    %v = scf.execute_region -> i32 {\n    ^bb0:\n      cf.br ^bb1\n    ^bb1:\n"
        "      cf.cond_br %c, ^bb0, ^bb2\n    ^bb2:\n      scf.yield %a : i32\n    }\n"),
        (3, 10, _ENTRY)),
    "execute_region, generic": (_func(
        '    %v = "scf.execute_region"() ({\n    ^bb0:\n      cf.br ^bb1\n    ^bb1:\n'
        "      cf.br ^bb0\n    }) : () -> i32\n"), (3, 10, _ENTRY)),
    "function": ("module {\n  tt.func public @k() {\n  ^bb0:\n    cf.br ^bb1\n  ^bb1:\n"
                 "    cf.br ^bb0\n  }\n}\n", (2, 3, _ENTRY)),
    "switch to itself": ("module {\n  tt.func public @k() {\n  ^entry:\n"
                         "    %n = arith.constant 1 : i32\n"
                         "    cf.switch %n : i32, [\n      default: ^entry,\n      1: ^bb1\n    ]\n"
                         "  ^bb1:\n    tt.return\n  }\n}\n", (2, 3, _ENTRY)),
}

_C01 = "    %c0 = arith.constant 0 : i32\n    %c1 = arith.constant 1 : i32\n"
TWICE = {  # Triton 3.5+ (`unsigned`, `no_inline`)
    "unsignedCmp": (_func(_C01 + "    scf.for unsigned %i = %c0 to %c1 step %c1 : i32 {\n"
                          "    } {unsignedCmp}\n"),
                    (5, 5, "custom op 'scf.for' attribute 'unsignedCmp' occurs more than once in "
                           "the attribute list")),
    "unsignedCmp, results": (_func(
        _C01 + "    %r = scf.for unsigned // a comment\n"
        "        %i = %c0 to %c1 step %c1 iter_args(%s = %a) -> (i32) : i32 {\n"
        "      scf.yield %s : i32\n    } {unsignedCmp}\n"),
        (5, 10, "custom op 'scf.for' attribute 'unsignedCmp' occurs more than once in the "
                "attribute list")),
    "no_inline": (_func("    %v = scf.execute_region -> i32 no_inline {\n      scf.yield %a : i32\n"
                        "    } {no_inline}\n"),
                  (3, 10, "custom op 'scf.execute_region' attribute 'no_inline' occurs more than "
                          "once in the attribute list")),
}
TWICE_VALID = {
    "unsignedCmp once": _func(_C01 + "    scf.for unsigned %i = %c0 to %c1 step %c1 : i32 {\n    }\n"),
    "unsignedCmp as an attribute": _func(_C01 + "    scf.for %i = %c0 to %c1 step %c1 : i32 {\n"
                                         "    } {unsignedCmp}\n"),
    "no_inline once": _func("    %v = scf.execute_region -> i32 {\n      scf.yield %a : i32\n"
                            "    } {no_inline}\n"),
}


def _refusals(cases: dict) -> dict:
    return {name: ttopt_refusal(text) for name, (text, _) in cases.items()}


@pytest.mark.parametrize("cases", [COLUMNS, ENTRY, TWICE], ids=["columns", "entry", "twice"])
def test_refusals_without_triton(cases):
    assert _refusals(cases) == {name: want for name, (_, want) in cases.items()}


def test_the_valid_neighbours_are_read():
    for name, text in {**VALID, **TWICE_VALID}.items():
        assert ttopt_refusal(text) is None, name


@pytest.mark.versions
def test_refusals_are_triton_3_6_s(tmp_path):
    """Message, line and column: ttopt's refusal is Triton 3.6's, and both read the valid
    neighbours."""
    cases = {**COLUMNS, **ENTRY, **TWICE}
    texts = {f"c{i}": text for i, (text, _) in enumerate(cases.values())}
    texts |= {f"v{i}": text for i, text in enumerate({**VALID, **TWICE_VALID}.values())}
    triton = triton_refusals((3, 6), tmp_path, texts)
    for i, (name, (_, want)) in enumerate(cases.items()):
        assert triton[f"c{i}"] == want, name
    assert [n for n in texts if n.startswith("v") and triton[n] is not None] == []


@pytest.mark.versions
@pytest.mark.parametrize("release", [(2, 1), (3, 0), (3, 5), (3, 9)], ids=versions.show)
def test_entry_block_and_twice_in_other_releases(release, tmp_path):
    """The same words and place in every release (the property twice: where it exists)."""
    cases = {**ENTRY, **(TWICE if release in since((3, 5)) else {})}
    triton = triton_refusals(release, tmp_path, {n.replace(" ", "_").replace(",", ""): t
                                                 for n, (t, _) in cases.items()})
    assert list(triton.values()) == [want for _, want in cases.values()]
    for name, (text, want) in cases.items():
        assert ttopt_refusal(text, release) == want, name
