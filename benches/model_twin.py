"""The analytic twin's speed, and its agreement with the simulator on a product-form case.

    python benches/model_twin.py             # `pagelab model` at 40 user counts, best of 3
    python benches/model_twin.py --kept      # instead, a calibration's solves on cp67
    python benches/model_twin.py --compare   # + the product-form case against the simulator

The lifetime curves are kept across solves (crates/pagelab-model/src/lifetime/cache.rs), so
the best of 3 is a solve with its curves kept; the first, printed beside it, measures them.
`--kept` times what a calibration's surrogate does: cp67 at 20 and 40 users, first with the
curves measured, then 10 times with a key the curves do not read changed.

The product-form case (benches/data/product_form.toml) is simulated at 5 user counts with 3
seeds each through the sweep engine (niced, one worker): about a minute of CPU.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import pagelab
from pagelab.model import compare_sim

HERE = Path(__file__).resolve().parent
PRODUCT_FORM = HERE / "data" / "product_form.toml"
CASES = [
    ("vm370", "10:400:10", {}),
    ("cp67", "2:80:2", {}),
    ("vm370", "10:400:10", {"memory.frames": 500}),
    ("m44", "1:40:1", {}),
    ("unix-v6-fitted", "1:40:1", {}),
]


def timing() -> None:
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cpus")
    for spec, users, sets in CASES:
        walls = []
        for _ in range(3):
            t = time.perf_counter()
            df = pagelab.model(spec, users=users, set=sets)
            walls.append(time.perf_counter() - t)
        print(
            f"pagelab model {spec} {sets or ''} --users {users}: {len(df)} counts in "
            f"{min(walls):.3f} s (first {walls[0]:.3f} s)"
        )


def kept() -> None:
    """cp67 at 20 and 40 users: the first solve, then 10 with the supervisor's fault time and
    the minidisk's service time changed (keys the lifetime curves do not read)."""
    walls = []
    for i in range(11):
        sets = {"cpu.supervisor.fault_us": 2200 + 100 * i, "vio.service_ms": 110 + 5 * i}
        t = time.perf_counter()
        pagelab.model("cp67", users=[20, 40], set=sets)
        walls.append(time.perf_counter() - t)
    rest = sorted(walls[1:])
    print(
        f"cp67 at 20 and 40 users: first {walls[0]:.3f} s, then with a timing key changed "
        f"{rest[0]:.3f}-{rest[-1]:.3f} s (median {rest[len(rest) // 2]:.3f} s)"
    )


def compare() -> None:
    users = [1, 5, 10, 20, 40]
    model = pagelab.model(PRODUCT_FORM, users=users).set_index("users")
    sim = compare_sim(str(PRODUCT_FORM), users=users, seeds=3, workers=1).set_index("users")
    print("users  X model  X sim (sd)       err   R model  R sim (sd)       err")
    for u in users:
        xm, xs, xsd = (
            model.loc[u, "throughput"],
            sim.loc[u, "throughput"],
            sim.loc[u, "throughput_sd"],
        )
        rm, rs, rsd = model.loc[u, "response"], sim.loc[u, "response"], sim.loc[u, "response_sd"]
        print(
            f"{u:5d}  {xm:7.4f}  {xs:7.4f} ({xsd:.4f})  {100 * (xm / xs - 1):+5.1f} %"
            f"  {rm:7.4f}  {rs:7.4f} ({rsd:.4f})  {100 * (rm / rs - 1):+5.1f} %"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kept", action="store_true")
    ap.add_argument("--compare", action="store_true")
    args = ap.parse_args()
    import pandas  # noqa: F401  (else the first solve's time includes importing it)

    # The calibration's first solve must be the process's first of cp67.
    kept() if args.kept else timing()
    if args.compare:
        compare()


if __name__ == "__main__":
    main()
