"""ttopt's one error type: a message with the place in the input it is about."""

from __future__ import annotations


class TTOptError(Exception):
    """An error about the input (or a pass), printed as ``FILE:LINE:COL: error: MESSAGE``.

    ``line`` and ``col`` are 1-based; they are ``None`` when the error has no position
    (a missing file, an unknown pass).
    """

    def __init__(
        self,
        message: str,
        filename: str = "<input>",
        line: int | None = None,
        col: int | None = None,
    ):
        super().__init__(message)
        self.message = message
        self.filename = filename
        self.line = line
        self.col = col

    def __str__(self) -> str:
        where = self.filename
        if self.line is not None:
            where += f":{self.line}:{self.col or 1}"
        return f"{where}: error: {self.message}"


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col
