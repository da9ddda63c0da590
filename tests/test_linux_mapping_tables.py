"""The readings that change the replayer's layout or its reclaim: the
trace mapping's page tables charged as the loop takes them (docs/readings.md
`linux-mapping-tables`: where each is charged, what the limit gives back, and the first
reclaim it moves; on by default since `linux-adoption-paired`), the touch list's start drawn
(`linux-aslr-draws`, on by default since `linux-aslr-draws-paired`), and, off by default,
6.12's second reclaim pass (`linux-6.12-full-walk-retry`)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

from pagelab import linux
from pagelab.linux import prediction
from pagelab.linux.touches import prepare


def test_each_2_mib_of_the_mapping_is_charged_at_its_first_touch():
    """1,200 pages: the mapping ends where the touch list begins, read as the middle of its
    2 MiB, so its first page is (256 - 1200) mod 512 = 80 pages into a table: the tables
    cover pages 0-431, 432-943 and 944-1199, charged at their first touches."""
    assert prediction.mapping_tables(list(range(1200)), 1200) == [0, 432, 944]
    backwards = list(range(1199, -1, -1))
    assert prediction.mapping_tables(backwards, 1200) == [0, 1199 - 943, 1199 - 431]
    # A mapping of 278 pages at the middle offset spans two tables (490 pages into the first).
    assert prediction.mapping_tables(list(range(278)) * 2, 278) == [0, 22]


def _trace(tmp_path, pages: list[int]):
    path = tmp_path / "t.u64"
    np.array(pages, dtype=np.uint64).tofile(path)
    return path


def test_the_limit_gives_back_the_tables_the_loop_takes(tmp_path):
    """Off: the tables are in the limit. On: the limit holds as many more as the loop will
    charge, each charged at its first touch after the replayer's own pages; the loop's end is
    the same (`frames`)."""
    pages = list(range(1200)) * 2
    path = _trace(tmp_path, pages)
    touches = prepare(path)
    knobs = linux.make_knobs("6.1", "8M", "off")
    off_limit, off = prediction.loop_layout(
        touches, knobs, prediction.Options(mapping_tables=False), pages
    )
    on_limit, on = prediction.loop_layout(
        touches, knobs, prediction.Options(mapping_tables=True), pages
    )
    assert on_limit == off_limit + 3
    assert sorted(set(on.charges) - set(off.charges)) == [on.replayer + k for k in (0, 432, 944)]
    a = linux.predict(path, memory_max="8M", tlb="none", mapping_tables=False)
    b = linux.predict(path, memory_max="8M", tlb="none", mapping_tables=True)
    assert a["frames"] == b["frames"]


def test_the_first_reclaim_comes_later_by_the_tables_not_yet_taken(tmp_path):
    """600 pages written in order span two tables (the second from page 344). With room for
    100 of them by the loop's end, the 100th page's charge runs the first reclaim when both
    tables are charged before the loop, which evicts page 0, so touching it again right after
    is a major fault. Charged as taken, the second is not charged yet: the reclaim comes a
    page later and page 0 is still resident."""
    data = prediction.overhead("6.1")
    room = 100
    kernel = data["kernel_base_pages"]["6.1"] + 2
    mm = (kernel + data["replayer_anon_pages"]["6.1"] + room) * 4096
    path = _trace(tmp_path, list(range(room)) + [0] + list(range(room, 600)))
    for on, faults in ((False, [[room, 0]]), (True, [])):
        log = tmp_path / f"f{on}.json"
        got = linux.predict(path, memory_max=mm, tlb="none", mapping_tables=on, fault_log=log)
        assert json.loads(log.read_text())["faults"] == faults, on
        assert got["frames"] == room


def test_the_mapping_tables_are_a_predict_option_on_by_default(tmp_path):
    path = _trace(tmp_path, list(range(700)) * 2)
    base = linux.predict(path, memory_max="1M", tlb="none")
    assert base == linux.predict(path, memory_max="1M", tlb="none", mapping_tables=True)
    got = subprocess.run(
        [sys.executable, "-m", "pagelab", "linux", "predict", str(path), "--memory-max", "1M",
         "--tlb", "none", "--no-mapping-tables", "--format", "json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    off = json.loads(got.stdout)
    assert off == linux.predict(path, memory_max="1M", tlb="none", mapping_tables=False)
    assert off != base


def test_the_list_s_start_places_both_lists_of_tables():
    """The touch list `slot` pages into its 2 MiB takes its second table after 512 - slot
    pages of itself (the 24-byte header first, 4 bytes an entry), and the trace mapping, which
    ends where the list begins, starts (slot - pages) mod 512 pages into its own."""
    assert prediction.touch_list_tables(1_000_000) == [0, 262_138, 786_426]
    assert prediction.touch_list_tables(1_000_000, 461)[:2] == [0, (51 * 4096 - 24 + 3) // 4]
    # 1,200 pages ending at slot 51: 387 pages into the first table.
    assert prediction.mapping_tables(list(range(1200)), 1200, 51) == [0, 125, 637, 1149]


def test_the_draws_prediction_is_the_median_of_its_draws(tmp_path):
    """Under MGLRU (no flusher phase) the prediction with the draws is the replay whose major
    faults are the median of the five, one at each slot with the mapping's tables as taken."""
    pages = [p for _ in range(6) for p in range(900)] + [p % 97 for p in range(4000)]
    path = _trace(tmp_path, pages)
    touches = prepare(path)
    knobs = linux.make_knobs("6.1", "2M", "on")
    opts = prediction.Options(tlb=None, aslr_draws=True)
    listed = prediction.touch_pairs(touches)
    pairs = [(touches.pages + i, True) for i in range(16)] + listed
    runs = []
    for slot in prediction.ASLR_SLOTS:
        limit, loop = prediction.loop_layout(touches, knobs, opts, [p for p, _ in listed], slot)
        assert loop.replayer == 16
        runs.append(prediction._replay(pairs, limit, knobs, None, opts, (None, loop, None, None)))
    faults = sorted(r["major_faults"] for r in runs)
    got = linux.predict(path, memory_max="2M", lru_gen="on", tlb="none", aslr_draws=True)
    assert got["major_faults"] == faults[2]
    assert len(set(faults)) > 1, "the draws differ on this trace"


