"""`pagelab report`: the site built from real smoke records and hand-made ones in the newer record
format, its scoreboard recounted here from the raw JSON, and the pages opened in Chromium."""

from __future__ import annotations

import html
import json
import math
import re
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, assert_one_line_error, run_cli
from pagelab import reproduce, tomlout
from pagelab.errors import PagelabError
from pagelab.report import build, charts, presets, records
from pagelab.scoring import claim_scored
from test_report_browser import _chromium

#: Fast reproductions whose smoke records feed the site.
SMOKE = ("belady-anomaly", "unix-login-control")


def _legacy_record(name: str) -> dict:
    """A record in the format before roles and verdicts: rows without a role, claims with a
    boolean `holds` decided on one seed."""
    faults = [("fifo", 3, 9), ("fifo", 4, 10), ("lru", 3, 10), ("lru", 4, 8), ("min", 3, 7)]
    rows = [
        {
            "table": "faults",
            "row": f"{p} {n} frames",
            "column": "faults",
            "paper": f,
            "pagelab": f,
            "unit": "faults",
        }
        for p, n, f in faults
    ]
    rows.append(
        {
            "table": "faults",
            "row": "min 4 frames",
            "column": "faults",
            "paper": 6,
            "pagelab": 6,
            "unit": "faults",
        }
    )
    claims = [
        {"id": cid, "text": cid, "holds": True, "evidence": "by hand"}
        for cid in ("fifo-anomaly", "lru-inclusion", "min-inclusion")
    ]
    return {
        "name": name,
        "paper": "Belady, Nelson & Shedler 1969",
        "title": "Legacy",
        "scale": "smoke",
        "seed": 1,
        "version": "0.0-old",
        "rows": rows,
        "claims": claims,
        "figures": [],
        "wall_seconds": 0.4,
    }


ARTIFACTS = ROOT / "test-artifacts"


def _design_record(name: str, figure: str, score: dict) -> dict:
    """A record in the newer format (DESIGN.md): roles, verdicts, a fitted block, a score."""
    rows = [
        ("Q1 seconds", "Base", "fitted", 0.78, 0.80),
        ("Q1 seconds", "Prototype", "predicted", 0.36, 0.41),
        ("Q2 seconds", "Prototype", "predicted", 9.5, 9.9),
        ("Pages per second", "Prototype", "predicted", 120.0, 180.0),
        ("Users", "Prototype", "input", 310, 310),
        ("Swap sets per second", "Prototype", "ours", None, 14.2),
        ("Zero row", "Prototype", "predicted", 0, 0.0),
        ("Missing ours", "Prototype", "predicted", 4.0, None),
    ]
    return {
        "name": name,
        "paper": "Tetzlaff et al. 1987",
        "title": "Hand-made record in the newer format",
        "scale": "smoke",
        "seeds": [1, 2, 3],
        "version": "0.0-test",
        "fitted": {
            "preset": "vm370",
            "keys": ["workload.class.0.think.mean_s"],
            "target": "Table 2 base column",
            "provenance": {"workload.class.0.think.mean_s": "fitted to Q1 seconds, Base"},
        },
        "rows": [
            {
                "table": "Table 2",
                "row": r,
                "column": c,
                "role": role,
                "paper": p,
                "pagelab": q,
                "interval": None,
                "unit": "s",
                **({"why": "the paper's setting, fed in"} if role == "input" else {}),
            }
            for r, c, role, p, q in rows
        ],
        "claims": [
            {
                "id": "q1-halved",
                "text": "Q1 halved",
                "paper_effect": -0.54,
                "effect": -0.47,
                "interval": [-0.5, -0.44],
                "seeds": 3,
                "verdict": "holds",
                "evidence": "0.78 -> 0.41",
            },
            {
                "id": "pages-up",
                "text": "More pages",
                "paper_effect": 0.2,
                "band": [0.15, None],
                "effect": 0.05,
                "interval": [-0.01, 0.11],
                "seeds": 3,
                "method": "t",
                "verdict": "inconclusive",
                "evidence": "",
            },
            {
                "id": "swap-up",
                "text": "More swap sets",
                "paper_effect": 0.5,
                "effect": 0.25,
                "interval": [0.05, 0.45],
                "seeds": 3,
                "verdict": "holds",
                "evidence": "the interval reaches the band, the mean lies below it",
            },
        ],
        "score": score,
        "figures": [figure],
        "wall_seconds": 1.5,
    }


