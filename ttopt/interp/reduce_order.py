"""The order in which Triton 3.6 combines the elements of a ``tt.reduce`` on an NVIDIA GPU, from
the operand's layout: used by the interpreter when ``reduce_order="gpu"``.

Triton lowers ``tt.reduce`` (``lib/Conversion/TritonGPUToLLVM/ReduceOpToLLVM.cpp``) in three
stages, each calling the combiner region as ``combine(acc, other)``:

1. within a thread: the thread's registers that hold distinct elements, in register order, are
   folded from left to right, ``acc = combine(acc, x[r])`` (one accumulator per position of the
   other dimensions);
2. within a warp: a butterfly over the lanes that hold the axis, ``acc = combine(acc,
   shfl_xor(acc, N))`` for ``N = lanes/2, lanes/4, ..., 1``;
3. across warps: each warp's partial goes to shared memory, then a butterfly over the warps
   (as in 2, ``N = warps/2 ... 1``) in one warp.

For a ``#ttg.blocked`` layout (or a ``#ttg.slice`` of one) and a reduced axis of ``n`` (a power
of two) elements, element ``x`` of the axis is held in register ``s`` of lane ``t`` of warp ``w``
(repetition ``r`` when the tensor is larger than the layout's tile):
``x = s + S*(t + T*(w + W*r))`` with ``S = min(sizePerThread, n)``, ``T = min(threadsPerWarp,
n/S)``, ``W = min(warpsPerCTA, n/(S*T))``, ``R = n/(S*T*W)`` (the layout's bits beyond ``n``
hold copies, which Triton skips).  The result is, in lane 0's view (the lane whose value is
kept): fold over ``(r, s)`` in increasing ``x``, then pairwise ``t`` with ``t + T/2`` halving,
then ``w`` with ``w + W/2`` halving.  For commutative combiners every lane gets the same bits.

Other layouts (``#ttg.nvidia_mma``, ``#ttg.linear`` ...), TTIR without layouts, and axes that
are not a power of two keep the interpreter's plain pairwise tree (:func:`plan` returns None).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_BLOCKED = re.compile(r"#ttg\.blocked<\{(.*)\}>\Z", re.S)
_SLICE = re.compile(r"#ttg\.slice<\{\s*dim\s*=\s*(\d+)\s*,\s*parent\s*=\s*(.*)\}>\Z", re.S)


@dataclass(frozen=True)
class Plan:
    """The reduced axis as ``(R, W, T, S)``: ``x = s + S*(t + T*(w + W*r))``."""

    R: int
    W: int
    T: int
    S: int


def _list(body: str, key: str) -> list[int] | None:
    m = re.search(key + r"\s*=\s*\[([^\]]*)\]", body)
    if m is None:
        return None
    return [int(x) for x in m.group(1).split(",") if x.strip()]


def axis_layout(encoding: str, axis: int, aliases: dict | None = None) -> tuple[int, int, int] | None:
    """``(sizePerThread, threadsPerWarp, warpsPerCTA)`` of dimension ``axis`` of a tensor with
    this encoding (text), or None for a layout other than blocked/slice-of-blocked.
    ``aliases``: ``{"#blocked1": attribute or text}`` for a slice's parent written as an alias."""
    text = encoding.strip()
    for _ in range(16):
        if text.startswith("#") and aliases and text in aliases:
            text = str(aliases[text]).strip()
            continue
        m = _SLICE.match(text)
        if m is None:
            break
        dim = int(m.group(1))
        axis = axis if axis < dim else axis + 1
        text = m.group(2).strip()
    m = _BLOCKED.match(text)
    if m is None:
        return None
    body = m.group(1)
    spt, tpw, wpc = _list(body, "sizePerThread"), _list(body, "threadsPerWarp"), _list(body, "warpsPerCTA")
    if spt is None or tpw is None or wpc is None or not axis < min(len(spt), len(tpw), len(wpc)):
        return None
    return spt[axis], tpw[axis], wpc[axis]


def _pow2(x: int) -> bool:
    return x > 0 and x & (x - 1) == 0


def plan(tensor_type, axis: int, aliases: dict | None = None) -> Plan | None:
    """The GPU's reduction structure for ``tt.reduce`` over ``axis`` of ``tensor_type``
    (``aliases``: the module's attribute aliases, for a slice layout's parent)."""
    enc = getattr(tensor_type, "encoding", None)
    if enc is None or not hasattr(tensor_type, "get_shape"):
        return None
    shape = tuple(int(d) for d in tensor_type.get_shape())
    if not 0 <= axis < len(shape):
        return None
    lay = axis_layout(str(enc), axis, aliases)
    if lay is None:
        return None
    n = shape[axis]
    spt, tpw, wpc = lay
    if not all(_pow2(v) for v in (n, spt, tpw, wpc)):
        return None
    S = min(spt, n)
    T = min(tpw, n // S)
    W = min(wpc, n // (S * T))
    return Plan(n // (S * T * W), W, T, S)
