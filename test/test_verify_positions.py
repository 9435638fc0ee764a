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

from conftest import since, triton_refusals, ttopt_refusal, until
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


# ------------------------------------------------------------------ ttng.tensormap_create
# ConfinedAttr<I32Attr, [IntNonNegative, IntMaxValue<N>]> modes (elem_type 15, 12 for 3.2 - 3.3's
# tt.experimental_tensormap_create), checked as the custom form is read (at its dictionary,
# its names in order) and in generic form by the verifier (the properties before the
# operands); the groups' ranks (MLIR's emitError: no op prefix)
def _tensormap(modes: dict | None = None, groups=("%n, %n", "%n, %n", "%s", "%n, %n"),
               name: str = "ttng.tensormap_create", generic: bool = False, sizes: str = "") -> str:
    values = {"elem_type": "7 : i32", "fill_mode": "0 : i32", "interleave_layout": "0 : i32",
              "swizzle_mode": "3 : i32", **(modes or {})}
    types = ["i64" if k == 2 else "i32" for k, g in enumerate(groups) for _ in g.split(", ") if g]
    signature = f"(!tt.ptr<i8>, !tt.ptr<f32>{''.join(', ' + t for t in types)}) -> ()"
    if generic:
        sizes = sizes or ", ".join(["1", "1", *(str(len(g.split(", ")) if g else 0) for g in groups)])
        props = ", ".join(f"{k} = {v}" for k, v in values.items() if v is not None)
        op = (f'"{name}"(%d, %a{"".join(", " + g for g in groups if g)}) <{{{props}, '
              f"operandSegmentSizes = array<i32: {sizes}>}}> : {signature}")
    else:
        attrs = ", ".join(f"{k} = {v}" for k, v in sorted(values.items()) if v is not None)
        op = f"{name} %d, %a, {', '.join(f'[{g}]' for g in groups)} {{{attrs}}} : {signature}"
    return _func(f"    {op}\n", "%d: !tt.ptr<i8>, %a: !tt.ptr<f32>, %n: i32, %s: i64")


def _modes(attr: str, maximum: int, col: int, op: str = "ttng.tensormap_create") -> tuple:
    custom = f"custom op '{op}' '{op}' op " if col != 5 else f"'{op}' op "
    return (3, col, f"{custom}attribute '{attr}' failed to satisfy constraint: 32-bit signless "
                    f"integer attribute whose value is non-negative whose maximum value is {maximum}")


TENSORMAP = {
    "elem_type 16": (_tensormap({"elem_type": "16 : i32"}), _modes("elem_type", 15, 70)),
    "elem_type -1": (_tensormap({"elem_type": "-1 : i32"}), _modes("elem_type", 15, 70)),
    "elem_type i64": (_tensormap({"elem_type": "7 : i64"}), _modes("elem_type", 15, 70)),
    "interleave_layout 3": (_tensormap({"interleave_layout": "3 : i32"}),
                            _modes("interleave_layout", 2, 70)),
    "swizzle_mode 4": (_tensormap({"swizzle_mode": "4 : i32"}), _modes("swizzle_mode", 3, 70)),
    "fill_mode 2": (_tensormap({"fill_mode": "2 : i32"}), _modes("fill_mode", 1, 70)),
    "names in order": (_tensormap({"fill_mode": "2 : i32", "interleave_layout": "3 : i32"}),
                       _modes("fill_mode", 1, 70)),
    "one missing": (_tensormap({"fill_mode": None}),
                    (3, 5, "'ttng.tensormap_create' op requires attribute 'fill_mode'")),
    "generic": (_tensormap({"swizzle_mode": "4 : i32"}, generic=True), _modes("swizzle_mode", 3, 5)),
    "generic, definition order": (_tensormap({"fill_mode": "2 : i32", "interleave_layout": "3 : i32"},
                                             generic=True), _modes("interleave_layout", 2, 5)),
    # (the same operands, grouped 2, 1, 2, 2: an i32 among the strides)
    "generic, before the operands": (_tensormap({"swizzle_mode": "4 : i32"}, generic=True,
                                                sizes="1, 1, 2, 1, 2, 2"), _modes("swizzle_mode", 3, 5)),
    "generic, a variadic's type": (_tensormap(generic=True, sizes="1, 1, 2, 1, 2, 2"),
                                   (3, 5, "'ttng.tensormap_create' op operand #5 must be variadic of "
                                          "64-bit signless integer, but got 'i32'")),
    "global dims": (_tensormap(groups=("%n, %n", "%n", "%s", "%n, %n")),
                    (3, 5, "Rank mismatch for global dim. Got 1 but expected 2")),
    "global strides": (_tensormap(groups=("%n, %n", "%n, %n", "%s, %s", "%n, %n")),
                       (3, 5, "Rank mismatch for global stride. Got 2 but expected 1")),
    "element strides": (_tensormap(groups=("%n, %n", "%n, %n", "%s", "%n")),
                        (3, 5, "Rank mismatch for element stride. Got 1 but expected 2")),
}
TENSORMAP_VALID = {
    "the fixtures' modes": _tensormap(),
    "the largest": _tensormap({"elem_type": "15 : i32", "interleave_layout": "2 : i32",
                               "swizzle_mode": "3 : i32", "fill_mode": "1 : i32"}),
    "the smallest": _tensormap({"elem_type": "0 : i32", "swizzle_mode": "0 : i32"}),
    "generic": _tensormap(generic=True),
    "rank 1": _tensormap(groups=("%n", "%n", "", "%n")),
}


