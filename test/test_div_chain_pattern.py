"""``div-chain`` as an xDSL ``RewritePattern`` (:class:`DivChainPattern`) under xDSL's walker.

The pattern is checked against the pass's former program-order walk (``_reference``: each
``tt.func``'s ``arith.divf`` ops listed in ``func.walk()`` order before any rewrite, erased ones
skipped, :func:`rewrite_division` on each with one divisor-use table per function): the same
text and the same per-function counts, applied by a bare ``PatternRewriteWalker`` over the
module, by the pass through xDSL's ``PassPipeline`` and by ``ttopt.run_pipeline``, on the
corpus files div-chain can touch (a division of a division's result), on the lit and fixture
kernels with divisions and on generated chains.  The work is counted, not timed: linear.
"""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest
from xdsl.passes import ModulePass as XDSLModulePass
from xdsl.passes import PassPipeline
from xdsl.pattern_rewriter import PatternRewriteWalker

import ttopt
import ttopt.passes.div_chain as dc
from conftest import CORPUS, FIXTURES, ROOT, corpus_params, ir_files, small
from ttopt.dialects.arith import DivfOp
from ttopt.errors import TTOptError, TTOptInternalError
from ttopt.ir.reader import read_module
from ttopt.ir.writer import write_module
from ttopt.passes import PASSES, collect_stats
from ttopt.passes.base import ModulePass as TTOptLegacyModulePass
from ttopt.passes.base import default_context, functions
from ttopt.passes.div_chain import DivChain, DivChainPattern, divisor_uses, rewrite_division
from ttopt.pipeline import resolve_passes, run_deep


# ------------------------------------------------------------------ the ways to apply it
def _reference(text: str, name: str = "<input>") -> tuple[str, dict]:
    """The former pass: a hand-written walk per function (no pattern, no walker)."""

    def go():
        mod = read_module(text, name)
        counts: Counter = Counter()
        for func in functions(mod.op):
            uses = divisor_uses(func)
            for div in [op for op in func.walk() if isinstance(op, DivfOp)]:
                if div.parent_block() is None:  # erased as an earlier rewrite's inner division
                    continue
                removed = rewrite_division(div, uses)  # divisions removed: 0, 1 or 2
                if removed:
                    counts[func.sym_name.data] += removed
        return write_module(mod), dict(counts)

    return run_deep(go)


def _bare_walker(text: str, name: str = "<input>") -> tuple[str, int]:
    def go():
        mod = read_module(text, name)
        pattern = DivChainPattern()
        PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(mod.op)
        return write_module(mod), pattern.visits

    return run_deep(go)


def _pass_pipeline(text: str, name: str = "<input>") -> tuple[str, dict]:
    def go():
        mod = read_module(text, name)
        with collect_stats() as stats:
            PassPipeline((DivChain(),)).apply(default_context(), mod.op)
        (s,) = stats
        assert s.name == "div-chain"
        return write_module(mod), dict(s.per_function)

    return run_deep(go)


def _all_agree(text: str, name: str = "<input>") -> tuple[str, dict]:
    ref_text, ref_counts = _reference(text, name)
    walked, _ = _bare_walker(text, name)
    piped, counts = _pass_pipeline(text, name)
    assert walked == ref_text
    assert piped == ref_text
    assert counts == ref_counts
    result = ttopt.run_pipeline(text, ["div-chain"], name)
    assert result.text == ref_text
    assert result.stats[0].to_dict() == {
        "pass": "div-chain", "rewrites": sum(ref_counts.values()), "per_function": ref_counts
    }
    return ref_text, ref_counts


# ------------------------------------------------------------------ the pass is xDSL's kind
def test_div_chain_is_a_plain_xdsl_pass_with_a_pattern():
    cls = PASSES["div-chain"]
    assert cls is DivChain
    assert issubclass(cls, XDSLModulePass) and not issubclass(cls, TTOptLegacyModulePass)
    (resolved,) = resolve_passes(["div-chain"])
    assert type(resolved) is DivChain  # no legacy adapter in between
    assert DivChain().spec().name == "div-chain"
    assert not hasattr(DivChainPattern.match_and_rewrite, "__isabstractmethod__")


