"""unix-regression's sensitivity studies (all rows `ours`, none adopted): the design again
under CHANSON §3.1's reading of the swapper, with warm file blocks, from the near fits the
calibration kept, from the fit also aimed at section 2.C's swap ratio, and with sched one second
quicker; and the reaction time split by where a reaction was woken."""

from __future__ import annotations

import math
from typing import NamedTuple

from .. import chanson, fitted_preset
from ..reproduce import PER_CENT, Context
from ._chanson_fits import (
    EASY_IO_PRESET,
    PRESET,
    SWAP_RATIO_PRESET,
    _fits,
    _level_mean,
    _replicate,
)


def _swapper_reading(
    ctx: Context,
    design: dict,
    points: list,
    held: list[bool],
    fits: list[dict],
    base_runs: list,
    duration: float | None,
) -> None:
    """The design again on the preset calibrated (training half, same target) under CHANSON
    §3.1's reading of the swapper, beside the code's reading: the equations it yields (role
    `ours`; the record's claims stay on the fitted preset, the one of lower training loss)."""
    runs = ctx.simulate(
        [chanson.settings(*p, duration_s=duration, preset=EASY_IO_PRESET) for p in points]
    )
    alt = [_fits(design, _replicate(points, held, runs, k)) for k in range(len(ctx.seeds))]
    table = "swapper reading (sensitivity)"
    code, his = "V6 code (fitted preset)", "Chanson §3.1 (refitted)"
    for term, paper in chanson.PAPER_OVERALL.items():
        for label, fs in ((code, fits), (his, alt)):
            coef = [f["overall"].coefficients[term] for f in fs]
            ctx.row(table, f"overall equation: {term}", label, coef, paper=paper, role="ours")
    for pc in design["pc"]:
        paper = chanson.PAPER_PER_PC[pc][1]
        for label, fs in ((code, fits), (his, alt)):
            slopes = [f["per_pc"][pc].coefficients["pctrmm"] for f in fs if pc in f["per_pc"]]
            if slopes:
                ctx.row(
                    table, f"PC = {pc} ms: PCTRMM slope", label, slopes, paper=paper, role="ours"
                )
    for label, fs in ((code, fits), (his, alt)):
        ctx.row(
            table, "PCTRMM alone: r²", label, [f["alone"].r2 for f in fs], paper=0.8, role="ours"
        )
        ctx.row(
            table, "hold-out MAE", label, [f["mae"] for f in fs], paper=20, unit="%", role="ours"
        )
    lo = min(design["pc"])
    for metric, what in (
        ("swap_out_io_pct", "swap-outs during the victim's own I/O"),
        ("reaction_swapped_pct", "reactions woken swapped out"),
    ):
        for label, done in ((code, base_runs), (his, runs)):
            per_seed = _level_mean(ctx, points, done, lo, metric)
            ctx.row(table, f"{what}, PC = {lo} ms", label, per_seed, unit="%", role="ours")


#: A prototype file of this many blocks stays mostly in V6's fifteen buffers (sensitivity).
WARM_FILE_BLOCKS = 5
#: PN x PS at which the overall equation's net PC slope is shown (six processes of 200 blocks).
NET_PC_AT = 1200.0


def _net_pc_row(ctx: Context, table: str, label: str, fs: list[dict]) -> None:
    """The overall equation's net PC slope at PN x PS = NET_PC_AT, per seed, beside his."""
    net = [
        f["overall"].coefficients["pc"] + NET_PC_AT * f["overall"].coefficients["pc_pn_ps"]
        for f in fs
    ]
    paper = chanson.PAPER_OVERALL["pc"] + NET_PC_AT * chanson.PAPER_OVERALL["pc_pn_ps"]
    row = f"net PC slope at PN x PS = {NET_PC_AT:g}"
    ctx.row(table, row, label, net, paper=paper, unit="ms/ms", role="ours")


def _training_loss(runs: list[dict]) -> float:
    """The calibration's loss (equal weights) of one replication's training runs."""
    train = [r for r in runs if not r["held_out"]]
    return sum(((r["rt"] - r["paper"]) / r["paper"]) ** 2 for r in train) / len(train)


