"""The calibration's search, and the twin as its surrogate (`calibrate --surrogate model`)."""

from __future__ import annotations

import math

import pytest

from pagelab import calibrate as cal
from pagelab import model, search
from pagelab.errors import PagelabError

BOX = [cal.Vary("x", 0.0, 1.0, False), cal.Vary("y", 0.0, 1.0, False)]


def bowl(v: dict[str, float]) -> float:
    """A known landscape: least at (0.3, 0.7), infeasible (inf) where x > 0.9."""
    if v["x"] > 0.9:
        return math.inf
    return (v["x"] - 0.3) ** 2 + (v["y"] - 0.7) ** 2


def test_the_screen_keeps_the_best_proposals_best_first():
    found = search.screen(200, 5, "cmaes", BOX, bowl)
    assert found.trials == 200 and len(found.best) == 5
    losses = [bowl(b) for b in found.best]
    assert losses == sorted(losses) and found.loss == pytest.approx(losses[0])
    assert abs(found.best[0]["x"] - 0.3) < 0.05 and abs(found.best[0]["y"] - 0.7) < 0.05
    # Infeasible proposals are never kept, nor handed to the warm start.
    assert all(b["x"] <= 0.9 for b in found.best)
    assert all(t.value < 1e300 for t in found.finished) and len(found.finished) <= 200


@pytest.mark.parametrize("sampler", ["cmaes", "tpe"])
def test_a_seeded_study_asks_the_twins_best_first(sampler):
    found = search.screen(60, 3, sampler, BOX, bowl)
    s = search.seeded_study(sampler, BOX, found)
    asked = [s.ask() for _ in range(3)]
    # An enqueued trial's values are what the suggestions return.
    assert [search.suggest(t, BOX) for t in asked] == found.best
    for t in asked:
        s.tell(t, bowl(dict(t.params)))
    # After the seeds the sampler proposes on its own, inside the box.
    t = s.ask()
    v = search.suggest(t, BOX)
    assert 0.0 <= v["x"] <= 1.0 and 0.0 <= v["y"] <= 1.0


@pytest.mark.parametrize("sampler", ["cmaes", "tpe"])
def test_the_sampler_seed_chooses_the_proposals(sampler):
    def proposals(seed: int) -> list[dict[str, float]]:
        s = search.study(sampler, BOX, seed=seed)
        out = []
        for _ in range(12):
            t = s.ask()
            out.append(search.suggest(t, BOX))
            s.tell(t, bowl(out[-1]))
        return out

    assert proposals(1) == proposals(1)
    assert proposals(1) != proposals(2)


def _target(tmp_path, metric: str):
    path = tmp_path / "t.toml"
    path.write_text(
        f'[target]\nname = "t"\nsource = "s"\n[[point]]\nmetric = "{metric}"\nvalue = 1.5\n'
        'set = ["workload.users=20"]\n'
    )
    return cal.load_target(path)


def test_a_surrogate_is_refused_for_a_metric_the_twin_does_not_give(tmp_path):
    with pytest.raises(PagelabError, match=r"--surrogate model: the twin gives .* asks for swap"):
        search.check("model", _target(tmp_path, "swap_rate"))
    with pytest.raises(PagelabError, match=r"--surrogate 'anneal': expected one of model"):
        search.check("anneal", _target(tmp_path, "throughput"))
    search.check(None, _target(tmp_path, "swap_rate"))  # no surrogate: nothing to check


def test_the_twins_numbers_are_the_models_at_the_points_setting(tmp_path):
    target = _target(tmp_path, "throughput")
    (got,) = search.twin_means("cp67", [], target, lambda p: ["vio.service_ms=110"])
    row = model.solve("cp67", overrides=["workload.users=20", "vio.service_ms=110"], users=[20])
    assert got == pytest.approx(row["rows"][0]["throughput"])
    assert got != pytest.approx(
        search.twin_means("cp67", [], target, lambda p: ["vio.service_ms=30"])[0]
    )


