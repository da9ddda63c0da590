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
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import validate
from ..errors import PagelabError
from .engine import Outcome, Task, check_workers, execute
from .grid import MAX_RUNS, axes_of, check_keys, count_runs, points, to_override
from .spec import resolve
from .store import Store

__all__ = ["Outcome", "Store", "Task", "plan", "run_sweep", "seed_list", "sweep", "tasks_for"]


def seed_list(seeds: int | Sequence[int]) -> list[int]:
    """`N` -> seeds 1..N; a sequence is taken as it is. Anything else, a count above what a
    sweep may run (grid.MAX_RUNS) or a seed beyond 64 bits is a PagelabError."""
    if isinstance(seeds, int) and not isinstance(seeds, bool):
        n = validate.integer(seeds, "--seeds", lo=1, hi=MAX_RUNS)
        return list(range(1, n + 1))
    if isinstance(seeds, str | bytes | Mapping) or not isinstance(seeds, Sequence | range):
        raise PagelabError(
            f"--seeds {seeds!r}: expected a count of seeds (1..N) or a list of seeds"
        )
    if len(seeds) > MAX_RUNS:
        raise PagelabError(f"--seeds: {len(seeds):,} seeds; a sweep runs at most {MAX_RUNS:,}")
    out = validate.integers(seeds, "--seeds")
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
    """Every task of a sweep, grid point slowest and seed fastest; checked before any run.

    The number of runs is counted from the axes' lengths before the grid is expanded; the
    spec's files are read once, and each point is then resolved from that tree and checked
    by the engine (every check a run makes) without reading them again."""
    seed_values = seed_list(seeds)
    axes = axes_of(grid)
    set = overrides_of(set)
    count_runs(axes, len(seed_values))
    base, tree = resolve(spec, set)
    check_keys(axes, tree, base.name)
    from .. import system
    from .spec import lookup, resolve_over

    check = system.checker(base.path)
    build = engine_build()
    keys = [*_set_keys(set), *axes]
    tasks = []
    for p in points(axes):
        extra = [to_override(k, v) for k, v in p.items()]
        point, resolved = resolve_over(base, extra)
        try:
            check(point.overrides)  # every check a run makes, before any run
        except PagelabError as e:
            where = ", ".join(f"{k}={v}" for k, v in p.items()) or "the spec"
            raise PagelabError(f"grid point {where}: {e}") from None
        params = {k: lookup(resolved, k) for k in keys}
        tasks += [Task(point, s, point.key(s, build), dict(params)) for s in seed_values]
    return tasks


def overrides_of(set_: Any) -> list[str]:
    """`--set` strings of a sweep: a list of "key.path=value" strings (one string alone is
    taken as a list of one), or a mapping {key: value}."""
    from ..tomlout import value as toml_value

    if isinstance(set_, str):
        return [set_]
    if isinstance(set_, Mapping):
        return [f"{k}={toml_value(v, str(k))}" for k, v in set_.items()]
    if not isinstance(set_, Iterable) or isinstance(set_, bytes):
        raise PagelabError(f'set {set_!r}: expected a list of "key.path=value" strings or a dict')
    out = list(set_)
    bad = next((o for o in out if not isinstance(o, str)), None)
    if bad is not None:
        raise PagelabError(f'set: {bad!r}: expected "key.path=value" strings')
    return out


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
    repair: bool = False,
) -> Outcome:
    """Plans and runs a sweep; the outcome's rows in plan order. Every argument is checked
    before the first run (a PagelabError otherwise); `repair` computes again the stored runs
    whose files fail their checksum."""
    check_workers(workers)
    store = Store(_out_path(out)) if out is not None else None
    if store is not None and not repair:
        store.check()
    tasks = plan(spec, grid=grid, seeds=seeds, set=set)
    return execute(
        tasks, store, workers=workers, scheduler=scheduler, label=f"sweep {spec}", repair=repair
    )


def sweep(
    spec: str | os.PathLike[str],
    *,
    grid: Mapping[str, Sequence[Any]] | Sequence[str] | None = None,
    seeds: int | Sequence[int] = 1,
    set: Sequence[str] = (),  # noqa: A002
    out: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    repair: bool = False,
) -> Any:
    """Runs `spec` at every grid point and seed; one DataFrame row per run, e.g.
    `pagelab.sweep("vm370", grid={"workload.users": [20, 40]}, seeds=2, out="runs")`."""
    from .. import extras

    extras.need("sweep", "pagelab.sweep()")
    import pandas as pd

    outcome = run_sweep(
        spec,
        grid=grid,
        seeds=seeds,
        set=set,
        out=out,
        workers=workers,
        scheduler=scheduler,
        repair=repair,
    )
    frame = pd.DataFrame(outcome.rows)
    return frame.drop(columns=["spec_json", "report"], errors="ignore")


def _out_path(out: Any) -> Path:
    if not isinstance(out, str | os.PathLike):
        raise PagelabError(f"out {out!r}: expected a folder path, not {type(out).__name__}")
    return Path(out)


class _CallableModule(types.ModuleType):
    """`pagelab.sweep(...)` is this package's `sweep`, and `pagelab.sweep.store` its module."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
