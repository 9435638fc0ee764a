"""A long-lived GPU worker: one variant (baseline, null override, optimized, ...) of the kernels
that ``bench.abtest`` times, driven over stdin/stdout so that several variants, each in its own
process with its own Triton cache, can be timed in alternation.

    python -m bench.worker VARIANT          (environment set by the controller)

Requests are JSON lines on stdin; each gets exactly one reply line on stdout starting with
``@@ttopt@@ `` (anything else on stdout, such as Triton's "Overriding kernel with file ...",
is passed through for the controller to log).  Commands:

  load     {key, path, kernel, config, dump_dir}: import the module, pin the config, compile
           (Triton dumps the chosen config's IR and cubin under dump_dir)
  run      {out_dir, rerun}: fresh fixed-seed inputs, one call, outputs saved (out_dir/run1.pt);
           with rerun, again (run2.pt): the baseline's own spread; then time a few calls
  capture  {inner}: a CUDA graph of `inner` calls (plain launches if capture fails)
  time     {n}: n samples, each one replay, in ms per call
  drop     free the kernel and its tensors
  quit
"""

from __future__ import annotations

import gc
import json
import os
import pathlib
import sys
import time
import traceback

MARK = "@@ttopt@@ "
FULL_SAVE_BYTES = 256 << 20  # outputs up to this size are saved whole; larger ones sampled
SAMPLE_ELEMS = 1 << 22  # elements kept per tensor when sampled


def reply(obj: dict) -> None:
    sys.stdout.write(MARK + json.dumps(obj) + "\n")
    sys.stdout.flush()


