"""Runtime values that are not plain numpy arrays: pointers and shared-memory buffers."""

from __future__ import annotations

import numpy as np

from .types import Elem

# ptr_to_int / int_to_ptr: the integer value of a pointer is (buffer + 1) << ADDR_SHIFT plus the
# byte offset (offsets are kept within +-2**(ADDR_SHIFT-1)); 0 is the null pointer.
ADDR_SHIFT = 40


class Ptr:
    """A pointer or a tensor of pointers: ``base`` (int32, the index of the pointer argument
    the pointer derives from; -1 for a pointer made from an integer that is no argument's) and
    ``off`` (int64 byte offsets), arrays of one shape; ``elem`` is the pointee type."""

    __slots__ = ("base", "off", "elem")

    def __init__(self, base, off, elem: Elem):
        self.base = np.asarray(base, dtype=np.int32)
        self.off = np.asarray(off, dtype=np.int64)
        if self.base.shape != self.off.shape:
            self.base = np.broadcast_to(self.base, self.off.shape)
        self.elem = elem

    @property
    def shape(self):
        return self.off.shape

    def map(self, fn) -> "Ptr":
        """Apply a shape function (reshape, broadcast, take ...) to both components."""
        return Ptr(fn(self.base), fn(self.off), self.elem)

    def to_int(self) -> np.ndarray:
        return np.where(self.base < 0, self.off, ((self.base.astype(np.int64) + 1) << ADDR_SHIFT) + self.off)

    @staticmethod
    def from_int(addr, elem: Elem) -> "Ptr":
        addr = np.asarray(addr).astype(np.int64)
        base = ((addr + (1 << (ADDR_SHIFT - 1))) >> ADDR_SHIFT) - 1
        off = addr - ((base + 1) << ADDR_SHIFT)
        return Ptr(base.astype(np.int32), off, elem)

    def __repr__(self) -> str:
        return f"Ptr(base={self.base!r}, off={self.off!r}, elem={self.elem})"


class SharedBuf:
    """A shared-memory buffer (``!ttg.memdesc``): ``arr`` is a numpy array (or a view of
    another buffer's array, for ``memdesc_index``/``subslice``/``trans``)."""

    __slots__ = ("arr",)

    def __init__(self, arr: np.ndarray):
        self.arr = arr

    def __repr__(self) -> str:
        return f"SharedBuf(shape={self.arr.shape}, dtype={self.arr.dtype})"


def fmap(fn, v):
    """Apply a shape-only function to a value (arrays and pointers alike)."""
    if isinstance(v, Ptr):
        return v.map(fn)
    return fn(v)


class BlockPtr:
    """A block pointer (``tt.make_tensor_ptr``): a scalar base :class:`Ptr`, the tensor's
    ``shape`` and ``strides`` (elements), the block's ``offsets`` and its ``block`` shape."""

    __slots__ = ("base", "shape", "strides", "offsets", "block", "elem")

    def __init__(self, base: Ptr, shape, strides, offsets, block, elem: Elem):
        self.base, self.shape, self.strides = base, list(shape), list(strides)
        self.offsets, self.block, self.elem = list(offsets), tuple(block), elem

    def advanced(self, deltas) -> "BlockPtr":
        offs = [int(np.int32(np.int64(o) + int(d))) for o, d in zip(self.offsets, deltas)]
        return BlockPtr(self.base, self.shape, self.strides, offs, self.block, self.elem)

    def lanes(self, check_dims):
        """(Ptr of the block's elements, in-bounds mask over ``check_dims`` or None)."""
        off = np.zeros(self.block, np.int64)
        mask = None
        for d, n in enumerate(self.block):
            idx = self.offsets[d] + np.arange(n, dtype=np.int64)
            shp = [1] * len(self.block)
            shp[d] = n
            idx = idx.reshape(shp)
            off = off + idx * self.strides[d]
            if d in check_dims:
                ok = (idx >= 0) & (idx < self.shape[d])
                mask = ok if mask is None else (mask & ok)
        if mask is not None:
            mask = np.broadcast_to(mask, self.block)
        p = Ptr(np.broadcast_to(self.base.base, self.block), self.base.off + off * self.elem.size, self.elem)
        return p, mask


class TensorDesc:
    """A tensor descriptor (``tt.make_tensor_descriptor``): base, shape, strides (elements) and
    the block shape of its loads/stores."""

    __slots__ = ("base", "shape", "strides", "block", "elem")

    def __init__(self, base: Ptr, shape, strides, block, elem: Elem):
        self.base, self.shape, self.strides, self.block, self.elem = base, list(shape), list(strides), tuple(block), elem

    def at(self, indices) -> BlockPtr:
        lead = len(self.shape) - len(self.block)
        block = (1,) * lead + self.block
        return BlockPtr(self.base, self.shape, self.strides, list(indices), block, self.elem)
