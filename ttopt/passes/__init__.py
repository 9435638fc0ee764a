"""ttopt's passes, by name.

========================  ================================================================
``redundant-load``        :mod:`ttopt.passes.redundant_load`
``redundant-reduce``      :mod:`ttopt.passes.redundant_reduce`
``div-chain``             :mod:`ttopt.passes.div_chain` (reassociates: opt-in)
========================  ================================================================
"""

from __future__ import annotations

from .base import ModulePass, PassStats
from .div_chain import DivChain
from .redundant_load import RedundantLoad
from .redundant_reduce import RedundantReduce

PASSES: dict[str, type[ModulePass]] = {
    p.name: p for p in (RedundantLoad, RedundantReduce, DivChain)
}

__all__ = ["PASSES", "ModulePass", "PassStats"]
