"""How many entries the guest's TLB held while the replayer ran, measured in the guest.

The replay model reads each touch through the harness's TLB (`linux/tlb.rs`): under TCG,
QEMU's software TLB, a direct-mapped table whose size QEMU changes at whole flushes (its
default 256 entries, at least 64). The replayer's loop makes no whole flush (no CR3 write: it
is the guest's only process; a page's eviction flushes that page alone), so the size it ends
with is the size it ran with. With `probe` the replayer, after its report, reads the first N of
a run of zero-page mappings round and round and prints the time per read for growing N
(`replayer.c`, `probe_tlb`): the time jumps once N passes the TLB's entries.

Each cell of `measure` is replayed as in the validation grid (the same knobs, the cells of a
boot in a shuffled order), so that what ran before a replayer, which sets the size QEMU chose
for it, is what the grid's runs had.
"""

from __future__ import annotations

import math
import random
import re
import statistics
from collections.abc import Sequence
from typing import Any

from ..errors import PagelabError
from . import guest, kernels
from .instrument import CELLS_PER_BOOT, Job, _cell

#: A curve whose slowest read is under this many times its floor never missed (a miss costs
#: 20-100 times a hit under TCG).
NO_JUMP = 5.0


def parse(text: str) -> list[tuple[int, float]]:
    """The probe's (pages read round and round, ns per read) lines of one replay."""
    return [(int(n), float(ns)) for n, ns in re.findall(r"^tlb_probe (\d+) ([0-9.]+)$", text, re.M)]


def entries(curve: list[tuple[int, float]]) -> int:
    """The TLB's entries: the last set before the curve stays slow. QEMU's table is
    direct-mapped, so a set of N consecutive pages over its size misses on at least
    2(N - size)/N of its reads: the curve has two levels, hits near the time per read of the
    sets of 32 pages or fewer, and from the first set past the size at least 40 % of a miss.
    A read is slow above the geometric middle of that floor and the slowest read; a hit slowed
    by the host once (a spike) before the jump does not end the fast part."""
    small = [ns for n, ns in curve if n <= 32]
    if not small:
        raise PagelabError("the TLB probe printed no set of 32 pages or fewer")
    floor, slowest = statistics.median(small), max(ns for _n, ns in curve)
    if slowest < NO_JUMP * floor:
        return curve[-1][0]  # no set missed: the table holds the largest
    middle = math.sqrt(floor * slowest)
    k = len(curve)
    while k > 1 and curve[k - 1][1] > middle:
        k -= 1
    return curve[k - 1][0]


def measure(jobs: Sequence[Job], *, accel: str = "auto", seed: int = 0) -> list[dict[str, Any]]:
    """One boot per kernel and CELLS_PER_BOOT cells, the jobs shuffled by `seed`; per job its
    probe's curve and the entries it shows."""
    order = list(range(len(jobs)))
    random.Random(seed).shuffle(order)
    by_boot: dict[tuple[str, str], list[int]] = {}
    for i in order:
        by_boot.setdefault((jobs[i].knobs.kernel, jobs[i].knobs.swap), []).append(i)
    out: list[dict[str, Any]] = [{} for _ in jobs]
    for (series, swap), idx in by_boot.items():
        k = kernels.kernel(series)
        for b in range(0, len(idx), CELLS_PER_BOOT):
            batch = idx[b : b + CELLS_PER_BOOT]
            cells = [_cell(jobs[i], tlb_probe=True) for i in batch]
            files = {c.name: jobs[i].touches.path for c, i in zip(cells, batch, strict=True)}
            texts, _wall = guest.run(guest.Boot(swap, tuple(cells), accel), k, files)
            for i, text in zip(batch, texts, strict=True):
                # A replayer the kernel killed never reached its probe.
                curve = parse(text)
                found = entries(curve) if curve else None
                out[i] = {"release": k.release, "curve": curve, "entries": found}
    return out
