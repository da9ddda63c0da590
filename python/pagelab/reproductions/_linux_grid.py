"""The validation grid of `linux-validation`: real programs' traces, memory limits, kernels, lists.

Three kinds of trace, all data in `linux_traces/`, made by `make_traces`:
- **Programs.** Captures of five real programs (the commands are in `PROGRAMS`): the first
  `TOUCHES` data touches of each (instruction fetches are file-backed code in the real program,
  never one of the replayer's anonymous pages), written with each touch's kind (a load or a
  store). Each program's four limits are placed where the trace lab's LRU, a property of the
  trace alone (not of any Linux model), run over the touches of the pages the program writes
  (a page only read maps the zero page and takes no frame), misses `LRU_MISSES` times beyond
  its cold misses, so
  that every cell pages measurably: memory.max = (overhead + page tables + frames) pages with
  the overhead `LAYOUT_OVERHEAD`. (An earlier grid placed them at fractions of the written
  footprint of the first 200,000 touches; its cells held 2 to 60 major faults, where one fault
  more or less is 2-50 % and the kernel's own run-to-run spread was as wide.)
- **Patterns.** Seeded synthetic traces of the shapes a user checks a model with (a loop larger
  than memory, Zipf, uniform, a hot set under a cyclic scan, phase changes, a drifting window,
  two loops), every touch a write as in a raw u64 trace, at memory.max of 4 and 8 MiB.
- **Claims.** A hot set of 100 pages under one-time scans and a loop a little larger than
  memory, at fixed frames, for the two MGLRU claims.

A cell is (trace, limit, kernel, list) with the knobs default otherwise (swap on brd,
vm.page-cluster 0, swappiness 60, zswap off), plus, on one program, zswap on and page-cluster 3.
"""

from __future__ import annotations

import functools
import json
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

TRACES = Path(__file__).with_name("linux_traces")
TOUCHES = 2_000_000
#: Where each program's limits sit: the trace lab's LRU misses this often beyond cold misses.
LRU_MISSES = (20_000, 5_000, 1_000, 200)
KERNELS = ("6.1", "6.12")
#: What the cgroup holds besides the trace [pages] the limits were laid out with (6.1, measured).
LAYOUT_OVERHEAD = 32
#: The program the extra settings (zswap on, page-cluster 3) run on, at these levels.
EXTRA_PROGRAM = "python"
EXTRA_LEVELS = (20_000, 1_000)
#: What was captured (pagelab trace capture -o NAME.pltrace -- COMMAND), with its inputs.
PROGRAMS = {
    "sort": "/usr/bin/sort lines.txt -o /dev/null  (20,000 random 9-digit keys with a word)",
    "gzip": "/usr/bin/gzip -9 -c text.txt  (120,000 words of 3-8 letters, 780 KB)",
    "bzip2": "/usr/bin/bzip2 -9 -c text.txt  (the same text)",
    "sqlite": "/usr/bin/sqlite3 t.db -init /dev/null '.read db.sql'  (8,000 inserts, an index, "
    "two queries)",
    "python": "/usr/bin/python3.11 -S script.py  (a dict of 60,000 random keys, sorted)",
}
#: Synthetic patterns (every touch a write), each at these limits [MiB].
PATTERN_MIB = (4, 8)
#: Synthetic cases (every touch a write) at fixed frames, for the claims: a hot set of 100
#: pages under one-time scans (does the list protect the hot set?), and a loop a little larger
#: than memory (does the list keep part of it?).
SYNTHETIC = {"hotscan": 256, "loop1200": 1000}
#: Runs a cell in the stored reference: five from each of three sessions (the kernel's medians
#: move between sessions; docs/readings.md `linux-reference-ten-runs`,
#: `linux-reference-three-sessions`).
REPEATS = 15


def _zipf(rng: random.Random, n: int, s: float, count: int) -> list[int]:
    """`count` draws of ranks 0..n-1 with P(k) ∝ 1/(k+1)^s, ranks shuffled over the pages."""
    import bisect
    import itertools

    cdf = list(itertools.accumulate(1 / (k + 1) ** s for k in range(n)))
    perm = list(range(n))
    rng.shuffle(perm)
    return [perm[bisect.bisect_left(cdf, rng.random() * cdf[-1])] for _ in range(count)]


