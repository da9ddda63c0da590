"""The system simulator from the command line and the API."""

from __future__ import annotations

import doctest
import json
import subprocess
import sys
import tomllib

import pyarrow.parquet as pq
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import pagelab
import pagelab.system
from conftest import ROOT, assert_one_line_error
from pagelab.reproductions import _psi_study as psi_study

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
        ("memory.zswap.compression_ratio=0.5", ["memory.zswap.compression_ratio", "≥ 1"]),
        ("memory.zswap.pool=20", ["memory.zswap.pool", "max_pool_percent"]),
        ("paging.page_cluster=9", ["paging.page_cluster", "0 to 6"]),
        ("paging.readahead=sideways", ["paging.readahead", "virtual"]),
        ("paging.readahead_window=linux", ["paging.readahead_window", "adaptive"]),
    ],
)
def test_bad_spec_gets_one_line_error_naming_the_key(cli, override, needles):
    assert_one_line_error(cli("run", "vm370", "--set", override), *needles)


def test_missing_spec_file_is_named(cli):
    assert_one_line_error(cli("run", "/no/such/spec.toml"), "/no/such/spec.toml")


def test_list_presets_groups_systems_adopted_fits_and_fits_kept(cli):
    out = cli("list", "presets", check=True).stdout
    heads = [line for line in out.splitlines() if not line.startswith(" ")]
    assert heads == [f"{h}:" for h in pagelab.system.PRESET_GROUPS.values()]
    systems, fits = out.split(heads[1])
    assert "  vm370 " in systems and "  cp67-fitted " not in systems
    adopted, kept = fits.split(heads[2])
    assert "  cp67-fitted " in adopted and "  hpo-base-3081-runner-up " in kept
    # one line per preset, each with its description
    names = [line.split()[0] for line in out.splitlines() if line.startswith("  ")]
    assert sorted(names) == sorted(p.stem for p in (ROOT / "presets").glob("*.toml"))
    assert all(len(line.split(None, 1)) == 2 for line in out.splitlines() if line.startswith("  "))


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


@pytest.mark.presets
def test_unix_v6_reaction_time_is_never_zero_when_everything_fits(cli, tmp_path):
    """Interrupt handlers and the switch stand between a wake-up and the selection."""
    out = tmp_path / "fits"
    cli(
        "run",
        "unix-v6",
        "--set",
        "memory.core_clicks=3000",
        "--set",
        "run.duration_s=300",
        "--out",
        str(out),
        check=True,
    )
    m = json.loads((out / "summary.json").read_text())["metrics"]
    assert m["pctrmm"]["value"] > 0 and m["swap_rate"]["value"] == 0
    assert m["reaction_min_ms"]["value"] > 0 and m["reaction_time_ms"]["value"] > 0


# -- the Python API: pagelab.run_system / pagelab.system.run ----------------------------------

TINY = {"run.duration_s": 60.0, "run.warmup_s": 10.0, "workload.users": 8}


def test_a_preset_a_path_and_a_dict_give_the_same_run(tmp_path):
    by_name = pagelab.run_system("vm370", set=TINY, seed=4)
    by_path = pagelab.run_system(pagelab.system.presets_dir() / "vm370.toml", set=TINY, seed=4)
    spec = {
        "preset": {"extends": "vm370"},
        "run": {"duration_s": 60.0, "warmup_s": 10.0},
        "workload": {"users": 8},
    }
    by_dict = pagelab.run_system(spec, seed=4)
    assert by_name["metrics"] == by_path["metrics"] == by_dict["metrics"]
    assert by_name["intervals"] == by_dict["intervals"]
    # the older spelling of overrides still works, and set= wins when both name a key
    old = pagelab.system.run("vm370", overrides=[f"{k}={v}" for k, v in TINY.items()], seed=4)
    assert old["metrics"] == by_name["metrics"]
    both = pagelab.system.run("vm370", overrides=["workload.users=3"], set=TINY, seed=4)
    assert both.metrics["users"].value == 8


def test_a_full_dict_spec_runs_without_a_preset():
    text = (pagelab.system.presets_dir() / "cp67.toml").read_text()
    spec = tomllib.loads(text)
    spec["run"] = {"duration_s": 60.0, "warmup_s": 10.0}
    a = pagelab.run_system(spec, seed=2)
    b = pagelab.run_system("cp67", set={"run.duration_s": 60.0, "run.warmup_s": 10.0}, seed=2)
    assert a["metrics"] == b["metrics"]


def test_result_views_agree_with_the_raw_report():
    r = pagelab.run_system("cp67", set=TINY, seed=3)
    assert isinstance(r, dict) and r.seed == 3 and r.spec["workload"]["users"] == 8
    m = r.metrics
    assert set(m) == set(r["metrics"])
    assert m["users"] == pagelab.Metric("users", 8.0, "users")
    frame = r.to_frame()
    assert list(frame.columns) == ["value", "unit"] and frame.index.name == "name"
    assert frame.loc["cpu_busy_pct", "unit"] == "%"
    assert frame.loc["cpu_busy_pct", "value"] == r["metrics"]["cpu_busy_pct"]["value"]
    iv = r.intervals
    assert len(iv) == len(r["intervals"]["rows"]) >= 2
    assert list(iv.columns) == r["intervals"]["columns"]
    assert iv["time_s"].tolist() == [row["time_s"] for row in r.interval_rows]
    assert r.interval_units["time_s"] == "s"
    assert len(r.users) == 8 and "user" in r.users.columns
    assert len(r.classes) == len(r.spec["workload"]["class"])
    assert json.loads(json.dumps(r)) == dict(r)  # still plain JSON, as the report always was


