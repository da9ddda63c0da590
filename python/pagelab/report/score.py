"""The scoreboard: how close pagelab comes to each paper, counted from the rows and claims.

A row is scored when it has both numbers. Its distance is |pagelab - paper| / |paper| (zero when
both are zero, infinite when only the paper's is). Only `predicted` rows make the score
(DESIGN.md: a fitted number was aimed at, an input was fed in); `fitted` rows and rows whose role
an older record does not give (`unknown`) are counted the same way but shown apart. Claims are
counted by verdict, and those that hold by whether their mean effect lies in the paper's band.

A record's own `score` block is never taken on trust: the site recomputes it and lists every
field where the two disagree.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from .records import ALL_VERDICTS, VERDICTS, Record, Row

#: Relative distances that bound the "close" and "near" bands [fraction of the paper's number].
WITHIN = (0.10, 0.25)
#: Roles whose rows are counted against the paper's numbers, each in its own column.
SCORED_ROLES = ("predicted", "fitted", "unknown")


def distance(row: Row) -> float | None:
    """How far ours lies from the paper's number, bound or range (pagelab.scoring.distance),
    or None when either is missing."""
    from ..scoring import distance as scoring_distance

    if (row.paper is None and row.paper_range is None) or row.pagelab is None:
        return None
    if math.isnan(row.pagelab):
        return None
    return scoring_distance(row.pagelab, row.paper, row.bound, row.paper_range)


def band(d: float | None) -> str:
    """The colour class of a distance: close (within 10 %), near (25 %), far, or none."""
    if d is None:
        return "none"
    if d <= WITHIN[0]:
        return "close"
    if d <= WITHIN[1]:
        return "near"
    return "far"


def _empty() -> dict[str, Any]:
    return {
        "rows": 0,
        **{role: {"n": 0, "within_10": 0, "within_25": 0} for role in SCORED_ROLES},
        "unpaired": 0,
        "input": 0,
        "ours": 0,
        "claims": dict.fromkeys(ALL_VERDICTS, 0),
        "claims_unscored": 0,
        "holds_mean_in_band": 0,
        "baseline": {"within_10": 0, "within_25": 0},
    }


def baseline(record: Record) -> dict[str, int]:
    """The trivial baseline's counts over the record's scored predicted rows
    (pagelab.scoring.baseline_of: the row's base-column number, else the paper's other
    numbers of its unit)."""
    from ..scoring import baseline_of, within

    rows = [
        {"paper": r.paper, "unit": r.unit, "bound": r.bound, "paper_range": r.paper_range,
         "baseline": r.baseline}
        for r in record.rows
        if r.role == "predicted" and distance(r) is not None
    ]  # fmt: skip
    out = {"within_10": 0, "within_25": 0}
    for r in rows:
        b = baseline_of(r, rows)
        for key, frac in zip(out, WITHIN, strict=True):
            out[key] += b is not None and within(b, r, frac)
    return out


def of_record(record: Record) -> dict[str, Any]:
    """The counts of one record, computed from its rows and claims."""
    s = _empty()
    for row in record.rows:
        s["rows"] += 1
        if row.role in ("input", "ours"):
            s[row.role] += 1
            continue
        d = distance(row)
        if d is None:
            s["unpaired"] += 1
            continue
        tally = s[row.role]
        tally["n"] += 1
        tally["within_10"] += d <= WITHIN[0]
        tally["within_25"] += d <= WITHIN[1]
    s["baseline"] = baseline(record)
    for claim in record.claims:
        if not claim.scored:
            s["claims_unscored"] += 1
            continue
        s["claims"][claim.verdict] += 1
        s["holds_mean_in_band"] += claim.verdict == "holds" and claim.mean_in_band is True
    return s


def total(scores: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The sum of several records' counts."""
    out = _empty()
    for s in scores:
        out["rows"] += s["rows"]
        for key in ("unpaired", "input", "ours", "claims_unscored"):
            out[key] += s[key]
        for role in SCORED_ROLES:
            for key in ("n", "within_10", "within_25"):
                out[role][key] += s[role][key]
        for verdict in ALL_VERDICTS:
            out["claims"][verdict] += s["claims"][verdict]
        out["holds_mean_in_band"] += s["holds_mean_in_band"]
        for key in out["baseline"]:
            out["baseline"][key] += s["baseline"][key]
    return out


def mismatches(record: Record, computed: dict[str, Any]) -> list[str]:
    """Where the record's own `score` block disagrees with the counts recomputed from it."""
    declared = record.declared_score
    if declared is None:
        return []
    expected = {
        "predicted": computed["predicted"]["n"],
        "within_10": computed["predicted"]["within_10"],
        "within_25": computed["predicted"]["within_25"],
        "fitted": computed["fitted"]["n"],
        "inputs": computed["input"],
        "holds_mean_in_band": computed["holds_mean_in_band"],
    }
    found = []
    for key, value in expected.items():
        if key in declared and declared[key] != value:
            found.append(f"{key}: record says {declared[key]}, rows give {value}")
    claims = declared.get("claims")
    if isinstance(claims, dict):
        for verdict in VERDICTS:
            value = computed["claims"][verdict]
            if verdict in claims and claims[verdict] != value:
                found.append(
                    f"claims.{verdict}: record says {claims[verdict]}, claims give {value}"
                )
    elif claims is not None:
        found.append(f"claims: record says {claims!r}, expected counts by verdict")
    return found


def percent(part: int, whole: int) -> str:
    """`part` as a whole-number percentage of `whole`, or an en dash when there is none."""
    return f"{100 * part / whole:.0f} %" if whole else "–"
