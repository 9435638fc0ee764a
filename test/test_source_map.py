"""The writer copies what no pass touched (ttopt/ir/source.py): a round trip prints its input
back byte for byte, a rewrite changes only the lines of the ops it touches, values keep their
names, and what is printed anew is valid Triton IR (judged by Triton's own parser)."""

import pathlib
import re

import pytest

import ttopt
from conftest import ROOT, changed_lines, fixture_files
from ttopt.ir.reader import read_module
from ttopt.ir.writer import write_module
from ttopt.oracle import triton_accepts

SMALL = ROOT / "test" / "fixtures" / "small"




def content(text: str) -> str:
    """``text`` without blank and comment-only lines (MLIR's printer drops them; so does ttopt)."""
    return "".join(ln for ln in text.splitlines(keepends=True)
                   if ln.strip() and not ln.strip().startswith("//"))


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: str(p.relative_to(ROOT / "test" / "fixtures")))
def test_round_trip_prints_the_input_back(path):
    text = path.read_text()
    assert ttopt.optimize(text, [], str(path)) == content(text)


def test_a_rewrite_changes_only_its_lines():
    """coat_lite_mini's LayerNorm backward (evict_last and evict_first loads of one address):
    the merged load's line goes, the one user of its value changes, nothing else."""
    path = [p for p in fixture_files() if p.name.startswith(
        "triton_red_fused__to_copy_native_layer_norm_backward_select_backward_view_4") and p.suffix == ".ttgir"][0]
    text = path.read_text()
    out = ttopt.optimize(text, ["redundant-load"], str(path))
    removed, added = changed_lines(text, out)
    assert len(removed) == 2 and len(added) == 1, (removed, added)
    assert "tt.load" in removed[0] and "evict_first" in removed[0]
    name = removed[0].split("=")[0].strip()  # the merged load's value, e.g. %tmp30
    assert name in removed[1] and name not in added[0]
    assert removed[1].replace(name, "X").split("=")[0] == added[0].replace(name, "X").split("=")[0]


def test_new_values_take_the_names_of_the_values_they_replace():
    """a/b/c -> a/(b*c): the new multiply takes the erased division's name (%18 in Triton's
    numbering), the remaining division keeps its own; every other line is as it was."""
    text = (ROOT / "test" / "fixtures" / "versions" / "2.1.0" / "sm90" / "div_chain.ttir").read_text()
    out = ttopt.optimize(text, ["div-chain"], "div_chain.ttir")
    removed, added = changed_lines(text, out)
    assert [ln.split(" = ")[0].strip() for ln in removed] == ["%18", "%19"]
    assert [ln.split(" = ")[0].strip() for ln in added] == ["%18", "%19"]
    assert "arith.mulf" in added[0] and "arith.divf" in added[1]


def test_numeric_names_stay_mlir_names():
    """Two new values where one numeric name was free: the second gets another number, never
    ``%3_1`` (a name that starts with a digit is all digits in MLIR); Triton reads the output."""
    text = """module {
  tt.func public @k(%x_ptr: !tt.ptr<f32>, %y_ptr: !tt.ptr<f32>) {
    %0 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %1 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %2 = tt.expand_dims %1 {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
    %3 = arith.constant dense<128> : tensor<8x1xi32>
    %4 = arith.muli %2, %3 : tensor<8x1xi32>
    %5 = tt.broadcast %4 : tensor<8x1xi32> -> tensor<8x128xi32>
    %6 = tt.expand_dims %0 {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %7 = tt.broadcast %6 : tensor<1x128xi32> -> tensor<8x128xi32>
    %8 = arith.addi %5, %7 : tensor<8x128xi32>
    %9 = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<8x128x!tt.ptr<f32>>
    %10 = tt.addptr %9, %8 : tensor<8x128x!tt.ptr<f32>>, tensor<8x128xi32>
    %11 = tt.load %10 : tensor<8x128x!tt.ptr<f32>>
    %12 = "tt.reduce"(%11) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<8x128xf32>) -> tensor<8xf32>
    %13 = tt.expand_dims %12 {axis = 1 : i32} : tensor<8xf32> -> tensor<8x1xf32>
    %14 = tt.broadcast %13 : tensor<8x1xf32> -> tensor<8x128xf32>
    %15 = arith.divf %11, %14 : tensor<8x128xf32>
    %16 = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<8x128x!tt.ptr<f32>>
    %17 = tt.addptr %16, %8 : tensor<8x128x!tt.ptr<f32>>, tensor<8x128xi32>
    tt.store %17, %15 : tensor<8x128x!tt.ptr<f32>>
    tt.return
  }
}
"""
    out = ttopt.optimize(text, ["recip-hoist"], "k.ttir")
    assert "arith.mulf" in out
    import re

    names = re.findall(r"^\s*(%[^\s:=]+)(?::\d+)? = ", out, re.MULTILINE)
    assert len(names) == len(set(names))
    assert all(re.fullmatch(r"%(?:[0-9]+|[A-Za-z_$.-][\w$.-]*)", n) for n in names), names
    result = triton_accepts(out, ".ttir")
    assert result.ok, result.message


