"""The interpreter (ttopt.interp) on functions and regions of several blocks: ``cf.br``,
``cf.cond_br``, ``cf.switch`` (block arguments, early returns, loops made of branches and their
guard), ``cf.assert``, and ``ttopt-opt --validate`` on such kernels.

Kernels: test/fixtures/branches (README.md there says where each one comes from; every one is
accepted by Triton 3.6, checked below) and the Triton-made ``assume_early_return`` of
test/fixtures/ops36.  Each result is checked against numpy or plain Python computing the same
thing by hand, for inputs that take each branch."""

import subprocess
import sys
import time

import numpy as np
import pytest

from conftest import ROOT
from ttopt.interp import SUPPORTED_OPS, InterpError, compare, run_kernel
from ttopt.errors import TTOptError
from ttopt.ir.reader import read_module

HERE = ROOT / "test" / "fixtures" / "branches"
OPS36 = ROOT / "test" / "fixtures" / "ops36"
F32 = np.float32


def kernel(name: str):
    return HERE / name


def run(name, **kw):
    return run_kernel(kernel(name) if isinstance(name, str) else name, **kw)


def written(r, arg) -> list[int]:
    return r.written_elements(arg).tolist()


def one_i32(r, arg="out", index=0) -> int:
    assert index in written(r, arg)
    return int(r.read(arg, index, 1)[0])


# ------------------------------------------------------------------ the kernels are Triton's
HAND_WRITTEN = sorted(p.name for p in HERE.glob("*.ttir") if ".sm90." not in p.name)


def test_the_fixtures_are_all_here():
    assert HAND_WRITTEN == sorted([
        "call_early_return.ttir", "cf_assert.ttir", "execute_region.ttir", "loop_fib.ttir",
        "loop_forever.ttir", "loop_no_exit.ttir", "loop_self.ttir", "nested_loops.ttir",
        "switch_f32.ttir", "switch_i8.ttir", "twice_loaded.ttir"])


@pytest.fixture(scope="module")
def triton36():
    pytest.importorskip("triton")
    from ttopt.oracle import triton_accepts

    return triton_accepts


@pytest.mark.parametrize("path", sorted(HERE.glob("*.tt*ir")), ids=lambda p: p.name)
def test_triton_accepts_every_fixture(path, triton36):
    res = triton36(path.read_text(), path.suffix)
    assert res.ok, res.message


def test_the_branch_ops_are_supported():
    assert {"cf.br", "cf.cond_br", "cf.switch", "cf.assert"} <= set(SUPPORTED_OPS)


# ------------------------------------------------------------------ early returns (Triton's)
def _early_exit_expected(x, mode):
    if mode == 0:
        return None
    if mode == 1:
        return x * F32(2)
    if mode > 5:
        return x - F32(1)
    return x + F32(mode)


@pytest.mark.parametrize("ext", ["ttir", "ttgir"])
@pytest.mark.parametrize("mode", [0, 1, 3, -2, 6, 100])
def test_early_exit_takes_each_way_out(ext, mode):
    """pid 1 of BLOCK 64 with n = 100: elements 64..99 are in range."""
    r = run(f"early_exit.sm90.{ext}", pids=(1, 0, 0), num_programs=(4, 1, 1), seed=3,
            args={"n": 100, "mode": mode})
    want = _early_exit_expected(r.initial("x_ptr", 64, 36), mode)
    if want is None:
        assert r.written == {}
        return
    assert written(r, "y_ptr") == list(range(64, 100))
    assert np.array_equal(r.read("y_ptr", 64, 36), want)
    assert written(r, "x_ptr") == []


