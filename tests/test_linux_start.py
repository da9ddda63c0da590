"""The loop's start: where the kernel's first reclaim runs (`linux.start_probe`), where the
replay's does by its layout, and the start's charge that moves it (docs/readings.md
`linux-start-charge`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from pagelab import linux
from pagelab.errors import PagelabError
from pagelab.linux import prediction, reclaim_events, start_back, start_probe
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


def test_the_start_draws_are_the_stored_probes_quantiles():
    """overhead.json's draws are what `--start-draws` makes of the stored probe: per series
    the lower 10-90 % quantiles of the pages the first reclaim came early by, less the report
    page; the lower median among them is `start_kernel_pages`."""
    import json

    from pagelab.reproductions import _linux_grid as grid

    made = grid.start_overhead(json.loads(grid.START.read_text())["runs"])
    for key, got in made.items():
        for series in grid.KERNELS:
            assert prediction.overhead(series)[key][series] == got[series], (key, series)
    for series in grid.KERNELS:
        draws = made["start_kernel_draws"][series]
        assert draws == sorted(draws) and draws[2] == made["start_kernel_pages"][series]
    runs = [{"cell": {"kernel": "6.1"}, "early_by": e} for e in (0, 1, 1, 2, 3, 3, 5, 5, 6, 9)]
    runs += [{"cell": {"kernel": "6.12"}, "early_by": 4}]
    made = grid.start_overhead(runs)
    assert made["start_kernel_draws"] == {"6.1": [0, 0, 2, 4, 5], "6.12": [3] * 5}
    assert made["start_kernel_pages"] == {"6.1": 2, "6.12": 3}


@pytest.mark.parametrize("lru_gen", [False, True])
def test_each_draw_holds_its_quantile_of_the_start(tmp_path, monkeypatch, lru_gen):
    """With the start drawn, the k-th replay takes the k-th slot of the layout (and under the
    two lists the k-th phase) with the start's pages at `START_ORDER[k]`; without it none
    holds a start."""
    seen: list[tuple] = []
    replay = prediction._replay

    def spy(pairs, frames, knobs, law, opts, run):
        seen.append((run[1].charges, None if law is None else law["phase_s"], run[2]))
        return replay(pairs, frames, knobs, law, opts, run)

    monkeypatch.setattr(prediction, "_replay", spy)
    path = tmp_path / "loop.u64"
    np.tile(np.arange(300, dtype=np.uint64), 3).tofile(path)
    knobs = linux.make_knobs("6.12", "1M", "on" if lru_gen else "off")
    touches = prepare(path)
    on = prediction.predict(touches, knobs, prediction.Options(tlb=None, start_draws=True))
    starts = [prediction.overhead("6.12")["start_kernel_draws"]["6.12"][i]
              for i in prediction.START_ORDER]  # fmt: skip
    touched = [p for p, _ in prediction.touch_pairs(touches)]
    opts = prediction.Options()
    slots = [prediction.loop_layout(touches, knobs, opts, touched, s)[1].charges
             for s in prediction.ASLR_SLOTS]  # fmt: skip
    phases = [None] * 5 if lru_gen else [2.0 * s for s in prediction.PHASES]
    # The draws run side by side, so they are compared as a set of (slot, phase, start).
    assert sorted(map(str, seen)) == sorted(map(str, zip(slots, phases, starts, strict=True)))
    assert len(starts) == 5 and starts != sorted(starts), "shuffled against the slots"
    seen.clear()
    off = prediction.predict(touches, knobs, prediction.Options(tlb=None, start_draws=False))
    assert [s for _, _, s in seen] == [None] * 5
    assert off != on


def test_the_start_draws_are_a_predict_option(tmp_path):
    """`--start-draws` on the CLI gives what the API does."""
    import json
    import subprocess
    import sys

    path = tmp_path / "once.u64"
    np.tile(np.arange(300, dtype=np.uint64), 2).tofile(path)
    got = subprocess.run(
        [sys.executable, "-m", "pagelab", "linux", "predict", str(path), "--memory-max", "1M",
         "--tlb", "none", "--start-draws", "--format", "json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert json.loads(got.stdout) == linux.predict(path, memory_max="1M", tlb="none",
                                                   start_draws=True)  # fmt: skip


def _lists_at_reclaims(touches, knobs, opts) -> list[int]:
    out = prediction.predict(touches, knobs, opts)
    return [e["pages"] for e in out["events"] if e["event"] == "lru_pages"]


@pytest.mark.parametrize("series", ["6.1", "6.12"])
def test_the_start_is_given_back_at_the_measured_reclaim(tmp_path, series):
    """The start's pages show as the step in the lists' sizes at the reclaim after the one
    they come back at; by default that reclaim is the series' and list's measure. Without the
    start's charge the rule changes nothing."""
    path = tmp_path / "loop.u64"
    np.tile(np.arange(300, dtype=np.uint64), 3).tofile(path)
    knobs = linux.make_knobs(series, "1M", "off")
    touches = prepare(path)
    held = prediction.Options(tlb=None, events=True, aslr_draws=False, start_charge=True)
    lists = {k: _lists_at_reclaims(touches, knobs, replace(held, start_back_at=k)) for k in (1, 2)}
    assert lists[1] != lists[2]
    assert lists[1][1] > lists[1][0] and lists[2][1] == lists[2][0] and lists[2][2] > lists[2][1]
    measured = prediction.start_back_at(knobs)
    assert _lists_at_reclaims(touches, knobs, held) == _lists_at_reclaims(
        touches, knobs, replace(held, start_back_at=measured)
    )
    free = prediction.Options(tlb=None, aslr_draws=False, start_charge=False)
    assert prediction.predict(touches, knobs, free) == prediction.predict(
        touches, knobs, replace(free, start_back_at=measured + 1)
    )


