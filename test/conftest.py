"""Where the tests find their IR.

* ``FIXTURES`` (test/fixtures, in the repository): byte-identical copies of a few corpus files,
  see test/fixtures/PROVENANCE.md.  Tests of specific kernels use these, so the default suite
  needs nothing beside the checkout.
* ``CORPUS`` (../shared/corpus beside the checkout): the whole corpus, 2803 IR files.  Only the
  full-corpus sweeps need it; they are marked ``corpus`` (or parametrized with
  ``corpus_params``) and are skipped with a reason when it is missing, or fail when the
  environment variable ``CI`` is ``true`` (CI has the corpus: a missing one is a setup bug).
  The pytest header says whether it was found.
"""

import difflib
import functools
import json
import os
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "test" / "fixtures"
CORPUS = ROOT.parent / "shared" / "corpus"
HAVE_CORPUS = CORPUS.is_dir()
IN_CI = os.environ.get("CI", "").strip().lower() == "true"

MISSING_CORPUS = "../shared/corpus not found beside the checkout: full-corpus tests skipped"
MISSING_CORPUS_CI = (
    f"../shared/corpus not found beside the checkout (looked at {CORPUS}) and CI=true: "
    "CI must have the corpus, full-corpus tests fail"
)

# Inductor kernels: FIXTURES/inductor/<model>/<HASH>/<kernel>.<ext>,
# CORPUS/inductor-triton3.6-h200/<model>/triton/<HASH>/<kernel>.<ext>
_INDUCTOR = {FIXTURES: ("inductor", ""), CORPUS: ("inductor-triton3.6-h200", "triton")}


# ---------------------------------------------------------------------------------------------
# finding files


def changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    """The lines ``after`` lost and gained against ``before`` (a line diff)."""
    removed, added = [], []
    for line in difflib.ndiff(before.splitlines(), after.splitlines()):
        if line.startswith("- "):
            removed.append(line[2:])
        elif line.startswith("+ "):
            added.append(line[2:])
    return removed, added


def since(release) -> frozenset:
    """The releases (``ttopt.dialects.versions.RELEASES``) from ``release`` on."""
    from ttopt.dialects import versions

    return frozenset(x for x in versions.RELEASES if x >= release)


def until(release) -> frozenset:
    """The releases up to ``release``."""
    from ttopt.dialects import versions

    return frozenset(x for x in versions.RELEASES if x <= release)


def release_outputs(text: str, release, pipelines) -> list[str]:
    """ttopt's outputs of ``text`` read as ``release``'s: printed anew (no text copied), then
    after each pipeline of ``pipelines``."""
    import ttopt
    from ttopt.dialects import versions
    from ttopt.ir.reader import read_module
    from ttopt.ir.writer import write_module

    v = versions.show(release)
    outs = [write_module(read_module(text, "k.ttir", triton_version=v), keep_text=False)]
    return outs + [ttopt.optimize(text, p, "k.ttir", triton_version=v) for p in pipelines]


class ReleaseOracle:
    """One release's own Triton (``tools/versions/oracle.py``, in its environment made by
    ``tools/versions/make_envs.py``) judging files written under ``tmp_path``, each with the
    verdict it must get; the test is skipped, saying so, where the environment is missing."""

    def __init__(self, release, tmp_path: pathlib.Path):
        import sys

        from ttopt.dialects import versions

        sys.path.insert(0, str(ROOT / "tools" / "versions"))
        import oracle
        import triton_versions

        self.oracle = oracle
        self.version = triton_versions.resolve(versions.show(release))
        if not triton_versions.have_env(self.version):
            pytest.skip(f"the versions check did NOT run for Triton {versions.show(release)}: "
                        f"no environment at {triton_versions.env_dir(self.version)}")
        self.dir = tmp_path
        self.expect: dict[str, bool] = {}

    def add(self, name: str, text: str, accepted: bool) -> None:
        """``text`` as ``NAME.ttir``, which the release must accept (or refuse)."""
        path = self.dir / f"{name}.ttir"
        path.write_text(text)
        self.expect[str(path)] = accepted

    def check(self) -> None:
        """Every file added got its verdict."""
        results = self.oracle.check(self.version, list(self.expect))
        assert sorted(r["file"] for r in results) == sorted(self.expect)
        wrong = [f"{r['file']}: expected {'accepted' if self.expect[r['file']] else 'rejected'}: "
                 f"{r['error']}" for r in results if r["ok"] != self.expect[r["file"]]]
        assert not wrong, "\n".join(wrong)


