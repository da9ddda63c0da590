"""The metrics a system run reports: name, unit, meaning, and which systems produce them.

The catalogue is not a second list to keep in step with the engines: it is read from the
engines themselves, by running every shipped preset for a short simulated time and collecting
the metrics each report carries (every engine builds its report with `put_metric`, which
records unit and meaning beside the value), and the presets again with each optional mechanism
no preset switches on (`OPTIONAL`). A metric appears under each system kind (`[system] kind`:
vm, unix, m44) whose runs produce it.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from typing import Any

from . import _core, system

#: The range of a metric whose unit makes it a share of a whole: per cent or a fraction.
SHARE_UNITS = {"%": (0.0, 100.0), "fraction": (0.0, 1.0)}
#: Metrics in per cent that are no share: PCTRMM = 100 (MM - PN·PS)/MM (Chanson §3) is below 0
#: when the processes do not fit in memory.
NOT_SHARES = frozenset({"pctrmm"})


def domain(name: str, unit: str) -> tuple[float, float] | None:
    """The values metric `name` in `unit` can take when it is a share (0-100 %, or a fraction
    from 0 to 1), else None: an interval of its mean is clipped to it."""
    return None if name in NOT_SHARES else SHARE_UNITS.get(unit)


# A short run is enough: which metrics a report carries does not depend on how long it ran.
_SHORT_S = 120.0
_SHORT_WARMUP_S = 20.0


#: Mechanisms no shipped preset switches on, each run once on a preset that can take it, so
#: that the metrics only they report are catalogued too.
OPTIONAL = [
    ("vm370", ["memory.zswap.max_pool_percent=20"]),
    ("vm370", ["paging.page_cluster=1"]),
    ("vm370", ["paging.page_cluster=3", "paging.readahead_window=adaptive"]),
]


def _short_run_overrides(preset: dict[str, Any]) -> list[tuple[str, str]]:
    """`run.duration_s` and `run.warmup_s` cut to a short run, if the preset has a clock."""
    run = preset.get("run") or {}
    if "duration_s" not in run:
        return []  # a batch system (the M44) runs until its jobs end
    duration = min(float(run["duration_s"]), _SHORT_S)
    warmup = min(float(run.get("warmup_s", 0.0)), _SHORT_WARMUP_S, duration / 2)
    return [("run.duration_s", repr(duration)), ("run.warmup_s", repr(warmup))]


def catalogue(on_preset: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """Every metric of every preset's report, sorted by name: ``name``, ``unit``,
    ``description``, ``systems`` (the kinds that produce it) and ``presets``.

    A metric whose unit differs between engines is listed once per unit, so a clash shows.
    """
    found: dict[tuple[str, str], dict[str, Any]] = {}
    runs = [(p, p["name"], []) for p in system.presets()]
    by_name = {p["name"]: p for p in system.presets()}
    runs += [(by_name[n], f"{n} {' '.join(o)}", o) for n, o in OPTIONAL if n in by_name]
    for p, label, extra in runs:
        if on_preset is not None:
            on_preset(label)
        with open(p["file"], "rb") as f:
            preset = tomllib.load(f)
        text = system.resolve_spec_path(p["name"]).read_text()
        overrides = _short_run_overrides(preset) + [tuple(o.split("=", 1)) for o in extra]
        report = json.loads(_core.run_system(text, p["file"], overrides, 1, lambda _f: None))
        # The resolved spec: a preset that extends another inherits its kind.
        kind = str(report.get("spec", {}).get("system", {}).get("kind", "?"))
        for name, m in report.get("metrics", {}).items():
            row = found.setdefault(
                (name, m.get("unit", "")),
                {
                    "name": name,
                    "unit": m.get("unit", ""),
                    "description": m.get("description", ""),
                    "systems": [],
                    "presets": [],
                },
            )
            if kind not in row["systems"]:
                row["systems"].append(kind)
            row["presets"].append(label)
    return [found[k] for k in sorted(found)]
