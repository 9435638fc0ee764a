"""Every op Triton 3.6 emits for sm_80, sm_90 and sm_100 (issue #12): read, verified, written
back as Triton's own parser and verifier accept it.

* the kernels of ``test/fixtures/ops36`` (one small kernel per op family compiled on the CPU
  by Triton 3.6, ``test/fixtures/make_ops36.py``; provenance in its PROVENANCE.md): each
  round-trips to the same IR for Triton (Triton's own print of ttopt's output is its print
  of the input), reads the same through the reader's fast paths and the full parser, and
  every pass runs on it with Triton accepting the result;
* the op set: every ``tt``/``ttg``/``ttng`` op Triton 3.6 registers is defined (but the
  three the pipeliner makes and removes within one pass), and the fixtures hold every op
  family this issue added;
* syntax the fixtures lack (tokens, barrier lists, ``warp_specialize`` results, generic
  forms with Triton's property names and operand order), each case judged by Triton;
* rules: invalid uses of the new ops are errors at the op, as Triton rejects them;
* memory effects: what each op declares (``ttopt.analysis.effects.classify``).
"""

from __future__ import annotations

import hashlib
import pathlib
import re
import subprocess
import sys

import pytest

import ttopt
from conftest import FIXTURES
from test_fast_path import _full_parse, _same_either_way, assert_same_structure
from ttopt.analysis.effects import classify
from ttopt.dialects import DIALECTS, make_context
from ttopt.errors import TTOptError
from ttopt.ir.reader import read_module
from ttopt.ir.verify import verify_module
from ttopt.oracle import triton_accepts, triton_module_text
from ttopt.pipeline import run_pipeline

OPS36 = FIXTURES / "ops36"
FILES = sorted(OPS36.glob("*.tt*ir"))
PASSES = ["redundant-load", "redundant-reduce", "div-chain"]


def _ids(paths):
    return [p.name for p in paths]


def _suffix(path: pathlib.Path) -> str:
    return path.suffix


# ------------------------------------------------------------------------------ the fixtures


def test_the_fixtures_are_there_and_small():
    assert len(FILES) >= 40, OPS36
    assert sum(p.stat().st_size for p in FILES) < 2 * 1024 * 1024
    targets = {re.search(r"\.sm(\d+)\.", p.name).group(1) for p in FILES}
    assert targets == {"80", "90", "100"}


def test_provenance_names_every_fixture_with_its_digest():
    """PROVENANCE.md (written by make_ops36.py) lists each file, its target and the first 16
    hex digits of its SHA-256: the fixtures are what the script made, unedited."""
    table = {}
    for line in (OPS36 / "PROVENANCE.md").read_text().splitlines():
        m = re.match(r"\| (\S+\.ttg?ir) \| `(\w+)` \| cuda:(\d+) \| [^|]* \| (\d+) \| ([0-9a-f]{16}) \|$", line)
        if m:
            table[m.group(1)] = m.groups()[1:]
    assert set(table) == {p.name for p in FILES}
    for p in FILES:
        kernel, cap, size, digest = table[p.name]
        data = p.read_bytes()
        assert p.name.startswith(kernel + f".sm{cap}.")
        assert (len(data), hashlib.sha256(data).hexdigest()[:16]) == (int(size), digest), p.name


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_round_trip_is_the_same_ir_for_triton(path):
    text = path.read_text()
    out = ttopt.optimize(text, [], str(path))
    verdict = triton_accepts(out, _suffix(path))
    assert verdict.ok, verdict.message
    assert triton_module_text(out, _suffix(path)) == triton_module_text(text, _suffix(path))
    assert ttopt.optimize(out, [], str(path)) == out  # a second round trip changes nothing
    verify_module(read_module(text, str(path)), xdsl=True)  # xDSL's own verifier agrees


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_every_pass_runs_and_triton_accepts_the_result(path):
    text = path.read_text()
    for passes in ([p] for p in PASSES):
        result = run_pipeline(text, passes, str(path), verify_each=True)
        verdict = triton_accepts(result.text, _suffix(path))
        assert verdict.ok, (passes, verdict.message)
    result = run_pipeline(text, PASSES, str(path), verify_each=True)
    assert triton_accepts(result.text, _suffix(path)).ok


# Compiled to a cubin for the target each was made for (ptxas-blackwell for sm_100), in a
# child process: Triton aborts the process on some inputs.  Not the sm_100 warp-specialized
# matmul: Triton 3.6 itself compiles that file to different cubins from run to run.
CUBIN_SAMPLE = [
    "assume_early_return.sm80.ttgir", "matmul_tma.sm90.ttgir", "matmul_tma_2cta.sm90.ttgir",
    "tensor_desc_device.sm100.ttgir", "dot_scaled.sm100.ttgir",
    "gluon_blackwell_memory.sm100.ttgir",
]
_COMPILE = """
import hashlib, os, sys
os.environ["TRITON_CACHE_DIR"] = sys.argv[3]
import triton
from triton.backends.compiler import GPUTarget
kernel = triton.compile(sys.argv[1], target=GPUTarget("cuda", int(sys.argv[2]), 32))
print(hashlib.sha256(kernel.asm["cubin"]).hexdigest())
"""


