"""The parts of ``bench.tune`` that need no GPU: confidence intervals and verdicts, the
numerics classification, the roofline class, SASS counting, the decision file, the
redundant-load-evl alias, the rewrite step, the decision rule and the reports."""

import json
import random

import pytest

from bench import abtest, sass, stats, tune_report
from ttopt.decisions import FORMAT, KEEP, REJECT, Decision, Decisions, load, normalize_ttir, ttir_digest
from bench.tune import decide, parse_candidates
from bench.variants import run_variant

# ---- confidence intervals and verdicts -------------------------------------------------------


def _noisy(mean, sd, n, seed):
    rng = random.Random(seed)
    return [mean + rng.gauss(0, sd) for _ in range(n)]


def test_ratio_ci_contains_the_point_estimate_and_is_deterministic():
    a, b = _noisy(10.0, 0.2, 30, 1), _noisy(8.0, 0.2, 30, 2)
    r = stats.ratio_ci(a, b)
    assert r.lo < r.value < r.hi
    assert r.value == pytest.approx(10.0 / 8.0, rel=0.03)
    assert stats.ratio_ci(a, b) == r  # seeded bootstrap
    assert str(r).startswith(f"{r.value:.3f}x [")


def test_ratio_ci_of_identical_samples_is_exactly_one():
    a = [1.0, 2.0, 3.0, 4.0]
    r = stats.ratio_ci(a, list(a))
    assert (r.value, r.lo, r.hi) == (1.0, 1.0, 1.0)


def test_ratio_ci_rejects_unpaired_input():
    with pytest.raises(ValueError):
        stats.ratio_ci([1.0, 2.0], [1.0])
    with pytest.raises(ValueError):
        stats.ratio_ci([], [])


def test_quantile_matches_linear_interpolation():
    assert stats._quantile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert stats._quantile([1.0, 2.0, 3.0, 4.0], 0.0) == 1.0
    assert stats._quantile([5.0], 0.975) == 5.0


def test_verdicts():
    fast = stats.Ratio(1.3, 1.25, 1.35)
    slow = stats.Ratio(0.94, 0.92, 0.96)
    noise = stats.Ratio(1.01, 0.97, 1.05)
    assert stats.verdict(fast, fast) == stats.WIN
    assert stats.verdict(slow, slow) == stats.LOSS
    assert stats.verdict(noise, noise) == stats.NO_CHANGE  # straddles 1: neither gain nor loss
    # faster than the baseline but not than the null override: no change
    assert stats.verdict(fast, noise) == stats.NO_CHANGE
    assert stats.verdict(slow, noise) == stats.NO_CHANGE
    assert stats.verdict(fast) == stats.WIN
    # a lower bound of 1.25 does not clear a required 1.3
    assert stats.verdict(fast, fast, min_speedup=1.3) == stats.NO_CHANGE
    assert stats.Ratio(1.0, 0.99, 1.01).straddles_one and not fast.straddles_one


def test_noisy_small_kernel_is_no_change():
    """20% run-to-run noise and no real difference: the interval straddles 1."""
    base, opt = _noisy(8.0, 1.6, 30, 3), _noisy(8.0, 1.6, 30, 4)
    null = _noisy(8.0, 1.6, 30, 5)
    assert stats.verdict(stats.ratio_ci(base, opt), stats.ratio_ci(null, opt)) == stats.NO_CHANGE


def test_control():
    assert stats.control_ok(stats.Ratio(1.0, 0.99, 1.01))
    assert stats.control_ok(stats.Ratio(1.015, 1.005, 1.03))  # overlaps [0.98, 1.02]
    assert not stats.control_ok(stats.Ratio(1.08, 1.05, 1.1))
    assert not stats.control_ok(stats.Ratio(0.9, 0.88, 0.95))


# ---- numerics ------------------------------------------------------------------------------------


