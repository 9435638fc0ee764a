"""Does the interpreter agree with the GPU?  Each kernel runs once on the GPU and in ``ttopt.interp``
from the same memory contents, and every element that either side wrote is compared.

Per kernel: one program instance (grid (1, 1, 1), program id (0, 0, 0)); scalar arguments from
:func:`kernel_args` (sizes ``--numel``, matrix strides those of row-major square matrices of
``--numel`` or the kernel's tile if larger, the rest drawn by the interpreter with seed 0); every pointer argument a buffer of
``--elements`` elements holding the interpreter's pseudo-random initial values (seed 0).  On the
GPU the kernel is compiled by Triton from its IR file (``triton.compile(path)``), twice: as
Triton compiles by default (``enable_fp_fusion=True``: multiplies and adds contracted into
FMAs) and with ``enable_fp_fusion=False``; each runs on fresh copies of the buffers.  The
interpreter runs under three numeric models (:data:`MODELS`):

* ``plain``: the interpreter's defaults (every operation rounded; reductions in a pairwise tree);
* ``contract``: ``fp_contract=True`` only; ``order``: ``reduce_order="gpu"`` only;
* ``gpu``: ``fp_contract=True, reduce_order="gpu"`` -- what the GPU compiles by default;
* ``gpu-nofma``: ``fp_contract=False, reduce_order="gpu"`` -- compared with the
  ``enable_fp_fusion=False`` build (the others with the default build).

Each kernel runs in a process of its own (an illegal address ends that kernel's row, not the
run).  Everything the GPU wrote (the elements that differ from the initial contents) is kept in
``gpu_outputs.npz``, so that the comparison can be recomputed on a CPU (``--from-dump``).

    python -m bench.interp_gpu --select .carry/gpuk              (the sample, copied to carry)
    python -m bench.interp_gpu --out DIR KERNEL...               (on the GPU machine)
    python -m bench.interp_gpu --cpu-only --out DIR KERNEL...    (dry run: no GPU, no torch)
    python -m bench.interp_gpu --from-dump DIR/gpu_outputs.npz --out DIR2 KERNEL...
    python -m bench.interp_gpu --ptx-check KERNEL...             (CPU: the FMAs in Triton's PTX)
    python -m bench.interp_gpu --approx-check --out DIR          (GPU: division, exp ... vs rounded)
    python -m bench.interp_gpu --collect-approx IN.npz KERNEL...          (CPU, then on the GPU:)
    python -m bench.interp_gpu --approx-eval IN.npz --out DIR             (DIR/gpu_approx.npz; then:)
    python -m bench.interp_gpu --oracle-check DIR/gpu_approx.npz DIR/gpu_outputs.npz KERNEL...
    python -m bench.interp_gpu --dot-check DIR/gpu_outputs.npz MATMUL...  (CPU: the tensor cores)
    python -m bench.interp_gpu --trace ARG:ELEMENT [--from-dump DIR/gpu_outputs.npz] KERNEL...

Writes DIR/interp_gpu.jsonl (one row per kernel, per argument and model: elements compared,
how many differ, the largest difference in ulps) and DIR/interp_gpu.md (the table).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np

# model name -> (fp_contract, reduce_order, GPU build it is compared with)
MODELS = {
    "plain": (False, "tree", "fma"),
    "contract": (True, "tree", "fma"),
    "order": (False, "gpu", "fma"),
    "gpu": (True, "gpu", "fma"),
    "gpu-nofma": (False, "gpu", "nofma"),
}
BUILDS = {"fma": True, "nofma": False}  # GPU build -> enable_fp_fusion

# a matrix stride argument: stride_am, stride_bk, stride_cn ... or sam, sbk, scm (s + matrix + dim)
_STRIDE = re.compile(r"(?:stride_?|s)([a-z])([mnk])")


def matrix_stride(name: str, numel: int) -> int | None:
    """The stride named ``name`` of row-major ``numel x numel`` matrices, or None when the name
    is not a matrix stride.  ``A`` is M x K, ``B`` is K x N, ``C`` (any other letter) M x N:
    the stride of the last dimension (``k`` of ``a``, ``n`` of the others) is 1, the other
    ``numel``.  Names: ``stride_am``, ``stride_ak``, ``stride_bk`` ... and the short ``sam``,
    ``sbk``, ``scm`` (``s`` + matrix + dimension)."""
    m = _STRIDE.fullmatch(name or "")
    if m is None:
        return None
    mat, dim = m.groups()
    last = "k" if mat == "a" else "n"
    return 1 if dim == last else numel


def kernel_args(sig, numel: int, model=None, tile: int = 0) -> dict:
    """The scalar arguments fixed by the benchmark: sizes (``InitModel.numel_pattern``:
    ``xnumel``, ``M`` ...) ``numel``, matrix strides (:func:`matrix_stride`).  Every other
    scalar is drawn by the interpreter (``draw_args`` with seed 0): drawn strides would make
    lanes store to one address, in an order the GPU does not fix.

    A kernel with matrix strides gets matrices of ``max(numel, tile)`` square (``tile``: the
    largest dimension of a tensor in the kernel): a matmul that stores its whole tile without a
    mask (``probe_mmp90``: 128 x 128) would otherwise store two values to one address."""
    from ttopt.interp.memory import InitModel

    pat = re.compile((model or InitModel()).numel_pattern)
    ints = [s for s in sig if s[0] and re.fullmatch(r"i\d+", str(s[1]))]
    if any(matrix_stride(s[0], 1) is not None for s in ints):
        numel = max(numel, tile)
    given = {}
    for s in ints:
        stride = matrix_stride(s[0], numel)
        if stride is not None:
            given[s[0]] = stride
        elif pat.fullmatch(s[0]):
            given[s[0]] = numel
    return given


def largest_dim(prog) -> int:
    """The largest dimension of a tensor type in the kernel (its tile)."""
    n = 0
    for op in prog.module.walk():
        for r in op.results:
            if hasattr(r.type, "get_shape"):
                n = max([n] + [int(d) for d in r.type.get_shape()])
    return n


def _ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in units in the last place between float arrays of one dtype (NaN = NaN)."""
    from ttopt.interp.numerics import ulp_key

    d = np.abs(ulp_key(a) - ulp_key(b))
    nan = np.isnan(a.astype(np.float64)) & np.isnan(b.astype(np.float64))
    return np.where(nan, 0, d)


