"""What ``ttopt.triton_hook`` adds to Triton's compile time, on the CPU.

    python -m bench.hook_overhead [CORPUS_MODEL_DIR ...] [--every 8] [--rounds 5]
        [--pass redundant-load --pass ...] [--stage ttir [--stage ttgir]] [--out FILE]

Compiles real Inductor kernels (the ``@triton.jit`` functions of the corpus's kernel modules,
``../shared/corpus/inductor-triton3.6-h200/<model>/kernels/*.py``: their ``triton_meta``
signature and divisibility attributes, block sizes as Inductor's heuristics start from) with
Triton 3.6 all the way to a cubin for ``GPUTarget("cuda", 90, 32)`` (ptxas is bundled: no GPU
needed), each kernel once without and once with the hook enabled, in a random order, for
``--rounds`` rounds, on a fresh Triton cache (``always_compile``).  The kernels whose source
needs torch's own ``triton_helpers`` (online softmax, ``max``) are skipped: they cannot be
imported without torch.

Reported, for every stage set (``--stage``, repeatable; default: ``ttir``, then ``ttir`` +
``ttgir``):

* **overhead**: ``sum(with hook) / sum(without) - 1`` over every (kernel, round) pair, wall
  time, with a 95% bootstrap confidence interval (kernels resampled, then rounds within each
  kernel: both compiles of a pair stay together).  The hook's target is <= 5%.
* **in hook**: the time spent inside the hook itself (the wrapped stage minus Triton's own
  stage function), over the compile time without it: the same quantity measured directly,
  much less noisy on a shared machine.
* per-kernel medians, and how many kernels the passes changed.

``--baseline FILE``: another version of ``ttopt/triton_hook.py`` (``git show
REV:ttopt/triton_hook.py > old.py``) compiled in the same rounds, a third variant in the random
order, so that before and after are measured under the same conditions.

Wall time includes ptxas (a child process); the CPU time of the process and its children is
reported too.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import pathlib
import random
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "inductor-triton3.6-h200"
MODELS = ("BERT_pytorch.train32", "hf_Bert.train", "coat_lite_mini.train")
DEFAULT_PASSES = ("redundant-load", "redundant-reduce", "div-chain")

_HEADER = """\
import triton
import triton.language as tl
from triton.language.extra import libdevice
"""


@dataclass
class Kernel:
    name: str
    path: str  # the corpus kernel module
    fn: object  # the triton.jit function
    signature: dict
    constexprs: dict
    attrs: dict
    num_warps: int

    def source(self):
        import triton

        return triton.compiler.ASTSource(fn=self.fn, signature=self.signature, constexprs=self.constexprs,
                                         attrs=self.attrs)


def _block_sizes(kind: str, params: list[str]) -> tuple[dict, int]:
    """Block sizes and warps as Inductor's heuristics start from (not autotuned: any
    corpus-like config will do for the compile time)."""
    if kind == "pointwise":
        if "ZBLOCK" in params:
            sizes = {"ZBLOCK": 1, "YBLOCK": 16, "XBLOCK": 16}
        elif "YBLOCK" in params:
            sizes = {"YBLOCK": 32, "XBLOCK": 32}
        else:
            sizes = {"XBLOCK": 1024}
        return sizes, 4
    if kind == "persistent_reduction":
        return {"XBLOCK": 1}, 8
    return {"XBLOCK": 1, "R0_BLOCK": 2048}, 16


def _triton_meta(deco: ast.Call) -> dict:
    for kw in deco.keywords:
        if kw.arg == "triton_meta" and isinstance(kw.value, ast.Dict):
            out = {}
            for k, v in zip(kw.value.keys, kw.value.values):
                if isinstance(k, ast.Constant) and k.value in ("signature", "constants", "configs"):
                    out[k.value] = ast.literal_eval(v)
            return out
    return {}


def load_kernel(path: pathlib.Path, work: pathlib.Path) -> Kernel | None:
    """The corpus module's ``@triton.jit`` function, imported without torch; None when it
    needs torch's ``triton_helpers``."""
    text = path.read_text()
    tree = ast.parse(text)
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or not node.name.startswith("triton_"):
            continue
        heuristic = next((d for d in node.decorator_list if isinstance(d, ast.Call)
                          and isinstance(d.func, ast.Attribute) and isinstance(d.func.value, ast.Name)
                          and d.func.value.id == "triton_heuristics"), None)
        if heuristic is None:
            continue
        body = ast.get_source_segment(text, node)
        if "triton_helpers." in body or "tl_math." in body:
            return None
        meta = _triton_meta(heuristic)
        params = [a.arg for a in node.args.args]
        sizes, warps = _block_sizes(heuristic.func.attr, params)
        constexprs = {p: sizes.get(p, 1) for p, t in meta["signature"].items() if t == "constexpr"}
        constexprs.update(meta.get("constants") or {})
        mod_path = work / f"{node.name}.py"
        mod_path.write_text(_HEADER + "\n\n@triton.jit\n" + body + "\n")
        spec = importlib.util.spec_from_file_location(f"hook_overhead_{node.name}", mod_path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        configs = meta.get("configs") or [{}]
        return Kernel(node.name, str(path), getattr(mod, node.name), dict(meta["signature"]), constexprs,
                      dict(configs[0]), warps)
    return None


def load_kernels(dirs: list[pathlib.Path], every: int = 1, limit: int | None = None,
                 work: pathlib.Path | None = None, also: list[str] = ()) -> list[Kernel]:
    """Every ``every``-th kernel module of ``dirs`` (sorted), and those whose name matches a
    glob of ``also``, that import without torch."""
    import fnmatch

    work = work or pathlib.Path(tempfile.mkdtemp(prefix="ttopt-hook-overhead-"))
    every_file = sorted(p for d in dirs for p in pathlib.Path(d).glob("*.py"))
    chosen = set(every_file[::every]) | {p for p in every_file if any(fnmatch.fnmatch(p.name, g) for g in also)}
    files = [p for p in every_file if p in chosen]
    out = []
    for p in files:
        k = load_kernel(p, work)
        if k is not None:
            out.append(k)
        if limit is not None and len(out) >= limit:
            break
    return out


def compile_kernel(k: Kernel):
    import triton
    from triton.backends.compiler import GPUTarget

    return triton.compile(k.source(), target=GPUTarget("cuda", 90, 32), options={"num_warps": k.num_warps})


# ------------------------------------------------------------------------------ statistics
def _cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def overhead_ci(pairs: dict[str, list[tuple[float, float]]], n_boot: int = 2000, seed: int = 0
                ) -> tuple[float, float, float]:
    """``sum(on)/sum(off) - 1`` over every (kernel, round) pair and its 95% CI from a
    two-level bootstrap (kernels with replacement, then rounds within each kernel)."""
    names = sorted(pairs)

    def est(sample):
        on = sum(b for pr in sample for _, b in pr)
        off = sum(a for pr in sample for a, _ in pr)
        return on / off - 1.0

    value = est([pairs[n] for n in names])
    rng = random.Random(seed)
    boots = []
    for _ in range(n_boot):
        sample = []
        for _k in names:
            pr = pairs[rng.choice(names)]
            sample.append([pr[rng.randrange(len(pr))] for _ in pr])
        boots.append(est(sample))
    boots.sort()
    return value, boots[int(0.025 * n_boot)], boots[int(0.975 * n_boot) - 1]


@dataclass
class Result:
    stages: tuple[str, ...]
    variant: str = "hook"  # which hook: "hook" (ttopt.triton_hook) or "baseline" (--baseline FILE)
    wall: dict[str, list[tuple[float, float]]] = field(default_factory=dict)  # kernel -> [(off, on)]
    cpu: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    in_hook: dict[str, list[float]] = field(default_factory=dict)
    changed: set[str] = field(default_factory=set)
    warm_up_s: float = 0.0  # one compile without, one with the hook, ttopt's first run: once per process

    def summary(self) -> dict:
        w = overhead_ci(self.wall)
        c = overhead_ci(self.cpu)
        off_total = sum(a for pr in self.wall.values() for a, _ in pr)
        hook_total = sum(t for ts in self.in_hook.values() for t in ts)
        per_kernel = {k: statistics.median(b / a - 1 for a, b in pr) for k, pr in self.wall.items()}
        return {
            "variant": self.variant, "stages": list(self.stages), "kernels": len(self.wall),
            "rounds": len(next(iter(self.wall.values()))) if self.wall else 0,
            "changed_kernels": len(self.changed),
            "median_compile_ms": statistics.median(a for pr in self.wall.values() for a, _ in pr) * 1000,
            "overhead_wall": w, "overhead_cpu": c,
            "in_hook": hook_total / off_total if off_total else 0.0,
            "in_hook_ms_per_compile": 1000 * hook_total / max(1, sum(len(t) for t in self.in_hook.values())),
            "warm_up_s": self.warm_up_s,
            "per_kernel_median_overhead": per_kernel,
        }


def load_baseline(path: pathlib.Path):
    """Another version of ``ttopt/triton_hook.py`` (e.g. ``git show HEAD~1:ttopt/triton_hook.py``)
    as a module of the ``ttopt`` package, to be timed beside the current one."""
    spec = importlib.util.spec_from_file_location("ttopt._triton_hook_baseline", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


# ------------------------------------------------------------------------------ measuring
def measure(kernels: list[Kernel], passes: list[str], stages: tuple[str, ...], rounds: int, seed: int = 0,
            log=print, baseline=None) -> list[Result]:
    """Each kernel compiled without a hook, with ``ttopt.triton_hook`` and (``baseline``: a
    module loaded by :func:`load_baseline`) with the baseline hook, in a random order per
    kernel and round; a fresh hook state (nothing remembered) for every compile."""
    import triton

    import ttopt.triton_hook as hook

    hooks = {"hook": hook} | ({"baseline": baseline} if baseline is not None else {})
    results = {name: Result(stages, name) for name in hooks}
    rng = random.Random(seed)
    in_hook = {"t": 0.0}
    originals = {name: mod._rewrite for name, mod in hooks.items()}

    def timed(original):
        def timed_rewrite(*args):
            t0 = time.perf_counter()
            try:
                return original(*args)
            finally:
                in_hook["t"] += time.perf_counter() - t0

        return timed_rewrite

    triton.knobs.compilation.always_compile = True
    for name, mod in hooks.items():
        mod._rewrite = timed(originals[name])
    try:
        if kernels:  # warm-up: imports, first-time initialisation in Triton and in ttopt
            import ttopt

            t0 = time.perf_counter()
            first = compile_kernel(kernels[0])
            ttopt.run_pipeline(first.asm["ttir"], passes, "<warm-up>")
            for name, mod in hooks.items():
                with mod.enabled(passes, stages):
                    compile_kernel(kernels[0])
            for r in results.values():
                r.warm_up_s = time.perf_counter() - t0
        for r in range(rounds):
            order = list(kernels)
            rng.shuffle(order)
            for k in order:
                sample = {}
                for variant in rng.sample(["off", *hooks], len(hooks) + 1):
                    in_hook["t"] = 0.0
                    mod = hooks.get(variant)
                    if mod is not None:
                        mod.enable(passes, stages)
                    try:
                        c0, t0 = _cpu(), time.perf_counter()
                        compile_kernel(k)
                        t1, c1 = time.perf_counter(), _cpu()
                        recs = mod.records() if mod is not None else []
                    finally:
                        if mod is not None:
                            mod.disable()
                    sample[variant] = (t1 - t0, c1 - c0, in_hook["t"])
                    if recs:
                        results[variant].changed.add(k.name)
                for name, res in results.items():
                    res.wall.setdefault(k.name, []).append((sample["off"][0], sample[name][0]))
                    res.cpu.setdefault(k.name, []).append((sample["off"][1], sample[name][1]))
                    res.in_hook.setdefault(k.name, []).append(sample[name][2])
            log(f"  round {r + 1}/{rounds} done")
    finally:
        for name, mod in hooks.items():
            mod._rewrite = originals[name]
        triton.knobs.compilation.always_compile = False
    return list(results.values())


def report(results: list[Result], passes: list[str]) -> str:
    lines = [f"ttopt.triton_hook overhead, passes {','.join(passes)} (Triton compile to cubin, "
             "GPUTarget('cuda', 90, 32), on the CPU)", ""]
    lines.append("| hook | stages | kernels | rounds | changed | median compile | overhead, wall [95% CI] "
                 "| overhead, CPU [95% CI] | in hook | in hook per compile |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        s = r.summary()
        w, c = s["overhead_wall"], s["overhead_cpu"]
        lines.append(
            f"| {s['variant']} | {'+'.join(s['stages'])} | {s['kernels']} | {s['rounds']} | {s['changed_kernels']} "
            f"| {s['median_compile_ms']:.1f} ms | {100 * w[0]:+.1f}% [{100 * w[1]:+.1f}, {100 * w[2]:+.1f}] "
            f"| {100 * c[0]:+.1f}% [{100 * c[1]:+.1f}, {100 * c[2]:+.1f}] | {100 * s['in_hook']:.2f}% "
            f"| {s['in_hook_ms_per_compile']:.2f} ms |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.hook_overhead", description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="*", type=pathlib.Path,
                    help="folders of Inductor kernel modules (default: the corpus's three models)")
    ap.add_argument("--every", type=int, default=8, help="every N-th kernel module (default 8)")
    ap.add_argument("--limit", type=int, default=None, help="at most this many kernels")
    ap.add_argument("--also", action="append", default=[], metavar="GLOB",
                    help="also the kernel modules whose file name matches GLOB (e.g. kernels a pass rewrites)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--pass", dest="passes", action="append", default=None)
    ap.add_argument("--stage", dest="stages", action="append", default=None,
                    help="ttir and/or ttgir (default: ttir, then ttir+ttgir)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--baseline", type=pathlib.Path, default=None,
                    help="another version of ttopt/triton_hook.py, timed interleaved with the current one")
    ap.add_argument("--out", type=pathlib.Path, default=None, help="also write the report (and a .json) here")
    args = ap.parse_args(argv)
    import triton

    dirs = args.dirs or [CORPUS / m / "kernels" for m in MODELS]
    passes = args.passes or list(DEFAULT_PASSES)
    stage_sets = [tuple(args.stages)] if args.stages else [("ttir",), ("ttir", "ttgir")]
    saved = triton.knobs.cache.dir
    with tempfile.TemporaryDirectory(prefix="ttopt-hook-overhead-") as tmp:
        triton.knobs.cache.dir = os.path.join(tmp, "cache")
        kernels = load_kernels(dirs, args.every, args.limit, pathlib.Path(tmp), args.also)
        print(f"{len(kernels)} kernels, {args.rounds} rounds, passes {','.join(passes)}", file=sys.stderr)
        baseline = load_baseline(args.baseline) if args.baseline else None
        results = []
        for stages in stage_sets:
            print(f"stages {'+'.join(stages)}:", file=sys.stderr)
            results.extend(measure(kernels, passes, stages, args.rounds, args.seed,
                                   log=lambda m: print(m, file=sys.stderr), baseline=baseline))
        triton.knobs.cache.dir = saved
    text = report(results, passes)
    sys.stdout.write(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
        data = [{**r.summary(), "wall": r.wall, "cpu": r.cpu, "in_hook_s": r.in_hook} for r in results]
        args.out.with_suffix(".json").write_text(json.dumps(data, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
