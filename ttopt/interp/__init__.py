"""Run Triton IR (TTIR/TTGIR of Triton 3.6) on the CPU: one program instance at a time, numpy-
vectorised over tensor elements; and compare two versions of a kernel -- the validator of
ttopt's rewrites.

    >>> from ttopt.interp import run_kernel, compare
    >>> r = run_kernel(text, pids=(1, 0, 0), num_programs=(4, 1, 1), seed=0, args={"n_elements": 1024})
    >>> r.overlay["out_ptr"].nbytes, r.read("out_ptr", 0, 8), r.initial("x_ptr", 0, 8), r.events
    >>> res = compare(before_text, after_text, seeds=(0, 1, 2), pids="first,last,random", ulps=0)
    >>> res.ok, res.message            # "out_ptr[10] (byte offset 40) differs: BEFORE ... AFTER ..."

API
---
``run_kernel(module_or_text, func_name=None, *, pids=(0, 0, 0), num_programs=(1, 1, 1), seed=0,
args=None, model=None, max_loop_iters=100000, filename=None, fp_contract=None, reduce_order=None)
-> RunResult``
    Runs ``func_name`` (default: the module's public ``tt.func``) for the program id ``pids`` of
    a grid ``num_programs``.  ``module_or_text``: IR text, a ``pathlib.Path``, a
    ``TritonModule`` (``ttopt.ir.reader.read_module``), a ``builtin.module`` op, or a compiled
    :class:`Program` (reused, it is compiled once).  ``args``: scalar arguments by name or
    index; the others are drawn from ``seed``.  ``model``: :class:`InitModel` (value ranges).
    :class:`RunResult`: ``written`` / ``overlay`` (every byte written per argument, with the
    writing op), ``events`` (``tt.print``, failing ``tt.assert``), ``args`` (values used),
    ``read``/``initial`` (buffer contents after/before), ``summary_lines()``.
    ``fp_contract``/``reduce_order``: the numeric model, below (None: off / ``"tree"``, or a
    given Program's own; ``Program.with_model(...)`` gives the same module under another).

``compare(before, after, *, seeds=(0, 1, 2), pids="first,last,random", ulps=0,
num_programs=(4, 4, 4), func_name=None, args=None, model=None, fp_contract=False,
reduce_order="tree") -> CompareResult``
    Runs both versions on the same inputs (per seed: memory and scalar arguments; each program
    id: ``first`` = (0,0,0), ``last`` = num_programs - 1, ``random`` = drawn from the seed, or a
    list of (x, y, z)) and compares every byte written, bit for bit (``ulps=0``) or float
    elements within ``ulps`` units in the last place (NaN equals NaN, inf only itself), plus
    the print/assert events.  ``CompareResult``: ``ok`` (its truth value), ``message`` (one
    line), ``mismatch`` (:class:`Mismatch`: seed, pid, argument name, byte offset, element
    index, both values, the location of the store that wrote each), ``runs``,
    ``bytes_compared``, ``max_ulps``.  Signatures must match.  Both sides run under one
    numeric model.

Errors: :class:`InterpError` (a :class:`ttopt.errors.TTOptError`): one line,
``FILE:LINE:COL: error: 'op.name': ...`` -- an unsupported op (any op without semantics here is
an error when its function is compiled, never skipped), an unsupported type, a loop over
``max_loop_iters``, a load through a pointer that derives from no pointer argument.

Command line: ``ttopt-run KERNEL [--func F] [--pid x,y,z] [--num-programs x,y,z] [--seed N]
[--arg name=value] [--show ARG]`` and ``ttopt-run --compare BEFORE AFTER [--seeds N] [--pids ...]
[--ulps K]`` (exit 0 equal, 1 different, 2 cannot run), either with ``--fp-contract``,
``--reduce-order tree|gpu`` or ``--gpu-numerics`` (both); see :mod:`ttopt.interp.cli`.

Numeric models
--------------
The default rounds every operation (IEEE, as written in the IR) and reduces in a pairwise tree:
deterministic and independent of layouts, what comparing two versions of a kernel needs.  Two
options make it compute what an NVIDIA GPU computes for Triton 3.6's default compilation
(bench/results/h100-interp: with both, 21 of 30 corpus kernels are bit-exact with an H100, and
the other 9 differ only through ``div.full.f32``, ``ex2.approx``/libdevice ``expf`` and the
tensor cores' accumulation):

* ``fp_contract=True``: the sums that LLVM's NVPTX backend contracts (``a*b + c``, ``c - a*b``
  ... in one basic block, Triton's ``enable_fp_fusion``) are fused multiply-adds, rounded once
  (:mod:`ttopt.interp.contract` has the exact rules and what is not modelled);
* ``reduce_order="gpu"``: ``tt.reduce`` over a ``#ttg.blocked`` (or slice) layout combines in
  Triton's order -- each thread's registers left to right, then butterflies over lanes and
  warps (:mod:`ttopt.interp.reduce_order`); other layouts keep the tree.  With both options
  the within-thread sums of a product operand (or of ``select(c, product, 0)`` with one
  condition value) are fused too.

Memory model (:mod:`ttopt.interp.memory`)
-----------------------------------------
A pointer is (buffer, byte offset); buffer ``k`` is pointer argument ``k``, and buffers have no
size (any offset can be read).  A tensor of pointers is two arrays (buffer ids, offsets) with
the pointee type from the IR type.  Memory never written holds pseudo-random values, a
function of (seed, argument, element index) only -- ``splitmix64`` of the element index keyed
by (seed, argument) -- of the argument's declared pointee type: floats uniform in
``InitModel.float_range`` (default [-2, 2): finite, moderate), integers uniform in
``int_range`` (default [-4, 16): usable as small indices, some negative), i1 0/1.  A load of
another type or at an unaligned offset reads those same bytes reinterpreted.  Stores and
atomics write an overlay of 64 KiB pages (byte values, written flags, writer op ids); the
overlay is the run's result.  Masked-off lanes read ``other`` (or 0) and never touch memory;
atomics apply lanes that hit one address one after another, in lane order.  Scalar arguments
not given: integers named like sizes (``InitModel.numel_pattern``: ``xnumel``, ``r0_numel``,
``n_elements``, ``n``, ``M``, ``N``, ``K``, ``ks0`` ...) uniform in ``numel_range`` (default
64..4096, so that loops over them are short), other integers (strides, offsets) in
``int_arg_range`` (1..64), floats in ``float_range``; ``tt.divisibility = D`` is honoured
(rounded up to a multiple of D).

Semantics (:mod:`ttopt.interp.ops`, :mod:`ttopt.interp.numerics`)
-----------------------------------------------------------------
* integers: MLIR's signless integers stored as numpy ``intN`` (i1 as bool); every op wraps at
  the declared width (i1, i8, i16, i32, i64; other widths are an error); signed/unsigned per
  op (``divsi``/``divui``, ``shrsi``/``shrui``, ``cmpi`` predicates ...).  Division by zero
  (undefined in MLIR): quotient -1 (all ones), remainder the dividend; ``MIN / -1`` wraps.
  Shifts by >= the width: 0 (``shli``, ``shrui``) or the sign (``shrsi``).  ``fptosi``/
  ``fptoui`` saturate and map NaN to 0 (as NVIDIA's ``cvt.rzi``).
* floats: f16, bf16 (``ml_dtypes``), f32, f64, f8 (E4M3FN, E5M2, FNUZ variants); IEEE
  round-to-nearest-even.  f16/bf16/f8 arithmetic is computed in f32 and rounded once (exact for
  + - * / sqrt).  Transcendentals (exp, log, tanh, erf, rsqrt ... and libdevice/ocml
  ``extern_elementwise`` symbols) are computed in f64 and rounded once to the type, so a result
  never depends on numpy's SIMD path (bf16 and f8 through f32 rounded to odd: ``ml_dtypes``
  alone would round twice).  ``maxnumf``/``minnumf`` ignore NaN; ``maximumf``/
  ``minimumf`` propagate it and order -0 < +0.  ``arith.divf`` is IEEE division (the GPU's
  ``div.full.f32`` is within 2 ulp of it).  ``math.fma`` (and libdevice ``fma``) is rounded
  once for f16, bf16, f32 and f64 (:func:`ttopt.interp.numerics.fma`: exact product, sum rounded
  to odd in f64, then to the type; f64 through Dekker's product).
* ``tt.dot``/``ttng.warp_group_dot``: inputs converted exactly to f64, products summed in f64
  (numpy's single-threaded einsum), the accumulator added in f64, one rounding to the result
  type; ``inputPrecision`` (tf32 ...) is not emulated.  Integer dots in int64, wrapped.
* ``tt.reduce``: the combiner region is called on whole arrays in a pairwise tree along the
  axis (element i with element i + n/2, halving each round); ``tt.scan``: Hillis-Steele
  (log2 n rounds of x[i] = combine(x[i-d], x[i])), ``reverse`` by flipping.  Not the GPU's
  exact order (``reduce_order="gpu"`` is, for blocked layouts): deterministic, which is what
  comparing two versions needs.  The tensor cores' accumulation of ``tt.dot`` is not IEEE
  and not emulated: on an H100, 17 of 16,384 f16 results of a 128x128x128 matmul were the
  other f16 neighbour of the exact value.
* layouts are ignored (``ttg.convert_layout`` is the identity); shared memory
  (``ttg.local_alloc``/``local_load``/``local_store``/``memdesc_index``/``memdesc_trans``/
  ``memdesc_reshape``/``memdesc_reinterpret``) is a numpy buffer with views;
  ``ttg.async_copy_global_to_local`` copies at once; async tokens, waits, barriers and fences
  do nothing.  ``tt.elementwise_inline_asm``: only an identity ``mov`` is understood.
* ``ub.poison`` is zero; ``tt.gather`` clamps out-of-range indices; ``tt.histogram`` ignores
  values outside [0, bins).

Ops covered: :data:`SUPPORTED_OPS` (every op of the corpus, and every op ttopt's reader knows
except ``builtin.unrealized_conversion_cast``).
"""

from .compare import CompareResult, Mismatch, compare
from .engine import Event, InterpError, Program
from .memory import InitModel
from .ops import SUPPORTED_OPS
from .run import RunResult, Written, as_program, run_kernel

__all__ = [
    "run_kernel",
    "compare",
    "RunResult",
    "CompareResult",
    "Mismatch",
    "Written",
    "Event",
    "InitModel",
    "InterpError",
    "Program",
    "as_program",
    "SUPPORTED_OPS",
]
