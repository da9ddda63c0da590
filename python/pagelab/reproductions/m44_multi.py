"""Brawn & Gustavson 1968, figures 10-13: the M44/44X multiprogrammed with identical copies of
the casual sort (T4.1XQ) and the well-coded sort (T4.1XQR*), time per job against the
multiprogramming level, with and without the load leveler, under FIFO, BIFO and AR, as the
real store shrinks from 184K to 32K words.

Every point is one run of the M44 engine (``presets/m44.toml``): the jobs start together and
run to completion; Time/Job is the elapsed time divided by the number of jobs. "Sequential" is
the time of one job alone in the same store (MPL 1). The paper's figures carry no printed
numbers, so the rows are ours; the claims are the paper's story in words, checked against them.
The load leveler's criteria are not in the paper (fidelity-notes §6.3), so a sensitivity table
varies them one at a time.
"""

from __future__ import annotations

import time
from typing import Any

from ..reproduce import Context

NAME = "m44-multi"
PAPER = "Brawn & Gustavson 1968"
TITLE = "Multiprogramming the casual and the well-coded sort on the M44/44X (figures 10-13)"

CASUAL, GOOD = "t4-1xq", "t4-1xqr-star"
LABEL = {CASUAL: "T4.1XQ", GOOD: "T4.1XQR*"}
MPLS = [1, 2, 3, 4, 5]

#: Real store sizes [K words = pages] at the paper's scale: 184K full, 64K for Figure 12, and
#: the Figure 13 sweep down to 32K.
FULL = {"items": 10_000, "store": 184, "fig12": 64, "fig13": [184, 128, 96, 64, 48, 32]}
#: Smoke scale: a 4,000-item file (40 pages, not 100) in 5 sublists of 8 pages, so that the
#: well-coded sort's working set (a sublist and ~2 pages) keeps about its full-scale proportion
#: to the stores: 184K -> 76K (1.8x the program), 64K -> 34K (5 working sets) and so on.
SMOKE = {"items": 4_000, "sublists": 5, "store": 76, "fig12": 34, "fig13": [76, 34, 26, 17]}

#: Leveler parameters varied one at a time (defaults: fidelity-notes §6.3).
SENSITIVITY: list[tuple[str, list[Any]]] = [
    ("period_s", [0.5, 2.0, 5.0]),
    ("overload_paging", [0.6, 1.0]),
    ("overload_cpu", [0.3, 0.7]),
    ("underload_paging", [0.25, 0.75]),
    ("underload_cpu", [0.6, 0.95]),
]


def _run(ctx: Context, sc: dict[str, Any], program: str, mpl: int, store: int, **kw: Any) -> dict:
    """One configuration over the context's seeds: each metric's value per seed."""
    o = [
        f"workload.program={program}",
        f"workload.copies={mpl}",
        f"memory.store_words={store * 1024}",
        f"workload.params.sort.items={sc['items']}",
    ]
    if "sublists" in sc:
        o.append(f"workload.params.sort.sublists={sc['sublists']}")
    if "policy" in kw:
        o.append(f'replacement.policy="{kw["policy"]}"')
    if "bifo_interval_s" in kw:
        o.append(f"replacement.bifo_interval_s={kw['bifo_interval_s']}")
    if kw.get("leveler"):
        o.append("leveler.enabled=true")
        o += [f"leveler.{k}={v}" for k, v in kw.get("leveler_params", {}).items()]
    r = ctx.run("m44", o)
    return {
        k: r.metric(k) for k in ("time_per_job_s", "pulls_per_job", "cpu_busy_pct", "set_asides")
    }


def _row(ctx: Context, table: str, row: str, r: dict) -> None:
    ctx.row(table, row, "time per job", r["time_per_job_s"], unit="s")
    ctx.row(table, row, "pulls per job", r["pulls_per_job"], unit="pages")
    ctx.row(table, row, "CPU busy", r["cpu_busy_pct"], unit="%")
    if any(r["set_asides"]):
        ctx.row(table, row, "set asides", r["set_asides"], unit="count")


