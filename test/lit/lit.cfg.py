# lit configuration for ttopt's FileCheck tests.  Run: lit test/lit  (or pytest).
import os
import sys

import lit.formats

config.name = "ttopt"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ttir", ".ttgir", ".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py", "Inputs", "tools"]

root = os.path.dirname(os.path.dirname(config.test_source_root))
python = sys.executable
config.substitutions.append(("%ttopt", f'"{python}" -m ttopt.cli'))
tools = os.path.join(config.test_source_root, "tools")
# Triton judges each chunk of a split file (`// -----`); before %triton-verify, its prefix.
config.substitutions.append(
    ("%triton-verify-chunks", f'"{python}" "{os.path.join(tools, "triton_verify_chunks.py")}"')
)
config.substitutions.append(("%triton-verify", f'"{python}" -m ttopt.oracle'))
# `%expect-exit N cmd...`: cmd must exit with exactly N (lit's `not` takes any failure).
config.substitutions.append(("%expect-exit", f'"{python}" "{os.path.join(tools, "expect_exit.py")}"'))
config.substitutions.append(("%examples", os.path.join(root, "examples")))
config.substitutions.append(("%corpus", os.path.join(os.path.dirname(root), "shared", "corpus")))
config.substitutions.append(("FileCheck", "filecheck"))

config.environment["PATH"] = os.path.dirname(python) + os.pathsep + os.environ.get("PATH", "")
config.environment["PYTHONPATH"] = root + os.pathsep + os.environ.get("PYTHONPATH", "")
for var in ("HOME", "TRITON_CACHE_DIR", "TMPDIR", "TTOPT_KEEP_TEXT"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
