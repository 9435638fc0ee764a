"""Instructions one pass executes on a ``bench.scaling`` shape, counted by valgrind: whether a
phase whose time grows faster than its input does more work per op, or the same work slower
(a module that outgrows the CPU caches).

    python -m bench.pass_instructions [--shape masks] [--pass div-chain] [--lines 7500 60000]
                                      [--times 10] [--cache-sim MB]

For each size, the shape's module is read, then the pass applied 0 and ``--times`` times, each
process under ``valgrind --tool=cachegrind`` (``--cache-sim=no`` unless ``--cache-sim``;
``PYTHONHASHSEED`` fixed); the difference over ``--times`` is one application's
instructions.  As in ttopt's pipeline, the garbage collector is off; the pass is first
applied to a 200-line module of the same shape in both processes, so that its lazy imports
stay out of the difference.  With ``--cache-sim MB``, also the data misses per line of the
first-level cache and of a simulated last-level cache of that size: whether a phase's time
per line grows because the module outgrows the cache while its work per line does not.
Needs valgrind.
"""

from __future__ import annotations

import argparse
import math
import pathlib
import sys

from bench.instructions import valgrind_counts

ROOT = pathlib.Path(__file__).resolve().parent.parent

_RUN = r'''
import gc
import sys
sys.setrecursionlimit(20000)
from bench.scaling import SHAPES
from ttopt.ir.reader import read_module
from ttopt.passes import PASSES
from xdsl.context import Context
shape, lines, name, times = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
gc.disable()  # (as ttopt's pipeline runs: no collection inside the count)
PASSES[name]().apply(Context(), read_module(SHAPES[shape](200), "<warm-up>").op)  # (lazy imports)
module = read_module(SHAPES[shape](lines), "<scaling>")
for _ in range(times):
    PASSES[name]().apply(Context(), module.op)
'''


def count(shape: str, lines: int, name: str, times: int, last_level: int | None = None) -> dict[str, int]:
    return valgrind_counts(_RUN, [shape, str(lines), name, str(times)], ROOT, last_level)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", default="masks")
    ap.add_argument("--pass", dest="name", default="div-chain")
    ap.add_argument("--lines", type=int, nargs="+", default=[7500, 60000])
    ap.add_argument("--times", type=int, default=10)
    ap.add_argument("--cache-sim", type=int, metavar="MB", default=None,
                    help="also count data misses of a simulated last-level cache of MB MB "
                         "(this machine's L3: 32; valgrind wants MB * 2**20 / (16 * 64) sets, "
                         "a power of two) and of the first level")
    args = ap.parse_args(argv)
    last_level = None if args.cache_sim is None else args.cache_sim << 20
    per = []
    for lines in args.lines:
        after = count(args.shape, lines, args.name, args.times, last_level)
        before = count(args.shape, lines, args.name, 0, last_level)
        one = {k: (after[k] - before[k]) / args.times for k in after}
        per.append((lines, one))
        print(f"{args.shape}, {lines} lines: {args.name} {one['instructions'] / 1e6:,.2f} M instructions "
              f"({one['instructions'] / lines:,.0f} a line)"
              + ("" if last_level is None else
                 f"; data misses a line: first level {one['d1_misses'] / lines:,.1f}, "
                 f"last level ({args.cache_sim} MB) {one['ll_misses'] / lines:,.1f}"), flush=True)
    (a, x), (b, y) = per[0], per[-1]
    if len(per) > 1 and b != a:
        for key, what in (("instructions", "instructions"), ("ll_misses", "last-level misses")):
            if key in x and x[key] > 0 and y[key] > 0:
                print(f"log-log slope of the {what}, {a} to {b} lines: "
                      f"{math.log(y[key] / x[key]) / math.log(b / a):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
