"""The analytic twin (`pagelab model`): its DataFrame, its laws and its errors."""

from __future__ import annotations

import pytest

import pagelab
from pagelab.errors import PagelabError
from pagelab.model import knee, parse_users


def test_the_twin_of_cp67_answers_per_user_count_with_its_demands_and_curves() -> None:
    df = pagelab.model("cp67", users="5,20,40")
    assert list(df["users"]) == [5, 20, 40]
    for col in (
        "throughput",
        "response",
        "response_cms",
        "cpu_util",
        "paging_util",
        "fault_rate",
        "mpl",
    ):
        assert col in df.columns
    # The interactive response time law per class: N = X (R + Z).
    for _, r in df.iterrows():
        n = r["throughput_cms"] * (r["response_cms"] + 10.0)
        assert n == pytest.approx(round(n), rel=1e-6)
    assert df["cpu_util"].between(0, 1).all()
    # Demands derived by the simulator's own code: CP-67's three 2301 drums.
    assert len(df.attrs["demands"]["paging"]) == 3
    assert {c["class"] for c in df.attrs["lifetimes"]} == {"cms", "long-running"}
    assert knee(df) in (5, 20, 40)


def test_what_a_twin_does_not_model_and_bad_counts_are_refused_in_one_line() -> None:
    with pytest.raises(PagelabError, match="workload.sleep_every_s"):
        pagelab.model("unix-v6", overrides=["workload.sleep_every_s=2"], users="4")
    with pytest.raises(PagelabError, match="--users"):
        parse_users("10:5:1")


def test_the_m44_twin_times_one_copy_as_the_machine_does() -> None:
    # One copy alone waits for nothing: its time per job is its processor time plus its pulls,
    # and its pulls are the trace lab's FIFO at the whole store, which the machine's FIFO is.
    small = [
        "workload.program=t4-1xq",
        "workload.params.sort.items=600",
        "replacement.policy=fifo",
        "memory.store_words=16384",
    ]
    df = pagelab.model("m44", overrides=small, users="1:3:1")
    assert list(df["users"]) == [1, 2, 3] and df.attrs["demands"]["policy"] == "fifo"
    sim = pagelab.system.run("m44", overrides=[*small, "workload.copies=1"]).metrics
    assert 1.0 / df["throughput"][0] == pytest.approx(sim["time_per_job_s"].value, rel=1e-3)
    pulls = df["fault_rate"][0] / df["throughput"][0]
    assert pulls == pytest.approx(sim["pulls_per_job"].value)


def test_the_unix_twin_swaps_only_past_the_images_that_fit_as_the_machine_does() -> None:
    # The adopted fit: four prototype images fit beside update and the console shell.
    df = pagelab.model("unix-v6-fitted", users="1,4,8")
    assert df.attrs["demands"]["images"] == 4 and df.attrs["demands"]["images_all_core"] == 5
    assert list(df["fault_rate"][:2]) == [0.0, 0.0] and df["fault_rate"][2] > 0.5
    assert knee(df) == 4
    for n, x in ((1, df["throughput"][0]), (8, df["throughput"][2])):
        run = pagelab.system.run(
            "unix-v6-fitted", overrides=[f"workload.processes={n}", "run.duration_s=600"]
        )
        m = run.metrics
        assert (m["swap_rate"].value > 0) == (n > 4)
        # Measured: +2.1 % at one process, −4.6 % at eight (seed 1, 600 s).
        assert x == pytest.approx(m["loop_rate"].value, rel=0.08)


def test_a_run_that_starts_empty_stays_uncrowded_where_the_stationary_twin_has_crowded() -> None:
    # vm370 at 500 frames, 160 users: the CMS class's chain has an uncrowded and a crowded mode;
    # over a 900-second run the set crowds a small share of the time, stationary it is crowded.
    sets = ["memory.frames=500", "run.warmup_s=120", "run.duration_s=900"]
    run = pagelab.model("vm370", overrides=sets, users="160").iloc[0]
    inf = pagelab.model("vm370", overrides=sets, users="160", horizon="inf").iloc[0]
    assert 0.0 < run["crowded_share"] < 0.5
    assert run["crowding_onset_s"] > 900.0
    assert run["throughput"] > 3.0 * inf["throughput"]
    assert inf["mpl"] > 2.0 * run["mpl"]
    # A longer run crowds more of the time.
    long = ["memory.frames=500", "run.warmup_s=120", "run.duration_s=90000"]
    assert pagelab.model("vm370", overrides=long, users="160").iloc[0]["crowded_share"] > 0.5


def test_an_unknown_horizon_is_refused_in_one_line() -> None:
    with pytest.raises(PagelabError, match="horizon: expected one of run, inf"):
        pagelab.model("cp67", users="5", horizon="forever")