def _bits(x: np.ndarray) -> np.ndarray:
    """The raw bits of an array as unsigned integers of its item size (bool: uint8)."""
    x = np.ascontiguousarray(x)
    if x.dtype == np.bool_:
        return x.astype(np.uint8)
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


def _crc(x: np.ndarray) -> str:
    return f"{zlib.crc32(_bits(x).tobytes()):08x}"


def _setup(path: str, numel: int):
    from ttopt.interp.memory import InitModel
    from ttopt.interp.run import as_program, draw_args, signature

    prog = as_program(open(path).read(), path)
    name, _, sig = signature(prog, None)
    model = InitModel()
    scal = draw_args(sig, 0, model, kernel_args(sig, numel, model, largest_dim(prog)), path)
    return prog, name, sig, scal


def _interp(prog, name, scal, models):
    from ttopt.interp import run_kernel

    out, times = {}, {}
    for m in models:
        fc, order, _ = MODELS[m]
        t0 = time.perf_counter()
        out[m] = run_kernel(prog, name, pids=(0, 0, 0), num_programs=(1, 1, 1), seed=0, args=scal,
                            fp_contract=fc, reduce_order=order)
        times[m] = round(time.perf_counter() - t0, 3)
    return out, times


def _initial(res, sig, elements):
    return {s[0]: res.initial(i, 0, elements) for i, s in enumerate(sig) if res.pointees[i] is not None}


def _gpu_run(path, sig, scal, init, build):
    """Final contents of every pointer argument's buffer after one launch on the GPU."""
    import torch
    import triton

    kernel = triton.compile(path, options={"enable_fp_fusion": BUILDS[build]})
    args, bufs = [], {}
    for i, s in enumerate(sig):
        if s[0] in init:
            bits = _bits(init[s[0]])  # moved as signed integers of the element's size (any dtype)
            t = torch.from_numpy(np.ascontiguousarray(bits.view(np.dtype(f"i{bits.dtype.itemsize}")))).cuda()
            bufs[s[0]] = t
            args.append(t)
        else:
            v = scal[s[0]]
            args.append(v.item() if hasattr(v, "item") else v)
    kernel[(1, 1, 1)](*args)
    torch.cuda.synchronize()
    return {k: t.cpu().numpy().view(init[k].dtype if init[k].dtype != np.bool_ else np.uint8)
            for k, t in bufs.items()}


def _dump_of(final: dict, init: dict, written: dict) -> dict:
    """What a device run wrote: per argument, the elements that differ from the initial
    contents or that the interpreter wrote (indices, raw bits)."""
    out = {}
    for k, f in final.items():
        a = init[k]
        fb, ab = _bits(f.astype(np.uint8) if f.dtype == np.bool_ else f), _bits(a)
        idx = np.union1d(np.nonzero(fb != ab)[0], written.get(k, np.zeros(0, np.int64)))
        out[k] = (idx.astype(np.int64), fb[idx])
    return out


def _compare(res, sig, init, dump, elements):
    """Per argument: elements compared, how many differ, the largest distance in ulps."""
    args = {}
    total = differ = worst = 0
    for i, s in enumerate(sig):
        k = s[0]
        if k not in init:
            continue
        gidx, gbits = dump.get(k, (np.zeros(0, np.int64), np.zeros(0, _bits(init[k]).dtype)))
        widx = res.written_elements(i)
        widx = widx[(widx >= 0) & (widx < elements)]
        idx = np.union1d(gidx, widx).astype(np.int64)
        cpu = res.read(i, elements=idx)
        if cpu.dtype == np.bool_:
            cpu = cpu.astype(np.uint8)
        ref_bits = _bits(init[k])[idx].copy()
        pos = np.searchsorted(idx, gidx)
        ref_bits[pos] = gbits
        gpu = ref_bits.view(cpu.dtype)
        bad = np.nonzero(_bits(cpu) != ref_bits)[0]
        info = {"compared": int(len(idx)), "differ": int(len(bad)), "dtype": str(res.pointees[i])}
        if len(bad) and res.pointees[i].is_float:
            u = _ulps(gpu[bad], cpu[bad])
            info["max_ulps"] = int(u.max())
            worst = max(worst, info["max_ulps"])
        elif len(bad):
            info["max_ulps"] = None
            worst = max(worst, 1 << 30)
        args[k] = info
        total += len(idx)
        differ += len(bad)
    return {"compared": int(total), "differ": int(differ), "max_ulps": int(worst) if differ else 0, "args": args}


def one(path: str, numel: int, elements: int, device: bool, part: str | None) -> dict:
    prog, name, sig, scal = _setup(path, numel)
    res, times = _interp(prog, name, scal, MODELS)
    init = _initial(res["plain"], sig, elements)
    written = {s[0]: res["plain"].written_elements(i) for i, s in enumerate(sig) if s[0] in init}
    dumps = {}
    for build in BUILDS:
        if device:
            final = _gpu_run(path, sig, scal, init, build)
        else:  # dry run: the plain interpreter stands in for the device
            final = {k: res["plain"].read(i, 0, elements) for i, s in enumerate(sig)
                     if (k := s[0]) in init}
        dumps[build] = _dump_of(final, init, written)
    row = {"kernel": os.path.basename(path), "function": name, "device": bool(device), "interp_s": times,
           "scalars": {k: (v.item() if hasattr(v, "item") else v) for k, v in scal.items()},
           "initial_crc": {k: _crc(v) for k, v in init.items()},
           "written": {k: int(len(v)) for k, v in written.items()}, "models": {}}
    for m, (_, _, build) in MODELS.items():
        row["models"][m] = _compare(res[m], sig, init, dumps[build], elements)
    if part:
        arrays = {}
        for build, d in dumps.items():
            for k, (idx, bits) in d.items():
                arrays[f"{build}/{k}/idx"] = idx
                arrays[f"{build}/{k}/bits"] = bits
        np.savez_compressed(part, **arrays)
    return row


