"""Floating-point contraction (``fadd(fmul(a, b), c) -> fma(a, b, c)``) as Triton 3.6 compiles a
kernel for an NVIDIA GPU: which ``arith.addf``/``arith.subf`` of a kernel the GPU computes as
one fused multiply-add.  Used by the interpreter when ``fp_contract=True``.

What the GPU does (Triton 3.6, sm_90; checked on the CPU by compiling probe kernels to PTX and
SASS, see bench/results/h100-interp/README.md):

* Triton compiles with ``enable_fp_fusion=True`` by default (``TRITON_DEFAULT_FP_FUSION``):
  LLVM's NVPTX backend runs with ``AllowFPOpFusion = Fast`` and ptxas with ``--fmad=true``.
  Triton's own LLVM IR carries no fast-math flags, so no other rewrite (reassociation, ...)
  is allowed: contraction is the only one.
* LLVM's SelectionDAG combiner (``visitFADDForFMACombine``/``visitFSUBForFMACombine``; NVPTX
  asks for *aggressive* fusion) rewrites, for f16, bf16, f32 and f64 alike,
  ``a*b + c`` and ``c + a*b`` to ``fma(a, b, c)``, ``a*b - c`` to ``fma(a, b, -c)``,
  ``c - a*b`` to ``fma(-a, b, c)``, and ``-(a*b) + c`` likewise -- whatever else uses the
  product (the product is still computed, rounded, for those other uses).  When both operands
  are products, the one with fewer remaining uses is fused, the left one on a tie; the
  combiner visits the additions of a block last to first, and each fusion removes one use.
* It does so within one basic block only.  Ops that emit no instruction -- ``tt.splat``,
  ``tt.broadcast``, ``tt.expand_dims`` (the same registers) -- are looked through; anything
  else between the product and the sum (``arith.select``, ``ttg.convert_layout``,
  ``arith.extf``, a block argument, a load) stops it.  LLVM moves code between blocks first:
  a product whose operands are all defined outside the loop that contains it is hoisted out
  of the loop (LICM) and is no longer fused with a sum inside it; a product used only inside
  one branch of an ``scf.if`` of its block is sunk into that branch (InstCombine) and fused
  there.
* ptxas (``--fmad=true``) may contract a remaining ``mul.f32``/``add.f32`` pair; in the PTX of
  every kernel of the GPU sample none is left, and a product hoisted out of a loop stays a
  separate ``FMUL`` in the SASS (ptxas does not undo LICM).
* A reduction (``tt.reduce`` with a one-``addf`` combiner) whose operand is a product fuses in
  its within-thread part: with ``reduce_order="gpu"`` (see :mod:`ttopt.interp.reduce_order`)
  the interpreter computes ``acc = fma(a_i, b_i, acc)`` there too.

Not modelled: if-conversion of a small ``scf.if`` into selects (which would put a product
before the ``if`` and a sum inside it in one block), and the exact use counts of the
SelectionDAG (per element, after layout lowering) when both operands of a sum are products
-- here the uses of the IR value, with an operand seen through splat/broadcast counted once.
A rewrite of ttopt can change what LLVM contracts (moving a product into another block,
say); comparing two versions with ``fp_contract=True`` on both sides shows such a change.
"""

from __future__ import annotations

from dataclasses import dataclass, field

LOOPS = frozenset({"scf.for", "scf.while"})
# ops lowered to no instruction: the operand's registers are reused as they are
TRANSPARENT = frozenset({"tt.splat", "tt.broadcast", "tt.expand_dims"})
# ops LLVM's LICM may hoist out of a loop (pure, speculatable, no regions)
_HOISTABLE = frozenset({"tt.splat", "tt.broadcast", "tt.expand_dims", "tt.make_range", "tt.addptr",
                        "tt.get_program_id", "tt.get_num_programs", "tt.bitcast", "tt.int_to_ptr",
                        "tt.ptr_to_int"})
ADDS = frozenset({"arith.addf", "arith.subf"})


@dataclass
class ProductRef:
    """A product ``a*b`` reaching a sum: the ``arith.mulf``, whether it is negated
    (``arith.negf`` on the way) and the shape ops between it and the sum (in order)."""

    mul: object
    neg: bool = False
    chain: list = field(default_factory=list)


@dataclass
class Fused:
    """``op`` (an addf/subf) computed as ``fma(±a, b, ±c)``: ``prod`` is the fused product,
    ``c`` the other operand, ``neg_c`` whether it is subtracted."""

    op: object
    prod: ProductRef
    c: object
    neg_c: bool


