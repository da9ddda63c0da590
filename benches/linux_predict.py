"""How long `pagelab linux predict` takes on three million references (both lists, 6.1 and
6.12, the default five draws at two TLB sizes: ten replays each), the median of three runs.

    python benches/linux_predict.py [--references N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from pagelab import linux


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--references", type=int, default=3_000_000)
    a = ap.parse_args()
    rng = np.random.default_rng(1)
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "random.u64"
        rng.integers(0, 2000, a.references).astype(np.uint64).tofile(trace)
        for kernel in ("6.1", "6.12"):
            for lists in ("off", "on"):
                times = []
                for _ in range(3):
                    t = time.perf_counter()
                    linux.predict(trace, kernel=kernel, memory_max="4M", lru_gen=lists)
                    times.append(time.perf_counter() - t)
                name = "MGLRU" if lists == "on" else "two lists"
                print(f"linux predict {a.references:,} refs, {kernel} {name}: "
                      f"{statistics.median(times):.2f} s (median of 3)")  # fmt: skip


if __name__ == "__main__":
    main()
