"""Figures: fault curves, the M44 run-time model and Bard's Ψ figures, drawn with matplotlib
(Agg, files only)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from . import _atomic


def _pyplot() -> Any:
    from . import extras

    extras.need("plot", "--plot")
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
    """One program's paging characteristic and Bard's figures 5-7 (Bard 1975 §3, §7)."""
    psi_figures([(title or "program", curve)], target, title=title)


def psi_figures(
    curves: Sequence[tuple[str, dict[str, Any]]],
    target: str | os.PathLike[str],
    *,
    title: str = "",
    system: Sequence[tuple[float, float, float]] = (),
) -> None:
    """Bard 1975 §7 for several programs, one PNG of four panels: the paging characteristic
    R against A (§3); figure 5, A(Ψ) against Ψ; figure 6, the generic A(Ψ)/A(Ψc) against
    Ψ/Ψc (programs with a break Ψc only); figure 7, R(Ψ) against Ψ on log-log axes. `system`
    holds (Ψs*, A* = N/X, system page exceptions per CPU second) of monitor intervals, which
    Bard superimposes on figures 5 and 7."""
    fig = psi_figure(curves, title=title, system=system)
    _atomic.save_figure(fig, target)
    _pyplot().close(fig)


def psi_figure(
    curves: Sequence[tuple[str, dict[str, Any]]],
    *,
    title: str = "",
    system: Sequence[tuple[float, float, float]] = (),
) -> Any:
    """The matplotlib figure of :func:`psi_figures`, for a caller that saves it itself."""
    plt = _pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    ax_c, ax5, ax6, ax7 = axes.flat
    for name, curve in curves:
        pts = curve["points"]
        ax_c.plot([p["a"] for p in pts], [p["r"] for p in pts], marker=".", label=name)
        ax5.plot([p["psi"] for p in pts], [p["a"] for p in pts], marker=".", label=name)
        pos = [p for p in pts if p["psi"] > 0 and p["r"] > 0]
        ax7.plot([p["psi"] for p in pos], [p["r"] for p in pos], marker=".", label=name)
        psi_c = curve.get("psi_c")
        a_c = _a_at(pts, psi_c) if psi_c else None
        if a_c:
            xs = [p["psi"] / psi_c for p in pts]
            ax6.plot(xs, [p["a"] / a_c for p in pts], marker=".", label=f"{name} (Ψc = {psi_c:g})")
    if system:
        ax5.scatter([s[0] for s in system], [s[1] for s in system], s=10, c="k", label="A* = N/X")
        ax7.scatter([s[0] for s in system], [s[2] for s in system], s=10, c="k", label="system")
    ax_c.set(xlabel="A(Ψ): mean resident set (pages)", ylabel="R(Ψ): exceptions per CPU s")
    ax_c.set_yscale("log")
    ax5.set(xlabel="Ψ", ylabel="A(Ψ) (pages)", title="Figure 5: storage requirements")
    ax6.set(xlabel="Ψ/Ψc", ylabel="A(Ψ)/A(Ψc)", title="Figure 6: generic storage requirements")
    ax6.axvline(1.0, color="grey", lw=0.8, ls="--")
    ax7.set(xlabel="Ψ", ylabel="R(Ψ) (exceptions per CPU s)", title="Figure 7: paging rates")
    ax7.set_xscale("log")
    ax7.set_yscale("log")
    if not curves:  # monitor intervals only: Bard superimposes them on figures 5 and 7
        ax_c.set_visible(False)
        ax6.set_visible(False)
    for ax in axes.flat:
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def _a_at(pts: Sequence[dict[str, Any]], psi: float) -> float | None:
    """A at a real Ψ, linear between the points; None outside them."""
    for p0, p1 in zip(pts, pts[1:], strict=False):
        if p0["psi"] <= psi <= p1["psi"]:
            w = (psi - p0["psi"]) / (p1["psi"] - p0["psi"]) if p1["psi"] > p0["psi"] else 0.0
            return p0["a"] + w * (p1["a"] - p0["a"])
    return None
