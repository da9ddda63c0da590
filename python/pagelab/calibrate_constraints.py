"""A calibration's constraints: what the paper's text says of the base that its table does not.

A target file may add `[[constraint]]` tables beside its points:

```toml
[[constraint]]
metric   = "q1_page_wait_s"
at_least = "q1_vio_wait_s"          # another metric of the same runs, or a number
why      = "Tetzlaff 1987, introduction: paging delay is the largest part"

[[constraint]]
metric  = "q1_seconds"
at_most = 0.36
set     = ["memory.frames=65536"]   # optional: runs of their own at this setting
```

Each is checked on the mean over the trial's seeds, at the constraint's setting with the trial's
shared keys (and those of its `group`, if it names one). A trial that breaks one is infeasible:
it is never the fit. The sampler is told its loss plus 1 plus the relative violations, so that
every feasible trial ranks above it and the search can still find its way back (a penalty
with a slope, as in Deb 2000, "An efficient constraint handling method for genetic
algorithms").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import PagelabError

#: What a constraint-breaking trial adds to its loss before the sampler sees it, besides its
#: relative violations: more than any loss a fit worth keeping has.
PENALTY = 1.0


@dataclass(frozen=True)
class Constraint:
    """`metric` at most (or at least) `bound`: a number, or another metric of the same runs."""

    metric: str
    bound: float | str
    at_most: bool
    overrides: tuple[str, ...] = ()
    group: str | None = None
    why: str = ""

    def rule(self) -> str:
        op = "<=" if self.at_most else ">="
        bound = self.bound if isinstance(self.bound, str) else f"{self.bound:g}"
        where = f" at {', '.join(self.overrides)}" if self.overrides else ""
        return f"{self.metric} {op} {bound}{where}"

    def metrics(self) -> list[str]:
        """The metrics the check reads."""
        return [self.metric, *([self.bound] if isinstance(self.bound, str) else [])]

    def sides(self, rows: Sequence[dict[str, Any]]) -> tuple[float, float]:
        """The metric's mean over `rows` (one per seed) and the bound's."""
        value = _mean(rows, self.metric)
        bound = _mean(rows, self.bound) if isinstance(self.bound, str) else float(self.bound)
        return value, bound

    def violation(self, value: float, bound: float) -> float:
        """How far `value` breaks the bound, relative to it (0 when met; inf when unknown)."""
        if not (math.isfinite(value) and math.isfinite(bound)):
            return math.inf
        excess = value - bound if self.at_most else bound - value
        return max(0.0, excess) / max(abs(bound), 1e-12)


def _mean(rows: Sequence[dict[str, Any]], metric: str) -> float:
    vals = [r.get(metric) for r in rows]
    if not vals or any(v is None for v in vals):
        return math.nan
    return sum(vals) / len(vals)


def load(doc: dict[str, Any], path: Path) -> list[Constraint]:
    """The `[[constraint]]` tables of a target file; a one-line error names the one at fault."""
    raw = doc.get("constraint", [])
    if not isinstance(raw, list):
        raise PagelabError(f"{path}: constraint: expected [[constraint]] tables")
    return [_one(c, f"{path}: constraint {i + 1}") for i, c in enumerate(raw)]


def setting_of(entry: dict[str, Any], where: str) -> tuple[tuple[str, ...], str | None]:
    """A target entry's `set` (overrides) and `group`, checked; a one-line error names `where`."""
    sets = entry.get("set", [])
    if not isinstance(sets, list) or not all(isinstance(s, str) for s in sets):
        raise PagelabError(f'{where}: set: expected a list of "key.path=value" strings')
    group = entry.get("group")
    if group is not None and (not isinstance(group, str) or not group or "@" in group):
        raise PagelabError(f"{where}: group: expected a name (text without @)")
    return tuple(sets), group


def _one(c: Any, where: str) -> Constraint:
    if not isinstance(c, dict):
        raise PagelabError(f"{where}: expected a table (metric, at_most or at_least, set, why)")
    unknown = set(c) - {"metric", "at_most", "at_least", "set", "group", "why"}
    if unknown:
        raise PagelabError(f"{where}: unknown key {sorted(unknown)[0]!r}")
    metric = c.get("metric")
    if not isinstance(metric, str) or not metric:
        raise PagelabError(f"{where}: expected metric = NAME")
    ends = [k for k in ("at_most", "at_least") if k in c]
    if len(ends) != 1:
        raise PagelabError(f"{where}: expected one of at_most or at_least")
    bound = c[ends[0]]
    number = isinstance(bound, int | float) and not isinstance(bound, bool)
    if not (number and math.isfinite(bound)) and not (isinstance(bound, str) and bound):
        raise PagelabError(f"{where}: {ends[0]}: expected a number or a metric's name")
    sets, group = setting_of(c, where)
    why = c.get("why", "")
    if not isinstance(why, str):
        raise PagelabError(f"{where}: why: expected text")
    bound = float(bound) if number else bound
    return Constraint(metric, bound, ends[0] == "at_most", sets, group, why)


@dataclass(frozen=True)
class Checked:
    """A trial's constraints, checked: each one's two sides and how far it is broken."""

    values: list[float]
    bounds: list[float]
    violations: list[float]

    def broken(self, constraints: Sequence[Constraint]) -> str | None:
        """The reason the trial is infeasible, or None."""
        out = [
            f"breaks {c.rule()} ({v:.4g} against {b:.4g})"
            for c, v, b, x in zip(
                constraints, self.values, self.bounds, self.violations, strict=True
            )
            if x > 0
        ]
        return "; ".join(out) or None

    def told(self, loss: float) -> float:
        """What the sampler is told: the loss, plus the penalty when anything is broken."""
        over = sum(self.violations)
        if over <= 0:
            return loss
        return loss + PENALTY + (over if math.isfinite(over) else 1e6)


def check(constraints: Sequence[Constraint], rows: Sequence[dict[str, Any]], k: int) -> Checked:
    """The constraints against their runs' rows, `k` seeds each, in order."""
    values, bounds, violations = [], [], []
    for i, c in enumerate(constraints):
        v, b = c.sides(rows[i * k : (i + 1) * k])
        values.append(v)
        bounds.append(b)
        violations.append(c.violation(v, b))
    return Checked(values, bounds, violations)


def provenance(constraints: Sequence[Constraint], best: Checked | None) -> list[dict[str, Any]]:
    """Each constraint's rule, reason and the fit's two sides, for the fitted preset."""
    out = []
    for i, c in enumerate(constraints):
        entry: dict[str, Any] = {"rule": c.rule()}
        if c.why:
            entry["why"] = c.why
        if best is not None:
            entry["fitted"] = best.values[i]
            entry["bound"] = best.bounds[i]
        out.append(entry)
    return out
