"""The Triton dialect (``tt``): types and ops of Triton 3.6 (``TritonOps.td``).

Enum attributes are stored as MLIR stores them, ``IntegerAttr`` of ``i32`` (generic form
``evict = 3 : i32``); custom syntax prints them by keyword where Triton does.
"""

from __future__ import annotations

from typing import ClassVar


from xdsl.dialects.builtin import (
    BoolAttr,
    DenseArrayBase,
    IntAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    i1,
    i32,
    i64,
)
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    SameVariadicOperandSize,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import (
    EffectInstance,
    IsolatedFromAbove,
    IsTerminator,
    MemoryEffect,
    MemoryEffectKind,
    MemoryReadEffect,
    MemoryWriteEffect,
    Pure,
    RecursiveMemoryEffect,
    ReturnLike,
    SymbolOpInterface,
)

from .base import (
    TritonOp,
    enum_name,
    get_int,
    int_attr,
    parse_keyword_enum,
    parse_operand_list,
    parse_type_list,
    print_types,
    resolve_all,
)
from .families import ArrowOp, BinaryOp, FunctionalTypeOp, TypedReturnOp, UnaryOp

# ---------------------------------------------------------------------------- enums
CACHE_MODIFIER = {"none": 1, "ca": 2, "cg": 3, "wb": 4, "cs": 5, "wt": 6, "cv": 7}
EVICTION_POLICY = {"evict_normal": 1, "evict_first": 2, "evict_last": 3}
MEM_SEMANTIC = {"relaxed": 1, "acquire": 2, "release": 3, "acq_rel": 4}
MEM_SYNC_SCOPE = {"gpu": 1, "cta": 2, "sys": 3}
RMW_OP = {
    "and": 1, "or": 2, "xor": 3, "add": 4, "fadd": 5, "max": 6, "min": 7,
    "umax": 8, "umin": 9, "exch": 10,
}
PROGRAM_DIM = {"x": 0, "y": 1, "z": 2}
INPUT_PRECISION = {"tf32": 0, "tf32x3": 1, "ieee": 2, "bf16x3": 3, "bf16x6": 4}
ROUNDING_MODE = {"rtz": 0, "rtne": 1}
PROPAGATE_NAN = {"none": 0, "all": 0xFFFF}

# ---------------------------------------------------------------------------- types


@irdl_attr_definition
class PointerType(ParametrizedAttribute, TypeAttribute):
    """``!tt.ptr<T>`` / ``!tt.ptr<T, addrspace>``; ``T`` may be a tensor (block pointer)."""

    name = "tt.ptr"
    pointee: Attribute
    address_space: IntAttr

    def __init__(self, pointee: Attribute, address_space: int = 1):
        super().__init__(pointee, IntAttr(address_space))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.pointee)
        if self.address_space.data != 1:
            printer.print_string(f", {self.address_space.data}")
        printer.print_string(">")

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        parser.parse_punctuation("<")
        pointee = parser.parse_type()
        space = 1
        if parser.parse_optional_punctuation(",") is not None:
            space = parser.parse_integer()
        parser.parse_punctuation(">")
        return (pointee, IntAttr(space))


class OpaqueBodyAttr(ParametrizedAttribute):
    """An attribute or type kept as the raw text of its ``<...>`` body.

    Layouts and memory descriptors are opaque to ttopt's passes; keeping their text makes
    the round trip exact, including alias references such as ``parent = #blocked``.
    """

    # the one parameter, `body: StringAttr`, is declared by `opaque_attr` on each subclass

    def print_parameters(self, printer: Printer) -> None:
        if self.body.data:
            printer.print_string("<" + self.body.data + ">")

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        if parser._current_token.text == "<":  # noqa: SLF001
            return (StringAttr(parser._parse_dialect_symbol_body()),)  # noqa: SLF001
        return (StringAttr(""),)


def opaque_attr(attr_name: str, is_type: bool = False) -> type[OpaqueBodyAttr]:
    bases = (OpaqueBodyAttr, TypeAttribute) if is_type else (OpaqueBodyAttr,)
    cls_name = "".join(p.capitalize() for p in attr_name.replace(".", "_").split("_"))
    namespace = {"name": attr_name, "__annotations__": {"body": StringAttr}}
    cls = type(cls_name + ("Type" if is_type else "Attr"), bases, namespace)
    return irdl_attr_definition(cls)


TensorDescType = opaque_attr("tt.tensordesc", is_type=True)


def with_element(typ: Attribute, elem: Attribute) -> Attribute:
    """``typ`` with its element type replaced (scalars: ``elem`` itself)."""
    if isinstance(typ, TensorType):
        return TensorType(elem, typ.get_shape(), typ.encoding)
    return elem


def i1_like(typ: Attribute) -> Attribute:
    return with_element(typ, i1)


