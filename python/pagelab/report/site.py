"""Writes the site: an index with the scoreboard, a page per reproduction and per preset.

```
SITE/index.html              scoreboard per paper and overall, every reproduction and preset
SITE/scoreboard.json         the same numbers, for CI and other tools
SITE/repro/NAME.html         paper beside pagelab, claims, charts, figures, command, fitted values
SITE/preset/NAME.html        parameters with units and sources, the preset's notes; for a system
                             preset, the analytic twin beside the simulator (twins.py)
SITE/figures/NAME/*.png      the figures, copied from the results directory
SITE/charts/PAGE/*.png       each interactive chart as a static PNG, shown without JavaScript
SITE/assets/                 stylesheet, table sorter, chart glue, plotly.js (no network needed)
SITE/.pagelab-site           the marker: this folder is a site pagelab wrote
```
The site is built in a temporary directory beside SITE and renamed onto it when complete, so a
failed build leaves the previous site (or nothing). An existing SITE is replaced only when it
is empty or carries the marker file pagelab writes into every site it builds: a folder is never
taken for a site by the names of the files in it.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import PagelabError
from . import pages, score, static, twins
from .records import ALL_VERDICTS, Record, load

ASSETS = Path(__file__).resolve().parent / "assets"
#: The file that marks a folder as a site pagelab built (and may therefore replace).
MARKER = ".pagelab-site"


def scoreboard(records: list[Record]) -> dict[str, Any]:
    """Counts per reproduction, per paper and overall, recomputed from the rows and claims."""
    by_name = {}
    for r in records:
        counts = score.of_record(r)
        by_name[r.name] = {
            "paper": r.paper,
            "scale": r.scale,
            "version": r.version,
            "date": r.date,
            "seeds": r.seeds,
            **counts,
            "score_mismatches": score.mismatches(r, counts),
        }
    papers: dict[str, Any] = {}
    for paper in dict.fromkeys(r.paper for r in records):
        mine = [by_name[r.name] for r in records if r.paper == paper]
        papers[paper] = {
            "reproductions": [r.name for r in records if r.paper == paper],
            **score.total(mine),
        }
    return {
        "generated": datetime.now(tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "within": {"close": score.WITHIN[0], "near": score.WITHIN[1]},
        "verdicts": list(ALL_VERDICTS),
        "scales": sorted({r.scale for r in records}),
        "versions": sorted({r.version for r in records}),
        "overall": score.total(by_name.values()),
        "papers": papers,
        "reproductions": by_name,
    }


def summary(board: dict[str, Any]) -> str:
    """The scoreboard in two lines, for the command line."""
    total = board["overall"]
    within = "; ".join(
        f"{role} {total[role]['within_25']} of {total[role]['n']}"
        for role in score.SCORED_ROLES
        if total[role]["n"]
    )
    claims = ", ".join(f"{n} {v}" for v, n in total["claims"].items() if n)
    return (
        f"{len(board['reproductions'])} reproductions; within 25 %: {within or 'no rows'}\n"
        f"claims: {claims or 'none'}"
    )


def warnings(board: dict[str, Any]) -> list[str]:
    """One line for every field where a record's own score disagrees with its rows."""
    return [
        f"{name}: its own score disagrees: {line}"
        for name, counts in board["reproductions"].items()
        for line in counts["score_mismatches"]
    ]


def _preset_files(chosen: list[Path] | None, results: Path) -> list[Path]:
    """The shipped presets (or those chosen), and the presets written beside the records (a
    calibrated preset from `pagelab calibrate`) under names of their own."""
    if chosen is None:
        from .. import system

        chosen = [Path(p["file"]) for p in system.presets()]
    names = {p.stem for p in chosen}
    return [*chosen, *(p for p in sorted(results.glob("*.toml")) if p.stem not in names)]


def _presets_dir(chosen: list[Path] | None) -> Path:
    """The folder of the shipped presets (or of the first preset chosen)."""
    if chosen:
        return chosen[0].parent
    from .. import system

    return Path(system.presets()[0]["file"]).parent


def _write_assets(site: Path) -> None:
    import plotly.offline

    assets = site / "assets"
    shutil.copytree(ASSETS, assets)
    (assets / "plotly.min.js").write_text(plotly.offline.get_plotlyjs(), encoding="utf-8")


