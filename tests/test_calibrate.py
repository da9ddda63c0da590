"""pagelab calibrate: a known answer recovered, the fitted preset runs, bad input in one line."""

from __future__ import annotations

import tomllib

import pytest

from conftest import assert_one_line_error
from pagelab import calibrate as cal
from pagelab import system
from pagelab.sweep import sweep

#: A small, fast system: UNIX V6 for half an hour of simulated time.
SHORT = ["run.duration_s=1800", "run.warmup_s=60"]
TRUTH = {"workload.cpu_ms": 15.0, "workload.tty_chars_mean": 60.0}  # preset: 12 and 40
METRICS = ("cpu_busy_pct", "swap_rate", "disk_io_rate")
BUDGET = 60
SEEDS = 2


def _target(tmp_path):
    changed = [*SHORT, *(f"{k}={v}" for k, v in TRUTH.items())]
    df = sweep("unix-v6", set=changed, seeds=SEEDS, workers=1)
    lines = ['[target]\nname = "known"\nsource = "unix-v6 with PC 15 ms, 60 tty chars"\n']
    for m in METRICS:
        lines.append(f'[[point]]\nmetric = "{m}"\nvalue = {float(df[m].mean())!r}\n')
    path = tmp_path / "target.toml"
    path.write_text("\n".join(lines))
    return path


def test_calibration_recovers_two_known_parameters(tmp_path):
    target = cal.load_target(_target(tmp_path))
    vary = [
        cal.parse_vary("workload.cpu_ms=6:24"),
        cal.parse_vary("workload.tty_chars_mean=10:120"),
    ]
    seen = []
    result = cal.calibrate(
        "unix-v6",
        target,
        vary,
        budget=BUDGET,
        seeds=SEEDS,
        set=SHORT,
        store=tmp_path / "runs",
        workers=1,
        on_trial=lambda t, best, n: seen.append(t.number),
    )
    assert seen == list(range(BUDGET))
    best = result.best.values
    for key, truth in TRUTH.items():
        assert abs(best[key] - truth) <= 0.05 * truth, (key, best[key], truth)

    out = cal.write_fitted(result, tmp_path / "fitted.toml", set=SHORT)
    text = out.read_text()
    doc = tomllib.loads(text)
    assert doc["workload"]["cpu_ms"] == pytest.approx(best["workload.cpu_ms"])
    assert doc["provenance"]["fitted"] == list(TRUTH)
    assert doc["provenance"]["fixed"] == list(SHORT)
    assert [p["metric"] for p in doc["provenance"]["aimed_at"]] == list(METRICS)
    assert text.count("# fitted by pagelab calibrate to target.toml on ") == 2
    # The keys held fixed say so, a reason the preset's source check accepts.
    assert text.count(f"# {cal.FIXED_NOTE}") == len(SHORT)
    assert doc["provenance"]["best_trial"] == result.best.number + 1
    assert doc["provenance"]["late_gain"] == pytest.approx(result.late_gain, abs=1e-4)
    # What the target leaves open: each key's range over the trials within a ratio of the best
    # loss, or within 5 % root-mean-square of the target, and those trials at its ends, each a
    # fit to predict from. The search found the truth almost exactly, so 2x alone leaves
    # little open; the 5 % floor keeps the fits as good as the target can tell.
    prov = doc["provenance"]
    assert prov["near_ratio"] == 2.0 and prov["near_error"] == 0.05
    assert prov["near_trials"] == len(result.near(2.0, 0.05)) > len(result.near(2.0)) >= 1
    wide = cal.write_fitted(result, tmp_path / "wide.toml", set=SHORT, near_ratio=1000.0)
    prov = tomllib.loads(wide.read_text())["provenance"]
    assert prov["near_trials"] == len(result.near(1000.0)) > 2
    for k in prov["key"]:
        lo, hi = k["near"]
        assert k["range"][0] <= lo <= k["value"] <= hi <= k["range"][1], k
    corners = prov["near_fit"]
    assert corners and all(c["loss"] <= 1000.0 * result.best.loss for c in corners)
    assert {c["values"]["workload.cpu_ms"] for c in corners} >= {
        v for v in prov["key"][0]["near"] if v != best["workload.cpu_ms"]
    }
    # Every trial is kept as a table DuckDB reads.
    import duckdb

    table = cal.write_trials(result, cal.trials_path(out))
    assert table.name == "fitted.trials.parquet"
    n, low, first = duckdb.sql(
        f"select count(*), min(loss), min(\"point 1: cpu_busy_pct\") from '{table}'"
    ).fetchall()[0]
    assert n == BUDGET and low == pytest.approx(result.best.loss) and first > 0
    # The fitted preset is a preset: it runs, and close to the target.
    m = system.run(out, seed=1)["metrics"]
    assert m["cpu_busy_pct"]["value"] == pytest.approx(target.points[0].value, rel=0.1)


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["--vary", "workload.cpu_ms=9"], ["--vary", "lo:hi"]),
        (["--vary", "workload.cpu_mz=1:2"], ["workload.cpu_mz", "no such key"]),
        (["--vary", "workload.cpu_ms=1:2", "--budget", "0"], ["--budget 0"]),
        (["--vary", "workload.cpu_ms=1:2", "--near", "0.5"], ["--near 0.5", "at least 1"]),
        (
            ["--vary", "workload.cpu_ms=1:2", "--near-error", "-1"],
            ["--near-error -1.0", "0 or more"],
        ),
    ],
)
def test_bad_calibrations_say_so_in_one_line(cli, tmp_path, args, needles):
    target = tmp_path / "t.toml"
    target.write_text('[[point]]\nmetric = "cpu_busy_pct"\nvalue = 10.0\n')
    out = tmp_path / "fitted.toml"
    proc = cli("calibrate", "unix-v6", "--target", str(target), "--out", str(out), *args)
    assert_one_line_error(proc, *needles)
    assert not out.exists()


