"""Chanson's sleeps and terminal writes timed apart from the compute loop (§2.D: "each
parameter is driven by a different distribution which is adjustable"), the reading
`unix-sleeps-apart` of docs/readings.md, declared before this was first run.

In the adopted workload a process sleeps and writes to its terminal once per loop with fixed
probabilities, so as PC falls its loops quicken and it sleeps more often a second. Here each
process has a clock of its own for each: exponential gaps whose means are what the adopted
loop gives one process at PC 12 ms at the preset's own operating point, measured first. The
design is run again with them and the regression refitted, nothing else changed (role
`ours`: a sensitivity beside the adopted fit, not a replacement of it).
"""

from __future__ import annotations

import statistics
import tomllib

from .. import chanson
from ..reproduce import PER_CENT, Context
from ..system import presets_dir
from ._chanson_fits import PRESET, _fits, _replicate
from ._unix_sensitivities import _Design, _fit_rows, _net_pc_row, _reaction_split

TABLE = "Sleeps and terminal writes on their own clocks (sensitivity, unix-sleeps-apart)"
#: The PC at which the own clocks keep the adopted loop's event rates [ms] (the reading's).
PC_MS = 12.0


def _event_gaps(ctx: Context, duration: float | None) -> tuple[float, float]:
    """Mean gaps [s] between one process's sleeps and between its terminal writes under the
    adopted loop at PC 12 ms, at the preset's own operating point: processes over (loops a
    second times the event's probability), the median over the seeds."""
    spec = tomllib.loads((presets_dir() / f"{PRESET}.toml").read_text())
    w = spec["workload"]
    overrides = [f"workload.cpu_ms={PC_MS}"]
    if duration is not None:
        overrides.append(f"run.duration_s={duration}")
    (run,) = ctx.simulate([(PRESET, overrides)])
    rate = statistics.median(run.metric("loop_rate")) / w["processes"]
    return 1 / (rate * w["sleep_probability"]), 1 / (rate * w["tty_probability"])


def sleeps_apart(ctx: Context, d: _Design, base: tuple[list[dict], list, list]) -> None:
    """The design on own clocks beside the adopted fit: the equations, the net PC effect and,
    per PC level, the reactions woken swapped out and the swap-outs during a process's own
    block access (the mechanism §3.1 gives for the PC direction). `base`: the adopted fit's
    fits, replications and runs."""
    sleep_s, tty_s = _event_gaps(ctx, d.duration)
    extra = [f"workload.sleep_every_s={sleep_s!r}", f"workload.tty_every_s={tty_s!r}"]
    runs = ctx.simulate(
        [chanson.settings(*p, duration_s=d.duration, preset=PRESET, extra=extra) for p in d.points]
    )
    reps = [_replicate(d.points, d.held, runs, k) for k in range(len(ctx.seeds))]
    ctx.row(TABLE, "mean gap between one process's sleeps", "own clocks", sleep_s, unit="s",
            role="ours")  # fmt: skip
    ctx.row(TABLE, "mean gap between its terminal writes", "own clocks", tty_s, unit="s",
            role="ours")  # fmt: skip
    cases = (
        ("adopted fit (once per loop)", *base),
        ("own clocks", [_fits(d.design, r) for r in reps], reps, runs),
    )
    for label, fs, rs, done in cases:
        _fit_rows(ctx, TABLE, label, fs, rs)
        _net_pc_row(ctx, TABLE, label, fs)
        for pc in d.design["pc"]:
            share = _reaction_split(ctx, d.points, done, pc)[0]
            ctx.row(TABLE, f"PC = {pc} ms: reactions woken swapped out", label, share,
                    unit="%", domain=PER_CENT)  # fmt: skip
            ctx.row(TABLE, f"PC = {pc} ms: swap-outs during the process's own I/O", label,
                    _level_metric(ctx, d.points, done, pc, "swap_out_io_pct"), unit="%",
                    domain=PER_CENT)  # fmt: skip


def _level_metric(ctx: Context, points: list, runs: list, pc: float, name: str) -> list[float]:
    """Per seed, the mean of metric `name` over the runs at PC level `pc`."""
    level = [r for p, r in zip(points, runs, strict=True) if p[2] == pc]
    return [statistics.fmean(r.metric(name)[k] for r in level) for k in range(len(ctx.seeds))]
