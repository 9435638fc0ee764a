"""The Triton dialect (``tt``): types and ops of Triton 3.6 (``TritonOps.td``).

Enum attributes are stored as MLIR stores them, ``IntegerAttr`` of ``i32`` (generic form
``evict = 3 : i32``); custom syntax prints them by keyword where Triton does.
"""

from __future__ import annotations

from typing import ClassVar


from xdsl.dialects.builtin import (
    BoolAttr,
    DenseArrayBase,
    FunctionType,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
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
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    MemoryEffect,
    MemoryEffectKind,
    MemoryReadEffect,
    MemoryWriteEffect,
    OpTrait,
    Pure,
    RecursiveMemoryEffect,
    ReturnLike,
    SymbolOpInterface,
    SymbolTable,
    SymbolUserOpInterface,
)
from xdsl.utils.exceptions import VerifyException

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
from .constraints import (
    first as _first,
    BoolLike,
    ExactType,
    TTFloatLike,
    TTI64Like,
    TTIntLike,
    TTLoadPtr,
    TTPtrLike,
    TTTensor,
    bit_width,
    element_type,
    encoding_of,
    i1_same_shape,
    register_pointer_type,
    same,
    same_encoding,
    shape_of,
    with_element,
)
from .families import ArrowOp, BinaryOp, FunctionalTypeOp, TypedReturnOp, UnaryOp, same_type_defs

TENSOR = TTTensor()
MAX_TENSOR_NUM_ELEMENTS = 1048576  # Triton's maxTensorNumElements


class TensorSizeTrait(OpTrait):
    """Triton's ``TensorSizeTrait`` (every ``tt`` op): each ranked tensor operand or result
    has a power-of-two number of elements, at most ``MAX_TENSOR_NUM_ELEMENTS``."""

    # id(type) -> type, for types already found fine: the reader shares one object per type
    # text, so most checks are one set lookup (the type is kept alive, so its id stays its own)
    _fine: ClassVar[dict[int, Attribute]] = {}

    def verify(self, op: Operation) -> None:
        fine = self._fine
        for values in (op._operands, op.results):  # noqa: SLF001
            for v in values:
                t = v.type
                if id(t) in fine:
                    continue
                if isinstance(t, TensorType):
                    n = 1
                    for d in t.get_shape():
                        n *= d if d >= 0 else 1  # (a dynamic size: not Triton's, not checked)
                    if n > MAX_TENSOR_NUM_ELEMENTS:
                        raise VerifyException(
                            f"maximum allowed number of elements is {MAX_TENSOR_NUM_ELEMENTS}, "
                            f"but '{t}' has more than that"
                        )
                    if n & (n - 1):
                        raise VerifyException(
                            f"number of elements must be power-of-two, but '{t}' has {n} "
                            "elements"
                        )
                if len(fine) > 4096:
                    fine.clear()
                fine[id(t)] = t


_TENSOR_SIZE = TensorSizeTrait()


def tt_traits(*traits):
    """``traits_def`` of a ``tt`` op: Triton's ``TT_Op`` adds ``TensorSizeTrait``."""
    return traits_def(*traits, _TENSOR_SIZE)


def segment_sizes(attr: DenseArrayBase) -> tuple[int, ...]:
    """``operandSegmentSizes`` as a tuple (memoised by its bytes: a handful of values)."""
    raw = attr.data.data
    sizes = _SEGMENTS.get(raw)
    if sizes is None:
        sizes = _SEGMENTS[raw] = tuple(attr.get_values())
    return sizes


_SEGMENTS: dict[bytes, tuple[int, ...]] = {}


