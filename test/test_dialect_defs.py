"""How the ops of ttopt's dialects are defined (ttopt/dialects): declarative syntax where xDSL
can say it, hand-written where it cannot (each saying why), typed constructors, module
layout (no cross-module imports of underscore names; the old names of ``ttopt.dialects.tt``
still import)."""

from __future__ import annotations

import ast
import pathlib

import pytest
from xdsl.dialects.builtin import FunctionType, ModuleOp, StringAttr, TensorType, f32, i1, i32
from xdsl.ir import Block, Operation, Region

import ttopt
import ttopt.ir.reader as reader
from ttopt.dialects import DIALECTS
from ttopt.dialects.declarative import TritonFormatProgram, irdl_triton_op
from ttopt.errors import TTOptError
from ttopt.ir.reader import read_module
from ttopt.ir.verify import verify_module

ROOT = pathlib.Path(__file__).resolve().parent.parent

# The ops whose custom syntax is hand-written, and the ops Triton prints in generic form only.
# Every other op of tt/ttg/ttng is declarative (assembly_format).
HAND_WRITTEN = {
    "tt.load", "tt.store", "tt.descriptor_load", "ttg.async_copy_global_to_local",
    "ttng.async_tma_copy_global_to_local",  # oilist
    "tt.func", "ttg.warp_specialize",  # signatures and regions
    "tt.addptr", "tt.join", "tt.cat", "tt.split", "tt.histogram", "tt.clampf", "tt.dot",
    "ttng.warp_group_dot", "ttng.warp_group_dot_wait", "tt.mulhiui", "tt.precise_divf",
    "tt.precise_sqrt", "tt.dot_scaled", "tt.unsplat",  # types inferred from other types
    "tt.advance", "tt.make_tensor_ptr", "tt.make_tensor_descriptor",  # unqualified type
    "ttng.tmem_load", "ttng.tmem_store", "ttng.tc_gen5_mma",
    "ttng.tc_gen5_mma_scaled",  # Triton's custom<Token>, custom<BarriersAndPreds>
    "ttng.tensormap_create",  # functional-type of an op without results
}
# generic form only: Triton prints them so (no assemblyFormat), or never on their own (the
# partitions of a ttg.warp_specialize are printed by it)
GENERIC_ONLY = {"tt.reduce", "tt.scan", "tt.map_elementwise", "ttg.warp_specialize.partitions"}


def _ops(prefixes=("tt.", "ttg.", "ttng.")):
    return [op for d in DIALECTS for op in d.operations if op.name.startswith(prefixes)]


def test_declarative_where_expressible_hand_written_elsewhere_with_a_reason():
    declarative = set()
    for cls in _ops():
        if isinstance(getattr(cls, "format_program", None), TritonFormatProgram):
            declarative.add(cls.name)
            continue
        if cls.name in GENERIC_ONLY:
            assert cls.parse.__func__ is Operation.parse.__func__, cls.name
            continue
        # the class that defines the hand-written parser says why
        owner = next(c for c in cls.__mro__ if "parse" in c.__dict__)
        assert "Hand-written" in (owner.__doc__ or ""), f"{cls.name}: {owner.__name__} says why"
        assert cls.name in HAND_WRITTEN, cls.name
    assert not declarative & HAND_WRITTEN
    assert {"tt.splat", "tt.expand_dims", "tt.make_range", "tt.return", "ttg.convert_layout",
            "tt.get_program_id", "tt.atomic_rmw", "ttg.local_load"} <= declarative
    assert len(declarative) + len(HAND_WRITTEN) + len(GENERIC_ONLY) == len(_ops())


def test_every_format_program_builds():
    """Formats are parsed on first use (start-up): every one must still parse, the
    variants of every release included, and be built once."""
    from ttopt.dialects.declarative import LazyProgram
    from ttopt.dialects.legacy import LEGACY
    from ttopt.dialects.versions import RELEASES, Syntax

    classes = [*(op for d in DIALECTS for op in d.operations), *(c for c, _, _ in LEGACY)]
    assert len(LazyProgram.ALL) > 100
    for lazy in LazyProgram.ALL:
        program = lazy.get()
        assert program.stmts and lazy.get() is program
    variants = [c for c in classes if hasattr(c, "format_program_for")]
    assert variants
    for cls in variants:
        for release in RELEASES:
            assert cls.format_program_for(Syntax(release)).stmts, (cls.name, release)


