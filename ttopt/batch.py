"""Many files in one process: ``ttopt-opt`` over files and directories, and the Python API
behind it.

    ttopt-opt -p redundant-load,div-chain dump/ more.ttgir --output-dir override/ --jobs 4
    ttopt-opt -p redundant-load kernels/ --in-place

Inputs and outputs (:func:`plan`):

* a file argument ``a/k.ttir`` is written to ``OUT/k.ttir``;
* a directory argument ``D`` stands for every ``.ttir`` and ``.ttgir`` file under it (recursively,
  sorted; names starting with ``.`` and symlinked directories are skipped), each written to
  ``OUT/<its path relative to D>``: a ``TRITON_KERNEL_DUMP`` folder ``D/<H>/<kernel>.ttir``
  becomes the override folder ``OUT/<H>/<kernel>.ttir`` that ``TRITON_OVERRIDE_DIR`` expects;
* ``--in-place`` writes each output over its input instead (atomically, as ``-o``);
* two different inputs that would be written to one path are a usage error before anything
  runs; the same file named twice is processed once; an output directory inside an input
  directory is not read as input.

Each file is processed as ``ttopt-opt FILE -o OUT/...`` would (:func:`process_text` is that
path, shared with the single-file command): ``--split-input-file``, ``--verify-diagnostics``,
``--validate`` and the rest apply per file; an error is reported as the single-file command
reports it (``FILE:LINE:COL: error: ...``), nothing is written for that file, and the other
files still run.  ``--changed-only`` writes only the outputs of files that a pass rewrote
(:attr:`Outcome.changed`).

``--jobs N``: one pool of N worker processes (forked once, where the platform allows it, so
ttopt is imported once), files handed out one at a time; what a file prints (diagnostics,
``--print-between-passes``) is collected and printed by the parent in input order, so the
output of ``--jobs N`` is byte for byte that of ``--jobs 1``.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from .errors import TTOptError, TTOptInternalError

EXIT_OK, EXIT_INPUT_ERROR, EXIT_USAGE_ERROR, EXIT_INTERNAL_ERROR = 0, 1, 2, 3

IR_SUFFIXES = (".ttir", ".ttgir")
"""What a directory argument contributes (Triton's dump folders also hold .llir, .ptx,
.cubin, .sass and .json files: those are not MLIR and are left out)."""

ENCODING, ERRORS = "utf-8", "surrogateescape"


# ------------------------------------------------------------------ what to run, how
@dataclass(frozen=True)
class Config:
    """Everything that decides what one file's run does (picklable: workers get it)."""

    passes: tuple[str, ...] = ()  # --pass names
    pipeline: str | None = None  # -p/--passes spec (instead of passes)
    load_passes: tuple[str, ...] = ()
    split_input_file: bool = False
    verify_diagnostics: bool = False
    verify: bool = True
    verify_each: bool = False
    validate: int | None = None
    validate_ulps: int | None = None
    print_between_passes: bool = False
    print_after_change: bool = False
    debug: bool = False
    changed_only: bool = False
    triton_version: str | None = None  # --triton-version

    def resolve(self) -> list:
        """The pass instances to run (loads --load-pass files first); TTOptError: a usage
        error."""
        from .pipeline import parse_pipeline, resolve_passes

        load_pass_files(self.load_passes)
        if self.pipeline is not None:
            return list(parse_pipeline(self.pipeline))
        resolve_passes(list(self.passes))  # an unknown name: an error before reading anything
        return list(self.passes)


_LOADED: set[str] = set()


def load_pass_files(paths: Iterable[str]) -> None:
    """``--load-pass``: each file once per process (a forked worker has its parent's)."""
    from .passes import load_pass_file

    for path in paths:
        key = os.path.abspath(path)
        if key not in _LOADED:
            load_pass_file(path)
            _LOADED.add(key)


@dataclass
class Outcome:
    """What processing one input text came to."""

    status: int = EXIT_OK  # EXIT_OK, EXIT_INPUT_ERROR or EXIT_INTERNAL_ERROR
    message: str = ""  # the error lines (status != 0), without the final newline
    text: str | None = None  # what to write (status 0)
    stats: list = field(default_factory=list)  # PassStats, the chunks' summed
    timings: list = field(default_factory=list)  # per chunk: [(stage, seconds)]
    changed: bool = False
    """A pass rewrote something: one reported a rewrite (the ``--stats`` counts), or a pass
    that reports no counts (xDSL's ``cse``, a loaded pass) ran and the output differs from the
    input.  (ttopt's output of an unchanged module is equivalent to its input, not always the
    same bytes: location aliases may be spelled differently.)"""


