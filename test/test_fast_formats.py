"""The reader's plan-driven fast path (ttopt.ir.fast_formats): ops whose declared format is
simple are read from the line, and build exactly what the full parser builds; any line the
plan does not fit exactly goes to the full parser, whose verdict (the op, or the error) then
stands.  (Every fixture and corpus kernel is compared both ways in test_fast_path.py.)"""

from __future__ import annotations

import pytest

import ttopt
from ttopt.ir.fast_formats import plan_for
from ttopt.ir.reader import read_module
from ttopt.oracle import triton_accepts

from test_fast_path import _no_fast_paths, assert_same_structure, taken_ops

KERNEL = """#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%x: tensor<64xf32, #blocked>, %i: i32, %n: i64, %ptr: !tt.ptr<f32>) {
    %c0_i32 = arith.constant 0 : i32
    %m = ttg.local_alloc : () -> !ttg.memdesc<2x64xf32, #shared, #smem, mutable>
    %a = ttg.local_alloc %x : (tensor<64xf32, #blocked>) -> !ttg.memdesc<64xf32, #shared, #smem>
    %v = ttg.memdesc_index %m[%c0_i32] : !ttg.memdesc<2x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64xf32, #shared, #smem, mutable>
    %w = ttg.memdesc_index %m[%i] : !ttg.memdesc<2x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64xf32, #shared, #smem, mutable>
    ttg.local_store %x, %v : tensor<64xf32, #blocked> -> !ttg.memdesc<64xf32, #shared, #smem, mutable>
    ttng.fence_async_shared {bCluster = false}
    %t = ttg.async_commit_group
    %u = ttg.async_wait %t {num = 0 : i32}
    %l = ttg.local_load %a : !ttg.memdesc<64xf32, #shared, #smem> -> tensor<64xf32, #blocked>
    %r = tt.reshape %l : tensor<64xf32, #blocked> -> tensor<64xf32, #blocked>
    %h = tt.fp_to_fp %l, rounding = rtne : tensor<64xf32, #blocked> -> tensor<64xf16, #blocked>
    %bar = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared, #smem, mutable>
    %ps = tt.splat %ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>, #blocked>
    %mk = arith.cmpf ogt, %l, %l : tensor<64xf32, #blocked>
    %o1 = tt.atomic_rmw fadd, acq_rel, gpu, %ps, %l : (tensor<64x!tt.ptr<f32>, #blocked>, tensor<64xf32, #blocked>) -> tensor<64xf32, #blocked>
    %o2 = tt.atomic_rmw fadd, relaxed, cta, %ps, %l, %mk : (tensor<64x!tt.ptr<f32>, #blocked>, tensor<64xf32, #blocked>, tensor<64xi1, #blocked>) -> tensor<64xf32, #blocked>
    ttng.init_barrier %bar, 1 : !ttg.memdesc<1xi64, #shared, #smem, mutable>
    %s:2 = "tt.reduce"(%l, %l) <{axis = 0 : i32}> ({
    ^bb0(%p: f32, %q: f32, %p2: f32, %q2: f32):
      %sum = arith.addf %p, %p2 : f32
      %mx = arith.maxnumf %q, %q2 : f32
      tt.reduce.return %sum, %mx : f32, f32
    }) : (tensor<64xf32, #blocked>, tensor<64xf32, #blocked>) -> (f32, f32)
    %d = arith.mulf %s#0, %s#1 : f32
    %e = tt.splat %s#1 : f32 -> tensor<64xf32, #blocked>
    ttg.local_dealloc %m : !ttg.memdesc<2x64xf32, #shared, #smem, mutable>
    tt.return
  }
}
"""

# the ops a plan reads (by line), and those only the regular fast path reads
# (`%t = ttg.async_commit_group`, nothing after its name, is the full parser's: the fast
# path's line pattern wants a blank after the name)
PLANNED = ["ttg.local_alloc", "ttg.local_alloc", "ttg.memdesc_index", "ttg.memdesc_index",
           "ttg.local_store", "ttng.fence_async_shared", "ttg.async_wait", "ttg.local_load",
           "tt.reshape", "tt.fp_to_fp", "ttg.local_alloc", "tt.atomic_rmw", "tt.atomic_rmw",
           "ttng.init_barrier", "ttg.local_dealloc"]


