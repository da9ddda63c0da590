"""Belady's FIFO anomaly: more frames, more faults (Belady, Nelson & Shedler 1969).

The classic string 1 2 3 4 1 2 5 1 2 3 4 5 faults 9 times under FIFO with three frames and 10
times with four; LRU and MIN, being stack algorithms, never fault more with more frames.
"""

from __future__ import annotations

import math

from .. import lab
from ..reproduce import Context

NAME = "belady-anomaly"
PAPER = "Belady, Nelson & Shedler 1969"
TITLE = "FIFO faults more with four frames than with three on 1 2 3 4 1 2 5 1 2 3 4 5"

STRING = [1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5]
PAPER_FAULTS = {
    ("fifo", 3): 9,
    ("fifo", 4): 10,
    ("lru", 3): 10,
    ("lru", 4): 8,
    ("min", 3): 7,
    ("min", 4): 6,
}


def run(ctx: Context) -> None:
    sizes = list(range(1, 6))
    rows = lab.curve(STRING, ["fifo", "lru", "min"], sizes)
    for r in rows:
        ctx.row(
            "faults",
            f"{r['policy']} {r['frames']} frames",
            "faults",
            r["faults"],
            paper=PAPER_FAULTS.get((r["policy"], r["frames"])),
            unit="faults",
        )
    fifo3 = ctx.value("faults", "fifo 3 frames", "faults")
    fifo4 = ctx.value("faults", "fifo 4 frames", "faults")
    # A fixed string and deterministic policies: no seed enters, each count is exact.
    ctx.claim(
        "fifo-anomaly",
        "FIFO faults more with 4 frames than with 3 (paper: 9 -> 10)",
        effects=[fifo4 - fifo3],
        kind="difference",
        paper_effect=PAPER_FAULTS[("fifo", 4)] - PAPER_FAULTS[("fifo", 3)],
        exact=True,
        evidence=f"FIFO: {fifo3} faults at 3 frames, {fifo4} at 4",
    )
    for policy in ("lru", "min"):
        faults = [ctx.value("faults", f"{policy} {n} frames", "faults") for n in sizes]
        rise = max(b - a for a, b in zip(faults, faults[1:], strict=False))
        ctx.claim(
            f"{policy}-inclusion",
            f"{policy.upper()} never faults more with more frames (largest rise at most 0)",
            effects=[rise],
            kind="difference",
            paper_effect=0.0,
            band=(-math.inf, 0.0),
            exact=True,
            evidence=f"{policy.upper()} faults at 1..5 frames: {faults}",
        )
    if ctx.draws:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(5, 3.5))
        for policy in ("fifo", "lru", "min"):
            pts = [r for r in rows if r["policy"] == policy]
            ax.plot(
                [r["frames"] for r in pts],
                [r["faults"] for r in pts],
                marker="o",
                label=policy.upper(),
            )
        ax.set_xlabel("frames")
        ax.set_ylabel("faults")
        ax.set_title("1 2 3 4 1 2 5 1 2 3 4 5")
        ax.legend()
        ctx.figure("faults", fig)
        plt.close(fig)
