"""The calibration's search: the Optuna study that proposes values, and the analytic twin as
its surrogate (`pagelab calibrate --surrogate model`).

With a surrogate the search runs in two stages. The twin (`pagelab.model`: exact MVA over the
preset's own demands and lifetime curve, a few milliseconds a point) first scores `screen`
proposals of the same sampler over the same box, with the same loss against the same target
points; then the simulator's study starts from what the twin found: its best `seeded`
proposals are the simulator's first trials, and CMA-ES is warm-started from the twin's trials.
The simulator decides every loss that is reported; the twin only chooses where to look.

After each simulated trial the twin is corrected at the best trial so far, one factor per target
point (the simulator's number over the twin's there: the zero-order multiplicative correction of
Haftka 1991, "Combining global and local approximations", AIAA J. 29(9)), and the next trial is
the corrected twin's minimum (`corrected_next`), found by Nelder-Mead from that trial within the
box; a point already simulated is left to the sampler. The correction takes out the twin's bias
where the search is, which an uncorrected screen carries to the box's edge.

Only the metrics the twin predicts can be screened (`TWIN_METRICS`, simulator name to twin
column); a target that asks for another is refused before anything runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import PagelabError

SURROGATES = ("model",)

#: The simulator's metric and how the twin's row gives it.
TWIN_METRICS: dict[str, Callable[[dict[str, Any]], float]] = {
    "throughput": lambda r: r["throughput"],
    "response_mean_s": lambda r: r["response"],
    "cpu_busy_pct": lambda r: 100.0 * r["cpu_util"],
    "fault_rate": lambda r: r["fault_rate"],
}

#: Twin proposals scored per simulator trial of the budget (at most `MAX_SCREEN` in all): a
#: proposal solves each target setting once for all its user counts, about a twentieth of a
#: simulated trial on cp67.
SCREEN_PER_TRIAL = 10
MAX_SCREEN = 2000


@dataclass(frozen=True)
class Screen:
    """What the twin's stage found: how many proposals it scored, the best ones' values (best
    first), the best twin loss, and the twin's finished trials (for a warm start)."""

    trials: int
    best: list[dict[str, float]]
    loss: float
    finished: tuple[Any, ...] = ()

    def provenance(self) -> dict[str, Any]:
        return {"kind": "model", "screened": self.trials, "seeded": len(self.best),
                "twin_loss": self.loss}  # fmt: skip


def study(sampler: str, vary: Sequence[Any], warm: Sequence[Any] = (), seed: int = 0) -> Any:
    """A minimising study, its sampler seeded with `seed`. CMA-ES (more than one key) starts at
    the box's middle, or, given the `warm` trials of a related search (the twin's), from their
    best region: Optuna's warm-starting CMA-ES (`source_trials`, Nomura et al. 2021)."""
    import warnings

    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    if sampler == "cmaes" and len(vary) > 1:
        with warnings.catch_warnings():  # source_trials is marked experimental in Optuna
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            s = optuna.samplers.CmaEsSampler(
                seed=seed, warn_independent_sampling=False, source_trials=list(warm) or None
            )
    else:
        s = optuna.samplers.TPESampler(seed=seed)
    return optuna.create_study(direction="minimize", sampler=s)


def suggest(trial: Any, vary: Sequence[Any]) -> dict[str, float]:
    out: dict[str, float] = {}
    for v in vary:
        if v.integer:
            out[v.name] = trial.suggest_int(v.name, int(v.lo), int(v.hi))
        else:
            out[v.name] = trial.suggest_float(v.name, v.lo, v.hi)
    return out


def check(surrogate: str | None, target: Any) -> None:
    """A surrogate the search knows, for a target whose every metric the twin predicts."""
    if surrogate is None:
        return
    if surrogate not in SURROGATES:
        raise PagelabError(f"--surrogate {surrogate!r}: expected one of {', '.join(SURROGATES)}")
    other = sorted({p.metric for p in target.points} - set(TWIN_METRICS))
    if other:
        raise PagelabError(
            f"--surrogate model: the twin gives {', '.join(TWIN_METRICS)}; "
            f"{target.path} asks for {', '.join(other)}"
        )