def _pointee_matches(ptr_type: Attribute, t: Attribute) -> bool:
    """Is ``t`` Triton's ``getPointeeType(ptr_type)`` (what a load of it produces)?"""
    if type(ptr_type) is TensorType or isinstance(ptr_type, TensorType):
        elem = ptr_type.element_type
        return (
            isinstance(elem, PointerType)
            and isinstance(t, TensorType)
            and same(t.element_type, elem.pointee)
            and shape_of(t) == shape_of(ptr_type)
            and same(t.encoding, ptr_type.encoding)
        )
    if isinstance(ptr_type, PointerType):
        return same(t, ptr_type.pointee)
    return False



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
register_pointer_type(PointerType)


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
    ptr = operand_def(TTLoadPtr())
    mask = opt_operand_def(BoolLike())
    other = opt_operand_def()
    result = result_def()
    boundaryCheck = opt_prop_def(DenseArrayBase)
    padding = opt_prop_def(IntegerAttr)
    cache = opt_prop_def(IntegerAttr)
    evict = opt_prop_def(IntegerAttr)
    isVolatile = opt_prop_def(BoolAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = tt_traits(LoadEffects())

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

    def verify_(self) -> None:
        operands = self._operands
        rt = _first(self.results).type
        if not _pointee_matches(operands[0].type, rt):
            raise VerifyException("failed to verify that result matches ptr type")
        if len(operands) == 1:
            return
        _, n_mask, n_other = segment_sizes(self.properties["operandSegmentSizes"])
        if n_mask and not i1_same_shape(rt, operands[1].type):
            raise VerifyException("failed to verify that mask type matches ptr type")
        if n_other and not same(operands[-1].type, rt):
            raise VerifyException("failed to verify that other matches ptr type")

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
    ptr = operand_def(TTLoadPtr())
    value = operand_def()
    mask = opt_operand_def(BoolLike())
    boundaryCheck = opt_prop_def(DenseArrayBase)
    cache = opt_prop_def(IntegerAttr)
    evict = opt_prop_def(IntegerAttr)
    traits = tt_traits(MemoryWriteEffect())

    def verify_(self) -> None:
        operands = self._operands
        pt, vt = operands[0].type, operands[1].type
        if not _pointee_matches(pt, vt):
            raise VerifyException("failed to verify that value type matches ptr type")
        if len(operands) > 2 and not i1_same_shape(vt, operands[2].type):
            raise VerifyException("failed to verify that mask type matches ptr type")

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
    traits = tt_traits(IsolatedFromAbove(), SymbolOpInterface(), HasParent(ModuleOp))

    def verify_(self) -> None:
        ft = self.function_type
        if not isinstance(ft, FunctionType):
            raise VerifyException(f"'function_type' must be a function type, got '{ft}'")
        blocks = self.body.blocks
        if not blocks:  # a declaration (MLIR's SymbolOpInterface::verify)
            vis = self.sym_visibility
            if vis is None or vis.data == "public":
                raise VerifyException("symbol declaration cannot have public visibility")
            return
        args = blocks[0].args
        inputs = ft.inputs.data
        if len(args) != len(inputs):
            raise VerifyException(
                f"entry block must have {len(inputs)} arguments to match function signature"
            )
        for i, (a, t) in enumerate(zip(args, inputs)):
            if not same(a.type, t):
                raise VerifyException(
                    f"type of entry block argument #{i}('{a.type}') must match the type of the "
                    f"corresponding argument in function signature('{t}')"
                )

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
    traits = tt_traits(Pure(), IsTerminator(), ReturnLike(), HasParent(FuncOp))

    def verify_(self) -> None:
        func = self.parent_op()
        if not isinstance(func, FuncOp) or not isinstance(func.function_type, FunctionType):
            return  # (HasParent reports it)
        results = func.function_type.outputs.data
        operands = self.operands
        if len(operands) != len(results):
            raise VerifyException(
                f"has {len(operands)} operands, but enclosing function "
                f"(@{func.sym_name.data}) returns {len(results)}"
            )
        for i, (v, t) in enumerate(zip(operands, results)):
            if not same(v.type, t):
                raise VerifyException(
                    f"type of return operand {i} ('{v.type}') doesn't match function result "
                    f"type ('{t}') in function @{func.sym_name.data}"
                )


class CalleeIsAFunction(SymbolUserOpInterface):
    """``tt.call``'s ``verifySymbolUses``: the callee is a ``tt.func`` of the enclosing
    symbol table, with the call's operand and result types."""

    def verify(self, op: Operation) -> None:
        callee = op.properties.get("callee")
        if not isinstance(callee, SymbolRefAttr):
            raise VerifyException("requires a 'callee' symbol reference attribute")
        try:
            fn = SymbolTable.lookup_symbol(op, callee)
        except ValueError:
            fn = None
        name = callee.root_reference.data
        if not isinstance(fn, FuncOp) or not isinstance(fn.function_type, FunctionType):
            raise VerifyException(f"'{name}' does not reference a valid function")
        ft = fn.function_type
        inputs, outputs = ft.inputs.data, ft.outputs.data
        if len(inputs) != len(op.operands):
            raise VerifyException("incorrect number of operands for callee")
        for i, (v, t) in enumerate(zip(op.operands, inputs)):
            if not same(v.type, t):
                raise VerifyException(
                    f"operand type mismatch: expected operand type '{t}', but provided "
                    f"'{v.type}' for operand number {i}"
                )
        if len(outputs) != len(op.results):
            raise VerifyException("incorrect number of results for callee")
        for i, (r, t) in enumerate(zip(op.results, outputs)):
            if not same(r.type, t):
                raise VerifyException(f"result type mismatch at index {i}")


@irdl_op_definition
class CallOp(TritonOp):
    """``tt.call @f(%a) : (T) -> R``; the callee may do anything: unknown effects."""

    name = "tt.call"
    ins = var_operand_def()
    outs = var_result_def()
    callee = prop_def()
    traits = tt_traits(CalleeIsAFunction())

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


def _verify_reduce_scan(op: TritonOp, return_op: type, scan: bool) -> None:
    """``verifyReduceScan``, the shape traits and ``verifyRegionsImpl`` of Triton's
    ``tt.reduce`` / ``tt.scan`` (Ops.cpp)."""
    operands = op.operands
    results = op.results
    n = len(operands)
    if n == 0:
        raise VerifyException("must have at least 1 operand")
    if n != len(results):
        raise VerifyException("must have the same number of inputs as outputs")
    first = operands[0].type
    for v in operands[1:]:
        if v.type.shape != first.shape:
            raise VerifyException("requires the same shape for all operands")
        if not same_encoding(v.type, first):
            raise VerifyException("requires the same encoding for all operands")
    elems = [v.type.element_type for v in operands]
    for e, r in zip(elems, results):
        if not same(e, element_type(r.type)):
            raise VerifyException("operand types and result types must agree")
    shape = first.get_shape()
    if scan:
        for r in results:
            rt = r.type
            if not isinstance(rt, TensorType) or rt.get_shape() != shape:
                raise VerifyException("requires the same shape for all operands and results")
            if not same_encoding(rt, first):
                raise VerifyException(
                    "requires the same encoding for all operands and results"
                )
    else:
        axis = op.properties["axis"].value.data
        if 0 <= axis < len(shape):  # (Triton 3.6 does not check the axis itself)
            want = shape[:axis] + shape[axis + 1 :]
            for r in results:
                rt = r.type
                got = rt.get_shape() if isinstance(rt, TensorType) else ()
                if got != want or (not want and isinstance(rt, TensorType)):
                    raise VerifyException(
                        f"inferred type(s) with shape {list(want)} are incompatible with "
                        f"return type(s) of operation '{rt}'"
                    )
    blocks = op.regions[0].blocks
    if len(blocks) != 1:
        return  # (the region constraint reports it)
    block = blocks[0]
    args = block.args
    if len(args) != 2 * n:
        raise VerifyException(
            f"nested block must take {2 * n} arguments, but given block with "
            f"{len(args)} arguments"
        )
    for i, a in enumerate(args):
        if not same(a.type, elems[i % n]):
            raise VerifyException(
                f"type mismatch on combine operation. Expected argument {i} to have type "
                f"'{elems[i % n]}' but got '{a.type}'"
            )
    term = block.last_op
    if not isinstance(term, return_op):
        return  # (the terminator rules report it)
    returned = term.operands
    if len(returned) != n:
        raise VerifyException(
            f"expected combine operation to return {n} values but got {len(returned)}"
        )
    for i, v in enumerate(returned):
        if not same(v.type, elems[i]):
            raise VerifyException(
                f"type mismatch on combine operation. Expected argument {i} to have type "
                f"'{elems[i]}' but got '{v.type}'"
            )


@irdl_op_definition
class ReduceOp(TritonOp):
    """Generic form only, as Triton prints it."""

    name = "tt.reduce"
    srcs = var_operand_def(TENSOR)
    outs = var_result_def()
    axis = prop_def(IntegerAttr)
    combineOp = region_def("single_block")
    traits = tt_traits(RecursiveMemoryEffect())  # as pure as its body

    def verify_(self) -> None:
        _verify_reduce_scan(self, ReduceReturnOp, scan=False)


@irdl_op_definition
class ReduceReturnOp(TypedReturnOp):
    name = "tt.reduce.return"
    traits = tt_traits(Pure(), IsTerminator(), HasParent(ReduceOp))

    def print(self, printer: Printer):  # `$result attr-dict : type($result)`
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_ssa_value)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        print_types(printer, self.operand_types)


