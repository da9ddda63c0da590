"""Fault by fault: which touch of the touch list took each refault, in the kernel and the replay.

Counters say how many major faults a replay took; where the model and the kernel part, *when*
they fault says why. Both sides write one file of the same shape:

- `pagelab linux run --fault-log FILE` boots once under TCG with QEMU's exception log on
  (`-d int`): every page fault the guest CPU takes is logged with its error code and address
  (CR2). The replayer's faults on its mapping are matched to the touch list in order (below).
- `pagelab linux predict --fault-log FILE` records the replay's own major faults
  (`pagelab_trace::linux::replay_recorded`), at the TLB's first size.

The file is JSON (`FORMAT`, `VERSION`): the record's counters, the trace's hash, and `faults`,
a list of `[touch, page]` (the touch list's index, the mapping's page), one per refault.
`pagelab linux faults A B` sets two of them side by side, window by window.

**Matching the kernel's log.** The loop takes a not-present fault (error code bit 0 clear,
from user mode) on the first touch of each page and on each touch of a page reclaimed since
its last; everything else it touches is mapped. So the faults on the mapping, in order, are a
subsequence of the touch list in which no first touch of a page is skipped. The mapping's
address is found as the one for which the first faults follow the touch list so; each later
fault is matched to the next touch of its page that is not a first touch of another page
before it. A touch that is not a first touch is a **refault**: a swap-in, which the kernel
counts as major unless it found the page still in the swap cache, so the log's refaults can
exceed `pgmajfault` by those (the file gives both). Where a page's touches are ambiguous (it
is touched again, mapped, before the touch that faulted), the earliest is taken.
"""

from __future__ import annotations

import array
import bisect
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from .. import _atomic
from ..errors import PagelabError
from . import guest, instrument, kernels, record, tlb_probe
from .instrument import Job
from .touches import Touches

FORMAT, VERSION = "pagelab-fault-log", 1
PAGE_SHIFT = 12
#: QEMU's `-d int` line for an exception: vector 0x0e is a page fault.
_FAULT = re.compile(r" v=0e e=([0-9a-f]+) .*?cpl=(\d).*?CR2=([0-9a-f]+)")
#: Addresses tried for the mapping, and the faults each is tried on.
_CANDIDATES, _TRIAL = 8, 2000


def user_faults(lines: Iterable[str]) -> Iterator[int]:
    """The pages (addresses >> 12) of the not-present page faults taken in user mode, in
    order, from QEMU's `-d int` log."""
    for line in lines:
        if " v=0e " not in line:
            continue
        m = _FAULT.search(line)
        if m and m.group(2) == "3" and not int(m.group(1), 16) & 1:
            yield int(m.group(3), 16) >> PAGE_SHIFT


def touch_pages(touches: Touches) -> array.array:
    """The touch list's pages, in order."""
    raw = array.array("I")
    with open(touches.path, "rb") as f:
        f.seek(24)
        raw.frombytes(f.read())
    if sys.byteorder != "little":
        raw.byteswap()
    return array.array("I", (t & 0x7FFFFFFF for t in raw))


class _Matcher:
    """Walks the touch list alongside the faults on the mapping (module notes)."""

    def __init__(self, pages: array.array):
        self.pages = pages
        self.seen = bytearray(max(pages) + 1)
        self.at = 0

    def take(self, page: int) -> int | None:
        """The touch that took a fault on `page`; None, and nothing consumed, where the list
        cannot give one (a first touch of another page comes first: it would have faulted)."""
        pages, seen, at = self.pages, self.seen, self.at
        while at < len(pages):
            p = pages[at]
            at += 1
            if p == page:
                seen[p] = 1
                self.at = at
                return at - 1
            if not seen[p]:
                return None
        return None


def match(faults: list[int], pages: array.array) -> dict[str, Any]:
    """The refaults (`[touch, page]`), the first touches matched and the faults on the
    mapping left unmatched, from the user faults' pages (`user_faults`); a one-line error
    where no mapping address makes them follow the touch list.

    The mapping's address: of the addresses that put the first touch's page at a fault, the
    few that hold the most faults in the mapping's span are tried, and the one whose first
    `_TRIAL` faults follow the touch list best is taken."""
    if not pages:
        raise PagelabError("the touch list is empty: no fault to match")
    npages = max(pages) + 1
    ordered = sorted(faults)
    starts: dict[int, int] = {}
    for k, f in enumerate(faults):
        starts.setdefault(f - pages[0], k)
    held = {b: bisect.bisect_left(ordered, b + npages) - bisect.bisect_left(ordered, b)
            for b in starts}  # fmt: skip
    best, score = None, 0
    for base in sorted(held, key=lambda b: (-held[b], b))[:_CANDIDATES]:
        got = _follow(faults[starts[base] :], base, npages, pages, _TRIAL)
        s = got["first_touches"] + len(got["faults"]) - got["unmatched"]
        if s > score:
            best, score = base, s
    if best is None or score < min(_TRIAL, len(pages)) // 2:
        raise PagelabError("the fault log does not follow the touch list (no mapping address fits)")
    return _follow(faults[starts[best] :], best, npages, pages)


