"""``ttopt-opt``: the command line.

    ttopt-opt kernel.ttgir --pass redundant-load --pass redundant-reduce -o out.ttgir --stats
    ttopt-opt kernel.ttgir -p 'redundant-load{respect-hints=true},redundant-reduce,cse'

Reads a file (or ``-`` for stdin), applies the passes in the order given (none: a round trip),
writes to ``-o`` (default stdout).  ``--pass NAME`` (repeatable, or comma-separated) names
ttopt's own passes; ``-p/--passes`` takes an xDSL/MLIR pass pipeline, with options, over
ttopt's passes, the xDSL passes ttopt exposes (``--list-passes``) and passes loaded with
``--load-pass FILE``.  The flags shared with ``xdsl-opt``/``mlir-opt`` behave as there:
``--print-between-passes``, ``--print-after-change``, ``--time-passes``, ``--version``,
``--split-input-file``, ``--verify-diagnostics`` (see ``--help``).

Exit status: 0 success; 1 an error in the input (one line ``FILE:LINE:COL: error: ...``);
2 a usage error; 3 an internal error of ttopt (one line naming the pass; ``--debug`` adds the
traceback).

``-o`` never replaces what it does not own.  A regular file (existing or new) is written to a
temporary file in its directory and renamed over it, so it is replaced whole or not at all; it
keeps its mode (a new one gets the umask's); a symlink is followed and the link stays a link.
Anything else (a character device such as ``/dev/null`` or ``/dev/stdout``, a FIFO, a process
substitution) is opened and written through, never renamed over.  A read-only target is an
error and stays untouched; so does any existing file when the run fails.
"""

from __future__ import annotations

import errno
import gc
import os
import re
import stat
import sys

import click

from .errors import TTOptError

# Start-up time (`python -m bench.startup`): this module imports only what --version, --help
# and a usage error need; xDSL, the passes and the pipeline are imported when a run needs them.

# What the paper calls each pass's column, shown by --stats.
STAT_LABELS = {
    "redundant-load": ("R-Load", "loads removed"),
    "redundant-reduce": ("R-Reduce", "reductions removed"),
    "div-chain": ("Div", "divisions removed"),
}

EXIT_INPUT_ERROR = 1
EXIT_USAGE_ERROR = 2
EXIT_INTERNAL_ERROR = 3

# Input bytes that are not UTF-8 (MLIR allows any byte inside a string literal, e.g. a file
# name in a location) are carried through as lone surrogates and written back as the same bytes.
ENCODING, ERRORS = "utf-8", "surrogateescape"


def _fail(message: str, code: int = EXIT_INPUT_ERROR) -> None:
    try:
        click.echo(message, err=True)
    except (OSError, ValueError, AttributeError):  # stderr closed: the exit status still tells
        pass
    sys.exit(code)


def _read_input(path: str) -> tuple[str, str]:
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            if sys.stdin is None:
                _fail(f"{name}: error: standard input is closed")
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except FileNotFoundError:
        _fail(f"{name}: error: no such file")
    except IsADirectoryError:
        _fail(f"{name}: error: is a directory, not an IR file")
    except OSError as e:
        _fail(f"{name}: error: cannot read: {e.strerror}")
    return data.decode(ENCODING, ERRORS), name


def _write_stdout(text: str) -> None:
    out = sys.stdout
    if out is None:
        _fail("<stdout>: error: standard output is closed")
    try:
        out.flush()
        _write_all(out.buffer, text.encode(ENCODING, ERRORS))
        out.buffer.flush()
    except BrokenPipeError:
        # the reader went away (`ttopt-opt k.ttir | head`): stop quietly, as Unix tools do;
        # point stdout at nothing so that Python's own flush at exit does not complain
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, out.fileno())
            os.close(devnull)
        except OSError:
            pass
        sys.exit(EXIT_INPUT_ERROR)
    except (OSError, ValueError) as e:
        _fail(f"<stdout>: error: cannot write: {getattr(e, 'strerror', None) or e}")


def _write_all(buf, data: bytes) -> None:
    """All of ``data`` to ``buf``: an unbuffered stdout (``python -u``, ``PYTHONUNBUFFERED``)
    is a raw ``FileIO``, whose ``write`` may take only part (a pipe takes 64 KiB at a time),
    or nothing yet (``None``: a non-blocking descriptor that is full)."""
    view = memoryview(data)
    while view:
        n = buf.write(view)
        if n is None:
            import select

            select.select([], [buf.fileno()], [])
            continue
        view = view[n:]


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _writable(path: str, st: os.stat_result) -> bool:
    """A read-only file stays untouched, also for root (whom access() lets write anything)."""
    if not os.access(path, os.W_OK):
        return False
    return os.geteuid() != 0 or bool(st.st_mode & 0o222)


