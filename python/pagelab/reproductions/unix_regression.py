"""Chanson 1982 §3.2 and §4: the factorial experiment over PN, PS, PC and MM on pagelab's UNIX
V6 machine, the regression equations fitted by least squares (statsmodels, 95 % intervals),
validation on a random hold-out half, and the worked example of section 4.

The workload's unknowns (sleep and terminal-output probabilities, file size) were fitted with
`pagelab calibrate` to the paper's per-PC equations at the *training* half of the design
(presets/targets/chanson-train.toml -> presets/unix-v6-fitted.toml); the hold-out half, the
section 4 example and every other reproduction are predictions of that preset.
"""

from __future__ import annotations

import contextlib
import math

from .. import chanson
from ..errors import PagelabError
from ..reproduce import Context
from ._chanson_fits import MIN_RT_MS, PRESET, _by_cell, _fits, _level_mean, _replicate, _shared
from ._chanson_sleeps import sleeps_apart
from ._unix_sensitivities import (
    _cache_locality,
    _Design,
    _near_fits,
    _swap_ratio_fit,
    _swapper_clock,
    _swapper_reading,
)

NAME = "unix-regression"
PAPER = "Chanson 1982"
TITLE = "Reaction time against PCTRMM, PC, PN and PS: regression and applications"
#: Least squares with their intervals by statsmodels (the `[stats]` extra), at any scale.
NEEDS = "stats"


def _ci_rows(ctx: Context, table: str, term: str, fit: chanson.Fit) -> None:
    """statsmodels' 95 % interval of a coefficient, fitted on every replication's training
    runs together."""
    lo, hi = fit.ci[term] if fit.ci else (float("nan"), float("nan"))
    ctx.row(table, term, "statsmodels 95 % CI, low", lo)
    ctx.row(table, term, "statsmodels 95 % CI, high", hi)


def _equation_rows(ctx: Context, design: dict, fits: list[dict], pooled: dict) -> None:
    """The fitted equations beside the paper's (fitted: the calibration aimed at his
    equations at the training points), with statsmodels' intervals on the pooled runs."""
    why = "the workload was calibrated to his per-PC equations at these training points"
    for term, paper in chanson.PAPER_OVERALL.items():
        ctx.row(
            "overall equation",
            term,
            "coefficient",
            [f["overall"].coefficients[term] for f in fits],
            paper=paper,
            role="fitted",
            why=why,
        )
        _ci_rows(ctx, "overall equation", term, pooled["overall"])
    # An r² is scored as the share it leaves unexplained (1 - r²): within 25 % of 0.9 would
    # pass any r² from 0.68 up. "over 80%" is a lower bound (readings.md, score-bounds).
    _r2_rows(ctx, "overall equation", [f["overall"].r2 for f in fits], 0.9)
    ctx.row(
        "PCTRMM alone",
        "r²",
        "value",
        [f["alone"].r2 for f in fits],
        paper=0.8,
        bound="lower",
    )
    for pc in design["pc"]:
        if pc not in pooled["per_pc"]:
            continue
        b0, b1, b2, r2 = chanson.PAPER_PER_PC[pc]
        per = [f["per_pc"][pc] for f in fits if pc in f["per_pc"]]
        terms = [("intercept", b0, "ms"), ("pctrmm", b1, "ms/%")]
        if pc == 354:
            terms.append(("pn", b2, "ms/process"))
        for term, paper, unit in terms:
            ctx.row(
                f"PC = {pc} ms",
                term,
                "coefficient",
                [f.coefficients[term] for f in per],
                paper=paper,
                unit=unit,
                role="fitted",
                why=why,
            )
            _ci_rows(ctx, f"PC = {pc} ms", term, pooled["per_pc"][pc])
        _r2_rows(ctx, f"PC = {pc} ms", [f.r2 for f in per], r2)


