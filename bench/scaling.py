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
The slope of log(time) against log(lines) by least squares over all sizes is judged per phase
(1.0 = linear; the speed issue's target is at most 1.1); the slope of the last doubling alone
is reported beside it (two points: a 5% noise on each time moves it by about 0.1).  Phases
under 20 ms at the largest size are reported but not judged (timer noise).

**Caches** (``--caches``, default ``both``): each size is measured twice.

* ``cold``, the protocol the slopes are judged on: before each phase (and before Triton's
  round trip) a write of one byte per cache line of a buffer of ``--flush-mb`` MB (256:
  several times a last-level cache) evicts the CPU caches (and the TLB, where the buffer
  has 4 KB pages), outside the time, so that every size starts from the same state
  (Triton's ``do_bench`` clears the L2 cache before each run for the same reason).
  ``total`` is then the sum of the phases.
* ``warm``: the phases one after the other as the pipeline runs them, each in the caches
  the phase before left (``total``: the whole call).  A small module's phases then run from
  caches a large one outgrows, so a cheap phase's slope measures the caches as much as the
  phase: see the ``walk`` row.

Reference rows (reported, not judged): ``walk``, a walk that visits every op of the module
once and does nothing else (the floor of any pass that looks at each op), timed after the
pipeline (cold: after a flush); ``triton``, Triton's own C++ parse + verify + print of the
same text (``bench.parse_speed``'s round trip, a new context each run), where Triton is
installed (``--no-triton``: left out).
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


class CacheFlush:
    """Evicts the CPU caches and, where the buffer has 4 KB pages, the TLB: writes one byte
    per 64-byte line (alternately 1 and 2) of a buffer of ``mb`` MB, in C (a slice
    assignment).  ``count``: calls so far."""

    def __init__(self, mb: int = 256):
        self.buffer = bytearray(mb << 20)
        lines = len(self.buffer) // 64
        self.fills = (b"\x01" * lines, b"\x02" * lines)
        self.count = 0

    def __call__(self) -> None:
        self.buffer[::64] = self.fills[self.count % 2]
        self.count += 1


def walk_ops(op) -> int:
    """Visit every op under ``op`` once, doing nothing else; the number of ops.  (The loop of
    :func:`ttopt.passes.base.ops_of` without its class test and list: the floor it measures
    is the walk alone.)"""
    n, todo = 0, [op]
    while todo:
        for region in todo.pop().regions:
            for block in region.blocks:
                cur = block.first_op
                while cur is not None:
                    n += 1
                    if cur.regions:
                        todo.append(cur)
                    cur = cur.next_op
    return n


def measure(text: str, repeat: int, flush: CacheFlush | None = None) -> dict[str, float]:
    """The best of ``repeat`` runs, per phase (``read``, each pass, ``print``, ``total``,
    ``walk``): with ``flush``, the caches evicted before each phase (``total`` the sum of the
    phases); without, the phases as the pipeline runs them (``total`` the whole call).  Each
    figure is its own best, so a cold ``total`` (the best run's sum) may exceed the sum of the
    phases' bests."""
    best: dict[str, float] = {}
    for _ in range(repeat):
        kept = []

        def between(_prev, module, nxt) -> None:
            if nxt is None:
                kept.append(module)  # (for the walk, after the pipeline)
            if flush is not None:
                flush()

        gc.collect()
        if flush is not None:
            flush()
        start = time.perf_counter()
        # one process (the scaling of each phase); the callback runs outside the phases' times
        result = run_pipeline(text, PASSES, "<scaling>", jobs=1, callback=between)
        total = time.perf_counter() - start
        phases = dict(result.timings)
        phases["total"] = sum(phases.values()) if flush is not None else total
        if flush is not None:
            flush()
        start = time.perf_counter()
        walk_ops(kept[0].op)
        phases["walk"] = time.perf_counter() - start
        for k, v in phases.items():
            best[k] = min(best.get(k, math.inf), v)
    return best


def measure_triton(text: str, repeat: int, flush: CacheFlush | None = None) -> float | None:
    """The best of ``repeat`` runs of Triton's parse + verify + print of ``text`` (each in a
    new context, made outside the time; with ``flush``, the caches evicted before each run);
    None where Triton is not installed."""
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
            if flush is not None:
                flush()
            start = time.perf_counter()
            triton_round_trip(ir, str(path), ctx)
            best = min(best, time.perf_counter() - start)
            del ctx
    return best


def slope(xs: list[float], ys: list[float]) -> float:
    """The least-squares slope of log(ys) against log(xs); nan where the xs are all equal."""
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
    ap.add_argument("--caches", choices=["both", "cold", "warm"], default="both",
                    help="cold: the caches evicted before each phase (judged); warm: the "
                         "phases as the pipeline runs them; both (default): cold judged")
    ap.add_argument("--flush-mb", type=int, default=256,
                    help="the buffer written to evict the caches (MB; default 256)")
    ap.add_argument("--out", help="write OUT.json and OUT.md")
    ap.add_argument("--no-triton", dest="triton", action="store_false",
                    help="leave out the reference row of Triton's own parse + verify + print")
    args = ap.parse_args(argv)
    if not 1 <= args.min_lines <= args.max_lines:
        ap.error("need 1 <= --min-lines <= --max-lines")
    sizes, n = [], args.max_lines
    while n >= args.min_lines:
        sizes.insert(0, n)
        n //= 2
    modes = ["cold", "warm"] if args.caches == "both" else [args.caches]
    judged_mode = modes[0]
    flush = CacheFlush(args.flush_mb) if "cold" in modes else None
    report: dict = {"sizes": sizes, "passes": PASSES, "judged": judged_mode, "shapes": {}}
    md = ["| shape | caches | phase | " + " | ".join(f"{s} lines" for s in sizes)
          + " | slope (last two) | slope (all, judged) |",
          "|---|---|---|" + "---|" * len(sizes) + "---|---|"]
    worst = {mode: 0.0 for mode in modes}
    measure(SHAPES["masks"](sizes[0]), 1)  # (a warm-up: the first run's lazy imports)
    for shape in args.shape or sorted(SHAPES):
        rows: dict[str, dict[str, list[float]]] = {mode: {} for mode in modes}
        lines = []
        for size in sizes:
            text = SHAPES[shape](size)
            lines.append(text.count("\n") + 1)
            for mode in modes:  # (the two protocols interleaved, size by size)
                cache_flush = flush if mode == "cold" else None
                for phase, secs in measure(text, args.repeat, cache_flush).items():
                    rows[mode].setdefault(phase, []).append(secs)
                reference = measure_triton(text, args.repeat, cache_flush) if args.triton else None
                if reference is not None:
                    rows[mode].setdefault("triton", []).append(reference)
            print(f"{shape} {lines[-1]} lines: "
                  + ", ".join(f"{mode} {rows[mode]['total'][-1]:.2f} s" for mode in modes), flush=True)
        report["shapes"][shape] = {"lines": lines, "caches": {}}
        for mode in modes:
            phases = report["shapes"][shape]["caches"][mode] = {}
            for phase, times in rows[mode].items():
                last = slope(lines[-2:], times[-2:]) if len(times) > 1 else float("nan")
                every = slope(lines, times)
                reference = phase in ("triton", "walk")
                big = times[-1] >= 0.02 and not reference
                if big:
                    worst[mode] = max(worst[mode], every)
                phases[phase] = {"seconds": times, "slope_last_two": last, "slope_all": every,
                                 "judged": big and mode == judged_mode}
                cells = " | ".join(f"{t * 1000:.0f} ms" for t in times)
                note = (" (reference)" if reference else " (under 20 ms: not judged)" if not big
                        else "" if mode == judged_mode else " (not judged)")
                md.append(f"| {shape} | {mode} | {phase} | {cells} | {last:.2f} | {every:.2f}{note} |")
    report["worst_slope"] = worst[judged_mode]
    report["worst_slope_per_caches"] = worst
    summary = [f"worst judged slope ({judged_mode} caches): {worst[judged_mode]:.2f}"] + [
        f"worst slope with {mode} caches (not judged): {worst[mode]:.2f}" for mode in modes[1:]]
    print("\n".join(md))
    print("\n".join(summary))
    if args.out:
        Path(args.out + ".json").write_text(json.dumps(report, indent=1) + "\n")
        Path(args.out + ".md").write_text(
            "Command: `python -m bench.scaling"
            + (f" --max-lines {args.max_lines}" if args.max_lines != 60000 else "")
            + (f" --min-lines {args.min_lines}" if args.min_lines != 3750 else "")
            + "".join(f" --shape {s}" for s in args.shape or ())
            + (f" --repeat {args.repeat}" if args.repeat != 2 else "")
            + (f" --caches {args.caches}" if args.caches != "both" else "")
            + (f" --flush-mb {args.flush_mb}" if args.flush_mb != 256 else "")
            + ("" if args.triton else " --no-triton")
            + f" --out {args.out}`\n\n" + "\n".join(md) + "\n\n" + "\n".join(summary) + "\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
