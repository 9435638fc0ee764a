"""SASS instruction counts and resource usage of a cubin, with the ``cuobjdump`` that Triton
bundles (``triton/backends/nvidia/bin``), so it works on the CPU as well as on the GPU machine.

    python -m bench.sass KERNEL.cubin [...]      # one line of counts per cubin
"""

from __future__ import annotations

import collections
import os
import re
import subprocess
import sys
import tempfile

# An instruction line of ``cuobjdump -sass``:  /*00c0*/  @!P1 LDG.E.EL R5, desc[UR4][R4.64] ;
_INSTR = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*)((?:\.[A-Z0-9_:]+)*)")
_RESOURCE = re.compile(r"REG:(\d+)\s+STACK:(\d+)\s+SHARED:(\d+)\s+LOCAL:(\d+)")

# The counts reported per kernel: global loads (and how many carry an L1 eviction hint; LDGSTS:
# asynchronous global-to-shared copies, as Triton's software pipeliner emits), reciprocals (f32: div.full, and f64: div.rn), fused multiply-adds and multiplies, and local
# memory traffic (register spills show as STL/LDL).
REPORTED = ("LDG", "LDG.EL", "LDG.EF", "LDGSTS", "STG", "MUFU.RCP", "MUFU.RCP64H", "FFMA", "FMUL", "LDL", "STL", "total")


def cuobjdump() -> str:
    """Path of the cuobjdump bundled with Triton (or the one on PATH)."""
    try:
        import triton

        path = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "cuobjdump")
        if os.path.exists(path):
            return path
    except ImportError:
        pass
    return "cuobjdump"


def count_sass(text: str) -> dict[str, int]:
    """Opcode counts of a ``cuobjdump -sass`` listing (all functions together).

    Keys: each opcode (``LDG``, ``FFMA``, ...), ``MUFU.<fn>`` for each MUFU function, ``LDG.EL``
    / ``LDG.EF`` for global loads with an evict-last / evict-first hint, and ``total``
    (instructions, the NOPs and the trailing self-branch of the padding excluded)."""
    counts: collections.Counter = collections.Counter()
    for line in text.splitlines():
        m = _INSTR.match(line)
        if not m:
            continue
        op, mods = m.group(1), m.group(2)
        if op == "NOP":
            continue
        if op == "BRA" and _self_branch(line):
            continue
        counts["total"] += 1
        if op == "MUFU":
            fn = mods.split(".")[1] if mods.startswith(".") else ""
            counts[f"MUFU.{fn}" if fn else "MUFU"] += 1
            continue
        counts[op] += 1
        if op in ("LDG", "LDGSTS"):
            parts = mods.split(".")
            if "EL" in parts:
                counts[f"{op}.EL"] += 1
            if "EF" in parts:
                counts[f"{op}.EF"] += 1
    return dict(counts)


def _self_branch(line: str) -> bool:
    m = re.match(r"^\s*/\*([0-9a-f]+)\*/.*BRA\s+0x([0-9a-f]+)\s*;", line)
    return bool(m) and int(m.group(1), 16) == int(m.group(2), 16)


def resource_usage(text: str) -> dict[str, int]:
    """``REG``/``STACK``/``SHARED``/``LOCAL`` of the first function in ``cuobjdump
    --dump-resource-usage`` output (empty if none)."""
    m = _RESOURCE.search(text)
    if not m:
        return {}
    return dict(zip(("regs", "stack", "shared", "local"), (int(x) for x in m.groups())))


def summarize(counts: dict[str, int], resources: dict[str, int] | None = None) -> dict[str, int]:
    """The reported subset: REPORTED keys (0 when absent) plus registers and local bytes."""
    out = {k: int(counts.get(k, 0)) for k in REPORTED}
    if resources:
        out["regs"] = resources.get("regs", -1)
        out["local_bytes"] = resources.get("local", -1)
    return out


def analyze_cubin(cubin: bytes | str) -> dict[str, int]:
    """SASS counts and resources of a cubin (bytes, or a path)."""
    tmp = None
    if isinstance(cubin, (bytes, bytearray)):
        fd, tmp = tempfile.mkstemp(suffix=".cubin")
        with os.fdopen(fd, "wb") as f:
            f.write(cubin)
        path = tmp
    else:
        path = str(cubin)
    try:
        tool = cuobjdump()
        sass = subprocess.run([tool, "-sass", path], capture_output=True, text=True, timeout=120).stdout
        res = subprocess.run([tool, "--dump-resource-usage", path], capture_output=True, text=True, timeout=120).stdout
    finally:
        if tmp:
            os.unlink(tmp)
    return summarize(count_sass(sass), resource_usage(res))


def main(argv: list[str] | None = None) -> int:
    for path in argv if argv is not None else sys.argv[1:]:
        print(path, analyze_cubin(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
