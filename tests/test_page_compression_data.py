"""The committed page-compression measurement (crates/pagelab-trace/data/page_compression.json,
made by scripts/measure_page_compression.py) has its shape and its arithmetic: counts that add
up per compressor, lengths ascending within a page's worst case, and pooled figures that follow
from the programs' own."""

from __future__ import annotations

import json
import re

import pytest

from conftest import ROOT

DATA = ROOT / "crates" / "pagelab-trace" / "data" / "page_compression.json"
NAMES = ("lzo", "lz4", "zstd")
KEYS = {"about", "command", "date", "page_bytes", "compressors", "programs", "pooled"}
PROGRAM_KEYS = {
    "command",
    "snapshots",
    "pages",
    "zero_filled",
    "same_filled",
    "mean_bytes",
    "median_bytes",
}


@pytest.fixture(scope="module")
def doc() -> dict:
    return json.loads(DATA.read_text())


def _apportion(counts: list[int], total: int) -> list[int]:
    """The measuring script's largest-remainder rounding (`apportion`), loaded from its file."""
    import importlib.util
    import sys

    name = "measure_page_compression"
    if name not in sys.modules:
        path = ROOT / "scripts" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # its dataclasses look their module up by name
        spec.loader.exec_module(module)
    return sys.modules[name].apportion(counts, total)


def _equal_weight(programs: dict) -> bool:
    sizes = [p["pages"] for p in programs.values()]
    return max(sizes) > 10 * min(sizes)


def test_shape(doc):
    assert set(doc) == KEYS
    assert doc["page_bytes"] == 4096
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", doc["date"])
    assert doc["command"] == (
        "python scripts/measure_page_compression.py "
        "--out crates/pagelab-trace/data/page_compression.json"
    )
    assert set(doc["compressors"]) == set(NAMES)
    assert doc["compressors"]["lzo"].startswith("LZO1X-1 (python-lzo ")
    assert doc["compressors"]["zstd"].startswith("level 3")  # crypto/zstd.c ZSTD_DEF_LEVEL
    assert set(doc["pooled"]) == {"pages", "zero_filled", "same_filled", "compressed"}
    assert set(doc["pooled"]["compressed"]) == set(NAMES)
    assert len(doc["programs"]) >= 5


def test_programs_consistent(doc):
    for name, p in doc["programs"].items():
        assert set(p) == PROGRAM_KEYS, name
        assert p["snapshots"] >= 3, name
        counts = ("snapshots", "pages", "zero_filled", "same_filled")
        assert all(isinstance(p[k], int) for k in counts), name
        assert min(p["zero_filled"], p["same_filled"]) >= 0, name
        assert p["zero_filled"] + p["same_filled"] < p["pages"], name
        for c in NAMES:
            mean, median = p["mean_bytes"][c], p["median_bytes"][c]
            assert 1 <= mean <= 8192 and 1 <= median <= 8192, (name, c)
        # zstd compresses a page tighter than lzo and lz4 on average
        assert p["mean_bytes"]["zstd"] < min(p["mean_bytes"]["lzo"], p["mean_bytes"]["lz4"])


def test_pooled_counts_add_up(doc):
    pooled = doc["pooled"]
    for c in NAMES:
        hist = pooled["compressed"][c]
        lengths = [b for b, _ in hist]
        assert all(isinstance(b, int) and isinstance(k, int) for b, k in hist), c
        assert lengths == sorted(set(lengths)), f"{c}: lengths not strictly ascending"
        assert all(1 <= b <= 8192 for b in lengths), c
        assert all(k > 0 for _, k in hist), c
        total = pooled["zero_filled"] + pooled["same_filled"] + sum(k for _, k in hist)
        assert total == pooled["pages"], c


def _weights(programs: dict) -> dict[str, tuple[int, int, int, int]]:
    """(pages, zero, same, compressed) each program contributes to the pool."""
    equal = _equal_weight(programs)
    target = max(p["pages"] for p in programs.values())
    out = {}
    for name, p in programs.items():
        n = target if equal else p["pages"]
        rest = p["pages"] - p["zero_filled"] - p["same_filled"]
        z, s, c = _apportion([p["zero_filled"], p["same_filled"], rest], n)
        out[name] = (n, z, s, c)
    return out


def test_pooled_follows_from_programs(doc):
    programs, pooled = doc["programs"], doc["pooled"]
    weights = _weights(programs)
    assert pooled["pages"] == sum(w[0] for w in weights.values())
    assert pooled["zero_filled"] == sum(w[1] for w in weights.values())
    assert pooled["same_filled"] == sum(w[2] for w in weights.values())
    said = "weighted equally" in doc["about"]
    assert said == _equal_weight(programs), "about must say how the programs were pooled"
    for c in NAMES:
        hist = pooled["compressed"][c]
        mean = sum(b * k for b, k in hist) / sum(k for _, k in hist)
        expect = sum(w[3] * programs[n]["mean_bytes"][c] for n, w in weights.items())
        expect /= sum(w[3] for w in weights.values())
        # the programs' means are rounded to 0.1 byte, the scaled counts to whole pages
        assert mean == pytest.approx(expect, abs=1.0), c
