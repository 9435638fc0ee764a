"""The reader's fast path for common one-line ops (ttopt.ir.fast_ops) builds exactly what the
full parser builds, on real kernels and on lines it must refuse.

Two comparisons: the same module structurally (xDSL's ``is_structurally_equivalent``, plus
result types, locations and SSA names, op by op) on every IR file of test/fixtures and of
../shared/corpus (all 2,803 files); and the same printed text on the fixtures and every 40th
corpus file."""

import pytest

import ttopt
import ttopt.ir.fast_ops as fast_ops
import ttopt.ir.reader as reader
import ttopt.ir.writer as writer
from ttopt.ir.reader import read_module
from conftest import FIXTURES, corpus_files, corpus_params, file_params, fixture_files


FAST_PATHS = ("try_fast_op", "try_fast_store", "try_fast_terminator", "try_fast_for_header",
              "try_fast_branch", "try_fast_bare")
PASSES = ["redundant-load", "redundant-reduce", "div-chain"]


def _no_fast_paths(m) -> None:
    """Every fast path of the reader and the writer off: the full parser and the ops' own
    printers."""
    for name in FAST_PATHS:
        assert hasattr(reader, name)
        m.setattr(reader, name, lambda p, s: None)
    m.setattr(reader, "FAST_LABELS", False)
    m.setattr(reader, "FAST_FUNC_ARGS", False)
    m.setattr(writer, "FAST_PRINT", False)


def _slow(monkeypatch, text, name, passes=()):
    with monkeypatch.context() as m:
        _no_fast_paths(m)
        return ttopt.optimize(text, list(passes), name)


def _same_either_way(path, monkeypatch):
    """The same text printed, fast paths on or off, as read and after the passes (which
    print ops they created)."""
    text = path.read_text()
    for passes in ((), PASSES):
        fast = ttopt.optimize(text, list(passes), str(path))
        assert fast == _slow(monkeypatch, text, str(path), passes)


def _full_parse(monkeypatch, text, name):
    with monkeypatch.context() as m:
        _no_fast_paths(m)
        return read_module(text, name)


def assert_same_structure(a, b) -> None:
    """``a`` and ``b`` (modules) are the same IR: xDSL's structural equivalence (names,
    operands up to renaming, properties, attributes, regions), and, op by op, the same result
    types, locations and SSA names (which it does not look at)."""
    assert a.op.is_structurally_equivalent(b.op)
    ops_a, ops_b = list(a.op.walk()), list(b.op.walk())
    assert len(ops_a) == len(ops_b)
    for x, y in zip(ops_a, ops_b):
        where = f"{x.name} at offset {a.offsets.get(x)}"
        assert [r.type for r in x.results] == [r.type for r in y.results], where
        assert [r.name_hint for r in x.results] == [r.name_hint for r in y.results], where
        assert x.location == y.location, where
        # (block arguments: a function's, read by reader.fast_function_arguments, a label's)
        args_a = [a for r in x.regions for b in r.blocks for a in b.args]
        args_b = [a for r in y.regions for b in r.blocks for a in b.args]
        assert [(a.type, a.name_hint, a.location) for a in args_a] == [
            (a.type, a.name_hint, a.location) for a in args_b], where


def _same_structure_either_way(path, monkeypatch):
    text = path.read_text()
    assert_same_structure(read_module(text, str(path)), _full_parse(monkeypatch, text, str(path)))


@pytest.mark.parametrize("path", file_params(fixture_files(), what="test/fixtures/**/*.tt*ir"))
def test_fast_path_builds_what_the_full_parser_builds(path, monkeypatch):
    _same_structure_either_way(path, monkeypatch)


@pytest.mark.parametrize("path", corpus_params(corpus_files, what="../shared/corpus/**/*.tt*ir"))
def test_fast_path_builds_what_the_full_parser_builds_on_the_whole_corpus(path, monkeypatch):
    _same_structure_either_way(path, monkeypatch)


def _release_kernels() -> list:
    """The generated op kernels: every release's (versions/) and sm_80/90/100's (ops36/),
    where most ops of :mod:`ttopt.ir.fast_formats` are."""
    root = FIXTURES
    return sorted([*root.glob("versions/*/*/*.tt*ir"), *root.glob("ops36/**/*.tt*ir")])