def loaded_type(ptr_type: Attribute) -> Attribute:
    """What ``tt.load`` of a pointer (tensor of pointers, block pointer) produces."""
    if isinstance(ptr_type, TensorType) and isinstance(ptr_type.element_type, PointerType):
        return with_element(ptr_type, ptr_type.element_type.pointee)
    if isinstance(ptr_type, PointerType):
        return ptr_type.pointee
    raise ValueError(f"not a pointer type: {ptr_type}")


def mask_type(ptr_type: Attribute) -> Attribute:
    return i1_like(loaded_type(ptr_type) if isinstance(ptr_type, PointerType) else ptr_type)


# ---------------------------------------------------------------------------- effects


class LoadEffects(MemoryEffect):
    """``tt.load``: reads; a volatile load also writes (as in Triton's ``getEffects``)."""

    @classmethod
    def get_effects(cls, op: Operation):
        if _bool_prop(op, "isVolatile"):
            return {EffectInstance(MemoryEffectKind.READ), EffectInstance(MemoryEffectKind.WRITE)}
        return {EffectInstance(MemoryEffectKind.READ)}


class PureIfMarked(MemoryEffect):
    """Inline asm and extern calls: none when ``pure = true``, else read and write."""

    @classmethod
    def get_effects(cls, op: Operation):
        if _bool_prop(op, "pure"):
            return set()
        return {EffectInstance(MemoryEffectKind.READ), EffectInstance(MemoryEffectKind.WRITE)}


class ReadWriteEffect(MemoryEffect):
    @classmethod
    def get_effects(cls, op: Operation):
        return {EffectInstance(MemoryEffectKind.READ), EffectInstance(MemoryEffectKind.WRITE)}


def _bool_prop(op: Operation, name: str) -> bool:
    attr = op.properties.get(name) or op.attributes.get(name)
    if isinstance(attr, IntegerAttr):
        return bool(attr.value.data)
    return isinstance(attr, UnitAttr)


# ---------------------------------------------------------------------------- load/store


def _parse_cache_evict(parser: Parser, props: dict[str, Attribute]) -> None:
    """The oilist ``cacheModifier = X`` / ``evictionPolicy = Y`` in either order."""
    while True:
        if parser.parse_optional_keyword("cacheModifier") is not None:
            parser.parse_punctuation("=")
            props["cache"] = int_attr(parse_keyword_enum(parser, CACHE_MODIFIER, "cache modifier"))
        elif parser.parse_optional_keyword("evictionPolicy") is not None:
            parser.parse_punctuation("=")
            props["evict"] = int_attr(parse_keyword_enum(parser, EVICTION_POLICY, "eviction policy"))
        else:
            return


def _print_cache_evict(op: TritonOp, printer: Printer) -> None:
    cache = get_int(op, "cache", 1)
    evict = get_int(op, "evict", 1)
    if cache != 1:
        printer.print_string(" cacheModifier = " + enum_name(CACHE_MODIFIER, cache))
    if evict != 1:
        printer.print_string(" evictionPolicy = " + enum_name(EVICTION_POLICY, evict))


def _elide_defaults(op: TritonOp) -> set[str]:
    elide = {"cache", "evict"}
    if not _bool_prop(op, "isVolatile"):
        elide.add("isVolatile")
    bc = op.properties.get("boundaryCheck")
    if isinstance(bc, DenseArrayBase) and not bc.get_values():
        elide.add("boundaryCheck")
    return elide


