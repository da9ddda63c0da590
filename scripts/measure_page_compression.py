"""Measures how the anonymous pages of real programs compress, page by page, as zswap sees them.

    python scripts/measure_page_compression.py --out crates/pagelab-trace/data/page_compression.json

Each program (sort, gzip -9, bzip2, python3, sqlite3, gcc -O2; a missing one is skipped with a
note) runs on an input generated here from a fixed seed. Every `--interval` seconds it and its
children are stopped (SIGSTOP), the resident anonymous pages of their private writable mappings
are read through /proc/PID/mem, and they are let go (SIGCONT). A page counts when
/proc/PID/pagemap has it present and not file-backed, and /proc/kpageflags does not call it the
shared zero page (a read of an untouched page maps that page; reclaim never swaps it).

Each 4096-byte page is zero-filled, same-filled (every 64-bit word equal, not zero: Linux 6.1's
mm/zswap.c zswap_is_page_same_filled stores such a page as its word; 6.12 leaves zswap's check
out and mm/page_io.c marks only zero-filled pages in the swap map, with no I/O), or compressed
with the algorithms of the kernel's crypto drivers: LZO1X-1 (crypto/lzo.c, lzo1x_1_compress),
LZ4 at acceleration 1 (crypto/lz4.c, LZ4_compress_default) and zstd with the parameters of level
3 for an input of unknown size (crypto/zstd.c: zstd_get_params(ZSTD_DEF_LEVEL = 3, 0), in 6.1 and
6.12 alike). Needs root for /proc/kpageflags (without it zero-page mappings count as zero-filled).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

PAGE = 4096
ZSTD_LEVEL = 3  # crypto/zstd.c ZSTD_DEF_LEVEL, Linux 6.1 and 6.12
NAMES = ("lzo", "lz4", "zstd")
COMMAND = "python scripts/measure_page_compression.py --out {out}"
PM_PRESENT, PM_FILE = 1 << 63, 1 << 61
PFN_MASK = (1 << 55) - 1
KPF_ZERO_PAGE = 1 << 24
PAIR = re.compile(r"\[\s*(\d+),\s*(\d+)\s*\]")


# Inputs, all from fixed seeds. Each builder returns (argv, stdin file or None, command shown).
SEED = 20240601


def vocabulary(rng: random.Random, n: int = 6000) -> list[str]:
    syllables = ["ka", "lo", "mi", "ne", "ru", "sta", "ben", "dor", "ix", "qua", "the", "wil"]
    return ["".join(rng.choices(syllables, k=rng.randint(1, 4))) for _ in range(n)]


def text_file(tmp: Path, mb: int) -> Path:
    """`mb` MiB of lines of Zipf-distributed words and numbers (made once per run)."""
    path = tmp / f"text{mb}.txt"
    if path.exists():
        return path
    rng = random.Random(SEED)
    vocab = vocabulary(rng)
    weights = [1 / (r + 1) for r in range(len(vocab))]
    with path.open("w") as f:
        written = 0
        while written < mb << 20:
            words = rng.choices(vocab, weights, k=4000)
            lines = []
            for i in range(0, len(words), 10):
                lines.append(" ".join(words[i : i + 10]) + f" {rng.randrange(10**6)}\n")
            chunk = "".join(lines)
            f.write(chunk)
            written += len(chunk)
    return path


def sql_script(tmp: Path) -> Path:
    """Inserts into two tables, an index, joins, groupings and updates."""
    rng = random.Random(SEED + 1)
    vocab = vocabulary(rng, 3000)
    out = [
        "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT, city TEXT, born INT);",
        "CREATE TABLE sale(id INTEGER PRIMARY KEY, person INT, item TEXT, price REAL);",
        "BEGIN;",
    ]
    for i in range(60_000):
        name, city = " ".join(rng.choices(vocab, k=2)), rng.choice(vocab[:200])
        out.append(
            f"INSERT INTO person VALUES({i}, '{name}', '{city}', {rng.randint(1930, 2010)});"
        )
    for i in range(200_000):
        item, price = rng.choice(vocab), rng.randint(100, 99_999) / 100
        out.append(f"INSERT INTO sale VALUES({i}, {rng.randrange(60_000)}, '{item}', {price});")
    out += [
        "COMMIT;",
        "CREATE INDEX sale_person ON sale(person);",
        "SELECT city, count(*), avg(price) FROM person JOIN sale ON sale.person = person.id "
        "GROUP BY city ORDER BY 3 DESC LIMIT 20;",
        "SELECT item, sum(price) FROM sale GROUP BY item ORDER BY 2 DESC LIMIT 20;",
        "UPDATE sale SET price = price * 1.1 WHERE item LIKE 'ka%';",
        "SELECT name, born FROM person ORDER BY name, born LIMIT 50 OFFSET 1000;",
        "SELECT born / 10, count(DISTINCT city) FROM person GROUP BY 1;",
    ]
    path = tmp / "script.sql"
    path.write_text("\n".join(out) + "\n")
    return path


N_FUNCTIONS = 250


def c_source(tmp: Path) -> Path:
    """Many small functions with loops and switches for gcc -O2 to optimise."""
    rng = random.Random(SEED + 2)
    parts = ["#include <stdio.h>", "static int table[256];"]
    for i in range(N_FUNCTIONS):
        cases = "".join(
            f"case {c}: s = s * {rng.randint(3, 99)} + a[j] - {rng.randint(1, 999)}; break; "
            for c in range(8)
        )
        parts.append(
            f"int f{i}(const int *a, int n) {{ int s = {i}; "
            f"for (int j = 0; j < n; j++) {{ switch ((a[j] ^ {rng.randint(0, 255)}) & 7) "
            f"{{ {cases}}} table[j & 255] += s; }} return s; }}"
        )
    calls = " + ".join(f"f{i}(table, {i % 50 + 1})" for i in range(N_FUNCTIONS))
    parts.append(f'int main(void) {{ printf("%d\\n", {calls}); return 0; }}')
    path = tmp / "gen.c"
    path.write_text("\n".join(parts) + "\n")
    return path


PY_WORKLOAD = """
import json, random
rng = random.Random(7)
words = ["".join(rng.choices("abcdefghijklmnop", k=rng.randint(3, 12))) for _ in range(50000)]
for rnd in range(6):
    index = {}
    for i in range(150000):
        index.setdefault(rng.choice(words), []).append((i, rng.random(), str(i)))
    rows = sorted(((k, len(v), sum(x[1] for x in v)) for k, v in index.items()), key=lambda r: r[2])
    blob = json.dumps(rows[:20000])
    counts = {}
    for w in blob.split(","):
        counts[w[:6]] = counts.get(w[:6], 0) + 1
    print(rnd, len(index), len(blob), len(counts))