def test_tensormap_create_without_triton():
    assert _refusals(TENSORMAP) == {name: want for name, (_, want) in TENSORMAP.items()}
    for name, text in TENSORMAP_VALID.items():
        assert ttopt_refusal(text) is None, name


@pytest.mark.versions
@pytest.mark.parametrize("release", [(3, 4), (3, 6), (3, 9)], ids=versions.show)
def test_tensormap_create_as_triton(release, tmp_path):
    texts = {f"c{i}": text for i, (text, _) in enumerate(TENSORMAP.values())}
    texts |= {f"v{i}": text for i, text in enumerate(TENSORMAP_VALID.values())}
    triton = triton_refusals(release, tmp_path, texts)
    for i, (name, (text, want)) in enumerate(TENSORMAP.items()):
        assert triton[f"c{i}"] == want, name
        assert ttopt_refusal(text, release) == want, name
    assert [n for n in texts if n.startswith("v") and triton[n] is not None] == []


_LEGACY = "tt.experimental_tensormap_create"


@pytest.mark.versions
@pytest.mark.parametrize("release", [(3, 2), (3, 3)], ids=versions.show)
def test_the_experimental_tensormap_create_as_triton(release, tmp_path):
    """3.2 - 3.3's op: elem_type up to 12; 3.2 writes "Got1"."""
    got = "Got" if release == (3, 2) else "Got "
    cases = {
        "elem_type 13": (_tensormap({"elem_type": "13 : i32"}, name=_LEGACY),
                         _modes("elem_type", 12, 81, _LEGACY)),
        "global dims": (_tensormap(groups=("%n, %n", "%n", "%s", "%n, %n"), name=_LEGACY),
                        (3, 5, f"Rank mismatch for global dim. {got}1 but expected 2")),
        "elem_type 12": (_tensormap({"elem_type": "12 : i32"}, name=_LEGACY), None),
    }
    triton = triton_refusals(release, tmp_path, {n.replace(" ", "_"): t for n, (t, _) in cases.items()})
    assert list(triton.values()) == [want for _, want in cases.values()]
    for name, (text, want) in cases.items():
        assert ttopt_refusal(text, release) == want, name


