"""The load rewrites of issue #14 (redundant-load's value numbering, implied masks, joins
across scf.if/scf.while and disjoint stores; hoist-load), beyond the lit tests:

* the analyses they rest on, checked against brute force (mask implication between
  comparisons, disjointness of offset intervals mod 2**w) and on edge cases (constants by
  bits, commutativity, deep chains);
* every lit case run on the CPU interpreter with the scalar arguments forced to the values
  that matter (masks cutting the tensor, both branches of an if, loops that run zero times),
  bit for bit -- `--validate` in the lit RUN lines draws them at random;
* planted bugs: each safety condition, removed, makes some lit case compute something else,
  which the interpreter catches (so the negative lit cases are not vacuous);
* the corpus: the kernels the new rules fire on validate bit for bit, and the number of
  rewrites per kind over the whole corpus is what the sweep of this issue measured.
"""

from __future__ import annotations

import itertools
import random
import re

import pytest

import ttopt
from conftest import ROOT, corpus_files, small
from ttopt.analysis import addresses as addr_mod
from ttopt.analysis import masks as mask_mod
from ttopt.analysis.addresses import Access, Linear, disjoint
from ttopt.analysis.value_numbering import ValueNumbering
from ttopt.interp import compare
from ttopt.ir.reader import read_module
from ttopt.passes import hoist_load as hoist_mod
from ttopt.pipeline import split_input_file

LIT = ROOT / "test" / "lit" / "passes"


def chunks(name: str) -> list[str]:
    return [c for _, c in split_input_file((LIT / name).read_text())]


def func_chunk(name: str, func: str) -> str:
    found = [c for c in chunks(name) if f"@{func}(" in c]
    assert len(found) == 1, f"{name}: no chunk defines @{func}"
    return found[0]


def scalar_args(text: str) -> set[str]:
    return set(re.findall(r"%(\w+): i(?:1|32|64)\b", text))


# ---------------------------------------------------------------------------- value numbering
def _values(src: str) -> dict:
    module = read_module(src)
    return {r.name_hint: r for op in module.op.walk() for r in op.results if r.name_hint}, module


CONSTANTS = """module {
  tt.func public @k(%a: i32, %b: i32, %x: f32, %y: f32) {
    %z1 = arith.constant dense<0.000000e+00> : tensor<4xf32>
    %z2 = arith.constant dense<0.000000e+00> : tensor<4xf32>
    %nz = arith.constant dense<-0.000000e+00> : tensor<4xf32>
    %n1 = arith.constant dense<0x7FC00000> : tensor<4xf32>
    %n2 = arith.constant dense<0x7FC00000> : tensor<4xf32>
    %n3 = arith.constant dense<0x7FC00001> : tensor<4xf32>
    %f0 = arith.constant 0.000000e+00 : f32
    %s0 = tt.splat %f0 : f32 -> tensor<4xf32>
    %i1 = arith.addi %a, %b : i32
    %i2 = arith.addi %b, %a : i32
    %i3 = arith.subi %a, %b : i32
    %i4 = arith.subi %b, %a : i32
    %f1 = arith.addf %x, %y : f32
    %f2 = arith.addf %y, %x : f32
    %f3 = arith.addf %x, %y fastmath<none> : f32
    %f4 = arith.addf %x, %y fastmath<fast> : f32
    %c1 = arith.cmpf olt, %x, %y : f32
    %c2 = arith.cmpf olt, %x, %y fastmath<none> : f32
    %p1 = ub.poison : f32
    %p2 = ub.poison : f32
    tt.return
  }
}"""


def test_value_numbering_constants_by_bits_and_commutativity():
    v, _ = _values(CONSTANTS)
    n = ValueNumbering()
    same = lambda a, b: n.number(v[a]) == n.number(v[b])  # noqa: E731
    assert same("z1", "z2") and same("z1", "s0")  # a splat of a scalar constant is the dense splat
    assert not same("z1", "nz")  # -0.0 is not 0.0
    assert same("n1", "n2") and not same("n1", "n3")  # NaN payloads count
    assert same("i1", "i2") and not same("i3", "i4")  # integer addi commutes, subi does not
    assert not same("f1", "f2")  # float ops do not (two NaNs: either payload)
    assert same("f1", "f3") and not same("f1", "f4")  # fastmath<none> is no flag; fast is one
    assert same("c1", "c2")
    assert not same("p1", "p2")  # two poisons need not be one value
    plain = ValueNumbering(pure_ops=False)
    assert plain.number(v["z1"]) != plain.number(v["z2"])


