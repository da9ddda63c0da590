"""pagelab's prediction of a kernel run: the same record shape as the instrument's, from models.

Two steps, both stated and neither fitted:
1. **Frames.** memory.max holds the trace's pages and everything else the cgroup is charged for:
   the replayer's own pages, kernel stack and slab, memcg's per-CPU charge stock (a constant per
   kernel, `overhead.json`, measured in the guest over the validation grid's runs), and the page
   tables of the trace's mapping, one page per 512 pages (x86-64: a page-table page maps
   2 MiB). What is left, in pages, is the frames the model gets.
2. **The model** of the kernel's reclaim (the two-list LRU or MGLRU of that kernel version,
   with its refault tracking, swap readahead and zswap) replays the same touch list at those
   frames and counts what the kernel counts.
"""

from __future__ import annotations

import array
import json
import math
import sys
from pathlib import Path
from typing import Any

from .. import _core
from ..errors import PagelabError
from .knobs import Knobs
from .touches import Touches

PAGE = 4096
#: Pages one page-table page maps (x86-64, 4 KiB pages: 512 eight-byte entries).
PTES_PER_PAGE = 512
OVERHEAD_FILE = Path(__file__).with_name("overhead.json")
COMPRESSED_FILE = Path(__file__).with_name("compressed.json")


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


def touch_pairs(touches: Touches) -> list[tuple[int, bool]]:
    """The touch list as (page, write) pairs."""
    raw = array.array("I")
    with open(touches.path, "rb") as f:
        f.seek(24)
        raw.frombytes(f.read())
    if sys.byteorder != "little":
        raw.byteswap()
    return [(t & 0x7FFFFFFF, t >= 0x80000000) for t in raw]


def predict(touches: Touches, knobs: Knobs) -> dict[str, Any]:
    """The model's counters for one cell, in the instrument's record shape."""
    frames = frames_for(knobs, touches.pages)
    counters = _model(touch_pairs(touches), frames, knobs)
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


def _model(pairs: list[tuple[int, bool]], frames: int, knobs: Knobs) -> dict[str, Any]:
    zswap = None
    if knobs.zswap is not None:
        compressor, zpool, percent = knobs.zswap.split(":")
        zswap = {
            "total_ram_pages": overhead(knobs.kernel)["guest_ram_pages"][knobs.kernel],
            "compressed_bytes": compressed_bytes(compressor),
            "max_pool_percent": int(percent),
            "zpool": zpool,
        }
    try:
        out = _core.linux_replay(
            pairs, frames, kernel=knobs.kernel, lru_gen=knobs.lru_gen,
            page_cluster=knobs.page_cluster, swappiness=knobs.swappiness, zswap=zswap,
        )  # fmt: skip
    except (ValueError, OverflowError) as e:
        raise PagelabError(str(e)) from None
    out = dict(out)
    out.pop("references", None)
    return out


def compressed_bytes(compressor: str) -> int:
    """What one of the replayer's pages compresses to [bytes], measured (`compressed.json`)."""
    data = json.loads(COMPRESSED_FILE.read_text())
    if compressor not in data["bytes"]:
        raise PagelabError(f"--zswap: no compressed size measured for {compressor}")
    return int(data["bytes"][compressor])