def test_numerics_verdicts():
    same = stats.Diff.same()
    assert stats.numerics_verdict(same, [same], {"redundant-load": 1}) == ("bit-identical", True)
    off = stats.Diff(3, 2e-7, False)
    # deterministic baseline, exact pass: any changed bit is a mismatch
    label, ok = stats.numerics_verdict(off, [same, same], {"redundant-load": 1, "div-chain": 0})
    assert not ok and label.startswith("MISMATCH")
    # deterministic baseline, reassociating pass: within the bound
    assert stats.numerics_verdict(off, [same], {"div-chain": 1}) == ("reassociated (within bound)", True)
    assert not stats.numerics_verdict(stats.Diff(1, 3e-3, False), [same], {"div-chain": 1})[1]
    # nondeterministic baseline (atomics): judged against its own rerun spread
    rerun = stats.Diff(100, 5e-4, False)
    assert stats.numerics_verdict(stats.Diff(90, 4e-4, False), [rerun], {"redundant-load": 1}) == (
        "within rerun spread", True)
    label, ok = stats.numerics_verdict(stats.Diff(90, 1e-2, False), [rerun], {"redundant-load": 1})
    assert not ok and "rerun" in label
    d = stats.Diff(2, 1e-6, False)
    assert stats.Diff.from_dict(d.to_dict()) == d and stats.Diff.from_dict(None) is None


def test_roofline_class():
    copy_bw, l2 = 3.0e12, 50 << 20
    bw, frac, cls = stats.roofline_class(16e9, 16e9 / 2.9e12, copy_bw, l2)
    assert cls == "DRAM roofline" and frac == pytest.approx(2.9 / 3.0)
    assert stats.roofline_class(1e6, 5e-6, copy_bw, l2)[2] == "L2-resident, latency"
    assert stats.roofline_class(1e6, 50e-6, copy_bw, l2)[2] == "L2-resident"
    assert stats.roofline_class(1e9, 1e9 / 1.5e12, copy_bw, l2)[2] == "memory, below roofline"
    assert stats.roofline_class(1e9, 1e9 / 0.3e12, copy_bw, l2)[2] == "latency/compute"


# ---- SASS ----------------------------------------------------------------------------------------

# Lines of `cuobjdump -sass` (Triton 3.6's bundled cuobjdump) of a sm_90a kernel computing
# a / t / 3.0 + a * t with t loaded evict_last; the encoding lines and most of the body cut.
SASS_SAMPLE = """
	code for sm_90a
		Function : k
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_ACCELERATORS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                                            /* 0x00000a00ff017b82 */
                                                                                                     /* 0x000fe20000000800 */
        /*00c0*/                   LDG.E.EL R5, desc[UR4][R4.64] ;                                   /* 0x0000000404057981 */
                                                                                                     /* 0x000ee2000c2e1900 */
        /*00f0*/                   LDG.E R0, desc[UR4][R2.64] ;                                      /* 0x0000000402007981 */
        /*0110*/                   FMUL R6, R5.reuse, 0.25 ;                                         /* 0x3e80000005067820 */
        /*0170*/              @!P1 FMUL R8, R8, 16777216 ;                                           /* 0x4b80000008089820 */
        /*0190*/                   MUFU.RCP R8, R8 ;                                                 /* 0x0000000800087308 */
        /*01d0*/                   FFMA R11, R0, R5, R11 ;                                           /* 0x00000005000b7223 */
        /*01d8*/                   STL [R1], R11 ;                                                   /* 0x0000000b01007387 */
        /*01e0*/                   STG.E desc[UR4][R2.64], R11 ;                                     /* 0x0000000b02007986 */
        /*01f0*/                   EXIT ;                                                            /* 0x000000000000794d */
        /*0200*/                   BRA 0x200;                                                        /* 0xfffffffc00fc7947 */
        /*0210*/                   NOP;                                                              /* 0x0000000000007918 */
"""

RESOURCE_SAMPLE = """
Resource usage:
 Common:
  GLOBAL:0
 Function k:
  REG:14 STACK:0 SHARED:0 LOCAL:8 CONSTANT[0]:568 TEXTURE:0 SURFACE:0 SAMPLER:0
"""


