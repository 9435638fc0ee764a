"""ttopt inside Triton's compiler (Triton 3.6 stages-inspection hook), on the CPU."""

import os
import subprocess
import sys
import textwrap
import warnings

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

    monkeypatch.setattr(hook, "_run_passes", boom)
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


# ------------------------------------------------------------------ the hook's cost
@triton.jit
def store_between_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    """Two loads of one pointer with a store between them: redundant-load runs, merges nothing."""
    offs = tl.arange(0, BLOCK)
    a = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, a)
    b = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, a + b)


@triton.jit
def one_load_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2.0)


def compile_fn(fn, num_warps=4):
    src = triton.compiler.ASTSource(
        fn=fn, signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "BLOCK": "constexpr"}, constexprs={"BLOCK": 128},
    )
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": num_warps})


def _forbid(monkeypatch, module, name):
    def forbidden(*a, **k):
        raise AssertionError(f"{name} must not run")

    monkeypatch.setattr(module, name, forbidden)


def test_a_kernel_the_passes_cannot_change_is_not_read(monkeypatch):
    """One load: no precondition holds, the module is never read (a read would raise here and
    the hook would warn)."""
    import ttopt.ir.reader

    _forbid(monkeypatch, ttopt.ir.reader, "read_module")
    with hook.enabled(["redundant-load", "redundant-reduce", "div-chain"]) as state:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            k = compile_fn(one_load_kernel)
    assert k.asm["ttgir"].count("tt.load ") == 1 and state.records == [] and state.warned == set()


def test_an_unchanged_module_is_read_but_not_printed(monkeypatch):
    import ttopt.ir.writer

    _forbid(monkeypatch, ttopt.ir.writer, "write_module")
    calls = []
    real = hook._run_passes

    def counting(*args, **kw):
        calls.append(args[1])
        return real(*args, **kw)

    monkeypatch.setattr(hook, "_run_passes", counting)
    with hook.enabled(["redundant-load"]) as state:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            k = compile_fn(store_between_kernel)
    assert calls == [["redundant-load"]] and state.records == [] and state.warned == set()
    assert k.asm["ttgir"].count("tt.load ") == 2


def test_each_module_text_is_optimized_once_per_enabled_hook(monkeypatch):
    """Configs that differ in num_warps have one TTIR: the second compile reuses the outcome
    (and still logs its rewrite); a new enable() starts afresh.  A module is read without its
    locations first, and again with them only because it changes."""
    calls = []
    real = hook._run_passes

    def counting(*args, **kw):
        calls.append("loc(" in args[0])
        return real(*args, **kw)

    monkeypatch.setattr(hook, "_run_passes", counting)
    triton.knobs.compilation.always_compile = True
    try:
        with hook.enabled(["redundant-load"]):
            k4, k8 = compile_fn(dup_load_kernel, 4), compile_fn(dup_load_kernel, 8)
            recs = hook.records()
        assert k4.asm["ttir"] == k8.asm["ttir"]
        assert calls == [False, True] and loads(k4)[0] == loads(k8)[0] == 1
        assert [r["rewrites"] for r in recs] == [1, 1]
        assert "loc(" in k4.asm["ttir"] and k4.asm["ttir"].count("#loc") > 10  # locations kept
        with hook.enabled(["redundant-load"]):
            compile_fn(dup_load_kernel, 4)
        assert calls == [False, True, False, True]
    finally:
        triton.knobs.compilation.always_compile = False


def _pass_texts():
    """Every fixture kernel and every chunk of the passes' lit tests (hand-written cases of
    every rewrite, positive and negative)."""
    from conftest import fixture_files
    from ttopt.pipeline import split_input_file

    for path in fixture_files():
        yield str(path), path.read_text()
    for path in sorted((ROOT / "test" / "lit" / "passes").glob("*.tt*ir")):
        for first, chunk in split_input_file(path.read_text()):
            yield f"{path}:{first}", chunk


def _nodebug(text: str, tmp_path) -> str | None:
    """``text`` as the hook first sees a module: Triton's ``str_nodebug()`` (None: Triton
    refuses the text)."""
    from triton._C.libtriton import ir, nvidia

    path = tmp_path / "m.mlir"
    path.write_text(text)
    ctx = ir.context()
    ir.load_dialects(ctx)
    nvidia.load_dialects(ctx)
    try:
        return ir.parse_mlir_module(str(path), ctx).str_nodebug()
    except RuntimeError:
        return None


def _all_passes():
    import ttopt

    return sorted(ttopt.PASSES)


@pytest.mark.parametrize("name", _all_passes())
def test_the_hooks_shortcuts_never_hide_a_rewrite(name, tmp_path, capfd):
    """Wherever the pass rewrites something: it rewrites as much in the module printed
    without locations (what the hook reads first), and its precondition holds.  And the
    precondition does rule out some kernels (or it would save nothing)."""
    import ttopt

    pipeline = hook.resolve_passes([name])
    rewritten, ruled_out, compared = [], [], 0
    for where, text in _pass_texts():
        try:
            result = ttopt.run_pipeline(text, [name], where)
        except ttopt.TTOptError:
            continue  # a chunk that is not valid IR (or not for this pass)
        counts = [(s.name, s.total) for s in result.stats]
        lean = _nodebug(text, tmp_path)
        if lean is not None:
            lean_counts = [(s.name, s.total) for s in ttopt.run_pipeline(lean, [name], where).stats]
            assert lean_counts == counts, f"{where}: {name} without locations"
            compared += 1
        if name not in hook.PRECONDITIONS:
            continue
        may = hook.may_rewrite(pipeline, text) and (lean is None or hook.may_rewrite(pipeline, lean))
        if result.changed:
            assert may, f"{where}: {name} rewrites it, its precondition says it cannot"
            rewritten.append(where)
        if not may:
            ruled_out.append(where)
    capfd.readouterr()  # MLIR's diagnostics of the texts Triton refused
    assert compared > 50
    if name in hook.PRECONDITIONS:
        assert rewritten and ruled_out


