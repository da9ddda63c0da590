"""The Linux replay through the Python binding: the counters' shape, page lists and errors."""

import numpy as np
import pytest

from pagelab import _core, linux
from pagelab.errors import PagelabError

KEYS = {
    "references",
    "major_faults",
    "minor_faults",
    "pswpin",
    "pswpout",
    "workingset_refault_anon",
    "workingset_activate_anon",
    "workingset_restore_anon",
    "zswpout",
    "zswpin",
    "zswap_rejected",
    "zswap_written_back",
    "reclaims",
    "memstall_swapouts",
    "memstall_swapins",
}


@pytest.mark.parametrize("kernel", ["6.1", "6.12"])
@pytest.mark.parametrize("lru_gen", [False, True])
def test_a_loop_larger_than_the_limit_swaps(kernel, lru_gen):
    pages = list(range(300)) * 5
    c = _core.linux_replay(pages, 200, kernel=kernel, lru_gen=lru_gen)
    assert set(c) == KEYS
    assert c["references"] == 1500
    assert c["minor_faults"] == 300  # each page's first write
    assert c["major_faults"] == c["pswpin"] > 0
    assert c["pswpout"] >= c["pswpin"]


def test_reads_map_the_zero_page_and_pairs_carry_writes():
    reads = [(p, False) for p in range(500)]
    c = _core.linux_replay(reads, 10)
    assert (c["minor_faults"], c["major_faults"], c["pswpout"]) == (500, 0, 0)


def test_writes_keyword_gives_each_page_its_kind():
    pages = list(range(500))
    c = _core.linux_replay(pages, 10, writes=[False] * 500)
    assert (c["minor_faults"], c["pswpout"]) == (500, 0)
    with pytest.raises(ValueError, match="writes"):
        _core.linux_replay(pages, 10, writes=[True])


def test_touch_words_are_the_pairs_packed():
    """`bytes` of touch words (the page, bit 31 a write) replay as the pairs they pack, with
    and without the recorded steps; a torn word is a one-line error."""
    rng = np.random.default_rng(7)
    pages = rng.integers(0, 300, 4000)
    writes = rng.random(4000) < 0.6
    pairs = [(int(p), bool(w)) for p, w in zip(pages, writes, strict=True)]
    words = (pages.astype("<u4") | np.where(writes, 0x80000000, 0).astype("<u4")).tobytes()
    for kernel in ("6.1", "6.12"):
        assert _core.linux_replay(words, 120, kernel=kernel) == _core.linux_replay(
            pairs, 120, kernel=kernel
        )
        got = _core.linux_replay(words, 120, kernel=kernel, reclaim_events=True)
        assert got == _core.linux_replay(pairs, 120, kernel=kernel, reclaim_events=True)
    with pytest.raises(ValueError, match="multiple of 4"):
        _core.linux_replay(words[:-1], 120)


def test_the_faults_updates_move_six_ones_flushes_only():
    """`fault_stat_updates` adds the faults that charge nothing to 6.1's count of counter
    updates, so some reclaim flushes the two lists' copies earlier: on this seeded mix of reads
    and writes 6.1's replay changes (12,512 → 12,458 major faults), 6.12's and MGLRU's do not."""
    rng = np.random.default_rng(0)
    pages, writes = rng.integers(0, 120, 20000), rng.random(20000) < 0.5
    pairs = [(int(p), bool(w)) for p, w in zip(pages, writes, strict=True)]

    def run(kernel, lru_gen, on):
        return _core.linux_replay(pairs, 60, kernel=kernel, lru_gen=lru_gen, stat_read_at=0,
                                  fault_stat_updates=on)  # fmt: skip

    off, on = run("6.1", False, False), run("6.1", False, True)
    assert (off["major_faults"], on["major_faults"]) == (12512, 12458)
    for kernel, lru_gen in (("6.12", False), ("6.1", True), ("6.12", True)):
        assert run(kernel, lru_gen, False) == run(kernel, lru_gen, True), (kernel, lru_gen)


def test_the_prediction_passes_its_options_to_the_replay(monkeypatch, tmp_path):
    """`Options.fault_stat_updates` and `start_back_at` reach each replay; by default the
    constant and the series' measure."""
    from pagelab.linux import prediction

    seen = []
    replay = _core.linux_replay

    def spy(*args, **kwargs):
        seen.append((kwargs["fault_stat_updates"], kwargs["start_back_at"]))
        return replay(*args, **kwargs)

    monkeypatch.setattr(prediction._core, "linux_replay", spy)
    path = tmp_path / "loop.u64"
    np.tile(np.arange(300, dtype=np.uint64), 2).tofile(path)
    knobs = linux.make_knobs("6.12", "1M", "off")
    touches = linux.prepare(path)
    prediction.predict(touches, knobs, prediction.Options(tlb=None))
    default = (prediction.FAULT_STAT_UPDATES, prediction.start_back_at(knobs))
    assert seen and set(seen) == {default}
    seen.clear()
    opts = prediction.Options(tlb=None, fault_stat_updates=True, start_back_at=4)
    prediction.predict(touches, knobs, opts)
    assert set(seen) == {(True, 4)}


