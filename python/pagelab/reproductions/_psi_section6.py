"""Bard 1975 §6 in psi-table2: figures 2-4 (problem state against Ψs*, paging rate and steal
ratio over the CP-67 runs' monitor intervals), their claims, and figures 5 and 7."""

from __future__ import annotations

import math
from typing import NamedTuple

from ..reproduce import Context
from . import _psi_study as st

QUOTE_SECTION6 = (
    "On the other hand, Figs. 2-4 indicate that performance degrades when the paging rate "
    "exceeds 65 page reads per second, when the steal ratio exceeds 80 percent, or when Ψs* "
    "falls below 13."
)


def _bins(xs: list, ys: list, edges: list) -> list:
    out = []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        sel = [y for x, y in zip(xs, ys, strict=True) if lo <= x < hi]
        if sel:
            out.append(((lo + hi) / 2, sum(sel) / len(sel), len(sel)))
    return out


def _measures(reports: list) -> tuple[list, list, list, list]:
    rows = [r for rep in reports for r in st.intervals(rep)]
    ps = [100 * r["cpu_problem_s"] / r["time_s"] for r in rows]
    psi = [r["psi_s_star"] if r["psi_s_star"] is not None else math.inf for r in rows]
    rate = [r["page_reads"] / r["time_s"] for r in rows]
    steal = [r["steal_ratio"] for r in rows]
    return ps, psi, rate, steal


class _Key(NamedTuple):
    """A key variable of Bard's section 6 and its limit (one of figures 2-4)."""

    name: str
    label: str
    col: int
    edges: list
    limit: float
    above_bad: bool
    #: The unit of the slope: points of problem state per this much of the variable.
    per: float


SECTION6 = (
    _Key("figure2", "Ψs*", 1, [0, 4, 8, 10, 12, 13, 14, 16, 20, 30, 60, math.inf], 13.0, False, 1),
    _Key(
        "figure3",
        "page reads per second",
        2,
        [0, 20, 40, 50, 60, 65, 70, 80, 100, 150, 400],
        65.0,
        True,
        10,
    ),
    _Key("figure4", "steal ratio", 3, [0, 0.2, 0.4, 0.6, 0.7, 0.8, 0.9, 1.0001], 0.8, True, 0.1),
)


def _section6(ctx: Context, by_seed: list) -> None:
    """Figures 2-4: mean problem-state percent of intervals grouped by a key variable.

    Bard: "performance degrades when the paging rate exceeds 65 page reads per second, when the
    steal ratio exceeds 80 percent, or when Ψs* falls below 13" (section 6). The claims read it
    as the slope past the limit: per seed, the least-squares slope of problem state on the key
    variable over the intervals past it. The side test (every interval past the limit against
    every other) stays as a row: its other side holds the idle intervals (Ψs* infinite, few
    reads), whose problem state is low for want of work, not for paging."""
    pooled = _measures([rep for reps in by_seed for rep in reps])
    per_seed = [_measures(reps) for reps in by_seed]
    for key in SECTION6:
        binned = _bins(pooled[key.col], pooled[0], key.edges)
        t = f"Section 6 {key.name}: problem state by {key.label} (CP-67 intervals)"
        for mid, mean, n in binned:
            ctx.row(t, f"{key.label} ≈ {mid:g}", "problem state", round(mean, 2), unit="%")
            ctx.row(t, f"{key.label} ≈ {mid:g}", "intervals", n)
        side = f"above {key.limit:g}" if key.above_bad else f"below {key.limit:g}"
        sides = [s for m in per_seed if (s := _sides(m[0], m[key.col], key)) is not None]
        evidence = ""
        if sides:
            good, bad = (sum(s[k] for s in sides) / len(sides) for k in (0, 1))
            t = "Section 6: the side test, every interval past the limit against the others"
            ctx.row(t, f"{key.label} {side}", "problem state", round(bad, 2), unit="%")
            ctx.row(t, f"{key.label} {side}", "the other side", round(good, 2), unit="%")
            evidence = f"; the side test: {bad:.1f} % {side} against {good:.1f} %"
        slopes = [s for m in per_seed if (s := _slope_past(m[0], m[key.col], key)) is not None]
        if len(slopes) >= 2:
            ctx.claim(
                f"{key.name}-degrades",
                f"Problem state falls as {key.label} goes further {side} (bard §6): the "
                f"slope per {key.per:g} over the intervals {side}",
                effects=slopes,
                kind="difference",
                direction=-1 if key.above_bad else 1,
                evidence="slope per seed, points of problem state per "
                f"{key.per:g}: " + ", ".join(f"{s:+.2f}" for s in slopes) + evidence,
                quote=QUOTE_SECTION6,
                reading="psi-section6-slopes",
                changed_after_results=True,
            )
        if ctx.draws and binned:
            _figure(ctx, key, binned)


