"""The kernel's counters of one replay, read from what the guest printed.

Every number is the kernel's own: the replayer's faults during its loop (getrusage: its start
and its report are left out; the cgroup's pgmajfault, which counts them, is kept beside), the
cgroup's memory.stat (which counts the replayer alone),
/proc/vmstat's difference across the replay (swap I/O is counted only there), the cgroup's
memory.pressure and memory.events, and zswap's debugfs counters.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import PagelabError

PAGE = 4096
#: The counters of a record, with their units, in the order they are shown.
COUNTERS = {
    "major_faults": "faults",
    "minor_faults": "faults",
    "cgroup_major_faults": "faults",
    "pswpin": "pages",
    "pswpout": "pages",
    "workingset_refault_anon": "pages",
    "workingset_activate_anon": "pages",
    "workingset_restore_anon": "pages",
    "zswpin": "pages",
    "zswpout": "pages",
    "zswap_stored_pages": "pages",
    "zswap_written_back_pages": "pages",
    "zswap_rejected": "pages",
    "psi_some_us": "us",
    "psi_full_us": "us",
    "psi_some_avg10": "%",
    "psi_some_avg60": "%",
    "psi_some_avg300": "%",
    "psi_full_avg10": "%",
    "psi_full_avg60": "%",
    "psi_full_avg300": "%",
    "replay_seconds": "s",
    "context_switches": "switches",
    "frames": "frames",
    "overhead_pages": "pages",
    "overhead_unstocked_pages": "pages",
    "stock_pages": "pages",
    "replayer_anon_pages": "pages",
    "kernel_pages": "pages",
    "loop_kernel_pages": "pages",
    "oom_killed": "runs",
}


def sections(text: str) -> dict[str, dict[str, str]]:
    """`[name]` headed blocks of `key value` lines."""
    out: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for line in text.splitlines():
        line = line.strip()
        m = re.fullmatch(r"\[([a-z0-9_.]+)\]", line)
        if m:
            current = out.setdefault(m.group(1), {})
        elif current is not None and line:
            key, _, value = line.partition(" ")
            current[key] = value.strip()
    return out


def _int(block: dict[str, str], key: str) -> int:
    try:
        return int(block.get(key, "0"))
    except ValueError:
        return 0


def counters(text: str, memory_max: int, pages: int) -> dict[str, Any]:
    """The record of one replay (see COUNTERS), or a one-line error when the replay failed."""
    s = sections(text)
    replay, stat = s.get("replay", {}), s.get("memory.stat", {})
    events = s.get("memory.events", {})
    killed = bool(_int(events, "oom_kill")) or replay.get("exit_status") not in ("0", None)
    v0, v1 = s.get("vmstat0", {}), s.get("vmstat1", {})
    delta = {k: _int(v1, k) - _int(v0, k) for k in v1}
    zswap = s.get("zswap", {})
    rejected = sum(_int(zswap, k) for k in zswap if k.startswith("reject_"))
    return {
        "major_faults": _int(replay, "loop_majflt"),
        "minor_faults": _int(replay, "loop_minflt"),
        "cgroup_major_faults": _int(stat, "pgmajfault"),
        "pswpin": delta.get("pswpin", 0),
        "pswpout": delta.get("pswpout", 0),
        "workingset_refault_anon": _int(stat, "workingset_refault_anon"),
        "workingset_activate_anon": _int(stat, "workingset_activate_anon"),
        "workingset_restore_anon": _int(stat, "workingset_restore_anon"),
        "zswpin": _int(stat, "zswpin"),
        "zswpout": _int(stat, "zswpout"),
        "zswap_stored_pages": _int(zswap, "stored_pages"),
        "zswap_written_back_pages": _int(zswap, "written_back_pages"),
        "zswap_rejected": rejected,
        "psi_some_us": _psi(s, "some"),
        "psi_full_us": _psi(s, "full"),
        **{
            f"psi_{line}_{avg}": _psi_avg(s, line, avg)
            for line in ("some", "full")
            for avg in ("avg10", "avg60", "avg300")
        },
        "replay_seconds": _int(replay, "replay_ns") / 1e9,
        # The loop's context switches (getrusage's nvcsw + nivcsw): each one re-arms MGLRU's
        # page-table walk for the replayer's mm (`lru_gen_use_mm` in `context_switch`).
        "context_switches": _int(replay, "loop_nvcsw") + _int(replay, "loop_nivcsw"),
        **_frames(replay, memory_max, pages),
        "release": s.get("kernel", {}).get("release", ""),
        "mem_total_kib": _int(s.get("kernel", {}), "mem_total_kib"),
        "oom_killed": int(killed),
        "exit_status": replay.get("exit_status", ""),
    }


def check_killed(record: dict[str, Any], memory_max: int) -> None:
    """A one-line error when the kernel killed the replayer in any run of a record."""
    runs = record.get("runs", [record])
    dead = [r for r in runs if r.get("oom_killed")]
    if dead:
        raise PagelabError(
            f"memory.max {memory_max} is below what the replayer itself needs: the kernel "
            f"killed it in {len(dead)} of {len(runs)} runs (exit {dead[0].get('exit_status')})"
        )


def _psi(s: dict[str, dict[str, str]], line: str) -> int:
    text = s.get("memory.pressure", {}).get(line, "")
    m = re.search(r"total=(\d+)", text)
    return int(m.group(1)) if m else 0


def _psi_avg(s: dict[str, dict[str, str]], line: str, avg: str) -> float:
    """The cgroup's running average `avg` of `line` at the replay's end, in percent
    (kernel/sched/psi.c's avg10/60/300, folded every 2 s)."""
    text = s.get("memory.pressure", {}).get(line, "")
    m = re.search(rf"{avg}=([0-9.]+)", text)
    return float(m.group(1)) if m else 0.0


def _replayer_anon(replay: dict[str, str]) -> int:
    """The replayer's own anonymous memory before its loop [bytes]: its smaps_rollup count,
    or memory.stat's anon where the replayer did not report it."""
    if "before_self_anon_kib" in replay and _int(replay, "before_self_anon_kib") >= 0:
        return _int(replay, "before_self_anon_kib") * 1024
    return max(0, _int(replay, "before_anon"))


def _frames(replay: dict[str, str], memory_max: int, pages: int) -> dict[str, int]:
    """What memory.max leaves the trace's pages, measured in the guest.

    At the end of the replay everything charged to the cgroup that is not one of the trace's
    resident pages (smaps over the mapping) is the overhead: the replayer's own pages, its
    page tables, kernel stack and slab, and memcg's per-CPU charge stock. What is left of
    memory.max is the frames the trace's pages compete for. The stock apart (memory.current
    less what memory.stat's anon, file and kernel account for) is kept too: a model that
    charges in batches itself needs the overhead without it.
    """
    # The charge read together with the resident count, with no reclaim between the two.
    current = _int(replay, "after_settled_current") or _int(replay, "after_memory_current")
    trace_resident = max(0, _int(replay, "region_resident"))
    overhead = max(0, current - trace_resident * PAGE) // PAGE
    # memory.stat's items hold what pages are charged for, not the per-CPU stock charged ahead.
    used = sum(max(0, _int(replay, f"after_{k}")) for k in ("anon", "file", "kernel"))
    unstocked = max(0, used - trace_resident * PAGE) // PAGE
    return {
        # The replayer's own anonymous pages (heap, stack, data) before its first touch: they
        # sit on the cgroup's LRU beside the trace's pages and are never touched in the loop.
        # Counted by the replayer from its own smaps_rollup where it reports it: memory.stat's
        # anon is the flusher's last copy under 6.12 and lags its charges.
        "replayer_anon_pages": _replayer_anon(replay) // PAGE,
        # What memory.stat's kernel item holds at the end (slab, kernel stack, page tables):
        # charged to the cgroup and never reclaimed from it.
        "kernel_pages": max(0, _int(replay, "after_kernel")) // PAGE,
        # The same at the loop's end, before the report's own files charged their objects.
        "loop_kernel_pages": max(0, _int(replay, "loop_end_kernel")) // PAGE,
        "overhead_pages": overhead,
        "frames": memory_max // PAGE - overhead,
        "overhead_unstocked_pages": unstocked,
        "stock_pages": max(0, overhead - unstocked),
    }