_TRITON_ERROR = re.compile(r'loc\((?:"[^"]*":(\d+):(\d+)|.*?)\): error: (.*)')


def triton_refusals(release, tmp_path: pathlib.Path,
                    texts: dict[str, str]) -> dict[str, tuple[int, int, str] | None]:
    """Triton ``release``'s refusal of each text (LINE, COL, MESSAGE), or None where it
    accepts it (one run of its own environment; skipped where that is missing)."""
    oracle = ReleaseOracle(release, tmp_path)
    paths = {}
    for name, text in texts.items():
        paths[name] = tmp_path / f"{name}.ttir"
        paths[name].write_text(text)
    results = {r["file"]: r for r in oracle.oracle.check(oracle.version, list(paths.values()))}
    out = {}
    for name, path in paths.items():
        r = results[str(path)]
        if r["ok"]:
            out[name] = None
        else:
            m = _TRITON_ERROR.match(r["error"])
            assert m is not None, r["error"]
            at = (int(m.group(1)), int(m.group(2))) if m.group(1) else (None, None)
            out[name] = (*at, m.group(3))
    return out


def triton_refusal(text: str, capfd, suffix: str = ".ttir") -> tuple[int | None, int | None, str] | None:
    """Triton 3.6's (the venv's) first error about ``text``: (LINE, COL, MESSAGE), the
    message's blanks as one (LINE, COL None where Triton names a location alias), or None
    where it reads and verifies it.  ``capfd``: the test's fixture (Triton writes to fd 2)."""
    pytest.importorskip("triton")
    from ttopt.oracle import triton_accepts

    capfd.readouterr()
    if triton_accepts(text, suffix).ok:
        return None
    err = capfd.readouterr().err
    m = _TRITON_ERROR.search(err)
    assert m is not None, err
    at = (int(m.group(1)), int(m.group(2))) if m.group(1) else (None, None)
    return (*at, " ".join(m.group(3).split()))


def ir_files(root: pathlib.Path) -> list[pathlib.Path]:
    """Every .ttir/.ttgir under ``root``, sorted."""
    return sorted(list(root.rglob("*.ttir")) + list(root.rglob("*.ttgir")))


@functools.lru_cache(maxsize=1)
def _corpus_files() -> tuple[pathlib.Path, ...]:
    return tuple(ir_files(CORPUS)) if HAVE_CORPUS else ()


def corpus_files() -> list[pathlib.Path]:
    """Every IR file of the corpus, sorted; [] when the corpus is missing."""
    return list(_corpus_files())


def fixture_files() -> list[pathlib.Path]:
    """Every IR file copied from the corpus into test/fixtures (small/, inductor/), sorted.
    The generated kernels of ops36/ (sm_80/90/100: ops the interpreter and the sm_90 cubin
    check cannot take) are test_ops36.py's, and versions/ are test_versions_oracle.py's."""
    return sorted(ir_files(FIXTURES / "small") + ir_files(FIXTURES / "inductor"))


def small(name: str, root: pathlib.Path = FIXTURES) -> pathlib.Path:
    """A hand-written kernel of corpus/small, from the fixtures by default."""
    return root / "small" / name


def small_files(root: pathlib.Path = FIXTURES) -> list[pathlib.Path]:
    return sorted((root / "small").glob("*.tt*ir"))


def inductor_files(model: str, pattern: str, root: pathlib.Path = FIXTURES) -> list[pathlib.Path]:
    """Files of one model's Inductor kernels whose name matches ``pattern`` (a glob), sorted."""
    top, sub = _INDUCTOR[root]
    return sorted((root / top / model / sub).glob(f"*/{pattern}"))


def inductor_file(model: str, name: str, root: pathlib.Path = FIXTURES) -> pathlib.Path:
    """The first (sorted) config's file ``name`` of a model's kernel.  Never raises at import: when
    nothing matches, a path that does not exist, so the test using it fails, naming it."""
    found = inductor_files(model, name, root)
    return found[0] if found else root / _INDUCTOR[root][0] / model / "NOT-FOUND" / name


def corpus_path_of(fixture: pathlib.Path) -> pathlib.Path:
    """The corpus file a fixture was copied from."""
    rel = fixture.relative_to(FIXTURES)
    if rel.parts[0] == "small":
        return CORPUS / rel
    _, model, hash_dir, name = rel.parts
    return CORPUS / "inductor-triton3.6-h200" / model / "triton" / hash_dir / name


