"""Where things are, as MLIR (Triton 3.6) says: the location an op or argument written without
``loc(...)`` gets, the position of an error about a value, and what the version sniffing
looks at.  Triton is the oracle: its parser reads the same file and prints its locations."""

import os
import re
import tempfile

import pytest

from conftest import corpus_files, fixture_files

import ttopt

KERNEL = """module {
  tt.func public @k(%x: tensor<4xf32>, %y: f32 loc(unknown)) -> f32 {
    %m = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32 loc(unknown)):
      %c = arith.addf %a, %b : f32
      tt.reduce.return %c : f32
    }) : (tensor<4xf32>) -> f32
    tt.return %m : f32
  }
}
"""


def _locations_in_order(text: str) -> list[str]:
    """Every ``loc(...)`` of a printed module, in textual order, aliases resolved."""
    aliases = dict(re.findall(r"^(#loc\d*) = (loc\(.*\))$", text, re.MULTILINE))
    body = "\n".join(line for line in text.splitlines() if not re.match(r"#loc\d* = ", line))
    found = re.findall(r"loc\((#loc\d*|unknown|\"[^\"]*\":\d+:\d+)\)", body)
    return [aliases.get(x, f"loc({x})") for x in found]


def _triton_locations(text: str, name: str) -> list[str]:
    from triton._C.libtriton import ir

    from ttopt.oracle import _context

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write(text)
        mod = ir.parse_mlir_module(path, _context())
        mod.context = _context()
        printed = mod.str()
    return [loc.replace(path, name) for loc in _locations_in_order(printed)]


def test_implicit_locations_are_triton_s(tmp_path):
    """An op without ``loc(...)`` is at its name (not at its results); an argument without one
    is at its ``%name``; an explicit ``loc(unknown)`` stays unknown."""
    from ttopt.ir.reader import read_module
    from ttopt.ir.writer import write_module

    # every op printed (a plain round trip copies the input, with no location to compare)
    out = write_module(read_module(KERNEL, "k.ttir"), keep_text=False)
    ours = _locations_in_order(out)
    assert ours == _triton_locations(KERNEL, "k.ttir")
    assert 'loc("k.ttir":3:10)' in ours  # %m = "tt.reduce": at the quote, column 10
    assert 'loc("k.ttir":5:12)' in ours  # %c = arith.addf: column 12
    assert ours.count("loc(unknown)") == 2


def test_undefined_value_is_reported_at_its_use_not_in_a_comment():
    text = """module {
  tt.func public @k(%p: !tt.ptr<f32>) {
    // %nope is not defined
    %c = arith.constant 1.0 : f32
    tt.store %p, %nope : !tt.ptr<f32>
    tt.return
  }
}
"""
    with pytest.raises(ttopt.TTOptError) as e:
        ttopt.optimize(text, [], "u.ttir")
    assert str(e.value) == "u.ttir:5:18: error: use of undefined value '%nope'"


def test_version_sniffing_skips_comments_and_strings():
    """``triton_gpu.`` in a comment or a location's file name is no sign of Triton 3.0-3.2 IR
    (Triton 3.6 reads both, and so does ttopt, as 3.6 text), but an op of that dialect is:
    the text is then read as Triton 3.2's, which has no ``triton_gpu.barrier``."""
    text = """// Triton 3.2 called this dialect triton_gpu.blocked
module {
  tt.func public @k(%p: !tt.ptr<f32>) {
    %c = arith.constant 1.0 : f32 loc("triton_gpu.py":1:1)
    tt.store %p, %c : !tt.ptr<f32>
    tt.return
  }
}
"""
    from ttopt.oracle import triton_accepts

    assert triton_accepts(text, ".ttir").ok
    assert "triton_gpu.py" in ttopt.optimize(text, [], "v.ttir")
    old = text.replace("    tt.return\n", '    "triton_gpu.barrier"() : () -> ()\n    tt.return\n')
    with pytest.raises(ttopt.TTOptError, match=r"^v.ttir:6:25: error: operation being parsed with an unregistered dialect\. If this is "
                       r"intended, please use -allow-unregistered-dialect with the MLIR tool used$"):
        ttopt.optimize(old, [], "v.ttir")
    with pytest.raises(ttopt.TTOptError, match=r"^v.ttir:6:6: error: the text is not Triton 3.6's, as "
                       r"--triton-version says: it has the dialect prefix 'triton_gpu.'"):
        ttopt.optimize(old, [], "v.ttir", triton_version="3.6")


def _hidden_reference(text: str, pos: int) -> bool:
    """The definition: scan the line from its start up to ``pos``."""
    from ttopt.ir.locations import _PREFIX_TOKENS

    line = text[text.rfind("\n", 0, pos) + 1 : pos]
    return any(m.group() in ("//", '"') for m in _PREFIX_TOKENS.finditer(line))


def test_hidden_scanner_agrees_with_scanning_each_line_from_its_start():
    """The location-alias scan asks, for each `#loc = ` it finds, whether it lies in a
    string or a comment; the scanner answers for increasing positions in one pass per line
    (once quadratic on a module written on one line) and must agree everywhere."""
    import random

    from ttopt.ir.locations import _HiddenScanner

    rng = random.Random(5)
    pieces = ['"a#b"', '"x\\"y"', "//c", '"open', "#loc1", " ", "x", "\n", '"', "\\"]
    for _ in range(300):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 25)))
        scanner = _HiddenScanner(text)
        for pos in range(len(text) + 1):
            assert scanner(pos) == _hidden_reference(text, pos), (text, pos)



_BODIES = [
    '"f":1:2)', '"f":1:2:3)', '"f":1:2) x)', '"n"(#l3))', '"n"(#l3) x)', 'callsite(#a at #b))',
    'callsite(#a at #b) z)', "unknown)", "unknown x)", '"a\\"b":1:2)', '"a(b":1:2)', '"a)b":1:2)',
    "fused[#a, #b])", '"n"("f":1:2))', '"f":1:2', '"f":12345678901:2)', '"x\\n":1:1)',
    '"f":1:2\n)', '"f":1:2 )', 'callsite(#a at callsite(#b at #c)))', '"n"(#l3)', "",
]


@pytest.mark.parametrize("body", _BODIES)
def test_an_alias_body_ends_where_the_full_pattern_ends(body):
    """The reader finds an alias definition's end with ``_PLAIN_BODY`` (the common forms) or
    ``_BODY`` after its head: where ``LOC_ALIAS`` (head and body in one pattern) ends."""
    from ttopt.ir import locations as L

    text = "#loc1 = loc(" + body
    head = L._LOC_ALIAS_START.match(text)
    full = L.LOC_ALIAS.match(text, 0)
    found = L._PLAIN_BODY.match(text, head.end()) or L._BODY.match(text, head.end())
    assert (full and (full.start(2), full.end())) == (found and (head.end(), found.end()))


def test_alias_bodies_of_the_corpus_end_where_the_full_pattern_ends():
    from ttopt.ir import locations as L

    files = fixture_files() + corpus_files()[::7]
    n = 0
    for path in files:
        text = path.read_text()
        for head in L._LOC_ALIAS_START.finditer(text):
            full = L.LOC_ALIAS.match(text, head.start())
            found = L._PLAIN_BODY.match(text, head.end()) or L._BODY.match(text, head.end())
            assert (full and full.end()) == (found and found.end()), (path, head.start())
            n += 1
    assert n > 1000
