"""A torch.compile'd BERT_pytorch training step with and without ttopt's in-process hook.

    python -m bench.hook_bert MODEL_PY --out DIR [--pass div-chain ...]

MODEL_PY is ``shared/models/bert_pytorch.py`` (BertPytorch, 2 layers, batch 16 x 128, fp32).
Two processes, each with fresh Triton and Inductor cache dirs and Inductor compiling in
process (so the hook sees every kernel): one plain, one with ``ttopt.triton_hook`` enabled.
Each runs, from seed 0: forward, loss = mean(out^2), backward, one SGD step, forward again.
Compares the losses and the gradient norm (bound 1e-4 relative) and writes the hook's log of
what it rewrote.  Needs a GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent


def step(model_py: str, variant: str, passes: list[str], log_path: str) -> dict:
    import importlib.util

    import torch

    if variant == "ttopt":
        import ttopt.triton_hook as hook

        hook.enable(passes, ["ttir"], log=log_path)
    spec = importlib.util.spec_from_file_location("bert_pytorch", model_py)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    torch.manual_seed(0)
    model = mod.BertPytorch().cuda()
    ids = torch.randint(1, 20000, (16, 128), device="cuda")
    seg = torch.randint(1, 3, (16, 128), device="cuda")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    compiled = torch.compile(model)
    torch.manual_seed(1)
    loss0 = compiled(ids, seg).pow(2).mean()
    loss0.backward()
    grad_norm = torch.sqrt(sum((p.grad.double() ** 2).sum() for p in model.parameters() if p.grad is not None))
    opt.step()
    opt.zero_grad()
    torch.manual_seed(2)
    loss1 = compiled(ids, seg).pow(2).mean()
    loss1.backward()
    torch.cuda.synchronize()
    out = {"loss": loss0.item(), "grad_norm": grad_norm.item(), "loss_after_step": loss1.item()}
    if variant == "ttopt":
        import ttopt.triton_hook as hook

        out["rewrites"] = hook.records()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model_py")
    ap.add_argument("--out", type=pathlib.Path, required=True)
    ap.add_argument("--pass", dest="passes", action="append", default=[])
    ap.add_argument("--variant", choices=["base", "ttopt"], help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    passes = args.passes or ["redundant-load", "redundant-reduce", "div-chain"]
    args.out.mkdir(parents=True, exist_ok=True)
    log_path = str(args.out / "hook_log.txt")
    if args.variant:
        print("RESULT " + json.dumps(step(args.model_py, args.variant, passes, log_path)), flush=True)
        return 0

    results = {}
    for variant in ("base", "ttopt"):
        tmp = pathlib.Path(tempfile.mkdtemp(prefix=f"hook-{variant}-"))
        env = dict(
            os.environ,
            TRITON_CACHE_DIR=str(tmp / "triton"),
            TORCHINDUCTOR_CACHE_DIR=str(tmp / "inductor"),
            TORCHINDUCTOR_FX_GRAPH_CACHE="0",
            TORCHINDUCTOR_AUTOGRAD_CACHE="0",
            TORCHINDUCTOR_COMPILE_THREADS="1",  # compile in this process: the hook sees it
            PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        )
        cmd = [sys.executable, "-m", "bench.hook_bert", args.model_py, "--out", str(args.out), "--variant", variant]
        cmd += [x for p in passes for x in ("--pass", p)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
        line = next((l for l in proc.stdout.splitlines() if l.startswith("RESULT ")), None)
        if proc.returncode != 0 or line is None:
            print(proc.stdout[-3000:], proc.stderr[-5000:], file=sys.stderr)
            return 1
        results[variant] = json.loads(line[len("RESULT "):])
    rel = {
        k: abs(results["ttopt"][k] - results["base"][k]) / abs(results["base"][k])
        for k in ("loss", "grad_norm", "loss_after_step")
    }
    summary = {
        "passes": passes,
        "base": results["base"],
        "ttopt": {k: v for k, v in results["ttopt"].items() if k != "rewrites"},
        "relative_difference": rel,
        "within_1e-4": all(v <= 1e-4 for v in rel.values()),
        "rewrites": results["ttopt"]["rewrites"],
    }
    import torch
    import triton

    summary["gpu"] = torch.cuda.get_device_name(0)
    summary["triton"], summary["torch"] = triton.__version__, torch.__version__
    (args.out / "hook_bert.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps({k: v for k, v in summary.items() if k != "rewrites"}, indent=1))
    print(f"{len(summary['rewrites'])} rewrite records; divisions removed: "
          f"{sum(r['rewrites'] for r in summary['rewrites'] if r['pass'] == 'div-chain')}")
    return 0 if summary["within_1e-4"] else 1


if __name__ == "__main__":
    sys.exit(main())
