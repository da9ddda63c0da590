"""Tetzlaff et al. 1987, lesson 8: blocked page-outs alone (the round-turkey prototype: the same
page-out device up to eight times, the moving cursor, unchanged pages written with the wave)
improve on the base.

The paper does not say which paging devices the round-turkey prototype ran on. On the base's
fixed-head 2305s there is no seek to save and blocking does not help (docs/presets/hpo.md), so
both systems here page to six 3350 actuators on the same three channels.
"""

from __future__ import annotations

from ..reproduce import Context

NAME = "hpo-round-turkey"
PAPER = "Tetzlaff et al. 1987"
TITLE = "Blocked page-outs alone improve on the base (lesson 8), on six 3350 actuators"

DISKS = [f'device.{i}.model="3350"' for i in range(3)]
METRICS = [
    ("Q1 seconds", "q1_seconds", "s"),
    ("Percent page wait (users in page wait)", "users_page_wait_pct", "%"),
    ("Paging SIO rate", "paging_sio_rate", "1/s"),
    ("Pages per page-out group", "pages_per_write_group", "pages"),
    ("Page I/O time", "page_io_time_ms", "ms"),
    ("VIO rate", "vio_rate", "1/s"),
]


def run(ctx: Context) -> None:
    extra = [] if ctx.full else ["run.duration_s=900", "run.warmup_s=120"]
    presets = ("vmsp", "hpo-round-turkey")
    res = dict(zip(presets, ctx.simulate([(p, [*DISKS, *extra]) for p in presets]), strict=True))
    for row, key, unit in METRICS:
        for preset, r in res.items():
            ctx.row("round turkey", row, preset, r.metric(key), unit=unit)
    base, rt = res["vmsp"], res["hpo-round-turkey"]
    for cid, text, key, label in (
        (
            "blocking-improves",
            "Blocked page-outs alone improve trivial response on the base",
            "q1_seconds",
            "Q1 seconds",
        ),
        (
            "page-wait-down",
            "Percent page wait falls with blocked page-outs",
            "users_page_wait_pct",
            "users in page wait [%]",
        ),
    ):
        ctx.claim(
            cid,
            text,
            base=base.metric(key),
            treatment=rt.metric(key),
            direction=-1,
            evidence=f"{label} {base.mean(key):.3g} -> {rt.mean(key):.3g}; "
            "the paper (lesson 8) gives no number",
        )
