"""Op properties (inherent attributes) as Triton has them, release by release.

* An op with no properties refuses a properties dictionary in generic form, even ``<{}>``
  (MLIR: "invalid properties {..} for op NAME: this operation does not support
  properties"; 3.8+: "... has empty properties"; 2.1: "This operation ..."), at the op's
  name; an op that has some ignores a name it does not define.  Which ops have none, in
  which releases: ``versions.NO_PROPERTIES_UNTIL``, checked here against every release's
  Triton for every op ttopt registers.
* The properties ttopt's definitions lacked (``ttg.async_wait``'s ``num``,
  ``tt.extern_elementwise``'s ``libname`` ...), with Triton's constraints: required ones are
  required, a value of another kind is refused with MLIR's words; one only some releases
  define binds only where every release the text may come from defines it (elsewhere it is
  a plain attribute).
* ``tt.mulhiui``, ``tt.precise_divf``, ``tt.precise_sqrt``: no properties (they had arith's
  ``fastmath``/``overflowFlags``, which refused ``{fastmath = 1 : i32}`` as Triton does not
  and read ``fastmath<fast>``, which Triton refuses).

Every expected verdict is Triton's (the ``versions`` tests ask each release's own parser and
verifier, ``tools/versions/oracle.py``; skipped without its environment), and a refusal's
message and position are compared with Triton's own.
"""

from __future__ import annotations

import pathlib

import pytest

from conftest import ttopt_refusal
from conftest import triton_refusals as _triton
from ttopt.dialects import DIALECTS, versions
from ttopt.dialects.legacy import LEGACY
from ttopt.ir.reader import read_module

RELEASES = versions.RELEASES
FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures" / "versions"


def _op_names() -> list[str]:
    """Every op ttopt registers (as ttopt names it), the releases' own ones included."""
    names = {op.name for d in DIALECTS if d.name != "builtin" for op in d.operations}
    names |= {cls.name for cls, _, _ in LEGACY if isinstance(getattr(cls, "name", None), str)
              and hasattr(cls, "get_irdl_definition") and "." in cls.name
              and not cls.name.startswith("#")}
    return sorted(n for n in names if n.split(".")[0] in
                  ("tt", "ttg", "ttng", "arith", "math", "scf", "cf", "gpu", "ub", "llvm"))



def _func(body: str, args: str = "") -> str:
    return f"module {{\n  tt.func public @k({args}) {{\n{body}    tt.return\n  }}\n}}\n"


# ------------------------------------------------------------------ which ops have none
def test_the_table_names_ops_ttopt_registers():
    assert set(versions.NO_PROPERTIES_UNTIL) <= set(_op_names())
    assert all(r in RELEASES for r in versions.NO_PROPERTIES_UNTIL.values())


@pytest.mark.versions
@pytest.mark.parametrize("release", RELEASES, ids=versions.show)
def test_ops_without_properties_are_each_release_s(release, tmp_path):
    """``"NAME"() <{}> : () -> ()``: Triton R says the op has no properties exactly where
    the table says so (an op R does not have is refused as unregistered: not asked)."""
    syntax = versions.Syntax(release)
    names = _op_names()
    texts = {n: _func(f'    "{syntax.op_name(n)}"() <{{}}> : () -> ()\n') for n in names}
    verdicts = _triton(release, tmp_path, texts)
    wrong = []
    for name in names:
        message = verdicts[name][2] if verdicts[name] else ""  # (read: it has properties)
        if message.startswith(("unregistered operation", "operation being parsed with an "
                                                         "unregistered dialect")):
            continue
        none = message.endswith(("does not support properties", "has empty properties"))
        if none != versions.no_properties(name, (release, release)):
            wrong.append(f"{name}: {message}")
        if none:
            assert message == (f"invalid properties {{}} for op {syntax.op_name(name)}: "
                               f"{versions.no_properties_reason(release)}")
    assert not wrong, "\n".join(wrong)


