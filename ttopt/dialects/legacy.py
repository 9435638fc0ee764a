"""Ops, layouts and types of Triton releases before 3.6 that 3.6 no longer has (or has with
another structure), for reading and writing those releases' IR (:mod:`.versions`).

Each is registered only in the contexts of the releases that have it (:data:`LEGACY`, read by
:func:`ttopt.dialects.make_context`), under its 3.3+ name (``ttg.``/``ttng.``); the releases
before 3.3 spell it ``triton_gpu.``/``triton_nvidia_gpu.`` (:meth:`.versions.Syntax.op_name`).
None of these ops declares memory effects unless it is a pure view: the passes treat them
as writers (when unsure, do not rewrite).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, i1, i32, i64
from xdsl.ir import Attribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    ParsePropInAttrDict,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.mlir_lexer import MLIRTokenKind

from ..xdsl_compat import peek_token

from .arith import CMPF_PREDICATES, CMPI_PREDICATES, CompareOp
from .base import TritonOp
from .declarative import irdl_triton_op
from .syntax import (
    parse_cache_evict,
    parse_functional_type,
    parse_maybe_unqualified,
    parse_operand_list,
    parse_type_list,
    print_cache_evict,
    print_types,
    resolve_all,
)
from .traits import ReadWriteEffect
from .tt import PTR, DotLikeOp
from .tt_attrs import PointerType
from .ttg import I1, I32, MEMDESC, MemDescType
from .tt_attrs import i1_like, loaded_type, opaque_attr

# ------------------------------------------------------------------ Triton 2.1: tensor compares


@irdl_triton_op
class CmpiOp(CompareOp):
    """``triton_gpu.cmpi`` (Triton 2.1's TTGIR compare of tensors with a layout)."""

    name = "ttg.cmpi"
    TABLE: ClassVar[dict[str, int]] = CMPI_PREDICATES
    traits = traits_def(Pure())


@irdl_triton_op
class CmpfOp(CompareOp):
    name = "ttg.cmpf"
    TABLE: ClassVar[dict[str, int]] = CMPF_PREDICATES
    traits = traits_def(Pure())


# ------------------------------------------------------------------ Triton 2.x: shared-memory tensors


_DYNAMIC = -(1 << 63)  # MLIR's ShapedType::kDynamic in a static index list


@irdl_triton_op
class ExtractSliceOp(TritonOp):
    """``triton_gpu.extract_slice %t[%i, 0, 0] [1, 64, 32] [1, 1, 1] : T to U`` (2.x): MLIR's
    offsets/sizes/strides lists, each entry a constant or a value."""

    name = "ttg.extract_slice"
    source = operand_def()
    offsets = var_operand_def()
    sizes = var_operand_def()
    strides = var_operand_def()
    result = result_def()
    static_offsets = prop_def(DenseArrayBase)
    static_sizes = prop_def(DenseArrayBase)
    static_strides = prop_def(DenseArrayBase)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        src = parser.parse_unresolved_operand()
        lists = []
        for _ in range(3):
            values, statics = [], []

            def entry():
                if peek_token(parser).kind == MLIRTokenKind.PERCENT_IDENT:
                    values.append(parser.parse_unresolved_operand())
                    statics.append(_DYNAMIC)
                else:
                    statics.append(parser.parse_integer())

            parser.parse_comma_separated_list(parser.Delimiter.SQUARE, entry)
            lists.append((values, statics))
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_keyword("to")
        res_type = parser.parse_type()
        operands = [resolve_all(parser, [src], [src_type])[0]]
        for values, _ in lists:  # (i32 in Triton's TTGIR; whatever they are defined as)
            operands.append([_resolve_as_defined(parser, v) for v in values])
        for name, (_, statics) in zip(("static_offsets", "static_sizes", "static_strides"), lists):
            props[name] = DenseArrayBase.from_list(i64, statics)
        return cls.build(operands, [res_type], props, attrs, successors=[])

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        groups = (
            (self.offsets, self.static_offsets), (self.sizes, self.static_sizes),
            (self.strides, self.static_strides),
        )
        first = True
        for values, statics in groups:
            printer.print_string("[" if first else " [")
            first = False
            it = iter(values)
            parts = []
            for v in statics.get_values():
                parts.append(None if v == _DYNAMIC else str(v))
            for i, part in enumerate(parts):
                if i:
                    printer.print_string(", ")
                if part is None:
                    printer.print_ssa_value(next(it))
                else:
                    printer.print_string(part)
            printer.print_string("]")
        self.print_attr_dict(printer, {"static_offsets", "static_sizes", "static_strides"})
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" to ")
        printer.print_attribute(self.result.type)


