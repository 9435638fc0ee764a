"""xDSL definitions of the dialects found in Triton 3.6 TTIR/TTGIR.

``make_context()`` returns an xDSL ``Context`` with exactly these dialects loaded (and no
unregistered ops: an op Triton would not parse is an error here too).
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin

from .arith import Arith
from .gpu import GPU, UB
from .math import Math
from .scf import SCF
from .tt import TT
from .ttg import TTG, TTNG

DIALECTS = (Builtin, Arith, Math, SCF, GPU, UB, TT, TTG, TTNG)


def make_context() -> Context:
    ctx = Context(allow_unregistered=False)
    for d in DIALECTS:
        ctx.load_dialect(d)
    return ctx


__all__ = ["DIALECTS", "make_context"]