def twin_means(
    preset: str, settings: Sequence[str], target: Any, over: Callable
) -> list[float] | None:
    """The twin's number for each target point (None if the twin refuses the spec); `over(p)`
    gives a point's overrides for the trial. Points that differ only in their number of users
    share one solve (the twin answers every count at once)."""
    from . import model
    from .sweep.spec import lookup, resolve

    asks: list[tuple[tuple[str, ...], int]] = []
    for p in target.points:
        ov = [*settings, *p.overrides, *over(p)]
        users = int(lookup(resolve(preset, ov)[1], "workload.users"))
        asks.append((tuple(o for o in ov if not o.startswith("workload.users=")), users))
    rows: dict[tuple[tuple[str, ...], int], dict[str, Any]] = {}
    for ov in dict.fromkeys(k for k, _ in asks):
        counts = sorted({u for k, u in asks if k == ov})
        try:
            out = model.solve(preset, overrides=ov, users=counts)["rows"]
        except PagelabError:
            return None
        rows.update({(ov, u): model._flat(r) for u, r in zip(counts, out, strict=True)})
    return [TWIN_METRICS[p.metric](rows[a]) for p, a in zip(target.points, asks, strict=True)]


def screen_size(budget: int) -> int:
    """Twin proposals for a budget of simulator trials."""
    return min(MAX_SCREEN, SCREEN_PER_TRIAL * budget)


def screen(
    n: int, keep: int, sampler: str, vary: Sequence[Any], score: Callable, seed: int = 0
) -> Screen:
    """`n` proposals scored by `score(values)` (the twin's loss, inf when infeasible); the
    `keep` best values, best first."""
    s = study(sampler, vary, seed=seed)
    scored: list[tuple[float, int, dict[str, float]]] = []
    for i in range(n):
        t = s.ask()
        loss = score(suggest(t, vary))
        s.tell(t, loss if math.isfinite(loss) else 1e300)
        if math.isfinite(loss):
            scored.append((loss, i, dict(t.params)))
    scored.sort(key=lambda x: (x[0], x[1]))
    best = [params for _, _, params in scored[:keep]]
    finished = tuple(t for t in s.trials if t.value is not None and t.value < 1e300)
    return Screen(n, best, scored[0][0] if scored else math.inf, finished)


def corrected_next(
    vary: Sequence[Any],
    best: tuple[dict[str, float], Sequence[float]],
    twin: Callable[[dict[str, float]], list[float] | None],
    loss: Callable[[list[float]], float],
    tried: Sequence[dict[str, float]],
    radius: float = 1.0,
) -> tuple[dict[str, float], float] | None:
    """The next values to simulate and the corrected twin's loss there: the minimum of the twin
    corrected at `best` (its values and the simulator's means there), by Nelder-Mead from it
    within the box and `radius` of it (a share of each key's range); None when the twin
    refuses the point or the minimum repeats one of `tried` (by 0.1 % of each range)."""
    from scipy.optimize import minimize

    values, sim = best
    at = twin(values)
    if at is None:
        return None
    factor = [_ratio(s, t) for s, t in zip(sim, at, strict=True)]
    lo = [v.lo for v in vary]
    span = [v.hi - v.lo for v in vary]

    def unit_to_values(x: Sequence[float]) -> dict[str, float]:
        out = {}
        for v, xi, a, w in zip(vary, x, lo, span, strict=True):
            val = a + min(1.0, max(0.0, float(xi))) * w
            out[v.name] = int(round(val)) if v.integer else val
        return out

    def corrected(x: Sequence[float]) -> float:
        means = twin(unit_to_values(x))
        if means is None:
            return 1e300
        got = loss([f * m for f, m in zip(factor, means, strict=True)])
        return got if math.isfinite(got) else 1e300

    x0 = [(values[v.name] - a) / w for v, a, w in zip(vary, lo, span, strict=True)]
    box = [(max(0.0, x - radius), min(1.0, x + radius)) for x in x0]
    found = minimize(
        corrected, x0, method="Nelder-Mead", bounds=box,
        options={"maxfev": NELDER_MEAD_EVALS, "xatol": 1e-3, "fatol": 1e-9},
    )  # fmt: skip
    nxt = unit_to_values(found.x)
    for t in tried:
        if all(abs(nxt[v.name] - t[v.name]) <= 1e-3 * w for v, w in zip(vary, span, strict=True)):
            return None
    return nxt, float(found.fun)


