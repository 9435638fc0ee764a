"""Every Triton release from 2.1 to 3.9 accepts its own fixtures, judged by its own parser and
verifier (tools/versions/oracle.py), and rejects a broken copy of one.

The fixtures (test/fixtures/versions/<version>/sm{80,90}/*.tt{,g}ir, made by
tools/versions/make_fixtures.py) are committed; the per-version environments that judge them
are not: they are ~4 GB under ~/.cache/ttopt-triton-envs (or $TTOPT_TRITON_ENVS), made by

    python3.11 tools/versions/make_envs.py

Every test here is marked ``versions``.  Run only these (with the environments):

    .venv/bin/python -m pytest -q -rs -m versions test/test_versions_oracle.py

Without a version's environment its cases are SKIPPED with a reason saying the versions
check did not run (the default CI has no environments).  The oracle itself is exercised by
tools/versions/status.py, whose results are committed in test/fixtures/versions/STATUS.md.
``test_manifests_match_the_files`` and ``test_op_inventory_is_current`` need no environment
and always run.

The marker is registered in test/conftest.py (test_layouts.py's oracles use it too).
"""

import json
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools" / "versions"))
import oracle  # noqa: E402
import triton_versions as V  # noqa: E402

MAKE_ENVS = "python3.11 tools/versions/make_envs.py"


pytestmark = pytest.mark.versions


def require_env(version: str) -> None:
    if not V.have_env(version):
        pytest.skip(
            f"the versions check did NOT run for Triton {version}: no environment at "
            f"{V.env_dir(version)} (make it with: {MAKE_ENVS} {version})"
        )


def manifest(version: str) -> dict:
    return json.loads((V.FIXTURES / version / "MANIFEST.json").read_text())


@pytest.mark.parametrize("version", V.ALL)
def test_manifests_match_the_files(version):
    """What make_fixtures.py recorded is what is committed: every version has its fixtures,
    both targets, each kernel as .ttir and .ttgir, nothing more, nothing missing."""
    m = manifest(version)
    assert m["triton"] == version
    on_disk = sorted(p.relative_to(V.FIXTURES / version).as_posix() for p in oracle.fixture_files(version))
    assert on_disk == m["files"]
    assert {f.split("/")[0] for f in on_disk} == {"sm80", "sm90"}
    stems = {f.rsplit(".", 1)[0] for f in on_disk}
    assert {f"{s}.{ext}" for s in stems for ext in ("ttir", "ttgir")} == set(on_disk)
    # the kernels every version compiles (block pointers are gone in 3.9)
    common = {"elementwise", "looped_reduction", "div_chain", "argmax", "matmul"}
    assert {f"sm90/{k}" for k in common} <= stems
    if V.key(version) < (3, 9):
        assert "sm90/block_ptr" in stems
    # the op kernels (kernels_ops.py) every version compiles, on both targets or on sm_90 only
    assert {f"sm{a}/{k}" for k in OPS_BOTH for a in (80, 90)} <= stems
    assert {f"sm90/{k}" for k in OPS_SM90} <= stems
    for kernel, first in OPS_SINCE.items():
        made = any(s.endswith(f"/{kernel}") for s in stems)
        assert made == (V.key(version) >= first and version not in OPS_NOT_IN.get(kernel, ())), kernel
    # every kernel, on every target it is compiled for, is either made or "not made" (with why)
    single = m.get("single_target", {})
    not_made = {(f["kernel"], f["arch"]) for f in m["not_made"]}
    assert all(f["error"] for f in m["not_made"])
    kernels = {s.split("/")[1] for s in stems} | {k for k, _ in not_made}
    for kernel in kernels:
        for arch in (80, 90):
            attempted = arch in single.get(kernel, (80, 90))
            made = f"sm{arch}/{kernel}" in stems
            assert (made or (kernel, arch) in not_made) == attempted, (kernel, arch)
            assert not (made and (kernel, arch) in not_made), (kernel, arch)


# kernels_ops.py: what every release makes, and from when the others are made (3.5.1's
# sort/flip fail in Triton itself: "Unsupported function referenced: get_int_dtype")
OPS_BOTH = {"fp_convert", "dot_ops"}
OPS_SM90 = {"atomics", "debug_ops", "math_ops", "int_ops", "scan_reduce", "shape_ops", "inline_asm", "memory_ops",
            "control_flow"}
OPS_SINCE = {"sort_ops": (2, 2), "cluster_dot": (2, 2), "desc_matmul": (3, 0), "dot_scaled": (3, 2),
             "warp_specialized": (3, 4)}
