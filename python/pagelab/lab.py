"""The replacement lab: policies over reference strings, curves for every memory size.

Two levels:

* one call runs policies over a trace at many sizes (:func:`curve`), or every size in one pass
  (:func:`lru_curve`, :func:`opt_curve`, :func:`ws_curve`);
* a step-by-step object (:class:`Stepper`) shows the frame table after each reference.

>>> import pagelab
>>> rows = pagelab.curve([1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5], ["fifo"], [3, 4])
>>> [r["faults"] for r in rows]
[9, 10]
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Sequence
from typing import Any

from . import _core, validate
from .errors import PagelabError
from .frames import Curve, Rows

#: Default constants of the M44 run-time model (Brawn & Gustavson 1968, "The real computer").
M44_REFERENCE_TIME_S = 10e-6
M44_PAGE_TIME_S = 0.21

TraceLike = str | os.PathLike[str] | Sequence[int]


def parse_policy(text: str) -> dict[str, Any]:
    """Parses `name[:key=value[:key=value...]]` into a policy spec.

    >>> parse_policy("ws:tau=5000")
    {'kind': 'ws', 'tau': 5000}
    """
    name, *params = text.strip().split(":")
    if not name:
        raise PagelabError(f"policy {text!r}: expected a name such as lru, fifo or ws:tau=1000")
    spec: dict[str, Any] = {"kind": name.lower()}
    for p in params:
        key, sep, value = p.partition("=")
        if not sep or not key:
            raise PagelabError(f"policy {text!r}: parameter {p!r} is not of the form key=value")
        spec[key.replace("-", "_")] = _number(value)
    return spec


def _number(value: str) -> Any:
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    return value


def _spec_json(policy: str | dict[str, Any]) -> str:
    if not isinstance(policy, str | dict):
        raise PagelabError(f"policy {policy!r}: expected a name such as lru or a spec dict")
    try:
        return json.dumps(parse_policy(policy) if isinstance(policy, str) else policy)
    except (TypeError, ValueError) as e:
        raise PagelabError(f"policy {policy!r}: not JSON data ({e})") from None


def policies() -> list[dict[str, Any]]:
    """Every replacement policy: name, aliases, summary, citation, parameters."""
    return _core.policies()


def _call(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except (ValueError, OverflowError) as e:
        raise PagelabError(str(e)) from None


def curve(
    trace: TraceLike,
    policies: Sequence[str | dict[str, Any]],
    sizes: Sequence[int],
    *,
    warmup: int = 0,
    writes: Sequence[bool] | None = None,
) -> Rows:
    """Runs each policy over `trace` at each size; one row per (policy, frames).

    `trace` is a pagelab trace file or a list of page numbers (with optional `writes`).
    Rows: policy, frames, references, faults, pushes, fault_rate, and warm-up counts; a list
    of dicts that `.to_frame()` makes a pandas DataFrame (`.to_polars()` a polars one).
    """
    if isinstance(trace, str | os.PathLike):
        return Rows(curve_trace(trace, policies, sizes, warmup=warmup)["rows"])
    sizes = validate.points(sizes, "sizes (frames)", lo=1, hi=validate.U32_MAX)
    warmup = validate.integer(warmup, "warmup")
    if isinstance(policies, str):
        policies = [policies]
    trace = validate.integers(trace, "trace", hi=validate.U32_MAX)
    if writes is not None:
        writes = [bool(w) for w in writes]
        if len(writes) != len(trace):
            raise PagelabError(f"writes: {len(writes)} flags for {len(trace)} references")
    sizes = _clamp_sizes(sizes, len(set(trace)))
    rows = Rows()
    for policy in policies:
        out = _call(_core.simulate_pages, _spec_json(policy), trace, writes, sizes, warmup)
        label = policy if isinstance(policy, str) else json.dumps(policy)
        for r in out:
            r["policy"] = label
        rows.extend(out)
    return rows


def _clamp_sizes(sizes: list[int], distinct: int) -> list[int]:
    sizes, clamped = validate.clamp_sizes(sizes, distinct)
    if clamped:
        warnings.warn(
            f"sizes above {distinct} (the trace's distinct pages) give the same counts as "
            f"{distinct}; clamped to it",
            stacklevel=3,
        )
    return sizes


def curve_trace(
    trace: str | os.PathLike[str],
    policies: Sequence[str | dict[str, Any]],
    sizes: Sequence[int],
    *,
    warmup: int = 0,
) -> dict[str, Any]:
    """As `curve` over a trace file, which is decoded once for every (policy, size), the
    simulations spread over the cores. Returns `rows` and `memory`: what the shared decode held
    (`blocks`, `next_use` [bytes], `cells`, `chunks_decoded`)."""
    sizes = validate.points(sizes, "sizes (frames)", lo=1, hi=validate.U32_MAX)
    warmup = validate.integer(warmup, "warmup")
    if isinstance(policies, str):
        policies = [policies]
    distinct = _call(_core.trace_info, os.fspath(trace))["distinct_pages"]
    sizes = _clamp_sizes(sizes, distinct)
    specs = [_spec_json(policy) for policy in policies]
    out = _call(_core.simulate_trace, specs, os.fspath(trace), sizes, warmup)
    for i, r in enumerate(out["rows"]):
        policy = policies[i // len(sizes)]
        r["policy"] = policy if isinstance(policy, str) else json.dumps(policy)
    return out


def lru_curve(trace: str | os.PathLike[str], *, warmup: int = 0) -> Curve:
    """LRU faults and pushes for every memory size, in one pass (Mattson et al. 1970);
    `.to_frame()` gives its rows as a DataFrame."""
    return Curve(_call(_core.lru_curve, os.fspath(trace), validate.integer(warmup, "warmup")))


def opt_curve(
    trace: str | os.PathLike[str], *, warmup: int = 0, max_frames: int | None = None
) -> Curve:
    """MIN (OPT) faults for every memory size up to `max_frames`, in one pass."""
    warmup = validate.integer(warmup, "warmup")
    if max_frames is not None:
        max_frames = validate.integer(max_frames, "max_frames", lo=1, hi=validate.U32_MAX)
    return Curve(_call(_core.opt_curve, os.fspath(trace), warmup, max_frames))


def ws_curve(trace: str | os.PathLike[str], taus: Sequence[int]) -> Curve:
    """Mean working-set size and fault rate against the window τ [references], in one pass."""
    taus = validate.points(taus, "taus", lo=1, hi=validate.U64_MAX)
    # A window longer than the string holds the whole string: the same point as τ = length.
    length = _call(_core.trace_info, os.fspath(trace))["references"]
    taus, clamped = validate.clamp_sizes(taus, length)
    if clamped:
        warnings.warn(
            f"taus above {length} (the trace's references) give the same point as {length}; "
            "clamped to it",
            stacklevel=2,
        )
    return Curve(_call(_core.ws_curve, os.fspath(trace), taus))


def m44_run_time(
    references: int,
    pulls: int,
    *,
    reference_time_s: float = M44_REFERENCE_TIME_S,
    page_time_s: float = M44_PAGE_TIME_S,
) -> float:
    """Run time [s] = references x reference time + pulls x page time (Brawn & Gustavson 1968)."""
    return references * reference_time_s + pulls * page_time_s


class Stepper:
    """Feeds a reference string to one policy one reference at a time.

    >>> s = Stepper("fifo", 3, [1, 2, 3, 4])
    >>> [step["fault"] for step in s]
    [True, True, True, True]
    >>> s.last["victim"]
    1
    """

    def __init__(
        self,
        policy: str | dict[str, Any],
        frames: int,
        pages: Sequence[int],
        writes: Sequence[bool] | None = None,
    ) -> None:
        frames = validate.integer(frames, "frames", lo=1, hi=validate.U32_MAX)
        pages = validate.integers(pages, "pages", hi=validate.STEP_MAX_PAGE)
        if not pages:
            raise PagelabError("pages: expected at least one reference")
        distinct = len(set(pages))
        if frames > distinct:
            # More frames than pages cannot change a fault; the table would only grow empty.
            warnings.warn(
                f"frames {frames}: the string has {distinct} distinct pages; clamped to it",
                stacklevel=2,
            )
            frames = distinct
        self._inner = _call(
            _core.Stepper,
            _spec_json(policy),
            frames,
            pages,
            None if writes is None else [bool(w) for w in writes],
        )
        self.last: dict[str, Any] | None = None

    def step(self) -> dict[str, Any] | None:
        """The next reference (page, fault, victim, frame table after it), or None at the end."""
        result = self._inner.step()
        if result is not None:
            self.last = result
        return result

    def __iter__(self) -> Stepper:
        return self

    def __next__(self) -> dict[str, Any]:
        result = self.step()
        if result is None:
            raise StopIteration
        return result


#: CPU time of one reference for the Ψ-realization [s] (presets/cp67.toml, `cpu.reference_ns`).
PSI_REFERENCE_TIME_S = 2e-6


def psi_curve(
    trace: str | os.PathLike[str],
    psis: Sequence[int] = tuple(range(0, 31)),
    *,
    reference_time_s: float = PSI_REFERENCE_TIME_S,
    refs_per_io: int = 0,
) -> dict[str, Any]:
    """Bard's program characterization: for each Ψ the mean resident set A [pages], page
    exceptions per CPU second R, mean execution interval t [s] and fraction f of intervals
    ending in a page exception, with the break Ψ_c and the exponent β past it (Bard 1975 §3, §7).
    """
    psis = validate.points(psis, "psis", lo=0, hi=validate.U32_MAX)
    reference_time_s = validate.positive_float(reference_time_s, "reference_time_s")
    refs_per_io = validate.integer(refs_per_io, "refs_per_io")
    return _call(_core.psi_curve, os.fspath(trace), psis, reference_time_s, refs_per_io)


def psi_predict(characteristics: Sequence[dict[str, Any]], frames: int) -> dict[str, Any]:
    """Ψ* solving Σ A_i(Ψ*) = N and the system paging rate (Bard 1975 §4, eq. 1-3)."""
    frames = validate.integer(frames, "frames", lo=1, hi=validate.U32_MAX)
    try:
        text = json.dumps(list(characteristics))
    except (TypeError, ValueError) as e:
        raise PagelabError(f"characteristics: not JSON data ({e})") from None
    return _call(_core.psi_predict, text, frames)