def _r2_rows(ctx: Context, table: str, r2: list[float], paper: float) -> None:
    """An r² beside the paper's (shown) and the share it leaves unexplained (scored)."""
    ctx.row(table, "r²", "value", r2, paper=paper, role="ours", why="scored as 1 - r²")
    unexplained = [1 - x for x in r2]
    ctx.row(table, "1 - r² (unexplained share)", "value", unexplained, paper=round(1 - paper, 4))


def _validation_rows(ctx: Context, points: list, held: list[bool], runs: list, fits: list):
    for (pn, ps, pc, mm), out, r in zip(points, held, runs, strict=True):
        if out:
            ctx.row(
                "hold-out",
                f"PN {pn}, PS {ps}, PC {pc}, MM {mm}",
                "reaction time",
                r.metric("reaction_time_ms"),
                paper=round(chanson.paper_rt(pn, ps, pc, mm)),
                unit="ms",
            )
    label = f"held-out runs with RT >= {MIN_RT_MS:g} ms"
    ctx.row(
        "validation",
        "mean absolute error of the fitted equation",
        label,
        [f["mae"] for f in fits],
        paper=20,
        unit="%",
        baseline=100,
    )
    ctx.row(
        "validation",
        "mean absolute error against the paper's equations",
        "held-out runs",
        [f["mae_paper"] for f in fits],
        unit="%",
    )
    ctx.row("validation", "runs", "held out", [f["n_held"] for f in fits], unit="runs")


def _section4(ctx: Context, fits: list[dict], duration: float | None) -> None:
    """Section 4's worked example: our PC = 12 ms equation and the simulator itself."""
    pn, ps, mm = 8, 200, 700
    eq1s = [f["per_pc"][12] for f in fits]
    needs = []
    for e in eq1s:
        # A seed whose equation stays above 1 s at every memory size gives no memory.
        with contextlib.suppress(PagelabError):
            needs.append(chanson.memory_for(e, 1000, pn=pn, ps=ps, pc=12))
    if len(needs) < len(eq1s):
        ctx.notes.append(
            f"section 4: the PC = 12 ms equation of {len(eq1s) - len(needs)} of {len(eq1s)} "
            "seeds gives more than 1 s at every memory size; the memory for 1 s is the others'"
        )
    sizes = [mm, mm + 256] + ([round(sum(needs) / len(needs))] if needs else [])
    checks = ctx.simulate(
        [chanson.settings(pn, ps, 12, m, duration_s=duration, preset=PRESET) for m in sizes]
    )
    # Roles follow where each number came from (readings.md, score-fitted-targets): our
    # equation's values evaluate coefficients fitted to his; 2761 at MM 700 is a training
    # target (2760.9 in presets/targets/chanson-train.toml); the 1 s is our own solve target.
    eq_why = "evaluates our PC = 12 ms equation, whose coefficients are fitted to his"
    for (label, memory, paper_rt), measured in zip(
        (("700 blocks", mm, 2761), ("956 blocks", mm + 256, 1700)), checks, strict=False
    ):
        predicted = [chanson.predict_rt(e, mm=memory, pn=pn, ps=ps, pc=12) for e in eq1s]
        ctx.row(
            "section 4 example",
            label,
            "our equation",
            predicted,
            paper=paper_rt,
            unit="ms",
            role="fitted",
            why=eq_why,
        )
        target = memory == mm
        ctx.row(
            "section 4 example",
            label,
            "simulated",
            measured.metric("reaction_time_ms"),
            paper=paper_rt,
            unit="ms",
            role="fitted" if target else None,
            why="a training target of the calibration (2760.9)" if target else None,
            baseline=2761 if not target else None,
        )
    if needs:
        ctx.row(
            "section 4 example",
            "memory for 1 s",
            "extra blocks",
            [n - mm for n in needs],
            paper=587,
            unit="blocks",
            role="fitted",
            why=eq_why,
        )
        ctx.row(
            "section 4 example",
            "memory for 1 s",
            "simulated reaction",
            checks[2].metric("reaction_time_ms"),
            paper=1000,
            unit="ms",
            role="fitted",
            why="the reaction time our equation was solved for: our own target",
        )
    ctx.claim(
        "memory-purchase",
        "256 more blocks at MM 700, PN 8, PS 200 cut reaction time from about 2.8 s to 1.7 s",
        base=checks[0].metric("reaction_time_ms"),
        treatment=checks[1].metric("reaction_time_ms"),
        paper_effect=1700 / 2761 - 1,
        evidence=f"{checks[0].mean('reaction_time_ms'):.0f} -> "
        f"{checks[1].mean('reaction_time_ms'):.0f} ms simulated; 2761 -> 1700 by eq. 1",
        quote="Using equation 1, it could easily be determined that it would reduce reaction "
        "time to a little over 1.7 seconds.",
    )


