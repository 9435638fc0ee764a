"""Global memory without buffer sizes: pseudo-random initial contents plus a write overlay.

A pointer is (buffer, byte offset), the buffer being the index of the kernel's pointer argument
it derives from (:class:`~ttopt.interp.values.Ptr`).  No buffer has a size: any offset, negative
ones included, can be read.

**Initial contents.**  Memory never written holds deterministic pseudo-random values, a function
of ``(seed, argument index, element index)`` only: element ``j`` of argument ``a`` -- the bytes
``[j*S, (j+1)*S)`` where ``S`` is the size of the argument's declared pointee type -- is
``splitmix64(j + key(seed, a))`` turned into a value of that type:

* floats (f16/bf16/f32/f64/f8): uniform in ``InitModel.float_range`` (default ``[-2, 2)``), so
  loads give finite, moderate values (never NaN/inf from random bits);
* integers: uniform in ``InitModel.int_range`` (default ``[-4, 16)``), small enough to be used
  as indices and to keep products in range; ``i1``: 0 or 1.

A load through a pointer of another type (a bitcast pointer) or at an offset that is not a
multiple of ``S`` reads the same bytes reinterpreted, so every byte of memory has one defined
initial value.

**Overlay.**  Stores and atomics write bytes into pages (64 KiB, allocated on first write) of a
per-argument overlay, each byte with a "written" flag and the id of the op that wrote it last;
loads read the initial bytes patched with the overlay.  A run's result is the overlay: every
byte address written, its final value and its writer (:meth:`Memory.written`).

All of it is numpy-vectorised over the accessed elements; Python loops run only over the
distinct buffers and pages one access touches.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .types import Elem

PAGE_BITS = 16
PAGE_SIZE = 1 << PAGE_BITS
PAGE_MASK = PAGE_SIZE - 1

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def splitmix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64's output function of ``x + golden`` (vectorised, wrapping uint64)."""
    with np.errstate(over="ignore"):
        z = np.asarray(x, dtype=np.uint64) + _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        return z ^ (z >> np.uint64(31))


def stream_key(seed: int, *parts: int) -> np.uint64:
    """A 64-bit key for a stream of values: hash of the seed and the parts (argument index ...)."""
    k = splitmix64(np.uint64(seed & 0xFFFFFFFFFFFFFFFF))
    for p in parts:
        k = splitmix64(k ^ np.uint64(p & 0xFFFFFFFFFFFFFFFF))
    return np.uint64(k)


@dataclass(frozen=True)
class InitModel:
    """How initial memory and unspecified scalar arguments are drawn (all ranges half-open).

    * ``float_range``: values of float memory and float scalar arguments;
    * ``int_range``: values of integer memory;
    * ``numel_range``: integer scalar arguments whose name says they are a size
      (``numel_pattern``: ``xnumel``, ``r0_numel``, ``n_elements``, ``n``, ``M``, ``N``, ``K``,
      ``ks0``, ``size`` ...) -- small, so that loops over them are short;
    * ``int_arg_range``: other integer scalar arguments (strides, offsets, seeds);
    * an argument with ``tt.divisibility = D`` is rounded up to a multiple of ``D``.
    """

    float_range: tuple[float, float] = (-2.0, 2.0)
    int_range: tuple[int, int] = (-4, 16)
    numel_range: tuple[int, int] = (64, 4097)
    int_arg_range: tuple[int, int] = (1, 65)
    numel_pattern: str = r"(?i).*numel.*|n_elements|n|m|k|ks\d+|.*size.*|.*_len|n_.*|num_.*"


def random_values(key: np.uint64, idx: np.ndarray, elem: Elem, model: InitModel) -> np.ndarray:
    """Values of type ``elem`` for the element indices ``idx`` of the stream ``key``."""
    with np.errstate(over="ignore"):
        h = splitmix64(np.asarray(idx).astype(np.int64).view(np.uint64) ^ key)
    if elem.kind == "float":
        lo, hi = model.float_range
        u = (h >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))
        return (lo + (hi - lo) * u).astype(elem.dtype)
    if elem.kind == "int":
        if elem.width == 1:
            return (h >> np.uint64(63)).astype(np.bool_)
        lo, hi = model.int_range
        v = (h % np.uint64(max(hi - lo, 1))).astype(np.int64) + lo
        return v.astype(elem.dtype)
    raise MemoryError_(f"memory holding {elem} has no defined initial contents")


class MemoryError_(Exception):
    """An access the memory model cannot serve (turned into an InterpError at the op)."""


class _Page:
    __slots__ = ("data", "written", "writer")

    def __init__(self):
        self.data = np.zeros(PAGE_SIZE, np.uint8)
        self.written = np.zeros(PAGE_SIZE, np.bool_)
        self.writer = np.full(PAGE_SIZE, -1, np.int32)


def to_bytes(values: np.ndarray, elem: Elem) -> np.ndarray:
    """(n,) values -> (n, size) uint8."""
    if elem.width == 1 and elem.kind == "int":
        return np.asarray(values).astype(np.uint8).reshape(-1, 1)
    v = np.ascontiguousarray(values, dtype=elem.dtype).reshape(-1)
    return v.view(np.uint8).reshape(-1, elem.size)


def from_bytes(b: np.ndarray, elem: Elem) -> np.ndarray:
    """(n, size) uint8 -> (n,) values."""
    if elem.width == 1 and elem.kind == "int":
        return b[:, 0] != 0
    return np.ascontiguousarray(b).reshape(-1).view(elem.dtype)


