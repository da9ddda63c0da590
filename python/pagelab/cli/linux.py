"""`pagelab linux`: the real kernel as an instrument, and pagelab's prediction beside it."""

from __future__ import annotations

import json
from typing import Any

import click

from .base import cli


@cli.group()
def linux() -> None:
    """Linux in the loop: run a trace on a real kernel under QEMU, or predict it."""


def _knob_options(fn: Any) -> Any:
    opts = [
        click.option("--kernel", default="6.1", show_default=True, help="6.1 or 6.12 (Debian's)."),
        click.option("--memory-max", default="8M", show_default=True,
                     help="The cgroup's memory.max: bytes, or 8M, 512K."),
        click.option("--lru-gen", default="off", show_default=True,
                     help="on: MGLRU; off: the two-list LRU."),
        click.option("--swap", default="brd", show_default=True, help="brd (a RAM disk) or zram."),
        click.option("--page-cluster", default=0, show_default=True, type=int,
                     help="vm.page-cluster (swap readahead: up to 2^N pages)."),
        click.option("--swappiness", default=60, show_default=True, type=int,
                     help="vm.swappiness."),
        click.option("--zswap", default=None,
                     help="on, off, or COMPRESSOR:ZPOOL:MAX_POOL_PERCENT (e.g. lzo:zbud:20)."),
        click.option("--writes", default="auto", show_default=True,
                     help="auto (formats without kinds write), kinds, or all."),
        click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
                     show_default=True),
        click.argument("trace"),
    ]  # fmt: skip
    for o in reversed(opts):
        fn = o(fn)
    return fn


def _show(record: dict[str, Any], fmt: str) -> None:
    from ..linux.record import COUNTERS

    if fmt == "json":
        click.echo(json.dumps(record, indent=2, sort_keys=False))
        return
    rng = record.get("range", {})
    for name, unit in COUNTERS.items():
        value = record.get(name)
        if value is None:
            continue
        extra = f"  [{rng[name][0]:g} .. {rng[name][1]:g}]" if name in rng else ""
        click.echo(f"{name:<28} {value:>14g} {unit}{extra}")


@linux.command("run")
@_knob_options
@click.option("--repeats", default=5, show_default=True, type=int, help="Boots per cell.")
@click.option("--accel", default="auto", show_default=True, help="auto, kvm or tcg.")
@click.option("--store", default=None, help="Result store (default: the cache's).")
@click.option(
    "--reclaim-events",
    default=None,
    metavar="FILE",
    help="One boot with the kernel's reclaim tracepoints on (not cached): each reclaim step "
    "to FILE as a JSON line (docs/linux.md).",
)
@click.option(
    "--fault-log",
    default=None,
    metavar="FILE",
    help="One boot under TCG with QEMU's exception log on (not cached): the touch of each "
    "refault to FILE; `pagelab linux faults` sets it beside `predict --fault-log`'s.",
)
@click.option(
    "--tlb-probe",
    is_flag=True,
    help="Instead of the counters, the entries of the guest's TLB during each replay, measured "
    "by the replayer after its loop (not cached); `pagelab linux predict --tlb N` takes them.",
)
def linux_run(
    trace: str, fmt: str, repeats: int, accel: str, store: str | None, tlb_probe: bool, **kw: Any
) -> None:
    """Replay TRACE in a memory-limited cgroup on a real kernel; print its counters."""
    from .. import linux, progress

    if tlb_probe:
        if kw.get("reclaim_events") or kw.get("fault_log"):
            raise click.UsageError("--tlb-probe, --reclaim-events and --fault-log: one at a time")
        kw.pop("reclaim_events", None)
        kw.pop("fault_log", None)
        got = linux.probe_tlb(trace, repeats=repeats, accel=accel, **kw)
        if fmt == "json":
            click.echo(json.dumps(got, indent=2))
        else:
            click.echo(f"tlb entries, one a replay: {got['entries']} (Linux {got['release']})")
        return
    with progress.bar("kernel runs") as update:
        rec = linux.run(trace, repeats=repeats, accel=accel, store=store,
                        progress=lambda done, total: update(done, total), **kw)  # fmt: skip
    _show(rec, fmt)
    _show_events(rec, fmt)


def _show_events(record: dict[str, Any], fmt: str) -> None:
    if fmt != "text":
        return
    for key, what in (("reclaim_events", "reclaim events"), ("fault_log", "fault log")):
        ev = record.get(key)
        if ev:
            totals = ", ".join(
                f"{k} {'none' if v is None else v}" for k, v in ev.items() if k != "path"
            )
            click.echo(f"{what} in {ev['path']}: {totals}")


