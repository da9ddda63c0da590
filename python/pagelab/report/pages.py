"""What each page shows, prepared as plain values for the Jinja2 templates (autoescaped)."""

from __future__ import annotations

import functools
import math
import os
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import jinja2
from markupsafe import Markup

from . import charts, presets, score
from .records import ALL_VERDICTS, Record, Row


def fmt(v: Any) -> str:
    """A number as a reader wants it: thousands separated, about four significant digits."""
    if v is None:
        return "—"
    if isinstance(v, bool) or not isinstance(v, int | float):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if math.isinf(v):
        return "∞"
    a = abs(v)
    if a == 0:
        return "0"
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 1e-3:
        return f"{v:.4g}"
    return f"{v:.2e}"


def signed_percent(d: float | None) -> str:
    if d is None:
        return "—"
    if math.isinf(d):
        return "∞"
    return f"{100 * d:+.1f} %"


def environment() -> jinja2.Environment:
    """Templates from the package, HTML-escaped by default, failing on an undefined name."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("pagelab.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["fmt"] = fmt
    env.filters["pct"] = signed_percent
    env.globals["percent"] = score.percent
    env.globals["verdicts"] = ALL_VERDICTS
    env.globals["verdict_class"] = lambda v: "v-" + re.sub(r"[^a-z]+", "-", v).strip("-")
    return env


def render(
    env: jinja2.Environment, template: str, site: Path, page: str, context: dict[str, Any]
) -> None:
    """Writes `page` (a path inside `site`); its links to the assets are relative (`root`), so
    the site works from any folder and from file://."""
    target = site / page
    target.parent.mkdir(parents=True, exist_ok=True)
    root = Path(os.path.relpath(site, target.parent)).as_posix()
    html = env.get_template(template).render(root=root, **context)
    target.write_text(html, encoding="utf-8")


def _row_view(row: Row) -> dict[str, Any]:
    d = score.distance(row)
    signed = None
    if d is not None and row.paper is not None and row.pagelab is not None:
        signed = d if row.pagelab >= row.paper else -d
    diff = row.pagelab - row.paper if row.paper is not None and row.pagelab is not None else None
    return {
        "row": row,
        "diff": diff,
        "relative": signed,
        "band": score.band(d) if row.role in score.SCORED_ROLES else "none",
        "sort_relative": "" if d is None or math.isinf(d) else f"{d:.6g}",
    }


