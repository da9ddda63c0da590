"""Bard 1975, section 4 (figure 1): the round-robin prediction of a set of programs run together,
checked against the system simulator. The paper: predicted paging rates "generally accurate
within 10 percent" for a round-robin dispatcher, "generally within 30 percent" for other
dispatchers. The first is tested on the control run (below), whose dispatching is eq. 2's
round-robin cycle (each program one execution interval per round); the second on CP-67's own
dispatcher (its 50 ms minor slice, programs waiting for their own drum reads and I/O).

Members: the M44/44X programs of `pagelab.programs` (matrix inversion, ship-track correlation,
two sorts), generated as traces. Each program's Ψ-characteristic (`lab.psi_curve`, one I/O every
20,000 references) gives A_i, t_i, f_i; eq. 1 gives Ψ* for N frames and eq. 2 the paging rate P
(page exceptions per CPU second). The simulator runs the same traces on presets/cp67.toml as
one user each, always in queue (slices of 10^6 s, nothing to think), dispatched round robin on
its 50 ms minor slice, with a minidisk I/O after every 20,000 references (40 ms of CPU at
2 µs a reference). Its N is the frames less the free-list reserve SELECT keeps (MPL + 1 frames),
so the simulator is given N + MPL + 1 frames. Measured P = page exceptions / problem-state time.
The control (CONTROL) runs the same traces CPU-bound (references of 20 µs, the minidisk I/O
instantaneous, the curves recomputed at that reference time) and to the next interruption (no
minor slice): every program is ready at its turn, so each round is one interruption of each.

The analytic twin (`pagelab.model`, docs/model.md) predicts the same runs beside eq. 2: the
cp67 spec with the same trace programs, its lifetime curves (the trace lab's LRU stack on each
trace), equal frames per program in the multiprogramming set, and its network solved by MVA;
its P is its fault rate over its problem-state share (rows `ours`: Bard's prediction is the
paper's, the twin's is ours).

Diagnosis rows, per program: its interruptions per second (round robin makes them equal), eq. 4
over its own replaced pages, and its equivalent Ψ_i (where R_i(Ψ) equals its simulated rate),
with Σ A_i(Ψ_i) against N: the characteristics fill the frames at the programs' own Ψ_i, but
those Ψ_i spread far from one Ψ* because the programs wait for their own I/O (docs/psi.md).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from .. import lab, programs
from .. import model as twin
from ..reproduce import Context
from . import _psi_study as st

NAME = "psi-roundrobin"
PAPER = "Bard 1975"
TITLE = "Section 4: round-robin prediction of the system paging rate against the simulator"
FULL_SEEDS = st.FULL_SEEDS

REFS_PER_IO = 20_000
REFERENCE_S = 2e-6
PSIS = list(range(0, 61))

#: Full scale: the four programs at their default sizes; smoke: small sorts and a small matrix.
FULL_MIX = {"t1-1x": {}, "t2-1x": {}, "t4-1xq-star": {}, "t4-1xqr": {}}
SMOKE_MIX = {
    "t1-1x": {"matrix": {"n": 40}},
    "t4-1xq-star": {"sort": {"items": 1500}},
    "t4-1xqr": {"sort": {"items": 1500}},
}
FULL_N = [20, 30, 40, 60, 80]
SMOKE_N = [12, 20]


def _at(curve: dict, psi: float) -> dict[str, float]:
    """A program's characteristics at a real Ψ, linear between its points (as `predict` does)."""
    pts = curve["points"]
    if psi <= pts[0]["psi"]:
        return pts[0]
    for p0, p1 in zip(pts, pts[1:], strict=False):
        if psi <= p1["psi"]:
            w = (psi - p0["psi"]) / (p1["psi"] - p0["psi"])
            return {k: p0[k] + w * (p1[k] - p0[k]) for k in ("a", "r", "t", "f")}
    return pts[-1]


def _equivalent_psi(curve: dict, r: float) -> float:
    """The Ψ at which a program's R(Ψ) (nonincreasing) equals `r`, linear between points and
    held at the ends of the range."""
    pts = curve["points"]
    if r >= pts[0]["r"]:
        return float(pts[0]["psi"])
    for p0, p1 in zip(pts, pts[1:], strict=False):
        if p1["r"] <= r:
            if p0["r"] == p1["r"]:
                return float(p0["psi"])
            w = (p0["r"] - r) / (p0["r"] - p1["r"])
            return p0["psi"] + w * (p1["psi"] - p0["psi"])
    return float(pts[-1]["psi"])


