"""Bard 1975, Table 3: effect of the Ψ-scheduler's parameters at 512 KB, a 3x2x2 factorial over
the feedback strategy, Ψc = Ψm in {11, 10} and β in {0, 0.25}, plus Ψc = Ψm = 10.5 (experiments
13-14), each over the three workloads; and the run-to-run noise the paper puts at two points,
measured here by running experiment 1 with several seeds. At full scale each cell is the mean
of three seeds (seed, seed + 1, seed + 2).
"""

from __future__ import annotations

from ..reproduce import Context
from . import _psi_study as st

NAME = "psi-table3"
PAPER = "Bard 1975"
TITLE = "Table 3: Ψ-scheduler parameters at 512 KB (strategy x Ψc = Ψm x β)"

#: experiment -> (strategy, Ψc = Ψm, β, paper's workload 1, 2, 3, overall average).
PAPER_TABLE3 = {
    1: (1, 11.0, 0.0, 29.8, 44.2, 47.0, 40.3),
    2: (1, 11.0, 0.25, 32.7, 44.0, 46.6, 41.1),
    3: (1, 10.0, 0.0, 31.1, 46.6, 47.5, 41.7),
    4: (1, 10.0, 0.25, 32.3, 46.1, 47.0, 41.8),
    5: (2, 11.0, 0.0, 32.7, 44.2, 48.7, 41.9),
    6: (2, 11.0, 0.25, 32.2, 45.0, 49.0, 42.1),
    7: (2, 10.0, 0.0, 32.5, 44.4, 48.1, 41.7),
    8: (2, 10.0, 0.25, 31.2, 45.8, 48.4, 41.8),
    9: (3, 11.0, 0.0, 32.9, 42.1, 49.0, 41.3),
    10: (3, 11.0, 0.25, 31.8, 43.7, 50.6, 42.0),
    11: (3, 10.0, 0.0, 31.5, 43.3, 50.9, 41.2),
    12: (3, 10.0, 0.25, 33.5, 45.7, 49.5, 42.9),
    13: (2, 10.5, 0.0, 33.4, 44.3, 49.0, 42.2),
    14: (2, 10.5, 0.25, 31.4, 45.9, 48.3, 41.9),
}

#: Smoke scale: three experiments that differ in each factor, and two seeds for the noise.
SMOKE_EXPERIMENTS = (1, 10, 13)


def _lc(strategy: int, psi: float, beta: float) -> dict:
    return st.psi_controller(512, strategy=strategy, psi_c=psi, psi_m=psi, beta=beta)


def _cell(ctx: Context, wl: int, strategy: int, psi: float, beta: float) -> float:
    lc = _lc(strategy, psi, beta)
    return st.mean_problem_state(wl, 512, full=ctx.full, seed=ctx.seed, load_control=lc)[0]


def _single(ctx: Context, wl: int, strategy: int, psi: float, beta: float, seed: int) -> float:
    lc = _lc(strategy, psi, beta)
    return st.problem_state(st.run_cell(wl, 512, full=ctx.full, seed=seed, load_control=lc))


def run(ctx: Context) -> None:
    exps = list(PAPER_TABLE3) if ctx.full else list(SMOKE_EXPERIMENTS)
    overall = {}
    for e in exps:
        strategy, psi, beta, *paper = PAPER_TABLE3[e]
        ours = [_cell(ctx, wl, strategy, psi, beta) for wl in (1, 2, 3)]
        row = f"{e}: strategy {strategy}, Ψc = Ψm = {psi:g}, β = {beta:g}"
        for wl, v, p in zip((1, 2, 3), ours, paper[:3], strict=True):
            ctx.row("Table 3", row, f"workload {wl}", round(v, 2), paper=p, unit="%")
        overall[e] = sum(ours) / 3
        ctx.row("Table 3", row, "overall average", round(overall[e], 2), paper=paper[3], unit="%")
    # Run-to-run noise: experiment 1 under several seeds, per workload.
    seeds = [ctx.seed + k for k in range(5 if ctx.full else 2)]
    sds = []
    for wl in (1, 2, 3):
        strategy, psi, beta, *_ = PAPER_TABLE3[1]
        vals = [_single(ctx, wl, strategy, psi, beta, s) for s in seeds]
        m, sd = st.mean_sd(vals)
        sds.append(sd)
        ctx.row("Noise (experiment 1)", f"workload {wl}", "mean", round(m, 2), unit="%")
        ctx.row("Noise (experiment 1)", f"workload {wl}", "sd over seeds", round(sd, 2), unit="%")
        ctx.row(
            "Noise (experiment 1)",
            f"workload {wl}",
            "range",
            round(max(vals) - min(vals), 2),
            paper=2.0,
            unit="%",
        )
    k = len(st.seeds(ctx.seed, ctx.full))
    noise = max(2.0, 2 * max(sds) / k**0.5)
    # Main effects on the overall average (full factorial experiments only).
    effects = {}
    fact = [e for e in exps if e <= 12]
    for name, idx, levels in (
        ("strategy", 0, (1, 2, 3)),
        ("Ψc = Ψm", 1, (11.0, 10.0)),
        ("β", 2, (0.0, 0.25)),
    ):
        means = []
        for lv in levels:
            sel = [overall[e] for e in fact if PAPER_TABLE3[e][idx] == lv]
            if sel:
                means.append(sum(sel) / len(sel))
        if len(means) >= 2:
            effects[name] = max(means) - min(means)
            ctx.row(
                "Main effects (overall average)",
                name,
                "largest level difference",
                round(effects[name], 2),
                unit="%",
            )
    spread = max(overall.values()) - min(overall.values())
    ctx.row(
        "Main effects (overall average)",
        "all experiments",
        "range",
        round(spread, 2),
        paper=2.6,
        unit="%",
    )
    ctx.claim(
        "no-significant-effects",
        "No parameter has an effect beyond run-to-run noise (bard §11)",
        all(v <= noise for v in effects.values()),
        "level differences "
        + ", ".join(f"{k}: {v:.2f}" for k, v in effects.items())
        + f" against max(2, 2 sd / sqrt({k})) = {noise:.2f} points (sd of one run over "
        + f"{len(seeds)} seeds; each cell the mean of {k} seeds)",
    )
