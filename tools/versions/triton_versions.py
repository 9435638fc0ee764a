"""The Triton releases ttopt is checked against, and where their environments live.

One entry per minor release on PyPI from 2.1 to the newest, pinned to the newest patch of that
minor (as listed by ``pip index versions triton`` when the table was made; ``make_envs.py
--check-pypi`` says whether PyPI has something newer).  Each version gets its own virtual
environment under ``CACHE`` (``$TTOPT_TRITON_ENVS``, default ``~/.cache/ttopt-triton-envs``):
``CACHE/<version>/``, with a marker file ``.ttopt-env`` once ``make_envs.py`` finished it.

Imported by make_envs.py, make_fixtures.py, oracle.py, status.py and
test/test_versions_oracle.py; it
needs nothing but the standard library.
"""

from __future__ import annotations

import os
import pathlib

# minor -> newest patch on PyPI (which listed 2.0.0 ... 3.9.0 when this table was made; 2.0 is
# out of scope: the issue starts at 2.1)
VERSIONS: dict[str, str] = {
    "2.1": "2.1.0",
    "2.2": "2.2.0",
    "2.3": "2.3.1",
    "3.0": "3.0.0",
    "3.1": "3.1.0",
    "3.2": "3.2.0",
    "3.3": "3.3.1",
    "3.4": "3.4.0",
    "3.5": "3.5.1",
    "3.6": "3.6.0",
    "3.7": "3.7.1",
    "3.8": "3.8.0",
    "3.9": "3.9.0",
}

ALL = list(VERSIONS.values())

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
# the fixtures of make_fixtures.py; $TTOPT_VERSION_FIXTURES points every tool elsewhere
FIXTURES = pathlib.Path(os.environ.get("TTOPT_VERSION_FIXTURES") or ROOT / "test" / "fixtures" / "versions")

MARKER = ".ttopt-env"


def cache_dir() -> pathlib.Path:
    return pathlib.Path(
        os.environ.get("TTOPT_TRITON_ENVS") or pathlib.Path.home() / ".cache" / "ttopt-triton-envs"
    ).expanduser()


def resolve(version: str) -> str:
    """'3.5' or '3.5.1' -> '3.5.1'; anything else is a ValueError naming the known versions."""
    if version in VERSIONS:
        return VERSIONS[version]
    if version in ALL:
        return version
    raise ValueError(f"unknown Triton version {version!r}; known: {', '.join(ALL)}")


def key(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in resolve(version).split("."))


def env_dir(version: str) -> pathlib.Path:
    return cache_dir() / resolve(version)


def env_python(version: str) -> pathlib.Path:
    return env_dir(version) / "bin" / "python"


def have_env(version: str) -> bool:
    """True when make_envs.py completed this version's environment."""
    marker = env_dir(version) / MARKER
    return marker.is_file() and env_python(version).exists()
