"""Does `calibrate --surrogate model` reach the plain search's loss in fewer simulated trials?

    python benches/surrogate_trials.py --out DIR [--seeds 0,1,2] [--cases A,B]

The reading is `surrogate-fewer-trials` in docs/readings.md: two known-answer cp67 cases (the
target is the simulator's own mean over seeds 1-2 at known values), each searched plain and
with the surrogate at sampler seeds 0-2; a search's count is its first simulated trial whose
loss is at most 1.1 x the plain search's best after the budget (21 if never). Writes
DIR/trials.json (every trial's loss, both searches) and prints the table. About 2 minutes a
(case, seed) pair on one core.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from pagelab import calibrate as cal
from pagelab.system import run

PRESET = "cp67"
SETTINGS = ["run.duration_s=400", "run.warmup_s=40"]
VARY = ["cpu.supervisor.fault_us=500:4000", "vio.service_ms=30:200"]
METRICS = ["throughput", "response_mean_s", "cpu_busy_pct"]
USERS = [20, 40]
CASES = {
    "A": {"cpu.supervisor.fault_us": 2200, "vio.service_ms": 110},
    "B": {"cpu.supervisor.fault_us": 800, "vio.service_ms": 170},
    # Fresh known answers for the trust-region form (reading `surrogate-fresh-cases`).
    "C": {"cpu.supervisor.fault_us": 1400, "vio.service_ms": 60},
    "D": {"cpu.supervisor.fault_us": 3200, "vio.service_ms": 150},
}
BUDGET = 20
SLACK = 1.1


def make_target(case: str, out: Path) -> Path:
    """The known answer: the simulator's mean over seeds 1-2 at the case's values."""
    known = [f"{k}={v}" for k, v in CASES[case].items()]
    lines = [f'[target]\nname = "known-{case}"\nsource = "cp67 at {", ".join(known)}"\n']
    for n in USERS:
        ov = [*SETTINGS, *known, f"workload.users={n}"]
        runs = [run(PRESET, overrides=ov, seed=s).metrics for s in (1, 2)]
        for m in METRICS:
            value = sum(r[m].value for r in runs) / 2
            lines.append(
                f'[[point]]\nmetric = "{m}"\nvalue = {value!r}\nset = ["workload.users={n}"]\n'
            )
    path = out / f"target-{case}.toml"
    path.write_text("\n".join(lines))
    return path


def search(target: Path, seed: int, surrogate: str | None) -> dict:
    t0 = time.perf_counter()
    c = cal.calibrate(
        PRESET, cal.load_target(target), [cal.parse_vary(v) for v in VARY], budget=BUDGET,
        seeds=2, set=SETTINGS, workers=1, surrogate=surrogate, sampler_seed=seed,
    )  # fmt: skip
    return {
        "losses": [t.loss for t in c.trials],
        "values": [t.values for t in c.trials],
        "surrogate": c.surrogate,
        "wall_s": time.perf_counter() - t0,
    }


def first_within(losses: list[float], threshold: float) -> int:
    """The first 1-based trial at or below `threshold`; the budget plus one if none."""
    return next((i + 1 for i, x in enumerate(losses) if x <= threshold), len(losses) + 1)


def table(results: dict) -> str:
    rows = ["| case | seed | threshold | plain: trial | surrogate: trial | plain best | "
            "surrogate best | twin's best loss (sim) | wall: plain / surrogate [s] |",
            "|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    wins, sums = 0, [0, 0]
    for key, r in sorted(results.items()):
        case, seed = key.split("/")
        plain, sur = r["plain"]["losses"], r["surrogate"]["losses"]
        thr = SLACK * min(plain)
        n_p, n_s = first_within(plain, thr), first_within(sur, thr)
        wins += n_s < n_p
        sums[0] += n_p
        sums[1] += n_s
        rows.append(
            f"| {case} | {seed} | {thr:.3g} | {n_p} | {n_s if n_s <= BUDGET else 'not reached'}"
            f" | {min(plain):.3g} | {min(sur):.3g} | {sur[0]:.3g}"
            f" | {r['plain']['wall_s']:.1f} / {r['surrogate']['wall_s']:.1f} |"
        )
    rows.append(f"\nsurrogate fewer trials in {wins} of {len(results)} pairs; "
                f"sums {sums[0]} plain, {sums[1]} surrogate")  # fmt: skip
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--cases", default="A,B")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    path = a.out / "trials.json"
    results = json.loads(path.read_text()) if path.exists() else {}
    for case in a.cases.split(","):
        target = a.out / f"target-{case}.toml"
        if not target.exists():
            target = make_target(case, a.out)
        for seed in map(int, a.seeds.split(",")):
            key = f"{case}/{seed}"
            if key in results:
                continue
            results[key] = {
                "plain": search(target, seed, None),
                "surrogate": search(target, seed, "model"),
            }
            path.write_text(json.dumps(results, indent=1))
            print(key, "done", flush=True)
    print(table(results))


if __name__ == "__main__":
    main()
