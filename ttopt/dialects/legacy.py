"""Ops, layouts and types of Triton releases other than 3.6: those 3.6 no longer has (or has
with another structure) and those only newer releases have, for reading and writing those
releases' IR (:mod:`.versions`).

Each is registered only in the contexts of the releases that have it (:data:`LEGACY`, read by
:func:`ttopt.dialects.make_context`), under its 3.3+ name (``ttg.``/``ttng.``); the releases
before 3.3 spell it ``triton_gpu.``/``triton_nvidia_gpu.`` (:meth:`.versions.Syntax.op_name`).
None of these ops declares memory effects unless it is a pure view: the passes treat them
as writers (when unsure, do not rewrite).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    BoolAttr, DenseArrayBase, IntegerAttr, StringAttr, TensorType, UnitAttr, i1, i32, i64,
)
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
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.mlir_lexer import MLIRTokenKind

from ..xdsl_compat import peek_token

from .arith import CMPF_PREDICATES, CMPI_PREDICATES, CompareOp
from . import versions
from .base import TritonOp
from .declarative import irdl_triton_op
from .families import ArrowOp, BinaryOp, FunctionalTypeOp
from .syntax import (
    enum_name,
    int_attr,
    parse_keyword_enum,
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
from .constraints import I32AtMost, encoding_of, in_releases, parse_time_constraints, require_tensormap_ranks
from .tt import CACHE, EVICT, I32_ATTR, PTR, DotLikeOp, MemSemantic, MemSyncScope, check_trans_order
from .tt_attrs import MEM_SEMANTIC, MEM_SYNC_SCOPE, SCALE_DOT_ELEM_TYPE
from .tt_attrs import PointerType
from .ttg import I1, I32, MEMDESC, MemDescType
from .layouts import layout_attr
from .tt_attrs import i1_like, loaded_type

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
    cache = prop_def(CACHE)
    evict = prop_def(EVICT)
    isVolatile = prop_def(BoolAttr)
    axis = prop_def(I32_ATTR)
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
    num = prop_def(I32_ATTR)
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
    pendings = prop_def(I32_ATTR)

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
    cache = opt_prop_def(CACHE)
    evict = opt_prop_def(EVICT)
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
    cache = opt_prop_def(CACHE)
    evict = opt_prop_def(EVICT)
    isVolatile = opt_prop_def(BoolAttr)
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
    elem_type = prop_def(I32AtMost(12))
    interleave_layout = prop_def(I32AtMost(2))
    swizzle_mode = prop_def(I32AtMost(3))
    fill_mode = prop_def(I32AtMost(1))
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryWriteEffect())

    def verify_(self) -> None:
        require_tensormap_ranks(self, "Got" if versions.checked_release() < (3, 3) else "Got ")

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
        at = parser.pos
        props, attrs = cls.parse_attr_dict(parser)
        parse_time_constraints(parser, cls, at, props)
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


# ------------------------------------------------------------------ shape ops of Triton 2.x / 3.0-3.2


@irdl_triton_op
class Trans2Op(ArrowOp):
    """``tt.trans %x : (tensor<AxB>) -> tensor<BxA>`` (2.x: a 2-d transpose, no ``order``)."""

    name = "tt.trans"
    order = opt_prop_def(in_releases(DenseArrayBase, (3, 0)))  # (2.x: a plain attribute)
    traits = traits_def(Pure())
    assembly_format = "$src attr-dict `:` functional-type($src, $result)"


@irdl_triton_op
class TransAnyOp(ArrowOp):
    """``tt.trans %x {order} : T -> U`` (3.0 - 3.2: of a tensor or, in TTGIR, of a
    ``!tt.memdesc``; later ``ttg.memdesc_trans`` for the latter)."""

    name = "tt.trans"
    order = prop_def(DenseArrayBase)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        """Triton 3.0 - 3.2's rules of a tensor's transpose (a ``!tt.memdesc``'s: not
        checked); the shape by the type inference (without encodings only: ttopt does not
        infer the layout)."""
        s, r = self.src.type, self.result.type
        if not isinstance(s, TensorType):
            return
        order = list(self.order.get_values())
        ss = s.get_shape()
        check_trans_order(order, len(ss))
        want = TensorType(s.element_type, [ss[i] for i in order])
        if isinstance(r, TensorType) and encoding_of(s) is None and encoding_of(r) is None \
                and want != r:
            raise VerifyException(
                f"inferred type(s) '{want}' are incompatible with return type(s) of operation "
                f"'{r}'"
            )


@irdl_triton_op
class ViewOp(ArrowOp):
    """``tt.view %x : (T) -> U`` (2.1; later ``tt.reshape``)."""

    name = "tt.view"
    traits = traits_def(Pure())
    assembly_format = "$src attr-dict `:` functional-type($src, $result)"


@irdl_triton_op
class ReshapeBoolOp(ArrowOp):
    """``tt.reshape %x {allow_reorder = false} : T -> U`` (2.2 - 3.1: a bool property; later
    the keyword ``allow_reorder``)."""

    name = "tt.reshape"
    allow_reorder = opt_prop_def(BoolAttr)
    efficient_layout = opt_prop_def(in_releases(UnitAttr, (3, 0)))
    traits = traits_def(Pure())


@irdl_triton_op
class PureExternElementwiseOp(FunctionalTypeOp):
    """``tt.pure_extern_elementwise %a {libname, libpath, symbol} : (A) -> R`` (2.1)."""

    name = "tt.pure_extern_elementwise"
    libname = prop_def(StringAttr)
    libpath = prop_def(StringAttr)
    symbol = prop_def(StringAttr)
    traits = traits_def(Pure())


@irdl_triton_op
class ImpureExternElementwiseOp(FunctionalTypeOp):
    """``tt.impure_extern_elementwise`` (2.1): unknown effects."""

    name = "tt.impure_extern_elementwise"
    libname = prop_def(StringAttr)
    libpath = prop_def(StringAttr)
    symbol = prop_def(StringAttr)


@irdl_triton_op
class DotScaled32Op(TritonOp):
    """``tt.dot_scaled %a, %a_scale, %b, %c lhs = E rhs = E : A, S * B -> D`` (3.2: only the
    left operand scaled)."""

    name = "tt.dot_scaled"
    lhs = operand_def()
    lhs_scale = operand_def()
    rhs = operand_def()
    c = operand_def()
    d = result_def()
    lhs_type = prop_def(IntegerAttr)
    rhs_type = prop_def(IntegerAttr)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        ops = parse_operand_list(parser)
        if len(ops) != 4:
            parser.raise_error("tt.dot_scaled (Triton 3.2) expects 4 operands")
        props: dict[str, Attribute] = {}
        for keyword, prop in (("lhs", "lhs_type"), ("rhs", "rhs_type")):
            parser.parse_keyword(keyword)
            parser.parse_punctuation("=")
            props[prop] = int_attr(parse_keyword_enum(parser, SCALE_DOT_ELEM_TYPE, "element type"))
        p2, attrs = cls.parse_attr_dict(parser)
        props.update(p2)
        parser.parse_punctuation(":")
        ta = parser.parse_type()
        parser.parse_punctuation(",")
        ts = parser.parse_type()
        parser.parse_punctuation("*")
        tb = parser.parse_type()
        parser.parse_punctuation("->")
        td = parser.parse_type()
        return cls.build(resolve_all(parser, ops, [ta, ts, tb, td]), [td], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_ssa_value)
        for keyword, attr in (("lhs", self.lhs_type), ("rhs", self.rhs_type)):
            printer.print_string(f" {keyword} = " + enum_name(SCALE_DOT_ELEM_TYPE, attr.value.data))
        self.print_attr_dict(printer, {"lhs_type", "rhs_type"})
        printer.print_string(" : ")
        printer.print_attribute(self.lhs.type)
        printer.print_string(", ")
        printer.print_attribute(self.lhs_scale.type)
        printer.print_string(" * ")
        printer.print_attribute(self.rhs.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.d.type)


@irdl_triton_op
class UpcastMxfpOp(TritonOp):
    """``triton_gpu.upcast_mxfp %x, %scale fp_type = E : T, S -> U`` (3.2)."""

    name = "ttg.upcast_mxfp"
    src = operand_def()
    scale = operand_def()
    result = result_def()
    fp_type = prop_def(IntegerAttr)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        ops = parse_operand_list(parser)
        parser.parse_keyword("fp_type")
        parser.parse_punctuation("=")
        props = {"fp_type": int_attr(parse_keyword_enum(parser, SCALE_DOT_ELEM_TYPE, "element type"))}
        p2, attrs = cls.parse_attr_dict(parser)
        props.update(p2)
        parser.parse_punctuation(":")
        ts = parser.parse_type()
        parser.parse_punctuation(",")
        tsc = parser.parse_type()
        parser.parse_punctuation("->")
        tr = parser.parse_type()
        return cls.build(resolve_all(parser, ops, [ts, tsc]), [tr], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_ssa_value)
        printer.print_string(" fp_type = " + enum_name(SCALE_DOT_ELEM_TYPE, self.fp_type.value.data))
        self.print_attr_dict(printer, {"fp_type"})
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(", ")
        printer.print_attribute(self.scale.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


# ------------------------------------------------------------------ ops of Triton 3.7+


@irdl_triton_op
class BarrierOp(TritonOp):
    """``ttg.barrier all|local`` (3.7+): orders memory like a writer."""

    name = "ttg.barrier"
    addrSpace = prop_def(IntegerAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    _KINDS: ClassVar[dict[str, int]] = {"none": 0, "local": 1, "global_read": 2,
                                        "global_write": 4, "tensor_read": 8, "tensor_write": 16,
                                        "all": 31}

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        word = parser.parse_optional_identifier()
        if word not in cls._KINDS:
            parser.raise_error(f"expected one of {', '.join(cls._KINDS)}", pos, parser.pos)
        props, attrs = cls.parse_attr_dict(parser)
        props["addrSpace"] = int_attr(cls._KINDS[word])
        return cls.build([], [], props, attrs)

    def print(self, printer: Printer):
        value = self.addrSpace.value.data
        word = next((k for k, v in self._KINDS.items() if v == value), str(value))
        printer.print_string(" " + word)
        self.print_attr_dict(printer, {"addrSpace"})


@irdl_triton_op
class AtomicLoadOp(TritonOp):
    """``tt.atomic_load acquire, gpu, %ptr (, %mask)? : (P, M) -> T`` (3.9): a read, ordered
    like a writer (an acquire)."""

    name = "tt.atomic_load"
    ptr = operand_def()
    mask = opt_operand_def()
    result = result_def()
    sem = prop_def(IntegerAttr)
    scope = prop_def(IntegerAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(ReadWriteEffect())
    custom_directives = (MemSemantic, MemSyncScope)
    assembly_format = (
        "custom<MemSemantic>($sem) `,` custom<MemSyncScope>($scope) `,` $ptr (`,` $mask^)? "
        "attr-dict `:` functional-type(operands, $result)"
    )


@irdl_triton_op
class AtomicStoreOp(TritonOp):
    """``tt.atomic_store release, gpu, %ptr, %val (, %mask)? : P`` (3.9): a write."""

    name = "tt.atomic_store"
    ptr = operand_def()
    val = operand_def()
    mask = opt_operand_def()
    sem = prop_def(IntegerAttr)
    scope = prop_def(IntegerAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(ReadWriteEffect())

    @classmethod
    def parse(cls, parser: Parser):
        props: dict[str, Attribute] = {}
        props["sem"] = int_attr(parse_keyword_enum(parser, MEM_SEMANTIC, "memory semantic"))
        parser.parse_punctuation(",")
        props["scope"] = int_attr(parse_keyword_enum(parser, MEM_SYNC_SCOPE, "memory sync scope"))
        parser.parse_punctuation(",")
        ops = parse_operand_list(parser)
        if not 2 <= len(ops) <= 3:
            parser.raise_error("tt.atomic_store expects 2 or 3 operands (ptr, value, mask)")
        p2, attrs = cls.parse_attr_dict(parser)
        props.update(p2)
        parser.parse_punctuation(":")
        pt = parser.parse_type()
        types = [pt, loaded_type(pt), i1_like(loaded_type(pt))][: len(ops)]
        values = resolve_all(parser, ops, types)
        props["operandSegmentSizes"] = DenseArrayBase.from_list(i32, [1, 1, int(len(ops) > 2)])
        return cls.build(values, [], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" " + enum_name(MEM_SEMANTIC, self.sem.value.data) + ", "
                             + enum_name(MEM_SYNC_SCOPE, self.scope.value.data) + ", ")
        printer.print_list(self.operands, printer.print_ssa_value)
        self.print_attr_dict(printer, {"sem", "scope"})
        printer.print_string(" : ")
        printer.print_attribute(self.ptr.type)


@irdl_triton_op
class AtomicPollOp(TritonOp):
    """``%ok = tt.atomic_poll acquire, sys, %ptr, %val : P, T -> i1`` (3.9): reads, waits."""

    name = "tt.atomic_poll"
    ptr = operand_def()
    val = operand_def()
    result = result_def()
    sem = prop_def(IntegerAttr)
    scope = prop_def(IntegerAttr)
    traits = traits_def(ReadWriteEffect())

    @classmethod
    def parse(cls, parser: Parser):
        props: dict[str, Attribute] = {}
        props["sem"] = int_attr(parse_keyword_enum(parser, MEM_SEMANTIC, "memory semantic"))
        parser.parse_punctuation(",")
        props["scope"] = int_attr(parse_keyword_enum(parser, MEM_SYNC_SCOPE, "memory sync scope"))
        parser.parse_punctuation(",")
        ops = parse_operand_list(parser)
        p2, attrs = cls.parse_attr_dict(parser)
        props.update(p2)
        parser.parse_punctuation(":")
        types = parse_type_list(parser)
        parser.parse_punctuation("->")
        rt = parser.parse_type()
        return cls.build(resolve_all(parser, ops, types), [rt], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" " + enum_name(MEM_SEMANTIC, self.sem.value.data) + ", "
                             + enum_name(MEM_SYNC_SCOPE, self.scope.value.data) + ", ")
        printer.print_list(self.operands, printer.print_ssa_value)
        self.print_attr_dict(printer, {"sem", "scope"})
        printer.print_string(" : ")
        print_types(printer, self.operand_types)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_triton_op
class GridDependencyLaunchDependentsOp(TritonOp):
    """``tt.grid_dependency_launch_dependents`` (3.9): like a writer."""

    name = "tt.grid_dependency_launch_dependents"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "attr-dict"


@irdl_triton_op
class Select2Op(TritonOp):
    """``"triton_gpu.select"(%c, %a, %b) : (C, T, T) -> T`` (2.1, generic form)."""

    name = "ttg.select"
    condition = operand_def()
    true_value = operand_def()
    false_value = operand_def()
    result = result_def()
    traits = traits_def(Pure())


@irdl_triton_op
class GridDependencyWaitOp(TritonOp):
    """``tt.grid_dependency_wait`` (3.9): waits for the previous kernel; like a writer."""

    name = "tt.grid_dependency_wait"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "attr-dict"


@irdl_triton_op
class ApproxDivfOp(BinaryOp):
    """``tt.approx_divf %a, %b : T`` (3.9): division to the hardware's approximation."""

    name = "tt.approx_divf"
    ins = var_operand_def()
    result = result_def()
    traits = traits_def(Pure())


