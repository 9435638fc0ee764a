"""Batch mode: ``ttopt-opt`` over many files and directories in one process (ttopt/batch.py)."""

import os
import re
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

import ttopt
from conftest import ROOT, inductor_file, small
from ttopt import cli
from ttopt.batch import Job, optimize_files, plan

# coat_lite_mini's LayerNorm backward: one redundant load (test/fixtures)
COAT = inductor_file(
    "coat_lite_mini.train", "triton_red_fused__to_copy_native_layer_norm_backward_select_backward_view_4.ttir"
)
ADD = small("add.ttir")
ADD_GPU = small("add.ttgir")
H1, H2 = "A" * 52, "B" * 52
PASSES = ["--pass", "redundant-load,redundant-reduce"]

BROKEN_PASS = '''
from dataclasses import dataclass
from typing import ClassVar

from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern

from ttopt.dialects.arith import AddfOp
from ttopt.passes.base import ModulePass


class DropAdd(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AddfOp, rewriter: PatternRewriter):
        rewriter.replace(op, [], [op.operands[0]])   # x + y -> x: wrong on purpose


@dataclass(frozen=True)
class DropAddPass(ModulePass):
    name: ClassVar[str] = "drop-add"
    summary: ClassVar[str] = "(test) a miscompiling pass"

    def apply(self, ctx, op) -> None:
        PatternRewriteWalker(DropAdd()).rewrite_module(op)
'''


@pytest.fixture
def dump(tmp_path):
    """A TRITON_KERNEL_DUMP-like folder: <H>/<kernel>.ttir and what else Triton dumps."""
    d = tmp_path / "dump"
    (d / H1).mkdir(parents=True)
    (d / H2).mkdir(parents=True)
    shutil.copy(ADD, d / H1 / "add_kernel.ttir")
    shutil.copy(ADD_GPU, d / H1 / "add_kernel.ttgir")
    (d / H1 / "add_kernel.ptx").write_text("not IR\n")
    (d / H1 / "add_kernel.cubin").write_bytes(b"\x7fELF")
    shutil.copy(COAT, d / H2 / COAT.name)
    (d / H2 / ".hidden.ttir").write_text("not read\n")
    return d


def run(args, **kw):
    res = CliRunner().invoke(cli.main, [str(a) for a in args], **kw)
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception
    return res


def files_under(root):
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def expected(path, passes=("redundant-load", "redundant-reduce")):
    return ttopt.optimize(path.read_text(), list(passes))


# ------------------------------------------------------------------ layout
def test_a_directory_becomes_the_same_layout_under_the_output_dir(dump, tmp_path):
    out = tmp_path / "out"
    res = run([*PASSES, dump, "--output-dir", out])
    assert res.exit_code == 0, res.stderr
    assert res.stdout == "" and res.stderr == ""
    assert files_under(out) == [f"{H1}/add_kernel.ttgir", f"{H1}/add_kernel.ttir", f"{H2}/{COAT.name}"]
    for rel in files_under(out):
        assert (out / rel).read_text() == expected(dump / rel), rel
    assert (out / H2 / COAT.name).read_text() != COAT.read_text()  # the load was merged


def test_file_arguments_go_to_the_output_dir_by_name(dump, tmp_path):
    out = tmp_path / "out"
    res = run([*PASSES, ADD, dump / H2, "--output-dir", out])
    assert res.exit_code == 0, res.stderr
    assert files_under(out) == sorted([COAT.name, "add.ttir"])
    assert (out / "add.ttir").read_text() == expected(ADD)


def test_in_place_rewrites_each_file_and_keeps_its_mode(dump):
    target = dump / H2 / COAT.name
    os.chmod(target, 0o640)
    before = {rel: (dump / rel).read_bytes() for rel in files_under(dump)}
    res = run([*PASSES, dump, "--in-place"])
    assert res.exit_code == 0, res.stderr
    assert target.read_text() == expected(COAT)
    assert os.stat(target).st_mode & 0o777 == 0o640
    assert (dump / H1 / "add_kernel.ptx").read_bytes() == before[f"{H1}/add_kernel.ptx"]
    assert files_under(dump) == sorted(before)  # no temporary file left behind


