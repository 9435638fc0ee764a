"""ttopt: an optimizer for Triton's IR (TTIR/TTGIR), built on xDSL.

    >>> import ttopt
    >>> new_text = ttopt.optimize(text, ["redundant-load", "redundant-reduce"])
    >>> result = ttopt.run_pipeline(text, ttopt.parse_pipeline("redundant-load{respect-hints=true},cse"))

Importing ``ttopt`` is cheap: the names below that need xDSL (the pipeline, the pass registry)
are imported on first use (PEP 562 module ``__getattr__``), so ``ttopt-opt --version`` and
``--help`` never load xDSL.
"""

from .errors import TTOptError

__version__ = "0.1.0"
__all__ = [
    "optimize",
    "run_pipeline",
    "parse_pipeline",
    "OptimizeResult",
    "TTOptError",
    "PASSES",
    "__version__",
]

# name -> the submodule that defines it, imported on first access
_LAZY = {
    "optimize": "pipeline",
    "run_pipeline": "pipeline",
    "parse_pipeline": "pipeline",
    "OptimizeResult": "pipeline",
    "PASSES": "passes",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ttopt' has no attribute '{name}'")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value  # later accesses are plain attribute lookups
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
