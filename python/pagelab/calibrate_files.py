"""The files a calibration reads and writes, checked before its search: the inputs it must
never write over, its outputs, and the provenance's paths."""

from __future__ import annotations

import math
from pathlib import Path

from . import _atomic
from .errors import PagelabError


def resolve_spec_path(preset: str) -> Path:
    from . import system

    return system.resolve_spec_path(preset)


def _portable(path: Path) -> str:
    """`path` relative to the working directory when under it (a preset of the checkout), so
    that the provenance reads the same on every machine; else as given."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


#: Default `near` ratio: twice the best loss, a root-mean-square error √2 times the best's.
NEAR_RATIO = 2.0
#: Default `near` floor, as a root-mean-square relative error: a fit within 5 % of every paper
#: number is as good as the paper's printed and measured numbers can tell (Chanson's runs
#: differ by up to 5 %, Bard's by two points in 30 to 60), however exact the best fit.
NEAR_ERROR = 0.05


def check_near(ratio: float, error: float) -> None:
    """Refuses a `--near` ratio below 1 or a `--near-error` below 0, in one line."""
    if not (math.isfinite(ratio) and ratio >= 1.0):
        raise PagelabError(f"--near {ratio}: expected a ratio of losses of at least 1")
    if not (math.isfinite(error) and error >= 0.0):
        raise PagelabError(f"--near-error {error}: expected a relative error of 0 or more")


def inputs_of(preset: str, target: str | Path) -> list[Path]:
    """The files a calibration reads and must never write over: the target, the preset it
    starts from and the presets that one extends."""
    from .sweep.spec import extends_chain

    return [Path(target), *extends_chain(resolve_spec_path(preset))]


def check_outputs(preset: str, target: str | Path, out: str | Path) -> None:
    """Refuses, before the search, an `--out` (or the trial table beside it) that is the
    target, the starting preset or one of its parents, or not a regular file."""
    inputs = inputs_of(preset, target)
    _atomic.check_output(out, inputs=inputs, option="--out")
    _atomic.check_output(trials_path(out), inputs=inputs, option="--out's trial table")


def trials_path(out: str | Path) -> Path:
    """Where `pagelab calibrate --out OUT` writes its trial table: OUT's name, `.trials.parquet`."""
    out = Path(out)
    return out.with_name(out.stem + ".trials.parquet")