class _Stop(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


def process_text(text: str, name: str, to_run: Sequence, config: Config,
                 err: Callable[[str], None]) -> Outcome:
    """One input through the passes, exactly as ``ttopt-opt FILE`` does it: split into
    chunks, run, check the diagnostics, validate.  ``err`` receives what is printed while it
    runs (a traceback with --debug, --print-between-passes dumps); the outcome says what to
    print and write after."""
    from .pipeline import run_pipeline, split_input_file

    chunks = split_input_file(text) if config.split_input_file else [(1, text)]
    callback = (
        dump_callback(config.print_between_passes, config.print_after_change, err)
        if config.print_between_passes or config.print_after_change else None
    )
    outputs: list[str] = []
    errors: list[TTOptError | None] = []
    chunk_stats: list[list] = []
    chunk_times: list[list[tuple[str, float]]] = []
    for first, chunk in chunks:
        try:
            result = run_pipeline(chunk, to_run, name, callback=callback, verify=config.verify,
                                  triton_version=config.triton_version,
                                  verify_each=config.verify_each)
        except TTOptInternalError as e:
            if config.debug:
                err(e.traceback_text)
            return Outcome(EXIT_INTERNAL_ERROR,
                           str(e) + ("" if config.debug else " (run with --debug for the traceback)"))
        except TTOptError as e:
            outputs.append("")
            errors.append(e)
            continue
        out = result.text
        if first > 1 and out.startswith("\n" * (first - 1)):
            out = out[first - 1 :]  # (the chunk's padding, copied with its prologue)
        outputs.append(out)
        errors.append(None)
        chunk_stats.append(result.stats)
        chunk_times.append(result.timings)
    if config.verify_diagnostics:
        from .cli import check_diagnostics

        problems = check_diagnostics(name, chunks, errors)
        if problems:
            return Outcome(EXIT_INPUT_ERROR, "\n".join(problems))
    elif any(errors):
        return Outcome(EXIT_INPUT_ERROR, "\n".join(str(e) for e in errors if e is not None))
    if config.validate is not None:
        ulps = config.validate_ulps
        if ulps is None:
            from .passes import REASSOCIATING_PASSES

            names = {p if isinstance(p, str) else p.name for p in to_run}
            ulps = 4 if names & REASSOCIATING_PASSES else 0
        try:
            for (_first, chunk), out in zip(chunks, outputs):
                if out:
                    validate(name, chunk, out, config.validate, ulps)
        except _Stop as stop:
            return Outcome(stop.status, stop.message)
    text_out = "// -----\n".join(outputs)
    stats = merge_stats(chunk_stats) if chunk_stats else []
    changed = any(s.total for s in stats)
    if not changed and text_out != text:
        from .pipeline import resolve_passes

        reported = {s.name for s in stats}
        changed = any(p.name not in reported for p in resolve_passes(to_run))
    return Outcome(EXIT_OK, "", text_out, stats, chunk_times, changed)


def merge_stats(per_chunk: list[list]) -> list:
    """The statistics of several chunks (or files), summed pass by pass (the passes are the
    same in every chunk; a function name repeated in two chunks adds up)."""
    from .passes.base import PassStats

    if len(per_chunk) == 1:
        return per_chunk[0]
    merged: list[PassStats] = []
    for stats in per_chunk:
        if [s.name for s in stats] != [s.name for s in merged]:
            if merged:  # a pass that reported in one chunk only: keep them apart
                merged.extend(PassStats(s.name, s.per_function.copy()) for s in stats)
                continue
            merged = [PassStats(s.name) for s in stats]
        for total, s in zip(merged, stats):
            total.per_function.update(s.per_function)
    return merged


def dump_callback(every: bool, on_change: bool, err: Callable[[str], None]):
    """The pipeline callback for --print-between-passes / --print-after-change: the module
    (as ttopt prints it, aliases and locations kept) to ``err`` after each pass, or after
    each pass that changed the printed module."""
    from .ir.writer import write_module

    last: dict[str, str] = {}

    def callback(prev, module, _next) -> None:
        if prev is None:
            if on_change and not every:
                last["text"] = write_module(module)
            return
        text = write_module(module)
        if every or text != last.get("text"):
            err(f"// -----// IR Dump After {prev} //----- //\n{text}\n")
        last["text"] = text

    return callback


_PUBLIC_FUNC = None


def validate(name: str, before: str, after: str, seeds: int, ulps: int) -> None:
    """``--validate``: each public function of ``after`` against ``before`` on the CPU;
    raises :class:`_Stop` with the exit status and message on the first difference."""
    import re

    from .interp import InterpError, compare
    from .interp.run import as_program

    global _PUBLIC_FUNC
    if _PUBLIC_FUNC is None:
        _PUBLIC_FUNC = re.compile(r"^\s*tt\.func public @([\w$.-]+)", re.MULTILINE)
    try:  # (each side read once, whatever the number of functions)
        before_prog, after_prog = as_program(before, name), as_program(after, name)
    except InterpError as e:
        raise _Stop(EXIT_INPUT_ERROR, f"{name}: error: --validate: cannot run on the CPU: {e}") from None
    for func in _PUBLIC_FUNC.findall(after):
        try:
            res = compare(before_prog, after_prog, func_name=func, seeds=range(seeds), ulps=ulps)
        except InterpError as e:
            raise _Stop(EXIT_INPUT_ERROR, f"{name}: error: --validate: cannot run @{func} on the CPU: {e}") from None
        if not res.ok:
            raise _Stop(EXIT_INTERNAL_ERROR, f"{name}: error: --validate: @{func}: the output computes "
                        f"something else: {res.message}")


# ------------------------------------------------------------------ inputs -> outputs
@dataclass(frozen=True)
class Job:
    source: str  # the input as the user named it (or found under a directory they named)
    target: str  # where its output goes


def _walk(directory: str, skip: set[str]) -> list[str]:
    found = []
    for root, dirs, files in os.walk(directory):  # symlinked directories are not followed
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                         and os.path.realpath(os.path.join(root, d)) not in skip)
        found.extend(os.path.join(root, f) for f in sorted(files)
                     if not f.startswith(".") and f.endswith(IR_SUFFIXES))
    return found


