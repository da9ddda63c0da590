"""Every page of the report opened in Chromium: each chart's series are well formed and each
reproduction page opens with the paper's own table.

The site is built from the published full-scale records the checkout has (PUBLISHED) and, for
the reproductions without one, the smoke records of this session (every reproduction when the
golden tests ran before, and at least those of REPRODUCTIONS); or from the records in
PAGELAB_REPORT_RECORDS.

On every drawn chart:

* no merged series: each series is named by a row or a column label of the page's tables, as the
  record writes it (a name made by rewriting labels, "QN seconds", is found by no table);
* no single-x stack: a chart with several series spreads over at least two x positions;
* one unit per axis: the series of a chart share one unit.

On every reproduction page with a paper number, the paper's first table starts above the fold
(the first 900 px of a 1280 px wide window). Screenshots of hpo-table2's and psi-table2's pages
go to test-artifacts/.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, SMOKE_RECORDS, smoke_record
from pagelab.report import build
from test_report_browser import _chromium

#: Smoke records made for the site: the two pages screenshotted, and charts of other shapes.
REPRODUCTIONS = ("hpo-table2", "psi-table2", "belady-anomaly", "m44-single")
#: Where published full-scale records live in the checkout, when they do.
PUBLISHED = (ROOT / "docs" / "published", ROOT / "results" / "full")
ARTIFACTS = ROOT / "test-artifacts"
FOLD_PX = 900

#: Each drawn chart's series: name, label, source, unit and distinct x positions.
_SERIES = """
() => Array.from(document.querySelectorAll('.plot[data-drawn]')).map(div => ({
  id: div.id,
  series: div.data.map(t => ({
    name: t.name, label: (t.meta || {}).label, source: (t.meta || {}).source,
    unit: (t.meta || {}).unit,
    xs: Array.from(new Set((t.x || []).map(String))),
  })),
}))
"""
#: Every row and column label of the page's tables.
_LABELS = """
() => Array.from(document.querySelectorAll('table td, table th')).map(c => c.textContent.trim())
"""


def _records(tmp: Path) -> Path:
    given = os.environ.get("PAGELAB_REPORT_RECORDS")
    if given:
        return Path(given)
    out = tmp / "records"
    out.mkdir()
    for name in REPRODUCTIONS:
        smoke_record(name)
    for name, record in SMOKE_RECORDS.items():
        (out / f"{name}.json").write_text(json.dumps(record))
    # A published full-scale record takes the place of the smoke one of the same name.
    for published in reversed(PUBLISHED):
        for record in published.glob("*.json") if published.is_dir() else []:
            shutil.copy(record, out / record.name)
    return out


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("charts")
    out = tmp / "site"
    build(_records(tmp), out)
    return out


def _check_charts(url: str, charts: list[dict], labels: set[str]) -> None:
    for chart in charts:
        where = f"{url}#{chart['id']}"
        series = chart["series"]
        units = {s["unit"] for s in series}
        assert len(units) == 1 and None not in units, (where, units)
        if chart["id"] == "distances":
            continue  # one line of dots per group, against one axis of per cent
        if chart["id"].startswith("twin-chart"):
            # A preset's twin: the model's curve, the simulator's points, the knees.
            sources = [s["source"] for s in series]
            assert sources[:2] == ["model", "simulator"], (where, sources)
            assert len(series[0]["xs"]) >= 5, (where, "the model's curve")
            continue
        for s in series:
            assert s["label"] in labels, (where, s["name"], "names no row or column")
            assert s["name"] == f"{s['source']} · {s['label']}", (where, s["name"])
        positions = {x for s in series for x in s["xs"]}
        if len(series) > 1:
            assert len(positions) >= 2, (where, "every series at one x")


def test_every_chart_of_every_page_is_well_formed(site):
    from playwright.sync_api import sync_playwright

    chromium = _chromium()
    twins = [p for p in sorted((site / "preset").glob("*.html")) if "twin-chart-1" in p.read_text()]
    assert len(twins) >= 15, "every system preset's page draws its twin"
    pages = [site / "index.html", *sorted((site / "repro").glob("*.html")), *twins]
    ARTIFACTS.mkdir(exist_ok=True)
    checked = 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": FOLD_PX})
        for path in pages:
            page.goto(path.as_uri())
            page.wait_for_load_state("load")
            page.wait_for_function(
                "Array.from(document.querySelectorAll('.plot')).every(d => d.dataset.drawn)"
            )
            charts = page.evaluate(_SERIES)
            _check_charts(path.name, charts, set(page.evaluate(_LABELS)))
            checked += len(charts)
            first = page.locator(".paper-table").first
            if path.parent.name == "repro" and first.count():
                top = first.evaluate("e => e.getBoundingClientRect().top + window.scrollY")
                assert top < FOLD_PX, (path.name, f"the paper's first table starts at {top} px")
            if path.stem in ("hpo-table2", "psi-table2"):
                page.screenshot(path=str(ARTIFACTS / f"report-{path.stem}.png"))
        browser.close()
    assert checked >= len(pages)


def test_the_paper_tables_come_first_on_the_pages_that_have_them(site):
    pages = [site / "repro" / f"{name}.html" for name in ("hpo-table2", "psi-table2")]
    if os.environ.get("PAGELAB_REPORT_RECORDS"):
        pages = [p for p in pages if p.exists()]  # records chosen by hand: those it has
    for page in pages:
        html = page.read_text()
        assert 'class="paper-table"' in html
        assert html.index('class="paper-table"') < html.index("<h2>Score</h2>")
        if 'class="own-table"' in html:
            assert html.index('class="paper-table"') < html.index('class="own-table"')
