"""``ttopt-opt --validate``: the input and the output run on the CPU (ttopt.interp) and write
the same bytes, or the run fails naming the first differing store; and every corpus kernel
that the exact passes rewrite validates bit for bit."""

import subprocess
import sys

import pytest

import ttopt
from conftest import ROOT, corpus_files, small
from ttopt.interp import compare

# a pass with the bug redundant-load must not have: it merges two loads of one address even
# when a store between them may change what the second one reads
BLIND_MERGE = '''
from dataclasses import dataclass
from typing import ClassVar

from ttopt.dialects.tt import LoadOp
from ttopt.passes.base import ModulePass, erase_op


@dataclass(frozen=True)
class BlindMerge(ModulePass):
    name: ClassVar[str] = "blind-merge"
    summary: ClassVar[str] = "(a planted bug) merge loads of one address, stores or not"

    def apply(self, ctx, op) -> None:
        seen = {}
        for load in [o for o in op.walk() if isinstance(o, LoadOp)]:
            first = seen.setdefault(tuple(load.operands), load)
            if first is not load:
                load.results[0].replace_all_uses_with(first.results[0])
                erase_op(load)
'''

STORE_BETWEEN = """module {
  tt.func public @k(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>) {
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %s = tt.splat %p : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %a = tt.addptr %s, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %x = tt.load %a : tensor<64x!tt.ptr<f32>>
    %two = arith.constant dense<2.0> : tensor<64xf32>
    %x2 = arith.mulf %x, %two : tensor<64xf32>
    tt.store %a, %x2 : tensor<64x!tt.ptr<f32>>
    %y = tt.load %a : tensor<64x!tt.ptr<f32>>
    %qs = tt.splat %q : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %qa = tt.addptr %qs, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    tt.store %qa, %y : tensor<64x!tt.ptr<f32>>
    tt.return
  }
}
"""


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "ttopt.cli", *map(str, args)], capture_output=True, text=True, cwd=ROOT
    )


@pytest.mark.parametrize("name", ["looped_softmax.ttgir", "matmul.ttir", "probe_misc.ttir", "add.ttgir"])
def test_exact_passes_validate(name, tmp_path):
    out = tmp_path / "out.ttir"
    proc = run_cli(small(name), "-p", "redundant-load,redundant-reduce", "--validate", "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "" and out.read_text().startswith(("module", "#"))


def test_validate_takes_its_count_only_after_an_equals_sign(tmp_path):
    """``--validate[=N]``: a bare ``--validate`` never swallows the input file after it."""
    out = tmp_path / "out.ttir"
    assert run_cli("--validate", small("add.ttir"), "-o", out).returncode == 0
    assert run_cli("--validate=1", small("add.ttir"), "-o", out).returncode == 0
    bad = run_cli("--validate=0", small("add.ttir"), "-o", out)
    assert bad.returncode == 2 and len(bad.stderr.splitlines()) == 1


def test_a_planted_bug_is_caught_and_nothing_is_written(tmp_path):
    f, plugin, out = tmp_path / "k.ttir", tmp_path / "blind.py", tmp_path / "out.ttir"
    f.write_text(STORE_BETWEEN)
    plugin.write_text(BLIND_MERGE)
    out.write_text("keep me\n")
    # the real pass keeps both loads, and validates
    ok = run_cli(f, "-p", "redundant-load", "--validate", "-o", out)
    assert ok.returncode == 0, ok.stderr
    assert out.read_text().count("tt.load") == 2
    out.write_text("keep me\n")
    bad = run_cli(f, "--load-pass", plugin, "-p", "blind-merge", "--validate", "-o", out)
    assert bad.returncode == 3
    lines = bad.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"{f}: error: --validate: @k: the output computes something else: q[")
    assert "(byte offset " in lines[0] and "tt.store at loc(" in lines[0]
    assert out.read_text() == "keep me\n"


def test_div_chain_is_held_to_its_ulps_bound():
    """div-chain reassociates (its opt-in contract): a/b/c -> a/(b*c) moves a quotient by an
    ulp or so, inside the default bound of a reassociating pass (4 ulps), not inside 0."""
    path = small("div_chain.ttir")
    assert run_cli(path, "-p", "div-chain", "--validate", "-o", "-").returncode == 0
    exact = run_cli(path, "-p", "div-chain", "--validate", "--validate-ulps", "0", "-o", "-")
    assert exact.returncode == 3 and " ulps apart " in exact.stderr


def test_div_chain_through_a_sum_exceeds_the_bound():
    """probe_k1 sums the rewritten quotients: each is within a few ulps of the original, but
    the sum, with cancellation, moves by hundreds of ulps or more; --validate reports it."""
    proc = run_cli(small("probe_k1.ttir"), "-p", "div-chain", "--validate", "-o", "-")
    assert proc.returncode == 3 and " ulps apart " in proc.stderr and proc.stdout == ""


def test_the_exact_passes_default_to_bit_for_bit(tmp_path):
    """Without a reassociating pass the bound is 0 ulps: the div-chain output of probe_k1,
    given as a hand edit to an exact pipeline's check (ttopt-run --compare), differs."""
    path = small("probe_k1.ttir")
    after = tmp_path / "after.ttir"
    after.write_text(ttopt.optimize(path.read_text(), ["div-chain"], str(path)))
    res = compare(path.read_text(), after.read_text(), seeds=1)
    assert not res.ok and "differs" in res.message


@pytest.mark.corpus
def test_corpus_kernels_the_exact_passes_rewrite_validate_bit_for_bit():
    """Every corpus file that redundant-load + redundant-reduce change runs, before and after,
    on two seeds and three program ids each, writing the same bits."""
    rewritten, failures = [], []
    for path in corpus_files():
        text = path.read_text()
        result = ttopt.run_pipeline(text, ["redundant-load", "redundant-reduce"], str(path))
        if result.changed:
            rewritten.append(path)
            res = compare(text, result.text, seeds=2)
            if not res.ok:
                failures.append(f"{path}: {res.message}")
    assert len(rewritten) >= 5  # (6 files with Triton 3.6's corpus)
    assert failures == []
