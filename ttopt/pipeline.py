"""Parse, run passes, print: the one path the CLI, the benchmark and integrations share.

Passes run through xDSL's own :class:`xdsl.passes.PassPipeline`; statistics come back through
the sink of :mod:`ttopt.passes.base` (``OptimizeResult.stats``), wall times per stage in
``OptimizeResult.timings``.
"""

from __future__ import annotations

import gc
import os
import queue
import re
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, TypeVar

from xdsl.passes import ModulePass as XDSLModulePass
from xdsl.passes import PassPipeline
from xdsl.utils.arg_spec import parse_pipeline as _parse_arg_specs
from xdsl.utils.exceptions import ArgSpecParseError

from .errors import TTOptError, TTOptInternalError
from . import parallel
from .ir import source
from .ir.reader import TritonModule, read_module
from .ir.verify import verify_module
from .ir.writer import write_module
from .passes import PASSES, PIPELINE_ALIASES, PassStats, available_passes, collect_stats, expand_aliases
from .passes.base import ModulePass, default_context

T = TypeVar("T")

# xDSL's parser, printer and walkers recurse once (or a few times) per nesting level; Triton
# reads `scf.if` nested 2,000 deep.  ttopt runs on a thread with a large stack and a high
# recursion limit, so depth is limited by these two numbers, not by Python's defaults.
STACK_BYTES = 512 * 1024 * 1024
RECURSION_LIMIT = 200_000

PassCallback = Callable[[XDSLModulePass | None, TritonModule, XDSLModulePass | None], None]
"""Called before the first pass, between passes and after the last one, as xDSL's
``PassPipeline`` callback: ``(pass just run | None, module, pass about to run | None)``; the
module is ttopt's :class:`~ttopt.ir.reader.TritonModule` (``.op`` is the ``ModuleOp``), so that
it can be printed with its aliases and locations (:func:`ttopt.ir.writer.write_module`)."""


@dataclass
class OptimizeResult:
    text: str
    stats: list[PassStats] = field(default_factory=list)
    timings: list[tuple[str, float]] = field(default_factory=list)
    """Wall time in seconds per stage, in order: ``read``, each pass (by name), ``print``."""

    @property
    def changed(self) -> bool:
        return any(s.total for s in self.stats)


def _legacy_adapter(cls) -> type[ModulePass]:
    """An object with ``name`` and ``run(module) -> PassStats`` that is not an xDSL pass
    (a pass registered in ``PASSES`` the old way) as an xDSL pass."""

    @dataclass(frozen=True)
    class Legacy(ModulePass):
        name: ClassVar[str] = getattr(cls, "name", "") or cls.__name__
        summary: ClassVar[str] = getattr(cls, "summary", "")

        def run(self, module):
            return cls().run(module)

    Legacy.__name__ = Legacy.__qualname__ = f"Legacy{cls.__name__}"
    return Legacy


def _as_xdsl_pass_class(cls) -> type[XDSLModulePass]:
    if isinstance(cls, type) and issubclass(cls, XDSLModulePass):
        return cls
    return _legacy_adapter(cls)


def resolve_passes(passes: Sequence[str | XDSLModulePass]) -> list[XDSLModulePass]:
    """ttopt pass names (``ttopt.PASSES``), pipeline aliases (``exact``, ``all``: see
    :func:`ttopt.passes.alias_passes`) and xDSL pass instances -> pass instances.

    An unknown name is a :class:`TTOptError`; names take no options (use
    :func:`parse_pipeline` for ``name{opt=value}`` and for xDSL's passes)."""
    passes = expand_aliases(passes)
    unknown = [p for p in passes if not isinstance(p, XDSLModulePass) and p not in PASSES]
    if unknown:
        name = unknown[0]
        if isinstance(name, str) and name in available_passes():
            raise TTOptError(
                f"'{name}' is not one of ttopt's passes ({', '.join(PASSES)}): run it in a "
                f"pipeline (ttopt-opt -p '{name}', ttopt.parse_pipeline('{name}'))", "ttopt-opt"
            )
        raise TTOptError(
            f"unknown pass '{name}' (known: {', '.join(PASSES)}; aliases: {', '.join(PIPELINE_ALIASES)})",
            "ttopt-opt",
        )
    return [p if isinstance(p, XDSLModulePass) else _as_xdsl_pass_class(PASSES[p])() for p in passes]


