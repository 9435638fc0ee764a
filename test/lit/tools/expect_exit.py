"""Run a command and require one exact exit status (lit: ``%expect-exit``).

    expect_exit.py STATUS COMMAND [ARG...]

lit's ``not`` accepts any failure (1, 2, 3, a crash alike); ttopt-opt documents its statuses
(1: an error in the input, 2: a usage error, 3: an internal error), so a test of one of them
needs the exact number.  The command's stdin, stdout and stderr are its own (inherited);
exit status 0 iff the command exited with STATUS, else 1 with one line on stderr.
"""

import subprocess
import sys


def main(argv: list[str]) -> int:
    if len(argv) < 2 or not argv[0].lstrip("-").isdigit():
        print("usage: expect_exit.py STATUS COMMAND [ARG...]", file=sys.stderr)
        return 2
    want = int(argv[0])
    got = subprocess.call(argv[1:])
    if got != want:
        print(f"expect_exit: {argv[1:]!r} exited with {got}, expected {want}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
