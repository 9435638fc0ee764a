"""Location forms of MLIR that xDSL 0.74 does not read: ranges (``FileLineColRange``,
Triton 3.3+) and fused locations with metadata (every release).

* ``loc("a.py":1:2 to 3:4)``, ``loc("a.py":1:2 to :4)`` (same line), ``loc("a.py":7)`` (a
  line alone): read by every release from 3.3 on, refused by 2.1 - 3.2 (``expected ')' in
  location`` / ``expected ':' in FileLineColLoc``); ttopt refuses them in a text of those
  releases (``Syntax.loc_ranges``).
* ``loc(fused<ATTR>[...])``: read by every release 2.1 - 3.9 (the metadata is any attribute
  the release can parse; ``fused<"m">[]`` too).

Each form is read wherever a location may stand (an op, a function argument, a block
argument, a ``#loc`` alias definition), written back byte for byte, kept on an op a pass
prints anew, and printed anew (``keep_text=False``) in a form the same release reads back.
Malformed ones are refused as Triton refuses them: one line ``FILE:LINE:COL: error: ...``.
The release tables were found by asking each release's Triton (tools/versions/oracle.py);
``test_each_release_reads_the_forms_as_its_triton_does`` asks them again.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

import ttopt
from conftest import ReleaseOracle
from ttopt.dialects import versions
from ttopt.ir.locations import FileLineColRange
from ttopt.ir.reader import read_module
from ttopt.ir.writer import write_module

ROOT = pathlib.Path(__file__).resolve().parent.parent
RELEASES = versions.RELEASES


@pytest.fixture(scope="module")
def triton36():
    pytest.importorskip("triton")
    from ttopt.oracle import triton_accepts

    return lambda text: triton_accepts(text, ".ttir").ok


# form as written -> (as printed anew, first release that reads it)
FORMS = {
    "range": ('"a.py":1:2 to 3:4', '"a.py":1:2 to 3:4', (3, 3)),
    "range_same_line": ('"a.py":1:2 to :4', '"a.py":1:2 to :4', (3, 3)),
    "range_end_is_start": ('"a.py":1:2 to 1:2', '"a.py":1:2 to 1:2', (3, 3)),
    "range_backwards": ('"a.py":5:6 to 1:2', '"a.py":5:6 to 1:2', (3, 3)),
    "range_spaced_hex": ('"a.py":0x1:2 to : 0x4', '"a.py":1:2 to :4', (3, 3)),
    "line_alone": ('"a.py":7', '"a.py":7', (3, 3)),
    "range_in_name_and_callsite": ('callsite("n"("a.py":1:2 to 3:4) at "b.py":3:4 to :9)',
                                   'callsite("n"("a.py":1:2 to 3:4) at "b.py":3:4 to :9)', (3, 3)),
    "fused_meta_string": ('fused<"meta">["a.py":1:2, "b.py":3:4]',
                          'fused<"meta">["a.py":1:2, "b.py":3:4]', (2, 1)),
    "fused_meta_typed_string": ('fused<"m" : i32>["a.py":1:2]', 'fused<"m" : i32>["a.py":1:2]', (2, 1)),
    "fused_meta_int": ('fused<1 : i32>["a.py":1:2]', 'fused<1 : i32>["a.py":1:2]', (2, 1)),
    "fused_meta_dict": ('fused<{k = 1 : i32, s = "x"}>["a.py":1:2]',
                        'fused<{k = 1 : i32, s = "x"}>["a.py":1:2]', (2, 1)),
    "fused_meta_array": ('fused<[1 : i64, "x"]>[unknown]', 'fused<[1 : i64, "x"]>[unknown]', (2, 1)),
    "fused_meta_type": ('fused<f32>["a.py":1:2]', 'fused<f32>["a.py":1:2]', (2, 1)),
    "fused_meta_unit": ('fused<unit>["n"]', 'fused<unit>["n"]', (2, 1)),
    "fused_meta_symbol": ('fused<@s::@t>[unknown]', 'fused<@s::@t>[unknown]', (2, 1)),
    "fused_meta_location": ('fused<loc("m.py":1:1)>["a.py":1:2]',
                            'fused<loc("m.py":1:1)>["a.py":1:2]', (2, 1)),
    "fused_meta_spaced": ('fused < "m" > [ "a.py":1:2 ]', 'fused<"m">["a.py":1:2]', (2, 1)),
    "fused_meta_empty_list": ('fused<"m">[]', 'fused<"m">[]', (2, 1)),
    "fused_meta_nested": ('fused<"m">[fused<"n">["a.py":1:2], "b.py":3:4]',
                          'fused<"m">[fused<"n">["a.py":1:2], "b.py":3:4]', (2, 1)),
    "fused_meta_with_ranges": ('fused<"m">["a.py":1:2 to 3:4, "b.py":5]',
                               'fused<"m">["a.py":1:2 to 3:4, "b.py":5]', (3, 3)),
    "fused_empty": ("fused[]", "fused[]", (2, 1)),
}


def kernel(form: str) -> str:
    """``form`` on a function argument, ops (one that redundant-load rewrites: the addf,
    whose operand %b goes), block arguments and in a ``#loc`` alias definition (named: the
    alias is not the inline locations' value, which would print as the alias)."""
    aliased = f'"alias"({form})'
    return (
        "module {\n"
        f"  tt.func public @k(%p: !tt.ptr<f32> loc({form}), %q: !tt.ptr<f32>) {{\n"
        f"    %a = tt.load %p evictionPolicy = evict_last : !tt.ptr<f32> loc({form})\n"
        "    %b = tt.load %p evictionPolicy = evict_first : !tt.ptr<f32> loc(#loc1)\n"
        f"    %s = arith.addf %a, %b : f32 loc({form})\n"
        "    %t = tt.splat %s : f32 -> tensor<4xf32>\n"
        '    %r = "tt.reduce"(%t) <{axis = 0 : i32}> ({\n'
        f"    ^bb0(%x: f32 loc({form}), %y: f32 loc({form})):\n"
        "      %z = arith.addf %x, %y : f32\n"
        "      tt.reduce.return %z : f32\n"
        f"    }}) : (tensor<4xf32>) -> f32 loc({form})\n"
        "    tt.store %q, %r : !tt.ptr<f32> loc(#loc2)\n"
        "    tt.return loc(#loc1)\n"
        "  } loc(#loc1)\n"
        "} loc(#loc1)\n"
        '#loc1 = loc("k.py":1:1)\n'
        f"#loc2 = loc({aliased})\n"
    )


