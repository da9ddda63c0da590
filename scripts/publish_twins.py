"""The analytic twin beside the simulator for every system preset, for the report.

    python scripts/publish_twins.py [--only NAME ...] [--seeds 2] [--out FILE]

For each preset of the `system` group (`pagelab list presets`): the twin (`pagelab.model`) at
40 counts from 1 to three times the preset's own users (UNIX V6: 1 to 16 prototype processes;
the M44: 1 to 5 copies), and the simulator through the sweep engine (`model.compare_sim`) at
four counts around the preset's own, each with `--seeds` seeds of a run cut to `DURATION_S`
simulated seconds (the M44's batch runs until its jobs end). Throughput and response of both,
the knee each predicts. `pagelab report` draws them on each system preset's page. Written
atomically, one preset at a time; a rerun does only the presets the file lacks (or `--only`).
About 10 minutes on one core.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import pagelab
import pagelab.system
from pagelab import _atomic
from pagelab import model as twin
from pagelab.errors import PagelabError

ROOT = Path(__file__).resolve().parents[1]
#: Simulated seconds of each compared run (warm-up as the preset has it).
DURATION_S = 1200
#: What a system's twin counts (model counts, simulated counts) when its preset has no users.
FIXED = {"m44": ("1:5:1", [1, 2, 3, 4, 5]), "unix": ("1:16:1", [2, 4, 6, 8])}


def _counts(name: str) -> tuple[str, str, list[int]]:
    """The system's kind, the model's counts and the simulated counts of preset `name`."""
    from pagelab.sweep.spec import resolve

    tree = resolve(name, [])[1]
    kind = tree.get("system", {}).get("kind", "vm")
    if kind in FIXED:
        return (kind, *FIXED[kind])
    own = int(tree["workload"]["users"])
    top = 3 * own
    step = max(1, math.ceil(top / 40))
    sim = sorted({max(1, round(own * f)) for f in (0.5, 1.0, 1.5, 2.0)})
    return kind, f"{step}:{top}:{step}", sim


def _clean(v: float) -> float | None:
    return None if v is None or not math.isfinite(v) else float(v)


def one(name: str, seeds: int) -> dict:
    """The twin and the simulator for preset `name`."""
    kind, counts, sim_users = _counts(name)
    timing = [] if kind == "m44" else [f"run.duration_s={DURATION_S}"]
    # The twin's means over the runs' window (reading twin-run-horizon).
    model = twin.model(name, users=counts, overrides=timing)
    t0 = time.perf_counter()
    frames, failed = [], []
    for n in sim_users:  # one sweep per count: a count the preset cannot run is named, not fatal
        try:
            frames.append(twin.compare_sim(name, set=timing, users=[n], seeds=seeds, workers=1))
        except PagelabError as e:
            failed.append({"users": n, "error": str(e)})
    import pandas as pd

    sim = pd.concat(frames, ignore_index=True)
    cols = ("throughput", "response")
    return {
        "kind": kind,
        "users_key": twin.USERS_KEY.get(kind, "workload.users"),
        "model": [
            {"users": int(r.users), **{c: _clean(getattr(r, c)) for c in cols}}
            for r in model.itertuples()
        ],
        "sim": [
            {
                "users": int(r["users"]),
                **{c: _clean(r.get(c)) for c in cols},
                **{f"{c}_sd": _clean(r.get(f"{c}_sd")) for c in cols},
            }
            for _, r in sim.iterrows()
        ],
        "knee_model": twin.knee(model),
        "knee_sim": twin.knee(sim),
        "sim_failed": failed,
        "sim_run": {"seeds": seeds, "set": timing, "seconds": round(time.perf_counter() - t0, 1)},
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--seeds", type=int, default=2)
    default = ROOT / "docs" / "published" / "twin" / "presets.json"
    ap.add_argument("--out", type=Path, default=default)
    args = ap.parse_args()
    names = [p["name"] for p in pagelab.system.presets() if p.get("group") == "system"]
    out = json.loads(args.out.read_text()) if args.out.exists() else {"presets": {}}
    for name in args.only or [n for n in names if n not in out["presets"]]:
        out["presets"][name] = one(name, args.seeds)
        print(
            f"{name}: knee model {out['presets'][name]['knee_model']:g}, "
            f"simulated {out['presets'][name]['knee_sim']:g}",
            flush=True,
        )
        out["about"] = __doc__.split("\n\n")[2].replace("\n", " ").strip()
        _atomic.write_text(args.out, json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