def _planned(monkeypatch, text: str) -> list[str]:
    """The names of the ops of ``text`` that were read by a plan."""
    import ttopt.ir.fast_ops as fo

    taken: list[str] = []
    real = fo.read_with_plan

    def counting(parser, cls, *args):
        op = real(parser, cls, *args)
        if op is not None:
            taken.append(op.name)
        return op

    with monkeypatch.context() as m:
        m.setattr(fo, "read_with_plan", counting)  # (its callers: fast_ops' two)
        read_module(text, "k.ttgir")
    return taken


def _verdict(text: str) -> str:
    """What ttopt makes of ``text``: its output, or its error."""
    try:
        return ttopt.optimize(text, [], "k.ttgir")
    except ttopt.TTOptError as e:
        return f"error: {e}"


def _verdicts(text: str, monkeypatch) -> tuple[str, str]:
    fast = _verdict(text)
    with monkeypatch.context() as m:
        _no_fast_paths(m)
        slow = _verdict(text)
    return fast, slow


def test_the_kernel_is_valid_and_its_simple_ops_are_read_by_their_plans(monkeypatch):
    assert triton_accepts(KERNEL).ok
    assert _planned(monkeypatch, KERNEL) == PLANNED
    assert_same_structure(read_module(KERNEL, "k.ttgir"), _full(monkeypatch, KERNEL))
    fast, slow = _verdicts(KERNEL, monkeypatch)
    assert fast == slow == KERNEL


def _full(monkeypatch, text, name="k.ttgir"):
    with monkeypatch.context() as m:
        _no_fast_paths(m)
        return read_module(text, name)


def test_results_of_a_multi_result_op_are_read_by_the_regular_fast_path(monkeypatch):
    """``%s#1`` operands: arith and tt.splat lines with them take the fast path."""
    taken, mod = taken_ops(monkeypatch, KERNEL, name="k.ttgir")
    assert {"arith.mulf", "tt.splat"} <= {op.name for op in taken}
    mulf = next(op for op in mod.op.walk() if op.name == "arith.mulf")
    red = next(op for op in mod.op.walk() if op.name == "tt.reduce")
    assert list(mulf.operands) == list(red.results)


@pytest.mark.parametrize("before, after", [
    ("%r = tt.reshape %l : ", "%r = tt.reshape %l {x.y = 1 : i32, a = [1, 2]} : "),
    ("%r = tt.reshape %l : ", "%r = tt.reshape %l {efficient_layout, x = {y = 1 : i32}} : "),
    ("%u = ttg.async_wait %t {num = 0 : i32}", "%u = ttg.async_wait %t {num = 3 : i32, z}"),
    ("%r = tt.reshape %l : ", "%r = tt.reshape %l allow_reorder : "),
    ("%r = tt.reshape %l : ", "%r = tt.reshape %l allow_reorder efficient_layout {x = 1} : "),
    ("%l = ttg.local_load %a : ", "%l = ttg.local_load %a token %u : "),
    ("rounding = rtne : tensor<64xf32", "rounding = rtz : tensor<64xf32"),
    ("ttng.init_barrier %bar, 1 :", "ttng.init_barrier %bar, 7 :"),
], ids=["discardable", "property and nested", "property and unit", "optional group",
        "optional groups and dictionary", "optional operand", "custom directive",
        "typed attribute"])
def test_what_a_plan_reads_is_what_the_full_parser_builds(before, after, monkeypatch):
    """Discardable attributes, properties (``efficient_layout``, ``num``) and nested
    dictionaries, optional groups that are there (a keyword, an operand), a property's
    custom directive and a typed attribute: the op the full parser builds, by the plan."""
    text = KERNEL.replace(before, after)
    assert triton_accepts(text).ok
    line = next(ln for ln in text.splitlines() if after.strip() in ln)
    op = next(name for name in PLANNED if f"{name} " in line)
    assert _planned(monkeypatch, text).count(op) == PLANNED.count(op)
    assert_same_structure(read_module(text, "k.ttgir"), _full(monkeypatch, text))
    fast, slow = _verdicts(text, monkeypatch)
    assert fast == slow == text