@irdl_op_definition
class ScanOp(TritonOp):
    name = "tt.scan"
    srcs = var_operand_def(TENSOR)
    outs = var_result_def()
    axis = prop_def(IntegerAttr)
    reverse = prop_def(BoolAttr)
    combineOp = region_def("single_block")
    traits = tt_traits(RecursiveMemoryEffect())  # as pure as its body

    def verify_(self) -> None:
        _verify_reduce_scan(self, ScanReturnOp, scan=True)


@irdl_op_definition
class ScanReturnOp(TypedReturnOp):
    name = "tt.scan.return"
    traits = tt_traits(Pure(), IsTerminator(), HasParent(ScanOp))
    print = ReduceReturnOp.print


@irdl_op_definition
class MapElementwiseOp(TritonOp):
    name = "tt.map_elementwise"
    srcs = var_operand_def()
    outs = var_result_def()
    scalarOp = region_def()
    traits = tt_traits(RecursiveMemoryEffect())  # as pure as its body


@irdl_op_definition
class MapElementwiseReturnOp(TypedReturnOp):
    name = "tt.map_elementwise.return"
    traits = tt_traits(Pure(), IsTerminator())
    print = ReduceReturnOp.print


# ---------------------------------------------------------------------------- shape ops


def _arrow(op_name: str, base=ArrowOp, **extra):
    cls = type(
        "".join(p.capitalize() for p in op_name.replace("tt.", "").split("_")) + "Op",
        (base,),
        {"name": op_name, "traits": tt_traits(Pure()), **extra},
    )
    return irdl_op_definition(cls)


