"""A round trip with no pass compiles to the *same cubin* as the input (Triton 3.6, sm_90, CPU).

Locations feed the cubin's line info, so this also checks that every location survives.
"""

import pytest

import ttopt
from conftest import CORPUS, corpus_files, corpus_id, num_warps_for
from ttopt.oracle import compile_to_cubin


def _sample():
    small = sorted((CORPUS / "small").glob("*.tt*ir"))
    inductor = [p for p in corpus_files() if "inductor" in str(p)]
    return small + inductor[:: max(1, len(inductor) // 12)][:12]


SAMPLE = _sample()


def test_sample_is_large_enough():
    assert len(SAMPLE) >= 20


@pytest.mark.parametrize("path", SAMPLE, ids=[corpus_id(p) for p in SAMPLE])
def test_round_trip_compiles_to_identical_cubin(path, tmp_path):
    out = tmp_path / path.name
    out.write_text(ttopt.optimize(path.read_text(), [], str(path)))
    assert out.read_text() != path.read_text()  # really a different file for Triton's cache
    before = compile_to_cubin(str(path), num_warps_for(path))
    after = compile_to_cubin(str(out), num_warps_for(path))
    assert before == after
