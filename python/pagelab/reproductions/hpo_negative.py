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
"""

from __future__ import annotations

from .. import system
from ..reproduce import Context

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


def run(ctx: Context) -> None:
    extra = [] if ctx.full else SMOKE
    cache: dict[tuple[str, tuple[str, ...]], dict] = {}

    def metrics(preset: str, overrides: list[str]) -> dict:
        key = (preset, tuple(overrides))
        if key not in cache:
            cache[key] = system.run(preset, overrides=[*overrides, *extra], seed=ctx.seed)[
                "metrics"
            ]
        return cache[key]

    res = {}
    for exp, bp, bo, vp, vo in EXPERIMENTS:
        b, v = metrics(bp, bo), metrics(vp, vo)
        res[exp] = (b, v)
        for row, key, unit in METRICS:
            for column, m in (("Base", b), ("Variant", v)):
                ctx.row(exp, row, column, round(m[key]["value"], 4), unit=unit)

    def val(exp: str, key: str) -> tuple[float, float]:
        b, v = res[exp]
        return b[key]["value"], v[key]["value"]

    def up(exp: str, key: str, label: str, text: str, cid: str) -> None:
        b, v = val(exp, key)
        ctx.claim(f"{exp}-{cid}", text, v > b, f"{label} {b:.3g} -> {v:.3g}")

    def down(exp: str, key: str, label: str, text: str, cid: str) -> None:
        b, v = val(exp, key)
        ctx.claim(f"{exp}-{cid}", text, v < b, f"{label} {b:.3g} -> {v:.3g}")

    for exp, what in (
        ("flush-every-drop", "Flushing at every drop"),
        ("lifo-flush", "LIFO flushing"),
    ):
        up(
            exp,
            "total_paging_rate",
            "total paging [pages/s]",
            f"{what} raises the paging load",
            "paging-up",
        )
        up(exp, "q1_seconds", "Q1 seconds", f"{what} makes trivial response worse", "worse")
    exp = "no-reset-at-drop"
    down(
        exp,
        "scan_cycle_s",
        "scan cycle [s]",
        "Without the reset the core scan runs faster",
        "scan-faster",
    )
    up(exp, "steal_rate", "steals [1/s]", "Without the reset more pages are stolen", "steals-up")
    up(
        exp,
        "total_paging_rate",
        "total paging [pages/s]",
        "Without the reset the overall paging rate rises",
        "paging-up",
    )
    up(exp, "q1_seconds", "Q1 seconds", "Without the reset performance is worse", "worse")
    exp = "full-prepage"
    up(
        exp,
        "swap_paging_rate",
        "swap paging [pages/s]",
        "Full prepaging raises the swap rate",
        "swap-up",
    )
    up(exp, "q1_seconds", "Q1 seconds", "Full prepaging performs worse than the prototype", "worse")
    up(
        "right-edge",
        "q1_seconds",
        "Q1 seconds (base on 3350s -> round turkey at the right edge)",
        "Right-edge allocation instead of the moving cursor is worse than the base",
        "worse",
    )