def test_sass_counts():
    c = sass.count_sass(SASS_SAMPLE)
    assert c["LDG"] == 2 and c["LDG.EL"] == 1 and "LDG.EF" not in c
    assert c["MUFU.RCP"] == 1 and c["FFMA"] == 1 and c["FMUL"] == 2
    assert c["STL"] == 1 and c["STG"] == 1 and c["EXIT"] == 1
    assert "NOP" not in c and "BRA" not in c  # padding: NOPs and the self-branch
    assert c["total"] == 10
    res = sass.resource_usage(RESOURCE_SAMPLE)
    assert res == {"regs": 14, "stack": 0, "shared": 0, "local": 8}
    s = sass.summarize(c, res)
    assert s["LDG"] == 2 and s["MUFU.RCP64H"] == 0 and s["regs"] == 14 and s["local_bytes"] == 8
    assert set(sass.REPORTED) <= set(s)


def test_sass_of_a_real_cubin(tmp_path):
    """Compiled on the CPU; the bundled cuobjdump reads it."""
    triton = pytest.importorskip("triton")
    import triton.language as tl
    from triton.backends.compiler import GPUTarget

    src = tmp_path / "kdiv.py"
    src.write_text(
        "import triton\nimport triton.language as tl\n\n@triton.jit\n"
        "def kdiv(a_ptr, t_ptr, s_ptr, o_ptr, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n"
        "    a = tl.load(a_ptr + offs)\n    t = tl.load(t_ptr + offs)\n    s = tl.load(s_ptr + offs)\n"
        "    tl.store(o_ptr + offs, a / t / s)\n")
    import importlib.util

    spec = importlib.util.spec_from_file_location("kdiv", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    del tl
    sig = {"a_ptr": "*fp32", "t_ptr": "*fp32", "s_ptr": "*fp32", "o_ptr": "*fp32", "BLOCK": "constexpr"}
    k = triton.compile(triton.compiler.ASTSource(fn=mod.kdiv, signature=sig, constexprs={"BLOCK": 128}),
                       target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
    s = sass.analyze_cubin(k.asm["cubin"])
    assert s["LDG"] == 3 and s["STG"] == 1
    assert s["MUFU.RCP"] == 2  # a/t/s: two divisors, two reciprocals per element
    assert s["regs"] > 0 and s["local_bytes"] == 0


# ---- decision file -------------------------------------------------------------------------------

TTIR_WITH_LOCS = """#loc = loc("/tmp/a/k.py":4:0)
module {
  tt.func public @k(%x_ptr: !tt.ptr<f32> loc("x_ptr"(#loc)), %n: i32 loc("n"(#loc))) attributes {noinline = false} {
    %offs = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32> loc(#loc2)
    %x = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>> loc(#loc3)
    %x_0 = tt.addptr %x, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32> loc(#loc3)
    %v = tt.load %x_0 evictionPolicy = evict_last : tensor<128x!tt.ptr<f32>> loc(#loc4)
    tt.store %x_0, %v : tensor<128x!tt.ptr<f32>> loc(#loc6)
    tt.return loc(#loc7)
  } loc(#loc)
} loc(#loc)
#loc2 = loc("/tmp/a/k.py":5:10)
#loc3 = loc("/tmp/a/k.py":6:10)
#loc4 = loc("/tmp/a/k.py":7:12)
#loc6 = loc("/tmp/a/k.py":8:4)
#loc7 = loc("/tmp/a/k.py":8:0)
"""

TTIR_NODEBUG = """module {
  tt.func public @k(%arg0: !tt.ptr<f32>, %arg1: i32) attributes {noinline = false} {
    %0 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %2 = tt.addptr %1, %0 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %3 = tt.load %2 evictionPolicy = evict_last : tensor<128x!tt.ptr<f32>>
    tt.store %2, %3 : tensor<128x!tt.ptr<f32>>
    tt.return
  }
}
"""


def test_digest_ignores_locations_and_ssa_names():
    assert ttir_digest(TTIR_WITH_LOCS) == ttir_digest(TTIR_NODEBUG)
    assert "loc" not in normalize_ttir(TTIR_WITH_LOCS)
    changed = TTIR_NODEBUG.replace("evict_last", "evict_first")
    assert ttir_digest(changed) != ttir_digest(TTIR_NODEBUG)
    # `alloc(` and the like are not locations
    assert "ttg.local_alloc(" in normalize_ttir("%0 = ttg.local_alloc(%1) loc(#loc1)")


def test_digest_of_dump_text_equals_digest_inside_triton(tmp_path):
    """What a TRITON_KERNEL_DUMP .ttir holds (module.str()) and what a stages hook can print
    without debug info (module.str_nodebug()) give one digest."""
    pytest.importorskip("triton")
    from triton._C.libtriton import ir, nvidia

    ctx = ir.context()
    ir.load_dialects(ctx)
    nvidia.load_dialects(ctx)
    p = tmp_path / "k.ttir"
    p.write_text(TTIR_WITH_LOCS)
    mod = ir.parse_mlir_module(str(p), ctx)
    mod.context = ctx
    assert ttir_digest(mod.str()) == ttir_digest(mod.str_nodebug()) == ttir_digest(TTIR_WITH_LOCS)


def test_decision_file_round_trip(tmp_path):
    d = Decisions(
        [Decision("k", ttir_digest(TTIR_NODEBUG), KEEP, ["redundant-load"], ["H" * 52], "m", "k",
                  "faster: 1.300x [1.250, 1.350]", [1.3, 1.25, 1.35], {"redundant-load": 1}),
         Decision("k2", "0" * 64, REJECT, [], ["G" * 52], "m", "k2", "no change")],
        ["redundant-load", "div-chain"], {"device": "GPU", "rule": "r"})
    path = tmp_path / "sub" / "decisions.json"
    d.write(path)
    raw = json.loads(path.read_text())
    assert raw["format"] == FORMAT and raw["device"] == "GPU" and raw["created"].endswith("Z")
    back = load(path)
    assert [x.to_dict() for x in back.kernels] == [x.to_dict() for x in d.kernels]
    assert back.passes == d.passes and back.meta["rule"] == "r"
    assert back.passes_for("k", TTIR_WITH_LOCS) == ["redundant-load"]  # same kernel, other locations
    assert back.passes_for("k", TTIR_NODEBUG.replace("evict_last", "evict_first")) is None
    assert back.passes_for("k2", "anything") is None and back.passes_for("nope", TTIR_NODEBUG) is None
    assert [x.kernel for x in back.kept()] == ["k"]


def test_decision_file_rejects_other_formats(tmp_path):
    p = tmp_path / "d.json"
    p.write_text(json.dumps({"format": "something-else", "kernels": []}))
    with pytest.raises(ValueError):
        load(p)
    with pytest.raises(ValueError):
        Decision.from_dict({"kernel": "k", "ttir_digest": "x", "decision": "maybe"})


# ---- the redundant-load-evl variant -------------------------------------------------------------

EVL = """module {
  tt.func public @k(%p: tensor<128x!tt.ptr<f32>>, %q: tensor<128x!tt.ptr<f32>>, %o: tensor<128x!tt.ptr<f32>>) {
    %a = tt.load %p evictionPolicy = evict_first : tensor<128x!tt.ptr<f32>>
    %b = tt.load %p evictionPolicy = evict_last : tensor<128x!tt.ptr<f32>>
    %c = tt.load %q cacheModifier = cg : tensor<128x!tt.ptr<f32>>
    %d = tt.load %q evictionPolicy = evict_last : tensor<128x!tt.ptr<f32>>
    %s = arith.addf %a, %b : tensor<128xf32>
    %t = arith.addf %c, %d : tensor<128xf32>
    %u = arith.addf %s, %t : tensor<128xf32>
    tt.store %o, %u : tensor<128x!tt.ptr<f32>>
    tt.return
  }
}
"""


def _loads(text):
    return [line.split("=", 1)[1].split(":")[0].strip() for line in text.splitlines() if "tt.load" in line]


def test_redundant_load_keeps_evict_last_where_ptxas_allows():
    """The rule measured as redundant-load-evl is redundant-load's own now; the old name is an
    alias (bench/variants.py)."""
    plain = run_variant(EVL, ["redundant-load"])
    evl = run_variant(EVL, ["redundant-load-evl"])
    assert plain.stats == {"redundant-load": 2} and evl.stats == {"redundant-load-evl": 2}
    # evict_last moves onto the kept load; not onto a .cg load (ptxas rejects .cg + evict_last)
    assert _loads(plain.text) == ["tt.load %p evictionPolicy = evict_last", "tt.load %q cacheModifier = cg"]
    assert evl.text == plain.text
    assert run_variant(EVL, []).stats == {} and not run_variant(EVL, []).changed
    with pytest.raises(ValueError):
        run_variant(EVL, ["no-such-pass", "redundant-load-evl"])


def test_redundant_load_evl_output_is_accepted_by_triton():
    pytest.importorskip("triton")
    from ttopt.oracle import triton_accepts

    assert triton_accepts(run_variant(EVL, ["redundant-load-evl"]).text, ".ttir").ok


# ---- the rewrite step, the decision rule, reports ------------------------------------------------


def test_kernel_name_and_collect(tmp_path):
    src = "import triton\n@triton.jit\ndef triton_poi_fused_add_0(in_ptr0, XBLOCK: tl.constexpr):\n    pass\n" \
          "def get_args():\n    return []\ndef call(args):\n    pass\n"
    d = tmp_path / "m" / "kernels"
    d.mkdir(parents=True)
    (d / "triton_poi_fused_add_0__2.py").write_text(src)
    (d / "helper.py").write_text("x = 1\n")
    entries = abtest.collect([d], tmp_path / "work")
    assert [(e["model"], e["name"], e["kernel"]) for e in entries] == [
        ("m", "triton_poi_fused_add_0__2", "triton_poi_fused_add_0")]
    assert abtest.kernel_name("def nothing(): pass", "fallback") == "fallback"


def test_rewrite_writes_opt_and_null_overrides(tmp_path):
    h = "A" * 52
    dump = tmp_path / "dump" / "m__k"
    (dump / h).mkdir(parents=True)
    (dump / h / "k.ttir").write_text(EVL)
    (dump / ("B" * 52)).mkdir()  # a hash folder without this kernel: ignored
    same = {"model": "m", "name": "k", "kernel": "k", "key": "m/k", "dump_dir": str(dump)}
    pipes = abtest.Pipelines(["redundant-load"], {"rr": ["redundant-reduce"], "dc": ["div-chain"]})
    cands = abtest.rewrite([same], tmp_path, pipes, procs=1)
    assert len(cands) == 1
    c = cands[0]
    assert c["variants"] == ["base", "null", "opt"]  # rr and dc changed nothing: not timed
    assert c["rewrites"] == {"opt": {"redundant-load": 2}}
    assert c["hashes"][h]["digest"] == ttir_digest(EVL)
    for v in ("opt", "null"):
        assert (tmp_path / "override" / v / h / "k.ttir").exists()
    assert "evict_first" not in (tmp_path / "override" / "opt" / h / "k.ttir").read_text()
    assert _loads((tmp_path / "override" / "null" / h / "k.ttir").read_text()) == _loads(run_variant(EVL, []).text)


def test_rewrite_skips_unchanged_kernels_and_aliases_identical_candidates(tmp_path):
    h = "C" * 52
    dump = tmp_path / "dump" / "m__k"
    (dump / h).mkdir(parents=True)
    text = EVL.replace("evictionPolicy = evict_first", "evictionPolicy = evict_last")
    (dump / h / "k.ttir").write_text(text)
    e = {"model": "m", "name": "k", "kernel": "k", "key": "m/k", "dump_dir": str(dump)}
    pipes = abtest.Pipelines(["redundant-load"], {"evl": ["redundant-load-evl"]})
    c = abtest.rewrite([e], tmp_path, pipes, procs=1)[0]
    assert c["variants"] == ["base", "null", "opt"] and c["same_as_opt"] == ["evl"]
    e2 = {"model": "m", "name": "k", "kernel": "k", "key": "m/k2", "dump_dir": str(dump)}
    assert abtest.rewrite([e2], tmp_path, abtest.Pipelines(["div-chain"]), procs=1) == []


def _row(key="m/k", lo=1.2, confirm_lo=1.1, verdict=stats.WIN, numerics_ok=True, error=None):
    res = {"speedup_vs_base": [1.3, lo, 1.4], "speedup_vs_null": [1.3, lo, 1.4], "verdict": verdict,
           "numerics": {"n_diff": 0, "max_rel": 0.0, "equal": True}, "numerics_label": "bit-identical",
           "numerics_ok": numerics_ok, "override_applied": True}
    sass_b = {"LDG": 7, "LDG.EL": 5, "MUFU.RCP": 0, "FFMA": 3, "regs": 40, "STL": 0, "LDL": 0}
    sass_o = dict(sass_b, LDG=5, regs=32)
    row = {"model": "m", "module": "k", "kernel": "k", "key": key, "rewrites": {"opt": {"redundant-load": 1}},
           "variants": ["base", "null", "opt"], "t_ms": {"base": 0.01, "null": 0.01, "opt": 0.0077},
           "control_base_vs_null": [1.0, 0.98, 1.02], "numerics_base_rerun": {"n_diff": 0, "max_rel": 0.0, "equal": True},
           "dump": {"base": {"sass": sass_b}, "null": {"sass": sass_b}, "opt": {"sass": sass_o}},
           "roofline": {"base": {"bw_GBps": 900.0, "frac": 0.3, "class": "L2-resident"}},
           "variant_results": {"opt": res}}
    if error:
        row = {"model": "m", "kernel": "k", "key": key, "error": error}
    conf = {"variant_results": {"opt": dict(res, speedup_vs_base=[1.25, confirm_lo, 1.35],
                                            verdict=stats.WIN if confirm_lo > 1 else stats.NO_CHANGE)}}
    return row, conf


def test_decide():
    row, conf = _row()
    win, reason = decide(row, conf)
    assert win == "opt" and reason.startswith("faster: 1.300x")
    row, conf = _row(confirm_lo=0.99)  # the confirmation run does not agree
    assert decide(row, conf)[0] is None and "confirmation" in decide(row, conf)[1]
    row, conf = _row()
    assert decide(row, None)[0] is None  # never kept without a confirmation
    row, conf = _row(numerics_ok=False)
    assert decide(row, conf)[0] is None
    row, conf = _row(verdict=stats.NO_CHANGE, lo=0.98)
    assert decide(row, conf)[0] is None
    row, conf = _row(error="WorkerError: boom")
    assert decide(row, conf) == (None, "error: WorkerError: boom")


def test_parse_candidates():
    assert parse_candidates(["evl=redundant-load-evl,div-chain"]) == {"evl": ["redundant-load-evl", "div-chain"]}
    with pytest.raises(SystemExit):
        parse_candidates(["opt=redundant-load"])
    with pytest.raises(SystemExit):
        parse_candidates(["nopasses"])


def test_reports(tmp_path):
    row, conf = _row()
    md = tune_report.markdown([row], {"m/k": conf}, {("m/k", "opt"): "**keep**"})
    line = [ln for ln in md.splitlines() if ln.startswith("| m |")][0]
    assert "1.300x [1.200, 1.400]" in line and "1.250x [1.100, 1.350]" in line
    assert "| 7->5 (5) |" in line and "| 40->32 |" in line and "**keep**" in line and "faster / faster" in line
    assert md.splitlines()[1].count("---") == md.splitlines()[0].count("|") - 1
    bad, _ = _row(key="m/bad", error="WorkerError: boom")
    assert "boom" in tune_report.errors_table([row, bad]) and tune_report.errors_table([row]) == ""
    tune_report.plot([row, bad], tmp_path / "s.png", "t", {"m/k": conf})
    assert (tmp_path / "s.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    tune_report.write_jsonl([row], tmp_path / "r.jsonl")
    assert json.loads((tmp_path / "r.jsonl").read_text())["key"] == "m/k"


def test_compare_bit_for_bit():
    torch = pytest.importorskip("torch")
    a = {"full": True, "tensors": [torch.tensor([1.0, 2.0, float("nan")]), torch.tensor([1, 2])]}
    b = {"full": True, "tensors": [torch.tensor([1.0, 2.0, float("nan")]), torch.tensor([1, 2])]}
    assert abtest.compare(a, b) == stats.Diff(0, 0.0, True)
    c = {"full": True, "tensors": [torch.tensor([1.0, 2.0000002, float("nan")]), torch.tensor([1, 2])]}
    d = abtest.compare(c, a)
    assert d.n_diff == 1 and not d.equal and 0 < d.max_rel < 1e-6
    z = {"full": True, "tensors": [torch.tensor([-0.0, 2.0, float("nan")]), torch.tensor([1, 2])]}
    z0 = {"full": True, "tensors": [torch.tensor([0.0, 2.0, float("nan")]), torch.tensor([1, 2])]}
    assert abtest.compare(z, z0).n_diff == 1  # -0.0 and 0.0 differ in bits


# ---- the A/B protocol, with a stand-in worker (no torch, no GPU) -------------------------------

FAKE_WORKER = r'''
import json, os, random, sys
MARK = "@@ttopt@@ "
variant = sys.argv[1]
def reply(o):
    sys.stdout.write(MARK + json.dumps(o) + "\n"); sys.stdout.flush()
reply({"ok": True, "ready": variant})
rng = random.Random(sum(map(ord, variant)))
key = None
for line in sys.stdin:
    req = json.loads(line)
    cmd = req["cmd"]
    key = req.get("key", key)
    with open(os.environ["FAKE_TRACE"], "a") as f:
        f.write(f"{variant} {cmd} {key}\n")
    if cmd == "quit":
        reply({"ok": True}); break
    if cmd == "load":
        if "broken" in key and variant == "opt":
            reply({"ok": False, "error": "RuntimeError: boom"}); continue
        if variant != "base":  # what Triton prints when it takes an override
            print("Overriding kernel with file " + os.environ["TRITON_OVERRIDE_DIR"] + "/H/k.ttir", flush=True)
        reply({"ok": True})
    elif cmd == "run":
        reply({"ok": True, "t_est_ms": 0.01, "bytes_args": 1000})
    elif cmd == "capture":
        reply({"ok": True, "graph": True})
    elif cmd == "time":
        mean = 8.0 if (variant == "opt" and "fast" in key) else 10.0
        reply({"ok": True, "times_ms": [rng.gauss(mean, 0.2) for _ in range(req["n"])]})
    elif cmd == "drop":
        reply({"ok": True})
'''


def test_time_all_interleaves_pipelines_and_survives_a_broken_kernel(tmp_path, monkeypatch):
    prog = tmp_path / "fake_worker.py"
    prog.write_text(FAKE_WORKER)
    trace = tmp_path / "trace.txt"
    monkeypatch.setenv("TTOPT_BENCH_WORKER", str(prog))
    monkeypatch.setenv("FAKE_TRACE", str(trace))
    cands = [{"model": "m", "name": n, "kernel": n, "key": f"m/{n}", "path": "unused", "config": None,
              "variants": ["base", "null", "opt"]} for n in ("fast", "broken", "same", "fast2")]
    res = abtest.time_all(cands, tmp_path / "work", "p1", rounds=12, rep_ms=1.0)
    assert res["m/broken"].error and "boom" in res["m/broken"].error
    for key in ("m/fast", "m/same", "m/fast2"):
        t = res[key]
        assert t.error is None and {v: len(s) for v, s in t.samples.items()} == {"base": 12, "null": 12, "opt": 12}
        assert t.inner == 100  # rep_ms / t_est
        assert any("override/opt" in ln for ln in t.override_lines["opt"])
    fast = res["m/fast"].samples
    assert stats.verdict(stats.ratio_ci(fast["base"], fast["opt"]), stats.ratio_ci(fast["null"], fast["opt"])) == stats.WIN
    same = res["m/same"].samples
    assert stats.verdict(stats.ratio_ci(same["base"], same["opt"]), stats.ratio_ci(same["null"], same["opt"])) != stats.WIN
    lines = [ln.split() for ln in trace.read_text().splitlines()]
    # timing of one kernel: every round has one sample of each variant (warm-ups: 2 per variant)
    timed = [v for v, cmd, key in lines if cmd == "time" and key == "m/same"]
    assert len(timed) == 3 * (12 + 1)
    rounds = timed[3:]
    assert all(sorted(rounds[i:i + 3]) == ["base", "null", "opt"] for i in range(0, 36, 3))
    assert len({tuple(rounds[i:i + 3]) for i in range(0, 36, 3)}) > 1  # the order rotates
    # the next kernel was being loaded (other worker set) before this one's timing ended
    last_time_fast = max(i for i, (v, cmd, key) in enumerate(lines) if cmd == "time" and key == "m/fast")
    first_load_broken = min(i for i, (v, cmd, key) in enumerate(lines) if cmd == "load" and key == "m/broken")
    assert first_load_broken < last_time_fast


EVL_REGIONS = """module {
  tt.func public @k(%p: tensor<128x!tt.ptr<f32>>, %o: tensor<128x!tt.ptr<f32>>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %a = tt.load %p evictionPolicy = evict_first : tensor<128x!tt.ptr<f32>>
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (tensor<128xf32>) : i32 {
      %b = tt.load %p evictionPolicy = evict_last : tensor<128x!tt.ptr<f32>>
      %t = arith.addf %acc, %b : tensor<128xf32>
      scf.yield %t : tensor<128xf32>
    }
    tt.store %o, %s : tensor<128x!tt.ptr<f32>>
    %c = tt.load %p : tensor<128x!tt.ptr<f32>>
    %d = tt.load %p evictionPolicy = evict_first : tensor<128x!tt.ptr<f32>>
    %e = arith.addf %c, %d : tensor<128xf32>
    tt.store %o, %e : tensor<128x!tt.ptr<f32>>
    tt.return
  }
}
"""


def test_redundant_load_pairs_each_merge_with_its_kept_load():
    """A merge into a loop body moves evict_last onto the load before the loop; after the
    store, a new group (no evict_last in it) keeps its first load's hints."""
    plain = run_variant(EVL_REGIONS, ["redundant-load"])
    assert plain.stats == {"redundant-load": 2}
    assert _loads(plain.text) == ["tt.load %p evictionPolicy = evict_last", "tt.load %p"]


def test_noise_floor_from_the_null_control():
    control = stats.Ratio(0.993, 0.992, 0.993)  # the null override 0.7% off the baseline
    assert stats.noise_floor(control) == pytest.approx(0.008)
    tiny = stats.Ratio(1.002, 1.001, 1.003)  # "faster", but less than the process offset
    assert stats.verdict(tiny, stats.Ratio(1.009, 1.009, 1.010)) == stats.WIN
    assert stats.verdict(tiny, stats.Ratio(1.009, 1.009, 1.010), control=control) == stats.NO_CHANGE
    real = stats.Ratio(1.03, 1.029, 1.031)
    assert stats.verdict(real, real, control=control) == stats.WIN
    assert stats.verdict(stats.Ratio(0.995, 0.994, 0.996), stats.Ratio(0.995, 0.994, 0.996), control=control) == stats.NO_CHANGE
    assert stats.noise_floor(None) == 0.0 and stats.noise_floor(stats.Ratio(1.0, 1.0, 1.0)) == 0.0
