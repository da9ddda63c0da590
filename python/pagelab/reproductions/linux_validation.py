"""pagelab's Linux models against the kernel itself (Linux 6.1 and 6.12, Debian's, measured).

The reference is not a paper: it is the kernel, booted under QEMU by `pagelab linux run`, with
traces replayed in a memory-limited cgroup under the two-list LRU and MGLRU, every cell
fifteen times in shuffled order, five in each of three sessions (`_linux_grid.py`; the runs
are data in `targets/linux-validation-kernel.json`, made by
`python -m pagelab.reproductions._linux_grid --repeats 10`, then `--extend 5`):
five real programs at four limits each (plus zswap on and page-cluster 3 on one program), seven
write-only patterns at 4 and 8 MiB (the shape of a raw u64 trace), and two cases for the MGLRU
claims. The kernel is not deterministic, so each cell's reference is the median of its runs,
with their range; a cell in which the kernel killed the replayer goes to the "killed" table.

pagelab's side is `pagelab linux predict` on the same trace and knobs: the cgroup's other
tenants measured in the guest (`pagelab/linux/overhead.json`), then the model of that kernel's
reclaim (`pagelab_trace::linux`). Rows are `predicted`: nothing in the models was set from
these numbers. The summary gives, per kind of trace, kernel and list, the median |error|
against the kernel's median and the share of cells inside the kernel's min-max range widened
by 15 %.

The memory pressure (the cgroup's memory PSI total `psi_some_us`, equal to `psi_full_us` with
one task) is set beside the kernel's the same way, per cell and summarised: pagelab's is the
replay's stall events on the guest clock fitted to the kernel's replay times
(`pagelab.linux.prediction.psi`), never to PSI; zswap cells have none.
`python -m pagelab.reproductions.linux_validation` prints that summary alone.
"""

from __future__ import annotations

import json
import random
import statistics
from collections import Counter
from typing import Any

from ..errors import PagelabError
from ..reproduce import Context
from . import _linux_grid as grid

NAME = "linux-validation"
PAPER = "Linux 6.1 and 6.12 (Debian), measured under QEMU"
TITLE = (
    "Major faults of real programs in a memory-limited cgroup: pagelab's models against the kernel"
)

TABLE = "major faults"
PSI_TABLE = "memory pressure (PSI some total)"
#: The range band of the must-show: the kernel's own min-max range widened by 15 %.
WIDEN = 0.15


def reference() -> dict[str, Any]:
    try:
        return json.loads(grid.REFERENCE.read_text())
    except FileNotFoundError:
        raise PagelabError(
            f"{grid.REFERENCE.name} is missing: measure the kernel first "
            "(python -m pagelab.reproductions._linux_grid)"
        ) from None


def _predict(cell: dict[str, Any], memory_max: int) -> dict[str, Any]:
    from .. import linux

    c = grid.Cell(**cell)
    return linux.predict(
        c.trace, kernel=c.kernel, memory_max=memory_max, lru_gen=c.lru_gen,
        page_cluster=c.page_cluster, zswap=c.zswap, tlb=_tlb(c),
    )  # fmt: skip


#: Whose TLB sizes weigh a cell's replays: "mixed", the mixed probe's on the cell's trace
#: (docs/readings.md `linux-tlb-reference-mix`), or "last", the kernel's runs booted as the
#: reference's were (`linux-tlb-last-run`).
TLB_WEIGHTS = "mixed"


def _tlb(c: grid.Cell) -> Any:
    """The TLB sizes the cell's replays are weighted by (`TLB_WEIGHTS`); under "mixed" the
    pooled default where the trace was never probed."""
    if TLB_WEIGHTS == "last":
        from ..linux import tlb_paired

        return tlb_paired.last_weights(c.kernel)
    return grid.trace_tlb(c.program) or "measured"


def inside(value: float, lo: float, hi: float) -> bool:
    """Within the kernel's [lo, hi] widened by WIDEN of the range's ends."""
    return lo * (1 - WIDEN) <= value <= hi * (1 + WIDEN)


