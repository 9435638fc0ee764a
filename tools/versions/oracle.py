#!/usr/bin/env python3
"""Triton 2.1-3.9 as oracles: does version X's own parser and verifier accept this file, and
what cubin does version X compile it to?

    python3 tools/versions/oracle.py check VERSION FILE...        # JSON on stdout
    python3 tools/versions/oracle.py fixtures [VERSION...]        # each version, its own fixtures
    python3 tools/versions/oracle.py cubin VERSION FILE -o OUT [--arch 90] [--num-warps N]

VERSION is a release of triton_versions.py (``3.5.1``) or its minor (``3.5``).  Each call runs
``inenv.py`` with that version's environment (make_envs.py), so it needs nothing but the
standard library here; it works from any Python (ttopt's .venv included).

* ``check``: per file, ``{"file", "ok", "error", "diagnostics"}``: the file is parsed as that
  version parses an IR source or a ``TRITON_KERNEL_OVERRIDE`` file (``parse_mlir_module`` in a
  context with its Triton and NVIDIA dialects; 2.x: the context its ``parse_mlir_module``
  fills itself), then verified (``module.verify()``).  ``error`` is the first ``error:`` line
  MLIR printed (or the exception).  Exit 0 iff every file is accepted, 1 if one is rejected.
* ``fixtures``: ``check`` of every ``test/fixtures/versions/<version>/**/*.tt*ir`` (or
  ``--dir DIR``) with that version; a summary line per version, JSON with ``--json FILE``.  Exit 0 iff all accepted.
* ``cubin``: compiles FILE (a ``.ttir`` or ``.ttgir``, by suffix; any other name is given the
  suffix of ``--as``) as that version compiles an IR source, for ``cuda`` sm_ARCH on the CPU,
  writes the cubin to OUT and prints ``{"ok", "sha256", ...}``; exit 1 on a compile error
  (``"error"``: its first line).  For the check "a round trip with no pass compiles to the
  same cubin": compile the input and ttopt's output, compare the sha256.

Exit status 2: a usage error or a missing environment (the message says which).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import triton_versions as V  # noqa: E402

INENV = str(V.HERE / "inenv.py")
BATCH = 200  # files per interpreter start


class OracleError(Exception):
    """The environment is missing or the in-environment run itself failed."""


def _inenv(version: str, args: list[str]) -> dict:
    version = V.resolve(version)
    if not V.have_env(version):
        raise OracleError(
            f"no environment for Triton {version} at {V.env_dir(version)}: run "
            f"python3.11 tools/versions/make_envs.py {version}"
        )
    r = subprocess.run([str(V.env_python(version)), INENV, *args], cwd=V.ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        raise OracleError(f"Triton {version}: inenv.py {args[0]} failed (exit {r.returncode}): {r.stderr[-3000:]}")
    return json.loads(r.stdout)


def check(version: str, files: list[str | os.PathLike]) -> list[dict]:
    """Version ``version``'s verdict on each file (absolute paths in the result)."""
    paths = [str(pathlib.Path(f).resolve()) for f in files]
    results: list[dict] = []
    for i in range(0, len(paths), BATCH):
        results += _inenv(version, ["check", *paths[i : i + BATCH]])["results"]
    return results


def fixture_files(version: str, root: str | os.PathLike = V.FIXTURES) -> list[pathlib.Path]:
    d = pathlib.Path(root) / V.resolve(version)
    return sorted(list(d.rglob("*.ttir")) + list(d.rglob("*.ttgir")))


def _ir_copy(file: pathlib.Path, tmp: str, i: int, as_ext: str | None) -> pathlib.Path:
    ext = file.suffix if file.suffix in (".ttir", ".ttgir") else f".{as_ext}" if as_ext else None
    if ext is None:
        raise OracleError(f"{file}: not a .ttir/.ttgir file; say which with --as ttir|ttgir")
    src = pathlib.Path(tmp) / f"k{i}" / f"kernel{ext}"
    src.parent.mkdir()
    shutil.copyfile(file, src)
    return src


