"""Layout verification (ttopt/dialects/layouts.py): ttopt accepts a layout exactly when the
Triton release that wrote the text does.

* **offline tests** (always run): for each rule, a text it rejects (with the message and
  position, for the releases that have the rule) and a near miss it accepts;
* **the oracles** (marked ``versions``, like test/test_versions_oracle.py; skipped without the
  per-release environments of tools/versions/make_envs.py), each text read by ttopt as a
  release 2.1 - 3.9 and parsed and verified by that release's own Triton (each file in a
  forked child: some layouts crash Triton):

  - every text of :data:`CASES`: both accept or both reject, and where Triton reports an
    error (not a crash) the message and the position are the same (but for the cases whose
    ``compare`` says otherwise);
  - seeded mutations of the layouts of each release's fixtures (the fuzz test's kind of
    error): ttopt never rejects what Triton accepts, says what Triton says, and accepts at
    most :data:`MUTATION_GAPS_MAX` texts Triton rejects (what is left out, listed there).

Run only these::

    .venv/bin/python -m pytest -q -m "not versions" test/test_layouts.py   # offline
    .venv/bin/python -m pytest -q test/test_layouts.py                      # the oracles too
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Callable

import pytest

from ttopt.errors import TTOptError
from ttopt.ir.reader import clear_shared_types, read_module

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools" / "versions"))
import triton_versions as V  # noqa: E402

RELEASES = [(2, 1), (2, 2), (2, 3), (3, 0), (3, 1), (3, 2), (3, 3), (3, 4), (3, 5), (3, 6),
            (3, 7), (3, 8), (3, 9)]


# ============================================================================ texts


def P(r) -> str:
    """The TritonGPU dialect's prefix in release ``r``."""
    return "triton_gpu" if r < (3, 3) else "ttg"


def MMA(r) -> str:
    return "mma" if r < (3, 0) else "nvidia_mma"


def SHARED(r) -> str:
    return "shared" if r < (3, 3) else "swizzled_shared"


def module_attrs(r, warps=4, threads=32, ctas=1) -> str:
    p = P(r)
    parts = []
    if ctas is not None and r >= (2, 2):
        parts.append(f'"{p}.num-ctas" = {ctas} : i32')
    if warps is not None:
        parts.append(f'"{p}.num-warps" = {warps} : i32')
    if threads is not None:
        parts.append(f'"{p}.threads-per-warp" = {threads} : i32')
    return "{" + ", ".join(parts) + "}"


def module(r, aliases=(), ops=(), func_attrs="", **attrs) -> str:
    """A TTGIR module of release ``r``: alias lines (``{P}`` is the dialect's prefix), and a
    kernel with ``%x = arith.constant 0 : i32`` then ``ops``."""
    p = P(r)
    lines = [a.replace("{P}", p) for a in aliases]
    lines.append(f"module attributes {module_attrs(r, **attrs)} {{")
    lines.append(f"  tt.func public @k(){func_attrs} {{")
    lines.append("    %x = arith.constant 0 : i32")
    lines += ["    " + o.replace("{P}", p) for o in ops]
    lines.append("    tt.return")
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def splat(r, t: str, x: str = "%x", src: str = "i32") -> str:
    arrow = f"({src}) ->" if r < (3, 0) else f"{src} ->"
    return f"%s = tt.splat {x} : {arrow} {t}"


def make_range(layout: str, n: int = 16) -> str:
    return f"%r = tt.make_range {{end = {n} : i32, start = 0 : i32}} : tensor<{n}xi32, {layout}>"


BLOCKED2 = "{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}"
BLOCKED1 = "{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}"


def mma_body(r, major=2, warps="[2, 2]", extra="") -> str:
    shape = ", instrShape = [16, 8]" if r >= (2, 2) else ""
    return f"{{versionMajor = {major}, versionMinor = 0, warpsPerCTA = {warps}{shape}{extra}}}"


def blocked(body: str = BLOCKED2, name: str = "b") -> str:
    return f"#{name} = #{{P}}.blocked<{body}>"


def with_key(body: str, extra: str) -> str:
    return body[:-1] + extra + "}"


def alias_only(kind: str, body: Callable[[tuple], str | None] | str, deps=()) -> Callable:
    """A module that defines (only) ``#l = #<prefix>.<kind><body>`` after ``deps``."""

    def text(r):
        b = body(r) if callable(body) else body
        if b is None:
            return None
        k = kind(r) if callable(kind) else kind
        return module(r, [*(d(r) if callable(d) else d for d in deps), f"#l = #{{P}}.{k}<{b}>"])

    return text


@dataclass
class Case:
    name: str
    text: Callable[[tuple], str | None]
    compare: str = "all"  # "all": message and position (of a layout's own error); "verdict": accept/reject alone
    releases: tuple = ()  # () all; else only these


CASES: list[Case] = []


def case(name, text, compare="all", releases=()):
    CASES.append(Case(name, text, compare, tuple(releases)))


# ---------------------------------------------------------------------------- blocked
case("blocked valid", alias_only("blocked", BLOCKED2))
case("blocked empty dict", alias_only("blocked", "{}"))
case("blocked quoted key", alias_only("blocked", BLOCKED2.replace("sizePerThread", '"sizePerThread"')))
case("blocked misspelled key", alias_only("blocked", BLOCKED2.replace("threadsPerWarp", "threadsParWarp")))
case("blocked unknown key", alias_only("blocked", with_key(BLOCKED2, ", foo = 1")))
case("blocked unit key", alias_only("blocked", with_key(BLOCKED2, ", foo")))
case("blocked two unknown keys (first by name)", alias_only("blocked", with_key(BLOCKED2, ", zz = 1, aa = 2")))
case("blocked duplicate key", alias_only("blocked", BLOCKED2.replace("{", "{order = [1, 0], ")))
case("blocked key error before value error (sorted)", alias_only("blocked", BLOCKED2.replace("sizePerThread = [1, 1]", "sizePerThread = 1, aaa = 2")))
for key, desc in [("sizePerThread", "[1, 1]"), ("threadsPerWarp", "[4, 8]"), ("warpsPerCTA", "[2, 2]"), ("order", "[1, 0]")]:
    for label, bad in [("scalar", "1"), ("floats", "[1.0, 1.0]"), ("negative", "[-1, 1]"),
                       ("bool", "[true, 1]"), ("string", '"x"'), ("dense array", "array<i32: 1, 1>"),
                       ("typed", "[1 : i64, 1 : ui32]"), ("signed negative", "[-1 : si32, 1]")]:
        case(f"blocked {key} {label}", alias_only("blocked", BLOCKED2.replace(f"{key} = {desc}", f"{key} = {bad}")))
    case(f"blocked missing {key}", alias_only("blocked", re.sub(rf"{key} = \[[^\]]*\](, )?", "", BLOCKED2).replace(", }", "}")))