def run(ctx: Context) -> None:
    ref = reference()
    chosen = ref["cells"] if ctx.full else _smoke(ref["cells"])
    errors: dict[tuple[str, str], list[tuple[float, bool]]] = {}
    psi_errors: dict[tuple[str, str], list[tuple[float, bool]]] = {}
    # Cells the kernel ran in every run that the replay ends killed: left out of the medians,
    # so counted beside them (docs/readings.md `linux-killed-draws`).
    failed: Counter[tuple[str, str]] = Counter()
    preds: dict[str, int] = {}
    for entry in chosen:
        cell = grid.Cell(**entry["cell"])
        row = label(entry)
        runs_killed = entry["runs"].get("oom_killed", [])
        killed = f"{sum(runs_killed)} of {len(runs_killed)} runs"
        try:
            pred = _predict(entry["cell"], entry["memory_max"])
        except PagelabError as e:
            if not any(runs_killed) and cell.kind != "claim":
                failed[(KINDS[cell.kind], series(cell))] += 1
            ctx.row("killed", row, cell.setting, 1, paper=sum(runs_killed) / len(runs_killed),
                    unit="share of runs killed", role="ours",
                    why=f"pagelab: {e}; the kernel killed the replayer in {killed}")  # fmt: skip
            continue
        if sum(runs_killed):
            ctx.row("killed", row, cell.setting, 0, paper=sum(runs_killed) / len(runs_killed),
                    unit="share of runs killed", role="ours",
                    why=f"the kernel killed the replayer in {killed}; pagelab did not")  # fmt: skip
            continue
        kernel = entry["median"]["major_faults"]
        lo, hi = entry["range"]["major_faults"]
        preds[json.dumps(entry["cell"], sort_keys=True)] = pred["major_faults"]
        ctx.row(TABLE, row, cell.setting, pred["major_faults"], paper=kernel, unit="faults")
        ctx.row("frames", row, cell.setting, pred["frames"], paper=entry["median"]["frames"],
                unit="frames")  # fmt: skip
        group = series(cell)
        if kernel > 0 and cell.kind != "claim":
            err = (pred["major_faults"] - kernel) / kernel  # signed: pagelab less the kernel
            ok = inside(pred["major_faults"], lo, hi)
            errors.setdefault((KINDS[cell.kind], group), []).append((err, ok))
        psi = psi_error(entry, pred)
        if psi is not None:
            ctx.row(PSI_TABLE, row, cell.setting, pred["psi_some_us"],
                    paper=entry["median"]["psi_some_us"], unit="us")  # fmt: skip
            if cell.kind != "claim":
                psi_errors.setdefault((KINDS[cell.kind], group), []).append(psi)
    _claims(ctx, chosen)
    _periodic_flush(ctx, chosen)
    _kernel_against_itself(ctx, chosen)
    _later_session(ctx, chosen, preds)
    _figure(ctx, chosen)
    _summary(ctx, errors, failed)
    for (kind, group), errs in sorted(psi_errors.items()):
        median, share = summarize(errs)
        ctx.row(f"{PSI_TABLE}: summary", f"{kind}: median |error| against the kernel's median",
                group, median, unit="%", role="ours")  # fmt: skip
        ctx.row(f"{PSI_TABLE}: summary", f"{kind}: cells inside the kernel's range widened by "
                "15 %", group, share, unit="%", role="ours")  # fmt: skip


def _summary(
    ctx: Context,
    errors: dict[tuple[str, str], list[tuple[float, bool]]],
    failed: Counter[tuple[str, str]],
) -> None:
    """The must-show's figures per kind of trace and series, and beside them the errors' sign:
    a median |error| under the bar can still be errors of one sign, a bias the medians hide
    (docs/linux.md, beside the later session's table)."""
    for (kind, group), errs in sorted(errors.items()):
        signed = [e for e, _ in errs]
        ctx.row("summary", f"{kind}: median |error| against the kernel's median", group,
                100 * statistics.median(abs(e) for e in signed), unit="%", role="ours")  # fmt: skip
        ctx.row("summary", f"{kind}: cells inside the kernel's range widened by 15 %", group,
                100 * sum(ok for _, ok in errs) / len(errs), unit="%", role="ours")  # fmt: skip
        ctx.row("summary", f"{kind}: cells the kernel runs that pagelab's replay ends killed",
                group, failed[(kind, group)], unit="cells", role="ours")  # fmt: skip
        ctx.row("summary", f"{kind}: median signed error (pagelab less the kernel's median)",
                group, 100 * statistics.median(signed), unit="%", role="ours")  # fmt: skip
        ctx.row("summary", f"{kind}: cells where pagelab is below the kernel's median", group,
                100 * sum(e < 0 for e in signed) / len(signed), unit="%", role="ours")  # fmt: skip


