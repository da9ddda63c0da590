"""Sweep axes: `--grid key=v1,v2,...` or `--grid key=lo:hi:step` (inclusive), and their product."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence, Sized
from typing import Any

from ..errors import PagelabError
from .spec import lookup, parse_value, split_assignment

#: Float ranges stop within this fraction of a step past `hi` (0.1:0.3:0.1 includes 0.3).
RANGE_SLACK = 1e-9
#: Most runs one sweep may plan (grid points times seeds), counted before anything is
#: expanded: a run takes seconds, so 100,000 are already days of a machine; more is a typing
#: slip (`workload.users=1:10000000:1`), refused at once rather than validated for hours.
MAX_RUNS = 100_000


def parse_axis(arg: str) -> tuple[str, list[Any]]:
    """One `--grid` argument: its key and its values, in order."""
    key, text = split_assignment(arg, "--grid")
    if not text:
        raise PagelabError(f"--grid {arg!r}: no values: expected key=v1,v2 or key=lo:hi:step")
    if ":" in text and "," not in text:
        return key, _range(arg, text)
    values = [parse_value(v.strip()) for v in text.split(",")]
    if any(v == "" for v in values):
        raise PagelabError(f"--grid {arg!r}: an empty value: expected key=v1,v2,...")
    return key, _uniform(values)


def _range(arg: str, text: str) -> list[Any]:
    bits = [parse_value(b.strip()) for b in text.split(":")]
    numeric = all(isinstance(b, int | float) and not isinstance(b, bool) for b in bits)
    if len(bits) != 3 or not numeric:
        raise PagelabError(f"--grid {arg!r}: expected a range lo:hi:step of numbers")
    lo, hi, step = bits
    if not all(math.isfinite(b) for b in bits) or step <= 0 or hi < lo:
        raise PagelabError(f"--grid {arg!r}: expected finite numbers with lo <= hi and step > 0")
    ints = all(isinstance(b, int) for b in bits)
    n = (hi - lo) // step + 1 if ints else (hi - lo) / step + RANGE_SLACK + 1
    if not n <= MAX_RUNS:  # an infinite count too (-1.8e8:0:1e-300)
        shown = f"{n:,}" if ints else f"{n:.3g}"
        raise PagelabError(
            f"--grid {arg!r}: {shown} values; a sweep runs at most {MAX_RUNS:,}: "
            "give a coarser step"
        )
    if ints:
        return list(range(lo, hi + 1, step))
    return [round(lo + i * step, 12) for i in range(int(n))]


def _uniform(values: list[Any]) -> list[Any]:
    # One type per column: an axis mixing 1 and 0.5 is an axis of floats.
    if any(isinstance(v, float) for v in values) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in values
    ):
        return [float(v) for v in values]
    return values


def axes_of(grid: Mapping[str, Sequence[Any]] | Sequence[str] | None) -> dict[str, list[Any]]:
    """Axes from CLI strings or a mapping {key: values}; an axis without values is an error."""
    if grid is None:
        return {}
    if isinstance(grid, Mapping):
        axes = {str(k): _values(k, v) for k, v in grid.items()}
    elif isinstance(grid, str | bytes) or not isinstance(grid, Iterable):
        raise PagelabError(
            f"grid {grid!r}: expected a mapping {{key: [values]}} or a list of key=v1,v2 strings"
        )
    else:
        axes = dict(parse_axis(str(a)) for a in grid)
    for k, v in axes.items():
        if not v:
            raise PagelabError(f"--grid {k}: no values: expected at least one")
    return axes


def _values(key: Any, values: Any) -> list[Any]:
    """The values of one axis of a mapping grid: a list, tuple or range of numbers, strings
    or booleans (a single value is not an axis)."""
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise PagelabError(
            f"grid {key!r}: {values!r}: expected a list of values (write [{values!r}] for one)"
        )
    if isinstance(values, Sized) and len(values) > MAX_RUNS:
        raise PagelabError(f"grid {key!r}: {len(values):,} values; at most {MAX_RUNS:,}")
    out = list(values)
    for v in out:
        if not isinstance(v, bool | int | float | str) or (
            isinstance(v, float) and not math.isfinite(v)
        ):
            raise PagelabError(
                f"grid {key!r}: value {v!r}: expected a finite number, a string or a boolean"
            )
    return out


def count_runs(axes: Mapping[str, Sequence[Any]], seeds: int) -> int:
    """Grid points times seeds, computed from the axes' lengths, before the product is formed;
    a PagelabError above MAX_RUNS."""
    n = math.prod(len(v) for v in axes.values()) * seeds
    if n > MAX_RUNS:
        sizes = " x ".join(f"{len(v):,}" for v in axes.values())
        raise PagelabError(
            f"--grid: {sizes} points x {seeds:,} seeds = {n:,} runs; a sweep runs at most "
            f"{MAX_RUNS:,}: give fewer values or seeds"
        )
    return n


def check_keys(
    axes: Mapping[str, Any], tree: dict[str, Any], spec_name: str, option: str = "--grid"
) -> None:
    """Every axis must vary a key the spec has; a misspelt key fails before anything runs.
    `option` is the user's word for the keys (`--grid`, `--vary`, `--tie`)."""
    for key in axes:
        try:
            lookup(tree, key)
        except KeyError:
            raise PagelabError(
                f"{option} {key}: {spec_name} has no such key (expected a key path it sets, "
                "e.g. workload.users; give a new key with --set first)"
            ) from None


def points(axes: Mapping[str, list[Any]]) -> list[dict[str, Any]]:
    """The product of the axes, first axis slowest; one empty point when there is no axis."""
    keys = list(axes)
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*axes.values())]


def to_override(key: str, value: Any) -> str:
    """`key=value` in TOML, as `--set` takes it."""
    if isinstance(value, bool):
        return f"{key}={'true' if value else 'false'}"
    if isinstance(value, int | float):
        return f"{key}={value!r}"
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        return f'{key}="{escaped}"'
    raise PagelabError(f"--grid {key}: value {value!r}: expected a number, string or boolean")
