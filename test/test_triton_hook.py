"""ttopt inside Triton's compiler (Triton 3.6 stages-inspection hook), on the CPU."""

import os
import subprocess
import sys
import textwrap

import pytest
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget

import ttopt.triton_hook as hook
from conftest import ROOT


@triton.jit
def dup_load_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(x_ptr + offs, eviction_policy="evict_last")
    b = tl.load(x_ptr + offs, eviction_policy="evict_first")
    tl.store(y_ptr + offs, a * b)


def compile_dup():
    src = triton.compiler.ASTSource(
        fn=dup_load_kernel,
        signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "BLOCK": "constexpr"},
        constexprs={"BLOCK": 128},
    )
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})


def loads(k):
    return k.asm["ttgir"].count("tt.load "), k.asm["ptx"].count("ld.global")


@pytest.fixture(autouse=True)
def _fresh_cache_and_off(tmp_path):
    """Each test compiles into its own cache dir (a cache hit would skip the hook)."""
    saved = triton.knobs.cache.dir
    triton.knobs.cache.dir = str(tmp_path / "triton-cache")
    yield
    hook.disable()
    triton.knobs.cache.dir = saved


def test_same_process_on_off_on():
    off1 = loads(compile_dup())
    with hook.enabled(["redundant-load"]):
        on = loads(compile_dup())
    off2 = loads(compile_dup())
    assert off1[0] == 2 and off2 == off1
    assert on[0] == 1
    assert on[1] < off1[1]


def test_log_and_records(capsys):
    with hook.enabled(["redundant-load"], log=True):
        compile_dup()
        recs = hook.records()
    assert {"kernel": "dup_load_kernel", "stage": "ttir", "pass": "redundant-load", "rewrites": 1} in recs
    assert "ttopt: dup_load_kernel [ttir] redundant-load: 1" in capsys.readouterr().err


def test_triton_37_cache_key_signature():
    assert hook._hook() == ("", "")
    with hook.enabled(["redundant-load", "div-chain"]) as state:
        key, digest = hook._hook()
    assert key == state.key and "redundant-load+div-chain" in key and len(digest) == 64


def test_a_failing_pass_never_breaks_the_compile(monkeypatch):
    def boom(*a, **k):
        raise RuntimeError("bug")

    monkeypatch.setattr(hook, "run_pipeline", boom)
    with hook.enabled(["redundant-load"]):
        with pytest.warns(RuntimeWarning, match="dup_load_kernel"):
            k = compile_dup()
    assert loads(k)[0] == 2  # Triton's own module was used


def test_unknown_pass_is_refused_up_front():
    with pytest.raises(Exception, match="unknown pass"):
        hook.enable(["nope"])


SCRIPT = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {test_dir!r})
    from test_triton_hook import compile_dup, loads
    print("LOADS", loads(compile_dup())[0])
    """
)


def _run(script, env):
    return subprocess.run([sys.executable, *script], capture_output=True, text=True, env=env, cwd=ROOT)


def test_across_processes_sharing_a_cache_dir(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(SCRIPT.format(test_dir=str(ROOT / "test")))
    env = dict(os.environ, TRITON_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    with_hook = ["-m", "ttopt.triton_hook", "--pass", "redundant-load", str(script)]
    results = [
        _run(with_hook, env),          # compiles with ttopt, fills the cache
        _run([str(script)], env),      # without: must not get ttopt's kernel
        _run(with_hook, env),          # with again (may come from the cache)
        _run([str(script)], env),
    ]
    for r in results:
        assert r.returncode == 0, r.stderr[-3000:]
    assert [r.stdout.split("LOADS")[1].strip() for r in results] == ["1", "2", "1", "2"]


def _decisions_file(tmp_path, ttir: str, decision: str, passes=("redundant-load",)):
    from ttopt.decisions import Decision, Decisions, ttir_digest

    path = tmp_path / f"decisions-{decision}.json"
    entry = Decision("dup_load_kernel", ttir_digest(ttir), decision, list(passes))
    Decisions([entry], list(passes)).write(path)
    return path


def test_decision_file_keeps_only_its_winners(tmp_path):
    """`ttopt tune`'s decision file: a `keep` entry (kernel name + TTIR digest) gets its passes,
    a `reject` entry or a kernel whose TTIR differs is compiled as Triton makes it."""
    off = compile_dup()
    keep = _decisions_file(tmp_path, off.asm["ttir"], "keep")
    with hook.enabled(decisions=keep) as state:
        on = loads(compile_dup())
        assert state.key.endswith(state.decisions_digest[:16])
    assert on[0] == 1 and loads(off)[0] == 2
    reject = _decisions_file(tmp_path, off.asm["ttir"], "reject")
    with hook.enabled(decisions=reject):
        assert loads(compile_dup())[0] == 2
    other = _decisions_file(tmp_path, off.asm["ttir"].replace("evict_first", "evict_normal"), "keep")
    with hook.enabled(decisions=other):
        assert loads(compile_dup())[0] == 2


def test_decision_file_and_passes_are_exclusive(tmp_path):
    path = _decisions_file(tmp_path, "module {\n}\n", "keep")
    with pytest.raises(ValueError, match="not both"):
        hook.enable(["redundant-load"], decisions=path)