# ----------------------------------------------------------- properties in generic form
# MLIR makes an op's properties from its `<{...}>` as it reads it: a value of another kind
# than its property's (the property's storage class; an I32EnumAttr's, a BoolAttr's and a
# dense array's test their type, the enum its cases) is a parse error at the op's name,
# the dictionary's names in order; one of the kind that breaks the constraint is the
# verifier's, in ODS's words (as is every value of an attribute dictionary's)
_LOAD = '%0 = "tt.load"(%p) {props} : (!tt.ptr<f32>) -> f32'
_LOAD_PROPS = {"cache": "1 : i32", "evict": "1 : i32", "isVolatile": "false",
               "operandSegmentSizes": "array<i32: 1, 0, 0>"}


def _generic(op: str, props: dict, dictionary: str = "<{}>", line: int = 3) -> str:
    written = ", ".join(f"{k} = {v}" for k, v in sorted(props.items()))
    body = "    " + op.replace("{props}", dictionary.replace("{}", "{" + written + "}"))
    if line == 4:
        body = "    %c = arith.constant true\n" + body
    return _func(body + "\n", "%p: !tt.ptr<f32>, %a: i32, %t: tensor<4xf32>")


def _conversion(op: str, props: dict, name: str, line: int, col: int) -> tuple:
    written = ", ".join(f"{k} = {v}" for k, v in sorted(props.items()))
    return (line, col, f"invalid properties {{{written}}} for op {op}: Invalid attribute `{name}` "
                       f"in property conversion: {props[name]}")


def _load(**changed) -> dict:
    return {**_LOAD_PROPS, **changed}


_PRINT = '"tt.print"(%a) {props} : (i32) -> ()'
_PRINT_PROPS = {"hex": "false", "isSigned": "array<i32: 1>", "prefix": '"x"'}
_RANGE = '%0 = "tt.make_range"() {props} : () -> tensor<4xi32>'
_AXIS = '%0 = "tt.expand_dims"(%t) {props} : (tensor<4xf32>) -> tensor<1x4xf32>'
_ASSERT = '"cf.assert"(%c) {props} : (i1) -> ()'
_FOR = '"scf.for"(%a, %a, %a) ({\n    ^bb0(%i: i32):\n      scf.yield\n    }) {props} : (i32, i32, i32) -> ()'


def _case(op: str, props: dict, name: str, line: int = 3, col: int = 10, words: str = "") -> tuple:
    op_name = op.split('"')[1]
    return (_generic(op, props, line=line),
            _conversion(op_name, props, name, line, col) if not words else
            (line, col, f"'{op_name}' op attribute '{name}' failed to satisfy constraint: {words}"))


PROPERTIES = {
    "evict i64": _case(_LOAD, _load(evict="1 : i64"), "evict"),
    "isVolatile i32": _case(_LOAD, _load(isVolatile="1 : i32"), "isVolatile"),
    "padding not a case": _case(_LOAD, _load(padding="3 : i32"), "padding"),
    "the first name": _case(_LOAD, _load(cache="1 : i64", evict="1 : i64"), "cache"),
    "the first name, not the definition's": _case(_LOAD, _load(isVolatile="1 : i32", padding="3 : i32"),
                                                  "isVolatile"),
    "prefix an integer": _case(_PRINT, {**_PRINT_PROPS, "prefix": "1 : i64"}, "prefix", col=5),
    "isSigned of i1": _case(_PRINT, {**_PRINT_PROPS, "isSigned": "array<i1: true>"}, "isSigned", col=5),
    "start a string": _case(_RANGE, {"end": "4 : i32", "start": '"x"'}, "start"),
    "axis a string": _case(_AXIS, {"axis": '"x"'}, "axis"),
    "msg an integer": _case(_ASSERT, {"msg": "1 : i64"}, "msg", line=4, col=5),
    # (of the kind: the verifier's words)
    "start i64": _case(_RANGE, {"end": "4 : i32", "start": "0 : i64"}, "start",
                       words="32-bit signless integer attribute"),
    "axis i64": _case(_AXIS, {"axis": "0 : i64"}, "axis", words="32-bit signless integer attribute"),
}
# the same values in an attribute dictionary: the verifier's, in ODS's words
ATTRIBUTES = {
    name: (_generic(op, props, "{}", line), (line, col, f"'{op.split(chr(34))[1]}' op attribute "
                                                        f"'{attr}' failed to satisfy constraint: {words}"))
    for name, (op, props, attr, line, col, words) in {
        "evict i64": (_LOAD, _load(evict="1 : i64"), "evict", 3, 10,
                      "allowed 32-bit signless integer cases: 1, 2, 3"),
        "isVolatile i32": (_LOAD, _load(isVolatile="1 : i32"), "isVolatile", 3, 10, "bool attribute"),
        "prefix an integer": (_PRINT, {**_PRINT_PROPS, "prefix": "1 : i64"}, "prefix", 3, 5,
                              "string attribute"),
        "isSigned of i1": (_PRINT, {**_PRINT_PROPS, "isSigned": "array<i1: true>"}, "isSigned", 3, 5,
                           "i32 dense array attribute"),
        "start i64": (_RANGE, {"end": "4 : i32", "start": "0 : i64"}, "start", 3, 10,
                      "32-bit signless integer attribute"),
        "unsignedCmp false": (_FOR, {"unsignedCmp": "false"}, "unsignedCmp", 3, 5, "unit attribute"),
    }.items()
}
# the releases that define the property (elsewhere a plain attribute: any value)
ONLY_IN = {"isSigned of i1": since((3, 2)), "padding not a case": until((3, 7)),
           "evict i64": until((3, 8)), "the first name": until((3, 8)),
           "unsignedCmp false": since((3, 5))}
