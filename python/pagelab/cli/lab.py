"""The replacement lab: `curve`, `ws-curve`, `psi` and `step`."""

from __future__ import annotations

import os

import click

from .. import extras, lab, traces, validate
from ..errors import PagelabError
from .base import (
    _emit_rows,
    _parse_psis,
    _parse_sizes,
    _split_policies,
    check_outputs,
    cli,
    table_output,
)

# -- the replacement lab ---------------------------------------------------------------------


@cli.command()
@click.argument("trace_path", metavar="TRACE", type=click.Path(dir_okay=False))
@click.option(
    "--policy",
    "policy_text",
    default="lru",
    show_default=True,
    help="Policies, comma separated; parameters as ws:tau=1000.",
)
@click.option(
    "--sizes",
    required=True,
    help="Frame counts: 4,41,203, a range 1:200[:step], or 'all' (lru, min: one pass).",
)
@click.option(
    "--warmup",
    default=0,
    show_default=True,
    help="References excluded from the counts (reported apart).",
)
@table_output
@click.option("--plot", type=click.Path(dir_okay=False), default=None, help="Also draw a PNG.")
def curve(
    trace_path: str,
    policy_text: str,
    sizes: str,
    warmup: int,
    fmt: str,
    output: str,
    plot: str | None,
) -> None:
    """Faults and pushes of policies at many memory sizes: one row per policy and size."""
    if plot:
        extras.need("plot", "--plot")  # before the runs, not after them
    if fmt == "parquet":
        extras.need("parquet", "--format parquet")
    check_outputs([trace_path], output=output, plot=plot)
    policies = _split_policies(policy_text)
    if not policies:
        raise PagelabError("--policy: expected at least one policy")
    if sizes == "all":
        rows = []
        for p in policies:
            name = lab.parse_policy(p)["kind"]
            if name == "lru":
                rows += lab.lru_curve(trace_path, warmup=warmup)["rows"]
            elif name in ("min", "opt"):
                rows += lab.opt_curve(trace_path, warmup=warmup)["rows"]
            else:
                raise PagelabError(
                    f"--sizes all: one-pass curves exist for lru and min, not {name!r}; "
                    "give a list or range of sizes"
                )
    else:
        distinct = traces.info(trace_path)["distinct_pages"]
        size_list = _parse_sizes(sizes, clamp=distinct or None)
        warmup = validate.integer(warmup, "--warmup")
        # One decode of the trace feeds every (policy, size), in parallel.
        out = lab.curve_trace(trace_path, policies, size_list, warmup=warmup)
        rows, mem = out["rows"], out["memory"]
        click.echo(
            f"decoded once for {mem['cells']} simulations: {mem['chunks_decoded']} chunks; "
            f"held {mem['blocks'] / 2**20:.1f} MiB of blocks, "
            f"{mem['next_use'] / 2**20:.1f} MiB of next-use",
            err=True,
        )
    _emit_rows(rows, fmt, output, [trace_path])
    if plot:
        from .. import plots

        plots.fault_curves(rows, plot, title=os.path.basename(trace_path))


@cli.command("ws-curve")
@click.argument("trace_path", metavar="TRACE", type=click.Path(dir_okay=False))
@click.option("--taus", required=True, help="Windows τ [references]: list or range lo:hi[:step].")
@table_output
def ws_curve(trace_path: str, taus: str, fmt: str, output: str) -> None:
    """Working-set curve: mean working-set size and fault rate against τ, in one pass."""
    check_outputs([trace_path], output=output)
    length = traces.info(trace_path)["references"]
    taus_, note = validate.parse_points(
        taus, "--taus", hi=validate.U64_MAX, clamp=length or None, clamp_what="the trace's length"
    )
    if note:
        click.echo(f"pagelab: note: {note}", err=True)
    result = lab.ws_curve(trace_path, taus_)
    _emit_rows(result["rows"], fmt, output, [trace_path])