def run(ctx: Context) -> None:
    sc = FULL if ctx.full else SMOKE
    res: dict[str, dict] = {}

    def timed(fig: str, f: Any) -> None:
        t0 = time.perf_counter()
        f(ctx, sc, res)
        ctx.notes.append(f"{fig}: {time.perf_counter() - t0:.1f} s wall")

    timed("Fig 10", _fig10)
    timed("Fig 11", _fig11)
    timed("Fig 12", _fig12)
    timed("Fig 13", _fig13)
    if ctx.full:
        timed("leveler sensitivity", _sensitivity)
    _claims(ctx, sc, res)
    if ctx.draws:
        _figures(ctx, sc, res)


def _fig10(ctx: Context, sc: dict[str, Any], res: dict[str, dict]) -> None:
    """Figure 10: the casual and the well-coded sort at each MPL, under BIFO and AR."""
    store = sc["store"]
    for program in (CASUAL, GOOD):
        for mpl in MPLS:
            r = _run(ctx, sc, program, mpl, store, policy="bifo")
            res[f"10/{program}/{mpl}"] = r
            _row(ctx, f"Fig 10 ({store}K, BIFO)", f"{LABEL[program]} MPL {mpl}", r)
    # B&G, "The effects of page replacement algorithm": the same runs under AR "differed
    # little" (T4.1XQ) and were "inconsequential" (T4.1XQR* at 184K).
    for program in (CASUAL, GOOD):
        for mpl in MPLS:
            r = _run(ctx, sc, program, mpl, store, policy="ar")
            res[f"10ar/{program}/{mpl}"] = r
            _row(ctx, f"Fig 10 ({store}K, AR)", f"{LABEL[program]} MPL {mpl}", r)


def _fig11(ctx: Context, sc: dict[str, Any], res: dict[str, dict]) -> None:
    """Figure 11: the casual sort under BIFO with the load leveler."""
    store = sc["store"]
    for mpl in MPLS[1:]:
        r = _run(ctx, sc, CASUAL, mpl, store, policy="bifo", leveler=True)
        res[f"11/{mpl}"] = r
        _row(ctx, f"Fig 11 ({store}K, BIFO, leveler)", f"T4.1XQ MPL {mpl}", r)


def _fig12(ctx: Context, sc: dict[str, Any], res: dict[str, dict]) -> None:
    """Figure 12: the well-coded sort in the smaller store under each policy."""
    for policy in ("fifo", "bifo", "ar"):
        for mpl in MPLS:
            r = _run(ctx, sc, GOOD, mpl, sc["fig12"], policy=policy)
            res[f"12/{policy}/{mpl}"] = r
            _row(ctx, f"Fig 12 ({sc['fig12']}K)", f"{policy.upper()} MPL {mpl}", r)
        if policy != "ar":
            r = _run(ctx, sc, GOOD, 5, sc["fig12"], policy=policy, leveler=True)
            res[f"12/{policy}/5L"] = r
            _row(ctx, f"Fig 12 ({sc['fig12']}K)", f"{policy.upper()} MPL 5 leveled", r)


def _fig13(ctx: Context, sc: dict[str, Any], res: dict[str, dict]) -> None:
    """Figure 13: the well-coded sort under BIFO over store sizes."""
    for k in sc["fig13"]:
        for mpl in (1, 3, 5):
            r = _run(ctx, sc, GOOD, mpl, k, policy="bifo")
            res[f"13/{k}/{mpl}"] = r
            _row(ctx, "Fig 13 (BIFO)", f"{k}K MPL {mpl}", r)
    for k in sc["fig13"][-2:]:
        r = _run(ctx, sc, GOOD, 5, k, policy="bifo", leveler=True)
        res[f"13/{k}/5L"] = r
        _row(ctx, "Fig 13 (BIFO)", f"{k}K MPL 5 leveled", r)


