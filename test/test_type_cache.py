"""The reader shares parsed types between the modules of one process (by their text), but
a text that names an alias means what that module's alias definitions say."""

from ttopt.ir.reader import clear_shared_types, read_module

KERNEL = """#blocked = #ttg.blocked<{sizePerThread = [SPT], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%p: !tt.ptr<f32>) {
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    %s = tt.splat %p : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>, #blocked>
    %a = tt.addptr %s, %r : tensor<128x!tt.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %x = tt.load %a : tensor<128x!tt.ptr<f32>, #blocked>
    tt.store %a, %x : tensor<128x!tt.ptr<f32>, #blocked>
    tt.return
  }
}
"""


def _load_type(module):
    return next(op for op in module.op.walk() if op.name == "tt.load").results[0].type


def _layout(t) -> str:
    return str(t.encoding)


def test_the_same_type_text_under_another_alias_definition_is_another_type():
    clear_shared_types()
    one = read_module(KERNEL.replace("SPT", "1"), "one.ttgir")
    four = read_module(KERNEL.replace("SPT", "4"), "four.ttgir")
    assert "sizePerThread = [1]" in _layout(_load_type(one))
    assert "sizePerThread = [4]" in _layout(_load_type(four))
    again = read_module(KERNEL.replace("SPT", "1"), "again.ttgir")
    assert _load_type(again) is _load_type(one)  # shared: same text, same definitions


def test_a_type_alias_makes_every_text_depend_on_the_definitions():
    clear_shared_types()
    text = """!t = SCALAR
module {
  tt.func public @k(%p: !tt.ptr<!t>) {
    %x = tt.load %p : !tt.ptr<!t>
    tt.store %p, %x : !tt.ptr<!t>
    tt.return
  }
}
"""
    f32 = read_module(text.replace("SCALAR", "f32"), "a.ttir")
    i32 = read_module(text.replace("SCALAR", "i32"), "b.ttir")
    assert str(_load_type(f32)) != str(_load_type(i32))


def test_types_without_aliases_are_shared_between_modules():
    clear_shared_types()
    plain = KERNEL.split("\n", 1)[1].replace(", #blocked", "")
    a, b = read_module(plain, "a.ttir"), read_module(plain, "b.ttir")
    assert _load_type(a) is _load_type(b)
