"""The analytic twin beside the simulator on each system preset's page.

The numbers are `docs/published/twin/presets.json`, written by `scripts/publish_twins.py`:
the twin (`pagelab.model`) at many counts, the simulator at a few through the sweep engine.
Two charts per preset, throughput and response against the count, each with the model's
curve, the simulator's points with one standard deviation over seeds, and the knee each
predicts (where throughput peaks) as a dashed line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .charts import _LAYOUT, PALETTE

#: The published comparison, beside the presets it was made from.
FILE = Path("docs") / "published" / "twin" / "presets.json"
#: What each system's twin counts.
WHO = {"m44": "copies of the program", "unix": "prototype processes (PN)", "vm": "users"}
UNITS = {"throughput": "1/s", "response": "s"}


def load(presets_dir: Path) -> dict[str, Any]:
    """The comparison per preset name, read beside `presets_dir`; empty when absent."""
    path = presets_dir.resolve().parent / FILE
    if not path.is_file():
        return {}
    return json.loads(path.read_text()).get("presets", {})


def charts(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """Throughput and response charts of one preset's comparison."""
    who = WHO.get(entry.get("kind", "vm"), "users")
    out = []
    for col, unit in UNITS.items():
        model = [m for m in entry["model"] if m.get(col) is not None]
        sim = [s for s in entry["sim"] if s.get(col) is not None]
        if not model and not sim:
            continue
        data = [
            _line(model, col, "model", PALETTE[0]),
            _points(sim, col, PALETTE[1]),
        ]
        top = max([m[col] for m in model] + [s[col] + (s.get(f"{col}_sd") or 0) for s in sim])
        if col == "throughput":
            data += [
                _knee(entry["knee_model"], top, "model", PALETTE[0], unit),
                _knee(entry["knee_sim"], top, "simulator", PALETTE[1], unit),
            ]
        title = f"{col} [{unit}]"
        layout = {
            **_LAYOUT,
            "title": {"text": title},
            "xaxis": {"type": "linear", "title": {"text": who}},
            "yaxis": {"title": {"text": unit}, "rangemode": "tozero", "automargin": True},
        }
        out.append({"title": title, "spec": {"data": data, "layout": layout}})
    return out


def _line(rows: list[dict[str, Any]], col: str, name: str, colour: str) -> dict[str, Any]:
    return {
        "type": "scatter",
        "mode": "lines",
        "name": name,
        "meta": {"label": col, "source": name, "unit": UNITS[col]},
        "x": [r["users"] for r in rows],
        "y": [r[col] for r in rows],
        "line": {"color": colour},
    }


def _points(rows: list[dict[str, Any]], col: str, colour: str) -> dict[str, Any]:
    sd = [r.get(f"{col}_sd") or 0.0 for r in rows]
    return {
        "type": "scatter",
        "mode": "markers",
        "name": "simulator",
        "meta": {"label": col, "source": "simulator", "unit": UNITS[col]},
        "x": [r["users"] for r in rows],
        "y": [r[col] for r in rows],
        "marker": {"color": colour, "size": 8},
        "error_y": {
            "type": "data",
            "symmetric": False,
            "array": sd,
            "arrayminus": sd,
            "color": colour,
            "thickness": 1,
        },
    }


def _knee(x: float, top: float, who: str, colour: str, unit: str) -> dict[str, Any]:
    return {
        "type": "scatter",
        "mode": "lines",
        "name": f"{who} knee {x:g}",
        "meta": {"label": "knee", "source": who, "unit": unit},
        "x": [x, x],
        "y": [0.0, top],
        "line": {"color": colour, "dash": "dash", "width": 1},
    }
