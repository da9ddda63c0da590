"""The score of a reproduction record, under rules that cannot flatter it (docs/readings.md).

- Only `predicted` rows with both numbers are scored; a row chosen by its distance to the
  paper, a target of any fit and a second showing of one paper number are not `predicted`
  (the reproductions give them role `ours` or `fitted`).
- A row may carry the paper's number as a bound (`bound`: "upper" when the paper says at most
  its number, "lower" when at least): it is within every band when ours is on the paper's side
  of it, outside every band when not. A row may carry a range (`paper_range`: [lo, hi]): within a
  band's fraction when ours lies inside the range widened by that fraction of its ends. Any
  other row is a point, within `frac` when |ours - paper| <= frac |paper|.
- A claim is scored only with the paper's sentence (`quote`), not on our own reconstruction
  (`role` "ours") and not when its reading changed after its result was seen.
- Beside the model's counts stands a trivial baseline's: each scored row predicted by the row's
  `baseline` (the paper's own base column) or, without one, by the mean of the paper's other
  scored numbers of the same unit in the record (leave one out); a row with neither counts as a
  baseline miss.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

#: Relative distances the score counts predicted rows within.
SCORE_BANDS = {"within_10": 0.10, "within_25": 0.25}
BOUNDS = ("upper", "lower")


def distance(
    ours: float,
    paper: float | None,
    bound: str | None = None,
    paper_range: Sequence[float] | None = None,
) -> float:
    """How far ours lies from the paper's number as a fraction of it: a bound gives 0 on the
    paper's side and infinity off it; a range 0 inside and the gap to its nearer end, as a
    fraction of that end, outside; a point |ours - paper| / |paper| (a paper's 0 met only by a
    0)."""  # fmt: skip
    if bound is not None:
        if bound not in BOUNDS:
            raise ValueError(f"bound {bound!r}: expected one of {', '.join(BOUNDS)}")
        assert paper is not None
        inside = ours <= paper if bound == "upper" else ours >= paper
        return 0.0 if inside else math.inf
    if paper_range is not None:
        lo, hi = sorted(paper_range)
        if lo <= ours <= hi:
            return 0.0
        end = lo if ours < lo else hi
        return _relative(ours, end)
    assert paper is not None
    return _relative(ours, paper)


def _relative(ours: float, paper: float) -> float:
    gap = abs(ours - paper)
    if paper == 0:
        return 0.0 if gap == 0 else math.inf
    return gap / abs(paper)


def within(ours: float, row: dict[str, Any], frac: float) -> bool:
    """Our number against the row's paper number, bound or range, within `frac`."""
    return distance(ours, row.get("paper"), row.get("bound"), row.get("paper_range")) <= frac


def scorable(row: dict[str, Any]) -> bool:
    """A predicted row with both numbers."""
    return (
        row["role"] == "predicted"
        and (row.get("paper") is not None or row.get("paper_range") is not None)
        and row.get("pagelab") is not None
        and not (isinstance(row["pagelab"], float) and math.isnan(row["pagelab"]))
    )


def claim_scored(claim: dict[str, Any]) -> bool:
    """A paper claim with its sentence, whose reading was fixed before its result."""
    return (
        claim.get("role", "paper") == "paper"
        and bool(claim.get("quote"))
        and not claim.get("changed_after_results", False)
    )


def baseline_of(row: dict[str, Any], scored: Sequence[dict[str, Any]]) -> float | None:
    """The trivial prediction of a scored row: its `baseline`, else the mean of the paper's
    other scored point numbers of the same unit in the record."""
    if row.get("baseline") is not None:
        return float(row["baseline"])
    others = [
        float(r["paper"])
        for r in scored
        if r is not row
        and r.get("unit", "") == row.get("unit", "")
        and r.get("paper") is not None
        and r.get("bound") is None
        and r.get("paper_range") is None
    ]
    return sum(others) / len(others) if others else None


def score(rows: list[dict[str, Any]], claims: list[dict[str, Any]]) -> dict[str, Any]:
    """Predicted rows within 10 % / 25 % (bounds and ranges as such) beside the trivial
    baseline's counts, fitted rows and inputs apart, scored claims by verdict."""
    from .sweep.paired import VERDICTS, mean_in_band

    scored = [r for r in rows if scorable(r)]
    out: dict[str, Any] = {"predicted": len(scored), **dict.fromkeys(SCORE_BANDS, 0)}
    base = dict.fromkeys(SCORE_BANDS, 0)
    for r in scored:
        b = baseline_of(r, scored)
        for name, frac in SCORE_BANDS.items():
            out[name] += within(r["pagelab"], r, frac)
            base[name] += b is not None and within(b, r, frac)
    out["baseline"] = base
    out["margin"] = {name: out[name] - base[name] for name in SCORE_BANDS}

    def has_paper(r: dict[str, Any]) -> bool:
        return r.get("paper") is not None and r.get("pagelab") is not None

    out["fitted"] = sum(1 for r in rows if r["role"] == "fitted" and has_paper(r))
    out["inputs"] = sum(1 for r in rows if r["role"] == "input")
    counted = [c for c in claims if claim_scored(c)]
    out["claims"] = {v: sum(1 for c in counted if c["verdict"] == v) for v in VERDICTS}
    out["claims_unscored"] = len(claims) - len(counted)
    out["holds_mean_in_band"] = sum(
        1 for c in counted if c["verdict"] == "holds" and mean_in_band(c["effect"], c["band"])
    )
    return out
