"""Chanson 1982 §3.2 and §4: the factorial experiment over PN, PS, PC and MM on pagelab's UNIX
V6 machine, the regression equations fitted by least squares, validation on held-out runs, and
the worked example of section 4 (predict, and solve for memory) checked against the simulator.
"""

from __future__ import annotations

import itertools

from .. import chanson
from ..reproduce import Context

NAME = "unix-regression"
PAPER = "Chanson 1982"
TITLE = "Reaction time against PCTRMM, PC, PN and PS: regression and applications"

FULL = {"pn": [4, 6, 8, 10], "ps": [120, 200], "pc": [12, 186, 354], "mm": [700, 1024, 1400, 1800]}
SMOKE = {"pn": [6, 8], "ps": [200], "pc": [12, 186], "mm": [700, 1024, 1400]}
#: Every HOLD_OUT-th run of the design is kept for validation, as the paper kept some runs.
HOLD_OUT = 6
#: Reaction times below this are left out of the relative validation error [ms].
MIN_RT_MS = 50.0
PAPER_PER_PC = {12: (588.0, -16.9, 0.96), 186: (595.0, -8.9, 0.96)}


def run(ctx: Context) -> None:
    design = FULL if ctx.full else SMOKE
    duration = None if ctx.full else 300.0
    runs = []
    for i, (pn, ps, pc, mm) in enumerate(itertools.product(*design.values())):
        m = chanson.simulate(pn, ps, pc, mm, seed=ctx.seed + i, duration_s=duration)
        runs.append(
            {
                "pn": pn,
                "ps": ps,
                "pc": pc,
                "mm": mm,
                "pctrmm": m["pctrmm"],
                "pc_pn_ps": pc * pn * ps,
                "rt": m["reaction_time_ms"],
                "held_out": i % HOLD_OUT == HOLD_OUT - 1,
            }
        )
    fit_rows = [r for r in runs if not r["held_out"]]
    held = [r for r in runs if r["held_out"]]
    ctx.row("design", "runs", "fitted", len(fit_rows), paper=None, unit="runs")
    ctx.row("design", "runs", "held out", len(held), unit="runs")
    ctx.notes.append(
        "the paper ran 83 twenty-minute runs; the full design here is "
        f"{len(runs)} runs of 20 simulated minutes"
    )

    overall = chanson.fit(fit_rows, ["pctrmm", "pc", "pc_pn_ps"])
    paper_overall = {"intercept": 703, "pctrmm": -15, "pc": 2.3, "pc_pn_ps": -0.004}
    for term, b in overall.coefficients.items():
        ctx.row("overall equation", term, "coefficient", round(b, 4), paper=paper_overall[term])
    ctx.row("overall equation", "r²", "value", round(overall.r2, 3), paper=0.9)
    alone = chanson.fit(fit_rows, ["pctrmm"])
    ctx.row("PCTRMM alone", "r²", "value", round(alone.r2, 3), paper=0.8)

    for pc in design["pc"]:
        rows = [r for r in fit_rows if r["pc"] == pc]
        f = chanson.fit(rows, ["pctrmm"])
        p = PAPER_PER_PC.get(pc, (None, None, None))
        ctx.row(
            f"PC = {pc} ms",
            "intercept",
            "ms",
            round(f.coefficients["intercept"], 1),
            paper=p[0],
            unit="ms",
        )
        ctx.row(
            f"PC = {pc} ms",
            "PCTRMM",
            "ms per point",
            round(f.coefficients["pctrmm"], 2),
            paper=p[1],
            unit="ms/%",
        )
        ctx.row(f"PC = {pc} ms", "r²", "value", round(f.r2, 3), paper=p[2])

    # Relative error only where there is a reaction time to speak of: when every process fits
    # (PCTRMM >= 0) this machine's reaction time is near zero (see docs/presets/unix-v6.md).
    swapping = [r for r in held if r["rt"] >= MIN_RT_MS]
    errors = [abs(overall.predict(r) - r["rt"]) / r["rt"] for r in swapping]
    mae = 100 * sum(errors) / len(errors) if errors else float("nan")
    ctx.row(
        "validation",
        "mean absolute error",
        f"held-out runs with RT >= {MIN_RT_MS:g} ms",
        round(mae, 1),
        paper=20,
        unit="%",
    )
    ctx.row(
        "validation",
        "runs",
        f"held-out runs with RT >= {MIN_RT_MS:g} ms",
        len(swapping),
        unit="runs",
    )
    abs_err = [abs(overall.predict(r) - r["rt"]) for r in held]
    ctx.row(
        "validation",
        "mean absolute error",
        "all held-out runs",
        round(sum(abs_err) / len(abs_err), 1) if abs_err else None,
        unit="ms",
    )

    ctx.claim(
        "pctrmm-dominates",
        "PCTRMM alone explains most of the variation in reaction time",
        alone.r2 >= 0.5,
        f"r² of RT on PCTRMM alone {alone.r2:.2f} (paper: over 0.8)",
    )
    slope = alone.coefficients["pctrmm"]
    ctx.claim(
        "rt-falls-with-pctrmm",
        "Reaction time falls as PCTRMM rises",
        slope < 0,
        f"{slope:.1f} ms per point of PCTRMM (paper: -16.9 at PC = 12 ms)",
    )

    # Section 4's worked example with our PC = 12 ms equation, checked against the simulator.
    eq1 = chanson.fit([r for r in fit_rows if r["pc"] == 12], ["pctrmm"])
    pn, ps, mm = 8, 200, 700
    for label, memory, paper_rt in (("700 blocks", mm, 2761), ("956 blocks", mm + 256, 1700)):
        predicted = chanson.predict_rt(eq1, mm=memory, pn=pn, ps=ps, pc=12)
        measured = chanson.simulate(pn, ps, 12, memory, seed=ctx.seed, duration_s=duration)
        ctx.row(
            "section 4 example", label, "predicted", round(predicted), paper=paper_rt, unit="ms"
        )
        ctx.row(
            "section 4 example", label, "simulated", round(measured["reaction_time_ms"]), unit="ms"
        )
    need = chanson.memory_for(eq1, 1000, pn=pn, ps=ps, pc=12)
    ctx.row(
        "section 4 example",
        "memory for 1 s",
        "extra blocks",
        round(need - mm),
        paper=587,
        unit="blocks",
    )
    at_need = chanson.simulate(pn, ps, 12, round(need), seed=ctx.seed, duration_s=duration)
    ctx.row(
        "section 4 example",
        "memory for 1 s",
        "simulated reaction",
        round(at_need["reaction_time_ms"]),
        paper=1000,
        unit="ms",
    )
    ctx.notes.append(
        "the paper's section 4 formula prints 6 * 200 where its text and its "
        "answer (2.8 s) use eight processes of 200 blocks; we use eight"
    )

    if ctx.out is not None:
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