def test_comments_and_blank_lines_are_left_out():
    """As MLIR's printer: a lit test's ``// CHECK`` lines never reappear in the output it
    checks."""
    text = """// CHECK: %x = tt.load
module {

  // a comment
  tt.func public @k(%p: !tt.ptr<f32>) {
    %x = tt.load %p : !tt.ptr<f32>  // after an op: part of its line
    tt.return
  }
}
"""
    out = ttopt.optimize(text, [], "k.ttir")
    assert "CHECK" not in out and "a comment" not in out and "\n\n" not in out
    assert "// after an op: part of its line" in out


def test_crlf_input_is_written_with_crlf():
    text = (SMALL / "add.ttir").read_text()
    crlf = text.replace("\n", "\r\n")
    assert ttopt.optimize(crlf, [], "add.ttir").encode() == crlf.encode()


def test_a_module_on_one_line_is_printed():
    """Nothing can be copied line by line: the printer writes every op (as before the
    source map), and Triton reads the result."""
    text = (SMALL / "add.ttir").read_text()
    out = ttopt.optimize(text.replace("\n", " "), [], "one.ttir")
    assert out.count("\n") > 3 and out.count("tt.load") == text.count("tt.load") > 0
    assert triton_accepts(out, ".ttir").ok


def test_a_moved_op_is_printed_at_its_new_depth():
    """hoist-load moves a load out of a loop: it is printed at the loop's depth, not copied
    with the loop body's indentation."""
    text = """module {
  tt.func public @k(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %init = arith.constant 0.0 : f32
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (f32) : i32 {
      %x = tt.load %p : !tt.ptr<f32>
      %s = arith.addf %acc, %x : f32
      scf.yield %s : f32
    }
    tt.store %q, %r : !tt.ptr<f32>
    tt.return
  }
}
"""
    out = ttopt.optimize(text, ["hoist-load"], "k.ttir")
    lines = out.splitlines()
    (load,) = [ln for ln in lines if "tt.load" in ln]
    assert load.startswith("    %x = tt.load") and lines.index(load) < [i for i, ln in enumerate(lines) if "scf.for" in ln][0]
    assert triton_accepts(out, ".ttir").ok


def test_the_source_map_follows_every_change_a_pass_can_make(tmp_path):
    """Operands, properties, attributes and locations changed in place (not through a new
    op) make the op print anew."""
    text = (SMALL / "add.ttir").read_text()
    mod = read_module(text, "add.ttir")
    ops = [op for op in mod.op.walk() if op.name == "tt.load"]
    assert ops
    ops[0].attributes["ttopt.test"] = __import__("xdsl.dialects.builtin", fromlist=["UnitAttr"]).UnitAttr()
    out = write_module(mod)
    removed, added = changed_lines(text, out)
    assert len(removed) == 1 and len(added) == 1 and "ttopt.test" in added[0]


def test_copying_is_what_makes_the_output_the_input():
    """Every version fixture (13 releases) prints back byte for byte (the same through the
    full printer would not: Triton's own spacing, location aliases, name groups)."""
    root = ROOT / "test" / "fixtures" / "versions"
    files = sorted(root.rglob("*.tt*ir"))
    assert len(files) > 700
    for p in files[::25]:
        text = p.read_text()
        assert write_module(read_module(text, str(p))) == text, p


