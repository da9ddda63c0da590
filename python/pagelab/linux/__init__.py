"""Linux in the loop: a real kernel as the reference for pagelab's models of Linux reclaim.

`run` boots Debian's Linux (6.1 or 6.12) under QEMU (KVM where it runs a guest, TCG otherwise),
replays a trace in a memory-limited cgroup v2 and returns the kernel's own counters, repeated
and cached; `predict` gives pagelab's prediction of the same record from its models. Both take
the same knobs (see `knobs.knobs`) and return a dict whose top-level counters
(`major_faults`, `pswpin`, ...) are comparable key by key.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import _atomic
from ..errors import PagelabError
from .knobs import knobs as make_knobs
from .touches import prepare

__all__ = ["run", "predict", "probe_tlb", "fetch"]


def run(
    trace: str | os.PathLike[str],
    *,
    kernel: str = "6.1",
    memory_max: str | int = "8M",
    lru_gen: str | bool = "off",
    swap: str = "brd",
    page_cluster: int = 0,
    swappiness: int = 60,
    zswap: str | None = None,
    repeats: int = 5,
    writes: str = "auto",
    accel: str = "auto",
    store: str | Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    reclaim_events: str | os.PathLike[str] | None = None,
    fault_log: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """The kernel's counters for `trace`: medians at the top, every run under `runs`.

    With `reclaim_events` (a path), one boot with the kernel's reclaim tracepoints on, not
    cached: its events are written there as JSON lines (`reclaim_events`), their totals are
    under the record's `reclaim_events`, and `repeats` and `store` are not used. With
    `fault_log` (a path), likewise one boot under TCG with QEMU's exception log on: the touch
    of each refault is written there (`fault_log`), its totals under the record's
    `fault_log`.
    """
    from . import fault_log as faults
    from . import instrument
    from . import reclaim_events as events

    k = make_knobs(kernel, memory_max, lru_gen, swap=swap, page_cluster=page_cluster,
                   swappiness=swappiness, zswap=zswap)  # fmt: skip
    repeats = _repeats(repeats)
    job = instrument.Job(prepare(trace, writes=writes), k)
    from .record import check_killed

    if reclaim_events is not None and fault_log is not None:
        raise PagelabError("--reclaim-events and --fault-log: one at a time")
    if fault_log is not None:
        _atomic.check_output(fault_log, inputs=[trace], option="--fault-log")
        out, got = faults.boot(job, accel=accel)
        check_killed(out, k.memory_max)
        extra = {k: got[k] for k in ("first_touches", "unmatched", "tlb_entries")}
        path = faults.write(fault_log, out, got["faults"], own_faults=got["own_faults"], **extra)
        out["fault_log"] = {"path": str(path), "refaults": len(got["faults"]),
                            "own_faults": len(got["own_faults"]), **extra}  # fmt: skip
        return out
    if reclaim_events is not None:
        out, got = instrument.traced(job, accel=accel)
        check_killed(out, k.memory_max)
        path = events.write(reclaim_events, got)
        out["reclaim_events"] = {"path": str(path), **events.summary(got)}
        return out
    out = instrument.measure([job], repeats=repeats, accel=accel, store=store,
                             progress=progress)[0]  # fmt: skip
    check_killed(out, k.memory_max)
    return out


def probe_tlb(
    trace: str | os.PathLike[str],
    *,
    kernel: str = "6.1",
    memory_max: str | int = "8M",
    lru_gen: str | bool = "off",
    swap: str = "brd",
    page_cluster: int = 0,
    swappiness: int = 60,
    zswap: str | None = None,
    repeats: int = 5,
    writes: str = "auto",
    accel: str = "auto",
) -> dict[str, Any]:
    """The entries of the guest's TLB during each of `repeats` replays of `trace`, measured by
    the replayer after its loop (`pagelab.linux.tlb_probe`; not cached): `entries` (None where
    the kernel killed the replayer first) and each replay's `curves` (pages read round and
    round, ns per read)."""
    from . import instrument, tlb_probe

    k = make_knobs(kernel, memory_max, lru_gen, swap=swap, page_cluster=page_cluster,
                   swappiness=swappiness, zswap=zswap)  # fmt: skip
    job = instrument.Job(prepare(trace, writes=writes), k)
    got = tlb_probe.measure([job] * _repeats(repeats), accel=accel)
    return {
        "entries": [g["entries"] for g in got],
        "curves": [g["curve"] for g in got],
        "release": got[0]["release"],
        "knobs": k.as_dict(),
    }


def predict(
    trace: str | os.PathLike[str],
    *,
    kernel: str = "6.1",
    memory_max: str | int = "8M",
    lru_gen: str | bool = "off",
    swap: str = "brd",
    page_cluster: int = 0,
    swappiness: int = 60,
    zswap: str | None = None,
    writes: str = "auto",
    periodic_flush: bool | None = None,
    reclaim_events: str | os.PathLike[str] | None = None,
    tlb: int | str | tuple[tuple[int, int], ...] | None = "measured",
    fault_log: str | os.PathLike[str] | None = None,
    report_page: bool = False,
    start_charge: bool | None = None,
    start_draws: bool | None = None,
    mapping_tables: bool | None = None,
    aslr_draws: bool | None = None,
    full_walk_retry: bool | None = None,
    lists_offset: bool | None = None,
    lookaround_batch: bool | None = None,
    anon_exclusive: bool | None = None,
    fault_stat_updates: bool | None = None,
    pooled_median: bool | None = None,
    clock_sessions: bool | None = None,
    draws: int | None = None,
    rseq_tlb: bool | None = None,
) -> dict[str, Any]:
    """pagelab's prediction of `run`'s record for the same trace and knobs. `periodic_flush`:
    the two lists' memcg counters are flushed by the 2-s periodic flusher, on the fitted
    guest clock (True), or not (False: 6.12 then reads the lists themselves, 6.1 the copies
    its reclaim flushes); None, the series' reading (`prediction.PERIODIC_FLUSH`: the
    flusher's in both).
    `reclaim_events` (a path): each reclaim step written there in the shape of
    `run`'s, their totals under the record's `reclaim_events`. `tlb`: entries of the guest's
    TLB; "measured" (the sizes the replayer's probe found under TCG, 256 and 512, the replays
    at each weighted by how often), a power of two, or "none" for an accessed bit set on every
    reference; or sizes with their weights, ((256, 3), (512, 5)). `fault_log` (a path): the
    touch of each major fault written there in the shape of `run`'s (`fault_log`), of the
    replay at the TLB's first size.
    The readings' switches (`report_page`, `start_charge`, `start_draws`, `mapping_tables`,
    `aslr_draws`, `full_walk_retry`, `lists_offset`, `lookaround_batch`, `anon_exclusive`,
    `fault_stat_updates`, `pooled_median`, `clock_sessions`, `draws`, `rseq_tlb`) are
    `prediction.Options`' fields of the same names, each None for its default there
    (`report_page` off); docs/linux.md and docs/readings.md give what each does."""
    from . import fault_log as faults
    from . import prediction as model
    from . import reclaim_events as events

    k = make_knobs(kernel, memory_max, lru_gen, swap=swap, page_cluster=page_cluster,
                   swappiness=swappiness, zswap=zswap)  # fmt: skip
    touches = prepare(trace, writes=writes)
    if fault_log is not None:
        _atomic.check_output(fault_log, inputs=[trace], option="--fault-log")
    sizes = _tlb(tlb)
    opts = model.Options(periodic_flush, reclaim_events is not None, sizes,
                         faults=fault_log is not None, report_page=report_page,
                         start_charge=start_charge, start_draws=start_draws,
                         mapping_tables=mapping_tables, aslr_draws=aslr_draws,
                         full_walk_retry=full_walk_retry, lists_offset=lists_offset,
                         lookaround_batch=lookaround_batch, anon_exclusive=anon_exclusive,
                         fault_stat_updates=fault_stat_updates, pooled_median=pooled_median,
                         clock_sessions=clock_sessions, draws=draws,
                         rseq_tlb=rseq_tlb)  # fmt: skip
    out = model.predict(touches, k, opts)
    if fault_log is not None:
        got, own = out.pop("fault_touches"), out.pop("own_faults")
        tlb_entries = None if sizes is None else sizes[0][0]
        path = faults.write(fault_log, out, got, own_faults=own, tlb_entries=tlb_entries)
        out["fault_log"] = {"path": str(path), "refaults": len(got), "own_faults": len(own),
                            "tlb_entries": tlb_entries}  # fmt: skip
    if reclaim_events is None:
        return out
    got = out.pop("events")
    path = events.write(reclaim_events, got)
    out["reclaim_events"] = {"path": str(path), **events.summary(got)}
    return out


def fetch(series: str) -> dict[str, str]:
    """Downloads and unpacks Debian's kernel of `series` into the cache; returns what it got."""
    from . import kernels

    k = kernels.kernel(series)
    return {"series": k.series, "package": k.package, "release": k.release, "path": str(k.root)}


