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
import re
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


# ------------------------------------------------------------------ cheap pre-checks
_LOAD_LINE = re.compile(r"^.*\btt\.load\b.*$", re.MULTILINE)
_LOAD_POINTER = re.compile(r"\btt\.load (%[^\s,:]+)")
_LOC_ALIAS = re.compile(r" loc\(#loc[0-9]*\)$")
_FUNC_LINE = re.compile(r"^\s*tt\.func\b.*$", re.MULTILINE)
_FUNC_ARG = re.compile(r"(%[^\s:,()]+): ")
# `%r = OP operands...` or `%r = "OP"(operands) ...`: one single-result op per line
_DEF = re.compile(r'^\s*(%[^\s:=#,]+) = (?:"([\w.]+)"\(([^)]*)\)|([\w.]+)\b(.*))$', re.MULTILINE)
_OPERAND = re.compile(r"%[^\s,:()\[\]{}<>]+")
_CUTS = (" : ", " {", " <{", " loc(", " (")
_REDUCTION = re.compile(r'^\s*%[^\s:=#,]+(?::[0-9]+)? = "tt\.(reduce|scan)"\(([^)]*)\)', re.MULTILINE)
_REDUCTION_NAME = re.compile(r"tt\.(?:reduce|scan)(?!\.return)")
# ops whose result has one value number with another only if their first operands have
# (none of them commutes: its operands are not interchangeable)
_POINTER_OPS = frozenset({"tt.addptr", "tt.splat", "tt.broadcast", "tt.expand_dims", "tt.reshape",
                          "tt.trans", "tt.advance", "tt.make_tensor_ptr", "ttg.convert_layout"})
_CONSTANT_LIKE = frozenset({"arith.constant", "tt.splat"})  # a splat of a constant == a dense constant
_REGION_OPS = frozenset({"tt.reduce", "tt.scan", "scf.if", "scf.for", "scf.while", "scf.execute_region",
                         "tt.map_elementwise"})
_DEPTH = 8


class _Text:
    """A module's text with what the preconditions read from it, each part computed once:
    the function's arguments and, per SSA value defined by a one-line single-result op, that
    op's name and operands (as printed, before the first `` : ``, attribute dictionary or
    location).  ``None`` for ``args``/``defs`` when the text has not exactly one function
    (SSA names are per function)."""

    def __init__(self, text: str):
        self.text = text
        self._parsed = False
        self.args: set[str] | None = None
        self.defs: dict[str, tuple[str, list[str]]] | None = None

    @staticmethod
    def of(text) -> "_Text":
        return text if isinstance(text, _Text) else _Text(text)

    def parse(self) -> bool:
        if not self._parsed:
            self._parsed = True
            funcs = _FUNC_LINE.findall(self.text)
            if len(funcs) == 1:
                self.args = set(_FUNC_ARG.findall(funcs[0]))
                self.defs = {}
                for name, generic, generic_operands, op, rest in _DEF.findall(self.text):
                    if generic:
                        self.defs[name] = (generic, _OPERAND.findall(generic_operands))
                        continue
                    cut = len(rest)
                    for c in _CUTS:
                        i = rest.find(c)
                        if 0 <= i < cut:
                            cut = i
                    self.defs[name] = (op, _OPERAND.findall(rest[:cut]))
        return self.defs is not None

    def shape(self, value: str, depth: int = _DEPTH, memo: dict | None = None):
        """What ``value`` is made of, as far as value numbering can tell values apart: a
        function argument or a ``tt.load`` is itself; a constant (or splat) matches any
        constant; an op its name and its operands' shapes; ``None`` (matches anything) for
        a block argument, a region op's or multi-result op's result, or past ``depth``."""
        memo = {} if memo is None else memo
        key = (value, depth)
        if key in memo:
            return memo[key]
        if value in self.args:
            shape = ("arg", value)
        elif depth == 0 or value not in self.defs:
            shape = None
        else:
            op, operands = self.defs[value]
            if op in _CONSTANT_LIKE:
                shape = ("const",)
            elif op == "tt.load":
                shape = ("value", value)  # loads are never numbered alike
            elif op in _REGION_OPS:
                shape = None
            else:
                shape = (op, tuple(self.shape(o, depth - 1, memo) for o in operands))
        memo[key] = shape
        return shape


def _alike(a, b) -> bool:
    """Whether two shapes may be values of one number (two-operand ops: in either order)."""
    if a is None or b is None:
        return True
    if a[0] != b[0]:
        return False
    if a[0] in ("arg", "value"):
        return a[1] == b[1]
    if a[0] == "const":
        return True
    x, y = a[1], b[1]
    if len(x) != len(y):
        return False
    if len(x) == 2 and _alike(x[0], y[1]) and _alike(x[1], y[0]):
        return True
    return all(_alike(p, q) for p, q in zip(x, y))


