"""Triton 3.6 as the oracle: does Triton parse and verify this text, and what does it compile to?

Works without a GPU (``triton.compile`` with an explicit ``GPUTarget``).  Triton is imported
lazily: ttopt itself does not need it.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from functools import lru_cache

TARGET = ("cuda", 90, 32)


@dataclass
class OracleResult:
    ok: bool
    message: str = ""


@lru_cache(maxsize=1)
def _context():
    from triton._C.libtriton import ir, nvidia

    ctx = ir.context()
    ir.load_dialects(ctx)
    nvidia.load_dialects(ctx)
    return ctx


def _write_temp(text: str, suffix: str) -> str:
    fd, path = tempfile.mkstemp(suffix=suffix, prefix="ttopt-oracle-")
    with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)
    return path


def triton_accepts(text: str, suffix: str = ".ttgir") -> OracleResult:
    """Parse ``text`` with Triton's MLIR parser and run the verifier."""
    from triton._C.libtriton import ir

    path = _write_temp(text, suffix)
    ctx = _context()
    try:
        try:
            mod = ir.parse_mlir_module(path, ctx)
        except RuntimeError as e:
            return OracleResult(False, f"parse failed: {e}")
        mod.context = ctx
        if not mod.verify():
            return OracleResult(False, "verification failed")
        return OracleResult(True)
    finally:
        os.unlink(path)


def triton_module_text(text: str, suffix: str = ".ttgir") -> str:
    """Triton's own print of ``text`` (parse + print, no locations)."""
    from triton._C.libtriton import ir

    path = _write_temp(text, suffix)
    try:
        mod = ir.parse_mlir_module(path, _context())
        mod.context = _context()
        return mod.str_nodebug()
    finally:
        os.unlink(path)


def compile_to_cubin(path: str, num_warps: int | None = None) -> bytes:
    """Compile a ``.ttir``/``.ttgir`` file for sm_90 on the CPU; returns the cubin."""
    import triton
    from triton.backends.compiler import GPUTarget

    options = {"num_warps": num_warps} if num_warps else None
    kernel = triton.compile(path, target=GPUTarget(*TARGET), options=options)
    return kernel.asm["cubin"]


def main(argv: list[str] | None = None) -> int:
    """``python -m ttopt.oracle [FILE|-]``: exit 0 iff Triton parses and verifies the text."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    path = args[0] if args else "-"
    text = sys.stdin.read() if path == "-" else open(path).read()
    result = triton_accepts(text)
    if not result.ok:
        print(f"triton rejected {path}: {result.message}", file=sys.stderr)
        return 1
    print("triton: ok")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
