"""pagelab's prediction of a kernel run: the same record shape as the instrument's, from models.

Two steps, both stated and neither fitted:
1. **The cgroup's other tenants.** memory.max holds the trace's pages and everything else the
   cgroup is charged for, measured in the guest (`overhead.json`, medians over the validation
   grid's runs) and of two kinds:
   - the kernel's part, never reclaimed from the cgroup: slab, kernel stack and the page tables,
     a constant per kernel plus the trace mapping's own tables, one page per 512 pages (x86-64:
     a page-table page maps 2 MiB). The trace mapping's tables are charged as the loop first
     touches each 2 MiB of it, as the kernel charges them (`mapping_tables`; docs/readings.md
     `linux-mapping-tables-end`, adopted by `linux-adoption-paired`; before the loop with
     `Options.mapping_tables` off). memory.max less this is the model's limit.
     The touch list's own tables are charged as the loop reads into each 2 MiB of it
     (`touch_list_tables`), so they take frames from the replay as it goes.
   - the replayer's own anonymous pages (its heap, stack and data, charged before the loop):
     they sit on the same LRU as the trace's pages and the loop never touches them, so the
     reclaim takes them first. The model starts with them charged and on the LRU, oldest. One
     of them the kernel keeps writing: its rseq area, at each of the replayer's context
     switches (`rseq_writes`: those in a reclaim from the replay's own reclaims, the others
     at a measured rate placed on the fitted guest clock). After them the kernel has its
     report page, the first page of its output file in the guest's tmpfs, mapped by nothing,
     which the first reclaim that reaches it frees (`linux/report.rs`), and kernel memory the
     first reclaim gives back. The replay leaves both out unless `Options.start_charge`
     (docs/readings.md `linux-start-charge`, measured by `start_probe`; not adopted) or, the
     page alone, `Options.report_page` (`linux-report-page`, not adopted).
   memcg's per-CPU charge stock is modelled by the charge itself (`memcg::Charge`).
2. **The model** of the kernel's reclaim (the two-list LRU or MGLRU of that kernel version,
   with its refault tracking, swap readahead and zswap) replays the same touch list under that
   limit and counts what the kernel counts. An access sets the PTE's accessed bit only when the
   guest CPU walks the page table, after a fault or on a TLB miss (x86 clears the bit without a
   TLB flush): the replay runs the harness's TLB, QEMU's under TCG (`TLB`, `linux/tlb.rs`);
   `tlb_entries=None` sets the bit on every reference instead.

One part is fitted, and only to the kernel's replay times, never to its faults: the guest's
clock, one per list (`overhead.json` `clock` for the two lists, `clock_mglru` for MGLRU:
seconds per touch, per major fault and per page written; fitted by
`python -m pagelab.reproductions._linux_grid --fit-clock`). It places the replayer's context
switches (the rseq page, above) and, with `periodic_flush` (the default, `PERIODIC_FLUSH`), the
2-s periodic flusher of the memcg counters the two lists read (6.1 besides its reclaim's
flushes, 6.12 alone); that
flusher runs at a phase no run can know, so the prediction replays at `PHASES` of its period
and reports the run whose major faults are the median of them (docs/policies/linux-replay.md).

**Memory pressure** (`psi`): the cgroup's memory PSI totals, as the time the replay spends
inside a memory stall, timed with the same fitted clock (fitted to replay times, never to PSI).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from .. import _core
from ..errors import PagelabError
from .knobs import Knobs
from .touches import Touches

PAGE = 4096
#: Pages one page-table page maps (x86-64, 4 KiB pages: 512 eight-byte entries).
PTES_PER_PAGE = 512
OVERHEAD_FILE = Path(__file__).with_name("overhead.json")
COMPRESSED_FILE = Path(__file__).with_name("compressed.json")


def overhead(kernel: str) -> dict[str, Any]:
    """The measured constant part of the cgroup's overhead for `kernel` [pages]."""
    data = json.loads(OVERHEAD_FILE.read_text())
    if kernel not in data["kernel_base_pages"]:
        raise PagelabError(f"no overhead measured for Linux {kernel} (pagelab linux overhead)")
    return data


def update_overhead(entries: dict[str, Any], path: Path = OVERHEAD_FILE) -> None:
    """Merge `entries` (measured constants and their `about_` notes) into overhead.json,
    written whole through a temporary file."""
    from .. import _atomic

    data = json.loads(path.read_text())
    data.update(entries)
    _atomic.write_text(path, json.dumps(data, indent=1) + "\n")