@pytest.mark.parametrize("path", file_params(_release_kernels(), what="versions/, ops36/"))
def test_fast_path_builds_what_the_full_parser_builds_in_every_release(path, monkeypatch):
    _same_structure_either_way(path, monkeypatch)


@pytest.mark.parametrize("path", file_params(_release_kernels()[::5], what="every 5th"))
def test_fast_path_prints_what_the_full_parser_prints_in_every_release(path, monkeypatch):
    _same_either_way(path, monkeypatch)


@pytest.mark.parametrize(
    "before, after",
    [
        ("%z = arith.addi %pid, %0 : i32", "%z = arith.addi %0, %pid : i32"),  # operands
        ("%e = tt.expand_dims %x {axis = 0 : i32} : tensor<4xf32> -> tensor<1x4xf32>",
         "%e = tt.expand_dims %x {axis = 0 : i32} : tensor<4xf32> -> tensor<1x4xf32> loc(\"f\":1:1)"),
        ("%w = arith.sitofp %z", "%v = arith.sitofp %z"),  # a name
        ("cacheModifier = cg evictionPolicy", "cacheModifier = ca evictionPolicy"),  # a property
        ("%n: i32) {", '%n: i32 loc("f":1:1)) {'),  # a function argument's location
    ],
    ids=["operands", "location", "name", "property", "argument location"],
)
def test_the_structural_comparison_can_fail(before, after):
    """The comparison sees each kind of difference a wrong fast path could make."""
    assert before in EDGE
    a, b = read_module(EDGE, "edge.ttir"), read_module(EDGE.replace(before, after), "edge.ttir")
    with pytest.raises(AssertionError):
        assert_same_structure(a, b)


@pytest.mark.parametrize("path", file_params(fixture_files(), what="test/fixtures/**/*.tt*ir"))
def test_fast_path_prints_what_the_full_parser_prints(path, monkeypatch):
    _same_either_way(path, monkeypatch)


@pytest.mark.parametrize("path", corpus_params(lambda: corpus_files()[::40], what="every 40th corpus file"))
def test_fast_path_prints_what_the_full_parser_prints_on_the_corpus(path, monkeypatch):
    _same_either_way(path, monkeypatch)


EDGE = """module {
  tt.func public @k(%p: !tt.ptr<f32>, %q: !tt.ptr<i1>, %n: i32) {
    %0 = arith.constant 7 : i32
    %true = arith.constant true
    %c-1_i64 = arith.constant -1 : i64
    %cst = arith.constant dense<0xFF800000> : tensor<4xf32>
    %cst_0 = arith.constant dense<9.99999997E-7> : tensor<4xf32>
    %cst_1 = arith.constant dense<-3> : tensor<4xi32>
    %cst_2 = arith.constant dense<true> : tensor<4xi1>
    %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %s = tt.splat %p : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %a = tt.addptr %s, %r : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    %x = tt.load %a, %cst_2, %cst cacheModifier = cg evictionPolicy = evict_last : tensor<4x!tt.ptr<f32>>
    %e = tt.expand_dims %x {axis = 0 : i32} : tensor<4xf32> -> tensor<1x4xf32>
    %m = arith.cmpf ogt, %x, %cst_0 : tensor<4xf32>
    %y = arith.select %m, %x, %cst : tensor<4xi1>, tensor<4xf32>
    %pid = tt.get_program_id y : i32
    %z = arith.addi %pid, %0 : i32
    %w = arith.sitofp %z : i32 to f32
    %l:2 = scf.for %i = %0 to %n step %0 iter_args(%u = %x, %iv = %z) -> (tensor<4xf32>, i32)  : i32 {
      %t = arith.addf %u, %u : tensor<4xf32>
      %h = arith.negf %t : tensor<4xf32>
      scf.yield %h, %iv : tensor<4xf32>, i32
    }
    scf.for %j = %0 to %n step %0  : i32 {
      %k = arith.muli %j, %j : i32
    }
    %red = "tt.reduce"(%l#0) <{axis = 0 : i32}> ({
    ^bb0(%ra: f32, %rb: f32):
      %rs = arith.maxnumf %ra, %rb : f32
      tt.reduce.return %rs : f32
    }) : (tensor<4xf32>) -> f32
    tt.store %a, %y, %m evictionPolicy = evict_first : tensor<4x!tt.ptr<f32>>
    tt.return
  }
}
"""


