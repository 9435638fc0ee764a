"""Runs INSIDE one Triton version's environment (2.1-3.9): that version's own compiler and parser.

Not for direct use: make_fixtures.py and oracle.py start it as
``<env>/bin/python tools/versions/inenv.py COMMAND ...`` with the repository root as the
working directory, and read one JSON document from stdout.  Nothing else goes to stdout.

Commands:

* ``fixtures OUTDIR ARCH...``: compile every kernel of kernels.py and kernels_ops.py for
  ``cuda`` sm_ARCH (a spec with ``archs``: only for those) and write
  ``OUTDIR/smARCH/<kernel>.ttir`` and ``.ttgir`` (the text Triton prints for that stage, what
  ``TRITON_KERNEL_DUMP=1`` and the cache hold).  Each kernel compiles in a forked child (a
  crash in Triton's C++ is that kernel's failure); ``TTOPT_ONLY_KERNELS=a,b`` compiles only
  those (to try kernels).
* ``check FILE...``: parse each file with the version's MLIR parser in a context with its
  Triton and NVIDIA dialects (as Triton reads an override or an IR source), then run the
  verifier.  Per file: ok, the first error line, all diagnostics.
* ``cubin FILE OUT [--arch N] [--num-warps N]``: compile the file (.ttir or .ttgir, by its
  suffix) to a cubin as the version compiles an IR source, write it to OUT.
* ``cubins JOBS.json``: many of those in one process (a JSON list of {file, out, arch,
  num_warps}); each compile gets a fresh Triton cache.

How each version is driven (the API changed at 2.2, 2.3, 3.0, 3.2 and 3.3):

* 2.1, 2.2: ``triton.compile`` wants a GPU (it builds the launcher first), so the stage
  functions of ``triton/compiler/compiler.py`` are called in the order compile() calls them.
* 2.3: ``CUDABackend(("cuda", arch)).add_stages`` and the loop of compile(), without the
  cache and the launcher (which needs a GPU).
* 3.0+: ``triton.compile(src, target=GPUTarget("cuda", arch, 32), options)``, which works
  on a CPU as it is; the ASTSource in the form that version's JIT builds it (signature and
  constants by index before 3.0, by name from 3.0, constexprs in the signature from 3.3;
  divisibility as AttrsDescriptor before 3.3, as ``tt.divisibility`` attributes from 3.3).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pathlib
import platform
import re
import shutil
import sys
import tempfile
import traceback

# hermetic: a private cache (never a cached result), no dump/override from the caller's env
_CACHE = tempfile.mkdtemp(prefix="ttopt-inenv-cache-")
os.environ["TRITON_CACHE_DIR"] = _CACHE
for _var in ("TRITON_KERNEL_OVERRIDE", "TRITON_KERNEL_DUMP", "TRITON_OVERRIDE_DIR", "TRITON_DUMP_DIR",
             "MLIR_ENABLE_DUMP", "TRITON_INTERPRET", "USE_IR_LOC", "USE_TTGIR_LOC", "TRITON_DISABLE_LINE_INFO"):
    os.environ.pop(_var, None)

import triton  # noqa: E402

TV = tuple(int(x) for x in triton.__version__.split(".")[:2])
KERNELS_FILE = "tools/versions/kernels.py"  # relative: the locations in the IR name this
# the op-coverage kernels, loaded the same way (their own file: kernels.py's line numbers, in
# the original fixtures' locations, stay put)
OPS_KERNELS_FILE = "tools/versions/kernels_ops.py"


def load_kernels(rel: str = KERNELS_FILE, modname: str = "ttopt_version_kernels"):
    """kernels.py (or ``rel``) as a module whose code objects carry the relative name (Python
    would make the path absolute): Triton puts that name in every location it prints."""
    import linecache
    import types

    root = pathlib.Path(__file__).resolve().parent.parent.parent
    source = (root / rel).read_text()
    linecache.cache[rel] = (len(source), None, source.splitlines(True), rel)
    mod = types.ModuleType(modname)
    mod.__file__ = rel
    sys.modules[mod.__name__] = mod
    exec(compile(source, rel, "exec"), mod.__dict__)
    return mod


def all_specs():
    """kernels.py's SPECS, then kernels_ops.py's (name -> spec), and what each says about
    descriptors."""
    base = load_kernels()
    ops = load_kernels(OPS_KERNELS_FILE, "ttopt_version_kernels_ops")
    specs = dict(base.SPECS)
    for name, spec in ops.SPECS.items():
        assert name not in specs, name
        specs[name] = spec
    return specs, getattr(base, "DESC_API", None), getattr(ops, "DESC_MATMUL", None)


def spec_for(spec, arch):
    """The spec as compiled for ``arch``: ``ARCH`` among the constexprs where it asks for it."""
    if spec.get("arch"):
        spec = dict(spec, constexprs={**spec["constexprs"], "ARCH": arch})
    return spec


# ---------------------------------------------------------------------------------------------
# stderr of the C++ side (MLIR prints its diagnostics there)


@contextlib.contextmanager
def captured_fd2():
    """Captures what anything (C++ included) writes to fd 2; yields a list filled on exit."""
    out: list[str] = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield out
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            out.append(tmp.read().decode("utf-8", "replace"))


def first_error(diagnostics: str, fallback: str) -> str:
    for line in diagnostics.splitlines():
        if "error:" in line or "LLVM ERROR:" in line:
            return line.strip()
    return fallback


# ---------------------------------------------------------------------------------------------
# compiling a kernel from Python


def _constexpr_index(fn, name):
    return fn.arg_names.index(name)


def _ttgir_to_cubin_2_1(mod, arch, nw):
    """2.1/2.2: the stages after make_ttgir, as their compile() runs them."""
    from triton.compiler import compiler as C

    if TV == (2, 1):
        return C.ptx_to_cubin(C.llir_to_ptx(C.ttgir_to_llir(mod, {}, arch), arch), arch)
    from triton._C.libtriton.triton import TMAInfos

    target = C.CudaTargetDescriptor(capability=arch, num_warps=nw, enable_fp_fusion=True)
    return C.ptx_to_cubin(C.llir_to_ptx(C.ttgir_to_llir(mod, {}, target, TMAInfos()), target), target)


def _ttir_to_ttgir_2_1(mod, arch, nw, ns, num_ctas=1):
    from triton.compiler import compiler as C

    if TV == (2, 1):
        if num_ctas != 1:
            raise NotImplementedError("num_ctas: Triton 2.1's compile has no such option")
        return C.optimize_ttgir(C.ttir_to_ttgir(mod, nw), ns, arch)
    from triton._C.libtriton.triton import ClusterInfo

    target = C.CudaTargetDescriptor(capability=arch, num_warps=nw, enable_fp_fusion=True)
    return C.optimize_ttgir(C.ttir_to_ttgir(mod, nw, num_ctas, target), ns, nw, num_ctas, target, ClusterInfo(),
                            False, False, False)


def compile_ast_2_1(spec, arch):
    from triton.compiler import compiler as C

    fn = spec["fn"]
    sig = {i: ty for i, (_, ty, _) in enumerate(spec["args"])}
    constants = {_constexpr_index(fn, k): v for k, v in spec["constexprs"].items()}
    div = {i for i, (_, _, d) in enumerate(spec["args"]) if d}
    nw, ns = spec["num_warps"], spec["num_stages"]
    options = spec.get("options", {})
    debug = bool(options.get("debug", False))
    conf = C.instance_descriptor(divisible_by_16=div, equal_to_1=set())
    if TV == (2, 1):
        mod = C.optimize_ttir(C.ast_to_ttir(fn, sig, conf, constants, debug=debug, arch=arch), arch)
    else:
        target = C.CudaTargetDescriptor(capability=arch, num_warps=nw, enable_fp_fusion=True)
        mod = C.optimize_ttir(C.ast_to_ttir(fn, sig, conf, constants, debug=debug, target=target), target)
    ttir = str(mod)
    mod = _ttir_to_ttgir_2_1(mod, arch, nw, ns, options.get("num_ctas", 1))
    ttgir = str(mod)
    _ttgir_to_cubin_2_1(mod, arch, nw)  # as for the other versions: kept only if it compiles
    return {"ttir": ttir, "ttgir": ttgir}


def _stage_loop_2_3(src, arch, options):
    """compile() of 2.3 without the cache and the launcher; returns {ext: text or bytes}."""
    from triton._C.libtriton.triton import get_env_vars
    from triton.compiler.backends.cuda import CUDABackend

    target = ("cuda", arch)
    backend = CUDABackend(target)
    extra = src.parse_options()
    opts = backend.parse_options(dict(options or {}, **extra))
    metadata = {"target": target, **opts.__dict__, **get_env_vars(), **src.metadata()}
    stages: dict = {}
    backend.add_stages(stages, opts)
    first = list(stages.keys()).index(src.ext)
    module = src.make_ir(opts)
    asm = {}
    for ext, compile_ir in list(stages.items())[first:]:
        module = compile_ir(module, metadata)
        asm[ext] = module if isinstance(module, bytes) else str(module)
    return asm


def compile_ast_2_3(spec, arch):
    from triton.compiler.compiler import ASTSource, AttrsDescriptor

    fn = spec["fn"]
    sig = {i: ty for i, (_, ty, _) in enumerate(spec["args"])}
    constants = {_constexpr_index(fn, k): v for k, v in spec["constexprs"].items()}
    div = {i for i, (_, _, d) in enumerate(spec["args"]) if d}
    src = ASTSource(fn, sig, constants, AttrsDescriptor(divisible_by_16=div))
    asm = _stage_loop_2_3(src, arch, {"num_warps": spec["num_warps"], "num_stages": spec["num_stages"],
                                      **spec.get("options", {})})
    return {"ttir": asm["ttir"], "ttgir": asm["ttgir"]}


def gpu_target(arch):
    from triton.backends.compiler import GPUTarget

    return GPUTarget("cuda", arch, 32)


def compile_ast_3(spec, arch):
    from triton.compiler import ASTSource

    fn = spec["fn"]
    div = [i for i, (_, _, d) in enumerate(spec["args"]) if d]
    target = gpu_target(arch)
    if TV < (3, 3):
        sig = {n: ty for n, ty, _ in spec["args"]}
        constants = dict(spec["constexprs"])
        if TV < (3, 2):
            from triton.compiler import AttrsDescriptor

            attrs = AttrsDescriptor(divisible_by_16=tuple(div), equal_to_1=())
        else:
            from triton.compiler.compiler import make_backend

            cls = type(make_backend(target).get_attrs_descriptor([], []))
            attrs = cls.from_hints({i: 16 for i in div})
        src = ASTSource(fn, sig, constants, attrs)
    else:
        from triton.compiler.compiler import make_backend

        sig = {n: ty for n, ty, _ in spec["args"]}
        sig.update({n: "constexpr" for n in spec["constexprs"]})
        assert list(sig) == fn.arg_names[: len(sig)], (list(sig), fn.arg_names)
        d = make_backend(target).parse_attr("D")
        attrs = {(i,): d for i in div}
        src = ASTSource(fn, sig, dict(spec["constexprs"]), attrs)
    options = {"num_warps": spec["num_warps"], "num_stages": spec["num_stages"], **spec.get("options", {})}
    k = triton.compile(src, target=target, options=options)
    return {"ttir": k.asm["ttir"], "ttgir": k.asm["ttgir"]}


def compile_ast(spec, arch):
    if TV < (2, 3):
        return compile_ast_2_1(spec, arch)
    if TV < (3, 0):
        return compile_ast_2_3(spec, arch)
    return compile_ast_3(spec, arch)


METHOD = (
    "stage functions of triton.compiler.compiler (ast_to_ttir, optimize_ttir, ttir_to_ttgir, optimize_ttgir)"
    if TV < (2, 3)
    else "CUDABackend.add_stages + compile()'s stage loop, without cache and launcher"
    if TV < (3, 0)
    else "triton.compile(ASTSource(...), target=GPUTarget('cuda', ARCH, 32), options)"
)


def exc_summary(e: BaseException) -> str:
    """``Type: message`` in one line: the exception's last line; where that is only the
    caret under the source excerpt of a CompilationError, its cause's; for ptxas, its first
    ``error`` line."""
    lines = [line.strip() for line in str(e).strip().splitlines() if line.strip()]
    ptxas = [line for line in lines if line.startswith("ptxas") and "error" in line]
    if ptxas:  # (without its temporary file's name)
        msg = re.sub(r"^(ptxas\S*) \S+, line \d+; ", r"\1: ", ptxas[0])
        return f"{type(e).__name__}: {msg}"
    last = lines[-1] if lines else ""
    if set(last) <= {"^", " "} and e.__cause__ is not None:
        return f"{type(e).__name__}: {exc_summary(e.__cause__)}"
    return f"{type(e).__name__}: {re.sub(r' at 0x[0-9a-f]+', '', last)}"


def run_isolated(func, timeout: float | None = None):
    """``func()`` in a forked child, so that a crash in Triton's C++ (an assertion's abort, a
    segfault: some releases do that on some kernels) is that kernel's failure and not the whole
    run's.  Returns ``(True, value)`` (``value`` JSON-able) or ``(False, {"error", "traceback"})``
    with the first ``error:`` line of what the child wrote to fd 2 (else the exception's last
    line, or how it died).  ``timeout``: seconds after which the child is killed (some
    releases never finish some compiles: 2.3.1 on scan_reduce for sm_80)."""
    import signal
    import time

    with tempfile.TemporaryDirectory(prefix="ttopt-inenv-fork-") as tmp:
        res, errf = os.path.join(tmp, "result.json"), os.path.join(tmp, "stderr")
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            code = 1
            try:
                fd = os.open(errf, os.O_WRONLY | os.O_CREAT, 0o600)
                os.dup2(fd, 2)
                os.dup2(fd, 1)  # stdout carries the parent's JSON: nothing of the child's there
                try:
                    result = {"ok": True, "value": func()}
                except Exception as e:  # noqa: BLE001 - reported, per kernel
                    result = {"ok": False, "exc": exc_summary(e),
                              "traceback": traceback.format_exc(limit=3)[-2000:]}
                sys.stdout.flush()
                sys.stderr.flush()
                with open(res, "w") as f:
                    json.dump(result, f)
                code = 0
            finally:
                os._exit(code)
        if timeout is None:
            _, status = os.waitpid(pid, 0)
        else:
            deadline = time.monotonic() + timeout
            while True:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    break
                if time.monotonic() > deadline:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    return False, {"error": f"timed out: no result after {timeout:.0f} s (killed)",
                                   "traceback": ""}
                time.sleep(0.05)
        diag = pathlib.Path(errf).read_text(errors="replace") if os.path.exists(errf) else ""
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and os.path.exists(res):
            result = json.loads(pathlib.Path(res).read_text())
            if result["ok"]:
                return True, result["value"]
            return False, {"error": first_error(diag, result["exc"]),
                           "traceback": result["traceback"] + "\n--- stderr:\n" + diag[:3000]}
        how = (f"killed by {signal.Signals(os.WTERMSIG(status)).name}" if os.WIFSIGNALED(status)
               else f"exit status {os.WEXITSTATUS(status)}")
        last = [line.strip() for line in diag.splitlines() if line.strip()]
        return False, {"error": first_error(diag, f"crashed ({how}): {last[-1][:200] if last else ''}"),
                       "traceback": diag[-2000:]}


def cmd_fixtures(outdir: str, archs: list[str], only: set | None = None) -> dict:
    specs, desc_api, desc_matmul = all_specs()
    out = pathlib.Path(outdir)
    made, failed = [], []
    for arch in map(int, archs):
        for name, spec in specs.items():
            if only and name not in only:
                continue
            if arch not in spec.get("archs", (arch,)):  # compiled for its targets only
                continue
            ok, texts = run_isolated(lambda: compile_ast(spec_for(spec, arch), arch))
            if not ok:
                failed.append({"kernel": name, "arch": arch, **texts})
                continue
            d = out / f"sm{arch}"
            d.mkdir(parents=True, exist_ok=True)
            for ext, text in texts.items():
                (d / f"{name}.{ext}").write_text(text)
                made.append(f"sm{arch}/{name}.{ext}")
    return {
        "triton": triton.__version__,
        "python": platform.python_version(),
        "method": METHOD,
        "descriptors": desc_api,
        "desc_matmul": desc_matmul,
        "made": made,
        "failed": failed,
        # kernels compiled for some targets only (by design, not a failure): name -> archs
        "targets_by_kernel": {name: sorted(spec["archs"]) for name, spec in specs.items() if "archs" in spec},
    }


# ---------------------------------------------------------------------------------------------
# parsing and verifying a file


def _context():
    if TV < (3, 0):
        from triton._C.libtriton.triton import ir

        return ir, ir.context()
    from triton._C.libtriton import ir, nvidia

    ctx = ir.context()
    ir.load_dialects(ctx)
    nvidia.load_dialects(ctx)
    return ir, ctx


def check_file(path: str) -> dict:
    ir, ctx = _context()
    try:
        with captured_fd2() as err:
            try:
                mod = ir.parse_mlir_module(path, ctx)
            except RuntimeError as e:
                mod, exc = None, str(e)
            if mod is not None:
                mod.context = ctx
                verified = mod.verify()
    except Exception as e:  # noqa: BLE001 - anything else is a rejection too, with its reason
        return {"file": path, "ok": False, "error": f"{type(e).__name__}: {e}", "diagnostics": ""}
    diag = err[0]
    if mod is None:
        return {"file": path, "ok": False, "error": first_error(diag, f"parse failed: {exc}"), "diagnostics": diag}
    if not verified:
        return {"file": path, "ok": False, "error": first_error(diag, "verification failed"), "diagnostics": diag}
    return {"file": path, "ok": True, "error": "", "diagnostics": diag}


def cmd_check(files: list[str]) -> dict:
    return {"triton": triton.__version__, "results": [check_file(f) for f in files]}


# ---------------------------------------------------------------------------------------------
# compiling a file to a cubin


def compile_file(path: str, arch: int, num_warps: int | None) -> bytes:
    ext = pathlib.Path(path).suffix[1:]
    if ext not in ("ttir", "ttgir"):
        raise ValueError(f"{path}: the suffix must be .ttir or .ttgir")
    if TV < (2, 3):
        from triton.compiler import compiler as C

        _, ctx = _context()
        mod = C.parse_mlir_module(path, ctx)
        if ext == "ttgir":  # as their compile() does: num_warps from the module
            text = pathlib.Path(path).read_text()
            nw = int(re.search(r'"triton_gpu.num-warps"\s?=\s?(\d+)', text).group(1))
        else:
            nw = num_warps or 4
            mod = _ttir_to_ttgir_2_1(mod, arch, nw, 3)
        return _ttgir_to_cubin_2_1(mod, arch, nw)
    if TV < (3, 0):
        from triton.compiler.compiler import IRSource

        options = {"num_warps": num_warps} if num_warps and ext == "ttir" else None
        return _stage_loop_2_3(IRSource(path), arch, options)["cubin"]
    options = {"num_warps": num_warps} if num_warps else None
    return triton.compile(path, target=gpu_target(arch), options=options).asm["cubin"]


def cubin_one(file: str, out: str, arch: int = 90, num_warps: int | None = None) -> dict:
    with tempfile.TemporaryDirectory(prefix="ttopt-inenv-") as tmp:
        # a private copy (Triton < 3.3 takes the kernel name from the file's name) and a
        # private cache: never another file's cubin
        os.environ["TRITON_CACHE_DIR"] = os.path.join(tmp, "cache")
        src = os.path.join(tmp, "kernel" + pathlib.Path(file).suffix)
        shutil.copyfile(file, src)
        try:
            with captured_fd2() as err:
                cubin = compile_file(src, arch, num_warps)
        except Exception as e:  # noqa: BLE001 - reported
            diag = err[0] if err else ""
            msg = str(e).strip().splitlines()
            error = first_error(diag, f"{type(e).__name__}: {msg[-1] if msg else ''}")
            return {"file": file, "ok": False, "arch": arch,
                    "error": error.replace(src, file), "diagnostics": diag[-4000:].replace(src, file)}
    pathlib.Path(out).write_bytes(cubin)
    return {"file": file, "ok": True, "arch": arch, "out": out,
            "sha256": hashlib.sha256(cubin).hexdigest(), "bytes": len(cubin)}


def cmd_cubin(args: list[str]) -> dict:
    import argparse

    ap = argparse.ArgumentParser(prog="inenv.py cubin")
    ap.add_argument("file")
    ap.add_argument("out")
    ap.add_argument("--arch", type=int, default=90)
    ap.add_argument("--num-warps", type=int, default=None)
    a = ap.parse_args(args)
    return {"triton": triton.__version__, **cubin_one(a.file, a.out, a.arch, a.num_warps)}


CUBIN_TIMEOUT_S = 90.0


def cmd_cubins(jobs_file: str) -> dict:
    """Many compiles: JOBS_FILE is a JSON list of {file, out, arch, num_warps}.  Each in a
    forked child (:func:`run_isolated`): a release that aborts on one file (2.2's LLVM
    asserts on some) fails that file, not the batch."""
    jobs = json.loads(pathlib.Path(jobs_file).read_text())
    results = []
    for j in jobs:
        ok, value = run_isolated(lambda j=j: cubin_one(j["file"], j["out"], j.get("arch", 90), j.get("num_warps")),
                                 timeout=CUBIN_TIMEOUT_S)
        results.append(value if ok else {"file": j["file"], "ok": False, "arch": j.get("arch", 90),
                                         "error": value["error"], "diagnostics": value["traceback"][-4000:]})
    return {"triton": triton.__version__, "results": results}


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, rest = argv[0], argv[1:]
    try:
        if cmd == "fixtures":
            # TTOPT_ONLY_KERNELS=a,b: only those (to try kernels; make_fixtures.py never sets it)
            only = set(filter(None, os.environ.get("TTOPT_ONLY_KERNELS", "").split(","))) or None
            result = cmd_fixtures(rest[0], rest[1:], only)
        elif cmd == "check":
            result = cmd_check(rest)
        elif cmd == "cubin":
            result = cmd_cubin(rest)
        elif cmd == "cubins":
            result = cmd_cubins(rest[0])
        else:
            print(f"inenv.py: unknown command {cmd!r}", file=sys.stderr)
            return 2
    finally:
        shutil.rmtree(_CACHE, ignore_errors=True)
    json.dump(result, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
