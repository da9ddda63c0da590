"""`pagelab list metrics`: every metric named once with its unit, meaning and systems, read
from the engines; and a run prints only its own system's metrics."""

import json

import pytest

KINDS = {"vm", "unix", "m44"}


@pytest.fixture(scope="module")
def catalogue(request):
    from conftest import run_cli

    proc = run_cli("list", "metrics", "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_every_metric_has_one_unit_a_meaning_and_known_systems(catalogue):
    names = [r["name"] for r in catalogue]
    assert len(names) == len(set(names)), "a metric with two units"
    for r in catalogue:
        assert r["unit"] and r["description"], r["name"]
        assert r["systems"] and set(r["systems"]) <= KINDS, r
    by_kind = {k: {r["name"] for r in catalogue if k in r["systems"]} for k in KINDS}
    assert all(len(v) >= 8 for v in by_kind.values()), {k: len(v) for k, v in by_kind.items()}
    assert "q1_seconds" in by_kind["vm"] - by_kind["unix"] - by_kind["m44"]
    assert "reaction_time_ms" in by_kind["unix"] - by_kind["vm"]
    assert "time_per_job_s" in by_kind["m44"] - by_kind["vm"]
    # A mechanism no preset switches on is catalogued from its own run.
    zswap = next(r for r in catalogue if r["name"] == "zswap_load_rate")
    assert zswap["systems"] == ["vm"] and zswap["presets"] == [
        "vm370 memory.zswap.max_pool_percent=20"
    ]
    ahead = next(r for r in catalogue if r["name"] == "readahead_hit_pct")
    assert ahead["presets"][0] == "vm370 paging.page_cluster=1"
    window = next(r for r in catalogue if r["name"] == "readahead_window_mean")
    assert window["presets"] == ["vm370 paging.page_cluster=3 paging.readahead_window=adaptive"]


def test_a_unix_run_prints_no_vm_metric(cli, catalogue):
    vm_only = {r["name"] for r in catalogue if r["systems"] == ["vm"]}
    proc = cli("run", "unix-v6", "--set", "run.duration_s=120", "--set", "run.warmup_s=10")
    assert proc.returncode == 0, proc.stderr
    printed = {line.split("│")[1].strip() for line in proc.stdout.splitlines() if "│" in line}
    assert "reaction_time_ms" in printed
    assert not printed & vm_only, printed & vm_only


def test_the_system_filter_keeps_its_kind(cli):
    proc = cli("list", "metrics", "--system", "m44")
    assert proc.returncode == 0, proc.stderr
    assert "time_per_job_s [s] (m44)" in proc.stdout
    assert "q1_seconds" not in proc.stdout