def test_fast_path_edge_cases_match(monkeypatch):
    from ttopt.ir.writer import write_module

    # every op printed (a plain round trip copies the input: the same either way trivially)
    fast = write_module(read_module(EDGE, "edge.ttir"), keep_text=False)
    with monkeypatch.context() as m:
        _no_fast_paths(m)
        slow = write_module(read_module(EDGE, "edge.ttir"), keep_text=False)
    assert fast == slow
    assert_same_structure(read_module(EDGE, "edge.ttir"), _full_parse(monkeypatch, EDGE, "edge.ttir"))
    assert "dense<0xFF800000>" in fast and "dense<9.99999997E-7>" not in fast


def test_fast_path_leaves_errors_to_the_full_parser():
    bad = EDGE.replace("%z = arith.addi %pid, %0 : i32", "%z = arith.addi %pid, %0 : i64")
    with pytest.raises(ttopt.TTOptError, match="i64"):
        ttopt.optimize(bad, [], "bad.ttir")


# A whole module on one line: the fast path reads the ops of a line longer than MAX_LINE up
# to where the next op may start (fast_ops.op_end), and falls back where that guess is wrong.
LONG_EXTRA = """    %d = arith.constant {a.b = 1 : i32, tt.foo = 2 : i32} 3 : i32
    %f = arith.addi %d, %d : i32 loc("f.py":1:2)
    %g = arith.addi %f, %f : i32 loc("g"("f.py":3:4))
    %h2 = arith.addi %g, %g {x.y = "%q = tt.z"} : i32
    %k2 = tt.splat %g : i32 -> tensor<4xi32, #blk>
    %k3 = arith.addi %k2, %k2 : tensor<4xi32, #blk>
    %k4 = arith.addi %k3, %k3 : tensor<4xi32 , #blk>
    %k5 = arith.addi %k4, %k4 : tensor<4xi32, #blk> """


def _long_line(body_extra: str = "") -> str:
    """EDGE (plus ``body_extra``) on one line, between enough ops to make it a long line."""
    pad = "".join(f" %pad{i} = arith.addi %n, %n : i32" for i in range(200))
    head = "#blk = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>\n"
    body = EDGE.replace("%n: i32) {\n", "%n: i32) {\n" + pad + "\n" + body_extra + "\n", 1)
    # (and after them: the last MAX_LINE characters of a long line go to the full parser)
    body = body.replace("    tt.return\n", pad.replace("%pad", "%tail") + "\n    tt.return\n", 1)
    if body_extra:
        body = head + body.replace("module {", 'module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {', 1)
    one = body.replace("\n", " ")
    assert len(one) > 3 * fast_ops.MAX_LINE
    return one


def taken_ops(monkeypatch, text: str, fast_path: str = "try_fast_op", name: str = "taken.ttir"):
    """The ops of ``text`` that the reader's ``fast_path`` built, in order, and the module."""
    taken = []
    real = getattr(reader, fast_path)

    def counting(parser, start):
        found = real(parser, start)
        if found is not None:
            taken.append(found[0])
        return found

    with monkeypatch.context() as m:
        m.setattr(reader, fast_path, counting)
        module = read_module(text, name)
    return taken, module


def _taken(monkeypatch, text: str, fast_path: str = "try_fast_op") -> int:
    """How many ops of ``text`` the reader's ``fast_path`` built."""
    return len(taken_ops(monkeypatch, text, fast_path)[0])


def _fast_ops_taken(monkeypatch, text: str) -> int:
    return _taken(monkeypatch, text)


@pytest.mark.parametrize("extra", ["", LONG_EXTRA], ids=["edge", "edge+lookalikes"])
def test_the_ops_of_a_long_line_take_the_fast_path(extra, monkeypatch):
    text = _long_line(extra)
    assert _fast_ops_taken(monkeypatch, text) >= 200 + 15
    assert_same_structure(read_module(text, "long.ttir"), _full_parse(monkeypatch, text, "long.ttir"))
    from ttopt.ir.writer import write_module

    fast = write_module(read_module(text, "long.ttir"), keep_text=False)
    with monkeypatch.context() as m:
        _no_fast_paths(m)
        slow = write_module(read_module(text, "long.ttir"), keep_text=False)
    assert fast == slow