def _searched(losses: list[float]) -> cal.Calibration:
    trials = [cal.Trial(i, {"k": float(i)}, x) for i, x in enumerate(losses)]
    return cal.Calibration("unix-v6", None, [], [1], trials, "cmaes")  # type: ignore[arg-type]


def test_a_search_still_improving_at_its_end_is_not_converged():
    # best of the first 6 trials 0.5, of all 8 0.4: the last quarter gained 20 %
    still = _searched([1.0, 0.8, 0.9, 0.5, 0.7, 0.6, 0.45, 0.4])
    assert still.late_gain == pytest.approx(0.2)
    assert not still.converged
    # the best came early and nothing in the last quarter beat it
    done = _searched([1.0, 0.3, 0.5, 0.4, 0.35, 0.6, 0.31, 0.9])
    assert done.late_gain == 0.0 and done.converged
    # 0.5 % better at the end: within the tolerance
    assert _searched([1.0, 0.2, 0.4, 0.199]).converged


def test_the_near_trials_and_their_corners_are_what_the_target_leaves_open():
    vary = [cal.Vary("a", 0.0, 1.0, False), cal.Vary("b", 0.0, 1.0, False)]
    points = [  # (a, b, loss)
        (0.5, 0.5, 1.0),  # the best
        (0.1, 0.6, 1.5),  # the lowest a within 2x
        (0.1, 0.7, 1.8),  # as low an a, a higher loss: not the corner
        (0.9, 0.4, 1.9),  # the highest a and the lowest b
        (0.7, 0.8, 2.0),  # the highest b, at the bound (kept)
        (0.0, 1.0, 2.5),  # beyond the bound, though at both ends
        (0.95, 0.05, float("inf")),  # infeasible
    ]
    trials = [cal.Trial(i, {"a": a, "b": b}, x) for i, (a, b, x) in enumerate(points)]
    trials[-1].infeasible = "requires a < b"
    c = cal.Calibration("unix-v6", None, vary, [1], trials, "cmaes")  # type: ignore[arg-type]
    assert [t.number for t in c.near(2.0)] == [0, 1, 2, 3, 4]
    assert [t.number for t in c.near_extremes(2.0)] == [1, 3, 4]
    assert [t.number for t in c.near(1.0)] == [0] and c.near_extremes(1.0) == []
    # a floor on the loss keeps what a ratio of a near-exact best would not
    assert [t.number for t in c.near(1.0, error=1.25)] == [0, 1]
    # a spans 0.1-0.9 over the near trials (80 % of its range), b 0.4-0.8 (40 %)
    assert c.unpinned(2.0) == ["a"] and c.unpinned(2.0, share=0.4) == ["a", "b"]
    assert c.unpinned(1.0) == []


