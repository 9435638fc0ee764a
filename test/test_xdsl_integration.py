"""ttopt on xDSL's own machinery: passes are xDSL ModulePasses, pipelines use xDSL's syntax,
ttopt-opt has xdsl-opt's/mlir-opt's flags, ttopt is an xDSL plugin, and an example pass loads
from a file.  Every file written lives under pytest's tmp_path."""

import dataclasses
import importlib.metadata
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner
from xdsl.passes import ModulePass as XDSLModulePass
from xdsl.passes import PassPipeline

import ttopt
import ttopt.passes
from conftest import ROOT, fixture_files, small
from ttopt import cli
from ttopt.ir.reader import read_module
from ttopt.oracle import triton_accepts
from ttopt.passes import PASSES, PassStats, available_passes, collect_stats
from ttopt.passes.base import default_context
from ttopt.passes.redundant_load import RedundantLoad
from ttopt.pipeline import run_deep

LOADS = """module {
  tt.func public @k(%p: !tt.ptr<f32>, %o: !tt.ptr<f32>) {
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %s = tt.splat %p : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %a = tt.addptr %s, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %x = tt.load %a evictionPolicy = evict_last : tensor<128x!tt.ptr<f32>>
    %y = tt.load %a evictionPolicy = evict_first : tensor<128x!tt.ptr<f32>>
    %w = tt.load %a evictionPolicy = evict_first : tensor<128x!tt.ptr<f32>>
    %z = arith.addf %x, %y : tensor<128xf32>
    %z2 = arith.addf %z, %w : tensor<128xf32>
    %os = tt.splat %o : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %oa = tt.addptr %os, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    tt.store %oa, %z2 : tensor<128x!tt.ptr<f32>>
    tt.return
  }
}
"""

# An error on line 16 (the second chunk), the third chunk fine.
SPLIT = """module {
  tt.func public @one(%p: !tt.ptr<f32>) {
    %a = tt.load %p : !tt.ptr<f32>
    %b = tt.load %p evictionPolicy = evict_first : !tt.ptr<f32>
    %c = arith.addf %a, %b : f32
    tt.store %p, %c : !tt.ptr<f32>
    tt.return
  }
}
// -----
module {
  tt.func public @two(%p: !tt.ptr<f32>) {
    %a = tt.load %p : !tt.ptr<f32>
    %b = arith.addf %a, %a : f32
    // expected-error @+1 {{custom op 'tt.frobnicate' is unknown}}
    tt.frobnicate %b : f32
    tt.return
  }
}
  // -----
module {
  tt.func public @three(%p: !tt.ptr<f32>) {
    tt.return
  }
}
"""


def invoke(*args, stdin=None):
    return CliRunner().invoke(cli.main, [str(a) for a in args], input=stdin)


def run_cli(*args, stdin=None):
    """The real entry point, in its own process."""
    return subprocess.run(
        [sys.executable, "-m", "ttopt.cli", *map(str, args)],
        input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=300,
    )


@pytest.fixture
def loads(tmp_path):
    p = tmp_path / "loads.ttir"
    p.write_text(LOADS)
    return p


@pytest.fixture
def no_loaded_passes(monkeypatch):
    monkeypatch.setattr(ttopt.passes, "LOADED_PASSES", {})


# ------------------------------------------------------------------ passes are xDSL passes
@pytest.mark.parametrize("name", list(PASSES))
def test_passes_are_xdsl_module_passes(name):
    cls = PASSES[name]
    assert issubclass(cls, XDSLModulePass)
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen
    assert cls.name == name and "name" not in {f.name for f in dataclasses.fields(cls)}
    assert cls.summary
    assert cls().spec().name == name


def test_redundant_load_has_a_real_option():
    fields = {f.name: f.default for f in dataclasses.fields(RedundantLoad)}
    assert fields == {"respect_hints": False, "value_numbering": True, "implied_masks": True,
                      "disjoint_stores": True, "joins": True}
    assert str(RedundantLoad(respect_hints=True)) == "redundant-load{respect_hints=true}"


def test_xdsl_pass_pipeline_parses_ttopt_passes_with_options():
    pipe = PassPipeline.parse_spec(
        available_passes(), "redundant-load{respect-hints=true},redundant-reduce,div-chain,cse,dce"
    )
    names = [p.name for p in pipe.passes]
    assert names == ["redundant-load", "redundant-reduce", "div-chain", "cse", "dce"]
    assert pipe.passes[0] == RedundantLoad(respect_hints=True)
    assert ttopt.parse_pipeline("redundant-load")[0] == RedundantLoad()


