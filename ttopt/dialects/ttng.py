"""TritonNvidiaGPU (``ttng``): the ops of ``TritonNvidiaGPUOps.td`` (3.6), for sm_90 and sm_100.

* Hopper: ``warp_group_dot`` (wgmma) and its wait, ``fence_async_shared``;
* TMA (tensor memory accelerator): copies between global memory, through a tensor descriptor,
  and shared memory (``async_tma_copy_global_to_local`` / ``_local_to_global``,
  ``async_tma_reduce``, ``async_tma_gather`` / ``_scatter``, ``async_tma_store_wait``), the
  descriptors made on the device (``tensormap_create``, ``tensormap_fenceproxy_acquire``,
  ``reinterpret_tensor_descriptor``);
* mbarriers (``init_barrier``, ``inval_barrier``, ``barrier_expect``, ``wait_barrier``,
  ``arrive_barrier``, ``async_copy_mbarrier_arrive``) and clusters (``cluster_arrive``,
  ``cluster_wait``);
* Blackwell: tensor memory (``tmem_alloc``, ``tmem_load``, ``tmem_store``, ``tmem_copy``,
  ``tmem_subslice``) and the 5th-generation tensor-core MMA (``tc_gen5_mma``,
  ``tc_gen5_mma_scaled``, ``tc_gen5_commit``).

Memory effects, for ttopt's analysis (:mod:`ttopt.analysis.effects`): a view or a descriptor
made from a pointer is ``Pure``; a load from tensor memory reads; everything that writes any
memory (shared, tensor or global: a TMA copy, an MMA into tensor memory, an mbarrier
operation), that waits for or signals asynchronous work (``wait_barrier``,
``async_tma_store_wait``, a barrier, a fence) writes: a pass moves or merges no memory access
across it.

Syntax: declarative (``assembly_format``) where xDSL 0.74's format language says what Triton
prints; hand-written where it cannot, each op saying why: Triton's ``oilist`` and its
``custom<Token>`` / ``custom<BarriersAndPreds>`` directives (``%acc[%tok]``, ``%bar[%pred]``
pairs), and ``functional-type`` of an op without results.  Operand order and property names
are Triton's, so the generic form (``"ttng.wait_barrier"(...) <{operandSegmentSizes = ...}>``)
reads the same op.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    BoolAttr,
    DenseArrayBase,
    FunctionType,
    I32,
    IntegerAttr,
    UnitAttr,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    ParsePropInAttrDict,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    opt_result_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure

from .base import TritonOp
from .constraints import ExactType, I32AtMost, in_releases, parse_time_constraints
from .constraints import require_tensormap_ranks
from .declarative import irdl_triton_op
from .families import ArrowOp, FunctionalTypeOp
from .syntax import (
    enum_name,
    i32_enum_directive,
    int_attr,
    parse_bracket_operands,
    parse_cache_evict,
    parse_keyword_enum,
    parse_operand_list,
    parse_type_list,
    print_bracket_operands,
    print_cache_evict,
    print_types,
    resolve_all,
)
from .traits import ReadWriteEffect
from .tt import CACHE, EVICT, I32_ATTR, PTR, PTR_TYPE, TENSOR, TENSORDESC, DotLikeOp
from .tt_attrs import DESCRIPTOR_REDUCE_KIND, SCALE_DOT_ELEM_TYPE
from .ttg import ASYNC_TOKEN, MEMDESC, TOKEN, TTNG_LAYOUTS

I1 = ExactType(i1, "1-bit signless integer")
INT32 = ExactType(i32, "32-bit signless integer")
I64 = ExactType(i64, "64-bit signless integer")

DescriptorReduceKind = i32_enum_directive(
    "DescriptorReduceKind", DESCRIPTOR_REDUCE_KIND, "descriptor reduce kind"
)


# ------------------------------------------------------------------------------- Hopper


@irdl_triton_op
class WarpGroupDotOp(DotLikeOp):
    """``ttng.warp_group_dot %a, %b, %c (, %useC)? {inputPrecision, isAsync} : A * B -> D``.

    Reads its shared-memory operands; asynchronous, so ordered like a writer.  Hand-written
    (``tt.dot``'s syntax, see ``DotLikeOp``).
    """

    name = "ttng.warp_group_dot"
    KEYWORD_PRECISION: ClassVar[bool] = False
    useC = opt_operand_def()
    isAsync = opt_prop_def(BoolAttr)
    traits = traits_def(ReadWriteEffect())


@irdl_triton_op
class WarpGroupDotWaitOp(TritonOp):
    """``%r:N = ttng.warp_group_dot_wait %a, %b {pendings} : T1, T2`` (results = inputs).

    Hand-written: the result types are the operand types (``AllTypesMatch``)."""

    name = "ttng.warp_group_dot_wait"
    inputs = var_operand_def()
    outputs = var_result_def()
    pendings = prop_def(I32_ATTR)
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


class _SyncOp(TritonOp):
    """``op attr-dict``: a fence, barrier or wait; ordered like a writer."""

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "attr-dict"


@irdl_triton_op
class FenceAsyncSharedOp(_SyncOp):
    """``ttng.fence_async_shared {bCluster = false}``: orders shared memory for the async
    proxy (TMA, wgmma)."""

    name = "ttng.fence_async_shared"
    bCluster = prop_def(BoolAttr)


@irdl_triton_op
class ClusterArriveOp(_SyncOp):
    """``ttng.cluster_arrive {relaxed = false}``."""

    name = "ttng.cluster_arrive"
    relaxed = prop_def(BoolAttr)


@irdl_triton_op
class ClusterWaitOp(_SyncOp):
    """``ttng.cluster_wait``."""

    name = "ttng.cluster_wait"


@irdl_triton_op
class TMAStoreWaitOp(_SyncOp):
    """``ttng.async_tma_store_wait {pendings = 0 : i32}``: waits for TMA stores."""

    name = "ttng.async_tma_store_wait"
    pendings = prop_def(I32_ATTR)
    read_only = opt_prop_def(in_releases(UnitAttr, (3, 8)))


# ------------------------------------------------------------------------------- mbarriers


@irdl_triton_op
class InitBarrierOp(TritonOp):
    """``ttng.init_barrier %bar, 1 : !ttg.memdesc<1xi64, ..>``: writes the mbarrier."""

    name = "ttng.init_barrier"
    alloc = operand_def(MEMDESC)
    count = prop_def(IntegerAttr[I32])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$alloc `,` $count attr-dict `:` type($alloc)"


@irdl_triton_op
class InvalBarrierOp(TritonOp):
    """``ttng.inval_barrier %bar : !ttg.memdesc<..>``: writes the mbarrier."""

    name = "ttng.inval_barrier"
    alloc = operand_def(MEMDESC)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$alloc attr-dict `:` type($alloc)"


@irdl_triton_op
class BarrierExpectOp(TritonOp):
    """``ttng.barrier_expect %bar, 4096, %pred : !ttg.memdesc<..>``: writes the mbarrier."""

    name = "ttng.barrier_expect"
    alloc = operand_def(MEMDESC)
    pred = operand_def(I1)
    size = prop_def(IntegerAttr[I32])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$alloc `,` $size attr-dict `,` $pred `:` type($alloc)"


@irdl_triton_op
class WaitBarrierOp(TritonOp):
    """``ttng.wait_barrier %bar, %phase (, %pred)? (deps %a, %b)? : B (, A, B)?``: waits for
    the mbarrier's phase (asynchronous copies into ``deps`` complete): ordered like a
    writer."""

    name = "ttng.wait_barrier"
    alloc = operand_def(MEMDESC)
    phase = operand_def(INT32)
    pred = opt_operand_def(I1)
    deps = var_operand_def(MEMDESC)
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    traits = traits_def(ReadWriteEffect())
    assembly_format = (
        "$alloc `,` $phase (`,` $pred^)? (`deps` $deps^)? attr-dict `:` type($alloc) "
        "(`,` type($deps)^)?"
    )


@irdl_triton_op
class ArriveBarrierOp(TritonOp):
    """``ttng.arrive_barrier %bar, 1 (, %pred)? : !ttg.memdesc<..>``: signals the mbarrier."""

    name = "ttng.arrive_barrier"
    alloc = operand_def(MEMDESC)
    pred = opt_operand_def(I1)
    count = prop_def(IntegerAttr[I32])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(ReadWriteEffect())
    assembly_format = "$alloc `,` $count (`,` $pred^)? attr-dict `:` type($alloc)"


@irdl_triton_op
class AsyncCopyMbarrierArriveOp(TritonOp):
    """``ttng.async_copy_mbarrier_arrive %bar : !ttg.memdesc<..>``: the mbarrier is
    signalled when the earlier ``cp.async`` copies complete."""

    name = "ttng.async_copy_mbarrier_arrive"
    barrier = operand_def(MEMDESC)
    noIncrement = opt_prop_def(UnitAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$barrier attr-dict `:` type($barrier)"


# ------------------------------------------------------------------------------- TMA


@irdl_triton_op
class AsyncTMACopyGlobalToLocalOp(TritonOp):
    """``ttng.async_tma_copy_global_to_local %desc[%i, %j] %dst, %bar, %pred oilist : D, B ->
    M``: reads global memory, writes shared memory and the mbarrier.

    Hand-written: an oilist (``cacheModifier = ..`` / ``evictionPolicy = ..``)."""

    name = "ttng.async_tma_copy_global_to_local"
    desc = operand_def(TENSORDESC)
    coord = var_operand_def(INT32)
    barrier = operand_def(MEMDESC)
    result = operand_def(MEMDESC)
    pred = operand_def(I1)
    cache = opt_prop_def(CACHE)
    evict = opt_prop_def(EVICT)
    isVolatile = opt_prop_def(BoolAttr)
    multicast = opt_prop_def(in_releases(UnitAttr, (3, 7)))
    traits = traits_def(ReadWriteEffect())

    @classmethod
    def parse(cls, parser: Parser):
        d = parser.parse_unresolved_operand()
        coord = parse_bracket_operands(parser)
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
        dt = parser.parse_type()
        parser.parse_punctuation(",")
        bt = parser.parse_type()
        parser.parse_punctuation("->")
        rt = parser.parse_type()
        values = resolve_all(
            parser, [d, *coord, bar, dst, pred], [dt, *[i32] * len(coord), bt, rt, i1]
        )
        return cls.build(values, [], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.desc)
        print_bracket_operands(printer, self.coord)
        printer.print_string(" ")
        printer.print_list([self.result, self.barrier, self.pred], printer.print_ssa_value)
        print_cache_evict(self, printer)
        self.print_attr_dict(printer, {"cache", "evict"})
        printer.print_string(" : ")
        printer.print_attribute(self.desc.type)
        printer.print_string(", ")
        printer.print_attribute(self.barrier.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_triton_op
class AsyncTMACopyLocalToGlobalOp(TritonOp):
    """``ttng.async_tma_copy_local_to_global %desc[%i, %j] %src : D, M``: a TMA store
    (reads shared memory, writes global memory)."""

    name = "ttng.async_tma_copy_local_to_global"
    desc = operand_def(TENSORDESC)
    coord = var_operand_def(INT32)
    src = operand_def(MEMDESC)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(ReadWriteEffect())
    assembly_format = "$desc `[` $coord `]` $src attr-dict `:` type($desc) `,` type($src)"


@irdl_triton_op
class AsyncTMAReduceOp(TritonOp):
    """``ttng.async_tma_reduce add, %desc[%i, %j] %src : D, M``: an atomic TMA reduction
    into global memory."""

    name = "ttng.async_tma_reduce"
    desc = operand_def(TENSORDESC)
    coord = var_operand_def(INT32)
    src = operand_def(MEMDESC)
    kind = prop_def(I32_ATTR)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(ReadWriteEffect())
    custom_directives = (DescriptorReduceKind,)
    assembly_format = (
        "custom<DescriptorReduceKind>($kind) `,` $desc `[` $coord `]` $src attr-dict `:` "
        "type($desc) `,` type($src)"
    )


@irdl_triton_op
class AsyncTMAGatherOp(TritonOp):
    """``ttng.async_tma_gather %desc[%x, %y] %dst, %bar, %pred : D, X, i32, B, M, i1``:
    reads global memory, writes shared memory and the mbarrier."""

    name = "ttng.async_tma_gather"
    desc = operand_def(TENSORDESC)
    x_offsets = operand_def(TENSOR)
    y_offset = operand_def(INT32)
    barrier = operand_def(MEMDESC)
    result = operand_def(MEMDESC)
    pred = operand_def(I1)
    multicast = opt_prop_def(in_releases(UnitAttr, (3, 8)))
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(ReadWriteEffect())
    assembly_format = (
        "$desc `[` $x_offsets `,` $y_offset `]` $result `,` $barrier `,` $pred attr-dict `:` "
        "type(operands)"
    )


@irdl_triton_op
class AsyncTMAScatterOp(TritonOp):
    """``ttng.async_tma_scatter %desc[%x, %y] %src : D, X, i32, M``: writes global memory."""

    name = "ttng.async_tma_scatter"
    desc = operand_def(TENSORDESC)
    x_offsets = operand_def(TENSOR)
    y_offset = operand_def(INT32)
    src = operand_def(MEMDESC)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(ReadWriteEffect())
    assembly_format = "$desc `[` $x_offsets `,` $y_offset `]` $src attr-dict `:` type(operands)"


@irdl_triton_op
class TensormapCreateOp(TritonOp):
    """``ttng.tensormap_create %desc_ptr, %base, [box], [dims], [strides], [elem strides]
    {elem_type, ...} : (..) -> ()``: writes a TMA descriptor into global memory.

    Hand-written: ``functional-type(operands, results)`` of an op without results (`-> ()`),
    which xDSL's format refuses to spell."""

    name = "ttng.tensormap_create"
    desc_ptr = operand_def(PTR_TYPE)
    global_address = operand_def(PTR_TYPE)
    box_dim = var_operand_def(INT32)
    global_dim = var_operand_def(INT32)
    global_stride = var_operand_def(I64)
    element_stride = var_operand_def(INT32)
    elem_type = prop_def(I32AtMost(15))
    interleave_layout = prop_def(I32AtMost(2))
    swizzle_mode = prop_def(I32AtMost(3))
    fill_mode = prop_def(I32AtMost(1))
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(ReadWriteEffect())

    def verify_(self) -> None:
        require_tensormap_ranks(self)

    @classmethod
    def parse(cls, parser: Parser):
        groups: list[list[UnresolvedOperand]] = [[parser.parse_unresolved_operand()]]
        parser.parse_punctuation(",")
        groups.append([parser.parse_unresolved_operand()])
        for _ in range(4):
            parser.parse_punctuation(",")
            groups.append(parse_bracket_operands(parser))
        at = parser.pos
        props, attrs = cls.parse_attr_dict(parser)
        parse_time_constraints(parser, cls, at, props)
        parser.parse_punctuation(":")
        pos = parser.pos
        ft = parser.parse_type()
        if not isinstance(ft, FunctionType):
            parser.raise_error("expected a function type", pos, parser.pos)
        flat = [o for g in groups for o in g]
        values = resolve_all(parser, flat, list(ft.inputs.data))
        props["operandSegmentSizes"] = DenseArrayBase.from_list(i32, [len(g) for g in groups])
        return cls.build(values, list(ft.outputs.data), props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_list([self.desc_ptr, self.global_address], printer.print_ssa_value)
        for group in (self.box_dim, self.global_dim, self.global_stride, self.element_stride):
            printer.print_string(", ")
            print_bracket_operands(printer, group)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)


@irdl_triton_op
class TensormapFenceproxyAcquireOp(TritonOp):
    """``ttng.tensormap_fenceproxy_acquire %p : !tt.ptr<i8>``: a fence on a descriptor in
    global memory (ordered like a writer)."""

    name = "ttng.tensormap_fenceproxy_acquire"
    desc_ptr = operand_def(PTR_TYPE)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$desc_ptr attr-dict `:` type($desc_ptr)"


@irdl_triton_op
class ReinterpretTensorDescOp(TritonOp):
    """``%d = ttng.reinterpret_tensor_descriptor %p : !tt.ptr<i8> to !tt.tensordesc<..>``."""

    name = "ttng.reinterpret_tensor_descriptor"
    rawDesc = operand_def(PTR)
    result = result_def(TENSORDESC)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$rawDesc attr-dict `:` type($rawDesc) `to` type($result)"


# ------------------------------------------------------------------------------- tensor memory
# `custom<Token>($dep, type($token))`: `%mem[%dep]` when the op has a token result (`[]` when
# it has no dependency), nothing when it has none (as Triton prints it).


def _parse_token(parser: Parser) -> tuple[bool, UnresolvedOperand | None]:
    """(has a token result, its dependency operand)."""
    if parser.parse_optional_punctuation("[") is None:
        return False, None
    dep = parser.parse_optional_unresolved_operand()
    parser.parse_punctuation("]")
    return True, dep


def _print_token(printer: Printer, dep: SSAValue | None, token) -> None:
    if token is None:
        return
    printer.print_string("[")
    if dep is not None:
        printer.print_ssa_value(dep)
    printer.print_string("]")


@irdl_triton_op
class TMEMAllocOp(FunctionalTypeOp):
    """``%m (, %tok)? = ttng.tmem_alloc (%src)? : (T) -> (!ttg.memdesc<..>, !ttg.async.token)``:
    allocates (and writes) tensor memory."""

    name = "ttng.tmem_alloc"
    traits = traits_def(MemoryWriteEffect())


@irdl_triton_op
class TMEMLoadOp(TritonOp):
    """``%r (, %tok)? = ttng.tmem_load %m ([%dep])? : !ttg.memdesc<..> -> tensor<..>``: reads
    tensor memory.

    Hand-written: Triton's ``custom<Token>`` (an optional operand and an optional result
    behind one bracket)."""

    name = "ttng.tmem_load"
    src = operand_def(MEMDESC)
    dep = opt_operand_def(TOKEN)
    result = result_def(TENSOR)
    token = opt_result_def(TOKEN)
    traits = traits_def(MemoryReadEffect())

    @classmethod
    def parse(cls, parser: Parser):
        src = parser.parse_unresolved_operand()
        has_token, dep = _parse_token(parser)
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        st = parser.parse_type()
        parser.parse_punctuation("->")
        rt = parser.parse_type()
        values = [parser.resolve_operand(src, st)]
        if dep is not None:
            values.append(parser.resolve_operand(dep, ASYNC_TOKEN))
        return cls.build(values, [rt, *([ASYNC_TOKEN] if has_token else [])], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.src)
        _print_token(printer, self.dep, self.token)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_triton_op
class TMEMStoreOp(TritonOp):
    """``(%tok =)? ttng.tmem_store %v, %m ([%dep])?, %pred : tensor<..> -> !ttg.memdesc<..>``:
    writes tensor memory.

    Hand-written: Triton's ``custom<Token>`` (see ``ttng.tmem_load``)."""

    name = "ttng.tmem_store"
    dst = operand_def(MEMDESC)
    dep = opt_operand_def(TOKEN)
    src = operand_def(TENSOR)
    pred = operand_def(I1)
    token = opt_result_def(TOKEN)
    traits = traits_def(MemoryWriteEffect())

    @classmethod
    def parse(cls, parser: Parser):
        src = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        dst = parser.parse_unresolved_operand()
        has_token, dep = _parse_token(parser)
        parser.parse_punctuation(",")
        pred = parser.parse_unresolved_operand()
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        st = parser.parse_type()
        parser.parse_punctuation("->")
        dt = parser.parse_type()
        values = [parser.resolve_operand(dst, dt)]
        if dep is not None:
            values.append(parser.resolve_operand(dep, ASYNC_TOKEN))
        values += [parser.resolve_operand(src, st), parser.resolve_operand(pred, i1)]
        return cls.build(values, [ASYNC_TOKEN] if has_token else [], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.src)
        printer.print_string(", ")
        printer.print_ssa_value(self.dst)
        _print_token(printer, self.dep, self.token)
        printer.print_string(", ")
        printer.print_ssa_value(self.pred)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.dst.type)


