"""Triton as the judge of every chunk of a split file (lit: ``%triton-verify-chunks``).

    triton_verify_chunks.py [--expect-invalid] [FILE|-]

Splits the text at the lines ``// -----`` (the marker of ``--split-input-file``, blanks around
it allowed), as ``mlir-opt --split-input-file`` does, and gives each chunk alone to Triton's
own parser and verifier (``ttopt.oracle.triton_accepts``, what ``%triton-verify`` runs on a
whole file).  Each chunk is preceded by as many blank lines as there are lines before it, so
that the line numbers of Triton's diagnostics are those of the whole file.

Prints one line per chunk, in order::

    chunk N (line L): ok
    chunk N (line L): rejected: LINE:COL: error: MESSAGE   (Triton's first error)

then ``triton: all K chunks ok`` / ``triton: all K chunks rejected`` when the verdict is the
expected one.  Exit status 0 iff Triton accepts every chunk (default: the outputs of ttopt) or,
with ``--expect-invalid``, rejects every chunk (the inputs of a ``--verify-diagnostics`` test:
each case must be invalid for Triton too); 1 otherwise, naming the chunks that disagree.

The splitting is written here, not imported from ttopt: the judge does not share code with
what it judges.  Only Triton (through ttopt.oracle, which loads its dialects) decides.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile

MARKER = "// -----"
# Triton (MLIR) prints a diagnostic as: loc("/tmp/ttopt-oracle-XXXX.ttgir":LINE:COL): error: MSG
_DIAG = re.compile(r'^loc\(".*":(\d+):(\d+)\): error: (.*)$')


def split_chunks(text: str) -> list[tuple[int, str]]:
    """``(first line, chunk padded with blank lines)`` for each chunk of ``text``."""
    lines = text.split("\n")
    chunks: list[tuple[int, str]] = []
    start = 0
    for i, line in enumerate(lines):
        if line.strip() == MARKER:
            chunks.append((start + 1, "\n" * start + "\n".join(lines[start:i]) + "\n"))
            start = i + 1
    chunks.append((start + 1, "\n" * start + "\n".join(lines[start:])))
    return chunks


def triton_verdict(chunk: str) -> tuple[bool, str]:
    """Triton's verdict on one chunk, and its first error line (captured from fd 2, where
    MLIR's diagnostic handler writes)."""
    from ttopt.oracle import triton_accepts

    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            result = triton_accepts(chunk)
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
        captured.seek(0)
        diagnostics = captured.read().decode("utf-8", "replace").splitlines()
    if result.ok:
        return True, ""
    for line in diagnostics:
        m = _DIAG.match(line)
        if m:
            return False, f"{m.group(1)}:{m.group(2)}: error: {m.group(3)}"
    return False, result.message or "rejected without a diagnostic"


def main(argv: list[str]) -> int:
    expect_invalid = "--expect-invalid" in argv
    args = [a for a in argv if a != "--expect-invalid"]
    if len(args) > 1 or any(a.startswith("--") for a in args):
        print("usage: triton_verify_chunks.py [--expect-invalid] [FILE|-]", file=sys.stderr)
        return 2
    path = args[0] if args else "-"
    data = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()
    text = data.decode("utf-8", "surrogateescape")
    wrong: list[str] = []
    chunks = split_chunks(text)
    for number, (first, chunk) in enumerate(chunks, 1):
        ok, diagnostic = triton_verdict(chunk)
        print(f"chunk {number} (line {first}): " + ("ok" if ok else f"rejected: {diagnostic}"))
        if ok == expect_invalid:
            wrong.append(f"chunk {number} (line {first})")
    sys.stdout.flush()
    if wrong:
        verdict = "accepted" if expect_invalid else "rejected"
        print(f"triton {verdict} {path}: {', '.join(wrong)}", file=sys.stderr)
        return 1
    print(f"triton: all {len(chunks)} chunks " + ("rejected" if expect_invalid else "ok"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
