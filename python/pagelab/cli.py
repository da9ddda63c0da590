"""The `pagelab` command."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from . import lab, traces, validate
from .errors import PagelabError


def _parse_sizes(text: str, option: str = "--sizes", clamp: int | None = None) -> list[int]:
    """`4,41,203`, or a range `1:200` / `1:200:5` (inclusive); see validate.parse_points."""
    values, note = validate.parse_points(text, option, clamp=clamp)
    if note:
        click.echo(f"pagelab: note: {note}", err=True)
    return values


def _split_policies(text: str) -> list[str]:
    return [p for p in (s.strip() for s in text.split(",")) if p]


def table_output(fn: Any) -> Any:
    """The `--format` and `--output` options of every command that writes a table."""
    fn = click.option("--output", default="-", show_default=True, help="File, or - for stdout.")(fn)
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(["csv", "parquet", "json"]),
        default="csv",
        show_default=True,
    )(fn)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pagelab", message="pagelab %(version)s")
def cli() -> None:
    """pagelab: a laboratory for paging, swapping and memory load control."""


# -- traces ------------------------------------------------------------------------------------


@cli.group()
def trace() -> None:
    """Capture, convert and describe reference traces."""


@trace.command(context_settings={"ignore_unknown_options": True})
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="Trace file.")
@click.option("--page-size", default=4096, show_default=True, help="Page size [bytes].")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def capture(output: str, page_size: int, command: tuple[str, ...]) -> None:
    """Run PROGRAM ARGS under valgrind's lackey and record its references.

    pagelab trace capture -o sort.pltrace -- sort /etc/services
    """
    info = traces.capture(output, command[0], command[1:], page_size=page_size)
    _print_info(output, info)


@trace.command()
@click.argument("source", type=click.Path(dir_okay=False))
@click.argument("output", type=click.Path(dir_okay=False))
@click.option(
    "--from",
    "from_",
    type=click.Choice(traces.INPUT_FORMATS),
    default=None,
    help="Input format (guessed from the content when absent).",
)
@click.option(
    "--units",
    type=click.Choice(["pages", "addresses"]),
    default="addresses",
    show_default=True,
    help="Whether the input's numbers are pages or byte addresses.",
)
@click.option("--page-size", default=4096, show_default=True, help="Page size [bytes].")
@click.option(
    "--only",
    type=click.Choice(["instructions", "data"]),
    default=None,
    help="Keep only instruction fetches or only data references.",
)
@click.option(
    "--range",
    "ranges",
    multiple=True,
    metavar="LO:HI",
    help="Keep only addresses in [LO, HI) (hex with 0x); may be repeated.",
)
@click.option(
    "--max-access-pages",
    default=1024,
    show_default=True,
    help="Refuse an access spanning more pages (a misread record).",
)
@click.option("--lenient", is_flag=True, help="Accept implausible records instead of refusing.")
def convert(
    source: str,
    output: str,
    from_: str | None,
    units: str,
    page_size: int,
    only: str | None,
    ranges: tuple[str, ...],
    max_access_pages: int,
    lenient: bool,
) -> None:
    """Convert SOURCE (lackey, pinatrace, text, u64, oracleGeneral, pagelab) to a pagelab trace."""
    parsed = []
    for r in ranges:
        lo, sep, hi = r.partition(":")
        try:
            parsed.append((int(lo, 0), int(hi, 0)))
        except ValueError:
            raise PagelabError(f"--range {r!r}: expected LO:HI, e.g. 0x400000:0x500000") from None
        if not sep:
            raise PagelabError(f"--range {r!r}: expected LO:HI")
    info = traces.convert(
        source,
        output,
        from_=from_,
        units=units,
        page_size=page_size,
        only=only,
        ranges=parsed,
        max_access_pages=max_access_pages,
        lenient=lenient,
    )
    _print_info(output, info)


@trace.command("info")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.option("--verify", "check", is_flag=True, help="Also check every chunk and the page map.")
def trace_info(path: str, as_json: bool, check: bool) -> None:
    """Describe a pagelab trace."""
    info = traces.info(path)
    if check:
        traces.verify(path)
        info["verified"] = "every chunk and the page map"
    if as_json:
        click.echo(json.dumps(info, indent=2))
    else:
        _print_info(path, info)


@trace.command("verify")
@click.argument("path", type=click.Path(dir_okay=False))
def trace_verify(path: str) -> None:
    """Check every chunk's checksum and the page map of a pagelab trace."""
    r = traces.verify(path)
    click.echo(
        f"{path}: ok: {r['chunks']} chunks, {r['runs']:,} runs, {r['references']:,} references "
        f"and a page map of {r['distinct_pages']:,} pages checked"
    )


