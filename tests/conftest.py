from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_cli(
    *args: str, check: bool = False, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    """Runs the installed `pagelab` command as a user would."""
    exe = Path(sys.executable).with_name("pagelab")
    proc = subprocess.run(
        [str(exe), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "200"},
        timeout=600,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"pagelab {' '.join(args)} failed:\n{proc.stderr}")
    return proc


@pytest.fixture
def cli():
    return run_cli


def assert_one_line_error(proc: subprocess.CompletedProcess, *needles: str) -> None:
    """A failed command says what is wrong in one line, without a traceback."""
    assert proc.returncode != 0
    err = proc.stderr.strip()
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    for n in needles:
        assert n in lines[0], (n, lines[0])


#: Smoke records (seed 1) already made in this session, by name.
SMOKE_RECORDS: dict[str, dict] = {}


def smoke_record(name: str) -> dict:
    """The smoke record of reproduction `name` at seed 1, made once per session: the golden
    test, the tests that read a record and the report's browser test share it."""
    if name not in SMOKE_RECORDS:
        import pagelab.reproduce as rep

        SMOKE_RECORDS[name] = rep.reproduce(name, scale="smoke", seed=1)
    return SMOKE_RECORDS[name]


@pytest.fixture(scope="session")
def hpo_table2_smoke() -> dict:
    """The `hpo-table2` smoke record, run once for the tests that only read it."""
    return smoke_record("hpo-table2")
