"""`make demo`: capture a real program's references, draw its curves, write a report.

The program is coreutils `sort` on a deterministic file of words: a real program, its own
instructions and data, traced by valgrind's lackey.
"""

from __future__ import annotations

import html
import random
import shutil
from pathlib import Path
from typing import Any

from rich.console import Console

from . import _atomic, lab, plots, reproduce, traces
from .errors import PagelabError

POLICIES = ["fifo", "lru", "clock", "min", "ar", "arc", "random"]
WORDS = 4_000


def _input_file(path: Path, words: int) -> None:
    rng = random.Random(1968)
    letters = "abcdefghijklmnopqrstuvwxyz"
    lines = ("".join(rng.choice(letters) for _ in range(rng.randint(4, 12))) for _ in range(words))
    _atomic.write_text(path, "\n".join(lines) + "\n")


def run(out: Path, count: int = WORDS) -> dict[str, Any]:
    """Runs the demo into `out`; `count` words make the sorted file (the tests use a small one)."""
    console = Console(stderr=True)
    out.mkdir(parents=True, exist_ok=True)
    sort = shutil.which("sort")
    if sort is None:
        raise PagelabError("demo: the `sort` program is not on PATH")
    words = out / "words.txt"
    _input_file(words, count)
    trace = out / "sort.pltrace"
    console.print(f"[bold]1.[/bold] capturing `sort {words.name}` under valgrind's lackey")
    info = traces.capture(trace, sort, ["-o", str(out / "sorted.txt"), str(words)])
    pages = info["distinct_pages"]
    console.print(f"   {info['references']:,} references to {pages:,} pages")

    console.print("[bold]2.[/bold] faults against memory size under " + ", ".join(POLICIES))
    step = max(1, pages // 40)
    sizes = sorted(set(range(1, pages + 1, step)) | {pages})
    rows = lab.curve(trace, POLICIES, sizes)
    _atomic.write_table(out / "curves.csv", rows, "csv")
    plots.fault_curves(
        rows,
        out / "curves.png",
        title="sort: pulls and pushes against frames",
        page_size=info.get("page_size"),
    )
    lru = lab.lru_curve(trace)
    _atomic.write_table(out / "lru-every-size.csv", lru["rows"], "csv")
    taus = sorted({int(10 ** (k / 4)) for k in range(0, 29)})
    ws = lab.ws_curve(trace, taus)
    _atomic.write_table(out / "ws-curve.csv", ws["rows"], "csv")

    console.print("[bold]3.[/bold] reproduction: Belady's FIFO anomaly")
    record = reproduce.reproduce("belady-anomaly", out=out)

    report = _report(out, info, rows, record)
    console.print(f"\nreport: [bold]{report}[/bold]")
    from . import report as site

    site.build(out, out / "site")
    index = out / "site" / "index.html"
    console.print(f"reproductions beside their papers: [bold]{index}[/bold]")
    return {"trace": str(trace), "report": str(report), "site": str(index)}


def _report(
    out: Path, info: dict[str, Any], rows: list[dict[str, Any]], record: dict[str, Any]
) -> Path:
    def table(rows: list[dict[str, Any]], keys: list[str]) -> str:
        head = "".join(f"<th>{html.escape(k)}</th>" for k in keys)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(_fmt(r.get(k)))}</td>" for k in keys) + "</tr>"
            for r in rows
        )
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    by_size: dict[int, dict[str, Any]] = {}
    for r in rows:
        by_size.setdefault(r["frames"], {"frames": r["frames"]})[r["policy"]] = r["faults"]
    info_rows = [{"property": k, "value": v} for k, v in info.items() if not isinstance(v, dict)]
    claims = [
        {"claim": c["text"], "verdict": c["verdict"], "evidence": c["evidence"]}
        for c in record["claims"]
    ]
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pagelab demo</title>
<style>body{{font-family:sans-serif;max-width:70em;margin:2em auto}}
table{{border-collapse:collapse;margin:1em 0}}td,th{{border:1px solid #ccc;padding:2px 8px;
text-align:right}}img{{max-width:100%}}</style></head><body>
<h1>pagelab demo: <code>sort</code> under seven replacement policies</h1>
<h2>The trace</h2>{table(info_rows, ["property", "value"])}
<h2>Pulls and pushes against frames</h2><img src="curves.png" alt="fault curves">
<h2>Faults by policy and size</h2>{table(list(by_size.values()), ["frames", *POLICIES])}
<h2>Reproduction: {html.escape(record["title"])}</h2>
<img src="{html.escape(record["figures"][0]) if record["figures"] else ""}" alt="Belady anomaly">
{table(claims, ["claim", "verdict", "evidence"])}
<p>Tables: curves.csv, lru-every-size.csv, ws-curve.csv; record: belady-anomaly.json.</p>
</body></html>
"""
    target = out / "report.html"
    _atomic.write_text(target, page)
    return target


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    return str(v)