def write_output(path: str | None, text: str) -> None:
    """Write ``text`` to ``path`` (``None``/``-``: stdout) as the module docstring says;
    raises :class:`TTOptError` (nothing changed) when it cannot."""
    if path is None or path == "-":
        _write_stdout(text)
        return
    data = text.encode(ENCODING, ERRORS)
    try:
        st = os.stat(path)  # follows symlinks (and /dev/stdout's /proc magic links)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise TTOptError(f"cannot write: {e.strerror}", path) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise TTOptError("cannot write: is a directory", path)
    if st is not None and not stat.S_ISREG(st.st_mode):
        _write_through(path, data)  # a device, FIFO, socket...: never rename over it
        return
    import tempfile

    target = os.path.realpath(path)  # a symlink is written through: the link stays a link
    if st is not None and not _writable(target, st):
        raise TTOptError("cannot write: the file is read-only", path)
    directory = os.path.dirname(target)
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".ttopt-", suffix=".tmp")
    except OSError as e:
        if st is not None and e.errno in (errno.EACCES, errno.EPERM):
            _write_through(path, data)  # a writable file in a directory we cannot create in
            return
        raise TTOptError(f"cannot write: {e.strerror}", path) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            os.fchmod(f.fileno(), stat.S_IMODE(st.st_mode) if st else 0o666 & ~_umask())
            if st is not None and os.geteuid() == 0:
                try:
                    os.fchown(f.fileno(), st.st_uid, st.st_gid)
                except OSError:
                    pass
        os.replace(tmp, target)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise TTOptError(f"cannot write: {e.strerror}", path) from None


def _write_through(path: str, data: bytes) -> None:
    """Open the existing ``path`` and write into it (truncating a regular file only)."""
    try:
        fd = os.open(path, os.O_WRONLY)
        with os.fdopen(fd, "wb") as f:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                f.truncate(0)
            f.write(data)
    except OSError as e:
        raise TTOptError(f"cannot write: {e.strerror}", path) from None


def _err(text: str) -> None:
    """Write to stderr; a closed stderr is not worth a traceback."""
    try:
        click.echo(text, err=True, nl=False)
    except (OSError, ValueError, AttributeError):
        pass


# ------------------------------------------------------------------ --stats, --time-passes
def _print_stats(stats, per_function: bool = True) -> None:
    for s in stats:
        label, what = STAT_LABELS.get(s.name, (s.name, "rewrites"))
        click.echo(f"{s.name} ({label}): {s.total} {what}", err=True)
        for func, n in sorted(s.per_function.items()) if per_function else ():
            click.echo(f"  {func}: {n}", err=True)


def _print_timings(per_chunk: list[list[tuple[str, float]]]) -> None:
    """MLIR's ``-mlir-timing`` table: wall time per stage (read, each pass, print), summed
    over the chunks of a split file."""
    rows: list[list] = []
    for timings in per_chunk:
        for i, (name, seconds) in enumerate(timings):
            if i < len(rows) and rows[i][0] == name:
                rows[i][1] += seconds
            else:
                rows.append([name, seconds])
    total = sum(seconds for _, seconds in rows)
    bar = "===" + "-" * 73 + "==="
    lines = [
        bar,
        "                         ... Execution time report ...",
        bar,
        f"  Total Execution Time: {total:.4f} seconds",
        "",
        "  ----Wall Time----  ----Name----",
    ]
    for name, seconds in rows + [["Total", total]]:
        share = 100.0 * seconds / total if total > 0 else 0.0
        lines.append(f"  {seconds:8.4f} ({share:5.1f}%)  {name}")
    _err("\n".join(lines) + "\n")


# ------------------------------------------------------------------ --verify-diagnostics
_EXPECTED = re.compile(
    r"expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *\{\{(.*)\}\}$"
)