def test_value_numbering_deep_chain_does_not_recurse():
    lines = ["    %v0 = arith.addi %a, %a : i32"] + [
        f"    %v{i} = arith.addi %v{i - 1}, %a : i32" for i in range(1, 6000)
    ] + ["    %w0 = arith.addi %a, %a : i32"] + [
        f"    %w{i} = arith.addi %a, %w{i - 1} : i32" for i in range(1, 6000)
    ]
    src = "module {\n  tt.func public @k(%a: i32) {\n" + "\n".join(lines) + "\n    tt.return\n  }\n}\n"
    v, _ = _values(src)
    n = ValueNumbering()
    assert n.number(v["v5999"]) == n.number(v["w5999"])
    assert n.number(v["v5999"]) != n.number(v["w5998"])


# ---------------------------------------------------------------------------- masks
_PREDICATES = [mask_mod.EQ, mask_mod.SLT, mask_mod.SLE, mask_mod.SGT, mask_mod.SGE,
               mask_mod.ULT, mask_mod.ULE, mask_mod.UGT, mask_mod.UGE, mask_mod.NE]


def _holds(pred: int, v: int, c: int, width: int) -> bool:
    mask = (1 << width) - 1
    if pred in (mask_mod.ULT, mask_mod.ULE, mask_mod.UGT, mask_mod.UGE):
        v, c = v & mask, c & mask
    return mask_mod._holds(pred, v, c)


def test_constant_bound_implication_is_sound_and_complete_on_4_bits():
    """``v P c  =>  v Q d`` for every 4-bit v, decided by ``_const_implies``: never True when
    a v breaks it (sound), and True whenever it holds for predicates of one signedness."""
    width = 4
    values = range(-8, 8)
    checked = proven = 0
    for p, q in itertools.product(_PREDICATES[:-1], _PREDICATES):
        for c, d in itertools.product(values, values):
            got = mask_mod._const_implies(p, c, q, d, width)
            truth = all(_holds(q, v, d, width) for v in values if _holds(p, v, c, width))
            assert not got or truth, (p, c, q, d)
            same_kind = (p in mask_mod._SIGNED and q in mask_mod._SIGNED | {mask_mod.EQ, mask_mod.NE}) or (
                p in mask_mod._UNSIGNED and q in mask_mod._UNSIGNED | {mask_mod.EQ, mask_mod.NE}
            ) or p == mask_mod.EQ
            if same_kind:
                assert got == truth, (p, c, q, d)
            checked += 1
            proven += got
    assert checked == 9 * 10 * 256 and proven > 1000


def test_mask_rules_on_ir():
    src = """module {
  tt.func public @k(%n: i32, %k: i32) {
    %b64 = arith.constant dense<64> : tensor<8x16xi32>
    %b128 = arith.constant dense<128> : tensor<8x16xi32>
    %t = arith.constant dense<true> : tensor<8x16xi1>
    %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %re = tt.expand_dims %r {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
    %rb = tt.broadcast %re : tensor<1x16xi32> -> tensor<8x16xi32>
    %x = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %xe = tt.expand_dims %x {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
    %ns = tt.splat %n : i32 -> tensor<8x1xi32>
    %xm = arith.cmpi slt, %xe, %ns : tensor<8x1xi32>
    %xm2 = arith.cmpi slt, %xe, %ns : tensor<8x1xi32>
    %xb = tt.broadcast %xm : tensor<8x1xi1> -> tensor<8x16xi1>
    %xb2 = tt.broadcast %xm2 : tensor<8x1xi1> -> tensor<8x16xi1>
    %r64 = arith.cmpi slt, %rb, %b64 : tensor<8x16xi32>
    %r128 = arith.cmpi slt, %rb, %b128 : tensor<8x16xi32>
    %both = arith.andi %r64, %xb2 : tensor<8x16xi1>
    %either = arith.ori %r64, %xb : tensor<8x16xi1>
    %all = arith.andi %r128, %xb : tensor<8x16xi1>
    tt.return
  }
}"""
    v, _ = _values(src)
    m = mask_mod.MaskImplication(ValueNumbering())
    yes = [("both", "xb"), ("both", "r128"), ("both", "all"), ("r64", "r128"), ("xb", "either"),
           ("r64", "either"), ("both", "either"), ("xb2", "xb"), ("all", "t")]
    no = [("xb", "both"), ("r128", "r64"), ("either", "xb"), ("t", "xb"), ("all", "both")]
    for b, a in yes:
        assert m.implies(v[b], v[a]), (b, a)
    for b, a in no:
        assert not m.implies(v[b], v[a]), (b, a)
    assert m.implies(None, v["t"]) and not m.implies(None, v["xb"]) and m.implies(v["xb"], None)