def psi_error(entry: dict[str, Any], pred: dict[str, Any]) -> tuple[float, bool] | None:
    """The predicted memory PSI total's |error| against the kernel's median, and whether it is
    inside the kernel's range widened by WIDEN; None where either side has none."""
    kernel, got = entry["median"].get("psi_some_us"), pred.get("psi_some_us")
    if not kernel or got is None:
        return None
    lo, hi = entry["range"]["psi_some_us"]
    return abs(got - kernel) / kernel, inside(got, lo, hi)


def summarize(errs: list[tuple[float, bool]]) -> tuple[float, float]:
    """(median |error|, share of cells in the widened range), both in percent."""
    return (100 * statistics.median(e for e, _ in errs),
            100 * sum(ok for _, ok in errs) / len(errs))  # fmt: skip


def psi_summary() -> dict[tuple[str, str], tuple[float, float, int]]:
    """Per kind of trace and (kernel, list): the predicted memory PSI total against the
    kernel's over every cell of the reference the kernel did not kill (zswap cells have no
    prediction): (median |error| [%], cells in the widened range [%], cells)."""
    errs: dict[tuple[str, str], list[tuple[float, bool]]] = {}
    for entry in reference()["cells"]:
        cell = grid.Cell(**entry["cell"])
        if cell.kind == "claim" or sum(entry["runs"].get("oom_killed", [])):
            continue
        try:
            pred = _predict(entry["cell"], entry["memory_max"])
        except PagelabError:
            continue
        e = psi_error(entry, pred)
        if e is not None:
            group = f"{cell.kernel} {'MGLRU' if cell.lru_gen else 'two-list'}"
            errs.setdefault((KINDS[cell.kind], group), []).append(e)
    return {k: (*summarize(v), len(v)) for k, v in sorted(errs.items())}


#: How the summary names each kind of cell.
KINDS = {"program": "real programs", "pattern": "write-only patterns"}


def _claims(ctx: Context, chosen: list[dict[str, Any]]) -> None:
    """On the synthetic cases: what MGLRU does against the two lists, the kernel's effect (the
    median of its runs) as the reference and the model's as the effect tested."""
    by = {(e["cell"]["program"], e["cell"]["kernel"], e["cell"]["lru_gen"]): e for e in chosen
          if grid.Cell(**e["cell"]).kind == "claim"}  # fmt: skip
    what = {
        "hotscan": "hot-set refaults under one-time scans",
        "loop1200": "refaults of a loop of 1,200 pages at 1,000 frames",
    }
    for (program, kernel, lru), mg in sorted(by.items()):
        two = by.get((program, kernel, False))
        if not lru or two is None or not two["median"]["major_faults"]:
            continue
        k_eff = mg["median"]["major_faults"] / two["median"]["major_faults"] - 1
        p_mg = ctx.value(TABLE, label(mg), grid.Cell(**mg["cell"]).setting)
        p_two = ctx.value(TABLE, label(two), grid.Cell(**two["cell"]).setting)
        if not p_two:
            continue
        ctx.claim(
            f"{program}-mglru-{kernel}",
            f"Linux {kernel}: MGLRU against the two lists on the {what[program]}, as the kernel",
            effects=[p_mg / p_two - 1], kind="relative", paper_effect=k_eff, exact=True,
            quote=f"Measured on Linux {kernel} ({mg['release']}), {mg['memory_max'] >> 10} KiB, "
            f"median of the runs: {mg['median']['major_faults']:g} major faults under MGLRU, "
            f"{two['median']['major_faults']:g} under the two lists.",
            evidence=f"kernel (median of runs): {mg['median']['major_faults']:g} against "
            f"{two['median']['major_faults']:g}; pagelab: {p_mg:g} against {p_two:g}; the "
            "kernel's effect over its own runs (resampled): 90 % in [{:+.3f}, {:+.3f}]".format(
                *effect_interval(mg["runs"]["major_faults"], two["runs"]["major_faults"])),
        )  # fmt: skip


