"""The reproduction record: a paper experiment run by pagelab, set beside the paper's figures.

A reproduction is a module in :mod:`pagelab.reproductions` defining ``NAME``, ``PAPER``,
``TITLE`` and ``run(ctx)``. It runs its settings through the sweep engine (``ctx.simulate``:
every setting over the scale's seeds, in parallel, each run kept in the result store), records
rows with a *role* (``input``, ``fitted``, ``predicted``, ``ours``) and states the paper's
findings as paired claims whose verdict :mod:`pagelab.sweep.paired` computes. The record is
written as ``DIR/NAME.json`` with the figures as PNG beside it (DESIGN.md, "the reproduction
record"); its ``score`` counts predicted rows near the paper's and claims by verdict.
"""

from __future__ import annotations

import importlib
import json
import math
import pkgutil
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from . import _atomic, reproductions
from .errors import PagelabError
from .scoring import BOUNDS, SCORE_BANDS, claim_scored, score

__all__ = [
    "SCORE_BANDS",
    "Context",
    "Runs",
    "available",
    "claim_scored",
    "reproduce",
    "score",
    "score_line",
]

SCALES = ("smoke", "full")
#: Seeds per setting: enough at smoke for an interval, five at the paper's size. A reproduction
#: whose effects are small beside their seed-to-seed spread sets ``FULL_SEEDS`` to more.
SEEDS = {"smoke": 3, "full": 5}
ROLES = ("input", "fitted", "predicted", "ours")
#: The domain of a row that is a share in per cent (`Context.row(..., domain=PER_CENT)`).
PER_CENT = (0.0, 100.0)
#: A claim's role: the paper's finding (scored), one a fit aimed at, or ours (both shown).
CLAIM_ROLES = ("paper", "fitted", "ours")
STORE = "store"


class Values(list):
    """A metric's values over seeds and the range they can take (`domain`: 0-100 for a share in
    per cent, 0-1 for a fraction, :func:`pagelab.metrics.domain`; None for any other). A list
    computed from them is a plain list: a difference of two shares is no share."""

    domain: tuple[float, float] | None = None


class Runs:
    """One setting run over the context's seeds (common random numbers across settings)."""

    def __init__(self, reports: list[dict[str, Any]]) -> None:
        self.reports = reports

    def __len__(self) -> int:
        return len(self.reports)

    def metric(self, name: str) -> Values:
        """The metric's value in each seed's run, with its domain when it is a share."""
        from .metrics import domain

        out = Values()
        for r in self.reports:
            v = r["metrics"][name]["value"]
            out.append(math.nan if v is None else float(v))
        if self.reports:
            out.domain = domain(name, self.reports[0]["metrics"][name].get("unit", ""))
        return out

    def mean(self, name: str) -> float:
        xs = self.metric(name)
        return sum(xs) / len(xs)

    def metrics(self, seed_index: int = 0) -> dict[str, Any]:
        """The metrics of one seed's run, as the report gives them."""
        return self.reports[seed_index]["metrics"]