def _types(op: Operation) -> tuple[Attribute, Attribute]:
    return op._operands[0].type, _first(op.results).type


def _same_element_type(s: Attribute, r: Attribute) -> None:
    if not same(element_type(s), element_type(r)):
        raise VerifyException("requires the same element type for all operands and results")


def _same_encoding(s: Attribute, r: Attribute) -> None:
    if not same_encoding(s, r):
        raise VerifyException("requires the same encoding for all operands and results")


def _elementwise_shapes(*types: Attribute) -> None:
    """Triton's ``Elementwise`` + ``SameOperandsAndResultShape`` for one-value ops: scalars
    only, or tensors of one shape."""
    shapes = {t.get_shape() if isinstance(t, TensorType) else None for t in types}
    if len(shapes) > 1:
        raise VerifyException("all non-scalar operands/results must have the same shape")


def _inferred_shape(want: tuple[int, ...], rt: Attribute) -> None:
    if shape_of(rt) != want:
        raise VerifyException(
            f"inferred type(s) with shape {list(want)} are incompatible with return type(s) "
            f"of operation '{rt}'"
        )


def _verify_splat(op: Operation) -> None:
    s, r = op._operands[0].type, _first(op.results).type  # noqa: SLF001
    se = s.element_type if type(s) is TensorType else s
    if se is not r.element_type:  # (the result is a tensor: its constraint comes first)
        _same_element_type(s, r)
    if type(s) is TensorType:
        _same_encoding(s, r)


