"""Where a system thrashes: the analytic twin's knee beside the simulator's.

The twin (`pagelab.model`, docs/model.md) solves each preset as a queueing network with a
lifetime curve and the memory level as a flow-equivalent server; the simulator runs the same
preset at a few of the same user counts. For each system: throughput and mean response of both
at each simulated count, and the knee each predicts (the users at which throughput peaks, and
where it first reaches 95 % of its peak). VM/370 at 500 frames thrashes in the simulator
(its storage test admits the crowd once the resident sets shrink, docs/model.md); CP-67's load
control holds its MPL and the throughput levels off. The papers give no knee in numbers (Bard
§6: under CP-67's scheduler performance "not sensitive to the MPL"): every row is ours.

Not covered: UNIX V6 and the M44 have engines of their own, which the twin does not model yet,
and Bard's round-robin paging-rate prediction is `psi-roundrobin`'s, not redone with the twin.
"""

from __future__ import annotations

from .. import extras
from .. import model as twin
from ..reproduce import Context

NAME = "thrashing-knee"
PAPER = "Denning 1968; Courtois 1977"
TITLE = "The analytic twin's thrashing knee beside the simulator's (VM/370 at 500 frames, CP-67)"

#: (label, preset, overrides, model counts and simulated counts at full scale, at smoke scale).
SYSTEMS = [
    (
        "vm370-500",
        "vm370",
        ["memory.frames=500"],
        ("10:320:10", [40, 80, 120, 160, 200, 240, 320]),
        ("20:240:20", [80, 160]),
    ),
    ("cp67", "cp67", [], ("2:80:2", [10, 20, 30, 40, 60, 80]), ("4:80:4", [20, 80])),
]
#: Simulated time at each scale [s] (warm-up, duration).
DURATION = {"full": (120, 900), "smoke": (60, 180)}


def _knees(users: list[int], x: list[float]) -> tuple[float, float]:
    top = max(x)
    peak = users[x.index(top)]
    first = min(u for u, v in zip(users, x, strict=True) if v >= 0.95 * top)
    return float(peak), float(first)


def run(ctx: Context) -> None:
    warm, dur = DURATION["full" if ctx.full else "smoke"]
    for label, preset, sets, full, smoke in SYSTEMS:
        counts, users = full if ctx.full else smoke
        rows = twin.model_rows(preset, overrides=sets, users=counts, seed=ctx.seed)
        timing = [f"run.warmup_s={warm}", f"run.duration_s={dur}"]
        runs = ctx.simulate([(preset, [*sets, *timing, f"workload.users={u}"]) for u in users])
        sim_x = []
        for u, r in zip(users, runs, strict=True):
            m = min(rows, key=lambda row, u=u: abs(row["users"] - u))  # the first of the nearest
            sim_x.append(r.mean("throughput"))
            ctx.row(label, f"{u} users", "throughput, model", float(m["throughput"]), unit="1/s")
            ctx.row(
                label, f"{u} users", "throughput, simulated", r.metric("throughput"), unit="1/s"
            )
            ctx.row(label, f"{u} users", "response, model", float(m["response"]), unit="s")
            ctx.row(
                label, f"{u} users", "response, simulated", r.metric("response_mean_s"), unit="s"
            )
        mx = [row["throughput"] for row in rows]
        m_peak, m_first = _knees([int(row["users"]) for row in rows], mx)
        s_peak, s_first = _knees(users, sim_x)
        ctx.row(label, "knee (throughput peak)", "model", m_peak, unit="users")
        ctx.row(label, "knee (throughput peak)", "simulated", s_peak, unit="users")
        ctx.row(label, "95 % of peak throughput", "model", m_first, unit="users")
        ctx.row(label, "95 % of peak throughput", "simulated", s_first, unit="users")
        if ctx.draws and not extras.missing(("pandas",)):
            import pandas as pd

            sim = twin.compare_frame(users, runs)
            path = ctx.out / f"{NAME}-{label}.png"
            twin.figure(pd.DataFrame(rows), path, sim=sim, title=f"{preset} {' '.join(sets)}")
            ctx.figures.append(path.name)
    ctx.notes.append(
        "UNIX V6 and the M44 are not modelled by the twin (engines of their own); Bard's "
        "round-robin prediction stays in psi-roundrobin."
    )
