"""`pagelab linux`: the harness's checks, and one real boot (both lists) as its smoke case."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

from pagelab import linux
from pagelab.errors import PagelabError
from pagelab.linux import guest, initramfs, knobs, record


def _kernel_or_skip():
    from pagelab.linux import kernels

    try:
        return kernels.kernel("6.1", fetch=False)
    except PagelabError:
        if shutil.which("apt-get") is None:
            pytest.skip("no apt here to fetch Debian's kernel")
        return kernels.kernel("6.1")


@pytest.fixture(scope="module")
def loop_trace(tmp_path_factory):
    """600 pages written in a loop 20 times: at 2 MiB (about 480 frames) every pass refaults."""
    path = tmp_path_factory.mktemp("linux") / "loop600.u64"
    np.tile(np.arange(600, dtype=np.uint64), 20).tofile(path)
    return path


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"kernel": "5.4"}, "--kernel 5.4: expected one of 6.1, 6.12"),
        ({"memory_max": "100K"}, "below what the replayer itself needs"),
        ({"memory_max": "100G"}, "above the 64 GiB"),
        ({"memory_max": "eight"}, "--memory-max 'eight': expected bytes"),
        ({"lru_gen": "maybe"}, "--lru-gen 'maybe': expected on or off"),
        ({"page_cluster": 40}, "--page-cluster 40: expected 0 to 31"),
        ({"swappiness": 201}, "--swappiness 201: expected 0 to 200"),
        ({"zswap": "lzo:zbud"}, "expected on, off or COMPRESSOR:ZPOOL:PERCENT"),
        ({"zswap": "gzip:zbud:20"}, "compressor 'gzip' is not one of"),
        ({"swap": "nfs"}, "--swap nfs: expected brd or zram"),
    ],
)
def test_a_bad_knob_is_one_line_naming_it(kw, message):
    with pytest.raises(PagelabError) as e:
        knobs.knobs(**kw)
    assert message in str(e.value)
    assert "\n" not in str(e.value)


def test_sizes_read_as_bytes():
    assert knobs.parse_size("8M") == 8 << 20
    assert knobs.parse_size("512KiB") == 512 << 10
    assert knobs.parse_size("4096") == 4096
    assert knobs.knobs(zswap="on").zswap == "lzo:zbud:20"
    assert knobs.knobs(kernel="6.12", zswap="on").zswap == "lzo:zsmalloc:20"


def test_missing_qemu_is_one_line(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(PagelabError, match="QEMU not found: apt-get install qemu-system-x86"):
        guest.qemu()


def test_the_cli_refuses_a_bad_option_in_one_line(loop_trace):
    got = subprocess.run(
        [sys.executable, "-m", "pagelab", "linux", "predict", str(loop_trace), "--kernel", "7"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert got.returncode == 2
    assert got.stderr.strip() == "pagelab: error: --kernel 7: expected one of 6.1, 6.12"


@pytest.mark.parametrize("argv", [["--help"], ["--hlep"], ["6.3"], ["--repeats", "0"]])
def test_the_grids_command_runs_nothing_on_a_help_or_a_typo(argv, monkeypatch, capsys):
    from pagelab.reproductions import _linux_grid as grid

    def ran(*args, **kwargs):
        raise AssertionError("a kernel run started")

    for name in ("measure", "write_reference", "write_context_switches", "write_tlb_probe"):
        monkeypatch.setattr(grid, name, ran)
    with pytest.raises(SystemExit) as stop:
        grid.main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == (0 if argv == ["--help"] else 2)
    if argv == ["6.3"]:
        assert "unknown kernel series '6.3': expected one of 6.1, 6.12" in err
    if argv[0] == "--repeats":
        assert "--repeats: expected a whole number of runs of at least 1, got 0" in err


def test_the_grids_repeats_reach_the_measurement(monkeypatch):
    from pagelab.reproductions import _linux_grid as grid

    got = []
    monkeypatch.setattr(grid, "measure", lambda repeats, **kw: got.append(repeats))
    monkeypatch.setattr(grid, "write_reference", lambda repeats, **kw: got.append(repeats))
    grid.main(["--measure-only", "--repeats", "3"])
    grid.main(["6.1"])
    # The default is the stored reference's own count, so remaking it keeps every run.
    assert got == [3, grid.REPEATS]
    assert json.loads(grid.REFERENCE.read_text())["repeats"] == grid.REPEATS


def test_extend_appends_new_runs_and_remakes_the_medians(monkeypatch, tmp_path):
    """--extend N boots repeats n..n+N-1 of the stored n, appends each cell's new runs to its
    stored ones and takes medians and ranges over all of them."""
    from pagelab.reproductions import _linux_grid as grid

    cell = {"program": "sort", "level": 200, "kernel": "6.1", "lru_gen": False}
    stored = {c: [10, 20] for c in grid.KEPT}
    ref = {"about": "", "repeats": 2, "cells": [
        {"cell": cell, "median": {}, "range": {}, "runs": stored}]}  # fmt: skip
    monkeypatch.setattr(grid, "REFERENCE", tmp_path / "ref.json")
    grid.REFERENCE.write_text(json.dumps(ref))
    asked, overhead = [], []

    def measure(repeats, first=0, **kw):
        asked.append((first, repeats))
        return [{"cell": cell, "runs": [{"major_faults": 90}, {"major_faults": 30}]}]

    monkeypatch.setattr(grid, "measure", measure)
    monkeypatch.setattr(grid, "write_overhead", overhead.append)
    grid.extend_reference(2)
    got = json.loads(grid.REFERENCE.read_text())
    assert asked == [(2, 4)] and got["repeats"] == 4 and overhead == [got]
    assert got["sessions"] == [2, 2]
    first, second = grid.sessions(got)
    assert first["cells"][0]["runs"]["major_faults"] == [10, 20]
    assert second["cells"][0]["runs"]["major_faults"] == [90, 30]
    entry = got["cells"][0]
    assert entry["runs"]["major_faults"] == [10, 20, 90, 30]
    assert entry["median"]["major_faults"] == 25 and entry["range"]["major_faults"] == [10, 90]
    assert entry["runs"]["pswpin"] == [10, 20, 0, 0]  # a counter the new runs lack counts 0
    with pytest.raises(SystemExit):
        grid.main(["--extend", "0"])


def test_the_tlb_probe_flags_choose_the_cells_and_keep_the_other_kind(monkeypatch, tmp_path):
    """--probe-tlb, --probe-tlb-patterns and --probe-tlb-mixed probe the programs', the
    patterns' or both kinds' cells; a probe of one kind rewrites that kind's runs in its file
    and keeps the other's."""
    from pagelab.linux import tlb_probe
    from pagelab.reproductions import _linux_grid as grid

    asked = []
    monkeypatch.setattr(grid, "write_tlb_probe", lambda kind: asked.append(kind) or "")
    for flag in ("--probe-tlb", "--probe-tlb-patterns", "--probe-tlb-mixed"):
        grid.main([flag])
    assert asked == ["program", "pattern", "mixed"]
    monkeypatch.undo()

    probed = []
    monkeypatch.setattr(grid, "jobs_for", lambda cells: cells)

    def measure(cells, seed):
        probed.append({c.kind for c in cells})
        return [{"release": "r", "curve": [], "entries": 256} for _ in cells]

    monkeypatch.setattr(tlb_probe, "measure", measure)
    monkeypatch.setattr(grid, "TLB_PROBE", tmp_path / "probe.json")
    monkeypatch.setattr(grid, "TLB_PROBE_MIXED", tmp_path / "mixed.json")
    grid.write_tlb_probe("program", seeds=(1,))
    grid.write_tlb_probe("pattern", seeds=(1, 2))
    runs = json.loads((tmp_path / "probe.json").read_text())["runs"]
    kinds = [grid.Cell(**r["cell"]).kind for r in runs]
    programs = sum(c.kind == "program" for c in grid.cells())
    patterns = sum(c.kind == "pattern" for c in grid.cells())
    assert kinds.count("program") == programs and kinds.count("pattern") == 2 * patterns
    grid.write_tlb_probe("mixed", seeds=(1,))
    assert probed == [{"program"}, {"pattern"}, {"pattern"}, {"program", "pattern"}]
    mixed = json.loads((tmp_path / "mixed.json").read_text())
    assert len(mixed["runs"]) == programs + patterns and mixed["tally"] == {
        "256": programs + patterns
    }
    assert "--probe-tlb-mixed" in mixed["about"]


