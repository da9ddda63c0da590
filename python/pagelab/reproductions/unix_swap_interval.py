"""Chanson 1982, Figure 1: real time between successive swaps against -PCTRMM."""

from __future__ import annotations

from .. import chanson
from ..reproduce import Context

NAME = "unix-swap-interval"
PAPER = "Chanson 1982"
TITLE = "Real time between successive swaps against -PCTRMM (Figure 1)"


def run(ctx: Context) -> None:
    from scipy import stats

    mms = [700, 800, 900, 1024, 1200, 1400, 1550] if ctx.full else [700, 1024, 1400]
    duration = None if ctx.full else 300.0
    runs = ctx.simulate([chanson.settings(8, 200, 12, mm, duration_s=duration) for mm in mms])
    for mm, r in zip(mms, runs, strict=True):
        ctx.row(
            "Figure 1", f"MM = {mm} blocks", "-PCTRMM", [-x for x in r.metric("pctrmm")], unit="%"
        )
        ctx.row(
            "Figure 1",
            f"MM = {mm} blocks",
            "time between swaps",
            r.metric("swap_interval_s"),
            unit="s",
        )
    # Per seed: the rank correlation of the interval with -PCTRMM; Figure 1 falls throughout.
    rhos = []
    for k in range(len(ctx.seeds)):
        x = [-r.metric("pctrmm")[k] for r in runs]
        y = [r.metric("swap_interval_s")[k] for r in runs]
        rhos.append(float(stats.spearmanr(x, y).statistic))
    pts = sorted((-r.mean("pctrmm"), r.mean("swap_interval_s")) for r in runs)
    intervals = [p[1] for p in pts]
    ctx.claim(
        "swaps-intensify",
        "Swaps come more often as -PCTRMM grows (rank correlation -1 in Figure 1)",
        effects=rhos,
        kind="difference",
        paper_effect=-1.0,
        evidence="mean intervals by rising -PCTRMM: " + ", ".join(f"{i:.2f} s" for i in intervals),
    )
    if ctx.out is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(5, 3.5))
        ax.plot([p[0] for p in pts], intervals, marker="o")
        ax.set_xlabel("-PCTRMM (%)")
        ax.set_ylabel("real time between swaps (s)")
        ax.grid(alpha=0.3)
        ctx.figure("figure1", fig)
        plt.close(fig)
