"""``ttopt-opt``: the command line.

    ttopt-opt kernel.ttgir --pass redundant-load --pass redundant-reduce -o out.ttgir --stats

Reads a file (or ``-`` for stdin), applies the passes in the order given (none: a round trip),
writes to ``-o`` (default stdout).  Errors are one line, ``FILE:LINE:COL: error: ...``, with a
non-zero exit status; an existing output file is only ever replaced whole (the text is
written to a temporary file in the same directory, then renamed).
"""

from __future__ import annotations

import os
import sys
import tempfile

import click

from .errors import TTOptError, line_col
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


def _fail(message: str, code: int = EXIT_INPUT_ERROR) -> None:
    click.echo(message, err=True)
    sys.exit(code)


def _read_input(path: str) -> tuple[str, str]:
    name = "<stdin>" if path == "-" else path
    try:
        data = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()
    except FileNotFoundError:
        _fail(f"{name}: error: no such file")
    except IsADirectoryError:
        _fail(f"{name}: error: is a directory, not an IR file")
    except OSError as e:
        _fail(f"{name}: error: cannot read: {e.strerror}")
    try:
        return data.decode("utf-8"), name
    except UnicodeDecodeError as e:
        ln, col = line_col(data[: e.start].decode("utf-8", "replace"), e.start)
        _fail(f"{name}:{ln}:{col}: error: input is not UTF-8 text (byte 0x{data[e.start]:02x})")
    raise AssertionError("unreachable")


def _write_output(path: str | None, text: str) -> None:
    if path is None or path == "-":
        sys.stdout.write(text)
        return
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".ttopt-", suffix=".tmp")
    except OSError as e:
        _fail(f"{path}: error: cannot write: {e.strerror}")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError as e:
        os.unlink(tmp)
        _fail(f"{path}: error: cannot write: {e.strerror}")


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
def main(input: str, output: str | None, passes: tuple[str, ...], list_passes: bool, stats: bool):
    """Optimize Triton TTIR/TTGIR (Triton 3.3-3.6 text)."""
    if list_passes:
        for name, cls in PASSES.items():
            click.echo(f"{name:18s} {cls.summary}")
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
    except TTOptError as e:
        _fail(str(e))
    except RecursionError:
        _fail(f"{name}: error: input nested too deeply")
    _write_output(output, result.text)
    if stats:
        _print_stats(result.stats)


if __name__ == "__main__":  # pragma: no cover
    main()
