"""ttopt: an optimizer for Triton's IR (TTIR/TTGIR), built on xDSL.

    >>> import ttopt
    >>> new_text = ttopt.optimize(text, ["redundant-load", "redundant-reduce"])
"""

from .errors import TTOptError
from .passes import PASSES
from .pipeline import OptimizeResult, optimize, run_pipeline

__version__ = "0.1.0"
__all__ = ["optimize", "run_pipeline", "OptimizeResult", "TTOptError", "PASSES", "__version__"]
