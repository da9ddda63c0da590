"""Sweeps: many runs of a spec over a grid of settings and seeds, on Dask, through a store.

`pagelab.sweep(spec, grid=..., seeds=..., out=...)` returns one row per (grid point, seed)
as a pandas DataFrame: the swept keys and every metric as columns. With `out`, each run is kept
in `out/runs/` (see :mod:`pagelab.sweep.store`) and never computed twice. The paired statistics
of reproduction claims are in :mod:`pagelab.sweep.paired`.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
import types
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import PagelabError
from .engine import Outcome, Task, execute
from .grid import axes_of, check_keys, points, to_override
from .spec import resolve
from .store import Store

__all__ = ["Outcome", "Store", "Task", "plan", "run_sweep", "seed_list", "sweep", "tasks_for"]


def seed_list(seeds: int | Sequence[int]) -> list[int]:
    """`N` -> seeds 1..N; a sequence is taken as it is."""
    if isinstance(seeds, int):
        if seeds < 1:
            raise PagelabError(f"--seeds {seeds}: expected at least 1")
        return list(range(1, seeds + 1))
    out = [int(s) for s in seeds]
    if not out:
        raise PagelabError("--seeds: expected at least one seed")
    return out


def tasks_for(
    spec: str | os.PathLike[str],
    overrides: Sequence[str],
    seeds: Sequence[int],
    params: Mapping[str, Any] | None = None,
) -> list[Task]:
    """The tasks of one setting of `spec` over `seeds`."""
    point, _ = resolve(spec, overrides)
    build = engine_build()
    return [Task(point, s, point.key(s, build), dict(params or {})) for s in seeds]


@functools.cache
def engine_build() -> str:
    """The version and the engine's own bytes (sha256 of the compiled extension): a stored run
    is reused only by the engine that made it, so a rebuilt engine with the same version
    number never returns another build's results."""
    from .. import __version__, _core

    with open(_core.__file__, "rb") as f:
        digest = hashlib.file_digest(f, "sha256").hexdigest()
    return f"{__version__}+{digest[:16]}"


def plan(
    spec: str | os.PathLike[str],
    *,
    grid: Mapping[str, Sequence[Any]] | Sequence[str] | None = None,
    seeds: int | Sequence[int] = 1,
    set: Sequence[str] = (),  # noqa: A002 - the name of the command-line option
) -> list[Task]:
    """Every task of a sweep, grid point slowest and seed fastest; checked before any run."""
    seed_values = seed_list(seeds)
    axes = axes_of(grid)
    base, tree = resolve(spec, set)
    check_keys(axes, tree, base.name)
    from .. import system
    from .spec import lookup

    path = system.resolve_spec_path(spec)
    tasks = []
    for p in points(axes):
        overrides = [*set, *(to_override(k, v) for k, v in p.items())]
        _, resolved = resolve(spec, overrides)
        try:
            system.check(path, overrides=overrides)  # every check a run makes, before any run
        except PagelabError as e:
            where = ", ".join(f"{k}={v}" for k, v in p.items()) or "the spec"
            raise PagelabError(f"grid point {where}: {e}") from None
        params = {k: lookup(resolved, k) for k in [*_set_keys(set), *axes]}
        tasks += tasks_for(spec, overrides, seed_values, params)
    return tasks


def _set_keys(overrides: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(o.partition("=")[0].strip() for o in overrides))


def run_sweep(
    spec: str | os.PathLike[str],
    *,
    grid: Mapping[str, Sequence[Any]] | Sequence[str] | None = None,
    seeds: int | Sequence[int] = 1,
    set: Sequence[str] = (),  # noqa: A002
    out: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
) -> Outcome:
    """Plans and runs a sweep; the outcome's rows in plan order."""
    tasks = plan(spec, grid=grid, seeds=seeds, set=set)
    store = Store(Path(out)) if out is not None else None
    return execute(tasks, store, workers=workers, scheduler=scheduler, label=f"sweep {spec}")


def sweep(
    spec: str | os.PathLike[str],
    *,
    grid: Mapping[str, Sequence[Any]] | Sequence[str] | None = None,
    seeds: int | Sequence[int] = 1,
    set: Sequence[str] = (),  # noqa: A002
    out: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
) -> Any:
    """Runs `spec` at every grid point and seed; one DataFrame row per run, e.g.
    `pagelab.sweep("vm370", grid={"workload.users": [20, 40]}, seeds=2, out="runs")`."""
    from .. import extras

    extras.need("sweep", "pagelab.sweep()")
    import pandas as pd

    outcome = run_sweep(
        spec, grid=grid, seeds=seeds, set=set, out=out, workers=workers, scheduler=scheduler
    )
    frame = pd.DataFrame(outcome.rows)
    return frame.drop(columns=["spec_json", "report"], errors="ignore")


class _CallableModule(types.ModuleType):
    """`pagelab.sweep(...)` is this package's `sweep`, and `pagelab.sweep.store` its module."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
