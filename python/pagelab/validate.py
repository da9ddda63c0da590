"""Checks of user-given numbers at the boundary of the Python API and the command line.

The Rust core takes 32- and 64-bit unsigned integers; a Python integer outside their range
would otherwise surface as an `OverflowError` (or a `TypeError` for a string or a float) from
the bindings. Every check here raises :class:`~pagelab.errors.PagelabError` instead, naming
the argument and what was expected, so a caller gets one kind of error for every bad input.
"""

from __future__ import annotations

import math
import operator
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .errors import PagelabError

#: Largest value of an unsigned 32-bit integer (frame counts, page numbers of a list, Ψ).
U32_MAX = 2**32 - 1
#: Largest value of an unsigned 64-bit integer (reference counts, seeds, τ, addresses).
U64_MAX = 2**64 - 1
#: Largest page number step mode shows (its tables are indexed by the pages as written;
#: pagelab_trace::policy::MAX_STEP_PAGE).
STEP_MAX_PAGE = 2**20 - 1
#: Most values one list argument may hold (sizes, τ, Ψ) [values]: a curve of a million
#: points is already more than a plot can show; more is a typing slip (`1:1000000000`).
MAX_POINTS = 1_000_000


#: Largest spec or target file read [bytes]: the largest preset is some 40 KB; a file a
#: thousand times larger is not a spec (`pagelab run /dev/zero` would read without end).
MAX_SPEC_BYTES = 16 * 2**20


def spec_file(path: Path, what: str) -> Path:
    """`path` if it is a regular file of at most MAX_SPEC_BYTES (a spec, a target); else a
    PagelabError naming it, before anything reads it."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise PagelabError(f"{path}: cannot read it ({e.strerror})") from None
    if not stat.S_ISREG(st.st_mode):
        raise PagelabError(f"{path}: not a regular file; expected a TOML {what} file")
    if st.st_size > MAX_SPEC_BYTES:
        raise PagelabError(
            f"{path}: {st.st_size:,} bytes; a {what} file is TOML text of at most "
            f"{MAX_SPEC_BYTES // 2**20} MiB"
        )
    return path


def read_toml_text(path: Path, what: str) -> str:
    """The text of a TOML spec or target file, checked by :func:`spec_file`; a file that is
    not UTF-8 text is a one-line PagelabError."""
    spec_file(path, what)
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise PagelabError(
            f"{path}: not text (byte {e.start} is not UTF-8); expected a TOML {what} file"
        ) from None
    except OSError as e:
        raise PagelabError(f"{path}: cannot read it ({e.strerror})") from None


def integer(value: Any, name: str, *, lo: int = 0, hi: int = U64_MAX) -> int:
    """`value` as an int in [lo, hi], or a PagelabError naming `name`."""
    if isinstance(value, bool):
        raise PagelabError(f"{name} {value!r}: expected a whole number, not a boolean")
    if isinstance(value, str):
        try:
            value = int(value.strip(), 0)
        except ValueError:
            raise PagelabError(f"{name} {value!r}: expected a whole number") from None
    try:
        v = operator.index(value)
    except TypeError:
        if isinstance(value, float) and value.is_integer():
            v = int(value)
        else:
            raise PagelabError(f"{name} {value!r}: expected a whole number") from None
    if not lo <= v <= hi:
        raise PagelabError(f"{name} {v}: expected a whole number from {lo} to {hi}")
    return v


def integers(values: Any, name: str, *, lo: int = 0, hi: int = U64_MAX) -> list[int]:
    """Every element of `values` checked by :func:`integer`; at most :data:`MAX_POINTS`
    when `name` is a list of curve points."""
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        raise PagelabError(f"{name}: expected a list of whole numbers, got {type(values).__name__}")
    return [integer(v, f"{name}[{i}]", lo=lo, hi=hi) for i, v in enumerate(values)]


def points(values: Any, name: str, *, lo: int, hi: int) -> list[int]:
    """A list of curve points (sizes, τ, Ψ): checked, non-empty, at most MAX_POINTS."""
    out = integers(values, name, lo=lo, hi=hi)
    if not out:
        raise PagelabError(f"{name}: expected at least one value")
    if len(out) > MAX_POINTS:
        raise PagelabError(f"{name}: {len(out):,} values; at most {MAX_POINTS:,} in one call")
    return out


def positive_float(value: Any, name: str) -> float:
    """A finite number above zero."""
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        raise PagelabError(f"{name} {value!r}: expected a number above 0") from None
    if not (math.isfinite(v) and v > 0):
        raise PagelabError(f"{name} {value!r}: expected a finite number above 0")
    return v


def byte_size(value: Any, name: str) -> str:
    """A memory size: bytes, or a number with a K, M, G or T suffix (powers of 1024)."""
    text = str(value).strip()
    number = text[:-1] if text[-1:].upper() in ("K", "M", "G", "T") else text
    try:
        v = float(number)
    except ValueError:
        v = -1.0
    if not (math.isfinite(v) and v > 0):
        raise PagelabError(f"{name} {value!r}: expected bytes, or a size such as 64G")
    return text


def parse_points(
    text: str,
    option: str,
    *,
    lo: int = 1,
    hi: int = U32_MAX,
    clamp: int | None = None,
    clamp_what: str = "the trace's distinct pages",
) -> tuple[list[int], str | None]:
    """Parses `4,41,203` or ranges `1:200` / `1:200:5` (inclusive) into values in [lo, hi].

    With `clamp`, values above it are replaced by `clamp` itself (once), and a note says so:
    a trace's counts cannot change above its distinct pages. A range is never expanded
    beyond its clamped end, so `1:1000000000` on a 200-page trace costs 200 values.
    Returns the values (in the order given, duplicates removed) and the note, if any.
    """
    example = f"expected values like 4,41,203 or a range {lo}:200[:step]"
    values: list[int] = []
    above = False
    for part in text.split(","):
        part = part.strip()
        bits = part.split(":")
        if len(bits) > 3 or not part:
            raise PagelabError(f"{option} {text!r}: {example}")
        try:
            nums = [int(b) for b in bits]
        except ValueError:
            raise PagelabError(f"{option} {text!r}: {example}") from None
        if any(not lo <= n <= hi for n in nums[:2]):
            raise PagelabError(f"{option} {text!r}: values must lie between {lo} and {hi}")
        if len(nums) == 1:
            first, last, step = nums[0], nums[0], 1
        else:
            first, last, step = nums[0], nums[1], nums[2] if len(nums) == 3 else 1
            if step <= 0 or last < first:
                raise PagelabError(f"{option} {text!r}: a range needs lo <= hi and a step >= 1")
        if clamp is not None and last > clamp:
            above = True
            last = min(last, clamp)
        r = range(first, last + 1, step)
        if len(values) + len(r) > MAX_POINTS:
            raise PagelabError(
                f"{option} {text!r}: more than {MAX_POINTS:,} values; give a coarser step"
            )
        values.extend(r)
    if above and clamp is not None:
        values.append(clamp)
    values = list(dict.fromkeys(values))
    note = None
    if above:
        note = (
            f"{option}: values above {clamp} ({clamp_what}) give the same counts "
            f"as {clamp}; clamped to it"
        )
    return values, note


def clamp_sizes(sizes: list[int], distinct_pages: int) -> tuple[list[int], bool]:
    """Sizes above `distinct_pages` replaced by it, duplicates removed; True if any was."""
    if distinct_pages < 1:
        return sizes, False
    clamped = [min(s, distinct_pages) for s in sizes]
    return list(dict.fromkeys(clamped)), clamped != sizes
