"""Paired statistics for a paper's claims: common random numbers over seeds, an interval, a verdict.

Base and treatment run with the same seeds, so each seed gives one paired effect (the
treatment's relative change `t/b - 1`, or the difference `t - b`, or any per-seed statistic a
reproduction computes). Over the seeds: the mean effect with a 95 % interval, Student's t
(the ratio on the log scale), or a BCa bootstrap where the effects are skewed and there are
enough seeds for a bootstrap to mean anything.

The verdict compares the interval with the paper's effect and a band around it (±25 % of the
paper's effect unless the claim gives its own):

- `inconclusive`: the interval straddles 0;
- `fails`: the interval lies on the other side of 0 from the paper's effect;
- `holds`: the sign is the paper's and the interval reaches the band;
- `direction-only`: the sign is the paper's, the magnitude is outside the band.

A claim that holds is also told apart by whether its mean effect lies in the band
(`mean_in_band`), or only its interval reaches it.

A paper that states a direction without a number has the whole half-line as its band. A paper
that states *no* difference ("differed little") gives an absolute band around 0: the claim holds
when the interval lies inside it, fails when it lies wholly outside, and is inconclusive between.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

VERDICTS = ("holds", "direction-only", "fails", "inconclusive")
#: The paper's band, as a fraction of its effect, unless a claim states another.
DEFAULT_BAND = 0.25
#: Confidence of the intervals.
LEVEL = 0.95
#: Bootstrap only from this many seeds, and only for effects this skewed.
BOOTSTRAP_MIN_N = 8
BOOTSTRAP_SKEW = 1.0
KINDS = ("relative", "difference")

Band = float | tuple[float, float]


@dataclass(frozen=True)
class Estimate:
    """A mean effect over seeds with its interval (None, None with fewer than two seeds)."""

    effect: float
    interval: tuple[float | None, float | None]
    n: int
    method: str


def effects(base: Sequence[float], treatment: Sequence[float], kind: str) -> list[float]:
    """Per-seed paired effects: relative change `t/b - 1` or difference `t - b`."""
    if len(base) != len(treatment):
        raise ValueError(f"paired runs: {len(base)} base and {len(treatment)} treatment seeds")
    if kind == "difference":
        return [t - b for b, t in zip(base, treatment, strict=True)]
    if kind == "relative":
        # A seed whose base is 0 has no relative change: NaN, left out of the estimate.
        return [t / b - 1 if b else math.nan for b, t in zip(base, treatment, strict=True)]
    raise ValueError(f"kind {kind!r}: expected one of {', '.join(KINDS)}")


def estimate(values: Sequence[float], *, relative: bool = False, exact: bool = False) -> Estimate:
    """Mean of per-seed `values` with a 95 % interval.

    `relative` effects (ratios minus one) are averaged and bounded on the log scale when every
    ratio is positive, so that halving and doubling weigh alike. An `exact` effect is computed
    without any random stream (a trace-lab count): one value, its own interval.
    """
    # A seed without the measure (NaN: nothing finished, nothing to divide by) is left out.
    xs = [float(v) for v in values if v is not None and math.isfinite(v)]
    n = len(xs)
    if n == 0:
        return Estimate(math.nan, (None, None), 0, "no seed with a value")
    logs = relative and all(x > -1 for x in xs)
    ys = [math.log1p(x) for x in xs] if logs else xs
    mean = sum(ys) / n
    back = math.expm1 if logs else (lambda v: v)
    if exact and len(set(xs)) == 1:
        return Estimate(xs[0], (xs[0], xs[0]), n, "exact")
    if n < 2:
        return Estimate(back(mean), (None, None), n, "one seed")
    lo, hi, method = _interval(ys, mean)
    return Estimate(back(mean), (back(lo), back(hi)), n, method + (" (log ratio)" if logs else ""))


def _interval(ys: list[float], mean: float) -> tuple[float, float, str]:
    """Student's t interval in plain Python (:mod:`.plainstats`: the same bits with or without
    scipy); a BCa bootstrap from scipy where many seeds give skewed effects."""
    from .plainstats import skewness, t_quantile

    n = len(ys)
    sd = math.sqrt(sum((y - mean) ** 2 for y in ys) / (n - 1))
    if sd == 0:
        return mean, mean, "all seeds equal"
    if n >= BOOTSTRAP_MIN_N and abs(skewness(ys)) > BOOTSTRAP_SKEW:
        from .. import extras

        extras.need("bootstrap", f"a bootstrap interval over {n} skewed seed effects")
        import numpy as np
        from scipy import stats

        res = stats.bootstrap(
            (np.array(ys),),
            np.mean,
            confidence_level=LEVEL,
            method="BCa",
            rng=np.random.default_rng(0),
        )
        return float(res.confidence_interval.low), float(res.confidence_interval.high), "bootstrap"
    half = t_quantile(0.5 + LEVEL / 2, n - 1) * sd / math.sqrt(n)
    return mean - half, mean + half, "t"


def band_of(
    paper_effect: float | None, band: Band | None, direction: int | None
) -> tuple[float, float]:
    """The range of effects that match the paper."""
    if isinstance(band, tuple):
        lo, hi = band
        return (min(lo, hi), max(lo, hi))
    frac = DEFAULT_BAND if band is None else band
    if paper_effect is None:
        if direction not in (-1, 1):
            raise ValueError("a claim without the paper's effect needs direction +1 or -1")
        return (0.0, math.inf) if direction > 0 else (-math.inf, 0.0)
    a, b = paper_effect * (1 - frac), paper_effect * (1 + frac)
    return (min(a, b), max(a, b))


def verdict(
    interval: tuple[float | None, float | None],
    paper_effect: float | None,
    *,
    band: Band | None = None,
    direction: int | None = None,
) -> str:
    """The claim's verdict from our interval and the paper's effect (see the module's text)."""
    lo, hi = interval
    b_lo, b_hi = band_of(paper_effect, band, direction)
    sign = direction if paper_effect is None else _sign(paper_effect)
    if lo is None or hi is None:
        return "inconclusive"
    if sign == 0:
        if b_lo <= lo and hi <= b_hi:
            return "holds"
        if hi < b_lo or lo > b_hi:
            return "fails"
        return "inconclusive"
    if lo <= 0 <= hi:
        return "inconclusive"
    if (lo > 0) != (sign > 0):
        return "fails"
    return "holds" if hi >= b_lo and lo <= b_hi else "direction-only"


def mean_in_band(effect: float | None, band: Sequence[float | None] | None) -> bool:
    """Whether the mean effect itself lies in the paper's band (None ends are open). A claim
    holds when its interval reaches the band; with few seeds a wide interval can reach it while
    the mean lies outside, and this tells the two apart."""
    if effect is None or band is None or not math.isfinite(effect):
        return False
    lo, hi = band
    return (lo is None or effect >= lo) and (hi is None or effect <= hi)


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)
