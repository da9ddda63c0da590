"""pagelab: a laboratory for paging, swapping and memory load control.

The replacement lab (:mod:`pagelab.lab`), reference traces (:mod:`pagelab.traces`), the system
simulator (:mod:`pagelab.system`; :func:`run_system` at the top level) and the paper reproductions
(:mod:`pagelab.reproduce`). docs/python.md describes the API.

>>> import pagelab
>>> tiny = {"run.duration_s": 30, "run.warmup_s": 5, "workload.users": 20}
>>> r = pagelab.run_system("vmsp", set=tiny, seed=1)
>>> r.metrics["users"].value
20.0
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
from .system import Metric, SystemResult, presets
from .system import run as run_system

__version__: str = _core.__version__

__all__ = [
    "Metric",
    "PagelabError",
    "Stepper",
    "SystemResult",
    "curve",
    "lru_curve",
    "m44_run_time",
    "opt_curve",
    "parse_policy",
    "policies",
    "presets",
    "run_system",
    "ws_curve",
]


def __getattr__(name: str) -> object:
    # `pagelab.sweep(...)` without importing Dask, pandas or rich at `import pagelab`.
    if name in ("model", "sweep"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
