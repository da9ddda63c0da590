"""Reference traces: capture from a real program, convert from other formats, describe."""

from __future__ import annotations

import os
import stat
import warnings
from collections.abc import Sequence
from typing import Any

from . import _atomic, _core, progress, validate
from .errors import PagelabError

#: Input formats `convert` understands (guessed from the content when not given).
INPUT_FORMATS = ("lackey", "pinatrace", "text", "u64", "oracle-general", "pagelab")


def _call(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except (ValueError, OverflowError) as e:
        raise PagelabError(str(e)) from None


def info(path: str | os.PathLike[str]) -> dict[str, Any]:
    """References, runs, distinct pages, footprint, kinds and compression of a pagelab trace."""
    return _call(_core.trace_info, os.fspath(path))


def verify(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Checks every chunk's checksum and the page map; returns what was checked.

    A corrupt trace raises PagelabError naming the byte offset of the first problem.
    """
    return _call(_core.trace_verify, os.fspath(path))


def capture(
    output: str | os.PathLike[str],
    program: str,
    args: Sequence[str] = (),
    *,
    page_size: int = 4096,
) -> dict[str, Any]:
    """Runs `program args` under valgrind's lackey and streams its references into `output`."""
    page_size = validate.integer(page_size, "page_size", lo=1)
    real = _atomic.check_output(output, option="--output")
    with progress.bar(f"capturing {os.path.basename(program)}") as update:
        return _call(
            _core.trace_capture,
            program,
            list(args),
            page_size,
            os.fspath(real),
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
    max_access_pages: int = 1024,
    lenient: bool = False,
) -> dict[str, Any]:
    """Converts a trace in any known format to a pagelab trace, streaming in constant memory.

    `units` is "pages" or "addresses" (the format's own when None: addresses for lackey and
    pinatrace, pages otherwise); `only` is "instructions" or "data"; `ranges` keep only
    addresses in [lo, hi). An access spanning more than `max_access_pages`, or an
    oracleGeneral record whose next access precedes it, is refused unless `lenient`.
    """
    if from_ is not None and from_ not in INPUT_FORMATS:
        raise PagelabError(f"--from {from_!r}: expected one of {', '.join(INPUT_FORMATS)}")
    page_size = validate.integer(page_size, "page_size", lo=1)
    max_access_pages = validate.integer(max_access_pages, "max_access_pages", lo=1)
    ranges = [
        (validate.integer(lo, "range start"), validate.integer(hi, "range end"))
        for lo, hi in ranges
    ]
    real = _atomic.check_output(output, inputs=[source], option="OUTPUT")
    _check_not_empty(source)
    with progress.bar(f"converting {os.path.basename(source)}", bytes_=True) as update:
        info = _call(
            _core.trace_convert,
            os.fspath(source),
            os.fspath(real),
            from_,
            units,
            page_size,
            only,
            ranges,
            update,
            max_access_pages,
            bool(lenient),
        )
    note = implausible(info)
    if note is not None:
        warnings.warn(f"{os.fspath(source)}: {note}", ImplausibleTrace, stacklevel=2)
    return info


class ImplausibleTrace(UserWarning):
    """A conversion succeeded but its input does not look like a trace of that format."""


#: References below which no judgement is made of a raw trace's plausibility.
PLAUSIBLE_MIN_REFERENCES = 1000


def implausible(info: dict[str, Any]) -> str | None:
    """Why a converted raw u64 trace looks like random bytes rather than page numbers, or
    None. Any 8 bytes are a valid u64, so the format cannot refuse noise; but a program
    references its pages again and again, and random 64-bit numbers never repeat."""
    fmt = (info.get("description") or {}).get("input_format")
    refs, distinct = info.get("references", 0), info.get("distinct_pages", 0)
    if fmt == "u64" and refs >= PLAUSIBLE_MIN_REFERENCES and distinct >= 0.99 * refs:
        return (
            f"{distinct:,} distinct pages in {refs:,} references: no page is referenced "
            "again, which is what random bytes give, not a program; is this a u64 trace "
            "(little-endian 64-bit page numbers or addresses)?"
        )
    return None


def export_oracle_general(source: str | os.PathLike[str], output: str | os.PathLike[str]) -> None:
    """Writes a pagelab trace as libCacheSim's oracleGeneral binary (for side-by-side runs)."""
    real = _atomic.check_output(output, inputs=[source], option="OUTPUT")
    _call(_core.trace_export_oracle, os.fspath(source), os.fspath(real))


def _check_not_empty(source: str | os.PathLike[str]) -> None:
    """A zero-byte regular file holds no reference in any format: refused rather than
    converted to an empty trace (a pipe may still be empty until it is read)."""
    try:
        st = os.stat(source)
    except OSError:
        return  # the reader names a missing or unreadable file
    if stat.S_ISREG(st.st_mode) and st.st_size == 0:
        raise PagelabError(f"{os.fspath(source)}: empty file (0 bytes): no references to convert")
