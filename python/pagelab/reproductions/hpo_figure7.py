"""Tetzlaff et al. 1987, Figure 7: trivial transaction response against the number of users
(125 to 360, 15 s mean think) on the 16 MB 3081D, base (presets/vmsp.toml) against the
contiguous-block prototype (presets/hpo-prototype.toml), the configurations of Table 2: the
base's workload fitted to Table 2's base column, the prototype's Q2 limit found by the paper's
own experiment at Table 2's load (hpo_fit.py), one fixed limit for every load as in the paper.

The figure prints no numbers; the paper's words are the claims: little difference at low load,
the base's response "became unacceptable" at 310 users, and the prototype "could still support
360 users". The paper defines no threshold of acceptability; here a system supports a load while
its trivial response stays within twice its own response at the lightest load (125 users).
"""

from __future__ import annotations

import math

from ..reproduce import Context
from .hpo_fit import limit_override, q2_limit, record_fit, runs_note
from .hpo_table2 import SMOKE

NAME = "hpo-figure7"
PAPER = "Tetzlaff et al. 1987"
TITLE = "Figure 7: trivial response against users (125 to 360), base and prototype on a 3081D"

FULL_USERS = [125, 175, 225, 275, 310, 360]
SMOKE_USERS = [125, 310, 360]
#: Acceptable: trivial response at most this multiple of the system's own at 125 users [A].
ACCEPTABLE = 2.0
SYSTEMS = (("Base", "vmsp"), ("Prototype", "hpo-prototype"))
#: Tetzlaff et al. on Figure 7.
QUOTE = (
    "Figure 7 indicates little difference between the trivial responses for the cases when the "
    "number of users was kept low. For the case with 310 users, the experimental system "
    "prototype provided much better response time than the base case, whose response time "
    "became unacceptable. The experimental system could still support 360 users, whereas the "
    "base case could not."
)


def run(ctx: Context) -> None:
    users = FULL_USERS if ctx.full else SMOKE_USERS
    fit = [*record_fit(ctx, "3081"), *([] if ctx.full else SMOKE)]
    limit, _ = q2_limit(ctx, "hpo-prototype", fit, "3081", "Q2 limit experiment")
    extra = {"Base": fit, "Prototype": [*fit, *limit_override(limit)]}
    settings = [(p, [f"workload.users={n}", *extra[c]]) for c, p in SYSTEMS for n in users]
    runs = iter(ctx.simulate(settings))
    q1: dict[str, list[list[float]]] = {}
    for column, _ in SYSTEMS:
        q1[column] = []
        for n in users:
            r = next(runs)
            q1[column].append(r.metric("q1_seconds"))
            ctx.row("Figure 7", f"{n} users: Q1 seconds", column, r.metric("q1_seconds"), unit="s")
            for row, key, unit in (
                ("paging SIO rate", "paging_sio_rate", "1/s"),
                ("users in page wait", "users_page_wait_pct", "%"),
                ("CPU busy", "cpu_busy_pct", "%"),
            ):
                ctx.row("Figure 7", f"{n} users: {row}", column, r.metric(key), unit=unit)

    base, proto = q1["Base"], q1["Prototype"]
    i310, i360 = users.index(310), users.index(360)

    def mean(xs: list[float]) -> float:
        return sum(xs) / len(xs)

    ctx.claim(
        "alike-at-low-load",
        "Little difference between the systems at 125 users (within 15 %)",
        base=base[0],
        treatment=proto[0],
        paper_effect=0.0,
        band=(-0.15, 0.15),
        evidence=f"Q1 seconds at 125 users: base {mean(base[0]):.3f}, "
        f"prototype {mean(proto[0]):.3f}",
        quote=QUOTE,
    )
    ctx.claim(
        "base-unacceptable-at-310",
        f"The base's trivial response is unacceptable (over {ACCEPTABLE:g} x its 125-user "
        "value) at 310 users",
        base=base[0],
        treatment=base[i310],
        direction=1,
        band=(ACCEPTABLE - 1, math.inf),
        evidence=f"base {mean(base[0]):.3f} s at 125 -> {mean(base[i310]):.3f} s at 310 users",
        quote=QUOTE,
    )
    ctx.claim(
        "prototype-supports-360",
        f"The prototype still supports 360 users (within {ACCEPTABLE:g} x its 125-user value)",
        base=proto[0],
        treatment=proto[i360],
        paper_effect=0.0,
        band=(-1.0, ACCEPTABLE - 1),
        evidence=f"prototype {mean(proto[0]):.3f} s at 125 -> {mean(proto[i360]):.3f} s "
        "at 360 users",
        quote=QUOTE,
    )
    for n, i in ((310, i310), (360, i360)):
        ctx.claim(
            f"prototype-better-at-{n}",
            f"The prototype responds much better than the base at {n} users",
            base=base[i],
            treatment=proto[i],
            direction=-1,
            evidence=f"Q1 seconds at {n} users: base {mean(base[i]):.3f}, "
            f"prototype {mean(proto[i]):.3f}; the paper prints no number",
            quote=QUOTE,
        )
    _figure(ctx, users, q1)
    runs_note(ctx)


def _figure(ctx: Context, users: list[int], q1: dict[str, list[list[float]]]) -> None:
    """Figure 7 as run: mean trivial response against users, per system."""
    if not ctx.draws:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.5))
    for column, _ in SYSTEMS:
        ax.plot(users, [sum(q) / len(q) for q in q1[column]], marker="o", label=column)
    ax.set_xlabel("users")
    ax.set_ylabel("trivial response (Q1 seconds) [s]")
    ax.set_title("Figure 7 (3081D, 16 MB, 15 s think)")
    ax.legend()
    ctx.figure("response", fig)
    plt.close(fig)
