"""ttopt's error types: problems with the input, and bugs inside ttopt.

* :class:`TTOptError`: the input (or a request such as an unknown pass) is wrong; printed as
  ``FILE:LINE:COL: error: MESSAGE`` (exit status 1 in ``ttopt-opt``).
* :class:`TTOptInternalError`: ttopt itself failed (a bug); printed as ``FILE: internal
  error in pass 'NAME': ...`` (exit status 3); the original exception is kept as
  ``__cause__`` and ``traceback_text`` for ``--debug``.
"""

from __future__ import annotations

import re
import traceback


class TTOptError(Exception):
    """An error about the input (or a pass), printed as ``FILE:LINE:COL: error: MESSAGE``.

    ``line`` and ``col`` are 1-based; they are ``None`` when the error has no position
    (a missing file, an unknown pass).
    """

    kind = "error"

    def __init__(
        self,
        message: str,
        filename: str = "<input>",
        line: int | None = None,
        col: int | None = None,
    ):
        # one printable line, whatever the message (an input's raw bytes included); runs of
        # spaces kept (Triton's words have some: "result.  Broadcast")
        message = re.sub(r"\s*[^\S ]\s*", " ", str(message)).strip()
        message = "".join(_printable(c) for c in message) or "error"
        super().__init__(message)
        self.message = message
        self.filename = filename
        self.line = line
        self.col = col

    def __str__(self) -> str:
        # (a file name with a newline or a byte that is not UTF-8: still one line)
        where = "".join(_printable(c) for c in self.filename)
        if self.line is not None:
            where += f":{self.line}:{self.col or 1}"
        return f"{where}: {self.kind}: {self.message}"


class TTOptInternalError(TTOptError):
    """A bug inside ttopt (a pass, the reader or the printer raised unexpectedly).

    ``stage`` names where: ``pass 'div-chain'``, ``reading``, ``printing``.
    """

    kind = "internal error"

    def __init__(self, stage: str, error: BaseException, filename: str = "<input>"):
        super().__init__(f"in {stage}: {type(error).__name__}: {error}", filename)
        self.stage = stage
        self.traceback_text = "".join(
            traceback.format_exception(type(error), error, error.__traceback__)
        )


def _printable(c: str) -> str:
    if c.isprintable():
        return c
    if "\udc80" <= c <= "\udcff":  # a non-UTF-8 input byte (see ttopt.cli)
        return f"\\x{ord(c) - 0xDC00:02x}"
    return ascii(c)[1:-1]


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col
