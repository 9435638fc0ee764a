"""``compare``: run two versions of a kernel on the same inputs and compare what they wrote."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import numerics as N
from .engine import InterpError
from .memory import InitModel, splitmix64, stream_key
from .run import DEFAULT_MAX_LOOP_ITERS, RunResult, as_triple, as_program, draw_args, run_program, signature
from .types import Elem

DEFAULT_NUM_PROGRAMS = (4, 4, 4)


@dataclass
class Mismatch:
    """The first difference between BEFORE and AFTER."""

    seed: int
    pid: tuple[int, int, int]
    kind: str  # "value", "only-before", "only-after", "events"
    arg: str = ""
    offset: int = 0  # byte offset in the argument's buffer
    element: int = 0  # element index (of the argument's pointee type)
    before: str = ""
    after: str = ""
    before_loc: str = ""
    after_loc: str = ""
    ulps: int | None = None
    detail: str = ""

    def message(self) -> str:
        where = f"seed {self.seed}, pid {self.pid}"
        if self.kind == "events":
            return f"print/assert events differ ({where}): {self.detail}"
        what = f"{self.arg}[{self.element}] (byte offset {self.offset})"
        if self.kind == "only-before":
            return (f"{what} written by BEFORE ({self.before_loc}) with {self.before} but not by AFTER "
                    f"({where})")
        if self.kind == "only-after":
            return (f"{what} written by AFTER ({self.after_loc}) with {self.after} but not by BEFORE "
                    f"({where})")
        dist = f", {self.ulps} ulps apart" if self.ulps is not None else ""
        return (f"{what} differs: BEFORE {self.before} ({self.before_loc}), AFTER {self.after} "
                f"({self.after_loc}){dist} ({where})")


@dataclass
class CompareResult:
    """``ok`` (also the truth value); ``mismatch``: the first difference (None when equal);
    ``runs``: the (seed, pid) pairs run; ``bytes_compared``: bytes written and compared."""

    ok: bool
    mismatch: Mismatch | None = None
    runs: list = field(default_factory=list)
    bytes_compared: int = 0
    max_ulps: int = 0

    def __bool__(self) -> bool:
        return self.ok

    @property
    def message(self) -> str:
        if self.ok:
            return (f"equal: {len(self.runs)} runs, {self.bytes_compared} bytes written and compared"
                    + (f", max {self.max_ulps} ulps apart" if self.max_ulps else ""))
        return self.mismatch.message()


def pid_list(spec, seed: int, num_programs) -> list[tuple[int, int, int]]:
    """Program ids for a run: ``"first,last,random"`` (names) or a list of (x, y, z)."""
    nprog = as_triple(num_programs, "num_programs")
    if not isinstance(spec, str):
        return [as_triple(p, "pids") for p in spec]
    out = []
    for word in [w.strip() for w in spec.split(",") if w.strip()]:
        if word == "first":
            p = (0, 0, 0)
        elif word == "last":
            p = tuple(n - 1 for n in nprog)
        elif word == "random":
            h = int(splitmix64(np.uint64(stream_key(seed, 0x706964))))
            p = tuple(int((h >> (20 * k)) % n) for k, n in enumerate(nprog))
        else:
            raise InterpError(f"unknown program id choice {word!r} (use first, last, random or x:y:z)")
        if p not in out:
            out.append(p)
    return out


def _fmt(v: np.ndarray, e: Elem) -> str:
    x = v.item() if hasattr(v, "item") else v
    if e.is_float:
        bits = np.asarray(v).view(np.dtype(f"u{e.size}")).item()
        return f"{float(x)!r} ({e.name} 0x{bits:0{2 * e.size}x})"
    return f"{x} ({e.name})"


def diff_runs(ra: RunResult, rb: RunResult, ulps: int = 0) -> tuple[Mismatch | None, int, int]:
    """First difference between two runs of one kernel's versions on the same inputs:
    ``(mismatch or None, bytes compared, max ulps seen)``."""
    compared = 0
    max_ulps = 0
    for a in sorted(set(ra.written) | set(rb.written)):
        name = ra.arg_names[a]
        e = ra.pointees[a]
        wa, wb = ra.written.get(a), rb.written.get(a)
        oa = wa.offsets if wa is not None else np.zeros(0, np.int64)
        ob = wb.offsets if wb is not None else np.zeros(0, np.int64)
        if oa.shape != ob.shape or not np.array_equal(oa, ob):
            only_a = np.setdiff1d(oa, ob)
            only_b = np.setdiff1d(ob, oa)
            first_a = only_a[0] if only_a.size else None
            first_b = only_b[0] if only_b.size else None
            if first_b is None or (first_a is not None and first_a <= first_b):
                off = int(first_a)
                el = off // e.size
                i = int(np.searchsorted(oa, off))
                return Mismatch(ra.seed, ra.pids, "only-before", name, off, el,
                                before=_fmt(ra.read(a, el, 1)[0], e),
                                before_loc=ra.writer_locs[int(wa.writers[i])]), compared, max_ulps
            off = int(first_b)
            el = off // e.size
            i = int(np.searchsorted(ob, off))
            return Mismatch(ra.seed, ra.pids, "only-after", name, off, el,
                            after=_fmt(rb.read(a, el, 1)[0], e),
                            after_loc=rb.writer_locs[int(wb.writers[i])]), compared, max_ulps
        compared += int(oa.shape[0])
        neq = wa.data != wb.data
        if not neq.any():
            continue
        bad_bytes = np.nonzero(neq)[0]
        if ulps > 0 and e.is_float:
            els = np.unique(oa[bad_bytes] // e.size)
            va, vb = ra.read(a, elements=els), rb.read(a, elements=els)
            fa, fb = np.asarray(va, np.float64), np.asarray(vb, np.float64)
            nan_a, nan_b = np.isnan(fa), np.isnan(fb)
            dist = np.abs(N.ulp_key(va) - N.ulp_key(vb))
            inf = np.isinf(fa) | np.isinf(fb)
            bad = (nan_a != nan_b) | (~nan_a & ~nan_b & ((dist > ulps) | (inf & (fa != fb))))
            ok_d = dist[~nan_a & ~nan_b & ~bad]
            if ok_d.size:
                max_ulps = max(max_ulps, int(ok_d.max()))
            if not bad.any():
                continue
            k = int(np.nonzero(bad)[0][0])
            el = int(els[k])
            off = el * e.size
            d = None if (nan_a[k] or nan_b[k]) else int(dist[k])
        else:
            off0 = int(oa[bad_bytes[0]])
            el = off0 // e.size
            off = el * e.size
            va, vb = ra.read(a, el, 1), rb.read(a, el, 1)
            k = 0
            d = None
            if e.is_float and not (np.isnan(np.float64(va[0])) or np.isnan(np.float64(vb[0]))):
                d = int(abs(N.ulp_key(va) - N.ulp_key(vb))[0])
        i = int(np.searchsorted(oa, max(off, int(oa[0]))))
        i = min(i, oa.shape[0] - 1)
        return Mismatch(ra.seed, ra.pids, "value", name, off, el, _fmt(va[k], e), _fmt(vb[k], e),
                        ra.writer_locs[int(wa.writers[i])], rb.writer_locs[int(wb.writers[i])], d), compared, max_ulps
    ka = [ev.key() for ev in ra.events]
    kb = [ev.key() for ev in rb.events]
    if ka != kb:
        for i, (x, y) in enumerate(zip(ka, kb)):
            if x != y:
                detail = f"event {i}: BEFORE {ra.events[i]}; AFTER {rb.events[i]}"
                break
        else:
            longer, who = (ra, "BEFORE") if len(ka) > len(kb) else (rb, "AFTER")
            i = min(len(ka), len(kb))
            detail = f"only {who} has event {i}: {longer.events[i]}"
        return Mismatch(ra.seed, ra.pids, "events", detail=detail), compared, max_ulps
    return None, compared, max_ulps


def compare(before, after, *, seeds=(0, 1, 2), pids="first,last,random", ulps: int = 0,
            num_programs=DEFAULT_NUM_PROGRAMS, func_name: str | None = None, args: dict | None = None,
            model: InitModel | None = None, max_loop_iters: int = DEFAULT_MAX_LOOP_ITERS,
            fp_contract: bool = False, reduce_order: str = "tree") -> CompareResult:
    """Run BEFORE and AFTER (IR text, TritonModule, module op or Program) on the same inputs
    -- for each seed: the same pseudo-random memory and scalar arguments, each program id of
    ``pids`` -- and compare every byte they wrote (and their print/assert events).

    ``ulps=0``: bit for bit; ``ulps=N``: float elements may differ by up to N ulps (NaN
    equals NaN; inf only equals itself).  Stops at the first difference.

    Both sides run under one numeric model: ``fp_contract`` (fused multiply-adds where the
    GPU contracts) and ``reduce_order`` (``"tree"`` or ``"gpu"``), see :func:`run_kernel`.
    With ``fp_contract=True`` a rewrite that changes what LLVM would contract (a product
    moved into another block, a sum no longer next to its product) shows as a difference, as
    it would on the GPU; with the default (off) both sides round every operation."""
    model = model or InitModel()
    pa = as_program(before, "BEFORE" if isinstance(before, str) else None, fp_contract=fp_contract,
                    reduce_order=reduce_order)
    pb = as_program(after, "AFTER" if isinstance(after, str) else None, fp_contract=fp_contract,
                    reduce_order=reduce_order)
    name_a, _, sig_a = signature(pa, func_name)
    name_b, _, sig_b = signature(pb, func_name if func_name is not None else name_a)
    ta = [str(s[1]) for s in sig_a]
    tb = [str(s[1]) for s in sig_b]
    if ta != tb:
        raise InterpError(f"the signatures differ: @{name_a}({', '.join(ta)}) vs @{name_b}({', '.join(tb)})")
    if isinstance(seeds, int):
        seeds = range(seeds)
    result = CompareResult(ok=True)
    for seed in seeds:
        scal_a = draw_args(sig_a, seed, model, args, pa.filename)
        scal_b = {sb[0]: scal_a[sa[0]] for sa, sb in zip(sig_a, sig_b) if sa[0] in scal_a}
        for pid in pid_list(pids, seed, num_programs):
            kw = dict(pids=pid, num_programs=num_programs, seed=seed, model=model, max_loop_iters=max_loop_iters)
            ra = run_program(pa, name_a, scalar_values=scal_a, **kw)
            rb = run_program(pb, name_b, scalar_values=scal_b, **kw)
            result.runs.append((seed, pid))
            mm, n, mu = diff_runs(ra, rb, ulps)
            result.bytes_compared += n
            result.max_ulps = max(result.max_ulps, mu)
            if mm is not None:
                result.ok = False
                result.mismatch = mm
                return result
    return result