def test_changed_only_writes_the_rewritten_kernels(dump, tmp_path):
    out = tmp_path / "override"
    res = run([*PASSES, dump, "--output-dir", out, "--changed-only"])
    assert res.exit_code == 0, res.stderr
    assert files_under(out) == [f"{H2}/{COAT.name}"]


def test_an_output_dir_inside_the_input_dir_is_not_read_back(dump):
    out = dump / "opt"
    for _ in range(2):
        res = run([*PASSES, dump, "--output-dir", out, "--stats"])
        assert res.exit_code == 0, res.stderr
        assert re.search(r"(?m)^== total: 3 files, 1 rewritten, 0 failed$", res.stderr), res.stderr
    assert files_under(out) == [f"{H1}/add_kernel.ttgir", f"{H1}/add_kernel.ttir", f"{H2}/{COAT.name}"]


# ------------------------------------------------------------------ errors
def test_a_bad_file_among_good_ones(dump, tmp_path):
    bad = dump / H1 / "broken.ttir"
    bad.write_text("module {\n  tt.func public @k() {\n    %x = arith.addf\n  }\n}\n")
    out = tmp_path / "out"
    (out / H1).mkdir(parents=True)
    (out / H1 / "broken.ttir").write_text("keep-me\n")  # a previous run's output stays as it was
    res = run([*PASSES, dump, "--output-dir", out])
    assert res.exit_code == 1
    assert re.fullmatch(rf"{re.escape(str(bad))}:\d+:\d+: error: [^\n]+\n", res.stderr), res.stderr
    assert (out / H1 / "broken.ttir").read_text() == "keep-me\n"
    assert files_under(out) == [f"{H1}/add_kernel.ttgir", f"{H1}/add_kernel.ttir", f"{H1}/broken.ttir",
                                f"{H2}/{COAT.name}"]
    assert (out / H2 / COAT.name).read_text() == expected(COAT)