@pytest.mark.parametrize("ext", ["ttir", "ttgir"])
def test_tail_guard_returns_early_past_the_end_and_on_a_negative_sum(ext):
    past = run(f"tail_guard.sm90.{ext}", pids=(1, 0, 0), num_programs=(4, 1, 1), args={"n": 100})
    assert past.written == {}  # 1 * 128 >= 100
    signs = set()
    for seed in range(12):
        r = run(f"tail_guard.sm90.{ext}", pids=(2, 0, 0), num_programs=(8, 1, 1), seed=seed,
                args={"n": 1000})
        exact = float(np.sum(r.initial("x_ptr", 256, 128).astype(np.float64)))
        assert abs(exact) > 1e-3, "a sum too close to 0 to tell the branch"
        signs.add(exact < 0)
        if exact < 0:
            assert r.written == {}
        else:
            assert written(r, "out_ptr") == [2]
            assert abs(float(r.read("out_ptr", 2, 1)[0]) - exact) <= 1e-4
    assert signs == {True, False}  # both branches were taken


@pytest.mark.parametrize("ext", ["ttir", "ttgir"])
@pytest.mark.parametrize("pid,n,scale", [
    (1, 1000, 1),  # pid <= 3: scale = pid (a block argument from ^bb2)
    (5, 1000, 2000),  # pid > 3, n <= 4096: scale = 2n (from ^bb4)
    (5, 5000, None),  # pid > 3, n > 4096: returns (^bb3 -> ^bb1)
    (9, 1000, None),  # pid * 128 >= n: returns (^bb0 -> ^bb1)
])
def test_assume_early_return(ext, pid, n, scale):
    r = run_kernel(OPS36 / f"assume_early_return.sm90.{ext}", pids=(pid, 0, 0),
                   num_programs=(16, 1, 1), args={"n": n})
    if scale is None:
        assert r.written == {}
        return
    lo, hi = pid * 128, min(pid * 128 + 128, n)
    assert written(r, "y_ptr") == list(range(lo, hi))
    want = r.initial("x_ptr", lo, hi - lo) + F32(scale)
    assert np.array_equal(r.read("y_ptr", lo, hi - lo), want)


@pytest.mark.parametrize("n,want", [(-4, 4), (0, 0), (9, 9)])
def test_a_called_function_returns_from_either_block(n, want):
    assert one_i32(run("call_early_return.ttir", args={"n": n})) == want


@pytest.mark.parametrize("n,want", [(-4, 4), (4, 14), (0, 10)])
def test_execute_region_of_several_blocks(n, want):
    assert one_i32(run("execute_region.ttir", args={"n": n})) == want


# ------------------------------------------------------------------ loops made of branches
def _fib(n):
    a, b, i = 1, 0, 0
    while i < n:
        a, b, i = a + b, a, i + 1
    return a, b, i


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 40])
def test_loop_of_branches_binds_block_arguments_all_at_once(n):
    r = run("loop_fib.ttir", args={"n": n})
    assert written(r, "out") == [0, 1, 2]
    assert r.read("out", 0, 3).tolist() == list(_fib(n))


@pytest.mark.parametrize("n,want", [(1, 3), (5, 15), (-3, 3)])
def test_a_block_that_branches_to_itself(n, want):
    assert one_i32(run("loop_self.ttir", args={"n": n})) == want


def test_the_loop_guard_allows_max_loop_iters_iterations_and_not_one_more():
    """As scf.while: at most max_loop_iters iterations (a header runs once more)."""
    assert run("loop_fib.ttir", args={"n": 20}, max_loop_iters=20).read("out", 2, 1)[0] == 20
    with pytest.raises(InterpError, match=r"loop_fib.ttir:12:5: error: 'cf.br': a loop of branches "
                                          r"is over the limit of 20 iterations"):
        run("loop_fib.ttir", args={"n": 21}, max_loop_iters=20)
    # a block branching to itself: n runs of ^bb1 are n - 1 iterations
    assert one_i32(run("loop_self.ttir", args={"n": 21}, max_loop_iters=20)) == 63
    with pytest.raises(InterpError, match=r"loop_self.ttir:11:5: error: 'cf.cond_br': a loop of "
                                          r"branches is over the limit of 20 iterations"):
        run("loop_self.ttir", args={"n": 22}, max_loop_iters=20)