def test_xdsl_pass_pipeline_applies_ttopt_passes_and_stats_reach_the_sink():
    def go():
        mod = read_module(LOADS)
        pipe = PassPipeline.parse_spec(available_passes(), "redundant-load,cse")
        with collect_stats() as stats:
            pipe.apply(default_context(), mod.op)
        return stats, [op.name for op in mod.op.walk()].count("tt.load")

    stats, loads_left = run_deep(go)
    assert [s.to_dict() for s in stats] == [
        {"pass": "redundant-load", "rewrites": 2, "per_function": {"k": 2}}
    ]
    assert loads_left == 1


def test_no_sink_no_stats_and_legacy_run_still_returns_them():
    def go():
        mod = read_module(LOADS)
        RedundantLoad().apply(default_context(), mod.op)  # no sink: nothing recorded, no error
        mod2 = read_module(LOADS)
        return RedundantLoad().run(mod2.op), PASSES["div-chain"]().run(read_module(LOADS).op)

    stats, div = run_deep(go)
    assert isinstance(stats, PassStats) and stats.to_dict()["per_function"] == {"k": 2}
    assert div.name == "div-chain" and div.total == 0


@pytest.mark.parametrize(
    "spec, message",
    [
        ("nope,cse", "unknown pass 'nope' in pipeline 'nope,cse' (known: redundant-load, "
                     "redundant-reduce, div-chain, recip-hoist, hoist-load, cse, canonicalize, "
                     "dce, exact, all, default)"),
        ("redundant-load{bogus=1}", "bad options for pass 'redundant-load'"),
        ("redundant-load{respect-hints=3}", "bad options for pass 'redundant-load'"),
        ("cse{x=1}", "bad options for pass 'cse'"),
        ("redundant-load{", "invalid pass pipeline 'redundant-load{' at column 16"),
    ],
)
def test_bad_pipelines_are_one_line_usage_errors(spec, message, loads):
    with pytest.raises(ttopt.TTOptError, match=re.escape(message)):
        ttopt.parse_pipeline(spec)
    res = invoke(loads, "-p", spec)
    assert res.exit_code == cli.EXIT_USAGE_ERROR == 2
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith("ttopt-opt: error: ") and message in line


def test_other_usage_errors_are_one_line(loads):
    for args in (["-p", "cse", "--pass", "redundant-load"], ["--no-such-flag"], ["-p"]):
        res = invoke(loads, *args)
        assert res.exit_code == 2, args
        (line,) = res.stderr.strip().splitlines()
        assert line.startswith("ttopt-opt: error: "), line


# ------------------------------------------------------------------ -p and --stats
def test_p_with_options(loads):
    default = invoke(loads, "-p", "redundant-load", "--stats")
    hints = invoke(loads, "-p", "redundant-load{respect-hints=true}", "--stats")
    assert default.exit_code == hints.exit_code == 0
    assert default.stderr == "redundant-load (R-Load): 2 loads removed\n  k: 2\n"
    # only the two evict_first loads are the same load with the same hints
    assert hints.stderr == "redundant-load (R-Load): 1 loads removed\n  k: 1\n"
    assert hints.stdout.count("tt.load") == 2 and default.stdout.count("tt.load") == 1
    assert triton_accepts(hints.stdout, ".ttir").ok


def test_stats_unchanged_between_pass_and_p():
    src = small("div_chain.ttir")
    old = invoke(src, "--pass", "redundant-load,redundant-reduce", "--pass", "div-chain", "--stats")
    new = invoke(src, "-p", "redundant-load,redundant-reduce,div-chain", "--stats")
    assert old.exit_code == new.exit_code == 0
    assert old.stdout == new.stdout and old.stderr == new.stderr
    assert old.stderr == (
        "redundant-load (R-Load): 0 loads removed\n"
        "redundant-reduce (R-Reduce): 0 reductions removed\n"
        "div-chain (Div): 1 divisions removed\n"
        "  div_chain_kernel: 1\n"
    )
    by_name = ttopt.run_pipeline(src.read_text(), ["redundant-load", "div-chain"])
    by_spec = ttopt.run_pipeline(src.read_text(), ttopt.parse_pipeline("redundant-load,div-chain"))
    assert [s.to_dict() for s in by_name.stats] == [s.to_dict() for s in by_spec.stats]
    assert by_name.text == by_spec.text


