"""Sweeps: the grid, the content-addressed store, Dask workers, kill -9 and the error paths."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import assert_one_line_error, run_cli
from pagelab.errors import PagelabError
from pagelab.sweep import plan, run_sweep, sweep
from pagelab.sweep.grid import parse_axis

SHORT = ["run.duration_s=40", "run.warmup_s=10", "monitor.interval_s=10"]
SET = [a for s in SHORT for a in ("--set", s)]


def dataset_hash(root: Path) -> str:
    """A hash of the store's table, sorted by key: same rows, same values, same hash."""
    import pyarrow.parquet as pq

    rows = [pq.read_table(p).to_pylist()[0] for p in (root / "runs").glob("*.parquet")]
    rows.sort(key=lambda r: r["key"])
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()


def test_grid_axes_parse_values_and_inclusive_ranges():
    assert parse_axis("workload.users=20,40") == ("workload.users", [20, 40])
    assert parse_axis("memory.frames=100:300:100") == ("memory.frames", [100, 200, 300])
    assert parse_axis("workload.think_s=0.5:1.5:0.5") == ("workload.think_s", [0.5, 1.0, 1.5])
    assert parse_axis("a.b=1,0.5") == ("a.b", [1.0, 0.5])  # one type per column


def test_plan_is_points_by_seeds_and_keys_are_content_addresses():
    tasks = plan("vm370", grid={"workload.users": [20, 40]}, seeds=2, set=SHORT)
    assert [(t.params["workload.users"], t.seed) for t in tasks] == [
        (20, 1),
        (20, 2),
        (40, 1),
        (40, 2),
    ]
    assert len({t.key for t in tasks}) == 4
    # The same tree spelt otherwise (a path for the name, the set in another order) is the same run.
    preset = Path(__file__).resolve().parents[1] / "presets" / "vm370.toml"
    again = plan(str(preset), grid=["workload.users=20,40"], seeds=2, set=SHORT[::-1])
    assert [t.key for t in again] == [t.key for t in tasks]


def test_sweep_returns_a_frame_and_a_full_store_computes_nothing(tmp_path):
    df = sweep(
        "vm370", grid={"workload.users": [20, 40]}, seeds=2, set=SHORT, out=tmp_path, workers=1
    )
    assert list(df["workload.users"]) == [20, 20, 40, 40] and list(df["seed"]) == [1, 2, 1, 2]
    assert df["throughput"].notna().all() and "report" not in df.columns
    again = run_sweep(
        "vm370", grid={"workload.users": [20, 40]}, seeds=2, set=SHORT, out=tmp_path, workers=1
    )
    assert again.computed == 0
    assert [r["throughput"] for r in again.rows] == list(df["throughput"])


def test_workers_do_not_change_the_results(tmp_path, monkeypatch):
    grid = {"workload.users": [20, 40]}
    one = sweep("vm370", grid=grid, seeds=2, set=SHORT, out=tmp_path / "a", workers=1)
    two = sweep("vm370", grid=grid, seeds=2, set=SHORT, out=tmp_path / "b", workers=2)
    assert one.equals(two)
    assert dataset_hash(tmp_path / "a") == dataset_hash(tmp_path / "b")
    # With every run in the store nothing is left to compute, and no cluster starts.
    from pagelab.sweep import engine

    def no_cluster(*args, **kwargs):
        raise AssertionError("a cluster started for a sweep with nothing to compute")

    monkeypatch.setattr(engine, "_client", no_cluster)
    again = sweep("vm370", grid=grid, seeds=2, set=SHORT, out=tmp_path / "b", workers=2)
    assert again.equals(two)


