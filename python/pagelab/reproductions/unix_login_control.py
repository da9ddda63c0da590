"""Chanson 1982 §4.3: login load control. An /etc/init-like admission refuses a new user while
the measured reaction time exceeds a threshold; users arrive one every 30 s. With control the
process count stops growing and reaction time levels off; without it both keep rising. Measured
alone, the control admits the login that lifts reaction time over the threshold; consulting
eq. 1 as well (application 2: predict the load increase) keeps it under."""

from __future__ import annotations

from ..reproduce import PER_CENT, Context

NAME = "unix-login-control"
PAPER = "Chanson 1982"
TITLE = "Login load control holds reaction time as users arrive (section 4, application 3)"

THRESHOLD_MS = 1000.0
EQ1 = "{ intercept_ms = 588.0, slope_ms = -16.9 }"  # Chanson §4, eq. 1 (PC = 12 ms)
BASE = [
    "workload.processes=2",
    "memory.core_clicks=1400",
    "login.arrival_s=30",
    "login.window_s=60",
    "login.max_processes=20",
]


#: Chanson §4, application 3: the proposal the claims test.
QUOTE_CONTROL = (
    "If an installation wanted to guarantee its users a certain response level, then a valuable "
    "and easy step would be to change the routine which logs users onto the system "
    '("/etc/init") such that it first examines the current responsiveness of the system. If it '
    "exceeds a given threshold, then the user would be denied access."
)


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def _series(report: dict, column: str) -> list[float]:
    cols = report["intervals"]["columns"]
    return [row[cols.index(column)] for row in report["intervals"]["rows"]]


def run(ctx: Context) -> None:
    ctx.use_fit("unix-v6-fitted")
    extra = [] if ctx.full else ["run.duration_s=600"]
    variants = (
        ("without control", [f"login.threshold_ms={1e12}"]),
        ("with control", [f"login.threshold_ms={THRESHOLD_MS}"]),
        ("with control and eq. 1", [f"login.threshold_ms={THRESHOLD_MS}", f"login.model={EQ1}"]),
    )
    done = ctx.simulate(
        [("unix-v6-fitted", [*BASE, *extra, *settings]) for _, settings in variants]
    )
    runs = {label: r for (label, _), r in zip(variants, done, strict=True)}
    late: dict[str, list[float]] = {}
    for label, r in runs.items():
        halves = [_series(rep, "reaction_time_ms") for rep in r.reports]
        halves = [rt[len(rt) // 2 :] for rt in halves]
        late[label] = [sum(h) / len(h) for h in halves]
        for column, key in (
            ("logins admitted", "logins_admitted"),
            ("logins refused", "logins_refused"),
            ("processes at the end", "processes_end"),
        ):
            ctx.row("login control", label, column, r.metric(key))
        ctx.row("login control", label, "reaction time, second half", late[label], unit="ms")
        over = [100 * sum(1 for x in h if x > THRESHOLD_MS) / len(h) for h in halves]
        column = "second-half intervals over the threshold"
        ctx.row("login control", label, column, over, unit="%", domain=PER_CENT)

    # Application 3 of the paper consults its own fitted equation: a result used as an input.
    for term, value, paper in (("intercept", 588.0, 588.0), ("PCTRMM slope", -16.9, -16.9)):
        ctx.row(
            "Inputs",
            f"eq. 1 {term}",
            "login model",
            value,
            paper=paper,
            unit="ms",
            role="input",
            why="Chanson's eq. 1 (a result of his regression) is the model "
            "section 4.3 consults before admitting a login",
        )
    free, held = runs["without control"], runs["with control"]
    ctx.claim(
        "control-refuses",
        "Login control refuses users once reaction time is high: fewer processes at the end",
        base=free.metric("processes_end"),
        treatment=held.metric("processes_end"),
        direction=-1,
        evidence=f"{held.mean('logins_refused'):.1f} logins refused; "
        f"{held.mean('processes_end'):.1f} processes at the end against "
        f"{free.mean('processes_end'):.1f}; the paper gives no number",
        quote=QUOTE_CONTROL,
    )
    ctx.claim(
        "control-holds-rt",
        "Reaction time with control stays well below (under half) the uncontrolled",
        base=late["without control"],
        treatment=late["with control"],
        direction=-1,
        band=(-1.0, -0.5),
        evidence=f"second half: {_mean(late['with control']):.0f} ms with control, "
        f"{_mean(late['without control']):.0f} ms without (threshold {THRESHOLD_MS:.0f} ms)",
        quote=QUOTE_CONTROL,
        role="ours",  # "under half" is our band; the paper gives no magnitude
    )
    ctx.claim(
        "model-holds-under-threshold",
        "Consulting eq. 1 before admitting holds reaction time under the threshold",
        effects=[x / THRESHOLD_MS - 1 for x in late["with control and eq. 1"]],
        direction=-1,
        evidence=f"second half: {_mean(late['with control and eq. 1']):.0f} ms with eq. 1, "
        f"{_mean(late['with control']):.0f} ms on the measurement alone "
        f"(threshold {THRESHOLD_MS:.0f} ms)",
        role="ours",  # consulting eq. 1 at login is our design, not the paper's
    )
    ctx.notes.append(
        "on the measurement alone the controller admits on the last window's reaction "
        "time, so a login admitted just under the threshold can lift it above and, since "
        "the prototype processes never log off, it stays there"
    )