@trace.command()
@click.argument("program")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="Trace file.")
@click.option("--seed", default=1, show_default=True, help="Seed of the program's input data.")
@click.option(
    "--params",
    default="{}",
    show_default=True,
    help='Kernel parameters as JSON, e.g. \'{"sort": {"items": 2000}}\'.',
)
def generate(program: str, output: str, seed: int, params: str) -> None:
    """Run one of the M44/44X study's programs and record its references (`list programs`)."""
    from . import programs

    try:
        parsed = json.loads(params)
    except json.JSONDecodeError as e:
        raise PagelabError(f"--params: not JSON ({e.msg} at column {e.colno})") from None
    info = programs.generate(program, output, seed=seed, params=parsed)
    check = info["check"]
    verdict = "passed" if check["passed"] else "FAILED"
    click.echo(
        f"{program}: {info['references']:,} references to {info['distinct_pages']} pages of "
        f"{info['page_words']} words; result check {verdict} "
        f"({check['what']} = {check['value']:.3g})"
    )


@trace.command()
@click.argument("source", type=click.Path(dir_okay=False))
@click.argument("output", type=click.Path(dir_okay=False))
@click.option(
    "--to", type=click.Choice(["oracle-general"]), default="oracle-general", show_default=True
)
def export(source: str, output: str, to: str) -> None:
    """Write a pagelab trace in another tool's format (libCacheSim's oracleGeneral)."""
    traces.export_oracle_general(source, output)
    click.echo(f"wrote {output}")


def _print_info(path: str, info: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title=path, show_header=False)
    for key, value in info.items():
        if isinstance(value, dict):
            value = json.dumps(value)
        elif isinstance(value, float):
            value = f"{value:.4g}"
        elif isinstance(value, int):
            value = f"{value:,}"
        t.add_row(key.replace("_", " "), str(value))
    Console().print(t)


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
    _emit_rows(rows, fmt, output)
    if plot:
        from . import plots

        plots.fault_curves(rows, plot, title=os.path.basename(trace_path))


@cli.command("ws-curve")
@click.argument("trace_path", metavar="TRACE", type=click.Path(dir_okay=False))
@click.option("--taus", required=True, help="Windows τ [references]: list or range lo:hi[:step].")
@table_output
def ws_curve(trace_path: str, taus: str, fmt: str, output: str) -> None:
    """Working-set curve: mean working-set size and fault rate against τ, in one pass."""
    length = traces.info(trace_path)["references"]
    taus_, note = validate.parse_points(
        taus, "--taus", hi=validate.U64_MAX, clamp=length or None, clamp_what="the trace's length"
    )
    if note:
        click.echo(f"pagelab: note: {note}", err=True)
    result = lab.ws_curve(trace_path, taus_)
    _emit_rows(result["rows"], fmt, output)


@cli.command()
@click.argument("trace_path", metavar="TRACE", type=click.Path(dir_okay=False))
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
    help="Draw R against A and A against Ψ (Bard's figures 5-7) as PNG.",
)
def psi(
    trace_path: str,
    psis: str,
    reference_time: float,
    refs_per_io: int,
    fmt: str,
    output: str,
    plot: str | None,
) -> None:
    """Bard's Ψ-realization of a program: A, R, t and f for each Ψ, and Ψ_c."""
    values = _parse_psis(psis)
    c = lab.psi_curve(trace_path, values, reference_time_s=reference_time, refs_per_io=refs_per_io)
    _emit_rows(c["points"], fmt, output)
    psi_c, beta = c.get("psi_c"), c.get("beta")
    if psi_c is not None:
        click.echo(f"Ψ_c = {psi_c}, β = {beta:.3f}", err=True)
    if plot:
        from . import plots

        plots.psi_characteristic(c, plot, title=os.path.basename(trace_path))


def _parse_psis(text: str) -> list[int]:
    """Like sizes, but Ψ may be 0."""
    return validate.parse_points(text, "--psi", lo=0)[0]