def test_fresh_names_are_found_without_rescanning():
    """The writer's search for a free ``hint_N`` (and a free number) goes on from where it last
    stopped, with the same answer as a search from 0: n new values named after one hint cost
    O(n) lookups, not O(n^2) (a long function with thousands of rewrites printed in seconds)."""
    from ttopt.ir.writer import TritonPrinter, _Taken

    class Counting(_Taken):
        lookups = 0

        def __contains__(self, item):
            Counting.lookups += 1
            return super().__contains__(item)

    taken = Counting(["x"] + [f"x_{k}" for k in range(1, 500)] + [str(k) for k in range(300)])
    got = [TritonPrinter._fresh_kept("x", taken) for _ in range(200)]
    assert got == [f"x_{k}" for k in range(500, 700)]
    nums = [TritonPrinter._fresh_kept("7", taken) for _ in range(100)]
    assert nums == [str(k) for k in range(300, 400)]
    assert Counting.lookups < 2 * (500 + 200 + 300 + 100)  # (a search from 0 each time: ~160,000)
    # another hint has its own search
    assert TritonPrinter._fresh_kept("y", taken) == "y"


def test_fresh_names_without_a_source_map_are_found_without_rescanning():
    """The same for a module printed without its source map (built in code, or
    ``keep_text=False``): n values hinted ``x`` are named ``x, x_1, ... x_{n-1}`` with O(n)
    lookups (it took 12.7 s for 8,000), and each function has its own names."""
    import io

    from ttopt.ir.writer import TritonPrinter

    class Counting(dict):
        lookups = 0

        def __contains__(self, item):
            Counting.lookups += 1
            return super().__contains__(item)

    printer = TritonPrinter(io.StringIO(), {}, {})
    printer._ssa_names = [Counting({"x": 1, **{f"x_{k}": 1 for k in range(1, 300)}})]
    got = [printer._fresh("x") for _ in range(400)]
    assert got == [f"x_{k}" for k in range(300, 700)]
    assert Counting.lookups < 2 * (300 + 400)  # (a search from 0 each time: ~200,000)
    assert printer._fresh("y") == "y" and printer._fresh("y") == "y_1"

    def func(name: str, n: int) -> str:
        ops = "\n".join(f"    %v{i} = arith.addi %a, %a : i32" for i in range(n))
        return f"  tt.func public @{name}(%a: i32) {{\n{ops}\n    tt.return\n  }}\n"

    mod = read_module("module {\n" + func("f", 30) + func("g", 20) + "}\n", "t")
    for op in mod.op.walk():
        for r in op.results:
            r.name_hint = "x"
    out = write_module(mod, keep_text=False)
    names = re.findall(r"(?m)^ +%(\S+) = arith\.addi", out)
    expected = ["x"] + [f"x_{k}" for k in range(1, 30)] + ["x"] + [f"x_{k}" for k in range(1, 20)]
    assert names == expected


def test_a_branch_printed_anew_names_its_successors_as_the_input_did():
    """A pass that changes a branch's operands makes the writer print the branch anew, while
    the labels are copied from the input; xDSL numbers blocks in the order it prints them,
    so `cf.cond_br %t, ^bb1(..), ^bb0(..)` came out as `^bb0(..), ^bb1(..)`: the two
    targets swapped, and Triton accepted it (a miscompile; with other names, an undefined
    block).  The successors keep the labels' names."""
    text = (
        "module {\n  tt.func public @k(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>, %t: i1) {\n"
        "    %a = tt.load %p : !tt.ptr<f32>\n    %b = tt.load %p : !tt.ptr<f32>\n"
        "    cf.cond_br %t, ^bb1(%b : f32), ^bb0(%a : f32)\n  ^bb0(%y: f32):\n    tt.return\n"
        "  ^bb1(%x: f32):\n    tt.store %q, %x : !tt.ptr<f32>\n    tt.return\n  }\n}\n"
    )
    out = ttopt.optimize(text, ["redundant-load"])
    assert re.search(r"(?m)^    cf\.cond_br %t, \^bb1\(%a : f32\), \^bb0\(%a : f32\)$", out), out
    assert out.count("^bb0(%y: f32):") == 1 and out.count("^bb1(%x: f32):") == 1
    assert triton_accepts(out, ".ttir").ok
    # other names: an undefined `^bb0` before
    other = text.replace("^bb1", "^bb7").replace("^bb0", "^bb5")
    out = ttopt.optimize(other, ["redundant-load"])
    assert re.search(r"(?m)^    cf\.cond_br %t, \^bb7\(%a : f32\), \^bb5\(%a : f32\)$", out), out
    assert triton_accepts(out, ".ttir").ok
