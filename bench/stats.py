"""Statistics for A/B kernel timing: paired-bootstrap confidence intervals, the speed verdict,
the numerics verdict, the roofline class.  Pure Python (no numpy, no GPU): tested on the CPU.

Timing model.  A kernel is timed in R *rounds*; in each round every variant (baseline, null
override, optimized, ...) gives one sample, the variants in a rotating order, so that a drift
of the GPU's clocks or temperature hits all of them alike.  A sample is the time per call of
one CUDA-graph replay of many calls.  The speedup of B over A is ``median(A) / median(B)``; its
95% confidence interval comes from a paired bootstrap over rounds (rounds resampled with
replacement, both variants of a round kept together).
"""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import dataclass

CONFIDENCE = 0.95
N_BOOT = 2000


@dataclass(frozen=True)
class Ratio:
    """``median(a) / median(b)`` with a bootstrap confidence interval ``[lo, hi]``."""

    value: float
    lo: float
    hi: float

    def as_list(self) -> list[float]:
        return [self.value, self.lo, self.hi]

    @property
    def straddles_one(self) -> bool:
        return self.lo <= 1.0 <= self.hi

    def __str__(self) -> str:
        return f"{self.value:.3f}x [{self.lo:.3f}, {self.hi:.3f}]"


def _quantile(sorted_values: list[float], q: float) -> float:
    """Linear-interpolation quantile of an already sorted list (numpy's default method)."""
    if not sorted_values:
        raise ValueError("quantile of an empty list")
    pos = (len(sorted_values) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def ratio_ci(a: list[float], b: list[float], n_boot: int = N_BOOT, confidence: float = CONFIDENCE,
             seed: int = 0) -> Ratio:
    """Speedup of variant ``b`` over ``a`` (times: lower is better): ``median(a)/median(b)``
    and its paired-bootstrap CI.  ``a[i]`` and ``b[i]`` come from the same round."""
    if len(a) != len(b) or not a:
        raise ValueError("paired samples of equal, non-zero length expected")
    value = statistics.median(a) / statistics.median(b)
    rng = random.Random(seed)
    n = len(a)
    boots = []
    for _ in range(n_boot):
        idx = [rng.randrange(n) for _ in range(n)]
        boots.append(statistics.median(a[i] for i in idx) / statistics.median(b[i] for i in idx))
    boots.sort()
    alpha = (1.0 - confidence) / 2
    return Ratio(value, _quantile(boots, alpha), _quantile(boots, 1.0 - alpha))


# ---- the speed verdict -------------------------------------------------------------------

WIN, LOSS, NO_CHANGE = "faster", "slower", "no change"


def noise_floor(control: Ratio | None) -> float:
    """How far the null override (the baseline's own code in another process) strays from the
    baseline: ``max(1 - lo, hi - 1, 0)`` of its interval.  A process-to-process offset of this
    size exists with no rewrite at all, so no smaller effect is credited to a pass."""
    if control is None:
        return 0.0
    return max(1.0 - control.lo, control.hi - 1.0, 0.0)


def verdict(vs_base: Ratio, vs_null: Ratio | None = None, min_speedup: float = 1.0,
            control: Ratio | None = None) -> str:
    """``faster`` when the optimized variant beats the baseline *and* the null override (the
    same code as the baseline through the override path, in its own process): both lower CI
    bounds above ``max(min_speedup, 1 + noise)``, where ``noise`` is the control's own
    deviation from 1 (:func:`noise_floor` of ``control``, the baseline/null interval);
    ``slower`` when both upper bounds are below ``1 - noise``; else ``no change`` (an interval
    that straddles 1, or the noise band around it, is no change: neither gain nor loss)."""
    noise = noise_floor(control)
    ratios = [vs_base] + ([vs_null] if vs_null is not None else [])
    if all(r.lo > max(min_speedup, 1.0 + noise) for r in ratios):
        return WIN
    if all(r.hi < 1.0 - noise for r in ratios):
        return LOSS
    return NO_CHANGE


def control_ok(base_vs_null: Ratio, tolerance: float = 0.02) -> bool:
    """The null override (round trip, no pass) must time like the baseline: its interval must
    overlap ``[1 - tolerance, 1 + tolerance]``.  When it does not, the two processes differ by
    more than any pass can be credited with, and the kernel is reported, not decided on."""
    return base_vs_null.lo <= 1.0 + tolerance and base_vs_null.hi >= 1.0 - tolerance


# ---- the numerics verdict -----------------------------------------------------------------

EXACT_PASSES = frozenset({"redundant-load", "redundant-reduce", "redundant-load-evl"})


@dataclass(frozen=True)
class Diff:
    """How two sets of output tensors differ: elements not bit-identical, max relative error
    (``max|x-y| / max|y|`` per tensor, the max over tensors), whether all are bit-identical."""

    n_diff: int
    max_rel: float
    equal: bool

    @staticmethod
    def same() -> "Diff":
        return Diff(0, 0.0, True)

    def to_dict(self) -> dict:
        return {"n_diff": self.n_diff, "max_rel": self.max_rel, "equal": self.equal}

    @staticmethod
    def from_dict(d: dict | None) -> "Diff | None":
        return None if d is None else Diff(int(d["n_diff"]), float(d["max_rel"]), bool(d["equal"]))


def numerics_verdict(opt: Diff, reruns: list[Diff], rewrites: dict[str, int], bound: float = 1e-4) -> tuple[str, bool]:
    """Classify the optimized outputs against the baseline's.

    ``reruns``: the baseline against its own reruns (same process, other processes).
    ``rewrites``: pass name -> rewrites made in this kernel.  Returns (label, acceptable).

    * ``bit-identical``: every output equal bit for bit.
    * ``within rerun spread``: the baseline itself is not reproducible (atomics, ...), and the
      optimized outputs differ from it no more than its own reruns do (or within ``bound``).
    * ``reassociated (within bound)``: the baseline is reproducible, a reassociating pass
      (div-chain) rewrote this kernel, and the error is within ``bound``.
    * ``MISMATCH``: anything else.  An exact pass on a reproducible kernel must give
      bit-identical outputs; a difference there is a bug or a compiler-level effect to explain.
    """
    if opt.equal:
        return "bit-identical", True
    nondeterministic = any(not r.equal for r in reruns)
    spread = max((r.max_rel for r in reruns), default=0.0)
    if nondeterministic:
        ok = opt.max_rel <= max(spread, bound)
        return ("within rerun spread" if ok else "MISMATCH (beyond rerun spread)"), ok
    inexact = {p for p, n in rewrites.items() if n and p not in EXACT_PASSES}
    if inexact:
        ok = opt.max_rel <= bound
        return ("reassociated (within bound)" if ok else "MISMATCH (reassociation beyond bound)"), ok
    return "MISMATCH (exact pass changed bits)", False


# ---- roofline -------------------------------------------------------------------------------


def roofline_class(bytes_moved: float, seconds: float, copy_bw: float, l2_bytes: float) -> tuple[float, float, str]:
    """(achieved bytes/s, fraction of the measured copy bandwidth, class).

    ``bytes_moved``: the fewest bytes the kernel must move (Inductor's ``kernel_num_gb`` or the
    sum of its tensor arguments).  Classes: ``L2-resident`` (the data fits in L2, so repeated
    timing runs read it from L2, not DRAM; under 10 us also latency-bound), ``DRAM roofline``
    (at least 75% of the copy bandwidth: no rewrite that keeps the bytes can speed it up),
    ``memory, below roofline`` (40-75%), ``latency/compute`` (under 40%)."""
    bw = bytes_moved / seconds if seconds > 0 else 0.0
    frac = bw / copy_bw if copy_bw > 0 else 0.0
    if bytes_moved <= l2_bytes:
        cls = "L2-resident, latency" if seconds < 10e-6 else "L2-resident"
    elif frac >= 0.75:
        cls = "DRAM roofline"
    elif frac >= 0.40:
        cls = "memory, below roofline"
    else:
        cls = "latency/compute"
    return bw, frac, cls