# ------------------------------------------------------------------ the refusal
# name -> (function body, arguments, the releases whose Triton refuses it)
ALL = frozenset(RELEASES)
CASES = {
    "return_dict": ('    "tt.return"() <{a = "x"}> : () -> ()\n', "", ALL),
    "return_empty": ('    "tt.return"() <{}> : () -> ()\n', "", ALL),
    # the dictionary as MLIR prints it: names sorted, i64 and f64 left out in an array, a
    # unit value by its name, a NaN in upper-case hexadecimal
    "return_values": ('    "tt.return"() <{b = 1, a = "q\\"", c, f = [1, 2.0, "s", [3], 4 : i32, '
                      'true, {z = 5}], g = 0x7FC00000 : f32, h = -0.5, "s p" = 2 : i32}> : '
                      '() -> ()\n', "", ALL),
    # at the op's name, after its results
    "splat_result": ('    %0 = "tt.splat"(%x) <{}> : (i32) -> tensor<4xi32>\n', "%x: i32", ALL),
    # (tt.split: 3.0+; 2.x does not know it)
    "two_results": ('    %1:2 = "tt.split"(%j) <{x = 1}> {y = 2} : (tensor<4x2xi32>) -> '
                    '(tensor<4xi32>, tensor<4xi32>)\n', "%j: tensor<4x2xi32>", ALL),
    # properties written over several lines, an attribute dictionary and a comment between
    "multiline": ('    %0 = "tt.bitcast"(%x)\n      // the properties\n      <{a = 1}>\n'
                  '      {b = 2} : (i32) -> f32\n', "%x: i32", ALL),
    # arith.addi has properties (overflowFlags) from 3.0 on
    "addi": ('    %0 = "arith.addi"(%x, %x) <{}> : (i32, i32) -> i32\n', "%x: i32",
             frozenset(r for r in RELEASES if r < (3, 0))),
    # a name the op does not define, on an op that has properties: ignored
    "unknown_name": ('    %0 = "tt.get_program_id"() <{axis = 0 : i32, foo = "x"}> {bar = 1} : '
                     '() -> i32\n', "", frozenset()),
    # an attribute dictionary is no properties dictionary
    "attributes": ('    %0 = "tt.splat"(%x) {a = 1} : (i32) -> tensor<4xi32>\n', "%x: i32",
                   frozenset()),
    # the first one in the text is reported (MLIR stops there), before a verifier's error
    "first_of_two": ('    %0 = "tt.splat"(%x) {a = 1} : (i32) -> tensor<4xf32>\n'
                     '    %1 = "tt.splat"(%x) <{b = 1}> : (i32) -> tensor<4xi32>\n'
                     '    %2 = "tt.splat"(%x) <{a = 1}> : (i32) -> tensor<4xi32>\n',
                     "%x: i32", ALL),
}


@pytest.mark.versions
@pytest.mark.parametrize("release", RELEASES, ids=versions.show)
def test_properties_on_an_op_without_are_refused_as_triton_refuses_them(release, tmp_path):
    """Each case read as release R: refused by ttopt where Triton R refuses it, with
    Triton's message at Triton's line and column; read where Triton R reads it."""
    texts = {name: _func(body, args) for name, (body, args, _) in CASES.items()
             if release >= (3, 0) or name != "two_results"}
    triton = _triton(release, tmp_path, texts)
    for name in texts:
        refused = CASES[name][2]
        assert (triton[name] is not None) == (release in refused), (name, triton[name])
        assert ttopt_refusal(texts[name], release) == triton[name], name


def test_the_refusals_of_triton_3_6():
    """Triton 3.6's words (as the versions test above checks them, here without Triton)."""
    text = _func(CASES["return_values"][0])
    assert ttopt_refusal(text) == (3, 5, (
        'invalid properties {a = "q\\22", b = 1 : i64, c, f = [1, 2.000000e+00, "s", [3], '
        '4 : i32, true, {z = 5 : i64}], g = 0x7FC00000 : f32, h = -5.000000e-01 : f64, '
        '"s p" = 2 : i32} for op tt.return: this operation does not support properties'))
    assert ttopt_refusal(_func(*CASES["splat_result"][:2])) == (
        3, 10, "invalid properties {} for op tt.splat: this operation does not support properties")
    assert ttopt_refusal(_func(*CASES["multiline"][:2])) == (
        3, 10, "invalid properties {a = 1 : i64} for op tt.bitcast: this operation does not "
               "support properties")
    assert ttopt_refusal(_func(*CASES["first_of_two"][:2]))[:2] == (4, 10)
    assert ttopt_refusal(_func(*CASES["unknown_name"][:2])) is None


