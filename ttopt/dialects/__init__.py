"""xDSL definitions of the dialects found in Triton 3.6 TTIR/TTGIR.

``make_context()`` returns an xDSL ``Context`` with exactly these dialects loaded (and no
unregistered ops: an op Triton would not parse is an error here too).

* ``tt``, ``ttg``, ``ttng``: ttopt's own (:mod:`.tt`, :mod:`.ttg`);
* ``arith``, ``math``, ``scf``, ``ub``: xDSL's own op classes, each registered here behind an
  adapter that gives it MLIR's constraints and parse-time behaviour
  (:mod:`.upstream`), except the few ops whose xDSL version cannot read Triton's IR (tensor
  compares, selects and casts; see each module's docstring);
* ``gpu``: ``gpu.barrier`` alone, ttopt's (xDSL's has no custom syntax);
* ``cf``: xDSL's ``cf.br`` / ``cf.cond_br`` (an early ``return``), ``cf.assert`` and
  ``cf.switch`` behind the same adapter (:mod:`.cf`); ``llvm``: ``llvm.intr.assume`` alone,
  ttopt's (``tl.assume``, :mod:`.llvm`).

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
from .scf import SCF
from .tt import TT
from .ttg import TTG
from .ttng import TTNG

EAGER_DIALECTS = (Builtin, Arith, SCF, CF, GPU, UB, LLVM, TT, TTG, TTNG)
"""Every dialect but ``math``, whose module (xDSL's 40 op definitions under it, ~15 ms) is
imported when a context first looks up a ``math.`` name (:func:`make_context` registers it
by name, xDSL's lazy loading) or when ``DIALECTS`` is asked for."""


def _math():
    from .math import Math

    return Math


def __getattr__(name: str):
    if name == "DIALECTS":  # (every dialect, in this order: ``math`` imported now)
        return (*EAGER_DIALECTS[:2], _math(), *EAGER_DIALECTS[2:])  # (after arith, as ever)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), "DIALECTS"])


def make_context(release: tuple[int, int] | None = None,
                 span: tuple[tuple[int, int], tuple[int, int]] | None = None) -> Context:
    """A context with ttopt's dialects as Triton ``release`` (default 3.6) has them: the ops
    of older releases it has (:mod:`.legacy`) and its spelling of names
    (``triton_gpu.convert_layout`` for 3.2, :mod:`.versions`).  ``span`` (first, last): the
    releases the text may come from; their ops are known too where ``release`` has none of
    that name."""
    from xdsl.ir import Operation

    from ..xdsl_compat import rename_in_context
    from .legacy import LEGACY
    from .versions import DEFAULT, Syntax

    ctx = Context(allow_unregistered=False)
    for d in EAGER_DIALECTS:
        ctx.load_dialect(d)
    ctx.register_dialect("math", _math)  # (no release spells a math op otherwise, nor has
    # a legacy op of that name: the renames below leave its ops as they are)
    release = DEFAULT if release is None else release
    lo, hi = span if span is not None else (release, release)
    legacy = [cls for cls, low, high in LEGACY if low <= release <= high]
    names = {cls.name for cls in legacy}
    # ops of the other releases of `span` that no op of `release` is named like
    for cls, low, high in LEGACY:
        if low <= hi and lo <= high and cls.name not in names and cls not in legacy:
            if ctx.get_optional_op(cls.name) is None and ctx.get_optional_attr(cls.name) is None:
                legacy.append(cls)
                names.add(cls.name)
    replaced = {cls.name for cls in legacy}
    rename_in_context(ctx, lambda n: None if n in replaced else n, lambda n: None if n in replaced else n)
    for cls in legacy:
        if issubclass(cls, Operation):
            ctx.load_op(cls)
        else:
            ctx.load_attr_or_type(cls)
    syn = Syntax(release)
    rename_in_context(ctx, syn.op_name, syn.attr_name)
    return ctx


__all__ = ["DIALECTS", "EAGER_DIALECTS", "make_context"]