@irdl_triton_op
class TMEMCopyOp(TritonOp):
    """``ttng.tmem_copy %smem, %tmem (, %bar)? : S, T (, B)?``: copies shared memory into
    tensor memory (asynchronously; signals ``%bar`` if given)."""

    name = "ttng.tmem_copy"
    src = operand_def(MEMDESC)
    dst = operand_def(MEMDESC)
    barrier = opt_operand_def(MEMDESC)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(ReadWriteEffect())
    assembly_format = "$src `,` $dst (`,` $barrier^)? attr-dict `:` type(operands)"


@irdl_triton_op
class TMEMSubSliceOp(ArrowOp):
    """``ttng.tmem_subslice %m {N = 64 : i32} : !ttg.memdesc<..> -> !ttg.memdesc<..>``: a
    view of tensor memory, no access."""

    name = "ttng.tmem_subslice"
    src = operand_def(MEMDESC)
    result = result_def(MEMDESC)
    N = prop_def(I32_ATTR)
    traits = traits_def(Pure())


# ------------------------------------------------------------------------------- tcgen05 MMA


def _parse_barriers_and_preds(parser: Parser) -> tuple[list, list]:
    """Triton's ``custom<BarriersAndPreds>``: ``(, %bar[%pred])*``."""
    bars, preds = [], []
    while parser.parse_optional_punctuation(",") is not None:
        bars.append(parser.parse_unresolved_operand())
        parser.parse_punctuation("[")
        preds.append(parser.parse_unresolved_operand())
        parser.parse_punctuation("]")
    return bars, preds


