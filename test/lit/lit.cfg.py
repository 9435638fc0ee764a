# lit configuration for ttopt's FileCheck tests.  Run: lit test/lit  (or pytest).
import os
import sys

import lit.formats

config.name = "ttopt"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ttir", ".ttgir", ".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py", "Inputs"]

root = os.path.dirname(os.path.dirname(config.test_source_root))
python = sys.executable
config.substitutions.append(("%ttopt", f'"{python}" -m ttopt.cli'))
config.substitutions.append(("%triton-verify", f'"{python}" -m ttopt.oracle'))
config.substitutions.append(("%examples", os.path.join(root, "examples")))
config.substitutions.append(("%corpus", os.path.join(os.path.dirname(root), "shared", "corpus")))
config.substitutions.append(("FileCheck", "filecheck"))

config.environment["PATH"] = os.path.dirname(python) + os.pathsep + os.environ.get("PATH", "")
config.environment["PYTHONPATH"] = root + os.pathsep + os.environ.get("PYTHONPATH", "")
for var in ("HOME", "TRITON_CACHE_DIR", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
