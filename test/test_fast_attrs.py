"""The attributes ttopt builds without xDSL's checks equal what xDSL's parser builds.

The reader builds the common types (``_fast_type``: ranked tensors of scalars and scalar
pointers, with a layout alias or none; scalar pointers) and the common locations
(``file:line:col``, ``"name"(#loc)``, ``callsite``: alias definitions, and inline
``loc(...)`` of function arguments and generic ops) and the attribute dictionaries of
integers and booleans (``{tt.divisibility = 16 : i32}``, ``<{axis = 0 : i32}>``) itself, with ``xdsl_compat.unchecked``:
no parameter constraints, no ``verify``.  That is right only where the text's shape already
guarantees what the checks ask.  Here every module is read twice, once with the fast types
off (every type, inline location and dictionary through xDSL's parser), and every type,
location, property and attribute (of ops and of block arguments) of the two must be equal; and each unchecked attribute,
rebuilt with xDSL's checks (``cls.new``), must pass them and come out equal.  Block argument lists read without
tokenizing (``FAST_BLOCK_ARGS``) must give the same arguments: types, locations, names.  The ops the
fast path makes without xDSL's constructor (``xdsl_compat.fast_create``) must equal what
``create`` makes: class, instance fields, operand definitions and every value's use list in
order.
"""

import pathlib

import pytest
from xdsl.dialects.builtin import (ArrayAttr, CallSiteLoc, FileLineColLoc, IntAttr, NameLoc,
                                   StringAttr, TensorType)
from xdsl.ir import Data, ParametrizedAttribute

from conftest import FIXTURES, corpus_files, corpus_params, file_params, fixture_files, ir_files
from ttopt.dialects import constraints
from ttopt.ir import fast_ops, reader
from ttopt.xdsl_compat import (call_site_loc, file_line_col, name_loc, new_token, unchecked,
                               unchecked_data)


def _attrs_of(module):
    """Every type and location of ``module`` in walk order (results, operands, block
    arguments, locations), as (where, attribute)."""
    out = []
    for op in module.op.walk():
        out.append((f"{op.name} loc", op.location))
        out += [(f"{op.name} property {k}", v) for k, v in op.properties.items()]
        out += [(f"{op.name} attribute {k}", v) for k, v in op.attributes.items()]
        out += [(f"{op.name} result", r.type) for r in op.results]
        out += [(f"{op.name} operand", o.type) for o in op.operands]
        for region in op.regions:
            for block in region.blocks:
                out += [(f"{op.name} block arg", a.type) for a in block.args]
                out += [(f"{op.name} block arg loc", a.location) for a in block.args]
                out += [(f"{op.name} block arg name", a.name_hint) for a in block.args]
    return out


def _structure_of(module):
    """Each op's class, instance fields, and every value's use list in its order (user,
    operand index): what building an op sets up besides its attributes."""
    ops = list(module.op.walk())
    index = {id(op): i for i, op in enumerate(ops)}
    out = []
    for op in ops:
        values = list(op.results) + [a for r in op.regions for b in r.blocks for a in b.args]
        out.append((type(op), sorted(vars(op)), [
            [(index[id(u.operation)], u.index) for u in v.uses] for v in values
        ], [index.get(id(o.owner)) for o in op.operands], op.parent is not None))
    return out


def _checked(attr):
    """``attr`` rebuilt through xDSL's checking constructors, all the way down."""
    if isinstance(attr, ParametrizedAttribute):
        return type(attr).new([_checked(p) for p in attr.parameters])
    if isinstance(attr, ArrayAttr):
        return ArrayAttr([_checked(a) for a in attr.data])
    if isinstance(attr, Data):
        return type(attr).new(attr.data)
    return attr