"""


def py_script(tmp: Path) -> Path:
    path = tmp / "alloc.py"
    path.write_text(PY_WORKLOAD)
    return path


def _sort(tmp: Path, tool: str):
    keys = ["-S", "64M", "--parallel=1", "-k3,3", "-k11,11n"]
    shown = "sort -S 64M --parallel=1 -k3,3 -k11,11n text24.txt"
    return [tool, *keys, str(text_file(tmp, 24))], None, shown


def _gzip(tmp: Path, tool: str):
    return [tool, "-9", "-c", str(text_file(tmp, 6))], None, "gzip -9 -c text6.txt"


def _bzip2(tmp: Path, tool: str):
    return [tool, "-9", "-c", str(text_file(tmp, 24))], None, "bzip2 -9 -c text24.txt"


def _python(tmp: Path, tool: str):
    return [sys.executable, str(py_script(tmp))], None, "python3 alloc.py"


def _sqlite(tmp: Path, tool: str):
    return [tool, ":memory:"], sql_script(tmp), "sqlite3 :memory: < script.sql"


def _gcc(tmp: Path, tool: str):
    out = str(tmp / "gen.o")
    return [tool, "-O2", "-c", str(c_source(tmp)), "-o", out], None, "gcc -O2 -c gen.c"


#: (name, program looked up with `which`, builder); textN.txt is N MiB of generated text.
PROGRAMS = (
    ("sort", "sort", _sort),
    ("gzip", "gzip", _gzip),
    ("bzip2", "bzip2", _bzip2),
    ("python3", "python3", _python),
    ("sqlite3", "sqlite3", _sqlite),
    ("gcc", "gcc", _gcc),
)


def compressors() -> tuple[dict, dict[str, str]]:
    """The three compressors as page -> compressed length, and how each is described."""
    try:
        import lz4
        import lz4.block
        import lzo
        import zstandard
    except ImportError:
        sys.exit("measure_page_compression: missing library: pip install python-lzo lz4 zstandard")
    # The kernel fixes level 3's parameters for an unknown size; `level=3` alone would let
    # libzstd pick its table for small inputs (another minimum match), so they are given here.
    params = zstandard.ZstdCompressionParameters.from_level(ZSTD_LEVEL, source_size=0)
    zstd = zstandard.ZstdCompressor(compression_params=params)
    fns = {
        "lzo": lambda p: len(lzo.compress(p, 1, False)),
        "lz4": lambda p: len(lz4.block.compress(p, store_size=False)),
        "zstd": lambda p: len(zstd.compress(p)),
    }
    lzo_lib = lzo.LZO_VERSION_STRING.decode()
    zstd_lib = ".".join(map(str, zstandard.ZSTD_VERSION))
    about = {
        "lzo": f"LZO1X-1 (python-lzo {lzo.__version__.decode()}, LZO {lzo_lib})",
        "lz4": f"LZ4 block, acceleration 1 (lz4 {lz4.__version__}, "
        f"liblz4 {lz4.library_version_string()})",
        "zstd": f"level {ZSTD_LEVEL}, parameters for an unknown size "
        f"(zstandard {zstandard.__version__}, libzstd {zstd_lib})",
    }
    return fns, about


@dataclass
class Tally:
    """What one program's snapshots held."""

    snapshots: int = 0
    pages: int = 0
    zero: int = 0
    same: int = 0
    lengths: dict[str, list[int]] = field(default_factory=lambda: {n: [] for n in NAMES})

    def add(self, page: bytes, fns: dict) -> None:
        self.pages += 1
        first = page[:8]
        if page == first * (PAGE // 8):
            if first == bytes(8):
                self.zero += 1
            else:
                self.same += 1
            return
        for name in NAMES:
            self.lengths[name].append(fns[name](page))


def family(pid: int) -> list[int]:
    """`pid` and its descendants (gcc's cc1 and as run as children of the driver)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def private_writable(pid: int) -> list[tuple[int, int]]:
    """(start, end) of each private writable mapping but [vvar] and [vdso]."""
    spans = []
    for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
        fields = line.split()
        perms = fields[1]
        name = fields[5] if len(fields) > 5 else ""
        if perms[1] != "w" or perms[3] != "p" or name in ("[vvar]", "[vdso]", "[vsyscall]"):
            continue
        start, end = (int(x, 16) for x in fields[0].split("-"))
        spans.append((start, end))
    return spans


def anonymous_pages(pid: int, spans, kflags: int | None) -> list[int]:
    """Addresses of the resident anonymous pages of `spans` (module docstring)."""
    found = []
    with open(f"/proc/{pid}/pagemap", "rb", buffering=0) as pm:
        for start, end in spans:
            raw = os.pread(pm.fileno(), (end - start) // PAGE * 8, start // PAGE * 8)
            for i in range(len(raw) // 8):
                entry = int.from_bytes(raw[i * 8 : i * 8 + 8], "little")
                if not entry & PM_PRESENT or entry & PM_FILE:
                    continue
                pfn = entry & PFN_MASK
                if kflags is not None and pfn:
                    flags = int.from_bytes(os.pread(kflags, 8, pfn * 8), "little")
                    if flags & KPF_ZERO_PAGE:
                        continue
                found.append(start + i * PAGE)
    return found


def read_process(pid: int, kflags: int | None, tally: Tally, fns: dict) -> None:
    """Adds each readable anonymous page of the stopped process `pid` to `tally`."""
    try:
        addrs = set(anonymous_pages(pid, private_writable(pid), kflags))
        mem = os.open(f"/proc/{pid}/mem", os.O_RDONLY)
    except OSError:
        return  # gone meanwhile
    try:
        for addr in sorted(addrs):
            try:
                page = os.pread(mem, PAGE, addr)
            except OSError:
                continue
            if len(page) == PAGE:
                tally.add(page, fns)
    finally:
        os.close(mem)


def wait_stopped(pids: list[int], timeout: float = 2.0) -> None:
    deadline = time.monotonic() + timeout
    for pid in pids:
        while time.monotonic() < deadline:
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                break
            if state in "TtZX":
                break
            time.sleep(0.001)


def snapshot(pid: int, kflags: int | None, tally: Tally, fns: dict) -> bool:
    """Stops the process family, reads it and lets it go; False when it has exited."""
    pids = family(pid)
    stopped = []
    for p in pids:
        try:
            os.kill(p, signal.SIGSTOP)
            stopped.append(p)
        except ProcessLookupError:
            pass
    if not stopped:
        return False
    wait_stopped(stopped)
    try:
        for p in stopped:
            read_process(p, kflags, tally, fns)
    finally:
        for p in stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, signal.SIGCONT)
    tally.snapshots += 1
    return True


def measure(argv: list[str], stdin: Path | None, cwd: Path, interval: float, fns: dict) -> Tally:
    """Runs `argv` to its end, a snapshot every `interval` seconds of its own time."""
    tally = Tally()
    try:
        kflags = os.open("/proc/kpageflags", os.O_RDONLY)
    except OSError:
        print("  note: /proc/kpageflags unreadable (not root): zero-page mappings count")
        kflags = None
    src = open(stdin, "rb") if stdin else subprocess.DEVNULL  # noqa: SIM115
    try:
        env = {**os.environ, "LC_ALL": "C"}
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=src, stdout=subprocess.DEVNULL)
        while True:
            time.sleep(interval)
            if proc.poll() is not None or not snapshot(proc.pid, kflags, tally, fns):
                break
        if proc.wait() != 0:
            sys.exit(f"measure_page_compression: {argv[0]} exited {proc.returncode}")
    finally:
        if stdin:
            src.close()
        if kflags is not None:
            os.close(kflags)
    return tally


def summary(command: str, t: Tally) -> dict:
    """One program's entry of the output."""
    return {
        "command": command,
        "snapshots": t.snapshots,
        "pages": t.pages,
        "zero_filled": t.zero,
        "same_filled": t.same,
        "mean_bytes": {n: round(statistics.fmean(t.lengths[n]), 1) for n in NAMES},
        "median_bytes": {n: float(statistics.median(t.lengths[n])) for n in NAMES},
    }


def apportion(counts: list[int], total: int) -> list[int]:
    """`counts` scaled to sum to `total`, rounded by largest remainder (ties: earliest)."""
    whole = sum(counts)
    exact = [c * total / whole for c in counts]
    out = [int(x) for x in exact]
    order = sorted(range(len(counts)), key=lambda i: (-(exact[i] - out[i]), i))
    for i in order[: total - sum(out)]:
        out[i] += 1
    return out


def pool(tallies: dict[str, Tally]) -> tuple[dict, bool]:
    """The pooled figures, and whether each program was weighted equally (page counts more
    than 10x apart): then each is scaled to the largest program's page count."""
    sizes = [t.pages for t in tallies.values()]
    equal = max(sizes) > 10 * min(sizes)
    target = max(sizes)
    pages = zero = same = 0
    hist: dict[str, Counter] = {n: Counter() for n in NAMES}
    for t in tallies.values():
        n_pages = target if equal else t.pages
        z, s, c = apportion([t.zero, t.same, t.pages - t.zero - t.same], n_pages)
        pages, zero, same = pages + n_pages, zero + z, same + s
        for name in NAMES:
            bins = sorted(Counter(t.lengths[name]).items())
            scaled = apportion([k for _, k in bins], c) if equal else [k for _, k in bins]
            for (length, _), k in zip(bins, scaled, strict=True):
                hist[name][length] += k
    compressed = {n: [[b, k] for b, k in sorted(hist[n].items()) if k] for n in NAMES}
    return {"pages": pages, "zero_filled": zero, "same_filled": same, "compressed": compressed}, (
        equal
    )


ABOUT = (
    "Compressed sizes of the resident anonymous 4096-byte pages of real programs, read through "
    "/proc/PID/mem while each was stopped at {interval} s intervals of its run (its children "
    "too), each page counted once per snapshot; pages of the shared zero page and file pages "
    "left out. Zero-filled pages are stored without compression by both kernels (6.1: zswap's "
    "same-filled check; 6.12: mm/page_io.c marks them in the swap map, no I/O); same_filled "
    "counts the non-zero pages whose 64-bit words are all equal, which 6.1's zswap stores as "
    "their word and 6.12 compresses. The other pages are compressed by the kernel crypto "
    "drivers' algorithms (lengths over 4096 do not fit zsmalloc: zswap rejects such a page). "
    "mean_bytes and median_bytes are over a program's compressed pages. Pooled: {pooling}."
)


def document(tallies: dict, commands: dict, about: dict, out: str, interval: float) -> dict:
    pooled, equal = pool(tallies)
    pooling = (
        "page counts differ by more than 10x, so each program is weighted equally: its counts "
        "scaled to the largest program's pages (largest-remainder rounding)"
        if equal
        else "every page as measured"
    )
    return {
        "about": ABOUT.format(interval=interval, pooling=pooling),
        "command": COMMAND.format(out=out),
        "date": datetime.date.today().isoformat(),
        "page_bytes": PAGE,
        "compressors": about,
        "programs": {n: summary(commands[n], t) for n, t in tallies.items()},
        "pooled": pooled,
    }


def write_atomic(path: Path, doc: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        text = PAIR.sub(r"[\1, \2]", json.dumps(doc, indent=1))  # one [bytes, count] a line
        with os.fdopen(fd, "w") as f:
            f.write(text + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--interval", type=float, default=0.2, help="seconds between snapshots")
    args = ap.parse_args()
    fns, about = compressors()
    tallies, commands = {}, {}
    with tempfile.TemporaryDirectory(prefix="pagecomp.") as tmp:
        for name, tool, build in PROGRAMS:
            if shutil.which(tool) is None:
                print(f"{name}: {tool} not found, skipped")
                continue
            argv, stdin, shown = build(Path(tmp), tool)
            tally = measure(argv, stdin, Path(tmp), args.interval, fns)
            print(f"{name}: {tally.snapshots} snapshots, {tally.pages} pages")
            if tally.snapshots < 3:
                sys.exit(f"measure_page_compression: {name} ran too briefly for 3 snapshots")
            tallies[name], commands[name] = tally, shown
    write_atomic(Path(args.out), document(tallies, commands, about, args.out, args.interval))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