def _sensitivity(ctx: Context, sc: dict[str, Any], res: dict[str, dict]) -> None:
    """The load leveler's and BIFO's unpublished parameters, varied."""
    store = sc["store"]
    cases = [
        (CASUAL, store, "casual 5 jobs"),
        (GOOD, sc["fig13"][-2], "well-coded 5 jobs"),
        (GOOD, sc["fig13"][-1], "well-coded 5 jobs"),
    ]
    for program, k, what in cases:
        base = _run(ctx, sc, program, 5, k, policy="bifo", leveler=True)
        res[f"s/{program}/{k}/default"] = base
        _sens_row(ctx, what, k, "defaults", base)
        for key, values in SENSITIVITY:
            for v in values:
                r = _run(
                    ctx, sc, program, 5, k, policy="bifo", leveler=True, leveler_params={key: v}
                )
                res[f"s/{program}/{k}/{key}={v}"] = r
                _sens_row(ctx, what, k, f"{key}={v}", r)
    # BIFO's interval is not in the paper either (fidelity-notes §6.2).
    for v in (0.25, 1.0, 4.0):
        k = sc["fig12"]
        r = _run(ctx, sc, GOOD, 5, k, policy="bifo", bifo_interval_s=v)
        ctx.row(
            f"BIFO interval sensitivity: well-coded 5 jobs at {k}K",
            f"bifo_interval_s={v}",
            "time per job",
            r["time_per_job_s"],
            unit="s",
        )
    _casual_interval(ctx, sc)


def _casual_interval(ctx: Context, sc: dict[str, Any]) -> None:
    """The casual sort at full store, where AR and BIFO part (fig10-ar-like-bifo T4.1XQ), under
    BIFO at other intervals, beside AR and plain FIFO: AR's use bits, cleared every slice, mark
    the pages of the job that ran, so it replaces the waiting job's pages first and in effect
    favours the running job; BIFO favours one job on a clock, FIFO none."""
    store = sc["store"]
    t = f"BIFO interval sensitivity: casual sort at {store}K, against AR and FIFO"
    for mpl in (2, 3):
        for policy in ("ar", "fifo"):
            r = _run(ctx, sc, CASUAL, mpl, store, policy=policy)
            ctx.row(t, f"MPL {mpl}", policy.upper(), r["time_per_job_s"], unit="s")
        for v in (0.25, 1.0, 4.0, 16.0):
            r = _run(ctx, sc, CASUAL, mpl, store, policy="bifo", bifo_interval_s=v)
            ctx.row(t, f"MPL {mpl}", f"BIFO, bifo_interval_s={v}", r["time_per_job_s"], unit="s")


def _sens_row(ctx: Context, what: str, k: int, setting: str, r: dict) -> None:
    table = f"leveler sensitivity: {what} at {k}K"
    ctx.row(table, setting, "time per job", r["time_per_job_s"], unit="s")
    ctx.row(table, setting, "set asides", r["set_asides"], unit="count")


def _t(res: dict, key: str) -> float:
    """Mean time per job over the seeds."""
    xs = res[key]["time_per_job_s"]
    return float(sum(xs) / len(xs))


def _ts(res: dict, key: str) -> list[float]:
    """Time per job in each seed's run."""
    return [float(x) for x in res[key]["time_per_job_s"]]


def _by_seed(*series: list[float]) -> list[tuple[float, ...]]:
    return list(zip(*series, strict=True))


