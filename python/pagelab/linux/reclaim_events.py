"""Reclaim step by step: the kernel's vmscan tracepoints and the replay's own, in one shape.

Counters say how much a reclaim did over a whole replay; where the model and the kernel part,
the order of the steps says why. The guest turns on the tracepoints of a memory cgroup's
reclaim (include/trace/events/vmscan.h) around the replayer and prints the trace buffer;
`pagelab linux predict --reclaim-events` writes the replay's steps in the same shape. One event
a line (JSON):

    {"event": "reclaim_begin"}
    {"event": "shrink_inactive", "priority": 0, "scanned": 28, "reclaimed": 3,
     "activated": 0, "kept": 25}
    {"event": "shrink_active", "priority": 0, "taken": 2, "deactivated": 2}
    {"event": "reclaim_end", "reclaimed": 3}

`kept` is `nr_ref_keep` (young pages put back on the inactive list), `activated`
`nr_activate_anon`. The kernel's `shrink_inactive` events of one reclaim are the chunks of at
most 32 pages of `shrink_lruvec`, as the replay's are.

Kprobes add what no tracepoint tells (`lru_kprobes`), and the replay records the same:

    {"event": "lru_pages", "pages": 30}
    {"event": "generations", "at": "shrink", "priority": 4, "min_seq": 2, "max_seq": 5,
     "sizes": [1, 29, 0, 0]}

`lru_pages`, right after each `reclaim_begin`, is the pages on the lists as the reclaim
begins (the kernel's at its first read of them: the two lists' first isolation, MGLRU's first
`try_to_shrink_lruvec` in 6.12 and first `evict_folios` in 6.1); `generations` (6.12's MGLRU)
each generation's pages at each `try_to_shrink_lruvec` (`shrink`), `evict_folios` (`evict`)
and `try_to_inc_max_seq` (`age`). `linux.lru_probe` sets them beside the replay's.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import PagelabError
from . import diag_kprobes, lru_kprobes

#: The tracepoints turned on (events/vmscan/...).
TRACEPOINTS = (
    "mm_vmscan_memcg_reclaim_begin",
    "mm_vmscan_memcg_reclaim_end",
    "mm_vmscan_lru_shrink_inactive",
    "mm_vmscan_lru_shrink_active",
)
#: The section of a cell's output that holds them.
SECTION = "[reclaim events]"
TRACING = "/sys/kernel/debug/tracing"

#: Tracepoint → (event, {tracepoint field: event field}).
_SHAPE = {
    "memcg_reclaim_begin": ("reclaim_begin", {}),
    "memcg_reclaim_end": ("reclaim_end", {"nr_reclaimed": "reclaimed"}),
    "lru_shrink_inactive": (
        "shrink_inactive",
        {
            "priority": "priority",
            "nr_scanned": "scanned",
            "nr_reclaimed": "reclaimed",
            "nr_activate_anon": "activated",
            "nr_ref_keep": "kept",
        },
    ),  # fmt: skip
    "lru_shrink_active": (
        "shrink_active",
        {"priority": "priority", "nr_taken": "taken", "nr_deactivated": "deactivated"},
    ),
}
_LINE = re.compile(r"mm_vmscan_(\w+): (.*)$")
_USER_FAULT = re.compile(r"page_fault_user: address=0x([0-9a-f]+) .*error_code=0x([0-9a-f]+)")
#: x86-64's 4 KiB pages.
PAGE_SHIFT = 12


#: The kprobes on the accessed bit's tests (`young_probe`): the address tested and its PTE
#: before reclaim clears the bit (x86-64: the address in the second argument's register, the
#: PTE pointer in the third's; arch/x86/mm/pgtable.c).
KPROBES = (
    "p:cfy ptep_clear_flush_young addr=%si pte=+0(%dx):u64",
    "p:tcy ptep_test_and_clear_young addr=%si pte=+0(%dx):u64",
)


def guest_on(
    switches: bool = False, faults: bool = False, young: bool = False, lists: tuple[str, ...] = ()
) -> list[str]:
    """Init-script lines before the replay: a buffer large enough, the tracepoints on (with
    `switches`, also the scheduler's `sched_switch`; with `faults`, the user page faults'
    `exceptions:page_fault_user`; with `young`, those and the kprobes on the accessed bit's
    tests, `KPROBES`; with `lists`, those kprobes on the lists, `lru_kprobes.kprobes`)."""
    enable = " ".join(TRACEPOINTS)
    sched = f"{TRACING}/events/sched/sched_switch/enable"
    fault = f"{TRACING}/events/exceptions/page_fault_user/enable"
    kp = (KPROBES if young else ()) + tuple(lists)
    probes = [f"echo '{k}' >> {TRACING}/kprobe_events || fail kprobe" for k in kp]
    probes.append(f"echo 1 > {TRACING}/events/kprobes/enable || fail kprobes")
    return [
        f"[ -d {TRACING}/events/vmscan ] || fail tracing",
        f"echo 0 > {TRACING}/tracing_on; echo > {TRACING}/trace",
        f"echo 32768 > {TRACING}/buffer_size_kb || fail tracing buffer",
        f"for e in {enable}; do echo 1 > {TRACING}/events/vmscan/$e/enable || fail $e; done",
        *([f"echo 1 > {sched} || fail sched_switch"] if switches else []),
        *([f"echo 1 > {fault} || fail page_fault_user"] if faults or young else []),
        *(probes if kp else []),
        f"echo 1 > {TRACING}/tracing_on",
    ]


def guest_off() -> list[str]:
    """Init-script lines right after the replay."""
    return [f"echo 0 > {TRACING}/tracing_on"]


def guest_dump(
    switches: bool = False,
    faults: bool = False,
    young: bool = False,
    lists: bool = False,
    diag: bool = False,
) -> list[str]:
    """Init-script lines that print the events (the cell's last section); with `switches`,
    the replayer's context switches among them, with `faults` its user page faults, with
    `young` those and its accessed-bit tests, with `lists` its lists' kprobes, with `diag` the
    diagnostic kprobes of any task (`diag_kprobes`)."""
    pattern = "mm_vmscan_" + ("|prev_comm=replayer " if switches else "")
    pattern += "|replayer-[0-9]+ .*page_fault_user" if faults or young else ""
    pattern += "|replayer-[0-9]+ .*(cfy|tcy): " if young else ""
    pattern += f"|replayer-[0-9]+ .*({lru_kprobes.NAMES}): " if lists else ""
    pattern += f"| ({diag_kprobes.NAMES}): " if diag else ""
    return [f"echo '{SECTION}'", f"grep -E '{pattern}' {TRACING}/trace"]


def parse(text: str) -> list[dict[str, Any]]:
    """The events of one cell's output, in order; a one-line error if the section is missing."""
    if SECTION not in text:
        raise PagelabError("the guest printed no reclaim events (tracing unavailable?)")
    out: list[dict[str, Any]] = []
    priority, counted = 12, True
    for line in text.split(SECTION, 1)[1].splitlines():
        got = lru_kprobes.read(line, priority)
        if got is not None:
            pages, gen = got
            if not counted:  # the reclaim's first read of its lists: its lru_pages
                out.append({"event": "lru_pages", "pages": pages})
                counted = True
            if gen:
                out.append(gen)
                priority = gen["priority"]
            continue
        m = _LINE.search(line)
        if not m or m.group(1) not in _SHAPE:
            continue
        event, fields = _SHAPE[m.group(1)]
        counted = counted and event != "reclaim_begin"
        values = dict(kv.split("=", 1) for kv in m.group(2).split() if "=" in kv)
        rec: dict[str, Any] = {"event": event}
        for key, name in fields.items():
            if key in values:
                rec[name] = int(values[key])
        out.append(rec)
    return out


def user_faults(text: str, on_line: Callable[[str, int], None] | None = None) -> list[int]:
    """The replayer's not-present user page faults in a cell's events section (traced with
    `faults`), as page numbers in order; each other line of the section goes to `on_line`
    with the number of faults before it. A one-line error where the section is missing."""
    if SECTION not in text:
        raise PagelabError("the guest printed no reclaim events (tracing unavailable?)")
    faults: list[int] = []
    for line in text.split(SECTION, 1)[1].splitlines():
        m = _USER_FAULT.search(line)
        if m:
            if not int(m.group(2), 16) & 1:  # bit 0 set: a present page (a protection fault)
                faults.append(int(m.group(1), 16) >> PAGE_SHIFT)
        elif on_line is not None:
            on_line(line, len(faults))
    return faults


def write(path: str | os.PathLike[str], events: list[dict[str, Any]]) -> Path:
    """The events as JSON lines, written to a temporary file and renamed into place."""
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    try:
        tmp.write_text("".join(json.dumps(e, sort_keys=False) + "\n" for e in events))
        os.replace(tmp, p)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise PagelabError(f"{p}: cannot write the reclaim events ({e.strerror})") from None
    return p


def summary(events: list[dict[str, Any]]) -> dict[str, int]:
    """Totals over the events: reclaims, pages scanned, reclaimed, kept, activated, deactivated."""
    tot = {"reclaims": 0, "scanned": 0, "reclaimed": 0, "kept": 0, "activated": 0,
           "deactivated": 0}  # fmt: skip
    for e in events:
        if e["event"] == "reclaim_begin":
            tot["reclaims"] += 1
        elif e["event"] == "shrink_inactive":
            for k in ("scanned", "reclaimed", "kept", "activated"):
                tot[k] += e.get(k, 0)
        elif e["event"] == "shrink_active":
            tot["deactivated"] += e.get("deactivated", 0)
    return tot