def test_each_release_s_words():
    text = _func(CASES["return_empty"][0])
    for release, words in (((2, 1), "This operation does not support properties"),
                           ((2, 2), "this operation does not support properties"),
                           ((3, 7), "this operation does not support properties"),
                           ((3, 8), "this operation has empty properties"),
                           ((3, 9), "this operation has empty properties")):
        assert ttopt_refusal(text, release) == (3, 5, f"invalid properties {{}} for op tt.return: {words}")


def test_releases_the_text_may_come_from_decide():
    """Refused only where no release the text may come from has properties for the op:
    ``arith.addi`` has none before 3.0."""
    addi = '    %0 = "arith.addi"(%x, %x) <{}> : (i32, i32) -> i32\n'
    no_sign = _func(addi, "%x: i32")  # (any release: 3.x reads it)
    assert ttopt_refusal(no_sign) is None
    # a 2.x sign (`tt.splat %x : (T) -> U`): 2.1 - 2.3, read as 2.3
    old = _func("    %s = tt.splat %x : (i32) -> tensor<4xi32>\n" + addi, "%x: i32")
    assert ttopt_refusal(old) == (4, 10, "invalid properties {} for op arith.addi: this operation does "
                                  "not support properties")
    assert ttopt_refusal(no_sign, (2, 2)) is not None
    assert ttopt_refusal(no_sign, (3, 0)) is None
    # the op spelled as the text spells it
    text = _func('    %0 = "triton_gpu.convert_layout"(%x) <{}> : (tensor<4xi32>) -> '
                 'tensor<4xi32>\n', "%x: tensor<4xi32>")
    assert ttopt_refusal(text) == (3, 10, "invalid properties {} for op triton_gpu.convert_layout: this "
                                   "operation does not support properties")
    # ttg.convert_layout has properties in 3.9
    text = text.replace("triton_gpu.", "ttg.")
    assert ttopt_refusal(text) is None and ttopt_refusal(text, (3, 8)) is not None


@pytest.mark.versions
@pytest.mark.parametrize("release", [(2, 3), (3, 0), (3, 8), (3, 9)], ids=versions.show)
def test_releases_of_the_span_as_triton(release, tmp_path):
    cases = {
        "addi": _func('    %0 = "arith.addi"(%x, %x) <{}> : (i32, i32) -> i32\n', "%x: i32"),
        "convert": _func('    %0 = "ttg.convert_layout"(%x) <{}> : (tensor<4xi32>) -> '
                         'tensor<4xi32>\n', "%x: tensor<4xi32>"),
    }
    if release < (3, 3):
        cases["convert"] = cases["convert"].replace("ttg.", "triton_gpu.")
    triton = _triton(release, tmp_path, cases)
    for name, text in cases.items():
        assert ttopt_refusal(text, release) == triton[name], name


# ------------------------------------------------------------------ tt.mulhiui & co.
FLAGS = {
    # Triton takes these names as plain attributes, of any value
    "mulhiui_attr": ("    %0 = tt.mulhiui %a, %a {fastmath = 1 : i32} : i32\n", True),
    "divf_attr": ('    %0 = tt.precise_divf %f, %f {overflowFlags = "x"} : f32\n', True),
    "mulhiui_generic": ('    %0 = "tt.mulhiui"(%a, %a) {fastmath = 1 : i32} : (i32, i32) -> i32\n',
                        True),
    # and no clause of arith's
    "sqrt_clause": ("    %0 = tt.precise_sqrt %f fastmath<fast> : f32\n", False),
    "mulhiui_clause": ("    %0 = tt.mulhiui %a, %a overflow<nsw> : i32\n", False),
    # nor properties
    "divf_props": ('    %0 = "tt.precise_divf"(%f, %f) <{fastmath = #arith.fastmath<fast>}> : '
                   "(f32, f32) -> f32\n", False),
}


