"""Atomic result files: write to a temporary file beside the target, then rename.

A run that fails half-way leaves the previous file (or nothing), never half a file. The file
gets the mode an ordinary `open()` would give it (0666 less the umask, so 0644 under 022):
`mkstemp` makes its temporary files 0600, which would hide results from the other readers of
a shared folder.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yields a temporary path in the target's directory; renames it onto `target` on success."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        os.chmod(tmp, 0o666 & ~_umask())
        yield Path(tmp)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    """The process's umask, read without changing it where the system allows."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)  # elsewhere: set and restore (not thread-safe, hence the above)
    os.umask(mask)
    return mask


def write_text(target: str | os.PathLike[str], text: str) -> None:
    """Writes `text` to `target` atomically."""
    with atomic_path(target) as tmp:
        tmp.write_text(text)


def write_json(target: str | os.PathLike[str], value: Any) -> None:
    """Writes `value` as indented JSON to `target` atomically."""
    write_text(target, json.dumps(value, indent=2, sort_keys=False) + "\n")


def write_table(target: str | os.PathLike[str], rows: list[dict[str, Any]], fmt: str) -> None:
    """Writes rows of a table as csv, json or parquet, atomically."""
    if fmt == "json":
        write_json(target, rows)
        return
    if fmt == "csv":
        write_text(target, csv_text(rows))
        return
    if fmt != "parquet":
        raise ValueError(f"unknown table format {fmt!r}: expected csv, json or parquet")
    from . import extras

    extras.need("parquet", "--format parquet")
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(rows)
    with atomic_path(target) as tmp:
        pq.write_table(table, tmp)


def csv_text(rows: list[dict[str, Any]]) -> str:
    """Rows as CSV with a header: an absent value (None, a NaN kept as null) is an empty cell.

    >>> print(csv_text([{"a": 1, "b": None}, {"a": 2.5, "b": "x,y"}]), end="")
    a,b
    1,
    2.5,"x,y"
    """
    import csv
    import io

    if not rows:
        return ""
    keys = list(dict.fromkeys(k for r in rows for k in r))
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(keys)
    for r in rows:
        writer.writerow(["" if r.get(k) is None else r[k] for k in keys])
    return buf.getvalue()


def save_figure(fig: Any, target: str | os.PathLike[str]) -> None:
    """Saves a matplotlib figure as PNG atomically."""
    with atomic_path(target) as tmp:
        fig.savefig(tmp, format="png", dpi=120, bbox_inches="tight")
