"""A calibration's target file: the paper's numbers a fit aims at (`[[point]]`) and what the
paper's text says beyond them (`[[constraint]]`, `calibrate_constraints`). The format is in
`pagelab.calibrate`'s docstring."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import calibrate_constraints as cc
from . import validate
from .errors import PagelabError

#: Largest target value taken [in the metric's unit]: beyond this a number is a slip.
MAX_TARGET = 1e12


@dataclass(frozen=True)
class TargetPoint:
    """One paper number: a metric at a setting, with its weight in the loss."""

    metric: str
    value: float
    weight: float = 1.0
    overrides: tuple[str, ...] = ()
    group: str | None = None


@dataclass
class Target:
    path: Path
    name: str
    source: str
    points: list[TargetPoint]
    #: What the paper's text says of the base beyond its numbers (`calibrate_constraints`).
    constraints: list[cc.Constraint] = field(default_factory=list)


def load_target(path: str | Path) -> Target:
    """Reads a target file; a one-line error names the file and the key at fault."""
    path = Path(path)
    if not path.exists():
        raise PagelabError(f"--target {path}: no such file")
    try:
        doc = tomllib.loads(validate.read_toml_text(path, "target"))
    except tomllib.TOMLDecodeError as e:
        raise PagelabError(f"{path}: not TOML ({e})") from None
    head = doc.get("target", {})
    raw = doc.get("point")
    if not isinstance(raw, list) or not raw:
        raise PagelabError(f"{path}: expected [[point]] tables (metric, value, weight, set)")
    points = []
    for i, p in enumerate(raw):
        where = f"{path}: point {i + 1}"
        metric, value = p.get("metric"), p.get("value")
        if not isinstance(metric, str) or not _number(value) or value == 0:
            raise PagelabError(f"{where}: expected metric = NAME and value = a nonzero number")
        if abs(value) > MAX_TARGET:
            raise PagelabError(
                f"{where}: value {value:g}: expected a paper's number, at most "
                f"{MAX_TARGET:g} in size"
            )
        weight = p.get("weight", 1.0)
        if not _number(weight) or weight <= 0:
            raise PagelabError(f"{where}: weight: expected a positive number")
        sets, group = cc.setting_of(p, where)
        unknown = set(p) - {"metric", "value", "weight", "set", "group"}
        if unknown:
            raise PagelabError(f"{where}: unknown key {sorted(unknown)[0]!r}")
        points.append(TargetPoint(metric, float(value), float(weight), sets, group))
    name, source = str(head.get("name", path.stem)), str(head.get("source", ""))
    return Target(path, name, source, points, cc.load(doc, path))


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