def test_triton_s_arithmetic_ops_have_no_properties(triton36):
    for name, (body, ok) in FLAGS.items():
        text = _func(body, "%a: i32, %f: f32")
        assert triton36(text) == ok, name
        assert (ttopt_refusal(text) is None) == ok, (name, ttopt_refusal(text))
    out = read_module(_func(FLAGS["mulhiui_attr"][0], "%a: i32, %f: f32"), "k.ttir")
    op = next(o for o in out.op.walk() if o.name == "tt.mulhiui")
    assert dict(op.attributes) and not op.properties


@pytest.fixture(scope="module")
def triton36():
    pytest.importorskip("triton")
    from ttopt.oracle import triton_accepts

    return lambda text: triton_accepts(text, ".ttir" if "#ttg." not in text else ".ttgir").ok


# ------------------------------------------------------------------ the properties added
def _fixture(release: str, name: str) -> str:
    return (FIXTURES / release / name).read_text()


def _mutate(text: str, old: str, new: str) -> str:
    assert text.count(old) >= 1, old
    return text.replace(old, new, 1)


# name -> (fixture of Triton 3.6, text in it, replacement, the refusal or None); a refusal:
# a message both give, or (the op and attribute, the constraint's words after "attribute 'X'
# failed to satisfy constraint: ": ODS's summary of it, which both give)
_MSG = "failed to satisfy constraint:"
_I32 = "32-bit signless integer attribute"
MUTATIONS = {
    "async_wait_no_num": ("sm80/matmul.ttgir", " {num = 2 : i32}", "",
                          "'ttg.async_wait' op requires attribute 'num'"),
    "async_wait_num_i64": ("sm80/matmul.ttgir", "{num = 2 : i32}", "{num = 2 : i64}",
                           ("'ttg.async_wait' op attribute 'num'", _I32)),
    "fp4_no_axis": ("sm80/dot_scaled.ttgir", " {axis = 1 : i32} : tensor<32x32xi8", " : tensor<32x32xi8",
                    "'ttg.fp4_to_fp' op requires attribute 'axis'"),
    "memdesc_trans_no_order": ("sm90/dot_ops.ttgir", " {order = array<i32: 1, 0>} : !ttg.memdesc",
                               " : !ttg.memdesc", "'ttg.memdesc_trans' op requires attribute 'order'"),
    "memdesc_trans_i64_order": ("sm90/dot_ops.ttgir", "{order = array<i32: 1, 0>} : !ttg.memdesc",
                                "{order = array<i64: 1, 0>} : !ttg.memdesc",
                                ("'ttg.memdesc_trans' op attribute 'order'", "i32 dense array attribute")),
    "dot_wait_no_pendings": ("sm90/desc_matmul.ttgir", " {pendings = 1 : i32}", "",
                             "'ttng.warp_group_dot_wait' op requires attribute 'pendings'"),
    "fence_no_bcluster": ("sm90/tensor_desc.ttgir", "ttng.fence_async_shared {bCluster = false}",
                          "ttng.fence_async_shared", "'ttng.fence_async_shared' op requires attribute "
                          "'bCluster'"),
    "fence_int_bcluster": ("sm90/tensor_desc.ttgir", "{bCluster = false}", "{bCluster = 0 : i32}",
                           ("'ttng.fence_async_shared' op attribute 'bCluster'", "bool attribute")),
    "extern_no_pure": ("sm90/math_ops.ttir", "pure = true, symbol", "symbol",
                       "'tt.extern_elementwise' op requires attribute 'pure'"),
    "extern_int_libname": ("sm90/math_ops.ttir", 'libname = ""', "libname = 1 : i32",
                           ("'tt.extern_elementwise' op attribute 'libname'", "string attribute")),
    "asm_no_packed": ("sm80/fp_convert.ttgir", "packed_element = 4 : i32, ", "",
                      "'tt.elementwise_inline_asm' op requires attribute 'packed_element'"),
    "gather_int_layout": ("sm90/scan_reduce.ttgir", "efficient_layout}", "efficient_layout = 1 : i32}",
                          ("'tt.gather' op attribute 'efficient_layout'", "unit attribute")),
    "copy_contiguity_i64": ("sm80/matmul.ttgir", "{contiguity = 8 : i32}", "{contiguity = 8 : i64}",
                            ("'ttg.async_copy_global_to_local' op attribute 'contiguity'", _I32)),
    "copy_volatile_int": ("sm80/matmul.ttgir", "{contiguity = 8 : i32}",
                          "{contiguity = 8 : i32, isVolatile = 1 : i32}",
                          ("'ttg.async_copy_global_to_local' op attribute 'isVolatile'",
                           "bool attribute")),
    "alloc_alignment_i64": ("sm80/dot_scaled.ttgir", "= ttg.local_alloc %a_29 :",
                            "= ttg.local_alloc %a_29 {alignment = 16 : i64} :",
                            ("'ttg.local_alloc' op attribute 'alignment'", _I32)),
    "alloc_alignment": ("sm80/dot_scaled.ttgir", "= ttg.local_alloc %a_29 :",
                        "= ttg.local_alloc %a_29 {alignment = 16 : i32} :", None),
    "wgdot_async_int": ("sm90/warp_specialized.ttgir", "inputPrecision = 0 : i32}",
                        "inputPrecision = 0 : i32, isAsync = 1 : i32}",
                        ("'ttng.warp_group_dot' op attribute 'isAsync'", "bool attribute")),
    "wgdot_max_imprecise": ("sm90/warp_specialized.ttgir", "inputPrecision = 0 : i32}",
                            "inputPrecision = 0 : i32, isAsync = true, maxNumImpreciseAcc = 4 : i32}",
                            None),
    "dot_max_imprecise_i64": ("sm80/dot_scaled.ttgir", "%c = tt.dot %sa_67, %sb_82, %cst_1 :",
                              "%c = tt.dot %sa_67, %sb_82, %cst_1 {maxNumImpreciseAcc = 0 : i64} :",
                              ("'tt.dot' op attribute 'maxNumImpreciseAcc'", _I32)),
    "call_arg_attrs": ("sm90/control_flow.ttgir", "(%z, %z_33) :", "(%z, %z_33) {arg_attrs = 1 : i32} :",
                       ("'tt.call' op attribute 'arg_attrs'", "Array of dictionary attributes")),
    "call_arg_attrs_ok": ("sm90/control_flow.ttgir", "(%z, %z_33) :",
                          "(%z, %z_33) {arg_attrs = [{}, {}], res_attrs = [{}]} :", None),
}


