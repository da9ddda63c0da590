"""The analytic twin: a preset solved as a queueing network beside the simulator.

`model(spec, users=...)` returns one DataFrame row per number of users: throughput, response
per class, processor, paging-actuator and minidisk utilisation, fault rate, multiprogramming
level. The demands are those the simulator's own code derives from the spec
(`pagelab_sys::demands`); the paging demand follows the classes' lifetime curves, measured with
the trace lab's LRU stack on their reference strings; the network is solved by mean value
analysis with the memory level as a flow-equivalent server (`crates/pagelab-model`).
`compare_sim` runs the simulator at a few of the same points through the sweep engine.
"""

from __future__ import annotations

import json
import math
import os
import sys
import types
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from . import _core, validate
from .errors import PagelabError
from .system import Overrides, Spec, _pair, _set_pairs, _spec_text

__all__ = ["compare_sim", "knee", "model", "parse_users", "saturation", "solve"]

#: The simulator's metrics set beside the model's columns (model column -> sweep column).
SIM_COLUMNS = {
    "throughput": "throughput",
    "response": "response_mean_s",
    "cpu_util": "cpu_busy_pct",
    "fault_rate": "fault_rate",
    "mpl": "mpl",
}


def parse_users(users: str | int | Iterable[int]) -> list[int]:
    """`"10:400:10"` (inclusive range), `"10,20,40"`, an int or a sequence -> user counts."""
    if isinstance(users, int):
        out = [users]
    elif isinstance(users, str):
        text = users.strip()
        try:
            if ":" in text:
                lo, hi, step = (int(b) for b in text.split(":"))
                if step <= 0 or hi < lo:
                    raise ValueError
                out = list(range(lo, hi + 1, step))
            else:
                out = [int(b) for b in text.split(",")]
        except ValueError:
            raise PagelabError(
                f"--users {users!r}: expected lo:hi:step or n1,n2,... of whole numbers"
            ) from None
    else:
        out = [int(u) for u in users]
    if not out or any(u < 1 for u in out):
        raise PagelabError(f"--users {users!r}: expected at least one count, each at least 1")
    return out


#: What the twin's means are over: the spec's run window, or an endless run.
HORIZONS = ("run", "inf")


def solve(
    spec: Spec,
    *,
    set: Overrides | None = None,  # noqa: A002
    overrides: Iterable[str] = (),
    users: str | int | Iterable[int] = "10:400:10",
    seed: int = 1,
    mpl_limit: float | None = None,
    horizon: str = "run",
) -> dict[str, Any]:
    """The twin's whole answer as a dict: `demands`, `lifetimes` and `rows`. `horizon`: "run"
    (means over the spec's measured window of a run started empty, as the simulator measures)
    or "inf" (the stationary answer); they differ where the terminal level has two modes."""
    text, origin, _ = _spec_text(spec)
    pairs = [_pair(o) for o in overrides] + _set_pairs(set)
    counts = parse_users(users)
    seed = validate.integer(seed, "seed")
    if horizon not in HORIZONS:
        raise PagelabError(f"horizon: expected one of {', '.join(HORIZONS)}, got {horizon!r}")
    stationary = horizon == "inf"
    try:
        return json.loads(
            _core.model_system(text, origin, pairs, counts, seed, mpl_limit, stationary)
        )
    except (ValueError, OverflowError) as e:
        raise PagelabError(str(e)) from None


def model(
    spec: Spec,
    *,
    set: Overrides | None = None,  # noqa: A002
    overrides: Iterable[str] = (),
    users: str | int | Iterable[int] = "10:400:10",
    seed: int = 1,
    mpl_limit: float | None = None,
    horizon: str = "run",
) -> Any:
    """The twin of `spec` at each number of users, as a pandas DataFrame (one row per count).

    Columns: `users`, `throughput` [1/s], `response` [s, all classes], per class
    `throughput_<class>` and `response_<class>`, `cpu_util`, `paging_util`, `vio_util` [0-1,
    per server], `fault_rate` [1/s], `mpl` and `eligible` [users], `frames_per_program`,
    `crowded_share` [0-1] and `crowding_onset_s` [s] (where the terminal level has two modes:
    the share of the window in the crowded one, and the mean time to reach it; see `solve`).
    `df.attrs` keeps the `demands` and the `lifetimes` the solve used.
    """
    import pandas as pd

    out = solve(
        spec, set=set, overrides=overrides, users=users, seed=seed, mpl_limit=mpl_limit,
        horizon=horizon,
    )  # fmt: skip
    frame = pd.DataFrame.from_records([_flat(r) for r in out["rows"]])
    frame.attrs["demands"] = out["demands"]
    frame.attrs["lifetimes"] = out["lifetimes"]
    return frame


def model_rows(
    spec: Spec,
    *,
    overrides: Iterable[str] = (),
    users: str | int | Iterable[int],
    seed: int = 1,
    mpl_limit: float | None = None,
    horizon: str = "run",
) -> list[dict[str, Any]]:
    """:func:`model`'s rows as dicts, without pandas (a reproduction in the core install)."""
    out = solve(
        spec, overrides=overrides, users=users, seed=seed, mpl_limit=mpl_limit, horizon=horizon
    )
    return [_flat(r) for r in out["rows"]]


def _flat(row: Mapping[str, Any]) -> dict[str, Any]:
    flat = {k: v for k, v in row.items() if k != "classes"}
    x = row["throughput"]
    # All classes: the mean response of a transaction, Σ X_c R_c / X.
    flat["response"] = (
        sum(c["throughput"] * c["response"] for c in row["classes"]) / x if x > 0 else math.nan
    )
    for c in row["classes"]:
        flat[f"throughput_{c['class']}"] = c["throughput"]
        flat[f"response_{c['class']}"] = c["response"]
    return {k: flat[k] for k in _order(flat)}