def test_lookalikes_on_a_long_line_go_to_the_full_parser(monkeypatch):
    """An op holding what looks like the start of the next op (a dotted attribute name after
    `, `, a string, a location, a blank inside a type) is not cut there: the full parser reads
    it, with its location."""
    text = _long_line(LONG_EXTRA)
    base = _fast_ops_taken(monkeypatch, _long_line(LONG_EXTRA.replace("{a.b = 1 : i32, tt.foo = 2 : i32} ", "")))
    mod = read_module(text, "long.ttir")
    names = {op.results[0].name_hint: op for op in mod.op.walk() if op.results}
    assert names["d"].attributes.keys() >= {"a.b", "tt.foo"}
    assert 'loc("f.py":1:2)' in str(names["f"].location) or "f.py" in str(names["f"].location)
    assert "%q = tt.z" in str(names["h2"].attributes["x.y"])
    assert _fast_ops_taken(monkeypatch, text) == base - 1  # (%d with its dict: not fast)


def _optimized_both_ways(monkeypatch, text: str) -> tuple[str, str]:
    """``ttopt.optimize`` (unchanged ops copied from the input) with the fast paths, and
    without them."""
    fast = ttopt.optimize(text, [], "long.ttir")
    return fast, _slow(monkeypatch, text, "long.ttir")


@pytest.mark.parametrize("first", [
    "%f0 = arith.addi %n, %n : i32",
    "%f0 = arith.constant 007 : i32",
    "%f0 = arith.constant dense<1.0> : tensor<4xf32>",
])
def test_the_first_op_of_a_long_line_is_printed_not_copied(first, monkeypatch):
    """An op the fast path read on a long line ends before the next op, not at the line's
    end: it is printed (`    %f0 = ...`, `7`, `1.000000e+00`), as the full parser's would
    be, not copied from the line it shares."""
    pad = "".join(f" %pad{i} = arith.addi %n, %n : i32" for i in range(300))
    text = ("module {\n  tt.func public @k(%n: i32) {\n" + first + pad +
            "\n    tt.return\n  }\n}\n")
    fast, slow = _optimized_both_ways(monkeypatch, text)
    assert fast == slow
    assert "\n    %f0 = " in fast and "007" not in fast and "dense<1.0>" not in fast


def test_the_trailing_location_of_a_line_is_its_last_ops():
    """A line's trailing `loc(#x)` (stripped before parsing) belongs to the last op on the
    line: an op before it on the same line keeps its own location, or has none."""
    text = """#loc3 = loc("f.py":3:0)
#loc5 = loc("f.py":5:0)
module {
  tt.func @f(%n: i32) -> i32 {
    %a = arith.addi %n, %n : i32 loc(#loc3) %b = arith.addi %a, %a : i32 loc(#loc5)
    %c = arith.addi %b, %b : i32 %d = arith.addi %c, %c : i32 loc(#loc5)
    %e = scf.if %true -> (i32) {
      scf.yield %d : i32
    } else {
      scf.yield %c : i32
    } loc(#loc3)
    tt.return %e : i32
  }
}
""".replace("%true", "%t").replace("  tt.func @f(%n: i32) -> i32 {\n",
                                    "  tt.func @f(%n: i32, %t: i1) -> i32 {\n")
    out = ttopt.optimize(text, [], "f.ttir")
    assert "    %a = arith.addi %n, %n : i32 loc(#loc3)\n" in out
    assert "    %b = arith.addi %a, %a : i32 loc(#loc5)\n" in out
    assert "    %c = arith.addi %b, %b : i32\n" in out
    assert "    %d = arith.addi %c, %c : i32 loc(#loc5)\n" in out
    assert "    } loc(#loc3)\n" in out


