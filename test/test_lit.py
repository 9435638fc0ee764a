"""Run the lit + FileCheck suite (test/lit) from pytest, so one command runs everything."""

import subprocess
import sys

from conftest import ROOT


def test_lit_suite():
    proc = subprocess.run(
        [sys.executable, "-c", "from lit.main import main; main()", "-v", str(ROOT / "test" / "lit")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout[-20000:] + proc.stderr[-5000:]
    assert "Passed:" in proc.stdout and "Failed" not in proc.stdout


def _split_files():
    lit = ROOT / "test" / "lit"
    return sorted(
        p for p in lit.rglob("*")
        if p.suffix in (".ttir", ".ttgir", ".mlir") and "Output" not in p.parts
        and "--split-input-file" in p.read_text(encoding="utf-8", errors="surrogateescape")
    )


def test_lit_split_helper_sees_the_chunks_ttopt_sees():
    """%triton-verify-chunks (test/lit/tools) splits on its own, not with ttopt's code; on every
    split lit file it must find the chunks ttopt-opt --split-input-file finds (same first lines,
    same text), or Triton would judge other cases than ttopt runs."""
    import importlib.util

    from ttopt.pipeline import split_input_file

    spec = importlib.util.spec_from_file_location(
        "triton_verify_chunks", ROOT / "test" / "lit" / "tools" / "triton_verify_chunks.py"
    )
    helper = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(helper)
    files = _split_files()
    assert len(files) >= 10, files
    for path in files:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        ours = helper.split_chunks(text)
        assert ours == split_input_file(text), path
        assert len(ours) >= 2, path