def _emit_rows(rows: list[dict[str, Any]], fmt: str, output: str) -> None:
    from . import _atomic

    if output == "-":
        if fmt == "parquet":
            raise PagelabError("--format parquet needs --output FILE")
        if fmt == "json":
            click.echo(json.dumps(rows, indent=2))
        else:
            if rows:
                keys = list(rows[0])
                click.echo(",".join(keys))
                for r in rows:
                    click.echo(",".join(str(r[k]) for k in keys))
        return
    _atomic.write_table(output, rows, fmt)
    click.echo(f"wrote {len(rows)} rows to {output}", err=True)


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


@cli.group("list")
def list_() -> None:
    """List policies, presets, programs and reproductions."""


@list_.command("policies")
def list_policies() -> None:
    """Every replacement policy, with its parameters and citation."""
    for p in lab.policies():
        aliases = f" ({', '.join(p['aliases'])})" if p.get("aliases") else ""
        click.echo(f"{p['name']}{aliases}: {p['summary']}")
        if p.get("citation"):
            click.echo(f"    {p['citation']}")
        for param in p.get("parameters", []):
            click.echo(f"    {param}")


@list_.command("presets")
def list_presets() -> None:
    """The historic systems shipped as presets."""
    from . import system

    for p in system.presets():
        click.echo(f"{p['name']}: {p['title']}  [{p['file']}]")


@list_.command("programs")
def list_programs() -> None:
    """The M44/44X study's programs, runnable as instrumented kernels."""
    from . import programs

    for p in programs.available():
        click.echo(f"{p['name']} ({p['label']}): {p['description']}")


@list_.command("reproductions")
def list_reproductions() -> None:
    """The paper experiments pagelab can rerun."""
    from . import reproduce

    for r in reproduce.available():
        click.echo(f"{r['name']}: {r['title']} ({r['paper']})")


# -- the system simulator --------------------------------------------------------------------


@cli.command()
@click.argument("spec")
@click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="KEY.PATH=VALUE",
    help="Override one value of the spec; may be repeated.",
)
@click.option("--seed", default=1, show_default=True)
@click.option("--out", type=click.Path(file_okay=False), default=None)
@click.option(
    "--max-memory",
    default=None,
    metavar="BYTES",
    help="Allow a run this large (e.g. 64G); default: the memory available.",
)
def run(
    spec: str, overrides: tuple[str, ...], seed: int, out: str | None, max_memory: str | None
) -> None:
    """Run one simulation of SPEC (a TOML file or a preset name) and print its summary."""
    from . import system

    report = system.run(spec, overrides=overrides, seed=seed, out=out, max_memory=max_memory)
    _print_metrics(report.get("metrics", {}))
    if out:
        click.echo(f"results in {out}/", err=True)


def _print_metrics(metrics: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table("metric", "value", "unit")
    for name, m in metrics.items():
        v = m.get("value")
        t.add_row(name, f"{v:.4g}" if isinstance(v, float) else str(v), m.get("unit", ""))
    Console().print(t)


@cli.command()
@click.argument("spec")
@click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="KEY.PATH=VALUE",
    help="Override one value of the spec for every run; may be repeated.",
)
@click.option(
    "--grid",
    "grid",
    multiple=True,
    metavar="KEY.PATH=V1,V2|LO:HI:STEP",
    help="An axis of the sweep: values, or an inclusive range; may be repeated (product).",
)
@click.option("--seeds", default=1, show_default=True, help="Seeds 1..N for every grid point.")
@click.option("--out", type=click.Path(file_okay=False), required=True, help="Result store.")
@click.option("--workers", type=int, default=None, help="Worker processes [default: one per core].")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT", help="An existing scheduler.")
def sweep(
    spec: str,
    overrides: tuple[str, ...],
    grid: tuple[str, ...],
    seeds: int,
    out: str,
    workers: int | None,
    scheduler: str | None,
) -> None:
    """Run SPEC (a TOML file or a preset) at every grid point and seed, in parallel.

    Each run is kept in OUT/runs/ as one Parquet row, keyed by the resolved spec, the seed and
    the version: a run already there is not computed again.
    """
    from .sweep import run_sweep

    outcome = run_sweep(
        spec, grid=grid, seeds=seeds, set=overrides, out=out, workers=workers, scheduler=scheduler
    )
    n = len(outcome.rows)
    click.echo(
        f"{n} runs: {n - outcome.computed} from the store, {outcome.computed} computed, "
        f"in {outcome.wall_seconds:.1f} s; dataset in {Path(out) / 'runs'}/",
        err=True,
    )


