"""``cf`` as Triton 3.6 emits it: ``cf.br`` and ``cf.cond_br``, xDSL's own op classes.

An early ``return`` in a Triton kernel (``if pid >= n: return``) cannot be an ``scf.if``
(a ``tt.return`` must end the function's block): Triton's code generator splits the
function body into blocks and branches between them::

    cf.cond_br %3, ^bb1, ^bb2
  ^bb1:  // pred: ^bb0
    tt.return
  ^bb2:  // pred: ^bb0
    ...
    cf.br ^bb5(%v : i32)

xDSL's ``cf.br`` and ``cf.cond_br`` read and print exactly that text (their declarative
formats are MLIR's), so ttopt's ``cf`` dialect is xDSL's two classes, each behind the adapter
of :mod:`ttopt.dialects.upstream` (MLIR's constraints: an ``i1`` condition; MLIR's
parse-time behaviour), with two things MLIR has and xDSL 0.74 leaves out:

* **memory effects**: MLIR's branches are ``Pure`` (they only pass values to a block);
  xDSL's declare none, which ttopt's analysis would take for an unknown writer;
* **the successor operand rule** of MLIR's ``BranchOpInterface``: each successor gets as
  many values as its block has arguments, of the same types (``branch has 1 operands for
  successor #0, but target block has 0``).

``cf.assert`` and ``cf.switch`` are not registered: Triton 3.6 never emits them for NVIDIA
targets (``tt.assert`` is lowered later, in ``make_llir``).
"""

from __future__ import annotations

from xdsl.dialects import cf as _x
from xdsl.ir import Dialect, Operation
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from .constraints import same
from .upstream import adapt

BranchOp = _x.BranchOp
ConditionalBranchOp = _x.ConditionalBranchOp


def _successor_operands(op: Operation) -> list[tuple]:
    """(successor block, the values passed to it) of a ``cf`` branch."""
    if isinstance(op, ConditionalBranchOp):
        return [(op.then_block, op.then_arguments), (op.else_block, op.else_arguments)]
    return [(op.successor, op.arguments)]


def _branch_rule(op: Operation) -> None:
    """MLIR's ``verifyBranchSuccessorOperands`` (``BranchOpInterface``)."""
    for n, (block, values) in enumerate(_successor_operands(op)):
        args = block.args
        if len(values) != len(args):
            raise VerifyException(
                f"branch has {len(values)} operands for successor #{n}, but target block "
                f"has {len(args)}"
            )
        for i, (v, a) in enumerate(zip(values, args)):
            if not same(v.type, a.type):
                raise VerifyException(f"type mismatch for bb argument #{i} of successor #{n}")


_WHY = "MLIR's Pure and successor operand rule (see ttopt.dialects.cf)"
ADAPTERS = {
    cls: adapt(cls, extra_traits=(Pure(),), rule=_branch_rule, why=_WHY)
    for cls in (BranchOp, ConditionalBranchOp)
}

CF = Dialect("cf", list(ADAPTERS.values()), [])

__all__ = ["CF", "BranchOp", "ConditionalBranchOp", "ADAPTERS"]