def pattern_touches(name: str) -> list[int]:
    """The patterns' pages in order (seeded, Python's own generator: the same on every machine)."""
    rng = random.Random(name)
    if name == "loop2400":
        return list(range(2400)) * 16
    if name == "zipf5000":
        return _zipf(rng, 5000, 1.0, 80_000)
    if name == "unif3000":
        return [rng.randrange(3000) for _ in range(50_000)]
    if name == "hotscan1500":  # a random hot set of 1,500 interleaved with a cyclic scan of 3,000
        return [p for i in range(50_000) for p in (rng.randrange(1500), 1500 + i % 3000)]
    if name == "phases":  # four phases, each random over its own 1,500 of 6,000 pages
        out = []
        for _ in range(4):
            own = rng.sample(range(6000), 1500)
            out += [own[rng.randrange(1500)] for _ in range(15_000)]
        return out
    if name == "window":  # a window drifting over 6,400 pages, normal spread of 400
        return [min(6399, max(0, round(6000 * i / 59_999 + rng.gauss(0, 400))))
                for i in range(60_000)]  # fmt: skip
    if name == "loops_mix":  # a loop of 1,800 pages eight times, then one of 2,200
        return list(range(1800)) * 8 + list(range(2200)) * 8
    raise KeyError(name)


PATTERNS = ("loop2400", "zipf5000", "unif3000", "hotscan1500", "phases", "window", "loops_mix")


def synthetic_touches(name: str) -> list[int]:
    """The claims' traces' pages in order (seeded: the same list on every machine)."""
    if name == "loop1200":
        return [p for _ in range(10) for p in range(1200)]
    rng = random.Random(39)
    out, fresh = [], 100
    for _scan in range(10):
        for _ in range(2000):
            out += [rng.randrange(100), fresh]
            fresh += 1
    return out


@dataclass(frozen=True)
class Cell:
    program: str
    #: Programs: the LRU misses the limit is placed at; patterns: memory.max [MiB]; claims: 0.
    level: int
    kernel: str
    lru_gen: bool
    zswap: str | None = None
    page_cluster: int = 0

    @property
    def trace(self) -> Path:
        return TRACES / f"{self.program}.pltrace"

    @property
    def kind(self) -> str:
        if self.program in PROGRAMS:
            return "program"
        return "pattern" if self.program in PATTERNS else "claim"

    @property
    def setting(self) -> str:
        extra = " zswap" if self.zswap else (f" page-cluster {self.page_cluster}"
                                              if self.page_cluster else "")  # fmt: skip
        return f"{self.kernel} {'MGLRU' if self.lru_gen else 'two-list'}{extra}"


@functools.cache
def _pages(program: str) -> list[int]:
    from ..linux.prediction import touch_pairs
    from ..linux.touches import prepare

    return [p for p, _w in touch_pairs(prepare(TRACES / f"{program}.pltrace"))]


#: The fewest frames a program's limit leaves: below about this the replayer's own needs come
#: near memory.max and the kernel may kill it.
MIN_FRAMES = 12


@functools.cache
def program_frames(program: str) -> dict[int, int]:
    """Each level's frames: where the trace lab's LRU misses nearest `level` times beyond its
    cold misses, at least `MIN_FRAMES`, moved up two frames at a time past a lower level's. The
    LRU runs over the touches of the pages the program writes: a page only read maps the zero
    page and takes no frame."""
    from .. import lab
    from ..linux.prediction import touch_pairs
    from ..linux.touches import prepare

    pairs = touch_pairs(prepare(TRACES / f"{program}.pltrace"))
    written = {p for p, w in pairs if w}
    pages = [p for p, _w in pairs if p in written]
    distinct = len(set(pages))
    sizes = list(range(1, distinct + 1))
    faults = {r["frames"]: r["faults"] for r in lab.curve(pages, ["lru"], sizes)}
    out: dict[int, int] = {}
    for level in LRU_MISSES:
        f = max(MIN_FRAMES, min(sizes, key=lambda f: (abs(faults[f] - distinct - level), f)))
        while f in out.values():
            f += 2
        out[level] = f
    return out


def memory_max(cell: Cell) -> int:
    if cell.kind == "pattern":
        return cell.level << 20
    tables = math.ceil(len(set(_pages(cell.program))) / 512)
    frames = (SYNTHETIC[cell.program] if cell.kind == "claim"
              else program_frames(cell.program)[cell.level])  # fmt: skip
    return (LAYOUT_OVERHEAD + tables + frames) * 4096


def _both(program: str, level: int, **kw) -> Iterator[Cell]:
    for k in KERNELS:
        for lru in (False, True):
            yield Cell(program, level, k, lru, **kw)


def cells() -> Iterator[Cell]:
    for program in PROGRAMS:
        for level in LRU_MISSES:
            yield from _both(program, level)
    for level in EXTRA_LEVELS:
        yield from _both(EXTRA_PROGRAM, level, zswap="on")
        yield from _both(EXTRA_PROGRAM, level, page_cluster=3)
    for name in PATTERNS:
        for mib in PATTERN_MIB:
            yield from _both(name, mib)
    for name in SYNTHETIC:
        yield from _both(name, 0)