@irdl_op_definition
class LoadOp(TritonOp):
    name = "tt.load"
    ptr = operand_def()
    mask = opt_operand_def()
    other = opt_operand_def()
    result = result_def()
    boundaryCheck = opt_prop_def(DenseArrayBase)
    padding = opt_prop_def(IntegerAttr)
    cache = opt_prop_def(IntegerAttr)
    evict = opt_prop_def(IntegerAttr)
    isVolatile = opt_prop_def(BoolAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(LoadEffects())

    # --- semantic accessors (defaults applied)
    @property
    def cache_modifier(self) -> int:
        return get_int(self, "cache", 1)

    @property
    def eviction_policy(self) -> int:
        return get_int(self, "evict", 1)

    @property
    def is_volatile(self) -> bool:
        return _bool_prop(self, "isVolatile")

    @classmethod
    def parse(cls, parser: Parser):
        operands = parse_operand_list(parser)
        if not 1 <= len(operands) <= 3:
            parser.raise_error("tt.load expects 1 to 3 operands (ptr, mask, other)")
        props: dict[str, Attribute] = {}
        _parse_cache_evict(parser, props)
        p2, attrs = cls.parse_attr_dict(parser)
        props.update(p2)
        parser.parse_punctuation(":")
        pos = parser.pos
        ptr_type = parser.parse_type()
        try:
            res_type = loaded_type(ptr_type)
        except ValueError:
            parser.raise_error(f"tt.load expects a pointer type, got {ptr_type}", pos, parser.pos)
        types = [ptr_type, mask_type(ptr_type), res_type][: len(operands)]
        values = resolve_all(parser, operands, types)
        props["operandSegmentSizes"] = DenseArrayBase.from_list(
            i32, [1, int(len(values) > 1), int(len(values) > 2)]
        )
        return cls.build(values, [res_type], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_ssa_value)
        _print_cache_evict(self, printer)
        self.print_attr_dict(printer, _elide_defaults(self))
        printer.print_string(" : ")
        printer.print_attribute(self.ptr.type)


@irdl_op_definition
class StoreOp(TritonOp):
    name = "tt.store"
    ptr = operand_def()
    value = operand_def()
    mask = opt_operand_def()
    boundaryCheck = opt_prop_def(DenseArrayBase)
    cache = opt_prop_def(IntegerAttr)
    evict = opt_prop_def(IntegerAttr)
    traits = traits_def(MemoryWriteEffect())

    @classmethod
    def parse(cls, parser: Parser):
        operands = parse_operand_list(parser)
        if not 2 <= len(operands) <= 3:
            parser.raise_error("tt.store expects 2 or 3 operands (ptr, value, mask)")
        props: dict[str, Attribute] = {}
        _parse_cache_evict(parser, props)
        p2, attrs = cls.parse_attr_dict(parser)
        props.update(p2)
        parser.parse_punctuation(":")
        pos = parser.pos
        ptr_type = parser.parse_type()
        try:
            val_type = loaded_type(ptr_type)
        except ValueError:
            parser.raise_error(f"tt.store expects a pointer type, got {ptr_type}", pos, parser.pos)
        types = [ptr_type, val_type, mask_type(ptr_type)][: len(operands)]
        values = resolve_all(parser, operands, types)
        return cls.build(values, [], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_ssa_value)
        _print_cache_evict(self, printer)
        self.print_attr_dict(printer, _elide_defaults(self))
        printer.print_string(" : ")
        printer.print_attribute(self.ptr.type)


# ---------------------------------------------------------------------------- functions


@irdl_op_definition
class FuncOp(TritonOp):
    name = "tt.func"
    body = region_def()
    sym_name = prop_def(StringAttr)
    function_type = prop_def()
    sym_visibility = opt_prop_def(StringAttr)
    arg_attrs = opt_prop_def()
    res_attrs = opt_prop_def()
    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    @classmethod
    def parse(cls, parser: Parser):
        visibility = parser.parse_optional_visibility_keyword()
        (name, ins, outs, region, extra, arg_attrs, res_attrs) = parse_func_op_like(
            parser, reserved_attr_names=("sym_name", "function_type", "sym_visibility")
        )
        from xdsl.dialects.builtin import FunctionType

        props: dict[str, Attribute] = {
            "sym_name": StringAttr(name),
            "function_type": FunctionType.from_lists(ins, outs),
        }
        if visibility is not None:
            props["sym_visibility"] = visibility
        if arg_attrs is not None:
            props["arg_attrs"] = arg_attrs
        if res_attrs is not None:
            props["res_attrs"] = res_attrs
        p2, attrs = cls.split_attr_dict(extra.data if extra is not None else {})
        props.update(p2)
        return cls.build([], [], props, attrs, [region])

    def print(self, printer: Printer):
        if self.sym_visibility is not None:
            printer.print_string(" " + self.sym_visibility.data)
        extra = {
            k: v
            for k, v in {**self.properties, **self.attributes}.items()
            if k not in ("sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs")
        }
        print_func_op_like(
            printer,
            self.sym_name,
            self.function_type,
            self.body,
            dict(sorted(extra.items())),
            arg_attrs=self.arg_attrs,
            res_attrs=self.res_attrs,
            reserved_attr_names=(),
        )


@irdl_op_definition
class ReturnOp(TypedReturnOp):
    name = "tt.return"
    traits = traits_def(Pure(), IsTerminator(), ReturnLike())


@irdl_op_definition
class CallOp(TritonOp):
    """``tt.call @f(%a) : (T) -> R``; the callee may do anything: unknown effects."""

    name = "tt.call"
    ins = var_operand_def()
    outs = var_result_def()
    callee = prop_def()

    @classmethod
    def parse(cls, parser: Parser):
        callee = parser.parse_attribute()  # @symbol
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        ft = parser.parse_function_type()
        values = resolve_all(parser, operands, list(ft.inputs.data))
        props["callee"] = callee
        return cls.build(values, list(ft.outputs.data), props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_attribute(self.callee)
        printer.print_string("(")
        printer.print_list(self.operands, printer.print_ssa_value)
        printer.print_string(")")
        self.print_attr_dict(printer, {"callee"})
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)


# ---------------------------------------------------------------------------- reduce / scan


@irdl_op_definition
class ReduceOp(TritonOp):
    """Generic form only, as Triton prints it."""

    name = "tt.reduce"
    srcs = var_operand_def()
    outs = var_result_def()
    axis = prop_def(IntegerAttr)
    combineOp = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())  # as pure as its body


@irdl_op_definition
class ReduceReturnOp(TypedReturnOp):
    name = "tt.reduce.return"
    traits = traits_def(Pure(), IsTerminator())

    def print(self, printer: Printer):  # `$result attr-dict : type($result)`
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_ssa_value)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        print_types(printer, self.operand_types)


