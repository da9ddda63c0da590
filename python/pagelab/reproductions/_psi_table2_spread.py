"""psi-table2's tables beside Table 2 (rows `ours`): the ablation of the Ψ-scheduler's parts,
the cost of the Ψ criterion alone, and the prediction again from a second fit of the CP-67
column (`_psi_study.STORAGE_BOUND`) and from the search's near fits (`_psi_study.near_fits`)."""

from __future__ import annotations

from ..reproduce import Context
from . import _psi_study as st

#: Ablation (ours): the Ψ-scheduler without its Ψ criterion (feed-forward on S/Q as observed,
#: feedback on paging rate and steal ratio only), and with the Ψ criterion alone (Table 4's
#: removal of the other limits), and without the steal-ratio limit S_M alone. Ψc = Ψm = 10^-6
#: makes every Ψs* ≥ Ψc (eq. 8 with β = 0: A as observed) and no Ψs* < Ψm.
ABLATION = {
    "feedback only": {"psi_c": 1e-6, "psi_m": 1e-6},
    "Ψ criterion only": {"p_max": 1e9, "s_max": 1e9},
    "without the steal-ratio limit": {"s_max": 1e9},
}


def _ablation(ctx: Context, base: list, extra: list) -> None:
    """Ours: where the Ψ-scheduler's gain comes from. Per cell, the gain over CP-67 of the
    full scheduler and of each variant of ABLATION."""
    names = list(ABLATION)
    t = "Ablation: gain over CP-67 (problem state, points)"
    full_gain, fb_gain = [], []
    for i, (wl, kb) in enumerate(st.TABLE2):
        cp = base[2 * i].metric("problem_state_pct")
        full = base[2 * i + 1].metric("problem_state_pct")
        row = f"workload {wl}, {kb} KB"
        g = [y - x for x, y in zip(cp, full, strict=True)]
        ctx.row(t, row, "Ψ-scheduler", g, unit="%")
        full_gain.append(g)
        for j, name in enumerate(names):
            other = extra[len(names) * i + j].metric("problem_state_pct")
            gj = [y - x for x, y in zip(cp, other, strict=True)]
            ctx.row(t, row, name, gj, unit="%")
            if name == "feedback only":
                fb_gain.append(gj)
            if name == "Ψ criterion only":
                _criterion_cost(ctx, row, base[2 * i], extra[len(names) * i + j])
    # Per seed, the mean gain over the six cells of each variant: where the gain comes from.
    for name, gains in (("Ψ-scheduler", full_gain), ("feedback only", fb_gain)):
        per_seed = [sum(g[k] for g in gains) / len(gains) for k in range(len(ctx.seeds))]
        ctx.row(t, "mean over the cells", name, per_seed, unit="%")
    diff = [
        sum(f[k] - b[k] for f, b in zip(full_gain, fb_gain, strict=True)) / len(full_gain)
        for k in range(len(ctx.seeds))
    ]
    ctx.row(t, "mean over the cells", "Ψ criterion's part (full − feedback only)", diff, unit="%")


#: The run details compared under CP-67 and the Ψ criterion alone: metric, label, unit.
COST_METRICS = (
    ("mpl", "MPL", "users"),
    ("demand_paging_rate", "page reads/s", "1/s"),
    ("cpu_busy_pct", "CPU busy", "%"),
    ("supervisor_pct", "supervisor", "%"),
    ("psi_s_star", "Ψs*", ""),
)


def _criterion_cost(ctx: Context, row: str, cp, only) -> None:
    """Ours: what the Ψ criterion alone changes in one cell (CP-67, then the criterion), and
    the supervisor's CPU per extra page read, 10 × Δsupervisor % / Δreads per second [ms]."""
    t = "Ablation: the Ψ criterion alone against CP-67"
    for metric, label, unit in COST_METRICS:
        ctx.row(t, row, f"{label}, CP-67", cp.metric(metric), unit=unit)
        ctx.row(t, row, f"{label}, Ψ criterion only", only.metric(metric), unit=unit)

    def change(metric: str) -> list[float]:
        return [b - a for a, b in zip(cp.metric(metric), only.metric(metric), strict=True)]

    ds, dr = change("supervisor_pct"), change("demand_paging_rate")
    per_read = [10.0 * s / r for s, r in zip(ds, dr, strict=True) if r > 0]
    ctx.row(t, row, "supervisor per extra page read", per_read, unit="ms")


