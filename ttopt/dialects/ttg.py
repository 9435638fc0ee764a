"""TritonGPU (``ttg``): layouts, memory descriptors, the ops of ``TritonGPUOps.td`` (3.6).

Layout encodings (``#ttg.blocked<...>`` ...) and ``!ttg.memdesc<...>`` are kept as the raw
text of their bodies (see :class:`~ttopt.dialects.tt_attrs.OpaqueBodyAttr`): ttopt's passes
never look inside a layout, and keeping the text makes the round trip exact.  The layouts of
``ttng`` (``#ttng.tensor_memory_encoding<..>`` ...) are defined here too; its ops are in
:mod:`ttopt.dialects.ttng`.

Every op Triton 3.6 registers in ``ttg`` is here but three that only exist inside the
software pipeliner's pass (``ttg.mask``, ``ttg.mask.return``, ``ttg.predicate_stage``: in no
TTGIR Triton writes).  Warp specialization is ``ttg.warp_specialize`` (the default region and
the partitions, held by ``ttg.warp_specialize.partitions``), ``ttg.warp_yield`` and
``ttg.warp_return``.

Syntax as in :mod:`ttopt.dialects.tt`: declarative (``assembly_format``) where xDSL 0.74's
format language says what Triton prints, hand-written where it cannot, saying why.
"""

from __future__ import annotations

from typing import ClassVar


from xdsl.dialects.builtin import (
    BoolAttr, DenseArrayBase, FunctionType, IntegerAttr, StringAttr, i1, i32,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, Region
from xdsl.irdl import (
    AttrSizedOperandSegments,
    ParsePropInAttrDict,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    MemoryAllocEffect,
    MemoryReadEffect,
    MemoryWriteEffect,
    Pure,
    RecursiveMemoryEffect,
    ReturnLike,
)
from xdsl.utils.exceptions import VerifyException

from ..xdsl_compat import operand_tuple
from .base import TritonOp
from .constraints import ExactType, TypeOfClass, element_type, in_releases, same, shape_of
from .declarative import irdl_triton_op
from .families import PARENS_BEFORE_3, ArrowOp, FunctionalTypeOp
from .syntax import (
    I32List,
    i32_array,
    parse_cache_evict,
    parse_maybe_unqualified,
    print_cache_evict,
    resolve_all,
)
from .traits import ReadWriteEffect
from .tt import CACHE, EVICT, I32_ARRAY, I32_ATTR, PTR
from .layouts import layout_attr
from .tt_attrs import i1_like, loaded_type, opaque_attr

_at = tuple.__getitem__  # (values[i] of xDSL's SSAValues, without its Python __getitem__)

LAYOUTS = [
    layout_attr("ttg." + n)
    for n in [
        "blocked", "slice", "dot_op", "nvidia_mma", "amd_mfma", "amd_wmma", "linear",
        "swizzled_shared", "nvmma_shared", "padded_shared", "shared_linear",
        "amd_rotating_shared", "shared_memory", "partitioned_shared", "generic_linear",
    ]
]
"""The layouts, checked as each release checks them when they are read
(:mod:`ttopt.dialects.layouts`); ``generic_linear`` is 3.8's."""
MemDescType = opaque_attr("ttg.memdesc", is_type=True)
AsyncTokenType = opaque_attr("ttg.async.token", is_type=True)
ASYNC_TOKEN = AsyncTokenType.new((StringAttr(""),))
"""``!ttg.async.token``."""
TOKEN = ExactType(ASYNC_TOKEN, "async token type")
I1 = ExactType(i1, "1-bit signless integer")
I32 = ExactType(i32, "32-bit signless integer")
MEMDESC = TypeOfClass(
    MemDescType,
    "memory descriptor type (`::mlir::triton::gpu::MemDescType`) in Triton IR type system",
)
"""``TTG_MemDescType``."""

TTNG_LAYOUTS = [
    layout_attr("ttng." + n)
    for n in ["tensor_memory", "tensor_memory_encoding", "tensor_memory_scales_encoding"]
]


# ------------------------------------------------------------------------------- ttg
# ArrowOp's format, `$src attr-dict : type($src) -> type($result)`


@irdl_triton_op
class ConvertLayoutOp(ArrowOp):
    name = "ttg.convert_layout"
    traits = traits_def(Pure())
    SYNTAX_VARIANTS: ClassVar[tuple] = PARENS_BEFORE_3

    def verify_(self) -> None:
        """``SameOperandsAndResultShape`` + ``SameOperandsAndResultElementType``."""
        s, r = _at(operand_tuple(self), 0).type, _at(self.results, 0).type
        if shape_of(s) != shape_of(r):
            raise VerifyException("requires the same shape for all operands and results")
        if not same(element_type(s), element_type(r)):
            raise VerifyException(
                "requires the same element type for all operands and results"
            )


@irdl_triton_op
class MemDescTransOp(ArrowOp):
    name = "ttg.memdesc_trans"
    order = prop_def(I32_ARRAY)
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
    axis = prop_def(I32_ATTR)
    traits = traits_def(Pure())


@irdl_triton_op
class LocalAllocOp(FunctionalTypeOp):
    """``ttg.local_alloc (%src)? : (T) -> !ttg.memdesc<..>``: allocates (and writes)."""

    name = "ttg.local_alloc"
    alignment = opt_prop_def(in_releases(I32_ATTR, (3, 2)))
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
    cache = opt_prop_def(CACHE)
    evict = opt_prop_def(EVICT)
    isVolatile = opt_prop_def(BoolAttr)
    contiguity = opt_prop_def(in_releases(I32_ATTR, (3, 6)))
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
    # Triton 3.0 - 3.4: `%t = ttg.async_commit_group %a`
    SYNTAX_VARIANTS: ClassVar[tuple] = ((lambda s: s.release < (3, 5), "$inputTokens attr-dict"),)


@irdl_triton_op
class AsyncWaitOp(TritonOp):
    """``%t = ttg.async_wait %a, %b {num = 2 : i32}``."""

    name = "ttg.async_wait"
    asyncToken = var_operand_def(TOKEN)
    retToken = result_def(TOKEN)
    num = prop_def(I32_ATTR)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$asyncToken attr-dict"


@irdl_triton_op
class MemDescSubsliceOp(TritonOp):
    """``ttg.memdesc_subslice %m[64, 0] : !ttg.memdesc<..> -> !ttg.memdesc<..>``: a view,
    no memory access."""

    name = "ttg.memdesc_subslice"
    src = operand_def()
    result = result_def()
    offsets = prop_def(I32_ARRAY)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    custom_directives = (I32List,)
    assembly_format = (
        "$src `[` custom<I32List>($offsets) `]` attr-dict `:` type($src) `->` type($result)"
    )


@irdl_triton_op
class GlobalScratchAllocOp(TritonOp):
    """``%p = ttg.global_scratch_alloc {alignment, nbytes} : !tt.ptr<i8>``: global memory
    of the kernel's own (a descriptor made on the device lives there); an allocation, ordered
    like a writer."""

    name = "ttg.global_scratch_alloc"
    result = result_def(PTR)
    nbytes = prop_def(I32_ATTR)
    alignment = prop_def(I32_ATTR)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryAllocEffect())
    assembly_format = "attr-dict `:` type($result)"