@irdl_op_definition
class ScanOp(TritonOp):
    name = "tt.scan"
    srcs = var_operand_def()
    outs = var_result_def()
    axis = prop_def(IntegerAttr)
    reverse = prop_def(BoolAttr)
    combineOp = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())  # as pure as its body


@irdl_op_definition
class ScanReturnOp(TypedReturnOp):
    name = "tt.scan.return"
    traits = traits_def(Pure(), IsTerminator())
    print = ReduceReturnOp.print


@irdl_op_definition
class MapElementwiseOp(TritonOp):
    name = "tt.map_elementwise"
    srcs = var_operand_def()
    outs = var_result_def()
    scalarOp = region_def()
    traits = traits_def(RecursiveMemoryEffect())  # as pure as its body


@irdl_op_definition
class MapElementwiseReturnOp(TypedReturnOp):
    name = "tt.map_elementwise.return"
    traits = traits_def(Pure(), IsTerminator())
    print = ReduceReturnOp.print


# ---------------------------------------------------------------------------- shape ops


def _arrow(op_name: str, base=ArrowOp, **extra):
    cls = type(
        "".join(p.capitalize() for p in op_name.replace("tt.", "").split("_")) + "Op",
        (base,),
        {"name": op_name, "traits": traits_def(Pure()), **extra},
    )
    return irdl_op_definition(cls)


SplatOp = _arrow("tt.splat")
UnsplatOp = _arrow("tt.unsplat")
BroadcastOp = _arrow("tt.broadcast")
ExpandDimsOp = _arrow("tt.expand_dims", axis=prop_def(IntegerAttr))
BitcastOp = _arrow("tt.bitcast")
IntToPtrOp = _arrow("tt.int_to_ptr")
PtrToIntOp = _arrow("tt.ptr_to_int")
TransOp = _arrow("tt.trans", order=prop_def(DenseArrayBase))


class _ReshapeBase(ArrowOp):
    @classmethod
    def _parse_middle(cls, parser: Parser):
        props: dict[str, Attribute] = {}
        for kw in ("allow_reorder", "efficient_layout"):
            if parser.parse_optional_keyword(kw) is not None:
                props[kw] = UnitAttr()
        return props, {}

    def _print_middle(self, printer: Printer) -> set[str]:
        for kw in ("allow_reorder", "efficient_layout"):
            if kw in self.properties:
                printer.print_string(" " + kw)
        return {"allow_reorder", "efficient_layout"}


ReshapeOp = _arrow(
    "tt.reshape",
    _ReshapeBase,
    allow_reorder=opt_prop_def(UnitAttr),
    efficient_layout=opt_prop_def(UnitAttr),
)


@irdl_op_definition
class FpToFpOp(TritonOp):
    """``tt.fp_to_fp %x attr-dict (, rounding = rtne)? : T -> U``."""

    name = "tt.fp_to_fp"
    src = operand_def()
    result = result_def()
    rounding = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        x = parser.parse_unresolved_operand()
        props, attrs = cls.parse_attr_dict(parser)
        if parser.parse_optional_punctuation(",") is not None:
            parser.parse_keyword("rounding")
            parser.parse_punctuation("=")
            props["rounding"] = int_attr(parse_keyword_enum(parser, ROUNDING_MODE, "rounding mode"))
        parser.parse_punctuation(":")
        t = parser.parse_type()
        parser.parse_punctuation("->")
        r = parser.parse_type()
        return cls.build([parser.resolve_operand(x, t)], [r], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.src)
        self.print_attr_dict(printer, {"rounding"})
        if self.rounding is not None:
            printer.print_string(", rounding = " + enum_name(ROUNDING_MODE, self.rounding.value.data))
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


class _TwoToOne(TritonOp):
    """``op %a, %b attr-dict : type($a) -> type($result)`` (join, cat)."""

    lhs = operand_def()
    rhs = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        a = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        b = parser.parse_unresolved_operand()
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        parser.parse_punctuation("->")
        r = parser.parse_type()
        return cls.build(resolve_all(parser, [a, b], [t, t]), [r], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_ssa_value)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.lhs.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class JoinOp(_TwoToOne):
    name = "tt.join"


@irdl_op_definition
class CatOp(_TwoToOne):
    name = "tt.cat"


@irdl_op_definition
class SplitOp(TritonOp):
    """``%l, %r = tt.split %x : T -> U`` (two results of type U)."""

    name = "tt.split"
    src = operand_def()
    outLHS = result_def()
    outRHS = result_def()
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        x = parser.parse_unresolved_operand()
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        parser.parse_punctuation("->")
        r = parser.parse_type()
        return cls.build([parser.resolve_operand(x, t)], [r, r], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.src)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.outLHS.type)