@dataclass
class Context:
    """What a reproduction gets: the scale, its seeds, where results go; what it gives back."""

    name: str
    scale: str
    seed: int
    out: Path | None
    workers: int | None = 1
    scheduler: str | None = None
    pool: Any = None
    n_seeds: int | None = None
    rows: list[dict[str, Any]] = field(default_factory=list)
    claims: list[dict[str, Any]] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    fitted: dict[str, Any] | None = None
    runs_made: int = 0
    runs_stored: int = 0

    @property
    def full(self) -> bool:
        return self.scale == "full"

    @property
    def draws(self) -> bool:
        """Whether figures are drawn: an output folder, and matplotlib installed (a core install
        without it writes the record alone)."""
        from . import extras

        return self.out is not None and not extras.missing(("matplotlib",))

    @property
    def seeds(self) -> list[int]:
        """The seeds every setting runs with: `seed`, `seed + 1`, ..."""
        n = self.n_seeds or SEEDS[self.scale]
        return [self.seed + k for k in range(n)]

    def simulate(self, settings: Sequence[tuple[str, Sequence[str]]]) -> list[Runs]:
        """Runs each (spec, overrides) over the seeds through the sweep engine, all at once."""
        from .sweep import Store, tasks_for
        from .sweep.engine import execute

        tasks = []
        for spec, overrides in settings:
            tasks += tasks_for(spec, list(overrides), self.seeds)
        store = Store(self.out / STORE) if keeps_runs(self.out) else None
        outcome = execute(
            tasks,
            store,
            workers=self.workers,
            scheduler=self.scheduler,
            label=f"{self.name}: runs",
            pool=self.pool,
        )
        self.runs_made += outcome.computed
        self.runs_stored += len(tasks) - outcome.computed
        reports = [json.loads(r["report"]) for r in outcome.rows]
        k = len(self.seeds)
        return [Runs(reports[i * k : (i + 1) * k]) for i in range(len(settings))]

    def run(self, spec: str, overrides: Sequence[str] = ()) -> Runs:
        """One setting over the seeds."""
        return self.simulate([(spec, overrides)])[0]

    def row(
        self,
        table: str,
        row: str,
        column: str,
        pagelab: float | int | Sequence[float] | None,
        *,
        paper: float | int | None = None,
        unit: str = "",
        role: str | None = None,
        why: str | None = None,
        bound: str | None = None,
        paper_range: tuple[float, float] | None = None,
        baseline: float | None = None,
        reading: str | None = None,
        domain: tuple[float, float] | None = None,
    ) -> None:
        """Records our number (or its values over seeds: the mean and a 95 % interval, clipped
        to `domain`, the range the values can take: a share's 0-100 % or 0-1, taken from
        :meth:`Runs.metric`'s values when not given) beside the paper's. `role` defaults to
        `predicted` where the paper has a number, `ours` where not; `why` says why a row is an
        input or fitted. `bound` ("upper"/"lower") marks the
        paper's number as a bound, `paper_range` gives the paper's range (scored as such,
        :mod:`pagelab.scoring`); `baseline` is the trivial prediction the score sets beside
        ours (the paper's base column); `reading` cites an entry of docs/readings.md."""
        role = role or ("ours" if paper is None and paper_range is None else "predicted")
        if role not in ROLES:
            raise ValueError(f"role {role!r}: expected one of {', '.join(ROLES)}")
        if bound is not None and (bound not in BOUNDS or paper is None):
            raise ValueError(f"bound {bound!r}: expected one of {', '.join(BOUNDS)} with a paper")
        interval = None
        if isinstance(pagelab, Sequence) and not isinstance(pagelab, str):
            from .sweep.paired import estimate

            vals = [v for v in pagelab if v is not None and not math.isnan(v)]
            domain = domain or getattr(pagelab, "domain", None)
            if vals:
                est = estimate(vals)
                pagelab = _round(sum(vals) / len(vals))
                interval = [_round(clip(x, domain)) for x in est.interval] if est.n > 1 else None
            else:
                pagelab = None
        entry = {"table": table, "row": row, "column": column, "role": role, "paper": paper}
        entry.update({"pagelab": pagelab, "interval": interval, "unit": unit})
        extra = {"bound": bound, "baseline": baseline, "reading": reading, "why": why}
        if paper_range is not None:
            extra["paper_range"] = [float(x) for x in paper_range]
        entry.update({k: v for k, v in extra.items() if v is not None})
        self.rows.append(entry)

    def value(self, table: str, row: str, column: str) -> Any:
        """Our number in a recorded row (for computing claims from rows)."""
        for r in self.rows:
            if (r["table"], r["row"], r["column"]) == (table, row, column):
                return r["pagelab"]
        raise KeyError((table, row, column))

    def claim(
        self,
        id: str,
        text: str,
        *,
        base: Sequence[float] | None = None,
        treatment: Sequence[float] | None = None,
        effects: Sequence[float] | None = None,
        kind: str = "relative",
        paper_effect: float | None = None,
        direction: int | None = None,
        band: float | tuple[float, float] | None = None,
        exact: bool = False,
        evidence: str = "",
        quote: str | None = None,
        role: str = "paper",
        reading: str | None = None,
        changed_after_results: bool = False,
    ) -> dict[str, Any]:
        """A finding of the paper as a paired test over seeds; the verdict is computed.

        Either `base` and `treatment` (one value per seed, same seeds: their relative change or
        difference per seed), or `effects` (any per-seed statistic of the `kind` given). The
        paper's magnitude is `paper_effect` in the same terms; where the paper states only a
        direction, `direction` (+1 or -1) instead; `band` overrides the ±25 % band, a pair
        (lo, hi) giving it absolutely (needed when the paper's effect is 0: "no difference").
        `exact` marks an effect that no random stream enters (a count on a fixed string).
        `quote` is the paper's sentence the claim tests (a claim is scored only with one);
        `role` "ours" marks a claim on our own reconstruction or band, "fitted" one whose
        numbers a fit aimed at; `reading` cites an entry of
        docs/readings.md and `changed_after_results` a reading changed after its result was seen
        (shown, not scored).
        """
        if role not in CLAIM_ROLES:
            raise ValueError(f"claim {id}: role {role!r}: expected one of {CLAIM_ROLES}")
        from .sweep import paired

        if effects is None:
            if base is None or treatment is None:
                raise ValueError(f"claim {id}: give base and treatment, or effects")
            effects = paired.effects(base, treatment, kind)
        est = paired.estimate(effects, relative=kind == "relative", exact=exact)
        verdict = paired.verdict(est.interval, paper_effect, band=band, direction=direction)
        b_lo, b_hi = paired.band_of(paper_effect, band, direction)
        entry = {
            "id": id,
            "text": text,
            "kind": kind,
            "paper_effect": paper_effect,
            "band": [_finite(b_lo), _finite(b_hi)],
            "effect": _round(est.effect),
            "interval": [_round(x) for x in est.interval],
            "seeds": est.n,
            "method": est.method,
            "verdict": verdict,
            "evidence": evidence,
            "role": role,
        }
        extra = {"quote": quote, "reading": reading}
        entry.update({k: v for k, v in extra.items() if v})
        if changed_after_results:
            entry["changed_after_results"] = True
        self.claims.append(entry)
        return entry

    def use_fit(self, preset: str, **extra: Any) -> dict[str, Any]:
        """Records that the reproduction starts from the fitted preset `preset` (the record's
        `fitted` block, :mod:`pagelab.fitted_preset`; `extra` adds to it) and returns its
        provenance. A reproduction on several fitted presets names the first it adopts."""
        from . import fitted_preset

        prov = fitted_preset.provenance(preset)
        if self.fitted is None:
            self.fitted = fitted_preset.block(preset, prov, **extra)
        return prov

    def figure(self, name: str, fig: Any) -> None:
        """Saves a matplotlib figure as `NAME-name.png` in the output directory."""
        if self.out is None:
            return
        path = self.out / f"{self.name}-{name}.png"
        _atomic.save_figure(fig, path)
        self.figures.append(path.name)


