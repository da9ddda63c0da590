"""pagelab against libCacheSim, side by side in one run, end to end from each tool's trace file.

    .venv/bin/python benches/vs_libcachesim.py [--repeat 5] [--out benches/RESULTS.md]

`make bench` runs it. It makes its own traces under build/bench/ (cached): a real program,
coreutils `sort` of 24,000 deterministic words captured under valgrind lackey (about 10^8
references), and a synthetic locality string (drifting hot window, 10% uniform) written as raw
page numbers and converted. Each trace is also exported as libCacheSim's oracleGeneral binary
(which carries precomputed next-access times; pagelab computes MIN's next use itself).

Every measurement runs in a fresh process (`--one TOOL POLICY FRAMES TRACE`), which times the
simulation call alone (reading, decoding and simulating the trace file, not the interpreter's
start) and reports its own peak RSS; the best of `--repeat` runs is kept, the two tools' runs
alternating. Miss counts are compared exactly where the two definitions agree. Besides the
pairs, it records: the plain per-reference loop over a dense in-memory array
(examples/dense_loop.rs) for LRU, FIFO and CLOCK; one-pass LRU (every size) in references per
second; MIN at every size with its peak RSS; 3 policies x 20 sizes through `pagelab curve` on 2
threads. Writes the Markdown record atomically, with the machine, the commit and the load
average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build" / "bench"
PY = sys.executable

# (pagelab policy, libCacheSim class, same definition). CLOCK: libCacheSim's Clock inserts a
# page with its bit clear, which is pagelab's `bit_on_load = false`.
POLICIES = [
    ("lru", "LRU", True),
    ("fifo", "FIFO", True),
    ('{"kind": "clock", "bit_on_load": false}', "Clock", True),
    ("arc", "ARC", False),
    ("lirs", "LIRS", False),
    ("sieve", "Sieve", True),
    ("min", "Belady", True),
]
DENSE = {"lru": "lru", "fifo": "fifo", '{"kind": "clock", "bit_on_load": false}': "clock"}


def label(policy: str) -> str:
    return "clock" if policy.startswith("{") else policy


def peak_rss_mb() -> float:
    """This process's peak RSS [MB]: VmHWM of its own address space (ru_maxrss would carry the
    parent's peak over fork and exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def one(tool: str, policy: str, frames: int, trace: str) -> None:
    """Child process: one timed simulation; prints a JSON line."""
    if tool == "pagelab":
        import pagelab

        spec = json.loads(policy) if policy.startswith("{") else policy
        t0 = time.perf_counter()
        (row,) = pagelab.curve(trace, [spec], [frames])
        dt = time.perf_counter() - t0
        out = {"faults": row["faults"], "references": row["references"]}
    elif tool == "libcachesim":
        import libcachesim as lcs

        t0 = time.perf_counter()
        reader = lcs.TraceReader(trace, lcs.TraceType.ORACLE_GENERAL_TRACE)
        # oracleGeneral records carry obj_size = page size: the cache holds `frames` pages.
        cache = getattr(lcs, policy)(cache_size=frames * 4096, consider_obj_metadata=False)
        miss_ratio, _ = cache.process_trace(reader)
        dt = time.perf_counter() - t0
        out = {"miss_ratio": miss_ratio}
    elif tool == "lru-curve":
        import pagelab

        t0 = time.perf_counter()
        c = pagelab.lru_curve(trace)
        dt = time.perf_counter() - t0
        out = {"references": c["rows"][0]["references"], "points": len(c["rows"])}
    elif tool == "min-curve":
        import pagelab

        t0 = time.perf_counter()
        c = pagelab.opt_curve(trace)
        dt = time.perf_counter() - t0
        out = {"references": c["rows"][0]["references"], "points": len(c["rows"])}
    else:
        sys.exit(f"--one: unknown tool {tool!r}")
    out.update(seconds=dt, peak_mb=peak_rss_mb())
    print(json.dumps(out))