def _two_loads_of_one_pointer(text) -> bool:
    """Two ``tt.load`` that may read one address: the same printed type (the type after the
    last `` : `` of the op's line, its ``loc(#locN)`` aside), and the same *root* pointer or
    one of the roots unknown.

    Why this holds for any two loads ``redundant-load`` merges: they read one address, that
    is, pointers with one value number, so one type, printed the same way.  Two values have
    one value number only if they are one value, or results of the same op whose operands
    have one number in order (or swapped, for a commuting op); so following the first
    operand through ``tt.addptr``, ``tt.splat``, ``tt.broadcast`` ... (ops that do not
    commute) from both pointers reaches, at each step, values of one number.  Where both
    chains end at a function argument (the *root*), the two must be the same argument (an
    argument's number is its own).  A chain that ends anywhere else (a block argument, a
    load, an op not listed, a generic-form op) has an unknown root, which matches any.
    Anything unexpected in the text (several functions, ``tt.load`` elsewhere than as an
    op's name, a location that is not an alias) answers True."""
    t = _Text.of(text)
    count = t.text.count("tt.load")
    if count < 2:
        return False
    if '"tt.load"' in t.text:  # generic form: another spelling of the same type
        return True
    lines = _LOAD_LINE.findall(t.text)
    if len(lines) != count:  # "tt.load" twice on a line, or inside a string: cannot tell
        return True
    loads = []
    for line in lines:
        pointer = _LOAD_POINTER.search(line)
        line = _LOC_ALIAS.sub("", line)
        if pointer is None or "loc(" in line or " : " not in line:
            return True
        loads.append((line.rsplit(" : ", 1)[1], pointer.group(1)))
    if len({typ for typ, _ in loads}) == count:
        return False  # no two of one type
    if not t.parse():
        return True

    def root(value: str) -> str | None:
        for _ in range(len(t.defs) + 1):
            op, operands = t.defs.get(value, (None, ()))
            if op not in _POINTER_OPS or not operands:
                break
            value = operands[0]
        return value if value in t.args else None

    seen: dict[str, set] = {}
    for typ, pointer in loads:
        r = root(pointer)
        roots = seen.setdefault(typ, set())
        if roots and (r is None or None in roots or r in roots):
            return True
        roots.add(r)
    return False


def _two_reductions_alike(text) -> bool:
    """Two ``tt.reduce`` (or two ``tt.scan``) whose operands may have one value number,
    operand by operand (:meth:`_Text.shape`, :func:`_alike`).  ``redundant-reduce`` merges
    only reductions whose operands have one number each, and two values have one number only
    if they are one value, constants of the same bits, or results of the same op from
    operands of one number (in order, or swapped for a two-operand op).  (When this is
    false for every pass, no earlier pass changes the module: loads stay the values they
    are.)"""
    t = _Text.of(text)
    count = len(_REDUCTION_NAME.findall(t.text))
    if count < 2:
        return False
    starts = _REDUCTION.findall(t.text)
    if len(starts) != count or not t.parse():
        return True
    memo: dict = {}
    seen: list[tuple[str, list]] = []
    for kind, operands in starts:
        shapes = [t.shape(o, _DEPTH, memo) for o in _OPERAND.findall(operands)]
        for other_kind, other in seen:
            if other_kind == kind and len(other) == len(shapes) and all(map(_alike, other, shapes)):
                return True
        seen.append((kind, shapes))
    return False


def _division_of_a_division(text) -> bool:
    """An ``arith.divf`` with an operand that is, through ops of one operand (``tt.splat``,
    ``tt.broadcast``, ``tt.expand_dims`` ... and any other), another ``arith.divf``: every
    rewrite of ``div-chain`` replaces such a pair (case 1 ``(a/b)/c``, case 2 ``c/(a/b)``,
    case 3 ``(a/b)/(c/d)``, the inner division reached through lift ops)."""
    t = _Text.of(text)
    count = t.text.count("arith.divf")
    if count < 2:
        return False
    if not t.parse():
        return True
    divisions = [operands for op, operands in t.defs.values() if op == "arith.divf"]
    if len(divisions) != count:  # a division on a line of its own kind, or in a string
        return True
    for operands in divisions:
        for value in operands:
            for _ in range(len(t.defs) + 1):
                op, inner = t.defs.get(value, (None, ()))
                if op == "arith.divf":
                    return True
                if len(inner) != 1:
                    break
                value = inner[0]
    return False


PRECONDITIONS = {
    "redundant-load": _two_loads_of_one_pointer,
    "redundant-reduce": _two_reductions_alike,
    "div-chain": _division_of_a_division,
    "recip-hoist": lambda text: "arith.divf" in _Text.of(text).text,
}
"""For ttopt's own passes: a condition on the module's text without which the pass rewrites
nothing (false only when it can be sure; each takes the text or a :class:`_Text`).  Counting
an op's name in the text counts every op of that name (MLIR prints each op's full name, in
custom and generic form), and possibly more (the name inside a string): never fewer.  A
wrong False could only make the hook miss a rewrite, never change what a kernel computes;
``test/test_triton_hook.py`` checks every fixture kernel and lit case of each pass."""


def may_rewrite(pipeline: Sequence, text: str) -> bool:
    """False only if no pass of ``pipeline`` (pass instances) can rewrite anything in the
    module ``text``: every pass is ttopt's own class (not a subclass, not a replacement) with
    a precondition in :data:`PRECONDITIONS`, and each precondition is false."""
    from .passes import PASSES

    t = _Text(text)
    for p in pipeline:
        name = getattr(p, "name", None)
        check = PRECONDITIONS.get(name)
        if check is None or type(p) is not PASSES.get(name) or check(t):
            return True
    return False


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

    return run_deep(work, braces=text.count("{"))


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