def plan(inputs: Sequence[str], output_dir: str | None, in_place: bool = False
         ) -> tuple[list[Job], list[str]]:
    """The jobs for these inputs (see the module docstring) and the inputs that are errors
    (a missing file, a directory without IR files: ``FILE: error: ...`` lines).  Raises
    :class:`TTOptError` (a usage error) for stdin or for two inputs with one target."""
    if output_dir is not None and in_place:
        raise TTOptError("give --output-dir DIR or --in-place, not both", "ttopt-opt")
    if output_dir is None and not in_place:
        raise TTOptError(f"{len(inputs)} inputs: give --output-dir DIR or --in-place (one input "
                         "alone goes to -o or stdout)", "ttopt-opt")
    skip = {os.path.realpath(output_dir)} if output_dir is not None else set()
    jobs: list[Job] = []
    problems: list[str] = []
    for arg in inputs:
        if arg == "-":
            raise TTOptError("standard input ('-') cannot be one of several inputs", "ttopt-opt")
        if os.path.isdir(arg):
            files = _walk(arg, skip)
            if not files:
                problems.append(f"{arg}: error: no {' or '.join(IR_SUFFIXES)} file in this directory")
            for path in files:
                rel = os.path.relpath(path, arg)
                jobs.append(Job(path, path if in_place else os.path.join(output_dir, rel)))
        else:  # a file (a missing one is reported when it is read, in its turn)
            jobs.append(Job(arg, arg if in_place else os.path.join(output_dir, os.path.basename(arg))))
    unique: list[Job] = []
    by_target: dict[str, Job] = {}
    for job in jobs:
        key = os.path.realpath(job.target)  # one file named two ways is one target
        seen = by_target.get(key)
        if seen is None:
            by_target[key] = job
            unique.append(job)
        elif os.path.realpath(seen.source) != os.path.realpath(job.source):
            raise TTOptError(f"'{seen.source}' and '{job.source}' would both be written to "
                             f"'{job.target}'", "ttopt-opt")
    return unique, problems


# ------------------------------------------------------------------ one file (in a worker)
@dataclass
class FileResult:
    source: str
    target: str
    status: int = EXIT_OK
    stderr: str = ""  # everything the file printed, in order (its error lines included)
    stats: list = field(default_factory=list)
    timings: list = field(default_factory=list)
    changed: bool = False  # a pass rewrote something (Outcome.changed)
    written: bool = False


_WORKER: dict = {}


def _setup(config: Config) -> None:
    """Per process: the passes to run (a --load-pass file is loaded once per process)."""
    if _WORKER.get("config") != config:  # (a forked worker inherits its parent's)
        _WORKER.update(config=config, to_run=config.resolve())