def _compare(path: pathlib.Path, monkeypatch) -> int:
    text = path.read_text()
    reader.clear_shared_types()
    fast_module = reader.read_module(text, str(path))
    fast = _attrs_of(fast_module)
    monkeypatch.setattr(reader, "FAST_TYPES", False)
    monkeypatch.setattr(reader, "FAST_LOCATIONS", False)
    monkeypatch.setattr(reader, "FAST_DICTS", False)
    monkeypatch.setattr(reader, "FAST_BLOCK_ARGS", False)
    monkeypatch.setattr(fast_ops, "FAST_CREATE", False)
    monkeypatch.setattr(fast_ops, "SPLAT_UNCHECKED", False)
    monkeypatch.setattr(constraints, "UNCHECKED", False)
    reader.clear_shared_types()
    slow_module = reader.read_module(text, str(path))
    slow = _attrs_of(slow_module)
    monkeypatch.setattr(reader, "FAST_TYPES", True)
    monkeypatch.setattr(reader, "FAST_LOCATIONS", True)
    monkeypatch.setattr(reader, "FAST_DICTS", True)
    monkeypatch.setattr(reader, "FAST_BLOCK_ARGS", True)
    monkeypatch.setattr(fast_ops, "FAST_CREATE", True)
    monkeypatch.setattr(fast_ops, "SPLAT_UNCHECKED", True)
    monkeypatch.setattr(constraints, "UNCHECKED", True)
    reader.clear_shared_types()
    assert _structure_of(fast_module) == _structure_of(slow_module), path.name
    assert len(fast) == len(slow)
    for (where, a), (_, b) in zip(fast, slow):
        assert a == b, f"{path.name}: {where}: {a} != {b}"
        assert _checked(a) == a, f"{path.name}: {where}: {a} does not pass xDSL's checks"
    return len(fast)


@pytest.mark.parametrize("path", file_params(fixture_files(), what="fixtures"))
def test_fast_types_and_locations_equal_xdsls_on_the_fixtures(path, monkeypatch):
    assert _compare(path, monkeypatch) > 0


@pytest.mark.parametrize("path", file_params(
    ir_files(FIXTURES / "versions")[::7], what="version fixtures"))
def test_fast_types_and_locations_equal_xdsls_in_every_release(path, monkeypatch):
    assert _compare(path, monkeypatch) > 0


@pytest.mark.parametrize("path", corpus_params(lambda: corpus_files()[::25], what="corpus"))
def test_fast_types_and_locations_equal_xdsls_on_the_corpus(path, monkeypatch):
    assert _compare(path, monkeypatch) > 0


def test_fast_type_takes_only_its_shapes():
    aliases = {"#blocked": StringAttr("layout")}
    slice_text = "#ttg.slice<{dim = 0, parent = #blocked}>"
    encodings = {slice_text: StringAttr("slice")}
    assert reader._fast_type("tensor<4x8xf32>", aliases, encodings) == TensorType(
        reader.SCALAR_TYPES["f32"], [4, 8])
    assert reader._fast_type("tensor<4xf32, #blocked>", aliases, encodings).encoding == StringAttr("layout")
    assert reader._fast_type(f"tensor<4xf32, {slice_text}>", aliases, encodings).encoding == StringAttr("slice")
    assert reader._fast_type("!tt.ptr<f16, 3>", aliases, encodings).address_space == IntAttr(3)
    for other in (
        "tensor<4xf32, #undefined>",  # (the parser reports the undefined alias)
        "tensor<?xf32>", "tensor<f32>", "tensor<04xf32>", "tensor<4x!tt.ptr<tensor<4xf32>>>",
        "tensor<4xf8E4M3FN>", "!tt.ptr<!tt.ptr<f32>>", "tensor<4xf32, #ttg.blocked<{}>>",
        "tensor<4xf32,#blocked>", "tensor<1234567890xf32>",
        # a layout written out that the module has not read yet (the parser reads it), or
        # one spelled otherwise
        "tensor<4xf32, #ttg.slice<{dim = 1, parent = #blocked}>>",
        "tensor<4xf32, #ttg.slice<{dim = 0,parent = #blocked}>>",
        f"tensor<4xf32, {slice_text}, {slice_text}>",
    ):
        assert reader._fast_type(other, aliases, encodings) is None, other


