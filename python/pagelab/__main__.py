"""`python -m pagelab` is the `pagelab` command, and :func:`main` the entry point of the
`pagelab` script."""

from . import _install_starting

_install_starting()  # again: `import pagelab` installs it only when it can tell (see there)


def main() -> None:
    """The `pagelab` command."""
    from .cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
