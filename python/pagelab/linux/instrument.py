"""The kernel as an instrument: replays of traces under chosen knobs, repeated, cached.

Each (trace, knobs, repeat) is one run, stored in a result store (`pagelab.sweep.store`) under
the hash of everything that determines it: the touch list's content, the knobs, the kernel's
exact release, the replayer's source and the repeat's index. A boot replays several runs of one
kernel and swap device, in an order shuffled per repeat (runs of a cell are not back to back),
each in a fresh cgroup on an emptied swap device. A cached run is never booted again; an
interrupted measurement resumes where it stopped.

The kernel is not deterministic (reclaim races the replayer, timers differ between boots): the
record of a cell gives every run, the median of each counter and its min-max range.
"""

from __future__ import annotations

import hashlib
import json
import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from .. import __version__
from ..sweep.store import Store
from . import guest, kernels, reclaim_events, record
from .knobs import Knobs
from .touches import Touches

#: Runs per boot: enough to pay for the boot, few enough that a lost boot costs little.
CELLS_PER_BOOT = 16
#: Bumped when what a run measures changes, so that older cached runs are not reused.
HARNESS = 5


@dataclass(frozen=True)
class Job:
    touches: Touches
    knobs: Knobs


def default_store() -> Path:
    return kernels.cache_root() / "store"


def _key(job: Job, release: str, repeat: int) -> str:
    ident = {
        "harness": HARNESS,
        "touches": job.touches.sha256,
        "knobs": job.knobs.as_dict(),
        "release": release,
        "replayer": hashlib.sha256(
            Path(guest.__file__).with_name("replayer.c").read_bytes()
        ).hexdigest(),
        "repeat": repeat,
    }
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()