def test_a_missing_input_and_an_empty_directory_are_errors_the_rest_still_runs(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    missing = tmp_path / "missing.ttir"
    out = tmp_path / "out"
    res = run([*PASSES, empty, missing, ADD, "--output-dir", out])
    assert res.exit_code == 1
    assert res.stderr.splitlines() == [
        f"{empty}: error: no .ttir or .ttgir file in this directory",
        f"{missing}: error: no such file",
    ]
    assert files_under(out) == ["add.ttir"]


def test_an_internal_error_is_exit_3_and_the_others_are_written(monkeypatch, dump, tmp_path):
    class Broken:
        name = "redundant-load"
        summary = "raises"

        def run(self, module):
            raise KeyError("boom")

    monkeypatch.setitem(ttopt.PASSES, "redundant-load", Broken)
    bad = dump / H1 / "broken.ttir"
    bad.write_text("garbage\n")
    out = tmp_path / "out"
    res = run(["--pass", "redundant-load", ADD, bad, "--output-dir", out])
    assert res.exit_code == 3
    assert res.stderr.splitlines() == [
        f"{ADD}: internal error: in pass 'redundant-load': KeyError: 'boom' (run with --debug for the traceback)",
        f"{bad}:1:1: error: custom op 'garbage' is unknown (tried 'builtin.garbage' as well)",
    ]
    assert not out.exists() or files_under(out) == []


@pytest.mark.parametrize("args, message", [
    (["a.ttir", "b.ttir"], "ttopt-opt: error: 2 inputs: give --output-dir DIR or --in-place (one input alone goes to -o or stdout)"),
    (["a.ttir", "b.ttir", "-o", "x"], "ttopt-opt: error: -o takes one input; give --output-dir DIR or --in-place for several"),
    (["a.ttir", "--output-dir", "o", "--in-place"], "ttopt-opt: error: give --output-dir DIR or --in-place, not both"),
    (["-", "a.ttir", "--output-dir", "o"], "ttopt-opt: error: standard input ('-') cannot be one of several inputs"),
    (["a.ttir", "--changed-only"], "ttopt-opt: error: --changed-only needs --output-dir DIR or --in-place"),
    (["a.ttir", "b.ttir", "--output-dir", "o", "--pass", "nope"], None),
])
def test_usage_errors_come_before_anything_runs(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    res = run(args)
    assert res.exit_code == 2
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ttopt-opt: error: ")
    if message is not None:
        assert lines == [message]
    assert sorted(os.listdir(tmp_path)) == []


def test_two_inputs_for_one_output_path_are_a_usage_error(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    shutil.copy(ADD, tmp_path / "a" / "k.ttir")
    shutil.copy(ADD_GPU, tmp_path / "b" / "k.ttir")
    out = tmp_path / "out"
    res = run([tmp_path / "a" / "k.ttir", tmp_path / "b", "--output-dir", out])
    assert res.exit_code == 2
    assert res.stderr.splitlines() == [
        f"ttopt-opt: error: '{tmp_path / 'a' / 'k.ttir'}' and '{tmp_path / 'b' / 'k.ttir'}' would both be "
        f"written to '{out / 'k.ttir'}'"
    ]
    assert not out.exists()


def test_the_same_file_named_twice_runs_once(dump, tmp_path):
    jobs, problems = plan([str(dump / H2), str(dump / H2 / COAT.name), str(dump / H2 / ".." / H2 / COAT.name)],
                          str(tmp_path / "out"))
    assert problems == []
    assert jobs == [Job(str(dump / H2 / COAT.name), str(tmp_path / "out" / COAT.name))]


# ------------------------------------------------------------------ --stats, --validate, --split-input-file
def test_stats_per_file_then_summed(dump, tmp_path):
    shutil.copy(COAT, dump / H1 / "again.ttir")
    res = run([*PASSES, dump, "--output-dir", tmp_path / "out", "--stats"])
    assert res.exit_code == 0
    kernel = COAT.stem
    assert res.stderr.splitlines() == [
        f"== {dump / H1 / 'again.ttir'}",
        "redundant-load (R-Load): 1 loads removed",
        f"  {kernel}: 1",
        "redundant-reduce (R-Reduce): 0 reductions removed",
        f"== {dump / H2 / COAT.name}",
        "redundant-load (R-Load): 1 loads removed",
        f"  {kernel}: 1",
        "redundant-reduce (R-Reduce): 0 reductions removed",
        "== total: 4 files, 2 rewritten, 0 failed",
        "redundant-load (R-Load): 2 loads removed",
        "redundant-reduce (R-Reduce): 0 reductions removed",
    ]


def test_validate_runs_per_file(tmp_path):
    pass_file = tmp_path / "drop_add.py"
    pass_file.write_text(BROKEN_PASS)
    out = tmp_path / "out"
    matmul = small("matmul.ttir")  # no arith.addf: drop-add changes nothing there
    res = run(["--load-pass", pass_file, "-p", "drop-add", "--validate", ADD, matmul, "--output-dir", out])
    assert res.exit_code == 3
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{ADD}: error: --validate: @add_kernel: the output computes "
                                                   "something else: ")
    assert files_under(out) == ["matmul.ttir"]
    assert (out / "matmul.ttir").read_text() == ttopt.optimize(matmul.read_text(), [])
    res = run(["--pass", "redundant-load", "--validate", ADD, COAT, matmul, "--output-dir", tmp_path / "ok"])
    assert res.exit_code == 0, res.stderr
    assert files_under(tmp_path / "ok") == sorted([COAT.name, "add.ttir", "matmul.ttir"])
    # --load-pass registers for that invocation only: an in-process caller's registry (and
    # the pass list of every later run) is as it was
    assert "drop-add" not in ttopt.passes.available_passes()
    res = run(["-p", "drop-add", ADD])
    assert res.exit_code == 2 and "unknown pass 'drop-add'" in res.stderr


def test_split_input_file_and_verify_diagnostics_per_file(tmp_path):
    cases = ROOT / "test" / "lit" / "errors" / "verify_errors.ttir"  # each chunk: its expected error
    bad = tmp_path / "bad.ttir"
    bad.write_text("module {\n}\n// -----\nmodule {\n  tt.bogus\n}\n")
    res = run([cases, ADD, "--split-input-file", "--verify-diagnostics", "--output-dir", tmp_path / "out"])
    assert res.exit_code == 0, res.stderr
    res = run([cases, bad, ADD, "--split-input-file", "--verify-diagnostics", "--output-dir", tmp_path / "o2"])
    assert res.exit_code == 1
    assert re.fullmatch(rf"{re.escape(str(bad))}:5:3: error: unexpected error: [^\n]+\n", res.stderr), res.stderr
    assert (tmp_path / "o2" / "add.ttir").read_text() == ttopt.optimize(ADD.read_text(), [])
    assert not (tmp_path / "o2" / "bad.ttir").exists()


# ------------------------------------------------------------------ --jobs
def _cli(args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "ttopt.cli", *map(str, args)], capture_output=True,
                          cwd=cwd, env=env)


def test_jobs_2_gives_the_same_bytes_as_jobs_1(dump, tmp_path):
    """Files, stdout, stderr (errors, --stats, --print-after-change dumps) and the exit status."""
    (dump / H2 / "bad.ttir").write_text("module {\n  tt.func @k() {\n    tt.bogus\n  }\n}\n")
    for i in range(4):
        shutil.copy(COAT, dump / H1 / f"copy{i}.ttir")
    runs = {}
    for jobs in (1, 2):
        out = tmp_path / f"out{jobs}"
        r = _cli([*PASSES, dump, "--output-dir", out, "--stats", "--print-after-change", "--jobs", jobs], tmp_path)
        runs[jobs] = (r.returncode, r.stdout, r.stderr, {rel: (out / rel).read_bytes() for rel in files_under(out)})
    assert runs[1][0] == 1
    assert b"IR Dump After redundant-load" in runs[1][2] and b"bad.ttir:3:5: error: " in runs[1][2]
    assert len(runs[1][3]) == 7  # all but bad.ttir
    assert runs[2] == runs[1]


# ------------------------------------------------------------------ the Python API
def test_optimize_files(dump, tmp_path):
    pairs = [(dump / H2 / COAT.name, tmp_path / "o" / "coat.ttir"), (ADD, tmp_path / "o" / "add.ttir")]
    results = optimize_files(pairs, ["redundant-load"], changed_only=True)
    assert [(r.status, r.written, r.changed) for r in results] == [(0, True, True), (0, False, False)]
    assert [s.total for s in results[0].stats] == [1]
    assert files_under(tmp_path / "o") == ["coat.ttir"]


def test_in_place_runs_a_file_named_two_ways_once(tmp_path):
    shutil.copy(COAT, tmp_path / "k.ttir")
    os.symlink(tmp_path / "k.ttir", tmp_path / "link.ttir")
    jobs, _ = plan([str(tmp_path / "k.ttir"), str(tmp_path / "link.ttir")], None, in_place=True)
    assert jobs == [Job(str(tmp_path / "k.ttir"), str(tmp_path / "k.ttir"))]
    res = run(["--pass", "redundant-load", tmp_path / "k.ttir", tmp_path / "link.ttir", "--in-place", "--stats"])
    assert res.exit_code == 0, res.stderr
    assert re.search(r"(?m)^== total: 1 files, 1 rewritten, 0 failed$", res.stderr), res.stderr
    assert os.path.islink(tmp_path / "link.ttir")
    assert (tmp_path / "k.ttir").read_text() == expected(COAT, ["redundant-load"])


# ------------------------------------------------------------------ the bench's override layout
def test_bench_override_dir_is_built_in_batch_mode(dump, tmp_path):
    from bench.layout import build_override_dir

    (dump / H2 / ".hidden.ttir").unlink()  # (bench.layout reads every <H>/*.ttir)
    for i in range(3):
        shutil.copy(COAT, dump / H1 / f"c{i}.ttir")
    one = build_override_dir(dump, tmp_path / "o1", ["redundant-load"], "ttir", jobs=1)
    two = build_override_dir(dump, tmp_path / "o2", ["redundant-load"], "ttir", jobs=2)
    assert [(r.hash_dir, r.kernel, r.stats) for r in one] == [(r.hash_dir, r.kernel, r.stats) for r in two]
    assert [r.kernel for r in one] == ["c0", "c1", "c2", COAT.stem]
    assert {rel: (tmp_path / "o1" / rel).read_bytes() for rel in files_under(tmp_path / "o1")} == {
        rel: (tmp_path / "o2" / rel).read_bytes() for rel in files_under(tmp_path / "o2")}
    (dump / H1 / "bad.ttir").write_text("garbage\n")
    with pytest.raises(RuntimeError, match=r"1 of 6 files failed; first: .*bad\.ttir:1:1: error: "):
        build_override_dir(dump, tmp_path / "o3", ["redundant-load"], "ttir")
    assert len(files_under(tmp_path / "o3")) == 4  # the others were written
