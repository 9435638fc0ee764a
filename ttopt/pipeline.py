"""Parse, run passes, print: the one path the CLI, the benchmark and integrations share."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .errors import TTOptError
from .ir.reader import read_module
from .ir.writer import write_module
from .passes import PASSES, PassStats


@dataclass
class OptimizeResult:
    text: str
    stats: list[PassStats] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(s.total for s in self.stats)


def resolve_passes(names: Sequence[str]):
    unknown = [n for n in names if n not in PASSES]
    if unknown:
        raise TTOptError(
            f"unknown pass '{unknown[0]}' (known: {', '.join(PASSES)})", "ttopt-opt"
        )
    return [PASSES[n]() for n in names]


def run_pipeline(text: str, passes: Sequence[str], filename: str = "<input>") -> OptimizeResult:
    """Parse ``text``, apply ``passes`` in order, print.  Raises :class:`TTOptError`."""
    pipeline = resolve_passes(passes)
    module = read_module(text, filename)
    stats = []
    for p in pipeline:
        try:
            stats.append(p.run(module.op))
        except TTOptError:
            raise
        except Exception as e:  # a bug in a pass: report it, never a traceback
            raise TTOptError(f"internal error in pass '{p.name}': {type(e).__name__}: {e}", filename) from e
    try:
        text_out = write_module(module)
    except Exception as e:  # a bug in a printer: report it, never a traceback
        raise TTOptError(f"internal error while printing: {type(e).__name__}: {e}", filename) from e
    return OptimizeResult(text_out, stats)


def optimize(text: str, passes: Sequence[str], filename: str = "<input>") -> str:
    """Optimize Triton IR text with the named passes (none: a round trip)."""
    return run_pipeline(text, passes, filename).text