case("blocked rank mismatch", alias_only("blocked", BLOCKED2.replace("order = [1, 0]", "order = [2, 1, 0]")))
case("blocked order not a permutation", alias_only("blocked", BLOCKED2.replace("order = [1, 0]", "order = [0, 0]")))
case("blocked order out of range", alias_only("blocked", BLOCKED2.replace("order = [1, 0]", "order = [1, 2]")))
case("blocked sizePerThread not a power of two", alias_only("blocked", BLOCKED2.replace("sizePerThread = [1, 1]", "sizePerThread = [3, 1]")))
case("blocked threadsPerWarp not a power of two", alias_only("blocked", BLOCKED2.replace("threadsPerWarp = [4, 8]", "threadsPerWarp = [3, 8]")))
case("blocked warpsPerCTA zero", alias_only("blocked", BLOCKED2.replace("warpsPerCTA = [2, 2]", "warpsPerCTA = [0, 2]")))
CTA = ", CTAsPerCGA = [1, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]"
case("blocked CTA keys", alias_only("blocked", with_key(BLOCKED2, CTA)))
case("blocked CTA keys, two CTAs", alias_only("blocked", with_key(BLOCKED2, CTA.replace("CTAsPerCGA = [1, 1]", "CTAsPerCGA = [1, 2]"))))
case("blocked CTAsPerCGA alone", alias_only("blocked", with_key(BLOCKED2, ", CTAsPerCGA = [1, 1]")), compare="all")
case("blocked CTA lengths differ", alias_only("blocked", with_key(BLOCKED2, CTA.replace("CTAsPerCGA = [1, 1]", "CTAsPerCGA = [1]"))))
case("blocked CTAOrder short", alias_only("blocked", with_key(BLOCKED2, CTA.replace("CTAOrder = [1, 0]", "CTAOrder = [0]"))))
case("blocked CTA rank 3", alias_only("blocked", with_key(BLOCKED2, ", CTAsPerCGA = [1, 1, 1], CTASplitNum = [1, 1, 1], CTAOrder = [2, 1, 0]")))
case("blocked CTAsPerCGA not an array", alias_only("blocked", with_key(BLOCKED2, CTA.replace("CTAsPerCGA = [1, 1]", "CTAsPerCGA = 1"))))
case("blocked CTAOrder floats", alias_only("blocked", with_key(BLOCKED2, CTA.replace("CTAOrder = [1, 0]", "CTAOrder = [1.0, 0.0]"))))
case("blocked CGALayout", alias_only("blocked", with_key(BLOCKED2, ", CGALayout = [[0, 0]]")))
case("blocked CGALayout empty", alias_only("blocked", with_key(BLOCKED2, ", CGALayout = []")))
case("blocked CGALayout entry length", alias_only("blocked", with_key(BLOCKED2, ", CGALayout = [[0]]")))
case("blocked CGALayout not an array", alias_only("blocked", with_key(BLOCKED2, ", CGALayout = 1")))
case("blocked CGALayout entry not an array", alias_only("blocked", with_key(BLOCKED2, ", CGALayout = [1]")))
case("blocked CGALayout two dimensions in a basis", alias_only("blocked", with_key(BLOCKED2, ", CGALayout = [[4, 1]]")))
case("blocked CGALayout a gap", alias_only("blocked", with_key(BLOCKED2, ", CGALayout = [[0, 2]]")))
case("blocked CGALayout two bases", alias_only("blocked", with_key(BLOCKED2, ", CGALayout = [[0, 1], [1, 0]]")))
case("blocked CGALayout a repeated basis", alias_only("blocked", with_key(BLOCKED2, ", CGALayout = [[0, 1], [0, 1]]")))
case("blocked inline in a type, misspelled key", lambda r: module(r, ops=[make_range("#{P}.blocked<" + BLOCKED1.replace("order", "ordr") + ">", 128)]))
case("blocked rank 0", alias_only("blocked", "{sizePerThread = [], threadsPerWarp = [], warpsPerCTA = [], order = []}"))

# ---------------------------------------------------------------------------- mma
case("mma valid", alias_only(MMA, mma_body))
case("mma unknown key ignored", alias_only(MMA, lambda r: mma_body(r, extra=", foo = 1")))
case("mma duplicate key", alias_only(MMA, lambda r: mma_body(r).replace("{", "{versionMinor = 0, ")))
for key, good in [("versionMajor", "2"), ("versionMinor", "0")]:
    for label, bad in [("float", "2.0"), ("negative", "-1"), ("bool", "true"), ("array", "[1]"), ("string", '"x"')]:
        case(f"mma {key} {label}", alias_only(MMA, lambda r, key=key, good=good, bad=bad: mma_body(r).replace(f"{key} = {good}", f"{key} = {bad}")))
for label, bad in [("scalar", "1"), ("floats", "[1.0]"), ("negative", "[-1, 0]")]:
    case(f"mma warpsPerCTA {label}", alias_only(MMA, lambda r, bad=bad: mma_body(r, warps=bad)))
    case(f"mma instrShape {label}", alias_only(MMA, lambda r, bad=bad: mma_body(r).replace("instrShape = [16, 8]", f"instrShape = {bad}") if r >= (2, 2) else None))
case("mma Volta", alias_only(MMA, lambda r: mma_body(r, major=1)))
case("mma versionMajor 0", alias_only(MMA, lambda r: mma_body(r, major=0)))
case("mma Hopper", alias_only(MMA, lambda r: mma_body(r, major=3, warps="[4, 1]").replace("[16, 8]", "[16, 64, 16]")))
case("mma CTA keys", alias_only(MMA, lambda r: mma_body(r, extra=CTA)))
case("mma CTAsPerCGA alone", alias_only(MMA, lambda r: mma_body(r, extra=", CTAsPerCGA = [1, 1]")))
case("mma CTAsPerCGA not an array", alias_only(MMA, lambda r: mma_body(r, extra=CTA.replace("CTAsPerCGA = [1, 1]", "CTAsPerCGA = 1"))))
case("mma CGALayout", alias_only(MMA, lambda r: mma_body(r, extra=", CGALayout = [[0, 0]]")))
case("mma CGALayout entry length", alias_only(MMA, lambda r: mma_body(r, extra=", CGALayout = [[0]]")))

# ---------------------------------------------------------------------------- shared
SWZ = "{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}"
case("shared valid", alias_only(SHARED, SWZ))
case("shared unknown key", alias_only(SHARED, with_key(SWZ, ", foo = 1")))
case("shared hasLeadingOffset", alias_only(SHARED, with_key(SWZ, ", hasLeadingOffset = true")))
case("shared hasLeadingOffset not a bool", alias_only(SHARED, with_key(SWZ, ", hasLeadingOffset = 1")))
for key in ("vec", "perPhase", "maxPhase"):
    for label, bad in [("float", "2.0"), ("negative", "-1"), ("array", "[1]")]:
        case(f"shared {key} {label}", alias_only(SHARED, re.sub(rf"{key} = \d+", f"{key} = {bad}", SWZ)))
case("shared order not an array", alias_only(SHARED, SWZ.replace("order = [1, 0]", "order = 1")))
case("shared order not a permutation", alias_only(SHARED, SWZ.replace("order = [1, 0]", "order = [1, 1]")))
case("shared order rank 1 permutation", alias_only(SHARED, SWZ.replace("order = [1, 0]", "order = [1]")))
case("shared CTA keys", alias_only(SHARED, with_key(SWZ, CTA)))
case("shared CTA rank 3", alias_only(SHARED, with_key(SWZ, ", CTAsPerCGA = [1, 1, 1], CTASplitNum = [1, 1, 1], CTAOrder = [2, 1, 0]")))
case("shared CTAsPerCGA alone", alias_only(SHARED, with_key(SWZ, ", CTAsPerCGA = [1, 1]")))
case("shared CGALayout", alias_only(SHARED, with_key(SWZ, ", CGALayout = [[0, 0]]")))
case("shared instrShape", alias_only(SHARED, with_key(SWZ, ", instrShape = [16, 8]")))

NVMMA = "{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}"
case("nvmma_shared valid", alias_only("nvmma_shared", lambda r: NVMMA if r >= (3, 3) else None))
case("nvmma_shared unknown key", alias_only("nvmma_shared", lambda r: with_key(NVMMA, ", foo = 1") if r >= (3, 3) else None))
case("nvmma_shared transposed not a bool", alias_only("nvmma_shared", lambda r: NVMMA.replace("transposed = false", "transposed = 1") if r >= (3, 3) else None))
case("nvmma_shared fp4Padded", alias_only("nvmma_shared", lambda r: with_key(NVMMA, ", fp4Padded = true") if r >= (3, 3) else None))
case("nvmma_shared fp4Padded not a bool", alias_only("nvmma_shared", lambda r: with_key(NVMMA, ", fp4Padded = 2") if r >= (3, 3) else None))
case("nvmma_shared swizzlingByteWidth 16", alias_only("nvmma_shared", lambda r: NVMMA.replace("= 64", "= 16") if r >= (3, 3) else None))
case("nvmma_shared swizzlingByteWidth float", alias_only("nvmma_shared", lambda r: NVMMA.replace("= 64", "= 64.0") if r >= (3, 3) else None))
case("nvmma_shared elementBitWidth 0", alias_only("nvmma_shared", lambda r: NVMMA.replace("= 16", "= 0") if r >= (3, 3) else None))
case("nvmma_shared rank", alias_only("nvmma_shared", lambda r: with_key(NVMMA, ", rank = 3") if r >= (3, 3) else None))
case("nvmma_shared CTA keys", alias_only("nvmma_shared", lambda r: with_key(NVMMA, CTA) if r >= (3, 3) else None))
case("nvmma_shared CGALayout", alias_only("nvmma_shared", lambda r: with_key(NVMMA, ", CGALayout = [[0, 0]]") if r >= (3, 3) else None))