OPS_NOT_IN = {"sort_ops": ("3.5.1",)}


def test_op_inventory_is_current():
    """test/fixtures/versions/OPS.md and OPS.json are what tools/versions/op_inventory.py
    makes of the committed fixtures (rerun it after make_fixtures.py)."""
    import op_inventory

    md, data = op_inventory.build(V.FIXTURES)
    assert (V.FIXTURES / "OPS.md").read_text() == md + "\n"
    assert json.loads((V.FIXTURES / "OPS.json").read_text()) == json.loads(json.dumps(data))
    assert set(data["versions"]) == set(V.ALL)


@pytest.mark.parametrize("version", V.ALL)
def test_version_accepts_its_own_fixtures(version):
    require_env(version)
    files = oracle.fixture_files(version)
    assert len(files) >= 20, f"too few fixtures for {version}: {len(files)}"
    results = oracle.check(version, files)
    assert len(results) == len(files)
    rejected = [f"{r['file']}: {r['error']}" for r in results if not r["ok"]]
    assert not rejected, "\n".join(rejected)


@pytest.mark.parametrize("version", V.ALL)
def test_version_rejects_a_broken_copy(version, tmp_path):
    """The same oracle call says no to a file it must refuse: the check above can fail."""
    require_env(version)
    src = V.FIXTURES / version / "sm90" / "elementwise.ttir"
    text = src.read_text()
    lines = text.splitlines(keepends=True)
    ret = [i for i, line in enumerate(lines) if line.strip().startswith("tt.return")]
    assert len(ret) == 1
    no_terminator = tmp_path / "no_terminator.ttir"
    no_terminator.write_text("".join(lines[: ret[0]] + lines[ret[0] + 1:]))
    unknown_op = tmp_path / "unknown_op.ttir"
    unknown_op.write_text(text.replace("tt.return", "tt.no_such_op\n    tt.return", 1))
    good, *bad = oracle.check(version, [src, no_terminator, unknown_op])
    assert good["ok"], good["error"]
    assert [r["ok"] for r in bad] == [False, False]
    assert "block with no terminator" in bad[0]["error"]
    assert "tt.no_such_op" in bad[1]["error"]


@pytest.mark.parametrize("version", V.ALL)
def test_version_accepts_ttopt_outputs(version, tmp_path):
    """ttopt's outputs for each release's fixtures, read by that release's own parser and
    verifier: the round trip (the input, byte for byte) and the rewrites of ``exact`` and
    ``all`` (printed in the release's syntax)."""
    require_env(version)
    sys.path.insert(0, str(ROOT))
    import ttopt

    outs = []
    rewrites = 0
    for i, f in enumerate(oracle.fixture_files(version)):
        text = f.read_text()
        assert ttopt.optimize(text, [], str(f)) == text, f
        for pipe in ("exact", "all"):
            result = ttopt.run_pipeline(text, [pipe], str(f))
            n = sum(s.total for s in result.stats)
            if n:
                rewrites += n
                out = tmp_path / f"{i}-{pipe}{f.suffix}"
                out.write_text(result.text)
                outs.append(out)
    assert rewrites >= 4 and outs  # (looped_reduction, div_chain: TTIR and TTGIR)
    rejected = [f"{r['file']}: {r['error']}" for r in oracle.check(version, outs) if not r["ok"]]
    assert not rejected, "\n".join(rejected)


@pytest.mark.parametrize("version", ["3.5.1", "3.6.0", "3.7.1", "3.8.0", "3.9.0"])
def test_the_hook_under_each_release(version):
    """tools/versions/hook_check.py in the release's environment: 3.5 (no stages hook) refuses
    with one clear error; 3.6+ rewrite (one load fewer), compile to a cubin, and compile as
    Triton alone does again after disable()."""
    require_env(version)
    import subprocess

    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "versions" / "hook_check.py"), version],
                          capture_output=True, text=True, timeout=600)
    rows = [json.loads(ln) for ln in proc.stdout.splitlines() if ln.startswith("{")]
    assert len(rows) == 1, proc.stdout + proc.stderr
    row = rows[0]
    assert row["ok"], row
    if version == "3.5.1":
        assert not row["has_hook"] and "has no stages inspection hook" in row["refused"]
    else:
        assert row["hooked_loads"] == row["plain_loads"] - 1 and row["hooked_cubin_bytes"] > 0
        assert row["again_same"]
