"""Tetzlaff et al. 1987, the lessons on the free list and the garbage collector, each as a
variant of the Table 2 prototype (presets/hpo-prototype.toml, with the fitted 3081 base and the
Q2 limit of the paper's own experiment, as hpo-table2 runs it):

* **the old free list** (`memory.free_target_extra = 1`, VM's "multiprogramming set plus one",
  TETZ "Free list in VM") instead of the prototype's raised minimum ("Free list
  replenishment": "the correction is to increase the minimum size of the free list"). Things
  learned 2: "When free list value was not set high enough, significant (higher than one
  percent) stealing occurred"; 7: "The old size of the free list is inadequate in a swap
  environment [...] the old free list could not supply frames fast enough";
* **no garbage collector** (`swapping.garbage_collector = false`): "core table scan is not normally
  invoked (except as a last resort); thus a new mechanism is required to handle disposable
  pages" ("Garbage collector"). Without it the spool and other non-user pages leave storage only
  through the scan, which then steals from users in queue.

"The free list was frequently empty" is measured as the share of faults that found no free
frame and waited for a page-out or swap-out to finish (`frame_wait_pct`); "could not supply
frames fast enough" also as the pages a swap-in had to leave on their slots
(`prepage_short_rate`).

**The large guest** (lesson 6, "Prepaging large (Q2) users may be destructive", and "Prepaging
at queue-add": "If all the swap sets were always swapped in or out at once, a large user, e.g.,
a Multiple Virtual Storage (MVS) guest, could easily overwhelm the paging subsystem"). The paper
gives no guest's size or load; ours [A] is one more virtual machine beside the 310 users, a
long-running one with a drifting working set of `GUEST_PAGES` (4 MB, a quarter of the 3081's
storage) that computes in short requests (`GUEST_CPU_MS` with `GUEST_VIO` I/Os, no think), so
that it is dropped from and added to the queue often; the deadline dispatcher gives it its fair
share of the saturated processors. Three variants: the guest under the prototype's limited
prepaging (two sets for Q1, none for a Q2 user), the guest with every set of every user
prepaged at queue-add (`swapping.full_prepage`), and full prepaging without the guest. The claims
compare full prepaging with the limited one, both with the guest, and ask whether the guest
makes full prepaging costlier than it is without one (the difference of the two paired
differences per seed). Prepaging here stops when the free list is empty (the pages left stay on
their slots, `System::swap_queue_add`), which bounds what one queue-add can take; that is our
reading of "would fully consume the free list in order to prepage". The four runs are made
twice: on the Table 2 configuration, and with the swap areas on 3350s, lesson 6's own setting
("the 3350s used could not support the heavy instantaneous paging load").

"Stealing higher than one percent" is read as the frames the core-table scan took, per frame
supplied to the free list (`scan_take_pct`): the paper ties its steal rate to the scan ("If core
table scan is invoked frequently, as demonstrated by a high steal rate in VMMAP, the swap
mechanism is not functioning properly", "Results"), which in the prototype is the last resort
after the flush list and physical swap-out. This reading replaced a first one, Bard's steal
ratio (1975 §6: page reads into frames taken from users in queue), after its results were
seen: that ratio also counts frames taken from the flush list whose owners have come back in
queue, which the prototype's trimming expects, and it came out at 3.3-3.4 % with either free
list. Its claims stay in the record, suffixed `-bard-ratio`. Each threshold is read both ways:
over 1 % with the old free list, at most 1 % with the raised one (the paper's correction). The
paper gives no number beyond that 1 %; the other claims state the direction. They may fail; a
failure is recorded with the measured effect.

Every run is of the production mix (`hpo_fit.PRODUCTION_MIX`: the benchmark's scripts plus 2 %
of long-running users [A]), since the lessons come from running the prototype, in production
among others. With the benchmark's scripts alone the prototype never steals (0 frames taken by
the scan with either free list, 5 seeds), so lessons 2 and 7 could not show at all there.
"""

from __future__ import annotations

from ..reproduce import Context
from .hpo_fit import direction_claims, limit_override, production_fit, q2_limit, runs_note

