"""Chanson 1982 §3.1: mean reaction time against PC, with the CPU and disk queue waits; the
minimum lies near where the two waits are equal."""

from __future__ import annotations

from .. import chanson
from ..reproduce import Context

NAME = "unix-balance"
PAPER = "Chanson 1982"
TITLE = "Reaction time against PC, and the balance of CPU and disk queue waits (section 3.1)"


def run(ctx: Context) -> None:
    pcs = [6, 12, 25, 50, 100, 186, 250, 354, 500] if ctx.full else [12, 100, 186, 354]
    duration = None if ctx.full else 300.0
    pts = []
    for pc in pcs:
        m = chanson.simulate(8, 200, pc, 1024, seed=ctx.seed, duration_s=duration)
        rt, cpu, disk = m["reaction_time_ms"], m["cpu_wait_ms"], m["disk_queue_wait_ms"]
        for col, v in (("reaction time", rt), ("CPU queue wait", cpu), ("disk queue wait", disk)):
            ctx.row("PC sweep", f"PC = {pc} ms", col, round(v, 1), unit="ms")
        pts.append((pc, rt, cpu, disk))
    best = min(pts, key=lambda p: p[1])
    balanced = min(pts, key=lambda p: abs(p[2] - p[3]))
    i_best, i_bal = pts.index(best), pts.index(balanced)
    ctx.claim(
        "minimum-at-balance",
        "The mean reaction time is least near where CPU and disk queue waits are equal",
        abs(i_best - i_bal) <= 1,
        f"least reaction time at PC = {best[0]} ms; waits closest at PC = {balanced[0]} ms",
    )
