"""A fitted preset as a reproduction uses it: its `[provenance]` (written by `pagelab calibrate`,
python/pagelab/calibrate.py), read in one place, and the record's `fitted` block made from it.

Every reproduction that runs on a fitted preset calls :meth:`pagelab.reproduce.Context.use_fit`,
which fills the block (preset, keys, the keys its search held fixed, target, loss, trials) and
returns the provenance; `near_fits` gives the trials the search kept beside its best
(`pagelab calibrate --near`).
"""

from __future__ import annotations

import tomllib
from typing import Any


def provenance(preset: str) -> dict[str, Any]:
    """The `[provenance]` table of the fitted preset `preset` (a name or a path)."""
    from .system import resolve_spec_path

    with resolve_spec_path(preset).open("rb") as f:
        return tomllib.load(f)["provenance"]


def keys(prov: dict[str, Any]) -> list[str]:
    """The fitted keys (`key@group` for a key fitted for one group of points)."""
    if "key" in prov:
        return [k["key"] + (f"@{k['group']}" if "group" in k else "") for k in prov["key"]]
    return list(prov.get("fitted", []))


def block(preset: str, prov: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """The record's `fitted` block of `preset`: what the reproduction starts from."""
    out = {
        "preset": preset,
        "keys": keys(prov),
        "fixed": list(prov.get("fixed", [])),
        "target": prov.get("target_source") or prov.get("target", ""),
        "loss": prov.get("loss"),
        "trials": prov.get("trials"),
    }
    out.update(extra)
    return out


def near_fits(prov: dict[str, Any]) -> list[dict[str, Any]]:
    """The trials the search kept near its best, each with `trial`, `loss` and `values`."""
    return list(prov.get("near_fit", []))
