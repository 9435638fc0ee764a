"""Regenerate Inductor kernel modules for more models, on a GPU machine.

    python -m bench.regen_kernels OUT_DIR [--model timm:resnet18] [--model hf:bert] [--batch 8]

Compiles one training step (forward + backward, AMP fp16 for timm/transformers models) with
``torch.compile`` and ``TORCHINDUCTOR_BENCHMARK_KERNEL=1``, so that every generated kernel
module carries ``get_args()`` and ``call(args)``; then copies those modules to
``OUT_DIR/<model>/kernels/``, ready for ``python -m bench.override OUT_DIR/<model>/kernels``.
Models are built with random weights (no download): ``timm.create_model(name,
pretrained=False)`` and ``transformers`` configs.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import shutil
import sys
import tempfile


def build(spec: str, batch: int):
    import torch

    kind, name = spec.split(":", 1)
    if kind == "timm":
        import timm

        model = timm.create_model(name, pretrained=False).cuda()
        size = model.default_cfg.get("input_size", (3, 224, 224))
        x = torch.randn(batch, *size, device="cuda")
        return model, (x,), True
    if kind == "hf":
        from transformers import BertConfig, BertModel

        if name != "bert":
            raise SystemExit(f"unknown transformers model {name!r} (supported: bert)")
        model = BertModel(BertConfig(num_hidden_layers=2, attn_implementation="eager")).cuda()
        ids = torch.randint(0, 30000, (batch, 128), device="cuda")
        return model, (ids,), True
    raise SystemExit(f"model spec must be timm:NAME or hf:bert, got {spec!r}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=pathlib.Path)
    ap.add_argument("--model", action="append", default=[], help="timm:NAME or hf:bert (repeatable)")
    ap.add_argument("--batch", type=int, default=8)
    args = ap.parse_args(argv)
    models = args.model or ["timm:resnet18"]

    for spec in models:
        cache = pathlib.Path(tempfile.mkdtemp(prefix="inductor-"))
        os.environ.update({
            "TORCHINDUCTOR_CACHE_DIR": str(cache),
            "TORCHINDUCTOR_BENCHMARK_KERNEL": "1",
            "TORCHINDUCTOR_FX_GRAPH_CACHE": "0",
            "TORCHINDUCTOR_AUTOGRAD_CACHE": "0",
        })
        import torch

        torch._dynamo.reset()
        model, inputs, amp = build(spec, args.batch)
        compiled = torch.compile(model)
        with torch.autocast("cuda", dtype=torch.float16, enabled=amp):
            out = compiled(*inputs)
            loss = (out[0] if isinstance(out, tuple) else getattr(out, "last_hidden_state", out)).float().mean()
        loss.backward()
        torch.cuda.synchronize()
        dst = args.out / spec.replace(":", "_") / "kernels"
        dst.mkdir(parents=True, exist_ok=True)
        n = 0
        for f in cache.rglob("*.py"):
            text = f.read_text(errors="replace")
            m = re.search(r"^def (triton_\w+)\(", text, re.MULTILINE)
            if m and "def get_args()" in text and "def call(args)" in text:
                shutil.copy(f, dst / f"{m.group(1)}.py")
                n += 1
        print(f"{spec}: {n} kernel modules -> {dst}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
