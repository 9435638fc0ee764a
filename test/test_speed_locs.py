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
    "fused[#a])", "fused[#a, #b, #c])", "fused[#a,#b])", "fused[ #a])", "fused[])", "fused[#a, #b]",
    "fused<#x>[#a])", "fused[#a, #b] )", 'fused[#a, "f":1:2])',
]
_HEADS = ["#loc1 = loc(", "#loc1  = loc(", "#loc1 =loc(", "#l.x-$ = loc(", "#loc1\n= loc(",
          "#loc1 =", "#loc1 ", "#loc1/", "#loc1", "x#loc1 = loc("]


def _agree(text: str) -> int:
    """_LOC_ALIAS_DEF matches where _LOC_ALIAS_START does, its head group where the other's
    is, and (head group set) runs on over a body where _PLAIN_BODY matches it (or, a fused
    location, where _BODY does), to where the one that matches ends."""
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
        assert _body_end(text, old, new)
        n += 1
    return n


def _body_end(text: str, old, new) -> bool:
    """``new`` (a match of _LOC_ALIAS_DEF) ends as the scan's patterns say (``old``: the
    match of _LOC_ALIAS_START at the same place)."""
    plain = L._PLAIN_BODY.match(text, old.end())
    if new.end() == new.end(2):  # (no plain form: the scan reads it as before)
        return plain is None
    full = plain or L._BODY.match(text, old.end())
    return (full is not None and full.end() == new.end()
            and (plain is not None or new.lastindex == 9))


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
                assert _body_end(text, old, new), (path, at)
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
    '#loc = loc("k.py":1:2)\n#loc1 = loc("a"(#loc))\n#loc2 = loc(fused[#loc, #loc1])\n'
    '#loc3 = loc(fused[#loc2])\n#loc4 = loc(fused[#loc, #loc5])\n#loc5 = loc(unknown)\n',
    '#loc = loc("k.py":1:2 to 3:4)\n#loc1 = loc(fused[#loc, #loc])\n',  # (a range in it)
    '#loc1 = loc(fused[#loc1])\n',
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


# ------------------------------------------------------------------ release detection
import re  # noqa: E402

from ttopt.dialects import versions  # noqa: E402
from ttopt.ir.reader import _in_comment_or_location  # noqa: E402

_NEWLINE_IN_CATEGORY = {  # (re's categories, as re._parser names them: whether "\n" is one)
    name: re.match(rx, "\n") is not None
    for name, rx in (("CATEGORY_SPACE", r"\s"), ("CATEGORY_NOT_SPACE", r"\S"),
                     ("CATEGORY_WORD", r"\w"), ("CATEGORY_NOT_WORD", r"\W"),
                     ("CATEGORY_DIGIT", r"\d"), ("CATEGORY_NOT_DIGIT", r"\D"))
}


def _set_holds_newline(items) -> bool:
    negate, found = False, False
    for op, av in items:
        op = str(op)
        if op == "NEGATE":
            negate = True
        elif op == "LITERAL":
            found |= av == 10
        elif op == "RANGE":
            found |= av[0] <= 10 <= av[1]
        elif op == "CATEGORY":
            found |= _NEWLINE_IN_CATEGORY[str(av)]
        else:
            raise AssertionError(f"a set of {op}: not known here")
    return found != negate


def _may_hold_newline(items) -> bool:
    """Whether a match of the parsed pattern ``items`` may hold a newline (what lookarounds
    and anchors look at is not in the match)."""
    for op, av in items:
        op = str(op)
        if op == "LITERAL":
            hit = av == 10
        elif op == "NOT_LITERAL":
            hit = av != 10
        elif op == "ANY":
            hit = False  # (no DOTALL: checked by the caller)
        elif op == "IN":
            hit = _set_holds_newline(av)
        elif op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            hit = _may_hold_newline(av[2])
        elif op == "SUBPATTERN":
            hit = _may_hold_newline(av[3])
        elif op == "ATOMIC_GROUP":
            hit = _may_hold_newline(av)
        elif op == "BRANCH":
            hit = any(_may_hold_newline(b) for b in av[1])
        elif op in ("AT", "ASSERT", "ASSERT_NOT"):
            hit = False
        else:
            raise AssertionError(f"{op}: not known here")
        if hit:
            return True
    return False


_ALL_SIGNS = (*versions.SIGNS, *versions.op_signs())


@pytest.mark.parametrize("index", range(len(_ALL_SIGNS)))
def test_a_sign_on_one_line_has_no_match_over_lines(index):
    """``Sign.one_line``: no match of the pattern holds a newline (detect searches such a
    sign from the line of its first literal)."""
    import re._parser as parser  # (Python's own parse of a pattern)

    sign = _ALL_SIGNS[index]
    assert not sign.pattern.flags & re.DOTALL
    assert _may_hold_newline(parser.parse(sign.pattern.pattern)) == (not sign.one_line), sign.what