def _words(refusal) -> tuple[str | None, str | None]:
    """(what Triton's message ends with, ttopt's message) of a refusal of MUTATIONS (a
    constraint's: the custom parser's, as every case is in custom form: ``custom op 'NAME'``
    first, as Triton's)."""
    if refusal is None or isinstance(refusal, str):
        return refusal, refusal
    what, words = refusal
    op = what.split("'")[1]
    return f"custom op '{op}' {what} {_MSG} {words}", f"custom op '{op}' {what} {_MSG} {words}"


@pytest.mark.versions
def test_the_properties_added_are_triton_3_6_s(tmp_path):
    """Each fixture of Triton 3.6 changed: a required property left out, or of another kind;
    ttopt refuses it where Triton 3.6 does (which names the constraint; a message of its
    custom parser starts with ``custom op 'NAME'``), and reads what Triton reads."""
    texts = {name: _mutate(_fixture("3.6.0", f), old, new)
             for name, (f, old, new, _) in MUTATIONS.items()}
    triton = _triton((3, 6), tmp_path, texts)
    for name, (_, _, _, refusal) in MUTATIONS.items():
        theirs, ours = _words(refusal)
        got = ttopt_refusal(texts[name], (3, 6))
        if refusal is None:
            assert triton[name] is None and got is None, (name, triton[name], got)
            continue
        assert triton[name] is not None and triton[name][2].endswith(theirs), (name, triton[name])
        assert got is not None and got[2] == ours, (name, got)


