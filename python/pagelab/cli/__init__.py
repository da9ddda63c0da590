"""The `pagelab` command: one module per command group, all on the group in `base`."""

from __future__ import annotations

import sys

import click

from ..errors import PagelabError
from . import (  # noqa: F401  (they register commands)
    chanson,
    lab,
    linux,
    listing,
    model,
    papers,
    system,
    trace,
)
from .base import cli

__all__ = ["cli", "main"]


def main() -> None:
    from .. import interrupt

    interrupt.install()
    try:
        cli.main(standalone_mode=False)
    except interrupt.Interrupted as e:
        click.echo(f"pagelab: {e}; nothing written", err=True)
        sys.exit(e.exit_status)
    except PagelabError as e:
        click.echo(f"pagelab: error: {e}", err=True)
        sys.exit(2)
    except click.exceptions.Abort:
        click.echo("pagelab: aborted", err=True)
        sys.exit(130)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except ModuleNotFoundError as e:
        from .. import extras

        what = f"`pagelab {sys.argv[1]}`" if len(sys.argv) > 1 else "pagelab"
        click.echo(f"pagelab: error: {extras.explain(e, what)}", err=True)
        sys.exit(2)
    except OSError as e:
        missing = isinstance(e, FileNotFoundError)
        click.echo(f"pagelab: error: {f'{e.filename}: no such file' if missing else e}", err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
