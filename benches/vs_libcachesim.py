"""pagelab against libCacheSim on the same real trace, same policies and sizes, in one run.

    .venv/bin/python benches/vs_libcachesim.py [--trace FILE] [--out results/bench]

Without --trace it captures one with `pagelab trace capture` from a real program (coreutils
sort on 32,000 deterministic words, about 1.3 x 10^8 references) and caches it under build/bench/.
Both tools are timed end to end from their own trace files: pagelab from its .pltrace (reading,
decoding and simulating all counted), libCacheSim from the oracleGeneral export of the same
string (obj_id = page, obj_size = page size,
cache size = frames x page size). Miss counts are compared exactly.
Writes OUT/vs_libcachesim.csv and OUT/vs_libcachesim.md with the machine's description.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import sys
import time
from pathlib import Path

import libcachesim as lcs

import pagelab
from pagelab import _atomic, traces

LCS_VERSION = getattr(lcs, "__version__", "?")
ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build" / "bench"

# pagelab policy -> libCacheSim class. Where the definitions agree the miss counts must match.
# CLOCK: pagelab's default sets the reference bit of the page a fault loads (the hardware does);
# libCacheSim's Clock inserts with the bit clear, which is pagelab's `bit_on_load=false`.
POLICIES = [
    ("lru", lcs.LRU, True),
    ("fifo", lcs.FIFO, True),
    ("clock:bit_on_load=false", lcs.Clock, True),
    ("clock", lcs.Clock, False),
    ("min", lcs.Belady, True),
]


def ensure_trace(min_refs: int) -> Path:
    trace = BUILD / "sort.pltrace"
    if trace.exists() and traces.info(trace)["references"] >= min_refs:
        return trace
    BUILD.mkdir(parents=True, exist_ok=True)
    words = BUILD / "sort-input.txt"
    rng = random.Random(1968)
    letters = "abcdefghijklmnopqrstuvwxyz"
    lines = ("".join(rng.choice(letters) for _ in range(rng.randint(4, 12))) for _ in range(32_000))
    words.write_text("\n".join(lines) + "\n")
    sort = shutil.which("sort")
    if sort is None:
        sys.exit("bench: sort is not on PATH")
    print("capturing `sort` under lackey (a few minutes)...", flush=True)
    traces.capture(trace, sort, ["-o", str(BUILD / "sorted.txt"), str(words)], page_size=4096)
    return trace


def timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    value = fn(*args, **kwargs)
    return value, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", type=Path, default=None)
    ap.add_argument("--min-refs", type=int, default=100_000_000)
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "bench")
    args = ap.parse_args()

    BUILD.mkdir(parents=True, exist_ok=True)
    trace = args.trace or ensure_trace(args.min_refs)
    info = traces.info(trace)
    refs, pages = info["references"], info["distinct_pages"]
    page_size = info["page_size"]
    oracle = trace.with_suffix(".oracleGeneral.bin")
    if not oracle.exists() or oracle.stat().st_mtime < trace.stat().st_mtime:
        traces.export_oracle_general(trace, oracle)
    sizes = sorted({max(1, pages // 100), max(2, pages // 20), max(3, pages // 4)})
    print(f"trace {trace}: {refs:,} references, {pages:,} pages; sizes {sizes}", flush=True)

    rows = []
    for name, cls, same_definition in POLICIES:
        for frames in sizes:
            (ours,), t_ours = timed(pagelab.curve, trace, [name], [frames])
            reader = lcs.TraceReader(str(oracle), lcs.TraceType.ORACLE_GENERAL_TRACE)
            # oracleGeneral records carry obj_size = page size, so the cache holds `frames`
            # pages when its size in bytes is frames x page size.
            cache = cls(cache_size=frames * page_size, consider_obj_metadata=False)
            (miss_ratio, _), t_lcs = timed(cache.process_trace, reader)
            lcs_misses = round(miss_ratio * refs)
            rows.append(
                {
                    "policy": name,
                    "frames": frames,
                    "references": refs,
                    "pagelab_faults": ours["faults"],
                    "libcachesim_misses": lcs_misses,
                    "identical": ours["faults"] == lcs_misses,
                    "same_definition": same_definition,
                    "pagelab_mrefs_s": round(refs / t_ours / 1e6, 1),
                    "libcachesim_mrefs_s": round(refs / t_lcs / 1e6, 1),
                    "speedup": round(t_lcs / t_ours, 2),
                }
            )
            print(rows[-1], flush=True)

    # One-pass LRU over every size: pagelab's Mattson stack against libCacheSim's analyzer
    # with only its reuse (stack distance) analysis switched on.
    _, t_curve = timed(pagelab.lru_curve, trace)
    reader = lcs.TraceReader(str(oracle), lcs.TraceType.ORACLE_GENERAL_TRACE)
    opt = lcs.AnalysisOption(
        req_rate=False, access_pattern=False, size=False, reuse=True, popularity=False
    )
    analyzer = lcs.TraceAnalyzer(reader, str(BUILD / "lcs-analysis"), analysis_option=opt)
    cwd = os.getcwd()
    os.chdir(BUILD)  # the analyzer also writes a `stat` file into the working directory
    try:
        _, t_an = timed(analyzer.run)
    finally:
        os.chdir(cwd)
    rows.append(
        {
            "policy": "lru one-pass (all sizes)",
            "frames": pages,
            "references": refs,
            "pagelab_faults": None,
            "libcachesim_misses": None,
            "identical": None,
            "same_definition": False,
            "pagelab_mrefs_s": round(refs / t_curve / 1e6, 1),
            "libcachesim_mrefs_s": round(refs / t_an / 1e6, 1),
            "speedup": round(t_an / t_curve, 2),
        }
    )
    print(rows[-1], flush=True)

    args.out.mkdir(parents=True, exist_ok=True)
    _atomic.write_table(args.out / "vs_libcachesim.csv", rows, "csv")
    machine = (
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, libcachesim {LCS_VERSION}"
    )
    lines = [
        f"# pagelab vs libCacheSim on {trace.name}",
        "",
        f"{refs:,} references, {pages:,} distinct 4 KiB pages; machine: {machine}.",
        "Command: `.venv/bin/python benches/vs_libcachesim.py`",
        "",
        "| " + " | ".join(rows[0]) + " |",
        "|" + "---|" * len(rows[0]),
    ]
    lines += ["| " + " | ".join(str(v) for v in r.values()) + " |" for r in rows]
    _atomic.write_text(args.out / "vs_libcachesim.md", "\n".join(lines) + "\n")
    print(f"wrote {args.out / 'vs_libcachesim.md'}")
    mismatched = [r for r in rows if r["same_definition"] and not r["identical"]]
    if mismatched:
        sys.exit(f"miss counts differ where the definitions agree: {mismatched}")


if __name__ == "__main__":
    main()
