"""Figures: fault curves and the M44 run-time model, drawn with matplotlib (Agg, files only)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from . import _atomic


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def fault_curves(
    rows: Sequence[dict[str, Any]],
    target: str | os.PathLike[str],
    *,
    title: str = "",
    page_size: int | None = None,
) -> None:
    """Faults and pushes against frames, one line per policy; saved atomically as PNG."""
    plt = _pyplot()
    fig, (ax_f, ax_p) = plt.subplots(1, 2, figsize=(11, 4))
    for policy in dict.fromkeys(r["policy"] for r in rows):
        pts = sorted((r for r in rows if r["policy"] == policy), key=lambda r: r["frames"])
        xs = [r["frames"] for r in pts]
        ax_f.plot(xs, [r["faults"] for r in pts], marker=".", label=policy)
        ax_p.plot(xs, [r["pushes"] for r in pts], marker=".", label=policy)
    unit = f" ({page_size} B pages)" if page_size else ""
    for ax, what in ((ax_f, "pulls (faults)"), (ax_p, "pushes (write-backs)")):
        ax.set_xlabel(f"frames{unit}")
        ax.set_ylabel(what)
        ax.set_yscale("symlog")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(title)
    _atomic.save_figure(fig, target)
    plt.close(fig)


def run_time_curves(
    rows: Sequence[dict[str, Any]],
    target: str | os.PathLike[str],
    *,
    title: str = "",
    reference_time_s: float,
    page_time_s: float,
    words_per_page: int | None = None,
) -> None:
    """Run time = references x reference time + pulls x page time against real core size
    (Brawn & Gustavson 1968, figures 4, 6 and 8)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for policy in dict.fromkeys(r["policy"] for r in rows):
        pts = sorted((r for r in rows if r["policy"] == policy), key=lambda r: r["frames"])
        xs = [r["frames"] * (words_per_page or 1) / (1024 if words_per_page else 1) for r in pts]
        ys = [r["references"] * reference_time_s + r["faults"] * page_time_s for r in pts]
        ax.plot(xs, ys, marker=".", label=policy)
    ax.set_xlabel("real core (K words)" if words_per_page else "frames")
    ax.set_ylabel("run time (s)")
    ax.set_yscale("log")
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title(title)
    _atomic.save_figure(fig, target)
    plt.close(fig)


def psi_characteristic(
    curve: dict[str, Any], target: str | os.PathLike[str], *, title: str = ""
) -> None:
    """The paging characteristic R against A, and A against Ψ with Ψ_c marked
    (Bard 1975, figures 5-7)."""
    plt = _pyplot()
    pts = curve["points"]
    fig, (ax_r, ax_a) = plt.subplots(1, 2, figsize=(11, 4))
    ax_r.plot([p["a"] for p in pts], [p["r"] for p in pts], marker=".")
    ax_r.set_xlabel("A(Ψ): mean resident set (pages)")
    ax_r.set_ylabel("R(Ψ): page exceptions per CPU second")
    ax_r.set_yscale("log")
    ax_a.plot([p["psi"] for p in pts], [p["a"] for p in pts], marker=".")
    if curve.get("psi_c") is not None:
        ax_a.axvline(curve["psi_c"], color="grey", linestyle="--", label=f"Ψ_c = {curve['psi_c']}")
        ax_a.legend()
    ax_a.set_xlabel("Ψ (interruptions survived)")
    ax_a.set_ylabel("A(Ψ) (pages)")
    for ax in (ax_r, ax_a):
        ax.grid(alpha=0.3)
    fig.suptitle(title)
    _atomic.save_figure(fig, target)
    plt.close(fig)