class Expected:
    """One ``// expected-KIND[@WHERE] {{TEXT}}`` annotation (MLIR's syntax and meaning)."""

    def __init__(self, kind: str, line: int | None, at_line: int, at_col: int, text: str,
                 regex: re.Pattern | None = None, matched: bool = False):
        self.kind = kind
        self.line = line  # the line the diagnostic must be on; None: @unknown (no location)
        self.at_line = at_line  # where the annotation itself is
        self.at_col = at_col
        self.text = text
        self.regex = regex
        self.matched = matched

    def __repr__(self) -> str:
        return (f"Expected({self.kind!r}, {self.line!r}, {self.at_line!r}, {self.at_col!r}, "
                f"{self.text!r}, {self.regex!r}, {self.matched!r})")

    def __eq__(self, other) -> bool:
        return isinstance(other, Expected) and vars(self) == vars(other)

    def matches(self, message: str) -> bool:
        if self.regex is not None:
            return self.regex.search(message) is not None
        return self.text in message


def _compile_re(text: str) -> re.Pattern:
    """``-re``: literal text with ``{{regex}}`` parts, as MLIR's expected-*-re."""
    pieces, pos = [], 0
    for m in re.finditer(r"\{\{(.*?)\}\}", text):
        pieces.append(re.escape(text[pos : m.start()]))
        pieces.append(f"(?:{m.group(1)})")
        pos = m.end()
    pieces.append(re.escape(text[pos:]))
    return re.compile("".join(pieces))


def parse_expected(text: str, first_line: int = 1) -> list[Expected]:
    """The expected-* annotations of ``text`` from line ``first_line`` on (a chunk of a split
    file: the lines before it are the padding of :func:`ttopt.pipeline.split_input_file`).

    As MLIR: ``@+N``/``@-N`` are relative to the annotation's line; ``@above`` is the last
    line above that has no annotation, ``@below`` the next one below; no ``@``: the same line;
    ``@unknown``: a diagnostic without a location.  A malformed ``-re`` pattern is an error
    (a :class:`TTOptError` at the annotation)."""
    lines = text.split("\n")
    found: list[Expected] = []
    waiting: list[Expected] = []  # @below: for the next line without an annotation
    last_plain = first_line - 1
    for number in range(first_line, len(lines) + 1):
        line = lines[number - 1].rstrip()
        m = _EXPECTED.search(line)
        if m is None:
            for e in waiting:
                e.line = number
            waiting.clear()
            last_plain = number
            continue
        kind, is_re, where, text_ = m.group(1), m.group(2), m.group(4), m.group(5)
        e = Expected(kind, number, number, m.start() + 1, text_)
        if is_re:
            try:
                e.regex = _compile_re(text_)
            except re.error as err:
                raise TTOptError(f"invalid regex in expected-{kind}-re: {err}", "", number, m.start() + 1) from None
        if where == "unknown":
            e.line = None
        elif where == "above":
            e.line = last_plain
        elif where == "below":
            e.line = len(lines) + 1  # dangling: never matched
            waiting.append(e)
        elif where:
            e.line = number + int(where)
        found.append(e)
    return found


def check_diagnostics(
    filename: str, chunks: list[tuple[int, str]], errors: list[TTOptError | None]
) -> list[str]:
    """Compare the error of each chunk (None: it succeeded) with the chunk's expected-*
    annotations; returns the mismatches as one-line messages (none: verified)."""
    problems: list[str] = []
    for (first, text), error in zip(chunks, errors, strict=True):
        try:
            expected = parse_expected(text, first)
        except TTOptError as e:
            problems.append(str(TTOptError(e.message, filename, e.line, e.col)))
            continue
        if error is not None:
            here = [e for e in expected if e.line == error.line and e.matches(error.message)]
            hit = next((e for e in here if e.kind == "error" and not e.matched), None)
            hit = hit or next((e for e in here if e.kind == "error"), None)
            if hit is not None:
                hit.matched = True
            elif here:
                near = here[0]
                problems.append(str(TTOptError(
                    f"'error' diagnostic emitted when expecting a '{near.kind}'",
                    filename, near.at_line, near.at_col,
                )))
            else:
                problems.append(str(TTOptError(
                    f"unexpected error: {error.message}", error.filename, error.line, error.col
                )))
        for e in expected:
            if not e.matched:
                problems.append(str(TTOptError(
                    f'expected {e.kind} "{e.text}" was not produced', filename, e.at_line, e.at_col
                )))
    return problems


# ------------------------------------------------------------------ --version, --list-passes
def version_text() -> str:
    """ttopt's version, xDSL's, and Triton's when it is installed (not imported: slow)."""
    import importlib.util
    from importlib.metadata import PackageNotFoundError, version

    from . import __version__

    lines = [f"ttopt-opt {__version__}"]
    for label, dist in (("xDSL", "xdsl"), ("Triton", "triton")):
        try:
            if importlib.util.find_spec(dist) is None:
                raise PackageNotFoundError(dist)
            lines.append(f"{label} {version(dist)}")
        except (PackageNotFoundError, ValueError, ImportError):
            lines.append(f"{label}: not installed")
    return "\n".join(lines) + "\n"


