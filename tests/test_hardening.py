"""Bad input never crashes: mutated traces of every format and absurd numeric arguments.

Every call must give a result or a PagelabError (a ValueError): no other exception, no Rust
panic (PanicException), no abort, no hang. Most inputs go through the Python API in-process
(fast); a sample goes through the command line, where the answer must be one line and no
traceback. A hang would stop the suite: faulthandler ends the process after 30 s per test.
"""

from __future__ import annotations

import faulthandler
import os
import random
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import pagelab
from pagelab import lab, system, traces
from pagelab.errors import PagelabError

PAGELAB = [sys.executable, "-m", "pagelab"]
HANG_S = 30

LACKEY = "".join(
    f"I  {0x400000 + 4 * i:08x},4\n L {0x7FF000 + 64 * (i % 37):08x},8\n" for i in range(120)
)
PINATRACE = "".join(
    f"0x{0x400000 + i:x}: {'RW'[i % 2]} 0x{0x7FF000 + 96 * i:x}\n" for i in range(200)
)
TEXT = "".join(f"{(i * 7) % 23}\n" for i in range(300))
U64 = b"".join(struct.pack("<Q", (i * 13) % 41) for i in range(300))


def _oracle(ids: list[int]) -> bytes:
    out = b""
    for i, x in enumerate(ids):
        later = [k for k in range(i + 1, len(ids)) if ids[k] == x]
        nxt = later[0] + 1 if later else -1
        out += struct.pack("<IQIq", i, x, 4096, nxt)
    return out


ORACLE = _oracle([(i * 5) % 17 for i in range(150)])


def _mutate(data: bytes, rng: random.Random) -> bytes:
    """One of the damage kinds seen in traces from other tools."""
    b = bytearray(data)
    kind = rng.randrange(7)
    if kind == 0 and b:  # flipped bits
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    elif kind == 1:  # truncated
        del b[rng.randrange(len(b) + 1) :]
    elif kind == 2 and b:  # a slice duplicated
        i = rng.randrange(len(b))
        j = min(len(b), i + rng.randint(1, 64))
        b[j:j] = b[i:j]
    elif kind == 3 and b:  # a slice cut out
        i = rng.randrange(len(b))
        del b[i : i + rng.randint(1, 64)]
    elif kind == 4:  # random bytes inserted
        i = rng.randrange(len(b) + 1)
        b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 32)))
    elif kind == 5 and b:  # extreme values written over a word
        i = rng.randrange(len(b))
        b[i : i + 8] = rng.choice([b"\xff" * 8, b"\x00" * 8, struct.pack("<q", -1)])
    else:  # a line or record of garbage text
        b += rng.choice(
            [b"garbage\n", b"0x: R\n", b"I  zz,4\n", b"-1\n", b"99999999999999999999\n"]
        )
    return bytes(b)


