"""``bench.tune`` for the rewrites beyond the paper (issue 14), with two bench-only additions.

    python -m bench.beyond_tune KERNEL_DIR... --pass hoist-load --pass redundant-load \\
        --pass redundant-reduce --candidate rh=recip-hoist ... --out DIR

Exactly ``python -m bench.tune`` (same options, same measurement, same decisions), except:

* ``redundant-load-paper`` is a pass name it accepts (in ``--pass``/``--candidate``):
  ``redundant-load{value-numbering=false implied-masks=false disjoint-stores=false
  joins=false}``, the paper's SSA-identity rule, so that a candidate can be the paper's
  pipeline and the new abilities' effect is the difference;
* ``hoist-load`` (and ``redundant-load-paper``) count as exact passes in the numerics check
  (``bench.stats.EXACT_PASSES``): their outputs must be bit-identical to the baseline's, as
  for ``redundant-load``, not within the reassociation bound.

``python -m bench.beyond_ulps WORK`` then reads the saved outputs for the errors in ulps.
"""

from __future__ import annotations

import functools
import sys

from bench import stats, tune, variants
from ttopt.passes.redundant_load import RedundantLoad

PAPER_RL = functools.partial(RedundantLoad, value_numbering=False, implied_masks=False, disjoint_stores=False,
                             joins=False)


def register() -> None:
    variants.BENCH_PASSES["redundant-load-paper"] = PAPER_RL
    stats.EXACT_PASSES = frozenset(stats.EXACT_PASSES | {"hoist-load", "redundant-load-paper"})


def main(argv=None) -> int:
    register()
    return tune.main(argv)


if __name__ == "__main__":
    sys.exit(main())