def test_the_loop_guard_counts_per_run_of_the_region():
    """The inner loop (a region of branches) runs n times, m iterations each: n * m over the
    limit is fine, m over it is not."""
    r = run("nested_loops.ttir", args={"n": 10, "m": 10}, max_loop_iters=10)
    assert one_i32(r) == sum(i * 10 for i in range(10))
    with pytest.raises(InterpError, match="over the limit of 10 iterations"):
        run("nested_loops.ttir", args={"n": 2, "m": 11}, max_loop_iters=10)


def test_a_loop_that_ends_only_for_negative_n():
    assert one_i32(run("loop_forever.ttir", args={"n": -1})) == 1


@pytest.mark.parametrize("name,line,op", [("loop_forever.ttir", 9, "cf.cond_br"),
                                          ("loop_no_exit.ttir", 9, "cf.br")])
def test_a_loop_of_branches_that_never_ends_stops_with_an_error(name, line, op):
    with pytest.raises(InterpError, match=rf"{name}:{line}:5: error: '{op}': a loop of branches is "
                                          r"over the limit of 1000 iterations \(block \^bb1"):
        run(name, args={"n": 5} if "forever" in name else None, max_loop_iters=1000)
    # and under the default limit (100,000 iterations) too, in a few seconds
    t = time.perf_counter()
    with pytest.raises(InterpError, match="over the limit of 100000 iterations"):
        run(name, args={"n": 5} if "forever" in name else None)
    assert time.perf_counter() - t < 60


def test_compare_of_a_kernel_that_never_ends_is_an_error():
    with pytest.raises(InterpError, match="loop of branches"):
        compare(kernel("loop_no_exit.ttir"), kernel("loop_no_exit.ttir"), seeds=(0,), pids=[(0, 0, 0)])


def test_a_branch_to_the_entry_block_is_refused():
    """MLIR's verifier refuses it (the entry block of a region has no predecessors), and so
    does ttopt's (test_verify_positions); a module read without verifying it: the
    interpreter refuses it rather than loop."""
    text = ("module {\n  tt.func public @k(%out: !tt.ptr<i32>) {\n    scf.execute_region {\n"
            "    ^bb0:\n      %c0 = arith.constant 0 : i32\n      cf.br ^bb1\n    ^bb1:\n"
            "      cf.br ^bb0\n    }\n    tt.return\n  }\n}\n")
    with pytest.raises(TTOptError, match=r"^<input>:3:5: error: entry block of region may not "
                                         r"have predecessors$"):
        run_kernel(text)
    with pytest.raises(InterpError, match=r"<input>:8:7: error: 'cf.br': branches to the entry "
                                          r"block of its region"):
        run_kernel(read_module(text, "<input>", verify=False))


# ------------------------------------------------------------------ cf.switch
@pytest.mark.parametrize("flag", [-3, 0, 7, 9, 1, -4, 2**31 - 1])
def test_switch_goes_to_the_case_of_the_flag_or_the_default(flag):
    r = run("switch_f32.ttir", args={"flag": flag}, seed=1)
    x = r.initial("x_ptr", 0, 64)
    want = {-3: -x, 0: None, 7: x * F32(2), 9: x + F32(9)}.get(flag, x)
    if want is None:
        assert r.written == {}
        return
    assert written(r, "out_ptr") == list(range(64))
    assert np.array_equal(r.read("out_ptr", 0, 64), want)
    assert not np.array_equal(want, x) or flag not in (-3, 7, 9)  # the cases do differ


@pytest.mark.parametrize("n", [255, 511, -1, 127, -129, 0, 128, 126])
def test_switch_on_i8_compares_bits_and_takes_the_first_of_two_equal_cases(n):
    f = int(np.int32(n).astype(np.int8))  # arith.trunci
    want = {-1: 1, 127: 2}.get(f, 0)  # the second "-1" case (3) is never taken
    assert one_i32(run("switch_i8.ttir", args={"n": n})) == want