def test_a_range_whose_end_is_invalid_fails_before_any_run(cli, tmp_path):
    # unix-v6 has 1,024 core clicks: a process of 2,000 clicks can never be swapped in.
    target = tmp_path / "t.toml"
    target.write_text('[[point]]\nmetric = "cpu_busy_pct"\nvalue = 10.0\n')
    out = tmp_path / "fitted.toml"
    store = tmp_path / "store"
    args = ["--vary", "workload.size_clicks=50:2000", "--budget", "2", "--store", str(store)]
    proc = cli("calibrate", "unix-v6", "--target", str(target), "--out", str(out), *args)
    assert_one_line_error(proc, "--vary workload.size_clicks=50:2000", "at 2000", "size_clicks")
    assert not out.exists()
    assert not any(store.rglob("*.parquet")), "no run before the check"


def test_check_accepts_a_preset_and_names_a_bad_key():
    assert system.check("unix-v6") == "unix"
    assert system.check("vm370", set={"memory.frames": 512}) == "vm"
    with pytest.raises(system.PagelabError, match="workload.users"):
        system.check("vm370", set={"workload.users": 0})


def test_a_target_without_points_is_named(cli, tmp_path):
    target = tmp_path / "t.toml"
    target.write_text('[target]\nname = "x"\n')
    proc = cli(
        "calibrate",
        "unix-v6",
        "--target",
        str(target),
        "--vary",
        "workload.cpu_ms=1:2",
        "--out",
        str(tmp_path / "f.toml"),
    )
    assert_one_line_error(proc, str(target), "[[point]]")


def test_a_key_bounded_by_another_varied_key_may_use_its_range(tmp_path):
    # locality_pages <= set_pages: an end of 24 passes vmsp's own set of 20 pages only because
    # set_pages is varied up to 24 with it. Points of the box where the locality outgrows the
    # set are infeasible trials: no run, an infinite loss, and the search goes on.
    short = ["run.duration_s=60", "run.warmup_s=10", "workload.users=20"]
    path = tmp_path / "target.toml"
    path.write_text(
        '[target]\nname = "t"\nsource = "s"\n[[point]]\nmetric = "q1_seconds"\nvalue = 0.3\n'
    )
    vary = [
        cal.parse_vary("workload.class.0.program.set_pages=8:24"),
        cal.parse_vary("workload.class.0.program.locality_pages=4:24"),
    ]
    result = cal.calibrate(
        "vmsp", cal.load_target(path), vary, budget=12, set=short, workers=1, sampler="tpe"
    )
    assert len(result.trials) == 12
    for t in result.trials:
        v = t.values
        outgrown = (
            v["workload.class.0.program.locality_pages"] > v["workload.class.0.program.set_pages"]
        )
        assert (t.loss == float("inf")) == outgrown, t
        assert (t.metrics == []) == outgrown, t
    assert any(t.loss == float("inf") for t in result.trials)
    assert result.best.loss < float("inf")


