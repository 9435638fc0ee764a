"""One large module over several cores: its functions read, rewritten and printed in worker
processes, a group of functions each, and the printed groups put back together.

ttopt's passes (and xDSL's ``cse``/``canonicalize``/``dce``) work function by function, and
Triton's modules print each function as its own block of lines::

    #blocked = ...                        (prologue: attribute and location aliases)
    module attributes {...} {             (the module's header line)
      tt.func public @k0(...) {           (a function: from its `  tt.func` line ...
        ...
      } loc(#loc12)                       ... to its `  }` line)
      tt.func public @k1(...) { ... }
    } loc(#loc)                           (the module's last line)
    #loc1 = loc(...)                      (epilogue)

A chunk is the prologue, the header, blank lines (so that every line keeps its number: errors
name the input's lines), the chunk's functions, the last line and the epilogue: a module of
its own.  Each worker runs the pipeline on its chunk exactly as on a file; the writer copies
what no pass changed (:mod:`ttopt.ir.source`), so a chunk's output is its prologue, header,
functions, last line and epilogue again, and the functions' lines are taken from it.

Only where this cannot change the result: a module of that shape and at least
:data:`MIN_BYTES`, no ``tt.call`` (a function may call one in another chunk), function names
unique, passes that work per function (:func:`function_local`).  Any chunk's error: the whole
module is run again in one process, which reports what a plain run reports.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

MIN_BYTES = 2_000_000
"""Smaller modules are read in one process (starting workers costs more than it saves)."""

CHUNK_BYTES = 4_000_000
"""A chunk holds about this much text at most (more chunks than workers for a large module):
each chunk runs in a fresh worker process that exits after it, so no process ever holds more
than one chunk's IR, and the memory of a run is about that of ``jobs`` chunks."""

_HEADER = re.compile(r"module(?: @[\w$.-]+)?(?: attributes \{.*\})? \{")
_FUNC_START = re.compile(r"  tt\.func (?:public |private |nested )?@([\w$.-]+)")
_FUNC_END = re.compile(r"  \}(?: loc\(.*\))?$")
_MODULE_END = re.compile(r"\}(?: loc\(.*\))?$")


@dataclass
class Shape:
    """Where a module text's parts are, by line index."""

    lines: list[str]
    header: int  # the `module ... {` line
    end: int  # the module's last line
    functions: list[tuple[int, int, str]]  # (first line, last line, name)


def shape_of(text: str) -> Shape | None:
    """The parts of ``text`` if it has the shape this module splits (see the docstring)."""
    parts = shape_of_lines(text)
    if parts is None:
        return None
    header, end, lines = parts
    if not _HEADER.fullmatch(lines[header]) or not _MODULE_END.fullmatch(lines[end]):
        return None
    if any(ln and not ln.startswith("#") for ln in lines[:header]):
        return None  # (a comment or anything but aliases before the module)
    functions = []
    i = header + 1
    while i < end:
        m = _FUNC_START.match(lines[i])
        if m is None:
            return None
        j = i
        while j < end and not _FUNC_END.fullmatch(lines[j]):
            j += 1
        if j == end:
            return None
        functions.append((i, j, m.group(1)))
        i = j + 1
    if len(functions) < 2 or len({name for *_, name in functions}) != len(functions):
        return None
    return Shape(lines, header, end, functions)


def function_local(passes) -> bool:
    """Are all these passes (instances) ones that rewrite each function on its own?"""
    from .passes import PASSES, XDSL_PASSES

    known = {cls for cls in PASSES.values()}
    for name, factory in XDSL_PASSES.items():
        try:
            known.add(factory())
        except Exception:  # noqa: BLE001
            pass
    return all(type(p) in known for p in passes)


def default_jobs() -> int:
    """Worker processes for a large module: ``TTOPT_JOBS``, else one per core; 1 inside a
    daemonic process (a batch worker of ``ttopt-opt --jobs N``: it may not have children, and
    its siblings use the other cores)."""
    import multiprocessing

    if multiprocessing.current_process().daemon:
        return 1
    env = os.environ.get("TTOPT_JOBS")
    if env and env.isdigit():
        return max(1, int(env))
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover
        return max(1, os.cpu_count() or 1)


def chunks(shape: Shape, parts: int) -> list[tuple[str, list[int]]]:
    """The module split into about ``parts`` chunk texts of similar size, each with the indices
    of its functions."""
    lines = shape.lines
    sizes = [sum(len(lines[k]) + 1 for k in range(a, b + 1)) for a, b, _ in shape.functions]
    target = sum(sizes) / parts
    groups: list[list[int]] = [[]]
    acc = 0.0
    for i, size in enumerate(sizes):
        if groups[-1] and acc + size > target and len(groups) < parts:
            groups.append([])
            acc = 0.0
        groups[-1].append(i)
        acc += size
    head = "\n".join(lines[: shape.header + 1])
    tail = "\n".join(lines[shape.end :])
    out = []
    for group in groups:
        first = shape.functions[group[0]][0]
        body = "\n".join(lines[shape.functions[group[0]][0] : shape.functions[group[-1]][1] + 1])
        pad = "\n" * (first - shape.header)
        out.append((head + pad + body + "\n" + tail, group))
    return out


