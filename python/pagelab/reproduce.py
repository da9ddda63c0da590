"""The reproduction record: a paper experiment run by pagelab, set beside the paper's figures.

A reproduction is a module in :mod:`pagelab.reproductions` defining ``NAME``, ``PAPER``,
``TITLE`` and ``run(ctx)``. It adds raw rows (the paper's number beside ours) and claims whose
``holds`` it computes from those rows, never from the expected answer. The record is written
as ``DIR/NAME.json`` with the figures as PNG beside it (see DESIGN.md, "the reproduction record").
"""

from __future__ import annotations

import importlib
import pkgutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from . import _atomic, progress, reproductions
from .errors import PagelabError

SCALES = ("smoke", "full")


@dataclass
class Context:
    """What a reproduction gets: the scale, the seed, where figures go; what it gives back."""

    name: str
    scale: str
    seed: int
    out: Path | None
    rows: list[dict[str, Any]] = field(default_factory=list)
    claims: list[dict[str, Any]] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def full(self) -> bool:
        return self.scale == "full"

    def row(
        self,
        table: str,
        row: str,
        column: str,
        pagelab: float | int | None,
        *,
        paper: float | int | None = None,
        unit: str = "",
    ) -> None:
        """Records one number of ours beside the paper's (None where the paper gives none)."""
        self.rows.append(
            {
                "table": table,
                "row": row,
                "column": column,
                "paper": paper,
                "pagelab": pagelab,
                "unit": unit,
            }
        )

    def value(self, table: str, row: str, column: str) -> Any:
        """Our number in a recorded row (for computing claims from rows)."""
        for r in self.rows:
            if (r["table"], r["row"], r["column"]) == (table, row, column):
                return r["pagelab"]
        raise KeyError((table, row, column))

    def claim(self, id: str, text: str, holds: bool, evidence: str) -> None:
        """Records whether one of the paper's findings holds here, with the numbers behind it."""
        self.claims.append({"id": id, "text": text, "holds": bool(holds), "evidence": evidence})

    def figure(self, name: str, fig: Any) -> None:
        """Saves a matplotlib figure as `NAME-name.png` in the output directory."""
        if self.out is None:
            return
        path = self.out / f"{self.name}-{name}.png"
        _atomic.save_figure(fig, path)
        self.figures.append(path.name)


def _modules() -> dict[str, ModuleType]:
    found = {}
    for info in pkgutil.iter_modules(reproductions.__path__):
        module = importlib.import_module(f"{reproductions.__name__}.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "run"):
            found[module.NAME] = module
    return dict(sorted(found.items()))


def available() -> list[dict[str, str]]:
    """Every reproduction: name, paper, title."""
    return [{"name": n, "paper": m.PAPER, "title": m.TITLE} for n, m in _modules().items()]


def reproduce(
    name: str, *, scale: str = "smoke", seed: int = 1, out: str | Path | None = None
) -> dict[str, Any]:
    """Runs one reproduction and returns its record; writes it to `out` if given."""
    modules = _modules()
    if name not in modules:
        raise PagelabError(f"reproduction {name!r}: expected one of {', '.join(modules)}")
    if scale not in SCALES:
        raise PagelabError(f"--scale {scale!r}: expected one of {', '.join(SCALES)}")
    module = modules[name]
    out_dir = Path(out) if out is not None else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    ctx = Context(name=name, scale=scale, seed=seed, out=out_dir)
    started = time.perf_counter()
    with progress.bar(f"reproducing {name}"):
        module.run(ctx)
    record = {
        "name": name,
        "paper": module.PAPER,
        "title": module.TITLE,
        "scale": scale,
        "seed": seed,
        "version": _version(),
        "rows": ctx.rows,
        "claims": ctx.claims,
        "figures": ctx.figures,
        "notes": ctx.notes,
        "wall_seconds": round(time.perf_counter() - started, 3),
    }
    if out_dir is not None:
        _atomic.write_json(out_dir / f"{name}.json", record)
    return record


def _version() -> str:
    from . import __version__

    return __version__
