#!/usr/bin/env python3
"""The in-process hook (``ttopt.triton_hook``) with each Triton release that has the stages
hook (3.6+), and the clear refusal of those that have none.

    python3.11 tools/versions/hook_check.py [VERSION...]     # default: every release from 3.5 on

Each release runs in its own environment (make_envs.py) with ttopt importable from this
checkout and xDSL (plus its few pure-Python dependencies) from ttopt's ``.venv``.  In it,
``looped_reduction`` (one address loaded with evict_last and again with evict_first,
tools/versions/kernels.py) is compiled on the CPU for sm_90 three times: without the hook,
with ``hook.enable(["redundant-load"])``, and with the hook disabled again.  The check:
the hooked compile's TTIR has one ``tt.load`` fewer than the plain one and still compiles to a
cubin, the release's cache key changes with the hook (3.7+ ask the hook for a key part; 3.6's
key ignores it, and ttopt moves the cache folder), and the compile after ``disable()`` is the
plain one again.  For a release without the hook,
``enable()`` must raise a one-line error saying so.

Prints one JSON line per release; exit 0 iff every release behaved.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import triton_versions as V  # noqa: E402

ROOT = V.ROOT
SITE = ROOT / ".venv" / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
DEPS = ("xdsl", "immutabledict", "ordered_set", "typing_extensions.py", "click")

INSIDE = r'''
import json, os, sys
import triton
result = {"triton": triton.__version__}
sys.path.insert(0, os.environ["TTOPT_KERNELS"])
import kernels
from triton.backends.compiler import GPUTarget
import ttopt.triton_hook as hook
from ttopt.errors import TTOptError

def ttir_loads():
    from triton.compiler import ASTSource
    spec = kernels.SPECS["looped_reduction"]
    sig = {n: t for n, t, _ in spec["args"]}
    sig.update({k: "constexpr" for k in spec["constexprs"]})
    attrs = {(i,): [["tt.divisibility", 16]] for i, (n, t, d) in enumerate(spec["args"]) if d}
    try:
        src = ASTSource(fn=kernels.looped_reduction, signature=sig, constexprs=spec["constexprs"], attrs=attrs)
    except TypeError:
        src = ASTSource(fn=kernels.looped_reduction, signature=sig, constants=spec["constexprs"])
    c = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
    return c.asm["ttir"].count("tt.load "), len(c.asm["cubin"]), c.hash

try:
    has = hasattr(triton.knobs.runtime, "add_stages_inspection_hook")
except AttributeError:
    has = False
result["has_hook"] = has
if not has:
    try:
        hook.enable(["redundant-load"])
        result["refused"] = None
    except TTOptError as e:
        result["refused"] = str(e)
else:
    plain = ttir_loads()
    hook.enable(["redundant-load"])
    hooked = ttir_loads()
    hook.disable()
    again = ttir_loads()
    result.update(plain_loads=plain[0], hooked_loads=hooked[0], again_loads=again[0],
                  hooked_cubin_bytes=hooked[1], key_changed=plain[2] != hooked[2],
                  again_same=again[2] == plain[2])
print(json.dumps(result))
'''


def check(version: str) -> dict:
    version = V.resolve(version)
    if not V.have_env(version):
        return {"version": version, "ok": False, "error": "no environment (make_envs.py)"}
    with tempfile.TemporaryDirectory() as tmp:
        site = pathlib.Path(tmp, "site")
        site.mkdir()
        for name in DEPS:
            os.symlink(SITE / name, site / name)
        os.symlink(ROOT / "ttopt", site / "ttopt")
        env = dict(os.environ, PYTHONPATH=str(site), TTOPT_KERNELS=str(V.HERE),
                   TRITON_CACHE_DIR=str(pathlib.Path(tmp, "cache")), TRITON_DEFAULT_FP_FUSION="1")
        r = subprocess.run([str(V.env_python(version)), "-c", INSIDE], capture_output=True,
                           text=True, cwd=tmp, env=env)
    if r.returncode != 0:
        return {"version": version, "ok": False, "error": r.stderr.strip().splitlines()[-1:]}
    out = json.loads(r.stdout.strip().splitlines()[-1])
    out["version"] = version
    if out["has_hook"]:
        # (3.6's cache key ignores the hook, which moves Triton's cache folder instead; 3.7+
        # ask the hook for a part of the key)
        key_ok = out["key_changed"] or V.key(version) < (3, 7)
        out["ok"] = (out["hooked_loads"] == out["plain_loads"] - 1 and out["again_loads"] == out["plain_loads"]
                     and out["hooked_cubin_bytes"] > 0 and key_ok and out["again_same"])
    else:
        refused = out.get("refused") or ""
        out["ok"] = "stages inspection hook" in refused and "\n" not in refused
    return out


def main(argv: list[str] | None = None) -> int:
    versions = (argv if argv is not None else sys.argv[1:]) or [v for v in V.ALL if V.key(v) >= (3, 5)]
    ok = True
    for v in versions:
        res = check(v)
        print(json.dumps(res))
        ok &= bool(res.get("ok"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