def test_the_properties_added_without_triton():
    """ttopt's refusals of the test above (which checks them against Triton 3.6)."""
    for name, (f, old, new, refusal) in MUTATIONS.items():
        got = ttopt_refusal(_mutate(_fixture("3.6.0", f), old, new), (3, 6))
        assert (got[2] if got else None) == _words(refusal)[1], name


def test_the_properties_added_are_properties():
    """Read into ``op.properties`` (the generic form writes them in ``<{..}>``), written
    back where they were."""
    from ttopt.ir.writer import write_module

    text = _fixture("3.6.0", "sm80/matmul.ttgir")
    mod = read_module(text, "k.ttgir")
    wait = next(o for o in mod.op.walk() if o.name == "ttg.async_wait")
    assert "num" in wait.properties and "num" not in wait.attributes
    assert write_module(mod, keep_text=False).count("{num = 2 : i32}") == text.count("{num = 2 : i32}")


# a property only some releases define: elsewhere a plain attribute (any value)
RELEASE_BOUND = {
    # tt.call's arg_attrs: 3.3+
    "call": (_func("    %0 = tt.call @f(%a) {arg_attrs = 1 : i32} : (i32) -> i32\n", "%a: i32")
             .replace("module {\n", "module {\n  tt.func private @f(%a: i32) -> i32 {\n"
                      "    tt.return %a : i32\n  }\n"), frozenset(r for r in RELEASES if r >= (3, 3))),
    # tt.dot's maxNumImpreciseAcc: 2.2+
    "dot": (_func("    %0 = tt.dot %a, %a, %c {allowTF32 = true, maxNumImpreciseAcc = \"s\"} : "
                  "tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>\n",
                  "%a: tensor<16x16xf16>, %c: tensor<16x16xf32>"), frozenset(RELEASES[1:3])),
}


@pytest.mark.versions
@pytest.mark.parametrize("release", [(2, 1), (2, 2), (3, 2), (3, 3)], ids=versions.show)
def test_a_property_binds_in_the_releases_that_define_it(release, tmp_path):
    cases = {n: t for n, (t, _) in RELEASE_BOUND.items() if (n == "dot") == (release < (3, 0))}
    triton = _triton(release, tmp_path, cases)
    for name, text in cases.items():
        refused = release in RELEASE_BOUND[name][1]
        assert (triton[name] is not None) == refused, (name, triton[name])
        assert (ttopt_refusal(text, release) is not None) == refused, name


# the same in each release's own kernels: (fixture, text, replacement, first release that
# refuses it)
RELEASE_FIXTURES = {
    # tt.make_tensor_descriptor's padding: 3.5+
    "padding": ("sm90/tensor_desc.ttir", ", %c1_i64] :", ', %c1_i64] {padding = "x"} :', (3, 5)),
    # ttg.local_alloc's alignment: 3.2+ (3.0 and 3.1: the op has no properties)
    "alignment": ("sm90/dot_ops.ttgir", "local_alloc %18 :", "local_alloc %18 {alignment = 1 : i64} :",
                  (3, 2)),
}


@pytest.mark.versions
@pytest.mark.parametrize("name, release", [("padding", (3, 4)), ("padding", (3, 5)),
                                           ("alignment", (3, 1)), ("alignment", (3, 2))])
def test_a_property_binds_in_the_releases_that_define_it_in_their_kernels(name, release, tmp_path):
    fixture, old, new, first = RELEASE_FIXTURES[name]
    version = next(p.name for p in FIXTURES.iterdir() if p.name.startswith(versions.show(release) + "."))
    text = _mutate(_fixture(version, fixture), old, new)
    triton = _triton(release, tmp_path, {name: text})[name]
    assert (triton is not None) == (release >= first), triton
    got = ttopt_refusal(text, release)
    assert (got is not None) == (release >= first), got
    if got is not None:  # (Triton names the constraint; ttopt says what xDSL's says)
        what = got[2].split(" failed to satisfy constraint: ")[0]
        assert what in triton[2], (triton, got)