# `cf` branches (try_fast_branch): successors with and without arguments, forward and
# backward, default-named (`^bb3`) and named (`^exit`) labels, a value passed twice.
BRANCHES = """module {
  tt.func public @k(%t: i1, %f: f32, %n: i32) {
    cf.cond_br %t, ^bb1(%f, %n : f32, i32), ^exit
  ^bb1(%x: f32, %i: i32):
    %c = arith.cmpi slt, %i, %n : i32
    cf.cond_br %c, ^bb3, ^bb1(%x, %i : f32, i32)
  ^bb3:
    cf.br ^exit2(%x, %x : f32, f32)
  ^exit2(%y: f32, %z: f32):
    cf.br ^exit
  ^exit:
    tt.return
  }
}
"""


def _branches_taken(monkeypatch, text: str) -> int:
    return _taken(monkeypatch, text, "try_fast_branch")


def test_branches_take_the_fast_path_and_build_what_the_full_parser_builds(monkeypatch):
    from ttopt.ir.writer import write_module

    assert _branches_taken(monkeypatch, BRANCHES) == 4
    fast_mod = read_module(BRANCHES, "b.ttir")
    assert_same_structure(fast_mod, _full_parse(monkeypatch, BRANCHES, "b.ttir"))
    ops = [op for op in fast_mod.op.walk() if op.name.startswith("cf.")]
    assert [[b.name_hint for b in op.successors] for op in ops] == [
        [None, "exit"], [None, None], ["exit2"], ["exit"]]
    assert [len(list(b.uses)) for b in ops[0].successors] == [2, 2]  # (uses linked)
    fast = write_module(fast_mod, keep_text=False)
    with monkeypatch.context() as m:
        _no_fast_paths(m)
        slow = write_module(read_module(BRANCHES, "b.ttir"), keep_text=False)
    assert fast == slow
    assert ttopt.optimize(BRANCHES, [], "b.ttir") == BRANCHES


@pytest.mark.parametrize("before, after", [
    ("^bb1(%f, %n : f32, i32), ^exit", "^bb1(%f, %n : f32, i64), ^exit"),  # a type mismatch
    ("cf.br ^exit\n", "cf.br ^nowhere\n"),  # a label never defined
    ("cf.cond_br %t, ^bb1", "cf.cond_br %n, ^bb1"),  # a condition not i1
    ("cf.cond_br %t, ^bb1", "cf.cond_br %u, ^bb1"),  # an undefined value
    ("cf.br ^exit2(%x, %x : f32, f32)", "cf.br ^exit2(%x : f32)"),  # an argument count
    ("cf.br ^exit\n", "cf.br ^exit {a = 1 : i32}\n"),  # (valid: an attribute dictionary)
    ("cf.br ^exit\n", 'cf.br ^exit loc("f.py":1:2)\n'),  # (valid: an inline location)
], ids=["type", "undefined-label", "condition-type", "undefined-value", "count", "attr-dict", "loc"])
def test_branches_the_fast_path_refuses_get_the_full_parsers_verdict(before, after, monkeypatch):
    """Each changed line: the same error (or the same module) with or without the fast
    path, and Triton's verdict."""
    from ttopt.oracle import triton_accepts

    assert before in BRANCHES
    text = BRANCHES.replace(before, after, 1)

    def verdict():
        try:
            return ttopt.optimize(text, ["redundant-load"], "b.ttir")
        except ttopt.TTOptError as e:
            return f"error: {e}"

    fast = verdict()
    with monkeypatch.context() as m:
        _no_fast_paths(m)
        slow = verdict()
    assert fast == slow
    assert fast.startswith("error: ") != triton_accepts(text, ".ttir").ok, fast


def test_the_benchmarks_chain_of_blocks_is_valid_and_all_its_branches_are_fast(monkeypatch):
    """bench.scaling's ``blocks`` shape (the 10 MB target's slowest shape before the branches
    had a fast path): Triton reads it, and every branch takes the fast path."""
    from bench.scaling import cf_blocks
    from ttopt.oracle import triton_accepts

    text = cf_blocks(3 * 50 + 6)
    assert triton_accepts(text, ".ttir").ok
    assert _branches_taken(monkeypatch, text) == 51
    assert ttopt.optimize(text, PASSES, "blocks.ttir") == text