def _tlb(value: Any) -> tuple[tuple[int, int], ...] | None:
    from ..errors import PagelabError
    from .prediction import MEASURED_TLB

    if value is None or str(value).lower() == "none":
        return None
    if str(value).lower() == "measured":
        return MEASURED_TLB
    if not isinstance(value, (tuple, list)):
        return ((_tlb_size(value), 1),)
    if not value or not all(isinstance(p, (tuple, list)) and len(p) == 2 for p in value):
        raise PagelabError(f"--tlb {value!r}: expected sizes with their weights, ((256, 3),)")
    return tuple((_tlb_size(n), _weight(w)) for n, w in value)


def _tlb_size(value: Any) -> int:
    from ..errors import PagelabError

    try:
        n = int(value)
    except (TypeError, ValueError):
        n = 0
    if n < 1 or n & (n - 1) or n > 1 << 22:
        raise PagelabError(
            f"--tlb {value}: expected measured, a power of two up to 4194304, or none"
        )
    return n


def _weight(w: Any) -> int:
    from ..errors import PagelabError

    if isinstance(w, bool) or not isinstance(w, int) or w < 1:
        raise PagelabError(f"--tlb weight {w!r}: expected a whole number of at least 1")
    return w


def _repeats(n: Any) -> int:
    from ..errors import PagelabError

    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 100:
        raise PagelabError(f"--repeats {n!r}: expected a whole number from 1 to 100")
    return n
