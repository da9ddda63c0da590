"""`python -m pagelab.linux.tlb_paired`: each run's TLB size beside its faults (no boot here)."""

from __future__ import annotations

import json

import pytest

from pagelab.linux import tlb_paired


def _run(program, kernel, lru_gen, entries, faults, killed=0):
    cell = {"program": program, "level": 200, "kernel": kernel, "lru_gen": lru_gen}
    return {"cell": cell, "entries": entries, "major_faults": faults, "killed": killed}


def test_the_replay_is_set_beside_each_run_at_the_runs_own_size():
    runs = [
        _run("sort", "6.1", False, 256, 100),
        _run("sort", "6.1", False, 512, 200),
        _run("sort", "6.1", False, 512, 300),
        _run("sort", "6.1", False, None, 999),  # killed before its probe: tallied, not scored
        _run("sort", "6.1", False, 256, 999, killed=1),
        _run("gzip", "6.12", True, 256, 50),
    ]
    key = json.dumps(runs[0]["cell"], sort_keys=True)
    gz = json.dumps(runs[-1]["cell"], sort_keys=True)
    got = tlb_paired.summary(runs, {key: {256: 90, 512: 240}, gz: {256: 50, 512: 60}})
    two = got["6.1 two-list"]
    assert two["tally"] == {"256": 2, "512": 2, "None": 1} and two["runs"] == 3
    # At their own sizes: -10 %, +20 %, -20 %; at the other: +140 %, -55 %, -70 %.
    assert two["median_abs_error_own_size"] == pytest.approx(20.0)
    assert two["median_abs_error_other_size"] == pytest.approx(70.0)
    assert two["replay_below"] == 2
    assert got["6.12 MGLRU"]["median_abs_error_own_size"] == 0.0


def test_bad_arguments_are_one_line_each(capsys, monkeypatch, tmp_path):
    with pytest.raises(SystemExit):
        tlb_paired.main(["--repeats", "0"])
    assert "--repeats 0: expected at least 1" in capsys.readouterr().err
    monkeypatch.setattr(tlb_paired, "RECORD", tmp_path / "missing.json")
    with pytest.raises(SystemExit):
        tlb_paired.main(["--from-record"])
    assert "missing.json" in capsys.readouterr().err


@pytest.mark.parametrize("last", [False, True])
def test_the_runs_follow_the_references_boot_orders(monkeypatch, last):
    """Repeat r boots a kernel's cells in `random.Random(r)`'s shuffle, as
    `instrument.measure` batches the reference, each replayer with its probe, or with `last`
    only each boot's last."""
    import random
    from types import SimpleNamespace

    from pagelab.linux import guest, kernels
    from pagelab.reproductions import _linux_grid as grid

    cells = [grid.Cell("sort", level, "6.1", False) for level in (200, 1000, 5000)]
    touches = SimpleNamespace(sha256="0" * 64, pages=10, path="t")
    knobs = SimpleNamespace(kernel="6.1", swap="brd", memory_max=1 << 20, lru_gen=False,
                            page_cluster=0, swappiness=60, zswap=None)  # fmt: skip
    jobs = [SimpleNamespace(touches=touches, knobs=knobs) for _ in cells]
    monkeypatch.setattr(grid, "cells", lambda: iter(cells))
    monkeypatch.setattr(grid, "jobs_for", lambda chosen: jobs)
    monkeypatch.setattr(kernels, "kernel", lambda series: series)
    booted = []

    def run(boot, kernel, files):
        assert [c.tlb_probe for c in boot.cells] == [not last, not last, True]
        booted.append(len(boot.cells))
        return ["[replay]\nloop_majflt 7\n"] * len(boot.cells), 1.0

    monkeypatch.setattr(guest, "run", run)
    seen = []
    runs = tlb_paired.measure(2, lambda done, total: seen.append((done, total)), last=last)
    assert booted == [3, 3] and seen == [(3, 6), (6, 6)]
    for r in (0, 1):
        order = list(range(3))
        random.Random(r).shuffle(order)
        got = [x for x in runs if x["repeat"] == r]
        assert [x["cell"]["level"] for x in got] == [cells[i].level for i in order]
        assert [x["position"] for x in got] == [0, 1, 2]
    assert {x["major_faults"] for x in runs} == {7} and {x["entries"] for x in runs} == {None}


def test_the_last_runs_weigh_the_sizes_with_each_boots_first_run_at_256(tmp_path):
    """`last_weights`: of 16 runs a boot the first is at 256 and the other fifteen as the last
    runs found; readings other than 256 or 512 are left out."""
    runs = [_run("sort", "6.1", False, n, 1) for n in (256, 512, 512, 512, 128, None)]
    runs.append(_run("sort", "6.12", True, 256, 1))
    path = tmp_path / "last.json"
    path.write_text(json.dumps({"runs": runs}))
    # 6.1: 3 of 4 at 512, so 512 weighs 15 x 3 = 45 of 16 x 4 = 64.
    assert tlb_paired.last_weights("6.1", path) == ((256, 19), (512, 45))
    assert tlb_paired.last_weights("6.12", path) == ((256, 16),)
    assert tlb_paired.last_summary(runs)["6.1"]["tally"] == {"128": 1, "256": 1, "512": 3}
    with pytest.raises(Exception, match="no run of 6.2 with a TLB size"):
        tlb_paired.last_weights("6.2", path)