def make_traces(captures: Path) -> None:
    """Writes linux_traces/NAME.pltrace from captures/NAME.pltrace (see the module notes)."""
    import tempfile

    import numpy as np

    from .. import _core, traces

    TRACES.mkdir(exist_ok=True)
    for name in PROGRAMS:
        with tempfile.TemporaryDirectory() as tmp:
            touch = Path(tmp) / "t.touch"
            _core.trace_touches(str(captures / f"{name}.pltrace"), str(touch), False, False,
                                TOUCHES)  # fmt: skip
            raw = np.fromfile(touch, dtype="<u4", offset=24)
            text = Path(tmp) / "t.txt"
            kinds = np.where(raw >> 31, "W", "R")
            lines = [f"{p} {k}" for p, k in zip((raw & 0x7FFFFFFF).tolist(), kinds, strict=True)]
            text.write_text("\n".join(lines) + "\n")
            traces.convert(text, TRACES / f"{name}.pltrace", from_="text", units="pages")
    made = {n: pattern_touches(n) for n in PATTERNS} | {n: synthetic_touches(n) for n in SYNTHETIC}
    for name, pages in made.items():
        with tempfile.TemporaryDirectory() as tmp:
            text = Path(tmp) / "t.txt"
            text.write_text("".join(f"{p} W\n" for p in pages))
            traces.convert(text, TRACES / f"{name}.pltrace", from_="text", units="pages")


REFERENCE = Path(__file__).parent / "targets" / "linux-validation-kernel.json"


def jobs_for(chosen: list[Cell]) -> list:
    from ..linux import instrument, knobs
    from ..linux.touches import prepare

    return [
        instrument.Job(
            prepare(c.trace),
            knobs.knobs(
                c.kernel,
                memory_max(c),
                c.lru_gen,
                page_cluster=c.page_cluster,
                zswap=c.zswap,
            ),  # fmt: skip
        )
        for c in chosen
    ]


def measure(repeats: int = REPEATS, kernels: tuple[str, ...] = KERNELS, **kw) -> list[dict]:
    """Runs the grid's cells of `kernels` on the real kernels (cached runs are read back)."""
    from ..linux import instrument

    chosen = [c for c in cells() if c.kernel in kernels]
    records = instrument.measure(jobs_for(chosen), repeats=repeats, **kw)
    return [{"cell": c.__dict__, **r} for c, r in zip(chosen, records, strict=True)]


#: The counters the reference keeps of each run.
KEPT = ("major_faults", "pswpin", "pswpout", "workingset_refault_anon",
        "workingset_activate_anon", "workingset_restore_anon", "zswpout", "zswpin",
        "zswap_rejected", "psi_some_us", "psi_full_us", "frames", "overhead_pages",
        "replay_seconds", "cgroup_major_faults", "kernel_pages", "replayer_anon_pages",
        "oom_killed", "context_switches")  # fmt: skip


def extend_reference(more: int, **kw) -> Path:
    """Boots `more` new runs of every cell (repeats n to n + more - 1 of the stored reference's
    n, so new boot orders), appends them to the stored runs, and rewrites the reference's
    medians and ranges and overhead.json from all of them (docs/readings.md
    `linux-reference-three-sessions`)."""
    import statistics

    from .. import _atomic

    stored = json.loads(REFERENCE.read_text())
    first = stored["repeats"]
    records = measure(first + more, first=first, **kw)
    by_cell = {json.dumps(c["cell"], sort_keys=True): c for c in stored["cells"]}
    for r in records:
        entry = by_cell[json.dumps(r["cell"], sort_keys=True)]
        for k in KEPT:
            runs = entry["runs"][k] = entry["runs"][k] + [run.get(k, 0) for run in r["runs"]]
            entry["median"][k] = statistics.median(runs)
            entry["range"][k] = [min(runs), max(runs)]
    stored["repeats"] = first + more
    stored["sessions"] = stored.get("sessions", [first]) + [more]
    stored["about"] = (
        f"Linux's own counters for the linux-validation grid: each cell replayed {first + more} "
        "times on Debian's kernels under QEMU by `pagelab linux` (see _linux_grid.py); made by "
        f"`python -m pagelab.reproductions._linux_grid --repeats {first}`, then `--extend {more}`."
    )
    _atomic.write_text(REFERENCE, json.dumps(stored, indent=1) + "\n")
    write_overhead(stored)
    return REFERENCE


