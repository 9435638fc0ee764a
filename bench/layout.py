"""Triton's dump and override directory layout, and building an override dir with ttopt.

Triton 3.6 dumps each compiled kernel's stages to ``$TRITON_DUMP_DIR/<H>/<name>.<ext>`` and,
with ``TRITON_KERNEL_OVERRIDE=1``, replaces a stage's output by
``$TRITON_OVERRIDE_DIR/<H>/<name>.<ext>`` when that file exists (``<H>``: base32 of the
kernel source hash; configs that differ only in num_warps/num_stages share it).
"""

from __future__ import annotations

import pathlib
from dataclasses import dataclass, field

import ttopt

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
) -> list[Rewritten]:
    """Run ``passes`` on every dumped ``.<stage>`` file; write the changed ones to
    ``override_dir/<H>/<name>.<stage>``.  Returns what was rewritten."""
    if stage not in STAGES:
        raise ValueError(f"stage must be one of {STAGES}")
    out: list[Rewritten] = []
    for hash_dir, name, path in dumped_kernels(dump_dir, stage):
        if kernels is not None and name not in kernels:
            continue
        result = ttopt.run_pipeline(path.read_text(), passes, str(path))
        if not result.changed:
            continue
        target = override_dir / hash_dir / f"{name}.{stage}"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(result.text)
        out.append(
            Rewritten(
                hash_dir, name, stage, {s.name: s.total for s in result.stats}, str(path), str(target)
            )
        )
    return out
