"""Triton's element types (``TT_Float``, ``TT_Int``: the elements of ``TT_Type``,
``TT_Tensor``, ``TT_FloatLike``, ``TT_IntLike``) release by release.

Every release takes ``i1``/``i8``/``i16``/``i32``/``i64``, ``bf16``/``f16``/``f32``/``f64``,
``f8E5M2`` and ``f8E4M3FNUZ``; only some take the others:

* ``i4``: 3.2+;
* ``f8E4M3FN``: 2.2, 2.3 and 3.2+ (not 2.1, 3.0, 3.1);
* ``f8E5M2FNUZ``: 3.0+;
* ``f8E4M3B11FNUZ``: 2.1 - 2.3;

and none the other types MLIR has (``i2``, ``i128``, ``tf32``, ``f8E4M3``, ``f8E3M4``,
``f6E2M3FN``, ``f8E8M0FNU``, ``f4E2M1FN`` ...).  A text is checked as each release it may come
from (its signs, or ``--triton-version``): a type is refused where none of them takes it.
The ``versions`` tests ask each release's own Triton (``tools/versions/oracle.py``; skipped
without its environment) and compare ttopt's refusal with Triton's, word for word.

Before all that, a release's MLIR must know the type's keyword at all: ``tf32`` is 2.2+,
``f8E4M3``, ``f8E3M4``, ``f6E2M3FN``, ``f6E3M2FN``, ``f4E2M1FN`` and ``f8E8M0FNU`` 3.2+
(``versions.FLOAT_TYPES_SINCE``); before, the keyword is no type wherever it is written (a
function's argument, a tensor's element, a constant's type): ``expected non-function type``.
"""

from __future__ import annotations

import re

import pytest

from conftest import ReleaseOracle, ttopt_refusal
from ttopt.dialects import versions

RELEASES = versions.RELEASES
INTS = ["i1", "i2", "i4", "i7", "i8", "i16", "i32", "i64", "i128"]
FLOATS = ["bf16", "f16", "f32", "f64", "tf32", "f8E4M3FN", "f8E4M3FNUZ", "f8E5M2", "f8E5M2FNUZ",
          "f8E4M3B11FNUZ", "f8E4M3", "f8E3M4", "f6E2M3FN", "f6E3M2FN", "f8E8M0FNU", "f4E2M1FN"]
_TRITON_ERROR = re.compile(r'loc\("[^"]*":(\d+):(\d+)\): error: (.*)')
# where a release's MLIR does not know the type itself (a parse error, not the element check)
_UNKNOWN_TYPE = ("expected non-function type", "unknown", "invalid", "expected ")


def _kernel(body: str, args: str) -> str:
    return f"module {{\n  tt.func public @k({args}) {{\n    {body}\n    tt.return\n  }}\n}}\n"


def kernels(t: str, release) -> dict[str, str]:
    """The kernels that put ``t`` where Triton ``release`` checks a ``TT_`` element type."""
    arrow = (lambda a, b: f"({a}) -> {b}") if release < (3, 0) else (lambda a, b: f"{a} -> {b}")
    out = {
        "splat": _kernel(f"%0 = tt.splat %x : {arrow(t, f'tensor<4x{t}>')}", f"%x: {t}"),
        "broadcast": _kernel(f"%0 = tt.broadcast %x : {arrow(f'tensor<1x{t}>', f'tensor<4x{t}>')}",
                             f"%x: tensor<1x{t}>"),
    }
    if release >= (3, 0):
        if t in FLOATS:
            out["sqrt"] = _kernel(f"%0 = tt.precise_sqrt %x : {t}", f"%x: {t}")
            out["clampf"] = _kernel(f"%0 = tt.clampf %x, %x, %x, propagateNan = none : tensor<4x{t}>",
                                    f"%x: tensor<4x{t}>")
        else:
            out["mulhiui"] = _kernel(f"%0 = tt.mulhiui %x, %x : tensor<4x{t}>", f"%x: tensor<4x{t}>")
    return out


def takes(t: str, release) -> bool:
    """Whether Triton ``release`` takes ``t`` as a ``TT_`` element type (the table above)."""
    if t in ("i1", "i8", "i16", "i32", "i64", "bf16", "f16", "f32", "f64", "f8E5M2", "f8E4M3FNUZ"):
        return True
    return {
        "i4": release >= (3, 2),
        "f8E4M3FN": (2, 2) <= release <= (2, 3) or release >= (3, 2),
        "f8E5M2FNUZ": release >= (3, 0),
        "f8E4M3B11FNUZ": release <= (2, 3),
    }.get(t, False)