@irdl_triton_op
class LocalBarrierOp(TritonOp):
    """``ttg.local_barrier``: a CTA barrier on shared memory; ordered like a writer."""

    name = "ttg.local_barrier"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "attr-dict"


# ------------------------------------------------------------------------ warp specialization


@irdl_triton_op
class WarpSpecializeOp(TritonOp):
    """``%r = ttg.warp_specialize(%captures) attributes {..} default {..} partition0(%a: T)
    num_warps(N) {..} ... : (T) -> (R)``: forks the default warps (the ``default`` region,
    which may use any value and yields the results) and worker warp groups (the partitions:
    isolated from above, they see the captures as their arguments), and joins them.

    As Triton models it, the partitions are the regions of a ``ttg.warp_specialize.partitions``
    op, alone in this op's second region (MLIR cannot make some regions of one op isolated
    and others not); ``partitionNumWarps`` holds each one's ``num_warps(N)``.

    Hand-written (Triton's ``hasCustomAssemblyFormat``): regions with entry arguments written
    as a signature, one ``partitionN`` keyword each.  Its memory effects are those of
    everything inside it (``RecursiveMemoryEffect``)."""

    name = "ttg.warp_specialize"
    explicitCaptures = var_operand_def()
    defaultPassthrough = var_result_def()
    partitionNumWarps = prop_def(I32_ARRAY)
    warpGroupStartIds = opt_prop_def(I32_ARRAY)
    requestedRegisters = opt_prop_def(in_releases(I32_ARRAY, (3, 4)))
    actualRegisters = opt_prop_def(in_releases(I32_ARRAY, (3, 4)))
    defaultRegion = region_def()
    partitionOpHolder = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())

    def partitions_op(self) -> Operation | None:
        blocks = self.regions[1].blocks if len(self.regions) > 1 else ()
        if len(blocks) != 1:
            return None
        first = blocks[0].first_op
        return first if isinstance(first, WarpSpecializePartitionsOp) else None

    def partition_regions(self) -> tuple[Region, ...]:
        holder = self.partitions_op()
        return tuple(holder.regions) if holder is not None else ()

    def verify_(self) -> None:
        """``WarpSpecializeOp::verify`` (lib/Dialect/TritonGPU/IR/Ops.cpp)."""
        if self.partitions_op() is None:
            raise VerifyException(
                "expected to find only a `ttg.warp_specialize.partitions` op inside its "
                "second region"
            )
        regions = self.partition_regions()
        num_warps = list(self.properties["partitionNumWarps"].get_values())
        if len(regions) != len(num_warps):
            raise VerifyException(
                f"has {len(regions)} partitions but `partitionNumWarps` has "
                f"{len(num_warps)} elements"
            )
        for i, n in enumerate(num_warps):
            if n <= 0 or n & (n - 1):
                raise VerifyException(
                    f"partition #{i} number of warps ({n}) must be a power of 2"
                )
        starts = self.properties.get("warpGroupStartIds")
        if isinstance(starts, DenseArrayBase) and len(starts.get_values()) != len(num_warps):
            raise VerifyException(
                f"has {len(starts.get_values())} warp group start IDs but expected "
                f"{len(num_warps)}"
            )
        captures = [v.type for v in self.operands]
        for i, region in enumerate(regions):
            args = region.blocks[0].args if region.blocks else ()
            if len(args) != len(captures):
                raise VerifyException(
                    f"partition region #{i} has {len(args)} arguments but expected "
                    f"{len(captures)}"
                )
            for j, (a, t) in enumerate(zip(args, captures)):
                if not same(a.type, t):
                    raise VerifyException(
                        f"partition region #{i} argument #{j} has type '{a.type}' but "
                        f"corresponding capture has type '{t}'"
                    )
        parent = self.parent_op()
        while parent is not None:
            if isinstance(parent, WarpSpecializeOp):
                raise VerifyException(
                    "cannot be nested inside another `ttg.warp_specialize` op"
                )
            n = parent.attributes.get("ttg.num-warps")
            if isinstance(n, IntegerAttr) and n.value.data % 4:
                raise VerifyException(
                    "warp-specialized kernels requires num_warps to be a multiple of 4"
                )
            parent = parent.parent_op()

    @classmethod
    def parse(cls, parser: Parser):
        captures = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        extra = parser.parse_optional_attr_dict_with_keyword()
        props, attrs = cls.split_attr_dict(extra.data if extra is not None else {})
        parser.parse_keyword("default")
        default = parser.parse_region()
        regions: list[Region] = []
        num_warps: list[int] = []
        while parser.parse_optional_keyword(f"partition{len(regions)}") is not None:
            args = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, lambda: _parse_located_argument(parser)
            )
            parser.parse_keyword("num_warps")
            parser.parse_punctuation("(")
            num_warps.append(parser.parse_integer(allow_boolean=False, allow_negative=False))
            parser.parse_punctuation(")")
            # (in the function's name scope, as Triton's parser reads a partition: a name
            # of the function is seen, and refused by the verifier's isolation rule; one
            # defined again is a redefinition)
            regions.append(parser.parse_region(args))
        parser.parse_punctuation(":")
        pos = parser.pos
        ft = parser.parse_type()
        if not isinstance(ft, FunctionType):
            parser.raise_error("expected a function type", pos, parser.pos)
        operands = resolve_all(parser, captures, list(ft.inputs.data))
        props["partitionNumWarps"] = i32_array(num_warps)
        holder = Region(Block([WarpSpecializePartitionsOp.build([], [], {}, {}, regions)]))
        return cls.build(operands, list(ft.outputs.data), props, attrs, [default, holder])

    def print(self, printer: Printer):
        printer.print_string("(")
        printer.print_list(self.operands, printer.print_ssa_value)
        printer.print_string(")")
        extra = {
            k: v
            for k, v in (*self.properties.items(), *self.attributes.items())
            if k != "partitionNumWarps"
        }
        if extra:
            printer.print_string(" attributes ")
            printer.print_attr_dict(dict(sorted(extra.items())))
        printer.print_string("\n")
        printer.print_string("default ")
        printer.print_region(self.regions[0], print_entry_block_args=False)
        num_warps = self.properties.get("partitionNumWarps")
        counts = list(num_warps.get_values()) if isinstance(num_warps, DenseArrayBase) else []
        for i, region in enumerate(self.partition_regions()):
            printer.enter_scope()  # (isolated from above: names of its own)
            printer.print_string(f"\npartition{i}(")
            args = region.blocks[0].args if region.blocks else ()
            printer.print_list(args, printer.print_block_argument)
            n = counts[i] if i < len(counts) else 0
            printer.print_string(f") num_warps({n}) ")
            printer.print_region(region, print_entry_block_args=False)
            printer.exit_scope()
        printer.print_string(" : ")
        printer.print_function_type(
            [v.type for v in self.operands], [r.type for r in self.results]
        )