def test_the_parse_walk_sees_a_newline():
    import re._parser as parser

    for rx, holds in ((r"a\s*b", True), (r"a[^\n]*b", False), (r"a[^x]b", True), (r"a\Wb", True),
                      (r"(?:a|\n)", True), (r"a(?=\n)", False), (r"a.b", False),
                      (r"[\w.-]+", False)):
        assert _may_hold_newline(parser.parse(rx)) == holds, rx


def _detect_from_the_start(text: str) -> versions.Detected:
    """detect() as it was: every sign that has a literal searched from the text's start."""
    hidden = lambda pos: _in_comment_or_location(text, pos)  # noqa: E731
    found = versions.Detected(versions.OLDEST, versions.NEWEST)
    for sign in _ALL_SIGNS:
        if not any(lit in text for lit in sign.literals):
            continue
        for at in sign.matches(text):
            if hidden(at):
                continue
            if sign.low > found.low:
                found.low, found.low_sign = sign.low, (sign, at)
            if sign.high < found.high:
                found.high, found.high_sign = sign.high, (sign, at)
            if found.low > found.high:
                raise versions.VersionConflict(found)
            break
    if found.high <= (2, 3) and found.low < (2, 2) and "!tt.ptr<" in text:
        found.high = (2, 1)
    return found


def _detected(fn, text):
    try:
        d = fn(text)
    except versions.VersionConflict as e:
        d = e.found
    return (d.low, d.high, d.low_sign and (d.low_sign[0].what, d.low_sign[1]),
            d.high_sign and (d.high_sign[0].what, d.high_sign[1]))


def _texts_with_signs():
    """Each sign's literals in lines of every kind: an op, a comment, a location's string,
    a location alias definition, after others of the same sign."""
    for sign in _ALL_SIGNS:
        for lit in sign.literals:
            for line in (f"  %a = {lit} %x : i32", f"  // {lit}", f'  %a = tt.foo loc("{lit}")',
                         f'#loc3 = loc("{lit}":1:2)', f"  %b = tt.splat %x : {lit}", lit):
                yield line + "\n"
                yield "module {\n" + line + "\n" + line + "\n}\n"
                yield "x = ttg.\n  %c = " + line + "\n"


def test_detect_finds_what_a_search_from_the_start_finds():
    n = 0
    texts = list(_texts_with_signs())
    for path in fixture_files() + corpus_files()[::29]:
        texts.append(path.read_text(errors="surrogateescape"))
    for text in texts:
        hidden = lambda pos, t=text: _in_comment_or_location(t, pos)  # noqa: E731
        assert _detected(lambda t: versions.detect(t, hidden), text) == _detected(
            _detect_from_the_start, text), text[:200]
        n += 1
    assert n > 1000


def test_the_ascii_search_finds_what_the_other_finds_in_an_ascii_text():
    """_LOC_ALIAS_DEF_ASCII (for a text all ASCII) matches where and as _LOC_ALIAS_DEF does."""
    texts = [head + body for head in _HEADS for body in _BODIES if (head + body).isascii()]
    texts += [p.read_text() for p in fixture_files()[::5] + corpus_files()[::53]]
    n = 0
    for text in texts:
        if not text.isascii():
            continue
        at = text.find("#")
        while at >= 0:
            a, b = L._LOC_ALIAS_DEF.search(text, at), L._LOC_ALIAS_DEF_ASCII.search(text, at)
            assert (a and (a.span(), a.groups(), a.lastindex)) == (
                b and (b.span(), b.groups(), b.lastindex))
            n += a is not None
            at = text.find("#", at + 1)
    assert n > 1000
    # (and it is no twin for a text that is not: a name of a letter beyond ASCII)
    assert L._LOC_ALIAS_DEF_ASCII.match("#l\u00e9 = loc(unknown)") is None


# ------------------------------------------------------------------ trailing locations
_TRAILING_BEFORE = re.compile(
    r"loc\((#[\w$.-]+)\)(?=[ \t]*$)(?![ \t\r\n]*loc[ \t\r\n]*\()", re.MULTILINE
)