def test_a_key_fitted_for_one_group_is_set_at_its_points_only(tmp_path):
    # Two cases of a paper, four and eight processes; PC is fitted for case "a" alone.
    path = tmp_path / "target.toml"
    path.write_text(
        '[target]\nname = "g"\n'
        '[[point]]\nmetric = "cpu_busy_pct"\nvalue = 40.0\ngroup = "a"\n'
        'set = ["workload.processes=4"]\n'
        '[[point]]\nmetric = "cpu_busy_pct"\nvalue = 60.0\ngroup = "b"\n'
        'set = ["workload.processes=8"]\n'
    )
    target = cal.load_target(path)
    assert [p.group for p in target.points] == ["a", "b"]
    vary = [
        cal.parse_vary("workload.cpu_ms@a=6:24"),
        cal.parse_vary("workload.tty_chars_mean=10:90"),
    ]
    assert [v.name for v in vary] == ["workload.cpu_ms@a", "workload.tty_chars_mean"]
    values = {"workload.cpu_ms@a": 15.0, "workload.tty_chars_mean": 50.0}
    a, b = (cal.point_overrides(values, vary, p) for p in target.points)
    assert a == ["workload.cpu_ms=15.0", "workload.tty_chars_mean=50.0"]
    assert b == ["workload.tty_chars_mean=50.0"]

    result = cal.calibrate("unix-v6", target, vary, budget=3, set=SHORT, workers=1, sampler="tpe")
    best = result.best.values
    doc = tomllib.loads(cal.write_fitted(result, tmp_path / "f.toml", set=SHORT).read_text())
    # The group's key stays out of the preset itself (12 ms, unix-v6's own); the shared one is in.
    assert doc["workload"]["cpu_ms"] == 12.0
    assert doc["workload"]["tty_chars_mean"] == pytest.approx(best["workload.tty_chars_mean"])
    keys = {k["key"]: k for k in doc["provenance"]["key"]}
    assert (
        keys["workload.cpu_ms"]["group"] == "a" and "group" not in keys["workload.tty_chars_mean"]
    )
    assert keys["workload.cpu_ms"]["value"] == pytest.approx(best["workload.cpu_ms@a"])
    assert [p["group"] for p in doc["provenance"]["aimed_at"]] == ["a", "b"]


def test_a_group_no_point_has_is_named(tmp_path):
    path = tmp_path / "target.toml"
    path.write_text('[[point]]\nmetric = "cpu_busy_pct"\nvalue = 40.0\ngroup = "a"\n')
    vary = [cal.parse_vary("workload.cpu_ms@z=6:24")]
    with pytest.raises(system.PagelabError, match="group 'z'.*groups: a"):
        cal.calibrate("unix-v6", cal.load_target(path), vary, budget=1, set=SHORT, workers=1)
    with pytest.raises(system.PagelabError, match="key@group"):
        cal.parse_vary("workload.cpu_ms@=6:24")


def test_a_trial_whose_run_fails_is_infeasible_not_the_end_of_the_search(monkeypatch):
    # A valid spec can still fail in the run (every paging slot full); only its trial pays.
    import pagelab.sweep.engine as engine

    def execute(tasks, store, **kw):
        if "bad" in tasks:
            raise system.PagelabError("engine: device: no paging slot left on any device")
        return engine.Outcome([{"t": t} for t in tasks], len(tasks), 0.0)

    monkeypatch.setattr(engine, "execute", execute)
    got = cal._run_trials([["a1", "a2"], ["bad", "b2"], [], ["c1"]], None, None)
    assert got[0] == [{"t": "a1"}, {"t": "a2"}] and got[2] == [] and got[3] == [{"t": "c1"}]
    assert got[1] == "a run failed: engine: device: no paging slot left on any device"


def _busy_search(tmp_path, vary: list, budget: int, **kw):
    """A short search of `vary` for a processor 40 % busy on the SHORT unix-v6."""
    path = tmp_path / "target.toml"
    path.write_text('[[point]]\nmetric = "cpu_busy_pct"\nvalue = 40.0\n')
    target = cal.load_target(path)
    return cal.calibrate("unix-v6", target, vary, budget=budget, set=SHORT, workers=1, **kw)


