"""The pipeline aliases ``exact`` (every exact pass of ttopt, in a good order) and ``all``
(``exact``, then the opt-in reassociations ``div-chain`` and ``recip-hoist``), at every entry
point: ``ttopt.optimize`` / ``run_pipeline``, ``ttopt.parse_pipeline`` and ``ttopt-opt -p``,
``ttopt-opt --pass``, and the in-process Triton hook.  They are expanded from ``PASSES`` when
used, so a pass registered later (``hoist-load``) is part of them."""

import subprocess
import sys
from dataclasses import dataclass
from typing import ClassVar

import pytest

import ttopt
from conftest import ROOT
from ttopt.errors import TTOptError
from ttopt.passes import (
    EXACT_ORDER,
    PASSES,
    PIPELINE_ALIASES,
    REASSOCIATING_PASSES,
    ModulePass,
    alias_passes,
    expand_aliases,
    record_stats,
)
from ttopt.passes.base import PassStats
from ttopt.pipeline import parse_pipeline, resolve_passes

# a duplicate load (redundant-load), a chain of two divisions by splats of scalars (div-chain:
# x / splat(s*b)), then the division by a splat (recip-hoist: x * splat(1/(s*b)))
KERNEL = """module {
  tt.func public @k(%px: !tt.ptr<f32>, %ps: !tt.ptr<f32>, %pb: !tt.ptr<f32>, %o: !tt.ptr<f32>) {
    %s = tt.load %ps : !tt.ptr<f32>
    %b = tt.load %pb : !tt.ptr<f32>
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %pxs = tt.splat %px : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %pxa = tt.addptr %pxs, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %x = tt.load %pxa evictionPolicy = evict_last : tensor<128x!tt.ptr<f32>>
    %y = tt.load %pxa evictionPolicy = evict_first : tensor<128x!tt.ptr<f32>>
    %sv = tt.splat %s : f32 -> tensor<128xf32>
    %bv = tt.splat %b : f32 -> tensor<128xf32>
    %t = arith.divf %x, %sv : tensor<128xf32>
    %q = arith.divf %t, %bv : tensor<128xf32>
    %z = arith.addf %q, %y : tensor<128xf32>
    %os = tt.splat %o : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %oa = tt.addptr %os, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    tt.store %oa, %z : tensor<128x!tt.ptr<f32>>
    tt.return
  }
}
"""

EXPECTED_REWRITES = {"redundant-load": 1, "div-chain": 1, "recip-hoist": 1}


def _exact_now() -> list[str]:
    return [n for n in EXACT_ORDER if n in PASSES] + [
        n for n in PASSES if n not in EXACT_ORDER and n not in REASSOCIATING_PASSES
    ]


def run_cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "ttopt.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT, input=stdin)


@dataclass(frozen=True)
class _Noop(ModulePass):
    """An exact pass that rewrites nothing (stands for one registered later)."""

    name: ClassVar[str] = "zz-noop"
    summary: ClassVar[str] = "does nothing"

    def apply(self, ctx, op) -> None:
        record_stats(PassStats(self.name))


# ------------------------------------------------------------------ what they stand for
def test_exact_is_every_exact_pass_and_all_adds_the_reassociations():
    exact = alias_passes("exact")
    assert exact == _exact_now()
    assert set(exact) == set(PASSES) - REASSOCIATING_PASSES
    assert exact.index("redundant-load") < exact.index("redundant-reduce")
    if "hoist-load" in PASSES:  # loads leave loops first, then duplicates are merged
        assert exact[0] == "hoist-load"
    assert alias_passes("all") == exact + ["div-chain", "recip-hoist"]
    assert set(PIPELINE_ALIASES) == {"exact", "all", "default"}
    # default: the exact rewrites measured never slower (hoist-load measured slower: out)
    assert alias_passes("default") == ["redundant-load", "redundant-reduce"]
    assert set(alias_passes("default")) <= set(exact) and "hoist-load" not in alias_passes("default")
    assert expand_aliases(["cse", "exact"]) == ["cse", *exact]


def test_aliases_are_expanded_when_used_so_later_passes_join(monkeypatch):
    monkeypatch.delitem(PASSES, "hoist-load", raising=False)
    assert "hoist-load" not in alias_passes("exact")

    @dataclass(frozen=True)
    class HoistLoad(_Noop):
        name: ClassVar[str] = "hoist-load"

    monkeypatch.setitem(PASSES, "hoist-load", HoistLoad)
    monkeypatch.setitem(PASSES, "zz-noop", _Noop)
    exact = alias_passes("exact")
    assert exact[0] == "hoist-load"  # in EXACT_ORDER's place
    assert exact[-1] == "zz-noop"  # an exact pass not in EXACT_ORDER: after those
    assert alias_passes("all") == exact + ["div-chain", "recip-hoist"]
    assert [p.name for p in resolve_passes(["exact"])] == exact
    assert [p.name for p in parse_pipeline("all")] == alias_passes("all")


