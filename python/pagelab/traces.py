"""Reference traces: capture from a real program, convert from other formats, describe."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from . import _core, progress
from .errors import PagelabError

#: Input formats `convert` understands (guessed from the content when not given).
INPUT_FORMATS = ("lackey", "pinatrace", "text", "u64", "oracle-general", "pagelab")


def _call(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except ValueError as e:
        raise PagelabError(str(e)) from None


def info(path: str | os.PathLike[str]) -> dict[str, Any]:
    """References, runs, distinct pages, footprint, kinds and compression of a pagelab trace."""
    return _call(_core.trace_info, os.fspath(path))


def capture(
    output: str | os.PathLike[str],
    program: str,
    args: Sequence[str] = (),
    *,
    page_size: int = 4096,
) -> dict[str, Any]:
    """Runs `program args` under valgrind's lackey and streams its references into `output`."""
    with progress.bar(f"capturing {os.path.basename(program)}") as update:
        return _call(
            _core.trace_capture,
            program,
            list(args),
            page_size,
            os.fspath(output),
            lambda refs: update(refs, None),
        )


def convert(
    source: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    from_: str | None = None,
    units: str | None = None,
    page_size: int = 4096,
    only: str | None = None,
    ranges: Sequence[tuple[int, int]] = (),
) -> dict[str, Any]:
    """Converts a trace in any known format to a pagelab trace, streaming in constant memory.

    `units` is "pages" or "addresses" (the format's own when None: addresses for lackey and
    pinatrace, pages otherwise); `only` is "instructions" or "data"; `ranges` keep only
    addresses in [lo, hi).
    """
    if from_ is not None and from_ not in INPUT_FORMATS:
        raise PagelabError(f"--from {from_!r}: expected one of {', '.join(INPUT_FORMATS)}")
    with progress.bar(f"converting {os.path.basename(source)}", bytes_=True) as update:
        return _call(
            _core.trace_convert,
            os.fspath(source),
            os.fspath(output),
            from_,
            units,
            page_size,
            only,
            [(int(lo), int(hi)) for lo, hi in ranges],
            update,
        )


def export_oracle_general(source: str | os.PathLike[str], output: str | os.PathLike[str]) -> None:
    """Writes a pagelab trace as libCacheSim's oracleGeneral binary (for side-by-side runs)."""
    _call(_core.trace_export_oracle, os.fspath(source), os.fspath(output))
