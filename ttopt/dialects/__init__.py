"""xDSL definitions of the dialects found in Triton 3.6 TTIR/TTGIR.

``make_context()`` returns an xDSL ``Context`` with exactly these dialects loaded (and no
unregistered ops: an op Triton would not parse is an error here too).

* ``tt``, ``ttg``, ``ttng``: ttopt's own (:mod:`.tt`, :mod:`.ttg`);
* ``arith``, ``math``, ``scf``, ``ub``: xDSL's own op classes, each registered here behind an
  adapter that gives it MLIR's constraints and parse-time behaviour
  (:mod:`.upstream`), except the few ops whose xDSL version cannot read Triton's IR (tensor
  compares, selects and casts; see each module's docstring);
* ``gpu``: ``gpu.barrier`` alone, ttopt's (xDSL's has no custom syntax);
* ``cf``: xDSL's ``cf.br`` / ``cf.cond_br`` behind the same adapter (an early ``return``,
  :mod:`.cf`); ``llvm``: ``llvm.intr.assume`` alone, ttopt's (``tl.assume``, :mod:`.llvm`).

``ttng`` is :mod:`.ttng` (its three Hopper ops used to live in :mod:`.ttg`, which still
resolves their names).

These ``Dialect`` objects are ttopt's and live in ttopt's context only: xDSL's own
``arith``/``math``/``scf``/``ub``/``gpu``/``cf``/``llvm`` dialects and classes are untouched
(nothing is registered under their names in xDSL's multiverse, see :mod:`ttopt.universe`).
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin

from .arith import Arith
from .cf import CF
from .gpu import GPU, UB
from .llvm import LLVM
from .math import Math
from .scf import SCF
from .tt import TT
from .ttg import TTG
from .ttng import TTNG

DIALECTS = (Builtin, Arith, Math, SCF, CF, GPU, UB, LLVM, TT, TTG, TTNG)


def make_context() -> Context:
    ctx = Context(allow_unregistered=False)
    for d in DIALECTS:
        ctx.load_dialect(d)
    return ctx


__all__ = ["DIALECTS", "make_context"]