# ------------------------------------------------------------------ cf.assert
CF_ASSERT = kernel("cf_assert.ttir").read_text()
TT_ASSERT = CF_ASSERT.replace('cf.assert %pos, "n must be positive"',
                              'tt.assert %pos, "n must be positive" : i1')


def test_a_failing_cf_assert_is_an_assert_event_and_the_run_goes_on():
    r = run("cf_assert.ttir", args={"n": -2})
    assert [(e.kind, e.text, e.pid) for e in r.events] == [("assert", "n must be positive", (0, 0, 0))]
    assert [v.tolist() for v in r.events[0].values] == [[0]]
    assert "cf_assert.ttir" in r.events[0].loc
    assert one_i32(r) == -2  # the store after it ran


def test_a_passing_cf_assert_does_nothing():
    r = run("cf_assert.ttir", args={"n": 3})
    assert r.events == []
    assert one_i32(r) == 3


def test_cf_assert_is_what_a_scalar_tt_assert_is(triton36):
    assert TT_ASSERT != CF_ASSERT and triton36(TT_ASSERT, ".ttir").ok
    for n in (-2, 3):
        assert compare(CF_ASSERT, TT_ASSERT, args={"n": n}, seeds=(0,)).ok
    # the events are compared: another message is another result
    other = CF_ASSERT.replace('"n must be positive"', '"n > 0"')
    res = compare(CF_ASSERT, other, args={"n": -2}, seeds=(0,))
    assert not res.ok and "assert" in res.message
    assert compare(CF_ASSERT, other, args={"n": 2}, seeds=(0,)).ok


# ------------------------------------------------------------------ ttopt-opt --validate
def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "ttopt.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT)


VALIDATED = ["early_exit.sm90.ttir", "early_exit.sm90.ttgir", "tail_guard.sm90.ttir",
             "tail_guard.sm90.ttgir", "twice_loaded.ttir", "switch_f32.ttir", "loop_fib.ttir",
             "execute_region.ttir", "call_early_return.ttir", "cf_assert.ttir"]


def test_validate_runs_on_kernels_with_branches(tmp_path):
    files = [kernel(n) for n in VALIDATED] + [OPS36 / "assume_early_return.sm90.ttgir"]
    proc = run_cli(*files, "-p", "default", "--validate", "--output-dir", tmp_path)
    assert proc.returncode == 0, proc.stderr
    # redundant-load merged the two loads of twice_loaded (after an early return)
    out = next(tmp_path.rglob("twice_loaded.ttir")).read_text()
    assert out.count("tt.load") == 1 and kernel("twice_loaded.ttir").read_text().count("tt.load") == 2


FLIP = '''
from dataclasses import dataclass
from typing import ClassVar

from ttopt.passes.base import ModulePass


@dataclass(frozen=True)
class FlipBranches(ModulePass):
    name: ClassVar[str] = "flip-branches"
    summary: ClassVar[str] = "(a planted bug) swap the successors of each cf.cond_br without block operands"

    def apply(self, ctx, op) -> None:
        for br in [o for o in op.walk() if o.name == "cf.cond_br" and len(o.operands) == 1]:
            then_block, else_block = br.successors
            br.successors = [else_block, then_block]
'''


def test_validate_catches_a_pass_that_swaps_the_successors_of_a_branch(tmp_path):
    plugin = tmp_path / "flip.py"
    plugin.write_text(FLIP)
    f = kernel("twice_loaded.ttir")
    proc = run_cli(f, "--load-pass", plugin, "-p", "flip-branches", "--validate", "-o", tmp_path / "out.ttir")
    assert proc.returncode == 3, proc.stderr
    assert "--validate: @twice_loaded: the output computes something else: y_ptr[" in proc.stderr
