"""Young 1976, ch. II §2-3 and §5 (Tables 1 and 7): the Accelerator, in batch-only and
batch-and-CMS benchmarks. The thesis: at KSU the Accelerator "showed only minor improvements in
both batch-only and batch-and-CMS benchmarks", and with CMS users "the improvement in batch
throughput was at the expense of CMS response time", through "the higher effective level of
multiprogramming in the OS virtual machine". Adding CMS users raised the paging rate and lowered
the OS virtual machine's CPU use (ch. II §2)."""

from __future__ import annotations

from ..reproduce import Context
from . import _young as y

NAME = "young-accelerator"
PAPER = y.PAPER
TITLE = "The Accelerator: minor batch gains, paid for in CMS response (ch. II §3, Tables 1, 7)"

MINOR = 0.10  # our bound for "minor": a batch gain under 10 %


def run(ctx: Context) -> None:
    cases = {}
    first = None
    for label, extra in [
        ("batch, Accelerator off", [*y.NO_CMS, "workload.guest.0.accelerator=false"]),
        ("batch, Accelerator on", [*y.NO_CMS, "workload.guest.0.accelerator=true"]),
        ("batch+CMS, Accelerator off", ["workload.guest.0.accelerator=false"]),
        ("batch+CMS, Accelerator on", ["workload.guest.0.accelerator=true"]),
    ]:
        cases[label], report = y.run_case(ctx, extra)
        if label == "batch+CMS, Accelerator off":
            first = report
    y.table(ctx, "Accelerator", cases)
    if first is not None:
        y.views(ctx, first, "batch+CMS, Accelerator off")
    b_off, b_on = cases["batch, Accelerator off"], cases["batch, Accelerator on"]
    c_off, c_on = cases["batch+CMS, Accelerator off"], cases["batch+CMS, Accelerator on"]
    g_alone = y.gain(b_off["batch_s"], b_on["batch_s"])
    g_cms = y.gain(c_off["batch_s"], c_on["batch_s"])
    ctx.claim(
        "minor-batch-gain",
        f"The Accelerator shortens the batch stream a little (0 to {MINOR:.0%}), "
        "alone and with CMS",
        0 < g_alone <= MINOR and 0 < g_cms <= MINOR,
        f"batch alone {b_off['batch_s']:.0f} -> {b_on['batch_s']:.0f} s ({g_alone:+.1%}); "
        f"with CMS {c_off['batch_s']:.0f} -> {c_on['batch_s']:.0f} s ({g_cms:+.1%})",
    )
    ctx.claim(
        "cms-pays",
        "With CMS users the Accelerator's batch gain costs CMS response (the index rises)",
        c_on["cms_index_s"] > c_off["cms_index_s"],
        f"response index {c_off['cms_index_s']:.1f} -> {c_on['cms_index_s']:.1f} s",
    )
    ctx.claim(
        "higher-effective-mpl",
        "The Accelerator raises the OS virtual machine's effective multiprogramming level",
        c_on["effective_mpl"] > c_off["effective_mpl"]
        and b_on["effective_mpl"] > b_off["effective_mpl"],
        f"tasks run per second: alone {b_off['effective_mpl']:.2f} -> {b_on['effective_mpl']:.2f}; "
        f"with CMS {c_off['effective_mpl']:.2f} -> {c_on['effective_mpl']:.2f}",
    )
    ctx.claim(
        "cms-raises-paging",
        "Adding CMS users raises the paging rate and lowers the OS virtual machine's CPU rate",
        c_off["paging_rate"] > b_off["paging_rate"]
        and c_off["os_cpu_s"] / c_off["ended_s"] < b_off["os_cpu_s"] / b_off["ended_s"],
        f"paging {b_off['paging_rate']:.1f} -> {c_off['paging_rate']:.1f} pages/s; OS VM CPU "
        f"{100 * b_off['os_cpu_s'] / b_off['ended_s']:.0f} -> "
        f"{100 * c_off['os_cpu_s'] / c_off['ended_s']:.0f} % of the run",
    )
    ctx.notes.append(
        "the thesis's Tables 1 and 7 are lost (the text ends at ch. II §4): directions only; "
        "the jobs and the terminal script (Appendices A, B) are inferred, "
        "see docs/presets/vm370-mft.md"
    )
