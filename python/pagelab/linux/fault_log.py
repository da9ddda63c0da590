"""Fault by fault: which touch of the touch list took each refault, in the kernel and the replay.

Counters say how many major faults a replay took; where the model and the kernel part, *when*
they fault says why. Both sides write one file of the same shape:

- `pagelab linux run --fault-log FILE` boots once under TCG with QEMU's exception log on
  (`-d int`): every page fault the guest CPU takes is logged with its error code and address
  (CR2). The replayer's faults on its mapping are matched to the touch list in order (below).
- `pagelab linux predict --fault-log FILE` records the replay's own major faults
  (`pagelab_trace::linux::replay_recorded`), at the TLB's first size.

The file is JSON (`FORMAT`, `VERSION`): the record's counters, the trace's hash, `faults`, a
list of `[touch, page]` (the touch list's index, the mapping's page), one per refault, and
`own_faults`, the touch after which each fault on one of the replayer's own pages came (its
rseq area, which the kernel writes on the return from a context switch: in the log, the
kernel's not-present faults on user addresses during the loop; in the replay, the major
faults of the replayer's own pages). `pagelab linux faults A B` sets two of them side by
side, window by window.

**Matching the kernel's log.** The loop takes a not-present fault (error code bit 0 clear,
from user mode) on the first touch of each page and on each touch of a page reclaimed since
its last; everything else it touches is mapped. So the faults on the mapping, in order, are a
subsequence of the touch list in which no first touch of a page is skipped. The mapping's
address is found as the one for which the faults follow the touch list so (`match`); each
later fault is matched to the next touch of its page that is not a first touch of another
page before it. A touch that is not a first touch is a **refault**: a swap-in, which the kernel
counts as major unless it found the page still in the swap cache, so the log's refaults can
exceed `pgmajfault` by those (the file gives both). Where a page's touches are ambiguous (it
is touched again, mapped, before the touch that faulted), the earliest is taken.
"""

from __future__ import annotations

import bisect
import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .. import _atomic
from ..errors import PagelabError
from . import guest, instrument, kernels, record, tlb_probe
from .instrument import Job
from .prediction import TOUCH_HEADER
from .touches import Touches

FORMAT, VERSION = "pagelab-fault-log", 1
PAGE_SHIFT = 12
#: The first page above x86-64's user half (47-bit addresses).
_USER_TOP = 1 << (47 - PAGE_SHIFT)
#: QEMU's `-d int` line for an exception: vector 0x0e is a page fault.
_FAULT = re.compile(r" v=0e e=([0-9a-f]+) .*?cpl=(\d).*?CR2=([0-9a-f]+)")
#: The loop's first pages that propose the mapping's address, the addresses tried at most,
#: and the faults each is tried on.
_PREFIX, _CANDIDATES, _TRIAL = 16, 64, 2000


def page_faults(lines: Iterable[str]) -> Iterator[tuple[bool, int]]:
    """(taken in user mode, page) of each not-present page fault on a user address, in order,
    from QEMU's `-d int` log: the program's own, and the kernel's on the program's behalf (its
    writes to the rseq area, `linux/rseq.rs`)."""
    for line in lines:
        if " v=0e " not in line:
            continue
        m = _FAULT.search(line)
        if m and not int(m.group(1), 16) & 1:
            page = int(m.group(3), 16) >> PAGE_SHIFT
            if m.group(2) == "3" or page < _USER_TOP:
                yield m.group(2) == "3", page


def user_faults(lines: Iterable[str]) -> Iterator[int]:
    """The pages of the not-present page faults taken in user mode, in order."""
    return (page for user, page in page_faults(lines) if user)


def touch_pages(touches: Touches) -> np.ndarray:
    """The touch list's pages, in order."""
    return touch_entries(touches)[0]


def touch_entries(touches: Touches) -> tuple[np.ndarray, np.ndarray]:
    """The touch list's pages, and whether each touch writes (bit 31 of its entry), in order."""
    raw = np.fromfile(touches.path, dtype="<u4", offset=TOUCH_HEADER)
    return (raw & 0x7FFFFFFF).astype(np.int64), (raw >> 31).astype(bool)


class _Index:
    """Where each page is touched, and where each page is touched first: what a fault may
    be matched to (module notes)."""

    def __init__(self, pages: np.ndarray):
        self.npages = int(pages.max()) + 1
        self.order = np.argsort(pages, kind="stable")  # each page's touches, in order
        self.starts = np.searchsorted(pages[self.order], np.arange(self.npages + 1))
        self.firsts = np.sort(np.unique(pages, return_index=True)[1])
        self.first_of = np.empty(self.npages, dtype=np.int64)
        self.first_of[pages[self.firsts]] = self.firsts

    def take(self, page: int, at: int) -> int | None:
        """The touch at or after `at` that took a fault on `page`: its next touch, unless the
        first touch of another page comes before it (that would have faulted first)."""
        occ = self.order[self.starts[page] : self.starts[page + 1]]
        j = int(np.searchsorted(occ, at))
        if j == len(occ):
            return None
        t = int(occ[j])
        f = int(np.searchsorted(self.firsts, at))
        if f < len(self.firsts) and int(self.firsts[f]) < t:
            return None
        return t