def test_alias_names_cannot_be_taken():
    from ttopt.passes import register_pass

    @dataclass(frozen=True)
    class Clash(_Noop):
        name: ClassVar[str] = "all"

    with pytest.raises(TTOptError, match="the name is taken"):
        register_pass(Clash)


# ------------------------------------------------------------------ ttopt.optimize / run_pipeline
def test_optimize_and_run_pipeline():
    expanded = alias_passes("all")
    assert ttopt.optimize(KERNEL, ["all"]) == ttopt.optimize(KERNEL, expanded)
    result = ttopt.run_pipeline(KERNEL, ["all"])
    assert [s.name for s in result.stats] == expanded
    assert {s.name: s.total for s in result.stats if s.total} == EXPECTED_REWRITES
    exact = ttopt.run_pipeline(KERNEL, ["exact"])
    assert [s.name for s in exact.stats] == alias_passes("exact")
    assert {s.name: s.total for s in exact.stats if s.total} == {"redundant-load": 1}
    # an alias among names and pass instances
    mixed = ttopt.run_pipeline(KERNEL, ["exact", parse_pipeline("cse")[0], "div-chain"])
    assert [s.name for s in mixed.stats] == [*alias_passes("exact"), "div-chain"]
    with pytest.raises(TTOptError, match="unknown pass 'alll'.*aliases: exact, all, default"):
        ttopt.optimize(KERNEL, ["alll"])


# ------------------------------------------------------------------ parse_pipeline / -p
def test_parse_pipeline():
    assert [p.name for p in parse_pipeline("exact,cse")] == [*alias_passes("exact"), "cse"]
    passes = parse_pipeline("all,redundant-load{respect-hints=true}")
    assert [p.name for p in passes] == [*alias_passes("all"), "redundant-load"]
    assert passes[-1].respect_hints is True and passes[0].name == alias_passes("all")[0]
    with pytest.raises(TTOptError) as info:
        parse_pipeline("exact,all{x=1}")
    assert str(info.value).startswith("ttopt-opt: error: pipeline alias 'all' in pipeline 'exact,all{x=1}' "
                                      "takes no options")
    assert "\n" not in str(info.value)
    with pytest.raises(TTOptError, match="bad options for pass 'div-chain'"):
        parse_pipeline("exact,div-chain{x=1}")


# ------------------------------------------------------------------ ttopt-opt
def test_cli_pass_and_p_accept_the_aliases(tmp_path):
    k = tmp_path / "k.ttir"
    k.write_text(KERNEL)
    expanded = run_cli(k, "--pass", ",".join(alias_passes("all")))
    assert expanded.returncode == 0 and "arith.mulf" in expanded.stdout
    for args in (("--pass", "all"), ("-p", "all"), ("-p", "exact,div-chain,recip-hoist")):
        proc = run_cli(k, *args, "--stats")
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == expanded.stdout, args
        assert "recip-hoist (" in proc.stderr and "div-chain (Div): 1 divisions removed" in proc.stderr
    exact = run_cli(k, "--pass", "exact", "--stats")
    assert exact.returncode == 0 and exact.stdout == run_cli(k, "--pass", ",".join(alias_passes("exact"))).stdout
    assert "arith.mulf" not in exact.stdout and exact.stdout.count("arith.divf") == 2


def test_cli_validate_bound_follows_the_alias(tmp_path):
    """`all` reassociates: --validate allows 4 ulps (0 fails on this kernel); `exact` is held
    to bit for bit, and passes."""
    k = tmp_path / "k.ttir"
    k.write_text(KERNEL)
    assert run_cli(k, "--pass", "all", "--validate", "-o", tmp_path / "a.ttir").returncode == 0
    assert run_cli(k, "-p", "all", "--validate", "-o", tmp_path / "b.ttir").returncode == 0
    strict = run_cli(k, "--pass", "all", "--validate", "--validate-ulps", "0", "-o", tmp_path / "c.ttir")
    assert strict.returncode == 3 and " ulps apart " in strict.stderr
    assert run_cli(k, "--pass", "exact", "--validate", "-o", tmp_path / "d.ttir").returncode == 0