def test_the_step_is_the_first_rise_of_the_lists():
    assert start_back.step_after([28, 28, 29, 29]) == 2
    assert start_back.step_after([28, 29, 29]) == 1
    assert start_back.step_after([30, 29, 29, 29, 29, 29, 31]) is None, "past the first six"
    assert start_back.step_after([]) is None


def test_the_measure_is_the_lower_median_of_the_boots_that_step():
    def run(series, lru_gen, step):
        return {"series": series, "lru_gen": lru_gen, "step": step}

    runs = [run("6.1", False, 1), run("6.1", False, 2), run("6.1", False, None),
            run("6.12", False, 2), run("6.12", False, 2), run("6.12", False, 1),
            run("6.12", True, None)]  # fmt: skip
    assert start_back.start_back_at(runs) == {
        "6.1": {"mglru": 1, "two_list": 1},
        "6.12": {"mglru": 1, "two_list": 2},
    }


def test_the_overhead_takes_the_stored_probe():
    """overhead.json's `start_back_at` is what the stored record gives (no boot)."""
    import json

    record = json.loads(start_back.RECORD.read_text())
    got = start_back.start_back_at(record["runs"])
    assert got == record["start_back_at"]
    for series in ("6.1", "6.12"):
        assert prediction.overhead(series)["start_back_at"] == got
        for lru_gen, key in ((False, "two_list"), (True, "mglru")):
            knobs = linux.make_knobs(series, "1M", "on" if lru_gen else "off")
            assert prediction.start_back_at(knobs) == got[series][key]


def test_the_give_back_probe_refuses_no_boots():
    import subprocess
    import sys

    got = subprocess.run([sys.executable, "-m", "pagelab.linux.start_back", "--boots", "0"],
                         capture_output=True, text=True)  # fmt: skip
    assert got.returncode == 2
    assert got.stderr.strip().splitlines()[-1].endswith("--boots 0: expected at least 1")
