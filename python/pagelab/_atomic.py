"""Atomic result files: write to a temporary file beside the target, then rename.

A run that fails half-way leaves the previous file (or nothing), never half a file. The file
gets the mode an ordinary `open()` would give it (0666 less the umask, so 0644 under 022):
`mkstemp` makes its temporary files 0600, which would hide results from the other readers of
a shared folder.

An output never destroys what it should not (:func:`check_output`): pagelab writes only
regular files, so a device, a FIFO, a socket or a directory named as an output is refused
before any work; a symlink is followed (the file it names is replaced, the link stays); and
an output that is the same file as one of the command's inputs (same device and inode, however
the path is spelt) is refused, so `trace convert x.txt x.txt` cannot eat its input.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from .errors import PagelabError

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str | None:
    """What a node other than a regular file is, in words; None for a regular file."""
    return next((what for test, what in _KINDS if test(mode)), None)


def check_output(
    target: str | os.PathLike[str],
    *,
    inputs: Iterable[str | os.PathLike[str] | None] = (),
    option: str = "",
) -> Path:
    """The path to write `target` to: the target itself, or the file its symlink names.

    Refuses (PagelabError naming `option` and the path as the user gave it) a target that
    exists and is not a regular file, and a target that is the same file as any of `inputs`.
    Call it before the work, so that a refused output costs nothing.
    """
    name = f"{option} {os.fspath(target)}".strip()
    real = Path(os.path.realpath(target))
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return real
    except OSError as e:
        raise PagelabError(f"{name}: cannot write it ({e.strerror})") from None
    what = _kind(st.st_mode)
    if what is not None:
        raise PagelabError(f"{name}: is {what}; pagelab writes only regular files")
    for source in inputs:
        if source is None:
            continue
        try:
            s = os.stat(source)
        except OSError:
            continue
        if (s.st_dev, s.st_ino) == (st.st_dev, st.st_ino):
            raise PagelabError(
                f"{name}: is the same file as the input {os.fspath(source)}; "
                "writing it would destroy the input: give another output"
            )
    return real


@contextlib.contextmanager
def atomic_path(
    target: str | os.PathLike[str], *, inputs: Iterable[str | os.PathLike[str] | None] = ()
) -> Iterator[Path]:
    """Yields a temporary path in the target's directory; renames it onto `target` on success.

    The target is checked first (:func:`check_output`); an error of the file system names the
    target as given, not the temporary file."""
    real = check_output(target, inputs=inputs)
    try:
        real.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
    except OSError as e:
        raise PagelabError(f"{os.fspath(target)}: cannot write it ({e.strerror})") from None
    os.close(fd)
    try:
        os.chmod(tmp, 0o666 & ~_umask())
        yield Path(tmp)
        try:
            os.replace(tmp, real)
        except OSError as e:
            raise PagelabError(f"{os.fspath(target)}: cannot write it ({e.strerror})") from None
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


def write_text(
    target: str | os.PathLike[str],
    text: str,
    *,
    inputs: Iterable[str | os.PathLike[str] | None] = (),
) -> None:
    """Writes `text` to `target` atomically."""
    with atomic_path(target, inputs=inputs) as tmp:
        tmp.write_text(text)


def write_json(target: str | os.PathLike[str], value: Any) -> None:
    """Writes `value` as indented JSON to `target` atomically."""
    write_text(target, json.dumps(value, indent=2, sort_keys=False) + "\n")


def write_table(
    target: str | os.PathLike[str],
    rows: list[dict[str, Any]],
    fmt: str,
    *,
    inputs: Iterable[str | os.PathLike[str] | None] = (),
) -> None:
    """Writes rows of a table as csv, json or parquet, atomically."""
    if fmt == "json":
        write_text(target, json.dumps(rows, indent=2) + "\n", inputs=inputs)
        return
    if fmt == "csv":
        write_text(target, csv_text(rows), inputs=inputs)
        return
    if fmt != "parquet":
        raise ValueError(f"unknown table format {fmt!r}: expected csv, json or parquet")
    from . import extras

    extras.need("parquet", "--format parquet")
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(rows)
    with atomic_path(target, inputs=inputs) as tmp:
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


def save_figure(
    fig: Any,
    target: str | os.PathLike[str],
    *,
    inputs: Iterable[str | os.PathLike[str] | None] = (),
) -> None:
    """Saves a matplotlib figure as PNG atomically."""
    with atomic_path(target, inputs=inputs) as tmp:
        fig.savefig(tmp, format="png", dpi=120, bbox_inches="tight")
