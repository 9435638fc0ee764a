"""ttopt: an optimizer for Triton's IR (TTIR/TTGIR), built on xDSL.

    >>> import ttopt
    >>> new_text = ttopt.optimize(text, ["redundant-load", "redundant-reduce"])
    >>> result = ttopt.run_pipeline(text, ttopt.parse_pipeline("redundant-load{respect-hints=true},cse"))
"""

from .errors import TTOptError
from .passes import PASSES
from .pipeline import OptimizeResult, optimize, parse_pipeline, run_pipeline

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
