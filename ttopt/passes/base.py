"""What a ttopt pass is: an :class:`xdsl.passes.ModulePass` that may report statistics.

A ttopt pass is a frozen dataclass with ``name: ClassVar[str]`` and a one-line
``summary: ClassVar[str]``; its options are dataclass fields (``-p 'pass{opt=v}'``), and
``apply(ctx, module)`` rewrites the module in place, as in any xDSL pass.  So ttopt's passes run
in ``xdsl-opt`` (see :mod:`ttopt.universe`) and in any :class:`xdsl.passes.PassPipeline`.

Statistics (how many rewrites per function: the paper's R-Load / R-Reduce columns) are not
options and not part of the IR: a pass hands its :class:`PassStats` to :func:`record_stats`,
which appends it to the *statistics sink* of the current context (a
:class:`contextvars.ContextVar`, set by :func:`collect_stats`; ``ttopt.run_pipeline`` sets
one).  Without a sink (e.g. under ``xdsl-opt``) the numbers are dropped.

Two ways to write a pass:

* override ``apply(ctx, op)`` and call :func:`record_stats` (the xDSL way;
  :class:`FunctionWalkPass` does this);
* the legacy contract, ``run(module) -> PassStats``: the base's ``apply`` calls ``run`` and
  records what it returns (kept for passes written against ttopt 0.1; none of ttopt's own
  passes uses it: ``redundant-load`` and ``redundant-reduce`` are :class:`FunctionWalkPass`,
  ``div-chain`` is a plain xDSL pass running an xDSL ``RewritePattern``).

Either way ``run(module) -> PassStats`` is available to callers: for a pass that overrides
``apply`` it applies the pass and returns its statistics.
"""

from __future__ import annotations

from abc import abstractmethod
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass as XDSLModulePass

from ..dialects.tt import FuncOp
from ..xdsl_compat import set_value_name


@dataclass
class PassStats:
    """How many rewrites a pass made, per function (``tt.func`` symbol name)."""

    name: str
    per_function: Counter = field(default_factory=Counter)

    @property
    def total(self) -> int:
        return sum(self.per_function.values())

    def to_dict(self) -> dict:
        return {"pass": self.name, "rewrites": self.total, "per_function": dict(self.per_function)}


# ------------------------------------------------------------------ the statistics sink
_STATS_SINK: ContextVar[list[PassStats] | None] = ContextVar("ttopt_stats_sink", default=None)


@contextmanager
def collect_stats() -> Iterator[list[PassStats]]:
    """``with collect_stats() as stats:`` every :func:`record_stats` inside (in this thread
    or task) appends to ``stats``; sinks nest (the innermost one collects)."""
    sink: list[PassStats] = []
    token = _STATS_SINK.set(sink)
    try:
        yield sink
    finally:
        _STATS_SINK.reset(token)


def record_stats(stats: PassStats) -> None:
    """Hand a pass's statistics to the current sink (dropped if there is none)."""
    sink = _STATS_SINK.get()
    if sink is not None:
        sink.append(stats)


@lru_cache(maxsize=1)
def default_context() -> Context:
    """The context ``run(module)`` applies a pass with: ttopt's dialects."""
    from ..dialects import make_context

    return make_context()


# ------------------------------------------------------------------ passes
@dataclass(frozen=True)
class ModulePass(XDSLModulePass):
    """A ttopt pass (see the module docstring)."""

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        """Legacy contract: apply the pass through ``run`` and record its statistics."""
        if type(self).run is ModulePass.run:
            raise NotImplementedError(f"pass '{self.name}' defines neither apply() nor run()")
        record_stats(self.run(op))

    def run(self, module: ModuleOp) -> PassStats:
        """Apply the pass to ``module``; return its statistics (merged, if it recorded
        several, and empty if it recorded none)."""
        if type(self).apply is ModulePass.apply:
            raise NotImplementedError(f"pass '{self.name}' defines neither apply() nor run()")
        with collect_stats() as sink:
            self.apply(default_context(), module)
        merged = PassStats(self.name)
        for s in sink:
            merged.per_function.update(s.per_function)
        return merged

    def set_state(self, **values) -> None:
        """Per-run scratch state of a pass (tables, caches), kept on the instance.  xDSL
        passes are frozen dataclasses because their fields are their *options*; this state
        is not an option and is reset by the pass at the start of each function."""
        for key, value in values.items():
            object.__setattr__(self, key, value)


