"""Calibrate, then predict: fit the parameters a paper does not give to its *base* numbers.

A target file lists the paper's numbers the fit aims at, each a metric at a setting:

```toml
[target]
name   = "vmsp-base"
source = "Tetzlaff et al. 1987, Table 2, base column"

[[point]]
metric = "q1_seconds"
value  = 0.78
weight = 1.0                      # optional (1)
set    = ["workload.users=310"]   # optional: the paper's setting for this number
```
Each `--vary key=lo:hi` is a dimension of the search. An Optuna sampler (CMA-ES by default, TPE
on request) proposes values; each trial is a sweep point of every target setting over the same
seeds (common random numbers, so the loss is a deterministic function of the parameters), run
through the result store, so a repeated trial costs nothing and a batch of trials runs in
parallel. The loss is the weighted mean of squared relative errors. The best trial's values are
written as a preset in which each fitted key carries a comment saying so and a `[provenance]`
table records the keys, their ranges, and the target numbers they were fitted to.
"""

from __future__ import annotations

import datetime as dt
import math
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from . import _atomic, tomlout
from .errors import PagelabError

SAMPLERS = ("cmaes", "tpe")


@dataclass(frozen=True)
class TargetPoint:
    """One paper number: a metric at a setting, with its weight in the loss."""

    metric: str
    value: float
    weight: float = 1.0
    overrides: tuple[str, ...] = ()


@dataclass
class Target:
    path: Path
    name: str
    source: str
    points: list[TargetPoint]


@dataclass(frozen=True)
class Vary:
    """A fitted key and its range; integers when the spec's own value is one."""

    key: str
    lo: float
    hi: float
    integer: bool


@dataclass
class Trial:
    number: int
    values: dict[str, float]
    loss: float
    metrics: list[float] = field(default_factory=list)


def load_target(path: str | Path) -> Target:
    """Reads a target file; a one-line error names the file and the key at fault."""
    path = Path(path)
    try:
        doc = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise PagelabError(f"--target {path}: no such file") from None
    except tomllib.TOMLDecodeError as e:
        raise PagelabError(f"{path}: not TOML ({e})") from None
    head = doc.get("target", {})
    raw = doc.get("point")
    if not isinstance(raw, list) or not raw:
        raise PagelabError(f"{path}: expected [[point]] tables (metric, value, weight, set)")
    points = []
    for i, p in enumerate(raw):
        where = f"{path}: point {i + 1}"
        metric, value = p.get("metric"), p.get("value")
        if not isinstance(metric, str) or not _number(value) or value == 0:
            raise PagelabError(f"{where}: expected metric = NAME and value = a nonzero number")
        weight = p.get("weight", 1.0)
        if not _number(weight) or weight <= 0:
            raise PagelabError(f"{where}: weight: expected a positive number")
        sets = p.get("set", [])
        if not isinstance(sets, list) or not all(isinstance(s, str) for s in sets):
            raise PagelabError(f'{where}: set: expected a list of "key.path=value" strings')
        unknown = set(p) - {"metric", "value", "weight", "set"}
        if unknown:
            raise PagelabError(f"{where}: unknown key {sorted(unknown)[0]!r}")
        points.append(TargetPoint(metric, float(value), float(weight), tuple(sets)))
    return Target(path, str(head.get("name", path.stem)), str(head.get("source", "")), points)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def parse_vary(arg: str) -> Vary:
    """`key=lo:hi`."""
    from .sweep.spec import parse_value, split_assignment

    key, text = split_assignment(arg, "--vary")
    bits = [parse_value(b.strip()) for b in text.split(":")]
    if len(bits) != 2 or not all(_number(b) for b in bits) or not bits[0] < bits[1]:
        raise PagelabError(f"--vary {arg!r}: expected key=lo:hi with numbers lo < hi")
    lo, hi = bits
    return Vary(key, float(lo), float(hi), False)


def loss_of(means: Sequence[float], target: Target) -> float:
    """Weighted mean of squared relative errors; a run without the metric is infinitely bad."""
    total = sum(p.weight for p in target.points)
    acc = 0.0
    for m, p in zip(means, target.points, strict=True):
        if m is None or not math.isfinite(m):
            return math.inf
        acc += p.weight * ((m - p.value) / p.value) ** 2
    return acc / total


#: A search whose best loss fell by more than this fraction in its last quarter of trials is
#: reported as still improving.
LATE_GAIN = 0.01


