"""Type constraints of Triton's and MLIR's op definitions, as xDSL IRDL constraints.

Each constraint is an ``AttrConstraint`` usable in ``operand_def`` / ``result_def`` and
checked by xDSL's IRDL verifier (and by ttopt's own walker, :mod:`ttopt.ir.verify`).  They
are written for speed (one ``isinstance`` or a set lookup) because every op of every input
is checked.  ``DESCRIPTION`` is the phrase MLIR prints: ``operand #0 must be
floating-point-like, but got 'i32'``.

The element-type sets follow the ``.td`` definitions (``TritonTypes.td``, MLIR's
``ArithBase.td``) but never reject more than Triton: every float type xDSL knows counts as a
float (Triton 3.6 has more FP8 variants than the file ttopt was written against), vectors
count as containers (MLIR's ``*-like`` constraints accept them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    ComplexType,
    Float8E4M3B11FNUZType,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    NoneAttr,
    Signedness,
    TensorType,
    UnrankedTensorType,
    VectorType,
)
from xdsl.dialects.builtin import i1 as _I1
from xdsl.ir import Attribute
from xdsl.irdl import AttrConstraint
from xdsl.irdl.constraints import VerificationContext
from xdsl.utils.exceptions import VerifyException

from ..xdsl_compat import unchecked
from . import versions

_FLOATS = tuple(AnyFloat.__args__)  # type: ignore[attr-defined]
_CONTAINERS = (TensorType, VectorType, UnrankedTensorType)
# exact-class sets: `type(t) in S` is one hash lookup where `isinstance(t, (18 classes))` of
# xDSL's ABC-based attributes costs a walk (each check falls back to isinstance, so a
# subclass would still be accepted)
_FLOAT_SET = frozenset(_FLOATS)
_CONTAINER_SET = frozenset(_CONTAINERS)

# isinstance of an attribute, kept per class: xDSL's attribute classes are ABCs, and
# isinstance(t, C) of a t that is not a C goes through ABCMeta.__instancecheck__, a Python call
# per class tested (18 for the floats); an attribute's class decides the answer
_CONTAINER_CLASSES: dict[type, bool] = {}
_FLOAT_CLASSES: dict[type, bool] = {}
_TENSOR_CLASSES: dict[type, bool] = {}
_INTEGER_CLASSES: dict[type, bool] = {}
_POINTER_CLASSES: dict[type, bool] = {}
_NONE_CLASSES: dict[type, bool] = {}


def _learn(memo: dict[type, bool], t: Attribute, classes) -> bool:
    """``isinstance(t, classes)``, kept in ``memo`` for the class of ``t``."""
    found = memo[type(t)] = isinstance(t, classes)
    return found


def _is_tensor(t: Attribute) -> bool:
    """``isinstance(t, TensorType)``."""
    found = _TENSOR_CLASSES.get(type(t))
    return _learn(_TENSOR_CLASSES, t, TensorType) if found is None else found


def _is_integer(t: Attribute) -> bool:
    """``isinstance(t, IntegerType)``."""
    found = _INTEGER_CLASSES.get(type(t))
    return _learn(_INTEGER_CLASSES, t, IntegerType) if found is None else found


def element_type(t: Attribute) -> Attribute:
    """The element type of a tensor/vector, or ``t`` itself."""
    found = _CONTAINER_CLASSES.get(type(t))
    if found is None:
        found = _learn(_CONTAINER_CLASSES, t, _CONTAINERS)
    return t.element_type if found else t  # type: ignore[attr-defined]


def _elem(t: Attribute) -> Attribute:
    """``element_type`` for the hot checks (tensors first)."""
    if type(t) is TensorType:
        return t.element_type
    found = _CONTAINER_CLASSES.get(type(t))
    if found is None:
        found = _learn(_CONTAINER_CLASSES, t, _CONTAINERS)
    return t.element_type if found else t  # type: ignore[attr-defined]


def _float(t: Attribute) -> bool:
    found = _FLOAT_CLASSES.get(type(t))
    return _learn(_FLOAT_CLASSES, t, _FLOATS) if found is None else found


def _signless(t: Attribute) -> bool:
    return (type(t) is IntegerType or _is_integer(t)) and (
        t.signedness.data == Signedness.SIGNLESS
    )


def _tensor_elem(t: Attribute) -> Attribute:
    """Element type of a ranked tensor, else ``t`` (Triton's ``TensorOf`` is tensors only)."""
    return t.element_type if type(t) is TensorType or _is_tensor(t) else t


def first(values):
    """``values[0]`` of an op's results: the plain tuple item, not xDSL's ``SSAValues``
    (whose Python-level ``__getitem__`` costs a few times more)."""
    return _TUPLE_ITEM(values, 0)


_TUPLE_ITEM = tuple.__getitem__


def with_element(typ: Attribute, elem: Attribute) -> Attribute:
    """``typ`` with its element type replaced (a scalar: ``elem`` itself).

    Memoised on the two objects (building a ``TensorType`` costs about 15 us, and a kernel
    derives the same mask or loaded type many times): equal inputs give one shared object."""
    if not (type(typ) is TensorType or isinstance(typ, TensorType)):
        return elem
    key = (id(typ), id(elem))
    hit = _DERIVED.get(key)
    if hit is not None:
        return hit[2]
    # (the parameters of a tensor type that verified, with another element type: built
    # without xDSL's parameter checks, which cost most of the 15 us)
    derived = unchecked(TensorType, typ.shape, elem, typ.encoding) if UNCHECKED else TensorType(
        elem, typ.get_shape(), typ.encoding)
    if len(_DERIVED) > 8192:
        _DERIVED.clear()
    _DERIVED[key] = (typ, elem, derived)  # (both kept alive: their ids stay their own)
    return derived


_DERIVED: dict[tuple[int, int], tuple[Attribute, Attribute, Attribute]] = {}
UNCHECKED = True  # (off: TensorType's checking constructor; tests compare the two)


def same(a: Attribute, b: Attribute) -> bool:
    """Type (or attribute) equality, short-cut on identity (the reader shares one object per
    type text), and memoised on the two objects: xDSL compares two parametrized attributes
    parameter by parameter, a Python call a level (a scalar type and a tensor's element type
    are two objects, compared by every ``tt.splat`` of them).  The hottest callers test
    identity themselves first (``a is b or same(a, b)``: a call spared)."""
    if a is b:
        return True
    key = (id(a), id(b))
    hit = _SAME.get(key)
    if hit is not None:
        return hit[2]
    equal = a == b
    if len(_SAME) > 8192:
        _SAME.clear()
    _SAME[key] = (a, b, equal)  # (both kept alive: their ids stay their own)
    return equal


_SAME: dict[tuple[int, int], tuple[Attribute, Attribute, bool]] = {}


def forget_equalities_and_shapes() -> None:
    """Empty the memos of :func:`same` and :func:`shape_of` (ttopt.ir.verify.forget_types)."""
    _SAME.clear()
    _SHAPES.clear()


def shape_of(t: Attribute) -> tuple[int, ...] | None:
    """The shape of a ranked tensor/vector; None for anything else (memoised per type
    object: the reader shares one object per type text)."""
    hit = _SHAPES.get(id(t))
    if hit is not None:
        return hit[1]
    shape = t.get_shape() if isinstance(t, TensorType | VectorType) else None
    if len(_SHAPES) > 8192:
        _SHAPES.clear()
    _SHAPES[id(t)] = (t, shape)  # (the type is kept alive: its id stays its own)
    return shape


_SHAPES: dict[int, tuple[Attribute, tuple[int, ...] | None]] = {}


def encoding_of(t: Attribute) -> Attribute | None:
    """A ranked tensor's encoding (layout); None if it has none or is not a tensor."""
    if type(t) is TensorType or _is_tensor(t):
        enc = t.encoding
        if type(enc) is NoneAttr:
            return None
        found = _NONE_CLASSES.get(type(enc))
        if found is None:
            found = _learn(_NONE_CLASSES, enc, NoneAttr)
        return None if found else enc
    return None


def same_encoding(a: Attribute, b: Attribute) -> bool:
    """Triton's ``verifySameEncoding``: only two tensors that both have an encoding can
    disagree."""
    ea, eb = encoding_of(a), encoding_of(b)
    return ea is None or eb is None or ea is eb or same(ea, eb)


def i1_same_shape(t: Attribute, c: Attribute) -> bool:
    """Is ``c`` MLIR's ``getI1SameShape(t)``: ``i1`` for a scalar, else ``t`` with ``i1``
    elements (same shape and encoding)?"""
    if type(t) is TensorType or _is_tensor(t):
        return (
            (type(c) is TensorType or _is_tensor(c))
            and _is_i1(c.element_type)
            and shape_of(c) == shape_of(t)
            and (c.encoding is t.encoding or same(c.encoding, t.encoding))
        )
    if isinstance(t, VectorType):
        return isinstance(c, VectorType) and _is_i1(c.element_type) and c.shape == t.shape
    return _is_i1(c)


def _is_i1(t: Attribute) -> bool:
    return t is _I1 or (_signless(t) and t.width.data == 1)


def is_float(t: Attribute) -> bool:
    return _float(t)


def is_signless_int(t: Attribute) -> bool:
    return _signless(t)


def int_width(t: Attribute) -> int | None:
    return t.width.data if isinstance(t, IntegerType) else None


def bit_width(t: Attribute) -> int | None:
    """Bit width of an integer or float type (None for anything else)."""
    if type(t) is IntegerType or _is_integer(t):
        return t.width.data
    if _float(t):
        return t.bitwidth  # type: ignore[attr-defined]
    return None


def is_pointer(t: Attribute) -> bool:
    if type(t) is _POINTER:
        return True
    found = _POINTER_CLASSES.get(type(t))
    return _learn(_POINTER_CLASSES, t, _POINTER) if found is None else found


class _NotYet:  # replaced by PointerType when ttopt.dialects.tt_attrs is imported
    pass


_POINTER: type = _NotYet


def register_pointer_type(cls: type) -> None:
    """``tt_attrs`` registers ``!tt.ptr`` here (it imports this module, not the reverse)."""
    global _POINTER
    _POINTER = cls
    _POINTER_CLASSES.clear()


@dataclass(frozen=True)
class TypeKind(AttrConstraint):
    """Base: ``ok(type)`` decides; ``DESCRIPTION`` names the accepted types."""

    DESCRIPTION: ClassVar[str] = "a type"

    def ok(self, t: Attribute) -> bool:  # pragma: no cover - overridden
        return True

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        if not self.ok(attr):
            raise VerifyException(self.message(attr))

    def message(self, attr: Attribute) -> str:
        return f"must be {self.DESCRIPTION}, but got '{attr}'"

    def mapping_type_vars(self, type_var_mapping):  # no type variables inside
        return self


@dataclass(frozen=True)
class FloatLike(TypeKind):
    """MLIR's ``FloatLike``: a float, or a tensor/vector of floats."""

    DESCRIPTION: ClassVar[str] = "floating-point-like"

    def ok(self, t: Attribute) -> bool:
        e = t.element_type if type(t) is TensorType else _elem(t)
        return type(e) in _FLOAT_SET or _float(e)


@dataclass(frozen=True)
class SignlessIntegerLike(TypeKind):
    """MLIR's ``SignlessIntegerOrIndexLike``: a signless integer or index, or a container of
    them."""

    DESCRIPTION: ClassVar[str] = "signless-integer-like"

    def ok(self, t: Attribute) -> bool:
        t = t.element_type if type(t) is TensorType else _elem(t)
        if type(t) is IntegerType:  # (the common case, without the calls below)
            return t.signedness.data == Signedness.SIGNLESS
        return _signless(t) or isinstance(t, IndexType)


@dataclass(frozen=True)
class SignlessFixedWidthIntegerLike(TypeKind):
    """MLIR's ``SignlessFixedWidthIntegerLike`` (casts): no index."""

    DESCRIPTION: ClassVar[str] = "signless-fixed-width-integer-like"

    def ok(self, t: Attribute) -> bool:
        e = t.element_type if type(t) is TensorType else _elem(t)
        if type(e) is IntegerType:  # (the common case, without the call below)
            return e.signedness.data == Signedness.SIGNLESS
        return _signless(e)


@dataclass(frozen=True)
class BoolLike(TypeKind):
    """``i1``, or a tensor/vector of ``i1``."""

    description: str = "bool-like"

    def message(self, attr: Attribute) -> str:
        return f"must be {self.description}, but got '{attr}'"

    def ok(self, t: Attribute) -> bool:
        e = t.element_type if type(t) is TensorType else _elem(t)
        return e is _I1 or _is_i1(e)


@dataclass(frozen=True)
class TTIntLike(TypeKind):
    """Triton's ``TT_IntLike``: a signless integer or a tensor of them (no index)."""

    DESCRIPTION: ClassVar[str] = "integer or ranked tensor of integer values"

    def ok(self, t: Attribute) -> bool:
        return _tt_int(t.element_type if type(t) is TensorType else _tensor_elem(t))

    def message(self, attr: Attribute) -> str:
        return f"must be {_described(self.DESCRIPTION)}, but got '{attr}'"


@dataclass(frozen=True)
class TTI64Like(TypeKind):
    """Triton's ``TT_I64Like``."""

    DESCRIPTION: ClassVar[str] = (
        "64-bit signless integer or tensor of 64-bit signless integer values"
    )

    def ok(self, t: Attribute) -> bool:
        t = _tensor_elem(t)
        return _signless(t) and t.width.data == 64


@dataclass(frozen=True)
class TTFloatLike(TypeKind):
    """Triton's ``TT_FloatLike``: a float or a tensor of floats."""

    DESCRIPTION: ClassVar[str] = "floating-point or ranked tensor of floating-point values"

    def ok(self, t: Attribute) -> bool:
        return _tt_float(_tensor_elem(t))

    def message(self, attr: Attribute) -> str:
        return f"must be {_described(self.DESCRIPTION)}, but got '{attr}'"


@dataclass(frozen=True)
class TTPtrLike(TypeKind):
    """Triton's ``TT_PtrLike``: a pointer or a tensor of pointers."""

    DESCRIPTION: ClassVar[str] = "ptr or ranked tensor of ptr values"

    def ok(self, t: Attribute) -> bool:
        e = t.element_type if type(t) is TensorType else _tensor_elem(t)
        return type(e) is _POINTER or is_pointer(e)


@dataclass(frozen=True)
class TTLoadPtr(TypeKind):
    """What ``tt.load``/``tt.store`` address: ``TT_PtrLike`` or a pointer to a tensor."""

    DESCRIPTION: ClassVar[str] = "ptr or ranked tensor of ptr values or ptr"

    def ok(self, t: Attribute) -> bool:
        e = t.element_type if type(t) is TensorType else _tensor_elem(t)
        return type(e) is _POINTER or is_pointer(e)


# Triton's TT_Float and TT_Int, release by release (asked of each release's Triton, 2.1 to
# 3.9: test_element_types): the element types every release takes, and those only some take
# (a float type of no release, f8E4M3 or tf32, is refused; f8E4M3B11FNUZ by 3.x, i4 before
# 3.2)
_TT_FLOATS = frozenset({
    BFloat16Type, Float16Type, Float32Type, Float64Type, Float8E4M3FNUZType, Float8E5M2Type,
})
_TT_FLOATS_OF: dict[type, tuple] = {
    Float8E4M3FNType: (((2, 2), (2, 3)), ((3, 2), versions.NEWEST)),
    Float8E5M2FNUZType: (((3, 0), versions.NEWEST),),
    Float8E4M3B11FNUZType: ((versions.OLDEST, (2, 3)),),
}
_TT_INT_WIDTHS = frozenset({1, 8, 16, 32, 64})
_I4_RELEASES = (((3, 2), versions.NEWEST),)


def _tt_float(t: Attribute) -> bool:
    """A ``TT_Float`` of a release the text may come from (:func:`versions.taken`)."""
    cls = type(t)
    if cls in _TT_FLOATS:
        return True
    ranges = _TT_FLOATS_OF.get(cls)
    return ranges is not None and versions.taken(ranges)


def _tt_int(t: Attribute) -> bool:
    """A ``TT_Int``: signless, of 1, 8, 16, 32 or 64 bits (4: Triton 3.2+)."""
    if not (type(t) is IntegerType or _is_integer(t)):
        return False
    if t.signedness.data != Signedness.SIGNLESS:
        return False
    width = t.width.data
    return width in _TT_INT_WIDTHS or (width == 4 and versions.taken(_I4_RELEASES))


def _tt_element(t: Attribute) -> bool:
    """A ``TT_Float``, a ``TT_Int`` or a pointer (the common types first: one set lookup)."""
    cls = type(t)
    if cls in _TT_FLOATS or cls is _POINTER:
        return True
    if cls is IntegerType:  # (_tt_int, without the call)
        if t.signedness.data != Signedness.SIGNLESS:
            return False
        width = t.width.data
        return width in _TT_INT_WIDTHS or (width == 4 and versions.taken(_I4_RELEASES))
    if _is_integer(t):
        return _tt_int(t)
    if is_pointer(t):
        return True
    ranges = _TT_FLOATS_OF.get(cls)
    return ranges is not None and versions.taken(ranges)


def _described(words: str) -> str:
    """Triton 3.x's words for a ``TT_`` constraint as the release being checked says them:
    2.x says "tensor of" where 3.x says "ranked tensor of"."""
    if versions.checked_release() >= (3, 0):
        return words
    return words.replace("ranked tensor of", "tensor of")


@dataclass(frozen=True)
class TTTensor(TypeKind):
    """A ranked tensor of Triton's ``TT_Tensor`` (of ``TT_Float``, ``TT_Int`` or pointer
    elements)."""

    DESCRIPTION: ClassVar[str] = "ranked tensor of floating-point or integer or ptr values"

    def ok(self, t: Attribute) -> bool:
        return (type(t) is TensorType or _is_tensor(t)) and _tt_element(
            t.element_type
        )

    def message(self, attr: Attribute) -> str:
        if versions.checked_release() >= (3, 0):
            return super().message(attr)
        return ("must be tensor of floating-point values or tensor of integer values or "
                f"tensor of ptr values, but got '{attr}'")


@dataclass(frozen=True)
class TTIntTensor(TypeKind):
    """Triton's ``TT_IntTensor`` (``tt.make_range``'s result): a ranked tensor of integers."""

    DESCRIPTION: ClassVar[str] = "ranked tensor of integer values"

    def ok(self, t: Attribute) -> bool:
        return (type(t) is TensorType or _is_tensor(t)) and (
            type(t.element_type) is IntegerType or _is_integer(t.element_type)
        )

    def message(self, attr: Attribute) -> str:
        if versions.checked_release() >= (3, 0):
            return super().message(attr)
        return f"must be tensor of integer values, but got '{attr}'"


@dataclass(frozen=True)
class TTType(TypeKind):
    """Triton's ``TT_Type``: ``TT_FloatLike``, ``TT_IntLike`` or ``TT_PtrLike`` (a float,
    a signless integer or a pointer, or a ranked tensor of them; a pointer to a tensor is
    a pointer)."""

    DESCRIPTION: ClassVar[str] = (
        "floating-point or ranked tensor of floating-point values or integer or ranked "
        "tensor of integer values or ptr or ranked tensor of ptr values or ptr"
    )

    def ok(self, t: Attribute) -> bool:
        return _tt_element(t.element_type if type(t) is TensorType else _tensor_elem(t))

    def message(self, attr: Attribute) -> str:
        words = _described(self.DESCRIPTION)
        if versions.checked_release() >= (3, 8):  # (3.8 no longer names the tensor pointer)
            words = words.removesuffix(" or ptr")
        return f"must be {words}, but got '{attr}'"


_RELEASES_2 = ((versions.OLDEST, (2, 3)),)


@dataclass(frozen=True)
class TTTensorFrom3(TypeKind):
    """``tt.broadcast``'s operand and result: Triton 3.x's ``TT_Tensor``, 2.x's ``TT_Type``
    (a scalar too)."""

    def ok(self, t: Attribute) -> bool:
        if type(t) is TensorType or _is_tensor(t):
            return _tt_element(t.element_type)
        return _tt_element(t) and versions.taken(_RELEASES_2)

    def message(self, attr: Attribute) -> str:
        if versions.checked_release() >= (3, 0):
            return TTTensor().message(attr)
        return TTType().message(attr)


@dataclass(frozen=True)
class SignlessIntegerOrIndex(TypeKind):
    """A scalar signless integer or index (``scf.for`` bounds)."""

    DESCRIPTION: ClassVar[str] = "signless integer or index"

    def ok(self, t: Attribute) -> bool:
        return _signless(t) or isinstance(t, IndexType)


@dataclass(frozen=True)
class ExactType(TypeKind):
    """Exactly ``TYPE`` (e.g. ``i1``, ``i32``).  A declarative format infers it: an operand
    of this constraint needs no ``type(...)`` directive (``Variadic<I32>:$indices``)."""

    type: Attribute
    description: str

    def ok(self, t: Attribute) -> bool:
        return t is self.type or t == self.type

    def message(self, attr: Attribute) -> str:
        return f"must be {self.description}, but got '{attr}'"

    def can_infer(self, var_constraint_names) -> bool:
        return True

    def infer(self, context) -> Attribute:
        return self.type


@dataclass(frozen=True)
class TypeOfClass(TypeKind):
    """A type of one class, as MLIR's type definitions constrain an operand
    (``TTG_MemDescType``: ``memory descriptor type (...) in Triton IR type system``)."""

    cls: type
    description: str

    def ok(self, t: Attribute) -> bool:
        return type(t) is self.cls or isinstance(t, self.cls)

    def message(self, attr: Attribute) -> str:
        return f"must be {self.description}, but got '{attr}'"


@dataclass(frozen=True)
class I32Cases(AttrConstraint):
    """Triton's ``I32EnumAttr`` properties (``TT_PaddingOptionAttr``): a 32-bit signless
    integer, one of ``cases``."""

    cases: tuple[int, ...]

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        from xdsl.dialects.builtin import IntegerAttr, i32

        if not (isinstance(attr, IntegerAttr) and attr.type == i32
                and attr.value.data in self.cases):
            raise VerifyException(self.description)

    @property
    def description(self) -> str:
        return "allowed 32-bit signless integer cases: " + ", ".join(map(str, self.cases))

    def get_bases(self):
        from xdsl.dialects.builtin import IntegerAttr

        return {IntegerAttr}

    def mapping_type_vars(self, type_var_mapping):
        return self


@dataclass(frozen=True)
class I32AtMost(AttrConstraint):
    """``ConfinedAttr<I32Attr, [IntNonNegative, IntMaxValue<N>]>`` (``ttng.tensormap_create``'s
    modes): a 32-bit signless integer from 0 to ``maximum``; anything else is refused with
    the constraint's one description."""

    maximum: int

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        from xdsl.dialects.builtin import IntegerAttr, i32

        if not (isinstance(attr, IntegerAttr) and attr.type == i32
                and 0 <= attr.value.data <= self.maximum):
            raise VerifyException(self.description)

    @property
    def description(self) -> str:
        return ("32-bit signless integer attribute whose value is non-negative whose maximum "
                f"value is {self.maximum}")

    def get_bases(self):
        from xdsl.dialects.builtin import IntegerAttr

        return {IntegerAttr}

    def mapping_type_vars(self, type_var_mapping):
        return self


def parse_time_constraints(parser, cls, at: int, props: dict) -> None:
    """MLIR's generated parser of a custom-form op checks its inherent attributes as it reads
    them (``verifyInherentAttrs``, the dictionary's names in order): the first that breaks
    its constraint is "custom op 'NAME' 'NAME' op attribute ..." at the dictionary (``at``)."""
    from xdsl.irdl.constraints import VerificationContext

    defs = cls.get_irdl_definition().properties
    for name in sorted(props):
        d = defs.get(name)
        if d is not None:
            try:
                d.constr.verify(props[name], VerificationContext())
            except VerifyException as e:
                parser.raise_error(f"custom op '{cls.name}' '{cls.name}' op attribute '{name}' "
                                   f"failed to satisfy constraint: {e}", at, at + 1)


def require_tensormap_ranks(op, got: str = "Got ") -> None:
    """``TensormapCreateOp::verify`` (and 3.2 - 3.3's ``ExperimentalTensormapCreateOp``): the
    operand groups have the box's rank (one stride fewer); MLIR's ``emitError`` (3.2 wrote
    ``Got1``: ``got``)."""
    from .base import PlainVerifyException

    rank = len(op.box_dim)
    for what, n, want in (("global dim", len(op.global_dim), rank),
                          ("global stride", len(op.global_stride), rank - 1),
                          ("element stride", len(op.element_stride), rank)):
        if n != want:
            raise PlainVerifyException(f"Rank mismatch for {what}. {got}{n} but expected {want}")


@dataclass(frozen=True)
class I32Enum(AttrConstraint):
    """An ``I32EnumAttr`` property whose cases differ by release (``TT_CacheModifierAttr``:
    1 - 6 up to 3.1, 1 - 7 from 3.2): ``width`` checks the kind and width (its message),
    then the value must be a case of a release the text may come from (``cases``: (first,
    last, the cases), contiguous; a release after the last has no such property: any
    value)."""

    width: AttrConstraint
    cases: tuple[tuple[tuple[int, int], tuple[int, int], frozenset[int]], ...]

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        try:
            self.width.verify(attr, constraint_context)
        except VerifyException:
            if versions.checked_span()[1] > self.cases[-1][1]:
                return  # (a plain attribute there: any value)
            raise VerifyException(self.description) from None  # (MLIR's one message)
        value = attr.value.data  # type: ignore[attr-defined]
        if all(value in c for _, _, c in self.cases):
            return
        low, high = versions.checked_span()
        if high > self.cases[-1][1] or any(
            value in c and first <= high and low <= last for first, last, c in self.cases
        ):
            return
        raise VerifyException(self.description)

    @property
    def description(self) -> str:
        """The cases of the release being verified (its ODS summary)."""
        release = versions.checked_release()
        shown = next((c for first, last, c in self.cases if first <= release <= last),
                     self.cases[-1][2])
        return "allowed 32-bit signless integer cases: " + ", ".join(map(str, sorted(shown)))

    def get_bases(self):
        return self.width.get_bases()

    def mapping_type_vars(self, type_var_mapping):
        return self


@dataclass(frozen=True)
class DictArray(AttrConstraint):
    """MLIR's ``DictArrayAttr`` (``tt.call``'s ``arg_attrs``): an array of dictionaries."""

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr

        if not (isinstance(attr, ArrayAttr)
                and all(isinstance(a, DictionaryAttr) for a in attr.data)):
            raise VerifyException("Array of dictionary attributes")

    def get_bases(self):
        from xdsl.dialects.builtin import ArrayAttr

        return {ArrayAttr}

    def mapping_type_vars(self, type_var_mapping):
        return self


# ------------------------------------------------------------------- per-release properties
@dataclass(frozen=True)
class InReleases(AttrConstraint):
    """The constraint of a property only Triton ``first`` to ``last`` define (``tt.call``'s
    ``arg_attrs``: 3.3+): it binds where every release the text may come from
    (:func:`ttopt.dialects.versions.checked_span`) defines the property; in another, the
    name is a plain attribute, and any value goes."""

    constr: AttrConstraint
    first: tuple[int, int]
    last: tuple[int, int]

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        try:
            self.constr.verify(attr, constraint_context)
        except VerifyException:
            low, high = versions.checked_span()
            if self.first <= low and high <= self.last:
                raise

    def variables(self) -> set[str]:
        return self.constr.variables()

    def get_bases(self):
        return self.constr.get_bases()

    def mapping_type_vars(self, type_var_mapping):
        return self


def in_releases(constr, first: tuple[int, int], last: tuple[int, int] | None = None) -> InReleases:
    """:class:`InReleases` of ``constr`` (an attribute class or a constraint); ``last``:
    the newest release by default."""
    from xdsl.irdl import irdl_to_attr_constraint

    return InReleases(irdl_to_attr_constraint(constr), first, last or versions.NEWEST)


# ------------------------------------------------------------------- shared rules
# The relations between an op's types that several ops check, raising VerifyException with
# MLIR's wording (the verifier adds the `'op.name' op` prefix).


def require_same_element_type(s: Attribute, r: Attribute) -> None:
    """``SameOperandsAndResultElementType`` for one operand and one result."""
    es, er = element_type(s), element_type(r)
    if es is not er and not same(es, er):
        raise VerifyException("requires the same element type for all operands and results")


def require_same_encoding(s: Attribute, r: Attribute) -> None:
    """``SameOperandsAndResultEncoding`` for one operand and one result."""
    if not same_encoding(s, r):
        raise VerifyException("requires the same encoding for all operands and results")


def require_elementwise_shapes(*types: Attribute) -> None:
    """Triton's ``Elementwise`` + ``SameOperandsAndResultShape`` for one-value ops: scalars
    only, or tensors of one shape."""
    shapes = {t.get_shape() if isinstance(t, TensorType) else None for t in types}
    if len(shapes) > 1:
        raise VerifyException("all non-scalar operands/results must have the same shape")


def require_inferred_shape(want: tuple[int, ...], rt: Attribute) -> None:
    """The result shape an op's type inference gives (``InferTypeOpInterface``)."""
    if shape_of(rt) != want:
        raise VerifyException(
            f"inferred type(s) with shape {list(want)} are incompatible with return type(s) "
            f"of operation '{rt}'"
        )


__all__ = [
    "first",
    "with_element",
    "element_type",
    "same",
    "shape_of",
    "encoding_of",
    "same_encoding",
    "i1_same_shape",
    "is_float",
    "is_signless_int",
    "int_width",
    "bit_width",
    "is_pointer",
    "TypeKind",
    "FloatLike",
    "SignlessIntegerLike",
    "SignlessFixedWidthIntegerLike",
    "BoolLike",
    "TTIntLike",
    "TTI64Like",
    "TTFloatLike",
    "TTIntTensor",
    "TTPtrLike",
    "TTLoadPtr",
    "TTTensor",
    "SignlessIntegerOrIndex",
    "ExactType",
    "TypeOfClass",
    "I32Cases",
    "I32Enum",
    "DictArray",
    "InReleases",
    "in_releases",
    "require_same_element_type",
    "require_same_encoding",
    "require_elementwise_shapes",
    "require_inferred_shape",
]