def _copy_figures(record: Record, results: Path, site: Path) -> list[dict[str, str]]:
    """Copies the record's figures; a figure named but absent is reported on the page."""
    shown = []
    for name in record.figures:
        source = results / name
        target = site / "figures" / record.name / name
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            shown.append({"name": name, "src": f"../figures/{record.name}/{name}"})
        else:
            shown.append({"name": name, "src": "", "missing": str(source)})
    return shown


def build(
    results: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    preset_files: list[Path] | None = None,
) -> dict[str, Any]:
    """Builds the site for the records in `results` into `out`; returns the scoreboard."""
    results, out = Path(results), Path(out)
    records = load(results)
    board = scoreboard(records)
    preset_pages = [pages.preset_context(p) for p in _preset_files(preset_files, results)]
    _check_target(out, results)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        _write_assets(tmp)
        env = pages.environment()
        uses = pages.presets_used(records, [p["name"] for p in preset_pages])
        for record in records:
            figures = _copy_figures(record, results, tmp)
            page = pages.reproduction_context(record, board["reproductions"][record.name])
            page.update(figures=figures, presets=uses.get(record.name, []))
            _draw_fallbacks(page, tmp, f"charts/{record.name}", "..")
            pages.render(env, "reproduction.html.j2", tmp, f"repro/{record.name}.html", page)
        compared = twins.load(_presets_dir(preset_files))
        for preset in preset_pages:
            users = [n for n, names in uses.items() if preset["name"] in names]
            page = {**preset, "used_by": users, "twin": None, "table_charts": []}
            if preset["name"] in compared:
                page["twin"] = compared[preset["name"]]
                page["table_charts"] = twins.charts(page["twin"])
                _draw_fallbacks(page, tmp, f"charts/preset-{preset['name']}", "..")
            pages.render(env, "preset.html.j2", tmp, f"preset/{preset['name']}.html", page)
        index = pages.index_context(records, board, preset_pages)
        _draw_fallbacks(index, tmp, "charts/index", ".")
        pages.render(env, "index.html.j2", tmp, "index.html", index)
        (tmp / "scoreboard.json").write_text(json.dumps(board, indent=2) + "\n")
        (tmp / MARKER).write_text("a site written by pagelab report; the folder may be replaced\n")
        _swap(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return board


def _draw_fallbacks(page: dict[str, Any], site: Path, folder: str, root: str) -> None:
    """A static PNG of each of the page's charts, shown where plotly.js does not run."""
    (site / folder).mkdir(parents=True, exist_ok=True)
    if page.get("distances"):
        static.draw(page["distances"], site / folder / "distances.png")
        page["distances_png"] = f"{root}/{folder}/distances.png"
    for i, chart in enumerate(page.get("table_charts", []), start=1):
        static.draw(chart["spec"], site / folder / f"table-chart-{i}.png")
        chart["png"] = f"{root}/{folder}/table-chart-{i}.png"


def _is_site(path: Path) -> bool:
    """A site pagelab wrote: it carries the marker file (a regular file, not a link)."""
    marker = path / MARKER
    return marker.is_file() and not marker.is_symlink()


def _check_target(out: Path, results: Path | None = None) -> None:
    """Refuses to replace anything but a new or empty directory or an earlier site; a symlink
    is refused (replacing it would move the link, not the folder it names), and so is an `out`
    that holds the records the site is built from."""
    if out.is_symlink():
        raise PagelabError(f"--out {out}: is a symlink; give the folder itself")
    if results is not None and out.exists():
        inside = Path(os.path.realpath(results))
        if inside == out.resolve() or out.resolve() in inside.parents:
            raise PagelabError(f"--out {out}: holds the records ({results}); give another folder")
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not _is_site(out))):
        raise PagelabError(
            f"--out {out}: exists and is not a pagelab site (it has no {MARKER} marker); "
            "expected a new or empty directory"
        )


def _swap(tmp: Path, out: Path) -> None:
    """Renames the finished site onto `out`, moving an earlier site aside first."""
    os.chmod(tmp, 0o755)
    if not out.exists():
        os.replace(tmp, out)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
    os.replace(out, old / "site")
    os.replace(tmp, out)
    shutil.rmtree(old, ignore_errors=True)
