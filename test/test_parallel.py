"""ttopt.parallel: a large module's functions in worker processes give exactly what one
process gives (text, stats, errors), and anything it cannot split safely runs in one process."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import ttopt
from ttopt import parallel
from ttopt.pipeline import run_pipeline

KERNEL = Path(__file__).parent / "fixtures" / "small" / "looped_softmax.ttir"
PASSES = ["redundant-load", "redundant-reduce", "div-chain"]


def module(copies: int, edit=None) -> str:
    """``copies`` renamed copies of looped_softmax's function in one module (``edit(i, text)``
    may change copy i)."""
    text = KERNEL.read_text()
    start = text.index("module {") + len("module {\n")
    end = text.rindex("\n} loc(")
    head, func, tail = text[:start], text[start:end], text[end:]
    name = re.search(r"tt\.func public @(\w+)", func).group(1)
    funcs = []
    for i in range(copies):
        f = func.replace(f"@{name}(", f"@{name}_{i}(")
        funcs.append(edit(i, f) if edit else f)
    return head + "\n".join(funcs) + tail


@pytest.fixture
def split(monkeypatch):
    """Every module splits (no size threshold); records what parallel.run returned."""
    monkeypatch.setattr(parallel, "MIN_BYTES", 0)
    calls = []
    real = parallel.run

    def run(*a, **kw):
        result = real(*a, **kw)
        calls.append(result is not None)
        return result

    monkeypatch.setattr(parallel, "run", run)
    return calls


def test_the_same_text_and_stats_as_one_process(split):
    text = module(6)
    serial = run_pipeline(text, PASSES, jobs=1)
    assert split == []
    par = run_pipeline(text, PASSES, jobs=2)
    assert split == [True]  # (it did run in workers)
    assert par.text == serial.text
    assert par.text != text  # (a load merged in every copy)
    assert [(s.name, dict(s.per_function)) for s in par.stats] == [
        (s.name, dict(s.per_function)) for s in serial.stats
    ]
    assert par.stats[0].per_function == {f"looped_softmax_kernel_{i}": 1 for i in range(6)}


def test_an_error_in_one_chunk_is_the_error_one_process_gives(split):
    def bad(i, f):  # an ill-typed op in copy 4 (a chunk of its own, far from line 1)
        return f.replace("arith.addf", "arith.addi", 1) if i == 4 else f

    text = module(6, bad)
    with pytest.raises(ttopt.TTOptError) as serial:
        run_pipeline(text, PASSES, jobs=1)
    with pytest.raises(ttopt.TTOptError) as par:
        run_pipeline(text, PASSES, jobs=2)
    assert str(par.value) == str(serial.value)
    assert split == [False]  # (the workers failed; the module was read again in one process)


def test_what_is_not_split(split):
    text = module(6)
    # a call may cross chunks; a pass of unknown reach (a plugin's) may look at the module
    called = text.replace("    tt.return", "    tt.call @looped_softmax_kernel_0() : () -> ()\n    tt.return", 1)
    assert called != text
    assert run_pipeline(text, PASSES, jobs=1).text == run_pipeline(text, PASSES, jobs=2).text
    split.clear()
    try:
        run_pipeline(called, PASSES, jobs=2)
    except ttopt.TTOptError:
        pass  # (ill-formed call: what matters is that it was not split)
    assert split == []

    class Whole(ttopt.passes.XDSLModulePass):
        name = "whole-module-test"

        def apply(self, ctx, op):
            pass

    assert not parallel.function_local([Whole()])
    assert parallel.function_local(ttopt.pipeline.resolve_passes(PASSES))
    # one function, or a comment outside the functions: not this shape
    assert parallel.shape_of(module(1)) is None
    two = module(2)
    assert parallel.shape_of(two) is not None
    assert parallel.shape_of(two.replace("module {\n", "module {\n  // note\n", 1)) is None


def test_a_batch_worker_runs_a_large_module_itself(split, tmp_path):
    """ttopt-opt --jobs 2 over large files: each batch worker (a daemonic process, which may not
    have children) reads its module in one process; the outputs are those of --jobs 1."""
    from click.testing import CliRunner

    from ttopt import cli

    for i in range(3):
        (tmp_path / "in" / f"k{i}").mkdir(parents=True)
        (tmp_path / "in" / f"k{i}" / "big.ttir").write_text(module(4 + i))
    outs = {}
    for jobs in ("1", "2"):
        res = CliRunner().invoke(cli.main, ["-p", ",".join(PASSES), str(tmp_path / "in"),
                                            "--output-dir", str(tmp_path / jobs), "--jobs", jobs])
        assert res.exit_code == 0, res.output
        outs[jobs] = {p.relative_to(tmp_path / jobs): p.read_text() for p in (tmp_path / jobs).rglob("*.ttir")}
    assert len(outs["1"]) == 3 and outs["1"] == outs["2"]
    for i in range(3):  # (rewritten: a load merged in every function)
        assert outs["1"][Path(f"k{i}/big.ttir")] != module(4 + i)


def test_one_worker_still_takes_a_large_module_a_chunk_at_a_time(split, monkeypatch):
    """TTOPT_JOBS=1 (or one core): a module of several chunks runs through one worker process,
    a chunk at a time (bounded memory), with the output of one process; ``jobs=1`` keeps it
    in this process."""
    monkeypatch.setenv("TTOPT_JOBS", "1")
    text = module(6)
    monkeypatch.setattr(parallel, "CHUNK_BYTES", len(text) // 3)
    serial = run_pipeline(text, PASSES, jobs=1)
    assert split == []
    assert run_pipeline(text, PASSES).text == serial.text
    assert split == [True]
    monkeypatch.setattr(parallel, "CHUNK_BYTES", len(text))  # (one chunk: nothing to bound)
    assert run_pipeline(text, PASSES).text == serial.text
    assert split == [True]
