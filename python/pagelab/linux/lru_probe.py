"""The pages on the lists at each reclaim, and MGLRU's generations at each step: the kernel's
beside the replay's.

A traced boot (`pagelab linux run --reclaim-events`) turns on kprobes that read the lists
where reclaim reads them (`lru_kprobes`): the two lists' sizes at their first isolation after
the reclaim's `lru_add_drain`; under 6.12's MGLRU, min_seq, max_seq and every generation's
pages at each `try_to_shrink_lruvec`, `evict_folios` and `try_to_inc_max_seq` (6.1's MGLRU:
the pages at its first `evict_folios`). The replay records the same (`ReclaimEvent::LruPages`,
`ReclaimEvent::Generations`). The pages on the lists when a reclaim begins are what memory.max
leaves the pages once everything else is charged, so they test the prediction's charges reclaim
by reclaim, where `overhead.json` measures them once, after the loop. The generations show
whether MGLRU's rules take the kernel's path from the kernel's state (docs/policies/
linux-replay.md "The lists at each reclaim").

    python -m pagelab.linux.lru_probe [program:level:6.1|6.12:on|off ...] [--all 6.1 6.12]
        [--show N]
"""

from __future__ import annotations

import math
import statistics
import tempfile
from pathlib import Path
from typing import Any

from ..errors import PagelabError

Step = tuple[str, int, tuple[int, ...]]


def reclaims(events: list[dict[str, Any]]) -> list[list[Step]]:
    """Per reclaim, its generation steps `(at, priority, sizes)` in order."""
    out: list[list[Step]] = []
    for e in events:
        if e["event"] == "reclaim_begin":
            out.append([])
        elif e["event"] == "generations" and out:
            out[-1].append((e["at"], e["priority"], tuple(e["sizes"])))
    return out


def lru_pages(events: list[dict[str, Any]]) -> list[int]:
    """The pages on the lists as each reclaim began."""
    return [e["pages"] for e in events if e["event"] == "lru_pages"]


def first_difference(kernel: list[list[Step]], replay: list[list[Step]]) -> dict[str, Any] | None:
    """The first reclaim whose steps differ, the step's index and both steps (None past the end
    of the shorter), or None when every shared reclaim matches."""
    for i, (k, r) in enumerate(zip(kernel, replay, strict=False)):
        if k == r:
            continue
        j = next((n for n, (a, b) in enumerate(zip(k, r, strict=False)) if a != b),
                 min(len(k), len(r)))  # fmt: skip
        return {"reclaim": i, "step": j, "kernel": k[j] if j < len(k) else None,
                "replay": r[j] if j < len(r) else None}  # fmt: skip
    return None


def compare(kernel_events: list[dict[str, Any]], replay_events: list[dict[str, Any]]) -> dict:
    """Reclaims each; the pages on the lists at a reclaim's start (each side's median, and the
    median of kernel less replay, reclaim by reclaim); under MGLRU the reclaims whose steps
    match and the first difference."""
    kp, rp = lru_pages(kernel_events), lru_pages(replay_events)
    if not kp:
        raise PagelabError("the kernel reported no lists (no reclaim, or no kprobes)")
    k, r = reclaims(kernel_events), reclaims(replay_events)
    pairs = [a - b for a, b in zip(kp, rp, strict=False)]
    out: dict[str, Any] = {
        "reclaims": {"kernel": len(kp), "replay": len(rp)},
        "lru_pages_median": {
            "kernel": statistics.median(kp),
            "replay": statistics.median(rp) if rp else None,
        },  # fmt: skip
        "lru_pages_first": {"kernel": kp[:3], "replay": rp[:3]},
        "kernel_less_replay_median": statistics.median(pairs) if pairs else None,
    }
    if any(k):
        out["matching_reclaims"] = sum(a == b for a, b in zip(k, r, strict=False))
        out["first_difference"] = first_difference(k, r)
    return out


def show(steps: list[Step]) -> str:
    return "  ".join(f"{at}@{p}{list(s)}" for at, p, s in steps)


def replay_events(cell) -> list[dict[str, Any]]:
    """The replay's events for a grid cell, predicted as linux-validation predicts it."""
    import json

    from .. import linux
    from ..reproductions import _linux_grid as grid
    from ..reproductions.linux_validation import _tlb

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "events.jsonl"
        linux.predict(cell.trace, kernel=cell.kernel, memory_max=grid.memory_max(cell),
                      lru_gen=cell.lru_gen, tlb=_tlb(cell), reclaim_events=path)  # fmt: skip
        return [json.loads(line) for line in path.read_text().splitlines()]


