"""A trace made ready for the kernel: converted to a pagelab trace if needed, then to a touch list.

The touch list (`pagelab_trace::touch`) is what the guest's replayer reads: one u32 per run.
Formats without kinds (raw u64, oracleGeneral) are replayed as writes (`writes="auto"`), since a
read of a page never written maps the kernel's zero page and would never be charged or swapped.
Touch lists are kept in the cache by the content hash of the source, so a trace is converted
once.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .. import _atomic, _core, traces
from ..errors import PagelabError
from .kernels import cache_root

MAGIC = b"PGLTRACE"


@dataclass(frozen=True)
class Touches:
    """A touch list in the cache."""

    path: Path
    sha256: str  # of the touch list itself: equal content, equal key
    pages: int
    touches: int
    writes: int
    source: str


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _is_binary(head: bytes) -> bool:
    return any(c == 0 or (c < 32 and c not in b"\t\r\n") or c > 126 for c in head)


def prepare(
    trace: str | os.PathLike[str],
    *,
    writes: str = "auto",
    instructions: bool = False,
    limit: int | None = None,
) -> Touches:
    """The touch list of `trace` (any format pagelab reads).

    `writes` is auto, kinds or all; `instructions` keeps instruction fetches as reads (they are
    file-backed code in the real program, so they are left out by default); `limit` keeps the
    first touches only.
    """
    if writes not in ("auto", "kinds", "all"):
        raise PagelabError(f"--writes {writes}: expected auto, kinds or all")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise PagelabError(f"--max-touches {limit!r}: expected a whole number of at least 1")
    src = Path(trace)
    if not src.is_file():
        raise PagelabError(f"{src}: no such trace file")
    with open(src, "rb") as f:
        head = f.read(4096)
    if not head:
        raise PagelabError(f"{src}: empty file (expected a trace)")
    is_pagelab = head.startswith(MAGIC)
    all_writes = writes == "all" or (
        writes == "auto" and not is_pagelab and _is_binary(head) and not _compressed(head)
    )
    digest = _digest(src)
    base = cache_root() / "touches"
    ident = f"{digest}:{all_writes}:{bool(instructions)}:{limit}"
    key = hashlib.sha256(ident.encode()).hexdigest()[:32]
    out, meta_path = base / f"{key}.touch", base / f"{key}.json"
    if out.exists() and meta_path.exists():
        return Touches(out, **json.loads(meta_path.read_text()))
    base.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=base) as tmpdir:
        pl = src
        if not is_pagelab:
            pl = Path(tmpdir) / "trace.pltrace"
            traces.convert(src, pl)
        with _atomic.atomic_path(out) as tmp:
            try:
                info = _core.trace_touches(
                    os.fspath(pl), os.fspath(tmp), all_writes, bool(instructions),
                    limit if limit is not None else 2**64 - 1,
                )  # fmt: skip
            except (ValueError, OSError) as e:
                raise PagelabError(f"{src}: {e}") from None
    meta = {
        "sha256": _digest(out),
        "pages": int(info["pages"]),
        "touches": int(info["touches"]),
        "writes": int(info["writes"]),
        "source": str(src),
    }
    if meta["touches"] == 0:
        raise PagelabError(f"{src}: the trace holds no references")
    _atomic.write_text(meta_path, json.dumps(meta))
    return Touches(out, **meta)


def _compressed(head: bytes) -> bool:
    return head.startswith((b"\x28\xb5\x2f\xfd", b"\xfd7zXZ\x00", b"\x1f\x8b"))