def from_dump(path: str, dump: dict, numel: int, elements: int, expect_crc: dict | None) -> dict:
    """A row recomputed on the CPU from a device run's dump (``{build: {arg: (idx, bits)}}``)."""
    prog, name, sig, scal = _setup(path, numel)
    res, times = _interp(prog, name, scal, MODELS)
    init = _initial(res["plain"], sig, elements)
    crc = {k: _crc(v) for k, v in init.items()}
    if expect_crc is not None and crc != expect_crc:
        raise SystemExit(f"{path}: the initial memory differs from the device run's ({crc} vs {expect_crc})")
    row = {"kernel": os.path.basename(path), "function": name, "device": True, "from_dump": True, "interp_s": times,
           "scalars": {k: (v.item() if hasattr(v, "item") else v) for k, v in scal.items()}, "initial_crc": crc,
           "written": {s[0]: int(len(res["plain"].written_elements(i))) for i, s in enumerate(sig) if s[0] in init},
           "models": {}}
    for m, (_, _, build) in MODELS.items():
        row["models"][m] = _compare(res[m], sig, init, dump.get(build, {}), elements)
    return row


def load_dump(npz_path: str) -> dict:
    """``{kernel file name: {build: {arg: (idx, bits)}}}`` from gpu_outputs.npz."""
    out: dict = {}
    with np.load(npz_path) as z:
        for key in z.files:
            kernel, build, arg, what = key.rsplit("/", 3)
            d = out.setdefault(kernel, {}).setdefault(build, {}).setdefault(arg, [None, None])
            d[0 if what == "idx" else 1] = z[key]
    return {k: {b: {a: tuple(v) for a, v in bd.items()} for b, bd in kd.items()} for k, kd in out.items()}


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


