"""The Python entry point and the pass registry."""

import os
import subprocess
import sys

import pytest

import ttopt
from conftest import ROOT, small
from ttopt.analysis.effects import may_write
from ttopt.ir.reader import read_module


def test_optimize_round_trip_is_idempotent():
    text = small("matmul.ttgir").read_text()
    once = ttopt.optimize(text, [])
    assert ttopt.optimize(once, []) == once


def test_run_pipeline_reports_stats_per_pass():
    text = small("div_chain.ttir").read_text()
    result = ttopt.run_pipeline(text, ["redundant-load", "div-chain"])
    assert [s.name for s in result.stats] == ["redundant-load", "div-chain"]
    assert result.stats[0].total == 0
    assert result.stats[1].to_dict() == {
        "pass": "div-chain", "rewrites": 1, "per_function": {"div_chain_kernel": 1}
    }
    assert result.changed


def test_pass_registry():
    # the paper's three first, in this order; later passes after them
    assert list(ttopt.PASSES)[:3] == ["redundant-load", "redundant-reduce", "div-chain"]
    assert all(cls.name == name for name, cls in ttopt.PASSES.items())


def test_import_is_lazy():
    """``import ttopt`` and ``import ttopt.cli`` (what ``--version``, ``--help`` and a usage
    error run) load no xDSL; the first use of a pipeline name imports it."""
    code = (
        "import sys, ttopt, ttopt.cli\n"
        "assert not any(m.split('.')[0] == 'xdsl' for m in sys.modules), sorted(sys.modules)\n"
        "assert 'ttopt.pipeline' not in sys.modules and 'ttopt.passes' not in sys.modules\n"
        "assert callable(ttopt.optimize) and 'redundant-load' in ttopt.PASSES\n"
        "assert 'xdsl' in sys.modules and ttopt.run_pipeline is sys.modules['ttopt.pipeline'].run_pipeline\n"
        "print(sorted(set(dir(ttopt)) & set(ttopt.__all__)) == sorted(ttopt.__all__))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0, r.stderr
    assert r.stdout == "True\n"
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        ttopt.nope  # noqa: B018


def _ops(text):
    return {op.name: op for op in read_module(text).op.walk()}


def test_memory_effects_the_passes_rely_on():
    text = """module {
  tt.func public @k(%p: !tt.ptr<f32>, %q: !tt.ptr<i32>, %x: f32, %c: i1) {
    %a = tt.load %p : !tt.ptr<f32>
    %b = tt.load %p {isVolatile = true} : !tt.ptr<f32>
    tt.store %p, %a : !tt.ptr<f32>
    %o = tt.atomic_cas acq_rel, gpu, %q, %q_0, %q_0 : (!tt.ptr<i32>, i32, i32) -> i32
    %e = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__nv_expf"} : (f32) -> f32
    %f = tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", packed_element = 1 : i32, pure = false} %x : f32 -> f32
    tt.assert %c, "boom" : i1
    gpu.barrier
    %s = arith.addf %x, %x : f32
    tt.return
  }
}
""".replace("%q_0", "%o0").replace("%o = tt.atomic_cas", "%o0 = arith.constant 0 : i32\n    %o = tt.atomic_cas")
    ops = _ops(text)
    assert not may_write(ops["arith.addf"])
    assert not may_write(ops["tt.extern_elementwise"])
    for name in ["tt.store", "tt.atomic_cas", "tt.elementwise_inline_asm", "tt.assert", "gpu.barrier"]:
        assert may_write(ops[name]), name
    loads = [op for op in read_module(text).op.walk() if op.name == "tt.load"]
    assert [may_write(op) for op in loads] == [False, True]
