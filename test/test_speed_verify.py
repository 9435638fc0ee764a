"""The invariants the verifier's shortcuts rely on (ttopt.ir.verify, ttopt.dialects): each
shortcut decides as the check it spares would.

* a rule of 2.x alone asks which releases the text may be from (the span) only of a text
  read as 2.x: the span never ends before the release the text is read as;
* a property constraint's quick test (``verify._passes``) accepts only what the constraint
  accepts;
* ``constraints.same`` (memoised) is ``==``; ``verify._converts`` (memoised per constraint)
  is what it was.
"""

from __future__ import annotations

import pathlib

import pytest
from xdsl.dialects.builtin import (
    ArrayAttr, BoolAttr, DenseArrayBase, FloatAttr, IndexType, IntAttr, IntegerAttr,
    IntegerType, Signedness, StringAttr, UnitAttr, f32, i1, i8, i32, i64,
)
from xdsl.irdl.constraints import ParamAttrConstraint, VerificationContext
from xdsl.utils.exceptions import VerifyException

from ttopt.dialects import versions
from ttopt.dialects.base import OWN_VERIFY
from ttopt.dialects.constraints import I32Cases, I32Enum, InReleases, same
from ttopt.ir import verify as V
from ttopt.ir.reader import clear_shared_types, read_module
from ttopt.xdsl_compat import TypedStringAttr, operand_tuple

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "versions"
TEXTS = sorted(FIXTURES.glob("*/*/*.tt*ir"))


def _sample(every: int) -> list[pathlib.Path]:
    """Every ``every``-th fixture text of each release."""
    out = []
    for release in sorted(p for p in FIXTURES.iterdir() if p.is_dir()):
        out += sorted(release.glob("*/*.tt*ir"))[::every]
    return out


def test_fixtures_found():
    assert len(TEXTS) > 100


def test_span_never_ends_before_the_release_read(monkeypatch):
    """``tt._before_3`` asks the span only where the release read is 2.x: sound only if the
    span's last release is never before the release read (read as given, or as its signs
    say; then verified again, as a pass's output is)."""
    seen = []
    run = V._Walker.run

    def checked_run(self, top):
        release, span = versions.checked_release(), versions.checked_span()
        seen.append((release, span))
        assert span[1] >= release, (release, span)
        return run(self, top)

    monkeypatch.setattr(V._Walker, "run", checked_run)
    for path in _sample(3):
        text = path.read_text()
        clear_shared_types()
        try:
            mod = read_module(text, str(path))
        except Exception:
            continue  # (a fixture ttopt refuses: nothing verified to the end)
        with versions.syntax(mod.triton_version):
            V.verify_module(mod)
        release = ".".join(path.parent.parent.name.split(".")[:2])
        try:
            read_module(text, str(path), triton_version=release)
        except Exception:
            pass
    assert len(seen) > 100
    assert {r for r, _ in seen} & {(2, 1), (2, 2), (2, 3)}  # (2.x texts among them)


# ------------------------------------------------------------------ property constraints
def _property_constraints() -> list:
    out, ids = [], set()
    for cls in list(OWN_VERIFY):
        try:
            definition = cls.get_irdl_definition()
        except Exception:
            continue
        if definition is None:
            continue
        for _, d in definition.properties.items():
            if id(d.constr) not in ids:
                ids.add(id(d.constr))
                out.append(d.constr)
    return out


def _sampled_ops(n: int):
    """The ops of ``_sample(n)``'s modules that read (each read as in a fresh process)."""
    for path in _sample(n):
        clear_shared_types()
        try:
            mod = read_module(path.read_text(), str(path))
        except Exception:
            continue
        yield from mod.op.walk()


def _values() -> list:
    """Property values of the fixtures, and values of every kind near them."""
    values = []
    for op in _sampled_ops(6):
        values.extend(op.properties.values())
        values.extend(op.attributes.values())
    i4, si32, ui32 = IntegerType(4), IntegerType(32, Signedness.SIGNED), IntegerType(32, Signedness.UNSIGNED)
    for t in (i1, i4, i8, i32, i64, si32, ui32, IndexType()):
        for v in (-1, 0, 1, 2, 3, 7, 8, 15, 16):
            try:
                values.append(IntegerAttr(v, t))
            except Exception:
                pass
    values += [
        BoolAttr.from_bool(True), BoolAttr.from_bool(False), UnitAttr(), StringAttr("x"),
        TypedStringAttr(StringAttr("x"), i32),
        FloatAttr(1.0, f32), IntAttr(3), ArrayAttr([IntAttr(1)]),
        DenseArrayBase.from_list(i32, [0, 1]), DenseArrayBase.from_list(i64, [0, 1]),
        DenseArrayBase.from_list(i8, [1]), i32, f32,
    ]
    return values