#: Chanson §3.2: the per-PC equations, the calibration's target at the training points, so
#: claims on their coefficients are `fitted` (docs/readings.md, score-fitted-targets).
QUOTE_EQUATIONS = (
    "By removing the factor PC (i.e., keeping it constant), it is possible to obtain a "
    "regression equation with much higher r**2 value. 12 .96 RT = 588 - 16.9 * PCTRMM (1); "
    "186 .96 RT = 595 - 8.9 * PCTRMM"
)


def _claims(ctx: Context, fits: list[dict]) -> None:
    ctx.claim(
        "pctrmm-dominates",
        "PCTRMM alone explains most of the variation in reaction time (paper: over 80 %)",
        effects=[f["alone"].r2 for f in fits],
        kind="difference",
        paper_effect=0.8,
        band=(0.8, 1.0),
        evidence="r² of RT on PCTRMM alone: " + ", ".join(f"{f['alone'].r2:.2f}" for f in fits),
        quote="This quantity, which can be either positive or negative depending on whether all "
        "the processes can fit into main memory or not, can account for over 80% of the "
        "variation in reaction time.",
    )
    slopes = [f["per_pc"][12].coefficients["pctrmm"] for f in fits]
    ctx.claim(
        "rt-falls-with-pctrmm",
        "Reaction time falls as PCTRMM rises (paper: -16.9 ms per point at PC = 12 ms)",
        effects=slopes,
        kind="difference",
        paper_effect=-16.9,
        evidence="ms per point of PCTRMM at PC = 12, per seed: "
        + ", ".join(f"{s:.1f}" for s in slopes),
        quote=QUOTE_EQUATIONS,
        role="fitted",
    )
    if all(186 in f["per_pc"] for f in fits):
        flat = [
            1 - f["per_pc"][186].coefficients["pctrmm"] / f["per_pc"][12].coefficients["pctrmm"]
            for f in fits
        ]
        ctx.claim(
            "slope-flattens-with-pc",
            "The PCTRMM slope flattens by about half from PC = 12 ms to 186 ms (16.9 -> 8.9)",
            effects=flat,
            kind="difference",
            paper_effect=1 - 8.9 / 16.9,
            evidence="1 - slope(186) / slope(12) per seed: " + ", ".join(f"{x:.2f}" for x in flat),
            quote=QUOTE_EQUATIONS,
            role="fitted",
        )
    pc_term = [f["overall"].coefficients["pc"] for f in fits]
    ctx.claim(
        "pc-dual-nature",
        "PC adds to reaction time on its own (+2.3 ms per ms) while PC·PN·PS subtracts",
        effects=pc_term,
        kind="difference",
        paper_effect=2.3,
        evidence="PC and PC·PN·PS coefficients per seed: "
        + ", ".join(
            f"{f['overall'].coefficients['pc']:.2f} / {f['overall'].coefficients['pc_pn_ps']:.4f}"
            for f in fits
        )
        + " (paper 2.3 / -0.004)",
        quote="This seems to support the idea of the dual nature of the PC factor, with the "
        "positive contribution of the PC term and the negative contribution of the PC*PN*PS term.",
        role="fitted",
    )