NAME = "hpo-lessons"
PAPER = "Tetzlaff et al. 1987"
TITLE = "Things learned: the free list's size, the garbage collector and the large guest"

SMOKE = ["run.duration_s=300", "run.warmup_s=60", "monitor.interval_s=30"]

#: The large guest [A]: its working set [pages], CPU per request [ms] and I/Os per request.
GUEST_PAGES = 1024
GUEST_CPU_MS = 50
GUEST_VIO = 5
#: One more user, appended as a class of its own (a share that deals it exactly one user).
GUEST = [
    "workload.users=311",
    "workload.class.2={"
    'name = "large-guest", fraction = 0.002, think = { kind = "fixed", s = 0.0 }, '
    f'commands = [ {{ name = "request", cpu_ms = {GUEST_CPU_MS}.0, vio = {GUEST_VIO} }} ], '
    f'program = {{ kind = "drifting", set_pages = {GUEST_PAGES}, '
    f"address_pages = {4 * GUEST_PAGES}, drift = 0.05, locality_pages = {GUEST_PAGES // 4}, "
    "runs_per_phase = 2000, refs_per_run = 800.0, write_fraction = 0.4 } }",
]
FULL = ["swapping.full_prepage=true"]
#: Lesson 6's setting: "the 3350s used could not support the heavy instantaneous paging load"
#: of swapping whole working sets. The prototype's three swap-area devices become 3350s.
ON_3350S = [f'device.{i}.model="3350"' for i in range(3)]

#: (experiment, overrides of the prototype)
EXPERIMENTS = [
    ("old-free-list", ["memory.free_target_extra=1"]),
    ("no-gc", ["swapping.garbage_collector=false"]),
    ("large-guest", GUEST),
    ("large-guest-full-prepage", [*GUEST, *FULL]),
    ("full-prepage", FULL),
    ("on-3350s", ON_3350S),
    ("large-guest-on-3350s", [*ON_3350S, *GUEST]),
    ("large-guest-full-prepage-on-3350s", [*ON_3350S, *GUEST, *FULL]),
    ("full-prepage-on-3350s", [*ON_3350S, *FULL]),
]

METRICS = [
    ("Q1 seconds", "q1_seconds", "s"),
    ("Frames the scan took, per frame supplied", "scan_take_pct", "%"),
    ("Frames the scan took from users in queue, per frame supplied", "scan_steal_pct", "%"),
    ("Steal ratio (Bard)", "steal_ratio", "fraction"),
    ("Steal rate", "steal_rate", "1/s"),
    ("Demand paging rate", "demand_paging_rate", "pages/s"),
    ("Demand reads of pages that left from the flush list", "flush_reread_pct", "%"),
    ("Page reads per Q1", "page_reads_per_q1", "pages"),
    ("Swap paging rate", "swap_paging_rate", "pages/s"),
    ("Users in page wait", "users_page_wait_pct", "%"),
    ("Faults that waited for a frame", "frame_wait_pct", "%"),
    ("Prepaged pages left for want of a frame", "prepage_short_rate", "pages/s"),
    ("Garbage collector flushes", "gc_flush_rate", "pages/s"),
    ("Core scan cycle", "scan_cycle_s", "s"),
]

#: "significant (higher than one percent) stealing" (Things learned 2).
STEAL_THRESHOLD = 0.01
#: The readings of "stealing" held against the threshold: (metric, name, its scale to 1).
THRESHOLD_READINGS = [
    ("scan_take_pct", "frames the core-table scan took per frame supplied", 100.0),
    ("steal_ratio", "Bard's steal ratio", 1.0),
]

