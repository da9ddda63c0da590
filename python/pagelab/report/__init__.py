"""The offline report site: every reproduction beside its paper, a scoreboard, the presets.

`pagelab report RESULTS_DIR --out SITE_DIR` reads the reproduction records in RESULTS_DIR
(:mod:`.records`), counts how close each comes to its paper (:mod:`.score`), and writes a
static site that needs no network (:mod:`.site`): Jinja2 templates, a small table sorter and
plotly.js, all bundled. See docs/report.md.
"""

from __future__ import annotations

from pathlib import Path

from .site import build, scoreboard, summary, warnings

__all__ = ["build", "command", "scoreboard", "summary", "warnings"]


def command(results: str, out: str) -> None:
    """`pagelab report RESULTS --out SITE`: builds the site, warns where a record's own score
    disagrees with its rows, prints the counts and the index's path."""
    import click

    board = build(results, out)
    for line in warnings(board):
        click.echo(f"pagelab: warning: {line}", err=True)
    click.echo(summary(board))
    click.echo(str(Path(out) / "index.html"))