#: Brawn and Gustavson's sentence each claim tests, by the claim's id (before any space).
_FIG10 = (
    "Clearly the efficiency of the system is nearly identical whether multi-programmed at the "
    "two level or the five-level in the case of the well-coded program, T4.1XQR*, but is "
    "substantially degraded for each additional job in the case of the casually coded version, "
    "T4.1XQ. [...] (For T4.1XQR* multi-programming is consistently more advantageous than "
    "running sequentially up through the five-level.)"
)
_FIG11 = (
    "Figure 11 shows the remarkable improvement which the load leveler achieved [...] when "
    "there were three or more jobs involved. Unfortunately, the efficiency is still "
    "substantially worse than in the sequential case."
)
_FIG12 = (
    "The level of multi-programming for which the efficiency is optimum is in all cases three; "
    "however, in the case of the AR algorithm, multi-programming at the five-level with only "
    "64K of real memory is still more advantageous than running the five jobs sequentially "
    "(with the same 64K of real memory). Note that this is also true when running under the "
    "other algorithms with load leveling."
)
_FIG13 = (
    "As can be seen in Figure 13, while improving performance, the load leveler was not able "
    "to improve it sufficiently to compare favorably with the single-programmed sequential case."
)
QUOTES = {
    "fig10-good-flat": _FIG10,
    "fig10-good-beats-sequential": _FIG10,
    "fig10-casual-worse": _FIG10,
    "fig10-ar-like-bifo": "In the case of T4.1XQ, runs were made using the more sophisticated "
    "AR algorithm but the data collected differed little from that obtained for the BIFO "
    "algorithm. Similarly, in the case of T4.1XQR* the difference in the results is "
    "inconsequential for those runs made where all of real core (184K) was available.",
    "fig11-leveler-helps": _FIG11,
    "fig11-still-worse": _FIG11,
    "fig12-best-three": _FIG12,
    "fig12-ar-five": _FIG12,
    "fig12-leveled-five": _FIG12,
    "fig13-leveler-helps": _FIG13,
    "fig13-not-enough": _FIG13,
    "fig13-five-share-32k": "Five jobs, each requiring 129 pages, shared a 32K memory and still "
    "behaved reasonably well!",
}