# ---------------------------------------------------------------------------- slice
B1 = blocked(BLOCKED1, "b1")
B2 = blocked(BLOCKED2, "b")
case("slice valid", alias_only("slice", "{dim = 1, parent = #b}", [B2]))
case("slice of a slice", alias_only("slice", "{dim = 0, parent = #{P}.slice<{dim = 0, parent = #b3}>}",
                                    ["#b3 = #{P}.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [2, 2, 8], warpsPerCTA = [1, 2, 2], order = [2, 1, 0]}>"]))
case("slice dim out of range", alias_only("slice", "{dim = 2, parent = #b}", [B2]))
case("slice dim -1", alias_only("slice", "{dim = -1, parent = #b}", [B2]))
case("slice of a rank-1 layout", alias_only("slice", "{dim = 0, parent = #b1}", [B1]))
case("slice unknown key ignored", alias_only("slice", "{dim = 1, parent = #b, foo = 1}", [B2]))
case("slice duplicate key", alias_only("slice", "{dim = 1, dim = 1, parent = #b}", [B2]))
case("slice without dim", alias_only("slice", "{parent = #b}", [B2]), compare="verdict")
case("slice dim float", alias_only("slice", "{dim = 1.0, parent = #b}", [B2]), compare="verdict")
case("slice without parent", alias_only("slice", "{dim = 1}", [B2]), compare="verdict")
case("slice parent an integer", alias_only("slice", "{dim = 1, parent = 1}", [B2]))
case("slice parent shared", alias_only("slice", "{dim = 1, parent = #s}", [lambda r: f"#s = #{{P}}.{SHARED(r)}<{SWZ}>"]))
case("slice parent mma", alias_only("slice", "{dim = 1, parent = #mma}", [lambda r: f"#mma = #{{P}}.{MMA(r)}<{mma_body(r)}>"]))
case("slice parent undefined", alias_only("slice", "{dim = 1, parent = #nope}", [B2]))
case("slice parent misspelled inline", alias_only("slice", "{dim = 1, parent = #{P}.blocked<" + BLOCKED2.replace("order", "ordr") + ">}"))

# ---------------------------------------------------------------------------- dot_op
def MMA_ALIAS(major=2, warps="[2, 2]"):
    return lambda r: f"#mma = #{{P}}.{MMA(r)}<{mma_body(r, major, warps)}>"


case("dot_op valid", alias_only("dot_op", "{opIdx = 0, parent = #mma, kWidth = 2}", [MMA_ALIAS()]))
case("dot_op keys in another order", alias_only("dot_op", "{kWidth = 2, parent = #mma, opIdx = 0}", [MMA_ALIAS()]))
case("dot_op without kWidth", alias_only("dot_op", "{opIdx = 0, parent = #mma}", [MMA_ALIAS()]))
case("dot_op kWidth of a Volta parent", alias_only("dot_op", "{opIdx = 0, parent = #mma, kWidth = 2}", [MMA_ALIAS(1)]))
case("dot_op Volta parent", alias_only("dot_op", "{opIdx = 0, parent = #mma}", [MMA_ALIAS(1)]))
case("dot_op opIdx 1 of a Hopper parent", alias_only("dot_op", "{opIdx = 1, parent = #mma, kWidth = 2}", [MMA_ALIAS(3, "[4, 1]")]))
case("dot_op opIdx 0 of a Hopper parent", alias_only("dot_op", "{opIdx = 0, parent = #mma, kWidth = 2}", [MMA_ALIAS(3, "[4, 1]")]))
case("dot_op opIdx 2", alias_only("dot_op", "{opIdx = 2, parent = #mma, kWidth = 2}", [MMA_ALIAS()]))
case("dot_op opIdx -1", alias_only("dot_op", "{opIdx = -1, parent = #mma, kWidth = 2}", [MMA_ALIAS()]))
case("dot_op opIdx true", alias_only("dot_op", "{opIdx = true, parent = #mma, kWidth = 2}", [MMA_ALIAS()]))
case("dot_op blocked parent", alias_only("dot_op", "{opIdx = 0, parent = #b}", [B2]))
case("dot_op blocked parent with kWidth", alias_only("dot_op", "{opIdx = 0, parent = #b, kWidth = 2}", [B2]))
case("dot_op slice parent", alias_only("dot_op", "{opIdx = 0, parent = #s}", [B2, "#s = #{P}.slice<{dim = 0, parent = #b}>"]))
case("dot_op unknown key", alias_only("dot_op", "{opIdx = 0, parent = #mma, kWidth = 2, foo = 1}", [MMA_ALIAS()]))
case("dot_op duplicate key", alias_only("dot_op", "{opIdx = 0, opIdx = 0, parent = #mma, kWidth = 2}", [MMA_ALIAS()]))
case("dot_op quoted key", alias_only("dot_op", '{"opIdx" = 0, parent = #mma, kWidth = 2}', [MMA_ALIAS()]))
case("dot_op without opIdx", alias_only("dot_op", "{parent = #mma, kWidth = 2}", [MMA_ALIAS()]), compare="all")
case("dot_op without parent", alias_only("dot_op", "{opIdx = 0, kWidth = 2}", [MMA_ALIAS()]), compare="all")
case("dot_op typed opIdx", alias_only("dot_op", "{opIdx = 0 : i32, parent = #mma, kWidth = 2}", [MMA_ALIAS()]))
case("dot_op inline parent", alias_only("dot_op", "{opIdx = 0, parent = #{P}.blocked<" + BLOCKED2 + ">}"))
case("dot_op isMMAv1Row", alias_only("dot_op", "{opIdx = 0, parent = #mma, isMMAv1Row = true}", [MMA_ALIAS(1)]))

# ---------------------------------------------------------------------------- linear
LIN = "{register = [[0, 1]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]], block = []}"
lin = lambda f: (lambda r: f(LIN) if r >= (3, 3) else None)  # noqa: E731
case("linear valid", alias_only("linear", lin(lambda b: b)))
case("linear unknown key ignored", alias_only("linear", lin(lambda b: with_key(b, ", foo = 1"))))
for basis in ("register", "lane", "warp", "block"):
    case(f"linear without {basis}", alias_only("linear", lin(lambda b, basis=basis: re.sub(rf"{basis} = \[(\[[^\]]*\](, )?)*\](, )?", "", b).replace(", }", "}"))))
    case(f"linear {basis} not an array", alias_only("linear", lin(lambda b, basis=basis: re.sub(rf"{basis} = \[(\[[^\]]*\](, )?)*\]", f"{basis} = 1", b))))
case("linear basis of integers", alias_only("linear", lin(lambda b: b.replace("register = [[0, 1]]", "register = [1]"))))
case("linear basis of floats", alias_only("linear", lin(lambda b: b.replace("register = [[0, 1]]", "register = [[0.0, 1.0]]"))))