def _swapped_in_io(ctx: Context, design: dict, points: list, runs: list) -> None:
    """Section 3.1's account of the PC factor: "whenever a process does I/O, it is quite likely
    that it will get swapped out before the I/O is completed. This probability increases ...
    with shorter CPU requests". The share of swap-outs that took a process asleep in a block
    access of its own, per PC level, and the paired difference between the shortest and the
    longest PC at the design points both levels share (the paper gives no number)."""
    key = "swap_out_io_pct"
    for pc in design["pc"]:
        for metric, what in (
            (key, "during its own I/O"),
            ("swap_out_easy_pct", "easy core"),
            ("reaction_swapped_pct", "reactions woken swapped out"),
        ):
            per_seed = _level_mean(ctx, points, runs, pc, metric)
            ctx.row("the swapper by PC (section 3.1)", f"PC = {pc} ms", what, per_seed, unit="%")
    lo, hi = min(design["pc"]), max(design["pc"])
    at = _by_cell(points, runs)
    shared = _shared(at, lo, hi)
    diffs = [
        sum(at[(*q, lo)].metric(key)[k] - at[(*q, hi)].metric(key)[k] for q in shared) / len(shared)
        for k in range(len(ctx.seeds))
    ]
    ctx.claim(
        "io-swap-out-grows-as-pc-falls",
        f"Processes are more often swapped out during their own I/O at PC = {lo} ms than at "
        f"{hi} ms (section 3.1)",
        effects=diffs,
        kind="difference",
        direction=1,
        evidence=f"mean points of swap-outs during I/O, PC {lo} minus PC {hi}, over the "
        f"{len(shared)} design points both levels share, per seed: "
        + ", ".join(f"{d:.1f}" for d in diffs),
        quote="Hence whenever a process does I/O, it is quite likely that it will get swapped "
        "out before the I/O is completed. This probability increases with the number of "
        "processes and with shorter CPU requests.",
    )


def _rt_drops_with_pc(ctx: Context, design: dict, points: list, runs: list) -> None:
    """CHANSON §3.1: "as the PC value is increased, the mean reaction time drops ... This holds
    true for most, but not all, of the cases in this experiment". Per seed, the share of the
    design's (PN, PS, MM) cells run at two PC levels where the longer PC reacts faster. The
    claim takes the shortest PC and the next (12 and 186 ms), where his per-PC equations agree
    with his text (faster in every cell here); from 12 to 354 ms they do in only some cells,
    shown in the evidence. The claim's effect is the share less half ("most")."""
    levels = sorted(design["pc"])
    at = _by_cell(points, runs)
    rt = "reaction_time_ms"

    def shares(lo: float, hi: float) -> tuple[list[float], float, int]:
        cells = _shared(at, lo, hi)
        if not cells:
            return [], math.nan, 0
        ours = [
            100
            * sum(at[(*q, hi)].metric(rt)[k] < at[(*q, lo)].metric(rt)[k] for q in cells)
            / len(cells)
            for k in range(len(ctx.seeds))
        ]
        eq = sum(
            chanson.paper_rt(*q[:2], hi, q[2]) < chanson.paper_rt(*q[:2], lo, q[2]) for q in cells
        )
        return ours, 100 * eq / len(cells), len(cells)

    if len(levels) < 2:
        return
    (lo, nxt), hi = levels[:2], levels[-1]
    ours, eq, n = shares(lo, nxt)
    if not n:
        return
    evidence = (
        f"{n} cells run at PC = {lo} and {nxt} ms, share per seed: "
        + ", ".join(f"{x:.0f} %" for x in ours)
        + f" (his per-PC equations: {eq:.0f} %)"
    )
    far, far_eq, far_n = shares(lo, hi)
    if hi != nxt and far_n:
        mean = sum(far) / len(far)
        evidence += (
            f"; {lo} against {hi} ms over {far_n} cells: {mean:.0f} % (equations {far_eq:.0f} %)"
        )
    ctx.claim(
        "rt-drops-as-pc-rises",
        f"Reaction time drops as PC rises, in most cases (section 3.1): the share of cells where "
        f"PC = {nxt} ms reacts faster than PC = {lo} ms, less half",
        effects=[x - 50 for x in ours],
        kind="difference",
        direction=1,
        evidence=evidence,
        quote="Examining the data, it appears that the overriding effect is that as the PC value "
        "is increased, the mean reaction time drops, indicating the file system access rate has "
        "the dominant influence in our system. This holds true for most, but not all, of the "
        "cases in this experiment.",
        # Its cells at the training points are the calibration's targets (per-PC equations).
        role="fitted",
    )


