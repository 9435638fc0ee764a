"""Location alias definitions as MLIR reads them, which is not line by line, and which
reads alias definitions in order.

* ``#name = loc(...)`` may have blanks, newlines and ``//`` comments between any two of its
  tokens: between ``#name``, ``=``, ``loc`` and ``(``, and in the body (a comment may hold a
  ``)`` or a ``"``: it closes nothing).  Each such definition is read as its one-line
  equivalent, written back as written, and Triton reads ttopt's output with the same
  locations.  A body that no ``)`` closes is refused where MLIR refuses it (``expected ')'
  in inline location``, after the last token before the one that is not a ``)``: MLIR's
  ``emitWrongTokenError``, which skips blank lines and a ``//`` comment back), as are the
  other malformed bodies over lines, in MLIR's words where ttopt has none of its own.
* ``loc(fused<ATTR>[...])`` in a ``#loc`` alias definition: ATTR may name an attribute or a
  type alias (``#a = {x = 1 : i32}``, ``!t = i32``) defined ABOVE the definition (above the
  module, or after it), as it may name a location alias; one defined below, or nowhere (in a
  comment, in a string), is refused: ``undefined symbol alias``, where MLIR says it.
* ``loc(#alias)`` as an attribute's value is an attribute alias to MLIR: the location alias
  must be defined above it (only a trailing location may name one defined further down);
  printed anew, such a location names an alias only where MLIR reads it.
* A head that is not ``#name = loc(`` (``#loc3 =`` at the input's end, ``#loc3 loc(...)``
  without ``=``) is an attribute alias definition to MLIR: refused there, in MLIR's words,
  before the module's trailing ``loc(#loc3)`` (which MLIR resolves after the whole input:
  ``operation location alias was never defined``, or ``expected location, but found ..``
  where ``#loc3`` is another attribute's alias).

Every release 2.1 - 3.9 reads the cases alike (tools/versions/oracle.py; the ``versions``
test at the end asks each again), but a location range and a ``#ttg.`` layout (3.3+).
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

import pytest
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr
from xdsl.ir import Attribute

import ttopt
from conftest import ReleaseOracle, since
from ttopt.dialects import versions
from ttopt.ir.reader import read_module
from ttopt.ir.writer import write_module

ROOT = pathlib.Path(__file__).resolve().parent.parent
RELEASES = versions.RELEASES
ALL = frozenset(RELEASES)

# A kernel with each location given by an alias: #loc1 and #loc3, defined by each case
MODULE = (
    "module {\n"
    "  tt.func public @k(%n: i32 loc(#loc1)) {\n"
    "    %c = arith.constant 1 : i32 loc(#loc3)\n"
    "    tt.return loc(#loc1)\n"
    "  } loc(#loc1)\n"
    "} loc(#loc1)\n"
)  # (6 lines: a definition after it starts on line 7)
LOC1 = '#loc1 = loc("f.py":3:4)\n'


@pytest.fixture(scope="module")
def triton36():
    pytest.importorskip("triton")
    from ttopt.oracle import triton_accepts

    return lambda text: triton_accepts(text, ".ttir").ok


@pytest.fixture(scope="module")
def triton_reading():
    """Triton 3.6's print of a text with its locations (as it reads them), the file's path
    replaced by ``k.ttir``."""
    pytest.importorskip("triton")
    from triton._C.libtriton import ir, nvidia

    ctx = ir.context()
    ir.load_dialects(ctx)
    nvidia.load_dialects(ctx)

    def reading(text: str) -> str:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "k.ttir")
            with open(path, "w", newline="") as f:
                f.write(text)
            mod = ir.parse_mlir_module(path, ctx)
            mod.context = ctx
            return mod.str().replace(path, "k.ttir")

    return reading


def fresh(text: str, release=None) -> str:
    """ttopt's output with every op printed anew."""
    v = versions.show(release) if release is not None else None
    return write_module(read_module(text, "k.ttir", triton_version=v), keep_text=False)


def error_of(text: str, release=None) -> str | None:
    try:
        read_module(text, "k.ttir", triton_version=versions.show(release) if release else None)
        return None
    except ttopt.TTOptError as e:
        return str(e)