def test_a_sweep_from_a_plain_script_without_a_main_guard(tmp_path):
    """Dask's worker processes would import the script again; they start without it."""
    script = tmp_path / "plain.py"
    script.write_text(
        "import pathlib, pagelab\n"
        "pathlib.Path('top-level-runs').open('a').write('x')\n"
        "df = pagelab.sweep('vm370', grid={'workload.users': [20, 40]}, seeds=1,\n"
        f"                   set={SHORT!r}, workers=2)\n"
        "print(len(df), df['throughput'].notna().all())\n"
    )
    proc = subprocess.run(
        [sys.executable, script.name], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split()[-2:] == ["2", "True"]
    # The script's top level ran once: in its own process, not again in each worker.
    assert (tmp_path / "top-level-runs").read_text() == "x"


def test_the_store_reads_as_is_with_duckdb(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    sweep("vm370", grid={"workload.users": [20, 40]}, seeds=2, set=SHORT, out=tmp_path, workers=1)
    rows = duckdb.sql(
        'select "workload.users", count(*), avg(throughput) '
        f"from '{tmp_path}/runs/*.parquet' group by all order by 1"
    ).fetchall()
    assert [(u, n) for u, n, _ in rows] == [(20, 2), (40, 2)]
    assert rows[1][2] > rows[0][2]  # twice the users, more interactions a second


def _cli_sweep(out: Path, *extra: str) -> list[str]:
    exe = Path(sys.executable).with_name("pagelab")
    grid = "workload.users=10:80:10"
    return [
        str(exe),
        "sweep",
        "vm370",
        *SET,
        "--grid",
        grid,
        "--seeds",
        "2",
        "--out",
        str(out),
        "--workers",
        "1",
        *extra,
    ]


def test_kill_9_then_rerun_gives_the_uninterrupted_dataset(tmp_path):
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    subprocess.run(_cli_sweep(whole), check=True, capture_output=True, timeout=600)
    n = len(list((whole / "runs").glob("*.parquet")))
    assert n == 16
    proc = subprocess.Popen(_cli_sweep(killed), stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if len(list((killed / "runs").glob("*.parquet"))) >= n // 2:
            break
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    part = len(list((killed / "runs").glob("*.parquet")))
    assert 0 < part < n, part  # stopped part-way
    subprocess.run(_cli_sweep(killed), check=True, capture_output=True, timeout=600)
    assert dataset_hash(killed) == dataset_hash(whole)


def test_two_sweeps_into_one_store_at_once(tmp_path):
    out = tmp_path / "s"
    procs = [subprocess.Popen(_cli_sweep(out), stderr=subprocess.PIPE) for _ in range(2)]
    for p in procs:
        assert p.wait(timeout=600) == 0, p.stderr.read()
    solo = tmp_path / "solo"
    subprocess.run(_cli_sweep(solo), check=True, capture_output=True, timeout=600)
    assert dataset_hash(out) == dataset_hash(solo)


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["--grid", "workload.userz=10,20"], ["--grid workload.userz", "no such key"]),
        (["--grid", "workload.users="], ["--grid", "no values"]),
        (["--grid", "workload.users=50:10:5"], ["--grid", "lo <= hi"]),
        (["--grid", "workload.users=1:x:2"], ["--grid", "range"]),
        (["--scheduler", "tcp://127.0.0.1:9"], ["--scheduler tcp://127.0.0.1:9", "no scheduler"]),
        (["--seeds", "0"], ["--seeds 0"]),
        # a value the spec refuses, found before the valid points run
        (["--grid", "workload.users=10,0"], ["grid point workload.users=0", "workload.users"]),
    ],
)
def test_bad_sweeps_say_so_in_one_line_and_write_nothing(tmp_path, args, needles):
    out = tmp_path / "out"
    proc = run_cli("sweep", "vm370", *SET, "--out", str(out), *args)
    assert_one_line_error(proc, *needles)
    assert not out.exists()


def test_foreign_and_corrupt_files_in_the_store_are_named(tmp_path):
    sweep("vm370", grid={"workload.users": [20]}, seeds=1, set=SHORT, out=tmp_path, workers=1)
    stray = tmp_path / "runs" / "notes.txt"
    stray.write_text("mine")
    proc = run_cli("sweep", "vm370", *SET, "--out", str(tmp_path), "--workers", "1")
    assert_one_line_error(proc, str(stray), "foreign")
    stray.unlink()
    (run,) = (tmp_path / "runs").glob("*.parquet")
    run.write_bytes(b"PAR1 not really")
    proc = run_cli("sweep", "vm370", *SET, "--out", str(tmp_path), "--workers", "1")
    assert_one_line_error(proc, str(run), "corrupt")
    with pytest.raises(PagelabError, match="corrupt"):
        sweep("vm370", set=SHORT, out=tmp_path, workers=1)


def test_a_store_reads_each_run_schema_once_and_still_names_a_new_corrupt_file(
    tmp_path, monkeypatch
):
    # A calibration checks its store once per batch of trials: with thousands of runs stored,
    # reading every file's schema each time cost seconds a batch.
    import pyarrow.parquet as pq

    from pagelab.sweep import Store

    sweep("vm370", grid={"workload.users": [10, 20]}, seeds=1, set=SHORT, out=tmp_path, workers=1)
    reads = []
    real = pq.read_schema
    monkeypatch.setattr(pq, "read_schema", lambda p, *a, **k: reads.append(p) or real(p, *a, **k))
    store = Store(tmp_path)
    first = store.check()
    assert len(first) == 2 and len(reads) == 2
    assert store.check() == first and len(reads) == 2  # nothing read again
    a, b = sorted((tmp_path / "runs").glob("*.parquet"))
    a.unlink()
    assert store.check() == first - {a.stem}
    (tmp_path / "runs" / a.name).write_bytes(b"PAR1 not really")  # a new file: checked
    with pytest.raises(PagelabError, match="corrupt"):
        store.check()


def test_pagelab_sweep_is_callable_and_a_package():
    import pagelab
    import pagelab.sweep.store

    assert callable(pagelab.sweep) and pagelab.sweep.store.RUNS == "runs"