# a typed string (`"x" : i32`) is MLIR's StringAttr: a string property takes it (Triton
# prints it back without its type)
TYPED_STRINGS = {
    "properties": _generic(_ASSERT, {"msg": '"m" : i32'}, line=4),
    "attributes": _generic(_ASSERT, {"msg": '"m" : i32'}, "{}", line=4),
    "tt.print": _generic(_PRINT, {**_PRINT_PROPS, "prefix": '"x" : i64'}),
    "custom form": _func('    %0 = tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r" : i32, '
                         "packed_element = 1 : i32, pure = true} %a : i32 -> i32\n", "%a: i32"),
}


def test_properties_without_triton():
    for cases in (PROPERTIES, ATTRIBUTES):
        for name, (text, want) in cases.items():
            assert ttopt_refusal(text, (3, 6)) == want, name
    for name, text in TYPED_STRINGS.items():
        assert ttopt_refusal(text) is None, name
    # (a release without the property: any value)
    assert ttopt_refusal(PROPERTIES["isSigned of i1"][0], (3, 1)) is None
    assert ttopt_refusal(ATTRIBUTES["unsignedCmp false"][0], (3, 4)) is None
    assert ttopt_refusal(PROPERTIES["padding not a case"][0], (3, 8)) is None
    assert ttopt_refusal(PROPERTIES["evict i64"][0], (3, 9)) is None


def test_a_typed_string_is_written_as_triton_prints_it():
    from conftest import release_outputs

    for name, text in TYPED_STRINGS.items():
        for out in release_outputs(text, (3, 6), [[]]):
            assert '" : i' not in out, (name, out)  # (every op printed anew)
            assert ttopt_refusal(out) is None, (name, out)


@pytest.mark.versions
@pytest.mark.parametrize("release", [(2, 1), (3, 0), (3, 4), (3, 6), (3, 8), (3, 9)], ids=versions.show)
def test_properties_as_triton(release, tmp_path):
    from conftest import release_outputs

    cases = {f"{kind}{i}": (text, want if release in ONLY_IN.get(name, (release,)) else None)
             for kind, table in (("p", PROPERTIES), ("a", ATTRIBUTES))
             for i, (name, (text, want)) in enumerate(table.items())}
    if release < (3, 0):  # (2.x's generic tt.load spells its segments operand_segment_sizes)
        cases = {n: c for n, c in cases.items() if '"tt.load"' not in c[0]}
    strings = {n: t for n, t in TYPED_STRINGS.items() if release >= (2, 2) or n != "custom form"}
    texts = {name: text for name, (text, _) in cases.items()}
    texts |= {f"s{i}": text for i, text in enumerate(strings.values())}
    texts |= {f"o{i}": release_outputs(text, release, [])[0] for i, text in enumerate(strings.values())}
    triton = triton_refusals(release, tmp_path, texts)
    for name, (text, want) in cases.items():
        assert triton[name] == want, name
        assert ttopt_refusal(text, release) == want, name
    assert [n for n in texts if n[0] in "so" and triton[n] is not None] == []
    for text in strings.values():
        assert ttopt_refusal(text, release) is None