def effect_interval(treated: list[float], base: list[float]) -> tuple[float, float]:
    """The 5th and 95th percentiles of the kernel's effect (the ratio of two cells' medians,
    less one) over `EFFECT_DRAWS` resamples of each cell's runs with replacement: how far the
    kernel's own effect moves with its runs, beside the claim's band (information only; the
    verdict keeps the band)."""
    rng = random.Random(EFFECT_SEED)
    got = []
    for _ in range(EFFECT_DRAWS):
        b = statistics.median(rng.choices(base, k=len(base)))
        if b:
            got.append(statistics.median(rng.choices(treated, k=len(treated))) / b - 1)
    got.sort()
    return got[int(0.05 * len(got))], got[int(0.95 * len(got)) - 1]


#: The resamples of `effect_interval` and their seed (fixed: the same runs give the same interval).
EFFECT_DRAWS = 2000
EFFECT_SEED = 20261202


def _periodic_flush(ctx: Context, chosen: list[dict[str, Any]]) -> None:
    """6.12's two lists under the reading not adopted (`linux predict --no-periodic-flush`: the
    lists' own sizes, not the memcg counters' copies as the 2-s flusher leaves them), beside
    the adopted one, per kind of trace: the median |error| and the cells inside the widened
    range (role `ours`; docs/readings.md `linux-6.12-copies-again` gives why)."""
    from .. import linux

    errors: dict[str, list[tuple[float, bool]]] = {}
    for entry in chosen:
        cell = grid.Cell(**entry["cell"])
        kernel = entry["median"]["major_faults"]
        if cell.kernel != "6.12" or cell.lru_gen or cell.kind == "claim" or kernel <= 0:
            continue
        if sum(entry["runs"].get("oom_killed", [])):
            continue
        try:
            pred = linux.predict(
                cell.trace, kernel=cell.kernel, memory_max=entry["memory_max"], lru_gen=False,
                page_cluster=cell.page_cluster, zswap=cell.zswap, periodic_flush=False,
                tlb=_tlb(cell),
            )["major_faults"]  # fmt: skip
        except PagelabError:
            continue
        lo, hi = entry["range"]["major_faults"]
        errors.setdefault(KINDS[cell.kind], []).append(
            (abs(pred - kernel) / kernel, inside(pred, lo, hi))
        )
    table = "6.12's two lists reading the lists themselves (--no-periodic-flush, not adopted)"
    for kind, errs in sorted(errors.items()):
        ctx.row(table, f"{kind}: median |error| against the kernel's median", "6.12 two-list",
                100 * statistics.median(e for e, _ in errs), unit="%", role="ours")  # fmt: skip
        ctx.row(table, f"{kind}: cells inside the kernel's range widened by 15 %",
                "6.12 two-list", 100 * sum(ok for _, ok in errs) / len(errs), unit="%",
                role="ours")  # fmt: skip


def self_error(runs: list[int]) -> float | None:
    """How well one kernel run predicts the others: the median over the runs of its |error|
    against the median of the other runs; None with fewer than three runs or none paging."""
    errs = []
    for i, run in enumerate(runs):
        others = statistics.median(runs[:i] + runs[i + 1 :])
        if others > 0:
            errs.append(abs(run - others) / others)
    return statistics.median(errs) if len(runs) >= 3 and errs else None


def later_runs() -> dict[str, list[int]]:
    """A later session's runs of the grid's cells, booted as the reference's were and pooled
    into nothing (`python -m pagelab.linux.tlb_paired --last`): each cell's major faults, keyed
    by its cell; a cell with a killed run left out."""
    from ..linux import tlb_paired

    got: dict[str, list[dict[str, Any]]] = {}
    for run in json.loads(tlb_paired.RECORD_LAST.read_text())["runs"]:
        got.setdefault(json.dumps(run["cell"], sort_keys=True), []).append(run)
    return {k: [r["major_faults"] for r in runs] for k, runs in got.items()
            if not any(r["killed"] for r in runs)}  # fmt: skip