def test_the_draws_are_on_by_default_and_off_with_the_tables_before_the_loop(tmp_path):
    """By default the prediction draws the list's start; `--no-aslr-draws` takes the middle
    alone, and `--no-mapping-tables` the layout before both readings (tables before the loop,
    the middle). The touch list spans 1 MiB, so where it starts in its 2 MiB decides when its
    second page table is charged."""
    pages = [p for _ in range(300) for p in range(900)] + [p % 97 for p in range(4000)]
    path = _trace(tmp_path, pages)
    kw = {"memory_max": "3M", "lru_gen": "on", "tlb": "none"}
    base = linux.predict(path, **kw)
    assert base == linux.predict(path, aslr_draws=True, **kw)
    middle = linux.predict(path, aslr_draws=False, **kw)
    assert middle != base
    before = linux.predict(path, mapping_tables=False, **kw)
    assert before == linux.predict(path, mapping_tables=False, aslr_draws=False, **kw)
    got = subprocess.run(
        [sys.executable, "-m", "pagelab", "linux", "predict", str(path), "--memory-max", "3M",
         "--lru-gen", "on", "--tlb", "none", "--no-aslr-draws", "--format", "json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert json.loads(got.stdout) == middle


def test_the_full_walk_retry_is_6_12_s_alone_and_off_by_default(tmp_path):
    """`linux-6.12-full-walk-retry` (not adopted): off by default, and 6.1, which has no such
    retry, replays the same with it asked for (the rule's known answer is the Rust test
    `a_pass_that_frees_nothing_runs_again_under_6_12`)."""
    path = _trace(tmp_path, [p for _ in range(4) for p in range(700)])
    for kernel in ("6.1", "6.12"):
        base = linux.predict(path, kernel=kernel, memory_max="1M", tlb="none")
        off = linux.predict(path, kernel=kernel, memory_max="1M", tlb="none", full_walk_retry=False)
        assert base == off
    on = linux.predict(path, kernel="6.1", memory_max="1M", tlb="none", full_walk_retry=True)
    assert on == linux.predict(path, kernel="6.1", memory_max="1M", tlb="none")