def write_reference(repeats: int = REPEATS, **kw) -> Path:
    """Writes the kernel's side of the grid (every run, medians and ranges) as data."""
    import json

    from .. import _atomic

    records = measure(repeats, **kw)
    out = {
        "about": "Linux's own counters for the linux-validation grid: each cell replayed "
        f"{repeats} times on Debian's kernels under QEMU by `pagelab linux` (see _linux_grid.py); "
        "made by `python -m pagelab.reproductions._linux_grid`.",
        "repeats": repeats,
        "sessions": [repeats],
        "cells": [
            {
                "cell": r["cell"],
                "release": r["kernel"]["release"],
                "memory_max": r["knobs"]["memory_max"],
                "median": {k: r[k] for k in KEPT},
                "range": {k: r["range"][k] for k in KEPT},
                "runs": {k: [run.get(k, 0) for run in r["runs"]] for k in KEPT},
            }
            for r in records
        ],
    }
    _atomic.write_text(REFERENCE, json.dumps(out, indent=1) + "\n")
    write_overhead(out)
    return REFERENCE


def write_overhead(reference: dict) -> None:
    """overhead.json from the reference's runs: per series, the medians over every run of the
    cgroup's kernel memory less the page tables of the trace mapping and of the touch list and
    less what the replayer's report charged after the loop (REPORT), and of the replayer's own
    anonymous pages before its loop (see `pagelab.linux.prediction`)."""
    import json
    import statistics

    from .. import _atomic
    from ..linux import prediction as predict

    kernel: dict[str, list[float]] = {}
    replayer: dict[str, list[float]] = {}
    for c in reference["cells"]:
        tables = math.ceil(len(set(_pages(c["cell"]["program"]))) / 512)
        tables += len(predict.touch_list_tables(cell_touches(Cell(**c["cell"]))))
        series = c["cell"]["kernel"]
        kernel.setdefault(series, []).extend(k - tables for k in c["runs"]["kernel_pages"])
        replayer.setdefault(series, []).extend(c["runs"]["replayer_anon_pages"])
    data = json.loads(predict.OVERHEAD_FILE.read_text())
    # The report's own objects, charged after the loop, are not the loop's (REPORT).
    report = json.loads(REPORT.read_text())["median_pages"]
    data["report_kernel_pages"] = {k: round(v) for k, v in sorted(report.items())}
    data["kernel_base_pages"] = {
        k: round(statistics.median(v)) - data["report_kernel_pages"][k]
        for k, v in sorted(kernel.items())
    }
    data["replayer_anon_pages"] = {
        k: round(statistics.median(v)) for k, v in sorted(replayer.items())
    }
    data["runs"] = {k: len(v) for k, v in sorted(kernel.items())}
    data["clock"] = fit_clock(reference)
    data["clock_mglru"] = fit_clock(reference, lru_gen=True)
    # Each session's own clocks, where the reference says which runs each made.
    for name, lru_gen in (("clock_sessions", False), ("clock_mglru_sessions", True)):
        fits = [fit_clock(part, lru_gen) for part in sessions(reference)]
        data[name] = {k: [f[k] for f in fits] for k in fits[0]} if len(fits) > 1 else {}
    # The switches outside reclaim (the replay derives those inside from its reclaims).
    data["switches_per_s"] = json.loads(SWITCH_SOURCES.read_text())["switches_per_s"]
    _atomic.write_text(predict.OVERHEAD_FILE, json.dumps(data, indent=1) + "\n")


def sessions(reference: dict) -> list[dict]:
    """The reference cut into its sessions' runs, as its `sessions` counts them in order."""
    parts, at = [], 0
    for n in reference.get("sessions", [reference["repeats"]]):
        cells = [{**c, "runs": {k: v[at : at + n] for k, v in c["runs"].items()}}
                 for c in reference["cells"]]  # fmt: skip
        parts.append({**reference, "cells": cells})
        at += n
    return parts


def fit_clock(reference: dict, lru_gen: bool = False) -> dict[str, dict[str, float]]:
    """Per series, the guest's replay time as a law of what the replay does, fitted by
    non-negative least squares over every run of one list (the two lists, or MGLRU with
    `lru_gen`) without zswap: seconds per touch, per major fault and per page written to the
    device (`pagelab.linux.prediction` times PSI and the replayer's context switches with it,
    and the two lists' periodic flush of the memcg counters)."""
    import numpy as np
    from scipy.optimize import nnls

    rows: dict[str, list[tuple[float, ...]]] = {}
    for c in reference["cells"]:
        cell = Cell(**c["cell"])
        if cell.lru_gen != lru_gen or cell.zswap:
            continue
        touches = cell_touches(cell)
        runs = c["runs"]
        for major, out, secs, killed in zip(
            runs["major_faults"],
            runs["pswpout"],
            runs["replay_seconds"],
            runs["oom_killed"],
            strict=True,
        ):
            if not killed and secs > 0:
                rows.setdefault(cell.kernel, []).append((touches, major, out, secs))
    fitted = {}
    for series, r in sorted(rows.items()):
        a = np.array(r, dtype=float)
        coef, _ = nnls(a[:, :3], a[:, 3])
        fitted[series] = {
            "per_touch_s": float(coef[0]),
            "per_major_fault_s": float(coef[1]),
            "per_swapout_s": float(coef[2]),
            "runs": len(r),
        }
    return fitted