def _storage_bound_spread(ctx: Context, runs: list) -> None:
    """Both columns from the fit with the non-interactive sets bounded by Table 1's Ā0(2), not
    adopted (its loss is above the rule's bound): rows `ours`, beside Bard's numbers."""
    prov = st.fitted_provenance(st.STORAGE_BOUND)
    why = f"from {st.STORAGE_BOUND} (loss {prov['loss']:.3g}), a fit not adopted"
    table = "The base column's spread: the fit within Table 1's storage (not adopted)"
    near = [0.0] * len(ctx.seeds)
    for i, ((wl, kb), (p_cp, p_psi)) in enumerate(st.TABLE2.items()):
        cp, psi = runs[2 * i], runs[2 * i + 1]
        a, b = cp.metric("problem_state_pct"), psi.metric("problem_state_pct")
        gain = [y - x for x, y in zip(a, b, strict=True)]
        row = f"workload {wl}, {kb} KB"
        ctx.row(table, row, "CP-67 scheduler", a, unit="%", role="ours", why=why)
        ctx.row(table, row, "Ψ-scheduler", b, unit="%", role="ours", why=why)
        ctx.row(table, row, "difference", gain, unit="%", role="ours", why=why)
        ctx.row(table, row, "CP-67 Ψs*", cp.metric("psi_s_star"), role="ours", why=why)
        for k, (x, g) in enumerate(zip(b, gain, strict=True)):
            near[k] += (abs(x - p_psi) <= 5.0) + (abs(g - (p_psi - p_cp)) <= 5.0)
    ctx.row(table, "cells within 5 points of Bard's", "of 12", near, role="ours", why=why)


def _near_fits(ctx: Context, near: list, adopted: list, runs: list) -> None:
    """Both columns from each fit the calibration kept beside the adopted one (trials within
    `near_ratio` of its loss, at each searched key's extremes): how far the prediction moves
    between fits Table 2's CP-67 column tells apart no better than that. Rows `ours`."""
    if not near:
        return
    prov = st.fitted_provenance()
    table = (
        f"The fits the CP-67 column leaves open: {len(near)} trials within "
        f"{prov['near_ratio']:g}x the adopted loss"
    )
    why = f"from the trials of presets/{st.FITTED}.toml's near_fit, not adopted"
    cells = list(st.TABLE2.items())
    per_fit = [runs[2 * len(cells) * j : 2 * len(cells) * (j + 1)] for j in range(len(near))]
    for i, ((wl, kb), _paper) in enumerate(cells):
        row = f"workload {wl}, {kb} KB"
        for col, pick in (("CP-67", _cp67_of), ("gain", _gain_of)):
            ours = pick(adopted, i)
            others = [pick(r, i) for r in per_fit]
            ctx.row(table, row, f"{col}, adopted fit", ours, unit="%", role="ours", why=why)
            ctx.row(table, row, f"{col}, lowest", min(others), unit="%", role="ours", why=why)
            ctx.row(table, row, f"{col}, highest", max(others), unit="%", role="ours", why=why)
    for fit, r in zip(near, per_fit, strict=True):
        row = f"trial {fit['trial']} (loss {fit['loss']:.3g})"
        gains = [_gain_of(r, i) for i in range(len(cells))]
        within = sum(
            (abs(_cp67_of(r, i) + g - p_psi) <= 5.0) + (abs(g - (p_psi - p_cp)) <= 5.0)
            for i, (g, (_cell, (p_cp, p_psi))) in enumerate(zip(gains, cells, strict=True))
        )
        ctx.row(table, row, "gains in (0, 10]", sum(0 < g <= 10 for g in gains), role="ours")
        ctx.row(table, row, "cells within 5 points of Bard's, of 12", within, role="ours")


def _cp67_of(runs: list, i: int) -> float:
    """Cell `i`'s CP-67 problem state, the mean over the seeds."""
    xs = runs[2 * i].metric("problem_state_pct")
    return round(sum(xs) / len(xs), 2)


def _gain_of(runs: list, i: int) -> float:
    """Cell `i`'s Ψ-scheduler gain over CP-67, the mean over the seeds (paired)."""
    a, b = runs[2 * i].metric("problem_state_pct"), runs[2 * i + 1].metric("problem_state_pct")
    return round(sum(y - x for x, y in zip(a, b, strict=True)) / len(a), 2)