def measure(
    jobs: Sequence[Job],
    *,
    repeats: int = 5,
    first: int = 0,
    accel: str = "auto",
    store: str | Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """One record per job (see `summarise`) over its runs `first` to `repeats` - 1, in the
    jobs' order."""
    from .. import extras

    extras.need("parquet", "pagelab linux run's result store")
    st = Store(store or default_store())
    present = st.check()
    keys: dict[tuple[int, int], str] = {}
    todo: list[tuple[kernels.Kernel, str, list[tuple[int, int]]]] = []
    for (series, swap), idx in machines(jobs).items():
        k = kernels.kernel(series)
        for r in range(first, repeats):
            missing = []
            for i in idx:
                keys[(i, r)] = _key(jobs[i], k.release, r)
                if keys[(i, r)] not in present:
                    missing.append((i, r))
            todo += [(k, swap, batch) for batch in boots(missing, r)]
    total, done = sum(len(t[2]) for t in todo), 0
    for k, swap, batch in todo:
        _boot(st, k, swap, [(jobs[i], r, keys[(i, r)]) for i, r in batch], accel)
        done += len(batch)
        if progress:
            progress(done, total)
    return [
        summarise(jobs[i], st.read([keys[(i, r)] for r in range(first, repeats)]))
        for i in range(len(jobs))
    ]


T = TypeVar("T")


def machines(jobs: Sequence[Job]) -> dict[tuple[str, str], list[int]]:
    """The jobs' indices by the machine that runs them: (kernel series, swap device)."""
    out: dict[tuple[str, str], list[int]] = {}
    for i, job in enumerate(jobs):
        out.setdefault((job.knobs.kernel, job.knobs.swap), []).append(i)
    return out


def boots(items: list[T], repeat: int) -> list[list[T]]:
    """`items` in repeat `repeat`'s shuffled order, CELLS_PER_BOOT a boot: how the runs of one
    repeat are booted."""
    order = list(items)
    random.Random(repeat).shuffle(order)
    return [order[b : b + CELLS_PER_BOOT] for b in range(0, len(order), CELLS_PER_BOOT)]


def _cell(job: Job, reclaim_events: bool = False, tlb_probe: bool = False) -> guest.Cell:
    # One file per distinct touch list: the cells that replay it share it.
    kn = job.knobs
    return guest.Cell(
        f"touches-{job.touches.sha256[:16]}", job.touches.pages, kn.memory_max, kn.lru_gen,
        kn.page_cluster, kn.swappiness, kn.zswap, reclaim_events, tlb_probe,
    )  # fmt: skip


def traced(job: Job, *, accel: str = "auto") -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One boot of `job` with the kernel's reclaim tracepoints on, never cached (the trace
    buffer is not a counter): the record of that run and the kernel's reclaim events in order
    (`pagelab.linux.reclaim_events`)."""
    text, wall = traced_text(job, accel=accel)
    counters = record.counters(text, job.knobs.memory_max, job.touches.pages)
    counters["boot_seconds"] = wall
    return summarise_runs(job, [counters]), reclaim_events.parse(text)


def traced_text(
    job: Job, probes: tuple[str, ...] = (), *, accel: str = "auto"
) -> tuple[str, float]:
    """One boot of `job` with the reclaim tracepoints, the lists' kprobes and the diagnostic
    kprobe sets `probes` (`diag_kprobes`) on: the cell's output and the boot's wall time [s]."""
    k = kernels.kernel(job.knobs.kernel)
    # The lists at each reclaim, and 6.12's MGLRU generations at each step (lru_kprobes).
    cell = replace(_cell(job, reclaim_events=True), lists=job.knobs.kernel, probes=probes)
    texts, wall = guest.run(guest.Boot(job.knobs.swap, (cell,), accel), k,
                            {cell.name: job.touches.path})  # fmt: skip
    return texts[0], wall


def _boot(st: Store, k: kernels.Kernel, swap: str, runs: list, accel: str) -> None:
    cells = [_cell(job) for job, _r, _key in runs]
    files = {c.name: job.touches.path for c, (job, _r, _key) in zip(cells, runs, strict=True)}
    texts, wall = guest.run(guest.Boot(swap, tuple(cells), accel), k, files)
    for (job, r, key), text in zip(runs, texts, strict=True):
        counters = record.counters(text, job.knobs.memory_max, job.touches.pages)
        counters["boot_seconds"] = wall
        row = {"key": key, "spec": "linux", "seed": r}
        row.update({f"knob.{n}": v for n, v in job.knobs.as_dict().items() if v is not None})
        row["touches_sha256"] = job.touches.sha256
        units = {}
        for name, value in counters.items():
            if isinstance(value, (int, float)):
                row[name] = float(value)
                units[name] = record.COUNTERS.get(name, "s" if name.endswith("seconds") else "")
        row["version"] = __version__
        row["spec_json"] = json.dumps(job.knobs.as_dict(), sort_keys=True)
        row["report"] = json.dumps({"counters": counters, "kernel": k.package}, sort_keys=True)
        st.write(row, units)


def summarise(job: Job, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The record of one cell: each counter's median at the top, the runs and ranges below."""
    return summarise_runs(job, [json.loads(r["report"])["counters"] for r in rows])


def summarise_runs(job: Job, runs: list[dict[str, Any]]) -> dict[str, Any]:
    """As `summarise`, from the runs' counters."""
    out: dict[str, Any] = {}
    for name in record.COUNTERS:
        values = [run.get(name, 0) for run in runs]
        out[name] = statistics.median(values)
    out["range"] = {
        n: [min(r.get(n, 0) for r in runs), max(r.get(n, 0) for r in runs)] for n in record.COUNTERS
    }
    out["runs"] = runs
    out["kernel"] = {"series": job.knobs.kernel, "release": runs[0].get("release", "")}
    out["knobs"] = job.knobs.as_dict()
    out["trace"] = {
        "source": job.touches.source,
        "sha256": job.touches.sha256,
        "pages": job.touches.pages,
        "touches": job.touches.touches,
        "writes": job.touches.writes,
    }
    out["source"] = "kernel"
    return out
