"""The sweep engine's two performance targets, measured with the `pagelab` command:

* a 16-point x 2-seed sweep of a system preset on 2 worker processes against `--workers 1`,
  both from an empty store (target: wall time at most 1/1.8 of the one-worker sweep);
* the same sweep again with the store full (target: at least 20x faster than the first).

Usage: python benches/sweep_speedup.py [DURATION_S]. Prints the machine and the load, since
on a shared machine the ratio moves with whatever else runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PRESET = "vm370"
GRID = "workload.users=100:250:10"  # 16 points


def sweep(out: Path, workers: int, duration: str) -> float:
    exe = Path(sys.executable).with_name("pagelab")
    cmd = [
        str(exe),
        "sweep",
        PRESET,
        "--set",
        f"run.duration_s={duration}",
        "--grid",
        GRID,
        "--seeds",
        "2",
        "--out",
        str(out),
        "--workers",
        str(workers),
    ]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - t0


def main() -> None:
    duration = sys.argv[1] if len(sys.argv) > 1 else "1200"
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        one = sweep(Path(tmp) / "one", 1, duration)
        two = sweep(Path(tmp) / "two", 2, duration)
        full = sweep(Path(tmp) / "two", 2, duration)
    print(f"{PRESET}, {GRID} x 2 seeds, {duration} simulated s a run")
    print(f"--workers 1, empty store: {one:7.2f} s")
    print(
        f"--workers 2, empty store: {two:7.2f} s  ratio {two / one:.3f} (target <= {1 / 1.8:.3f})"
    )
    print(f"--workers 2, full store:  {full:7.2f} s  speed-up {two / full:.1f}x (target >= 20x)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
