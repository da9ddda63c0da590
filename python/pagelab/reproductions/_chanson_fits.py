"""What unix-regression and its sensitivity studies share: the fitted presets, a replication's
runs, and the regression fits of Chanson 1982 §3.2 over them (python/pagelab/chanson.py)."""

from __future__ import annotations

from .. import chanson
from ..reproduce import Context, Values

PRESET = "unix-v6-fitted"
#: The same calibration with sched's easy core taking block waiters, as CHANSON §3.1 describes
#: his swapper (`swapper.easy_includes_io`); a sensitivity beside the code's reading.
EASY_IO_PRESET = "unix-v6-fitted-easy-io"
#: The same six keys calibrated to the training half and, besides, to section 2.C's ten
#: file-system accesses per swap at Figure 1's setting: an exploratory fit, not adopted.
SWAP_RATIO_PRESET = "unix-v6-fitted-swap-ratio"
#: Reaction times below this are left out of the relative validation error [ms].
MIN_RT_MS = 50.0


def _replicate(points: list, held: list[bool], runs: list, k: int) -> list[dict]:
    """The design's runs of seed number `k`: one replication of the factorial experiment."""
    out = []
    for (pn, ps, pc, mm), out_, r in zip(points, held, runs, strict=True):
        m = r.reports[k]["metrics"]
        out.append(
            {
                "pn": pn,
                "ps": ps,
                "pc": pc,
                "mm": mm,
                "pctrmm": m["pctrmm"]["value"],
                "pc_pn_ps": pc * pn * ps,
                "rt": m["reaction_time_ms"]["value"],
                "paper": chanson.paper_rt(pn, ps, pc, mm),
                "held_out": out_,
            }
        )
    return out


def _fits(design: dict, runs: list[dict]) -> dict:
    """The paper's equations fitted to one replication's training runs; validation on its
    held-out runs, as the paper validated (the model against measurement)."""
    train = [r for r in runs if not r["held_out"]]
    held = [r for r in runs if r["held_out"]]
    overall = chanson.fit(train, ["pctrmm", "pc", "pc_pn_ps"])
    per_pc = {}
    for pc in design["pc"]:
        terms = ["pctrmm", "pn"] if pc == 354 else ["pctrmm"]
        rows = [r for r in train if r["pc"] == pc]
        if len(rows) > len(terms) + 1:
            per_pc[pc] = chanson.fit(rows, terms)
    swapping = [r for r in held if r["rt"] >= MIN_RT_MS]
    model_err = [abs(overall.predict(r) - r["rt"]) / r["rt"] for r in swapping]
    paper_err = [abs(r["rt"] - r["paper"]) / r["paper"] for r in held]
    return {
        "overall": overall,
        "alone": chanson.fit(train, ["pctrmm"]),
        "per_pc": per_pc,
        "mae": 100 * sum(model_err) / len(model_err) if model_err else float("nan"),
        "mae_paper": 100 * sum(paper_err) / len(paper_err) if paper_err else float("nan"),
        "n_held": len(held),
    }


def _level_mean(ctx: Context, points: list, runs: list, pc: float, metric: str) -> Values:
    """`metric` averaged over the design points at PC level `pc`, one value per seed (a mean of
    shares is a share: the metric's domain goes with it)."""
    level = [r for p, r in zip(points, runs, strict=True) if p[2] == pc]
    seeds = range(len(ctx.seeds))
    out = Values(sum(r.metric(metric)[k] for r in level) / len(level) for k in seeds)
    out.domain = level[0].metric(metric).domain if level else None
    return out


def _by_cell(points: list, runs: list) -> dict:
    """The runs keyed by (PN, PS, MM, PC)."""
    return {(p[0], p[1], p[3], p[2]): r for p, r in zip(points, runs, strict=True)}


def _shared(at: dict, lo: float, hi: float) -> list[tuple]:
    """The (PN, PS, MM) cells run at both PC levels `lo` and `hi`."""
    return [(pn, ps, mm) for (pn, ps, mm, pc) in at if pc == lo and (pn, ps, mm, hi) in at]