def process_file(job: Job, config: Config) -> FileResult:
    """Read, run, write one file; never raises."""
    from .cli import write_output

    out = FileResult(job.source, job.target)
    buffer = io.StringIO()
    try:
        _setup(config)
        try:
            with open(job.source, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            raise _Stop(EXIT_INPUT_ERROR, f"{job.source}: error: no such file") from None
        except IsADirectoryError:
            raise _Stop(EXIT_INPUT_ERROR, f"{job.source}: error: is a directory, not an IR file") from None
        except OSError as e:
            raise _Stop(EXIT_INPUT_ERROR, f"{job.source}: error: cannot read: {e.strerror}") from None
        text = data.decode(ENCODING, ERRORS)
        outcome = process_text(text, job.source, _WORKER["to_run"], config, buffer.write)
        if outcome.status:
            raise _Stop(outcome.status, outcome.message)
        out.stats, out.timings = outcome.stats, outcome.timings
        out.changed = outcome.changed
        if out.changed or not config.changed_only:
            parent = os.path.dirname(job.target)
            try:
                if parent:
                    os.makedirs(parent, exist_ok=True)
            except OSError as e:
                raise _Stop(EXIT_INPUT_ERROR, f"{job.target}: error: cannot write: {e.strerror}") from None
            try:
                write_output(job.target, outcome.text)
            except TTOptError as e:
                raise _Stop(EXIT_INPUT_ERROR, str(e)) from None
            out.written = True
    except _Stop as stop:
        out.status = stop.status
        buffer.write(stop.message + "\n")
    except BaseException as e:  # a bug outside the pipeline: still this file's error only
        if isinstance(e, KeyboardInterrupt):
            raise
        error = TTOptInternalError("batch mode", e, job.source)
        if config.debug:
            buffer.write(error.traceback_text)
        out.status = EXIT_INTERNAL_ERROR
        buffer.write(str(error) + "\n")
    out.stderr = buffer.getvalue()
    return out


def _init_worker(config: Config) -> None:
    import gc

    gc.disable()  # as the single-file command; each file's garbage is collected after it
    try:
        _setup(config)
    except TTOptError:
        pass  # reported per file by process_file


def _collect_garbage() -> None:
    """ttopt works with the cyclic collector paused; one process running many files
    collects what each file left behind (cycles of IR objects) after it.  Only what was
    made since the batch started is walked: the objects alive then (modules, classes) were
    moved out of the collector's sight (``gc.freeze``)."""
    import gc

    gc.collect()


def run_files(jobs: Sequence[Job], config: Config, n_jobs: int = 1) -> Iterator[FileResult]:
    """Process ``jobs``, yielding each :class:`FileResult` in the order of ``jobs``.

    ``n_jobs`` > 1: a pool of that many worker processes (capped at the number of jobs).
    A usage error in ``config`` (an unknown pass) raises :class:`TTOptError` before any file
    is touched."""
    import gc

    _setup(config)  # usage errors first, and loaded once before the workers fork
    n_jobs = max(1, min(n_jobs, len(jobs)))
    gc.collect()
    gc.freeze()  # what exists now lives for the whole run: never scanned again
    try:
        if n_jobs == 1:
            for job in jobs:
                result = process_file(job, config)
                _collect_garbage()
                yield result
            return
        import multiprocessing

        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
        with ctx.Pool(n_jobs, initializer=_init_worker, initargs=(config,)) as pool:
            yield from pool.imap(_work_and_collect, [(job, config) for job in jobs], chunksize=1)
    finally:
        gc.unfreeze()


def _work_and_collect(args: tuple[Job, Config]) -> FileResult:
    result = process_file(*args)
    _collect_garbage()
    return result


def optimize_files(
    pairs: Iterable[tuple[str | os.PathLike, str | os.PathLike]],
    passes: Sequence[str] = (),
    *,
    pipeline: str | None = None,
    jobs: int = 1,
    changed_only: bool = False,
    verify: bool = True,
) -> list[FileResult]:
    """The Python form of batch mode: run ``passes`` (names) or ``pipeline`` (a spec) on
    each ``(input, output)`` file pair; returns one :class:`FileResult` per pair, in order
    (``status`` 0 and ``written``, or an error in ``stderr``).  ``changed_only``: write an
    output only where a pass rewrote something (:attr:`Outcome.changed`)."""
    config = Config(passes=tuple(passes), pipeline=pipeline, changed_only=changed_only, verify=verify)
    job_list = [Job(os.fspath(a), os.fspath(b)) for a, b in pairs]
    return list(run_files(job_list, config, jobs))


def default_jobs(value: int) -> int:
    """``--jobs 0``: one per available core."""
    if value > 0:
        return value
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