def parse_pipeline(spec: str) -> tuple[XDSLModulePass, ...]:
    """An xDSL/MLIR pass pipeline, ``'redundant-load{respect-hints=true},cse'``, -> pass
    instances, through xDSL's :meth:`PassPipeline.parse_spec` over
    :func:`ttopt.passes.available_passes` (ttopt's passes and the xDSL ones ttopt exposes).
    A pipeline alias (``exact``, ``all``) stands for its passes (``'exact,cse'``), with no
    options.

    A syntax error, an unknown pass or a bad option is a one-line :class:`TTOptError`."""
    try:
        specs = list(_parse_arg_specs(spec))
    except ArgSpecParseError as e:  # a BaseException in xDSL
        raise TTOptError(_spec_error(str(e), spec), "ttopt-opt") from None
    aliased = [s for s in specs if s.name in PIPELINE_ALIASES]
    for s in aliased:
        if s.parameters:
            raise TTOptError(
                f"pipeline alias '{s.name}' in pipeline '{spec}' takes no options (it stands "
                f"for: {', '.join(expand_aliases([s.name]))})", "ttopt-opt"
            )
    if aliased:
        specs = [t for s in specs for t in (
            [type(s)(name=n, parameters={}) for n in expand_aliases([s.name])]
            if s.name in PIPELINE_ALIASES else [s]
        )]
    passes = {name: factory for name, factory in available_passes().items()}
    unknown = [s.name for s in specs if s.name not in passes]
    if unknown:
        raise TTOptError(
            f"unknown pass '{unknown[0]}' in pipeline '{spec}' (known: {', '.join(passes)})",
            "ttopt-opt",
        )
    factories = {name: (lambda f=f: _as_xdsl_pass_class(f())) for name, f in passes.items()}
    try:
        if aliased:  # what parse_spec does once it has parsed the text, on the expanded specs
            return tuple(factories[s.name]().from_pass_spec(s) for s in specs)
        return PassPipeline.parse_spec(factories, spec).passes
    except (ValueError, TypeError):
        pass
    for s in specs:  # find the pass whose options were refused, for the message
        try:
            factories[s.name]().from_pass_spec(s)
        except (ValueError, TypeError) as e:
            known = _option_names(factories[s.name]())
            raise TTOptError(
                f"bad options for pass '{s.name}' in pipeline '{spec}': {e} "
                f"(options: {', '.join(known) if known else 'none'})",
                "ttopt-opt",
            ) from None
    raise TTOptError(f"invalid pass pipeline '{spec}'", "ttopt-opt")  # pragma: no cover


def _option_names(cls) -> list[str]:
    import dataclasses

    try:
        return [f.name.replace("_", "-") for f in dataclasses.fields(cls) if f.init]
    except TypeError:
        return []


def _spec_error(text: str, spec: str) -> str:
    """xDSL's multi-line pipeline parse error -> one line with the column."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    col = None
    for ln in lines:
        m = re.search(r"pass-pipeline:\d+:(\d+)", ln)
        if m:
            col = int(m.group(1))
    msg = lines[-1].strip() if lines else "syntax error"
    where = f" at column {col}" if col is not None else ""
    return f"invalid pass pipeline '{spec}'{where}: {msg}"


# ------------------------------------------------------------------ the deep-stack thread
_deep_lock = threading.Lock()
_deep_users = 0
_saved_limit = 0


class _Worker:
    """The deep-stack thread, kept between calls: starting a thread with a 512 MB stack
    costs about 0.4 ms of CPU, 3% of a median corpus kernel's run; handing a call to a
    waiting thread costs a tenth of that.  One call at a time: a call made while it is busy
    gets a thread of its own (as every call did before)."""

    def __init__(self) -> None:
        self.busy = threading.Lock()
        self.inbox: queue.SimpleQueue = queue.SimpleQueue()
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        self.thread = _deep_thread(self.loop, name="ttopt-worker")

    def loop(self) -> None:
        _tls.deep = True
        while True:
            job = self.inbox.get()
            if job is None:
                return
            fn, args, box, done = job
            try:
                _call_into(box, fn, args)
            finally:
                done.release()
                # (released here, not by the caller: a caller interrupted while waiting
                # leaves the job running, and later calls get threads of their own until
                # it ends; nothing of the job is kept alive while the thread waits)
                job = fn = args = box = done = None
                self.busy.release()


def _call_into(box: dict, fn: Callable, args: tuple) -> None:
    """``fn(*args)`` on a deep-stack thread: its value, or its exception (re-raised in the
    caller's thread), into ``box``."""
    try:
        box["value"] = fn(*args)
    except BaseException as e:
        box["error"] = e


_worker = _Worker()


def _forget_worker_in_child() -> None:
    global _worker, _deep_lock, _deep_users
    _worker = _Worker()  # (a forked child has no copy of the parent's threads)
    _deep_lock = threading.Lock()
    _deep_users = 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_worker_in_child)