@cli.group()
def chanson() -> None:
    """Chanson's regression model of UNIX V6 swapping: predict, and solve for memory."""


def _chanson_model(fit: bool, seed: int) -> Any:
    from . import chanson as ch

    return ch.fitted_model(seed=seed) if fit else ch.paper_model()


_model_options = [
    click.option("--pn", type=int, required=True, help="Processes."),
    click.option("--ps", type=int, required=True, help="Mean process size [64-byte blocks]."),
    click.option(
        "--fit",
        is_flag=True,
        help="Fit the equation to pagelab's own runs instead of the paper's eq. (1).",
    ),
    click.option("--check", is_flag=True, help="Also simulate the answer on the unix-v6 preset."),
    click.option("--seed", default=1, show_default=True),
]


def _with(options: list[Any]) -> Any:
    def wrap(fn: Any) -> Any:
        for o in reversed(options):
            fn = o(fn)
        return fn

    return wrap


@chanson.command("predict")
@click.option("--mm", type=int, required=True, help="Main memory for users [64-byte blocks].")
@_with(_model_options)
def chanson_predict(mm: int, pn: int, ps: int, fit: bool, check: bool, seed: int) -> None:
    """Reaction time for memory MM and PN processes of PS blocks (section 4.1-4.2)."""
    from . import chanson as ch

    model = _chanson_model(fit, seed)
    rt = ch.predict_rt(model, mm=mm, pn=pn, ps=ps)
    click.echo(f"PCTRMM {ch.pctrmm(mm, pn, ps):.1f} %: predicted reaction time {rt:.0f} ms")
    if check:
        m = ch.simulate(pn, ps, 12, mm, seed=seed)
        click.echo(f"simulated: {m['reaction_time_ms']:.0f} ms")


@chanson.command("memory")
@click.option("--target-ms", type=float, required=True, help="Reaction time wanted [ms].")
@_with(_model_options)
def chanson_memory(target_ms: float, pn: int, ps: int, fit: bool, check: bool, seed: int) -> None:
    """Memory [blocks] that brings reaction time to a target (section 4.1b)."""
    from . import chanson as ch

    model = _chanson_model(fit, seed)
    mm = ch.memory_for(model, target_ms, pn=pn, ps=ps)
    click.echo(f"memory for {target_ms:.0f} ms: {mm:.0f} blocks")
    if check:
        m = ch.simulate(pn, ps, 12, round(mm), seed=seed)
        click.echo(f"simulated at {round(mm)} blocks: {m['reaction_time_ms']:.0f} ms")


@cli.command()
@click.argument("preset")
@click.option("--target", required=True, type=click.Path(dir_okay=False), help="TARGET.toml.")
@click.option(
    "--vary", multiple=True, required=True, metavar="KEY.PATH=LO:HI", help="A key to fit."
)
@click.option("--budget", default=40, show_default=True, help="Trials.")
@click.option("--seeds", default=2, show_default=True, help="Seeds 1..N of every trial.")
@click.option("--set", "overrides", multiple=True, metavar="KEY.PATH=VALUE", help="Fixed override.")
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="FITTED.toml.")
@click.option(
    "--store",
    type=click.Path(file_okay=False),
    default=None,
    help="Result store of the trials' runs [default: OUT without .toml, plus -runs].",
)
@click.option("--sampler", type=click.Choice(["cmaes", "tpe"]), default="cmaes", show_default=True)
@click.option("--workers", type=int, default=None, help="Worker processes [default: one per core].")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT", help="An existing scheduler.")
def calibrate(
    preset: str,
    target: str,
    vary: tuple[str, ...],
    budget: int,
    seeds: int,
    overrides: tuple[str, ...],
    out: str,
    store: str | None,
    sampler: str,
    workers: int | None,
    scheduler: str | None,
) -> None:
    """Fit the VARY keys of PRESET to the paper numbers in TARGET; write the fitted preset."""
    from . import calibrate as cal

    tgt = cal.load_target(target)
    keys = [cal.parse_vary(v) for v in vary]
    store = store or str(Path(out).with_suffix("")) + "-runs"

    def report(trial: cal.Trial, best: cal.Trial, total: int) -> None:
        vals = ", ".join(f"{k}={v:.4g}" for k, v in trial.values.items())
        click.echo(
            f"trial {trial.number + 1}/{total}: {vals}: loss {trial.loss:.4g} "
            f"(best {best.loss:.4g} at trial {best.number + 1})",
            err=True,
        )

    result = cal.calibrate(
        preset,
        tgt,
        keys,
        budget=budget,
        seeds=seeds,
        store=store,
        set=overrides,
        workers=workers,
        scheduler=scheduler,
        sampler=sampler,
        on_trial=report,
    )
    path = cal.write_fitted(result, out, set=overrides)
    best = result.best
    for k, v in best.values.items():
        click.echo(f"{k} = {v:.6g}")
    click.echo(f"loss {best.loss:.4g}; fitted preset in {path}", err=True)