def _claims(ctx: Context, sc: dict[str, Any], res: dict) -> None:
    store = sc["store"]
    good = _by_seed(*(_ts(res, f"10/{GOOD}/{m}") for m in MPLS))
    bad = _by_seed(*(_ts(res, f"10/{CASUAL}/{m}") for m in MPLS))
    fmt = lambda xs: ", ".join(f"{x:.0f}" for x in xs)  # noqa: E731
    mean_good = [_t(res, f"10/{GOOD}/{m}") for m in MPLS]
    mean_bad = [_t(res, f"10/{CASUAL}/{m}") for m in MPLS]

    def claim(cid: str, text: str, effects: list[float], evidence: str, **kw: Any) -> None:
        quote = QUOTES[cid.split(" ")[0]]
        ctx.claim(
            cid, text, effects=effects, kind="difference", evidence=evidence, quote=quote, **kw
        )

    claim(
        "fig10-good-flat",
        f"T4.1XQR* at {store}K: time per job nearly the same at MPL 2 to 5 (within 15%)",
        [max(g[1:]) / min(g[1:]) - 1 for g in good],
        f"time/job MPL 1-5: {fmt(mean_good)} s",
        paper_effect=0.0,
        band=(-0.15, 0.15),
    )
    claim(
        "fig10-good-beats-sequential",
        f"T4.1XQR* at {store}K: time per job below sequential at every level 2 to 5",
        [max(g[1:]) / g[0] - 1 for g in good],
        f"time/job MPL 1-5: {fmt(mean_good)} s",
        direction=-1,
    )
    claim(
        "fig10-casual-worse",
        f"T4.1XQ at {store}K: time per job grows with every added job",
        [min(b2 / b1 - 1 for b1, b2 in zip(b, b[1:], strict=False)) for b in bad],
        f"time/job MPL 1-5: {fmt(mean_bad)} s (effect: the smallest step up)",
        direction=1,
    )
    for program, said in ((CASUAL, "differed little"), (GOOD, "was inconsequential")):
        ar = _by_seed(*(_ts(res, f"10ar/{program}/{m}") for m in MPLS))
        bifo = _by_seed(*(_ts(res, f"10/{program}/{m}") for m in MPLS))
        claim(
            f"fig10-ar-like-bifo {LABEL[program]}",
            f"{LABEL[program]} at {store}K: AR and BIFO {said} (time per job within 25% of "
            "each other at every level 1 to 5)",
            [
                max(abs(x / y - 1) for x, y in zip(a, b, strict=True))
                for a, b in zip(ar, bifo, strict=True)
            ],
            f"AR time/job MPL 1-5: {fmt([_t(res, f'10ar/{program}/{m}') for m in MPLS])} s; "
            f"BIFO {fmt([_t(res, f'10/{program}/{m}') for m in MPLS])} s "
            "(effect: the largest |AR/BIFO - 1|)",
            paper_effect=0.0,
            band=(-0.25, 0.25),
        )
    lev = _by_seed(*(_ts(res, f"11/{m}") for m in MPLS[1:]))
    claim(
        "fig11-leveler-helps",
        "The load leveler markedly helps the casual sort at three or more jobs "
        "(time per job at most 0.75x unleveled)",
        [max(lv[m - 2] / b[m - 1] for m in (3, 4, 5)) - 1 for lv, b in zip(lev, bad, strict=True)],
        "leveled/unleveled at MPL 3, 4, 5 (effect: the least gain, minus one)",
        direction=-1,
        band=(-1.0, -0.25),
    )
    claim(
        "fig11-still-worse",
        "... but stays worse than sequential",
        [min(lv) / b[0] - 1 for lv, b in zip(lev, bad, strict=True)],
        f"leveled time/job MPL 2-5: {fmt([_t(res, f'11/{m}') for m in MPLS[1:]])} s; "
        f"sequential {mean_bad[0]:.0f} s",
        direction=1,
    )
    _claims_12_13(ctx, sc, res, claim)


def _claims_12_13(ctx: Context, sc: dict[str, Any], res: dict, claim: Any) -> None:
    """Figures 12 and 13: the best level, AR and the leveler at five jobs, small stores."""
    store, k12 = sc["store"], sc["fig12"]
    fmt = lambda xs: ", ".join(f"{x:.0f}" for x in xs)  # noqa: E731
    seq = {}
    for policy in ("fifo", "bifo", "ar"):
        ts = _by_seed(*(_ts(res, f"12/{policy}/{m}") for m in MPLS))
        seq[policy] = [t[0] for t in ts]
        claim(
            f"fig12-best-three {policy}",
            f"T4.1XQR* at {k12}K: the best multiprogramming level is three ({policy.upper()})",
            [float(MPLS[t.index(min(t))]) for t in ts],
            f"{policy.upper()} time/job MPL 1-5: "
            f"{fmt([_t(res, f'12/{policy}/{m}') for m in MPLS])} s",
            paper_effect=3.0,
            band=(2.5, 3.5),
        )
    ar5 = _ts(res, "12/ar/5")
    claim(
        "fig12-ar-five",
        f"At {k12}K, AR at MPL 5 still beats running the five jobs sequentially",
        [a / s - 1 for a, s in zip(ar5, seq["ar"], strict=True)],
        f"AR time/job MPL 5 {_t(res, '12/ar/5'):.0f} s, sequential {_t(res, '12/ar/1'):.0f} s",
        direction=-1,
    )
    for p in ("fifo", "bifo"):
        claim(
            f"fig12-leveled-five {p}",
            f"At {k12}K, {p.upper()} with the load leveler at MPL 5 also beats sequential",
            [a / s - 1 for a, s in zip(_ts(res, f"12/{p}/5L"), seq[p], strict=True)],
            f"{p.upper()} leveled {_t(res, f'12/{p}/5L'):.0f} s vs sequential "
            f"{_t(res, f'12/{p}/1'):.0f} s",
            direction=-1,
        )
    for k in sc["fig13"][-2:]:
        lv5, un5, one = _ts(res, f"13/{k}/5L"), _ts(res, f"13/{k}/5"), _ts(res, f"13/{k}/1")
        where = (
            f"{k}K: leveled {_t(res, f'13/{k}/5L'):.0f} s, unleveled {_t(res, f'13/{k}/5'):.0f} s, "
            f"sequential {_t(res, f'13/{k}/1'):.0f} s"
        )
        claim(
            f"fig13-leveler-helps {k}K",
            f"At {k}K the leveler improves MPL 5",
            [a / b - 1 for a, b in zip(lv5, un5, strict=True)],
            where,
            direction=-1,
        )
        claim(
            f"fig13-not-enough {k}K",
            f"... but not to sequential at {k}K",
            [a / b - 1 for a, b in zip(lv5, one, strict=True)],
            where,
            direction=1,
        )
    tiny = sc["fig13"][-1]
    five = [
        min(a, b) for a, b in zip(_ts(res, f"13/{tiny}/5"), _ts(res, f"13/{tiny}/5L"), strict=True)
    ]
    ref = _ts(res, f"13/{store}/1")
    claim(
        "fig13-five-share-32k",
        f"Five well-coded sorts share {tiny}K and still behave reasonably: time per job "
        f"within 2x of one job alone in {store}K",
        [f / r - 1 for f, r in zip(five, ref, strict=True)],
        f"{sum(five) / len(five):.0f} s per job at {tiny}K MPL 5 (best of leveled/unleveled) "
        f"vs {_t(res, f'13/{store}/1'):.0f} s",
        paper_effect=0.0,
        band=(-1.0, 1.0),
    )