def test_the_initramfs_is_newc_that_cpio_lists(tmp_path):
    a = initramfs.Archive()
    a.file("bin/x", b"hello", 0o755)
    a.file("init", b"#!/bin/sh\n", 0o755)
    blob = tmp_path / "i.gz"
    blob.write_bytes(a.bytes())
    if shutil.which("cpio") is None:
        import gzip

        raw = gzip.decompress(blob.read_bytes())
        assert raw.startswith(b"070701") and b"TRAILER!!!" in raw
        return
    listed = subprocess.run(
        f"zcat {blob} | cpio -t", shell=True, capture_output=True, text=True
    ).stdout.split()
    assert listed == ["bin", "bin/x", "init"]


def test_counters_come_from_the_kernels_files():
    text = """
[replay]
before_memory_current 253952
before_anon 61440
after_memory_current 8237056
after_anon 7974912
after_kernel 98304
after_file 4096
replay_ns 2000000000
loop_nvcsw 1
loop_nivcsw 16
loop_majflt 90
loop_minflt 910
region_resident 1972
exit_status 0
[vmstat0]
pswpin 10
pswpout 20
[vmstat1]
pswpin 110
pswpout 320
[memory.stat]
pgfault 1000
pgmajfault 95
workingset_refault_anon 80
[memory.events]
oom_kill 0
[memory.pressure]
some avg10=1.00 avg60=0.50 avg300=0.10 total=1234
full avg10=0.75 avg60=0.25 avg300=0.02 total=999
[zswap]
reject_compress_poor 3
reject_alloc_fail 2
stored_pages 7
"""
    c = record.counters(text, 8 << 20, 4500)
    assert c["major_faults"] == 90 and c["minor_faults"] == 910
    assert c["cgroup_major_faults"] == 95  # the replayer's start and report fault too
    assert (c["pswpin"], c["pswpout"]) == (100, 300)
    assert (c["psi_some_us"], c["psi_full_us"]) == (1234, 999)
    assert (c["psi_some_avg10"], c["psi_some_avg60"], c["psi_some_avg300"]) == (1.0, 0.5, 0.1)
    assert (c["psi_full_avg10"], c["psi_full_avg60"], c["psi_full_avg300"]) == (0.75, 0.25, 0.02)
    assert c["zswap_rejected"] == 5 and c["zswap_stored_pages"] == 7
    assert c["replay_seconds"] == 2.0 and c["context_switches"] == 17
    # Everything charged that is not the trace's resident pages: 8237056 - 1972 pages.
    assert c["overhead_pages"] == 39 and c["frames"] == 2048 - 39
    # memory.stat accounts for 8077312 bytes of it; the 39 pages less that are the stock.
    assert c["overhead_unstocked_pages"] == 0 and c["stock_pages"] == 39
    # The replayer's own anonymous pages before the loop, and the kernel's unreclaimable part.
    assert (c["replayer_anon_pages"], c["kernel_pages"]) == (15, 24)
    # Where the replayer counts its own anonymous memory (smaps_rollup), that count is taken:
    # memory.stat's is the flusher's last copy under 6.12.
    own = text.replace("before_anon 61440\n", "before_anon 61440\nbefore_self_anon_kib 64\n")
    assert record.counters(own, 8 << 20, 4500)["replayer_anon_pages"] == 16