@cli.command()
@click.argument(
    "trace_paths", metavar="TRACE...", nargs=-1, required=True, type=click.Path(dir_okay=False)
)
@click.option(
    "--psi",
    "psis",
    default="0:30",
    show_default=True,
    help="Values of Ψ: a list or a range lo:hi[:step].",
)
@click.option(
    "--reference-time", default=2e-6, show_default=True, help="CPU time of one reference [s]."
)
@click.option(
    "--refs-per-io",
    default=0,
    show_default=True,
    help="References between I/O interruptions (0: none).",
)
@table_output
@click.option(
    "--plot",
    type=click.Path(dir_okay=False),
    default=None,
    help="Draw the paging characteristic and Bard's figures 5, 6 and 7 as one PNG.",
)
def psi(
    trace_paths: tuple[str, ...],
    psis: str,
    reference_time: float,
    refs_per_io: int,
    fmt: str,
    output: str,
    plot: str | None,
) -> None:
    """Bard's Ψ-realization of each program: A, R, t and f for each Ψ, and Ψ_c (Bard 1975 §3,
    §7). Several traces add a `program` column and share the figures."""
    if plot:
        extras.need("plot", "--plot")
    check_outputs(trace_paths, output=output, plot=plot)
    values = _parse_psis(psis)
    curves = []
    rows: list[dict] = []
    for path in trace_paths:
        c = lab.psi_curve(path, values, reference_time_s=reference_time, refs_per_io=refs_per_io)
        name = os.path.basename(path)
        curves.append((name, c))
        if len(trace_paths) == 1:
            rows = c["points"]
        else:
            rows += [{"program": name, **p} for p in c["points"]]
        psi_c, beta = c.get("psi_c"), c.get("beta")
        if psi_c is not None:
            click.echo(f"{name}: Ψ_c = {psi_c}, β = {beta:.3f}", err=True)
    _emit_rows(rows, fmt, output, trace_paths)
    if plot:
        from .. import plots

        title = curves[0][0] if len(curves) == 1 else "Bard 1975, figures 5-7"
        plots.psi_figures(curves, plot, title=title)


@cli.command()
@click.option(
    "--refs",
    required=True,
    help="Reference string: pages, comma separated; a page followed by w (3w) is a write.",
)
@click.option("--frames", required=True, type=int)
@click.option("--policy", default="fifo", show_default=True)
def step(refs: str, frames: int, policy: str) -> None:
    """Print the frame table after every reference: hit or fault, and the victim."""
    pages, writes = [], []
    for tok in refs.replace(" ", ",").split(","):
        if not tok:
            continue
        w = tok.endswith(("w", "W"))
        try:
            pages.append(int(tok[:-1] if w else tok))
        except ValueError:
            raise PagelabError(f"--refs: {tok!r} is not a page number (like 7 or 7w)") from None
        writes.append(w)
    if not pages:
        raise PagelabError("--refs: expected at least one page")
    frames = validate.integer(frames, "--frames", lo=1, hi=validate.U32_MAX)
    pages = validate.integers(pages, "--refs", hi=validate.STEP_MAX_PAGE)
    if frames > len(set(pages)):
        click.echo(
            f"pagelab: note: --frames {frames}: the string has {len(set(pages))} distinct "
            "pages; clamped to it",
            err=True,
        )
        frames = len(set(pages))
    stepper = lab.Stepper(policy, frames, pages, writes)
    faults = 0
    width = max(len(str(p)) for p in pages)
    pad = max(0, frames * (width + 1) - 6)
    click.echo(f"{'ref':>5}  {'page':>{width}}  {'':5}  frames{'':{pad}}  victim")
    for i, s in enumerate(stepper, start=1):
        faults += s["fault"]
        cells = " ".join(("." * width if f is None else f"{f:>{width}}") for f in s["frames"])
        victim = "" if s.get("victim") is None else str(s["victim"])
        mark = "fault" if s["fault"] else "hit"
        extra = f"  {s['state']}" if s.get("state") else ""
        click.echo(f"{i:>5}  {s['page']:>{width}}  {mark:5}  {cells}  {victim}{extra}")
    click.echo(f"{faults} faults in {len(pages)} references with {frames} frames ({policy})")