def test_plans_of_the_ops_that_have_none():
    """An op whose format has segment sizes (``ttng.wait_barrier``), a custom directive
    that reads operands, or a region, or whose parser is hand-written, gets no plan; one of
    operands, types (``functional-type(operands, $result)`` included), attribute
    dictionaries, optional groups and attribute or property directives (``$count``,
    ``custom<RoundingMode>``) gets one."""
    from ttopt.dialects import make_context

    ctx = make_context()
    for name in ("ttng.wait_barrier", "tt.load",
                 "tt.descriptor_load", "tt.func", "scf.for", "tt.dot"):
        assert plan_for(ctx.get_optional_op(name)) is None, name
    for name in ("ttg.memdesc_index", "ttg.local_alloc", "ttg.local_dealloc", "tt.reshape",
                 "tt.fp_to_fp", "ttng.init_barrier", "tt.trans", "ttg.async_commit_group",
                 "tt.atomic_rmw", "tt.atomic_cas"):
        assert plan_for(ctx.get_optional_op(name)) is not None, name


# Lines a plan must not take: each variant's verdict is the full parser's, and the line is
# not read by a plan.
VARIANTS = {  # name: (line text, its variant, the op)
    # a type the index's constraint does not allow: the full parser's error
    "index type": ("%w = ttg.memdesc_index %m[%i]", "%w = ttg.memdesc_index %m[%n]",
                   "ttg.memdesc_index"),
    # a value not defined yet
    "forward reference": ("%w = ttg.memdesc_index %m[%i]", "%w = ttg.memdesc_index %m[%zz]",
                          "ttg.memdesc_index"),
    # the written type is not the value's
    "type mismatch": ("%a = ttg.local_alloc %x : (tensor<64xf32, #blocked>)",
                      "%a = ttg.local_alloc %x : (tensor<64xf16, #blocked>)", "ttg.local_alloc"),
    # an attribute dictionary the parser cannot read
    "bad attributes": ("%r = tt.reshape %l : ", "%r = tt.reshape %l {x.y = } : ", "tt.reshape"),
    # an attribute dictionary on the next line
    "attributes below": ("%r = tt.reshape %l : ", "%r = tt.reshape %l\n      {x.y = 1 : i32} : ",
                         "tt.reshape"),
    # an optional group that is there, but not as the format has it
    "optional group": ("%r = tt.reshape %l : ", "%r = tt.reshape %l allow_reorder allow_reorder : ",
                       "tt.reshape"),
    "optional operand": ("%l = ttg.local_load %a : ", "%l = ttg.local_load %a token : ",
                         "ttg.local_load"),
    # an attribute the property's directive refuses
    "rounding mode": ("rounding = rtne", "rounding = rtx", "tt.fp_to_fp"),
    "barrier count": ("ttng.init_barrier %bar, 1 :", "ttng.init_barrier %bar, 1.5 :",
                      "ttng.init_barrier"),
    # more operand types than operands, fewer, and an RMW kind the directive refuses
    "too many types": ("%ps, %l : (tensor<64x!tt.ptr<f32>, #blocked>, tensor<64xf32, #blocked>)",
                       "%ps, %l : (tensor<64x!tt.ptr<f32>, #blocked>, tensor<64xf32, #blocked>, tensor<64xi1, #blocked>)",
                       "tt.atomic_rmw"),
    "too few types": ("%mk : (tensor<64x!tt.ptr<f32>, #blocked>, tensor<64xf32, #blocked>, tensor<64xi1, #blocked>)",
                      "%mk : (tensor<64x!tt.ptr<f32>, #blocked>, tensor<64xf32, #blocked>)",
                      "tt.atomic_rmw"),
    "rmw kind": ("fadd, relaxed", "fmul, relaxed", "tt.atomic_rmw"),
    "keyword lookalike": ("%r = tt.reshape %l : ", "%r = tt.reshape %l allow_reorderx : ",
                          "tt.reshape"),
    # two results named where the op has one
    "result count": ("%w = ttg.memdesc_index", "%w, %w2 = ttg.memdesc_index", "ttg.memdesc_index"),
    "missing arrow": ("(tensor<64xf32, #blocked>) -> !ttg.memdesc<64xf32, #shared, #smem>",
                      "(tensor<64xf32, #blocked>) !ttg.memdesc<64xf32, #shared, #smem>",
                      "ttg.local_alloc"),
    # something after the op
    "trailing text": ("ttg.local_dealloc %m : !ttg.memdesc<2x64xf32, #shared, #smem, mutable>",
                      "ttg.local_dealloc %m : !ttg.memdesc<2x64xf32, #shared, #smem, mutable> %m",
                      "ttg.local_dealloc"),
    # a tuple index out of range, and a multi-result value without one (the regular fast
    # path's operands)
    "index out of range": ("%d = arith.mulf %s#0, %s#1 : f32", "%d = arith.mulf %s#0, %s#2 : f32",
                           None),
    "no index": ("%e = tt.splat %s#1 :", "%e = tt.splat %s :", None),
}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_a_line_the_plan_does_not_fit_gets_the_full_parsers_verdict(name, monkeypatch):
    before, after, op = VARIANTS[name]
    assert KERNEL.count(before) == 1
    text = KERNEL.replace(before, after)
    fast, slow = _verdicts(text, monkeypatch)
    assert fast == slow
    if op is not None and not fast.startswith("error"):  # (the others: read by nobody)
        assert _planned(monkeypatch, text).count(op) == PLANNED.count(op) - 1


