#!/usr/bin/env python3
"""Which ops each Triton release (2.1-3.9) prints in its fixtures, and in which textual forms.

    python3 tools/versions/op_inventory.py [--dir DIR] [--md OUT.md] [--json OUT.json] [--check]

Reads ``DIR/<version>/sm<N>/<kernel>.{ttir,ttgir}`` (``DIR`` = test/fixtures/versions, made by
make_fixtures.py) and writes ``DIR/OPS.md`` (and ``DIR/OPS.json``):

* per release, every op name seen in its TTIR and in its TTGIR, with one example line each
  (locations stripped), and the ops x releases table;
* for each op whose textual form differs between releases, one example per distinct form,
  with the releases that print it;
* the same for the attribute and type aliases at the top of the files (``#blocked = ...``).

An op is what starts a statement: ``%a, %b = tt.split %x : ...``, ``tt.store ...``,
``"tt.reduce"(%x) <{axis = 0 : i32}> ({`` (the generic form), ``module attributes {...}``.
The *form* of a line (its "shape") is the line with locations stripped, SSA values, block
labels and symbol names replaced by ``%``, ``^bb`` and ``@f``, every type by ``T``, string
literals by ``"s"``, numbers by ``N`` and attribute aliases by ``#a``: what stays is the
syntax a reader has to accept (keywords, attribute names and enum spellings, punctuation).
Two lines of one op with the same shape are the same syntax; a release prints an op in as many
shapes as its kernels use (with or without a mask, an attribute...).  Needs only the standard
library.  ``--check``: exit 1 if OPS.md/OPS.json are not what this run would write.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys
from collections import defaultdict

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import triton_versions as V  # noqa: E402

STAGES = ("ttir", "ttgir")

# ------------------------------------------------------------------------------ lines


def strip_loc(line: str) -> str:
    """The line without its trailing ``loc(...)`` (balanced parentheses; a ``loc`` inside
    the line, as on block arguments, is left: only what ends the line goes)."""
    s = line.rstrip()
    while True:
        i = s.rfind(" loc(")
        if i < 0:
            return s
        depth, j, in_str = 0, i + 4, False
        end = None
        while j < len(s):
            ch = s[j]
            if in_str:
                if ch == "\\":
                    j += 1
                elif ch == '"':
                    in_str = False
            elif ch == '"':
                in_str = True
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    end = j
                    break
            j += 1
        if end is None or s[end + 1:].strip():
            # not at the end: strip inner ``loc(...)`` of arguments too (one pass) and stop
            return re.sub(r' loc\((?:[^()"]|"[^"]*"|\((?:[^()"]|"[^"]*")*\))*\)', "", s)
        s = s[:i].rstrip()


_RESULTS = r"(?:%[\w.$#-]+(?::\d+)?)(?:\s*,\s*%[\w.$#-]+(?::\d+)?)*\s*=\s*"
OP_RE = re.compile(rf'^(?:{_RESULTS})?"?([a-z_][\w]*(?:\.[\w]+)+)"?(?=[\s(<{{:]|$)')


def op_of(stripped: str) -> str | None:
    """The op a (location-free, left-stripped) line starts, or None."""
    if stripped.startswith("module"):
        return "builtin.module"
    m = OP_RE.match(stripped)
    return m.group(1) if m else None


# ------------------------------------------------------------------------------ shapes

_SCALAR_TYPE = re.compile(r"\b(?:[iuf]\d+|bf16|tf32|index|f8E\w+|f4E\w+|f6E\w+|none)\b")


def _skip_angle(s: str, i: int) -> int:
    """Index just past the ``<...>`` that starts at s[i] == '<' (balanced, strings skipped)."""
    depth = 0
    in_str = False
    while i < len(s):
        ch = s[i]
        if in_str:
            if ch == "\\":
                i += 1
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch == "<":
            depth += 1
        elif ch == ">" and (i == 0 or s[i - 1] != "-"):
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def replace_types(s: str) -> str:
    """Every type (``tensor<...>``, ``!dialect.type<...>``, ``!tt.ptr<f32>``, ``i32``...) -> T."""
    out = []
    i = 0
    while i < len(s):
        if s[i] == '"':  # a string: kept whole
            j = i + 1
            while j < len(s) and s[j] != '"':
                j += 2 if s[j] == "\\" else 1
            out.append(s[i:j + 1])
            i = j + 1
            continue
        if s.startswith(("tensor<", "vector<", "memref<"), i) and (i == 0 or not (s[i - 1].isalnum() or s[i - 1] == "_")):
            j = _skip_angle(s, s.index("<", i))
            out.append("T")
            i = j
            continue
        if s[i] == "<" and s[i + 1:i + 2] != "{" and re.search(r"(?:->|[:,(\[])\s*$", s[:i]):
            # a type whose dialect prefix the op's syntax elides (``-> <64x32xf16, #shared, ...>``)
            out.append("T")
            i = _skip_angle(s, i)
            continue
        if s[i] == "!" and i + 1 < len(s) and s[i + 1].isalpha():
            m = re.match(r"![\w.]+", s[i:])
            j = i + m.end()
            if j < len(s) and s[j] == "<":
                j = _skip_angle(s, j)
            out.append("T")
            i = j
            continue
        out.append(s[i])
        i += 1
    text = "".join(out)
    # scalar types (outside strings)
    parts = re.split(r'("(?:[^"\\]|\\.)*")', text)
    for k in range(0, len(parts), 2):
        parts[k] = _SCALAR_TYPE.sub("T", parts[k])
    return "".join(parts)


def shape(stripped: str, op: str) -> str:
    """The syntax of a line: see the module's docstring."""
    s = stripped
    # the op name itself stays as written (generic form keeps its quotes)
    s = re.sub(r"%[\w.$#-]+(?::\d+)?", "%", s)
    s = re.sub(r"\^bb\d+", "^bb", s)
    s = re.sub(r"@[\w.$-]+", "@f", s)
    s = re.sub(r"#(?![\w.]+<)[\w.]+", "#a", s)  # aliases (not dialect attributes #ttg.blocked<...>)
    s = replace_types(s)
    s = re.sub(r'"(?:[^"\\]|\\.)*"', lambda m: m.group(0) if m.group(0) == f'"{op}"' else '"s"', s)
    s = re.sub(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?\b", "N", s)
    s = re.sub(r"0x[0-9A-Fa-f]+", "N", s)
    s = re.sub(r"\bN(?:\s*,\s*N)+\b", "N...", s)
    s = re.sub(r"\[\s*(?:N(?:\.\.\.)?)?\s*\]", "[N...]", s)
    s = re.sub(r"% = %(?:\s*,\s*% = %)+", "% = %...", s)  # iter_args(...), block arguments
    s = re.sub(r"%(?:\s*,\s*%)+", "%...", s)
    s = re.sub(r"T(?:\s*,\s*T)+", "T...", s)
    s = re.sub(r"\s+", " ", s).strip()
    return s


def alias_of(line: str) -> tuple[str, str] | None:
    """``#blocked1 = #ttg.blocked<{...}>`` -> (alias kind, the line); locations are not
    aliases of interest."""
    m = re.match(r"#([A-Za-z_]+?)\d*\s*=\s*(.*)$", line)
    if not m or m.group(2).startswith("loc("):
        return None
    value = m.group(2)
    k = re.match(r"#?!?([\w.]+)", value)
    return (k.group(1) if k else m.group(1)), line.strip()


def alias_shape(line: str) -> str:
    s = re.sub(r"^#[A-Za-z_]+\d*", "#a", line.strip())
    s = re.sub(r"#(?![\w.]+<)[\w.]+", "#a", s[2:])
    s = replace_types(s)
    s = re.sub(r"(?<![\w.])-?\d+(?:\.\d+)?\b", "N", s)
    s = re.sub(r"\bN(?:\s*,\s*N)+\b", "N...", s)
    s = re.sub(r"\[\s*(?:N(?:\.\.\.)?)?\s*\]", "[N...]", s)
    s = re.sub(r"\[\s*\[.*?\]\s*\]", "[[...]]", s)
    return "#a" + s


# an element type, alone or after a shape (``64x32xf8E5M2``)
_ELEMENT = re.compile(r"(?:(?<=\dx)|(?<=Nx)|(?<![\w!#.]))(?:[iuf]\d+|bf16|tf32|f8E\w+|f4E\w+|f6E\w+)(?![\w.])")
_INLINE_ATTR = re.compile(r"#[A-Za-z_]\w*\.[\w.]+(?=<)")
_DIALECT_TYPE = re.compile(r"![A-Za-z_]\w*\.[\w.]+")


def inline_things(stripped: str):
    """The dialect types (``!tt.ptr<f16>``, ``!ttg.async.token``) and the dialect attributes
    written inline (``#ttg.dot_op<{...}>``) of an op's line: (kind, name, text)."""
    body = re.sub(r'"(?:[^"\\]|\\.)*"', '""', stripped)
    for rx, kind in ((_DIALECT_TYPE, "type"), (_INLINE_ATTR, "attribute")):
        for m in rx.finditer(body):
            j = m.end()
            if j < len(body) and body[j] == "<":
                j = _skip_angle(body, j)
            yield kind, m.group(0), body[m.start():j]


def thing_shape(text: str) -> str:
    """A type's or inline attribute's syntax: numbers N, aliases #a, element types E."""
    s = re.sub(r"#(?![\w.]+<)[\w.]+", "#a", text)
    s = re.sub(r"\b(?:\d+x)+", "Nx", s)  # shapes: 64x32xf16 -> NxE
    parts = re.split(r"(![\w.]+)", s)  # keep dialect type names whole
    for k in range(0, len(parts), 2):
        parts[k] = _ELEMENT.sub("E", parts[k])
    s = "".join(parts)
    s = re.sub(r"(?<![\w.])-?\d+(?:\.\d+)?\b", "N", s)
    s = re.sub(r"\b(?:Nx)+", "Nx", s)
    s = re.sub(r"\bN(?:\s*,\s*N)+\b", "N...", s)
    s = re.sub(r"\[\s*(?:N(?:\.\.\.)?)?\s*\]", "[N...]", s)
    return s


# ------------------------------------------------------------------------------ collecting


def collect(root: pathlib.Path):
    """{version: {stage: {op: {"example": line, "file": f, "shapes": {shape: (line, file)}}}}}
    and the same for aliases (keyed by the alias' attribute or type name)."""
    ops: dict = {}
    aliases: dict = {}
    things: dict = {}  # version -> {(kind, name): {"shapes": {shape: (text, file)}}}
    elements: dict = {}  # version -> {element type: file}
    for vdir in sorted((p for p in root.iterdir() if p.is_dir() and (p / "MANIFEST.json").exists()),
                       key=lambda p: V.key(p.name)):
        v = vdir.name
        ops[v] = {st: {} for st in STAGES}
        aliases[v] = {}
        things[v] = {}
        elements[v] = {}
        for f in sorted(vdir.rglob("*.tt*ir")):
            stage = f.suffix[1:]
            if stage not in STAGES:
                continue
            rel = f.relative_to(root).as_posix()
            for raw in f.read_text().splitlines():
                line = raw.strip()
                if not line:
                    continue
                if line.startswith("#"):
                    a = alias_of(line)
                    if a:
                        kind, text = a
                        entry = aliases[v].setdefault(kind, {"example": text, "file": rel, "shapes": {}})
                        entry["shapes"].setdefault(alias_shape(text), (text, rel))
                    continue
                stripped = strip_loc(line)
                op = op_of(stripped)
                if op is None:
                    continue
                entry = ops[v][stage].setdefault(op, {"example": stripped, "file": rel, "shapes": {}})
                entry["shapes"].setdefault(shape(stripped, op), (stripped, rel))
                for kind, name, text in inline_things(stripped):
                    t = things[v].setdefault((kind, name), {"shapes": {}})
                    t["shapes"].setdefault(thing_shape(text), (text, rel))
                for m in _ELEMENT.finditer(re.sub(r'"(?:[^"\\]|\\.)*"', '""', stripped)):
                    elements[v].setdefault(m.group(0), rel)
    return ops, aliases, things, elements


# ------------------------------------------------------------------------------ writing


def _dialect(op: str) -> str:
    return op.split(".")[0]


def _short(v: str) -> str:
    return ".".join(v.split(".")[:2])


def _code(text: str, limit: int = 400) -> str:
    text = text if len(text) <= limit else text[:limit] + " …"
    return "`` " + text.replace("|", "\\|").replace("`", "'") + " ``"


def _ranges(versions: list[str], present: list[str]) -> str:
    """'2.1-2.3, 3.5-3.9' for the releases in ``present`` (in the order of ``versions``)."""
    out, run = [], []
    for v in versions:
        if v in present:
            run.append(v)
        elif run:
            out.append(run)
            run = []
    if run:
        out.append(run)
    return ", ".join(_short(r[0]) if len(r) == 1 else f"{_short(r[0])}-{_short(r[-1])}" for r in out)


def build(root: pathlib.Path) -> tuple[str, dict]:
    ops, aliases, things, elements = collect(root)
    versions = list(ops)
    data = {"versions": versions, "ops": {}, "aliases": {}, "types": {}, "inline_attributes": {},
            "element_types": {}}
    all_ops = sorted({op for v in versions for st in STAGES for op in ops[v][st]},
                     key=lambda o: (_dialect(o) != "builtin", _dialect(o), o))
    examples: dict = {}
    for op in all_ops:
        d = data["ops"][op] = {"releases": {}, "shapes": {}}
        for v in versions:
            stages = {st: ops[v][st][op] for st in STAGES if op in ops[v][st]}
            if not stages:
                continue
            d["releases"][v] = [st for st in STAGES if st in stages]
            examples[(op, v)] = _examples(stages)
            for st, e in stages.items():
                for sh, (text, f) in e["shapes"].items():
                    s = d["shapes"].setdefault(sh, {"example": text, "file": f, "releases": [], "stages": []})
                    if v not in s["releases"]:
                        s["releases"].append(v)
                    if st not in s["stages"]:
                        s["stages"].append(st)
    for kind in sorted({k for v in versions for k in aliases[v]}):
        d = data["aliases"][kind] = {"releases": [], "shapes": {}}
        for v in versions:
            if kind not in aliases[v]:
                continue
            d["releases"].append(v)
            for sh, (text, f) in aliases[v][kind]["shapes"].items():
                s = d["shapes"].setdefault(sh, {"example": text, "file": f, "releases": []})
                s["releases"].append(v)
    for kind, name in sorted({k for v in versions for k in things[v]}, key=lambda k: (k[0], k[1])):
        d = data["types" if kind == "type" else "inline_attributes"][name] = {"releases": [], "shapes": {}}
        for v in versions:
            if (kind, name) not in things[v]:
                continue
            d["releases"].append(v)
            for sh, (text, f) in things[v][(kind, name)]["shapes"].items():
                s = d["shapes"].setdefault(sh, {"example": text, "file": f, "releases": []})
                s["releases"].append(v)
    for et in sorted({e for v in versions for e in elements[v]}):
        data["element_types"][et] = {v: elements[v][et] for v in versions if et in elements[v]}
    return render(data, examples), data


def _examples(stages: dict) -> dict:
    """One example per stage; the TTGIR one in the TTIR one's form where the TTGIR has it
    (then marked ``same``)."""
    out = {}
    if "ttir" in stages:
        e = stages["ttir"]
        out["ttir"] = (e["example"], e["file"])
        first = next(iter(e["shapes"]))
        if "ttgir" in stages and first in stages["ttgir"]["shapes"]:
            out["ttgir"] = ("same",) + stages["ttgir"]["shapes"][first]
        elif "ttgir" in stages:
            g = stages["ttgir"]
            out["ttgir"] = (g["example"], g["file"])
    else:
        g = stages["ttgir"]
        out["ttgir"] = (g["example"], g["file"])
    return out


def _differs(shapes: dict, releases: list[str]) -> bool:
    """True when the releases that print the op do not all print the same set of shapes."""
    per = {v: frozenset(sh for sh, s in shapes.items() if v in s["releases"]) for v in releases}
    return len(set(per.values())) > 1


def render(data: dict, examples: dict) -> str:
    versions = data["versions"]
    short = [_short(v) for v in versions]
    lines = [
        "# Ops per Triton release (2.1-3.9), as the per-version fixtures print them",
        "",
        "Generated by `python3.11 tools/versions/op_inventory.py` from `test/fixtures/versions/<version>/`",
        "(the kernels of `tools/versions/kernels.py` and `kernels_ops.py`, compiled by each release for",
        "sm_80 and sm_90: `PROVENANCE.md`); do not edit.  Machine-readable: `OPS.json`.",
        "",
        "* **Table**: `R` the op is in the release's TTIR only, `G` in its TTGIR only, `RG` both, `.` not",
        "  seen (the release may still have it: only what the fixtures contain is listed).",
        "* **Shape** of a line: locations stripped; SSA values `%`, block labels `^bb`, symbols `@f`,",
        "  every type `T`, attribute aliases `#a`, strings `\"s\"`, numbers `N` (lists of them `...`).",
        "  What stays is the syntax to accept: keywords, attribute names, enum spellings, punctuation.",
        "* **Forms**: for each op whose shapes differ between releases, one example per shape and",
        "  the releases that print it (a release may print several shapes of one op: with or",
        "  without an optional operand or attribute).",
        "* **Examples**: per release, every op with one line of its TTIR and one of its TTGIR",
        "  (`same form`: the TTGIR prints it in the TTIR line's shape too; lines over 240",
        "  characters cut, `…`).",
        "",
        "## Counts",
        "",
        "| release | TTIR ops | TTGIR ops | all |",
        "|---|---|---|---|",
    ]
    for v in versions:
        r = sum(1 for d in data["ops"].values() if "ttir" in d["releases"].get(v, {}))
        g = sum(1 for d in data["ops"].values() if "ttgir" in d["releases"].get(v, {}))
        a = sum(1 for d in data["ops"].values() if v in d["releases"])
        lines.append(f"| {v} | {r} | {g} | {a} |")
    lines += ["", "## Ops x releases", "", "| op | " + " | ".join(short) + " | forms differ |",
              "|---|" + "---|" * len(short) + "---|"]
    for op, d in data["ops"].items():
        cells = []
        for v in versions:
            st = d["releases"].get(v, {})
            cells.append(("R" if "ttir" in st else "") + ("G" if "ttgir" in st else "") or ".")
        diff = "yes" if _differs(d["shapes"], list(d["releases"])) else ""
        lines.append(f"| `{op}` | " + " | ".join(cells) + f" | {diff} |")
    lines += ["", "## Forms that differ between releases", ""]
    for op, d in data["ops"].items():
        if not _differs(d["shapes"], list(d["releases"])):
            continue
        lines += [f"### `{op}`", "", "| releases | stages | example |", "|---|---|---|"]
        for sh, s in sorted(d["shapes"].items(), key=lambda kv: (V.key(kv[1]["releases"][0]), kv[0])):
            lines.append(f"| {_ranges(versions, s['releases'])} | {'/'.join(s['stages'])} | {_code(s['example'], 600)} |")
        lines.append("")
    lines += ["## Attribute and type aliases", "",
              "The `#name = ...` definitions at the top of the files, by what they define; one example",
              "per shape (same normalisation as the ops).", ""]
    for kind, d in data["aliases"].items():
        lines += [f"### `{kind}`", "", "| releases | example |", "|---|---|"]
        for sh, s in sorted(d["shapes"].items(), key=lambda kv: (V.key(kv[1]["releases"][0]), kv[0])):
            lines.append(f"| {_ranges(versions, s['releases'])} | {_code(s['example'], 600)} |")
        lines.append("")
    lines += ["## Dialect types", "",
              "Every `!dialect.type` written in the op lines (also inside `tensor<...>`), by name; one",
              "example per shape (numbers `N`, aliases `#a`, element types `E`).  Not listed: the",
              "memory-descriptor type some ops print without its `!ttg.memdesc` prefix (`-> <64x32xf16,",
              "#shared, #smem, mutable>`: see their forms above).", ""]
    for name, d in data["types"].items():
        lines += [f"### `{name}`", "", "| releases | example |", "|---|---|"]
        for sh, s in sorted(d["shapes"].items(), key=lambda kv: (V.key(kv[1]["releases"][0]), kv[0])):
            lines.append(f"| {_ranges(versions, s['releases'])} | {_code(s['example'], 600)} |")
        lines.append("")
    lines += ["## Dialect attributes written inline", "",
              "`#dialect.attr<...>` inside op lines (layouts in types, enums...), by name; one example per",
              "shape.", ""]
    for name, d in data["inline_attributes"].items():
        lines += [f"### `{name}`", "", "| releases | example |", "|---|---|"]
        for sh, s in sorted(d["shapes"].items(), key=lambda kv: (V.key(kv[1]["releases"][0]), kv[0])):
            lines.append(f"| {_ranges(versions, s['releases'])} | {_code(s['example'], 600)} |")
        lines.append("")
    lines += ["## Element types", "", "| type | releases | e.g. in |", "|---|---|---|"]
    for et, per in data["element_types"].items():
        first = next(iter(per))
        lines.append(f"| `{et}` | {_ranges(versions, list(per))} | {per[first]} |")
    lines += ["", "## Examples per release", ""]
    for v in versions:
        n_ir = sum(1 for d in data["ops"].values() if "ttir" in d["releases"].get(v, []))
        n_gir = sum(1 for d in data["ops"].values() if "ttgir" in d["releases"].get(v, []))
        lines += [f"### {v}", "", f"{n_ir} ops in its TTIR, {n_gir} in its TTGIR.", "",
                  "| op | TTIR | TTGIR |", "|---|---|---|"]
        for op in data["ops"]:
            ex = examples.get((op, v))
            if not ex:
                continue
            cells = []
            for st in STAGES:
                e = ex.get(st)
                if e is None:
                    cells.append("-")
                elif e[0] == "same":
                    cells.append(f"same form ({e[2]})")
                else:
                    cells.append(f"{_code(e[0], 240)} ({e[1]})")
            lines.append(f"| `{op}` | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default=str(V.FIXTURES))
    ap.add_argument("--md", help="default: DIR/OPS.md")
    ap.add_argument("--json", help="default: DIR/OPS.json")
    ap.add_argument("--check", action="store_true", help="only compare with the files there")
    args = ap.parse_args(argv)
    root = pathlib.Path(args.dir)
    md_path = pathlib.Path(args.md or root / "OPS.md")
    json_path = pathlib.Path(args.json or root / "OPS.json")
    md, data = build(root)
    js = json.dumps(data, indent=1, sort_keys=False) + "\n"
    if args.check:
        stale = [p for p, t in ((md_path, md + "\n"), (json_path, js)) if not p.exists() or p.read_text() != t]
        for p in stale:
            print(f"{p}: not what op_inventory.py writes now (rerun it)", file=sys.stderr)
        return 1 if stale else 0
    md_path.write_text(md + "\n")
    json_path.write_text(js)
    n_ops = len(data["ops"])
    print(f"{md_path}: {n_ops} ops over {len(data['versions'])} releases")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
