"""The system simulator from the command line and the API."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

import pagelab.system
from conftest import assert_one_line_error

SMALL = ["run.duration_s=120", "run.warmup_s=10", "workload.users=20", "monitor.interval_s=20"]


def small(*extra: str) -> list[str]:
    args = []
    for s in [*SMALL, *extra]:
        args += ["--set", s]
    return args


@pytest.mark.presets
@pytest.mark.parametrize("preset", ["cp67", "vm370"])
def test_each_preset_runs_and_writes_its_results(cli, tmp_path, preset):
    out = tmp_path / preset
    proc = cli("run", preset, *small(), "--seed", "3", "--out", str(out), check=True)
    assert "q1_seconds" in proc.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["seed"] == 3 and summary["spec"]["workload"]["users"] == 20
    m = summary["metrics"]
    assert m["users"]["value"] == 20 and m["cpu_busy_pct"]["unit"] == "%"
    intervals = pq.read_table(out / "intervals.parquet").to_pylist()
    assert len(intervals) >= 5
    users = pq.read_table(out / "users.parquet").to_pylist()
    assert len(users) == 20
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


def test_same_seed_same_results_different_seed_different():
    a = pagelab.system.run("vm370", overrides=SMALL, seed=5)
    b = pagelab.system.run("vm370", overrides=SMALL, seed=5)
    c = pagelab.system.run("vm370", overrides=SMALL, seed=6)
    assert a["metrics"] == b["metrics"] and a["intervals"] == b["intervals"]
    assert a["metrics"] != c["metrics"]


@pytest.mark.parametrize(
    "override, needles",
    [
        ("workload.userz=3", ["userz"]),
        ("memory.frames=0", ["memory.frames"]),
        ("workload.class.0.think.mean_s=-1", ["think"]),
        ("device.0.channel=nowhere", ["nowhere"]),
    ],
)
def test_bad_spec_gets_one_line_error_naming_the_key(cli, override, needles):
    assert_one_line_error(cli("run", "vm370", "--set", override), *needles)


def test_missing_spec_file_is_named(cli):
    assert_one_line_error(cli("run", "/no/such/spec.toml"), "/no/such/spec.toml")


def test_list_presets_shows_the_base_systems(cli):
    out = cli("list", "presets", check=True).stdout
    assert "cp67" in out and "vm370" in out


@pytest.mark.presets
def test_unix_v6_reaction_time_falls_as_memory_grows(cli, tmp_path):
    """Chanson 1982: reaction time falls as PCTRMM rises (more memory for the same load)."""
    times = {}
    for mm in (700, 1024, 1400):
        out = tmp_path / f"mm{mm}"
        cli("run", "unix-v6", "--set", f"memory.core_clicks={mm}", "--out", str(out), check=True)
        m = json.loads((out / "summary.json").read_text())["metrics"]
        assert m["mm"]["value"] == mm
        times[m["pctrmm"]["value"]] = m["reaction_time_ms"]["value"]
    ordered = [times[k] for k in sorted(times)]
    assert ordered == sorted(ordered, reverse=True), times
