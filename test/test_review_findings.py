"""Bugs found by this round's review, each fixed (the tests were strict xfails until then).

* the plan-driven fast path (ttopt.ir.fast_formats) takes a line whose format ends in optional
  parts (``ttg.async_commit_group``'s ``(`tokens` $inputTokens^)?``) as a whole op, where
  the full parser goes on reading the op on the next line (an operand, ``%x``, which the
  line-continuation test ``fast_ops.continues`` takes for the next op's start);
* the regular fast path reads ``tt.get_num_programs x : i32`` in a Triton 2.x text, whose
  syntax is ``{axis = 0 : i32}`` (the full parser refuses it);
* ``custom<I32List>`` (``ttg.memdesc_subslice %m[...]``) takes values out of int32's range.
"""

from __future__ import annotations

import pytest

import ttopt
from test_fast_formats import KERNEL
from test_fast_path import _no_fast_paths
from conftest import FIXTURES


def _verdict(text: str, name: str) -> str:
    try:
        return ttopt.optimize(text, [], name)
    except ttopt.TTOptError as e:
        return f"error: {e}"


def _both(text: str, name: str, monkeypatch) -> tuple[str, str]:
    fast = _verdict(text, name)
    with monkeypatch.context() as m:
        _no_fast_paths(m)
        slow = _verdict(text, name)
    return fast, slow


@pytest.mark.parametrize("fixture, before, after, triton_ok", [
    # Triton 3.6: "expected operation name in quotes" (it reads `%u` of the next line as the
    # group's operand); the plan takes `tokens` with no operand and ttopt accepts the text
    (None, "%t = ttg.async_commit_group", "%t = ttg.async_commit_group tokens", False),
    # Triton 3.6 accepts (the operand is on the next line); the plan ends the op before
    # `%t0`, which then fails as an op ("Expected '=' after operation result list")
    (None, "%t = ttg.async_commit_group",
     "%t0 = ttg.async_commit_group\n    %t = ttg.async_commit_group tokens\n      %t0", True),
    # a release before 3.5 (`$inputTokens attr-dict`): the line ends after the op's name
    # and a blank, its operand is on the next line (the full parser reads it)
    ("versions/3.2.0/sm90/matmul.ttgir", "%47 = triton_gpu.async_commit_group %46 loc(#loc23)",
     "%47 = triton_gpu.async_commit_group \n    %46 loc(#loc23)", None),
], ids=["operand-missing", "operand-on-next-line", "release-3.2"])
def test_plan_does_not_end_an_op_whose_optional_tail_continues_below(
        fixture, before, after, triton_ok, monkeypatch):
    source = KERNEL if fixture is None else (FIXTURES / fixture).read_text()
    assert source.count(before) == 1
    text = source.replace(before, after)
    fast, slow = _both(text, "k.ttgir", monkeypatch)
    if triton_ok is not None:  # (the full parser agrees with Triton)
        assert slow.startswith("error") is not triton_ok
    assert fast == slow



def test_regular_fast_path_keeps_release_syntax_of_get_num_programs(monkeypatch):
    path = FIXTURES / "versions" / "2.1.0" / "sm90" / "debug_ops.ttir"
    before = "%2 = tt.get_num_programs {axis = 0 : i32} : i32"
    text = path.read_text()
    assert before in text
    text = text.replace(before, "%2 = tt.get_num_programs x : i32")
    fast, slow = _both(text, "k.ttir", monkeypatch)
    assert slow.startswith("error") and "Expected ':'" in slow
    assert fast == slow  # (fast: accepted, and written back with 2.x and 3.x syntax mixed)


@pytest.mark.parametrize("value", ["2147483648", "4294967296", "-2147483649"])
def test_i32_list_out_of_range_is_an_input_error(value):
    """Triton 3.6: "custom op 'ttg.memdesc_subslice' integer value too large" for both."""
    text = KERNEL.replace(
        "ttg.local_dealloc %m",
        f"%ss = ttg.memdesc_subslice %a [{value}] : !ttg.memdesc<64xf32, #shared, #smem> -> "
        "!ttg.memdesc<32xf32, #shared, #smem>\n    ttg.local_dealloc %m", 1)
    from ttopt.oracle import triton_accepts

    assert not triton_accepts(text).ok
    with pytest.raises(ttopt.TTOptError) as info:
        ttopt.optimize(text, [], "k.ttgir")
    assert not isinstance(info.value, ttopt.errors.TTOptInternalError)
    line = 1 + text[: text.index(f"[{value}]")].count("\n")
    col = text.index(f"[{value}]") - text.rindex("\n", 0, text.index(f"[{value}]"))
    assert str(info.value) == f"k.ttgir:{line}:{col + 1}: error: integer value too large"
