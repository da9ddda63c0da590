"""Where the replayer's context switches come from: inside a reclaim or outside one.

Each switch makes the kernel write the replayer's rseq area on its return to user space
(`linux/rseq.rs`). The switches inside a fault's reclaim are the vmpressure work's kworker
preempting it (mm/vmpressure.c), which the replay derives from its own reclaims
(`policy/kernel.rs` `Vmpressure`); the rest (RCU, the memory.events notifier, the tick) it takes
at a rate per second, measured here.

One boot with the vmscan tracepoints and `sched_switch` on around the replay
(`reclaim_events.guest_on(switches=True)`): a switch of the replayer between a
`mm_vmscan_memcg_reclaim_begin` and its `_end` is inside that reclaim. The reclaims of the
replayer's write to memory.max, just before its loop, run with `GFP_KERNEL`
(mm/memcontrol.c `memory_max_write`); a fault's run with `GFP_HIGHUSER_MOVABLE` (a page) or
`GFP_KERNEL_ACCOUNT` (a page table). So the loop's switches outside reclaim are its getrusage
switches (the record's `context_switches`) less those inside the faults' reclaims.
"""

from __future__ import annotations

import re

from ..errors import PagelabError
from . import reclaim_events

_BEGIN = re.compile(r"mm_vmscan_memcg_reclaim_begin: .*gfp_flags=(\S+)")
_END = "mm_vmscan_memcg_reclaim_end"
_SWITCH = re.compile(r"sched_switch: prev_comm=replayer ")


def inside_fault_reclaims(text: str) -> dict[str, int]:
    """From one cell's output: the faults' reclaims, how many switched the replayer out, and
    the switches inside them; one line's error if the section is missing."""
    if reclaim_events.SECTION not in text:
        raise PagelabError("the guest printed no reclaim events (tracing unavailable?)")
    reclaims = switched = switches = 0
    inside: bool | None = None  # None: outside a reclaim; False: the limit write's
    seen = 0
    for line in text.split(reclaim_events.SECTION, 1)[1].splitlines():
        m = _BEGIN.search(line)
        if m:
            inside = m.group(1) != "GFP_KERNEL"
            reclaims += inside
            seen = 0
        elif _END in line:
            switched += bool(inside and seen)
            inside = None
        elif _SWITCH.search(line) and inside:
            switches += 1
            seen += 1
    return {"fault_reclaims": reclaims, "switched_reclaims": switched, "switches": switches}


def outside_rate(counters: dict, inside: dict[str, int]) -> float | None:
    """The loop's switches outside its reclaims per second of the loop; None for a run the
    kernel killed or one too short to time."""
    secs = counters.get("replay_seconds") or 0.0
    if counters.get("oom_killed") or secs <= 0:
        return None
    return max(counters["context_switches"] - inside["switches"], 0) / secs
