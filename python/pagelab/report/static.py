"""Static PNG renderings of the site's interactive charts, for readers without JavaScript.

Each chart is a Plotly figure spec built by :mod:`pagelab.report.charts`; this draws the same
traces with matplotlib (markers, lines, the paper's open diamonds, the distance chart's bands),
so the page shows the picture even where plotly.js does not run. The file is written atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import _atomic

#: Plotly marker symbols and the matplotlib markers that draw them.
_MARKERS = {
    "circle": "o",
    "diamond": "D",
    "diamond-open": "D",
    "triangle-right": ">",
    "triangle-left": "<",
    "square": "s",
}
_INCH = 100  # pixels per inch of the figure


def draw(spec: dict[str, Any], path: Path) -> Path:
    """Draws `spec` (a Plotly figure spec of scatter traces) as a PNG at `path`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    layout = spec.get("layout", {})
    fig, ax = plt.subplots(figsize=(8.0, layout.get("height", 380) / _INCH))
    try:
        for shape in layout.get("shapes", []):
            if shape.get("type") == "rect" and shape.get("xref") == "x":
                ax.axvspan(shape["x0"], shape["x1"], color=shape.get("fillcolor"), zorder=0)
        for trace in spec.get("data", []):
            _trace(ax, trace)
        _axes(ax, layout)
        if any(t.get("showlegend", True) and t.get("name") for t in spec.get("data", [])):
            ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        fig.tight_layout()
        _atomic.save_figure(fig, path)
    finally:
        plt.close(fig)
    return path


def _trace(ax: Any, trace: dict[str, Any]) -> None:
    x, y = trace.get("x", []), trace.get("y", [])
    if not x or len(x) != len(y):
        return
    marker = trace.get("marker", {})
    colour = marker.get("color") if isinstance(marker.get("color"), str) else None
    symbol = marker.get("symbol", "circle")
    symbols = symbol if isinstance(symbol, list) else [symbol] * len(x)
    label = trace.get("name") if trace.get("showlegend", True) else None
    mode = trace.get("mode", "markers")
    if "lines" in mode:
        line = trace.get("line", {})
        ax.plot(x, y, color=line.get("color", colour), linewidth=1.2, label=label)
        label = None
    _error_bars(ax, trace, colour)
    if "markers" not in mode:
        return
    for s in dict.fromkeys(symbols):
        xs = [a for a, m in zip(x, symbols, strict=True) if m == s]
        ys = [b for b, m in zip(y, symbols, strict=True) if m == s]
        hollow = str(s).endswith("-open")
        ax.scatter(
            xs,
            ys,
            marker=_MARKERS.get(str(s), "o"),
            facecolors="none" if hollow else colour,
            edgecolors=colour,
            alpha=marker.get("opacity", 1.0),
            s=30,
            label=label,
        )
        label = None


def _error_bars(ax: Any, trace: dict[str, Any], colour: str | None) -> None:
    """The intervals of a trace (Plotly's asymmetric `error_y`) as error bars."""
    err = trace.get("error_y")
    if not err:
        return
    points = [
        (x, y, lo or 0.0, hi or 0.0)
        for x, y, lo, hi in zip(
            trace["x"], trace["y"], err["arrayminus"], err["array"], strict=True
        )
        if y is not None and (lo is not None or hi is not None)
    ]
    if points:
        xs, ys, lo, hi = (list(c) for c in zip(*points, strict=True))
        ax.errorbar(xs, ys, yerr=[lo, hi], fmt="none", ecolor=colour, elinewidth=1, capsize=3)


def _axes(ax: Any, layout: dict[str, Any]) -> None:
    title = layout.get("title", {})
    ax.set_title(title.get("text", "") if isinstance(title, dict) else str(title), fontsize=10)
    for axis, set_label, set_range in (
        ("xaxis", ax.set_xlabel, ax.set_xlim),
        ("yaxis", ax.set_ylabel, ax.set_ylim),
    ):
        conf = layout.get(axis, {})
        label = conf.get("title", {})
        set_label(label.get("text", "") if isinstance(label, dict) else str(label), fontsize=9)
        if conf.get("range"):
            set_range(*conf["range"])
        if conf.get("type") == "log":
            (ax.set_xscale if axis == "xaxis" else ax.set_yscale)("log")
    if layout.get("yaxis", {}).get("autorange") == "reversed":
        ax.invert_yaxis()
    ax.grid(True, alpha=0.3)
