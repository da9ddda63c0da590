"""The accessed-bit probe (`linux.young_probe`): the kernel's tests placed in its order, the
evictions inferred, and the TLB's bits counted against the kernel's."""

from __future__ import annotations

import numpy as np
import pytest

from pagelab.errors import PagelabError
from pagelab.linux import reclaim_events, young_probe
from pagelab.linux.touches import prepare

BASE = 0x7F0012345


def _fault(page: int) -> str:
    return (f"  replayer-94 [000] d.... 4.71: page_fault_user: address=0x{page << 12:x} "
            "ip=0x401000 error_code=0x6")  # fmt: skip


def _test(kind: str, page: int, young: bool) -> str:
    pte = 0x8000000001234067 if young else 0x8000000001234047
    fn = "ptep_clear_flush_young" if kind == "cfy" else "ptep_test_and_clear_young"
    return (
        f"  replayer-94 [000] ...1. 4.90: {kind}: ({fn}+0x0/0x30) addr=0x{page << 12:x} pte={pte}"
    )


def _touches(tmp_path):
    """Pages 0-19 in order, then 0 again and 5 again."""
    path = tmp_path / "t.u64"
    np.array([*range(20), 0, 5], dtype=np.uint64).tofile(path)
    return prepare(path)


def _text(lines: list[str]) -> str:
    return "[replay]\n" + reclaim_events.SECTION + "\n" + "\n".join(lines) + "\n"


def test_the_kernels_tests_are_placed_in_its_order_with_the_evictions(tmp_path):
    """The fault on page 19 reclaims: it tests page 0 (old) and page 5 (young). Page 0 faults
    again at touch 20, so its test was its eviction; page 5 does not, and was kept. A test of
    the replayer's own page (off the mapping) is left out."""
    touches = _touches(tmp_path)
    lines = [_fault(BASE + p) for p in range(20)]
    lines += [_test("cfy", BASE + 0, False), _test("tcy", BASE + 5, True),
              _test("cfy", 0x4C5, True), _fault(BASE + 0)]  # fmt: skip
    # The tests run inside page 19's fault: after its line, before page 0's refault.
    rec = young_probe.recorded(_text(lines), touches)
    want = [(0, p, True, True) for p in range(19)]
    want += [(1, 0, False, False), (2, 0, False, False), (1, 5, False, False),
             (0, 19, True, True), (0, 0, True, True), (0, 5, False, True)]  # fmt: skip
    assert rec["steps"] == want
    assert rec["bits"] == [False, True]
    assert (rec["tests"], rec["faults"]) == (2, 21)
    got = young_probe.agreement(rec, touches.pages, shapes=((256, 8),))
    # Each page walked at its fault, so the TLB reads both bits as set: page 5 agrees, page 0
    # (which the kernel found clear) does not.
    assert got == [{"entries": 256, "victims": 8, "tests": 2, "agree": 1,
                    "kernel_old_tlb_young": 1, "kernel_young_tlb_old": 0}]  # fmt: skip


def test_a_test_inside_a_fault_off_the_mapping_comes_before_the_next_touch(tmp_path):
    """The touch list's page table is charged at a fault off the mapping, after page 19's
    fault, and that charge reclaims: page 0's test goes before touch 20 (page 0's refault),
    so the refault is its eviction and the TLB is told its bit was cleared."""
    touches = _touches(tmp_path)
    lines = [_fault(BASE + p) for p in range(20)]
    lines += [_fault(0x4C5), _test("cfy", BASE + 0, False), _fault(BASE + 0)]
    rec = young_probe.recorded(_text(lines), touches)
    assert rec["bits"] == [False]
    assert rec["steps"][19:23] == [
        (0, 19, True, True), (1, 0, False, False), (2, 0, False, False), (0, 0, True, True)
    ]  # fmt: skip
    before_loop = [_fault(0x4C5), _test("cfy", BASE + 3, True)] + lines
    assert young_probe.recorded(_text(before_loop), touches)["bits"] == [False]


def test_a_missing_section_or_no_tests_is_a_one_line_error(tmp_path):
    touches = _touches(tmp_path)
    with pytest.raises(PagelabError, match="no reclaim events"):
        young_probe.recorded("[replay]\n", touches)
    with pytest.raises(PagelabError, match="no accessed-bit tests"):
        young_probe.recorded(_text([_fault(BASE + p) for p in range(20)]), touches)


def test_the_guest_traces_the_tests_only_when_asked():
    on = "\n".join(reclaim_events.guest_on(young=True))
    assert all(k in on for k in young_probe.KPROBES) and "page_fault_user" in on
    assert "kprobe" not in "\n".join(reclaim_events.guest_on(faults=True))
    assert "cfy|tcy" in "\n".join(reclaim_events.guest_dump(young=True))
    assert "cfy" not in "\n".join(reclaim_events.guest_dump())


def test_the_probe_s_measured_record_reads_the_guest_s_tlb():
    """The stored probe (`python -m pagelab.linux.young_probe --boots 2`): on the window at
    8 MiB, under both series' two lists, a TLB of 256 entries reads at most one test in a boot
    otherwise than the kernel did, where 128 and 512 entries misread dozens to hundreds; on
    sort at 184 KiB under 6.12's two lists, a trace that reads as well as writes, 256 entries
    misread at most three of a boot's tests and every other size more."""
    import json

    from pagelab.reproductions import _linux_grid as grid

    data = json.loads((grid.REFERENCE.parent / "linux-young-probe.json").read_text())
    windows = [r for r in data["runs"] if r["cell"]["program"] == "window"]
    assert len(windows) >= 2
    for r in windows:
        wrong = {s["entries"]: s["tests"] - s["agree"] for s in r["tlb"]}
        assert wrong[256] <= 1 and wrong[128] > 10 and wrong[512] > 100, r["cell"]
    sorts = [
        r for r in data["runs"] if (r["cell"]["program"], r["cell"]["level"]) == ("sort", 20000)
    ]
    assert len(sorts) >= 2
    for r in sorts:
        wrong = {s["entries"]: s["tests"] - s["agree"] for s in r["tlb"]}
        assert wrong[256] <= 3 and all(wrong[e] > wrong[256] for e in (128, 512, 1024)), wrong