def test_unchecked_equals_the_checked_constructor():
    name, one = StringAttr("k.py"), IntAttr(1)
    assert unchecked(FileLineColLoc, name, one, one) == FileLineColLoc(name, one, one)
    two = IntAttr(2)
    made = file_line_col(name, one, two)  # (the reader's implicit locations)
    assert made == FileLineColLoc(name, one, two) and made.parameters == (name, one, two)
    assert _checked(made) == made and made != file_line_col(name, two, one)
    assert unchecked_data(IntAttr, 7) == IntAttr(7)
    with pytest.raises(ValueError):  # (every parameter, in order, and no more)
        unchecked(FileLineColLoc, name, one)
    here, there = file_line_col(name, one, two), file_line_col(name, two, one)
    named = name_loc(StringAttr("x"), here)  # (the location aliases' one-step constructors)
    assert named == NameLoc(StringAttr("x"), here) and named.parameters == (StringAttr("x"), here)
    assert _checked(named) == named and named != name_loc(StringAttr("x"), there)
    site = call_site_loc(here, there)
    assert site == CallSiteLoc(here, there) and site.parameters == (here, there)
    assert _checked(site) == site and site != call_site_loc(there, here)


def test_new_token_equals_the_dataclasses():
    """The reader's lexer makes its tokens with xdsl_compat.new_token: the same fields, equal
    and hashing alike, as Token(kind, Span(start, end, input)) (a field xDSL adds to Span
    with a default would make them differ here)."""
    from xdsl.utils.lexer import Input, Span, Token
    from xdsl.utils.mlir_lexer import MLIRTokenKind

    source = Input("%x = tt.splat %p", "k.ttir")
    made = new_token(MLIRTokenKind.PERCENT_IDENT, 0, 2, source)
    built = Token(MLIRTokenKind.PERCENT_IDENT, Span(0, 2, source))
    assert made == built and vars(made).keys() == vars(built).keys()
    assert vars(made.span) == vars(built.span) and hash(made.span) == hash(built.span)
    assert made.text == "%x" and made.span.get_location() == built.span.get_location()
    assert made != new_token(MLIRTokenKind.PERCENT_IDENT, 0, 3, source)


def test_fast_dict_takes_only_integers_booleans_and_plain_strings():
    i32 = reader.SCALAR_TYPES["i32"]
    got = reader._fast_dict('tt.divisibility = 16 : i32, "ttg.num-warps" = 4 : i32, noinline = false, '
                            'ttg.target = "cuda:90", e = "", u = "\u00e9{}<>"')
    assert list(got) == ["tt.divisibility", "ttg.num-warps", "noinline", "ttg.target", "e", "u"]
    assert got["tt.divisibility"].value.data == 16 and got["tt.divisibility"].type == i32
    assert got["noinline"].type == reader.IntegerType(1) and got["noinline"].value.data == 0
    assert got["ttg.target"] == StringAttr("cuda:90") and got["e"] == StringAttr("")
    assert got["u"] == StringAttr("\u00e9{}<>")
    for other in ("", "a = 1 : i32, a = 2 : i32", "a = 1 : i32, ", "a = 1 : i1", "a = 1.0 : f32",
                  "a = 300 : i8", "a", "a-b = 1 : i32", "a = 1 : i32,b = 2 : i32",
                  "\u00e9 = 1 : i32", '"a\x0bb" = 1 : i32', 'a = "\\n"', 'a = "x\x0cy"',
                  'a = "x', 'a = "x"y"', "a = 's'"):
        assert reader._fast_dict(other) is None, other