def layout(knobs: Knobs, pages: int) -> tuple[int, int]:
    """(the model's limit, the replayer's own pages on the LRU) [pages]; see the module notes."""
    data = overhead(knobs.kernel)
    kernel = data["kernel_base_pages"][knobs.kernel] + math.ceil(pages / PTES_PER_PAGE)
    replayer = data["replayer_anon_pages"][knobs.kernel]
    limit = knobs.memory_max // PAGE - kernel
    if limit <= replayer:
        raise PagelabError(
            f"--memory-max {knobs.memory_max}: below what the replayer itself needs "
            f"({(kernel + replayer + 1) * PAGE >> 10} KiB before any of the trace's pages)"
        )
    return limit, replayer


#: The replayer's pages on the two lists' active list before its loop: its argument page, which
#: exec activates (`get_user_pages_remote` with `FOLL_TOUCH`) and drains onto the list; the
#: kernel's first reclaim finds it there (docs/policies/linux-replay.md).
EXEC_ACTIVE_PAGES = 1

#: Bytes one page-table page maps (x86-64: 512 eight-byte entries of 4 KiB pages).
TABLE_SPAN = PTES_PER_PAGE * PAGE
#: The touch list's header [bytes] (`replayer.c`: "PLTOUCH1", pages, reserved, touches).
TOUCH_HEADER = 24


#: Where the touch list starts in its 2 MiB [pages], as the replay reads it: the middle.
LIST_SLOT = PTES_PER_PAGE // 2
#: How many draws of the layout (and of the flusher's phase) the prediction takes its median
#: over (`Options.draws`; docs/readings.md `linux-aslr-draws`, `linux-fifteen-draws`).
DRAWS = 5
#: The most draws a prediction takes (`--draws`): each is a replay at each TLB size.
MAX_DRAWS = 64


def aslr_slots(n: int) -> tuple[int, ...]:
    """The touch list's starts `Options.aslr_draws` draws: `n` evenly spaced slots of the 512,
    the k-th at (k + 1/2) x 512 / n, rounded half up (docs/readings.md `linux-aslr-draws`)."""
    return tuple(int((2 * k + 1) * PTES_PER_PAGE / (2 * n) + 0.5) for k in range(n))


def phases(n: int) -> tuple[float, ...]:
    """`n` evenly spaced phases of the flusher's period, the k-th at (k + 1/2) / n."""
    return tuple((2 * k + 1) / (2 * n) for k in range(n))


#: The five slots and phases of `DRAWS`' default.
ASLR_SLOTS = aslr_slots(5)


