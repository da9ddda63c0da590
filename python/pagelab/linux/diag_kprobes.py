"""Diagnostic kprobes, each set what one question about a traced boot needs, set beside the
lists' (`lru_kprobes`) and the reclaim tracepoints by `python -m pagelab.linux.lru_probe
--with SET,...`. Facts of each series' build: which functions exist and are not inlined, and
where their arguments sit (x86-64: %di, %si, %dx the first three).

- **drains**: each move of a CPU's folio batch onto the lists (mm/swap.c
  `folio_batch_move_lru`): how many folios, and which batch (`lru_add_fn` for `lru_add`).
- **flushes**: each flush of the memcg counters' copies: 6.1's `cgroup_rstat_flush_irqsafe`
  (reclaim's `mem_cgroup_flush_stats`), 6.12's `cgroup_rstat_flush`.
- **refaults**: each refault's shadow entry (mm/workingset.c): 6.1's `workingset_refault`,
  with each `workingset_age_nonresident` (an eviction, or the refault's activation when it
  follows the refault directly); 6.12's `workingset_test_recent` with its answer and each
  counter `lruvec_page_state` returns (6.1 inlines that read).
- **charges**: each charge of the cgroup's page counter and each uncharge, with the caller
  (mm/page_counter.c); in 6.12 also each `try_charge_memcg`, so a charge met from the
  per-CPU stock shows as a `try_charge_memcg` with no counter charge after it (6.1's is
  static and not probed).

A shadow entry packs (mm/workingset.c `pack_shadow`, both series' Debian builds:
`MEM_CGROUP_ID_SHIFT` 16, `NODES_SHIFT` 10, `WORKINGSET_SHIFT` 1) the eviction stamp, the
memcg id, the node and `PG_workingset`, as an xarray value (shifted left one, low bit set);
`shadow` below reads it back.
"""

from __future__ import annotations

import re

from ..errors import PagelabError

_CHARGES = (
    "p:dg_charge page_counter_try_charge nr=%si:u64 caller=$stack0:symbol",
    "p:dg_uncharge page_counter_uncharge nr=%si:u64 caller=$stack0:symbol",
)
#: Per set, per series, the kprobe definitions.
SETS: dict[str, dict[str, tuple[str, ...]]] = {
    "drains": {
        s: ("p:dg_drain folio_batch_move_lru nr=+0(%di):u8 fn=%si:symbol",) for s in ("6.1", "6.12")
    },  # fmt: skip
    "flushes": {
        "6.1": ("p:dg_flush cgroup_rstat_flush_irqsafe",),
        "6.12": ("p:dg_flush cgroup_rstat_flush",),
    },
    "refaults": {
        "6.1": (
            "p:dg_refault workingset_refault shadow=%si:x64",
            "p:dg_age workingset_age_nonresident nr=%si:u64",
        ),
        "6.12": (
            "p:dg_refault workingset_test_recent shadow=%di:x64",
            "r:dg_recent workingset_test_recent yes=$retval:u8",
            "p:dg_read lruvec_page_state item=%si:u32",
            "r:dg_value lruvec_page_state value=$retval:s64",
        ),
    },  # fmt: skip
    "charges": {
        "6.1": _CHARGES,
        "6.12": (*_CHARGES, "p:dg_try try_charge_memcg nr=%dx:u32"),
    },
}
#: The events' names, for the guest's grep (any task: the periodic flusher is a kworker).
NAMES = "dg_[a-z]+"

_LINE = re.compile(r"\s(\d+\.\d+): (dg_[a-z]+|mm_vmscan_memcg_reclaim_(?:begin|end)): (.*)$")


def parse_sets(spec: str) -> tuple[str, ...]:
    """`SET[,SET...]` as a tuple, each one of `SETS`; a one-line error otherwise."""
    got = tuple(s for s in spec.split(",") if s)
    bad = [s for s in got if s not in SETS]
    if bad or not got:
        raise PagelabError(f"--with {spec!r}: expected sets among {', '.join(SETS)}")
    return got


def kprobes(series: str, sets: tuple[str, ...]) -> tuple[str, ...]:
    """The kprobe definitions of `sets` under `series`."""
    return tuple(k for s in sets for k in SETS[s][series])


def shadow(value: int) -> dict[str, int]:
    """A shadow entry's fields: the eviction stamp, the memcg id and `PG_workingset`."""
    v = value >> 1
    return {"eviction": v >> (1 + 10 + 16), "memcg": (v >> 11) & 0xFFFF, "workingset": v & 1}


def timeline(text: str) -> list[str]:
    """The diagnostic events of one cell's output with its reclaims, one compact line each in
    the kernel's order: `reclaim N` at each cgroup reclaim's start (the limit write's own,
    `GFP_KERNEL`, marked), its end with what it freed, and each probe's fields (a shadow entry
    read back by `shadow`)."""
    out, n = [], 0
    for line in text.splitlines():
        m = _LINE.search(line)
        if not m:
            continue
        at, name, rest = m.groups()
        fields = rest.split(") ", 1)[-1] if rest.startswith("(") else rest
        if name.endswith("_begin"):
            n += 1
            tag = " (the limit write's)" if "gfp_flags=GFP_KERNEL " in rest + " " else ""
            out.append(f"{at} reclaim {n}{tag}")
        elif name.endswith("_end"):
            out.append(f"{at} end {n}: {fields}")
        else:
            got = re.search(r"shadow=0x([0-9a-f]+)", fields)
            if got:
                fields = " ".join(f"{k}={v}" for k, v in shadow(int(got.group(1), 16)).items())
            out.append(f"{at} {name.removeprefix('dg_')} {fields}")
    return out
