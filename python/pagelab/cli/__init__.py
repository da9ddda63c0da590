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

    try:
        # Inside the try: a signal that comes between the first handler's installation and
        # the second's raises here, and must end in the same one line.
        interrupt.install()
        cli.main(standalone_mode=False)
    except interrupt.Interrupted as e:
        _leave(f"pagelab: {e}; nothing written", e.exit_status)
    except KeyboardInterrupt:
        _leave("pagelab: interrupted by SIGINT; nothing written", 130)
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


def _leave(line: str, status: int) -> None:
    """Prints `line` and ends the process now: the work has unwound (temporary files removed,
    child processes killed), and what is left, such as a Dask cluster's shutdown handshake,
    would only delay the exit and print more."""
    import os

    sys.stdout.flush()
    click.echo(line, err=True)
    sys.stderr.flush()
    os._exit(status)


if __name__ == "__main__":
    main()
