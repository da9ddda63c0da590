"""The accessed bits reclaim reads in the kernel, against the bits the replay's TLB would set.

Reclaim reads a page's use from its PTE's accessed bit and clears it, through one of two x86
functions (arch/x86/mm/pgtable.c): `ptep_clear_flush_young` (the two lists' `folio_referenced`)
and `ptep_test_and_clear_young` (MGLRU's walks and look-around). A kprobe on each prints the
PTE before it is cleared (`KPROBES`), beside the replayer's user page faults
(`exceptions:page_fault_user`) and the reclaim tracepoints (`reclaim_events.guest_on(young=
True)`). The not-present faults are matched to the touch list as `fault_log.match` matches
them, and a test runs inside the fault before it, so its touch is that fault's. A test inside
a fault that is not the loop's (a page table charged for the touch list, the stack or the
binary may reclaim) goes before the touch after the loop's last fault; left out, its bit's
clearing would be missed and the page read young at its next test.

The kernel's order then runs through the replay's TLB (`linux/tlb.rs` `recorded_bits`): each
touch of the loop (a fault walks), each test, and each eviction (the last test of a page
before its next fault, after which `try_to_unmap` flushed its translation). Each test reads
the bit the TLB would have set. The share of tests where that is the kernel's bit says whether
the TLB is the guest's (docs/policies/linux-replay.md "The accessed bits, tested against the
kernel's").

Write-protect faults (present pages) are not in the fault list. Each touch carries whether it
writes, and `recorded_bits` walks on a write through a clean PTE (after a read's fault) as the
replay's own `resident_access` does, which covers 6.1's write-protect fault and 6.12's
dirty-bit walk alike.
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from .. import _core
from ..errors import PagelabError
from . import fault_log, reclaim_events
from .touches import Touches

#: The kprobes (`reclaim_events.KPROBES`).
KPROBES = reclaim_events.KPROBES
#: x86's `_PAGE_ACCESSED`.
ACCESSED = 1 << 5
#: The TLB shapes `agreement` tries by default: (entries, victims).
SHAPES = ((128, 8), (256, 8), (512, 8), (1024, 8))

_TEST = re.compile(r" (?:cfy|tcy): \(\S+\) addr=0x([0-9a-f]+) pte=(\d+)")


def recorded(text: str, touches: Touches) -> dict[str, Any]:
    """From one cell's output: the kernel's order as steps for `recorded_bits`
    (`(kind, page, faulted, write)`: 0 a touch, 1 a test, 2 an eviction), the bit each test read
    (`bits`) and the counts; a one-line error where the section or the tests are missing."""
    tests: list[tuple[int, int, bool]] = []  # (faults before it, address page, young)

    def test(line: str, before: int) -> None:
        t = _TEST.search(line)
        if t:
            page = int(t.group(1), 16) >> fault_log.PAGE_SHIFT
            tests.append((before, page, bool(int(t.group(2)) & ACCESSED)))

    faults = reclaim_events.user_faults(text, test)
    if not tests:
        raise PagelabError("the guest printed no accessed-bit tests (kprobes unavailable?)")
    pages, writes = fault_log.touch_entries(touches)
    got = fault_log.match(faults, pages)
    i0, t0 = got["positions"][0]
    base = faults[i0] - int(pages[t0])
    at = dict(got["positions"])  # fault index -> touch
    matched = sorted(at)
    by_touch: dict[int, list[tuple[int, bool]]] = {}
    for before, page, young in tests:
        p = page - base
        touch = _touch_of(before - 1, at, matched)
        if touch is not None and 0 <= p < touches.pages:
            by_touch.setdefault(touch, []).append((p, young))
    return _steps(pages.tolist(), writes.tolist(), by_touch, set(at.values()))


def _touch_of(fault: int, at: dict[int, int], matched: list[int]) -> int | None:
    """The touch a test inside fault `fault` comes before: that fault's own touch where the
    fault is the loop's; else (a fault on the touch list, the stack or the binary, whose page
    table's charge may reclaim) the touch after the last of the loop's faults before it, the
    earliest the replayer could reach next. None before the loop's first fault."""
    if fault in at:
        return at[fault]
    i = bisect.bisect_left(matched, fault)
    return at[matched[i - 1]] + 1 if i > 0 else None


def _steps(
    pages: list[int],
    writes: list[bool],
    by_touch: dict[int, list[tuple[int, bool]]],
    faulted: set[int],
) -> dict[str, Any]:
    """The steps in the kernel's order (`(kind, page, faulted, write)`): each touch's tests
    before its access, each page's last test before its next fault followed by its eviction."""
    steps: list[tuple[int, int, bool, bool]] = []
    bits: list[bool] = []
    last_test: dict[int, int] = {}
    evicted: set[int] = set()
    for t, page in enumerate(pages):
        for p, young in by_touch.get(t, ()):
            last_test[p] = len(steps)
            steps.append((1, p, False, False))
            bits.append(young)
        if t in faulted and page in last_test:
            evicted.add(last_test.pop(page))
        steps.append((0, page, t in faulted, writes[t]))
    out: list[tuple[int, int, bool, bool]] = []
    for i, s in enumerate(steps):
        out.append(s)
        if i in evicted:
            out.append((2, s[1], False, False))
    return {"steps": out, "bits": bits, "tests": len(bits), "faults": len(faulted)}


