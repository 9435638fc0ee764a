"""A round trip with no pass compiles to the *same cubin* as the input (Triton 3.6, sm_90, CPU).

Locations feed the cubin's line info, so this also checks that every location survives.

The sample is every IR file of test/fixtures (no corpus needed): corpus/small and the Inductor
kernels of PROVENANCE.md, TTIR and TTGIR (pointwise, persistent and looped reductions), among
them the 12 this test used to take from the corpus (every n/12-th Inductor file).
"""

import pytest

import ttopt
from conftest import fixture_files, file_params, num_warps_for
from ttopt.oracle import compile_to_cubin

SAMPLE = fixture_files()


def test_sample_is_large_enough():
    assert len(SAMPLE) >= 20


@pytest.mark.parametrize("path", file_params(SAMPLE, what="test/fixtures/**/*.tt*ir"))
def test_round_trip_compiles_to_identical_cubin(path, tmp_path):
    out = tmp_path / path.name
    out.write_text(ttopt.optimize(path.read_text(), [], str(path)))
    assert out.read_text() != path.read_text()  # really a different file for Triton's cache
    before = compile_to_cubin(str(path), num_warps_for(path))
    after = compile_to_cubin(str(out), num_warps_for(path))
    assert before == after
