"""Fault logs: QEMU's exception log matched to the touch list, the replay's own, and the two
side by side (`pagelab linux run/predict --fault-log`, `pagelab linux faults`)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from pagelab import linux
from pagelab.errors import PagelabError
from pagelab.linux import fault_log


def _line(vector: str, error: int, cpl: int, address: int) -> str:
    return (f"   12: v={vector} e={error:04x} i=0 cpl={cpl} IP=0033:0000000000401000 "
            f"pc=0000000000401000 SP=002b:00007ffd00000000 CR2={address:016x}")  # fmt: skip


def test_user_faults_are_the_not_present_faults_of_user_mode():
    lines = [
        _line("0e", 0x4, 3, 0x7F0000001000),  # read, not present, user: taken
        _line("0e", 0x6, 3, 0x7F0000002123),  # write, not present, user: taken
        _line("0e", 0x7, 3, 0x7F0000003000),  # write to a present read-only page: not
        _line("0e", 0x2, 0, 0x7F0000004000),  # the kernel's own (rseq, copy_to_user): not
        _line("20", 0x0, 3, 0x7F0000005000),  # a timer interrupt: not
        "something else entirely",
    ]
    assert list(fault_log.user_faults(lines)) == [0x7F0000001, 0x7F0000002]


def _kernel(pages: list[int], frames: int) -> tuple[list[int], list[list[int]]]:
    """A toy LRU kernel: the pages it faults on, in order, and its refaults."""
    resident: list[int] = []
    seen, faults, refaults = set(), [], []
    for t, p in enumerate(pages):
        if p in resident:
            resident.remove(p)
        else:
            faults.append(p)
            if p in seen:
                refaults.append([t, p])
            if len(resident) == frames:
                resident.pop(0)
        resident.append(p)
        seen.add(p)
    return faults, refaults


def test_the_log_is_matched_to_the_touch_list_past_a_decoy():
    """Another process's 60 sequential faults come first, and the touch list's mapping right
    after the trace's faults page by page, so an address that only has to fit the first
    faults, or that holds the most of them, would be wrong; the loop's own are matched
    exactly."""
    rng = np.random.default_rng(3)
    pages = [int(p) for p in np.concatenate([np.arange(50), rng.integers(0, 50, 3000)])]
    faults, refaults = _kernel(pages, 30)
    base = 0x7F0012345
    loop = [base + p for p in faults]
    # The touch list's own mapping, right after the trace's, read page by page as the loop goes.
    for j, at in enumerate(range(40, len(loop), 50)):
        loop.insert(at + j, base + 50 + j)
    log = [0x55000000 + i for i in range(60)] + loop + [0x400123]
    got = fault_log.match(log, np.array(pages))
    assert len(got.pop("positions")) == 50 + len(refaults)
    assert got == {"faults": refaults, "first_touches": 50, "unmatched": 0}


def test_the_kernels_faults_on_the_replayers_own_pages_are_placed_at_their_touch(tmp_path):
    """Kernel-mode faults on a user address between the loop's faults are the replayer's own
    pages (its rseq area), placed after the touch of the fault before; those before the loop
    are not."""
    from pagelab.linux.touches import prepare

    trace = tmp_path / "loop.u64"
    np.tile(np.arange(40, dtype=np.uint64), 3).tofile(trace)
    base, rseq = 0x7F0012345, 0x4C6
    lines = [_line("0e", 0x2, 0, rseq << 12)]  # before the loop: not counted
    lines += [_line("0e", 0x6, 3, (base + p) << 12) for p in range(40)]
    lines += [_line("0e", 0x0, 0, rseq << 12), _line("0e", 0x3, 0, rseq << 12)]
    lines += [_line("0e", 0x4, 3, (base + p) << 12) for p in range(40)]  # the second pass
    (tmp_path / "qemu.log").write_text("\n".join(lines) + "\n")
    got = fault_log.kernel_log(tmp_path / "qemu.log", prepare(trace))
    assert got["first_touches"] == 40 and len(got["faults"]) == 40 and got["unmatched"] == 0
    assert got["faults"][0] == [40, 0]
    assert got["own_faults"] == [39]


def test_a_log_that_does_not_follow_the_list_is_one_line():
    with pytest.raises(PagelabError, match="does not follow the touch list"):
        fault_log.match([0x1000 + i for i in range(0, 400, 7)], np.arange(100))


def _log(tmp_path, refaults, sha="a" * 64, touches=100, name="x.json", **over):
    rec = {"source": "pagelab", "trace": {"sha256": sha, "touches": touches}, "major_faults": 2}
    path = fault_log.write(tmp_path / name, rec, refaults)
    if over:
        data = json.loads(path.read_text())
        data.update(over)
        path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("over", "message"),
    [
        ({"format": "something"}, "not a fault log"),
        ({"version": 7}, "fault log version 7; expected 1"),
        ({"faults": [[1, -2]]}, r"faults: expected a list of \[touch, page\] pairs"),
        ({"faults": "many"}, r"faults: expected a list of \[touch, page\] pairs"),
    ],
)
def test_a_bad_fault_log_is_one_line_naming_the_file(tmp_path, over, message):
    path = _log(tmp_path, [[3, 1]], **over)
    with pytest.raises(PagelabError, match=message) as e:
        fault_log.read(path)
    assert str(path) in str(e.value) and "\n" not in str(e.value)
    (tmp_path / "y.json").write_text("{not json")
    with pytest.raises(PagelabError, match="y.json: not a fault log"):
        fault_log.read(tmp_path / "y.json")


def test_two_logs_side_by_side_window_by_window(tmp_path):
    a = fault_log.read(_log(tmp_path, [[5, 1], [15, 2], [95, 1]], name="a.json"))
    b = fault_log.read(_log(tmp_path, [[6, 1], [55, 3], [56, 3]], name="b.json"))
    got = fault_log.compare(a, b, windows=4)
    assert [(w["from"], w["to"], w["a"], w["b"]) for w in got["windows"]] == [
        (0, 25, 2, 1), (25, 50, 0, 0), (50, 75, 0, 2), (75, 100, 1, 0),
    ]  # fmt: skip
    assert got["pages"][0] == {"page": 3, "a": 0, "b": 2}
    other = fault_log.read(_log(tmp_path, [], sha="b" * 64, name="c.json"))
    with pytest.raises(PagelabError, match="different touch lists"):
        fault_log.compare(a, other)
    with pytest.raises(PagelabError, match="--windows 0"):
        fault_log.compare(a, b, windows=0)


@pytest.fixture(scope="module")
def loop_trace(tmp_path_factory):
    """600 pages written in a loop 20 times: at 2 MiB (about 480 frames) every pass refaults."""
    path = tmp_path_factory.mktemp("faults") / "loop600.u64"
    np.tile(np.arange(600, dtype=np.uint64), 20).tofile(path)
    return path


def test_the_replays_fault_log_names_each_major_fault(loop_trace, tmp_path):
    path = tmp_path / "p.json"
    rec = linux.predict(loop_trace, memory_max="2M", lru_gen="on", tlb=256, fault_log=path)
    got = fault_log.read(path)
    assert got["source"] == "pagelab" and got["trace"]["touches"] == 12_000
    assert got["tlb_entries"] == 256
    assert rec["fault_log"]["refaults"] == len(got["faults"]) > 0
    # Besides the trace's pages, only the replayer's own take major faults.
    assert len(got["own_faults"]) == rec["major_faults"] - len(got["faults"]) <= 16
    assert all(t % 600 == p and t >= 600 for t, p in got["faults"])
    assert [t for t, _ in got["faults"]] == sorted(t for t, _ in got["faults"])


def test_the_cli_sets_two_fault_logs_side_by_side(loop_trace, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for path, gen in ((a, "off"), (b, "on")):
        out = subprocess.run(
            [sys.executable, "-m", "pagelab", "linux", "predict", str(loop_trace),
             "--memory-max", "2M", "--lru-gen", gen, "--fault-log", str(path)],
            capture_output=True, text=True,
        )  # fmt: skip
        assert out.returncode == 0 and "fault log in" in out.stdout, out.stderr
    out = subprocess.run(
        [sys.executable, "-m", "pagelab", "linux", "faults", str(a), str(b), "--windows", "4"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    rows = out.stdout.splitlines()
    assert rows[2].split() == ["touches", "A", "B", "B", "-", "A", "sum", "B", "-", "A"]
    assert rows[3].split()[0] == "0-3000" and len(rows) >= 7


def test_a_fault_log_needs_tcg_and_is_one_instrument_at_a_time(loop_trace, tmp_path):
    for extra, message in (
        (["--accel", "kvm"], "under TCG only"),
        (["--reclaim-events", str(tmp_path / "e.jsonl")], "one at a time"),
    ):
        out = subprocess.run(
            [sys.executable, "-m", "pagelab", "linux", "run", str(loop_trace), "--fault-log",
             str(tmp_path / "k.json"), *extra],
            capture_output=True, text=True,
        )  # fmt: skip
        assert out.returncode != 0 and message in out.stderr, out.stderr
        assert len(out.stderr.strip().splitlines()) == 1, out.stderr
        assert not (tmp_path / "k.json").exists()


def test_the_kernels_fault_log_on_the_real_kernel(loop_trace, tmp_path):
    """One boot under TCG: each page's first touch is matched, and the refaults the log finds
    are the kernel's major faults within the few on the replayer's own pages."""
    from test_linux import _kernel_or_skip

    _kernel_or_skip()
    path = tmp_path / "k.json"
    rec = linux.run(loop_trace, memory_max="2M", lru_gen="off", accel="tcg", fault_log=path)
    got = fault_log.read(path)
    assert got["source"] == "kernel" and got["first_touches"] == 600
    assert got["unmatched"] == 0 and 64 <= got["tlb_entries"] <= 4096
    assert len(got["faults"]) == pytest.approx(rec["major_faults"], abs=30)
    assert all(t % 600 == p for t, p in got["faults"])