@dataclass
class Calibration:
    """The search's outcome: every trial, the best one, where the runs are kept."""

    preset: str
    target: Target
    vary: list[Vary]
    seeds: list[int]
    trials: list[Trial]
    sampler: str

    @property
    def best(self) -> Trial:
        return min(self.trials, key=lambda t: (t.loss, t.number))

    @property
    def late_gain(self) -> float:
        """How much the best loss fell over the last quarter of the trials, relative to the best
        of the first three quarters (0 when it did not): a search still improving at its end
        has probably not converged, and its predictions may move with a larger budget."""
        n = len(self.trials)
        early = min(t.loss for t in self.trials[: max(1, (3 * n) // 4)])
        if not (math.isfinite(early) and early > 0):
            return 0.0
        return max(0.0, (early - self.best.loss) / early)

    @property
    def converged(self) -> bool:
        """No more than `LATE_GAIN` of improvement in the last quarter (see `late_gain`)."""
        return self.late_gain <= LATE_GAIN


def calibrate(
    preset: str,
    target: Target,
    vary: Sequence[Vary],
    *,
    budget: int,
    seeds: int = 1,
    store: str | Path | None = None,
    set: Sequence[str] = (),  # noqa: A002 - the name of the command-line option
    workers: int | None = 1,
    scheduler: str | None = None,
    sampler: str = "cmaes",
    batch: int | None = None,
    on_trial: Callable[[Trial, Trial, int], None] | None = None,
) -> Calibration:
    """Searches `vary` for the values whose runs come closest to `target`, in `budget` trials."""
    import os

    from .sweep import Store, seed_list, tasks_for
    from .sweep.engine import execute, runner
    from .sweep.grid import check_keys, to_override
    from .sweep.spec import lookup, resolve

    if budget < 1:
        raise PagelabError(f"--budget {budget}: expected at least 1 trial")
    if sampler not in SAMPLERS:
        raise PagelabError(f"--sampler {sampler!r}: expected one of {', '.join(SAMPLERS)}")
    if not vary:
        raise PagelabError("--vary: expected at least one key=lo:hi")
    point, tree = resolve(preset, set)
    check_keys({v.key: None for v in vary}, tree, point.name)
    vary = [replace(v, integer=_is_int(lookup(tree, v.key))) for v in vary]
    for p in target.points:
        resolve(preset, [*set, *p.overrides])  # a bad setting fails before any run
    _check_ends(preset, set, target, vary)
    seed_values = seed_list(seeds)
    study = _study(sampler, vary)
    kept = Store(store) if store is not None else None
    width = batch or workers or os.cpu_count() or 1
    path = _spec_path(preset)
    trials: list[Trial] = []
    with runner(workers, scheduler) as pool:
        while len(trials) < budget:
            asked = [study.ask() for _ in range(min(width, budget - len(trials)))]
            values = [_suggest(t, vary) for t in asked]
            # A point of the box that no spec accepts (one varied key bounded by another, e.g.
            # locality_pages <= set_pages) is an infeasible trial: no run, the worst loss.
            ovs = [[to_override(k, v) for k, v in vals.items()] for vals in values]
            feasible = [_invalid(path, set, target, ov) is None for ov in ovs]
            tasks = []
            for ov, ok in zip(ovs, feasible, strict=True):
                for p in target.points if ok else ():
                    tasks += tasks_for(preset, [*set, *p.overrides, *ov], seed_values)
            rows = execute(tasks, kept, pool=pool, label="calibrate: runs").rows if tasks else []
            per_trial = len(target.points) * len(seed_values)
            k = 0
            for asked_t, vals, ok in zip(asked, values, feasible, strict=True):
                means: list[float] = []
                loss = math.inf
                if ok:
                    means = _means(
                        rows[k * per_trial : (k + 1) * per_trial], target, len(seed_values)
                    )
                    loss = loss_of(means, target)
                    k += 1
                study.tell(asked_t, loss if math.isfinite(loss) else 1e300)
                trial = Trial(len(trials), vals, loss, means)
                trials.append(trial)
                if on_trial is not None:
                    on_trial(trial, min(trials, key=lambda t: t.loss), budget)
    if not any(math.isfinite(t.loss) for t in trials):
        raise PagelabError(
            f"calibrate: none of the {len(trials)} trials gave a spec every target point accepts"
            " (see the --vary ranges)"
        )
    return Calibration(preset, target, list(vary), seed_values, trials, sampler)


def _spec_path(preset: str) -> Path:
    from . import system

    return system.resolve_spec_path(preset)


def _invalid(path: Path, set_: Sequence[str], target: Target, ov: Sequence[str]) -> str | None:
    """Why a run with overrides `ov` would be refused at some point of the target, or None."""
    from . import system

    for p in target.points:
        try:
            system.check(path, overrides=[*set_, *p.overrides, *ov])
        except PagelabError as e:
            return str(e)
    return None


def _check_ends(preset: str, set_: Sequence[str], target: Target, vary: Sequence[Vary]) -> None:
    """Each end of each range must give a spec a run accepts at every point of the target, with
    the other keys as the preset has them, or all at their lower ends, or all at their upper
    ends (so that a key bounded by another varied key may use that key's range): a range that
    reaches no valid value fails here, in one line, not in the middle of the search."""
    from .sweep.grid import to_override

    path = _spec_path(preset)

    def at(w: Vary, end: float) -> str:
        return to_override(w.key, int(end) if w.integer else end)

    for v in vary:
        others = [w for w in vary if w is not v]
        for end in (v.lo, v.hi):
            value = int(end) if v.integer else end
            contexts = [[], [at(w, w.lo) for w in others], [at(w, w.hi) for w in others]]
            errors = [_invalid(path, set_, target, [*c, at(v, end)]) for c in contexts]
            if all(e is not None for e in errors):
                raise PagelabError(
                    f"--vary {v.key}={_num(v.lo)}:{_num(v.hi)}: at {_num(value)}: {errors[0]}"
                )


def _num(x: float) -> str:
    return f"{x:g}"


def _study(sampler: str, vary: Sequence[Vary]) -> Any:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    if sampler == "cmaes" and len(vary) > 1:
        # Start at the middle of the box: the unchanged preset's guess is usually near it.
        s = optuna.samplers.CmaEsSampler(seed=0, warn_independent_sampling=False)
    else:
        s = optuna.samplers.TPESampler(seed=0)
    return optuna.create_study(direction="minimize", sampler=s)


def _suggest(trial: Any, vary: Sequence[Vary]) -> dict[str, float]:
    out: dict[str, float] = {}
    for v in vary:
        if v.integer:
            out[v.key] = trial.suggest_int(v.key, int(v.lo), int(v.hi))
        else:
            out[v.key] = trial.suggest_float(v.key, v.lo, v.hi)
    return out


def _means(rows: list[dict[str, Any]], target: Target, k: int) -> list[float]:
    means = []
    for i, p in enumerate(target.points):
        vals = [r.get(p.metric) for r in rows[i * k : (i + 1) * k]]
        if any(v is None for v in vals):
            if p.metric not in rows[i * k]:
                raise PagelabError(f"{target.path}: metric {p.metric!r}: the runs report no such")
            means.append(math.nan)
        else:
            means.append(sum(vals) / k)
    return means


def _portable(path: Path) -> str:
    """`path` relative to the working directory when under it (a preset of the checkout), so
    that the provenance reads the same on every machine; else as given."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def write_fitted(cal: Calibration, out: str | Path, *, set: Sequence[str] = ()) -> Path:  # noqa: A002
    """The preset with the best values in place, each annotated, and its `[provenance]`."""
    from .sweep.grid import to_override
    from .sweep.spec import resolve

    best = cal.best
    ov = [to_override(k, v) for k, v in best.values.items()]
    point, tree = resolve(cal.preset, [*set, *ov])
    today = dt.date.today().isoformat()
    note = (
        f"fitted by pagelab calibrate to {cal.target.path.name} on {today}: "
        f"loss {best.loss:.4g} after {len(cal.trials)} trials"
    )
    tree.setdefault("preset", {})["fidelity"] = "calibrated"
    tree["provenance"] = {
        "tool": "pagelab calibrate",
        "from": _portable(point.path),
        "target": str(cal.target.path),
        "target_source": cal.target.source,
        "date": today,
        "sampler": cal.sampler,
        "trials": len(cal.trials),
        "seeds": cal.seeds,
        "loss": best.loss,
        "best_trial": best.number + 1,
        "late_gain": round(cal.late_gain, 4),
        "fitted": [v.key for v in cal.vary],
        "fixed": list(set),
        "key": [
            {"key": v.key, "range": [v.lo, v.hi], "value": best.values[v.key]} for v in cal.vary
        ],
        "aimed_at": [
            {
                "metric": p.metric,
                "set": list(p.overrides),
                "paper": p.value,
                "fitted": m,
                "weight": p.weight,
            }
            for p, m in zip(cal.target.points, best.metrics, strict=True)
        ],
    }
    text = tomlout.dumps(tree, {v.key: note for v in cal.vary})
    header = f"# {point.name} calibrated to {cal.target.name}: {note}\n"
    out = Path(out)
    _atomic.write_text(out, header + text)
    return out