def test_run_writes_results_atomically_where_asked(tmp_path):
    r = pagelab.run_system("vm370", set=TINY, out=tmp_path / "run")
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["metrics"] == r["metrics"] and summary["seed"] == 1
    assert pq.read_table(tmp_path / "run" / "users.parquet").num_rows == 8


@pytest.mark.parametrize(
    "spec, overrides, needles",
    [
        ({"preset": {"extends": "vm370"}, "workload": {"userz": 3}}, None, ["userz"]),
        ({"preset": {"extends": "no-such-preset"}}, None, ["preset.extends"]),
        ("vm370", {"memory.frames": 0}, ["memory.frames"]),
        ("vm370", ["memory.frames"], ["memory.frames", "key.path=value"]),
        ("vm370", {"memory.frames": object()}, ["memory.frames", "expected a number"]),
        ("no-such-preset", None, ["no-such-preset", "no preset"]),
        (42, None, ["expected a preset name, a TOML file or a dict"]),
    ],
)
def test_bad_specs_raise_one_clear_error(spec, overrides, needles):
    with pytest.raises(pagelab.PagelabError) as e:
        pagelab.run_system(spec, set=overrides)
    msg = str(e.value)
    assert "\n" not in msg
    for n in needles:
        assert n in msg, (n, msg)


json_leaf = st.one_of(
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False),
    st.text(),
)
json_tree = st.recursive(
    json_leaf,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(), kids, max_size=4),
    max_leaves=12,
)


@settings(max_examples=50, deadline=None)
@given(st.dictionaries(st.text(), json_tree, max_size=5))
@example({"0\n": []})  # a key ending in a newline once passed as bare
def test_a_dict_spec_survives_its_trip_through_toml(tree):
    assert tomllib.loads(pagelab.system.to_toml(tree)) == tree


def test_presets_are_read_from_the_checkout_when_running_from_one():
    assert pagelab.system.presets_dir() == ROOT / "presets"
    names = {p["name"] for p in pagelab.presets()}
    assert {p.stem for p in (ROOT / "presets").glob("*.toml")} == names


def test_docstring_examples_run():
    for module in (pagelab, pagelab.system, pagelab.tomlout):
        failed, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert tried > 0 and failed == 0, module.__name__


def test_a_fitted_preset_with_control_characters_reads_back():
    from pagelab import tomlout

    tree = {"run": {"note": 'a "q" \\ tab\t del\x7f', "when": [1, 2.5, True]}, "k-1": {"x": 1}}
    assert tomllib.loads(tomlout.dumps(tree, {"run.note": "fitted"})) == tree


# -- Bard's workloads as presets ---------------------------------------------------------------


@pytest.mark.presets
@pytest.mark.parametrize("workload", [1, 2, 3])
def test_each_bard_workload_preset_runs_and_feeds_the_psi_study(workload):
    name = psi_study.workload_preset(workload)
    r = pagelab.run_system(name, set={"run.duration_s": 60.0, "run.warmup_s": 10.0}, seed=1)
    classes = r.spec["workload"]["class"]
    # the compute-bound programs are a count; the interactive classes share the rest by fraction
    compute = [c["users"] for c in classes if c["name"] == "compute"]
    assert compute and (compute[0] > 0) == (workload > 1)  # Bard §11: none in workload 1
    shares = [c["fraction"] for c in classes if c["name"] != "compute"]
    assert r.spec["workload"]["users"] == 40 and len(shares) == 4 and sum(shares) > 0
    users = {c["class"]: c["users"] for c in r["classes"]}
    assert sum(users.values()) == 40 and users["compute"] == compute[0]
    # the machine is CP-67's, as the reproductions run it
    assert r.spec["load_control"]["kind"] == "cp67" and r.spec["memory"]["frames"] == 130
    table = psi_study.workload_table(workload)["class"]
    key = ("name", "fraction", "users")
    assert [tuple(c.get(k) for k in key) for c in table] == [
        tuple(c.get(k) for k in key) for c in classes
    ]


def test_a_table_override_replaces_the_table_of_an_extending_preset():
    # cp67-workload1 extends cp67, whose CP-67 controller has keys the Ψ-scheduler rejects
    lc = {"kind": "psi", "psi_c": 13.0, "psi_m": 13.0}
    r = pagelab.run_system("cp67-workload1", set={**TINY, "load_control": lc})
    assert r.spec["load_control"]["kind"] == "psi"
    assert "initial_ws_pages" not in r.spec["load_control"]


def test_an_override_one_past_the_end_appends_a_class(tmp_path):
    from pagelab.errors import PagelabError
    from pagelab.sweep.spec import apply_override

    tree = {"workload": {"class": [{"name": "cms"}]}}
    apply_override(tree, "workload.class.1", {"name": "guest"}, "arg")
    assert [c["name"] for c in tree["workload"]["class"]] == ["cms", "guest"]
    with pytest.raises(PagelabError, match="below 2 \\(2 appends\\)"):
        apply_override(tree, "workload.class.3", {"name": "x"}, "arg")
    # the engine appends the same way: one user of a class of its own
    guest = {
        "name": "guest",
        "fraction": 0.01,
        "think": {"kind": "fixed", "s": 0.0},
        "commands": [{"name": "c", "cpu_ms": 50.0}],
        "program": {
            "kind": "drifting",
            "set_pages": 60,
            "address_pages": 200,
            "drift": 0.05,
            "locality_pages": 20,
            "runs_per_phase": 100,
            "refs_per_run": 500.0,
            "write_fraction": 0.4,
        },
    }
    r = pagelab.run_system("vmsp", set={**TINY, "workload.users": 41, "workload.class.1": guest})
    assert [c["name"] for c in r.spec["workload"]["class"]][-1] == "guest"


def test_import_pagelab_stays_light():
    code = "import sys, pagelab; print(sorted({'rich', 'pandas', 'dask'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
