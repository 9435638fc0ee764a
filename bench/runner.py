"""One benchmark process: runs kernel modules (``get_args()`` / ``call(args)``) on the GPU.

Started by :mod:`bench.override`, one process per phase and variant, each with its own
``TRITON_CACHE_DIR`` (an override does not change Triton's cache key), so that what one
variant compiled is never served to another.

    python -m bench.runner PHASE SPEC.json

PHASE:
  tune     import each module, run it once (Inductor autotunes), record the chosen config;
           with TRITON_KERNEL_DUMP=1 and an entry's ``dump_dir``, every config compiled is
           dumped under that folder (one folder per module: no name clashes between modules)
  dump     pin that config, run once with TRITON_KERNEL_DUMP on, save the outputs
  time     pin the config, check the outputs against the saved ones, time (baseline or
           optimized; TRITON_KERNEL_OVERRIDE decides which)
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import sys
import time
import traceback


def load_module(path: pathlib.Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def kernel_object(mod, name: str):
    return getattr(mod, name, None)


def config_key(cfg) -> str:
    return str(cfg)  # triton.Config's str lists kwargs, num_warps, num_stages...


def pin_config(kern, key: str | None) -> None:
    """Restrict an Inductor CachingAutotuner to one config (the baseline's choice)."""
    if key is None or not hasattr(kern, "configs"):
        return
    chosen = [c for c in kern.configs if config_key(c) == key]
    if chosen:
        kern.configs = chosen


def fresh_args(mod):
    import torch

    torch.manual_seed(0)
    return list(mod.get_args())


def tensors(args):
    import torch

    return [a for a in args if isinstance(a, torch.Tensor)]


def time_call(fn, runs: int, rep_ms: float) -> list[float]:
    """`runs` timings (ms per call), each from CUDA events around one replay of a CUDA graph
    holding as many calls as fill about `rep_ms` (launch gaps removed); warmed up first.
    Falls back to `triton.testing.do_bench` medians when the call cannot be captured."""
    import torch
    import triton.testing as tt

    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                fn()
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        estimate = tt.do_bench(fn, warmup=2, rep=5, return_mode="median")
        inner = int(min(1000, max(1, rep_ms / max(estimate, 1e-4))))
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(inner):
                fn()
        graph.replay()
        torch.cuda.synchronize()
        out = []
        for _ in range(runs):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            graph.replay()
            end.record()
            end.synchronize()
            out.append(start.elapsed_time(end) / inner)
        return out
    except Exception:  # not capturable: plain launches
        torch.cuda.synchronize()
        return [tt.do_bench(fn, warmup=5, rep=rep_ms, return_mode="median") for _ in range(runs)]


def main(argv=None) -> int:
    import torch

    phase, spec_path = (argv or sys.argv[1:])[:2]
    spec = json.loads(pathlib.Path(spec_path).read_text())
    work = pathlib.Path(spec["work"])
    results = {}
    for entry in spec["kernels"]:
        name, path = entry["name"], pathlib.Path(entry["path"])
        rec: dict = {"name": name}
        if entry.get("dump_dir"):
            os.environ["TRITON_DUMP_DIR"] = entry["dump_dir"]
        try:
            mod = load_module(path)
            kern = kernel_object(mod, entry.get("kernel", name))
            meta = getattr(kern, "inductor_meta", None)
            if isinstance(meta, dict):  # see bench.worker.no_rblock_scaling
                meta["dynamic_scale_rblock"] = False
            if phase == "tune":
                mod.call(fresh_args(mod))
                torch.cuda.synchronize()
                launchers = getattr(kern, "launchers", None) or []
                rec["config"] = config_key(launchers[0].config) if launchers and hasattr(launchers[0], "config") else None
            else:
                pin_config(kern, entry.get("config"))
                args = fresh_args(mod)
                mod.call(args)
                torch.cuda.synchronize()
                outs = [t.detach().cpu() for t in tensors(args)]
                ref_path = work / "outputs" / f"{entry['model']}__{name}.pt"
                if phase == "dump":
                    ref_path.parent.mkdir(parents=True, exist_ok=True)
                    torch.save(outs, ref_path)
                else:
                    from bench.report import relative_error

                    ref = torch.load(ref_path)
                    rec["max_rel_err"] = max((relative_error(o, r) for o, r in zip(outs, ref)), default=0.0)
                    run_args = fresh_args(mod)
                    rec["times_ms"] = time_call(lambda: mod.call(run_args), spec["runs"], spec["rep_ms"])
            rec["ok"] = True
        except Exception as e:  # one broken kernel must not stop the others
            rec["ok"] = False
            rec["error"] = f"{type(e).__name__}: {e}"
            rec["traceback"] = traceback.format_exc()[-2000:]
        results[f"{entry['model']}/{name}"] = rec
        print(f"[{phase}] {entry['model']}/{name}: {'ok' if rec['ok'] else rec['error'][:200]}", flush=True)
    out = pathlib.Path(spec["result"])
    out.write_text(json.dumps(results))
    return 0


if __name__ == "__main__":
    t0 = time.time()
    rc = main()
    print(f"runner done in {time.time() - t0:.1f}s", flush=True)
    sys.exit(rc)
