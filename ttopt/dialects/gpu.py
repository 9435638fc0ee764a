"""``gpu.barrier`` (``tl.debug_barrier``) and ``ub.poison``.

* ``ub.poison``: xDSL's own class, as it is (``ub.poison : T``).  xDSL's ``ub`` dialect also
  has ``ub.unreachable``, which Triton 3.6's MLIR does not know (``custom op
  'ub.unreachable' is unknown``): ttopt's ``ub`` holds ``ub.poison`` alone.
* ``gpu.barrier``: ttopt's own definition.  xDSL 0.74's ``gpu.barrier`` has no custom syntax
  (``Operation gpu.barrier does not have a custom format``): it reads only the generic
  ``"gpu.barrier"() : () -> ()``, and Triton prints ``gpu.barrier``.  ttopt's ``gpu``
  dialect holds this one op (the only ``gpu`` op Triton 3.6 emits).
"""

from __future__ import annotations

from xdsl.dialects.ub import PoisonAttr, PoisonOp
from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition
from xdsl.parser import Parser
from xdsl.printer import Printer

from .base import TritonOp
from .upstream import register_verify


@irdl_op_definition
class BarrierOp(TritonOp):
    """A CTA-wide barrier: orders memory accesses, so it counts as a writer (no trait, as
    xDSL's and MLIR's ``gpu.barrier``)."""

    name = "gpu.barrier"

    @classmethod
    def parse(cls, parser: Parser):
        props, attrs = cls.parse_attr_dict(parser)
        return cls.build([], [], props, attrs)

    def print(self, printer: Printer):
        self.print_attr_dict(printer)


register_verify(PoisonOp)

GPU = Dialect("gpu", [BarrierOp], [])
UB = Dialect("ub", [PoisonOp], [PoisonAttr])

__all__ = ["BarrierOp", "GPU", "PoisonOp", "UB"]
