"""The offline report site: every reproduction beside its paper, a scoreboard, the presets.

`pagelab report RESULTS_DIR --out SITE_DIR` reads the reproduction records in RESULTS_DIR
(:mod:`.records`), counts how close each comes to its paper (:mod:`.score`), and writes a
static site that needs no network (:mod:`.site`): Jinja2 templates, a small table sorter and
plotly.js, all bundled. See docs/report.md.
"""

from __future__ import annotations

from .site import build, scoreboard

__all__ = ["build", "scoreboard"]