LEGACY_LAYOUT_NAMES = ("mma", "shared", "mfma", "wmma")
LegacyLayouts = [layout_attr("ttg." + n) for n in LEGACY_LAYOUT_NAMES]
"""``#triton_gpu.mma`` (2.x; ``nvidia_mma`` from 3.0), ``#triton_gpu.shared`` (before 3.3
split it into ``swizzled_shared`` / ``nvmma_shared``), AMD's ``mfma``/``wmma`` (which no
upstream release registers: reading one is Triton's "unknown attribute" error,
:data:`ttopt.dialects.layouts.KIND_RELEASES`)."""

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
    (ExperimentalTensormapCreateOp, (3, 2), (3, 3)),
    (ExperimentalTensormapFenceproxyAcquireOp, (3, 2), (3, 3)),
    (Trans2Op, (2, 1), (2, 3)),
    (TransAnyOp, (3, 0), (3, 2)),
    (ViewOp, (2, 1), (2, 1)),
    (ReshapeBoolOp, (2, 2), (3, 1)),
    (PureExternElementwiseOp, (2, 1), (2, 1)),
    (ImpureExternElementwiseOp, (2, 1), (2, 1)),
    (DotScaled32Op, (3, 2), (3, 2)),
    (UpcastMxfpOp, (3, 2), (3, 2)),
    # ops newer than 3.6
    (BarrierOp, (3, 7), (3, 9)),
    (AtomicLoadOp, (3, 9), (3, 9)),
    (AtomicStoreOp, (3, 9), (3, 9)),
    (AtomicPollOp, (3, 9), (3, 9)),
    (GridDependencyLaunchDependentsOp, (3, 9), (3, 9)),
    (Select2Op, (2, 1), (2, 1)),
    (GridDependencyWaitOp, (3, 9), (3, 9)),
    (ApproxDivfOp, (3, 9), (3, 9)),
    # (registered for every release: one a release does not have is Triton's "unknown
    # attribute" error, in LayoutAttr, not xDSL's)
    *((cls, (2, 1), (3, 9)) for cls in LegacyLayouts),
)

__all__ = ["LEGACY", "LEGACY_LAYOUT_NAMES"]
