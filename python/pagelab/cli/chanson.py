"""`pagelab chanson`: Chanson's regression model of UNIX reaction time."""

from __future__ import annotations

from typing import Any

import click

from .base import cli


@cli.group()
def chanson() -> None:
    """Chanson's regression model of UNIX V6 swapping: predict, and solve for memory."""


def _chanson_model(fit: bool, seed: int) -> Any:
    from .. import chanson as ch
    from .. import extras

    if fit:
        extras.need("stats", "`pagelab chanson --fit`")
        extras.need("sweep", "`pagelab chanson --fit`")
    return ch.fitted_model(seed=seed) if fit else ch.paper_model()


_model_options = [
    click.option("--pn", type=int, required=True, help="Processes."),
    click.option("--ps", type=int, required=True, help="Mean process size [64-byte blocks]."),
    click.option(
        "--fit",
        is_flag=True,
        help="Fit the equation to pagelab's own runs instead of the paper's eq. (1).",
    ),
    click.option("--check", is_flag=True, help="Also simulate the answer on the unix-v6 preset."),
    click.option("--seed", default=1, show_default=True),
]


def _with(options: list[Any]) -> Any:
    def wrap(fn: Any) -> Any:
        for o in reversed(options):
            fn = o(fn)
        return fn

    return wrap


@chanson.command("predict")
@click.option("--mm", type=int, required=True, help="Main memory for users [64-byte blocks].")
@_with(_model_options)
def chanson_predict(mm: int, pn: int, ps: int, fit: bool, check: bool, seed: int) -> None:
    """Reaction time for memory MM and PN processes of PS blocks (section 4.1-4.2)."""
    from .. import chanson as ch

    model = _chanson_model(fit, seed)
    rt = ch.predict_rt(model, mm=mm, pn=pn, ps=ps)
    click.echo(f"PCTRMM {ch.pctrmm(mm, pn, ps):.1f} %: predicted reaction time {rt:.0f} ms")
    if check:
        m = ch.simulate(pn, ps, 12, mm, seed=seed)
        click.echo(f"simulated: {m['reaction_time_ms']:.0f} ms")


@chanson.command("memory")
@click.option("--target-ms", type=float, required=True, help="Reaction time wanted [ms].")
@_with(_model_options)
def chanson_memory(target_ms: float, pn: int, ps: int, fit: bool, check: bool, seed: int) -> None:
    """Memory [blocks] that brings reaction time to a target (section 4.1b)."""
    from .. import chanson as ch

    model = _chanson_model(fit, seed)
    mm = ch.memory_for(model, target_ms, pn=pn, ps=ps)
    click.echo(f"memory for {target_ms:.0f} ms: {mm:.0f} blocks")
    if check:
        m = ch.simulate(pn, ps, 12, round(mm), seed=seed)
        click.echo(f"simulated at {round(mm)} blocks: {m['reaction_time_ms']:.0f} ms")
