"""Young 1976, ch. II §6 (Table 2, Figures 2 and 3): the extended configurations, benchmarked
with more real memory. The section is lost; our reading: more memory shortens the batch stream
and lowers the CMS response index, with and without the Accelerator."""

from __future__ import annotations

from ..reproduce import Context
from . import _young as y

NAME = "young-extended"
PAPER = y.PAPER
TITLE = "Extended configurations: more real memory (ch. II §6, Table 2, Figures 2-3; our reading)"

# 1 MB less CP (192 frames), then 1.5 MB and 2 MB less the same CP storage.
MEMORY = [("1 MB", 192), ("1.5 MB", 320), ("2 MB", 448)]


def run(ctx: Context) -> None:
    cases = {}
    for acc in (False, True):
        for label, frames in MEMORY:
            key = f"{label}, Accelerator {'on' if acc else 'off'}"
            cases[key], _ = y.run_case(
                ctx, [f"memory.frames={frames}", f"workload.guest.0.accelerator={str(acc).lower()}"]
            )
    y.table(ctx, "Extended configurations", cases)
    small, big = cases["1 MB, Accelerator off"], cases["2 MB, Accelerator off"]
    ctx.claim(
        "reading-memory-helps",
        "(our reading; the results are lost) 2 MB shortens the batch stream and lowers the "
        "CMS response index against 1 MB",
        big["batch_s"] < small["batch_s"] and big["cms_index_s"] < small["cms_index_s"],
        f"batch {small['batch_s']:.0f} -> {big['batch_s']:.0f} s; index "
        f"{small['cms_index_s']:.1f} -> {big['cms_index_s']:.1f} s",
    )
    on_small, on_big = cases["1 MB, Accelerator on"], cases["2 MB, Accelerator on"]
    ctx.claim(
        "reading-contention-eases",
        "(our reading) with more memory the Accelerator's cost in CMS response shrinks",
        (on_big["cms_index_s"] - big["cms_index_s"])
        < (on_small["cms_index_s"] - small["cms_index_s"]),
        "index cost of the Accelerator: "
        f"1 MB {on_small['cms_index_s'] - small['cms_index_s']:+.1f} s, "
        f"2 MB {on_big['cms_index_s'] - big['cms_index_s']:+.1f} s",
    )
