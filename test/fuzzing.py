"""Fuzzing ``ttopt-opt``: real Triton IR, mutated with a fixed seed, the CLI's contract checked
on every variant.  ``test/test_fuzz.py`` runs it under pytest; this module also runs alone.

Variants
    Sources (``source_files``): ``test/fixtures`` (all of ``small/`` plus the smallest distinct
    Inductor kernel of each kind, pointwise/persistent/looped reduction x TTIR/TTGIR); without
    fixtures, or with ``TTOPT_FUZZ_SOURCES=corpus``, the same selection from
    ``../shared/corpus``.  Each source gets every mutation of ``MUTATIONS`` (truncation, line
    deletion/duplication/swap/join, token swap, bit flips, invalid UTF-8, NUL, unbalanced
    brackets, an unterminated ``"`` with 30+ characters after it, CRLF, BOM, a deleted ``#loc``
    alias, odd location line/column numbers, an SSA value renamed at one use, a type changed in
    one place, deep nesting, one-line modules, whitespace; and, aimed at the verifier, an op's
    line moved elsewhere or into the module's body, an op's name without its dialect or
    another op's of its dialect, two operands of an op swapped).  A variant is named
    ``SOURCE:MUTATION#K@PARAMS``, e.g. ``small/add.ttir:truncate#0@off=1352``; its bytes
    depend only on ``SEED`` and ``SOURCE:MUTATION#K`` (``random.Random`` seeded with that
    string), so a name reproduces its variant whatever else changes.  About half the variants
    (chosen the same way) run with all three passes, the others as a round trip.

The contract (``check``), for every variant, running the CLI with ``-o`` onto a file that held
known content:
    * no "Traceback" in stdout/stderr, no hang (``PER_RUN_TIMEOUT`` seconds), exit status 0 or 1
      (3, an internal error of ttopt, is a failure too);
    * exit 1: stderr is exactly one line ``FILE:LINE:COL: error: MESSAGE`` (``FILE: error:
      MESSAGE`` for file-level problems), LINE/COL inside the input, no ``{placeholder}`` left
      in MESSAGE, no control characters in it, stdout empty, the ``-o`` file byte-identical, no
      temp file left in its directory;
    * exit 0: the ``-o`` file holds the output, stdout empty, no temp file left; when Triton
      3.6 accepts the input it must accept the output, and for a round trip (no passes)
      Triton's own print of the output must equal its print of the input (nothing dropped).
    Inputs that ttopt accepts and Triton rejects, and the reverse, are counted (ratchets in
    test_fuzz.py).  Triton runs in the workers too: it crashes on some mutated inputs.

Speed: one long-lived worker process per core (``--worker``) imports ttopt once and calls the
click command in process (output captured at the file-descriptor level, so it sees what a user
sees; an exception escaping the command is printed as the interpreter would, exit 1).  The
parent kills a worker that overruns a variant's time and starts a new one; after
``MAX_TIMEOUTS_PER_MUTATION`` timeouts of one mutation its remaining variants are reported as
"not run" failures instead of costing 10 s each.  Ten variants also run as real
``python -m ttopt.cli`` processes (two of them through stdin).

Reproduce one variant (the test's failure message prints these commands)::

    .venv/bin/python test/fuzzing.py --list                  # every variant name
    .venv/bin/python test/fuzzing.py --dump NAME out.ttir    # write the variant's bytes
    .venv/bin/python test/fuzzing.py --check NAME            # worker + real CLI + Triton on it
    .venv/bin/python test/fuzzing.py --run [--json R.json]   # the whole campaign, a report

(``NAME`` may stop before the ``@``.)  A variant that fails in the worker but not in a fresh
process (``--check`` shows both) points at state leaking from one run to the next.  Note:
``python -m test.fuzzing`` would import the standard library's ``test`` package, hence the
path.  From Python: ``variant_by_name(NAME)``, ``run_campaign(DIR, [variant])``.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import hashlib
import json
import os
import pathlib
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
FIXTURES = ROOT / "test" / "fixtures"
CORPUS = ROOT.parent / "shared" / "corpus"

SEED = 20240611
PER_RUN_TIMEOUT = 10.0  # seconds for one variant (ttopt alone; import excluded)
WORKER_START_TIMEOUT = 120.0
PROCESS_START_ALLOWANCE = 20.0
# After this many timeouts of one mutation, its other variants are not run (and reported as
# failures, "not run"): a hang that every variant of a kind hits would otherwise take minutes.
MAX_TIMEOUTS_PER_MUTATION = 3  # a real process also imports Python, click, xDSL and ttopt
ALL_PASSES = "redundant-load,redundant-reduce,div-chain"
SENTINEL = b"KEEP: written by the fuzz test before the run; must survive a failed run\n"
MAX_INDUCTOR_BYTES = 24_000


# ---------------------------------------------------------------------------------------------
# sources


@dataclasses.dataclass(frozen=True)
class Source:
    id: str  # small/add.ttir, inductor/<model>/<HASH6>/<kernel>.ttgir
    path: pathlib.Path

    @property
    def suffix(self) -> str:
        return self.path.suffix


def _ir(paths) -> list[pathlib.Path]:
    return sorted(p for p in paths if p.suffix in (".ttir", ".ttgir") and p.is_file())


def sources_kind(prefer_fixtures: bool | None = None) -> str:
    """"fixtures" when test/fixtures has IR files (and neither ``prefer_fixtures=False`` nor
    the environment variable TTOPT_FUZZ_SOURCES=corpus asks for the corpus), else "corpus"."""
    if prefer_fixtures is None:
        prefer_fixtures = os.environ.get("TTOPT_FUZZ_SOURCES", "").strip().lower() != "corpus"
    return "fixtures" if prefer_fixtures and _ir(FIXTURES.rglob("*")) else "corpus"


def source_files(prefer_fixtures: bool | None = None) -> list[Source]:
    """The files to mutate: test/fixtures if it has IR files, else ../shared/corpus (see
    ``sources_kind``).

    All of ``small/`` and, of the Inductor kernels, per (kind, extension) with kind in
    poi/per/red, the smallest file (at most MAX_INDUCTOR_BYTES, duplicates by content
    skipped): at most 6 kernels, deterministic."""
    if sources_kind(prefer_fixtures) == "fixtures":
        small = _ir((FIXTURES / "small").glob("*"))
        inductor = _ir((FIXTURES / "inductor").glob("*/*/*"))  # model/HASH/kernel
        model_of = lambda p: p.parts[-3]  # noqa: E731
    else:
        small = _ir((CORPUS / "small").glob("*"))
        inductor = _ir((CORPUS / "inductor-triton3.6-h200").glob("*/triton/*/*"))
        model_of = lambda p: p.parts[-4]  # noqa: E731
    out = [Source(f"small/{p.name}", p) for p in small]
    best: dict[tuple[str, str], tuple[int, str, pathlib.Path]] = {}
    seen: set[str] = set()
    for p in inductor:
        kind = p.name.split("_")[1] if p.name.startswith("triton_") else "other"
        size = p.stat().st_size
        if size > MAX_INDUCTOR_BYTES:
            continue
        key = (kind, p.suffix)
        cand = (size, str(p), p)
        if key not in best or cand[:2] < best[key][:2]:
            digest = hashlib.sha1(p.read_bytes()).hexdigest()
            if digest in seen:
                continue
            seen.add(digest)
            best[key] = cand
    for key in sorted(best):
        p = best[key][2]
        out.append(Source(f"inductor/{model_of(p)}/{p.parent.name[:6]}/{p.name}", p))
    return out


# ---------------------------------------------------------------------------------------------
# mutations: f(rng, data, k) -> (bytes, params) or None (does not apply to this source)


def _lines(data: bytes) -> list[str]:
    return data.decode("utf-8").splitlines(keepends=True)


def _join(lines) -> bytes:
    return "".join(lines).encode("utf-8")


def m_identity(rng, data, k):
    return data, ""


def m_truncate(rng, data, k):
    off = rng.randrange(0, len(data))
    return data[:off], f"off={off}"


def m_delete_line(rng, data, k):
    lines = _lines(data)
    i = rng.randrange(len(lines))
    del lines[i]
    return _join(lines), f"line={i + 1}"


def m_duplicate_line(rng, data, k):
    lines = _lines(data)
    i = rng.randrange(len(lines))
    lines.insert(i, lines[i])
    return _join(lines), f"line={i + 1}"


def m_swap_lines(rng, data, k):
    lines = _lines(data)
    i, j = sorted(rng.sample(range(len(lines)), 2))
    a, b = lines[i].rstrip("\n"), lines[j].rstrip("\n")
    lines[i] = b + lines[i][len(a):]
    lines[j] = a + lines[j][len(b):]
    return _join(lines), f"lines={i + 1},{j + 1}"


TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[%#^@!]?[A-Za-z0-9_.$-]+|\S')


def m_swap_tokens(rng, data, k):
    lines = _lines(data)
    for _ in range(50):
        i = rng.randrange(len(lines))
        toks = list(TOKEN.finditer(lines[i]))
        if len(toks) >= 3:
            break
    else:
        return None
    a, b = sorted(rng.sample(range(len(toks)), 2))
    ta, tb = toks[a], toks[b]
    if ta.group() == tb.group():
        return None
    s = lines[i]
    lines[i] = s[: ta.start()] + tb.group() + s[ta.end(): tb.start()] + ta.group() + s[tb.end():]
    return _join(lines), f"line={i + 1},tokens={a},{b}"


def m_byte_flip(rng, data, k):
    b = bytearray(data)
    n = 1 + rng.randrange(3)
    flips = []
    for p in sorted(rng.sample(range(len(b)), n)):
        bit = rng.randrange(8)
        b[p] ^= 1 << bit
        flips.append(f"{p}^{1 << bit:#04x}")
    return bytes(b), "flips=" + ",".join(flips)


BAD_UTF8 = [b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\xaf", b"\x80\x80"]


def m_invalid_utf8(rng, data, k):
    seq = rng.choice(BAD_UTF8)
    if k == 1:  # inside a string literal (a file name of a location), where MLIR allows bytes
        quotes = [m.start() + 1 for m in re.finditer(rb'"', data)]
        if not quotes:
            return None
        pos = rng.choice(quotes[::2])
    else:
        pos = rng.randrange(len(data) + 1)
    return data[:pos] + seq + data[pos:], f"pos={pos},bytes={seq.hex()}"


def m_nul(rng, data, k):
    pos = rng.randrange(len(data))
    if k == 1:
        return data[:pos] + b"\x00" + data[pos + 1:], f"replace={pos}"
    return data[:pos] + b"\x00" + data[pos:], f"insert={pos}"


def m_unbalanced(rng, data, k):
    ch = rng.choice("{}[]()<>")
    n = rng.choice([1, 1, 2, 3])
    pos = rng.randrange(len(data) + 1)
    return data[:pos] + ch.encode() * n + data[pos:], f"pos={pos},ch={ord(ch):#04x}x{n}"


def m_unterminated_quote(rng, data, k):
    """A lone '"' in the middle of a line with 30+ characters after it (used to hang ttopt:
    catastrophic backtracking in a regular expression)."""
    lines = _lines(data)
    cands = [i for i, s in enumerate(lines) if len(s.rstrip("\r\n")) >= 40 and not s.startswith("#")]
    if not cands:
        return None
    i = rng.choice(cands)
    s = lines[i]
    body = len(s.rstrip("\r\n"))
    col = rng.randrange(max(1, body // 4), body - 30)
    lines[i] = s[:col] + '"' + s[col:]
    return _join(lines), f"line={i + 1},col={col + 1}"


def m_crlf(rng, data, k):
    if k == 0:
        return data.replace(b"\n", b"\r\n"), "all"
    lines = data.split(b"\n")
    picked = [i for i in range(len(lines) - 1) if rng.random() < 0.5]
    for i in picked:
        lines[i] += b"\r"
    return b"\n".join(lines), f"lines={len(picked)}"


BOM = "\ufeff".encode()


def m_bom(rng, data, k):
    if k == 0:
        return BOM + data, "start"
    if k == 1:
        return BOM + data.replace(b"\n", b"\r\n"), "start+crlf"
    lines = data.split(b"\n")
    i = rng.randrange(1, len(lines))
    lines[i] = BOM + lines[i]
    return b"\n".join(lines), f"line={i + 1}"


LOC_ALIAS = re.compile(r"^#loc\d*\s*=\s*loc\(")


def m_delete_loc_alias(rng, data, k):
    lines = _lines(data)
    cands = [i for i, s in enumerate(lines) if LOC_ALIAS.match(s)]
    if not cands:
        return None
    i = rng.choice(cands)
    name = lines[i].split("=")[0].strip()
    del lines[i]
    return _join(lines), f"line={i + 1},alias={name}"


SSA = re.compile(r"%[A-Za-z0-9_.$-]+")
DEF_PREFIX = re.compile(r"^\s*%[^=\n]*?=\s")


def _ssa_uses_and_defs(lines):
    uses, defs = [], set()
    for i, s in enumerate(lines):
        m = DEF_PREFIX.match(s)
        start = m.end() if m else 0
        if m:
            defs.update(x.group() for x in SSA.finditer(s, 0, start))
        for u in SSA.finditer(s, start):
            after = s[u.end():]
            if after.startswith(":") or re.match(r"\s*=(?!=)", after):
                defs.add(u.group())  # a block/function argument or loop variable
                continue
            uses.append((i, u.start(), u.end()))
    return uses, sorted(defs)


def m_rename_ssa_use(rng, data, k):
    """One use of an SSA value renamed: to an undefined name (k=0) or to another value (k=1)."""
    lines = _lines(data)
    uses, defs = _ssa_uses_and_defs(lines)
    if not uses:
        return None
    i, a, b = rng.choice(uses)
    old = lines[i][a:b]
    if k == 0:
        new = old + "_fz"
    else:
        others = [d for d in defs if d != old]
        if not others:
            return None
        new = rng.choice(others)
    lines[i] = lines[i][:a] + new + lines[i][b:]
    return _join(lines), f"line={i + 1},col={a + 1},{old[1:]}->{new[1:]}"


TENSOR = re.compile(r"tensor<((?:\d+x)+)([a-z][a-z0-9]*)\b")
ELEM_SWAP = {"f32": "f16", "f16": "f32", "bf16": "f32", "f64": "f32", "i32": "i64", "i64": "i32",
             "i1": "i32", "i8": "i32", "i16": "i32"}


def m_change_type(rng, data, k):
    """One ``tensor<...>`` changed in one place: a dimension halved (k=0) or the element type."""
    text = data.decode("utf-8")
    occ = [m for m in TENSOR.finditer(text) if not text[: m.start()].endswith("!tt.ptr<")]
    if not occ:
        return None
    m = rng.choice(occ)
    dims = [int(d) for d in m.group(1).rstrip("x").split("x")]
    elem = m.group(2)
    if k == 0:
        j = rng.randrange(len(dims))
        dims[j] = dims[j] // 2 if dims[j] > 1 else 2
    else:
        elem = ELEM_SWAP.get(elem, "f32")
    new = "tensor<" + "".join(f"{d}x" for d in dims) + elem
    ln = text.count("\n", 0, m.start()) + 1
    old_s = m.group().replace("tensor<", "").replace("x", "_")
    new_s = new.replace("tensor<", "").replace("x", "_")
    return (text[: m.start()] + new + text[m.end():]).encode(), f"line={ln},{old_s}->{new_s}"


def m_deep_nesting(rng, data, k):
    """k=0: a nested array attribute; k=1: a nested name location in a #loc alias;
    k=2: unbalanced opening brackets; k=3: nested pointer types, in one place."""
    text = data.decode("utf-8")
    depth = rng.choice([40, 400, 1500])  # ttopt's time grows with depth^2: 2500 took ~10 s
    if k == 0:
        func = re.search(r"^.*tt\.func\b.*?attributes \{", text, re.M)  # a function's: any name
        if not func:
            return None
        at = func.end()
        ins = "fz = " + "[" * depth + "0" + "]" * depth + ", "
        return (text[:at] + ins + text[at:]).encode(), f"attr,depth={depth}"
    if k == 1:
        lines = text.splitlines(keepends=True)
        cands = [i for i, s in enumerate(lines) if LOC_ALIAS.match(s) and s.rstrip().endswith(")")]
        if not cands:
            return None
        i = rng.choice(cands)
        head, body = lines[i].split("loc(", 1)
        body = body.rstrip().removesuffix(")")
        eol = lines[i][len(lines[i].rstrip("\r\n")):]
        lines[i] = f"{head}loc(" + '"n"(' * depth + body + ")" * depth + ")" + eol
        return "".join(lines).encode(), f"loc,line={i + 1},depth={depth}"
    if k == 2:
        depth = rng.choice([1000, 20000])
        ch = rng.choice("([{<")
        pos = rng.randrange(len(text) + 1)
        params = f"open,pos={pos},ch={ord(ch):#04x},depth={depth}"
        return (text[:pos] + ch * depth + text[pos:]).encode(), params
    occ = list(re.finditer(r"!tt\.ptr<([a-z0-9]+)>", text))
    if not occ:
        return None
    m = rng.choice(occ)
    new = "!tt.ptr<" * depth + m.group(1) + ">" * depth
    ln = text.count("\n", 0, m.start()) + 1
    return (text[: m.start()] + new + text[m.end():]).encode(), f"ptr,line={ln},depth={depth}"


LOC_NUMBERS = re.compile(r'(loc\("[^"\n]*"):(\d+):(\d+)\)')
BAD_NUMBERS = ["0", "-1", "4294967296", "99999999999999999999999", "0x10", "1.5", "", "1e3"]


def m_loc_number(rng, data, k):
    """The line (k=0) or column (k=1) of one file location made odd: 0, negative, huge, hex..."""
    text = data.decode("utf-8")
    occ = list(LOC_NUMBERS.finditer(text))
    if not occ:
        return None
    m = rng.choice(occ)
    bad = rng.choice(BAD_NUMBERS)
    g = 2 + k
    new = text[: m.start(g)] + bad + text[m.end(g):]
    ln = text.count("\n", 0, m.start()) + 1
    return new.encode(), f"line={ln},{'col' if k else 'lineno'}={bad or 'empty'}"


def m_one_line(rng, data, k):
    return data.replace(b"\n", b" "), ""


def m_join_lines(rng, data, k):
    lines = _lines(data)
    i = rng.randrange(len(lines) - 1)
    lines[i] = lines[i].rstrip("\n") + " "
    return _join(lines), f"line={i + 1}"


def m_whitespace(rng, data, k):
    lines = _lines(data)
    if k == 0:  # indentation by tabs
        out = []
        for s in lines:
            n = len(s) - len(s.lstrip(" "))
            out.append("\t" * (n // 2) + s[n:])
        return _join(out), "tabs"
    i = rng.randrange(len(lines))
    s = re.sub(r" ", lambda _: rng.choice(["  ", "\t", " \t ", "   "]), lines[i])
    lines[i] = s
    return _join(lines), f"line={i + 1}"


# --- mutations aimed at the verifier (this round's semantic fuzzing found a value of the module
#     used in a function, `splat` read as `tt.splat`, an atomic of another result shape...)
OP_LINE = re.compile(r"^[ \t]+(?:%[^=\n]*=[ \t]*)?\"?[a-z_]+\.[a-z_.]+")


def _op_lines(lines) -> list[int]:
    return [i for i, s in enumerate(lines) if OP_LINE.match(s)]


def m_move_op(rng, data, k):
    """One op's line moved to another op's place: out of its region, before its operands,
    into a combiner or out of its function (k=1: to the module's body)."""
    lines = _lines(data)
    ops = _op_lines(lines)
    if len(ops) < 2:
        return None
    i = rng.choice(ops)
    if k == 1:
        mod = next((j for j, s in enumerate(lines) if s.startswith("module")), None)
        if mod is None:
            return None
        j = mod + 1
    else:
        j = rng.choice([x for x in ops if x != i])
    line = lines.pop(i)
    lines.insert(j if j < i else j - 1 if k == 0 else j, line)
    return _join(lines), f"line={i + 1}->{j + 1}"


def m_op_name(rng, data, k):
    """One op's name changed: its dialect dropped (k=0; MLIR looks a bare name up in the
    default dialect only), or another op of its dialect (k=1)."""
    lines = _lines(data)
    ops = _op_lines(lines)
    if not ops:
        return None
    i = rng.choice(ops)
    m = re.search(r'(?:= |^[ \t]+)"?(([a-z_]+)\.([a-z_.]+))', lines[i])
    if m is None:
        return None
    if k == 0:
        new = m.group(3)
    else:
        names = sorted({x.group(1) for s in lines for x in
                        [re.search(r'(?:= |^[ \t]+)"?(([a-z_]+)\.[a-z_.]+)', s)] if x and x.group(2) == m.group(2)})
        new = rng.choice(names)
    lines[i] = lines[i][: m.start(1)] + new + lines[i][m.end(1):]
    return _join(lines), f"line={i + 1},{m.group(1)}->{new}"


def m_swap_operands(rng, data, k):
    """Two operands of one op swapped (their types no longer where the op wants them)."""
    lines = _lines(data)
    cands = []
    for i in _op_lines(lines):
        s = lines[i].split(" loc(")[0]
        eq = s.find("= ")
        uses = [u for u in SSA.finditer(s) if u.start() > eq]
        if len(uses) >= 2:
            cands.append((i, uses))
    if not cands:
        return None
    i, uses = rng.choice(cands)
    a, b = sorted(rng.sample(uses, 2), key=lambda u: u.start())
    s = lines[i]
    lines[i] = s[: a.start()] + b.group() + s[a.end(): b.start()] + a.group() + s[b.end():]
    return _join(lines), f"line={i + 1},{a.group()[1:]}<->{b.group()[1:]}"


# name -> (function, variants per source)
MUTATIONS = {
    "identity": (m_identity, 1),
    "truncate": (m_truncate, 2),
    "delete_line": (m_delete_line, 2),
    "duplicate_line": (m_duplicate_line, 1),
    "swap_lines": (m_swap_lines, 1),
    "swap_tokens": (m_swap_tokens, 2),
    "byte_flip": (m_byte_flip, 2),
    "invalid_utf8": (m_invalid_utf8, 2),
    "nul": (m_nul, 2),
    "unbalanced": (m_unbalanced, 2),
    "unterminated_quote": (m_unterminated_quote, 2),
    "crlf": (m_crlf, 2),
    "bom": (m_bom, 3),
    "delete_loc_alias": (m_delete_loc_alias, 1),
    "rename_ssa_use": (m_rename_ssa_use, 2),
    "change_type": (m_change_type, 2),
    "deep_nesting": (m_deep_nesting, 4),
    "loc_number": (m_loc_number, 2),
    "one_line": (m_one_line, 1),
    "join_lines": (m_join_lines, 1),
    "whitespace": (m_whitespace, 2),
    "move_op": (m_move_op, 2),
    "op_name": (m_op_name, 2),
    "swap_operands": (m_swap_operands, 1),
}


# ---------------------------------------------------------------------------------------------
# variants


@dataclasses.dataclass
class Variant:
    name: str  # SOURCE:MUTATION#K@PARAMS
    key: str  # SOURCE:MUTATION#K
    source: Source
    mutation: str
    data: bytes
    args: list[str]  # extra CLI arguments (passes)

    @property
    def suffix(self) -> str:
        return self.source.suffix


def _variant(source: Source, mutation: str, k: int, data: bytes | None = None) -> Variant | None:
    key = f"{source.id}:{mutation}#{k}"
    fn, _ = MUTATIONS[mutation]
    if data is None:
        data = source.path.read_bytes()
    got = fn(random.Random(f"{SEED}:{key}"), data, k)
    if got is None:
        return None
    new, params = got
    args = ["--pass", ALL_PASSES] if random.Random(f"{SEED}:{key}:args").random() < 0.5 else []
    name = key + (f"@{params}" if params else "")
    return Variant(name, key, source, mutation, new, args)


def generate_variants(sources: list[Source] | None = None) -> list[Variant]:
    """Every variant, in a fixed order: sources x MUTATIONS x K."""
    out = []
    for src in source_files() if sources is None else sources:
        data = src.path.read_bytes()
        for mutation, (_, count) in MUTATIONS.items():
            for k in range(count):
                v = _variant(src, mutation, k, data)
                if v is not None:
                    out.append(v)
    return out


def variant_by_name(name: str, sources: list[Source] | None = None) -> Variant:
    """The variant called ``name`` (the part before ``@`` is enough)."""
    key = name.split("@", 1)[0]
    m = re.fullmatch(r"(.+):([a-z_0-9]+)#(\d+)", key)
    if not m or m.group(2) not in MUTATIONS:
        raise SystemExit(f"not a variant name: {name!r} (expected SOURCE:MUTATION#K[@PARAMS])")
    candidates = [source_files()] if sources is None else [sources]
    if sources is None:
        candidates += [source_files(prefer_fixtures=True), source_files(prefer_fixtures=False)]
    for srcs in candidates:
        for src in srcs:
            if src.id == m.group(1):
                v = _variant(src, m.group(2), int(m.group(3)))
                if v is None:
                    raise SystemExit(f"mutation {m.group(2)}#{m.group(3)} does not apply to {src.id}")
                return v
    raise SystemExit(f"no source {m.group(1)!r} (sources: test/fixtures, else ../shared/corpus)")


PROCESS_CATEGORIES = ["identity", "truncate", "bom", "crlf", "invalid_utf8", "nul",
                      "unterminated_quote", "deep_nesting", "delete_loc_alias", "change_type"]
STDIN_CATEGORIES = {"identity", "truncate"}


def process_variants(variants: list[Variant]) -> list[tuple[Variant, str]]:
    """The ~10 variants also run as real processes: (variant, "process" | "stdin")."""
    out = []
    for cat in PROCESS_CATEGORIES:
        group = [v for v in variants if v.mutation == cat]
        if group:
            v = random.Random(f"{SEED}:process:{cat}").choice(group)
            out.append((v, "stdin" if cat in STDIN_CATEGORIES else "process"))
    return out


# ---------------------------------------------------------------------------------------------
# results and the contract


@dataclasses.dataclass
class Result:
    variant: Variant
    mode: str  # worker | process | stdin
    input_path: str = ""
    output_path: str = ""
    code: int | None = None
    timed_out: bool = False
    crashed: str = ""  # the worker died or was killed: why
    not_run: str = ""
    stdout: bytes = b""
    stderr: bytes = b""
    output: bytes | None = None  # the -o file afterwards
    left_in_dir: list[str] = dataclasses.field(default_factory=list)
    seconds: float = 0.0
    triton_in: dict | None = None  # {"ok": bool, "message": str}
    triton_out: dict | None = None
    same_print: bool | None = None  # round trip: Triton's print of input == of output
    problems: list[str] = dataclasses.field(default_factory=list)


ORACLE_PROBLEMS = ("Triton accepts the input", "round trip changed", "oracle:")


def is_oracle_problem(p: str) -> bool:
    """A problem found by Triton (the output), as opposed to one of the run itself."""
    return p.startswith(ORACLE_PROBLEMS)


PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def check(r: Result) -> list[str]:
    """The contract (module docstring); the problems found, [] when none."""
    if r.not_run:
        return [f"not run: {r.not_run}"]
    probs = []
    if r.timed_out:
        limit = PER_RUN_TIMEOUT + (0 if r.mode == "worker" else PROCESS_START_ALLOWANCE)
        probs.append(f"timeout: no answer within {limit:g} s")
    if r.crashed:
        probs.append(f"crash: {r.crashed}")
    if probs:
        return probs
    for what, s in (("stderr", r.stderr), ("stdout", r.stdout)):
        if b"Traceback" in s:
            probs.append(f"traceback in {what}")
    if r.code not in (0, 1):
        probs.append(f"exit status {r.code} (expected 0 or 1)")
    expected_dir = [pathlib.Path(r.output_path).name]
    if r.left_in_dir != expected_dir:
        extra = sorted(set(r.left_in_dir) - set(expected_dir))
        probs.append(f"files left in the -o directory: {extra or r.left_in_dir}")
    if r.stdout:
        probs.append(f"stdout not empty ({len(r.stdout)} bytes, with -o)")
    if r.code == 1:
        probs += _check_error_line(r)
        if r.output != SENTINEL:
            probs.append("the existing -o file was modified by a failed run")
    elif r.code == 0:
        if r.output is None:
            probs.append("exit 0 but the -o file is gone")
        elif r.output == SENTINEL:
            probs.append("exit 0 but the -o file was not written")
    # Triton as the oracle (only when the run itself is sound)
    if r.code == 0 and r.triton_in and r.triton_in.get("ok"):
        if r.triton_out is None:
            pass
        elif r.triton_out.get("crashed"):
            probs.append(f"oracle: Triton crashed on the output: {r.triton_out.get('message')}")
        elif not r.triton_out.get("ok"):
            why = r.triton_out.get("diag") or r.triton_out.get("message")
            probs.append(f"Triton accepts the input but rejects ttopt's output: {why}")
        elif r.same_print is False:
            probs.append("round trip changed the module: Triton's print of the output differs "
                         "from its print of the input")
    return probs


def _check_error_line(r: Result) -> list[str]:
    v = r.variant
    err = r.stderr.decode("utf-8", "replace")
    if not err.endswith("\n") or err.count("\n") != 1:
        return [f"stderr is not exactly one line ({err.count(chr(10))} newlines)"]
    line = err[:-1]
    files = ["<stdin>"] if r.mode == "stdin" else [r.input_path, r.output_path]
    for f in files:
        if line.startswith(f + ":"):
            rest = line[len(f) + 1:]
            break
    else:
        return ["stderr does not start with FILE: (the input's name)"]
    m = re.match(r"(\d+):(\d+): error: (.*)$", rest, re.S) or re.match(r" error: (.*)$", rest, re.S)
    if not m:
        return ["stderr is not 'FILE:LINE:COL: error: MESSAGE' (nor 'FILE: error: MESSAGE')"]
    msg = m.group(m.lastindex)
    probs = []
    if not msg.strip():
        probs.append("empty error message")
    if m.lastindex == 3:
        ln, col = int(m.group(1)), int(m.group(2))
        lines = v.data.split(b"\n")
        if not 1 <= ln <= len(lines):
            probs.append(f"error line {ln} outside the input (1..{len(lines)})")
        elif not 1 <= col <= len(lines[ln - 1]) + 1:
            probs.append(f"error column {col} outside line {ln} (length {len(lines[ln - 1])})")
    text = v.data.decode("utf-8", "replace")
    leftovers = [p for p in PLACEHOLDER.findall(msg) if p not in text]
    if leftovers:
        probs.append(f"unformatted placeholder {leftovers[0]} in the message")
    if CONTROL.search(msg):
        probs.append(f"control character {CONTROL.search(msg).group()!r} in the message")
    return probs


# ---------------------------------------------------------------------------------------------
# the worker: one process, ttopt imported once, the click command called in process


class _VariantTimeout(BaseException):
    pass


def _on_alarm(signum, frame):
    raise _VariantTimeout()


def _call_cli(args: list[str]) -> int:
    """What ``python -m ttopt.cli ARGS`` would exit with; output goes to fds 1 and 2."""
    from ttopt.cli import main

    try:
        main.main(args=args, prog_name="ttopt-opt", standalone_mode=True)
        return 0
    except SystemExit as e:
        if e.code is None:
            return 0
        if isinstance(e.code, int):
            return e.code
        print(e.code, file=sys.stderr)
        return 1


class _Redirect:
    """fds 1 and 2 (and sys.stdout/sys.stderr, which write to them) into two files."""

    def __init__(self, out_path: str | None, err_path: str):
        self.paths = (out_path, err_path)

    def __enter__(self):
        for s in (sys.stdout, sys.stderr):
            s.flush()
        self.saved = [os.dup(1), os.dup(2)]
        for fd, p in zip((1, 2), self.paths):
            if p is not None:
                f = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(f, fd)
                os.close(f)
        return self

    def __exit__(self, *exc):
        for s in (sys.stdout, sys.stderr):
            try:
                s.flush()
            except Exception:
                pass
        for fd, saved in zip((1, 2), self.saved):
            os.dup2(saved, fd)
            os.close(saved)
        return False


def _oracle(path: str, suffix: str) -> dict:
    """Triton 3.6's verdict on a file's bytes (ttopt.oracle.triton_accepts)."""
    from ttopt.oracle import triton_accepts

    data = pathlib.Path(path).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        # triton_accepts writes text as UTF-8; bytes that are not UTF-8 (allowed by MLIR inside
        # string literals) go to Triton's parser as they are
        return _oracle_bytes(data, suffix)
    r = triton_accepts(text, suffix)
    return {"ok": bool(r.ok), "message": r.message}


def _oracle_bytes(data: bytes, suffix: str) -> dict:
    from triton._C.libtriton import ir

    from ttopt.oracle import _context

    fd, path = tempfile.mkstemp(suffix=suffix, prefix="ttopt-fuzz-oracle-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    try:
        try:
            mod = ir.parse_mlir_module(path, _context())
        except RuntimeError as e:
            return {"ok": False, "message": f"parse failed: {e}"}
        mod.context = _context()
        return {"ok": bool(mod.verify()), "message": "" if mod.verify() else "verification failed"}
    finally:
        os.unlink(path)


def _triton_print(path: str, suffix: str) -> str | None:
    from ttopt.oracle import triton_module_text

    try:
        return triton_module_text(pathlib.Path(path).read_bytes().decode("utf-8"), suffix)
    except Exception:
        return None


def _first_diag(path: str) -> str:
    """The first error Triton printed (its temporary file's name replaced by FILE)."""
    try:
        lines = [s for s in pathlib.Path(path).read_text("utf-8", "replace").splitlines() if "error" in s]
    except OSError:
        return ""
    if not lines:
        return ""
    return re.sub(r'"[^"]*ttopt-(?:fuzz-)?oracle-[^"]*"', "FILE", lines[-1].strip())[:300]


def worker_main(workdir: str) -> int:
    proto_in = os.fdopen(os.dup(0), "r")
    proto_out = os.fdopen(os.dup(1), "w", buffering=1)
    empty = os.path.join(workdir, "empty-stdin")
    open(empty, "wb").close()
    fd = os.open(empty, os.O_RDONLY)
    os.dup2(fd, 0)
    os.close(fd)
    tmp = os.path.join(workdir, "tmp")
    os.makedirs(tmp, exist_ok=True)
    tempfile.tempdir = tmp
    sys.path.insert(0, str(ROOT))
    t0 = time.monotonic()
    import ttopt.cli  # noqa: F401

    signal.signal(signal.SIGALRM, _on_alarm)
    proto_out.write(json.dumps({"ready": True, "import_s": time.monotonic() - t0}) + "\n")
    for line in proto_in:
        job = json.loads(line)
        if job["op"] == "ttopt":
            res = {"id": job["id"], "timed_out": False, "exc": None}
            t = time.monotonic()
            with _Redirect(job["stdout"], job["stderr"]):
                signal.setitimer(signal.ITIMER_REAL, job["timeout"])
                try:
                    try:
                        code = _call_cli(job["args"])
                    finally:
                        signal.setitimer(signal.ITIMER_REAL, 0)
                except _VariantTimeout:
                    code, res["timed_out"] = None, True
                except BaseException as e:  # escaped the CLI: the interpreter would print it
                    traceback.print_exc()
                    code, res["exc"] = 1, f"{type(e).__name__}: {e}"[:300]
            res["code"] = code
            res["seconds"] = time.monotonic() - t
            proto_out.write(json.dumps(res) + "\n")
            if res["timed_out"]:
                return 0  # ttopt's thread may still run: the parent starts a fresh worker
        elif job["op"] == "oracle":
            res = {"id": job["id"]}
            with _Redirect(None, job["diag"]):
                res["input"] = _oracle(job["input"], job["suffix"])
                if not res["input"]["ok"]:
                    res["input"]["diag"] = _first_diag(job["diag"])
                if job.get("output"):
                    res["output"] = _oracle(job["output"], job["suffix"])
                    if not res["output"]["ok"]:
                        res["output"]["diag"] = _first_diag(job["diag"])
                    elif res["input"]["ok"] and job.get("compare_print"):
                        a = _triton_print(job["input"], job["suffix"])
                        b = _triton_print(job["output"], job["suffix"])
                        res["same_print"] = None if a is None or b is None else a == b
            proto_out.write(json.dumps(res) + "\n")
    return 0


# ---------------------------------------------------------------------------------------------
# the parent: a pool of workers, each restarted when it dies or overruns


class _Worker:
    def __init__(self, workdir: pathlib.Path, env: dict, slot: int):
        self.workdir, self.env, self.slot = workdir, env, slot
        self.proc: subprocess.Popen | None = None
        self.starts = 0
        self.failed_starts = 0  # in a row; after 2 the slot gives up (ttopt does not import?)
        self.broken = ""
        self.import_s: list[float] = []

    def log_path(self) -> pathlib.Path:
        return self.workdir / f"worker{self.slot}.{self.starts}.log"

    def ensure(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            return
        self.stop()
        if self.broken:
            raise RuntimeError(self.broken)
        self.starts += 1
        wd = self.workdir / f"worker{self.slot}"
        wd.mkdir(parents=True, exist_ok=True)
        self.log = open(self.log_path(), "wb")
        self.proc = subprocess.Popen(
            [sys.executable, str(pathlib.Path(__file__).resolve()), "--worker", str(wd)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
            cwd=ROOT, env=self.env, text=True, bufsize=1,
        )
        ready = self.ask(None, WORKER_START_TIMEOUT)
        if not ready or not ready.get("ready"):
            msg = f"the fuzz worker did not start: {self.log_tail()}"
            self.failed_starts += 1
            if self.failed_starts >= 2:
                self.broken = msg
            self.stop()
            raise RuntimeError(msg)
        self.failed_starts = 0
        self.import_s.append(ready["import_s"])

    def ask(self, job: dict | None, timeout: float) -> dict | None:
        """Send ``job`` (None: only read), return the answer; None when the worker died or
        was killed for overrunning ``timeout``."""
        proc = self.proc
        killed = threading.Event()

        def kill():
            killed.set()
            proc.kill()  # our own child, by its handle

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            if job is not None:
                proc.stdin.write(json.dumps(job) + "\n")
                proc.stdin.flush()
            line = proc.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        finally:
            timer.cancel()
        self.killed = killed.is_set()
        return json.loads(line) if line else None

    def log_tail(self, n: int = 5) -> str:
        try:
            lines = self.log_path().read_text("utf-8", "replace").strip().splitlines()
        except OSError:
            return ""
        return " | ".join(lines[-n:])

    def stop(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                try:
                    self.proc.stdin.close()
                    self.proc.wait(timeout=5)
                except Exception:
                    self.proc.kill()
                    self.proc.wait()
            else:
                self.proc.wait()
            self.proc = None
            self.log.close()


@dataclasses.dataclass
class Campaign:
    results: list[Result]
    seconds: float
    workers: int
    worker_starts: int
    sources: list[Source]
    sources_kind: str

    def failures(self, modes=("worker", "process", "stdin"), oracle: bool | None = None) -> list[Result]:
        """Results with problems, in ``modes``; ``oracle``: only those with (True) or without
        (False) a problem found by Triton, None: all."""
        out = []
        for r in self.results:
            if r.mode not in modes or not r.problems:
                continue
            if oracle is None or any(is_oracle_problem(p) == oracle for p in r.problems):
                out.append(r)
        return out

    def accepted_but_triton_rejects(self) -> list[Result]:
        return [r for r in self.results if r.mode == "worker" and r.code == 0 and r.triton_in
                and not r.triton_in.get("ok")]

    def rejected_but_triton_accepts(self, exclude=()) -> list[Result]:
        return [r for r in self.results if r.mode == "worker" and r.code == 1 and r.triton_in
                and r.triton_in.get("ok") and r.variant.mutation not in exclude]


def run_campaign(workdir: pathlib.Path, variants: list[Variant] | None = None, jobs: int = 2,
                 deadline_s: float = 150.0, process: list[tuple[Variant, str]] | None = None) -> Campaign:
    """Run every variant in workers, and ``process`` (default: ``process_variants``) as real
    processes; check the contract on each.  All files live under ``workdir``."""
    t0 = time.monotonic()
    workdir = pathlib.Path(workdir)
    sources = source_files()
    variants = generate_variants(sources) if variants is None else variants
    tmp = workdir / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, TMPDIR=str(tmp))
    env.setdefault("TRITON_CACHE_DIR", str(workdir / "triton-cache"))
    todo: list[Result] = []
    for i, v in enumerate(variants):
        todo.append(Result(v, "worker"))
    for v, mode in process_variants(variants) if process is None else process:
        todo.append(Result(v, mode))
    for i, r in enumerate(todo):
        d = workdir / "runs" / f"{i:04d}"
        (d / "out").mkdir(parents=True, exist_ok=True)
        r.input_path = str(d / f"input{r.variant.suffix}")
        pathlib.Path(r.input_path).write_bytes(r.variant.data)
        r.output_path = str(d / "out" / f"out{r.variant.suffix}")
    # the slow real processes first, so they overlap the workers' start
    order = sorted(range(len(todo)), key=lambda i: todo[i].mode == "worker")
    lock = threading.Lock()
    queue = iter(order)
    workers = [_Worker(workdir, env, s) for s in range(jobs)]
    deadline = t0 + deadline_s
    timeouts: collections.Counter = collections.Counter()

    def loop(w: _Worker):
        while True:
            with lock:
                i = next(queue, None)
            if i is None:
                return
            r = todo[i]
            mutation = r.variant.mutation
            if time.monotonic() > deadline:
                r.not_run = f"the campaign's overall deadline ({deadline_s:g} s) passed first"
            elif timeouts[mutation] >= MAX_TIMEOUTS_PER_MUTATION:
                r.not_run = (f"{timeouts[mutation]} variants of '{mutation}' timed out already "
                             f"(each costs {PER_RUN_TIMEOUT:g} s and a worker restart)")
            else:
                try:
                    _run_one(w, r, env)
                except Exception as e:  # the harness itself: report it on the variant
                    r.crashed = f"fuzz harness error: {type(e).__name__}: {e}"
                if r.timed_out:
                    with lock:
                        timeouts[mutation] += 1
            r.problems = check(r)

    threads = [threading.Thread(target=loop, args=(w,), daemon=True) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for w in workers:
        w.stop()
    return Campaign(todo, time.monotonic() - t0, jobs, sum(w.starts for w in workers), sources,
                    sources_kind())


def _run_one(w: _Worker, r: Result, env: dict) -> None:
    d = pathlib.Path(r.input_path).parent
    out = pathlib.Path(r.output_path)
    out.write_bytes(SENTINEL)
    t = time.monotonic()
    if r.mode == "worker":
        w.ensure()
        job = {"op": "ttopt", "id": d.name, "timeout": PER_RUN_TIMEOUT,
               "args": [r.input_path, "-o", r.output_path, *r.variant.args],
               "stdout": str(d / "stdout"), "stderr": str(d / "stderr")}
        ans = w.ask(job, PER_RUN_TIMEOUT + 5)
        if ans is None:
            w.proc.wait()
            if w.killed:
                r.timed_out = True
            else:
                r.crashed = (f"the worker died (exit status {w.proc.returncode}) on this variant; "
                             f"log: {w.log_tail()}")
            w.stop()
        else:
            r.code, r.timed_out = ans["code"], ans["timed_out"]
            if ans["timed_out"]:
                w.stop()  # it exits by itself; ttopt's thread may still be running
        r.stdout = _read(d / "stdout")
        r.stderr = _read(d / "stderr")
    else:
        cmd = [sys.executable, "-m", "ttopt.cli"]
        cmd += ["-", "-o", r.output_path] if r.mode == "stdin" else [r.input_path, "-o", r.output_path]
        cmd += r.variant.args
        stdin = open(r.input_path, "rb") if r.mode == "stdin" else subprocess.DEVNULL
        try:
            p = subprocess.run(cmd, stdin=stdin, capture_output=True, cwd=ROOT, env=env,
                               timeout=PER_RUN_TIMEOUT + PROCESS_START_ALLOWANCE)
            r.code, r.stdout, r.stderr = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired as e:  # subprocess.run killed its child
            r.timed_out, r.stdout, r.stderr = True, e.stdout or b"", e.stderr or b""
        finally:
            if stdin is not subprocess.DEVNULL:
                stdin.close()
    r.seconds = time.monotonic() - t
    r.output = out.read_bytes() if out.exists() else None
    r.left_in_dir = sorted(os.listdir(out.parent))
    if r.timed_out or r.crashed or r.code not in (0, 1):
        return
    # Triton's verdict on the input (and on the output when ttopt accepted)
    w.ensure()
    job = {"op": "oracle", "id": d.name, "input": r.input_path, "suffix": r.variant.suffix,
           "diag": str(d / "triton-diag")}
    if r.code == 0 and r.output is not None and r.output != SENTINEL:
        job["output"] = r.output_path
        job["compare_print"] = not r.variant.args
    ans = w.ask(job, 60)
    if ans is None:
        w.proc.wait()
        r.triton_in = {"ok": False, "message": "Triton crashed on the input", "crashed": True}
        if "output" in job:
            r.triton_out = {"ok": False, "crashed": True,
                            "message": f"Triton or the worker crashed (status {w.proc.returncode})"}
        w.stop()
        return
    r.triton_in = ans["input"]
    r.triton_out = ans.get("output")
    r.same_print = ans.get("same_print")


def _read(p: pathlib.Path) -> bytes:
    try:
        return p.read_bytes()
    except OSError:
        return b""


# ---------------------------------------------------------------------------------------------
# reports


def repro_command(r: Result) -> str:
    v = r.variant
    ext = v.suffix
    run = f".venv/bin/python -m ttopt.cli /tmp/v{ext} -o /tmp/out{ext} {' '.join(v.args)}".rstrip()
    if r.mode == "stdin":
        run = f".venv/bin/python -m ttopt.cli - -o /tmp/out{ext} {' '.join(v.args)} < /tmp/v{ext}"
        run = run.replace("  ", " ")
    return f".venv/bin/python test/fuzzing.py --dump '{v.key}' /tmp/v{ext} && {run}"


def _first_lines(b: bytes, n: int = 3, width: int = 240) -> list[str]:
    lines = b.decode("utf-8", "replace").splitlines()
    if any("Traceback" in s for s in lines):  # the end of a traceback says most
        lines = lines[-n:]
    return [s[:width] for s in lines[:n]]


def describe(r: Result) -> str:
    v = r.variant
    args = " ".join(v.args) or "(round trip)"
    head = f"- [{v.mutation}] {v.name}  (mode={r.mode}, exit={r.code}, {args})"
    body = [f"    problem: {p}" for p in r.problems]
    body += [f"    stderr: {s}" for s in _first_lines(r.stderr)]
    body.append(f"    repro: {repro_command(r)}")
    return "\n".join([head, *body])


PROBLEM_KINDS = [  # (prefix of a problem, its short name in the table)
    ("timeout", "timeout"), ("crash", "crash"), ("traceback", "traceback"),
    ("exit status", "exit status not 0/1"), ("stderr is not exactly one line", "stderr not one line"),
    ("stderr", "stderr not FILE:L:C: error:"), ("files left", "temp file left"),
    ("stdout", "stdout not empty"), ("the existing -o", "-o file modified"),
    ("unformatted placeholder", "{placeholder} in message"), ("control character", "control char in message"),
    ("error line", "LINE outside input"), ("error column", "COL outside line"),
    ("empty error message", "empty message"), ("Triton accepts the input", "valid in, invalid out"),
    ("round trip changed", "round trip changed module"), ("exit 0", "exit 0, no output"),
    ("not run", "not run"), ("oracle", "Triton crashed on output"),
]


def problem_kind(p: str) -> str:
    for pre, kind in PROBLEM_KINDS:
        if p.startswith(pre):
            return kind
    return p.split(":")[0]


def failure_table(results: list[Result]) -> str:
    """category x problem kind: count and one example message."""
    rows: dict[tuple[str, str], list[Result]] = collections.defaultdict(list)
    for r in results:
        for kind in sorted({problem_kind(p) for p in r.problems}):
            rows[(r.variant.mutation, kind)].append(r)
    out = [f"{'category':20s} {'problem':28s} {'count':>5s}  example"]
    for (cat, kind), rs in sorted(rows.items()):
        ex = rs[0]
        msg = (_first_lines(ex.stderr, 1) or [""])[0] or ex.problems[0]
        out.append(f"{cat:20s} {kind:28s} {len(rs):5d}  {ex.variant.name}: {msg[:160]}")
    return "\n".join(out)


def category_table(c: Campaign) -> str:
    rows = collections.OrderedDict((m, collections.Counter()) for m in MUTATIONS)
    for r in c.results:
        if r.mode != "worker":
            continue
        cnt = rows[r.variant.mutation]
        cnt["variants"] += 1
        cnt[f"exit {r.code}" if r.code in (0, 1) else "other"] += 1
        cnt["failing"] += bool(r.problems)
        if r.code == 0 and r.triton_in and not r.triton_in.get("ok"):
            cnt["acc/Triton-rej"] += 1
        if r.code == 1 and r.triton_in and r.triton_in.get("ok"):
            cnt["rej/Triton-acc"] += 1
    cols = ["variants", "exit 0", "exit 1", "other", "failing", "acc/Triton-rej", "rej/Triton-acc"]
    out = [f"{'category':20s} " + " ".join(f"{c:>14s}" for c in cols)]
    for m, cnt in rows.items():
        out.append(f"{m:20s} " + " ".join(f"{cnt[c]:14d}" for c in cols))
    tot = collections.Counter()
    for cnt in rows.values():
        tot.update(cnt)
    out.append(f"{'TOTAL':20s} " + " ".join(f"{tot[c]:14d}" for c in cols))
    return "\n".join(out)


def summary(c: Campaign) -> str:
    n_worker = sum(r.mode == "worker" for r in c.results)
    n_proc = len(c.results) - n_worker
    acc = c.accepted_but_triton_rejects()
    rej = c.rejected_but_triton_accepts()
    lines = [
        f"fuzz: {n_worker} variants in {c.workers} workers + {n_proc} as real processes, "
        f"{len(c.sources)} sources ({c.sources_kind}), seed {SEED}, {c.seconds:.1f} s, "
        f"{c.worker_starts} worker starts",
        category_table(c),
        f"accepted by ttopt but rejected by Triton: {len(acc)}",
        *[f"  {r.variant.name}: {(r.triton_in or {}).get('diag') or (r.triton_in or {}).get('message')}"[:260]
          for r in acc[:8]],
        f"rejected by ttopt but accepted by Triton (its ratchet leaves out nul): {len(rej)}",
        *[f"  {r.variant.name}: {_first_lines(r.stderr, 1)[0][:200] if r.stderr else ''}" for r in rej[:8]],
    ]
    fails = c.failures()
    lines.append(f"variants failing the contract: {len(fails)}")
    if fails:
        lines.append(failure_table(fails))
    return "\n".join(lines)


def to_json(c: Campaign) -> list[dict]:
    return [{
        "name": r.variant.name, "category": r.variant.mutation, "mode": r.mode, "args": r.variant.args,
        "code": r.code, "timed_out": r.timed_out, "crashed": r.crashed, "seconds": round(r.seconds, 3),
        "stderr": r.stderr.decode("utf-8", "replace")[-2000:], "problems": r.problems,
        "triton_in": r.triton_in, "triton_out": r.triton_out, "same_print": r.same_print,
        "repro": repro_command(r),
    } for r in c.results]


# ---------------------------------------------------------------------------------------------
# command line


def _check_one(name: str) -> int:
    v = variant_by_name(name)
    with tempfile.TemporaryDirectory(prefix="ttopt-fuzz-") as d:
        c = run_campaign(pathlib.Path(d), [v], jobs=1, process=[(v, "process")])
        for r in c.results:
            print(f"{r.mode}: exit {r.code}, {r.seconds:.2f} s, triton(input)={r.triton_in}, "
                  f"triton(output)={r.triton_out}, same print={r.same_print}")
            for line in _first_lines(r.stderr, 20, 400):
                print(f"  stderr: {line}")
            for p in r.problems:
                print(f"  PROBLEM: {p}")
        bad = c.failures()
        print("verdict:", "FAIL" if bad else "ok")
        return 1 if bad else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--list", action="store_true", help="print every variant name")
    g.add_argument("--dump", nargs=2, metavar=("NAME", "FILE"), help="write one variant's bytes")
    g.add_argument("--check", metavar="NAME", help="run one variant (worker and real process), check it")
    g.add_argument("--run", action="store_true", help="run the whole campaign, print the report")
    g.add_argument("--worker", metavar="DIR", help=argparse.SUPPRESS)
    ap.add_argument("--json", metavar="FILE", help="with --run: write every result as JSON")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args(argv)
    if a.worker:
        return worker_main(a.worker)
    if a.list:
        for v in generate_variants():
            print(v.name, " ".join(v.args))
        return 0
    if a.dump:
        v = variant_by_name(a.dump[0])
        pathlib.Path(a.dump[1]).write_bytes(v.data)
        print(f"{v.name}: {len(v.data)} bytes -> {a.dump[1]}; run with: {' '.join(v.args) or '(no passes)'}")
        return 0
    if a.check:
        return _check_one(a.check)
    d = tempfile.mkdtemp(prefix="ttopt-fuzz-")
    try:
        c = run_campaign(pathlib.Path(d), jobs=a.jobs)
        print(summary(c))
        for r in c.failures()[:60]:
            print(describe(r))
        if a.json:
            pathlib.Path(a.json).write_text(json.dumps(to_json(c), indent=1))
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return 1 if c.failures() else 0


if __name__ == "__main__":
    sys.exit(main())
