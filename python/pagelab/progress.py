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
    return sys.stderr.isatty()


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
    with Progress(*columns, transient=True) as progress:
        task = progress.add_task(description, total=total)

        def update(done: float, total: float | None = None) -> None:
            progress.update(task, completed=done, total=total)

        yield update