@cli.command()
@click.argument("name", required=False)
@click.option(
    "--list", "list_all", is_flag=True, help="List them, with each one's last full score."
)
@click.option("--all", "run_all", is_flag=True, help="Run every reproduction.")
@click.option("--scale", type=click.Choice(["smoke", "full"]), default="smoke", show_default=True)
@click.option("--seed", default=1, show_default=True, help="First seed of every setting.")
@click.option("--seeds", type=int, default=None, help="Seeds per setting [smoke 3, full 5].")
@click.option("--out", type=click.Path(file_okay=False), default="results", show_default=True)
@click.option("--workers", type=int, default=None, help="Worker processes [default: one per core].")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT", help="An existing scheduler.")
def reproduce(
    name: str | None,
    list_all: bool,
    run_all: bool,
    scale: str,
    seed: int,
    seeds: int | None,
    out: str,
    workers: int | None,
    scheduler: str | None,
) -> None:
    """Rerun a paper experiment; writes OUT/NAME.json, its figures, and its runs in OUT/store."""
    from . import reproduce as rep
    from .sweep.engine import runner

    if list_all or not (name or run_all):
        scores = rep.last_scores(out)
        for r in rep.available():
            s = scores.get(r["name"])
            click.echo(f"{r['name']}: {r['title']} ({r['paper']})  [{rep.score_line(s)}]")
        return
    if name and run_all:
        raise PagelabError("reproduce: give a NAME or --all, not both")
    names = [r["name"] for r in rep.available()] if run_all else [name]
    records = []
    with runner(workers, scheduler) as pool:
        for n in names:
            record = rep.reproduce(
                n,
                scale=scale,
                seed=seed,
                out=out,
                workers=workers,
                scheduler=scheduler,
                seeds=seeds,
                pool=pool,
            )
            records.append(record)
            if run_all:
                click.echo(f"{n}: {rep.score_line(record['score'])}")
            else:
                rep.print_record(record)
            click.echo(f"record in {Path(out) / (n + '.json')}", err=True)
    if run_all:
        total = rep.score(
            [r for rec in records for r in rec["rows"]],
            [c for rec in records for c in rec["claims"]],
        )
        click.echo(f"all {len(records)}: {rep.score_line(total)}")


@cli.command()
@click.argument("results", type=click.Path(file_okay=False))
@click.option("--out", type=click.Path(file_okay=False), required=True, help="Site directory.")
def report(results: str, out: str) -> None:
    """Write an offline HTML site setting every reproduction record in RESULTS beside its paper."""
    from .report import command

    command(results, out)


@cli.command()
@click.option("--out", type=click.Path(file_okay=False), default="results/demo", show_default=True)
def demo(out: str) -> None:
    """Capture a real program's trace, draw its curves under several policies, write a report."""
    from . import demo as demo_mod

    demo_mod.run(Path(out))


def main() -> None:
    from . import interrupt

    interrupt.install()
    try:
        cli.main(standalone_mode=False)
    except interrupt.Interrupted as e:
        click.echo(f"pagelab: {e}; nothing written", err=True)
        sys.exit(e.exit_status)
    except PagelabError as e:
        click.echo(f"pagelab: error: {e}", err=True)
        sys.exit(2)
    except click.exceptions.Abort:
        click.echo("pagelab: aborted", err=True)
        sys.exit(130)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except OSError as e:
        missing = isinstance(e, FileNotFoundError)
        click.echo(f"pagelab: error: {f'{e.filename}: no such file' if missing else e}", err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
