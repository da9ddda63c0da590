"""Runs the reproductions at full scale and publishes their records in docs/published/.

    python scripts/publish_records.py --run [--only NAME ...] [--workers 1]
    python scripts/publish_records.py            # publish what results/full holds

Every run lands in the result store of `--results` (results/full/store), so a cut run resumes
where it stopped: a rerun computes only the simulations the store lacks. Each record's wall
time is measured here, summed over the attempts that computed runs since the last attempt
that found none in the store (a cold start), and published as `compute` beside the record.
`make publish` runs all of it.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Cheapest first, so that a cut run leaves the most records done.
ORDER = (
    "belady-anomaly",
    "linux-validation",
    "unix-balance",
    "unix-swap-interval",
    "unix-login-control",
    "young-accelerator",
    "young-extended",
    "young-reserved",
    "young-pagemon",
    "m44-single",
    "psi-roundrobin",
    "thrashing-knee",
    "psi-table4",
    "psi-table3",
    "psi-table2",
    "hpo-round-turkey",
    "hpo-figure7",
    "hpo-negative",
    "hpo-lessons",
    "hpo-table3",
    "unix-regression",
    "m44-multi",
    "hpo-table2",
)


def _walls(results: Path) -> dict:
    path = results / "walls.json"
    return json.loads(path.read_text()) if path.exists() else {}


def run(names: list[str], results: Path, workers: int) -> None:
    """Each reproduction at full scale, one after another, its wall time kept in walls.json."""
    import pagelab.reproduce as rep

    results.mkdir(parents=True, exist_ok=True)
    for name in names:
        started = time.perf_counter()
        record = rep.reproduce(name, scale="full", out=results, workers=workers)
        wall = time.perf_counter() - started
        walls = _walls(results)
        made, stored = record["runs"]["computed"], record["runs"]["from_store"]
        entry = walls.get(name, {"seconds": 0.0, "runs_computed": 0})
        if not stored:
            entry = {"seconds": 0.0, "runs_computed": 0}  # a cold start (or no store at all)
        if made or not stored:
            entry["seconds"] = round(entry["seconds"] + wall, 1)
            entry["runs_computed"] += made
        walls[name] = entry
        (results / "walls.json").write_text(json.dumps(walls, indent=1) + "\n")
        print(f"{name}: {rep.score_line(record['score'])} [{wall:.0f} s]", flush=True)


def publish(results: Path, to: Path) -> list[dict]:
    """Copies every full-scale record of `results` to `to` with its measured compute time,
    and writes the scoreboard beside them: over every record published, so that a record not
    rerun (`--only`) keeps its place with the copy already in `to`."""
    import pagelab.reproduce as rep

    to.mkdir(parents=True, exist_ok=True)
    walls = _walls(results)
    records = []
    for name in (r["name"] for r in rep.available()):
        src = results / f"{name}.json"
        if not src.exists():
            kept = to / f"{name}.json"
            if kept.exists():
                records.append(json.loads(kept.read_text()))
            continue
        record = json.loads(src.read_text())
        if record.get("scale") != "full":
            continue
        record["figures"] = []  # the PNGs stay in the results directory
        if name in walls:
            record["compute"] = {**walls[name], "machine": "2 cores shared with other work"}
        (to / f"{name}.json").write_text(json.dumps(record, indent=1) + "\n")
        records.append(record)
    (to / "SCOREBOARD.md").write_text(scoreboard(records))
    readme = ROOT / "README.md"
    if to.resolve() == (ROOT / "docs" / "published").resolve() and readme.exists():
        readme.write_text(with_summary(readme.read_text(), records))
    return records


def summary(records: list[dict]) -> str:
    """The total score of the published records in two sentences, for the README."""
    import pagelab.reproduce as rep

    t = rep.total([r["score"] for r in records])
    c, b = t["claims"], t["baseline"]
    return (
        f"{len(records)} of the {len(rep.available())} records are published: "
        f"{t['within_10']} of {t['predicted']} predicted numbers within 10 % and "
        f"{t['within_25']} within 25 % (a trivial baseline, the paper's base column or its other "
        f"numbers: {b['within_10']} and {b['within_25']}); of the claims with the paper's "
        f"sentence {c['holds']} hold, {c['direction-only']} go the paper's way outside its band, "
        f"{c['fails']} fail and {c['inconclusive']} are inconclusive ({t['claims_unscored']} "
        "more are shown, not scored)."
    )


def with_summary(text: str, records: list[dict]) -> str:
    """`text` with the lines between the scoreboard markers replaced by `summary`."""
    start = text.index(MARK) + len(MARK)
    end = text.index(END, start)
    return text[:start] + "\n" + summary(records) + "\n" + text[end:]


MARK = "<!-- scoreboard: written by scripts/publish_records.py -->"
END = "<!-- /scoreboard -->"


def scoreboard(records: list[dict]) -> str:
    """The full-scale scoreboard as Markdown: each record's score beside its trivial
    baseline's, and the total."""
    import pagelab.reproduce as rep

    lines = [
        "# Full-scale scoreboard",
        "",
        "Written by `make publish` (scripts/publish_records.py) from the records beside it.",
        "Rows: predicted rows within 10 % / 25 % of the paper (bounds and ranges as such);",
        "baseline: the same rows predicted by the paper's base column or its other numbers;",
        "claims: those with the paper's sentence, by verdict (docs/readings.md).",
        "",
        "| record | seeds | predicted | within 10 % | within 25 % | baseline 10 % / 25 % "
        "| margin 10 % / 25 % | claims (holds / dir. / fails / inc.) | not scored | compute [s] |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in records:
        s = r["score"]
        c = s["claims"]
        b = s.get("baseline", {"within_10": 0, "within_25": 0})
        wall = r.get("compute", {}).get("seconds", "")
        lines.append(
            f"| {r['name']} | {len(r['seeds'])} | {s['predicted']} | {s['within_10']} "
            f"| {s['within_25']} | {b['within_10']} / {b['within_25']} "
            f"| {s['within_10'] - b['within_10']:+d} / {s['within_25'] - b['within_25']:+d} "
            f"| {c['holds']} / {c['direction-only']} / {c['fails']} / {c['inconclusive']} "
            f"| {s.get('claims_unscored', 0)} | {wall} |"
        )
    total = rep.total([r["score"] for r in records])
    lines += ["", f"All {len(records)}: {rep.score_line(total)}", ""]
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--run", action="store_true", help="run the reproductions first")
    p.add_argument("--only", nargs="*", default=None, help="these reproductions only")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--results", type=Path, default=ROOT / "results" / "full")
    p.add_argument("--to", type=Path, default=ROOT / "docs" / "published")
    a = p.parse_args()
    if a.run:
        run(list(a.only or ORDER), a.results, a.workers)
    records = publish(a.results, a.to)
    print(f"{len(records)} records in {a.to}")


if __name__ == "__main__":
    main()
