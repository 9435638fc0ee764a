"""Every corpus file survives a round trip (no pass) and Triton 3.6 accepts the output."""

import pytest

import ttopt
from conftest import corpus_files, corpus_id
from ttopt.oracle import triton_accepts

FILES = corpus_files()


def test_corpus_is_there():
    assert len(FILES) > 2000, "the shared corpus is missing: ../shared/corpus"


@pytest.mark.parametrize("path", FILES, ids=[corpus_id(p) for p in FILES])
def test_round_trip_is_accepted_by_triton(path):
    out = ttopt.optimize(path.read_text(), [], str(path))
    result = triton_accepts(out, path.suffix)
    assert result.ok, result.message