_NAMES = {mask_mod.EQ: "eq", mask_mod.NE: "ne", mask_mod.SLT: "slt", mask_mod.SLE: "sle",
          mask_mod.SGT: "sgt", mask_mod.SGE: "sge", mask_mod.ULT: "ult", mask_mod.ULE: "ule",
          mask_mod.UGT: "ugt", mask_mod.UGE: "uge"}


def test_mask_sets_of_values_are_exact_on_8_bits():
    """Random masks of comparisons of one ``i8`` value against constants, joined by
    ``andi``/``ori`` (and constant masks): wherever both masks are such sets
    (``MaskImplication.lanes``), ``implies`` is exactly "for every value, b => a"
    (enumerated); never True where it fails (sound), everywhere."""
    rng = random.Random(27)
    lines, masks, truth = [], [], {}
    consts = {}

    def const(c: int) -> str:
        if c not in consts:
            consts[c] = f"%c{len(consts)}"
            lines.append(f"    {consts[c]} = arith.constant {c} : i8")
        return consts[c]

    values = range(-128, 128)
    for i in range(120):
        name = f"%m{i}"
        if i < 40 or rng.random() < 0.3:
            p, c = rng.choice(_PREDICATES), rng.randint(-128, 127)
            if rng.random() < 0.2:  # (the constant on the left)
                lines.append(f"    {name} = arith.cmpi {_NAMES[mask_mod._MIRROR[p]]}, {const(c)}, %v : i8")
            else:
                lines.append(f"    {name} = arith.cmpi {_NAMES[p]}, %v, {const(c)} : i8")
            truth[name] = {v for v in values if _holds(p, v, c, 8)}
        elif rng.random() < 0.05:
            lines.append(f"    {name} = arith.constant {rng.choice(['true', 'false'])}")
            truth[name] = set(values) if "true" in lines[-1] else set()
        else:
            x, y = rng.sample(masks, 2)
            op = rng.choice(["andi", "ori"])
            lines.append(f"    {name} = arith.{op} {x}, {y} : i1")
            truth[name] = truth[x] & truth[y] if op == "andi" else truth[x] | truth[y]
        masks.append(name)
    src = ("module {\n  tt.func public @k(%v: i8, %w: i8) {\n" + "\n".join(lines)
           + "\n    tt.return\n  }\n}\n")
    v, _ = _values(src)
    m = mask_mod.MaskImplication(ValueNumbering())
    exact = proven = 0
    for b, a in itertools.product(masks, masks):
        got = m.implies(v[b[1:]], v[a[1:]])
        holds = truth[b] <= truth[a]
        assert not got or holds, (b, a)
        if m.lanes(v[b[1:]]) is not None and m.lanes(v[a[1:]]) is not None:
            assert got == holds, (b, a)
            exact += 1
        proven += got
    assert exact > 5000 and proven > 1000, (exact, proven)