#: (experiment, metric, label, text, claim id, direction the paper states)
CLAIMS = [
    (
        "old-free-list",
        "frame_wait_pct",
        "faults that waited for a frame [%]",
        "With the old free list it is more often empty when a fault needs a frame",
        "often-empty",
        1,
    ),
    (
        "old-free-list",
        "scan_take_pct",
        "frames the scan took [% of supplied]",
        "With the old free list the core-table scan takes more of the frames",
        "steals-up",
        1,
    ),
    (
        "old-free-list",
        "steal_ratio",
        "steal ratio (Bard)",
        "With the old free list more of the frames read into are stolen (Bard's steal ratio)",
        "bard-ratio-up",
        1,
    ),
    (
        "old-free-list",
        "q1_seconds",
        "Q1 seconds",
        "The old free list cannot supply frames fast enough: trivial response worse",
        "worse",
        1,
    ),
    (
        "no-gc",
        "scan_take_pct",
        "frames the scan took [% of supplied]",
        "Without the garbage collector the core-table scan takes more of the frames",
        "scan-up",
        1,
    ),
    (
        "no-gc",
        "steal_rate",
        "steals [1/s]",
        "Without the garbage collector more frames are taken from users in queue",
        "steals-up",
        1,
    ),
    (
        "no-gc",
        "q1_seconds",
        "Q1 seconds",
        "Without the garbage collector trivial response is worse",
        "worse",
        1,
    ),
    (
        "large-guest-full-prepage",
        "q1_seconds",
        "Q1 seconds",
        "With a large guest, prepaging every swap set at queue-add worsens trivial response "
        "against the prototype's limited prepaging",
        "worse",
        1,
    ),
    (
        "large-guest-full-prepage",
        "frame_wait_pct",
        "faults that waited for a frame [%]",
        "With a large guest, full prepaging consumes the free list: more faults wait for a frame",
        "free-list-consumed",
        1,
    ),
    (
        "large-guest-full-prepage",
        "swap_paging_rate",
        "swap paging [pages/s]",
        "With a large guest, full prepaging raises the swap paging load",
        "swap-load-up",
        1,
    ),
]

# The large guest's claims again on lesson 6's 3350s.
CLAIMS += [
    (
        f"{exp}-on-3350s",
        key,
        label,
        f"On 3350s (lesson 6's setting): {text[0].lower()}{text[1:]}",
        cid,
        d,
    )
    for exp, key, label, text, cid, d in CLAIMS
    if exp == "large-guest-full-prepage"
]

#: The paper's sentence each claim tests ("Things learned", "Free list replenishment",
#: "Garbage collector", "Prepaging at queue-add").
_EMPTY = (
    "During early runs with the prototype we observed that the free list was frequently empty. "
    "This problem is serious, because it leads to waiting for page-out completion before "
    "pageins can be scheduled."
)
_STEAL = (
    "When free list value was not set high enough, significant (higher than one percent) "
    "stealing occurred."
)
_SLOW = (
    "The old size of the free list is inadequate in a swap environment. Prepaging requires that "
    "many free pages be available suddenly, and the old free list could not supply frames fast "
    "enough."
)
_GC = (
    "In the experimental system, core table scan is not normally invoked (except as a last "
    'resort); thus a new mechanism is required to handle "disposable" pages of this type.'
)
_GUEST = (
    "Prepaging large (Q2) users may be destructive. [...] If all the swap sets were always "
    "swapped in or out at once, a large user, e.g., a Multiple Virtual Storage (MVS) guest, "
    "could easily overwhelm the paging subsystem."
)
QUOTES = {
    "old-free-list-often-empty": _EMPTY,
    "old-free-list-steals-up": _STEAL,
    "old-free-list-bard-ratio-up": _STEAL,
    "old-free-list-worse": _SLOW,
    "no-gc-scan-up": _GC,
    "no-gc-steals-up": _GC,
}
for _tag in ("", "-on-3350s"):
    for _cid in ("worse", "free-list-consumed", "swap-load-up"):
        QUOTES[f"large-guest-full-prepage{_tag}-{_cid}"] = _GUEST
#: Shown, not scored: Bard's ratio is the second showing of the stealing lesson (score-once);
#: "worse without the garbage collector" has no sentence of the paper's; the large guest's
#: claims count once, on lesson 6's own 3350s.
OURS = frozenset(
    {
        "old-free-list-bard-ratio-up",
        "no-gc-worse",
        *(f"large-guest-full-prepage-{c}" for c in ("worse", "free-list-consumed", "swap-load-up")),
    }
)

