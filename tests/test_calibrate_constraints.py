"""A calibration's constraints: a broken one makes a trial infeasible, never the fit; the
sampler still finds the feasible region; a malformed constraint is one line."""

from __future__ import annotations

import math
import tomllib

import pytest

from pagelab import calibrate as cal
from pagelab import calibrate_constraints as cc
from pagelab.errors import PagelabError
from pagelab.sweep import sweep

SHORT = ["run.duration_s=1800", "run.warmup_s=60"]


def _busy(cpu_ms: float, extra: tuple[str, ...] = ()) -> float:
    df = sweep("unix-v6", set=[*SHORT, *extra, f"workload.cpu_ms={cpu_ms}"], seeds=1, workers=1)
    return float(df["cpu_busy_pct"].mean())


def test_a_constrained_fit_stops_at_the_bound_short_of_the_unconstrained_answer(tmp_path):
    # The points' answer is PC 15 ms; the constraint, on runs of their own (half as long),
    # holds the CPU below what PC 10 ms gives there: the fit must stay under that bound.
    truth, bound = _busy(15.0), _busy(10.0, ("run.duration_s=900",))
    target = tmp_path / "target.toml"
    target.write_text(
        f'[target]\nname = "bounded"\n\n[[point]]\nmetric = "cpu_busy_pct"\nvalue = {truth!r}\n'
        f'\n[[constraint]]\nmetric = "cpu_busy_pct"\nat_most = {bound!r}\n'
        'set = ["run.duration_s=900"]\nwhy = "a test"\n'
        '\n[[constraint]]\nmetric = "disk_io_rate"\nat_least = "swap_rate"\n'
    )
    tgt = cal.load_target(target)
    assert [c.rule() for c in tgt.constraints] == [
        f"cpu_busy_pct <= {bound:g} at run.duration_s=900",
        "disk_io_rate >= swap_rate",
    ]
    result = cal.calibrate(
        "unix-v6",
        tgt,
        [cal.parse_vary("workload.cpu_ms=6:24")],
        budget=16,
        seeds=1,
        set=SHORT,
        store=tmp_path / "runs",
        workers=1,
    )
    broken = [t for t in result.trials if t.checked and t.checked.violations[0] > 0]
    kept = [t for t in result.trials if t.checked and t.checked.violations[0] == 0]
    assert broken and kept, "the search saw both sides of the bound"
    assert all(t.infeasible and "breaks cpu_busy_pct <=" in t.infeasible for t in broken)
    assert all(math.isinf(t.loss) for t in broken)
    best = result.best
    assert best.infeasible is None and best.checked.values[0] <= bound
    assert best.values["workload.cpu_ms"] < 15.0
    # The fitted preset records each rule, its reason and the fit's two sides.
    out = cal.write_fitted(result, tmp_path / "fitted.toml", set=SHORT)
    prov = tomllib.loads(out.read_text())["provenance"]["constraint"]
    assert prov[0]["why"] == "a test" and prov[0]["fitted"] <= prov[0]["bound"] == bound
    assert prov[1]["rule"] == "disk_io_rate >= swap_rate" and prov[1]["fitted"] >= prov[1]["bound"]
    import duckdb

    table = cal.write_trials(result, cal.trials_path(out))
    col = '"constraint 1: cpu_busy_pct"'
    n, top = duckdb.sql(f"select count({col}), max({col}) from '{table}'").fetchall()[0]
    assert n == 16 and top > bound


def test_the_sampler_is_told_a_broken_trial_is_worse_than_any_kept_one_and_how_far():
    c = cc.Constraint("x", 1.0, at_most=True)
    met, near, far = (cc.check([c], [{"x": v}], 1) for v in (0.5, 1.1, 3.0))
    assert met.violations == [0.0] and met.broken([c]) is None and met.told(0.2) == 0.2
    assert near.violations[0] == pytest.approx(0.1) and "breaks x <= 1" in near.broken([c])
    assert 1.0 < near.told(0.0) < far.told(0.0) == pytest.approx(3.0)
    lo = cc.Constraint("x", "y", at_most=False)
    got = cc.check([lo], [{"x": 1.0, "y": 2.0}, {"x": 3.0, "y": 2.0}], 2)
    assert got.values == [2.0] and got.violations == [0.0], "the mean over the seeds"
    unknown = cc.check([lo], [{"x": 1.0}], 1)
    assert math.isinf(unknown.violations[0]) and unknown.told(0.0) > 1e5


@pytest.mark.parametrize(
    ("table", "needle"),
    [
        ('metric = "x"', "one of at_most or at_least"),
        ('metric = "x"\nat_most = 1\nat_least = 0', "one of at_most or at_least"),
        ("at_most = 1", "metric = NAME"),
        ('metric = "x"\nat_most = true', "at_most: expected a number or a metric's name"),
        ('metric = "x"\nat_most = 1\nset = "a=1"', "set: expected a list"),
        ('metric = "x"\nat_most = 1\nwhen = 2', "unknown key 'when'"),
    ],
)
def test_a_malformed_constraint_is_one_line_naming_it(tmp_path, table, needle):
    path = tmp_path / "t.toml"
    path.write_text(f'[[point]]\nmetric = "a"\nvalue = 1\n\n[[constraint]]\n{table}\n')
    with pytest.raises(PagelabError) as e:
        cal.load_target(path)
    msg = str(e.value)
    assert "\n" not in msg and f"{path}: constraint 1: " in msg and needle in msg, msg


def test_a_constraint_on_a_metric_the_runs_do_not_report_fails_before_any_trial(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text(
        '[[point]]\nmetric = "cpu_busy_pct"\nvalue = 10\n\n'
        '[[constraint]]\nmetric = "cpu_busy_pcx"\nat_most = 1\n'
    )
    with pytest.raises(PagelabError, match=r"constraint 1: metric 'cpu_busy_pcx'.*cpu_busy_pct"):
        cal.calibrate(
            "unix-v6",
            cal.load_target(path),
            [cal.parse_vary("workload.cpu_ms=6:24")],
            budget=2,
            set=SHORT,
            store=tmp_path / "runs",
        )