@pytest.mark.versions
@pytest.mark.parametrize("release", RELEASES, ids=versions.show)
def test_each_release_s_element_types(release, tmp_path):
    """Triton R takes exactly the element types the table gives it, and ttopt reading a
    kernel as R's refuses what R refuses, in R's words."""
    oracle = ReleaseOracle(release, tmp_path)
    cases = {}
    for t in INTS + FLOATS:
        for op, text in kernels(t, release).items():
            cases[f"{op}.{t}"] = (t, text)
    paths = {}
    for name, (_, text) in cases.items():
        paths[name] = tmp_path / f"{name}.ttir"
        paths[name].write_text(text)
    results = {r["file"]: r for r in oracle.oracle.check(oracle.version, list(paths.values()))}
    wrong = []
    for name, (t, text) in cases.items():
        r = results[str(paths[name])]
        ours = ttopt_refusal(text, release)
        if r["ok"]:
            assert takes(t, release), name
            if ours is not None:
                wrong.append(f"{name}: Triton {versions.show(release)} reads it; ttopt: {ours}")
            continue
        m = _TRITON_ERROR.match(r["error"])
        assert m is not None, r["error"]
        theirs = (int(m.group(1)), int(m.group(2)), m.group(3))
        if theirs[2] == "expected non-function type":  # (the release has no such keyword)
            if ours != theirs:
                wrong.append(f"{name}: Triton {theirs}; ttopt {ours}")
            continue
        if theirs[2].startswith(_UNKNOWN_TYPE):  # (the release cannot read the type at all)
            continue
        assert not takes(t, release), (name, theirs)
        if ours is None or ours[2] != theirs[2] or ours[0] != theirs[0]:
            wrong.append(f"{name}: Triton {theirs}; ttopt {ours}")
    assert not wrong, "\n".join(wrong)


# ------------------------------------------------------------------ without Triton
SPLAT_3 = "%0 = tt.splat %x : {t} -> tensor<4x{t}>"  # (a sign of 3.0+)
SPLAT_2 = "%0 = tt.splat %x : ({t}) -> tensor<4x{t}>"  # (a sign of 2.1 - 2.3)
GENERIC = '%0 = "tt.splat"(%x) : ({t}) -> tensor<4x{t}>'  # (no sign: 2.1 - 3.9)
TT_TYPE_3 = ("floating-point or ranked tensor of floating-point values or integer or ranked tensor "
             "of integer values or ptr or ranked tensor of ptr values or ptr")
TT_TYPE_2 = ("floating-point or tensor of floating-point values or integer or tensor of integer "
             "values or ptr or tensor of ptr values or ptr")


def _splat(form: str, t: str) -> str:
    return _kernel(form.format(t=t), f"%x: {t}")


@pytest.mark.parametrize("t, release, taken", [
    ("i4", (3, 1), False), ("i4", (3, 2), True), ("i4", (2, 3), False),
    ("f8E4M3FN", (2, 1), False), ("f8E4M3FN", (2, 2), True), ("f8E4M3FN", (3, 0), False),
    ("f8E4M3FN", (3, 1), False), ("f8E4M3FN", (3, 2), True), ("f8E4M3FN", (3, 9), True),
    ("f8E4M3B11FNUZ", (2, 3), True), ("f8E4M3B11FNUZ", (3, 0), False),
    ("f8E4M3B11FNUZ", (3, 6), False), ("f8E5M2FNUZ", (2, 3), False), ("f8E5M2FNUZ", (3, 0), True),
    ("f8E3M4", (3, 6), False), ("i2", (3, 6), False), ("bf16", (2, 1), True),
])
def test_a_release_named_takes_its_own_types(t, release, taken):
    text = _splat(SPLAT_2 if release < (3, 0) else SPLAT_3, t)
    words = TT_TYPE_2 if release < (3, 0) else TT_TYPE_3
    expected = None if taken else (3, 10, f"'tt.splat' op operand #0 must be {words}, but got '{t}'")
    # (3.6 named: the text's signs allow 3.0 - 3.9, and 3.6 is what it is read as anyway)
    assert ttopt_refusal(text, release) == expected