def child(args: list[str], env: dict[str, str] | None = None) -> dict:
    p = subprocess.run(
        [PY, __file__, "--one", *args], capture_output=True, text=True, env=env, check=False
    )
    if p.returncode != 0:
        sys.exit(f"bench child {args} failed:\n{p.stderr}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def best(args: list[str], repeat: int, env: dict[str, str] | None = None) -> dict:
    runs = [child(args, env) for _ in range(repeat)]
    return min(runs, key=lambda r: r["seconds"])


def best_pair(ours: list[str], theirs: list[str], repeat: int) -> tuple[dict, dict]:
    """The best of `repeat` runs of each tool, run alternately, so that a spell of a slower
    machine (a busy neighbour on a shared host) falls on both tools alike."""
    a, b = [], []
    for _ in range(repeat):
        a.append(child(ours))
        b.append(child(theirs))
    return min(a, key=lambda r: r["seconds"]), min(b, key=lambda r: r["seconds"])


def sort_trace() -> Path:
    from pagelab import traces

    trace = BUILD / "sort.pltrace"
    if trace.exists():
        return trace
    words = BUILD / "sort-input.txt"
    rng = random.Random(1968)
    letters = "abcdefghijklmnopqrstuvwxyz"
    lines = ("".join(rng.choice(letters) for _ in range(rng.randint(4, 12))) for _ in range(24_000))
    words.write_text("\n".join(lines) + "\n")
    sort = shutil.which("sort")
    if sort is None:
        sys.exit("bench: sort is not on PATH")
    print("capturing `sort` under lackey (a few minutes)...", flush=True)
    traces.capture(trace, sort, ["-o", str(BUILD / "sorted.txt"), str(words)], page_size=4096)
    return trace


def synthetic_trace(n: int = 40_000_000, pages: int = 8192) -> Path:
    """A drifting hot window of 256 pages (90% of references, runs of 1-4) and 10% uniform."""
    import numpy as np

    from pagelab import traces

    trace = BUILD / "synthetic.pltrace"
    if trace.exists():
        return trace
    rng = np.random.default_rng(1970)
    phases = n // 100_000
    base = np.repeat(rng.integers(0, pages - 256, phases), 100_000)
    hot = base + rng.integers(0, 256, n)
    cold = rng.integers(0, pages, n)
    seq = np.where(rng.random(n) < 0.9, hot, cold).astype("<u8")
    raw = BUILD / "synthetic.u64"
    seq.tofile(raw)
    traces.convert(raw, trace, from_="u64", units="pages")
    raw.unlink()
    return trace


def oracle_of(trace: Path) -> Path:
    from pagelab import traces

    oracle = trace.with_suffix(".oracleGeneral.bin")
    if not oracle.exists() or oracle.stat().st_mtime < trace.stat().st_mtime:
        traces.export_oracle_general(trace, oracle)
    return oracle


def dense_loop(trace: Path, frames: int) -> dict[str, float]:
    exe = ROOT / "target" / "release" / "examples" / "dense_loop"
    out = subprocess.run(
        [str(exe), str(trace), str(frames), "lru", "fifo", "clock"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {r["policy"]: r for r in map(json.loads, out.splitlines())}


def _loaded(d: dict[str, float]) -> float:
    """The dense loop end to end: reading, decoding and expanding the file, then the loop."""
    return d["seconds"] + d["load_seconds"]


def machine() -> str:
    model = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import libcachesim as lcs

    return (
        f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}, libcachesim {getattr(lcs, '__version__', '?')}"
    )


def commit() -> str:
    def git(*a: str) -> str:
        return subprocess.run(["git", *a], capture_output=True, text=True, cwd=ROOT).stdout.strip()

    changed = git("status", "--porcelain", "--untracked-files=no")
    dirty = " (with uncommitted changes)" if changed else ""
    return git("rev-parse", "--short=12", "HEAD") + dirty


def pairs(trace: Path, frames: int, repeat: int) -> list[dict]:
    from pagelab import traces

    refs = traces.info(trace)["references"]
    oracle = oracle_of(trace)
    dense = dense_loop(trace, frames)
    rows = []
    for policy, cls, same in POLICIES:
        ours, theirs = best_pair(
            ["pagelab", policy, str(frames), str(trace)],
            ["libcachesim", cls, str(frames), str(oracle)],
            repeat,
        )
        misses = round(theirs["miss_ratio"] * refs)
        d = dense.get(DENSE.get(policy, ""), None)
        rows.append(
            {
                "policy": label(policy),
                "frames": frames,
                "pagelab faults": ours["faults"],
                "libcachesim misses": misses,
                "same": "yes" if ours["faults"] == misses else ("no" if same else "n/a (differ)"),
                "pagelab s": f"{ours['seconds']:.3f}",
                "libcachesim s": f"{theirs['seconds']:.3f}",
                "ratio": f"{theirs['seconds'] / ours['seconds']:.1f}x",
                "pagelab MB": f"{ours['peak_mb']:.0f}",
                "libcachesim MB": f"{theirs['peak_mb']:.0f}",
                "dense loop s": "" if d is None else f"{d['seconds']:.3f}",
                "pagelab / dense": "" if d is None else f"{ours['seconds'] / d['seconds']:.2f}",
                "dense with its load s": "" if d is None else f"{_loaded(d):.3f}",
                "pagelab / (dense with load)": ""
                if d is None
                else f"{ours['seconds'] / _loaded(d):.2f}",
            }
        )
        print(rows[-1], flush=True)
    return rows


def curves(trace: Path, repeat: int) -> list[dict]:
    from pagelab import traces

    refs = traces.info(trace)["references"]
    lru = best(["lru-curve", "-", "0", str(trace)], repeat)
    mn = best(["min-curve", "-", "0", str(trace)], repeat)
    return [
        {
            "curve": "LRU, every size (one pass)",
            "points": lru["points"],
            "s": f"{lru['seconds']:.3f}",
            "M refs/s": f"{refs / lru['seconds'] / 1e6:.0f}",
            "peak MB": f"{lru['peak_mb']:.0f}",
        },
        {
            "curve": "MIN, every size (one pass)",
            "points": mn["points"],
            "s": f"{mn['seconds']:.3f}",
            "M refs/s": f"{refs / mn['seconds'] / 1e6:.0f}",
            "peak MB": f"{mn['peak_mb']:.0f}",
        },
    ]


def sweep(trace: Path, pages: int, repeat: int) -> dict:
    sizes = sorted({max(1, pages * i // 20) for i in range(1, 21)})
    cmd = [
        str(ROOT / ".venv" / "bin" / "pagelab"),
        "curve",
        str(trace),
        "--policy",
        "lru,fifo,clock",
        "--sizes",
        ",".join(map(str, sizes)),
        "--format",
        "csv",
        "--output",
        str(BUILD / "sweep.csv"),
    ]
    env = dict(os.environ, RAYON_NUM_THREADS="2")
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, env=env, capture_output=True)
        times.append(time.perf_counter() - t0)
    return {"sizes": len(sizes), "s": min(times)}


def table(rows: list[dict]) -> list[str]:
    head = list(rows[0])
    return [
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
        *("| " + " | ".join(str(r[k]) for k in head) + " |" for r in rows),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--one", nargs=4, metavar=("TOOL", "POLICY", "FRAMES", "TRACE"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", type=Path, default=ROOT / "benches" / "RESULTS.md")
    args = ap.parse_args()
    if args.one:
        tool, policy, frames, trace = args.one
        one(tool, policy, int(frames), trace)
        return
    from pagelab import _atomic, traces

    BUILD.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "pagelab-trace", "--example", "dense_loop"],
        cwd=ROOT,
        check=True,
    )
    load_before = os.getloadavg()
    lines = [
        "# pagelab against libCacheSim",
        "",
        f"Machine: {machine()}. Commit {commit()}. "
        f"Command: `make bench` (`.venv/bin/python benches/vs_libcachesim.py "
        f"--repeat {args.repeat}`), best of {args.repeat} fresh processes per figure.",
        "",
        "Seconds are the simulation call alone, end to end from the tool's own trace file "
        "(pagelab: its compressed .pltrace, computing MIN's next use itself; libCacheSim: the "
        "oracleGeneral binary with next-access times precomputed). MB is the process's peak "
        "RSS, interpreter included. The dense loop is a plain per-reference loop over the "
        "trace already decoded into one page index per reference (decoding not timed); "
        "'dense with its load' adds the time it takes to read, decode and expand the same "
        ".pltrace into that array, so that both sides start from the file.",
    ]
    for trace in (sort_trace(), synthetic_trace()):
        info = traces.info(trace)
        pages = info["distinct_pages"]
        frames = max(2, pages // 10)
        lines += [
            "",
            f"## {trace.name}: {info['references']:,} references in {info['runs']:,} runs, "
            f"{pages:,} pages; {frames:,} frames",
            "",
            *table(pairs(trace, frames, args.repeat)),
            "",
            *table(curves(trace, args.repeat)),
        ]
        if trace.name == "sort.pltrace":
            sw = sweep(trace, pages, args.repeat)
            lines += [
                "",
                f"`pagelab curve` with 3 policies (lru, fifo, clock) x {sw['sizes']} sizes, "
                f"RAYON_NUM_THREADS=2, whole command: {sw['s']:.2f} s.",
            ]
    load_after = os.getloadavg()
    lines += [
        "",
        f"Load average (1, 5, 15 min) before: {', '.join(f'{x:.2f}' for x in load_before)}; "
        f"after: {', '.join(f'{x:.2f}' for x in load_after)}.",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    _atomic.write_text(args.out, "\n".join(lines) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
