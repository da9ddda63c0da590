"""Where a system thrashes: the analytic twin's knee beside the simulator's.

The twin (`pagelab.model`, docs/model.md) solves each preset as a queueing network with a
lifetime curve and the memory level as a flow-equivalent server; the simulator runs the same
preset at a few of the same user counts. For each system: throughput and mean response of both
at each simulated count, and the knee each predicts (the users at which throughput peaks, and
where it first reaches 95 % of its peak). VM/370 at 500 frames thrashes in the simulator
(its storage test admits the crowd once the resident sets shrink, docs/model.md); CP-67's load
control holds its MPL and the throughput levels off. The papers give no knee in numbers (Bard
§6: under CP-67's scheduler performance "not sensitive to the MPL"): every row is ours.

The M44/44X (Brawn and Gustavson 1968, Figures 10-11: 1 to 5 copies of the sort in stores of
184K, 64K and 32K words): the twin's batch network (`pagelab_model::batch`: each copy its equal
share of the store, its pulls the trace lab's FIFO at that share, exact MVA with no think time)
beside the simulated machine at each number of copies, in time per job (elapsed / jobs, the
paper's Time/Job) and jobs per second; the knee is the copies at which jobs per second peak.

UNIX V6 (Chanson 1982, the adopted `unix-v6-fitted`): the twin's swapping network
(`pagelab_model::swapping`: the core as a memory-constrained server holding K prototype images,
a swap pair on the controller whenever a waking process finds its image out) beside the
simulated machine at each number of prototype processes (PN), in loops per second and swap-ins
per second; the knee is the PN at which loops per second peak. K is read two ways
(docs/readings.md `unix-twin-core`): the core left after the system's waking processes
(adopted, 4 images) and all of core (5). Chanson reports reaction time against PCTRMM as a
line (§3.2), not a knee: these rows are ours.

Bard's round-robin paging-rate prediction is redone with the twin in `psi-roundrobin`.
"""

from __future__ import annotations

from .. import extras
from .. import model as twin
from ..reproduce import Context

NAME = "thrashing-knee"
PAPER = "Denning 1968; Courtois 1977"
TITLE = (
    "The analytic twin's thrashing knee beside the simulator's (VM/370 at 500 frames, CP-67, "
    "the M44/44X, UNIX V6)"
)

#: (label, preset, overrides, model counts and simulated counts at full scale, at smoke scale).
SYSTEMS = [
    (
        "vm370-500",
        "vm370",
        ["memory.frames=500"],
        # Every 10 users around the knee (reading vm370-500-grid).
        ("10:320:10", [40, 80, 120, *range(140, 250, 10), 320]),
        ("20:240:20", [80, 160]),
    ),
    ("cp67", "cp67", [], ("2:80:2", [10, 20, 30, 40, 60, 80]), ("4:80:4", [20, 80])),
]
#: The M44's stores [words] and copies at full scale, at smoke scale (B&G Figures 10-11).
M44_STORES = {"full": ([65536, 32768], [1, 2, 3, 4, 5]), "smoke": ([65536], [1, 5])}

#: UNIX V6's prototype processes: the model's counts, the simulated ones at full and smoke scale.
UNIX_COUNTS = ("1:16:1", {"full": [2, 3, 4, 5, 6, 8, 12, 16], "smoke": [4, 8]})
#: UNIX V6's simulated run at smoke scale [s] (full: the preset's twenty minutes).
UNIX_SMOKE_S = 300

#: Simulated time at each scale [s] (warm-up, duration).
DURATION = {"full": (120, 900), "smoke": (60, 180)}


def _knees(users: list[int], x: list[float]) -> tuple[float, float]:
    top = max(x)
    peak = users[x.index(top)]
    first = min(u for u, v in zip(users, x, strict=True) if v >= 0.95 * top)
    return float(peak), float(first)


