"""Ctrl-C and SIGTERM stop a long command: exit 130 / 143, one line, nothing written, no process.

The signal arrives while the Rust event loop runs (python/pagelab/interrupt.py). The waits
below only bound a hang; the stop itself takes milliseconds (docs/reliability.md).
"""

from __future__ import annotations

import os
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
    # An input that never ends: a named pipe fed until the reader goes away.
    fifo = tmp_path / "in.txt"
    os.mkfifo(fifo)
    p = subprocess.Popen(
        [*PAGELAB, "trace", "convert", str(fifo), str(tmp_path / "o.plt"), "--from", "text"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )

    def feed() -> None:
        block = "".join(f"{i % 977}\n" for i in range(10_000)).encode()
        try:
            with fifo.open("wb") as f:
                while True:
                    f.write(block)
        except (BrokenPipeError, OSError):
            pass

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    time.sleep(2)
    assert p.poll() is None, "the conversion is still reading when the signal comes"
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=HANG_S)
    feeder.join(timeout=HANG_S)
    assert p.returncode == 143, err
    assert sorted(x.name for x in tmp_path.iterdir()) == ["in.txt"]