def _line(text: str, needle: str) -> str:
    (line,) = [ln for ln in text.splitlines() if needle in ln]
    return line


# ------------------------------------------------------------------------- positive
@pytest.mark.parametrize("name", sorted(FORMS))
def test_a_form_is_read_kept_and_written_back(name, triton36):
    form, anew, _ = FORMS[name]
    text = kernel(form)
    assert triton36(text), text
    # unchanged: byte for byte
    assert ttopt.optimize(text, [], "k.ttir") == text
    # a pass rewrites the addf (%b goes): printed anew, it keeps its location as written
    out = ttopt.optimize(text, ["redundant-load"], "k.ttir")
    assert out != text
    assert _line(out, "arith.addf %a, %a") == f"    %s = arith.addf %a, %a : f32 loc({form})"
    assert f"loc({form})" in _line(out, "tt.func")
    assert triton36(out), out
    # every op printed anew: the form as MLIR reads it, everywhere it stood
    fresh = write_module(read_module(text, "k.ttir"), keep_text=False)
    assert _line(fresh, "tt.func").startswith(f"  tt.func public @k(%p: !tt.ptr<f32> loc({anew}), ")
    assert _line(fresh, "= arith.addf %a, %b").endswith(f" : f32 loc({anew})")
    assert _line(fresh, "^bb0") == f"    ^bb0(%x: f32 loc({anew}), %y: f32 loc({anew})):"
    assert _line(fresh, "(tensor<4xf32>) -> f32").endswith(f"f32 loc({anew})")
    assert _line(fresh, "tt.store").endswith(" loc(#loc2)")
    assert triton36(fresh), fresh
    # and that reads back to the same attributes, printed the same
    assert write_module(read_module(fresh, "k.ttir"), keep_text=False) == fresh
    # the alias definition is kept as written
    assert text.splitlines()[-1] in out.splitlines() and text.splitlines()[-1] in fresh.splitlines()


