"""``gpu.barrier`` (``tl.debug_barrier``) and ``ub.poison``."""

from __future__ import annotations

from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition, result_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure

from .base import TritonOp


@irdl_op_definition
class BarrierOp(TritonOp):
    """A CTA-wide barrier: orders memory accesses, so it counts as a writer (no trait)."""

    name = "gpu.barrier"

    @classmethod
    def parse(cls, parser: Parser):
        props, attrs = cls.parse_attr_dict(parser)
        return cls.build([], [], props, attrs)

    def print(self, printer: Printer):
        self.print_attr_dict(printer)


@irdl_op_definition
class PoisonOp(TritonOp):
    name = "ub.poison"
    result = result_def()
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        return cls.build([], [parser.parse_type()], props, attrs)

    def print(self, printer: Printer):
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


GPU = Dialect("gpu", [BarrierOp], [])
UB = Dialect("ub", [PoisonOp], [])