def _resolve_as_defined(parser: Parser, operand):
    """An operand of the type it was defined with (i32 if it is not defined yet)."""
    values = parser.ssa_values.get(operand.operand_name)
    if values is not None and operand.index < len(values):
        return values[operand.index]
    return parser.resolve_operand(operand, i32)


@irdl_triton_op
class InsertSliceAsyncOp(TritonOp):
    """``triton_gpu.insert_slice_async %src, %dst, %index (, %mask (, %other)?)? {axis,
    cache, evict, isVolatile} : P -> T`` (2.x): an asynchronous copy into shared memory."""

    name = "ttg.insert_slice_async"
    src = operand_def()
    dst = operand_def()
    index = operand_def()
    mask = opt_operand_def()
    other = opt_operand_def()
    result = result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser):
        ops = parse_operand_list(parser)
        if not 3 <= len(ops) <= 5:
            parser.raise_error("triton_gpu.insert_slice_async expects 3 to 5 operands")
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_punctuation("->")
        dst_type = parser.parse_type()
        types = [src_type, dst_type, i32, i1_like(src_type), loaded_type(src_type)][: len(ops)]
        values = resolve_all(parser, ops, types)
        props["operandSegmentSizes"] = DenseArrayBase.from_list(
            i32, [1, 1, 1, int(len(ops) > 3), int(len(ops) > 4)]
        )
        return cls.build(values, [dst_type], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_ssa_value)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_triton_op
class AllocTensorOp(TritonOp):
    """``%t = triton_gpu.alloc_tensor : tensor<..., #shared>`` (2.x)."""

    name = "ttg.alloc_tensor"
    result = result_def()
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($result)"


@irdl_triton_op
class AsyncCommitGroup2Op(TritonOp):
    """``triton_gpu.async_commit_group`` (2.x: no tokens)."""

    name = "ttg.async_commit_group"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "attr-dict"


@irdl_triton_op
class AsyncWait2Op(TritonOp):
    """``triton_gpu.async_wait {num = 1 : i32}`` (2.x: no tokens)."""

    name = "ttg.async_wait"
    num = opt_prop_def(IntegerAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "attr-dict"


# ------------------------------------------------------------------ Hopper before warp_group_dot


@irdl_triton_op
class DotAsyncOp(DotLikeOp):
    """``triton_nvidia_gpu.dot_async %a, %b, %c {...} : A * B -> D`` (2.2 - 3.1; later
    ``ttng.warp_group_dot``)."""

    name = "ttng.dot_async"
    KEYWORD_PRECISION: ClassVar[bool] = False


@irdl_triton_op
class DotWaitOp(TritonOp):
    """``triton_nvidia_gpu.dot_wait %a (, %b ...)? {pendings} : T...`` (2.2 - 3.1): the
    results are the operands (later ``ttng.warp_group_dot_wait``)."""

    name = "ttng.dot_wait"
    inputs = var_operand_def()
    outputs = var_result_def()

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


# ------------------------------------------------------------------ Triton 3.0 - 3.4


@irdl_triton_op
class MemDescSubviewOp(TritonOp):
    """``ttg.memdesc_subview %m[%i, %j, %k] : !ttg.memdesc<..> -> !ttg.memdesc<..>`` (3.0 -
    3.4; later ``ttg.memdesc_index``): a view."""

    name = "ttg.memdesc_subview"
    src = operand_def()
    offsets = var_operand_def(I32)
    result = result_def()
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$src `[` $offsets `]` attr-dict `:` type($src) `->` type($result)"


@irdl_triton_op
class ExperimentalDescriptorLoadOp(TritonOp):
    """``tt.experimental_descriptor_load %d[%i, %j] : D -> T`` (3.0 - 3.3)."""

    name = "tt.experimental_descriptor_load"
    desc = operand_def()
    indices = var_operand_def(I32)
    result = result_def()
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect())
    assembly_format = "$desc `[` $indices `]` attr-dict `:` type($desc) `->` type($result)"