def test_an_oom_kill_is_named_as_too_little_memory():
    c = record.counters("[replay]\nexit_status 137\n[memory.events]\noom_kill 1\n", 1 << 20, 10)
    assert c["oom_killed"] == 1  # kept as the run's outcome: a grid records it and goes on
    with pytest.raises(PagelabError, match="below what the replayer itself needs: the kernel "
                       "killed it in 1 of 2 runs"):  # fmt: skip
        record.check_killed({"runs": [c, {**c, "oom_killed": 0}]}, 1 << 20)


def test_smoke_both_lists_on_the_real_kernel(loop_trace, tmp_path, monkeypatch):
    """One boot of Linux 6.1 replays a loop under each list; the rerun is read from the store."""
    _kernel_or_skip()
    store = tmp_path / "store"
    kw = {"memory_max": "2M", "repeats": 1, "store": store}
    from pagelab.linux import instrument
    from pagelab.linux.touches import prepare

    t = prepare(loop_trace)
    assert (t.pages, t.touches, t.writes) == (600, 12000, 12000)  # u64: every touch writes
    jobs = [instrument.Job(t, knobs.knobs("6.1", "2M", lru)) for lru in ("off", "on")]
    two_list, mglru = instrument.measure(jobs, repeats=1, store=store)
    for rec in (two_list, mglru):
        assert 400 < rec["frames"] < 512, rec["frames"]
        # The first pass fills memory (minor faults); later passes refault from swap, and a
        # few of the replayer's own pages (its stack) are reclaimed and refault too (measured:
        # 27 of 11,427 on 6.1).
        assert 0 < rec["major_faults"] <= 1.01 * 19 * 600
        assert rec["pswpout"] >= rec["major_faults"] - 600
        assert rec["kernel"]["release"].startswith("6.1")
    # LRU order over a loop larger than memory: every reference of passes 2..20 refaults.
    assert two_list["major_faults"] > 0.9 * 19 * 600
    # MGLRU's generations keep part of the loop resident across passes (measured: about 2/3).
    assert mglru["major_faults"] < two_list["major_faults"]

    # A cached run is read back from the store, never booted again.
    def no_boot(*args, **kwargs):
        raise AssertionError("a cached run booted the kernel again")

    monkeypatch.setattr(guest, "run", no_boot)
    again = linux.run(loop_trace, lru_gen="off", **kw)
    assert again["major_faults"] == two_list["major_faults"]
    out = subprocess.run(
        [sys.executable, "-m", "pagelab", "linux", "run", str(loop_trace), "--memory-max", "2M",
         "--repeats", "1", "--store", str(store), "--format", "json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert json.loads(out.stdout)["major_faults"] == two_list["major_faults"]


_PID = " replayer-71 [000] .....  9.51: mm_vmscan_"
SAMPLE_TRACE = "\n".join(
    [
        "[reclaim events]",
        _PID + "memcg_reclaim_begin: order=0 gfp_flags=GFP_HIGHUSER_MOVABLE",
        _PID + "lru_shrink_inactive: nid=0 nr_scanned=28 nr_reclaimed=3 nr_dirty=0"
        " nr_writeback=0 nr_congested=0 nr_immediate=0 nr_activate_anon=1"
        " nr_activate_file=0 nr_ref_keep=24 nr_unmap_fail=0 priority=0"
        " flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC",
        _PID + "lru_isolate: isolate_mode=0 classzone=4 order=0 nr_requested=2"
        " nr_scanned=2 nr_skipped=0 nr_taken=2 lru=active_anon",
        _PID + "lru_shrink_active: nid=0 nr_taken=2 nr_active=0 nr_deactivated=2"
        " nr_referenced=0 priority=0 flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC",
        _PID + "memcg_reclaim_end: nr_reclaimed=3",
    ]
)


def test_reclaim_events_are_read_from_the_vmscan_tracepoints(tmp_path):
    from pagelab.linux import reclaim_events as ev

    got = ev.parse(SAMPLE_TRACE)
    assert got == [
        {"event": "reclaim_begin"},
        {"event": "shrink_inactive", "priority": 0, "scanned": 28, "reclaimed": 3,
         "activated": 1, "kept": 24},
        {"event": "shrink_active", "priority": 0, "taken": 2, "deactivated": 2},
        {"event": "reclaim_end", "reclaimed": 3},
    ]  # fmt: skip
    assert ev.summary(got) == {"reclaims": 1, "scanned": 28, "reclaimed": 3, "kept": 24,
                               "activated": 1, "deactivated": 2}  # fmt: skip
    with pytest.raises(PagelabError, match="no reclaim events"):
        ev.parse("[replay]\nloop_majflt 3\n")
    out = ev.write(tmp_path / "e.jsonl", got)
    assert [json.loads(x) for x in out.read_text().splitlines()] == got
    with pytest.raises(PagelabError, match="cannot write the reclaim events"):
        ev.write(tmp_path / "missing" / "e.jsonl", got)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.jsonl"]


def test_predicted_reclaim_events_add_up_to_its_counters(loop_trace, tmp_path):
    path = tmp_path / "m.jsonl"
    rec = linux.predict(loop_trace, memory_max="2M", lru_gen="off", reclaim_events=path)
    ev = rec["reclaim_events"]
    assert ev["path"] == str(path) and ev["reclaims"] == rec["reclaims"] > 0
    assert ev["reclaimed"] == rec["pswpout"]
    # MGLRU: each eviction one shrink_inactive step, none shrink_active, as its tracepoint.
    rec = linux.predict(loop_trace, memory_max="2M", lru_gen="on", reclaim_events=path)
    ev = rec["reclaim_events"]
    assert ev["reclaims"] == rec["reclaims"] > 0 and ev["reclaimed"] == rec["pswpout"]
    assert ev["deactivated"] == 0 and ev["activated"] == 0


def test_the_kernels_reclaim_events_beside_the_replays(loop_trace, tmp_path):
    """One traced boot: the kernel's steps add up to its own counters, and the two lists'
    replay takes as many reclaims on the loop (measured: 6.1, 2 MiB)."""
    _kernel_or_skip()
    path = tmp_path / "k.jsonl"
    rec = linux.run(loop_trace, memory_max="2M", lru_gen="off", reclaim_events=path)
    ev = rec["reclaim_events"]
    assert len(rec["runs"]) == 1 and ev["reclaims"] > 0
    steps = [json.loads(x) for x in path.read_text().splitlines()]
    assert sum(e["event"] == "reclaim_end" for e in steps) == ev["reclaims"]
    # The kprobes read the lists at each reclaim (lru_kprobes): under the 2 MiB limit.
    lists = [e["pages"] for e in steps if e["event"] == "lru_pages"]
    assert len(lists) == ev["reclaims"] and all(0 < n < 512 for n in lists)
    # Every page a reclaim frees is written to swap (the replayer's own pages too).
    assert ev["reclaimed"] == pytest.approx(rec["pswpout"], rel=0.02)
    model = linux.predict(loop_trace, memory_max="2M", lru_gen="off")
    assert model["reclaims"] == pytest.approx(ev["reclaims"], rel=0.1)


def test_the_guest_tlb_is_a_predict_option(loop_trace):
    """The replay runs the harness's TLB at the sizes the probe measured, weighted; one size
    or `none` (the accessed bit set on every reference) on request; a size that is no power
    of two is refused in one line."""
    from pagelab.linux.prediction import MEASURED_TLB

    base = linux.predict(loop_trace, memory_max="2M", lru_gen="on")
    assert base == linux.predict(loop_trace, memory_max="2M", lru_gen="on", tlb="measured")
    (small, w1), (large, w2) = MEASURED_TLB
    at = {n: linux.predict(loop_trace, memory_max="2M", lru_gen="on", tlb=n)
          for n in (small, large)}  # fmt: skip
    for key in ("major_faults", "pswpout", "workingset_refault_anon"):
        mean = (at[small][key] * w1 + at[large][key] * w2) / (w1 + w2)
        assert base[key] == round(mean), key
    assert base["frames"] == at[small]["frames"]
    linux.predict(loop_trace, memory_max="2M", lru_gen="off", tlb="none")
    with pytest.raises(PagelabError, match="--tlb 100: expected measured, a power of two"):
        linux.predict(loop_trace, memory_max="2M", tlb=100)
    # Sizes with their own weights: the measured ones given by hand are the default.
    assert base == linux.predict(loop_trace, memory_max="2M", lru_gen="on", tlb=MEASURED_TLB)
    one = linux.predict(loop_trace, memory_max="2M", lru_gen="on", tlb=((large, 3),))
    assert one == at[large]
    with pytest.raises(PagelabError, match="--tlb weight 0: expected a whole number"):
        linux.predict(loop_trace, memory_max="2M", tlb=((256, 0),))
    for bad in ((), ((256,),), (256, 512)):
        with pytest.raises(PagelabError, match="expected sizes with their weights"):
            linux.predict(loop_trace, memory_max="2M", tlb=bad)
    with pytest.raises(PagelabError, match="--tlb 300: expected measured, a power of two"):
        linux.predict(loop_trace, memory_max="2M", tlb=((300, 1),))


def test_a_validation_cell_runs_the_tlb_sizes_probed_on_its_trace():
    """The mixed probe's sizes pooled by trace, the replayers the kernel killed left out
    (docs/readings.md `linux-tlb-reference-mix`); a trace never probed has none, and its cells
    keep the pooled default."""
    import json
    from collections import Counter

    from pagelab.reproductions import _linux_grid as grid

    data = json.loads(grid.TLB_PROBE_MIXED.read_text())
    assert {str(n) for n in data["tally"]} <= {"256", "512", "None"}
    for program in ("sqlite", "unif3000", "python"):
        seen = Counter(r["entries"] for r in data["runs"] if r["cell"]["program"] == program)
        got = grid.trace_tlb(program)
        assert got == tuple((n, seen[n]) for n in (256, 512) if seen[n])
        assert sum(c for _n, c in got) == sum(seen.values()) - seen[None] > 0
    assert grid.trace_tlb("no-such-trace") is None


def test_memory_pressure_is_the_stall_events_on_the_fitted_clock():
    """33 pages written at 32 frames, then pages 0-2 read, under MGLRU: one reclaim writes the
    32 pages of the oldest generation inside the charge's stall, and the three refaults in a
    fault get PG_workingset, so their reads stall too (counted by hand in linux/tests.rs). The
    prediction is those events on MGLRU's own fitted clock; some = full (one task); none with
    zswap."""
    from pagelab import _core
    from pagelab.linux import prediction

    refs = [(p, True) for p in range(33)] + [(p, False) for p in range(3)]
    for kernel in ("6.1", "6.12"):
        c = _core.linux_replay(refs, 32, kernel=kernel, lru_gen=True)
        assert (c["reclaims"], c["memstall_swapouts"], c["memstall_swapins"]) == (1, 32, 3)
        law = prediction.clock(kernel, lru_gen=True)
        assert law != prediction.clock(kernel)
        want = round((32 * law["per_swapout_s"] + 3 * law["per_major_fault_s"]) * 1e6)
        assert want > 0
        got = prediction.psi(c, knobs.knobs(kernel, "8M", "on"))
        assert got == {"psi_some_us": want, "psi_full_us": want}
    on = knobs.knobs("6.1", "8M", "on", zswap="on")
    assert prediction.psi(c, on) == {"psi_some_us": None, "psi_full_us": None}


def test_predict_prints_the_memory_pressure(loop_trace):
    got = subprocess.run(
        [sys.executable, "-m", "pagelab", "linux", "predict", str(loop_trace),
         "--memory-max", "2M", "--format", "json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    rec = json.loads(got.stdout)
    assert rec["psi_some_us"] == rec["psi_full_us"] > 0
    assert isinstance(rec["psi_some_us"], int)


def test_the_report_page_is_a_predict_option(loop_trace):
    """Off by default (docs/readings.md `linux-report-page`, not adopted). On, the replay holds
    the replayer's unmapped report page: a reclaim frees it, and after the loop it is read
    back without a fault, so pswpin is one more than the major faults, as in 6.1's kernel."""
    for lru in ("off", "on"):
        base = linux.predict(loop_trace, memory_max="2M", lru_gen=lru)
        assert base == linux.predict(loop_trace, memory_max="2M", lru_gen=lru, report_page=False)
        assert base["pswpin"] == base["major_faults"]
        got = linux.predict(loop_trace, memory_max="2M", lru_gen=lru, report_page=True)
        assert got["pswpin"] == got["major_faults"] + 1, lru
        assert got["minor_faults"] == base["minor_faults"]
    got = subprocess.run(
        [sys.executable, "-m", "pagelab", "linux", "predict", str(loop_trace),
         "--memory-max", "2M", "--report-page", "--format", "json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    rec = json.loads(got.stdout)
    assert rec["pswpin"] == rec["major_faults"] + 1


def test_the_tlb_probe_reads_the_entries_off_its_curve():
    """The replayer's probe lines (a printed guest log, measured under TCG: a TLB of 256):
    reads stay at the speed of a hit up to 256 pages and jump at 320."""
    from pagelab.linux import tlb_probe

    text = "\n".join(
        ["[replay]", "replay_ns 1000", "sink 3"]
        + [f"tlb_probe {n} {ns}" for n, ns in
           [(16, 1.7), (32, 1.6), (64, 1.7), (128, 1.8), (224, 1.6), (256, 1.7), (320, 36.5),
            (384, 61.3), (512, 91.2), (4096, 93.1)]]
        + ["probe_sink 0"]
    )  # fmt: skip
    curve = tlb_probe.parse(text)
    assert curve[0] == (16, 1.7) and curve[-1] == (4096, 93.1) and len(curve) == 10
    assert tlb_probe.entries(curve) == 256
    # Twice the TLB: the jump moves with it.
    doubled = [(n, 1.7 if n <= 512 else 40.0) for n, _ in curve]
    assert tlb_probe.entries(doubled) == 512
    # Hits twice the floor's time on a slower host, a spike before the jump, a 224-page set a
    # little slow (real curves): all a table of 256.
    slower = [(16, 2.0), (32, 2.1), (64, 3.4), (128, 3.9), (224, 4.1), (256, 3.8), (320, 85.0),
              (512, 214.0)]  # fmt: skip
    assert tlb_probe.entries(slower) == 256
    spiked = [(n, 14.6 if n == 224 else ns) for n, ns in curve]
    assert tlb_probe.entries(spiked) == 256
    assert tlb_probe.entries([(n, 9.0 if n == 256 else ns) for n, ns in curve]) == 256
    # No set missed: the table holds them all.
    assert tlb_probe.entries([(n, 1.7) for n, _ in curve]) == 4096
    with pytest.raises(PagelabError, match="no set of 32 pages"):
        tlb_probe.entries([(64, 1.0)])


def test_the_probe_is_the_replayers_fifth_argument():
    cell = guest.Cell("touches-x", 10, 1 << 21, False, tlb_probe=True)
    line = next(s for s in guest._cell_lines(0, cell) if "/replayer" in s)
    assert "2097152 probe'" in line
    lines = guest._cell_lines(0, guest.Cell("t", 10, 1 << 21, False))
    plain = next(s for s in lines if "/replayer" in s)
    assert "probe" not in plain


def test_the_touch_lists_page_tables_are_charged_as_the_loop_reads_into_them():
    """A list of 2,000,000 entries (8 MB) read from mid-way in its first 2 MiB: its first
    table before the loop, then one at each 2 MiB edge it crosses (1, 3, 5, 7 MiB); a list of
    80,000 entries (320 KB) takes one."""
    from pagelab.linux.prediction import touch_list_tables

    assert touch_list_tables(2_000_000) == [0, 262_138, 786_426, 1_310_714, 1_835_002]
    assert touch_list_tables(80_000) == [0]
    assert touch_list_tables(262_138) == [0]  # ends at the edge: the next page is not taken
    assert touch_list_tables(262_139) == [0, 262_138]


def test_the_tlb_probe_on_the_real_kernel(loop_trace):
    """One replay on Linux 6.1 with the probe: QEMU's TLB holds 64 to 4,096 entries, and a read
    past them costs several times a hit."""
    _kernel_or_skip()
    got = linux.probe_tlb(loop_trace, memory_max="2M", repeats=1)
    (entries,) = got["entries"]
    assert 64 <= entries <= 4096, got["entries"]
    ns = [t for _, t in got["curves"][0]]
    assert max(ns) > 5 * min(ns), got["curves"][0]
    assert got["release"].startswith("6.1")


def test_the_tlb_probe_and_reclaim_events_are_one_at_a_time(loop_trace):
    out = subprocess.run(
        [sys.executable, "-m", "pagelab", "linux", "run", str(loop_trace), "--tlb-probe",
         "--reclaim-events", "x.jsonl"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert out.returncode != 0 and "one at a time" in out.stderr, out.stderr
