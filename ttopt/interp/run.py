"""``run_kernel``: run one program instance of a kernel; :class:`RunResult`."""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .engine import Event, InterpError, Program, Runtime
from .memory import InitModel, Memory, splitmix64, stream_key
from .types import Elem, InterpTypeError, type_info
from .values import Ptr

DEFAULT_MAX_LOOP_ITERS = 100_000


@dataclass
class Written:
    """The bytes one run wrote into one argument's buffer."""

    offsets: np.ndarray  # int64 byte offsets, sorted
    data: np.ndarray  # uint8
    writers: np.ndarray  # int32 writer ids (index into RunResult.writer_locs)

    @property
    def nbytes(self) -> int:
        return int(self.offsets.shape[0])

    def checksum(self) -> str:
        """CRC-32 of the (offset, byte) pairs, as 8 hex digits."""
        c = zlib.crc32(self.offsets.tobytes())
        return f"{zlib.crc32(self.data.tobytes(), c):08x}"


@dataclass
class RunResult:
    """What one program instance did.

    * ``written``: ``{argument index: Written}`` -- the overlay: every byte written;
      ``overlay`` is the same keyed by argument name;
    * ``events``: ``tt.print`` calls and failing ``tt.assert`` (:class:`Event`), in order;
    * ``args``: the argument values used (``{name: int | float | "<buffer k of T>"}``),
      ``arg_names``, ``arg_types``;
    * ``writer_locs``: the op (name and location) of each writer id;
    * :meth:`read` / :meth:`initial`: the buffer contents after the run / before it.
    """

    func: str
    seed: int
    pids: tuple[int, int, int]
    num_programs: tuple[int, int, int]
    arg_names: list[str]
    arg_types: list[str]
    args: dict
    written: dict[int, Written]
    events: list[Event]
    writer_locs: list[str]
    pointees: list[Elem | None] = field(repr=False, default_factory=list)
    memory: Memory | None = field(repr=False, default=None)
    numerics: tuple = (False, "tree")  # the Program's (fp_contract, reduce_order)

    @property
    def overlay(self) -> dict[str, Written]:
        return {self.arg_names[i]: w for i, w in self.written.items()}

    def arg_index(self, name) -> int:
        if isinstance(name, int):
            return name
        try:
            return self.arg_names.index(name)
        except ValueError:
            raise KeyError(f"no argument {name!r} (arguments: {', '.join(self.arg_names)})") from None

    def read(self, name, start: int = 0, count: int = 1, elements=None) -> np.ndarray:
        """Elements ``start .. start+count`` (or the given element indices) of a pointer
        argument's buffer after the run, of its declared pointee type."""
        a = self.arg_index(name)
        e = self.pointees[a]
        if e is None:
            raise KeyError(f"argument {name!r} is not a pointer")
        idx = np.arange(start, start + count) if elements is None else np.asarray(elements)
        return self.memory.read(np.full(idx.shape, a, np.int32), idx.astype(np.int64) * e.size, e)

    def initial(self, name, start: int = 0, count: int = 1, elements=None) -> np.ndarray:
        """The same elements before the run (the pseudo-random initial contents)."""
        a = self.arg_index(name)
        idx = np.arange(start, start + count) if elements is None else np.asarray(elements)
        return self.memory.initial_values(a, idx.astype(np.int64))

    def written_elements(self, name) -> np.ndarray:
        """Indices of the elements (of the pointee type) with at least one byte written."""
        a = self.arg_index(name)
        w = self.written.get(a)
        if w is None:
            return np.zeros(0, np.int64)
        return np.unique(w.offsets // self.pointees[a].size)

    def summary_lines(self) -> list[str]:
        lines = [f"@{self.func} pid={self.pids} num_programs={self.num_programs} seed={self.seed}"]
        if self.numerics != (False, "tree"):
            lines[0] += f" fp-contract={'on' if self.numerics[0] else 'off'} reduce-order={self.numerics[1]}"
        for i, (n, t) in enumerate(zip(self.arg_names, self.arg_types)):
            v = self.args.get(n)
            if self.pointees[i] is None:
                lines.append(f"  {n}: {t} = {v}")
                continue
            w = self.written.get(i)
            if w is None:
                lines.append(f"  {n}: {t}: nothing written")
            else:
                lo, hi = int(w.offsets[0]), int(w.offsets[-1]) + 1
                lines.append(f"  {n}: {t}: {w.nbytes} bytes written in [{lo}, {hi}) checksum {w.checksum()}")
        for ev in self.events:
            lines.append(f"  {ev}")
        return lines


def as_program(kernel, filename: str | None = None, *, fp_contract: bool | None = None,
               reduce_order: str | None = None) -> Program:
    """A :class:`Program` from IR text, a path, a ``TritonModule``, a ``ModuleOp`` or a
    ``Program``, compiled under the numeric model ``fp_contract``/``reduce_order`` (None:
    a Program's own, else off/"tree")."""
    if isinstance(kernel, Program):
        return kernel.with_model(fp_contract, reduce_order)
    model = dict(fp_contract=bool(fp_contract), reduce_order=reduce_order or "tree")
    if isinstance(kernel, Path):
        filename = filename or str(kernel)
        kernel = kernel.read_text()
    if isinstance(kernel, str):
        from ..ir.reader import read_module

        mod = read_module(kernel, filename or "<input>")
        return Program(mod.op, mod.filename, mod.source, mod.offsets, aliases=mod.attr_aliases, **model)
    if hasattr(kernel, "op") and hasattr(kernel, "offsets"):  # TritonModule
        return Program(kernel.op, filename or kernel.filename, kernel.source, kernel.offsets,
                       aliases=getattr(kernel, "attr_aliases", None), **model)
    if getattr(kernel, "name", None) == "builtin.module":
        return Program(kernel, filename or "<module>", **model)
    raise TypeError(f"cannot run a {type(kernel).__name__}: give IR text, a TritonModule or a module op")


def signature(program: Program, func_name: str | None):
    """(name, func op, [(arg name, type, TypeInfo, divisibility)])."""
    name, f = program.func(func_name)
    block = f.regions[0].blocks[0] if f.regions and f.regions[0].blocks else None
    if block is None:
        raise InterpError(f"function @{name} has no body", program.filename)
    arg_attrs = f.properties.get("arg_attrs") or f.attributes.get("arg_attrs")
    attrs = list(arg_attrs.data) if arg_attrs is not None else []
    out = []
    for i, a in enumerate(block.args):
        try:
            info = type_info(a.type)
        except InterpTypeError as e:
            raise InterpError(f"argument {i} of @{name}: {e}", program.filename) from None
        div = 1
        if i < len(attrs):
            d = getattr(attrs[i], "data", {}).get("tt.divisibility") if hasattr(attrs[i], "data") else None
            if d is not None:
                div = int(d.value.data)
        out.append((a.name_hint or f"arg{i}", a.type, info, div))
    return name, f, out


def draw_args(sig, seed: int, model: InitModel, given: dict | None = None, filename: str = "<input>") -> dict:
    """Values of the scalar arguments: given ones (by name or index), the rest drawn from the
    seed (see :class:`InitModel`)."""
    given = dict(given or {})
    names = [s[0] for s in sig]
    for k in given:
        if not isinstance(k, int) and k not in names:
            raise InterpError(f"no argument named {k!r} (arguments: {', '.join(names)})", filename)
        if isinstance(k, int) and not 0 <= k < len(names):
            raise InterpError(f"no argument {k}", filename)
    numel = re.compile(model.numel_pattern)
    out = {}
    for i, (name, typ, info, div) in enumerate(sig):
        if info.kind != "scalar" or info.elem.is_ptr:
            continue
        e = info.elem
        if name in given or i in given:
            v = given[name] if name in given else given[i]
            out[name] = _scalar(v, e, name, filename)
            continue
        h = int(splitmix64(np.uint64(stream_key(seed, 0x617267, i))))
        if e.is_float:
            lo, hi = model.float_range
            out[name] = _scalar(lo + (hi - lo) * ((h >> 11) / float(1 << 53)), e, name)
        elif e.width == 1:
            out[name] = _scalar(h & 1, e, name)
        else:
            lo, hi = model.numel_range if numel.fullmatch(name) else model.int_arg_range
            v = lo + h % max(hi - lo, 1)
            if div > 1:
                v = max(div, (v + div - 1) // div * div)
            out[name] = _scalar(v, e, name)
    return out


def _scalar(v, e: Elem, name: str, filename: str = "<input>"):
    if e.is_float:
        return np.asarray(float(v)).astype(e.dtype)
    if isinstance(v, float) and not float(v).is_integer():
        raise InterpError(f"argument {name} is {e}: {v} is not an integer", filename)
    v = int(v)
    if e.width == 1:
        return np.asarray(bool(v & 1))
    return np.asarray(v & ((1 << e.width) - 1), dtype=np.uint64).astype(e.udtype).view(e.dtype)


def run_program(program: Program, func_name=None, *, pids=(0, 0, 0), num_programs=(1, 1, 1), seed=0,
                args=None, model: InitModel | None = None, max_loop_iters: int = DEFAULT_MAX_LOOP_ITERS,
                scalar_values: dict | None = None) -> RunResult:
    model = model or InitModel()
    pids = as_triple(pids, "pids")
    num_programs = as_triple(num_programs, "num_programs")
    name, f, sig = signature(program, func_name)
    scalars = scalar_values if scalar_values is not None else draw_args(sig, seed, model, args, program.filename)
    pointees: list[Elem | None] = []
    argvals = []
    shown = {}
    for i, (aname, typ, info, div) in enumerate(sig):
        if info.kind == "scalar" and info.elem.is_ptr:
            pointees.append(info.elem.pointee)
            argvals.append(Ptr(np.int32(i), np.int64(0), info.elem.pointee))
            shown[aname] = f"<buffer {i} of {info.elem.pointee}>"
        elif info.kind == "scalar":
            pointees.append(None)
            v = scalars[aname]
            argvals.append(v)
            shown[aname] = v.item() if hasattr(v, "item") else v
        else:
            raise InterpError(f"argument {aname} of @{name} has type {typ}: only pointers and scalars "
                              f"are supported as kernel arguments", program.filename)
    memory = Memory(seed, model, pointees)
    rt = Runtime(pids, num_programs, memory, max_loop_iters)
    with np.errstate(all="ignore"):
        program.call(name, argvals, rt)
    written = {a: Written(*t) for a, t in memory.written().items()}
    return RunResult(
        func=name, seed=seed, pids=pids, num_programs=num_programs,
        arg_names=[s[0] for s in sig], arg_types=[str(s[1]) for s in sig], args=shown,
        written=written, events=rt.events,
        writer_locs=[program.writer_loc(i) for i in range(len(program.writer_ops))],
        pointees=pointees, memory=memory, numerics=program.model,
    )


def as_triple(v, what) -> tuple[int, int, int]:
    if isinstance(v, str):
        v = [int(x) for x in v.split(",") if x.strip()]
    if isinstance(v, int):
        v = (v,)
    v = tuple(int(x) for x in v)
    if not 1 <= len(v) <= 3:
        raise InterpError(f"{what} must have 1 to 3 entries, got {v}")
    return v + (0 if what == "pids" else 1,) * (3 - len(v))


def run_kernel(module_or_text, func_name: str | None = None, *, pids=(0, 0, 0), num_programs=(1, 1, 1),
               seed: int = 0, args: dict | None = None, model: InitModel | None = None,
               max_loop_iters: int = DEFAULT_MAX_LOOP_ITERS, filename: str | None = None,
               fp_contract: bool | None = None, reduce_order: str | None = None) -> RunResult:
    """Run one program instance of ``func_name`` (default: the module's public function).

    ``module_or_text``: IR text, a :class:`pathlib.Path`, a ``TritonModule`` (from
    :func:`ttopt.ir.reader.read_module`), a ``builtin.module`` op, or a compiled
    :class:`~ttopt.interp.engine.Program` (reuse it to skip recompiling).
    ``pids``/``num_programs``: (x, y, z) (shorter tuples are padded with 0 / 1).
    ``seed``: selects the pseudo-random memory and the scalar arguments not in ``args``
    (``{name or index: value}``).  ``model``: value ranges (:class:`InitModel`).
    ``fp_contract``: compute what the GPU contracts (``a*b + c`` ...) as fused multiply-adds
    (:mod:`ttopt.interp.contract`); ``reduce_order``: ``"tree"`` (pairwise) or ``"gpu"``
    (Triton's order from the layout, :mod:`ttopt.interp.reduce_order`).  None: a given
    Program's own model, else off and ``"tree"``.
    Raises :class:`InterpError` (a ``TTOptError``) when the kernel cannot be run."""
    program = as_program(module_or_text, filename, fp_contract=fp_contract, reduce_order=reduce_order)
    for p, n in zip(as_triple(pids, "pids"), as_triple(num_programs, "num_programs")):
        if not 0 <= p < n:
            raise InterpError(f"program id {pids} outside num_programs {num_programs}")
    return run_program(program, func_name, pids=pids, num_programs=num_programs, seed=seed, args=args,
                       model=model, max_loop_iters=max_loop_iters)
