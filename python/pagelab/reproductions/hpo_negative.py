"""Tetzlaff et al. 1987, the experiments that did not work, each against its base:

* flushing at every queue-drop ("Flushing experiments": an unsustainably high paging load),
* LIFO flushing ("produced the same adverse result"),
* no reference-bit reset at queue-drop ("Reference bit resetting experiments": the core scan
  faster, more steals, a higher overall paging rate, performance worse),
* full prepaging of every swap set at queue-add ("Full prepaging experiment": a very high swap
  rate and poor performance), against the prototype,
* allocation at the right edge of the paging area instead of the moving cursor ("Importance of
  contiguous slot allocation": worse than the base).

The first three change the base (presets/vmsp.toml), the fourth the prototype of Table 2. The
paper does not say on which devices the right-edge experiment ran; on fixed-head 2305s slot
position costs no seek, so it runs, like the hpo-round-turkey reproduction, on six 3350
actuators (base and round turkey alike). Each claim tests the measure the paper names.

All run the production mix (`hpo_fit.PRODUCTION_MIX`: the benchmark's scripts plus 2 % of
long-running users [A]): the paper made the first three on "a real system (with real users)"
and weighs them by what they do to "in-queue noninteractive users".
"""

from __future__ import annotations

from ..reproduce import Context
from .hpo_fit import direction_claims, limit_override, production_fit, q2_limit, runs_note

#: The paper's sentence each claim tests (Tetzlaff et al., "Flushing experiments", "Reference
#: bit resetting experiments", "Full prepaging experiment", "Importance of contiguous slot
#: allocation").
_FLUSH = "In fact, the change caused an unsustainably high paging load."
_LIFO = (
    'Changing the flushing algorithm to "last in first out" (LIFO) produced the same adverse '
    "result."
)
_RESET = (
    "Performance became worse. The core scan rate became much greater, with the core scan time "
    "appropriately reduced. [...] The system was characterized by a higher rate of stealing of "
    "pages from in-queue users."
)
_PREPAGE = "The system showed very high swap rate and poor performance."
QUOTES = {
    "flush-every-drop-paging-up": _FLUSH,
    "flush-every-drop-worse": _FLUSH + " The users demanded an immediate removal of the change.",
    "lifo-flush-paging-up": _LIFO,
    "lifo-flush-worse": _LIFO,
    "no-reset-at-drop-scan-faster": _RESET,
    "no-reset-at-drop-steals-up": _RESET,
    "no-reset-at-drop-paging-up": "The reduction in paging for the interactive users was more "
    "than offset by the increase in paging by the in-queue users.",
    "no-reset-at-drop-worse": _RESET,
    "full-prepage-swap-up": _PREPAGE,
    "full-prepage-worse": _PREPAGE,
    "right-edge-worse": "Performance of the system with this change was worse than that of "
    "the base system.",
}

NAME = "hpo-negative"
PAPER = "Tetzlaff et al. 1987"
TITLE = "The experiments that did not work (flushing, LIFO, no reset, full prepaging, right edge)"

SMOKE = ["run.duration_s=300", "run.warmup_s=60", "monitor.interval_s=30"]
DISKS = [f'device.{i}.model="3350"' for i in range(3)]

#: (experiment, base preset, base overrides, variant preset, variant overrides)
EXPERIMENTS = [
    ("flush-every-drop", "vmsp", [], "vmsp", ["memory.flush_at_drop=true"]),
    ("lifo-flush", "vmsp", [], "vmsp", ["memory.flush_at_drop=true", "memory.lifo_flush=true"]),
    ("no-reset-at-drop", "vmsp", [], "vmsp", ["memory.reset_reference_at_drop=false"]),
    ("full-prepage", "hpo-prototype", [], "hpo-prototype", ["swapping.full_prepage=true"]),
    (
        "right-edge",
        "vmsp",
        DISKS,
        "hpo-round-turkey",
        [*DISKS, 'paging.slot_allocation="right-edge"'],
    ),
]

METRICS = [
    ("Q1 seconds", "q1_seconds", "s"),
    ("Total paging rate", "total_paging_rate", "pages/s"),
    ("Swap paging rate", "swap_paging_rate", "pages/s"),
    ("Steal rate", "steal_rate", "1/s"),
    ("Core scan cycle", "scan_cycle_s", "s"),
    ("Users in page wait", "users_page_wait_pct", "%"),
    ("Page I/O time", "page_io_time_ms", "ms"),
    ("VIO rate", "vio_rate", "1/s"),
]


#: (experiment, metric, label, text, claim id, direction the paper states); none has a number.
CLAIMS = [
    (
        "flush-every-drop",
        "total_paging_rate",
        "total paging [pages/s]",
        "Flushing at every drop raises the paging load",
        "paging-up",
        1,
    ),
    (
        "flush-every-drop",
        "q1_seconds",
        "Q1 seconds",
        "Flushing at every drop makes trivial response worse",
        "worse",
        1,
    ),
    (
        "lifo-flush",
        "total_paging_rate",
        "total paging [pages/s]",
        "LIFO flushing raises the paging load",
        "paging-up",
        1,
    ),
    (
        "lifo-flush",
        "q1_seconds",
        "Q1 seconds",
        "LIFO flushing makes trivial response worse",
        "worse",
        1,
    ),
    (
        "no-reset-at-drop",
        "scan_cycle_s",
        "scan cycle [s]",
        "Without the reset the core scan runs faster",
        "scan-faster",
        -1,
    ),
    (
        "no-reset-at-drop",
        "steal_rate",
        "steals [1/s]",
        "Without the reset more pages are stolen",
        "steals-up",
        1,
    ),
    (
        "no-reset-at-drop",
        "total_paging_rate",
        "total paging [pages/s]",
        "Without the reset the overall paging rate rises",
        "paging-up",
        1,
    ),
    (
        "no-reset-at-drop",
        "q1_seconds",
        "Q1 seconds",
        "Without the reset performance is worse",
        "worse",
        1,
    ),
    (
        "full-prepage",
        "swap_paging_rate",
        "swap paging [pages/s]",
        "Full prepaging raises the swap rate",
        "swap-up",
        1,
    ),
    (
        "full-prepage",
        "q1_seconds",
        "Q1 seconds",
        "Full prepaging performs worse than the prototype",
        "worse",
        1,
    ),
    (
        "right-edge",
        "q1_seconds",
        "Q1 seconds (base on 3350s -> round turkey at the right edge)",
        "Right-edge allocation instead of the moving cursor is worse than the base",
        "worse",
        1,
    ),
]


def run(ctx: Context) -> None:
    extra = production_fit(ctx, SMOKE)
    # The prototype's Q2 limit by the paper's experiment (the runs hpo-table2 makes).
    limit, _ = q2_limit(ctx, "hpo-prototype", extra, "3081", "Q2 limit experiment")
    proto = limit_override(limit)
    settings = []
    for _, bp, bo, vp, vo in EXPERIMENTS:
        lim = proto if bp == "hpo-prototype" else []
        settings += [(bp, [*extra, *lim, *bo]), (vp, [*extra, *lim, *vo])]
    runs = ctx.simulate(settings)
    res = {exp[0]: (runs[2 * i], runs[2 * i + 1]) for i, exp in enumerate(EXPERIMENTS)}
    for exp, (b, v) in res.items():
        for row, key, unit in METRICS:
            for column, r in (("Base", b), ("Variant", v)):
                ctx.row(exp, row, column, r.metric(key), unit=unit)
    direction_claims(ctx, CLAIMS, res, QUOTES)
    runs_note(ctx)