#: The control: Bard's premise of one execution interval per program per round, made to hold by
#: a CPU-bound run (references 10 times slower, minidisk I/O instantaneous) whose dispatcher runs
#: each program to its next interruption (no minor slice). Same traces, same I/O points.
CONTROL = {"reference_s": 2e-5, "vio_ms": 0.0, "slice_ms": 1e6}


def _setting(
    traces: list[Path],
    frames: int,
    *,
    full: bool,
    reference_s: float = REFERENCE_S,
    vio_ms: float | None = None,
    slice_ms: float | None = None,
) -> dict:
    users = len(traces)
    demand_ms = 1e9  # longer than any run: one transaction, never finished
    vio = int(demand_ms / (REFS_PER_IO * reference_s * 1e3)) - 1
    classes = [
        {
            "name": t.stem,
            "fraction": 1.0 / users,
            "think": {"kind": "fixed", "s": 0.0},
            "commands": [{"name": "run", "cpu_ms": demand_ms, "exponential": False, "vio": vio}],
            "program": {"kind": "trace", "path": str(t), "repeat": True},
        }
        for t in traces
    ]
    # Every program always in queue: VM/370's storage test with nothing projected admits all.
    lc = {
        "kind": "vm370",
        "q1_slice_s": 1e6,
        "q2_slice_s": 1e6,
        "projection": "last",
        "initial_ws_pages": 0.0,
    }
    scale = st.FULL if full else {"duration_s": 60.0, "warmup_s": 10.0}
    ov = [
        f"run.duration_s={scale['duration_s']}",
        f"run.warmup_s={scale['warmup_s']}",
        f"memory.frames={frames}",
        f"workload.users={users}",
        f"workload.class={st.toml_inline(classes)}",
        f"load_control={st.toml_inline(lc)}",
        f"cpu.reference_ns={reference_s * 1e9}",
    ]
    if vio_ms is not None:
        ov.append(f"vio.service_ms={vio_ms}")
    if slice_ms is not None:
        ov.append(f"cpu.dispatch_slice_ms={slice_ms}")
    return "cp67", ov


def _paging(rep: dict) -> tuple[float, float]:
    """Problem-state share and page exceptions per CPU second of one run."""
    m = rep["metrics"]
    cpu = m["problem_state_pct"]["value"] / 100.0
    return cpu, (m["fault_rate"]["value"] / cpu if cpu > 0 else float("nan"))


def _control(ctx: Context, ns: list[int], ctl_curves: list, done: list) -> list[float]:
    """The round-robin run (CONTROL): every program runs to its next interruption and is ready
    again at its next turn, so each round is one execution interval of each, as eq. 2's cycle
    assumes. The same prediction at its reference time. Returns the mean |error| per seed."""
    t = "Control: CPU-bound, run to interruption"
    errors: list[list[float]] = [[] for _ in ctx.seeds]
    for n, runs in zip(ns, done, strict=True):
        pred = lab.psi_predict(ctl_curves, n)
        per_seed = [_paging(r) for r in runs.reports]
        errs = [100.0 * (pred["paging_rate"] - sim) / sim for _, sim in per_seed]
        rep = runs.reports[0]
        spec_run = rep["spec"]["run"]
        wall = float(spec_run["duration_s"]) - float(spec_run["warmup_s"])
        rates = [(u["faults"] + u["vios"]) / wall for u in rep["users"]]
        row = f"N = {n}"
        ctx.row(t, row, "Ψ* (eq. 1)", round(pred["psi_star"], 2))
        ctx.row(t, row, "predicted P", round(pred["paging_rate"], 2), unit="1/s")
        ctx.row(t, row, "simulated P", [p for _, p in per_seed], unit="1/s")
        ctx.row(t, row, "error", errs, unit="%")
        ctx.row(t, row, "problem state", [100 * c for c, _ in per_seed], unit="%")
        ctx.row(t, row, "interruptions/s, min/max", round(min(rates) / max(rates), 2))
        if pred["bound"] == "solved":
            for k, e in enumerate(errs):
                errors[k].append(abs(e))
    means = [sum(e) / len(e) if e else float("nan") for e in errors]
    # §4's "generally accurate within 10 percent" is a bound on the error, scored once, as a
    # bound (readings.md, score-bounds, score-once); its reading changed after its result
    # (psi-rr-within-10), so the row is shown, not scored.
    ctx.row(
        t,
        "all N",
        "mean |error|",
        means,
        paper=10.0,
        unit="%",
        bound="upper",
        role="ours",
        reading="psi-rr-within-10",
        why="the reading moved to this control after its result was seen (docs/readings.md)",
    )
    return means