case("linear two dimensions in a basis", alias_only("linear", lin(lambda b: b.replace("register = [[0, 1]]", "register = [[1, 1]]"))))
case("linear basis not a power of two", alias_only("linear", lin(lambda b: b.replace("register = [[0, 1]]", "register = [[0, 3]]"))))
case("linear broadcast warp basis", alias_only("linear", lin(lambda b: b.replace("[16, 0]]", "[0, 0]]"))))
case("linear repeated basis", alias_only("linear", lin(lambda b: b.replace("register = [[0, 1]]", "register = [[0, 1], [0, 1]]"))))
case("linear empty", alias_only("linear", lambda r: "{register = [], lane = [], warp = [], block = []}" if r >= (3, 3) else None))
case("linear bases that leave a gap", alias_only("linear", lin(lambda b: b.replace("register = [[0, 1]]", "register = [[0, 8]]"))), compare="verdict")
case("linear bases of two ranks", alias_only("linear", lin(lambda b: b.replace("register = [[0, 1]]", "register = [[0, 1, 0]]"))), compare="verdict")
case("linear block basis", alias_only("linear", lin(lambda b: b.replace("block = []", "block = [[32, 0]]"))))

# ---------------------------------------------------------------------------- syntax (MLIR's)
for label, body in [
    ("a key without '='", BLOCKED2.replace("threadsPerWarp = ", "threadsPerWarp ")),
    ("a missing value", BLOCKED2.replace("order = [1, 0]", "order = ")),
    ("two commas in an array", BLOCKED2.replace("[4, 8]", "[4,, 8]")),
    ("an array not closed", BLOCKED2.replace("[4, 8]", "[4, 8 8]")),
    ("a key with a '-'", BLOCKED2.replace("threadsPerWarp", "thre-adsPerWarp")),
    ("a trailing comma", with_key(BLOCKED2, ",")),
    ("an empty string key", with_key(BLOCKED2, ', "" = 1')),
    ("a word for a value", BLOCKED2.replace("order = [1, 0]", "order = alse")),
    ("a minus before an array", BLOCKED2.replace("order = [1, 0]", "order = -[1, 0]")),
    ("a ']' for a '}'", BLOCKED2[:-1] + "]"),
    ("a '{' for a '['", BLOCKED2.replace("[4, 8]", "{4, 8]")),
    ("not a dictionary", "[1, 2]"),
    ("nothing", ""),
    ("a stray character", BLOCKED2.replace("[4, 8]", "[4, 8\x12]")),
    ("a colon and no type", BLOCKED2.replace("[4, 8]", "[4, 8 :]")),
    ("a negated zero", BLOCKED2.replace("[1, 0]", "[1, -0]")),
]:
    case(f"blocked syntax: {label}", alias_only("blocked", body))
case("slice syntax: no dictionary", alias_only("slice", "", [B2]), compare="verdict")
case("slice syntax: a stray key", alias_only("slice", "{dim = 1, parent = #b, 5}", [B2]))
case("dot_op syntax: a trailing comma", alias_only("dot_op", "{opIdx = 0, parent = #mma, kWidth = 2,}", [MMA_ALIAS()]))
case("unbalanced body across lines", lambda r: module(r, ["#b = #{P}.blocked<" + BLOCKED2 + "a"]).replace("tt.func public @k()", 'tt.func public @k() attributes {noinline = "x"}'))

# ---------------------------------------------------------------------------- kinds by release
for kind in ["linear", "nvidia_mma", "mma", "shared", "swizzled_shared", "nvmma_shared", "mfma",
             "wmma", "amd_mfma", "amd_wmma", "padded_shared", "shared_linear",
             "amd_rotating_shared", "partitioned_shared", "generic_linear"]:
    def missing(r, kind=kind):
        from ttopt.dialects.layouts import KIND_RELEASES

        span = KIND_RELEASES[kind]
        if span is not None and span[0] <= r <= span[1]:
            return None  # (only where the release has no such kind)
        return module(r, [f"#l = #{{P}}.{kind}<{{}}>"])

    case(f"kind {kind} in a release without it", missing)
case("kind ttng.tensor_memory_encoding before 3.3",
     lambda r: module(r, ["#l = #triton_nvidia_gpu.tensor_memory_encoding<{blockM = 128, blockN = 128, unpacked = true}>"]) if (2, 2) <= r < (3, 3) else None)

# ---------------------------------------------------------------------------- a blank before '<'
case("blank between a layout's name and its body", lambda r: module(r, ["#b = #{P}.blocked <" + BLOCKED2 + ">"]), compare="verdict")
case("NUL between a layout's name and its body", lambda r: module(r, ["#b = #{P}.blocked\x00<" + BLOCKED2 + ">"]), compare="verdict")
case("blank inside a pointer type", lambda r: module(r, ops=[splat(r, "tensor<16x!tt.ptr<f32>>", "%p", "!tt.ptr <f32>")], func_attrs="").replace(
    "@k()", "@k(%p: !tt.ptr<f32>)"), compare="verdict")

# ---------------------------------------------------------------------------- layouts in a module
G1 = blocked(BLOCKED1, "good")
BAD8 = blocked(BLOCKED1.replace("[4]", "[8]"), "bad")
T8 = "tensor<16xi32, #bad>"
case("module: valid", lambda r: module(r, [G1], [make_range("#good")]))
case("module: warps of a blocked layout", lambda r: module(r, [BAD8], [make_range("#bad")]))
case("module: warps, on an arith op (not checked)", lambda r: module(r, [BAD8], [f"%c = arith.constant dense<0> : {T8}"]))
case("module: warps, as an operand", lambda r: module(r, [G1, BAD8], [f"%c = arith.constant dense<0> : {T8}",
     f"%d = {P(r)}.convert_layout %c : " + (f"({T8}) -> tensor<16xi32, #good>" if r < (3, 0) else f"{T8} -> tensor<16xi32, #good>")]))
case("module: warps, on a ttg op", lambda r: module(r, [G1, BAD8], ["%c = arith.constant dense<0> : tensor<16xi32, #good>",
     f"%d = {P(r)}.convert_layout %c : " + (f"(tensor<16xi32, #good>) -> {T8}" if r < (3, 0) else f"tensor<16xi32, #good> -> {T8}")]))