def clip(x: float | None, domain: tuple[float, float] | None) -> float | None:
    """`x` within `domain` (lo, hi): an interval of a share's mean stops at 0 and 100 %."""
    if x is None or domain is None:
        return x
    lo, hi = domain
    return min(max(x, lo), hi)


def keeps_runs(out: Path | None) -> bool:
    """Whether runs are kept in `out`/store: a folder, and pyarrow installed to write Parquet."""
    from . import extras

    return out is not None and not extras.missing(("pyarrow",))


def _round(x: float | None, digits: int = 4) -> float | None:
    if x is None or not math.isfinite(x):
        return None
    return float(f"{x:.{digits}g}")


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def total(scores: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The sum of several records' score blocks."""
    out: dict[str, Any] = {}
    for sc in scores:
        for key, v in sc.items():
            if isinstance(v, dict):
                inner = out.setdefault(key, {})
                for k, x in v.items():
                    inner[k] = inner.get(k, 0) + x
            else:
                out[key] = out.get(key, 0) + v
    return out


def score_line(score: dict[str, Any] | None) -> str:
    """A score block in one line."""
    if not score:
        return "no full run yet"
    in_band = score.get("holds_mean_in_band")

    def count(verdict: str, n: int) -> str:
        if verdict == "holds" and in_band is not None:
            return f"{n} holds ({in_band} with the mean in the band)"
        return f"{n} {verdict}"

    claims = ", ".join(count(k, v) for k, v in score["claims"].items())
    base = score.get("baseline")
    versus = f" (baseline {base['within_10']} and {base['within_25']})" if base is not None else ""
    unscored = score.get("claims_unscored")
    apart = f"; {unscored} claims not scored" if unscored else ""
    if score.get("published"):
        apart += " (published record)"
    return (
        f"predicted {score['predicted']}: {score['within_10']} within 10 %, "
        f"{score['within_25']} within 25 %{versus}; fitted {score['fitted']}; "
        f"claims: {claims}{apart}"
    )


def print_record(record: dict[str, Any]) -> None:
    """The record as a table on the terminal, its claims, and its score."""
    from rich.console import Console
    from rich.table import Table

    t = Table(
        "table",
        "row",
        "column",
        "role",
        "paper",
        "pagelab",
        "95 % interval",
        "unit",
        title=record["title"],
    )

    def fmt(v: Any) -> str:
        return "" if v is None else (f"{v:.4g}" if isinstance(v, float) else str(v))

    for r in record["rows"]:
        iv = r.get("interval")
        span = f"{fmt(iv[0])} .. {fmt(iv[1])}" if iv else ""
        t.add_row(
            r["table"],
            r["row"],
            r["column"],
            r["role"],
            fmt(r["paper"]),
            fmt(r["pagelab"]),
            span,
            r["unit"],
        )
    console = Console()
    console.print(t)
    colour = {"holds": "green", "direction-only": "yellow", "fails": "red", "inconclusive": "blue"}
    for c in record["claims"]:
        v = c["verdict"]
        lo, hi = c["interval"]
        console.print(
            f"[{colour[v]}]{v}[/{colour[v]}]  {c['text']}: effect {fmt(c['effect'])} "
            f"[{fmt(lo)}, {fmt(hi)}] ({c['method']}, {c['seeds']} seeds), "
            f"paper {fmt(c['paper_effect'])}; "
            f"{c['evidence']}"
        )
    console.print(f"score: {score_line(record['score'])}")


def _modules() -> dict[str, ModuleType]:
    found = {}
    for info in pkgutil.iter_modules(reproductions.__path__):
        module = importlib.import_module(f"{reproductions.__name__}.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "run"):
            found[module.NAME] = module
    return dict(sorted(found.items()))


def available() -> list[dict[str, str]]:
    """Every reproduction: name, paper, title."""
    return [{"name": n, "paper": m.PAPER, "title": m.TITLE} for n, m in _modules().items()]


#: The published full-scale records (`make publish`, scripts/publish_records.py).
PUBLISHED = Path(__file__).resolve().parents[2] / "docs" / "published"


def last_scores(out: str | Path) -> dict[str, dict[str, Any]]:
    """The score of each reproduction's last full-scale record in `out`, or where `out` has
    none, its published one (PUBLISHED), by name; a published score is marked `published`."""
    found = {}
    for name in _modules():
        for where in (Path(out), PUBLISHED):
            try:
                record = json.loads((where / f"{name}.json").read_text())
            except (OSError, ValueError):
                continue
            if record.get("scale") == "full" and "score" in record:
                found[name] = dict(record["score"], published=where == PUBLISHED)
                break
    return found


def check(names: Sequence[str]) -> None:
    """Raises a one-line error for a name that is no reproduction, or for one that needs a
    package not installed here (its module's ``NEEDS``, a feature of :mod:`pagelab.extras`),
    naming the extra that brings it."""
    from . import extras

    modules = _modules()
    for name in names:
        if name not in modules:
            raise PagelabError(f"reproduction {name!r}: expected one of {', '.join(modules)}")
        feature = getattr(modules[name], "NEEDS", None)
        if feature is not None:
            extras.need(feature, f"reproduction {name}")


def placement(
    scale: str, workers: int | None, scheduler: str | None, out: str | Path
) -> tuple[int | None, str]:
    """Where the runs of a reproduction are made: the workers to ask for, and a line saying what
    a core install leaves out ("" with every extra). At smoke scale without Dask they are made
    in this process, one after another (the same runs, so the same record); full scale, more
    than one worker and a scheduler need the `[sweep]` extra, and say so."""
    from . import extras
    from .sweep.engine import check_workers

    check_workers(workers)
    if scale == "full":
        extras.need("reproduce", "`pagelab reproduce --scale full`")
    if scheduler is not None:
        extras.need("workers", "--scheduler")
    if workers is not None and workers > 1:
        extras.need("workers", f"--workers {workers}")
    left = []
    if extras.missing(extras.FEATURES["workers"][0]):
        workers = 1
        left.append("the runs are made in this process, one after another")
    if extras.missing(("pyarrow",)):
        left.append(f"they are not kept in {Path(out) / STORE}")
    if extras.missing(("matplotlib",)):
        left.append("no figures are drawn")
    if not left:
        return workers, ""
    return workers, f"without the [sweep] extra {'; '.join(left)} (pip install 'pagelab[sweep]')"


def reproduce(
    name: str,
    *,
    scale: str = "smoke",
    seed: int = 1,
    out: str | Path | None = None,
    workers: int | None = 1,
    scheduler: str | None = None,
    seeds: int | None = None,
    pool: Any = None,
) -> dict[str, Any]:
    """Runs one reproduction and returns its record; writes it to `out` if given."""
    check([name])
    modules = _modules()
    if scale not in SCALES:
        raise PagelabError(f"--scale {scale!r}: expected one of {', '.join(SCALES)}")
    if seeds is not None and seeds < 2:
        raise PagelabError(f"--seeds {seeds}: a paired claim needs at least 2")
    module = modules[name]
    if seeds is None and scale == "full":
        seeds = getattr(module, "FULL_SEEDS", None)
    out_dir = Path(out) if out is not None else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    ctx = Context(
        name=name,
        scale=scale,
        seed=seed,
        out=out_dir,
        workers=workers,
        scheduler=scheduler,
        pool=pool,
        n_seeds=seeds,
    )
    started = time.perf_counter()
    module.run(ctx)
    record = {
        "name": name,
        "paper": module.PAPER,
        "title": module.TITLE,
        "scale": scale,
        "seed": seed,
        "seeds": ctx.seeds,
        "version": _version(),
        "fitted": ctx.fitted,
        "rows": ctx.rows,
        "claims": ctx.claims,
        "score": score(ctx.rows, ctx.claims),
        "figures": ctx.figures,
        "notes": ctx.notes,
        "runs": {"computed": ctx.runs_made, "from_store": ctx.runs_stored},
        "wall_seconds": round(time.perf_counter() - started, 3),
    }
    if out_dir is not None:
        _atomic.write_json(out_dir / f"{name}.json", record)
    return record


def _version() -> str:
    from . import __version__

    return __version__