def test_a_text_of_several_releases_takes_what_any_of_them_takes():
    # no sign: 2.1 - 3.9 (2.x takes f8E4M3B11FNUZ, 3.2+ i4)
    assert ttopt_refusal(_splat(GENERIC, "f8E4M3B11FNUZ")) is None
    assert ttopt_refusal(_splat(GENERIC, "i4")) is None
    # a 3.x sign: 3.0 - 3.9 takes i4 (3.2+), not f8E4M3B11FNUZ
    assert ttopt_refusal(_splat(SPLAT_3, "i4")) is None
    assert ttopt_refusal(_splat(SPLAT_3, "f8E4M3B11FNUZ")) == (
        3, 10, f"'tt.splat' op operand #0 must be {TT_TYPE_3}, but got 'f8E4M3B11FNUZ'")
    # a 2.x sign: 2.1 - 2.3 (read as 2.3) takes f8E4M3FN (2.2, 2.3), not i4
    assert ttopt_refusal(_splat(SPLAT_2, "f8E4M3FN")) is None
    assert ttopt_refusal(_splat(SPLAT_2, "i4")) == (
        3, 10, f"'tt.splat' op operand #0 must be {TT_TYPE_2}, but got 'i4'")
    # a 2.x text of pointers without an address space: 2.1's, which takes no f8E4M3FN
    text = _kernel("%0 = tt.splat %x : (f8E4M3FN) -> tensor<4xf8E4M3FN>\n"
                   "    %1 = tt.splat %p : (!tt.ptr<f32>) -> tensor<4x!tt.ptr<f32>>",
                   "%x: f8E4M3FN, %p: !tt.ptr<f32>")
    assert ttopt_refusal(text) is not None
    # ops 2.x does not have (tt.precise_sqrt: 3.0+) say the text is not 2.x's
    assert ttopt_refusal(_kernel('%0 = "tt.precise_sqrt"(%x) : (f8E4M3B11FNUZ) -> f8E4M3B11FNUZ',
                          "%x: f8E4M3B11FNUZ")) == (3, 10, (
        "'tt.precise_sqrt' op operand #0 must be floating-point or ranked tensor of floating-point "
        "values, but got 'f8E4M3B11FNUZ'"))


@pytest.mark.parametrize("body, args, message", [
    # TT_FloatLike / TT_IntLike: TT_Float / TT_Int only (not every float or integer MLIR has)
    ("%0 = tt.precise_sqrt %x : tf32", "%x: tf32",
     "'tt.precise_sqrt' op operand #0 must be floating-point or ranked tensor of floating-point "
     "values, but got 'tf32'"),
    ("%0 = tt.precise_divf %x, %x : tensor<4xf8E3M4>", "%x: tensor<4xf8E3M4>",
     "'tt.precise_divf' op operand #0 must be floating-point or ranked tensor of floating-point "
     "values, but got 'tensor<4xf8E3M4>'"),
    ("%0 = tt.mulhiui %x, %x : i128", "%x: i128",
     "'tt.mulhiui' op operand #0 must be integer or ranked tensor of integer values, but got 'i128'"),
    ("%0 = tt.clampf %x, %x, %x, propagateNan = none : f8E8M0FNU", "%x: f8E8M0FNU",
     "'tt.clampf' op operand #0 must be floating-point or ranked tensor of floating-point values, "
     "but got 'f8E8M0FNU'"),
    ("%0 = tt.broadcast %x : tensor<1xi2> -> tensor<4xi2>", "%x: tensor<1xi2>",
     "'tt.broadcast' op operand #0 must be ranked tensor of floating-point or integer or ptr "
     "values, but got 'tensor<1xi2>'"),
])
def test_the_tt_constraints_take_triton_s_types_only(body, args, message):
    assert ttopt_refusal(_kernel(body, args)) == (3, 10, message)
    for ok in ("f16", "i32"):  # (the same ops of a type every release takes)
        text = _kernel(body, args)
        bad = re.search(r"(tf32|f8E3M4|i128|f8E8M0FNU|i2)\b", text).group(1)
        if (ok[0] == "f") == (bad[0] in "ft"):
            assert ttopt_refusal(text.replace(bad, ok)) is None


def test_2x_words():
    """Triton 2.x says "tensor of" where 3.x says "ranked tensor of"."""
    text = _kernel("%0 = tt.expand_dims %x {axis = 0 : i32} : (tensor<4xi2>) -> tensor<1x4xi2>",
                   "%x: tensor<4xi2>")
    assert ttopt_refusal(text, (2, 2)) == (3, 10, (
        "'tt.expand_dims' op operand #0 must be tensor of floating-point values or tensor of "
        "integer values or tensor of ptr values, but got 'tensor<4xi2>'"))


