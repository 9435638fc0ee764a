"""Instructions executed by ttopt's pipeline on a corpus sample, counted by valgrind: a
measure a shared machine's noise does not move (its timings vary by up to 1.5x; the count
varies by well under 1%), for comparing two versions of ttopt.

    python -m bench.instructions [--every 40] [--extra GLOB]... [--tree DIR]...

For each tree (a checkout of ttopt; default: this one), runs the corpus sample (every N-th
file, as ``bench.parse_speed``; or, with ``--extra``, the files those globs match, relative
to the tree, as ``bench.parse_speed --extra``) through read + the paper's three passes +
print, once and twice, each under ``valgrind --tool=cachegrind --cache-sim=no``, and prints
the difference: the instructions of one pass over the files, start-up and imports left out.
``PYTHONHASHSEED`` is fixed (0): string hashing otherwise moves the count by up to 3%
between runs.  Needs valgrind (``apt-get install valgrind``).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent

_LOOP = r'''
import gc, sys
sys.path.insert(0, sys.argv[1])
from bench.parse_speed import corpus
from ttopt.ir.reader import clear_shared_types
from ttopt.pipeline import optimize
import pathlib
globs = sys.argv[4:]
files = (sorted({p for g in globs for p in pathlib.Path(".").glob(g) if p.is_file()}) if globs
         else corpus(int(sys.argv[2])))
texts = [(str(f), f.read_text()) for f in files]
for _ in range(int(sys.argv[3])):
    for name, text in texts:
        clear_shared_types(); gc.collect()
        optimize(text, ["redundant-load", "redundant-reduce", "div-chain"], name)
'''


def valgrind_counts(code: str, args: list[str], tree: pathlib.Path,
                    last_level: int | None = None) -> dict[str, int]:
    """Counts of ``python -c code args...`` (in ``tree``, its ttopt on ``PYTHONPATH``,
    ``PYTHONHASHSEED`` 0) under valgrind's cachegrind: ``instructions``; with ``last_level``
    (bytes), also ``d1_misses`` and ``ll_misses`` (data misses of the first-level cache and of
    a simulated last-level cache of that size, 16-way, 64-byte lines)."""
    sim = ["--cache-sim=no"] if last_level is None else [
        "--cache-sim=yes", f"--LL={last_level},16,64"]
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cachegrind.out")
        proc = subprocess.run(
            ["valgrind", "--tool=cachegrind", *sim, f"--cachegrind-out-file={out}",
             sys.executable, "-c", code, *args],
            capture_output=True, text=True, cwd=tree,
            env={**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"},
        )
    wanted = {"instructions": r"I\s+refs:\s+([\d,]+)"}
    if last_level is not None:
        wanted |= {"d1_misses": r"D1\s+misses:\s+([\d,]+)", "ll_misses": r"LLd\s+misses:\s+([\d,]+)"}
    counts = {}
    for key, pattern in wanted.items():
        m = re.search(pattern, proc.stderr)
        if proc.returncode != 0 or m is None:
            raise RuntimeError(proc.stderr[-2000:])
        counts[key] = int(m.group(1).replace(",", ""))
    return counts


def valgrind_instructions(code: str, args: list[str], tree: pathlib.Path) -> int:
    """Instructions of ``python -c code args...`` (:func:`valgrind_counts`, no cache
    simulation)."""
    return valgrind_counts(code, args, tree)["instructions"]


def count(tree: pathlib.Path, every: int, loops: int, extra: tuple[str, ...] = ()) -> int:
    return valgrind_instructions(_LOOP, [str(tree), str(every), str(loops), *extra], tree)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--every", type=int, default=40)
    ap.add_argument("--extra", action="append", default=[], metavar="GLOB",
                    help="these files (relative to each tree) in place of the corpus sample")
    ap.add_argument("--tree", action="append", type=pathlib.Path,
                    help="a checkout of ttopt (repeatable; default: this one)")
    args = ap.parse_args(argv)
    first = None
    for tree in args.tree or [ROOT]:
        extra = tuple(args.extra)
        one = (count(tree.resolve(), args.every, 2, extra)
               - count(tree.resolve(), args.every, 1, extra))
        first = first or one
        what = "the --extra files" if extra else f"every {args.every}th corpus file"
        print(f"{tree}: {one / 1e6:,.0f} M instructions for one pass over {what} "
              f"({one / first:.3f}x the first tree's)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
