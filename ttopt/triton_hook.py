"""Run ttopt's passes inside Triton's compiler: no dump or override directories.

    import ttopt.triton_hook as hook
    hook.enable(["redundant-load", "redundant-reduce"])        # every compile from now on
    with hook.enabled(["div-chain"], log=True): ...             # or for a block

    TTOPT_PASSES=redundant-load,div-chain python -m ttopt.triton_hook my_script.py args...

How: Triton 3.6's ``triton.knobs.runtime.add_stages_inspection_hook`` lets a hook wrap the
compile stages; ttopt wraps ``make_ttir`` (and/or ``make_ttgir``), prints the module, runs the
passes, and hands Triton the re-parsed module when something changed.

Cost (``python -m bench.hook_overhead``: Triton's compile of corpus kernels to cubin with and
without the hook, interleaved): the hook must stay a few percent of a compile, so it does no
work it can avoid.  On the 2-core development machine, 67 corpus kernels x 5 rounds, passes
redundant-load, redundant-reduce, div-chain: time inside the hook 2.6% of the compile time
with the ttir stage (11.2% before these shortcuts), 5.2% with ttir and ttgir (23.6%).

* **Nothing to do, nothing read.**  Before reading the module, each of ttopt's passes is
  asked a necessary condition on the printed text (:data:`PRECONDITIONS`,
  :func:`may_rewrite`): ``redundant-load`` needs two ``tt.load`` of one type whose pointers
  may derive from one kernel argument, ``redundant-reduce`` two reductions whose operands may
  be equal values (a shallow value numbering of the text), ``div-chain`` a division whose
  operand is (through ops of one operand) a division, ``recip-hoist`` one ``arith.divf``.
  When no pass of the pipeline can rewrite anything, Triton's module is used as it is (a
  pass that rewrites nothing leaves the module as it was, so the next one sees the same
  text).  Any other pass (xDSL's, a loaded one, a subclass) always runs.  Most kernels stop
  here (90% of the corpus's TTIR and TTGIR files for the three passes).
* **Read without locations, unverified, nothing printed.**  The passes are run first on the
  module as ``str_nodebug()`` prints it (a third of the text: no ``loc(...)``; the passes
  never look at locations), read without ttopt's verifier (the module comes from Triton's
  own pass manager, which verified it), and nothing is printed: this only tells whether a
  pass rewrites anything.  Only a module that changes is read again with its locations and
  printed, so that the module Triton gets keeps them.
* **Each module once.**  Autotuning compiles one kernel for many configs whose TTIR is often
  the same text: the outcome per (stage, passes, text digest) is remembered while the hook
  is enabled (:data:`CACHE_ENTRIES`).
* With a decision file, only a kernel whose name has a ``keep`` entry is digested.

None of these shortcuts can change what a kernel computes: each one can only leave a module
as Triton made it, that is, at worst miss a rewrite (``test/test_triton_hook.py`` checks on
every fixture kernel and lit case that none is missed).

Caching: in 3.6 the hook is part of no cache key, so while enabled ttopt moves Triton's
on-disk cache to a subfolder named by ttopt's version, passes and stages (kernels compiled
with and without ttopt, or with other passes, never meet), and clears the in-memory JIT caches
when switched on or off.  Triton 3.7+ also calls the hook with no arguments to get a
cache-key part: that signature returns ``(key, hash)``.

Failures inside ttopt never break a compile: the stage's own module is used and a warning
names the kernel (once per kernel).
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import sys
import tempfile
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

from . import __version__
from .decisions import KEEP, Decisions
from .errors import TTOptError
from .decisions import load as load_decisions
from .passes import expand_aliases
from .passes.preconditions import PRECONDITIONS, may_rewrite  # noqa: F401 (ttopt.triton_hook's API)
from .pipeline import resolve_passes, run_deep

CACHE_ENTRIES = 4096
"""Outcomes remembered per enabled hook (a digest and, for a rewritten module, its text)."""


@dataclass
class HookState:
    passes: tuple[str, ...]
    stages: tuple[str, ...]
    log: bool | str = False
    records: list[dict] = field(default_factory=list)
    warned: set[str] = field(default_factory=set)
    saved_cache_dir: str | None = None
    decisions: Decisions | None = None
    decisions_digest: str = ""  # of the decision file's bytes: part of the cache key
    cache: dict = field(default_factory=dict)  # (stage, passes, text digest) -> (records, text | None)
    kept: frozenset = frozenset()  # kernel names with a `keep` decision

    @property
    def key(self) -> str:
        key = f"ttopt-{__version__}-{'+'.join(self.passes)}-{'+'.join(self.stages)}"
        return key + (f"-decisions-{self.decisions_digest[:16]}" if self.decisions else "")

    def passes_for(self, name: str, stage: str, text: str) -> list[str] | None:
        """The passes to run on this kernel at this stage (None: leave it as Triton made it).
        With a decision file, only kernels it keeps are rewritten, with its passes; it is
        keyed by the TTIR (``text``, the module as Triton prints it), so it applies at the
        ttir stage."""
        if self.decisions is None:
            return list(self.passes)
        if stage != "ttir" or name not in self.kept:
            return None
        return self.decisions.passes_for(name, text)

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.key.encode()).hexdigest()


_state: HookState | None = None
_lock = threading.Lock()


def _log(state: HookState, rec: dict) -> None:
    state.records.append(rec)
    if not state.log:
        return
    line = f"ttopt: {rec['kernel']} [{rec['stage']}] {rec['pass']}: {rec['rewrites']}\n"
    if isinstance(state.log, str) and state.log not in ("1", "stderr"):
        with open(state.log, "a") as f:
            f.write(line)
    else:
        sys.stderr.write(line)


def _kernel_name(module) -> str:
    try:
        return module.get_entry_func_name()
    except Exception:
        return "<kernel>"


def _run_passes(text: str, passes: Sequence, filename: str, print_changed: bool = True
                ) -> tuple[list, str | None]:
    """``passes`` on the module ``text``: the statistics, and (``print_changed``) the printed
    module if a pass rewrote something (None: nothing changed, or not asked for)."""
    pipeline = resolve_passes(passes)
    if not may_rewrite(pipeline, text):
        return [], None

    def work():
        from xdsl.passes import PassPipeline

        from .ir.reader import read_module
        from .ir.writer import write_module
        from .passes.base import collect_stats, default_context

        module = read_module(text, filename, verify=False)  # Triton's verifier has seen it
        with collect_stats() as stats:
            PassPipeline(tuple(pipeline)).apply(default_context(), module.op)
        stats = list(stats)
        changed = any(s.total for s in stats)
        return stats, (write_module(module) if changed and print_changed else None)

    return run_deep(work)


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=20).digest()


def _remember(state: HookState, key, value):
    with _lock:
        if len(state.cache) >= CACHE_ENTRIES:
            state.cache.pop(next(iter(state.cache)))
        state.cache[key] = value
    return value


def _rewrite(state: HookState, stage: str, module):
    """Run the passes on a Triton module; return the module Triton should use.

    First on the module printed without locations (``str_nodebug()``: a third of the text,
    read in about 60% of the time), output not printed: whether a pass rewrites anything
    (the passes never look at locations).  Only then, for a module that changes, on the
    module with its locations, printed: the output keeps them.  Each step's outcome is
    remembered by the digest of its text."""
    name = _kernel_name(module)
    try:
        lean = module.str_nodebug()
        passes = state.passes_for(name, stage, lean)
        if not passes:
            return module
        key = (stage, tuple(passes), _digest(lean))
        with _lock:
            changes = state.cache.get(key)
        if changes is None:
            stats, _ = _run_passes(lean, passes, f"<{name}.{stage}>", print_changed=False)
            changes = _remember(state, key, any(s.total for s in stats))
        if not changes:
            return module
        text = module.str()
        full_key = (key, _digest(text))
        with _lock:
            cached = state.cache.get(full_key)
        if cached is None:
            stats, new_text = _run_passes(text, passes, f"<{name}.{stage}>")
            records = [{"kernel": name, "stage": stage, "pass": s.name, "rewrites": s.total}
                       for s in stats if s.total]
            cached = _remember(state, full_key, (records, new_text))
        records, new_text = cached
        for rec in records:
            _log(state, dict(rec))
        if new_text is None:
            return module
        return _parse_like(module, new_text, stage)
    except Exception as e:  # never break the user's compile
        if name not in state.warned:
            state.warned.add(name)
            warnings.warn(f"ttopt: skipped kernel {name} ({stage}): {type(e).__name__}: {e}", RuntimeWarning, stacklevel=2)
        return module


def _parse_like(module, text: str, stage: str):
    """``text`` as a Triton module in ``module``'s context (Triton parses files only)."""
    from triton._C.libtriton import ir

    fd, path = tempfile.mkstemp(suffix=f".{stage}", prefix="ttopt-hook-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        new = ir.parse_mlir_module(path, module.context)
        new.context = module.context
    finally:
        os.unlink(path)
    return new


def _hook(self=None, stages=None, options=None, language=None, capability=None):
    """The stages inspection hook (3.6 signature, and the no-argument 3.7+ key query)."""
    state = _state
    if stages is None:  # Triton 3.7+: contribute to the cache key
        return (state.key, state.hash) if state else ("", "")
    if state is None:
        return None
    for stage in state.stages:
        if stage in stages:
            original = stages[stage]

            def wrapped(src, metadata, _original=original, _stage=stage):
                return _rewrite(state, _stage, _original(src, metadata))

            stages[stage] = wrapped
    return None


def _clear_jit_caches() -> None:
    from triton.runtime.jit import JITFunction

    for obj in gc.get_objects():
        if isinstance(obj, JITFunction):
            caches = getattr(obj, "device_caches", None)
            if caches is not None:
                caches.clear()


def enable(
    passes: Sequence[str] = (),
    stages: Sequence[str] = ("ttir",),
    log: bool | str = False,
    decisions: str | os.PathLike | None = None,
) -> HookState:
    """Run ``passes`` on every kernel Triton compiles from now on (``stages``: ttir, ttgir).
    Pass names or the aliases ``exact``, ``all`` and ``default`` (expanded here: the cache folder and
    :attr:`HookState.passes` name the passes themselves).

    ``decisions``: a ``ttopt tune`` decision file (``python -m bench.tune``); then, instead of
    ``passes``, each kernel gets the passes its ``keep`` entry names (matched by kernel name and
    TTIR digest), and every other kernel is left alone."""
    import triton

    global _state
    knobs = getattr(triton, "knobs", None)
    runtime = getattr(knobs, "runtime", None)
    if runtime is None or "add_stages_inspection_hook" not in dir(runtime):
        raise TTOptError(
            f"Triton {getattr(triton, '__version__', '?')} has no stages inspection hook "
            "(triton.knobs.runtime.add_stages_inspection_hook, Triton 3.6+): the in-process hook "
            "cannot run; use TRITON_KERNEL_DUMP / TRITON_KERNEL_OVERRIDE with ttopt-opt instead",
            "ttopt.triton_hook",
        )
    # an alias (`exact`, `all`) becomes the passes it stands for now: they name the cache
    passes = expand_aliases(passes)
    resolve_passes(passes)  # unknown pass: TTOptError now, not at compile time
    bad = [s for s in stages if s not in ("ttir", "ttgir")]
    if bad:
        raise ValueError(f"stages must be 'ttir' and/or 'ttgir', got {bad}")
    table, digest = None, ""
    if decisions is not None:
        if passes:
            raise ValueError("give passes or a decision file, not both")
        raw = open(decisions, "rb").read()
        table, digest = load_decisions(decisions), hashlib.sha256(raw).hexdigest()
        for d in table.kept():
            resolve_passes(d.passes)
    kept = frozenset(d.kernel for d in table.kernels if d.decision == KEEP) if table else frozenset()
    with _lock:
        if _state is not None:
            _disable_locked()
        state = HookState(tuple(passes), tuple(stages), log, decisions=table, decisions_digest=digest, kept=kept)
        base = triton.knobs.cache.dir
        state.saved_cache_dir = base
        triton.knobs.cache.dir = os.path.join(base, state.key)
        triton.knobs.runtime.add_stages_inspection_hook = _hook
        _state = state
        _clear_jit_caches()
        return state


def _disable_locked() -> None:
    import triton

    global _state
    if _state is None:
        return
    if triton.knobs.runtime.add_stages_inspection_hook is _hook:
        triton.knobs.runtime.add_stages_inspection_hook = None
    if _state.saved_cache_dir is not None:
        triton.knobs.cache.dir = _state.saved_cache_dir
    _state = None
    _clear_jit_caches()


def disable() -> None:
    with _lock:
        _disable_locked()


@contextlib.contextmanager
def enabled(passes: Sequence[str] = (), stages: Sequence[str] = ("ttir",), log: bool | str = False,
            decisions: str | os.PathLike | None = None):
    state = enable(passes, stages, log, decisions)
    try:
        yield state
    finally:
        disable()


def records() -> list[dict]:
    """What was rewritten so far (kernel, stage, pass, rewrites), while enabled."""
    return list(_state.records) if _state else []


def main(argv: list[str] | None = None) -> int:
    """``python -m ttopt.triton_hook [--pass P]... [--stage S]... [--log] SCRIPT [ARGS...]``.

    Passes also come from ``TTOPT_PASSES`` (comma-separated), the log from ``TTOPT_LOG``
    (``1`` for stderr, or a file path), a decision file from ``--decisions FILE`` or
    ``TTOPT_DECISIONS``."""
    import runpy

    args = list(sys.argv[1:] if argv is None else argv)
    passes = [p for p in os.environ.get("TTOPT_PASSES", "").split(",") if p]
    stages: list[str] = []
    log: bool | str = os.environ.get("TTOPT_LOG", "") or False
    decisions = os.environ.get("TTOPT_DECISIONS") or None
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--pass":
            passes.append(args.pop(0))
        elif opt == "--stage":
            stages.append(args.pop(0))
        elif opt == "--log":
            log = "1"
        elif opt == "--decisions":
            decisions = args.pop(0)
        else:
            print(f"ttopt.triton_hook: error: unknown option {opt}", file=sys.stderr)
            return 2
    if not args:
        print("usage: python -m ttopt.triton_hook [--pass P]... [--decisions FILE] [--stage ttir|ttgir]... [--log] SCRIPT [ARGS...]", file=sys.stderr)
        return 2
    enable(passes, stages or ["ttir"], log, decisions)
    sys.argv = args
    runpy.run_path(args[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
