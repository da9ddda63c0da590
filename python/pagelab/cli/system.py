"""The system simulator: `run`, `sweep` and `calibrate`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from .. import extras
from .base import cli

# -- the system simulator --------------------------------------------------------------------


@cli.command()
@click.argument("spec")
@click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="KEY.PATH=VALUE",
    help="Override one value of the spec; may be repeated.",
)
@click.option("--seed", default=1, show_default=True)
@click.option("--out", type=click.Path(file_okay=False), default=None)
@click.option(
    "--max-memory",
    default=None,
    metavar="BYTES",
    help="Allow a run this large (e.g. 64G); default: the memory available.",
)
def run(
    spec: str, overrides: tuple[str, ...], seed: int, out: str | None, max_memory: str | None
) -> None:
    """Run one simulation of SPEC (a TOML file or a preset name) and print its summary."""
    from .. import system

    report = system.run(spec, overrides=overrides, seed=seed, out=out, max_memory=max_memory)
    _print_metrics(report.get("metrics", {}))
    if out:
        click.echo(f"results in {out}/", err=True)


def _print_metrics(metrics: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table("metric", "value", "unit")
    for name, m in metrics.items():
        v = m.get("value")
        t.add_row(name, f"{v:.4g}" if isinstance(v, float) else str(v), m.get("unit", ""))
    Console().print(t)


@cli.command()
@click.argument("spec")
@click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="KEY.PATH=VALUE",
    help="Override one value of the spec for every run; may be repeated.",
)
@click.option(
    "--grid",
    "grid",
    multiple=True,
    metavar="KEY.PATH=V1,V2|LO:HI:STEP",
    help="An axis of the sweep: values, or an inclusive range; may be repeated (product).",
)
@click.option("--seeds", default=1, show_default=True, help="Seeds 1..N for every grid point.")
@click.option("--out", type=click.Path(file_okay=False), required=True, help="Result store.")
@click.option("--workers", type=int, default=None, help="Worker processes [default: one per core].")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT", help="An existing scheduler.")
@click.option(
    "--repair", is_flag=True, help="Compute again the stored runs that fail their checksum."
)
def sweep(
    spec: str,
    overrides: tuple[str, ...],
    grid: tuple[str, ...],
    seeds: int,
    out: str,
    workers: int | None,
    scheduler: str | None,
    repair: bool,
) -> None:
    """Run SPEC (a TOML file or a preset) at every grid point and seed, in parallel.

    Each run is kept in OUT/runs/ as one Parquet row, keyed by the resolved spec, the seed and
    the version: a run already there is not computed again.
    """
    extras.need("sweep", "`pagelab sweep`")
    from ..sweep import run_sweep

    outcome = run_sweep(
        spec,
        grid=grid,
        seeds=seeds,
        set=overrides,
        out=out,
        workers=workers,
        scheduler=scheduler,
        repair=repair,
    )
    for line in outcome.repaired:
        click.echo(f"pagelab: repaired {line}", err=True)
    n = len(outcome.rows)
    click.echo(
        f"{n} runs: {n - outcome.computed} from the store, {outcome.computed} computed, "
        f"in {outcome.wall_seconds:.1f} s; dataset in {Path(out) / 'runs'}/",
        err=True,
    )


@cli.command()
@click.argument("preset")
@click.option("--target", required=True, type=click.Path(dir_okay=False), help="TARGET.toml.")
@click.option(
    "--vary",
    multiple=True,
    required=True,
    metavar="KEY.PATH[@GROUP]=LO:HI",
    help="A key to fit; @GROUP: at the target points of that group only.",
)
@click.option(
    "--require",
    multiple=True,
    metavar="KEY<KEY",
    help="Two varied keys, the first to stay below the second.",
)
@click.option(
    "--tie",
    multiple=True,
    metavar="KEY.PATH=F*KEY",
    help="A key set to F times a varied key in every trial (a rule of the system).",
)
@click.option("--budget", default=40, show_default=True, help="Trials.")
@click.option("--seeds", default=2, show_default=True, help="Seeds 1..N of every trial.")
@click.option("--set", "overrides", multiple=True, metavar="KEY.PATH=VALUE", help="Fixed override.")
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="FITTED.toml.")
@click.option(
    "--store",
    type=click.Path(file_okay=False),
    default=None,
    help="Result store of the trials' runs [default: OUT without .toml, plus -runs].",
)
@click.option("--sampler", type=click.Choice(["cmaes", "tpe"]), default="cmaes", show_default=True)
@click.option("--sampler-seed", type=int, default=0, show_default=True, help="The sampler's seed.")
@click.option(
    "--near",
    type=float,
    default=2.0,
    show_default=True,
    help="Keep in the provenance what the trials within this ratio of the best loss leave open.",
)
@click.option(
    "--near-error",
    type=float,
    default=0.05,
    show_default=True,
    help="... or within this root-mean-square relative error of the target, if more.",
)
@click.option("--workers", type=int, default=None, help="Worker processes [default: one per core].")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT", help="An existing scheduler.")
@click.option(
    "--surrogate",
    type=click.Choice(["model"]),
    default=None,
    help="Screen the box with the analytic twin first; the simulator starts from its best.",
)
def calibrate(
    preset: str,
    target: str,
    vary: tuple[str, ...],
    require: tuple[str, ...],
    tie: tuple[str, ...],
    budget: int,
    seeds: int,
    overrides: tuple[str, ...],
    out: str,
    store: str | None,
    sampler: str,
    sampler_seed: int,
    near: float,
    near_error: float,
    workers: int | None,
    scheduler: str | None,
    surrogate: str | None,
) -> None:
    """Fit the VARY keys of PRESET to the paper numbers in TARGET; write the fitted preset,
    and every trial beside it (OUT's name, .trials.parquet)."""
    extras.need("calibrate", "`pagelab calibrate`")
    from .. import calibrate as cal

    cal.check_near(near, near_error)  # before the search, not after it
    cal.check_outputs(preset, target, out)
    tgt = cal.load_target(target)
    keys = [cal.parse_vary(v) for v in vary]
    store = store or str(Path(out).with_suffix("")) + "-runs"

    def report(trial: cal.Trial, best: cal.Trial, total: int) -> None:
        vals = ", ".join(f"{k}={v:.4g}" for k, v in trial.values.items())
        why = f" ({trial.infeasible})" if trial.infeasible else ""
        click.echo(
            f"trial {trial.number + 1}/{total}: {vals}: loss {trial.loss:.4g}{why} "
            f"(best {best.loss:.4g} at trial {best.number + 1})",
            err=True,
        )

    result = cal.calibrate(
        preset, tgt, keys, budget=budget, seeds=seeds, store=store, set=overrides,
        workers=workers, scheduler=scheduler, sampler=sampler, on_trial=report, require=require,
        tie=tie, surrogate=surrogate, sampler_seed=sampler_seed,
    )  # fmt: skip
    path = cal.write_fitted(result, out, set=overrides, near_ratio=near, near_error=near_error)
    table = cal.write_trials(result, cal.trials_path(out))
    best = result.best
    close = result.near(near, near_error)
    for k, v in best.values.items():
        lo, hi = (min(t.values[k] for t in close), max(t.values[k] for t in close))
        click.echo(f"{k} = {v:.6g}  (near the best loss: {lo:.4g} to {hi:.4g})")
    click.echo(
        f"loss {best.loss:.4g}; {len(close)} of {len(result.trials)} trials near it (within "
        f"{near:g}x, or a root-mean-square error of {near_error:g}); "
        f"fitted preset in {path}, every trial in {table}",
        err=True,
    )
    loose = result.unpinned(near, near_error)
    if loose:
        click.echo(
            f"calibrate: near the best loss, {', '.join(loose)} span half their "
            "range or more: the target does not pin them, and predictions that depend on them "
            "may move with them (the provenance's near_fit has fits to run them from)",
            err=True,
        )
    if not result.converged:
        click.echo(
            f"calibrate: the best loss fell {100 * result.late_gain:.1f} % in the last quarter "
            f"of the trials (best at trial {best.number + 1} of {len(result.trials)}): the search "
            "may not have converged; a larger --budget may find a lower loss",
            err=True,
        )
