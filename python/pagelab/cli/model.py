"""`pagelab model`: the analytic twin of a preset, beside the simulator with --compare-sim."""

from __future__ import annotations

import time
from pathlib import Path

import click

from .base import cli


@cli.command()
@click.argument("spec")
@click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="KEY.PATH=VALUE",
    help="Override one value of the spec; may be repeated.",
)
@click.option(
    "--users",
    default="10:400:10",
    show_default=True,
    metavar="LO:HI:STEP|N1,N2",
    help="Numbers of users to solve at.",
)
@click.option("--seed", default=1, show_default=True, help="Seed of the lifetime measurement.")
@click.option(
    "--mpl-limit",
    type=float,
    default=None,
    help="A fixed multiprogramming limit in place of the load controller's storage test "
    "(UNIX V6: the prototype images that fit in core).",
)
@click.option(
    "--horizon",
    type=click.Choice(["run", "inf"]),
    default="run",
    show_default=True,
    help="Means over the spec's run window (warm-up to duration, as the simulator measures) "
    "or stationary (inf); they differ where the set can crowd and stay crowded.",
)
@click.option("--out", type=click.Path(file_okay=False), default=None, help="Write CSV and PNG.")
@click.option(
    "--compare-sim",
    is_flag=True,
    help="Also simulate a few of the counts (through the sweep engine) and draw both.",
)
@click.option("--sim-users", default=None, metavar="N1,N2", help="Counts to simulate.")
@click.option("--sim-seeds", default=2, show_default=True, help="Seeds per simulated count.")
@click.option("--workers", type=int, default=1, show_default=True, help="Simulation workers.")
def model(
    spec: str,
    overrides: tuple[str, ...],
    users: str,
    seed: int,
    mpl_limit: float | None,
    horizon: str,
    out: str | None,
    compare_sim: bool,
    sim_users: str | None,
    sim_seeds: int,
    workers: int,
) -> None:
    """Solve SPEC's analytic twin (MVA with a lifetime curve and a flow-equivalent memory
    level) at each number of users (for the M44, copies of its program; for UNIX V6, prototype
    processes) and print throughput,
    response, utilisations, fault rate and MPL."""
    from .. import extras
    from .. import model as twin

    # Before the solve and the runs, not after them.
    extras.need("frames", "`pagelab model`")
    if out:
        extras.need("plot", "`pagelab model --out`")
    if compare_sim:
        extras.need("sweep", "`pagelab model --compare-sim`")
    t0 = time.perf_counter()
    frame = twin.model(
        spec, overrides=overrides, users=users, seed=seed, mpl_limit=mpl_limit, horizon=horizon
    )
    wall = time.perf_counter() - t0
    sim = None
    if compare_sim:
        counts = twin.parse_users(sim_users) if sim_users else _spread(frame["users"].tolist())
        sim = twin.compare_sim(
            spec,
            set=list(overrides),
            users=counts,
            seeds=sim_seeds,
            workers=workers,
            out=Path(out) / "runs" if out else None,
        )
    _print(frame, sim, wall)
    if out:
        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        from .. import _atomic

        _atomic.write_text(d / "model.csv", frame.to_csv(index=False))
        if sim is not None:
            _atomic.write_text(d / "sim.csv", sim.to_csv(index=False))
        twin.figure(frame, d / "model.png", sim=sim, title=spec)
        click.echo(f"results in {out}/", err=True)


def _spread(counts: list[int], k: int = 5) -> list[int]:
    """`k` counts spread over the sweep, its ends included."""
    if len(counts) <= k:
        return counts
    step = (len(counts) - 1) / (k - 1)
    return sorted({counts[round(i * step)] for i in range(k)})


def _print(frame, sim, wall: float) -> None:  # type: ignore[no-untyped-def]
    from .. import model as twin

    # The M44's twin counts copies of its batch program, UNIX V6's its prototype processes.
    demands = frame.attrs.get("demands", {})
    who = "copies" if "program" in demands else "processes" if "swap_s" in demands else "users"
    click.echo(frame.round(4).to_string(index=False))
    click.echo(
        f"model: throughput peaks at {twin.knee(frame):g} {who}, reaches 95 % of its peak at "
        f"{twin.saturation(frame):g}; solved in {wall:.3f} s"
    )
    if sim is not None:
        click.echo("simulator (mean and standard deviation over seeds):")
        click.echo(sim.round(4).to_string(index=False))
        click.echo(
            f"simulator: throughput peaks at {twin.knee(sim):g} {who}, reaches 95 % of its "
            f"peak at {twin.saturation(sim):g}"
        )
