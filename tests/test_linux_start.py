"""The loop's start: where the kernel's first reclaim runs (`linux.start_probe`), where the
replay's does by its layout, and the start's charge that moves it (docs/readings.md
`linux-start-charge`)."""

from __future__ import annotations

import numpy as np
import pytest

from pagelab import linux
from pagelab.errors import PagelabError
from pagelab.linux import prediction, reclaim_events, start_probe
from pagelab.linux.touches import prepare

BASE = 0x7F0012345


def _fault(page: int) -> str:
    return (f"  replayer-141 [000] ..... 6.25: page_fault_user: address=0x{page << 12:x} "
            "ip=0x401000 error_code=0x6")  # fmt: skip


def _begin(gfp: str) -> str:
    return f"  replayer-141 [000] .N... 6.25: mm_vmscan_memcg_reclaim_begin: gfp_flags={gfp}"


def _trace(tmp_path, pages: list[int]):
    path = tmp_path / "t.u64"
    np.array(pages, dtype=np.uint64).tofile(path)
    return prepare(path)


def test_the_kernels_first_fault_reclaim_is_placed_at_its_written_page(tmp_path):
    """Forty pages written in order, then again: the limit write's reclaim (GFP_KERNEL) comes
    before the loop and is not the loop's; the first fault's reclaim comes inside the fault
    on the 31st page, touch 30."""
    touches = _trace(tmp_path, list(range(40)) * 2)
    lines = [_begin("GFP_KERNEL")]
    for p in range(40):
        lines.append(_fault(BASE + p))
        if p == 30:
            lines.append(_begin("GFP_HIGHUSER_MOVABLE"))
    text = "[replay]\n" + reclaim_events.SECTION + "\n" + "\n".join(lines) + "\n"
    assert start_probe.kernel_first(text, touches) == {"touch": 30, "written": 31}


def test_a_loop_without_a_reclaim_or_a_section_is_a_one_line_error(tmp_path):
    touches = _trace(tmp_path, list(range(40)))
    with pytest.raises(PagelabError, match="no reclaim events"):
        start_probe.kernel_first("[replay]\n", touches)
    text = reclaim_events.SECTION + "\n" + "\n".join(_fault(BASE + p) for p in range(40))
    with pytest.raises(PagelabError, match="ran no reclaim"):
        start_probe.kernel_first(text, touches)


def test_the_replays_first_reclaim_is_where_its_layout_puts_it(tmp_path):
    """With room for 20 pages besides the replayer's, the touch list's first page table takes
    one, so the 20th written page runs the first reclaim: 19 pages written reclaim nothing,
    20 reclaim once; with the start's charge (the report page and the kernel pages) that many
    pages earlier."""
    data = prediction.overhead("6.1")
    kernel = data["kernel_base_pages"]["6.1"] + 1
    room = 20
    mm = (kernel + data["replayer_anon_pages"]["6.1"] + room) * 4096
    knobs = linux.make_knobs("6.1", mm, "off")
    first = start_probe.model_first(knobs, _trace(tmp_path, list(range(100))))
    assert first == room
    early = prediction.start_kernel_pages(knobs) + 1
    for start, at in ((False, first), (True, first - early)):
        for n, reclaims in ((at - 1, 0), (at, 1)):
            path = tmp_path / f"p{n}.u64"
            np.arange(n, dtype=np.uint64).tofile(path)
            got = linux.predict(path, memory_max=mm, tlb="none", start_charge=start)
            assert got["reclaims"] == reclaims, (start, n)


def test_the_start_charge_is_a_predict_option_off_by_default(tmp_path):
    """Off by default (`linux-start-charge`, not adopted). On, the CLI gives what the API does,
    with the report page read back after the loop (the first reclaim's place is the test
    above)."""
    import json
    import subprocess
    import sys

    path = tmp_path / "once.u64"
    np.arange(400, dtype=np.uint64).tofile(path)
    base = linux.predict(path, memory_max="1M", tlb="none")
    assert base == linux.predict(path, memory_max="1M", tlb="none", start_charge=False)
    got = subprocess.run(
        [sys.executable, "-m", "pagelab", "linux", "predict", str(path), "--memory-max", "1M",
         "--tlb", "none", "--start-charge", "--format", "json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    on = json.loads(got.stdout)
    assert on == linux.predict(path, memory_max="1M", tlb="none", start_charge=True)
    assert on["pswpin"] == on["major_faults"] + 1, "the report page, read back after the loop"
    assert base["pswpin"] == base["major_faults"]
