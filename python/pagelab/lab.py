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
from collections.abc import Sequence
from typing import Any

from . import _core
from .errors import PagelabError

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
    return json.dumps(parse_policy(policy) if isinstance(policy, str) else policy)


def policies() -> list[dict[str, Any]]:
    """Every replacement policy: name, aliases, summary, citation, parameters."""
    return _core.policies()


def _call(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except ValueError as e:
        raise PagelabError(str(e)) from None


def curve(
    trace: TraceLike,
    policies: Sequence[str | dict[str, Any]],
    sizes: Sequence[int],
    *,
    warmup: int = 0,
    writes: Sequence[bool] | None = None,
) -> list[dict[str, Any]]:
    """Runs each policy over `trace` at each size; one row per (policy, frames).

    `trace` is a pagelab trace file or a list of page numbers (with optional `writes`).
    Rows: policy, frames, references, faults, pushes, fault_rate, and warm-up counts.
    """
    if not sizes:
        raise PagelabError("sizes: expected at least one number of frames")
    labels = [policy if isinstance(policy, str) else json.dumps(policy) for policy in policies]
    if isinstance(trace, str | os.PathLike):
        return curve_trace(trace, policies, sizes, warmup=warmup)["rows"]
    rows: list[dict[str, Any]] = []
    for policy, label in zip(policies, labels, strict=True):
        out = _call(
            _core.simulate_pages,
            _spec_json(policy),
            [int(p) for p in trace],
            None if writes is None else [bool(w) for w in writes],
            list(sizes),
            warmup,
        )
        for r in out:
            r["policy"] = label
        rows.extend(out)
    return rows


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
    if not sizes:
        raise PagelabError("sizes: expected at least one number of frames")
    specs = [_spec_json(policy) for policy in policies]
    out = _call(_core.simulate_trace, specs, os.fspath(trace), list(sizes), warmup)
    for i, r in enumerate(out["rows"]):
        policy = policies[i // len(sizes)]
        r["policy"] = policy if isinstance(policy, str) else json.dumps(policy)
    return out


def lru_curve(trace: str | os.PathLike[str], *, warmup: int = 0) -> dict[str, Any]:
    """LRU faults and pushes for every memory size, in one pass (Mattson et al. 1970)."""
    return _call(_core.lru_curve, os.fspath(trace), warmup)


def opt_curve(
    trace: str | os.PathLike[str], *, warmup: int = 0, max_frames: int | None = None
) -> dict[str, Any]:
    """MIN (OPT) faults for every memory size up to `max_frames`, in one pass."""
    return _call(_core.opt_curve, os.fspath(trace), warmup, max_frames)


def ws_curve(trace: str | os.PathLike[str], taus: Sequence[int]) -> dict[str, Any]:
    """Mean working-set size and fault rate against the window τ [references], in one pass."""
    return _call(_core.ws_curve, os.fspath(trace), list(taus))


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
        self._inner = _call(
            _core.Stepper,
            _spec_json(policy),
            frames,
            [int(p) for p in pages],
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
    return _call(_core.psi_curve, os.fspath(trace), list(psis), reference_time_s, refs_per_io)


def psi_predict(characteristics: Sequence[dict[str, Any]], frames: int) -> dict[str, Any]:
    """Ψ* solving Σ A_i(Ψ*) = N and the system paging rate (Bard 1975 §4, eq. 1-3)."""
    return _call(_core.psi_predict, json.dumps(list(characteristics)), frames)
