"""``ttopt-opt``: the command line.

    ttopt-opt kernel.ttgir --pass redundant-load --pass redundant-reduce -o out.ttgir --stats

Reads a file (or ``-`` for stdin), applies the passes in the order given (none: a round trip),
writes to ``-o`` (default stdout).

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

import os
import stat
import sys
import tempfile

import click

from .errors import TTOptError, TTOptInternalError
from .passes import PASSES
from .pipeline import run_pipeline

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
        out.buffer.write(text.encode(ENCODING, ERRORS))
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
    target = os.path.realpath(path)  # a symlink is written through: the link stays a link
    if st is not None and not _writable(target, st):
        raise TTOptError("cannot write: the file is read-only", path)
    directory = os.path.dirname(target)
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".ttopt-", suffix=".tmp")
    except OSError as e:
        if st is not None and e.errno in (13, 1):  # a writable file in a directory we
            _write_through(path, data)              # cannot create files in: in place
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


def _print_stats(stats) -> None:
    for s in stats:
        label, what = STAT_LABELS.get(s.name, (s.name, "rewrites"))
        click.echo(f"{s.name} ({label}): {s.total} {what}", err=True)
        for func, n in sorted(s.per_function.items()):
            click.echo(f"  {func}: {n}", err=True)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("input", default="-", metavar="[INPUT|-]")
@click.option("-o", "--output", metavar="OUTPUT", help="Output file (default: stdout).")
@click.option(
    "--pass", "passes", multiple=True, metavar="NAME",
    help="Pass to run; repeatable (or comma-separated), applied in order.",
)
@click.option("--list-passes", is_flag=True, help="List the passes and exit.")
@click.option("--stats", is_flag=True, help="Report, per pass and function, the rewrites made (stderr).")
@click.option("--debug", is_flag=True, help="On an internal error, print the traceback too.")
def main(input: str, output: str | None, passes: tuple[str, ...], list_passes: bool,
         stats: bool, debug: bool):
    """Optimize Triton TTIR/TTGIR (Triton 3.3-3.6 text)."""
    if list_passes:
        _write_stdout("".join(f"{name:18s} {cls.summary}\n" for name, cls in PASSES.items()))
        return
    names = [n.strip() for p in passes for n in p.split(",") if n.strip()]
    unknown = [n for n in names if n not in PASSES]
    if unknown:
        _fail(
            f"ttopt-opt: error: unknown pass '{unknown[0]}' (known: {', '.join(PASSES)})",
            EXIT_USAGE_ERROR,
        )
    text, name = _read_input(input)
    try:
        result = run_pipeline(text, names, name)
        write_output(output, result.text)
    except TTOptInternalError as e:
        if debug:
            click.echo(e.traceback_text, err=True, nl=False)
        _fail(str(e) + ("" if debug else " (run with --debug for the traceback)"),
              EXIT_INTERNAL_ERROR)
    except TTOptError as e:
        _fail(str(e))
    if stats:
        _print_stats(result.stats)


if __name__ == "__main__":  # pragma: no cover
    main()