def _locs(text: str):
    mod = read_module(text, "k.ttir")
    ops = [op for op in mod.op.walk() if op.name == "arith.addf" and op.results[0].name_hint == "s"]
    return ops[0].location, mod.locs.values["#loc2"]


def test_equal_text_is_an_equal_attribute():
    same = [_locs(kernel(f))[0] for f in ('"a.py":1:2 to :4', '"a.py":0x1:2 to : 4', '"a.py":1:2   to :0x4')]
    assert same[0] == same[1] == same[2]
    assert isinstance(same[0], FileLineColRange)
    other = [_locs(kernel(f))[0] for f in ('"a.py":1:2 to 1:4', '"a.py":1:2', '"a.py":1', '"a.py":1:2 to :5')]
    assert all(o != same[0] for o in other) and len(set(other)) == 4
    inline, alias = _locs(kernel('"a.py":1:2 to 3:4'))
    assert alias.location == inline and alias.desc.data == "alias"
    metas = [_locs(kernel(f))[0] for f in ('fused<"m">["a.py":1:2]', 'fused < "m" > ["a.py":1:2]')]
    assert metas[0] == metas[1] != _locs(kernel('fused<"n">["a.py":1:2]'))[0]
    assert metas[0] != _locs(kernel('fused["a.py":1:2]'))[0]


def test_a_location_alias_in_metadata_must_be_defined_above(triton36):
    """The metadata is an attribute: MLIR resolves a ``#loc`` alias in it on the spot (only
    a whole ``loc(#alias)`` may name one defined further down)."""
    above = ('#loc1 = loc("z.py":3:3)\n#loc2 = loc(fused<#loc1>["a.py":1:2 to :4])\n'
             "module {\n  tt.func public @k(%n: i32) {\n"
             "    %c = arith.constant 1 : i32 loc(fused<#loc1>[#loc2])\n"
             "    tt.return loc(#loc2)\n  }\n}\n")
    assert triton36(above)
    assert ttopt.optimize(above, [], "k.ttir") == above
    fresh = write_module(read_module(above, "k.ttir"), keep_text=False)
    assert "arith.constant 1 : i32 loc(fused<loc(#loc1)>[#loc2])" in fresh and triton36(fresh), fresh
    below = ("module {\n  tt.func public @k(%n: i32) {\n"
             '    %c = arith.constant 1 : i32 loc(fused<#loc1>["a.py":1:2])\n'
             '    tt.return\n  }\n}\n#loc1 = loc("z.py":3:3)\n')
    assert not triton36(below)
    with pytest.raises(ttopt.TTOptError, match=r"^k\.ttir:3:48: error: undefined symbol alias '#loc1'"):
        ttopt.optimize(below, [], "k.ttir")
    in_alias = below.replace('loc(fused<#loc1>["a.py":1:2])', "loc(#loc2)") + \
        '#loc2 = loc(fused<#loc3>["a.py":1:2])\n#loc3 = loc("z.py":3:3)\n'
    assert not triton36(in_alias)
    with pytest.raises(ttopt.TTOptError, match=r"^k\.ttir:8:19: error: location alias '#loc3' is used before"):
        ttopt.optimize(in_alias, [], "k.ttir")