def compile_cubins(version: str, jobs: list[dict]) -> list[dict]:
    """Many compiles with one version, in one process.  Each job: {file, out, arch=90,
    num_warps=None, as_ext=None}; the results in the same order (``file`` as given)."""
    with tempfile.TemporaryDirectory(prefix="ttopt-oracle-") as tmp:
        inner = []
        for i, j in enumerate(jobs):
            src = _ir_copy(pathlib.Path(j["file"]).resolve(), tmp, i, j.get("as_ext"))
            inner.append({"file": str(src), "out": str(pathlib.Path(j["out"]).resolve()),
                          "arch": j.get("arch", 90), "num_warps": j.get("num_warps")})
        jobs_file = pathlib.Path(tmp) / "jobs.json"
        jobs_file.write_text(json.dumps(inner))
        results = _inenv(version, ["cubins", str(jobs_file)])["results"]
    for j, i, r in zip(jobs, inner, results):
        r["file"] = str(j["file"])
        for key in ("error", "diagnostics"):  # name the file, not its private copy
            if key in r:
                r[key] = r[key].replace(i["file"], str(j["file"]))
    return results


def compile_cubin(version: str, file: str | os.PathLike, out: str | os.PathLike, arch: int = 90,
                  num_warps: int | None = None, as_ext: str | None = None) -> dict:
    """Compile ``file`` with ``version`` to a cubin at ``out``; the in-environment JSON result."""
    (result,) = compile_cubins(version, [{"file": file, "out": out, "arch": arch, "num_warps": num_warps,
                                          "as_ext": as_ext}])
    return {"triton": V.resolve(version), **result}


def _main(argv: list[str] | None) -> int:
    ap = argparse.ArgumentParser(prog="oracle.py", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check", help="parse + verify files with one version")
    c.add_argument("version")
    c.add_argument("files", nargs="+")
    f = sub.add_parser("fixtures", help="each version checks its own fixtures")
    f.add_argument("versions", nargs="*")
    f.add_argument("--json", metavar="FILE", help="write every result there")
    f.add_argument("--dir", default=str(V.FIXTURES), help="the fixtures (default: test/fixtures/versions)")
    b = sub.add_parser("cubin", help="compile a file to a cubin with one version")
    b.add_argument("version")
    b.add_argument("file")
    b.add_argument("-o", "--output", required=True)
    b.add_argument("--arch", type=int, default=90)
    b.add_argument("--num-warps", type=int, default=None)
    b.add_argument("--as", dest="as_ext", choices=["ttir", "ttgir"])
    a = ap.parse_args(argv)
    try:
        if a.cmd == "check":
            missing = [p for p in a.files if not os.path.isfile(p)]
            if missing:
                print(f"oracle.py: error: no such file: {missing[0]}", file=sys.stderr)
                return 2
            results = check(a.version, a.files)
            json.dump({"triton": V.resolve(a.version), "results": results}, sys.stdout, indent=1)
            print()
            return 0 if all(r["ok"] for r in results) else 1
        if a.cmd == "fixtures":
            versions = [V.resolve(v) for v in a.versions] or V.ALL
            everything, bad = {}, 0
            for v in versions:
                files = fixture_files(v, a.dir)
                if not files:
                    print(f"{v}: no fixtures under {pathlib.Path(a.dir) / v}", file=sys.stderr)
                    bad += 1
                    continue
                results = check(v, files)
                everything[v] = results
                rejected = [r for r in results if not r["ok"]]
                bad += len(rejected)
                print(f"{v}: {len(results) - len(rejected)}/{len(results)} accepted"
                      + "".join(f"\n  REJECTED {r['file']}: {r['error']}" for r in rejected))
            if a.json:
                pathlib.Path(a.json).write_text(json.dumps(everything, indent=1) + "\n")
            return 1 if bad else 0
        result = compile_cubin(a.version, a.file, a.output, a.arch, a.num_warps, a.as_ext)
        json.dump(result, sys.stdout, indent=1)
        print()
        return 0 if result["ok"] else 1
    except (OracleError, ValueError, OSError) as e:
        print(f"oracle.py: error: {e}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    return _main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