def _figures(ctx: Context, curves: list) -> None:
    """Bard's figures 5-7 for the member programs (§7): A(Ψ), A/A(Ψc) against Ψ/Ψc, R(Ψ)."""
    for name, c in curves:
        if c.get("psi_c") is not None:
            ctx.row("Section 7: program breaks", name, "Ψc", c["psi_c"])
            ctx.row("Section 7: program breaks", name, "β past Ψc", round(c["beta"], 3))
    if not ctx.draws:
        return
    from .. import plots

    fig = plots.psi_figure(curves, title="Bard 1975, figures 5-7: the member programs")
    ctx.figure("figures5-7", fig)
    plots._pyplot().close(fig)


def _per_program(
    ctx: Context, n: int, row: str, programs: tuple, pred: dict, rep: dict, cpu: float
) -> float:
    """Per program at N: R_i(Ψ*) = f_i / t_i against its exceptions per CPU second simulated,
    and its equivalent Ψ; returns Σ A_i at the equivalent Ψ_i."""
    mix, curves = programs
    users = {u["class"]: u for u in rep["users"]}
    spec_run = rep["spec"]["run"]
    wall = float(spec_run["duration_s"]) - float(spec_run["warmup_s"])
    ctx.row("Round robin", row, "problem state", round(100 * cpu, 1), unit="%")
    a_eq = 0.0
    for name, pp, curve in zip(mix, pred["per_program"], curves, strict=True):
        u = users[name]
        r_sim = u["faults"] / u["cpu_s"] if u["cpu_s"] > 0 else float("nan")
        t = f"Per program, N = {n}"
        ctx.row(t, name, "predicted R", round(pp["f"] / pp["t"], 1), unit="1/s")
        ctx.row(t, name, "simulated R", round(r_sim, 1), unit="1/s")
        share = pp["t"] / sum(q["t"] for q in pred["per_program"])
        ctx.row(t, name, "predicted CPU share", round(share, 3))
        ctx.row(t, name, "simulated CPU", round(u["cpu_s"], 2), unit="s")
        # Round robin gives every program one interruption per round: equal rates.
        ctx.row(
            t,
            name,
            "interruptions per second",
            round((u["faults"] + u["vios"]) / wall, 1),
            unit="1/s",
        )
        if u.get("psi_s") is not None:
            ctx.row(t, name, "simulated Ψ_i (eq. 4)", round(u["psi_s"], 2))
        psi_eq = _equivalent_psi(curve, r_sim)
        ctx.row(t, name, "equivalent Ψ_i", round(psi_eq, 2))
        a_eq += _at(curve, psi_eq)["a"]
    return a_eq


def run(ctx: Context) -> None:
    mix = FULL_MIX if ctx.full else SMOKE_MIX
    ns = FULL_N if ctx.full else SMOKE_N
    with tempfile.TemporaryDirectory() as tmp:
        traces = []
        curves = []
        for name, params in mix.items():
            path = Path(tmp) / f"{name}.pltrace"
            programs.generate(name, path, seed=ctx.seed, params=params)
            traces.append(path)
            curves.append(
                lab.psi_curve(path, PSIS, reference_time_s=REFERENCE_S, refs_per_io=REFS_PER_IO)
            )
        ctl_curves = [
            lab.psi_curve(p, PSIS, reference_time_s=CONTROL["reference_s"], refs_per_io=REFS_PER_IO)
            for p in traces
        ]
        _figures(ctx, list(zip(mix, curves, strict=True)))
        frames = [n + len(traces) + 1 for n in ns]
        done = ctx.simulate(
            [_setting(traces, f, full=ctx.full) for f in frames]
            + [_setting(traces, f, full=ctx.full, **CONTROL) for f in frames]
        )
        errors: list[list[float]] = [[] for _ in ctx.seeds]
        twin_errors: list[list[float]] = []
        for n, runs in zip(ns, done, strict=False):
            pred = lab.psi_predict(curves, n)
            per_seed = [_paging(r) for r in runs.reports]
            errs = [100.0 * (pred["paging_rate"] - sim) / sim for _, sim in per_seed]
            rep = runs.reports[0]
            m = rep["metrics"]
            cpu, sim = per_seed[0]
            row = f"N = {n}"
            ctx.row("Round robin", row, "Ψ* (eq. 1)", round(pred["psi_star"], 2))
            ctx.row("Round robin", row, "Ψs* simulated", round(m["psi_s_star"]["value"], 2))
            ctx.row("Round robin", row, "Ψs simulated (eq. 4)", round(m["psi_s"]["value"], 2))
            ctx.row("Round robin", row, "predicted P", round(pred["paging_rate"], 2), unit="1/s")
            ctx.row("Round robin", row, "simulated P", [p for _, p in per_seed], unit="1/s")
            ctx.row("Round robin", row, "error", errs, unit="%")
            setting = _setting(traces, n + len(traces) + 1, full=ctx.full)
            twin_errors.append(_twin_rows(ctx, row, setting, per_seed))
            # Per program: R_i(Ψ*) = f_i / t_i against its exceptions per CPU second simulated.
            # Diagnosis: eq. 1 assumes one Ψ for all. Each program's own eq. 4 over its replaced
            # pages, and its equivalent Ψ (where its R_i(Ψ) equals its simulated rate), show how
            # far the programs' survival indices actually spread; Σ A_i at the equivalent Ψ_i
            # checks the characteristics themselves against the frames (it should be about N).
            a_eq = _per_program(ctx, n, row, (mix, curves), pred, rep, cpu)
            ctx.row("Round robin", row, "Σ A_i(equivalent Ψ_i)", round(a_eq, 1), unit="pages")
            if pred["bound"] == "solved":
                for k, e in enumerate(errs):
                    errors[k].append(abs(e))
            else:
                ctx.notes.append(f"N = {n}: Ψ* {pred['bound']}, left out of the error summary")
        rr = _control(ctx, ns, ctl_curves, done[len(ns) :])
    means = [sum(e) / len(e) if e else float("nan") for e in errors]
    by_seed = [[abs(e[k]) for e in twin_errors] for k in range(len(ctx.seeds))]
    twin_means = [sum(e) / len(e) for e in by_seed]
    ctx.row("Round robin", "all N", "twin's mean |error|", twin_means, unit="%", role="ours")
    # §4's "generally within 30 percent" for other dispatchers: a bound, scored once.
    ctx.row("Round robin", "all N", "mean |error|", means, paper=30.0, unit="%", bound="upper")
    _claims(ctx, rr, means, errors[0])


