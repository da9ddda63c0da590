"""The optional parts of pagelab and the packages each needs (pyproject.toml, its extras).

`pip install pagelab` is the core: the trace lab, the system simulator, the presets, the curves
and the reproductions at smoke scale (in this process: `pagelab.reproduce.placement`), with click
and rich alone. The rest comes with an extra, and a command that needs one that is
missing says which, before it starts:

>>> EXTRAS["report"]
('jinja2', 'plotly', 'markdown_it', 'matplotlib')
>>> extra_of("optuna")
'calibrate'
"""

from __future__ import annotations

import importlib.util

from .errors import PagelabError

#: Import names of each extra's packages (a package listed in two extras is named by the first
#: one that a user of the feature would install; `[all]` has every one).
EXTRAS: dict[str, tuple[str, ...]] = {
    "sweep": ("dask", "distributed", "pandas", "pyarrow", "scipy", "numpy", "matplotlib"),
    "calibrate": ("optuna", "cmaes"),
    "report": ("jinja2", "plotly", "markdown_it", "matplotlib"),
    "stats": ("statsmodels",),
}

#: What each feature needs: (import names, extras to install).
FEATURES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "sweep": (EXTRAS["sweep"], ("sweep",)),
    "reproduce": (EXTRAS["sweep"], ("sweep",)),
    "calibrate": (EXTRAS["sweep"] + EXTRAS["calibrate"], ("calibrate",)),
    "report": (EXTRAS["report"], ("report",)),
    "stats": (EXTRAS["stats"] + ("numpy",), ("stats",)),
    "plot": (("matplotlib",), ("sweep", "report")),
    "parquet": (("pyarrow",), ("sweep",)),
    "frames": (("pandas",), ("sweep",)),
    "demo": (EXTRAS["sweep"] + EXTRAS["report"], ("all",)),
    # Runs on several worker processes or a scheduler's (a reproduction at smoke scale without
    # them runs in this process), and a bootstrap interval (many seeds, skewed effects).
    "workers": (("dask", "distributed"), ("sweep",)),
    "bootstrap": (("scipy", "numpy"), ("sweep",)),
}


def missing(modules: tuple[str, ...]) -> list[str]:
    """Those of `modules` that cannot be imported here."""
    return [m for m in dict.fromkeys(modules) if importlib.util.find_spec(m) is None]


def need(feature: str, what: str) -> None:
    """Raises a one-line error naming the extra to install when `feature` cannot run here."""
    modules, extras = FEATURES[feature]
    absent = missing(modules)
    if absent:
        raise PagelabError(_sentence(what, absent, extras))


def extra_of(module: str) -> str:
    """The extra that brings `module` (its top-level import name); "all" when none does."""
    top = module.split(".")[0]
    for extra, modules in EXTRAS.items():
        if top in modules:
            return extra
    return "all"


def explain(e: ModuleNotFoundError, what: str) -> str:
    """A missing package met during `what` in the user's words: which extra brings it."""
    name = (e.name or "").split(".")[0]
    return _sentence(what, [name], (extra_of(name),))


def _sentence(what: str, absent: list[str], extras: tuple[str, ...]) -> str:
    install = " or ".join(f"pip install 'pagelab[{x}]'" for x in extras)
    return f"{what} needs {', '.join(absent)}, not installed: {install}"