# An op goes on past its line's end where the next token starts no op (MLIR is not
# line-based): a location, an attribute dictionary, a successor's operands on the next line
# belong to it.  The fast paths took the op as ending at the line's end and refused the rest
# ("operation 'loc' is unknown"); a `loc(#alias)` alone on a line was blanked as a
# trailing location of its own line, and the op lost it.
CONTINUED = """#loc1 = loc("a.py":3:3)
module {
  tt.func public @f(%n: i32, %c: i1, %p: !tt.ptr<i32>) {
    %a = arith.addi %n, %n : i32
      ONLY_LOC
    tt.store %p, %a : !tt.ptr<i32>
      ONLY_LOC
    cf.cond_br %c, ^bb1, ^bb2
      BREAK
  ^bb1:
    cf.br ^bb2
      BREAK
  ^bb2:
    tt.return
      BREAK
  }
}
"""


@pytest.mark.parametrize("tail", ['loc("a.py":3:3)', "loc(#loc1)", "{x = 1 : i32}"],
                         ids=["inline-loc", "alias-loc", "attr-dict"])
def test_an_op_that_goes_on_past_its_line_is_read_whole(tail, monkeypatch):
    from ttopt.oracle import triton_accepts

    # (an attribute dictionary comes before the type in arith.addi's and tt.store's syntax)
    text = CONTINUED.replace("BREAK", tail)
    text = text.replace("\n      ONLY_LOC", "") if "{" in tail else text.replace("ONLY_LOC", tail)
    assert triton_accepts(text, ".ttir").ok
    assert ttopt.optimize(text, PASSES, "c.ttir") == text
    assert _slow(monkeypatch, text, "c.ttir", PASSES) == text
    mod = read_module(text, "c.ttir")
    assert_same_structure(mod, _full_parse(monkeypatch, text, "c.ttir"))
    names = ("cf.cond_br", "cf.br", "tt.return") if "{" in tail else (
        "arith.addi", "tt.store", "cf.cond_br", "cf.br", "tt.return")
    ops = [op for op in mod.op.walk() if op.name in names]
    assert len(ops) == len(names)
    for op in ops:
        if tail.startswith("loc"):
            assert str(op.location) == 'loc("a.py":3:3)', op.name
        else:
            assert "x" in op.attributes or "x" in op.properties, op.name


def test_a_branch_whose_operands_are_on_the_next_line_is_read_whole():
    from ttopt.oracle import triton_accepts

    text = ("module {\n  tt.func public @f(%n: i32, %c: i1) {\n    cf.cond_br %c, ^bb1, ^bb2\n"
            "      (%n : i32)\n  ^bb1:\n    tt.return\n  ^bb2(%x: i32):\n    tt.return\n  }\n}\n")
    assert triton_accepts(text, ".ttir").ok
    assert ttopt.optimize(text, PASSES, "b.ttir") == text


@pytest.mark.parametrize("after, goes_on", [
    ("\n  loc(#a)", True), ("\n  loc (#a)", True), ("\n  {x = 1 : i32}", True), ("\n  (%n : i32)", True),
    ("\n  // a comment\n  {x = 1 : i32}", True), ("\n  : i32", True),
    ("\n  %x = arith.addi", False), ("\n  // c {\n  %x = arith.addi", False), ("\n  tt.return", False),
    ("\n  location.op", False), ("\n  }", False), ("\n  ^bb1:", False), ('\n  "tt.op"()', False),
    ("\n", False), ("", False),
])
def test_what_continues_an_op_on_the_next_line(after, goes_on):
    text = "cf.br ^bb1" + after
    assert fast_ops.continues(text, len("cf.br ^bb1")) == goes_on


def test_two_locations_on_one_op_are_refused():
    """A trailing ``loc(#a)`` followed by another location on the next line: MLIR refuses
    the second (an op has one location).  The first was blanked, and the second taken."""
    from ttopt.oracle import triton_accepts

    text = ('#loc1 = loc("a.py":1:1)\n#loc2 = loc("b.py":2:2)\nmodule {\n'
            "  tt.func public @f(%n: i32) {\n    %a = arith.addi %n, %n : i32 loc(#loc1)\n"
            "      loc(#loc2)\n    tt.return\n  }\n}\n")
    assert not triton_accepts(text, ".ttir").ok
    with pytest.raises(ttopt.TTOptError, match="^c.ttir:6:7: error: "):
        ttopt.optimize(text, PASSES, "c.ttir")
