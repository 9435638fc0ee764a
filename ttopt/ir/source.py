"""Where each op of a parsed module came from in the input text, so that the writer prints what
no pass touched exactly as it was read.

A round trip with no pass prints the input back byte for byte, and a rewrite changes only the
lines of the ops it touches (``diff`` shows the rewrite and nothing else): the writer
(:mod:`ttopt.ir.writer`) copies the source lines of every op that is *clean* -- its operands,
results (identity, types, names), properties, attributes, location, successors and region
structure are what they were when it was read, and it sits at the nesting depth it was read
at -- and prints only the others (new ops, ops whose operands a pass replaced ...).  Values keep
the names they were read with; a new value takes the name of the value it replaced when that
one is gone, else a fresh one unique in its function.

Granularity is the line: an op is copyable when it starts its line and the next token is on a
later line; a region op is copied in pieces (its header up to the ``{`` that ends a line, the
``} ... {`` lines between regions, and its last ``}`` line to its end) with its regions' ops
handled one by one.  Anything else (a whole module on one line, two ops on a line) is
printed.  Comment and blank lines are left out, as MLIR's printer leaves them out (Triton
prints none; a lit test's ``// CHECK`` lines must not reappear in the output it checks).
"""

from __future__ import annotations

import bisect
import os
from itertools import accumulate
import re
from dataclasses import dataclass, field

from xdsl.ir import Block, Operation, SSAValue

from ..xdsl_compat import op_parts

KEEP_TEXT = os.environ.get("TTOPT_KEEP_TEXT", "1") == "1"
"""Print unchanged ops as they were read (being switched on)."""


@dataclass(eq=False)
class OpSource:
    """The text pieces of one op (offsets into :attr:`SourceMap.text`): ``pieces[0]`` is the
    op (a leaf op) or its header; ``pieces[i + 1]`` follows region ``i``."""

    pieces: tuple[tuple[int, int], ...]
    depth: int
    snap: tuple


@dataclass(eq=False)
class SourceMap:
    text: str
    """The input as read (CRLF folded to LF); every offset indexes it."""
    crlf: bool = False
    """The input's lines all ended in CRLF: the output's do too."""
    ops: dict[Operation, OpSource] = field(default_factory=dict)
    labels: dict[Block, tuple[int, int, tuple]] = field(default_factory=dict)
    names: dict[SSAValue, str] = field(default_factory=dict)
    """Every value read, by the name it was read with (``6`` of ``%6:2`` for each result)."""
    implicit: set[Operation] = field(default_factory=set)
    """Terminators the parser made up (``scf.yield`` left out of the text)."""
    prologue: str | None = None
    """The lines before the module op, comment and blank lines left out (None: the module is
    printed, not copied)."""
    epilogue: str = ""
    """The lines after it (its location aliases), likewise."""
    aliases: dict | None = None
    """The attribute aliases as read (the prologue is copied only while they are unchanged)."""
    labeled: set[Block] = field(default_factory=set)
    """Blocks written with a label (``^bb0(...):``)."""
    label_names: dict[Block, str] = field(default_factory=dict)
    """Their names as written (``bb2``): a branch printed anew names its successors so, as
    the labels copied from the input do."""
    loc_texts: dict[int, tuple] = field(default_factory=dict)
    implicit_locs: dict[int, object] = field(default_factory=dict)
    filled: dict[Operation, set[str]] = field(default_factory=dict)

    def clean(self, op: Operation, depth: int) -> OpSource | None:
        """``op``'s source pieces if it can be copied as it was read, else None."""
        src = self.ops.get(op)
        if src is None or src.depth != depth or not same_state(op, src.snap):
            return None
        return src

    def clean_label(self, block: Block) -> tuple[int, int] | None:
        found = self.labels.get(block)
        if found is None or block_snapshot(block) != found[2]:
            return None
        return found[0], found[1]


def block_snapshot(block: Block) -> tuple:
    args = tuple(block.args)
    return args, tuple(a.type for a in args), tuple(a.name_hint for a in args)


def snapshot(op: Operation) -> tuple:
    """What an op's text depends on: its operand, successor and region tuples (xDSL replaces
    them on any change: compared by identity), result types and names, properties,
    attributes, location, and its regions' blocks and entry arguments."""
    operands, successors, regions = op_parts(op)
    results = op.results
    if not results:
        types = names = ()
    elif len(results) == 1:  # (most ops: no list built)
        r = _item(results, 0)
        types, names = (r.type,), (r.name_hint,)
    else:
        types, names = tuple([r.type for r in results]), tuple([r.name_hint for r in results])
    props, attrs = op.properties, op.attributes
    return (
        operands,
        successors,
        regions,
        types,
        names,
        dict(props) if props else None,
        dict(attrs) if attrs else None,
        op.location,
        tuple([_region_snapshot(r) for r in regions]) if regions else (),
    )


_item = tuple.__getitem__  # (xDSL's SSAValues.__getitem__ is a Python function)


