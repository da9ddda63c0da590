"""The demo's HTML report, opened in a real browser (Chromium driven by Playwright): every figure
decodes, the tables carry their rows, and the page logs no errors."""

from __future__ import annotations

import os
import shutil

import pytest

from pagelab import demo


def _chromium() -> str:
    path = os.environ.get("PAGELAB_CHROMIUM") or shutil.which("chromium")
    missing = "chromium is not installed (make venv installs it)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing = "playwright is not installed (make venv installs it)"
        path = None
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(missing)
        pytest.skip(missing)
    return path


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    return demo.run(out, count=200)["report"]


def test_demo_report_renders_in_a_browser(report):
    from playwright.sync_api import sync_playwright

    chromium = _chromium()
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("requestfailed", lambda r: errors.append(f"failed: {r.url}"))
        page.goto(f"file://{report}")
        page.wait_for_load_state("load")
        assert page.title() == "pagelab demo"
        images = page.evaluate(
            "Array.from(document.images).map(i => [i.alt, i.complete, i.naturalWidth])"
        )
        assert len(images) == 2
        for alt, complete, width in images:
            assert complete and width > 100, f"figure {alt!r} did not decode"
        # The faults table: one row per size, one column per policy, every cell a number.
        faults = page.locator("table").nth(1)
        headers = faults.locator("th").all_inner_texts()
        assert headers == ["frames", *demo.POLICIES]
        rows = faults.locator("tbody tr")
        assert rows.count() >= 5
        for cell in rows.first.locator("td").all_inner_texts():
            assert cell.replace(",", "").isdigit(), cell
        claims = page.locator("table").nth(2).locator("tbody tr")
        assert claims.count() >= 1
        assert "holds" in claims.first.inner_text()
        browser.close()
    assert errors == []
