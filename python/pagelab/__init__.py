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

# The C module, not `signal`: `signal` builds its enums at import, some milliseconds of the
# window the starting handler is there to close.
import _signal
import sys as _sys


def _starting(signum: int, frame: object) -> None:
    """The `pagelab` command's first signal handler, installed before anything heavy is
    imported: a signal that comes while the command is still starting (importing click, NumPy
    and the engine takes a few hundred milliseconds) ends it at once with one line and 128 + the
    signal's number, nothing written yet. The command's own handler (pagelab/interrupt.py) takes
    over when it starts. Only the command installs it: a program that imports pagelab keeps its
    own handlers."""
    import os

    name = "SIGINT" if signum == _signal.SIGINT else "SIGTERM"
    os.write(2, f"pagelab: interrupted by {name}; nothing written\n".encode())
    os._exit(128 + signum)


def _install_starting() -> None:
    """Makes SIGINT and SIGTERM end the starting command with one line."""
    for s in (_signal.SIGINT, _signal.SIGTERM):
        _signal.signal(s, _starting)


# Run as the `pagelab` command (the script, or `python -m pagelab`, while Python still locates
# the module and argv[0] is "-m"): take signals quietly from here on. Defined in this file, not
# a submodule: the first import from the package directory builds its path finder, tens of
# milliseconds under load in which a signal would still end the command with a traceback.
_argv0 = (getattr(_sys, "argv", None) or [""])[0]
if _argv0 == "-m" or _argv0.rpartition("/")[2] == "pagelab":
    _install_starting()

from typing import Any  # noqa: E402

from .errors import PagelabError  # noqa: E402

#: Public names and the modules they live in, imported when first used: `import pagelab` loads
#: neither the engine nor NumPy, so the `pagelab` command can take signals within milliseconds
#: of starting (python/pagelab/__main__.py).
_LAZY = {
    "Stepper": "lab",
    "curve": "lab",
    "lru_curve": "lab",
    "m44_run_time": "lab",
    "opt_curve": "lab",
    "parse_policy": "lab",
    "policies": "lab",
    "ws_curve": "lab",
    "Metric": "system",
    "SystemResult": "system",
    "presets": "system",
    "run_system": "system",
}

__all__ = ["PagelabError", *sorted(_LAZY)]


def __getattr__(name: str) -> Any:
    import importlib

    if name == "__version__":
        return importlib.import_module("._core", __name__).__version__
    if name in _LAZY:
        module = importlib.import_module(f".{_LAZY[name]}", __name__)
        value = getattr(module, "run" if name == "run_system" else name)
        globals()[name] = value
        return value
    # `pagelab.sweep(...)` without importing Dask, pandas or rich at `import pagelab`.
    if name in ("model", "sweep"):
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY, "__version__", "model", "sweep"])
