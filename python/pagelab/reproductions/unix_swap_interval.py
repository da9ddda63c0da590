"""Chanson 1982, Figure 1: real time between successive swaps against -PCTRMM."""

from __future__ import annotations

from .. import chanson
from ..reproduce import Context

NAME = "unix-swap-interval"
PAPER = "Chanson 1982"
TITLE = "Real time between successive swaps against -PCTRMM (Figure 1)"


def run(ctx: Context) -> None:
    mms = [700, 800, 900, 1024, 1200, 1400, 1550] if ctx.full else [700, 1024, 1400]
    duration = None if ctx.full else 300.0
    pts = []
    for mm in mms:
        m = chanson.simulate(8, 200, 12, mm, seed=ctx.seed, duration_s=duration)
        ctx.row("Figure 1", f"MM = {mm} blocks", "-PCTRMM", round(-m["pctrmm"], 1), unit="%")
        ctx.row(
            "Figure 1",
            f"MM = {mm} blocks",
            "time between swaps",
            round(m["swap_interval_s"], 3),
            unit="s",
        )
        pts.append((-m["pctrmm"], m["swap_interval_s"]))
    pts.sort()
    intervals = [p[1] for p in pts]
    ctx.claim(
        "swaps-intensify",
        "Swaps come more often as -PCTRMM grows",
        intervals == sorted(intervals, reverse=True),
        "intervals by rising -PCTRMM: " + ", ".join(f"{i:.2f} s" for i in intervals),
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