def load_module(path: pathlib.Path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"ttopt_bench_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def config_key(cfg) -> str:
    return str(cfg)


def pin_config(kern, key: str | None) -> bool:
    if key is None or not hasattr(kern, "configs"):
        return False
    chosen = [c for c in kern.configs if config_key(c) == key]
    if chosen:
        kern.configs = chosen
        return True
    return False


def no_rblock_scaling(kern) -> None:
    """Turn off Inductor's occupancy-driven R0_BLOCK halving (``dynamic_scale_rblock``): it adds
    configs after compiling, from the register count, which a rewrite can change; then the
    variants would not run the same config.  The tune phase turns it off too, so the recorded
    config is always one of the module's own."""
    meta = getattr(kern, "inductor_meta", None)
    if isinstance(meta, dict):
        meta["dynamic_scale_rblock"] = False


def fresh_args(mod):
    import torch

    torch.manual_seed(0)
    return list(mod.get_args())


def _int_view(t):
    import torch

    x = t.detach().contiguous().reshape(-1)
    size = x.element_size()
    dt = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[size]
    if x.dtype == torch.bool:
        x = x.to(torch.uint8)
    return x.view(dt)


def digest(t) -> list[int]:
    """Two position-weighted integer sums of the tensor's bits (on the GPU, in chunks): equal
    for bit-identical tensors; differing in practice for any difference."""
    import torch

    iv = _int_view(t)
    s1 = 0
    s2 = 0
    step = 1 << 24
    for i in range(0, iv.numel(), step):
        c = iv[i : i + step].to(torch.int64)
        w = (torch.arange(i, i + c.numel(), device=c.device, dtype=torch.int64) % 65521) + 1
        s1 = (s1 + int(c.sum().item())) % (1 << 61)
        s2 = (s2 + int((c * w).sum().item())) % (1 << 61)
    return [s1, s2]


def save_outputs(args, path: pathlib.Path) -> dict:
    """Save the tensor arguments after a call (Inductor kernels write in place).  Whole when
    small; else a strided sample of each plus its bit digest."""
    import torch

    tens = [a for a in args if isinstance(a, torch.Tensor)]
    total = sum(t.numel() * t.element_size() for t in tens)
    path.parent.mkdir(parents=True, exist_ok=True)
    if total <= FULL_SAVE_BYTES:
        torch.save({"full": True, "tensors": [t.detach().cpu() for t in tens]}, path)
    else:
        samples, digests = [], []
        for t in tens:
            flat = t.detach().reshape(-1) if t.is_contiguous() else t.detach().contiguous().reshape(-1)
            stride = max(1, flat.numel() // SAMPLE_ELEMS)
            samples.append(flat[::stride].cpu())
            digests.append(digest(t))
        torch.save({"full": False, "tensors": samples, "digests": digests}, path)
    return {"bytes": total, "full": total <= FULL_SAVE_BYTES}


def tensor_bytes(args) -> int:
    """Bytes of the distinct tensor storages among the arguments."""
    import torch

    seen, total = set(), 0
    for a in args:
        if isinstance(a, torch.Tensor):
            key = (a.untyped_storage().data_ptr(), a.untyped_storage().nbytes())
            if key not in seen:
                seen.add(key)
                total += a.untyped_storage().nbytes()
    return total


def launcher_info(kern) -> dict:
    launchers = getattr(kern, "launchers", None) or []
    if not launchers:
        return {}
    ln = launchers[0]
    out = {}
    for attr in ("n_regs", "n_spills", "shared"):
        v = getattr(ln, attr, None)
        if v is None and hasattr(ln, "bin"):
            v = getattr(ln.bin, attr, None)
        if isinstance(v, (int, float)):
            out[attr] = v
    cfg = getattr(ln, "config", None)
    if cfg is not None:
        out["config"] = config_key(cfg)
        out["num_warps"] = getattr(cfg, "num_warps", None)
        out["num_stages"] = getattr(cfg, "num_stages", None)
    return out


class State:
    def __init__(self):
        self.mod = None
        self.kern = None
        self.args = None
        self.fn = None
        self.graph = None
        self.inner = 1
        self.entry: dict = {}


def cmd_load(st: State, req: dict) -> dict:
    os.environ["TRITON_DUMP_DIR"] = req["dump_dir"]
    pathlib.Path(req["dump_dir"]).mkdir(parents=True, exist_ok=True)
    st.entry = req
    st.mod = load_module(pathlib.Path(req["path"]))
    st.kern = getattr(st.mod, req["kernel"], None)
    no_rblock_scaling(st.kern)
    pinned = pin_config(st.kern, req.get("config"))
    compiled = False
    n_launchers = None
    if st.kern is not None and hasattr(st.kern, "precompile"):
        st.kern.precompile()
        compiled = True
        launchers = getattr(st.kern, "launchers", None) or []
        n_launchers = len(launchers)
        if pinned and len(launchers) > 1:  # keep the pinned one: no autotuning at run time
            keep = [ln for ln in launchers if config_key(getattr(ln, "config", None)) == req.get("config")]
            if keep:
                st.kern.launchers = keep[:1]
    meta = getattr(st.kern, "inductor_meta", None) or {}
    return {"pinned": pinned, "precompiled": compiled, "n_launchers": n_launchers,
            "kernel_num_gb": meta.get("kernel_num_gb")}


def cmd_run(st: State, req: dict) -> dict:
    import torch

    out_dir = pathlib.Path(req["out_dir"])
    args = fresh_args(st.mod)
    st.mod.call(args)
    torch.cuda.synchronize()
    info = save_outputs(args, out_dir / "run1.pt")
    if req.get("rerun"):
        del args
        gc.collect()
        torch.cuda.empty_cache()
        args = fresh_args(st.mod)
        st.mod.call(args)
        torch.cuda.synchronize()
        save_outputs(args, out_dir / "run2.pt")
    # timing inputs: fresh again, so that every variant starts timing from the same state
    del args
    gc.collect()
    st.args = fresh_args(st.mod)
    mod, run_args = st.mod, st.args
    st.fn = lambda: mod.call(run_args)
    st.fn()
    torch.cuda.synchronize()
    # a rough time per call, for the number of calls per graph
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    reps = 3
    start.record()
    for _ in range(reps):
        st.fn()
    end.record()
    end.synchronize()
    est = start.elapsed_time(end) / reps
    return {"t_est_ms": est, "bytes_args": tensor_bytes(st.args), **info, **launcher_info(st.kern)}


def cmd_capture(st: State, req: dict) -> dict:
    import torch

    st.inner = int(req["inner"])
    st.graph = None
    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                st.fn()
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(st.inner):
                st.fn()
        g.replay()
        torch.cuda.synchronize()
        st.graph = g
        return {"graph": True}
    except Exception as e:  # not capturable: plain launches
        torch.cuda.synchronize()
        return {"graph": False, "why": f"{type(e).__name__}: {e}"[:300]}


def cmd_time(st: State, req: dict) -> dict:
    import torch

    out = []
    for _ in range(int(req["n"])):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        if st.graph is not None:
            st.graph.replay()
        else:
            for _ in range(st.inner):
                st.fn()
        end.record()
        end.synchronize()
        out.append(start.elapsed_time(end) / st.inner)
    return {"times_ms": out}


def cmd_drop(st: State, req: dict) -> dict:
    import torch

    st.graph = st.fn = st.args = st.kern = st.mod = None
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    return {}


COMMANDS = {"load": cmd_load, "run": cmd_run, "capture": cmd_capture, "time": cmd_time, "drop": cmd_drop}


def main(argv=None) -> int:
    import torch

    variant = (argv or sys.argv[1:] or ["?"])[0]
    torch.cuda.init()
    reply({"ok": True, "ready": variant, "pid": os.getpid()})
    st = State()
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        req = json.loads(line)
        cmd = req.get("cmd")
        if cmd == "quit":
            reply({"ok": True})
            return 0
        t0 = time.time()
        try:
            res = COMMANDS[cmd](st, req)
            reply({"ok": True, "cmd": cmd, "s": round(time.time() - t0, 3), **res})
        except Exception as e:
            reply({"ok": False, "cmd": cmd, "error": f"{type(e).__name__}: {e}"[:1000],
                   "traceback": traceback.format_exc()[-3000:]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