def match(faults: list[int], pages: np.ndarray) -> dict[str, Any]:
    """The refaults (`[touch, page]`), the first touches matched, the faults on the mapping
    left unmatched, and `positions` ((index in `faults`, touch) of each fault matched), from
    the user faults' pages (`user_faults`); a one-line error where no mapping address makes
    them follow the touch list.

    The mapping's address: the loop's first faults are the first touches of its first pages,
    in order, so each fault where they begin (`_PREFIX` of them among the next faults on the
    span) proposes an address. Runs of consecutive pages propose many (the static binaries'
    text, the touch list's own mapping, read page by page, and the mapping itself shifted by
    a few pages while its first touches run in order), so every address whose span takes at
    least half as many of the next `_TRIAL` faults as the best is tried on them, up to
    `_CANDIDATES`, and the one they follow best is taken."""
    if len(pages) == 0:
        raise PagelabError("the touch list is empty: no fault to match")
    index = _Index(pages)
    n = index.npages
    order = [int(p) for p in pages[index.firsts[:_PREFIX]]]
    at = np.asarray(faults, dtype=np.int64)
    proposed: dict[int, tuple[int, int]] = {}
    for k, f in enumerate(faults):
        base = f - order[0]
        if base in proposed:
            continue
        ahead = faults[k : k + 4 * len(order)]
        if [x - base for x in ahead if 0 <= x - base < n][: len(order)] == order:
            span = at[k : k + _TRIAL] - base
            proposed[base] = (k, int(((span >= 0) & (span < n)).sum()))
    most = max((c for _, c in proposed.values()), default=0)
    tried = sorted((k, b) for b, (k, c) in proposed.items() if 2 * c >= most)[:_CANDIDATES]
    best, score = None, 0
    for k, base in tried:
        got = _follow(faults[k : k + 4 * _TRIAL], base, index, _TRIAL)
        matched = got["first_touches"] + len(got["faults"])
        # Nearly every fault on the mapping must follow the list (a few may be another
        # process's, after the loop).
        if matched - got["unmatched"] > score and got["unmatched"] <= matched // 10:
            best, score = base, matched - got["unmatched"]
    if best is None:
        raise PagelabError("the fault log does not follow the touch list (no mapping address fits)")
    start = proposed[best][0]
    got = _follow(faults[start:], best, index)
    got["positions"] = [(start + i, t) for i, t in got["positions"]]
    return got


def _follow(faults: list[int], base: int, index: _Index, most: int | None = None) -> dict[str, Any]:
    """The faults on the mapping at `base` matched to the touch list in order (`match`'s
    result); a trial (`most`) stops after that many, or once too many do not follow it."""
    refaults, firsts, unmatched, at, positions = [], 0, 0, 0, []
    for i, f in enumerate(faults):
        page = f - base
        if not 0 <= page < index.npages:
            continue
        if most is not None and (
            firsts + len(refaults) + unmatched >= most
            or unmatched > 8 + (firsts + len(refaults)) // 10
        ):
            break  # a trial: enough seen, or too many faults off the list already
        t = index.take(page, at)
        if t is None:
            unmatched += 1  # another process's fault at the mapping's address, after the loop
            continue
        at = t + 1
        positions.append((i, t))
        if t == index.first_of[page]:
            firsts += 1
        else:
            refaults.append([t, page])
    return {"faults": refaults, "first_touches": firsts, "unmatched": unmatched,
            "positions": positions}  # fmt: skip


def kernel_log(log: Path, touches: Touches) -> dict[str, Any]:
    """The refaults of QEMU's `-d int` log `log`, matched to `touches`, and `own_faults`: the
    touch after which the kernel took each not-present fault on one of the replayer's own
    pages in the loop (its rseq area, written on the return from a switch; the kernel counts
    each a major fault of the replayer's when it swaps the page in)."""
    with open(log, errors="replace") as f:
        events = list(page_faults(f))
    user = [page for is_user, page in events if is_user]
    got = match(user, touch_pages(touches))
    at = dict(got.pop("positions"))
    first, last = min(at, default=0), max(at, default=-1)
    own, i, touch = [], -1, None
    for is_user, _page in events:
        if is_user:
            i += 1
            touch = at.get(i, touch)
        elif first <= i < last and touch is not None:
            own.append(touch)
    return {**got, "own_faults": own}


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
    own = data.get("own_faults", [])
    if not isinstance(own, list) or not all(type(t) is int and t >= 0 for t in own):
        raise PagelabError(f"{p}: own_faults: expected a list of touches")
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
                "own_faults": len(x.get("own_faults") or []),
            }
            for k, x in (("a", a), ("b", b))
        },
        "windows": rows,
        "pages": [{"page": p, "a": pa[p], "b": pb[p]} for p in pages[:10] if pa[p] != pb[p]],
    }
