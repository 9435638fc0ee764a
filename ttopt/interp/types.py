"""Types of the interpreter: what an IR type becomes in numpy.

Every IR type is mapped once (memoised on the type object) to a :class:`TypeInfo`:

* scalars and tensors of integers and floats: numpy arrays (0-d for scalars) of
  :attr:`Elem.dtype` -- ``i1`` is ``bool``, ``iN`` (N = 8/16/32/64, and ``index`` = 64) is
  numpy's *signed* ``intN`` (MLIR integers are signless: ops that read them as unsigned view
  them as ``uintN``), ``f16``/``f32``/``f64`` numpy's, ``bf16`` and the ``f8`` types
  ``ml_dtypes``';
* pointers (``!tt.ptr<T>`` and tensors of them): :class:`~ttopt.interp.values.Ptr`;
* ``!ttg.memdesc<...>``: :class:`~ttopt.interp.values.SharedBuf` (a numpy array);
* ``!ttg.async.token`` and other tokens: ``None``.

Types are read generically (by name and parameters, or by their text), never through
ttopt's dialect classes, so that a refactoring of those does not break the interpreter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import IndexType, IntegerType, TensorType


class InterpTypeError(Exception):
    """A type the interpreter does not support (turned into an InterpError at the op)."""


@dataclass(frozen=True)
class Elem:
    """An element type: ``kind`` is ``"int"``, ``"float"`` or ``"ptr"``."""

    kind: str
    name: str  # "i32", "f16", "ptr"
    width: int  # bits (64 for a pointer)
    dtype: np.dtype  # storage dtype of values (int64 offsets for pointers)
    size: int  # bytes in memory (i1: 1)
    pointee: "Elem | None" = None  # for pointers
    udtype: np.dtype | None = None  # unsigned view (ints)
    sdtype: np.dtype | None = None  # signed view (ints; i1 -> int8 with values 0/-1)

    @property
    def is_int(self) -> bool:
        return self.kind == "int"

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_ptr(self) -> bool:
        return self.kind == "ptr"

    @property
    def is_bool(self) -> bool:
        return self.kind == "int" and self.width == 1

    def __str__(self) -> str:
        return f"!tt.ptr<{self.pointee}>" if self.kind == "ptr" else self.name


@dataclass(frozen=True)
class TypeInfo:
    """``kind``: ``"scalar"``, ``"tensor"``, ``"memdesc"``, ``"token"``, ``"blockptr"``,
    ``"tensordesc"``; ``shape``: the tensor's (block's, buffer's) shape."""

    kind: str
    shape: tuple[int, ...]
    elem: Elem | None


_INT_DTYPES = {
    8: (np.dtype(np.int8), np.dtype(np.uint8)),
    16: (np.dtype(np.int16), np.dtype(np.uint16)),
    32: (np.dtype(np.int32), np.dtype(np.uint32)),
    64: (np.dtype(np.int64), np.dtype(np.uint64)),
}

FLOAT_DTYPES = {
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "f8E4M3FN": np.dtype(ml_dtypes.float8_e4m3fn),
    "f8E5M2": np.dtype(ml_dtypes.float8_e5m2),
    "f8E4M3FNUZ": np.dtype(ml_dtypes.float8_e4m3fnuz),
    "f8E5M2FNUZ": np.dtype(ml_dtypes.float8_e5m2fnuz),
    "f8E4M3B11FNUZ": np.dtype(ml_dtypes.float8_e4m3b11fnuz),
    "f8E4M3": np.dtype(ml_dtypes.float8_e4m3),
}