def _cache_locality(
    ctx: Context,
    design: dict,
    points: list,
    held: list[bool],
    base: tuple[list, list[dict]],
    duration: float | None,
) -> None:
    """The design again with the fitted preset but a prototype file that fits the buffer
    cache (`workload.file_blocks` = WARM_FILE_BLOCKS), or walked block after block with V6's
    read-ahead (`workload.file_access = "sequential"`), nothing refitted: how the PC terms
    depend on the cache, and what the training half says of it (role `ours`). `base`: the
    fitted preset's runs and replications."""
    readings = (
        (f"file of {WARM_FILE_BLOCKS} blocks", [f"workload.file_blocks={WARM_FILE_BLOCKS}"]),
        ("sequential, read ahead", ['workload.file_access="sequential"']),
    )
    runs = ctx.simulate(
        [
            chanson.settings(*p, duration_s=duration, preset=PRESET, extra=extra)
            for _, extra in readings
            for p in points
        ]
    )
    cases = [("fitted preset", base[0], base[1])]
    for k, (label, _) in enumerate(readings):
        done = runs[k * len(points) : (k + 1) * len(points)]
        reps = [_replicate(points, held, done, j) for j in range(len(ctx.seeds))]
        cases.append((label, done, reps))
    table = "buffer-cache locality (sensitivity)"
    for label, done, rs in cases:
        fs = [_fits(design, r) for r in rs]
        for term in ("pctrmm", "pc", "pc_pn_ps"):
            coef = [f["overall"].coefficients[term] for f in fs]
            paper = chanson.PAPER_OVERALL[term]
            ctx.row(table, f"overall equation: {term}", label, coef, paper=paper, role="ours")
        _net_pc_row(ctx, table, label, fs)
        loss = [_training_loss(r) for r in rs]
        ctx.row(table, "training loss (the calibration's)", label, loss, role="ours")
        ctx.row(table, "hold-out MAE", label, [f["mae"] for f in fs], unit="%", role="ours")
        for pc in design["pc"]:
            hit = _level_mean(ctx, points, done, pc, "cache_hit_pct")
            ctx.row(table, f"PC = {pc} ms: cache hits", label, hit, unit="%", role="ours")
            busy = _level_mean(ctx, points, done, pc, "disk_busy_pct")
            ctx.row(table, f"PC = {pc} ms: disk busy", label, busy, unit="%", role="ours")
            fs, sw = (
                _level_mean(ctx, points, done, pc, m) for m in ("fs_access_rate", "swap_rate")
            )
            per_swap = [a / b if b > 0 else math.nan for a, b in zip(fs, sw, strict=True)]
            ctx.row(
                table,
                f"PC = {pc} ms: file-system accesses per swap",
                label,
                per_swap,
                paper=10.0,
                unit="ratio",
                role="ours",
            )


def _provenance() -> dict:
    """The `[provenance]` of the fitted preset."""
    return fitted_preset.provenance(PRESET)


class _Design(NamedTuple):
    """The design a sensitivity runs again: its levels, points, hold-out and run length."""

    design: dict
    points: list
    held: list[bool]
    duration: float | None


def _fit_rows(ctx: Context, table: str, label: str, fs: list[dict], reps: list) -> None:
    """A fit's overall equation, hold-out error and training loss over the seeds (role ours)."""
    for term in ("pctrmm", "pc", "pc_pn_ps"):
        coef = [f["overall"].coefficients[term] for f in fs]
        paper = chanson.PAPER_OVERALL[term]
        ctx.row(table, f"overall equation: {term}", label, coef, paper=paper, role="ours")
    ctx.row(table, "hold-out MAE", label, [f["mae"] for f in fs], paper=20, unit="%", role="ours")
    loss = [_training_loss(r) for r in reps]
    ctx.row(table, "training loss (reaction times, training half)", label, loss, role="ours")


def _near_fits(ctx: Context, d: _Design, base: tuple[list[dict], list, list]) -> None:
    """The design again from each trial the calibration kept beside its best (within its
    `near_ratio` of the best training loss, at each fitted key's extremes: `pagelab calibrate
    --near`): how far the equations and the hold-out error move between fits the training half
    tells apart no better than that (role `ours`). `base`: the fitted preset's fits,
    replications and runs."""
    prov = _provenance()
    near = fitted_preset.near_fits(prov)
    if not near:
        return
    settings = [
        chanson.settings(*p, duration_s=d.duration, preset=PRESET, extra=_near_overrides(f))
        for f in near
        for p in d.points
    ]
    runs = ctx.simulate(settings)
    table = (
        f"The fits the training half leaves open: trials within {prov['near_ratio']:g}x "
        "the adopted loss"
    )
    cases = [("adopted fit", *base)]
    for j, f in enumerate(near):
        done = runs[j * len(d.points) : (j + 1) * len(d.points)]
        reps = [_replicate(d.points, d.held, done, k) for k in range(len(ctx.seeds))]
        label = f"trial {f['trial']} (loss {f['loss']:.3g})"
        cases.append((label, [_fits(d.design, r) for r in reps], reps, done))
    lo = min(d.design["pc"])
    for label, fs, reps, done in cases:
        fs_rate, swaps = (
            _level_mean(ctx, d.points, done, lo, m) for m in ("fs_access_rate", "swap_rate")
        )
        per_swap = [a / b if b > 0 else math.nan for a, b in zip(fs_rate, swaps, strict=True)]
        row = f"PC = {lo} ms: file-system accesses per swap"
        ctx.row(table, row, label, per_swap, paper=10.0, unit="ratio", role="ours")
        _fit_rows(ctx, table, label, fs, reps)


