"""The parts of bench/ that need no GPU: override-dir layout, reports, plot, paper suite."""

import importlib.util
import json
import shutil
import time

import pytest
import triton
from triton.backends.compiler import GPUTarget

import ttopt
from bench.layout import build_override_dir
from bench.paper_suite import TABLE3, TABLE4, write_suite
from bench.report import markdown_table, plot, speedups, write_jsonl
from conftest import inductor_file, small
from ttopt.oracle import triton_accepts

# coat_lite_mini's kernel with an evict_last + evict_first load of one pointer (test/fixtures)
COAT = inductor_file(
    "coat_lite_mini.train", "triton_red_fused__to_copy_native_layer_norm_backward_select_backward_view_4.ttir"
)
ADD = small("add.ttir")
H1, H2 = "A" * 52, "B" * 52


def test_override_dir_holds_only_changed_kernels(tmp_path):
    dump, override = tmp_path / "dump", tmp_path / "override"
    (dump / H1).mkdir(parents=True)
    (dump / H2).mkdir(parents=True)
    shutil.copy(COAT, dump / H1 / COAT.name)
    shutil.copy(ADD, dump / H2 / "add_kernel.ttir")
    (dump / H2 / "add_kernel.ptx").write_text("not IR")
    done = build_override_dir(dump, override, ["redundant-load", "div-chain"], "ttir")
    assert [(d.hash_dir, d.kernel) for d in done] == [(H1, COAT.stem)]
    assert done[0].stats == {"redundant-load": 1, "div-chain": 0}
    files = sorted(p.relative_to(override).as_posix() for p in override.rglob("*") if p.is_file())
    assert files == [f"{H1}/{COAT.name}"]
    text = (override / H1 / COAT.name).read_text()
    assert text == ttopt.optimize(COAT.read_text(), ["redundant-load", "div-chain"], str(dump / H1 / COAT.name))
    assert triton_accepts(text, ".ttir").ok


def test_override_dir_rejects_unknown_stage(tmp_path):
    with pytest.raises(ValueError):
        build_override_dir(tmp_path, tmp_path / "o", ["div-chain"], "ptx")


def test_eq1_and_median_speedups():
    med, eq1 = speedups([2.0, 2.0, 4.0], [1.0, 2.0, 2.0])
    assert med == pytest.approx(1.0)
    assert eq1 == pytest.approx((2.0 + 1.0 + 2.0) / 3)


def _rows():
    return [
        {"model": "m", "kernel": "k1", "passes": ["div-chain"], "rewrites": {"div-chain": 1},
         "t_before_ms": 0.02, "t_after_ms": 0.01, "speedup_median": 2.0, "speedup_eq1": 2.1,
         "max_rel_err": 3e-7, "gpu": "G", "triton": "3.6.0", "torch": "2.11"},
        {"model": "m", "kernel": "k2", "passes": ["div-chain"], "rewrites": {"div-chain": 2},
         "t_before_ms": 0.01, "t_after_ms": 0.01, "speedup_median": 1.0, "speedup_eq1": 0.9,
         "max_rel_err": 1e-6, "gpu": "G", "triton": "3.6.0", "torch": "2.11"},
    ]


def test_report_files(tmp_path):
    rows = _rows()
    write_jsonl(rows, tmp_path / "r.jsonl")
    lines = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert [r["kernel"] for r in lines] == ["k1", "k2"]
    assert set(lines[0]) >= {"model", "kernel", "passes", "t_before_ms", "t_after_ms", "speedup_median",
                             "speedup_eq1", "max_rel_err", "gpu", "triton", "torch"}
    md = markdown_table(rows)
    assert "| m | `k1` | div-chain 1 | 0.0200 | 0.0100 | 2.000x | 2.100x | 3.00e-07 |" in md
    assert "| **mean** | 2 kernels | | | | 1.500x | 1.500x | 1.00e-06 |" in md
    plot(rows, tmp_path / "s.png", "t")
    assert (tmp_path / "s.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, path.stem)


def test_paper_suite_kernels_compile_and_carry_the_patterns(tmp_path):
    paths = write_suite(tmp_path)
    assert len(paths) == len(TABLE3) + len(TABLE4)
    for path in paths:
        fn = _load(path)
        if path.stem.startswith("t3_"):
            sig = {"x_ptr": "*fp16", "y_ptr": "*fp32", "N": "i32", "BLOCK": "constexpr"}
        else:
            n = int(path.stem[len("t4_div")]) + 1
            sig = {f"{v}_ptr": "*fp32" for v in "xyzw"[:n]} | {"out_ptr": "*fp32", "numel": "i32", "BLOCK": "constexpr"}
        src = triton.compiler.ASTSource(fn=fn, signature=sig, constexprs={"BLOCK": 256})
        ttir = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4}).asm["ttir"]
        stats = {s.name: s.total for s in ttopt.run_pipeline(ttir, ["redundant-load", "redundant-reduce", "div-chain"]).stats}
        if path.stem.startswith("t3_"):
            ndup, nred = (int(x) for x in path.stem.rsplit("_dup", 1)[1].split("_red"))
            assert stats == {"redundant-load": ndup, "redundant-reduce": nred, "div-chain": 0}, path.stem
        else:
            assert stats == {"redundant-load": 0, "redundant-reduce": 0, "div-chain": n - 2}, path.stem