def test_dictionaries_with_strings_read_as_xdsl_reads_them(monkeypatch):
    """Module attributes with a string (``ttg.target = "cuda:90"``), read fast and by xDSL's
    parser: equal dictionaries; a string with an escape or a brace inside is read too."""
    text = ('module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", '
            't.x = "a{b}<c>", t.y = "q\\"z"} {\n  tt.func public @k() {\n    tt.return\n  }\n}\n')
    # (a module's attributes are dialect-prefixed: MLIR's ModuleOp::verify)
    got = []
    for fast in (True, False):
        monkeypatch.setattr(reader, "FAST_DICTS", fast)
        got.append(dict(reader.read_module(text, "k.ttir").op.attributes))
    assert got[0] == got[1] and got[0]["t.x"] == StringAttr("a{b}<c>") and got[0]["t.y"] == StringAttr('q"z')


def test_fast_locations_refuse_what_the_lexer_refuses():
    """A \\v (or \\f) inside a location string is an error at that string, as the lexer
    (and MLIR) says, with the fast path on: never built into a location."""
    import ttopt

    text = ('#loc = loc("k.py":1:1)\nmodule {\n  tt.func public @k(%a: i32 loc("a\x0bb"(#loc))) {\n'
            "    tt.return loc(#loc)\n  } loc(#loc)\n} loc(#loc)\n")
    for bad in (text, text.replace("\x0b", "\x0c")):
        with pytest.raises(ttopt.TTOptError, match="string literal") as info:
            reader.read_module(bad, "k.ttir")
        assert (info.value.line, info.value.col) == (3, 35)


def test_unchecked_splats_equal_the_checked_ones(monkeypatch):
    """``dense<X> : T`` splats built without the constructor's checks equal the checked ones
    (and xDSL's ``from_list`` of the same element), for every element kind, in range or not."""
    from xdsl.dialects.builtin import (BFloat16Type, DenseIntOrFPElementsAttr, Float16Type,
                                       Float32Type, Float64Type, IntegerType, Signedness)

    elems = [IntegerType(w) for w in (1, 8, 16, 32, 64)]
    elems += [IntegerType(8, Signedness.UNSIGNED), IntegerType(32, Signedness.SIGNED)]
    elems += [Float16Type(), BFloat16Type(), Float32Type(), Float64Type()]
    literals = ["0", "1", "-1", "127", "128", "255", "256", "-129", "65535", "2147483648",
                "-9223372036854775808", "18446744073709551616", "true", "false", "0.5",
                "-0.000000e+00", "1.000000e+00", "0x7FC00000", "0xFF800000", "0x3C00", "0x7F",
                "-0x1", "0x1FFFFFFFFFFFFFFFF", "1e400"]
    built = 0
    for elem in elems:
        for shape in ([], [4], [2, 3]):
            t = TensorType(elem, shape)
            for lit in literals:
                fast = fast_ops.splat_attr.__wrapped__(t, lit)
                monkeypatch.setattr(fast_ops, "SPLAT_UNCHECKED", False)
                slow = fast_ops.splat_attr.__wrapped__(t, lit)
                monkeypatch.setattr(fast_ops, "SPLAT_UNCHECKED", True)
                assert fast == slow, (t, lit)
                if fast is not None:
                    built += 1
                    assert _checked(fast) == fast
                    if isinstance(elem, IntegerType) and lit.lstrip("-").isdigit():
                        n = max(1, len(shape) and shape[0] * (shape[-1] if len(shape) > 1 else 1))
                        ref = DenseIntOrFPElementsAttr.from_list(t, [int(lit)] * n)
                        assert fast == ref, (t, lit)
    assert built > 150