def test_a_family_format_is_inherited():
    from ttopt.dialects.families import ArrowOp
    from ttopt.dialects.tt import ReshapeOp, SplatOp
    from ttopt.dialects.ttg import ConvertLayoutOp

    assert SplatOp.assembly_format == ConvertLayoutOp.assembly_format == ArrowOp.assembly_format
    assert ReshapeOp.assembly_format != ArrowOp.assembly_format  # (its own: keywords)


def _kernel(body: str, args: str = "%a: f32, %t: tensor<4xf32>") -> str:
    lines = "\n".join("    " + line for line in body.strip().splitlines())
    return f"module {{\n  tt.func @k({args}) {{\n{lines}\n    tt.return\n  }}\n}}\n"


def _both_paths(text: str, monkeypatch) -> tuple[str, str]:
    fast = ttopt.optimize(text, [], "t.ttir")
    with monkeypatch.context() as m:
        m.setattr(reader, "try_fast_op", lambda p, s: None)
        m.setattr(reader, "try_fast_store", lambda p, s: None)
        slow = ttopt.optimize(text, [], "t.ttir")
    return fast, slow


@pytest.mark.parametrize("full_parser", [False, True])
def test_the_declarative_parser_leaves_type_rules_to_the_verifier(full_parser, monkeypatch):
    """xDSL's format program would raise while parsing; MLIR's parser builds the op and the
    verifier reports it, at the op."""
    if full_parser:
        monkeypatch.setattr(reader, "try_fast_op", lambda p, s: None)
    with pytest.raises(TTOptError) as e:
        ttopt.optimize(_kernel("%0 = tt.splat %a : f32 -> f32"), [], "t.ttir")
    assert str(e.value) == (
        "t.ttir:3:10: error: 'tt.splat' op result #0 must be ranked tensor of floating-point or integer or ptr values, but got 'f32'"
    )


def test_attr_dict_is_one_sorted_dictionary(monkeypatch):
    """Properties and discardable attributes merged and sorted, as MLIR prints them."""
    body = (
        "%e = tt.expand_dims %t {axis = 0 : i32, zz = 1 : i32} : tensor<4xf32> -> tensor<1x4xf32>\n"
        "%f = tt.expand_dims %t {aa = 2 : i32, axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>\n"
        "%g = tt.get_program_id y {aa = 1 : i32} : i32"
    )
    for out in _both_paths(_kernel(body), monkeypatch):
        for line in body.splitlines():
            assert line in out


def test_generic_form_properties_an_op_does_not_define_are_printed():
    """An op with properties keeps one it does not define (MLIR does; an op with none
    refuses any: test_op_properties), printed in its attribute dictionary."""
    from ttopt.ir.reader import read_module
    from ttopt.ir.writer import write_module
    from ttopt.oracle import triton_accepts

    text = _kernel('%s = "tt.reshape"(%t) <{foo = 1 : i32}> : (tensor<4xf32>) -> tensor<2x2xf32>')
    assert triton_accepts(text, ".ttir").ok
    printed = write_module(read_module(text, "t"), keep_text=False)  # (printed, not copied)
    assert "    %s = tt.reshape %t {foo = 1 : i32} : tensor<4xf32> -> tensor<2x2xf32> loc(" in printed
    assert triton_accepts(printed, ".ttir").ok


def test_keyword_enums_and_optional_clauses_round_trip(monkeypatch):
    body = (
        "%f = tt.fp_to_fp %t {a = 1 : i32}, rounding = rtz : tensor<4xf32> -> tensor<4xf16>\n"
        "%r = tt.reshape %t allow_reorder efficient_layout : tensor<4xf32> -> tensor<2x2xf32>\n"
        "%x = tt.atomic_rmw fadd, acq_rel, gpu, %tp, %t, %m : (tensor<4x!tt.ptr<f32>>, "
        "tensor<4xf32>, tensor<4xi1>) -> tensor<4xf32>\n"
        "%c = tt.atomic_cas acquire, sys, %tp, %t, %t : (tensor<4x!tt.ptr<f32>>, tensor<4xf32>, "
        "tensor<4xf32>) -> tensor<4xf32>\n"
        'tt.print " x: " {hex = false, isSigned = array<i32: 1>} : %t : tensor<4xf32>\n'
        'tt.assert %m, "boom" : tensor<4xi1>'
    )
    args = "%t: tensor<4xf32>, %tp: tensor<4x!tt.ptr<f32>>, %m: tensor<4xi1>"
    for out in _both_paths(_kernel(body, args), monkeypatch):
        for line in body.splitlines():
            assert line in out