# ------------------------------------------------------------------ exact output, pinned
PINNED = """module {
  tt.func public @k(%a: f32, %b: f32, %c: f32, %d: f32, %e: f32, %o: !tt.ptr<f32>) {
    %t_1 = arith.divf %a, %b fastmath<fast> : f32 loc("k.py":1:1)
    %u = arith.divf %t_1, %c fastmath<fast> : f32 loc("k.py":2:2)
    %v = arith.divf %u, %d fastmath<fast> : f32 loc("k.py":3:3)
    %w = arith.divf %a, %e : f32 loc("k.py":4:4)
    %x = arith.divf %c, %w : f32 loc("k.py":5:5)
    tt.store %o, %v : !tt.ptr<f32>
    tt.store %o, %x : !tt.ptr<f32>
    tt.return
  }
}
"""


def test_pinned_rewrite_names_locations_and_flags():
    text, counts = _all_agree(PINNED)
    assert counts == {"k": 3}
    body = [ln.strip() for ln in text.splitlines() if "arith." in ln]
    # (a/b)/c -> a/(b*c), then (a/(b*c))/d -> a/((b*c)*d): the multiplies take the inner
    # divisions' locations and no name, the divisions the outer ones' locations and names;
    # c/(a/e) -> (c*e)/a (two reciprocals, of e and a/e, become one).  Each multiply is
    # placed right after the later of its operands' definitions: b*c, c*e at the start of
    # the body (function arguments; the later insertion first), (b*c)*d right after b*c.
    assert [re.sub(r"%\d+", "%N", ln) for ln in body] == [
        '%N = arith.mulf %c, %e : f32 loc("k.py":4:4)',
        '%N = arith.mulf %b, %c fastmath<fast> : f32 loc("k.py":1:1)',
        '%N = arith.mulf %N, %d fastmath<fast> : f32 loc("k.py":2:2)',
        '%v = arith.divf %a, %N fastmath<fast> : f32 loc("k.py":3:3)',
        '%x = arith.divf %N, %a : f32 loc("k.py":5:5)',
    ]


# ------------------------------------------------------------------ real kernels
def _touchable(path) -> bool:
    """A division that divides, or divides by, another division's result: the only place
    div-chain can rewrite.  (The corpus prints every ``arith.divf`` in custom form.)"""
    text = path.read_text(errors="replace")
    if '"arith.divf"' in text:
        return True
    results = set(re.findall(r"(%[\w$.-]+) = arith\.divf ", text))
    operands = re.findall(r"arith\.divf (%[\w$.-]+), (%[\w$.-]+)", text)
    return any(x in results or y in results for x, y in operands)


def _corpus_touchable():
    return [p for p in ir_files(CORPUS) if _touchable(p)]


@pytest.mark.parametrize(
    "path", corpus_params(_corpus_touchable, what="corpus files with a chain of divisions")
)
def test_same_as_the_former_walk_on_the_corpus(path):
    _all_agree(path.read_text(), str(path))


def _other_version(path) -> bool:
    """A fixture of a Triton release ttopt rejects by design (< 3.3: test/fixtures/versions)."""
    try:
        ttopt.optimize(path.read_text(), [], str(path))
    except TTOptError as e:
        if "ttopt reads Triton 3.3+" in str(e):
            return True
        raise
    return False


def test_same_as_the_former_walk_on_lit_and_fixture_kernels():
    paths = [p for p in ir_files(FIXTURES) + ir_files(ROOT / "test" / "lit" / "passes")
             if "Output" not in p.parts and _touchable(p)]
    assert small("div_chain.ttir") in paths
    rewritten = 0
    for path in paths:
        if _other_version(path):
            continue
        _, counts = _all_agree(path.read_text(), str(path))
        rewritten += sum(counts.values())
    assert rewritten > 0


# ------------------------------------------------------------------ generated chains
TYPES = ["f32", "f32", "f16", "bf16", "f64", "tensor<4xf32>", "tensor<4xf64>"]
FLAGS = ["", "", "", "", " fastmath<fast>", " fastmath<arcp,contract>"]