def offsets(runs: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per series and list, the pages the kernel's lists hold beyond the replay's at a
    reclaim: the median over the probed cells of each cell's `kernel_less_replay_median`,
    rounded half away from zero to a page (docs/readings.md `linux-lists-at-reclaim`); cells
    that failed or never reclaimed are left out, and a series needs both lists probed."""
    got: dict[str, dict[str, list[float]]] = {}
    for r in runs:
        if r.get("kernel_less_replay_median") is None:
            continue
        _, _, series, lru = r["cell"].split(":")
        got.setdefault(series, {}).setdefault("mglru" if lru == "on" else "two_list", []).append(
            r["kernel_less_replay_median"]
        )
    out = {}
    for series, lists in sorted(got.items()):
        if set(lists) == {"two_list", "mglru"}:
            out[series] = {k: _round(statistics.median(v)) for k, v in sorted(lists.items())}
    return out


def _round(x: float) -> int:
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def write_offsets(record: Path, overhead: Path) -> dict[str, dict[str, int]]:
    """`offsets` of the probe's record into overhead.json's `lists_offset_pages`."""
    import json

    from .prediction import update_overhead

    got = offsets(json.loads(record.read_text())["runs"])
    if not got:
        raise PagelabError(f"{record}: no series with both lists probed (run --all first)")
    about = (
        "Per series and list, the pages the kernel's lists hold beyond the replay's as each "
        "reclaim begins: the median over linux-validation's program cells of each cell's median, "
        "reclaim by reclaim, measured by kprobes (python -m pagelab.linux.lru_probe --all 6.1 "
        "6.12, then --offsets); the prediction's limit takes it with Options.lists_offset."
    )
    update_overhead({"lists_offset_pages": got, "about_lists_offset_pages": about}, overhead)
    return got


#: The cell probed by default: sort at its 5,000-miss limit (188 KiB) under 6.12's MGLRU,
#: where the replay faults less than the kernel.
CELL = "sort:5000:6.12:on"


def _cells(specs: list[str], every: list[str]) -> list:
    from ..reproductions import _linux_grid as grid

    if every:
        return [grid.Cell(p, lv, k, on) for k in every for on in (False, True)
                for p in grid.PROGRAMS for lv in grid.LRU_MISSES]  # fmt: skip
    out = []
    for spec in specs or [CELL]:
        parts = spec.split(":")
        if (len(parts) != 4 or not parts[1].isdigit() or parts[2] not in ("6.1", "6.12")
                or parts[3] not in ("on", "off")):  # fmt: skip
            raise PagelabError(f"cell {spec!r}: expected program:level:6.1|6.12:on|off")
        out.append(grid.Cell(parts[0], int(parts[1]), parts[2], parts[3] == "on"))
    return out


def _diagnose(ap, a) -> None:
    """`--with`: each cell booted with the diagnostic sets; its timeline printed (`--show N`
    reclaims, all by default) and with `--raw` its output kept."""
    from .. import _atomic
    from ..reproductions import _linux_grid as grid
    from . import diag_kprobes, instrument

    try:
        sets = diag_kprobes.parse_sets(a.sets)
        cells = _cells(a.cells, a.all)
        if a.raw and len(cells) != 1:
            raise PagelabError(f"--raw {a.raw}: expected one cell, got {len(cells)}")
        for cell in cells:
            text, _wall = instrument.traced_text(grid.jobs_for([cell])[0], sets)
            if a.raw:
                _atomic.write_text(a.raw, text)
            shown = 0
            for line in diag_kprobes.timeline(text):
                shown += " reclaim " in line
                if a.show and shown > a.show:
                    break
                print(line)
    except (PagelabError, OSError) as e:
        ap.error(str(e))


def main(argv: list[str] | None = None) -> None:
    import argparse
    import json

    from .. import _atomic
    from ..reproductions import _linux_grid as grid
    from . import instrument

    ap = argparse.ArgumentParser(
        prog="python -m pagelab.linux.lru_probe",
        description="Boot grid cells with their lists traced at each reclaim (and 6.12's MGLRU "
        "generations at each step) and set them beside the replay's; writes "
        "reproductions/targets/linux-lru-probe.json.",
    )
    ap.add_argument("cells", nargs="*", metavar="CELL", help=f"default: {CELL}")
    ap.add_argument("--all", nargs="+", choices=("6.1", "6.12"), metavar="SERIES",
                    help="every program cell of these series, both lists")  # fmt: skip
    ap.add_argument("--show", type=int, default=0, metavar="N", help="MGLRU reclaims printed")
    ap.add_argument("--offsets", action="store_true",
                    help="write the offsets into overhead.json; boots nothing")  # fmt: skip
    ap.add_argument("--with", dest="sets", metavar="SET[,SET]",
                    help="diagnostic kprobes besides (drains, flushes, refaults, charges): "
                    "their events printed with the reclaims; writes no record")  # fmt: skip
    ap.add_argument("--raw", type=Path, metavar="FILE",
                    help="with --with, the cell's whole output to FILE")  # fmt: skip
    a = ap.parse_args(argv)
    if a.sets is not None:
        _diagnose(ap, a)
        return
    out = Path(__file__).parents[1] / "reproductions" / "targets" / "linux-lru-probe.json"
    if a.offsets:
        from .prediction import OVERHEAD_FILE

        try:
            print(json.dumps(write_offsets(out, OVERHEAD_FILE)))
        except (PagelabError, OSError, ValueError, KeyError) as e:
            ap.error(str(e))
        return
    try:
        cells = _cells(a.cells, a.all)
    except PagelabError as e:
        ap.error(str(e))
    runs = []
    for cell in cells:
        name = f"{cell.program}:{cell.level}:{cell.kernel}:{'on' if cell.lru_gen else 'off'}"
        try:
            replay = replay_events(cell)
            rec, kernel = instrument.traced(grid.jobs_for([cell])[0])
            got = {"cell": name, "major_faults": rec["major_faults"], **compare(kernel, replay)}
        except PagelabError as e:  # one cell's failure is recorded; the others still run
            got, kernel, replay = {"cell": name, "error": str(e)}, [], []
        runs.append(got)
        print(json.dumps(got), flush=True)
        for i, (k, r) in enumerate(zip(reclaims(kernel), reclaims(replay), strict=False)):
            if i < a.show:
                print(f"  reclaim {i}\n    kernel {show(k)}\n    replay {show(r)}")
    data = {
        "about": "The pages on the lists as each reclaim begins (kprobes on isolate_lru_folios, "
        "try_to_shrink_lruvec or evict_folios: pagelab.linux.lru_kprobes) and 6.12's MGLRU "
        "generations at each step (try_to_shrink_lruvec, evict_folios, try_to_inc_max_seq), one "
        "boot a cell, beside the replay's. Made by `python -m pagelab.linux.lru_probe`.",
        "runs": runs,
    }
    _atomic.write_text(out, json.dumps(data, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
