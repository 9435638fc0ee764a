"""Triton's dump and override directory layout, and building an override dir with ttopt.

Triton 3.6 dumps each compiled kernel's stages to ``$TRITON_DUMP_DIR/<H>/<name>.<ext>`` and,
with ``TRITON_KERNEL_OVERRIDE=1``, replaces a stage's output by
``$TRITON_OVERRIDE_DIR/<H>/<name>.<ext>`` when that file exists (``<H>``: base32 of the
kernel source hash; configs that differ only in num_warps/num_stages share it).

:func:`build_override_dir` is ttopt's batch mode (:mod:`ttopt.batch`), the same as::

    ttopt-opt --pass P1,P2 DUMP_DIR --output-dir OVERRIDE_DIR --changed-only [--jobs N]

for one stage's files: one process (or one pool of workers), each dumped file read once,
only the kernels a pass rewrote written, at the same relative path.
"""

from __future__ import annotations

import pathlib
from dataclasses import dataclass, field

STAGES = ("ttir", "ttgir")


@dataclass
class Rewritten:
    """One kernel stage that the passes changed."""

    hash_dir: str
    kernel: str
    stage: str
    stats: dict = field(default_factory=dict)  # pass -> rewrites
    source: str = ""  # the dumped file
    target: str = ""  # the override file written


def dumped_kernels(dump_dir: pathlib.Path, stage: str):
    """Yield (hash dir name, kernel name, path) for every dumped ``.<stage>`` file."""
    for path in sorted(dump_dir.glob(f"*/*.{stage}")):
        yield path.parent.name, path.name[: -len(stage) - 1], path


def build_override_dir(
    dump_dir: pathlib.Path,
    override_dir: pathlib.Path,
    passes: list[str],
    stage: str = "ttir",
    kernels: set[str] | None = None,
    jobs: int = 1,
) -> list[Rewritten]:
    """Run ``passes`` on every dumped ``.<stage>`` file; write the changed ones to
    ``override_dir/<H>/<name>.<stage>``.  Returns what was rewritten.  A file ttopt cannot
    read is a ``RuntimeError`` with ttopt's message (raised once every other file is done).
    ``jobs``: worker processes (``ttopt-opt --jobs``)."""
    from ttopt.batch import optimize_files

    if stage not in STAGES:
        raise ValueError(f"stage must be one of {STAGES}")
    found = [(h, name, path) for h, name, path in dumped_kernels(dump_dir, stage)
             if kernels is None or name in kernels]
    pairs = [(path, override_dir / h / path.name) for h, _name, path in found]
    results = optimize_files(pairs, passes, jobs=jobs, changed_only=True)
    failed = [r for r in results if r.status]
    if failed:
        raise RuntimeError(f"{len(failed)} of {len(results)} files failed; first: "
                           f"{failed[0].stderr.strip().splitlines()[-1]}")
    return [
        Rewritten(h, name, stage, {s.name: s.total for s in r.stats}, r.source, r.target)
        for (h, name, _path), r in zip(found, results) if r.written
    ]