def _generated(seed: int) -> str:
    """Random divisions and multiplies (chains, shared divisors, constants, splats of
    constants, mixed flags, scf.if / scf.for bodies, several functions)."""
    rnd = random.Random(seed)
    out = ["module {"]
    for f in range(rnd.randint(1, 3)):
        typ = rnd.choice(TYPES)
        elem = typ[7:-1].split("x")[1] if typ.startswith("tensor") else typ
        args = [f"%a{i}" for i in range(5)] + ["%a_1"]
        params = ", ".join(f"{a}: {typ}" for a in args)
        out.append(f"  tt.func public @f{f}({params}, %n: i32, %c: i1) {{")
        out += ["    %c0 = arith.constant 0 : i32", "    %c1 = arith.constant 1 : i32"]
        count = [0]
        fixed = rnd.choice(FLAGS) if rnd.random() < 0.5 else None

        def name():
            count[0] += 1
            r = rnd.random()
            return f"%{count[0]}" if r < 0.15 else f"%q_{count[0]}" if r < 0.3 else f"%v{count[0]}"

        def block(ind, avail, depth, nops):
            avail = list(avail)
            for _ in range(nops):
                r = rnd.random()
                if r < 0.08:
                    v = rnd.choice(["2.000000e+00", "7.680000e+02"])
                    k = name()
                    if typ.startswith("tensor") and rnd.random() < 0.5:
                        s = name()
                        out.append(f"{ind}{s} = arith.constant {v} : {elem}")
                        out.append(f"{ind}{k} = tt.splat {s} : {elem} -> {typ}")
                    elif typ.startswith("tensor"):
                        out.append(f"{ind}{k} = arith.constant dense<{v}> : {typ}")
                    else:
                        out.append(f"{ind}{k} = arith.constant {v} : {typ}")
                    avail.append(k)
                elif r < 0.16 and depth < 2:
                    if r < 0.12:
                        out.append(f"{ind}scf.if %c {{")
                    else:
                        out.append(f"{ind}scf.for %i{count[0]} = %c0 to %n step %c1 : i32 {{")
                        count[0] += 1
                    block(ind + "  ", avail, depth + 1, rnd.randint(1, 6))
                    out.append(f"{ind}}}")
                else:
                    op = "mulf" if rnd.random() < 0.15 else "divf"
                    x = rnd.choice(avail[-3:]) if rnd.random() < 0.6 else rnd.choice(avail)
                    y = rnd.choice(avail[:8]) if rnd.random() < 0.5 else rnd.choice(avail[-3:])
                    v = name()
                    flags = fixed if fixed is not None else rnd.choice(FLAGS)
                    out.append(f"{ind}{v} = arith.{op} {x}, {y}{flags} : {typ}")
                    avail.append(v)

        block("    ", args, 0, rnd.randint(3, 40))
        out += ["    tt.return", "  }"]
    out.append("}")
    return "\n".join(out) + "\n"


def test_same_as_the_former_walk_on_generated_chains():
    rewritten = 0
    for seed in range(120):
        _, counts = _all_agree(_generated(seed), f"gen{seed}")
        rewritten += sum(counts.values())
    assert rewritten > 200  # the generator does make rewritable chains


# ------------------------------------------------------------------ linear work, counted
class _CountingCounter(Counter):
    """A divisor-use table that counts every access (a recount of the table is len() each)."""

    accesses = 0

    def __getitem__(self, key):
        type(self).accesses += 1
        return super().__getitem__(key)

    def __setitem__(self, key, value):
        type(self).accesses += 1
        super().__setitem__(key, value)

    def __iter__(self):
        type(self).accesses += len(self)
        return super().__iter__()

    def items(self):
        type(self).accesses += len(self)
        return super().items()

    def values(self):
        type(self).accesses += len(self)
        return super().values()