def test_xdsl_passes_report_no_stats(loads):
    res = invoke(loads, "-p", "redundant-load,cse,canonicalize,dce", "--stats")
    assert res.exit_code == 0
    assert res.stderr == "redundant-load (R-Load): 2 loads removed\n  k: 2\n"


# ------------------------------------------------------------------ xdsl-opt's flags
def test_print_between_passes(loads):
    res = invoke(loads, "-p", "redundant-load,cse", "--print-between-passes")
    assert res.exit_code == 0
    headers = [ln for ln in res.stderr.splitlines() if ln.startswith("// -----// IR Dump")]
    assert headers == [
        "// -----// IR Dump After redundant-load //----- //",
        "// -----// IR Dump After cse //----- //",
    ]
    after_load = res.stderr.split(headers[1])[0]
    assert after_load.count("tt.load") == 1 and "module {" in after_load
    assert res.stdout.count("tt.load") == 1


def test_print_after_change_skips_passes_that_change_nothing(loads):
    res = invoke(loads, "-p", "dce,redundant-load,redundant-reduce", "--print-after-change")
    assert res.exit_code == 0
    headers = [ln for ln in res.stderr.splitlines() if ln.startswith("// -----// IR Dump")]
    assert headers == ["// -----// IR Dump After redundant-load //----- //"]


def test_time_passes(loads):
    res = invoke(loads, "-p", "redundant-load{respect-hints=true},cse", "--time-passes")
    assert res.exit_code == 0
    lines = res.stderr.splitlines()
    assert "Execution time report" in res.stderr
    rows = [ln.split(")", 1)[1].strip() for ln in lines if re.match(r"^ +\d+\.\d{4} \( *\d+\.\d%\)  ", ln)]
    assert rows == ["read", "redundant-load", "cse", "print", "Total"]
    assert re.search(r"^  Total Execution Time: \d+\.\d{4} seconds$", res.stderr, re.M)


def test_version():
    proc = run_cli("--version")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f"ttopt-opt {ttopt.__version__}"
    assert lines[1] == f"xDSL {importlib.metadata.version('xdsl')}"
    assert lines[2] == f"Triton {importlib.metadata.version('triton')}"


def test_list_passes(no_loaded_passes):
    res = invoke("--list-passes")
    assert res.exit_code == 0
    lines = res.stdout.splitlines()
    assert [ln.split()[0] for ln in lines] == [
        "redundant-load", "redundant-reduce", "div-chain", "recip-hoist", "hoist-load",
        "cse", "canonicalize", "dce", "exact", "all", "default",
    ]
    assert lines[0].endswith(
        "[options: respect-hints=false, value-numbering=true, implied-masks=true, "
        "disjoint-stores=true, joins=true]"
    )
    assert lines[4].endswith("[options: guard=true, disjoint-stores=true]")
    assert all(len(ln.split(None, 1)[1]) > 20 for ln in lines)  # a description each
    assert all("(xDSL)" in ln for ln in lines[5:8])
    assert lines[8].split(None, 1)[1] == (
        "(alias) every exact rewrite of ttopt: hoist-load,redundant-load,redundant-reduce")


# ------------------------------------------------------------------ --split-input-file
def test_split_input_file_error_in_the_second_chunk_has_the_original_line(tmp_path):
    f = tmp_path / "split.ttir"
    f.write_text(SPLIT)
    out = tmp_path / "out.ttir"
    out.write_text("keep me\n")
    proc = run_cli(f, "--split-input-file", "-o", out)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [f"{f}:16:5: error: custom op 'tt.frobnicate' is unknown"]
    assert out.read_text() == "keep me\n"
    # without splitting, the whole file is one input: an error at the first marker's module
    assert run_cli(f).returncode == 1


def test_split_input_file_joins_the_outputs(tmp_path):
    f = tmp_path / "split.ttir"
    f.write_text(SPLIT.replace("    tt.frobnicate %b : f32\n", ""))
    res = invoke(f, "--split-input-file", "--pass", "redundant-load", "--stats")
    assert res.exit_code == 0, res.stderr
    chunks = res.stdout.split("// -----\n")
    assert len(chunks) == 3
    assert ["@one" in chunks[0], "@two" in chunks[1], "@three" in chunks[2]] == [True] * 3
    for chunk in chunks:
        assert chunk.startswith("module {") and triton_accepts(chunk, ".ttir").ok
    assert chunks[0].count("tt.load") == 1
    # a chunk no pass changed is its own text (no padding, no location added)
    text = f.read_text().split("// -----\n")
    assert chunks[1] == "".join(ln for ln in text[1].splitlines(keepends=True)
                                if ln.strip() and not ln.strip().startswith("//"))
    assert res.stderr == "redundant-load (R-Load): 1 loads removed\n  one: 1\n"