@pytest.mark.parametrize("mode", ["fresh", "shared"])
def test_parse_speed_times_both_sides_and_gives_triton_a_context_per_run(mode, tmp_path, monkeypatch):
    """bench.parse_speed on one small kernel (and the corpus's first file, where the corpus
    is beside): a row per file with both times and their ratio; with ``--triton-context
    fresh`` each Triton run parses into a context of its own (one made first, then one per
    run), with ``shared`` all into one."""
    from triton._C.libtriton import ir

    import bench.parse_speed as parse_speed

    made = []
    real = ir.context

    def counted():
        made.append(1)
        return real()

    monkeypatch.setattr(ir, "context", counted)
    out = tmp_path / "rows.json"
    argv = ["--every", "1000000", "--repeat", "2", "--clock", "cpu", "--triton-context", mode,
            "--extra", "test/fixtures/small/add.ttir", "--json", str(out)]
    assert parse_speed.main(argv) == 0
    rows = json.loads(out.read_text())
    assert rows[-1]["group"] == "extra" and rows[-1]["file"] == "test/fixtures/small/add.ttir"
    for r in rows:
        assert r["ttopt_ms"] > 0 and r["triton_ms"] > 0
        assert r["ratio"] == pytest.approx(r["ttopt_ms"] / r["triton_ms"])
    assert len(made) == (1 + 2 * len(rows) if mode == "fresh" else 1)