def agreement(rec: dict[str, Any], npages: int, shapes=SHAPES) -> list[dict[str, int]]:
    """For each TLB shape (entries, victims), the tests where it reads the kernel's bit and
    where it does not, each way (the touch list after the mapping, as the replay has it)."""
    out = []
    for entries, victims in shapes:
        tlb = {"entries": entries, "victims": victims, "list_offset": npages}
        model = _core.linux_tlb_bits(rec["steps"], tlb)
        pairs = list(zip(rec["bits"], model, strict=True))
        out.append({
            "entries": entries,
            "victims": victims,
            "tests": len(pairs),
            "agree": sum(k == m for k, m in pairs),
            "kernel_old_tlb_young": sum(m and not k for k, m in pairs),
            "kernel_young_tlb_old": sum(k and not m for k, m in pairs),
        })  # fmt: skip
    return out


def boot(job, *, accel: str = "tcg") -> tuple[dict[str, Any], dict[str, Any]]:
    """One boot of an instrument job with the tests recorded (never cached: the trace buffer
    is not a counter): the run's counters and `recorded`'s steps."""
    import dataclasses

    from . import guest, instrument, kernels, record

    cell = dataclasses.replace(instrument._cell(job, reclaim_events=True), young=True)
    boot_ = guest.Boot(job.knobs.swap, (cell,), accel)
    texts, _wall = guest.run(boot_, kernels.kernel(job.knobs.kernel), {cell.name: job.touches.path})
    counters = record.counters(texts[0], job.knobs.memory_max, job.touches.pages)
    return counters, recorded(texts[0], job.touches)


#: The cells probed by default (linux-validation's, `program:level:kernel:lru`): the window whose
#: reclaims the probe first followed, its 6.12 twin, and a small program under each of 6.12's
#: lists (the two lists' where they part from the kernel's, docs/policies/linux-replay.md).
CELLS = ("window:8:6.1:off", "window:8:6.12:off", "sort:5000:6.12:on", "sort:20000:6.12:off")


def main(argv: list[str] | None = None) -> None:
    import argparse
    import json

    from .. import _atomic
    from ..reproductions import _linux_grid as grid

    ap = argparse.ArgumentParser(
        prog="python -m pagelab.linux.young_probe",
        description="Boot grid cells with the accessed bit's tests traced and run the kernel's "
        "order through the replay's TLB; writes reproductions/targets/linux-young-probe.json.",
    )
    ap.add_argument("cells", nargs="*", metavar="CELL", help=f"default: {' '.join(CELLS)}")
    ap.add_argument("--boots", type=int, default=1, metavar="N", help="boots a cell (default 1)")
    a = ap.parse_args(argv)
    runs = []
    for spec in a.cells or CELLS:
        parts = spec.split(":")
        if len(parts) != 4 or parts[3] not in ("on", "off") or not parts[1].isdigit():
            ap.error(f"cell {spec!r}: expected program:level:kernel:on|off")
        cell = grid.Cell(parts[0], int(parts[1]), parts[2], parts[3] == "on")
        job = grid.jobs_for([cell])[0]
        for n in range(a.boots):
            counters, rec = boot(job)
            shapes = agreement(rec, job.touches.pages)
            runs.append({"cell": cell.__dict__, "boot": n, "major_faults": counters["major_faults"],
                         "tests": rec["tests"], "tlb": shapes})  # fmt: skip
            most = max(s["agree"] for s in shapes)
            sizes = "/".join(str(s["entries"]) for s in shapes if s["agree"] == most)
            print(f"{spec} boot {n}: {counters['major_faults']} major faults; of "
                  f"{rec['tests']} tests, a TLB of {sizes} entries reads {most} "
                  "as the kernel did")  # fmt: skip
    data = {
        "about": "The accessed bits the kernel's reclaim read (kprobes on ptep_clear_flush_young "
        "and ptep_test_and_clear_young), against the bits the replay's TLB sets when the "
        "kernel's own order of touches, faults, tests and evictions runs through it, per TLB "
        "shape. Made by `python -m pagelab.linux.young_probe`.",
        "runs": runs,
    }
    out = grid.REFERENCE.parent / "linux-young-probe.json"
    _atomic.write_text(out, json.dumps(data, indent=1) + "\n")
    print(out)


if __name__ == "__main__":
    main()