# ------------------------------------------------------------------ definitions over lines
_ONE_LINE = LOC1 + '#loc2 = loc(fused[#loc1, #loc1])\n#loc3 = loc("n"(#loc2))\n'
# name: (the definitions as written, their one-line equivalent, the releases that read them)
OVER_LINES = {
    "body_over_lines": ('#loc1 = loc(\n  "f.py":3:4)\n#loc2 = loc(fused[#loc1,\n   #loc1])\n'
                        '#loc3 = loc("n"(#loc2))\n', _ONE_LINE, ALL),
    "newline_after_the_equals": ('#loc1 =\n  loc("f.py":3:4)\n#loc3 = loc("n"(#loc1))\n',
                                 LOC1 + '#loc3 = loc("n"(#loc1))\n', ALL),
    "newline_after_the_name": ('#loc1\n  = loc("f.py":3:4)\n#loc3 = loc("n"(#loc1))\n',
                               LOC1 + '#loc3 = loc("n"(#loc1))\n', ALL),
    "newline_after_loc": ('#loc1 = loc\n  ("f.py":3:4)\n#loc3 = loc\n("n"(#loc1))\n',
                          LOC1 + '#loc3 = loc("n"(#loc1))\n', ALL),
    "comments_in_the_head": ('#loc1 // a\n  = // b\n  loc // c\n  ("f.py":3:4)\n'
                             '#loc3 // = loc(\n = loc("n"(#loc1))\n',
                             LOC1 + '#loc3 = loc("n"(#loc1))\n', ALL),
    "comment_in_the_body": ('#loc1 = loc( // a ) " #loc9\n  "f.py":3:4)\n'
                            '#loc3 = loc("n"(#loc1) // )\n)\n',
                            LOC1 + '#loc3 = loc("n"(#loc1))\n', ALL),
    "blank_lines_and_tabs": ('#loc1\t=\tloc(\n\n\t"f.py"\n\t:3\n\t:\n4\n\n)\n'
                             '#loc3 = loc("n"(#loc1))\n',
                             LOC1 + '#loc3 = loc("n"(#loc1))\n', ALL),
    "callsite_and_name_over_lines": (LOC1 + '#loc2 = loc(callsite(#loc1\n at\n #loc1))\n'
                                     '#loc3 = loc("n"\n(\n#loc2\n))\n',
                                     LOC1 + '#loc2 = loc(callsite(#loc1 at #loc1))\n'
                                     '#loc3 = loc("n"(#loc2))\n', ALL),
    "metadata_over_lines": (LOC1 + '#loc3 = loc(fused<{x = 1 :\n i32}>[#loc1,\n #loc1])\n',
                            LOC1 + '#loc3 = loc(fused<{x = 1 : i32}>[#loc1, #loc1])\n', ALL),
    "two_definitions_on_a_line": ('#loc1 = loc("f.py":3:4) #loc3 = loc("n"(\n#loc1))\n',
                                  LOC1 + '#loc3 = loc("n"(#loc1))\n', ALL),
    "range_over_lines": (LOC1 + '#loc3 = loc("f.py":1:2\n to\n 3:4)\n',
                         LOC1 + '#loc3 = loc("f.py":1:2 to 3:4)\n', since((3, 3))),
}


# (where ttopt, printing anew, writes the definitions otherwise: each on its own lines)
FRESH_DEFS = {"two_definitions_on_a_line": '#loc1 = loc("f.py":3:4)\n#loc3 = loc("n"(\n#loc1))\n'}


def _over_lines(name: str, where: str, defs: str | None = None) -> tuple[str, str]:
    """The kernel with the case's definitions (or ``defs``), and with their one-line
    equivalent, above (``top``) or below (``bottom``) the module."""
    written, one_line, _ = OVER_LINES[name]
    defs = written if defs is None else defs
    if where == "top":
        return defs + MODULE, one_line + MODULE
    return MODULE + defs, MODULE + one_line


@pytest.mark.parametrize("where", ["top", "bottom"])
@pytest.mark.parametrize("name", sorted(OVER_LINES))
def test_a_definition_over_lines_is_read_as_its_one_line_equivalent(name, where, triton36,
                                                                     triton_reading):
    text, one_line = _over_lines(name, where)
    assert triton36(text), text
    assert triton_reading(text) == triton_reading(one_line)  # (Triton: the same locations)
    assert ttopt.optimize(text, [], "k.ttir") == _as_copied(text)
    # printed anew: the same module, each definition as written, on lines of its own
    assert fresh(text) == _over_lines(name, where, FRESH_DEFS.get(name))[0]
    mod, ref = read_module(text, "k.ttir"), read_module(one_line, "k.ttir")
    assert mod.locs.values == ref.locs.values
    assert [op.location for op in mod.op.walk()] == [op.location for op in ref.op.walk()]
    assert [before for _, before in mod.locs.lines] == [where == "top"] * len(ref.locs.lines)


def _as_copied(text: str) -> str:
    """``text`` as ttopt writes back the lines around a module it copies: without its blank
    and comment-only lines (MLIR reads it the same)."""
    return "".join(line for line in text.splitlines(keepends=True)
                   if line.strip() and not line.strip().startswith("//"))


def test_a_file_with_crlf_line_ends_is_written_back_with_them(triton36):
    text = (OVER_LINES["body_over_lines"][0] + MODULE).replace("\n", "\r\n")
    assert triton36(text)
    assert ttopt.optimize(text, [], "k.ttir") == text
    assert read_module(text, "k.ttir").locs.values == read_module(_ONE_LINE + MODULE, "k.ttir").locs.values


def test_the_lines_after_a_definition_over_lines_keep_their_numbers(triton_reading, capfd):
    """The definition is blanked line by line: an argument without a location is where
    Triton puts it, and so is an error further down."""
    text = OVER_LINES["body_over_lines"][0] + MODULE.replace("%n: i32 loc(#loc1)", "%n: i32")
    out = fresh(text)
    assert out.splitlines()[6] == '  tt.func public @k(%n: i32 loc("k.ttir":7:21)) {'
    assert triton_reading(out) == triton_reading(text)
    bad = text.replace("tt.return loc(#loc1)", "tt.return %nope : i32 loc(#loc1)")
    assert error_of(bad) == "k.ttir:9:15: error: use of undefined value '%nope'"
    assert triton_refusal(bad, capfd).startswith("9:15: error: ")


def test_the_definitions_are_read_in_linear_time():
    """200,000 ``#a //`` in a comment line (each a possible head: read whole at each, the
    comment to its line's end, quadratic: hours) and 20,000 definitions over lines."""
    defs = "".join(f'#l{i} =\n  loc("n"(\n  #loc1)) // {i}\n' for i in range(20_000))
    text = "// " + "#a // " * 200_000 + "\n" + MODULE + LOC1 + defs + '#loc3 = loc("n"(#loc1))\n'
    t = time.perf_counter()
    mod = read_module(text, "k.ttir")
    assert time.perf_counter() - t < 60
    assert len(mod.locs.values) == 20_002 and mod.locs.values["#l19999"] == mod.locs.values["#loc3"]


