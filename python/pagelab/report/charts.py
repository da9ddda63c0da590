"""Interactive charts of a record's numbers, as Plotly figure specs (plain dicts, drawn in the
browser by the bundled plotly.js).

Two kinds: the distance chart (each scored row's difference from the paper in per cent, over
the 10 % and 25 % bands of the scoreboard; numbers of any scale side by side) and one chart per
table, the paper's points and ours over the table's rows, the way the paper's own figure reads.
"""

from __future__ import annotations

import re
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
    "showlegend": True,  # a single series is named too
    # Beside the plot, not under it, where long category labels would run into it.
    "legend": {"orientation": "v", "x": 1.02, "y": 1, "xanchor": "left"},
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
        points = [(g, r, 100 * d * _side(r)) for g, r, d in scored if r.role == role]
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


def _side(r: Row) -> int:
    """+1 where ours lies at or above the paper's number (or inside or above its range), -1
    below: a row may give the paper's range and no single number."""
    if r.paper is not None:
        return 1 if r.pagelab >= r.paper else -1
    lo, hi = r.paper_range or (r.pagelab, r.pagelab)
    return 1 if r.pagelab >= min(lo, hi) else -1


def _distance_trace(role: str, points: list[tuple[str, Row, float]], *, legend: bool) -> dict:
    return {
        "type": "scatter",
        "mode": "markers",
        "name": role,
        "meta": {"label": role, "source": "distance", "unit": "%"},
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


#: A label that is a number, alone or before a word shared by the whole axis ("125 users").
_NUMBER_LABEL = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(.*?)\s*$")


def _numeric_axis(labels: list[str]) -> tuple[list[float], str] | None:
    """The labels' numbers and their shared word, when every label is a number followed by the
    same word (or by none); None otherwise. The labels are read, never rewritten."""
    found = [_NUMBER_LABEL.match(label) for label in labels]
    if not all(found) or len({m.group(2) for m in found if m}) != 1:
        return None
    return [float(m.group(1)) for m in found if m], found[0].group(2) if found[0] else ""


def _layout_of(rows: list[Row]) -> tuple[str, str]:
    """(field across the x axis, field naming the series): the table's rows or its columns,
    whichever has more distinct labels goes across, so no series is a single x."""
    n_rows = len({r.row for r in rows})
    n_columns = len({r.column for r in rows})
    return ("row", "column") if n_rows >= n_columns else ("column", "row")


def tables(record: Record) -> list[dict[str, Any]]:
    """One chart per table and unit with at least two of our numbers, built from the table's
    structure: its rows or its columns across the x axis (whichever are more) and a series per
    label of the other, named by that label as the record writes it. Ours are dots joined by a
    line where the x labels are numbers, with the interval as an error bar; the paper's are open
    diamonds in the colour of ours, wherever the paper gives a number. A row with no unit is
    not drawn: measures of unknown units cannot share an axis."""
    charts = []
    groups: dict[tuple[str, str], list[Row]] = {}
    for r in record.rows:
        if r.unit:
            groups.setdefault((r.table, r.unit), []).append(r)
    for (table, unit), rows in groups.items():
        if sum(r.pagelab is not None for r in rows) < 2:
            continue
        across, by = _layout_of(rows)
        labels = list(dict.fromkeys(getattr(r, across) for r in rows))
        numeric = _numeric_axis(labels)
        xs = dict(zip(labels, numeric[0] if numeric else labels, strict=True))
        series: dict[str, list[tuple[Any, Row]]] = {}
        for r in rows:
            series.setdefault(getattr(r, by), []).append((xs[getattr(r, across)], r))
        data = []
        for k, (name, points) in enumerate(series.items()):
            label, colour = name or "value", PALETTE[k % len(PALETTE)]
            mode = "lines+markers" if numeric else "markers"
            data.append(_series(points, label, "pagelab", colour, unit, mode=mode))
            if any(r.paper is not None for _, r in points):
                data.append(_series(points, label, "paper", colour, unit, mode="paper"))
        title = f"{table} [{unit}]"
        if numeric:
            xaxis = {"type": "linear", "title": {"text": numeric[1] or across}}
        else:
            xaxis = {"type": "category", "automargin": True, "title": {"text": across}}
        layout = {
            **_LAYOUT,
            "title": {"text": title},
            "xaxis": xaxis,
            "yaxis": {"title": {"text": unit}, "rangemode": "tozero", "automargin": True},
        }
        charts.append({"title": title, "spec": {"data": data, "layout": layout}})
    return charts


def _series(
    points: list[tuple[Any, Row]], label: str, field: str, colour: str, unit: str, *, mode: str
) -> dict[str, Any]:
    """Ours as dots or a curve with the intervals as error bars; the paper's as open diamonds
    of the same colour. `meta` keeps the series' label and unit for the browser tests."""
    paper = mode == "paper"
    name = f"{field} · {label}"
    trace = {
        "type": "scatter",
        "mode": "markers" if paper else mode,
        "name": name,
        "meta": {"label": label, "source": field, "unit": unit},
        "x": [x for x, _ in points],
        "y": [getattr(r, field) for _, r in points],
        "text": [f"{r.row} · {r.column}" for _, r in points],
        "marker": {"color": colour, "size": 10 if paper else 7}
        | ({"symbol": "diamond-open"} if paper else {}),
        "line": {"color": colour},
        "hovertemplate": f"%{{text}}<br>{field} %{{y}} {unit}<extra>{name}</extra>",
    }
    if not paper and any(r.interval for _, r in points):
        trace["error_y"] = {
            "type": "data",
            "symmetric": False,
            "array": [_above(r) for _, r in points],
            "arrayminus": [_below(r) for _, r in points],
            "color": colour,
            "thickness": 1,
        }
    return trace


def _above(r: Row) -> float | None:
    if r.interval is None or r.pagelab is None:
        return None
    return max(0.0, r.interval[1] - r.pagelab)


def _below(r: Row) -> float | None:
    if r.interval is None or r.pagelab is None:
        return None
    return max(0.0, r.pagelab - r.interval[0])
