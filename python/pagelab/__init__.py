"""pagelab: a laboratory for paging, swapping and memory load control.

The replacement lab (:mod:`pagelab.lab`), reference traces (:mod:`pagelab.traces`), the system
simulator (:mod:`pagelab.system`) and the paper reproductions (:mod:`pagelab.reproduce`).
"""

from . import _core
from .errors import PagelabError
from .lab import (
    Stepper,
    curve,
    lru_curve,
    m44_run_time,
    opt_curve,
    parse_policy,
    policies,
    ws_curve,
)

__version__: str = _core.__version__

__all__ = [
    "PagelabError",
    "Stepper",
    "curve",
    "lru_curve",
    "m44_run_time",
    "opt_curve",
    "parse_policy",
    "policies",
    "ws_curve",
]


def __getattr__(name: str) -> object:
    # `pagelab.sweep(...)` without importing Dask, pandas or rich at `import pagelab`.
    if name == "sweep":
        import importlib

        return importlib.import_module(".sweep", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