def _tables(record: Record) -> list[dict[str, Any]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in record.rows:
        grouped.setdefault(row.table, []).append(_row_view(row))
    tables = []
    for name, rows in grouped.items():
        # Why a row is an input or fitted is often one sentence for many rows: a numbered note.
        whys = list(dict.fromkeys(v["row"].why for v in rows if v["row"].why))
        for v in rows:
            v["note"] = whys.index(v["row"].why) + 1 if v["row"].why else None
        tables.append({"name": name, "rows": rows, "grid": _grid(rows), "notes": whys})
    return tables


def _has_paper(table: dict[str, Any]) -> bool:
    return any(v["row"].paper is not None for v in table["rows"])


def _grid(views: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The table as the paper lays it out (its rows down, its columns across, each cell the
    paper's number beside ours), when it has several columns and one number per cell."""
    columns = list(dict.fromkeys(v["row"].column for v in views))
    cells = {(v["row"].row, v["row"].column): v for v in views}
    if len(columns) < 2 or len(cells) < len(views):
        return None
    rows = list(dict.fromkeys(v["row"].row for v in views))
    return {
        "columns": columns,
        "rows": [(r, [cells.get((r, c)) for c in columns]) for r in rows],
    }


@functools.cache
def _modules() -> dict[str, ModuleType]:
    """This pagelab's reproduction modules by name (their docstrings and sources are read)."""
    from .. import reproduce

    return reproduce._modules()


def _description(name: str) -> str:
    """The reproduction module's docstring, when this pagelab has that reproduction."""
    module = _modules().get(name)
    return (module.__doc__ or "").strip() if module else ""


def _fitted(fitted: dict[str, Any] | None) -> list[dict[str, Any]]:
    """A fitted block or a preset's `[provenance]` as fields: a scalar or list shows as text, a
    mapping as one line per key, a list of mappings as a table with a column per key."""
    if not fitted:
        return []
    out: list[dict[str, Any]] = []
    for key, value in fitted.items():
        if isinstance(value, dict):
            out.append({"field": key, "entries": [(k, _plain(v)) for k, v in value.items()]})
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            head = list(dict.fromkeys(k for v in value for k in v))
            body = [[_plain(v.get(k, "")) for k in head] for v in value]
            out.append({"field": key, "head": head, "body": body})
        else:
            out.append({"field": key, "value": _plain(value)})
    return out


def _plain(v: Any) -> str:
    if isinstance(v, list):
        return ", ".join(_plain(x) for x in v)
    if isinstance(v, dict):
        return "; ".join(f"{k}: {_plain(x)}" for k, x in v.items())
    return fmt(v) if isinstance(v, int | float) else str(v)


def reproduction_context(record: Record, counts: dict[str, Any]) -> dict[str, Any]:
    tables = _tables(record)
    return {
        "record": record,
        "counts": counts,
        # The paper's own tables (those with a paper number) open the page; ours follow.
        "paper_tables": [t for t in tables if _has_paper(t)],
        "own_tables": [t for t in tables if not _has_paper(t)],
        "description": _description(record.name),
        "fitted": _fitted(record.fitted),
        "distances": charts.distances(
            [(r.table or "(untitled)", r) for r in record.rows], "distance from the paper, by table"
        ),
        "table_charts": charts.tables(record),
        "title": record.title,
    }


def presets_used(records: list[Record], names: list[str]) -> dict[str, list[str]]:
    """Presets each reproduction names: in its fitted block, or in its module's source."""
    modules = _modules()
    found: dict[str, list[str]] = {}
    for r in records:
        text = ""
        module = modules.get(r.name)
        if module is not None and getattr(module, "__file__", None):
            text = Path(module.__file__).read_text()
        named = set(re.findall(r"presets/([\w\-]+)\.toml", text))
        named |= {n for n in names if f'"{n}"' in text}
        if r.fitted and isinstance(r.fitted.get("preset"), str):
            named.add(r.fitted["preset"])
        found[r.name] = [n for n in names if n in named]
    return found


def preset_context(path: Path) -> dict[str, Any]:
    data, params = presets.params(path)
    text = path.read_text()
    doc = presets.doc_for(path)
    doc_html = None
    if doc is not None:
        from markdown_it import MarkdownIt

        # Raw HTML in the notes is escaped, not passed through (html=False).
        md = MarkdownIt("commonmark", {"html": False}).enable("table")
        tokens = md.parse(doc.read_text())
        for t in tokens:  # the notes sit under the page's own h2: their h1 becomes an h3
            if t.type in ("heading_open", "heading_close"):
                t.tag = f"h{min(6, int(t.tag[1]) + 2)}"
        doc_html = Markup(md.renderer.render(tokens, md.options, {}))
    meta = data.get("preset", {}) if isinstance(data.get("preset"), dict) else {}
    system = data.get("system", {}) if isinstance(data.get("system"), dict) else {}
    bases = {b: sum(p.basis == b for p in params) for b in presets.BASES}
    provenance = data.get("provenance") if isinstance(data.get("provenance"), dict) else None
    return {
        "name": path.stem,
        "file": path.name,
        "title": meta.get("name", path.stem),
        "fidelity": meta.get("fidelity", "not stated"),
        "kind": system.get("kind", ""),
        "sources": meta.get("sources", []),
        "header": presets.header(text),
        "params": params,
        "bases": bases,
        "extends": presets._extends(data),
        "inherited": presets.inherited(path),
        "provenance": _fitted(provenance),
        "doc": doc.name if doc else None,
        "doc_html": doc_html,
    }


def index_context(
    records: list[Record], board: dict[str, Any], preset_pages: list[dict[str, Any]]
) -> dict[str, Any]:
    dates = sorted(r.date for r in records)
    return {
        "title": "pagelab reproductions",
        "records": records,
        "board": board,
        "overall": board["overall"],
        "papers": board["papers"],
        "counts": board["reproductions"],
        "presets": preset_pages,
        "dates": (dates[0], dates[-1]),
        "mismatched": [n for n, c in board["reproductions"].items() if c["score_mismatches"]],
        "missing": sorted(set(_modules()) - {r.name for r in records}),
        "distances": charts.distances(
            [(r.paper, row) for r in records for row in r.rows],
            "distance from the paper, every scored row, by paper",
        ),
    }