case("module: 8 warps", lambda r: module(r, [BAD8], [make_range("#bad")], warps=8))
case("module: threads of a blocked layout", lambda r: module(r, [G1], [make_range("#good")], threads=64))
case("module: no threads-per-warp (32)", lambda r: module(r, [G1], [make_range("#good")], threads=None))
case("module: no threads-per-warp, 64-thread layout", lambda r: module(r, [blocked(BLOCKED1.replace("[32]", "[64]"), "t")], [make_range("#t", 256)], threads=None))
case("module: no num-warps", lambda r: module(r, [G1], [make_range("#good")], warps=None))
case("module: no num-warps, no tensor op", lambda r: module(r, [G1], [], warps=None))
case("module: num-ctas 2", lambda r: module(r, [G1], [make_range("#good")], ctas=2))
case("module: no num-ctas", lambda r: module(r, [G1], [make_range("#good")], ctas=None))
case("module: rank of a blocked layout", lambda r: module(r, [B2], [splat(r, "tensor<16xi32, #b>")]))
case("module: 2-D blocked layout", lambda r: module(r, [B2], [splat(r, "tensor<16x16xi32, #b>")]))
case("module: blocked with two CTAs", lambda r: module(r, [blocked(with_key(BLOCKED2, CTA.replace("CTAsPerCGA = [1, 1]", "CTAsPerCGA = [1, 2]")), "c")], [splat(r, "tensor<16x16xi32, #c>")], ctas=2) if (2, 2) <= r < (3, 6) else None)
case("module: blocked with two CTAs, one in the module", lambda r: module(r, [blocked(with_key(BLOCKED2, CTA.replace("CTAsPerCGA = [1, 1]", "CTAsPerCGA = [1, 2]")), "c")], [splat(r, "tensor<16x16xi32, #c>")]) if (2, 2) <= r < (3, 6) else None)
case("module: CGALayout of two CTAs", lambda r: module(r, [blocked(with_key(BLOCKED2, ", CGALayout = [[0, 1]]"), "c")], [splat(r, "tensor<16x16xi32, #c>")], ctas=2) if r >= (3, 6) else None)
case("module: CGALayout of two CTAs, one in the module", lambda r: module(r, [blocked(with_key(BLOCKED2, ", CGALayout = [[0, 1]]"), "c")], [splat(r, "tensor<16x16xi32, #c>")]) if r >= (3, 6) else None)
case("module: slice of a layout of 8 warps", lambda r: module(r, [blocked(BLOCKED2.replace("[2, 2]", "[2, 4]"), "b8"), "#s = #{P}.slice<{dim = 0, parent = #b8}>"], [make_range("#s")]))
case("module: slice of a valid layout", lambda r: module(r, [B2, "#s = #{P}.slice<{dim = 0, parent = #b}>"], [make_range("#s")]))
case("module: slice, rank", lambda r: module(r, [B2, "#s = #{P}.slice<{dim = 0, parent = #b}>"], [splat(r, "tensor<16x16xi32, #s>")]))
case("module: mma of 8 warps", lambda r: module(r, [MMA_ALIAS(2, "[2, 4]")(r)], [splat(r, "tensor<32x32xi32, #mma>")]))
case("module: mma of 4 warps", lambda r: module(r, [MMA_ALIAS(2, "[2, 2]")(r)], [splat(r, "tensor<32x32xi32, #mma>")]))
case("module: mma, rank", lambda r: module(r, [MMA_ALIAS()(r)], [make_range("#mma")]))
case("module: Hopper mma", lambda r: module(r, [MMA_ALIAS(3, "[4, 1]")(r).replace("[16, 8]", "[16, 64, 16]")], [splat(r, "tensor<64x64xi32, #mma>")]))
case("module: dot_op of an mma of 8 warps", lambda r: module(r, [MMA_ALIAS(2, "[2, 4]")(r), "#d = #{P}.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>"],
     ["%h = arith.constant 0.0 : f16", splat(r, "tensor<32x32xf16, #d>", "%h", "f16")]))
case("module: dot_op of an mma of 4 warps", lambda r: module(r, [MMA_ALIAS(2, "[2, 2]")(r), "#d = #{P}.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>"],
     ["%h = arith.constant 0.0 : f16", splat(r, "tensor<32x32xf16, #d>", "%h", "f16")]))
case("module: dot_op of a blocked layout of 8 warps", lambda r: module(r, [blocked(BLOCKED2.replace("[2, 2]", "[2, 4]"), "b8"), "#d = #{P}.dot_op<{opIdx = 0, parent = #b8}>"], [splat(r, "tensor<32x32xi32, #d>")]))
case("module: linear of 8 warps", lambda r: module(r, ["#l = #{P}.linear<" + LIN.replace("[16, 0]]", "[16, 0], [32, 0]]") + ">"], [splat(r, "tensor<64x64xi32, #l>")]) if r >= (3, 3) else None)
case("module: linear of 4 warps", lambda r: module(r, ["#l = #{P}.linear<" + LIN + ">"], [splat(r, "tensor<64x64xi32, #l>")]) if r >= (3, 3) else None)
case("module: linear, rank", lambda r: module(r, ["#l = #{P}.linear<" + LIN + ">"], [make_range("#l", 64)]) if r >= (3, 3) else None)
case("module: shared layout on a tensor", lambda r: module(r, [f"#s = #{{P}}.{SHARED(r)}<" + SWZ + ">"], [splat(r, "tensor<16x16xi32, #s>")]))
case("module: shared layout on a tensor, rank", lambda r: module(r, [f"#s = #{{P}}.{SHARED(r)}<" + SWZ + ">"], [splat(r, "tensor<16xi32, #s>")]))
case("module: nvmma_shared layout on a tensor", lambda r: module(r, ["#s = #{P}.nvmma_shared<" + NVMMA + ">"], [splat(r, "tensor<16x16xi32, #s>")]) if r >= (3, 6) else None)
case("module: tt.func num-warps", lambda r: module(r, [BAD8], [make_range("#bad")], func_attrs=' attributes {"ttg.num-warps" = 8 : i32}') if r >= (3, 3) else None)
case("module: tt.func num-warps, 4", lambda r: module(r, [G1], [make_range("#good")], func_attrs=' attributes {"ttg.num-warps" = 8 : i32}') if r >= (3, 3) else None)
case("module: two results", lambda r: module(r, ["#two = #{P}.blocked<{sizePerThread = [1, 2], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>",
     "#l = #{P}.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>"],
     ["%c = arith.constant dense<0> : tensor<128x2xi32, #two>", "%a, %b = tt.split %c : tensor<128x2xi32, #two> -> tensor<128xi32, #l>"]) if r >= (3, 0) else None)



def _fixture(r, name: str) -> str | None:
    d = next((p for p in (ROOT / "test/fixtures/versions").iterdir() if p.name.startswith(f"{r[0]}.{r[1]}.")), None)
    f = d / name if d is not None else None
    return f.read_text() if f is not None and f.exists() else None


case("module: a warp-specialized kernel", lambda r: _fixture(r, "sm90/warp_specialized.ttgir"))
case("module: a partition of 8 warps", lambda r: (lambda t: t.replace("num_warps(4) {", "num_warps(8) {", 1) if t else None)(
    _fixture(r, "sm90/warp_specialized.ttgir")))
case("module: a partition of 2 warps", lambda r: (lambda t: t.replace("num_warps(4) {", "num_warps(2) {", 1) if t else None)(
    _fixture(r, "sm90/warp_specialized.ttgir")))

# ============================================================================ ttopt's verdict


def ttopt_verdict(text: str, release) -> tuple[bool, str, int | None, int | None]:
    """(accepted, message, line, col) of ttopt reading ``text`` as Triton ``release``, as a
    fresh process would (the reader shares types between modules: see
    ``test_a_type_shared_with_a_text_of_another_release``)."""
    clear_shared_types()
    try:
        read_module(text, "input.ttgir", triton_version=f"{release[0]}.{release[1]}")
    except TTOptError as e:
        return False, e.message, e.line, e.col
    return True, "", None, None


def rejects(text: str, release, message: str, line: int | None = None, col: int | None = None):
    ok, msg, ln, cl = ttopt_verdict(text, release)
    assert not ok, f"accepted as {release}: {text}"
    assert msg == message, (msg, message)
    if line is not None:
        assert (ln, cl) == (line, col), (ln, cl)


def accepts(text: str, release):
    ok, msg, ln, cl = ttopt_verdict(text, release)
    assert ok, f"rejected as {release}: {ln}:{cl}: {msg}"


# ============================================================================ offline tests


def by_name(name: str) -> Case:
    return next(c for c in CASES if c.name == name)


@pytest.mark.parametrize("release", [(3, 6), (2, 1), (3, 3)])
def test_misspelled_key_of_blocked(release):
    # the fuzz test's find: `threadsParWarp`, at the attribute's name (after `#ttg.`)
    text = by_name("blocked misspelled key").text(release)
    col = text.index("blocked<") + 1
    rejects(text, release, "unexpected key: threadsParWarp", 1, col)
    accepts(by_name("blocked valid").text(release), release)


def test_unknown_keys_are_reported_by_name_order():
    # MLIR's DictionaryAttr holds its entries sorted by name: `aa` before `zz`, and a key
    # error before a value error of a key sorted after it
    rejects(by_name("blocked two unknown keys (first by name)").text((3, 6)), (3, 6), "unexpected key: aa")
    rejects(by_name("blocked key error before value error (sorted)").text((3, 6)), (3, 6), "unexpected key: aaa")


