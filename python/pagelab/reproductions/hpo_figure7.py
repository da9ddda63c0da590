"""Tetzlaff et al. 1987, Figure 7: trivial transaction response against the number of users
(125 to 360, 15 s mean think) on the 16 MB 3081D, base (presets/vmsp.toml) against the
contiguous-block prototype (presets/hpo-prototype.toml), the configurations of Table 2.

The figure prints no numbers; the paper's words are the claims: little difference at low load,
the base's response "became unacceptable" at 310 users, and the prototype "could still support
360 users". The paper defines no threshold of acceptability; here a system supports a load while
its trivial response stays within twice its own response at the lightest load (125 users).
"""

from __future__ import annotations

from .. import system
from ..reproduce import Context

NAME = "hpo-figure7"
PAPER = "Tetzlaff et al. 1987"
TITLE = "Figure 7: trivial response against users (125 to 360), base and prototype on a 3081D"

FULL_USERS = [125, 175, 225, 275, 310, 360]
SMOKE_USERS = [125, 310, 360]
SMOKE = ["run.duration_s=240", "run.warmup_s=60", "monitor.interval_s=30"]
#: Acceptable: trivial response at most this multiple of the system's own at 125 users [A].
ACCEPTABLE = 2.0
SYSTEMS = (("Base", "vmsp"), ("Prototype", "hpo-prototype"))


def run(ctx: Context) -> None:
    users = FULL_USERS if ctx.full else SMOKE_USERS
    extra = [] if ctx.full else SMOKE
    q1: dict[str, list[float]] = {}
    for column, preset in SYSTEMS:
        q1[column] = []
        for n in users:
            m = system.run(preset, overrides=[f"workload.users={n}", *extra], seed=ctx.seed)[
                "metrics"
            ]
            q = m["q1_seconds"]["value"]
            q1[column].append(q)
            ctx.row("Figure 7", f"{n} users: Q1 seconds", column, round(q, 3), unit="s")
            for row, key, unit in (
                ("paging SIO rate", "paging_sio_rate", "1/s"),
                ("users in page wait", "users_page_wait_pct", "%"),
                ("CPU busy", "cpu_busy_pct", "%"),
            ):
                ctx.row(
                    "Figure 7", f"{n} users: {row}", column, round(m[key]["value"], 3), unit=unit
                )

    base, proto = q1["Base"], q1["Prototype"]
    i310, i360 = users.index(310), users.index(360)
    ctx.claim(
        "alike-at-low-load",
        "Little difference between the systems at 125 users",
        abs(proto[0] - base[0]) <= 0.15 * base[0],
        f"Q1 seconds at 125 users: base {base[0]:.3f}, prototype {proto[0]:.3f}",
    )
    ctx.claim(
        "base-unacceptable-at-310",
        f"The base's trivial response is unacceptable (over {ACCEPTABLE:g} x its 125-user "
        "value) at 310 users",
        base[i310] > ACCEPTABLE * base[0],
        f"base {base[0]:.3f} s at 125 -> {base[i310]:.3f} s at 310 users "
        f"({base[i310] / base[0]:.2f} x)",
    )
    ctx.claim(
        "prototype-supports-360",
        f"The prototype still supports 360 users (within {ACCEPTABLE:g} x its 125-user value)",
        proto[i360] <= ACCEPTABLE * proto[0],
        f"prototype {proto[0]:.3f} s at 125 -> {proto[i360]:.3f} s at 360 users "
        f"({proto[i360] / proto[0]:.2f} x)",
    )
    ctx.claim(
        "prototype-better-at-310",
        "The prototype's response is much better than the base's at 310 users",
        proto[i310] < base[i310],
        f"Q1 seconds at 310 users: base {base[i310]:.3f}, prototype {proto[i310]:.3f}",
    )
    if ctx.out is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(5, 3.5))
        for column, _ in SYSTEMS:
            ax.plot(users, q1[column], marker="o", label=column)
        ax.set_xlabel("users")
        ax.set_ylabel("trivial response (Q1 seconds) [s]")
        ax.set_title("Figure 7 (3081D, 16 MB, 15 s think)")
        ax.legend()
        ctx.figure("response", fig)
        plt.close(fig)