@functools.cache
def cell_touches(cell: Cell) -> int:
    """The touches of a cell's touch list."""
    from ..linux.touches import prepare

    return prepare(cell.trace).touches


TLB_PROBE = Path(__file__).parent / "targets" / "linux-tlb-probe.json"


def write_tlb_probe(kind: str = "program", seeds: tuple[int, ...] = (1, 2)) -> Path:
    """The guest TLB's entries during the replays of the cells of `kind`, measured by the
    replayer's probe (`pagelab.linux.tlb_probe`), one boot order per seed. `program` or
    `pattern`: those cells alone in each boot, written to TLB_PROBE beside the runs of the
    other kind; `mixed`: both kinds shuffled together as the reference booted them, written to
    TLB_PROBE_MIXED."""
    from collections import Counter

    from .._atomic import write_text
    from ..linux import tlb_probe

    kinds = ("program", "pattern") if kind == "mixed" else (kind,)
    chosen = [c for c in cells() if c.kind in kinds]
    path = TLB_PROBE_MIXED if kind == "mixed" else TLB_PROBE
    try:
        kept = [r for r in json.loads(path.read_text())["runs"]
                if Cell(**r["cell"]).kind not in kinds]  # fmt: skip
    except FileNotFoundError:
        kept = []
    runs = []
    for seed in seeds:
        got = tlb_probe.measure(jobs_for(chosen), seed=seed)
        runs += [{"cell": c.__dict__, "seed": seed, **g} for c, g in zip(chosen, got, strict=True)]
    runs = kept + runs
    tally = Counter(str(r["entries"]) for r in runs)
    boots = ("both kinds of cell shuffled together, 16 a boot, as the reference's runs"
             if kind == "mixed" else "one kind of cell a boot")  # fmt: skip
    data = {
        "about": "Entries of the guest's TLB (QEMU's under TCG) during each replay of the real "
        f"programs' and the patterns' cells ({boots}), measured after the loop by the "
        "replayer's probe; null where the kernel killed the replayer. Made by `python -m "
        f"pagelab.reproductions._linux_grid {PROBE_FLAGS[kind]}`.",
        "tally": dict(sorted(tally.items())),
        "runs": runs,
    }
    write_text(path, json.dumps(data, indent=1) + "\n")
    return path


PROBE_FLAGS = {"program": "--probe-tlb", "pattern": "--probe-tlb-patterns",
               "mixed": "--probe-tlb-mixed"}  # fmt: skip
TLB_PROBE_MIXED = Path(__file__).parent / "targets" / "linux-tlb-probe-mixed.json"


@functools.cache
def _probe_runs(path: Path) -> list[dict]:
    return json.loads(path.read_text())["runs"]


def trace_tlb(program: str) -> tuple[tuple[int, int], ...] | None:
    """The TLB sizes the mixed probe found on `program`'s cells, pooled over its cells and
    seeds, as (entries, count) ascending; None where it was never probed (docs/readings.md
    `linux-tlb-per-trace`, `linux-tlb-reference-mix`)."""
    from collections import Counter

    got = Counter(r["entries"] for r in _probe_runs(TLB_PROBE_MIXED)
                  if r["cell"]["program"] == program and r["entries"] is not None)  # fmt: skip
    return tuple(sorted(got.items())) or None


REPORT = Path(__file__).parent / "targets" / "linux-report-overhead.json"


