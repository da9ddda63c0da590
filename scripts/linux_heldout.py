"""Five fresh u64 traces on Linux beside `pagelab linux predict`: the held-out check.

Each trace is made here from a fixed seed, every reference a write (a raw u64 trace of page
numbers), and run five times on the kernel under each list at its memory.max; the prediction
is the command line a user runs (`pagelab linux predict TRACE --kernel 6.1 --memory-max BYTES
--lru-gen on|off --page-cluster 0 --format json`), its `major_faults` set beside the kernel's
median and range. A cell where the kernel pages a handful of times or never is kept and
marked: its percent error says little.

    python scripts/linux_heldout.py --out DIR [--kernel 6.12]    (about 5 minutes under TCG)
    python scripts/linux_heldout.py --out DIR --option=--mapping-tables

The kernel's runs are kept in DIR's store, so a second call on the same DIR with a predict
option sets the replay with it beside the same runs (written to heldout-OPTION.json).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np

SEED = 20261130


def _zipf(n: int, s: float, count: int) -> list[int]:
    w = np.array([1 / (k + 1) ** s for k in range(n)])
    perm = np.random.default_rng(7).permutation(n)
    return perm[np.random.default_rng(8).choice(n, size=count, p=w / w.sum())].tolist()


def traces() -> dict[str, tuple[list[int], int]]:
    """name: (pages in order, memory.max in MiB)."""
    rng = random.Random(SEED)
    mix: list[int] = []
    for i in range(40):
        mix += (
            list(range(1500))[(i * 37) % 1500 :][:600]
            + list(range(1500, 2200))[(i * 11) % 700 :][:300]
        )
    phases: list[int] = []
    for _ in range(8):
        base = rng.randrange(0, 4000)
        hot = [base + rng.randrange(0, 900) for _ in range(900)]
        phases += [rng.choice(hot) for _ in range(9000)]
    walk, p = [], 1000
    for _ in range(80_000):
        p = max(0, min(2999, p + rng.choice((-3, -2, -1, 1, 2, 3, 0))))
        walk.append(p)
    hotcold = [
        rng.randrange(0, 1000) if rng.random() < 0.8 else rng.randrange(1000, 5000)
        for _ in range(90_000)
    ]
    return {
        "zipf6000": (_zipf(6000, 0.9, 90_000), 10),
        "twoloops": (mix, 6),
        "phases900": (phases, 4),
        "walk3000": (walk, 3),
        "hotcold": (hotcold, 12),
    }


def main() -> None:
    from pagelab.linux import instrument, knobs
    from pagelab.linux.touches import prepare

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--kernel", default="6.1", choices=("6.1", "6.12"))
    ap.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="FLAG",
        help="a flag for pagelab linux predict, e.g. --option=--mapping-tables",
    )
    args = ap.parse_args()
    out, series = args.out, args.kernel
    out.mkdir(parents=True, exist_ok=True)
    jobs, cells = [], []
    for name, (pages, mib) in traces().items():
        path = out / f"{name}.u64"
        np.array(pages, dtype="<u8").tofile(path)
        for lru in ("off", "on"):
            jobs.append(instrument.Job(prepare(str(path)), knobs.knobs(series, f"{mib}M", lru)))
            cells.append((name, path, mib, lru))
    records = instrument.measure(jobs, repeats=5, store=out / "store")
    rows = []
    for (name, path, mib, lru), rec in zip(cells, records, strict=True):
        cmd = [sys.executable, "-m", "pagelab", "linux", "predict", str(path), "--kernel", series,
               "--memory-max", str(mib << 20), "--lru-gen", lru, "--page-cluster", "0",
               "--format", "json", *args.option]  # fmt: skip
        pred = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
        k = rec["major_faults"]
        rows.append({
            "trace": name, "memory_max_mib": mib, "lru_gen": lru, "kernel": k,
            "kernel_range": rec["range"]["major_faults"],
            "kernel_runs": [r["major_faults"] for r in rec["runs"]],
            "predicted": pred["major_faults"],
            "error": (pred["major_faults"] - k) / k if k else None,
            "few_faults": k < 50,
        })  # fmt: skip
        print(name, mib, lru, k, rec["range"]["major_faults"], pred["major_faults"], flush=True)
    errs = [abs(r["error"]) for r in rows if r["error"] is not None]
    summary = {
        "kernel": series,
        "cells": len(rows),
        "median_abs_error": statistics.median(errs) if errs else None,
        "options": args.option,
    }
    name = "-".join(["heldout", *(o.lstrip("-") for o in args.option)])
    (out / f"{name}.json").write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    print(summary)


if __name__ == "__main__":
    main()
