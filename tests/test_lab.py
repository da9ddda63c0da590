"""The replacement lab through the Python API: known answers and laws."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pagelab

BELADY = [1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5]


def faults(policy: str, pages: list[int], frames: int, writes: list[bool] | None = None) -> int:
    (row,) = pagelab.curve(pages, [policy], [frames], writes=writes)
    return row["faults"]


def test_fifo_exhibits_belady_anomaly_on_classic_string():
    assert faults("fifo", BELADY, 3) == 9
    assert faults("fifo", BELADY, 4) == 10


def test_lru_and_min_on_classic_string():
    assert [faults("lru", BELADY, n) for n in (3, 4)] == [10, 8]
    assert [faults("min", BELADY, n) for n in (3, 4)] == [7, 6]


def test_rows_carry_counts_that_add_up():
    (row,) = pagelab.curve(BELADY, ["lru"], [3])
    assert row["policy"] == "lru" and row["frames"] == 3
    assert row["references"] == len(BELADY)
    assert row["fault_rate"] == pytest.approx(row["faults"] / row["references"])


def test_pushes_only_for_written_pages():
    pages = [1, 2, 3, 1, 2, 3, 4, 5, 6]
    clean = pagelab.curve(pages, ["fifo"], [2])[0]
    assert clean["pushes"] == 0
    dirty = pagelab.curve(pages, ["fifo"], [2], writes=[True] * len(pages))[0]
    # every replaced page was written: one push per replacement
    assert dirty["pushes"] == dirty["faults"] - 2


def new_loop_after_a_hot_set(loop: int, seed: int = 2) -> tuple[list[int], int]:
    """Three references to a hot set of 20 pages for each page read once, then a new loop of
    `loop` pages repeated 100 times; returns the string and the length of its first phase."""
    import random

    rng = random.Random(seed)
    pages, cold = [], 10_000
    for _ in range(3000):
        pages += [rng.randrange(20) for _ in range(3)] + [cold]
        cold += 1
    first = len(pages)
    for _ in range(100):
        pages += list(range(100, 100 + loop))
    return pages, first


def test_refault_distance_lets_a_new_working_set_in():
    """mm/workingset.c's case: the old hot set holds the active list, and a new loop longer
    than the inactive list but within memory faults on every reference unless its refaults,
    at distances within the active list, are activated (docs/policies/linux-lru.md)."""
    pages, first = new_loop_after_a_hot_set(30)
    with_refault, without = (
        r["faults"]
        for r in pagelab.curve(
            pages, ["linux-lru", {"kind": "linux-lru", "refault": False}], [48], warmup=first
        )
    )
    assert without == 30 * 100  # every reference of the loop faults
    assert 30 <= with_refault <= 3 * 30  # in after a few passes


def hot_set_with_scans(seed: int = 1) -> list[int]:
    """60 rounds of 2,000 references to a hot set of 24 pages, then a one-pass scan of 400 new
    pages with a hot reference every fourth page."""
    import random

    rng = random.Random(seed)
    pages, scan = [], 1000
    for _ in range(60):
        pages += [rng.randrange(24) for _ in range(2000)]
        for i in range(400):
            pages.append(scan)
            scan += 1
            if i % 4 == 0:
                pages.append(rng.randrange(24))
    return pages


def test_two_lists_resist_a_scan_and_generations_alone_do_not():
    """docs/policies/mglru.md: ARC and the two-list LRU keep the hot set through one-pass
    scans; generations aged by accessed bits alone fault as CLOCK does."""
    rows = pagelab.curve(
        hot_set_with_scans(), ["lru", "clock", "arc", "linux-lru", "mglru"], [32], warmup=5000
    )
    f = {r["policy"]: r["faults"] for r in rows}
    assert f["arc"] < f["linux-lru"] < 0.95 * f["lru"]
    assert abs(f["mglru"] - f["clock"]) < 0.01 * f["clock"]


def test_zero_frames_is_a_clear_error():
    with pytest.raises(pagelab.PagelabError, match="frames"):
        pagelab.curve(BELADY, ["lru"], [0])


def test_unknown_policy_is_a_clear_error():
    with pytest.raises(pagelab.PagelabError, match="nosuch"):
        pagelab.curve(BELADY, ["nosuch"], [3])


def test_every_listed_policy_runs():
    names = [p["name"] for p in pagelab.policies()]
    for required in ("fifo", "lru", "clock", "min", "ar", "random", "ws", "arc"):
        assert required in names
    fixed_space = [p["name"] for p in pagelab.policies() if not p["variable_space"]]
    for name in names:
        (row,) = pagelab.curve(BELADY, [name], [3])
        assert row["references"] == len(BELADY)
        if name in fixed_space:  # a working set may hold more than 3 pages
            assert row["faults"] >= faults("min", BELADY, 3)


def test_stepper_shows_the_frame_table():
    steps = list(pagelab.Stepper("fifo", 3, BELADY))
    assert len(steps) == len(BELADY)
    assert sum(s["fault"] for s in steps) == 9
    assert steps[3]["victim"] == 1  # the fourth reference replaces the first page in
    assert sorted(p for p in steps[3]["frames"] if p is not None) == [2, 3, 4]


strings = st.lists(st.integers(min_value=0, max_value=12), min_size=1, max_size=200)


@settings(max_examples=60, deadline=None)
@given(strings)
def test_lru_and_min_never_fault_more_with_more_frames(pages):
    for policy in ("lru", "min"):
        counts = [r["faults"] for r in pagelab.curve(pages, [policy], list(range(1, 8)))]
        assert counts == sorted(counts, reverse=True), (policy, counts)


@settings(max_examples=60, deadline=None)
@given(strings, st.integers(min_value=1, max_value=8))
def test_min_never_faults_more_than_any_policy(pages, frames):
    best = faults("min", pages, frames)
    for policy in ("fifo", "lru", "clock", "ar", "random", "arc"):
        assert best <= faults(policy, pages, frames), policy


def test_m44_run_time_model():
    # 10^6 references at 10 µs and 100 pulls at 0.21 s
    assert pagelab.m44_run_time(1_000_000, 100) == pytest.approx(10 + 21)
