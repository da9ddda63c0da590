"""Shared by the Young 1976 reproductions: the benchmark's runs on presets/vm370-mft.toml, its
metrics (batch resident time, CMS response index, CPU by state, page wait, paging rate,
effective guest multiprogramming) and the monitor's PERFORM, USER, DASTAP and SCHEDULE views."""

from __future__ import annotations

from statistics import mean
from typing import Any

from ..reproduce import PER_CENT, Context

PAPER = "Young 1976"
PRESET = "vm370-mft"

# Smoke scale: one copy of the batch stream, one of XMONIT, four CMS users.
SMOKE = [
    "workload.guest.0.stream.1.copies=1",
    "workload.guest.0.stream.0.copies=1",
    "workload.users=4",
]
NO_CMS = ["workload.users=0"]

# (column label, metric key, unit)
METRICS = [
    ("batch resident time", "batch_s", "s"),
    ("CMS response index", "cms_index_s", "s"),
    ("CMS mean response", "cms_response_s", "s"),
    ("XMONIT turnaround", "xmonit_s", "s"),
    ("problem state", "problem_pct", "%"),
    ("supervisor state", "supervisor_pct", "%"),
    ("page wait", "page_wait_pct", "%"),
    ("OS VM in page wait", "vm_page_wait_pct", "%"),
    ("paging rate", "paging_rate", "pages/s"),
    ("effective guest MPL", "effective_mpl", "tasks"),
    ("active partitions", "active_tasks", "tasks"),
    ("OS VM CPU", "os_cpu_s", "s"),
]


def measure(report: dict[str, Any]) -> dict[str, float]:
    """The benchmark's metrics from one run's report."""
    b = report["benchmark"]
    g = b["guests"][0]
    m = report["metrics"]
    streams = {s["name"]: s for s in g["streams"]}
    batch = streams.get("batch")
    xmonit = streams.get("xmonit")
    index = [s["response_index_s"] for s in b["sessions"] if s["response_index_s"] is not None]
    os_user = next(u for u in report["users"] if u["class"] == g["name"])
    return {
        # A stream not finished by the cap counts as the run's length (a lower bound).
        "batch_s": (batch["completed_s"] or b["ended_s"]) if batch else float("nan"),
        "batch_done": float(batch["done"] == batch["jobs"]) if batch else 0.0,
        "cms_index_s": mean(index) if index else float("nan"),
        "cms_response_s": next(
            (
                c["response_mean_s"]
                for c in report["classes"]
                if c["class"] == "cms" and c["transactions"]
            ),
            float("nan"),
        ),
        "xmonit_s": xmonit["mean_turnaround_s"] if xmonit else float("nan"),
        "problem_pct": m["problem_state_pct"]["value"],
        "supervisor_pct": m["supervisor_pct"]["value"],
        "page_wait_pct": m["page_wait_pct"]["value"],
        "vm_page_wait_pct": g["metrics"]["vm_page_wait_pct"]["value"],
        "paging_rate": m["total_paging_rate"]["value"],
        "effective_mpl": g["metrics"]["effective_mpl"]["value"],
        "active_tasks": g["metrics"]["active_tasks"]["value"],
        "os_cpu_s": os_user["cpu_s"],
        "ended_s": b["ended_s"],
    }


class Case:
    """One configuration of the benchmark over the context's seeds."""

    def __init__(self, reports: list[dict[str, Any]]) -> None:
        self.reports = reports
        self.measures = [measure(r) for r in reports]

    def values(self, key: str) -> list[float]:
        return [m[key] for m in self.measures]

    def mean(self, key: str) -> float:
        xs = [x for x in self.values(key) if x == x]
        return mean(xs) if xs else float("nan")


def run_cases(ctx: Context, cases: dict[str, list[str]]) -> dict[str, Case]:
    """Runs every configuration over the scale's seeds, all at once through the sweep engine."""
    extra = [] if ctx.full else SMOKE
    done = ctx.simulate([(PRESET, [*extra, *o]) for o in cases.values()])
    return {label: Case(r.reports) for label, r in zip(cases, done, strict=True)}


def table(ctx: Context, name: str, cases: dict[str, Case]) -> None:
    """One row per metric, one column per case: the mean over seeds and its interval."""
    for label, key, unit in METRICS:
        for column, c in cases.items():
            share = PER_CENT if unit == "%" else None  # each a share of time
            ctx.row(name, label, column, c.values(key), unit=unit, domain=share)


def rate(c: Case) -> list[float]:
    """The OS virtual machine's CPU seconds per second of the run, per seed."""
    return [m["os_cpu_s"] / m["ended_s"] for m in c.measures]


def views(ctx: Context, report: dict[str, Any], column: str) -> None:
    """The monitor's four views of one run (young ch. II §4), reduced to a few rows each."""
    m = report["metrics"]
    for label, key, unit in [
        ("problem state", "problem_state_pct", "%"),
        ("supervisor state", "supervisor_pct", "%"),
        ("page wait", "page_wait_pct", "%"),
        ("CPU busy", "cpu_busy_pct", "%"),
        ("paging rate", "total_paging_rate", "pages/s"),
        ("VIO rate", "vio_rate", "1/s"),
        ("users in queue", "mpl", "users"),
    ]:
        ctx.row("PERFORM", label, column, round(m[key]["value"], 3), unit=unit)
    by_class: dict[str, list[dict[str, Any]]] = {}
    for u in report["users"]:
        by_class.setdefault(u["class"], []).append(u)
    for cls, us in by_class.items():
        ctx.row("USER", f"{cls}: CPU", column, round(sum(u["cpu_s"] for u in us), 3), unit="s")
        ctx.row("USER", f"{cls}: page reads", column, sum(u["page_reads"] for u in us))
        ctx.row("USER", f"{cls}: I/Os", column, sum(u["vios"] for u in us))
        ctx.row(
            "USER",
            f"{cls}: projected working set",
            column,
            round(mean(u["projected_ws"] for u in us), 2),
            unit="pages",
        )
    for d in report["devices"]:
        ctx.row("DASTAP", f"{d['name']}: paging SIOs", column, d["sios"])
        ctx.row("DASTAP", f"{d['name']}: pages read", column, d["reads"])
        ctx.row("DASTAP", f"{d['name']}: pages written", column, d["writes"])
    sched = report["benchmark"]["schedule"]
    names = {u["user"]: u["class"] for u in report["users"]}
    per: dict[str, list[dict[str, Any]]] = {}
    for s in sched:
        per.setdefault(names.get(s["user"], "?"), []).append(s)
    for cls, recs in per.items():
        ctx.row("SCHEDULE", f"{cls}: queue drops", column, len(recs))
        ctx.row(
            "SCHEDULE",
            f"{cls}: CPU per stay",
            column,
            round(mean(r["cpu_s"] for r in recs), 4),
            unit="s",
        )
        ctx.row(
            "SCHEDULE",
            f"{cls}: resident at drop",
            column,
            round(mean(r["resident"] for r in recs), 2),
            unit="pages",
        )
        ctx.row(
            "SCHEDULE",
            f"{cls}: page reads per stay",
            column,
            round(mean(r["page_reads"] for r in recs), 2),
            unit="pages",
        )