def write_report_overhead(per_kernel: int = 16) -> Path:
    """What the replayer's report charges after its loop: for every third cell of each series
    (knobs default), one boot, the kernel memory at the loop's end (`loop_end_kernel`, read
    through a descriptor opened before the loop) beside the end's (`after_kernel`); per
    series the median of their difference [pages], written to REPORT."""
    import re
    import statistics

    from .._atomic import write_text
    from ..linux import guest, instrument, kernels

    runs, medians = [], {}
    for series in KERNELS:
        chosen = [c for c in cells() if c.kernel == series and not c.zswap and c.page_cluster == 0]
        chosen = chosen[::3][:per_kernel]
        jobs = jobs_for(chosen)
        boot = guest.Boot("brd", tuple(instrument._cell(j) for j in jobs), "auto")
        files = {f"touches-{j.touches.sha256[:16]}": j.touches.path for j in jobs}
        texts, _wall = guest.run(boot, kernels.kernel(series), files)
        added = []
        for c, text in zip(chosen, texts, strict=True):
            got = {k: int(v) // 4096 for k, v in re.findall(
                r"^(loop_end_kernel|after_kernel|loop_end_pagetables|after_pagetables) (\d+)$",
                text, re.M)}  # fmt: skip
            if len(got) == 4:
                added.append(got["after_kernel"] - got["loop_end_kernel"])
                runs.append({"cell": c.__dict__, **got})
        medians[series] = statistics.median(added)
    data = {
        "about": "Kernel pages the replayer's report charges after its loop (its files' objects): "
        "per run the cgroup's kernel memory at the end less at the loop's end; per series the "
        "median. Made by `python -m pagelab.reproductions._linux_grid --measure-report`.",
        "median_pages": medians,
        "runs": runs,
    }
    write_text(REPORT, json.dumps(data, indent=1) + "\n")
    return REPORT


SWITCHES = Path(__file__).parent / "targets" / "linux-context-switches.json"


def write_context_switches() -> Path:
    """The replayer's context switches during its loop (getrusage's nvcsw + nivcsw, the
    record's `context_switches`): every real-program cell of each series without zswap or
    page-cluster, both lists, one boot under TCG as the reference's runs; per cell the
    switches beside the major faults and the replay's time, written to SWITCHES. Each switch
    re-arms MGLRU's page-table walk for the replayer's mm (`lru_gen_use_mm`)."""
    from .._atomic import write_text
    from ..linux import guest, instrument, kernels, record

    runs = []
    for series in KERNELS:
        chosen = [c for c in cells() if c.kernel == series and c.kind == "program"
                  and not c.zswap and c.page_cluster == 0]  # fmt: skip
        jobs = jobs_for(chosen)
        boot = guest.Boot("brd", tuple(instrument._cell(j) for j in jobs), "tcg")
        files = {f"touches-{j.touches.sha256[:16]}": j.touches.path for j in jobs}
        texts, _wall = guest.run(boot, kernels.kernel(series), files)
        for c, j, text in zip(chosen, jobs, texts, strict=True):
            got = record.counters(text, j.knobs.memory_max, j.touches.pages)
            keep = ("context_switches", "major_faults", "replay_seconds", "oom_killed")
            runs.append({"cell": c.__dict__, **{k: got[k] for k in keep}})
    data = {
        "about": "Context switches of the replayer during its loop (voluntary and involuntary), "
        "one TCG boot per series of the real programs' cells; each re-arms MGLRU's page-table "
        "walk. Made by `python -m pagelab.reproductions._linux_grid --measure-switches`.",
        "runs": runs,
    }
    write_text(SWITCHES, json.dumps(data, indent=1) + "\n")
    return SWITCHES


SWITCH_SOURCES = Path(__file__).parent / "targets" / "linux-switch-sources.json"
#: The cells whose switches are traced: each program at one level, three patterns.
SWITCH_CELLS = (*((p, 5000) for p in PROGRAMS), ("zipf5000", 4), ("unif3000", 4), ("window", 8))