def test_splat_scalars_equal_xdsls():
    """Value numbering keys a splat constant by its first element, built without xDSL's
    checks (``value_numbering._first_element``): for every element kind and bit pattern it
    equals, hashes as and is of the class of what xDSL's ``iter_attrs`` builds, and passes
    the checks when rebuilt with them; the kinds it does not take (bf16, i24, index, f8...)
    and the patterns xDSL refuses are left to xDSL, with the same outcome."""
    import struct

    from xdsl.dialects.builtin import (BFloat16Type, BytesAttr, DenseIntOrFPElementsAttr,
                                       Float8E4M3FNType, Float16Type, Float32Type,
                                       Float64Type, IndexType, IntegerType, Signedness)

    from ttopt.analysis import value_numbering as vn

    def patterns(size):
        fixed = [bytes([b]) * size for b in (0x00, 0x01, 0x02, 0x7F, 0x80, 0xFE, 0xFF)]
        fixed += [(1 << k).to_bytes(size, "little") for k in (0, 8 * size - 2, 8 * size - 1)]
        fixed += [((1 << 8 * size) - 1 - (1 << k)).to_bytes(size, "little") for k in (0, 8 * size - 1)]
        floats = {2: "e", 4: "f", 8: "d"}.get(size)
        if floats:  # (-0.0, inf, -inf, a denormal, the largest, NaNs: quiet, signalling, payload)
            fixed += [struct.pack("<" + floats, x) for x in
                      (-0.0, float("inf"), -float("inf"), 0.1, -2.5, 65504.0 if size == 2 else 1e300 if size == 8 else 3e38)]
            bits = 8 * size
            exp = {2: 5, 4: 8, 8: 11}[size]
            top = ((1 << exp) - 1) << (bits - 1 - exp)
            for payload in (1 << (bits - 2 - exp), 1, 3, (1 << (bits - 2 - exp)) | 5):
                fixed += [(top | payload).to_bytes(size, "little"),
                          (top | payload | 1 << (bits - 1)).to_bytes(size, "little")]
        return fixed

    fast_kinds = [IntegerType(w, s) for w in (1, 8, 16, 32, 64) for s in Signedness]
    fast_kinds += [Float16Type(), Float32Type(), Float64Type()]
    slow_kinds = [BFloat16Type(), IntegerType(24), IndexType(), Float8E4M3FNType()]
    compared = refused = 0
    for elem in fast_kinds + slow_kinds:
        size = {1: 1}.get(getattr(elem, "bitwidth", 64), None) or elem.compile_time_size
        for one in patterns(size):
            attr = DenseIntOrFPElementsAttr(TensorType(elem, [3]), BytesAttr(one * 3))
            try:
                want = next(iter(attr.iter_attrs()))
            except Exception as e:  # (xDSL refuses it: so must the fast path, through xDSL)
                assert vn._first_element(elem, one) is None, (elem, one)
                with pytest.raises(type(e)):
                    vn._splat_scalar(attr)
                refused += 1
                continue
            got = vn._splat_scalar(attr)
            assert type(got) is type(want) and got == want and hash(got) == hash(want), (elem, one)
            assert got.parameters == want.parameters and _checked(got) == got, (elem, one)
            fast = vn._first_element(elem, one)
            assert (fast is not None) == (elem in fast_kinds), (elem, one)  # (the fast path taken)
            compared += 1
    assert compared > 300 and refused > 0
    for elem in (IntegerType(32), Float32Type()):  # (bytes of another length than an element's)
        attr = DenseIntOrFPElementsAttr(TensorType(elem, [1]), BytesAttr(b"\0" * 5))
        assert vn._first_element(elem, b"\0" * 5) is None
        with pytest.raises(ValueError):
            next(iter(attr.iter_attrs()))
        with pytest.raises(ValueError):
            vn._splat_scalar(attr)