def _cubin_digest(path: pathlib.Path, cap: int, cache: pathlib.Path) -> str:
    run = subprocess.run(
        [sys.executable, "-c", _COMPILE, str(path), str(cap), str(cache)],
        capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout.strip()


@pytest.mark.parametrize("name", CUBIN_SAMPLE)
def test_round_trip_compiles_to_the_same_cubin_for_its_target(name, tmp_path):
    path = OPS36 / name
    cap = int(re.search(r"\.sm(\d+)\.", name).group(1))
    out = tmp_path / name
    out.write_text(_printed(path.read_text(), str(path)))  # (every op printed, nothing copied)
    assert out.read_text() != path.read_text()  # (another file for Triton's cache)
    before = _cubin_digest(path, cap, tmp_path / "cache1")
    assert _cubin_digest(out, cap, tmp_path / "cache2") == before


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_fast_and_full_parser_agree(path, monkeypatch):
    _same_either_way(path, monkeypatch)
    text = path.read_text()
    assert_same_structure(read_module(text, str(path)), _full_parse(monkeypatch, text, str(path)))


# ------------------------------------------------------------------------------ the op set

# Every op of the tt/ttg/ttng dialects Triton 3.6.0 registers (each name parsed by Triton in
# generic form: an unregistered one is "unregistered operation", see
# test_triton_registers_exactly_these).
TRITON_36_OPS = set("""
tt.addptr tt.advance tt.assert tt.atomic_cas tt.atomic_rmw tt.bitcast tt.broadcast tt.call
tt.cat tt.clampf tt.descriptor_gather tt.descriptor_load tt.descriptor_reduce
tt.descriptor_scatter tt.descriptor_store tt.dot tt.dot_scaled tt.elementwise_inline_asm
tt.expand_dims tt.extern_elementwise tt.fp_to_fp tt.func tt.gather tt.get_num_programs
tt.get_program_id tt.histogram tt.int_to_ptr tt.join tt.load tt.make_range
tt.make_tensor_descriptor tt.make_tensor_ptr tt.map_elementwise tt.map_elementwise.return
tt.mulhiui tt.precise_divf tt.precise_sqrt tt.print tt.ptr_to_int tt.reduce tt.reduce.return
tt.reshape tt.return tt.scan tt.scan.return tt.splat tt.split tt.store tt.trans tt.unsplat
ttg.async_commit_group ttg.async_copy_global_to_local ttg.async_wait ttg.convert_layout
ttg.fp4_to_fp ttg.global_scratch_alloc ttg.local_alloc ttg.local_barrier ttg.local_dealloc
ttg.local_load ttg.local_store ttg.mask ttg.mask.return ttg.memdesc_index
ttg.memdesc_reinterpret ttg.memdesc_reshape ttg.memdesc_subslice ttg.memdesc_trans
ttg.predicate_stage ttg.warp_return ttg.warp_specialize ttg.warp_specialize.partitions
ttg.warp_yield
ttng.arrive_barrier ttng.async_copy_mbarrier_arrive ttng.async_tma_copy_global_to_local
ttng.async_tma_copy_local_to_global ttng.async_tma_gather ttng.async_tma_reduce
ttng.async_tma_scatter ttng.async_tma_store_wait ttng.barrier_expect ttng.cluster_arrive
ttng.cluster_wait ttng.fence_async_shared ttng.init_barrier ttng.inval_barrier
ttng.reinterpret_tensor_descriptor ttng.tc_gen5_commit ttng.tc_gen5_mma
ttng.tc_gen5_mma_scaled ttng.tensormap_create ttng.tensormap_fenceproxy_acquire
ttng.tmem_alloc ttng.tmem_copy ttng.tmem_load ttng.tmem_store ttng.tmem_subslice
ttng.wait_barrier ttng.warp_group_dot ttng.warp_group_dot_wait
""".split())

# Not defined, and why: the software pipeliner (tritongpu-pipeline) creates and lowers them
# within its own pass; they are in no TTIR/TTGIR Triton writes.
NOT_DEFINED = {"ttg.mask", "ttg.mask.return", "ttg.predicate_stage"}


def _ttopt_ops(prefixes=("tt.", "ttg.", "ttng.")) -> set[str]:
    return {op.name for d in DIALECTS for op in d.operations if op.name.startswith(prefixes)}


def test_every_op_triton_registers_is_defined():
    assert _ttopt_ops() == TRITON_36_OPS - NOT_DEFINED


def test_triton_registers_exactly_these(capfd):
    """Triton's parser knows each name of TRITON_36_OPS (an error, if any, is not
    "unregistered operation") and not a made-up one (the check can fail)."""

    def registered(name: str) -> bool:
        text = f'module {{\n  tt.func @k() {{\n    "{name}"() : () -> ()\n    tt.return\n  }}\n}}\n'
        triton_accepts(text, ".ttgir")
        err = capfd.readouterr().err
        return "unregistered operation" not in err and "does not allow unknown" not in err

    assert not registered("ttng.no_such_op")
    assert [n for n in sorted(TRITON_36_OPS) if not registered(n)] == []


# What the fixtures must hold: each op family issue #12 added (the other ops of Triton 3.6
# are in test/fixtures/small and inductor).
FAMILIES = {
    "tensor descriptors": {"tt.make_tensor_descriptor", "tt.descriptor_load",
                           "tt.descriptor_store", "tt.descriptor_gather",
                           "tt.descriptor_scatter", "tt.descriptor_reduce"},
    "descriptors made on the device": {"ttg.global_scratch_alloc", "ttng.tensormap_create",
                                       "ttng.tensormap_fenceproxy_acquire",
                                       "ttng.reinterpret_tensor_descriptor"},
    "TMA": {"ttng.async_tma_copy_global_to_local", "ttng.async_tma_copy_local_to_global",
            "ttng.async_tma_reduce", "ttng.async_tma_gather", "ttng.async_tma_scatter",
            "ttng.async_tma_store_wait", "ttng.fence_async_shared"},
    "mbarriers": {"ttng.init_barrier", "ttng.inval_barrier", "ttng.barrier_expect",
                  "ttng.wait_barrier", "ttng.arrive_barrier",
                  "ttng.async_copy_mbarrier_arrive"},
    "tl.assume, early return": {"llvm.intr.assume", "cf.cond_br", "cf.br"},
    "warp specialization": {"ttg.warp_specialize", "ttg.warp_specialize.partitions",
                            "ttg.warp_yield", "ttg.warp_return"},
    "Hopper MMA": {"ttng.warp_group_dot", "ttng.warp_group_dot_wait"},
    "Blackwell MMA and tensor memory": {"ttng.tc_gen5_mma", "ttng.tc_gen5_mma_scaled",
                                        "ttng.tc_gen5_commit", "ttng.tmem_alloc",
                                        "ttng.tmem_load", "ttng.tmem_store", "ttng.tmem_copy",
                                        "ttng.tmem_subslice"},
    "dot_scaled": {"tt.dot_scaled", "ttg.fp4_to_fp"},
    "memory descriptor views": {"ttg.memdesc_index", "ttg.memdesc_subslice",
                                "ttg.memdesc_trans", "ttg.memdesc_reshape",
                                "ttg.memdesc_reinterpret"},
    "misc": {"tt.atomic_rmw", "tt.atomic_cas", "tt.elementwise_inline_asm", "tt.histogram",
             "tt.gather", "tt.scan", "tt.print", "gpu.barrier", "tt.precise_sqrt",
             "tt.precise_divf", "tt.clampf", "tt.mulhiui", "tt.fp_to_fp", "tt.join",
             "tt.split", "tt.assert"},
}


def _fixture_ops() -> dict[str, set[str]]:
    """op name -> the fixture files holding it."""
    where: dict[str, set[str]] = {}
    for p in FILES:
        for op in read_module(p.read_text(), str(p)).op.walk():
            where.setdefault(op.name, set()).add(p.name)
    return where


def test_the_fixtures_hold_every_op_family():
    seen = _fixture_ops()
    missing = {f: sorted(ops - set(seen)) for f, ops in FAMILIES.items() if ops - set(seen)}
    assert missing == {}
    # and per target: descriptors become TMA on sm_90 and sm_100, pointers below
    assert "ttng.async_tma_copy_global_to_local" not in {
        n for n, files in seen.items() for f in files if ".sm80." in f
    }
    assert {f for f in seen["ttng.tc_gen5_mma"]} <= {p.name for p in FILES if ".sm100." in p.name}
    assert any(".sm90." in f for f in seen["ttg.warp_specialize"])
    assert any(".sm100." in f for f in seen["ttg.warp_specialize"])


# ------------------------------------------------------------------------------ syntax
HEAD = """#blocked = #ttg.blocked<{sizePerThread = [1, 64], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#shared2 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>
#smem = #ttg.shared_memory
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
#tmem1 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%a: !ttg.memdesc<128x64xf16, #shared, #smem>, %b: !ttg.memdesc<64x128xf16, #shared, #smem>, %v: tensor<128x128xf32, #blocked>, %bar: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %acc: !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>, %s: !ttg.memdesc<128x128xf32, #shared2, #smem, mutable>, %i: i32, %x: tensor<128xf32, #blocked1>, %p: !tt.ptr<f32>, %d: !tt.tensordesc<tensor<128x128xf32, #shared2>>, %raw: !tt.ptr<i8>, %l: i64) {
    %true = arith.constant true
    %false = arith.constant false
"""
TAIL = """    tt.return
  }
}
"""
MEM = "!ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>"
BAR = "!ttg.memdesc<1xi64, #shared1, #smem, mutable>"
AB = "!ttg.memdesc<128x64xf16, #shared, #smem>, !ttg.memdesc<64x128xf16, #shared, #smem>"

# (name, body lines, what ttopt must print for them: custom form, one line per op; None: the
# input itself)
SYNTAX = [
    ("tensor-memory tokens", f"""\
%m, %tok = ttng.tmem_alloc : () -> ({MEM}, !ttg.async.token)
%r, %tok2 = ttng.tmem_load %m[%tok] : {MEM} -> tensor<128x128xf32, #blocked>
%tok3 = ttng.tmem_store %v, %m[%tok2], %true : tensor<128x128xf32, #blocked> -> {MEM}
%tok4 = ttng.tc_gen5_mma %a, %b, %m[%tok3], %false, %true, %bar[%true], %bar[%false] {{is_async}} : {AB}, {MEM}, {BAR}, {BAR}
%tok5 = ttng.tc_gen5_mma %a, %b, %m[], %false, %true : {AB}, {MEM}""", None),
    ("barriers", f"""\
ttng.init_barrier %bar, 1 : {BAR}
ttng.barrier_expect %bar, 4096 {{foo = 1 : i32}}, %true : {BAR}
ttng.arrive_barrier %bar, 2, %true : {BAR}
ttng.wait_barrier %bar, %i, %true deps %a, %b : {BAR}, {AB}
ttng.tc_gen5_commit %bar, %true : {BAR}
ttng.async_copy_mbarrier_arrive %bar {{noIncrement}} : {BAR}
ttng.inval_barrier %bar : {BAR}""", None),
    ("fences, clusters and waits", """\
ttng.cluster_arrive {relaxed = true}
ttng.cluster_wait
ttg.local_barrier
ttng.fence_async_shared {bCluster = false}
ttng.async_tma_store_wait {pendings = 0 : i32, read_only}""", None),
    ("views and copies", f"""\
%top = ttg.memdesc_subslice %s[64, 0] : !ttg.memdesc<128x128xf32, #shared2, #smem, mutable> -> !ttg.memdesc<64x128xf32, #shared2, #smem, mutable, 128x128>
%half = ttng.tmem_subslice %acc {{N = 64 : i32}} : {MEM} -> !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128>
ttng.tmem_copy %s, %acc, %bar : !ttg.memdesc<128x128xf32, #shared2, #smem, mutable>, {MEM}, {BAR}
%lv = ttg.local_load %s : !ttg.memdesc<128x128xf32, #shared2, #smem, mutable> -> tensor<128x128xf32, #blocked>
ttg.local_store %lv, %s : tensor<128x128xf32, #blocked> -> !ttg.memdesc<128x128xf32, #shared2, #smem, mutable>""", None),
    ("TMA and device descriptors", f"""\
ttng.async_tma_copy_global_to_local %d[%i, %i] %s, %bar, %true cacheModifier = ca evictionPolicy = evict_first : !tt.tensordesc<tensor<128x128xf32, #shared2>>, {BAR} -> !ttg.memdesc<128x128xf32, #shared2, #smem, mutable>
ttng.async_tma_copy_local_to_global %d[%i, %i] %s : !tt.tensordesc<tensor<128x128xf32, #shared2>>, !ttg.memdesc<128x128xf32, #shared2, #smem, mutable>
ttng.async_tma_reduce max, %d[%i, %i] %s : !tt.tensordesc<tensor<128x128xf32, #shared2>>, !ttg.memdesc<128x128xf32, #shared2, #smem, mutable>
%g = ttg.global_scratch_alloc {{alignment = 128 : i32, nbytes = 128 : i32}} : !tt.ptr<i8>
ttng.tensormap_create %g, %p, [%i, %i], [%i, %i], [%l], [%i, %i] {{elem_type = 7 : i32, fill_mode = 0 : i32, interleave_layout = 0 : i32, swizzle_mode = 3 : i32}} : (!tt.ptr<i8>, !tt.ptr<f32>, i32, i32, i32, i32, i64, i32, i32) -> ()
ttng.tensormap_fenceproxy_acquire %g : !tt.ptr<i8>
%dd = ttng.reinterpret_tensor_descriptor %g : !tt.ptr<i8> to !tt.tensordesc<tensor<128x128xf32, #shared2>>""", None),
    ("warp_specialize with results and attributes", """\
%w:2 = ttg.warp_specialize(%p, %i) attributes {requestedRegisters = array<i32: 24, 48>}
default {
  ttg.warp_yield %x, %x {foo = 1 : i32} : tensor<128xf32, #blocked1>, tensor<128xf32, #blocked1>
}
partition0(%q: !tt.ptr<f32>, %n: i32) num_warps(1) {
  %c = arith.constant 1.000000e+00 : f32
  tt.store %q, %c : !tt.ptr<f32>
  ttg.warp_return
}
partition1(%q: !tt.ptr<f32>, %n: i32) num_warps(2) {
  %c = arith.constant 2.000000e+00 : f32
  tt.store %q, %c : !tt.ptr<f32>
  ttg.warp_return {bar = 2 : i32}
} : (!tt.ptr<f32>, i32) -> (tensor<128xf32, #blocked1>, tensor<128xf32, #blocked1>)""", None),
    ("generic forms, Triton's names and operand order", f"""\
"ttng.wait_barrier"(%bar, %i, %s) <{{operandSegmentSizes = array<i32: 1, 1, 0, 1>}}> : ({BAR}, i32, !ttg.memdesc<128x128xf32, #shared2, #smem, mutable>) -> ()
%r, %tok = "ttng.tmem_load"(%acc) : ({MEM}) -> (tensor<128x128xf32, #blocked>, !ttg.async.token)
"ttng.tmem_store"(%acc, %v, %true) : ({MEM}, tensor<128x128xf32, #blocked>, i1) -> ()
"ttng.tc_gen5_mma"(%a, %b, %acc, %true, %true, %bar, %true) <{{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 1, 1>, is_async}}> : ({AB}, {MEM}, i1, i1, {BAR}, i1) -> ()
"ttng.async_tma_copy_global_to_local"(%d, %i, %i, %bar, %s, %true) <{{cache = 2 : i32}}> : (!tt.tensordesc<tensor<128x128xf32, #shared2>>, i32, i32, {BAR}, !ttg.memdesc<128x128xf32, #shared2, #smem, mutable>, i1) -> ()
"ttg.warp_specialize"(%i) <{{partitionNumWarps = array<i32: 1>}}> ({{
  "ttg.warp_yield"() : () -> ()
}}, {{
  "ttg.warp_specialize.partitions"() ({{
  ^bb0(%q: i32):
    "ttg.warp_return"() : () -> ()
  }}) : () -> ()
}}) : (i32) -> ()""", f"""\
ttng.wait_barrier %bar, %i deps %s : {BAR}, !ttg.memdesc<128x128xf32, #shared2, #smem, mutable>
%r, %tok = ttng.tmem_load %acc[] : {MEM} -> tensor<128x128xf32, #blocked>
ttng.tmem_store %v, %acc, %true : tensor<128x128xf32, #blocked> -> {MEM}
ttng.tc_gen5_mma %a, %b, %acc, %true, %true, %bar[%true] {{is_async}} : {AB}, {MEM}, {BAR}
ttng.async_tma_copy_global_to_local %d[%i, %i] %s, %bar, %true cacheModifier = ca : !tt.tensordesc<tensor<128x128xf32, #shared2>>, {BAR} -> !ttg.memdesc<128x128xf32, #shared2, #smem, mutable>
ttg.warp_specialize(%i)
default {{
  ttg.warp_yield
}}
partition0(%q: i32) num_warps(1) {{
  ttg.warp_return
}} : (i32) -> ()"""),
]

TT_SYNTAX = [
    ("dot_scaled, descriptors", """\
module {
  tt.func public @k(%a: tensor<128x64xbf16>, %b: tensor<32x128xi8>, %sb: tensor<128x2xi8>, %c: tensor<128x128xf32>, %p: !tt.ptr<f32>, %m: i32, %n: i32, %s: i64, %x: tensor<8xi32>, %v: tensor<8x32xf32>, %iv: tensor<8x32xi32>, %di: !tt.tensordesc<tensor<8x32xi32>>) {
    %0 = tt.dot_scaled %a, %b scale %sb, %c lhs = bf16 rhs = e2m1 {fastMath = true} : tensor<128x64xbf16> * tensor<32x128xi8>, tensor<128x2xi8> -> tensor<128x128xf32>
    %d = tt.make_tensor_descriptor %p, [%m, %n], [%s, %s] : !tt.ptr<f32>, !tt.tensordesc<tensor<1x32xf32>>
    %g = tt.descriptor_gather %d[%x, %m] : (!tt.tensordesc<tensor<1x32xf32>>, tensor<8xi32>, i32) -> tensor<8x32xf32>
    tt.descriptor_scatter %d[%x, %m], %v : !tt.tensordesc<tensor<1x32xf32>>, tensor<8xi32>, i32, tensor<8x32xf32>
    %l = tt.descriptor_load %d[%m, %n] cacheModifier = cg evictionPolicy = evict_last : !tt.tensordesc<tensor<1x32xf32>> -> tensor<1x32xf32>
    tt.descriptor_reduce add, %di[%m, %n], %iv : !tt.tensordesc<tensor<8x32xi32>>, tensor<8x32xi32>
    tt.descriptor_reduce xor, %di[%m, %n], %iv : !tt.tensordesc<tensor<8x32xi32>>, tensor<8x32xi32>
    tt.return
  }
}
""", [
        # the descriptor types are printed unqualified, as Triton does
        "%d = tt.make_tensor_descriptor %p, [%m, %n], [%s, %s] : <f32>, <tensor<1x32xf32>>",
        "tt.descriptor_reduce xor, %di[%m, %n], %iv : !tt.tensordesc<tensor<8x32xi32>>, tensor<8x32xi32>",
        "%0 = tt.dot_scaled %a, %b scale %sb, %c lhs = bf16 rhs = e2m1 {fastMath = true} : tensor<128x64xbf16> * tensor<32x128xi8>, tensor<128x2xi8> -> tensor<128x128xf32>",
    ]),
    ("generic tt.dot_scaled", """\
module {
  tt.func public @k(%a: tensor<128x64xi8>, %sa: tensor<128x4xi8>, %b: tensor<64x128xi8>, %sb: tensor<128x4xi8>, %c: tensor<128x128xf32>) {
    %0 = "tt.dot_scaled"(%a, %b, %c, %sa, %sb) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>, a_elem_type = 4 : i32, b_elem_type = 4 : i32, fastMath = false}> : (tensor<128x64xi8>, tensor<64x128xi8>, tensor<128x128xf32>, tensor<128x4xi8>, tensor<128x4xi8>) -> tensor<128x128xf32>
    tt.return
  }
}
""", ["%0 = tt.dot_scaled %a scale %sa, %b scale %sb, %c lhs = e2m1 rhs = e2m1 {fastMath = false} : tensor<128x64xi8>, tensor<128x4xi8> * tensor<64x128xi8>, tensor<128x4xi8> -> tensor<128x128xf32>"]),
    ("assume, branches with block arguments", """\
module {
  tt.func public @k(%p: !tt.ptr<i32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %0 = arith.cmpi sgt, %n, %c0 : i32
    llvm.intr.assume %0 : i1
    cf.cond_br %0, ^bb1(%n : i32), ^bb2(%c0, %n : i32, i32)
  ^bb1(%a: i32):  // pred: ^bb0
    cf.br ^bb3(%a : i32)
  ^bb2(%b: i32, %c: i32):  // pred: ^bb0
    %1 = arith.addi %b, %c : i32
    cf.br ^bb3(%1 : i32)
  ^bb3(%r: i32):  // 2 preds: ^bb1, ^bb2
    tt.store %p, %r : !tt.ptr<i32>
    tt.return
  }
}
""", ["llvm.intr.assume %0 : i1", "cf.cond_br %0, ^bb1(%n : i32), ^bb2(%c0, %n : i32, i32)",
      "^bb2(%b: i32, %c: i32):", "cf.br ^bb3(%1 : i32)"]),
]


def _printed(text: str, name: str) -> str:
    """``text`` read and printed, every op by ttopt's printer (``keep_text=False``: a plain
    round trip copies the input; these tests are about what the printer writes)."""
    from ttopt.ir.reader import read_module
    from ttopt.ir.writer import write_module

    return write_module(read_module(text, name), keep_text=False)


def _module(body: str) -> str:
    return HEAD + "".join("    " + line + "\n" for line in body.splitlines()) + TAIL


def _op_lines(text: str) -> list[str]:
    """The printed ops (and block/region lines) without their locations."""
    return [_LOC.sub("", line).strip() for line in text.splitlines()]


_LOC = re.compile(r" loc\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)")


@pytest.mark.parametrize("name,body,expected", SYNTAX, ids=[c[0] for c in SYNTAX])
def test_syntax_round_trips_as_triton_prints_it(name, body, expected):
    text = _module(body)
    out = _printed(text, "k.ttgir")
    verdict = triton_accepts(out)
    assert verdict.ok, verdict.message
    assert triton_module_text(out) == triton_module_text(text)
    lines = _op_lines(out)
    for line in (expected or body).splitlines():
        assert line.strip() in lines, line


@pytest.mark.parametrize("name,text,expected", TT_SYNTAX, ids=[c[0] for c in TT_SYNTAX])
def test_tt_syntax_round_trips_as_triton_prints_it(name, text, expected):
    out = _printed(text, "k.ttir")
    verdict = triton_accepts(out, ".ttir")
    assert verdict.ok, verdict.message
    assert triton_module_text(out, ".ttir") == triton_module_text(text, ".ttir")
    lines = _op_lines(out)
    for line in expected:
        assert line in lines, line


# ------------------------------------------------------------------------------ rules
WS = """%w = ttg.warp_specialize(%i)
default {{
  {yield_}
}}
partition0({arg}) num_warps({n}) {{
  {inner}ttg.warp_return
}} : (i32) -> {result}"""


def _ws(yield_="ttg.warp_yield", arg="%q: i32", n=1, inner="", result="()"):
    text = WS.format(yield_=yield_, arg=arg, n=n, inner=inner, result=result)
    return text if result != "()" else text.replace("%w = ", "")


# (name, body, line of the error in the body, ttopt's message); Triton rejects each too
INVALID = [
    ("memdesc operand", "ttng.inval_barrier %i : i32", 1,
     "'ttng.inval_barrier' op operand #0 must be memory descriptor type "
     "(`::mlir::triton::gpu::MemDescType`) in Triton IR type system, but got 'i32'"),
    ("pointer operand", "ttng.tensormap_fenceproxy_acquire %i : i32", 1,
     "'ttng.tensormap_fenceproxy_acquire' op operand #0 must be Pointer type "
     "(`::mlir::triton::PointerType`) in Triton IR type system, but got 'i32'"),
    ("descriptor operand",
     "%g = tt.descriptor_gather %i[%x, %i] : (i32, tensor<128xf32, #blocked1>, i32) -> tensor<8x32xf32>", 1,
     "'tt.descriptor_gather' op operand #0 must be Tensor descriptor type "
     "(`::mlir::triton::TensorDescType`) in Triton IR type system, but got 'i32'"),
    ("assume of i32", "llvm.intr.assume %i : i32", 1,
     "'llvm.intr.assume' op operand #0 must be 1-bit signless integer, but got 'i32'"),
    ("required attribute", "ttng.cluster_arrive", 1,
     "'ttng.cluster_arrive' op requires attribute 'relaxed'"),
    ("scratch without alignment", "%g = ttg.global_scratch_alloc {nbytes = 128 : i32} : !tt.ptr<i8>", 1,
     "'ttg.global_scratch_alloc' op requires attribute 'alignment'"),
    ("yield count", _ws(result="f32"), 3,
     "'ttg.warp_yield' op has 0 operands but parent op expected 1"),
    ("yield type", _ws(yield_="ttg.warp_yield %i : i32", result="f32"), 3,
     "'ttg.warp_yield' op operand #0 has type 'i32' but parent op expected 'f32'"),
    ("partition argument type", _ws(arg="%q: f32"), 1,
     "'ttg.warp_specialize' op partition region #0 argument #0 has type 'f32' but "
     "corresponding capture has type 'i32'"),
    ("partition argument count", _ws(arg=""), 1,
     "'ttg.warp_specialize' op partition region #0 has 0 arguments but expected 1"),
    ("partition warps", _ws(n=3), 1,
     "'ttg.warp_specialize' op partition #0 number of warps (3) must be a power of 2"),
    ("warp_return in the default region", _ws(yield_="ttg.warp_return"), 3,
     "'ttg.warp_return' op expects parent op 'ttg.warp_specialize.partitions'"),
    ("partition is isolated", _ws(inner="%y = arith.addi %i, %q : i32\n  "), 6,
     "'arith.addi' op using value defined outside the region"),
    # (a partition is read in its function's name scope, as Triton reads it)
    ("partition redefines a name", _ws(inner="%true = arith.addi %q, %q : i32\n  "), 6,
     "redefinition of SSA value '%true'"),
    ("partition argument named as a value", _ws(arg="%i: i32"), 5,
     "region entry argument '%i' is already in use"),
    ("branch operand count", "cf.br ^bb1\n^bb1(%z: i32):\ntt.return", 1,
     "'cf.br' op branch has 0 operands for successor #0, but target block has 1"),
    ("branch operand type", "cf.br ^bb1(%l : i64)\n^bb1(%z: i32):\ntt.return", 1,
     "'cf.br' op type mismatch for bb argument #0 of successor #0"),
    ("dot_scaled accumulator",
     '%0 = "tt.dot_scaled"(%x, %x, %x) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>, '
     'a_elem_type = 5 : i32, b_elem_type = 5 : i32, fastMath = false}> : (tensor<128xf32, #blocked1>, '
     'tensor<128xf32, #blocked1>, tensor<128xf32, #blocked1>) -> tensor<64xf32, #blocked1>', 1,
     "'tt.dot_scaled' op failed to verify that result's type matches accumulator's type"),
]


@pytest.mark.parametrize("name,body,line,message", INVALID, ids=[c[0] for c in INVALID])
def test_invalid_uses_are_errors_where_triton_rejects_them(name, body, line, message):
    text = _module(body)
    first = HEAD.count("\n") + line
    with pytest.raises(TTOptError) as e:
        ttopt.optimize(text, [], "k.ttgir")
    assert re.fullmatch(rf"k\.ttgir:{first}:\d+: error: {re.escape(message)}", str(e.value)), str(e.value)
    assert not triton_accepts(text).ok


def test_warp_specialize_needs_four_warps_per_kernel():
    text = _module(_ws()).replace('"ttg.num-warps" = 4', '"ttg.num-warps" = 2')
    with pytest.raises(TTOptError, match="warp-specialized kernels requires num_warps to be a multiple of 4"):
        ttopt.optimize(text, [], "k.ttgir")
    assert not triton_accepts(text).ok and triton_accepts(_module(_ws())).ok


# ------------------------------------------------------------------------------ effects
# What each op of the issue declares (ttopt.analysis.effects.classify), on the fixtures' ops
EFFECTS = {
    "pure": {"tt.make_tensor_descriptor", "tt.dot_scaled", "ttg.memdesc_index",
             "ttg.memdesc_subslice", "ttg.memdesc_trans", "ttg.memdesc_reshape",
             "ttg.memdesc_reinterpret", "ttng.tmem_subslice",
             "ttng.reinterpret_tensor_descriptor", "cf.br", "cf.cond_br", "ttg.warp_yield",
             "ttg.warp_return"},
    "read": {"tt.descriptor_load", "tt.descriptor_gather", "ttng.tmem_load", "ttg.local_load"},
    "write": {"tt.descriptor_store", "tt.descriptor_scatter", "tt.descriptor_reduce",
              "ttg.global_scratch_alloc", "ttng.tensormap_create",
              "ttng.tensormap_fenceproxy_acquire", "ttng.async_tma_copy_global_to_local",
              "ttng.async_tma_copy_local_to_global", "ttng.async_tma_reduce",
              "ttng.async_tma_gather", "ttng.async_tma_scatter", "ttng.async_tma_store_wait",
              "ttng.init_barrier", "ttng.inval_barrier", "ttng.barrier_expect",
              "ttng.wait_barrier", "ttng.arrive_barrier", "ttng.async_copy_mbarrier_arrive",
              "ttng.tmem_alloc", "ttng.tmem_store", "ttng.tmem_copy", "ttng.tc_gen5_mma",
              "ttng.tc_gen5_mma_scaled", "ttng.tc_gen5_commit", "ttng.fence_async_shared",
              "ttng.warp_group_dot", "ttng.warp_group_dot_wait",
              # these hold writers in the fixtures
              "ttg.warp_specialize", "ttg.warp_specialize.partitions"},
    "unknown": {"llvm.intr.assume", "gpu.barrier"},
}


def test_each_new_op_declares_its_memory_effects():
    expected = {name: kind for kind, names in EFFECTS.items() for name in names}
    got: dict[str, set[str]] = {}
    for p in FILES:
        for op in read_module(p.read_text(), str(p)).op.walk():
            if op.name in expected:
                got.setdefault(op.name, set()).add(classify(op))
    assert got == {name: {kind} for name, kind in expected.items()}


def test_every_op_declares_effects_or_is_unknown_on_purpose():
    """An op without a memory-effect trait is a writer for the passes; only these are so,
    as MLIR declares them (tt.func is never asked: its body is)."""
    from xdsl.traits import MemoryEffect

    unknown = {
        op.name
        for d in DIALECTS
        if d.name in ("tt", "ttg", "ttng", "cf", "llvm", "gpu")
        for op in d.operations
        if not op.get_traits_of_type(MemoryEffect)
    }
    assert unknown == {"tt.func", "tt.call", "gpu.barrier", "llvm.intr.assume"}


def test_no_load_is_merged_across_a_tma_copy_or_an_mbarrier_wait():
    """redundant-load keeps a second tt.load when a TMA store, an mbarrier wait or a
    tensor-memory MMA runs between the two; merges it when only a view does."""
    load = "%{} = tt.load %pp : tensor<128x!tt.ptr<f32>, #blocked1>"
    between = {
        "ttng.async_tma_copy_local_to_global %d[%i, %i] %s : !tt.tensordesc<tensor<128x128xf32, #shared2>>, !ttg.memdesc<128x128xf32, #shared2, #smem, mutable>": 1,
        f"ttng.wait_barrier %bar, %i : {BAR}": 1,
        f"ttng.tc_gen5_mma %a, %b, %acc, %true, %true : {AB}, {MEM}": 1,
        "%top = ttg.memdesc_subslice %s[64, 0] : !ttg.memdesc<128x128xf32, #shared2, #smem, mutable> -> !ttg.memdesc<64x128xf32, #shared2, #smem, mutable, 128x128>": 0,
    }
    for op, kept in between.items():
        body = "\n".join([
            "%pp = tt.splat %p : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>, #blocked1>",
            load.format("l1"), op, load.format("l2"),
            "%sum = arith.addf %l1, %l2 : tensor<128xf32, #blocked1>",
            "tt.store %pp, %sum : tensor<128x!tt.ptr<f32>, #blocked1>",
        ])
        result = run_pipeline(_module(body), ["redundant-load"], "k.ttgir")
        assert result.text.count("tt.load") == 1 + kept, op
        assert triton_accepts(result.text).ok


def test_the_context_knows_each_new_dialect():
    ctx = make_context()
    for name in ("cf.br", "cf.cond_br", "llvm.intr.assume", "ttg.warp_specialize",
                 "ttng.tc_gen5_mma", "tt.dot_scaled"):
        assert ctx.get_optional_op(name) is not None, name
