"""The passes on the real Inductor kernels the issues name: the rewrite happens, Triton 3.6
accepts the result, it compiles to a cubin, and the PTX has the expected fewer instructions.

The kernels are test/fixtures' copies of the corpus files, every compiled config of each
(test_corpus_roundtrip.py checks, with the corpus, that none is missing or changed)."""

import re

import pytest

import ttopt
from conftest import file_params, inductor_files, num_warps_for
from ttopt.oracle import triton_accepts

COAT_DUP = inductor_files(
    "coat_lite_mini.train", "triton_red_fused__to_copy_native_layer_norm_backward_select_backward_view_4.tt*ir"
)
BERT_CHAINS = sorted(
    p for n in (7, 16, 17, 20) for p in inductor_files("BERT_pytorch.train32", f"triton_per_fused_add_div_*_{n}.tt*ir")
)


def _compile(text, tmp_path, like):
    path = tmp_path / like.name
    path.write_text(text)
    num_warps = num_warps_for(like)
    import triton
    from triton.backends.compiler import GPUTarget

    k = triton.compile(str(path), target=GPUTarget("cuda", 90, 32), options={"num_warps": num_warps} if num_warps else None)
    assert k.asm["cubin"]
    return k.asm["ptx"]


def _accepted_and_compiled(text, new_text, tmp_path, like):
    """Triton accepts the rewritten text; PTX of the original and of the rewritten kernel."""
    assert triton_accepts(new_text, like.suffix).ok
    (tmp_path / "before").mkdir()
    (tmp_path / "after").mkdir()
    return _compile(text, tmp_path / "before", like), _compile(new_text, tmp_path / "after", like)


def test_corpus_kernels_found():
    assert len(COAT_DUP) >= 2 and len(BERT_CHAINS) >= 8


@pytest.mark.parametrize("path", file_params(COAT_DUP, what="coat_lite_mini ..._view_4 in test/fixtures"))
def test_redundant_load_on_coat_lite(path, tmp_path):
    text = path.read_text()
    result = ttopt.run_pipeline(text, ["redundant-load", "redundant-reduce"], str(path))
    assert result.stats[0].total == 1  # the evict_last / evict_first pair
    assert text.count("tt.load ") - result.text.count("tt.load ") == 1
    before, after = _accepted_and_compiled(text, result.text, tmp_path, path)
    loads = lambda ptx: len(re.findall(r"\bld\.global", ptx))  # noqa: E731
    assert loads(after) < loads(before)


@pytest.mark.parametrize("path", file_params(BERT_CHAINS, what="BERT_pytorch add_div_*_7/16/17/20 in test/fixtures"))
def test_div_chain_leaves_bert_layernorm_backward(path):
    """These kernels hold `a/t/t` (beside `b/t`): ptxas already shares rcp(t), so `a/(t*t)`
    would save no reciprocal and only lengthen the chain (measured slower on an H100).
    div-chain's profitability rule must leave them (test/lit/passes/div_chain_profitability.ttir)."""
    text = path.read_text()
    same_divisor = [
        m for m in re.finditer(r"(%\w+) = arith\.divf %\w+, (%\w+) ", text)
        if re.search(rf"arith\.divf {m.group(1)}, {m.group(2)} ", text)
    ]
    assert same_divisor, "the kernel should contain an a/t/t chain"
    result = ttopt.run_pipeline(text, ["div-chain"], str(path))
    assert result.stats[0].total == 0
    assert result.text == ttopt.optimize(text, [], str(path))