def write_switch_sources() -> Path:
    """The replayer's context switches inside and outside its faults' reclaims
    (`pagelab.linux.switch_probe`): the SWITCH_CELLS, both lists, one TCG boot per series;
    per series and list the median rate of the loop's switches outside reclaim, which
    overhead.json takes as `switches_per_s`. Written to SWITCH_SOURCES."""
    import dataclasses
    import statistics

    from .._atomic import write_text
    from ..linux import guest, instrument, kernels, record, switch_probe

    runs: list[dict] = []
    for series in KERNELS:
        chosen = [Cell(p, lv, series, g) for p, lv in SWITCH_CELLS for g in (False, True)]
        jobs = jobs_for(chosen)
        cells_ = [dataclasses.replace(instrument._cell(j, reclaim_events=True), switches=True)
                  for j in jobs]  # fmt: skip
        files = {f"touches-{j.touches.sha256[:16]}": j.touches.path for j in jobs}
        texts, _wall = guest.run(guest.Boot("brd", tuple(cells_), "tcg"), kernels.kernel(series),
                                 files)  # fmt: skip
        for c, j, text in zip(chosen, jobs, texts, strict=True):
            got = record.counters(text, j.knobs.memory_max, j.touches.pages)
            inside = switch_probe.inside_fault_reclaims(text)
            rate = switch_probe.outside_rate(got, inside)
            keep = ("context_switches", "major_faults", "replay_seconds", "oom_killed")
            runs.append({"cell": c.__dict__, **{k: got[k] for k in keep}, **inside,
                         "outside_per_s": None if rate is None else round(rate, 1)})  # fmt: skip
    rates: dict[str, dict[str, list[float]]] = {}
    for r in runs:
        lst = "mglru" if r["cell"]["lru_gen"] else "two_list"
        if r["outside_per_s"] is not None:
            rates.setdefault(r["cell"]["kernel"], {}).setdefault(lst, []).append(r["outside_per_s"])
    data = {
        "about": "The replayer's context switches during its loop, inside its faults' reclaims "
        "(the sched_switch tracepoint between a reclaim's begin and end) and outside them "
        "(getrusage's switches less those), one TCG boot per series; switches_per_s is the "
        "median rate outside reclaim per series and list. Made by `python -m "
        "pagelab.reproductions._linux_grid --measure-switch-sources`.",
        "switches_per_s": {
            k: {lst: round(statistics.median(v), 1) for lst, v in sorted(d.items())}
            for k, d in sorted(rates.items())
        },  # fmt: skip
        "runs": runs,
    }
    write_text(SWITCH_SOURCES, json.dumps(data, indent=1) + "\n")
    return SWITCH_SOURCES


START = Path(__file__).parent / "targets" / "linux-start-charge.json"
#: Boots per series for the start's charge: each holds every program at its SWITCH_CELLS level
#: under both lists.
START_BOOTS = 3


def write_start_charge(boots: int = START_BOOTS) -> Path:
    """Where the kernel's first reclaim runs against the replay's (`pagelab.linux.start_probe`):
    each program at its SWITCH_CELLS level, both lists, `boots` TCG boots per series; per series
    the lower median of the written pages it came early by, which overhead.json takes, less the
    report page, as `start_kernel_pages` (docs/readings.md `linux-start-charge`). Written to
    START."""
    import dataclasses
    import statistics

    from .. import _atomic
    from ..linux import guest, instrument, kernels, start_probe

    runs: list[dict] = []
    for series in KERNELS:
        chosen = [Cell(p, lv, series, g) for p, lv in SWITCH_CELLS[: len(PROGRAMS)]
                  for g in (False, True)]  # fmt: skip
        jobs = jobs_for(chosen)
        cells_ = [dataclasses.replace(instrument._cell(j, reclaim_events=True), faults=True)
                  for j in jobs]  # fmt: skip
        files = {f"touches-{j.touches.sha256[:16]}": j.touches.path for j in jobs}
        for boot in range(boots):
            texts, _wall = guest.run(guest.Boot("brd", tuple(cells_), "tcg"),
                                     kernels.kernel(series), files)  # fmt: skip
            for c, j, text in zip(chosen, jobs, texts, strict=True):
                got = start_probe.early_by(text, j.knobs, j.touches)
                runs.append({"cell": c.__dict__, "boot": boot, **got})
    data = {
        "about": "Where the kernel's first cgroup reclaim runs in the replayer's loop: the "
        "written page whose charge ran it (`written`, from the replayer's user page faults "
        "matched to the touch list beside the vmscan tracepoints) against the replay's by its "
        "end-of-loop layout (`model_written`); early_by_pages is per series the lower median "
        "of the difference. Made by `python -m pagelab.reproductions._linux_grid "
        "--probe-start`.",
        "early_by_pages": {k: statistics.median_low(_early_by(runs, k)) for k in KERNELS},
        "runs": runs,
    }
    _atomic.write_text(START, json.dumps(data, indent=1) + "\n")
    write_start_overhead()
    return START


def _early_by(runs: list[dict], kernel: str) -> list[int]:
    return sorted(r["early_by"] for r in runs if r["cell"]["kernel"] == kernel)


#: The quantiles of the start's charge the replay draws (docs/readings.md
#: `linux-start-charge-drawn`): those of the flusher's phases.
START_QUANTILES = (0.1, 0.3, 0.5, 0.7, 0.9)


def start_overhead(runs: list[dict]) -> dict[str, dict[str, object]]:
    """The start's charge from the probe's runs: per series the lower median of the written
    pages the kernel's first reclaim came early by (`start_kernel_pages`) and its lower
    `START_QUANTILES` (`start_kernel_draws`), each less the report page, which the replay
    places itself (`linux/report.rs`), and never below 0."""
    import statistics

    early = {k: _early_by(runs, k) for k in KERNELS}
    return {
        "start_kernel_pages": {k: max(0, statistics.median_low(v) - 1)
                               for k, v in sorted(early.items())},
        "start_kernel_draws": {k: [max(0, v[int(q * (len(v) - 1))] - 1)
                                   for q in START_QUANTILES]
                               for k, v in sorted(early.items())},
    }  # fmt: skip