def _is_float_op(op) -> bool:
    t = op.results[0].type
    elem = getattr(t, "element_type", t)
    return getattr(elem, "name", "") in ("f16", "bf16", "f32", "f64")


class Contraction:
    """The contraction decisions for every op of a module (computed once)."""

    def __init__(self, module):
        self._home: dict = {}
        self.fused: dict = {}
        self._live: dict = {}
        adds = [op for op in module.walk() if op.name in ADDS and _is_float_op(op)]
        for op in reversed(adds):  # the DAG combiner visits a block's sums last to first
            f = self._decide(op)
            if f is not None:
                self.fused[op] = f
                self._live[f.prod.mul] -= 1

    # ------------------------------------------------------------- where LLVM puts an op
    def home(self, op):
        """The block an op ends up in after LLVM's LICM and sinking (an MLIR block)."""
        h = self._home.get(op)
        if h is None:
            h = self._home[op] = self._compute_home(op)
        return h

    def _compute_home(self, op):
        blk = op.parent_block()
        hoisted = self._hoist(op, blk)
        if hoisted is not blk:
            return hoisted
        return self._sink(op, blk)

    def _hoist(self, op, blk):
        """Hoist a pure op out of every enclosing loop it is invariant in."""
        if not (op.name.startswith(("arith.", "math.")) or op.name in _HOISTABLE) or op.regions:
            return blk
        where = blk
        loop = _enclosing_loop(where)
        while loop is not None and self._invariant(op, loop):
            where = loop.parent_block()
            loop = _enclosing_loop(where)
        return where

    def _invariant(self, op, loop, depth=0) -> bool:
        if depth > 64:
            return False
        for v in op.operands:
            owner = v.owner
            if not hasattr(owner, "regions"):  # a block argument
                if loop.is_ancestor(owner):
                    return False
                continue
            if not loop.is_ancestor(owner):
                continue
            if not (owner.name.startswith(("arith.", "math.")) or owner.name in _HOISTABLE) or owner.regions:
                return False
            if not self._invariant(owner, loop, depth + 1):
                return False
        return True

    def _sink(self, op, blk):
        """A product used only inside one branch of an scf.if of its block moves there."""
        if op.name not in ("arith.mulf", "arith.negf"):
            return blk
        users = real_users(op.results[0])
        if not users:
            return blk
        target = None
        for u in users:
            ub = u.parent_block()
            while ub is not None and ub is not blk:
                parent = ub.parent_op()
                if parent is not None and parent.name == "scf.if" and parent.parent_block() is blk:
                    break
                ub = parent.parent_block() if parent is not None else None
            if ub is None or ub is blk:
                return blk
            if target is None:
                target = ub
            elif target is not ub:
                return blk
        return target

    # ------------------------------------------------------------- products and decisions
    def product(self, value, home) -> ProductRef | None:
        """The product that ``value`` is (seen through splat/broadcast/expand_dims and
        negations) if LLVM would see it in block ``home``; None otherwise."""
        neg = False
        chain = []
        for _ in range(64):
            owner = value.owner
            name = getattr(owner, "name", None)
            if name is None or not hasattr(owner, "regions"):
                return None
            if name in TRANSPARENT:
                chain.append(owner)
                value = owner.operands[0]
                continue
            if name == "arith.negf" and self.home(owner) is home:
                neg = not neg
                value = owner.operands[0]
                continue
            if name == "arith.mulf" and self.home(owner) is home:
                return ProductRef(owner, neg, list(reversed(chain)))
            return None
        return None

    def _uses(self, mul) -> int:
        n = self._live.get(mul)
        if n is None:
            n = self._live[mul] = len(real_users(mul.results[0]))
        return n

    def _decide(self, op) -> Fused | None:
        home = self.home(op)
        lhs, rhs = op.operands
        pl, pr = self.product(lhs, home), self.product(rhs, home)
        if pl is not None and pr is not None and self._uses(pl.mul) > self._uses(pr.mul):
            pl = None  # the one with fewer uses; the left one on a tie
        sub = op.name == "arith.subf"
        if pl is not None:
            self._uses(pl.mul)
            return Fused(op, pl, rhs, sub)  # a*b + c, a*b - c
        if pr is not None:
            self._uses(pr.mul)
            if sub:  # c - a*b = fma(-a, b, c)
                pr = ProductRef(pr.mul, not pr.neg, pr.chain)
            return Fused(op, pr, lhs, False)
        return None


def _enclosing_loop(blk):
    """The innermost scf.for/scf.while whose body (through scf.if regions) holds ``blk``."""
    while blk is not None:
        parent = blk.parent_op()
        if parent is None:
            return None
        if parent.name in LOOPS:
            return parent
        if parent.name not in ("scf.if", "scf.execute_region"):
            return None
        blk = parent.parent_block()
    return None