# ------------------------------------------------------------------ --verify-diagnostics
def test_verify_diagnostics_passes_when_exactly_the_expected_errors_occur(tmp_path):
    f = tmp_path / "split.ttir"
    f.write_text(SPLIT)
    res = invoke(f, "--split-input-file", "--verify-diagnostics")
    assert res.exit_code == 0, res.stderr
    assert res.stderr == ""
    chunks = res.stdout.split("// -----\n")
    assert len(chunks) == 3 and chunks[1] == "" and "@three" in chunks[2]


@pytest.mark.parametrize(
    "old, new, expected",
    [
        # the expected error is on another line
        ("@+1 {{custom op", "@+2 {{custom op", [
            "{f}:16:5: error: unexpected error: custom op 'tt.frobnicate' is unknown",
            "{f}:15:8: error: expected error \"custom op 'tt.frobnicate' is unknown\" was not produced",
        ]),
        # another message
        ("is unknown}}", "is not known}}", [
            "{f}:16:5: error: unexpected error: custom op 'tt.frobnicate' is unknown",
            "{f}:15:8: error: expected error \"custom op 'tt.frobnicate' is not known\" was not produced",
        ]),
        # an error nobody expected
        ("    // expected-error @+1 {{custom op 'tt.frobnicate' is unknown}}\n", "    //\n", [
            "{f}:16:5: error: unexpected error: custom op 'tt.frobnicate' is unknown",
        ]),
        # an expected error that does not occur
        ("    tt.frobnicate %b : f32\n", "    %c = arith.addf %b, %b : f32\n", [
            "{f}:15:8: error: expected error \"custom op 'tt.frobnicate' is unknown\" was not produced",
        ]),
        # a warning expected where an error occurs
        ("expected-error @+1", "expected-warning @+1", [
            "{f}:15:8: error: 'error' diagnostic emitted when expecting a 'warning'",
            "{f}:15:8: error: expected warning \"custom op 'tt.frobnicate' is unknown\" was not produced",
        ]),
    ],
)
def test_verify_diagnostics_fails_on_any_mismatch(tmp_path, old, new, expected):
    f = tmp_path / "split.ttir"
    assert old in SPLIT
    f.write_text(SPLIT.replace(old, new))
    res = invoke(f, "--split-input-file", "--verify-diagnostics")
    assert res.exit_code == 1
    assert res.stderr.splitlines() == [e.format(f=f) for e in expected]
    assert res.stdout == ""


def test_verify_diagnostics_designators(tmp_path):
    """@below/@above skip annotation lines; no designator: the same line; -re: regexes."""
    text = SPLIT.replace(
        "    // expected-error @+1 {{custom op 'tt.frobnicate' is unknown}}\n",
        "    // expected-error @below {{custom op 'tt.frobnicate' is unknown}}\n"
        "    // expected-remark @+5 {{never}}\n",
    )
    f = tmp_path / "below.ttir"
    f.write_text(text)
    res = invoke(f, "--split-input-file", "--verify-diagnostics")
    assert res.stderr.splitlines() == [f"{f}:16:8: error: expected remark \"never\" was not produced"]
    for old, new in [
        ("    tt.frobnicate %b : f32\n",
         "    tt.frobnicate %b : f32\n    // expected-error @above {{is unknown}}\n"),
        ("    tt.frobnicate %b : f32\n",
         "    tt.frobnicate %b : f32 // expected-error-re {{custom op '{{tt\\.[a-z]+}}' is unknown}}\n"),
    ]:
        body = SPLIT.replace("    // expected-error @+1 {{custom op 'tt.frobnicate' is unknown}}\n", "")
        f.write_text(body.replace(old, new))
        res = invoke(f, "--split-input-file", "--verify-diagnostics")
        assert res.exit_code == 0, res.stderr


