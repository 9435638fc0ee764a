"""Run ttopt's passes inside Triton's compiler: no dump or override directories.

    import ttopt.triton_hook as hook
    hook.enable(["redundant-load", "redundant-reduce"])        # every compile from now on
    with hook.enabled(["div-chain"], log=True): ...             # or for a block

    TTOPT_PASSES=redundant-load,div-chain python -m ttopt.triton_hook my_script.py args...

How: Triton 3.6's ``triton.knobs.runtime.add_stages_inspection_hook`` lets a hook wrap the
compile stages; ttopt wraps ``make_ttir`` (and/or ``make_ttgir``), prints the module, runs the
passes, and hands Triton the re-parsed module when something changed.

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
from .decisions import Decisions
from .decisions import load as load_decisions
from .pipeline import resolve_passes, run_pipeline


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

    @property
    def key(self) -> str:
        key = f"ttopt-{__version__}-{'+'.join(self.passes)}-{'+'.join(self.stages)}"
        return key + (f"-decisions-{self.decisions_digest[:16]}" if self.decisions else "")

    def passes_for(self, name: str, stage: str, module) -> list[str] | None:
        """The passes to run on this kernel at this stage (None: leave it as Triton made it).
        With a decision file, only kernels it keeps are rewritten, with its passes; it is
        keyed by the TTIR, so it applies at the ttir stage."""
        if self.decisions is None:
            return list(self.passes)
        if stage != "ttir":
            return None
        return self.decisions.passes_for(name, module.str())

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


def _rewrite(state: HookState, stage: str, module):
    """Run the passes on a Triton module; return the module Triton should use."""
    from triton._C.libtriton import ir

    name = _kernel_name(module)
    try:
        passes = state.passes_for(name, stage, module)
        if not passes:
            return module
        result = run_pipeline(module.str(), passes, f"<{name}.{stage}>")
        for s in result.stats:
            if s.total:
                _log(state, {"kernel": name, "stage": stage, "pass": s.name, "rewrites": s.total})
        if not result.changed:
            return module
        fd, path = tempfile.mkstemp(suffix=f".{stage}", prefix="ttopt-hook-")
        try:
            with os.fdopen(fd, "w") as f:
                f.write(result.text)
            new = ir.parse_mlir_module(path, module.context)
            new.context = module.context
        finally:
            os.unlink(path)
        return new
    except Exception as e:  # never break the user's compile
        if name not in state.warned:
            state.warned.add(name)
            warnings.warn(f"ttopt: skipped kernel {name} ({stage}): {type(e).__name__}: {e}", RuntimeWarning, stacklevel=2)
        return module


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

    ``decisions``: a ``ttopt tune`` decision file (``python -m bench.tune``); then, instead of
    ``passes``, each kernel gets the passes its ``keep`` entry names (matched by kernel name and
    TTIR digest), and every other kernel is left alone."""
    import triton

    global _state
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
    with _lock:
        if _state is not None:
            _disable_locked()
        state = HookState(tuple(passes), tuple(stages), log, decisions=table, decisions_digest=digest)
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