# ------------------------------------------------------------------ refused over lines
_AFTER = MODULE + LOC1  # (the case's first line is line 8)
# name: (text, ttopt's error, Triton's words where they differ); Triton 3.6 puts its error at
# the same line and column
REFUSED_OVER_LINES = {
    "unclosed_at_the_end": (_AFTER + '#loc3 = loc("n"(#loc1)\n',
                            "8:23: error: expected ')' in inline location"),
    "unclosed_at_the_end_without_newline": (_AFTER + '#loc3 = loc("f.py":1:2',
                                            "8:22: error: expected ')' in inline location"),
    "unclosed_before_another": (_AFTER + '#loc3 = loc(\n"f.py":3:4\n#loc4 = loc("n"(#loc1))\n',
                                "9:11: error: expected ')' in inline location"),
    "unclosed_above_the_module": ('#loc3 = loc("f.py":1:1\n' + LOC1 + MODULE,
                                  "1:23: error: expected ')' in inline location"),
    "unclosed_before_a_bad_string": (_AFTER + '#loc3 = loc("f.py":1:1\n#x = "abc\n',
                                     "8:23: error: expected ')' in inline location"),
    "unclosed_before_a_percent": (_AFTER + '#loc3 = loc("f.py":1:1\n%x\n',
                                  "8:23: error: expected ')' in inline location"),
    "comment_hides_the_close": (_AFTER + '#loc3 = loc("f.py":3:4 // )\n',
                                "8:28: error: expected ')' in inline location"),
    "token_after_the_location": (_AFTER + '#loc3 = loc("f.py":3:4\n "x")\n',
                                 "8:23: error: expected ')' in inline location"),
    "token_after_a_comment": (_AFTER + '#loc3 = loc("f.py":3:4 // c\n\n "x")\n',
                              "8:23: error: expected ')' in inline location"),
    "slashes_in_a_string": (_AFTER + '#loc3 = loc("a//b":1:2\n "x")\n',  # (MLIR takes the
                            "8:15: error: expected ')' in inline location"),  # first // of a line)
    "no_line_number": (_AFTER + '#loc3 = loc(\n"f.py"\n:\n)\n',
                       "10:2: error: expected integer line number in location, got ')'",
                       "expected integer line number in FileLineColRange"),
    "callsite_without_at": (_AFTER + "#loc3 = loc(callsite(#loc1\n #loc1))\n",
                            "8:27: error: expected 'at' in callsite location"),
    "fused_trailing_comma": (_AFTER + "#loc3 = loc(fused[#loc1,\n])\n",
                             "8:25: error: expected location instance"),
    "empty_over_lines": (_AFTER + "#loc3 = loc(\n)\n", "8:13: error: expected location instance"),
    "comment_to_the_end": (_AFTER + "#loc3 = loc( // x", "8:16: error: expected location instance"),
    "name_location_unclosed": (_AFTER + '#loc3 = loc("n"(\n#loc1\n',
                               "9:6: error: expected ')' after child location of NameLoc"),
    "metadata_unclosed": (_AFTER + "#loc3 = loc(fused<{a = 1 : i32}\n",
                          "8:32: error: expected '>' after fused location metadata"),
    "string_over_lines": (_AFTER + '#loc3 = loc("f.py\n":3:4)\n',
                          "8:18: error: expected '\"' in string literal (end of line reached)",
                          "expected '\"' in string literal"),
    "redefined_over_lines": (_AFTER + '#loc3 = loc("f.py":1:1)\n#loc3 =\n loc("f.py":1:2)\n',
                             "9:1: error: redefinition of location alias '#loc3'",
                             "redefinition of attribute alias id 'loc3'"),
    "range_to_nothing_over_lines": (_AFTER + '#loc3 = loc("f.py":1:2 to\n)\n',
                                    "8:26: error: expected an integer or ':' after 'to' in a location "
                                    "range, got ')'",
                                    "expected either integer or `:` post `to` in FileLineColRange"),
}


def triton_refusal(text: str, capfd) -> str:
    """Triton 3.6's first error about ``text``: ``LINE:COL: error: MESSAGE``."""
    pytest.importorskip("triton")
    from ttopt.oracle import triton_accepts

    capfd.readouterr()
    assert not triton_accepts(text, ".ttir").ok, text
    err = capfd.readouterr().err
    m = re.search(r'loc\("[^"]*":(\d+):(\d+)\): error: (.*)', err)
    assert m is not None, err
    return f"{m[1]}:{m[2]}: error: {m[3]}"


@pytest.mark.parametrize("name", sorted(REFUSED_OVER_LINES))
def test_a_malformed_definition_over_lines_is_refused_where_mlir_refuses_it(name, capfd):
    text, error, *words = REFUSED_OVER_LINES[name]
    assert error_of(text) == f"k.ttir:{error}"
    at, message = error.split(": error: ")
    assert triton_refusal(text, capfd) == f"{at}: error: {words[0] if words else message}"


@pytest.mark.parametrize("name", ["unclosed_above_the_module", "comment_hides_the_close",
                                  "slashes_in_a_string"])