@irdl_triton_op
class ExperimentalDescriptorStoreOp(TritonOp):
    """``tt.experimental_descriptor_store %d[%i, %j], %v : D, T`` (3.0 - 3.3)."""

    name = "tt.experimental_descriptor_store"
    desc = operand_def()
    indices = var_operand_def(I32)
    src = operand_def()
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$desc `[` $indices `]` `,` $src attr-dict `:` type($desc) `,` type($src)"


@irdl_triton_op
class AsyncTMACopyGlobalToLocalPtrOp(TritonOp):
    """``triton_nvidia_gpu.async_tma_copy_global_to_local %desc[%i, %j] %dst, %bar, %pred :
    <i8>, <..> -> <..>`` (3.0 - 3.3: the descriptor is a pointer)."""

    name = "ttng.async_tma_copy_global_to_local"
    desc = operand_def(PTR)
    coord = var_operand_def(I32)
    barrier = operand_def(MEMDESC)
    result = operand_def(MEMDESC)
    pred = operand_def(I1)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(ReadWriteEffect())

    @classmethod
    def parse(cls, parser: Parser):
        desc = parser.parse_unresolved_operand()
        coord = []
        parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: coord.append(parser.parse_unresolved_operand())
        )
        dst = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        bar = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        pred = parser.parse_unresolved_operand()
        props: dict[str, Attribute] = {}
        parse_cache_evict(parser, props)
        p2, attrs = cls.parse_attr_dict(parser)
        props.update(p2)
        parser.parse_punctuation(":")
        dt = parse_maybe_unqualified(parser, PointerType)
        parser.parse_punctuation(",")
        bt = parse_maybe_unqualified(parser, MemDescType)
        parser.parse_punctuation("->")
        rt = parse_maybe_unqualified(parser, MemDescType)
        (d,) = resolve_all(parser, [desc], [dt])
        cs = resolve_all(parser, coord, [i32] * len(coord))
        r, b, pr = resolve_all(parser, [dst, bar, pred], [rt, bt, i1])
        return cls.build([d, cs, b, r, pr], [], props, attrs, successors=[])

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.desc)
        printer.print_string("[")
        printer.print_list(self.coord, printer.print_ssa_value)
        printer.print_string("] ")
        printer.print_ssa_value(self.result)
        printer.print_string(", ")
        printer.print_ssa_value(self.barrier)
        printer.print_string(", ")
        printer.print_ssa_value(self.pred)
        print_cache_evict(self, printer)
        self.print_attr_dict(printer, {"cache", "evict"})
        printer.print_string(" : ")
        printer.print_attribute(self.desc.type)
        printer.print_string(", ")
        printer.print_attribute(self.barrier.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_triton_op
class AsyncTMACopyLocalToGlobalPtrOp(TritonOp):
    """``triton_nvidia_gpu.async_tma_copy_local_to_global %desc[%i, %j] %src : <i8>, <..>``
    (3.0 - 3.3: the descriptor is a pointer)."""

    name = "ttng.async_tma_copy_local_to_global"
    desc = operand_def(PTR)
    coord = var_operand_def(I32)
    src = operand_def(MEMDESC)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(ReadWriteEffect())
    assembly_format = "$desc `[` $coord `]` $src attr-dict `:` type($desc) `,` type($src)"


@irdl_triton_op
class ExperimentalTensormapCreateOp(TritonOp):
    """``tt.experimental_tensormap_create %desc, %base, [..], [..], [..], [..] {..} : (..) ->
    ()`` (3.3): writes a TMA descriptor."""

    name = "tt.experimental_tensormap_create"
    desc_ptr = operand_def()
    global_address = operand_def()
    box_dim = var_operand_def()
    global_dim = var_operand_def()
    global_stride = var_operand_def()
    element_stride = var_operand_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryWriteEffect())

    @classmethod
    def parse(cls, parser: Parser):
        d = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        g = parser.parse_unresolved_operand()
        groups = []
        for _ in range(4):
            parser.parse_punctuation(",")
            group = []
            parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, lambda: group.append(parser.parse_unresolved_operand())
            )
            groups.append(group)
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        ins, outs = parse_functional_type(parser)
        flat = [d, g, *(o for grp in groups for o in grp)]
        values = resolve_all(parser, flat, ins)
        it = iter(values)
        operands = [next(it), next(it)] + [[next(it) for _ in grp] for grp in groups]
        return cls.build(operands, outs, props, attrs, successors=[])

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.desc_ptr)
        printer.print_string(", ")
        printer.print_ssa_value(self.global_address)
        for group in (self.box_dim, self.global_dim, self.global_stride, self.element_stride):
            printer.print_string(", [")
            printer.print_list(group, printer.print_ssa_value)
            printer.print_string("]")
        self.print_attr_dict(printer)
        printer.print_string(" : (")
        print_types(printer, self.operand_types)
        printer.print_string(") -> ()")