LOAD = "    %{n} = tt.load %p{n} : {t} loc(#loc{n})\n"


@pytest.mark.parametrize("body, expected", [
    (LOAD.format(n=1, t="tensor<8x!tt.ptr<f32>>"), False),  # one load
    (LOAD.format(n=1, t="tensor<8x!tt.ptr<f32>>") + LOAD.format(n=2, t="tensor<8x!tt.ptr<f16>>"), False),
    (LOAD.format(n=1, t="tensor<8x!tt.ptr<f32>>") + LOAD.format(n=2, t="tensor<8x!tt.ptr<f32>>"), True),
    # a location that is not an alias could hide the type's end: cannot tell
    (LOAD.format(n=1, t="tensor<8x!tt.ptr<f32>>") + '    %2 = tt.load %p2 : tensor<8x!tt.ptr<f16>> loc("a : b")\n', True),
    # generic form: a second spelling of a type
    (LOAD.format(n=1, t="tensor<8x!tt.ptr<f32>>") + '    %2 = "tt.load"(%p2) : (tensor<8x!tt.ptr<f16>>) -> tensor<8xf16>\n', True),
    # "tt.load" in a string
    (LOAD.format(n=1, t="tensor<8x!tt.ptr<f32>>") + LOAD.format(n=2, t="tensor<8x!tt.ptr<f16>>")
     + '#loc9 = loc("tt.load")\n', True),
])
def test_the_load_precondition_reads_types_or_gives_up(body, expected):
    assert hook.PRECONDITIONS["redundant-load"](body) is expected


def test_passes_without_a_precondition_always_run():
    from ttopt.passes import PASSES
    from ttopt.pipeline import parse_pipeline

    nothing = "module {\n}\n"
    assert hook.may_rewrite(hook.resolve_passes(["redundant-load", "div-chain"]), nothing) is False
    assert hook.may_rewrite(parse_pipeline("redundant-load,cse"), nothing) is True

    class Sub(PASSES["redundant-load"]):
        pass

    assert hook.may_rewrite([Sub()], nothing) is True


def _kernel(body: str) -> str:
    return ("module {\n  tt.func public @k(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>, %s: f32) {\n"
            "    %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>\n"
            "    %sp = tt.splat %p : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>\n"
            "    %sq = tt.splat %q : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>\n"
            "    %ap = tt.addptr %sp, %r : tensor<8x!tt.ptr<f32>>, tensor<8xi32>\n"
            "    %aq = tt.addptr %sq, %r : tensor<8x!tt.ptr<f32>>, tensor<8xi32>\n"
            + body + "    tt.return\n  }\n}\n")


SUM = ('    %{n} = "tt.reduce"(%{x}) <{{axis = 0 : i32}}> ({{\n    ^bb0(%a{n}: f32, %b{n}: f32):\n'
       '      %c{n} = arith.addf %a{n}, %b{n} : f32\n      tt.reduce.return %c{n} : f32\n'
       '    }}) : (tensor<8xf32>) -> f32\n')
LOADS = ("    %x = tt.load %ap : tensor<8x!tt.ptr<f32>>\n    %y = tt.load %aq : tensor<8x!tt.ptr<f32>>\n")


@pytest.mark.parametrize("name, body, expected", [
    # loads: one type, but two kernel arguments: never one address
    ("redundant-load", LOADS, False),
    ("redundant-load", LOADS + "    %z = tt.load %ap : tensor<8x!tt.ptr<f32>>\n", True),
    # reductions: of two different loads; of one value twice; of x+y and y+x
    ("redundant-reduce", LOADS + SUM.format(n=1, x="x") + SUM.format(n=2, x="y"), False),
    ("redundant-reduce", LOADS + SUM.format(n=1, x="x") + SUM.format(n=2, x="x"), True),
    ("redundant-reduce", LOADS + "    %u = arith.addf %x, %y : tensor<8xf32>\n"
     "    %v = arith.addf %y, %x : tensor<8xf32>\n" + SUM.format(n=1, x="u") + SUM.format(n=2, x="v"), True),
    ("redundant-reduce", LOADS + "    %u = arith.addf %x, %y : tensor<8xf32>\n"
     "    %v = arith.mulf %y, %x : tensor<8xf32>\n" + SUM.format(n=1, x="u") + SUM.format(n=2, x="v"), False),
    # divisions: two unrelated ones; a division of a division, through a splat
    ("div-chain", LOADS + "    %u = arith.divf %x, %y : tensor<8xf32>\n"
     "    %v = arith.divf %y, %x : tensor<8xf32>\n", False),
    ("div-chain", "    %t = arith.divf %s, %s : f32\n    %ts = tt.splat %t : f32 -> tensor<8xf32>\n" + LOADS
     + "    %v = arith.divf %x, %ts : tensor<8xf32>\n", True),
])
def test_preconditions_tell_candidates_apart(name, body, expected):
    import ttopt

    text = _kernel(body)
    ttopt.run_pipeline(text, [])  # valid IR
    assert hook.PRECONDITIONS[name](text) is expected
    if expected is False:  # and the pass indeed finds nothing
        assert not ttopt.run_pipeline(text, [name]).changed