def test_mask_sets_fall_back_to_the_rules():
    """Masks of two different values, or with more than MAX_INTERVALS pieces, are no such
    sets: the rules answer (here: the one over ``%w`` is implied by itself and its ``andi``)."""
    eqs = [f"    %e{i} = arith.cmpi eq, %v, %c{i} : i8" for i in range(12)]
    ors = [f"    %o{i} = arith.ori %o{i - 1}, %e{i} : i1" for i in range(1, 12)]
    src = ("module {\n  tt.func public @k(%v: i8, %w: i8) {\n"
           + "\n".join(f"    %c{i} = arith.constant {3 * i} : i8" for i in range(12)) + "\n"
           + "\n".join(eqs) + "\n    %o0 = arith.ori %e0, %e0 : i1\n" + "\n".join(ors) + "\n"
           + "    %w1 = arith.cmpi slt, %w, %c1 : i8\n    %both = arith.andi %w1, %e1 : i1\n"
           + "    tt.return\n  }\n}\n")
    v, _ = _values(src)
    m = mask_mod.MaskImplication(ValueNumbering())
    assert m.lanes(v["o5"]) is not None and m.lanes(v["o11"]) is None  # (12 pieces)
    assert m.lanes(v["both"]) is None and m.lanes(v["w1"]) is not None
    assert m.implies(v["e3"], v["o11"]) and not m.implies(v["o11"], v["e3"])
    assert m.implies(v["both"], v["w1"]) and m.implies(v["both"], v["e1"])
    assert not m.implies(v["w1"], v["e1"])


def test_a_chain_of_thousands_of_or_masks_is_answered_without_search(monkeypatch):
    """``m_i = m_(i-1) | (r < i)`` over 3,000 loads: every question answered from the sets,
    no rule searched (it took a search of depth 12 per question)."""
    from ttopt.passes import redundant_load as rl  # noqa: F401

    calls = {"rules": 0}
    rules = mask_mod.MaskImplication._rules

    def counted(self, b, a, depth):
        calls["rules"] += 1
        return rules(self, b, a, depth)

    monkeypatch.setattr(mask_mod.MaskImplication, "_rules", counted)
    t, p, it = "tensor<128xi1>", "tensor<128x!tt.ptr<f32>>", "tensor<128xi32>"
    out = ["module {", "  tt.func public @k(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>) {",
           f"    %r = tt.make_range {{end = 128 : i32, start = 0 : i32}} : {it}",
           f"    %s = tt.splat %p : !tt.ptr<f32> -> {p}",
           f"    %a = tt.addptr %s, %r : {p}, {it}",
           f"    %c0 = arith.constant dense<0> : {it}",
           f"    %m0 = arith.cmpi slt, %r, %c0 : {it}"]
    for i in range(1, 3000):
        out += [f"    %c{i} = arith.constant dense<{i}> : {it}",
                f"    %k{i} = arith.cmpi slt, %r, %c{i} : {it}",
                f"    %m{i} = arith.ori %m{i - 1}, %k{i} : {t}",
                f"    %l{i} = tt.load %a, %m{i} : {p}"]
    out += ["    tt.return", "  }", "}", ""]
    result = ttopt.run_pipeline("\n".join(out), ["redundant-load"], jobs=1)
    assert calls["rules"] == 0
    assert result.stats[0].total == 0  # (each mask is wider than the one before: no merge)


# ---------------------------------------------------------------------------- addresses
def test_disjoint_never_claims_a_collision_mod_2_to_the_w():
    """Random offset intervals of width 8 (and the same uniform part): whenever ``disjoint``
    says so, no lane value of one equals a lane value of the other mod 2**8; and it does
    say so often (the check is not vacuous)."""
    rng = random.Random(14)
    width, said = 8, 0
    for _ in range(4000):
        lo1 = rng.randint(-150, 150)
        lo2 = lo1 + rng.randint(-100, 100)
        a = Linear(((7, 3),), lo1, lo1 + rng.randint(0, 40), width)
        b = Linear(((7, 3),), lo2, lo2 + rng.randint(0, 40), width)
        if disjoint(Access(1, a, 4), Access(1, b, 4)):
            said += 1
            lanes_a = {x % 256 for x in range(a.lo, a.hi + 1)}
            assert not any(y % 256 in lanes_a for y in range(b.lo, b.hi + 1)), (a, b)
    assert said > 300
    base = Linear((), 0, 15, 32)
    assert not disjoint(Access(1, base, 4), Access(2, Linear((), 16, 31, 32), 4))  # other base
    assert not disjoint(Access(1, base, 4), Access(1, Linear(((5, 1),), 16, 31, 32), 4))  # other U
    assert not disjoint(Access(1, base, 4), Access(1, Linear((), 16, 31, 64), 4))  # other width
    assert not disjoint(Access(1, base, 4), Access(1, Linear((), 15, 31, 32), 4))  # they meet
    assert disjoint(Access(1, base, 4), Access(1, None, 4)) is False  # p[0] is in [0, 15]
    assert disjoint(Access(1, Linear((), 1, 15, 32), 4), Access(1, None, 4))