def run(ctx: Context) -> None:
    design = chanson.FULL if ctx.full else chanson.SMOKE
    duration = None if ctx.full else 300.0
    points = chanson.design_points(design)
    held = chanson.split(points)
    ctx.use_fit(PRESET)
    done = ctx.simulate([chanson.settings(*p, duration_s=duration, preset=PRESET) for p in points])
    reps = [_replicate(points, held, done, k) for k in range(len(ctx.seeds))]
    ctx.row("design", "runs", "training", len(points) - sum(held), unit="runs")
    ctx.row("design", "runs", "held out", sum(held), unit="runs")
    ctx.row(
        "design",
        "least reaction time of any run",
        "every run of the design",
        [min(r.metric("reaction_min_ms")[k] for r in done) for k in range(len(ctx.seeds))],
        unit="ms",
    )
    ctx.notes.append(
        f"the paper ran 83 twenty-minute runs; the design here is {len(points)} runs (points "
        f"whose paper reaction time is at least {chanson.MIN_PAPER_RT_MS:g} ms), replicated "
        f"over {len(ctx.seeds)} seeds; the hold-out half was drawn with seed "
        f"{chanson.HOLDOUT_SEED}"
    )
    fits = [_fits(design, rep) for rep in reps]
    pooled = _fits(design, [r for rep in reps for r in rep])
    _equation_rows(ctx, design, fits, pooled)
    _validation_rows(ctx, points, held, done, fits)
    _claims(ctx, fits)
    _swapped_in_io(ctx, design, points, done)
    _rt_drops_with_pc(ctx, design, points, done)
    _swapper_reading(ctx, design, points, held, fits, done, duration)
    _cache_locality(ctx, design, points, held, (done, reps), duration)
    setup = _Design(design, points, held, duration)
    _near_fits(ctx, setup, (fits, reps, done))
    _swap_ratio_fit(ctx, setup, (fits, reps, done))
    _swapper_clock(ctx, setup, (fits, reps, done))
    sleeps_apart(ctx, setup, (fits, reps, done))
    _section4(ctx, fits, duration)
    ctx.notes.append(
        "the paper's section 4 formula prints 6 * 200 where its text and its "
        "answer (2.8 s) use eight processes of 200 blocks; we use eight"
    )
    if ctx.draws:
        _figure(ctx, design, reps[0])


def _figure(ctx: Context, design: dict, runs: list[dict]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for pc in design["pc"]:
        pts = sorted((r["pctrmm"], r["rt"]) for r in runs if r["pc"] == pc)
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=12, label=f"PC = {pc} ms")
    xs = sorted(r["pctrmm"] for r in runs)
    ax.plot(xs, [588 - 16.9 * x for x in xs], "k--", label="paper eq. (1)")
    ax.set_xlabel("PCTRMM (%)")
    ax.set_ylabel("reaction time (ms)")
    ax.legend()
    ax.grid(alpha=0.3)
    ctx.figure("rt-vs-pctrmm", fig)
    plt.close(fig)