def test_clock_sessions_run_every_draw_at_each_sessions_clock(monkeypatch, tmp_path):
    """`Options.clock_sessions` (docs/readings.md `linux-clock-sessions`): each draw replays at
    every session's clock, the flusher's phase on the two lists' and the rseq writes on the
    list's own; off by default, where one pooled clock serves every draw."""
    from pagelab.linux import prediction

    seen = []
    replay = _core.linux_replay

    def spy(*args, **kwargs):
        clock, rseq = kwargs["clock"], kwargs["rseq"]
        seen.append((clock and clock["per_touch_s"], rseq and rseq["clock"]["per_touch_s"]))
        return replay(*args, **kwargs)

    laws = {False: [1e-8, 2e-8, 3e-8], True: [4e-8, 5e-8, 6e-8]}

    def sessions(kernel, lru_gen=False):
        return [{"per_touch_s": t, "per_major_fault_s": 0.0, "per_swapout_s": 0.0}
                for t in laws[lru_gen]]  # fmt: skip

    monkeypatch.setattr(prediction._core, "linux_replay", spy)
    monkeypatch.setattr(prediction, "session_clocks", sessions)
    path = tmp_path / "loop.u64"
    np.tile(np.arange(300, dtype=np.uint64), 2).tofile(path)
    touches = linux.prepare(path)
    two = linux.make_knobs("6.1", "1M", "off")
    prediction.predict(touches, two, prediction.Options(tlb=None))
    pooled = prediction.clock("6.1")["per_touch_s"]
    assert {c for c, _ in seen} == {pooled}
    seen.clear()
    prediction.predict(touches, two, prediction.Options(tlb=None, clock_sessions=True))
    assert sorted(set(seen)) == [(t, t) for t in laws[False]]
    assert len(seen) == 3 * len(prediction.PHASES)
    seen.clear()
    mglru = linux.make_knobs("6.1", "1M", "on")
    prediction.predict(touches, mglru, prediction.Options(tlb=None, clock_sessions=True))
    assert sorted(set(seen)) == [(None, t) for t in laws[True]]


def test_zswap_takes_the_evicted_pages():
    pages = list(range(300)) * 3
    z = {"total_ram_pages": 65536, "compressed_bytes": 40}
    c = _core.linux_replay(pages, 200, zswap=z)
    assert c["zswpout"] > 0 and c["pswpout"] == 0
    assert c["zswpin"] == c["major_faults"] > 0


def test_bad_options_are_one_line_errors():
    with pytest.raises(ValueError, match="kernel"):
        _core.linux_replay([1, 2], 4, kernel="5.4")
    with pytest.raises(ValueError, match="zswap"):
        _core.linux_replay([1, 2], 4, zswap={"total_ram_pages": 1})


def test_periodic_flush_is_six_twelves_reading_of_the_counters(tmp_path):
    """--periodic-flush (6.12's default): 6.12's two lists read the memcg counters as the
    replayer's report flushed them before the loop (no inactive page, exec's one active page:
    the inactive list reads as low, so every priority ages the active list) and then as the
    2-s flusher leaves them; here a hot set of 300 pages under one-time scans loses its
    protection more often than when the lists are read as they are. MGLRU reads no such copy
    and is unchanged. Without the guest's TLB (`tlb="none"`): a cached translation hides the
    hot set's use from either reading (`test_linux.py`), which is not what this test is
    about."""
    refs = []
    for r in range(20):
        refs += list(range(300)) * 2 + list(range(300 + r * 700, 300 + (r + 1) * 700))
    path = tmp_path / "hot-and-scans.u64"
    np.array(refs, dtype=np.uint64).tofile(path)

    def faults(lru_gen: str, flush: bool | None) -> int:
        return linux.predict(path, kernel="6.12", memory_max="2M", lru_gen=lru_gen,
                             periodic_flush=flush, tlb="none")["major_faults"]  # fmt: skip

    # Measured at 2 MiB: 3,508 against 2,503 major faults (before the copies' start was read
    # from the kernel, with no active page: 1,882 against 2,520).
    assert faults("off", True) > 1.2 * faults("off", False)
    assert faults("on", True) == faults("on", False)
    assert faults("off", None) == faults("off", True)  # 6.12's default: the flusher's copies