# ---------------------------------------------------------------------------- forced arguments
FORCED = {
    "n": [0, 1, 5, 37, 63, 64, 100, 127, 128, 300],
    "xnumel": [0, 3, 400],
    "k": [-3, 0, 4, 70],
    "c": [0, 1],
    "d": [0, 1],
}


def _cases(text: str):
    present = [k for k in FORCED if k in scalar_args(text)]
    if not present:
        yield {}
        return
    for combo in itertools.product(*(FORCED[k] for k in present)):
        yield dict(zip(present, combo))


LIT_FILES = [
    ("redundant_load.ttir", "redundant-load"),
    ("redundant_load_numbering.ttir", "redundant-load"),
    ("redundant_load_masks.ttir", "redundant-load"),
    ("redundant_load_joins.ttir", "redundant-load"),
    ("redundant_load_stores.ttir", "redundant-load"),
    ("redundant_load_bound.ttir", "redundant-load"),
    ("hoist_load.ttir", "hoist-load"),
    ("hoist_load.ttir", "hoist-load,redundant-load"),
]


@pytest.mark.parametrize("name,passes", LIT_FILES, ids=[f"{n}:{p}" for n, p in LIT_FILES])
def test_lit_cases_compute_the_same_for_the_arguments_that_matter(name, passes):
    changed = 0
    for chunk in chunks(name):
        out = ttopt.optimize(chunk, passes.split(","), name)
        if out == ttopt.optimize(chunk, [], name):
            continue
        changed += 1
        for args in _cases(chunk):
            res = compare(chunk, out, seeds=(0,), pids=[(0, 0, 0), (1, 0, 0)], num_programs=(2, 1, 1), args=args)
            assert res.ok, f"{name} {args}: {res.message}"
    assert changed >= 2


# ---------------------------------------------------------------------------- linear in the loads
def one_address_many_masks(n: int, chained: bool) -> str:
    """One function: ``n`` loads of one address, each under a mask of its own, no store
    between (the fuzzer's shape).  ``chained``: each mask is the one before ``|`` a new
    compare, so that an implication check searches deep; else float compares that no rule
    relates.  No load implies another's mask: nothing is merged."""
    lines = [
        "module {",
        "  tt.func public @k(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>) {",
        "    %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>",
        "    %s = tt.splat %p : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>",
        "    %a = tt.addptr %s, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>",
        "    %qs = tt.splat %q : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>",
        "    %b = tt.addptr %qs, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>",
        "    %v = tt.load %b : tensor<16x!tt.ptr<f32>>",
        "    %m0 = arith.cmpi slt, %r, %r : tensor<16xi32>",
    ]
    for i in range(1, n + 1):
        if chained:
            lines += [
                f"    %c{i} = arith.constant dense<{i}> : tensor<16xi32>",
                f"    %k{i} = arith.cmpi slt, %r, %c{i} : tensor<16xi32>",
                f"    %m{i} = arith.ori %m{i - 1}, %k{i} : tensor<16xi1>",
            ]
        else:
            lines += [
                f"    %c{i} = arith.constant dense<{i}.5> : tensor<16xf32>",
                f"    %m{i} = arith.cmpf olt, %v, %c{i} : tensor<16xf32>",
            ]
        lines.append(f"    %l{i} = tt.load %a, %m{i} : tensor<16x!tt.ptr<f32>>")
    return "\n".join(lines + ["    tt.return", "  }", "}", ""])