def test_a_required_order_of_two_keys_keeps_the_search_inside_it(tmp_path):
    vary = [cal.parse_vary("workload.cpu_ms=6:24"), cal.parse_vary("workload.tty_chars_mean=8:30")]
    result = _busy_search(
        tmp_path, vary, 8, sampler="tpe", require=["workload.cpu_ms<workload.tty_chars_mean"]
    )
    for t in result.trials:
        below = t.values["workload.cpu_ms"] < t.values["workload.tty_chars_mean"]
        assert below == (t.infeasible is None), t
        if not below:
            assert t.loss == float("inf") and t.metrics == []
            assert t.infeasible == "requires workload.cpu_ms < workload.tty_chars_mean"
    doc = tomllib.loads(cal.write_fitted(result, tmp_path / "f.toml", set=SHORT).read_text())
    assert doc["provenance"]["required"] == ["workload.cpu_ms < workload.tty_chars_mean"]
    with pytest.raises(system.PagelabError, match="--require 'workload.cpu_ms<x'"):
        cal.parse_require("workload.cpu_ms<x", vary)


def test_a_tied_key_follows_its_varied_key_in_every_trial_and_in_the_preset(tmp_path):
    # A rule of the system (VM/SP: the Q1 slice an eighth of the Q2 slice) is kept, not searched.
    vary = [cal.parse_vary("workload.cpu_ms=6:24")]
    result = _busy_search(tmp_path, vary, 4, tie=["workload.tty_chars_mean=2.5*workload.cpu_ms"])
    for t in result.trials:
        assert t.values["workload.tty_chars_mean"] == 2.5 * t.values["workload.cpu_ms"]
    # Trials that differ in the tied key differ in their runs: the tie reaches the spec.
    assert len({round(t.metrics[0], 9) for t in result.trials}) == len(result.trials)
    doc = tomllib.loads(cal.write_fitted(result, tmp_path / "f.toml", set=SHORT).read_text())
    best = result.best.values["workload.cpu_ms"]
    assert doc["workload"]["tty_chars_mean"] == pytest.approx(2.5 * best)
    assert doc["provenance"]["tied"] == ["workload.tty_chars_mean = 2.5 x workload.cpu_ms"]
    tied = doc["provenance"]["key"][-1]
    assert tied["key"] == "workload.tty_chars_mean" and tied["tied"] == "2.5 x workload.cpu_ms"
    assert tied["value"] == pytest.approx(2.5 * best)
    for bad, why in (
        ("workload.tty_chars_mean=2*x", "one of the varied keys"),
        ("workload.tty_chars_mean=-1*workload.cpu_ms", "positive number"),
        ("workload.cpu_ms=2*workload.cpu_ms", "either varied or tied"),
    ):
        with pytest.raises(system.PagelabError, match=why):
            cal.parse_tie(bad, vary)


def test_a_failed_batch_on_workers_leaves_each_trial_its_own_outcome(tmp_path):
    # On workers: a run that fills every paging slot fails the batch, and the good trial whose
    # runs were still going is run again and keeps its rows; only the failing one is infeasible.
    from pagelab.sweep import Store, tasks_for
    from pagelab.sweep.engine import runner

    full = ["workload.class.4.users=20", "workload.class.4.program.set_pages=40"]
    bad = [*full, "workload.class.4.program.drift=0.1", "run.duration_s=300", "run.warmup_s=10"]
    good = tasks_for("cp67-workload3", [], [1, 2, 3, 4])  # 660 s each: still running at the failure
    per_trial = [tasks_for("cp67-workload3", bad, [1]), good]
    with runner(2, None) as pool:
        got = cal._run_trials(per_trial, Store(tmp_path / "s"), pool)
    assert isinstance(got[0], str) and "no paging slot left" in got[0], got[0]
    assert not isinstance(got[1], str), got[1]
    assert len(got[1]) == 4
