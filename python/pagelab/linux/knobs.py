"""The knobs of one kernel run, checked once, before anything boots."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from ..errors import PagelabError
from .kernels import check_series

#: Below this memory.max the replayer cannot run at all: what cannot be reclaimed (its page
#: tables, kernel stack and slab) is about 100 KiB, and some frames must come on top. (It
#: starts under no limit and sets memory.max itself before its first touch, so its start's
#: 250 KiB, mostly never touched again, are reclaimed rather than in the way.)
MIN_MEMORY_MAX = 128 << 10
#: zswap's defaults per series (CONFIG_ZSWAP_COMPRESSOR_DEFAULT, CONFIG_ZSWAP_ZPOOL_DEFAULT of
#: Debian's configs; mm/zswap.c's max_pool_percent default of 20).
ZSWAP_DEFAULTS = {"6.1": "lzo:zbud:20", "6.12": "lzo:zsmalloc:20"}
COMPRESSORS = ("lzo", "lzo-rle", "lz4", "lz4hc", "zstd", "deflate", "842")
ZPOOLS = ("zbud", "z3fold", "zsmalloc")


@dataclass(frozen=True)
class Knobs:
    kernel: str
    memory_max: int
    lru_gen: bool
    swap: str = "brd"
    page_cluster: int = 0
    swappiness: int = 60
    zswap: str | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def parse_size(text: str | int, what: str = "--memory-max") -> int:
    """Bytes from `8388608`, `8M`, `8MiB`, `512K`, `1G`."""
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    m = re.fullmatch(r"\s*(\d+)\s*([KMG]?)(?:i?B)?\s*", str(text), flags=re.I)
    if not m:
        raise PagelabError(f"{what} {text!r}: expected bytes, or a size like 8M or 512K")
    scale = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2).upper()]
    return int(m.group(1)) * scale


def on_off(value: str | bool, what: str) -> bool:
    if isinstance(value, bool):
        return value
    v = str(value).lower()
    if v in ("on", "y", "yes", "true", "1"):
        return True
    if v in ("off", "n", "no", "false", "0"):
        return False
    raise PagelabError(f"{what} {value!r}: expected on or off")


def knobs(
    kernel: str = "6.1",
    memory_max: str | int = "8M",
    lru_gen: str | bool = "off",
    *,
    swap: str = "brd",
    page_cluster: int = 0,
    swappiness: int = 60,
    zswap: str | None = None,
) -> Knobs:
    """Checks every knob and names the one that is wrong."""
    check_series(kernel)
    size = parse_size(memory_max)
    if size < MIN_MEMORY_MAX:
        raise PagelabError(
            f"--memory-max {memory_max}: below what the replayer itself needs "
            f"(at least {MIN_MEMORY_MAX >> 10} KiB)"
        )
    if size > 1 << 36:
        raise PagelabError(f"--memory-max {memory_max}: above the 64 GiB a guest here can hold")
    if swap not in ("brd", "zram"):
        raise PagelabError(f"--swap {swap}: expected brd or zram")
    if not (isinstance(page_cluster, int) and 0 <= page_cluster <= 31):
        raise PagelabError(f"--page-cluster {page_cluster}: expected 0 to 31 (vm.page-cluster)")
    if not (isinstance(swappiness, int) and 0 <= swappiness <= 200):
        raise PagelabError(f"--swappiness {swappiness}: expected 0 to 200 (vm.swappiness)")
    return Knobs(
        kernel, size, on_off(lru_gen, "--lru-gen"), swap, page_cluster, swappiness,
        _zswap(zswap, kernel),
    )  # fmt: skip


def _zswap(value: str | None, kernel: str) -> str | None:
    """None (off), or compressor:zpool:max_pool_percent; `on` takes the kernel's defaults."""
    if value is None or str(value).lower() in ("off", "none", ""):
        return None
    if str(value).lower() == "on":
        return ZSWAP_DEFAULTS[kernel]
    parts = str(value).split(":")
    if len(parts) != 3:
        raise PagelabError(
            f"--zswap {value!r}: expected on, off or COMPRESSOR:ZPOOL:PERCENT (e.g. lzo:zbud:20)"
        )
    comp, pool, pct = parts
    if comp not in COMPRESSORS:
        raise PagelabError(
            f"--zswap {value!r}: compressor {comp!r} is not one of {', '.join(COMPRESSORS)}"
        )
    if pool not in ZPOOLS:
        raise PagelabError(f"--zswap {value!r}: zpool {pool!r} is not one of {', '.join(ZPOOLS)}")
    if not pct.isdigit() or not 1 <= int(pct) <= 100:
        raise PagelabError(f"--zswap {value!r}: max_pool_percent {pct!r} is not 1 to 100")
    return value