def corpus_id(path: pathlib.Path) -> str:
    """A readable test id for a corpus or fixture file: model/HASH[:6]/kernel[:70] or small/x."""
    for root in (FIXTURES, CORPUS):
        if path.is_relative_to(root):
            rel = path.relative_to(root)
            break
    else:
        return str(path)
    parts = rel.parts
    if len(parts) == 5:  # corpus: inductor-.../model/triton/HASH/kernel.ext
        return f"{parts[1]}/{parts[3][:6]}/{parts[4][:70]}"
    if len(parts) == 4 and parts[0] == "inductor":  # fixtures: inductor/model/HASH/kernel.ext
        return f"{parts[1]}/{parts[2][:6]}/{parts[3][:70]}"
    return rel.as_posix()


def num_warps_for(path: pathlib.Path) -> int | None:
    """num_warps to compile a .ttir with: the config's metadata, else its TTGIR's, else 4."""
    if path.suffix == ".ttgir":
        return None
    meta = path.with_suffix(".json")
    if meta.exists():
        return json.loads(meta.read_text())["num_warps"]
    ttgir = path.with_suffix(".ttgir")
    if ttgir.exists():
        m = re.search(r'"ttg.num-warps" = (\d+)', ttgir.read_text())
        if m:
            return int(m.group(1))
    return 4


# ---------------------------------------------------------------------------------------------
# parametrizing: never an empty list, never a crash at collection


def file_params(files, *, what: str) -> list:
    """``pytest.param``s for fixture files; a list that matched nothing becomes one failing case."""
    files = list(files)
    if not files:
        return [pytest.param(None, id="no-files", marks=pytest.mark.no_files(what))]
    return [pytest.param(p, id=corpus_id(p)) for p in files]


def corpus_params(select, *, what: str) -> list:
    """``pytest.param``s over the corpus, all marked ``corpus``.

    ``select`` (a function, so nothing touches the corpus at import) returns the files.  With
    no corpus: one case, skipped with MISSING_CORPUS (failed under CI=true); a corpus where
    ``select`` finds nothing: one failing case.
    """
    if not HAVE_CORPUS:
        return [pytest.param(None, id="corpus-missing", marks=pytest.mark.corpus)]
    files = list(select())
    if not files:
        return [pytest.param(None, id="no-files", marks=[pytest.mark.corpus, pytest.mark.no_files(what)])]
    return [pytest.param(p, id=corpus_id(p), marks=pytest.mark.corpus) for p in files]


def require_corpus() -> None:
    """Skip the calling test without the corpus (fail it under CI=true)."""
    if not HAVE_CORPUS:
        if IN_CI:
            pytest.fail(MISSING_CORPUS_CI, pytrace=False)
        pytest.skip(MISSING_CORPUS)


# ---------------------------------------------------------------------------------------------
# hooks


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "corpus: needs ../shared/corpus; skipped without it (failed when CI=true)"
    )
    config.addinivalue_line("markers", "no_files(what): a parameter list that matched no file; fails")
    config.addinivalue_line(
        "markers",
        "versions: needs the per-Triton-version environments of tools/versions/make_envs.py; "
        "skipped (the versions check did not run) without them",
    )


def pytest_report_header(config):
    if HAVE_CORPUS:
        return f"corpus: found at {CORPUS} ({len(_corpus_files())} IR files); fixtures: {FIXTURES}"
    state = "full-corpus tests FAIL (CI=true)" if IN_CI else "full-corpus tests skipped"
    return f"corpus: NOT found (looked at {CORPUS}, i.e. ../shared/corpus beside the checkout): {state}; fixtures: {FIXTURES}"


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    """Runs before the test body: a missing corpus skips (or fails), an empty selection fails."""
    if item.get_closest_marker("corpus"):
        require_corpus()
    marker = item.get_closest_marker("no_files")
    if marker:
        pytest.fail(f"no file matched: {marker.args[0] if marker.args else '?'}", pytrace=False)


@pytest.fixture(autouse=True, scope="session")
def _private_triton_cache(tmp_path_factory):
    """Triton must never serve a cached cubin to a test: one fresh cache per session."""
    os.environ["TRITON_CACHE_DIR"] = str(tmp_path_factory.mktemp("triton-cache"))
    yield


def ttopt_refusal(text: str, release=None) -> tuple[int, int, str] | None:
    """ttopt's refusal of ``text`` read as ``release`` (a tuple; None: as detected):
    ``(LINE, COL, MESSAGE)``, or None where it reads it."""
    from ttopt.dialects import versions
    from ttopt.errors import TTOptError
    from ttopt.ir.reader import read_module

    try:
        read_module(text, "k.ttir", triton_version=versions.show(release) if release else None)
    except TTOptError as e:
        return e.line, e.col, e.message
    return None
