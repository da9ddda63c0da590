"""`pagelab list`: what the lab has."""

from __future__ import annotations

import click

from .. import lab
from .base import cli


@cli.group("list")
def list_() -> None:
    """List policies, presets, programs and reproductions."""


@list_.command("policies")
def list_policies() -> None:
    """Every replacement policy, with its parameters and citation."""
    for p in lab.policies():
        aliases = f" ({', '.join(p['aliases'])})" if p.get("aliases") else ""
        click.echo(f"{p['name']}{aliases}: {p['summary']}")
        if p.get("citation"):
            click.echo(f"    {p['citation']}")
        for param in p.get("parameters", []):
            click.echo(f"    {param}")


@list_.command("presets")
@click.option("--paths", is_flag=True, help="Also print each preset's file.")
def list_presets(paths: bool) -> None:
    """The presets: the systems, the fits the reproductions run on, the fits kept beside them."""
    from .. import system

    groups = {group: [] for group in system.PRESET_GROUPS}
    for p in system.presets():
        groups[p["group"]].append(p)
    for group, members in groups.items():
        if not members:
            continue
        click.echo(f"{system.PRESET_GROUPS[group]}:")
        width = max(len(p["name"]) for p in members)
        for p in members:
            where = f"  [{p['file']}]" if paths else ""
            click.echo(f"  {p['name']:<{width}}  {p['title']}{where}")


@list_.command("programs")
def list_programs() -> None:
    """The M44/44X study's programs, runnable as instrumented kernels."""
    from .. import programs

    for p in programs.available():
        click.echo(f"{p['name']} ({p['label']}): {p['description']}")


@list_.command("reproductions")
def list_reproductions() -> None:
    """The paper experiments pagelab can rerun."""
    from .. import reproduce

    for r in reproduce.available():
        click.echo(f"{r['name']}: {r['title']} ({r['paper']})")


@list_.command("metrics")
@click.option(
    "--system",
    "kind",
    type=click.Choice(["vm", "unix", "m44"]),
    default=None,
    help="Only the metrics this kind of system reports.",
)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def list_metrics(kind: str | None, as_json: bool) -> None:
    """Every metric a run reports, with its unit and the systems that produce it (read from
    the engines: every preset runs briefly)."""
    import json

    from .. import metrics

    rows = metrics.catalogue(on_preset=lambda name: click.echo(f"reading {name}", err=True))
    if kind is not None:
        rows = [r for r in rows if kind in r["systems"]]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    for r in rows:
        unit = f" [{r['unit']}]" if r["unit"] else ""
        click.echo(f"{r['name']}{unit} ({', '.join(r['systems'])}): {r['description']}")
