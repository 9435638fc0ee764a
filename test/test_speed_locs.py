"""The invariants the fast paths of location alias reading and release detection rely on:
each finds what the plain way finds (the same definitions, the same locations, shared as
they were), on the forms they are written for and on the corpus."""

import pytest

from conftest import corpus_files, fixture_files

from ttopt.ir import locations as L

_BODIES = [
    '"f":1:2)', '"f":1:2:3)', '"f":1:2) x)', '"n"(#l3))', '"n"(#l3) x)', 'callsite(#a at #b))',
    'callsite(#a at #b) z)', "unknown)", "unknown x)", '"a\\"b":1:2)', '"a(b":1:2)', '"a)b":1:2)',
    "fused[#a, #b])", '"n"("f":1:2))', '"f":1:2', '"f":12345678901:2)', '"x\\n":1:1)',
    '"f":1:2\n)', '"f":1:2 )', 'callsite(#a at callsite(#b at #c)))', '"n"(#l3)', "",
    '"f":\u0663:1)', '"f\u00e9":1:2)', '"n"(#l\u00e93))', '"f\x0b":1:2)', 'unknown', '"f":1:2))',
]
_HEADS = ["#loc1 = loc(", "#loc1  = loc(", "#loc1 =loc(", "#l.x-$ = loc(", "#loc1\n= loc(", "#loc1 =",
          "#loc1 ", "#loc1/", "#loc1", "x#loc1 = loc("]


def _agree(text: str) -> int:
    """_LOC_ALIAS_DEF matches where _LOC_ALIAS_START does, its head group where the other's
    is, and (head group set) runs on over a body exactly where _PLAIN_BODY matches it."""
    n = 0
    for pos in range(len(text) + 1):
        old, new = L._LOC_ALIAS_START.search(text, pos), L._LOC_ALIAS_DEF.search(text, pos)
        if old is None or new is None:
            assert old is None and new is None
            continue
        assert (old.start(), old.group(1), old.end(2)) == (new.start(), new.group(1), new.end(2))
        if old.end(2) < 0:
            assert new.end() == old.end()
            continue
        body = L._PLAIN_BODY.match(text, old.end())
        assert (body and body.end()) == (new.end() if new.end() > new.end(2) else None)
        n += 1
    return n


@pytest.mark.parametrize("head", _HEADS)
def test_the_one_search_finds_what_the_head_and_body_patterns_find(head):
    for body in _BODIES:
        _agree(head + body)
        _agree("x\n" + head + body + "\n#loc2 = loc(unknown)\n")


def test_the_one_search_agrees_on_the_corpus():
    n = 0
    for path in fixture_files() + corpus_files()[::37]:
        text = path.read_text()
        # (every `#` is a search start where a definition may be found)
        at = text.find("#")
        while at >= 0:
            old, new = L._LOC_ALIAS_START.search(text, at), L._LOC_ALIAS_DEF.search(text, at)
            assert (old and (old.start(), old.end(2))) == (new and (new.start(), new.end(2)))
            if old is not None and old.end(2) >= 0:
                body = L._PLAIN_BODY.match(text, old.end())
                assert (body and body.end()) == (new.end() if new.end() > new.end(2) else None)
                n += 1
            at = text.find("#", at + 1)
    assert n > 1000


def _plainly(text: str):
    """``extract_loc_aliases`` with every definition read by ``resolve`` (as before the plain
    ones were built in the scan)."""
    real = L._plain_location
    try:
        L._plain_location = lambda m, values, cache: None
        return L.extract_loc_aliases(text, "f.ttir")
    finally:
        L._plain_location = real


def _shape(values: dict):
    """The locations of a table as a structure that shows which objects are shared."""
    ids: dict[int, int] = {}

    def walk(obj):
        if id(obj) in ids:
            return ("same as", ids[id(obj)])
        ids[id(obj)] = len(ids)
        params = getattr(obj, "parameters", None)
        if params is not None:
            return (type(obj).__name__, tuple(walk(p) for p in params))
        return (type(obj).__name__, repr(getattr(obj, "data", None)))

    return [(name, walk(v)) for name, v in values.items()]


_TEXTS = [
    '#loc = loc("k.py":1:2)\n#loc1 = loc("a"(#loc))\n#loc2 = loc("k.py":1:2)\n'
    "#loc3 = loc(callsite(#loc1 at #loc2))\n#loc4 = loc(unknown)\n#loc5 = loc(\"a\"(#loc))\n",
    # a plain one after one that resolve() reads: from there every one through resolve()
    '#loc = loc("k.py":1:2)\n#loc1 = loc(fused[#loc])\n#loc2 = loc("b"(#loc1))\n',
    # a line of 10 digits: the parser's; the rest after it too
    '#loc = loc("k.py":1234567890:2)\n#loc1 = loc("k.py":1:2)\n#loc2 = loc("b"(#loc1))\n',
    '#loc1 = loc("b"(#loc))\n#loc = loc("k.py":1:2)\n',  # (used before its definition)
    '#loc1 = loc("b"(#loc9))\n',  # (undefined)
    '#loc1 = loc("b"(#loc1))\n',  # (itself)
    '#loc1 = loc(callsite(#loc at #loc2))\n#loc = loc(unknown)\n#loc2 = loc(unknown)\n',
    '#loc = loc(unknown)\n#loc1 = loc("x":1:1)\n#loc = loc("y":1:1)\n',  # (redefinition)
]


@pytest.mark.parametrize("text", _TEXTS)
def test_plain_definitions_built_in_the_scan_are_what_resolve_builds(text):
    def run(fn):
        try:
            stripped, table = fn(text)
        except Exception as e:  # noqa: BLE001 (the same error either way)
            return ("error", type(e).__name__, str(e))
        return (stripped, _shape(table.values), table.lines, list(table.offsets.items()))

    assert run(lambda t: L.extract_loc_aliases(t, "f.ttir")) == run(_plainly)


def test_plain_definitions_of_the_corpus_are_what_resolve_builds():
    for path in fixture_files()[::3] + corpus_files()[::97]:
        text = path.read_text()
        try:
            fast = L.extract_loc_aliases(text, "f.ttir")
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)):
                _plainly(text)
            continue
        slow = _plainly(text)
        assert fast[0] == slow[0] and _shape(fast[1].values) == _shape(slow[1].values), path