def _verify_broadcast(op: Operation) -> None:
    s, r = op._operands[0].type, _first(op.results).type  # noqa: SLF001
    if s.element_type is not r.element_type:
        _same_element_type(s, r)
    if s.encoding is not r.encoding:
        _same_encoding(s, r)
    ss, rs = shape_of(s), shape_of(r)
    if len(ss) != len(rs):
        raise VerifyException("rank of source must be same as rank of result")
    for i, (a, b) in enumerate(zip(ss, rs)):
        if a != 1 and a != b:
            raise VerifyException(
                f"Different dimensions at index {i} between source and result. "
                "Broadcast requires the source dimension to be 1."
            )


def _verify_expand_dims(op: Operation) -> None:
    s, r = op._operands[0].type, _first(op.results).type  # noqa: SLF001
    if s.element_type is not r.element_type:
        _same_element_type(s, r)
    axis = op.properties["axis"].value.data
    ss = shape_of(s)
    if 0 <= axis <= len(ss):  # (outside, Triton's own inference is undefined: not checked)
        if shape_of(r) != ss[:axis] + (1,) + ss[axis:]:
            _inferred_shape(ss[:axis] + (1,) + ss[axis:], r)


def _verify_bitcast(op: Operation) -> None:
    s, r = _types(op)
    _elementwise_shapes(s, r)
    _same_encoding(s, r)
    bs, br = bit_width(element_type(s)), bit_width(element_type(r))
    if bs is not None and br is not None and bs != br:
        raise VerifyException(f"Cannot bitcast data-type of size {bs} to data-type of size {br}")


def _verify_int_ptr_cast(op: Operation) -> None:
    s, r = _types(op)
    _elementwise_shapes(s, r)
    _same_encoding(s, r)


def _verify_trans(op: Operation) -> None:
    s, r = _types(op)
    _same_element_type(s, r)
    order = list(op.properties["order"].get_values())
    ss = s.get_shape()
    if len(order) != len(ss):
        raise VerifyException("order must have the same size as the source tensor")
    if sorted(order) != list(range(len(ss))):
        raise VerifyException("order must be a permutation of 0..n-1")
    if tuple(ss[i] for i in order) != r.get_shape():
        raise VerifyException("result shape must match the permutation of the source shape")


def _tensor_io() -> dict:
    return {"src": operand_def(TENSOR), "result": result_def(TENSOR)}

SplatOp = _arrow("tt.splat", result=result_def(TENSOR), verify_=_verify_splat)
UnsplatOp = _arrow("tt.unsplat")
BroadcastOp = _arrow("tt.broadcast", **_tensor_io(), verify_=_verify_broadcast)
ExpandDimsOp = _arrow(
    "tt.expand_dims", **_tensor_io(), axis=prop_def(IntegerAttr), verify_=_verify_expand_dims
)
BitcastOp = _arrow("tt.bitcast", verify_=_verify_bitcast)
IntToPtrOp = _arrow(
    "tt.int_to_ptr", src=operand_def(TTI64Like()), result=result_def(TTPtrLike()),
    verify_=_verify_int_ptr_cast,
)
PtrToIntOp = _arrow(
    "tt.ptr_to_int", src=operand_def(TTPtrLike()), result=result_def(TTI64Like()),
    verify_=_verify_int_ptr_cast,
)
TransOp = _arrow(
    "tt.trans", **_tensor_io(), order=prop_def(DenseArrayBase), verify_=_verify_trans
)


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


def _verify_reshape(op: Operation) -> None:
    s, r = _types(op)
    _same_element_type(s, r)
    ns = nr = 1
    for d in s.get_shape():
        ns *= d
    for d in r.get_shape():
        nr *= d
    if ns != nr:
        raise VerifyException("number of src and dst elements of reshape must be the same")
    if (encoding_of(s) is None) != (encoding_of(r) is None):
        raise VerifyException(
            "Op requires that either (a) src and dst both have encodings, or (b) neither does."
        )