@irdl_op_definition
class HistogramOp(TritonOp):
    """``tt.histogram %x (, %mask)? : T -> U``."""

    name = "tt.histogram"
    src = operand_def()
    mask = opt_operand_def()
    result = result_def()
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        ops = parse_operand_list(parser)
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        parser.parse_punctuation("->")
        r = parser.parse_type()
        values = resolve_all(parser, ops, [t, i1_like(t)][: len(ops)])
        return cls.build(values, [r], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_ssa_value)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class AddPtrOp(TritonOp):
    """``tt.addptr %p, %off : PT, OT`` (result type = PT)."""

    name = "tt.addptr"
    ptr = operand_def()
    offset = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        p = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        o = parser.parse_unresolved_operand()
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        pt = parser.parse_type()
        parser.parse_punctuation(",")
        ot = parser.parse_type()
        return cls.build(resolve_all(parser, [p, o], [pt, ot]), [pt], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_ssa_value)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)
        printer.print_string(", ")
        printer.print_attribute(self.offset.type)


def _parse_bracket_operands(parser: Parser):
    return parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, parser.parse_unresolved_operand
    )


def _print_bracket_operands(printer: Printer, values) -> None:
    printer.print_string("[")
    printer.print_list(values, printer.print_ssa_value)
    printer.print_string("]")


def _parse_maybe_unqualified(parser: Parser, cls):
    """A type printed with or without its ``!dialect.name`` prefix."""
    if parser._current_token.text == "<":  # noqa: SLF001
        return cls.new(cls.parse_parameters(parser))
    return parser.parse_type()


@irdl_op_definition
class AdvanceOp(TritonOp):
    """``tt.advance %p, [%o1, %o2] : <tensor<...>>`` (block pointer printed unqualified)."""

    name = "tt.advance"
    ptr = operand_def()
    offsets = var_operand_def()
    result = result_def()
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        p = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        offs = _parse_bracket_operands(parser)
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        t = _parse_maybe_unqualified(parser, PointerType)
        values = resolve_all(parser, [p, *offs], [t] + [i32] * len(offs))
        return cls.build(values, [t], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.ptr)
        printer.print_string(", ")
        _print_bracket_operands(printer, self.offsets)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        self.result.type.print_parameters(printer)


@irdl_op_definition
class MakeTensorPtrOp(TritonOp):
    """``tt.make_tensor_ptr %base, [shape], [strides], [offsets] {order} : <tensor<..>>``."""

    name = "tt.make_tensor_ptr"
    base = operand_def()
    shape = var_operand_def()
    strides = var_operand_def()
    offsets = var_operand_def()
    result = result_def()
    order = prop_def(DenseArrayBase)
    irdl_options = (SameVariadicOperandSize(),)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        b = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        shape = _parse_bracket_operands(parser)
        parser.parse_punctuation(",")
        strides = _parse_bracket_operands(parser)
        parser.parse_punctuation(",")
        offsets = _parse_bracket_operands(parser)
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        t = _parse_maybe_unqualified(parser, PointerType)
        if not isinstance(t, PointerType) or not isinstance(t.pointee, TensorType):
            parser.raise_error("tt.make_tensor_ptr expects a block pointer type")
        base_t = PointerType(t.pointee.element_type, t.address_space.data)
        values = resolve_all(
            parser,
            [b, *shape, *strides, *offsets],
            [base_t] + [i64] * (len(shape) + len(strides)) + [i32] * len(offsets),
        )
        return cls.build(values, [t], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.base)
        for group in (self.shape, self.strides, self.offsets):
            printer.print_string(", ")
            _print_bracket_operands(printer, group)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        self.result.type.print_parameters(printer)


class _NoOperandTypedOp(TritonOp):
    """``op attr-dict : T``."""

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


@irdl_op_definition
class MakeRangeOp(_NoOperandTypedOp):
    name = "tt.make_range"
    start = prop_def(IntegerAttr)
    end = prop_def(IntegerAttr)


class _ProgramDimOp(TritonOp):
    """``op x : i32``."""

    result = result_def()
    axis = prop_def(IntegerAttr)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        axis = parse_keyword_enum(parser, PROGRAM_DIM, "program dimension")
        props, attrs = cls.parse_attr_dict(parser)
        props["axis"] = int_attr(axis)
        parser.parse_punctuation(":")
        return cls.build([], [parser.parse_type()], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" " + enum_name(PROGRAM_DIM, self.axis.value.data))
        self.print_attr_dict(printer, {"axis"})
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class GetProgramIdOp(_ProgramDimOp):
    name = "tt.get_program_id"


@irdl_op_definition
class GetNumProgramsOp(_ProgramDimOp):
    name = "tt.get_num_programs"


def _same(op_name: str, base, effect=None):
    cls = type(
        "".join(p.capitalize() for p in op_name.replace("tt.", "").split("_")) + "Op",
        (base,),
        {"name": op_name, "traits": traits_def(effect or Pure())},
    )
    return irdl_op_definition(cls)


MulhiUIOp = _same("tt.mulhiui", BinaryOp)
PreciseDivfOp = _same("tt.precise_divf", BinaryOp)
PreciseSqrtOp = _same("tt.precise_sqrt", UnaryOp)