def functions_of(printed: str) -> str | None:
    """The lines between a printed chunk's module header and its last line."""
    shape = shape_of_lines(printed)
    if shape is None:
        return None
    header, end, lines = shape
    return "\n".join(lines[header + 1 : end])


def shape_of_lines(text: str):
    """``(header, end, lines)``: the text's lines, the index of its first ``module`` line and
    of its last line that is neither blank nor an alias (None if there is no such module)."""
    lines = text.split("\n")
    header = next((i for i, ln in enumerate(lines) if ln.startswith("module")), None)
    if header is None:
        return None
    end = len(lines) - 1
    while end > header and (not lines[end] or lines[end].startswith("#")):
        end -= 1
    if end <= header:
        return None
    return header, end, lines


# ------------------------------------------------------------------ the workers
_JOB: dict = {}


def _work(args):
    text, filename = args
    from .errors import TTOptError
    from .ir.reader import triton_release
    from .pipeline import run_pipeline

    job = _JOB
    try:
        found = triton_release(text, filename, job["triton_version"])
        if (found.release, found.low, found.high) != job["found"]:
            # (the signs of the module's release are in another chunk: read it whole)
            return ("error", "the chunk reads as another Triton release")
        result = run_pipeline(text, job["passes"], filename, verify=job["verify"],
                              verify_each=job["verify_each"], triton_version=job["triton_version"],
                              jobs=1)
    except TTOptError as e:
        return ("error", str(e))
    return ("ok", result.text, result.stats, result.timings)


def run(text: str, shape: Shape, passes, filename: str, verify: bool, verify_each: bool,
        triton_version, jobs: int):
    """The pipeline over the module's chunks in ``jobs`` worker processes: the
    ``OptimizeResult``, or None if a chunk failed (the caller runs the module in one process)."""
    import multiprocessing

    from .passes.base import PassStats
    from .pipeline import OptimizeResult

    from .errors import TTOptError
    from .ir.reader import triton_release

    try:
        found = triton_release(text, filename, triton_version)
    except (TTOptError, ValueError):
        return None  # (the plain run reports it)
    pieces = chunks(shape, max(jobs * 2, -(-len(text) // CHUNK_BYTES)))
    shape.lines = []  # (the chunks hold the text now: no copy of it line by line in memory)
    _JOB.update(found=(found.release, found.low, found.high), passes=passes, verify=verify, verify_each=verify_each,
                triton_version=triton_version)
    if multiprocessing.current_process().daemon or "fork" not in multiprocessing.get_all_start_methods():
        return None
    ctx = multiprocessing.get_context("fork")
    try:
        with ctx.Pool(min(jobs, len(pieces)), maxtasksperchild=1) as pool:
            results = pool.map(_work, [(chunk, filename) for chunk, _ in pieces], chunksize=1)
    except (OSError, AssertionError):  # (no processes to be had: one process does it)
        return None
    if any(r[0] != "ok" for r in results):
        return None
    bodies = []
    stats: dict[str, PassStats] = {}
    order: list[str] = []
    timings: dict[str, float] = {}
    for _tag, printed, chunk_stats, chunk_times in results:
        body = functions_of(printed)
        if body is None:
            return None
        bodies.append(body)
        for s in chunk_stats:
            if s.name not in stats:
                stats[s.name] = PassStats(s.name)
                order.append(s.name)
            stats[s.name].per_function.update(s.per_function)
        for stage, seconds in chunk_times:
            timings[stage] = timings.get(stage, 0.0) + seconds
    # the module's own lines come from the first chunk's output (its prologue, header, last
    # line and epilogue are the same in every chunk)
    header, end, lines = shape_of_lines(results[0][1])
    outside = lines[: header + 1], lines[end:]
    for _tag, printed, *_ in results[1:]:
        h, e, other = shape_of_lines(printed)
        if (other[: h + 1], other[e:]) != outside:
            return None  # (a chunk printed other aliases: a location a pass made, say)
    out = "\n".join(lines[: header + 1] + ["\n".join(bodies)] + lines[end:])
    return OptimizeResult(out, [stats[n] for n in order],
                          [(f"{stage} (summed over {len(pieces)} chunks)", t) for stage, t in timings.items()])


__all__ = ["MIN_BYTES", "Shape", "chunks", "default_jobs", "function_local", "run", "shape_of"]