def _chain(n: int, functions_: int = 1) -> str:
    """Per function: ``n`` divisions by ``n`` distinct values, each dividing the previous
    quotient: every one is rewritten (``a/b0/b1/... -> a/(b0*b1*...)``)."""
    out = ["module {"]
    for f in range(functions_):
        out.append(f"  tt.func public @k{f}(%a: f32, %b0: f32, %one: f32) {{")
        out += [f"    %b{i} = arith.addf %b{i - 1}, %one : f32" for i in range(1, n)]
        out.append("    %d0 = arith.divf %a, %b0 : f32")
        out += [f"    %d{i} = arith.divf %d{i - 1}, %b{i} : f32" for i in range(1, n)]
        out += ["    tt.return", "  }"]
    return "\n".join(out + ["}"]) + "\n"


def _work(n: int, monkeypatch, functions_: int = 1) -> dict:
    tables = []

    def counting_uses(scope):
        tables.append(scope)
        return _CountingCounter(divisor_uses(scope))

    monkeypatch.setattr(dc, "divisor_uses", counting_uses)
    _CountingCounter.accesses = 0
    text = _chain(n, functions_)

    def go():
        mod = read_module(text)
        pattern = DivChainPattern()
        PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(mod.op)
        left = sum(isinstance(o, DivfOp) for o in mod.op.walk())
        return pattern, left

    pattern, left = run_deep(go)
    return {"visits": pattern.visits, "tables": pattern.tables, "walks": len(tables),
            "accesses": _CountingCounter.accesses, "left": left}


def test_work_is_linear_in_the_number_of_divisions(monkeypatch):
    small_, large = _work(200, monkeypatch), _work(1600, monkeypatch)
    for n, w in ((200, small_), (1600, large)):
        assert w["left"] == 1  # the chain collapsed to one division
        assert w["tables"] == w["walks"] == 1  # the divisor uses: counted once per function
        assert w["visits"] == n  # each original division matched once, the new ones never
        assert w["accesses"] <= 20 * n  # a constant number of table reads/writes per division
    assert large["accesses"] <= 8 * small_["accesses"] + 100  # x8 divisions: x8 work, not x64
    several = _work(100, monkeypatch, functions_=5)
    assert several["tables"] == several["walks"] == 5
    assert several["visits"] == 500 and several["left"] == 5


def test_deep_nesting_looks_each_block_up_once():
    depth = 300
    lines = ["module {", "  tt.func public @k(%a: f32, %b: f32, %c: f32, %p: i1) {"]
    for i in range(depth):
        lines += ["  " * i + "    scf.if %p {", "  " * i + f"      %t{i} = arith.divf %a, %b : f32",
                  "  " * i + f"      %u{i} = arith.divf %t{i}, %c : f32"]
    lines += ["  " * i + "    }" for i in reversed(range(depth))]
    text = "\n".join(lines + ["    tt.return", "  }", "}"]) + "\n"
    _, counts = _all_agree(text)
    assert counts == {}  # c is a divisor in every block: rcp(c) is shared, nothing saved

    def go():
        mod = read_module(text)
        pattern = DivChainPattern()
        PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(mod.op)
        return pattern

    pattern = run_deep(go)
    assert pattern.visits == 2 * depth and len(pattern._block_func) == depth + 1  # noqa: SLF001


# ------------------------------------------------------------------ errors
def test_an_error_in_the_pattern_is_an_internal_error_without_the_module(monkeypatch):
    def boom(*_args):
        raise KeyError("boom")

    monkeypatch.setattr(dc, "saves_reciprocal", boom)
    text = small("div_chain.ttir").read_text()
    with pytest.raises(TTOptInternalError) as info:
        ttopt.run_pipeline(text, ["div-chain"], "k.ttir")
    assert str(info.value) == "k.ttir: internal error: in pass 'div-chain': KeyError: 'boom'"
    # neither the message nor the traceback (--debug) holds the module
    trace = info.value.traceback_text
    assert "tt.func" not in trace and "builtin.module" not in trace
    assert "while div-chain rewrote arith.divf at loc(" in trace


def test_the_pass_still_returns_its_statistics():
    def go():
        return DivChain().run(read_module(small("div_chain.ttir").read_text()).op)

    stats = run_deep(go)
    assert stats.to_dict() == {
        "pass": "div-chain", "rewrites": 1, "per_function": {"div_chain_kernel": 1}
    }