def _later_session(ctx: Context, chosen: list[dict[str, Any]], preds: dict[str, int]) -> None:
    """The replay against a session none of its constants was fitted to, scored as the
    summary scores the reference (each cell's median and widened range over that session's
    runs), beside that session's kernel against the reference (docs/readings.md
    `linux-tlb-last-weights`)."""
    later = later_runs()
    errors: dict[tuple[str, str], list[tuple[float, bool, float, bool]]] = {}
    for entry in chosen:
        cell, key = grid.Cell(**entry["cell"]), json.dumps(entry["cell"], sort_keys=True)
        runs, ref = later.get(key), entry["median"]["major_faults"]
        if cell.kind == "claim" or key not in preds or not runs or not ref:
            continue
        median, lo, hi = statistics.median(runs), min(runs), max(runs)
        if median <= 0:
            continue
        pred, (rlo, rhi) = preds[key], entry["range"]["major_faults"]
        errors.setdefault((KINDS[cell.kind], series(cell)), []).append((
            abs(pred - median) / median, inside(pred, lo, hi),
            abs(median - ref) / ref, inside(median, rlo, rhi)))  # fmt: skip
    table = "a later session: ten runs a cell that no constant of the replay was fitted to"
    for (kind, group), errs in sorted(errors.items()):
        for i, what in enumerate(
            (
                "median |error| of pagelab against the session's median",
                "cells inside the session's range widened by 15 %",
                "median |shift| of the session's median from the reference's",
                "the session's medians inside the reference's widened range",
            )
        ):
            got = [e[i] for e in errs]
            value = statistics.median(got) if i % 2 == 0 else sum(got) / len(got)
            ctx.row(table, f"{kind}: {what}", group, 100 * value, unit="%", role="ours")


def _kernel_against_itself(ctx: Context, chosen: list[dict[str, Any]]) -> None:
    """The floor the summary's medians stand on: per kind of trace and series, the median over
    the cells of `self_error`, one kernel run against the median of the others (role `ours`:
    a measurement, no model), over the cells the summary counts."""
    errors: dict[tuple[str, str], list[float]] = {}
    for entry in chosen:
        cell = grid.Cell(**entry["cell"])
        if cell.kind == "claim" or sum(entry["runs"].get("oom_killed", [])):
            continue
        e = self_error(entry["runs"]["major_faults"])
        if e is not None and entry["median"]["major_faults"] > 0:
            group = series(cell)
            errors.setdefault((KINDS[cell.kind], group), []).append(e)
    table = "the kernel against itself: one run against the median of the others"
    for (kind, group), errs in sorted(errors.items()):
        ctx.row(table, f"{kind}: median |error| of one run", group,
                100 * statistics.median(errs), unit="%", role="ours")  # fmt: skip


def _figure(ctx: Context, chosen: list[dict[str, Any]]) -> None:
    """pagelab against the kernel, one point a cell, the kernel's min-max range as its bar."""
    if not ctx.draws:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 5))
    points: dict[str, list[tuple[float, float, float, float]]] = {}
    for e in chosen:
        k = e["median"]["major_faults"]
        lo, hi = e["range"]["major_faults"]
        try:
            p = ctx.value(TABLE, label(e), grid.Cell(**e["cell"]).setting)
        except KeyError:  # a cell the kernel or the model killed: in the "killed" table
            continue
        points.setdefault(grid.Cell(**e["cell"]).setting, []).append((k, p, k - lo, hi - k))
    for name, pts in sorted(points.items()):
        xs, ys, lo, hi = zip(*[(max(a, 0.5), max(b, 0.5), c, d) for a, b, c, d in pts], strict=True)
        ax.errorbar(xs, ys, xerr=[lo, hi], fmt="o", ms=4, capsize=2, label=name)
    top = max(max(v[0], v[1]) for pts in points.values() for v in pts) * 2
    ax.plot([0.5, top], [0.5, top], color="grey", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("Linux: major faults (median of runs; bar: min-max)")
    ax.set_ylabel("pagelab linux predict: major faults")
    ax.legend(fontsize=7)
    ctx.figure("kernel-vs-model", fig)
    plt.close(fig)


def label(entry: dict[str, Any]) -> str:
    """A reference cell's row: its program and memory.max."""
    return f"{entry['cell']['program']}, memory.max {entry['memory_max'] >> 10} KiB"


def series(cell: grid.Cell) -> str:
    """The summary's column of a cell: its kernel and list, zswap and page cluster set aside."""
    return cell.setting.split(" zswap")[0].split(" page-cluster")[0]


def _smoke(cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One program's limits, two patterns and the loop, both kernels and lists: seconds of model."""
    keep = ("bzip2", "loop2400", "unif3000", "loop1200")
    return [c for c in cells if c["cell"]["program"] in keep
            and not c["cell"].get("zswap") and not c["cell"].get("page_cluster")]  # fmt: skip


if __name__ == "__main__":
    for (kind, group), (median, share, n) in psi_summary().items():
        print(f"{kind:<20} {group:<14} {n:>3} cells  median |error| {median:5.1f} %  "
              f"in range {share:5.1f} %")  # fmt: skip
