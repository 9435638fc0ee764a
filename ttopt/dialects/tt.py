"""The Triton dialect (``tt``): the ops of Triton 3.6 (``TritonOps.td``) and the ``Dialect``.

Each op states its operands, results, properties, traits and ``verify_`` (the ``.td``
rules, with MLIR's wording), and its custom syntax:

* **declaratively** where xDSL 0.74's format language can say what Triton prints: an
  ``assembly_format`` (the op's own or its family's, :mod:`ttopt.dialects.families`), with
  ``ParsePropInAttrDict`` for properties written in the attr-dict and custom directives for
  I32 enums printed by keyword (:mod:`ttopt.dialects.syntax`), run by
  :func:`~ttopt.dialects.declarative.irdl_triton_op`;
* **by hand** (``parse``/``print``) where it cannot; each such op says why.  The reasons:
  an ``oilist`` of clauses (``cacheModifier = ..``), a type inferred from another type
  (MLIR's ``TypesMatchWith``/``SameTypeOperands``: xDSL infers only through constraint
  variables, whose verifier messages are not MLIR's), a type printed unqualified, a
  function signature with a region.

Triton's attributes and types are in :mod:`ttopt.dialects.tt_attrs`, its traits and memory
effects in :mod:`ttopt.dialects.traits`; the names they define are re-exported here.
"""

from __future__ import annotations

import math
import re

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    BoolAttr,
    IntAttr,
    DenseArrayBase,
    FunctionType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    i1,
    i32,
    i64,
)
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.ir import Attribute, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    EqAttrConstraint,
    AttrSizedOperandSegments,
    ParsePropInAttrDict,
    SameVariadicOperandSize,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    MemoryReadEffect,
    MemoryWriteEffect,
    Pure,
    RecursiveMemoryEffect,
    ReturnLike,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.mlir_lexer import MLIRTokenKind

from ..xdsl_compat import function_type as unchecked_function_type
from ..xdsl_compat import operand_tuple, peek_token
from .base import PlainVerifyException, TritonOp, segment_sizes
from .constraints import (
    BoolLike,
    ExactType,
    TTFloatLike,
    TTI64Like,
    TTIntLike,
    TTLoadPtr,
    TTIntTensor,
    TTPtrLike,
    TTTensor,
    TTTensorFrom3,
    TTType,
    DictArray,
    I32Cases,
    I32Enum,
    TypeOfClass,
    in_releases,
    bit_width,
    element_type,
    encoding_of,
    i1_same_shape,
    require_elementwise_shapes,
    require_inferred_shape,
    require_same_element_type,
    require_same_encoding,
    same,
    same_encoding,
    shape_of,
)
from .declarative import irdl_triton_op
from .families import PARENS_BEFORE_3, ArrowOp, BinaryOp, FunctionalTypeOp, UnaryOp
from .syntax import (
    enum_name,
    get_int,
    i32_array,
    i32_enum_directive,
    int_attr,
    parse_bracket_operands,
    parse_cache_evict,
    parse_functional_type,
    parse_keyword_enum,
    parse_maybe_unqualified,
    parse_operand_list,
    print_bracket_operands,
    print_cache_evict,
    resolve_all,
)
from .traits import (
    MAX_TENSOR_NUM_ELEMENTS,
    CalleeIsAFunction,
    LoadEffects,
    PureIfMarked,
    ReadWriteEffect,
    TensorSizeTrait,
    bool_prop,
    tt_traits,
)
from . import versions
from .tt_attrs import (
    CachePolicyAttr,
    CACHE_MODIFIER,
    EVICTION_POLICY,
    INPUT_PRECISION,
    MEM_SEMANTIC,
    MEM_SYNC_SCOPE,
    PROGRAM_DIM,
    PROPAGATE_NAN,
    RMW_OP,
    ROUNDING_MODE,
    SCALE_DOT_ELEM_TYPE,
    DESCRIPTOR_REDUCE_KIND,
    OpaqueBodyAttr,
    PointerType,
    TensorDescType,
    i1_like,
    loaded_type,
    mask_type,
    opaque_attr,
    pointee_matches,
)

_at = tuple.__getitem__  # (values[i] of xDSL's SSAValues, without its Python __getitem__)

TENSOR = TTTensor()
I32 = ExactType(i32, "32-bit signless integer")
I64 = ExactType(i64, "64-bit signless integer")
# Triton's integer properties are all 32-bit (I32Attr, I32 enums, DenseI32ArrayAttr): in the
# generic form, another width (`axis = 1 : i16`, `array<i1>`) is refused
I32_ATTR = IntegerAttr.constr(EqAttrConstraint(i32))
I32_ARRAY = DenseArrayBase.constr(EqAttrConstraint(i32))
DICT_ARRAY = DictArray()
"""``DictArrayAttr`` (``arg_attrs``, ``res_attrs``)."""
PADDING = I32Cases((1, 2))
"""``TT_PaddingOptionAttr``: ``PAD_ZERO`` (1), ``PAD_NAN`` (2)."""
CACHE = I32Enum(I32_ATTR, (
    (versions.OLDEST, (3, 1), frozenset(range(1, 7))), ((3, 2), (3, 8), frozenset(range(1, 8))),
))
"""``TT_CacheModifierAttr`` (``WT``, 7, is 3.2's); 3.9 has ``cachePolicy`` instead (ttopt keeps
``cache``: in a 3.9 text any value goes)."""
EVICT = I32Enum(I32_ATTR, ((versions.OLDEST, (3, 8), frozenset({1, 2, 3})),))
"""``TT_EvictionPolicyAttr``: ``NORMAL``, ``EVICT_FIRST``, ``EVICT_LAST``."""
RMW = I32Enum(I32_ATTR, ((versions.OLDEST, versions.NEWEST, frozenset(RMW_OP.values())),))
SEMANTIC = I32Enum(I32_ATTR, ((versions.OLDEST, versions.NEWEST, frozenset(MEM_SEMANTIC.values())),))
SCOPE = I32Enum(I32_ATTR, ((versions.OLDEST, versions.NEWEST, frozenset(MEM_SYNC_SCOPE.values())),))
"""``TT_AtomicRMWAttr``, ``TT_MemSemanticAttr``, ``TT_MemSyncScopeAttr``: the same cases in
every release (what generic form's property conversion takes)."""

ProgramDim = i32_enum_directive("ProgramDim", PROGRAM_DIM, "program dimension")
RoundingMode = i32_enum_directive("RoundingMode", ROUNDING_MODE, "rounding mode")
RMWOp = i32_enum_directive("RMWOp", RMW_OP, "atomic op")
MemSemantic = i32_enum_directive("MemSemantic", MEM_SEMANTIC, "memory semantic")
MemSyncScope = i32_enum_directive("MemSyncScope", MEM_SYNC_SCOPE, "scope")
DescriptorReduceKind = i32_enum_directive(
    "DescriptorReduceKind", DESCRIPTOR_REDUCE_KIND, "descriptor reduce kind"
)

TENSORDESC = TypeOfClass(
    TensorDescType,
    "Tensor descriptor type (`::mlir::triton::TensorDescType`) in Triton IR type system",
)
"""``TT_TensorDescType``."""
PTR_TYPE = TypeOfClass(
    PointerType, "Pointer type (`::mlir::triton::PointerType`) in Triton IR type system"
)
"""``TT_PtrType``."""
PTR = TypeOfClass(PointerType, "ptr")
"""``TT_Ptr``."""


def _before_3() -> bool:
    """Whether every release the module being verified may come from is a 2.x one (its
    span ends before 3.0).  The span is asked only of a text read as 2.x: it never ends
    before the release the text is read as (test_speed_verify), and working it out costs a
    search of the text."""
    return versions.checked_release() <= (2, 3) and versions.checked_span()[1] <= (2, 3)


def _types(op: Operation) -> tuple[Attribute, Attribute]:
    """(operand #0's type, result #0's type)."""
    return _at(operand_tuple(op), 0).type, _at(op.results, 0).type


# ---------------------------------------------------------------------------- load/store


def _elide_defaults(op: TritonOp) -> set[str]:
    """What a load/store's attr-dict leaves out: the clauses, and default values."""
    elide = {"cache", "evict"}
    if not bool_prop(op, "isVolatile"):
        elide.add("isVolatile")
    bc = op.properties.get("boundaryCheck")
    if isinstance(bc, DenseArrayBase) and not bc.get_values():
        elide.add("boundaryCheck")
    return elide


def pointer_to(typ: Attribute) -> Attribute:
    """The pointer type whose load gives ``typ`` (Triton's ``getPointerTypeSameShape``:
    address space 1): how Triton 2.x infers a load's pointer type from its result."""
    if isinstance(typ, TensorType):
        return TensorType(PointerType(typ.element_type), typ.get_shape(), typ.encoding)
    return PointerType(typ)