def _outcome(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """'ok' or 'error'; any other exception fails the test."""
    try:
        fn(*args, **kwargs)
    except PagelabError:
        return "error"
    return "ok"


@pytest.fixture(autouse=True)
def _hang_guard() -> Any:
    faulthandler.dump_traceback_later(HANG_S, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope="module")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    d = tmp_path_factory.mktemp("seeds")
    (d / "t.txt").write_text(TEXT)
    traces.convert(d / "t.txt", d / "t.plt", from_="text")
    return {
        "lackey": LACKEY.encode(),
        "pinatrace": PINATRACE.encode(),
        "text": TEXT.encode(),
        "u64": U64,
        "oracle-general": ORACLE,
        "pagelab": (d / "t.plt").read_bytes(),
    }


MUTATIONS_PER_FORMAT = 85


@pytest.mark.parametrize("fmt", ["lackey", "pinatrace", "text", "u64", "oracle-general", "pagelab"])
def test_mutated_traces_give_a_result_or_one_error(
    fmt: str, seeds: dict[str, bytes], tmp_path: Path
) -> None:
    rng = random.Random(f"harden-{fmt}")
    outcomes = {"ok": 0, "error": 0}
    for i in range(MUTATIONS_PER_FORMAT):
        src = tmp_path / f"in{i}"
        src.write_bytes(_mutate(seeds[fmt], rng))
        out = tmp_path / f"out{i}.plt"
        units = rng.choice([None, "pages", "addresses"])
        from_ = fmt if i % 2 == 0 else None
        o = _outcome(traces.convert, src, out, from_=from_, units=units)
        outcomes[o] += 1
        assert (o == "ok") == out.exists(), "output written only on success"
        if fmt == "pagelab":
            _outcome(traces.info, src)
            _outcome(traces.verify, src)
            _outcome(lab.lru_curve, src)
            _outcome(lab.curve, src, ["clock"], [1, 3])
    assert sum(outcomes.values()) == MUTATIONS_PER_FORMAT
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


BAD_INTS = [
    -1,
    0,
    2**32,
    2**64,
    99999999999999999999,
    -(2**63),
    1.5,
    float("nan"),
    "7",
    "x",
    None,
    True,
]


@pytest.mark.parametrize("bad", BAD_INTS, ids=repr)
def test_numeric_arguments_of_the_api_give_a_result_or_one_error(bad: Any, tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text(TEXT)
    trace = tmp_path / "t.plt"
    traces.convert(tmp_path / "t.txt", trace, from_="text")
    calls: list[Callable[[], Any]] = [
        lambda: lab.curve(trace, ["lru"], [bad]),
        lambda: lab.curve([1, 2, 3, 1], ["fifo"], [2], warmup=bad),
        lambda: lab.lru_curve(trace, warmup=bad),
        lambda: lab.opt_curve(trace, max_frames=bad),
        lambda: lab.ws_curve(trace, [bad]),
        lambda: lab.psi_curve(trace, [bad]),
        lambda: lab.psi_curve(trace, [1], refs_per_io=bad),
        lambda: lab.psi_curve(trace, [1], reference_time_s=bad),
        lambda: lab.Stepper("fifo", bad, [1, 2]),
        lambda: lab.Stepper("lru", 2, [bad, 2]),
        lambda: traces.convert(tmp_path / "t.txt", tmp_path / "o.plt", page_size=bad),
        lambda: system.run("vm370", seed=bad, overrides=["run.duration_s=1"]),
    ]
    for call in calls:
        _outcome(call)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sizes=st.lists(st.integers(min_value=-(2**70), max_value=2**70), min_size=0, max_size=4),
    warmup=st.integers(min_value=-(2**70), max_value=2**70),
    pages=st.lists(st.integers(min_value=-(2**40), max_value=2**40), min_size=0, max_size=8),
    frames=st.integers(min_value=-(2**40), max_value=2**40),
)
# Drawn under the CI profile once the suite had imported all of pagelab (Hypothesis draws some
# integers from the constants of the loaded modules): it took seconds of table zeroing per
# policy before page lists were renumbered densely.
@example(sizes=[3], warmup=26693, pages=[240951, 179698, 240951, 2807832291], frames=1)
def test_any_integers_give_a_result_or_a_pagelab_error(
    sizes: list[int], warmup: int, pages: list[int], frames: int
) -> None:
    _outcome(lambda: pagelab.curve(pages or [1], ["lru", "fifo"], sizes, warmup=warmup))
    _outcome(lambda: list(lab.Stepper("lru", frames, pages)))
    _outcome(lambda: lab.psi_predict([], frames))


HUGE_PAGES = [240951, 179698, 240951, 2807832291, 2**32 - 1, 179698]


def test_page_lists_with_huge_page_numbers_run_at_once() -> None:
    """The policies' tables are as large as the distinct pages, not the largest page number:
    page 2807832291 once sized them for 2.8 billion pages (seconds of zeroing per policy, some
    GB), and page 2**32 - 1 overflowed the bound (a Rust panic)."""
    start = time.perf_counter()
    rows = pagelab.curve(HUGE_PAGES, ["lru", "fifo", "min"], [1, 2, 3, 4])
    assert time.perf_counter() - start < 2.0
    dense = pagelab.curve([0, 1, 0, 2, 3, 1], ["lru", "fifo", "min"], [1, 2, 3, 4])
    assert [r["faults"] for r in rows] == [r["faults"] for r in dense]
    assert [r["faults"] for r in rows[:4]] == [6, 5, 5, 4]  # LRU at 1 to 4 frames


@settings(max_examples=40, deadline=None)
@given(
    key=st.sampled_from(
        [
            "workload.users",
            "memory.frames",
            "run.warmup_s",
            "monitor.interval_s",
            "workload.shared_pages",
            "load_control.kind",
            "no.such.key",
        ]
    ),
    value=st.one_of(
        st.integers(min_value=-(2**70), max_value=2**70).map(str),
        st.floats(allow_nan=True).map(str),
        st.text(max_size=12),
    ),
)
def test_any_set_value_gives_a_result_or_a_pagelab_error(key: str, value: str) -> None:
    # A short run: the values are absurd, the time each one may take is not.
    _outcome(lambda: system.run("vm370", overrides=[f"{key}={value}", "run.duration_s=0.5"]))


CLI_CASES = [
    ["curve", "{trace}", "--sizes", "99999999999999999999"],
    ["curve", "{trace}", "--sizes", "1:1000000000"],
    ["curve", "{trace}", "--sizes", "4", "--warmup", "-1"],
    ["curve", "{trace}", "--sizes", "1:-5"],
    ["ws-curve", "{trace}", "--taus", "0"],
    ["psi", "{trace}", "--psi", "0:99999999999"],
    ["psi", "{trace}", "--psi", "1", "--reference-time", "nan"],
    ["step", "--refs", "1,2,3", "--frames", "-1"],
    ["step", "--refs", "-1,2", "--frames", "2"],
    ["step", "--refs", "4294967295", "--frames", "2"],
    ["trace", "convert", "{trace}", "{tmp}/o.plt", "--page-size", "-4096"],
    ["trace", "convert", "{oracle}", "{tmp}/o.plt", "--from", "oracle-general"],
    ["run", "vm370", "--seed", "-1"],
    ["run", "vm370", "--set", "workload.users=1000000000"],
    ["run", "vm370", "--set", "run.duration_s=1e30"],
]


@pytest.mark.parametrize("args", CLI_CASES, ids=lambda a: " ".join(a))
def test_command_line_answers_in_one_line_without_traceback(
    args: list[str], tmp_path: Path
) -> None:
    (tmp_path / "t.txt").write_text(TEXT)
    traces.convert(tmp_path / "t.txt", tmp_path / "t.plt", from_="text")
    dup = ORACLE[:50] + ORACLE[40:50] + ORACLE[50:]  # a slice duplicated: not whole records
    (tmp_path / "og.bin").write_bytes(dup)
    argv = [
        a.format(trace=tmp_path / "t.plt", tmp=tmp_path, oracle=tmp_path / "og.bin") for a in args
    ]
    p = subprocess.run(
        PAGELAB + argv, capture_output=True, text=True, timeout=HANG_S, cwd=tmp_path, check=False
    )
    assert "Traceback" not in p.stderr and "panicked" not in p.stderr, p.stderr
    assert p.returncode in (0, 2), (p.returncode, p.stderr)
    if p.returncode == 2:
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("pagelab: error:"), p.stderr


def test_sizes_above_the_distinct_pages_are_clamped_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text(TEXT)
    traces.convert(tmp_path / "t.txt", tmp_path / "t.plt", from_="text")
    p = subprocess.run(
        [*PAGELAB, "curve", str(tmp_path / "t.plt"), "--sizes", "1:1000000000"],
        capture_output=True,
        text=True,
        timeout=HANG_S,
        check=True,
    )
    rows = p.stdout.strip().splitlines()[1:]
    assert len(rows) == 23  # the 23 distinct pages of TEXT, each once
    assert "clamped" in p.stderr and "23" in p.stderr


def test_result_files_get_the_umask_mode(tmp_path: Path) -> None:
    from pagelab import _atomic

    old = os.umask(0o022)
    try:
        _atomic.write_json(tmp_path / "a.json", {"x": 1})
        os.umask(0o077)
        _atomic.write_table(tmp_path / "b.csv", [{"x": 1}], "csv")
    finally:
        os.umask(old)
    assert (tmp_path / "a.json").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "b.csv").stat().st_mode & 0o777 == 0o600