@pytest.mark.parametrize("inner", ['fused<"m">["a.py":1:2, "b.py":3:4]', 'fused<loc("a.py":1:2)>["b.py":3:4]',
                                   '"n"("a.py":1:2 to :4)', 'fused<"m">["a.py":1:2 to :4]'])
def test_a_nested_location_printed_anew_names_no_alias_defined_below(inner, triton36):
    """A location nested in one printed anew (or a metadata location) that equals an alias
    defined after the module is printed as its value: MLIR resolves a nested alias on the
    spot, and would refuse ``"n"(#loc1)`` there."""
    value = "a.py" in inner and ('"a.py":1:2 to :4' if "to" in inner else '"a.py":1:2')
    text = ("module {\n  tt.func public @k(%n: i32) {\n"
            f"    %c = arith.constant 1 : i32 loc({inner})\n"
            f"    tt.return loc(#loc1)\n  }}\n}}\n#loc1 = loc({value})\n")
    assert triton36(text)
    fresh = write_module(read_module(text, "k.ttir"), keep_text=False)
    assert f"arith.constant 1 : i32 loc({inner})" in fresh and triton36(fresh), fresh
    early = '#loc1 = loc("a.py":1:2)\n' + text.rsplit("#loc1", 1)[0].replace("tt.return loc(#loc1)", "tt.return")
    fresh = write_module(read_module(early, "k.ttir"), keep_text=False)
    if "to" not in inner:  # (an alias defined above may be named)
        assert "#loc1" in _line(fresh, "arith.constant"), fresh
    assert triton36(fresh), fresh


# ------------------------------------------------------------------------- negative
# (body of `loc(...)`, the message ttopt gives): Triton 3.6 refuses each
BAD = {
    "to_nothing": ('"a.py":1:2 to', "after 'to' in a location range"),
    "to_line_only": ('"a.py":1:2 to 3', "':' after the end line"),
    "to_line_colon": ('"a.py":1:2 to 3:', "end column number"),
    "to_colon_only": ('"a.py":1:2 to :', "end column number"),
    "to_not_an_integer": ('"a.py":1:2 to x:4', "after 'to' in a location range"),
    "to_negative": ('"a.py":1:2 to -3:4', ""),
    "to_float": ('"a.py":1:2 to 3.5:4', ""),
    "to_too_large": ('"a.py":1:2 to 4294967296:4', "end line number"),
    "to_twice": ('"a.py":1:2 to 3:4 to 5:6', ""),
    "to_after_a_line": ('"a.py":1 to 3:4', ""),
    "to_in_capitals": ('"a.py":1:2 TO 3:4', ""),
    "meta_not_an_attribute": ('fused<%x>["a.py":1:2]', ""),
    "meta_empty": ('fused<>["a.py":1:2]', ""),
    "meta_bare_word": ('fused<foo>["a.py":1:2]', ""),
    "meta_unterminated": ('fused<"m"["a.py":1:2]', "'>'"),
    "meta_no_list": ('fused<"m">', "'['"),
    "meta_only_open": ("fused<", ""),
    "meta_unregistered_dialect_attribute": ('fused<#tt.cache_modifier<none>>["a.py":1:2]', ""),
}


def _bad_inline(body: str) -> str:
    return ("module {\n  tt.func public @k(%n: i32) {\n"
            f"    %c = arith.constant 1 : i32 loc({body})\n    tt.return\n  }}\n}}\n")


def _bad_alias(body: str) -> str:
    return ("module {\n  tt.func public @k(%n: i32) {\n"
            "    %c = arith.constant 1 : i32 loc(#loc1)\n    tt.return\n  }\n}\n"
            f"#loc1 = loc({body})\n")


def _bad_argument(body: str) -> str:
    return f"module {{\n  tt.func public @k(%n: i32 loc({body})) {{\n    tt.return\n  }}\n}}\n"


PLACES = {"inline": (_bad_inline, 3), "alias": (_bad_alias, 7), "argument": (_bad_argument, 2)}