def _order(flat: Mapping[str, Any]) -> list[str]:
    first = ["users", "throughput", "response"]
    return first + [k for k in flat if k not in first]


def knee(frame: Any, column: str = "throughput", users: str = "users") -> float:
    """The users at which `column` peaks (the first of equal maxima)."""
    best = frame[column].idxmax()
    return float(frame.loc[best, users])


def saturation(frame: Any, share: float = 0.95, column: str = "throughput") -> float:
    """The fewest users at which `column` reaches `share` of its peak: the knee of a curve that
    levels off instead of falling (a load controller holding the MPL)."""
    top = frame[column].max()
    return float(frame.loc[frame[column] >= share * top, "users"].min())


def compare_sim(
    spec: Spec,
    *,
    set: Sequence[str] = (),  # noqa: A002
    users: Sequence[int],
    seeds: int = 2,
    out: str | os.PathLike[str] | None = None,
    workers: int | None = 1,
) -> Any:
    """The simulator at `users` (seeds 1..`seeds`), through the sweep engine: one row per
    count with the mean and the spread over seeds of the model's columns."""
    import pandas as pd

    from . import sweep as sweep_mod
    from .sweep.spec import resolve

    if not isinstance(spec, str | os.PathLike):
        raise PagelabError("compare_sim: expected a preset name or a TOML file")
    kind = resolve(str(spec), list(set))[1].get("system", {}).get("kind", "vm")
    key = USERS_KEY.get(kind, "workload.users")
    grid = {key: [int(u) for u in users]}
    runs = sweep_mod.sweep(spec, grid=grid, seeds=seeds, set=list(set), out=out, workers=workers)
    _as_model_columns(kind, runs)
    cols = {m: s for m, s in SIM_COLUMNS.items() if s in runs.columns}
    g = runs.groupby(key)
    frame = pd.DataFrame({"users": sorted(runs[key].unique())})
    for m, s in cols.items():
        scale = 0.01 if s.endswith("_pct") else 1.0
        frame[m] = [g.get_group(u)[s].mean() * scale for u in frame["users"]]
        frame[f"{m}_sd"] = [g.get_group(u)[s].std(ddof=1) * scale for u in frame["users"]]
    return frame


#: What a system's twin counts as users: the M44's copies of its batch program, UNIX V6's
#: prototype processes (Chanson's PN), the VM family's logged-on users.
USERS_KEY = {"m44": "workload.copies", "unix": "workload.processes"}


def _as_model_columns(kind: str, runs: Any) -> None:
    """The simulator's metrics of a batch or swapping system under the model's column names:
    the M44's jobs per second (1 / time per job) and pulls per second; UNIX V6's loops per
    second and swap-ins per second (half its swap transfers). A prototype's stay per loop is
    not a simulator metric (its reaction time is another quantity): no response there."""
    if kind == "m44":
        runs["throughput"] = 1.0 / runs["time_per_job_s"]
        runs["response_mean_s"] = runs["elapsed_s"]
        runs["fault_rate"] = runs["pulls_per_job"] * runs["throughput"]
    elif kind == "unix":
        runs["throughput"] = runs["loop_rate"]
        runs["response_mean_s"] = float("nan")
        runs["fault_rate"] = runs["swap_rate"] / 2.0


def compare_frame(users: Sequence[int], runs: Sequence[Any]) -> Any:
    """A reproduction's runs (one `Runs` per count) as `compare_sim`'s frame."""
    import statistics

    import pandas as pd

    rows = []
    for u, r in zip(users, runs, strict=True):
        row: dict[str, float] = {"users": u}
        for m, s in SIM_COLUMNS.items():
            vals = [v * (0.01 if s.endswith("_pct") else 1.0) for v in r.metric(s)]
            row[m] = sum(vals) / len(vals)
            row[f"{m}_sd"] = statistics.stdev(vals) if len(vals) > 1 else 0.0
        rows.append(row)
    return pd.DataFrame(rows)


def figure(
    model_frame: Any,
    target: str | os.PathLike[str],
    *,
    sim: Any = None,
    title: str = "",
) -> None:
    """Throughput and response against users, the model's curve and the simulator's points,
    each knee marked; saved atomically as PNG."""
    from . import _atomic
    from .plots import _pyplot

    plt = _pyplot()
    fig, (ax_x, ax_r) = plt.subplots(1, 2, figsize=(11, 4))
    m = model_frame
    ax_x.plot(m["users"], m["throughput"], label="model")
    ax_r.plot(m["users"], m["response"], label="model")
    ax_x.axvline(knee(m), linestyle="--", color="C0", label=f"model knee {knee(m):g}")
    if sim is not None and len(sim):
        ax_x.errorbar(
            sim["users"],
            sim["throughput"],
            yerr=sim.get("throughput_sd"),
            fmt="o",
            color="C1",
            label="simulator",
        )
        ax_r.errorbar(
            sim["users"],
            sim["response"],
            yerr=sim.get("response_sd"),
            fmt="o",
            color="C1",
            label="simulator",
        )
        ax_x.axvline(knee(sim), linestyle=":", color="C1", label=f"simulator knee {knee(sim):g}")
    ax_x.set_ylabel("throughput [1/s]")
    ax_r.set_ylabel("response [s]")
    ax_r.set_yscale("log")  # past a knee the response grows by orders of magnitude
    for ax in (ax_x, ax_r):
        ax.set_xlabel("users")
        ax.legend()
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    _atomic.save_figure(fig, target)
    plt.close(fig)


class _CallableModule(types.ModuleType):
    """`pagelab.model(...)` is this module's `model`."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return model(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