def _region_snapshot(region) -> tuple:
    first = region.blocks.first
    return tuple(region.blocks), (block_snapshot(first) if first is not None else ())


def same_state(op: Operation, snap: tuple) -> bool:
    """Is ``op`` as :func:`snapshot` saw it?"""
    operands, successors, regions = op_parts(op)
    if operands is not snap[0] or successors is not snap[1] or regions is not snap[2]:
        return False
    if op.location is not snap[7]:
        return False
    # (an empty dictionary was snapshot as None; a dictionary compares with the copy taken
    # as it is, without another copy)
    props = op.properties
    if (props != snap[5]) if props else (snap[5] is not None):
        return False
    attrs = op.attributes
    if (attrs != snap[6]) if attrs else (snap[6] is not None):
        return False
    results = op.results
    if results:
        if len(results) == 1:
            r = _item(results, 0)
            if (r.type,) != snap[3] or (r.name_hint,) != snap[4]:
                return False
        elif tuple([r.type for r in results]) != snap[3] or tuple([r.name_hint for r in results]) != snap[4]:
            return False
    if regions and tuple([_region_snapshot(r) for r in regions]) != snap[8]:
        return False
    return True


_LABEL_COMMENT = re.compile(r"\s*//[^\"]*$")  # `^bb1:  // 2 preds: ^bb0, ^bb3`
_LABEL_NAME = re.compile(r"\^([\w$.-]+)")


_NON_BLANK = re.compile(r"\S")


def _is_trivia(line: str) -> bool:
    """A blank or comment-only line (``line`` without its newline), as :meth:`_Lines.trivia`
    judges one."""
    body = line.strip()
    return not body or body.startswith("//")


def line_starts(text: str) -> list[int]:
    """The offset where each line of ``text`` starts."""
    # (the running sum of the lines' lengths, each with its newline: no Python-level step a
    # line; the last sum is the end of the text plus one, no line's start)
    starts = list(accumulate(map(_PLUS_ONE, map(len, text.split("\n"))), initial=0))
    starts.pop()
    return starts


_PLUS_ONE = (1).__add__


class _Lines:
    """Line arithmetic on the text (0-based line numbers)."""

    def __init__(self, text: str, starts: list[int] | None = None):
        self.text = text
        self.starts = line_starts(text) if starts is None else starts
        self._trivia: dict[int, bool] = {}
        self._first: dict[int, int] = {}

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset) - 1

    def start(self, line: int) -> int:
        return self.starts[line]

    def end(self, line: int) -> int:
        """Offset of the line's ``\\n`` (or the end of the text)."""
        starts = self.starts
        return starts[line + 1] - 1 if line + 1 < len(starts) else len(self.text)

    def trivia(self, line: int) -> bool:
        """A blank or comment-only line."""
        found = self._trivia.get(line)
        if found is None:  # (once per line: linear)
            body = self.text[self.start(line) : self.end(line)].strip()
            found = self._trivia[line] = not body or body.startswith("//")
        return found

    def first_content(self, line: int) -> int:
        """Offset of the first non-blank character of ``line`` (its end if none), found once
        per line: the checks below cost the blanks they skip, not the line (a whole module on
        one line made them quadratic)."""
        found = self._first.get(line)
        if found is None:
            end = self.end(line)
            m = _NON_BLANK.search(self.text, self.starts[line], end)
            found = self._first[line] = end if m is None else m.start()
        return found

    def first_on_line(self, offset: int) -> bool:
        """Nothing but blanks before ``offset`` on its line."""
        line = self.line(offset)
        start = self.starts[line]
        if offset - start < 256:  # (the usual indentation: a slice is cheaper)
            return not self.text[start:offset].strip()
        return offset <= self.first_content(line)

    def last_on_line(self, offset: int) -> bool:
        """Nothing but blanks after the character at ``offset`` on its line."""
        return _NON_BLANK.search(self.text, offset + 1, self.end(self.line(offset))) is None

    def with_leading_trivia(self, line: int, floor: int) -> int:
        """``line`` moved up over the blank and comment lines above it (not above ``floor``)."""
        while line > floor and self.trivia(line - 1):
            line -= 1
        return line

    def content_line_before(self, offset: int, floor: int) -> int:
        """The last line before ``offset`` (the next token) that holds more than blanks and
        comments, not above ``floor``."""
        line = self.line(offset)
        # the part of offset's own line before it
        if not self.first_on_line(offset):
            return line
        line -= 1
        while line > floor and self.trivia(line):
            line -= 1
        return line


