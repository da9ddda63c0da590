"""The validation grid of `linux-validation`: real programs' traces, memory limits, kernels, lists.

The traces are data in `linux_traces/`, made by `make_traces` from captures of five real
programs (the commands are in `PROGRAMS`): the first `TOUCHES` data touches of each (instruction
fetches are file-backed code in the real program, never one of the replayer's anonymous pages),
written as a pagelab trace with each touch's kind (a load or a store).

A cell is (program, memory limit, kernel, list) with the knobs default otherwise (swap on brd,
vm.page-cluster 0, swappiness 60, zswap off), plus, on one program, zswap on and page-cluster 3.
Each program's limits are fractions of its written footprint W (the pages it writes: a page
only read maps the zero page and is never charged): memory.max = (overhead + page tables +
f × W) pages for f in `FRACTIONS`, with the overhead what the cgroup holds besides the trace's
pages at the end of a replay (32 pages on 6.1, measured on a loop before the grid ran: the
replayer's own pages still resident, page tables, kernel stack, slab), so that every limit
leaves the trace about f × W frames.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

TRACES = Path(__file__).with_name("linux_traces")
TOUCHES = 200_000
#: Fractions of the written footprint that each limit leaves as frames.
FRACTIONS = (0.3, 0.5, 0.7, 0.85)
KERNELS = ("6.1", "6.12")
#: What the cgroup holds besides the trace [pages] the limits were laid out with (6.1, measured).
LAYOUT_OVERHEAD = 32
#: The program the extra settings (zswap on, page-cluster 3) run on, at these fractions.
EXTRA_PROGRAM = "python"
EXTRA_FRACTIONS = (0.3, 0.7)
#: What was captured (pagelab trace capture -o NAME.pltrace -- COMMAND), with its inputs.
PROGRAMS = {
    "sort": "/usr/bin/sort lines.txt -o /dev/null  (20,000 random 9-digit keys with a word)",
    "gzip": "/usr/bin/gzip -9 -c text.txt  (120,000 words of 3-8 letters, 788 KB)",
    "bzip2": "/usr/bin/bzip2 -9 -c text.txt  (the same text)",
    "sqlite": "/usr/bin/sqlite3 t.db -init /dev/null '.read db.sql'  (8,000 inserts, an index, "
    "two queries)",
    "python": "/usr/bin/python3.11 -S script.py  (a dict of 60,000 random keys, sorted)",
}


#: Synthetic cases (every touch a write) at fixed frames, for the claims: a hot set of 100
#: pages under one-time scans (does the list protect the hot set?), and a loop a little larger
#: than memory (does the list keep part of it?).
SYNTHETIC = {"hotscan": 256, "loop1200": 1000}


def synthetic_touches(name: str) -> list[int]:
    """The synthetic traces' pages in order (seeded: the same list on every machine)."""
    import random

    if name == "loop1200":
        return [p for _ in range(10) for p in range(1200)]
    rng = random.Random(39)
    out, fresh = [], 100
    for _scan in range(10):
        for _ in range(2000):
            out += [rng.randrange(100), fresh]
            fresh += 1
    return out


@dataclass(frozen=True)
class Cell:
    program: str
    fraction: float
    kernel: str
    lru_gen: bool
    zswap: str | None = None
    page_cluster: int = 0

    @property
    def trace(self) -> Path:
        return TRACES / f"{self.program}.pltrace"

    @property
    def setting(self) -> str:
        extra = " zswap" if self.zswap else (f" page-cluster {self.page_cluster}"
                                              if self.page_cluster else "")  # fmt: skip
        return f"{self.kernel} {'MGLRU' if self.lru_gen else 'two-list'}{extra}"


def footprint(program: str) -> tuple[int, int]:
    """(distinct pages, written pages) of a program's trace."""
    from ..linux.prediction import touch_pairs
    from ..linux.touches import prepare

    t = prepare(TRACES / f"{program}.pltrace")
    return t.pages, len({p for p, w in touch_pairs(t) if w})


def memory_max(program: str, fraction: float) -> int:
    if program in SYNTHETIC:
        pages = footprint(program)[0]
        return (LAYOUT_OVERHEAD + math.ceil(pages / 512) + SYNTHETIC[program]) * 4096
    pages, written = footprint(program)
    frames = max(1, round(fraction * written))
    return (LAYOUT_OVERHEAD + math.ceil(pages / 512) + frames) * 4096


def cells() -> Iterator[Cell]:
    for program in PROGRAMS:
        for f in FRACTIONS:
            for k in KERNELS:
                for lru in (False, True):
                    yield Cell(program, f, k, lru)
    for program in SYNTHETIC:
        for k in KERNELS:
            for lru in (False, True):
                yield Cell(program, 1.0, k, lru)
    for f in EXTRA_FRACTIONS:
        for k in KERNELS:
            for lru in (False, True):
                yield Cell(EXTRA_PROGRAM, f, k, lru, zswap="on")
                yield Cell(EXTRA_PROGRAM, f, k, lru, page_cluster=3)