def int_elem(width: int) -> Elem:
    if width == 1:
        return Elem("int", "i1", 1, np.dtype(np.bool_), 1, None, np.dtype(np.uint8), np.dtype(np.int8))
    if width not in _INT_DTYPES:
        raise InterpTypeError(f"integer width i{width} is not supported (only i1, i8, i16, i32, i64)")
    s, u = _INT_DTYPES[width]
    return Elem("int", f"i{width}", width, s, width // 8, None, u, s)


def float_elem(name: str) -> Elem:
    dt = FLOAT_DTYPES[name]
    return Elem("float", name, dt.itemsize * 8, dt, dt.itemsize)


def ptr_elem(pointee: Elem) -> Elem:
    return Elem("ptr", "ptr", 64, np.dtype(np.int64), 8, pointee)


I1 = int_elem(1)
I32 = int_elem(32)
I64 = int_elem(64)
F32 = float_elem("f32")
F64 = float_elem("f64")

_cache: dict = {}


def elem_of_scalar_type(t) -> Elem:
    """The :class:`Elem` of a scalar (non-tensor) IR type."""
    if isinstance(t, IntegerType):
        return int_elem(t.width.data)
    if isinstance(t, IndexType):
        return int_elem(64)
    name = getattr(t, "name", "")
    if name in FLOAT_DTYPES:
        return float_elem(name)
    if name == "tt.ptr":
        pointee = t.parameters[0]
        if isinstance(pointee, TensorType):
            raise InterpTypeError("block pointers (!tt.ptr<tensor<...>>) are not supported")
        return ptr_elem(elem_of_scalar_type(pointee))
    text = str(t)
    if text in FLOAT_DTYPES:
        return float_elem(text)
    m = re.fullmatch(r"i(\d+)", text)
    if m:
        return int_elem(int(m.group(1)))
    raise InterpTypeError(f"type {text} is not supported")


_MEMDESC = re.compile(r"!ttg\.memdesc<((?:\d+x)*)([^,>]+)")


def type_info(t) -> TypeInfo:
    """Memoised :class:`TypeInfo` of an IR type."""
    try:
        return _cache[t]
    except KeyError:
        pass
    except TypeError:  # unhashable: compute every time
        return _type_info(t)
    info = _type_info(t)
    _cache[t] = info
    return info


def _type_info(t) -> TypeInfo:
    if isinstance(t, TensorType):
        shape = tuple(int(d) for d in t.get_shape())
        if any(d < 0 for d in shape):
            raise InterpTypeError(f"dynamic shape {t} is not supported")
        return TypeInfo("tensor", shape, elem_of_scalar_type(t.element_type))
    name = getattr(t, "name", "")
    if name == "tt.ptr" and isinstance(t.parameters[0], TensorType):
        inner = t.parameters[0]
        return TypeInfo("blockptr", tuple(int(d) for d in inner.get_shape()), elem_of_scalar_type(inner.element_type))
    if name == "ttg.memdesc" or str(t).startswith("!ttg.memdesc<"):
        m = _MEMDESC.match(str(t))
        if not m:
            raise InterpTypeError(f"cannot read memdesc type {t}")
        dims = tuple(int(d) for d in m.group(1).split("x") if d)
        return TypeInfo("memdesc", dims, elem_of_scalar_type_text(m.group(2).strip()))
    if name == "tt.tensordesc" or str(t).startswith("!tt.tensordesc<"):
        m = re.match(r"!tt\.tensordesc<tensor<((?:\d+x)*)([^,>]+)", str(t))
        if not m:
            raise InterpTypeError(f"cannot read tensor descriptor type {t}")
        dims = tuple(int(d) for d in m.group(1).split("x") if d)
        return TypeInfo("tensordesc", dims, elem_of_scalar_type_text(m.group(2).strip()))
    if "token" in name or str(t).endswith(".token"):
        return TypeInfo("token", (), None)
    return TypeInfo("scalar", (), elem_of_scalar_type(t))


def elem_of_scalar_type_text(text: str) -> Elem:
    if text in FLOAT_DTYPES:
        return float_elem(text)
    m = re.fullmatch(r"i(\d+)", text)
    if m:
        return int_elem(int(m.group(1)))
    if text == "index":
        return int_elem(64)
    raise InterpTypeError(f"element type {text} is not supported")


def elem_of(t) -> Elem:
    """The element type of a scalar/tensor/memdesc IR type."""
    info = type_info(t)
    if info.elem is None:
        raise InterpTypeError(f"type {t} has no element type")
    return info.elem
