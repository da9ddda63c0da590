"""Young 1976, ch. III (Tables 5-7, Appendix F): PAGEMON, the host telling the OS guest how many
tasks to keep active. The design and its evaluation are lost; the introduction states the aim:
let the level that manages real storage control the guest's effective multiprogramming level.
Our reconstruction (docs/presets/vm370-mft.md) is run with the Accelerator on, PAGEMON off and
on, against the Accelerator off. The aim as claims: PAGEMON lowers the guest's active
partitions, and CMS response recovers without giving back the Accelerator's batch gain."""

from __future__ import annotations

from ..reproduce import Context
from . import _young as y

NAME = "young-pagemon"
PAPER = y.PAPER
TITLE = "PAGEMON bounds the guest's multiprogramming (ch. III; the thesis's aim, our design)"

PAGEMON_ON = ["workload.guest.0.pagemon.enabled=true"]


def run(ctx: Context) -> None:
    cases = {}
    for label, extra in [
        ("Accelerator off", ["workload.guest.0.accelerator=false"]),
        ("Accelerator on", ["workload.guest.0.accelerator=true"]),
        ("Accelerator on, PAGEMON", ["workload.guest.0.accelerator=true", *PAGEMON_ON]),
    ]:
        cases[label], report = y.run_case(ctx, extra)
        if label == "Accelerator on, PAGEMON":
            trace = report["benchmark"]["guests"][0]["pagemon_trace"]
            allowed = [a for _, _, a in trace]
            ctx.row(
                "PAGEMON",
                "mean allowed partitions",
                label,
                round(sum(allowed) / len(allowed), 3) if allowed else None,
                unit="tasks",
            )
            g = report["benchmark"]["guests"][0]["metrics"]
            ctx.row("PAGEMON", "deactivations", label, g["deactivations"]["value"])
            ctx.row("PAGEMON", "reactivations", label, g["reactivations"]["value"])
    y.table(ctx, "PAGEMON", cases)
    off, on, pm = (
        cases["Accelerator off"],
        cases["Accelerator on"],
        cases["Accelerator on, PAGEMON"],
    )
    ctx.claim(
        "aim-bounds-mpl",
        "(the thesis's aim) PAGEMON lowers the guest's active partitions",
        pm["active_tasks"] < on["active_tasks"],
        f"active partitions {on['active_tasks']:.2f} -> {pm['active_tasks']:.2f}",
    )
    ctx.claim(
        "aim-cms-recovers",
        "(the thesis's aim) with PAGEMON the CMS response index falls back below the "
        "Accelerator's without it",
        pm["cms_index_s"] < on["cms_index_s"],
        f"index: Accelerator off {off['cms_index_s']:.1f}, on {on['cms_index_s']:.1f}, "
        f"on with PAGEMON {pm['cms_index_s']:.1f} s",
    )
    ctx.claim(
        "aim-keeps-batch",
        "(the thesis's aim) without giving back the batch gain: the batch stream with PAGEMON "
        "is no longer than with the Accelerator off",
        pm["batch_s"] <= off["batch_s"],
        f"batch: Accelerator off {off['batch_s']:.0f}, on {on['batch_s']:.0f}, "
        f"on with PAGEMON {pm['batch_s']:.0f} s",
    )
    ctx.notes.append(
        "PAGEMON's parameters (the lost Table 4) are config; defaults in presets/vm370-mft.toml"
    )