@pytest.mark.parametrize("literal,typ,outcome", [
    ("1e5", "tensor<4xf32>", "error"),  # MLIR's float literal has a point
    ("1.0e5", "tensor<4xf16>", 0x7C00),  # past f16's largest: rounds to inf, as MLIR does
    ("-65520.0", "tensor<4xf16>", 0xFC00),
    ("65504.0", "tensor<4xf16>", 0x7BFF),
    ("256", "tensor<4xi8>", "error"),  # out of range: an input error, not an internal one
    ("-129", "tensor<4xi8>", "error"),
    ("255", "tensor<4xi8>", 0xFF),  # (xDSL and MLIR take an i8's unsigned spelling)
    ("1", "tensor<4xi128>", "error"),  # (xDSL cannot pack i128: ttopt's limit, an input error)
    ("0", "tensor<4xf32>", "error"),  # (no float literal: MLIR refuses it; test_literals.py)
    ("-0x1", "tensor<4xf32>", "error"),
    ("true", "tensor<4xf32>", "error"),
    ("0x3F800000", "tensor<4xf32>", 0x3F800000),
])
def test_dense_splats_fast_and_full_agree(literal, typ, outcome, monkeypatch):
    """The fast path takes a splat only as the full parser would, and both say what MLIR
    says of odd literals."""
    from ttopt.errors import TTOptError, TTOptInternalError

    text = (f"module {{\n  tt.func @k() {{\n    %c = arith.constant dense<{literal}> : {typ}\n"
            "    tt.return\n  }\n}\n")
    results = []
    for fast in (True, False):
        monkeypatch.setattr(reader, "FAST_TYPES", fast)
        monkeypatch.setattr(fast_ops, "FAST_CREATE", fast)
        monkeypatch.setattr(fast_ops, "SPLAT_UNCHECKED", fast)
        if not fast:  # the whole line through xDSL's parser
            monkeypatch.setattr(reader, "try_fast_op", lambda parser, start: None)
        reader.clear_shared_types()
        try:
            module = reader.read_module(text, "k.ttir")
        except TTOptInternalError:
            results.append("internal")
            continue
        except TTOptError:
            results.append("error")
            continue
        const = next(op for op in module.op.walk() if op.name == "arith.constant")
        data = const.properties["value"].data.data
        size = len(data) // 4
        results.append(int.from_bytes(data[:size], "little"))
    assert results == [outcome, outcome]


_REDUCE = """#loc = loc("k.py":1:0)
#loc1 = loc("k.py":2:5)
module {
  tt.func public @k(%x: tensor<4xf32> loc("x"(#loc))) {
    %r = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(ARGS):
      %s = arith.addf %a, %b : f32 loc(#loc1)
      tt.reduce.return %s : f32 loc(#loc1)
    }) : (tensor<4xf32>) -> f32 loc(#loc1)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
"""


@pytest.mark.parametrize("args", [
    "%a: f32 loc(callsite(#loc at #loc1)), %b: f32 loc(callsite(#loc at #loc1))",
    "%a: f32, %b: f32",  # (no location: MLIR's file:line:col of the name)
    '%a: f32 loc("n"(#loc1)), %b: f32',
    "%a: f32 loc(#loc1), %b: f32 loc(#loc)",
    "%a : f32, %b: f32",  # (other spacing: xDSL's parser)
    "%a: f32 loc(unknown), %b: f32 loc(fused[#loc, #loc1])",
    "%a: f32, %a: f32",  # redefined: the same error both ways
    "%a: f32, %b: f64",  # mistyped: the verifier's error both ways
    "%a: f32 loc(#nowhere), %b: f32",  # an undefined alias: the same error
    "%a: f32 loc(callsite(#loc at #loc1)), %b: f32 loc(callsite(#loc at #loc1)) loc(#loc)",
])
def test_fast_block_arguments_equal_xdsls(args, monkeypatch):
    from ttopt import TTOptError

    text = _REDUCE.replace("ARGS", args)
    got = []
    for fast in (True, False):
        monkeypatch.setattr(reader, "FAST_BLOCK_ARGS", fast)
        reader.clear_shared_types()
        try:
            module = reader.read_module(text, "k.ttir")
        except TTOptError as e:
            got.append(("error", str(e)))
            continue
        from ttopt.ir.writer import write_module

        got.append((_attrs_of(module), write_module(module)))
    assert got[0] == got[1]
    if got[0][0] != "error":
        assert got[0][1] == text  # (written back as it was read)
