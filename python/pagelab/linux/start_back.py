"""When the kernel gives back the kernel pages the cgroup holds at its loop's start.

The replay's start's charge (`linux-start-charge`) is kernel memory the first reclaim frees:
its `shrink_slab` frees the cgroup's dentries and inodes. Their pages reach the cgroup's
charge only later: the objects go back through RCU and the per-CPU object and page stocks
(mm/memcontrol.c `refill_obj_stock` → `drain_obj_stock` → `__refill_stock`, then
`consume_stock` at a later charge), at a time set by RCU's grace period, not by the reclaims.
Where they come back shows in the lists' sizes at the reclaims that follow: one step up, at
the first reclaim after the charge that takes them.

So the probe boots each program at its `SWITCH_CELLS` level under both lists, as
`lru_probe` boots a cell (the lists read by kprobes at each reclaim, no fault tracing), and
finds in each boot the reclaim after whose end the lists first step up among the first six.
Per series and list the lower median over the boots that step is the reclaim the replay
gives the pages back at (`overhead.json` `start_back_at`; docs/readings.md
`linux-start-back-measured`).
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from ..errors import PagelabError

#: The record the probe writes.
RECORD = Path(__file__).parents[1] / "reproductions" / "targets" / "linux-start-back.json"
#: Reclaims read from each boot's start.
FIRST = 6
#: Boots per cell by default.
BOOTS = 2


def step_after(lists: list[int]) -> int | None:
    """The reclaim (counted from 1) after whose end the lists first hold more pages than at the
    reclaim before, among the first `FIRST`; None if they never step up there."""
    head = lists[:FIRST]
    return next((k for k in range(1, len(head)) if head[k] > head[k - 1]), None)


def start_back_at(runs: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per series and list (`two_list`, `mglru`) the lower median of the boots' `step`, over
    the boots that step; 1 (the first reclaim, the rule before this probe) where none does."""
    got: dict[str, dict[str, list[int]]] = {}
    for r in runs:
        lists = got.setdefault(r["series"], {"two_list": [], "mglru": []})
        if r["step"] is not None:
            lists["mglru" if r["lru_gen"] else "two_list"].append(r["step"])
    return {s: {k: statistics.median_low(v) if v else 1 for k, v in sorted(lists.items())}
            for s, lists in sorted(got.items())}  # fmt: skip


def measure(boots: int = BOOTS, kernels: tuple[str, ...] = ("6.1", "6.12")) -> list[dict]:
    """`boots` boots of each program's `SWITCH_CELLS` cell under both lists of each series, one
    cell a boot, each its lists' sizes at its first reclaims and its step."""
    from ..reproductions import _linux_grid as grid
    from . import instrument

    runs = []
    for series in kernels:
        for program, level in grid.SWITCH_CELLS[: len(grid.PROGRAMS)]:
            for lru_gen in (False, True):
                job = grid.jobs_for([grid.Cell(program, level, series, lru_gen)])[0]
                for boot in range(boots):
                    run = {"series": series, "program": program, "level": level,
                           "lru_gen": lru_gen, "boot": boot}  # fmt: skip
                    try:
                        rec, events = instrument.traced(job)
                    except PagelabError as e:  # recorded; the other boots still run
                        run.update(lists=[], step=None, error=str(e))
                    else:
                        lists = [e["pages"] for e in events if e["event"] == "lru_pages"]
                        run.update(lists=lists[:FIRST], step=step_after(lists),
                                   major_faults=rec["major_faults"])  # fmt: skip
                    print(json.dumps(run), flush=True)
                    runs.append(run)
    return runs


def write(runs: list[dict[str, Any]], record: Path = RECORD) -> dict[str, dict[str, int]]:
    """The runs to `record`, and `start_back_at` of them to overhead.json."""
    from .. import _atomic
    from .prediction import update_overhead

    got = start_back_at(runs)
    data = {
        "about": "The lists' sizes at each boot's first reclaims (kprobes, as lru_probe reads "
        "them) and the reclaim after whose end they first step up, where the start's kernel "
        "pages come back; start_back_at is per series and list the lower median over the boots "
        "that step. Made by `python -m pagelab.linux.start_back`.",
        "start_back_at": got,
        "runs": runs,
    }
    _atomic.write_text(record, json.dumps(data, indent=1) + "\n")
    about = (
        "Per series and list, the reclaim (from 1) at whose end the start's kernel pages come "
        "back: the lower median of where the lists first step up over the probe's boots "
        "(python -m pagelab.linux.start_back); the replay uses it wherever it holds the start's "
        "charge."
    )
    update_overhead({"start_back_at": got, "about_start_back_at": about})
    return got


def main(argv: list[str] | None = None) -> None:
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m pagelab.linux.start_back",
        description="Boot each program's cell under both lists and find the reclaim at which "
        "the start's kernel pages come back; writes reproductions/targets/linux-start-back.json "
        "and overhead.json's start_back_at.",
    )
    ap.add_argument("--boots", type=int, default=BOOTS, metavar="N",
                    help=f"boots a cell (default {BOOTS})")  # fmt: skip
    ap.add_argument("--from-record", action="store_true",
                    help="recompute overhead.json's start_back_at from the stored record; boots "
                    "nothing")  # fmt: skip
    a = ap.parse_args(argv)
    if a.boots < 1:
        ap.error(f"--boots {a.boots}: expected at least 1")
    try:
        runs = json.loads(RECORD.read_text())["runs"] if a.from_record else measure(a.boots)
        print(json.dumps(write(runs)))
    except (PagelabError, OSError, ValueError, KeyError) as e:
        ap.error(str(e))


if __name__ == "__main__":
    main()
