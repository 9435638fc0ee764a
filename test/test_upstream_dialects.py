"""ttopt's arith, math, scf, cf and ub are xDSL's own op classes (ttopt/dialects/upstream.py):
which classes, what the adapter around them changes (MLIR's constraints, parse-time
behaviour, traits, rules), that Triton's text still reads and prints byte for byte, that
xDSL's own registrations are untouched, and that ttopt's passes see xDSL's ops under
``xdsl-opt`` too."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
import textwrap

import pytest
from xdsl.dialects import arith as x_arith
from xdsl.dialects import cf as x_cf
from xdsl.dialects import math as x_math
from xdsl.dialects import scf as x_scf
from xdsl.dialects import ub as x_ub
from xdsl.irdl import VarConstraint
from xdsl.traits import Commutative, Pure, RecursiveMemoryEffect, get_effects

import ttopt
import ttopt.ir.reader as reader
from conftest import fixture_files
from ttopt.dialects import make_context
from ttopt.dialects import arith, math, scf
from ttopt.errors import TTOptError
from ttopt.ir.reader import read_module
from ttopt.ir.verify import verify_module
from ttopt.oracle import triton_accepts

XDSL = {d.name: d for d in (x_arith.Arith, x_math.Math, x_scf.Scf, x_ub.UB, x_cf.Cf)}

# ttopt's own definitions, where xDSL 0.74's cannot read Triton's IR (module docstrings)
REPLACED = {
    "arith.cmpi", "arith.cmpf", "arith.select",  # tensor results / conditions
    "arith.extsi", "arith.extui", "arith.trunci", "arith.sitofp", "arith.uitofp",
    "arith.fptosi", "arith.fptoui", "arith.index_cast",  # xDSL's take scalars only
}
NOT_IN_XDSL = {"arith.remf", "arith.index_castui", "math.erfc"}
# xDSL's class, with a print of ttopt's: xDSL 0.74's puts the op's location inside the op
# (`scf.while (...) : (i32) -> i32 loc(#loc) {`), which Triton rejects; `scf.for` prints
# `unsigned`, `scf.execute_region` MLIR's syntax, `cf.switch` signed case values
PRINT_REPLACED = {"scf.while", "scf.for", "scf.execute_region", "cf.switch"}


def _ops(dialect_name: str) -> dict[str, type]:
    ctx = make_context()
    return {
        name: ctx.get_op(name)
        for d in ctx.registered_dialect_names if d == dialect_name
        for name in [op.name for op in ctx.get_optional_dialect(d).operations]
    }


@pytest.mark.parametrize("dialect", ["arith", "math", "scf", "ub", "cf"])
def test_the_context_uses_xdsls_classes_except_the_documented_replacements(dialect):
    theirs = {op.name: op for op in XDSL[dialect].operations}
    ours = _ops(dialect)
    if dialect == "scf":  # the ops Triton emits, and scf.execute_region, which it reads
        assert set(ours) == {"scf.for", "scf.if", "scf.while", "scf.yield", "scf.condition",
                             "scf.execute_region"}
    elif dialect == "cf":  # an early `return`; cf.assert and cf.switch, which Triton reads
        assert set(ours) == {"cf.br", "cf.cond_br", "cf.assert", "cf.switch"}
    elif dialect == "ub":  # Triton 3.6's MLIR has no ub.unreachable ("custom op ... unknown")
        assert set(ours) == {"ub.poison"}
    else:
        assert set(theirs) <= set(ours)
    replaced = {n for n in ours if n in theirs and not issubclass(ours[n], theirs[n])}
    assert replaced == {n for n in REPLACED if n.startswith(dialect + ".")}
    assert set(ours) - set(theirs) == {n for n in NOT_IN_XDSL if n.startswith(dialect + ".")}
    for name, cls in ours.items():
        if name in theirs and name not in REPLACED:
            # an adapter (or xDSL's class itself): no syntax of its own
            up = theirs[name]
            assert cls.get_irdl_definition().assembly_format == up.get_irdl_definition().assembly_format
            assert (cls.print is up.print) == (name not in PRINT_REPLACED), name


def test_the_modules_export_xdsls_classes_under_ttopts_names():
    assert arith.AddfOp is x_arith.AddfOp and arith.DivfOp is x_arith.DivfOp
    assert arith.MulfOp is x_arith.MulfOp and arith.ConstantOp is x_arith.ConstantOp
    assert arith.AddiOp is x_arith.AddiOp and arith.DivsiOp is x_arith.DivSIOp
    assert (scf.ForOp, scf.IfOp, scf.WhileOp, scf.YieldOp, scf.ConditionOp) == (
        x_scf.ForOp, x_scf.IfOp, x_scf.WhileOp, x_scf.YieldOp, x_scf.ConditionOp
    )
    assert math.ExpOp is x_math.ExpOp


def test_xdsls_own_classes_and_registrations_are_untouched():
    from xdsl.universe import Universe

    import ttopt.dialects  # noqa: F401  (its adapters exist)

    assert not x_arith.AddfOp.has_trait(Commutative)
    lhs = x_arith.AddfOp.get_irdl_definition().operands[0][1].constr
    assert isinstance(lhs.constraint.constr, VarConstraint)
    assert not x_cf.BranchOp.has_trait(Pure)  # (ttopt's adapter adds MLIR's trait)
    multiverse = Universe.get_multiverse()  # no duplicate dialect names
    for name in ("arith", "math", "scf", "ub", "cf"):
        assert multiverse.all_dialects[name]() is XDSL[name]
    assert multiverse.all_dialects["llvm"]().name == "llvm"  # xDSL's, not ttopt's one op
    assert "llvm.intr.assume" not in {op.name for op in multiverse.all_dialects["llvm"]().operations}
    for name in ("tt", "ttg", "ttng"):
        assert multiverse.all_dialects[name]().name == name


def test_scf_ops_have_mlirs_memory_effects():
    for op in (x_scf.ForOp, x_scf.IfOp, x_scf.WhileOp):
        assert _ops("scf")[op.name].has_trait(RecursiveMemoryEffect)
    mod = read_module(KERNEL, "k.ttgir")
    effects = {op.name: get_effects(op) for op in mod.op.walk()}
    assert effects["scf.for"] is not None and effects["scf.if"] is not None  # pure bodies
    assert effects["arith.remui"] == set() and effects["arith.divsi"] == set()
    assert effects["gpu.barrier"] is None  # unknown: a writer, as in MLIR


CF_KERNEL = """module {
  tt.func @k(%p: !tt.ptr<i32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %0 = arith.cmpi sgt, %n, %c0 : i32
    cf.cond_br %0, ^bb1(%n : i32), ^bb2
  ^bb1(%a: i32):  // pred: ^bb0
    cf.br ^bb2
  ^bb2:  // 2 preds: ^bb0, ^bb1
    tt.return
  }
}
"""


def test_cf_branches_are_xdsls_with_mlirs_effects_and_successor_rule():
    mod = read_module(CF_KERNEL, "k.ttir")
    ops = {op.name: op for op in mod.op.walk()}
    assert isinstance(ops["cf.br"], x_cf.BranchOp)
    assert isinstance(ops["cf.cond_br"], x_cf.ConditionalBranchOp)
    assert get_effects(ops["cf.br"]) == set() and get_effects(ops["cf.cond_br"]) == set()
    assert ttopt.optimize(CF_KERNEL, [], "k.ttir").count("cf.") == 2
    bad = CF_KERNEL.replace("^bb1(%n : i32)", "^bb1")
    with pytest.raises(TTOptError) as e:
        read_module(bad, "k.ttir")
    assert str(e.value) == (
        "k.ttir:5:5: error: 'cf.cond_br' op branch has 0 operands for successor #0, but "
        "target block has 1"
    )
    assert not triton_accepts(bad, ".ttir").ok and triton_accepts(CF_KERNEL, ".ttir").ok


def test_commutative_ops_are_mlirs():
    commutative = {n for n, c in _ops("arith").items() if c.has_trait(Commutative)}
    assert commutative == {
        "arith.addf", "arith.mulf", "arith.maximumf", "arith.minimumf", "arith.maxnumf",
        "arith.minnumf", "arith.addi", "arith.muli", "arith.andi", "arith.ori", "arith.xori",
        "arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui",
    }


# Each arith/math/scf/ub/gpu op form Triton 3.6 prints, in Triton's own print.
KERNEL = textwrap.dedent("""\
    #blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
    #loc = loc("k.py":5:0)
    module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
      tt.func public @k(%p: !tt.ptr<f32> loc(#loc), %n: i32 loc(#loc)) attributes {noinline = false} {
        %c0_i32 = arith.constant 0 : i32 loc(#loc)
        %c1_i32 = arith.constant 1 : i32 loc(#loc)
        %true = arith.constant true loc(#loc)
        %cst = arith.constant 1.000000e+00 : f32 loc(#loc)
        %cst_0 = arith.constant dense<0xFF800000> : tensor<128xf32, #blocked> loc(#loc)
        %cst_1 = arith.constant dense<2.500000e-01> : tensor<128xf32, #blocked> loc(#loc)
        %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked> loc(#loc)
        %s = tt.splat %p : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>, #blocked> loc(#loc)
        %a = tt.addptr %s, %r : tensor<128x!tt.ptr<f32>, #blocked>, tensor<128xi32, #blocked> loc(#loc)
        %x = tt.load %a : tensor<128x!tt.ptr<f32>, #blocked> loc(#loc)
        %ns = tt.splat %n : i32 -> tensor<128xi32, #blocked> loc(#loc)
        %m = arith.cmpi slt, %r, %ns : tensor<128xi32, #blocked> loc(#loc)
        %g = arith.cmpf ogt, %x, %cst_0 : tensor<128xf32, #blocked> loc(#loc)
        %y = arith.select %g, %x, %cst_1 : tensor<128xi1, #blocked>, tensor<128xf32, #blocked> loc(#loc)
        %z = arith.select %true, %cst, %cst : f32 loc(#loc)
        %mx = arith.maxnumf %x, %y : tensor<128xf32, #blocked> loc(#loc)
        %mn = arith.minnumf %x, %y : tensor<128xf32, #blocked> loc(#loc)
        %fm = arith.mulf %x, %y fastmath<fast> : tensor<128xf32, #blocked> loc(#loc)
        %dv = arith.divf %fm, %mx fastmath<arcp,contract> : tensor<128xf32, #blocked> loc(#loc)
        %rm = arith.remf %dv, %mn : tensor<128xf32, #blocked> loc(#loc)
        %ng = arith.negf %rm : tensor<128xf32, #blocked> loc(#loc)
        %h = arith.truncf %ng : tensor<128xf32, #blocked> to tensor<128xf16, #blocked> loc(#loc)
        %e = arith.extf %h : tensor<128xf16, #blocked> to tensor<128xf32, #blocked> loc(#loc)
        %bc = arith.bitcast %e : tensor<128xf32, #blocked> to tensor<128xi32, #blocked> loc(#loc)
        %ov = arith.addi %bc, %r overflow<nsw> : tensor<128xi32, #blocked> loc(#loc)
        %sh = arith.shrui %ov, %r : tensor<128xi32, #blocked> loc(#loc)
        %ru = arith.remui %sh, %r : tensor<128xi32, #blocked> loc(#loc)
        %rs = arith.remsi %ru, %r : tensor<128xi32, #blocked> loc(#loc)
        %ds = arith.divsi %rs, %r : tensor<128xi32, #blocked> loc(#loc)
        %xo = arith.xori %ds, %r : tensor<128xi32, #blocked> loc(#loc)
        %wide = arith.extsi %xo : tensor<128xi32, #blocked> to tensor<128xi64, #blocked> loc(#loc)
        %nar = arith.trunci %wide : tensor<128xi64, #blocked> to tensor<128xi16, #blocked> loc(#loc)
        %ui = arith.extui %nar : tensor<128xi16, #blocked> to tensor<128xi32, #blocked> loc(#loc)
        %fl = arith.uitofp %ui : tensor<128xi32, #blocked> to tensor<128xf32, #blocked> loc(#loc)
        %fs = arith.sitofp %n : i32 to f32 loc(#loc)
        %ex = math.exp %fl : tensor<128xf32, #blocked> loc(#loc)
        %fma = math.fma %ex, %fl, %y : tensor<128xf32, #blocked> loc(#loc)
        %po = ub.poison : tensor<128xf32, #blocked> loc(#loc)
        %acc = scf.for %i = %c0_i32 to %n step %c1_i32 iter_args(%arg = %fma) -> (tensor<128xf32, #blocked>) : i32 {
          %q = arith.addf %arg, %x : tensor<128xf32, #blocked> loc(#loc)
          scf.yield %q : tensor<128xf32, #blocked> loc(#loc)
        } {tt.num_stages = 2 : i32} loc(#loc)
        %sel = scf.if %true -> (f32) {
          scf.yield %fs : f32 loc(#loc)
        } else {
          scf.yield %z : f32 loc(#loc)
        } loc(#loc)
        %w = scf.while (%w0 = %c0_i32) : (i32) -> i32 {
          %lt = arith.cmpi slt, %w0, %n : i32 loc(#loc)
          scf.condition(%lt) %w0 : i32 loc(#loc)
        } do {
        ^bb0(%arg2: i32 loc(#loc)):
          %nx = arith.addi %arg2, %c1_i32 : i32 loc(#loc)
          scf.yield %nx : i32 loc(#loc)
        } loc(#loc)
        gpu.barrier loc(#loc)
        tt.store %a, %acc, %m : tensor<128x!tt.ptr<f32>, #blocked> loc(#loc)
        tt.return loc(#loc)
      } loc(#loc)
    } loc(#loc)
    """)


def test_triton_text_reads_and_prints_byte_for_byte():
    assert triton_accepts(KERNEL, ".ttgir").ok
    assert ttopt.optimize(KERNEL, [], "k.ttgir") == KERNEL


def _structure(text: str, name: str) -> list:
    mod = read_module(text, name)
    return [
        (type(op), op.name, dict(op.properties), dict(op.attributes), tuple(op.result_types),
         tuple(v.type for v in op.operands))
        for op in mod.op.walk()
    ]


def test_fast_and_full_parse_build_the_same_ops(monkeypatch):
    """The reader's fast path builds xDSL's ops as xDSL's parser does: the same class, the
    same properties (``fastmath = none`` ...), not only the same text."""
    texts = [("k.ttgir", KERNEL)] + [(str(p), p.read_text()) for p in fixture_files()[::4]]
    fast = [_structure(t, n) for n, t in texts]
    monkeypatch.setattr(reader, "try_fast_op", lambda p, s: None)
    full = [_structure(t, n) for n, t in texts]
    assert fast == full
    classes = {entry[0] for ops in fast for entry in ops}
    assert {x_arith.AddfOp, x_arith.ConstantOp, x_arith.ExtFOp} <= {
        base for cls in classes for base in cls.__mro__
    }


ARGS = "%a: f32, %b: i32, %s: si32, %t: tensor<4xf32>, %th: tensor<4xf16>"


def kernel(body: str) -> str:
    lines = "\n".join("    " + ln for ln in textwrap.dedent(body).strip().splitlines())
    return f"module {{\n  tt.func @k({ARGS}) {{\n{lines}\n    tt.return\n  }}\n}}\n"


LOOP = "%lb = arith.constant 0 : i32\n%ub = arith.constant 4 : i32\n%st = arith.constant 1 : i32\n"


@pytest.mark.parametrize(
    "bad, error, good",
    [
        # MLIR's constraint (xDSL's container_of(IntegerType) also takes si32)
        ('%0 = "arith.addi"(%s, %s) : (si32, si32) -> si32',
         "3:10: error: 'arith.addi' op operand #0 must be signless-integer-like, but got 'si32'",
         "%0 = arith.addi %b, %b : i32"),
        # reported by the verifier, at the op (xDSL's format program raised at the next op);
        # the trailing loc() keeps the line from the reader's fast path
        ('%0 = math.exp %b : i32 loc("k.py":1:1)',
         "3:10: error: 'math.exp' op operand #0 must be floating-point-like, but got 'i32'",
         '%0 = math.exp %a : f32 loc("k.py":1:1)'),
        ('%0 = arith.negf %b : i32 loc("k.py":1:1)',
         "3:10: error: 'arith.negf' op operand #0 must be floating-point-like, but got 'i32'",
         '%0 = arith.negf %a : f32 loc("k.py":1:1)'),
        ('%0 = "math.fma"(%a, %a, %a) : (f32, f32, f32) -> f16',
         "3:10: error: 'math.fma' op requires the same type for all operands and results",
         '%0 = "math.fma"(%a, %a, %a) : (f32, f32, f32) -> f32'),
        # MLIR's rules that xDSL's verifiers do not check
        ("%0 = arith.truncf %th : tensor<4xf16> to tensor<4xf32>",
         "3:10: error: 'arith.truncf' op operand type 'tensor<4xf16>' and result type "
         "'tensor<4xf32>' are cast incompatible",
         "%0 = arith.truncf %t : tensor<4xf32> to tensor<4xf16>"),
        (LOOP + '%r = "scf.for"(%lb, %ub, %st, %a) ({\n^bb0(%i: i32, %x: f32):\n'
         "  scf.yield %x : f32\n}) : (i32, i32, i32, f32) -> i32",
         "6:10: error: 'scf.for' op 0-th region iter_arg and 0-th result have different type: "
         "'f32' != 'i32'",
         LOOP + '%r = "scf.for"(%lb, %ub, %st, %a) ({\n^bb0(%i: i32, %x: f32):\n'
         "  scf.yield %x : f32\n}) : (i32, i32, i32, f32) -> f32"),
        # scf.condition's parent (Triton's message, word for word)
        ("%c = arith.constant true\nscf.condition(%c)",
         "4:5: error: 'scf.condition' op expects parent op 'scf.while'",
         "%c = arith.constant true"),
    ],
)
def test_mlirs_constraints_rules_and_messages(bad, error, good):
    text = kernel(bad)
    with pytest.raises(TTOptError) as e:
        read_module(text, "t.ttir")
    assert str(e.value) == f"t.ttir:{error}"
    assert not triton_accepts(text, ".ttir").ok
    unverified = read_module(text, "t.ttir", verify=False)
    with pytest.raises(TTOptError):
        verify_module(unverified, xdsl=True)  # xDSL's own verify() agrees
    fine = kernel(good)
    verify_module(read_module(fine, "t.ttir"), xdsl=True)
    assert triton_accepts(fine, ".ttir").ok


def _xdsl_opt_installed() -> bool:
    return any(ep.name == "ttopt" for ep in importlib.metadata.entry_points(group="xdsl.universe"))


LOOP_KERNEL = textwrap.dedent("""\
    module {
      tt.func public @k(%x_ptr: !tt.ptr<f32>, %b_ptr: !tt.ptr<f32>, %c_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>, %n: i32) {
        %c0_i32 = arith.constant 0 : i32
        %c1_i32 = arith.constant 1 : i32
        %cst = arith.constant dense<0.000000e+00> : tensor<128xf32>
        %offs = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
        %x = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
        %x_1 = tt.addptr %x, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
        %before = tt.load %x_1 : tensor<128x!tt.ptr<f32>>
        %acc = scf.for %i = %c0_i32 to %n step %c1_i32 iter_args(%a = %cst) -> (tensor<128xf32>) : i32 {
          %v = tt.load %x_1 evictionPolicy = evict_last : tensor<128x!tt.ptr<f32>>
          %q = arith.addf %a, %v : tensor<128xf32>
          scf.yield %q : tensor<128xf32>
        }
        %b = tt.splat %b_ptr : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
        %b_1 = tt.addptr %b, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
        %b_2 = tt.load %b_1 : tensor<128x!tt.ptr<f32>>
        %c = tt.splat %c_ptr : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
        %c_1 = tt.addptr %c, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
        %c_2 = tt.load %c_1 : tensor<128x!tt.ptr<f32>>
        %s = arith.addf %acc, %before : tensor<128xf32>
        %d1 = arith.divf %s, %b_2 : tensor<128xf32>
        %d2 = arith.divf %d1, %c_2 : tensor<128xf32>
        %o = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
        %o_1 = tt.addptr %o, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
        tt.store %o_1, %d2 : tensor<128x!tt.ptr<f32>>
        tt.return
      }
    }
    """)


@pytest.mark.skipif(not _xdsl_opt_installed(), reason="ttopt is not installed with its entry points")
def test_ttopt_passes_see_xdsls_ops_under_xdsl_opt(tmp_path):
    """Under ``xdsl-opt`` the ops are xDSL's classes themselves: redundant-load carries a
    load into an ``scf.for`` (pure body: RecursiveMemoryEffect), div-chain rewrites
    ``(s / b) / c``; the same rewrites as ``ttopt-opt``."""
    f = tmp_path / "k.mlir"
    f.write_text(LOOP_KERNEL)
    xdsl_opt = [sys.executable, "-c", "import sys; from xdsl.tools.xdsl_opt import main; sys.exit(main())"]
    proc = subprocess.run([*xdsl_opt, "-p", "redundant-load,div-chain", str(f)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.count("tt.load") == 3 and "%q = arith.addf %a, %before" in out
    assert "arith.mulf %b_2, %c_2" in out and out.count("arith.divf") == 1
    assert triton_accepts(out, ".ttir").ok
    ours = ttopt.run_pipeline(LOOP_KERNEL, ttopt.parse_pipeline("redundant-load,div-chain"), "k.ttir").text
    def strip(text: str) -> list[str]:  # locations and the module's keyword aside
        text = re.sub(r" loc\((?:[^()]|\([^()]*\))*\)", "", text).replace("builtin.module", "module")
        return [line for line in text.splitlines() if line.strip()]

    assert strip(out) == strip(ours)