def test_the_releases_of_a_text_lack_those_without_its_ops():
    """``versions.narrowed``: a release that lacks an op the text uses did not write it (an
    op in a comment or a string says nothing)."""
    span = (versions.OLDEST, versions.NEWEST)
    assert versions.narrowed(span, '%0 = tt.precise_sqrt %x : f32') == ((3, 0), versions.NEWEST)
    assert versions.narrowed(span, '%0 = "tt.unsplat"(%x)') == ((3, 5), versions.NEWEST)
    assert versions.narrowed(span, "// tt.precise_sqrt\n") == span
    assert versions.narrowed(span, 'loc("tt.precise_sqrt":1:2)') == span
    assert versions.narrowed(span, "%0 = tt.precise_sqrtx %x") == span
    # (a span the ops exclude is left as it is: the text's other signs said so)
    assert versions.narrowed(((2, 1), (2, 3)), "%0 = tt.precise_sqrt %x : f32") == ((2, 1), (2, 3))


# ------------------------------------------------------------------ type keywords per release
# where the type is written: (text with TYPE for it, where Triton reports an unknown keyword)
PLACES = {
    "argument": (_kernel("", "%x: TYPE"), (2, 24)),
    "tensor_argument": (_kernel("", "%x: tensor<4xTYPE>"), (2, 34)),
    "pointer_argument": (_kernel("", "%x: !tt.ptr<TYPE>"), (2, 33)),
    "constant": (_kernel("%0 = arith.constant 1.0 : TYPE", "%x: f32"), (3, 30)),
    "dense_constant": (_kernel("%0 = arith.constant dense<1.0> : tensor<4xTYPE>", "%x: f32"), (3, 47)),
}
KEYWORDS = {"tf32": (2, 2), "f8E4M3": (3, 2), "f8E3M4": (3, 2), "f6E2M3FN": (3, 2),
            "f6E3M2FN": (3, 2), "f4E2M1FN": (3, 2), "f8E8M0FNU": (3, 2),
            # (every release has these)
            "f8E5M2": versions.OLDEST, "f8E4M3FN": versions.OLDEST, "f8E4M3B11FNUZ": versions.OLDEST,
            "bf16": versions.OLDEST}


def _typed(place: str, t: str) -> str:
    return PLACES[place][0].replace("TYPE", t)


@pytest.mark.parametrize("release", RELEASES, ids=versions.show)
def test_a_type_keyword_is_read_only_by_the_releases_that_have_it(release):
    """A function argument's type too (no ``TT_`` constraint checks it: the keyword itself is
    unknown to an older MLIR), though the newest release read the same type text before in
    the process (the reader shares the types it read between modules)."""
    for t, since in KEYWORDS.items():
        for place, (_, at) in PLACES.items():
            text = _typed(place, t)
            assert ttopt_refusal(text, versions.NEWEST) is None, (t, place)  # (read first)
            expected = None if release >= since else (*at, "expected non-function type")
            assert ttopt_refusal(text, release) == expected, (t, place)


@pytest.mark.versions
@pytest.mark.parametrize("release", RELEASES, ids=versions.show)
def test_each_release_reads_the_type_keywords_it_has(release, tmp_path):
    """Triton R reads a kernel naming a type keyword wherever it is written iff R has it, and
    refuses it where ttopt does (line, column, words: the oracle's first error)."""
    oracle = ReleaseOracle(release, tmp_path)
    texts = {f"{place}.{t}": _typed(place, t) for t in KEYWORDS for place in PLACES}
    paths = {}
    for name, text in texts.items():
        paths[name] = tmp_path / f"{name}.ttir"
        paths[name].write_text(text)
    results = {r["file"]: r for r in oracle.oracle.check(oracle.version, list(paths.values()))}
    wrong = []
    for name, text in texts.items():
        r, ours = results[str(paths[name])], ttopt_refusal(text, release)
        m = _TRITON_ERROR.match(r["error"]) if not r["ok"] else None
        theirs = None if r["ok"] else (int(m.group(1)), int(m.group(2)), m.group(3))
        if ours != theirs:
            wrong.append(f"{name}: Triton {theirs}; ttopt {ours}")
    assert not wrong, "\n".join(wrong)