def _parse_located_argument(parser: Parser) -> Parser.Argument:
    """``%name: type loc(...)?``, as ``printRegionArgument`` prints a region argument."""
    arg = parser.parse_argument()
    loc = parser.parse_optional_location()
    return Parser.Argument(arg.name, arg.type, loc) if loc is not None else arg


@irdl_triton_op
class WarpSpecializePartitionsOp(TritonOp):
    """``ttg.warp_specialize.partitions``: the holder of the partition regions inside a
    ``ttg.warp_specialize`` (printed by it, never on its own); isolated from above."""

    name = "ttg.warp_specialize.partitions"
    partitionRegions = var_region_def()
    traits = traits_def(
        IsolatedFromAbove(), IsTerminator(), HasParent(WarpSpecializeOp), RecursiveMemoryEffect()
    )


@irdl_triton_op
class WarpYieldOp(TritonOp):
    """``ttg.warp_yield %a, %b attr-dict : T1, T2``: ends the default region, its values are
    the results."""

    name = "ttg.warp_yield"
    values = var_operand_def()
    traits = traits_def(Pure(), IsTerminator(), ReturnLike(), HasParent(WarpSpecializeOp))
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$values attr-dict (`:` type($values)^)?"

    def verify_(self) -> None:
        """``WarpYieldOp::verify``."""
        parent = self.parent_op()
        if not isinstance(parent, WarpSpecializeOp):
            return  # (HasParent reports it)
        results = [r.type for r in parent.results]
        if len(self.operands) != len(results):
            raise VerifyException(
                f"has {len(self.operands)} operands but parent op expected {len(results)}"
            )
        for i, (v, t) in enumerate(zip(self.operands, results)):
            if not same(v.type, t):
                raise VerifyException(
                    f"operand #{i} has type '{v.type}' but parent op expected '{t}'"
                )