def _swap_ratio_fit(ctx: Context, d: _Design, base: tuple[list[dict], list, list]) -> None:
    """The design again on SWAP_RATIO_PRESET, beside the adopted fit: can the six keys meet
    section 2.C's order of magnitude and the training half at once, and what does such a fit
    predict? Rows `ours`; the claims stay on the adopted fit (the fit was declared exploratory
    before it was run)."""
    runs = ctx.simulate(
        [chanson.settings(*p, duration_s=d.duration, preset=SWAP_RATIO_PRESET) for p in d.points]
    )
    reps = [_replicate(d.points, d.held, runs, k) for k in range(len(ctx.seeds))]
    table = "Aiming at section 2.C's swap ratio too (a fit not adopted)"
    ratio_at = chanson.settings(*chanson.SWAP_RATIO_AT, duration_s=d.duration, preset=PRESET)[1]
    fig1 = ctx.simulate([(PRESET, ratio_at), (SWAP_RATIO_PRESET, ratio_at)])
    cases = (
        ("adopted fit", *base, fig1[0]),
        ("aimed at 10 accesses per swap", [_fits(d.design, r) for r in reps], reps, runs, fig1[1]),
    )
    for label, fs, rs, done, at in cases:
        _fit_rows(ctx, table, label, fs, rs)
        ctx.row(table, "PCTRMM alone: r²", label, [f["alone"].r2 for f in fs], role="ours")
        row = "file-system accesses per swap at Figure 1's setting (PN 8, PS 200, PC 12, MM 1024)"
        ctx.row(table, row, label, at.metric("fs_accesses_per_swap"), paper=10.0, role="ours")
        for pc in d.design["pc"]:
            per = _level_mean(ctx, d.points, done, pc, "fs_accesses_per_swap")
            row = f"PC = {pc} ms: file-system accesses per swap"
            ctx.row(table, row, label, per, paper=10.0, unit="ratio", role="ours")


def _reaction_split(ctx: Context, points: list, runs: list, pc: float) -> list[list[float]]:
    """At PC level `pc`, per seed and weighted by reactions: the share of reactions that began
    swapped out [%], their mean reaction time [ms] and the mean of the others (in core) [ms]."""
    level = [r for p, r in zip(points, runs, strict=True) if p[2] == pc]
    out: list[list[float]] = [[], [], []]
    for k in range(len(ctx.seeds)):
        n = swapped = total = swapped_ms = 0.0
        for r in level:
            count = r.metric("reactions")[k]
            share = r.metric("reaction_swapped_pct")[k] / 100
            n += count
            swapped += count * share
            total += count * r.metric("reaction_time_ms")[k]
            swapped_ms += count * share * r.metric("reaction_swapped_ms")[k]
        out[0].append(100 * swapped / n if n else math.nan)
        out[1].append(swapped_ms / swapped if swapped else math.nan)
        out[2].append((total - swapped_ms) / (n - swapped) if n > swapped else math.nan)
    return out


#: sched's deserving thresholds one second quicker than V6's `n >= 3` and `n >= 2` (and
#: CHANSON's appendix, "more than 2 seconds", "more than 1 second"): a sensitivity.
QUICK_SWAPPER = ["swapper.out_min_s=2", "swapper.in_min_s=1"]


def _swapper_clock(ctx: Context, d: _Design, base: tuple[list[dict], list, list]) -> None:
    """What the PC direction turns on. Reaction time splits into the reactions that begin
    swapped out (they wait for sched) and the others (they wait for the CPU). The design again
    with sched one second quicker (QUICK_SWAPPER), nothing refitted, beside the adopted fit:
    the equations and, per PC level, the split (role `ours`; declared not for adoption before
    it was run: the code and the paper both give the adopted thresholds). `base`: the
    adopted fit's fits, replications and runs."""
    runs = ctx.simulate(
        [
            chanson.settings(*p, duration_s=d.duration, preset=PRESET, extra=QUICK_SWAPPER)
            for p in d.points
        ]
    )
    reps = [_replicate(d.points, d.held, runs, k) for k in range(len(ctx.seeds))]
    table = "What the PC direction turns on: sched's clock (sensitivity)"
    cases = (
        ("adopted fit (out > 2 s, in > 1 s)", *base),
        ("sched 1 s quicker (out > 1 s, in > 0 s)", [_fits(d.design, r) for r in reps], reps, runs),
    )
    for label, fs, rs, done in cases:
        _fit_rows(ctx, table, label, fs, rs)
        _net_pc_row(ctx, table, label, fs)
        for pc in d.design["pc"]:
            share, out_ms, in_ms = _reaction_split(ctx, d.points, done, pc)
            row = f"PC = {pc} ms: reactions woken swapped out"
            ctx.row(table, row, label, share, unit="%", domain=PER_CENT)
            ctx.row(table, f"PC = {pc} ms: their mean reaction time", label, out_ms, unit="ms")
            ctx.row(table, f"PC = {pc} ms: mean reaction time in core", label, in_ms, unit="ms")


def _near_overrides(fit: dict) -> list[str]:
    """A `near_fit` trial's values as overrides."""
    return [f"{k}={v!r}" for k, v in fit["values"].items()]
