"""Parse, run passes, print: the one path the CLI, the benchmark and integrations share."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from .errors import TTOptError, TTOptInternalError
from .ir.reader import read_module
from .ir.writer import write_module
from .passes import PASSES, PassStats

T = TypeVar("T")

# xDSL's parser, printer and walkers recurse once (or a few times) per nesting level; Triton
# reads `scf.if` nested 2,000 deep.  ttopt runs on a thread with a large stack and a high
# recursion limit, so depth is limited by these two numbers, not by Python's defaults.
STACK_BYTES = 512 * 1024 * 1024
RECURSION_LIMIT = 200_000


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


_deep_lock = threading.Lock()
_deep_users = 0
_saved_limit = 0


def run_deep(fn: Callable[..., T], *args) -> T:
    """``fn(*args)`` on a thread with a large stack and recursion limit; its exception, if
    any, is re-raised here.  The recursion limit is raised only while such calls run (it is
    process-wide), and a call from such a thread runs directly."""
    global _deep_users, _saved_limit
    if getattr(_tls, "deep", False):
        return fn(*args)
    box: dict = {}

    def target():
        _tls.deep = True
        try:
            box["value"] = fn(*args)
        except BaseException as e:  # re-raised in the caller's thread
            box["error"] = e

    with _deep_lock:  # threading.stack_size is process-wide: set it only around start()
        if _deep_users == 0:
            _saved_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_saved_limit, RECURSION_LIMIT))
        old_stack = threading.stack_size()
        threading.stack_size(STACK_BYTES)
        try:
            worker = threading.Thread(target=target, name="ttopt", daemon=True)
            worker.start()
        except BaseException:
            if _deep_users == 0:
                sys.setrecursionlimit(_saved_limit)
            raise
        finally:
            threading.stack_size(old_stack)
        _deep_users += 1
    try:
        worker.join()
    finally:
        with _deep_lock:
            _deep_users -= 1
            if _deep_users == 0:
                sys.setrecursionlimit(_saved_limit)
    if "error" in box:
        raise box.pop("error")
    return box["value"]


_tls = threading.local()


def _run_pipeline(text: str, passes: Sequence[str], filename: str) -> OptimizeResult:
    pipeline = resolve_passes(passes)
    try:
        module = read_module(text, filename)
    except RecursionError:
        raise TTOptError("input nested too deeply", filename) from None
    stats = []
    for p in pipeline:
        try:
            stats.append(p.run(module.op))
        except TTOptError:
            raise
        except Exception as e:  # a bug in a pass: report it, never a traceback
            raise TTOptInternalError(f"pass '{p.name}'", e, filename) from e
    try:
        text_out = write_module(module)
    except Exception as e:  # a bug in a printer: report it, never a traceback
        raise TTOptInternalError("printing", e, filename) from e
    return OptimizeResult(text_out, stats)


def run_pipeline(text: str, passes: Sequence[str], filename: str = "<input>") -> OptimizeResult:
    """Parse ``text``, apply ``passes`` in order, print.

    Raises :class:`TTOptError` for bad input and :class:`TTOptInternalError` (a subclass)
    for a bug inside ttopt; never anything else for any ``text``."""
    return run_deep(_run_pipeline, text, passes, filename)


def optimize(text: str, passes: Sequence[str], filename: str = "<input>") -> str:
    """Optimize Triton IR text with the named passes (none: a round trip)."""
    return run_pipeline(text, passes, filename).text