def _deep_thread(target: Callable[[], None], name: str) -> threading.Thread:
    """A started daemon thread with the large stack (``threading.stack_size`` is
    process-wide: set only around ``start``; the caller holds ``_deep_lock``)."""
    old_stack = threading.stack_size()
    threading.stack_size(STACK_BYTES)
    try:
        worker = threading.Thread(target=target, name=name, daemon=True)
        worker.start()
    finally:
        threading.stack_size(old_stack)
    return worker


def run_deep(fn: Callable[..., T], *args) -> T:
    """``fn(*args)`` on a thread with a large stack and recursion limit (the kept worker
    thread, or a thread of its own when that one is busy); its exception, if any, is
    re-raised here.  The recursion limit is raised only while such calls run (it is
    process-wide), the cyclic garbage collector paused, and a call from such a thread runs
    directly."""
    global _deep_users, _saved_limit
    if getattr(_tls, "deep", False):
        return fn(*args)
    box: dict = {}
    worker = _worker
    own = worker.busy.acquire(blocking=False)
    thread = None
    with _deep_lock:
        if _deep_users == 0:
            _saved_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_saved_limit, RECURSION_LIMIT))
            _pause_gc()
        try:
            if own:
                if worker.thread is None or not worker.thread.is_alive():
                    worker.start()
            else:
                def target():
                    _tls.deep = True
                    _call_into(box, fn, args)

                thread = _deep_thread(target, name="ttopt")
        except BaseException:
            if own:
                worker.busy.release()
            if _deep_users == 0:
                sys.setrecursionlimit(_saved_limit)
                _resume_gc()
            raise
        _deep_users += 1
    try:
        if own:
            # (a held lock the worker releases when done: half the cost of an Event, whose
            # wait and set go through a Condition in Python)
            done = threading.Lock()
            done.acquire()
            worker.inbox.put((fn, args, box, done))  # (the worker releases `busy`)
            done.acquire()
        else:
            thread.join()
    finally:
        with _deep_lock:
            _deep_users -= 1
            if _deep_users == 0:
                sys.setrecursionlimit(_saved_limit)
                _resume_gc()
    if "error" in box:
        raise box.pop("error")
    return box["value"]


_tls = threading.local()
_gc_was_enabled = False


def _pause_gc() -> None:
    """The cyclic garbage collector is off while ttopt works: reading builds hundreds of
    thousands of long-lived objects, and each collection walks them all (about 15% of the
    time of a large read) to find almost nothing; what a run leaves behind is collected
    once it is switched back on."""
    global _gc_was_enabled
    _gc_was_enabled = gc.isenabled()
    gc.disable()


def _resume_gc() -> None:
    if _gc_was_enabled:
        gc.enable()


# ------------------------------------------------------------------ the pipeline
def _run_pipeline(
    text: str,
    passes: Sequence[str | XDSLModulePass],
    filename: str,
    callback: PassCallback | None,
    verify: bool = True,
    verify_each: bool = False,
    triton_version=None,
) -> OptimizeResult:
    pipeline = resolve_passes(passes)
    timings: list[tuple[str, float]] = []
    start = time.perf_counter()
    try:
        module = read_module(text, filename, verify=verify, triton_version=triton_version)
    except RecursionError:
        raise TTOptError("input nested too deeply", filename) from None
    timings.append(("read", time.perf_counter() - start))

    state = {"running": None, "since": 0.0}

    def between(prev, _op, nxt) -> None:
        now = time.perf_counter()
        if prev is not None:
            timings.append((prev.name, now - state["since"]))
            if verify_each:  # invalid IR after a pass is the pass's bug, not the input's
                try:
                    verify_module(module)
                except TTOptError as e:
                    raise TTOptInternalError(f"pass '{prev.name}' (its output does not verify)", e, filename) from e
        state["running"] = None
        if callback is not None:
            try:
                callback(prev, module, nxt)
            except TTOptError:
                raise
            except Exception as e:  # a bug in the caller's callback: still never a traceback
                raise TTOptInternalError("pass callback", e, filename) from e
        state["running"] = nxt
        state["since"] = time.perf_counter()

    with collect_stats() as stats:
        try:
            PassPipeline(tuple(pipeline), between).apply(default_context(), module.op)
        except TTOptError:
            raise
        except Exception as e:  # a bug in a pass: report it, never a traceback
            running = state["running"]
            stage = f"pass '{running.name}'" if running is not None else "pass pipeline"
            raise TTOptInternalError(stage, e, filename) from e
    start = time.perf_counter()
    try:
        text_out = write_module(module)
    except Exception as e:  # a bug in a printer: report it, never a traceback
        raise TTOptInternalError("printing", e, filename) from e
    timings.append(("print", time.perf_counter() - start))
    return OptimizeResult(text_out, list(stats), timings)