@irdl_triton_op
class WarpReturnOp(TritonOp):
    """``ttg.warp_return``: ends a partition region."""

    name = "ttg.warp_return"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure(), IsTerminator(), ReturnLike(), HasParent(WarpSpecializePartitionsOp))
    assembly_format = "attr-dict"


TTG = Dialect(
    "ttg",
    [
        ConvertLayoutOp, MemDescTransOp, MemDescReshapeOp, MemDescReinterpretOp, Fp4ToFpOp,
        LocalAllocOp, LocalLoadOp, LocalStoreOp, LocalDeallocOp, MemDescIndexOp,
        AsyncCopyGlobalToLocalOp, AsyncCommitGroupOp, AsyncWaitOp, MemDescSubsliceOp,
        GlobalScratchAllocOp, LocalBarrierOp, WarpSpecializeOp, WarpSpecializePartitionsOp,
        WarpYieldOp, WarpReturnOp,
    ],
    [*LAYOUTS, MemDescType, AsyncTokenType],
)


# ``ttng``'s ops and dialect live in ttopt.dialects.ttng; the names ttopt 0.1 imported from
# here still resolve (lazily: ttng imports this module).
_MOVED_TO_TTNG = ("TTNG", "WarpGroupDotOp", "WarpGroupDotWaitOp", "FenceAsyncSharedOp")


def __getattr__(name: str):
    if name in _MOVED_TO_TTNG:
        from . import ttng

        return getattr(ttng, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "TTG", "TTNG", "LAYOUTS", "TTNG_LAYOUTS", "MemDescType", "AsyncTokenType",
    "ASYNC_TOKEN", "ConvertLayoutOp", "MemDescTransOp", "MemDescReshapeOp",
    "MemDescReinterpretOp", "Fp4ToFpOp", "LocalAllocOp", "LocalLoadOp", "LocalStoreOp",
    "LocalDeallocOp", "MemDescIndexOp", "AsyncCopyGlobalToLocalOp", "AsyncCommitGroupOp",
    "AsyncWaitOp", "MemDescSubsliceOp", "GlobalScratchAllocOp", "LocalBarrierOp",
    "WarpSpecializeOp", "WarpSpecializePartitionsOp", "WarpYieldOp", "WarpReturnOp",
    "MEMDESC", "I1", "I32",
]