@irdl_op_definition
class ClampFOp(TritonOp):
    """``tt.clampf %x, %lo, %hi, propagateNan = none : T``."""

    name = "tt.clampf"
    x = operand_def()
    min = operand_def()
    max = operand_def()
    result = result_def()
    propagateNan = prop_def(IntegerAttr)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        ops = [parser.parse_unresolved_operand()]
        for _ in range(2):
            parser.parse_punctuation(",")
            ops.append(parser.parse_unresolved_operand())
        parser.parse_punctuation(",")
        parser.parse_keyword("propagateNan")
        parser.parse_punctuation("=")
        nan = parse_keyword_enum(parser, PROPAGATE_NAN, "propagateNan")
        props, attrs = cls.parse_attr_dict(parser)
        props["propagateNan"] = int_attr(nan)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        return cls.build(resolve_all(parser, ops, [t] * 3), [t], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_ssa_value)
        printer.print_string(
            ", propagateNan = " + enum_name(PROPAGATE_NAN, self.propagateNan.value.data)
        )
        self.print_attr_dict(printer, {"propagateNan"})
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


class DotLikeOp(TritonOp):
    """``op %a, %b, %c (, inputPrecision = P)? attr-dict : A * B -> D``."""

    a = operand_def()
    b = operand_def()
    c = operand_def()
    d = result_def()
    inputPrecision = opt_prop_def(IntegerAttr)

    @classmethod
    def parse(cls, parser: Parser):
        ops = [parser.parse_unresolved_operand()]
        props: dict[str, Attribute] = {}
        while parser.parse_optional_punctuation(",") is not None:
            if parser.parse_optional_keyword("inputPrecision") is not None:
                parser.parse_punctuation("=")
                props["inputPrecision"] = int_attr(
                    parse_keyword_enum(parser, INPUT_PRECISION, "input precision")
                )
                break
            ops.append(parser.parse_unresolved_operand())
        p2, attrs = cls.parse_attr_dict(parser)
        props.update(p2)
        parser.parse_punctuation(":")
        ta = parser.parse_type()
        parser.parse_punctuation("*")
        tb = parser.parse_type()
        parser.parse_punctuation("->")
        td = parser.parse_type()
        types = [ta, tb, td] + [i1] * (len(ops) - 3)
        return cls.build(resolve_all(parser, ops, types[: len(ops)]), [td], props, attrs)

    KEYWORD_PRECISION: ClassVar[bool] = True

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_ssa_value)
        elide: set[str] = set()
        prec = self.inputPrecision
        if self.KEYWORD_PRECISION:
            elide.add("inputPrecision")
            if prec is not None and prec.value.data != INPUT_PRECISION["ieee"]:
                printer.print_string(
                    ", inputPrecision = " + enum_name(INPUT_PRECISION, prec.value.data)
                )
        self.print_attr_dict(printer, elide)
        printer.print_string(" : ")
        printer.print_attribute(self.a.type)
        printer.print_string(" * ")
        printer.print_attribute(self.b.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.d.type)


@irdl_op_definition
class DotOp(DotLikeOp):
    name = "tt.dot"
    traits = traits_def(Pure())


# ---------------------------------------------------------------------------- atomics


@irdl_op_definition
class AtomicRMWOp(TritonOp):
    name = "tt.atomic_rmw"
    ptr = operand_def()
    val = operand_def()
    mask = opt_operand_def()
    result = result_def()
    atomic_rmw_op = prop_def(IntegerAttr)
    sem = prop_def(IntegerAttr)
    scope = prop_def(IntegerAttr)
    traits = traits_def(ReadWriteEffect())

    @classmethod
    def parse(cls, parser: Parser):
        props: dict[str, Attribute] = {}
        props["atomic_rmw_op"] = int_attr(parse_keyword_enum(parser, RMW_OP, "atomic op"))
        parser.parse_punctuation(",")
        props["sem"] = int_attr(parse_keyword_enum(parser, MEM_SEMANTIC, "memory semantic"))
        parser.parse_punctuation(",")
        props["scope"] = int_attr(parse_keyword_enum(parser, MEM_SYNC_SCOPE, "scope"))
        parser.parse_punctuation(",")
        ops = parse_operand_list(parser)
        p2, attrs = cls.parse_attr_dict(parser)
        props.update(p2)
        parser.parse_punctuation(":")
        ft = parser.parse_function_type()
        return cls.build(
            resolve_all(parser, ops, list(ft.inputs.data)), list(ft.outputs.data), props, attrs
        )

    def print(self, printer: Printer):
        printer.print_string(
            f" {enum_name(RMW_OP, self.atomic_rmw_op.value.data)},"
            f" {enum_name(MEM_SEMANTIC, self.sem.value.data)},"
            f" {enum_name(MEM_SYNC_SCOPE, self.scope.value.data)}, "
        )
        printer.print_list(self.operands, printer.print_ssa_value)
        self.print_attr_dict(printer, {"atomic_rmw_op", "sem", "scope"})
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)


