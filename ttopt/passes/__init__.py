"""ttopt's passes, by name, and the xDSL passes ttopt-opt exposes.

========================  ================================================================
``redundant-load``        :mod:`ttopt.passes.redundant_load`
``redundant-reduce``      :mod:`ttopt.passes.redundant_reduce`
``div-chain``             :mod:`ttopt.passes.div_chain` (reassociates: opt-in)
``recip-hoist``           :mod:`ttopt.passes.recip_hoist` (reassociates: opt-in)
========================  ================================================================

Pipeline aliases (``PIPELINE_ALIASES``), accepted wherever pass names are (``ttopt.optimize``,
``run_pipeline``, ``--pass``, ``-p``, the Triton hook): ``exact``, every exact pass of ttopt
in a good order (``EXACT_ORDER``), ``all``, ``exact`` then the opt-in reassociations
(``div-chain``, ``recip-hoist``), and ``default``, the exact rewrites measured never slower
on the GPU (``DEFAULT_ORDER``: ``hoist-load`` is exact but measured slower where it fired).  They are expanded from ``PASSES`` when used
(:func:`alias_passes`), so a pass registered in ``PASSES`` later is part of them.

Each is an :class:`xdsl.passes.ModulePass` (see :mod:`ttopt.passes.base`).

``XDSL_PASSES``: xDSL's own generic passes that are safe on Triton IR (checked on every fixture
kernel: Triton 3.6 parses and verifies the result), by name, as factories like xDSL's
``get_all_passes()``, with a one-line description each in ``XDSL_SUMMARIES``:

* ``cse``: xDSL's common subexpression elimination.  Merges pure ops, and read-only ops
  (``tt.load``) of one block with no possible writer in between; works through the effects
  each ttopt op declares, so an op with unknown effects is never merged or moved across.
* ``canonicalize``: xDSL's canonicalizer.  ttopt's dialects declare no canonicalization
  patterns or folders, so on Triton IR it removes dead pure ops (and unreachable blocks).
* ``dce``: xDSL's dead code elimination of pure ops whose results are unused (and of dead
  ops in loops).

Other xDSL passes (lowerings to other dialects, ``apply-pdl`` ...) are not exposed: they
target xDSL's own dialects, not Triton's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from xdsl.passes import ModulePass as XDSLModulePass

from .base import ModulePass, PassStats, collect_stats, record_stats
from .div_chain import DivChain
from .hoist_load import HoistLoad
from .recip_hoist import RecipHoist
from .redundant_load import RedundantLoad
from .redundant_reduce import RedundantReduce

PASSES: dict[str, type[XDSLModulePass]] = {
    p.name: p for p in (RedundantLoad, RedundantReduce, DivChain, RecipHoist, HoistLoad)
}

# passes that may change the bits of floating-point results (by their documented, opt-in
# contract); every other pass of ttopt computes exactly what its input computes.  The alias
# `all` (below) is listed too: a name that runs them (`ttopt-opt --pass all --validate`
# allows their ulps).
REASSOCIATING_PASSES = frozenset({"div-chain", "recip-hoist", "all"})

# ------------------------------------------------------------------ pipeline aliases
# The order in which the alias `exact` runs ttopt's exact passes: loads hoisted out of loops
# first (a hoisted load can then be merged with one before the loop), then duplicate loads
# merged (which makes reductions of them identical), then duplicate reductions.  A name not
# registered is skipped; an exact pass registered in PASSES but not listed runs after these.
EXACT_ORDER = ("hoist-load", "redundant-load", "redundant-reduce")
# `all` adds the reassociations, in this order: chains of divisions collapsed first, so that
# recip-hoist makes one reciprocal of b*c instead of two for a/L(b)/L(c).
REASSOCIATING_ORDER = ("div-chain", "recip-hoist")
# The alias `default`: the rewrites measured never slower on the GPU wherever they fired (an
# H100, bench/results/h100-tune and h100-beyond): duplicate loads and duplicate reductions.
# hoist-load is exact but left out (0.989x-0.992x where it fired, past disjoint stores:
# Triton's own LICM hoists the loads it can); the reassociations are opt-in.
DEFAULT_ORDER = ("redundant-load", "redundant-reduce")


def alias_passes(alias: str) -> list[str]:
    """The pass names an alias stands for, from ``PASSES`` as it is now (a pass registered
    later appears when the alias is next expanded).

    * ``exact``: every exact pass of ttopt (``PASSES`` less ``REASSOCIATING_PASSES``), in
      ``EXACT_ORDER``;
    * ``all``: ``exact``, then the reassociating passes (opt-in, documented numeric
      contracts), in ``REASSOCIATING_ORDER``;
    * ``default``: ``DEFAULT_ORDER`` (the exact rewrites measured never slower on the GPU)."""
    exact = [n for n in EXACT_ORDER if n in PASSES] + [
        n for n in PASSES if n not in EXACT_ORDER and n not in REASSOCIATING_PASSES
    ]
    if alias == "exact":
        return exact
    if alias == "default":
        return [n for n in DEFAULT_ORDER if n in PASSES]
    if alias == "all":
        return exact + [n for n in REASSOCIATING_ORDER if n in PASSES] + [
            n for n in PASSES if n in REASSOCIATING_PASSES and n not in REASSOCIATING_ORDER
        ]
    raise KeyError(alias)


def expand_aliases(names):
    """``names`` (pass names and/or pass instances) with each alias name replaced by the
    names it stands for (:func:`alias_passes`); anything else is kept as it is."""
    out = []
    for n in names:
        if isinstance(n, str) and n in PIPELINE_ALIASES:
            out.extend(alias_passes(n))
        else:
            out.append(n)
    return out


@dataclass(frozen=True)
class PipelineAlias(XDSLModulePass):
    """A pipeline alias as an xDSL pass (what ``available_passes`` lists for it): ``apply``
    runs the passes it stands for, in order.  ttopt's own entry points (``resolve_passes``,
    ``parse_pipeline``) expand an alias to those passes before running anything, so each of
    them is timed, printed between and reported on its own."""

    name: ClassVar[str] = ""

    def apply(self, ctx, op) -> None:
        for n in alias_passes(self.name):
            PASSES[n]().apply(ctx, op)


@dataclass(frozen=True)
class ExactAlias(PipelineAlias):
    name: ClassVar[str] = "exact"


@dataclass(frozen=True)
class AllAlias(PipelineAlias):
    name: ClassVar[str] = "all"


@dataclass(frozen=True)
class DefaultAlias(PipelineAlias):
    name: ClassVar[str] = "default"


PIPELINE_ALIASES: dict[str, type[PipelineAlias]] = {
    "exact": ExactAlias, "all": AllAlias, "default": DefaultAlias,
}


def alias_summary(alias: str) -> str:
    """The one-line description of an alias, with the passes it stands for now."""
    what = {
        "exact": "every exact rewrite of ttopt",
        "all": "exact, then the opt-in reassociations (change rounding)",
        "default": "the exact rewrites measured never slower on the GPU",
    }[alias]
    return f"(alias) {what}: {','.join(alias_passes(alias))}"


def _cse() -> type[XDSLModulePass]:
    from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination

    return CommonSubexpressionElimination


def _canonicalize() -> type[XDSLModulePass]:
    from xdsl.transforms.canonicalize import CanonicalizePass

    return CanonicalizePass


def _dce() -> type[XDSLModulePass]:
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    return DeadCodeElimination


XDSL_PASSES: dict[str, Callable[[], type[XDSLModulePass]]] = {
    "cse": _cse,
    "canonicalize": _canonicalize,
    "dce": _dce,
}

XDSL_SUMMARIES: dict[str, str] = {
    "cse": "(xDSL) common subexpression elimination: merge identical pure ops, and identical "
    "loads of one block with no possible write in between",
    "canonicalize": "(xDSL) apply canonicalization patterns and folders (ttopt's dialects "
    "declare none: removes dead pure ops)",
    "dce": "(xDSL) remove pure ops whose results are unused",
}


LOADED_PASSES: dict[str, type[XDSLModulePass]] = {}
"""Passes registered at run time (:func:`register_pass`, ``ttopt-opt --load-pass FILE``)."""


def available_passes() -> dict[str, Callable[[], type]]:
    """Every pass ``-p`` accepts, by name, as factories (the form of xDSL's
    ``get_all_passes()`` and ``PassPipeline.parse_spec``): ttopt's (read from ``PASSES`` at
    each call) first, then ``XDSL_PASSES``, then the aliases ``PIPELINE_ALIASES``, then
    ``LOADED_PASSES``."""
    passes: dict[str, Callable[[], type]] = {
        name: (lambda cls=cls: cls) for name, cls in PASSES.items()
    }
    for name, factory in XDSL_PASSES.items():
        passes.setdefault(name, factory)
    for name, cls in PIPELINE_ALIASES.items():
        passes.setdefault(name, lambda cls=cls: cls)
    for name, cls in LOADED_PASSES.items():
        passes.setdefault(name, lambda cls=cls: cls)
    return passes


def pass_summary(name: str) -> str:
    """The one-line description of an available pass."""
    if name in PASSES:
        return getattr(PASSES[name], "summary", "") or ""
    if name in PIPELINE_ALIASES:
        return alias_summary(name)
    if name in LOADED_PASSES:
        cls = LOADED_PASSES[name]
        text = getattr(cls, "summary", "") or (cls.__doc__ or "").strip()
        return text.splitlines()[0] if text else ""
    return XDSL_SUMMARIES.get(name, "")


def register_pass(cls: type[XDSLModulePass]) -> None:
    """Make an xDSL pass class available to ``-p`` / :func:`ttopt.parse_pipeline` under its
    ``name``; a name that is taken (by another class) is a :class:`~ttopt.errors.TTOptError`."""
    from ..errors import TTOptError

    name = getattr(cls, "name", None)
    if not isinstance(cls, type) or not issubclass(cls, XDSLModulePass) or not isinstance(name, str) or not name:
        raise TTOptError(f"{cls!r} is not an xDSL ModulePass with a name", "ttopt-opt")
    taken = PASSES.get(name) or LOADED_PASSES.get(name) or (
        (name in XDSL_PASSES or name in PIPELINE_ALIASES) and name
    )
    reloaded = isinstance(taken, type) and name in LOADED_PASSES and (
        (taken.__module__, taken.__qualname__) == (cls.__module__, cls.__qualname__)
    )  # the same file loaded again
    if taken and taken is not cls and not reloaded:
        raise TTOptError(f"cannot register pass '{name}': the name is taken", "ttopt-opt")
    LOADED_PASSES[name] = cls


def load_pass_file(path: str) -> list[str]:
    """Import the Python file ``path`` and register (:func:`register_pass`) every concrete
    xDSL ``ModulePass`` subclass it defines; returns their names.  Any failure (a missing
    file, an exception while importing, no pass in it) is a one-line
    :class:`~ttopt.errors.TTOptError`."""
    import importlib.util
    import inspect
    import os
    import sys

    from ..errors import TTOptError

    if not os.path.isfile(path):
        raise TTOptError("cannot load passes: no such file", path)
    stem = "".join(c if c.isalnum() else "_" for c in os.path.splitext(os.path.basename(path))[0])
    module_name = f"ttopt_loaded_passes.{stem}_{abs(hash(os.path.abspath(path)))}"
    try:
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise ImportError("not a Python file")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module  # dataclasses look their module up while decorating
        spec.loader.exec_module(module)
    except Exception as e:
        sys.modules.pop(module_name, None)
        raise TTOptError(f"cannot load passes: {type(e).__name__}: {e}", path) from None
    found = [
        obj for obj in vars(module).values()
        if isinstance(obj, type) and issubclass(obj, XDSLModulePass)
        and obj.__module__ == module_name and not inspect.isabstract(obj)
        and isinstance(getattr(obj, "name", None), str) and obj.name
    ]
    if not found:
        raise TTOptError("cannot load passes: the file defines no xDSL ModulePass with a name", path)
    for cls in found:
        register_pass(cls)
    return [cls.name for cls in found]


__all__ = [
    "DEFAULT_ORDER",
    "EXACT_ORDER",
    "PASSES",
    "PIPELINE_ALIASES",
    "REASSOCIATING_ORDER",
    "REASSOCIATING_PASSES",
    "XDSL_PASSES",
    "ModulePass",
    "PassStats",
    "LOADED_PASSES",
    "alias_passes",
    "available_passes",
    "expand_aliases",
    "collect_stats",
    "load_pass_file",
    "pass_summary",
    "record_stats",
    "register_pass",
]
