"""Bad input: a one-line `FILE:LINE:COL: error: ...`, non-zero exit, no traceback, and an
existing output file left untouched; the Python API raises TTOptError with line and column."""

import subprocess
import sys

import pytest

import ttopt
from conftest import ROOT, small

INPUTS = ROOT / "test" / "bad_inputs"  # (the lit tests keep their own inputs)

CASES = {
    # name: (file, expected line, expected column, message fragment)
    "truncated": ("truncated.ttir", 4, 1, "unexpected end of input"),
    "garbage": ("garbage.ttir", 2, 1, "not UTF-8"),
    "syntax": ("syntax.ttir", 3, 21, "':'"),
    "type_error": ("type_error.ttir", 3, 21, "used with type f16"),
    "unknown_op": ("unknown_op.ttir", 3, 10, "'tt.frobnicate' is unknown"),
    "undefined_value": ("undefined_value.ttir", 3, 18, "undefined value '%nope'"),
    # signs of Triton releases that exclude each other (3.2's prefix, 3.9's module attribute;
    # 2.x's load hints, 3.0-3.8's): any one release's text reads (test/test_versions.py)
    "release_conflict_gpu": ("release_conflict.ttgir", 1, 13, "exclude each other"),
    "release_conflict_hints": ("release_conflict.ttir", 3, 10, "exclude each other"),
    "bad_loc": ("bad_loc.ttir", 7, 17, "'#loc9'"),
}


def run_cli(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "ttopt.cli", *map(str, args)],
        capture_output=True, text=True, input=stdin, cwd=ROOT,
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_cli_reports_one_line_with_position(name, tmp_path):
    fname, line, col, fragment = CASES[name]
    out = tmp_path / "out.ttir"
    out.write_text("keep me\n")
    proc = run_cli(INPUTS / fname, "-o", out)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert lines[0].startswith(f"{INPUTS / fname}:{line}:{col}: error: "), lines[0]
    assert fragment in lines[0]
    assert out.read_text() == "keep me\n"
    assert proc.stdout == ""
    assert [p.name for p in tmp_path.iterdir()] == ["out.ttir"]  # no temp file left behind


@pytest.mark.parametrize("name", sorted(set(CASES) - {"garbage"}))
def test_api_raises_ttopt_error_with_position(name):
    fname, line, col, fragment = CASES[name]
    with pytest.raises(ttopt.TTOptError) as info:
        ttopt.optimize((INPUTS / fname).read_text(), [], fname)
    assert (info.value.line, info.value.col) == (line, col)
    assert fragment in info.value.message


def test_missing_file():
    proc = run_cli(ROOT / "no" / "such.ttir")
    assert proc.returncode == 1
    assert proc.stderr.strip() == f"{ROOT / 'no' / 'such.ttir'}: error: no such file"


def test_unknown_pass_is_a_usage_error():
    proc = run_cli(INPUTS / "syntax.ttir", "--pass", "nope")
    assert proc.returncode == 2
    assert "unknown pass 'nope'" in proc.stderr and "Traceback" not in proc.stderr
    with pytest.raises(ttopt.TTOptError, match="unknown pass 'nope'"):
        ttopt.optimize("module {\n}\n", ["nope"])


def test_empty_stdin_is_an_empty_module():
    """As in MLIR (Triton reads an empty file as an empty module too)."""
    proc = run_cli("-", stdin="")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "module {\n} loc(unknown)\n"


def test_output_written_whole_on_success(tmp_path):
    src = small("add.ttir")
    out = tmp_path / "o.ttir"
    out.write_text("old")
    proc = run_cli(src, "-o", out, "--pass", "redundant-load")
    assert proc.returncode == 0, proc.stderr
    assert out.read_text() == ttopt.optimize(src.read_text(), ["redundant-load"], str(src))