#: Twin solves per corrected proposal: a few seconds of the twin, against a simulated trial.
NELDER_MEAD_EVALS = 60


def _ratio(sim: float, twin: float) -> float:
    """The simulator's number over the twin's, 1 where either is missing or not positive."""
    if not (math.isfinite(sim) and math.isfinite(twin)) or sim <= 0 or twin <= 0:
        return 1.0
    return sim / twin


#: The trust region's half-width at the start, and below which the sampler takes over [share of
#: each key's range] (reading `surrogate-trust-region`).
TRUST_START = 0.25
TRUST_MIN = 0.001


@dataclass
class TrustRegion:
    """Where the corrected twin may look: a box of half-width `radius` around the best trial,
    widened when a proposal's simulated fall in loss is at least 3/4 of the corrected twin's
    predicted fall, narrowed when below 1/4 (Alexandrov, Dennis, Lewis and Torczon 1998,
    Struct. Optim. 15). `pending`: the proposal in flight, its predicted loss and the best
    loss when it was made."""

    radius: float = TRUST_START
    pending: tuple[dict[str, float], float, float] | None = None

    @property
    def open(self) -> bool:
        return self.radius >= TRUST_MIN

    def propose(self, values: dict[str, float], predicted: float, best: float) -> None:
        self.pending = (values, predicted, best)

    def narrow(self) -> None:
        self.radius /= 2.0

    def update(self, got: float) -> None:
        """The pending proposal's simulated loss `got` is in: widen or narrow the region."""
        if self.pending is None:
            return
        _, predicted, best = self.pending
        self.pending = None
        expected, actual = best - predicted, best - got
        if not math.isfinite(got) or expected <= 0 or actual < 0.25 * expected:
            self.narrow()
        elif actual >= 0.75 * expected:
            self.radius = min(1.0, 2.0 * self.radius)


def correct_next(
    study: Any,
    region: TrustRegion,
    vary: Sequence[Any],
    trials: Sequence[Any],
    twin: Callable[[dict[str, float]], list[float] | None],
    loss: Callable[[list[float]], float],
) -> int:
    """Once the twin's seeded proposals have run, queues the twin's minimum corrected at the
    best simulated trial (`values`, `loss`, `metrics` of the calibration's trials), within the
    trust `region` (`corrected_next`), as the next trial; 1 if it did, else 0 (the sampler
    proposes)."""
    from optuna.trial import TrialState

    if region.pending is not None:
        sent = region.pending[0]
        done = [t for t in trials if all(t.values[k] == sent[k] for k in sent)]
        if not done:
            return 0
        region.update(done[-1].loss)
    ok = [t for t in trials if t.infeasible is None and math.isfinite(t.loss)]
    if study.get_trials(deepcopy=False, states=(TrialState.WAITING,)) or not ok or not region.open:
        return 0
    best = min(ok, key=lambda t: (t.loss, t.number))
    at = ({v.name: best.values[v.name] for v in vary}, best.metrics)
    found = corrected_next(vary, at, twin, loss, [t.values for t in trials], region.radius)
    if found is None:
        region.narrow()
        return 0
    study.enqueue_trial(found[0])
    region.propose(found[0], found[1], best.loss)
    return 1


def seeded_study(sampler: str, vary: Sequence[Any], found: Screen, seed: int = 0) -> Any:
    """The simulator's study, warm-started from the twin's trials, its first trials the twin's
    best proposals."""
    s = study(sampler, vary, warm=found.finished, seed=seed)
    for params in found.best:
        s.enqueue_trial(params)
    return s
