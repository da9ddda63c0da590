"""Interactive charts of a record's numbers, as Plotly figure specs (plain dicts, drawn in the
browser by the bundled plotly.js).

Two kinds: the distance chart (each scored row's difference from the paper in per cent, over
the 10 % and 25 % bands of the scoreboard; numbers of any scale side by side) and one chart per
table, the paper's points and ours over the table's rows, the way the paper's own figure reads.
"""

from __future__ import annotations

from typing import Any

from . import score
from .records import Record, Row
from .score import WITHIN

#: Where the distance chart stops; further rows sit on its edge [%].
EDGE = 100.0

#: Marker colour per role, the same as the site's role badges (assets/site.css).
ROLE_COLOURS = {
    "predicted": "#1f6feb",
    "fitted": "#8250df",
    "unknown": "#57606a",
    "input": "#9a6700",
    "ours": "#1a7f37",
}
#: Colours of the columns of a table chart (ours and the paper's share one per column).
PALETTE = ("#1f6feb", "#cf222e", "#1a7f37", "#9a6700", "#8250df", "#0550ae", "#bc4c00")
_LAYOUT = {
    "margin": {"l": 60, "r": 20, "t": 40, "b": 60},
    "height": 380,
    "hovermode": "closest",
    "legend": {"orientation": "h", "y": -0.25},
    "font": {"family": "system-ui, sans-serif", "size": 12},
}


def _label(row: Row) -> str:
    return " · ".join(p for p in (row.table, row.row, row.column) if p)


def distances(grouped: list[tuple[str, Row]], title: str) -> dict[str, Any] | None:
    """Each scored row's signed relative difference from the paper [%], one line of dots per
    group (a paper on the index, a table on a reproduction's page), over the 10 % and 25 %
    bands of the scoreboard. Differences beyond ±100 % sit on the edge as triangles."""
    scored = [(g, r, score.distance(r)) for g, r in grouped if r.role in score.SCORED_ROLES]
    scored = [(g, r, d) for g, r, d in scored if d is not None]
    if not scored:
        return None
    data: list[dict[str, Any]] = []
    for role in score.SCORED_ROLES:
        points = [
            (g, r, 100 * d * (1 if r.pagelab >= r.paper else -1))
            for g, r, d in scored
            if r.role == role
        ]
        inside = [p for p in points if abs(p[2]) <= EDGE]
        beyond = [p for p in points if abs(p[2]) > EDGE]
        # One legend entry per role: the dots inside carry it, the edge triangles follow it.
        for mine, first in ((inside, True), (beyond, not inside)):
            if mine:
                data.append(_distance_trace(role, mine, legend=first))
    bands = [(100 * WITHIN[1], "#fff8c5"), (100 * WITHIN[0], "#dafbe1")]
    shapes = [
        {
            "type": "rect",
            "xref": "x",
            "yref": "paper",
            "x0": -w,
            "x1": w,
            "y0": 0,
            "y1": 1,
            "fillcolor": colour,
            "line": {"width": 0},
            "layer": "below",
        }
        for w, colour in bands
    ]
    groups = len({g for g, _, _ in scored})
    layout = {
        **_LAYOUT,
        "title": {"text": title},
        "height": max(240, 90 + 34 * groups),
        "shapes": shapes,
        "xaxis": {
            "title": {"text": "pagelab against the paper [%]"},
            "zeroline": True,
            "range": [-EDGE - 8, EDGE + 8],
            "ticksuffix": " %",
        },
        "yaxis": {"type": "category", "automargin": True, "autorange": "reversed"},
    }
    return {"data": data, "layout": layout}


def _distance_trace(role: str, points: list[tuple[str, Row, float]], *, legend: bool) -> dict:
    return {
        "type": "scatter",
        "mode": "markers",
        "name": role,
        "legendgroup": role,
        "showlegend": legend,
        "x": [max(-EDGE, min(EDGE, v)) for _, _, v in points],
        "y": [g for g, _, _ in points],
        "text": [
            f"{_label(r)}<br>paper {r.paper} · pagelab {r.pagelab} {r.unit}<br>{v:+.1f} %"
            for _, r, v in points
        ],
        "hovertemplate": "%{text}<extra></extra>",
        "marker": {
            "color": ROLE_COLOURS[role],
            "size": 9,
            "opacity": 0.75,
            "symbol": [_edge_symbol(v) for _, _, v in points],
        },
    }


def _edge_symbol(v: float) -> str:
    if v > EDGE:
        return "triangle-right"
    if v < -EDGE:
        return "triangle-left"
    return "circle"


def tables(record: Record) -> list[dict[str, Any]]:
    """One chart per (table, unit) with at least two of our numbers: paper and ours by row."""
    charts = []
    groups: dict[tuple[str, str], list[Row]] = {}
    for r in record.rows:
        groups.setdefault((r.table, r.unit), []).append(r)
    for (table, unit), rows in groups.items():
        if sum(r.pagelab is not None for r in rows) < 2:
            continue
        data = []
        for i, column in enumerate(dict.fromkeys(r.column for r in rows)):
            mine = [r for r in rows if r.column == column]
            name, colour = column or "value", PALETTE[i % len(PALETTE)]
            data.append(_series(mine, f"pagelab {name}", "pagelab", colour, paper=False))
            if any(r.paper is not None for r in mine):
                data.append(_series(mine, f"paper {name}", "paper", colour, paper=True))
        title = f"{table} [{unit}]" if unit else table
        layout = {
            **_LAYOUT,
            "title": {"text": title},
            "xaxis": {"type": "category", "automargin": True},
            "yaxis": {"title": {"text": unit}, "rangemode": "tozero"},
        }
        charts.append({"title": title, "spec": {"data": data, "layout": layout}})
    return charts


def _series(rows: list[Row], name: str, field: str, colour: str, *, paper: bool) -> dict[str, Any]:
    """Ours as a line through the rows; the paper's as open diamonds of the same colour."""
    return {
        "type": "scatter",
        "mode": "markers" if paper else "lines+markers",
        "name": name,
        "x": [r.row for r in rows],
        "y": [getattr(r, field) for r in rows],
        "marker": {"color": colour, "size": 10 if paper else 6}
        | ({"symbol": "diamond-open"} if paper else {}),
        "line": {"color": colour},
        "hovertemplate": f"%{{x}}<br>{field} %{{y}}<extra>{name}</extra>",
    }
