"""Progress bars for long work. Quiet when the output is not a terminal or when asked."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

Callback = Callable[[float, float | None], None]


def enabled() -> bool:
    return sys.stderr.isatty() and not _quiet[0]


@contextmanager
def bar(
    description: str, *, total: float | None = None, bytes_: bool = False
) -> Iterator[Callback]:
    """A progress bar on stderr; yields `update(done, total)` to call from long work."""
    if not enabled():
        yield lambda done, total=None: None
        return
    columns = [TextColumn("{task.description}"), BarColumn(), TaskProgressColumn()]
    columns += [DownloadColumn()] if bytes_ else []
    columns += [TimeElapsedColumn(), TimeRemainingColumn()]
    with Progress(*columns, transient=True) as progress, quiet():
        # One live display at a time: a bar inside this one's work stays silent.
        task = progress.add_task(description, total=total)

        def update(done: float, total: float | None = None) -> None:
            progress.update(task, completed=done, total=total)

        yield update


_quiet = [0]


@contextmanager
def quiet() -> Iterator[None]:
    """No bar inside: for work that is itself one step of a bar already shown."""
    _quiet[0] += 1
    try:
        yield
    finally:
        _quiet[0] -= 1