ReshapeOp = _arrow(
    "tt.reshape",
    _ReshapeBase,
    **_tensor_io(),
    allow_reorder=opt_prop_def(UnitAttr),
    efficient_layout=opt_prop_def(UnitAttr),
    verify_=_verify_reshape,
)


@irdl_op_definition
class FpToFpOp(TritonOp):
    """``tt.fp_to_fp %x attr-dict (, rounding = rtne)? : T -> U``."""

    name = "tt.fp_to_fp"
    src = operand_def(TTFloatLike())
    result = result_def(TTFloatLike())
    rounding = opt_prop_def(IntegerAttr)
    traits = tt_traits(Pure())

    def verify_(self) -> None:
        s, r = _types(self)
        _elementwise_shapes(s, r)
        _same_encoding(s, r)
        bs, br = bit_width(element_type(s)), bit_width(element_type(r))
        if bs is not None and br is not None and br < bs and self.rounding is None:
            raise VerifyException("Rounding mode is required for FP downcast")

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

    lhs = operand_def(TENSOR)
    rhs = operand_def(TENSOR)
    result = result_def(TENSOR)
    traits = tt_traits(Pure())

    def verify_(self) -> None:
        a, b = self.operands
        if not same(a.type, b.type):
            raise VerifyException("requires all operands to have the same type")
        _same_element_type(a.type, _first(self.results).type)
        if self.name == "tt.join":
            _inferred_shape(a.type.get_shape() + (2,), _first(self.results).type)

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
    src = operand_def(TENSOR)
    outLHS = result_def(TENSOR)
    outRHS = result_def(TENSOR)
    traits = tt_traits(Pure())

    def verify_(self) -> None:
        s = self.operands[0].type
        shape = s.get_shape()
        if not shape or shape[-1] != 2:
            raise VerifyException("last dimension of input tensor must be 2")
        for r in self.results:
            _same_element_type(s, r.type)
            _inferred_shape(shape[:-1], r.type)

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
    traits = tt_traits(Pure())

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
    ptr = operand_def(TTPtrLike())
    offset = operand_def(TTIntLike())
    result = result_def(TTPtrLike())
    traits = tt_traits(Pure())

    def verify_(self) -> None:
        p, o = self._operands
        pt, ot = p.type, o.type
        if not same(_first(self.results).type, pt):
            raise VerifyException("failed to verify that result type matches ptr type")
        p_tensor, o_tensor = type(pt) is TensorType, type(ot) is TensorType
        if o_tensor and not p_tensor:
            raise VerifyException(
                "if an operand is non-scalar, then there must be at least one non-scalar "
                "result"
            )
        if p_tensor and not o_tensor:
            raise VerifyException("requires the same shape for all operands and results")
        if p_tensor and o_tensor:
            if shape_of(pt) != shape_of(ot):
                raise VerifyException(
                    "all non-scalar operands/results must have the same shape and base type"
                )
            if not same_encoding(pt, ot):
                raise VerifyException("requires the same encoding for all operands")

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
    traits = tt_traits(Pure())

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
    traits = tt_traits(Pure())

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
    traits = tt_traits(Pure())

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
    result = result_def(TENSOR)

    def verify_(self) -> None:
        props = self.properties
        start, end = props["start"], props["end"]
        for name, attr in (("start", start), ("end", end)):
            if attr.type is not i32 and attr.type != i32:
                raise VerifyException(
                    f"attribute '{name}' failed to satisfy constraint: 32-bit signless "
                    "integer attribute"
                )
        start, end = start.value.data, end.value.data
        if start >= end:
            raise VerifyException("start must be less than end")
        ty = _first(self.results).type
        shape = shape_of(ty)
        if len(shape) != 1:
            raise VerifyException("return type must be a 1D tensor")
        if end - start != shape[0]:
            raise VerifyException(
                f"number of elements in returned tensor, {shape[0]}, must match size of "
                f"range [{start}, {end}), which has {end - start} elements"
            )
        if ty.element_type is not i32 and ty.element_type != i32:
            raise VerifyException("returned tensor must have i32 elements")