def test_typed_constructors_build_valid_ops():
    from ttopt.dialects import tt
    from ttopt.dialects.tt_attrs import EVICTION_POLICY, PointerType

    ptr = PointerType(f32)
    block = Block(arg_types=[ptr, i32, TensorType(i1, [4])])
    p, n, mask = block.args
    ops: list[Operation] = []

    def add(op):
        ops.append(op)
        return op.results[0] if op.results else None

    pid = add(tt.GetProgramIdOp(0))
    rng = add(tt.MakeRangeOp(0, 4))
    ps = add(tt.SplatOp(p, TensorType(ptr, [4])))
    addr = add(tt.AddPtrOp(ps, rng))
    add(tt.SplatOp(n, TensorType(i32, [4])))
    val = add(tt.LoadOp(addr, mask, evict=EVICTION_POLICY["evict_last"]))
    row = add(tt.ExpandDimsOp(val, 0))
    wide = add(tt.BroadcastOp(row, TensorType(f32, [2, 4])))
    combine = Block(arg_types=[f32, f32])
    combine.add_op(tt.ReduceReturnOp(combine.args[0]))
    red = tt.ReduceOp([wide], 0, Region(combine))
    ops.append(red)
    add(tt.StoreOp(addr, red.results[0], mask))
    add(tt.ReturnOp())
    del pid
    block.add_ops(ops)
    func = tt.FuncOp.build(
        [], [],
        {"sym_name": StringAttr("k"), "function_type": FunctionType.from_lists([ptr, i32, TensorType(i1, [4])], [])},
        {}, [Region(block)],
    )
    module = ModuleOp([func])
    module.verify()
    text = str(module)
    assert "tt.load %" in text and "evictionPolicy = evict_last" in text
    assert "tt.expand_dims %" in text and "{axis = 0 : i32} : tensor<4xf32> -> tensor<1x4xf32>" in text
    assert "tt.get_program_id x : i32" in text
    # and ttopt reads back what it printed, and its verifier agrees
    verify_module(read_module(ttopt.optimize(text, [], "built.ttir"), "built.ttir"))


# ------------------------------------------------------------------------- module layout
# names that were importable from ttopt.dialects.tt before it was split
OLD_TT_NAMES = """
TT PointerType LoadOp StoreOp ReduceOp ScanOp FuncOp ReturnOp CallOp SplatOp BroadcastOp
ExpandDimsOp AddPtrOp MakeRangeOp GetProgramIdOp GetNumProgramsOp MapElementwiseOp DotLikeOp
DotOp OpaqueBodyAttr opaque_attr TensorDescType i1_like loaded_type mask_type segment_sizes
ReadWriteEffect LoadEffects PureIfMarked TensorSizeTrait CalleeIsAFunction tt_traits TENSOR
MAX_TENSOR_NUM_ELEMENTS CACHE_MODIFIER EVICTION_POLICY MEM_SEMANTIC MEM_SYNC_SCOPE RMW_OP
PROGRAM_DIM INPUT_PRECISION ROUNDING_MODE PROPAGATE_NAN ReshapeOp FpToFpOp JoinOp CatOp
SplitOp HistogramOp AdvanceOp MakeTensorPtrOp MulhiUIOp PreciseDivfOp PreciseSqrtOp ClampFOp
AtomicRMWOp AtomicCASOp AssertOp PrintOp GatherOp ExternElementwiseOp ElementwiseInlineAsmOp
DescriptorLoadOp DescriptorStoreOp MakeTensorDescOp BitcastOp IntToPtrOp PtrToIntOp TransOp
UnsplatOp ReduceReturnOp ScanReturnOp MapElementwiseReturnOp
""".split()
OLD_BASE_NAMES = """
TritonOp OWN_VERIFY ParseError parse_operand_list parse_type_list resolve_all
parse_functional_type parse_keyword_enum int_attr i32_array print_operands print_types
enum_name get_int
""".split()