def print_dict_hints(op: TritonOp, printer: Printer, volatile: bool) -> None:
    """Triton 2.x's attr-dict of a load/store: ``{cache = 1 : i32, evict = 1 : i32,
    isVolatile = false}`` (every hint, defaults too), sorted with the other properties."""
    merged = {
        k: v for k, v in (*op.properties.items(), *op.attributes.items())
        if k not in ("operandSegmentSizes", "resultSegmentSizes")
    }
    merged.setdefault("cache", int_attr(1))
    merged.setdefault("evict", int_attr(1))
    if volatile:
        merged.setdefault("isVolatile", BoolAttr.from_bool(False))
    printer.print_string(" ")
    printer.print_attr_dict(dict(sorted(merged.items())))


def take_cache_policy(parser: Parser, props: dict, attrs: dict) -> None:
    """Triton 3.9's ``{cachePolicy = #tt.cache_policy<...>}``: into the ``cache`` and
    ``evict`` properties ttopt keeps (as Triton 3.0 - 3.8 have them)."""
    policy = props.pop("cachePolicy", None) or attrs.pop("cachePolicy", None)
    if policy is None:
        return
    if not isinstance(policy, CachePolicyAttr):
        parser.raise_error("'cachePolicy' must be a #tt.cache_policy<...>")
    if policy.cache_modifier.data != 1:
        props["cache"] = int_attr(policy.cache_modifier.data)
    if policy.eviction_policy.data != 1:
        props["evict"] = int_attr(policy.eviction_policy.data)


def print_policy_hints(op: TritonOp, printer: Printer, elide: set[str]) -> None:
    """Triton 3.9's attr-dict of a load/store: the hints as one ``cachePolicy``."""
    merged = {
        k: v for k, v in (*op.properties.items(), *op.attributes.items())
        if k not in elide and k not in ("operandSegmentSizes", "resultSegmentSizes")
    }
    cache, evict = get_int(op, "cache", 1), get_int(op, "evict", 1)
    if cache != 1 or evict != 1:
        merged["cachePolicy"] = CachePolicyAttr(IntAttr(cache), IntAttr(evict))
    if merged:
        printer.print_string(" ")
        printer.print_attr_dict(dict(sorted(merged.items())))


def parse_access_hints(cls, parser: Parser) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
    """A load's or store's hints and attr-dict, in the current release's spelling (3.0 - 3.8:
    keywords before the attr-dict; 3.9: ``cachePolicy`` in it; 2.x: ``cache``/``evict`` in
    it as they are kept): (properties, attributes)."""
    hints = versions.current().hints
    props: dict[str, Attribute] = {}
    if hints == "keywords":
        parse_cache_evict(parser, props)
    p2, attrs = cls.parse_attr_dict(parser)
    if hints == "policy":
        take_cache_policy(parser, p2, attrs)
    props.update(p2)
    return props, attrs


def parse_access_types(parser: Parser, op_name: str, sep: str) -> tuple[Attribute, Attribute]:
    """``: PTR`` after a load or store: (pointer type, loaded/stored type).  Triton 2.x writes
    the element type alone (``: T``, the pointer type inferred) or, for a block pointer,
    both with ``sep`` between (``->`` for a load, ``,`` for a store)."""
    parser.parse_punctuation(":")
    pos = parser.pos
    if versions.current().hints == "dict":
        first = parser.parse_type()
        if parser.parse_optional_punctuation(sep) is not None:
            return first, parser.parse_type()
        return pointer_to(first), first
    ptr_type = parser.parse_type()
    try:
        return ptr_type, loaded_type(ptr_type)
    except ValueError:
        parser.raise_error(f"{op_name} expects a pointer type, got {ptr_type}", pos, parser.pos)


def print_access_tail(op: TritonOp, printer: Printer, volatile: bool, sep: str,
                      element_type: Attribute) -> None:
    """What follows a load's or store's operands: hints, attr-dict and types, in the current
    release's spelling (the inverse of :func:`parse_access_hints` and
    :func:`parse_access_types`; ``volatile``: the op has ``isVolatile``)."""
    hints = versions.current().hints
    if hints == "dict":
        print_dict_hints(op, printer, volatile=volatile)
        ptr_type = op.ptr.type
        printer.print_string(" : ")
        if isinstance(ptr_type, PointerType) and isinstance(ptr_type.pointee, TensorType):
            printer.print_attribute(ptr_type)
            printer.print_string(sep)
        printer.print_attribute(element_type)
        return
    if hints == "policy":
        print_policy_hints(op, printer, _elide_defaults(op))
    else:
        print_cache_evict(op, printer)
        op.print_attr_dict(printer, _elide_defaults(op))
    printer.print_string(" : ")
    printer.print_attribute(op.ptr.type)


def _enum_props(cache: int | None, evict: int | None) -> dict[str, Attribute]:
    props: dict[str, Attribute] = {}
    if cache is not None:
        props["cache"] = int_attr(cache)
    if evict is not None:
        props["evict"] = int_attr(evict)
    return props


