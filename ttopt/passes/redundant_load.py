"""``redundant-load``: remove a ``tt.load`` that repeats an earlier one.

Inductor emits loads of one address that differ only in ``evictionPolicy`` (or
``cacheModifier``); MLIR's CSE compares all attributes and keeps both, so both reach the PTX
as separate ``ld.global``.  This pass replaces a later load B by what an earlier load A
already read.  Definitions used below:

* **A is available at B** when A's value can be used at B and no write can have changed the
  bytes A read between A and B.  A's value can be used at B when A dominates B (same block,
  or B inside regions nested in A's block after A), or through a *join* (below).  Writers:
  stores, atomics, volatile loads, calls, non-pure inline asm / extern calls,
  ``tt.print``/``tt.assert``, barriers, any op with unknown effects, including such ops
  nested in regions between them (a region op is as pure as everything inside it).  A
  writer removes every available load, except a ``tt.store`` (also one nested in a region
  between A and B) whose bytes are *proven disjoint* from A's (option
  ``disjoint-stores``, below).  If B is inside a region that runs many times (``scf.for`` /
  ``scf.while`` bodies, the combiners of ``tt.reduce``/``tt.scan``, the body of
  ``tt.map_elementwise``) that does not contain A, every writer anywhere in that op must let
  A through, since a later invocation runs after it.
* **Same address**: the pointers have one value number (:mod:`ttopt.analysis.value_numbering`:
  ``p + r`` computed twice is one value; equal constants defined twice are one value;
  ``fastmath<none>`` is no flag), the same result type, ``boundaryCheck`` and ``padding``.
  Neither load is volatile, neither uses ``cacheModifier = cv`` (which asks to re-fetch
  every time); B's masks and ``other`` are compared by value number too.

The rewrites, for B and an available A at the same address:

1. **identical** / **value-numbered**: the same mask (or both none) and the same ``other``
   (or both none; or B has none and A's is a constant zero -- see "no other" below), or
   masks that imply each other and the same ``other``: B is replaced by A.
2. **implied-mask** (option ``implied-masks``): B's mask ``mB`` implies A's mask ``mA``
   lane by lane, proven by :mod:`ttopt.analysis.masks` (the same mask; ``m1 & m2`` against
   ``m1``; ``v < c`` against ``v < d`` with constants ``c <= d``; an unmasked A).  Every lane
   where ``mB`` is true is a lane A read from memory (``mA`` true there), the same bytes B
   reads; the other lanes of B are its ``other``.  So B becomes
   ``arith.select mB, A, otherB`` (for an unmasked B, A must be unmasked or all-true, and B
   becomes A).  A's lanes where ``mA`` is false (A's own ``other``) are never selected.
3. **if-join** (option ``joins``): B follows an ``scf.if`` (with no write between), and
   both the ``then`` and the ``else`` branch end with a load available at the same address
   with the same mask and ``other`` (or one branch's load dominates the ``if``).  The ``if``
   gets one more result, each branch yields its load's value, and B is replaced by that
   result: whichever branch ran, that result is what B would read.
4. **while** (option ``joins``): B is at the start of an ``scf.while``'s ``after`` region
   (no write before it in that region) and a load available at the ``scf.condition`` of the
   ``before`` region reads the same address (``after``'s arguments are known equal to what
   ``scf.condition`` forwards in the same iteration).  The loaded value is forwarded as one
   more ``scf.condition`` operand (one more ``after`` argument and ``while`` result), and B
   is replaced by that argument: within one iteration, nothing writes between the two.

**No other.**  A masked load without ``other`` leaves masked-off lanes unspecified in
Triton's semantics; Triton 3.6 lowers it with zero there (``mov.u32 %r, 0x0`` before the
predicated ``ld.global``; checked on sm_90 PTX), and ttopt's interpreter reads zero.  So B
without ``other`` may be replaced by an A whose ``other`` is a constant zero of its type
(0 bits: ``+0.0``, never ``-0.0``), never the other way round, and rule 2 selects a
constant zero (an ``arith.constant`` inserted before B) for such a B.

**Disjoint stores** (option ``disjoint-stores``): a ``tt.store`` through ``q`` lets A
(through ``p``) stay available when :func:`ttopt.analysis.addresses.disjoint` proves that no
byte is touched by both: ``p`` and ``q`` are ``tt.addptr`` of one scalar base pointer (by
value number) with offsets of one integer width whose lanes are one lane-uniform part plus
lane intervals (``tt.make_range``, constants, multiples by constants) that do not
intersect, within spans where ``i32``/``i64`` wrapping cannot bring them together; masks
are not needed (a masked-off lane writes nothing, counting it is conservative).  Anything
else (another base, a loaded index, a block pointer, an atomic) blocks as before.

**Bounded** (:data:`MAX_ENTRIES`): at most 8 loads of one address (one load key) are
available at a time.  When one more would be, the least recently used is forgotten (the one
longest neither added nor the source of a merge; the others keep the order they were added
in, which rules 1 and 2 try them in), as if a writer had removed it.  So a load is compared
with at most 8 others, and the pass is linear in the loads however many masks one address
is read under (unbounded, n loads of one address under n unrelated masks made n**2/2 mask
implication checks: 4,000 such loads took 88 s).  The price: a load whose match was pushed
out (by 8 loads of its address under other masks since the match was added or last merged
into) stays a load.  No kernel of the corpus ever has more than one load of an address
available at a load.

With the option ``respect-hints=true``, A and B must also have the same ``cacheModifier``
and ``evictionPolicy``.  Options ``value-numbering``, ``implied-masks``, ``disjoint-stores``
and ``joins`` (all true by default) switch the corresponding extension off: with all four
false the pass merges only loads of the same SSA pointer, mask and ``other`` with no writer
at all in between, as its first version did.

Kept attributes: A keeps its own ``cacheModifier`` and ``evictionPolicy``, with one change:
if B asked for ``evict_last`` and A did not, A gets ``evict_last``, unless A has a cache
modifier (ptxas rejects ``evict_last`` with ``.ca``/``.cg``); through a join, each branch's
load.  Triton lowers ``evict_last`` to an L1 hint plus an L2 ``evict_last`` policy: the line
a later pass re-reads keeps its L2 priority.  Measured on an H100 (bench/results/h100-tune,
the hint suite): keeping A's ``evict_first`` was 0.94x-0.98x of the unmerged kernel, giving
A ``evict_last`` 1.017x-1.032x; registers and SASS otherwise identical.  Merging never
caused spills (registers drop or stay: bench/results/h100-tune/rl_regs.md).

Statistics: loads removed per function (``--stats``); :class:`LoadStats` also counts them
per rewrite (``per_kind``: ``identical``, ``value-numbered``, ``implied-mask``, ``if-join``,
``while``; and, overlapping those, ``past-disjoint-store`` for merges that a disjoint store
would have blocked before).

Why not xDSL's CSE pieces: its ``KnownOps`` keys an op by all its properties, the hints
included, which are the very difference this pass looks through; the key here leaves them
out, compares operands by value number, and the writer rules above reach into nested
regions.  Both passes and xDSL's ``cse`` see one memory model: the effects each ttopt op
declares (:mod:`ttopt.analysis.effects`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import count
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue

from ..analysis.addresses import AddressAnalysis
from ..analysis.effects import WriteCache
from ..analysis.masks import MaskImplication
from ..analysis.value_numbering import ValueNumbering
from ..analysis.writers import stores_only
from ..dialects.arith import ConstantOp, SelectOp
from ..dialects.base import int_attr, segment_sizes
from ..dialects.scf import ConditionOp, ForOp, IfOp, WhileOp, YieldOp
from ..dialects.tt import LoadOp, MapElementwiseOp, ReduceOp, ScanOp, StoreOp
from ..xdsl_compat import operand_tuple, set_value_name
from .base import (
    FunctionWalkPass,
    PassStats,
    erase_op,
    forget_names,
    functions,
    kind_test,
    ops_of,
    record_stats,
    replace_value,
)

CACHE_NONE = 1
CACHE_CV = 7
EVICT_LAST = 3

# Ops whose regions may run many times: loops, and combiners/bodies run per element.
_REPEATED = (ForOp, WhileOp, ReduceOp, ScanOp, MapElementwiseOp)

# Ops through whose first operand a pointer is followed down to its root (:func:`pointer_root`):
# ``tt.addptr`` (its base) and the ops that move a pointer's lanes.
_ROOT_THROUGH = frozenset(
    {"tt.addptr", "tt.splat", "tt.broadcast", "tt.expand_dims", "ttg.convert_layout", "tt.reshape", "tt.trans"}
)
_ANY = object()  # a root that may be any other (see pointer_root)
_REPLACED = (LoadOp, IfOp, WhileOp)  # ops whose results the pass replaces
# (isinstance once per op class: op classes go through ABCMeta)
_is_load = kind_test(LoadOp)
_replaced = kind_test(_REPLACED)

POINTER_DEPTH = 4  # how deep a pointer's shape looks (value_shape)

MAX_ENTRIES = 8
"""At most this many entries are available per address (load key): when one more would be
added, the least recently used (added, or the source of a merge) is forgotten, as a writer
would remove it.  A load is compared with at most these (one mask implication check
each), so the pass is linear in the loads however many masks one address is read under."""


def load_operands(op: LoadOp) -> tuple[SSAValue, SSAValue | None, SSAValue | None]:
    """``(op.ptr, op.mask, op.other)``, as xDSL's accessors find them (indexed by the
    ``operandSegmentSizes`` property), which unpack that property at each access: here it is
    read once, memoised by its bytes (:func:`segment_sizes`)."""
    sizes = segment_sizes(op.properties["operandSegmentSizes"])
    operands = operand_tuple(op)
    mask = operands[sizes[0]] if sizes[1] else None
    other = operands[sizes[0] + sizes[1]] if sizes[2] else None
    return operands[0], mask, other


def eligible(op: LoadOp) -> bool:
    return not op.is_volatile and op.cache_modifier != CACHE_CV


def keep_evict_last(kept: LoadOp, merged: LoadOp) -> None:
    """The kept load asks to stay in cache (``evict_last``) if the merged one did, unless it
    has a cache modifier (ptxas rejects ``evict_last`` with ``.ca``/``.cg``)."""
    if (
        merged.eviction_policy == EVICT_LAST
        and kept.eviction_policy != EVICT_LAST
        and kept.cache_modifier == CACHE_NONE
    ):
        kept.properties["evict"] = int_attr(EVICT_LAST)


@dataclass
class LoadStats(PassStats):
    """:class:`PassStats` plus the rewrites per kind (``per_kind``; not in ``to_dict``)."""

    per_kind: Counter = field(default_factory=Counter)


# ---------------------------------------------------------------------------- available loads
@dataclass(frozen=True)
class Entry:
    """A load's value available at the current point: read through ``ptr`` under ``mask``
    with ``other`` (numbers ``mask_n``, ``other_n``; None: absent).  ``kind``: how it was
    obtained (a select of another load's value is ``implied-mask``).  ``value`` is an SSA value or a join not
    built yet (:class:`_IfJoin`, :class:`_Forward`).  ``loads``: the loads that read it
    (their hints may be upgraded).  ``ptr`` and ``mask`` are only analysed, never used as
    operands, so they may be values of a branch the entry was joined from."""

    ptr: SSAValue
    mask: SSAValue | None
    other: SSAValue | None
    mask_n: int | None
    other_n: int | None
    value: object
    loads: tuple[LoadOp, ...]
    kind: str = "identical"
    past_store: bool = False
    used: int = 0  # when it was added or last the source of a merge (see MAX_ENTRIES)


class _Site:
    """An op that joins may add results to; ``op`` follows its rebuilds."""

    def __init__(self, op: Operation):
        self.op = op


class _IfJoin:
    """``then``/``else`` values of one address, yielded as a new ``scf.if`` result on first use."""

    kind = "if-join"

    def __init__(self, site: _Site, then_entry: Entry, else_entry: Entry):
        self.site, self.then_entry, self.else_entry = site, then_entry, else_entry
        self.index: int | None = None

    def materialize(self, hint: str | None) -> SSAValue:
        # The result is looked up by its index on the site's *current* op: a later join at
        # the same ``scf.if`` rebuilds it again, and the results of the op built here are
        # then replaced (an SSA value kept from here would belong to an erased op).
        if self.index is None:
            v1 = resolve(self.then_entry.value, hint)
            v2 = resolve(self.else_entry.value, hint)
            op = self.site.op
            _append_terminator_operand(op.regions[0].block, v1)
            _append_terminator_operand(op.regions[1].block, v2)
            self.site.op = new = _rebuild(op, v1.type)
            self.index = len(new.results) - 1
            set_value_name(new.results[-1], hint)
        return self.site.op.results[self.index]


class _Forward:
    """A value of an ``scf.while``'s ``before`` region, forwarded to ``after`` on first use."""

    kind = "while"

    def __init__(self, site: _Site, entry: Entry):
        self.site, self.entry = site, entry
        self.result: SSAValue | None = None

    def materialize(self, hint: str | None) -> SSAValue:
        if self.result is None:
            v = resolve(self.entry.value, hint)
            op = self.site.op
            _append_terminator_operand(op.regions[0].block, v)
            after = op.regions[1].block
            arg = after.insert_arg(v.type, len(after.args))
            set_value_name(arg, hint)
            self.site.op = _rebuild(op, v.type)
            self.result = arg
        return self.result


def _appended(entries: tuple[Entry, ...], entry: Entry) -> tuple[Entry, ...]:
    """``entries`` (in the order they were added) and then ``entry``; beyond
    :data:`MAX_ENTRIES`, the least recently used of ``entries`` is dropped."""
    if len(entries) >= MAX_ENTRIES:
        stale = min(entries, key=lambda e: e.used)  # (the first of equals)
        entries = tuple(e for e in entries if e is not stale)
    return entries + (entry,)


def resolve(value, hint: str | None = None) -> SSAValue:
    return value if isinstance(value, SSAValue) else value.materialize(hint)


def _append_terminator_operand(block: Block, value: SSAValue) -> None:
    """``scf.yield``/``scf.condition`` at the end of ``block`` with ``value`` appended."""
    term = block.last_op
    assert isinstance(term, (YieldOp, ConditionOp))
    new = type(term).create(
        operands=[*term.operands, value],
        properties=dict(term.properties),
        attributes=dict(term.attributes),
        location=term.location,
    )
    block.insert_op_before(new, term)
    block.erase_op(term)


def _rebuild(op: Operation, extra: Attribute) -> Operation:
    """``op`` (``scf.if``/``scf.while``) again, with one more result of type ``extra``; its
    regions move to the new op, its results' uses to the new results."""
    regions = [op.detach_region(0) for _ in range(len(op.regions))]
    new = type(op).create(
        operands=list(op.operands),
        result_types=[*op.result_types, extra],
        properties=dict(op.properties),
        attributes=dict(op.attributes),
        regions=regions,
        location=op.location,
    )
    block = op.parent_block()
    block.insert_op_before(new, op)
    for old, res in zip(op.results, new.results):
        set_value_name(res, old.name_hint)  # exactly (the setter strips `_N`, rejects `%7`)
        old.replace_all_uses_with(res)
    forget_names(op)
    block.erase_op(op)
    return new


def _inside(value, op: Operation) -> bool:
    """Is ``value`` (an SSA value or a join) defined inside ``op``'s regions?"""
    if isinstance(value, _IfJoin):
        owner = value.site.op
    elif isinstance(value, _Forward):
        owner = value.site.op
    else:
        owner = value.owner
    cur = owner if isinstance(owner, Operation) else owner.parent_op()
    while cur is not None:
        if cur is op:
            return True
        cur = cur.parent_op()
    return False


@lru_cache(maxsize=256)  # (attributes are immutable values: one per type serves)
def _zero_attr(typ: Attribute) -> Attribute | None:
    """The attribute of a constant zero (all bits 0) of ``typ``, or None (pointers, f8 ...)."""
    elem = typ.element_type if isinstance(typ, TensorType) else typ
    try:
        if isinstance(elem, IntegerType):
            scalar: Attribute = IntegerAttr(0, elem)
            zero: int | float = 0
        elif isinstance(elem, AnyFloat):
            scalar = FloatAttr(0.0, elem)
            zero = 0.0
        else:
            return None
        if isinstance(typ, TensorType):
            return DenseIntOrFPElementsAttr.from_list(typ, [zero])
        return scalar
    except Exception:  # an element type xDSL has no constants of
        return None


# ---------------------------------------------------------------------------- what can pair
def pointer_root(ptr: SSAValue, numbering: ValueNumbering):
    """The value under ``ptr``'s ops of :data:`_ROOT_THROUGH`, by their first operands;
    ``_ANY`` where the pointer could have one value number (in ``numbering``, at any time
    of the pass's walk) with a pointer of another root.

    Two pointers with one number have one root, or one of the roots is ``_ANY``: a
    result numbered by its key has the number of a result of the same op name with
    operands of the same numbers, so down the two chains the first operands have one
    number, until a value that is not numbered by its key, whose number is its own
    (the root: one value), or another value's (an ``scf.while`` ``after`` argument,
    aliased: ``_ANY``); a value numbered by its key that is not in
    :data:`_ROOT_THROUGH` (a constant, ``arith.select`` ...) is ``_ANY``.  The values
    the pass replaces (results of loads, and of the ``scf.if``/``scf.while`` ops it
    rebuilds) are ``_ANY``: what uses them is numbered from their replacements."""
    v = ptr
    for _ in range(64):
        op, end = _keyed_op(v, numbering)
        if op is None:
            return end
        operands = operand_tuple(op)
        if op.name not in _ROOT_THROUGH or not operands:
            return _ANY
        v = operands[0]
    return _ANY  # (a chain this long: not followed to its end)


def _keyed_op(v: SSAValue, numbering: ValueNumbering):
    """``(op, None)`` where ``v`` is a result of ``op`` that ``numbering`` numbers by the
    op's key; else ``(None, end)``, what :func:`pointer_root` and :func:`value_shape` take
    ``v`` for: ``v`` itself (a number of its own), or ``_ANY`` (a value the pass replaces,
    an ``scf.while`` ``after`` argument (aliased), anything else)."""
    if type(v) is OpResult or isinstance(v, OpResult):  # (isinstance: through ABCMeta)
        op = v.op
        if _replaced(op):
            return None, _ANY
        if not numbering.structural(op):
            return None, v
        return op, None
    if isinstance(v, BlockArgument):
        return None, (_ANY if isinstance(v.block.parent_op(), WhileOp) else v)
    return None, _ANY


def value_shape(v: SSAValue, depth: int, numbering: ValueNumbering):
    """A coarse form of ``v``'s value number, ``depth`` ops down: values with one number
    have one shape, or one of the shapes is ``_ANY``.  Follows
    :meth:`ValueNumbering._key` case by case: a value that is not numbered by its key
    has a number of its own (its shape: itself); a constant, or a ``tt.splat`` of one,
    may have the number of any other constant (shape ``"const"``); any other result
    numbered by its key is the op's name, the result's index and its operands' shapes
    (two operands as a set: an integer op's may be exchanged, ``COMMUTATIVE_INT``), or,
    past ``depth``, one shape for all.  As in :func:`pointer_root`, the values the pass
    replaces, and ``scf.while`` ``after`` arguments (aliased), are ``_ANY``, and so is a
    shape with ``_ANY`` in it."""
    if depth == 0:
        return ()
    op, end = _keyed_op(v, numbering)
    if op is None:
        return end
    name = op.name
    operands = operand_tuple(op)
    if name == "arith.constant" or (
        name == "tt.splat" and any(getattr(o.owner, "name", None) == "arith.constant" for o in operands)
    ):
        return "const"
    shapes = tuple(value_shape(o, depth - 1, numbering) for o in operands)
    if any(x is _ANY for x in shapes):
        return _ANY
    return (name, v.index, frozenset(shapes) if len(shapes) == 2 else shapes)


# ---------------------------------------------------------------------------- the pass
@dataclass(frozen=True)
class RedundantLoad(FunctionWalkPass):
    """The pass; options (see the module docstring): ``respect-hints`` (default false),
    ``value-numbering``, ``implied-masks``, ``disjoint-stores``, ``joins`` (default true)."""

    name: ClassVar[str] = "redundant-load"
    summary: ClassVar[str] = (
        "replace a tt.load by what an earlier load of the same address read (eviction/cache "
        "hints aside; masks by implication, across scf.if/scf.while, past disjoint stores)"
    )

    respect_hints: bool = False
    value_numbering: bool = True
    implied_masks: bool = True
    disjoint_stores: bool = True
    joins: bool = True

    NEEDS_TWO: ClassVar[tuple[type, ...]] = (LoadOp,)  # (a load is replaced by another's value)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        stats = LoadStats(self.name)
        for func in functions(op):
            numbering = ValueNumbering(pure_ops=self.value_numbering)
            paired = self._paired_loads(func, numbering)
            if not paired:  # (no two loads could be merged: nothing to walk)
                continue
            self.begin_function(func, numbering)
            self.set_state(paired=paired)
            removed = sum(self._block(block, {}) for region in func.regions for block in region.blocks)
            if removed:
                stats.per_function[func.sym_name.data] += removed
            stats.per_kind.update(self.kinds)
        record_stats(stats)

    def begin_function(self, func, numbering: ValueNumbering | None = None) -> None:
        """The function's analyses, on ``numbering`` (a new one if None)."""
        if numbering is None:
            numbering = ValueNumbering(pure_ops=self.value_numbering)
        self.set_state(
            writes=WriteCache(),  # merging loads removes no writer: valid for the function
            numbering=numbering,
            masks=MaskImplication(numbering),
            addresses=AddressAnalysis(numbering),
            kinds=Counter(),
            clock=count(1),  # stamps of Entry.used
        )

    # ------------------------------------------------------------------ what can pair
    def _paired_loads(self, func: Operation, numbering: ValueNumbering) -> set[LoadOp]:
        """The eligible loads of ``func`` that may have one address (:meth:`_addr`) with
        another eligible load of ``func``: the only loads that can be merged or merged into.
        Empty: the pass has nothing to do in ``func``.

        Every rewrite replaces a load B by an entry of B's address, and an entry of an
        address comes only from loads of that address.  A load that no other load can share
        its address with is thus never merged, and its entry would never be looked up: the
        walk leaves it alone, without numbering its operands (value numbering is
        structural: no other value's number depends on whether these were numbered).  Two
        loads can share an address only if they have one :meth:`_shape_key` and their
        pointers one :func:`pointer_root` and one :func:`value_shape` (or one of them is
        ``_ANY``).  The pass creates no load and changes no load's shape key (of the
        properties it changes, only ``evict``, and only where the two loads already have the
        same hints), root or pointer shape, so the set, taken once before the walk, holds
        for the whole walk.  (``numbering``: the one the walk will use, asked only which ops
        it numbers by their keys.)"""
        loads = [load for load in ops_of(func, (LoadOp,)) if eligible(load)]
        if len(loads) < 2:
            return set()
        roots = {load: pointer_root(load_operands(load)[0], numbering) for load in loads}
        per_root = Counter(roots.values())
        if _ANY not in per_root:  # (a root of its own: nothing more needed)
            loads = [load for load in loads if per_root[roots[load]] > 1]
        forms: dict[LoadOp, object] = {}  # (the pointer's root and shape, or _ANY)
        groups: dict[object, list[LoadOp]] = {}
        for load in loads:
            root = roots[load]
            shape = _ANY if root is _ANY else value_shape(load_operands(load)[0], POINTER_DEPTH, numbering)
            forms[load] = _ANY if shape is _ANY else (root, shape)
            groups.setdefault(self._shape_key(load, numbering), []).append(load)
        paired: set[LoadOp] = set()
        for group in groups.values():
            if len(group) < 2:
                continue
            in_group = Counter(forms[load] for load in group)
            if _ANY in in_group:
                paired.update(group)
            else:
                paired.update(load for load in group if in_group[forms[load]] > 1)
        return paired

    # ------------------------------------------------------------------ walking
    def _block(self, block: Block, available: dict) -> int:
        """Walk ``block`` with the loads ``available`` at its start; ``available`` is updated
        in place to what is available at its end.  Returns the loads removed.

        A writer met while nothing is available has nothing to remove: its effects are not
        asked for (``available`` never holds an address with no entry)."""
        removed = 0
        paired = self.paired
        for op in list(block.ops):
            if _is_load(op) and eligible(op):
                if op in paired:  # (any other load is never merged: see _paired_loads)
                    removed += self._load(op, available)
            elif op.regions:
                removed += self._region_op(op, available)
            elif available and self.writes.may_write(op):
                self._past_writer(op, available)
        return removed

    def _region_op(self, op: Operation, available: dict) -> int:
        if isinstance(op, IfOp):
            return self._if(op, available)
        if isinstance(op, WhileOp):
            return self._while(op, available)
        survivors = self._survivors(op, available)
        inherited = survivors if isinstance(op, _REPEATED) else {}
        removed = 0
        for region in op.regions:
            for i, block in enumerate(region.blocks):
                # only the entry block is dominated by what precedes the op
                removed += self._block(block, dict(inherited) if i == 0 else {})
        available.clear()
        available.update(survivors)
        return removed

    def _if(self, op: IfOp, available: dict) -> int:
        then_region, else_region = op.regions
        then_tab = dict(available)
        removed = sum(self._block(b, then_tab if i == 0 else {}) for i, b in enumerate(then_region.blocks))
        if else_region.blocks:
            else_tab = dict(available)
            removed += sum(self._block(b, else_tab if i == 0 else {}) for i, b in enumerate(else_region.blocks))
        else:
            else_tab = available  # the condition false: the state before the op
        can_yield = all(
            len(r.blocks) == 1 and isinstance(r.blocks.first.last_op, YieldOp) for r in op.regions
        )
        joined = self._join(_Site(op), then_tab, else_tab, with_results=can_yield)
        available.clear()
        available.update(joined)
        return removed

    def _join(self, site: _Site, then_tab: dict, else_tab: dict, with_results: bool) -> dict:
        """What is available after an ``scf.if`` whose branches end with these tables."""
        out: dict = {}
        for addr, first in then_tab.items():
            second = else_tab.get(addr)
            if not second:
                continue
            kept, joined = [], set()
            for e1 in first:  # one value in both (from before the op)
                for e2 in second:
                    if e1.value is e2.value and e1.mask_n == e2.mask_n and e1.other_n == e2.other_n:
                        kept.append(replace(e1, past_store=e1.past_store or e2.past_store))
                        joined.add(id(e1))
                        break
            if self.joins and with_results:
                for e1 in first:
                    if id(e1) in joined:
                        continue
                    for e2 in second:
                        if e2.mask_n == e1.mask_n and e2.other_n == e1.other_n:
                            kept.append(
                                replace(
                                    e1,
                                    value=_IfJoin(site, e1, e2),
                                    loads=e1.loads + e2.loads,
                                    past_store=e1.past_store or e2.past_store,
                                )
                            )
                            break
            if kept:
                out[addr] = tuple(kept)
        return out

    def _while(self, op: WhileOp, available: dict) -> int:
        before, after = (list(r.blocks) for r in op.regions)
        cond = before[0].last_op if len(before) == 1 else None
        if self.joins and isinstance(cond, ConditionOp) and after:
            # `after`'s arguments are what scf.condition forwards, in the same iteration
            # (declared before anything numbers them)
            forwarded = list(cond.operands)[1:]
            if len(forwarded) == len(after[0].args):
                for arg, value in zip(after[0].args, forwarded):
                    self.numbering.alias(arg, value)
        survivors = self._survivors(op, available)
        removed = 0
        before_tab = dict(survivors)
        for i, block in enumerate(before):
            removed += self._block(block, before_tab if i == 0 else {})
        after_tab: dict = {}
        cond = before[0].last_op if len(before) == 1 else None
        if isinstance(cond, ConditionOp) and after:
            site = _Site(op)
            for addr, entries in before_tab.items():
                new = []
                for e in entries:
                    if not _inside(e.value, op):
                        new.append(e)
                    elif self.joins:
                        new.append(replace(e, value=_Forward(site, e)))
                if new:
                    after_tab[addr] = tuple(new)
        for i, block in enumerate(after):
            removed += self._block(block, after_tab if i == 0 else {})
        available.clear()
        available.update(survivors)
        return removed

    # ------------------------------------------------------------------ writers
    def _survivors(self, op: Operation, available: dict) -> dict:
        """The entries of ``available`` that every writer inside ``op`` lets through (none
        available: none, and ``op``'s writers are not asked for)."""
        if not available:
            return {}
        stores = self._stores_in(op)
        return {} if stores is None else self._filtered(available, stores)

    def _stores_in(self, op: Operation) -> list[StoreOp] | None:
        """The stores inside ``op`` if they are its only writers ([] if it writes nothing);
        None if anything else inside may write (or ``disjoint-stores`` is off and something
        writes)."""
        if not self.disjoint_stores:
            return None if self.writes.may_write(op) else []
        return stores_only(op, self.writes)

    def _filtered(self, available: dict, stores: list[StoreOp]) -> dict:
        """The entries of ``available`` that every store in ``stores`` provably misses."""
        if not stores:
            return dict(available)
        out: dict = {}
        for addr, entries in available.items():
            kept = tuple(
                replace(e, past_store=True) if not e.past_store else e
                for e in entries
                if all(self.addresses.disjoint(e.ptr, s.ptr) for s in stores)
            )
            if kept:
                out[addr] = kept
        return out

    def _past_writer(self, op: Operation, available: dict) -> None:
        if self.disjoint_stores and isinstance(op, StoreOp):
            filtered = self._filtered(available, [op])
            available.clear()
            available.update(filtered)
        else:
            available.clear()

    # ------------------------------------------------------------------ loads
    def _shape_key(self, op: LoadOp, numbering: ValueNumbering):
        """What of a load's address (:meth:`_addr`) is not its pointer's number: two loads
        with different shape keys never have one address.  The result type,
        ``boundaryCheck`` and ``padding`` (None: absent), each as ``numbering``'s small int
        for the attribute (equal exactly where the attributes are equal)."""
        attribute = numbering.attribute
        boundary = op.properties.get("boundaryCheck")
        if boundary is not None and not boundary.get_values():
            boundary = None  # `array<i32>` (generic form) is the default, as absent
        padding = op.properties.get("padding")
        key = (
            attribute(op.result.type),
            None if boundary is None else attribute(boundary),
            None if padding is None else attribute(padding),
        )
        if self.respect_hints:
            key = (key, op.cache_modifier, op.eviction_policy)
        return key

    def _addr(self, op: LoadOp, ptr: SSAValue):
        """The address of a load through ``ptr``: the pointer's value number and the load's
        shape key."""
        return (self.numbering.number(ptr), self._shape_key(op, self.numbering))

    def _load(self, op: LoadOp, available: dict) -> int:
        """Replace ``op`` by an available load's value if a rule applies (1), else record it
        as available (0).  The candidates are the entries of its address (at most
        :data:`MAX_ENTRIES`), each rule trying them in the order they were added."""
        num = self.numbering.number
        ptr, mask, other = load_operands(op)
        addr = self._addr(op, ptr)
        mask_n = num(mask) if mask is not None else None
        other_n = num(other) if other is not None else None
        candidates = available.get(addr, ())
        zero: list = []  # (the number of a zero of the loaded type: found when first asked)

        def same_other(e: Entry) -> bool:
            if e.other_n == other_n:
                return True
            if mask is None or other is not None:
                return False
            if not zero:
                attr = _zero_attr(op.result.type)
                zero.append(None if attr is None else self.numbering.constant_number(attr, op.result.type))
            return zero[0] is not None and e.other_n == zero[0]

        implied: list[bool | None] = [None] * len(candidates)

        def implies(i: int) -> bool:  # op's mask implies candidate i's (asked once per load)
            known = implied[i]
            if known is None:
                known = implied[i] = self.masks.implies(mask, candidates[i].mask)
            return known

        def merge(e: Entry, value: SSAValue, default: str) -> None:
            self._replace(op, e, value, self._kind(e, ptr, mask, other, default))
            self._touch(available, addr, e)

        # 1. identical / value-numbered
        for e in candidates:
            if e.mask_n == mask_n and same_other(e):
                merge(e, resolve(e.value, op.result.name_hint), "identical")
                return 1
        if self.implied_masks and mask is not None:
            for i, e in enumerate(candidates):  # masks implying each other: still a plain replacement
                if same_other(e) and implies(i) and self.masks.implies(e.mask, mask):
                    merge(e, resolve(e.value, op.result.name_hint), "implied-mask")
                    return 1
        # 2. implied mask: a select of the earlier value and B's other
        if self.implied_masks:
            for i, e in enumerate(candidates):
                if not implies(i):
                    continue
                if mask is None:  # A all-true (or unmasked: case 1)
                    merge(e, resolve(e.value, op.result.name_hint), "implied-mask")
                    return 1
                value = resolve(e.value, op.result.name_hint)
                fallback = other if other is not None else self._zero_before(op)
                if fallback is None:
                    continue
                select = SelectOp.create(
                    operands=[mask, value, fallback], result_types=[op.result.type], location=op.location
                )
                op.parent_block().insert_op_before(select, op)
                set_value_name(select.results[0], op.result.name_hint)
                merge(e, select.results[0], "implied-mask")
                entry = Entry(
                    ptr, mask, other, mask_n, other_n, select.results[0], e.loads, "implied-mask", e.past_store,
                    next(self.clock),
                )
                available[addr] = _appended(available[addr], entry)
                return 1
        entry = Entry(ptr, mask, other, mask_n, other_n, op.result, (op,), used=next(self.clock))
        available[addr] = _appended(candidates, entry)
        return 0

    def _touch(self, available: dict, addr, e: Entry) -> None:
        """``e`` was the source of a merge: it becomes the most recently used of its address
        (the order of the entries stays the order they were added)."""
        stamp = next(self.clock)
        available[addr] = tuple(replace(x, used=stamp) if x is e else x for x in available[addr])

    def _kind(self, e: Entry, ptr: SSAValue, mask, other, default: str) -> str:
        value = e.value
        if isinstance(value, (_IfJoin, _Forward)):
            kind = value.kind
        elif e.kind != "identical":
            kind = e.kind
        elif default == "identical" and not (e.ptr is ptr and e.mask is mask and e.other is other):
            kind = "value-numbered"
        else:
            kind = default
        self.kinds[kind] += 1
        if e.past_store:
            self.kinds["past-disjoint-store"] += 1
        return kind

    def _replace(self, op: LoadOp, e: Entry, value: SSAValue, kind: str) -> None:
        for kept in e.loads:
            keep_evict_last(kept, op)
        replace_value(op.result, value)
        erase_op(op)

    def _zero_before(self, op: LoadOp) -> SSAValue | None:
        attr = _zero_attr(op.result.type)
        if attr is None:
            return None
        const = ConstantOp.create(
            properties={"value": attr}, result_types=[op.result.type], location=op.location
        )
        op.parent_block().insert_op_before(const, op)
        return const.results[0]