class _ProgramDimOp(TritonOp):
    """``op x : i32``."""

    result = result_def(ExactType(i32, "32-bit signless integer"))
    axis = prop_def(IntegerAttr)
    traits = tt_traits(Pure())

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


def _same(op_name: str, base, kind):
    cls = type(
        "".join(p.capitalize() for p in op_name.replace("tt.", "").split("_")) + "Op",
        (base,),
        {"name": op_name, "traits": tt_traits(Pure()), **same_type_defs(kind)},
    )
    return irdl_op_definition(cls)


MulhiUIOp = _same("tt.mulhiui", BinaryOp, TTIntLike())
PreciseDivfOp = _same("tt.precise_divf", BinaryOp, TTFloatLike())
PreciseSqrtOp = _same("tt.precise_sqrt", UnaryOp, TTFloatLike())


@irdl_op_definition
class ClampFOp(TritonOp):
    """``tt.clampf %x, %lo, %hi, propagateNan = none : T``."""

    name = "tt.clampf"
    x = operand_def(TTFloatLike())
    min = operand_def(TTFloatLike())
    max = operand_def(TTFloatLike())
    result = result_def(TTFloatLike())
    propagateNan = prop_def(IntegerAttr)
    traits = tt_traits(Pure())

    def verify_(self) -> None:
        t = _first(self.results).type
        if not all(same(v.type, t) for v in self.operands):
            raise VerifyException("requires the same type for all operands and results")

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
    traits = tt_traits(Pure())

    def verify_(self) -> None:
        a, b, c = (v.type for v in self.operands[:3])
        if not same(_first(self.results).type, c):
            raise VerifyException(
                "failed to verify that result's type matches accumulator's type"
            )
        ba, bb = bit_width(element_type(a)), bit_width(element_type(b))
        if ba is not None and bb is not None and ba != bb:
            raise VerifyException("element types of operands A and B must have same bit width")


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
    traits = tt_traits(ReadWriteEffect())

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
    traits = tt_traits(ReadWriteEffect())

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
    condition = operand_def(
        BoolLike("1-bit signless integer or tensor of 1-bit signless integer values")
    )
    message = prop_def(StringAttr)
    traits = tt_traits(MemoryWriteEffect())

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
    traits = tt_traits(MemoryWriteEffect())

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
    src = operand_def(TENSOR)
    indices = operand_def(TENSOR)
    result = result_def(TENSOR)
    axis = prop_def(IntegerAttr)
    traits = tt_traits(Pure())

    def verify_(self) -> None:  # GatherOp::verify
        src, idx = (v.type for v in self.operands)
        res = _first(self.results).type
        if idx.get_shape() != res.get_shape():
            raise VerifyException("indices and output shapes must match")
        if not same(idx.encoding, res.encoding):
            raise VerifyException("indices and output encodings must match")
        if not same(src.element_type, res.element_type):
            raise VerifyException("input and output element types must match")
        if len(src.get_shape()) != len(idx.get_shape()):
            raise VerifyException("input and indices ranks must match")
        axis = self.axis.value.data
        if axis >= len(src.get_shape()):
            raise VerifyException("gather dimension must be less than the input rank")
        for dim, (a, b) in enumerate(zip(idx.get_shape(), src.get_shape())):
            if dim != axis and a != b:
                raise VerifyException(
                    f"indices dimension {dim} must match the corresponding input dimension"
                )

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
    traits = tt_traits(PureIfMarked())


@irdl_op_definition
class ElementwiseInlineAsmOp(TritonOp):
    """``tt.elementwise_inline_asm "asm" {constraints, packed_element, pure} %a : T -> R``."""

    name = "tt.elementwise_inline_asm"
    args = var_operand_def()
    outs = var_result_def()
    asm_string = prop_def(StringAttr)
    traits = tt_traits(PureIfMarked())

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
    traits = tt_traits(MemoryReadEffect())

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
    traits = tt_traits(ReadWriteEffect())

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
    traits = tt_traits(Pure())

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
