"""The system simulator from Python: a spec (TOML file or text) in, a report out."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import _atomic, _core, progress, validate
from .errors import PagelabError

PRESETS_DIR = Path(__file__).resolve().parent / "presets"


def presets() -> list[dict[str, str]]:
    """The historic systems shipped as presets: name, file, title."""
    found = []
    for path in sorted(_preset_dirs_glob()):
        title = ""
        for line in path.read_text().splitlines():
            if line.strip().startswith("name"):
                title = line.split("=", 1)[1].strip().strip('"')
                break
        found.append({"name": path.stem, "file": str(path), "title": title})
    return found


def _preset_dirs_glob() -> list[Path]:
    here = [PRESETS_DIR, Path(__file__).resolve().parents[2] / "presets"]
    seen: dict[str, Path] = {}
    for d in here:
        if d.is_dir():
            for p in d.glob("*.toml"):
                seen.setdefault(p.stem, p)
    return list(seen.values())


def resolve_spec_path(spec: str | os.PathLike[str]) -> Path:
    """A path, or the name of a shipped preset (`vm370`)."""
    path = Path(spec)
    if path.exists():
        return path
    for p in _preset_dirs_glob():
        if p.stem == str(spec):
            return p
    raise PagelabError(f"{spec}: no such file, and no preset of that name")


def run(
    spec: str | os.PathLike[str],
    *,
    overrides: Sequence[str] = (),
    seed: int = 1,
    out: str | os.PathLike[str] | None = None,
    max_memory: str | int | None = None,
) -> dict[str, Any]:
    """Runs one simulation; returns the report; writes summary.json, the interval and per-user
    tables as Parquet and the resolved spec to `out` if given.

    A spec whose memory estimate exceeds the memory available is refused before it is built;
    `max_memory` (bytes, or with a K, M, G or T suffix) sets another limit, as does the
    environment variable PAGELAB_MAX_MEMORY.
    """
    path = resolve_spec_path(spec)
    if max_memory is not None:
        os.environ["PAGELAB_MAX_MEMORY"] = validate.byte_size(max_memory, "--max-memory")
    seed = validate.integer(seed, "seed")
    pairs = []
    for o in overrides:
        key, sep, value = o.partition("=")
        if not sep or not key:
            raise PagelabError(f"--set {o!r}: expected key.path=value")
        pairs.append((key.strip(), value.strip()))
    with progress.bar(f"simulating {path.name}", total=1.0) as update:
        try:
            text = _core.run_system(path.read_text(), str(path), pairs, seed, update)
        except (ValueError, OverflowError) as e:
            raise PagelabError(str(e)) from None
    report = json.loads(text)
    if out is not None:
        write_report(report, Path(out))
    return report


def write_report(report: dict[str, Any], out: Path) -> None:
    """summary.json, intervals.parquet, users.parquet, spec.json: each written atomically."""
    from . import __version__

    out.mkdir(parents=True, exist_ok=True)
    summary = {
        "metrics": report.get("metrics", {}),
        "response": report.get("response", {}),
        "spec": report.get("spec"),
        "seed": report.get("seed"),
        "version": __version__,
        "engine": report.get("engine", {}),
    }
    _atomic.write_json(out / "summary.json", summary)
    _atomic.write_json(out / "spec.json", report.get("spec"))
    if report.get("benchmark") is not None:
        # Guests, terminal-driver sessions and SCHEDULE records (docs/presets/vm370-mft.md).
        _atomic.write_json(out / "benchmark.json", report["benchmark"])
    tables = {
        "intervals": interval_rows(report),
        "users": report.get("users") or [],
        "classes": report.get("classes") or [],
    }
    for name, rows in tables.items():
        if rows:
            _atomic.write_table(out / f"{name}.parquet", rows, "parquet")


def interval_rows(report: dict[str, Any]) -> list[dict[str, float]]:
    """The monitor's interval samples as one dict per interval (column names carry no units;
    the units are in the report's `intervals.units`)."""
    table = report.get("intervals") or {}
    columns = table.get("columns", [])
    return [dict(zip(columns, row, strict=True)) for row in table.get("rows", [])]
