"""The setting of Bard's simulation study (Bard 1975, section 11), shared by the psi-table*
reproductions: 40 logged-on users for 660 simulated seconds on CP-67 (presets/cp67.toml and
presets/cp67-psi.toml), three workloads, 768 KB and 512 KB of main storage, 2301 drums.

The paper's scenario (assemblies, compilations, object programs, APL functions, file editing)
is not published; its members here are the engine's locality programs, one class per kind,
with demands we chose [A]. Workload 1 has no compute-bound programs, workload 2 some (4 of 40
users), workload 3 more (10 of 40).

Storage: 768 KB leaves about 130 pageable frames (Bard section 6), so CP's fixed storage is
about 62 frames; 512 KB therefore leaves 128 - 62 = 66 [I].
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from .. import system

FRAMES = {768: 130, 512: 66}
#: Table 1: Ψc = Ψm = 13 for 768 KB, 11 for 512 KB.
PSI_DEFAULT = {768: 13.0, 512: 11.0}

_LOC = {"runs_per_phase": 30, "refs_per_run": 200.0, "write_fraction": 0.3}


def _cms(set_pages: int, address: int, overlap: float, loc: int) -> dict[str, Any]:
    return {
        "kind": "cms",
        "set_pages": set_pages,
        "address_pages": address,
        "overlap": overlap,
        "locality_pages": loc,
        **_LOC,
    }


def _cls(name: str, think: dict, cmd: dict, program: dict) -> dict[str, Any]:
    return {"name": name, "think": think, "commands": [{"name": name, **cmd}], "program": program}


def _exp(mean: float) -> dict[str, Any]:
    return {"kind": "exponential", "mean_s": mean}


#: One class per kind of program in Bard's scenario [A: demands ours].
KINDS = {
    "edit": _cls(
        "edit",
        _exp(10.0),
        {"cpu_ms": 80.0, "vio": 3, "console_writes": 1, "console_write_ms": 100.0},
        _cms(8, 14, 0.8, 4),
    ),
    "apl": _cls(
        "apl",
        _exp(15.0),
        {"cpu_ms": 400.0, "vio": 4, "console_writes": 2, "console_write_ms": 100.0},
        _cms(16, 30, 0.9, 6),
    ),
    "assemble": _cls(
        "assemble",
        _exp(20.0),
        {"cpu_ms": 1500.0, "vio": 30, "console_writes": 1, "console_write_ms": 100.0},
        _cms(24, 40, 0.6, 8),
    ),
    "compile": _cls(
        "compile",
        _exp(20.0),
        {"cpu_ms": 3000.0, "vio": 40, "console_writes": 1, "console_write_ms": 100.0},
        _cms(32, 60, 0.5, 10),
    ),
    "compute": _cls(
        "compute",
        {"kind": "fixed", "s": 2.0},
        {"cpu_ms": 20000.0, "vio": 20},
        {
            "kind": "drifting",
            "set_pages": 30,
            "address_pages": 120,
            "drift": 0.05,
            "locality_pages": 12,
            "runs_per_phase": 100,
            "refs_per_run": 200.0,
            "write_fraction": 0.4,
        },
    ),
}

#: Users of each kind out of 40, per workload (section 11: none, some, more compute-bound).
WORKLOADS = {
    1: {"edit": 16, "apl": 8, "assemble": 8, "compile": 8},
    2: {"edit": 14, "apl": 8, "assemble": 7, "compile": 7, "compute": 4},
    3: {"edit": 12, "apl": 6, "assemble": 6, "compile": 6, "compute": 10},
}


#: Smoke scale: a shorter run with a shorter warm-up.
SMOKE = {"duration_s": 150.0, "warmup_s": 30.0}
FULL = {"duration_s": 660.0, "warmup_s": 60.0}


def toml_inline(v: Any) -> str:
    """A Python value as an inline TOML value (for `--set key=value` overrides)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {toml_inline(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list | tuple):
        return "[" + ", ".join(toml_inline(x) for x in v) + "]"
    raise TypeError(f"no TOML form for {v!r}")


def overrides(
    workload: int, kb: int, *, full: bool, load_control: dict[str, Any] | None = None
) -> list[str]:
    """The `--set` overrides of one cell; `load_control` replaces the preset's controller."""
    scale = FULL if full else SMOKE
    counts = WORKLOADS[workload]
    users = sum(counts.values())
    classes = [{**KINDS[k], "fraction": n / users} for k, n in counts.items()]
    out = [
        f"run.duration_s={scale['duration_s']}",
        f"run.warmup_s={scale['warmup_s']}",
        f"memory.frames={FRAMES[kb]}",
        f"workload.users={users}",
        f"workload.class={toml_inline(classes)}",
    ]
    if load_control is not None:
        out.append(f"load_control={toml_inline(load_control)}")
    return out


def psi_controller(kb: int, **params: Any) -> dict[str, Any]:
    """The Ψ-scheduler with Table 1 defaults for `kb`, then `params`."""
    lc: dict[str, Any] = {"kind": "psi", "psi_c": PSI_DEFAULT[kb], "psi_m": PSI_DEFAULT[kb]}
    lc.update(params)
    return lc


def cell(
    workload: int, kb: int, *, full: bool, load_control: dict[str, Any] | None = None
) -> tuple[str, list[str]]:
    """The preset and overrides of one cell: CP-67's scheduler when `load_control` is None."""
    preset = "cp67" if load_control is None else "cp67-psi"
    return preset, overrides(workload, kb, full=full, load_control=load_control)


def problem_state(report: dict[str, Any]) -> float:
    return float(report["metrics"]["problem_state_pct"]["value"])


def intervals(report: dict[str, Any]) -> list[dict[str, float]]:
    """Monitor intervals after the warm-up with a positive length."""
    warm = float(report["spec"]["run"]["warmup_s"])
    return [
        r
        for r in system.interval_rows(report)
        if r["time_s"] > 0 and r["t_end_s"] - r["time_s"] >= warm - 1e-9
    ]


def mean_sd(xs: Sequence[float]) -> tuple[float, float]:
    n = len(xs)
    if n == 0:
        return math.nan, math.nan
    m = sum(xs) / n
    if n == 1:
        return m, 0.0
    return m, math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))


def correlation(xs: Sequence[float], ys: Sequence[float]) -> float:
    n = len(xs)
    if n < 3:
        return math.nan
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else math.nan


def psi_pairs(
    reports: Sequence[dict[str, Any]], upper: float = 20.0, exact: str = "psi_s"
) -> list[tuple[float, float]]:
    """(Ψs*, Ψs) of every interval with 0 < Ψs* ≤ `upper` (Bard section 5's range); `exact`
    names the interval column of Ψs (`psi_s`, or `psi_s_stolen` over stolen pages only)."""
    out = []
    for rep in reports:
        for r in intervals(rep):
            est, ex = r.get("psi_s_star"), r.get(exact)
            if est is None or ex is None or not (0 < est <= upper):
                continue
            out.append((float(est), float(ex)))
    return out
