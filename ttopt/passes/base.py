"""What a ttopt pass is: a name, a one-line summary, and ``run(module) -> PassStats``."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from ..dialects.tt import FuncOp


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


class ModulePass(ABC):
    name: str = ""
    summary: str = ""

    @abstractmethod
    def run(self, module: ModuleOp) -> PassStats: ...


class FunctionWalkPass(ModulePass):
    """A pass that walks each function's blocks in order with a table of what is available
    (``_block(block, table) -> rewrites``), counting rewrites per function."""

    def run(self, module: ModuleOp) -> PassStats:
        stats = PassStats(self.name)
        for func in functions(module):
            self.begin_function(func)
            removed = sum(self._block(block, {}) for region in func.regions for block in region.blocks)
            if removed:
                stats.per_function[func.sym_name.data] += removed
        return stats

    def begin_function(self, func: FuncOp) -> None:
        """Reset per-function state."""

    @abstractmethod
    def _block(self, block, available: dict) -> int: ...


def functions(module: ModuleOp):
    for op in module.body.block.ops:
        if isinstance(op, FuncOp):
            yield op


def enclosing_function_name(op: Operation) -> str:
    cur = op
    while cur is not None and not isinstance(cur, FuncOp):
        cur = cur.parent_op()
    return cur.sym_name.data if cur is not None else "<module>"


def erase_op(op: Operation) -> None:
    """Detach ``op`` from its block and erase it (its results must be unused)."""
    block = op.parent_block()
    if block is not None:
        block.erase_op(op)
    else:
        op.erase()
