"""Each kernel run's TLB size beside its own major faults, and the replay at that size.

The guest TLB's size is a coin per run (`tlb_probe`), and the reference's runs never recorded
theirs. This boots the reference's own boot orders again (repeats 0 to N - 1 of
`instrument.measure`'s batches: the grid's cells of a kernel shuffled by the repeat, 16 a boot)
with the replayer's probe after each loop, which reads the size the loop ran with; the loop's
counters are printed before the probe runs. Each real program's run is then set beside the
shipped replay at that run's own size (docs/readings.md `linux-tlb-paired-runs`).

    python -m pagelab.linux.tlb_paired [--repeats N] [--from-record]

Writes reproductions/targets/linux-tlb-paired.json: every run, the sizes' tally per series, and
per series the replay's median |error| against each run at the run's size and at the other.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import PagelabError

RECORD = Path(__file__).parents[1] / "reproductions" / "targets" / "linux-tlb-paired.json"
#: `--last`'s record: each boot's last run probed, the others as the reference ran them.
RECORD_LAST = RECORD.with_name("linux-tlb-last.json")
REPEATS = 3
SIZES = (256, 512)


def measure(
    repeats: int, progress: Callable[[int, int], None] | None = None, last: bool = False
) -> list[dict[str, Any]]:
    """The runs of repeats 0..repeats-1 of the reference's boots, each with its probe's size;
    with `last`, only each boot's last run probed (entries None for the others), so that every
    probed run follows unprobed runs alone, as the reference's do. `progress(done, total)`
    after each boot, in runs."""
    from ..reproductions import _linux_grid as grid
    from . import guest, kernels, record, tlb_probe
    from .instrument import _cell, boots, machines

    chosen = list(grid.cells())
    jobs = grid.jobs_for(chosen)
    runs: list[dict[str, Any]] = []
    total = repeats * len(jobs)
    for (series, swap), idx in machines(jobs).items():
        k = kernels.kernel(series)
        for r in range(repeats):
            for b, batch in enumerate(boots(idx, r)):
                cells = [_cell(jobs[i], tlb_probe=not last or pos == len(batch) - 1)
                         for pos, i in enumerate(batch)]  # fmt: skip
                files = {c.name: jobs[i].touches.path for c, i in zip(cells, batch, strict=True)}
                texts, _wall = guest.run(guest.Boot(swap, tuple(cells), "auto"), k, files)
                for pos, (i, text) in enumerate(zip(batch, texts, strict=True)):
                    got = record.counters(text, jobs[i].knobs.memory_max, jobs[i].touches.pages)
                    curve = tlb_probe.parse(text)
                    runs.append({
                        "cell": chosen[i].__dict__, "repeat": r, "boot": b,
                        "position": pos, "entries": tlb_probe.entries(curve) if curve else None,
                        "major_faults": got["major_faults"], "killed": got["oom_killed"],
                    })  # fmt: skip
                if progress:
                    progress(len(runs), total)
    return runs


def _series(cell: dict[str, Any]) -> str:
    return f"{cell['kernel']} {'MGLRU' if cell['lru_gen'] else 'two-list'}"


def _replays(runs: list[dict[str, Any]]) -> dict[str, dict[int, int]]:
    """The shipped replay's major faults at each size, per real-program cell of `runs`."""
    from .. import linux
    from ..reproductions import _linux_grid as grid

    limit = {json.dumps(e["cell"], sort_keys=True): e["memory_max"]
             for e in json.loads(grid.REFERENCE.read_text())["cells"]}  # fmt: skip
    out: dict[str, dict[int, int]] = {}
    for run in runs:
        key = json.dumps(run["cell"], sort_keys=True)
        c = grid.Cell(**run["cell"])
        if c.kind != "program" or key in out:
            continue
        out[key] = {n: linux.predict(c.trace, kernel=c.kernel, memory_max=limit[key],
                                     lru_gen=c.lru_gen, page_cluster=c.page_cluster,
                                     zswap=c.zswap, tlb=n)["major_faults"]
                    for n in SIZES}  # fmt: skip
    return out


def summary(runs: list[dict[str, Any]], replays: dict[str, dict[int, int]]) -> dict[str, Any]:
    """Per series: the sizes' tally over every run, and over the real programs' runs at a probed
    size the replay's median |error| [%] at the run's size and at the other, and how many runs
    ran above the replay at their own size."""
    out: dict[str, Any] = {}
    for run in runs:
        s = out.setdefault(_series(run["cell"]), {"tally": Counter(), "own": [], "other": []})
        s["tally"][str(run["entries"])] += 1
        key = json.dumps(run["cell"], sort_keys=True)
        if key not in replays or run["killed"] or run["entries"] not in SIZES:
            continue
        k, at = run["major_faults"], replays[key]
        if k <= 0:
            continue
        other = SIZES[1 - SIZES.index(run["entries"])]
        s["own"].append((at[run["entries"]] - k) / k * 100)
        s["other"].append((at[other] - k) / k * 100)
    return {
        name: {
            "tally": dict(sorted(s["tally"].items())),
            "runs": len(s["own"]),
            "median_abs_error_own_size": statistics.median(abs(x) for x in s["own"]),
            "median_abs_error_other_size": statistics.median(abs(x) for x in s["other"]),
            "replay_below": sum(x < 0 for x in s["own"]),
        }
        for name, s in sorted(out.items())
        if s["own"]
    }