def _calibrated_preset(path: Path) -> None:
    """A preset as `pagelab calibrate` writes it: a fitted value's comment and `[provenance]`."""
    key = "workload.class.0.think.mean_s"
    tree = {
        "preset": {"name": "VM/370, think time fitted", "fidelity": "calibrated"},
        "workload": {"users": 310, "class": [{"name": "cms", "think": {"mean_s": 12.5}}]},
        "provenance": {
            "tool": "pagelab calibrate",
            "fitted": [key],
            "key": [{"key": key, "range": [5.0, 30.0], "value": 12.5}],
            "aimed_at": [{"metric": "q1_seconds", "paper": 0.78, "fitted": 0.8, "weight": 1.0}],
        },
    }
    path.write_text(tomlout.dumps(tree, {key: "fitted by pagelab calibrate to t.toml"}))


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("results")
    for name in SMOKE:
        reproduce.reproduce(name, scale="smoke", out=out)
    figure = json.loads((out / "belady-anomaly.json").read_text())["figures"][0]
    claims = {"holds": 2, "direction-only": 0, "fails": 0, "inconclusive": 1}
    honest = {"predicted": 4, "within_10": 2, "within_25": 3, "fitted": 1, "inputs": 1}
    honest["claims"] = claims
    (out / "hand-new.json").write_text(json.dumps(_design_record("hand-new", figure, honest)))
    (out / "hand-old.json").write_text(json.dumps(_legacy_record("hand-old")))
    _calibrated_preset(out / "vm370-fitted.toml")
    wrong = {**honest, "within_10": 3}
    (out / "hand-wrong-score.json").write_text(
        json.dumps(_design_record("hand-wrong-score", figure, wrong))
    )
    return out


