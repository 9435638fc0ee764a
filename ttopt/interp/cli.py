"""``ttopt-run``: run a Triton kernel on the CPU, or compare two versions of one.

    ttopt-run kernel.ttgir [--func NAME] [--pid 1,0,0] [--num-programs 4,1,1] [--seed N]
              [--arg n_elements=1024 ...] [--show out_ptr]
    ttopt-run --compare before.ttgir after.ttgir [--seeds N] [--pids first,last,random]
              [--ulps K] [--num-programs 4,4,4]
    either: [--fp-contract] [--reduce-order tree|gpu] [--gpu-numerics]

The numeric model: ``--fp-contract`` computes the sums the GPU contracts (``a*b + c`` in one
block, as Triton's default ``enable_fp_fusion`` compiles them) as fused multiply-adds;
``--reduce-order gpu`` reduces in Triton's order for the operand's layout (default ``tree``:
a pairwise tree); ``--gpu-numerics`` is both.  ``--compare`` uses one model for both sides.

A run prints, per pointer argument, the bytes written (range and CRC-32 checksum), the scalar
arguments used, and the print/assert events.  ``--compare`` runs both on the same inputs
(seeds 0..N-1, each program id of ``--pids``) and prints ``equal: ...``.

Exit status: 0 success (``--compare``: equal); 1 ``--compare`` found a difference (one line
``error: ...`` naming the argument, element, both values and both stores' locations); 2 the
input cannot be read or run (one line ``FILE:LINE:COL: error: ...``), or a usage error; 3 an
internal error of the interpreter (one line).
"""

from __future__ import annotations

import sys

import click
import numpy as np

from ..errors import TTOptError
from .compare import DEFAULT_NUM_PROGRAMS, compare
from .run import DEFAULT_MAX_LOOP_ITERS, as_program, run_program

EXIT_DIFFERENT = 1
EXIT_ERROR = 2
EXIT_INTERNAL = 3


def _fail(message: str, code: int) -> None:
    click.echo(" ".join(str(message).split()), err=True)
    sys.exit(code)


def _read(path: str) -> str:
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except FileNotFoundError:
        _fail(f"{path}: error: no such file", EXIT_ERROR)
    except IsADirectoryError:
        _fail(f"{path}: error: is a directory", EXIT_ERROR)
    except OSError as e:
        _fail(f"{path}: error: cannot read: {e.strerror or e}", EXIT_ERROR)
    return data.decode("utf-8", "surrogateescape")


def _program(path: str):
    return as_program(_read(path), "<stdin>" if path == "-" else path)


def _triple(text: str, what: str):
    try:
        v = tuple(int(x) for x in text.replace(":", ",").split(",") if x.strip())
    except ValueError:
        raise click.UsageError(f"{what} must be integers like 1,0,0, got {text!r}") from None
    if not 1 <= len(v) <= 3:
        raise click.UsageError(f"{what} takes 1 to 3 integers, got {text!r}")
    return v


def _args(items) -> dict:
    out = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or not name:
            raise click.UsageError(f"--arg takes NAME=VALUE, got {item!r}")
        v = value.strip()
        try:
            out[name.strip()] = int(v, 0)
        except ValueError:
            try:
                out[name.strip()] = float(v)
            except ValueError:
                raise click.UsageError(f"--arg {name}: {value!r} is not a number") from None
    return out


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("files", nargs=-1, metavar="KERNEL | --compare BEFORE AFTER")
@click.option("--compare", "do_compare", is_flag=True, help="Compare two versions of a kernel.")
@click.option("--func", default=None, help="The function to run (default: the public one).")
@click.option("--pid", default="0,0,0", show_default=True, help="Program id x,y,z of the run.")
@click.option("--num-programs", default=None,
              help="Grid x,y,z (run: default 1,1,1 or just above --pid; compare: 4,4,4).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of memory and scalar arguments.")
@click.option("--seeds", type=int, default=3, show_default=True, help="--compare: seeds 0..N-1.")
@click.option("--pids", "pid_spec", default="first,last,random", show_default=True,
              help="--compare: program ids (first, last, random, or x:y:z;...).")