def _print_barriers_and_preds(printer: Printer, bars, preds) -> None:
    for bar, pred in zip(bars, preds):
        printer.print_string(", ")
        printer.print_ssa_value(bar)
        printer.print_string("[")
        printer.print_ssa_value(pred)
        printer.print_string("]")


class _MMAv5Op(TritonOp):
    """The syntax shared by ``tc_gen5_mma`` and ``tc_gen5_mma_scaled``:
    ``%a, %b, %d ([%dep])?, <middle>, %useD, %pred <after> (, %bar[%pred])* attr-dict :
    A, B, D, <middle types> (, Bar)*``.  MMA into tensor memory, reading shared (or tensor)
    memory and signalling mbarriers: reads and writes.

    Hand-written: Triton's ``custom<Token>`` and ``custom<BarriersAndPreds>`` directives
    (an optional operand and an optional result behind one bracket; pairs of values from two
    variadic operand groups written interleaved)."""

    SCALED: ClassVar[bool] = False
    # (each op declares all its operands, in Triton's order: xDSL puts a class's own
    # definitions before those it inherits)

    @classmethod
    def parse(cls, parser: Parser):
        a = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        b = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        d = parser.parse_unresolved_operand()
        has_token, dep = _parse_token(parser)
        scales = []
        if cls.SCALED:
            for _ in range(2):
                parser.parse_punctuation(",")
                scales.append(parser.parse_unresolved_operand())
        parser.parse_punctuation(",")
        use_d = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        pred = parser.parse_unresolved_operand()
        props: dict[str, Attribute] = {}
        if cls.SCALED:
            for keyword, prop in (("lhs", "a_type"), ("rhs", "b_type")):
                parser.parse_keyword(keyword)
                parser.parse_punctuation("=")
                props[prop] = int_attr(
                    parse_keyword_enum(parser, SCALE_DOT_ELEM_TYPE, "scaled dot element type")
                )
        bars, bar_preds = _parse_barriers_and_preds(parser)
        p2, attrs = cls.parse_attr_dict(parser)
        props.update(p2)
        parser.parse_punctuation(":")
        types = parse_type_list(parser)
        n_fixed = 3 + len(scales)
        if len(types) != n_fixed + len(bars):
            parser.raise_error(
                f"expected {n_fixed + len(bars)} types (a, b, d{', scales' if scales else ''}"
                f" and one per barrier), got {len(types)}"
            )
        ta, tb, td = types[:3]
        values = [
            parser.resolve_operand(a, ta),
            parser.resolve_operand(b, tb),
            parser.resolve_operand(d, td),
        ]
        if dep is not None:
            values.append(parser.resolve_operand(dep, ASYNC_TOKEN))
        values += [parser.resolve_operand(s, t) for s, t in zip(scales, types[3:n_fixed])]
        values += [parser.resolve_operand(use_d, i1), parser.resolve_operand(pred, i1)]
        values += [parser.resolve_operand(v, t) for v, t in zip(bars, types[n_fixed:])]
        values += [parser.resolve_operand(p, i1) for p in bar_preds]
        sizes = [1, 1, 1, int(dep is not None), *([1, 1] if cls.SCALED else []), 1, 1,
                 len(bars), len(bar_preds)]
        props["operandSegmentSizes"] = DenseArrayBase.from_list(i32, sizes)
        return cls.build(values, [ASYNC_TOKEN] if has_token else [], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_list([self.a, self.b, self.d], printer.print_ssa_value)
        _print_token(printer, self.acc_dep, self.token)
        scales = [self.a_scale, self.b_scale] if self.SCALED else []
        for v in [*scales, self.useD, self.pred]:
            printer.print_string(", ")
            printer.print_ssa_value(v)
        printed = set()
        if self.SCALED:
            for keyword, prop in (("lhs", "a_type"), ("rhs", "b_type")):
                printer.print_string(
                    f" {keyword} = "
                    + enum_name(SCALE_DOT_ELEM_TYPE, self.properties[prop].value.data)
                )
                printed.add(prop)
        _print_barriers_and_preds(printer, self.barriers, self.barrier_preds)
        self.print_attr_dict(printer, printed)
        printer.print_string(" : ")
        print_types(
            printer, [v.type for v in (self.a, self.b, self.d, *scales, *self.barriers)]
        )


@irdl_triton_op
class TCGen5MMAOp(_MMAv5Op):
    """``ttng.tc_gen5_mma %a, %b, %d, %useD, %pred (, %bar[%p])* {is_async} : A, B, D``."""

    name = "ttng.tc_gen5_mma"
    a = operand_def(MEMDESC)
    b = operand_def(MEMDESC)
    d = operand_def(MEMDESC)
    acc_dep = opt_operand_def(TOKEN)
    useD = operand_def(I1)
    pred = operand_def(I1)
    barriers = var_operand_def(MEMDESC)
    barrier_preds = var_operand_def(I1)
    is_async = opt_prop_def(in_releases(UnitAttr, (3, 5)))
    two_ctas = opt_prop_def(UnitAttr)
    token = opt_result_def(TOKEN)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(ReadWriteEffect())


@irdl_triton_op
class TCGen5MMAScaledOp(_MMAv5Op):
    """``ttng.tc_gen5_mma_scaled %a, %b, %d, %sa, %sb, %useD, %pred lhs = E rhs = E
    (, %bar[%p])* : A, B, D, SA, SB``."""

    name = "ttng.tc_gen5_mma_scaled"
    SCALED: ClassVar[bool] = True
    a = operand_def(MEMDESC)
    b = operand_def(MEMDESC)
    d = operand_def(MEMDESC)
    acc_dep = opt_operand_def(TOKEN)
    a_scale = operand_def(MEMDESC)
    b_scale = operand_def(MEMDESC)
    useD = operand_def(I1)
    pred = operand_def(I1)
    barriers = var_operand_def(MEMDESC)
    barrier_preds = var_operand_def(I1)
    a_type = prop_def(I32_ATTR)
    b_type = prop_def(I32_ATTR)
    is_async = opt_prop_def(in_releases(UnitAttr, (3, 5)))
    two_ctas = opt_prop_def(in_releases(UnitAttr, (3, 8)))
    token = opt_result_def(TOKEN)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(ReadWriteEffect())


@irdl_triton_op
class TCGen5CommitOp(TritonOp):
    """``ttng.tc_gen5_commit %bar (, %pred)? : !ttg.memdesc<..>``: the mbarrier is signalled
    when the earlier tcgen05 operations complete."""

    name = "ttng.tc_gen5_commit"
    barrier = operand_def(MEMDESC)
    pred = opt_operand_def(I1)
    two_ctas = opt_prop_def(in_releases(UnitAttr, (3, 5), (3, 6)))
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$barrier (`,` $pred^)? attr-dict `:` type($barrier)"


TTNG = Dialect(
    "ttng",
    [
        WarpGroupDotOp, WarpGroupDotWaitOp, FenceAsyncSharedOp, ClusterArriveOp, ClusterWaitOp,
        TMAStoreWaitOp, InitBarrierOp, InvalBarrierOp, BarrierExpectOp, WaitBarrierOp,
        ArriveBarrierOp, AsyncCopyMbarrierArriveOp, AsyncTMACopyGlobalToLocalOp,
        AsyncTMACopyLocalToGlobalOp, AsyncTMAReduceOp, AsyncTMAGatherOp, AsyncTMAScatterOp,
        TensormapCreateOp, TensormapFenceproxyAcquireOp, ReinterpretTensorDescOp, TMEMAllocOp,
        TMEMLoadOp, TMEMStoreOp, TMEMCopyOp, TMEMSubSliceOp, TCGen5MMAOp, TCGen5MMAScaledOp,
        TCGen5CommitOp,
    ],
    TTNG_LAYOUTS,
)

__all__ = [
    "TTNG", "WarpGroupDotOp", "WarpGroupDotWaitOp", "FenceAsyncSharedOp", "ClusterArriveOp",
    "ClusterWaitOp", "TMAStoreWaitOp", "InitBarrierOp", "InvalBarrierOp", "BarrierExpectOp",
    "WaitBarrierOp", "ArriveBarrierOp", "AsyncCopyMbarrierArriveOp",
    "AsyncTMACopyGlobalToLocalOp", "AsyncTMACopyLocalToGlobalOp", "AsyncTMAReduceOp",
    "AsyncTMAGatherOp", "AsyncTMAScatterOp", "TensormapCreateOp",
    "TensormapFenceproxyAcquireOp", "ReinterpretTensorDescOp", "TMEMAllocOp", "TMEMLoadOp",
    "TMEMStoreOp", "TMEMCopyOp", "TMEMSubSliceOp", "TCGen5MMAOp", "TCGen5MMAScaledOp",
    "TCGen5CommitOp",
]