class Memory:
    """The global memory of one run: ``arg_elems[a]`` is the declared pointee type of pointer
    argument ``a`` (``None`` for non-pointer arguments)."""

    def __init__(self, seed: int, model: InitModel, arg_elems: list[Elem | None]):
        self.seed = seed
        self.model = model
        self.arg_elems = arg_elems
        self.keys = [stream_key(seed, 0x6D656D, a) for a in range(len(arg_elems))]
        self.pages: dict[int, dict[int, _Page]] = {}

    # ------------------------------------------------------------------ initial contents
    def _arg_elem(self, arg: int) -> Elem:
        if arg < 0 or arg >= len(self.arg_elems) or self.arg_elems[arg] is None:
            raise MemoryError_("access through a pointer that derives from no pointer argument")
        return self.arg_elems[arg]

    def initial_values(self, arg: int, elem_index: np.ndarray) -> np.ndarray:
        """The initial values of argument ``arg`` at the given element indices (of its
        declared pointee type)."""
        return random_values(self.keys[arg], elem_index, self._arg_elem(arg), self.model)

    def _initial_bytes(self, arg: int, off: np.ndarray, size: int) -> np.ndarray:
        aelem = self._arg_elem(arg)
        es = aelem.size
        if size == es and not np.any(off % es):
            return to_bytes(self.initial_values(arg, off // es), aelem).copy()
        addrs = off[:, None] + np.arange(size, dtype=np.int64)
        j = addrs // es
        k = addrs - j * es
        uj, inv = np.unique(j, return_inverse=True)
        vb = to_bytes(self.initial_values(arg, uj), aelem)
        return vb[inv.reshape(j.shape), k]

    # ------------------------------------------------------------------ access
    def read(self, base: np.ndarray, off: np.ndarray, elem: Elem) -> np.ndarray:
        """Load ``elem`` values at the (1-d) addresses ``(base, off)``."""
        n = off.shape[0]
        if n == 0:
            return np.zeros(0, elem.dtype)
        if elem.kind == "ptr":
            raise MemoryError_("loading pointers from memory is not supported")
        args = np.unique(base)
        if args.shape[0] == 1:
            return self._read_arg(int(args[0]), off, elem)
        out = np.zeros(n, elem.dtype)
        for a in args:
            sel = base == a
            out[sel] = self._read_arg(int(a), off[sel], elem)
        return out

    def _read_arg(self, arg: int, off: np.ndarray, elem: Elem) -> np.ndarray:
        aelem = self._arg_elem(arg)
        pages = self.pages.get(arg)
        if not pages and aelem == elem and not np.any(off % elem.size):
            return self.initial_values(arg, off // elem.size)
        b = self._initial_bytes(arg, off, elem.size)
        if pages:
            addrs = (off[:, None] + np.arange(elem.size, dtype=np.int64)).reshape(-1)
            flat = b.reshape(-1)
            pg = addrs >> PAGE_BITS
            inpage = addrs & PAGE_MASK
            upg = np.unique(pg)
            for p in upg:
                page = pages.get(int(p))
                if page is None:
                    continue
                if upg.shape[0] == 1:
                    idx = inpage
                    w = page.written[idx]
                    flat[w] = page.data[idx[w]]
                else:
                    sel = np.nonzero(pg == p)[0]
                    idx = inpage[sel]
                    w = page.written[idx]
                    flat[sel[w]] = page.data[idx[w]]
        return from_bytes(b, elem)

    def write(self, base: np.ndarray, off: np.ndarray, elem: Elem, values: np.ndarray, writer: int) -> None:
        """Store ``values`` (1-d, of ``elem``) at the (1-d) addresses; lanes in order, so the
        last of several lanes writing one address wins."""
        if off.shape[0] == 0:
            return
        if elem.kind == "ptr":
            raise MemoryError_("storing pointers to memory is not supported")
        args = np.unique(base)
        for a in args:
            a = int(a)
            self._arg_elem(a)
            if args.shape[0] == 1:
                o, v = off, values
            else:
                sel = base == a
                o, v = off[sel], values[sel]
            b = to_bytes(v, elem).reshape(-1)
            addrs = (o[:, None] + np.arange(elem.size, dtype=np.int64)).reshape(-1)
            pages = self.pages.setdefault(a, {})
            pg = addrs >> PAGE_BITS
            inpage = addrs & PAGE_MASK
            upg = np.unique(pg)
            for p in upg:
                page = pages.get(int(p))
                if page is None:
                    page = pages[int(p)] = _Page()
                if upg.shape[0] == 1:
                    idx, bb = inpage, b
                else:
                    sel = pg == p
                    idx, bb = inpage[sel], b[sel]
                page.data[idx] = bb
                page.written[idx] = True
                page.writer[idx] = writer

    # ------------------------------------------------------------------ result
    def written(self) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """``{arg: (byte offsets (sorted int64), bytes (uint8), writer ids (int32))}`` of
        every byte written."""
        out = {}
        for a, pages in sorted(self.pages.items()):
            offs, data, writers = [], [], []
            for p in sorted(pages):
                page = pages[p]
                idx = np.nonzero(page.written)[0]
                if idx.shape[0] == 0:
                    continue
                offs.append(idx.astype(np.int64) + (p << PAGE_BITS))
                data.append(page.data[idx])
                writers.append(page.writer[idx])
            if offs:
                out[a] = (np.concatenate(offs), np.concatenate(data), np.concatenate(writers))
        return out