def _figures(ctx: Context, sc: dict[str, Any], res: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axs = plt.subplots(1, 4, figsize=(18, 4))
    ax = axs[0]
    for program in (CASUAL, GOOD):
        ax.plot(MPLS, [_t(res, f"10/{program}/{m}") for m in MPLS], "o-", label=LABEL[program])
    ax.set_title(f"Fig 10: style ({sc['store']}K, BIFO)")
    ax = axs[1]
    ax.plot(MPLS, [_t(res, f"10/{CASUAL}/{m}") for m in MPLS], "o-", label="no leveler")
    ax.plot(
        MPLS,
        [_t(res, f"10/{CASUAL}/1")] + [_t(res, f"11/{m}") for m in MPLS[1:]],
        "s--",
        label="leveler",
    )
    ax.set_title("Fig 11: T4.1XQ load leveling")
    ax = axs[2]
    for p in ("fifo", "bifo", "ar"):
        ax.plot(MPLS, [_t(res, f"12/{p}/{m}") for m in MPLS], "o-", label=p.upper())
    ax.set_title(f"Fig 12: T4.1XQR* at {sc['fig12']}K")
    ax = axs[3]
    ks = sc["fig13"]
    for mpl in (1, 3, 5):
        ax.plot(ks, [_t(res, f"13/{k}/{mpl}") for k in ks], "o-", label=f"MPL {mpl}")
    ax.plot(ks[-2:], [_t(res, f"13/{k}/5L") for k in ks[-2:]], "s--", label="MPL 5 leveled")
    ax.set_title("Fig 13: T4.1XQR* vs real store")
    ax.set_xlabel("real store (K words)")
    for a in axs[:3]:
        a.set_xlabel("multiprogramming level")
    for a in (axs[0], axs[1], axs[3]):
        a.set_yscale("log")  # thrashing runs are 10-100x the others
    for a in axs:
        a.set_ylabel("time per job (s)")
        a.grid(alpha=0.3)
        a.legend(fontsize=7)
    ctx.figure("figures-10-13", fig)
    plt.close(fig)