def test_cli_errors_and_listing(tmp_path):
    k = tmp_path / "k.ttir"
    k.write_text(KERNEL)
    bad = run_cli(k, "-p", "all{respect-hints=true}")
    assert bad.returncode == 2
    assert bad.stderr.splitlines() == [
        "ttopt-opt: error: pipeline alias 'all' in pipeline 'all{respect-hints=true}' takes no "
        f"options (it stands for: {', '.join(alias_passes('all'))})"
    ]
    listing = run_cli("--list-passes")
    assert listing.returncode == 0
    lines = {ln.split()[0]: ln for ln in listing.stdout.splitlines()}
    assert lines["exact"].split(None, 1)[1].startswith("(alias) every exact rewrite of ttopt: "
                                                       + ",".join(alias_passes("exact")))
    assert lines["all"].split(None, 1)[1].startswith("(alias) exact, then the opt-in reassociations")
    assert lines["all"].rstrip().endswith(",".join(alias_passes("all")))


# ------------------------------------------------------------------ the Triton hook
def test_hook_expands_the_aliases_and_names_the_cache_by_the_passes(tmp_path):
    triton = pytest.importorskip("triton")
    import ttopt.triton_hook as hook

    saved = triton.knobs.cache.dir
    triton.knobs.cache.dir = str(tmp_path / "cache")
    try:
        with hook.enabled(["all"]) as state:
            assert state.passes == tuple(alias_passes("all"))
            assert "+".join(alias_passes("all")) in state.key
        with hook.enabled(["exact", "div-chain"]) as state:
            assert state.passes == (*alias_passes("exact"), "div-chain")
        with pytest.raises(TTOptError):
            hook.enable(["alll"])
    finally:
        hook.disable()
        triton.knobs.cache.dir = saved


def test_hook_runs_all_inside_triton(tmp_path):
    """A kernel compiled (on the CPU) with the hook on ``all``: its duplicate load is merged and
    the division by the row sums becomes a multiply by their reciprocals (the only division
    left is on the 8 sums)."""
    triton = pytest.importorskip("triton")
    import triton.language as tl
    from triton.backends.compiler import GPUTarget

    import ttopt.triton_hook as hook

    src = tmp_path / "softmax_dup.py"
    src.write_text(
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
        "def softmax_dup(x_ptr, y_ptr, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, 8)[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :]\n"
        "    a = tl.load(x_ptr + offs, eviction_policy='evict_last')\n"
        "    b = tl.load(x_ptr + offs, eviction_policy='evict_first')\n"
        "    e = tl.exp(a)\n"
        "    s = tl.sum(e, axis=1)[:, None]\n"
        "    tl.store(y_ptr + offs, e / s + b)\n"
    )
    import importlib.util

    spec = importlib.util.spec_from_file_location("softmax_dup", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert tl is not None
    saved = triton.knobs.cache.dir
    triton.knobs.cache.dir = str(tmp_path / "cache")
    try:
        with hook.enabled(["all"]):
            k = triton.compile(
                triton.compiler.ASTSource(fn=mod.softmax_dup, signature={"x_ptr": "*fp32", "y_ptr": "*fp32",
                                                                       "BLOCK": "constexpr"},
                                          constexprs={"BLOCK": 128}),
                target=GPUTarget("cuda", 90, 32), options={"num_warps": 4},
            )
            recs = {(r["pass"], r["rewrites"]) for r in hook.records()}
    finally:
        hook.disable()
        triton.knobs.cache.dir = saved
    assert ("redundant-load", 1) in recs and ("recip-hoist", 1) in recs
    ttgir = k.asm["ttgir"]
    assert ttgir.count("tt.load ") == 1
    divs = [ln for ln in ttgir.splitlines() if "arith.divf" in ln]
    assert len(divs) == 1 and "tensor<8xf32" in divs[0]


def test_a_location_alias_may_have_any_name():
    """MLIR's alias names are free: ``#l = loc(..)`` is a location alias as ``#loc3`` is (it
    was read as an attribute alias: "undefined symbol alias"; found in review)."""
    from ttopt.ir.reader import read_module
    from ttopt.ir.writer import write_module
    from ttopt.oracle import triton_accepts

    text = ('#l = loc("a.py":1:2)\nmodule {\n  tt.func public @f(%n: i32) {\n'
            '    %a = arith.addi %n, %n : i32 loc(#l)\n    tt.return\n  }\n}\n')
    assert triton_accepts(text, ".ttir").ok
    assert ttopt.optimize(text, ["redundant-load"], "l.ttir") == text
    mod = read_module(text, "l.ttir")
    addi = next(op for op in mod.op.walk() if op.name == "arith.addi")
    assert str(addi.location) == 'loc("a.py":1:2)'
    anew = write_module(mod, keep_text=False)
    assert "loc(#l)" in anew and triton_accepts(anew, ".ttir").ok
