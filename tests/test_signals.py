"""Ctrl-C and SIGTERM stop a long command: exit 130 / 143, one line, nothing written, no process.

The signal arrives while the Rust event loop runs (python/pagelab/interrupt.py). The waits
below only bound a hang; the stop itself takes milliseconds (docs/reliability.md).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

PAGELAB = [sys.executable, "-m", "pagelab"]
HANG_S = 30


@pytest.mark.parametrize(("sig", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_a_long_run_with_nothing_written(
    sig: signal.Signals, status: int, tmp_path: Path
) -> None:
    out = tmp_path / "DIR"
    out.mkdir()
    p = subprocess.Popen(
        [*PAGELAB, "run", "vm370", "--set", "run.duration_s=200000", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    time.sleep(3)
    assert p.poll() is None, "the run is still simulating when the signal comes"
    p.send_signal(sig)
    _, err = p.communicate(timeout=HANG_S)
    assert p.returncode == status, err
    assert err.strip().splitlines() == [f"pagelab: interrupted by {sig.name}; nothing written"], err
    assert list(out.iterdir()) == []
    with pytest.raises(ProcessLookupError):
        os.kill(p.pid, 0)


def test_a_signal_stops_a_conversion_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    line = "".join(f"{i % 977}\n" for i in range(100_000))
    big.write_text(line * 80)  # eight million references
    p = subprocess.Popen(
        [*PAGELAB, "trace", "convert", str(big), str(tmp_path / "o.plt"), "--from", "text"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    # Signal as soon as the conversion is writing its temporary output.
    deadline = time.monotonic() + HANG_S
    while not any(x.name.endswith(".tmp") for x in tmp_path.iterdir()):
        if p.poll() is not None or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    if p.poll() is not None:
        pytest.skip("the conversion finished before the signal")
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=HANG_S)
    if p.returncode == 0:
        pytest.skip("the conversion finished before the signal")
    assert p.returncode == 143, err
    assert sorted(x.name for x in tmp_path.iterdir()) == ["big.txt"]


def _feed(fifo: Path, lines: int | None) -> threading.Thread:
    """Writes page numbers into `fifo`: `lines` of them, or until the reader goes away."""

    def feed() -> None:
        block = "".join(f"{i % 977}\n" for i in range(1000)).encode()
        try:
            with fifo.open("wb") as f:
                for _ in range(lines // 1000) if lines is not None else iter(int, 1):
                    f.write(block)
        except OSError:  # the reader closed the pipe
            pass

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    return t


def test_a_conversion_reads_a_named_pipe_once(tmp_path: Path) -> None:
    fifo = tmp_path / "in.txt"
    os.mkfifo(fifo)
    feeder = _feed(fifo, 5000)
    out = tmp_path / "o.plt"
    done = subprocess.run(
        [*PAGELAB, "trace", "convert", str(fifo), str(out), "--from", "text"],
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    feeder.join(timeout=HANG_S)
    assert done.returncode == 0, done.stderr
    from pagelab import traces

    assert traces.info(out)["references"] == 5000


def test_a_signal_stops_a_conversion_of_an_endless_pipe(tmp_path: Path) -> None:
    fifo = tmp_path / "in.txt"
    os.mkfifo(fifo)
    p = subprocess.Popen(
        [*PAGELAB, "trace", "convert", str(fifo), str(tmp_path / "o.plt"), "--from", "text"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    feeder = _feed(fifo, None)
    deadline = time.monotonic() + HANG_S
    while not any(x.name.endswith(".tmp") for x in tmp_path.iterdir()):
        assert p.poll() is None and time.monotonic() < deadline, "the conversion never started"
        time.sleep(0.01)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=HANG_S)
    feeder.join(timeout=HANG_S)
    assert p.returncode == 143, err
    assert sorted(x.name for x in tmp_path.iterdir()) == ["in.txt"]


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="trace capture needs valgrind")
def test_a_signal_stops_a_capture_and_its_child(tmp_path: Path) -> None:
    # `sleep` writes no references for a minute: the read waits, the watchdog kills the child.
    p = subprocess.Popen(
        [*PAGELAB, "trace", "capture", "-o", str(tmp_path / "c.plt"), "--", "sleep", "60"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    time.sleep(3)
    children = subprocess.run(
        ["pgrep", "-P", str(p.pid)], capture_output=True, text=True, check=False
    ).stdout.split()
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=HANG_S)
    assert p.returncode == 143, err
    assert list(tmp_path.iterdir()) == []
    for child in children:
        with pytest.raises(ProcessLookupError):
            os.kill(int(child), 0)