def _figure(ctx: Context, key: _Key, binned: list) -> None:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.plot(
        [b[0] for b in binned if math.isfinite(b[0])],
        [b[1] for b in binned if math.isfinite(b[0])],
        marker="o",
    )
    ax.axvline(key.limit, color="grey", lw=0.8, ls="--")
    ax.set_xlabel(key.label)
    ax.set_ylabel("problem state (%)")
    ax.grid(alpha=0.3)
    ctx.figure(key.name, fig)
    plt.close(fig)


def _past(xs: list, key: _Key) -> list[bool]:
    """Which intervals lie past the limit (Ψs* infinite counts as above any limit)."""
    return [(x > key.limit) if key.above_bad else (x < key.limit) for x in xs]


def _sides(ps: list, xs: list, key: _Key) -> tuple[float, float] | None:
    """Mean problem state of the intervals on the good and the bad side of the limit."""
    past = _past(xs, key)
    good = [p for p, b in zip(ps, past, strict=True) if not b]
    bad = [p for p, b in zip(ps, past, strict=True) if b]
    if not good or not bad:
        return None
    return sum(good) / len(good), sum(bad) / len(bad)


def _slope_past(ps: list, xs: list, key: _Key) -> float | None:
    """Least-squares slope of problem state on the key variable over the intervals past the
    limit, in points per `key.per`; None with fewer than three or no spread."""
    from ..sweep.plainstats import slope

    sel = [(x, p) for x, p, b in zip(xs, ps, _past(xs, key), strict=True) if b]
    if len(sel) < 3 or len({x for x, _ in sel}) < 2:
        return None
    return slope([x for x, _ in sel], [p for _, p in sel]) * key.per


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _figures_5_and_7(ctx: Context, reports: list) -> None:
    """Bard §7: A* = N/X (eq. 6) and the system's page exceptions per CPU second against Ψs*,
    over the CP-67 runs' intervals (what Bard superimposes on figures 5 and 7)."""
    pts = []
    for rep in reports:
        frames = float(rep["spec"]["memory"]["frames"])
        for r in st.intervals(rep):
            psi, cpu = r["psi_s_star"], r["cpu_problem_s"]
            if psi is None or r["mpl"] <= 0 or cpu <= 0:
                continue
            pts.append((psi, frames / r["mpl"], r["faults"] / cpu))
    t = "Section 7: the average program (CP-67 intervals)"
    for lo, hi in ((0, 13), (13, math.inf)):
        sel = [p for p in pts if lo <= p[0] < hi]
        if sel:
            row = f"Ψs* in [{lo:g}, {hi:g})"
            ctx.row(t, row, "A* = N/X", round(sum(p[1] for p in sel) / len(sel), 2), unit="pages")
            rate = round(sum(p[2] for p in sel) / len(sel), 1)
            ctx.row(t, row, "exceptions per CPU s", rate, unit="1/s")
    if ctx.draws and pts:
        from .. import plots

        fig = plots.psi_figure([], title="CP-67 intervals (bard §7)", system=pts)
        ctx.figure("figures5-7-system", fig)
        _plt().close(fig)
