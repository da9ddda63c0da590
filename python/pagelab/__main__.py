"""`python -m pagelab` is the `pagelab` command."""

from .cli import main

main()
