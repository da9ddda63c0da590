"""Chanson's regression model of a swapping system (Chanson 1982), fitted to pagelab's own
UNIX V6 runs, and its applications (section 4): predict reaction time for a new memory size or
load, solve for the memory that reaches a target, and login load control.

PCTRMM = 100 (MM - PN PS) / MM, the percent of swappable memory left after all active processes.
The overall equation is RT = b0 + b1 PCTRMM + b2 PC + b3 PC PN PS; per PC level, RT = b0 + b1
PCTRMM. Fitting is ordinary least squares by statsmodels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from . import system
from .errors import PagelabError

#: Equation (1) of the paper: PC = 12 ms, r² = 0.96.
PAPER_EQ1 = {"intercept": 588.0, "pctrmm": -16.9}


def pctrmm(mm: float, pn: float, ps: float) -> float:
    """Percent of swappable main memory remaining [%] (Chanson 1982 §3)."""
    if mm <= 0:
        raise PagelabError(f"memory: {mm} blocks; expected a positive number of 64-byte blocks")
    return 100.0 * (mm - pn * ps) / mm


def settings(
    pn: int,
    ps: int,
    pc: float,
    mm: int,
    *,
    duration_s: float | None = None,
    extra: Sequence[str] = (),
) -> tuple[str, list[str]]:
    """The unix-v6 preset and the overrides of one operating point: PN, PS [blocks], PC [ms],
    MM [blocks]."""
    overrides = [
        f"workload.processes={pn}",
        f"workload.size_clicks={ps}",
        f"workload.cpu_ms={pc}",
        f"memory.core_clicks={mm}",
        *extra,
    ]
    if duration_s is not None:
        overrides.append(f"run.duration_s={duration_s}")
    return "unix-v6", overrides


def simulate(
    pn: int,
    ps: int,
    pc: float,
    mm: int,
    *,
    seed: int = 1,
    duration_s: float | None = None,
    extra: Sequence[str] = (),
) -> dict[str, Any]:
    """One run of the unix-v6 preset at PN, PS [blocks], PC [ms], MM [blocks]: its metrics."""
    preset, overrides = settings(pn, ps, pc, mm, duration_s=duration_s, extra=extra)
    report = system.run(preset, overrides=overrides, seed=seed)
    return {k: v["value"] for k, v in report["metrics"].items()}


@dataclass
class Fit:
    """A fitted linear model: names of the regressors, coefficients, r², observations."""

    terms: list[str]
    coefficients: dict[str, float]
    r2: float
    n: int

    def predict(self, row: dict[str, float]) -> float:
        return self.coefficients["intercept"] + sum(
            self.coefficients[t] * row[t] for t in self.terms
        )


def fit(rows: Sequence[dict[str, float]], terms: Sequence[str], target: str = "rt") -> Fit:
    """Ordinary least squares of `target` on `terms` with an intercept (statsmodels)."""
    import numpy as np
    import statsmodels.api as sm

    if len(rows) <= len(terms) + 1:
        raise PagelabError(f"fit: {len(rows)} runs for {len(terms)} terms; expected more runs")
    x = sm.add_constant(
        np.array([[r[t] for t in terms] for r in rows], dtype=float), has_constant="add"
    )
    y = np.array([r[target] for r in rows], dtype=float)
    res = sm.OLS(y, x).fit()
    coef = {"intercept": float(res.params[0])}
    coef.update({t: float(b) for t, b in zip(terms, res.params[1:], strict=True)})
    return Fit(list(terms), coef, float(res.rsquared), len(rows))


def predict_rt(model: Fit, *, mm: float, pn: float, ps: float, pc: float = 12.0) -> float:
    """Reaction time [ms] the model predicts for memory MM and load PN x PS (section 4.1-4.2)."""
    row = {"pctrmm": pctrmm(mm, pn, ps), "pc": pc, "pc_pn_ps": pc * pn * ps}
    return model.predict(row)


def memory_for(model: Fit, target_ms: float, *, pn: float, ps: float, pc: float = 12.0) -> float:
    """Memory [blocks] at which the model's reaction time equals `target_ms` (section 4.1b).

    With RT = b0 + b1 PCTRMM (+ terms free of MM), PCTRMM = (target - rest) / b1, and
    MM = PN PS / (1 - PCTRMM / 100).
    """
    b1 = model.coefficients.get("pctrmm", 0.0)
    if b1 >= 0:
        raise PagelabError("model: reaction time does not fall as PCTRMM rises; cannot solve")
    rest = model.coefficients["intercept"] + sum(
        model.coefficients[t] * {"pc": pc, "pc_pn_ps": pc * pn * ps}[t]
        for t in model.terms
        if t != "pctrmm"
    )
    p = (target_ms - rest) / b1
    if p >= 100:
        raise PagelabError(f"target {target_ms} ms: beyond what any memory size gives")
    return pn * ps / (1 - p / 100)


def paper_model() -> Fit:
    """Equation (1) of the paper (PC = 12 ms)."""
    return Fit(["pctrmm"], dict(PAPER_EQ1), 0.96, 0)


def fitted_model(*, pc: float = 12.0, seed: int = 1, full: bool = False) -> Fit:
    """RT = b0 + b1 PCTRMM fitted to pagelab's own runs at PC over a grid of PN, PS and MM."""
    pns, pss = ([4, 6, 8, 10], [120, 200]) if full else ([6, 8], [200])
    mms = [700, 1024, 1400] if not full else [700, 900, 1024, 1200, 1400]
    rows = []
    for i, (pn, ps, mm) in enumerate((a, b, c) for a in pns for b in pss for c in mms):
        m = simulate(pn, ps, pc, mm, seed=seed + i, duration_s=None if full else 300.0)
        if m["pctrmm"] < 0:  # the regression describes swapping: all-fit runs react at once
            rows.append({"pctrmm": m["pctrmm"], "rt": m["reaction_time_ms"]})
    return fit(rows, ["pctrmm"])