def test_the_names_of_the_old_modules_still_import():
    import ttopt.dialects.base as base
    import ttopt.dialects.tt as tt
    import ttopt.dialects.ttg as ttg
    import ttopt.dialects.ttng as ttng

    # ttng's ops moved from ttg to their own module; the old names still resolve
    for name in ("TTNG", "WarpGroupDotOp", "WarpGroupDotWaitOp", "FenceAsyncSharedOp"):
        assert getattr(ttg, name) is getattr(ttng, name)
    with pytest.raises(AttributeError):
        ttg.NoSuchName  # noqa: B018

    assert [n for n in OLD_TT_NAMES if not hasattr(tt, n)] == []
    assert [n for n in OLD_BASE_NAMES if not hasattr(base, n)] == []
    assert set(tt.__all__) <= set(dir(tt))


# underscore names still imported across modules (file, name): none
KNOWN_ELSEWHERE: set[tuple[str, str]] = set()


def test_no_module_imports_an_underscore_name_from_another():
    found = set()
    for path in sorted((ROOT / "ttopt").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        found.add((str(path.relative_to(ROOT)), alias.name))
    assert found <= KNOWN_ELSEWHERE, sorted(found - KNOWN_ELSEWHERE)


def test_a_format_program_needs_no_parse_or_print_of_its_own():
    """``irdl_triton_op`` keeps xDSL's rule: an op has an assembly_format or parse/print."""
    from xdsl.irdl import operand_def, result_def
    from xdsl.utils.exceptions import PyRDLOpDefinitionError

    from ttopt.dialects.base import TritonOp

    with pytest.raises(PyRDLOpDefinitionError):

        @irdl_triton_op
        class Both(TritonOp):  # noqa: F841
            name = "test.both"
            src = operand_def()
            res = result_def()
            assembly_format = "$src attr-dict `:` type($src) `->` type($res)"

            @classmethod
            def parse(cls, parser):  # pragma: no cover
                raise AssertionError


def test_shape_op_constructors_infer_their_result_types():
    from ttopt.dialects import tt, ttg

    block = Block(arg_types=[TensorType(f32, [2, 4])])
    (x,) = block.args
    assert tt.TransOp(x, [1, 0]).result.type == TensorType(f32, [4, 2])
    assert tt.ExpandDimsOp(x, 1).result.type == TensorType(f32, [2, 1, 4])
    assert tt.MakeRangeOp(0, 8).result.type == TensorType(i32, [8])
    conv = ttg.ConvertLayoutOp(x, TensorType(f32, [2, 4]))  # (every ArrowOp: src, result type)
    assert conv.src is x and conv.result.type == TensorType(f32, [2, 4])


def test_math_is_loaded_only_when_a_text_names_it():
    """``math`` is registered by name in every context and imported on its first op
    (start-up: ``make_context``): exact only because no legacy op has a ``math.`` name and
    no release spells a math op another way (the renames ``make_context`` makes to the ops
    loaded before it leave them alone); a kernel without one reads without importing it, one
    with one reads it."""
    import subprocess
    import sys

    from ttopt.dialects import versions
    from ttopt.dialects.legacy import LEGACY

    import ttopt.dialects

    assert "DIALECTS" in dir(ttopt.dialects)  # (a module __getattr__'s name, listed)
    math_names = [op.name for d in DIALECTS if d.name == "math" for op in d.operations]
    assert len(math_names) > 30
    assert not [cls for cls, _, _ in LEGACY if getattr(cls, "name", "").startswith("math.")]
    for release in versions.RELEASES:
        syn = versions.Syntax(release)
        assert all(syn.op_name(n) == n for n in math_names), release
    script = (
        "import sys, ttopt\n"
        "add = open('test/fixtures/small/add.ttir').read()\n"
        "assert ttopt.optimize(add, ['redundant-load']) == add\n"
        "assert 'xdsl.dialects.math' not in sys.modules\n"
        "t = 'module {\\n  tt.func public @k(%x: f32) {\\n    %0 = math.exp %x : f32\\n"
        "    tt.return\\n  }\\n}\\n'\n"
        "assert ttopt.optimize(t, []) == t\n"
        "assert 'xdsl.dialects.math' in sys.modules\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=str(ROOT), timeout=120)
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr
