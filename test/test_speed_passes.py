"""The passes' cheap pre-checks change no output.

Each pass first asks whether anything in a function could be rewritten, without its full
analysis: ``redundant-load`` keeps only the loads that may share an address with another
(:meth:`RedundantLoad._paired_loads`: one shape key and one pointer root), and walks a
function only if there are some; ``redundant-reduce`` walks a function only if two of its
reductions have one shallow key and equivalent combiners
(:meth:`RedundantReduce.may_rewrite`); ``div-chain`` only if a division has an operand that
is a single-use division (:func:`div_chain.has_chain`).  Every pre-check must be a necessary
condition of a rewrite.  Checked here two ways:

* the outputs and statistics with the pre-checks and with them switched off (every load
  walked, every function walked) are identical on the fixture kernels, the lit inputs, a
  corpus sample and hand-made cases, under several pass options;
* the invariants they rest on, directly: two pointers with one value number have one root
  (or one is ``_ANY``), and two values with one number in ``redundant-reduce``'s numbering
  have one :func:`shape_of`.
"""

from __future__ import annotations

import collections

import pytest

import ttopt
from conftest import HAVE_CORPUS, ROOT, corpus_files, fixture_files
from ttopt.passes import div_chain, redundant_load, redundant_reduce
from ttopt.passes.base import functions, holds_two, ops_of
from ttopt.passes.div_chain import DivChain
from ttopt.passes.redundant_load import _ANY, RedundantLoad, eligible, pointer_root, value_shape
from ttopt.passes.redundant_reduce import RedundantReduce, shape_of
from ttopt.pipeline import split_input_file

LIT_INPUTS = sorted(p for ext in ("ttir", "ttgir") for p in (ROOT / "test" / "lit" / "passes").glob(f"*.{ext}"))

PIPELINES = {
    "default": lambda: [RedundantLoad(), RedundantReduce(), DivChain()],
    "respect-hints": lambda: [RedundantLoad(respect_hints=True), RedundantReduce()],
    "plain": lambda: [
        RedundantLoad(value_numbering=False, implied_masks=False, disjoint_stores=False, joins=False),
        RedundantReduce(),
    ],
    "no-joins": lambda: [RedundantLoad(joins=False, disjoint_stores=False)],
}


def _all_eligible(self, func, numbering):
    return {load for load in ops_of(func, (redundant_load.LoadOp,)) if eligible(load)}


def _no_prechecks(m) -> None:
    m.setattr(RedundantLoad, "_paired_loads", _all_eligible)
    m.setattr(RedundantReduce, "may_rewrite", lambda self, func: True)
    m.setattr(div_chain, "has_chain", lambda scope: True)


def _run(text: str, name: str, pipeline: str):
    try:
        r = ttopt.run_pipeline(text, PIPELINES[pipeline](), name, jobs=1)
    except ttopt.TTOptError as e:
        return ("error", str(e))
    kinds = [dict(getattr(s, "per_kind", {})) for s in r.stats]
    return (r.text, [(s.name, dict(s.per_function)) for s in r.stats], kinds)


def _check(texts, monkeypatch, pipeline: str) -> int:
    """Both ways on every text; the number of texts some pass rewrote."""
    fast = [_run(t, n, pipeline) for n, t in texts]
    with monkeypatch.context() as m:
        _no_prechecks(m)
        full = [_run(t, n, pipeline) for n, t in texts]
    for (name, _), a, b in zip(texts, fast, full):
        assert a == b, name
    return sum(a[0] != "error" and any(sum(per.values()) for _, per in a[1]) for a in fast)


@pytest.mark.parametrize("pipeline", sorted(PIPELINES))
def test_prechecks_change_no_fixture_output(pipeline, monkeypatch):
    texts = [(str(p), p.read_text()) for p in fixture_files()]
    assert len(texts) >= 20
    rewritten = _check(texts, monkeypatch, pipeline)
    if pipeline == "default":
        assert rewritten >= 2


@pytest.mark.parametrize("pipeline", sorted(PIPELINES))
def test_prechecks_change_no_lit_output(pipeline, monkeypatch):
    texts = [(f"{p}:{line}", chunk) for p in LIT_INPUTS for line, chunk in split_input_file(p.read_text())]
    assert len(texts) >= 100
    assert _check(texts, monkeypatch, pipeline) >= 20


@pytest.mark.corpus
@pytest.mark.skipif(not HAVE_CORPUS, reason="no corpus")
def test_prechecks_change_no_corpus_output(monkeypatch):
    texts = [(str(p), p.read_text()) for p in corpus_files()[::60]]
    _check(texts, monkeypatch, "default")


# ------------------------------------------------------------------ hand-made cases
HEAD = "module {\n  tt.func public @k(%pp: !tt.ptr<!tt.ptr<f32>>, %q: !tt.ptr<f32>, %n: i32, %c: i1) {\n"
TAIL = "    tt.return\n  }\n}\n"

CASES = {
    # pointers loaded from memory: the second pair has one address only once the first
    # pair is merged (their roots are loads: _ANY)
    "loaded-pointers": """
    %p1 = tt.load %pp : !tt.ptr<!tt.ptr<f32>>
    %p2 = tt.load %pp evictionPolicy = evict_first : !tt.ptr<!tt.ptr<f32>>
    %a = tt.load %p1 : !tt.ptr<f32>
    %b = tt.load %p2 : !tt.ptr<f32>
    %s = arith.addf %a, %b : f32
    tt.store %q, %s : !tt.ptr<f32>
""",
    # the same through tt.addptr of a loaded pointer
    "loaded-base": """
    %p1 = tt.load %pp : !tt.ptr<!tt.ptr<f32>>
    %p2 = tt.load %pp : !tt.ptr<!tt.ptr<f32>>
    %r1 = tt.addptr %p1, %n : !tt.ptr<f32>, i32
    %r2 = tt.addptr %p2, %n : !tt.ptr<f32>, i32
    %a = tt.load %r1 : !tt.ptr<f32>
    %b = tt.load %r2 : !tt.ptr<f32>
    %s = arith.addf %a, %b : f32
    tt.store %q, %s : !tt.ptr<f32>
""",
    # one root, other offsets: paired, not merged
    "one-root": """
    %r1 = tt.addptr %q, %n : !tt.ptr<f32>, i32
    %a = tt.load %r1 : !tt.ptr<f32>
    %b = tt.load %q : !tt.ptr<f32>
    %s = arith.addf %a, %b : f32
    tt.store %q, %s : !tt.ptr<f32>
""",
    # a pointer out of an scf.if (rebuilt by a join): its root is _ANY
    "if-pointer": """
    %p = scf.if %c -> (!tt.ptr<f32>) {
      scf.yield %q : !tt.ptr<f32>
    } else {
      %r = tt.addptr %q, %n : !tt.ptr<f32>, i32
      scf.yield %r : !tt.ptr<f32>
    }
    %a = tt.load %p : !tt.ptr<f32>
    %b = tt.load %p evictionPolicy = evict_last : !tt.ptr<f32>
    %s = arith.addf %a, %b : f32
    tt.store %q, %s : !tt.ptr<f32>
""",
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_prechecks_hand_made(case, monkeypatch):
    text = HEAD + CASES[case] + TAIL
    rewritten = _check([(case, text)], monkeypatch, "default")
    assert rewritten == (case != "one-root")
    out = ttopt.run_pipeline(text, ["redundant-load"], case, jobs=1)
    expected = {"loaded-pointers": 2, "loaded-base": 2, "one-root": 0, "if-pointer": 1}[case]
    assert out.stats[0].total == expected


WHILE = """module {
  tt.func public @k(%q: !tt.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %r = scf.while (%i = %c0) : (i32) -> i32 {
      %p = tt.addptr %q, %i : !tt.ptr<f32>, i32
      %a = tt.load %p : !tt.ptr<f32>
      %t = arith.cmpi slt, %i, %n : i32
      scf.condition(%t) %i : i32
    } do {
    ^bb0(%j: i32):
      %p2 = tt.addptr %q, %j : !tt.ptr<f32>, i32
      %b = tt.load %p2 : !tt.ptr<f32>
      tt.store %p2, %b : !tt.ptr<f32>
      %c1 = arith.constant 1 : i32
      %k = arith.addi %j, %c1 : i32
      scf.yield %k : i32
    }
    tt.return
  }
}
"""


def test_prechecks_while_forwarding(monkeypatch):
    """A load in an scf.while's ``after`` region merged with one of ``before`` (the
    ``after`` argument is known equal to what scf.condition forwards)."""
    assert _check([("while", WHILE)], monkeypatch, "default") == 1


REDUCE = """module {
  tt.func public @k(%x: tensor<128xf32>, %y: tensor<128xf32>, %z: tensor<128xf32>, %m: tensor<128xi1>, %q: !tt.ptr<f32>) {
    %zero = arith.constant dense<0.0> : tensor<128xf32>
    %a = arith.addf %x, %y : tensor<128xf32>
    %b = arith.mulf %a, %z : tensor<128xf32>
    %c = arith.subf %b, %x : tensor<128xf32>
    %d = arith.select %m, %c, %zero : tensor<128xi1>, tensor<128xf32>
    %s = "tt.reduce"(%d) <{axis = 0 : i32}> ({
    ^bb0(%l: f32, %r: f32):
      %t = arith.addf %l, %r : f32
      tt.reduce.return %t : f32
    }) : (tensor<128xf32>) -> f32
    %a2 = arith.addf %y, %x : tensor<128xf32>
    %b2 = arith.mulf %z, %a2 : tensor<128xf32>
    %c2 = arith.subf %b2, %x : tensor<128xf32>
    %d2 = arith.select %m, %c2, %zero : tensor<128xi1>, tensor<128xf32>
    %s2 = "tt.reduce"(%d2) <{axis = 0 : i32}> ({
    ^bb0(%l: f32, %r: f32):
      %t = arith.addf %r, %l : f32
      tt.reduce.return %t : f32
    }) : (tensor<128xf32>) -> f32
    %e = arith.addf %s, %s2 : f32
    tt.store %q, %e : !tt.ptr<f32>
    tt.return
  }
}
"""


def test_prechecks_commuted_reductions(monkeypatch):
    """Operands equal only through commuted ops deeper than the shallow key looks, and
    commuted combiners: merged."""
    assert _check([("reduce", REDUCE)], monkeypatch, "default") == 1
    assert ttopt.run_pipeline(REDUCE, ["redundant-reduce"], "r", jobs=1).stats[0].total == 1
    other = REDUCE.replace("%c2 = arith.subf %b2, %x", "%c2 = arith.subf %b2, %y")
    assert _check([("reduce-other", other)], monkeypatch, "default") == 0


# ------------------------------------------------------------------ the invariants
def _modules():
    """The fixture kernels, a corpus sample, the lit inputs and the cases above, read."""
    from ttopt.ir.reader import read_module

    files = fixture_files() + (corpus_files()[::97] if HAVE_CORPUS else [])
    texts = [(str(p), p.read_text()) for p in files]
    texts += [(f"{p}:{line}", chunk) for p in LIT_INPUTS for line, chunk in split_input_file(p.read_text())]
    texts += [(name, HEAD + body + TAIL) for name, body in CASES.items()] + [("while", WHILE), ("reduce", REDUCE)]
    for name, text in texts:
        try:
            yield read_module(text, name)
        except ttopt.TTOptError:  # (the lit inputs' invalid ones)
            continue


def test_one_number_one_root_one_shape():
    """Two values with one value number have one root and one shape (or one of them is
    _ANY): every op result and block argument of the inputs, with and without
    ``value-numbering``."""
    from ttopt.analysis.value_numbering import ValueNumbering

    shared = 0
    for module in _modules():
        for func in functions(module.op):
            values = [v for op in func.walk() for v in op.results]
            values += [a for op in func.walk() for r in op.regions for b in r.blocks for a in b.args]
            for pure_ops in (True, False):
                numbering = ValueNumbering(pure_ops=pure_ops)
                by_number = collections.defaultdict(list)
                for v in values:
                    by_number[numbering.number(v)].append(v)
                for same in by_number.values():
                    if len(same) < 2:
                        continue
                    shared += 1
                    roots = {pointer_root(v, numbering) for v in same}
                    assert len(roots - {_ANY}) <= 1, same
                    for depth in (1, 2, 4, 6):
                        shapes = {value_shape(v, depth, numbering) for v in same}
                        assert len(shapes - {_ANY}) <= 1, same
    assert shared >= 20  # (values computed twice do occur: the test sees some)


def test_one_number_one_shape():
    """Every two values with one number in redundant-reduce's numbering have one shape, at
    every depth (the values: every op result of every function)."""
    pairs = 0
    for module in _modules():
        for func in functions(module.op):
            numbering = redundant_reduce.ValueNumbering()
            by_key = collections.defaultdict(list)
            for op in func.walk():
                for v in op.results:
                    by_key[numbering.key(v)].append(v)
            for values in by_key.values():
                if len(values) < 2:
                    continue
                pairs += 1
                for depth in (1, 2, 3, 5):
                    shapes = {shape_of(v, depth) for v in values}
                    assert len(shapes) == 1, values
    assert pairs >= 10  # (values numbered alike do occur: the test sees some)


def test_ops_of_finds_what_holds_two_counts():
    for module in _modules():
        for func in functions(module.op):
            for classes in ((redundant_load.LoadOp,), redundant_reduce._REDUCTIONS, (div_chain.DivfOp,)):
                found = ops_of(func, classes)
                assert len(found) == sum(isinstance(op, classes) for op in func.walk())
                assert (len(found) >= 2) == holds_two(func, classes)


def test_constant_effects_answer_as_get_effects():
    """``may_write`` and ``is_pure`` (which answer from a per-class table where an op's
    effect traits are constant) and :class:`WriteCache` give what xDSL's ``get_effects``
    gives, for every op of the inputs."""
    from xdsl.traits import MemoryEffect, RecursiveMemoryEffect, get_effects

    from ttopt.analysis.effects import _WRITE_LIKE, WriteCache, constant_effects, is_pure, may_write

    def generic_may_write(op) -> bool:
        traits = op.get_traits_of_type(MemoryEffect)
        if not traits:
            return True
        for trait in traits:
            if isinstance(trait, RecursiveMemoryEffect):
                if any(generic_may_write(c) for r in op.regions for b in r.blocks for c in b.ops):
                    return True
                continue
            effects = trait.get_effects(op)
            if effects is None or any(e.kind in _WRITE_LIKE for e in effects):
                return True
        return False

    seen_constant = 0
    for module in _modules():
        writes = WriteCache()
        for op in module.op.walk():
            effects = get_effects(op)
            assert may_write(op) == (effects is None or any(e.kind in _WRITE_LIKE for e in effects)), op.name
            assert is_pure(op) == (effects is not None and not effects), op.name
            assert writes.may_write(op) == generic_may_write(op), op.name
            seen_constant += constant_effects(op) is not None
    assert seen_constant > 1000