def test_the_rseq_page_is_the_replayers_second_at_the_measured_rate():
    """The prediction writes the replayer's second own page (after the trace's `pages`) at the
    measured switches per second of the series and list, on the fitted clock."""
    from pagelab.linux import prediction
    from pagelab.linux.knobs import knobs as make_knobs

    for kernel in ("6.1", "6.12"):
        rates = prediction.overhead(kernel)["switches_per_s"][kernel]
        for lru_gen, key in (("on", "mglru"), ("off", "two_list")):
            got = prediction.rseq_writes(make_knobs(kernel, "1M", lru_gen), 300)
            assert got["page"] == 301
            assert got["switches_per_s"] == rates[key] > 0
            law = prediction.clock(kernel, lru_gen == "on")
            assert got["clock"]["per_swapout_s"] == law["per_swapout_s"]


def test_rseq_tlb_reaches_each_replay(monkeypatch, tmp_path):
    """`Options.rseq_tlb` (docs/readings.md `linux-rseq-tlb-again`) sets the rseq writes'
    `through_tlb` in every replay; off by default."""
    from pagelab.linux import prediction

    seen = []
    replay = _core.linux_replay

    def spy(*args, **kwargs):
        seen.append(kwargs["rseq"]["through_tlb"])
        return replay(*args, **kwargs)

    monkeypatch.setattr(prediction._core, "linux_replay", spy)
    path = tmp_path / "loop.u64"
    np.tile(np.arange(300, dtype=np.uint64), 2).tofile(path)
    touches, knobs = linux.prepare(path), linux.make_knobs("6.12", "1M", "on")
    prediction.predict(touches, knobs, prediction.Options(tlb=None))
    assert seen and not any(seen)
    seen.clear()
    prediction.predict(touches, knobs, prediction.Options(tlb=None, rseq_tlb=True))
    assert seen and all(seen)


def test_a_bad_rseq_rate_is_a_one_line_error():
    clock = {"per_touch_s": 1.0, "per_major_fault_s": 0.0, "per_swapout_s": 0.0, "phase_s": 0.0}
    with pytest.raises(ValueError, match="rseq switches_per_s -1: expected a positive rate"):
        _core.linux_replay([0, 1], 10, rseq={"page": 1, "switches_per_s": -1.0, "clock": clock})


def test_each_list_has_its_own_clock_fitted_to_its_own_runs():
    """`--fit-clock` fits the two lists' clock to their runs and MGLRU's to MGLRU's, and the
    prediction times each list with its own (docs/readings.md `linux-clock-per-list`)."""
    import json

    from pagelab.linux import prediction
    from pagelab.reproductions import _linux_grid as grid

    ref = json.loads(grid.REFERENCE.read_text())
    for lru_gen, key in ((False, "clock"), (True, "clock_mglru")):
        fitted = grid.fit_clock(ref, lru_gen=lru_gen)
        for kernel in ("6.1", "6.12"):
            runs = sum(
                1
                for c in ref["cells"]
                if c["cell"]["kernel"] == kernel
                and c["cell"]["lru_gen"] == lru_gen
                and not c["cell"]["zswap"]
                for killed, secs in zip(
                    c["runs"]["oom_killed"], c["runs"]["replay_seconds"], strict=True
                )
                if not killed and secs > 0
            )
            assert fitted[kernel]["runs"] == runs
            stored = prediction.overhead(kernel)[key][kernel]
            assert stored == pytest.approx(fitted[kernel])
            law = prediction.clock(kernel, lru_gen)
            assert law["per_swapout_s"] == stored["per_swapout_s"]
    assert prediction.clock("6.1", True) != prediction.clock("6.1", False)


def test_the_kernel_against_itself_is_one_run_against_the_others_median():
    """`self_error`: each run against the median of the other runs, the median of those."""
    from pagelab.reproductions.linux_validation import self_error

    assert self_error([100, 100, 110, 90, 100]) == 0.0
    assert self_error([90, 110, 100]) == pytest.approx(15 / 105)
    assert self_error([90, 110]) is None
    assert self_error([0, 0, 0]) is None


def test_six_one_s_default_runs_the_periodic_flusher(tmp_path):
    """6.1's two lists run the 2-s flusher by default too (`linux-6.1-periodic-flusher`): the
    default prediction is the flusher's, the median of its five phases."""
    from pagelab.linux import prediction

    path = tmp_path / "loop.u64"
    np.array(list(range(600)) * 6, dtype=np.uint64).tofile(path)

    def run(flush: bool | None) -> dict:
        return linux.predict(path, kernel="6.1", memory_max="2M", periodic_flush=flush)

    assert prediction.PERIODIC_FLUSH["6.1"]
    assert run(None) == run(True)