@pytest.mark.parametrize("chained", [False, True], ids=["unrelated_masks", "or_chain_masks"])
def test_redundant_load_checks_grow_linearly_with_the_loads_of_one_address(monkeypatch, chained):
    """n loads of one address under n masks: each load was compared with every earlier one,
    n**2/2 mask implication checks (4000 loads: 88 s).  With at most MAX_ENTRIES entries per
    address, at most 2 * MAX_ENTRIES checks per load (its mask against an entry's, and back
    where that holds), and the rule evaluations behind them (the memo's misses) grow as the
    loads do.  Counted, not timed."""
    from collections import Counter

    from ttopt.passes import redundant_load as rl

    counts: Counter = Counter()
    implies, rules = mask_mod.MaskImplication.implies, mask_mod.MaskImplication._rules

    def counted_implies(self, b, a):
        counts["implies"] += 1
        return implies(self, b, a)

    def counted_rules(self, b, a, depth):
        counts["rules"] += 1
        return rules(self, b, a, depth)

    monkeypatch.setattr(mask_mod.MaskImplication, "implies", counted_implies)
    monkeypatch.setattr(mask_mod.MaskImplication, "_rules", counted_rules)
    seen = {}
    for n in (150, 300):
        counts.clear()
        result = ttopt.run_pipeline(one_address_many_masks(n, chained), ["redundant-load"], jobs=1)
        assert result.stats[0].total == 0
        seen[n] = dict(counts)
    for key in ("implies", "rules"):  # (before this bound: 4x, 89,700 checks for 300 loads)
        assert seen[300][key] <= 2.1 * seen[150][key], (key, seen)
    for n, found in seen.items():
        assert n <= found["implies"] <= 2 * rl.MAX_ENTRIES * n, seen  # (each load checked)


# ---------------------------------------------------------------------------- planted bugs
def _caught(text: str, passes: list[str], args_list: list[dict]) -> bool:
    out = ttopt.optimize(text, passes)
    return any(not compare(text, out, seeds=(0,), pids=[(0, 0, 0)], args=a).ok for a in args_list)


WRAP = """module {
  tt.func public @k(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>) {
    %big = arith.constant dense<1073741824> : tensor<4xi32>
    %min = arith.constant dense<-2147483648> : tensor<4xi32>
    %f4 = arith.constant dense<1.000000e+00> : tensor<4xf32>
    %r4 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %w = arith.muli %r4, %big : tensor<4xi32>
    %s4 = tt.splat %p : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %d = tt.addptr %s4, %w : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    %e = tt.addptr %s4, %min : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    %x6 = tt.load %d : tensor<4x!tt.ptr<f32>>
    tt.store %e, %f4 : tensor<4x!tt.ptr<f32>>
    %y6 = tt.load %d : tensor<4x!tt.ptr<f32>>
    %t8 = arith.addf %x6, %y6 : tensor<4xf32>
    %q4 = tt.splat %q : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %qd = tt.addptr %q4, %r4 : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    tt.store %qd, %t8 : tensor<4x!tt.ptr<f32>>
    tt.return
  }
}"""


def test_planted_bug_disjointness_without_the_span_bound(monkeypatch):
    """``r * 2**30`` reaches 2**31, which wraps to -2**31: the store to p[-2**31] hits lane 2.
    The real pass keeps both loads; without the span bound the merge is wrong."""
    assert ttopt.optimize(WRAP, ["redundant-load"]).count("tt.load ") == 2
    assert not _caught(WRAP, ["redundant-load"], [{}])

    def no_span(a, b):
        oa, ob = a.offset, b.offset
        return a.base == b.base and oa is not None and ob is not None and oa.terms == ob.terms and (
            oa.hi < ob.lo or ob.hi < oa.lo
        )

    monkeypatch.setattr(addr_mod, "disjoint", no_span)
    assert ttopt.optimize(WRAP, ["redundant-load"]).count("tt.load ") == 1
    assert _caught(WRAP, ["redundant-load"], [{}])