#: Against which run each experiment's direction claims are paired (default: the prototype).
CLAIM_BASE = {
    "large-guest-full-prepage": "large-guest",
    "large-guest-full-prepage-on-3350s": "large-guest-on-3350s",
}


def run(ctx: Context) -> None:
    extra = production_fit(ctx, SMOKE)
    limit, _ = q2_limit(ctx, "hpo-prototype", extra, "3081", "Q2 limit experiment")
    proto = [*extra, *limit_override(limit)]
    settings = [("hpo-prototype", proto)]
    settings += [("hpo-prototype", [*proto, *over]) for _, over in EXPERIMENTS]
    base, *variants = ctx.simulate(settings)
    res = {exp: v for (exp, _), v in zip(EXPERIMENTS, variants, strict=True)}
    for row, key, unit in METRICS:
        ctx.row("Prototype", row, "Prototype", base.metric(key), unit=unit)
        for exp, v in res.items():
            ctx.row("Prototype", row, exp, v.metric(key), unit=unit)
    old = res["old-free-list"]
    thresholds = (
        (
            "old-free-list-steals-over-1pct",
            "With the old free list stealing is significant",
            old,
            1,
        ),
        ("raised-free-list-steals-under-1pct", "With the raised free list it is not", base, -1),
    )
    for cid, text, run, sign in thresholds:
        for key, reading, scale in THRESHOLD_READINGS:
            # The first reading (Bard's ratio) was replaced after its results were seen: it
            # is shown, not scored; and "over 1 % with the old list" alone holds with either
            # list, so the lesson is scored as the paired contrast below (docs/readings.md).
            first = key != "scan_take_pct"
            ctx.claim(
                cid + ("" if key == "scan_take_pct" else "-bard-ratio"),
                f"{text}: {reading} {'over' if sign > 0 else 'at most'} 1 %",
                effects=[sign * (v / scale - STEAL_THRESHOLD) for v in run.metric(key)],
                kind="difference",
                direction=1,
                evidence=f"{reading} {run.mean(key) / scale:.3g}; effect is "
                + ("it minus" if sign > 0 else "minus it plus")
                + f" {STEAL_THRESHOLD:g}",
                quote=QUOTES["old-free-list-steals-up"],
                role="ours" if sign > 0 else "paper",
                changed_after_results=first,
                reading="hpo-steal-reading" if first else None,
            )
    pairs = {exp: (res.get(CLAIM_BASE.get(exp, ""), base), v) for exp, v in res.items()}
    direction_claims(ctx, CLAIMS, pairs, QUOTES, OURS)
    q1 = {name: run.metric("q1_seconds") for name, run in [("prototype", base), *res.items()]}
    guest_interaction(ctx, q1, "", "prototype")
    guest_interaction(ctx, q1, "-on-3350s", "on-3350s")
    runs_note(ctx)


def guest_interaction(ctx: Context, q1: dict[str, list[float]], tag: str, proto: str) -> None:
    """Whether the large guest makes full prepaging costlier: per seed, what full prepaging adds
    to Q1 seconds with the guest, less what it adds without one (the runs named with `tag`;
    `proto` is the run without either)."""
    cols = [f"large-guest{tag}", f"large-guest-full-prepage{tag}", proto, f"full-prepage{tag}"]
    effects = [(gf - g) - (f - p) for g, gf, p, f in zip(*(q1[c] for c in cols), strict=True)]
    adds = [sum(q1[b]) / len(q1[b]) - sum(q1[a]) / len(q1[a]) for a, b in (cols[:2], cols[2:])]
    where = " (on 3350s, lesson 6's setting)" if tag else ""
    ctx.claim(
        f"large-guest-makes-full-prepage-costlier{tag}",
        "A large user makes prepaging every swap set destructive: full prepaging costs trivial "
        f"response more with a large guest than without one{where}",
        effects=effects,
        kind="difference",
        direction=1,
        evidence=f"Q1 s: full prepaging adds {adds[0]:+.3g} with the guest, {adds[1]:+.3g} "
        "without; the paper gives no number",
        quote=_GUEST,
        role="paper" if tag else "ours",
    )
