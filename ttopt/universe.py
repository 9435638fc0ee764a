"""ttopt as an xDSL plugin: ``xdsl-opt -p redundant-load ...``.

Registered in ``pyproject.toml``::

    [project.entry-points.'xdsl.universe']
    ttopt = 'ttopt.universe:TTOPT_UNIVERSE'

so that xDSL's ``Universe.get_multiverse()`` (and thus ``xdsl-opt``, ``xdsl-gui``...) finds
ttopt's passes (``redundant-load``, ``redundant-reduce``, ``div-chain``, ``recip-hoist``,
``hoist-load``; the aliases ``exact``/``all``/``default`` are ttopt-opt's only) and Triton's own
dialects (``tt``, ``ttg``, ``ttng``).

Not registered: ``arith``, ``math``, ``scf``, ``cf``, ``gpu``, ``ub`` and ``llvm``.  The
multiverse refuses two dialects of one name (``ValueError: Duplicate definition of arith in
['ttopt', 'xdsl']``, which would break every xDSL tool of the environment), and ttopt must
not shadow xDSL's.  Under ``xdsl-opt`` those seven are xDSL's own (xDSL 0.74's ``llvm`` has
no ``llvm.intr.assume``: a kernel with ``tl.assume`` does not parse there).  ttopt's
``arith``/``math``/``scf``/``cf``/``ub`` are xDSL's classes too
(:mod:`ttopt.dialects.upstream`: ttopt's context registers each behind an adapter, a
subclass with MLIR's constraints and parse-time behaviour), and ttopt's passes name
xDSL's classes, so under ``xdsl-opt`` they see the same ops:

* ``redundant-load`` carries available loads into ``scf.for``/``scf.if``/``scf.while``
  bodies (xDSL's loops and ifs have ``RecursiveMemoryEffect``), as under ``ttopt-opt``;
* ``div-chain`` rewrites xDSL's ``arith.divf`` chains;
* ``redundant-reduce`` merges reductions; commuted combiner operands are matched only for the
  ops xDSL 0.74 marks ``Commutative`` (``addi``, ``muli``, ``andi``, ``ori``, ``xori``; not
  ``addf``, ``mulf``, ``maxnumf``, ..., to which ttopt's context adds MLIR's trait): fewer
  merges, never a wrong one.

What still does not work under ``xdsl-opt`` (use ``ttopt-opt`` for real Triton IR):

* tensor compares and selects: xDSL 0.74's ``arith.cmpi``/``cmpf`` produce a scalar ``i1``
  and its ``arith.select`` takes a scalar condition, so a kernel with a mask (nearly every
  real one) does not parse; the same for tensor casts (``arith.extsi``, ``trunci``,
  ``sitofp`` ... take scalars), ``arith.remf``/``math.erfc`` (not in xDSL 0.74) and
  ``gpu.barrier`` (xDSL's has no custom syntax);
* Triton's own dumps: Triton prints most ``#loc`` aliases after the module, and xDSL rejects a
  use before the definition (ttopt's reader hoists them);
* xDSL's checks, not MLIR's: xDSL's own verifier words errors its way and accepts a little
  that Triton rejects (``arith.addi`` on ``si32``, ``arith.extf`` that narrows, ``scf.for``
  results that are not its loop-carried types).
"""

from __future__ import annotations

from xdsl.universe import Universe


def _tt():
    from .dialects.tt import TT

    return TT


def _ttg():
    from .dialects.ttg import TTG

    return TTG


def _ttng():
    from .dialects.ttng import TTNG

    return TTNG


def _pass(name: str):
    def factory():
        from .passes import PASSES

        return PASSES[name]

    return factory


TTOPT_UNIVERSE = Universe(
    all_dialects={"tt": _tt, "ttg": _ttg, "ttng": _ttng},
    all_passes={
        name: _pass(name)
        for name in ("redundant-load", "redundant-reduce", "div-chain", "recip-hoist", "hoist-load")
    },
)