@irdl_op_definition
class AtomicCASOp(TritonOp):
    name = "tt.atomic_cas"
    ptr = operand_def()
    cmp = operand_def()
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
        props["scope"] = int_attr(parse_keyword_enum(parser, MEM_SYNC_SCOPE, "scope"))
        parser.parse_punctuation(",")
        ops = parse_operand_list(parser)
        p2, attrs = cls.parse_attr_dict(parser)
        props.update(p2)
        parser.parse_punctuation(":")
        ft = parser.parse_function_type()
        return cls.build(
            resolve_all(parser, ops, list(ft.inputs.data)), list(ft.outputs.data), props, attrs
        )

    def print(self, printer: Printer):
        printer.print_string(
            f" {enum_name(MEM_SEMANTIC, self.sem.value.data)},"
            f" {enum_name(MEM_SYNC_SCOPE, self.scope.value.data)}, "
        )
        printer.print_list(self.operands, printer.print_ssa_value)
        self.print_attr_dict(printer, {"sem", "scope"})
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)


# ---------------------------------------------------------------------------- debug ops


@irdl_op_definition
class AssertOp(TritonOp):
    """``tt.assert %c, "msg" : T``: writes (device-side assert), like Triton declares."""

    name = "tt.assert"
    condition = operand_def()
    message = prop_def(StringAttr)
    traits = traits_def(MemoryWriteEffect())

    @classmethod
    def parse(cls, parser: Parser):
        c = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        msg = parser.parse_str_literal()
        props, attrs = cls.parse_attr_dict(parser)
        props["message"] = StringAttr(msg)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        return cls.build([parser.resolve_operand(c, t)], [], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.condition)
        printer.print_string(", ")
        printer.print_string_literal(self.message.data)
        self.print_attr_dict(printer, {"message"})
        printer.print_string(" : ")
        printer.print_attribute(self.condition.type)


@irdl_op_definition
class PrintOp(TritonOp):
    """``tt.print "prefix" {hex, isSigned} : %a, %b : T1, T2``: writes."""

    name = "tt.print"
    args = var_operand_def()
    prefix = prop_def(StringAttr)
    hex = prop_def(BoolAttr)
    isSigned = prop_def(DenseArrayBase)
    traits = traits_def(MemoryWriteEffect())

    @classmethod
    def parse(cls, parser: Parser):
        prefix = parser.parse_str_literal()
        props, attrs = cls.parse_attr_dict(parser)
        props["prefix"] = StringAttr(prefix)
        values = []
        if parser.parse_optional_punctuation(":") is not None:
            ops = parse_operand_list(parser)
            parser.parse_punctuation(":")
            values = resolve_all(parser, ops, parse_type_list(parser))
        return cls.build(values, [], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_string_literal(self.prefix.data)
        self.print_attr_dict(printer, {"prefix"})
        if self.args:
            printer.print_string(" : ")
            printer.print_list(self.args, printer.print_ssa_value)
            printer.print_string(" : ")
            print_types(printer, (a.type for a in self.args))


# ---------------------------------------------------------------------------- misc


@irdl_op_definition
class GatherOp(TritonOp):
    """``tt.gather %src[%idx] {axis} : (S, I) -> R``."""

    name = "tt.gather"
    src = operand_def()
    indices = operand_def()
    result = result_def()
    axis = prop_def(IntegerAttr)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        s = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        i = parser.parse_unresolved_operand()
        parser.parse_punctuation("]")
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        ft = parser.parse_function_type()
        return cls.build(
            resolve_all(parser, [s, i], list(ft.inputs.data)), list(ft.outputs.data), props, attrs
        )

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.src)
        printer.print_string("[")
        printer.print_ssa_value(self.indices)
        printer.print_string("]")
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)


@irdl_op_definition
class ExternElementwiseOp(FunctionalTypeOp):
    name = "tt.extern_elementwise"
    traits = traits_def(PureIfMarked())


