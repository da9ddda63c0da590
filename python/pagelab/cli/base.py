"""The `pagelab` command group and what its subcommands share."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import click

from .. import validate
from ..errors import PagelabError


def _parse_sizes(text: str, option: str = "--sizes", clamp: int | None = None) -> list[int]:
    """`4,41,203`, or a range `1:200` / `1:200:5` (inclusive); see validate.parse_points."""
    values, note = validate.parse_points(text, option, clamp=clamp)
    if note:
        click.echo(f"pagelab: note: {note}", err=True)
    return values


def _split_policies(text: str) -> list[str]:
    return [p for p in (s.strip() for s in text.split(",")) if p]


def table_output(fn: Any) -> Any:
    """The `--format` and `--output` options of every command that writes a table."""
    fn = click.option("--output", default="-", show_default=True, help="File, or - for stdout.")(fn)
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(["csv", "parquet", "json"]),
        default="csv",
        show_default=True,
    )(fn)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pagelab", message="pagelab %(version)s")
def cli() -> None:
    """pagelab: a laboratory for paging, swapping and memory load control."""


def _parse_psis(text: str) -> list[int]:
    """Like sizes, but Ψ may be 0."""
    return validate.parse_points(text, "--psi", lo=0)[0]


def check_outputs(inputs: Sequence[str], **outputs: str | None) -> None:
    """Refuses, before any work, an output (by option name: output="...", plot="...") that is
    not a regular file or that is one of the command's `inputs` (pagelab._atomic)."""
    from .. import _atomic

    for option, path in outputs.items():
        if path is not None and path != "-":
            _atomic.check_output(path, inputs=inputs, option=f"--{option}")


def _emit_rows(
    rows: list[dict[str, Any]], fmt: str, output: str, inputs: Sequence[str] = ()
) -> None:
    from .. import _atomic

    if output == "-":
        if fmt == "parquet":
            raise PagelabError("--format parquet needs --output FILE")
        if fmt == "json":
            click.echo(json.dumps(rows, indent=2))
        else:
            click.echo(_atomic.csv_text(rows), nl=False)
        return
    _atomic.write_table(output, rows, fmt, inputs=inputs)
    click.echo(f"wrote {len(rows)} rows to {output}", err=True)