def _m44(ctx: Context) -> None:
    """The M44 at each store: the twin's time per job and jobs per second beside the machine's."""
    stores, copies = M44_STORES["full" if ctx.full else "smoke"]
    for words in stores:
        label = f"m44-{words // 1024}k"
        store = [f"memory.store_words={words}"]
        rows = twin.model_rows("m44", overrides=store, users=copies, seed=ctx.seed)
        runs = ctx.simulate([("m44", [*store, f"workload.copies={c}"]) for c in copies])
        sim_x = []
        for c, m, r in zip(copies, rows, runs, strict=True):
            per_job = r.metric("time_per_job_s")
            x = [1.0 / t for t in per_job]
            sim_x.append(sum(x) / len(x))
            ctx.row(label, f"{c} copies", "time per job, model", 1.0 / m["throughput"], unit="s")
            ctx.row(label, f"{c} copies", "time per job, simulated", per_job, unit="s")
            pulls = m["fault_rate"] / m["throughput"]
            ctx.row(label, f"{c} copies", "pulls per job, model", pulls, unit="pages")
            ctx.row(
                label, f"{c} copies", "pulls per job, simulated", r.metric("pulls_per_job"),
                unit="pages",
            )  # fmt: skip
        m_peak, _ = _knees(copies, [m["throughput"] for m in rows])
        s_peak, _ = _knees(copies, sim_x)
        ctx.row(label, "knee (jobs per second peak)", "model", m_peak, unit="copies")
        ctx.row(label, "knee (jobs per second peak)", "simulated", s_peak, unit="copies")


def _unix(ctx: Context) -> None:
    """UNIX V6 at each number of prototype processes: the twin's loops and swap-ins per second
    beside the machine's, and the knee of each reading of the core."""
    label, preset = "unix-v6", "unix-v6-fitted"
    counts, sim = UNIX_COUNTS
    users = sim["full" if ctx.full else "smoke"]
    rows = twin.model_rows(preset, users=counts, seed=ctx.seed)
    images = twin.solve(preset, users=[1])["demands"]["images_all_core"]
    whole = twin.model_rows(preset, users=counts, seed=ctx.seed, mpl_limit=images)
    timing = [] if ctx.full else [f"run.duration_s={UNIX_SMOKE_S}"]
    runs = ctx.simulate([(preset, [*timing, f"workload.processes={n}"]) for n in users])
    sim_x = []
    for n, r in zip(users, runs, strict=True):
        m = next(row for row in rows if row["users"] == n)
        sim_x.append(r.mean("loop_rate"))
        ctx.row(label, f"{n} processes", "loops per second, model", m["throughput"], unit="1/s")
        ctx.row(
            label, f"{n} processes", "loops per second, simulated", r.metric("loop_rate"),
            unit="1/s",
        )  # fmt: skip
        ctx.row(label, f"{n} processes", "swap-ins per second, model", m["fault_rate"], unit="1/s")
        ctx.row(
            label, f"{n} processes", "swap-ins per second, simulated",
            [v / 2.0 for v in r.metric("swap_rate")], unit="1/s",
        )  # fmt: skip
    knee = "knee (loops per second peak)"
    ctx.row(label, knee, "model, core less the waking system processes", _peak(rows), unit="PN")
    ctx.row(label, knee, f"model, all of core ({images} images)", _peak(whole), unit="PN")
    ctx.row(label, knee, "simulated", _knees(users, sim_x)[0], unit="PN")
    if ctx.draws and not extras.missing(("pandas",)):
        import pandas as pd

        frame = pd.DataFrame({"users": users, "throughput": sim_x, "response": float("nan")})
        path = ctx.out / f"{NAME}-{label}.png"
        twin.figure(pd.DataFrame(rows), path, sim=frame, title=f"{preset}: loops/s against PN")
        ctx.figures.append(path.name)


def _peak(rows: list[dict]) -> float:
    return _knees([int(r["users"]) for r in rows], [r["throughput"] for r in rows])[0]


def run(ctx: Context) -> None:
    _m44(ctx)
    _unix(ctx)
    warm, dur = DURATION["full" if ctx.full else "smoke"]
    for label, preset, sets, full, smoke in SYSTEMS:
        counts, users = full if ctx.full else smoke
        timing = [f"run.warmup_s={warm}", f"run.duration_s={dur}"]
        # The twin's means over the same window as the runs' (reading twin-run-horizon).
        rows = twin.model_rows(preset, overrides=[*sets, *timing], users=counts, seed=ctx.seed)
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
        "UNIX V6's response is not compared: the twin's is a loop's stay in core, the "
        "simulator's a reaction time (Chanson §2.B). Bard's round-robin prediction is in "
        "psi-roundrobin."
    )
