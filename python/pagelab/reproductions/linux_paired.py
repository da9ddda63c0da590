"""Two records of `linux-validation` set against each other over the kernel's own spread.

A change to the Linux replay moves each cell's major faults. Whether it predicts the kernel
better or worse is a question about the kernel's runs as much as the replay's: the reference of
each cell is the median of ten runs of a kernel that is not deterministic, and a series'
median |error| rests on a few cells of tens of frames. So the two records are compared by a
paired bootstrap (docs/readings.md `linux-adoption-paired`): each draw takes, within each
series, its cells with replacement and, within each cell drawn, the kernel's runs with
replacement; the drawn runs' median is the cell's reference in that draw, for both records at
once (common random numbers). Δ is the candidate's median |error| less the shipped one's, with
its 90 % interval over the draws.

    python -m pagelab.reproductions.linux_paired SHIPPED.json CANDIDATE.json [--draws N]
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import PagelabError
from . import _linux_grid as grid
from . import linux_validation as val

if TYPE_CHECKING:  # numpy is an extra; `reproduce` imports this package's modules without it
    import numpy as np

#: Draws of the bootstrap and their seed (fixed: the same records give the same interval).
DRAWS = 4000
SEED = 20261202
#: The interval's tails: 5th to 95th percentile.
TAIL = 0.05


@dataclass
class Series:
    """One kind of trace under one kernel and list: its cells' runs and both predictions."""

    runs: list[np.ndarray] = field(default_factory=list)
    shipped: list[float] = field(default_factory=list)
    candidate: list[float] = field(default_factory=list)
    gone_out: list[str] = field(default_factory=list)


def predictions(path: Path) -> tuple[dict[tuple[str, str], float], set[tuple[str, str]]]:
    """A validation record's predicted major faults by (row, column), and the cells whose
    replay failed (the "killed" table's rows with pagelab 1)."""
    try:
        rec = json.loads(path.read_text())
        rows = rec["rows"]
        if rec.get("name") != val.NAME:
            raise KeyError("name")
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise PagelabError(f"{path}: not a readable {val.NAME} record ({e})") from None
    faults = {(r["row"], r["column"]): r["pagelab"] for r in rows if r["table"] == val.TABLE}
    failed = {(r["row"], r["column"]) for r in rows if r["table"] == "killed" and r["pagelab"]}
    return faults, failed


def pair(shipped: Path, candidate: Path) -> tuple[dict[tuple[str, str], Series], list[str]]:
    """The series of the kernel's reference with both records' predictions, and the cells the
    kernel runs whose replay fails in the candidate alone."""
    import numpy as np

    old, _ = predictions(shipped)
    new, new_failed = predictions(candidate)
    series: dict[tuple[str, str], Series] = {}
    failures = []
    for entry in val.reference()["cells"]:
        cell = grid.Cell(**entry["cell"])
        key = (val.label(entry), cell.setting)
        if cell.kind == "claim" or sum(entry["runs"].get("oom_killed", [])):
            continue
        if key in new_failed and key in old:
            failures.append(f"{key[0]} ({key[1]})")
        kernel = entry["median"]["major_faults"]
        if kernel <= 0 or key not in old or key not in new:
            continue
        group = val.series(cell)
        s = series.setdefault((val.KINDS[cell.kind], group), Series())
        s.runs.append(np.asarray(entry["runs"]["major_faults"], dtype=float))
        s.shipped.append(old[key])
        s.candidate.append(new[key])
        lo, hi = entry["range"]["major_faults"]
        if val.inside(old[key], lo, hi) and not val.inside(new[key], lo, hi):
            s.gone_out.append(f"{key[0]}: {old[key]:g} -> {new[key]:g} against {lo:g}-{hi:g}")
    return dict(sorted(series.items())), failures


def _median_error(pred: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Per draw (rows), the median over the drawn cells (columns) of |pred - ref| / ref."""
    import numpy as np

    return np.median(np.abs(pred - ref) / np.maximum(ref, 1.0), axis=1)


def delta_draws(s: Series, draws: int, rng: np.random.Generator) -> np.ndarray:
    """Δ of each draw: the candidate's median |error| less the shipped one's."""
    import numpy as np

    n = len(s.runs)
    refs = np.stack(
        [np.median(r[rng.integers(len(r), size=(draws, len(r)))], axis=1) for r in s.runs], axis=1
    )
    pick = rng.integers(n, size=(draws, n))
    ref = np.take_along_axis(refs, pick, axis=1)
    old = np.asarray(s.shipped)[pick]
    new = np.asarray(s.candidate)[pick]
    return _median_error(new, ref) - _median_error(old, ref)


def compare(shipped: Path, candidate: Path, draws: int = DRAWS) -> dict[str, Any]:
    """Per series: both medians [%], Δ with its 90 % interval [points], whether the candidate
    is worse (the interval wholly above zero), the cells gone out of range; and the failures."""
    import numpy as np

    if draws < 100:
        raise PagelabError(f"--draws {draws}: expected at least 100")
    series, failures = pair(shipped, candidate)
    rng = np.random.default_rng(SEED)
    out = []
    for (kind, group), s in series.items():
        d = 100 * delta_draws(s, draws, rng)
        lo, hi = np.quantile(d, [TAIL, 1 - TAIL])
        ref = np.asarray([statistics.median(r) for r in s.runs])
        med = [100 * float(np.median(np.abs(np.asarray(p) - ref) / ref)) for p in (s.shipped,
               s.candidate)]  # fmt: skip
        out.append({"kind": kind, "series": group, "cells": len(s.runs), "shipped": med[0],
                    "candidate": med[1], "delta": med[1] - med[0], "low": float(lo),
                    "high": float(hi), "worse": bool(lo > 0), "better": bool(hi < 0),
                    "gone_out": s.gone_out})  # fmt: skip
    return {"draws": draws, "seed": SEED, "series": out, "failures": failures}


def render(result: dict[str, Any]) -> str:
    lines = [f"{'series':<36} {'cells':>5} {'shipped':>8} {'candidate':>9} {'Δ':>6}  90 % interval"]
    for s in result["series"]:
        verdict = "worse" if s["worse"] else "better" if s["better"] else "not worse"
        lines.append(
            f"{s['kind'] + ', ' + s['series']:<36} {s['cells']:>5} {s['shipped']:>7.2f}% "
            f"{s['candidate']:>8.2f}% {s['delta']:>+6.2f}  [{s['low']:+.2f}, {s['high']:+.2f}] "
            f"{verdict}"
        )
        lines += [f"    out of range: {c}" for c in s["gone_out"]]
    lines += [f"fails in the candidate: {c}" for c in result["failures"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    import argparse
    import sys

    ap = argparse.ArgumentParser(
        prog="python -m pagelab.reproductions.linux_paired",
        description="Compare two linux-validation records by a paired bootstrap over the "
        "kernel's runs and the cells (docs/readings.md linux-adoption-paired).",
    )
    ap.add_argument("shipped", type=Path, help="the record of the shipped replay")
    ap.add_argument("candidate", type=Path, help="the record of the replay with the change")
    ap.add_argument("--draws", type=int, default=DRAWS, help=f"default {DRAWS}")
    ap.add_argument("--format", choices=("text", "json"), default="text")
    a = ap.parse_args(argv)
    try:
        result = compare(a.shipped, a.candidate, a.draws)
    except PagelabError as e:
        sys.exit(f"error: {e}")
    print(json.dumps(result, indent=1) if a.format == "json" else render(result))


if __name__ == "__main__":
    main()
