"""Override-and-benchmark: ttopt's passes re-injected into real Triton, checked, timed.

    python -m bench.override KERNEL_DIR [KERNEL_DIR ...] --pass redundant-load --pass ... \\
        [--paper-suite] [--out bench/results/NAME] [--rounds 30] [--rep-ms 3]

The same measurement as ``python -m bench.tune`` (``bench/abtest.py`` does both), reported for
every rewritten kernel, without a decision file or a winners' override dir.  On a GPU:

1. tune + dump: each module runs once, Inductor autotunes, the chosen config is recorded, and
   Triton dumps every compiled config's IR (fresh caches, fixed-seed inputs).
2. rewrite (CPU): ttopt runs the passes on each dumped ``.ttir``; the changed kernels go to an
   override dir (``<H>/<kernel>.ttir``), and ttopt's plain round trip of the same files to a
   second one: the *null override*, the control.
3. time, interleaved: one long-lived process per variant (baseline, null override, optimized),
   each with a fresh Triton cache; per kernel ``--rounds`` rounds, each one CUDA-graph replay
   (about ``--rep-ms`` of calls) of every variant in a rotating order; a second, independent
   pass re-times the kernels that won.
4. judge: median speedup and its paired-bootstrap 95% CI against the baseline and against the
   null override (an interval that straddles 1 is "no change"); outputs compared bit for bit
   against the baseline and against the baseline's own rerun; SASS counts (LDG, MUFU.RCP,
   FFMA, spills), registers, and bytes/time against the measured copy bandwidth.
5. report under ``--out``: ``results.jsonl``, ``results.md``, ``speedup.png``, ``summary.json``.

Why TTIR: Inductor autotunes over configs that differ in num_warps/num_stages and all of them
share one override file; a TTIR override is compiled by Triton's full TTGIR pipeline for
whichever config is launched.
"""

from __future__ import annotations

import sys

from bench.tune import main as _tune_main


def main(argv=None) -> int:
    return _tune_main(argv, report_only=True)


if __name__ == "__main__":
    sys.exit(main())