def test_keys_by_release():
    cta = by_name("blocked CTA keys")
    cga = by_name("blocked CGALayout")
    for r in [(2, 2), (3, 0), (3, 5)]:
        accepts(cta.text(r), r)
        rejects(cga.text(r), r, "unexpected key: CGALayout")
    for r in [(3, 6), (3, 9)]:
        accepts(cga.text(r), r)
        rejects(cta.text(r), r, "unexpected key: CTAOrder")
    rejects(cta.text((2, 1)), (2, 1), "unexpected key: CTAOrder")
    # mma: keys it does not know are ignored in every release
    for r in RELEASES:
        accepts(by_name("mma unknown key ignored").text(r), r)
        accepts(by_name("slice unknown key ignored").text(r), r)


def test_value_types():
    r = (3, 6)
    rejects(by_name("blocked sizePerThread scalar").text(r), r, "expected an array for number of elements per thread")
    rejects(by_name("blocked order floats").text(r), r, "expected an integer type in order")
    rejects(by_name("blocked warpsPerCTA negative").text(r), r, "expected an unsigned integer value in number of warps per CTA")
    rejects(by_name("blocked threadsPerWarp bool").text(r), r, "expected an unsigned integer value in number of threads per warp")
    accepts(by_name("blocked sizePerThread typed").text(r), r)
    rejects(by_name("mma versionMajor array").text(r), r, "expected an integer type in versionMajor")
    rejects(by_name("shared hasLeadingOffset not a bool").text((3, 0)), (3, 0), "expected an bool type in hasLeadingOffset")
    rejects(by_name("nvmma_shared transposed not a bool").text((3, 3)), (3, 3), "expected an bool type in transposed")
    rejects(by_name("nvmma_shared transposed not a bool").text((3, 4)), (3, 4), "expected a bool type in transposed")
    rejects(by_name("blocked duplicate key").text(r), r, "duplicate key 'order' in dictionary attribute")


def test_blocked_verify_by_release():
    rank = by_name("blocked rank mismatch")
    accepts(rank.text((2, 1)), (2, 1))
    rejects(rank.text((2, 2)), (2, 2), "sizePerThread, threadsPerWarp, warpsPerCTA, and order must all have the same rank.")
    perm = by_name("blocked order not a permutation")
    accepts(perm.text((2, 1)), (2, 1))
    rejects(perm.text((3, 6)), (3, 6), "order must be a permutation of 0..(rank-1), but was [0, 0]")
    pow2 = by_name("blocked sizePerThread not a power of two")
    accepts(pow2.text((3, 4)), (3, 4))
    rejects(pow2.text((3, 5)), (3, 5), "Every element in sizePerThread must be a power of two.")
    rejects(by_name("blocked CTAsPerCGA alone").text((3, 0)), (3, 0),
            "CTAsPerCGA, CTASplitNum, and CTAOrder must all be present or all be absent")
    rejects(by_name("blocked CGALayout entry length").text((3, 6)), (3, 6), "'CGALayout' entry length does not match rank 2")


def test_slice_and_dot_op():
    accepts(by_name("slice dim out of range").text((3, 4)), (3, 4))
    rejects(by_name("slice dim out of range").text((3, 5)), (3, 5), "slice dim=2 must be less than the parent rank=2")
    accepts(by_name("slice parent shared").text((3, 2)), (3, 2))
    rejects(by_name("slice parent shared").text((3, 3)), (3, 3), "expected a distributed encoding trait")
    accepts(by_name("dot_op without kWidth").text((2, 3)), (2, 3))
    rejects(by_name("dot_op without kWidth").text((3, 2)), (3, 2), "triton_gpu.dot_op kWidth parameter is mandatory for Ampere MMA parent")
    text = by_name("dot_op unknown key").text((3, 6))
    rejects(text, (3, 6), "duplicate or unknown struct parameter name: foo", 2, text.split("\n")[1].index("1}") + 1)
    accepts(by_name("dot_op unknown key").text((2, 3)), (2, 3))
    rejects(by_name("dot_op opIdx 2").text((3, 1)), (3, 1), "triton_gpu.dot_op opIdx paramenter can be 0 or 1, got: 2")
    rejects(by_name("dot_op opIdx 2").text((3, 3)), (3, 3), "ttg.dot_op opIdx parameter can be 0 or 1, got: 2")
    # crashes of Triton are errors here
    for r in RELEASES:
        ok, *_ = ttopt_verdict(by_name("slice without dim").text(r), r)
        assert not ok, r


def test_kinds_by_release():
    rejects(module((3, 2), ["#l = #triton_gpu.linear<" + LIN + ">"]), (3, 2), "unknown attribute `linear` in dialect `triton_gpu`")
    accepts(module((3, 3), ["#l = #ttg.linear<" + LIN + ">"]), (3, 3))
    rejects(module((3, 0), ["#l = #triton_gpu.mma<" + mma_body((3, 0)) + ">"]), (3, 0), "unknown attribute `mma` in dialect `triton_gpu`")
    rejects(module((2, 3), ["#l = #triton_gpu.nvidia_mma<" + mma_body((2, 3)) + ">"]), (2, 3), "unknown attribute `nvidia_mma` in dialect `triton_gpu`")
    rejects(module((2, 3), ["#l = #triton_gpu.mfma<{}>"]), (2, 3), "unknown attribute `mfma` in dialect `triton_gpu`")


def test_blank_before_a_body():
    # the fuzz test's NUL inside `!tt.ptr<f32>`: MLIR takes `!tt.ptr` alone, reads `<f32>` on
    # its way, then stops at the `<`
    msg = ("unexpected '<' after a blank: a dialect attribute's or type's '<...>' must follow its "
           "name immediately (MLIR parses the body, then stops at this '<')")
    for name in ("blank between a layout's name and its body", "NUL between a layout's name and its body"):
        text = by_name(name).text((3, 6))
        rejects(text, (3, 6), msg, 1, text.index("<{") + 1)
    text = by_name("blank inside a pointer type").text((3, 6))
    rejects(text, (3, 6), msg)
    accepts(text.replace("!tt.ptr <f32>", "!tt.ptr<f32>"), (3, 6))
    # a body its op's custom syntax reads alone (no name before it) is not one
    accepts((ROOT / "test/fixtures/versions/3.6.0/sm80/matmul.ttgir").read_text(), (3, 6))


def test_a_nul_byte_inside_a_body():
    # MLIR's scanner of a dialect attribute's or type's body stops at a NUL byte: "unbalanced
    # '{' character in pretty dialect name", at the '<'.  The reader blanks every NUL outside
    # a string before parsing and records their offsets (`parser.nul_offsets`), by which the
    # body is judged as MLIR does (ttopt.dialects.tt_attrs.check_body).
    text = module((3, 6), ["#b = #{P}.blocked<" + BLOCKED2.replace("= [4, 8]", "=\x00 [4, 8]") + ">"])
    ptr = module((3, 6)).replace("@k()", "@k(%p: !tt.ptr<\x00f32>)")
    for t, message in [(text, "unbalanced '{' character in pretty dialect name"),
                       (ptr, "unbalanced '<' character in pretty dialect name")]:
        line = next(x for x in t.split("\n") if "\x00" in x)
        col = line.index("<", line.index("!tt.ptr") if "!tt.ptr" in line else 0) + 1  # (the '<')
        ln = t[: t.index("\x00")].count("\n") + 1
        rejects(t, (3, 6), message, ln, col)
    # outside a body the NUL is a blank (Triton too)
    accepts(text.replace("=\x00 [4, 8]", "= [4, 8]").replace("#b = ", "#b =\x00 "), (3, 6))


def test_a_string_not_terminated_in_a_body():
    text = by_name("blocked valid").text((3, 6)).replace("[4, 8]", '[4, "8]', 1)
    rejects(text, (3, 6), "expected '\"' in string literal", 1, len(text.split("\n")[0]) + 1)


