"""ttopt as an xDSL plugin: ``xdsl-opt -p redundant-load ...``.

Registered in ``pyproject.toml``::

    [project.entry-points.'xdsl.universe']
    ttopt = 'ttopt.universe:TTOPT_UNIVERSE'

so that xDSL's ``Universe.get_multiverse()`` (and thus ``xdsl-opt``, ``xdsl-gui``...) finds
ttopt's passes (``redundant-load``, ``redundant-reduce``, ``div-chain``) and Triton's own
dialects (``tt``, ``ttg``, ``ttng``).

Not registered: ttopt's ``arith``, ``math``, ``scf``, ``gpu`` and ``ub``.  They reuse the
names of xDSL's dialects, and the multiverse refuses two dialects of one name (``ValueError:
Duplicate definition of arith in ['ttopt', 'xdsl']``, which would break every xDSL tool of
the environment).  Under ``xdsl-opt`` those five are xDSL's, and xDSL 0.74's ``arith`` is not
Triton's: ``arith.cmpi``/``cmpf`` only produce a scalar ``i1`` and ``arith.select`` only takes
a scalar ``i1`` condition, so a kernel with a tensor compare or select (nearly every real one:
masks) does not parse there.  ttopt's passes also recognise ttopt's own op classes (``scf.for``
as a loop, ``arith.divf`` for ``div-chain``): under ``xdsl-opt``, ``div-chain`` finds nothing to
rewrite and ``redundant-load`` treats xDSL's ``scf`` ops as it treats ops it does not know
(nothing available is carried into their regions: fewer merges, never a wrong one).  For real
Triton IR use ``ttopt-opt``, which loads Triton's flavour of all of these.
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
    from .dialects.ttg import TTNG

    return TTNG


def _pass(name: str):
    def factory():
        from .passes import PASSES

        return PASSES[name]

    return factory


TTOPT_UNIVERSE = Universe(
    all_dialects={"tt": _tt, "ttg": _ttg, "ttng": _ttng},
    all_passes={name: _pass(name) for name in ("redundant-load", "redundant-reduce", "div-chain")},
)
