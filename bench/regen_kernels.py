"""Regenerate Inductor kernel modules for more models, on a GPU machine.

    python -m bench.regen_kernels OUT_DIR [--model timm:resnet18] [--model hf:gpt2] [--batch 8]

Compiles one training step (forward + backward, AMP fp16 for timm/transformers models) with
``torch.compile`` and ``TORCHINDUCTOR_BENCHMARK_KERNEL=1``, so that every generated kernel
module carries ``get_args()`` and ``call(args)``; then copies those modules to
``OUT_DIR/<model>/kernels/``, ready for ``python -m bench.override OUT_DIR/<model>/kernels``.
Models are built with random weights (no download): ``timm.create_model(name,
pretrained=False, **kwargs)`` (``timm:NAME:key=value,...``; ``timm:vit_base_patch16_224:depth=2``)
and ``transformers`` configs with ``attn_implementation="eager"`` (softmax in Triton, not in a
fused attention kernel) and 2 layers: ``hf:bert``, ``hf:gpt2``, ``hf:distilbert``, ``hf:t5``,
``hf:roberta``, ``hf:albert``.  Two kernels with one name but different code (forward and
backward graphs number their kernels separately) are both kept, the second as ``NAME__2.py``.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import sys
import tempfile


def _kwargs(text: str) -> dict:
    out = {}
    for item in filter(None, text.split(",")):
        k, _, v = item.partition("=")
        try:
            out[k] = int(v)
        except ValueError:
            try:
                out[k] = float(v)
            except ValueError:
                out[k] = v
    return out


HF_MODELS = ("bert", "gpt2", "distilbert", "t5", "roberta", "albert")


def build(spec: str, batch: int):
    """(model, inputs, use AMP) for ``timm:NAME[:k=v,...]`` or ``hf:NAME``."""
    import torch

    kind, _, rest = spec.partition(":")
    name, _, extra = rest.partition(":")
    if kind == "timm":
        import timm

        model = timm.create_model(name, pretrained=False, **_kwargs(extra)).cuda()
        size = model.default_cfg.get("input_size", (3, 224, 224))
        x = torch.randn(batch, *size, device="cuda")
        return model, (x,), True
    if kind == "hf":
        import transformers as tf

        seq = 128
        ids = torch.randint(0, 1000, (batch, seq), device="cuda")
        eager = {"attn_implementation": "eager"}
        if name == "bert":
            model = tf.BertModel(tf.BertConfig(num_hidden_layers=2, **eager))
        elif name == "roberta":
            model = tf.RobertaModel(tf.RobertaConfig(num_hidden_layers=2, **eager))
        elif name == "albert":
            model = tf.AlbertModel(tf.AlbertConfig(num_hidden_layers=2, **eager))
        elif name == "gpt2":
            model = tf.GPT2Model(tf.GPT2Config(n_layer=2, **eager))
        elif name == "distilbert":
            model = tf.DistilBertModel(tf.DistilBertConfig(n_layers=2, **eager))
        elif name == "t5":
            model = tf.T5Model(tf.T5Config(num_layers=2, num_decoder_layers=2, **eager)).cuda()
            return model, {"input_ids": ids, "decoder_input_ids": ids[:, :32]}, True
        else:
            raise SystemExit(f"unknown transformers model {name!r} (supported: {', '.join(HF_MODELS)})")
        return model.cuda(), (ids,), True
    raise SystemExit(f"model spec must be timm:NAME[:k=v,...] or hf:NAME, got {spec!r}")


def _first_tensor(out):
    import torch

    if isinstance(out, torch.Tensor):
        return out
    if hasattr(out, "last_hidden_state"):
        return out.last_hidden_state
    if isinstance(out, (tuple, list)):
        return _first_tensor(out[0])
    raise TypeError(f"no tensor in model output {type(out)}")


def model_dir(spec: str) -> str:
    """Folder name of a model spec: ``timm:vit_base_patch16_224:depth=2`` -> ``timm_vit_base_patch16_224``."""
    kind, _, rest = spec.partition(":")
    return f"{kind}_{rest.partition(':')[0]}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=pathlib.Path)
    ap.add_argument("--model", action="append", default=[], help="timm:NAME[:k=v,...] or hf:NAME (repeatable)")
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
            out = compiled(**inputs) if isinstance(inputs, dict) else compiled(*inputs)
            loss = _first_tensor(out).float().mean()
        loss.backward()
        torch.cuda.synchronize()
        dst = args.out / model_dir(spec) / "kernels"
        dst.mkdir(parents=True, exist_ok=True)
        n = 0
        for f in sorted(cache.rglob("*.py")):
            text = f.read_text(errors="replace")
            m = re.search(r"^def (triton_\w+)\(", text, re.MULTILINE)
            if m and "def get_args()" in text and "def call(args)" in text:
                target = dst / f"{m.group(1)}.py"
                k = 2
                while target.exists() and target.read_text(errors="replace") != text:
                    target = dst / f"{m.group(1)}__{k}.py"
                    k += 1
                if not target.exists():
                    target.write_text(text)
                    n += 1
        print(f"{spec}: {n} kernel modules -> {dst}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