@pytest.mark.parametrize("place", sorted(PLACES))
@pytest.mark.parametrize("name", sorted(BAD))
def test_a_malformed_form_is_refused_as_triton_refuses_it(name, place, triton36):
    body, fragment = BAD[name]
    make, line = PLACES[place]
    text = make(body)
    assert not triton36(text), text
    with pytest.raises(ttopt.TTOptError) as info:
        ttopt.optimize(text, [], "bad.ttir")
    err = info.value
    assert err.line == line, str(err)
    assert fragment in err.message, str(err)
    assert str(err).startswith(f"bad.ttir:{err.line}:{err.col}: error: ") and "\n" not in str(err)


@pytest.mark.parametrize("name", ["to_nothing", "to_negative", "meta_unterminated", "meta_not_an_attribute"])
def test_the_cli_reports_one_line_and_exit_1(name, tmp_path):
    body, _ = BAD[name]
    for i, (make, line) in enumerate(PLACES.values()):
        path = tmp_path / f"bad{i}.ttir"
        path.write_text(make(body))
        proc = subprocess.run([sys.executable, "-m", "ttopt.cli", str(path)],
                              capture_output=True, text=True, cwd=ROOT, timeout=60)
        assert proc.returncode == 1, proc.stderr
        assert "Traceback" not in proc.stderr and proc.stdout == ""
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"{path}:{line}:"), proc.stderr
        assert ": error: " in lines[0]


# ------------------------------------------------------------------------- releases
def _reads(text: str, release) -> bool:
    try:
        read_module(text, "k.ttir", triton_version=versions.show(release))
        return True
    except ttopt.TTOptError:
        return False


def _release_kernel(form: str, where: str) -> str:
    """A kernel with no sign of a release (each one reads it), ``form`` inline or in an
    alias."""
    inline = form if where == "inline" else "#loc2"
    return ("module {\n"
            f"  tt.func public @k(%n: i32 loc({inline})) {{\n"
            f"    %c = arith.constant 1 : i32 loc({inline})\n"
            "    tt.return loc(#loc1)\n  } loc(#loc1)\n} loc(#loc1)\n"
            f'#loc1 = loc("k.py":1:1)\n#loc2 = loc({form})\n')


@pytest.mark.parametrize("release", RELEASES, ids=versions.show)
def test_ttopt_reads_a_form_iff_the_release_has_it(release):
    for name, (form, _, since) in FORMS.items():
        for where in ("inline", "alias"):
            assert _reads(_release_kernel(form, where), release) == (release >= since), (name, where)


def test_a_range_in_a_text_of_triton_3_2_is_refused_at_the_range():
    text = _bad_argument('"a.py":1:2 to 3:4').replace(
        "    tt.return", "    triton_gpu.barrier\n    tt.return")  # (3.2's prefix: a 3.2 text)
    with pytest.raises(ttopt.TTOptError, match=r"^k\.ttir:2:44: error: a location range \('to'\) "
                       r"needs Triton 3\.3 or later \(this text is read as Triton 3\.2's\)$"):
        read_module(text, "k.ttir")


@pytest.mark.versions
@pytest.mark.parametrize("release", RELEASES, ids=versions.show)
def test_each_release_reads_the_forms_as_its_triton_does(release, tmp_path):
    """Release R's Triton reads a form iff the table says so (and ttopt reads it iff R
    does: the test above), and reads what ttopt writes anew for R."""
    oracle = ReleaseOracle(release, tmp_path)
    for name, (form, _, since) in FORMS.items():
        for where in ("inline", "alias"):
            text = _release_kernel(form, where)
            oracle.add(f"{name}.{where}", text, release >= since)
            if release >= since:
                out = write_module(read_module(text, "k.ttir", triton_version=versions.show(release)),
                                   keep_text=False)
                oracle.add(f"{name}.{where}.out", out, True)
    for name, (body, _) in BAD.items():
        oracle.add(f"bad_{name}", _bad_inline(body), False)
    oracle.check()
