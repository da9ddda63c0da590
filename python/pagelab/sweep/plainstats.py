"""The few statistics a reproduction needs, in plain Python: Student's t quantile, skewness, a rank
correlation and a least-squares slope.

They run the same with or without numpy and scipy (the `[sweep]` extra), so a reproduction at
smoke scale in the core install gives the record it gives with every extra, to the last bit.
Each agrees with scipy's function to within a few units in the last place (tests/test_paired.py
checks them against it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile: the t with P(T <= t) = `p` for `df` degrees of freedom (an integer
    >= 1), by bisection on the exact finite series of the distribution function."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"t quantile: p {p!r} not in (0, 1)")
    if df < 1 or int(df) != df:
        raise ValueError(f"t quantile: {df!r} degrees of freedom, expected a whole number >= 1")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    # P(|T| <= t) = 2p - 1, an increasing function of t from 0: bisect down to adjacent floats.
    level = 2.0 * p - 1.0
    lo, hi = 0.0, 1.0
    while _central(hi, int(df)) < level:
        lo, hi = hi, 2.0 * hi
    while True:
        mid = lo + (hi - lo) / 2.0
        if mid in (lo, hi):
            return hi
        if _central(mid, int(df)) < level:
            lo = mid
        else:
            hi = mid


def _central(t: float, df: int) -> float:
    """P(|T| <= t) for Student's t with `df` degrees of freedom (Abramowitz and Stegun 26.7.3
    and 26.7.4: a sum of df/2 terms in the angle theta = atan(t / sqrt(df)))."""
    theta = math.atan(t / math.sqrt(df))
    s, c2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2 == 0:
        term = total = 1.0
        for k in range(2, df - 1, 2):  # (1·3···(k-1)) / (2·4···k) · cos^k
            term *= c2 * (k - 1) / k
            total += term
        return s * total
    if df == 1:
        return 2.0 * theta / math.pi
    term = total = 1.0
    for k in range(3, df - 1, 2):  # (2·4···(k-1)) / (1·3···k) · cos^(k-1)
        term *= c2 * (k - 1) / k
        total += term
    return 2.0 / math.pi * (theta + s * math.cos(theta) * total)


def skewness(xs: Sequence[float]) -> float:
    """The sample skewness m3 / m2^1.5 (scipy.stats.skew's default, biased); 0 with no spread."""
    n = len(xs)
    mean = sum(xs) / n
    m2 = sum((x - mean) ** 2 for x in xs) / n
    m3 = sum((x - mean) ** 3 for x in xs) / n
    return m3 / m2**1.5 if m2 > 0 else 0.0


def ranks(xs: Sequence[float]) -> list[float]:
    """Ranks from 1, tied values sharing their mean rank."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    out = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return out


def correlation(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Pearson's correlation; NaN where either has no spread."""
    if len(xs) != len(ys) or len(xs) < 2:
        raise ValueError(f"correlation: {len(xs)} and {len(ys)} values, expected equal, >= 2")
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return math.nan
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


def rank_correlation(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Spearman's rank correlation: Pearson's on the ranks."""
    return correlation(ranks(xs), ranks(ys))


def slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """The least-squares slope of `ys` on `xs`."""
    if len(xs) != len(ys) or len(xs) < 2:
        raise ValueError(f"slope: {len(xs)} and {len(ys)} values, expected equal, >= 2")
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        raise ValueError("slope: every x is the same")
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
