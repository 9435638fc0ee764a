"""TritonGPU (``ttg``) and TritonNvidiaGPU (``ttng``): layouts, memory descriptors, ops.

Layout encodings (``#ttg.blocked<...>`` ...) and ``!ttg.memdesc<...>`` are kept as the raw
text of their bodies (see :class:`~ttopt.dialects.tt.OpaqueBodyAttr`): ttopt's passes never
look inside a layout, and keeping the text makes the round trip exact.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, StringAttr, i32
from xdsl.ir import Attribute, Dialect
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from .base import TritonOp, parse_operand_list, parse_type_list, print_types, resolve_all
from .constraints import element_type, same, shape_of
from .constraints import first as _first
from .families import ArrowOp, FunctionalTypeOp
from .tt import (
    DotLikeOp,
    ReadWriteEffect,
    _parse_cache_evict,
    _parse_maybe_unqualified,
    _print_cache_evict,
    i1_like,
    loaded_type,
    opaque_attr,
)

LAYOUTS = [
    opaque_attr("ttg." + n)
    for n in [
        "blocked", "slice", "dot_op", "nvidia_mma", "amd_mfma", "amd_wmma", "linear",
        "swizzled_shared", "nvmma_shared", "padded_shared", "shared_linear",
        "amd_rotating_shared", "shared_memory", "partitioned_shared",
    ]
]
MemDescType = opaque_attr("ttg.memdesc", is_type=True)
AsyncTokenType = opaque_attr("ttg.async.token", is_type=True)

TTNG_LAYOUTS = [
    opaque_attr("ttng." + n)
    for n in ["tensor_memory", "tensor_memory_encoding", "tensor_memory_scales_encoding"]
]


def _arrow(op_name: str, effect, **extra):
    cls = type(
        "".join(p.capitalize() for p in op_name.split(".")[1].split("_")) + "Op",
        (ArrowOp,),
        {"name": op_name, "traits": traits_def(effect), **extra},
    )
    return irdl_op_definition(cls)


def _verify_convert_layout(op) -> None:
    """``SameOperandsAndResultShape`` + ``SameOperandsAndResultElementType``."""
    s, r = op._operands[0].type, _first(op.results).type
    if shape_of(s) != shape_of(r):
        raise VerifyException("requires the same shape for all operands and results")
    if not same(element_type(s), element_type(r)):
        raise VerifyException("requires the same element type for all operands and results")


ConvertLayoutOp = _arrow("ttg.convert_layout", Pure(), verify_=_verify_convert_layout)
MemDescTransOp = _arrow("ttg.memdesc_trans", Pure())
MemDescReshapeOp = _arrow("ttg.memdesc_reshape", Pure())
MemDescReinterpretOp = _arrow("ttg.memdesc_reinterpret", Pure())
Fp4ToFpOp = _arrow("ttg.fp4_to_fp", Pure())


@irdl_op_definition
class LocalAllocOp(FunctionalTypeOp):
    """``ttg.local_alloc (%src)? : (T) -> !ttg.memdesc<..>``: allocates (and writes)."""

    name = "ttg.local_alloc"
    traits = traits_def(MemoryWriteEffect())


@irdl_op_definition
class LocalLoadOp(TritonOp):
    """``ttg.local_load %m (token %t)? : !ttg.memdesc<..> -> tensor<..>``."""

    name = "ttg.local_load"
    src = operand_def()
    token = opt_operand_def()
    result = result_def()
    traits = traits_def(MemoryReadEffect())

    @classmethod
    def parse(cls, parser: Parser):
        s = parser.parse_unresolved_operand()
        tok = None
        if parser.parse_optional_keyword("token") is not None:
            tok = parser.parse_unresolved_operand()
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        st = parser.parse_type()
        parser.parse_punctuation("->")
        rt = parser.parse_type()
        values = [parser.resolve_operand(s, st)]
        if tok is not None:
            values.append(parser.resolve_operand(tok, _token_type()))
        return cls.build(values, [rt], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.src)
        if self.token is not None:
            printer.print_string(" token ")
            printer.print_ssa_value(self.token)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


def _token_type():
    """``!ttg.async.token`` (built once)."""
    global _TOKEN
    if _TOKEN is None:
        _TOKEN = AsyncTokenType.new((StringAttr(""),))
    return _TOKEN


_TOKEN = None


@irdl_op_definition
class LocalStoreOp(TritonOp):
    """``ttg.local_store %v, %m : tensor<..> -> !ttg.memdesc<..>``."""

    name = "ttg.local_store"
    src = operand_def()
    dst = operand_def()
    traits = traits_def(MemoryWriteEffect())

    @classmethod
    def parse(cls, parser: Parser):
        s = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        d = parser.parse_unresolved_operand()
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        st = parser.parse_type()
        parser.parse_punctuation("->")
        dt = parser.parse_type()
        return cls.build(resolve_all(parser, [s, d], [st, dt]), [], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_ssa_value)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.dst.type)


@irdl_op_definition
class LocalDeallocOp(TritonOp):
    """``ttg.local_dealloc %m : !ttg.memdesc<..>`` (a free: ordered like a writer)."""

    name = "ttg.local_dealloc"
    src = operand_def()
    traits = traits_def(MemoryWriteEffect())

    @classmethod
    def parse(cls, parser: Parser):
        s = parser.parse_unresolved_operand()
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        return cls.build([parser.resolve_operand(s, parser.parse_type())], [], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.src)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)


@irdl_op_definition
class MemDescIndexOp(TritonOp):
    """``ttg.memdesc_index %m[%i] : !ttg.memdesc<..> -> !ttg.memdesc<..>``."""

    name = "ttg.memdesc_index"
    src = operand_def()
    index = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        s = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        i = parser.parse_unresolved_operand()
        parser.parse_punctuation("]")
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        st = parser.parse_type()
        parser.parse_punctuation("->")
        rt = parser.parse_type()
        return cls.build(resolve_all(parser, [s, i], [st, i32]), [rt], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.src)
        printer.print_string("[")
        printer.print_ssa_value(self.index)
        printer.print_string("]")
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class AsyncCopyGlobalToLocalOp(TritonOp):
    """``ttg.async_copy_global_to_local %p, %m (mask %k)? (other %o)? oilist : P -> <memdesc>``."""

    name = "ttg.async_copy_global_to_local"
    src = operand_def()
    result = operand_def()
    mask = opt_operand_def()
    other = opt_operand_def()
    token = result_def()
    cache = opt_prop_def(IntegerAttr)
    evict = opt_prop_def(IntegerAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(ReadWriteEffect())

    @classmethod
    def parse(cls, parser: Parser):
        s = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        d = parser.parse_unresolved_operand()
        mask = other = None
        if parser.parse_optional_keyword("mask") is not None:
            mask = parser.parse_unresolved_operand()
        if parser.parse_optional_keyword("other") is not None:
            other = parser.parse_unresolved_operand()
        props: dict[str, Attribute] = {}
        _parse_cache_evict(parser, props)
        p2, attrs = cls.parse_attr_dict(parser)
        props.update(p2)
        parser.parse_punctuation(":")
        st = parser.parse_type()
        parser.parse_punctuation("->")
        dt = _parse_maybe_unqualified(parser, MemDescType)
        values = resolve_all(parser, [s, d], [st, dt])
        if mask is not None:
            values.append(parser.resolve_operand(mask, i1_like(st)))
        if other is not None:
            values.append(parser.resolve_operand(other, loaded_type(st)))
        props["operandSegmentSizes"] = DenseArrayBase.from_list(
            i32, [1, 1, int(mask is not None), int(other is not None)]
        )
        return cls.build(values, [_token_type()], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.src)
        printer.print_string(", ")
        printer.print_ssa_value(self.result)
        if self.mask is not None:
            printer.print_string(" mask ")
            printer.print_ssa_value(self.mask)
        if self.other is not None:
            printer.print_string(" other ")
            printer.print_ssa_value(self.other)
        _print_cache_evict(self, printer)
        self.print_attr_dict(printer, {"cache", "evict"})
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        self.result.type.print_parameters(printer)


@irdl_op_definition
class AsyncCommitGroupOp(TritonOp):
    """``%t = ttg.async_commit_group (tokens %a, %b)?``."""

    name = "ttg.async_commit_group"
    inputTokens = var_operand_def()
    asyncToken = result_def()
    traits = traits_def(MemoryWriteEffect())

    @classmethod
    def parse(cls, parser: Parser):
        ops = []
        if parser.parse_optional_keyword("tokens") is not None:
            ops = parse_operand_list(parser)
        props, attrs = cls.parse_attr_dict(parser)
        tok = _token_type()
        return cls.build(resolve_all(parser, ops, [tok] * len(ops)), [tok], props, attrs)

    def print(self, printer: Printer):
        if self.inputTokens:
            printer.print_string(" tokens ")
            printer.print_list(self.inputTokens, printer.print_ssa_value)
        self.print_attr_dict(printer)


@irdl_op_definition
class AsyncWaitOp(TritonOp):
    """``%t = ttg.async_wait %a, %b {num = 2 : i32}``."""

    name = "ttg.async_wait"
    asyncToken = var_operand_def()
    retToken = result_def()
    traits = traits_def(MemoryWriteEffect())

    @classmethod
    def parse(cls, parser: Parser):
        ops = parse_operand_list(parser)
        props, attrs = cls.parse_attr_dict(parser)
        tok = _token_type()
        return cls.build(resolve_all(parser, ops, [tok] * len(ops)), [tok], props, attrs)

    def print(self, printer: Printer):
        if self.asyncToken:
            printer.print_string(" ")
            printer.print_list(self.asyncToken, printer.print_ssa_value)
        self.print_attr_dict(printer)


TTG = Dialect(
    "ttg",
    [
        ConvertLayoutOp, MemDescTransOp, MemDescReshapeOp, MemDescReinterpretOp, Fp4ToFpOp,
        LocalAllocOp, LocalLoadOp, LocalStoreOp, LocalDeallocOp, MemDescIndexOp,
        AsyncCopyGlobalToLocalOp, AsyncCommitGroupOp, AsyncWaitOp,
    ],
    [*LAYOUTS, MemDescType, AsyncTokenType],
)


# ------------------------------------------------------------------------------- ttng


@irdl_op_definition
class WarpGroupDotOp(DotLikeOp):
    """``ttng.warp_group_dot %a, %b, %c (, %useC)? {inputPrecision, isAsync} : A * B -> D``.

    Reads its shared-memory operands; asynchronous, so ordered like a writer.
    """

    name = "ttng.warp_group_dot"
    KEYWORD_PRECISION: ClassVar[bool] = False
    useC = opt_operand_def()
    traits = traits_def(ReadWriteEffect())


@irdl_op_definition
class WarpGroupDotWaitOp(TritonOp):
    """``%r:N = ttng.warp_group_dot_wait %a, %b {pendings} : T1, T2`` (results = inputs)."""

    name = "ttng.warp_group_dot_wait"
    inputs = var_operand_def()
    outputs = var_result_def()
    traits = traits_def(ReadWriteEffect())

    @classmethod
    def parse(cls, parser: Parser):
        ops = parse_operand_list(parser)
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        types = parse_type_list(parser)
        return cls.build(resolve_all(parser, ops, types), types, props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_list(self.inputs, printer.print_ssa_value)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        print_types(printer, self.operand_types)


@irdl_op_definition
class FenceAsyncSharedOp(TritonOp):
    name = "ttng.fence_async_shared"
    traits = traits_def(MemoryWriteEffect())

    @classmethod
    def parse(cls, parser: Parser):
        props, attrs = cls.parse_attr_dict(parser)
        return cls.build([], [], props, attrs)

    def print(self, printer: Printer):
        self.print_attr_dict(printer)


TTNG = Dialect(
    "ttng",
    [WarpGroupDotOp, WarpGroupDotWaitOp, FenceAsyncSharedOp],
    TTNG_LAYOUTS,
)
