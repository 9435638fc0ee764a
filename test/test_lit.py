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