def touch_list_tables(entries: int, slot: int = LIST_SLOT) -> list[int]:
    """Before which of the touch list's entries the replayer's loop charges a page-table page:
    the loop reads the list through a file mapping, and each 2 MiB of it that it enters takes
    a PTE page, charged to the cgroup (`pte_alloc_one`, `GFP_PGTABLE_USER`). The first is
    taken by reading the header, before the loop (entry 0 here). Where the mapping starts in
    its 2 MiB is random (ASLR places mmap at a random page): `slot` pages into it, read as the
    middle, so the second page is taken after 1 MiB of the list, then one each 2 MiB."""
    end = TOUCH_HEADER + 4 * entries
    out = [0]
    edge = (PTES_PER_PAGE - slot) * PAGE
    while edge < end:
        out.append(max(0, (edge - TOUCH_HEADER + 3) // 4))
        edge += TABLE_SPAN
    return out


#: A touch word's write flag (`replayer.c`), and its page bits.
WRITE_BIT = 0x80000000
PAGE_BITS = 0x7FFFFFFF


def touch_words(touches: Touches) -> np.ndarray:
    """The touch list's words (u32: the page, `WRITE_BIT` set for a write)."""
    return np.fromfile(touches.path, dtype="<u4", offset=TOUCH_HEADER)


def touch_pairs(touches: Touches) -> list[tuple[int, bool]]:
    """The touch list as (page, write) pairs."""
    raw = touch_words(touches)
    return list(zip((raw & PAGE_BITS).tolist(), (raw >= WRITE_BIT).tolist(), strict=True))


#: The harness's guest TLB under TCG: each size QEMU gave the replayer's loop, with how often
#: the replayer's probe found it (`reproductions/targets/linux-tlb-probe.json`, made by
#: `python -m pagelab.reproductions._linux_grid --probe-tlb`). The validation grid's cells
#: take the sizes probed on their own trace instead (`_linux_grid.trace_tlb`). Its victims and
#: the touch list read through it are `TlbParams::QEMU_TCG` (linux/tlb.rs).
MEASURED_TLB: tuple[tuple[int, int], ...] = ((256, 92), (512, 93))


@dataclass(frozen=True)
class Loop:
    """Where the replayer's loop charges page-table pages (reference indices, ascending) and
    where it starts: after the replayer's own pages, whose report before the loop reads
    memory.stat and so flushes the counters' copies."""

    charges: list[int]
    replayer: int
    #: The trace mapping's size [pages].
    pages: int


@dataclass(frozen=True)
class Options:
    """How the replay is run: the periodic flusher's reading, reclaim events, the TLB."""

    #: None: the series' reading (`PERIODIC_FLUSH`).
    periodic_flush: bool | None = None
    events: bool = False
    #: The guest TLB's sizes (powers of two), each with its weight: the prediction is the
    #: weighted mean of the replays at each. None: every reference sets the accessed bit.
    tlb: tuple[tuple[int, int], ...] | None = MEASURED_TLB
    #: Each major fault of the trace's pages as `[touch, page]` under `fault_touches`.
    faults: bool = False
    #: The replayer's report page in the guest's tmpfs before the loop (`linux/report.rs`;
    #: docs/readings.md `linux-report-page`, not adopted alone).
    report_page: bool = False
    #: The start's charge: the report page and the kernel pages the first reclaim gives back
    #: (`overhead.json` `start_kernel_pages`; docs/readings.md `linux-start-charge`). None:
    #: `START_CHARGE`.
    start_charge: bool | None = None
    #: The start's charge drawn: each draw of the layout holds one of the measured quantiles of
    #: it (`overhead.json` `start_kernel_draws`; docs/readings.md `linux-start-charge-drawn`),
    #: over `start_charge`. None: `START_DRAWS`.
    start_draws: bool | None = None
    #: The trace mapping's page tables charged at the loop's first touch in each 2 MiB
    #: (`mapping_tables`) rather than before it (docs/readings.md `linux-mapping-tables`).
    #: None: `MAPPING_TABLES`.
    mapping_tables: bool | None = None
    #: The touch list's start in its 2 MiB drawn at `aslr_slots`, with the mapping's tables
    #: charged as taken; the median over the draws (docs/readings.md `linux-aslr-draws`).
    #: None: `ASLR_DRAWS`.
    aslr_draws: bool | None = None
    #: 6.12's second pass of a reclaim that freed nothing (`memcg_full_walk`; docs/readings.md
    #: `linux-6.12-full-walk-retry`). None: `FULL_WALK_RETRY`.
    full_walk_retry: bool | None = None
    #: MGLRU's look-around queues its promotions on the CPU's activate batch (docs/readings.md
    #: `linux-lookaround-batch`). None: `LOOKAROUND_BATCH`.
    lookaround_batch: bool | None = None
    #: A write-protect fault reuses the exclusive page without moving the `lru_add` batch
    #: (docs/readings.md `linux-anon-exclusive-reuse`). None: `ANON_EXCLUSIVE`.
    anon_exclusive: bool | None = None
    #: The reclaim at whose end the start's kernel pages are given back, counted from 1
    #: (docs/readings.md `linux-start-back-measured`). None: the series' and list's measure
    #: (`start_back_at`).
    start_back_at: int | None = None
    #: 6.1's count of counter updates takes the faults that charge nothing and the touch
    #: list's mapping (docs/readings.md `linux-fault-stat-updates`). None: `FAULT_STAT_UPDATES`.
    fault_stat_updates: bool | None = None
    #: The prediction the weighted median over every TLB size's replays, not the weighted mean
    #: of each size's median (docs/readings.md `linux-pooled-median`). None: `POOLED_MEDIAN`.
    pooled_median: bool | None = None
    #: Every draw run at each session's fitted guest clock, the prediction the median over
    #: all (docs/readings.md `linux-clock-sessions`). None: `CLOCK_SESSIONS`.
    clock_sessions: bool | None = None
    #: The kernel's writes to the rseq area walk only when the page was unmapped since the
    #: last (docs/readings.md `linux-rseq-tlb-again`). None: `RSEQ_TLB`.
    rseq_tlb: bool | None = None
    #: How many draws of the layout and the flusher's phase (docs/readings.md
    #: `linux-fifteen-draws`). None: `DRAWS`.
    draws: int | None = None
    #: The limit less the pages the kernel's lists lack at each reclaim beside the replay's
    #: (`lists_offset`; docs/readings.md `linux-lists-at-reclaim`). None: `LISTS_OFFSET`.
    lists_offset: bool | None = None


def lists_offset(knobs: Knobs) -> int:
    """The kernel's lists less the replay's at each reclaim [pages], for the knobs' series and
    list: measured by `python -m pagelab.linux.lru_probe` (the median over the grid's program
    cells of each cell's median, reclaim by reclaim) into `overhead.json`
    `lists_offset_pages`; 0 where it was not measured."""
    got = overhead(knobs.kernel).get("lists_offset_pages", {}).get(knobs.kernel, {})
    return int(got.get("mglru" if knobs.lru_gen else "two_list", 0))


class FirstTouches(NamedTuple):
    """Each page the loop touches, ascending, and the index of its first touch."""

    pages: np.ndarray
    first: np.ndarray


def first_touches(pages: Sequence[int] | np.ndarray) -> FirstTouches:
    """The loop's touched pages with their first touches, found once for every slot drawn."""
    got = np.unique(np.asarray(pages, dtype=np.int64), return_index=True)
    return FirstTouches(*got)


def mapping_tables(
    pages: Sequence[int] | FirstTouches, npages: int, slot: int = LIST_SLOT
) -> list[int]:
    """Before which touches the replayer's loop charges the trace mapping's page-table pages:
    the mapping is anonymous and untouched before the loop, so the first fault in each 2 MiB
    of it allocates that span's PTE page (mm/memory.c `do_anonymous_page` → `pte_alloc` →
    `pte_alloc_one`, `GFP_PGTABLE_USER` with `__GFP_ACCOUNT`), charged to the cgroup. The
    mapping ends where the touch list begins (mapped top-down below it), which
    `touch_list_tables` reads as `slot` pages into its 2 MiB (the middle), so the mapping's
    first page sits `(slot - npages) mod 512` pages into its own. `pages`: the loop's touched
    pages in order, or their `first_touches`."""
    firsts = pages if isinstance(pages, FirstTouches) else first_touches(pages)
    if len(firsts.pages) == 0:
        return []
    spans = (firsts.pages + (slot - npages) % PTES_PER_PAGE) // PTES_PER_PAGE
    # The pages ascend, so each span's pages are a run; its table comes at the run's first touch.
    starts = np.flatnonzero(np.r_[True, spans[1:] != spans[:-1]])
    return sorted(int(i) for i in np.minimum.reduceat(firsts.first, starts))


def loop_layout(
    touches: Touches,
    knobs: Knobs,
    opts: Options,
    pages: Sequence[int] | FirstTouches,
    slot: int = LIST_SLOT,
) -> tuple[int, Loop]:
    """The replay's limit [pages] and its loop (`Loop`) for the trace's touched `pages`, in
    order, with the touch list `slot` pages into its 2 MiB: the kernel pages charged before it
    are the limit's, those charged as it goes are `Loop.charges`."""
    limit, replayer = layout(knobs, touches.pages)
    if _lists_offset(opts):
        limit += lists_offset(knobs)
    # The touch list's tables: the first before the replayer's own pages, the others at their
    # entries, after them.
    tables = touch_list_tables(touches.touches, slot)
    charges = [0] + [replayer + k for k in tables[1:]]
    if _mapping_tables(opts):
        # The mapping's tables as the loop takes them, not before it: the limit gives back as
        # many as it will take, so the loop's end holds what `overhead.json` measured.
        mapped = mapping_tables(pages, touches.pages, slot)
        limit += len(mapped)
        charges = sorted(charges + [replayer + k for k in mapped])
    return limit, Loop(charges, replayer, touches.pages)


def _mapping_tables(opts: Options) -> bool:
    """The mapping's tables charged as taken: asked for, or drawn with the list's start."""
    on = MAPPING_TABLES if opts.mapping_tables is None else opts.mapping_tables
    return on or _aslr_draws(opts)


def _lists_offset(opts: Options) -> bool:
    return LISTS_OFFSET if opts.lists_offset is None else opts.lists_offset


def _aslr_draws(opts: Options) -> bool:
    """The list's start drawn: asked for, else by default unless the mapping's tables are asked
    to be charged before the loop (the layout before both readings)."""
    if opts.aslr_draws is not None:
        return opts.aslr_draws
    return ASLR_DRAWS and opts.mapping_tables is not False


def _draws(opts: Options) -> int:
    if opts.draws is not None and not 1 <= opts.draws <= MAX_DRAWS:
        raise PagelabError(f"--draws {opts.draws}: expected 1 to {MAX_DRAWS}")
    return DRAWS if opts.draws is None else opts.draws


def predict(touches: Touches, knobs: Knobs, opts: Options = Options()) -> dict[str, Any]:
    """The model's counters for one cell, in the instrument's record shape; with
    `opts.events`, each reclaim step under `events` (`pagelab.linux.reclaim_events`) of the
    replay at the TLB's first size."""
    words = touch_words(touches)
    slots = aslr_slots(_draws(opts)) if _aslr_draws(opts) else (LIST_SLOT,)
    touched = first_touches(words & PAGE_BITS)
    draws = [loop_layout(touches, knobs, opts, touched, slot) for slot in slots]
    replayer = draws[0][1].replayer
    frames = layout(knobs, touches.pages)[0]
    if _lists_offset(opts):
        frames += lists_offset(knobs)
    # The replayer's own pages, each written once before the loop, then the loop's touches:
    # packed once as touch words, which each replay reads without the GIL.
    own = (touches.pages + np.arange(replayer, dtype=np.uint32)) | WRITE_BIT
    pairs = np.concatenate([own.astype("<u4"), words]).tobytes()
    sizes = [(None, 1)] if opts.tlb is None else list(opts.tlb)
    if opts.events or opts.faults:
        sizes = sizes[:1]  # the steps of one replay: the TLB's first size
    groups = [(_model(pairs, draws, knobs, opts, n), w) for n, w in sizes]
    pooled = POOLED_MEDIAN if opts.pooled_median is None else opts.pooled_median
    counters = _median_draws(groups, pooled)
    counters["minor_faults"] -= replayer  # the replayer's pages were charged before its loop
    if opts.faults:
        got = [(at - replayer, page) for at, page in counters["fault_touches"]]
        counters["fault_touches"] = [[t, p] for t, p in got if p < touches.pages]
        # The replayer's own pages (its rseq area), at the touch whose fault brought them back.
        counters["own_faults"] = [max(t, 0) for t, p in got if p >= touches.pages]
    counters["frames"] = frames - replayer
    counters["overhead_pages"] = knobs.memory_max // PAGE - counters["frames"]
    counters.update(psi(counters, knobs))
    return {
        **counters,
        "kernel": {"series": knobs.kernel},
        "knobs": knobs.as_dict(),
        "trace": {
            "source": touches.source,
            "sha256": touches.sha256,
            "pages": touches.pages,
            "touches": touches.touches,
            "writes": touches.writes,
        },  # fmt: skip
        "source": "pagelab",
    }


#: Whether the two lists' memcg counters are flushed by the 2-s periodic flusher, by default, per
#: series: 6.12 reads the copies it leaves (docs/readings.md `linux-6.12-copies-again`; without
#: it, the lists themselves); 6.1 has it besides the flushes at each reclaim
#: (`linux-6.1-periodic-flusher`; without it, those flushes only).
PERIODIC_FLUSH = {"6.1": True, "6.12": True}

#: Where in its 2-s period the counters' flusher first runs, as a share of the period: the
#: k-th phase goes with the k-th draw of the layout.
PHASES = phases(5)


def clock(kernel: str, lru_gen: bool = False) -> dict[str, float] | None:
    """The fitted guest clock of `kernel` under one list (seconds per touch, major fault, page
    written): the two lists' (`clock`) or MGLRU's (`clock_mglru`), each fitted to its own runs'
    replay times."""
    fitted = overhead(kernel).get("clock_mglru" if lru_gen else "clock", {}).get(kernel)
    if fitted is None:
        return None
    return {k: fitted[k] for k in CLOCK_LAW}


CLOCK_LAW = ("per_touch_s", "per_major_fault_s", "per_swapout_s")


def session_clocks(kernel: str, lru_gen: bool = False) -> list[dict[str, float]] | None:
    """As `clock`, each session's clock fitted to its own runs (`clock_sessions`,
    `clock_mglru_sessions`), in the reference's order; None where they were not fitted."""
    got = overhead(kernel).get("clock_mglru_sessions" if lru_gen else "clock_sessions", {})
    laws = got.get(kernel)
    return [{k: law[k] for k in CLOCK_LAW} for law in laws] if laws else None


def psi(counters: dict[str, Any], knobs: Knobs) -> dict[str, int | None]:
    """The cgroup's memory PSI totals [us]: the time its task spends in a memory stall
    (kernel/sched/psi.c `TSK_MEMSTALL`, between `psi_memstall_enter` and `_leave`), as the sum
    over the replay's stall events of the fitted guest clock's cost of each:
    - a page the cgroup's reclaim writes to the device, `per_swapout_s`: mm/memcontrol.c
      `try_charge_memcg` runs `try_to_free_mem_cgroup_pages` inside a stall, and brd writes
      in the submitter (memory.max's own reclaim, `memory_max_write`, is outside one);
    - a swap-in of a `PG_workingset` page, `per_major_fault_s`: mm/page_io.c `swap_readpage`
      (6.1) and `swap_read_folio` (6.12) read such a page inside a stall.
    A reclaim that writes nothing, and touches, cost nothing on this clock. `some` is time
    with any task stalled (`PSI_MEM_SOME`), `full` with every running task stalled
    (`PSI_MEM_FULL`); the replayer is the cgroup's one task, so the two are equal. The clock is
    fitted to the kernel's replay times, never to PSI; it has no cost for a zswap store or
    load, so with zswap there is no prediction (None).
    """
    law = clock(knobs.kernel, knobs.lru_gen)
    if law is None or knobs.zswap is not None:
        return {"psi_some_us": None, "psi_full_us": None}
    stall_s = (counters["memstall_swapouts"] * law["per_swapout_s"]
               + counters["memstall_swapins"] * law["per_major_fault_s"])  # fmt: skip
    us = round(stall_s * 1e6)
    return {"psi_some_us": us, "psi_full_us": us}


def _mixed(runs: list[tuple[dict[str, Any], int]]) -> dict[str, Any]:
    """The replays' counters weighted by their TLB sizes' counts: each number the weighted
    mean, rounded where the replays' are whole; anything else as the first replay has it."""
    if len(runs) == 1:
        return runs[0][0]
    total = sum(w for _, w in runs)
    out = dict(runs[0][0])
    for key, value in out.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        mean = sum(r[key] * w for r, w in runs) / total
        out[key] = round(mean) if isinstance(value, int) else mean
    return out


def _pooled_median(groups: list[tuple[list[dict[str, Any]], int]]) -> dict[str, Any]:
    """The replay at the weighted median of major faults over every TLB size's replays, each
    weighted by its size's weight over its size's replays: the first, in order of major faults
    and then of size, at which the cumulative weight reaches half (docs/readings.md
    `linux-pooled-median`), a killed replay above every one that runs. With one size, its
    middle replay."""
    pool = sorted(((r["major_faults"], i, Fraction(w, len(runs)), j, r)
                   for i, (runs, w) in enumerate(groups) for j, r in enumerate(runs)),
                  key=lambda x: (KILLED in x[4], *x[:2], x[3]))  # fmt: skip
    half, acc = sum(x[2] for x in pool) / 2, Fraction(0)
    for _faults, _size, weight, _j, run in pool:
        acc += weight
        if acc >= half:
            return run
    return pool[-1][4]


def _model(
    pairs: bytes | list[tuple[int, bool]],
    draws: list[tuple[int, Loop]],
    knobs: Knobs,
    opts: Options,
    tlb: int | None,
) -> list[dict[str, Any]]:
    """The model's replays with a TLB of `tlb` entries, in order of major faults: each draw of
    the replayer's layout a (limit, loop), or with the periodic flusher each of its phases,
    the k-th phase with the k-th draw (cycling), and with the start's charge drawn, the k-th
    of `start_draws`."""
    flush = PERIODIC_FLUSH[knobs.kernel] if opts.periodic_flush is None else opts.periodic_flush
    flushed = flush and not knobs.lru_gen
    law = clock(knobs.kernel) if flushed else None
    starts = start_draws(knobs) if _start_draws(opts) else None
    cycle = phases(_draws(opts))
    n = len(draws) if law is None else len(cycle)
    n = n if starts is None else max(n, len(starts))
    sessions = CLOCK_SESSIONS if opts.clock_sessions is None else opts.clock_sessions
    # Each session's clocks: the two lists' (the flusher's) and the list's own (the rseq
    # writes'); None, the pooled clocks.
    two, own = session_clocks(knobs.kernel), session_clocks(knobs.kernel, knobs.lru_gen)
    clocks = list(zip(two, own, strict=True)) if sessions and two and own else [(law, None)]
    jobs = []
    for flush_law, rseq_law in clocks:
        for k in range(n):
            limit, loop = draws[k % len(draws)]
            phase = None if not flushed or flush_law is None else {
                **flush_law, "phase_s": 2.0 * cycle[k % len(cycle)]}  # fmt: skip
            start = None if starts is None else starts[k % len(starts)]
            jobs.append((limit, phase, (tlb, loop, start, rseq_law)))
    # Each replay lets go of the GIL, so the draws run side by side; `map` keeps their order.
    with ThreadPoolExecutor(max_workers=min(len(jobs), os.cpu_count() or 1)) as pool:
        runs = list(pool.map(lambda j: _replay(pairs, j[0], knobs, j[1], opts, j[2]), jobs))
    # A killed draw ranks above every draw that runs (docs/readings.md `linux-killed-draws`).
    runs.sort(key=lambda r: (KILLED in r, r["major_faults"]))
    return runs


#: The key of a replay that ended where the kernel would OOM-kill the replayer: its message.
KILLED = "oom_killed_draw"


def _median_draws(groups: list[tuple[list[dict[str, Any]], int]], pooled: bool) -> dict[str, Any]:
    """The prediction's counters from each TLB size's replays and weight: the pooled weighted
    median, or the weighted mean of each size's middle replay. Killed if a middle replay is
    (the same one-line error as the replay's); `killed_draws` counts the replays killed."""
    middles = [runs[len(runs) // 2] for runs, _ in groups]
    chosen = [_pooled_median(groups)] if pooled else middles
    for run in chosen:
        if KILLED in run:
            raise PagelabError(run[KILLED])
    counters = (
        chosen[0] if pooled else _mixed([(m, w) for m, (_, w) in zip(middles, groups, strict=True)])
    )
    return {**counters, "killed_draws": sum(KILLED in r for runs, _ in groups for r in runs)}


#: Which of the replayer's own pages holds its rseq area: glibc's thread control block, which the
#: static binary's start-up allocates on the heap (`__libc_setup_tls`). The model takes the
#: second page it charges; their order before the loop decides nothing the loop does, so long
#: as it is not exec's argument page, the first.
RSEQ_OWN_PAGE = 1


def rseq_writes(
    knobs: Knobs, pages: int, law: dict[str, float] | None = None, through_tlb: bool = False
) -> dict[str, Any] | None:
    """The kernel's writes to the replayer's rseq area (`linux/rseq.rs`) at its context
    switches: those in its faults' reclaims (the vmpressure work's) from the replay's own
    reclaims, the others at the measured median rate per second outside reclaim of the series
    and list (`overhead.json` `switches_per_s`), placed on the replay's time by that list's
    guest clock, fitted to its replay times (`clock`, `clock_mglru`), or `law`; each a walk,
    or with `through_tlb` only the first since the page was mapped. None where either is not
    measured."""
    law = law or clock(knobs.kernel, knobs.lru_gen)
    rates = overhead(knobs.kernel).get("switches_per_s", {}).get(knobs.kernel)
    if law is None or not rates:
        return None
    rate = rates["mglru" if knobs.lru_gen else "two_list"]
    return {"page": pages + RSEQ_OWN_PAGE, "switches_per_s": rate,
            "clock": {**law, "phase_s": 0.0}, "through_tlb": through_tlb}  # fmt: skip


def _replay(
    pairs: bytes | list[tuple[int, bool]],
    frames: int,
    knobs: Knobs,
    law: dict[str, float] | None,
    opts: Options,
    run: tuple[int | None, Loop, int | None, dict[str, float] | None],
) -> dict[str, Any]:
    """One replay: `run` is the TLB's entries, the loop, the start's kernel pages (None:
    `Options.start_charge` decides, with the measured lower median) and the rseq writes'
    clock (None: the pooled one)."""
    tlb_entries, loop, drawn, rseq_law = run
    start = START_CHARGE if opts.start_charge is None else opts.start_charge
    start = start or drawn is not None
    kernel_pages = drawn if drawn is not None else start_kernel_pages(knobs) if start else 0
    zswap = None
    if knobs.zswap is not None:
        compressor, zpool, percent = knobs.zswap.split(":")
        zswap = {
            "total_ram_pages": overhead(knobs.kernel)["guest_ram_pages"][knobs.kernel],
            "compressed_bytes": compressed_bytes(compressor),
            "max_pool_percent": int(percent),
            "zpool": zpool,
        }
    # The touch list lies right after the trace's region (mapped top-down after it), so its
    # pages take the TLB slots of trace pages `pages`, `pages + 1`, ...
    tlb = None if tlb_entries is None else {"entries": tlb_entries, "list_offset": loop.pages}
    try:
        out = _core.linux_replay(
            pairs, frames, kernel=knobs.kernel, lru_gen=knobs.lru_gen,
            page_cluster=knobs.page_cluster, swappiness=knobs.swappiness, zswap=zswap,
            clock=law, reclaim_events=opts.events, tlb=tlb, kernel_charges=loop.charges,
            exec_active_pages=EXEC_ACTIVE_PAGES, stat_read_at=loop.replayer,
            report_page_at=loop.replayer if opts.report_page or start else None,
            start_kernel_pages=kernel_pages,
            rseq=rseq_writes(knobs, loop.pages, rseq_law,
                             RSEQ_TLB if opts.rseq_tlb is None else opts.rseq_tlb),
            fault_touches=opts.faults,
            full_walk_retry=FULL_WALK_RETRY if opts.full_walk_retry is None
            else opts.full_walk_retry,
            lookaround_batch=LOOKAROUND_BATCH if opts.lookaround_batch is None
            else opts.lookaround_batch,
            anon_exclusive=ANON_EXCLUSIVE if opts.anon_exclusive is None
            else opts.anon_exclusive,
            start_back_at=start_back_at(knobs) if opts.start_back_at is None
            else opts.start_back_at,
            fault_stat_updates=FAULT_STAT_UPDATES if opts.fault_stat_updates is None
            else opts.fault_stat_updates,
        )  # fmt: skip
    except _core.OomKilled as e:
        return {KILLED: str(e), "major_faults": 0}
    except (ValueError, OverflowError) as e:
        raise PagelabError(str(e)) from None
    if opts.events or opts.faults:
        out, steps, faults = out
        out = {**out, **({"events": steps} if opts.events else {})}
        out.update({"fault_touches": faults} if opts.faults else {})
    out = dict(out)
    out.pop("references", None)
    return out


#: Whether the replay holds the start's charge by default: no (docs/readings.md
#: `linux-start-charge`, measured and not adopted).
START_CHARGE = False
#: Whether the start's charge is drawn (`Options.start_draws`): no (docs/readings.md
#: `linux-start-charge-drawn`, measured and not adopted).
START_DRAWS = False
#: Which quantile of `start_kernel_draws` the k-th draw takes: a fixed shuffle, so that the
#: charge does not rise with the slot and the phase (`linux-start-charge-drawn`).
START_ORDER = (2, 4, 0, 3, 1)
#: Whether the trace mapping's page tables are charged as the loop takes them
#: (`Options.mapping_tables`): yes, as the kernel charges them (docs/readings.md
#: `linux-mapping-tables-end`, adopted by `linux-adoption-paired`).
MAPPING_TABLES = True
#: Whether the replayer's layout is drawn at `aslr_slots` (`Options.aslr_draws`): yes, the
#: median over the draws, as over the flusher's phases (docs/readings.md `linux-aslr-draws`,
#: adopted by `linux-aslr-draws-paired`).
ASLR_DRAWS = True
#: Whether the limit loses the pages the kernel's lists lack at each reclaim
#: (`Options.lists_offset`).
LISTS_OFFSET = False
#: Whether 6.12's reclaim retries a pass that freed nothing (`Options.full_walk_retry`).
FULL_WALK_RETRY = False
#: Whether MGLRU's look-around queues its promotions on the CPU's activate batch
#: (`Options.lookaround_batch`): yes, as the kernel does (docs/readings.md
#: `linux-lookaround-batch`, adopted by `linux-adoption-paired`'s rules).
LOOKAROUND_BATCH = True
#: Whether a write-protect fault reuses the replayer's exclusive page without moving the CPU's
#: `lru_add` batch (`Options.anon_exclusive`): yes, as `do_wp_page` does (docs/readings.md
#: `linux-anon-exclusive-reuse`, adopted by `linux-adoption-paired`'s rules).
ANON_EXCLUSIVE = True
#: Whether 6.1's count of counter updates takes the faults that charge nothing and the touch
#: list's mapping (`Options.fault_stat_updates`; docs/readings.md `linux-fault-stat-updates`).
FAULT_STAT_UPDATES = False
#: Whether the kernel's writes to the rseq area go through its TLB (`Options.rseq_tlb`).
RSEQ_TLB = False
#: Whether the prediction is the pooled weighted median of the replays (`Options.pooled_median`).
POOLED_MEDIAN = False
#: Whether each draw runs at every session's clock (`Options.clock_sessions`).
CLOCK_SESSIONS = False


def start_kernel_pages(knobs: Knobs) -> int:
    """The kernel pages the cgroup holds at the loop's start beyond its end's, which the first
    reclaim gives back: measured where the kernel's first reclaim runs against the replay's,
    less the report page (`python -m pagelab.reproductions._linux_grid --probe-start`)."""
    return int(overhead(knobs.kernel).get("start_kernel_pages", {}).get(knobs.kernel, 0))


def start_back_at(knobs: Knobs) -> int:
    """The reclaim (from 1) at whose end the start's kernel pages come back, for the knobs'
    series and list: measured where the lists step up (`python -m pagelab.linux.start_back`)
    into `overhead.json` `start_back_at`; 1 where it was not measured."""
    got = overhead(knobs.kernel).get("start_back_at", {}).get(knobs.kernel, {})
    return int(got.get("mglru" if knobs.lru_gen else "two_list", 1))


def start_draws(knobs: Knobs) -> list[int]:
    """The start's kernel pages of each draw: the measured quantiles of where the kernel's first
    reclaim runs against the replay's, less the report page (`overhead.json`
    `start_kernel_draws`, from `python -m pagelab.reproductions._linux_grid --start-draws`), in
    `START_ORDER`."""
    got = overhead(knobs.kernel).get("start_kernel_draws", {}).get(knobs.kernel)
    if not got:
        raise PagelabError(f"--start-draws: no start's charge measured for {knobs.kernel}")
    return [int(got[i]) for i in START_ORDER]


def _start_draws(opts: Options) -> bool:
    return START_DRAWS if opts.start_draws is None else opts.start_draws


def compressed_bytes(compressor: str) -> int:
    """What one of the replayer's pages compresses to [bytes], measured (`compressed.json`)."""
    data = json.loads(COMPRESSED_FILE.read_text())
    if compressor not in data["bytes"]:
        raise PagelabError(f"--zswap: no compressed size measured for {compressor}")
    return int(data["bytes"][compressor])
