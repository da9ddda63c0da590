"""Kprobes that read the memory cgroup's lists where reclaim reads them, and their lines read
back as reclaim events (`reclaim_events.parse`).

No tracepoint tells how many pages are on the lists, so the probes read the kernel's own
counts from its structures, at byte offsets of Debian's x86-64 builds (include/linux/mmzone.h,
include/linux/memcontrol.h); each run checks its offsets where it can (`read`):

- **The two lists** (both series): `mem_cgroup_per_node.lru_zone_size[MAX_NR_ZONES]
  [NR_LRU_LISTS]`, the exact count memcg keeps under the LRU lock, read at `isolate_lru_folios`
  (mm/vmscan.c; its lruvec is the second argument), which runs after the reclaim's
  `lru_add_drain`. It lies after the node's lruvec: in 6.12 a lruvec of 1,568 bytes and the
  cacheline padding (1,600 bytes on); in 6.1 a lruvec of 1,592 bytes, the per-CPU stats'
  pointer and `lruvec_stats` (two arrays of the 43 node stat items: 2,288 bytes on). The DMA
  zone's lists must read 0 (the guest's 512 MiB lie in DMA32).
- **MGLRU** (`lrugen.nr_pages[MAX_NR_GENS][ANON_AND_FILE][MAX_NR_ZONES]`, which MGLRU keeps
  in place of lru_zone_size): in 6.12 with BTF arguments (`CONFIG_PROBE_EVENTS_BTF_ARGS`) at
  each `try_to_shrink_lruvec`, `evict_folios` and `try_to_inc_max_seq`, max_seq read both by
  BTF and by offset (they must agree); in 6.1, whose build has no BTF arguments, at each
  `evict_folios` by offset alone.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import PagelabError

#: `lrugen` in `struct lruvec` (after five list heads, the lock padded to 8, anon_cost,
#: file_cost, nonresident_age, refaults[2] and flags; the same in 6.1 and 6.12) [bytes].
LRUGEN = 136
#: `lrugen.nr_pages`, after max_seq, min_seq[2], timestamps[4] and the lists[4][2][5] (DMA,
#: DMA32, NORMAL, MOVABLE, DEVICE) [bytes from the lruvec].
NR_PAGES = LRUGEN + 8 * 7 + 16 * 4 * 2 * 5
#: The zones read (the guest's memory lies in DMA and DMA32; NORMAL read to be sure).
ZONES = 3
#: `lru_zone_size` [bytes from the lruvec], per series (the module notes).
LRU_ZONE_SIZE = {"6.1": 2288, "6.12": 1600}
#: The probes' names, for the guest's grep.
NAMES = "mglru_shrink|mglru_evict|mglru_age|mglru_lists|lru_lists"

_GEN = re.compile(r" (mglru_shrink|mglru_evict|mglru_age|mglru_lists): \(\S+\) (.*)$")
_LISTS = re.compile(r" lru_lists: \(\S+\) (.*)$")


def _gens(reg: str) -> str:
    """Fetch args: max_seq and min_seq[0] by offset, each generation's anonymous pages per zone,
    from the lruvec in register `reg`."""
    args = [f"mx=+{LRUGEN}({reg}):u64", f"mn=+{LRUGEN + 8}({reg}):u64"]
    for g in range(4):
        args += [f"n{g}{z}=+{NR_PAGES + ((g * 2) * 5 + z) * 8}({reg}):s64" for z in range(ZONES)]
    return " ".join(args)


def kprobes(series: str, lru_gen: bool) -> tuple[str, ...]:
    """The kprobes that read the lists under `series` and that list."""
    if lru_gen and series == "6.12":
        args = f"max=lruvec->lrugen.max_seq {_gens('%di')}"
        return (f"p:mglru_shrink try_to_shrink_lruvec prio=sc->priority {args}",
                f"p:mglru_evict evict_folios prio=sc->priority {args}",
                f"p:mglru_age try_to_inc_max_seq {args}")  # fmt: skip
    if lru_gen:
        return (f"p:mglru_lists evict_folios {_gens('%di')}",)
    base = LRU_ZONE_SIZE[series]
    fields = (("d0", 0, 0), ("d1", 0, 1), ("ia", 1, 0), ("aa", 1, 1))
    args = " ".join(f"{n}=+{base + (z * 5 + lru) * 8}(%si):u64" for n, z, lru in fields)
    return (f"p:lru_lists isolate_lru_folios {args}",)


def read(line: str, priority: int) -> tuple[int, dict[str, Any] | None] | None:
    """One trace line: None if no list probe printed it, else (the pages on the lists, the
    `generations` event or None). `try_to_inc_max_seq` has no scan_control: its priority is
    `priority`, the last shrink's."""
    m = _LISTS.search(line)
    if m:
        v = _values(m.group(1))
        if v["d0"] or v["d1"]:
            raise PagelabError(
                f"the two lists' offsets do not fit this kernel (DMA holds {v['d0']}, {v['d1']})"
            )
        return v["ia"] + v["aa"], None
    m = _GEN.search(line)
    if not m:
        return None
    v = _values(m.group(2))
    if "max" in v and v["max"] != v["mx"]:
        raise PagelabError(f"the generations' offsets do not fit this kernel (max_seq "
                           f"{v['max']} by BTF, {v['mx']} at byte {LRUGEN})")  # fmt: skip
    lo, hi = v["mn"], v["mx"]
    size = [sum(v[f"n{g}{z}"] for z in range(ZONES)) for g in range(4)]
    if not 0 <= hi - lo < 4 or min(size) < 0:
        raise PagelabError(f"the generations' offsets do not fit this kernel (min_seq {lo}, "
                           f"max_seq {hi}, sizes {size})")  # fmt: skip
    sizes = [size[s % 4] for s in range(lo, hi + 1)]
    if m.group(1) == "mglru_lists":
        return sum(sizes), None
    return sum(sizes), {"event": "generations", "at": m.group(1).split("_")[1],
                        "priority": v.get("prio", priority), "min_seq": lo, "max_seq": hi,
                        "sizes": sizes}  # fmt: skip


def _values(fields: str) -> dict[str, int]:
    return {k: int(x) for k, x in (kv.split("=", 1) for kv in fields.split() if "=" in kv)}