# ------------------------------------------------------------------ the FMAs of Triton's PTX
def _per_thread(t, aliases) -> int | None:
    """Elements of a tensor type each thread holds (blocked/slice layouts), 1 for a scalar."""
    from ttopt.interp.reduce_order import axis_layout

    if not hasattr(t, "get_shape"):
        return 1
    n = 1
    for d, size in enumerate(int(x) for x in t.get_shape()):
        lay = axis_layout(str(t.encoding), d, aliases)
        if lay is None:
            return None
        spt, tpw, wpc = lay
        s = min(spt, size)
        tt = min(tpw, max(size // s, 1))
        w = min(wpc, max(size // (s * tt), 1))
        n *= s * max(size // (s * tt * w), 1)
    return n


def ptx_check(path: str) -> dict:
    """The fused multiply-adds the contraction model predicts for one thread (contracted sums,
    ``math.fma``, within-thread reduction steps) against the ``fma.rn`` instructions in the
    PTX Triton 3.6 generates for sm_90 on this machine.  A reduction of selected products
    whose condition is ``"folded"`` merges as far as the values allow: counted as all."""
    import triton
    from triton.backends.compiler import GPUTarget

    from ttopt.interp.contract import selected_product
    from ttopt.interp.ops import _combiner_addf
    from ttopt.interp.reduce_order import plan
    from ttopt.interp.run import as_program

    p = as_program(open(path).read(), path, fp_contract=True, reduce_order="gpu")
    c = p.contraction
    counts = [_per_thread(op.results[0].type, p.aliases) for op in c.fused]
    counts += [_per_thread(op.results[0].type, p.aliases) for op in p.module.walk() if op.name == "math.fma"]
    folded = False
    for op in p.module.walk():
        if op.name != "tt.reduce" or _combiner_addf(op) is None:
            continue
        axis = int(op.properties["axis"].value.data)
        sp = None
        if c.product(op.operands[0], c.home(op)) is None:
            sp = selected_product(c, op, axis)
            if sp is None:
                continue
            folded |= sp.mode == "folded"
        pl = plan(op.operands[0].type, axis, p.aliases)
        keys = _per_thread(op.results[0].type, p.aliases)
        counts.append(None if pl is None or keys is None else (pl.R * pl.S - 1) * keys)
    model = None if any(x is None for x in counts) else sum(counts)
    k = triton.compile(path, target=GPUTarget("cuda", 90, 32))
    ptx = len(re.findall(r"^\s*fma\.rn\.(?:f32|f64|f16|bf16|f16x2|bf16x2)\s", k.asm["ptx"], re.M))
    return {"kernel": os.path.basename(path), "model": model, "ptx": ptx, "folded": folded,
            "match": model == ptx}


# ------------------------------------------------------------------ the GPU's approximations
_APPROX_KERNEL = """module {
  tt.func public @k(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y: !tt.ptr<f32> {tt.divisibility = 16 : i32},
                    %o: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %c = arith.constant 1024 : i32
    %pid = tt.get_program_id x : i32
    %base = arith.muli %pid, %c : i32
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %bs = tt.splat %base : i32 -> tensor<1024xi32>
    %i = arith.addi %bs, %r : tensor<1024xi32>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %xp = tt.addptr %xs, %i : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %a = tt.load %xp : tensor<1024x!tt.ptr<f32>>
    %ys = tt.splat %y : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %yp = tt.addptr %ys, %i : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %b = tt.load %yp : tensor<1024x!tt.ptr<f32>>
    %v = OP
    %os = tt.splat %o : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %op = tt.addptr %os, %i : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    tt.store %op, %v : tensor<1024x!tt.ptr<f32>>
    tt.return
  }
}
"""
_EXTERN = ('tt.extern_elementwise %a {libname = "", libpath = "", pure = true, symbol = "SYM"} : '
           "(tensor<1024xf32>) -> tensor<1024xf32>")
APPROX_OPS = {
    # name: (IR of %v, reference in f64, what the GPU runs)
    "arith.divf": ("arith.divf %a, %b : tensor<1024xf32>", lambda a, b: a / b, "div.full.f32"),
    "math.exp": ("math.exp %a : tensor<1024xf32>", lambda a, b: np.exp(a), "mul.f32 by log2(e), ex2.approx.f32"),
    "__nv_expf": (_EXTERN.replace("SYM", "__nv_expf"), lambda a, b: np.exp(a), "libdevice expf"),
    "__nv_erff": (_EXTERN.replace("SYM", "__nv_erff"), None, "libdevice erff"),
}


def approx_inputs(name: str, n: int, seed: int = 0):
    """Inputs of the approximation check: the interpreter's value range and wider ones."""
    rng = np.random.default_rng(seed)
    h = n // 2
    a = np.concatenate([rng.uniform(-2, 2, h), rng.uniform(-16, 16, n - h)]).astype(np.float32)
    if name in ("math.exp", "__nv_expf"):
        a = np.concatenate([rng.uniform(-4, 0, h), rng.uniform(-80, 80, n - h)]).astype(np.float32)
    b = np.concatenate([rng.uniform(-2, 2, h),
                        rng.uniform(1, 2, n - h) * 2.0 ** rng.integers(-60, 60, n - h)]).astype(np.float32)
    b[b == 0] = 1.0
    return a, b


def approx_stats(name: str, a: np.ndarray, b: np.ndarray, gpu: np.ndarray) -> dict:
    """Distances of the GPU's results from the correctly rounded ones (the interpreter's)."""
    from ttopt.interp.numerics import erf, round_to, ulp_key

    ref64 = erf(a.astype(np.float64)) if name == "__nv_erff" else APPROX_OPS[name][1](a.astype(np.float64),
                                                                                       b.astype(np.float64))
    ref = round_to(ref64, np.float32)
    ok = np.isfinite(ref) & np.isfinite(gpu)
    d = np.abs(ulp_key(gpu[ok]) - ulp_key(ref[ok]))
    # the error in ulps of the exact value (a fraction): |gpu - exact| / ulp(exact)
    ex = ref64[ok]
    ulp = np.spacing(np.abs(ref[ok])).astype(np.float64)
    frac = np.abs(gpu[ok].astype(np.float64) - ex) / np.where(ulp > 0, ulp, np.inf)
    hist = {int(k): int(v) for k, v in zip(*np.unique(np.minimum(d, 9), return_counts=True))}
    row = {"op": name, "gpu": APPROX_OPS[name][2], "n": int(ok.sum()), "nonfinite_skipped": int((~ok).sum()),
           "max_ulps_from_rounded": int(d.max()), "bit_exact_fraction": round(float((d == 0).mean()), 6),
           "max_error_ulps": round(float(frac.max()), 4), "distance_histogram": hist}
    # a model of the instruction sequence, with the approximate instruction taken as correctly
    # rounded: how much of the GPU's result it explains
    f32 = np.float32
    if name == "arith.divf":  # div.full.f32 = a * rcp.approx(b) (SASS: MUFU.RCP, FMUL)
        rcp = round_to(1.0 / b.astype(np.float64), f32)
        model = round_to(a.astype(np.float64) * rcp.astype(np.float64), f32)
        row["model"] = "RN(a * RN(1/b))"
    elif name == "math.exp":  # ex2.approx.f32(RN(x * RN(log2 e)))
        t = round_to(a.astype(np.float64) * np.float64(f32(1.4426950408889634)), f32)
        model = round_to(np.exp2(t.astype(np.float64)), f32)
        row["model"] = "RN(2**RN(x * RN(log2(e))))"
    else:
        return row
    mok = ok & np.isfinite(model)
    md = np.abs(ulp_key(gpu[mok]) - ulp_key(model[mok]))
    row["model_bit_exact_fraction"] = round(float((md == 0).mean()), 6)
    row["model_max_ulps"] = int(md.max())
    return row


def approx_check(out: str, n: int = 1 << 20) -> list[dict]:
    """On the GPU: Triton 3.6's f32 division, exp, libdevice expf and erff over ``n`` inputs
    each, against the correctly rounded results the interpreter computes."""
    import torch
    import triton

    rows = []
    tmp = tempfile.mkdtemp(prefix="approx_")
    for name, (ir, _, _) in APPROX_OPS.items():
        path = os.path.join(tmp, name.replace(".", "_") + ".ttir")
        with open(path, "w") as f:
            f.write(_APPROX_KERNEL.replace("OP", ir))
        kernel = triton.compile(path)
        a, b = approx_inputs(name, n)
        ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
        to = torch.empty_like(ta)
        kernel[(n // 1024, 1, 1)](ta, tb, to)
        torch.cuda.synchronize()
        rows.append(approx_stats(name, a, b, to.cpu().numpy()))
        print(json.dumps(rows[-1]), flush=True)
    with open(os.path.join(out, "approx.json"), "w") as f:
        json.dump(rows, f, indent=1)
    return rows


# ------------------------------------------------------------------ the GPU's own approximations as an oracle
# The rows that stay apart under the "gpu" model compute f32 division (div.full.f32), math.exp
# (ex2.approx.f32) or libdevice's expf/erff, whose exact bits the interpreter cannot know.
# The check: (1) on the CPU, run the kernels and collect the inputs of those operations
# (divisors with a window of neighbours, since upstream approximations move them a little);
# (2) on the GPU, evaluate the operations on those inputs (``rcp(b)`` as ``div.full(1, b)``:
# div.full.f32 is MUFU.RCP and one multiply, so ``div.full(a, b) = RN(a * rcp(b))``, which the
# GPU run checks on the kernels' own pairs); (3) on the CPU, run the kernels again with every
# such operation replaced by the GPU's value -- and with ptxas's contraction of div.full's
# multiply into a following add (``FFMA a, rcp(b), c``, seen in the SASS).  If the kernel's
# outputs are then the GPU's, bit for bit, those operations are all that differed.
ORACLE_OPS = ("rcp", "pairs_a", "pairs_b", "exp", "nv_expf", "nv_erff")
DIVISOR_WINDOW = 256  # divisors' neighbours (ulps) evaluated besides the values seen on the CPU
X_WINDOW = 16


class _Oracle:
    """Patches the interpreter's handlers of f32 divf, math.exp and libdevice expf/erff:
    ``record`` collects their inputs; ``tables`` (from the GPU) supplies their results."""

    def __init__(self, tables: dict | None = None):
        self.tables = tables
        self.seen = {k: [] for k in ORACLE_OPS}
        self.missing = 0
        self.used = {k: 0 for k in ("div", "div_add", "exp", "nv_expf", "nv_erff")}

    def lookup(self, kind: str, x: np.ndarray) -> np.ndarray:
        keys, vals = self.tables[kind]
        bits = _bits(np.asarray(x, np.float32)).astype(np.uint32)
        pos = np.clip(np.searchsorted(keys, bits), 0, len(keys) - 1)
        hit = keys[pos] == bits
        self.missing += int((~hit).sum())
        return np.where(hit, vals[pos], 0x7FC00000).astype(np.uint32).view(np.float32)

    def rcp(self, b):
        return self.lookup("rcp", b)

    def patch(self):
        from ttopt.interp import ops
        from ttopt.interp import numerics as N
        from ttopt.interp.types import elem_of

        orig = {k: ops.HANDLERS[k] for k in ("arith.divf", "math.exp", "tt.extern_elementwise", "arith.addf",
                                             "arith.subf")}
        oracle = self
        f32 = np.dtype(np.float32)

        def is_f32(v):
            return elem_of(v.type).dtype == f32

        def divf(op, P):
            if not is_f32(op.results[0]):
                return orig["arith.divf"](op, P)
            a, b = op.operands
            r = op.results[0]
            ieee = orig["arith.divf"](op, P)

            def run(env, rt):
                if oracle.tables is None:
                    ieee(env, rt)
                    av, bv = np.broadcast_arrays(np.asarray(env[a], f32), np.asarray(env[b], f32))
                    oracle.seen["rcp"].append(bv.ravel())
                    oracle.seen["pairs_a"].append(av.ravel())
                    oracle.seen["pairs_b"].append(bv.ravel())
                    return
                oracle.used["div"] += 1
                q = np.asarray(env[a], np.float64) * oracle.rcp(env[b]).astype(np.float64)
                env[r] = N.round_to(q, f32)

            return run

        def unary(kind, name):
            def build(op, P):
                base = orig[name](op, P)
                if not is_f32(op.results[0]) or (name == "tt.extern_elementwise" and not _sym(op, kind)):
                    return base
                x, r = op.operands[0], op.results[0]

                def run(env, rt):
                    if oracle.tables is None:
                        base(env, rt)
                        oracle.seen[kind].append(np.asarray(env[x], f32).ravel())
                        return
                    oracle.used[kind] += 1
                    env[r] = oracle.lookup(kind, env[x]).reshape(np.shape(env[x]))

                return run

            return build

        def extern(op, P):
            for kind in ("nv_expf", "nv_erff"):
                if _sym(op, kind):
                    return unary(kind, "tt.extern_elementwise")(op, P)
            return orig["tt.extern_elementwise"](op, P)

        def add_sub(name):
            def build(op, P):
                base = orig[name](op, P)
                if oracle.tables is None or not P.fp_contract or not is_f32(op.results[0]):
                    return base
                lhs, rhs = op.operands
                c = P.contraction
                for div, other, side in ((lhs, rhs, 0), (rhs, lhs, 1)):
                    d = div.owner
                    if getattr(d, "name", None) == "arith.divf" and c.home(d) is c.home(op):
                        break
                else:
                    return base
                a, b = d.operands
                r = op.results[0]
                sub = name == "arith.subf"

                def run(env, rt):  # ptxas: FFMA(a, rcp(b), c) for div.full(a, b) + c
                    oracle.used["div_add"] += 1
                    av = np.asarray(env[a], f32)
                    cv = np.asarray(env[other], f32)
                    if sub and side == 0:
                        cv = -cv
                    if sub and side == 1:
                        av = -av
                    env[r] = np.asarray(N.fma(av, oracle.rcp(env[b]), cv, f32))

                return run

            return build

        ops.HANDLERS.update({"arith.divf": divf, "math.exp": unary("exp", "math.exp"), "tt.extern_elementwise": extern,
                             "arith.addf": add_sub("arith.addf"), "arith.subf": add_sub("arith.subf")})
        return lambda: ops.HANDLERS.update(orig)


def _sym(op, kind) -> bool:
    sym = op.properties.get("symbol") or op.attributes.get("symbol")
    return sym is not None and sym.data == {"nv_expf": "__nv_expf", "nv_erff": "__nv_erff"}[kind]


def _neighbours(bits: np.ndarray, window: int) -> np.ndarray:
    bits = np.unique(bits.astype(np.int64))
    out = (bits[:, None] + np.arange(-window, window + 1)[None, :]).ravel()
    return np.unique(out[(out >= 0) & (out < 1 << 32)]).astype(np.uint32)


def collect_approx(kernels: list[str], out_npz: str, numel: int) -> dict:
    """(1) The inputs of the approximate operations of ``kernels`` under the "gpu" model."""
    oracle = _Oracle()
    restore = oracle.patch()
    try:
        for path in kernels:
            prog, name, sig, scal = _setup(path, numel)
            _interp(prog, name, scal, ["gpu"])
    finally:
        restore()
    arrays = {}
    for kind, parts in oracle.seen.items():
        x = np.concatenate(parts) if parts else np.zeros(0, np.float32)
        arrays[kind] = x
    bits = {k: _bits(v).astype(np.uint32) for k, v in arrays.items()}
    table_in = {
        "rcp": _neighbours(np.concatenate([bits["rcp"], bits["rcp"] ^ np.uint32(1 << 31)]), DIVISOR_WINDOW),
        "exp": _neighbours(bits["exp"], X_WINDOW),
        "nv_expf": _neighbours(bits["nv_expf"], X_WINDOW),
        "nv_erff": _neighbours(bits["nv_erff"], X_WINDOW),
    }
    pairs = np.unique(np.stack([bits["pairs_a"], bits["pairs_b"]], 1), axis=0) if len(bits["pairs_a"]) else \
        np.zeros((0, 2), np.uint32)
    np.savez_compressed(out_npz, pairs=pairs, **table_in)
    sizes = {k: int(len(v)) for k, v in table_in.items()} | {"pairs": int(len(pairs))}
    print(json.dumps(sizes))
    return sizes


def approx_eval(in_npz: str, out: str) -> dict:
    """(2) On the GPU: the approximate operations on the collected inputs (gpu_approx.npz)."""
    import torch
    import triton

    z = dict(np.load(in_npz))
    tmp = tempfile.mkdtemp(prefix="oracle_")
    kernels = {}

    def launch(name, a, b):
        if name not in kernels:
            path = os.path.join(tmp, name.replace(".", "_") + ".ttir")
            with open(path, "w") as f:
                f.write(_APPROX_KERNEL.replace("OP", APPROX_OPS[name][0]))
            kernels[name] = triton.compile(path)
        n = len(a)
        m = (n + 1023) // 1024 * 1024
        pad = lambda x: np.concatenate([x, np.ones(m - n, np.float32)])  # noqa: E731
        ta, tb = torch.from_numpy(pad(a)).cuda(), torch.from_numpy(pad(b)).cuda()
        to = torch.empty_like(ta)
        kernels[name][(m // 1024, 1, 1)](ta, tb, to)
        torch.cuda.synchronize()
        return to.cpu().numpy()[:n]

    res = {}
    f = lambda k: z[k].view(np.float32)  # noqa: E731
    ones = lambda k: np.ones(len(z[k]), np.float32)  # noqa: E731
    res["rcp"] = launch("arith.divf", ones("rcp"), f("rcp"))
    res["exp"] = launch("math.exp", f("exp"), ones("exp"))
    res["nv_expf"] = launch("__nv_expf", f("nv_expf"), ones("nv_expf"))
    res["nv_erff"] = launch("__nv_erff", f("nv_erff"), ones("nv_erff"))
    pa, pb = z["pairs"][:, 0].view(np.float32), z["pairs"][:, 1].view(np.float32)
    res["pairs_div"] = launch("arith.divf", pa.copy(), pb.copy())
    arrays = {k: z[k] for k in ("rcp", "exp", "nv_expf", "nv_erff", "pairs")}
    arrays |= {f"{k}_out": _bits(v).astype(np.uint32) for k, v in res.items()}
    np.savez_compressed(os.path.join(out, "gpu_approx.npz"), **arrays)
    summary = {k: int(len(v)) for k, v in res.items()}
    print(json.dumps(summary))
    return summary


def _finite_rcp(tables):
    b = tables["rcp"][0].view(np.float32)
    return np.isfinite(b) & (np.abs(b) > 1e-30) & (np.abs(b) < 1e30)


def oracle_check(kernels: list[str], approx_npz: str, dump_npz: str, numel: int, elements: int) -> list[dict]:
    """(3) The "gpu" model with the GPU's own results of the approximate operations."""
    z = dict(np.load(approx_npz))
    tables = {}
    for kind in ("rcp", "exp", "nv_expf", "nv_erff"):
        keys = z[kind].astype(np.uint32)
        order = np.argsort(keys)
        tables[kind] = (keys[order], z[f"{kind}_out"].astype(np.uint32)[order])
    # the identity behind the divisions: div.full(a, b) == RN(a * rcp(b)) on the kernels' pairs
    pairs = z["pairs"]
    oracle = _Oracle(tables)
    from ttopt.interp.numerics import round_to

    pa, pb = pairs[:, 0].view(np.float32), pairs[:, 1].view(np.float32)
    model = round_to(pa.astype(np.float64) * oracle.rcp(pb).astype(np.float64), np.float32)
    gdiv = z["pairs_div_out"].astype(np.uint32).view(np.float32)
    same = (_bits(model) == _bits(gdiv)) | (np.isnan(model) & np.isnan(gdiv))  # NaN payloads aside
    fin = _finite_rcp(tables)
    from ttopt.interp.numerics import ulp_key

    rcp_gpu = tables["rcp"][1].view(np.float32)[fin]
    rcp_rn = round_to(1.0 / tables["rcp"][0].view(np.float32)[fin].astype(np.float64), np.float32)
    identity = {"pairs": int(len(pairs)), "div_full_equals_RN_a_times_rcp_b": int(same.sum()),
                "divisors": int(fin.sum()), "rcp_equals_RN_1_over_b": round(float(np.mean(rcp_gpu == rcp_rn)), 4),
                "rcp_max_ulps_from_RN_1_over_b": int(np.abs(ulp_key(rcp_gpu) - ulp_key(rcp_rn)).max())}
    print(json.dumps(identity))
    dump = load_dump(dump_npz)
    rows = []
    restore = oracle.patch()
    try:
        for path in kernels:
            b = os.path.basename(path)
            prog, name, sig, scal = _setup(path, numel)
            oracle.missing = 0
            oracle.used = {k: 0 for k in oracle.used}
            res, _ = _interp(prog, name, scal, ["gpu"])
            init = _initial(res["gpu"], sig, elements)
            row = {"kernel": b, "oracle_uses": dict(oracle.used), "oracle_missing": oracle.missing,
                   "gpu+oracle": _compare(res["gpu"], sig, init, dump.get(b, {}).get("fma", {}), elements)}
            rows.append(row)
            print(json.dumps({"kernel": b, "gpu+oracle": _cell(row["gpu+oracle"]), "uses": row["oracle_uses"],
                              "missing": oracle.missing}), flush=True)
    finally:
        restore()
    return [identity] + rows


# ------------------------------------------------------------------ tensor-core matmuls
def dot_check(path: str, dump_npz: str, numel: int) -> dict:
    """For a matmul (``a_ptr``, ``b_ptr``: n x n f16, ``c_ptr``: f16, row-major as
    :func:`kernel_args` sets them): the exact product (f64: products of f16 values and their
    sums are exact there), and for each element where the GPU and the interpreter differ,
    whether the exact value lies between them and how far it is from the f16 rounding boundary,
    in units of ``2**-24 * sum|a_k * b_k|`` (an f32 summation's error scale)."""
    from ttopt.interp.numerics import round_to, ulp_key

    prog, name, sig, scal = _setup(path, numel)
    res, _ = _interp(prog, name, scal, ["gpu"])
    r = res["gpu"]
    n = int(scal["M"])
    a = r.initial("a_ptr", 0, n * n).astype(np.float64).reshape(n, n)
    b = r.initial("b_ptr", 0, n * n).astype(np.float64).reshape(n, n)
    exact, scale = (a @ b).ravel(), (np.abs(a) @ np.abs(b)).ravel()
    idx, bits = load_dump(dump_npz)[os.path.basename(path)]["fma"]["c_ptr"]
    gpu = bits.view(np.float16)
    cpu = r.read("c_ptr", elements=idx)
    d = np.nonzero(_bits(gpu) != _bits(cpu))[0]
    e, s = exact[idx[d]], scale[idx[d]]
    g, c = gpu[d].astype(np.float64), cpu[d].astype(np.float64)
    dist = np.abs(e - (g + c) / 2) / (s * 2.0**-24)
    rn = round_to(exact[idx], np.float16)
    return {"kernel": os.path.basename(path), "n": n, "compared": int(len(idx)), "differ": int(len(d)),
            "ulps_apart": sorted({int(x) for x in np.abs(ulp_key(gpu[d]) - ulp_key(cpu[d]))}),
            "exact_between_the_two": int(((e >= np.minimum(g, c)) & (e <= np.maximum(g, c))).sum()),
            "interp_is_RN16_of_exact": int((_bits(cpu[d]) == _bits(rn[d])).sum()),
            "gpu_is_RN16_of_exact": int((_bits(gpu[d]) == _bits(rn[d])).sum()),
            "max_distance_to_midpoint": round(float(dist.max()), 3) if len(d) else 0.0,
            "median_abs_value": float(np.median(np.abs(e))) if len(d) else 0.0,
            "interp_is_RN16_of_exact_everywhere": int((_bits(cpu) == _bits(rn)).sum())}


# ------------------------------------------------------------------ one element's computation
def trace(path: str, arg: str, element: int, numel: int, dump_npz: str | None = None,
          models=("plain", "gpu")) -> dict:
    """The float values that one stored element is computed from, under each model: every
    value of the stored value's backward slice (same rank as the store, read at the stored
    element's position; size-1 dimensions broadcast), and the GPU's element from the dump."""
    from ttopt.interp import engine
    from ttopt.interp.types import type_info

    prog, name, sig, scal = _setup(path, numel)
    ai = [s[0] for s in sig].index(arg)
    store = None
    for op in prog.module.walk():
        if op.name == "tt.store":
            v = op.operands[0]
            while getattr(v.owner, "name", None) in ("tt.addptr", "tt.splat", "tt.broadcast", "tt.bitcast"):
                v = v.owner.operands[0]
            if getattr(v, "index", None) == ai and not hasattr(v.owner, "name"):
                store = op
    if store is None:
        raise SystemExit(f"no tt.store to {arg}")
    # the backward slice of the stored value (float values only)
    slice_, stack, seen = [], [store.operands[1]], set()
    while stack:
        v = stack.pop()
        if v in seen or not hasattr(v.owner, "name"):
            continue
        seen.add(v)
        slice_.append(v)
        stack.extend(v.owner.operands)
    out = {"kernel": os.path.basename(path), "arg": arg, "element": element, "values": {}}
    orig = engine.Program.run_block
    for m in models:
        envs = []

        def run_block(self, cb, env, rt, args, _envs=envs):
            if not _envs:
                _envs.append(env)
            return orig(self, cb, env, rt, args)

        engine.Program.run_block = run_block
        try:
            _interp(prog, name, scal, [m])
        finally:
            engine.Program.run_block = orig
        env = envs[0]
        ptr = env[store.operands[0]]
        pos = np.argwhere(np.asarray(ptr.off) // ptr.elem.size == element)
        if not len(pos):
            raise SystemExit(f"{arg}[{element}] is not stored by this program instance")
        pos = tuple(pos[0])
        for v in reversed(slice_):
            info = type_info(v.type)
            if info.elem is None or not info.elem.is_float or v not in env:
                continue
            val = np.asarray(env[v])
            if val.ndim not in (0, len(pos)):
                continue
            x = val[tuple(0 if s == 1 else p for s, p in zip(val.shape, pos))] if val.ndim else val
            key = f"%{v.name_hint or '?'} = {v.owner.name}"
            out["values"].setdefault(key, {})[m] = float(x)
    if dump_npz:
        d = load_dump(dump_npz).get(os.path.basename(path), {}).get("fma", {}).get(arg)
        if d is not None and element in set(d[0].tolist()):
            i = int(np.searchsorted(d[0], element))
            dt = [s for s in sig if s[0] == arg][0]
            out["gpu"] = float(d[1][i:i + 1].view(np.dtype(_bits(np.zeros(1, type_info(dt[1]).elem.pointee.dtype))
                                                           .dtype)).view(type_info(dt[1]).elem.pointee.dtype)[0])
    return out


# ------------------------------------------------------------------ tables
def _cell(r: dict) -> str:
    return f"{r['differ']} / {r['max_ulps'] if r['differ'] else 0}"


def write_tables(rows: list[dict], out: str, note: str) -> str:
    with open(os.path.join(out, "interp_gpu.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    ran = [r for r in rows if "error" not in r]
    exact = {m: sum(1 for r in ran if m in r["models"] and r["models"][m]["differ"] == 0) for m in MODELS}
    models = [m for m in MODELS if all(m in r["models"] for r in ran)]
    lines = [
        note,
        "",
        f"kernels: {len(rows)}, ran: {len(ran)}; bit-exact: " + ", ".join(f"{m} {exact[m]}" for m in models),
        "",
        "elements that differ / largest distance in ulps, per model (gpu-nofma: against the "
        "enable_fp_fusion=False build; the others: against the default build)",
        "",
        "| kernel | elements compared | " + " | ".join(models) + " |",
        "|---|---|" + "---|" * len(models),
    ]
    for r in rows:
        k = r["kernel"]
        if "error" in r:
            lines.append(f"| {k} | error: {r['error']} |" + " |" * len(models))
            continue
        ms = r["models"]
        lines.append(f"| {k} | {ms['gpu']['compared']} | " + " | ".join(_cell(ms[m]) for m in models) + " |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "interp_gpu.md"), "w") as f:
        f.write(text)
    return lines[2]


def _merge_parts(parts: dict, out: str) -> None:
    arrays = {}
    for kernel, part in parts.items():
        if part and os.path.exists(part):
            with np.load(part) as z:
                for key in z.files:
                    arrays[f"{kernel}/{key}"] = z[key]
    np.savez_compressed(os.path.join(out, "gpu_outputs.npz"), **arrays)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    ap.add_argument("--select", metavar="DIR", help="copy the sample of kernels to DIR and exit")
    ap.add_argument("--numel", type=int, default=64)
    ap.add_argument("--elements", type=int, default=1 << 20)
    ap.add_argument("--jobs", type=int, default=4, help="kernels at a time (processes)")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--part", help=argparse.SUPPRESS)
    ap.add_argument("--cpu-only", action="store_true", help="no GPU: the plain interpreter stands in (a dry run)")
    ap.add_argument("--from-dump", metavar="NPZ", help="recompute the rows from a device run's gpu_outputs.npz")
    ap.add_argument("--ptx-check", action="store_true", help="compare the contraction model with the PTX's FMAs")
    ap.add_argument("--corpus-sample", type=int, metavar="N",
                    help="--ptx-check: N Inductor TTGIR files of ../shared/corpus drawn with seed 0")
    ap.add_argument("--approx-check", action="store_true",
                    help="on the GPU: division, exp, expf, erff against correctly rounded results (approx.json)")
    ap.add_argument("--dot-check", metavar="GPU_OUTPUTS_NPZ",
                    help="CPU: a matmul's differing elements against the exact product")
    ap.add_argument("--trace", metavar="ARG:ELEMENT",
                    help="CPU: the values one stored element is computed from, per model (with --from-dump: the GPU's)")
    ap.add_argument("--collect-approx", metavar="NPZ", help="CPU: the inputs of the kernels' approximate operations")
    ap.add_argument("--approx-eval", metavar="NPZ", help="GPU: those operations on those inputs (gpu_approx.npz)")
    ap.add_argument("--oracle-check", nargs=2, metavar=("GPU_APPROX_NPZ", "GPU_OUTPUTS_NPZ"),
                    help="CPU: the gpu model with the GPU's own approximate results (oracle.jsonl)")
    ap.add_argument("kernels", nargs="*")
    args = ap.parse_args(argv)
    if args.select:
        print("\n".join(select(args.select)))
        return 0
    if args.one:
        print(json.dumps(one(args.one, args.numel, args.elements, not args.cpu_only, args.part)))
        return 0
    if args.dot_check:
        for k in args.kernels:
            print(json.dumps(dot_check(k, args.dot_check, args.numel)))
        return 0
    if args.trace:
        arg, element = args.trace.rsplit(":", 1)
        for k in args.kernels:
            t = trace(k, arg, int(element), args.numel, args.from_dump)
            print(f"{t['kernel']}: {arg}[{element}]" + (f", GPU {t['gpu']!r}" if "gpu" in t else ""))
            for key, vals in t["values"].items():
                print(f"  {key:<40} " + "  ".join(f"{m} {v!r:<24}" for m, v in vals.items()))
        return 0
    if args.collect_approx:
        collect_approx(args.kernels, args.collect_approx, args.numel)
        return 0
    if args.oracle_check:
        rows = oracle_check(args.kernels, args.oracle_check[0], args.oracle_check[1], args.numel, args.elements)
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            with open(os.path.join(args.out, "oracle.jsonl"), "w") as f:
                for r in rows:
                    f.write(json.dumps(r) + "\n")
        ok = [r for r in rows[1:] if r["gpu+oracle"]["differ"] == 0]
        print(f"bit-exact with the GPU's approximations: {len(ok)} of {len(rows) - 1}")
        return 0
    if args.ptx_check:
        kernels = list(args.kernels)
        if args.corpus_sample:
            import glob
            import random

            files = sorted(glob.glob("../shared/corpus/inductor-triton3.6-h200/*/triton/*/*.ttgir"))
            kernels += random.Random(0).sample(files, args.corpus_sample)
        rows = [ptx_check(k) for k in kernels]
        for r in rows:
            print(json.dumps(r))
        print(f"model = PTX: {sum(r['match'] for r in rows)} of {len(rows)}"
              f" (of the others, {sum(1 for r in rows if not r['match'] and r['folded'])} have a folded-mask"
              " reduction, counted as fully merged)")
        return 0
    if not args.out:
        ap.error("--out is required")
    os.makedirs(args.out, exist_ok=True)
    if args.approx_check:
        approx_check(args.out)
        return 0
    if args.approx_eval:
        approx_eval(args.approx_eval, args.out)
        return 0
    if args.from_dump:
        dump = load_dump(args.from_dump)
        old = {}
        jl = os.path.join(os.path.dirname(args.from_dump), "interp_gpu.jsonl")
        if os.path.exists(jl):
            for line in open(jl):
                r = json.loads(line)
                old[r["kernel"]] = r.get("initial_crc")
        rows = []
        for k in args.kernels:
            b = os.path.basename(k)
            if b not in dump and b not in old:
                rows.append({"kernel": b, "error": "not in the dump"})
                continue
            rows.append(from_dump(k, dump.get(b, {}), args.numel, args.elements, old.get(b)))
            print(json.dumps(rows[-1]["models"]["gpu"] | {"kernel": b}), flush=True)
        print(write_tables(rows, args.out, f"recomputed on the CPU from {args.from_dump}"))
        return 0

    tmp = tempfile.mkdtemp(prefix="interp_gpu_")

    def run_one(k):
        part = os.path.join(tmp, os.path.basename(k) + ".npz")
        cmd = [sys.executable, "-m", "bench.interp_gpu", "--numel", str(args.numel), "--elements",
               str(args.elements), "--one", k, "--part", part] + (["--cpu-only"] if args.cpu_only else [])
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return {"kernel": os.path.basename(k), "error": "timeout (300 s)"}, None
        if proc.returncode == 0 and proc.stdout.strip():
            return json.loads(proc.stdout.strip().splitlines()[-1]), part
        return {"kernel": os.path.basename(k), "error": (proc.stderr.strip().splitlines() or ["?"])[-1][:300]}, None

    with ThreadPoolExecutor(max(1, args.jobs)) as ex:
        results = list(ex.map(run_one, args.kernels))
    rows = [r for r, _ in results]
    for r in rows:
        print(json.dumps({"kernel": r["kernel"]} | ({m: _cell(v) for m, v in r["models"].items()}
                                                   if "models" in r else {"error": r.get("error")})), flush=True)
    _merge_parts({r["kernel"]: p for r, p in results}, args.out)
    note = "dry run: the plain interpreter stands in for the GPU" if args.cpu_only else "GPU run"
    print(write_tables(rows, args.out, note))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