def test_verify_diagnostics_without_split_and_internal_errors_stay_exit_3(tmp_path, monkeypatch):
    f = tmp_path / "one.ttir"
    f.write_text("module {\n  // expected-error @+1 {{is unknown}}\n  tt.nope\n}\n")
    assert invoke(f, "--verify-diagnostics").exit_code == 0

    class Broken:
        name = "redundant-load"
        summary = "raises"

        def run(self, module):
            raise KeyError("boom")

    monkeypatch.setitem(ttopt.PASSES, "redundant-load", Broken)
    g = tmp_path / "ok.ttir"
    g.write_text(LOADS)
    res = invoke(g, "--verify-diagnostics", "--pass", "redundant-load")
    assert res.exit_code == 3
    assert res.stderr.strip().splitlines() == [
        f"{g}: internal error: in pass 'redundant-load': KeyError: 'boom' "
        "(run with --debug for the traceback)"
    ]


# ------------------------------------------------------------------ xDSL's passes on Triton IR
_DEF = re.compile(r"^(\s*)%([\w.$-]+) = (?!scf\.|tt\.reduce|tt\.scan|tt\.func)(.*[^{])$")


def with_duplicates(text: str) -> str:
    """Every one-line op defining one value twice (`%dupxNAME = OP` then `%NAME = OP`), the
    next use of NAME using the copy: work for cse, and dead copies are not all there is."""
    out, pending = [], []
    for line in text.split("\n"):
        for name in list(pending):
            m = re.compile("%" + re.escape(name) + r"(?![\w.$-])")
            if m.search(line):
                line = m.sub("%dupx" + name, line, count=1)
                pending.remove(name)
        d = _DEF.match(line)
        if d:
            indent, name, rest = d.groups()
            out.append(f"{indent}%dupx{name} = {rest}")
            pending.append(name)
        out.append(line)
    return "\n".join(out)


@pytest.mark.parametrize("spec", ["cse", "canonicalize", "dce", "redundant-load,redundant-reduce,cse,canonicalize"])
def test_xdsl_passes_keep_fixture_kernels_valid_for_triton(spec):
    passes = ttopt.parse_pipeline(spec)
    changed = 0
    for path in fixture_files():
        suffix = path.suffix
        for text in (path.read_text(), with_duplicates(path.read_text())):
            assert triton_accepts(text, suffix).ok, path
            out = ttopt.run_pipeline(text, passes, str(path)).text
            changed += out != ttopt.optimize(text, [], str(path))
            result = triton_accepts(out, suffix)
            assert result.ok, f"{spec} on {path}: {result.message}"
    assert changed >= len(fixture_files())  # every kernel with duplicates was changed


def test_cse_merges_what_is_equal_and_keeps_loads_across_a_store():
    text = with_duplicates(small("add.ttir").read_text())
    out = ttopt.run_pipeline(text, ttopt.parse_pipeline("cse"), "add.ttir").text
    assert out.count("%dupx") > 0
    assert out.count(" = tt.load ") == small("add.ttir").read_text().count(" = tt.load ")
    stored = LOADS.replace("    %w = tt.load", "    tt.store %a, %x : tensor<128x!tt.ptr<f32>>\n    %w = tt.load")
    out = ttopt.run_pipeline(stored, ttopt.parse_pipeline("cse"), "s.ttir").text
    assert out.count(" = tt.load ") == 3  # hints differ, and a store separates the last one


# ------------------------------------------------------------------ --load-pass, the example
def test_example_pass_loads_and_runs(tmp_path, no_loaded_passes):
    f = tmp_path / "k.ttir"
    f.write_text(
        "module {\n  tt.func public @k(%p: !tt.ptr<i32>, %n: i32) {\n"
        "    %c0 = arith.constant 0 : i32\n    %x = arith.addi %c0, %n : i32\n"
        "    tt.store %p, %x : !tt.ptr<i32>\n    tt.return\n  }\n}\n"
    )
    example = ROOT / "examples" / "fold_add_zero.py"
    assert len(example.read_text().splitlines()) < 40
    res = invoke(f, "--load-pass", example, "-p", "fold-add-zero,dce")
    assert res.exit_code == 0, res.stderr
    assert "arith.addi" not in res.stdout and "tt.store %p, %n" in res.stdout
    assert triton_accepts(res.stdout, ".ttir").ok
    assert "fold-add-zero" in invoke("--load-pass", example, "--list-passes").stdout
    ttopt.passes.LOADED_PASSES.clear()
    assert invoke(f, "-p", "fold-add-zero").exit_code == 2  # not loaded: unknown


