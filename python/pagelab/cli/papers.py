"""The papers: `reproduce`, `report` and `demo`."""

from __future__ import annotations

from pathlib import Path

import click

from .. import extras
from ..errors import PagelabError
from .base import cli


@cli.command()
@click.argument("name", required=False)
@click.option(
    "--list", "list_all", is_flag=True, help="List them, with each one's last full score."
)
@click.option("--all", "run_all", is_flag=True, help="Run every reproduction.")
@click.option("--scale", type=click.Choice(["smoke", "full"]), default="smoke", show_default=True)
@click.option("--seed", default=1, show_default=True, help="First seed of every setting.")
@click.option(
    "--seeds",
    type=int,
    default=None,
    help="Seeds per setting [smoke 3, full 5 or the reproduction's own].",
)
@click.option("--out", type=click.Path(file_okay=False), default="results", show_default=True)
@click.option("--workers", type=int, default=None, help="Worker processes [default: one per core].")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT", help="An existing scheduler.")
def reproduce(
    name: str | None,
    list_all: bool,
    run_all: bool,
    scale: str,
    seed: int,
    seeds: int | None,
    out: str,
    workers: int | None,
    scheduler: str | None,
) -> None:
    """Rerun a paper experiment; writes OUT/NAME.json, its figures, and its runs in OUT/store."""
    from .. import reproduce as rep
    from ..sweep.engine import runner

    if list_all or not (name or run_all):
        scores = rep.last_scores(out)
        for r in rep.available():
            s = scores.get(r["name"])
            click.echo(f"{r['name']}: {r['title']} ({r['paper']})  [{rep.score_line(s)}]")
        return
    if name and run_all:
        raise PagelabError("reproduce: give a NAME or --all, not both")
    names = [r["name"] for r in rep.available()] if run_all else [name]
    rep.check(names)  # before any run: a name that is none, a package a reproduction needs
    workers, left_out = rep.placement(scale, workers, scheduler, out)
    if left_out:
        click.echo(f"pagelab: {left_out}", err=True)
    records = []
    with runner(workers, scheduler) as pool:
        for n in names:
            record = rep.reproduce(
                n,
                scale=scale,
                seed=seed,
                out=out,
                workers=workers,
                scheduler=scheduler,
                seeds=seeds,
                pool=pool,
            )
            records.append(record)
            if run_all:
                click.echo(f"{n}: {rep.score_line(record['score'])}")
            else:
                rep.print_record(record)
            click.echo(f"record in {Path(out) / (n + '.json')}", err=True)
    if run_all:
        total = rep.total([rec["score"] for rec in records])
        click.echo(f"all {len(records)}: {rep.score_line(total)}")


@cli.command()
@click.argument("results", type=click.Path(file_okay=False))
@click.option("--out", type=click.Path(file_okay=False), required=True, help="Site directory.")
def report(results: str, out: str) -> None:
    """Write an offline HTML site setting every reproduction record in RESULTS beside its paper."""
    extras.need("report", "`pagelab report`")
    from ..report import command

    command(results, out)


@cli.command()
@click.option("--out", type=click.Path(file_okay=False), default="results/demo", show_default=True)
def demo(out: str) -> None:
    """Capture a real program's trace, draw its curves under several policies, write a report."""
    extras.need("demo", "`pagelab demo`")
    from .. import demo as demo_mod

    demo_mod.run(Path(out))