def test_layouts_in_the_module():
    r = (3, 6)
    text = by_name("module: warps of a blocked layout").text(r)
    at = text.index("tt.make_range")  # (the op's name: MLIR's location of the op)
    ln, col = text[:at].count("\n") + 1, at - text.rfind("\n", 0, at)
    rejects(text, r, "Result has an invalid layout: #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], "
            "warpsPerCTA = [8], order = [0]}>. Layout has 8 warps per CTA, but the context requires 4 warps per CTA.", ln, col)
    rejects(by_name("module: no num-warps").text(r), r, "Result has an invalid layout: Could not determine the number "
            "of warps per CTA. Operation is not in a context with `ttg.num-warps`.")
    accepts(by_name("module: no num-warps, no tensor op").text(r), r)
    accepts(by_name("module: warps, on an arith op (not checked)").text(r), r)
    rejects(by_name("module: rank of a blocked layout").text(r), r, "Result has an invalid layout: Layout has rank 2, "
            "but the tensor it's attached to has rank 1.")
    rejects(by_name("module: threads of a blocked layout").text((3, 0)), (3, 0), "Result has an invalid layout: "
            "#triton_gpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>. Layout "
            "has a total of 32 threads per warp, but the module specifies 64 threads per warp.")
    # 2.1 has no such check; 2.2 - 3.4 check blocked layouts only, 3.5+ every one
    accepts(by_name("module: warps of a blocked layout").text((2, 1)), (2, 1))
    accepts(by_name("module: mma of 8 warps").text((3, 4)), (3, 4))
    rejects(by_name("module: mma of 8 warps").text((3, 5)), (3, 5), "Result has an invalid layout: #ttg.nvidia_mma<{"
            "versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 4], instrShape = [16, 8]}>. Layout has 8 warps per "
            "CTA, but the context requires 4 warps per CTA.")
    rejects(by_name("module: slice of a layout of 8 warps").text((3, 9)), (3, 9), "Result has an invalid layout: "
            "#ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = "
            "[2, 4], order = [1, 0]}>}>. Layout has 8 warps per CTA, but the context requires 4 warps per CTA.")
    accepts(by_name("module: tt.func num-warps").text((3, 3)), (3, 3))
    assert not ttopt_verdict(by_name("module: tt.func num-warps, 4").text((3, 3)), (3, 3))[0]
    rejects(by_name("module: shared layout on a tensor").text((3, 0)), (3, 0), "Result has an invalid layout: Shared "
            "layout is not allowed on tensor type.")
    rejects(by_name("module: shared layout on a tensor").text((3, 5)), (3, 5), "Result has an invalid layout: "
            "Non-distributed layout is not allowed in tensor type.")
    msg = ttopt_verdict(by_name("module: warps, as an operand").text(r), r)[1]
    assert msg.startswith("Operand 0 (%c) has an invalid layout: #ttg.blocked<"), msg


def test_the_release_a_text_may_come_from():
    # a 3.5 TTGIR with no sign of 3.5 alone reads as 3.6, whose blocked layout no longer
    # takes CTAsPerCGA: it is still accepted (3.5 accepts it); named as 3.6, it is not
    text = (ROOT / "test/fixtures/versions/3.5.1/sm90/cluster_dot.ttgir").read_text()
    assert "CTAsPerCGA" in text
    mod = read_module(text, "cluster_dot.ttgir")
    assert mod.triton_version == (3, 6)
    with pytest.raises(TTOptError, match="unexpected key: CTAOrder"):
        read_module(text, "cluster_dot.ttgir", triton_version="3.6")
    read_module(text, "cluster_dot.ttgir", triton_version="3.5")


def test_a_type_shared_with_a_text_of_another_release():
    # the reader shares each type (by its text) between the modules of a process: a tensor
    # type whose layout 2.1 accepts written out (Triton 2.1 reports the error and goes on)
    # is not parsed again for a 2.2 text; the verifier still finds its layout's error
    c = by_name("blocked inline in a type, misspelled key")
    clear_shared_types()
    read_module(c.text((2, 1)), "a.ttgir", triton_version="2.1")
    text = c.text((2, 2))
    with pytest.raises(TTOptError, match="unexpected key: ordr"):
        read_module(text, "b.ttgir", triton_version="2.2")
    clear_shared_types()


def test_verify_module_after_reading_uses_the_modules_release():
    from ttopt.ir.verify import verify_module

    text = by_name("module: blocked with two CTAs").text((2, 2))
    mod = read_module(text, "x.ttgir", triton_version="2.2")
    verify_module(mod)  # (outside the reading: as 2.2, whose blocked takes CTAsPerCGA)


def test_every_case_reads_as_every_release_without_an_internal_error():
    # the table is sound: each text is one ttopt accepts or rejects with a located error
    for c in CASES:
        for r in RELEASES:
            text = c.text(r)
            if text is None:
                continue
            try:
                read_module(text, "x.ttgir", triton_version=f"{r[0]}.{r[1]}")
            except TTOptError as e:
                assert e.kind == "error", (c.name, r, str(e))
                assert e.line is not None, (c.name, r, str(e))


# ============================================================================ the oracle

# Runs inside a release's environment: each file is parsed and verified by that Triton
# (tools/versions/inenv.py's check_file) in a forked child, so that a crash is that file's
# verdict ("crash") and not the run's.
RUNNER = r"""
import importlib.util, json, os, sys
spec = importlib.util.spec_from_file_location("inenv", sys.argv[1])
inenv = importlib.util.module_from_spec(spec)
spec.loader.exec_module(inenv)
inenv._context()
out = []
for path in sys.argv[2:]:
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rd)
        try:
            res = inenv.check_file(path)
        except BaseException as e:
            res = {"ok": False, "error": repr(e), "diagnostics": ""}
        os.write(wr, json.dumps(res).encode())
        os._exit(0)
    os.close(wr)
    data = b""
    while True:
        chunk = os.read(rd, 65536)
        if not chunk:
            break
        data += chunk
    os.close(rd)
    _, status = os.waitpid(pid, 0)
    if data:
        out.append(json.loads(data))
    else:
        out.append({"ok": False, "crash": True, "error": f"crash (status {status})", "diagnostics": ""})
print(json.dumps(out))
"""

_DIAG = re.compile(r"^(?:loc\((.*?)\)|[^\n]*?): error: ([^\n]*)((?:\n(?!loc\()[^\n]+)*)", re.M)
_FILE_LOC = re.compile(r'"[^"]*":(\d+):(\d+)')
_INVALID = " has an invalid layout: "


def same_message(ours: str, theirs: str) -> bool:
    """Whether two messages say the same (Triton prints an operand as its defining op, ttopt
    by name: `Operand 2 (%acc) has an invalid layout: ...`)."""
    if _INVALID in ours and _INVALID in theirs:
        a, rest_a = ours.split(_INVALID, 1)
        b, rest_b = theirs.split(_INVALID, 1)
        return a.split(" (")[0] == b.split(" (")[0] and rest_a == rest_b
    return ours == theirs