def make_traces(captures: Path) -> None:
    """Writes linux_traces/NAME.pltrace from captures/NAME.pltrace (see the module notes)."""
    import tempfile

    from .. import _core, traces

    TRACES.mkdir(exist_ok=True)
    for name in PROGRAMS:
        with tempfile.TemporaryDirectory() as tmp:
            touch = Path(tmp) / "t.touch"
            _core.trace_touches(str(captures / f"{name}.pltrace"), str(touch), False, False,
                                TOUCHES)  # fmt: skip
            raw = np.fromfile(touch, dtype="<u4", offset=24)
            text = Path(tmp) / "t.txt"
            kinds = np.where(raw >> 31, "W", "R")
            lines = [f"{p} {k}" for p, k in zip((raw & 0x7FFFFFFF).tolist(), kinds, strict=True)]
            text.write_text("\n".join(lines) + "\n")
            traces.convert(text, TRACES / f"{name}.pltrace", from_="text", units="pages")
    for name in SYNTHETIC:
        with tempfile.TemporaryDirectory() as tmp:
            text = Path(tmp) / "t.txt"
            text.write_text("".join(f"{p} W\n" for p in synthetic_touches(name)))
            traces.convert(text, TRACES / f"{name}.pltrace", from_="text", units="pages")


REFERENCE = Path(__file__).parent / "targets" / "linux-validation-kernel.json"


def jobs_for(chosen: list[Cell]) -> list:
    from ..linux import instrument, knobs
    from ..linux.touches import prepare

    return [
        instrument.Job(
            prepare(c.trace),
            knobs.knobs(
                c.kernel,
                memory_max(c.program, c.fraction),
                c.lru_gen,
                page_cluster=c.page_cluster,
                zswap=c.zswap,
            ),  # fmt: skip
        )
        for c in chosen
    ]


def measure(repeats: int = 5, kernels: tuple[str, ...] = KERNELS, **kw) -> list[dict]:
    """Runs the grid's cells of `kernels` on the real kernels (cached runs are read back)."""
    from ..linux import instrument

    chosen = [c for c in cells() if c.kernel in kernels]
    records = instrument.measure(jobs_for(chosen), repeats=repeats, **kw)
    return [{"cell": c.__dict__, **r} for c, r in zip(chosen, records, strict=True)]


def write_reference(repeats: int = 5, **kw) -> Path:
    """Writes the kernel's side of the grid (every run, medians and ranges) as data."""
    import json

    from .. import _atomic

    records = measure(repeats, **kw)
    keep = ("major_faults", "pswpin", "pswpout", "workingset_refault_anon",
            "workingset_activate_anon", "workingset_restore_anon", "zswpout", "zswpin",
            "zswap_rejected", "psi_some_us", "psi_full_us", "frames", "overhead_pages",
            "replay_seconds", "cgroup_major_faults")  # fmt: skip
    out = {
        "about": "Linux's own counters for the linux-validation grid: each cell replayed "
        f"{repeats} times on Debian's kernels under QEMU by `pagelab linux` (see _linux_grid.py); "
        "made by `python -m pagelab.reproductions._linux_grid`.",
        "repeats": repeats,
        "cells": [
            {
                "cell": r["cell"],
                "release": r["kernel"]["release"],
                "memory_max": r["knobs"]["memory_max"],
                "median": {k: r[k] for k in keep},
                "range": {k: r["range"][k] for k in keep},
                "runs": {k: [run[k] for run in r["runs"]] for k in keep},
            }
            for r in records
        ],
    }
    _atomic.write_text(REFERENCE, json.dumps(out, indent=1) + "\n")
    write_overhead(out)
    return REFERENCE


def write_overhead(reference: dict) -> None:
    """overhead.json from the reference's runs: per series, the median over every run of the
    charge besides the trace's pages less their page tables, and the guest's RAM."""
    import json
    import statistics

    from .. import _atomic
    from ..linux import prediction as predict

    base: dict[str, list[float]] = {}
    for c in reference["cells"]:
        pages = footprint(c["cell"]["program"])[0]
        tables = math.ceil(pages / 512)
        base.setdefault(c["cell"]["kernel"], []).extend(
            o - tables for o in c["runs"]["overhead_pages"]
        )
    data = json.loads(predict.OVERHEAD_FILE.read_text())
    data["base_pages"] = {k: round(statistics.median(v)) for k, v in sorted(base.items())}
    data["runs"] = {k: len(v) for k, v in sorted(base.items())}
    _atomic.write_text(predict.OVERHEAD_FILE, json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    import sys

    from .. import progress

    args = sys.argv[1:]
    only = tuple(a for a in args if a in KERNELS) or KERNELS
    with progress.bar("kernel runs") as update:
        if "--measure-only" in args:
            measure(5, kernels=only, progress=lambda d, t: update(d, t))
        else:
            print(write_reference(5, progress=lambda d, t: update(d, t)))
