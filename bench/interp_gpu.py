"""Does the interpreter agree with the GPU?  Each kernel runs once on the GPU and once in
``ttopt.interp``, from the same memory contents, and every element of every pointer argument
is compared afterwards.

Per kernel: one program instance (grid (1, 1, 1), program id (0, 0, 0)); size arguments
(``xnumel``, ``r0_numel``, ``M`` ...) set to ``--numel`` (64), a matmul's ``stride_*`` those of
row-major matrices, other scalars drawn by the interpreter (seed 0); every pointer argument a buffer of ``--elements`` elements (1M) whose
contents are the interpreter's pseudo-random initial values.  The kernel is compiled by
Triton from its IR file (``triton.compile(path)``) and launched on those buffers.  Each kernel
runs in a process of its own (an illegal address ends that kernel's row, not the run).

    python -m bench.interp_gpu --select .carry/gpuk       (here: the sample, copied to carry)
    python -m bench.interp_gpu --out DIR KERNEL...       (on the GPU machine)

Writes DIR/interp_gpu.jsonl (one row per kernel) and DIR/interp_gpu.md (the table): per
kernel, the elements compared, how many differ, and the largest difference in ulps.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np


def _ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in units in the last place between float arrays of one dtype (NaN = NaN)."""
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    mask = (1 << (8 * a.dtype.itemsize - 1)) - 1

    def key(x):
        i = x.view(bits).astype(np.int64)
        return np.where(i < 0, -(i & mask), i)

    d = np.abs(key(a) - key(b))
    nan = np.isnan(a.astype(np.float64)) & np.isnan(b.astype(np.float64))
    return np.where(nan, 0, d)


def one(path: str, numel: int, elements: int, gpu: bool = True) -> dict:

    from ttopt.interp import run_kernel
    from ttopt.interp.run import as_program, draw_args, signature
    from ttopt.interp.memory import InitModel

    prog = as_program(open(path).read(), path)
    name, _, sig = signature(prog, None)
    model = InitModel()
    given = {}
    import re

    pat = re.compile(model.numel_pattern)
    for s in sig:
        if s[0] and pat.fullmatch(s[0]) and "i" in str(s[1]):
            given[s[0]] = numel
        elif s[0] and re.fullmatch(r"stride_[a-z][mkn]", s[0]):
            # a matmul's strides: row-major numel x numel matrices (drawn strides would make
            # lanes store to one address, in an order the GPU does not promise)
            given[s[0]] = 1 if s[0][-1] == ("k" if s[0][-2] == "a" else "n") else numel
    scal = draw_args(sig, 0, model, given, path)
    t0 = time.perf_counter()
    res = run_kernel(prog, name, pids=(0, 0, 0), num_programs=(1, 1, 1), seed=0, args=scal)
    t_interp = time.perf_counter() - t0

    if not gpu:
        return {"kernel": path, "function": name, "interp_s": round(t_interp, 3),
                "written": {s[0]: int(len(res.written_elements(i))) for i, s in enumerate(sig)
                            if res.pointees[i] is not None}}
    import torch
    import triton

    kernel = triton.compile(path)
    args, bufs = [], {}
    for i, s in enumerate(sig):
        arg_name = s[0] or f"arg{i}"
        if res.pointees[i] is not None:
            init = res.initial(i, 0, elements)
            if init.dtype == np.bool_:
                init = init.astype(np.uint8)
            t = torch.from_numpy(np.ascontiguousarray(init)).cuda()
            bufs[arg_name] = (i, t)
            args.append(t)
        else:
            args.append(scal[s[0]] if s[0] in scal else scal[i])
    kernel[(1, 1, 1)](*args)
    torch.cuda.synchronize()

    row = {"kernel": path, "function": name, "interp_s": round(t_interp, 3), "args": {}}
    total = differ = 0
    worst = 0
    for arg_name, (i, t) in bufs.items():
        gpu = t.cpu().numpy()
        cpu = res.read(i, 0, elements)
        if cpu.dtype == np.bool_:
            cpu = cpu.astype(np.uint8)
        written = res.written_elements(i)
        diff_idx = np.nonzero(gpu.view(np.uint8).reshape(len(gpu), -1) != cpu.view(np.uint8).reshape(len(cpu), -1))[0]
        diff_idx = np.unique(diff_idx)
        info = {"written": int(len(written)), "differ": int(len(diff_idx)), "dtype": str(cpu.dtype)}
        if len(diff_idx) and cpu.dtype.kind == "f":
            u = _ulps(gpu[diff_idx], cpu[diff_idx])
            info["max_ulps"] = int(u.max())
            worst = max(worst, int(u.max()))
        elif len(diff_idx):
            info["max_ulps"] = None
            worst = max(worst, 1 << 30)
        row["args"][arg_name] = info
        total += len(written)
        differ += len(diff_idx)
    row.update(compared=int(total), differ=int(differ), max_ulps=worst)
    return row