def test_a_surrogate_calibration_starts_from_the_twins_best_and_says_so(tmp_path):
    target = _target(tmp_path, "throughput")
    vary = [
        cal.parse_vary("vio.service_ms=30:200"),
        cal.parse_vary("cpu.supervisor.fault_us=500:4000"),
    ]
    short = ["run.duration_s=200", "run.warmup_s=20"]
    result = cal.calibrate("cp67", target, vary, budget=2, set=short, workers=1, surrogate="model")
    assert result.surrogate["screened"] == 2 * search.SCREEN_PER_TRIAL
    assert result.surrogate["seeded"] == 1 and result.surrogate["twin_loss"] >= 0
    first = result.trials[0].values
    # The first simulated trial is the twin's best: its twin loss is the screen's best loss.
    means = search.twin_means(
        "cp67", short, target, lambda p: [f"{k}={v!r}" for k, v in first.items()]
    )
    assert cal.loss_of(means, target) == pytest.approx(result.surrogate["twin_loss"])
    text = cal.write_fitted(result, tmp_path / "fitted.toml", set=short).read_text()
    assert "[provenance.surrogate]" in text and 'kind = "model"' in text


def test_the_corrected_twin_finds_the_simulators_answer_where_the_twin_alone_misses():
    # The simulator's two numbers at x, and a twin off by a constant factor on each: the twin
    # alone puts the answer elsewhere; corrected at any simulated point it is the simulator.
    box = [cal.Vary("x", 0.0, 10.0, False)]

    def sim(v):
        return [v["x"] + 1.0, 2.0 * v["x"] + 3.0]

    def twin(v):
        return [0.8 * (v["x"] + 1.0), 1.25 * (2.0 * v["x"] + 3.0)]

    target = sim({"x": 7.0})

    def loss(m):
        return sum(((a - b) / b) ** 2 for a, b in zip(m, target, strict=True))

    alone, _ = search.corrected_next(box, ({"x": 2.0}, twin({"x": 2.0})), twin, loss, [])
    assert abs(alone["x"] - 7.0) > 0.5, "uncorrected (factor 1), the twin misses"
    at = ({"x": 2.0}, sim({"x": 2.0}))
    nxt, predicted = search.corrected_next(box, at, twin, loss, [{"x": 2.0}])
    assert nxt["x"] == pytest.approx(7.0, abs=0.02) and predicted == pytest.approx(0.0, abs=1e-5)
    assert search.corrected_next(box, at, twin, loss, [nxt]) is None
    assert search.corrected_next(box, at, lambda v: None, loss, []) is None
    # Within a trust region of a tenth of the range, the step stops at its edge.
    near, _ = search.corrected_next(box, at, twin, loss, [], radius=0.1)
    assert near["x"] == pytest.approx(3.0, abs=0.02)


def test_the_trust_region_widens_on_a_step_as_good_as_predicted_and_narrows_otherwise():
    r = search.TrustRegion()
    assert r.radius == search.TRUST_START and r.open
    r.propose({"x": 1.0}, predicted=0.2, best=1.0)
    r.update(0.3)  # fell 0.7 of the predicted 0.8: at least 3/4 of it
    assert r.radius == 2 * search.TRUST_START and r.pending is None
    r.propose({"x": 1.0}, predicted=0.2, best=1.0)
    r.update(0.5)  # fell 0.5 of 0.8: between 1/4 and 3/4, unchanged
    assert r.radius == 2 * search.TRUST_START
    for got in (0.9, 1.2, math.inf):  # fell less than 1/4 of it, rose, or failed
        before = r.radius
        r.propose({"x": 1.0}, predicted=0.2, best=1.0)
        r.update(got)
        assert r.radius == before / 2
    while r.open:
        r.narrow()
    assert r.radius < search.TRUST_MIN