# ------------------------------------------------------------------ --triton-version
def test_the_release_named_is_the_one_verified(tmp_path):
    """``--triton-version 3.6`` on a text without a sign of its release: verified as 3.6, not
    as any release the text may come from (3.9 has no `evict` property: there any value)."""
    import subprocess
    import sys

    from conftest import ROOT

    path = tmp_path / "k.ttir"
    path.write_text(PROPERTIES["evict i64"][0])

    def run(*flags):
        return subprocess.run([sys.executable, "-m", "ttopt.cli", *flags, str(path)],
                              capture_output=True, text=True, cwd=ROOT, timeout=120)

    told = run("--triton-version", "3.6")
    line, col, message = PROPERTIES["evict i64"][1]
    assert (told.returncode, told.stdout, told.stderr) == (1, "", f"{path}:{line}:{col}: error: {message}\n")
    for flags in ((), ("--triton-version", "3.9")):
        r = run(*flags)
        assert r.returncode == 0, r.stderr


@pytest.mark.versions
def test_the_release_named_is_triton_s(tmp_path):
    text = PROPERTIES["evict i64"][0]
    assert triton_refusals((3, 6), tmp_path, {"k": text})["k"] == PROPERTIES["evict i64"][1]
    (tmp_path / "39").mkdir()
    assert triton_refusals((3, 9), tmp_path / "39", {"k": text})["k"] is None


# ------------------------------------------------------------------ a syntax error after
# MLIR refuses a generic op's properties as it makes the op: before a syntax error further
# on (and before a use of an undefined value, which it reports at the region's end); a
# syntax error before the op comes first
_MADE = '    %0 = "tt.make_range"() <{end = 4 : i32, start = "x"}> : () -> tensor<4xi32>\n'
_MADE_ERROR = PROPERTIES["start a string"][1][1:]
ORDER = {
    "a later line": (_func(_MADE + "    %1 = arith.addi %a, %a : i32 )\n"), (3, *_MADE_ERROR)),
    "the same line": (_func(_MADE[:-1] + " )\n"), (3, *_MADE_ERROR)),
    "an undefined value above": (_func("    %1 = arith.addi %a, %nope : i32\n" + _MADE
                                       + "    %2 = arith.addi %a, %a : i32 )\n"), (4, *_MADE_ERROR)),
    "no properties": (_func('    %0 = "tt.splat"(%a) <{}> : (i32) -> tensor<4xi32>\n'
                            "    %1 = arith.addi %a, %a : i32 )\n"),
                      (3, 10, "invalid properties {} for op tt.splat: this operation does not "
                              "support properties")),
}
ORDER_AFTER = _func("    %1 = arith.addi %a, %a i32\n" + _MADE)  # (the syntax error first)


def test_a_properties_error_before_a_syntax_error_without_triton():
    assert _refusals(ORDER) == {name: want for name, (_, want) in ORDER.items()}
    line, _, message = ttopt_refusal(ORDER_AFTER)
    assert line == 3 and "property" not in message


@pytest.mark.versions
def test_a_properties_error_before_a_syntax_error_as_triton(tmp_path):
    texts = {f"c{i}": text for i, (text, _) in enumerate(ORDER.values())}
    triton = triton_refusals((3, 6), tmp_path, {**texts, "after": ORDER_AFTER})
    assert [triton[f"c{i}"] for i in range(len(ORDER))] == [want for _, want in ORDER.values()]
    assert triton["after"][0] == 3 and "property" not in triton["after"][2]