@pytest.mark.parametrize("name, valid", [("no index", True), ("index out of range", False)])
def test_a_value_tuple_index_the_fast_path_cannot_take(name, valid, monkeypatch):
    """``%s`` for a two-result op (its first result, as Triton reads it) and ``%s#2`` out of
    range (refused): the full parser's verdict, which is Triton's."""
    before, after, _ = VARIANTS[name]
    text = KERNEL.replace(before, after)
    fast, slow = _verdicts(text, monkeypatch)
    assert fast == slow
    assert triton_accepts(text).ok is valid
    assert fast.startswith("error") is not valid


def test_the_variants_are_not_all_errors(monkeypatch):
    """(Some variants are valid and read whole by the full parser: the comparison above
    then covers the op it builds, not only an error.)"""
    valid = [n for n, (b, a, _) in VARIANTS.items()
             if not _verdict(KERNEL.replace(b, a)).startswith("error")]
    assert {"attributes below"} <= set(valid)


SCALARS = """module {
  tt.func public @k() {
    %a = arith.constant 1.000000e+39 : f32
    %b = arith.constant 7.000000e+04 : f16
    %c = arith.constant 1.000000e-01 : f32
    %d = arith.constant -0.000000e+00 : bf16
    %e = arith.constant true
    %f = arith.constant 1.0e400 : f64
    %g = arith.constant 2.5 : f64
    %h = arith.constant false
    tt.return
  }
}
"""


def test_scalar_float_and_boolean_constants(monkeypatch):
    """Decimal float literals and ``true``/``false`` take the fast path and build what the
    full parser builds; a value out of its type's range (rounded to infinity by the reader's
    own rules) goes to the full parser."""
    from ttopt.ir.writer import write_module

    assert triton_accepts(SCALARS, ".ttir").ok
    taken, fast_mod = taken_ops(monkeypatch, SCALARS, name="s.ttir")
    assert [op.results[0].name_hint for op in taken] == ["c", "d", "e", "g", "h"]
    assert_same_structure(fast_mod, _full(monkeypatch, SCALARS, "s.ttir"))
    fast = write_module(read_module(SCALARS, "s.ttir"), keep_text=False)
    with monkeypatch.context() as m:
        _no_fast_paths(m)
        slow = write_module(read_module(SCALARS, "s.ttir"), keep_text=False)
    assert fast == slow
    assert "%a = arith.constant 0x7f800000 : f32" in fast  # (MLIR's rounding: infinity)
