"""The decision file that ``bench.tune`` (ttopt tune) writes and ``ttopt.triton_hook`` reads: which kernels keep ttopt's rewrite.

Format (JSON, ``"format": "ttopt-tune-decisions/1"``)::

    {
      "format": "ttopt-tune-decisions/1",
      "created": "2026-11-20T10:00:00Z",
      "device": "NVIDIA H100 80GB HBM3", "triton": "3.6.0", "torch": "2.11.0", "ttopt": "0.1.0",
      "passes": ["redundant-load", "redundant-reduce", "div-chain"],
      "stage": "ttir",
      "rule": "keep iff the 95% CI lower bound of the speedup over the baseline and over the null override is > 1.0, in every timing pass",
      "kernels": [
        {"kernel": "triton_per_fused_...", "ttir_digest": "<sha256 hex>", "hashes": ["<H>", ...],
         "model": "vit", "module": "triton_per_fused_...", "decision": "keep" | "reject",
         "passes": ["redundant-load"], "reason": "faster: 1.38x [1.35, 1.41]",
         "speedup": [1.38, 1.35, 1.41], "rewrites": {"redundant-load": 2}}
      ]
    }

How a compiler hook finds its entry: the kernel's name and ``ttir_digest``, the SHA-256 of the
kernel's TTIR *as Triton's make_ttir printed it*, normalised so that it does not depend on
where the source file was (locations dropped, SSA names renumbered in order of appearance):
the same digest comes from a ``TRITON_KERNEL_DUMP`` ``.ttir`` file and from
``module.str()``/``module.str_nodebug()`` inside Triton's ``add_stages_inspection_hook``.
``hashes`` are Triton's dump/override directory names (``<H>``) the tuner saw, for the
override-directory route.  An entry whose decision is ``keep`` names the passes to run; a
kernel with no entry, or ``reject``, is left as Triton made it.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import pathlib
import re
from dataclasses import dataclass, field

FORMAT = "ttopt-tune-decisions/1"
KEEP, REJECT = "keep", "reject"

_NAME = re.compile(r"%[A-Za-z_0-9$.\-]+|\^[A-Za-z_0-9$.\-]+")
_LOC_ALIAS_LINE = re.compile(r"^#loc[0-9]*\s*=.*$", re.MULTILINE)


def _strip_locs(text: str) -> str:
    """Drop every ``loc(...)`` (balanced parentheses, strings respected)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        j = text.find("loc(", i)
        if j < 0:
            out.append(text[i:])
            break
        # a `loc(` that is part of a longer identifier (e.g. `alloc(`) is kept
        if j > 0 and (text[j - 1].isalnum() or text[j - 1] in "_."):
            out.append(text[i : j + 4])
            i = j + 4
            continue
        out.append(text[i:j])
        depth, k, in_str = 0, j + 3, False
        while k < n:
            c = text[k]
            if in_str:
                if c == "\\":
                    k += 1
                elif c == '"':
                    in_str = False
            elif c == '"':
                in_str = True
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        i = k + 1
    return "".join(out)


def normalize_ttir(text: str) -> str:
    """TTIR text without locations, with SSA values and blocks renamed ``%v0, %v1, ...`` /
    ``^b0, ...`` in order of first appearance, and whitespace collapsed per line."""
    text = _LOC_ALIAS_LINE.sub("", text)
    text = _strip_locs(text)
    names: dict[str, str] = {}
    counters = {"%": 0, "^": 0}

    def rename(m: re.Match) -> str:
        tok = m.group(0)
        if tok not in names:
            names[tok] = f"{'%v' if tok[0] == '%' else '^b'}{counters[tok[0]]}"
            counters[tok[0]] += 1
        return names[tok]

    text = _NAME.sub(rename, text)
    lines = [re.sub(r" ([,)])", r"\1", " ".join(line.split())) for line in text.splitlines()]
    return "\n".join(line for line in lines if line)


def ttir_digest(text: str) -> str:
    return hashlib.sha256(normalize_ttir(text).encode()).hexdigest()


@dataclass
class Decision:
    kernel: str
    ttir_digest: str
    decision: str
    passes: list[str] = field(default_factory=list)
    hashes: list[str] = field(default_factory=list)
    model: str = ""
    module: str = ""
    reason: str = ""
    speedup: list[float] | None = None
    rewrites: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "kernel": self.kernel, "ttir_digest": self.ttir_digest, "hashes": self.hashes,
            "model": self.model, "module": self.module, "decision": self.decision,
            "passes": self.passes, "reason": self.reason, "speedup": self.speedup,
            "rewrites": self.rewrites,
        }

    @staticmethod
    def from_dict(d: dict) -> "Decision":
        if d.get("decision") not in (KEEP, REJECT):
            raise ValueError(f"decision must be {KEEP!r} or {REJECT!r}, got {d.get('decision')!r}")
        return Decision(
            kernel=d["kernel"], ttir_digest=d["ttir_digest"], decision=d["decision"],
            passes=list(d.get("passes") or []), hashes=list(d.get("hashes") or []),
            model=d.get("model", ""), module=d.get("module", ""), reason=d.get("reason", ""),
            speedup=d.get("speedup"), rewrites=dict(d.get("rewrites") or {}),
        )


@dataclass
class Decisions:
    kernels: list[Decision]
    passes: list[str] = field(default_factory=list)
    meta: dict = field(default_factory=dict)

    def passes_for(self, kernel: str, ttir_text: str) -> list[str] | None:
        """The passes to run on this kernel (a ``keep`` entry with this name and digest), or
        None: leave it alone."""
        digest = ttir_digest(ttir_text)
        for d in self.kernels:
            if d.kernel == kernel and d.ttir_digest == digest:
                return list(d.passes) if d.decision == KEEP else None
        return None

    def kept(self) -> list[Decision]:
        return [d for d in self.kernels if d.decision == KEEP]

    def to_dict(self) -> dict:
        return {
            "format": FORMAT,
            "created": self.meta.get("created")
            or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            **{k: v for k, v in self.meta.items() if k != "created"},
            "passes": self.passes,
            "kernels": [d.to_dict() for d in self.kernels],
        }

    def write(self, path: pathlib.Path) -> None:
        path = pathlib.Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=1) + "\n")
        tmp.replace(path)


def load(path: pathlib.Path | str) -> Decisions:
    data = json.loads(pathlib.Path(path).read_text())
    if data.get("format") != FORMAT:
        raise ValueError(f"{path}: not a {FORMAT} file (format {data.get('format')!r})")
    meta = {k: v for k, v in data.items() if k not in ("format", "passes", "kernels")}
    return Decisions([Decision.from_dict(d) for d in data["kernels"]], list(data.get("passes") or []), meta)