def test_switches_inside_the_faults_reclaims_are_told_from_the_others():
    """Known answer: the limit write's reclaim (GFP_KERNEL) is not a fault's; a fault's reclaim
    with two switches and one without; a switch outside any reclaim. The loop's getrusage
    switches less the two inside leave five outside, over half a second."""
    from pagelab.linux import reclaim_events, switch_probe

    sw = "replayer-140 [000] d..2. 3.9: sched_switch: prev_comm=replayer prev_pid=140 ==> x"
    begin = "replayer-140 [000] ..... 3.9: mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags={}"
    end = "replayer-140 [000] ..... 3.9: mm_vmscan_memcg_reclaim_end: nr_reclaimed=31"
    lines = [begin.format("GFP_KERNEL"), sw, end, sw,
             begin.format("GFP_HIGHUSER_MOVABLE"), sw, sw, end,
             begin.format("GFP_KERNEL_ACCOUNT|__GFP_ZERO"), end]  # fmt: skip
    text = "[replay]\nx 1\n" + reclaim_events.SECTION + "\n" + "\n".join(lines) + "\n"
    got = switch_probe.inside_fault_reclaims(text)
    assert got == {"fault_reclaims": 2, "switched_reclaims": 1, "switches": 2}
    counters = {"context_switches": 7, "replay_seconds": 0.5, "oom_killed": 0}
    assert switch_probe.outside_rate(counters, got) == 10.0
    assert switch_probe.outside_rate({**counters, "oom_killed": 1}, got) is None
    with pytest.raises(PagelabError, match="no reclaim events"):
        switch_probe.inside_fault_reclaims("[replay]\n")


def test_a_write_after_a_read_swap_in_leaves_the_lru_add_batch(tmp_path):
    """6.1 maps a read swap-in exclusive and read-only; the write after it reuses the page
    without moving the CPU's `lru_add` batch (`anon_exclusive`, docs/readings.md
    `linux-anon-exclusive-reuse`). On reads each followed by a write the two rules part; on
    writes alone no write-protect fault is taken, so the rule cannot matter. The prediction's
    default is `prediction.ANON_EXCLUSIVE`, and the CLI's flag gives what the API does."""
    import json
    import random
    import subprocess
    import sys

    from pagelab.linux import prediction

    rng = random.Random(3)
    pairs = []
    for _ in range(3000):
        p = rng.randrange(60) if rng.random() < 0.7 else rng.randrange(60, 200)
        pairs += [(p, False), (p, True)]
    got = [_core.linux_replay(pairs, 40, kernel="6.1", anon_exclusive=on) for on in (False, True)]
    assert got[0]["major_faults"] != got[1]["major_faults"]
    writes = [p for p, w in pairs if w]
    alone = [
        _core.linux_replay(writes, 40, kernel="6.1", anon_exclusive=on) for on in (False, True)
    ]
    assert alone[0] == alone[1]
    path = tmp_path / "w.u64"
    np.array(writes, dtype=np.uint64).tofile(path)
    kw = {"memory_max": "400K", "tlb": "none"}
    assert linux.predict(path, **kw) == linux.predict(
        path, anon_exclusive=prediction.ANON_EXCLUSIVE, **kw
    )
    out = subprocess.run(
        [sys.executable, "-m", "pagelab", "linux", "predict", str(path), "--memory-max", "400K",
         "--tlb", "none", "--no-anon-exclusive", "--format", "json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert json.loads(out.stdout) == linux.predict(path, anon_exclusive=False, **kw)


def test_the_pooled_median_is_one_replay_at_half_the_weight():
    """Each size's replays share its weight; the first replay, by major faults, at which the
    cumulative weight reaches half is the prediction, whole (`linux-pooled-median`)."""
    from pagelab.linux import prediction

    def runs(*faults):
        return [{"major_faults": f, "pswpin": f + 1} for f in faults]

    small, large = runs(313, 316, 318, 318, 338), runs(408, 429, 429, 432, 443)
    assert prediction._pooled_median([(small, 1)]) == small[2]
    assert prediction._pooled_median([(small, 49), (large, 8)]) == small[2]
    assert prediction._pooled_median([(small, 8), (large, 49)]) == large[2]
    # Equal weights: half is reached at the fifth of ten, the larger of the small size's.
    assert prediction._pooled_median([(small, 1), (large, 1)]) == small[4]
    mean = prediction._mixed([(small[2], 49), (large[2], 8)])
    assert mean["major_faults"] == round((318 * 49 + 429 * 8) / 57), "the mean, between modes"