def test_the_cli_reports_one_line_and_exit_1(name, tmp_path):
    text, error, *_ = REFUSED_OVER_LINES[name]
    path = tmp_path / "bad.ttir"
    path.write_text(text)
    proc = subprocess.run([sys.executable, "-m", "ttopt.cli", str(path)], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert (proc.returncode, proc.stdout, proc.stderr) == (1, "", f"{path}:{error}\n")


# ------------------------------------------------------------------ metadata naming aliases
_META = LOC1 + "#loc3 = loc(fused<{meta}>[#loc1])\n"
_BLOCKED = "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>"
_LOC2 = '#loc2 = loc("g.py":1:1)\n'
# name: (the text; its location definitions with every alias in a metadata replaced by its
# value, after the module; the releases that read it)
METADATA = {
    "attribute_alias": ("#a = {x = 1 : i32}\n" + MODULE + _META.format(meta="#a"),
                        _META.format(meta="{x = 1 : i32}"), ALL),
    "type_alias": ("!t = i32\n" + MODULE + _META.format(meta="!t"), _META.format(meta="i32"), ALL),
    "type_alias_in_an_attribute_alias": ("!t = i32\n#a = {x = 1 : !t}\n" + MODULE + _META.format(meta="#a"),
                                         _META.format(meta="{x = 1 : i32}"), ALL),
    "aliases_in_a_dictionary": ("#a = 5 : i32\n!t = i32\n" + MODULE
                                + _META.format(meta="{p = #a, q = 1 : !t, r = tensor<4x!t>}"),
                                _META.format(meta="{p = 5 : i32, q = 1 : i32, r = tensor<4xi32>}"), ALL),
    "aliases_and_locations": ("#a = 1 : i32\n" + MODULE + LOC1 + _LOC2
                              + "#loc3 = loc(fused<[#a, #loc1, #loc2, #a]>[#loc1])\n",
                              LOC1 + _LOC2 + '#loc3 = loc(fused<[1 : i32, loc("f.py":3:4), '
                              'loc("g.py":1:1), 1 : i32]>[#loc1])\n', ALL),
    "definitions_above_the_module": ("#a = {x = 1 : i32}\n" + _META.format(meta="#a") + MODULE,
                                     _META.format(meta="{x = 1 : i32}"), ALL),
    "attribute_alias_after_the_module": (MODULE + "#a = {x = 1 : i32}\n" + _META.format(meta="#a"),
                                         _META.format(meta="{x = 1 : i32}"), ALL),
    "nested_fused_location": ("#a = {x = 1 : i32}\n" + MODULE + LOC1
                              + '#loc3 = loc(fused<"m">[fused<#a>[#loc1], #loc1])\n',
                              LOC1 + '#loc3 = loc(fused<"m">[fused<{x = 1 : i32}>[#loc1], #loc1])\n', ALL),
    "attribute_alias_over_lines": ("#a // c\n = {x = 1 :\n i32}\n" + MODULE + _META.format(meta="#a"),
                                   _META.format(meta="{x = 1 : i32}"), ALL),
    "metadata_over_lines": ("#a = {x = 1 : i32}\n" + MODULE + LOC1
                            + "#loc3 = loc(fused<\n  #a // c\n>[#loc1])\n",
                            _META.format(meta="{x = 1 : i32}"), ALL),
    "layout_alias": (f"#blocked = {_BLOCKED}\n" + MODULE + _META.format(meta="#blocked"),
                     _META.format(meta=_BLOCKED), since((3, 3))),
}
# (where ttopt, printing anew, writes the text otherwise: every attribute and type alias
# first, each printed anew)
FRESH_METADATA = {
    "type_alias_in_an_attribute_alias": "!t = i32\n#a = {x = 1 : i32}\n" + MODULE + _META.format(meta="#a"),
    "attribute_alias_after_the_module": "#a = {x = 1 : i32}\n" + MODULE + _META.format(meta="#a"),
    "attribute_alias_over_lines": "#a = {x = 1 : i32}\n" + MODULE + _META.format(meta="#a"),
}


def _expanded(name: str) -> str:
    """The case with no alias in a metadata (its value written there instead)."""
    return MODULE + METADATA[name][1]


@pytest.mark.parametrize("name", sorted(METADATA))
def test_a_metadata_may_name_an_attribute_or_type_alias_defined_above(name, triton36, triton_reading):
    text, _, _ = METADATA[name]
    assert triton36(text), text
    assert triton_reading(text) == triton_reading(_expanded(name))
    assert ttopt.optimize(text, [], "k.ttir") == _as_copied(text)
    out = fresh(text)
    assert out == FRESH_METADATA.get(name, text)
    assert triton_reading(out) == triton_reading(text)
    mod, ref = read_module(text, "k.ttir"), read_module(_expanded(name), "k.ttir")
    assert mod.locs.values["#loc3"] == ref.locs.values["#loc3"]
    assert [op.location for op in mod.op.walk()] == [op.location for op in ref.op.walk()]


_BELOW = MODULE + _META.format(meta="#a")  # (#loc3's definition: line 8)
# name: (text, ttopt's error; Triton 3.6's: the same place (after the name), "undefined
# symbol alias id 'a'")
REFUSED_METADATA = {
    "attribute_alias_below": (_BELOW + "#a = {x = 1 : i32}\n", "8:21: error: undefined symbol alias '#a'"),
    "type_alias_below": (MODULE + _META.format(meta="!t") + "!t = i32\n",
                         "8:21: error: undefined symbol alias '!t'"),
    "attribute_alias_nowhere": (_BELOW, "8:21: error: undefined symbol alias '#a'"),
    "below_all_above_the_module": (_META.format(meta="#a") + "#a = {x = 1 : i32}\n" + MODULE,
                                   "2:21: error: undefined symbol alias '#a'"),
    "in_a_comment_above": ("// #a = {x = 1 : i32}\n" + _BELOW, "9:21: error: undefined symbol alias '#a'"),
    "in_a_string_above": ('module attributes {s = "#a = {x = 1 : i32}"} {\n}\n' + _META.format(meta="#a"),
                          "4:21: error: undefined symbol alias '#a'"),
    "in_a_dictionary_below": (MODULE + _META.format(meta="{p = 1 : !t}") + "!t = i32\n",
                              "8:30: error: undefined symbol alias '!t'"),
    "location_alias_below_the_attribute_alias": (MODULE + "#a = {l = loc(#loc1)}\n" + _META.format(meta="#a"),
                                                 "7:20: error: undefined symbol alias '#loc1'"),
}


@pytest.mark.parametrize("name", sorted(REFUSED_METADATA))
def test_a_metadata_naming_an_alias_not_defined_above_is_refused(name, capfd):
    text, error = REFUSED_METADATA[name]
    assert error_of(text) == f"k.ttir:{error}"
    at, message = error.split(": error: ")
    alias = re.search(r"'[#!](.*)'", message)[1]
    assert triton_refusal(text, capfd) == f"{at}: error: undefined symbol alias id '{alias}'"


def test_an_integer_of_thousands_of_digits_in_a_metadata_is_an_input_error(capfd):
    """In the metadata or in an alias definition it names: one located line (it was a
    traceback: Python's int() refuses more than 4,300 digits), as the reader says it."""
    digits = "9" * 5000
    inline = MODULE + _META.format(meta=f"{{x = {digits} : i32}}")
    above = f"#a = {digits} : i32\n" + MODULE + _META.format(meta="#a")
    assert error_of(inline) == "k.ttir:8:5025: error: integer literal out of range (more than 4300 digits)"
    assert error_of(above) == "k.ttir:1:5007: error: integer literal out of range (more than 4300 digits)"
    assert triton_refusal(inline, capfd) == "8:24: error: integer constant out of range for attribute"
    assert triton_refusal(above, capfd) == "1:6: error: integer constant out of range for attribute"


def test_a_type_alias_in_a_metadata_means_what_its_definition_says(capfd):
    """The reader remembers the types it read across modules, keyed with the alias
    definitions above them: so must the metadata's reader (``tensor<4x!t>`` of ``!t = i32``
    was another text's ``tensor<4x!t>``, of ``!t = i64``, or of no ``!t``)."""
    meta = _META.format(meta="{y = tensor<4x!t>, z = !t}")
    i32 = read_module("!t = i32\n" + MODULE + meta, "k.ttir").locs.values["#loc3"]
    i64 = read_module("!t = i64\n" + MODULE + meta, "k.ttir").locs.values["#loc3"]
    assert str(i32.metadata) == "{y = tensor<4xi32>, z = i32}"
    assert str(i64.metadata) == "{y = tensor<4xi64>, z = i64}"
    undefined = MODULE.replace("%n: i32", "%n: tensor<4x!t>") + LOC1 + '#loc3 = loc("n"(#loc1))\n'
    assert error_of(undefined) == "k.ttir:2:36: error: undefined symbol alias '!t'"
    assert error_of(MODULE + meta) == "k.ttir:8:35: error: undefined symbol alias '!t'"
    assert triton_refusal(MODULE + meta, capfd) == "8:35: error: undefined symbol alias id 't'"


def test_a_metadata_naming_many_aliases_is_read_in_linear_time():
    """20,000 location aliases and as many attribute aliases in one metadata (each looked up
    where it is first named: from the metadata's start, quadratic)."""
    n = 20_000
    attrs = "".join(f"#a{i} = {i} : i32\n" for i in range(n))
    locs = "".join(f'#l{i} = loc("f.py":{i}:1)\n' for i in range(n))
    names = ", ".join(f"#a{i}, #l{i}" for i in range(n))
    text = attrs + MODULE + LOC1 + locs + f"#loc3 = loc(fused<[{names}]>[#loc1])\n"
    t = time.perf_counter()
    meta = read_module(text, "k.ttir").locs.values["#loc3"].metadata
    assert time.perf_counter() - t < 60
    assert len(meta.data) == 2 * n and str(meta.data[-2]) == f"{n - 1} : i32"
    assert str(meta.data[-1]) == f'loc("f.py":{n - 1}:1)'


# ------------------------------------------------------------------ a location as an attribute
# `loc(#alias)` as an attribute's value (in an alias definition, an op's or an argument's
# attribute dictionary, an array) is an attribute alias to MLIR, resolved on the spot: the
# alias must be defined above it.  Only a trailing location (an op's, an argument's) may name
# one defined further down.
_LOC3 = '#loc3 = loc("g.py":1:1)\n'
_ATTR = "#a = {l = loc(#loc1)}\n"


def _op_attr(value: str, custom: bool = False) -> str:
    """MODULE with an op that has the attribute ``l = VALUE``."""
    if custom:
        return MODULE.replace("tt.return loc(", f"tt.return {{l = {value}}} loc(")
    return MODULE.replace("%c = arith.constant 1 : i32 loc(#loc3)",
                          f'%c = "arith.constant"() {{value = 1 : i32, l = {value}}} : () -> i32 loc(#loc3)')


# name: (text, the value of its attribute `l`); Triton reads each (every release)
LOC_ATTRS = {
    "alias_below_its_location_alias": (MODULE + LOC1 + _ATTR + _LOC3, "loc"),
    "alias_above_the_module": (LOC1 + _ATTR + MODULE + _LOC3, "loc"),
    "alias_over_lines": (LOC1 + "#a = {l = loc( // c\n  #loc1 // d\n )}\n" + MODULE + _LOC3, "loc"),
    "op_attribute": (LOC1 + _op_attr("loc(#loc1)") + _LOC3, "loc"),
    "op_attribute_in_an_array": (LOC1 + _op_attr("[loc(#loc1)]") + _LOC3, "[loc]"),
    "op_attribute_at_its_line_end": (LOC1 + _op_attr("loc(#loc1)\n   ") + _LOC3, "loc"),
    "custom_form_attribute": (LOC1 + _op_attr("loc(#loc1)", custom=True) + _LOC3, "loc"),
}
# name: (text, ttopt's error; Triton's: the same, but "undefined symbol alias id 'loc1'" where
# ttopt says "undefined symbol alias '#loc1'")
REFUSED_LOC_ATTRS = {
    "alias_above_the_module": (_ATTR + MODULE + LOC1 + _LOC3, "1:20: error: undefined symbol alias '#loc1'"),
    "alias_below_the_module": (MODULE + _ATTR + LOC1 + _LOC3, "7:20: error: undefined symbol alias '#loc1'"),
    "alias_over_lines": ("#a = {l = loc( // c\n  #loc1 // d\n )}\n" + MODULE + LOC1 + _LOC3,
                         "2:8: error: undefined symbol alias '#loc1'"),
    "op_attribute": (_op_attr("loc(#loc1)") + LOC1 + _LOC3, "3:60: error: undefined symbol alias '#loc1'"),
    "op_attribute_in_an_array": (_op_attr("[1, loc(#loc1)]") + LOC1 + _LOC3,
                                 "3:64: error: undefined symbol alias '#loc1'"),
    "op_attribute_at_its_line_end": (_op_attr("loc(#loc1)\n   ") + LOC1 + _LOC3,
                                     "3:60: error: undefined symbol alias '#loc1'"),
    "custom_form_attribute": (_op_attr("loc(#loc1)", custom=True) + LOC1 + _LOC3,
                              "4:29: error: undefined symbol alias '#loc1'"),
    "argument_attribute": (MODULE.replace("%n: i32 loc(", "%n: i32 {tt.l = loc(#loc1)} loc(") + LOC1 + _LOC3,
                           "2:46: error: undefined symbol alias '#loc1'"),
    "module_attribute": (MODULE.replace("module {", "module attributes {tt.l = loc(#loc1)} {") + LOC1 + _LOC3,
                         "1:36: error: undefined symbol alias '#loc1'"),
    # (a location alias nowhere, another attribute's alias: on the spot too, not at the end)
    "alias_of_no_location": ("#a = {l = loc(#loc9)}\n" + MODULE + LOC1 + _LOC3,
                             "1:20: error: undefined symbol alias '#loc9'"),
    "op_attribute_of_no_location": (LOC1 + _op_attr("[loc(#loc9)]") + _LOC3,
                                    "4:61: error: undefined symbol alias '#loc9'"),
    "alias_of_an_integer": ("#b = 1 : i32\n" + _ATTR.replace("#loc1", "#b") + MODULE + LOC1 + _LOC3,
                            "2:17: error: expected location attribute, but got1 : i32"),
}


def _attribute_l(mod) -> Attribute:
    """The value of the one attribute ``l`` of ``mod`` (an alias's, an op's, an argument's)."""
    found = [v.data.get("l") for v in mod.attr_aliases.values() if isinstance(v, DictionaryAttr)]
    for op in mod.op.walk():
        found.append(op.attributes.get("l"))
        for arg_attrs in getattr(op, "arg_attrs", None) or ():
            found.append(arg_attrs.data.get("tt.l"))
    found = [v for v in found if v is not None]
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize("name", sorted(LOC_ATTRS))
def test_a_location_attribute_may_name_a_location_alias_defined_above(name, triton36):
    text, value = LOC_ATTRS[name]
    assert triton36(text), text
    mod = read_module(text, "k.ttir")
    loc = mod.locs.values["#loc1"]
    assert str(loc) == 'loc("f.py":3:4)'
    assert _attribute_l(mod) == (ArrayAttr([loc]) if value == "[loc]" else loc)
    assert ttopt.optimize(text, [], "k.ttir") == text


@pytest.mark.parametrize("name", sorted(REFUSED_LOC_ATTRS))
def test_a_location_attribute_naming_a_location_alias_defined_below_is_refused(name, capfd):
    text, error = REFUSED_LOC_ATTRS[name]
    assert error_of(text) == f"k.ttir:{error}"
    assert triton_refusal(text, capfd) == re.sub(r"alias '#(\w+)'", r"alias id '\1'", error)


# printed anew: a location in an attribute names an alias only where MLIR reads it there
# (one defined above the module, in the module); an alias definition's value, printed above
# every location alias, names none.  name: (text, ttopt's output with every op printed anew)
_VALUE = 'loc("f.py":3:4)'


def _anew(v: str) -> str:
    """MODULE with the location ``v`` in an argument's, an op's and the module's attributes."""
    return MODULE.replace("%n: i32 loc(", f"%n: i32 {{tt.l = {v}}} loc(").replace(
        "%c = arith.constant 1 : i32", f"%c = arith.constant {{l = [{v}]}} 1 : i32").replace(
        "module {", f"module attributes {{tt.l = {v}}} {{")


FRESH_LOC_ATTRS = {
    "alias_below_its_location_alias": ('#a = {l = loc("f.py":3:4)}\n' + MODULE + LOC1 + _LOC3),
    "alias_above_the_module": ('#a = {l = loc("f.py":3:4)}\n' + LOC1 + MODULE + _LOC3),
    "alias_over_lines": ('#a = {l = loc("f.py":3:4)}\n' + LOC1 + MODULE + _LOC3),
    "op_attribute": (LOC1 + MODULE.replace("%c = arith.constant 1", "%c = arith.constant {l = loc(#loc1)} 1") + _LOC3),
    "custom_form_attribute": (LOC1 + _op_attr("loc(#loc1)", custom=True) + _LOC3),
    "values_equal_to_an_alias_below": (_anew(_VALUE) + LOC1 + _LOC3,
                                       _anew(_VALUE) + LOC1 + _LOC3),
    "values_equal_to_an_alias_above": (LOC1 + _anew(_VALUE) + _LOC3,
                                       LOC1 + _anew("loc(#loc1)") + _LOC3),
}


@pytest.mark.parametrize("name", sorted(FRESH_LOC_ATTRS))
def test_a_location_attribute_printed_anew_is_read_by_triton(name, triton36):
    """With every op printed anew (the alias definitions first): the output is what the table
    says, Triton reads it, and ttopt reads the same values from it."""
    if isinstance(FRESH_LOC_ATTRS[name], tuple):
        text, expected = FRESH_LOC_ATTRS[name]
    else:
        text, expected = LOC_ATTRS[name][0], FRESH_LOC_ATTRS[name]
    assert triton36(text), text
    out = fresh(text)
    assert out == expected
    assert triton36(out), out
    before, after = read_module(text, "k.ttir"), read_module(out, "k.ttir")
    assert [(op.attributes, op.location) for op in before.op.walk()] == \
        [(op.attributes, op.location) for op in after.op.walk()]
    assert before.attr_aliases == after.attr_aliases


# ------------------------------------------------------------------ heads that are no `#name = loc(`
# name: (the definition of #loc3, ttopt's and Triton's error where it is below the module
# (line 8), where it is above (line 1)); the module names #loc3 as a trailing location
MALFORMED_HEADS = {
    "equals_at_the_input_end": ("#loc3 =", "8:6: error: expected attribute value",
                                "1:8: error: expected attribute value"),
    "equals_then_newline": ("#loc3 =\n", "8:8: error: expected attribute value",
                            "1:8: error: expected attribute value"),
    "no_equals": ('#loc3 loc("g.py":1:1)\n', "8:6: error: expected '=' in attribute alias definition",
                  "1:6: error: expected '=' in attribute alias definition"),
    "name_alone": ("#loc3\n", "8:6: error: expected '=' in attribute alias definition",
                   "1:6: error: expected '=' in attribute alias definition"),
    "comment_for_equals": ('#loc3 // = loc(\n loc("g.py":1:1)\n',
                           "8:6: error: expected '=' in attribute alias definition",
                           "1:6: error: expected '=' in attribute alias definition"),
    "two_equals": ('#loc3 == loc("g.py":1:1)\n', "8:8: error: expected attribute value",
                   "1:8: error: expected attribute value"),
    "no_parenthesis": ('#loc3 = loc "g.py":1:1)\n', "8:12: error: expected '(' in inline location",
                       "1:12: error: expected '(' in inline location"),
    "brackets": ('#loc3 = loc["g.py":1:1]\n', "8:12: error: expected '(' in inline location",
                 "1:12: error: expected '(' in inline location"),
    "loc_at_the_line_end": ("#loc3 = loc\n", "8:12: error: expected '(' in inline location",
                            "1:12: error: expected '(' in inline location"),
    "misspelt_loc": ('#loc3 = lo("g.py":1:1)\n', "8:8: error: expected attribute value",
                     "1:8: error: expected attribute value"),
    "unknown_alone": ("#loc3 = unknown\n", "8:8: error: expected attribute value",
                      "1:8: error: expected attribute value"),
    # (an attribute alias: an error at the module's use, 3:37 below it, 4:37 above it)
    "string": ('#loc3 = "g.py"\n', "3:37: error: expected location, but found '\"g.py\"'",
               "4:37: error: expected location, but found '\"g.py\"'"),
    "integer": ("#loc3 = 1 : i32\n", "3:37: error: expected location, but found '1 : i32'",
                "4:37: error: expected location, but found '1 : i32'"),
    "dictionary": ("#loc3 = {a = 1 : i32}\n", "3:37: error: expected location, but found '{a = 1 : i32}'",
                   "4:37: error: expected location, but found '{a = 1 : i32}'"),
}


def _headed(name: str, where: str) -> str:
    head = MALFORMED_HEADS[name][0]
    if where == "top":
        return head + ("" if head.endswith("\n") else "\n") + MODULE + LOC1
    return MODULE + LOC1 + head


@pytest.mark.parametrize("where", ["bottom", "top"])
@pytest.mark.parametrize("name", sorted(MALFORMED_HEADS))
def test_a_head_that_is_no_location_alias_definition_is_refused_where_mlir_refuses_it(name, where, capfd):
    text = _headed(name, where)
    error = MALFORMED_HEADS[name][1 if where == "bottom" else 2]
    assert error_of(text) == f"k.ttir:{error}"
    assert triton_refusal(text, capfd) == error


# (a trailing location naming no location alias: what MLIR says after reading the whole
# input, at the use; the first in its walk: ops inside out, each op's location before its
# block arguments'); name: (text, ttopt's and Triton's error)
UNRESOLVED = {
    "undefined": (MODULE.replace("loc(#loc3)", "loc(#bad)") + LOC1,
                  "3:37: error: operation location alias was never defined"),
    "undefined_twice": (MODULE.replace("loc(#loc3)", "loc(#bad)").replace("tt.return loc(#loc1)", "tt.return loc(#bad)")
                        + LOC1, "3:37: error: operation location alias was never defined"),
    "inner_op_first": (MODULE.replace("i32 loc(#loc3)", "i32 loc(#bad3)").replace("%n: i32 loc(#loc1)", "%n: i32 loc(#bad1)")
                       + LOC1, "3:37: error: operation location alias was never defined"),
    "function_before_its_argument": (MODULE.replace("%n: i32 loc(#loc1)", "%n: i32 loc(#bad1)").replace(
        "  } loc(#loc1)", "  } loc(#bad2)") + LOC1 + _LOC3, "5:9: error: operation location alias was never defined"),
    "after_a_syntax_error": (MODULE.replace("loc(#loc3)", "loc(#bad)").replace("    tt.return", "    %d = arith.addi %c, %c :\n    tt.return")
                             + LOC1, "5:5: error: type expected"),
    "after_an_undefined_value": (MODULE.replace("loc(#loc3)", "loc(#bad)").replace("    tt.return", "    %d = arith.addi %c, %e : i32\n    tt.return")
                                 + LOC1, "4:25: error: use of undefined value '%e'"),
    "inside_a_callsite": (MODULE.replace("loc(#loc3)", "loc(callsite(#bad at #loc1))") + LOC1,
                          "3:50: error: undefined symbol alias '#bad'"),
    "type_alias_without_equals": (MODULE + LOC1 + _LOC3 + "!t i32\n",
                                  "9:3: error: expected '=' in type alias definition"),
    "inside_a_name_an_integer_s_alias": ("#b = 1 : i32\n" + MODULE.replace("loc(#loc3)", 'loc("x"(#b))') + LOC1,
                                         "4:43: error: expected location attribute, but got1 : i32"),
}
# (Triton's words where ttopt's differ)
_TRITONS = {"after_a_syntax_error": "4:29: error: expected non-function type",
            "after_an_undefined_value": "4:25: error: use of undeclared SSA value name",
            "inside_a_callsite": "3:50: error: undefined symbol alias id 'bad'"}


@pytest.mark.parametrize("name", sorted(UNRESOLVED))
def test_a_trailing_location_naming_no_location_alias_is_refused_as_mlir_refuses_it(name, capfd):
    text, error = UNRESOLVED[name]
    assert error_of(text) == f"k.ttir:{error}"
    assert triton_refusal(text, capfd) == _TRITONS.get(name, error)


def test_attribute_and_type_aliases_beside_trailing_location_aliases_are_read(triton36):
    """The well-formed neighbours: attribute and type aliases above and below the module,
    none of them named by a location."""
    text = "#a = 1 : i32\n!t = i32\n" + MODULE + LOC1 + "#b = {a = 1 : i32}\n!u = i64\n" + _LOC3
    assert triton36(text)
    mod = read_module(text, "k.ttir")
    assert sorted(mod.attr_aliases) == ["!t", "!u", "#a", "#b"]
    assert str(mod.locs.values["#loc3"]) == 'loc("g.py":1:1)'
    assert ttopt.optimize(text, [], "k.ttir") == text


# ------------------------------------------------------------------ each release
def _values(text: str, release) -> dict:
    return read_module(text, "k.ttir", triton_version=versions.show(release)).locs.values


@pytest.mark.parametrize("release", RELEASES, ids=versions.show)
def test_each_release_reads_the_definitions_over_lines_as_its_triton_does(release):
    for name, (_, _, releases) in OVER_LINES.items():
        for where in ("top", "bottom"):
            text, one_line = _over_lines(name, where)
            error = error_of(text, release)
            assert (error is None) == (release in releases), (name, where, error)
            if error is None:
                assert _values(text, release) == _values(one_line, release), (name, where)
    for name, (text, *_) in REFUSED_OVER_LINES.items():
        assert error_of(text, release) is not None, name
    for name, (text, _, releases) in METADATA.items():
        error = error_of(text, release)
        assert (error is None) == (release in releases), (name, error)
        if error is None:
            assert _values(text, release)["#loc3"] == _values(_expanded(name), release)["#loc3"], name
    for name, (text, _) in REFUSED_METADATA.items():
        assert error_of(text, release) is not None, name
    for name, (text, _) in LOC_ATTRS.items():
        assert error_of(text, release) is None, name
    for name, (text, _) in REFUSED_LOC_ATTRS.items():
        assert error_of(text, release) is not None, name
    for name in MALFORMED_HEADS:
        for where in ("top", "bottom"):
            assert error_of(_headed(name, where), release) is not None, (name, where)


@pytest.mark.versions
@pytest.mark.parametrize("release", RELEASES, ids=versions.show)
def test_each_release_judges_the_cases_as_the_tables_say(release, tmp_path):
    """Triton R reads a case iff the table says so, and reads what ttopt writes for R
    (printed anew); it refuses every malformed case."""
    oracle = ReleaseOracle(release, tmp_path)
    for name, (_, _, releases) in OVER_LINES.items():
        for where in ("top", "bottom"):
            text, _ = _over_lines(name, where)
            oracle.add(f"{name}.{where}", text, release in releases)
            if release in releases:
                oracle.add(f"{name}.{where}.out", fresh(text, release), True)
    for name, (text, *_) in REFUSED_OVER_LINES.items():
        oracle.add(f"bad_{name}", text, False)
    for name, (text, _, releases) in METADATA.items():
        oracle.add(f"meta_{name}", text, release in releases)
        if release in releases:
            oracle.add(f"meta_{name}.out", fresh(text, release), True)
    for name, (text, _) in REFUSED_METADATA.items():
        oracle.add(f"bad_meta_{name}", text, False)
    for name, (text, _) in LOC_ATTRS.items():
        oracle.add(f"loc_attr_{name}", text, True)
        oracle.add(f"loc_attr_{name}.out", fresh(text, release), True)
    for name, (text, _) in REFUSED_LOC_ATTRS.items():
        oracle.add(f"bad_loc_attr_{name}", text, False)
    for name in MALFORMED_HEADS:
        for where in ("top", "bottom"):
            oracle.add(f"bad_head_{name}.{where}", _headed(name, where), False)
    oracle.check()
