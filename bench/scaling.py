"""Does every phase of ttopt scale linearly?  Time against input size, with log-log slopes.

    python -m bench.scaling [--max-lines 60000] [--out bench/results/scaling]

Four shapes, each at sizes doubling up to ``--max-lines`` lines:

* ``copies``: N copies of ``test/fixtures/small/looped_softmax.ttir`` in one module (loops,
  three reductions, masked loads and stores, locations): many small functions;
* ``long``: ONE function of N blocks of (a duplicate load differing only in its eviction
  hint, a reduction, a two-step division chain, a store): many loads, reductions, stores
  and divisions in one scope, the shape that once made ``redundant-reduce`` quadratic;
* ``blocks``: ONE function of N/3 blocks, each a store and a ``cf.cond_br`` to the next
  block or the exit (the block graph's dominator tree; ``cf`` ops);
* ``masks``: ONE function of N loads of one address, each under a mask of its own (a float
  compare that no implication rule relates to another), no store between: the shape that
  once made ``redundant-load`` quadratic (each load checked against every earlier one).

For each size, ``ttopt.run_pipeline`` with the three passes reports the time of reading
(with verification), of each pass and of printing; the best of ``--repeat`` runs is kept.
The slope of log(time) against log(lines) between the two largest sizes and by least squares
over all sizes is reported per phase (1.0 = linear; the speed issue's target is at most 1.1).
Phases under 20 ms at the largest size are reported but not judged (timer noise).

A reference row per shape, ``triton`` (not judged): Triton's own C++ parse + verify + print
of the same text (``bench.parse_speed``'s round trip, a new context each run), where Triton
is installed (``--no-triton``: left out).  What the machine's memory makes of a long module
shows in its slopes too.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import re
import time
from pathlib import Path

from bench.big_module import KERNEL
from ttopt.pipeline import run_pipeline

PASSES = ["redundant-load", "redundant-reduce", "div-chain"]
ROOT = Path(__file__).resolve().parent.parent


def copies(lines: int) -> str:
    text = KERNEL.read_text()
    start = text.index("module {") + len("module {\n")
    end = text.rindex("\n} loc(")
    head, func, tail = text[:start], text[start:end], text[end:]
    name = re.search(r"tt\.func public @(\w+)", func).group(1)
    per = func.count("\n") + 1
    parts = [func.replace(f"@{name}(", f"@{name}_{i}(") for i in range(max(1, lines // per))]
    return head + "\n".join(parts) + tail


def _start(args: str) -> list[str]:
    """A module's first lines: one function ``@k(args)``, ``%r`` (0..127) and ``%s`` (``%p``
    splat)."""
    return [
        "module {",
        f"  tt.func public @k({args}) {{",
        "    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>",
        "    %s = tt.splat %p : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>",
    ]


def long_function(lines: int) -> str:
    t, p = "tensor<128xf32>", "tensor<128x!tt.ptr<f32>>"
    out = _start("%p: !tt.ptr<f32>, %q: !tt.ptr<f32>, %n: i32") + [
        f"    %t = tt.splat %q : !tt.ptr<f32> -> {p}",
    ]
    for i in range((lines - 8) // 14):
        out += [
            f"    %o{i} = arith.constant dense<{i * 128}> : tensor<128xi32>",
            f"    %i{i} = arith.addi %r, %o{i} : tensor<128xi32>",
            f"    %a{i} = tt.addptr %s, %i{i} : {p}, tensor<128xi32>",
            f"    %x{i} = tt.load %a{i} evictionPolicy = evict_last : {p}",
            f"    %y{i} = tt.load %a{i} evictionPolicy = evict_first : {p}",
            f'    %m{i} = "tt.reduce"(%x{i}) <{{axis = 0 : i32}}> ({{',
            f"    ^bb0(%u{i}: f32, %v{i}: f32):",
            f"      %w{i} = arith.addf %u{i}, %v{i} : f32",
            f"      tt.reduce.return %w{i} : f32",
            f"    }}) : ({t}) -> f32",
            f"    %ms{i} = tt.splat %m{i} : f32 -> {t}",
            f"    %d{i} = arith.divf %x{i}, %y{i} : {t}",
            f"    %e{i} = arith.divf %d{i}, %ms{i} : {t}",
            f"    %b{i} = tt.addptr %t, %i{i} : {p}, tensor<128xi32>",
            f"    tt.store %b{i}, %e{i} : {p}",
        ]
    out += ["    tt.return", "  }", "}", ""]
    return "\n".join(out)


def one_address_masks(lines: int) -> str:
    t, p = "tensor<128xf32>", "tensor<128x!tt.ptr<f32>>"
    out = _start("%p: !tt.ptr<f32>, %q: !tt.ptr<f32>") + [
        f"    %a = tt.addptr %s, %r : {p}, tensor<128xi32>",
        f"    %t = tt.splat %q : !tt.ptr<f32> -> {p}",
        f"    %b = tt.addptr %t, %r : {p}, tensor<128xi32>",
        f"    %v = tt.load %b : {p}",
    ]
    for i in range((lines - 11) // 3):
        out += [
            f"    %c{i} = arith.constant dense<{i}.5> : {t}",
            f"    %m{i} = arith.cmpf olt, %v, %c{i} : {t}",
            f"    %l{i} = tt.load %a, %m{i} : {p}",
        ]
    out += ["    tt.return", "  }", "}", ""]
    return "\n".join(out)


def cf_blocks(lines: int) -> str:
    """ONE function of N blocks, each a store and a ``cf.cond_br`` to the next block or to
    the exit: a block graph as long as the function (dominance across blocks; ``cf`` ops)."""
    n = max(1, (lines - 6) // 3)
    out = [
        "module {",
        "  tt.func public @k(%p: !tt.ptr<f32>, %t: i1, %f: f32) {",
        "    cf.br ^bb0",
    ]
    for i in range(n):
        out += [
            f"  ^bb{i}:",
            "    tt.store %p, %f : !tt.ptr<f32>",
            f"    cf.cond_br %t, ^bb{i + 1}, ^bb{n}",
        ]
    out += [f"  ^bb{n}:", "    tt.return", "  }", "}", ""]
    return "\n".join(out)


SHAPES = {"copies": copies, "long": long_function, "masks": one_address_masks,
          "blocks": cf_blocks}


def measure(text: str, repeat: int) -> dict[str, float]:
    best: dict[str, float] = {}
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = run_pipeline(text, PASSES, "<scaling>", jobs=1)  # one process: the scaling of each phase
        total = time.perf_counter() - start
        phases = dict(result.timings)
        phases["total"] = total
        for k, v in phases.items():
            best[k] = min(best.get(k, math.inf), v)
    return best


def measure_triton(text: str, repeat: int) -> float | None:
    """The best of ``repeat`` runs of Triton's parse + verify + print of ``text`` (each in a
    new context, made outside the time); None where Triton is not installed."""
    try:
        from triton._C.libtriton import ir
    except ImportError:
        return None
    import tempfile

    from bench.parse_speed import triton_context, triton_round_trip

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scaling.ttir"
        path.write_text(text)
        best = math.inf
        for _ in range(repeat):
            ctx = triton_context()
            gc.collect()
            start = time.perf_counter()
            triton_round_trip(ir, str(path), ctx)
            best = min(best, time.perf_counter() - start)
            del ctx
    return best


def slope(xs: list[float], ys: list[float]) -> float:
    lx, ly = [math.log(x) for x in xs], [math.log(max(y, 1e-9)) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    num = sum((a - mx) * (b - my) for a, b in zip(lx, ly))
    den = sum((a - mx) ** 2 for a in lx)
    return num / den if den else float("nan")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-lines", type=int, default=60000)
    ap.add_argument("--min-lines", type=int, default=3750)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--shape", choices=sorted(SHAPES), action="append")
    ap.add_argument("--out", help="write OUT.json and OUT.md")
    ap.add_argument("--no-triton", dest="triton", action="store_false",
                    help="leave out the reference row of Triton's own parse + verify + print")
    args = ap.parse_args(argv)
    sizes, n = [], args.max_lines
    while n >= args.min_lines:
        sizes.insert(0, n)
        n //= 2
    report: dict = {"sizes": sizes, "passes": PASSES, "shapes": {}}
    md = ["| shape | phase | " + " | ".join(f"{s} lines" for s in sizes) + " | slope (last two) | slope (all) |",
          "|---|---|" + "---|" * len(sizes) + "---|---|"]
    worst = 0.0
    for shape in args.shape or sorted(SHAPES):
        rows: dict[str, list[float]] = {}
        lines = []
        for size in sizes:
            text = SHAPES[shape](size)
            lines.append(text.count("\n") + 1)
            for phase, secs in measure(text, args.repeat).items():
                rows.setdefault(phase, []).append(secs)
            reference = measure_triton(text, args.repeat) if args.triton else None
            if reference is not None:
                rows.setdefault("triton", []).append(reference)
            print(f"{shape} {lines[-1]} lines: {rows['total'][-1]:.2f} s", flush=True)
        report["shapes"][shape] = {"lines": lines, "phases": {}}
        for phase, times in rows.items():
            last = math.log(times[-1] / max(times[-2], 1e-9)) / math.log(lines[-1] / lines[-2])
            every = slope(lines, times)
            judged = times[-1] >= 0.02 and phase != "triton"  # (the reference: reported)
            if judged:
                worst = max(worst, last, every)
            report["shapes"][shape]["phases"][phase] = {
                "seconds": times, "slope_last_two": last, "slope_all": every, "judged": judged,
            }
            cells = " | ".join(f"{t * 1000:.0f} ms" for t in times)
            note = "" if judged else " (reference)" if phase == "triton" else " (not judged)"
            md.append(f"| {shape} | {phase} | {cells} | {last:.2f} | {every:.2f}{note} |")
    report["worst_slope"] = worst
    print("\n".join(md))
    print(f"worst judged slope: {worst:.2f}")
    if args.out:
        Path(args.out + ".json").write_text(json.dumps(report, indent=1) + "\n")
        Path(args.out + ".md").write_text(
            "Command: `python -m bench.scaling"
            + (f" --max-lines {args.max_lines}" if args.max_lines != 60000 else "")
            + (f" --min-lines {args.min_lines}" if args.min_lines != 3750 else "")
            + "".join(f" --shape {s}" for s in args.shape or ())
            + (f" --repeat {args.repeat}" if args.repeat != 2 else "")
            + ("" if args.triton else " --no-triton")
            + f" --out {args.out}`\n\n" + "\n".join(md) + f"\n\nworst judged slope: {worst:.2f}\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
