"""Where the kernel's first cgroup reclaim runs in the replayer's loop, against the replay's.

The replay's overhead (`prediction.layout`) is what the cgroup holds at the loop's end. At the
loop's start it holds more: the report page, and kernel memory that the first reclaim gives
back (docs/readings.md `linux-start-charge`). How much more is measured here as a place in
the loop, never as a count of faults: the written page whose charge ran the first reclaim.

One boot with the vmscan tracepoints and the replayer's user page faults on
(`reclaim_events.guest_on(faults=True)`). The not-present faults are matched to the touch
list as the fault log matches them (`fault_log.match`); the first
`mm_vmscan_memcg_reclaim_begin` of a fault (the limit write's reclaims run with `GFP_KERNEL`,
mm/memcontrol.c `memory_max_write`, and are left out) comes inside the fault before it, so its
touch is that fault's. The pages written by then, that one included, are the cgroup's frames
for the trace's pages at that moment, plus one.
"""

from __future__ import annotations

import bisect
import functools
import re
from typing import Any

from ..errors import PagelabError
from . import fault_log, prediction, reclaim_events
from .knobs import Knobs
from .touches import Touches

_BEGIN = re.compile(r"replayer-\d+ .*mm_vmscan_memcg_reclaim_begin: .*gfp_flags=(\S+)")


@functools.lru_cache(maxsize=16)
def first_writes(touches: Touches) -> tuple[int, ...]:
    """The touch of each page's first write, in order: where the loop charges a new page (a
    read before it maps the zero page, which charges nothing). Kept for the touch lists last
    asked about: each boot asks twice, for the kernel's side and the replay's."""
    seen: set[int] = set()
    out = []
    for i, (page, write) in enumerate(prediction.touch_pairs(touches)):
        if write and page not in seen:
            seen.add(page)
            out.append(i)
    return tuple(out)


def kernel_first(text: str, touches: Touches) -> dict[str, int]:
    """From one cell's output: the touch in which the kernel's first fault reclaim ran, and
    how many pages had been written by then, that touch's included; a one-line error where the
    section is missing or no fault reclaimed."""
    marks: list[int] = []  # faults before each fault reclaim (not the kernel's own)

    def begin(line: str, before: int) -> None:
        b = _BEGIN.search(line)
        if b and b.group(1) != "GFP_KERNEL":
            marks.append(before)

    faults = reclaim_events.user_faults(text, begin)
    mark = marks[0] if marks else None
    if mark is None:
        raise PagelabError("the replayer's loop ran no reclaim: no first reclaim to place")
    got = fault_log.match(faults, fault_log.touch_pages(touches))
    before = [t for i, t in got["positions"] if i < mark]
    if not before:
        raise PagelabError("the first reclaim came before the loop's first fault")
    touch = max(before)
    return {"touch": touch, "written": bisect.bisect_right(first_writes(touches), touch)}


def model_first(knobs: Knobs, touches: Touches) -> int:
    """The written page whose charge runs the replay's first reclaim, by its layout at the
    loop's end (no start pages): the frames less the touch list's page tables charged by then
    (the first before the loop), the page after them."""
    limit, replayer = prediction.layout(knobs, touches.pages)
    room = limit - replayer
    tables = prediction.touch_list_tables(touches.touches)
    for n, at in enumerate(first_writes(touches), start=1):
        if n > room - sum(1 for t in tables if t <= at):
            return n
    raise PagelabError("the replay never reaches its limit on this trace: no first reclaim")


def early_by(text: str, knobs: Knobs, touches: Touches) -> dict[str, Any]:
    """One run: the kernel's first reclaim beside the replay's, and how many written pages
    the kernel's came earlier (negative: later)."""
    k = kernel_first(text, touches)
    m = model_first(knobs, touches)
    return {**k, "model_written": m, "early_by": m - k["written"]}
