#!/usr/bin/env python3
"""Make one virtual environment per Triton release (tools/versions/triton_versions.py), idempotently.

    python3.11 tools/versions/make_envs.py [--python PY] [--check-pypi] [VERSION ...]

* ``CACHE/<version>/`` (``CACHE`` = ``$TTOPT_TRITON_ENVS`` or ``~/.cache/ttopt-triton-envs``):
  ``PY -m venv`` (default: the interpreter running this script; Python 3.11 has a wheel of
  every version from 2.1 to 3.9), then ``pip install triton==<version>`` with its own
  dependencies from the configured index; for 2.x also the two things below.  No real torch,
  no ttopt.
* Triton 2.2/2.3 import numpy at ``import triton`` without declaring it (torch brought it):
  2.x environments get ``numpy<2`` (``EXTRA``).
* Triton 2.x imports ``torch`` for things that have nothing to do with compiling on the CPU:
  2.2 at ``import triton`` and 2.3 when it compiles ``tl.dot`` (``is_hip()`` reads
  ``torch.version.hip``), 2.1 in ``compile()``'s device queries.  A 20-line stub package
  ``torch`` (``STUB`` below) is written into 2.x environments: ``torch.version.hip = None``
  (the CUDA backend); ``torch.cuda.*`` raises, so nothing silently pretends a GPU.
* A finished environment gets the marker ``.ttopt-env`` (JSON: version, requirements,
  python); an environment whose marker has the same requirements and whose ``import triton``
  gives the right version (and, for 2.x, the same stub) is left alone; anything else is
  deleted and made again.  ``--force`` remakes everything.
* ``--check-pypi`` asks ``pip index versions triton`` and reports releases newer than the
  table in triton_versions.py (exit 1 if the table is out of date).

Exit status 0 when every requested environment is ready.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pathlib
import re
import shutil
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import triton_versions as V  # noqa: E402

STUB = '''\
"""A stub of torch for Triton 2.x on a CPU-only machine (written by ttopt's
tools/versions/make_envs.py).  Triton 2.x reads ``torch.version.hip`` to choose the CUDA
backend and ``torch.cuda`` for the current device; compiling with an explicit target needs
only the former.  Anything that needs a real torch fails loudly."""

__version__ = "0.0.0+ttopt-stub"
TTOPT_STUB = True


class _Version:
    hip = None
    cuda = "12.1"


version = _Version()


class _Cuda:
    def __getattr__(self, name):
        raise RuntimeError(f"torch.cuda.{name}: this is ttopt's torch stub, there is no GPU here")


cuda = _Cuda()
'''


# what a version imports without declaring it (torch brought it): 2.2/2.3 import numpy at
# ``import triton`` (their interpreter); numpy<2 as in 2024
EXTRA = {"2": ["numpy<2"]}


def stub_id(version: str) -> str | None:
    return hashlib.sha256(STUB.encode()).hexdigest()[:16] if version.startswith("2.") else None


def requirements(version: str) -> list[str]:
    return [f"triton=={version}", *EXTRA.get(version.split(".")[0], [])]


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    print("+", " ".join(map(str, cmd)), flush=True)
    return subprocess.run([str(c) for c in cmd], check=True, **kw)


def installed_version(version: str) -> str | None:
    py = V.env_python(version)
    if not py.exists():
        return None
    r = subprocess.run(
        [str(py), "-c", "import triton; print(triton.__version__)"],
        capture_output=True, text=True,
    )
    return r.stdout.strip() if r.returncode == 0 else None


def ready(version: str) -> bool:
    if not V.have_env(version):
        return False
    try:
        meta = json.loads((V.env_dir(version) / V.MARKER).read_text())
    except (OSError, ValueError):
        return False
    return (
        meta.get("version") == version
        and meta.get("requirements") == requirements(version)
        and meta.get("torch_stub") == stub_id(version)
        and installed_version(version) == version
    )


def site_packages(version: str) -> pathlib.Path:
    py = V.env_python(version)
    out = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    )
    return pathlib.Path(out.stdout.strip())


def make(version: str, python: str, force: bool) -> None:
    d = V.env_dir(version)
    if not force and ready(version):
        print(f"{version}: ready at {d}")
        return
    if d.exists():
        shutil.rmtree(d)
    d.parent.mkdir(parents=True, exist_ok=True)
    run([python, "-m", "venv", d])
    py = V.env_python(version)
    run([py, "-m", "pip", "install", "--quiet", *requirements(version)])
    if version.startswith("2."):
        stub = site_packages(version) / "torch"
        stub.mkdir(exist_ok=True)
        (stub / "__init__.py").write_text(STUB)
    got = installed_version(version)
    if got != version:
        raise SystemExit(f"{version}: after install, 'import triton' gives {got!r}")
    pyver = subprocess.run(
        [str(py), "-c", "import platform; print(platform.python_version())"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    meta = {
        "version": version,
        "requirements": requirements(version),
        "python": pyver,
        "torch_stub": stub_id(version),
    }
    (d / V.MARKER).write_text(json.dumps(meta) + "\n")
    print(f"{version}: made at {d}")


def check_pypi(python: str) -> int:
    r = subprocess.run(
        [python, "-m", "pip", "index", "versions", "triton"], capture_output=True, text=True
    )
    m = re.search(r"Available versions: (.*)", r.stdout)
    if not m:
        print(f"could not list triton releases: {r.stdout}{r.stderr}", file=sys.stderr)
        return 2
    newest: dict[str, tuple[int, ...]] = {}
    for v in m.group(1).split(","):
        v = v.strip()
        if not re.fullmatch(r"\d+\.\d+\.\d+", v):
            continue  # pre-releases
        t = tuple(int(x) for x in v.split("."))
        if t < (2, 1, 0):
            continue
        minor = f"{t[0]}.{t[1]}"
        newest[minor] = max(newest.get(minor, t), t)
    stale = 0
    for minor, t in sorted(newest.items(), key=lambda kv: kv[1]):
        want = ".".join(map(str, t))
        have = V.VERSIONS.get(minor)
        state = "ok" if have == want else f"TABLE HAS {have}"
        stale += have != want
        print(f"{minor}: newest on PyPI {want}: {state}")
    return 1 if stale else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("versions", nargs="*", help="versions or minors (default: all)")
    ap.add_argument("--python", default=sys.executable, help="the interpreter for the venvs")
    ap.add_argument("--force", action="store_true", help="remake even ready environments")
    ap.add_argument("--check-pypi", action="store_true", help="compare the table with PyPI")
    args = ap.parse_args(argv)
    if args.check_pypi:
        return check_pypi(args.python)
    try:
        wanted = [V.resolve(v) for v in args.versions] or V.ALL
    except ValueError as e:
        ap.error(str(e))
    failed = []
    for v in wanted:
        try:
            make(v, args.python, args.force)
        except (subprocess.CalledProcessError, SystemExit) as e:
            print(f"{v}: FAILED: {e}", file=sys.stderr)
            failed.append(v)
    print(f"cache: {V.cache_dir()}; ready: {len(wanted) - len(failed)}/{len(wanted)}"
          + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