def triton_verdicts(version: str, texts: list[str]) -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="ttopt-layouts-") as d:
        files = []
        for i, t in enumerate(texts):
            f = pathlib.Path(d) / f"c{i}.ttgir"
            f.write_bytes(t.encode("utf-8", "surrogateescape"))
            files.append(str(f))
        r = subprocess.run([str(V.env_python(version)), "-c", RUNNER, str(ROOT / "tools/versions/inenv.py"), *files],
                           cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr[-3000:]
        results = json.loads(r.stdout.strip().splitlines()[-1])
    for res in results:
        # the first error: its message (the lines after it joined: Triton's layout messages
        # go on over two), and its line and column where it is a file's (not a named loc)
        m = _DIAG.search(res.get("diagnostics") or res.get("error") or "")
        res["line"] = res["col"] = res["message"] = None
        if m:
            res["message"] = " ".join([m.group(2), *m.group(3).split()]).strip() if m.group(3) else m.group(2)
            where = _FILE_LOC.fullmatch(m.group(1) or "")
            if where:
                res["line"], res["col"] = int(where.group(1)), int(where.group(2))
    return results


@pytest.mark.versions
@pytest.mark.parametrize("version", V.ALL)
def test_ttopt_and_triton_agree_on_every_case(version, request):
    if not V.have_env(version):
        pytest.skip(f"the versions check did NOT run for Triton {version}: no environment at {V.env_dir(version)}")
    only = os.environ.get("TTOPT_LAYOUT_CASES")  # (a regular expression: the cases to run)
    release = tuple(int(x) for x in version.split(".")[:2])
    cases = [(c, c.text(release)) for c in CASES if not c.releases or release in c.releases]
    cases = [(c, t) for c, t in cases if t is not None and (not only or re.search(only, c.name))]
    verdicts = triton_verdicts(version, [t for _, t in cases])
    problems = []
    for (c, text), tri in zip(cases, verdicts):
        ok, msg, ln, cl = ttopt_verdict(text, release)
        if ok != tri["ok"]:
            what = "accepts" if ok else f"rejects ({ln}:{cl}: {msg})"
            problems.append(f"{c.name}: ttopt {what}, Triton {'accepts' if tri['ok'] else 'rejects: ' + str(tri.get('message') or tri.get('error'))}")
            continue
        if ok or tri.get("crash") or c.compare == "verdict":
            continue
        tmsg = tri["message"]
        if not same_message(msg, tmsg or ""):
            problems.append(f"{c.name}: message {msg!r}, Triton {tmsg!r}")
        elif tri["line"] is not None and (ln, cl) != (tri["line"], tri["col"]) and not msg.startswith(("Result", "Operand")):
            problems.append(f"{c.name}: at {ln}:{cl}, Triton at {tri['line']}:{tri['col']} ({msg})")
    assert not problems, f"Triton {version}: {len(problems)} of {len(cases)} cases differ:\n" + "\n".join(problems)



# ============================================================================ the oracle, on mutations
# The family of errors the fuzz test finds, on every release: each release's own fixtures
# (test/fixtures/versions/<release>/), one layout alias line mutated at a time (a seeded
# flip, deletion or insertion of a character, a digit changed, an entry repeated, dropped or
# swapped), read by ttopt and by that release's Triton.
#
# * ttopt never rejects a text Triton accepts;
# * where both reject (Triton without crashing), they say the same thing, except for the two
#   messages ttopt cannot reproduce: a blank between a name and its '<' (MLIR's message
#   depends on what surrounds it), and an unbalanced body whose scan crosses text the reader
#   has blanked (`#loc` definitions: MLIR reports it at its last string token);
# * the texts ttopt accepts and Triton rejects are what layout verification leaves out
#   (Triton crashing on a layout it cannot convert, an op's own layout inference: `tt.trans`
#   and `tt.reduce` results, WGMMA operands ...): at most MUTATION_GAPS_MAX of them.
MUTATION_SEED = 20250601
MUTATIONS_PER_FILE = 5
MUTATION_GAPS_MAX = {  # (what it is with the seed above; lower it when ttopt learns more)
    "2.1.0": 1, "2.2.0": 0, "2.3.1": 2, "3.0.0": 2, "3.1.0": 1, "3.2.0": 0, "3.3.1": 2, "3.4.0": 1,
    "3.5.1": 1, "3.6.0": 4, "3.7.1": 3, "3.8.0": 3, "3.9.0": 4,
}
_ALIAS_LINE = re.compile(r"#\w+ = #(?:ttg|triton_gpu|ttng|triton_nvidia_gpu)\.\w+<")
_ENTRY_SPLIT = re.compile(r', (?=[A-Za-z"]+ = )')


def mutate(line: str, rng) -> str:
    """One seeded mutation of a layout alias line (inside its body)."""
    body = line.index("<")
    s = list(line)
    kind = rng.choice(["flip", "delete", "insert", "digit", "repeat", "drop", "swap"])
    i = rng.randrange(body + 1, len(line))
    if kind == "flip":
        c = s[i]
        s[i] = chr(ord(c) ^ (1 << rng.randrange(0, 6))) if c.isalnum() else rng.choice("[]{},=<> 0a")
    elif kind == "delete":
        del s[i]
    elif kind == "insert":
        s.insert(i, rng.choice("[]{},=<> 01aZ-"))
    elif kind == "digit":
        digits = [j for j, c in enumerate(s) if c.isdigit() and j > body]
        if digits:
            s[rng.choice(digits)] = rng.choice("0123456789")
    else:
        m = re.search(r"<\{(.*)\}>", line)
        if m:
            entries = _ENTRY_SPLIT.split(m.group(1))
            if kind == "repeat":
                entries.insert(rng.randrange(len(entries) + 1), rng.choice(entries))
            elif kind == "drop" and len(entries) > 1:
                entries.pop(rng.randrange(len(entries)))
            elif kind == "swap" and len(entries) > 1:
                a, b = rng.sample(range(len(entries)), 2)
                entries[a], entries[b] = entries[b], entries[a]
            s = list(line[: m.start(1)] + ", ".join(entries) + line[m.end(1) :])
    return "".join(s)


def mutated_fixtures(version: str) -> list[tuple[str, str]]:
    """(name, text): each fixture of ``version`` with one layout alias line mutated, a few
    times (deterministic)."""
    import random

    rng = random.Random(f"{MUTATION_SEED}-{version}")
    out = []
    for f in sorted((ROOT / "test/fixtures/versions" / version).rglob("*.ttgir")):
        lines = f.read_text().split("\n")
        idx = [i for i, line in enumerate(lines) if _ALIAS_LINE.match(line)]
        for k in range(MUTATIONS_PER_FILE if idx else 0):
            i = rng.choice(idx)
            new = mutate(lines[i], rng)
            if new != lines[i]:
                out.append((f"{f.parent.name}/{f.name}:{i + 1}#{k}: {new}", "\n".join(lines[:i] + [new] + lines[i + 1 :])))
    return out


_BLANK_MESSAGE = "unexpected '<' after a blank"


@pytest.mark.versions
@pytest.mark.parametrize("version", V.ALL)
def test_ttopt_and_triton_agree_on_mutated_layouts(version):
    if not V.have_env(version):
        pytest.skip(f"the versions check did NOT run for Triton {version}: no environment at {V.env_dir(version)}")
    release = tuple(int(x) for x in version.split(".")[:2])
    cases = mutated_fixtures(version)
    assert len(cases) >= 50
    verdicts = triton_verdicts(version, [t for _, t in cases])
    problems, gaps = [], []
    for (name, text), tri in zip(cases, verdicts):
        ok, msg, ln, cl = ttopt_verdict(text, release)
        if ok and not tri["ok"]:
            gaps.append(f"{name}: Triton: {tri.get('message') or tri.get('error')}")
        elif not ok and tri["ok"]:
            problems.append(f"{name}: ttopt rejects what Triton accepts: {ln}:{cl}: {msg}")
        elif not ok and not tri.get("crash") and tri["message"] is not None:
            if msg.startswith(_BLANK_MESSAGE):
                continue
            if (msg, tri["message"]) == ("expected an operation", "expected operation name in quotes"):
                continue  # (after the attribute, at the top level: the reader's wording)
            if not same_message(msg, tri["message"]):
                problems.append(f"{name}: {msg!r}, Triton {tri['message']!r}")
            elif tri["line"] is not None and (ln, cl) != (tri["line"], tri["col"]) and "pretty dialect name" not in msg \
                    and _INVALID not in msg:
                problems.append(f"{name}: at {ln}:{cl}, Triton at {tri['line']}:{tri['col']} ({msg})")
    assert not problems, f"Triton {version}, {len(cases)} mutations:\n" + "\n".join(problems)
    assert len(gaps) <= MUTATION_GAPS_MAX[version], (
        f"Triton {version}: {len(gaps)} mutations ttopt accepts and Triton rejects "
        f"(at most {MUTATION_GAPS_MAX[version]}):\n" + "\n".join(gaps))
