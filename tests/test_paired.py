"""Paired claims: hand-computed intervals and one case of each verdict."""

from __future__ import annotations

import math

import pytest

from pagelab.sweep import paired

# Differences -5, -4, -3: mean -4, sd 1, se 1/sqrt(3); t(0.975, 2) = 4.302653.
BASE = [10.0, 10.0, 10.0]
TREAT = [5.0, 6.0, 7.0]
HALF = 4.302653 / math.sqrt(3)


def test_difference_interval_by_hand():
    est = paired.estimate(paired.effects(BASE, TREAT, "difference"))
    assert est.effect == pytest.approx(-4.0)
    assert est.interval[0] == pytest.approx(-4 - HALF, abs=1e-5)
    assert est.interval[1] == pytest.approx(-4 + HALF, abs=1e-5)
    assert est.n == 3 and est.method == "t"


def test_relative_interval_is_on_the_log_scale():
    # Ratios 0.5, 0.5: the geometric mean change is -50 % whatever the level.
    est = paired.estimate(paired.effects([2.0, 4.0], [1.0, 2.0], "relative"), relative=True)
    assert est.effect == pytest.approx(-0.5)
    assert est.interval == (pytest.approx(-0.5), pytest.approx(-0.5))


@pytest.mark.parametrize(
    ("paper_effect", "expected"),
    [
        (-5.0, "holds"),  # band [-6.25, -3.75] meets [-6.48, -1.52]
        (-10.0, "direction-only"),  # band [-12.5, -7.5] misses it
        (5.0, "fails"),  # the paper's sign is the other one
    ],
)
def test_verdicts_by_hand(paper_effect, expected):
    est = paired.estimate(paired.effects(BASE, TREAT, "difference"))
    assert paired.verdict(est.interval, paper_effect) == expected


def test_straddling_zero_is_inconclusive():
    est = paired.estimate([-1.0, 1.0, 0.5])
    assert est.interval[0] < 0 < est.interval[1]
    assert paired.verdict(est.interval, -1.0) == "inconclusive"


def test_a_stated_band_replaces_the_default():
    # [-6.48, -1.52] against -10 with a band of ±90 %: [-19, -1] meets it.
    est = paired.estimate(paired.effects(BASE, TREAT, "difference"))
    assert paired.verdict(est.interval, -10.0, band=0.9) == "holds"


def test_direction_without_magnitude():
    assert paired.verdict((0.1, 0.3), None, direction=1) == "holds"
    assert paired.verdict((-0.3, -0.1), None, direction=1) == "fails"


def test_no_difference_claims_need_the_interval_inside_the_band():
    band = (-0.25, 0.25)
    assert paired.verdict((-0.1, 0.2), 0.0, band=band) == "holds"
    assert paired.verdict((0.3, 0.5), 0.0, band=band) == "fails"
    assert paired.verdict((0.1, 0.4), 0.0, band=band) == "inconclusive"


def test_one_seed_is_inconclusive():
    est = paired.estimate([0.4])
    assert est.interval == (None, None)
    assert paired.verdict(est.interval, 0.4) == "inconclusive"


def test_skewed_effects_over_many_seeds_are_bootstrapped():
    est = paired.estimate([1, 1, 1, 1, 1, 1, 1, 1, 1, 30.0])
    assert est.method == "bootstrap"
    assert est.interval[0] < est.effect < est.interval[1]


def test_the_mean_in_the_band_is_told_apart_from_the_interval_reaching_it():
    assert paired.mean_in_band(0.5, (0.375, 0.625))
    assert not paired.mean_in_band(0.25, (0.375, 0.625))
    assert paired.mean_in_band(3.0, (0.0, None)) and paired.mean_in_band(-9.0, (None, 0.0))
    assert not paired.mean_in_band(None, (0.0, 1.0)) and not paired.mean_in_band(1.0, None)
    # A claim can hold (its interval reaches the band) with its mean outside.
    assert paired.verdict((0.05, 0.45), 0.5) == "holds"


def test_plain_statistics_agree_with_scipy():
    """The interval's t quantile and the reproductions' rank correlation and slope are computed
    without scipy (the core install); with it here, they agree to the last few bits."""
    import random

    from scipy import stats

    from pagelab.sweep import plainstats as ps

    for df in [*range(1, 201), 1000]:
        for p in (0.975, 0.995, 0.6, 0.025):
            assert ps.t_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-13), (p, df)
    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(3, 12)
        xs = [rng.choice([1.0, 2.0, rng.random()]) for _ in range(n)]
        ys = [rng.random() for _ in range(n)]
        assert ps.rank_correlation(xs, ys) == pytest.approx(
            stats.spearmanr(xs, ys).statistic, nan_ok=True
        )
        assert ps.skewness(ys) == pytest.approx(stats.skew(ys))
        if len(set(xs)) > 1:
            assert ps.slope(xs, ys) == pytest.approx(stats.linregress(xs, ys).slope)
    with pytest.raises(ValueError, match="degrees of freedom"):
        ps.t_quantile(0.975, 0)