def _twin_rows(ctx: Context, row: str, setting: tuple, per_seed: list) -> list[float]:
    """The twin's P for one N beside the simulated one (rows `ours`); its error per seed."""
    preset, ov = setting
    users = int(next(o for o in ov if o.startswith("workload.users=")).split("=")[1])
    out = twin.solve(preset, overrides=ov, users=[users], seed=ctx.seed)
    r = out["rows"][0]
    cpu_s = {c["name"]: c["commands"][0]["cpu_s"] for c in out["demands"]["classes"]}
    problem = sum(c["throughput"] * cpu_s[c["class"]] for c in r["classes"])
    p = r["fault_rate"] / problem if problem > 0 else float("nan")
    errs = [100.0 * (p - sim) / sim for _, sim in per_seed]
    ctx.row("Round robin", row, "twin's P", round(p, 2), unit="1/s", role="ours")
    ctx.row("Round robin", row, "twin's error", errs, unit="%", role="ours")
    return errs


#: Bard §4 on eq. 1's predictions.
QUOTE_SECTION4 = (
    "It was shown previously [2] that this procedure works well (predicted paging rates are "
    "generally accurate within 10 percent) for a round-robin dispatcher and gives acceptable "
    "results (generally within 30 percent) for other dispatchers."
)


def _claims(ctx: Context, rr: list[float], cp67: list[float], cp67_first: list[float]) -> None:
    """Bard section 4 gives two figures: "generally accurate within 10 percent" for a
    round-robin dispatcher, "generally within 30 percent" for other dispatchers. The first is
    tested on the run whose dispatching is eq. 2's round-robin cycle (CONTROL), the second on
    CP-67's own dispatcher (50 ms minor slice, programs waiting for their drum reads and I/O)."""
    ctx.claim(
        "within-10-percent",
        "Round-robin predictions of the paging rate are generally within 10 % (bard §4): "
        "the mean |error| over N at most 10 %, every program run to its next interruption",
        effects=rr,
        kind="difference",
        paper_effect=0.0,
        band=(0.0, 10.0),
        evidence="mean |error| per seed: " + ", ".join(f"{e:.1f} %" for e in rr),
        quote=QUOTE_SECTION4,
        reading="psi-rr-within-10",
        changed_after_results=True,
    )
    ctx.claim(
        "other-dispatchers-within-30-percent",
        "With another dispatcher the predictions are generally within 30 % (bard §4): "
        "CP-67's dispatcher, the mean |error| over N at most 30 %",
        effects=cp67,
        kind="difference",
        paper_effect=0.0,
        band=(0.0, 30.0),
        evidence="mean |error| per seed: "
        + ", ".join(f"{e:.1f} %" for e in cp67)
        + "; the first seed's: "
        + ", ".join(f"{e:.1f} %" for e in cp67_first),
        quote=QUOTE_SECTION4,
    )