def _follow(
    faults: list[int], base: int, npages: int, pages: array.array, most: int | None = None
) -> dict[str, Any]:
    m, refaults, firsts, unmatched = _Matcher(pages), [], 0, 0
    for f in faults:
        page = f - base
        if not 0 <= page < npages:
            continue
        if most is not None and firsts + len(refaults) + unmatched >= most:
            break
        was = m.seen[page]
        t = m.take(page)
        if t is None:
            unmatched += 1  # another process's fault at the mapping's address, after the loop
        elif was:
            refaults.append([t, page])
        else:
            firsts += 1
    return {"faults": refaults, "first_touches": firsts, "unmatched": unmatched}


def kernel_log(log: Path, touches: Touches) -> dict[str, Any]:
    """The refaults of QEMU's `-d int` log `log`, matched to `touches`."""
    with open(log, errors="replace") as f:
        faults = list(user_faults(f))
    return match(faults, touch_pages(touches))


def boot(job: Job, *, accel: str = "auto") -> tuple[dict[str, Any], dict[str, Any]]:
    """One boot of `job` under TCG with QEMU's exception log on, never cached (the log is not
    a counter): the record of that run and its refaults matched to the touch list (module
    notes), with the entries of the guest's TLB that the replayer's probe
    found after its loop (`tlb_entries`: the size that decides when an access sets the
    accessed bit; None where the kernel killed the replayer first)."""
    if accel == "kvm":
        raise PagelabError("--fault-log: QEMU logs guest faults under TCG only (--accel tcg)")
    k = kernels.kernel(job.knobs.kernel)
    cell = instrument._cell(job, tlb_probe=True)
    with tempfile.TemporaryDirectory(prefix="pagelab-faults-") as tmp:
        log = Path(tmp) / "qemu.log"
        machine = guest.Boot(job.knobs.swap, (cell,), "tcg", int_log=str(log))
        texts, wall = guest.run(machine, k, {cell.name: job.touches.path})
        counters = record.counters(texts[0], job.knobs.memory_max, job.touches.pages)
        counters["boot_seconds"] = wall
        got = kernel_log(log, job.touches)
    curve = tlb_probe.parse(texts[0])
    got["tlb_entries"] = tlb_probe.entries(curve) if curve else None
    return instrument.summarise_runs(job, [counters]), got


def write(path: str | os.PathLike[str], rec: dict[str, Any], faults: list[list[int]],
          **extra: Any) -> Path:  # fmt: skip
    """The fault log of one replay, written atomically: the record's counters and knobs, the
    trace, and the faults."""
    out = {
        "format": FORMAT,
        "version": VERSION,
        "source": rec.get("source"),
        "kernel": rec.get("kernel"),
        "knobs": rec.get("knobs"),
        "trace": rec.get("trace"),
        "counters": {n: rec[n] for n in record.COUNTERS if rec.get(n) is not None},
        **extra,
        "refaults": len(faults),
        "faults": faults,
    }
    p = Path(path)
    _atomic.write_text(p, json.dumps(out, separators=(",", ":")) + "\n")
    return p


def read(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A fault log, checked: its format, version and faults."""
    p = Path(path)
    try:
        data = json.loads(p.read_text())
    except OSError as e:
        raise PagelabError(f"{p}: cannot read ({e.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise PagelabError(f"{p}: not a fault log (expected JSON)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise PagelabError(f"{p}: not a fault log (expected format {FORMAT!r})")
    if data.get("version") != VERSION:
        raise PagelabError(f"{p}: fault log version {data.get('version')!r}; expected {VERSION}")
    faults = data.get("faults")
    ok = isinstance(faults, list) and all(
        isinstance(f, list) and len(f) == 2 and all(type(x) is int and x >= 0 for x in f)
        for f in faults
    )
    if not ok:
        raise PagelabError(f"{p}: faults: expected a list of [touch, page] pairs")
    return data


def compare(a: dict[str, Any], b: dict[str, Any], windows: int = 20) -> dict[str, Any]:
    """Two fault logs of one touch list side by side: refaults per window of touches (equal
    windows over the list), and the pages whose refaults differ most."""
    from collections import Counter

    if isinstance(windows, bool) or not isinstance(windows, int) or not 1 <= windows <= 10_000:
        raise PagelabError(f"--windows {windows!r}: expected a whole number from 1 to 10000")
    ta, tb = a.get("trace") or {}, b.get("trace") or {}
    if ta.get("sha256") != tb.get("sha256"):
        raise PagelabError("the two fault logs replay different touch lists (trace sha256)")
    total = int(ta.get("touches") or 1 + max((f[0] for f in a["faults"] + b["faults"]), default=0))
    edges = [total * i // windows for i in range(windows + 1)]
    at = {k: sorted(t for t, _ in x["faults"]) for k, x in (("a", a), ("b", b))}

    def within(k: str, lo: int, hi: int) -> int:
        return bisect.bisect_left(at[k], hi) - bisect.bisect_left(at[k], lo)

    rows = [{"from": lo, "to": hi, "a": within("a", lo, hi), "b": within("b", lo, hi)}
            for lo, hi in zip(edges, edges[1:], strict=False) if hi > lo]  # fmt: skip
    pa, pb = Counter(p for _, p in a["faults"]), Counter(p for _, p in b["faults"])
    pages = sorted(set(pa) | set(pb), key=lambda p: (-abs(pa[p] - pb[p]), p))
    return {
        **{
            k: {
                "source": x.get("source"),
                "refaults": len(x["faults"]),
                "tlb_entries": x.get("tlb_entries"),
            }
            for k, x in (("a", a), ("b", b))
        },
        "windows": rows,
        "pages": [{"page": p, "a": pa[p], "b": pb[p]} for p in pages[:10] if pa[p] != pb[p]],
    }
