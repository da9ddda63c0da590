"""The score's rules (docs/readings.md): bounds as bounds, ranges as ranges, only predicted rows,
claims only with the paper's sentence, a trivial baseline beside the model."""

from __future__ import annotations

import math

import pytest

from pagelab.reproduce import Context
from pagelab.scoring import baseline_of, claim_scored, distance, score, within

QUOTE = "The paper's sentence."


def _row(**kw):
    return {"table": "T", "row": "r", "column": "c", "role": "predicted", "unit": "", **kw}


def test_a_bound_is_met_on_its_side_and_missed_off_it_however_close():
    upper = _row(paper=10.0, bound="upper")
    assert within(4.7, upper, 0.10) and within(10.0, upper, 0.10)
    # 10.5 is 5 % from 10, yet on the wrong side of "at most 10": a miss in both bands.
    assert not within(10.5, upper, 0.25)
    lower = _row(paper=0.8, bound="lower")
    assert within(0.99, lower, 0.10) and not within(0.79, lower, 0.25)
    assert distance(4.7, 10.0, "upper") == 0.0 and math.isinf(distance(11, 10.0, "upper"))


def test_a_range_is_scored_as_a_range_never_by_its_midpoint():
    span = _row(paper_range=[28.0, 36.0])
    assert within(29.0, span, 0.10) and within(36.0, span, 0.10)  # inside: distance 0
    # 13 % improvement: 54 % below 28; the midpoint 32 would say 59 % off, a range says 54.
    assert distance(13.0, None, paper_range=[28.0, 36.0]) == pytest.approx(15 / 28)
    # 40 is 11 % above the top: within 25 % only.
    assert not within(40.0, span, 0.10) and within(40.0, span, 0.25)


def test_only_predicted_rows_are_scored():
    rows = [
        _row(paper=10.0, pagelab=10.0),
        _row(paper=10.0, pagelab=10.0, role="fitted"),
        _row(paper=10.0, pagelab=10.0, role="ours"),  # e.g. chosen by its distance to 10
        _row(paper=10.0, pagelab=10.0, role="input"),
    ]
    s = score(rows, [])
    assert (s["predicted"], s["within_10"], s["fitted"], s["inputs"]) == (1, 1, 1, 1)


def test_a_claim_counts_only_with_its_sentence_and_a_reading_fixed_before_its_result():
    assert claim_scored({"quote": QUOTE})
    assert not claim_scored({})  # no sentence of the paper
    assert not claim_scored({"quote": QUOTE, "role": "ours"})  # our reconstruction
    assert not claim_scored({"quote": QUOTE, "role": "fitted"})  # a fit aimed at it
    assert not claim_scored({"quote": QUOTE, "changed_after_results": True})
    ctx = Context(name="t", scale="smoke", seed=1, out=None)
    common = {"effects": [1.0, 1.1, 0.9], "kind": "difference", "direction": 1}
    ctx.claim("a", "with its sentence", quote=QUOTE, **common)
    ctx.claim("b", "without one", **common)
    ctx.claim("c", "ours", quote=QUOTE, role="ours", **common)
    ctx.claim("d", "moved", quote=QUOTE, changed_after_results=True, reading="x", **common)
    s = score([], ctx.claims)
    assert s["claims"]["holds"] == 1 and s["claims_unscored"] == 3
    assert ctx.claims[3]["changed_after_results"] and ctx.claims[3]["reading"] == "x"
    with pytest.raises(ValueError, match="role"):
        ctx.claim("e", "bad", role="guessed", **common)


def test_the_trivial_baseline_stands_beside_the_model():
    rows = [
        _row(paper=29.8, pagelab=31.0, baseline=28.2),  # the paper's base column
        _row(paper=44.2, pagelab=30.0, baseline=41.3),
        _row(paper=47.0, pagelab=47.5, baseline=43.6),
    ]
    s = score(rows, [])
    assert (s["within_10"], s["within_25"]) == (2, 2)
    assert s["baseline"] == {"within_10": 3, "within_25": 3}
    assert s["margin"] == {"within_10": -1, "within_25": -1}


def test_without_a_base_column_the_baseline_is_the_papers_other_numbers_of_the_unit():
    rows = [_row(paper=1.0, unit="s"), _row(paper=3.0, unit="s"), _row(paper=100.0, unit="%")]
    assert baseline_of(rows[0], rows) == 3.0  # leaves itself out
    assert baseline_of(rows[2], rows) is None  # no other number in %: a baseline miss


def test_a_row_bound_must_name_a_side_and_carry_the_papers_number():
    ctx = Context(name="t", scale="smoke", seed=1, out=None)
    with pytest.raises(ValueError, match="bound"):
        ctx.row("T", "a", "c", 1.0, paper=2.0, bound="sideways")
    with pytest.raises(ValueError, match="bound"):
        ctx.row("T", "a", "c", 1.0, bound="upper")
    ctx.row("T", "a", "c", 1.0, paper_range=(2.0, 3.0))
    assert ctx.rows[-1]["role"] == "predicted" and ctx.rows[-1]["paper_range"] == [2.0, 3.0]