@linux.command("predict")
@_knob_options
@click.option(
    "--periodic-flush/--no-periodic-flush",
    default=None,
    help="The two lists' memcg counters flushed by the 2-s periodic flusher (the default), or "
    "not: 6.12 then reads the lists themselves, 6.1 the copies its reclaim flushes (MGLRU: no "
    "effect; docs/policies/linux-replay.md).",
)
@click.option(
    "--reclaim-events",
    default=None,
    metavar="FILE",
    help="Each reclaim step to FILE as a JSON line, in the shape of "
    "`pagelab linux run --reclaim-events` (MGLRU: each eviction a shrink_inactive step).",
)
@click.option(
    "--tlb",
    default="measured",
    show_default=True,
    help="Entries of the guest's TLB, which decides when an access sets the accessed bit "
    "again: measured (QEMU's under TCG, 256 or 512 entries a run, as the replayer's probe "
    "found them: the replays at both, weighted), a power of two, or none.",
)
@click.option(
    "--fault-log",
    default=None,
    metavar="FILE",
    help="The touch of each major fault to FILE, in the shape of `pagelab linux run "
    "--fault-log` (the replay at the TLB's first size).",
)
@click.option(
    "--report-page/--no-report-page",
    default=False,
    show_default=True,
    help="The replay holds the replayer's report page, the unmapped tmpfs page it writes "
    "before its loop, which the kernel's first reclaim frees (docs/readings.md "
    "linux-report-page: measured, not adopted).",
)
@click.option(
    "--start-charge/--no-start-charge",
    default=None,
    help="The replay holds, from its loop's start to its first reclaim, the report page and "
    "the kernel pages the kernel's first reclaim gives back, measured (docs/readings.md "
    "linux-start-charge: measured, not adopted; off by default).",
)
@click.option(
    "--start-draws/--no-start-draws",
    default=None,
    help="The start's charge drawn: each of the five draws of the layout holds one of its "
    "measured quantiles (overhead.json start_kernel_draws; docs/readings.md "
    "linux-start-charge-drawn: measured, not adopted; off by default).",
)
@click.option(
    "--mapping-tables/--no-mapping-tables",
    default=None,
    help="The trace mapping's page tables charged as the loop first touches each 2 MiB of it, "
    "as the kernel charges them, not before the loop (docs/readings.md linux-mapping-tables-end, "
    "adopted by linux-adoption-paired: on by default).",
)
@click.option(
    "--aslr-draws/--no-aslr-draws",
    default=None,
    help="The mapping's tables as taken, with the touch list's start in its 2 MiB (placed by "
    "ASLR) drawn at five slots: the replay whose major faults are the median of the draws "
    "(docs/readings.md linux-aslr-draws, adopted by linux-aslr-draws-paired: on by default; "
    "--no-aslr-draws takes the middle of the 2 MiB alone).",
)
@click.option(
    "--full-walk-retry/--no-full-walk-retry",
    default=None,
    help="6.12: a reclaim whose pass over the priorities frees nothing runs them once more "
    "(memcg_full_walk; docs/readings.md linux-6.12-full-walk-retry: not adopted; off by "
    "default).",
)
@click.option(
    "--lists-offset/--no-lists-offset",
    default=None,
    help="The limit less the pages the kernel's lists were measured to lack at each reclaim "
    "beside the replay's (overhead.json lists_offset_pages, from python -m "
    "pagelab.linux.lru_probe; docs/readings.md linux-lists-at-reclaim).",
)
@click.option(
    "--lookaround-batch/--no-lookaround-batch",
    default=None,
    help="MGLRU: the look-around's promotions wait on the CPU's activate batch until it fills "
    "or the next priority drains it, as folio_activate queues them (docs/readings.md "
    "linux-lookaround-batch, adopted: on by default).",
)
@click.option(
    "--anon-exclusive/--no-anon-exclusive",
    default=None,
    help="A write-protect fault reuses the replayer's page, which is exclusive, without moving "
    "the CPU's lru_add batch onto the lists, as do_wp_page does (docs/readings.md "
    "linux-anon-exclusive-reuse, adopted: on by default).",
)
@click.option(
    "--draws",
    default=None,
    type=int,
    metavar="N",
    help="How many draws of the touch list's start (and of the flusher's phase) the prediction "
    "takes its median over, evenly spaced (docs/readings.md linux-fifteen-draws; default 5).",
)
@click.option(
    "--rseq-tlb/--no-rseq-tlb",
    default=None,
    help="The kernel's writes to the replayer's rseq area walk the page table only when the "
    "page was unmapped since the last, its translation kept otherwise (docs/readings.md "
    "linux-rseq-tlb-again).",
)
def linux_predict(trace: str, fmt: str, **kw: Any) -> None:
    """pagelab's prediction of what `pagelab linux run` would measure."""
    from .. import linux

    rec = linux.predict(trace, **kw)
    _show(rec, fmt)
    _show_events(rec, fmt)


@linux.command("faults")
@click.argument("a")
@click.argument("b")
@click.option(
    "--windows", default=20, show_default=True, type=int, help="Equal windows of the touch list."
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)  # fmt: skip
def linux_faults(a: str, b: str, windows: int, fmt: str) -> None:
    """Two fault logs of one trace side by side (`run`/`predict --fault-log`): refaults per
    window of touches, and the pages whose refaults differ most."""
    from ..linux import fault_log

    got = fault_log.compare(fault_log.read(a), fault_log.read(b), windows)
    if fmt == "json":
        click.echo(json.dumps(got, indent=2))
        return
    for name, path in (("A", a), ("B", b)):
        side = got[name.lower()]
        tlb = "" if side["tlb_entries"] is None else f", a TLB of {side['tlb_entries']} entries"
        own = f", {side['own_faults']} on the replayer's own pages"
        click.echo(f"{name} = {path} ({side['source']}{tlb}): {side['refaults']} refaults{own}")
    click.echo(f"{'touches':>23} {'A':>8} {'B':>8} {'B - A':>8} {'sum B - A':>10}")
    run = 0
    for w in got["windows"]:
        run += w["b"] - w["a"]
        span = f"{w['from']}-{w['to']}"
        click.echo(f"{span:>23} {w['a']:>8} {w['b']:>8} {w['b'] - w['a']:>+8} {run:>+10}")
    if got["pages"]:
        most = ", ".join(f"{p['page']} ({p['a']}/{p['b']})" for p in got["pages"])
        click.echo(f"pages differing most (A/B): {most}")


@linux.command("fetch")
@click.argument("series", nargs=-1)
def linux_fetch(series: tuple[str, ...]) -> None:
    """Download Debian's kernels (default: 6.1 and 6.12) into the cache."""
    from .. import linux

    for s in series or ("6.1", "6.12"):
        k = linux.fetch(s)
        click.echo(f"{k['series']}: {k['package']} ({k['release']}) in {k['path']}")