def test_load_pass_failures(tmp_path, no_loaded_passes):
    bad = tmp_path / "bad.py"
    bad.write_text("raise RuntimeError('nope')\n")
    res = invoke("--load-pass", bad, "--list-passes")
    assert res.exit_code == 2
    assert res.stderr.strip().splitlines() == [f"{bad}: error: cannot load passes: RuntimeError: nope"]
    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n")
    assert "defines no xDSL ModulePass" in invoke("--load-pass", empty, "--list-passes").stderr
    clash = tmp_path / "clash.py"
    clash.write_text(
        "from dataclasses import dataclass\nfrom xdsl.passes import ModulePass\n"
        "@dataclass(frozen=True)\nclass P(ModulePass):\n    name = 'cse'\n"
        "    def apply(self, ctx, op): pass\n"
    )
    assert "the name is taken" in invoke("--load-pass", clash, "--list-passes").stderr


def test_an_xdsl_pass_that_raises_is_an_internal_error_naming_it(tmp_path, no_loaded_passes):
    plugin = tmp_path / "boom.py"
    plugin.write_text(
        "from dataclasses import dataclass\nfrom typing import ClassVar\n"
        "from xdsl.passes import ModulePass\n"
        "@dataclass(frozen=True)\nclass Boom(ModulePass):\n    name: ClassVar[str] = 'boom'\n"
        "    def apply(self, ctx, op):\n        raise ZeroDivisionError('x')\n"
    )
    f = tmp_path / "k.ttir"
    f.write_text(LOADS)
    res = invoke(f, "--load-pass", plugin, "-p", "redundant-load,boom")
    assert res.exit_code == 3
    assert res.stderr.strip().splitlines() == [
        f"{f}: internal error: in pass 'boom': ZeroDivisionError: x (run with --debug for the traceback)"
    ]


# ------------------------------------------------------------------ the xDSL plugin
def test_universe_registers_passes_and_only_dialects_that_do_not_clash():
    from xdsl.universe import XDSL_UNIVERSE

    from ttopt.universe import TTOPT_UNIVERSE

    assert set(TTOPT_UNIVERSE.all_passes) == set(PASSES)
    for name, factory in TTOPT_UNIVERSE.all_passes.items():
        assert factory() is PASSES[name]
    assert set(TTOPT_UNIVERSE.all_dialects) == {"tt", "ttg", "ttng"}
    assert not set(TTOPT_UNIVERSE.all_dialects) & set(XDSL_UNIVERSE.all_dialects)
    assert not set(TTOPT_UNIVERSE.all_passes) & set(XDSL_UNIVERSE.all_passes)
    assert {d().name for d in TTOPT_UNIVERSE.all_dialects.values()} == {"tt", "ttg", "ttng"}
    # the ttopt dialects it leaves out are exactly the ones xDSL already has
    from ttopt.dialects import DIALECTS

    left_out = {d.name for d in DIALECTS} - {"builtin", "tt", "ttg", "ttng"}
    assert left_out == {"arith", "math", "scf", "gpu", "ub", "cf", "llvm"}
    assert left_out <= set(XDSL_UNIVERSE.all_dialects)


def _entry_point_installed() -> bool:
    return any(ep.name == "ttopt" for ep in importlib.metadata.entry_points(group="xdsl.universe"))


@pytest.mark.skipif(not _entry_point_installed(), reason="ttopt is not installed with its entry points (pip install -e .)")
def test_xdsl_opt_runs_ttopt_passes(tmp_path):
    f = tmp_path / "k.mlir"
    f.write_text(LOADS)
    xdsl_opt = [sys.executable, "-c", "import sys; from xdsl.tools.xdsl_opt import main; sys.exit(main())"]
    proc = subprocess.run([*xdsl_opt, "-p", "redundant-load", str(f)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("tt.load") == 1 and "%z = arith.addf %x, %x" in proc.stdout
    assert triton_accepts(proc.stdout, ".ttir").ok
    # a tensor compare needs Triton's arith, which xdsl-opt does not have (see ttopt/universe.py):
    # xDSL's arith.cmpi types it `i1`, so using it as a mask does not parse
    g = tmp_path / "mask.mlir"
    g.write_text(LOADS.replace(
        "    %x = tt.load %a evictionPolicy",
        "    %m = arith.cmpi slt, %r, %r : tensor<128xi32>\n    %x = tt.load %a, %m evictionPolicy",
    ))
    assert triton_accepts(g.read_text(), ".ttir").ok
    proc = subprocess.run([*xdsl_opt, "-p", "redundant-load", str(g)], capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    assert "operand is used with type tensor<128xi1>, but has been previously used or defined with type i1" in proc.stderr