def build(text: str, parsed: str, crlf: bool, module, raw,
          starts: list[int] | None = None) -> SourceMap:
    """The source map of ``module`` read from ``text``; ``parsed`` is the text the parser read
    (``text`` with its location aliases and trailing ``loc(#..)`` blanked: same offsets), in
    which lines are judged; ``raw`` is what the parser recorded (:class:`RawMarks`);
    ``starts``: :func:`line_starts` of ``parsed``, if known."""
    lines = _Lines(parsed, starts)
    smap = SourceMap(text, crlf)
    smap.names = raw.names
    smap.loc_texts = raw.loc_texts
    smap.implicit_locs = raw.implicit_locs
    smap.filled = raw.filled
    smap.labeled = set(raw.labels)
    for block, at in raw.labels.items():  # (the label's `^name` starts at `at`)
        m = _LABEL_NAME.match(parsed, at)
        if m is not None:
            smap.label_names[block] = m.group(1)
    ops = smap.ops
    starts, ends, depths, regions = raw.starts, raw.ends, raw.depths, raw.regions
    floor = [0]

    def piece_for(op: Operation) -> tuple | None:
        s = starts.get(op)
        e = ends.get(op)
        if s is None or e is None or not lines.first_on_line(s):
            return None
        first = lines.line(s)
        pieces = []
        begin = lines.start(first)
        prev_line = first
        for region in op.regions:
            marks = regions.get(region)
            if marks is None:
                return None
            o, c = marks
            lo, lc = lines.line(o), lines.line(c)
            if lo < prev_line or lc <= lo or not lines.last_on_line(o) or not lines.first_on_line(c):
                return None
            pieces.append((begin, lines.end(lo)))
            begin = lines.start(lc)
            prev_line = lc
        last = lines.content_line_before(e, prev_line)
        if e < len(lines.text) and lines.line(e) <= last:
            return None  # the next token is on the op's last line
        pieces.append((begin, lines.end(last)))
        return tuple(pieces)

    implicit = smap.implicit
    labels = raw.labels

    known = raw.pieces

    def visit(op: Operation) -> None:
        found = known.get(op) or piece_for(op)
        if found is not None:
            ops[op] = OpSource(found, depths[op], snapshot(op))
        elif op not in starts:
            implicit.add(op)
        for region in op.regions:
            for block in region.blocks:
                b = labels.get(block)
                if b is not None and lines.first_on_line(b):
                    lb = lines.line(b)
                    body = _LABEL_COMMENT.sub("", parsed[lines.start(lb) : lines.end(lb)]).rstrip()
                    first_op = block.first_op
                    nxt = starts.get(first_op) if first_op is not None else None
                    if body.endswith(":") and (nxt is None or lines.line(nxt) > lb):
                        smap.labels[block] = (lines.start(lb), lines.end(lb), block_snapshot(block))
                for inner in block.ops:
                    visit(inner)

    visit(module)
    mod_src = ops.get(module)
    if mod_src is not None:
        # (judged in the text as read: the parsed text has its location aliases blanked)
        head_at, tail_at = starts[module], mod_src.pieces[-1][1]
        # (blanking keeps every offset and may only have blanked newlines: as many newlines,
        # the same lines)
        same = parsed.count("\n") == text.count("\n")
        lines = _Lines(text, lines.starts if same else None)
        head, tail = lines.line(head_at), lines.line(tail_at)
        # (the lines before the module and after it, the trivia left out: split once, each
        # line judged as _Lines.trivia judges it, without its per-line bookkeeping; the
        # location aliases below the module are often half the text)
        starts = lines.starts
        before = text[: starts[head]].split("\n")[:-1] if head else []
        smap.prologue = "".join(line + "\n" for line in before if not _is_trivia(line))
        after = text[starts[tail + 1] :].split("\n") if tail + 1 < len(starts) else []
        smap.epilogue = "".join("\n" + line for line in after if not _is_trivia(line)) + (
            "\n" if text.endswith("\n") else ""
        )
    return smap


@dataclass
class RawMarks:
    """What the parser records while reading (offsets into the text it parses, which has the
    same offsets as :attr:`SourceMap.text`)."""

    starts: dict[Operation, int] = field(default_factory=dict)
    ends: dict[Operation, int] = field(default_factory=dict)
    """The offset of the first token after the op (its location included)."""
    depths: dict[Operation, int] = field(default_factory=dict)
    regions: dict = field(default_factory=dict)
    """region -> (offset of its ``{``, offset of its ``}``)"""
    labels: dict[Block, int] = field(default_factory=dict)
    names: dict[SSAValue, str] = field(default_factory=dict)
    loc_texts: dict[int, tuple] = field(default_factory=dict)
    """id(location) -> (location, its text ``loc(...)`` as written)"""
    implicit_locs: dict[int, object] = field(default_factory=dict)
    """id(location) -> location, for what was written without ``loc(...)``"""
    filled: dict[Operation, set[str]] = field(default_factory=dict)
    """Properties the reader set that the input's release does not write
    (:func:`ttopt.dialects.versions.filled_properties`)."""
    pieces: dict[Operation, tuple] = field(default_factory=dict)
    """The source pieces of ops the reader's fast path read (a whole line each: it knows
    them), as :func:`build` would find them."""


__all__ = ["OpSource", "RawMarks", "SourceMap", "block_snapshot", "build", "snapshot"]