def _strip_as_before(text: str, aliases: dict):
    """reader._strip_trailing_locs as it was: every match checked by hand, the whole text."""
    trailing, pieces, last = {}, [], 0
    for m in _TRAILING_BEFORE.finditer(text):
        start = m.start() - 1
        if start < last or text[start] not in " \t":
            continue
        line_start = text.rfind("\n", 0, m.start()) + 1
        before = text[line_start : m.start()].rstrip(" \t")
        if not before or before[-1] in "=,[({<":
            continue
        name = m.group(1)
        if name not in aliases:
            continue
        eol = text.find("\n", m.end())
        trailing[len(text) if eol < 0 else eol] = name
        pieces.append(text[last:start])
        pieces.append(" " * (m.end() - start))
        last = m.end()
    pieces.append(text[last:])
    return "".join(pieces), trailing


def _trailing_texts():
    ends = ["", "\n", "\n\n", "   ", " \n  \n", "\t\n", "\n\x0b\n", "\x0c", "\r\n", "\n  loc(#a)",
            "\n  loc (#a)\n", "\n  %y = op loc(#a)\n", "\n#loc = loc(unknown)", "\n  // c\n"]
    lines = ["  %x = op %a loc(#a)", "  %x = op %a  loc(#a)", "  %x = op %a\tloc(#a)",
             "  %x = op %a \t loc(#a)", "loc(#a)", " loc(#a)", "  {k = loc(#a)", "  [x, loc(#a)",
             "  %x = op %a loc(#b)", "  %x = op %a loc(#a) ", "  %x = op %a loc(#a)\t",
             "  %x = op\rloc(#a)", "  %x = op \r loc(#a)", "  %x = op %a loc(#a) // c",
             "  %x = op loc(#a)loc(#a)", "  %x = op <  loc(#a)", "  %x = op ( loc(#a)",
             "  %x = op = loc(#a)", "  %x = op, loc(#a)", "  %x = op %a loc(#l\u00e9)"]
    for end in ends:
        for line in lines:
            yield line + end
            yield "module {\n" + line + "\n" + line + end
            yield line + "\n" + line + "\n" + " " * 40 + end


def test_trailing_locations_are_stripped_as_before():
    aliases = {"#a": 1, "#l\u00e9": 2, "#loc": 3, "#loc1": 4}
    for text in _trailing_texts():
        assert reader_strip(text, aliases) == _strip_as_before(text, aliases), repr(text)
    for path in fixture_files()[::3] + corpus_files()[::41]:
        try:
            stripped, table = L.extract_loc_aliases(path.read_text(), "f.ttir")
        except Exception:  # noqa: BLE001 (a bad input: not this test's)
            continue
        assert reader_strip(stripped, table.values) == _strip_as_before(stripped, table.values)


def reader_strip(text, aliases):
    from ttopt.ir.reader import _strip_trailing_locs

    return _strip_trailing_locs(text, aliases)


# ------------------------------------------------------------------ blanks backwards
def _skip_blanks_back_as_before(text: str, start: int, i: int) -> int:
    window = 256
    while True:
        lo = max(start, i - window)
        kept = text[lo:i].rstrip(" \t\r\n\x00")
        if kept or lo == start:
            return lo + len(kept)
        i, window = lo, window * 2


def test_blanks_are_skipped_backwards_as_before():
    import random

    rnd = random.Random(5)
    pieces = [" ", "\t", "\r", "\n", "\x00", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0",
              "\u2003",
              "x", "}", "\u00e9", " " * 300, "\n" * 50, " \n" * 200]
    for _ in range(3000):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randrange(0, 12)))
        for start in {0, len(text) // 3}:
            for i in {len(text), len(text) // 2, start}:
                if start <= i:
                    assert L.skip_blanks_back(text, start, i) == _skip_blanks_back_as_before(
                        text, start, i), (repr(text), start, i)


def test_rstripped_length_is_that_of_rstrip():
    import random

    rnd = random.Random(6)
    pieces = [" ", "\t", "\r", "\n", "\x00", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0",
              "\u2003",
              "x", "\u00e9", " " * 30, "\n" * 5]
    for _ in range(5000):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randrange(0, 10)))
        for blanks in (" \t\r\n", " \t\r\n\x00", "\x00\n\r\t "):
            assert L.rstripped_length(text, blanks) == len(text.rstrip(blanks)), repr(text)


def test_the_module_starts_where_its_pattern_first_matches():
    import random

    rnd = random.Random(7)
    pieces = ["module", "tt.func", '"builtin.module"', "builtin.module", "modules", "x", " ", "\t",
              "\n", "\n\n", "#loc = loc(unknown)", "\u00e9", "\r", "\x0c", "_", "."]
    texts = ["", "module", "\nmodule", "  module {", "xmodule\n module"]
    texts += ["".join(rnd.choice(pieces) for _ in range(rnd.randrange(0, 9))) for _ in range(5000)]
    for text in texts:
        m = L._MODULE_RE.search(text)
        assert L._module_start(text) == (m.start() if m else len(text)), repr(text)
