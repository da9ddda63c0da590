"""pagelab's prediction of a kernel run: the same record shape as the instrument's, from models.

Two steps, both stated and neither fitted:
1. **Frames.** memory.max holds the trace's pages and everything else the cgroup is charged for:
   the replayer's own pages, kernel stack and slab, memcg's per-CPU charge stock (a constant per
   kernel, `overhead.json`, measured in the guest by `pagelab linux overhead`), and the page
   tables of the trace's mapping, one page per 512 pages (x86-64: a page-table page maps
   2 MiB). What is left, in pages, is the frames the model gets.
2. **The model** of the kernel's reclaim (the two-list LRU or MGLRU of that kernel version,
   with its refault tracking, swap readahead and zswap) replays the same touch list at those
   frames and counts what the kernel counts.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from .. import _core
from ..errors import PagelabError
from .knobs import Knobs
from .touches import Touches

PAGE = 4096
#: Pages one page-table page maps (x86-64, 4 KiB pages: 512 eight-byte entries).
PTES_PER_PAGE = 512
OVERHEAD_FILE = Path(__file__).with_name("overhead.json")


def overhead(kernel: str) -> dict[str, Any]:
    """The measured constant part of the cgroup's overhead for `kernel` [pages]."""
    data = json.loads(OVERHEAD_FILE.read_text())
    if kernel not in data["base_pages"]:
        raise PagelabError(f"no overhead measured for Linux {kernel} (pagelab linux overhead)")
    return data


def frames_for(knobs: Knobs, pages: int) -> int:
    """The frames memory.max leaves the trace's pages (see the module notes)."""
    base = overhead(knobs.kernel)["base_pages"][knobs.kernel]
    tables = math.ceil(pages / PTES_PER_PAGE)
    frames = knobs.memory_max // PAGE - base - tables
    if frames < 1:
        raise PagelabError(
            f"--memory-max {knobs.memory_max}: below what the replayer itself needs "
            f"({(base + tables) * PAGE >> 10} KiB before any of the trace's pages)"
        )
    return frames


def touch_arrays(touches: Touches) -> tuple[np.ndarray, np.ndarray]:
    """The touch list as page numbers and write flags."""
    raw = np.fromfile(touches.path, dtype="<u4", offset=24)
    return (raw & 0x7FFFFFFF).astype(np.uint32), (raw >> 31).astype(bool)


def predict(touches: Touches, knobs: Knobs) -> dict[str, Any]:
    """The model's counters for one cell, in the instrument's record shape."""
    frames = frames_for(knobs, touches.pages)
    pages, writes = touch_arrays(touches)
    counters = _model(pages, writes, frames, knobs)
    counters["frames"] = frames
    counters["overhead_pages"] = knobs.memory_max // PAGE - frames
    return {
        **counters,
        "kernel": {"series": knobs.kernel},
        "knobs": knobs.as_dict(),
        "trace": {
            "source": touches.source,
            "sha256": touches.sha256,
            "pages": touches.pages,
            "touches": touches.touches,
            "writes": touches.writes,
        },  # fmt: skip
        "source": "pagelab",
    }


def _model(pages: np.ndarray, writes: np.ndarray, frames: int, knobs: Knobs) -> dict[str, Any]:
    replay = getattr(_core, "linux_replay", None)
    if replay is None:
        raise PagelabError("this build has no Linux reclaim model (_core.linux_replay)")
    try:
        out = replay(
            pages.tolist(), writes.tolist(), frames, knobs.kernel, knobs.lru_gen,
            knobs.page_cluster, knobs.swappiness, knobs.zswap,
        )  # fmt: skip
    except (ValueError, OverflowError) as e:
        raise PagelabError(str(e)) from None
    return dict(out)

