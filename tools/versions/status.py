#!/usr/bin/env python3
"""Where ttopt stands on every Triton version: writes test/fixtures/versions/STATUS.md (+ .json).

    python3 tools/versions/status.py [--ttopt-python .venv/bin/python] [--cubin]

Run from anywhere; needs make_envs.py's environments and the fixtures of make_fixtures.py.

1. The oracle on the fixtures: every version checks its own files (all must be accepted).
2. The oracle on broken copies: per version, two copies of ``sm90/elementwise.ttir``, one
   with an unknown op (a parse error), one whose ``tt.make_range`` end no longer matches its
   result type (an op verifier error); both must be rejected.
3. A cross-version table: each version's parser on every version's ``sm90/elementwise.ttir``
   and ``sm90/matmul.ttgir`` (what the text of one release means to another).
4. ttopt on every fixture, as a user runs it: ``python -m ttopt.cli FILE -o OUT`` (no pass:
   a round trip), and for each file it reads, the fixture's own version's verdict on OUT.
5. With ``--cubin``: for each output that version accepts, the cubin of the input and of the
   output (that version, sm_90 for sm90 files, sm_80 for sm80 files): identical or not.

Exit status 0 when 1 and 2 hold (the oracle works); what ttopt does is reported, not judged:
it is the to-do list of the reader work.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import oracle  # noqa: E402
import triton_versions as V  # noqa: E402

BREAKS = {
    "unknown op (parse error)": (
        re.compile(r"^(\s*tt\.func .*\{)$", re.M),
        r"\1\n    %ttopt_broken = tt.no_such_op : i32",
    ),
    "tt.return removed (block with no terminator)": (
        re.compile(r"^\s*tt\.return\b.*\n", re.M),
        "",
    ),
}
# informational: an op verifier that not every version has (2.1's tt.make_range has none)
EXTRA_BREAKS = {
    "make_range end changed (op verifier)": (
        re.compile(r"tt\.make_range \{end = 1024 : i32"),
        "tt.make_range {end = 512 : i32",
    ),
}


def rel(p: pathlib.Path) -> str:
    try:
        return p.resolve().relative_to(V.ROOT).as_posix()
    except ValueError:
        return str(p)


def clean(msg: str, *paths: str) -> str:
    for p in paths:
        msg = msg.replace(p, pathlib.Path(p).name)
    return msg.strip()


def first_line(text: str) -> str:
    """The first line, or for a Python traceback its last line (the exception), marked."""
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    if lines and lines[0].startswith("Traceback"):
        return f"TRACEBACK: {lines[-1]}"
    for line in lines:
        if line.strip():
            return line.strip()
    return ""


def git_state() -> str:
    def git(*a):
        r = subprocess.run(["git", *a], cwd=V.ROOT, capture_output=True, text=True)
        return r.stdout.strip() if r.returncode == 0 else "?"

    head = git("rev-parse", "--short", "HEAD")
    dirty = git("status", "--porcelain", "--", "ttopt")
    return f"{head}" + (" with uncommitted changes in ttopt/" if dirty else "")


def own_check(versions: list[str]) -> dict:
    out = {}
    for v in versions:
        res = oracle.check(v, oracle.fixture_files(v))
        out[v] = {"files": len(res), "accepted": sum(r["ok"] for r in res),
                  "rejected": [{"file": rel(pathlib.Path(r["file"])), "error": r["error"]} for r in res if not r["ok"]]}
    return out


def broken_check(versions: list[str], tmp: pathlib.Path) -> list[dict]:
    rows = []
    for v in versions:
        src = V.FIXTURES / v / "sm90" / "elementwise.ttir"
        text = src.read_text()
        for what, (pattern, repl) in {**BREAKS, **EXTRA_BREAKS}.items():
            broken, n = pattern.subn(repl, text, count=1)
            path = tmp / f"broken-{v}-{len(rows)}.ttir"
            path.write_text(broken)
            if n != 1:
                rows.append({"version": v, "break": what, "made": False, "rejected": False,
                             "judged": what in BREAKS, "error": "pattern not found"})
                continue
            (res,) = oracle.check(v, [path])
            rows.append({"version": v, "break": what, "made": True, "rejected": not res["ok"],
                         "judged": what in BREAKS,
                         "error": clean(res["error"], str(path))})
    return rows


def cross_check(versions: list[str]) -> dict:
    files = {v: [V.FIXTURES / v / "sm90" / "elementwise.ttir", V.FIXTURES / v / "sm90" / "matmul.ttgir"] for v in versions}
    flat = [f for v in versions for f in files[v]]
    table = {}
    for checker in versions:
        res = {r["file"]: r["ok"] for r in oracle.check(checker, flat)}
        table[checker] = {v: [res[str(f.resolve())] for f in files[v]] for v in versions}
    return table


def ttopt_run(versions: list[str], py: str, tmp: pathlib.Path, cubin: bool, reprint: bool = False) -> dict:
    """ttopt on each release's fixtures, one batch run per release (``ttopt-opt DIR
    --output-dir OUT``: each file as it would run alone, its error on a line of its own);
    ``reprint``: with ``TTOPT_KEEP_TEXT=0`` (every op printed anew instead of copied)."""
    out = {}
    env = {**os.environ, **({"TTOPT_KEEP_TEXT": "0"} if reprint else {})}
    for v in versions:
        rows = []
        outputs = []
        outdir = tmp / "ttopt" / v
        r = subprocess.run([py, "-m", "ttopt.cli", rel(V.FIXTURES / v), "--output-dir", str(outdir)],
                           cwd=V.ROOT, capture_output=True, text=True, env=env)
        errors = {}
        for line in r.stderr.splitlines():
            name = line.split(":", 1)[0]
            errors.setdefault(name, line)
        for f in oracle.fixture_files(v):
            r_in = rel(f)
            o = outdir / f.relative_to(V.FIXTURES / v)
            ok = o.is_file() and r_in not in errors
            row = {"file": r_in, "reads": ok, "exit": 0 if ok else 1,
                   "error": "" if ok else clean(errors.get(r_in, f"no output ({r.returncode})"), r_in)}
            if ok:
                row["identical"] = o.read_bytes() == f.read_bytes()
            rows.append(row)
            if ok:
                outputs.append((row, o))
        if outputs:
            verdicts = oracle.check(v, [o for _, o in outputs])
            for (row, o), res in zip(outputs, verdicts):
                row["accepted"] = res["ok"]
                row["oracle_error"] = clean(res["error"], str(o.resolve()))
            if cubin:
                jobs, pairs = [], []
                for (row, o), res in zip(outputs, verdicts):
                    if not res["ok"]:
                        continue
                    if row.get("identical"):  # the same bytes: the same cubin, nothing to compile
                        row["same_cubin"] = True
                        continue
                    arch = 80 if "/sm80/" in row["file"] else 90
                    n = len(jobs)
                    jobs += [{"file": str(V.ROOT / row["file"]), "out": str(tmp / f"{n}.a.cubin"), "arch": arch},
                             {"file": str(o), "out": str(tmp / f"{n}.b.cubin"), "arch": arch}]
                    pairs.append(row)
                results = oracle.compile_cubins(v, jobs) if jobs else []
                for k, row in enumerate(pairs):
                    a, b = results[2 * k], results[2 * k + 1]
                    if a["ok"] and b["ok"]:
                        row["same_cubin"] = a["sha256"] == b["sha256"]
                    else:
                        row["same_cubin"] = None
                        row["cubin_error"] = a.get("error") or b.get("error")
        out[v] = rows
    return out


def markdown(own, broken, cross, runs, versions, py, cubin, reprint=False) -> str:
    how = ("`TTOPT_KEEP_TEXT=0` (every op printed anew, not copied from the input)" if reprint
           else "the default mode (unchanged ops copied from the input)")
    L = [
        "# ttopt on the per-version fixtures: status",
        "",
        "Generated by `tools/versions/status.py` (do not edit; rerun it) with ttopt at commit "
        f"{git_state()}, ttopt run by `{py} -m ttopt.cli DIR --output-dir OUT` (no pass: a round "
        f"trip; each file as it would run alone), in {how}.",
        "The oracle of a file is its own Triton version (`tools/versions/oracle.py check VERSION`):",
        "that release's MLIR parser and verifier.  Fixtures and their provenance: `PROVENANCE.md`.",
        "Machine-readable: `STATUS.json`.",
        "Same cubin (`--cubin`): an output byte-identical to its input has the input's cubin and is",
        "not compiled again; any other output and its input are each compiled by the release",
        "(sm_80 or sm_90 as the file's folder says) and the cubins compared.",
        "",
        "## Summary",
        "",
        "| version | fixtures | accepted by own version | ttopt reads | output byte-identical | ttopt's output accepted"
        + (" | same cubin |" if cubin else " |"),
        "|---|---|---|---|---|---|" + ("---|" if cubin else ""),
    ]
    for v in versions:
        rows = runs[v]
        reads = [r for r in rows if r["reads"]]
        acc = [r for r in reads if r.get("accepted")]
        same = sum(bool(r.get("identical")) for r in reads)
        line = (f"| {v} | {own[v]['files']} | {own[v]['accepted']}/{own[v]['files']} | {len(reads)}/{len(rows)} "
                f"| {same}/{len(reads)} | {len(acc)}/{len(reads)} |")
        if cubin:
            same = [r for r in acc if r.get("same_cubin")]
            line += f" {len(same)}/{len(acc)} |"
        L.append(line)
    L += ["", "## The oracle rejects broken copies", "",
          "Copies of each version's `sm90/elementwise.ttir`, broken on purpose.  The first two must",
          "be rejected by every version; the third shows an op verifier that not every version has.", "",
          "| version | break | rejected | first error line |", "|---|---|---|---|"]
    for b in broken:
        verdict = "yes" if b["rejected"] else "**NO**" if b["judged"] else "no (not checked by this version)"
        L.append(f"| {b['version']} | {b['break']} | {verdict} | `{b['error']}` |")
    L += ["", "## Which version reads which version's text", "",
          "Rows: the version that wrote `sm90/elementwise.ttir` / `sm90/matmul.ttgir`; columns: the",
          "version whose parser and verifier read them (`y`: accepted, `-`: rejected).", "",
          "| written by | " + " | ".join(versions) + " |", "|---|" + "---|" * len(versions)]
    for w in versions:
        cells = ["".join("y" if ok else "-" for ok in cross[c][w]) for c in versions]
        L.append(f"| {w} | " + " | ".join(cells) + " |")
    L += ["", "## Per file (the to-do list of the reader work)", ""]
    for v in versions:
        L += [f"### {v}", "", "| file | ttopt reads | first error line (ttopt, else the oracle on ttopt's output) |"
              + (" same cubin |" if cubin else ""), "|---|---|---|" + ("---|" if cubin else "")]
        for r in runs[v]:
            name = r["file"].split(f"/{v}/", 1)[-1]
            if not r["reads"]:
                state, err = f"no (exit {r['exit']})", r["error"]
            elif r.get("accepted"):
                state, err = "yes, output accepted", ""
            else:
                state, err = "yes, output **rejected**", r.get("oracle_error", "")
            line = f"| {name} | {state} | {('`' + err.replace('|', '/') + '`') if err else ''} |"
            if cubin:
                sc = r.get("same_cubin")
                line += " " + ("yes" if sc else "**no**" if sc is False else (r.get("cubin_error") or "")[:120]) + " |"
            L.append(line)
        L.append("")
    return "\n".join(L)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("versions", nargs="*")
    ap.add_argument("--ttopt-python", default=str(V.ROOT / ".venv" / "bin" / "python"))
    ap.add_argument("--cubin", action="store_true", help="also compare cubins of input and output")
    ap.add_argument("--out", default=str(V.FIXTURES / "STATUS.md"))
    ap.add_argument("--reprint", action="store_true",
                    help="run ttopt with TTOPT_KEEP_TEXT=0: every op printed anew (the writer's "
                         "syntax per release, judged by each release; cubins compared)")
    a = ap.parse_args(argv)
    versions = [V.resolve(v) for v in a.versions] or V.ALL
    missing = [v for v in versions if not V.have_env(v)]
    if missing:
        print(f"status.py: error: no environment for {', '.join(missing)}: run tools/versions/make_envs.py", file=sys.stderr)
        return 2
    py = a.ttopt_python
    shown_py = rel(pathlib.Path(py)) if pathlib.Path(py).is_absolute() else py
    with tempfile.TemporaryDirectory(prefix="ttopt-status-") as t:
        tmp = pathlib.Path(t)
        own = own_check(versions)
        broken = broken_check(versions, tmp)
        cross = cross_check(versions)
        runs = ttopt_run(versions, py, tmp, a.cubin, a.reprint)
    out = pathlib.Path(a.out)
    out.write_text(markdown(own, broken, cross, runs, versions, shown_py, a.cubin, a.reprint))
    out.with_suffix(".json").write_text(json.dumps(
        {"own": own, "broken": broken, "cross": cross, "ttopt": runs}, indent=1) + "\n")
    oracle_ok = all(o["accepted"] == o["files"] for o in own.values()) and all(b["rejected"] for b in broken if b["judged"])
    for v in versions:
        reads = [r for r in runs[v] if r["reads"]]
        print(f"{v}: own {own[v]['accepted']}/{own[v]['files']}; ttopt reads {len(reads)}/{len(runs[v])}, "
              f"output accepted {sum(bool(r.get('accepted')) for r in reads)}/{len(reads)}")
    print(f"oracle: {'works' if oracle_ok else 'FAILED'} (own fixtures accepted, broken copies rejected); wrote {out}")
    return 0 if oracle_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