def test_planted_bug_mask_implication_that_always_holds(monkeypatch):
    """A wider mask after a narrower one (`r < 128` after `r < 64`) must stay a load."""
    text = func_chunk("redundant_load_masks.ttir", "not_implied")
    assert not _caught(text, ["redundant-load"], [{"k": 0}])
    monkeypatch.setattr(mask_mod.MaskImplication, "implies", lambda self, b, a: True)
    assert _caught(text, ["redundant-load"], [{"k": 0}])


def test_planted_bug_hoisting_past_a_store_of_the_same_bytes(monkeypatch):
    """A loop that stores p[0..15] and loads p[0..15]: the load must stay in the loop."""
    text = func_chunk("hoist_load.ttir", "disjoint_store_in_loop").replace(
        "%b = tt.addptr %s, %r16", "%b = tt.addptr %s, %r"
    )
    assert "tt.load %a : tensor<16x!tt.ptr<f32>>" in ttopt.optimize(text, ["hoist-load"]).split("scf.for")[1]
    assert not _caught(text, ["hoist-load"], [{}])
    monkeypatch.setattr(hoist_mod.HoistLoad, "_stores_in", lambda self, loop: [])
    assert _caught(text, ["hoist-load"], [{}])


def test_planted_bug_join_with_a_store_after_one_branch_load(monkeypatch):
    """if_negatives' third if stores after the then-branch load: no join.  A pass that
    ignored stores (every writer let the loads through) would join, and compute something
    else when the store hits %a."""
    from ttopt.passes import redundant_load as rl

    text = func_chunk("redundant_load_joins.ttir", "if_negatives").replace("tt.store %q, %f", "tt.store %p, %f")
    cases = [{"c": 1, "n": 64}, {"c": 0, "n": 64}]
    assert not _caught(text, ["redundant-load"], cases)
    monkeypatch.setattr(rl.RedundantLoad, "_past_writer", lambda self, op, available: None)
    assert _caught(text, ["redundant-load"], cases)


# ---------------------------------------------------------------------------- corpus
@pytest.mark.parametrize("name", ["looped_softmax.ttir", "looped_softmax.ttgir"])
def test_looped_softmax_other_differs_becomes_a_select(name):
    """The corpus kernel where the new rules fire: one address loaded twice with the same
    mask, `other` -inf then 0.0: the second load is a select of the first.  Bit for bit."""
    path = small(name)
    text = path.read_text()
    result = ttopt.run_pipeline(text, ["hoist-load", "redundant-load"], str(path))
    assert [s.total for s in result.stats] == [0, 1]
    assert result.stats[1].per_kind == {"implied-mask": 1}
    assert text.count("tt.load ") - result.text.count("tt.load ") == 1
    assert result.text.count("arith.select") == text.count("arith.select") + 1
    for n_cols in (16, 496, 512, 1008, 1536):
        res = compare(text, result.text, seeds=(0, 1), args={"n_cols": n_cols})
        assert res.ok, res.message


@pytest.mark.corpus
def test_corpus_fire_counts_and_bit_exact():
    """Over the whole corpus, `hoist-load,redundant-load` (the exact passes' order): the
    rewrites per kind are those measured for issue #14 (hoist-load: none -- Inductor hoists
    loop-invariant loads itself; redundant-load: the 6 identical pairs of the first version
    and looped_softmax's select, in its two files), and every changed file validates bit
    for bit."""
    from collections import Counter

    kinds: Counter = Counter()
    hoisted, changed, failures = 0, [], []
    for path in corpus_files():
        text = path.read_text()
        if text.count("tt.load ") < 2 and "scf.for" not in text:
            continue
        result = ttopt.run_pipeline(text, ["hoist-load", "redundant-load"], str(path))
        hoisted += result.stats[0].total
        kinds.update(result.stats[1].per_kind)
        if result.changed:
            changed.append(path)
            res = compare(text, result.text, seeds=2)
            if not res.ok:
                failures.append(f"{path}: {res.message}")
    assert failures == []
    assert hoisted == 0
    assert dict(kinds) == {"identical": 6, "implied-mask": 2}
    assert len(changed) == 8
