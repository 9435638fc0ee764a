"""The interpreter's driver: compile a module's functions into closures, run one program.

Each op is compiled once (per :class:`Program`) into a closure ``step(env, rt)`` that reads its
operands from ``env`` (a dict keyed by the IR's SSA values), computes with numpy over whole
tensors and writes its results back; a block is a list of steps plus its terminator's operands.
``rt`` (:class:`Runtime`) holds what changes between runs: program ids, memory, events.
Op semantics are in :mod:`ttopt.interp.ops` (dispatch on ``op.name`` only).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import TTOptError, line_col
from .memory import Memory, MemoryError_
from .types import InterpTypeError


class InterpError(TTOptError):
    """The interpreter cannot run the kernel (an unsupported op or type, a malformed op, a
    runaway loop ...): one line, ``FILE:LINE:COL: error: ...`` (or ``FILE: error: ...``)."""


@dataclass
class Event:
    """A ``tt.print`` or a failing ``tt.assert`` seen during a run.

    ``kind``: ``"print"`` or ``"assert"``; ``text``: the prefix/message; ``loc``: the op's
    location; ``pid``: the program id; ``values``: the printed values (numpy arrays), or for an
    assert the flat indices of the failing lanes."""

    kind: str
    text: str
    loc: str
    pid: tuple[int, int, int]
    values: list = field(default_factory=list)

    def key(self):
        return (self.kind, self.text, self.pid, [np.asarray(v).tobytes() for v in self.values])

    def __str__(self) -> str:
        vals = ", ".join(np.array2string(np.asarray(v), threshold=8) for v in self.values)
        return f"{self.kind} {self.text!r} at {self.loc} pid={self.pid}" + (f": {vals}" if vals else "")


class Runtime:
    """What one run changes: program ids, grid, memory, events, loop budget."""

    def __init__(self, pids, num_programs, memory: Memory, max_loop_iters: int):
        self.pids = tuple(int(p) for p in pids)
        self.num_programs = tuple(int(n) for n in num_programs)
        self.memory = memory
        self.events: list[Event] = []
        self.max_loop_iters = max_loop_iters
        self.call_depth = 0


class CompiledBlock:
    __slots__ = ("args", "steps", "term", "term_operands")

    def __init__(self, args, steps, term, term_operands):
        self.args = args
        self.steps = steps
        self.term = term
        self.term_operands = term_operands


def loc_str(op) -> str:
    loc = getattr(op, "location", None)
    if loc is None:
        return "loc(unknown)"
    return " ".join(str(loc).split())


REDUCE_ORDERS = ("tree", "gpu")


class Program:
    """A compiled module.  ``source``/``offsets``/``filename`` (from
    :class:`~ttopt.ir.reader.TritonModule`) place errors at ``FILE:LINE:COL``.

    The numeric model is fixed per Program: ``fp_contract`` (compute the sums the GPU
    contracts as fused multiply-adds, :mod:`ttopt.interp.contract`) and ``reduce_order``
    (``"tree"``: the interpreter's pairwise tree; ``"gpu"``: Triton's order from the layout,
    :mod:`ttopt.interp.reduce_order`).  :meth:`with_model` gives the same module compiled
    under another model (cached)."""

    def __init__(self, module_op, filename="<input>", source="", offsets=None, *, fp_contract: bool = False,
                 reduce_order: str = "tree", aliases: dict | None = None):
        if reduce_order not in REDUCE_ORDERS:
            raise InterpError(f"reduce_order must be one of {', '.join(REDUCE_ORDERS)}, got {reduce_order!r}")
        self.module = module_op
        self.filename = filename
        self.source = source
        self.offsets = offsets or {}
        self.fp_contract = bool(fp_contract)
        self.reduce_order = reduce_order
        # attribute aliases of the text (``#blocked1`` ...): a slice layout names its parent so
        self.aliases = dict(aliases or {})
        self.funcs = {}
        for op in module_op.walk():
            if op.name == "tt.func":
                self.funcs[_sym_name(op)] = op
        self.compiled: dict[str, CompiledBlock] = {}
        # writers: store-like ops get an id; their locs name a store in a report
        self.writer_ops: list = []
        self.writer_ids: dict = {}
        self._contraction = None
        self._variants: dict = {(self.fp_contract, reduce_order): self}

    @property
    def model(self) -> tuple[bool, str]:
        return self.fp_contract, self.reduce_order

    def with_model(self, fp_contract: bool | None = None, reduce_order: str | None = None) -> "Program":
        """This module under another numeric model (None: keep this one's)."""
        key = (self.fp_contract if fp_contract is None else bool(fp_contract),
               self.reduce_order if reduce_order is None else reduce_order)
        p = self._variants.get(key)
        if p is None:
            p = Program(self.module, self.filename, self.source, self.offsets, fp_contract=key[0],
                        reduce_order=key[1], aliases=self.aliases)
            p._variants = self._variants
            self._variants[key] = p
        return p

    @property
    def contraction(self):
        """The contraction decisions (:class:`~ttopt.interp.contract.Contraction`), or None
        without ``fp_contract``."""
        if not self.fp_contract:
            return None
        if self._contraction is None:
            from .contract import Contraction

            self._contraction = Contraction(self.module)
        return self._contraction

    # ---------------------------------------------------------------- errors
    def error(self, op, message: str) -> InterpError:
        line = col = None
        if op is not None and op in self.offsets and self.source:
            line, col = line_col(self.source, self.offsets[op])
        if op is not None and op.name not in message:
            message = f"'{op.name}': {message}"
        if op is not None and line is None:
            message = f"{message} ({loc_str(op)})"
        return InterpError(message, self.filename, line, col)

    # ---------------------------------------------------------------- compile
    def writer_id(self, op) -> int:
        i = self.writer_ids.get(op)
        if i is None:
            i = self.writer_ids[op] = len(self.writer_ops)
            self.writer_ops.append(op)
        return i

    def writer_loc(self, i: int) -> str:
        if i < 0 or i >= len(self.writer_ops):
            return "?"
        op = self.writer_ops[i]
        return f"{op.name} at {loc_str(op)}"

    def func(self, name: str | None):
        if name is None:
            public = [n for n, f in self.funcs.items() if _visibility(f) != "private"]
            cands = public or list(self.funcs)
            if not cands:
                raise InterpError("no tt.func in the module", self.filename)
            if len(public) > 1:
                raise InterpError(
                    f"several public functions ({', '.join(public)}): choose one with func_name/--func",
                    self.filename)
            name = cands[0]
        if name not in self.funcs:
            raise InterpError(f"no function @{name} in the module (has: {', '.join(self.funcs)})", self.filename)
        return name, self.funcs[name]

    def compile_func(self, name: str) -> CompiledBlock:
        cb = self.compiled.get(name)
        if cb is None:
            _, f = self.func(name)
            if not f.regions or not f.regions[0].blocks:
                raise self.error(f, f"function @{name} has no body (a declaration)")
            cb = self.compile_region(f.regions[0])
            self.compiled[name] = cb
        return cb

    def compile_region(self, region) -> CompiledBlock | None:
        """A region as one :class:`CompiledBlock` (run by :meth:`run_block`): its block, or
        for a region whose blocks branch (``cf.br``/``cf.cond_br``/``cf.switch``) a block of
        one step that runs them (:meth:`compile_cfg`)."""
        from .ops import BRANCHES

        blocks = list(region.blocks)
        if not blocks:
            return None
        if len(blocks) == 1:
            cb = self.compile_block(blocks[0])
            if cb.term is None or cb.term.name not in BRANCHES:
                return cb
        return self.compile_cfg(region.parent_op(), blocks)

    def compile_cfg(self, owner, blocks) -> CompiledBlock:
        """The blocks of a region that branch between them, with MLIR's semantics: run the
        entry block; a branch (``cf.br``, ``cf.cond_br``, ``cf.switch``: a scalar condition
        or flag, one value per program instance, as Triton's control flow is) binds its
        operands to the arguments of the block it goes to, all at once, and runs that block;
        the region's result is the operands of the terminator (``tt.return``, ``scf.yield``
        ...) of whichever block ends the run.  As in MLIR, no branch may go to the entry
        block, nor out of the region.

        The result is a :class:`CompiledBlock` whose arguments are the entry block's (bound
        by :meth:`run_block`), with one step that runs the blocks and writes the result
        under keys of its own (its ``term_operands``): :meth:`run_block`, the interpreter's
        inner loop, is unchanged.

        Loop guard, as ``scf.while``'s ``max_loop_iters``: within one run of the region a
        block may run at most ``max_loop_iters + 1`` times (a loop of N iterations runs its
        header N + 1 times); one more is an error at the branch that jumped, never a hang."""
        from .ops import BRANCHES

        index = {b: i for i, b in enumerate(blocks)}
        compiled = []
        n_results = None
        for i, b in enumerate(blocks):
            cb = self.compile_block(b)
            term = cb.term
            if term is None:
                raise self.error(owner, f"block ^bb{i} of the region has no terminator")
            builder = BRANCHES.get(term.name)
            if builder is None:  # the region's own terminator: its operands are the result
                if n_results is None:
                    n_results = len(cb.term_operands)
                elif len(cb.term_operands) != n_results:
                    raise self.error(term, f"gives {len(cb.term_operands)} values where another block "
                                           f"of the region gives {n_results}")
                compiled.append((cb, None, term))
                continue
            for s in term.successors:
                k = index.get(s)
                if k is None:
                    raise self.error(term, "branches to a block outside its region")
                if k == 0:
                    raise self.error(term, "branches to the entry block of its region (MLIR: the "
                                           "entry block of a region may not have predecessors)")
            try:
                choose = builder(term, self, index)
            except InterpError:
                raise
            except Exception as e:  # a malformed branch
                raise self.error(term, f"cannot interpret: {type(e).__name__}: {e}") from None
            compiled.append((cb, choose, term))
        # (every block branching: a run cannot end, and the loop guard stops it)
        n_results = n_results or 0
        entry = compiled[0][0]
        # the entry block's arguments are bound by the run_block that runs this region
        compiled[0] = (CompiledBlock([], entry.steps, entry.term, entry.term_operands),) + compiled[0][1:]
        keys = [object() for _ in range(n_results)]
        n = len(compiled)
        run_block = self.run_block
        error = self.error

        def run_cfg(env, rt):
            limit = rt.max_loop_iters + 1
            counts = [0] * n
            cb, choose, t = compiled[0]
            counts[0] = 1
            vals = run_block(cb, env, rt, ())
            while choose is not None:
                i, args = choose(vals)
                c = counts[i] = counts[i] + 1
                if c > limit:
                    raise error(t, f"a loop of branches is over the limit of {rt.max_loop_iters} "
                                   f"iterations (block ^bb{i} would run {c} times; max_loop_iters)")
                cb, choose, t = compiled[i]
                vals = run_block(cb, env, rt, args)
            for k, v in zip(keys, vals):
                env[k] = v

        return CompiledBlock(list(blocks[0].args), [(run_cfg, owner)], None, keys)

    def compile_block(self, block) -> CompiledBlock:
        from .ops import BRANCHES, HANDLERS, TERMINATORS, fused_builder

        steps = []
        term = None
        fused = self.contraction.fused if self.fp_contract else {}
        for op in block.ops:
            if op.name in TERMINATORS or op.name in BRANCHES:
                term = op
                break
            builder = HANDLERS.get(op.name)
            if op in fused:
                builder = fused_builder(fused[op])
            if builder is None:
                raise self.error(op, f"unsupported op '{op.name}' (the interpreter has no semantics for it)")
            try:
                fn = builder(op, self)
            except InterpError:
                raise
            except (InterpTypeError, MemoryError_) as e:
                raise self.error(op, f"cannot interpret: {e}") from None
            except Exception as e:  # a malformed op (or an attribute the interpreter misreads)
                raise self.error(op, f"cannot interpret: {type(e).__name__}: {e}") from None
            if fn is not None:
                steps.append((fn, op))
        term_operands = list(term.operands) if term is not None else []
        return CompiledBlock(list(block.args), steps, term, term_operands)

    # ---------------------------------------------------------------- run
    def run_block(self, cb: CompiledBlock, env: dict, rt: Runtime, args) -> list:
        for a, v in zip(cb.args, args):
            env[a] = v
        op = None
        try:
            for fn, op in cb.steps:
                fn(env, rt)
        except InterpError:
            raise
        except (InterpTypeError, MemoryError_) as e:
            raise self.error(op, str(e)) from None
        except RecursionError:
            raise self.error(op, "nesting or recursion too deep") from None
        except Exception as e:  # a numpy error, or a bug of the interpreter
            raise self.error(op, f"failed: {type(e).__name__}: {e}") from None
        return [env[v] for v in cb.term_operands]

    def call(self, name: str, args: list, rt: Runtime) -> list:
        cb = self.compile_func(name)
        rt.call_depth += 1
        if rt.call_depth > 64:
            raise InterpError(f"call depth over 64 (recursion in @{name}?)", self.filename)
        try:
            return self.run_block(cb, {}, rt, args)
        finally:
            rt.call_depth -= 1


def _sym_name(op) -> str:
    a = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return a.data if a is not None else "?"


def _visibility(op) -> str:
    a = op.properties.get("sym_visibility") or op.attributes.get("sym_visibility")
    return a.data if a is not None else "public"
