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
group  = "w2"                     # optional: for keys that differ between the paper's cases
```
Each `--vary key=lo:hi` is a dimension of the search; `--vary key@GROUP=lo:hi` is one that
applies to the points of that group only (a workload's own user mix, fitted beside the keys
every point shares). `--require "A<B"` keeps the search where varied key A stays below B (the
paper's "some" in one case and "more" in another): a trial outside runs nothing. `--tie
"K=F*V"` sets key K to F times the varied key V in every trial (a rule of the system the paper
describes, e.g. VM/SP's Q1 slice as an eighth of the Q2 slice): K is fitted through V, not
searched.

An Optuna sampler (CMA-ES by default, TPE on request) proposes values; each trial is a sweep
point of every target setting over the same
seeds (common random numbers, so the loss is a deterministic function of the parameters), run
through the result store, so a repeated trial costs nothing and a batch of trials runs in
parallel. The loss is the weighted mean of squared relative errors. The best trial's values are
written as a preset in which each fitted key carries a comment saying so and a `[provenance]`
table records the keys, their ranges, and the target numbers they were fitted to. A target's
`[[constraint]]` tables (what the paper's text says of the base beyond its numbers) make a
trial that breaks one infeasible (`calibrate_constraints`).
"""

from __future__ import annotations

import datetime as dt
import difflib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from . import _atomic, search, tomlout, validate
from . import calibrate_constraints as cc
from .calibrate_files import (  # noqa: F401 - part of this module's interface
    NEAR_ERROR,
    NEAR_RATIO,
    _portable,
    check_near,
    check_outputs,
    inputs_of,
    trials_path,
)
from .calibrate_target import (  # noqa: F401 - part of this module's interface
    MAX_TARGET,
    Target,
    TargetPoint,
    _number,
    load_target,
)
from .errors import PagelabError

SAMPLERS = ("cmaes", "tpe")


@dataclass(frozen=True)
class Vary:
    """A fitted key and its range; integers when the spec's own value is one. A key with a
    `group` is set only at the target points of that group."""

    key: str
    lo: float
    hi: float
    integer: bool
    group: str | None = None

    @property
    def name(self) -> str:
        """The key as the search and the provenance name it: `key` or `key@group`."""
        return self.key if self.group is None else f"{self.key}@{self.group}"

    def applies(self, point: TargetPoint) -> bool:
        return self.group is None or self.group == point.group


@dataclass(frozen=True)
class Tie:
    """A key set to `factor` times a varied key (`source`, by `Vary.name`) in every trial."""

    key: str
    factor: float
    source: Vary

    @property
    def name(self) -> str:
        return self.as_vary().name

    def as_vary(self) -> Vary:
        """The key as the overrides see it: the source's range scaled, and its group."""
        lo, hi = sorted((self.factor * self.source.lo, self.factor * self.source.hi))
        return Vary(self.key, lo, hi, False, self.source.group)

    def rule(self) -> str:
        return f"{self.key} = {self.factor:g} x {self.source.name}"


def parse_tie(arg: str, vary: Sequence[Vary]) -> Tie:
    """`K=F*V`: key K is F times the varied key V (by `Vary.name`)."""
    from .sweep.spec import split_assignment

    key, text = split_assignment(arg, "--tie")
    factor, star, source = (x.strip() for x in text.partition("*"))
    names = {v.name: v for v in vary}
    try:
        f = float(factor)
    except ValueError:
        f = math.nan
    if not star or source not in names or not (math.isfinite(f) and f > 0):
        raise PagelabError(
            f"--tie {arg!r}: expected KEY=F*V with a positive number F and one of the varied "
            f"keys V ({', '.join(names)})"
        )
    if key in {v.key for v in vary}:
        raise PagelabError(f"--tie {arg!r}: {key} is varied; a key is either varied or tied")
    return Tie(key, f, names[source])


def _keys(vary: Sequence[Vary], ties: Sequence[Tie]) -> list[Vary]:
    """Every key a trial sets: the varied ones, then the tied ones."""
    return [*vary, *(t.as_vary() for t in ties)]


def _tied(values: dict[str, float], ties: Sequence[Tie]) -> dict[str, float]:
    """`values` with each tied key whose source is among them."""
    out = dict(values)
    for t in ties:
        if t.source.name in values:
            out[t.name] = t.factor * values[t.source.name]
    return out


@dataclass
class Trial:
    """One point of the search; `infeasible` says why it ran nothing or why its runs failed."""

    number: int
    values: dict[str, float]
    loss: float
    metrics: list[float] = field(default_factory=list)
    infeasible: str | None = None
    #: The target's constraints, checked on the trial's runs (when it has any and they ran).
    checked: cc.Checked | None = None


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def parse_vary(arg: str) -> Vary:
    """`key=lo:hi`, or `key@group=lo:hi` for a key set only at the points of `group`."""
    from .sweep.spec import parse_value, split_assignment

    key, text = split_assignment(arg, "--vary")
    key, at, group = key.partition("@")
    if at and (not key or not group):
        raise PagelabError(f"--vary {arg!r}: expected key@group=lo:hi with a key and a group")
    bits = [parse_value(b.strip()) for b in text.split(":")]
    if len(bits) != 2 or not all(_number(b) for b in bits) or not bits[0] < bits[1]:
        raise PagelabError(f"--vary {arg!r}: expected key=lo:hi with numbers lo < hi")
    lo, hi = bits
    return Vary(key, float(lo), float(hi), False, group or None)


def point_overrides(
    values: dict[str, float], vary: Sequence[Vary], point: TargetPoint
) -> list[str]:
    """The `--set` overrides of a trial's `values` (by `Vary.name`) at one target point: the
    shared keys and those of the point's group; a key missing from `values` keeps the preset's."""
    from .sweep.grid import to_override

    return [
        to_override(v.key, values[v.name]) for v in vary if v.name in values and v.applies(point)
    ]


def loss_of(means: Sequence[float], target: Target) -> float:
    """Weighted mean of squared relative errors; a run without the metric is infinitely bad."""
    total = sum(p.weight for p in target.points)
    acc = 0.0
    for m, p in zip(means, target.points, strict=True):
        if m is None or not math.isfinite(m):
            return math.inf
        acc += p.weight * ((m - p.value) / p.value) ** 2
    return acc / total


#: The comment on a key the search held fixed (`--set`): why it has the value it has.
FIXED_NOTE = "[A] held at this value by pagelab calibrate --set while the fitted keys were searched"

#: A key whose values over the trials near the best span this share of its range or more is
#: reported as not pinned by the target.
UNPINNED_SHARE = 0.5

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
    require: list[tuple[str, str]] = field(default_factory=list)
    ties: list[Tie] = field(default_factory=list)
    #: What the twin's stage did (`search.Screen.provenance`), when a surrogate screened.
    surrogate: dict[str, Any] | None = None
    #: The sampler's seed.
    sampler_seed: int = 0

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

    def near(self, ratio: float, error: float = 0.0) -> list[Trial]:
        """The trials whose loss is within `ratio` times the best's, or at most `error`²
        (a root-mean-square relative error of `error`, for a best fit close to exact), best
        first: fits the target tells apart from the best no better than that."""
        bound = max(self.best.loss * ratio, error * error)
        ok = [t for t in self.trials if t.infeasible is None and t.loss <= bound]
        return sorted(ok, key=lambda t: (t.loss, t.number))

    def unpinned(
        self, ratio: float, error: float = 0.0, share: float = UNPINNED_SHARE
    ) -> list[str]:
        """The searched keys whose values over the `near` trials span at least `share` of
        their search range: keys the target does not pin."""
        near = self.near(ratio, error)
        out = []
        for v in self.vary:
            vals = [t.values[v.name] for t in near]
            if v.hi > v.lo and (max(vals) - min(vals)) >= share * (v.hi - v.lo):
                out.append(v.name)
        return out

    def near_extremes(self, ratio: float, error: float = 0.0) -> list[Trial]:
        """Of the `near` trials other than the best, those at the lowest and at the highest
        value of each searched key (the lower loss on a tie): the corners of what the target
        leaves open, to run a prediction at."""
        near = self.near(ratio, error)
        picked: dict[int, Trial] = {}
        for v in self.vary:
            for sign in (1.0, -1.0):
                t = min(near, key=lambda t: (sign * t.values[v.name], t.loss, t.number))
                picked[t.number] = t
        picked.pop(self.best.number, None)
        return sorted(picked.values(), key=lambda t: t.number)


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
    require: Sequence[str] = (),
    tie: Sequence[str] = (),
    surrogate: str | None = None,
    sampler_seed: int = 0,
) -> Calibration:
    """Searches `vary` for the values whose runs come closest to `target`, in `budget` trials."""
    import os

    from .sweep import Store, seed_list
    from .sweep.engine import runner
    from .sweep.grid import check_keys
    from .sweep.spec import lookup, resolve

    budget = _check_arguments(budget, sampler, vary)
    point, tree = resolve(preset, set)
    check_keys({v.key: None for v in vary}, tree, point.name, "--vary")
    _check_groups(target, vary)
    order = [parse_require(r, vary) for r in require]
    vary = [replace(v, integer=_is_int(lookup(tree, v.key))) for v in vary]
    ties = [parse_tie(t, vary) for t in tie]
    check_keys({t.key: None for t in ties}, tree, point.name, "--tie")
    keys = _keys(vary, ties)
    for p in target.points:
        resolve(preset, [*set, *p.overrides])  # a bad setting fails before any run
    _check_ends(preset, set, target, vary, ties)
    _check_metrics(preset, set, target)
    seed_values = seed_list(seeds)
    kept = Store(store) if store is not None else None
    width = batch or workers or os.cpu_count() or 1
    path = _spec_path(preset)
    sampling = (sampler, sampler_seed)
    study, found = _start(preset, set, target, vary, ties, order, sampling, budget, surrogate)
    trials: list[Trial] = []
    corrected, region = 0, search.TrustRegion()
    twin, loss = _twin_of(preset, set, target, vary, ties), lambda m: loss_of(m, target)
    with runner(workers, scheduler) as pool:
        while len(trials) < budget:
            asked = [study.ask() for _ in range(min(width, budget - len(trials)))]
            values = [_tied(search.suggest(t, vary), ties) for t in asked]
            # A point of the box that breaks a --require, or that no spec accepts (one varied
            # key bounded by another, e.g. locality_pages <= set_pages), is an infeasible trial:
            # no run, the worst loss; so is one whose runs fail (`_run_trials`).
            why = [
                _unmet(vals, order) or _invalid(path, set, target, vals, keys) for vals in values
            ]
            per_trial = [
                [] if w is not None else _trial_tasks(preset, set, target, vals, keys, seed_values)
                for vals, w in zip(values, why, strict=True)
            ]
            outcomes = _run_trials(per_trial, kept, pool)
            for asked_t, vals, w, got in zip(asked, values, why, outcomes, strict=True):
                trial, told = _scored(len(trials), vals, w, got, target, len(seed_values))
                study.tell(asked_t, told if math.isfinite(told) else 1e300)
                trials.append(trial)
                if on_trial is not None:
                    on_trial(trial, min(trials, key=lambda t: t.loss), budget)
            if found is not None:
                corrected += search.correct_next(study, region, vary, trials, twin, loss)
    _check_some_finite(trials)
    screened = {**found.provenance(), "corrected": corrected} if found else None
    return Calibration(preset, target, list(vary), seed_values, trials, sampler, order, ties,
                       screened, sampler_seed)  # fmt: skip


def _scored(
    number: int, vals: dict[str, float], why: str | None, got: Any, target: Target, k: int
) -> tuple[Trial, float]:
    """A trial from its runs' rows (`k` seeds a setting; the points', then the constraints'),
    or from why it ran nothing (`why`) or failed (`got` a reason); and what the sampler is
    told (`calibrate_constraints.Checked.told`)."""
    if isinstance(got, str):
        return Trial(number, vals, math.inf, [], got), math.inf
    if why is not None:
        return Trial(number, vals, math.inf, [], why), math.inf
    n = len(target.points) * k
    means = _means(got[:n], target, k)
    loss = loss_of(means, target)
    if not target.constraints:
        return Trial(number, vals, loss, means), loss
    checked = cc.check(target.constraints, got[n:], k)
    broken = checked.broken(target.constraints)
    kept = loss if broken is None else math.inf
    return Trial(number, vals, kept, means, broken, checked), checked.told(loss)


def _twin_of(
    preset: str, settings: Sequence[str], target: Target, vary: Sequence[Vary], ties: Sequence[Tie]
) -> Callable[[dict[str, float]], list[float] | None]:
    """The twin's number for each target point at a trial's values (None if it refuses)."""
    keys = _keys(vary, ties)

    def twin(values: dict[str, float]) -> list[float] | None:
        vals = _tied(values, ties)
        return search.twin_means(preset, settings, target, lambda p: point_overrides(vals, keys, p))

    return twin


def _check_some_finite(trials: Sequence[Trial]) -> None:
    if not any(math.isfinite(t.loss) for t in trials):
        raise PagelabError(
            f"calibrate: none of the {len(trials)} trials gave a spec every target point accepts"
            " and met the target's constraints (see the --vary ranges and the target file)"
        )


def _start(
    preset: str,
    settings: Sequence[str],
    target: Target,
    vary: Sequence[Vary],
    ties: Sequence[Tie],
    order: Sequence[tuple[str, str]],
    sampler_and_seed: tuple[str, int],
    budget: int,
    surrogate: str | None,
) -> tuple[Any, search.Screen | None]:
    """The study, started from the twin's stage when a surrogate screens (`pagelab.search`):
    a proposal the calibration would not run (a --require broken, a spec refused) scores inf."""
    sampler, seed = sampler_and_seed
    search.check(surrogate, target)
    if not surrogate:
        return search.study(sampler, vary, seed=seed), None
    keys, path = _keys(vary, ties), _spec_path(preset)

    def score(values: dict[str, float]) -> float:
        vals = _tied(values, ties)
        if _unmet(vals, order) or _invalid(path, settings, target, vals, keys):
            return math.inf
        means = search.twin_means(
            preset, settings, target, lambda p: point_overrides(vals, keys, p)
        )
        return math.inf if means is None else loss_of(means, target)

    keep = 1  # the twin's best; then each trial the corrected twin's (`_correct_next`)
    found = search.screen(search.screen_size(budget), keep, sampler, vary, score, seed)
    return search.seeded_study(sampler, vary, found, seed), found


def _check_arguments(budget: Any, sampler: str, vary: Sequence[Vary]) -> int:
    """The budget, the sampler and the keys, checked before anything runs; the budget."""
    budget = validate.integer(budget, "--budget", lo=1, hi=MAX_BUDGET)
    if sampler not in SAMPLERS:
        raise PagelabError(f"--sampler {sampler!r}: expected one of {', '.join(SAMPLERS)}")
    if not vary:
        raise PagelabError("--vary: expected at least one key=lo:hi")
    names = [v.name for v in vary]
    twice = next((n for i, n in enumerate(names) if n in names[:i]), None)
    if twice is not None:
        raise PagelabError(f"--vary {twice}: given twice; vary each key once")
    return budget


def _trial_tasks(
    preset: str,
    settings: Sequence[str],
    target: Target,
    vals: dict[str, float],
    keys: Sequence[Vary],
    seed_values: list[int],
) -> list[Any]:
    """The runs of one feasible trial: every target point at every seed, then every
    constraint's (a run shared with a point is run once: the store keys it by its spec)."""
    from .sweep import tasks_for

    return [
        task
        for p in [*target.points, *target.constraints]
        for task in tasks_for(
            preset, [*settings, *p.overrides, *point_overrides(vals, keys, p)], seed_values
        )
    ]


def _run_trials(per_trial: list[list[Any]], store: Any, pool: Any) -> list[list[dict] | str]:
    """Each trial's rows, in task order, or why one of its runs failed. A run can fail where
    the spec is valid (every paging slot full: too many large programs for the drums); that
    makes its trial infeasible, as a refused spec does, not the end of the search. The batch
    runs at once; only when it fails is each trial run alone to find which (finished runs come
    from the store)."""
    from .sweep.engine import execute

    if not any(per_trial):
        return [[] for _ in per_trial]
    flat = [t for tasks in per_trial for t in tasks]
    try:
        rows = execute(flat, store, pool=pool, label="calibrate: runs").rows
    except PagelabError:
        out: list[list[dict] | str] = []
        for tasks in per_trial:
            try:
                out.append(execute(tasks, store, pool=pool, label="calibrate: runs").rows)
            except PagelabError as e:
                out.append(f"a run failed: {e}")
        return out
    out, k = [], 0
    for tasks in per_trial:
        out.append(rows[k : k + len(tasks)])
        k += len(tasks)
    return out


def parse_require(arg: str, vary: Sequence[Vary]) -> tuple[str, str]:
    """`A<B`: two varied keys (by `Vary.name`), A to stay below B."""
    names = [v.name for v in vary]
    a, lt, b = (x.strip() for x in arg.partition("<"))
    if not lt or a not in names or b not in names or a == b:
        raise PagelabError(
            f"--require {arg!r}: expected A<B with two of the varied keys ({', '.join(names)})"
        )
    return a, b


def _unmet(values: dict[str, float], order: Sequence[tuple[str, str]]) -> str | None:
    """The first requirement a trial's values break, as a reason, or None."""
    for a, b in order:
        if not values[a] < values[b]:
            return f"requires {a} < {b}"
    return None


def _spec_path(preset: str) -> Path:
    from . import system

    return system.resolve_spec_path(preset)


#: Most trials one calibration may ask for: each runs the target's points, seconds each, so
#: 100,000 trials are already weeks; a budget of 10^20 is a typing slip.
MAX_BUDGET = 100_000
#: Units whose quantities are never below zero: a negative target value in one of them cannot
#: be met by any fit.
NONNEGATIVE_UNITS = {"s", "ms", "us", "µs", "ns", "%", "count", "pages", "frames", "users"}


def _check_metrics(preset: str, set_: Sequence[str], target: Target) -> None:
    """Every metric the target names must be one the preset's runs report, and each value
    must be one that metric can take: checked on one simulated second of the first target
    point, before any trial (a batch system with no run.duration_s is checked after its first
    trial)."""
    from . import system
    from .sweep.spec import lookup, resolve

    _, tree = resolve(preset, [*set_, *target.points[0].overrides])
    try:
        lookup(tree, "run.duration_s")
    except KeyError:
        return
    short = [*set_, *target.points[0].overrides, "run.duration_s=1.0", "run.warmup_s=0.0"]
    from . import progress

    with progress.quiet():
        try:
            metrics = system.run(preset, overrides=short).get("metrics", {})
        except PagelabError:
            return  # the trials say what is wrong with the setting
    for i, p in enumerate(target.points):
        where = f"{target.path}: point {i + 1}"
        if p.metric not in metrics:
            near = difflib.get_close_matches(p.metric, list(metrics), n=3)
            hint = f" (did you mean {' or '.join(near)}?)" if near else ""
            raise PagelabError(f"{where}: metric {p.metric!r}: the runs report no such{hint}")
        unit = str(metrics[p.metric].get("unit", ""))
        if p.value < 0 and unit in NONNEGATIVE_UNITS:
            raise PagelabError(f"{where}: value {p.value:g} {unit}: {p.metric} is never below 0")
    for i, c in enumerate(target.constraints):
        for m in c.metrics():
            if m not in metrics:
                near = difflib.get_close_matches(m, list(metrics), n=3)
                hint = f" (did you mean {' or '.join(near)}?)" if near else ""
                where = f"{target.path}: constraint {i + 1}"
                raise PagelabError(f"{where}: metric {m!r}: the runs report no such{hint}")


def _check_groups(target: Target, vary: Sequence[Vary]) -> None:
    """Every group a key names must be the group of some target point."""
    groups = sorted({p.group for p in target.points if p.group is not None})
    for v in vary:
        if v.group is not None and v.group not in groups:
            raise PagelabError(
                f"--vary {v.name}: no point of {target.path} has group {v.group!r}"
                f" (groups: {', '.join(groups) or 'none'})"
            )


def _invalid(
    path: Path, set_: Sequence[str], target: Target, values: dict[str, float], vary: Sequence[Vary]
) -> str | None:
    """Why a run with the trial's `values` would be refused at some point of the target, or
    None."""
    from . import system

    for p in [*target.points, *target.constraints]:
        try:
            system.check(path, overrides=[*set_, *p.overrides, *point_overrides(values, vary, p)])
        except PagelabError as e:
            return str(e)
    return None


def _check_ends(
    preset: str,
    set_: Sequence[str],
    target: Target,
    vary: Sequence[Vary],
    ties: Sequence[Tie] = (),
) -> None:
    """Each end of each range must give a spec a run accepts at every point of the target, with
    the other keys as the preset has them, or all at their lower ends, or all at their upper
    ends (so that a key bounded by another varied key may use that key's range): a range that
    reaches no valid value fails here, in one line, not in the middle of the search."""
    path = _spec_path(preset)
    keys = _keys(vary, ties)

    def at(w: Vary, end: float) -> float:
        return int(end) if w.integer else end

    for v in vary:
        others = [w for w in vary if w is not v]
        for end in (v.lo, v.hi):
            contexts = [{}, {w.name: at(w, w.lo) for w in others}]
            contexts.append({w.name: at(w, w.hi) for w in others})
            errors = [
                _invalid(path, set_, target, _tied({**c, v.name: at(v, end)}, ties), keys)
                for c in contexts
            ]
            if all(e is not None for e in errors):
                raise PagelabError(
                    f"--vary {v.name}={_num(v.lo)}:{_num(v.hi)}: at {_num(at(v, end))}: {errors[0]}"
                )


def _num(x: float) -> str:
    return f"{x:g}"


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


def write_fitted(
    cal: Calibration,
    out: str | Path,
    *,
    set: Sequence[str] = (),  # noqa: A002
    near_ratio: float = NEAR_RATIO,
    near_error: float = NEAR_ERROR,
) -> Path:
    """The preset with the best values in place, each annotated, and its `[provenance]`. A
    key fitted for one group of points is not the preset's own: it is in the provenance only,
    with its group, for whoever runs that group's setting. The provenance also keeps what the
    target leaves open: each key's range over the trials within `near_ratio` of the best loss,
    or within a root-mean-square error of `near_error` (`near`), and those trials at each key's
    extremes (`near_fit`), for a prediction's spread."""
    from .sweep.grid import to_override
    from .sweep.spec import resolve

    check_near(near_ratio, near_error)
    best = cal.best
    near = cal.near(near_ratio, near_error)
    shared = [v for v in _keys(cal.vary, cal.ties) if v.group is None]
    ov = [to_override(v.key, best.values[v.name]) for v in shared]
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
        **({"sampler_seed": cal.sampler_seed} if cal.sampler_seed else {}),
        "trials": len(cal.trials),
        "seeds": cal.seeds,
        "loss": best.loss,
        "best_trial": best.number + 1,
        "late_gain": round(cal.late_gain, 4),
        "fitted": [v.name for v in cal.vary],
        "fixed": list(set),
        **({"required": [f"{a} < {b}" for a, b in cal.require]} if cal.require else {}),
        **({"tied": [t.rule() for t in cal.ties]} if cal.ties else {}),
        **(
            {"constraint": cc.provenance(cal.target.constraints, best.checked)}
            if cal.target.constraints
            else {}
        ),
        **({"surrogate": cal.surrogate} if cal.surrogate else {}),
        "key": _provenance_keys(cal, near),
        "aimed_at": [
            {
                "metric": p.metric,
                **({"group": p.group} if p.group is not None else {}),
                "set": list(p.overrides),
                "paper": p.value,
                "fitted": m,
                "weight": p.weight,
            }
            for p, m in zip(cal.target.points, best.metrics, strict=True)
        ],
        "near_ratio": near_ratio,
        "near_error": near_error,
        "near_trials": len(near),
    }
    corners = cal.near_extremes(near_ratio, near_error)
    if corners:
        tree["provenance"]["near_fit"] = [
            {"trial": t.number + 1, "loss": t.loss, "values": dict(t.values)} for t in corners
        ]
    held = {o.partition("=")[0].strip(): FIXED_NOTE for o in set}
    text = tomlout.dumps(tree, {**held, **{v.key: note for v in shared}})
    header = f"# {point.name} calibrated to {cal.target.name}: {note}\n"
    out = Path(out)
    _atomic.write_text(out, header + text, inputs=inputs_of(cal.preset, cal.target.path))
    return out


def _provenance_keys(cal: Calibration, near: Sequence[Trial]) -> list[dict[str, Any]]:
    """Each fitted key's range, best value and spread over the `near` trials, then each tied
    key's rule and value."""
    best = cal.best
    return [
        *(
            {
                "key": v.key,
                **({"group": v.group} if v.group is not None else {}),
                "range": [v.lo, v.hi],
                "value": best.values[v.name],
                "near": _span(near, v.name),
            }
            for v in cal.vary
        ),
        *(
            {
                "key": t.key,
                **({"group": t.source.group} if t.source.group is not None else {}),
                "tied": f"{t.factor:g} x {t.source.name}",
                "value": best.values[t.name],
                "near": _span(near, t.name),
            }
            for t in cal.ties
        ),
    ]


def _span(trials: Sequence[Trial], name: str) -> list[float]:
    vals = [t.values[name] for t in trials]
    return [min(vals), max(vals)]


def write_trials(cal: Calibration, out: str | Path) -> Path:
    """Every trial as a table (Parquet, atomically): its number, loss (empty where infeasible)
    and why, each key's value, and the mean of each target point's metric, for DuckDB or
    pandas to read the search's landscape."""
    names = [v.name for v in _keys(cal.vary, cal.ties)]
    cols = [f"point {i + 1}: {p.metric}" for i, p in enumerate(cal.target.points)]
    rows = []
    for t in cal.trials:
        row: dict[str, Any] = {"trial": t.number + 1}
        row["loss"] = t.loss if math.isfinite(t.loss) else None
        row["infeasible"] = t.infeasible
        row.update({n: float(t.values[n]) for n in names})
        got = t.metrics or [math.nan] * len(cols)
        row.update({c: (None if math.isnan(m) else m) for c, m in zip(cols, got, strict=True)})
        for i, c in enumerate(cal.target.constraints):
            v = t.checked.values[i] if t.checked else math.nan
            row[f"constraint {i + 1}: {c.metric}"] = None if math.isnan(v) else v
        rows.append(row)
    out = Path(out)
    _atomic.write_table(out, rows, "parquet", inputs=inputs_of(cal.preset, cal.target.path))
    return out