@irdl_op_definition
class ElementwiseInlineAsmOp(TritonOp):
    """``tt.elementwise_inline_asm "asm" {constraints, packed_element, pure} %a : T -> R``."""

    name = "tt.elementwise_inline_asm"
    args = var_operand_def()
    outs = var_result_def()
    asm_string = prop_def(StringAttr)
    traits = traits_def(PureIfMarked())

    @classmethod
    def parse(cls, parser: Parser):
        asm = parser.parse_str_literal()
        props, attrs = cls.parse_attr_dict(parser)
        props["asm_string"] = StringAttr(asm)
        ops = parse_operand_list(parser)
        types: list[Attribute] = []
        if ops:
            parser.parse_punctuation(":")
            types = parse_type_list(parser)
        parser.parse_punctuation("->")
        outs = parse_type_list(parser)
        return cls.build(resolve_all(parser, ops, types), outs, props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_string_literal(self.asm_string.data)
        self.print_attr_dict(printer, {"asm_string"})
        if self.args:
            printer.print_string(" ")
            printer.print_list(self.args, printer.print_ssa_value)
            printer.print_string(" : ")
            print_types(printer, (a.type for a in self.args))
        printer.print_string(" -> ")
        print_types(printer, self.result_types)


# ---------------------------------------------------------------------------- descriptors


@irdl_op_definition
class DescriptorLoadOp(TritonOp):
    """``tt.descriptor_load %d[%i, %j] oilist : !tt.tensordesc<..> -> tensor<..>``."""

    name = "tt.descriptor_load"
    desc = operand_def()
    indices = var_operand_def()
    result = result_def()
    cache = opt_prop_def(IntegerAttr)
    evict = opt_prop_def(IntegerAttr)
    traits = traits_def(MemoryReadEffect())

    @classmethod
    def parse(cls, parser: Parser):
        d = parser.parse_unresolved_operand()
        idx = _parse_bracket_operands(parser)
        props: dict[str, Attribute] = {}
        _parse_cache_evict(parser, props)
        p2, attrs = cls.parse_attr_dict(parser)
        props.update(p2)
        parser.parse_punctuation(":")
        dt = parser.parse_type()
        parser.parse_punctuation("->")
        rt = parser.parse_type()
        return cls.build(resolve_all(parser, [d, *idx], [dt] + [i32] * len(idx)), [rt], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.desc)
        _print_bracket_operands(printer, self.indices)
        _print_cache_evict(self, printer)
        self.print_attr_dict(printer, {"cache", "evict"})
        printer.print_string(" : ")
        printer.print_attribute(self.desc.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class DescriptorStoreOp(TritonOp):
    """``tt.descriptor_store %d[%i], %v : !tt.tensordesc<..>, tensor<..>``."""

    name = "tt.descriptor_store"
    desc = operand_def()
    indices = var_operand_def()
    src = operand_def()
    traits = traits_def(ReadWriteEffect())

    @classmethod
    def parse(cls, parser: Parser):
        d = parser.parse_unresolved_operand()
        idx = _parse_bracket_operands(parser)
        parser.parse_punctuation(",")
        s = parser.parse_unresolved_operand()
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        dt = parser.parse_type()
        parser.parse_punctuation(",")
        st = parser.parse_type()
        values = resolve_all(parser, [d, *idx, s], [dt] + [i32] * len(idx) + [st])
        return cls.build(values, [], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.desc)
        _print_bracket_operands(printer, self.indices)
        printer.print_string(", ")
        printer.print_ssa_value(self.src)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.desc.type)
        printer.print_string(", ")
        printer.print_attribute(self.src.type)


@irdl_op_definition
class MakeTensorDescOp(TritonOp):
    """``tt.make_tensor_descriptor %base, [shape], [strides] : !tt.ptr<T>, !tt.tensordesc<..>``."""

    name = "tt.make_tensor_descriptor"
    base = operand_def()
    shape = var_operand_def()
    strides = var_operand_def()
    result = result_def()
    irdl_options = (SameVariadicOperandSize(),)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        b = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        shape = _parse_bracket_operands(parser)
        parser.parse_punctuation(",")
        strides = _parse_bracket_operands(parser)
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        bt = parser.parse_type()
        parser.parse_punctuation(",")
        rt = parser.parse_type()
        values = resolve_all(
            parser, [b, *shape, *strides], [bt] + [i32] * len(shape) + [i64] * len(strides)
        )
        return cls.build(values, [rt], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.base)
        printer.print_string(", ")
        _print_bracket_operands(printer, self.shape)
        printer.print_string(", ")
        _print_bracket_operands(printer, self.strides)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.base.type)
        printer.print_string(", ")
        printer.print_attribute(self.result.type)


TT = Dialect(
    "tt",
    [
        LoadOp, StoreOp, FuncOp, ReturnOp, CallOp, ReduceOp, ReduceReturnOp, ScanOp,
        ScanReturnOp, MapElementwiseOp, MapElementwiseReturnOp, SplatOp, UnsplatOp,
        BroadcastOp, ExpandDimsOp, BitcastOp, IntToPtrOp, PtrToIntOp, TransOp, ReshapeOp,
        FpToFpOp, JoinOp, CatOp, SplitOp, HistogramOp, AddPtrOp, AdvanceOp, MakeTensorPtrOp,
        MakeRangeOp, GetProgramIdOp, GetNumProgramsOp, MulhiUIOp, PreciseDivfOp,
        PreciseSqrtOp, ClampFOp, DotOp, AtomicRMWOp, AtomicCASOp, AssertOp, PrintOp,
        GatherOp, ExternElementwiseOp, ElementwiseInlineAsmOp, DescriptorLoadOp,
        DescriptorStoreOp, MakeTensorDescOp,
    ],
    [PointerType, TensorDescType],
)

__all__ = ["TT", "PointerType", "LoadOp", "StoreOp", "ReduceOp", "ScanOp"]
