"""An op's name is looked up as MLIR looks it up: the name as written, and for a name without
a dialect (custom form only) the default dialect of the op around it (``builtin`` in a
module's body, none in any op of Triton's).  xDSL also tried the dialect of every op around
it, so `splat %x ...` in a ``tt.func`` was read as ``tt.splat`` and `"return"()` as
``tt.return``, which Triton refuses (found by this round's semantic fuzzing).  Each case asks
Triton 3.6, its words and position included."""

from __future__ import annotations


import pytest

from conftest import triton_refusal, ttopt_refusal


def _module(top: str = "", body: str = "") -> str:
    return ("module {\n" + top + "  tt.func public @f(%n: i32, %p: !tt.ptr<i32>) {\n" + body
            + "    tt.return\n  }\n}\n")


CASES = {
    # no dialect, in a function: Triton's ops have no default dialect
    "custom op without dialect": _module(body="    %0 = splat %n : i32 -> tensor<4xi32>\n"),
    "store without dialect": _module(body="    store %p, %n : !tt.ptr<i32>\n"),
    "builtin op without dialect in a function": _module(
        body="    %0 = unrealized_conversion_cast %n : i32 to i64\n"),
    "generic op without dialect": _module(body='    %0 = "unrealized_conversion_cast"(%n) : (i32) -> i64\n'),
    "generic terminator without dialect": _module().replace("    tt.return\n", '    "return"() : () -> ()\n'),
    # in a module's body, the default dialect is builtin
    "unknown op in a module's body": _module(top="  %c = constant 1 : i32\n"),
    # a known dialect, an unknown op; an unknown dialect
    "unknown op of tt": _module(body="    %0 = tt.foo %n : i32\n"),
    "generic unknown op of tt": _module(body='    %0 = "tt.foo"(%n) : (i32) -> i32\n'),
    "unknown dialect": _module(body="    %0 = foo.bar %n : i32\n"),
    # with the dialect written: read
    "builtin op with its dialect": _module(
        body="    %0 = builtin.unrealized_conversion_cast %n : i32 to i64\n"),
    "generic op with its dialect": _module(body='    %0 = "tt.splat"(%n) : (i32) -> tensor<4xi32>\n'),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_op_name_is_looked_up_as_triton_looks_it_up(name, capfd):
    text = CASES[name]
    expected = triton_refusal(text, capfd)
    got = ttopt_refusal(text)
    if got is not None:
        got = (got[0], got[1], " ".join(got[2].split()))
    assert got == expected
    if "with its dialect" not in name:
        assert expected is not None
