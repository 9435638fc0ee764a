"""TritonGPU (``ttg``) and TritonNvidiaGPU (``ttng``): layouts, memory descriptors, ops.

Layout encodings (``#ttg.blocked<...>`` ...) and ``!ttg.memdesc<...>`` are kept as the raw
text of their bodies (see :class:`~ttopt.dialects.tt_attrs.OpaqueBodyAttr`): ttopt's passes
never look inside a layout, and keeping the text makes the round trip exact.

Syntax as in :mod:`ttopt.dialects.tt`: declarative (``assembly_format``) where xDSL 0.74's
format language says what Triton prints, hand-written where it cannot, saying why.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, StringAttr, i32
from xdsl.ir import Attribute, Dialect
from xdsl.irdl import (
    AttrSizedOperandSegments,
    ParsePropInAttrDict,
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

from ..xdsl_compat import operand_tuple
from .base import TritonOp
from .constraints import ExactType, element_type, same, shape_of
from .constraints import first as _first
from .declarative import irdl_triton_op
from .families import ArrowOp, FunctionalTypeOp
from .syntax import (
    parse_cache_evict,
    parse_maybe_unqualified,
    parse_operand_list,
    parse_type_list,
    print_cache_evict,
    print_types,
    resolve_all,
)
from .traits import ReadWriteEffect
from .tt import DotLikeOp
from .tt_attrs import i1_like, loaded_type, opaque_attr

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
ASYNC_TOKEN = AsyncTokenType.new((StringAttr(""),))
"""``!ttg.async.token``."""
TOKEN = ExactType(ASYNC_TOKEN, "async token type")
I32 = ExactType(i32, "32-bit signless integer")

TTNG_LAYOUTS = [
    opaque_attr("ttng." + n)
    for n in ["tensor_memory", "tensor_memory_encoding", "tensor_memory_scales_encoding"]
]


# ------------------------------------------------------------------------------- ttg
# ArrowOp's format, `$src attr-dict : type($src) -> type($result)`


@irdl_triton_op
class ConvertLayoutOp(ArrowOp):
    name = "ttg.convert_layout"
    traits = traits_def(Pure())

    def verify_(self) -> None:
        """``SameOperandsAndResultShape`` + ``SameOperandsAndResultElementType``."""
        s, r = operand_tuple(self)[0].type, _first(self.results).type
        if shape_of(s) != shape_of(r):
            raise VerifyException("requires the same shape for all operands and results")
        if not same(element_type(s), element_type(r)):
            raise VerifyException(
                "requires the same element type for all operands and results"
            )


@irdl_triton_op
class MemDescTransOp(ArrowOp):
    name = "ttg.memdesc_trans"
    traits = traits_def(Pure())


@irdl_triton_op
class MemDescReshapeOp(ArrowOp):
    name = "ttg.memdesc_reshape"
    traits = traits_def(Pure())


@irdl_triton_op
class MemDescReinterpretOp(ArrowOp):
    name = "ttg.memdesc_reinterpret"
    traits = traits_def(Pure())


@irdl_triton_op
class Fp4ToFpOp(ArrowOp):
    name = "ttg.fp4_to_fp"
    traits = traits_def(Pure())


@irdl_triton_op
class LocalAllocOp(FunctionalTypeOp):
    """``ttg.local_alloc (%src)? : (T) -> !ttg.memdesc<..>``: allocates (and writes)."""

    name = "ttg.local_alloc"
    traits = traits_def(MemoryWriteEffect())


@irdl_triton_op
class LocalLoadOp(TritonOp):
    """``ttg.local_load %m (token %t)? : !ttg.memdesc<..> -> tensor<..>``."""

    name = "ttg.local_load"
    src = operand_def()
    token = opt_operand_def(TOKEN)
    result = result_def()
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect())
    assembly_format = (
        "$src (`token` $token^)? attr-dict `:` type($src) `->` type($result)"
    )


@irdl_triton_op
class LocalStoreOp(TritonOp):
    """``ttg.local_store %v, %m : tensor<..> -> !ttg.memdesc<..>``."""

    name = "ttg.local_store"
    src = operand_def()
    dst = operand_def()
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$src `,` $dst attr-dict `:` type($src) `->` type($dst)"


@irdl_triton_op
class LocalDeallocOp(TritonOp):
    """``ttg.local_dealloc %m : !ttg.memdesc<..>`` (a free: ordered like a writer)."""

    name = "ttg.local_dealloc"
    src = operand_def()
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$src attr-dict `:` type($src)"


@irdl_triton_op
class MemDescIndexOp(TritonOp):
    """``ttg.memdesc_index %m[%i] : !ttg.memdesc<..> -> !ttg.memdesc<..>``."""

    name = "ttg.memdesc_index"
    src = operand_def()
    index = operand_def(I32)
    result = result_def()
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$src `[` $index `]` attr-dict `:` type($src) `->` type($result)"


@irdl_triton_op
class AsyncCopyGlobalToLocalOp(TritonOp):
    """``ttg.async_copy_global_to_local %p, %m (mask %k)? (other %o)? oilist : P -> <memdesc>``.

    Hand-written: an oilist, the memory descriptor type printed unqualified, and the mask and
    other types inferred from the pointer type (``TypesMatchWith``)."""

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
        parse_cache_evict(parser, props)
        p2, attrs = cls.parse_attr_dict(parser)
        props.update(p2)
        parser.parse_punctuation(":")
        st = parser.parse_type()
        parser.parse_punctuation("->")
        dt = parse_maybe_unqualified(parser, MemDescType)
        values = resolve_all(parser, [s, d], [st, dt])
        if mask is not None:
            values.append(parser.resolve_operand(mask, i1_like(st)))
        if other is not None:
            values.append(parser.resolve_operand(other, loaded_type(st)))
        props["operandSegmentSizes"] = DenseArrayBase.from_list(
            i32, [1, 1, int(mask is not None), int(other is not None)]
        )
        return cls.build(values, [ASYNC_TOKEN], props, attrs)

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
        print_cache_evict(self, printer)
        self.print_attr_dict(printer, {"cache", "evict"})
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        self.result.type.print_parameters(printer)


@irdl_triton_op
class AsyncCommitGroupOp(TritonOp):
    """``%t = ttg.async_commit_group (tokens %a, %b)?``."""

    name = "ttg.async_commit_group"
    inputTokens = var_operand_def(TOKEN)
    asyncToken = result_def(TOKEN)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "(`tokens` $inputTokens^)? attr-dict"


@irdl_triton_op
class AsyncWaitOp(TritonOp):
    """``%t = ttg.async_wait %a, %b {num = 2 : i32}``."""

    name = "ttg.async_wait"
    asyncToken = var_operand_def(TOKEN)
    retToken = result_def(TOKEN)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$asyncToken attr-dict"


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


@irdl_triton_op
class WarpGroupDotOp(DotLikeOp):
    """``ttng.warp_group_dot %a, %b, %c (, %useC)? {inputPrecision, isAsync} : A * B -> D``.

    Reads its shared-memory operands; asynchronous, so ordered like a writer.  Hand-written
    (``tt.dot``'s syntax, see ``DotLikeOp``).
    """

    name = "ttng.warp_group_dot"
    KEYWORD_PRECISION: ClassVar[bool] = False
    useC = opt_operand_def()
    traits = traits_def(ReadWriteEffect())


@irdl_triton_op
class WarpGroupDotWaitOp(TritonOp):
    """``%r:N = ttng.warp_group_dot_wait %a, %b {pendings} : T1, T2`` (results = inputs).

    Hand-written: the result types are the operand types (``AllTypesMatch``)."""

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


@irdl_triton_op
class FenceAsyncSharedOp(TritonOp):
    name = "ttng.fence_async_shared"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "attr-dict"


TTNG = Dialect(
    "ttng",
    [WarpGroupDotOp, WarpGroupDotWaitOp, FenceAsyncSharedOp],
    TTNG_LAYOUTS,
)

__all__ = [
    "TTG", "TTNG", "LAYOUTS", "TTNG_LAYOUTS", "MemDescType", "AsyncTokenType",
    "ASYNC_TOKEN", "ConvertLayoutOp", "MemDescTransOp", "MemDescReshapeOp",
    "MemDescReinterpretOp", "Fp4ToFpOp", "LocalAllocOp", "LocalLoadOp", "LocalStoreOp",
    "LocalDeallocOp", "MemDescIndexOp", "AsyncCopyGlobalToLocalOp", "AsyncCommitGroupOp",
    "AsyncWaitOp", "WarpGroupDotOp", "WarpGroupDotWaitOp", "FenceAsyncSharedOp",
]