def write_start_overhead() -> Path:
    """overhead.json's start's charge (`start_overhead`) from the stored probe (START), no
    boot."""
    from ..linux import prediction as predict

    over = start_overhead(json.loads(START.read_text())["runs"])
    over["about_start_kernel_draws"] = (
        "Per series, the start's kernel pages at the 10, 30, 50, 70 and 90 % lower quantiles of "
        "the written pages the kernel's first reclaim came early by, less the report page "
        "(python -m pagelab.reproductions._linux_grid --start-draws, from the stored "
        "--probe-start runs); the prediction draws them with Options.start_draws."
    )
    predict.update_overhead(over)
    return predict.OVERHEAD_FILE


def main(argv: list[str] | None = None) -> None:
    """`python -m pagelab.reproductions._linux_grid [KERNEL ...] [--extend N | --measure-only |
    --fit-clock |
    --measure-report | --measure-switches | --probe-tlb | --probe-tlb-patterns |
    --probe-tlb-mixed | --probe-start] [--repeats N]`: with no option, every cell measured (N
    runs each, default REPEATS; about 15 min per five runs a cell not yet in the store) and the
    stored reference rewritten."""
    import argparse

    from .. import progress

    ap = argparse.ArgumentParser(
        prog="python -m pagelab.reproductions._linux_grid",
        description="Measure the linux-validation grid on the kernels and write its reference.",
    )
    series = ", ".join(KERNELS)
    ap.add_argument("kernels", nargs="*", metavar="KERNEL", help=f"{series} (default: both)")
    ap.add_argument(
        "--repeats", type=int, default=REPEATS, metavar="N",
        help=f"runs a cell (default {REPEATS}, the stored reference's; runs already in the "
        "store are read back, not booted)",
    )  # fmt: skip
    what = ap.add_mutually_exclusive_group()
    what.add_argument(
        "--extend", type=int, metavar="N",
        help="N more runs a cell in new boot orders, appended to the stored reference's",
    )  # fmt: skip
    flags = {
        "--measure-only": "run the cells into the cache without writing the reference",
        "--fit-clock": "refit overhead.json's clock from the stored reference",
        "--measure-report": "measure what the replayer's report charges",
        "--measure-switches": "measure the replayer's context switches",
        "--measure-switch-sources": "trace its switches inside and outside reclaim",
        "--probe-tlb": "probe the guest TLB's size on the programs' cells",
        "--probe-tlb-patterns": "probe it on the patterns' cells",
        "--probe-tlb-mixed": "probe it on both, booted together as the reference was",
        "--probe-start": "place the kernel's first reclaim against the replay's",
        "--start-draws": "overhead.json's start's charge from the stored --probe-start runs",
    }
    for flag, text in flags.items():
        what.add_argument(flag, action="store_true", help=text)
    a = ap.parse_args(argv)
    if a.repeats < 1:
        ap.error(f"--repeats: expected a whole number of runs of at least 1, got {a.repeats}")
    for k in a.kernels:
        if k not in KERNELS:
            ap.error(f"unknown kernel series {k!r}: expected one of {', '.join(KERNELS)}")
    if a.extend is not None and a.extend < 1:
        ap.error(f"--extend: expected a whole number of runs of at least 1, got {a.extend}")
    if a.extend:
        with progress.bar("kernel runs") as update:
            print(extend_reference(a.extend, progress=lambda d, t: update(d, t)))
    elif a.measure_report:
        print(write_report_overhead())
    elif a.measure_switches:
        print(write_context_switches())
    elif a.measure_switch_sources:
        print(write_switch_sources())
    elif a.probe_start:
        print(write_start_charge())
    elif a.start_draws:
        print(write_start_overhead())
    elif a.probe_tlb or a.probe_tlb_patterns or a.probe_tlb_mixed:
        kind = "pattern" if a.probe_tlb_patterns else "mixed" if a.probe_tlb_mixed else "program"
        print(write_tlb_probe(kind))
    elif a.fit_clock:
        write_overhead(json.loads(REFERENCE.read_text()))
    else:
        only = tuple(a.kernels) or KERNELS
        with progress.bar("kernel runs") as update:
            if a.measure_only:
                measure(a.repeats, kernels=only, progress=lambda d, t: update(d, t))
            else:
                print(write_reference(a.repeats, progress=lambda d, t: update(d, t)))


if __name__ == "__main__":
    main()