@pytest.fixture(scope="module")
def site(results, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    build(results, out)
    return out


def _recount(results: Path) -> dict:
    """The overall scoreboard, recounted from the raw records by the rule of docs/report.md."""
    total = {"predicted": [0, 0, 0], "fitted": [0, 0, 0], "unknown": [0, 0, 0], "claims": {}}
    for path in results.glob("*.json"):
        record = json.loads(path.read_text())
        for row in record["rows"]:
            role, p, q = row.get("role", "unknown"), row["paper"], row["pagelab"]
            if role in ("input", "ours") or p is None or q is None:
                continue
            d = abs(q - p) / abs(p) if p else (0.0 if q == p else math.inf)
            total[role][0] += 1
            total[role][1] += d <= 0.10
            total[role][2] += d <= 0.25
        for c in record["claims"]:
            # Claims with a role are counted only with their sentence, as the paper's, and
            # read before their result (docs/readings.md); older records count every claim.
            if "role" in c and not claim_scored(c):
                continue
            v = c.get("verdict") or ("direction-only (legacy)" if c["holds"] else "fails (legacy)")
            total["claims"][v] = total["claims"].get(v, 0) + 1
    return total


def test_scoreboard_equals_the_records_recounted(results, site):
    board = json.loads((site / "scoreboard.json").read_text())
    expected = _recount(results)
    for role in ("predicted", "fitted", "unknown"):
        got = board["overall"][role]
        assert [got["n"], got["within_10"], got["within_25"]] == expected[role], role
    assert {k: v for k, v in board["overall"]["claims"].items() if v} == expected["claims"]
    # Per paper and per reproduction sum to the overall.
    for key in ("rows", "input", "ours"):
        assert sum(p[key] for p in board["papers"].values()) == board["overall"][key]
        assert sum(r[key] for r in board["reproductions"].values()) == board["overall"][key]
    assert set(board["reproductions"]) == {*SMOKE, "hand-new", "hand-wrong-score", "hand-old"}
    assert board["scales"] == ["smoke"]


def test_older_records_are_read_with_their_gaps_explicit(site):
    board = json.loads((site / "scoreboard.json").read_text())
    old = board["reproductions"]["hand-old"]
    assert old["predicted"]["n"] == 0 and old["unknown"]["n"] == 6
    assert old["claims"]["direction-only (legacy)"] == 3
    page = (site / "repro" / "hand-old.html").read_text()
    assert "direction-only (legacy)" in page and "role-unknown" in page
    # The live reproductions write the newer record: every row has its role.
    belady = board["reproductions"]["belady-anomaly"]
    assert belady["unknown"]["n"] == 0 and belady["predicted"]["n"] == 6


def test_a_record_score_is_recomputed_and_a_mismatch_flagged(site):
    board = json.loads((site / "scoreboard.json").read_text())
    assert board["reproductions"]["hand-new"]["score_mismatches"] == []
    wrong = board["reproductions"]["hand-wrong-score"]["score_mismatches"]
    assert wrong == ["within_10: record says 3, rows give 2"]
    assert "record says 3, rows give 2" in (site / "repro" / "hand-wrong-score.html").read_text()
    assert "hand-wrong-score" in (site / "index.html").read_text()


def test_a_reproduction_page_shows_command_fitted_values_and_verdicts(site):
    page = (site / "repro" / "hand-new.html").read_text()
    assert "pagelab reproduce hand-new --scale smoke --seed 1 --seeds 3 --out results" in page
    assert "fitted to Q1 seconds, Base" in page and "Table 2 base column" in page
    assert "v-inconclusive" in page and "[-0.5, -0.44]" in page and "[0.15, ∞]" in page
    assert "<li>the paper&#39;s setting, fed in</li>" in page and 'class="note">1<' in page
    assert 'href="../preset/vm370.html"' in page
    # Two claims hold; one only by its interval (mean 0.25 against the band [0.375, 0.625]).
    assert page.count("the interval reaches the band, the mean does not") == 1
    assert "(1 with the mean in the band)" in page


def test_holds_with_the_mean_in_the_band_is_counted_apart(site):
    board = json.loads((site / "scoreboard.json").read_text())
    assert board["reproductions"]["hand-new"]["holds_mean_in_band"] == 1
    assert board["reproductions"]["hand-old"]["holds_mean_in_band"] == 0
    assert board["overall"]["holds_mean_in_band"] == sum(
        r["holds_mean_in_band"] for r in board["reproductions"].values()
    )


def _chart_record(results: Path, rows: list[tuple]) -> records.Record:
    """A record of one table from (row, column, paper, pagelab, interval, unit) tuples."""
    raw = _design_record("charts", "f.png", {})
    raw["rows"] = [
        {
            "table": "T",
            "row": r,
            "column": c,
            "role": "predicted",
            "paper": p,
            "pagelab": q,
            "interval": i,
            "unit": u,
        }
        for r, c, p, q, i, u in rows
    ]
    return records.parse(results / "hand-new.json", raw)


def test_charts_take_their_series_from_the_table_never_from_rewritten_labels(results):
    # Rows that differ by a number inside the label stay apart: no "QN seconds" series.
    record = _chart_record(
        results,
        [
            ("Q1 seconds", "Base", 0.78, 0.8, [0.7, 0.9], "s"),
            ("Q2 seconds", "Base", 9.4, 9.0, None, "s"),
            ("Q1 seconds", "Prototype", 0.36, 0.41, [0.39, 0.43], "s"),
            ("Q2 seconds", "Prototype", 9.5, 9.9, None, "s"),
            ("Q1 seconds", "Runner-up", None, 0.5, None, "s"),
        ],
    )
    (chart,) = charts.tables(record)
    names = [t["name"] for t in chart["spec"]["data"]]
    # the columns are the more numerous: across the axis; a series per row label
    assert names == [
        "pagelab · Q1 seconds",
        "paper · Q1 seconds",
        "pagelab · Q2 seconds",
        "paper · Q2 seconds",
    ]
    q1 = chart["spec"]["data"][0]
    assert q1["x"] == ["Base", "Prototype", "Runner-up"] and q1["y"] == [0.8, 0.41, 0.5]
    assert q1["error_y"]["array"] == pytest.approx([0.1, 0.02, None])
    assert q1["error_y"]["arrayminus"] == pytest.approx([0.1, 0.02, None])
    assert chart["spec"]["layout"]["xaxis"]["type"] == "category"
    # The legacy record's sweep written into its row labels is drawn as the labels read.
    legacy = records.parse(results / "hand-old.json", _legacy_record("x"))
    (old,) = charts.tables(legacy)
    assert [t["name"] for t in old["spec"]["data"]] == ["pagelab · faults", "paper · faults"]
    assert old["spec"]["data"][0]["x"][:2] == ["fifo 3 frames", "fifo 4 frames"]


def test_a_table_whose_labels_are_numbers_is_drawn_over_them_and_units_stay_apart(results):
    record = _chart_record(
        results,
        [
            ("3 frames", "fifo", 9, 9, None, "faults"),
            ("4 frames", "fifo", 10, 10, None, "faults"),
            ("3 frames", "lru", None, 10, None, "faults"),
            ("4 frames", "lru", None, 8, None, "faults"),
            ("3 frames", "fifo", None, 0.75, None, "fault rate"),
            ("4 frames", "fifo", None, 0.8, None, "fault rate"),
            ("set pages", "fit", None, 20, None, ""),
            ("think time", "fit", None, 15, None, ""),
        ],
    )
    faults, rate = charts.tables(record)  # no chart of rows without a unit
    assert [t["name"] for t in faults["spec"]["data"]] == [
        "pagelab · fifo",
        "paper · fifo",
        "pagelab · lru",
    ]
    assert faults["spec"]["data"][0]["x"] == [3.0, 4.0]
    assert faults["spec"]["layout"]["xaxis"] == {"type": "linear", "title": {"text": "frames"}}
    assert {t["meta"]["unit"] for t in rate["spec"]["data"]} == {"fault rate"}
    # One row over many columns: the columns go across, never a stack at one x.
    (limits,) = charts.tables(
        _chart_record(
            results,
            [("throughput", f"limit {n}", None, n / 10, None, "per s") for n in (5, 10, 20)],
        )
    )
    assert limits["spec"]["data"][0]["x"] == ["limit 5", "limit 10", "limit 20"]


def test_every_chart_has_a_static_png_beside_it(site):
    pages = [
        site / "index.html",
        *sorted((site / "repro").glob("*.html")),
        *sorted((site / "preset").glob("*.html")),
    ]
    charts = pngs = 0
    for page in pages:
        html = page.read_text()
        charts += html.count('class="plot"')
        for src in re.findall(r'class="fallback-png" src="([^"]+)"', html):
            png = (page.parent / src).resolve()
            assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", (page.name, src)
            pngs += 1
    assert charts > 0 and pngs == charts


def test_preset_values_carry_unit_and_source():
    params = {p.key: p for p in presets.params(ROOT / "presets" / "vm370.toml")[1]}
    assert params["memory.frames"].unit == "frames"
    assert params["memory.page_bytes"].unit == "bytes"
    assert params["memory.page_bytes"].source == "TETZ: four-kilobyte frames"
    assert params["memory.page_bytes"].basis == "sourced"
    assert params["cpu.reference_ns"].basis == "inferred"
    assert params["cpu.dispatch_slice_ms"].unit == "ms"
    assert params["cpu.dispatch_slice_ms"].basis == "assumed"
    think = params["workload.class.0.think.mean_s"]
    assert think.unit == "s" and "15 seconds" in think.source
    assert params["device.2.model"].value == "2305-2"
    assert params["device.2.name"].basis == "label"


def test_a_section_comment_a_parent_and_a_fit_origin_give_a_value_its_source():
    # the comment above a [[workload.class]] header speaks for the keys of that class
    work = {p.key: p for p in presets.params(ROOT / "presets" / "cp67-workload1.toml")[1]}
    edit = work["workload.class.0.commands.0.cpu_ms"]
    assert "File editing commands (BARD §11)" in edit.source and edit.basis == "assumed"
    # vmsp sets 35 keys; the rest it takes from vm370, named with their sources
    (parent, values), *_ = presets.inherited(ROOT / "presets" / "vmsp.toml")
    own = {p.key for p in presets.params(ROOT / "presets" / "vmsp.toml")[1]}
    taken = {p.key: p for p in values}
    assert parent == "vm370" and taken and not own & set(taken)
    assert taken["memory.page_bytes"].source == "TETZ: four-kilobyte frames"
    assert not any(k.startswith("workload.class.") for k in taken)  # vmsp replaces the array
    # a fitted preset's copied values carry the comment of the preset it was fitted from
    fit = {p.key: p for p in presets.params(ROOT / "presets" / "cp67-fitted.toml")[1]}
    assert fit["workload.users"].source.startswith("as in cp67-workload3: BARD")


def test_a_system_preset_page_shows_the_twin_beside_the_simulator(site):
    from pagelab.report import twins

    page = (site / "preset" / "cp67.html").read_text()
    assert "The analytic twin beside the simulator" in page
    specs = [
        json.loads(html.unescape(s))
        for s in re.findall(r'id="twin-chart-\d-spec">(.*?)</script>', page, re.S)
    ]
    assert [s["layout"]["title"]["text"] for s in specs] == ["throughput [1/s]", "response [s]"]
    published = twins.load(ROOT / "presets")["cp67"]
    x = specs[0]["data"]
    model, sim = x[0], x[1]
    assert model["name"] == "model" and len(model["x"]) == len(published["model"]) >= 20
    assert sim["x"] == [r["users"] for r in published["sim"]]
    assert sim["error_y"]["array"] == [r["throughput_sd"] for r in published["sim"]]
    knees = {t["name"] for t in x[2:]}
    assert knees == {
        f"model knee {published['knee_model']:g}",
        f"simulator knee {published['knee_sim']:g}",
    }
    # A fit is not a system: its page has no twin.
    assert "analytic twin" not in (site / "preset" / "cp67-fitted.html").read_text()


def test_every_system_preset_has_its_twin_published():
    from pagelab import system
    from pagelab.report import twins

    published = twins.load(ROOT / "presets")
    systems = {p["name"] for p in system.presets() if p.get("group") == "system"}
    assert systems <= set(published), systems - set(published)
    for name in systems:
        entry = published[name]
        assert entry["sim"] and entry["model"], name
        assert entry["knee_model"] in [r["users"] for r in entry["model"]], name


def test_a_calibrated_preset_beside_the_records_gets_a_page(site):
    page = (site / "preset" / "vm370-fitted.html").read_text()
    assert "Provenance of the fitted values" in page and "q1_seconds" in page
    assert "basis-fitted" in page and "[5.0, 30.0]" not in page and "5, 30" in page


def test_malformed_record_gets_one_line_naming_the_file(tmp_path):
    (tmp_path / "good.json").write_text(json.dumps(_design_record("good", "x.png", {})))
    bad = tmp_path / "broken.json"
    bad.write_text('{"name": "broken", "rows": [')
    assert_one_line_error(run_cli("report", str(tmp_path), "--out", str(tmp_path / "s")), str(bad))
    bad.write_text(json.dumps({**_design_record("broken", "x.png", {}), "claims": [{"text": "t"}]}))
    with pytest.raises(PagelabError, match=r"broken\.json: claims\[0\]: expected a `verdict`"):
        build(tmp_path, tmp_path / "s")
    assert not any(p.name.startswith(".s") for p in tmp_path.iterdir()), "temp dir left behind"


def test_report_command_prints_the_index_and_warns_of_a_wrong_score(results, tmp_path):
    proc = run_cli("report", str(results), "--out", str(tmp_path / "site"), check=True)
    assert proc.stdout.strip().splitlines()[-1] == str(tmp_path / "site" / "index.html")
    assert "hand-wrong-score: its own score disagrees: within_10" in proc.stderr


def test_rebuild_replaces_a_site_and_spares_other_folders(results, site, tmp_path):
    out = tmp_path / "again"
    shutil.copytree(site, out)
    (out / "stale.html").write_text("old")
    build(results, out)
    assert not (out / "stale.html").exists() and (out / "index.html").is_file()
    other = tmp_path / "notes"
    other.mkdir()
    (other / "mine.txt").write_text("keep")
    with pytest.raises(PagelabError, match="not a pagelab site"):
        build(results, other)
    assert (other / "mine.txt").read_text() == "keep"


def _open(page, url: str, errors: list[str]) -> None:
    page.goto(url)
    page.wait_for_load_state("load")
    page.wait_for_function(
        "Array.from(document.querySelectorAll('.plot')).every(d => d.dataset.drawn)"
    )
    assert not errors, (url, errors)


def _column(page, table: str, index: int) -> list[str]:
    return page.locator(f"{table} tbody tr").evaluate_all(
        f"rows => rows.map(r => r.cells[{index}].dataset.sort"
        f" ?? r.cells[{index}].textContent.trim())"
    )


def test_site_in_a_browser(site, results):
    from playwright.sync_api import sync_playwright

    chromium = _chromium()
    errors: list[str] = []
    outside: list[str] = []

    def route(r):
        if r.request.url.startswith("file://"):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.route("**/*", route)
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("requestfailed", lambda r: errors.append(f"failed: {r.url}"))
        _open(page, (site / "index.html").as_uri(), errors)
        page.screenshot(path=str(ARTIFACTS / "report-index.png"), full_page=True)
        links = page.locator("#reproductions tbody a").evaluate_all("as => as.map(a => a.href)")
        names = {Path(u).stem for u in links}
        assert names == {p.stem for p in results.glob("*.json")}

        # Sorting: by name, then the other way; a numeric column sorts as numbers.
        page.locator("#reproductions thead th").nth(0).click()
        first = page.locator("#reproductions tbody tr td:first-child a").all_inner_texts()
        assert first == sorted(first)
        page.locator("#reproductions thead th").nth(0).click()
        assert page.locator("#reproductions tbody tr td:first-child a").all_inner_texts() == sorted(
            first, reverse=True
        )
        for url in links:
            _open(page, url, errors)
            record = json.loads((results / f"{Path(url).stem}.json").read_text())
            images = page.evaluate("Array.from(document.images).map(i => i.naturalWidth)")
            assert len(images) == len(record.get("figures", [])), url
            assert all(w > 100 for w in images), (url, images)
            assert page.locator(".plot[data-drawn]").count() >= 1
        _open(page, (site / "repro" / "hand-new.html").as_uri(), errors)
        page.locator("#table-1 thead th").nth(3).click()
        papers = [float(v) for v in _column(page, "#table-1", 3) if v != ""]
        assert papers == sorted(papers) and len(papers) == 7
        page.screenshot(path=str(ARTIFACTS / "report-reproduction.png"), full_page=True)
        _open(page, (site / "preset" / "vm370.html").as_uri(), errors)
        assert page.locator("#params tbody tr").count() > 40
        assert outside == [], f"the site asked the network for {outside}"
        # The interception does see a request that leaves the disk (a probe, not the site's).
        probe = browser.new_page()
        probe.route("**/*", route)
        probe.goto((site / "preset" / "vm370.html").as_uri())
        probe.evaluate("fetch('https://example.invalid/probe.js').catch(() => null)")
        probe.wait_for_timeout(100)
        assert outside == ["https://example.invalid/probe.js"]
        browser.close()
    assert errors == []


def test_the_distance_chart_takes_a_row_with_the_papers_range_and_no_number(results):
    raw = _design_record("ranges", "f.png", {})
    raw["rows"] = [
        {
            "table": "T",
            "row": "above",
            "column": "c",
            "role": "predicted",
            "paper": None,
            "paper_range": [1.0, 2.0],
            "pagelab": 3.0,
            "interval": None,
            "unit": "s",
        },
        {
            "table": "T",
            "row": "below",
            "column": "c",
            "role": "predicted",
            "paper": None,
            "paper_range": [1.0, 2.0],
            "pagelab": 0.5,
            "interval": None,
            "unit": "s",
        },
    ]
    record = records.parse(results / "hand-new.json", raw)
    spec = charts.distances([("T", r) for r in record.rows], "t")
    xs = [x for trace in spec["data"] for x in trace["x"]]
    assert len(xs) == 2 and xs[0] > 0 > xs[1]
