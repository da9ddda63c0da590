"""`pagelab trace`: capture, convert, inspect and generate reference traces."""

from __future__ import annotations

import json
import warnings
from typing import Any

import click

from .. import traces
from ..errors import PagelabError
from .base import cli

# -- traces ------------------------------------------------------------------------------------


@cli.group()
def trace() -> None:
    """Capture, convert and describe reference traces."""


@trace.command(context_settings={"ignore_unknown_options": True})
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="Trace file.")
@click.option("--page-size", default=4096, show_default=True, help="Page size [bytes].")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def capture(output: str, page_size: int, command: tuple[str, ...]) -> None:
    """Run PROGRAM ARGS under valgrind's lackey and record its references.

    The program's own output stays on stdout, as if it ran alone; pagelab's summary of the
    trace goes to stderr, after it.

    pagelab trace capture -o sort.pltrace -- sort /etc/services
    """
    info = traces.capture(output, command[0], command[1:], page_size=page_size)
    _print_info(output, info, err=True)


@trace.command()
@click.argument("source", type=click.Path(dir_okay=False))
@click.argument("output", type=click.Path(dir_okay=False))
@click.option(
    "--from",
    "from_",
    type=click.Choice(traces.INPUT_FORMATS),
    default=None,
    help="Input format (guessed from the content when absent).",
)
@click.option(
    "--units",
    type=click.Choice(["pages", "addresses"]),
    default="addresses",
    show_default=True,
    help="Whether the input's numbers are pages or byte addresses.",
)
@click.option("--page-size", default=4096, show_default=True, help="Page size [bytes].")
@click.option(
    "--only",
    type=click.Choice(["instructions", "data"]),
    default=None,
    help="Keep only instruction fetches or only data references.",
)
@click.option(
    "--range",
    "ranges",
    multiple=True,
    metavar="LO:HI",
    help="Keep only addresses in [LO, HI) (hex with 0x); may be repeated.",
)
@click.option(
    "--max-access-pages",
    default=1024,
    show_default=True,
    help="Refuse an access spanning more pages (a misread record).",
)
@click.option("--lenient", is_flag=True, help="Accept implausible records instead of refusing.")
def convert(
    source: str,
    output: str,
    from_: str | None,
    units: str,
    page_size: int,
    only: str | None,
    ranges: tuple[str, ...],
    max_access_pages: int,
    lenient: bool,
) -> None:
    """Convert SOURCE (lackey, pinatrace, text, u64, oracleGeneral, pagelab) to a pagelab trace."""
    parsed = []
    for r in ranges:
        lo, sep, hi = r.partition(":")
        try:
            parsed.append((int(lo, 0), int(hi, 0)))
        except ValueError:
            raise PagelabError(f"--range {r!r}: expected LO:HI, e.g. 0x400000:0x500000") from None
        if not sep:
            raise PagelabError(f"--range {r!r}: expected LO:HI")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", traces.ImplausibleTrace)
        info = traces.convert(
            source,
            output,
            from_=from_,
            units=units,
            page_size=page_size,
            only=only,
            ranges=parsed,
            max_access_pages=max_access_pages,
            lenient=lenient,
        )
    for w in caught:
        click.echo(f"pagelab: warning: {w.message}", err=True)
    _print_info(output, info)


@trace.command("info")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.option("--verify", "check", is_flag=True, help="Also check every chunk and the page map.")
def trace_info(path: str, as_json: bool, check: bool) -> None:
    """Describe a pagelab trace."""
    info = traces.info(path)
    if check:
        traces.verify(path)
        info["verified"] = "every chunk and the page map"
    if as_json:
        click.echo(json.dumps(info, indent=2))
    else:
        _print_info(path, info)


@trace.command("verify")
@click.argument("path", type=click.Path(dir_okay=False))
def trace_verify(path: str) -> None:
    """Check every chunk's checksum and the page map of a pagelab trace."""
    r = traces.verify(path)
    click.echo(
        f"{path}: ok: {r['chunks']} chunks, {r['runs']:,} runs, {r['references']:,} references "
        f"and a page map of {r['distinct_pages']:,} pages checked"
    )


@trace.command()
@click.argument("program")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="Trace file.")
@click.option("--seed", default=1, show_default=True, help="Seed of the program's input data.")
@click.option(
    "--params",
    default="{}",
    show_default=True,
    help='Kernel parameters as JSON, e.g. \'{"sort": {"items": 2000}}\'.',
)
def generate(program: str, output: str, seed: int, params: str) -> None:
    """Run one of the M44/44X study's programs and record its references (`list programs`)."""
    from .. import programs

    try:
        parsed = json.loads(params)
    except json.JSONDecodeError as e:
        raise PagelabError(f"--params: not JSON ({e.msg} at column {e.colno})") from None
    info = programs.generate(program, output, seed=seed, params=parsed)
    check = info["check"]
    verdict = "passed" if check["passed"] else "FAILED"
    click.echo(
        f"{program}: {info['references']:,} references to {info['distinct_pages']} pages of "
        f"{info['page_words']} words; result check {verdict} "
        f"({check['what']} = {check['value']:.3g})"
    )


@trace.command()
@click.argument("source", type=click.Path(dir_okay=False))
@click.argument("output", type=click.Path(dir_okay=False))
@click.option(
    "--to", type=click.Choice(["oracle-general"]), default="oracle-general", show_default=True
)
def export(source: str, output: str, to: str) -> None:
    """Write a pagelab trace in another tool's format (libCacheSim's oracleGeneral)."""
    traces.export_oracle_general(source, output)
    click.echo(f"wrote {output}")


def _print_info(path: str, info: dict[str, Any], *, err: bool = False) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title=path, show_header=False)
    for key, value in info.items():
        if isinstance(value, dict):
            value = json.dumps(value)
        elif isinstance(value, float):
            value = f"{value:.4g}"
        elif isinstance(value, int):
            value = f"{value:,}"
        t.add_row(key.replace("_", " "), str(value))
    Console(stderr=err).print(t)