def test_quick_property_tests_accept_only_what_the_constraint_accepts():
    constraints = _property_constraints()
    values = _values()
    covered = 0
    for c in constraints:
        passes = V._passes(c)
        if passes is None:
            continue
        covered += 1
        for v in values:
            if passes(v):
                c.verify(v, VerificationContext())  # (raises if the quick test lied)
    assert covered >= 10


def test_quick_property_tests_where_constraints_bind_a_variable():
    """``arith.constant``'s value (a variable ``T`` for its type, once in each alternative)
    and made-up ones: a variable seen twice leaves the decision to the constraint."""
    from xdsl.irdl.constraints import AllOf, AnyAttr, BaseAttr, EqAttrConstraint, VarConstraint

    t = VarConstraint("T", AnyAttr())
    twice = ParamAttrConstraint(IntegerAttr, (t, t))
    assert V._passes(twice) is None
    once = ParamAttrConstraint(IntegerAttr, (AnyAttr(), AllOf((BaseAttr(IntegerType), VarConstraint("T", EqAttrConstraint(i32))))))
    passes = V._passes(once)
    assert passes is not None and passes(IntegerAttr(1, i32)) and not passes(IntegerAttr(1, i64))
    with pytest.raises(VerifyException):
        once.verify(IntegerAttr(1, i64), VerificationContext())


# ------------------------------------------------------------------ memoised helpers
def _types() -> list:
    types = []
    for op in _sampled_ops(10):
        types.extend(v.type for v in (*operand_tuple(op), *op.results))
    return types


def test_same_is_equality():
    types = _types()[:400]
    for a in types[::3]:
        for b in types[::7]:
            assert same(a, b) == (a == b)
            assert same(a, b) == (a == b)  # (memoised: asked again)


def _converts_reference(c, v) -> bool:
    """``verify._converts`` as it was before its memo (per constraint)."""
    if isinstance(c, InReleases):
        low, high = versions.checked_span()
        if not (c.first <= low and high <= c.last):
            return True
        c = c.constr
    if isinstance(v, TypedStringAttr):
        v = v.value
    if isinstance(c, (I32Cases, I32Enum)) or (
        isinstance(c, ParamAttrConstraint) and (
            c.base_attr is DenseArrayBase
            or (c.base_attr is IntegerAttr and V._ok(c, IntegerAttr(1, i1))))
    ):
        return V._ok(c, v)
    bases = c.get_bases()
    return bases is None or isinstance(v, tuple(bases))


def test_converts_is_what_it_was():
    constraints = _property_constraints()
    values = _values()
    for release in ((2, 1), (3, 0), (3, 6), (3, 9)):
        with versions.checking(release):
            for c in constraints:
                for v in values[::5]:
                    assert V._converts(c, v) == _converts_reference(c, v), (c, v)


def test_traits_without_a_step_check_nothing():
    """The xDSL interface traits the verifier runs no step for (``verify._NO_CHECK_TRAITS``)
    read nothing of the op and raise nothing."""

    class Untouchable:
        def __getattribute__(self, name):
            raise AssertionError(f"read {name}")

    assert V._NO_CHECK_TRAITS
    for cls in V._NO_CHECK_TRAITS:
        trait = cls.__new__(cls)
        assert cls.verify(trait, Untouchable()) is None



def test_forgetting_types_changes_no_verdict():
    """``verify.forget_types`` (for ``clear_shared_types``) empties memos only: a module read
    before is verified again the same, and so is the next one read."""
    path = sorted(FIXTURES.glob("3.6.0/*/*.ttgir"))[0]
    text = path.read_text()
    mod = read_module(text, str(path))
    V.forget_types()
    with versions.syntax(mod.triton_version):
        V.verify_module(mod)
    V.forget_types()
    clear_shared_types()
    read_module(text, str(path))