def run_pipeline(
    text: str,
    passes: Sequence[str | XDSLModulePass],
    filename: str = "<input>",
    *,
    callback: PassCallback | None = None,
    verify: bool = True,
    verify_each: bool = False,
    triton_version: str | None = None,
    jobs: int | None = None,
) -> OptimizeResult:
    """Parse ``text``, apply ``passes`` in order, print.

    ``jobs``: worker processes for a large module (:mod:`ttopt.parallel`: its functions in
    groups, one process each, where that cannot change the result); None: one per core
    (``TTOPT_JOBS`` sets the number; with one, a module of several chunks still goes through
    one worker, a chunk at a time, to bound memory), 1: this process only.

    ``triton_version`` (``"3.5"``): the Triton release that wrote ``text``, where the text
    itself cannot tell (:mod:`ttopt.dialects.versions`); the output is in that release's
    syntax.  By default the release is read from the text (Triton 3.6 where nothing says
    otherwise).

    ``verify``: check the input as Triton's verifier does (types, shapes, terminators,
    dominance...) before any pass; ``verify_each``: check the module again after every pass (a
    failure there is an internal error naming the pass).

    ``passes``: names of ttopt's passes (``ttopt.PASSES``) and/or xDSL pass instances, e.g.
    from :func:`parse_pipeline` (``ttopt.parse_pipeline("redundant-load,cse")``).
    ``callback``: see :data:`PassCallback`.

    Raises :class:`TTOptError` for bad input and :class:`TTOptInternalError` (a subclass)
    for a bug inside ttopt; never anything else for any ``text``."""
    if jobs != 1 and callback is None and len(text) >= parallel.MIN_BYTES and source.KEEP_TEXT:
        n = jobs or parallel.default_jobs()
        # one worker too, for a module of several chunks: each chunk in a process of its own
        # keeps the memory of a run to about one chunk's
        if (n > 1 or len(text) >= 2 * parallel.CHUNK_BYTES) and "tt.call" not in text:
            pipeline = resolve_passes(passes)
            shape = parallel.shape_of(text) if parallel.function_local(pipeline) else None
            if shape is not None:
                result = parallel.run(text, shape, pipeline, filename, verify, verify_each,
                                      triton_version, n)
                if result is not None:
                    return result
    return run_deep(_run_pipeline, text, passes, filename, callback, verify, verify_each,
                    triton_version)


def optimize(text: str, passes: Sequence[str | XDSLModulePass], filename: str = "<input>", *,
             triton_version: str | None = None) -> str:
    """Optimize Triton IR text with the named passes (none: a round trip), written back in
    the syntax of the Triton release that wrote it (``triton_version``: see
    :func:`run_pipeline`)."""
    return run_pipeline(text, passes, filename, triton_version=triton_version).text


# ------------------------------------------------------------------ --split-input-file
SPLIT_MARKER = "// -----"


def split_input_file(text: str) -> list[tuple[int, str]]:
    """MLIR's ``--split-input-file``: the chunks of ``text`` between lines that are the
    marker ``// -----`` (blanks around it allowed), as ``(first line, chunk)``.  Each chunk is
    preceded by as many newlines as there are lines before it, so that line numbers in
    errors are those of the whole file (the marker lines themselves become blank)."""
    lines = text.split("\n")
    chunks: list[tuple[int, str]] = []
    start = 0
    for i, line in enumerate(lines):
        if line.strip() == SPLIT_MARKER:
            chunks.append((start + 1, "\n" * start + "\n".join(lines[start:i]) + "\n"))
            start = i + 1
    rest = "\n".join(lines[start:])
    chunks.append((start + 1, "\n" * start + rest))
    return chunks