@irdl_triton_op
class ExperimentalTensormapFenceproxyAcquireOp(TritonOp):
    """``tt.experimental_tensormap_fenceproxy_acquire %desc : !tt.ptr<i8>`` (3.3)."""

    name = "tt.experimental_tensormap_fenceproxy_acquire"
    desc_ptr = operand_def()
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$desc_ptr attr-dict `:` type($desc_ptr)"


LEGACY_LAYOUT_NAMES = ("mma", "shared", "mfma", "wmma")
LegacyLayouts = [opaque_attr("ttg." + n) for n in LEGACY_LAYOUT_NAMES]
"""``#triton_gpu.mma`` (2.x; ``nvidia_mma`` from 3.0), ``#triton_gpu.shared`` (before 3.3
split it into ``swizzled_shared`` / ``nvmma_shared``), AMD's ``mfma``/``wmma`` (2.x)."""

# (class, first release, last release)
LEGACY: tuple[tuple[type, tuple[int, int], tuple[int, int]], ...] = (
    (CmpiOp, (2, 1), (2, 1)),
    (CmpfOp, (2, 1), (2, 1)),
    (ExtractSliceOp, (2, 1), (2, 3)),
    (InsertSliceAsyncOp, (2, 1), (2, 3)),
    (AllocTensorOp, (2, 1), (2, 3)),
    (AsyncCommitGroup2Op, (2, 1), (2, 3)),
    (AsyncWait2Op, (2, 1), (2, 3)),
    (DotAsyncOp, (2, 2), (3, 1)),
    (DotWaitOp, (2, 2), (3, 1)),
    (MemDescSubviewOp, (3, 0), (3, 4)),
    (ExperimentalDescriptorLoadOp, (3, 0), (3, 3)),
    (ExperimentalDescriptorStoreOp, (3, 0), (3, 3)),
    (AsyncTMACopyGlobalToLocalPtrOp, (3, 0), (3, 3)),
    (AsyncTMACopyLocalToGlobalPtrOp, (3, 0), (3, 3)),
    (ExperimentalTensormapCreateOp, (3, 3), (3, 3)),
    (ExperimentalTensormapFenceproxyAcquireOp, (3, 3), (3, 3)),
    *((cls, (2, 1), (3, 2)) for cls in LegacyLayouts),
)

__all__ = ["LEGACY", "LEGACY_LAYOUT_NAMES"]
