"""Store integrity end to end: every run file carries a checksum of its bytes, verified on
every read; a changed bit anywhere is named, and `--repair` computes the run again
(python/pagelab/sweep/store.py).

Two of six bit-flipped Parquet files used to read back as valid runs (a renamed column that
dropped a run from a group-by, a damaged report JSON); the property below flips any one bit of
a run file, or of its checksum, and asks that every read refuses it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pagelab
from conftest import assert_one_line_error, run_cli
from pagelab.errors import PagelabError
from pagelab.sweep.store import Store

KEY = "ab" * 32
SHORT = ["run.duration_s=20", "run.warmup_s=5"]


def _row() -> tuple[dict, dict]:
    report = {"metrics": {"users": {"value": 20.0, "unit": "users"}}, "seed": 1}
    row = {
        "key": KEY,
        "spec": "vm370",
        "seed": 1,
        "workload.users": 20,
        "users": 20.0,
        "response_trivial_s": 0.25,
        "version": "0.1.0",
        "spec_json": json.dumps({"workload": {"users": 20}}),
        "report": json.dumps(report, sort_keys=True),
    }
    return row, {"users": "users", "response_trivial_s": "s"}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("store")
    Store(root).write(*_row())
    assert Store(root).read([KEY])[0]["users"] == 20.0
    return root


def _flip(path: Path, position: int, bit: int) -> None:
    data = bytearray(path.read_bytes())
    data[position % len(data)] ^= 1 << bit
    path.write_bytes(bytes(data))


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    which=st.sampled_from(["parquet", "sha256"]),
    position=st.integers(min_value=0, max_value=2**20),
    bit=st.integers(min_value=0, max_value=7),
)
def test_any_flipped_bit_is_caught_on_every_read(
    pristine: Path, tmp_path_factory: pytest.TempPathFactory, which: str, position: int, bit: int
) -> None:
    root = tmp_path_factory.mktemp("flip")
    shutil.copytree(pristine, root, dirs_exist_ok=True)
    store = Store(root)
    _flip(store.path(KEY) if which == "parquet" else store.sum_path(KEY), position, bit)
    with pytest.raises(PagelabError, match=KEY):
        store.read([KEY])
    with pytest.raises(PagelabError, match=KEY):
        Store(root).check()
    fresh = Store(root)
    assert fresh.check(repair=True) == set()
    assert len(fresh.repaired) == 1 and KEY in fresh.repaired[0]
    assert not store.path(KEY).exists() and not store.sum_path(KEY).exists()


def test_a_renamed_column_is_a_named_mismatch(pristine: Path, tmp_path: Path) -> None:
    shutil.copytree(pristine, tmp_path, dirs_exist_ok=True)
    path = Store(tmp_path).path(KEY)
    data = path.read_bytes()
    assert data.count(b"response_trivial_s") >= 1
    path.write_bytes(data.replace(b"response_trivial_s", b"response_trivial_x"))
    with pytest.raises(PagelabError, match="checksum mismatch"):
        Store(tmp_path).read([KEY])


def test_a_run_without_a_checksum_is_computed_again_not_trusted(
    pristine: Path, tmp_path: Path
) -> None:
    shutil.copytree(pristine, tmp_path, dirs_exist_ok=True)
    Store(tmp_path).sum_path(KEY).unlink()
    assert Store(tmp_path).check() == set()


def test_repair_recomputes_a_damaged_run_and_the_sweep_says_so(tmp_path: Path) -> None:
    grid = {"workload.users": [10]}
    first = pagelab.sweep("vm370", grid=grid, set=SHORT, out=tmp_path, workers=1)
    store = Store(tmp_path)
    (key,) = store.check()
    _flip(store.path(key), 200, 3)
    proc = run_cli(
        "sweep", "vm370", "--grid", "workload.users=10", "--set", SHORT[0], "--set", SHORT[1],
        "--out", str(tmp_path), "--workers", "1",
    )  # fmt: skip
    assert_one_line_error(proc, key, "--repair")
    proc = run_cli(
        "sweep", "vm370", "--grid", "workload.users=10", "--set", SHORT[0], "--set", SHORT[1],
        "--out", str(tmp_path), "--workers", "1", "--repair",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert f"repaired {store.path(key)}: corrupt run (checksum mismatch" in proc.stderr
    assert "1 computed" in proc.stderr
    again = pagelab.sweep("vm370", grid=grid, set=SHORT, out=tmp_path, workers=1)
    assert again.equals(first)


def test_the_runs_folder_is_still_a_dataset_with_its_checksums_beside(pristine: Path) -> None:
    # pandas.read_parquet("DIR/runs") and Arrow read the folder as one table: the checksum
    # files are named `_KEY.sha256`, which Arrow's dataset discovery skips.
    import pyarrow.parquet as pq

    assert any(p.name.startswith("_") for p in (pristine / "runs").iterdir())
    assert pq.read_table(pristine / "runs").num_rows == 1