def _write(path: Path, about: str, summary: dict[str, Any], runs: list[dict[str, Any]]) -> dict:
    """A record (its `about`, `summary` and `runs`) written whole to `path`; its summary."""
    from .. import _atomic

    data = {"about": about, "summary": summary, "runs": runs}
    _atomic.write_text(path, json.dumps(data, indent=1) + "\n")
    return summary


def write(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return _write(
        RECORD,
        "Each run of the reference's boot orders (repeats 0 to N - 1) booted again with "
        "the TLB probe after its loop: its major faults and the TLB entries it ran with, and per "
        "series the shipped replay at the run's size against the run. Made by `python -m "
        "pagelab.linux.tlb_paired`.",
        summary(runs, _replays(runs)),
        runs,
    )


def last_summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per kernel, the sizes the probed (last) runs of its boots ran with, tallied over all its
    programs and patterns and per trace."""
    out: dict[str, Any] = {}
    for run in runs:
        if run["entries"] is None:
            continue
        got = out.setdefault(run["cell"]["kernel"], {"tally": Counter(), "by_trace": {}})
        got["tally"][str(run["entries"])] += 1
        by = got["by_trace"].setdefault(run["cell"]["program"], Counter())
        by[str(run["entries"])] += 1
    return {k: {"tally": dict(sorted(v["tally"].items())),
                "by_trace": {t: dict(sorted(c.items())) for t, c in sorted(v["by_trace"].items())}}
            for k, v in sorted(out.items())}  # fmt: skip


def last_weights(kernel: str, path: Path = RECORD_LAST) -> tuple[tuple[int, int], ...]:
    """The TLB's sizes of `kernel`'s runs booted as the reference's were, as (entries, weight):
    a boot's first run at 256 (every boot of `linux-tlb-paired-runs`), each of its other
    fifteen at the sizes the last runs of `--last`'s boots had (256 or 512; any other reading
    left out). So 512 weighs 15 x k of 16 x n, with k of the n last runs at 512; a size of
    no weight is left out (docs/readings.md `linux-tlb-last-run`)."""
    sizes = Counter(r["entries"] for r in json.loads(path.read_text())["runs"]
                    if r["cell"]["kernel"] == kernel and r["entries"] in SIZES)  # fmt: skip
    n, k = sizes[256] + sizes[512], sizes[512]
    if n == 0:
        raise PagelabError(f"{path.name}: no run of {kernel} with a TLB size")
    return tuple((size, w) for size, w in ((256, 16 * n - 15 * k), (512, 15 * k)) if w)


def write_last(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return _write(
        RECORD_LAST,
        "The reference's boot orders (repeats 0 to N - 1) booted again with the TLB "
        "probe after the last loop of each boot alone, so that each probed run follows runs "
        "booted as the reference's were: every run's major faults, the last run's TLB entries, "
        "and per kernel the sizes' tally. Made by `python -m pagelab.linux.tlb_paired --last`.",
        last_summary(runs),
        runs,
    )


def main(argv: list[str] | None = None) -> None:
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m pagelab.linux.tlb_paired",
        description="Boot the reference's boot orders with the TLB probe and set each run's size "
        "beside its faults; writes reproductions/targets/linux-tlb-paired.json.",
    )
    ap.add_argument("--repeats", type=int, default=REPEATS, metavar="N",
                    help=f"the reference's first N boot orders (default {REPEATS})")  # fmt: skip
    ap.add_argument(
        "--from-record",
        action="store_true",
        help="recompute the summary from the stored runs; boots nothing",
    )
    ap.add_argument(
        "--last",
        action="store_true",
        help="probe only each boot's last run, after runs booted as the reference's were "
        "(reproductions/targets/linux-tlb-last.json)",
    )
    a = ap.parse_args(argv)
    if a.repeats < 1:
        ap.error(f"--repeats {a.repeats}: expected at least 1")
    try:
        if a.from_record:
            runs = json.loads((RECORD_LAST if a.last else RECORD).read_text())["runs"]
        else:
            from .. import progress

            with progress.bar("kernel runs") as update:
                runs = measure(a.repeats, update, last=a.last)
        print(json.dumps((write_last if a.last else write)(runs), indent=1))
    except (PagelabError, OSError, ValueError, KeyError) as e:
        ap.error(str(e))


if __name__ == "__main__":
    main()