@irdl_triton_op
class LoadOp(TritonOp):
    """``tt.load %ptr (, %mask)? (, %other)? oilist(cacheModifier = X | evictionPolicy = Y)
    attr-dict : type($ptr)``.

    Hand-written: an oilist, and the result, mask and other types are inferred from the
    pointer type (``TypesMatchWith``)."""

    name = "tt.load"
    ptr = operand_def(TTLoadPtr())
    mask = opt_operand_def(BoolLike())
    other = opt_operand_def()
    result = result_def()
    boundaryCheck = opt_prop_def(I32_ARRAY)
    padding = opt_prop_def(in_releases(PADDING, versions.OLDEST, (3, 7)))  # (3.8: none)
    cache = opt_prop_def(CACHE)
    evict = opt_prop_def(EVICT)
    isVolatile = opt_prop_def(BoolAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = tt_traits(LoadEffects())

    def __init__(
        self,
        ptr: SSAValue | Operation,
        mask: SSAValue | Operation | None = None,
        other: SSAValue | Operation | None = None,
        *,
        cache: int | None = None,
        evict: int | None = None,
        is_volatile: bool = False,
    ):
        """``cache``/``evict``: values of ``CACHE_MODIFIER``/``EVICTION_POLICY`` (None: the
        default, not stored)."""
        ptr = SSAValue.get(ptr)
        props = _enum_props(cache, evict)
        if is_volatile:
            props["isVolatile"] = BoolAttr.from_bool(True)
        super().__init__(
            operands=[ptr, mask, other],
            result_types=[loaded_type(ptr.type)],
            properties=props,
        )

    # --- semantic accessors (defaults applied)
    @property
    def cache_modifier(self) -> int:
        return get_int(self, "cache", 1)

    @property
    def eviction_policy(self) -> int:
        return get_int(self, "evict", 1)

    @property
    def is_volatile(self) -> bool:
        return bool_prop(self, "isVolatile")

    def verify_(self) -> None:
        if _before_3():  # (2.x: the hints are required attributes)
            for name in ("cache", "evict", "isVolatile"):
                if name not in self.properties:
                    raise VerifyException(f"requires attribute '{name}'")
        operands = tuple(operand_tuple(self))  # (a plain tuple: xDSL's indexes in Python)
        rt = _at(self.results, 0).type
        if not pointee_matches(operands[0].type, rt):
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
        props, attrs = parse_access_hints(cls, parser)
        # Triton 2.x: `: T` (the result), or `: !tt.ptr<T> -> T` (a block pointer)
        ptr_type, res_type = parse_access_types(parser, "tt.load", "->")
        types = [ptr_type, mask_type(ptr_type), res_type][: len(operands)]
        values = resolve_all(parser, operands, types)
        props["operandSegmentSizes"] = DenseArrayBase.from_list(
            i32, [1, int(len(values) > 1), int(len(values) > 2)]
        )
        return cls.build(values, [res_type], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_ssa_value)
        print_access_tail(self, printer, volatile=True, sep=" -> ", element_type=self.result.type)


@irdl_triton_op
class StoreOp(TritonOp):
    """``tt.store %ptr, %value (, %mask)? oilist(..) attr-dict : type($ptr)``.

    Hand-written: an oilist, and the value and mask types are inferred from the pointer
    type (``TypesMatchWith``)."""

    name = "tt.store"
    ptr = operand_def(TTLoadPtr())
    value = operand_def()
    mask = opt_operand_def(BoolLike())
    boundaryCheck = opt_prop_def(I32_ARRAY)
    cache = opt_prop_def(CACHE)
    evict = opt_prop_def(EVICT)
    traits = tt_traits(MemoryWriteEffect())

    def __init__(
        self,
        ptr: SSAValue | Operation,
        value: SSAValue | Operation,
        mask: SSAValue | Operation | None = None,
        *,
        cache: int | None = None,
        evict: int | None = None,
    ):
        super().__init__(operands=[ptr, value, mask], properties=_enum_props(cache, evict))

    def verify_(self) -> None:
        operands = tuple(operand_tuple(self))  # (a plain tuple: xDSL's indexes in Python)
        pt, vt = operands[0].type, operands[1].type
        if not pointee_matches(pt, vt):
            raise VerifyException("failed to verify that value type matches ptr type")
        if len(operands) > 2 and not i1_same_shape(vt, operands[2].type):
            raise VerifyException("failed to verify that mask type matches ptr type")

    @classmethod
    def parse(cls, parser: Parser):
        operands = parse_operand_list(parser)
        if not 2 <= len(operands) <= 3:
            parser.raise_error("tt.store expects 2 or 3 operands (ptr, value, mask)")
        props, attrs = parse_access_hints(cls, parser)
        # Triton 2.x: `: T` (the value), or `: !tt.ptr<T>, T` (a block pointer)
        ptr_type, val_type = parse_access_types(parser, "tt.store", ",")
        types = [ptr_type, val_type, mask_type(ptr_type)][: len(operands)]
        values = resolve_all(parser, operands, types)
        return cls.build(values, [], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_ssa_value)
        print_access_tail(self, printer, volatile=False, sep=", ", element_type=self.value.type)


# ---------------------------------------------------------------------------- functions


@irdl_triton_op
class FuncOp(TritonOp):
    """``tt.func public @name(%a: T {attrs} ...) -> R attributes {..} { body }``.

    Hand-written (Triton's ``hasCustomAssemblyFormat``): a function signature with its
    region, xDSL's ``parse_func_op_like``/``print_func_op_like``."""

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
            if a.type is not t and not same(a.type, t):
                raise VerifyException(
                    f"type of entry block argument #{i}('{a.type}') must match the type of the "
                    f"corresponding argument in function signature('{t}')"
                )

    @classmethod
    def parse(cls, parser: Parser):
        reserved = ("sym_name", "function_type", "sym_visibility")
        fast = getattr(parser, "fast_function_header", None)  # (ttopt's reader)
        found = fast() if fast is not None else None
        if found is None:
            visibility = parser.parse_optional_visibility_keyword()
            (name, ins, outs, region, extra, arg_attrs, res_attrs) = parse_func_op_like(
                parser, reserved_attr_names=reserved
            )
        else:  # (what parse_func_op_like does with such a header: arguments, no results)
            spelled, name, pairs, extra, end = found
            visibility = StringAttr(spelled) if spelled is not None else None
            parser.resume_from(end)
            entry_args = [arg for arg, _ in pairs]
            ins, outs, res_attrs = [arg.type for arg in entry_args], [], None
            arg_attrs = (ArrayAttr(DictionaryAttr(attrs) for _, attrs in pairs)
                         if any(attrs for _, attrs in pairs) else None)
            if extra is None:
                extra = parser.parse_optional_attr_dict_with_keyword(reserved)
            region = parser.parse_optional_region(entry_args)
            if region is None:
                region = Region()
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(name),
            # (the fast header's types are the parser's: no checks to make)
            "function_type": (FunctionType.from_lists(ins, outs) if found is None
                              else unchecked_function_type(ins, outs)),
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


@irdl_triton_op
class ReturnOp(TritonOp):
    name = "tt.return"
    srcs = var_operand_def()
    traits = tt_traits(Pure(), IsTerminator(), ReturnLike(), HasParent(FuncOp))
    assembly_format = "attr-dict ($srcs^ `:` type($srcs))?"

    def __init__(self, *values: SSAValue | Operation):
        super().__init__(operands=[values])

    def verify_(self) -> None:
        func = self.parent_op()
        if not isinstance(func, FuncOp) or not isinstance(func.function_type, FunctionType):
            return  # (HasParent reports it)
        results = func.function_type.outputs.data
        operands = operand_tuple(self)
        if len(operands) != len(results):
            raise VerifyException(
                f"has {len(operands)} operands, but enclosing function "
                f"(@{func.sym_name.data}) returns {len(results)}"
            )
        for i, (v, t) in enumerate(zip(operands, results)):
            if not same(v.type, t):
                raise PlainVerifyException(
                    f"type of return operand {i} ('{v.type}') doesn't match function result "
                    f"type ('{t}') in function @{func.sym_name.data}"
                )


@irdl_triton_op
class CallOp(TritonOp):
    """``tt.call @f(%a) : (T) -> R``; the callee may do anything: unknown effects."""

    name = "tt.call"
    ins = var_operand_def()
    outs = var_result_def()
    callee = prop_def()
    arg_attrs = opt_prop_def(in_releases(DICT_ARRAY, (3, 3)))
    res_attrs = opt_prop_def(in_releases(DICT_ARRAY, (3, 3)))
    irdl_options = (ParsePropInAttrDict(),)
    traits = tt_traits(CalleeIsAFunction())
    assembly_format = "$callee `(` $ins `)` attr-dict `:` functional-type($ins, $outs)"


# ---------------------------------------------------------------------------- reduce / scan


def _verify_reduce_scan(op: TritonOp, return_op: type, scan: bool) -> None:
    """``verifyReduceScan``, the shape traits and ``verifyRegionsImpl`` of Triton's
    ``tt.reduce`` / ``tt.scan`` (Ops.cpp)."""
    operands = tuple(operand_tuple(op))  # (a plain tuple: xDSL's indexes in Python)
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


def _reduced_type(t: Attribute, axis: int) -> Attribute:
    """The type of ``t`` reduced along ``axis``: a scalar for a 1-D tensor."""
    shape = t.get_shape()
    if len(shape) == 1:
        return t.element_type
    return TensorType(t.element_type, shape[:axis] + shape[axis + 1 :], t.encoding)


@irdl_triton_op
class ReduceOp(TritonOp):
    """Generic form only, as Triton prints it (no ``assemblyFormat``)."""

    name = "tt.reduce"
    srcs = var_operand_def(TENSOR)
    outs = var_result_def()
    axis = prop_def(I32_ATTR)
    combineOp = region_def("single_block")
    traits = tt_traits(RecursiveMemoryEffect())  # as pure as its body

    def __init__(
        self,
        srcs: Sequence[SSAValue | Operation],
        axis: int,
        combine: Region,
        result_types: Sequence[Attribute] | None = None,
    ):
        """``result_types``: by default, each source's type reduced along ``axis`` (the
        encoding kept: Triton's is a slice of it)."""
        srcs = [SSAValue.get(s) for s in srcs]
        if result_types is None:
            result_types = [_reduced_type(s.type, axis) for s in srcs]
        super().__init__(
            operands=[srcs],
            result_types=[result_types],
            properties={"axis": int_attr(axis)},
            regions=[combine],
        )

    def verify_(self) -> None:
        _verify_reduce_scan(self, ReduceReturnOp, scan=False)


class _CombineReturnOp(TritonOp):
    """``$result attr-dict : type($result)``: the terminator of a combine region."""

    result = var_operand_def()
    assembly_format = "$result attr-dict `:` type($result)"

    def __init__(self, *values: SSAValue | Operation):
        super().__init__(operands=[values])


@irdl_triton_op
class ReduceReturnOp(_CombineReturnOp):
    name = "tt.reduce.return"
    traits = tt_traits(Pure(), IsTerminator(), HasParent(ReduceOp))


@irdl_triton_op
class ScanOp(TritonOp):
    """Generic form only, as Triton prints it (no ``assemblyFormat``)."""

    name = "tt.scan"
    srcs = var_operand_def(TENSOR)
    outs = var_result_def()
    axis = prop_def(I32_ATTR)
    reverse = prop_def(BoolAttr)
    combineOp = region_def("single_block")
    traits = tt_traits(RecursiveMemoryEffect())  # as pure as its body

    def verify_(self) -> None:
        _verify_reduce_scan(self, ScanReturnOp, scan=True)


@irdl_triton_op
class ScanReturnOp(_CombineReturnOp):
    name = "tt.scan.return"
    traits = tt_traits(Pure(), IsTerminator(), HasParent(ScanOp))


@irdl_triton_op
class MapElementwiseOp(TritonOp):
    """Generic form only, as Triton prints it (no ``assemblyFormat``)."""

    name = "tt.map_elementwise"
    srcs = var_operand_def()
    outs = var_result_def()
    pack = prop_def(I32_ATTR)
    scalarOp = region_def()
    traits = tt_traits(RecursiveMemoryEffect())  # as pure as its body


@irdl_triton_op
class MapElementwiseReturnOp(_CombineReturnOp):
    name = "tt.map_elementwise.return"
    traits = tt_traits(Pure(), IsTerminator())


# ---------------------------------------------------------------------------- shape ops
# ArrowOp's format, `$src attr-dict : type($src) -> type($result)`; the reader's fast path
# builds them (ttopt.ir.fast_ops)


@irdl_triton_op
class SplatOp(ArrowOp):
    name = "tt.splat"
    src = operand_def(TTType())
    result = result_def(TENSOR)
    traits = tt_traits(Pure())
    SYNTAX_VARIANTS: ClassVar[tuple] = PARENS_BEFORE_3

    def verify_(self) -> None:
        s, r = _types(self)
        se = s.element_type if type(s) is TensorType else s
        if se is not r.element_type:  # (the result is a tensor: its constraint comes first)
            require_same_element_type(s, r)
        if type(s) is TensorType:
            require_same_encoding(s, r)


@irdl_triton_op
class UnsplatOp(TritonOp):
    """``tt.unsplat %x : tensor<1x..xT>``: the one element.

    Hand-written: the result type is inferred from the operand's (its element type), which
    xDSL's format cannot say."""

    name = "tt.unsplat"
    src = operand_def(TENSOR)
    result = result_def()
    traits = tt_traits(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        x = parser.parse_unresolved_operand()
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        elem = t.element_type if isinstance(t, TensorType) else t
        return cls.build(resolve_all(parser, [x], [t]), [elem], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.src)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)


@irdl_triton_op
class BroadcastOp(ArrowOp):
    """Triton 2.x's has ``TT_Type`` operand and result (a scalar too) and no verifier of
    its own (any shapes); 3.x's the rules of ``verify_``."""

    name = "tt.broadcast"
    src = operand_def(TTTensorFrom3())
    result = result_def(TTTensorFrom3())
    traits = tt_traits(Pure())
    SYNTAX_VARIANTS: ClassVar[tuple] = PARENS_BEFORE_3

    def verify_(self) -> None:
        s, r = _types(self)
        if element_type(s) is not element_type(r):
            require_same_element_type(s, r)
        if not (type(s) is TensorType and type(r) is TensorType):
            if versions.taken(_RELEASES_2):
                require_same_encoding(s, r)
                return
            raise PlainVerifyException("rank of source must be same as rank of result")
        if s.encoding is not r.encoding and versions.current().release < (3, 9):
            require_same_encoding(s, r)  # (Triton 3.9 broadcasts into another layout too)
        ss, rs = shape_of(s), shape_of(r)
        if versions.checked_release() < (3, 2):
            return  # (Triton 3.0, 3.1: any shapes)
        if len(ss) != len(rs):
            if not versions.taken(_RELEASES_2):
                raise PlainVerifyException("rank of source must be same as rank of result")
            return
        for i, (a, b) in enumerate(zip(ss, rs)):
            if a != 1 and a != b and not versions.taken(_RELEASES_2):
                raise PlainVerifyException(
                    f"Different dimensions at index {i} between source and result.  "
                    "Broadcast requires the source dimension to be 1."
                )


_RELEASES_2 = ((versions.OLDEST, (2, 3)),)


def _top_level(body: str) -> str:
    """``body`` (``<{...}>``) with what nested ``<...>``/``[...]`` hold left out."""
    out, depth = [], 0
    for i, c in enumerate(body):
        if c in "<[" and i > 1:
            depth += 1
        elif c in ">]" and depth:
            depth -= 1
            continue
        if depth == 0:
            out.append(c)
    return "".join(out)


_SLICE_DIM = re.compile(r"(?:<\{|,)dim=(\d+)[,}]")


def _slice_dim(body: str) -> int | None:
    """The ``dim`` of a slice layout's body as the reader keeps it (``<{dim=N,parent=...}>``;
    None if not found), memoised by the text: a kernel slices a few layouts many times."""
    dim = _SLICE_DIMS.get(body, False)
    if dim is False:
        m = _SLICE_DIM.search(_top_level(body))
        dim = int(m.group(1)) if m is not None else None
        if len(_SLICE_DIMS) > 4096:
            _SLICE_DIMS.clear()
        _SLICE_DIMS[body] = dim
    return dim


_SLICE_DIMS: dict[str, int | None] = {}


@irdl_triton_op
class ExpandDimsOp(ArrowOp):
    name = "tt.expand_dims"
    src = operand_def(TENSOR)
    result = result_def(TENSOR)
    axis = prop_def(I32_ATTR)
    traits = tt_traits(Pure())
    SYNTAX_VARIANTS: ClassVar[tuple] = PARENS_BEFORE_3

    def __init__(
        self, src: SSAValue | Operation, axis: int, result_type: Attribute | None = None
    ):
        """``result_type``: by default, the source's type with a 1 inserted at ``axis`` and
        its encoding (in TTGIR, give the result's: a slice layout's parent)."""
        src = SSAValue.get(src)
        if result_type is None:
            t = src.type
            shape = t.get_shape()
            result_type = TensorType(
                t.element_type, shape[:axis] + (1,) + shape[axis:], t.encoding
            )
        super().__init__(src, result_type, {"axis": int_attr(axis)})

    def verify_(self) -> None:
        s, r = _types(self)
        if s.element_type is not r.element_type:
            require_same_element_type(s, r)
        axis = self.properties["axis"].value.data
        ss = shape_of(s)
        if not 0 <= axis <= len(ss):
            # (Triton's inference inserts past the shape's end: its verdict is undefined, a
            # refusal with a garbage shape or a crash; never valid)
            raise VerifyException(f"axis {axis} is out of range for a tensor of rank {len(ss)}")
        # (the layout's inference, before the shape is compared: a slice layout's `dim` is
        # the axis put back; its text as the reader keeps it, `<{dim=N,parent=...}>`)
        enc = getattr(s, "encoding", None)
        if getattr(enc, "name", "").endswith(".slice"):
            dim = _slice_dim(enc.body.data)
            if dim is not None and dim != axis:
                raise PlainVerifyException("Incompatible slice dimension for ExpandDimsOp operand")
        if shape_of(r) != ss[:axis] + (1,) + ss[axis:]:
            require_inferred_shape(ss[:axis] + (1,) + ss[axis:], r)


@irdl_triton_op
class BitcastOp(ArrowOp):
    name = "tt.bitcast"
    traits = tt_traits(Pure())

    def verify_(self) -> None:
        s, r = _types(self)
        require_elementwise_shapes(s, r)
        require_same_encoding(s, r)
        bs, br = bit_width(element_type(s)), bit_width(element_type(r))
        if bs is not None and br is not None and bs != br \
                and versions.checked_release() >= (3, 4):  # (Triton 3.4+'s rule)
            raise PlainVerifyException(
                f"Cannot bitcast data-type of size {bs} to data-type of size {br}"
            )


class _IntPtrCastOp(ArrowOp):
    """``tt.int_to_ptr`` / ``tt.ptr_to_int``: elementwise, same encoding."""

    traits = tt_traits(Pure())

    def verify_(self) -> None:
        s, r = _types(self)
        require_elementwise_shapes(s, r)
        require_same_encoding(s, r)


@irdl_triton_op
class IntToPtrOp(_IntPtrCastOp):
    name = "tt.int_to_ptr"
    src = operand_def(TTI64Like())
    result = result_def(TTPtrLike())


@irdl_triton_op
class PtrToIntOp(_IntPtrCastOp):
    name = "tt.ptr_to_int"
    src = operand_def(TTPtrLike())
    result = result_def(TTI64Like())


def check_trans_order(order: list[int], rank: int) -> None:
    """A transpose's ``order``: a permutation of the operand's dimensions (Triton 3.0+'s words,
    ``emitError``)."""
    if len(order) != rank:
        raise PlainVerifyException("order must have the same size as the rank of the operand and result")
    if sorted(order) != list(range(rank)):
        raise PlainVerifyException("order must be a permutation of [0, ..., rank - 1]")


@irdl_triton_op
class TransOp(ArrowOp):
    name = "tt.trans"
    src = operand_def(TENSOR)
    result = result_def(TENSOR)
    order = prop_def(I32_ARRAY)
    traits = tt_traits(Pure())

    def __init__(
        self, src: SSAValue | Operation, order: Sequence[int], result_type: Attribute | None = None
    ):
        """``result_type``: by default, the source's shape permuted by ``order``, its
        encoding kept (in TTGIR, give the result's)."""
        src = SSAValue.get(src)
        if result_type is None:
            t = src.type
            shape = t.get_shape()
            result_type = TensorType(t.element_type, [shape[i] for i in order], t.encoding)
        super().__init__(src, result_type, {"order": i32_array(order)})

    def verify_(self) -> None:
        s, r = _types(self)
        require_same_element_type(s, r)
        order = list(self.properties["order"].get_values())
        ss = s.get_shape()
        check_trans_order(order, len(ss))
        if tuple(ss[i] for i in order) != r.get_shape():
            raise PlainVerifyException(
                "result shape must match the permutation of the source shape"
            )


@irdl_triton_op
class ReshapeOp(ArrowOp):
    name = "tt.reshape"
    src = operand_def(TENSOR)
    result = result_def(TENSOR)
    allow_reorder = opt_prop_def(UnitAttr)
    efficient_layout = opt_prop_def(UnitAttr)
    traits = tt_traits(Pure())
    assembly_format = (
        "$src (`allow_reorder` $allow_reorder^)? (`efficient_layout` $efficient_layout^)? "
        "attr-dict `:` type($src) `->` type($result)"
    )

    def verify_(self) -> None:
        s, r = _types(self)
        require_same_element_type(s, r)
        ns = nr = 1
        for d in s.get_shape():
            ns *= d
        for d in r.get_shape():
            nr *= d
        if ns != nr:
            raise PlainVerifyException("number of src and dst elements of reshape must be the same")
        if (encoding_of(s) is None) != (encoding_of(r) is None):
            raise PlainVerifyException(
                "Op requires that either (a) src and dst both have encodings, or (b) neither "
                "does."
            )


@irdl_triton_op
class FpToFpOp(TritonOp):
    """``tt.fp_to_fp %x attr-dict (, rounding = rtne)? : T -> U``."""

    name = "tt.fp_to_fp"
    src = operand_def(TTFloatLike())
    result = result_def(TTFloatLike())
    rounding = opt_prop_def(I32_ATTR)
    traits = tt_traits(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    custom_directives = (RoundingMode,)
    assembly_format = (
        "$src attr-dict (`,` `rounding` `=` custom<RoundingMode>($rounding)^)? "
        "`:` type($src) `->` type($result)"
    )

    def verify_(self) -> None:
        s, r = _types(self)
        require_elementwise_shapes(s, r)
        require_same_encoding(s, r)
        bs, br = bit_width(element_type(s)), bit_width(element_type(r))
        if bs is not None and br is not None and br < bs and self.rounding is None \
                and versions.current().release >= (3, 0):  # (Triton 2.x has no rounding mode)
            raise PlainVerifyException("Rounding mode is required for FP downcast")


class _TwoToOne(TritonOp):
    """``op %a, %b attr-dict : type($a) -> type($result)`` (join, cat).

    Hand-written: ``$b``'s type is ``$a``'s (``SameTypeOperands``), which xDSL's format
    infers only through a constraint variable, whose message is not MLIR's."""

    lhs = operand_def(TENSOR)
    rhs = operand_def(TENSOR)
    result = result_def(TENSOR)
    traits = tt_traits(Pure())

    def verify_(self) -> None:
        a, b = self.operands
        if not same(a.type, b.type):
            raise VerifyException("requires all operands to have the same type")
        require_same_element_type(a.type, _at(self.results, 0).type)
        if self.name == "tt.join":
            require_inferred_shape(a.type.get_shape() + (2,), _at(self.results, 0).type)

    @classmethod
    def parse(cls, parser: Parser):
        a = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        b = parser.parse_unresolved_operand()
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        if versions.current().arrow_parens:  # Triton 2.x: `(T, T) -> U`
            (t, t2), (r,) = parse_functional_type(parser)
            return cls.build(resolve_all(parser, [a, b], [t, t2]), [r], props, attrs)
        t = parser.parse_type()
        parser.parse_punctuation("->")
        r = parser.parse_type()
        return cls.build(resolve_all(parser, [a, b], [t, t]), [r], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_ssa_value)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        if versions.current().arrow_parens:
            printer.print_string("(")
            printer.print_attribute(self.lhs.type)
            printer.print_string(", ")
            printer.print_attribute(self.rhs.type)
            printer.print_string(") -> ")
            printer.print_attribute(self.result.type)
            return
        printer.print_attribute(self.lhs.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_triton_op
class JoinOp(_TwoToOne):
    name = "tt.join"


@irdl_triton_op
class CatOp(_TwoToOne):
    name = "tt.cat"


@irdl_triton_op
class SplitOp(TritonOp):
    """``%l, %r = tt.split %x : T -> U`` (two results of type U).

    Hand-written: ``$outRHS``'s type is ``$outLHS``'s (``TypesMatchWith``)."""

    name = "tt.split"
    src = operand_def(TENSOR)
    outLHS = result_def(TENSOR)
    outRHS = result_def(TENSOR)
    traits = tt_traits(Pure())

    def verify_(self) -> None:
        s = self.operands[0].type
        shape = s.get_shape()
        if not shape or shape[-1] != 2:
            raise PlainVerifyException("last dimension of input tensor must be 2")
        for r in self.results:
            require_same_element_type(s, r.type)
            require_inferred_shape(shape[:-1], r.type)

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


@irdl_triton_op
class HistogramOp(TritonOp):
    """``tt.histogram %x (, %mask)? : T -> U``.

    Hand-written: the mask type is inferred from the source type (``TypesMatchWith``)."""

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


@irdl_triton_op
class AddPtrOp(TritonOp):
    """``tt.addptr %p, %off : PT, OT`` (result type = PT).

    Hand-written: the pointer's type is the result's (``TypesMatchWith``).  The reader's
    fast path builds most of them."""

    name = "tt.addptr"
    ptr = operand_def(TTPtrLike())
    offset = operand_def(TTIntLike())
    result = result_def(TTPtrLike())
    traits = tt_traits(Pure())

    def __init__(self, ptr: SSAValue | Operation, offset: SSAValue | Operation):
        ptr = SSAValue.get(ptr)
        super().__init__(operands=[ptr, offset], result_types=[ptr.type])

    def verify_(self) -> None:
        p, o = operand_tuple(self)
        pt, ot, rt = p.type, o.type, _at(self.results, 0).type
        if rt is not pt and not same(rt, pt):
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


@irdl_triton_op
class AdvanceOp(TritonOp):
    """``tt.advance %p, [%o1, %o2] : <tensor<...>>``.

    Hand-written: the block pointer type is printed unqualified (xDSL's ``type(...)``
    always prints ``!tt.ptr``), and ``$ptr``'s type is the result's."""

    name = "tt.advance"
    ptr = operand_def()
    offsets = var_operand_def()
    result = result_def()
    traits = tt_traits(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        p = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        offs = parse_bracket_operands(parser)
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        t = parse_maybe_unqualified(parser, PointerType)
        values = resolve_all(parser, [p, *offs], [t] + [i32] * len(offs))
        return cls.build(values, [t], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.ptr)
        printer.print_string(", ")
        print_bracket_operands(printer, self.offsets)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        self.result.type.print_parameters(printer)


@irdl_triton_op
class MakeTensorPtrOp(TritonOp):
    """``tt.make_tensor_ptr %base, [shape], [strides], [offsets] {order} : <tensor<..>>``.

    Hand-written: the block pointer type is printed unqualified, and ``$base``'s type is
    derived from it (``TypesMatchWith``)."""

    name = "tt.make_tensor_ptr"
    base = operand_def()
    shape = var_operand_def()
    strides = var_operand_def()
    offsets = var_operand_def()
    result = result_def()
    order = prop_def(I32_ARRAY)
    irdl_options = (SameVariadicOperandSize(),)
    traits = tt_traits(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        b = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        shape = parse_bracket_operands(parser)
        parser.parse_punctuation(",")
        strides = parse_bracket_operands(parser)
        parser.parse_punctuation(",")
        offsets = parse_bracket_operands(parser)
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        t = parse_maybe_unqualified(parser, PointerType)
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
            print_bracket_operands(printer, group)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        self.result.type.print_parameters(printer)


@irdl_triton_op
class MakeRangeOp(TritonOp):
    """``tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>``."""

    name = "tt.make_range"
    start = prop_def(I32_ATTR)
    end = prop_def(I32_ATTR)
    result = result_def(TTIntTensor())  # (every release, the 2.1 without a range rule too)
    irdl_options = (ParsePropInAttrDict(),)
    traits = tt_traits(Pure())
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, start: int, end: int, encoding: Attribute | None = None):
        """``tensor<(end - start)xi32, encoding>``."""
        typ = (
            TensorType(i32, [end - start])
            if encoding is None
            else TensorType(i32, [end - start], encoding)
        )
        super().__init__(
            result_types=[typ], properties={"start": int_attr(start), "end": int_attr(end)}
        )

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
        ty = _at(self.results, 0).type
        shape = shape_of(ty)
        if (start < end and shape is not None and len(shape) == 1 and end - start == shape[0]
                and (ty.element_type is i32 or ty.element_type == i32)):
            return  # (every rule below holds: which releases the text may be from is not asked)
        # (Triton 2.1 verifies no range; 2.2 - 3.3 no order of its ends: a rule of some
        # releases holds only where every release the text may be from has it)
        if versions.taken(((versions.OLDEST, (2, 1)),)):
            return
        if start >= end and not versions.taken(((versions.OLDEST, (3, 3)),)):
            raise VerifyException("start must be less than end")
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

    result = result_def(I32)
    axis = prop_def(I32_ATTR)
    traits = tt_traits(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    custom_directives = (ProgramDim,)
    assembly_format = "custom<ProgramDim>($axis) attr-dict `:` type($result)"

    def __init__(self, axis: int):
        """``axis``: 0, 1, 2 (x, y, z)."""
        super().__init__(result_types=[i32], properties={"axis": int_attr(axis)})


@irdl_triton_op
class GetProgramIdOp(_ProgramDimOp):
    name = "tt.get_program_id"


@irdl_triton_op
class GetNumProgramsOp(_ProgramDimOp):
    name = "tt.get_num_programs"
    # Triton 2.x: `tt.get_num_programs {axis = 0 : i32} : i32`
    SYNTAX_VARIANTS: ClassVar[tuple] = ((lambda s: s.release < (3, 0), "attr-dict `:` type($result)"),)


# SameTypeOp's hand-written `$x, $y attr-dict : type($x)` (see families.SameTypeOp)


def _parse_plain(cls, parser: Parser):
    """``$x, $y attr-dict : type($x)``: :class:`SameTypeOp`'s syntax without arith's
    ``fastmath<..>``/``overflow<..>`` clauses (Triton's own ops have none)."""
    start = parser.pos
    operands = parse_operand_list(parser)
    if len(operands) != cls.ARITY:
        parser.raise_error(
            f"'{cls.name}' expects {cls.ARITY} operands, got {len(operands)}", start, parser.pos
        )
    props, attrs = cls.parse_attr_dict(parser)
    parser.parse_punctuation(":")
    typ = parser.parse_type()
    return cls.build(resolve_all(parser, operands, [typ] * len(operands)), [typ], props, attrs)


def without_flags(cls):
    """A :class:`SameTypeOp` of Triton's (``tt.mulhiui``, ``tt.precise_divf`` ...): no
    properties, where the family gives arith's ``fastmath`` and ``overflowFlags`` (Triton
    takes ``{fastmath = 1 : i32}`` as a plain attribute and refuses ``fastmath<fast>``, and
    refuses a properties dictionary on the op: versions.NO_PROPERTIES_UNTIL)."""
    props = cls.get_irdl_definition().properties
    for name in ("fastmath", "overflowFlags"):
        props.pop(name, None)
    cls.parse = classmethod(_parse_plain)
    return cls


@without_flags
@irdl_triton_op
class MulhiUIOp(BinaryOp):
    """Hand-written: the family's syntax without its ``fastmath``/``overflow`` clauses
    (:func:`without_flags`)."""

    name = "tt.mulhiui"
    ins = var_operand_def(TTIntLike())
    result = result_def(TTIntLike())
    traits = tt_traits(Pure())


@without_flags
@irdl_triton_op
class PreciseDivfOp(BinaryOp):
    """Hand-written: the family's syntax without its ``fastmath``/``overflow`` clauses
    (:func:`without_flags`)."""

    name = "tt.precise_divf"
    ins = var_operand_def(TTFloatLike())
    result = result_def(TTFloatLike())
    traits = tt_traits(Pure())


@without_flags
@irdl_triton_op
class PreciseSqrtOp(UnaryOp):
    """Hand-written: the family's syntax without its ``fastmath``/``overflow`` clauses
    (:func:`without_flags`)."""

    name = "tt.precise_sqrt"
    ins = var_operand_def(TTFloatLike())
    result = result_def(TTFloatLike())
    traits = tt_traits(Pure())


@irdl_triton_op
class ClampFOp(TritonOp):
    """``tt.clampf %x, %lo, %hi, propagateNan = none : T``.

    Hand-written: the operand types are the result's (``SameOperandsAndResultType``)."""

    name = "tt.clampf"
    x = operand_def(TTFloatLike())
    min = operand_def(TTFloatLike())
    max = operand_def(TTFloatLike())
    result = result_def(TTFloatLike())
    propagateNan = prop_def(I32_ATTR)
    traits = tt_traits(Pure())

    def verify_(self) -> None:
        t = _at(self.results, 0).type
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
    """``op %a, %b, %c (, inputPrecision = P)? attr-dict : A * B -> D``.

    Hand-written: ``$c``'s type is ``$d``'s (``TypesMatchWith``), and ``ttng``'s variant
    takes an optional ``i1`` operand in the same comma list."""

    a = operand_def()
    b = operand_def()
    c = operand_def()
    d = result_def()
    inputPrecision = opt_prop_def(in_releases(I32_ATTR, (3, 0)))  # (2.x: allowTF32)
    maxNumImpreciseAcc = opt_prop_def(in_releases(I32_ATTR, (2, 2)))

    @classmethod
    def parse(cls, parser: Parser):
        ops = [parser.parse_unresolved_operand()]
        for _ in range(2):  # (`$a, $b, $c` first: the keyword only after them)
            parser.parse_punctuation(",")
            tok = peek_token(parser)
            if tok.kind != MLIRTokenKind.PERCENT_IDENT:  # (MLIR: after the token before)
                text, at = tok.span.input.content, tok.span.start
                while at > 0 and text[at - 1] in " \t\r\n":
                    at -= 1
                parser.raise_error("expected SSA operand", at, at + 1)
            ops.append(parser.parse_unresolved_operand())
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


@irdl_triton_op
class DotOp(DotLikeOp):
    name = "tt.dot"
    traits = tt_traits(Pure())

    def verify_(self) -> None:
        if _before_3():  # (2.x's required attributes)
            if "allowTF32" not in self.attributes and "allowTF32" not in self.properties:
                raise VerifyException("requires attribute 'allowTF32'")
            if versions.checked_span()[0] >= (2, 2) and "maxNumImpreciseAcc" not in self.properties:
                raise VerifyException("requires attribute 'maxNumImpreciseAcc'")
        a, b, c = (v.type for v in tuple(operand_tuple(self))[:3])
        if not same(_at(self.results, 0).type, c):
            raise VerifyException(
                "failed to verify that result's type matches accumulator's type"
            )
        ba, bb = bit_width(element_type(a)), bit_width(element_type(b))
        if ba is not None and bb is not None and ba != bb:
            raise PlainVerifyException("element types of operands A and B must have same bit width")


# ---------------------------------------------------------------------------- atomics


@irdl_triton_op
class AtomicRMWOp(TritonOp):
    name = "tt.atomic_rmw"
    ptr = operand_def(TTPtrLike())
    val = operand_def(TTType())
    mask = opt_operand_def(
        BoolLike("1-bit signless integer or ranked tensor of 1-bit signless integer values")
    )
    result = result_def(TTType())
    atomic_rmw_op = prop_def(RMW)
    sem = prop_def(SEMANTIC)
    scope = prop_def(in_releases(SCOPE, (2, 2)))  # (2.1 has none: any value)
    irdl_options = (ParsePropInAttrDict(),)
    traits = tt_traits(ReadWriteEffect())
    custom_directives = (RMWOp, MemSemantic, MemSyncScope)
    assembly_format = (
        "custom<RMWOp>($atomic_rmw_op) `,` custom<MemSemantic>($sem) `,` "
        "custom<MemSyncScope>($scope) `,` $ptr `,` $val (`,` $mask^)? attr-dict `:` "
        "functional-type(operands, $result)"
    )

    def verify_(self) -> None:
        ops = tuple(operand_tuple(self))  # (a plain tuple: xDSL's indexes in Python)
        vt = ops[1].type
        if not pointee_matches(ops[0].type, vt):
            raise VerifyException("failed to verify that ptr type matches value type")
        if len(ops) > 2 and not i1_same_shape(vt, ops[2].type):
            raise VerifyException("failed to verify that mask type matches value type")
        _same_shape_and_encoding(self)


@irdl_triton_op
class AtomicCASOp(TritonOp):
    name = "tt.atomic_cas"
    ptr = operand_def(TTPtrLike())
    cmp = operand_def(TTType())
    val = operand_def(TTType())
    result = result_def(TTType())
    sem = prop_def(SEMANTIC)
    scope = prop_def(in_releases(SCOPE, (2, 2)))  # (2.1 has none: any value)
    irdl_options = (ParsePropInAttrDict(),)
    traits = tt_traits(ReadWriteEffect())
    custom_directives = (MemSemantic, MemSyncScope)
    assembly_format = (
        "custom<MemSemantic>($sem) `,` custom<MemSyncScope>($scope) `,` $ptr `,` $cmp `,` "
        "$val attr-dict `:` functional-type(operands, $result)"
    )

    def verify_(self) -> None:
        ops = tuple(operand_tuple(self))  # (a plain tuple: xDSL's indexes in Python)
        if not pointee_matches(ops[0].type, ops[1].type):
            raise VerifyException("failed to verify that ptr type matches cmp type")
        if not pointee_matches(ops[0].type, ops[2].type):
            raise VerifyException("failed to verify that ptr type matches value type")
        _same_shape_and_encoding(self)


def _same_shape_and_encoding(op: Operation) -> None:
    """MLIR's ``SameOperandsAndResultShape`` (a scalar and a tensor differ) and Triton's
    ``SameOperandsAndResultEncoding`` (the result's encoding, every tensor's), in that
    order, after the op's type constraints (Triton's atomics)."""
    types = [v.type for v in op.results] + [v.type for v in operand_tuple(op)]
    shape = shape_of(types[0]) if isinstance(types[0], TensorType) else None
    for t in types[1:]:
        if (shape_of(t) if isinstance(t, TensorType) else None) != shape:
            raise VerifyException("requires the same shape for all operands and results")
    tensors = [t for t in types if isinstance(t, TensorType)]
    if any(not same_encoding(t, tensors[0]) for t in tensors[1:]):
        raise VerifyException("requires the same encoding for all operands and results")


# ---------------------------------------------------------------------------- debug ops


@irdl_triton_op
class AssertOp(TritonOp):
    """``tt.assert %c, "msg" : T``: writes (device-side assert), like Triton declares."""

    name = "tt.assert"
    condition = operand_def(
        BoolLike("1-bit signless integer or tensor of 1-bit signless integer values")
    )
    message = prop_def(StringAttr)
    file = opt_prop_def(StringAttr)  # (Triton 2.1 - 3.1)
    func = opt_prop_def(StringAttr)
    line = opt_prop_def(IntegerAttr[IntegerType(32)])
    irdl_options = (ParsePropInAttrDict(),)
    traits = tt_traits(MemoryWriteEffect())
    assembly_format = "$condition `,` $message attr-dict `:` type($condition)"
    SYNTAX_VARIANTS: ClassVar[tuple] = ((
        lambda s: s.release < (3, 2),
        "$condition `,` $message `,` $file `,` $func `,` $line attr-dict `:` type($condition)",
    ),)


@irdl_triton_op
class PrintOp(TritonOp):
    """``tt.print "prefix" {hex, isSigned} : %a, %b : T1, T2``: writes."""

    name = "tt.print"
    args = var_operand_def()
    prefix = prop_def(StringAttr)
    hex = prop_def(BoolAttr)
    isSigned = prop_def(in_releases(I32_ARRAY, (3, 2)))  # (before: filled by the reader)
    irdl_options = (ParsePropInAttrDict(),)
    traits = tt_traits(MemoryWriteEffect())
    assembly_format = "$prefix attr-dict (`:` $args^ `:` type($args))?"


# ---------------------------------------------------------------------------- misc


@irdl_triton_op
class GatherOp(TritonOp):
    """``tt.gather %src[%idx] {axis} : (S, I) -> R``."""

    name = "tt.gather"
    src = operand_def(TENSOR)
    indices = operand_def(TENSOR)
    result = result_def(TENSOR)
    axis = prop_def(I32_ATTR)
    efficient_layout = opt_prop_def(UnitAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = tt_traits(Pure())
    assembly_format = "$src `[` $indices `]` attr-dict `:` functional-type(operands, results)"

    def verify_(self) -> None:  # GatherOp::verify
        src, idx = (v.type for v in self.operands)
        res = _at(self.results, 0).type
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


@irdl_triton_op
class ExternElementwiseOp(FunctionalTypeOp):
    name = "tt.extern_elementwise"
    libname = prop_def(StringAttr)
    libpath = prop_def(StringAttr)
    symbol = prop_def(StringAttr)
    pure = prop_def(BoolAttr)
    traits = tt_traits(PureIfMarked())


@irdl_triton_op
class ElementwiseInlineAsmOp(TritonOp):
    """``tt.elementwise_inline_asm "asm" {constraints, packed_element, pure} %a : T -> R``."""

    name = "tt.elementwise_inline_asm"
    args = var_operand_def()
    outs = var_result_def()
    asm_string = prop_def(StringAttr)
    constraints = prop_def(StringAttr)
    pure = prop_def(BoolAttr)
    packed_element = prop_def(I32_ATTR)
    irdl_options = (ParsePropInAttrDict(),)
    traits = tt_traits(PureIfMarked())
    assembly_format = "$asm_string attr-dict ($args^ `:` type($args))? `->` type($outs)"

    def verify_(self) -> None:
        """Triton's: the first operand's element count is a multiple of ``packed_element``."""
        packed = self.properties.get("packed_element") or self.attributes.get("packed_element")
        if not isinstance(packed, IntegerAttr) or not self.args \
                or versions.checked_release() < (3, 0):  # (Triton 2.x: no such rule)
            return
        t = self.args[0].type
        n = math.prod(t.get_shape()) if isinstance(t, TensorType) else 0
        k = packed.value.data
        # (Triton reads it unsigned: -1 is 2**32 - 1, which only 0 elements (a scalar) are a
        # multiple of; 0 it divides by)
        if k == 0 or n % (k & 0xFFFFFFFF):
            raise PlainVerifyException(
                f"number of input elements {n} must be a multiple of the op's packed_element "
                f"attribute, {k & 0xFFFFFFFF}"
            )


# ---------------------------------------------------------------------------- descriptors


@irdl_triton_op
class DescriptorLoadOp(TritonOp):
    """``tt.descriptor_load %d[%i, %j] oilist : !tt.tensordesc<..> -> tensor<..>``.

    Hand-written: an oilist."""

    name = "tt.descriptor_load"
    desc = operand_def()
    indices = var_operand_def()
    result = result_def()
    cache = opt_prop_def(CACHE)
    evict = opt_prop_def(EVICT)
    traits = tt_traits(MemoryReadEffect())

    @classmethod
    def parse(cls, parser: Parser):
        d = parser.parse_unresolved_operand()
        idx = parse_bracket_operands(parser)
        props: dict[str, Attribute] = {}
        parse_cache_evict(parser, props)
        p2, attrs = cls.parse_attr_dict(parser)
        props.update(p2)
        parser.parse_punctuation(":")
        dt = parser.parse_type()
        parser.parse_punctuation("->")
        rt = parser.parse_type()
        values = resolve_all(parser, [d, *idx], [dt] + [i32] * len(idx))
        return cls.build(values, [rt], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.desc)
        print_bracket_operands(printer, self.indices)
        print_cache_evict(self, printer)
        self.print_attr_dict(printer, {"cache", "evict"})
        printer.print_string(" : ")
        printer.print_attribute(self.desc.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_triton_op
class DescriptorStoreOp(TritonOp):
    """``tt.descriptor_store %d[%i], %v : !tt.tensordesc<..>, tensor<..>``."""

    name = "tt.descriptor_store"
    desc = operand_def()
    src = operand_def()
    indices = var_operand_def(I32)
    irdl_options = (ParsePropInAttrDict(),)
    traits = tt_traits(ReadWriteEffect())
    assembly_format = (
        "$desc `[` $indices `]` `,` $src attr-dict `:` type($desc) `,` type($src)"
    )


@irdl_triton_op
class MakeTensorDescOp(TritonOp):
    """``tt.make_tensor_descriptor %base, [shape], [strides] : <f32>, <tensor<32x32xf32>>``.

    Hand-written: both types are printed unqualified (``type($base)`` and ``type($result)``
    of Triton's own pointer and descriptor types print without ``!tt.ptr``/``!tt.tensordesc``;
    xDSL's ``type(...)`` always prints the prefix), and read with or without it."""

    name = "tt.make_tensor_descriptor"
    base = operand_def(PTR_TYPE)
    shape = var_operand_def(I32)
    strides = var_operand_def(I64)
    result = result_def(TENSORDESC)
    padding = opt_prop_def(in_releases(PADDING, (3, 5)))
    irdl_options = (SameVariadicOperandSize(),)
    traits = tt_traits(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        b = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        shape = parse_bracket_operands(parser)
        parser.parse_punctuation(",")
        strides = parse_bracket_operands(parser)
        props, attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        bt = parse_maybe_unqualified(parser, PointerType)
        parser.parse_punctuation(",")
        rt = parse_maybe_unqualified(parser, TensorDescType)
        values = resolve_all(
            parser, [b, *shape, *strides], [bt] + [i32] * len(shape) + [i64] * len(strides)
        )
        return cls.build(values, [rt], props, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.base)
        for group in (self.shape, self.strides):
            printer.print_string(", ")
            print_bracket_operands(printer, group)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        _print_unqualified(printer, self.base.type)
        printer.print_string(", ")
        _print_unqualified(printer, self.result.type)


def _print_unqualified(printer: Printer, t: Attribute) -> None:
    """A ``!tt.ptr``/``!tt.tensordesc`` type without its prefix (anything else in full)."""
    if isinstance(t, PointerType | OpaqueBodyAttr):
        t.print_parameters(printer)
    else:
        printer.print_attribute(t)


@irdl_triton_op
class DescriptorGatherOp(TritonOp):
    """``%r = tt.descriptor_gather %d[%x_offsets, %y] : (D, X, i32) -> R``: reads global
    memory (TMA gather on sm_100)."""

    name = "tt.descriptor_gather"
    desc = operand_def(TENSORDESC)
    x_offsets = operand_def(TENSOR)
    y_offset = operand_def(I32)
    result = result_def(TENSOR)
    irdl_options = (ParsePropInAttrDict(),)
    traits = tt_traits(MemoryReadEffect())
    assembly_format = (
        "$desc `[` $x_offsets `,` $y_offset `]` attr-dict `:` functional-type(operands, results)"
    )


@irdl_triton_op
class DescriptorScatterOp(TritonOp):
    """``tt.descriptor_scatter %d[%x_offsets, %y], %v : D, X, i32, V``: writes global memory."""

    name = "tt.descriptor_scatter"
    desc = operand_def(TENSORDESC)
    x_offsets = operand_def(TENSOR)
    y_offset = operand_def(I32)
    src = operand_def(TENSOR)
    irdl_options = (ParsePropInAttrDict(),)
    traits = tt_traits(ReadWriteEffect())
    assembly_format = "$desc `[` $x_offsets `,` $y_offset `]` `,` $src attr-dict `:` type(operands)"


@irdl_triton_op
class DescriptorReduceOp(TritonOp):
    """``tt.descriptor_reduce add, %d[%i, %j], %v : D, V``: an atomic reduction into global
    memory through a descriptor (reads and writes)."""

    name = "tt.descriptor_reduce"
    desc = operand_def(TENSORDESC)
    src = operand_def(TENSOR)
    indices = var_operand_def(I32)
    kind = prop_def(I32_ATTR)
    irdl_options = (ParsePropInAttrDict(),)
    traits = tt_traits(ReadWriteEffect())
    custom_directives = (DescriptorReduceKind,)
    assembly_format = (
        "custom<DescriptorReduceKind>($kind) `,` $desc `[` $indices `]` `,` $src attr-dict `:` "
        "type($desc) `,` type($src)"
    )


@irdl_triton_op
class DotScaledOp(TritonOp):
    """``tt.dot_scaled %a (scale %sa)?, %b (scale %sb)?, %c lhs = E rhs = E attr-dict :
    A (, SA)? * B (, SB)? -> D`` (``tl.dot_scaled``: microscaled formats).

    Hand-written: ``$c``'s type is ``$d``'s (``TypesMatchWith``, which xDSL's format infers
    only through a constraint variable, whose message is not MLIR's)."""

    name = "tt.dot_scaled"
    a = operand_def(TENSOR)
    b = operand_def(TENSOR)
    c = operand_def(TENSOR)
    a_scale = opt_operand_def(TENSOR)
    b_scale = opt_operand_def(TENSOR)
    d = result_def(TENSOR)
    a_elem_type = prop_def(I32_ATTR)
    b_elem_type = prop_def(I32_ATTR)
    fastMath = prop_def(BoolAttr)
    lhs_k_pack = opt_prop_def(BoolAttr)
    rhs_k_pack = opt_prop_def(BoolAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = tt_traits(Pure())

    def verify_(self) -> None:
        if not same(_at(self.results, 0).type, self.operands[2].type):
            raise VerifyException(
                "failed to verify that result's type matches accumulator's type"
            )

    @classmethod
    def parse(cls, parser: Parser):
        def operand_and_scale():
            x = parser.parse_unresolved_operand()
            scale = None
            if parser.parse_optional_keyword("scale") is not None:
                scale = parser.parse_unresolved_operand()
            return x, scale

        a, sa = operand_and_scale()
        parser.parse_punctuation(",")
        b, sb = operand_and_scale()
        parser.parse_punctuation(",")
        c = parser.parse_unresolved_operand()
        props: dict[str, Attribute] = {}
        for keyword, prop in (("lhs", "a_elem_type"), ("rhs", "b_elem_type")):
            parser.parse_keyword(keyword)
            parser.parse_punctuation("=")
            props[prop] = int_attr(
                parse_keyword_enum(parser, SCALE_DOT_ELEM_TYPE, "scaled dot element type")
            )
        p2, attrs = cls.parse_attr_dict(parser)
        props.update(p2)
        parser.parse_punctuation(":")

        def type_and_scale(scale):
            t = parser.parse_type()
            st = None
            if scale is not None:
                parser.parse_punctuation(",")
                st = parser.parse_type()
            return t, st

        ta, tsa = type_and_scale(sa)
        parser.parse_punctuation("*")
        tb, tsb = type_and_scale(sb)
        parser.parse_punctuation("->")
        td = parser.parse_type()
        pairs = [(a, ta), (b, tb), (c, td), (sa, tsa), (sb, tsb)]
        values = [parser.resolve_operand(o, t) for o, t in pairs if o is not None]
        props["operandSegmentSizes"] = DenseArrayBase.from_list(
            i32, [1, 1, 1, int(sa is not None), int(sb is not None)]
        )
        return cls.build(values, [td], props, attrs)

    def print(self, printer: Printer):
        a, b, c = self.a, self.b, self.c
        sa, sb = self.a_scale, self.b_scale
        for x, scale, sep in ((a, sa, ", "), (b, sb, ", ")):
            printer.print_string(" " if x is a else sep)
            printer.print_ssa_value(x)
            if scale is not None:
                printer.print_string(" scale ")
                printer.print_ssa_value(scale)
        printer.print_string(", ")
        printer.print_ssa_value(c)
        for keyword, attr in (("lhs", self.a_elem_type), ("rhs", self.b_elem_type)):
            printer.print_string(
                f" {keyword} = " + enum_name(SCALE_DOT_ELEM_TYPE, attr.value.data)
            )
        self.print_attr_dict(printer, {"a_elem_type", "b_elem_type"})
        printer.print_string(" : ")
        for x, scale, sep in ((a, sa, ""), (b, sb, " * ")):
            printer.print_string(sep)
            printer.print_attribute(x.type)
            if scale is not None:
                printer.print_string(", ")
                printer.print_attribute(scale.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.d.type)


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
        DescriptorStoreOp, MakeTensorDescOp, DescriptorGatherOp, DescriptorScatterOp,
        DescriptorReduceOp, DotScaledOp,
    ],
    [PointerType, TensorDescType, CachePolicyAttr],
)

__all__ = [
    "TT",
    # ops
    "LoadOp", "StoreOp", "FuncOp", "ReturnOp", "CallOp", "ReduceOp", "ReduceReturnOp",
    "ScanOp", "ScanReturnOp", "MapElementwiseOp", "MapElementwiseReturnOp", "SplatOp",
    "UnsplatOp", "BroadcastOp", "ExpandDimsOp", "BitcastOp", "IntToPtrOp", "PtrToIntOp",
    "TransOp", "ReshapeOp", "FpToFpOp", "JoinOp", "CatOp", "SplitOp", "HistogramOp",
    "AddPtrOp", "AdvanceOp", "MakeTensorPtrOp", "MakeRangeOp", "GetProgramIdOp",
    "GetNumProgramsOp", "MulhiUIOp", "PreciseDivfOp", "PreciseSqrtOp", "ClampFOp",
    "DotLikeOp", "DotOp", "AtomicRMWOp", "AtomicCASOp", "AssertOp", "PrintOp", "GatherOp",
    "ExternElementwiseOp", "ElementwiseInlineAsmOp", "DescriptorLoadOp",
    "DescriptorStoreOp", "MakeTensorDescOp", "DescriptorGatherOp", "DescriptorScatterOp",
    "DescriptorReduceOp", "DotScaledOp", "PTR", "PTR_TYPE", "TENSORDESC",
    "TENSOR", "I32", "I64",
    # re-exported from tt_attrs
    "CACHE_MODIFIER", "EVICTION_POLICY", "MEM_SEMANTIC", "MEM_SYNC_SCOPE", "RMW_OP",
    "PROGRAM_DIM", "INPUT_PRECISION", "ROUNDING_MODE", "PROPAGATE_NAN",
    "SCALE_DOT_ELEM_TYPE", "DESCRIPTOR_REDUCE_KIND", "PointerType",
    "OpaqueBodyAttr", "opaque_attr", "TensorDescType", "i1_like", "loaded_type",
    "mask_type", "pointee_matches",
    # re-exported from traits, base
    "MAX_TENSOR_NUM_ELEMENTS", "TensorSizeTrait", "tt_traits", "LoadEffects",
    "PureIfMarked", "ReadWriteEffect", "CalleeIsAFunction", "bool_prop", "segment_sizes",
]