def select(dest: str, corpus: str = "../shared/corpus", seed: int = 7) -> list[str]:
    """The sample of bench/results/h100-interp: 10 pointwise, 8 persistent-reduction and 7
    looped-reduction Inductor TTGIR files drawn with ``seed``, and five kernels of
    corpus/small; copied into ``dest`` as NN_NAME.ttgir (names cut to 60 characters)."""
    import glob
    import random
    import shutil

    rng = random.Random(seed)
    files = sorted(glob.glob(f"{corpus}/inductor-triton3.6-h200/*/triton/*/*.ttgir"))
    picked = []
    for kind, n in (("triton_poi", 10), ("triton_per", 8), ("triton_red", 7)):
        picked += rng.sample([f for f in files if os.path.basename(f).startswith(kind)], n)
    picked += [f"{corpus}/small/{x}.ttgir" for x in ("matmul", "add", "looped_softmax", "probe_mmp90", "div_chain")]
    os.makedirs(dest, exist_ok=True)
    out = []
    for i, f in enumerate(picked):
        name = os.path.basename(f)[:60].removesuffix(".ttgir")
        target = os.path.join(dest, f"{i:02d}_{name}.ttgir")
        shutil.copy(f, target)
        out.append(target)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    ap.add_argument("--select", metavar="DIR", help="copy the sample of kernels to DIR and exit")
    ap.add_argument("--numel", type=int, default=64)
    ap.add_argument("--elements", type=int, default=1 << 20)
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--cpu-only", action="store_true", help="only the interpreter (a dry run)")
    ap.add_argument("kernels", nargs="*")
    args = ap.parse_args(argv)
    if args.select:
        print("\n".join(select(args.select)))
        return 0
    if args.one:
        print(json.dumps(one(args.one, args.numel, args.elements, not args.cpu_only)))
        return 0
    if not args.out:
        ap.error("--out is required")
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for k in args.kernels:
        proc = subprocess.run(
            [sys.executable, "-m", "bench.interp_gpu", "--out", args.out, "--numel", str(args.numel),
             "--elements", str(args.elements), "--one", k] + (["--cpu-only"] if args.cpu_only else []),
            capture_output=True, text=True, timeout=300,
        )
        if proc.returncode == 0 and proc.stdout.strip():
            row = json.loads(proc.stdout.strip().splitlines()[-1])
        else:
            row = {"kernel": k, "error": (proc.stderr.strip().splitlines() or ["?"])[-1][:300]}
        rows.append(row)
        print(json.dumps(row), flush=True)
    with open(os.path.join(args.out, "interp_gpu.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    ran = [r for r in rows if "error" not in r and "differ" in r]
    exact = [r for r in ran if r["differ"] == 0]
    lines = [
        f"kernels: {len(rows)}, ran: {len(ran)}, bit-exact: {len(exact)}",
        "",
        "| kernel | elements written | differ | max ulps |",
        "|---|---|---|---|",
    ]
    for r in rows:
        k = os.path.relpath(r["kernel"])
        if "error" in r:
            lines.append(f"| {k} | error: {r['error']} | | |")
        else:
            lines.append(f"| {k} | {r['compared']} | {r['differ']} | {r['max_ulps'] if r['differ'] else 0} |")
    with open(os.path.join(args.out, "interp_gpu.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines[:1]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
