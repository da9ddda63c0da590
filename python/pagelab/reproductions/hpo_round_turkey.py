"""Tetzlaff et al. 1987, lesson 8: blocked page-outs alone (the round-turkey prototype: the same
page-out device up to eight times, the moving cursor, unchanged pages written with the wave)
improve on the base.

The paper does not say which paging devices the round-turkey prototype ran on. On the base's
fixed-head 2305s there is no seek to save and blocking does not help (docs/presets/hpo.md), so
both systems here page to six 3350 actuators on the same three channels.
"""

from __future__ import annotations

from .. import system
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
    res = {
        p: system.run(p, overrides=[*DISKS, *extra], seed=ctx.seed)["metrics"]
        for p in ("vmsp", "hpo-round-turkey")
    }
    for row, key, unit in METRICS:
        for preset, m in res.items():
            ctx.row("round turkey", row, preset, round(m[key]["value"], 3), unit=unit)
    base, rt = res["vmsp"], res["hpo-round-turkey"]
    q_base, q_rt = base["q1_seconds"]["value"], rt["q1_seconds"]["value"]
    ctx.claim(
        "blocking-improves",
        "Blocked page-outs alone improve trivial response on the base",
        q_rt < q_base,
        f"Q1 seconds {q_base:.2f} -> {q_rt:.2f}",
    )
    w_base, w_rt = base["users_page_wait_pct"]["value"], rt["users_page_wait_pct"]["value"]
    ctx.claim(
        "page-wait-down",
        "Percent page wait falls with blocked page-outs",
        w_rt < w_base,
        f"page wait {w_base:.1f} % -> {w_rt:.1f} %",
    )