def test_a_property_binds_in_the_releases_that_define_it_without_triton():
    call = RELEASE_BOUND["call"][0]
    assert ttopt_refusal(call, (3, 2)) is None
    assert ttopt_refusal(call, (3, 3))[2] == (
        "custom op 'tt.call' 'tt.call' op attribute 'arg_attrs' failed to satisfy constraint: "
        "Array of dictionary attributes")
    dot = RELEASE_BOUND["dot"][0]
    assert ttopt_refusal(dot, (2, 1)) is None and ttopt_refusal(dot, (2, 2)) is not None


# ------------------------------------------------------------------ cache and eviction hints
# TT_CacheModifierAttr: 1 - 6 up to 3.1, 1 - 7 from 3.2; TT_EvictionPolicyAttr: 1 - 3; 3.9
# has neither (its cachePolicy): any value there (a name tt.load does not define)
def _load(release, cache: int, evict: int) -> str:
    if release < (3, 0):  # (2.x: the hints in the attribute dictionary, every one)
        ptr = "!tt.ptr<f32>" if release < (2, 2) else "!tt.ptr<f32, 1>"
        return _func(f"    %v = tt.load %p {{cache = {cache} : i32, evict = {evict} : i32, "
                     "isVolatile = false} : f32\n", f"%p: {ptr}")
    # (3.0 - 3.8: a load with a keyword hint, a sign of those releases: 3.9 takes any value)
    keyword = "    %w = tt.load %p cacheModifier = ca : !tt.ptr<f32>\n" if release < (3, 9) else ""
    return _func(keyword + f'    %v = "tt.load"(%p) <{{cache = {cache} : i32, evict = {evict} : i32, '
                 "operandSegmentSizes = array<i32: 1, 0, 0>}> : (!tt.ptr<f32>) -> f32\n",
                 "%p: !tt.ptr<f32>")


HINTS = [(1, 1), (6, 3), (7, 1), (8, 1), (0, 1), (1, 4), (1, 0)]


def _hints_taken(release, cache: int, evict: int) -> bool:
    if release >= (3, 9):
        return True
    return 1 <= cache <= (7 if release >= (3, 2) else 6) and 1 <= evict <= 3


@pytest.mark.versions
@pytest.mark.parametrize("release", [(2, 1), (2, 3), (3, 0), (3, 1), (3, 2), (3, 6), (3, 8), (3, 9)],
                         ids=versions.show)
def test_load_hints_are_each_release_s_cases(release, tmp_path):
    texts = {f"c{c}e{e}": _load(release, c, e) for c, e in HINTS}
    triton = _triton(release, tmp_path, texts)
    for (c, e), name in zip(HINTS, texts):
        assert (triton[name] is None) == _hints_taken(release, c, e), (name, triton[name])
        assert (ttopt_refusal(texts[name], release) is None) == _hints_taken(release, c, e), name


def test_load_hints_without_triton():
    assert ttopt_refusal(_load((3, 6), 7, 1), (3, 6)) is None
    # (Triton 3.1's and 3.6's words: a case the enum lacks is no value of its kind)
    assert ttopt_refusal(_load((3, 1), 7, 1), (3, 1)) == (
        4, 10, "invalid properties {cache = 7 : i32, evict = 1 : i32, operandSegmentSizes = "
               "array<i32: 1, 0, 0>} for op tt.load: Invalid attribute `cache` in property "
               "conversion: 7 : i32")
    assert ttopt_refusal(_load((3, 6), 1, 4), (3, 6)) == (
        4, 10, "invalid properties {cache = 1 : i32, evict = 4 : i32, operandSegmentSizes = "
               "array<i32: 1, 0, 0>} for op tt.load: Invalid attribute `evict` in property "
               "conversion: 4 : i32")
    assert ttopt_refusal(_load((3, 9), 8, 4), (3, 9)) is None
    # a text of 2.1 - 3.9 (no sign): 3.9 takes any value
    assert ttopt_refusal(_load((3, 9), 8, 4)) is None
    assert ttopt_refusal(_load((3, 6), 8, 4)) is not None  # (3.0 - 3.8: its keyword hint)
    # 7 is a case of 3.2+
    assert ttopt_refusal(_load((2, 1), 7, 1), (2, 1)) is not None
