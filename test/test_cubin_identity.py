"""What ttopt's printer makes of a kernel compiles to the *same cubin* as the kernel (Triton
3.6, sm_90, CPU).

A plain round trip copies the input (ttopt/ir/source.py: byte for byte, test_source_map.py);
here every op is printed anew (``write_module(keep_text=False)``), as ops a pass changes are,
so this checks the printer: every op, attribute and location (locations feed the cubin's line
info) comes out as Triton needs it.

The sample is every IR file of test/fixtures (no corpus needed): corpus/small and the Inductor
kernels of PROVENANCE.md, TTIR and TTGIR (pointwise, persistent and looped reductions), among
them the 12 this test used to take from the corpus (every n/12-th Inductor file).
"""

import pytest

from conftest import fixture_files, file_params, num_warps_for
from ttopt.ir.reader import read_module
from ttopt.ir.writer import write_module
from ttopt.oracle import compile_to_cubin

SAMPLE = fixture_files()


def test_sample_is_large_enough():
    assert len(SAMPLE) >= 20


@pytest.mark.parametrize("path", file_params(SAMPLE, what="test/fixtures/**/*.tt*ir"))
def test_round_trip_compiles_to_identical_cubin(path, tmp_path):
    out = tmp_path / path.name
    out.write_text(write_module(read_module(path.read_text(), str(path)), keep_text=False))
    assert out.read_text() != path.read_text()  # really another text for Triton's cache
    before = compile_to_cubin(str(path), num_warps_for(path))
    after = compile_to_cubin(str(out), num_warps_for(path))
    assert before == after