def test_scaling_flushes_before_every_cold_phase_and_never_inside_one(tmp_path, monkeypatch):
    """bench.scaling on two small sizes, both protocols, a flush that records itself and
    sleeps 0.3 s: each cold run flushes before the read, inside each of xDSL's pipeline
    callbacks (before each pass and before the print), before the walk and before Triton's
    round trip, and nowhere else; a warm run never; and no phase's time holds a flush."""
    import bench.scaling as scaling
    from ttopt.ir.reader import read_module

    SLEEP = 0.3  # (10x the slowest phase at these sizes)
    events: list[str] = []
    real_call = scaling.CacheFlush.__call__

    def flush(self):
        events.append("flush")
        real_call(self)
        time.sleep(SLEEP)

    real_run = scaling.run_pipeline

    def run(text, passes, filename, *, callback, **kw):
        def between(prev, module, nxt):
            events.append("callback")
            callback(prev, module, nxt)

        events.append("read")
        result = real_run(text, passes, filename, callback=between, **kw)
        events.append("done")
        return result

    def recorded(event, real):
        def call(*args):
            events.append(event)
            return real(*args)

        return call

    monkeypatch.setattr(scaling.CacheFlush, "__call__", flush)
    monkeypatch.setattr(scaling, "run_pipeline", run)
    monkeypatch.setattr(scaling, "walk_ops", recorded("walk", scaling.walk_ops))
    monkeypatch.setattr(scaling, "measure_triton", recorded("triton", scaling.measure_triton))
    out = tmp_path / "scal"
    argv = ["--max-lines", "400", "--min-lines", "200", "--shape", "masks", "--repeat", "1",
            "--flush-mb", "1", "--out", str(out)]
    assert scaling.main(argv) == 0
    callbacks = 1 + len(scaling.PASSES)  # (before the first pass, between, after the last)
    warm = ["read", *["callback"] * callbacks, "done", "walk"]
    cold = (["flush", "read", *["callback", "flush"] * callbacks, "done", "flush", "walk"]
            + ["triton", "flush"])
    # the warm-up run, then per size: cold (with Triton's), warm (with Triton's)
    assert events == warm + (cold + warm + ["triton"]) * 2
    report = json.loads((out.parent / "scal.json").read_text())
    rows = report["shapes"]["masks"]["caches"]
    for mode in ("cold", "warm"):
        for name, row in rows[mode].items():
            assert all(t < SLEEP for t in row["seconds"]), (mode, name, row["seconds"])
    cold_rows = rows["cold"]
    parts = ["read", *scaling.PASSES, "print"]
    for i in range(2):  # cold total: the sum of its phases (one run each)
        assert cold_rows["total"]["seconds"][i] == pytest.approx(
            sum(cold_rows[p]["seconds"][i] for p in parts))
    module = read_module(scaling.one_address_masks(200), "<t>")
    assert scaling.walk_ops(module.op) == sum(1 for _ in module.op.walk()) - 1
    buffer = scaling.CacheFlush(1)
    real_call(buffer)
    assert buffer.buffer[::64] == b"\x01" * (len(buffer.buffer) // 64) and buffer.buffer[1] == 0


def test_scaling_judges_the_cold_least_squares_slopes_of_20_ms_or_more(tmp_path, monkeypatch):
    """bench.scaling's verdict on made-up times, power laws of the line count: the judged
    figure is the largest least-squares slope among cold phases of 20 ms or more (the read's
    1.2), not a last doubling (1.26, of a phase whose least-squares slope is 1.13), not a
    phase under 20 ms (2.0), not a reference row (walk 3.0, Triton 2.5), not a warm row
    (1.5, reported as the warm worst)."""
    import bench.scaling as scaling

    def lines_of(text):
        return text.count("\n") + 1

    largest = lines_of(scaling.one_address_masks(800))

    def law(n, k, at_largest):
        return at_largest * (n / largest) ** k

    def measure(text, repeat, flush=None):
        n = lines_of(text)
        if flush is None:  # warm
            return {"read": law(n, 1.5, 0.05), **{p: law(n, 1.0, 0.03) for p in scaling.PASSES},
                    "print": law(n, 1.0, 0.03), "total": law(n, 1.0, 0.2), "walk": law(n, 1.0, 0.05)}
        bump = 1.2 if n == largest else 1.0
        return {"read": law(n, 1.2, 0.05), "redundant-load": law(n, 1.0, 0.03),
                "redundant-reduce": law(n, 1.0, 0.04) * bump, "div-chain": law(n, 2.0, 0.019),
                "print": law(n, 1.0, 0.03), "total": law(n, 1.1, 0.2), "walk": law(n, 3.0, 0.5)}

    monkeypatch.setattr(scaling, "measure", measure)
    monkeypatch.setattr(scaling, "measure_triton", lambda text, repeat, flush=None: law(lines_of(text), 2.5, 1.0))
    out = tmp_path / "scal"
    assert scaling.main(["--max-lines", "800", "--min-lines", "200", "--shape", "masks",
                         "--out", str(out)]) == 0
    report = json.loads((out.parent / "scal.json").read_text())
    assert report["worst_slope"] == pytest.approx(1.2)
    assert report["worst_slope_per_caches"] == {"cold": pytest.approx(1.2), "warm": pytest.approx(1.5)}
    cold = report["shapes"]["masks"]["caches"]["cold"]
    judged = {name for name, row in cold.items() if row["judged"]}
    assert judged == {"read", "redundant-load", "redundant-reduce", "print", "total"}
    assert cold["redundant-reduce"]["slope_last_two"] > 1.25 > 1.2 > cold["redundant-reduce"]["slope_all"]
    assert cold["div-chain"]["slope_all"] == pytest.approx(2.0)
    warm = report["shapes"]["masks"]["caches"]["warm"]
    assert not any(row["judged"] for row in warm.values())
    assert warm["read"]["slope_all"] == pytest.approx(1.5)
    text = (out.parent / "scal.md").read_text()
    assert "worst judged slope (cold caches): 1.20" in text.splitlines()
    assert "worst slope with warm caches (not judged): 1.50" in text.splitlines()
