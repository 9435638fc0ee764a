"""The Python entry point and the pass registry."""

import os
import subprocess
import sys

import pytest

import ttopt
from conftest import ROOT, file_params, fixture_files, small
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


@pytest.mark.parametrize("path", file_params(fixture_files(), what="fixtures"))
def test_idle_passes_skipped_change_nothing(path, monkeypatch):
    """``run_pipeline`` does not run a pipeline none of whose passes can rewrite anything
    (their text preconditions all false): every pass's statistics are what running them
    gives, and the output is the input's lines without blank and comment-only lines, as
    the writer prints them (probe_gen.ttir starts with a blank line)."""
    from ttopt.passes.preconditions import may_rewrite

    text = path.read_text()
    passes = ["redundant-load", "redundant-reduce", "div-chain", "recip-hoist"]
    fast = ttopt.run_pipeline(text, passes, str(path))
    monkeypatch.setattr(ttopt.pipeline, "SKIP_IDLE_PASSES", False)
    full = ttopt.run_pipeline(text, passes, str(path))
    if may_rewrite(ttopt.pipeline.resolve_passes(passes), text):
        assert fast.text == full.text
    else:
        assert fast.text == full.text
    assert [s.to_dict() for s in fast.stats] == [s.to_dict() for s in full.stats]
    assert [name for name, _ in fast.timings] == [name for name, _ in full.timings]


def test_idle_passes_are_skipped():
    """A kernel whose text rules out every pass: no pass runs, each reports no rewrite; a
    kernel with something to rewrite: the passes run."""
    import unittest.mock

    from ttopt.passes.preconditions import may_rewrite

    texts = [p.read_text() for p in fixture_files()]
    pipeline = ttopt.pipeline.resolve_passes(["redundant-load", "div-chain"])
    idle = [t for t in texts if not may_rewrite(pipeline, t)]
    busy = [t for t in texts if may_rewrite(pipeline, t)]
    assert idle and busy
    calls = []
    original = ttopt.PASSES["div-chain"].apply

    def counting(self, ctx, op):
        calls.append(1)
        return original(self, ctx, op)

    with unittest.mock.patch.object(ttopt.PASSES["div-chain"], "apply", counting):
        result = ttopt.run_pipeline(idle[0], ["redundant-load", "div-chain"])
        assert calls == [] and [s.total for s in result.stats] == [0, 0]
        ttopt.run_pipeline(busy[0], ["redundant-load", "div-chain"])
        assert calls == [1]


def test_idle_output_keeps_lines_only_newline_ends(monkeypatch):
    """The idle output leaves out blank and comment-only lines, where only a newline ends a
    line: a location string holding U+2028 (a line break to str.splitlines) then `//` stays
    whole, as the writer prints it; CRLF and a missing last newline are kept."""
    text = (
        "\n// a comment\nmodule {\n  tt.func public @k() {\n"
        '    tt.return loc("a\u2028// b":1:1)\n\n  }\n}'
    )
    for variant in (text, text.replace("\n", "\r\n"), text + "\n"):
        fast = ttopt.run_pipeline(variant, ["redundant-load"]).text
        monkeypatch.setattr(ttopt.pipeline, "SKIP_IDLE_PASSES", False)
        full = ttopt.run_pipeline(variant, ["redundant-load"]).text
        monkeypatch.setattr(ttopt.pipeline, "SKIP_IDLE_PASSES", True)
        assert fast == full
        assert '"a\u2028// b":1:1' in fast and "// a comment" not in fast