@dataclass(frozen=True)
class FunctionWalkPass(ModulePass):
    """A pass that walks each function's blocks in order with a table of what is available
    (``_block(block, table) -> rewrites``), counting rewrites per function."""

    NEEDS_TWO: ClassVar[tuple[type, ...]] = ()
    """Op classes of which a function must hold two (in all) for the pass to rewrite
    anything in it (each rewrite merges one such op into another): a function with fewer is
    skipped without a walk of its blocks.  Empty: none skipped."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        stats = PassStats(self.name)
        for func in functions(op):
            if not self.may_rewrite(func):
                continue
            self.begin_function(func)
            removed = sum(self._block(block, {}) for region in func.regions for block in region.blocks)
            if removed:
                stats.per_function[func.sym_name.data] += removed
        record_stats(stats)

    def may_rewrite(self, func: FuncOp) -> bool:
        """False where the pass provably rewrites nothing in ``func`` (it is then not
        walked): by default, where ``func`` holds fewer than two ops of ``NEEDS_TWO``."""
        return not self.NEEDS_TWO or holds_two(func, self.NEEDS_TWO)

    def begin_function(self, func: FuncOp) -> None:
        """Reset per-function state (with :meth:`set_state`)."""

    @abstractmethod
    def _block(self, block, available: dict) -> int: ...


def functions(module: ModuleOp):
    for op in module.body.block.ops:
        if isinstance(op, FuncOp):
            yield op


def holds_two(op: Operation, classes: tuple[type, ...]) -> bool:
    """Are there two ops of ``classes`` (in all) inside ``op``?"""
    found = _ops_of(op, classes)
    return next(found, None) is not None and next(found, None) is not None


def ops_of(op: Operation, classes: tuple[type, ...]) -> list[Operation]:
    """The ops of ``classes`` inside ``op`` (at any depth; ``op`` itself left out): each
    block's ops in order, the regions of an op after the rest of its block (not in program
    order)."""
    return list(_ops_of(op, classes))


def kind_test(classes) -> Callable[[Operation], bool]:
    """A function ``op -> isinstance(op, classes)`` that tests each op class once (op classes
    go through ABCMeta: a negative ``isinstance`` is a Python call a class)."""
    memo: dict[type, bool] = {}

    def test(op: Operation) -> bool:
        cls = type(op)
        hit = memo.get(cls)
        if hit is None:
            hit = memo[cls] = issubclass(cls, classes)
        return hit

    return test


_KINDS: dict[tuple[type, ...], dict[type, bool]] = {}  # classes -> {op class: a subclass?}


def _ops_of(op: Operation, classes: tuple[type, ...]) -> Iterator[Operation]:
    todo = [op]
    kinds = _KINDS.get(classes)  # (isinstance on op classes goes through ABCMeta: once a class)
    if kinds is None:
        kinds = _KINDS[classes] = {}
    while todo:  # (a loop over the blocks' op lists: cheaper than xDSL's nested walk)
        for region in todo.pop().regions:
            for block in region.blocks:
                op_ = block.first_op
                while op_ is not None:
                    cls = type(op_)
                    hit = kinds.get(cls)
                    if hit is None:
                        hit = kinds[cls] = issubclass(cls, classes)
                    if hit:
                        yield op_
                    if op_.regions:
                        todo.append(op_)
                    op_ = op_.next_op


def enclosing_function_name(op: Operation) -> str:
    cur = op
    while cur is not None and not isinstance(cur, FuncOp):
        cur = cur.parent_op()
    return cur.sym_name.data if cur is not None else "<module>"


def forget_names(op: Operation) -> None:
    """Drop the SSA names of ``op``'s results, before it is erased or replaced.

    xDSL 0.74 hands an erased (or replaced, unnamed-target) value's name to the new value
    through the ``name_hint`` setter, which rejects the numeric names ttopt's reader keeps
    (``%7 = tt.load ...``: "Invalid ErasedSSAValue name format `7`").  A value that goes away
    needs no name."""
    for r in op.results:
        set_value_name(r, None)


def replace_value(old: SSAValue, new: SSAValue) -> None:
    """``old.replace_all_uses_with(new)``, ``new`` keeping its own name (or taking ``old``'s
    exactly, numeric ones too, where it has none)."""
    if new.name_hint is None and old.name_hint is not None:
        set_value_name(new, old.name_hint)
    set_value_name(old, None)
    old.replace_all_uses_with(new)


def erase_op(op: Operation) -> None:
    """Detach ``op`` from its block and erase it (its results must be unused)."""
    forget_names(op)
    block = op.parent_block()
    if block is not None:
        block.erase_op(op)
    else:
        op.erase()
