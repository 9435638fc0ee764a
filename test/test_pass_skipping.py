"""The passes skip a function that holds fewer than two of the ops they merge
(``NEEDS_TWO``: two loads for redundant-load, two reductions/scans for redundant-reduce, two
``arith.divf`` for div-chain): the skip must never change an output.

Each fixture kernel and each lit input is run with the skip and with it switched off; the
outputs and statistics must be identical, and the hand-made cases below show that the count
looks inside nested regions and that one op alone is left as it was."""

from __future__ import annotations

import pytest

import ttopt
from conftest import ROOT, fixture_files
from ttopt.passes import base, div_chain, redundant_load, redundant_reduce
from ttopt.passes.base import holds_two
from ttopt.pipeline import split_input_file

PASSES = ["redundant-load", "redundant-reduce", "div-chain"]
LIT_INPUTS = sorted(p for ext in ("ttir", "ttgir") for p in (ROOT / "test" / "lit" / "passes").glob(f"*.{ext}"))


def _no_skipping(monkeypatch) -> None:
    monkeypatch.setattr(base, "holds_two", lambda *_: True)
    for module in (div_chain, redundant_load, redundant_reduce):
        if hasattr(module, "holds_two"):
            monkeypatch.setattr(module, "holds_two", lambda *_: True)


def _run(text: str, name: str):
    try:
        r = ttopt.run_pipeline(text, PASSES, name, jobs=1)
    except ttopt.TTOptError as e:
        return ("error", str(e))
    return (r.text, [(s.name, dict(s.per_function)) for s in r.stats])


def _both(texts, monkeypatch) -> tuple[list, list]:
    skipped = [_run(t, n) for n, t in texts]
    with monkeypatch.context() as m:
        _no_skipping(m)
        full = [_run(t, n) for n, t in texts]
    return skipped, full


def test_skipping_changes_no_fixture_output(monkeypatch):
    texts = [(str(p), p.read_text()) for p in fixture_files()]
    assert len(texts) >= 20
    skipped, full = _both(texts, monkeypatch)
    for (name, _), a, b in zip(texts, skipped, full):
        assert a == b, name
    assert sum(a[0] != t for (_, t), a in zip(texts, skipped)) >= 2  # (some rewrites made)


def test_skipping_changes_no_lit_output(monkeypatch):
    """The lit inputs hold the pass's edge cases (one load in a loop, loads in both
    branches of an scf.if, a division inside a region ...): each chunk run both ways."""
    texts = [(f"{p}:{line}", chunk) for p in LIT_INPUTS for line, chunk in split_input_file(p.read_text())]
    assert len(LIT_INPUTS) >= 10 and len(texts) >= 100
    skipped, full = _both(texts, monkeypatch)
    for (name, _), a, b in zip(texts, skipped, full):
        assert a == b, name


NESTED = """module {
  tt.func public @k(%p: !tt.ptr<f32>, %c: i1, %x: f32, %y: f32) {
    %a = tt.load %p : !tt.ptr<f32>
    scf.if %c {
      %b = tt.load %p : !tt.ptr<f32>
      %d = arith.divf %x, %y : f32
      scf.if %c {
        %e = arith.divf %d, %y : f32
        tt.store %p, %e : !tt.ptr<f32>
      }
      tt.store %p, %b : !tt.ptr<f32>
    }
    tt.store %p, %a : !tt.ptr<f32>
    tt.return
  }
}
"""


def test_holds_two_counts_inside_regions():
    from ttopt.ir.reader import read_module

    module = read_module(NESTED)
    func = next(iter(module.op.body.block.ops))
    from ttopt.dialects.arith import DivfOp
    from ttopt.dialects.tt import LoadOp, ReduceOp, StoreOp

    assert holds_two(func, (LoadOp,)) and holds_two(func, (DivfOp,)) and holds_two(func, (StoreOp,))
    assert not holds_two(func, (ReduceOp,))
    assert holds_two(func, (ReduceOp, LoadOp))


@pytest.mark.parametrize("pass_name,needle", [
    ("redundant-load", "tt.load"), ("div-chain", "arith.divf"),
])
def test_one_op_alone_is_left_and_two_are_merged(pass_name, needle):
    one = """module {
  tt.func public @k(%p: !tt.ptr<f32>, %x: f32, %y: f32) {
    %a = tt.load %p : !tt.ptr<f32>
    %d = arith.divf %a, %y : f32
    tt.store %p, %d : !tt.ptr<f32>
    tt.return
  }
}
"""
    assert ttopt.optimize(one, [pass_name]) == one
    two = one.replace(
        "    tt.store %p, %d", "    %b = tt.load %p : !tt.ptr<f32>\n    %e = arith.divf %d, %x : f32\n"
        "    %f = arith.addf %e, %b : f32\n    tt.store %p, %f"
    )
    out = ttopt.run_pipeline(two, [pass_name], "two.ttir", jobs=1)
    assert out.stats[0].total == 1 and out.text.count(needle) == two.count(needle) - 1
