"""Chanson 1982 §3.1: mean reaction time against PC, with the CPU and disk queue waits; the
minimum lies near where the two waits are equal."""

from __future__ import annotations

from .. import chanson
from ..reproduce import Context

NAME = "unix-balance"
PAPER = "Chanson 1982"
TITLE = "Reaction time against PC, and the balance of CPU and disk queue waits (section 3.1)"
PRESET = "unix-v6-fitted"


def run(ctx: Context) -> None:
    ctx.use_fit(PRESET)
    pcs = [6, 12, 25, 50, 100, 186, 250, 354, 500] if ctx.full else [12, 100, 186, 354]
    duration = None if ctx.full else 300.0
    runs = ctx.simulate(
        [chanson.settings(8, 200, pc, 1024, duration_s=duration, preset=PRESET) for pc in pcs]
    )
    keys = (
        ("reaction time", "reaction_time_ms"),
        ("CPU queue wait", "cpu_wait_ms"),
        ("disk queue wait", "disk_queue_wait_ms"),
    )
    for pc, r in zip(pcs, runs, strict=True):
        for col, key in keys:
            ctx.row("PC sweep", f"PC = {pc} ms", col, r.metric(key), unit="ms")
    # Per seed: how many steps of the PC sweep lie between the least reaction time and the
    # point where the two waits are closest (the paper: the minimum is at the balance).
    steps, where = [], []
    for k in range(len(ctx.seeds)):
        rt = [r.metric("reaction_time_ms")[k] for r in runs]
        gap = [abs(r.metric("cpu_wait_ms")[k] - r.metric("disk_queue_wait_ms")[k]) for r in runs]
        i_best, i_bal = rt.index(min(rt)), gap.index(min(gap))
        steps.append(float(abs(i_best - i_bal)))
        where.append(f"{pcs[i_best]}/{pcs[i_bal]}")
    ctx.claim(
        "minimum-at-balance",
        "The mean reaction time is least near where CPU and disk queue waits are equal "
        "(within one step of the PC sweep)",
        effects=steps,
        kind="difference",
        paper_effect=0.0,
        band=(0.0, 1.0),
        evidence="PC of the least reaction time / of the closest waits, per seed: "
        + ", ".join(where),
        quote="It was observed that the mean reaction time was always close to the minimal "
        "value when the mean CPU and the disk queue wait times were approximately equal.",
    )