@click.option("--ulps", type=int, default=0, show_default=True,
              help="--compare: float elements may differ by this many ulps.")
@click.option("--arg", "arg_items", multiple=True, metavar="NAME=VALUE", help="A scalar argument's value.")
@click.option("--show", "show", multiple=True, metavar="ARG", help="Print the first written elements of ARG.")
@click.option("--max-loop-iters", type=int, default=DEFAULT_MAX_LOOP_ITERS, show_default=True)
@click.option("--fp-contract", is_flag=True,
              help="Fused multiply-adds where the GPU contracts a*b + c (Triton's enable_fp_fusion).")
@click.option("--reduce-order", type=click.Choice(["tree", "gpu"]), default=None,
              help="Reduction order: a pairwise tree (default) or Triton's order from the layout.")
@click.option("--gpu-numerics", is_flag=True, help="Both: --fp-contract --reduce-order gpu.")
def main(files, do_compare, func, pid, num_programs, seed, seeds, pid_spec, ulps, arg_items, show,
         max_loop_iters, fp_contract, reduce_order, gpu_numerics):
    """Run a Triton kernel (TTIR/TTGIR) on the CPU, or compare two versions of one."""
    if gpu_numerics:
        fp_contract = True
        reduce_order = reduce_order or "gpu"
    reduce_order = reduce_order or "tree"
    try:
        args = _args(arg_items)
        if do_compare:
            if len(files) != 2:
                raise click.UsageError("--compare takes two files: BEFORE AFTER")
            before, after = _program(files[0]), _program(files[1])
            nprog = _triple(num_programs, "--num-programs") if num_programs else DEFAULT_NUM_PROGRAMS
            pids = pid_spec
            if any(":" in w for w in pid_spec.split(";")) and not any(
                    w in pid_spec for w in ("first", "last", "random")):
                pids = [_triple(w, "--pids") for w in pid_spec.split(";") if w.strip()]
            res = compare(before, after, seeds=range(seeds), pids=pids, ulps=ulps, num_programs=nprog,
                          func_name=func, args=args, max_loop_iters=max_loop_iters, fp_contract=fp_contract,
                          reduce_order=reduce_order)
            if not res.ok:
                _fail(f"error: {res.message}", EXIT_DIFFERENT)
            click.echo(res.message)
            return
        if len(files) != 1:
            raise click.UsageError("give one KERNEL (or --compare BEFORE AFTER)")
        program = _program(files[0]).with_model(fp_contract, reduce_order)
        pids = _triple(pid, "--pid")
        pids = pids + (0,) * (3 - len(pids))
        if num_programs:
            nprog = _triple(num_programs, "--num-programs")
        else:
            nprog = tuple(p + 1 for p in pids)
        nprog = nprog + (1,) * (3 - len(nprog))
        if any(not 0 <= p < n for p, n in zip(pids, nprog)):
            raise click.UsageError(f"--pid {pid} is outside --num-programs {num_programs}")
        res = run_program(program, func, pids=pids, num_programs=nprog, seed=seed, args=args,
                          max_loop_iters=max_loop_iters)
        for line in res.summary_lines():
            click.echo(line)
        for name in show:
            try:
                els = res.written_elements(name)
            except KeyError as e:
                raise click.UsageError(str(e.args[0])) from None
            vals = res.read(name, elements=els[:16]) if els.size else np.zeros(0)
            click.echo(f"  {name}[{', '.join(str(int(i)) for i in els[:16])}{', ...' if els.size > 16 else ''}]"
                       f" = {np.array2string(vals, threshold=16, max_line_width=200)}")
    except click.UsageError as e:
        _fail(f"usage error: {e.message}", EXIT_ERROR)
    except TTOptError as e:
        _fail(str(e), EXIT_ERROR)
    except RecursionError:
        _fail("error: input nested too deeply", EXIT_ERROR)
    except MemoryError:
        _fail("error: out of memory", EXIT_ERROR)
    except Exception as e:  # a bug of the interpreter: still one line
        _fail(f"internal error: {type(e).__name__}: {e}", EXIT_INTERNAL)


if __name__ == "__main__":
    main()