def real_users(value) -> list:
    """The ops using ``value``, looking through ops that emit no instruction."""
    out = []
    stack = [value]
    seen = 0
    while stack and seen < 10000:
        v = stack.pop()
        for use in v.uses:
            seen += 1
            u = use.operation
            if u.name in TRANSPARENT:
                stack.extend(u.results)
            else:
                out.append(u)
    return out


# ------------------------------------------------------------------ reductions of selected products
_INT_ARITH = frozenset({"arith.addi", "arith.subi", "arith.muli", "arith.cmpi", "arith.extsi", "arith.extui",
                        "arith.trunci", "arith.divsi", "arith.remsi", "arith.divui", "arith.remui", "arith.shli",
                        "arith.shrsi", "arith.shrui", "arith.index_cast"})
_BOOL_OPS = frozenset({"arith.andi", "arith.ori", "arith.xori"})
_LAYOUT_OPS = frozenset({"tt.broadcast", "ttg.convert_layout"})


def _shape(v):
    t = v.type
    return tuple(int(d) for d in t.get_shape()) if hasattr(t, "get_shape") else ()


def _is_constant(v) -> bool:
    op = v.owner
    name = getattr(op, "name", None)
    if name == "arith.constant":
        return True
    if name in ("tt.splat", "tt.broadcast", "tt.expand_dims", "ttg.convert_layout"):
        return _is_constant(op.operands[0])
    return False


def mask_kind(v, axis: int, depth: int = 0) -> str:
    """How a mask (or an integer feeding one) varies along ``axis``, as LLVM sees its
    per-element values: ``"const"``; ``"uniform"`` (one value for the whole axis: splat,
    broadcast of a size-1 axis); ``"folded"`` (a function of the axis index and constants only
    -- LLVM canonicalises each element's compare from known bits, so equal values are one
    value); ``"opaque"`` (anything else, e.g. an index compared with a runtime bound: one value
    per element)."""
    if depth > 200:
        return "opaque"
    if _is_constant(v):
        return "const"
    shape = _shape(v)
    if not shape or (axis < len(shape) and shape[axis] == 1):
        return "uniform"
    op = v.owner
    name = getattr(op, "name", None)
    if name is None or not hasattr(op, "regions"):
        return "opaque"
    if name == "tt.splat":
        return "uniform"
    if name == "tt.make_range":
        return "folded"
    if name == "tt.expand_dims":
        ax = int(op.properties["axis"].value.data)
        return mask_kind(op.operands[0], axis - (ax < axis), depth + 1) if ax != axis else "uniform"
    if name in _LAYOUT_OPS:
        return mask_kind(op.operands[0], axis, depth + 1)
    kinds = [mask_kind(o, axis, depth + 1) for o in op.operands]
    if "opaque" in kinds:
        return "opaque"
    if all(k in ("const", "uniform") for k in kinds):
        return "uniform" if "uniform" in kinds else "const"
    if name in _BOOL_OPS:
        return "folded"
    if name in _INT_ARITH and "uniform" not in kinds:
        return "folded"
    return "opaque"


@dataclass
class SelectedProduct:
    """The operand of a ``tt.reduce`` is ``select(cond, product, constant)`` (either arm):
    LLVM merges the within-thread sums of selects on one condition value,
    ``select(c, a, k) + select(c, b, k') -> select(c, a + b, k + k')`` (InstCombine, each
    select used once), and the sum of products then contracts.  ``mode``: ``"uniform"`` (the
    condition is one value along the axis: every element merges) or ``"folded"`` (elements
    merge while their condition equals the first one's for every lane and warp)."""

    select: object
    cond: object
    prod: ProductRef
    const: object
    prod_is_true: bool
    mode: str


def selected_product(contraction: Contraction, reduce_op, axis: int) -> SelectedProduct | None:
    v = reduce_op.operands[0]
    sel = v.owner
    if getattr(sel, "name", None) != "arith.select" or len(list(v.uses)) != 1:
        return None
    home = contraction.home(reduce_op)
    if contraction.home(sel) is not home:
        return None
    cond, t, f = sel.operands
    for arm, other, is_true in ((t, f, True), (f, t, False)):
        if not _is_constant(other):
            continue
        prod = contraction.product(arm, home)
        if prod is None:
            continue
        kind = mask_kind(cond, axis)
        if kind in ("const", "uniform"):
            return SelectedProduct(sel, cond, prod, other, is_true, "uniform")
        if kind == "folded":
            return SelectedProduct(sel, cond, prod, other, is_true, "folded")
        return None
    return None
