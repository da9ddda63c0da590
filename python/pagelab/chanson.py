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
#: The overall equation of section 3.2 (r² about 0.9).
PAPER_OVERALL = {"intercept": 703.0, "pctrmm": -15.0, "pc": 2.3, "pc_pn_ps": -0.004}
#: The per-PC equations of section 3.2: intercept, PCTRMM slope, PN slope, r².
PAPER_PER_PC = {
    12: (588.0, -16.9, 0.0, 0.96),
    186: (595.0, -8.9, 0.0, 0.96),
    354: (-241.0, -4.5, 204.0, 0.91),
}
#: Seed of the random choice of hold-out runs (recorded; section 3.2 kept "some of the runs").
HOLDOUT_SEED = 1982
#: Design points whose paper reaction time is below this are outside the range his equations
#: describe (they go negative where everything fits) and are left out of the design [ms].
MIN_PAPER_RT_MS = 100.0
#: The factorial design at the paper's size and at smoke size (levels of PN, PS, PC, MM).
FULL = {"pn": [4, 6, 8, 10], "ps": [120, 200], "pc": [12, 186, 354], "mm": [700, 1024, 1400]}
SMOKE = {"pn": [6, 8, 10], "ps": [200], "pc": [12, 186], "mm": [700, 1024, 1400]}


def paper_rt(pn: float, ps: float, pc: float, mm: float) -> float:
    """Reaction time [ms] by the paper's per-PC equation at one design point (section 3.2).

    His 83 measurements are not published; the per-PC equations (r² 0.91-0.96) stand for them
    at the design's points. PC levels other than 12, 186 and 354 ms have no equation."""
    if pc not in PAPER_PER_PC:
        raise PagelabError(f"PC = {pc} ms: the paper gives equations for 12, 186 and 354 ms only")
    b0, b1, b2, _ = PAPER_PER_PC[int(pc)]
    return b0 + b1 * pctrmm(mm, pn, ps) + b2 * pn


def design_points(
    design: dict[str, list[float]], *, swapping: bool = True
) -> list[tuple[int, int, float, int]]:
    """The design's (PN, PS, PC, MM) points inside the equations' range, in design order:
    with `swapping`, those where the processes do not all fit (PCTRMM < 0); else the rest.

    The regression is fitted where PCTRMM < 0: where everything fits, this machine's reaction
    time is a few milliseconds while his equations give hundreds (docs/presets/unix-v6.md);
    those points are kept apart and shown, not fitted."""
    import itertools

    points = itertools.product(design["pn"], design["ps"], design["pc"], design["mm"])
    return [
        p
        for p in points
        if paper_rt(*p) >= MIN_PAPER_RT_MS and (pctrmm(p[3], p[0], p[1]) < 0) == swapping
    ]


def split(points: Sequence[tuple[int, int, float, int]], seed: int = HOLDOUT_SEED) -> list[bool]:
    """Which design points are held out: a random half (rounded down) of each PC level, so
    that every per-PC equation can be fitted on the rest, drawn with `seed`."""
    import random

    rng = random.Random(seed)
    held: set[int] = set()
    for pc in sorted({p[2] for p in points}):
        idx = [i for i, p in enumerate(points) if p[2] == pc]
        held.update(rng.sample(idx, len(idx) // 2))
    return [i in held for i in range(len(points))]


#: Figure 1's setting (PN, PS, PC, MM), where section 2.C's swap rate "at least an order of
#: magnitude less than the disk I/O rate" is aimed at by the swap-ratio target.
SWAP_RATIO_AT = (8, 200, 12.0, 1024)


def training_target(
    design: dict[str, list[float]], duration_s: float | None, *, swap_ratio: float | None = None
) -> str:
    """A `pagelab calibrate` target (TOML): the paper's reaction time at each training point;
    with `swap_ratio`, also that many file-system accesses per swap at SWAP_RATIO_AT (section
    2.C's order of magnitude, as a point to aim at)."""
    points = design_points(design)
    held = split(points)
    lines = [
        "# Chanson 1982: his per-PC equations at the training half of the design",
        f"# (hold-out drawn with seed {HOLDOUT_SEED}); written by pagelab.chanson.training_target",
        "[target]",
        f'name = "chanson-train{"" if swap_ratio is None else "-swap-ratio"}"',
        'source = "Chanson 1982 §3.2, per-PC equations at the training points"',
    ]
    for (pn, ps, pc, mm), out in zip(points, held, strict=True):
        if out:
            continue
        sets = settings(pn, ps, pc, mm, duration_s=duration_s)[1]
        lines += [
            "",
            "[[point]]",
            'metric = "reaction_time_ms"',
            f"value = {paper_rt(pn, ps, pc, mm):.1f}",
            "set = [" + ", ".join(f'"{x}"' for x in sets) + "]",
        ]
    if swap_ratio is not None:
        sets = settings(*SWAP_RATIO_AT, duration_s=duration_s)[1]
        lines += [
            "",
            "# Section 2.C: the swap rate at least an order of magnitude below the disk I/O rate",
            "[[point]]",
            'metric = "fs_accesses_per_swap"',
            f"value = {swap_ratio:g}",
            "set = [" + ", ".join(f'"{x}"' for x in sets) + "]",
        ]
    return "\n".join(lines) + "\n"


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
    preset: str = "unix-v6",
) -> tuple[str, list[str]]:
    """The preset and the overrides of one operating point: PN, PS [blocks], PC [ms],
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
    return preset, overrides


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
    """A fitted linear model: names of the regressors, coefficients, r², observations, and
    each coefficient's 95 % confidence interval (statsmodels)."""

    terms: list[str]
    coefficients: dict[str, float]
    r2: float
    n: int
    ci: dict[str, tuple[float, float]] | None = None

    def predict(self, row: dict[str, float]) -> float:
        return self.coefficients["intercept"] + sum(
            self.coefficients[t] * row[t] for t in self.terms
        )


def fit(rows: Sequence[dict[str, float]], terms: Sequence[str], target: str = "rt") -> Fit:
    """Ordinary least squares of `target` on `terms` with an intercept (statsmodels)."""
    from . import extras

    extras.need("stats", "Chanson's regression fit")
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
    bounds = res.conf_int(0.05)
    ci = {
        name: (float(lo), float(hi))
        for name, (lo, hi) in zip(["intercept", *terms], bounds, strict=True)
    }
    return Fit(list(terms), coef, float(res.rsquared), len(rows), ci)


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