def _options_text(cls) -> str:
    import dataclasses

    try:
        fields = [f for f in dataclasses.fields(cls) if f.init]
    except TypeError:
        return ""
    if not fields:
        return ""

    def default(f):
        v = f.default if f.default is not dataclasses.MISSING else None
        return str(v).lower() if isinstance(v, bool) else str(v)

    return " [options: " + ", ".join(f"{f.name.replace('_', '-')}={default(f)}" for f in fields) + "]"


def list_passes_text() -> str:
    """One line per pass: name, description, options with their defaults."""
    from .passes import available_passes, pass_summary

    out = []
    for name, factory in available_passes().items():
        try:
            cls = factory()
        except Exception:  # pragma: no cover (an xDSL pass that fails to import)
            continue
        out.append(f"{name:18s} {pass_summary(name)}{_options_text(cls)}\n")
    return "".join(out)


def _show_version(ctx: click.Context, _param, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    _write_stdout(version_text())
    ctx.exit(0)


class _Command(click.Command):
    """click, with usage errors (an unknown flag, a missing value) as one line, exit 2."""

    def parse_args(self, ctx, args):
        # `--validate[=N]`, as MLIR spells an optional value: a bare `--validate` never takes
        # the next argument (`--validate k.ttir` validates k.ttir with the default N)
        args = ["--validate=3" if a == "--validate" else a for a in args]
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as e:
            _fail(f"ttopt-opt: error: {e.format_message()}", EXIT_USAGE_ERROR)


_HELP = """Optimize Triton TTIR/TTGIR of any Triton release from 2.1 to 3.9, written back in
that release's own syntax (the release is read from the text; --triton-version X.Y names it
where the text cannot tell).

\b
One input (a file, or '-' for stdin, the default): the output goes to -o (default stdout).
\b
Several inputs, or a directory, in one process (batch mode):
  ttopt-opt -p PASSES a.ttir b.ttgir dump/ --output-dir OUT [--jobs N]
  ttopt-opt -p PASSES kernels/ --in-place
A file argument a/k.ttir is written to OUT/k.ttir; a directory D stands for every .ttir and
.ttgir file under it, each written to OUT/ + its path relative to D (a TRITON_KERNEL_DUMP
folder D/<hash>/<kernel>.ttir becomes the TRITON_OVERRIDE_DIR layout OUT/<hash>/<kernel>.ttir);
--in-place writes each output over its input.  Each file runs as it would alone: an error is
reported as FILE:LINE:COL: error: ..., nothing is written for that file, and the others still
run; the exit status is the worst of all files (3 if any internal error, else 1 if any error).
Two inputs that would be written to one path are a usage error before anything runs.
--stats prints a block per file that a pass rewrote, then the totals.

\b
Exit status: 0 success; 1 an error in the input; 2 a usage error; 3 an internal error of ttopt.
"""


@click.command(cls=_Command, help=_HELP, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("inputs", nargs=-1, metavar="[INPUT|-]...")
@click.option("-o", "--output", metavar="OUTPUT", help="Output file (default: stdout); one input only.")
@click.option("--output-dir", metavar="DIR",
              help="Batch mode: write each output under DIR, mirroring the inputs' layout (see above).")
@click.option("-i", "--in-place", is_flag=True,
              help="Batch mode: write each output over its input (atomically, as -o does).")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=1, metavar="N",
              help="Batch mode: N worker processes (default 1; 0: one per core).  The output is the "
                   "same, byte for byte, whatever N.")
@click.option("--changed-only", is_flag=True,
              help="Batch mode: write only the outputs of files that a pass rewrote (the --stats "
                   "counts; for a pass without counts, such as cse: an output that differs from its "
                   "input).  An override folder then holds only the kernels the passes changed.")
@click.option(
    "--pass", "passes", multiple=True, metavar="NAME",
    help="One of ttopt's passes; repeatable (or comma-separated), applied in order.",
)
@click.option(
    "-p", "--passes", "pipeline", metavar="PIPELINE",
    help="A pass pipeline, xDSL/MLIR syntax: 'redundant-load{respect-hints=true},cse' "
    "(ttopt's passes, the xDSL passes of --list-passes, --load-pass passes).",
)
@click.option(
    "--load-pass", "load_passes", multiple=True, metavar="FILE",
    help="Import FILE (Python) and make the xDSL ModulePass classes it defines available to -p; repeatable.",
)
@click.option("--list-passes", is_flag=True, help="List the passes (with their options) and exit.")
@click.option("--stats", is_flag=True, help="Report, per pass and function, the rewrites made (stderr).")
@click.option("--print-between-passes", is_flag=True, help="Print the module to stderr after each pass.")
@click.option("--print-after-change", is_flag=True, help="Print the module to stderr after each pass that changed it.")
@click.option("--time-passes", is_flag=True, help="Print the wall time of reading, of each pass and of printing (stderr).")
@click.option(
    "--split-input-file", is_flag=True,
    help="Split the input at lines '// -----' and process each chunk alone; outputs are joined "
    "with '// -----'; errors keep the line numbers of the whole file.",
)
@click.option(
    "--verify-diagnostics", is_flag=True,
    help="Check the errors against '// expected-error @+1 {{message}}' annotations (MLIR's "
    "syntax; also @-N, @above, @below, @unknown, expected-error-re): exit 0 iff exactly the "
    "expected errors occurred, on their lines.",
)
@click.option("--triton-version", metavar="X.Y", callback=lambda c, p, v: _check_release(v),
              help="The Triton release (2.1 to 3.9) that wrote the input, where the text cannot "
                   "tell (3.0-3.4 TTIR is often the same text); the output is in its syntax.  A "
                   "text with signs of another release is an error.")
@click.option("--no-verify", is_flag=True,
              help="Do not check the input as Triton's verifier does (types, shapes, dominance...).")
@click.option("--verify-each", is_flag=True,
              help="Verify the module after every pass (a failure is an internal error of that pass).")
@click.option("--debug", is_flag=True, help="On an internal error, print the traceback too.")
@click.option(
    "--validate", type=click.IntRange(min=1), default=None, metavar="[=N]",
    help="Run input and output on the CPU (ttopt.interp) with N seeds (default 3) and three "
         "program ids each, and compare every byte they write: bit for bit, or within "
         "--validate-ulps for reassociating passes (div-chain).  A difference is an error "
         "naming the first differing store (exit 3); nothing is written.",
)
@click.option(
    "--validate-ulps", type=click.IntRange(min=0), default=None, metavar="K",
    help="With --validate: float elements may differ by K ulps (default 0; 4 when the "
         "pipeline has a reassociating pass).",
)
@click.option(
    "--version", is_flag=True, expose_value=False, is_eager=True, callback=_show_version,
    help="Print the versions of ttopt, xDSL and Triton and exit.",
)
def main(inputs: tuple[str, ...], output: str | None, output_dir: str | None, in_place: bool,
         jobs: int, changed_only: bool, passes: tuple[str, ...], pipeline: str | None,
         load_passes: tuple[str, ...], list_passes: bool, stats: bool,
         print_between_passes: bool, print_after_change: bool, time_passes: bool,
         split_input_file: bool, verify_diagnostics: bool, triton_version: str | None,
         no_verify: bool, verify_each: bool,
         debug: bool, validate: int | None, validate_ulps: int | None):
    from . import batch
    from .passes import LOADED_PASSES

    # --load-pass registers for this invocation only: a caller running main() in-process
    # (click's CliRunner, a notebook) does not keep another run's passes in its registry
    registered, loaded = dict(LOADED_PASSES), set(batch._LOADED)
    try:
        _main(inputs, output, output_dir, in_place, jobs, changed_only, passes, pipeline,
              load_passes, list_passes, stats, print_between_passes, print_after_change,
              time_passes, split_input_file, verify_diagnostics, triton_version, no_verify,
              verify_each, debug, validate, validate_ulps)
    finally:
        LOADED_PASSES.clear()
        LOADED_PASSES.update(registered)
        batch._LOADED.clear()
        batch._LOADED.update(loaded)


def _main(inputs, output, output_dir, in_place, jobs, changed_only, passes, pipeline,
          load_passes, list_passes, stats, print_between_passes, print_after_change,
          time_passes, split_input_file, verify_diagnostics, triton_version, no_verify,
          verify_each, debug, validate, validate_ulps) -> None:
    from .batch import Config, load_pass_files

    try:
        load_pass_files(load_passes)
    except TTOptError as e:
        _fail(str(e), EXIT_USAGE_ERROR)
    if list_passes:
        _write_stdout(list_passes_text())
        return
    if passes and pipeline is not None:
        _fail("ttopt-opt: error: give the passes with --pass or with -p/--passes, not both",
              EXIT_USAGE_ERROR)
    config = Config(
        passes=tuple(n.strip() for p in passes for n in p.split(",") if n.strip()),
        pipeline=pipeline, load_passes=load_passes, split_input_file=split_input_file,
        verify_diagnostics=verify_diagnostics, verify=not no_verify, verify_each=verify_each,
        validate=validate, validate_ulps=validate_ulps, print_between_passes=print_between_passes,
        print_after_change=print_after_change, debug=debug, changed_only=changed_only,
        triton_version=triton_version,
    )
    try:
        to_run = config.resolve()  # an unknown pass: a usage error before reading anything
    except TTOptError as e:
        _fail(str(e), EXIT_USAGE_ERROR)
    if len(inputs) > 1 or output_dir is not None or in_place:
        if output is not None:
            _fail("ttopt-opt: error: -o takes one input; give --output-dir DIR or --in-place for "
                  "several", EXIT_USAGE_ERROR)
        sys.exit(_run_batch(list(inputs), config, output_dir, in_place, jobs, stats, time_passes))
    if changed_only:
        _fail("ttopt-opt: error: --changed-only needs --output-dir DIR or --in-place", EXIT_USAGE_ERROR)
    _run_one(inputs[0] if inputs else "-", output, to_run, config, stats, time_passes)


def _run_one(input: str, output: str | None, to_run, config, stats: bool, time_passes: bool) -> None:
    """One input, to ``-o`` or stdout: the command as it always was."""
    from .batch import process_text

    text, name = _read_input(input)
    outcome = process_text(text, name, to_run, config, _err)
    if outcome.status:
        if outcome.status == EXIT_INTERNAL_ERROR:
            _fail(outcome.message, EXIT_INTERNAL_ERROR)
        _fail(outcome.message, outcome.status)
    try:
        write_output(output, outcome.text)
    except TTOptError as e:
        _fail(str(e))
    if stats and outcome.stats:
        _print_stats(outcome.stats)
    if time_passes and outcome.timings:
        _print_timings(outcome.timings)


def _run_batch(inputs: list[str], config, output_dir: str | None, in_place: bool, jobs: int,
               stats: bool, time_passes: bool) -> int:
    """Batch mode (``ttopt.batch``): every file, the worst exit status."""
    from .batch import default_jobs, merge_stats, plan, run_files

    try:
        job_list, problems = plan(inputs, output_dir, in_place)
    except TTOptError as e:
        _fail(f"ttopt-opt: error: {e.message}", EXIT_USAGE_ERROR)
    status = EXIT_INPUT_ERROR if problems else 0
    if problems:
        _err("\n".join(problems) + "\n")
    all_stats, all_times = [], []
    files = rewritten = failed = 0
    for result in run_files(job_list, config, default_jobs(jobs)):
        files += 1
        _err(result.stderr)
        if result.status:
            failed += 1
            status = max(status, result.status)
            continue
        changed = any(s.total for s in result.stats)
        rewritten += changed
        if result.stats:
            all_stats.append(result.stats)
        all_times.extend(result.timings)
        if stats and changed:
            _err(f"== {result.source}\n")
            _print_stats(result.stats)
    if stats:
        _err(f"== total: {files} files, {rewritten} rewritten, {failed} failed\n")
        if all_stats:
            _print_stats(merge_stats(all_stats), per_function=False)
    if time_passes and all_times:
        _print_timings(all_times)
    return status


def _check_release(value: str | None) -> str | None:
    """--triton-version: a release ttopt knows (a usage error otherwise)."""
    if value is None:
        return None
    from .dialects.versions import parse_release

    try:
        parse_release(value)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None
    return value


def entry() -> None:
    """The ``ttopt-opt`` command (a process of its own): :func:`main` with the cyclic garbage
    collector off for good, from before the first import of xDSL (class definitions make
    garbage the collector would walk again and again: about 8% of start-up).  ttopt pauses it
    while it works anyway; switched back on, it would walk every object of the module once
    more as the process exits (1.4 s of a 10 MB module's 13 s); batch mode collects each
    file's garbage after it.  Called in process (``main``, click's test runner), nothing
    changes."""
    gc.disable()
    main()


if __name__ == "__main__":  # pragma: no cover
    # `python -m ttopt.cli`: run the one imported module `ttopt.cli` (batch mode's workers
    # and helpers import it by that name), not this `__main__` copy of it
    from ttopt.cli import entry as _entry

    _entry()
